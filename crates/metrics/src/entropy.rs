//! Shannon entropies of address distributions, with low address bits dropped.
//!
//! Every entropy here is computed from a list sorted by address, so the floating-point sums
//! run in one fixed order and the result does not depend on how the counts were gathered
//! (which thread saw which work-group, in which order a hash map was filled).

/// Entropies are reported for 0 to [`MAX_DROPPED_BITS`] dropped low address bits.
pub const MAX_DROPPED_BITS: usize = 10;

/// One entropy per number of dropped bits, index `n` for `n` bits dropped.
pub type EntropyCurve = [f64; MAX_DROPPED_BITS + 1];

/// How the probabilities of a distribution are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Denominator {
    /// `p = count / total`: the textbook definition.
    Total,
    /// `p = count / (total + 1)`: what the published AIWC code does for parallel spatial
    /// locality (kept only to reproduce its numbers).
    TotalPlusOne,
}

/// `-sum p log2 p` of a distribution given by its counts, in the order given.
pub fn entropy_of_counts(counts: impl IntoIterator<Item = u64>, total: u64, d: Denominator) -> f64 {
    if total == 0 {
        return 0.0;
    }
    let denominator = match d {
        Denominator::Total => total as f64,
        Denominator::TotalPlusOne => total as f64 + 1.0,
    };
    let mut entropy = 0.0;
    // Neighbouring addresses of a regular kernel have the same count: the last term is
    // reused for it (computed the same way, so the sum is bit-identical).
    let mut last: Option<(u64, f64)> = None;
    for c in counts {
        if c > 0 {
            let term = match last {
                Some((count, term)) if count == c => term,
                _ => {
                    let p = c as f64 / denominator;
                    let term = p * p.log2();
                    last = Some((c, term));
                    term
                }
            };
            entropy -= term;
        }
    }
    entropy
}

/// Entropy curve of `(address, count)` pairs sorted by address (every address once): for `n`
/// dropped bits the counts of addresses equal after `>> n` are pooled. Sorting by address
/// keeps the addresses of one pool next to each other for every `n`.
pub fn curve_of_sorted_counts(sorted: &[(u64, u64)], d: Denominator) -> EntropyCurve {
    let total: u64 = sorted.iter().map(|(_, c)| *c).sum();
    let mut curve = [0.0; MAX_DROPPED_BITS + 1];
    for (n, slot) in curve.iter_mut().enumerate() {
        *slot = entropy_of_counts(Pools { sorted, shift: n as u32, at: 0 }, total, d);
    }
    curve
}

