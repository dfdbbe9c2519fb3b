//! The optional checkers, built on the observer interface: data races within a barrier
//! interval (local and global memory, inside one work-group) and between work-groups.
//! Out-of-bounds accesses, barrier divergence and undefined values (see [`crate::uninit`]) are
//! checked by the executor itself.

use std::sync::Arc;

use clmap_lang::ir::{AddressSpace, FenceFlags};
use clmap_lang::Span;

use crate::exec::LaunchPlan;
use crate::launch::SimOptions;
use crate::memory::{decode, HostAccess, MappedRegion, Target};
use crate::observer::{AccessBatch, AccessKind, AddressRun, GroupInfo, Observer};
use crate::oclgrind_races::OclgrindRaces;
use crate::report::{Report, ReportKind, ReportSink};
use crate::shadow::{
    combine_groups, CellState, FirstStore, RegionShadow, StoredValue, AGREED, MANY_GROUPS,
    MANY_LANES,
};
use crate::Mask;

/// The checkers a launch's options switch on, as one observer, and the checks always made
/// ([`MemCheck`]).
#[derive(Debug, Default)]
pub(crate) struct Checkers {
    race: Option<RaceChecker>,
    info: Option<LaunchInfo>,
    mem: MemCheck,
}

/// What the cross-work-group check needs to name groups and buffers.
#[derive(Clone, Debug)]
pub(crate) struct LaunchInfo {
    names: Vec<String>,
    template: GroupInfo,
}

impl LaunchInfo {
    fn group(&self, index: u64) -> GroupInfo {
        let n = self.template.num_groups;
        let (nx, ny) = (n[0].max(1), n[1].max(1));
        GroupInfo {
            group_id: [index % nx, (index / nx) % ny, index / (nx * ny)],
            group_index: index,
            ..self.template.clone()
        }
    }
}

impl Checkers {
    pub(crate) fn new(options: &SimOptions, plan: &LaunchPlan<'_>) -> Checkers {
        Checkers {
            race: options.check_races.then(|| {
                let sizes: Vec<u64> = plan.buffers.iter().map(|b| b.len()).collect();
                let mut race = RaceChecker::new(plan.local_size_bytes, &sizes);
                race.names = ObjectNames::of(plan);
                race.reports = ReportSink::new(options.report_every_work_item);
                race.oclgrind = options
                    .report_every_work_item
                    .then(|| OclgrindRaces::new(plan.local_size_bytes, &sizes, plan.group_info(0)));
                race
            }),
            info: options.check_races.then(|| LaunchInfo {
                names: plan.buffers.iter().map(|b| b.name.to_string()).collect(),
                template: plan.group_info(0),
            }),
            mem: MemCheck::new(plan, options.report_every_work_item),
        }
    }

    /// Absorbs another thread's checkers.
    pub(crate) fn merge(&mut self, other: Checkers) {
        match (&mut self.race, other.race) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.race = Some(b),
            _ => {}
        }
        self.mem.reports.merge(other.mem.reports);
    }

    /// Whether the checkers keep per-address tables (the race shadow), which take a while to
    /// free on a large launch.
    pub(crate) fn holds_tables(&self) -> bool {
        self.race.is_some()
    }

    /// All findings, including the launch-wide ones (call after merging every thread's).
    pub(crate) fn finish(&mut self) -> Vec<Report> {
        let mut out = self.take_reports();
        if let (Some(r), Some(info)) = (&mut self.race, &self.info) {
            if let Some(model) = &mut r.oclgrind {
                let names = &r.names;
                let name = |addr: u64, size: u64| names.element(addr, size);
                out.extend(model.between_groups(&name));
            } else {
                out.extend(r.cross_group_reports(info));
            }
        }
        out
    }
}

impl Observer for Checkers {
    #[inline]
    fn group_start(&mut self, group: &GroupInfo) {
        if let Some(r) = &mut self.race {
            r.group_start(group);
        }
    }
    #[inline]
    fn group_end(&mut self, group: &GroupInfo) {
        if let Some(r) = &mut self.race {
            if let Some(model) = &mut r.oclgrind {
                let names = &r.names;
                let name = |addr: u64, size: u64| names.element(addr, size);
                model.group_end(group, &name, &mut r.reports);
            }
        }
    }
    #[inline]
    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        self.mem.memory_access(batch);
        if let Some(r) = &mut self.race {
            r.memory_access(batch);
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
        if let Some(r) = &mut self.race {
            r.barrier(span, fences, active, group, time);
        }
    }
    fn take_reports(&mut self) -> Vec<Report> {
        let mut out = std::mem::take(&mut self.mem.reports).into_sorted();
        if let Some(r) = &mut self.race {
            let every = r.reports.every_work_item();
            out.extend(std::mem::replace(&mut r.reports, ReportSink::new(every)).into_sorted());
        }
        out
    }
}

