//! Parallel spatial locality (seed 004, section 5).
//!
//! Record, calculate, summarise: the accesses a work-group issues at one logical time step
//! form one distribution; its entropy is taken with 0 to 10 low address bits dropped; the
//! entropies are averaged over the group's time steps, then over work-groups, and divided by
//! `log2(group size)`, the largest entropy `group size` accesses can have.
//!
//! clmap's time step is the simulator's lock-step instruction counter, so all the accesses of
//! one memory instruction executed by the group are one step. Memory holds the accesses of one
//! time step at a time.

use std::collections::HashMap;

use crate::entropy::{curve_of_addresses, Denominator, EntropyCurve, TermCache, MAX_DROPPED_BITS};
use crate::hasher::BuildAddressHasher;
use crate::stats::ExactSum;

const CURVE_LEN: usize = MAX_DROPPED_BITS + 1;

/// Most `(key, count)` pairs the remembered step curves hold together (a few MiB).
const MAX_REMEMBERED_PAIRS: usize = 1 << 17;

/// The definition of seed 004, streaming.
#[derive(Debug, Default)]
pub struct PslAccumulator {
    /// Time of the step being collected and its addresses with their access counts (an
    /// address may come more than once when several batches share the step).
    step_time: Option<u64>,
    step: Vec<(u64, u64)>,
    terms: TermCache,
    /// Curves of earlier steps, by their pairs in the order they came with the keys less a
    /// common multiple of `2^MAX_DROPPED_BITS` (see [`PslAccumulator::step_curve`]).
    curves: HashMap<Box<[(u64, u64)]>, EntropyCurve, BuildAddressHasher>,
    /// Pairs the remembered curves hold, all together.
    remembered: usize,
    /// Scratch for a step's moved pairs.
    moved: Vec<(u64, u64)>,
    /// Sum of the step entropies of the current group and its number of steps.
    group_sum: EntropyCurve,
    group_steps: u64,
    /// Sum over finished groups of their normalised mean entropies.
    total: [ExactSum; CURVE_LEN],
    groups: u64,
}

impl PslAccumulator {
    /// Adds the addresses (metric keys) one memory instruction accessed at `time`.
    #[cfg(test)]
    pub fn access(&mut self, time: u64, keys: impl Iterator<Item = u64>) {
        self.access_counted(time, keys.map(|key| (key, 1)));
    }

    /// Adds `(address, accesses)` pairs one memory instruction made at `time`: the same as
    /// [`Self::access`] with each address repeated, without handling each access.
    pub fn access_counted(&mut self, time: u64, pairs: impl Iterator<Item = (u64, u64)>) {
        if self.step_time != Some(time) {
            self.finish_step();
            self.step_time = Some(time);
        }
        self.step.extend(pairs);
    }

    fn finish_step(&mut self) {
        self.step_time = None;
        if self.step.is_empty() {
            return;
        }
        let curve = self.step_curve();
        for (sum, e) in self.group_sum.iter_mut().zip(curve) {
            *sum += e;
        }
        self.group_steps += 1;
        self.step.clear();
    }

    /// The entropy curve of the step collected. With at most [`MAX_DROPPED_BITS`] bits dropped,
    /// which keys pool together does not change when every key moves by one multiple of
    /// `2^MAX_DROPPED_BITS`, so steps that differ only so (the same instruction in another
    /// work-group or another loop iteration) have bit-identical curves: a step whose pairs,
    /// moved so that the lowest key is below `2^MAX_DROPPED_BITS`, came before in the same
    /// order takes that step's curve instead of sorting and summing again.
    fn step_curve(&mut self) -> EntropyCurve {
        const GRAIN: u64 = 1 << MAX_DROPPED_BITS;
        let lowest = self.step.iter().map(|(key, _)| *key).min().unwrap_or(0);
        let shift = lowest - lowest % GRAIN;
        let mut moved = std::mem::take(&mut self.moved);
        moved.clear();
        moved.extend(self.step.iter().map(|&(key, count)| (key - shift, count)));
        let curve = match self.curves.get(&moved[..]) {
            Some(curve) => *curve,
            None => {
                // The pools of every level are runs of the address order, so the counts (and
                // their order) are those of the sorted multiset of accesses.
                self.step.sort_unstable_by_key(|(key, _)| *key);
                merge_equal_keys(&mut self.step);
                let curve = self.terms.curve_of_sorted_counts(&self.step);
                if self.remembered + moved.len() <= MAX_REMEMBERED_PAIRS {
                    self.remembered += moved.len();
                    self.curves.insert(moved.as_slice().into(), curve);
                }
                curve
            }
        };
        self.moved = moved;
        curve
    }

