//! The design-space exploration of seed 003 §2: propose pass sequences, compile them in
//! parallel, share results between sequences that give the same PTX, validate every new PTX
//! on the small inputs and time the valid ones on the full workload.
//!
//! Every answer goes to the [`PhaseStore`] as soon as it is known and is looked up there first,
//! so a search that stops (budget, deadline, a killed process) resumes where it was: the
//! strategies derive their proposals from the seed and from stored answers only, so a rerun
//! replays the same decisions without recomputing them.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::compiler::{CompileFailureKind, CompileOutcome, CompiledPtx, SequenceCompiler};
use crate::evaluator::{median, Evaluator, EvaluatorError, Verdict};
use crate::progress::Progress;
use crate::sequence::sequence_hash;
use crate::store::{PhaseStore, StoredPtx};
use crate::strategy::{Proposal, Strategy, StrategyState};

/// Why a search stopped.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("the database failed: {0}")]
    Database(#[from] clmap_db::DbError),
    #[error("the device failed: {0}")]
    Device(#[from] EvaluatorError),
    #[error("{0}")]
    Invalid(String),
}

/// Counts over the sequences one run considered (answers found in the database included, so
/// that a resumed run reports what a single uninterrupted run would).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    /// Sequences considered.
    pub sequences: u64,
    /// Sequences whose answer came from the database instead of a compilation.
    pub resumed: u64,
    /// Sequences that produced PTX.
    pub compiled: u64,
    /// Sequences whose compilation crashed (signal, abort).
    pub crashed: u64,
    /// Sequences whose compilation ran past the time limit.
    pub timed_out: u64,
    /// Sequences whose compilation failed otherwise.
    pub compile_failed: u64,
    /// Sequences whose PTX had been produced before (results reused).
    pub duplicate_ptx: u64,
    /// Distinct PTX rejected by validation (wrong outputs, or failed to build or run).
    pub invalid: u64,
    /// Distinct valid PTX timed on the full workload.
    pub timed: u64,
    /// Distinct valid PTX whose warm-up run alone was slower than the screening limit
    /// ([`screening_limit_ns`]): timed by that one run instead of the full repetitions.
    pub screened: u64,
    /// Distinct PTX whose run left the device unusable; each is stored as failed, the device
    /// is reopened and the search goes on (these are also counted as invalid).
    pub broke_device: u64,
}

/// A candidate whose warm-up run takes longer than this many times the best time known (the
/// vendor's compilation or a better sequence) is not timed further.
pub const SCREEN_FACTOR: f64 = 3.0;

/// Never screen below this many nanoseconds: the warm-up carries the driver's first-run costs,
/// which can outweigh a kernel of microseconds, and such kernels are cheap to time anyway.
pub const SCREEN_FLOOR_NS: f64 = 20e6;

/// The warm-up time above which a candidate is not timed further, given the reference time
/// and the best time met so far: [`SCREEN_FACTOR`] times the faster of the two, at least
/// [`SCREEN_FLOOR_NS`]. `None` before any time is known.
pub fn screening_limit_ns(reference_ns: Option<f64>, best_ns: Option<f64>) -> Option<u64> {
    let known = match (reference_ns, best_ns) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return None,
    };
    Some((known * SCREEN_FACTOR).max(SCREEN_FLOOR_NS) as u64)
}

/// What happened to one sequence.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// The passes.
    pub passes: Vec<String>,
    /// Where the proposal came from (`random:I`, `evolve:G:J`, `minimise`).
    pub origin: String,
    /// PTX hash, or the compile failure.
    pub ptx_hash: Result<String, CompileFailureKind>,
    /// The PTX's verdict (for compiled sequences).
    pub verdict: Option<Verdict>,
    /// Median full-workload time, for valid timed PTX.
    pub median_ns: Option<f64>,
}

impl Evaluation {
    /// Valid and timed.
    pub fn time(&self) -> Option<f64> {
        match self.verdict {
            Some(Verdict::Valid) => self.median_ns,
            _ => None,
        }
    }
}

