//! The composer's kernels: two data structures, v0/v1/v2, each version computing exactly
//! what v0 computes.

use clmap_aristotle::compose_kernels::{generate_pair, ComposeVersion};
use clmap_aristotle::generate::{generate, BenchSpec, Variant};
use clmap_aristotle::map::{map_by_id, valid_maps, MapId};
use clmap_aristotle::validate::validate_on_simulator;

fn map(id: u16) -> clmap_aristotle::map::Map {
    map_by_id(MapId(id)).unwrap()
}

#[test]
fn versions_stage_zero_one_and_two_structures() {
    let (a, b) = (map(407), map(205));
    let v0 = generate_pair(&a, &b, ComposeVersion::V0, 32, [16, 16]).unwrap();
    let v1 = generate_pair(&a, &b, ComposeVersion::V1, 32, [16, 16]).unwrap();
    let v2 = generate_pair(&a, &b, ComposeVersion::V2, 32, [16, 16]).unwrap();
    assert_eq!(v0.source.matches("__local").count(), 0);
    assert_eq!(v1.source.matches("__local").count(), 1);
    assert_eq!(v2.source.matches("__local").count(), 2);
    let single = |id, variant| {
        generate(&BenchSpec { map: map(id), variant, dataset: 32, work_group: [16, 16] }).unwrap()
    };
    assert_eq!(v0.local_cells, 0);
    assert_eq!(v1.local_cells, single(407, Variant::LocalMax).local_cells);
    assert_eq!(
        v2.local_cells,
        single(407, Variant::LocalMax).local_cells + single(205, Variant::LocalMax).local_cells
    );
    assert_eq!(
        v0.bytes_moved,
        single(407, Variant::NoLocal).bytes_moved + single(205, Variant::NoLocal).bytes_moved
    );
    for bench in [&v0, &v1, &v2] {
        clmap_lang::frontend::compile_isolated(&bench.source, "")
            .unwrap_or_else(|e| panic!("{}\n{}", e.render(), bench.source));
    }
    validate_on_simulator(&v1, &v0).unwrap();
    validate_on_simulator(&v2, &v0).unwrap();
}

#[test]
fn every_map_composes_with_a_partner_of_each_imap() {
    // Each MAP paired with one MAP of every iMAP family (same MAP included): 33 × 5 pairs.
    let partners = [108, 204, 302, 409, 514];
    for a in valid_maps() {
        for &p in &partners {
            let b = map(p);
            let v0 = generate_pair(&a, &b, ComposeVersion::V0, 16, [8, 8]).unwrap();
            for version in [ComposeVersion::V1, ComposeVersion::V2] {
                let bench = generate_pair(&a, &b, version, 16, [8, 8]).unwrap();
                validate_on_simulator(&bench, &v0)
                    .unwrap_or_else(|e| panic!("{a} + {b} {version}: {e}"));
            }
        }
    }
}

#[test]
fn versions_parse() {
    assert_eq!("v1".parse::<ComposeVersion>(), Ok(ComposeVersion::V1));
    assert!("v3".parse::<ComposeVersion>().is_err());
}
