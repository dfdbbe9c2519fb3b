//! Branch behaviour: how many branch sites there are, how concentrated their executions are,
//! and how predictable their outcomes are from each work-item's recent history.
//!
//! A branch site is one `if`, loop test, `?:`, `&&`, `||` or `switch` case test of the IR,
//! identified by its source span. Histories are per work-item and per site (a local history
//! predictor), the last [`HISTORY_LENGTH`] outcomes.

use crate::entropy::binary_entropy;
use crate::stats::items_covering;
use clmap_lang::Span;
use clmap_sim::Mask;
use std::collections::HashMap;

/// Outcomes remembered per work-item and site.
pub const HISTORY_LENGTH: u32 = 16;
/// A history is `1` followed by up to [`HISTORY_LENGTH`] outcome bits, so histories of
/// different lengths differ; once full, the marker bit stays at bit 16.
const FULL_MARKER: u32 = 1 << HISTORY_LENGTH;
const EMPTY_HISTORY: u32 = 1;

fn push_outcome(history: u32, taken: bool) -> u32 {
    let next = (history << 1) | u32::from(taken);
    if history >= FULL_MARKER {
        (next & (FULL_MARKER - 1)) | FULL_MARKER
    } else {
        next
    }
}

/// Stable order for spans (files, then offsets), for deterministic sums.
fn span_order(s: &Span) -> (u32, u32, u32) {
    (s.file.0, s.start, s.end)
}

/// The branch metrics of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BranchSummary {
    pub distinct_branches: u64,
    pub branches_90: u64,
    /// Branch executions, one per work-item that evaluated a branch.
    pub branch_executions: u64,
    pub yokota_branch_entropy: f64,
    pub average_linear_branch_entropy: f64,
}

#[derive(Debug, Default)]
struct SiteStats {
    executions: u64,
    /// history → [not taken, taken] counts of the outcome that followed it.
    outcomes: HashMap<u32, [u64; 2]>,
}

/// clmap's definition: conditional outcome probabilities given site and history.
#[derive(Debug, Default)]
pub struct BranchAccumulator {
    sites: HashMap<Span, SiteStats>,
    /// Per site, each lane's history in the current work-group.
    histories: HashMap<Span, LaneHistories>,
}

/// The histories of a group's work-items at one site. In lock-step, converged code every
/// work-item has seen the same outcomes, so one history stands for all of them until the
/// group diverges at the site.
#[derive(Debug)]
enum LaneHistories {
    Uniform(u32),
    PerLane(Vec<u32>),
}

impl BranchAccumulator {
    pub fn group_start(&mut self) {
        self.histories.clear();
    }

    pub fn branch(&mut self, span: Span, taken: &Mask, active: &Mask) {
        let lanes = active.lanes();
        let site = self.sites.entry(span).or_default();
        site.executions += u64::from(active.count());
        let state = self.histories.entry(span).or_insert(LaneHistories::Uniform(EMPTY_HISTORY));
        if let LaneHistories::Uniform(h) = state {
            // `taken` lies within `active`, so with every lane active it is all or none.
            if active.is_full() && (taken.is_full() || taken.is_empty()) {
                let t = taken.is_full();
                site.outcomes.entry(*h).or_default()[usize::from(t)] += lanes as u64;
                *h = push_outcome(*h, t);
                return;
            }
            *state = LaneHistories::PerLane(vec![*h; lanes]);
        }
        let LaneHistories::PerLane(histories) = state else { return };
        if histories.len() < lanes {
            histories.resize(lanes, EMPTY_HISTORY);
        }
        // Lock-step groups usually agree on history and outcome: count runs of equal pairs
        // instead of one hash update per lane.
        let mut run: Option<(u32, bool, u64)> = None;
        for lane in active.iter() {
            let Some(h) = histories.get_mut(lane) else { continue };
            let t = taken.get(lane);
            match &mut run {
                Some((rh, rt, n)) if *rh == *h && *rt == t => *n += 1,
                _ => {
                    if let Some((rh, rt, n)) = run {
                        site.outcomes.entry(rh).or_default()[usize::from(rt)] += n;
                    }
                    run = Some((*h, t, 1));
                }
            }
            *h = push_outcome(*h, t);
        }
        if let Some((rh, rt, n)) = run {
            site.outcomes.entry(rh).or_default()[usize::from(rt)] += n;
        }
    }

