//! The random generator behind `random(SEED)` initial data. It is written here, not taken
//! from a crate, so the bytes a workload produces never change with a dependency upgrade;
//! `docs/workloads.md` states the exact definition and a test pins its first outputs.

/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit counter advanced by the golden-ratio
/// increment, then mixed.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose first output is derived from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A float uniform in [0, 1): the top 53 bits scaled by 2^-53.
    pub fn next_unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An integer uniform in [lo, hi] (inclusive), by the multiply-high method: exact
    /// and free of modulo, so the result depends only on the 64 bits drawn.
    pub fn next_in_range(&mut self, lo: i128, hi: i128) -> i128 {
        let bits = self.next_u64();
        let span = (hi - lo) as u128 + 1;
        if span > u128::from(u64::MAX) {
            return lo + i128::from(bits);
        }
        lo + ((u128::from(bits) * span) >> 64) as i128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_outputs_are_pinned() {
        // Reference values of SplitMix64 seeded with 0 and with 1234567.
        let mut zero = SplitMix64::new(0);
        assert_eq!(zero.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(zero.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(zero.next_u64(), 0x06c4_5d18_8009_454f);
        let mut other = SplitMix64::new(1234567);
        assert_eq!(other.next_u64(), 6457827717110365317);
        assert_eq!(other.next_u64(), 3203168211198807973);
    }

    #[test]
    fn ranges_stay_inside_their_bounds() {
        let mut rng = SplitMix64::new(9);
        for _ in 0..10_000 {
            let v = rng.next_in_range(-3, 5);
            assert!((-3..=5).contains(&v));
            let u = rng.next_unit_f64();
            assert!((0.0..1.0).contains(&u));
        }
        assert_eq!(rng.next_in_range(7, 7), 7);
        let full = rng.next_in_range(0, u64::MAX as i128);
        assert!((0..=u64::MAX as i128).contains(&full));
    }
}
