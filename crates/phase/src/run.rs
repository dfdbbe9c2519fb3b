//! One whole `clmap phase` run: baselines, exploration, minimisation, and the final round that
//! re-times the finalists against the baselines and re-validates the fastest on the full
//! inputs and on random inputs before reporting it (seed 003 §2.3).

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::compiler::{BaselineLevel, CompiledPtx, SequenceCompiler};
use crate::evaluator::{median, relative_iqr, Evaluator, EvaluatorError, NoDevice, Verdict};
use crate::minimise::{minimise, same_code_stage, Minimised, ResumedFromReport};
use crate::progress::Progress;
use crate::report::{
    BaselineResult, BestSequence, Explanation, FinalValidation, Finalist, PhaseReport, Speedups,
};
use crate::search::{Counts, Engine, Evaluation, SearchError, SearchOptions, SCREEN_FLOOR_NS};
use crate::sequence::sequence_hash;
use crate::store::{PhaseStore, StoredPtx};
use crate::strategy::Proposal;

/// Everything a run needs besides its parts.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The exploration.
    pub search: SearchOptions,
    /// Timed runs of each finalist and baseline in the final round (seed 003: 30).
    pub final_reps: u32,
    /// Random inputs the chosen sequence must also pass (seed 003: 30).
    pub random_inputs: u32,
    /// Distinct PTX taken from the search into the final round.
    pub finalists: usize,
    /// Minimise the best sequence.
    pub minimise: bool,
    /// How long minimisation may take, counted from its start (the result so far is kept):
    /// counting from the start of the run would let slow baselines and a search that used its
    /// whole time leave nothing for it.
    pub minimise_time: Option<Duration>,
    /// The smallest relative slowdown treated as noise when minimising.
    pub noise_floor: f64,
    /// Labels for the report.
    pub workload_label: String,
    /// The small workload's label.
    pub small_label: String,
}

/// The final round interleaves its measurements in this many rounds, so a drift of the GPU's
/// clock or temperature affects every candidate alike.
const FINAL_ROUNDS: u32 = 3;

/// A PTX or the vendor's compilation, to be timed in the final round.
enum Timed {
    Source,
    Ptx(CompiledPtx),
}

