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
//! the first of them; a work-item's (or a group's) reports are listed in the order of their
//! first bytes, then load against store, store against load, store against store.
//!
//! Cost: the records are flat tables (one per buffer and one for local memory) whose entries
//! name accesses of the log by index, so a replay allocates nothing per byte. The log keeps
//! 16 bytes per access (address, work-item, instruction); what the lanes of one instruction
//! share is kept once. The replay visits each access's words once: a word's entry holds the
//! own record of the last work-item that touched it, checked against the interval's record
//! and added to it (and to the group's) when the next work-item touches the word, or at the
//! synchronisation for the last one. Only the order in which the work-items touch one word
//! matters, so a work-item's accesses are taken in program order, not sorted by address, and
//! the reports are put in work-item and address order afterwards (see [`Findings`]). Each
//! work-item replayed gets a stamp higher than all before (see [`Records`]): an entry
//! stamped before the interval's first work-item holds nothing of the interval, so the
//! interval's record is emptied without a pass over its words. An entry stands
//! for an aligned 4-byte word, not a byte, while the word's four bytes agree: what a record
//! keeps of a byte is the same for each byte of the word (the same accesses; the values
//! stored follow from the access and the address). An access that covers whole words
//! checks and records each word once, as its first byte, with the values of all four bytes
//! compared; one that covers part of a word (a smaller access, a misaligned one) splits the
//! word into four byte entries, kept in a side table, and works on those. Replaying a
//! byte-wise model this way reports exactly what it would: a race is noted at the first byte
//! of the first word or byte that has it, in the same order, and a word's other bytes would
//! only have noted the same races again. A split word is joined again where its records are
//! emptied and its bytes agree once more: local memory's after each synchronisation of it
//! (its words are still in cache), global memory's when the group ends; the launch's record
//! of a word stays split once split.
//!
//! A group's record of global memory is merged into the launch's when the group ends, if the
//! groups before it have been merged (always so on one thread); otherwise it waits,
//! compacted, for the launch's end.

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use clmap_lang::ir::{AddressSpace, FenceFlags};
use clmap_lang::Span;

use crate::memory::{decode, Target};
use crate::observer::{AccessBatch, AccessKind, GroupInfo, StoredValues};
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
/// Bytes per chunk of the list of words a group's record holds (kept in address order by
/// sorting chunks, not words).
const CHUNK_SHIFT: u32 = 6;
/// Bytes per word, the unit a record keeps while the word's bytes agree.
const WORD: u64 = 4;
/// A word's [`Word::split`] while its bytes agree.
const WHOLE: u32 = u32::MAX;

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

/// One access of the current group, 16 bytes: what its instruction's lanes share is in
/// its [`LoggedBatch`]. An access is named by its index in its space's log.
#[derive(Clone, Copy, Debug)]
struct Logged {
    addr: u64,
    /// The work-item, or [`GROUP`].
    who: u32,
    /// Index in [`OclgrindRaces::batches`], with [`UNCHANGED`] set for an atomic operation
    /// that only read.
    batch: u32,
}

/// [`Logged::batch`]'s flag for a failed compare-and-exchange.
const UNCHANGED: u32 = 1 << 31;

/// What the accesses of one memory instruction share.
#[derive(Clone, Copy, Debug)]
struct LoggedBatch {
    size: u32,
    part: Part,
    span: Span,
    /// Offset in [`OclgrindRaces::values`] of the bytes stored (an atomic's: read) by lane 0,
    /// each lane's `size` bytes following in lane order (by the group: of its one access);
    /// [`NO_VALUE`] when not known.
    values: u32,
    by_group: bool,
}

/// An access of the log with what its batch says of it.
#[derive(Clone, Copy, Debug)]
struct Access {
    who: u32,
    addr: u64,
    size: u32,
    part: Part,
    span: Span,
    /// Offset in [`OclgrindRaces::values`] of the bytes stored (an atomic's: read).
    value: u32,
    /// Its index in its space's log, so the bytes of one access report once.
    id: u32,
}

