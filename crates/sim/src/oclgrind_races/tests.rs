//! The table-based model against the reference model: the same reports, block for block, for
//! racy kernels of several work-groups (local and global memory, atomics, values stored
//! alike, overlapping accesses of different sizes, copies by the group), on one thread and
//! on several.

use super::USE_REFERENCE;
use crate::{run_kernel, ArgValue, NoObserver, Report, SharedBuffer, SimOptions};
use clmap_workload::NdRange;

fn reports(src: &str, global: u64, local: u64, args: &[ArgValue], threads: usize) -> Vec<Report> {
    let module = match clmap_lang::frontend::compile_isolated(src, "") {
        Ok(c) => c.module,
        Err(f) => panic!("does not compile:\n{}", f.render()),
    };
    let range =
        NdRange { global: [global, 1, 1], local: Some([local, 1, 1]), offset: [0; 3], dims: 1 };
    let options = SimOptions {
        threads,
        check_races: true,
        report_every_work_item: true,
        ..SimOptions::default()
    };
    // Fresh buffers each run: the kernels write what they read.
    let args: Vec<ArgValue> = args
        .iter()
        .map(|a| match a {
            ArgValue::Buffer(b) => {
                ArgValue::Buffer(SharedBuffer::from_bytes(&b.name, &b.to_bytes()))
            }
            other => other.clone(),
        })
        .collect();
    let mut reports = match run_kernel(&module, "k", &range, &args, &options, &|| NoObserver) {
        Ok(run) => run.reports,
        Err(e) => panic!("simulation failed: {e}"),
    };
    // Only the order a report's counter gives matters, and the sorted list keeps it.
    reports.iter_mut().for_each(|r| r.time = 0);
    reports
}

/// Runs `src` with both models and asserts the same reports, in the same order. The
/// reference runs on one thread (where the threads a launch starts are not asked to use it):
/// a kernel compared on several must store no value that depends on the timing of other
/// groups (through loads of what they store, or atomics).
fn same_reports(src: &str, global: u64, local: u64, args: &[ArgValue], threads: &[usize]) -> usize {
    USE_REFERENCE.set(true);
    let expected = reports(src, global, local, args, 1);
    USE_REFERENCE.set(false);
    for &threads in threads {
        let got = reports(src, global, local, args, threads);
        assert_eq!(
            format!("{got:#?}"),
            format!("{expected:#?}"),
            "{threads} thread(s) differ from the reference"
        );
    }
    expected.len()
}

fn ints(name: &str, n: usize) -> ArgValue {
    let bytes: Vec<u8> = (0..n as i32).flat_map(|v| (v * 7 % 5).to_le_bytes()).collect();
    ArgValue::Buffer(SharedBuffer::from_bytes(name, &bytes))
}

#[test]
fn local_and_global_races_of_several_groups_are_reported_as_by_the_reference() {
    // Every value stored is the same whatever the order of the groups, so several threads
    // must give the same reports too.
    let src = r#"
    __kernel void k(__global const int *g, __global int *h, __global int *out,
                    __global char *bytes, __global int *sink) {
        __local int tile[64];
        __local int flag;
        __local int count;
        int l = get_local_id(0), i = get_global_id(0);
        tile[l] = g[i];
        flag = 1;
        if (l == 0)
            count = 0;
        tile[(l + 1) % 64] += 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_add(&count, 1);
        if (l == 5)
            count = 3;
        out[i] = l;
        out[(i + 5) % 256] = l;
        bytes[i / 2] = (char)l;
        sink[i] = *(__global int *)(bytes + (i % 61) * 4) + h[i] + tile[(l + 3) % 64];
        h[i / 3] = i;
        barrier(CLK_GLOBAL_MEM_FENCE);
        sink[256 + i] = out[(i + 7) % 256];
        out[256 + (i % 64)] = 1;
        int4 v = vload4(0, g + l);
        vstore4(v, 0, out + 320 + (l % 9));
        out[400 + get_group_id(0)] = 9;
        ((__global short *)out)[900 + l] = (short)l;
        tile[0] = l;
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        out[i] = tile[1] + count;
    }"#;
    let args =
        [ints("g", 256), ints("h", 256), ints("out", 512), ints("bytes", 256), ints("sink", 512)];
    let found = same_reports(src, 256, 64, &args, &[1, 3]);
    assert!(found > 50, "the kernel should race a lot: {found} reports");
}

#[test]
fn global_atomics_against_plain_accesses_are_reported_as_by_the_reference() {
    let src = r#"
    __kernel void k(__global int *counter, __global int *out) {
        int l = get_local_id(0), i = get_global_id(0);
        atomic_add(counter, 1);
        if (l == 0)
            counter[1] = 5;
        if (l == 1)
            atomic_inc(counter + 1);
        out[i] = counter[2];
        if (l == 7)
            atomic_xchg(counter + 2, i);
    }"#;
    let args = [ints("counter", 3), ints("out", 128)];
    let found = same_reports(src, 128, 32, &args, &[1]);
    assert!(found > 5, "the kernel should race: {found} reports");
}

