//! The generated kernels are OpenCL C 1.2 that clang accepts (skipped, with a note, where
//! clang-16 is not installed). All kernels go into one translation unit: their names are
//! distinct, and one clang run keeps the test fast.

use clmap_aristotle::compose_kernels::{generate_pair, ComposeVersion};
use clmap_aristotle::generate::{generate, BenchSpec, Variant};
use clmap_aristotle::map::{map_by_id, valid_maps, MapId};
use clmap_testkit::ClangCheck;

#[test]
fn clang_accepts_every_variant_and_a_sample_of_pairs() {
    let mut unit = String::new();
    for map in valid_maps() {
        for variant in Variant::ALL {
            let spec = BenchSpec { map, variant, dataset: 128, work_group: [16, 16] };
            unit.push_str(&generate(&spec).unwrap().source);
            unit.push('\n');
        }
    }
    let pairs = [(407, 205), (302, 302), (116, 514)];
    for (a, b) in pairs {
        let (a, b) = (map_by_id(MapId(a)).unwrap(), map_by_id(MapId(b)).unwrap());
        for version in ComposeVersion::ALL {
            unit.push_str(&generate_pair(&a, &b, version, 128, [16, 16]).unwrap().source);
            unit.push('\n');
        }
    }
    // Generated code should not even warn.
    ClangCheck::new().warnings_are_errors().assert_compiles(&unit, "the generated kernels");
}
