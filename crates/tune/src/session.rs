//! One tuning run on one device: each variant is answered from the database when an earlier
//! run settled it, otherwise validated on the simulator against the original, checked on the
//! device, timed, and recorded at once (so an interrupted run loses at most the variant in
//! hand).

use std::cell::RefCell;
use std::time::{Duration, Instant};

use clmap_db::DbError;
use clmap_device::{Timing, TimingOptions};
use clmap_exec::differential::compare_runs;
use clmap_exec::{run_on, Differential, PreparedWorkload, Runner, Target, TargetRun};
use clmap_sim::SimOptions;

use crate::report::{
    prediction, AdvisorAnswer, TimeResult, TuneReport, ValidationResult, VariantResult,
};
use crate::store::{Record, Settled, TuneStore};
use crate::target::TuneTarget;
use crate::variant::{shape_name, Construction, Produced, Variant};

/// How much fresh work a run may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Unlimited,
    /// Variants validated and timed by this run (answers from the database are free).
    Variants(u32),
    /// Wall-clock time: no variant is started after it has passed.
    Time(Duration),
}

impl std::str::FromStr for Budget {
    type Err = String;

    /// `12` (variants), or a duration: `90s`, `10m`, `1h`, `1m30s`.
    fn from_str(text: &str) -> Result<Budget, String> {
        let text = text.trim();
        if let Ok(n) = text.parse::<u32>() {
            return if n == 0 {
                Err("a budget of 0 variants measures nothing".to_string())
            } else {
                Ok(Budget::Variants(n))
            };
        }
        let mut total = 0u64;
        let mut digits = String::new();
        for c in text.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            let unit = match c {
                's' => 1,
                'm' => 60,
                'h' => 3600,
                _ => {
                    return Err(format!(
                        "`{text}`: give a number of variants or a duration such as 90s, 10m, 1h"
                    ))
                }
            };
            let n: u64 =
                digits.parse().map_err(|_| format!("`{text}`: a unit without a number"))?;
            total = total.saturating_add(n.saturating_mul(unit));
            digits.clear();
        }
        if !digits.is_empty() || total == 0 {
            return Err(format!(
                "`{text}`: give a number of variants or a duration such as 90s, 10m, 1h"
            ));
        }
        Ok(Budget::Time(Duration::from_secs(total)))
    }
}

/// How to tune.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// Random input sets each variant is validated with on the simulator.
    pub seeds: u64,
    pub timing: TimingOptions,
    pub budget: Budget,
    /// Measure again what the database already holds.
    pub remeasure: bool,
}