fn report_for(
    group: &GroupInfo,
    time: u64,
    kind: ReportKind,
    span: Span,
    lane: usize,
    message: String,
    object: Option<String>,
) -> Report {
    Report {
        kind,
        message,
        span,
        global_id: group.global_id(lane),
        local_id: group.local_id(lane),
        group_id: group.group_id,
        object,
        occurrences: 1,
        group_index: group.group_index,
        lane: (group.first_lane + lane) as u32,
        time,
        sync: 0,
        entities: None,
        access: None,
    }
}

/// Largest work-group the race checker follows: lanes are stored in 16 bits (see
/// [`CellState`]), so larger groups are not checked for races.
pub(crate) const MAX_RACE_LANES: usize = MANY_LANES as usize - 1;

/// Detects two work-items of a group touching the same bytes, at least one writing, with no
/// barrier between that fences that memory (atomics do not race with atomics), and, for
/// global memory, two work-groups of the launch doing so.
///
/// Each region (local memory, every global buffer) has a [`RegionShadow`]; an interval is an
/// epoch number stamped on the cells, so starting one clears nothing. Local and global memory
/// count their intervals apart: `barrier(CLK_LOCAL_MEM_FENCE)` orders local memory only and
/// `barrier(CLK_GLOBAL_MEM_FENCE)` global memory only (OpenCL 1.2, section 6.12.8), so a
/// barrier starts a new interval only in the spaces it fences.
#[derive(Debug)]
struct RaceChecker {
    local_epoch: u16,
    global_epoch: u16,
    local: RegionShadow,
    buffers: Vec<RegionShadow>,
    /// Addresses whose bytes are known to be read by several lanes and written by none in
    /// this interval: loads of them change nothing. Valid while the stamp matches.
    shared_reads: [(u64, u32); SHARED_READ_SLOTS],
    /// The same knowledge per local x position (when the group's x size is a power of two):
    /// in 2-D groups the work-items of one column often load one element, row after row, and
    /// a direct slot cannot collide the way the hashed cache does.
    columns: Vec<(u64, u32)>,
    stamp: u32,
    reports: ReportSink,
    /// In Oclgrind's layout: races found and reported as Oclgrind does, instead of by the
    /// shadow.
    oclgrind: Option<OclgrindRaces>,
    /// Scratch for one batch's addresses.
    runs: Vec<AddressRun>,
    /// What the launch's memory holds, to name the element a race is on.
    names: ObjectNames,
    /// Per buffer, the size of the narrowest plain store to it (0: none yet): the element a
    /// race between work-groups is named by.
    store_sizes: Vec<u32>,
}

/// The names of the launch's memory objects: buffers by index, and where each `__local`
/// variable and `__local` pointer argument starts in the work-group's local memory.
#[derive(Clone, Debug, Default)]
struct ObjectNames {
    buffers: Vec<String>,
    /// (first byte, name), by first byte.
    local: Vec<(u64, String)>,
}

impl ObjectNames {
    fn of(plan: &LaunchPlan<'_>) -> ObjectNames {
        let mut local: Vec<(u64, String)> =
            plan.program.local_objects.iter().map(|o| (o.offset, o.name.clone())).collect();
        for (param, value) in plan.program.params.iter().zip(&plan.param_values) {
            if param.pointer_space != Some(AddressSpace::Local) {
                continue;
            }
            if let crate::exec::ParamValue::Components(values) = value {
                if let Some(Target::Local { offset }) = values.first().map(|a| decode(*a)) {
                    local.push((offset, param.name.clone()));
                }
            }
        }
        local.sort_by_key(|(offset, _)| *offset);
        ObjectNames { buffers: plan.buffers.iter().map(|b| b.name.to_string()).collect(), local }
    }

    /// The element `size` bytes at `addr` are, as the kernel indexes it in the object the
    /// address falls in (`a[12]`), or its byte offset when the access is not one element.
    fn element(&self, addr: u64, size: u64) -> Option<String> {
        let (name, offset) = match decode(addr) {
            Target::Buffer { index, offset } => (self.buffers.get(index)?, offset),
            Target::Local { offset } => {
                let (start, name) = self.local.iter().rev().find(|(s, _)| *s <= offset)?;
                (name, offset - start)
            }
            _ => return None,
        };
        Some(if size > 0 && offset % size == 0 {
            format!("`{name}[{}]`", offset / size)
        } else {
            format!("byte {offset} of `{name}`")
        })
    }
}

const SHARED_READ_SLOTS: usize = 64;

/// The narrower of two store sizes, 0 standing for none.
fn narrower(a: u32, b: u32) -> u32 {
    match (a, b) {
        (0, x) | (x, 0) => x,
        (a, b) => a.min(b),
    }
}

