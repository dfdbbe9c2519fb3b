//! Loads, stores and atomics per address, counted in flat pages.
//!
//! Every access (or, per batch, every distinct address) updates one count, so this table is
//! the hottest data of an analysis. Keys of one buffer are dense, and a kernel walks them in
//! order far more often than not, so the counts of neighbouring addresses sit next to each
//! other in lazily allocated pages: an update is an index computation, where a hash table
//! would scatter neighbours over the whole table and miss the cache on nearly every update.
//!
//! Keys are split into segments of 2^32 bytes (a buffer's first 4 GiB, one work-group's
//! local memory). A segment starts with one cell per aligned 4-byte word, the granule nearly
//! every kernel accesses; the first key that is not word-aligned turns it into one cell per
//! byte, each word's counts moving to its first byte, so the counts stay exactly those of
//! byte addresses. Keys far into a segment go to a hash map instead of pages.

use crate::hasher::BuildAddressHasher;
use crate::observer::AccessCounts;
use clmap_sim::paged::merge_pages_keeping;
use clmap_sim::AccessKind;
use std::collections::HashMap;

/// Key bits addressed inside one segment.
const SEGMENT_BITS: u32 = 32;
const SEGMENT_MASK: u64 = (1 << SEGMENT_BITS) - 1;
/// Cells per page, as a shift.
const PAGE_BITS: u32 = 8;
const PAGE_CELLS: usize = 1 << PAGE_BITS;
/// Pages a segment may have; cells beyond them are counted in the hash map.
const MAX_PAGES: usize = 1 << 16;
/// Bytes per cell a segment starts with, as a shift.
const WORD_SHIFT: u32 = 2;

/// Access counts of every address a launch touched.
#[derive(Debug, Default)]
pub(crate) struct AddressCounts {
    segments: Vec<Segment>,
    /// Segment number → position in `segments`.
    index: HashMap<u64, usize, BuildAddressHasher>,
    /// The segment used last: consecutive updates nearly always share it.
    last: Option<(u64, usize)>,
    /// Keys beyond the pages of their segment.
    far: HashMap<u64, AccessCounts, BuildAddressHasher>,
}

#[derive(Debug)]
struct Segment {
    number: u64,
    /// Bytes per cell, as a shift: [`WORD_SHIFT`], or 0 once a key was not word-aligned.
    shift: u32,
    pages: Vec<clmap_sim::paged::Page<AccessCounts>>,
}

fn new_page() -> Box<[AccessCounts]> {
    vec![AccessCounts::default(); PAGE_CELLS].into_boxed_slice()
}

fn is_zero(c: &AccessCounts) -> bool {
    c.loads == 0 && c.stores == 0 && c.atomics == 0
}

fn add_counts(into: &mut AccessCounts, from: &AccessCounts) {
    into.loads += from.loads;
    into.stores += from.stores;
    into.atomics += from.atomics;
}

/// Adds `n` accesses of `kind`.
#[inline]
fn count(counts: &mut AccessCounts, kind: AccessKind, n: u64) {
    match kind {
        AccessKind::Load => counts.loads += n,
        AccessKind::Store => counts.stores += n,
        AccessKind::Atomic => counts.atomics += n,
    }
}

impl Segment {
    fn new(number: u64) -> Segment {
        Segment { number, shift: WORD_SHIFT, pages: Vec::new() }
    }

    /// The counts of the address `offset` bytes into the segment (a multiple of the cell
    /// size), if it lies within the pages a segment may have.
    #[inline]
    fn cell(&mut self, offset: u64) -> Option<&mut AccessCounts> {
        let cell = usize::try_from(offset >> self.shift).ok()?;
        let page = cell >> PAGE_BITS;
        if page >= MAX_PAGES {
            return None;
        }
        if page >= self.pages.len() {
            self.pages.resize_with(page + 1, || None);
        }
        self.pages.get_mut(page)?.get_or_insert_with(new_page).get_mut(cell & (PAGE_CELLS - 1))
    }

    /// One cell per byte: each word's counts move to its first byte (every key counted so
    /// far was word-aligned). Cells that no longer fit the pages move to `far`.
    fn refine(&mut self, far: &mut HashMap<u64, AccessCounts, BuildAddressHasher>) {
        if self.shift == 0 {
            return;
        }
        let old = std::mem::take(&mut self.pages);
        let old_shift = self.shift;
        self.shift = 0;
        for (p, page) in old.into_iter().enumerate() {
            let Some(page) = page else { continue };
            for (i, c) in page.iter().enumerate().filter(|(_, c)| !is_zero(c)) {
                let offset = (((p << PAGE_BITS) + i) as u64) << old_shift;
                match self.cell(offset) {
                    Some(cell) => *cell = *c,
                    None => add_counts(far.entry(self.key(offset)).or_default(), c),
                }
            }
        }
    }

