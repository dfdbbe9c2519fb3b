//! Small order-independent accumulators, so per-thread results merge to the same numbers
//! whatever the scheduling.

use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// A multiset of integer values kept as value → multiplicity: memory grows with the number of
/// distinct values, not with the number of samples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValueHistogram {
    counts: BTreeMap<u64, u64>,
}

/// Maximum, mean and standard deviation of weighted integer samples, from exact integer
/// sums, so merging per-thread moments in any order gives bit-identical results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WidthMoments {
    samples: u128,
    sum: u128,
    sum_of_squares: u128,
    max: u64,
}

impl WidthMoments {
    /// Adds `value` `times` times.
    pub fn add(&mut self, value: u64, times: u64) {
        if times == 0 {
            return;
        }
        let (v, n) = (u128::from(value), u128::from(times));
        self.samples = self.samples.saturating_add(n);
        self.sum = self.sum.saturating_add(v * n);
        self.sum_of_squares = self.sum_of_squares.saturating_add(v * v * n);
        self.max = self.max.max(value);
    }

    pub fn merge(&mut self, other: WidthMoments) {
        self.samples = self.samples.saturating_add(other.samples);
        self.sum = self.sum.saturating_add(other.sum);
        self.sum_of_squares = self.sum_of_squares.saturating_add(other.sum_of_squares);
        self.max = self.max.max(other.max);
    }

    /// `(max, mean, population standard deviation)`, or `None` without samples.
    pub fn summary(&self) -> Option<(u64, f64, f64)> {
        if self.samples == 0 {
            return None;
        }
        let n = self.samples as f64;
        let mean = self.sum as f64 / n;
        // n * sum(v^2) - sum(v)^2 is exact in integers, so a constant width gives exactly 0.
        let spread = self
            .samples
            .saturating_mul(self.sum_of_squares)
            .saturating_sub(self.sum.saturating_mul(self.sum));
        let sd = (spread as f64).sqrt() / n;
        Some((self.max, mean, sd))
    }
}

/// Minimum, median and maximum of a distribution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Spread {
    pub min: u64,
    pub median: f64,
    pub max: u64,
}

impl ValueHistogram {
    /// Adds `value` `times` times.
    pub fn add(&mut self, value: u64, times: u64) {
        if times > 0 {
            *self.counts.entry(value).or_insert(0) += times;
        }
    }

    pub fn merge(&mut self, mut other: ValueHistogram) {
        // Multiplicities add, so the larger map keeps its entries and takes the smaller's.
        if other.counts.len() > self.counts.len() {
            std::mem::swap(&mut self.counts, &mut other.counts);
        }
        for (v, n) in other.counts {
            self.add(v, n);
        }
    }

    pub fn samples(&self) -> u64 {
        self.counts.values().sum()
    }

    /// The `rank`-th smallest sample (0-based).
    fn nth(&self, rank: u64) -> Option<u64> {
        let mut seen = 0u64;
        for (&v, &n) in &self.counts {
            seen += n;
            if rank < seen {
                return Some(v);
            }
        }
        None
    }

    /// Min, median (mean of the two middle samples for an even count) and max; zeros when
    /// empty. `integer_median` truncates the median as AIWC does.
    pub fn spread(&self, integer_median: bool) -> Spread {
        let n = self.samples();
        let (Some(&min), Some(&max)) = (self.counts.keys().next(), self.counts.keys().last())
        else {
            return Spread::default();
        };
        let median = if n % 2 == 1 {
            self.nth(n / 2).unwrap_or(0) as f64
        } else {
            let lo = self.nth(n / 2 - 1).unwrap_or(0);
            let hi = self.nth(n / 2).unwrap_or(0);
            if integer_median {
                ((lo + hi) / 2) as f64
            } else {
                (lo as f64 + hi as f64) / 2.0
            }
        };
        Spread { min, median, max }
    }
}

/// An exact sum of non-negative reals below 2^32, in fixed point with 64 fraction bits:
/// integer addition is associative, so the total is the same in any merge order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExactSum(u128);

impl ExactSum {
    const ONE: f64 = 18_446_744_073_709_551_616.0; // 2^64

    pub fn add(&mut self, value: f64) {
        let clamped = if value.is_finite() { value.clamp(0.0, 4.0e9) } else { 0.0 };
        self.0 = self.0.saturating_add((clamped * Self::ONE) as u128);
    }

    pub fn merge(&mut self, other: ExactSum) {
        self.0 = self.0.saturating_add(other.0);
    }

    pub fn value(&self) -> f64 {
        self.0 as f64 / Self::ONE
    }
}

