//! What a phase-order search reports: the baselines, the best sequence and its speedups, the
//! minimised sequence, the counts, and why the best code is faster.

use clmap_device::human_ns;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::evaluator::Verdict;
use crate::minimise::Minimised;
use crate::search::Counts;
use crate::store::BrokenPtx;

/// One baseline, as measured in the final round.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BaselineResult {
    /// `source` (the vendor's compilation), `-O0`, `-O1`, `-O2`, `-O3`, `-Os`.
    pub name: String,
    /// PTX hash (none for `source`).
    pub ptx_hash: Option<String>,
    /// Validation on the small inputs (always valid for `source`, the reference itself).
    pub verdict: Verdict,
    /// Median kernel time (ns); none when the baseline did not compile or run.
    pub median_ns: Option<f64>,
    /// Every sample.
    pub samples_ns: Vec<u64>,
    /// Why it has no time, when it has none.
    pub error: Option<String>,
}

/// The final validation of a finalist (seed 003: full inputs, then 30 random inputs).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FinalValidation {
    /// The full workload's own inputs.
    pub full_inputs: Verdict,
    /// Random inputs (seed shifts 1..=N) tried.
    pub random_inputs: u32,
    /// How many of them passed.
    pub random_passed: u32,
    /// Aliased layouts of the small inputs tried (`y=tmp`: the argument that named `y`
    /// names `tmp`), see [`crate::aliasing`].
    #[serde(default)]
    pub aliased_inputs: Vec<String>,
    /// How many of them passed.
    #[serde(default)]
    pub aliased_passed: u32,
    /// The first failure, when there was one.
    pub first_failure: Option<String>,
}

impl FinalValidation {
    /// Passed everything.
    pub fn passed(&self) -> bool {
        self.full_inputs.is_valid()
            && self.random_passed == self.random_inputs
            && self.aliased_passed as usize == self.aliased_inputs.len()
    }
}

/// Speedups of the best sequence (baseline time / best time).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Speedups {
    /// Over the vendor's compilation from source.
    pub vs_source: Option<f64>,
    /// Over clang/LLVM without optimisation.
    pub vs_o0: Option<f64>,
    /// Over the best of -O1, -O2, -O3, -Os.
    pub vs_best_ox: Option<f64>,
    /// Which level that was.
    pub best_ox: Option<String>,
}

/// The sequence chosen.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BestSequence {
    /// The passes.
    pub passes: Vec<String>,
    /// `search` or `minimised`.
    pub origin: String,
    /// PTX hash.
    pub ptx_hash: String,
    /// Median time in the final round (ns).
    pub median_ns: f64,
    /// Every sample of the final round.
    pub samples_ns: Vec<u64>,
    /// The final validation.
    pub validation: FinalValidation,
    /// Speedups over the baselines.
    pub speedups: Speedups,
}

/// Why the best code is faster (seed 003 §3.2).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Explanation {
    /// What changed in the PTX from the best -O level to the best sequence.
    pub vs_best_ox: Option<String>,
    /// What changed in the PTX from -O0 to the best sequence.
    pub vs_o0: Option<String>,
    /// `ptxas -v` resources of the best sequence's PTX.
    pub best_resources: Option<String>,
    /// Those of the best -O level.
    pub best_ox_resources: Option<String>,
    /// Those of -O0.
    pub o0_resources: Option<String>,
    /// Structured PTX summaries (instruction counts by kind, loops, loads and stores in loops,
    /// unroll estimates) of the best sequence, the best -O level and -O0.
    pub best_summary: Option<serde_json::Value>,
    /// The best -O level's summary.
    pub best_ox_summary: Option<serde_json::Value>,
    /// -O0's summary.
    pub o0_summary: Option<serde_json::Value>,
}