#[test]
fn copies_by_the_group_and_failed_exchanges_are_replayed_as_by_the_reference() {
    let src = r#"
    __kernel void k(__global int *g, __global int *out, __global int *lock) {
        __local int tile[32];
        int l = get_local_id(0), i = get_global_id(0);
        if (l == 3)
            tile[5] = 1;
        event_t e = async_work_group_copy(tile, g + get_group_id(0) * 32, 32, 0);
        wait_group_events(1, &e);
        out[i] = tile[(l + 1) % 32];
        atomic_cmpxchg(lock, 7, l);
        if (l == 2)
            lock[0] = 3;
        event_t f = async_work_group_copy(out + 64, tile, 16, 0);
        wait_group_events(1, &f);
        out[64 + l % 16] = l;
    }"#;
    let args = [ints("g", 128), ints("out", 128), ints("lock", 1)];
    let found = same_reports(src, 128, 32, &args, &[1]);
    assert!(found > 10, "the kernel should race: {found} reports");
}

#[test]
fn a_clean_kernel_stays_clean() {
    let src = r#"
    __kernel void k(__global const float *a, __global const float *b, __global float *c) {
        __local float tile[16];
        int l = get_local_id(0), i = get_global_id(0);
        tile[l] = a[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        c[i] = tile[(l + 1) % 16] * b[i];
    }"#;
    let args = [ints("a", 64), ints("b", 64), ints("c", 64)];
    assert_eq!(same_reports(src, 64, 16, &args, &[1, 2]), 0);
}

#[test]
fn a_store_before_an_atomic_of_the_same_work_item_is_what_the_others_race_with() {
    // Work-item 0's own record keeps its plain store (an atomic operation gives way to a
    // plain access, never the other way), so each later work-item's atomic races with it:
    // read-write through its load, write-write through the value it read.
    let src = r#"
    __kernel void k(__global int *counter) {
        if (get_local_id(0) == 0)
            counter[0] = 5;
        atomic_add(counter, 2);
    }"#;
    let args = [ints("counter", 1)];
    same_reports(src, 4, 4, &args, &[1]);
    let found = reports(src, 4, 4, &args, 1);
    let kinds: Vec<(u64, bool)> = found
        .iter()
        .map(|r| (r.global_id[0], r.entities.as_ref().is_some_and(|e| e.write_write)))
        .collect();
    assert_eq!(kinds, [(1, false), (1, true), (2, false), (2, true), (3, false), (3, true)]);
    assert!(found.iter().all(|r| r.entities.as_ref().is_some_and(|e| e.second.global_id[0] == 0)));
}

#[test]
fn a_compare_and_exchange_that_succeeds_stores_the_value_it_wrote() {
    // Work-item 1 finds the 5 work-item 0 stored: exchanging it for 5 is a same-value race
    // (Oclgrind keeps it quiet), for 9 a write-write race.
    let race = |new: i32| {
        let src = format!(
            r#"
            __kernel void k(__global int *counter) {{
                if (get_local_id(0) == 0)
                    counter[0] = 5;
                else
                    atomic_cmpxchg(counter, 5, {new});
            }}"#
        );
        let args = [ints("counter", 1)];
        same_reports(&src, 2, 2, &args, &[1]);
        reports(&src, 2, 2, &args, 1)
            .iter()
            .map(|r| (r.kind, r.entities.as_ref().is_some_and(|e| e.write_write)))
            .collect::<Vec<_>>()
    };
    use crate::ReportKind::{DataRace, SameValueRace};
    assert_eq!(race(5), [(DataRace, false), (SameValueRace, true)]);
    assert_eq!(race(9), [(DataRace, false), (DataRace, true)]);
}

#[test]
fn a_copy_races_where_it_is_waited_for_with_the_values_it_copies() {
    // The copy is issued before the barrier and waited for after it, where Oclgrind
    // performs it: it races with the stores in between, except where they store what it
    // copies (g holds 0, 2, 0, 2, ...: all but lanes 2 and 6 store the same). A second
    // copy is never waited for, so it makes no access.
    let src = r#"
    __kernel void k(__global int *g, __global int *out) {
        __local int tile[8];
        int l = get_local_id(0);
        tile[l] = 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        event_t e = async_work_group_copy(tile, g, 8, 0);
        event_t never = async_work_group_copy(out, tile, 8, 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        tile[l] = l % 4 == 0 ? 0 : 2;
        out[l] = l;
        wait_group_events(1, &e);
    }"#;
    let bytes: Vec<u8> = (0..8i32).flat_map(|v| (v % 2 * 2).to_le_bytes()).collect();
    let args = [
        ArgValue::Buffer(SharedBuffer::from_bytes("g", &bytes)),
        ArgValue::Buffer(SharedBuffer::from_bytes("out", &[0; 32])),
    ];
    same_reports(src, 8, 8, &args, &[1]);
    let races: Vec<(bool, u64)> = reports(src, 8, 8, &args, 1)
        .iter()
        .filter(|r| r.kind == crate::ReportKind::DataRace)
        .map(|r| {
            let e = r.entities.as_ref().expect("a race names both sides");
            (e.first.work_group, e.second.global_id[0])
        })
        .collect();
    assert_eq!(races, [(true, 2), (true, 6)]);
}

#[test]
fn words_split_by_smaller_or_misaligned_accesses_are_reported_as_by_the_reference() {
    // Records keep a word whole until an access covers part of it: these accesses split
    // words (bytes and shorts inside words others load or store whole, misaligned words,
    // vectors over words in different states) and must report byte for byte what the
    // reference does, including stores of one word that differ in one byte only.
    let src = r#"
    __kernel void k(__global int *w, __global char *b, __global int *out, __global short *s) {
        __local int tile[32];
        int l = get_local_id(0), i = get_global_id(0), g = get_group_id(0);
        if (l == 3)
            ((__global char *)w)[4 * 5 + 2] = (char)g;
        out[i] = w[l % 8];
        w[8] = 7;
        w[9] = (l & 1) << 24;
        b[i % 40] = (char)l;
        out[64 + i] = *(__global int *)(b + 1 + (l % 9));
        tile[l % 32] = l;
        ((__local char *)tile)[(l * 3) % 128] = (char)l;
        barrier(CLK_LOCAL_MEM_FENCE);
        ((__local short *)tile)[l % 64] = (short)l;
        out[128 + i] = tile[(l + 1) % 32];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[192 + i] = tile[l % 32];
        int4 v = vload4(0, w + (l % 4));
        vstore4(v, 0, out + 256 + (l % 5));
        s[l % 7] = (short)g;
        out[300 + (i % 4)] = ((__global int *)s)[l % 3];
    }"#;
    let args = [ints("w", 16), ints("b", 16), ints("out", 320), ints("s", 4)];
    let found = same_reports(src, 128, 32, &args, &[1]);
    assert!(found > 20, "the kernel should race a lot: {found} reports");
}

#[test]
fn words_split_between_work_groups_are_reported_as_by_the_reference() {
    // Groups store bytes and shorts of words other groups load or store whole, and whole
    // words other groups store bytes of: the launch's record splits them. Values stored
    // depend on ids only, so several threads must agree too.
    let src = r#"
    __kernel void k(__global int *w, __global int *out) {
        int l = get_local_id(0), i = get_global_id(0), g = get_group_id(0);
        ((__global char *)w)[g] = (char)l;
        out[i] = w[l % 4];
        w[4 + g % 2] = g;
        ((__global char *)(w + 4))[(g + l) % 8] = 1;
        ((__global short *)w)[12 + g % 3] = (short)g;
        w[6 + l % 2] = 5;
    }"#;
    let args = [ints("w", 8), ints("out", 256)];
    let found = same_reports(src, 256, 32, &args, &[1, 3]);
    assert!(found > 10, "the kernel should race: {found} reports");
}

#[test]
fn records_emptied_between_intervals_by_moving_on_are_reported_as_by_the_reference() {
    // Each interval's record is emptied by moving on to new work-item stamps, not by a pass
    // over its words, and a work-item's own record is checked when the next work-item
    // touches the word: words split in one interval of global memory stay split into the
    // next ones, the same words are touched again after each barrier (in a loop, by
    // different work-items each time), and the last work-item to touch a word is checked
    // at the synchronisation.
    let src = r#"
    __kernel void k(__global int *w, __global int *out) {
        __local int tile[16];
        int l = get_local_id(0), i = get_global_id(0);
        for (int round = 0; round < 3; round++) {
            ((__global char *)w)[(l + round) % 16] = (char)(l + round);
            out[i] = w[(l + round) % 4];
            tile[(l + round) % 16] = w[l % 4];
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
            w[(l * 3 + round) % 8] = round;
            ((__local short *)tile)[(l + round) % 32] = (short)l;
            out[64 + i] = tile[(l + 1) % 16];
            if (l == 5)
                atomic_add(w + 2, 1);
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
        out[128 + i] = w[l % 8];
    }"#;
    let args = [ints("w", 8), ints("out", 192)];
    let found = same_reports(src, 64, 16, &args, &[1]);
    assert!(found > 20, "the kernel should race a lot: {found} reports");
}
