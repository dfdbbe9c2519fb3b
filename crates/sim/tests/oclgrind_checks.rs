//! Checks made as Oclgrind makes them: races between work-items that store the same value are
//! told apart from races that lose data.

mod common;
use common::*;

use clmap_sim::{ArgValue, Report, ReportKind, SimOptions};

fn races(threads: usize) -> SimOptions {
    SimOptions { threads, check_races: true, ..SimOptions::default() }
}

fn of_kind(reports: &[Report], kind: ReportKind) -> Vec<&Report> {
    reports.iter().filter(|r| r.kind == kind).collect()
}

#[test]
fn a_flag_every_work_item_sets_to_one_is_a_same_value_race_not_a_data_race() {
    let src = r#"
    __kernel void k(__global int *flag, __global int *out) {
        __local int seen;
        seen = 1;
        flag[0] = 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = seen;
    }"#;
    for threads in [1, 3] {
        let flag = buf_i32("flag", &[0]);
        let out = buf_i32("out", &[0; 64]);
        let run = run_with(
            src,
            "k",
            &[64],
            &[16],
            &[ArgValue::Buffer(flag.clone()), ArgValue::Buffer(out)],
            &races(threads),
        );
        assert!(of_kind(&run.reports, ReportKind::DataRace).is_empty(), "{:#?}", run.reports);
        let same = of_kind(&run.reports, ReportKind::SameValueRace);
        // Within a group on local memory; on global memory within a group and between groups
        // (one finding: the same store).
        assert_eq!(same.len(), 2, "{:#?}", run.reports);
        assert!(same.iter().all(|r| r.message.contains("same value")), "{same:#?}");
        assert!(same.iter().any(|r| r.message.contains("between work-groups")), "{same:#?}");
        assert!(!ReportKind::SameValueRace.is_error());
        assert_eq!(i32s(&flag), vec![1]);
    }
    // One work-item per group sets it: a same-value race between work-groups only.
    let once = r#"
    __kernel void k(__global int *flag, __global int *out) {
        if (get_local_id(0) == 0)
            flag[0] = 1;
    }"#;
    let args = [ArgValue::Buffer(buf_i32("flag", &[0])), ArgValue::Buffer(buf_i32("out", &[0]))];
    let run = run_with(once, "k", &[64], &[16], &args, &races(2));
    assert_eq!(run.reports.len(), 1, "{:#?}", run.reports);
    assert_eq!(run.reports[0].kind, ReportKind::SameValueRace);
    assert!(run.reports[0].message.contains("between work-groups"), "{:#?}", run.reports);
}

/// A struct assigned whole is a copy, not a typed store: equal copies by several work-items
/// (a scan's carry every work-item writes) are same-value races, different ones data races.
#[test]
fn equal_struct_copies_are_same_value_races_and_different_ones_data_races() {
    let src = r#"
    typedef struct { uint a; ulong v; uint b; } S;
    __kernel void k(__global S *out, __global const S *in, int differ) {
        S s = in[0];
        s.a += differ ? get_local_id(0) : 1;
        out[0] = s;
    }"#;
    for (differ, kind) in [(0i32, ReportKind::SameValueRace), (1, ReportKind::DataRace)] {
        let args = [
            ArgValue::Buffer(buf_i32("out", &[0; 6])),
            ArgValue::Buffer(buf_i32("in", &[1, 0, 2, 0, 3, 0])),
            ArgValue::Bytes(differ.to_le_bytes().to_vec()),
        ];
        let run = run_with(src, "k", &[4], &[4], &args, &races(1));
        let races: Vec<&Report> = run
            .reports
            .iter()
            .filter(|r| matches!(r.kind, ReportKind::SameValueRace | ReportKind::DataRace))
            .collect();
        assert_eq!(races.len(), 1, "differ = {differ}: {:#?}", run.reports);
        assert_eq!(races[0].kind, kind, "differ = {differ}: {:#?}", run.reports);
    }
}

#[test]
fn stores_of_different_values_stay_data_races() {
    let src = r#"
    __kernel void k(__global int *flag, __global int *last) {
        __local int seen;
        seen = get_local_id(0);
        flag[0] = 1;
        last[0] = get_group_id(0);
        barrier(CLK_LOCAL_MEM_FENCE);
    }"#;
    let flag = buf_i32("flag", &[0]);
    let last = buf_i32("last", &[0]);
    let run = run_with(
        src,
        "k",
        &[64],
        &[16],
        &[ArgValue::Buffer(flag), ArgValue::Buffer(last)],
        &races(1),
    );
    let real = of_kind(&run.reports, ReportKind::DataRace);
    // `seen` within each group; `last` between groups (one value per group, the same within).
    assert_eq!(real.len(), 2, "{:#?}", run.reports);
    assert!(real.iter().any(|r| r.message.starts_with("write after write on local")), "{real:#?}");
    let between = real.iter().find(|r| r.message.contains("between work-groups")).expect("last");
    assert_eq!(between.object.as_deref(), Some("last"));
    assert!(between.message.contains("`last[0]` is stored to by several"), "{between:#?}");
}

