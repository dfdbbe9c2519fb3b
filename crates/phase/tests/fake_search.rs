//! The search without LLVM and without a GPU: a fake compiler whose "PTX" is a canonical form
//! of the sequence, and a fake evaluator whose times and verdicts are functions of that code.
//! These pin de-duplication, resumption, crash handling, minimisation and the final round, and
//! (with this binary run again as a fake device worker) the recovery from a candidate that
//! leaves the device unusable for its whole process.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clmap_db::Database;
use clmap_phase::compiler::{
    BaselineLevel, CompileFailure, CompileFailureKind, CompileOutcome, CompiledPtx,
    SequenceCompiler,
};
use clmap_phase::evaluator::{Evaluator, EvaluatorError, Verdict};
use clmap_phase::minimise::{minimise, Minimised};
use clmap_phase::sequence::text_hash;
use clmap_phase::worker::{serve, WorkerEvaluator, WorkerLimits};
use clmap_phase::{
    minimise_same_code, resume_minimisation, run_phase, ContextKey, Counts, Engine, NoProgress,
    PhaseReport, PhaseStore, RunOptions, SearchError, SearchOptions, Strategy,
};

/// Passes that change the fake code; every other pass is a no-op on it.
const EFFECTIVE: [&str; 4] = ["licm", "gvn", "bad-pass", "fragile-pass"];

