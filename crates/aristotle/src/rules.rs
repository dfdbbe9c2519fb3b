//! The composing rules of seed 001 §7: given the data structures of a kernel, each with its MAP
//! and dataset, and a device's performance database, which of them to stage in local memory.
//!
//! - Rule 5.1: no data structure gains from local memory → none uses it.
//! - Rule 5.2: exactly one gains → only that one uses it.
//! - Rule 5.3: several gain → they are taken in order of the weight ω, each only while the
//!   device's local memory still has room for it.
//! - Rule 5.4: any mix is 5.1 for the losers and 5.2/5.3 for the gainers.
//!
//! ω_i = D_i / ΣD × mbr_i, with D the number of data elements of structure i and the sum over
//! the structures that gain: a large structure with a moderate gain can come before a small one
//! with a large gain. A structure whose ratio is within δ of 1 ("similar" in Table 5) is treated
//! as not gaining: the paper advises against local memory where the gain does not repay the
//! programming effort.

use crate::query::{Impact, MapRecord, MapTable};
use serde::Serialize;

/// One data structure of a kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DataStructure {
    /// How the user calls it (a buffer name, or `MAP-205` when unnamed).
    pub name: String,
    /// Its MAP.
    pub map: u16,
    /// Its dataset side N (N × N elements), the database's index.
    pub dataset: usize,
    /// Local memory it needs per work-group when staged, in bytes (0 when unknown: the
    /// capacity check then cannot refuse it).
    pub local_bytes: u64,
    /// The launch's work-group `[x, y]`, when known: records timed with it are preferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_group: Option<[usize; 2]>,
}

impl DataStructure {
    /// A structure of `map` on dataset `dataset` needing `local_bytes`, work-group unknown.
    pub fn new(name: impl Into<String>, map: u16, dataset: usize, local_bytes: u64) -> Self {
        DataStructure { name: name.into(), map, dataset, local_bytes, work_group: None }
    }
}

/// How wide "similar" is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Similarity {
    /// Table 5's threshold: |mbr − 1| ≤ δ.
    Delta,
    /// δ or the measurements' own spread, whichever is wider: a ratio closer to 1 than the
    /// relative standard deviation of B/b over the runs (√((σ_b/b)² + (σ_B/B)²)) is no
    /// evidence either way. Records without a spread (σ = 0, as imported means) use δ.
    DeltaOrNoise,
}

/// The margin around 1 within which `record`'s ratio is similar.
pub fn similarity_margin(record: &MapRecord, delta: f64, similarity: Similarity) -> f64 {
    match similarity {
        Similarity::Delta => delta,
        Similarity::DeltaOrNoise => delta.max(relative_noise(record)),
    }
}

/// The relative standard deviation of B/b from the runs' spread (0 without one). A record
/// with at least [`POOLED_SAMPLES`] samples on each side (a tie measured again and pooled)
/// is judged by the spread of its means instead, [`POOLED_Z`] standard errors
/// (z·√((σ_b/b)²/n_b + (σ_B/B)²/n_B)): enough samples pin the means down better than one run
/// is pinned down, and a difference of means beyond that is evidence.
pub fn relative_noise(record: &MapRecord) -> f64 {
    let part = |std: f64, mean: f64| if mean > 0.0 && std.is_finite() { std / mean } else { 0.0 };
    let b = part(record.b_std, record.b_mean);
    let big_b = part(record.big_b_std, record.big_b_mean);
    match record.samples {
        Some([nb, nbb]) if nb.min(nbb) >= POOLED_SAMPLES => {
            POOLED_Z * (b / (nb as f64).sqrt()).hypot(big_b / (nbb as f64).sqrt())
        }
        _ => b.hypot(big_b),
    }
}

/// Samples per side from which a record is judged by the standard error of its means.
pub const POOLED_SAMPLES: usize = 40;