#[test]
fn a_race_between_work_groups_names_the_element_its_stores_index() {
    // Every group stores its id to element 3 of a buffer of 8-byte elements (bytes 24 to 31),
    // and the first group also reads element 1 of another, which the second writes.
    let src = r#"
    __kernel void k(__global long *t, __global int *u, __global int *out) {
        if (get_local_id(0) == 0) {
            t[3] = get_group_id(0);
            if (get_group_id(0) == 1)
                u[1] = 5;
            else
                out[0] = u[1];
        }
    }"#;
    let t = clmap_sim::SharedBuffer::from_bytes("t", &[0u8; 64]);
    let args = [
        ArgValue::Buffer(t),
        ArgValue::Buffer(buf_i32("u", &[0; 4])),
        ArgValue::Buffer(buf_i32("out", &[0])),
    ];
    let run = run_with(src, "k", &[8], &[4], &args, &races(1));
    let between: Vec<&str> = of_kind(&run.reports, ReportKind::DataRace)
        .iter()
        .map(|r| r.message.as_str())
        .filter(|m| m.contains("between work-groups"))
        .collect();
    assert_eq!(between.len(), 2, "{:#?}", run.reports);
    assert!(between.iter().any(|m| m.contains("`t[3]` is stored to by several")), "{between:#?}");
    assert!(
        between.iter().any(|m| m.contains("`u[1]` is stored to by work-group 1")),
        "{between:#?}"
    );
}

#[test]
fn a_value_that_agrees_only_in_some_bytes_or_components_is_a_data_race() {
    // Vector stores compare every component; narrow stores every byte.
    let src = r#"
    __kernel void k(__global int4 *v, __global char *c, __global int4 *same) {
        int l = get_local_id(0);
        v[0] = (int4)(1, 2, 3, l);
        c[1] = (char)(l & 1);
        same[0] = (int4)(5, 6, 7, 8);
    }"#;
    let v = buf_i32("v", &[0; 4]);
    let c = buf_i32("c", &[0]);
    let same = buf_i32("same", &[0; 4]);
    let run = run_with(
        src,
        "k",
        &[8],
        &[8],
        &[ArgValue::Buffer(v), ArgValue::Buffer(c), ArgValue::Buffer(same)],
        &races(1),
    );
    let real = of_kind(&run.reports, ReportKind::DataRace);
    let objects: Vec<_> = real.iter().map(|r| r.object.as_deref().unwrap_or("")).collect();
    assert_eq!(objects, vec!["v", "c"], "{:#?}", run.reports);
    let warned = of_kind(&run.reports, ReportKind::SameValueRace);
    assert_eq!(warned.len(), 1, "{:#?}", run.reports);
    assert_eq!(warned[0].object.as_deref(), Some("same"));
}

#[test]
fn a_kernel_whose_work_items_store_apart_has_no_finding() {
    let src = r#"
    __kernel void k(__global int *out) {
        out[get_global_id(0)] = 1;
    }"#;
    let out = buf_i32("out", &[0; 64]);
    let run = run_with(src, "k", &[64], &[16], &[ArgValue::Buffer(out)], &races(2));
    assert!(run.reports.is_empty(), "{:#?}", run.reports);
}