#[inline(always)]
fn slot_of(addr: u64) -> usize {
    (addr.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % SHARED_READ_SLOTS
}

/// Whether every cell is read by several lanes and written by none.
#[inline(always)]
fn shared_read_only(cells: &[CellState], epoch: u16) -> bool {
    cells
        .iter()
        .all(|c| c.epoch == epoch && c.reader == MANY_LANES && c.writer == 0 && c.atomic == 0)
}

/// The conflict an access found: what happened and the other lane (`lane + 1` or
/// [`MANY_LANES`]).
type Conflict = (&'static str, u16);

/// What a store found when every work-item that stored to the bytes stored the same value:
/// whichever wins, memory ends up the same, so Oclgrind does not call it a race.
const SAME_VALUE: &str = "write after write of the same value";

/// Keeps the conflict to report: the first one, unless a later one loses data and the kept
/// one does not.
#[inline(always)]
fn prefer(kept: Option<Conflict>, new: Option<Conflict>) -> Option<Conflict> {
    match (kept, new) {
        (None, n) => n,
        (Some((SAME_VALUE, _)), Some(n)) if n.0 != SAME_VALUE => Some(n),
        (k, _) => k,
    }
}

/// Checks one access against the cells it covers and marks them. For stores, `values` holds
/// the cells' stored-value records and `value_of(i)` the data this access stores to cell `i`
/// (`None` when not known: then it cannot be told to be the same as another's).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn check_cells(
    cells: &mut [CellState],
    mut values: Option<&mut [StoredValue]>,
    value_of: impl Fn(usize) -> Option<u32>,
    kind: AccessKind,
    me: u16,
    epoch: u16,
    group: u32,
    reads_only: bool,
) -> Option<Conflict> {
    let other = |who: u16| who != 0 && who != me;
    let mut found = None;
    for (i, state) in cells.iter_mut().enumerate() {
        state.enter_epoch(epoch);
        if group != 0 {
            match kind {
                AccessKind::Load => state.group_reader = combine_groups(state.group_reader, group),
                AccessKind::Store => state.group_writer = combine_groups(state.group_writer, group),
                AccessKind::Atomic => {}
            }
        }
        let conflict = match kind {
            AccessKind::Load => {
                let c = if other(state.writer) || other(state.atomic) {
                    Some(("read after write", state.writer.max(state.atomic)))
                } else {
                    None
                };
                if state.reader != me {
                    state.reader = if state.reader == 0 { me } else { MANY_LANES };
                }
                c
            }
            AccessKind::Store => {
                let value = value_of(i);
                let record = values.as_deref_mut().and_then(|v| v.get_mut(i));
                let c = if other(state.atomic) {
                    Some(("write after write", state.atomic))
                } else if other(state.writer) {
                    let same = match (&record, value) {
                        (Some(r), Some(v)) => r.interval_known && r.interval == v,
                        _ => false,
                    };
                    Some((if same { SAME_VALUE } else { "write after write" }, state.writer))
                } else if other(state.reader) {
                    Some(("write after read", state.reader))
                } else {
                    None
                };
                if let Some(r) = record {
                    // The interval's value is the first writer's, or the latest of a lane
                    // that has stored alone so far.
                    if state.writer == 0 || state.writer == me {
                        r.interval = value.unwrap_or(0);
                        r.interval_known = value.is_some();
                    }
                    if group != 0 {
                        r.note_launch_store(value);
                    }
                }
                if state.writer != me {
                    state.writer = if state.writer == 0 { me } else { MANY_LANES };
                }
                c
            }
            // A failed compare-and-exchange only read: it races with plain writes, but it
            // leaves no mark that later plain reads would take for a write. (A plain write
            // after it by another work-item goes unnoticed: cells keep no atomic readers.)
            AccessKind::Atomic if reads_only => {
                if other(state.writer) {
                    Some(("atomic read after write", state.writer))
                } else {
                    None
                }
            }
            AccessKind::Atomic => {
                let c = if other(state.writer) {
                    Some(("atomic after write", state.writer))
                } else if other(state.reader) {
                    Some(("atomic after read", state.reader))
                } else {
                    None
                };
                if state.atomic != me {
                    state.atomic = if state.atomic == 0 { me } else { MANY_LANES };
                }
                c
            }
        };
        found = prefer(found, conflict);
    }
    found
}

impl RaceChecker {
    fn new(local_bytes: u64, buffer_bytes: &[u64]) -> Self {
        RaceChecker {
            local_epoch: 1,
            global_epoch: 1,
            local: RegionShadow::new(local_bytes, false),
            buffers: buffer_bytes.iter().map(|len| RegionShadow::new(*len, true)).collect(),
            shared_reads: [(0, 0); SHARED_READ_SLOTS],
            columns: Vec::new(),
            stamp: 1,
            reports: ReportSink::default(),
            oclgrind: None,
            runs: Vec::new(),
            names: ObjectNames::default(),
            store_sizes: vec![0; buffer_bytes.len()],
        }
    }

    fn group_start(&mut self, _group: &GroupInfo) {
        if let Some(model) = &mut self.oclgrind {
            model.group_start();
            return;
        }
        self.next_interval(FenceFlags { local: true, global: true });
    }

    /// Absorbs another thread's findings and launch-wide group records.
    fn merge(&mut self, other: RaceChecker) {
        self.reports.merge(other.reports);
        if let (Some(mine), Some(theirs)) = (&mut self.oclgrind, other.oclgrind) {
            mine.merge(theirs);
        }
        for (mine, theirs) in self.buffers.iter_mut().zip(other.buffers) {
            mine.merge(theirs);
        }
        for (mine, theirs) in self.store_sizes.iter_mut().zip(other.store_sizes) {
            *mine = narrower(*mine, theirs);
        }
    }

    /// Reports, per buffer, the first byte that two work-groups touched with at least one
    /// writing (work-groups are not ordered with respect to each other). The report points
    /// at the first store to that byte, by the lowest work-group that stored to it.
    fn cross_group_reports(&self, info: &LaunchInfo) -> Vec<Report> {
        let mut out = Vec::new();
        for (index, region) in self.buffers.iter().enumerate() {
            let racy = |(_, c): &(u64, &CellState)| {
                let (w, r) = (c.group_writer, c.group_reader);
                w == MANY_GROUPS || (w != 0 && r != 0 && r != w)
            };
            // Work-groups that only stored, all the same value, lose no data: such a cell is
            // reported (as a same-value race) only when no cell of the buffer races for real.
            let same_value = |(offset, c): &(u64, &CellState)| {
                c.group_writer == MANY_GROUPS
                    && c.group_reader == 0
                    && region.stored_value(*offset).launch == AGREED
            };
            // Atomic operations of one work-group and plain accesses of another.
            let atomic_race = |(offset, c): &(u64, &CellState)| {
                let a = region.atomic_group(*offset);
                let apart = |plain: u32| plain != 0 && (a == MANY_GROUPS || plain != a);
                a != 0 && (apart(c.group_writer) || apart(c.group_reader))
            };
            let found = region
                .cells()
                .filter(racy)
                .find(|cell| !same_value(cell))
                .or_else(|| region.cells().find(atomic_race))
                .map(|cell| (cell, false))
                .or_else(|| region.cells().find(racy).map(|cell| (cell, true)));
            let Some(((offset, cell), same)) = found else { continue };
            let (w, r) = (cell.group_writer, cell.group_reader);
            let store = region.first_store(offset);
            let (group, lane, span) = match store {
                Some(s) => (s.group - 1, s.lane as usize, s.span),
                None => (0, 0, Span::UNDEFINED),
            };
            let atomic = region.atomic_group(offset);
            let plain_race = w == MANY_GROUPS || (w != 0 && r != 0 && r != w);
            let what = if atomic != 0 && !plain_race {
                let plain = if w != 0 { "stored to" } else { "loaded" };
                let who = if atomic == MANY_GROUPS {
                    "several work-groups".to_string()
                } else {
                    format!("work-group {}", atomic - 1)
                };
                format!(
                    "updated atomically by {who} and {plain} without an atomic operation by \
                     another"
                )
            } else if w == MANY_GROUPS {
                format!("stored to by several work-groups (first by work-group {group})")
            } else if r == MANY_GROUPS {
                format!("stored to by work-group {} and loaded by others", w - 1)
            } else {
                format!("stored to by work-group {} and loaded by work-group {}", w - 1, r - 1)
            };
            // The element as the kernel's stores index it, or the byte when nothing stored.
            let name = self.names.buffers.get(index).map_or("?", String::as_str);
            let element = match self.store_sizes.get(index).copied().unwrap_or(0) {
                0 => format!("byte {offset} of `{name}`"),
                size => format!("`{name}[{}]`", offset / u64::from(size)),
            };
            let (kind, message) = if same {
                (
                    ReportKind::SameValueRace,
                    format!(
                        "between work-groups on global memory: {element} is {what} in one launch, \
                         every one storing the same value, so no data is lost (Oclgrind does not \
                         report it)"
                    ),
                )
            } else {
                (
                    ReportKind::DataRace,
                    format!(
                        "between work-groups on global memory: {element} is {what} in one launch, \
                         and work-groups are not synchronised with each other"
                    ),
                )
            };
            let mut report = report_for(
                &info.group(u64::from(group)),
                0,
                kind,
                span,
                lane,
                message,
                info.names.get(index).cloned(),
            );
            report.access = Some(crate::report::InvalidAccess {
                store: true,
                size: 1,
                target: Target::Buffer { index, offset },
            });
            out.push(report);
        }
        out
    }

    fn barrier(
        &mut self,
        _span: Span,
        fences: FenceFlags,
        _active: &Mask,
        group: &GroupInfo,
        time: u64,
    ) {
        if let Some(model) = &mut self.oclgrind {
            let names = &self.names;
            let name = |addr: u64, size: u64| names.element(addr, size);
            model.sync(fences, time, group, &name, &mut self.reports);
            return;
        }
        self.next_interval(fences);
    }

    fn forget_shared_reads(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.shared_reads = [(0, 0); SHARED_READ_SLOTS];
            self.columns.iter_mut().for_each(|c| *c = (0, 0));
            self.stamp = 1;
        }
    }

    /// Notes the size of a store batch's element in the buffer its first lane stores to.
    fn note_store_size(&mut self, batch: &AccessBatch<'_>) {
        let first = batch.mask.iter().next().and_then(|lane| batch.addresses.get(lane));
        if let Some(Target::Buffer { index, .. }) = first.map(|a| decode(*a)) {
            if let Some(kept) = self.store_sizes.get_mut(index) {
                *kept = narrower(*kept, batch.size);
            }
        }
    }

    /// Starts a new interval in the spaces `fences` orders.
    fn next_interval(&mut self, fences: FenceFlags) {
        if !fences.local && !fences.global {
            return;
        }
        // The shared-read caches do not say which space an address is in: forget them all.
        self.forget_shared_reads();
        if fences.local {
            self.local_epoch = self.local_epoch.wrapping_add(1);
            if self.local_epoch == 0 {
                // Epochs wrapped: forget the intervals explicitly.
                self.local.clear_intervals();
                self.local_epoch = 1;
            }
        }
        if fences.global {
            self.global_epoch = self.global_epoch.wrapping_add(1);
            if self.global_epoch == 0 {
                self.buffers.iter_mut().for_each(RegionShadow::clear_intervals);
                self.global_epoch = 1;
            }
        }
    }

    /// Follows a load batch address by address instead of lane by lane, when no lane can
    /// conflict: no byte it reads was written or accessed atomically in this interval by a
    /// work-item other than the only one reading it. Then all a load changes is who read
    /// each byte (one work-item, or several) and, launch-wide, which groups did. Returns
    /// false, having changed nothing the lane-by-lane check would not change the same way,
    /// when some address does not qualify.
    fn loads_without_conflict(&mut self, batch: &AccessBatch<'_>, epoch: u16, group: u32) -> bool {
        let size = u64::from(batch.size);
        let mut runs = std::mem::take(&mut self.runs);
        batch.address_runs(&mut runs);
        let mut clean = true;
        for run in &runs {
            let region = match decode(run.address) {
                Target::Local { offset } => Some((&mut self.local, offset)),
                Target::Buffer { index, offset } => {
                    self.buffers.get_mut(index).map(|r| (r, offset))
                }
                _ => None,
            };
            let Some((region, offset)) = region else { continue };
            region.align_for(offset, size);
            let Some(cells) = region.cells_mut(offset, size) else {
                clean = false;
                break;
            };
            let me = run.first as u16 + 1;
            let alone = run.lanes == 1;
            let quiet = |who: u16| who == 0 || (alone && who == me);
            if cells.iter().any(|c| c.epoch == epoch && !(quiet(c.writer) && quiet(c.atomic))) {
                clean = false;
                break;
            }
            for state in cells {
                state.enter_epoch(epoch);
                if group != 0 {
                    state.group_reader = combine_groups(state.group_reader, group);
                }
                state.reader = if alone && (state.reader == 0 || state.reader == me) {
                    me
                } else {
                    MANY_LANES
                };
            }
        }
        self.runs = runs;
        clean
    }

    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        if matches!(batch.space, AddressSpace::Private | AddressSpace::Constant) {
            return;
        }
        if batch.group.lanes > MAX_RACE_LANES {
            return;
        }
        if let Some(model) = &mut self.oclgrind {
            model.memory_access(batch);
            return;
        }
        let epoch =
            if batch.space == AddressSpace::Local { self.local_epoch } else { self.global_epoch };
        let size = u64::from(batch.size);
        let is_load = batch.kind == AccessKind::Load;
        if !is_load {
            self.forget_shared_reads();
        }
        // Atomic operations modify memory too: they name the element and give a race between
        // work-groups a place in the source when no plain store does.
        if batch.kind != AccessKind::Load && batch.space != AddressSpace::Local {
            self.note_store_size(batch);
        }
        let stamp = self.stamp;
        // Launch-wide records are kept for global memory only (local memory is per group).
        let group = if batch.space == AddressSpace::Local {
            0
        } else {
            u32::try_from(batch.group.group_index.saturating_add(1))
                .unwrap_or(0)
                .min(MANY_GROUPS - 1)
        };
        if is_load && batch.unchanged.is_none() && self.loads_without_conflict(batch, epoch, group)
        {
            return;
        }
        let width = usize::try_from(batch.group.local_size[0]).unwrap_or(0);
        let column_mask = if is_load && width.is_power_of_two() && (2..=1024).contains(&width) {
            if self.columns.len() != width {
                self.columns = vec![(0, 0); width];
            }
            width - 1
        } else {
            usize::MAX
        };
        let mut found: Option<(usize, &'static str, u16)> = None;
        // The last address found shared and read-only: neighbouring lanes often load the
        // same element, and comparing with it is cheaper than the hashed cache.
        let mut last_shared = None;
        for lane in batch.mask.iter() {
            let Some(&addr) = batch.addresses.get(lane) else { continue };
            if is_load && last_shared == Some(addr) {
                continue;
            }
            let column = self.columns.get_mut(lane & column_mask);
            if column.as_deref() == Some(&(addr, stamp)) {
                last_shared = Some(addr);
                continue;
            }
            let slot = slot_of(addr);
            if is_load && self.shared_reads[slot] == (addr, stamp) {
                last_shared = Some(addr);
                if let Some(c) = column {
                    *c = (addr, stamp);
                }
                continue;
            }
            let reads_only = batch.unchanged.is_some_and(|m| m.get(lane));
            let region = match decode(addr) {
                Target::Local { offset } => Some((&mut self.local, offset)),
                Target::Buffer { index, offset } => {
                    self.buffers.get_mut(index).map(|r| (r, offset))
                }
                _ => None,
            };
            let Some((region, offset)) = region else { continue };
            region.align_for(offset, size);
            // The group's own accesses stand for several work-items: they conflict with each.
            let me = if batch.by_group { MANY_LANES } else { lane as u16 + 1 };
            let granule = 1u32 << region.granule_shift();
            let stored = batch.stored;
            let value_at = |at: u64| {
                move |i: usize| {
                    stored.map(|v| v.bytes(lane, at + (i as u64) * u64::from(granule), granule))
                }
            };
            let conflict = if batch.kind == AccessKind::Store {
                match region.cells_and_values_mut(offset, size) {
                    Some((cells, values)) => check_cells(
                        cells,
                        Some(values),
                        value_at(0),
                        batch.kind,
                        me,
                        epoch,
                        group,
                        reads_only,
                    ),
                    None => {
                        // Straddles a page: cell by cell.
                        let step = u64::from(granule);
                        let mut c = None;
                        let mut at = 0;
                        while at < size {
                            if let Some((cells, values)) =
                                region.cells_and_values_mut(offset.saturating_add(at), step)
                            {
                                let v = value_at(at);
                                let found = check_cells(
                                    cells,
                                    Some(values),
                                    v,
                                    batch.kind,
                                    me,
                                    epoch,
                                    group,
                                    reads_only,
                                );
                                c = prefer(c, found);
                            }
                            at += step;
                        }
                        c
                    }
                }
            } else {
                match region.cells_mut(offset, size) {
                    Some(cells) => {
                        let c = check_cells(
                            cells,
                            None,
                            |_| None,
                            batch.kind,
                            me,
                            epoch,
                            group,
                            reads_only,
                        );
                        if is_load && c.is_none() && shared_read_only(cells, epoch) {
                            self.shared_reads[slot] = (addr, stamp);
                            if let Some(c) = self.columns.get_mut(lane & column_mask) {
                                *c = (addr, stamp);
                            }
                            last_shared = Some(addr);
                        }
                        c
                    }
                    None => {
                        // Straddles a page: cell by cell.
                        let step = 1u64 << region.granule_shift();
                        let mut c = None;
                        let mut at = 0;
                        while at < size {
                            if let Some(cells) = region.cells_mut(offset.saturating_add(at), step) {
                                c = c.or(check_cells(
                                    cells,
                                    None,
                                    |_| None,
                                    batch.kind,
                                    me,
                                    epoch,
                                    group,
                                    reads_only,
                                ));
                            }
                            at += step;
                        }
                        c
                    }
                }
            };
            // Atomic operations are followed apart from plain accesses: between work-groups
            // they race with plain ones only, and a failed compare-and-exchange is a read that
            // a later plain store by another work-item races with.
            let conflict = match batch.kind {
                AccessKind::Atomic => {
                    if reads_only {
                        region.note_atomic_read(offset, size, epoch, me);
                    } else if group != 0 {
                        // (Failed ones are left out between work-groups: they race only with
                        // plain stores, which would need a record of their own.)
                        region.note_atomic_group(offset, size, group);
                    }
                    conflict
                }
                AccessKind::Store => {
                    let read = region.atomic_reader(offset, size, epoch, me);
                    prefer(conflict, read.map(|who| ("write after atomic read", who)))
                }
                AccessKind::Load => conflict,
            };
            let modifies = match batch.kind {
                AccessKind::Store => true,
                AccessKind::Atomic => !reads_only,
                AccessKind::Load => false,
            };
            if modifies && group != 0 {
                let record = FirstStore { group, lane: lane as u32, span: batch.span };
                region.note_store(offset, size, record);
            }
            let keep = match (conflict, found) {
                (Some(_), None) => true,
                (Some((what, _)), Some((_, SAME_VALUE, _))) => what != SAME_VALUE,
                _ => false,
            };
            if let (true, Some((what, who))) = (keep, conflict) {
                found = Some((lane, what, who));
            }
        }
        if let Some((lane, what, who)) = found {
            let report = self.race_report(batch, lane, what, who);
            self.reports.push(report);
        }
    }

    /// The finding for a conflict `lane` of `batch` ran into: `what` happened, with the other
    /// lane `who` (`lane + 1`, or [`MANY_LANES`]).
    fn race_report(
        &self,
        batch: &AccessBatch<'_>,
        lane: usize,
        what: &'static str,
        who: u16,
    ) -> Report {
        let size = u64::from(batch.size);
        let space = match batch.space {
            AddressSpace::Local => "local",
            _ => "global",
        };
        let other = if who == MANY_LANES {
            "several other work-items".to_string()
        } else {
            let id = batch.group.local_id(who as usize - 1);
            format!("work-item with local id ({},{},{})", id[0], id[1], id[2])
        };
        let at = batch
            .addresses
            .get(lane)
            .and_then(|&addr| self.names.element(addr, size))
            .map(|element| format!(" at {element}"))
            .unwrap_or_default();
        let (kind, message) = if what == SAME_VALUE {
            (
                ReportKind::SameValueRace,
                format!(
                    "{what} on {space} memory{at}: {other} stored the same value to these bytes in \
                     the same barrier interval, so no data is lost (Oclgrind does not report it)"
                ),
            )
        } else {
            (
                ReportKind::DataRace,
                format!(
                    "{what} on {space} memory{at}: this access conflicts with {other} in the same \
                     barrier interval"
                ),
            )
        };
        let mut report = report_for(
            batch.group,
            batch.time,
            kind,
            batch.span,
            lane,
            message,
            batch.object.map(str::to_string),
        );
        // Where it happened, for tools that print addresses (Oclgrind's layout).
        report.access = batch.addresses.get(lane).map(|&addr| crate::report::InvalidAccess {
            store: batch.kind == AccessKind::Store,
            size: size as u32,
            target: decode(addr),
        });
        report
    }
}

