//! Shadow memory of the race checker: what each cell of a memory region saw in the current
//! barrier interval and over the whole launch.
//!
//! A cell is a *granule* of `1 << granule_shift` bytes. Kernels nearly always access a buffer
//! in whole, aligned elements, so a region starts with 4-byte cells: one state per `int` or
//! `float` instead of four, which is four times less work per access and four times less
//! shadow to keep in cache. The first access that is not a whole number of aligned cells
//! *refines* the region to one cell per byte, copying every cell's state onto its bytes, so the
//! answers stay exactly those of a byte-granular shadow.
//!
//! Cells are stored in lazily allocated pages so that a large buffer of which a launch touches
//! little costs little, and an access needs no hashing.

use clmap_lang::Span;

/// Bits of the cell index inside a page.
const PAGE_BITS: u32 = 12;
const PAGE_CELLS: usize = 1 << PAGE_BITS;
/// The granule a region starts with (4 bytes).
const INITIAL_GRANULE_SHIFT: u32 = 2;
/// Regions larger than this are followed only up to it (1 TiB, the simulator's region size).
const MAX_REGION_BYTES: u64 = 1 << 40;

/// What one cell saw. Lanes are stored as `lane + 1` (0 = nobody, [`MANY_LANES`] = several);
/// work-groups as `group + 1` (0 = none, [`MANY_GROUPS`] = several).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CellState {
    /// The barrier interval the lane fields belong to; older ones count as empty.
    pub epoch: u16,
    pub writer: u16,
    pub reader: u16,
    pub atomic: u16,
    /// Launch-wide: the work-groups that stored to the cell.
    pub group_writer: u32,
    /// Launch-wide: the work-groups that loaded from the cell.
    pub group_reader: u32,
}

impl CellState {
    /// Brings the cell into barrier interval `epoch`: a cell last touched in an older interval
    /// forgets its lanes (the barrier ordered them) and keeps its launch-wide group records.
    #[inline(always)]
    pub(crate) fn enter_epoch(&mut self, epoch: u16) {
        if self.epoch != epoch {
            *self = CellState {
                epoch,
                group_writer: self.group_writer,
                group_reader: self.group_reader,
                ..CellState::default()
            };
        }
    }
}

/// Several lanes.
pub(crate) const MANY_LANES: u16 = u16::MAX;
/// Several work-groups.
pub(crate) const MANY_GROUPS: u32 = u32::MAX;

/// Combines two launch-wide group records (commutative and associative, so per-thread states
/// merge to the same result in any order).
#[inline(always)]
pub(crate) fn combine_groups(a: u32, b: u32) -> u32 {
    if a == 0 || a == b {
        b
    } else if b == 0 {
        a
    } else {
        MANY_GROUPS
    }
}

/// The earliest store to a cell of global memory in the launch: by the lowest work-group, then
/// the earliest instruction, then the lowest lane. Work-groups run the same way on any thread,
/// so keeping the lowest group on merge gives the same record for any number of threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FirstStore {
    /// `group + 1`; 0 = no store yet.
    pub group: u32,
    pub lane: u32,
    pub span: Span,
}

impl Default for FirstStore {
    fn default() -> Self {
        FirstStore { group: 0, lane: 0, span: Span::UNDEFINED }
    }
}

impl FirstStore {
    /// Keeps the earlier of two records (the lower group; on a tie, `self`, which was seen
    /// first within the group).
    #[inline(always)]
    fn keep_earlier(&mut self, other: FirstStore) {
        if other.group != 0 && (self.group == 0 || other.group < self.group) {
            *self = other;
        }
    }
}

/// The data stored in a cell, for telling races between work-items that store the same value
/// (Oclgrind does not report those) from races that lose data. Kept apart from [`CellState`]
/// so that loads, the common access, touch no more shadow than before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StoredValue {
    /// What the interval's first writer stored (the cell's bytes, little-endian); meaningful
    /// while the cell's `writer` is set.
    pub interval: u32,
    /// Launch-wide: what every work-group stored, while [`Self::launch`] is [`AGREED`].
    pub launch_value: u32,
    /// Whether `interval` is known (the store's data was seen).
    pub interval_known: bool,
    /// Launch-wide: [`NO_STORE`], [`AGREED`] or [`DISAGREED`].
    pub launch: u8,
}

/// No store seen to the cell in the launch.
pub(crate) const NO_STORE: u8 = 0;
/// Every store to the cell wrote [`StoredValue::launch_value`].
pub(crate) const AGREED: u8 = 1;
/// Stores wrote different values, or one whose data was not seen.
pub(crate) const DISAGREED: u8 = 2;

