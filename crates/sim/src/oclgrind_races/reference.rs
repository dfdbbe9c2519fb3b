//! The first model of Oclgrind's race checking, kept as the reference the table-based model
//! of the parent module must agree with report for report: it follows the description there
//! literally, with a map entry per byte of every access and every group's record of global
//! memory kept until the launch ends (correct, but many times slower).

use std::collections::{BTreeMap, HashMap};

use clmap_lang::ir::{AddressSpace, FenceFlags};
use clmap_lang::Span;

use crate::memory::{decode, Target};
use crate::observer::{AccessBatch, AccessKind, GroupInfo};
use crate::report::{InvalidAccess, RaceEntities, RaceEntity, Report, ReportKind, ReportSink};

/// The work-group itself (an async copy), as the side of an access.
const GROUP: u32 = u32::MAX;
/// No value seen.
const NO_VALUE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Load,
    Store,
    Atomic,
    /// A failed compare-and-exchange: an atomic operation that only read.
    AtomicRead,
}

/// One access of the current interval.
#[derive(Clone, Copy, Debug)]
struct Logged {
    who: u32,
    addr: u64,
    size: u32,
    part: Part,
    span: Span,
    /// Offset in [`OclgrindRaces::values`] of the bytes stored (an atomic's: read).
    value: u32,
    /// The access's number in its group, so the bytes of one access report once.
    id: u32,
}

/// One side of a byte's record: the access and who made it.
#[derive(Clone, Copy, Debug)]
struct Side {
    group: u64,
    who: u32,
    span: Span,
    atomic: bool,
    store: bool,
    value: Option<u8>,
    id: u32,
    /// Bytes of the whole access.
    size: u32,
}

impl Side {
    fn races_with(&self, other: &Side) -> bool {
        (self.group, self.who) != (other.group, other.who) && !(self.atomic && other.atomic)
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Record {
    load: Option<Side>,
    store: Option<Side>,
}

/// Keeps the first access, unless the kept one is atomic.
fn keep(slot: &mut Option<Side>, new: Option<Side>) {
    if let Some(new) = new {
        if slot.is_none_or(|s| s.atomic) {
            *slot = Some(new);
        }
    }
}

/// A race found in a replay, before it becomes a report: the accesses of both sides, what
/// kind, and whether the bytes stored differ (write-write).
struct Found {
    first: Side,
    second: Side,
    write_write: bool,
    differs: bool,
    addr: u64,
    size: u32,
}

/// Collects the races of one side's accesses, one per pair of accesses and kind.
#[derive(Default)]
struct Findings(Vec<Found>);

impl Findings {
    fn note(&mut self, first: Side, second: Side, write_write: bool, addr: u64) {
        let differs = !write_write || first.value.is_none() || first.value != second.value;
        let same = |f: &&mut Found| {
            f.first.id == first.id
                && f.first.group == first.group
                && f.second.id == second.id
                && f.second.group == second.group
                && f.write_write == write_write
        };
        match self.0.iter_mut().find(|f| same(f)) {
            Some(f) => f.differs |= differs,
            None => {
                let size = first.size;
                self.0.push(Found { first, second, write_write, differs, addr, size })
            }
        }
    }

    /// Checks a side's record of one byte against the record it is merged into.
    fn check(&mut self, mine: &Record, theirs: &Record, addr: u64) {
        if let (Some(load), Some(store)) = (mine.load, theirs.store) {
            if load.races_with(&store) {
                self.note(load, store, false, addr);
            }
        }
        if let Some(store) = mine.store {
            if let Some(load) = theirs.load.filter(|l| store.races_with(l)) {
                self.note(store, load, false, addr);
            }
            if let Some(other) = theirs.store.filter(|s| store.races_with(s)) {
                self.note(store, other, true, addr);
            }
        }
    }
}

/// The model's state for the work-groups one thread runs, and the records of global memory
/// they leave for the launch-wide merge.
#[derive(Debug, Default)]
pub(crate) struct OclgrindRaces {
    /// The current interval's accesses: local memory, then global memory.
    log: [Vec<Logged>; 2],
    values: Vec<u8>,
    next_id: u32,
    /// The group's record of global memory over all its intervals.
    group_global: HashMap<u64, Record>,
    /// Finished groups' records of global memory, by group index, in address order.
    finished: Vec<(u64, Vec<(u64, Record)>)>,
    /// Orders the reports of one synchronisation.
    sequence: u64,
}

impl OclgrindRaces {
    pub(crate) fn group_start(&mut self) {
        self.log.iter_mut().for_each(Vec::clear);
        self.values.clear();
        self.next_id = 0;
        self.group_global.clear();
    }

    /// Logs a memory instruction's accesses to local and global memory.
    pub(crate) fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        let space = match batch.space {
            AddressSpace::Local => 0,
            AddressSpace::Global => 1,
            _ => return,
        };
        let unchanged = batch.unchanged;
        for lane in batch.mask.iter() {
            let Some(&addr) = batch.addresses.get(lane) else { continue };
            let part = match batch.kind {
                AccessKind::Load => Part::Load,
                AccessKind::Store => Part::Store,
                AccessKind::Atomic if unchanged.is_some_and(|m| m.get(lane)) => Part::AtomicRead,
                AccessKind::Atomic => Part::Atomic,
            };
            let value = match (part, batch.stored) {
                (Part::Store | Part::Atomic, Some(stored)) => {
                    let at = self.values.len();
                    self.values
                        .extend((0..u64::from(batch.size)).map(|b| stored.bytes(lane, b, 1) as u8));
                    u32::try_from(at).unwrap_or(NO_VALUE)
                }
                _ => NO_VALUE,
            };
            let who = if batch.by_group { GROUP } else { lane as u32 };
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1);
            self.log[space].push(Logged {
                who,
                addr,
                size: batch.size,
                part,
                span: batch.span,
                value,
                id,
            });
        }
    }