impl Access {
    #[inline(always)]
    fn of(log: &[Logged], batches: &[LoggedBatch], id: u32) -> Access {
        let l = log[id as usize];
        let b = &batches[(l.batch & !UNCHANGED) as usize];
        let unchanged = l.batch & UNCHANGED != 0;
        let part = if unchanged { Part::AtomicRead } else { b.part };
        let value = if unchanged || b.values == NO_VALUE {
            NO_VALUE
        } else if b.by_group {
            b.values
        } else {
            b.values + l.who * b.size
        };
        Access { who: l.who, addr: l.addr, size: b.size, part, span: b.span, value, id }
    }

    fn atomic(&self) -> bool {
        matches!(self.part, Part::Atomic | Part::AtomicRead)
    }
}

/// What a record keeps of one word or byte, in every record the replay needs: the current
/// work-item's own, the interval's and (global memory only) the group's. Each slot names an
/// access of the log (see [`ATOMIC`]). `stamp` names the last work-item that touched it:
/// each work-item replayed gets a stamp higher than all before, so an entry whose stamp is
/// older than the replay's first holds nothing of the interval (its record is emptied by
/// moving on, not by visiting its words again), and one touched earlier in the replay holds
/// that work-item's own record, still to be checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Records {
    own_load: u32,
    own_store: u32,
    interval_load: u32,
    interval_store: u32,
    stamp: u32,
    group_load: u32,
    group_store: u32,
}

impl Default for Records {
    fn default() -> Self {
        Records {
            own_load: EMPTY,
            own_store: EMPTY,
            interval_load: EMPTY,
            interval_store: EMPTY,
            stamp: 0,
            group_load: EMPTY,
            group_store: EMPTY,
        }
    }
}

/// The launch's record of one word or byte of global memory: slots name
/// [`OclgrindRaces::sides`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LaunchRecord {
    load: u32,
    store: u32,
}

impl Default for LaunchRecord {
    fn default() -> Self {
        LaunchRecord { load: EMPTY, store: EMPTY }
    }
}

/// One aligned word of a region: its entry while its bytes agree, else ([`Word::split`] not
/// [`WHOLE`]) the index of its four byte entries in [`WordTable::split`].
#[derive(Clone, Copy, Debug)]
struct Word<T> {
    entry: T,
    split: u32,
}

/// Local memory or a buffer: one entry per word, allocated when first touched.
#[derive(Debug)]
struct Region<T> {
    len: u64,
    words: Vec<Word<T>>,
}

/// The entries of a record: per word of local memory and of each buffer (split into bytes
/// where the bytes differ, see the module doc), and per byte in a map for addresses outside
/// them (out-of-bounds accesses).
#[derive(Debug)]
struct WordTable<T> {
    /// Local memory, then the buffers in argument order.
    regions: Vec<Region<T>>,
    split: Vec<[T; WORD as usize]>,
    /// Entries of `split` no word uses.
    free: Vec<u32>,
    other: HashMap<u64, T>,
}

impl<T: Copy + Default + PartialEq> WordTable<T> {
    fn new(local_len: u64, buffer_lens: &[u64]) -> Self {
        let regions = std::iter::once(local_len)
            .chain(buffer_lens.iter().copied())
            .map(|len| Region { len, words: Vec::new() })
            .collect();
        WordTable { regions, split: Vec::new(), free: Vec::new(), other: HashMap::new() }
    }

    /// The region and offset of `addr`, when it lies in local memory or a buffer.
    #[inline(always)]
    fn locate(&self, addr: u64) -> Option<(usize, u64)> {
        let (region, offset) = match decode(addr) {
            Target::Local { offset } => (0, offset),
            Target::Buffer { index, offset } => (index + 1, offset),
            _ => return None,
        };
        (offset < self.regions.get(region)?.len).then_some((region, offset))
    }