/// The checks Oclgrind makes on every access whatever its options: the pointer is aligned to
/// the type it points to, and the buffer's host flags allow the access. Both cost one pass
/// over the lanes' addresses per memory instruction at most; the flags cost nothing when no
/// buffer of the launch has any.
#[derive(Debug, Default)]
struct MemCheck {
    /// Each buffer's flags, by buffer index; empty when every buffer is read-write.
    access: Vec<HostAccess>,
    /// Each buffer's regions the host has mapped, by buffer index; empty when none is.
    mapped: Vec<Option<Arc<[MappedRegion]>>>,
    reports: ReportSink,
}

impl MemCheck {
    fn new(plan: &LaunchPlan<'_>, every_work_item: bool) -> MemCheck {
        let access: Vec<HostAccess> = plan.buffers.iter().map(|b| b.access).collect();
        let flagged = access.iter().any(|a| *a != HostAccess::ReadWrite);
        let mapped: Vec<_> = plan.buffers.iter().map(|b| b.mapped.clone()).collect();
        let any_mapped = mapped.iter().any(Option::is_some);
        MemCheck {
            access: if flagged { access } else { Vec::new() },
            mapped: if any_mapped { mapped } else { Vec::new() },
            reports: ReportSink::new(every_work_item),
        }
    }