    /// Replays the intervals of the spaces `fences` orders, as Oclgrind checks them when the
    /// group synchronises at `time` (`u64::MAX`: the end of the group): local memory first,
    /// then global memory.
    pub(crate) fn sync(
        &mut self,
        fences: FenceFlags,
        time: u64,
        group: &GroupInfo,
        names: &dyn Fn(u64, u64) -> Option<String>,
        sink: &mut ReportSink,
    ) {
        for (space, fenced) in [(0, fences.local), (1, fences.global)] {
            if !fenced || self.log[space].is_empty() {
                continue;
            }
            let mut log = std::mem::take(&mut self.log[space]);
            // Work-item by work-item, each in program order; the group's own accesses last.
            log.sort_by_key(|l| l.who);
            let sync = time.saturating_mul(2).saturating_add(space as u64);
            let mut interval: HashMap<u64, Record> = HashMap::new();
            let mut start = 0;
            while start < log.len() {
                let who = log[start].who;
                let end =
                    log[start..].iter().position(|l| l.who != who).map_or(log.len(), |n| start + n);
                let mine = self.own_record(&log[start..end], group.group_index);
                let mut findings = Findings::default();
                for (addr, record) in &mine {
                    let theirs = interval.entry(*addr).or_default();
                    findings.check(record, theirs, *addr);
                    keep(&mut theirs.load, record.load);
                    keep(&mut theirs.store, record.store);
                }
                for found in findings.0 {
                    let report = self.report(&found, group, group, sync, names);
                    sink.push(report);
                }
                start = end;
            }
            if space == 1 {
                for (addr, record) in interval {
                    let kept = self.group_global.entry(addr).or_default();
                    keep(&mut kept.load, record.load);
                    keep(&mut kept.store, record.store);
                }
            }
            log.clear();
            self.log[space] = log;
        }
    }

    /// A side's record of its own accesses, byte by byte in address order: its first load
    /// and its first store (an atomic one gives way to the next).
    fn own_record(&mut self, log: &[Logged], group: u64) -> BTreeMap<u64, Record> {
        let mut mine: BTreeMap<u64, Record> = BTreeMap::new();
        for l in log {
            for b in 0..u64::from(l.size) {
                let value = (l.value != NO_VALUE)
                    .then(|| self.values.get(l.value as usize + b as usize).copied())
                    .flatten();
                let side = |store: bool| Side {
                    group,
                    who: l.who,
                    span: l.span,
                    atomic: matches!(l.part, Part::Atomic | Part::AtomicRead),
                    store,
                    value: if store { value } else { None },
                    id: l.id,
                    size: l.size,
                };
                let record = mine.entry(l.addr.wrapping_add(b)).or_default();
                match l.part {
                    Part::Load | Part::AtomicRead => keep(&mut record.load, Some(side(false))),
                    Part::Store => keep(&mut record.store, Some(side(true))),
                    Part::Atomic => {
                        keep(&mut record.load, Some(side(false)));
                        keep(&mut record.store, Some(side(true)));
                    }
                }
            }
        }
        mine
    }

