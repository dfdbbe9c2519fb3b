//! The plugin point of the simulator: observers see every memory access, instruction, branch
//! and barrier of a run, a whole lock-step instruction at a time.
//!
//! The interpreter is generic over its observer, so with [`NoObserver`] every hook is an empty
//! inlined call that the compiler removes: a run without observers pays nothing for them.
//!
//! Work-groups run on several threads. Each thread gets its own observer from an
//! [`ObserverFactory`]; when the launch ends the per-thread observers are merged. Which groups a
//! thread ran depends on scheduling, so `merge` must not depend on the order of merging (sum
//! counters, union sets, keep minima) for results to be the same on 1 and N threads.

use crate::mask::Mask;
use crate::report::Report;
use crate::spent::Spent;
use clmap_lang::ir::{AddressSpace, FenceFlags, Scalar};
use clmap_lang::Span;

/// What an access does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Load,
    Store,
    /// A read-modify-write atomic operation (it both reads and writes).
    Atomic,
}

/// Coarse class of an executed operation, for instruction mixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpClass {
    IntegerArithmetic,
    FloatArithmetic,
    Comparison,
    Conversion,
    /// Moves, constants, swizzles, vector construction.
    Move,
    /// Address computation.
    Address,
    Load,
    Store,
    Atomic,
    /// Calls of math, integer, geometric and relational built-ins.
    Builtin,
    WorkItemQuery,
    Control,
    Other,
}

/// The work-group being run and its place in the NDRange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupInfo {
    pub group_id: [u64; 3],
    /// Linear index of the group (x fastest).
    pub group_index: u64,
    pub local_size: [u64; 3],
    pub global_size: [u64; 3],
    pub global_offset: [u64; 3],
    pub num_groups: [u64; 3],
    /// Work-items run together: the whole group, or one piece of it (see `first_lane`).
    pub lanes: usize,
    /// The group's lane that lane 0 of this run is. 0 unless the group's work-items are
    /// independent (no barrier, local memory, atomics, `printf` or async copies) and nothing
    /// observes the run: the simulator then runs such a group in pieces on several threads.
    pub first_lane: usize,
}

impl GroupInfo {
    /// Work-items of this group in each dimension (`get_local_size`): the launch's local size
    /// (`get_enqueued_local_size`), except in a partial last group of an OpenCL C 2.0 launch
    /// whose global size the local size does not divide.
    pub fn group_size(&self) -> [u64; 3] {
        std::array::from_fn(|d| {
            let start = self.group_id[d].saturating_mul(self.local_size[d]);
            self.local_size[d].min(self.global_size[d].saturating_sub(start)).max(1)
        })
    }

    /// Whether the group has fewer work-items than the launch's local size.
    pub fn is_partial(&self) -> bool {
        self.group_size() != self.local_size
    }

    /// Local id of a lane (lanes count x fastest).
    pub fn local_id(&self, lane: usize) -> [u64; 3] {
        let lane = (self.first_lane + lane) as u64;
        let lx = self.local_size[0].max(1);
        let ly = self.local_size[1].max(1);
        [lane % lx, (lane / lx) % ly, lane / (lx * ly)]
    }

    /// Global id of a lane.
    pub fn global_id(&self, lane: usize) -> [u64; 3] {
        let l = self.local_id(lane);
        let mut g = [0u64; 3];
        for d in 0..3 {
            g[d] = self.group_id[d] * self.local_size[d] + l[d] + self.global_offset[d];
        }
        g
    }
}

