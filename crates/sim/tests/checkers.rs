//! Each checker catches a planted bug at the right place and work-item; clean kernels stay
//! silent.

mod common;
use common::*;

use clmap_sim::{ArgValue, Report, ReportKind, SimOptions};

fn checked() -> SimOptions {
    SimOptions { threads: 1, check_races: true, check_uninitialised: true, ..SimOptions::default() }
}

/// The source text a report points at.
fn snippet<'a>(src: &'a str, r: &Report) -> &'a str {
    // Kernels are compiled from an in-memory file whose offsets match `src`.
    src.get(r.span.start as usize..r.span.end as usize).unwrap_or("")
}

#[test]
fn out_of_bounds_in_every_address_space_is_reported_and_survived() {
    let src = r#"
    __kernel void k(__global int *out, __local int *scratch) {
        int i = get_global_id(0);
        int priv[4];
        priv[i % 4] = i;
        out[i] = out[i + 8];
        scratch[i] = i;
        out[i] += scratch[i + 100];
        out[i] += priv[i + 3];
        __global int *null_ptr = 0;
        if (i == 2) out[0] = *null_ptr;
    }"#;
    let out = buf_i32("out", &[1; 8]);
    let run = run_with(
        src,
        "k",
        &[8],
        &[8],
        &[ArgValue::Buffer(out.clone()), ArgValue::Local(32)],
        &checked(),
    );
    let oob: Vec<&Report> =
        run.reports.iter().filter(|r| r.kind == ReportKind::OutOfBounds).collect();
    assert_eq!(oob.len(), 4, "{:#?}", run.reports);
    assert_eq!(snippet(src, oob[0]), "out[i + 8]");
    assert_eq!(oob[0].global_id, [0, 0, 0]);
    assert_eq!(oob[0].object.as_deref(), Some("out"));
    assert_eq!(oob[0].occurrences, 8);
    let local = oob.iter().find(|r| snippet(src, r) == "scratch[i + 100]").expect("local report");
    assert_eq!(local.object.as_deref(), Some("scratch"));
    let private = oob.iter().find(|r| snippet(src, r) == "priv[i + 3]").expect("private report");
    assert_eq!(private.global_id, [1, 0, 0]);
    let null = oob.iter().find(|r| snippet(src, r) == "*null_ptr").expect("null report");
    assert_eq!(null.global_id, [2, 0, 0]);
    assert!(null.message.contains("null"));
    // Out-of-bounds loads read 0, so every element is 0 (+ whatever was in bounds).
    assert_eq!(i32s(&out), vec![0, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn local_race_without_barrier_is_caught() {
    let src = r#"
    __kernel void shift(__global int *out, __local int *tmp) {
        int l = get_local_id(0);
        tmp[l] = l;
        int n = tmp[(l + 1) % 16];
        out[get_global_id(0)] = n;
    }"#;
    let out = buf_i32("out", &[0; 16]);
    let run = run_with(
        src,
        "shift",
        &[16],
        &[16],
        &[ArgValue::Buffer(out), ArgValue::Local(64)],
        &checked(),
    );
    let races: Vec<&Report> =
        run.reports.iter().filter(|r| r.kind == ReportKind::DataRace).collect();
    assert_eq!(races.len(), 1, "{:#?}", run.reports);
    assert_eq!(snippet(src, races[0]), "tmp[(l + 1) % 16]");
    assert_eq!(races[0].local_id, [0, 0, 0]);
    assert_eq!(races[0].object.as_deref(), Some("tmp"));

    let fixed = src.replace("tmp[l] = l;", "tmp[l] = l; barrier(CLK_LOCAL_MEM_FENCE);");
    let out = buf_i32("out", &[0; 16]);
    let run = run_with(
        &fixed,
        "shift",
        &[16],
        &[16],
        &[ArgValue::Buffer(out.clone()), ArgValue::Local(64)],
        &checked(),
    );
    assert!(run.reports.is_empty(), "{:#?}", run.reports);
    assert_eq!(i32s(&out), (0..16).map(|l| (l + 1) % 16).collect::<Vec<_>>());
}

#[test]
fn global_race_and_atomics() {
    let src = r#"
    __kernel void sum(__global int *total, __global int *hits) {
        total[0] += 1;
        atomic_add(&hits[0], 1);
    }"#;
    let (t, h) = (buf_i32("total", &[0]), buf_i32("hits", &[0]));
    let run = run_with(
        src,
        "sum",
        &[8],
        &[8],
        &[ArgValue::Buffer(t), ArgValue::Buffer(h.clone())],
        &checked(),
    );
    let races: Vec<&Report> =
        run.reports.iter().filter(|r| r.kind == ReportKind::DataRace).collect();
    // Every work-item reads, then every one writes: the first write conflicts with the
    // other work-items' reads; the atomics do not race with each other.
    assert_eq!(races.len(), 1, "{:#?}", run.reports);
    assert_eq!(races[0].object.as_deref(), Some("total"));
    assert_eq!(snippet(src, races[0]), "total[0]");
    assert_eq!(races[0].global_id, [0, 0, 0]);
    assert_eq!(i32s(&h), vec![8]);
}

#[test]
fn a_value_of_local_memory_nobody_wrote_is_caught_where_it_is_stored() {
    let src = r#"
    __kernel void k(__global int *out) {
        __local int tile[8];
        int l = get_local_id(0);
        if (l < 4) tile[l] = l;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[l] = tile[7 - l];
    }"#;
    let out = buf_i32("out", &[0; 8]);
    let run = run_with(src, "k", &[8], &[8], &[ArgValue::Buffer(out)], &checked());
    assert_eq!(run.reports.len(), 1, "{:#?}", run.reports);
    let r = &run.reports[0];
    assert_eq!(r.kind, ReportKind::UninitialisedRead);
    assert_eq!(r.local_id, [0, 0, 0]);
    assert_eq!(r.object.as_deref(), Some("out"));
    assert_eq!(snippet(src, r), "out[l]");
    assert!(r.message.starts_with("store of an undefined value to global memory"), "{r:?}");
}

#[test]
fn divergent_barrier_is_caught() {
    let src = r#"
    __kernel void k(__global int *out) {
        int l = get_local_id(0);
        if (l < 5) {
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[l] = l;
    }"#;
    let out = buf_i32("out", &[0; 8]);
    let run = run_with(src, "k", &[8], &[8], &[ArgValue::Buffer(out.clone())], &checked());
    assert_eq!(run.reports.len(), 1, "{:#?}", run.reports);
    assert_eq!(run.reports[0].kind, ReportKind::BarrierDivergence);
    assert_eq!(run.reports[0].local_id, [5, 0, 0]);
    assert_eq!(i32s(&out), (0..8).collect::<Vec<_>>());
}

#[test]
fn clean_tiled_kernel_raises_nothing_and_threads_agree() {
    let src = r#"
    __kernel void transpose(__global const float *in, __global float *out, int n) {
        __local float tile[16][17];
        int x = get_global_id(0), y = get_global_id(1);
        int lx = get_local_id(0), ly = get_local_id(1);
        tile[ly][lx] = in[y * n + x];
        barrier(CLK_LOCAL_MEM_FENCE);
        int ox = get_group_id(1) * 16 + lx;
        int oy = get_group_id(0) * 16 + ly;
        out[oy * n + ox] = tile[lx][ly];
    }"#;
    let n = 64usize;
    let input: Vec<f32> = (0..n * n).map(|i| i as f32 * 0.25).collect();
    let mut results = Vec::new();
    for threads in [1, 2, 3] {
        let (bi, bo) = (buf_f32("in", &input), buf_f32("out", &vec![0.0; n * n]));
        let options = SimOptions { threads, ..checked() };
        let run = run_with(
            src,
            "transpose",
            &[n as u64, n as u64],
            &[16, 16],
            &[ArgValue::Buffer(bi), ArgValue::Buffer(bo.clone()), int(n as i32)],
            &options,
        );
        assert!(run.reports.is_empty(), "{:#?}", run.reports);
        let out = f32s(&bo);
        for y in 0..n {
            for x in 0..n {
                assert_eq!(out[x * n + y], input[y * n + x]);
            }
        }
        results.push(out);
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[0], results[2]);
}

#[test]
fn reports_do_not_depend_on_thread_count() {
    let src = r#"
    __kernel void k(__global int *out, __global const int *in, __local int *tmp) {
        int g = get_global_id(0);
        int l = get_local_id(0);
        tmp[l] = g;
        out[g] = tmp[(l + 3) % 8] + in[g + 5] + out[g];
        if (get_group_id(0) % 3 == 1) printf("group %d lane %d\n", (int)get_group_id(0), l);
    }"#;
    let mut seen = Vec::new();
    for threads in [1, 2, 4] {
        let out = buf_i32("out", &[0; 64]);
        let options = SimOptions { threads, ..checked() };
        let input = buf_i32("in", &(0..64).collect::<Vec<i32>>());
        let run = run_with(
            src,
            "k",
            &[64],
            &[8],
            &[ArgValue::Buffer(out.clone()), ArgValue::Buffer(input), ArgValue::Local(32)],
            &options,
        );
        seen.push((format!("{:?}", run.reports), run.printf.clone(), i32s(&out)));
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[0], seen[2]);
    assert_eq!(seen[0].1.first().map(String::as_str), Some("group 1 lane 0\n"));
    assert_eq!(seen[0].1.len(), 24);
}

#[test]
fn races_between_work_groups_on_global_memory() {
    let src = r#"
    __kernel void k(__global int *out, __global int *flags) {
        int g = get_global_id(0);
        out[g] = g;
        if (get_local_id(0) == 0) flags[0] = (int)get_group_id(0);
        int neighbour = out[(g + 4) % 32];
        out[g] += 0 * neighbour;
    }"#;
    let mut seen = Vec::new();
    for threads in [1, 2, 3] {
        let options = SimOptions { threads, ..checked() };
        let run = run_with(
            src,
            "k",
            &[32],
            &[8],
            &[ArgValue::Buffer(buf_i32("out", &[0; 32])), ArgValue::Buffer(buf_i32("flags", &[0]))],
            &options,
        );
        let cross: Vec<&Report> = run
            .reports
            .iter()
            .filter(|r| r.kind == ReportKind::DataRace && r.message.contains("between work-groups"))
            .collect();
        assert_eq!(cross.len(), 2, "{:#?}", run.reports);
        let on = |name: &str| cross.iter().find(|r| r.object.as_deref() == Some(name)).expect(name);
        let out = on("out");
        assert!(
            out.message.contains("stored to by work-group 0 and loaded by others"),
            "{}",
            out.message
        );
        // The caret points at the first store, by the lowest work-group, to the racy byte.
        assert_eq!(snippet(src, out), "out[g]");
        assert_eq!(out.group_id, [0, 0, 0]);
        assert_eq!(out.global_id, [0, 0, 0]);
        let flags = on("flags");
        assert!(flags.message.contains("several work-groups"), "{}", flags.message);
        assert_eq!(snippet(src, flags), "flags[0]");
        assert_eq!(flags.group_id, [0, 0, 0]);
        seen.push(format!("{:?}", run.reports));
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[0], seen[2]);
}

#[test]
fn byte_stores_into_words_are_followed_byte_by_byte() {
    // Whole-word stores first, then each work-item stores into its own byte of a shared word:
    // the shadow must not merge neighbouring bytes into one cell (no race), while two
    // work-items storing different values to the same byte still race.
    let src = r#"
    __kernel void k(__global int *words, __local int *tmp) {
        int l = get_local_id(0);
        words[l] = 0;
        tmp[l] = l;
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        ((__global char *)words)[l] = (char)l;
        ((__local char *)tmp)[l] = (char)l;
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        ((__local char *)tmp)[l / 2] = (char)l;
    }"#;
    let words = buf_i32("words", &[7; 4]);
    let run = run_with(
        src,
        "k",
        &[4],
        &[4],
        &[ArgValue::Buffer(words.clone()), ArgValue::Local(16)],
        &checked(),
    );
    let races: Vec<&Report> =
        run.reports.iter().filter(|r| r.kind == ReportKind::DataRace).collect();
    assert_eq!(races.len(), 1, "{:#?}", run.reports);
    assert_eq!(snippet(src, races[0]), "((__local char *)tmp)[l / 2]");
    assert_eq!(races[0].local_id, [1, 0, 0]);
    assert_eq!(i32s(&words), vec![0x0302_0100, 0, 0, 0]);
}

/// A barrier orders only the address spaces its flags name (OpenCL 1.2, 6.12.8): local memory
/// staged behind `barrier(CLK_GLOBAL_MEM_FENCE)` races, a global exchange "guarded" by
/// `barrier(CLK_LOCAL_MEM_FENCE)` races, and the right fence silences each.
#[test]
fn barriers_order_only_the_memory_their_fences_name() {
    let staged_locally = |fence: &str| {
        format!(
            r#"
    __kernel void shift(__global int *out, __local int *tmp) {{
        int l = get_local_id(0);
        tmp[l] = l;
        barrier({fence});
        out[get_global_id(0)] = tmp[(l + 1) % 16];
    }}"#
        )
    };
    let exchanged_globally = |fence: &str| {
        format!(
            r#"
    __kernel void swap_pairs(__global int *data, __global int *out) {{
        int i = get_global_id(0);
        data[i] = i * 3;
        barrier({fence});
        out[i] = data[i ^ 1];
    }}"#
        )
    };
    let races_in = |src: &str, kernel: &str, args: &[ArgValue]| -> Vec<Report> {
        run_with(src, kernel, &[16], &[16], args, &checked())
            .reports
            .into_iter()
            .filter(|r| r.kind == ReportKind::DataRace)
            .collect()
    };
    let local_args = || [ArgValue::Buffer(buf_i32("out", &[0; 16])), ArgValue::Local(64)];
    let global_args = || {
        [ArgValue::Buffer(buf_i32("data", &[0; 16])), ArgValue::Buffer(buf_i32("out", &[0; 16]))]
    };

    let src = staged_locally("CLK_GLOBAL_MEM_FENCE");
    let races = races_in(&src, "shift", &local_args());
    assert_eq!(races.len(), 1, "a global fence does not order local memory: {races:#?}");
    assert_eq!(races[0].object.as_deref(), Some("tmp"));
    assert_eq!(snippet(&src, &races[0]), "tmp[(l + 1) % 16]");
    for fence in ["CLK_LOCAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE"] {
        let races = races_in(&staged_locally(fence), "shift", &local_args());
        assert!(races.is_empty(), "{fence}: {races:#?}");
    }

    let src = exchanged_globally("CLK_LOCAL_MEM_FENCE");
    let races = races_in(&src, "swap_pairs", &global_args());
    assert_eq!(races.len(), 1, "a local fence does not order global memory: {races:#?}");
    assert_eq!(races[0].object.as_deref(), Some("data"));
    assert_eq!(snippet(&src, &races[0]), "data[i ^ 1]");
    for fence in ["CLK_GLOBAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE"] {
        let races = races_in(&exchanged_globally(fence), "swap_pairs", &global_args());
        assert!(races.is_empty(), "{fence}: {races:#?}");
    }
}

/// A compare-and-exchange that finds another value writes nothing, so plain reads of the same
/// word by other work-items do not race with it; one that succeeds does.
#[test]
fn a_failed_compare_and_exchange_is_a_read() {
    let kernel = |expected: i32| {
        format!(
            r#"
    __kernel void probe(__global int *flag, __global int *out) {{
        int l = get_local_id(0);
        int seen = atomic_cmpxchg(&flag[0], {expected}, 1);
        out[l] = seen * 10 + flag[0];
    }}"#
        )
    };
    let run = |src: &str| {
        let flag = buf_i32("flag", &[7]);
        let out = buf_i32("out", &[0; 8]);
        let run = run_with(
            src,
            "probe",
            &[8],
            &[8],
            &[ArgValue::Buffer(flag.clone()), ArgValue::Buffer(out.clone())],
            &checked(),
        );
        let races: Vec<Report> =
            run.reports.into_iter().filter(|r| r.kind == ReportKind::DataRace).collect();
        (races, i32s(&flag), i32s(&out))
    };

    // flag[0] is 7: comparing with 0 fails for every work-item.
    let (races, flag, out) = run(&kernel(0));
    assert!(races.is_empty(), "failed compare-and-exchanges only read: {races:#?}");
    assert_eq!(flag, vec![7]);
    assert_eq!(out, vec![77; 8]);

    // Comparing with 7 succeeds for one work-item, which writes 1: the plain reads race.
    let (races, flag, _) = run(&kernel(7));
    assert_eq!(flag, vec![1]);
    assert_eq!(races.len(), 1, "{races:#?}");
    assert_eq!(races[0].object.as_deref(), Some("flag"));
}

#[test]
fn work_items_at_different_barriers_are_divergent_after_the_first_work_item() {
    // Lanes 2 and 3 run their side first, but the reference is the barrier lane 0 reached.
    let src = r#"
    __kernel void k(__global int *out) {
        int l = get_local_id(0);
        if (l >= 2) {
            barrier(CLK_GLOBAL_MEM_FENCE);
        } else {
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
        out[l] = l;
    }"#;
    let out = buf_i32("out", &[0; 4]);
    let run = run_with(src, "k", &[4], &[4], &[ArgValue::Buffer(out)], &checked());
    assert_eq!(run.reports.len(), 1, "{:#?}", run.reports);
    let r = &run.reports[0];
    assert_eq!(r.kind, ReportKind::BarrierDivergence);
    assert_eq!((r.local_id, r.occurrences), ([2, 0, 0], 2));
    assert!(r.message.contains("another barrier"), "{r:?}");
    assert!(src[..r.span.start as usize].ends_with("if (l >= 2) {\n            "));
}

#[test]
fn an_atomic_update_out_of_bounds_writes_an_undefined_value() {
    let src = r#"
    __kernel void k(__global int *counts) {
        atomic_inc(counts + get_global_id(0));
    }"#;
    let counts = buf_i32("counts", &[5; 3]);
    let run = run_with(src, "k", &[4], &[4], &[ArgValue::Buffer(counts.clone())], &checked());
    let kinds: Vec<ReportKind> = run.reports.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [ReportKind::OutOfBounds, ReportKind::UninitialisedRead], "{kinds:?}");
    assert!(run.reports.iter().all(|r| r.global_id == [3, 0, 0]));
    assert_eq!(i32s(&counts), [6, 6, 6]);
}

#[test]
fn a_copy_is_made_when_waited_for_and_never_when_not() {
    // Lane 0 reads the tile before the wait: the copy has not landed yet. The second copy is
    // never waited for, so its destination keeps what the work-items wrote.
    let src = r#"
    __kernel void k(__global const int *in, __global int *out, __global int *early) {
        __local int tile[8];
        int l = get_local_id(0);
        tile[l] = -1;
        barrier(CLK_LOCAL_MEM_FENCE);
        event_t a = async_work_group_copy(tile, in, 4, 0);
        async_work_group_copy(tile + 4, in + 4, 4, 0);
        early[l] = tile[l];
        wait_group_events(1, &a);
        out[l] = tile[l];
    }"#;
    let input = buf_i32("in", &[1, 2, 3, 4, 5, 6, 7, 8]);
    let out = buf_i32("out", &[0; 8]);
    let early = buf_i32("early", &[0; 8]);
    let args =
        [ArgValue::Buffer(input), ArgValue::Buffer(out.clone()), ArgValue::Buffer(early.clone())];
    let options = SimOptions { check_races: false, ..checked() };
    let run = run_with(src, "k", &[8], &[8], &args, &options);
    assert_eq!(i32s(&early), [-1; 8]);
    assert_eq!(i32s(&out), [1, 2, 3, 4, -1, -1, -1, -1]);
    let kinds: Vec<ReportKind> = run.reports.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [ReportKind::AsyncCopy], "{:#?}", run.reports);
}

#[test]
fn a_struct_copied_out_is_judged_by_its_members_not_its_padding() {
    // `s` is declared without a value: its padding is never written. Its member `b` comes
    // from local memory only work-item 1 wrote.
    let src = r#"
    struct S { char a; int b; char c; };
    struct __attribute__((packed)) P { char a; int b; char c; };
    __kernel void k(__global struct S *out, __global struct P *packed, __local int *scratch) {
        int l = get_local_id(0);
        if (l == 1) scratch[1] = 7;
        barrier(CLK_LOCAL_MEM_FENCE);
        struct S s;
        s.a = 1;
        s.b = scratch[l];
        s.c = 2;
        out[l] = s;
        struct P p = {3, scratch[1], 4};
        packed[l] = p;
    }"#;
    let out = clmap_sim::SharedBuffer::zeroed("out", 24);
    let packed = clmap_sim::SharedBuffer::zeroed("packed", 12);
    let args = [ArgValue::Buffer(out), ArgValue::Buffer(packed), ArgValue::Local(8)];
    let run = run_with(src, "k", &[2], &[2], &args, &checked());
    // One finding: lane 0's struct, whose `b` is undefined. Lane 1's has undefined padding
    // only, and the packed struct's members sit where its layout puts them.
    assert_eq!(run.reports.len(), 1, "{:#?}", run.reports);
    let r = &run.reports[0];
    assert_eq!((r.kind, r.local_id, r.occurrences), (ReportKind::UninitialisedRead, [0, 0, 0], 1));
    assert_eq!(snippet(src, r), "out[l]");
}
