//! The metrics observer: one per simulator thread, merged when the launch ends.

use crate::branches::{AiwcBranchAccumulator, BranchAccumulator};
use crate::counts::AddressCounts;
use crate::keys::metric_key;
use crate::psl::{AiwcPslAccumulator, PslAccumulator};
use crate::stats::{ValueHistogram, WidthMoments};
use crate::summary::{self, KernelMetrics};
use crate::Mode;
use clmap_lang::ir::{AddressSpace, FenceFlags};
use clmap_lang::Span;
use clmap_sim::{
    AccessBatch, AccessKind, AddressRun, GroupInfo, InstructionBatch, Mask, Observer, OpClass,
    Spent,
};

/// Every [`OpClass`], in the order instruction counts are kept.
pub const OP_CLASSES: [OpClass; 13] = [
    OpClass::IntegerArithmetic,
    OpClass::FloatArithmetic,
    OpClass::Comparison,
    OpClass::Conversion,
    OpClass::Move,
    OpClass::Address,
    OpClass::Load,
    OpClass::Store,
    OpClass::Atomic,
    OpClass::Builtin,
    OpClass::WorkItemQuery,
    OpClass::Control,
    OpClass::Other,
];

fn class_index(class: OpClass) -> usize {
    OP_CLASSES.iter().position(|c| *c == class).unwrap_or(OP_CLASSES.len() - 1)
}

/// Accesses of one address by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccessCounts {
    pub loads: u64,
    pub stores: u64,
    pub atomics: u64,
}

/// Collects every metric of one launch. Memory grows with the distinct addresses, branch
/// sites and branch histories seen (plus, in [`Mode::AiwcCompat`], one record per
/// work-group), never with the number of accesses.
#[derive(Debug)]
pub struct MetricsObserver {
    pub(crate) mode: Mode,
    pub(crate) instructions: [u64; OP_CLASSES.len()],
    pub(crate) addresses: AddressCounts,
    /// Lane accesses per address space: global, local, constant.
    pub(crate) global_accesses: u64,
    pub(crate) local_accesses: u64,
    pub(crate) constant_accesses: u64,
    psl: PslAccumulator,
    aiwc_psl: AiwcPslAccumulator,
    branches: BranchAccumulator,
    aiwc_branches: AiwcBranchAccumulator,
    pub(crate) work_items: u64,
    pub(crate) work_groups: u64,
    pub(crate) max_group_lanes: u64,
    pub(crate) barriers_hit: u64,
    pub(crate) instructions_to_barrier: ValueHistogram,
    pub(crate) instructions_per_item: ValueHistogram,
    /// Operand widths of the dynamic instructions (one sample per work-item and operation).
    pub(crate) simd_width: WidthMoments,
    /// The current group's index.
    group_index: u64,
    /// Per-lane instruction counts of the current group, see [`LaneCounts`].
    lane_counts: LaneCounts,
    /// Scratch for one batch's addresses and their metric keys, with lane counts.
    runs: Vec<AddressRun>,
    keyed: Vec<(u64, u64)>,
}

/// Exact instruction counts of each work-item of a group. An operation run by every lane is
/// counted once in `uniform`, so the common, converged case costs one addition; only
/// operations under divergence touch the per-lane counters.
#[derive(Debug, Default)]
struct LaneCounts {
    uniform: u64,
    extra: Vec<u64>,
    /// Each lane's count at its last barrier.
    interval_start: Vec<u64>,
}

impl LaneCounts {
    fn reset(&mut self, lanes: usize) {
        self.uniform = 0;
        self.extra.clear();
        self.extra.resize(lanes, 0);
        self.interval_start.clear();
        self.interval_start.resize(lanes, 0);
    }

    #[inline]
    fn count(&mut self, mask: &Mask) {
        if mask.is_full() && mask.lanes() == self.extra.len() {
            self.uniform += 1;
        } else {
            for lane in mask.iter() {
                if let Some(n) = self.extra.get_mut(lane) {
                    *n += 1;
                }
            }
        }
    }

    fn total(&self, lane: usize) -> u64 {
        self.uniform + self.extra.get(lane).copied().unwrap_or(0)
    }

    /// Ends the barrier interval of the lanes `lanes`: returns each one's instructions since
    /// its previous barrier (or the start).
    fn close_interval(&mut self, lanes: impl Iterator<Item = usize>, into: &mut ValueHistogram) {
        for lane in lanes {
            let total = self.total(lane);
            if let Some(start) = self.interval_start.get_mut(lane) {
                into.add(total - *start, 1);
                *start = total;
            }
        }
    }
}

