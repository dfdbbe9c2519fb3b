//! Every local-memory variant of every MAP computes exactly what the variant without local
//! memory computes, on the simulator with its race and uninitialised-read checkers on.

use clmap_aristotle::generate::{generate, BenchSpec, Variant};
use clmap_aristotle::map::{map_by_id, valid_maps, MapId};
use clmap_aristotle::validate::{validate_on_simulator, ValidationError};

fn check_all(dataset: usize, work_group: [usize; 2]) {
    let mut failures = Vec::new();
    for map in valid_maps() {
        let reference =
            generate(&BenchSpec { map, variant: Variant::NoLocal, dataset, work_group })
                .unwrap_or_else(|e| panic!("{map}: {e}"));
        for variant in [Variant::LocalMax, Variant::LocalMin, Variant::LocalPadded] {
            let bench = generate(&BenchSpec { map, variant, dataset, work_group })
                .unwrap_or_else(|e| panic!("{map} {variant}: {e}"));
            if let Err(e) = validate_on_simulator(&bench, &reference) {
                failures.push(format!("{map} {variant}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn all_33_maps_validate_with_square_groups() {
    check_all(32, [16, 16]);
}

#[test]
fn all_33_maps_validate_with_oblong_groups() {
    // Unequal sides catch a swapped x and y anywhere in the tile arithmetic.
    check_all(32, [8, 4]);
}

#[test]
fn a_wrong_tile_is_caught() {
    // A min-approach kernel run against another MAP's reference must fail: the check can fail.
    let map = map_by_id(MapId(407)).unwrap();
    let other = map_by_id(MapId(408)).unwrap();
    let bench =
        generate(&BenchSpec { map, variant: Variant::LocalMin, dataset: 32, work_group: [8, 8] })
            .unwrap();
    let mut reference = generate(&BenchSpec {
        map: other,
        variant: Variant::NoLocal,
        dataset: 32,
        work_group: [8, 8],
    })
    .unwrap();
    assert!(matches!(
        validate_on_simulator(&bench, &reference),
        Err(ValidationError::DifferentProblem { .. })
    ));
    // Same problem, but a reference whose output differs: the comparison must notice.
    reference =
        generate(&BenchSpec { map, variant: Variant::NoLocal, dataset: 32, work_group: [8, 8] })
            .unwrap();
    reference.workload.source = reference.workload.source.replace("acc += ", "acc -= ");
    assert!(matches!(
        validate_on_simulator(&bench, &reference),
        Err(ValidationError::Mismatch { .. })
    ));

    // Without the barrier, work-items read cells others have not written yet.
    let reference =
        generate(&BenchSpec { map, variant: Variant::NoLocal, dataset: 32, work_group: [8, 8] })
            .unwrap();
    let mut racy = bench.clone();
    racy.workload.source = racy.workload.source.replace("barrier(CLK_LOCAL_MEM_FENCE);", "");
    assert!(matches!(
        validate_on_simulator(&racy, &reference),
        Err(ValidationError::Finding { .. })
    ));
}
