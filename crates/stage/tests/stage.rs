//! Staging real kernels: a buffer of each MAP (Row, Column, Block with its radius, Neighbor)
//! staged and validated on the simulator, the diff compared with its snapshot in
//! `tests/stage/*.diff` (set `CLMAP_BLESS=1` to rewrite them); and the refusals, each with its
//! reason and the line it is about.

use std::path::PathBuf;

use clmap_exec::PreparedWorkload;
use clmap_stage::{describe_refusal, stage_buffer, StageLimits, StagedVariant};
use clmap_testkit::root;

fn prepare(workload: &str) -> PreparedWorkload {
    PreparedWorkload::load(&root().join(workload)).expect("the workload loads")
}

fn stage(workload: &str, kernel: &str, buffer: &str) -> StagedVariant {
    let original = prepare(workload);
    match stage_buffer(&original, kernel, buffer, &StageLimits::default()) {
        Ok(v) => v,
        Err(r) => panic!("refused: {}", describe_refusal(&r, original.sources())),
    }
}

/// The refusal's `file:line:col: reason` and source line.
fn refusal(workload: &str, kernel: &str, buffer: &str, limits: &StageLimits) -> String {
    let original = prepare(workload);
    match stage_buffer(&original, kernel, buffer, limits) {
        Ok(v) => panic!("staged, expected a refusal:\n{}", v.diff),
        Err(r) => describe_refusal(&r, original.sources()),
    }
}

fn snapshot(name: &str, v: &StagedVariant) {
    let f = &v.footprint;
    let actual = format!(
        "{}# {} {} of {}.{}: {} x {} elements ({} bytes) from {}, reuse {:.2}\n",
        v.diff,
        f.map.as_deref().unwrap_or("no MAP"),
        f.imap.as_deref().unwrap_or("-"),
        v.kernel,
        v.buffer,
        f.rows,
        f.columns,
        f.bytes,
        f.origin,
        f.reuse
    );
    let path: PathBuf = root().join("tests/stage").join(format!("{name}.diff"));
    if std::env::var_os("CLMAP_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing snapshot {} (run with CLMAP_BLESS=1)", path.display()));
    assert_eq!(actual, expected, "snapshot {name} differs");
}

/// The staged text compiles with clang as OpenCL C 1.2, where clang is installed.
fn clang_accepts(v: &StagedVariant) {
    let dir = v.workload.source_path.parent().map(PathBuf::from).unwrap_or_default();
    clmap_testkit::ClangCheck::new()
        .include_dir(dir)
        .options(&v.workload.options)
        .assert_compiles(&v.source, &format!("{}.{} staged", v.kernel, v.buffer));
}

#[test]
fn row_map_matrix_multiply_stages_the_rows_of_a() {
    let v = stage("tests/corpus/mm_simple.toml", "simpleMultiply", "A");
    assert_eq!(v.footprint.imap.as_deref(), Some("Row"), "{:?}", v.footprint);
    assert_eq!((v.footprint.rows, v.footprint.columns), (16, 256));
    assert!(v.diff.contains("A_tile[get_local_id(0) * 256 + k]"), "{}", v.diff);
    assert_eq!(v.validation.outputs, ["C"]);
    assert!(v.validation.seeds >= 3);
    snapshot("mm_simple_a_row", &v);
    clang_accepts(&v);
}

#[test]
fn column_map_matrix_multiply_stages_the_columns_of_b() {
    let v = stage("tests/corpus/mm_simple.toml", "simpleMultiply", "B");
    assert_eq!(v.footprint.imap.as_deref(), Some("Column"), "{:?}", v.footprint);
    assert_eq!((v.footprint.rows, v.footprint.columns), (256, 16));
    snapshot("mm_simple_b_column", &v);
    clang_accepts(&v);
}

#[test]
fn block_map_5x5_box_stages_the_group_with_a_halo_of_two() {
    let v = stage("tests/stage/box5x5.toml", "box5x5", "in");
    assert_eq!(v.footprint.imap.as_deref(), Some("Block"), "{:?}", v.footprint);
    assert_eq!(v.footprint.radius, Some(2));
    assert_eq!((v.footprint.rows, v.footprint.columns), (20, 20));
    snapshot("box5x5_in_block", &v);
    clang_accepts(&v);
}