/// How a search runs.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// How sequences are proposed.
    pub strategy: Strategy,
    /// Seed of every random choice.
    pub seed: u64,
    /// Sequences to consider in total (resumed ones included).
    pub budget: u64,
    /// Stop proposing new batches after this instant.
    pub deadline: Option<Instant>,
    /// Passes per random sequence.
    pub length: usize,
    /// Sequences compiled together (a multiple of the compile jobs keeps every core busy).
    pub batch: usize,
    /// Timed runs per PTX during the search (after one discarded warm-up run).
    pub reps: u32,
    /// Random sequences that open an evolutionary search.
    pub evolve_after: u64,
    /// `(I, N)`: evaluate only the random strategy's sequences whose index is I modulo N, so
    /// that N processes (Slurm jobs) share one search of `budget` sequences, each writing its
    /// own database; merged, they hold what one process would have.
    pub shard: Option<(u64, u64)>,
    /// Sequences evaluated before the strategy's own, in this order (counted in the budget):
    /// the best ones of another GPU, size or toolchain, to re-time here or to seed evolution.
    pub given: Vec<Vec<String>>,
}

impl SearchOptions {
    /// How many random sequences open an evolutionary search: at least one batch, so the first
    /// generation has parents to choose from. It does not depend on the budget, so a rerun
    /// with a larger budget continues the same stream of proposals.
    pub fn random_phase(&self) -> u64 {
        self.evolve_after.max(self.batch.max(1) as u64)
    }
}

/// The engine: compiler, evaluator and store bound together for one search context.
pub struct Engine<'a> {
    pub(crate) compiler: &'a dyn SequenceCompiler,
    pub(crate) evaluator: &'a mut dyn Evaluator,
    pub(crate) store: &'a PhaseStore,
    pub(crate) progress: &'a dyn Progress,
    /// Timed runs per PTX.
    pub reps: u32,
    /// PTX hashes met in this run, for the duplicate count.
    seen_ptx: HashSet<String>,
    /// PTX texts compiled in this run, by hash (needed again to time finalists).
    pub(crate) ptx_texts: HashMap<String, CompiledPtx>,
    /// The reference time for the progress bar's speedup (the vendor's compilation).
    pub reference_ns: Option<f64>,
    /// The best valid time met in this run.
    pub best_ns: Option<f64>,
    /// While set, the warm-up time above which a new PTX is timed no further, in place of
    /// [`screening_limit_ns`] (minimisation's limit: its best time plus the noise margin).
    pub(crate) screen_override_ns: Option<u64>,
}