    pub fn merge(&mut self, other: BranchAccumulator) {
        for (span, mut stats) in other.sites {
            let mine = self.sites.entry(span).or_default();
            mine.executions += stats.executions;
            // Counts add, so the larger map keeps its entries and takes the smaller's.
            if stats.outcomes.len() > mine.outcomes.len() {
                std::mem::swap(&mut mine.outcomes, &mut stats.outcomes);
            }
            for (h, [n, t]) in stats.outcomes {
                let e = mine.outcomes.entry(h).or_default();
                e[0] += n;
                e[1] += t;
            }
        }
    }

    /// Yokota entropy here is the conditional entropy (bits per branch execution) of an
    /// outcome given its site and the work-item's history at that site; the linear entropy
    /// replaces `H(p)` with `2 min(p, 1 - p)`. Both are 0 for perfectly predictable branches.
    pub fn finish(&self) -> BranchSummary {
        let mut spans: Vec<&Span> = self.sites.keys().collect();
        spans.sort_by_key(|s| span_order(s));
        let executions: Vec<u64> = spans.iter().map(|s| self.sites[*s].executions).collect();
        let total: u64 = executions.iter().sum();
        let mut yokota = 0.0;
        let mut linear = 0.0;
        for span in &spans {
            let site = &self.sites[*span];
            let mut histories: Vec<(&u32, &[u64; 2])> = site.outcomes.iter().collect();
            histories.sort_by_key(|(h, _)| **h);
            for (_, [not_taken, taken]) in histories {
                let n = not_taken + taken;
                if n == 0 || total == 0 {
                    continue;
                }
                let weight = n as f64 / total as f64;
                let p = *taken as f64 / n as f64;
                yokota += weight * binary_entropy(p);
                linear += weight * 2.0 * p.min(1.0 - p);
            }
        }
        BranchSummary {
            distinct_branches: spans.len() as u64,
            branches_90: items_covering(executions, 0.9),
            branch_executions: total,
            yokota_branch_entropy: yokota,
            average_linear_branch_entropy: linear,
        }
    }
}

/// What the published AIWC code computes. It records, per work-group, one outcome sequence
/// per branch, work-item after work-item within each barrier interval (the order in which
/// Oclgrind runs them), stores the *false* successor as "taken", keeps every window of 16
/// consecutive outcomes of that sequence as a pattern, and estimates a pattern's taken
/// probability as its share of one bits.
#[derive(Debug, Default)]
pub struct AiwcBranchAccumulator {
    executions: HashMap<Span, u64>,
    patterns: HashMap<Span, HashMap<u16, u64>>,
    /// Current barrier interval: per site, per lane, the recorded bits.
    interval: HashMap<Span, Vec<Vec<bool>>>,
    /// Per site, the sliding window of the current group and how many bits it has seen.
    windows: HashMap<Span, (u16, u64)>,
}

impl AiwcBranchAccumulator {
    pub fn branch(&mut self, span: Span, taken: &Mask, active: &Mask) {
        *self.executions.entry(span).or_insert(0) += u64::from(active.count());
        let lanes = active.lanes();
        let per_lane = self.interval.entry(span).or_insert_with(|| vec![Vec::new(); lanes]);
        for lane in active.iter() {
            if let Some(bits) = per_lane.get_mut(lane) {
                bits.push(!taken.get(lane));
            }
        }
    }

    /// A barrier or the group's end: feed the interval's bits, lane by lane, to the windows.
    pub fn interval_end(&mut self) {
        let mut spans: Vec<Span> = self.interval.keys().copied().collect();
        spans.sort_by_key(span_order);
        for span in spans {
            let Some(per_lane) = self.interval.remove(&span) else { continue };
            let (window, seen) = self.windows.entry(span).or_insert((0, 0));
            let patterns = self.patterns.entry(span).or_default();
            for bit in per_lane.into_iter().flatten() {
                *window = (*window << 1) | u16::from(bit);
                *seen += 1;
                if *seen >= u64::from(HISTORY_LENGTH) {
                    *patterns.entry(*window).or_insert(0) += 1;
                }
            }
        }
    }

    pub fn group_end(&mut self) {
        self.interval_end();
        self.windows.clear();
    }