fn pool() -> Vec<String> {
    [
        "licm",
        "gvn",
        "instcombine",
        "sroa",
        "dse",
        "sink",
        "bad-pass",
        "crash-pass",
        "hang-pass",
        "fragile-pass",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The fake code of a sequence: whether each effective pass appears (order-free), so many
/// sequences share one PTX, as real ones do.
fn code_of(passes: &[String]) -> String {
    EFFECTIVE
        .iter()
        .filter(|p| passes.iter().any(|q| q == *p))
        .cloned()
        .collect::<Vec<_>>()
        .join("+")
}

#[derive(Default)]
struct FakeCompiler {
    compiled: AtomicUsize,
    /// How long each batch takes (so that a deadline can fall in the middle of work).
    delay: Duration,
    /// What [`SequenceCompiler::passes_with_effect`] answers.
    effects: Effects,
}

/// How the fake compiler answers which passes change the code.
#[derive(Default, Clone, Copy, PartialEq)]
enum Effects {
    /// It cannot tell (the trait's default).
    #[default]
    Unknown,
    /// The first occurrence of each effective pass changes the code, nothing else does.
    Honest,
    /// As `Honest`, but it also calls `gvn` ineffective, as running passes one at a time
    /// instead of as one pipeline can in rare cases.
    MissesGvn,
}

impl FakeCompiler {
    fn compile_one(&self, passes: &[String]) -> CompileOutcome {
        self.compiled.fetch_add(1, Ordering::SeqCst);
        if passes.iter().any(|p| p == "crash-pass") {
            return Err(CompileFailure {
                kind: CompileFailureKind::Crashed,
                message: "opt: signal 11".into(),
            });
        }
        if passes.iter().any(|p| p == "hang-pass") {
            return Err(CompileFailure {
                kind: CompileFailureKind::TimedOut,
                message: "opt: killed after 60 s".into(),
            });
        }
        Ok(ptx_for(&code_of(passes)))
    }
}

fn ptx_for(code: &str) -> CompiledPtx {
    let mut text = format!("// fake ptx\n{code}\n").into_bytes();
    text.push(0);
    CompiledPtx { text, hash: text_hash(code) }
}

impl SequenceCompiler for FakeCompiler {
    fn pool(&self) -> Vec<String> {
        pool()
    }
    fn compile_many(&self, sequences: &[Vec<String>]) -> Vec<CompileOutcome> {
        std::thread::sleep(self.delay);
        sequences.iter().map(|s| self.compile_one(s)).collect()
    }
    fn compile_baseline(&self, level: BaselineLevel) -> CompileOutcome {
        Ok(ptx_for(match level {
            BaselineLevel::O0 => "",
            _ => "gvn",
        }))
    }
    fn describe(&self) -> String {
        "fake llvm".into()
    }
    fn passes_with_effect(&self, passes: &[String]) -> Option<Vec<bool>> {
        if self.effects == Effects::Unknown {
            return None;
        }
        let mut seen = Vec::new();
        let effects = passes
            .iter()
            .map(|pass| {
                let first = EFFECTIVE.contains(&pass.as_str()) && !seen.contains(pass);
                seen.push(pass.clone());
                first && !(self.effects == Effects::MissesGvn && pass == "gvn")
            })
            .collect();
        Some(effects)
    }
    fn explain_difference(&self, from: &CompiledPtx, to: &CompiledPtx) -> Option<String> {
        Some(format!("{} -> {}", from.hash.len(), to.hash.len()))
    }
}

fn code_in(ptx: &CompiledPtx) -> String {
    let text = String::from_utf8_lossy(&ptx.text);
    text.lines().nth(1).unwrap_or("").trim_end_matches('\0').to_string()
}

#[derive(Default)]
struct FakeEvaluator {
    /// The validation (counted from 1) whose run leaves the fake device unusable, as an
    /// illegal address does on a GPU.
    breaks_device_at: Option<usize>,
    /// Whether [`Evaluator::recover`] gives a working device back (a new context).
    recoverable: bool,
    /// Set by the breaking validation: every call fails until the device is recovered.
    broken: bool,
    recoveries: AtomicUsize,
    validations: Mutex<Vec<String>>,
    timings: AtomicUsize,
    full_validations: AtomicUsize,
    /// Multiplies every time (0 = 1): kernels of milliseconds, where screening applies.
    scale: u64,
    /// A code that runs twenty times slower than its passes say.
    slow_code: Option<String>,
    /// Timings that stopped after the warm-up run.
    screened_timings: AtomicUsize,
}

impl FakeEvaluator {
    /// licm saves 30 %, gvn 10 %; -O levels get gvn only; source is as slow as -O0.
    fn time_of(code: &str) -> u64 {
        let mut t = 1000.0;
        if code.contains("licm") {
            t *= 0.7;
        }
        if code.contains("gvn") {
            t *= 0.9;
        }
        if code.contains("fragile-pass") {
            // The fastest code of all, but wrong on other inputs.
            t *= 0.5;
        }
        t as u64
    }

    /// bad-pass code is wrong on the small inputs.
    fn small_verdict(code: &str) -> Verdict {
        if code.contains("bad-pass") {
            Verdict::Wrong("output c differs at 3".into())
        } else {
            Verdict::Valid
        }
    }

    /// fragile-pass code passes the small inputs but not random input set 7.
    fn full_verdict(code: &str, shift: u64) -> Verdict {
        if code.contains("fragile-pass") && shift == 7 {
            Verdict::Wrong("differs on input 7".into())
        } else {
            Verdict::Valid
        }
    }
}

impl FakeEvaluator {
    fn scaled_time_of(&self, code: &str) -> u64 {
        let slow = if self.slow_code.as_deref() == Some(code) { 20 } else { 1 };
        Self::time_of(code) * self.scale.max(1) * slow
    }
}

impl Evaluator for FakeEvaluator {
    fn describe(&self) -> String {
        "fake gpu".into()
    }
    fn validate_small(&mut self, ptx: &CompiledPtx) -> Result<Verdict, EvaluatorError> {
        if self.broken {
            return Err(EvaluatorError("CL_OUT_OF_RESOURCES".into()));
        }
        let code = code_in(ptx);
        let mut validations = self.validations.lock().unwrap();
        validations.push(code.clone());
        if self.breaks_device_at == Some(validations.len()) {
            self.broken = true;
            return Err(EvaluatorError("the device stopped working".into()));
        }
        Ok(FakeEvaluator::small_verdict(&code))
    }
    fn validate_full(&mut self, ptx: &CompiledPtx, shift: u64) -> Result<Verdict, EvaluatorError> {
        if self.broken {
            return Err(EvaluatorError("CL_OUT_OF_RESOURCES".into()));
        }
        self.full_validations.fetch_add(1, Ordering::SeqCst);
        let code = code_in(ptx);
        Ok(FakeEvaluator::full_verdict(&code, shift))
    }
    fn time_ptx(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        if self.broken {
            return Err(EvaluatorError("CL_OUT_OF_RESOURCES".into()));
        }
        self.timings.fetch_add(1, Ordering::SeqCst);
        let t = self.scaled_time_of(&code_in(ptx));
        Ok(Ok((0..reps).map(|i| t + u64::from(i % 2)).collect()))
    }
    fn time_ptx_screened(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
        give_up_ns: u64,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        let warm_up = self.scaled_time_of(&code_in(ptx));
        if !self.broken && warm_up > give_up_ns {
            self.timings.fetch_add(1, Ordering::SeqCst);
            self.screened_timings.fetch_add(1, Ordering::SeqCst);
            return Ok(Ok(vec![warm_up]));
        }
        self.time_ptx(ptx, reps)
    }
    fn time_source(&mut self, reps: u32) -> Result<Vec<u64>, EvaluatorError> {
        if self.broken {
            return Err(EvaluatorError("CL_OUT_OF_RESOURCES".into()));
        }
        Ok(vec![1000; reps as usize])
    }
    fn recover(&mut self) -> Result<(), EvaluatorError> {
        self.recoveries.fetch_add(1, Ordering::SeqCst);
        if !self.recoverable {
            return Err(EvaluatorError("no new context".into()));
        }
        self.broken = false;
        Ok(())
    }
}

fn context() -> ContextKey {
    ContextKey {
        workload_identity: "gemm".into(),
        small_identity: "gemm-small".into(),
        device: "fake gpu".into(),
        device_id: None,
        toolchain: "fake llvm".into(),
        workload_label: "gemm.toml".into(),
        small_label: "gemm-small.toml".into(),
    }
}

fn options(strategy: Strategy, budget: u64) -> SearchOptions {
    SearchOptions {
        strategy,
        seed: 11,
        budget,
        deadline: None,
        length: 6,
        batch: 4,
        reps: 3,
        evolve_after: 6,
        shard: None,
        given: Vec::new(),
    }
}

fn explore(
    store: &PhaseStore,
    compiler: &FakeCompiler,
    evaluator: &mut FakeEvaluator,
    options: &SearchOptions,
) -> clmap_phase::search::Exploration {
    let mut engine = Engine::new(compiler, evaluator, store, &NoProgress, options.reps);
    engine.explore(options, &pool()).expect("search runs")
}

#[test]
fn duplicates_crashes_and_invalid_code_are_counted() {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator::default();
    let result = explore(&store, &compiler, &mut evaluator, &options(Strategy::Random, 40));
    let c = &result.counts;
    assert_eq!(c.sequences, 40);
    assert_eq!(c.compiled + c.crashed + c.timed_out + c.compile_failed, 40);
    assert!(c.crashed > 0 && c.timed_out > 0, "{c:?}");
    assert!(c.duplicate_ptx > 0, "only 16 distinct codes exist: {c:?}");
    // Every distinct PTX is validated exactly once, and timed only when valid.
    let validated = evaluator.validations.lock().unwrap().clone();
    let mut distinct = validated.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(validated.len(), distinct.len(), "a PTX was validated twice");
    assert_eq!(c.compiled - c.duplicate_ptx, c.invalid + c.timed);
    assert_eq!(evaluator.timings.load(Ordering::SeqCst) as u64, c.timed);
    assert!(c.invalid > 0, "bad-pass code must be rejected: {c:?}");
}

#[test]
fn a_rerun_resumes_and_a_larger_budget_continues() {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator::default();
    let first = explore(&store, &compiler, &mut evaluator, &options(Strategy::Evolve, 24));
    let compiled_first = compiler.compiled.load(Ordering::SeqCst);
    assert_eq!(compiled_first, 24);

    // The same command again: nothing is compiled, validated or timed, and the answers agree.
    let validations = evaluator.validations.lock().unwrap().len();
    let timings = evaluator.timings.load(Ordering::SeqCst);
    let again = explore(&store, &compiler, &mut evaluator, &options(Strategy::Evolve, 24));
    assert_eq!(compiler.compiled.load(Ordering::SeqCst), compiled_first);
    assert_eq!(evaluator.validations.lock().unwrap().len(), validations);
    assert_eq!(evaluator.timings.load(Ordering::SeqCst), timings);
    assert_eq!(again.evaluations, first.evaluations);
    assert_eq!(again.counts.resumed, 24);
    let mut expected = first.counts.clone();
    expected.resumed = 24;
    assert_eq!(again.counts, expected);

    // A larger budget continues the same stream: the first 24 are reused, 16 are new.
    let longer = explore(&store, &compiler, &mut evaluator, &options(Strategy::Evolve, 40));
    assert_eq!(longer.evaluations[..24], first.evaluations[..]);
    assert_eq!(compiler.compiled.load(Ordering::SeqCst), compiled_first + 16);
    assert_eq!(longer.counts.resumed, 24);
}

#[test]
fn a_ptx_that_breaks_the_device_stops_the_search_and_is_never_run_again() {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator { breaks_device_at: Some(3), ..FakeEvaluator::default() };
    let opts = options(Strategy::Random, 40);
    let error = Engine::new(&compiler, &mut evaluator, &store, &NoProgress, opts.reps)
        .explore(&opts, &pool())
        .err()
        .expect("the broken device stops the search");
    assert!(error.to_string().contains("stopped working"), "{error}");
    let breaking = evaluator.validations.lock().unwrap()[2].clone();
    let stored = store.ptx(&text_hash(&breaking)).unwrap().expect("the culprit is stored");
    assert!(!stored.verdict.is_valid());
    assert!(stored.verdict.reason().contains("broke the device"), "{:?}", stored.verdict);

    assert!(error.to_string().contains("could not be reopened"), "{error}");
    assert_eq!(evaluator.recoveries.load(Ordering::SeqCst), 1);

    // The resumed search (a fresh device) runs to its budget without running the culprit again.
    evaluator.breaks_device_at = None;
    evaluator.broken = false;
    let result = explore(&store, &compiler, &mut evaluator, &opts);
    assert_eq!(result.counts.sequences, 40);
    let runs_of_culprit =
        evaluator.validations.lock().unwrap().iter().filter(|code| **code == breaking).count();
    assert_eq!(runs_of_culprit, 1);
}

#[test]
fn an_expired_deadline_stops_before_any_work() {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator::default();
    let mut opts = options(Strategy::Random, 100);
    opts.deadline = Some(Instant::now() - Duration::from_secs(1));
    let result = explore(&store, &compiler, &mut evaluator, &opts);
    assert!(result.stopped_by_deadline);
    assert_eq!(result.counts.sequences, 0);
    assert_eq!(compiler.compiled.load(Ordering::SeqCst), 0);
}

#[test]
fn a_whole_run_minimises_and_skips_a_finalist_that_fails_on_random_inputs() {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator::default();
    let run = RunOptions {
        search: options(Strategy::Random, 120),
        final_reps: 9,
        random_inputs: 30,
        finalists: 6,
        minimise: true,
        minimise_time: None,
        noise_floor: 0.02,
        workload_label: "gemm.toml".into(),
        small_label: "gemm-small.toml".into(),
    };
    let report = run_phase(&compiler, &mut evaluator, &store, &NoProgress, &run).expect("run");
    let best = report.best.as_ref().expect("a sequence passes validation");
    // The fragile code is the fastest but fails random input 7; licm + gvn wins.
    assert!(!best.passes.iter().any(|p| p == "fragile-pass"), "{:?}", best.passes);
    assert!(best.validation.passed());
    assert_eq!(best.validation.random_passed, 30);
    let rejected = report.finalists.iter().find(|f| f.validated == Some(false)).expect("rejected");
    assert_eq!(rejected.failure.as_deref(), Some("random input 7: differs on input 7"));
    assert_eq!(best.median_ns, 630.0);
    let s = &best.speedups;
    assert!((s.vs_source.unwrap() - 1000.0 / 630.0).abs() < 1e-9);
    assert!((s.vs_best_ox.unwrap() - 900.0 / 630.0).abs() < 1e-9);
    assert_eq!(report.baselines.len(), 6);
    assert_eq!(report.baselines[0].samples_ns.len(), 9);
    // Minimisation keeps only the passes that matter.
    let minimised = report.minimised.as_ref().expect("minimised");
    assert!(minimised.passes.len() < minimised.original_len);
    // The chosen sequence (licm + gvn) is minimised, not the search's fragile fastest.
    let mut kept = minimised.passes.clone();
    kept.sort();
    kept.dedup();
    assert_eq!(kept, ["gvn", "licm"], "{:?}", minimised.passes);
    assert_eq!(minimised.validated, Some(true));
    assert_eq!(minimised.final_median_ns, Some(630.0));
    assert!(report.explanation.vs_best_ox.is_some());
    // The report is stored.
    let stored: String = store
        .database()
        .connection()
        .query_row("SELECT report FROM phase_reports", [], |row| row.get(0))
        .unwrap();
    assert!(stored.contains("\"speedups\""));
    assert!(report.to_text().contains("best sequence"));
}

#[test]
fn a_ptx_that_breaks_the_device_is_failed_and_the_search_goes_on() {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    let mut evaluator =
        FakeEvaluator { breaks_device_at: Some(3), recoverable: true, ..FakeEvaluator::default() };
    let opts = options(Strategy::Random, 40);
    let result = explore(&store, &compiler, &mut evaluator, &opts);
    // The search reached its budget in this run, with the device reopened once.
    assert_eq!(result.counts.sequences, 40);
    assert_eq!(result.counts.broke_device, 1, "{:?}", result.counts);
    assert_eq!(evaluator.recoveries.load(Ordering::SeqCst), 1);
    let validations = evaluator.validations.lock().unwrap().clone();
    assert!(validations.len() > 3, "nothing was validated after the failure: {validations:?}");
    // The culprit is stored as failed, counted invalid, and its sequences carry that verdict.
    let breaking = validations[2].clone();
    let stored = store.ptx(&text_hash(&breaking)).unwrap().expect("the culprit is stored");
    assert!(stored.verdict.reason().contains("broke the device"), "{:?}", stored.verdict);
    let culprit_sequences: Vec<_> = result
        .evaluations
        .iter()
        .filter(|e| e.ptx_hash.as_deref() == Ok(text_hash(&breaking).as_str()))
        .collect();
    assert!(!culprit_sequences.is_empty());
    assert!(culprit_sequences.iter().all(|e| matches!(e.verdict, Some(Verdict::Failed(_)))));
    assert_eq!(validations.iter().filter(|code| **code == breaking).count(), 1);
    // Later PTX were judged normally: valid ones were timed after the failure.
    assert!(result.counts.timed > 0);
    assert_eq!(
        result.counts.compiled - result.counts.duplicate_ptx,
        result.counts.invalid + result.counts.timed
    );
    // A rerun finds every answer in the store and runs nothing.
    let before = evaluator.validations.lock().unwrap().len();
    let again = explore(&store, &compiler, &mut evaluator, &opts);
    assert_eq!(again.counts.resumed, 40);
    assert_eq!(evaluator.validations.lock().unwrap().len(), before);
}

#[test]
fn a_finalist_that_breaks_the_device_in_the_final_round_is_skipped() {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    // The fragile code is the fastest; here its run on the full inputs breaks the device.
    let mut evaluator =
        BreaksOnFullInputs { inner: FakeEvaluator::default(), victim: "fragile-pass".into() };
    let run = RunOptions {
        search: options(Strategy::Random, 60),
        final_reps: 3,
        random_inputs: 2,
        finalists: 4,
        minimise: false,
        minimise_time: None,
        noise_floor: 0.02,
        workload_label: "gemm.toml".into(),
        small_label: "gemm-small.toml".into(),
    };
    let report = run_phase(&compiler, &mut evaluator, &store, &NoProgress, &run).expect("run");
    let best = report.best.as_ref().expect("another finalist wins");
    assert_eq!(best.ptx_hash, text_hash("licm+gvn"));
    let failed = report.finalists.first().expect("finalists");
    assert_ne!(failed.ptx_hash, best.ptx_hash, "the fastest finalist breaks the device");
    assert_eq!(failed.validated, Some(false));
    assert!(failed.failure.as_deref().unwrap_or("").contains("broke the device"), "{failed:?}");
}

/// Runs like [`FakeEvaluator`] except that one code breaks the device on the full inputs.
struct BreaksOnFullInputs {
    inner: FakeEvaluator,
    victim: String,
}

impl Evaluator for BreaksOnFullInputs {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn validate_small(&mut self, ptx: &CompiledPtx) -> Result<Verdict, EvaluatorError> {
        self.inner.validate_small(ptx)
    }
    fn validate_full(&mut self, ptx: &CompiledPtx, shift: u64) -> Result<Verdict, EvaluatorError> {
        if code_in(ptx).contains(&self.victim) {
            self.inner.broken = true;
            return Err(EvaluatorError("CL_OUT_OF_RESOURCES".into()));
        }
        self.inner.validate_full(ptx, shift)
    }
    fn time_ptx(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        self.inner.time_ptx(ptx, reps)
    }
    fn time_source(&mut self, reps: u32) -> Result<Vec<u64>, EvaluatorError> {
        self.inner.time_source(reps)
    }
    fn recover(&mut self) -> Result<(), EvaluatorError> {
        self.inner.recoverable = true;
        self.inner.recover()
    }
}

#[test]
fn strategies_compared_at_the_same_budget() {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator::default();
    let opts = options(Strategy::Random, 60);
    let comparison = clmap_phase::compare_strategies(
        &compiler,
        &mut evaluator,
        &store,
        &NoProgress,
        &opts,
        &[Strategy::Random, Strategy::Evolve],
    )
    .expect("comparison runs");
    assert_eq!(comparison.source_ns, Some(1000.0));
    assert_eq!(comparison.strategies.len(), 2);
    for curve in &comparison.strategies {
        // Every strategy spends exactly the budget, and the curve is read at the same places.
        assert_eq!(curve.counts.sequences, 60, "{}", curve.strategy);
        let at: Vec<u64> = curve.points.iter().map(|p| p.sequences).collect();
        assert_eq!(at, [10, 25, 50, 60], "{}", curve.strategy);
        // The best so far never gets worse.
        let speedups: Vec<f64> = curve.points.iter().map(|p| p.speedup.unwrap_or(0.0)).collect();
        assert!(speedups.windows(2).all(|w| w[0] <= w[1]), "{speedups:?}");
        // Its best sequence really runs at the last point's time.
        let best = curve.best_passes.as_ref().expect("a valid sequence");
        let ptx = compiler.compile_many(std::slice::from_ref(best)).remove(0).expect("compiles");
        let last = curve.points.last().and_then(|p| p.best_ns).expect("timed");
        assert_eq!(FakeEvaluator::time_of(&code_in(&ptx)) as f64, last);
    }
    // The evolutionary strategy opens with the random one's sequences (at least the six of
    // its random phase), answered from the database the second time.
    let resumed = comparison.strategies[1].counts.resumed;
    assert!((6..60).contains(&resumed), "{resumed}");
    assert_eq!(comparison.strategies[0].counts.resumed, 0);
    let table = comparison.to_markdown();
    assert!(table.contains("| sequences | random | evolve |"), "{table}");
    assert!(table.contains("| 60 |"), "{table}");
}

#[test]
fn shards_of_a_random_search_hold_together_what_one_search_holds() {
    let compiler = FakeCompiler::default();
    let single = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let whole =
        explore(&single, &compiler, &mut FakeEvaluator::default(), &options(Strategy::Random, 30));
    let mut from_shards = Vec::new();
    for index in 0..4 {
        let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
        let mut opts = options(Strategy::Random, 30);
        opts.shard = Some((index, 4));
        let part = explore(&store, &compiler, &mut FakeEvaluator::default(), &opts);
        // 30 sequences over 4 shards: 8, 8, 7, 7.
        assert_eq!(part.counts.sequences, if index < 2 { 8 } else { 7 });
        for evaluation in part.evaluations {
            let index: u64 = evaluation.origin.trim_start_matches("random:").parse().unwrap();
            assert_eq!(index % 4, index_of_shard(index), "{}", evaluation.origin);
            from_shards.push(evaluation);
        }
    }
    from_shards.sort_by_key(|e| e.origin.trim_start_matches("random:").parse::<u64>().unwrap());
    assert_eq!(from_shards, whole.evaluations);

    let mut opts = options(Strategy::Evolve, 30);
    opts.shard = Some((0, 2));
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let refused = Engine::new(&compiler, &mut FakeEvaluator::default(), &store, &NoProgress, 3)
        .explore(&opts, &pool())
        .err()
        .expect("evolve cannot be split by sequences");
    assert!(refused.to_string().contains("shard"), "{refused}");
}

#[test]
fn given_sequences_come_first_count_in_the_budget_and_the_stream_follows() {
    let compiler = FakeCompiler::default();
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    // licm + gvn is the fastest code there is; a sequence that finds it is rare at random.
    let given = vec![names(&["sroa", "licm", "gvn"]), names(&["dse"])];
    let mut opts = options(Strategy::Random, 2);
    opts.given = given.clone();
    let only = explore(&store, &compiler, &mut FakeEvaluator::default(), &opts);
    let origins: Vec<&str> = only.evaluations.iter().map(|e| e.origin.as_str()).collect();
    assert_eq!(origins, ["given:0", "given:1"]);
    assert_eq!(only.evaluations[0].passes, given[0]);
    let best = only.evaluations.iter().filter_map(|e| e.time()).fold(f64::INFINITY, f64::min);
    assert_eq!(Some(best), only.evaluations[0].time(), "the given licm+gvn is the fastest");

    // A larger budget: the same two first (answered from the store), then the strategy's own
    // stream from its start, exactly as a search without them proposes it.
    opts.budget = 10;
    let longer = explore(&store, &compiler, &mut FakeEvaluator::default(), &opts);
    assert_eq!(longer.evaluations[..2], only.evaluations[..]);
    assert_eq!(longer.counts.resumed, 2);
    let plain_store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let plain = explore(
        &plain_store,
        &compiler,
        &mut FakeEvaluator::default(),
        &options(Strategy::Random, 8),
    );
    let passes =
        |e: &[clmap_phase::Evaluation]| e.iter().map(|e| e.passes.clone()).collect::<Vec<_>>();
    assert_eq!(passes(&longer.evaluations[2..]), passes(&plain.evaluations));

    // They are not split into shards.
    opts.shard = Some((0, 2));
    let refused = Engine::new(&compiler, &mut FakeEvaluator::default(), &store, &NoProgress, 3)
        .explore(&opts, &pool())
        .err()
        .expect("given sequences are not sharded");
    assert!(refused.to_string().contains("--sequences"), "{refused}");
}

fn index_of_shard(index: u64) -> u64 {
    index % 4
}

#[test]
fn a_candidate_far_slower_than_the_best_is_timed_by_its_warm_up_alone() {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    // Kernels of 63-100 ms; gvn alone takes 1.8 s, far beyond three times the best.
    let mut evaluator =
        FakeEvaluator { scale: 100_000, slow_code: Some("gvn".into()), ..FakeEvaluator::default() };
    let opts = options(Strategy::Random, 200);
    let mut engine = Engine::new(&compiler, &mut evaluator, &store, &NoProgress, opts.reps);
    // The vendor's compilation as the reference, as run_phase sets it: 100 ms.
    engine.reference_ns = Some(100e6);
    let result = engine.explore(&opts, &pool()).expect("search runs");
    let c = &result.counts;
    assert!(c.screened >= 1, "the slow code must be screened: {c:?}");
    assert_eq!(c.screened, evaluator.screened_timings.load(Ordering::SeqCst) as u64);
    assert_eq!(evaluator.timings.load(Ordering::SeqCst) as u64, c.timed);
    let mut fastest = f64::MAX;
    for evaluation in &result.evaluations {
        let Ok(hash) = &evaluation.ptx_hash else { continue };
        let stored = store.ptx(hash).unwrap().expect("every compiled PTX is stored");
        if !stored.verdict.is_valid() {
            continue;
        }
        if stored.samples.len() == 1 {
            assert_eq!(hash, &text_hash("gvn"), "only the slow code is cut short");
        } else {
            assert_eq!(stored.samples.len(), 3, "the others get every repetition");
        }
        fastest = fastest.min(evaluation.time().unwrap());
    }
    // Screening never hides the winner: the fastest valid code is still found and timed in full.
    let best = result.evaluations.iter().filter_map(|e| e.time()).fold(f64::MAX, f64::min);
    assert_eq!(best, fastest);
    assert!(best < 0.7 * 100e6, "licm must win: {best}");
}

/// Set in the environment of the worker processes the tests below start: the directory where
/// each worker notes its start.
const FAKE_WORKER_DIR: &str = "CLMAP_TEST_FAKE_DEVICE_WORKER";

/// A device as NVIDIA's OpenCL behaves after an illegal address: a code with both `gvn` and
/// `bad-pass` breaks it for the whole process (every later call fails, and no new context can
/// be made in the process); `hang` never finishes. Otherwise it judges like [`FakeEvaluator`].
#[derive(Default)]
struct ProcessWideDevice {
    broken: bool,
}

impl ProcessWideDevice {
    fn deadly(code: &str) -> bool {
        code.contains("gvn") && code.contains("bad-pass")
    }

    fn check(&self) -> Result<(), EvaluatorError> {
        if self.broken {
            return Err(EvaluatorError("clFinish failed: CL_OUT_OF_RESOURCES (-5)".into()));
        }
        Ok(())
    }

    fn run(&mut self, code: &str) -> Result<(), EvaluatorError> {
        self.check()?;
        if code == "hang" {
            std::thread::sleep(Duration::from_secs(600));
        }
        if Self::deadly(code) {
            self.broken = true;
            return Err(EvaluatorError("the kernel accessed an illegal address".into()));
        }
        Ok(())
    }
}

impl Evaluator for ProcessWideDevice {
    fn describe(&self) -> String {
        "fake gpu".into()
    }
    fn validate_small(&mut self, ptx: &CompiledPtx) -> Result<Verdict, EvaluatorError> {
        let code = code_in(ptx);
        self.run(&code)?;
        Ok(FakeEvaluator::small_verdict(&code))
    }
    fn validate_full(&mut self, ptx: &CompiledPtx, shift: u64) -> Result<Verdict, EvaluatorError> {
        let code = code_in(ptx);
        self.run(&code)?;
        Ok(FakeEvaluator::full_verdict(&code, shift))
    }
    fn time_ptx(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        let code = code_in(ptx);
        self.run(&code)?;
        let t = FakeEvaluator::time_of(&code);
        Ok(Ok((0..reps).map(|i| t + u64::from(i % 2)).collect()))
    }
    fn time_source(&mut self, reps: u32) -> Result<Vec<u64>, EvaluatorError> {
        self.check()?;
        Ok(vec![1000; reps as usize])
    }
    fn recover(&mut self) -> Result<(), EvaluatorError> {
        Err(EvaluatorError("clCreateContext failed: CL_NV_ILLEGAL_ADDRESS (-9999)".into()))
    }
}

/// Not a test of its own: the body of the worker processes the tests below start (this test
/// binary run again with [`FAKE_WORKER_DIR`] set); without it, it does nothing.
#[test]
fn fake_device_worker() {
    let Some(dir) = std::env::var_os(FAKE_WORKER_DIR) else { return };
    let starts = std::path::Path::new(&dir).join("starts");
    let count = std::fs::read_to_string(&starts).map_or(0, |t| t.lines().count());
    std::fs::write(&starts, "start\n".repeat(count + 1)).expect("note the start");
    let mut device = ProcessWideDevice::default();
    let served = serve(
        &mut device,
        serde_json::json!({ "name": "fake" }),
        &mut std::io::stdin().lock(),
        &mut std::io::stdout(),
    );
    std::process::exit(if served.is_ok() { 0 } else { 1 });
}

fn fake_worker(dir: &std::path::Path, limits: WorkerLimits) -> WorkerEvaluator {
    let exe = std::env::current_exe().expect("the test binary");
    let dir = dir.to_path_buf();
    let spawn = move || {
        let mut command = std::process::Command::new(&exe);
        command
            .args(["fake_device_worker", "--exact", "--nocapture", "--test-threads=1"])
            .env(FAKE_WORKER_DIR, &dir);
        command
    };
    WorkerEvaluator::start(Box::new(spawn), limits).expect("the worker starts")
}

fn worker_starts(dir: &std::path::Path) -> usize {
    std::fs::read_to_string(dir.join("starts")).map_or(0, |t| t.lines().count())
}

#[test]
fn a_candidate_that_kills_the_device_for_the_process_costs_a_worker_not_the_search() {
    let dir = tempfile::tempdir().expect("scratch");
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    let mut evaluator = fake_worker(dir.path(), WorkerLimits::default());
    assert_eq!(evaluator.describe(), "fake gpu");
    // The search process learns its device from the worker, never opening it itself.
    assert_eq!(evaluator.device_info()["name"], "fake");
    let run = RunOptions {
        search: options(Strategy::Random, 80),
        final_reps: 3,
        random_inputs: 8,
        finalists: 4,
        minimise: false,
        minimise_time: None,
        noise_floor: 0.02,
        workload_label: "gemm.toml".into(),
        small_label: "gemm-small.toml".into(),
    };
    let report = run_phase(&compiler, &mut evaluator, &store, &NoProgress, &run).expect("run");
    // The whole budget in one run, and the best is what a device that never broke gives.
    assert_eq!(report.counts.sequences, 80);
    assert_eq!(report.stopped_by, "budget");
    let best = report.best.as_ref().expect("a sequence passes validation");
    assert_eq!(best.ptx_hash, text_hash("licm+gvn"));
    // Each deadly PTX broke one worker, was stored as failed, and cost one restart.
    let broken = report.counts.broke_device;
    assert!(broken >= 2, "the fake's deadly codes were met: {:?}", report.counts);
    assert_eq!(report.device_restart_seconds.len() as u64, broken);
    assert!(report.device_start_seconds.is_some_and(|s| s > 0.0));
    assert_eq!(worker_starts(dir.path()) as u64, 1 + broken);
    assert_eq!(report.broke_device.len() as u64, broken);
    for culprit in &report.broke_device {
        let stored = store.ptx(&culprit.ptx_hash).unwrap().expect("stored");
        assert!(stored.verdict.reason().contains("broke the device"), "{:?}", stored.verdict);
        assert!(culprit.error.contains("illegal address"), "{}", culprit.error);
        // The sequence listed compiles to the culprit, and its text is kept for study.
        let code = code_of(&culprit.passes);
        assert!(ProcessWideDevice::deadly(&code), "{code} from {:?}", culprit.passes);
        assert_eq!(text_hash(&code), culprit.ptx_hash);
        assert!(culprit.sequences >= 1);
        let text = store.broken_ptx_text(&culprit.ptx_hash).unwrap().expect("text");
        assert!(text.contains(&code), "{text}");
    }
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["broke_device"].as_array().map(Vec::len), Some(broken as usize));
    assert!(report.to_text().contains("broke the device"), "{}", report.to_text());

    // A rerun finds every culprit in the store: no worker breaks any more.
    let mut again = fake_worker(dir.path(), WorkerLimits::default());
    let starts = worker_starts(dir.path());
    let rerun = run_phase(&compiler, &mut again, &store, &NoProgress, &run).expect("rerun");
    assert_eq!(rerun.counts.resumed, 80);
    assert_eq!(rerun.counts.broke_device, 0);
    assert!(rerun.device_restart_seconds.is_empty());
    assert_eq!(worker_starts(dir.path()), starts);
    assert_eq!(rerun.broke_device, report.broke_device, "the list spans runs");
}

#[test]
fn a_worker_that_does_not_answer_in_time_is_replaced() {
    let dir = tempfile::tempdir().expect("scratch");
    let limits = WorkerLimits {
        start: Duration::from_secs(60),
        request: Duration::from_millis(1500),
        slowdown: 1,
    };
    let mut evaluator = fake_worker(dir.path(), limits);
    let started = Instant::now();
    let error = evaluator.validate_small(&ptx_for("hang")).expect_err("the worker hangs");
    assert!(error.0.contains("did not finish"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    // Until it is recovered, the evaluator says so instead of waiting again.
    assert!(evaluator.validate_small(&ptx_for("licm")).is_err());
    evaluator.recover().expect("a fresh worker");
    assert_eq!(evaluator.validate_small(&ptx_for("licm")).expect("works"), Verdict::Valid);
    assert_eq!(worker_starts(dir.path()), 2);
    assert_eq!(evaluator.start_seconds().len(), 2);
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_removal_slower_than_the_best_is_rejected_after_one_run() {
    // Kernels of tens of milliseconds: licm + gvn 63 ms, gvn alone 90 ms, licm alone 70 ms.
    let passes = names(&["sroa", "licm", "dse", "gvn", "sink", "instcombine"]);
    let chosen = text_hash("licm+gvn");
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator { scale: 100_000, ..FakeEvaluator::default() };
    let mut engine = Engine::new(&compiler, &mut evaluator, &store, &NoProgress, 3);
    let minimised = minimise(&mut engine, &passes, &chosen, 63e6, 0.02, None).expect("minimises");
    drop(engine);
    assert_eq!(minimised.passes, ["licm", "gvn"]);
    assert!(minimised.complete);
    assert_eq!(minimised.removed_same_code, 4);
    // The four no-op passes went by their PTX alone: only the two removals that change the
    // code reached the device, each validated on the small inputs and then rejected after the
    // first run of its timing (over 63 ms + 2 %), instead of 1 + 3 runs.
    assert_eq!(*evaluator.validations.lock().unwrap(), ["gvn", "licm"]);
    assert_eq!(evaluator.timings.load(Ordering::SeqCst), 2);
    assert_eq!(evaluator.screened_timings.load(Ordering::SeqCst), 2);
    assert_eq!((minimised.counts.timed, minimised.counts.screened), (2, 2));
    let gvn_alone = store.ptx(&text_hash("gvn")).unwrap().expect("stored");
    assert_eq!(gvn_alone.samples, [90_000_000], "the one run is what is stored");
    assert_eq!(evaluator.full_validations.load(Ordering::SeqCst), 0);

    // With a margin of 50 %, dropping licm (90 ms) is fast enough: timed in full, and kept.
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let mut evaluator = FakeEvaluator { scale: 100_000, ..FakeEvaluator::default() };
    let mut engine = Engine::new(&compiler, &mut evaluator, &store, &NoProgress, 3);
    let minimised = minimise(&mut engine, &passes, &chosen, 63e6, 0.5, None).expect("minimises");
    drop(engine);
    assert_eq!(minimised.passes, ["gvn"]);
    assert_eq!(minimised.removed_same_speed, 1);
    assert_eq!(evaluator.screened_timings.load(Ordering::SeqCst), 0);
    assert_eq!(store.ptx(&text_hash("gvn")).unwrap().expect("stored").samples.len(), 3);
}

#[test]
fn passes_without_effect_go_in_one_step_and_a_wrong_answer_costs_only_a_check() {
    let filler = ["instcombine", "sroa", "dse", "sink", "licm", "gvn"];
    let mut passes = names(&["sroa", "licm", "dse", "gvn"]);
    passes.extend((0..120).map(|i| filler[i % filler.len()].to_string()));
    let chosen = text_hash("licm+gvn");
    let minimised_with = |effects: Effects| {
        let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
        let compiler = FakeCompiler { effects, ..FakeCompiler::default() };
        let mut evaluator = FakeEvaluator { scale: 100_000, ..FakeEvaluator::default() };
        let mut engine = Engine::new(&compiler, &mut evaluator, &store, &NoProgress, 3);
        let minimised =
            minimise(&mut engine, &passes, &chosen, 63e6, 0.02, None).expect("minimises");
        drop(engine);
        (minimised, compiler.compiled.load(Ordering::SeqCst))
    };
    let (by_chunks, chunk_compilations) = minimised_with(Effects::Unknown);
    let (by_effect, effect_compilations) = minimised_with(Effects::Honest);
    assert_eq!(by_effect.passes, ["licm", "gvn"]);
    assert_eq!(by_effect.passes, by_chunks.passes);
    assert_eq!(by_effect.removed_same_code, passes.len() - 2);
    assert!(by_effect.complete);
    // One compilation confirms the 122 removals; the two single removals of the same-speed
    // stage are the other two.
    assert!(
        effect_compilations * 4 < chunk_compilations,
        "{effect_compilations} against {chunk_compilations}"
    );
    assert_eq!(effect_compilations, 3);

    // An answer that would drop a pass the code needs fails its check compilation; halving
    // the passes it named keeps the right ones, still far cheaper than chunks of everything.
    let (misled, misled_compilations) = minimised_with(Effects::MissesGvn);
    assert_eq!(misled.passes, by_chunks.passes);
    assert!(misled_compilations > effect_compilations);
    assert!(misled_compilations * 2 < chunk_compilations, "{misled_compilations}");
}

/// Sequences considered that were not answered by the database.
fn fresh(counts: &Counts) -> u64 {
    counts.sequences - counts.resumed
}

/// A search without minimisation whose chosen sequence is then padded with passes that do not
/// change the code (the same PTX, so the same stored verdict and time), long enough for a
/// minimisation of many batches.
fn searched_report(store: &PhaseStore) -> (PhaseReport, RunOptions) {
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator::default();
    let mut run = RunOptions {
        search: options(Strategy::Random, 60),
        final_reps: 5,
        random_inputs: 3,
        finalists: 3,
        minimise: false,
        minimise_time: None,
        noise_floor: 0.02,
        workload_label: "gemm.toml".into(),
        small_label: "gemm-small.toml".into(),
    };
    let mut report = run_phase(&compiler, &mut evaluator, store, &NoProgress, &run).expect("run");
    assert!(report.minimised.is_none());
    let best = report.best.as_mut().expect("a sequence passes validation");
    let no_ops = ["instcombine", "sroa", "dse", "sink"];
    let mut padded = Vec::new();
    for (i, pass) in best.passes.iter().enumerate() {
        padded.push(pass.clone());
        padded.extend((0..19).map(|j| no_ops[(i + j) % no_ops.len()].to_string()));
    }
    assert_eq!(code_of(&padded), code_of(&best.passes));
    best.passes = padded;
    run.minimise = true;
    (report, run)
}

#[test]
fn a_minimisation_stopped_by_its_deadline_resumes_without_redoing_its_work() {
    // Uninterrupted, for comparison.
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let (report, run) = searched_report(&store);
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator::default();
    let whole = resume_minimisation(&compiler, &mut evaluator, &store, &NoProgress, report, &run)
        .expect("minimises");
    let whole = whole.minimised.expect("minimised");
    assert!(whole.complete);
    assert_eq!(fresh(&whole.counts), compiler.compiled.load(Ordering::SeqCst) as u64);
    assert!(fresh(&whole.counts) > 10, "{:?}", whole.counts);

    // The same, stopped by its deadline after a few batches of 20 ms.
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let (report, mut run) = searched_report(&store);
    run.minimise_time = Some(Duration::from_millis(100));
    let slow = FakeCompiler { delay: Duration::from_millis(20), ..FakeCompiler::default() };
    let chosen_ns = report.best.as_ref().map(|b| b.median_ns);
    let mut evaluator = FakeEvaluator::default();
    let stopped = resume_minimisation(&slow, &mut evaluator, &store, &NoProgress, report, &run)
        .expect("minimises");
    let before = evaluator.validations.lock().unwrap().clone();
    let first = stopped.minimised.clone().expect("minimised");
    assert!(!first.complete, "the deadline stops it: {first:?}");
    assert!(fresh(&first.counts) > 0, "it did some work before: {:?}", first.counts);
    assert!(fresh(&first.counts) < fresh(&whole.counts));
    assert_eq!(first.validated, Some(true), "the same code as the chosen sequence");
    // The stored report says so too.
    let stored: PhaseReport = serde_json::from_str(&store.report().unwrap().unwrap()).unwrap();
    assert_eq!(stored.minimised.map(|m| m.complete), Some(false));

    // Resumed from that report: it replays the first run's part from the database and ends
    // where the uninterrupted one ended, having compiled only what the first did not.
    run.minimise_time = None;
    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator::default();
    let resumed =
        resume_minimisation(&compiler, &mut evaluator, &store, &NoProgress, stopped, &run)
            .expect("minimises");
    let second = resumed.minimised.as_ref().expect("minimised");
    assert!(second.complete);
    assert_eq!(second.passes, whole.passes);
    assert_eq!(second.counts.sequences, whole.counts.sequences);
    assert_eq!(fresh(&first.counts) + fresh(&second.counts), fresh(&whole.counts));
    assert!(second.counts.resumed >= fresh(&first.counts));
    assert!(compiler.compiled.load(Ordering::SeqCst) as u64 <= fresh(&second.counts) + 1);
    // Nothing the first run validated was validated again.
    let again = evaluator.validations.lock().unwrap().clone();
    assert!(again.iter().all(|code| !before.contains(code)));
    // The rest of the report is the earlier run's: no new search, no new final round.
    assert_eq!(resumed.best.as_ref().map(|b| b.median_ns), chosen_ns);
    assert_eq!(evaluator.timings.load(Ordering::SeqCst) as u64, second.counts.timed);
}

#[test]
fn the_same_code_stage_runs_without_a_device_and_the_gpu_goes_on_from_it() {
    // The whole minimisation on the GPU, for comparison.
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let (report, run) = searched_report(&store);
    let chosen = report.best.clone().expect("a chosen sequence");
    let compiler = FakeCompiler { effects: Effects::Honest, ..FakeCompiler::default() };
    let mut evaluator = FakeEvaluator::default();
    let whole =
        resume_minimisation(&compiler, &mut evaluator, &store, &NoProgress, report.clone(), &run)
            .expect("minimises")
            .minimised
            .expect("minimised");

    // The same-code stage on a machine without the GPU, with a database of its own: the
    // NoDevice evaluator fails any call, so only compiling happened.
    let cpu_context = ContextKey { device: "no device".into(), ..context() };
    let cpu_store = PhaseStore::open(Database::in_memory().unwrap(), &cpu_context).unwrap();
    let cpu = FakeCompiler { effects: Effects::Honest, ..FakeCompiler::default() };
    let shortened = minimise_same_code(&cpu, &cpu_store, &NoProgress, report, None, 0.02)
        .expect("the same-code stage runs without a device");
    let part = shortened.minimised.clone().expect("a minimised sequence");
    assert!(!part.complete, "the timed stage is still to do");
    assert_eq!(part.ptx_hash, chosen.ptx_hash);
    assert_eq!(code_of(&part.passes), code_of(&chosen.passes));
    assert!(part.passes.len() < chosen.passes.len() / 4, "{:?}", part.passes);
    assert_eq!(part.removed_same_code, chosen.passes.len() - part.passes.len());
    assert_eq!(part.counts.timed, 0);
    let kept = shortened.best.as_ref().expect("the search's chosen sequence is kept");
    assert_eq!((&kept.passes, kept.median_ns), (&chosen.passes, chosen.median_ns));

    // On the GPU with a fresh database, the resumption starts from the shortened sequence and
    // ends where the whole minimisation ended.
    let gpu_store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let gpu = FakeCompiler { effects: Effects::Honest, ..FakeCompiler::default() };
    let mut evaluator = FakeEvaluator::default();
    let finished =
        resume_minimisation(&gpu, &mut evaluator, &gpu_store, &NoProgress, shortened, &run)
            .expect("minimises")
            .minimised
            .expect("minimised");
    assert!(finished.complete);
    assert_eq!(finished.passes, whole.passes);
    assert_eq!(finished.resumed.as_ref().map(|r| r.started_from_passes), Some(part.passes.len()));
    assert_eq!(finished.original_len, chosen.passes.len());

    // A toolchain that gives other code is refused before anything is removed.
    let other = FakeCompiler::default();
    let mut wrong = shortened_report_with_other_code(&store);
    wrong.toolchain = "fake llvm 2".into();
    let error = minimise_same_code(&other, &cpu_store, &NoProgress, wrong, None, 0.02)
        .expect_err("other code");
    assert!(error.to_string().contains("not the search's"), "{error}");
}

/// A searched report whose chosen PTX hash no compiler of these tests gives.
fn shortened_report_with_other_code(store: &PhaseStore) -> PhaseReport {
    let (mut report, _) = searched_report(store);
    if let Some(best) = report.best.as_mut() {
        best.ptx_hash = text_hash("code of another toolchain");
    }
    report
}

#[test]
fn the_reports_of_earlier_campaigns_are_read_back() {
    // `--minimise-only --report` reads reports written before some fields existed.
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results/phase_original");
    // Whether each minimisation is complete changes as campaigns finish them; what a report
    // says must hold together whatever its age.
    for kernel in ["2mm", "3mm", "atax", "bicg", "corr", "covar", "gemm", "mvt", "syrk"] {
        let path = dir.join(format!("{kernel}_h100.json"));
        let text = std::fs::read_to_string(&path).expect("report");
        let report: PhaseReport =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let minimised = report.minimised.as_ref().expect("minimised");
        let best = report.best.as_ref().expect("best");
        assert_eq!(minimised.original_len, best.passes.len(), "{kernel}");
        assert!(minimised.passes.len() <= minimised.original_len, "{kernel}");
        assert!(!minimised.ptx_hash.is_empty(), "{kernel}");
    }
}

/// A report whose minimisation a deadline stopped, made with a database that is then thrown
/// away (as the campaign's GPU commands did), and what the uninterrupted minimisation ends at.
fn stopped_report_without_its_database() -> (PhaseReport, RunOptions, Minimised) {
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let (report, run) = searched_report(&store);
    let whole = resume_minimisation(
        &FakeCompiler::default(),
        &mut FakeEvaluator::default(),
        &store,
        &NoProgress,
        report,
        &run,
    )
    .expect("minimises")
    .minimised
    .expect("minimised");
    assert!(whole.complete);

    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let (report, mut run) = searched_report(&store);
    run.minimise_time = Some(Duration::from_millis(100));
    let slow = FakeCompiler { delay: Duration::from_millis(20), ..FakeCompiler::default() };
    let stopped = resume_minimisation(
        &slow,
        &mut FakeEvaluator::default(),
        &store,
        &NoProgress,
        report,
        &run,
    )
    .expect("minimises");
    run.minimise_time = None;
    (stopped, run, whole)
}

#[test]
fn a_minimisation_goes_on_from_the_report_alone_in_a_fresh_database() {
    let (stopped, run, whole) = stopped_report_without_its_database();
    let chosen = stopped.best.clone().expect("chosen");
    let first = stopped.minimised.clone().expect("minimised");
    assert!(!first.complete, "{first:?}");
    assert!(first.passes.len() < chosen.passes.len(), "it got somewhere: {first:?}");

    // A fresh database on the same (fake) device and toolchain, stopped once more by its
    // deadline, then finished with that database.
    let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
    let slow = FakeCompiler { delay: Duration::from_millis(20), ..FakeCompiler::default() };
    let mut evaluator = FakeEvaluator::default();
    let short = RunOptions { minimise_time: Some(Duration::from_millis(60)), ..run.clone() };
    let again =
        resume_minimisation(&slow, &mut evaluator, &store, &NoProgress, stopped.clone(), &short)
            .expect("goes on from the report");
    let second = again.minimised.clone().expect("minimised");
    let resumed = second.resumed.clone().expect("says it went on from the report");
    assert_eq!(resumed.device, "fake gpu");
    assert_eq!(resumed.started_from_passes, first.passes.len(), "from the report's state");
    // The reference was timed here: the chosen code and the source, interleaved, with the
    // final round's repetitions.
    let chosen_time = FakeEvaluator::time_of(&code_of(&chosen.passes));
    assert_eq!(resumed.chosen_samples_ns.len(), run.final_reps as usize);
    assert!(resumed.chosen_samples_ns.iter().all(|&t| t == chosen_time || t == chosen_time + 1));
    assert_eq!(resumed.source_samples_ns, vec![1000; run.final_reps as usize]);
    assert!(second.passes.len() <= first.passes.len());
    assert!(second.counts.sequences > first.counts.sequences, "the report's work is counted");
    // The chosen code was validated first; no search and no final round of finalists ran.
    assert_eq!(evaluator.validations.lock().unwrap().first(), Some(&code_of(&chosen.passes)));
    assert_eq!(evaluator.full_validations.load(Ordering::SeqCst), 0);

    let compiler = FakeCompiler::default();
    let mut evaluator = FakeEvaluator::default();
    let done = resume_minimisation(&compiler, &mut evaluator, &store, &NoProgress, again, &run)
        .expect("finishes");
    let last = done.minimised.clone().expect("minimised");
    assert!(last.complete, "{last:?}");
    assert_eq!(last.passes.len(), whole.passes.len(), "{:?} / {:?}", last.passes, whole.passes);
    assert_eq!(code_of(&last.passes), code_of(&chosen.passes));
    assert_eq!(last.ptx_hash, chosen.ptx_hash);
    assert_eq!(last.original_len, chosen.passes.len());
    assert_eq!(
        last.removed_same_code + last.removed_same_speed,
        chosen.passes.len() - last.passes.len(),
        "removals of every run are counted"
    );
    assert_eq!(last.validated, Some(true));
    let resumed = last.resumed.clone().expect("still says so");
    assert_eq!(last.final_median_ns, Some(resumed.chosen_median_ns), "timed like the reference");
    // The second run with this database took the first one's answers from it.
    assert!(last.counts.resumed > second.counts.resumed, "{:?}", last.counts);
    // The search's figures stay the report's.
    assert_eq!(done.counts, stopped.counts);
    assert_eq!(done.best.as_ref().map(|b| b.median_ns), Some(chosen.median_ns));
    assert_eq!(done.baselines.len(), stopped.baselines.len());
    let stored: PhaseReport = serde_json::from_str(&store.report().unwrap().unwrap()).unwrap();
    assert!(stored.minimised.is_some_and(|m| m.complete && m.resumed.is_some()));
    assert!(done.to_text().contains("resumed     from the report alone"), "{}", done.to_text());
}

#[test]
fn a_report_of_other_code_or_another_device_is_refused() {
    let (stopped, run, _) = stopped_report_without_its_database();
    let refusal = |report: PhaseReport| {
        let store = PhaseStore::open(Database::in_memory().unwrap(), &context()).unwrap();
        let compiler = FakeCompiler::default();
        let mut evaluator = FakeEvaluator::default();
        let result =
            resume_minimisation(&compiler, &mut evaluator, &store, &NoProgress, report, &run);
        assert_eq!(evaluator.timings.load(Ordering::SeqCst), 0, "refused before any timing");
        match result {
            Err(SearchError::Invalid(message)) => message,
            other => panic!("not refused: {other:?}"),
        }
    };
    // Another toolchain compiles the chosen sequence to other code.
    let mut other_code = stopped.clone();
    let best = other_code.best.as_mut().expect("chosen");
    let real_hash = best.ptx_hash.clone();
    best.ptx_hash = "0123456789abcdef".to_string();
    let message = refusal(other_code);
    assert!(message.contains("0123456789abcdef") && message.contains(&real_hash), "{message}");
    assert!(message.contains("LLVM"), "names the likely cause: {message}");
    // Another device would time the reference on other hardware.
    let mut other_device = stopped.clone();
    other_device.device = "another gpu".to_string();
    let message = refusal(other_device);
    assert!(message.contains("another gpu") && message.contains("fake gpu"), "{message}");
    // Another workload of the same kernels (GRAMSCHM at 512² has the source of 2048²).
    let mut other_workload = stopped;
    other_workload.workload = "gemm_512.toml".to_string();
    let message = refusal(other_workload);
    assert!(message.contains("gemm_512.toml"), "{message}");
}