/// Runs the whole search and returns its report (also stored in the database).
pub fn run_phase(
    compiler: &dyn SequenceCompiler,
    evaluator: &mut dyn Evaluator,
    store: &PhaseStore,
    progress: &dyn Progress,
    options: &RunOptions,
) -> Result<PhaseReport, SearchError> {
    let started = Instant::now();
    let pool = compiler.pool();
    let device = evaluator.describe();
    let toolchain = compiler.describe();
    let reps = options.search.reps.max(1);

    // Baselines first, so the progress bar can show a speedup from the start.
    progress.stage("baselines", BaselineLevel::ALL.len() as u64 + 1, 0);
    let source_samples = evaluator.time_source(reps)?;
    progress.advance(1, None);
    let mut baseline_ptx: Vec<(BaselineLevel, Result<CompiledPtx, String>, Verdict)> = Vec::new();
    for level in BaselineLevel::ALL {
        let entry = match compiler.compile_baseline(level) {
            Ok(ptx) => {
                let verdict = evaluator.validate_small(&ptx)?;
                (level, Ok(ptx), verdict)
            }
            Err(failure) => (
                level,
                Err(format!("{}: {}", failure.kind.as_str(), failure.message)),
                Verdict::Failed("did not compile".to_string()),
            ),
        };
        baseline_ptx.push(entry);
        progress.advance(1, None);
    }

    let mut engine = Engine::new(compiler, evaluator, store, progress, reps);
    engine.reference_ns = median(&source_samples);
    let search_started = Instant::now();
    let exploration = engine.explore(&options.search, &pool)?;
    let search_seconds = search_started.elapsed().as_secs_f64();

    let ranked = distinct_fastest(&exploration.evaluations, options.finalists.max(1));
    // Finalists: the fastest distinct PTX of the search.
    let finalists: Vec<(Vec<String>, String, String, f64)> = ranked
        .iter()
        .map(|e| {
            (
                e.passes.clone(),
                "search".to_string(),
                ptx_hash(e).to_string(),
                e.median_ns.unwrap_or(f64::INFINITY),
            )
        })
        .collect();
    let finalist_ptx = ptx_of_finalists(&engine, compiler, &finalists);

    // The final round: every baseline and finalist timed with the same number of runs,
    // interleaved.
    progress.stage("final", (1 + baseline_ptx.len() + finalists.len()) as u64, 0);
    let mut items: Vec<Timed> = vec![Timed::Source];
    for (_, ptx, _) in &baseline_ptx {
        if let Ok(ptx) = ptx {
            items.push(Timed::Ptx(ptx.clone()));
        }
    }
    for ptx in finalist_ptx.iter().flatten() {
        items.push(Timed::Ptx(ptx.clone()));
    }
    let samples =
        time_interleaved(&mut *engine.evaluator, store, &items, options.final_reps.max(1))?;
    progress.advance(items.len() as u64, None);
    let mut sample_iter = samples.into_iter();
    let source_final = sample_iter.next().unwrap_or_else(|| Err("not timed".to_string()));
    let mut baselines = vec![BaselineResult {
        name: "source".to_string(),
        ptx_hash: None,
        verdict: Verdict::Valid,
        median_ns: source_final.as_ref().ok().and_then(|s| median(s)),
        samples_ns: source_final.clone().unwrap_or_default(),
        error: source_final.as_ref().err().cloned(),
    }];
    for (level, ptx, verdict) in &baseline_ptx {
        let timed = match ptx {
            Ok(_) => sample_iter.next().unwrap_or_else(|| Err("not timed".to_string())),
            Err(message) => Err(message.clone()),
        };
        baselines.push(BaselineResult {
            name: level.flag().to_string(),
            ptx_hash: ptx.as_ref().ok().map(|p| p.hash.clone()),
            verdict: verdict.clone(),
            median_ns: timed.as_ref().ok().and_then(|s| median(s)),
            samples_ns: timed.clone().unwrap_or_default(),
            error: timed.as_ref().err().cloned(),
        });
    }
    for baseline in &baselines {
        store.record_baseline(
            &baseline.name,
            baseline.ptx_hash.as_deref(),
            &baseline.samples_ns,
        )?;
    }

    // Finalists in order of their final time; the first that passes the final validation wins.
    let mut timed_finalists: Vec<(usize, Option<Vec<u64>>)> = Vec::new();
    for (index, ptx) in finalist_ptx.iter().enumerate() {
        let samples = match ptx {
            Some(_) => sample_iter.next().and_then(Result::ok),
            None => None,
        };
        timed_finalists.push((index, samples));
    }
    timed_finalists.sort_by(|a, b| {
        let time = |s: &Option<Vec<u64>>| s.as_deref().and_then(median).unwrap_or(f64::INFINITY);
        time(&a.1).total_cmp(&time(&b.1)).then(a.0.cmp(&b.0))
    });
    let mut report_finalists = Vec::new();
    let mut best: Option<BestSequence> = None;
    for (index, samples) in &timed_finalists {
        let Some((passes, origin, hash, search_ns)) = finalists.get(*index) else { continue };
        let final_median = samples.as_deref().and_then(median);
        let mut entry = Finalist {
            passes: passes.len(),
            origin: origin.clone(),
            ptx_hash: hash.clone(),
            search_median_ns: *search_ns,
            final_median_ns: final_median,
            validated: None,
            failure: None,
        };
        if best.is_none() {
            if let (Some(Some(ptx)), Some(time), Some(samples)) =
                (finalist_ptx.get(*index), final_median, samples.as_ref())
            {
                let validation =
                    validate_finally(&mut *engine.evaluator, store, ptx, options.random_inputs)?;
                entry.validated = Some(validation.passed());
                entry.failure = validation.first_failure.clone();
                if validation.passed() {
                    best = Some(BestSequence {
                        passes: passes.clone(),
                        origin: origin.clone(),
                        ptx_hash: hash.clone(),
                        median_ns: time,
                        samples_ns: samples.clone(),
                        validation,
                        speedups: speedups(&baselines, time),
                    });
                }
            }
        }
        report_finalists.push(entry);
    }

    // Minimise the chosen sequence (not the search's fastest, which may have failed the final
    // validation), then hold the shorter sequence to the same final checks.
    let minimised = match (&best, options.minimise) {
        (Some(chosen), true) => {
            Some(minimise_chosen(&mut engine, compiler, chosen, &finalists, options, None)?)
        }
        _ => None,
    };

    let explanation =
        explain(compiler, &baseline_ptx, &baselines, best.as_ref(), &finalists, &finalist_ptx);
    progress.finish();
    let considered = exploration.counts.sequences as f64;
    let starts = engine.evaluator.start_seconds();
    let report = PhaseReport {
        workload: options.workload_label.clone(),
        small_workload: options.small_label.clone(),
        device,
        toolchain,
        strategy: options.search.strategy.name().to_string(),
        seed: options.search.seed,
        budget: options.search.budget,
        length: options.search.length,
        pool_size: pool.len(),
        counts: exploration.counts,
        stopped_by: if exploration.stopped_by_deadline { "time" } else { "budget" }.to_string(),
        search_seconds,
        sequences_per_second: if search_seconds > 0.0 { considered / search_seconds } else { 0.0 },
        total_seconds: started.elapsed().as_secs_f64(),
        baselines,
        best,
        minimised,
        finalists: report_finalists,
        explanation,
        broke_device: store.broken()?,
        device_start_seconds: starts.first().copied(),
        device_restart_seconds: starts.iter().skip(1).copied().collect(),
    };
    if let Ok(json) = serde_json::to_string(&report) {
        store.record_report(&json)?;
    }
    Ok(report)
}

