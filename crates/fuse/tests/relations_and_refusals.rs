//! The relations fusion derives from kernel code, checked against the ones written by hand in
//! the paper's example, and the refusals of code it must not fuse, with their reasons and lines.

use std::path::PathBuf;

use clmap_exec::{PreparedWorkload, Target};
use clmap_fuse::{fuse, validate, NothingFused, Options};
use clmap_isl::Context;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn relation<'a>(fused: &'a clmap_fuse::Fused, kernel: &str, kind: &str, buffer: &str) -> &'a str {
    fused.segments[0]
        .relations
        .iter()
        .find(|(k, b, label, _)| k == kernel && b == buffer && *label == kind)
        .map(|(_, _, _, text)| text.as_str())
        .unwrap_or_else(|| panic!("no {kind} relation of {buffer} in {kernel}"))
}

fn same_relation(found: &str, expected: &str) {
    let ctx = Context::new();
    let a = ctx.map(found).expect("isl reads the derived relation");
    let b = ctx.map(expected).expect("isl reads the expected relation");
    assert!(a.is_equal(&b).unwrap(), "derived {found}\nexpected {expected}");
}

#[test]
fn the_papers_example_gives_its_relations_and_tiles() {
    let original = PreparedWorkload::load(&data("seed_example.toml")).unwrap();
    let options = Options { tile: Some(vec![32]), ..Options::default() };
    let fused = fuse(original.compiled(), original.workload(), &options).expect("f and g fuse");
    // The paper's consuming relation {[id0] -> [x0] : id0 - 1 <= x0 <= id0 + 1}, under g's guard.
    same_relation(
        relation(&fused, "g", "consuming", "A"),
        "{ [p0] -> [x] : p0 - 1 <= x <= p0 + 1 and 0 < p0 < 255 }",
    );
    // The paper's producing relation {[x0] -> [id0] : x0 = id0}, over f's range.
    same_relation(
        relation(&fused, "f", "producing", "A"),
        "{ [x] -> [p0] : x = p0 and 0 <= p0 < 256 }",
    );
    // Tile[f] = {start - 1 <= id0 < start + len + 1}: one element of halo on each side.
    let s = &fused.segments[0];
    assert_eq!(s.reach, vec![vec![(-1, 32)], vec![(0, 31)]]);
    assert_eq!(s.local_bytes, 34, "f's tile of 34 chars is the only local buffer");
    assert_eq!(fused.launches_after, 1);
    let target = Target::Simulator(Default::default());
    validate(&original, &fused.workload, 3, &target).expect("the fused pipeline agrees");
}

fn refusal(name: &str) -> String {
    let original = PreparedWorkload::load(&data(name)).unwrap();
    match fuse(original.compiled(), original.workload(), &Options::default()) {
        Ok(f) => panic!("{name} was fused:\n{}", f.workload.source),
        Err(NothingFused { refusals }) => {
            let sources = &original.compiled().sources;
            refusals.iter().map(|r| r.describe(sources)).collect::<Vec<_>>().join("\n")
        }
    }
}

#[test]
fn a_gather_through_an_index_buffer_is_refused_at_its_read() {
    let why = refusal("gather.toml");
    assert!(why.contains("refusals.cl:7:"), "{why}");
    assert!(why.contains("data-dependent"), "{why}");
}

#[test]
fn an_atomic_histogram_is_refused_at_its_update() {
    let why = refusal("histogram.toml");
    assert!(why.contains("refusals.cl:15:"), "{why}");
    assert!(why.contains("`atomic_inc` is an atomic update"), "{why}");
}

#[test]
fn an_in_place_update_read_at_other_indices_is_refused() {
    let why = refusal("in_place.toml");
    assert!(why.contains("refusals.cl:24:"), "{why}");
    assert!(why.contains("read and updated in place"), "{why}");
}

#[test]
fn a_repeated_launch_without_a_swap_is_refused_as_a_pipeline() {
    let why = refusal("repeat_without_swap.toml");
    assert!(why.contains("does not swap exactly one pair"), "{why}");
}

#[test]
fn a_chain_inside_a_host_loop_fuses_across_and_within_repetitions() {
    let original = PreparedWorkload::load(&data("group_chain.toml")).unwrap();
    let target = Target::Simulator(Default::default());
    // 4 repetitions of f -> g: 3 fused into one launch, then the loop runs its body once.
    let options = Options { tile: Some(vec![32]), ..Options::default() };
    let fused = fuse(original.compiled(), original.workload(), &options).expect("f and g fuse");
    assert_eq!((fused.launches_before, fused.launches_after), (8, 3));
    assert_eq!(fused.segments[0].stages, ["f", "g", "f", "g", "f", "g"]);
    let group = &fused.workload.groups[0];
    assert_eq!((group.launches.clone(), group.repeat), (1..3, 1));
    validate(&original, &fused.workload, 3, &target).expect("the fused loop agrees");
    // Two repetitions per launch would write the loop's input while reading it: the body
    // fuses within each repetition instead, and the loop keeps its 4 repetitions.
    let options = Options { steps: Some(2), ..options };
    let fused = fuse(original.compiled(), original.workload(), &options).expect("f and g fuse");
    assert_eq!((fused.launches_before, fused.launches_after), (8, 4));
    let group = &fused.workload.groups[0];
    assert_eq!((group.launches.clone(), group.repeat), (0..1, 4), "the loop keeps its body");
    validate(&original, &fused.workload, 3, &target).expect("the fused loop agrees");
}

#[test]
fn loops_bounded_by_arguments_give_relations_isl_reads() {
    // PolyBench's ATAX (tests/corpus, not written for fusion): both kernels loop to an argument
    // (`j < ny`), which must reach isl as its value.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/pb_atax.toml");
    let original = PreparedWorkload::load(&path).unwrap();
    let fused = fuse(original.compiled(), original.workload(), &Options::default())
        .unwrap_or_else(|e| panic!("ATAX fuses: {:?}", e.refusals));
    same_relation(
        relation(&fused, "atax_kernel1", "consuming", "x"),
        "{ [p0] -> [x] : 0 <= p0 < 256 and 0 <= x < 256 }",
    );
    let target = Target::Simulator(Default::default());
    validate(&original, &fused.workload, 2, &target).expect("the fused pipeline agrees");
}
