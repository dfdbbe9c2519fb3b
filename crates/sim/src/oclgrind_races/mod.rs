//! Races found and reported as Oclgrind finds and reports them, for `--oclgrind-output`
//! ([`crate::SimOptions::report_every_work_item`]): a block per conflict, naming both sides.
//!
//! Oclgrind runs the work-items of a group one after another and checks their accesses when
//! the group synchronises (a barrier, for the spaces it fences, or the end of the group). The
//! simulator runs them in lock-step, so this model logs the accesses of each interval and, at
//! the synchronisation, replays them in Oclgrind's order: work-item by work-item, each one's
//! bytes in address order (Oclgrind's order is its hash table's), against a record of the
//! interval. Races between work-groups are found by merging each group's record of global
//! memory into the launch's, group by group in index order.
//!
//! A record keeps, per byte, one load and one store:
//! - every record (a work-item's own, the interval's, the group's and the launch's) keeps the
//!   first load and the first store, except that an atomic operation is replaced by the next
//!   access: a work-item that stores and then operates atomically on the same bytes keeps its
//!   plain store, which races with other work-items' atomics;
//! - a load races with the record's store, a store with its load (both "read-write") and with
//!   its store ("write-write", unless both stored the same value: that is a same-value race,
//!   which Oclgrind reports only under `--uniform-writes`); two atomic operations never race;
//! - an atomic operation is a load and a store whose value is the one it read (a
//!   compare-and-exchange that succeeded: the one it wrote); a failed one only a load;
//! - an async copy's accesses are the group's, replayed after the work-items'; its stores
//!   carry the values it copies.
//!
//! The bytes of one access that race with the bytes of one other access are one report, at
//! the first of them.
//!
//! Cost: the records are flat tables indexed by byte (one per buffer and one for local
//! memory), whose entries name accesses of the log by index, so a replay touches each byte
//! of an access a few times and allocates nothing per byte. A group's record of global memory
//! is merged into the launch's when the group ends, if the groups before it have been merged
//! (always so on one thread); otherwise it waits, compacted, for the launch's end.

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use clmap_lang::ir::{AddressSpace, FenceFlags};
use clmap_lang::Span;

use crate::memory::{decode, Target};
use crate::observer::{AccessBatch, AccessKind, GroupInfo};
use crate::report::{InvalidAccess, RaceEntities, RaceEntity, Report, ReportKind, ReportSink};

/// The work-group itself (an async copy), as the side of an access.
const GROUP: u32 = u32::MAX;
/// No value seen.
const NO_VALUE: u32 = u32::MAX;
/// A record slot's reference to an access: its index, with [`ATOMIC`] set for an atomic
/// operation. [`EMPTY`] (no access) has it set too, so "keep the first access unless the
/// kept one is atomic" is one test: replace while the bit is set.
const ATOMIC: u32 = 1 << 31;
const EMPTY: u32 = u32::MAX;
/// Bytes per chunk of the list of bytes a group's record holds (kept in address order by
/// sorting chunks, not bytes).
const CHUNK_SHIFT: u32 = 6;

#[inline(always)]
fn keep(slot: &mut u32, new: u32) {
    if new != EMPTY && *slot & ATOMIC != 0 {
        *slot = new;
    }
}

#[inline(always)]
fn is_set(slot: u32) -> bool {
    slot != EMPTY
}

/// Two references that may race, the sides being known to be different work-items or
/// groups: unless both are atomic.
#[inline(always)]
fn may_race(a: u32, b: u32) -> bool {
    is_set(a) && is_set(b) && (a & b & ATOMIC == 0)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Load,
    Store,
    Atomic,
    /// A failed compare-and-exchange: an atomic operation that only read.
    AtomicRead,
}

/// One access of the current group.
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

impl Logged {
    fn atomic(&self) -> bool {
        matches!(self.part, Part::Atomic | Part::AtomicRead)
    }
}