/// Finishes the minimisation of an earlier run's report: its chosen sequence is minimised again
/// from the start with the same margin, which replays from the store everything the earlier
/// run (or runs) did without compiling, validating or timing it again, and goes on from where
/// they stopped. No search and no final round run; the report comes back with its `minimised`
/// part replaced (and is stored). `options.minimise_time` counts from the start of this call.
/// When the database lacks the chosen PTX (the search's database was not kept), the
/// minimisation goes on from the report alone instead (see [`resume_from_report`]).
pub fn resume_minimisation(
    compiler: &dyn SequenceCompiler,
    evaluator: &mut dyn Evaluator,
    store: &PhaseStore,
    progress: &dyn Progress,
    mut report: PhaseReport,
    options: &RunOptions,
) -> Result<PhaseReport, SearchError> {
    let chosen = chosen_sequence(&report)?;
    // The search's database answers everything the earlier runs measured; without it (or
    // once a resumption has gone on from the report alone) the report is all there is.
    let in_store = store.ptx(&chosen.ptx_hash)?.is_some_and(|p| p.verdict.is_valid());
    let from_report = report.minimised.as_ref().is_some_and(|m| m.resumed.is_some());
    if !in_store || from_report {
        return resume_from_report(compiler, evaluator, store, progress, report, &chosen, options);
    }
    let started = Instant::now();
    let reps = options.search.reps.max(1);
    let mut engine = Engine::new(compiler, evaluator, store, progress, reps);
    engine.reference_ns =
        report.baselines.iter().find(|b| b.name == "source").and_then(|b| b.median_ns);
    let finalists: Vec<(Vec<String>, String, String, f64)> = report
        .finalists
        .iter()
        .map(|f| (Vec::new(), f.origin.clone(), f.ptx_hash.clone(), f.search_median_ns))
        .collect();
    // The earlier run's margin, so that the replay takes the same decisions.
    let earlier_margin = report.minimised.as_ref().map(|m| m.noise_margin);
    let minimised =
        minimise_chosen(&mut engine, compiler, &chosen, &finalists, options, earlier_margin)?;
    progress.finish();
    report.minimised = Some(minimised);
    report.total_seconds += started.elapsed().as_secs_f64();
    report.device_restart_seconds.extend(engine.evaluator.start_seconds().iter().skip(1));
    report.broke_device = store.broken()?;
    if let Ok(json) = serde_json::to_string(&report) {
        store.record_report(&json)?;
    }
    Ok(report)
}