    /// Ends the group: its accesses are checked, and its record of global memory is kept
    /// for the launch-wide merge.
    pub(crate) fn group_end(
        &mut self,
        group: &GroupInfo,
        names: &dyn Fn(u64, u64) -> Option<String>,
        sink: &mut ReportSink,
    ) {
        self.sync(FenceFlags { local: true, global: true }, u64::MAX, group, names, sink);
        let mut records: Vec<(u64, Record)> = self.group_global.drain().collect();
        records.sort_unstable_by_key(|(addr, _)| *addr);
        if !records.is_empty() {
            self.finished.push((group.group_index, records));
        }
        self.next_id = 0;
    }

    /// Absorbs another thread's finished groups.
    pub(crate) fn merge(&mut self, other: OclgrindRaces) {
        self.finished.extend(other.finished);
    }

    /// The races between work-groups: each group's record of global memory, in group order,
    /// against what the groups before it left.
    pub(crate) fn between_groups(
        &mut self,
        group_of: &dyn Fn(u64) -> GroupInfo,
        names: &dyn Fn(u64, u64) -> Option<String>,
    ) -> Vec<Report> {
        let mut finished = std::mem::take(&mut self.finished);
        finished.sort_by_key(|(g, _)| *g);
        let mut launch: HashMap<u64, Record> = HashMap::new();
        let mut sink = ReportSink::new(true);
        for (index, records) in finished {
            let group = group_of(index);
            let mut findings = Findings::default();
            for (addr, record) in &records {
                let theirs = launch.entry(*addr).or_default();
                findings.check(record, theirs, *addr);
                keep(&mut theirs.load, record.load);
                keep(&mut theirs.store, record.store);
            }
            for found in findings.0 {
                let other = group_of(found.second.group);
                let mut report = self.report(&found, &group, &other, 0, names);
                // Oclgrind reports races between work-groups when the launch ends, in the
                // order it finds them.
                report.group_index = u64::MAX;
                report.lane = 0;
                sink.push(report);
            }
        }
        sink.into_sorted()
    }

    fn report(
        &mut self,
        found: &Found,
        group: &GroupInfo,
        other: &GroupInfo,
        sync: u64,
        names: &dyn Fn(u64, u64) -> Option<String>,
    ) -> Report {
        self.sequence += 1;
        let entity = |side: &Side, info: &GroupInfo| {
            let lane = side.who as usize;
            RaceEntity {
                global_id: info.global_id(lane),
                local_id: info.local_id(lane),
                group_id: info.group_id,
                span: side.span,
                store: side.store && !side.atomic,
                work_group: side.who == GROUP,
            }
        };
        let first = entity(&found.first, group);
        let second = entity(&found.second, other);
        let space = match decode(found.addr) {
            Target::Local { .. } => "local",
            _ => "global",
        };
        let at = names(found.addr, u64::from(found.size))
            .map(|element| format!(" at {element}"))
            .unwrap_or_default();
        let what = if found.write_write { "write-write" } else { "read-write" };
        let (kind, message) = if found.differs {
            (ReportKind::DataRace, format!("{what} data race on {space} memory{at}"))
        } else {
            (
                ReportKind::SameValueRace,
                format!(
                    "write after write of the same value on {space} memory{at} (Oclgrind reports \
                     it only under --uniform-writes)"
                ),
            )
        };
        // Work-item order, the group's own accesses last, then the replay's order.
        let lane = found.first.who;
        Report {
            kind,
            message,
            span: found.first.span,
            global_id: first.global_id,
            local_id: first.local_id,
            group_id: first.group_id,
            object: None,
            occurrences: 1,
            group_index: group.group_index,
            lane,
            time: self.sequence,
            sync,
            access: Some(InvalidAccess {
                store: found.first.store,
                size: found.size,
                target: decode(found.addr),
            }),
            entities: Some(Box::new(RaceEntities {
                first,
                second,
                write_write: found.write_write,
            })),
        }
    }
}
