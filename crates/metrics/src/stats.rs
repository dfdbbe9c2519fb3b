//! Small order-independent accumulators, so per-thread results merge to the same numbers
//! whatever the scheduling.

use serde::Serialize;
use std::collections::BTreeMap;

/// A multiset of integer values kept as value → multiplicity: memory grows with the number of
/// distinct values, not with the number of samples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValueHistogram {
    counts: BTreeMap<u64, u64>,
}

/// Minimum, median and maximum of a distribution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
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

    pub fn merge(&mut self, other: ValueHistogram) {
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
pub fn items_covering(mut counts: Vec<u64>, fraction: f64) -> u64 {
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = counts.iter().sum();
    let needed = (total as f64 * fraction).ceil() as u64;
    let mut covered = 0u64;
    let mut items = 0u64;
    for c in counts {
        if covered >= needed {
            break;
        }
        covered += c;
        items += 1;
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
    }
}