/// Goes on with a report's minimisation when the database lacks the search's measurements (the
/// search ran with a database that was not kept), or after an earlier such resumption. The
/// report is all there is, so what the minimisation needs is rebuilt from it: the chosen
/// sequence is compiled again and must give the report's PTX (another toolchain gives other
/// code, whose report figures would not apply), passes the small inputs, and is timed with the
/// vendor's compilation, interleaved as in the final round, as the reference every removal is
/// compared against on this device. Minimisation then goes on from the report's minimised
/// sequence (when it still gives its PTX and is not slower than that reference) with the
/// report's noise margin; the search's figures in the report are kept as they were.
fn resume_from_report(
    compiler: &dyn SequenceCompiler,
    evaluator: &mut dyn Evaluator,
    store: &PhaseStore,
    progress: &dyn Progress,
    mut report: PhaseReport,
    chosen: &BestSequence,
    options: &RunOptions,
) -> Result<PhaseReport, SearchError> {
    let started = Instant::now();
    let device = evaluator.describe();
    if device != report.device {
        return Err(SearchError::Invalid(format!(
            "the report was measured on `{}` and this device is `{device}`: without the \
             search's database the chosen sequence is timed again as the reference, which \
             needs the GPU model and driver of the search",
            report.device
        )));
    }
    let file_name = |label: &str| Path::new(label).file_name().map(|n| n.to_os_string());
    if file_name(&report.workload) != file_name(&options.workload_label) {
        return Err(SearchError::Invalid(format!(
            "the report is of the workload {} and this command's is {}: give the workloads \
             the report was made with",
            report.workload, options.workload_label
        )));
    }
    let mismatch = |what: String| {
        SearchError::Invalid(format!(
            "{what}; the report's chosen PTX is {}. The toolchain differs from the search's \
             (most likely another LLVM version or libclc, or another --sm; the report's: {}; \
             this one: {}), or the workload's source does: the report's figures are of other \
             code, so its minimisation cannot go on here",
            chosen.ptx_hash,
            report.toolchain,
            compiler.describe()
        ))
    };
    let ptx = match compiler.compile_many(std::slice::from_ref(&chosen.passes)).into_iter().next() {
        Some(Ok(ptx)) if ptx.hash == chosen.ptx_hash => ptx,
        Some(Ok(ptx)) => {
            return Err(mismatch(format!(
                "the report's chosen sequence compiles here to PTX {}",
                ptx.hash
            )))
        }
        Some(Err(failure)) => {
            return Err(mismatch(format!(
                "the report's chosen sequence does not compile here ({}: {})",
                failure.kind.as_str(),
                failure.message
            )))
        }
        None => return Err(mismatch("the report's chosen sequence was not compiled".to_string())),
    };
    let validated = evaluator.validate_small(&ptx);
    let verdict = survive(evaluator, store, &ptx, validated, Verdict::Failed)?;
    if !verdict.is_valid() {
        return Err(SearchError::Invalid(format!(
            "the report's chosen PTX {} fails on the small inputs on this device ({}): give \
             the small workload the report was made with (`--small`)",
            chosen.ptx_hash,
            verdict.reason()
        )));
    }

    // The reference: the chosen PTX and the vendor's compilation, timed alike.
    progress.stage("reference", 2, 0);
    let items = [Timed::Source, Timed::Ptx(ptx.clone())];
    let mut timed =
        time_interleaved(evaluator, store, &items, options.final_reps.max(1))?.into_iter();
    let not_timed = || Err("not timed".to_string());
    let source_samples = timed.next().unwrap_or_else(not_timed).map_err(|reason| {
        SearchError::Invalid(format!("the vendor's compilation could not be timed: {reason}"))
    })?;
    let chosen_samples = timed.next().unwrap_or_else(not_timed).map_err(|reason| {
        SearchError::Invalid(format!(
            "the report's chosen PTX {} could not be timed on this device: {reason}",
            chosen.ptx_hash
        ))
    })?;
    let Some(chosen_ns) = median(&chosen_samples) else {
        return Err(SearchError::Invalid("the chosen PTX gave no time".to_string()));
    };
    progress.advance(2, None);
    // Stored as the search stores its answers, so that a later resumption with this database
    // finds them.
    store.record_sequence(
        &sequence_hash(&chosen.passes),
        &chosen.passes,
        "report",
        &Ok(ptx.hash.clone()),
    )?;
    store.record_ptx(
        &ptx.hash,
        &StoredPtx { verdict: Verdict::Valid, samples: chosen_samples.clone() },
    )?;

    let earlier = report.minimised.clone();
    let margin = earlier
        .as_ref()
        .map(|m| m.noise_margin)
        .unwrap_or_else(|| options.noise_floor.max(2.0 * relative_iqr(&chosen_samples)));
    let limit = chosen_ns * (1.0 + margin.max(0.0));
    let mut engine = Engine::new(compiler, evaluator, store, progress, options.search.reps);
    engine.reference_ns = median(&source_samples);
    engine.ptx_texts.insert(ptx.hash.clone(), ptx);
    let mut counts = Counts::default();

    // Where to go on from: the report's minimised sequence, when it still gives its PTX and
    // that PTX is valid here and not slower than the reference; else the chosen sequence.
    let mut start = (chosen.passes.clone(), chosen.ptx_hash.clone(), chosen_ns, false);
    if let Some(m) = earlier.as_ref().filter(|m| !m.passes.is_empty() && m.passes != chosen.passes)
    {
        let proposal = Proposal { passes: m.passes.clone(), origin: "minimise".to_string() };
        let outcome = engine.compile_only(&[proposal], &mut counts)?;
        if outcome.first().is_some_and(|o| o.as_deref() == Ok(m.ptx_hash.as_str())) {
            if m.ptx_hash == chosen.ptx_hash {
                start = (m.passes.clone(), m.ptx_hash.clone(), chosen_ns, true);
            } else {
                engine.screen_override_ns = Some(limit.max(SCREEN_FLOOR_NS).ceil() as u64);
                let judged = engine.judge_ptx(&m.passes, &m.ptx_hash, &mut counts);
                engine.screen_override_ns = None;
                if let (Verdict::Valid, Some(time)) = judged? {
                    if time <= limit {
                        start = (m.passes.clone(), m.ptx_hash.clone(), time, true);
                    }
                }
            }
        }
    }
    let (start_passes, start_hash, start_ns, from_earlier) = start;

    engine.progress.stage("minimise", start_passes.len() as u64, 0);
    let deadline = options.minimise_time.map(|time| Instant::now() + time);
    let mut minimised =
        minimise(&mut engine, &start_passes, &start_hash, chosen_ns, margin, deadline)?;
    if minimised.ptx_hash == start_hash {
        minimised.median_ns = start_ns;
    }
    minimised.original_len = chosen.passes.len();
    if let Some(m) = earlier.as_ref().filter(|_| from_earlier) {
        minimised.removed_same_code += m.removed_same_code;
        minimised.removed_same_speed += m.removed_same_speed;
    }
    let mut all_counts = earlier.map(|m| m.counts).unwrap_or_default();
    for part in [&counts, &minimised.counts] {
        add_counts(&mut all_counts, part);
    }
    minimised.counts = all_counts;
    check_minimised(&mut engine, compiler, &mut minimised, chosen, chosen_ns, options)?;
    minimised.resumed = Some(ResumedFromReport {
        device,
        started_from_passes: start_passes.len(),
        source_median_ns: median(&source_samples),
        source_samples_ns: source_samples,
        chosen_median_ns: chosen_ns,
        chosen_samples_ns: chosen_samples,
    });
    progress.finish();
    report.minimised = Some(minimised);
    report.total_seconds += started.elapsed().as_secs_f64();
    report.device_restart_seconds.extend(engine.evaluator.start_seconds().iter().skip(1));
    // The report's candidates that broke the device, and this resumption's.
    for broken in store.broken()? {
        if !report.broke_device.iter().any(|b| b.ptx_hash == broken.ptx_hash) {
            report.broke_device.push(broken);
        }
    }
    if let Ok(json) = serde_json::to_string(&report) {
        store.record_report(&json)?;
    }
    Ok(report)
}