/// Standard errors a pooled record's ratio must clear to count as a gain or a loss.
pub const POOLED_Z: f64 = 2.0;

/// Which rule decided a choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Rule {
    /// 5.1: it does not gain, so it stays in global memory.
    NoGain,
    /// 5.2: the only structure that gains.
    SingleGain,
    /// 5.3: one of several that gain, taken in ω order while local memory lasts.
    OrderedByWeight,
    /// 5.3's capacity check refused it.
    NoLocalSpaceLeft,
    /// No database record: nothing supports the effort of local memory.
    NoRecord,
}

impl Rule {
    /// The paper's number for the rule.
    pub fn number(self) -> &'static str {
        match self {
            Rule::NoGain => "5.1",
            Rule::SingleGain => "5.2",
            Rule::OrderedByWeight | Rule::NoLocalSpaceLeft => "5.3",
            Rule::NoRecord => "-",
        }
    }
}

/// The decision for one data structure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    pub structure: DataStructure,
    /// The ratio B / b the decision used, if the database has one.
    pub mbr: Option<f64>,
    /// The dataset the record comes from (the nearest measured one when N itself is missing).
    pub record_dataset: Option<usize>,
    /// The work-group the record was timed with (none for the 2014 history).
    pub record_work_group: Option<[usize; 2]>,
    /// The margin around 1 within which the ratio counted as similar (δ, or the record's
    /// noise when wider and asked for).
    pub margin: Option<f64>,
    pub impact: Option<Impact>,
    /// ω, for structures that gain.
    pub omega: Option<f64>,
    /// Stage in local memory (l) or not (g).
    pub use_local: bool,
    pub rule: Rule,
    /// Why, in a sentence a user can check against the database.
    pub reasoning: String,
}

/// The advice for a whole kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Advice {
    /// In the order the structures were given.
    pub choices: Vec<Choice>,
    /// Local memory the chosen structures use, in bytes.
    pub local_bytes_used: u64,
    /// The device's local memory per work-group, when known.
    pub local_capacity: Option<u64>,
    /// The similarity threshold used.
    pub delta: f64,
}

impl Advice {
    /// The choices as the paper writes them, e.g. `(l, g)`.
    pub fn tuple(&self) -> String {
        let letters: Vec<&str> =
            self.choices.iter().map(|c| if c.use_local { "l" } else { "g" }).collect();
        format!("({})", letters.join(", "))
    }
}

/// The record of (MAP, N) in the table, else the one of the nearest dataset (by ratio of
/// sides). With a work-group, records timed with it come first: the exact (N, work-group), then
/// the nearest dataset on that work-group, then the nearest dataset on any (a record without a
/// work-group, from the 2014 history, counts as any).
fn lookup<'t>(
    table: &'t MapTable,
    map: u16,
    dataset: usize,
    work_group: Option<[usize; 2]>,
) -> Option<&'t MapRecord> {
    let target = (dataset.max(1) as f64).ln();
    let distance = |r: &MapRecord| ((r.dataset.max(1) as f64).ln() - target).abs();
    let nearest = |same_shape: bool| {
        table
            .records
            .iter()
            .filter(|r| r.map == map && r.dataset > 0)
            .filter(|r| !same_shape || r.work_group.is_none() || r.work_group == work_group)
            .min_by(|a, b| {
                distance(a)
                    .total_cmp(&distance(b))
                    .then_with(|| (a.work_group != work_group).cmp(&(b.work_group != work_group)))
            })
    };
    match work_group {
        Some(wg) => {
            table.get_on(map, dataset, wg).or_else(|| nearest(true)).or_else(|| nearest(false))
        }
        None => table.get(map, dataset).or_else(|| nearest(false)),
    }
}