/// Where a variant is in its run, for progress lines.
#[derive(Clone, Debug)]
pub enum Step<'a> {
    Refused(&'a str),
    FromDatabase(&'a Settled),
    Validating {
        seeds: u64,
    },
    /// The producer validated the variant as it built it (same runner, same checks).
    ValidatedWhenBuilt {
        seeds: u64,
    },
    CheckingOnDevice,
    Timing,
    Done(&'a Settled),
    OverBudget,
}

/// A progress event: variant `index` (from 1) of `total`.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    pub index: usize,
    pub total: usize,
    pub variant: &'a str,
    pub step: Step<'a>,
}

#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    #[error("the performance database: {0}")]
    Database(#[from] DbError),
}

/// Runs the variants on `target`, the first of them the kernel as written. Results go to
/// `store` as they come; `advice` is the advisor's answer for the device, or why there is none.
#[allow(clippy::too_many_arguments)]
pub fn tune(
    original: &PreparedWorkload,
    label: &str,
    kernel: &str,
    produced: Vec<Produced>,
    target: &TuneTarget,
    store: &TuneStore<'_>,
    options: &TuneOptions,
    advice: Result<&AdvisorAnswer, &str>,
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<TuneReport, TuneError> {
    let started = Instant::now();
    let validator = Validator::new(original);
    let total = produced.len();
    let mut results = Vec::with_capacity(total);
    let mut fresh = 0u32;
    let mut counts = (0usize, 0usize, 0usize);
    for (i, item) in produced.into_iter().enumerate() {
        let index = i + 1;
        let variant = match item {
            Ok(variant) => variant,
            Err(refused) => {
                progress(&Progress {
                    index,
                    total,
                    variant: &refused.name,
                    step: Step::Refused(&refused.reason),
                });
                let settled = Settled::Refused(refused.reason.clone());
                store.record(&Record {
                    variant: &refused.name,
                    variant_identity: "",
                    kind: refused.construction.kind(),
                    how: "",
                    work_group: None,
                    settled: &settled,
                })?;
                results.push(VariantResult {
                    name: refused.name,
                    built: refused.construction,
                    how: String::new(),
                    layout: Default::default(),
                    work_group: None,
                    status: "refused",
                    detail: Some(refused.reason),
                    validation: not_run(),
                    time: None,
                    speedup: None,
                    from_database: false,
                    measured: None,
                    chosen: false,
                });
                continue;
            }
        };
        let identity = variant.prepared.workload().identity();
        let stored = if options.remeasure { None } else { store.get(&variant.name)? };
        if let Some(stored) = stored.filter(|s| s.variant_identity == identity) {
            progress(&Progress {
                index,
                total,
                variant: &variant.name,
                step: Step::FromDatabase(&stored.settled),
            });
            counts.1 += 1;
            results.push(result_of(&variant, &stored.settled, true, Some(stored.measured)));
            continue;
        }
        let is_baseline = matches!(variant.construction, Construction::AsWritten);
        let over = match options.budget {
            Budget::Unlimited => false,
            Budget::Variants(n) => fresh >= n,
            Budget::Time(limit) => started.elapsed() >= limit,
        };
        if over && !is_baseline {
            progress(&Progress { index, total, variant: &variant.name, step: Step::OverBudget });
            counts.2 += 1;
            let mut result = result_of(&variant, &Settled::Failed(String::new()), false, None);
            result.status = "skipped";
            result.detail = Some("over budget: a later run measures it".to_string());
            result.validation = not_run();
            results.push(result);
            continue;
        }
        fresh += 1;
        let settled = settle(original, &validator, &variant, target, options, &mut |step| {
            progress(&Progress { index, total, variant: &variant.name, step })
        });
        store.record(&Record {
            variant: &variant.name,
            variant_identity: &identity,
            kind: variant.construction.kind(),
            how: &variant.how,
            work_group: variant.work_group.as_deref().map(shape_name),
            settled: &settled,
        })?;
        progress(&Progress { index, total, variant: &variant.name, step: Step::Done(&settled) });
        counts.0 += 1;
        results.push(result_of(&variant, &settled, false, None));
    }
    let baseline = results
        .iter()
        .find(|r| matches!(r.built, Construction::AsWritten))
        .and_then(|r| r.time.as_ref())
        .map(|t| t.median_ns);
    for r in &mut results {
        if let (Some(base), Some(t)) = (baseline, &r.time) {
            r.speedup = Some(base / t.median_ns);
        }
    }
    let winner = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.time.as_ref().map(|t| (i, t.median_ns)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i);
    if let Some(w) = winner {
        results[w].chosen = true;
    }
    let advisor = prediction(&results, advice);
    let winner = winner.map(|w| &results[w]);
    Ok(TuneReport {
        workload: label.to_string(),
        kernel: kernel.to_string(),
        device: target.name(),
        clock: target.clock().to_string(),
        winner: winner.map(|w| w.name.clone()),
        speedup: winner.and_then(|w| w.speedup),
        advisor,
        measured_now: counts.0,
        from_database: counts.1,
        skipped: counts.2,
        variants: results,
    })
}

/// Validates, checks on the device and times one variant.
fn settle(
    original: &PreparedWorkload,
    validator: &Validator<'_>,
    variant: &Variant,
    target: &TuneTarget,
    options: &TuneOptions,
    progress: &mut dyn FnMut(Step<'_>),
) -> Settled {
    let (seeds, max_abs) = if matches!(variant.construction, Construction::AsWritten) {
        (0, 0.0)
    } else if let Some(done) = variant.validated {
        progress(Step::ValidatedWhenBuilt { seeds: done.seeds });
        (done.seeds, done.max_abs)
    } else {
        progress(Step::Validating { seeds: options.seeds });
        match validator.validate(&variant.prepared, options.seeds) {
            Ok(v) => v,
            Err(why) => return Settled::Invalid(why),
        }
    };
    if !target.is_simulator() && !matches!(variant.construction, Construction::AsWritten) {
        progress(Step::CheckingOnDevice);
        if let Err(why) = target.check(original, &variant.prepared) {
            return Settled::Failed(why);
        }
    }
    progress(Step::Timing);
    match target.time(&variant.prepared, &options.timing) {
        Ok(timing) => Settled::Timed {
            seeds,
            max_abs,
            samples_ns: timing.samples_ns,
            warmup: options.timing.warmup,
            flush: options.timing.flush_cache,
        },
        Err(why) => Settled::Failed(why),
    }
}

/// Validates variants against one original on the simulator: `seeds` random input sets, the
/// race and bounds checkers on for the variant, every output within the workload's tolerance.
/// The comparison is the exec layer's differential answer, the one every rewrite is validated
/// with; the original's run of each input set is made once and compared with every variant.
pub struct Validator<'a> {
    original: &'a PreparedWorkload,
    plain: Target,
    checked: Target,
    /// The original's run of each input set so far, in seed order.
    references: RefCell<Vec<TargetRun>>,
}

impl<'a> Validator<'a> {
    pub fn new(original: &'a PreparedWorkload) -> Validator<'a> {
        Validator {
            original,
            plain: Target::Simulator(SimOptions::default()),
            checked: Target::Simulator(SimOptions { check_races: true, ..SimOptions::default() }),
            references: RefCell::new(Vec::new()),
        }
    }

    /// The input sets compared and the largest absolute difference, or the first
    /// disagreement.
    pub fn validate(&self, variant: &PreparedWorkload, seeds: u64) -> Result<(u64, f64), String> {
        let failed = |e: clmap_exec::ExecError| format!("running on the simulator failed: {e}");
        let actual = Runner::new(variant, &self.checked);
        let mut compared = Vec::new();
        for seed in 0..seeds.max(1) {
            let mut references = self.references.borrow_mut();
            while references.len() as u64 <= seed {
                let next = references.len() as u64;
                references.push(run_on(&self.plain, self.original, next).map_err(failed)?);
            }
            let run = actual.run(seed).map_err(failed)?;
            let comparison = compare_runs(self.original, seed, &references[seed as usize], run);
            let stop = !comparison.outputs_agree() || !comparison.findings.is_empty();
            compared.push(comparison);
            if stop {
                break;
            }
        }
        let answer = Differential {
            expected_target: self.plain.name(),
            actual_target: self.checked.name(),
            seeds: compared,
        };
        match answer.first_disagreement() {
            Some(d) => Err(d.to_string()),
            None => Ok((answer.seed_count(), answer.max_abs())),
        }
    }
}

fn not_run() -> ValidationResult {
    ValidationResult { status: "not_run", seeds: 0, max_abs: None, detail: None }
}

fn result_of(
    variant: &Variant,
    settled: &Settled,
    from_database: bool,
    measured: Option<String>,
) -> VariantResult {
    let baseline = matches!(variant.construction, Construction::AsWritten);
    let passed = |seeds: u64, max_abs: f64| ValidationResult {
        status: if baseline { "reference" } else { "passed" },
        seeds,
        max_abs: (!baseline).then_some(max_abs),
        detail: None,
    };
    let (validation, time, detail) = match settled {
        Settled::Timed { seeds, max_abs, samples_ns, .. } => (
            passed(*seeds, *max_abs),
            Timing::from_samples(samples_ns.clone()).map(|t| TimeResult {
                median_ns: t.median,
                min_ns: t.min,
                mean_ns: t.mean,
                std_ns: t.std,
                samples_ns: t.samples_ns,
            }),
            None,
        ),
        Settled::Invalid(why) => (
            ValidationResult {
                status: "failed",
                seeds: 0,
                max_abs: None,
                detail: Some(why.clone()),
            },
            None,
            Some(why.clone()),
        ),
        // A device failure comes after the simulator's validation passed (or the baseline,
        // which needs none, failed to run).
        Settled::Failed(why) => (passed(0, 0.0), None, Some(why.clone())),
        Settled::Refused(why) => (not_run(), None, Some(why.clone())),
    };
    VariantResult {
        name: variant.name.clone(),
        built: variant.construction.clone(),
        how: variant.how.clone(),
        layout: variant.layout.clone(),
        work_group: variant.work_group.clone(),
        status: settled.status(),
        detail,
        validation,
        time,
        speedup: None,
        from_database,
        measured,
        chosen: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_are_counts_or_durations() {
        assert_eq!("12".parse::<Budget>(), Ok(Budget::Variants(12)));
        assert_eq!("90s".parse::<Budget>(), Ok(Budget::Time(Duration::from_secs(90))));
        assert_eq!("10m".parse::<Budget>(), Ok(Budget::Time(Duration::from_secs(600))));
        assert_eq!("1m30s".parse::<Budget>(), Ok(Budget::Time(Duration::from_secs(90))));
        assert_eq!("2h".parse::<Budget>(), Ok(Budget::Time(Duration::from_secs(7200))));
        for bad in ["0", "", "10x", "m", "5m3", "-1"] {
            assert!(bad.parse::<Budget>().is_err(), "{bad}");
        }
    }
}