/// One lock-step memory instruction: the accesses of every active lane.
#[derive(Clone, Copy, Debug)]
pub struct AccessBatch<'a> {
    /// Address accessed by each lane, indexed by lane; only lanes in `mask` are meaningful.
    /// See [`crate::memory`] for the layout of the address space.
    pub addresses: &'a [u64],
    /// Bytes accessed by each lane.
    pub size: u32,
    /// Address space from the pointer's type.
    pub space: AddressSpace,
    pub kind: AccessKind,
    pub mask: &'a Mask,
    pub span: Span,
    /// Logical time: the work-group's instruction counter, the same for every lane.
    pub time: u64,
    /// The variable or parameter the address derives from, when the compiler could tell.
    pub object: Option<&'a str>,
    pub group: &'a GroupInfo,
    /// For atomics: the lanes whose operation left memory as it was (an `atomic_cmpxchg`
    /// whose comparison failed). They only read, so checkers must not count them as writes.
    pub unchanged: Option<&'a Mask>,
    /// For plain stores: the values written, so checkers can tell a race between work-items
    /// storing the same value (a flag every work-item sets to 1) from one that loses data.
    /// For atomic operations: the values they read (Oclgrind compares those), except that a
    /// compare-and-exchange that succeeded gives the value it wrote. `None` where
    /// the simulator does not pass them (copies, built-ins).
    pub stored: Option<StoredValues<'a>>,
    /// The alignment the pointed-to type requires (a power of two), for loads and stores of
    /// a typed value (1 where it needs no check: packed members, elements of private
    /// variables); 0 for copies of whole objects and built-ins such as `vload4` that need
    /// only element alignment.
    pub align: u32,
    /// The work-group makes the access as a whole (an async copy), not the work-items of
    /// `mask` each: it races with any work-item's access (`mask` holds the lane it is
    /// reported for).
    pub by_group: bool,
}

/// Work-items of one batch that access one address: `lanes` of them, the lowest `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressRun {
    pub address: u64,
    pub first: usize,
    pub lanes: u64,
}

impl AccessBatch<'_> {
    /// The active lanes' addresses as [`AddressRun`]s, so that observers can do their work
    /// once per address instead of once per lane: runs of neighbouring lanes at one address
    /// are taken together, and when every row of the group (the lanes of one local y and z)
    /// accesses what the first row does, as in a 2-D group where an address depends on the
    /// local x id only, the first row's runs stand for all rows. An address may still appear
    /// in several runs (lanes apart that access it); `out` is cleared first.
    pub fn address_runs(&self, out: &mut Vec<AddressRun>) {
        out.clear();
        let addresses = self.addresses;
        let lanes = addresses.len();
        if self.mask.lanes() == lanes && self.mask.is_full() {
            let row = usize::try_from(self.group.local_size[0]).unwrap_or(0);
            let rows = row > 0 && row < lanes && lanes.is_multiple_of(row);
            let (scanned, repeat) = if rows && addresses.get(row..) == addresses.get(..lanes - row)
            {
                (&addresses[..row], (lanes / row) as u64)
            } else {
                if rows && uniform_rows(addresses, row, out) {
                    return;
                }
                (addresses, 1)
            };
            // Run by run: the inner scan is a tight comparison loop.
            let mut first = 0;
            while let Some(&address) = scanned.get(first) {
                let end = scanned[first..]
                    .iter()
                    .position(|a| *a != address)
                    .map_or(scanned.len(), |n| first + n);
                out.push(AddressRun { address, first, lanes: (end - first) as u64 * repeat });
                first = end;
            }
        } else {
            for lane in self.mask.iter() {
                let Some(&address) = addresses.get(lane) else { continue };
                match out.last_mut() {
                    Some(last) if last.address == address => last.lanes += 1,
                    _ => out.push(AddressRun { address, first: lane, lanes: 1 }),
                }
            }
        }
    }
}

/// When every row of `row` lanes accesses one address (in a 2-D group, an address that
/// depends on the local y id only), pushes the runs [`AccessBatch::address_runs`] finds, a row
/// or several equal neighbouring rows each, and returns true; otherwise leaves `out` empty.
/// Testing a row is a branch-free pass the compiler vectorises, where finding the end of each
/// run lane by lane mispredicts once per run.
fn uniform_rows(addresses: &[u64], row: usize, out: &mut Vec<AddressRun>) -> bool {
    let uniform = addresses.chunks_exact(row).all(|lanes| {
        let first = lanes[0];
        lanes.iter().fold(0, |differ, a| differ | (a ^ first)) == 0
    });
    if !uniform {
        return false;
    }
    for (i, lanes) in addresses.chunks_exact(row).enumerate() {
        match out.last_mut() {
            Some(last) if last.address == lanes[0] => last.lanes += row as u64,
            _ => out.push(AddressRun { address: lanes[0], first: i * row, lanes: row as u64 }),
        }
    }
    true
}