/// Minimisation's same-code stage alone, on a report, with no device: it only compiles, so it
/// can run on any machine with the toolchain (a CPU node) and leave the GPU only the timed
/// stage. It goes on from the report's minimised sequence (else the chosen one), which must
/// compile here to the PTX the report gives it (else the toolchain differs and nothing would
/// carry over), and replaces it with the shorter sequence of the same PTX. The minimisation
/// stays incomplete: `--minimise-only` on the report's GPU goes on from there.
pub fn minimise_same_code(
    compiler: &dyn SequenceCompiler,
    store: &PhaseStore,
    progress: &dyn Progress,
    mut report: PhaseReport,
    deadline: Option<Instant>,
    noise_floor: f64,
) -> Result<PhaseReport, SearchError> {
    let chosen = chosen_sequence(&report)?;
    let started = Instant::now();
    let earlier = report.minimised.clone();
    let (start, hash) = match &earlier {
        Some(m) if !m.passes.is_empty() => (m.passes.clone(), m.ptx_hash.clone()),
        _ => (chosen.passes.clone(), chosen.ptx_hash.clone()),
    };
    match compiler.compile_many(std::slice::from_ref(&start)).into_iter().next() {
        Some(Ok(ptx)) if ptx.hash == hash => {}
        other => {
            let got = match other {
                Some(Ok(ptx)) => format!("compiles here to PTX {}", ptx.hash),
                Some(Err(failure)) => {
                    format!(
                        "does not compile here ({}: {})",
                        failure.kind.as_str(),
                        failure.message
                    )
                }
                None => "was not compiled".to_string(),
            };
            return Err(SearchError::Invalid(format!(
                "the report's sequence of PTX {hash} {got}: this toolchain is not the search's \
                 (the report's: {}; this one: {}), so its removals would not carry over",
                report.toolchain,
                compiler.describe()
            )));
        }
    }
    let mut evaluator = NoDevice;
    let mut engine = Engine::new(compiler, &mut evaluator, store, progress, 1);
    let mut current = start.clone();
    let mut counts = Counts::default();
    let out_of_time = || deadline.is_some_and(|d| Instant::now() >= d);
    progress.stage("minimise (same code)", start.len() as u64, 0);
    same_code_stage(&mut engine, &mut current, &hash, &mut counts, &out_of_time)?;
    progress.finish();
    let removed = start.len() - current.len();
    let minimised = match earlier {
        Some(mut m) => {
            m.passes = current;
            m.removed_same_code += removed;
            let mut all = m.counts.clone();
            add_counts(&mut all, &counts);
            m.counts = all;
            m.complete = false;
            m
        }
        None => Minimised {
            original_len: chosen.passes.len(),
            passes: current,
            ptx_hash: hash,
            median_ns: chosen.median_ns,
            removed_same_code: removed,
            removed_same_speed: 0,
            noise_margin: noise_floor,
            counts,
            complete: false,
            validated: None,
            final_median_ns: None,
            resumed: None,
        },
    };
    report.minimised = Some(minimised);
    report.total_seconds += started.elapsed().as_secs_f64();
    if let Ok(json) = serde_json::to_string(&report) {
        store.record_report(&json)?;
    }
    Ok(report)
}