    /// Closes the current work-group, which has `lanes` work-items.
    pub fn group_end(&mut self, lanes: usize) {
        self.finish_step();
        if self.group_steps > 0 {
            // A group of one work-item has no parallel accesses to spread: entropy 0 of 0.
            let max_entropy = (lanes as f64).log2();
            for (total, sum) in self.total.iter_mut().zip(self.group_sum) {
                let mean = sum / self.group_steps as f64;
                total.add(if max_entropy > 0.0 { mean / max_entropy } else { 0.0 });
            }
            self.groups += 1;
        }
        self.group_sum = [0.0; CURVE_LEN];
        self.group_steps = 0;
    }

    /// Adds `other`'s finished groups (its step curve cache, of no use here, stays with it).
    pub fn merge(&mut self, other: &PslAccumulator) {
        for (a, b) in self.total.iter_mut().zip(other.total) {
            a.merge(b);
        }
        self.groups += other.groups;
    }

    /// Normalised parallel spatial locality for 0 to 10 dropped bits (zeros without accesses).
    pub fn finish(&self) -> EntropyCurve {
        let mut out = [0.0; CURVE_LEN];
        if self.groups > 0 {
            for (o, t) in out.iter_mut().zip(&self.total) {
                *o = t.value() / self.groups as f64;
            }
        }
        out
    }
}

/// Sums the counts of equal adjacent keys into one pair.
fn merge_equal_keys(pairs: &mut Vec<(u64, u64)>) {
    pairs.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 += later.1;
        }
        same
    });
}

/// What the published AIWC code computes, reproduced for comparison with its tables.
///
/// Its time step is the position of an access in each work-item's own list of accesses since
/// the last barrier; each barrier interval is summarised with `p = count / (total + 1)` and a
/// mean over `steps + 1`; and the per-group value is a running average over every interval the
/// worker thread has seen so far, across work-groups. That makes the result depend on how
/// groups are spread over threads; clmap replays it as one worker thread running the groups
/// in linear order, which is deterministic.
#[derive(Debug, Default)]
pub struct AiwcPslAccumulator {
    /// Accesses of each lane in the current barrier interval.
    lane_positions: Vec<usize>,
    /// Keys accessed at each position of the current interval.
    positions: Vec<Vec<u64>>,
    /// The current group's intervals: sum of interval value times interval length, and length.
    group_weighted: EntropyCurve,
    group_length: u64,
    records: Vec<AiwcGroupRecord>,
    lanes_per_group: usize,
}

#[derive(Clone, Debug)]
struct AiwcGroupRecord {
    group_index: u64,
    weighted: EntropyCurve,
    length: u64,
}

impl AiwcPslAccumulator {
    pub fn group_start(&mut self, lanes: usize) {
        self.lane_positions.clear();
        self.lane_positions.resize(lanes, 0);
        self.positions.clear();
        self.group_weighted = [0.0; CURVE_LEN];
        self.group_length = 0;
        self.lanes_per_group = self.lanes_per_group.max(lanes);
    }

    /// One access of `lane`.
    pub fn access(&mut self, lane: usize, key: u64) {
        let Some(position) = self.lane_positions.get_mut(lane) else { return };
        if self.positions.len() <= *position {
            self.positions.resize_with(*position + 1, Vec::new);
        }
        if let Some(keys) = self.positions.get_mut(*position) {
            keys.push(key);
        }
        *position += 1;
    }

    /// A barrier or the end of the group closes the interval.
    pub fn interval_end(&mut self) {
        let length = self.positions.len() as u64;
        let mut sums = [0.0f64; CURVE_LEN];
        for keys in &mut self.positions {
            let curve = curve_of_addresses(keys, Denominator::TotalPlusOne);
            for (s, e) in sums.iter_mut().zip(curve) {
                // AIWC stores each step's entropy as a 32-bit float.
                *s += e as f32 as f64;
            }
        }
        for (w, s) in self.group_weighted.iter_mut().zip(sums) {
            *w += s / (length as f64 + 1.0) * length as f64;
        }
        self.group_length += length;
        self.positions.clear();
        self.lane_positions.iter_mut().for_each(|p| *p = 0);
    }

    pub fn group_end(&mut self, group_index: u64) {
        self.interval_end();
        self.records.push(AiwcGroupRecord {
            group_index,
            weighted: self.group_weighted,
            length: self.group_length,
        });
    }

    pub fn merge(&mut self, other: AiwcPslAccumulator) {
        self.records.extend(other.records);
        self.lanes_per_group = self.lanes_per_group.max(other.lanes_per_group);
    }