    fn allocated_pages(&self) -> usize {
        self.pages.iter().filter(|page| page.is_some()).count()
    }

    fn key(&self, offset: u64) -> u64 {
        (self.number << SEGMENT_BITS) | offset
    }

    /// Every address counted, with its counts.
    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = (u64, &AccessCounts)> + '_ {
        self.pages.iter().enumerate().flat_map(move |(p, page)| {
            page.iter().flat_map(move |page| {
                page.iter().enumerate().filter(|(_, c)| !is_zero(c)).map(move |(i, c)| {
                    let offset = (((p << PAGE_BITS) + i) as u64) << self.shift;
                    (self.key(offset), c)
                })
            })
        })
    }
}

/// A scoped thread's result, its panic passed on.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// `f` of every item in order: the first on this thread, each other on a scoped thread of its
/// own (one item starts no thread).
fn on_threads<I: Send, R: Send>(items: Vec<I>, f: impl Fn(I) -> R + Sync) -> Vec<R> {
    let mut items = items.into_iter();
    let Some(first) = items.next() else { return Vec::new() };
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = items.map(|item| scope.spawn(move || f(item))).collect();
        std::iter::once(f(first)).chain(handles.into_iter().map(join)).collect()
    })
}

impl AddressCounts {
    /// Adds `n` accesses of `kind` to the address `key`.
    #[inline]
    pub(crate) fn add(&mut self, key: u64, kind: AccessKind, n: u64) {
        let number = key >> SEGMENT_BITS;
        let at = self.segment(number);
        let Some(segment) = self.segments.get_mut(at) else { return };
        let offset = key & SEGMENT_MASK;
        if offset & ((1 << segment.shift) - 1) != 0 {
            segment.refine(&mut self.far);
        }
        match segment.cell(offset) {
            Some(counts) => count(counts, kind, n),
            None => count(self.far.entry(key).or_default(), kind, n),
        }
    }

    /// The position of segment `number`, made if new.
    #[inline]
    fn segment(&mut self, number: u64) -> usize {
        if let Some((last, at)) = self.last {
            if last == number {
                return at;
            }
        }
        let segments = &mut self.segments;
        let at = *self.index.entry(number).or_insert_with(|| {
            segments.push(Segment::new(number));
            segments.len() - 1
        });
        self.last = Some((number, at));
        at
    }