#[test]
fn block_map_3x3_convolution_stages_the_group_with_a_halo_of_one() {
    let v = stage("tests/corpus/pb_2dconv.toml", "conv2d", "A");
    assert_eq!(v.footprint.imap.as_deref(), Some("Block"), "{:?}", v.footprint);
    assert_eq!(v.footprint.radius, Some(1));
    // Work-groups of 32 x 8: 10 rows of 34.
    assert_eq!((v.footprint.rows, v.footprint.columns), (10, 34));
    snapshot("pb_2dconv_a_block", &v);
}

#[test]
fn neighbor_map_jacobi_stages_the_cross_and_its_halo() {
    // Six steps with the buffers swapped after each: the staged kernel serves both bindings.
    let v = stage("tests/corpus/jacobi2d.toml", "jacobi2d_step", "A");
    assert_eq!(v.footprint.imap.as_deref(), Some("Neighbor"), "{:?}", v.footprint);
    assert_eq!((v.footprint.rows, v.footprint.columns), (18, 18));
    snapshot("jacobi2d_a_neighbor", &v);
    clang_accepts(&v);
}

#[test]
fn a_data_dependent_index_is_refused_at_the_read() {
    let r = refusal("tests/stage/refuse_gather.toml", "gather", "in", &StageLimits::default());
    assert!(r.contains("refuse.cl:7:"), "{r}");
    assert!(r.contains("data-dependent"), "{r}");
    assert!(r.contains("in[idx[i]]"), "{r}");
}

#[test]
fn a_buffer_the_kernel_writes_is_refused_at_the_store() {
    let r = refusal(
        "tests/stage/refuse_smooth_in_place.toml",
        "smooth_in_place",
        "in",
        &StageLimits::default(),
    );
    assert!(r.contains("refuse.cl:16:"), "{r}");
    assert!(r.contains("writes to `in`"), "{r}");
}

#[test]
fn a_non_affine_index_is_refused_with_the_operation() {
    let r = refusal("tests/stage/refuse_squares.toml", "squares", "in", &StageLimits::default());
    assert!(r.contains("refuse.cl:23:"), "{r}");
    assert!(r.contains("not affine"), "{r}");
}

#[test]
fn a_footprint_above_the_local_memory_limit_is_refused_with_its_size() {
    let limits = StageLimits { max_local_bytes: 8 * 1024, ..StageLimits::default() };
    let r = refusal("tests/corpus/mm_simple.toml", "simpleMultiply", "A", &limits);
    assert!(r.contains("16 x 256 elements (16384 bytes)"), "{r}");
    assert!(r.contains("8192 bytes"), "{r}");
    assert!(r.contains("mm_simple.cl:17:"), "{r}");
}

#[test]
fn a_footprint_read_once_is_refused_as_no_reuse() {
    // Each element of a naive transpose's input is read by one work-item.
    let r = refusal(
        "tests/corpus/transpose_naive.toml",
        "transpose_naive",
        "in",
        &StageLimits::default(),
    );
    assert!(r.contains("at most once"), "{r}");
}

#[test]
fn unknown_buffers_and_kernels_are_refused_with_what_exists() {
    let r = refusal("tests/corpus/mm_simple.toml", "simpleMultiply", "D", &StageLimits::default());
    assert!(r.contains("no parameter `D` (its buffers: A, B, C)"), "{r}");
    let r = refusal("tests/corpus/mm_simple.toml", "other", "A", &StageLimits::default());
    assert!(r.contains("no kernel `other` (it has: simpleMultiply)"), "{r}");
}

#[test]
fn staged_kernels_agree_with_the_original_on_an_opencl_device() {
    let Some(device) = clmap_testkit::opencl_device() else { return };
    let target = clmap_exec::Target::Device(device);
    for (workload, kernel, buffer) in [
        ("tests/corpus/mm_simple.toml", "simpleMultiply", "B"),
        ("tests/stage/box5x5.toml", "box5x5", "in"),
        ("tests/corpus/jacobi2d.toml", "jacobi2d_step", "A"),
    ] {
        let original = prepare(workload);
        let v = stage(workload, kernel, buffer);
        let checked = clmap_stage::validate_on(&original, &v.prepared, 2, &target)
            .unwrap_or_else(|r| panic!("{workload}: {}", describe_refusal(&r, original.sources())));
        assert_eq!(checked.seeds, 2, "{workload}");
    }
}

