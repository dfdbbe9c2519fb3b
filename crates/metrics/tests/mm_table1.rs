//! Golden test: seed 004's Table 1 (AIWC metrics of four 256 x 256 matrix multiplies) in
//! AIWC compatibility mode, and the separation of coalescedAB from coalescedABT by parallel
//! spatial locality (its Figure 2).

use clmap_metrics::{analyze_workload, KernelMetrics, Mode};
use clmap_sim::SimOptions;
use std::path::PathBuf;

fn corpus(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let own = root.join("tests/data").join(name);
    if own.exists() {
        own
    } else {
        root.join("../../tests/corpus").join(name)
    }
}

/// coalescedABT reading its transposed tile as the transposition requires (see the .cl).
const ABT_TRANSPOSED_READS: &str = "mm_coalesced_abt_transposed_reads.toml";

/// Area under the PSL curve (AIWC's "normed locality sum"): the steeper the fall with
/// dropped bits, the smaller. Both curves meet again at 10 bits, where one tile is one
/// address.
fn psl_area(m: &KernelMetrics) -> f64 {
    m.memory.parallel_spatial_locality.iter().sum()
}

fn metrics(name: &str, mode: Mode, threads: usize) -> KernelMetrics {
    let prepared =
        clmap_exec::PreparedWorkload::load(&corpus(name)).expect("corpus workload loads");
    let options = SimOptions { threads, ..SimOptions::default() };
    let mut launches = analyze_workload(prepared.module(), prepared.workload(), &options, mode)
        .expect("simulation runs");
    assert_eq!(launches.len(), 1);
    launches.remove(0)
}

/// Rounds as the seed prints: two decimals.
fn printed(x: f64) -> String {
    format!("{x:.2}")
}

/// One column of Table 1: footprint, 90 % footprint, GMAE, LMAE 3 bits, LMAE 10 bits,
/// relative local memory usage.
fn check_column(m: &KernelMetrics, column: (u64, u64, &str, &str, &str, &str)) {
    let mem = &m.memory;
    assert_eq!(mem.total_footprint, column.0, "{}: total footprint", m.kernel);
    assert_eq!(mem.footprint_90, column.1, "{}: 90% footprint", m.kernel);
    assert_eq!(printed(mem.global_address_entropy), column.2, "{}: GMAE", m.kernel);
    assert_eq!(printed(mem.local_address_entropy[2]), column.3, "{}: LMAE 3", m.kernel);
    assert_eq!(printed(mem.local_address_entropy[9]), column.4, "{}: LMAE 10", m.kernel);
    assert_eq!(printed(mem.relative_local_usage), column.5, "{}: local usage", m.kernel);
}

#[test]
fn table_1_in_aiwc_mode() {
    let simple = metrics("mm_simple.toml", Mode::AiwcCompat, 0);
    check_column(&simple, (196608, 118196, "17.02", "16.02", "9.02", "0.00"));
    let a = metrics("mm_coalesced_a.toml", Mode::AiwcCompat, 0);
    check_column(&a, (196608, 56176, "13.18", "12.18", "5.18", "0.50"));
    let ab = metrics("mm_coalesced_ab.toml", Mode::AiwcCompat, 0);
    check_column(&ab, (196608, 489, "9.78", "8.78", "1.78", "0.94"));
    let abt = metrics("mm_coalesced_abt.toml", Mode::AiwcCompat, 0);
    check_column(&abt, (196608, 489, "9.78", "8.78", "1.78", "0.94"));
    // The seed's point: none of these metrics tells coalescedAB from coalescedABT ...
    assert_eq!(ab.memory.global_address_entropy, abt.memory.global_address_entropy);
    // ... and with the listing's reads neither can parallel spatial locality: each store step
    // touches the whole tile in another order, every other step is unchanged.
    assert_eq!(ab.memory.parallel_spatial_locality, abt.memory.parallel_spatial_locality);
    // Reading the transposed tile as ASub[k][localRow] makes ABT fall more steeply.
    let abt_reads = metrics(ABT_TRANSPOSED_READS, Mode::AiwcCompat, 0);
    assert!(
        psl_area(&abt_reads) < psl_area(&ab) - 0.5,
        "{:?} vs {:?}",
        abt_reads.memory,
        ab.memory
    );
}

#[test]
fn default_mode_separates_ab_from_abt_and_counts_local_memory_per_group() {
    let ab = metrics("mm_coalesced_ab.toml", Mode::Clmap, 0);
    let abt = metrics(ABT_TRANSPOSED_READS, Mode::Clmap, 0);
    // 3 buffers of 65536 floats plus two 256-float tiles in each of 256 groups.
    assert_eq!(ab.memory.total_footprint, 196608 + 256 * 512);
    assert_eq!(ab.parallelism.barriers_hit, 2 * 16 * 65536);
    let psl_ab = &ab.memory.parallel_spatial_locality;
    let psl_abt = &abt.memory.parallel_spatial_locality;
    // Both start equal (the same number of distinct addresses per step); ABT falls faster:
    // its A-tile reads are 16 neighbouring words, coalescedAB's are 16 words 64 bytes apart.
    assert_eq!(psl_ab[0], psl_abt[0]);
    assert!(psl_abt[6] < psl_ab[6] - 0.1, "{psl_ab:?} vs {psl_abt:?}");
    assert!(psl_area(&abt) < psl_area(&ab) - 0.5);
    for n in 1..=10 {
        assert!(psl_ab[n] <= psl_ab[n - 1] + 1e-12 && psl_abt[n] <= psl_abt[n - 1] + 1e-12);
    }
}

#[test]
fn one_and_many_threads_agree() {
    // N = 64 keeps this quick; 16 work-groups spread over the threads.
    for mode in [Mode::Clmap, Mode::AiwcCompat] {
        let one = metrics("mm_coalesced_abt_transposed_reads_n64.toml", mode, 1);
        let many = metrics("mm_coalesced_abt_transposed_reads_n64.toml", mode, 4);
        assert_eq!(one, many, "{mode:?}");
        assert_eq!(one.parallelism.work_groups, 16);
    }
}