/// The report's chosen sequence, which minimisation starts from.
fn chosen_sequence(report: &PhaseReport) -> Result<BestSequence, SearchError> {
    report.best.clone().ok_or_else(|| {
        SearchError::Invalid(
            "the report has no chosen sequence (no finalist passed the final validation): there \
             is nothing to minimise"
                .to_string(),
        )
    })
}

/// Adds one part's counts to a total.
fn add_counts(total: &mut Counts, part: &Counts) {
    total.sequences += part.sequences;
    total.resumed += part.resumed;
    total.compiled += part.compiled;
    total.crashed += part.crashed;
    total.timed_out += part.timed_out;
    total.compile_failed += part.compile_failed;
    total.duplicate_ptx += part.duplicate_ptx;
    total.invalid += part.invalid;
    total.timed += part.timed;
    total.screened += part.screened;
    total.broke_device += part.broke_device;
}

fn ptx_hash(evaluation: &Evaluation) -> &str {
    evaluation.ptx_hash.as_deref().unwrap_or("")
}

/// Minimises the chosen sequence; a minimised sequence with other code than the chosen one is
/// validated on the full and random inputs and timed like the finalists were. `margin` is
/// the noise margin (by default the noise floor or twice the chosen PTX's measured spread).
fn minimise_chosen(
    engine: &mut Engine<'_>,
    compiler: &dyn SequenceCompiler,
    chosen: &BestSequence,
    finalists: &[(Vec<String>, String, String, f64)],
    options: &RunOptions,
    margin: Option<f64>,
) -> Result<Minimised, SearchError> {
    let search_ns =
        finalists.iter().find(|f| f.2 == chosen.ptx_hash).map_or(chosen.median_ns, |f| f.3);
    let store = engine.store;
    let samples = store.ptx(&chosen.ptx_hash)?.map(|p| p.samples).unwrap_or_default();
    let margin = margin.unwrap_or_else(|| options.noise_floor.max(2.0 * relative_iqr(&samples)));
    engine.progress.stage("minimise", chosen.passes.len() as u64, 0);
    let mut minimised = minimise(
        engine,
        &chosen.passes,
        &chosen.ptx_hash,
        search_ns,
        margin,
        options.minimise_time.map(|time| Instant::now() + time),
    )?;
    check_minimised(engine, compiler, &mut minimised, chosen, chosen.median_ns, options)?;
    Ok(minimised)
}

/// Holds a minimised sequence whose code differs from the chosen one's to the final
/// validation (full, random and aliased inputs) and times it like the finalists; one with the
/// chosen code inherits the chosen sequence's validation and `chosen_ns`.
fn check_minimised(
    engine: &mut Engine<'_>,
    compiler: &dyn SequenceCompiler,
    minimised: &mut Minimised,
    chosen: &BestSequence,
    chosen_ns: f64,
    options: &RunOptions,
) -> Result<(), SearchError> {
    let store = engine.store;
    if minimised.ptx_hash == chosen.ptx_hash {
        minimised.validated = Some(true);
        minimised.final_median_ns = Some(chosen_ns);
        return Ok(());
    }
    let ptx = match engine.ptx_text(&minimised.ptx_hash).cloned() {
        Some(ptx) => Some(ptx),
        None => compiler
            .compile_many(std::slice::from_ref(&minimised.passes))
            .into_iter()
            .next()
            .and_then(Result::ok)
            .filter(|p| p.hash == minimised.ptx_hash),
    };
    let Some(ptx) = ptx else {
        minimised.validated = Some(false);
        return Ok(());
    };
    let validation = validate_finally(&mut *engine.evaluator, store, &ptx, options.random_inputs)?;
    minimised.validated = Some(validation.passed());
    if validation.passed() {
        let timed = engine.evaluator.time_ptx(&ptx, options.final_reps.max(1))?;
        minimised.final_median_ns = timed.ok().as_deref().and_then(median);
    }
    Ok(())
}