    /// Every address counted, with its counts, in no particular order.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, &AccessCounts)> + '_ {
        self.segments.iter().flat_map(Segment::iter).chain(self.far.iter().map(|(k, c)| (*k, c)))
    }

    /// Every address counted, in ascending key order, as `(key, value(counts))`, with
    /// `tally` folded over the same addresses into one `S` per share of the work; built on up
    /// to `threads` threads.
    ///
    /// Segments are taken in number order and their pages in offset order, so the page keys
    /// come out sorted without a sort: each thread counts, then writes, the cells of a run of
    /// consecutive pages into its own part of the list. Keys beyond the pages (rare) are
    /// appended and the whole list sorted; keys are distinct, so the result is the same.
    pub(crate) fn sorted_on<S, V, T>(
        &self,
        threads: usize,
        value: V,
        tally: T,
    ) -> (Vec<(u64, u64)>, Vec<S>)
    where
        S: Default + Send,
        V: Fn(&AccessCounts) -> u64 + Sync,
        T: Fn(&mut S, &AccessCounts) + Sync,
    {
        let mut order: Vec<&Segment> = self.segments.iter().collect();
        order.sort_unstable_by_key(|segment| segment.number);
        // (segment, page number, page) of every allocated page, in key order.
        let pages: Vec<(&Segment, usize, &[AccessCounts])> =
            order
                .iter()
                .flat_map(|segment| {
                    segment.pages.iter().enumerate().filter_map(move |(p, page)| {
                        page.as_deref().map(|page| (*segment, p, page))
                    })
                })
                .collect();
        let threads = threads.clamp(1, pages.len().max(1));
        let share = pages.len().div_ceil(threads).max(1);
        let shares: Vec<&[(&Segment, usize, &[AccessCounts])]> = pages.chunks(share).collect();
        let cells_in = |share: &[(&Segment, usize, &[AccessCounts])]| -> usize {
            share.iter().map(|(_, _, page)| page.iter().filter(|c| !is_zero(c)).count()).sum()
        };
        let fill = |share: &[(&Segment, usize, &[AccessCounts])], out: &mut [(u64, u64)]| -> S {
            let mut tallied = S::default();
            let mut slots = out.iter_mut();
            for (segment, p, page) in share {
                for (i, c) in page.iter().enumerate().filter(|(_, c)| !is_zero(c)) {
                    let offset = (((p << PAGE_BITS) + i) as u64) << segment.shift;
                    tally(&mut tallied, c);
                    if let Some(slot) = slots.next() {
                        *slot = (segment.key(offset), value(c));
                    }
                }
            }
            tallied
        };
        let far_cells = self.far.len();
        let sizes = on_threads(shares.clone(), cells_in);
        // Zeroed memory comes from the system untouched: the threads fault it in.
        let mut list = vec![(0u64, 0u64); sizes.iter().sum::<usize>() + far_cells];
        let mut parts = Vec::with_capacity(sizes.len());
        let mut rest: &mut [(u64, u64)] = &mut list;
        for (size, share) in sizes.iter().zip(&shares) {
            let (part, tail) = rest.split_at_mut(*size);
            parts.push((part, *share));
            rest = tail;
        }
        let mut tallies = on_threads(parts, |(part, share)| fill(share, part));
        if far_cells > 0 {
            let paged = list.len() - far_cells;
            let mut far_tally = S::default();
            for (slot, (key, c)) in list[paged..].iter_mut().zip(self.far.iter()) {
                tally(&mut far_tally, c);
                *slot = (*key, value(c));
            }
            tallies.push(far_tally);
            list.sort_unstable();
        }
        (list, tallies)
    }

    /// Absorbs another thread's counts: page by page where both threads counted a segment at
    /// the same granularity, key by key only for keys beyond the pages. Counts are exact, so
    /// the result is that of adding every key of `other` one by one. Addition commutes, so of
    /// each segment's two page tables the one with more pages is kept and takes the other's
    /// (fewer pages move; a page only one table has moves over whole), and the pages added
    /// into it go to `spent`, for the caller to free where no one waits (see
    /// [`merge_pages_keeping`]).
    pub(crate) fn merge(&mut self, mut other: AddressCounts, spent: &mut Vec<Box<[AccessCounts]>>) {
        for mut theirs in other.segments {
            let at = self.segment(theirs.number);
            let Some(mine) = self.segments.get_mut(at) else { continue };
            if mine.shift != theirs.shift {
                // One of them saw a key that is not word-aligned: both count bytes.
                mine.refine(&mut self.far);
                theirs.refine(&mut self.far);
            }
            if theirs.allocated_pages() > mine.allocated_pages() {
                std::mem::swap(&mut mine.pages, &mut theirs.pages);
            }
            merge_pages_keeping(&mut mine.pages, theirs.pages, spent, add_counts);
        }
        // Likewise the larger map of keys beyond the pages stays, and the other's keys are
        // added to it one by one. A key beyond the pages of either table is beyond those of
        // the merged one: its cells are as fine or finer, so the key's page is the same or
        // further.
        if other.far.len() > self.far.len() {
            std::mem::swap(&mut self.far, &mut other.far);
        }
        for (key, c) in other.far {
            for (kind, n) in [
                (AccessKind::Load, c.loads),
                (AccessKind::Store, c.stores),
                (AccessKind::Atomic, c.atomics),
            ] {
                if n > 0 {
                    self.add(key, kind, n);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(t: &AddressCounts) -> Vec<(u64, u64, u64, u64)> {
        let mut v: Vec<_> = t.iter().map(|(k, c)| (k, c.loads, c.stores, c.atomics)).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn counts_words_then_bytes_exactly() {
        let mut t = AddressCounts::default();
        let base = 3u64 << 40;
        t.add(base + 8, AccessKind::Load, 5);
        t.add(base + 8, AccessKind::Store, 1);
        t.add(base + 4096, AccessKind::Atomic, 2);
        assert_eq!(sorted(&t), vec![(base + 8, 5, 1, 0), (base + 4096, 0, 0, 2)]);
        // A byte key turns the segment into byte cells; the word counts stay on their keys.
        t.add(base + 9, AccessKind::Load, 1);
        assert_eq!(
            sorted(&t),
            vec![(base + 8, 5, 1, 0), (base + 9, 1, 0, 0), (base + 4096, 0, 0, 2)]
        );
    }

    #[test]
    fn far_keys_and_segments_are_kept_apart() {
        let mut t = AddressCounts::default();
        let far = (1u64 << 40) + (1 << 31);
        let local = (1u64 << 63) | (7 << 32) | 12;
        t.add(far, AccessKind::Load, 1);
        t.add(local, AccessKind::Store, 3);
        t.add(1 << 40, AccessKind::Load, 2);
        assert_eq!(sorted(&t), vec![(1 << 40, 2, 0, 0), (far, 1, 0, 0), (local, 0, 3, 0)]);
    }

    #[test]
    fn merging_in_any_order_gives_the_same_counts() {
        let fill = |keys: &[u64]| {
            let mut t = AddressCounts::default();
            for &k in keys {
                t.add(k, AccessKind::Load, 1);
            }
            t
        };
        let (a, b) = ([4u64, 8, 8, 4096], [8u64, 13, 1 << 33]);
        let mut spent = Vec::new();
        let mut ab = fill(&a);
        ab.merge(fill(&b), &mut spent);
        let mut ba = fill(&b);
        ba.merge(fill(&a), &mut spent);
        assert_eq!(sorted(&ab), sorted(&ba));
        assert_eq!(
            sorted(&ab),
            vec![(4, 1, 0, 0), (8, 3, 0, 0), (13, 1, 0, 0), (4096, 1, 0, 0), (1 << 33, 1, 0, 0)]
        );
    }

    #[test]
    fn merging_page_by_page_equals_adding_key_by_key() {
        // Keys of shared and separate pages, word and byte cells, and keys beyond the pages
        // (the far map) at both granularities, split between two tables every which way.
        let base = 5u64 << 40;
        let mut keys: Vec<(u64, AccessKind)> = Vec::new();
        for i in 0..3000u64 {
            let kind = [AccessKind::Load, AccessKind::Store, AccessKind::Atomic][(i % 3) as usize];
            keys.push((base + 4 * (i * 37 % 4096), kind));
            keys.push((base + (1 << 30) + 4 * i, kind));
        }
        keys.push((base + 4 * 4097 + 1, AccessKind::Load));
        keys.push((base + (1 << 25) + 3, AccessKind::Store));
        let mut whole = AddressCounts::default();
        for &(k, kind) in &keys {
            whole.add(k, kind, 1);
        }
        let share = |split: usize, to_a: bool| {
            let mut t = AddressCounts::default();
            for (i, &(k, kind)) in keys.iter().enumerate() {
                let in_a = match split {
                    0 => i % 2 == 0,
                    1 => i < keys.len() / 2,
                    2 => i + 2 < keys.len(),
                    _ => k % 8 == 0,
                };
                if in_a == to_a {
                    t.add(k, kind, 1);
                }
            }
            t
        };
        // The pages a table has, counting bytes if `bytes` (as a merge with a table that
        // does makes it).
        let pages = |mut t: AddressCounts, bytes: bool| -> Vec<(u64, usize)> {
            if bytes {
                for segment in &mut t.segments {
                    segment.refine(&mut t.far);
                }
            }
            let mut out = Vec::new();
            for s in &t.segments {
                let held = s.pages.iter().enumerate().filter(|(_, p)| p.is_some());
                out.extend(held.map(|(p, _)| (s.number, p)));
            }
            out
        };
        for split in [0, 1, 2, 3] {
            // Either way round: a larger table (split 2) keeps its pages and far keys whether
            // it absorbs the smaller one or is absorbed.
            for into_a in [true, false] {
                let (mut into, from) = (share(split, into_a), share(split, !into_a));
                let bytes = into.segments.iter().chain(&from.segments).any(|s| s.shift == 0);
                let mine = pages(share(split, into_a), bytes);
                let theirs = pages(share(split, !into_a), bytes);
                let mut spent = Vec::new();
                into.merge(from, &mut spent);
                assert_eq!(sorted(&into), sorted(&whole), "split {split}, into a: {into_a}");
                // Exactly the pages both had were added into others and kept aside.
                let both = mine.iter().filter(|p| theirs.contains(p)).count();
                assert_eq!(spent.len(), both, "split {split}, into a: {into_a}");
            }
        }
    }

    #[test]
    fn sorted_list_is_that_of_every_key_on_any_number_of_threads() {
        let mut t = AddressCounts::default();
        // Segments made out of key order, one with byte cells, one with a key beyond its
        // pages (which the list must still put in order), over many pages.
        let (a, b, c) = (9u64 << 40, 2u64 << 40, (1u64 << 63) | (3 << 32));
        for i in 0..5000u64 {
            t.add(a + 4 * i, AccessKind::Load, 1 + i % 3);
            t.add(b + 8 * i, AccessKind::Store, 2);
        }
        t.add(c + 1, AccessKind::Atomic, 4);
        t.add(c + 100, AccessKind::Load, 1);
        t.add(b + (1 << 31), AccessKind::Load, 7);
        let expected: Vec<(u64, u64)> = sorted(&t)
            .into_iter()
            .map(|(k, loads, stores, atomics)| (k, loads + stores + atomics))
            .collect();
        for threads in [1, 2, 3, 7] {
            let (list, tallies) =
                t.sorted_on(threads, |c| c.loads + c.stores + c.atomics, |n: &mut u64, _| *n += 1);
            assert_eq!(list, expected, "{threads} threads");
            assert_eq!(tallies.iter().sum::<u64>(), expected.len() as u64, "{threads} threads");
        }
        let (empty, _) = AddressCounts::default().sorted_on(2, |_| 1, |_: &mut u64, _| ());
        assert!(empty.is_empty());
    }
}