#[test]
fn a_workload_without_a_work_group_size_gets_one_and_says_so() {
    let v = stage("tests/stage/box5x5_runtime_local.toml", "box5x5", "in");
    assert_eq!(v.chosen_local_size, Some([56, 4, 1]));
    assert_eq!(v.workload.launches[0].range.local, Some([56, 4, 1]));
    assert_eq!((v.footprint.rows, v.footprint.columns), (8, 60));
}

#[test]
fn launches_with_other_arguments_share_the_staging_when_the_footprint_is_the_same() {
    // FDTD's host loop passes the time step `t`: `hz` is read the same way at every step,
    // `fict[t]` moves with it.
    let v = stage("tests/corpus/pb_fdtd2d.toml", "fdtd_kernel1", "hz");
    assert_eq!((v.footprint.rows, v.footprint.columns), (9, 32));
    let r = refusal("tests/corpus/pb_fdtd2d.toml", "fdtd_kernel1", "fict", &StageLimits::default());
    assert!(r.contains("another footprint of `fict` at launch"), "{r}");
}

#[test]
fn reads_that_move_apart_with_the_work_group_are_refused() {
    // syr2k reads a[i][k] and a[j][k]: one follows the group's rows, the other its columns.
    let r = refusal("tests/corpus/pb_syr2k.toml", "syr2k", "a", &StageLimits::default());
    assert!(r.contains("one tile cannot follow both"), "{r}");
    assert!(r.contains("pb_syr2k.cl:17:"), "{r}");
}

#[test]
fn pointers_passed_on_or_offset_are_refused_at_the_use() {
    let r = refusal(
        "tests/corpus/map_row_global.toml",
        "map_row_global",
        "in",
        &StageLimits::default(),
    );
    assert!(r.contains("used other than by indexing"), "{r}");
    assert!(r.contains("const __global float *row = in + ty * width;"), "{r}");
    let r = refusal(
        "tests/corpus/map_block_global.toml",
        "map_block_global",
        "in",
        &StageLimits::default(),
    );
    assert!(r.contains("passed to helper `read_clamped`"), "{r}");
}

#[test]
fn an_interleaved_pair_computes_the_same_staged_one_way_both_or_not_at_all() {
    use clmap_aristotle::map::{map_by_id, MapId};
    // The advisor's interleaved pair of a multiply's column operand (MAP-302, `in1`) and row
    // operand (MAP-205, `in2`): its staged versions are this kernel with the stager's tiles.
    let map = |id| map_by_id(MapId(id)).expect("valid MAP");
    let bench = clmap_aristotle::generate_interleaved(&map(302), &map(205), 64, [16, 16])
        .expect("generates");
    let kernel = bench.kernel_name.as_str();
    let global = PreparedWorkload::new(bench.workload.clone()).expect("the pair loads");
    let limits = StageLimits::default();
    let staged = |from: &PreparedWorkload, buffer: &str| -> StagedVariant {
        stage_buffer(from, kernel, buffer, &limits)
            .unwrap_or_else(|r| panic!("{buffer}: {}", describe_refusal(&r, from.sources())))
    };
    let first = staged(&global, "in1");
    let second = staged(&global, "in2");
    let both = staged(&first.prepared, "in2");
    assert!(both.local_bytes > first.local_bytes, "{} {}", both.local_bytes, first.local_bytes);
    assert_eq!(both.source.matches("__local").count(), 2, "{}", both.source);
    let out = |prepared: &PreparedWorkload| -> Vec<u8> {
        let run = clmap_sim::run_workload(
            prepared.module(),
            prepared.workload(),
            &clmap_sim::SimOptions::default(),
        )
        .expect("runs on the simulator");
        run.buffer("out").expect("an output").to_vec()
    };
    let expected = out(&global);
    assert!(expected.iter().any(|&byte| byte != 0), "the pair computes something");
    // The same products summed in the same order: equal to the bit.
    for (name, version) in [("in1", &first), ("in2", &second), ("both", &both)] {
        assert!(out(&version.prepared) == expected, "staging {name} changed the output");
    }
}