/// Where the record a choice used differs from the structure's launch: another dataset (the
/// nearest measured) or another work-group, said so that the advice shows what it stands on.
fn record_note(c: &Choice) -> String {
    let Some(n) = c.record_dataset.filter(|_| c.mbr.is_some()) else { return String::new() };
    let other_size = n != c.structure.dataset;
    let other_shape = match (c.record_work_group, c.structure.work_group) {
        (Some(had), Some(wanted)) if had != wanted => Some((had, wanted)),
        _ => None,
    };
    match (other_size, other_shape) {
        (false, None) => String::new(),
        (true, None) => format!(" (record of dataset {n}, the nearest measured)"),
        (_, Some(([x, y], [wx, wy]))) => format!(
            " (record of dataset {n} on {x}x{y} work-groups, the nearest measured: none on the \
             launch's {wx}x{wy})"
        ),
    }
}

/// Applies the composing rules to `structures` on the device `table` describes.
pub fn compose(
    table: &MapTable,
    structures: &[DataStructure],
    local_capacity: Option<u64>,
    delta: f64,
) -> Advice {
    compose_with(table, structures, local_capacity, delta, Similarity::Delta)
}

/// [`compose`] with a choice of what counts as similar.
pub fn compose_with(
    table: &MapTable,
    structures: &[DataStructure],
    local_capacity: Option<u64>,
    delta: f64,
    similarity: Similarity,
) -> Advice {
    let mut choices: Vec<Choice> = structures
        .iter()
        .map(|s| {
            let found = lookup(table, s.map, s.dataset, s.work_group);
            let margin = found.map(|r| similarity_margin(r, delta, similarity));
            Choice {
                structure: s.clone(),
                mbr: found.map(|r| r.mbr),
                record_dataset: found.map(|r| r.dataset),
                record_work_group: found.and_then(|r| r.work_group),
                margin,
                impact: found.zip(margin).map(|(r, m)| Impact::of(r.mbr, m)),
                omega: None,
                use_local: false,
                rule: Rule::NoRecord,
                reasoning: String::new(),
            }
        })
        .collect();
    let gaining: Vec<usize> = (0..choices.len())
        .filter(|&i| choices.get(i).is_some_and(|c| c.impact == Some(Impact::Gain)))
        .collect();
    let elements = |c: &Choice| (c.structure.dataset as f64).powi(2);
    let total: f64 = gaining.iter().filter_map(|&i| choices.get(i)).map(elements).sum();
    for &i in &gaining {
        if let Some(c) = choices.get_mut(i) {
            let share = if total > 0.0 { elements(c) / total } else { 0.0 };
            c.omega = c.mbr.map(|mbr| share * mbr);
        }
    }
    // Largest ω first; equal weights keep the order the user gave.
    let mut order = gaining.clone();
    order.sort_by(|&a, &b| {
        let wa = choices.get(a).and_then(|c| c.omega).unwrap_or(0.0);
        let wb = choices.get(b).and_then(|c| c.omega).unwrap_or(0.0);
        wb.total_cmp(&wa).then(a.cmp(&b))
    });
    let several = gaining.len() > 1;
    let mut used = 0u64;
    for (rank, &i) in order.iter().enumerate() {
        let Some(c) = choices.get_mut(i) else { continue };
        let need = c.structure.local_bytes;
        let fits = local_capacity.is_none_or(|cap| used.saturating_add(need) <= cap);
        let mbr = c.mbr.unwrap_or(f64::NAN);
        let omega = c.omega.unwrap_or(f64::NAN);
        if !fits {
            c.rule = Rule::NoLocalSpaceLeft;
            c.reasoning = format!(
                "gains (mbr {mbr:.2}, ω {omega:.2}), but {need} more bytes of local memory \
                 would exceed the device's {} bytes after {used} bytes already chosen",
                local_capacity.unwrap_or(0)
            );
            continue;
        }
        used = used.saturating_add(need);
        c.use_local = true;
        if several {
            c.rule = Rule::OrderedByWeight;
            c.reasoning = format!(
                "gains (mbr {mbr:.2} > 1 + δ); ω = D/ΣD × mbr = {omega:.2} ranks it {} of {} \
                 gaining structures, and its {need} bytes fit in local memory",
                rank + 1,
                order.len()
            );
        } else {
            c.rule = Rule::SingleGain;
            c.reasoning = format!(
                "the only structure that gains (mbr {mbr:.2} > 1 + δ): local memory on it \
                 cuts its traffic or raises its bandwidth without hurting the others"
            );
        }
    }
    for c in choices.iter_mut().filter(|c| c.impact != Some(Impact::Gain)) {
        match (c.mbr, c.impact) {
            (Some(mbr), Some(Impact::Loss)) => {
                c.rule = Rule::NoGain;
                c.reasoning =
                    format!("loses with local memory (mbr {mbr:.2} < 1 − δ): keep it in global");
            }
            (Some(mbr), _) => {
                c.rule = Rule::NoGain;
                let margin = c.margin.unwrap_or(delta);
                c.reasoning = if margin > delta {
                    format!(
                        "similar with and without local memory (mbr {mbr:.2} within 1 ± {margin:.2}, \
                         the runs' own spread, wider than δ): no measurable gain"
                    )
                } else {
                    format!(
                        "similar with and without local memory (mbr {mbr:.2} within 1 ± δ): \
                         not worth the programming effort"
                    )
                };
            }
            _ => {
                c.rule = Rule::NoRecord;
                c.reasoning = format!(
                    "the database has no record of MAP-{} on this device: keep it in global",
                    c.structure.map
                );
            }
        }
    }
    for c in &mut choices {
        c.reasoning.push_str(&record_note(c));
    }
    Advice { choices, local_bytes_used: used, local_capacity, delta }
}

