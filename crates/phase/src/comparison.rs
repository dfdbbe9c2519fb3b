//! Strategies compared at the same budget: each explores the same number of sequences from the
//! same seed, and the table says how fast each has found its best code, as the best speedup
//! over the vendor's compilation after the first *n* sequences.
//!
//! Every sequence counts, whatever happened to it (a crash, a duplicate PTX, a wrong result):
//! that is what a strategy spends. The strategies share the database, so a sequence two of them
//! propose (the evolutionary strategy opens with the random strategy's first sequences) is
//! compiled and measured once, and counted by both.

use std::fmt::Write as _;

use serde::Serialize;

use crate::compiler::SequenceCompiler;
use crate::evaluator::{median, Evaluator};
use crate::progress::Progress;
use crate::search::{Counts, Engine, SearchError, SearchOptions};
use crate::store::PhaseStore;
use crate::strategy::Strategy;

/// Where the curves are read: these counts up to the budget, and the budget itself.
const CHECKPOINTS: [u64; 12] = [10, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000];

/// The best a strategy had found after some number of sequences.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Sequences considered so far.
    pub sequences: u64,
    /// The fastest valid median time among them (ns).
    pub best_ns: Option<f64>,
    /// The vendor's time over it.
    pub speedup: Option<f64>,
}

/// One strategy's run.
#[derive(Clone, Debug, Serialize)]
pub struct StrategyCurve {
    /// The strategy.
    pub strategy: String,
    /// Best speedup after each checkpoint.
    pub points: Vec<CurvePoint>,
    /// What happened to its sequences.
    pub counts: Counts,
    /// Its fastest sequence.
    pub best_passes: Option<Vec<String>>,
    /// Seconds it took (sequences answered from the database cost nothing).
    pub seconds: f64,
}

/// The comparison of several strategies on one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct StrategyComparison {
    /// The device.
    pub device: String,
    /// The toolchain.
    pub toolchain: String,
    /// Sequences per strategy.
    pub budget: u64,
    /// The seed every strategy starts from.
    pub seed: u64,
    /// The vendor's compilation from source, median (ns) of the search's repetitions.
    pub source_ns: Option<f64>,
    /// One curve per strategy, in the order asked.
    pub strategies: Vec<StrategyCurve>,
}

/// Runs each strategy with `search`'s budget and seed (its strategy field is ignored).
pub fn compare_strategies(
    compiler: &dyn SequenceCompiler,
    evaluator: &mut dyn Evaluator,
    store: &PhaseStore,
    progress: &dyn Progress,
    search: &SearchOptions,
    strategies: &[Strategy],
) -> Result<StrategyComparison, SearchError> {
    let pool = compiler.pool();
    let device = evaluator.describe();
    let source_ns = median(&evaluator.time_source(search.reps.max(1))?);
    let mut curves = Vec::with_capacity(strategies.len());
    for &strategy in strategies {
        let started = std::time::Instant::now();
        let options = SearchOptions { strategy, ..search.clone() };
        let mut engine = Engine::new(compiler, evaluator, store, progress, options.reps);
        engine.reference_ns = source_ns;
        let exploration = engine.explore(&options, &pool)?;
        let mut points = Vec::new();
        let mut best: Option<(f64, usize)> = None;
        let considered = exploration.evaluations.len() as u64;
        let mut checkpoints: Vec<u64> =
            CHECKPOINTS.iter().copied().filter(|&n| n < considered).collect();
        checkpoints.push(considered);
        let mut next = checkpoints.iter().copied().peekable();
        for (index, evaluation) in exploration.evaluations.iter().enumerate() {
            if let Some(time) = evaluation.time() {
                if best.is_none_or(|(b, _)| time < b) {
                    best = Some((time, index));
                }
            }
            if next.peek() == Some(&(index as u64 + 1)) {
                next.next();
                let best_ns = best.map(|(t, _)| t);
                points.push(CurvePoint {
                    sequences: index as u64 + 1,
                    best_ns,
                    speedup: match (source_ns, best_ns) {
                        (Some(s), Some(b)) if b > 0.0 => Some(s / b),
                        _ => None,
                    },
                });
            }
        }
        curves.push(StrategyCurve {
            strategy: strategy.name().to_string(),
            points,
            counts: exploration.counts,
            best_passes: best
                .and_then(|(_, i)| exploration.evaluations.get(i))
                .map(|e| e.passes.clone()),
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    progress.finish();
    Ok(StrategyComparison {
        device,
        toolchain: compiler.describe(),
        budget: search.budget,
        seed: search.seed,
        source_ns,
        strategies: curves,
    })
}

impl StrategyComparison {
    /// A Markdown table: one row per checkpoint, one column per strategy, then the counts.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Best speedup over the vendor's compilation after n sequences ({}; seed {}, budget {})\n",
            self.device, self.seed, self.budget
        );
        let names: Vec<&str> = self.strategies.iter().map(|c| c.strategy.as_str()).collect();
        let _ = writeln!(out, "| sequences | {} |", names.join(" | "));
        let _ = writeln!(out, "|---:|{}", "---:|".repeat(names.len()));
        let mut rows: Vec<u64> =
            self.strategies.iter().flat_map(|c| c.points.iter().map(|p| p.sequences)).collect();
        rows.sort_unstable();
        rows.dedup();
        for n in rows {
            let cells: Vec<String> = self
                .strategies
                .iter()
                .map(|curve| {
                    // The best so far at n: the last point at or before it.
                    let point = curve.points.iter().rev().find(|p| p.sequences <= n);
                    point
                        .and_then(|p| p.speedup)
                        .map_or_else(|| "-".to_string(), |s| format!("{s:.2}×"))
                })
                .collect();
            let _ = writeln!(out, "| {n} | {} |", cells.join(" | "));
        }
        let _ = writeln!(out);
        for curve in &self.strategies {
            let c = &curve.counts;
            let _ = writeln!(
                out,
                "- {}: {} sequences, {} distinct PTX timed, {} invalid, {} duplicate PTX, {} \
                 failed to compile, {:.0} s",
                curve.strategy,
                c.sequences,
                c.timed,
                c.invalid,
                c.duplicate_ptx,
                c.crashed + c.timed_out + c.compile_failed,
                curve.seconds
            );
        }
        out
    }
}