    pub fn merge(&mut self, other: AiwcBranchAccumulator) {
        for (s, n) in other.executions {
            *self.executions.entry(s).or_insert(0) += n;
        }
        for (s, mut p) in other.patterns {
            let mine = self.patterns.entry(s).or_default();
            // Counts add, so the larger map keeps its entries and takes the smaller's.
            if p.len() > mine.len() {
                std::mem::swap(mine, &mut p);
            }
            for (pattern, n) in p {
                *mine.entry(pattern).or_insert(0) += n;
            }
        }
    }

    /// AIWC's figures: its "Yokota" entropy is `-sum p log2 p` over distinct patterns
    /// (unweighted, one-sided), its linear entropy the occurrence-weighted `2 min(p, 1-p)`,
    /// both computed in 32-bit floats.
    pub fn finish(&self) -> BranchSummary {
        let mut spans: Vec<&Span> = self.executions.keys().collect();
        spans.sort_by_key(|s| span_order(s));
        let executions: Vec<u64> = spans.iter().map(|s| self.executions[*s]).collect();
        let mut yokota = 0.0f32;
        let mut linear = 0.0f32;
        let mut occurrences = 0u64;
        for span in &spans {
            let Some(patterns) = self.patterns.get(*span) else { continue };
            let mut sorted: Vec<(&u16, &u64)> = patterns.iter().collect();
            sorted.sort_by_key(|(p, _)| **p);
            for (pattern, n) in sorted {
                let p = pattern.count_ones() as f32 / HISTORY_LENGTH as f32;
                if p != 0.0 {
                    yokota -= p * p.log2();
                }
                linear += *n as f32 * 2.0 * p.min(1.0 - p);
                occurrences += n;
            }
        }
        let average_linear =
            if occurrences == 0 { 0.0 } else { f64::from(linear / occurrences as f32) };
        BranchSummary {
            distinct_branches: spans.len() as u64,
            branches_90: items_covering(executions.clone(), 0.9),
            branch_executions: executions.iter().sum(),
            yokota_branch_entropy: f64::from(yokota),
            average_linear_branch_entropy: average_linear,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clmap_lang::span::FileId;

    fn span(at: u32) -> Span {
        Span::new(FileId(0), at, at + 1)
    }

    fn mask(lanes: usize, on: &[usize]) -> Mask {
        Mask::all(lanes).filter(|l| on.contains(&l))
    }

    #[test]
    fn histories_keep_the_last_sixteen_outcomes() {
        let mut h = EMPTY_HISTORY;
        h = push_outcome(h, true);
        assert_eq!(h, 0b11);
        for _ in 0..20 {
            h = push_outcome(h, false);
        }
        assert_eq!(h, FULL_MARKER);
        assert_eq!(push_outcome(h, true), FULL_MARKER | 1);
    }

    #[test]
    fn alternating_branch_is_predictable_from_history() {
        let mut b = BranchAccumulator::default();
        b.group_start();
        let all = Mask::all(1);
        for i in 0..40 {
            let taken = if i % 2 == 0 { all.clone() } else { Mask::none(1) };
            b.branch(span(0), &taken, &all);
        }
        let s = b.finish();
        assert_eq!(s.distinct_branches, 1);
        assert_eq!(s.branch_executions, 40);
        // Every history is always followed by the same outcome.
        assert_eq!(s.yokota_branch_entropy, 0.0);
        assert_eq!(s.average_linear_branch_entropy, 0.0);
    }

    #[test]
    fn coin_flip_lanes_have_one_bit_of_entropy() {
        // Four lanes with empty histories: two take the branch, two do not.
        let mut b = BranchAccumulator::default();
        b.group_start();
        b.branch(span(0), &mask(4, &[0, 2]), &Mask::all(4));
        let s = b.finish();
        assert!((s.yokota_branch_entropy - 1.0).abs() < 1e-12);
        assert!((s.average_linear_branch_entropy - 1.0).abs() < 1e-12);
    }

    #[test]
    fn ninety_percent_of_branch_executions() {
        let mut b = BranchAccumulator::default();
        b.group_start();
        for _ in 0..9 {
            b.branch(span(0), &Mask::all(2), &Mask::all(2));
        }
        b.branch(span(5), &Mask::all(2), &Mask::all(2));
        b.branch(span(9), &Mask::none(2), &mask(2, &[0]));
        let s = b.finish();
        assert_eq!(s.distinct_branches, 3);
        // 18 + 2 + 1 = 21, 90 % = 19 (ceil 18.9): the loop site and one more.
        assert_eq!(s.branches_90, 2);
    }

    #[test]
    fn merging_either_way_gives_the_counts_of_one_accumulator() {
        // Group 1 sees many histories at site 0 (an irregular pattern), group 2 few, and only
        // group 2 reaches site 3: whichever absorbs the other, the larger maps stay.
        let lanes = Mask::all(4);
        let group_one = |b: &mut BranchAccumulator, a: &mut AiwcBranchAccumulator| {
            b.group_start();
            for i in 0..40u32 {
                let taken = mask(4, &[(i * 7 % 4) as usize, (i * i % 3) as usize]);
                b.branch(span(0), &taken, &lanes);
                a.branch(span(0), &taken, &lanes);
            }
            a.group_end();
        };
        let group_two = |b: &mut BranchAccumulator, a: &mut AiwcBranchAccumulator| {
            b.group_start();
            for i in 0..20 {
                let taken = if i % 2 == 0 { lanes.clone() } else { Mask::none(4) };
                b.branch(span(0), &taken, &lanes);
                a.branch(span(0), &taken, &lanes);
                b.branch(span(3), &taken, &lanes);
                a.branch(span(3), &taken, &lanes);
            }
            a.group_end();
        };
        let (mut whole, mut whole_aiwc) = Default::default();
        group_one(&mut whole, &mut whole_aiwc);
        group_two(&mut whole, &mut whole_aiwc);
        let outcomes = |b: &BranchAccumulator| {
            let mut v: Vec<_> = b
                .sites
                .iter()
                .flat_map(|(s, st)| st.outcomes.iter().map(move |(h, c)| (span_order(s), *h, *c)))
                .collect();
            v.sort_unstable();
            v
        };
        let patterns = |a: &AiwcBranchAccumulator| {
            let mut v: Vec<_> = a
                .patterns
                .iter()
                .flat_map(|(s, p)| p.iter().map(move |(w, n)| (span_order(s), *w, *n)))
                .collect();
            v.sort_unstable();
            v
        };
        for one_absorbs in [true, false] {
            let (mut one, mut one_aiwc) = Default::default();
            let (mut two, mut two_aiwc) = Default::default();
            group_one(&mut one, &mut one_aiwc);
            group_two(&mut two, &mut two_aiwc);
            let (merged, merged_aiwc) = if one_absorbs {
                one.merge(two);
                one_aiwc.merge(two_aiwc);
                (one, one_aiwc)
            } else {
                two.merge(one);
                two_aiwc.merge(one_aiwc);
                (two, two_aiwc)
            };
            assert_eq!(outcomes(&merged), outcomes(&whole), "one absorbs: {one_absorbs}");
            assert_eq!(merged.finish(), whole.finish());
            assert_eq!(patterns(&merged_aiwc), patterns(&whole_aiwc));
            assert_eq!(merged_aiwc.executions, whole_aiwc.executions);
        }
    }

    #[test]
    fn aiwc_patterns_run_across_work_items_and_record_false_successors() {
        let mut b = AiwcBranchAccumulator::default();
        // Two lanes, each takes the branch 8 times then leaves once: 9 bits per lane.
        for i in 0..9 {
            let taken = if i < 8 { Mask::all(2) } else { Mask::none(2) };
            b.branch(span(0), &taken, &Mask::all(2));
        }
        b.group_end();
        // Recorded bits: lane 0 = 0*8 1, lane 1 = 0*8 1: 18 bits, 3 windows of 16.
        let patterns = &b.patterns[&span(0)];
        assert_eq!(patterns.values().sum::<u64>(), 3);
        // The first window is 0000 0000 1000 0000 (one bit set).
        assert_eq!(patterns.get(&0b0000_0000_1000_0000), Some(&1));
        let s = b.finish();
        assert_eq!(s.branch_executions, 18);
        // Every window holds one or two ones: p = 1/16 or 2/16.
        assert!(s.average_linear_branch_entropy > 0.1 && s.average_linear_branch_entropy < 0.26);
    }
}