    /// Calls `f` on every entry.
    fn for_all(&mut self, mut f: impl FnMut(&mut T)) {
        let words = self.regions.iter_mut().flat_map(|r| r.words.iter_mut().map(|w| &mut w.entry));
        words.for_each(&mut f);
        self.split.iter_mut().flatten().for_each(&mut f);
        self.other.values_mut().for_each(f);
    }

    /// Calls `f(address, width, entry)` on the entries of `size` bytes from `addr`, in address
    /// order: once per word the bytes cover whole and that is not split (width 4), once per
    /// byte elsewhere (width 1), splitting the words they cover in part.
    #[inline(always)]
    fn for_each(&mut self, addr: u64, size: u32, mut f: impl FnMut(u64, u32, &mut T)) {
        // Most accesses are one aligned word, kept whole: straight to its entry.
        if size == WORD as u32 {
            if let Some(entry) = self.whole_word(addr) {
                return f(addr, size, entry);
            }
        }
        self.visit(addr, size, false, f);
    }

    /// The entry of the aligned word at `addr`, when it is allocated and not split.
    #[inline(always)]
    fn whole_word(&mut self, addr: u64) -> Option<&mut T> {
        if !addr.is_multiple_of(WORD) {
            return None;
        }
        let (index, offset) = self.locate(addr)?;
        let region = &mut self.regions[index];
        if offset + WORD > region.len {
            return None;
        }
        let word = region.words.get_mut((offset / WORD) as usize)?;
        (word.split == WHOLE).then_some(&mut word.entry)
    }

    /// [`Self::for_each`], then joins each split word it visited whose bytes agree again.
    #[inline(always)]
    fn for_each_then_join(&mut self, addr: u64, size: u32, f: impl FnMut(u64, u32, &mut T)) {
        self.visit(addr, size, true, f);
    }