impl MetricsObserver {
    pub fn new(mode: Mode) -> MetricsObserver {
        MetricsObserver {
            mode,
            instructions: [0; OP_CLASSES.len()],
            addresses: AddressCounts::default(),
            global_accesses: 0,
            local_accesses: 0,
            constant_accesses: 0,
            psl: PslAccumulator::default(),
            aiwc_psl: AiwcPslAccumulator::default(),
            branches: BranchAccumulator::default(),
            aiwc_branches: AiwcBranchAccumulator::default(),
            work_items: 0,
            work_groups: 0,
            max_group_lanes: 0,
            barriers_hit: 0,
            instructions_to_barrier: ValueHistogram::default(),
            instructions_per_item: ValueHistogram::default(),
            simd_width: WidthMoments::default(),
            group_index: 0,
            lane_counts: LaneCounts::default(),
            runs: Vec::new(),
            keyed: Vec::new(),
        }
    }

    /// The metrics of everything observed, for the kernel called `kernel`.
    pub fn finish(&self, kernel: &str) -> KernelMetrics {
        self.finish_on(kernel, 1)
    }

    /// [`Self::finish`], with the summary of a large launch shared out over up to `threads`
    /// threads (the metrics are the same for any number).
    pub fn finish_on(&self, kernel: &str, threads: usize) -> KernelMetrics {
        let psl = match self.mode {
            Mode::Clmap => self.psl.finish(),
            Mode::AiwcCompat => self.aiwc_psl.finish(),
        };
        let branches = match self.mode {
            Mode::Clmap => self.branches.finish(),
            Mode::AiwcCompat => self.aiwc_branches.finish(),
        };
        summary::summarise(self, kernel, psl, branches, threads)
    }
}

impl Observer for MetricsObserver {
    fn group_start(&mut self, group: &GroupInfo) {
        self.group_index = group.group_index;
        self.lane_counts.reset(group.lanes);
        self.work_groups += 1;
        self.work_items += group.lanes as u64;
        self.max_group_lanes = self.max_group_lanes.max(group.lanes as u64);
        match self.mode {
            Mode::Clmap => self.branches.group_start(),
            Mode::AiwcCompat => self.aiwc_psl.group_start(group.lanes),
        }
    }