/// The values of a lock-step store, as the registers hold them.
#[derive(Clone, Copy, Debug)]
pub struct StoredValues<'a> {
    /// Component `c` of lane `l` at `c * lanes + l`; components are laid out in memory one
    /// after another from the batch's address.
    pub regs: &'a [u64],
    pub lanes: usize,
    pub scalar: Scalar,
}

impl StoredValues<'_> {
    /// `len` (1 to 4) bytes of the stored data of `lane` from byte `at` of its access,
    /// little-endian, as memory holds them.
    #[inline]
    pub fn bytes(&self, lane: usize, at: u64, len: u32) -> u32 {
        let size = u64::from(self.scalar.size()).max(1);
        let component = |c: u64| {
            let raw = self.regs.get(c as usize * self.lanes + lane).copied().unwrap_or(0);
            crate::value::to_memory(self.scalar, raw)
        };
        let within = at % size;
        if within + u64::from(len) <= size {
            let word = component(at / size) >> (8 * within);
            return if len >= 4 { word as u32 } else { (word & ((1 << (8 * len)) - 1)) as u32 };
        }
        let mut value = 0u32;
        for i in 0..u64::from(len.min(4)) {
            let byte = at + i;
            let b = (component(byte / size) >> (8 * (byte % size))) & 0xff;
            value |= (b as u32) << (8 * i);
        }
        value
    }
}

/// One lock-step operation (arithmetic, comparison, conversion, move, address computation,
/// memory instruction, built-in call) executed by the lanes of `mask`.
#[derive(Clone, Copy, Debug)]
pub struct InstructionBatch<'a> {
    pub class: OpClass,
    /// The lanes that executed it, so per-work-item counts are exact under divergence.
    pub mask: &'a Mask,
    /// Components each lane operates on: 1 for scalar operations, `n` for operations on
    /// `n`-component vectors (for a built-in call, its widest argument or result).
    pub vector_width: u32,
    /// Logical time: the work-group's instruction counter.
    pub time: u64,
}