/// The fastest valid evaluations, one per distinct PTX, fastest first (ties by order).
fn distinct_fastest(evaluations: &[Evaluation], limit: usize) -> Vec<Evaluation> {
    let mut timed: Vec<(usize, &Evaluation)> =
        evaluations.iter().enumerate().filter(|(_, e)| e.time().is_some()).collect();
    timed.sort_by(|a, b| {
        let ta = a.1.time().unwrap_or(f64::INFINITY);
        let tb = b.1.time().unwrap_or(f64::INFINITY);
        ta.total_cmp(&tb).then(a.0.cmp(&b.0))
    });
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (_, evaluation) in timed {
        if seen.insert(ptx_hash(evaluation).to_string()) {
            out.push(evaluation.clone());
        }
        if out.len() == limit {
            break;
        }
    }
    out
}

/// The PTX text of each finalist: from this run's compilations, or compiled again (a resumed
/// run found their answers in the database and never compiled them).
fn ptx_of_finalists(
    engine: &Engine<'_>,
    compiler: &dyn SequenceCompiler,
    finalists: &[(Vec<String>, String, String, f64)],
) -> Vec<Option<CompiledPtx>> {
    let missing: Vec<usize> = finalists
        .iter()
        .enumerate()
        .filter(|(_, f)| engine.ptx_text(&f.2).is_none())
        .map(|(i, _)| i)
        .collect();
    let sequences: Vec<Vec<String>> =
        missing.iter().filter_map(|&i| finalists.get(i).map(|f| f.0.clone())).collect();
    let mut recompiled =
        if sequences.is_empty() { Vec::new() } else { compiler.compile_many(&sequences) }
            .into_iter();
    let mut out: Vec<Option<CompiledPtx>> =
        finalists.iter().map(|f| engine.ptx_text(&f.2).cloned()).collect();
    for &index in &missing {
        if let (Some(Ok(ptx)), Some(slot), Some(finalist)) =
            (recompiled.next(), out.get_mut(index), finalists.get(index))
        {
            // A toolchain that changed underneath would give other code: only the same PTX
            // inherits the stored results.
            if ptx.hash == finalist.2 {
                *slot = Some(ptx);
            }
        }
    }
    out
}

/// Times every item `reps` times in total, in interleaved rounds.
fn time_interleaved(
    evaluator: &mut dyn Evaluator,
    store: &PhaseStore,
    items: &[Timed],
    reps: u32,
) -> Result<Vec<Result<Vec<u64>, String>>, SearchError> {
    let rounds = FINAL_ROUNDS.min(reps).max(1);
    let mut results: Vec<Result<Vec<u64>, String>> = items.iter().map(|_| Ok(Vec::new())).collect();
    for round in 0..rounds {
        // Spread the repetitions: earlier rounds take the remainder.
        let this_round = reps / rounds + u32::from(round < reps % rounds);
        for (item, result) in items.iter().zip(results.iter_mut()) {
            let Ok(samples) = result else { continue };
            let measured = match item {
                Timed::Source => Ok(evaluator.time_source(this_round)?),
                Timed::Ptx(ptx) => {
                    let result = evaluator.time_ptx(ptx, this_round);
                    survive(evaluator, store, ptx, result, |reason| Err(Verdict::Failed(reason)))?
                        .map_err(|v| v.reason().to_string())
                }
            };
            match measured {
                Ok(more) => samples.extend(more),
                Err(reason) => *result = Err(reason),
            }
        }
    }
    Ok(results)
}

/// A device failure during the final round fails the PTX that caused it (recorded with the
/// candidates that broke the device) when the evaluator can reopen the device; otherwise it
/// stops the run.
fn survive<T>(
    evaluator: &mut dyn Evaluator,
    store: &PhaseStore,
    ptx: &CompiledPtx,
    result: Result<T, EvaluatorError>,
    failed: impl FnOnce(String) -> T,
) -> Result<T, SearchError> {
    let broken = match result {
        Ok(value) => return Ok(value),
        Err(broken) => broken,
    };
    store.record_broken(&ptx.hash, &broken.0, &ptx.text)?;
    match evaluator.recover() {
        Ok(()) => Ok(failed(format!("the kernel broke the device: {broken}"))),
        Err(unrecovered) => Err(SearchError::Device(EvaluatorError(format!(
            "{broken}; the device could not be reopened ({unrecovered})"
        )))),
    }
}