#[test]
fn loads_and_stores_through_misaligned_pointers_are_reported_and_still_made() {
    let src = r#"
    __kernel void k(__global char *bytes, __global int *out, __global float *f) {
        int i = get_global_id(0);
        out[i] = *(__global int *)(bytes + 1 + 4 * i);
        float4 v = *(__global float4 *)(f + 1);
        *(__global int *)(bytes + 18) = 7;
        out[i] += (int)v.x;
    }"#;
    let bytes = buf_i32("bytes", &[0x0403_0201, 0x0807_0605, 0, 0, 0, 0]);
    let out = buf_i32("out", &[0; 4]);
    let f = buf_f32("f", &[0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let run = run_with(
        src,
        "k",
        &[1],
        &[1],
        &[ArgValue::Buffer(bytes.clone()), ArgValue::Buffer(out.clone()), ArgValue::Buffer(f)],
        &SimOptions { threads: 1, ..SimOptions::default() },
    );
    let found = of_kind(&run.reports, ReportKind::Misaligned);
    assert_eq!(found.len(), 3, "{:#?}", run.reports);
    let objects: Vec<_> = found.iter().map(|r| r.object.as_deref().unwrap_or("")).collect();
    assert_eq!(objects, vec!["bytes", "f", "bytes"]);
    assert!(found[1].message.contains("16-byte alignment"), "{}", found[1].message);
    assert!(found[2].access.is_some_and(|a| a.store));
    // Made as written: bytes 1..5 read, 2.0 loaded, 7 stored at byte 18.
    assert_eq!(i32s(&out)[0], 0x0504_0302 + 2);
    assert_eq!(i32s(&bytes)[4], 7 << 16);
}

#[test]
fn aligned_accesses_element_aligned_vector_loads_and_packed_members_are_not_misaligned() {
    let src = r#"
    typedef struct __attribute__((packed)) { char tag; int value; int pair[2]; } packed_t;
    __kernel void k(__global int *in, __global float *f, __global int *out) {
        int i = get_global_id(0);
        packed_t p;
        p.tag = 'x';
        p.value = in[i];
        p.pair[1] = in[i] + 1;
        float4 v = vload4(0, f + 1);
        out[i] = p.value + p.pair[1] + (int)v.x + *(__global int *)((__global char *)in + 4 * i);
    }"#;
    let input = buf_i32("in", &[1, 2, 3, 4]);
    let f = buf_f32("f", &[0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let out = buf_i32("out", &[0; 4]);
    let run = run_with(
        src,
        "k",
        &[4],
        &[4],
        &[ArgValue::Buffer(input), ArgValue::Buffer(f), ArgValue::Buffer(out.clone())],
        &SimOptions {
            threads: 1,
            check_races: true,
            check_uninitialised: true,
            ..SimOptions::default()
        },
    );
    assert!(run.reports.is_empty(), "{:#?}", run.reports);
    assert_eq!(i32s(&out), vec![6, 9, 12, 15]);
}

#[test]
fn writes_to_read_only_buffers_and_reads_from_write_only_ones_are_reported() {
    use clmap_sim::memory::HostAccess;
    let src = r#"
    __kernel void k(__global int *in, __global int *out) {
        int i = get_global_id(0);
        in[i] = out[i] + 1;
    }"#;
    let input = buf_i32("in", &[1, 2, 3, 4]).with_access(HostAccess::ReadOnly);
    let out = buf_i32("out", &[0; 4]).with_access(HostAccess::WriteOnly);
    let run = run_with(
        src,
        "k",
        &[4],
        &[4],
        &[ArgValue::Buffer(input.clone()), ArgValue::Buffer(out)],
        &SimOptions { threads: 1, ..SimOptions::default() },
    );
    let found = of_kind(&run.reports, ReportKind::ForbiddenAccess);
    assert_eq!(found.len(), 2, "{:#?}", run.reports);
    let read = found.iter().find(|r| r.object.as_deref() == Some("out")).expect("read of out");
    assert!(read.message.contains("write-only") && !read.access.unwrap().store, "{read:#?}");
    let write = found.iter().find(|r| r.object.as_deref() == Some("in")).expect("write of in");
    assert!(write.message.contains("read-only") && write.access.unwrap().store, "{write:#?}");
    assert_eq!(write.occurrences, 4);

    // The same kernel the right way round is clean.
    let src = r#"
    __kernel void k(__global int *in, __global int *out) {
        int i = get_global_id(0);
        out[i] = in[i] + 1;
    }"#;
    let input = buf_i32("in", &[1, 2, 3, 4]).with_access(HostAccess::ReadOnly);
    let out = buf_i32("out", &[0; 4]).with_access(HostAccess::WriteOnly);
    let run = run_with(
        src,
        "k",
        &[4],
        &[4],
        &[ArgValue::Buffer(input), ArgValue::Buffer(out.clone())],
        &SimOptions { threads: 1, ..SimOptions::default() },
    );
    assert!(run.reports.is_empty(), "{:#?}", run.reports);
    assert_eq!(i32s(&out), vec![2, 3, 4, 5]);
}

#[test]
fn an_index_past_a_private_array_is_reported_even_inside_the_work_items_memory() {
    // `a[n]` with n = 5 lands in `b` (or whatever follows `a`): memory the work-item owns, but
    // not the array's.
    let src = r#"
    typedef struct { int x[2]; float y; } pair_t;
    __kernel void k(__global int *out, int n) {
        int a[4] = {1, 2, 3, 4};
        int b[4] = {5, 6, 7, 8};
        pair_t p = {{9, 10}, 1.5f};
        int i = get_global_id(0);
        a[i] = b[i] + p.x[i % 2];
        out[i] = a[n] + a[i] + (int)p.y;
    }"#;
    // a[-1] is below lane 0's private memory and in the previous lane's for the others.
    for (n, expect, says) in [(2, 0, ""), (5, 1, "outside `a` (16 bytes"), (-1, 1, "")] {
        let out = buf_i32("out", &[0; 4]);
        let run = run_with(
            src,
            "k",
            &[4],
            &[4],
            &[ArgValue::Buffer(out), int(n)],
            &SimOptions { threads: 1, ..SimOptions::default() },
        );
        let out_of_bounds = of_kind(&run.reports, ReportKind::OutOfBounds);
        assert_eq!(out_of_bounds.len(), expect, "n = {n}: {:#?}", run.reports);
        // The index is reported too, in Oclgrind's words, after the read it guards.
        let index = of_kind(&run.reports, ReportKind::IndexOutOfRange);
        assert_eq!(index.len(), expect, "n = {n}: {:#?}", run.reports);
        assert_eq!(run.reports.len(), 2 * expect);
        if let Some(r) = index.first() {
            assert_eq!(r.message, format!("index ({n}) exceeds static array size (4)"));
            assert_eq!(r.occurrences, 4);
            assert_eq!(run.reports.last(), Some(*r));
        }
        if let Some(r) = out_of_bounds.first() {
            assert_eq!(r.object.as_deref(), Some("a"));
            assert_eq!(r.occurrences, 4);
            assert!(r.message.contains(says), "{}", r.message);
            assert!(r.access.is_some_and(|a| !a.store && a.size == 4));
        }
    }
}

#[test]
fn an_index_past_an_inner_array_is_reported_where_the_address_stays_inside() {
    // `a[0][n]` for n = 5 is a[1][1]: inside `a`, so no access is out of bounds, but the
    // index exceeds the row. Taking the address one past a row is no access.
    let src = r#"
    __kernel void k(__global int *out, int n) {
        int a[4][4];
        __local int t[2][4];
        int l = get_local_id(0);
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++)
                a[i][j] = i * 4 + j;
            t[l][i] = l * 4 + i;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int *end = &a[0][4];
        out[l] = a[0][n] + t[0][n + l] + (int)(end - &a[0][0]);
    }"#;
    for (n, flagged) in [(2, vec![]), (5, vec!["index (5)", "index (5)"])] {
        let out = buf_i32("out", &[0; 2]);
        let run = run_with(
            src,
            "k",
            &[2],
            &[2],
            &[ArgValue::Buffer(out.clone()), int(n)],
            &SimOptions { threads: 1, ..SimOptions::default() },
        );
        // a[0][n] by both work-items (one finding, 2 occurrences); t[0][n + l] with index 5
        // for work-item 0 and 6 for work-item 1: one finding, kept for work-item 0.
        let messages: Vec<String> = run
            .reports
            .iter()
            .map(|r| {
                assert_eq!((r.kind, r.occurrences), (ReportKind::IndexOutOfRange, 2));
                r.message.clone()
            })
            .collect();
        assert_eq!(messages.len(), flagged.len(), "n = {n}: {:#?}", run.reports);
        for (m, f) in messages.iter().zip(&flagged) {
            assert!(m.starts_with(f) && m.ends_with("exceeds static array size (4)"), "{m}");
        }
        assert_eq!(
            i32s(&out),
            (0..2).map(|l| n + (n + l) + 4).collect::<Vec<_>>(),
            "the read lands where the address points"
        );
    }
}

#[test]
fn values_of_private_arrays_and_struct_members_never_written_are_undefined_where_used() {
    let src = r#"
    typedef struct { int x; int y; } pair_t;
    __kernel void k(__global int *out, int n, int use_y) {
        int a[4];
        a[0] = 1;
        a[1] = 2;
        pair_t p;
        p.x = 3;
        pair_t copy = p;
        int i = get_global_id(0);
        out[i] = a[i % n] + copy.x;
        if (use_y)
            out[i] += p.y;
    }"#;
    let run_it = |n: i32, use_y: i32| {
        let out = buf_i32("out", &[0; 4]);
        let run =
            run_with(src, "k", &[4], &[4], &[ArgValue::Buffer(out), int(n), int(use_y)], &uninit());
        run.reports
    };
    // Only the elements and members written are read (the struct copy carries `y` along
    // without using it): clean.
    assert!(run_it(2, 0).is_empty(), "{:#?}", run_it(2, 0));
    let reports = run_it(4, 1);
    let found = of_kind(&reports, ReportKind::UninitialisedRead);
    assert_eq!(found.len(), 2, "{reports:#?}");
    // `a[2]` flows into the first store of work-item 2; `p.y` into the second of every one.
    assert_eq!(found[0].global_id, [0, 0, 0]);
    assert_eq!(found[0].occurrences, 1);
    assert_eq!(found[1].global_id, [2, 0, 0]);
    for r in &found {
        assert_eq!(r.object.as_deref(), Some("out"));
        assert!(r.message.starts_with("store of an undefined value to global memory"), "{r:?}");
        assert!(r.access.is_some_and(|a| a.store && a.size == 4));
    }
}

fn uninit() -> SimOptions {
    SimOptions { threads: 1, check_uninitialised: true, ..SimOptions::default() }
}

/// The undefined-value findings of a run of `src`'s kernel `k` over `global` work-items (one
/// group) with `args`.
fn undefined_uses(src: &str, global: u64, args: &[ArgValue]) -> Vec<Report> {
    let run = run_with(src, "k", &[global], &[global], args, &uninit());
    run.reports.into_iter().filter(|r| r.kind == ReportKind::UninitialisedRead).collect()
}

#[test]
fn register_variables_declared_without_a_value_are_followed_through_arithmetic() {
    let src = r#"
    __kernel void k(__global int *out, int set) {
        int bias;
        if (set)
            bias = 10;
        int scaled = bias * 2 + 1;
        int unused = bias;
        out[get_global_id(0)] = scaled;
    }"#;
    let out = buf_i32("out", &[0; 4]);
    let found = undefined_uses(src, 4, &[ArgValue::Buffer(out.clone()), int(0)]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].local_id, [0, 0, 0]);
    assert_eq!(found[0].object.as_deref(), Some("out"));
    assert!(undefined_uses(src, 4, &[ArgValue::Buffer(out), int(1)]).is_empty());
}

#[test]
fn a_vector_with_one_component_unset_is_undefined_only_where_that_component_goes() {
    let src = r#"
    __kernel void k(__global int4 *whole, __global int *parts, int full) {
        int4 v;
        v.x = 1;
        v.yz = (int2)(2, 3);
        if (full)
            v.w = 4;
        int i = get_global_id(0);
        parts[i] = v.x + v.y + v.z;
        whole[i] = v;
    }"#;
    let args = |full| {
        [
            ArgValue::Buffer(buf_i32("whole", &[0; 8])),
            ArgValue::Buffer(buf_i32("parts", &[0; 2])),
            int(full),
        ]
    };
    let found = undefined_uses(src, 2, &args(0));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].object.as_deref(), Some("whole"));
    assert!(found[0].access.is_some_and(|a| a.store && a.size == 16));
    assert!(undefined_uses(src, 2, &args(1)).is_empty());
}