/// Receives events of a run. Every method has an empty default.
pub trait Observer: Send {
    /// True only for an observer whose every hook does nothing ([`NoObserver`]): the
    /// simulator may then split a work-group whose work-items are independent into pieces
    /// run on several threads, which an observer would see as separate groups.
    const OBSERVES_NOTHING: bool = false;
    fn group_start(&mut self, _group: &GroupInfo) {}
    fn group_end(&mut self, _group: &GroupInfo) {}
    /// A memory instruction executed over the lanes of `batch.mask`.
    fn memory_access(&mut self, _batch: &AccessBatch<'_>) {}
    /// An operation executed over the lanes of `op.mask`.
    fn instruction(&mut self, _op: &InstructionBatch<'_>) {}
    /// A branch (if, loop test, `?:`, `&&`, `||`, switch): `taken` holds, among `active`, the
    /// lanes that took the branch (entered the body, chose the first operand).
    fn branch(&mut self, _span: Span, _taken: &Mask, _active: &Mask, _time: u64) {}
    /// A barrier executed by the lanes of `active`; `fences` says which address spaces it
    /// orders (`barrier(CLK_LOCAL_MEM_FENCE)` orders local memory only).
    fn barrier(
        &mut self,
        _span: Span,
        _fences: FenceFlags,
        _active: &Mask,
        _group: &GroupInfo,
        _time: u64,
    ) {
    }
    /// Absorbs the state of another thread's observer (order-independent, see module docs).
    fn merge(&mut self, _other: Self)
    where
        Self: Sized,
    {
    }
    /// As [`Observer::merge`], free to use up to `threads` threads, for callers that merge
    /// observers with threads to spare (see [`crate::paged::merge_pages`]). A launch calls
    /// [`Observer::merge_keeping`]: its threads merge as they finish, each merge on one of
    /// them.
    fn merge_on(&mut self, other: Self, threads: usize)
    where
        Self: Sized,
    {
        let _ = threads;
        self.merge(other);
    }
    /// As [`Observer::merge`], but what the merge is done with (pages of `other`'s tables
    /// added into this observer's, caches only `other` used) goes to `spent` instead of being
    /// freed here: a launch merges with this and frees `spent` after its last merge, on a
    /// thread of its own (see [`crate::spent`]). An observer with large tables overrides it.
    fn merge_keeping(&mut self, other: Self, spent: &mut Spent)
    where
        Self: Sized,
    {
        let _ = spent;
        self.merge(other);
    }
    /// Hands over the findings collected so far (checkers).
    fn take_reports(&mut self) -> Vec<Report> {
        Vec::new()
    }
}

/// The observer that observes nothing; every hook compiles away.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    const OBSERVES_NOTHING: bool = true;
}

/// Makes one observer per thread.
pub trait ObserverFactory: Sync {
    type Observer: Observer;
    fn create(&self) -> Self::Observer;
}

impl<O: Observer, F: Fn() -> O + Sync> ObserverFactory for F {
    type Observer = O;
    fn create(&self) -> O {
        self()
    }
}

/// Two observers side by side.
impl<A: Observer, B: Observer> Observer for (A, B) {
    const OBSERVES_NOTHING: bool = A::OBSERVES_NOTHING && B::OBSERVES_NOTHING;
    #[inline]
    fn group_start(&mut self, group: &GroupInfo) {
        self.0.group_start(group);
        self.1.group_start(group);
    }
    #[inline]
    fn group_end(&mut self, group: &GroupInfo) {
        self.0.group_end(group);
        self.1.group_end(group);
    }
    #[inline]
    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        self.0.memory_access(batch);
        self.1.memory_access(batch);
    }
    #[inline]
    fn instruction(&mut self, op: &InstructionBatch<'_>) {
        self.0.instruction(op);
        self.1.instruction(op);
    }
    #[inline]
    fn branch(&mut self, span: Span, taken: &Mask, active: &Mask, time: u64) {
        self.0.branch(span, taken, active, time);
        self.1.branch(span, taken, active, time);
    }
    #[inline]
    fn barrier(
        &mut self,
        span: Span,
        fences: FenceFlags,
        active: &Mask,
        group: &GroupInfo,
        time: u64,
    ) {
        self.0.barrier(span, fences, active, group, time);
        self.1.barrier(span, fences, active, group, time);
    }
    fn merge(&mut self, other: Self) {
        self.0.merge(other.0);
        self.1.merge(other.1);
    }
    fn merge_on(&mut self, other: Self, threads: usize) {
        self.0.merge_on(other.0, threads);
        self.1.merge_on(other.1, threads);
    }
    fn merge_keeping(&mut self, other: Self, spent: &mut Spent) {
        self.0.merge_keeping(other.0, spent);
        self.1.merge_keeping(other.1, spent);
    }
    fn take_reports(&mut self) -> Vec<Report> {
        let mut r = self.0.take_reports();
        r.extend(self.1.take_reports());
        r
    }
}