/// A finalist of the search, as timed in the final round.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Finalist {
    /// Number of passes.
    pub passes: usize,
    /// `search` or `minimised`.
    pub origin: String,
    /// PTX hash.
    pub ptx_hash: String,
    /// Median time during the search (ns).
    pub search_median_ns: f64,
    /// Median time in the final round (ns).
    pub final_median_ns: Option<f64>,
    /// Whether it passed the final validation (none when not reached).
    pub validated: Option<bool>,
    /// Why it failed the final validation: which input and which output differed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// Everything a search reports.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PhaseReport {
    /// The workload searched.
    pub workload: String,
    /// The small workload used for validation.
    pub small_workload: String,
    /// The device.
    pub device: String,
    /// The toolchain.
    pub toolchain: String,
    /// The strategy.
    pub strategy: String,
    /// The seed.
    pub seed: u64,
    /// The budget in sequences.
    pub budget: u64,
    /// Passes per random sequence.
    pub length: usize,
    /// Usable passes in the pool.
    pub pool_size: usize,
    /// What happened to the sequences of the search.
    pub counts: Counts,
    /// `budget` or `time`.
    pub stopped_by: String,
    /// Wall time of the search stage (s).
    pub search_seconds: f64,
    /// Sequences considered per second in the search stage.
    pub sequences_per_second: f64,
    /// Wall time of the whole run (s).
    pub total_seconds: f64,
    /// The baselines.
    pub baselines: Vec<BaselineResult>,
    /// The chosen sequence, when one passed validation.
    pub best: Option<BestSequence>,
    /// The minimisation of the search's best sequence.
    pub minimised: Option<Minimised>,
    /// The finalists in the order they were tried.
    pub finalists: Vec<Finalist>,
    /// Why the best is faster.
    #[serde(default)]
    pub explanation: Explanation,
    /// Every PTX of this search context that broke the device (this run's and earlier runs'),
    /// with the shortest sequence giving it; their text is in the database (`phase_broken`).
    #[serde(default)]
    pub broke_device: Vec<BrokenPtx>,
    /// Seconds the device side took to start (the device worker: its context, the source's
    /// build and the small reference), when it runs in a worker.
    #[serde(default)]
    pub device_start_seconds: Option<f64>,
    /// Seconds each restart of the device side took (a fresh worker process after a candidate
    /// broke the device), in order.
    #[serde(default)]
    pub device_restart_seconds: Vec<f64>,
}

fn speedup_text(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".to_string(), |s| format!("{s:.2}x"))
}