#[test]
fn a_value_read_out_of_bounds_is_undefined_and_so_is_a_branch_on_it() {
    let src = r#"
    __kernel void k(__global const int *in, __global int *out, int at) {
        int v = in[at];
        int i = get_global_id(0);
        if (v > 2)
            out[i] = 1;
        out[i + 2] = v;
    }"#;
    let args = |at| {
        [
            ArgValue::Buffer(buf_i32("in", &[1, 2, 3, 4])),
            ArgValue::Buffer(buf_i32("out", &[0; 4])),
            int(at),
        ]
    };
    let run = run_with(src, "k", &[2], &[2], &args(4), &uninit());
    let kinds: Vec<ReportKind> = run.reports.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        vec![ReportKind::OutOfBounds, ReportKind::UninitialisedRead, ReportKind::UninitialisedRead],
        "{:#?}",
        run.reports
    );
    assert!(run.reports[1].message.starts_with("branch on an undefined value"));
    assert!(run.reports[1].access.is_none());
    assert!(run.reports[2].message.starts_with("store of an undefined value"));
    // Without `--uninit` only the read is reported; in bounds, nothing.
    let plain = run_with(src, "k", &[2], &[2], &args(4), &SimOptions::default());
    assert_eq!(plain.reports.len(), 1, "{:#?}", plain.reports);
    assert!(run_with(src, "k", &[2], &[2], &args(3), &uninit()).reports.is_empty());
}