/// An observer that may be switched off at run time (checkers chosen by options).
impl<O: Observer> Observer for Option<O> {
    const OBSERVES_NOTHING: bool = O::OBSERVES_NOTHING;
    #[inline]
    fn group_start(&mut self, group: &GroupInfo) {
        if let Some(o) = self {
            o.group_start(group)
        }
    }
    #[inline]
    fn group_end(&mut self, group: &GroupInfo) {
        if let Some(o) = self {
            o.group_end(group)
        }
    }
    #[inline]
    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        if let Some(o) = self {
            o.memory_access(batch)
        }
    }
    #[inline]
    fn instruction(&mut self, op: &InstructionBatch<'_>) {
        if let Some(o) = self {
            o.instruction(op)
        }
    }
    #[inline]
    fn branch(&mut self, span: Span, taken: &Mask, active: &Mask, time: u64) {
        if let Some(o) = self {
            o.branch(span, taken, active, time)
        }
    }
    #[inline]
    fn barrier(
        &mut self,
        span: Span,
        fences: FenceFlags,
        active: &Mask,
        group: &GroupInfo,
        time: u64,
    ) {
        if let Some(o) = self {
            o.barrier(span, fences, active, group, time)
        }
    }
    fn merge(&mut self, other: Self) {
        self.merge_on(other, 1);
    }
    fn merge_on(&mut self, other: Self, threads: usize) {
        match (self.as_mut(), other) {
            (Some(a), Some(b)) => a.merge_on(b, threads),
            (None, Some(b)) => *self = Some(b),
            _ => {}
        }
    }
    fn merge_keeping(&mut self, other: Self, spent: &mut Spent) {
        match (self.as_mut(), other) {
            (Some(a), Some(b)) => a.merge_keeping(b, spent),
            (None, Some(b)) => *self = Some(b),
            _ => {}
        }
    }
    fn take_reports(&mut self) -> Vec<Report> {
        self.as_mut().map(|o| o.take_reports()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Maximal runs of equal neighbouring addresses over every lane, without the shortcuts.
    fn lane_by_lane(addresses: &[u64]) -> Vec<AddressRun> {
        let mut out: Vec<AddressRun> = Vec::new();
        for (lane, &address) in addresses.iter().enumerate() {
            match out.last_mut() {
                Some(last) if last.address == address => last.lanes += 1,
                _ => out.push(AddressRun { address, first: lane, lanes: 1 }),
            }
        }
        out
    }

    fn runs_of(addresses: &[u64], local: [u64; 3]) -> Vec<AddressRun> {
        let lanes = addresses.len();
        let group = GroupInfo {
            group_id: [0; 3],
            group_index: 0,
            local_size: local,
            global_size: local,
            global_offset: [0; 3],
            num_groups: [1; 3],
            lanes,
            first_lane: 0,
        };
        let mask = Mask::all(lanes);
        let batch = AccessBatch {
            addresses,
            size: 4,
            space: AddressSpace::Global,
            kind: AccessKind::Load,
            mask: &mask,
            span: Span::UNDEFINED,
            time: 0,
            object: None,
            group: &group,
            unchanged: None,
            stored: None,
            align: 4,
            by_group: false,
        };
        let mut out = vec![AddressRun { address: 1, first: 9, lanes: 9 }];
        batch.address_runs(&mut out);
        out
    }

    #[test]
    fn rows_of_one_address_give_the_runs_of_a_lane_by_lane_scan() {
        // 8 x 4 lanes: one address per row (by local y), rows 1 and 2 alike, so they make
        // one run.
        let by_row: Vec<u64> = (0..32u64).map(|l| [40, 80, 80, 120][(l / 8) as usize]).collect();
        let runs = runs_of(&by_row, [8, 4, 1]);
        assert_eq!(runs, lane_by_lane(&by_row));
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[1], AddressRun { address: 80, first: 8, lanes: 16 });
    }

    #[test]
    fn a_row_of_two_addresses_takes_the_lane_by_lane_scan() {
        let mut mixed: Vec<u64> = (0..32u64).map(|l| 1000 + 4 * (l / 8)).collect();
        mixed[13] = 7;
        assert_eq!(runs_of(&mixed, [8, 4, 1]), lane_by_lane(&mixed));
        let all_lanes: Vec<u64> = (0..32u64).map(|l| 4 * l).collect();
        assert_eq!(runs_of(&all_lanes, [8, 4, 1]), lane_by_lane(&all_lanes));
    }

    #[test]
    fn repeated_rows_are_scanned_once() {
        // An address from the local x id only: the first row's runs stand for all four rows.
        let by_column: Vec<u64> = (0..32u64).map(|l| (l % 8) / 2 * 4).collect();
        let runs = runs_of(&by_column, [8, 4, 1]);
        let expected: Vec<AddressRun> = (0..4u64)
            .map(|i| AddressRun { address: 4 * i, first: 2 * i as usize, lanes: 8 })
            .collect();
        assert_eq!(runs, expected);
    }
}