    #[inline(always)]
    fn visit(&mut self, addr: u64, size: u32, join: bool, mut f: impl FnMut(u64, u32, &mut T)) {
        let mut at = addr;
        let mut left = u64::from(size);
        while left > 0 {
            let Some((index, offset)) = self.locate(at) else {
                f(at, 1, self.other.entry(at).or_default());
                at = at.wrapping_add(1);
                left -= 1;
                continue;
            };
            let region = &mut self.regions[index];
            if region.words.is_empty() {
                let words = usize::try_from(region.len.div_ceil(WORD)).unwrap_or(0);
                region.words = vec![Word { entry: T::default(), split: WHOLE }; words];
            }
            let base = at - offset;
            let end = offset + left.min(region.len - offset);
            let mut from = offset;
            while from < end {
                let start = from - from % WORD;
                let to = end.min(start + WORD);
                let word = &mut region.words[(start / WORD) as usize];
                if from == start && to == start + WORD && word.split == WHOLE {
                    f(base + start, WORD as u32, &mut word.entry);
                } else {
                    if word.split == WHOLE {
                        word.split = match self.free.pop() {
                            Some(i) => {
                                self.split[i as usize] = [word.entry; WORD as usize];
                                i
                            }
                            None => {
                                self.split.push([word.entry; WORD as usize]);
                                (self.split.len() - 1) as u32
                            }
                        };
                    }
                    let bytes = &mut self.split[word.split as usize];
                    for b in from..to {
                        f(base + b, 1, &mut bytes[(b - start) as usize]);
                    }
                    if join && bytes.iter().all(|e| *e == bytes[0]) {
                        word.entry = bytes[0];
                        self.free.push(word.split);
                        word.split = WHOLE;
                    }
                }
                from = to;
            }
            let visited = end - offset;
            at = at.wrapping_add(visited);
            left -= visited;
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
    addr: u64,
    size: u32,
    atomic: bool,
    /// Offset of the bytes stored (an atomic's: read) in the holder's values, or
    /// [`NO_VALUE`].
    value: u32,
}

impl KeptAccess {
    fn side(&self, store: bool) -> Side {
        Side {
            group: self.group,
            who: self.who,
            span: self.span,
            atomic: self.atomic,
            store,
            id: self.id,
            size: self.size,
        }
    }

    /// The `width` bytes it stored at `addr`, when known.
    fn stored<'a>(&self, values: &'a [u8], addr: u64, width: u32) -> Option<&'a [u8]> {
        stored_bytes(self.value, self.addr, values, addr, width)
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

impl Found {
    /// Where a race is found when a record is checked in address order: its byte, then
    /// load against store, store against load, store against store.
    fn place(&self) -> (u64, bool, bool) {
        (self.addr, self.write_write, self.first.store)
    }
}

/// Collects the races of one side's accesses, one per pair of accesses and kind, each at
/// the first place it is found in address order (see [`Found::place`]); they are listed in
/// that order however the bytes were visited.
#[derive(Debug, Default)]
struct Findings {
    found: Vec<Found>,
    index: HashMap<(u32, u64, u32, u64, bool), usize>,
}

impl Findings {
    /// Notes a race at `addr`; `differs`: whether the bytes there differ (a read-write race
    /// always does).
    fn note(&mut self, first: Side, second: Side, write_write: bool, differs: bool, addr: u64) {
        let key = (first.id, first.group, second.id, second.group, write_write);
        let size = first.size;
        let new = Found { first, second, write_write, differs, addr, size };
        match self.index.get(&key) {
            Some(&at) => {
                let found = &mut self.found[at];
                let differs = found.differs || differs;
                if new.place() < found.place() {
                    *found = new;
                }
                found.differs = differs;
            }
            None => {
                self.index.insert(key, self.found.len());
                self.found.push(new);
            }
        }
    }

    /// The races found, in address order.
    fn take(&mut self) -> Vec<Found> {
        self.take_by(Found::place)
    }

    /// The races found, in the order of `key`.
    fn take_by<K: Ord>(&mut self, key: impl FnMut(&Found) -> K) -> Vec<Found> {
        self.index.clear();
        let mut found = std::mem::take(&mut self.found);
        found.sort_by_key(key);
        found
    }
}

/// Whether two stores left different bytes, an unknown value counting as different.
fn differ(a: Option<&[u8]>, b: Option<&[u8]>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    }
}

/// A group's record of global memory, waiting for the groups before it to be merged into
/// the launch's: words and bytes in address order, slots naming `accesses`.
#[derive(Debug)]
struct GroupRecord {
    index: u64,
    accesses: Vec<KeptAccess>,
    /// The bytes `accesses` stored.
    values: Vec<u8>,
    /// (address, width, load, store).
    entries: Vec<(u64, u32, u32, u32)>,
}

impl GroupRecord {
    fn empty() -> Self {
        GroupRecord { index: 0, accesses: Vec::new(), values: Vec::new(), entries: Vec::new() }
    }
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
    /// What the accesses of each memory instruction of the group share.
    batches: Vec<LoggedBatch>,
    values: Vec<u8>,
    /// The stamp of the last work-item replayed (see [`Records`]).
    stamp: u32,
    records: WordTable<Records>,
    /// Chunks (address >> [`CHUNK_SHIFT`]) of the group's record of global memory, listed
    /// again for each interval that adds to them.
    chunks: Vec<u64>,
    /// Scratch: the log in replay order, as (address, batch, index in the log), and where
    /// each work-item's accesses end in it. The replay reads the accesses it needs from this
    /// copy, in order, rather than from the log by index: a work-item's accesses lie one
    /// instruction's lanes apart there, each read a cache miss on a large log.
    order: Vec<(u64, u32, u32)>,
    starts: Vec<usize>,
    /// Scratch: the words and bytes (address, width) an interval touched.
    touched: Vec<(u64, u32)>,
    /// Scratch for moving a group's record to the launch's: the index of each access of the
    /// log among those kept (all [`EMPTY`] between groups), of each kept one among the launch's sides, and the buffers of
    /// the last record merged.
    kept: Vec<u32>,
    used: Vec<u32>,
    spare: GroupRecord,
    findings: Findings,
    /// Orders the reports of one synchronisation.
    sequence: u64,
    /// The launch's record of global memory: groups `0..merged` are in it.
    launch: WordTable<LaunchRecord>,
    merged: u64,
    sides: Vec<KeptAccess>,
    /// The bytes `sides` stored.
    side_values: Vec<u8>,
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
            batches: Vec::new(),
            values: Vec::new(),
            stamp: 0,
            records: WordTable::new(local_bytes, buffer_bytes),
            chunks: Vec::new(),
            order: Vec::new(),
            starts: Vec::new(),
            touched: Vec::new(),
            kept: Vec::new(),
            used: Vec::new(),
            spare: GroupRecord::empty(),
            findings: Findings::default(),
            sequence: 0,
            launch: WordTable::new(0, buffer_bytes),
            merged: 0,
            sides: Vec::new(),
            side_values: Vec::new(),
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
        self.batches.clear();
        self.chunks.clear();
    }