    fn group_end(&mut self, group: &GroupInfo) {
        match self.mode {
            Mode::Clmap => {
                self.psl.group_end(group.lanes);
                self.lane_counts.close_interval(0..group.lanes, &mut self.instructions_to_barrier);
            }
            Mode::AiwcCompat => {
                self.aiwc_psl.group_end(group.group_index);
                self.aiwc_branches.group_end();
                // AIWC counts no barrier, so each work-item's whole run is one interval.
                for lane in 0..group.lanes {
                    self.instructions_to_barrier.add(self.lane_counts.total(lane), 1);
                }
            }
        }
        for lane in 0..group.lanes {
            self.instructions_per_item.add(self.lane_counts.total(lane), 1);
        }
    }

    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        let lanes = u64::from(batch.mask.count());
        match batch.space {
            AddressSpace::Private => return,
            AddressSpace::Global => self.global_accesses += lanes,
            AddressSpace::Local => self.local_accesses += lanes,
            AddressSpace::Constant => self.constant_accesses += lanes,
        }
        let mode = self.mode;
        let group = self.group_index;
        if mode == Mode::AiwcCompat {
            // AIWC's locality follows each work-item's own sequence of accesses: lane by lane.
            let key_of =
                |lane: usize| batch.addresses.get(lane).and_then(|a| metric_key(*a, group, mode));
            for lane in batch.mask.iter() {
                let Some(key) = key_of(lane) else { continue };
                self.addresses.add(key, batch.kind, 1);
                self.aiwc_psl.access(lane, key);
                if batch.kind == AccessKind::Atomic {
                    // AIWC sees an atomic as a load and a store.
                    self.aiwc_psl.access(lane, key);
                }
            }
            return;
        }
        // Every metric here counts accesses per address, so the batch is first reduced to
        // distinct addresses with their number of lanes.
        let mut runs = std::mem::take(&mut self.runs);
        batch.address_runs(&mut runs);
        let mut keyed = std::mem::take(&mut self.keyed);
        keyed.clear();
        keyed.extend(
            runs.iter().filter_map(|r| Some((metric_key(r.address, group, mode)?, r.lanes))),
        );
        for &(key, n) in &keyed {
            self.addresses.add(key, batch.kind, n);
        }
        self.psl.access_counted(batch.time, keyed.iter().copied());
        self.keyed = keyed;
        self.runs = runs;
    }

    fn instruction(&mut self, op: &InstructionBatch<'_>) {
        let lanes = u64::from(op.mask.count());
        if let Some(n) = self.instructions.get_mut(class_index(op.class)) {
            *n += lanes;
        }
        self.simd_width.add(u64::from(op.vector_width), lanes);
        self.lane_counts.count(op.mask);
    }

    fn branch(&mut self, span: Span, taken: &Mask, active: &Mask, _time: u64) {
        match self.mode {
            Mode::Clmap => self.branches.branch(span, taken, active),
            Mode::AiwcCompat => self.aiwc_branches.branch(span, taken, active),
        }
    }

    /// Every barrier closes an interval, whatever it fences: the metrics count
    /// synchronisation points, not memory ordering.
    fn barrier(
        &mut self,
        _span: Span,
        _fences: FenceFlags,
        active: &Mask,
        _group: &GroupInfo,
        _time: u64,
    ) {
        match self.mode {
            Mode::Clmap => {
                self.barriers_hit += u64::from(active.count());
                self.lane_counts.close_interval(active.iter(), &mut self.instructions_to_barrier);
            }
            Mode::AiwcCompat => {
                self.aiwc_psl.interval_end();
                self.aiwc_branches.interval_end();
            }
        }
    }

    fn merge(&mut self, other: Self) {
        // Everything the merge is done with is freed here, when `spent` goes.
        let mut spent = Spent::default();
        self.merge_keeping(other, &mut spent);
    }

    /// The pages of `other`'s access counts added into this observer's go to `spent`, and so
    /// does the rest of `other` (its locality curve cache, scratch vectors).
    fn merge_keeping(&mut self, mut other: Self, spent: &mut Spent) {
        for (a, b) in self.instructions.iter_mut().zip(other.instructions) {
            *a += b;
        }
        let mut pages = Vec::new();
        self.addresses.merge(std::mem::take(&mut other.addresses), &mut pages);
        spent.keep(pages);
        self.global_accesses += other.global_accesses;
        self.local_accesses += other.local_accesses;
        self.constant_accesses += other.constant_accesses;
        self.psl.merge(&other.psl);
        self.aiwc_psl.merge(std::mem::take(&mut other.aiwc_psl));
        self.branches.merge(std::mem::take(&mut other.branches));
        self.aiwc_branches.merge(std::mem::take(&mut other.aiwc_branches));
        self.work_items += other.work_items;
        self.work_groups += other.work_groups;
        self.max_group_lanes = self.max_group_lanes.max(other.max_group_lanes);
        self.barriers_hit += other.barriers_hit;
        self.instructions_to_barrier.merge(std::mem::take(&mut other.instructions_to_barrier));
        self.instructions_per_item.merge(std::mem::take(&mut other.instructions_per_item));
        self.simd_width.merge(other.simd_width);
        spent.keep(other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clmap_sim::memory::{buffer_base, region_base, LOCAL_REGION};

    fn group(index: u64) -> GroupInfo {
        GroupInfo {
            group_id: [index, 0, 0],
            group_index: index,
            local_size: [4, 1, 1],
            global_size: [8, 1, 1],
            global_offset: [0; 3],
            num_groups: [2, 1, 1],
            lanes: 4,
            first_lane: 0,
        }
    }

    fn access(
        o: &mut MetricsObserver,
        g: &GroupInfo,
        addresses: [u64; 4],
        mask: &Mask,
        space: AddressSpace,
        kind: AccessKind,
        time: u64,
    ) {
        o.memory_access(&AccessBatch {
            addresses: &addresses,
            size: 4,
            space,
            kind,
            mask,
            span: Span::UNDEFINED,
            time,
            object: None,
            group: g,
            unchanged: None,
            stored: None,
            align: 4,
            by_group: false,
        });
    }

    fn op(o: &mut MetricsObserver, class: OpClass, mask: &Mask, vector_width: u32, time: u64) {
        o.instruction(&InstructionBatch { class, mask, vector_width, time });
    }

    /// Group `index`: four lanes load words 0..3 of buffer 0, then all load word 0, then
    /// lanes 0 and 1 store local words 0 and 1, with a barrier before the store.
    fn run_group(o: &mut MetricsObserver, index: u64) {
        let g = group(index);
        let all = Mask::all(4);
        let b = buffer_base(0);
        let l = region_base(LOCAL_REGION);
        o.group_start(&g);
        op(o, OpClass::Load, &all, 1, 1);
        access(o, &g, [b, b + 4, b + 8, b + 12], &all, AddressSpace::Global, AccessKind::Load, 1);
        op(o, OpClass::Load, &all, 1, 2);
        access(o, &g, [b; 4], &all, AddressSpace::Global, AccessKind::Load, 2);
        o.barrier(Span::UNDEFINED, FenceFlags { local: true, global: false }, &all, &g, 3);
        let two = all.filter(|lane| lane < 2);
        op(o, OpClass::Store, &two, 1, 4);
        access(o, &g, [l, l + 4, 0, 0], &two, AddressSpace::Local, AccessKind::Store, 4);
        o.group_end(&g);
    }

    #[test]
    fn memory_metrics_of_a_hand_computed_trace() {
        let mut o = MetricsObserver::new(Mode::Clmap);
        run_group(&mut o, 0);
        let m = o.finish("k");
        let mem = &m.memory;
        // Buffer words 0..3 (word 0 read 5 times), local words 0 and 1 of group 0.
        assert_eq!((mem.accesses, mem.total_footprint), (10, 6));
        // 90 % of 10 = 9 accesses: 5 + 1 + 1 + 1 + 1.
        assert_eq!(mem.footprint_90, 5);
        assert_eq!((mem.unique_reads, mem.unique_writes), (4, 2));
        assert_eq!((mem.total_reads, mem.total_writes), (8, 2));
        assert_eq!((mem.rereads, mem.rewrites), (2.0, 1.0));
        // p = 1/2 once and 1/10 five times.
        let gmae = 0.5 + 5.0 * 0.1 * 10f64.log2();
        assert!((mem.global_address_entropy - gmae).abs() < 1e-12);
        assert!((mem.relative_local_usage - 0.2).abs() < 1e-12);
        assert_eq!(m.parallelism.barriers_hit, 4);
        assert_eq!(m.compute.total_instructions, 10);
        // Every instruction of the trace is a memory instruction.
        assert_eq!(m.compute.freedom_to_reorder, 1.0);
        assert_eq!(m.compute.resource_pressure, 2.5);
        // Instructions per work-item: lanes 0 and 1 ran 3, lanes 2 and 3 ran 2.
        let per_item = m.parallelism.instructions_per_work_item;
        assert_eq!((per_item.min, per_item.median, per_item.max), (2, 2.5, 3));
        // To the barrier every lane ran 2; after it lanes 0 and 1 ran 1, lanes 2 and 3 none.
        let to_barrier = m.parallelism.instructions_to_barrier;
        assert_eq!((to_barrier.min, to_barrier.max), (0, 2));
        // PSL steps: entropy 2 (four words), 0 (one word), 1 (two words) over log2(4) = 2.
        let psl = &mem.parallel_spatial_locality;
        assert!((psl[0] - 0.5).abs() < 1e-12, "{psl:?}");
    }

    #[test]
    fn aiwc_mode_keys_local_memory_onto_the_first_buffer_and_swaps_labels() {
        let mut o = MetricsObserver::new(Mode::AiwcCompat);
        run_group(&mut o, 0);
        run_group(&mut o, 1);
        let m = o.finish("k");
        // Local words 0 and 1 of both groups coincide with buffer words 0 and 1.
        assert_eq!(m.memory.total_footprint, 4);
        // Really 4 addresses read and 2 written; AIWC prints them the other way round.
        assert_eq!((m.memory.unique_reads, m.memory.unique_writes), (2, 4));
        assert_eq!(m.parallelism.barriers_hit, 0);
    }

    #[test]
    fn merging_threads_in_any_order_gives_the_same_metrics() {
        for mode in [Mode::Clmap, Mode::AiwcCompat] {
            let mut one = MetricsObserver::new(mode);
            run_group(&mut one, 0);
            run_group(&mut one, 1);
            let mut a = MetricsObserver::new(mode);
            let mut b = MetricsObserver::new(mode);
            run_group(&mut a, 1);
            run_group(&mut b, 0);
            a.merge(b);
            assert_eq!(one.finish("k"), a.finish("k"), "{mode:?}");
        }
    }

    #[test]
    fn simd_width_and_divergent_counts_are_per_work_item() {
        let mut o = MetricsObserver::new(Mode::Clmap);
        let g = group(0);
        let all = Mask::all(4);
        let first = all.filter(|lane| lane == 0);
        o.group_start(&g);
        // A float4 add by every lane, then three scalar operations by lane 0 only, then a
        // float2 operation by every lane.
        op(&mut o, OpClass::FloatArithmetic, &all, 4, 1);
        for t in 2..5 {
            op(&mut o, OpClass::IntegerArithmetic, &first, 1, t);
        }
        op(&mut o, OpClass::FloatArithmetic, &all, 2, 5);
        o.group_end(&g);
        let m = o.finish("k");
        // Samples: 4 x width 4, 3 x width 1, 4 x width 2: mean 27 / 11.
        let simd = m.parallelism.simd_width.expect("measured");
        assert_eq!(simd.max, 4);
        assert!((simd.mean - 27.0 / 11.0).abs() < 1e-12);
        let variance = (4.0 * 16.0 + 3.0 + 4.0 * 4.0) / 11.0 - (27.0f64 / 11.0).powi(2);
        assert!((simd.sd - variance.sqrt()).abs() < 1e-12);
        // Lane 0 ran 5 operations, the others 2: an average would say 3 for everyone.
        let per_item = m.parallelism.instructions_per_work_item;
        assert_eq!((per_item.min, per_item.median, per_item.max), (2, 2.0, 5));
        assert_eq!(m.compute.total_instructions, 11);
    }
}