impl StoredValue {
    /// Notes a store of `value` (`None`: unknown data) to the launch-wide record.
    #[inline(always)]
    pub(crate) fn note_launch_store(&mut self, value: Option<u32>) {
        self.launch = match (self.launch, value) {
            (NO_STORE, Some(v)) => {
                self.launch_value = v;
                AGREED
            }
            (AGREED, Some(v)) if v == self.launch_value => AGREED,
            _ => DISAGREED,
        };
    }

    /// Combines two threads' launch-wide records (commutative and associative).
    fn merge_launch(&mut self, other: &StoredValue) {
        match (self.launch, other.launch) {
            (_, NO_STORE) => {}
            (NO_STORE, _) => {
                self.launch = other.launch;
                self.launch_value = other.launch_value;
            }
            (AGREED, AGREED) if self.launch_value == other.launch_value => {}
            _ => self.launch = DISAGREED,
        }
    }

    /// The record of byte `byte` (0 to 3) of a 4-byte cell.
    fn byte(&self, byte: usize) -> StoredValue {
        let shift = 8 * byte as u32;
        StoredValue {
            interval: (self.interval >> shift) & 0xff,
            launch_value: (self.launch_value >> shift) & 0xff,
            ..*self
        }
    }
}

/// A failed compare-and-exchange in the current interval: an atomic access that only read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AtomicRead {
    pub epoch: u16,
    /// `lane + 1`, or [`MANY_LANES`].
    pub lane: u16,
}

use crate::paged::{merge_pages_keeping, Page};

/// Pages of other threads' shadows that a merge combined into this one, kept to be freed with
/// it (see [`merge_pages_keeping`]).
#[derive(Debug, Default)]
struct SpentPages {
    cells: Vec<Box<[CellState]>>,
    stores: Vec<Box<[FirstStore]>>,
    values: Vec<Box<[StoredValue]>>,
    atomic_groups: Vec<Box<[u32]>>,
}

impl SpentPages {
    fn append(&mut self, mut other: SpentPages) {
        self.cells.append(&mut other.cells);
        self.stores.append(&mut other.stores);
        self.values.append(&mut other.values);
        self.atomic_groups.append(&mut other.atomic_groups);
    }
}

fn new_page<T: Default + Clone>() -> Box<[T]> {
    vec![T::default(); PAGE_CELLS].into_boxed_slice()
}

/// The shadow of one memory region (a global buffer, or the group's local memory).
#[derive(Debug)]
pub(crate) struct RegionShadow {
    granule_shift: u32,
    cells: Vec<Page<CellState>>,
    /// First stores, kept only for regions that outlive a work-group (global buffers).
    stores: Vec<Page<FirstStore>>,
    track_stores: bool,
    /// What stores wrote, cell by cell (touched by stores only).
    values: Vec<Page<StoredValue>>,
    /// Launch-wide: the work-groups that made atomic operations on each cell. Empty until
    /// the first atomic operation on the region, so that kernels without atomics pay nothing.
    atomic_groups: Vec<Page<u32>>,
    /// Failed compare-and-exchanges of the interval (empty until the first one).
    atomic_reads: Vec<Page<AtomicRead>>,
    spent: SpentPages,
}

impl RegionShadow {
    /// The shadow of a region of `bytes` bytes; `track_stores` keeps first-store records.
    pub(crate) fn new(bytes: u64, track_stores: bool) -> RegionShadow {
        let granule_shift = INITIAL_GRANULE_SHIFT;
        let pages = Self::pages_for(bytes, granule_shift);
        RegionShadow {
            granule_shift,
            cells: std::iter::repeat_with(|| None).take(pages).collect(),
            stores: if track_stores {
                std::iter::repeat_with(|| None).take(pages).collect()
            } else {
                Vec::new()
            },
            track_stores,
            values: std::iter::repeat_with(|| None).take(pages).collect(),
            atomic_groups: Vec::new(),
            atomic_reads: Vec::new(),
            spent: SpentPages::default(),
        }
    }

    fn pages_for(bytes: u64, granule_shift: u32) -> usize {
        let cells = bytes.min(MAX_REGION_BYTES) >> granule_shift;
        usize::try_from((cells >> PAGE_BITS) + 1).unwrap_or(usize::MAX)
    }

    /// Bytes per cell, as a shift.
    pub(crate) fn granule_shift(&self) -> u32 {
        self.granule_shift
    }

