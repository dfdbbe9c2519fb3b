//! Fused pipelines give the unfused outputs on the simulator, for every application in
//! `examples/fusion/`, with fewer launches.

use std::path::PathBuf;

use clmap_exec::{PreparedWorkload, Target};
use clmap_fuse::{fuse, validate, Options};

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/fusion").join(name)
}

fn fused_agrees(name: &str, options: &Options) -> clmap_fuse::Fused {
    let original = PreparedWorkload::load(&example(name)).expect("example loads");
    let fused = match fuse(original.compiled(), original.workload(), options) {
        Ok(f) => f,
        Err(e) => panic!("{name}: nothing fused: {:?}", e.refusals),
    };
    assert!(
        fused.launches_after < fused.launches_before,
        "{name}: {} -> {}",
        fused.launches_before,
        fused.launches_after
    );
    let target = Target::Simulator(Default::default());
    if let Err(e) = validate(&original, &fused.workload, 3, &target) {
        panic!("{name}: {e}\n{}", fused.workload.source);
    }
    fused
}

#[test]
fn jacobi_1d_fuses_in_time() {
    let fused = fused_agrees(
        "jacobi1d_small.toml",
        &Options { steps: Some(3), tile: Some(vec![128]), ..Options::default() },
    );
    let s = &fused.segments[0];
    assert_eq!(s.steps, 3);
    // Three steps of a 3-point stencil: the first stage reaches two points further out.
    assert_eq!(s.reach[0][0].0, -2, "{:?}\n{}", s.reach, fused.workload.source);
}

#[test]
fn jacobi_2d_fuses_in_time() {
    let fused = fused_agrees(
        "jacobi2d_small.toml",
        &Options { steps: Some(3), tile: Some(vec![16, 8]), ..Options::default() },
    );
    assert_eq!(fused.segments[0].reach[0], vec![(-2, 17), (-2, 9)]);
}

#[test]
fn hotspot_fuses_in_time() {
    fused_agrees(
        "hotspot_small.toml",
        &Options { steps: Some(5), tile: Some(vec![16, 16]), ..Options::default() },
    );
}

#[test]
fn cell_automaton_3d_fuses_in_time() {
    fused_agrees(
        "cell3d_small.toml",
        &Options { steps: Some(3), tile: Some(vec![4, 4, 4]), ..Options::default() },
    );
}

#[test]
fn image_pipeline_fuses_different_kernels() {
    let fused = fused_agrees(
        "image_small.toml",
        &Options { tile: Some(vec![16, 8]), ..Options::default() },
    );
    assert_eq!(fused.segments[0].stages, ["denoise", "sharpen", "blend"]);
    assert_eq!(fused.launches_after, 1);
}

#[test]
fn pathfinder_fuses_rows_whose_number_changes_with_the_repetition() {
    // 9 row launches: one fused launch of 7 rows, then the remaining 2 unfused, each step
    // given its own row number.
    let fused = fused_agrees(
        "pathfinder_small.toml",
        &Options { steps: Some(7), tile: Some(vec![64]), ..Options::default() },
    );
    assert_eq!((fused.launches_before, fused.launches_after), (9, 3));
    assert_eq!(fused.segments[0].reach[0][0], (-6, 69));
    for k in 0..7 {
        assert!(fused.workload.source.contains(&format!("fuse_arg0_4_s{k}")));
    }
}

#[test]
fn default_search_fuses_every_application() {
    for name in [
        "jacobi1d_small.toml",
        "jacobi2d_small.toml",
        "hotspot_small.toml",
        "cell3d_small.toml",
        "image_small.toml",
        "pathfinder_small.toml",
        "image_loop_small.toml",
    ] {
        fused_agrees(name, &Options::default());
    }
}

#[test]
fn an_image_filter_loop_fuses_its_repetitions() {
    // denoise -> sharpen, 8 times: 7 repetitions (14 stages) in one launch, then the loop's
    // last repetition.
    let fused = fused_agrees(
        "image_loop_small.toml",
        &Options { steps: Some(7), tile: Some(vec![32, 8]), ..Options::default() },
    );
    let s = &fused.segments[0];
    assert_eq!(s.stages.len(), 14);
    assert_eq!((fused.launches_before, fused.launches_after), (16, 3));
    // Each of denoise and sharpen reads one pixel around: 13 stages before the last.
    assert_eq!(s.reach[0], vec![(-13, 44), (-13, 20)]);
}

#[test]
fn variant_s_keeps_a_launch_boundary_where_a_halo_is_needed() {
    // denoise -> sharpen needs a halo of denoise's result; sharpen -> blend is point-wise.
    let fused = fused_agrees(
        "image_small.toml",
        &Options { variant: clmap_fuse::Variant::Split, ..Options::default() },
    );
    assert_eq!(fused.launches_after, 2);
    assert_eq!(fused.segments.len(), 1);
    assert_eq!(fused.segments[0].stages, ["sharpen", "blend"]);
    assert!(fused.segments[0].reach.iter().all(|r| r.iter().all(|(lo, _)| *lo == 0)));
    assert!(fused
        .refusals
        .iter()
        .any(|r| r.reason.contains("`denoise`") && r.reason.contains("halo")));
    // A stencil's every step needs the halo of the one before: nothing is left to fuse.
    let original = PreparedWorkload::load(&example("jacobi2d_small.toml")).unwrap();
    let split = Options { variant: clmap_fuse::Variant::Split, ..Options::default() };
    let refused = fuse(original.compiled(), original.workload(), &split).expect_err("no fusion");
    assert!(refused.refusals.iter().any(|r| r.reason.contains("every step reads a halo")));
}
