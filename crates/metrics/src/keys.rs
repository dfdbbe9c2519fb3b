//! The virtual address space the memory metrics count in.
//!
//! The simulator already gives every global and constant buffer its own 2^40-aligned region
//! (see `clmap_sim::memory`), so entropies over those addresses do not depend on where a host
//! would have allocated. Local memory, however, is one region shared by every work-group in
//! the simulator, although each work-group owns separate storage. Metrics therefore give each
//! work-group's local memory its own range, so that two groups using "the same" local
//! address count as two addresses, as on hardware.

use crate::Mode;
use clmap_sim::memory::{buffer_base, LOCAL_REGION, OFFSET_MASK, PRIVATE_REGION, REGION_SHIFT};

/// Set on the keys of local memory, far above every buffer region.
const LOCAL_KEY_FLAG: u64 = 1 << 63;
/// Local keys hold the work-group index above this bit and the byte offset below it. Local
/// memory of one group is far smaller than 4 GiB (the simulator caps a group's memory).
const LOCAL_GROUP_SHIFT: u32 = 32;
const LOCAL_OFFSET_MASK: u64 = (1 << LOCAL_GROUP_SHIFT) - 1;
const LOCAL_GROUP_MASK: u64 = (1 << 31) - 1;

/// The memory an address lies in, from the address itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// A global or constant buffer, or a program-scope constant.
    Buffer,
    Local,
    /// Per-work-item memory (and NULL): metrics ignore it, as registers.
    Private,
}

/// Which kind of memory `address` lies in.
pub fn region_of(address: u64) -> Region {
    let region = address >> REGION_SHIFT;
    if region == LOCAL_REGION {
        Region::Local
    } else if region == 0 || region >= PRIVATE_REGION {
        Region::Private
    } else {
        Region::Buffer
    }
}

/// The key that memory metrics count `address` under, for an access of work-group
/// `group_index`; `None` for private memory.
#[inline]
pub fn metric_key(address: u64, group_index: u64, mode: Mode) -> Option<u64> {
    match region_of(address) {
        Region::Buffer => Some(address),
        Region::Private => None,
        Region::Local => {
            let offset = address & OFFSET_MASK;
            Some(match mode {
                Mode::Clmap => {
                    LOCAL_KEY_FLAG
                        | ((group_index & LOCAL_GROUP_MASK) << LOCAL_GROUP_SHIFT)
                        | (offset & LOCAL_OFFSET_MASK)
                }
                // AIWC keys local memory like the first global buffer, for every group.
                Mode::AiwcCompat => buffer_base(0) + offset,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clmap_sim::memory::region_base;

    #[test]
    fn local_memory_of_each_group_is_its_own_range() {
        let local = region_base(LOCAL_REGION) + 12;
        let a = metric_key(local, 0, Mode::Clmap);
        let b = metric_key(local, 1, Mode::Clmap);
        assert_ne!(a, b);
        assert_eq!(a.map(|k| k & 0xfff), Some(12));
        // Neither collides with a buffer (buffers are the low regions).
        assert!(a.is_some_and(|k| k >> REGION_SHIFT >= LOCAL_KEY_FLAG >> REGION_SHIFT));
    }

    #[test]
    fn compat_overlaps_local_with_the_first_buffer() {
        let local = region_base(LOCAL_REGION) + 12;
        assert_eq!(metric_key(local, 5, Mode::AiwcCompat), Some(buffer_base(0) + 12));
        assert_eq!(metric_key(buffer_base(2) + 8, 5, Mode::AiwcCompat), Some(buffer_base(2) + 8));
    }

    #[test]
    fn private_memory_and_null_are_not_counted() {
        assert_eq!(metric_key(region_base(PRIVATE_REGION + 3) + 4, 0, Mode::Clmap), None);
        assert_eq!(metric_key(16, 0, Mode::Clmap), None);
    }
}
