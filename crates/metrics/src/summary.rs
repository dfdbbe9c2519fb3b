//! The metrics of one kernel launch, grouped as AIWC groups them.

use crate::branches::BranchSummary;
use crate::entropy::{curve_of_sorted_counts_on, Denominator, EntropyCurve};
use crate::observer::{MetricsObserver, OP_CLASSES};
use crate::stats::{items_covering, Spread};
use crate::Mode;
use serde::Serialize;

/// Every metric of one launch. See `docs/metrics.md` for the definitions.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct KernelMetrics {
    pub kernel: String,
    pub mode: Mode,
    pub compute: ComputeMetrics,
    pub parallelism: ParallelismMetrics,
    pub memory: MemoryMetrics,
    pub control: BranchSummary,
}

#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ComputeMetrics {
    /// Operation classes that cover 90 % of the dynamic instructions.
    pub opcode_diversity: u64,
    /// Dynamic instructions (one per work-item that executed an operation) by class, most
    /// frequent first.
    pub instruction_mix: Vec<(String, u64)>,
    pub total_instructions: u64,
    /// Mean instructions per memory instruction (load, store, atomic).
    pub freedom_to_reorder: f64,
    /// Memory instructions per work-item.
    pub resource_pressure: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ParallelismMetrics {
    pub work_items: u64,
    pub work_groups: u64,
    pub work_items_per_group: u64,
    pub barriers_hit: u64,
    pub instructions_to_barrier: Spread,
    pub instructions_per_work_item: Spread,
    /// Components per operation and work-item (`None` when nothing executed).
    pub simd_width: Option<SimdWidth>,
    pub granularity: f64,
    pub barriers_per_instruction: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct SimdWidth {
    pub max: u64,
    pub mean: f64,
    pub sd: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct MemoryMetrics {
    /// Accesses of global, local and constant memory, one per work-item and access.
    pub accesses: u64,
    pub total_footprint: u64,
    pub footprint_90: u64,
    pub unique_reads: u64,
    pub unique_writes: u64,
    pub total_reads: u64,
    pub total_writes: u64,
    pub rereads: f64,
    pub rewrites: f64,
    pub global_address_entropy: f64,
    /// Index `i` holds the entropy with `i + 1` low address bits skipped.
    pub local_address_entropy: Vec<f64>,
    pub relative_local_usage: f64,
    pub relative_constant_usage: f64,
    /// Index `n` holds the normalised parallel spatial locality with `n` bits dropped.
    pub parallel_spatial_locality: Vec<f64>,
}

/// Reads and writes of a share of the addresses (integers: shares add up exactly).
#[derive(Default)]
struct ReadWriteTally {
    unique_reads: u64,
    unique_writes: u64,
    total_reads: u64,
    total_writes: u64,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

pub(crate) fn summarise(
    o: &MetricsObserver,
    kernel: &str,
    psl: EntropyCurve,
    control: BranchSummary,
    threads: usize,
) -> KernelMetrics {
    let compat = o.mode == Mode::AiwcCompat;

    // Compute.
    let mut mix: Vec<(String, u64)> = OP_CLASSES
        .iter()
        .zip(o.instructions)
        .filter(|(_, n)| *n > 0)
        .map(|(c, n)| (format!("{c:?}"), n))
        .collect();
    mix.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let total_instructions: u64 = mix.iter().map(|(_, n)| n).sum();
    let memory_instructions: u64 = OP_CLASSES
        .iter()
        .zip(o.instructions)
        .filter(|(c, _)| {
            matches!(
                c,
                clmap_sim::OpClass::Load | clmap_sim::OpClass::Store | clmap_sim::OpClass::Atomic
            )
        })
        .map(|(_, n)| n)
        .sum();
    let compute = ComputeMetrics {
        opcode_diversity: items_covering(mix.iter().map(|(_, n)| *n), 0.9),
        instruction_mix: mix,
        total_instructions,
        freedom_to_reorder: ratio(total_instructions as f64, memory_instructions as f64),
        resource_pressure: ratio(memory_instructions as f64, o.work_items as f64),
    };

    // Parallelism.
    let barriers_hit = if compat { 0 } else { o.barriers_hit };
    let parallelism = ParallelismMetrics {
        work_items: o.work_items,
        work_groups: o.work_groups,
        work_items_per_group: o.max_group_lanes,
        barriers_hit,
        instructions_to_barrier: o.instructions_to_barrier.spread(compat),
        instructions_per_work_item: o.instructions_per_item.spread(compat),
        simd_width: o.simd_width.summary().map(|(max, mean, sd)| SimdWidth { max, mean, sd }),
        granularity: ratio(1.0, o.work_items as f64),
        barriers_per_instruction: if compat {
            // AIWC counts the end of each work-item as a barrier.
            ratio((barriers_hit + o.work_items) as f64, total_instructions as f64)
        } else {
            ratio(barriers_hit as f64, total_instructions as f64)
        },
    };

    // Memory.
    // The list is built in key order on the launch's threads (page order is key order).
    let (by_address, tallies) = o.addresses.sorted_on(
        threads,
        // An atomic is one access; AIWC sees a load and a store.
        |c| c.loads + c.stores + if compat { 2 * c.atomics } else { c.atomics },
        |t: &mut ReadWriteTally, c| {
            let reads = c.loads + c.atomics;
            let writes = c.stores + c.atomics;
            t.unique_reads += u64::from(reads > 0);
            t.unique_writes += u64::from(writes > 0);
            t.total_reads += reads;
            t.total_writes += writes;
        },
    );
    let (mut unique_reads, mut unique_writes, mut total_reads, mut total_writes) = (0, 0, 0, 0);
    for t in &tallies {
        unique_reads += t.unique_reads;
        unique_writes += t.unique_writes;
        total_reads += t.total_reads;
        total_writes += t.total_writes;
    }
    let accesses: u64 = by_address.iter().map(|(_, n)| n).sum();
    let curve = curve_of_sorted_counts_on(&by_address, Denominator::Total, threads);
    let round = |x: f64| if compat { f64::from(x as f32) } else { x };
    let all_spaces = (o.global_accesses + o.local_accesses + o.constant_accesses) as f64;
    let (labelled_reads, labelled_writes) =
        if compat { (unique_writes, unique_reads) } else { (unique_reads, unique_writes) };
    let memory = MemoryMetrics {
        accesses,
        total_footprint: by_address.len() as u64,
        footprint_90: items_covering(by_address.iter().map(|(_, n)| *n), 0.9),
        unique_reads: labelled_reads,
        unique_writes: labelled_writes,
        total_reads,
        total_writes,
        rereads: ratio(total_reads as f64, unique_reads as f64),
        rewrites: ratio(total_writes as f64, unique_writes as f64),
        global_address_entropy: round(curve[0]),
        local_address_entropy: curve[1..].iter().map(|e| round(*e)).collect(),
        relative_local_usage: ratio(o.local_accesses as f64, all_spaces),
        relative_constant_usage: ratio(o.constant_accesses as f64, all_spaces),
        parallel_spatial_locality: psl.to_vec(),
    };

    KernelMetrics {
        kernel: kernel.to_string(),
        mode: o.mode,
        compute,
        parallelism,
        memory,
        control,
    }
}
