//! Minimising the best sequence: drop every pass whose removal does not slow the kernel, as
//! seed 003's Table 1 reports its sequences.
//!
//! Two stages keep the device out of most of the work:
//! 1. *Same code.* A pass whose removal leaves the PTX byte-for-byte the same (by hash) cannot
//!    change the time, so it goes without a measurement: this stage only compiles, and never
//!    validates or times anything. The passes that change nothing where they stand are tried
//!    first, all together: the compiler finds them by running the sequence one pass at a time
//!    (one `opt` run per pass, far cheaper than one compilation per pass). Running passes one
//!    by one is close to, but not exactly, running them as one pipeline (cached analyses differ),
//!    so their removal is confirmed by compiling and, where the code changed, split in halves
//!    as in delta debugging. Then chunks of any passes are tried, halving the chunk size, with
//!    every chunk of a round compiled in one parallel batch; of the removals that each keep the
//!    code, the longest run that still keeps it together is taken (those runs are one batch too).
//!    Most of a 256-pass random sequence disappears this way.
//! 2. *Same speed.* Each remaining pass is removed in turn (the removals compiled together in
//!    one parallel batch). A removal that leaves the code the same goes at once; one that
//!    changes it is validated on the small inputs and timed, and
//!    kept when it is valid and not slower than the best time by more than the noise margin.
//!    Timing stops after the discarded first run when that run alone is over the limit (the
//!    best time plus the margin, never below [`SCREEN_FLOOR_NS`], as in the search's
//!    screening): such a removal is rejected after one run instead of `reps + 1`. Every
//!    comparison is against the original best time, so small losses cannot accumulate.
//!
//! Every answer goes to the store, and both stages depend only on the stored answers (and on
//! the one-pass-at-a-time runs, which the same toolchain repeats exactly), so a
//! minimisation stopped by its deadline replays in a later run up to where it stopped without
//! compiling, validating or timing anything again, and goes on from there.

use std::collections::VecDeque;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::compiler::CompileFailureKind;
use crate::search::{Counts, Engine, SearchError, SCREEN_FLOOR_NS};
use crate::strategy::Proposal;

/// Rounds of dropping the passes without effect (each round after the first only finds the
/// passes whose work a dropped pass's absence undid).
const MAX_NO_EFFECT_ROUNDS: usize = 4;
/// Rounds per chunk size in the same-code stage (each round removes at least one chunk).
const MAX_ROUNDS_PER_LEVEL: usize = 16;
/// The same-speed stage measures at most this many single removals (those that leave the
/// code the same cost nothing and are not counted).
const MAX_TIMED_REMOVALS: usize = 96;

/// What minimisation did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Minimised {
    /// The sequence minimisation started from.
    pub original_len: usize,
    /// The minimised sequence.
    pub passes: Vec<String>,
    /// Its PTX hash.
    pub ptx_hash: String,
    /// Its median time in the search's timing (ns).
    pub median_ns: f64,
    /// Passes removed because the PTX stayed the same.
    pub removed_same_code: usize,
    /// Passes removed because the kernel was not slower without them.
    pub removed_same_speed: usize,
    /// The relative margin that counted as "not slower".
    pub noise_margin: f64,
    /// Sequences compiled or looked up while minimising.
    pub counts: Counts,
    /// False when the time limit stopped minimisation before it was done.
    pub complete: bool,
    /// Whether the minimised sequence passed the final validation (full and random inputs);
    /// `None` when not checked.
    pub validated: Option<bool>,
    /// Its median time in the final round (ns).
    pub final_median_ns: Option<f64>,
    /// Set when `--minimise-only` went on from the report alone (its database lacked the
    /// search's measurements): the times every removal was compared against came from that
    /// resumption, not from the search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed: Option<ResumedFromReport>,
}

/// How a minimisation went on from a report without the search's database: the chosen
/// sequence compiled again to the report's PTX, and it and the vendor's compilation timed
/// again on this device, interleaved as in the search's final round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResumedFromReport {
    /// The device of the resumption (the report's, or the resumption is refused).
    pub device: String,
    /// The passes of the sequence minimisation went on from (the report's minimised one when
    /// it still compiled to its PTX and was not slower, else the chosen one).
    pub started_from_passes: usize,
    /// The median of the vendor's compilation in the resumption's timing (ns).
    pub source_median_ns: Option<f64>,
    /// Its samples.
    pub source_samples_ns: Vec<u64>,
    /// The median of the chosen PTX in the resumption's timing (ns): the reference every
    /// removal was compared against.
    pub chosen_median_ns: f64,
    /// Its samples.
    pub chosen_samples_ns: Vec<u64>,
}