/// [`curve_of_sorted_counts`] with its levels shared out over up to `threads` threads (when
/// there are enough pairs to be worth it): each level is still summed on one thread in
/// address order, so the curve is bit-identical.
pub fn curve_of_sorted_counts_on(
    sorted: &[(u64, u64)],
    d: Denominator,
    threads: usize,
) -> EntropyCurve {
    const MIN_PAIRS: usize = 1 << 15;
    let threads = threads.min(MAX_DROPPED_BITS + 1);
    if threads <= 1 || sorted.len() < MIN_PAIRS {
        return curve_of_sorted_counts(sorted, d);
    }
    let total: u64 = sorted.iter().map(|(_, c)| *c).sum();
    let mut curve = [0.0; MAX_DROPPED_BITS + 1];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|first| {
                scope.spawn(move || {
                    (first..=MAX_DROPPED_BITS)
                        .step_by(threads)
                        .map(|n| {
                            let pools = Pools { sorted, shift: n as u32, at: 0 };
                            (n, entropy_of_counts(pools, total, d))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            let levels = handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (n, entropy) in levels {
                curve[n] = entropy;
            }
        }
    });
    curve
}

/// Entropy curve of a multiset of addresses (one entry per access), sorted in place.
pub fn curve_of_addresses(addresses: &mut [u64], d: Denominator) -> EntropyCurve {
    addresses.sort_unstable();
    let mut curve = [0.0; MAX_DROPPED_BITS + 1];
    let total = addresses.len() as u64;
    if let (Some(first), Some(last)) = (addresses.first(), addresses.last()) {
        if first == last && d == Denominator::Total {
            // Every lane at one address: no uncertainty at any resolution.
            return curve;
        }
    }
    for (n, slot) in curve.iter_mut().enumerate() {
        let runs = Runs { addresses, shift: n as u32, at: 0 };
        *slot = entropy_of_counts(runs, total, d);
    }
    curve
}

/// The `p log2 p` terms of one distribution size, remembered: a step of parallel spatial
/// locality has as many accesses as the group has active work-items, so the same few totals
/// and counts come back step after step, and `log2` would otherwise dominate the cost.
/// The terms are computed exactly as [`entropy_of_counts`] computes them, so entropies summed
/// from them are bit-identical.
#[derive(Debug, Default)]
pub struct TermCache {
    /// `(total, terms)`, `terms[c]` holding `p log2 p` for `p = c / total` (NaN: not yet).
    tables: Vec<(u64, Vec<f64>)>,
}

/// Totals remembered at once (full groups and the few sizes divergence leaves).
const CACHED_TOTALS: usize = 8;
/// Largest total given a table; larger distributions compute their terms directly.
const MAX_CACHED_TOTAL: u64 = 1 << 16;

impl TermCache {
    /// Entropy curve of `(address, count)` pairs sorted by address (every address once), as
    /// [`curve_of_sorted_counts`] with [`Denominator::Total`] computes it. A level whose pools
    /// are those of the level before has its entropy, which is then not summed again.
    pub fn curve_of_sorted_counts(&mut self, sorted: &[(u64, u64)]) -> EntropyCurve {
        let total: u64 = sorted.iter().map(|(_, c)| *c).sum();
        let mut curve = [0.0; MAX_DROPPED_BITS + 1];
        if total == 0 || sorted.len() < 2 {
            // No access, or every one at one address: no uncertainty at any resolution.
            return curve;
        }
        let mut table = self.table(total);
        let mut pools: usize = usize::MAX;
        let mut previous = 0.0;
        for (n, slot) in curve.iter_mut().enumerate() {
            let shift = n as u32;
            // Pools only merge as bits are dropped: the same number means the same pools.
            let count = distinct_after_shift(sorted, shift);
            if count == pools {
                *slot = previous;
                continue;
            }
            pools = count;
            if count == 1 {
                // Everything pooled: this level and every coarser one are 0.
                break;
            }
            let mut entropy = 0.0;
            for c in (Pools { sorted, shift, at: 0 }) {
                if c > 0 {
                    let term = match table.as_deref_mut().and_then(|t| t.get_mut(c as usize)) {
                        Some(t) => {
                            if t.is_nan() {
                                let p = c as f64 / total as f64;
                                *t = p * p.log2();
                            }
                            *t
                        }
                        None => {
                            let p = c as f64 / total as f64;
                            p * p.log2()
                        }
                    };
                    entropy -= term;
                }
            }
            previous = entropy;
            *slot = entropy;
        }
        curve
    }

    fn table(&mut self, total: u64) -> Option<&mut Vec<f64>> {
        if total > MAX_CACHED_TOTAL {
            return None;
        }
        let at = match self.tables.iter().position(|(t, _)| *t == total) {
            Some(at) => at,
            None => {
                if self.tables.len() >= CACHED_TOTALS {
                    self.tables.remove(0);
                }
                self.tables.push((total, vec![f64::NAN; total as usize + 1]));
                self.tables.len() - 1
            }
        };
        self.tables.get_mut(at).map(|(_, t)| t)
    }
}

/// How many pools the sorted pairs form with `shift` low bits dropped.
fn distinct_after_shift(sorted: &[(u64, u64)], shift: u32) -> usize {
    1 + sorted.windows(2).filter(|w| w[0].0 >> shift != w[1].0 >> shift).count()
}

/// Pooled counts of sorted `(address, count)` pairs, pool by pool.
struct Pools<'a> {
    sorted: &'a [(u64, u64)],
    shift: u32,
    at: usize,
}

impl Iterator for Pools<'_> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        let (first, count) = *self.sorted.get(self.at)?;
        let key = first >> self.shift;
        let mut sum = count;
        self.at += 1;
        while let Some((a, c)) = self.sorted.get(self.at) {
            if a >> self.shift != key {
                break;
            }
            sum += c;
            self.at += 1;
        }
        Some(sum)
    }
}