/// What a record keeps of one byte, in every record the replay needs: the current
/// work-item's own, the interval's and (global memory only) the group's. Each slot names an
/// access of the log (see [`ATOMIC`]).
#[derive(Clone, Copy, Debug)]
struct ByteRecords {
    own_load: u32,
    own_store: u32,
    interval_load: u32,
    interval_store: u32,
    group_load: u32,
    group_store: u32,
    /// On the first byte of a chunk: the group generation that listed the chunk.
    chunk_listed: u32,
}

impl Default for ByteRecords {
    fn default() -> Self {
        ByteRecords {
            own_load: EMPTY,
            own_store: EMPTY,
            interval_load: EMPTY,
            interval_store: EMPTY,
            group_load: EMPTY,
            group_store: EMPTY,
            chunk_listed: 0,
        }
    }
}

/// The launch's record of one byte of global memory: slots name [`OclgrindRaces::sides`];
/// the store's value, or [`NO_BYTE`].
#[derive(Clone, Copy, Debug)]
struct LaunchByte {
    load: u32,
    store: u32,
    value: u16,
}

const NO_BYTE: u16 = u16::MAX;

impl Default for LaunchByte {
    fn default() -> Self {
        LaunchByte { load: EMPTY, store: EMPTY, value: NO_BYTE }
    }
}

/// One entry per byte of local memory and of each buffer, allocated when first touched,
/// and a map for addresses outside them (out-of-bounds accesses).
#[derive(Debug, Default)]
struct ByteTable<T> {
    local: Vec<T>,
    local_len: u64,
    buffers: Vec<Vec<T>>,
    buffer_lens: Vec<u64>,
    other: HashMap<u64, T>,
}

impl<T: Copy + Default> ByteTable<T> {
    fn new(local_len: u64, buffer_lens: &[u64]) -> Self {
        ByteTable {
            local: Vec::new(),
            local_len,
            buffers: vec![Vec::new(); buffer_lens.len()],
            buffer_lens: buffer_lens.to_vec(),
            other: HashMap::new(),
        }
    }

    /// The flat entries of `size` bytes from `addr`, when they all lie in one region.
    #[inline(always)]
    fn run(&mut self, addr: u64, size: u32) -> Option<&mut [T]> {
        let (table, len, offset) = match decode(addr) {
            Target::Local { offset } => (&mut self.local, self.local_len, offset),
            Target::Buffer { index, offset } => {
                (self.buffers.get_mut(index)?, *self.buffer_lens.get(index)?, offset)
            }
            _ => return None,
        };
        let end = offset.checked_add(u64::from(size))?;
        if end > len {
            return None;
        }
        if table.is_empty() {
            *table = vec![T::default(); usize::try_from(len).ok()?];
        }
        table.get_mut(offset as usize..end as usize)
    }

    #[inline(always)]
    fn byte(&mut self, addr: u64) -> &mut T {
        // `run` fails only for addresses outside every region, which the map holds.
        if self.run(addr, 1).is_some() {
            return &mut self.run(addr, 1).expect("checked above")[0];
        }
        self.other.entry(addr).or_default()
    }

    /// Calls `f` on each byte of an access, in address order.
    #[inline(always)]
    fn for_each(&mut self, addr: u64, size: u32, mut f: impl FnMut(u64, &mut T)) {
        match self.run(addr, size) {
            Some(run) => {
                for (b, entry) in run.iter_mut().enumerate() {
                    f(addr.wrapping_add(b as u64), entry);
                }
            }
            None => {
                for b in 0..u64::from(size) {
                    let at = addr.wrapping_add(b);
                    f(at, self.byte(at));
                }
            }
        }
    }
}

/// One side of a race: the access and who made it.
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

/// An access as the launch's record keeps it, once its group's log is gone.
#[derive(Clone, Copy, Debug)]
struct KeptAccess {
    group: u64,
    who: u32,
    span: Span,
    id: u32,
    size: u32,
    atomic: bool,
}