    /// Whether `size` bytes at `offset` cover whole cells; when not, the region is refined to
    /// byte cells first, so the access can always be followed exactly.
    #[inline(always)]
    pub(crate) fn align_for(&mut self, offset: u64, size: u64) {
        let granule = (1u64 << self.granule_shift) - 1;
        if (offset | size) & granule != 0 {
            self.refine_to_bytes();
        }
    }

    /// The cells of `size` bytes at `offset` (whole cells, see [`Self::align_for`]) when they
    /// lie in one page, with the index of the first cell.
    #[inline(always)]
    pub(crate) fn cells_mut(&mut self, offset: u64, size: u64) -> Option<&mut [CellState]> {
        let first = offset >> self.granule_shift;
        let count = (size >> self.granule_shift).max(1) as usize;
        let page = usize::try_from(first >> PAGE_BITS).ok()?;
        let start = (first as usize) & (PAGE_CELLS - 1);
        let end = start.checked_add(count)?;
        if end > PAGE_CELLS {
            return None;
        }
        let slot = self.cells.get_mut(page)?;
        slot.get_or_insert_with(new_page).get_mut(start..end)
    }

    /// The cells and stored-value records of one access, side by side.
    #[inline(always)]
    pub(crate) fn cells_and_values_mut(
        &mut self,
        offset: u64,
        size: u64,
    ) -> Option<(&mut [CellState], &mut [StoredValue])> {
        let first = offset >> self.granule_shift;
        let count = (size >> self.granule_shift).max(1) as usize;
        let page = usize::try_from(first >> PAGE_BITS).ok()?;
        let start = (first as usize) & (PAGE_CELLS - 1);
        let end = start.checked_add(count)?;
        if end > PAGE_CELLS {
            return None;
        }
        let cells = self.cells.get_mut(page)?.get_or_insert_with(new_page).get_mut(start..end)?;
        let values = self.values.get_mut(page)?.get_or_insert_with(new_page).get_mut(start..end)?;
        Some((cells, values))
    }

    /// The stored-value record of the cell holding byte `offset`.
    pub(crate) fn stored_value(&self, offset: u64) -> StoredValue {
        let cell = offset >> self.granule_shift;
        usize::try_from(cell >> PAGE_BITS)
            .ok()
            .and_then(|page| self.values.get(page)?.as_ref())
            .and_then(|page| page.get((cell as usize) & (PAGE_CELLS - 1)).copied())
            .unwrap_or_default()
    }

    /// Records a store of `size` bytes at `offset` (whole cells) by `record`, keeping the earlier.
    pub(crate) fn note_store(&mut self, offset: u64, size: u64, record: FirstStore) {
        if !self.track_stores {
            return;
        }
        let first = offset >> self.granule_shift;
        let count = (size >> self.granule_shift).max(1);
        for cell in first..first.saturating_add(count) {
            let Ok(page) = usize::try_from(cell >> PAGE_BITS) else { return };
            let Some(slot) = self.stores.get_mut(page) else { return };
            let page = slot.get_or_insert_with(new_page);
            if let Some(kept) = page.get_mut((cell as usize) & (PAGE_CELLS - 1)) {
                kept.keep_earlier(record);
            }
        }
    }

    /// The page and index in it of every cell of `size` bytes at `offset` (whole cells).
    fn cell_slots(&self, offset: u64, size: u64) -> impl Iterator<Item = (usize, usize)> {
        let first = offset >> self.granule_shift;
        let count = (size >> self.granule_shift).max(1);
        (first..first.saturating_add(count)).filter_map(|cell| {
            Some((usize::try_from(cell >> PAGE_BITS).ok()?, (cell as usize) & (PAGE_CELLS - 1)))
        })
    }

    /// Notes an atomic operation by work-group `group` (`group + 1`) on `size` bytes at
    /// `offset` (whole cells).
    pub(crate) fn note_atomic_group(&mut self, offset: u64, size: u64, group: u32) {
        if self.atomic_groups.is_empty() {
            self.atomic_groups = std::iter::repeat_with(|| None).take(self.cells.len()).collect();
        }
        for (page, index) in self.cell_slots(offset, size).collect::<Vec<_>>() {
            let Some(slot) = self.atomic_groups.get_mut(page) else { continue };
            if let Some(g) = slot.get_or_insert_with(new_page).get_mut(index) {
                *g = combine_groups(*g, group);
            }
        }
    }

    /// The work-groups that made atomic operations on the cell holding byte `offset`.
    pub(crate) fn atomic_group(&self, offset: u64) -> u32 {
        let cell = offset >> self.granule_shift;
        usize::try_from(cell >> PAGE_BITS)
            .ok()
            .and_then(|page| self.atomic_groups.get(page)?.as_ref())
            .and_then(|page| page.get((cell as usize) & (PAGE_CELLS - 1)).copied())
            .unwrap_or(0)
    }