#[test]
fn buffers_without_contents_are_undefined_until_written() {
    let src = r#"
    __kernel void k(__global int *acc, __global const int *in, int first) {
        int i = get_global_id(0);
        if (first)
            acc[i] = in[i];
        else
            acc[i] += in[i];
        acc[i + 2] = acc[i];
    }"#;
    let acc = || buf_i32("acc", &[0; 4]).with_undefined_contents();
    let input = ArgValue::Buffer(buf_i32("in", &[5, 6]));
    let found = undefined_uses(src, 2, &[ArgValue::Buffer(acc()), input.clone(), int(0)]);
    // The sum, then the copy of it.
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(undefined_uses(src, 2, &[ArgValue::Buffer(acc()), input.clone(), int(1)]).is_empty());
    // A buffer written by the host (the default) is defined.
    let defined = ArgValue::Buffer(buf_i32("acc", &[0; 4]));
    assert!(undefined_uses(src, 2, &[defined, input, int(0)]).is_empty());
}

#[test]
fn local_memory_filled_by_an_async_copy_or_a_built_in_is_defined() {
    let src = r#"
    __kernel void k(__global const int *in, __global int *out, __local int *scratch) {
        __local int tile[4];
        int l = get_local_id(0);
        event_t e = async_work_group_copy(tile, in, 4, 0);
        wait_group_events(1, &e);
        vstore2((int2)(l, l), l, scratch);
        barrier(CLK_LOCAL_MEM_FENCE);
        int2 pair = vload2(l, scratch);
        out[l] = tile[3 - l] + pair.y + max(l, 1);
    }"#;
    let args = [
        ArgValue::Buffer(buf_i32("in", &[1, 2, 3, 4])),
        ArgValue::Buffer(buf_i32("out", &[0; 4])),
        ArgValue::Local(32),
    ];
    assert!(undefined_uses(src, 4, &args).is_empty());
}