impl<'a> Engine<'a> {
    /// Binds the parts together.
    pub fn new(
        compiler: &'a dyn SequenceCompiler,
        evaluator: &'a mut dyn Evaluator,
        store: &'a PhaseStore,
        progress: &'a dyn Progress,
        reps: u32,
    ) -> Engine<'a> {
        Engine {
            compiler,
            evaluator,
            store,
            progress,
            reps: reps.max(1),
            seen_ptx: HashSet::new(),
            ptx_texts: HashMap::new(),
            reference_ns: None,
            best_ns: None,
            screen_override_ns: None,
        }
    }

    /// The best speedup over the reference so far.
    pub fn best_speedup(&self) -> Option<f64> {
        match (self.reference_ns, self.best_ns) {
            (Some(reference), Some(best)) if best > 0.0 => Some(reference / best),
            _ => None,
        }
    }

    /// The PTX of a hash compiled in this run, if any.
    pub fn ptx_text(&self, hash: &str) -> Option<&CompiledPtx> {
        self.ptx_texts.get(hash)
    }

    /// Evaluates proposals: answers from the store where there are any, the rest compiled in
    /// one parallel batch, then validated and timed one PTX at a time.
    pub fn evaluate(
        &mut self,
        proposals: &[Proposal],
        counts: &mut Counts,
    ) -> Result<Vec<Evaluation>, SearchError> {
        let plan = self.plan(proposals)?;
        let compiled = compile_plan(self.compiler, &plan);
        self.finish(proposals, plan, compiled, counts)
    }

    /// The PTX hash (or compile failure) of each proposal, without validating or timing
    /// anything: the stored answer where there is one (judged or not), else compiled in one
    /// parallel batch and stored. Minimisation needs no more to tell whether a removal leaves
    /// the PTX the same, which then has the same verdict and time.
    pub fn compile_only(
        &mut self,
        proposals: &[Proposal],
        counts: &mut Counts,
    ) -> Result<Vec<Result<String, CompileFailureKind>>, SearchError> {
        let hashes: Vec<String> = proposals.iter().map(|p| sequence_hash(&p.passes)).collect();
        let mut outcomes: Vec<Option<Result<String, CompileFailureKind>>> =
            Vec::with_capacity(proposals.len());
        let mut to_compile = Vec::new();
        for (index, hash) in hashes.iter().enumerate() {
            let answer = self.store.sequence(hash)?.map(|s| s.outcome.map_err(|(kind, _)| kind));
            if answer.is_some() {
                counts.resumed += 1;
            } else {
                to_compile.push(index);
            }
            outcomes.push(answer);
        }
        let sequences: Vec<Vec<String>> =
            to_compile.iter().filter_map(|&i| proposals.get(i).map(|p| p.passes.clone())).collect();
        let compiled =
            if sequences.is_empty() { Vec::new() } else { self.compiler.compile_many(&sequences) };
        for (&index, result) in to_compile.iter().zip(compiled) {
            let (Some(proposal), Some(hash)) = (proposals.get(index), hashes.get(index)) else {
                continue;
            };
            let stored = result
                .as_ref()
                .map(|ptx| ptx.hash.clone())
                .map_err(|f| (f.kind, f.message.clone()));
            self.store.record_sequence(hash, &proposal.passes, &proposal.origin, &stored)?;
            if let Ok(ptx) = result {
                self.ptx_texts.entry(ptx.hash.clone()).or_insert(ptx);
            }
            if let Some(slot) = outcomes.get_mut(index) {
                *slot = Some(stored.map_err(|(kind, _)| kind));
            }
        }
        let mut out = Vec::with_capacity(proposals.len());
        for outcome in outcomes {
            counts.sequences += 1;
            let outcome = outcome.unwrap_or(Err(CompileFailureKind::Failed));
            match &outcome {
                Ok(ptx_hash) => {
                    counts.compiled += 1;
                    if !self.seen_ptx.insert(ptx_hash.clone()) {
                        counts.duplicate_ptx += 1;
                    }
                }
                Err(CompileFailureKind::Crashed) => counts.crashed += 1,
                Err(CompileFailureKind::TimedOut) => counts.timed_out += 1,
                Err(CompileFailureKind::Failed) => counts.compile_failed += 1,
            }
            out.push(outcome);
            self.progress.advance(1, self.best_speedup());
        }
        Ok(out)
    }

    /// The verdict and median time of the PTX that `passes` compile to (`ptx_hash`): from the
    /// store, or validated on the small inputs and timed now (a new PTX is counted as timed,
    /// screened or invalid), compiling the sequence again when this run does not hold its
    /// text. The median is `None` unless the PTX is valid and timed.
    pub fn judge_ptx(
        &mut self,
        passes: &[String],
        ptx_hash: &str,
        counts: &mut Counts,
    ) -> Result<(Verdict, Option<f64>), SearchError> {
        let known = self.store.ptx(ptx_hash)?.is_some();
        if !known && !self.ptx_texts.contains_key(ptx_hash) {
            let again = self.compiler.compile_many(&[passes.to_vec()]).into_iter().next();
            if let Some(Ok(ptx)) = again {
                // Another toolchain underneath would give other code: only the same PTX counts.
                if ptx.hash == ptx_hash {
                    self.ptx_texts.insert(ptx.hash.clone(), ptx);
                }
            }
        }
        let result = self.judge(ptx_hash, counts)?;
        if !known {
            self.count_new_ptx(&result, counts);
        }
        let median_ns = if result.verdict.is_valid() { median(&result.samples) } else { None };
        Ok((result.verdict, median_ns))
    }

    /// Looks the proposals up in the store and lists those that need compiling.
    fn plan(&self, proposals: &[Proposal]) -> Result<Plan, SearchError> {
        let hashes: Vec<String> = proposals.iter().map(|p| sequence_hash(&p.passes)).collect();
        let mut stored = Vec::with_capacity(proposals.len());
        let mut to_compile = Vec::new();
        for (index, hash) in hashes.iter().enumerate() {
            let mut answer = self.store.sequence(hash)?;
            if let Some(Ok(ptx_hash)) = answer.as_ref().map(|a| &a.outcome) {
                // A run that stopped between storing a sequence and judging its PTX left no
                // verdict and no text behind: compile that sequence again.
                if !self.ptx_texts.contains_key(ptx_hash) && self.store.ptx(ptx_hash)?.is_none() {
                    answer = None;
                }
            }
            if answer.is_none() {
                to_compile.push(index);
            }
            stored.push(answer.map(|s| s.outcome));
        }
        let sequences: Vec<Vec<String>> =
            to_compile.iter().filter_map(|&i| proposals.get(i).map(|p| p.passes.clone())).collect();
        Ok(Plan { hashes, stored, to_compile, sequences })
    }

    /// Records the compile outcomes, then validates and times every new PTX.
    fn finish(
        &mut self,
        proposals: &[Proposal],
        plan: Plan,
        compiled: Vec<CompileOutcome>,
        counts: &mut Counts,
    ) -> Result<Vec<Evaluation>, SearchError> {
        let Plan { hashes, mut stored, to_compile, .. } = plan;
        let mut fresh: HashMap<usize, Result<CompiledPtx, (CompileFailureKind, String)>> =
            HashMap::new();
        for (&index, outcome) in to_compile.iter().zip(compiled) {
            fresh.insert(index, outcome.map_err(|f| (f.kind, f.message)));
        }

        let mut evaluations = Vec::with_capacity(proposals.len());
        for (index, proposal) in proposals.iter().enumerate() {
            counts.sequences += 1;
            let hash = hashes.get(index).map(String::as_str).unwrap_or_default();
            let outcome: Result<String, (CompileFailureKind, String)> = match fresh.remove(&index) {
                Some(result) => {
                    let as_hash = result.as_ref().map(|ptx| ptx.hash.clone()).map_err(Clone::clone);
                    self.store.record_sequence(
                        hash,
                        &proposal.passes,
                        &proposal.origin,
                        &as_hash,
                    )?;
                    if let Ok(ptx) = result {
                        self.ptx_texts.entry(ptx.hash.clone()).or_insert(ptx);
                    }
                    as_hash
                }
                None => {
                    counts.resumed += 1;
                    match stored.get_mut(index).and_then(Option::take) {
                        Some(outcome) => outcome,
                        None => Err((CompileFailureKind::Failed, "no outcome".to_string())),
                    }
                }
            };
            let evaluation = match outcome {
                Err((kind, _)) => {
                    match kind {
                        CompileFailureKind::Crashed => counts.crashed += 1,
                        CompileFailureKind::TimedOut => counts.timed_out += 1,
                        CompileFailureKind::Failed => counts.compile_failed += 1,
                    }
                    Evaluation {
                        passes: proposal.passes.clone(),
                        origin: proposal.origin.clone(),
                        ptx_hash: Err(kind),
                        verdict: None,
                        median_ns: None,
                    }
                }
                Ok(ptx_hash) => {
                    counts.compiled += 1;
                    let first_time = self.seen_ptx.insert(ptx_hash.clone());
                    if !first_time {
                        counts.duplicate_ptx += 1;
                    }
                    let result = self.judge(&ptx_hash, counts)?;
                    if first_time {
                        self.count_new_ptx(&result, counts);
                    }
                    let median_ns = median(&result.samples);
                    if result.verdict.is_valid() {
                        if let Some(time) = median_ns {
                            if self.best_ns.is_none_or(|best| time < best) {
                                self.best_ns = Some(time);
                            }
                        }
                    }
                    Evaluation {
                        passes: proposal.passes.clone(),
                        origin: proposal.origin.clone(),
                        ptx_hash: Ok(ptx_hash),
                        verdict: Some(result.verdict),
                        median_ns,
                    }
                }
            };
            evaluations.push(evaluation);
            self.progress.advance(1, self.best_speedup());
        }
        Ok(evaluations)
    }

    /// Counts a PTX judged for the first time: timed (and screened, when its first run was its
    /// only sample), or invalid.
    fn count_new_ptx(&self, result: &StoredPtx, counts: &mut Counts) {
        match (&result.verdict, result.samples.is_empty()) {
            (Verdict::Valid, false) => {
                counts.timed += 1;
                if self.reps > 1 && result.samples.len() == 1 {
                    counts.screened += 1;
                }
            }
            (Verdict::Valid, true) => {}
            _ => counts.invalid += 1,
        }
    }

    /// The verdict and samples of a PTX: from the store, or measured now and stored.
    fn judge(&mut self, ptx_hash: &str, counts: &mut Counts) -> Result<StoredPtx, SearchError> {
        if let Some(known) = self.store.ptx(ptx_hash)? {
            return Ok(known);
        }
        let Some(ptx) = self.ptx_texts.get(ptx_hash).cloned() else {
            // A sequence stored by an earlier run whose PTX verdict was never stored (the run
            // stopped between the two writes): without the text it cannot be judged now, and
            // it is reported as failed rather than guessed.
            return Ok(StoredPtx {
                verdict: Verdict::Failed("PTX of an interrupted run; not judged".to_string()),
                samples: Vec::new(),
            });
        };
        let verdict = match self.evaluator.validate_small(&ptx) {
            Ok(verdict) => verdict,
            Err(broken) => return self.blame(&ptx, broken, counts),
        };
        let stored = if verdict.is_valid() {
            let limit = match (
                self.screen_override_ns,
                screening_limit_ns(self.reference_ns, self.best_ns),
            ) {
                (Some(own), Some(search)) => Some(own.min(search)),
                (own, search) => own.or(search),
            };
            let timed = match limit {
                Some(limit) => self.evaluator.time_ptx_screened(&ptx, self.reps, limit),
                None => self.evaluator.time_ptx(&ptx, self.reps),
            };
            match timed {
                Ok(Ok(samples)) => StoredPtx { verdict, samples },
                Ok(Err(failure)) => StoredPtx { verdict: failure, samples: Vec::new() },
                Err(broken) => return self.blame(&ptx, broken, counts),
            }
        } else {
            StoredPtx { verdict, samples: Vec::new() }
        };
        self.store.record_ptx(ptx_hash, &stored)?;
        Ok(stored)
    }

    /// A PTX whose run left the device unusable is stored as failed at once, so that no run
    /// (this one after recovering, or a resumed one) ever runs it again, even when another
    /// sequence compiles to the same PTX. Then the evaluator reopens the device and checks the
    /// reference; the search goes on with the PTX judged failed, or stops when the device
    /// cannot be trusted any more.
    fn blame(
        &mut self,
        ptx: &CompiledPtx,
        broken: EvaluatorError,
        counts: &mut Counts,
    ) -> Result<StoredPtx, SearchError> {
        let stored = StoredPtx {
            verdict: Verdict::Failed(format!("the kernel broke the device: {broken}")),
            samples: Vec::new(),
        };
        self.store.record_ptx(&ptx.hash, &stored)?;
        self.store.record_broken(&ptx.hash, &broken.0, &ptx.text)?;
        match self.evaluator.recover() {
            Ok(()) => {
                counts.broke_device += 1;
                Ok(stored)
            }
            Err(unrecovered) => Err(SearchError::Device(EvaluatorError(format!(
                "{broken}; the device could not be reopened ({unrecovered}); rerun the same \
                 command to resume in a fresh process"
            )))),
        }
    }

    /// Runs a strategy until the budget or the deadline; returns every evaluation of the run in
    /// proposal order, the counts, and whether the deadline cut the search short.
    pub fn explore(
        &mut self,
        options: &SearchOptions,
        pool: &[String],
    ) -> Result<Exploration, SearchError> {
        if pool.is_empty() {
            return Err(SearchError::Invalid("the pass pool is empty".to_string()));
        }
        let mut state = StrategyState::new(
            options.strategy,
            options.seed,
            options.length,
            options.random_phase(),
        )
        .with_given(&options.given);
        let mut options = options.clone();
        if let Some((index, count)) = options.shard {
            if options.strategy != Strategy::Random {
                return Err(SearchError::Invalid(
                    "a search is split into shards by its random sequences (--strategy random); \
                     the evolutionary strategy depends on every result before it, so shard its \
                     campaigns by kernel instead"
                        .to_string(),
                ));
            }
            if !options.given.is_empty() {
                return Err(SearchError::Invalid(
                    "given sequences (--sequences) are not split into shards: evaluate them in \
                     one unsharded run (with --budget equal to their number), then shard the rest"
                        .to_string(),
                ));
            }
            if count == 0 || index >= count {
                return Err(SearchError::Invalid(format!("shard {index}/{count} does not exist")));
            }
            state = state.sharded(index, count);
            // This shard's part of the budget: the indices below it that are I modulo N.
            options.budget = options.budget.saturating_sub(index).div_ceil(count);
        }
        let options = &options;
        let mut counts = Counts::default();
        let mut evaluations: Vec<Evaluation> = Vec::new();
        let mut stopped_by_deadline = false;
        self.progress.stage("search", options.budget, 0);
        // While the device judges one batch, the next one compiles on the other cores. The
        // next batch is proposed before the current one is judged, so the evolutionary
        // strategy breeds from results one batch old; the lag is the same in every run, so
        // replays still propose exactly the same sequences.
        let mut proposed: u64 = 0;
        let mut in_flight: Option<(Vec<Proposal>, Plan, Vec<CompileOutcome>)> = None;
        loop {
            let mut next = Vec::new();
            if proposed < options.budget {
                if options.deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                    stopped_by_deadline = true;
                } else {
                    let wanted = (options.budget - proposed).min(options.batch.max(1) as u64);
                    next = state.propose(pool, &evaluations, wanted as usize);
                    proposed += next.len() as u64;
                }
            }
            if next.is_empty() && in_flight.is_none() {
                break;
            }
            let next_plan = self.plan(&next)?;
            let compiler = self.compiler;
            let current = in_flight.take();
            let (next_compiled, judged) = std::thread::scope(|scope| {
                let compiling = scope.spawn(|| compile_plan(compiler, &next_plan));
                let judged = current.map(|(proposals, plan, compiled)| {
                    self.finish(&proposals, plan, compiled, &mut counts)
                });
                (compiling.join(), judged)
            });
            let next_compiled = next_compiled
                .map_err(|_| SearchError::Invalid("a compilation thread panicked".to_string()))?;
            if let Some(batch) = judged {
                evaluations.extend(batch?);
            }
            if !next.is_empty() {
                in_flight = Some((next, next_plan, next_compiled));
            }
        }
        Ok(Exploration { evaluations, counts, stopped_by_deadline })
    }
}

/// What [`Engine::plan`] found: the proposals' hashes, their stored answers, and which of
/// them need compiling.
struct Plan {
    hashes: Vec<String>,
    stored: Vec<Option<Result<String, (CompileFailureKind, String)>>>,
    to_compile: Vec<usize>,
    sequences: Vec<Vec<String>>,
}

fn compile_plan(compiler: &dyn SequenceCompiler, plan: &Plan) -> Vec<CompileOutcome> {
    if plan.sequences.is_empty() {
        Vec::new()
    } else {
        compiler.compile_many(&plan.sequences)
    }
}

/// The result of [`Engine::explore`].
#[derive(Clone, Debug)]
pub struct Exploration {
    /// Every sequence considered, in proposal order.
    pub evaluations: Vec<Evaluation>,
    /// What happened to them.
    pub counts: Counts,
    /// True when `--time` stopped the search before the budget.
    pub stopped_by_deadline: bool,
}