/// Minimises `passes`, whose PTX hash is `ptx_hash` and whose median time is `median_ns`.
/// `noise_margin` is the relative slowdown still counted as "not slower".
pub fn minimise(
    engine: &mut Engine<'_>,
    passes: &[String],
    ptx_hash: &str,
    median_ns: f64,
    noise_margin: f64,
    deadline: Option<Instant>,
) -> Result<Minimised, SearchError> {
    let out_of_time = || deadline.is_some_and(|d| Instant::now() >= d);
    let mut counts = Counts::default();
    let mut current: Vec<String> = passes.to_vec();
    let mut current_hash = ptx_hash.to_string();
    let mut current_ns = median_ns;
    let original_len = passes.len();

    // Stage 1: remove the passes that change nothing where they stand, then chunks of any
    // passes that do not change the code.
    same_code_stage(engine, &mut current, &current_hash, &mut counts, &out_of_time)?;
    let removed_same_code = original_len - current.len();

    // Stage 2: remove passes whose absence does not slow the kernel.
    let limit = median_ns * (1.0 + noise_margin.max(0.0));
    let screen_ns = limit.max(SCREEN_FLOOR_NS).ceil() as u64;
    let mut removed_same_speed = 0;
    let mut position = 0;
    let mut measured = 0;
    // The removals from `position` on, compiled in one parallel batch; compiled again only
    // after a removal is kept (the sequence changed).
    let mut outcomes: VecDeque<Result<String, CompileFailureKind>> = VecDeque::new();
    while position < current.len()
        && current.len() > 1
        && measured < MAX_TIMED_REMOVALS
        && !out_of_time()
    {
        if outcomes.is_empty() {
            let candidates: Vec<Proposal> = (position..current.len())
                .map(|at| Proposal { passes: without(&current, at, 1), origin: "minimise".into() })
                .collect();
            outcomes = engine.compile_only(&candidates, &mut counts)?.into();
        }
        let shorter = without(&current, position, 1);
        let accepted = match outcomes.pop_front().unwrap_or(Err(CompileFailureKind::Failed)) {
            Ok(hash) if hash == current_hash => Some((hash, current_ns)),
            Ok(hash) => {
                measured += 1;
                engine.screen_override_ns = Some(screen_ns);
                let judged = engine.judge_ptx(&shorter, &hash, &mut counts);
                engine.screen_override_ns = None;
                match judged? {
                    (_, Some(time)) if time <= limit => {
                        removed_same_speed += 1;
                        Some((hash, time))
                    }
                    _ => None,
                }
            }
            Err(_) => None,
        };
        match accepted {
            Some((hash, time)) => {
                current = shorter;
                current_hash = hash;
                current_ns = time;
                outcomes.clear();
            }
            None => position += 1,
        }
    }
    Ok(Minimised {
        original_len,
        passes: current,
        ptx_hash: current_hash,
        median_ns: current_ns,
        removed_same_code,
        removed_same_speed,
        noise_margin,
        counts,
        complete: !out_of_time(),
        validated: None,
        final_median_ns: None,
        resumed: None,
    })
}

/// The same-code stage: removes from `current` every pass it can without changing its PTX
/// `hash`, compiling only (the engine's evaluator is never called). Stops early when
/// `out_of_time` says so.
pub fn same_code_stage(
    engine: &mut Engine<'_>,
    current: &mut Vec<String>,
    hash: &str,
    counts: &mut Counts,
    out_of_time: &dyn Fn() -> bool,
) -> Result<(), SearchError> {
    for _ in 0..MAX_NO_EFFECT_ROUNDS {
        if current.len() <= 1 || out_of_time() {
            break;
        }
        let Some(effects) = engine.compiler.passes_with_effect(current) else { break };
        if effects.len() != current.len() {
            // Not an answer about these passes; the chunks below need none.
            break;
        }
        let without_effect: Vec<bool> = effects.iter().map(|changes| !changes).collect();
        let count = without_effect.iter().filter(|&&e| e).count();
        let before = current.len();
        drop_same_code_chunks(engine, current, without_effect, count, hash, counts, out_of_time)?;
        if current.len() == before {
            break;
        }
    }
    let everything = vec![true; current.len()];
    let half = current.len() / 2;
    drop_same_code_chunks(engine, current, everything, half, hash, counts, out_of_time)
}