/// Whether a measured step confirmed a prediction (seed 001 §8.1): a step that adds local
/// memory to a structure predicted to gain must not slow the kernel down beyond δ, and one
/// predicted not to gain must not speed it up beyond δ. `speedup` is time before / time after.
pub fn prediction_holds(predicted_local: bool, speedup: f64, delta: f64) -> bool {
    let measured = Impact::of(speedup, delta);
    if predicted_local {
        measured != Impact::Loss
    } else {
        measured != Impact::Gain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::MapRecord;

    fn table(entries: &[(u16, usize, f64)]) -> MapTable {
        MapTable {
            device: "hand-made".into(),
            local_variant: "max".into(),
            records: entries
                .iter()
                .map(|&(map, dataset, mbr)| MapRecord {
                    map,
                    dataset,
                    b_mean: 10.0,
                    b_std: 0.0,
                    big_b_mean: 10.0 * mbr,
                    big_b_std: 0.0,
                    mbr,
                    work_group: None,
                    samples: None,
                })
                .collect(),
        }
    }

    fn ds(map: u16, dataset: usize, local_bytes: u64) -> DataStructure {
        DataStructure::new(format!("MAP-{map}"), map, dataset, local_bytes)
    }

    #[test]
    fn rule_5_1_two_losers_stay_global() {
        let t = table(&[(108, 512, 0.6), (109, 512, 0.9)]);
        let a = compose(&t, &[ds(108, 512, 100), ds(109, 512, 100)], Some(1000), 0.05);
        assert_eq!(a.tuple(), "(g, g)");
        assert!(a.choices.iter().all(|c| c.rule == Rule::NoGain));
        assert_eq!(a.local_bytes_used, 0);
    }

    #[test]
    fn rule_5_2_only_the_gainer_uses_local_memory_in_either_position() {
        let t = table(&[(204, 512, 2.0), (108, 512, 0.6)]);
        let a = compose(&t, &[ds(204, 512, 100), ds(108, 512, 100)], Some(1000), 0.05);
        assert_eq!(a.tuple(), "(l, g)");
        assert_eq!(a.choices[0].rule, Rule::SingleGain);
        let b = compose(&t, &[ds(108, 512, 100), ds(204, 512, 100)], Some(1000), 0.05);
        assert_eq!(b.tuple(), "(g, l)");
    }

    #[test]
    fn similar_ratios_count_as_no_gain() {
        let t = table(&[(204, 512, 1.04), (205, 512, 1.3)]);
        let a = compose(&t, &[ds(204, 512, 10), ds(205, 512, 10)], None, 0.05);
        assert_eq!(a.tuple(), "(g, l)");
        assert!(a.choices[0].reasoning.contains("similar"));
    }

    #[test]
    fn rule_5_3_capacity_check_refuses_the_lighter_weight() {
        // Both gain; 205 has the larger ω (same size, larger mbr) and takes the space.
        let t = table(&[(204, 512, 1.5), (205, 512, 3.0)]);
        let a = compose(&t, &[ds(204, 512, 600), ds(205, 512, 600)], Some(1000), 0.05);
        assert_eq!(a.tuple(), "(g, l)");
        assert_eq!(a.choices[0].rule, Rule::NoLocalSpaceLeft);
        assert_eq!(a.choices[1].rule, Rule::OrderedByWeight);
        assert_eq!(a.local_bytes_used, 600);
        // With room for both, both are staged.
        let roomy = compose(&t, &[ds(204, 512, 600), ds(205, 512, 600)], Some(2000), 0.05);
        assert_eq!(roomy.tuple(), "(l, l)");
    }

    #[test]
    fn omega_weighs_the_ratio_by_the_share_of_data() {
        // 204 on a 4x larger dataset side (16x the elements) with a smaller ratio wins:
        // ω(204) = 16/17 × 1.5 ≈ 1.41, ω(205) = 1/17 × 3 ≈ 0.18.
        let t = table(&[(204, 2048, 1.5), (205, 512, 3.0)]);
        let a = compose(&t, &[ds(204, 2048, 600), ds(205, 512, 600)], Some(1000), 0.05);
        assert_eq!(a.tuple(), "(l, g)");
        let w = a.choices[0].omega.expect("omega");
        assert!((w - 16.0 / 17.0 * 1.5).abs() < 1e-9, "{w}");
    }

    #[test]
    fn rule_5_4_mixes_losers_and_gainers() {
        let t = table(&[(108, 512, 0.5), (204, 512, 2.0), (205, 512, 1.2), (302, 512, 1.0)]);
        let s = [ds(108, 512, 1), ds(204, 512, 1), ds(205, 512, 1), ds(302, 512, 1)];
        let a = compose(&t, &s, Some(1000), 0.05);
        assert_eq!(a.tuple(), "(g, l, l, g)");
    }

    #[test]
    fn missing_records_stay_global_and_nearest_dataset_is_used() {
        let t = table(&[(204, 1024, 2.0)]);
        let a = compose(&t, &[ds(204, 2048, 1), ds(999, 512, 1)], None, 0.05);
        assert_eq!(a.tuple(), "(l, g)");
        assert_eq!(a.choices[0].record_dataset, Some(1024));
        assert_eq!(a.choices[1].rule, Rule::NoRecord);
    }

    fn measured(
        map: u16,
        dataset: usize,
        wg: [usize; 2],
        b: (f64, f64),
        big_b: (f64, f64),
    ) -> MapRecord {
        MapRecord {
            map,
            dataset,
            b_mean: b.0,
            b_std: b.1,
            big_b_mean: big_b.0,
            big_b_std: big_b.1,
            mbr: big_b.0 / b.0,
            work_group: Some(wg),
            samples: None,
        }
    }

    #[test]
    fn records_of_the_launchs_work_group_come_first() {
        let t = MapTable {
            device: "d".into(),
            local_variant: "stage".into(),
            records: vec![
                measured(302, 64, [16, 16], (10.0, 0.0), (5.0, 0.0)),
                measured(302, 256, [32, 8], (10.0, 0.0), (20.0, 0.0)),
                measured(302, 64, [32, 8], (10.0, 0.0), (15.0, 0.0)),
            ],
        };
        let on = |wg| {
            let s = DataStructure { work_group: wg, ..ds(302, 64, 1) };
            compose(&t, &[s], None, 0.05).choices.remove(0)
        };
        // The exact dataset and work-group.
        let exact = on(Some([32, 8]));
        assert_eq!((exact.record_dataset, exact.record_work_group), (Some(64), Some([32, 8])));
        assert_eq!(exact.mbr, Some(1.5));
        // Another work-group with no record of its own at N = 64 takes the nearest dataset
        // measured on any: here the 16 × 16 record of N = 64 (the same side).
        let other = on(Some([8, 8]));
        assert_eq!((other.record_dataset, other.record_work_group), (Some(64), Some([16, 16])));
        // On 32 × 8 a dataset with no record takes the nearest measured on 32 × 8.
        let s = DataStructure { work_group: Some([32, 8]), ..ds(302, 96, 1) };
        let near = compose(&t, &[s], None, 0.05).choices.remove(0);
        assert_eq!((near.record_dataset, near.record_work_group), (Some(64), Some([32, 8])));
        // What the advice stands on is said: the exact record needs no note, the nearest
        // dataset and another launch shape do, gainers and losers alike.
        assert!(!exact.reasoning.contains("nearest"), "{}", exact.reasoning);
        assert!(
            near.reasoning.ends_with("(record of dataset 64, the nearest measured)"),
            "{}",
            near.reasoning
        );
        assert!(
            other.reasoning.ends_with(
                "(record of dataset 64 on 16x16 work-groups, the nearest measured: none on the \
                 launch's 8x8)"
            ),
            "{}",
            other.reasoning
        );
    }

    #[test]
    fn a_ratio_within_the_runs_spread_is_similar_when_asked() {
        // B/b = 1.2, but each side spreads by 15 %: √(0.15² + 0.15²) ≈ 0.21 > 0.2.
        let noisy = MapTable {
            device: "d".into(),
            local_variant: "stage".into(),
            records: vec![measured(205, 64, [16, 16], (10.0, 1.5), (12.0, 1.8))],
        };
        let s = [ds(205, 64, 1)];
        assert_eq!(compose(&noisy, &s, None, 0.05).tuple(), "(l)");
        let a = compose_with(&noisy, &s, None, 0.05, Similarity::DeltaOrNoise);
        assert_eq!(a.tuple(), "(g)");
        assert_eq!(a.choices[0].impact, Some(Impact::Similar));
        assert!(a.choices[0].reasoning.contains("spread"), "{}", a.choices[0].reasoning);
        // A loss beyond the spread stays a loss, and a quiet record keeps δ.
        let losing = MapTable {
            records: vec![measured(205, 64, [16, 16], (10.0, 1.5), (6.0, 0.9))],
            ..noisy.clone()
        };
        let l = compose_with(&losing, &s, None, 0.05, Similarity::DeltaOrNoise);
        assert_eq!(l.choices[0].impact, Some(Impact::Loss));
        let quiet = MapTable {
            records: vec![measured(205, 64, [16, 16], (10.0, 0.1), (10.7, 0.1))],
            ..noisy
        };
        let q = compose_with(&quiet, &s, None, 0.05, Similarity::DeltaOrNoise);
        assert_eq!((q.tuple(), q.choices[0].margin), ("(l)".to_string(), Some(0.05)));
    }

    #[test]
    fn predictions_fail_only_on_the_wrong_side_of_delta() {
        assert!(prediction_holds(true, 1.2, 0.05));
        assert!(prediction_holds(true, 0.97, 0.05));
        assert!(!prediction_holds(true, 0.8, 0.05));
        assert!(prediction_holds(false, 0.8, 0.05));
        assert!(!prediction_holds(false, 1.2, 0.05));
    }
}