impl PhaseReport {
    /// The report as text for a terminal.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "phase-order search: {} on {}", self.workload, self.device);
        let _ = writeln!(out, "  toolchain   {}", self.toolchain);
        let _ = writeln!(
            out,
            "  strategy    {} (seed {}, budget {} sequences of {} passes, pool of {} passes), \
             validated on {}",
            self.strategy, self.seed, self.budget, self.length, self.pool_size, self.small_workload
        );
        let c = &self.counts;
        let _ = writeln!(
            out,
            "  sequences   {} considered ({} from the database): {} compiled, {} crashed, {} timed \
             out, {} failed to compile; {} duplicate PTX; {} invalid ({} broke the device); {} \
             timed ({} by one slow warm-up run)",
            c.sequences,
            c.resumed,
            c.compiled,
            c.crashed,
            c.timed_out,
            c.compile_failed,
            c.duplicate_ptx,
            c.invalid,
            c.broke_device,
            c.timed,
            c.screened
        );
        let _ = writeln!(
            out,
            "  search      {:.1} s, {:.2} sequences/s; stopped by {}",
            self.search_seconds, self.sequences_per_second, self.stopped_by
        );
        if let Some(start) = self.device_start_seconds {
            let restarts = &self.device_restart_seconds;
            let mean = restarts.iter().sum::<f64>() / restarts.len().max(1) as f64;
            let again = match restarts.len() {
                0 => "never restarted".to_string(),
                n => format!(
                    "restarted {n} times after a candidate broke the device ({mean:.1} s each \
                     on average)"
                ),
            };
            let _ = writeln!(out, "  device      worker started in {start:.1} s; {again}");
        }
        if !self.broke_device.is_empty() {
            let _ = writeln!(
                out,
                "  broke the device  {} PTX in this search context (this run and earlier ones)",
                self.broke_device.len()
            );
            for broken in &self.broke_device {
                let _ = writeln!(
                    out,
                    "    {} ({} sequences, shortest {} passes): {}",
                    short_hash(&broken.ptx_hash),
                    broken.sequences,
                    broken.passes.len(),
                    broken.error
                );
            }
        }
        let _ = writeln!(out, "\nbaselines (median kernel time)");
        for baseline in &self.baselines {
            let time = baseline.median_ns.map_or_else(|| "-".to_string(), human_ns);
            let note = match (&baseline.error, &baseline.verdict) {
                (Some(error), _) => format!("  ({error})"),
                (None, Verdict::Valid) => String::new(),
                (None, other) => format!("  (invalid: {})", other.reason()),
            };
            let _ = writeln!(out, "  {:<8} {:>12}{note}", baseline.name, time);
        }
        match &self.best {
            None => {
                let _ = writeln!(out, "\nno sequence passed validation");
                for finalist in self.finalists.iter().filter(|f| f.failure.is_some()) {
                    let _ = writeln!(
                        out,
                        "  finalist {} ({} passes): {}",
                        short_hash(&finalist.ptx_hash),
                        finalist.passes,
                        finalist.failure.as_deref().unwrap_or_default()
                    );
                }
            }
            Some(best) => {
                let s = &best.speedups;
                let _ = writeln!(
                    out,
                    "\nbest sequence ({}, {} passes): {}",
                    best.origin,
                    best.passes.len(),
                    human_ns(best.median_ns)
                );
                let _ = writeln!(
                    out,
                    "  speedup     {} over source, {} over -O0, {} over {}",
                    speedup_text(s.vs_source),
                    speedup_text(s.vs_o0),
                    speedup_text(s.vs_best_ox),
                    s.best_ox.as_deref().unwrap_or("-OX")
                );
                let v = &best.validation;
                let aliased = if v.aliased_inputs.is_empty() {
                    "none allowed".to_string()
                } else {
                    format!(
                        "{}/{} ({})",
                        v.aliased_passed,
                        v.aliased_inputs.len(),
                        v.aliased_inputs.join(", ")
                    )
                };
                let _ = writeln!(
                    out,
                    "  validated   full inputs {}, random inputs {}/{}, aliased inputs {aliased}",
                    if v.full_inputs.is_valid() { "ok" } else { v.full_inputs.reason() },
                    v.random_passed,
                    v.random_inputs
                );
                let _ = writeln!(out, "  passes      {}", best.passes.join(" "));
            }
        }
        if let Some(min) = &self.minimised {
            let _ = writeln!(
                out,
                "\nminimised: {} -> {} passes ({} removed without changing the code, {} without \
                 slowing the kernel beyond {:.1} %)",
                min.original_len,
                min.passes.len(),
                min.removed_same_code,
                min.removed_same_speed,
                100.0 * min.noise_margin
            );
            if !min.complete {
                let _ = writeln!(out, "  (stopped by the time limit before it was done)");
            }
            if let Some(resumed) = &min.resumed {
                let source = resumed.source_median_ns.map_or_else(|| "-".to_string(), human_ns);
                let _ = writeln!(
                    out,
                    "  resumed     from the report alone, from {} passes; reference timed then: \
                     chosen sequence {}, source {source}",
                    resumed.started_from_passes,
                    human_ns(resumed.chosen_median_ns)
                );
            }
            match (min.validated, min.final_median_ns) {
                (Some(true), Some(time)) => {
                    let _ = writeln!(
                        out,
                        "  validated   full and random inputs ok; {}",
                        human_ns(time)
                    );
                }
                (Some(true), None) => {
                    let _ = writeln!(out, "  validated   full and random inputs ok");
                }
                (Some(false), _) => {
                    let _ = writeln!(
                        out,
                        "  validated   FAILED on the full or random inputs: use the best sequence"
                    );
                }
                (None, _) => {}
            }
            let _ = writeln!(out, "  passes      {}", min.passes.join(" "));
        }
        let e = &self.explanation;
        if let Some(diff) = &e.vs_best_ox {
            let _ = writeln!(out, "\nPTX: best -O level -> best sequence\n{}", indent(diff));
        }
        if let Some(diff) = &e.vs_o0 {
            let _ = writeln!(out, "\nPTX: -O0 -> best sequence\n{}", indent(diff));
        }
        for (label, resources) in [
            ("best sequence", &e.best_resources),
            ("best -O level", &e.best_ox_resources),
            ("-O0", &e.o0_resources),
        ] {
            if let Some(text) = resources {
                let _ = writeln!(out, "ptxas ({label}): {text}");
            }
        }
        out
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n")
}

/// The first 12 hex digits of a hash, enough to tell finalists apart.
fn short_hash(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}