    /// Notes a failed compare-and-exchange by lane `me` (`lane + 1`) in interval `epoch`.
    pub(crate) fn note_atomic_read(&mut self, offset: u64, size: u64, epoch: u16, me: u16) {
        if self.atomic_reads.is_empty() {
            self.atomic_reads = std::iter::repeat_with(|| None).take(self.cells.len()).collect();
        }
        for (page, index) in self.cell_slots(offset, size).collect::<Vec<_>>() {
            let Some(slot) = self.atomic_reads.get_mut(page) else { continue };
            if let Some(r) = slot.get_or_insert_with(new_page).get_mut(index) {
                if r.epoch != epoch || r.lane == 0 {
                    *r = AtomicRead { epoch, lane: me };
                } else if r.lane != me {
                    r.lane = MANY_LANES;
                }
            }
        }
    }

    /// Another lane than `me` whose failed compare-and-exchange in interval `epoch` read one
    /// of `size` bytes at `offset` (`lane + 1` or [`MANY_LANES`]).
    #[inline]
    pub(crate) fn atomic_reader(&self, offset: u64, size: u64, epoch: u16, me: u16) -> Option<u16> {
        if self.atomic_reads.is_empty() {
            return None;
        }
        self.cell_slots(offset, size).find_map(|(page, index)| {
            let r = self.atomic_reads.get(page)?.as_ref()?.get(index)?;
            (r.epoch == epoch && r.lane != 0 && r.lane != me).then_some(r.lane)
        })
    }

    /// Turns every cell into one cell per byte, each byte inheriting its cell's state.
    pub(crate) fn refine_to_bytes(&mut self) {
        let factor = 1usize << self.granule_shift;
        if factor == 1 {
            return;
        }
        self.cells = split_pages(std::mem::take(&mut self.cells), factor);
        self.stores = split_pages(std::mem::take(&mut self.stores), factor);
        self.values = split_value_pages(std::mem::take(&mut self.values), factor);
        self.atomic_groups = split_pages(std::mem::take(&mut self.atomic_groups), factor);
        self.atomic_reads = split_pages(std::mem::take(&mut self.atomic_reads), factor);
        self.granule_shift = 0;
    }

    /// Forgets the lane fields of every cell (launch-wide records stay): used when the epoch
    /// counter wraps.
    pub(crate) fn clear_intervals(&mut self) {
        self.atomic_reads.clear();
        for page in self.cells.iter_mut().flatten() {
            for cell in page.iter_mut() {
                *cell = CellState {
                    group_writer: cell.group_writer,
                    group_reader: cell.group_reader,
                    ..CellState::default()
                };
            }
        }
    }

    /// Absorbs another thread's launch-wide records of the same region. The pages of
    /// `other` combined into this shadow are freed with it, not here (see
    /// [`merge_pages_keeping`]).
    pub(crate) fn merge(&mut self, mut other: RegionShadow) {
        if other.granule_shift < self.granule_shift {
            self.refine_to_bytes();
        } else if other.granule_shift > self.granule_shift {
            other.refine_to_bytes();
        }
        let spent = &mut self.spent;
        spent.append(other.spent);
        merge_pages_keeping(&mut self.cells, other.cells, &mut spent.cells, |a, b| {
            a.group_writer = combine_groups(a.group_writer, b.group_writer);
            a.group_reader = combine_groups(a.group_reader, b.group_reader);
        });
        merge_pages_keeping(&mut self.values, other.values, &mut spent.values, |a, b| {
            a.merge_launch(b)
        });
        merge_pages_keeping(
            &mut self.atomic_groups,
            other.atomic_groups,
            &mut spent.atomic_groups,
            |a, b| *a = combine_groups(*a, *b),
        );
        merge_pages_keeping(&mut self.stores, other.stores, &mut spent.stores, |a, b| {
            a.keep_earlier(*b)
        });
    }

    /// Every allocated cell with its byte offset, in address order.
    pub(crate) fn cells(&self) -> impl Iterator<Item = (u64, &CellState)> + '_ {
        let shift = self.granule_shift;
        self.cells.iter().enumerate().flat_map(move |(p, page)| {
            page.iter().flat_map(move |page| {
                page.iter()
                    .enumerate()
                    .map(move |(i, cell)| ((((p as u64) << PAGE_BITS) + i as u64) << shift, cell))
            })
        })
    }

    /// The first store to the cell holding byte `offset`, if one was recorded.
    pub(crate) fn first_store(&self, offset: u64) -> Option<FirstStore> {
        let cell = offset >> self.granule_shift;
        let page = self.stores.get(usize::try_from(cell >> PAGE_BITS).ok()?)?.as_ref()?;
        page.get((cell as usize) & (PAGE_CELLS - 1)).copied().filter(|s| s.group != 0)
    }
}

