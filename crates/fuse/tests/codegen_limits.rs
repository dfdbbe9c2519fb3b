//! Fusions past the first generator's limits: an even number of temporal steps, stages that
//! write several buffers, and host-loop repetitions fused into each other. Each fused
//! pipeline must give the unfused outputs on the simulator.

use std::path::PathBuf;

use clmap_exec::{PreparedWorkload, Target};
use clmap_fuse::{fuse, validate, Fused, Options};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn fused_agrees(name: &str, options: &Options) -> (PreparedWorkload, Fused) {
    let original = PreparedWorkload::load(&data(name)).expect("test workload loads");
    let fused = match fuse(original.compiled(), original.workload(), options) {
        Ok(f) => f,
        Err(e) => panic!("{name}: nothing fused: {:?}", e.refusals),
    };
    let target = Target::Simulator(Default::default());
    if let Err(e) = validate(&original, &fused.workload, 3, &target) {
        panic!("{name} with {options:?}: {e}\n{}", fused.workload.source);
    }
    (original, fused)
}

#[test]
fn even_step_counts_fuse_in_time_and_leave_both_buffers_as_the_host_expects() {
    // 10 steps, 9 fusable: K = 2 (4 fused launches and 2 unfused), 4, and 8.
    for (steps, launches) in [(2, 4 + 2), (4, 2 + 2), (8, 1 + 2)] {
        let options = Options { steps: Some(steps), tile: Some(vec![16, 8]), ..Options::default() };
        let (_, fused) = fused_agrees("pingpong_distinct.toml", &options);
        assert_eq!(fused.segments[0].steps, steps);
        assert_eq!(fused.launches_after, launches, "K = {steps}");
        // The last step writes a scratch buffer, which then takes the name of the buffer
        // the first step read; the pair itself ends unswapped.
        let launch = &fused.workload.launches[0];
        assert_eq!(launch.swap, vec![("a".to_string(), "fuse_scratch0".to_string())]);
        let scratch = fused.workload.buffer("fuse_scratch0").expect("a scratch buffer");
        assert!(!scratch.output);
    }
}

#[test]
fn odd_step_counts_swap_the_pair_without_a_scratch_buffer() {
    let options = Options { steps: Some(3), tile: Some(vec![16, 8]), ..Options::default() };
    let (_, fused) = fused_agrees("pingpong_distinct.toml", &options);
    assert!(fused.workload.buffer("fuse_scratch0").is_none());
    assert_eq!(fused.workload.launches[0].swap, vec![("a".to_string(), "b".to_string())]);
}

#[test]
fn the_default_search_tries_every_step_count_even_ones_included() {
    // The search puts the best candidate of each step count first: the first 8 ranks are the
    // 8 counts from 2 to the 9 fusable repetitions, each of which must validate.
    let mut steps: Vec<u32> = (0..8)
        .map(|rank| {
            let options = Options { tile: Some(vec![16, 8]), rank, ..Options::default() };
            fused_agrees("pingpong_distinct.toml", &options).1.segments[0].steps
        })
        .collect();
    steps.sort();
    assert_eq!(steps, (2..=9).collect::<Vec<u32>>());
}

#[test]
fn a_repeated_step_that_writes_two_buffers_fuses_in_time() {
    // `prev` is written by every step; only the last fused step's copy reaches global memory,
    // the others stay in local memory that nothing reads.
    for steps in [3, 4] {
        let options = Options { steps: Some(steps), tile: Some(vec![64]), ..Options::default() };
        let (_, fused) = fused_agrees("step_and_keep.toml", &options);
        assert_eq!(fused.segments[0].steps, steps);
        assert!(fused.launches_after < fused.launches_before);
    }
}

#[test]
fn a_kernel_that_writes_two_fields_fuses_with_its_consumer() {
    let options = Options { tile: Some(vec![64]), ..Options::default() };
    let (_, fused) = fused_agrees("two_outputs.toml", &options);
    assert_eq!((fused.launches_before, fused.launches_after), (2, 1));
    assert_eq!(fused.segments[0].stages, ["split", "combine"]);
    // Both fields are read a point either side: `split` computes a halo of one.
    assert_eq!(fused.segments[0].reach[0], vec![(-1, 64)]);
    // u and v are intermediates: they stay in local memory, two tiles.
    assert_eq!(fused.workload.source.matches("__local float fuse_slot").count(), 2);
}

#[test]
fn repetitions_of_a_host_loop_fuse_into_each_other() {
    // scale -> blur, fed back by the loop's swap, 10 times: 3 repetitions (6 stages) per
    // fused launch, 3 fused launches, then the body once more as the loop.
    let options = Options { steps: Some(3), tile: Some(vec![64]), ..Options::default() };
    let (_, fused) = fused_agrees("group_repeated.toml", &options);
    let s = &fused.segments[0];
    assert!(matches!(s.kind, clmap_fuse::SegmentKind::Repeated { .. }), "{:?}", s.kind);
    assert_eq!(s.stages, ["scale", "blur", "scale", "blur", "scale", "blur"]);
    // blur reads one point either side, three times over: the first scale reaches 3 out.
    assert_eq!(s.reach[0], vec![(-3, 66)]);
    assert_eq!((fused.launches_before, fused.launches_after), (20, 3 + 2));
    let launch = &fused.workload.launches[0];
    assert_eq!((launch.repeat, launch.swap.clone()), (3, vec![("a".into(), "b".into())]));
    let group = &fused.workload.groups[0];
    assert_eq!((group.launches.clone(), group.repeat), (1..3, 1));
}

#[test]
fn the_search_over_loop_repetitions_keeps_the_counts_that_plan() {
    // An even count would make the last blur write the buffer the first scale reads; the
    // search leaves those out and validates the rest.
    let original = PreparedWorkload::load(&data("group_repeated.toml")).unwrap();
    let options = Options { tile: Some(vec![64]), ..Options::default() };
    let fused = fuse(original.compiled(), original.workload(), &options).expect("fuses");
    assert!(fused.segments[0].steps % 2 == 1);
    let target = Target::Simulator(Default::default());
    validate(&original, &fused.workload, 3, &target).expect("agrees");
    let even = Options { steps: Some(4), ..options };
    let refused = fuse(original.compiled(), original.workload(), &even);
    // With 4 forced, the loop falls back to fusing its body within each repetition.
    let fused = refused.expect("the body still fuses");
    assert!(matches!(fused.segments[0].kind, clmap_fuse::SegmentKind::Spatial { .. }));
    assert!(fused.refusals.iter().any(|r| r.reason.contains("do not fuse into each other")));
    validate(&original, &fused.workload, 2, &target).expect("agrees");
}