#[test]
fn async_copies_must_be_waited_for_with_their_own_events_and_stay_in_bounds() {
    let src = r#"
    __kernel void k(__global const int *in, __global int *out, int mode, int from) {
        __local int tile[8];
        event_t e = async_work_group_copy(tile, in + from, 8, 0);
        if (mode == 0) {
            wait_group_events(1, &e);
        } else if (mode == 2) {
            event_t wrong = 0;
            wait_group_events(1, &wrong);
            wait_group_events(1, &e);
        } else if (mode == 3) {
            wait_group_events(1, &e);
            wait_group_events(1, &e);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tile[get_local_id(0)];
    }"#;
    let run_it = |mode: i32, from: i32| {
        let input = buf_i32("in", &(0..16).collect::<Vec<_>>());
        let out = buf_i32("out", &[0; 8]);
        let args = [ArgValue::Buffer(input), ArgValue::Buffer(out.clone()), int(mode), int(from)];
        let run = run_with(src, "k", &[8], &[8], &args, &races(1));
        (run.reports, i32s(&out))
    };
    let (clean, out) = run_it(0, 4);
    assert!(clean.is_empty(), "{clean:#?}");
    assert_eq!(out, (4..12).collect::<Vec<_>>());

    let (never, _) = run_it(1, 0);
    let found = of_kind(&never, ReportKind::AsyncCopy);
    assert_eq!(found.len(), 1, "{never:#?}");
    assert!(found[0].message.starts_with("async copy never waited for"), "{}", found[0].message);

    for mode in [2, 3] {
        let (invalid, _) = run_it(mode, 0);
        let found = of_kind(&invalid, ReportKind::AsyncCopy);
        assert_eq!(found.len(), 1, "mode {mode}: {invalid:#?}");
        assert!(found[0].message.starts_with("wait for event"), "{}", found[0].message);
    }

    let (outside, _) = run_it(0, 12);
    let found = of_kind(&outside, ReportKind::OutOfBounds);
    assert_eq!(found.len(), 1, "{outside:#?}");
    assert_eq!(found[0].object.as_deref(), Some("in"));
}

#[test]
fn wide_vectors_in_local_pointer_arguments_are_not_misaligned() {
    // The runtime places `__local` arguments 16-byte aligned (here after a static local), so
    // a float16 through one is as aligned as it is promised to be.
    let src = r#"
    __kernel void k(__global float *out, __local float16 *wide) {
        __local int count;
        count = 1;
        wide[0] = (float16)(2.0f);
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_local_id(0)] = wide[0].s3 + count;
    }"#;
    let out = buf_f32("out", &[0.0]);
    let args = [ArgValue::Buffer(out.clone()), ArgValue::Local(64)];
    let run =
        run_with(src, "k", &[1], &[1], &args, &SimOptions { threads: 1, ..SimOptions::default() });
    assert!(run.reports.is_empty(), "{:#?}", run.reports);
    assert_eq!(f32s(&out), vec![3.0]);
}

