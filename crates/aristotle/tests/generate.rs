//! The generator's output: every MAP in every variant builds, prints OpenCL C that clmap's
//! front end (and clang, where installed) accepts, and has the sizes §5.1.1 and §6.1 give.

use clmap_aristotle::generate::{generate, BenchSpec, Variant};
use clmap_aristotle::map::{map_by_id, valid_maps, MapId};

fn spec(id: u16, variant: Variant, dataset: usize, work_group: [usize; 2]) -> BenchSpec {
    BenchSpec { map: map_by_id(MapId(id)).unwrap(), variant, dataset, work_group }
}

#[test]
fn every_variant_of_every_map_reparses() {
    for map in valid_maps() {
        for variant in Variant::ALL {
            let spec = BenchSpec { map, variant, dataset: 32, work_group: [16, 16] };
            let bench = generate(&spec).unwrap_or_else(|e| panic!("{map} {variant}: {e}"));
            let compiled = clmap_lang::frontend::compile_isolated(&bench.source, "")
                .unwrap_or_else(|e| panic!("{map} {variant}:\n{}\n{}", e.render(), bench.source));
            assert!(compiled.module.kernel_by_name(&bench.kernel_name).is_some());
            assert_eq!(bench.workload.source, bench.source);
            assert_eq!(bench.workload.launches[0].kernel, bench.kernel_name);
            assert_eq!(variant.uses_local_memory(), bench.local_cells > 0, "{map} {variant}");
            assert_eq!(variant.uses_local_memory(), bench.source.contains("__local"));
        }
    }
}

#[test]
fn map_407_local_cells_match_figure_5() {
    let mut m = spec(407, Variant::LocalMax, 64, [8, 8]);
    m.map = m.map.with_radius(1).unwrap();
    assert_eq!(generate(&m).unwrap().local_cells, 100);
    m.variant = Variant::LocalMin;
    let min = generate(&m).unwrap();
    assert_eq!(min.local_cells, 50);
    assert!(min.source.contains("__local float tile[50];"), "{}", min.source);
}

#[test]
fn bytes_moved_is_items_times_elements_times_four() {
    assert_eq!(
        generate(&spec(108, Variant::NoLocal, 128, [16, 16])).unwrap().bytes_moved,
        128 * 128 * 4
    );
    assert_eq!(
        generate(&spec(204, Variant::LocalMax, 128, [16, 16])).unwrap().bytes_moved,
        128 * 128 * 128 * 4
    );
    assert_eq!(
        generate(&spec(407, Variant::NoLocal, 128, [16, 16])).unwrap().bytes_moved,
        128 * 128 * 49 * 4
    );
    assert_eq!(
        generate(&spec(508, Variant::NoLocal, 128, [16, 16])).unwrap().bytes_moved,
        128 * 128 * 5 * 4
    );
}

#[test]
fn the_output_is_counted_apart() {
    let bench = generate(&spec(108, Variant::NoLocal, 256, [16, 16])).unwrap();
    assert_eq!(bench.bytes_written, 256 * 256 * 4);
}

#[test]
fn bad_specs_are_errors() {
    assert!(generate(&spec(108, Variant::NoLocal, 100, [16, 16])).is_err());
    assert!(generate(&spec(108, Variant::NoLocal, 8, [8, 8])).is_err());
    assert!(generate(&spec(108, Variant::NoLocal, 128, [0, 16])).is_err());
    assert!(generate(&spec(108, Variant::NoLocal, 128, [64, 64])).is_err());
}

#[test]
fn single_maps_without_local_memory_are_copies_from_the_mapped_element() {
    // One load, one store and the ids: nothing a copy kernel would not do, so the database
    // measures the pattern rather than the kernel around it.
    for map in valid_maps().into_iter().filter(|m| m.id().0 < 200) {
        let bench = generate(&BenchSpec {
            map,
            variant: Variant::NoLocal,
            dataset: 64,
            work_group: [16, 16],
        })
        .unwrap();
        let body: Vec<&str> = bench
            .source
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("//"))
            .collect();
        assert_eq!(body.len(), 5, "{map}:\n{}", bench.source);
        assert!(body[3].starts_with("out[gy * 64 + gx] = in["), "{map}: {}", body[3]);
        assert!(!bench.source.contains("acc"), "{map}:\n{}", bench.source);
        assert_eq!(bench.source.matches("in[").count(), 1, "{map}");
    }
    let identity = generate(&spec(108, Variant::NoLocal, 64, [16, 16])).unwrap();
    assert!(
        identity.source.contains("out[gy * 64 + gx] = in[gy * 64 + gx];"),
        "{}",
        identity.source
    );
    // Row MAPs still sum their row.
    let row = generate(&spec(204, Variant::NoLocal, 64, [16, 16])).unwrap();
    assert!(row.source.contains("acc += in["), "{}", row.source);
}
