//! Active-lane masks: one bit per work-item of a work-group.

/// A set of lanes of one work-group, as a bitset over `lanes` lanes.
///
/// Masks of groups of up to [`INLINE_LANES`] lanes keep their words inline: the executor
/// makes several per loop iteration, and a heap allocation each would cost more than the
/// iteration's arithmetic.
///
/// Invariant: bits at and above `lanes` are zero; `heap` is empty when the words are inline.
#[derive(Clone, Debug)]
pub struct Mask {
    inline: [u64; INLINE_WORDS],
    heap: Vec<u64>,
    lanes: usize,
}

const INLINE_WORDS: usize = 4;
/// Most lanes a mask holds without allocating.
pub const INLINE_LANES: usize = INLINE_WORDS * 64;

impl PartialEq for Mask {
    fn eq(&self, other: &Mask) -> bool {
        self.lanes == other.lanes && self.words() == other.words()
    }
}

impl Eq for Mask {}

impl Mask {
    fn filled(lanes: usize, word: u64) -> Mask {
        let count = lanes.div_ceil(64);
        if count <= INLINE_WORDS {
            let mut inline = [0; INLINE_WORDS];
            inline[..count].fill(word);
            Mask { inline, heap: Vec::new(), lanes }
        } else {
            Mask { inline: [0; INLINE_WORDS], heap: vec![word; count], lanes }
        }
    }

    /// A mask of `lanes` lanes, none active.
    pub fn none(lanes: usize) -> Mask {
        Mask::filled(lanes, 0)
    }

    /// A mask of `lanes` lanes, all active.
    pub fn all(lanes: usize) -> Mask {
        let mut mask = Mask::filled(lanes, u64::MAX);
        mask.clear_tail();
        mask
    }

    fn words_mut(&mut self) -> &mut [u64] {
        if self.lanes <= INLINE_LANES {
            &mut self.inline[..self.lanes.div_ceil(64)]
        } else {
            &mut self.heap
        }
    }

    fn clear_tail(&mut self) {
        let rem = self.lanes % 64;
        if rem != 0 {
            if let Some(last) = self.words_mut().last_mut() {
                *last &= (1u64 << rem) - 1;
            }
        }
    }

    /// Number of lanes the mask ranges over (active or not).
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// The bit words, lane `i` at bit `i % 64` of word `i / 64`.
    #[inline]
    pub fn words(&self) -> &[u64] {
        if self.lanes <= INLINE_LANES {
            &self.inline[..self.lanes.div_ceil(64)]
        } else {
            &self.heap
        }
    }

    pub fn is_empty(&self) -> bool {
        self.words().iter().all(|w| *w == 0)
    }

    /// Whether every lane is active.
    pub fn is_full(&self) -> bool {
        let full_words = self.lanes / 64;
        let words = self.words();
        words[..full_words].iter().all(|w| *w == u64::MAX)
            && (self.lanes % 64 == 0
                || words.get(full_words).copied().unwrap_or(0) == (1u64 << (self.lanes % 64)) - 1)
    }

    pub fn count(&self) -> u32 {
        self.words().iter().map(|w| w.count_ones()).sum()
    }

    pub fn get(&self, lane: usize) -> bool {
        self.words().get(lane / 64).is_some_and(|w| w >> (lane % 64) & 1 == 1)
    }

    pub fn set(&mut self, lane: usize, value: bool) {
        if lane >= self.lanes {
            return;
        }
        if let Some(w) = self.words_mut().get_mut(lane / 64) {
            if value {
                *w |= 1 << (lane % 64);
            } else {
                *w &= !(1 << (lane % 64));
            }
        }
    }

    /// The lowest active lane.
    pub fn first(&self) -> Option<usize> {
        self.words()
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }

    pub fn clear(&mut self) {
        self.words_mut().iter_mut().for_each(|w| *w = 0);
    }

    pub fn copy_from(&mut self, other: &Mask) {
        self.words_mut().copy_from_slice(other.words());
    }

    pub fn and_assign(&mut self, other: &Mask) {
        self.words_mut().iter_mut().zip(other.words()).for_each(|(a, b)| *a &= b);
    }

    pub fn or_assign(&mut self, other: &Mask) {
        self.words_mut().iter_mut().zip(other.words()).for_each(|(a, b)| *a |= b);
    }

    pub fn and_not_assign(&mut self, other: &Mask) {
        self.words_mut().iter_mut().zip(other.words()).for_each(|(a, b)| *a &= !b);
    }

    /// Active lanes, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words().iter().enumerate().flat_map(|(i, &w)| {
            let mut bits = w;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let t = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(i * 64 + t)
            })
        })
    }

    /// Builds a mask from `self`'s lanes for which `keep(lane)` holds.
    pub fn filter(&self, mut keep: impl FnMut(usize) -> bool) -> Mask {
        let mut out = Mask::none(self.lanes);
        for (i, &w) in self.words().iter().enumerate() {
            let mut bits = w;
            let mut kept = 0u64;
            while bits != 0 {
                let t = bits.trailing_zeros();
                bits &= bits - 1;
                if keep(i * 64 + t as usize) {
                    kept |= 1 << t;
                }
            }
            out.words_mut()[i] = kept;
        }
        out
    }
}

/// Runs `$body` for every active lane `$lane` of `$mask`; a straight loop when all are active.
macro_rules! for_active {
    ($mask:expr, $lane:ident => $body:block) => {{
        let mask: &$crate::mask::Mask = $mask;
        if mask.is_full() {
            for $lane in 0..mask.lanes() $body
        } else {
            for (word_index, &word) in mask.words().iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let $lane = word_index * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    $body
                }
            }
        }
    }};
}
pub(crate) use for_active;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_and_partial_masks() {
        let m = Mask::all(70);
        assert!(m.is_full());
        assert_eq!(m.count(), 70);
        let mut odd = m.filter(|l| l % 2 == 1);
        assert!(!odd.is_full());
        assert_eq!(odd.count(), 35);
        assert_eq!(odd.first(), Some(1));
        odd.and_not_assign(&Mask::all(70).filter(|l| l < 64));
        assert_eq!(odd.iter().collect::<Vec<_>>(), vec![65, 67, 69]);
        let mut seen = Vec::new();
        for_active!(&odd, lane => { seen.push(lane); });
        assert_eq!(seen, vec![65, 67, 69]);
        assert!(Mask::none(3).is_empty());
        assert!(Mask::all(64).is_full());
    }
}