/// Splits pages of cells of `factor` bytes into pages of byte cells.
fn split_pages<T: Copy + Default>(pages: Vec<Page<T>>, factor: usize) -> Vec<Page<T>> {
    let mut out: Vec<Page<T>> =
        std::iter::repeat_with(|| None).take(pages.len().saturating_mul(factor)).collect();
    for (p, page) in pages.into_iter().enumerate() {
        let Some(page) = page else { continue };
        for (i, cell) in page.iter().enumerate() {
            let first_byte = ((p << PAGE_BITS) + i) * factor;
            for byte in first_byte..first_byte + factor {
                if let Some(slot) = out.get_mut(byte >> PAGE_BITS) {
                    if let Some(target) =
                        slot.get_or_insert_with(new_page).get_mut(byte & (PAGE_CELLS - 1))
                    {
                        *target = *cell;
                    }
                }
            }
        }
    }
    out
}

/// Splits pages of stored-value records of `factor`-byte cells into pages of byte records,
/// each byte keeping its own byte of the stored data.
fn split_value_pages(pages: Vec<Page<StoredValue>>, factor: usize) -> Vec<Page<StoredValue>> {
    let mut out: Vec<Page<StoredValue>> =
        std::iter::repeat_with(|| None).take(pages.len().saturating_mul(factor)).collect();
    for (p, page) in pages.into_iter().enumerate() {
        let Some(page) = page else { continue };
        for (i, cell) in page.iter().enumerate() {
            let first_byte = ((p << PAGE_BITS) + i) * factor;
            for k in 0..factor {
                let byte = first_byte + k;
                if let Some(slot) = out.get_mut(byte >> PAGE_BITS) {
                    if let Some(target) =
                        slot.get_or_insert_with(new_page).get_mut(byte & (PAGE_CELLS - 1))
                    {
                        *target = cell.byte(k);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_aligned_accesses_keep_word_cells() {
        let mut region = RegionShadow::new(64, false);
        region.align_for(8, 4);
        assert_eq!(region.granule_shift(), 2);
        let cells = region.cells_mut(8, 8).expect("in one page");
        assert_eq!(cells.len(), 2);
    }

    #[test]
    fn a_narrow_access_refines_to_bytes_and_keeps_every_state() {
        let mut region = RegionShadow::new(64, true);
        region.cells_mut(4, 4).expect("cell")[0].writer = 3;
        region.note_store(4, 4, FirstStore { group: 2, lane: 1, span: Span::UNDEFINED });
        region.align_for(5, 1);
        assert_eq!(region.granule_shift(), 0);
        for byte in 4..8 {
            assert_eq!(region.cells_mut(byte, 1).expect("byte")[0].writer, 3);
            assert_eq!(region.first_store(byte).map(|s| s.group), Some(2));
        }
        assert_eq!(region.cells_mut(3, 1).expect("byte")[0].writer, 0);
        assert_eq!(region.first_store(8), None);
    }

    #[test]
    fn merging_regions_of_different_granules_refines_and_keeps_the_lowest_store() {
        let mut a = RegionShadow::new(64, true);
        let mut b = RegionShadow::new(64, true);
        b.align_for(1, 1);
        a.cells_mut(0, 4).expect("cell")[0].group_writer = 5;
        b.cells_mut(2, 1).expect("cell")[0].group_writer = 7;
        a.note_store(0, 4, FirstStore { group: 5, lane: 0, span: Span::UNDEFINED });
        b.note_store(2, 1, FirstStore { group: 7, lane: 3, span: Span::UNDEFINED });
        a.merge(b);
        assert_eq!(a.granule_shift(), 0);
        let writers: Vec<u32> = a.cells().take(4).map(|(_, c)| c.group_writer).collect();
        assert_eq!(writers, vec![5, 5, MANY_GROUPS, 5]);
        assert_eq!(a.first_store(2).map(|s| s.group), Some(5));
    }

    #[test]
    fn accesses_past_the_region_have_no_cells() {
        let mut region = RegionShadow::new(16, false);
        assert!(region.cells_mut(1 << 20, 4).is_none());
        assert!(region.cells_mut(PAGE_CELLS as u64 * 4 - 4, 8).is_none(), "straddles a page");
    }
}