/// The data races of `src`'s kernel `k` over `groups` work-groups of `lanes` with a counter
/// and a buffer `seen`, on 1 and 3 threads (they must agree).
fn atomic_races(src: &str, groups: u64, lanes: u64) -> Vec<Report> {
    let mut found = Vec::new();
    for threads in [1, 3] {
        let args = [
            ArgValue::Buffer(buf_i32("counter", &[0])),
            ArgValue::Buffer(buf_i32("seen", &[0; 8])),
        ];
        let run = run_with(src, "k", &[groups * lanes], &[lanes], &args, &races(threads));
        let reports: Vec<Report> =
            run.reports.into_iter().filter(|r| r.kind == ReportKind::DataRace).collect();
        if threads == 1 {
            found = reports;
        } else {
            assert_eq!(found, reports);
        }
    }
    found
}

#[test]
fn atomics_race_with_plain_accesses_before_and_after_them_in_a_group() {
    let before = r#"
    __kernel void k(__global int *counter, __global int *seen) {
        if (get_local_id(0) == 0)
            counter[0] = 10;
        atomic_inc(counter);
    }"#;
    let found = atomic_races(before, 1, 4);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].message.starts_with("atomic after write"), "{}", found[0].message);
    let after = r#"
    __kernel void k(__global int *counter, __global int *seen) {
        atomic_inc(counter);
        seen[get_local_id(0)] = counter[0];
    }"#;
    let found = atomic_races(after, 1, 4);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].message.starts_with("read after write"), "{}", found[0].message);
    // Atomics alone never race, in one group or across several.
    let only = r#"
    __kernel void k(__global int *counter, __global int *seen) {
        atomic_add(counter, 2);
        atomic_max(counter, 1);
    }"#;
    assert!(atomic_races(only, 4, 4).is_empty());
}

#[test]
fn atomics_of_one_work_group_race_with_plain_accesses_of_another() {
    for (plain, expected) in [("seen[0] = counter[0];", "loaded"), ("counter[0] = 3;", "stored to")]
    {
        let src = format!(
            "__kernel void k(__global int *counter, __global int *seen) {{
                if (get_group_id(0) == 0) atomic_inc(counter); else {plain}
            }}"
        );
        let found = atomic_races(&src, 2, 1);
        assert_eq!(found.len(), 1, "{plain}: {found:#?}");
        let message = &found[0].message;
        assert!(message.contains("between work-groups"), "{message}");
        assert!(message.contains(&format!("updated atomically by work-group 0 and {expected}")));
        assert_eq!(found[0].object.as_deref(), Some("counter"));
        // The report has a place in the source (the atomic, when no plain store is earlier)
        // and names the element, not a byte.
        assert!(found[0].span != clmap_lang::Span::UNDEFINED, "{:#?}", found[0]);
        assert!(message.contains("`counter[0]`"), "{message}");
        // The same group's plain access after its own atomics (a barrier between) is no race.
        let same = format!(
            "__kernel void k(__global int *counter, __global int *seen) {{
                if (get_group_id(0) == 1) {{ atomic_inc(counter); barrier(CLK_GLOBAL_MEM_FENCE); {plain} }}
            }}"
        );
        assert!(atomic_races(&same, 2, 1).is_empty(), "{plain}");
    }
}

#[test]
fn a_failed_compare_and_exchange_races_with_a_later_plain_store_but_not_with_loads() {
    let store = r#"
    __kernel void k(__global int *counter, __global int *seen) {
        int l = get_local_id(0);
        if (atomic_cmpxchg(counter, 5, 1) != 5 && l == 1)
            counter[0] = 9;
    }"#;
    let found = atomic_races(store, 1, 2);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].message.starts_with("write after atomic read"), "{}", found[0].message);
    assert_eq!(found[0].local_id, [1, 0, 0]);
    let load = r#"
    __kernel void k(__global int *counter, __global int *seen) {
        int l = get_local_id(0);
        seen[get_global_id(0)] = atomic_cmpxchg(counter, 5, 1) + counter[0];
    }"#;
    assert!(atomic_races(load, 2, 2).is_empty());
}

