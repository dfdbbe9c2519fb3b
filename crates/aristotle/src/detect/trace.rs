//! What work-items read on the simulator: an observer that records, for a few work-groups,
//! the elements each work-item loads from each buffer — directly, or through a `__local`
//! tile whose cells it follows back to the global element that was stored there.
//!
//! A global load whose value the same work-item stores next into local memory is a staging
//! load: the tile cell remembers the element, and a later local load of that cell counts as a
//! read of it. Any other global load is a direct read.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use clmap_lang::ir::AddressSpace;
use clmap_sim::memory::{OFFSET_MASK, REGION_SHIFT};
use clmap_sim::{AccessBatch, AccessKind, GroupInfo, Observer};

/// Elements read per (buffer parameter, work-item `(ty, tx)`).
pub type Reads = BTreeMap<(u32, [i64; 2]), BTreeSet<i64>>;

/// Records the reads of the work-groups in `groups`.
pub struct ReadTrace {
    groups: Vec<[u64; 3]>,
    /// The kernel parameter behind each bound buffer (the simulator numbers buffers in
    /// binding order).
    param_of_buffer: Vec<u32>,
    recording: bool,
    lanes_global: Vec<[i64; 2]>,
    pending: Vec<Option<(u32, i64)>>,
    tile: HashMap<u64, (u32, i64)>,
    /// Reads made directly from global memory.
    pub direct: Reads,
    /// Reads through a local tile, followed back to the global element.
    pub through_local: Reads,
    /// Groups recorded.
    pub groups_seen: BTreeSet<[u64; 3]>,
}

impl ReadTrace {
    pub fn new(groups: Vec<[u64; 3]>, param_of_buffer: Vec<u32>) -> ReadTrace {
        ReadTrace {
            groups,
            param_of_buffer,
            recording: false,
            lanes_global: Vec::new(),
            pending: Vec::new(),
            tile: HashMap::new(),
            direct: Reads::new(),
            through_local: Reads::new(),
            groups_seen: BTreeSet::new(),
        }
    }

    fn commit(&mut self, lane: usize) {
        if let Some((param, element)) = self.pending.get_mut(lane).and_then(Option::take) {
            let item = self.lanes_global[lane];
            self.direct.entry((param, item)).or_default().insert(element);
        }
    }

    fn element(&self, address: u64, size: u32) -> Option<(u32, i64)> {
        let region = address >> REGION_SHIFT;
        let buffer = usize::try_from(region.checked_sub(1)?).ok()?;
        let param = *self.param_of_buffer.get(buffer)?;
        let offset = address & OFFSET_MASK;
        Some((param, i64::try_from(offset / u64::from(size.max(1))).ok()?))
    }
}

impl Observer for ReadTrace {
    fn group_start(&mut self, group: &GroupInfo) {
        self.recording = self.groups.contains(&group.group_id);
        if !self.recording {
            return;
        }
        self.groups_seen.insert(group.group_id);
        self.lanes_global = (0..group.lanes)
            .map(|lane| {
                let g = group.global_id(lane);
                [g[1] as i64, g[0] as i64]
            })
            .collect();
        self.pending = vec![None; group.lanes];
        self.tile.clear();
    }

    fn group_end(&mut self, _group: &GroupInfo) {
        if self.recording {
            for lane in 0..self.pending.len() {
                self.commit(lane);
            }
        }
        self.recording = false;
    }

    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        if !self.recording {
            return;
        }
        let lanes = batch.addresses.len().min(self.pending.len());
        match (batch.space, batch.kind) {
            (AddressSpace::Global | AddressSpace::Constant, AccessKind::Load) => {
                for lane in (0..lanes).filter(|l| batch.mask.get(*l)) {
                    self.commit(lane);
                    self.pending[lane] = self.element(batch.addresses[lane], batch.size);
                }
            }
            (AddressSpace::Local, AccessKind::Store) => {
                for lane in (0..lanes).filter(|l| batch.mask.get(*l)) {
                    if let Some(source) = self.pending[lane].take() {
                        self.tile.insert(batch.addresses[lane], source);
                    } else {
                        // The cell now holds something else than a global element.
                        self.tile.remove(&batch.addresses[lane]);
                    }
                }
            }
            (AddressSpace::Local, AccessKind::Load) => {
                for lane in (0..lanes).filter(|l| batch.mask.get(*l)) {
                    if let Some((param, element)) = self.tile.get(&batch.addresses[lane]).copied() {
                        let item = self.lanes_global[lane];
                        self.through_local.entry((param, item)).or_default().insert(element);
                    }
                }
            }
            (_, AccessKind::Store | AccessKind::Atomic) => {
                for lane in (0..lanes).filter(|l| batch.mask.get(*l)) {
                    self.commit(lane);
                }
            }
            _ => {}
        }
    }

    fn merge(&mut self, other: Self) {
        for (key, set) in other.direct {
            self.direct.entry(key).or_default().extend(set);
        }
        for (key, set) in other.through_local {
            self.through_local.entry(key).or_default().extend(set);
        }
        self.groups_seen.extend(other.groups_seen);
    }
}