/// Lengths of runs of equal `address >> shift` in a sorted address list.
struct Runs<'a> {
    addresses: &'a [u64],
    shift: u32,
    at: usize,
}

impl Iterator for Runs<'_> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        let key = self.addresses.get(self.at)? >> self.shift;
        let start = self.at;
        self.at += 1;
        while self.addresses.get(self.at).is_some_and(|a| a >> self.shift == key) {
            self.at += 1;
        }
        Some((self.at - start) as u64)
    }
}

/// Binary entropy `H(p)` in bits.
pub fn binary_entropy(p: f64) -> f64 {
    if p <= 0.0 || p >= 1.0 {
        0.0
    } else {
        -(p * p.log2() + (1.0 - p) * (1.0 - p).log2())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn uniform_and_skewed_distributions() {
        assert!(close(entropy_of_counts([1, 1, 1, 1], 4, Denominator::Total), 2.0));
        // p = 1/2, 1/4, 1/4: 0.5 + 0.5 + 0.5.
        assert!(close(entropy_of_counts([2, 1, 1], 4, Denominator::Total), 1.5));
        assert_eq!(entropy_of_counts([], 0, Denominator::Total), 0.0);
        // With total + 1: four accesses of one address, p = 4/5.
        let e = entropy_of_counts([4], 4, Denominator::TotalPlusOne);
        assert!(close(e, -(0.8f64 * 0.8f64.log2())));
    }

    #[test]
    fn dropping_bits_pools_neighbours() {
        // Four 4-byte words at 0, 4, 8, 12, accessed once each.
        let mut a = vec![12, 0, 8, 4];
        let c = curve_of_addresses(&mut a, Denominator::Total);
        assert!(close(c[0], 2.0) && close(c[2], 2.0));
        assert!(close(c[3], 1.0), "0,4 and 8,12 pool at 3 bits: {c:?}");
        assert!(close(c[4], 0.0));
        let sorted = [(0, 2), (4, 1), (8, 1)];
        let c = curve_of_sorted_counts(&sorted, Denominator::Total);
        assert!(close(c[0], 1.5));
        assert!(close(c[3], binary_entropy(0.75)));
        assert!(close(c[10], 0.0));
    }

    #[test]
    fn levels_on_several_threads_are_bit_identical() {
        // Enough pairs to be split; irregular counts and gaps so that every level differs.
        let sorted: Vec<(u64, u64)> = (0..100_000u64)
            .map(|i| (i * 32 + (i % 7) * 3 + (i / 1000) * 64, 1 + i * i % 13))
            .collect();
        let one = curve_of_sorted_counts(&sorted, Denominator::Total);
        for threads in [2, 3, 11, 16] {
            let many = curve_of_sorted_counts_on(&sorted, Denominator::Total, threads);
            assert_eq!(one.map(f64::to_bits), many.map(f64::to_bits), "{threads} threads");
        }
    }

    #[test]
    fn one_address_has_no_entropy() {
        let mut a = vec![64; 16];
        assert_eq!(curve_of_addresses(&mut a, Denominator::Total), [0.0; 11]);
        assert!(close(binary_entropy(0.5), 1.0));
        assert_eq!(binary_entropy(1.0), 0.0);
    }
}