    /// AIWC's normalised values for 0 to 10 dropped bits.
    pub fn finish(&self) -> EntropyCurve {
        let mut records: Vec<&AiwcGroupRecord> = self.records.iter().collect();
        records.sort_by_key(|r| r.group_index);
        let mut running = [0.0f64; CURVE_LEN];
        let mut running_length = 0u64;
        let mut sum_of_groups = [0.0f64; CURVE_LEN];
        for r in &records {
            for (acc, w) in running.iter_mut().zip(r.weighted) {
                *acc += w;
            }
            running_length += r.length;
            for (s, acc) in sum_of_groups.iter_mut().zip(running) {
                *s += if running_length == 0 {
                    acc
                } else {
                    acc / (running_length as f32 + 1.0) as f64
                };
            }
        }
        let mut out = [0.0; CURVE_LEN];
        if records.is_empty() {
            return out;
        }
        let norm = (self.lanes_per_group as f64 + 1.0).log2();
        for (o, s) in out.iter_mut().zip(sum_of_groups) {
            *o = s / records.len() as f64 / norm;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn coalesced_and_scattered_steps() {
        let mut psl = PslAccumulator::default();
        // Group of 4 lanes; step 1: consecutive floats; step 2: all lanes one address.
        psl.access(1, [0u64, 4, 8, 12].into_iter());
        psl.access(2, [64u64; 4].into_iter());
        psl.group_end(4);
        let c = psl.finish();
        // Step entropies: [2, 0] at 0 bits -> mean 1 -> normalised 1 / log2(4) = 0.5.
        assert!(close(c[0], 0.5), "{c:?}");
        // At 4 bits dropped both steps are one address.
        assert!(close(c[4], 0.0));
        // At 3 bits: step 1 has two pairs, entropy 1: mean 0.5 -> 0.25.
        assert!(close(c[3], 0.25));
    }

    #[test]
    fn remembered_step_curves_are_those_computed_afresh() {
        let afresh = |pairs: &[(u64, u64)]| {
            let mut sorted = pairs.to_vec();
            sorted.sort_unstable();
            merge_equal_keys(&mut sorted);
            TermCache::default().curve_of_sorted_counts(&sorted)
        };
        let step = [(1024u64, 2u64), (4, 1), (1020, 1), (0, 1), (4, 3)];
        let mut psl = PslAccumulator::default();
        // The same step moved by multiples of 1024 is taken from memory; moved by 512 or 4,
        // its pools differ at some level and it is computed again.
        for moved_by in [0u64, 1 << 20, 3 << 10, 512, 4, (1 << 20) + 4, 0] {
            let pairs: Vec<(u64, u64)> = step.iter().map(|&(k, c)| (k + moved_by, c)).collect();
            psl.step = pairs.clone();
            let curve = psl.step_curve();
            psl.step.clear();
            let expected = afresh(&pairs);
            assert_eq!(curve.map(f64::to_bits), expected.map(f64::to_bits), "moved by {moved_by}");
        }
        assert_ne!(afresh(&step), afresh(&step.map(|(k, c)| (k + 512, c))));
        // Moved by 0, 2^20 and 3 * 2^10 is one step; moved by 512 and by 4 two others.
        assert_eq!(psl.curves.len(), 3);
    }

    #[test]
    fn accesses_of_one_instruction_at_one_time_are_one_step() {
        let mut a = PslAccumulator::default();
        a.access(7, [0u64, 4].into_iter());
        a.access(7, [8u64, 12].into_iter());
        a.group_end(4);
        assert!(close(a.finish()[0], 1.0));
    }

    #[test]
    fn groups_are_averaged_and_merge_in_any_order() {
        let run = |groups: &[u64]| {
            let mut total = PslAccumulator::default();
            for &g in groups {
                let mut one = PslAccumulator::default();
                // Group g: lanes access g distinct words among 4.
                let keys: Vec<u64> = (0..4).map(|l| (l % g) * 4).collect();
                one.access(1, keys.into_iter());
                one.group_end(4);
                total.merge(&one);
            }
            total.finish()
        };
        let a = run(&[1, 2, 4]);
        let b = run(&[4, 1, 2]);
        assert_eq!(a, b);
        // (0 + 1/2 + 1) / 3
        assert!(close(a[0], 0.5));
    }

    #[test]
    fn aiwc_replay_uses_per_item_positions_and_running_averages() {
        let mut p = AiwcPslAccumulator::default();
        p.group_start(2);
        // Lane 0 accesses twice, lane 1 once: positions 0 = {0, 4}, 1 = {8}.
        p.access(0, 0);
        p.access(1, 4);
        p.access(0, 8);
        p.group_end(0);
        let h0 = -(1.0f64 / 3.0) * (1.0f64 / 3.0).log2() * 2.0; // two addresses, p = 1/3
        let h1 = -(0.5f64) * 0.5f64.log2(); // one address, p = 1/2
        let interval = (h0 as f32 as f64 + h1 as f32 as f64) / 3.0;
        let group0 = interval * 2.0 / 3.0;
        // Second group: nothing accessed; its running average still includes group 0.
        p.group_start(2);
        p.group_end(1);
        let expected = (group0 + group0) / 2.0 / 3f64.log2();
        assert!(close(p.finish()[0], expected), "{:?} vs {expected}", p.finish());
    }
}