    /// Logs a memory instruction's accesses to local and global memory.
    pub(crate) fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        or_reference!(self, |r| r.memory_access(batch));
        let space = match batch.space {
            AddressSpace::Local => 0,
            AddressSpace::Global => 1,
            _ => return,
        };
        let part = match batch.kind {
            AccessKind::Load => Part::Load,
            AccessKind::Store => Part::Store,
            AccessKind::Atomic => Part::Atomic,
        };
        let size = batch.size;
        let stored = batch.stored.filter(|_| matches!(part, Part::Store | Part::Atomic));
        let shared =
            LoggedBatch { size, part, span: batch.span, values: NO_VALUE, by_group: false };
        let mut batch_index = self.batches.len() as u32;
        if !batch.by_group {
            // The lanes' bytes in lane order, so an access finds its own from its lane.
            let lanes = batch.addresses.len();
            let values = stored.and_then(|stored| {
                let at = grow_values(&mut self.values, lanes as u64 * u64::from(size))?;
                for lane in batch.mask.iter().filter(|&lane| lane < lanes) {
                    let from = at as usize + lane * size as usize;
                    copy_stored(&stored, lane, &mut self.values[from..from + size as usize]);
                }
                Some(at)
            });
            self.batches.push(LoggedBatch { values: values.unwrap_or(NO_VALUE), ..shared });
        }
        for lane in batch.mask.iter() {
            let Some(&addr) = batch.addresses.get(lane) else { continue };
            let who = if batch.by_group {
                // A batch of its own, holding this access's bytes.
                let values = stored.and_then(|stored| {
                    let at = grow_values(&mut self.values, u64::from(size))?;
                    copy_stored(&stored, lane, &mut self.values[at as usize..]);
                    Some(at)
                });
                batch_index = self.batches.len() as u32;
                self.batches.push(LoggedBatch {
                    values: values.unwrap_or(NO_VALUE),
                    by_group: true,
                    ..shared
                });
                GROUP
            } else {
                lane as u32
            };
            let unchanged = part == Part::Atomic && batch.unchanged.is_some_and(|m| m.get(lane));
            let flag = if unchanged { UNCHANGED } else { 0 };
            self.log[space].push(Logged { addr, who, batch: batch_index | flag });
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
                // Local memory needs nothing past the interval: its log is dropped, and the
                // words it split joined again while they are still in cache.
                self.rejoin();
                self.log[space] = log;
                self.log[space].clear();
            } else {
                // The replay moved the interval's record into the group's as it went.
                self.global_interval_start = log.len();
                self.log[space] = log;
            }
        }
    }

    /// Empties the interval's records of the words and bytes the replay touched (of local
    /// memory, as [`Records::default`] has them) and joins the split words whose bytes agree
    /// again.
    fn rejoin(&mut self) {
        for &(addr, width) in &self.touched {
            self.records.for_each_then_join(addr, width, |_, _, r| {
                r.interval_load = EMPTY;
                r.interval_store = EMPTY;
                r.stamp = 0;
            });
        }
    }

    /// Replays `log[start..]` work-item by work-item (each in program order, the group's own
    /// accesses last) against the interval's record; of global memory (`space` 1), adds to
    /// the group's record what it adds to the interval's.
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
        order.resize(log.len() - start, (0, 0, 0));
        for (i, l) in log.iter().enumerate().skip(start) {
            let at = &mut starts[rank(l.who)];
            order[*at] = (l.addr, l.batch, i as u32);
            *at += 1;
        }
        // Now `starts[r]` is where rank `r + 1` starts.
        let sync = time.saturating_mul(2).saturating_add(space as u64);
        let slot = |i: u32, atomic: bool| if atomic { i | ATOMIC } else { i };
        // Every work-item gets a stamp of its own, higher than any before (see `Records`).
        if u64::from(self.stamp) + group.lanes as u64 + 2 > u64::from(u32::MAX) {
            self.records.for_all(|r| {
                r.interval_load = EMPTY;
                r.interval_store = EMPTY;
                r.stamp = 0;
            });
            self.stamp = 0;
        }
        let first_stamp = self.stamp + 1;
        let mut stamp = self.stamp;
        let batches = std::mem::take(&mut self.batches);
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        let mut chunks = std::mem::take(&mut self.chunks);
        let findings = &mut self.findings;
        let values = &self.values;
        let g = group.group_index;
        let side = |slot: u32, store: bool| log_side(log, &batches, slot, store, g);
        let stored_at = |slot: u32, at: u64, width: u32| {
            let l = Access::of(log, &batches, slot & !ATOMIC);
            stored_bytes(l.value, l.addr, values, at, width)
        };
        // Checks the pending work-item's first load and store of a word or byte (it has
        // made all its accesses) against the interval's record, then adds them to it and,
        // of global memory, to the group's: keeping the first of the interval's first
        // accesses is keeping the first of the work-items' (see `keep`).
        let mut settle = |at: u64, width: u32, r: &mut Records| {
            let (load, store) = (r.own_load, r.own_store);
            if load == EMPTY && store == EMPTY {
                return;
            }
            r.own_load = EMPTY;
            r.own_store = EMPTY;
            // Work-items of one interval differ, so only atomics keep accesses apart.
            if may_race(load, r.interval_store) {
                findings.note(side(load, false), side(r.interval_store, true), false, true, at);
            }
            if is_set(store) {
                if may_race(store, r.interval_load) {
                    let (first, second) = (side(store, true), side(r.interval_load, false));
                    findings.note(first, second, false, true, at);
                }
                if may_race(store, r.interval_store) {
                    let (first, second) = (side(store, true), side(r.interval_store, true));
                    let differs =
                        differ(stored_at(store, at, width), stored_at(r.interval_store, at, width));
                    findings.note(first, second, true, differs, at);
                }
            }
            keep(&mut r.interval_load, load);
            keep(&mut r.interval_store, store);
            if space == 1 {
                if r.group_load == EMPTY && r.group_store == EMPTY {
                    let chunk = at >> CHUNK_SHIFT;
                    if chunks.last() != Some(&chunk) {
                        chunks.push(chunk);
                    }
                }
                keep(&mut r.group_load, load);
                keep(&mut r.group_store, store);
            }
        };
        // Work-item by work-item, each access's words and bytes once: the first load and
        // first store it makes of each (atomic ones give way) are its own record, checked
        // when the next work-item touches the word, or at the end.
        let mut first = 0;
        for &end in &starts[..starts.len() - 1] {
            if end == first {
                continue;
            }
            stamp += 1;
            for &(addr, batch, i) in &order[first..end] {
                let b = &batches[(batch & !UNCHANGED) as usize];
                let part = if batch & UNCHANGED != 0 { Part::AtomicRead } else { b.part };
                let reference = slot(i, matches!(part, Part::Atomic | Part::AtomicRead));
                self.records.for_each(addr, b.size, |at, width, r| {
                    if r.stamp != stamp {
                        if r.stamp >= first_stamp {
                            settle(at, width, r);
                        } else {
                            // Untouched since the interval began: its record is empty.
                            r.interval_load = EMPTY;
                            r.interval_store = EMPTY;
                            touched.push((at, width));
                        }
                        r.stamp = stamp;
                    }
                    match part {
                        Part::Load | Part::AtomicRead => keep(&mut r.own_load, reference),
                        Part::Store => keep(&mut r.own_store, reference),
                        Part::Atomic => {
                            keep(&mut r.own_load, reference);
                            keep(&mut r.own_store, reference);
                        }
                    }
                });
            }
            first = end;
        }
        // The last work-item to touch each word or byte.
        for &(at, width) in &touched {
            self.records.for_each(at, width, &mut settle);
        }
        self.stamp = stamp;
        self.batches = batches;
        self.touched = touched;
        self.chunks = chunks;
        self.order = order;
        self.starts = starts;
        // Work-item by work-item, each one's in the order of their first bytes.
        let rank =
            |who: u32| if who == GROUP { group.lanes } else { (who as usize).min(group.lanes) };
        for found in self.findings.take_by(|f| (rank(f.first.who), f.place())) {
            let report = self.report(&found, group, group, sync, names);
            sink.push(report);
        }
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
        chunks.dedup();
        let log = std::mem::take(&mut self.log[1]);
        // Scratch reused from group to group, empty between them: filling it afresh would
        // cost a pass over the whole log, of which only the accesses kept are needed.
        let mut kept = std::mem::take(&mut self.kept);
        if kept.len() < log.len() {
            kept.resize(log.len(), EMPTY);
        }
        let GroupRecord { mut accesses, mut values, mut entries, .. } =
            std::mem::replace(&mut self.spare, GroupRecord::empty());
        let mut refer = |slot: u32| -> u32 {
            if slot == EMPTY {
                return EMPTY;
            }
            let i = (slot & !ATOMIC) as usize;
            if kept[i] == EMPTY {
                let l = Access::of(&log, &self.batches, i as u32);
                kept[i] = accesses.len() as u32;
                accesses.push(KeptAccess {
                    group: index,
                    who: l.who,
                    span: l.span,
                    id: l.id,
                    addr: l.addr,
                    size: l.size,
                    atomic: l.atomic(),
                    value: keep_values(&mut values, &self.values, l.value, l.size),
                });
            }
            kept[i] | (slot & ATOMIC)
        };
        for &chunk in &chunks {
            let base = chunk << CHUNK_SHIFT;
            self.records.for_each_then_join(base, 1 << CHUNK_SHIFT, |addr, width, r| {
                if r.group_load == EMPTY && r.group_store == EMPTY {
                    return;
                }
                entries.push((addr, width, refer(r.group_load), refer(r.group_store)));
                // Every slot empty again, as the next group's replay expects (and the bytes
                // of a split word agree again once all are).
                *r = Records::default();
            });
        }
        chunks.clear();
        self.chunks = chunks;
        self.log[1] = log;
        self.log[1].clear();
        self.global_interval_start = 0;
        for access in &accesses {
            kept[access.id as usize] = EMPTY;
        }
        self.kept = kept;
        GroupRecord { index, accesses, values, entries }
    }

    /// Merges a group's record into the launch's, reporting the races with the groups merged
    /// before it, then any waiting group that now follows.
    fn merge_into_launch(
        &mut self,
        record: GroupRecord,
        names: &dyn Fn(u64, u64) -> Option<String>,
    ) {
        let mut used = std::mem::take(&mut self.used);
        used.clear();
        used.resize(record.accesses.len(), EMPTY);
        let (findings, sides, side_values) =
            (&mut self.findings, &mut self.sides, &mut self.side_values);
        for &(addr, width, load, store) in &record.entries {
            let mine = |slot: u32| &record.accesses[(slot & !ATOMIC) as usize];
            self.launch.for_each(addr, width, |at, width, theirs| {
                let kept = |slot: u32| sides[(slot & !ATOMIC) as usize];
                // Sides of different groups: only two atomics keep them apart.
                if may_race(load, theirs.store) {
                    let (a, b) = (mine(load).side(false), kept(theirs.store).side(true));
                    findings.note(a, b, false, true, at);
                }
                if is_set(store) {
                    if may_race(store, theirs.load) {
                        let (a, b) = (mine(store).side(true), kept(theirs.load).side(false));
                        findings.note(a, b, false, true, at);
                    }
                    if may_race(store, theirs.store) {
                        let (a, b) = (mine(store).side(true), kept(theirs.store).side(true));
                        let differs = differ(
                            mine(store).stored(&record.values, at, width),
                            kept(theirs.store).stored(side_values, at, width),
                        );
                        findings.note(a, b, true, differs, at);
                    }
                }
                let mut launch_slot = |slot: u32| -> u32 {
                    let i = (slot & !ATOMIC) as usize;
                    if used[i] == EMPTY {
                        used[i] = sides.len() as u32;
                        let access = record.accesses[i];
                        let value =
                            keep_values(side_values, &record.values, access.value, access.size);
                        sides.push(KeptAccess { value, ..access });
                    }
                    used[i] | (slot & ATOMIC)
                };
                if theirs.load & ATOMIC != 0 && load != EMPTY {
                    theirs.load = launch_slot(load);
                }
                if theirs.store & ATOMIC != 0 && store != EMPTY {
                    theirs.store = launch_slot(store);
                }
            });
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
        self.used = used;
        let GroupRecord { mut accesses, mut values, mut entries, .. } = record;
        accesses.clear();
        values.clear();
        entries.clear();
        self.spare = GroupRecord { index: 0, accesses, values, entries };
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
            std::mem::swap(&mut self.side_values, &mut other.side_values);
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

/// The `width` bytes at `addr` of an access `size` bytes from `access_addr` whose bytes are at
/// `value` in `values` ([`NO_VALUE`]: unknown).
fn stored_bytes(
    value: u32,
    access_addr: u64,
    values: &[u8],
    addr: u64,
    width: u32,
) -> Option<&[u8]> {
    if value == NO_VALUE {
        return None;
    }
    let from = value as usize + addr.wrapping_sub(access_addr) as usize;
    values.get(from..from + width as usize)
}

/// Copies the `size` bytes at `value` in `from` (an access's bytes stored) to the end of `to`,
/// returning their offset there ([`NO_VALUE`] stays so).
fn keep_values(to: &mut Vec<u8>, from: &[u8], value: u32, size: u32) -> u32 {
    let bytes = (value != NO_VALUE)
        .then(|| from.get(value as usize..value as usize + size as usize))
        .flatten();
    match (bytes, u32::try_from(to.len())) {
        (Some(bytes), Ok(at)) => {
            to.extend_from_slice(bytes);
            at
        }
        _ => NO_VALUE,
    }
}

/// Adds `bytes` zero bytes to `values`, returning where they start, unless offsets that far
/// do not fit a `u32`.
fn grow_values(values: &mut Vec<u8>, bytes: u64) -> Option<u32> {
    let at = u32::try_from(values.len()).ok()?;
    let end = u32::try_from(u64::from(at) + bytes).ok()?;
    values.resize(end as usize, 0);
    Some(at)
}

/// Copies the bytes `lane` stored into `to` (as many as `to` holds).
fn copy_stored(stored: &StoredValues<'_>, lane: usize, to: &mut [u8]) {
    for (b, byte) in to.iter_mut().enumerate() {
        *byte = stored.bytes(lane, b as u64, 1) as u8;
    }
}

/// The side an access of the log is in a record.
fn log_side(log: &[Logged], batches: &[LoggedBatch], slot: u32, store: bool, group: u64) -> Side {
    let l = Access::of(log, batches, slot & !ATOMIC);
    Side { group, who: l.who, span: l.span, atomic: l.atomic(), store, id: l.id, size: l.size }
}