impl KeptAccess {
    fn side(&self, store: bool, value: u16) -> Side {
        Side {
            group: self.group,
            who: self.who,
            span: self.span,
            atomic: self.atomic,
            store,
            value: if store && value != NO_BYTE { Some(value as u8) } else { None },
            id: self.id,
            size: self.size,
        }
    }
}

/// A race found in a replay, before it becomes a report: the accesses of both sides, what
/// kind, and whether the bytes stored differ (write-write).
#[derive(Debug)]
struct Found {
    first: Side,
    second: Side,
    write_write: bool,
    differs: bool,
    addr: u64,
    size: u32,
}

/// Collects the races of one side's accesses, one per pair of accesses and kind, in the
/// order they are first found.
#[derive(Debug, Default)]
struct Findings {
    found: Vec<Found>,
    index: HashMap<(u32, u64, u32, u64, bool), usize>,
}

impl Findings {
    fn note(&mut self, first: Side, second: Side, write_write: bool, addr: u64) {
        let differs = !write_write || first.value.is_none() || first.value != second.value;
        let key = (first.id, first.group, second.id, second.group, write_write);
        match self.index.get(&key) {
            Some(&at) => self.found[at].differs |= differs,
            None => {
                self.index.insert(key, self.found.len());
                let size = first.size;
                self.found.push(Found { first, second, write_write, differs, addr, size })
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    fn take(&mut self) -> Vec<Found> {
        self.index.clear();
        std::mem::take(&mut self.found)
    }
}

/// A group's record of global memory, waiting for the groups before it to be merged into
/// the launch's: bytes in address order, slots naming `accesses`.
#[derive(Debug)]
struct GroupRecord {
    index: u64,
    accesses: Vec<KeptAccess>,
    /// (address, load, store, value stored).
    bytes: Vec<(u64, u32, u32, u16)>,
}

/// The model's state for the work-groups one thread runs, and the launch's record of global
/// memory.
#[derive(Debug)]
pub(crate) struct OclgrindRaces {
    /// The group's accesses: local memory (since the last synchronisation of local memory),
    /// then global memory (the whole group's; the current interval from
    /// `global_interval_start`).
    log: [Vec<Logged>; 2],
    global_interval_start: usize,
    values: Vec<u8>,
    next_id: u32,
    records: ByteTable<ByteRecords>,
    /// Counts groups, to list each chunk of the group's record once.
    generation: u32,
    /// Chunks (address >> [`CHUNK_SHIFT`]) of the group's record of global memory.
    chunks: Vec<u64>,
    /// Scratch: the log in replay order, and one work-item's accesses in address order.
    order: Vec<u32>,
    starts: Vec<usize>,
    by_address: Vec<(u64, u32)>,
    findings: Findings,
    /// Orders the reports of one synchronisation.
    sequence: u64,
    /// The launch's record of global memory: groups `0..merged` are in it.
    launch: ByteTable<LaunchByte>,
    merged: u64,
    sides: Vec<KeptAccess>,
    /// Groups of this thread that ended before an earlier group was merged.
    pending: Vec<GroupRecord>,
    /// Races between work-groups found so far, and their count (their order).
    between: Vec<Report>,
    between_sequence: u64,
    /// Any group of the launch, to describe the others.
    template: GroupInfo,
    /// In tests, the straightforward model this one must agree with, run instead.
    #[cfg(test)]
    reference: Option<Box<reference::OclgrindRaces>>,
}

#[cfg(test)]
thread_local! {
    /// Whether models made on this thread run the reference model instead.
    static USE_REFERENCE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs the reference model where this thread's tests ask for it.
macro_rules! or_reference {
    ($self:ident, |$r:ident| $call:expr) => {
        #[cfg(test)]
        if let Some($r) = &mut $self.reference {
            return $call;
        }
    };
}

impl OclgrindRaces {
    /// A model for a launch with `local_bytes` of local memory and buffers of these sizes.
    pub(crate) fn new(local_bytes: u64, buffer_bytes: &[u64], template: GroupInfo) -> Self {
        OclgrindRaces {
            log: [Vec::new(), Vec::new()],
            global_interval_start: 0,
            values: Vec::new(),
            next_id: 0,
            records: ByteTable::new(local_bytes, buffer_bytes),
            generation: 0,
            chunks: Vec::new(),
            order: Vec::new(),
            starts: Vec::new(),
            by_address: Vec::new(),
            findings: Findings::default(),
            sequence: 0,
            launch: ByteTable::new(0, buffer_bytes),
            merged: 0,
            sides: Vec::new(),
            pending: Vec::new(),
            between: Vec::new(),
            between_sequence: 0,
            template,
            #[cfg(test)]
            reference: USE_REFERENCE.get().then(Box::default),
        }
    }

    pub(crate) fn group_start(&mut self) {
        or_reference!(self, |r| r.group_start());
        self.log.iter_mut().for_each(Vec::clear);
        self.global_interval_start = 0;
        self.values.clear();
        self.next_id = 0;
        self.chunks.clear();
        self.generation = self.generation.wrapping_add(1).max(1);
    }

    /// Logs a memory instruction's accesses to local and global memory.
    pub(crate) fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        or_reference!(self, |r| r.memory_access(batch));
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
        or_reference!(self, |r| r.sync(fences, time, group, names, sink));
        for (space, fenced) in [(0, fences.local), (1, fences.global)] {
            let start = if space == 0 { 0 } else { self.global_interval_start };
            if !fenced || self.log[space].len() == start {
                continue;
            }
            let log = std::mem::take(&mut self.log[space]);
            self.replay(&log, start, space, time, group, names, sink);
            if space == 0 {
                // Local memory needs nothing past the interval.
                self.clear_interval(&log, |_, _| {});
                self.log[space] = log;
                self.log[space].clear();
            } else {
                let generation = self.generation;
                let mut chunks = std::mem::take(&mut self.chunks);
                let mut new_chunks = Vec::new();
                self.clear_interval(&log[start..], |addr, r| {
                    if r.group_load == EMPTY && r.group_store == EMPTY {
                        let chunk = addr >> CHUNK_SHIFT;
                        if new_chunks.last() != Some(&chunk) {
                            new_chunks.push(chunk);
                        }
                    }
                    keep(&mut r.group_load, r.interval_load);
                    keep(&mut r.group_store, r.interval_store);
                });
                // A chunk is listed once per group: the entry of its first byte says so.
                for chunk in new_chunks {
                    let mark = &mut self.records.byte(chunk << CHUNK_SHIFT).chunk_listed;
                    if *mark != generation {
                        *mark = generation;
                        chunks.push(chunk);
                    }
                }
                self.chunks = chunks;
                self.global_interval_start = log.len();
                self.log[space] = log;
            }
        }
    }

    /// Empties the interval's records of the bytes of `log`, first handing each byte the
    /// interval recorded to `merge`.
    fn clear_interval(&mut self, log: &[Logged], mut merge: impl FnMut(u64, &mut ByteRecords)) {
        for l in log {
            self.records.for_each(l.addr, l.size, |addr, r| {
                if r.interval_load != EMPTY || r.interval_store != EMPTY {
                    merge(addr, r);
                    r.interval_load = EMPTY;
                    r.interval_store = EMPTY;
                }
            });
        }
    }

    /// Replays `log[start..]` work-item by work-item (each in program order, the group's own
    /// accesses last) against the interval's record.
    #[allow(clippy::too_many_arguments)]
    fn replay(
        &mut self,
        log: &[Logged],
        start: usize,
        space: usize,
        time: u64,
        group: &GroupInfo,
        names: &dyn Fn(u64, u64) -> Option<String>,
        sink: &mut ReportSink,
    ) {
        // Work-item by work-item, each in program order (a counting sort: the log holds the
        // lanes of each instruction in turn); the group's own accesses last.
        let rank =
            |who: u32| if who == GROUP { group.lanes } else { (who as usize).min(group.lanes) };
        let mut starts = std::mem::take(&mut self.starts);
        starts.clear();
        starts.resize(group.lanes + 2, 0);
        for l in &log[start..] {
            starts[rank(l.who) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.resize(log.len() - start, 0);
        for (i, l) in log.iter().enumerate().skip(start) {
            let at = &mut starts[rank(l.who)];
            order[*at] = i as u32;
            *at += 1;
        }
        self.starts = starts;
        let sync = time.saturating_mul(2).saturating_add(space as u64);
        let slot = |i: u32, atomic: bool| if atomic { i | ATOMIC } else { i };
        let mut first = 0;
        while first < order.len() {
            let who = log[order[first] as usize].who;
            let end = order[first..]
                .iter()
                .position(|&i| log[i as usize].who != who)
                .map_or(order.len(), |n| first + n);
            // The work-item's own record: first load and first store (atomic ones give way).
            for &i in &order[first..end] {
                let l = &log[i as usize];
                let reference = slot(i, l.atomic());
                self.records.for_each(l.addr, l.size, |_, r| match l.part {
                    Part::Load | Part::AtomicRead => keep(&mut r.own_load, reference),
                    Part::Store => keep(&mut r.own_store, reference),
                    Part::Atomic => {
                        keep(&mut r.own_load, reference);
                        keep(&mut r.own_store, reference);
                    }
                });
            }
            // Its bytes in address order, each once, against the interval's record.
            self.by_address.clear();
            self.by_address.extend(
                order[first..end].iter().map(|&i| (log[i as usize].addr, log[i as usize].size)),
            );
            if !self.by_address.is_sorted_by_key(|a| a.0) {
                self.by_address.sort_unstable_by_key(|a| a.0);
            }
            let mut covered = 0u64;
            let by_address = std::mem::take(&mut self.by_address);
            for &(addr, size) in &by_address {
                let end_addr = addr.wrapping_add(u64::from(size));
                let from = if addr < covered { covered - addr } else { 0 };
                if from >= u64::from(size) {
                    continue;
                }
                covered = end_addr.max(covered);
                let findings = &mut self.findings;
                let values = &self.values;
                let mut check = |at: u64, r: &mut ByteRecords| {
                    let (load, store) = (r.own_load, r.own_store);
                    if load == EMPTY && store == EMPTY {
                        return;
                    }
                    r.own_load = EMPTY;
                    r.own_store = EMPTY;
                    // Work-items of one interval differ, so only atomics keep accesses apart.
                    if may_race(load, r.interval_store) {
                        let first = log_side(log, values, load, false, at, group.group_index);
                        let second =
                            log_side(log, values, r.interval_store, true, at, group.group_index);
                        findings.note(first, second, false, at);
                    }
                    if is_set(store) {
                        if may_race(store, r.interval_load) {
                            let first = log_side(log, values, store, true, at, group.group_index);
                            let second = log_side(
                                log,
                                values,
                                r.interval_load,
                                false,
                                at,
                                group.group_index,
                            );
                            findings.note(first, second, false, at);
                        }
                        if may_race(store, r.interval_store) {
                            let first = log_side(log, values, store, true, at, group.group_index);
                            let second = log_side(
                                log,
                                values,
                                r.interval_store,
                                true,
                                at,
                                group.group_index,
                            );
                            findings.note(first, second, true, at);
                        }
                    }
                    keep(&mut r.interval_load, load);
                    keep(&mut r.interval_store, store);
                };
                if from == 0 {
                    self.records.for_each(addr, size, &mut check);
                } else {
                    for b in from..u64::from(size) {
                        let at = addr.wrapping_add(b);
                        check(at, self.records.byte(at));
                    }
                }
            }
            self.by_address = by_address;
            if !self.findings.is_empty() {
                for found in self.findings.take() {
                    let report = self.report(&found, group, group, sync, names);
                    sink.push(report);
                }
            }
            first = end;
        }
        self.order = order;
    }

    /// Ends the group: its accesses are checked, and its record of global memory goes to the
    /// launch's (now, or once the groups before it have).
    pub(crate) fn group_end(
        &mut self,
        group: &GroupInfo,
        names: &dyn Fn(u64, u64) -> Option<String>,
        sink: &mut ReportSink,
    ) {
        or_reference!(self, |r| r.group_end(group, names, sink));
        self.sync(FenceFlags { local: true, global: true }, u64::MAX, group, names, sink);
        let record = self.take_group_record(group.group_index);
        self.next_id = 0;
        if record.index == self.merged {
            self.merge_into_launch(record, names);
        } else {
            self.pending.push(record);
        }
    }

    /// The group's record of global memory, in address order, emptied from the table.
    fn take_group_record(&mut self, index: u64) -> GroupRecord {
        let mut chunks = std::mem::take(&mut self.chunks);
        chunks.sort_unstable();
        let log = std::mem::take(&mut self.log[1]);
        let mut kept = vec![EMPTY; log.len()];
        let mut accesses = Vec::new();
        let mut refer = |slot: u32| -> u32 {
            if slot == EMPTY {
                return EMPTY;
            }
            let i = (slot & !ATOMIC) as usize;
            if kept[i] == EMPTY {
                let l = &log[i];
                kept[i] = accesses.len() as u32;
                accesses.push(KeptAccess {
                    group: index,
                    who: l.who,
                    span: l.span,
                    id: l.id,
                    size: l.size,
                    atomic: l.atomic(),
                });
            }
            kept[i] | (slot & ATOMIC)
        };
        let mut bytes = Vec::new();
        for &chunk in &chunks {
            let base = chunk << CHUNK_SHIFT;
            let values = &self.values;
            self.records.for_each(base, 1 << CHUNK_SHIFT, |addr, r| {
                if r.group_load == EMPTY && r.group_store == EMPTY {
                    return;
                }
                let value = match r.group_store {
                    EMPTY => NO_BYTE,
                    s => stored_byte(&log, values, s, addr).map_or(NO_BYTE, u16::from),
                };
                bytes.push((addr, refer(r.group_load), refer(r.group_store), value));
                r.group_load = EMPTY;
                r.group_store = EMPTY;
            });
        }
        chunks.clear();
        self.chunks = chunks;
        self.log[1] = log;
        self.log[1].clear();
        self.global_interval_start = 0;
        GroupRecord { index, accesses, bytes }
    }

    /// Merges a group's record into the launch's, reporting the races with the groups merged
    /// before it, then any waiting group that now follows.
    fn merge_into_launch(
        &mut self,
        record: GroupRecord,
        names: &dyn Fn(u64, u64) -> Option<String>,
    ) {
        let mut used = vec![EMPTY; record.accesses.len()];
        for &(addr, load, store, value) in &record.bytes {
            let theirs = *self.launch.byte(addr);
            let side = |slot: u32, store: bool, value: u16| {
                record.accesses[(slot & !ATOMIC) as usize].side(store, value)
            };
            let kept = |slot: u32, store: bool, value: u16| {
                self.sides[(slot & !ATOMIC) as usize].side(store, value)
            };
            // Sides of different groups: only two atomics keep them apart.
            if may_race(load, theirs.store) {
                let (a, b) = (side(load, false, NO_BYTE), kept(theirs.store, true, theirs.value));
                self.findings.note(a, b, false, addr);
            }
            if is_set(store) {
                if may_race(store, theirs.load) {
                    let (a, b) = (side(store, true, value), kept(theirs.load, false, NO_BYTE));
                    self.findings.note(a, b, false, addr);
                }
                if may_race(store, theirs.store) {
                    let (a, b) = (side(store, true, value), kept(theirs.store, true, theirs.value));
                    self.findings.note(a, b, true, addr);
                }
            }
            let mut launch_slot = |slot: u32| -> u32 {
                if slot == EMPTY {
                    return EMPTY;
                }
                let i = (slot & !ATOMIC) as usize;
                if used[i] == EMPTY {
                    used[i] = self.sides.len() as u32;
                    self.sides.push(record.accesses[i]);
                }
                used[i] | (slot & ATOMIC)
            };
            let here = *self.launch.byte(addr);
            let mut updated = here;
            if here.load & ATOMIC != 0 && load != EMPTY {
                updated.load = launch_slot(load);
            }
            if here.store & ATOMIC != 0 && store != EMPTY {
                updated.store = launch_slot(store);
                updated.value = value;
            }
            *self.launch.byte(addr) = updated;
        }
        let group = self.group_info(record.index);
        for found in self.findings.take() {
            let other = self.group_info(found.second.group);
            let mut report = self.report(&found, &group, &other, 0, names);
            // Oclgrind reports races between work-groups when the launch ends, in the order
            // it finds them.
            self.between_sequence += 1;
            report.time = self.between_sequence;
            report.group_index = u64::MAX;
            report.lane = 0;
            self.between.push(report);
        }
        self.merged = record.index + 1;
        if let Some(at) = self.pending.iter().position(|p| p.index == self.merged) {
            let next = self.pending.swap_remove(at);
            self.merge_into_launch(next, names);
        }
    }

    /// The description of group `index` of the launch.
    fn group_info(&self, index: u64) -> GroupInfo {
        let n = self.template.num_groups;
        let (nx, ny) = (n[0].max(1), n[1].max(1));
        GroupInfo {
            group_id: [index % nx, (index / nx) % ny, index / (nx * ny)],
            group_index: index,
            ..self.template.clone()
        }
    }

    /// Absorbs another thread's finished groups.
    pub(crate) fn merge(&mut self, mut other: OclgrindRaces) {
        #[cfg(test)]
        if let (Some(mine), Some(theirs)) = (&mut self.reference, other.reference.take()) {
            return mine.merge(*theirs);
        }
        // At most one thread merged groups into its launch record (the one that ran group
        // 0): that record is the one to keep.
        if other.merged > self.merged {
            std::mem::swap(&mut self.launch, &mut other.launch);
            std::mem::swap(&mut self.sides, &mut other.sides);
            std::mem::swap(&mut self.merged, &mut other.merged);
            std::mem::swap(&mut self.between_sequence, &mut other.between_sequence);
        }
        self.pending.extend(other.pending);
        self.between.extend(other.between);
    }

    /// The races between work-groups: each group's record of global memory, in group order,
    /// against what the groups before it left.
    pub(crate) fn between_groups(
        &mut self,
        names: &dyn Fn(u64, u64) -> Option<String>,
    ) -> Vec<Report> {
        #[cfg(test)]
        if let Some(mut r) = self.reference.take() {
            let reports = r.between_groups(&|index| self.group_info(index), names);
            self.reference = Some(r);
            return reports;
        }
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_by_key(|p| p.index);
        for record in pending {
            // Groups that never ran (a launch cut short) leave gaps: merge past them.
            self.merged = self.merged.max(record.index);
            self.merge_into_launch(record, names);
        }
        let mut sink = ReportSink::new(true);
        for report in std::mem::take(&mut self.between) {
            sink.push(report);
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

/// The byte an access of the log stored at `addr` (an atomic's: read), when known.
fn stored_byte(log: &[Logged], values: &[u8], slot: u32, addr: u64) -> Option<u8> {
    let l = log.get((slot & !ATOMIC) as usize)?;
    if l.value == NO_VALUE {
        return None;
    }
    values.get(l.value as usize + addr.wrapping_sub(l.addr) as usize).copied()
}

/// The side an access of the log is in a record of byte `addr`.
fn log_side(log: &[Logged], values: &[u8], slot: u32, store: bool, addr: u64, group: u64) -> Side {
    let l = &log[(slot & !ATOMIC) as usize];
    Side {
        group,
        who: l.who,
        span: l.span,
        atomic: l.atomic(),
        store,
        value: if store { stored_byte(log, values, slot, addr) } else { None },
        id: l.id,
        size: l.size,
    }
}