/// Delta debugging over the passes marked `eligible` (in step with `current`): chunks of
/// `first_chunk` eligible passes (consecutive among the eligible ones), then halves of that,
/// down to single passes, are removed where the PTX stays `hash`. The removals of one round are
/// compiled in one parallel batch; as removals interact, the round keeps the longest run of its
/// good removals that still gives the same code together (those runs compiled in one batch
/// too), or at least the first.
fn drop_same_code_chunks(
    engine: &mut Engine<'_>,
    current: &mut Vec<String>,
    mut eligible: Vec<bool>,
    first_chunk: usize,
    hash: &str,
    counts: &mut Counts,
    out_of_time: &dyn Fn() -> bool,
) -> Result<(), SearchError> {
    let same_code = |outcome: &Result<String, CompileFailureKind>| outcome.as_deref() == Ok(hash);
    let mut chunk = first_chunk.max(1);
    loop {
        for _ in 0..MAX_ROUNDS_PER_LEVEL {
            if current.len() <= 1 || out_of_time() {
                break;
            }
            let positions: Vec<usize> = (0..current.len()).filter(|&i| eligible[i]).collect();
            let groups: Vec<&[usize]> =
                positions.chunks(chunk).filter(|g| g.len() < current.len()).collect();
            let candidates: Vec<Proposal> =
                groups.iter().map(|group| proposal(without_positions(current, group))).collect();
            let outcomes = engine.compile_only(&candidates, counts)?;
            let removable: Vec<&[usize]> = groups
                .iter()
                .zip(&outcomes)
                .filter(|(_, outcome)| same_code(outcome))
                .map(|(group, _)| *group)
                .collect();
            if removable.is_empty() {
                break;
            }
            // Runs of 2, 4, … and all of the good removals, each removed together.
            let mut lengths: Vec<usize> = std::iter::successors(Some(2usize), |n| n.checked_mul(2))
                .take_while(|&n| n < removable.len())
                .chain((removable.len() > 1).then_some(removable.len()))
                .collect();
            lengths
                .retain(|&n| removable[..n].iter().map(|g| g.len()).sum::<usize>() < current.len());
            let together: Vec<Vec<usize>> =
                lengths.iter().map(|&n| removable[..n].concat()).collect();
            let checks: Vec<Proposal> =
                together.iter().map(|drop| proposal(without_positions(current, drop))).collect();
            let outcomes = engine.compile_only(&checks, counts)?;
            let dropped = together
                .iter()
                .zip(&outcomes)
                .filter(|(_, outcome)| same_code(outcome))
                .map(|(drop, _)| drop.clone())
                .max_by_key(Vec::len)
                .unwrap_or_else(|| removable[0].to_vec());
            *current = without_positions(current, &dropped);
            eligible = eligible
                .iter()
                .enumerate()
                .filter(|(i, _)| !dropped.contains(i))
                .map(|(_, &e)| e)
                .collect();
        }
        if chunk == 1 || out_of_time() {
            break;
        }
        chunk = (chunk / 2).max(1);
    }
    Ok(())
}

fn proposal(passes: Vec<String>) -> Proposal {
    Proposal { passes, origin: "minimise".into() }
}

/// `passes` without the passes at `positions`.
fn without_positions(passes: &[String], positions: &[usize]) -> Vec<String> {
    passes
        .iter()
        .enumerate()
        .filter(|(i, _)| !positions.contains(i))
        .map(|(_, p)| p.clone())
        .collect()
}

fn without(passes: &[String], start: usize, len: usize) -> Vec<String> {
    passes
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < start || *i >= start.saturating_add(len))
        .map(|(_, p)| p.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn chunk_removal_helpers() {
        let seq = names(&["a", "b", "c", "d", "e"]);
        assert_eq!(without(&seq, 1, 2), names(&["a", "d", "e"]));
        assert_eq!(without(&seq, 4, 2), names(&["a", "b", "c", "d"]));
        assert_eq!(without_positions(&seq, &[0, 3, 4]), names(&["b", "c"]));
    }
}