    #[inline]
    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        if batch.align > 1 {
            // `__local` pointer arguments are placed 16-byte aligned, as OpenCL runtimes
            // place them (the wider alignment of a 16-component vector is not promised).
            let align =
                if batch.space == AddressSpace::Local { batch.align.min(16) } else { batch.align };
            let low = u64::from(align - 1);
            let bits = if batch.mask.is_full() {
                batch.addresses.iter().fold(0, |acc, a| acc | a)
            } else {
                batch.mask.iter().filter_map(|l| batch.addresses.get(l)).fold(0, |acc, a| acc | a)
            };
            if bits & low != 0 {
                self.misaligned(batch, low);
            }
        }
        if !self.access.is_empty() {
            self.check_flags(batch);
        }
        if !self.mapped.is_empty() && batch.space == AddressSpace::Global {
            self.check_mapped(batch);
        }
    }

    /// Loads from regions mapped for writing and stores to any mapped region (an atomic
    /// operation both loads and stores: it is reported as the store, which any mapping
    /// forbids, or as the load where only that is).
    #[cold]
    fn check_mapped(&mut self, batch: &AccessBatch<'_>) {
        let (reads, writes) = match batch.kind {
            AccessKind::Load => (true, false),
            AccessKind::Store => (false, true),
            AccessKind::Atomic => (true, true),
        };
        let size = u64::from(batch.size);
        let mapped = &self.mapped;
        let found = batch.mask.iter().filter_map(|lane| {
            let addr = *batch.addresses.get(lane)?;
            let Target::Buffer { index, offset } = decode(addr) else { return None };
            let regions = mapped.get(index)?.as_ref()?;
            let mut overlapping =
                regions.iter().filter(|r| offset < r.end && offset + size > r.start);
            let store = if writes && overlapping.clone().next().is_some() {
                true
            } else if reads && overlapping.any(|r| r.for_writing) {
                false
            } else {
                return None;
            };
            Some((lane, index, offset, store))
        });
        let found: Vec<_> = found.collect();
        self.report_buffer_accesses(batch, ReportKind::MappedAccess, &found, |store| {
            if store {
                "store to a buffer region the host has mapped (clEnqueueMapBuffer with no \
                 clEnqueueUnmapMemObject before the launch)"
            } else {
                "load from a buffer region the host has mapped for writing (clEnqueueMapBuffer \
                 with CL_MAP_WRITE and no clEnqueueUnmapMemObject before the launch)"
            }
        });
    }

    #[cold]
    fn misaligned(&mut self, batch: &AccessBatch<'_>, low: u64) {
        let mut offending = batch
            .mask
            .iter()
            .filter_map(|l| Some((l, *batch.addresses.get(l)?)))
            .filter(|(_, a)| a & low != 0);
        let Some((lane, addr)) = offending.next() else { return };
        if self.reports.every_work_item() {
            let others: Vec<(usize, u64)> = offending.collect();
            for (lane, addr) in std::iter::once((lane, addr)).chain(others) {
                self.misaligned_lane(batch, low, lane, addr, 1);
            }
            return;
        }
        let count = 1 + offending.count() as u64;
        self.misaligned_lane(batch, low, lane, addr, count);
    }

    fn misaligned_lane(
        &mut self,
        batch: &AccessBatch<'_>,
        low: u64,
        lane: usize,
        addr: u64,
        count: u64,
    ) {
        let store = batch.kind == AccessKind::Store;
        let what = if store { "store" } else { "load" };
        let target = decode(addr);
        let place = match target {
            Target::Buffer { offset, .. }
            | Target::Local { offset }
            | Target::Private { offset, .. } => {
                format!("byte offset {offset}")
            }
            Target::Invalid => format!("address {addr:#x}"),
        };
        let mut report = report_for(
            batch.group,
            batch.time,
            ReportKind::Misaligned,
            batch.span,
            lane,
            format!(
                "{what} of {} bytes at {place}, which is not a multiple of the {}-byte \
                 alignment of the pointed-to type",
                batch.size,
                low + 1
            ),
            batch.object.map(str::to_string),
        );
        report.access = Some(crate::report::InvalidAccess { store, size: batch.size, target });
        report.occurrences = count;
        self.reports.push(report);
    }

    fn check_flags(&mut self, batch: &AccessBatch<'_>) {
        let (reads, writes) = match batch.kind {
            AccessKind::Load => (true, false),
            AccessKind::Store => (false, true),
            AccessKind::Atomic => (true, true),
        };
        let forbidden = |access: HostAccess| match access {
            HostAccess::ReadOnly if writes => Some(true),
            HostAccess::WriteOnly if reads => Some(false),
            _ => None,
        };
        let found = batch.mask.iter().filter_map(|lane| {
            let addr = *batch.addresses.get(lane)?;
            let Target::Buffer { index, offset } = decode(addr) else { return None };
            let store = forbidden(*self.access.get(index)?)?;
            Some((lane, index, offset, store))
        });
        let found: Vec<_> = found.collect();
        self.report_buffer_accesses(batch, ReportKind::ForbiddenAccess, &found, |store| {
            if store {
                "store to a buffer the host created read-only (CL_MEM_READ_ONLY, `ro`)"
            } else {
                "load from a buffer the host created write-only (CL_MEM_WRITE_ONLY, `wo`)"
            }
        });
    }

    /// Reports the lanes `found` of one access, each as (lane, buffer, offset, whether the
    /// forbidden part is its store), as `kind`: every lane when findings are kept per
    /// work-item, else the first with the count.
    fn report_buffer_accesses(
        &mut self,
        batch: &AccessBatch<'_>,
        kind: ReportKind,
        found: &[(usize, usize, u64, bool)],
        message: impl Fn(bool) -> &'static str,
    ) {
        let count = found.len() as u64;
        let every = if self.reports.every_work_item() { found.len() } else { 1 };
        for &(lane, index, offset, store) in found.iter().take(every) {
            let mut report = report_for(
                batch.group,
                batch.time,
                kind,
                batch.span,
                lane,
                message(store).to_string(),
                batch.object.map(str::to_string),
            );
            report.access = Some(crate::report::InvalidAccess {
                store,
                size: batch.size,
                target: Target::Buffer { index, offset },
            });
            report.occurrences = if every == 1 { count } else { 1 };
            self.reports.push(report);
        }
    }
}