/// The number of items, largest first, needed to cover `fraction` of the total of `counts`
/// (AIWC's "90 %" metrics: the threshold is `ceil(total * fraction)`).
pub fn items_covering(counts: impl IntoIterator<Item = u64>, fraction: f64) -> u64 {
    // Counts repeat (every element of a matrix read as often as the next): walking the
    // distinct counts from the largest, with how many items have each, gives the same answer
    // as sorting every item, without the sort that made this a serial step of `analyze`.
    // Equal counts come in runs (address order), so a run only touches the map once.
    let mut items_with: HashMap<u64, u64> = HashMap::new();
    let mut total = 0u64;
    let mut run: Option<(u64, u64)> = None;
    for c in counts {
        total += c;
        match &mut run {
            Some((value, length)) if *value == c => *length += 1,
            _ => {
                if let Some((value, length)) = run.replace((c, 1)) {
                    *items_with.entry(value).or_insert(0) += length;
                }
            }
        }
    }
    if let Some((value, length)) = run {
        *items_with.entry(value).or_insert(0) += length;
    }
    let needed = (total as f64 * fraction).ceil() as u64;
    let mut distinct: Vec<(u64, u64)> = items_with.into_iter().collect();
    distinct.sort_unstable_by(|a, b| b.0.cmp(&a.0));
    let (mut covered, mut items) = (0u64, 0u64);
    for (count, how_many) in distinct {
        if covered >= needed {
            break;
        }
        if count == 0 {
            // Only reached when nothing was needed beyond what zeros add.
            break;
        }
        let taken = how_many.min((needed - covered).div_ceil(count));
        covered += taken * count;
        items += taken;
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_a_histogram() {
        let mut h = ValueHistogram::default();
        h.add(5, 1);
        h.add(1, 2);
        h.add(10, 1);
        // 1 1 5 10
        assert_eq!(h.spread(false), Spread { min: 1, median: 3.0, max: 10 });
        h.add(4, 1);
        assert_eq!(h.spread(false).median, 4.0);
        let mut even = ValueHistogram::default();
        even.add(2, 1);
        even.add(5, 1);
        assert_eq!(even.spread(true).median, 3.0);
        assert_eq!(even.spread(false).median, 3.5);
        assert_eq!(ValueHistogram::default().spread(false), Spread::default());
    }

    #[test]
    fn histograms_merge_either_way_to_the_same_multiset() {
        let fill = |values: &[u64]| {
            let mut h = ValueHistogram::default();
            values.iter().for_each(|v| h.add(*v, 1 + v % 3));
            h
        };
        let (many, few) = ([1u64, 2, 3, 4, 5, 6, 7], [3u64, 9]);
        let mut whole = fill(&many);
        few.iter().for_each(|v| whole.add(*v, 1 + v % 3));
        let mut into_many = fill(&many);
        into_many.merge(fill(&few));
        let mut into_few = fill(&few);
        into_few.merge(fill(&many));
        assert_eq!(into_many, whole);
        assert_eq!(into_few, whole);
    }

    #[test]
    fn width_moments_of_weighted_samples() {
        let mut m = WidthMoments::default();
        assert_eq!(m.summary(), None);
        m.add(4, 3);
        assert_eq!(m.summary(), Some((4, 4.0, 0.0)));
        let mut other = WidthMoments::default();
        other.add(1, 1);
        m.merge(other);
        // 4 4 4 1: mean 13/4, variance 153/16 - (13/4)^2 = 27/16.
        let (max, mean, sd) = m.summary().expect("samples");
        assert_eq!((max, mean), (4, 3.25));
        assert!((sd - (27.0f64 / 16.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn exact_sums_do_not_depend_on_order() {
        let values = [0.1, 1e-9, 3.7, 2.0 / 3.0, 9.25];
        let mut a = ExactSum::default();
        values.iter().for_each(|v| a.add(*v));
        let mut b = ExactSum::default();
        let mut c = ExactSum::default();
        values.iter().rev().take(2).for_each(|v| b.add(*v));
        values.iter().take(3).for_each(|v| c.add(*v));
        b.merge(c);
        assert_eq!(a, b);
        assert!((a.value() - values.iter().sum::<f64>()).abs() < 1e-12);
    }

    #[test]
    fn ninety_percent_coverage() {
        // total 20, 90 % = 18: 10 + 5 + 3.
        assert_eq!(items_covering(vec![3, 10, 1, 5, 1], 0.9), 3);
        assert_eq!(items_covering(vec![1; 10], 0.9), 9);
        assert_eq!(items_covering(vec![], 0.9), 0);
        assert_eq!(items_covering(vec![0, 0], 0.9), 0);
    }

    #[test]
    fn items_covering_equals_taking_the_largest_counts_first() {
        let by_sorting = |counts: &[u64], fraction: f64| {
            let mut sorted = counts.to_vec();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let needed = (sorted.iter().sum::<u64>() as f64 * fraction).ceil() as u64;
            let (mut covered, mut items) = (0, 0);
            for c in sorted {
                if covered >= needed {
                    break;
                }
                covered += c;
                items += 1;
            }
            items
        };
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for case in 0..200 {
            let len = case % 37;
            let counts: Vec<u64> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // Few distinct values, in runs and not, zeros included.
                    if case % 2 == 0 {
                        state % 4
                    } else {
                        [0, 3, 3, 3, 8][(state % 5) as usize]
                    }
                })
                .collect();
            for fraction in [0.5, 0.9, 1.0] {
                assert_eq!(items_covering(counts.clone(), fraction), by_sorting(&counts, fraction));
            }
        }
    }
}