/// Seed 003's final check: the full inputs, then `random_inputs` other inputs, then the
/// aliased layouts the workload allows.
fn validate_finally(
    evaluator: &mut dyn Evaluator,
    store: &PhaseStore,
    ptx: &CompiledPtx,
    random_inputs: u32,
) -> Result<FinalValidation, SearchError> {
    let full = evaluator.validate_full(ptx, 0);
    let full_inputs = survive(evaluator, store, ptx, full, Verdict::Failed)?;
    let mut validation = FinalValidation {
        full_inputs,
        random_inputs,
        random_passed: 0,
        aliased_inputs: Vec::new(),
        aliased_passed: 0,
        first_failure: None,
    };
    if !validation.full_inputs.is_valid() {
        validation.first_failure =
            Some(format!("full inputs: {}", validation.full_inputs.reason()));
        return Ok(validation);
    }
    for shift in 1..=u64::from(random_inputs) {
        let result = evaluator.validate_full(ptx, shift);
        let verdict = survive(evaluator, store, ptx, result, Verdict::Failed)?;
        if verdict.is_valid() {
            validation.random_passed += 1;
        } else {
            validation.first_failure = Some(format!("random input {shift}: {}", verdict.reason()));
            return Ok(validation);
        }
    }
    let result = evaluator.validate_aliased(ptx);
    let aliased = survive(evaluator, store, ptx, result, |reason| {
        vec![("aliased".to_string(), Verdict::Failed(reason))]
    })?;
    for (label, verdict) in aliased {
        validation.aliased_inputs.push(label.clone());
        if verdict.is_valid() {
            validation.aliased_passed += 1;
        } else if validation.first_failure.is_none() {
            validation.first_failure =
                Some(format!("aliased inputs {label}: {}", verdict.reason()));
        }
    }
    Ok(validation)
}

fn speedups(baselines: &[BaselineResult], best_ns: f64) -> Speedups {
    let time_of = |name: &str| baselines.iter().find(|b| b.name == name).and_then(|b| b.median_ns);
    let ratio = |base: Option<f64>| base.filter(|_| best_ns > 0.0).map(|b| b / best_ns);
    let best_ox = baselines
        .iter()
        .filter(|b| matches!(b.name.as_str(), "-O1" | "-O2" | "-O3" | "-Os"))
        .filter(|b| b.verdict.is_valid())
        .filter_map(|b| b.median_ns.map(|t| (b.name.clone(), t)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    Speedups {
        vs_source: ratio(time_of("source")),
        vs_o0: ratio(time_of("-O0")),
        vs_best_ox: ratio(best_ox.as_ref().map(|b| b.1)),
        best_ox: best_ox.map(|b| b.0),
    }
}

fn explain(
    compiler: &dyn SequenceCompiler,
    baseline_ptx: &[(BaselineLevel, Result<CompiledPtx, String>, Verdict)],
    baselines: &[BaselineResult],
    best: Option<&BestSequence>,
    finalists: &[(Vec<String>, String, String, f64)],
    finalist_ptx: &[Option<CompiledPtx>],
) -> Explanation {
    let Some(best) = best else { return Explanation::default() };
    let Some(best_ptx) = finalists
        .iter()
        .zip(finalist_ptx)
        .find(|(f, _)| f.2 == best.ptx_hash)
        .and_then(|(_, p)| p.as_ref())
    else {
        return Explanation::default();
    };
    let level_ptx = |flag: &str| {
        baseline_ptx
            .iter()
            .find(|(level, _, _)| level.flag() == flag)
            .and_then(|(_, p, _)| p.as_ref().ok())
    };
    let best_ox_flag = speedups(baselines, best.median_ns).best_ox;
    let best_ox_ptx = best_ox_flag.as_deref().and_then(level_ptx);
    let o0_ptx = level_ptx("-O0");
    Explanation {
        vs_best_ox: best_ox_ptx.and_then(|b| compiler.explain_difference(b, best_ptx)),
        vs_o0: o0_ptx.and_then(|b| compiler.explain_difference(b, best_ptx)),
        best_resources: compiler.resources(best_ptx),
        best_ox_resources: best_ox_ptx.and_then(|p| compiler.resources(p)),
        o0_resources: o0_ptx.and_then(|p| compiler.resources(p)),
        best_summary: compiler.summary(best_ptx),
        best_ox_summary: best_ox_ptx.and_then(|p| compiler.summary(p)),
        o0_summary: o0_ptx.and_then(|p| compiler.summary(p)),
    }
}
