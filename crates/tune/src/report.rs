//! What a tuning run found on one device: every variant with how it was built, its
//! validation, its time and speedup, the winner, and whether the advisor foresaw it.

use serde::Serialize;

use crate::variant::{Construction, Layout};

/// How validation went for one variant.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidationResult {
    /// `passed`, `failed` (outputs differ, a checker finding, or the device run failed),
    /// `reference` (the kernel as written is what the others are compared with) or `not_run`
    /// (refused, or left for a later run by the budget).
    pub status: &'static str,
    /// Random input sets compared on the simulator.
    pub seeds: u64,
    /// Largest absolute difference from the original over all outputs and input sets.
    pub max_abs: Option<f64>,
    /// Why it failed.
    pub detail: Option<String>,
}

/// Timing statistics in nanoseconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimeResult {
    pub median_ns: f64,
    pub min_ns: f64,
    pub mean_ns: f64,
    pub std_ns: f64,
    pub samples_ns: Vec<u64>,
}

/// One variant's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VariantResult {
    pub name: String,
    /// How it was built: `kind` (`as_written`, `unlocal`, `stage`, `work_group`) and its
    /// parameters.
    pub built: Construction,
    pub how: String,
    pub layout: Layout,
    pub work_group: Option<Vec<u64>>,
    /// `timed`, `refused`, `invalid`, `failed` or `skipped` (over budget; a later run does it).
    pub status: &'static str,
    /// Why a variant was refused, is invalid or failed.
    pub detail: Option<String>,
    pub validation: ValidationResult,
    pub time: Option<TimeResult>,
    /// Median time of the kernel as written over this variant's.
    pub speedup: Option<f64>,
    /// Answered from the performance database without running anything.
    pub from_database: bool,
    /// When the answer was measured (UTC), for answers from the database.
    pub measured: Option<String>,
    pub chosen: bool,
}

/// What the advisor said, as tuning compares it with the measured winner.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdvisorAnswer {
    /// The layout the advice amounts to (buffers to unstage or to stage).
    pub layout: Layout,
    /// One line per buffer the advisor decided (`A: MAP-204 → local, rule 5.2`).
    pub decisions: Vec<String>,
}

/// The advisor's answer against the winner.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// `as written`, or the changes the advice asks for.
    pub advised: String,
    /// The variant built with the advised layout and the launch as written, when there is one.
    pub advised_variant: Option<String>,
    /// Whether the winner has the advised layout. The advisor speaks about memory layout only,
    /// so a winner that differs from it only by work-group size counts as predicted.
    pub predicted: Option<bool>,
    /// The advisor's decisions, or why there is no advice.
    pub decisions: Vec<String>,
    pub note: Option<String>,
}

/// A tuning run on one device.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TuneReport {
    pub workload: String,
    pub kernel: String,
    pub device: String,
    /// What the times measure.
    pub clock: String,
    pub variants: Vec<VariantResult>,
    /// The fastest validated variant.
    pub winner: Option<String>,
    /// Its speedup over the kernel as written.
    pub speedup: Option<f64>,
    pub advisor: Prediction,
    /// Variants settled now and answered from the database.
    pub measured_now: usize,
    pub from_database: usize,
    /// Variants the budget left for a later run.
    pub skipped: usize,
}

impl TuneReport {
    pub fn winner(&self) -> Option<&VariantResult> {
        self.variants.iter().find(|v| v.chosen)
    }
}

/// Compares the advice with the winner. `advice` is `Err(reason)` when there is none.
pub fn prediction(variants: &[VariantResult], advice: Result<&AdvisorAnswer, &str>) -> Prediction {
    let answer = match advice {
        Ok(a) => a,
        Err(reason) => {
            return Prediction {
                advised: "no advice".to_string(),
                advised_variant: None,
                predicted: None,
                decisions: Vec::new(),
                note: Some(reason.to_string()),
            }
        }
    };
    let advised_variant = variants
        .iter()
        .filter(|v| v.layout == answer.layout)
        .find(|v| !matches!(v.built, Construction::WorkGroup { .. }))
        .map(|v| v.name.clone());
    let winner = variants.iter().find(|v| v.chosen);
    let (predicted, note) = match (winner, &advised_variant) {
        (None, _) => (None, Some("no variant was timed".to_string())),
        (Some(w), _) if w.layout == answer.layout => (
            Some(true),
            matches!(w.built, Construction::WorkGroup { .. }).then(|| {
                "the winner has the advised layout; its work-group size is beyond the advice"
                    .to_string()
            }),
        ),
        (Some(_), None) => {
            (Some(false), Some("no variant with the advised layout could be built".to_string()))
        }
        (Some(_), Some(_)) => (Some(false), None),
    };
    Prediction {
        advised: answer.layout.describe(),
        advised_variant,
        predicted,
        decisions: answer.decisions.clone(),
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &str, built: Construction, layout: Layout, chosen: bool) -> VariantResult {
        VariantResult {
            name: name.into(),
            built,
            how: String::new(),
            layout,
            work_group: None,
            status: "timed",
            detail: None,
            validation: ValidationResult {
                status: "passed",
                seeds: 1,
                max_abs: Some(0.0),
                detail: None,
            },
            time: None,
            speedup: None,
            from_database: false,
            measured: None,
            chosen,
        }
    }

    fn unstaged(name: &str) -> Layout {
        Layout { unstaged: [name.to_string()].into(), staged: Default::default() }
    }

    fn variants(winner: &str) -> Vec<VariantResult> {
        vec![
            result(
                "as-written",
                Construction::AsWritten,
                Layout::default(),
                winner == "as-written",
            ),
            result(
                "unlocal:As",
                Construction::Unlocal { local_buffers: vec!["As".into()] },
                unstaged("A"),
                winner == "unlocal:As",
            ),
            result(
                "wg:32x8",
                Construction::WorkGroup { size: vec![32, 8] },
                Layout::default(),
                winner == "wg:32x8",
            ),
        ]
    }

    #[test]
    fn the_advice_predicts_a_winner_with_its_layout() {
        let advice = AdvisorAnswer { layout: unstaged("A"), decisions: vec!["A: global".into()] };
        let p = prediction(&variants("unlocal:As"), Ok(&advice));
        assert_eq!(p.predicted, Some(true));
        assert_eq!(p.advised, "unstage A");
        assert_eq!(p.advised_variant.as_deref(), Some("unlocal:As"));
        let p = prediction(&variants("as-written"), Ok(&advice));
        assert_eq!(p.predicted, Some(false));
    }

    #[test]
    fn a_work_group_winner_is_judged_by_its_layout_alone() {
        let keep = AdvisorAnswer { layout: Layout::default(), decisions: vec!["A: local".into()] };
        let p = prediction(&variants("wg:32x8"), Ok(&keep));
        assert_eq!(p.predicted, Some(true));
        assert_eq!(p.advised_variant.as_deref(), Some("as-written"));
        assert!(p.note.as_deref().unwrap_or("").contains("work-group size"));
    }

    #[test]
    fn advice_without_a_variant_or_without_advice() {
        let stage = AdvisorAnswer {
            layout: Layout { unstaged: Default::default(), staged: ["B".to_string()].into() },
            decisions: vec!["B: local".into()],
        };
        let p = prediction(&variants("unlocal:As"), Ok(&stage));
        assert_eq!((p.predicted, p.advised_variant), (Some(false), None));
        assert!(p.note.as_deref().unwrap_or("").contains("could be built"));
        let none = prediction(&variants("unlocal:As"), Err("not asked"));
        assert_eq!(none.predicted, None);
        assert_eq!(none.note.as_deref(), Some("not asked"));
    }
}