#[test]
fn async_copies_reached_apart_or_with_other_arguments_diverge() {
    let src = r#"
    __kernel void k(__global const int *in, __global int *out, int mode) {
        __local int tile[4];
        int l = get_local_id(0);
        if (mode != 2 || l < 2) {
            event_t e = async_work_group_copy(tile, in + (mode == 1 ? l : 0), 4, 0);
            wait_group_events(1, &e);
        }
        out[l] = l;
    }"#;
    let run_mode = |mode| {
        let args = [
            ArgValue::Buffer(buf_i32("in", &[1, 2, 3, 4, 5, 6, 7])),
            ArgValue::Buffer(buf_i32("out", &[0; 4])),
            int(mode),
        ];
        run_with(src, "k", &[4], &[4], &args, &races(1)).reports
    };
    assert!(run_mode(0).is_empty(), "{:#?}", run_mode(0));
    // Work-items 0 and 1 pass different sources.
    let reports = run_mode(1);
    let divergent = of_kind(&reports, ReportKind::AsyncCopy);
    assert_eq!(divergent.len(), 1, "{reports:#?}");
    assert!(divergent[0].message.contains("other arguments"), "{}", divergent[0].message);
    assert_eq!(divergent[0].local_id, [1, 0, 0]);
    // Only work-items 0 and 1 reach the copy and the wait.
    let reports = run_mode(2);
    assert!(of_kind(&reports, ReportKind::AsyncCopy)[0].message.contains("did not reach it"));
    assert_eq!(of_kind(&reports, ReportKind::BarrierDivergence).len(), 1, "{reports:#?}");
}

#[test]
fn the_two_sides_of_a_copy_are_followed_in_their_own_address_spaces() {
    // The tile is written before a barrier and copied out after it: the copy's reads of local
    // memory are in a new interval of local memory, whatever the global side does.
    let src = r#"
    __kernel void k(__global const int *in, __global int *out, int from) {
        __local int tile[4];
        int l = get_local_id(0);
        tile[l] = in[l] * 2;
        barrier(CLK_LOCAL_MEM_FENCE);
        event_t e = async_work_group_copy(out, tile, 4, 0);
        wait_group_events(1, &e);
        event_t f = async_work_group_copy(tile, in + from, 4, 0);
        wait_group_events(1, &f);
    }"#;
    let run_from = |from| {
        let args = [
            ArgValue::Buffer(buf_i32("in", &[1, 2, 3, 4, 5])),
            ArgValue::Buffer(buf_i32("out", &[0; 4])),
            int(from),
        ];
        run_with(src, "k", &[4], &[4], &args, &races(1)).reports
    };
    assert!(run_from(1).is_empty(), "{:#?}", run_from(1));
    // Past the input's end: the copy reads out of bounds (it writes only local memory).
    let reports = run_from(2);
    assert_eq!(reports.len(), 1, "{reports:#?}");
    assert_eq!(reports[0].kind, ReportKind::OutOfBounds);
    assert!(reports[0].access.is_some_and(|a| !a.store), "{reports:#?}");
}

#[test]
fn findings_are_kept_per_work_item_when_asked_and_merged_otherwise() {
    // Every work-item reads through NULL, is misaligned and stores the same flag: Oclgrind's
    // layout has a block per work-item for all three (the race for each work-item after the
    // first, which they conflict with).
    let src = r#"
    __kernel void k(__global int *out, __global int *none, __global char *bytes) {
        int i = get_global_id(0);
        out[i] = none[i] + *(__global int *)(bytes + 1);
        out[4] = 1;
    }"#;
    for every in [false, true] {
        let options = SimOptions { report_every_work_item: every, ..races(1) };
        let run = run_with(
            src,
            "k",
            &[4],
            &[4],
            &[
                ArgValue::Buffer(buf_i32("out", &[0; 5])),
                ArgValue::Null,
                ArgValue::Buffer(buf_i32("bytes", &[0; 2])),
            ],
            &options,
        );
        for kind in [ReportKind::OutOfBounds, ReportKind::Misaligned] {
            let found = of_kind(&run.reports, kind);
            let lanes: Vec<u32> = found.iter().map(|r| r.lane).collect();
            let counts: Vec<u64> = found.iter().map(|r| r.occurrences).collect();
            if every {
                assert_eq!((lanes, counts), (vec![0, 1, 2, 3], vec![1; 4]), "{kind:?}");
            } else {
                assert_eq!((lanes, counts), (vec![0], vec![4]), "{kind:?}");
            }
        }
        let races: Vec<u32> =
            of_kind(&run.reports, ReportKind::SameValueRace).iter().map(|r| r.lane).collect();
        assert_eq!(races, if every { vec![1, 2, 3] } else { vec![1] });
    }
}
