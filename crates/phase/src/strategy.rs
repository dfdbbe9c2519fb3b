//! Where the next sequences come from.
//!
//! * `random`: seed 003's sampling — sequence `i` is `length` passes drawn uniformly from the
//!   pool, from `(seed, i)` alone.
//! * `evolve`: the same random sequences for the first quarter of the budget, then generations
//!   of children of the fastest valid sequences found so far (tournament selection, one-point
//!   crossover, then one to three mutations: replace, insert, delete or swap a pass).
//!
//! Sequences given by the user (`--sequences`, e.g. the best ones another GPU or another size
//! found) are proposed first, in their order, and count in the budget; the strategy's own
//! stream follows unchanged, and the evolutionary strategy breeds from them like from any
//! evaluated sequence.
//!
//! Both are pure functions of the seed and of the evaluations so far. Since a resumed run reads
//! those evaluations back from the database, it proposes exactly what the first run proposed.

use std::collections::{HashSet, VecDeque};

use serde::Serialize;

use crate::search::Evaluation;
use crate::sequence::{below, generator, random_sequence, sequence_hash, Stream};

/// A search strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Uniform random sequences (seed 003).
    Random,
    /// Random sequences, then an evolutionary search seeded by the best of them.
    Evolve,
}

impl Strategy {
    /// Parses a strategy name as users type it.
    pub fn parse(name: &str) -> Option<Strategy> {
        match name.trim().to_ascii_lowercase().as_str() {
            "random" => Some(Strategy::Random),
            "evolve" | "evolutionary" | "genetic" => Some(Strategy::Evolve),
            _ => None,
        }
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Evolve => "evolve",
        }
    }
}

/// One sequence to evaluate and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    /// The passes.
    pub passes: Vec<String>,
    /// `given:I` (the user's I-th sequence), `random:I` or `evolve:G:J` (generation, child),
    /// or `minimise`.
    pub origin: String,
}

/// Parents kept per generation.
const ELITE: usize = 8;
/// Redraws allowed when a child repeats a sequence already proposed.
const REDRAWS: u64 = 8;

/// The strategy's position in its stream of proposals.
pub struct StrategyState {
    strategy: Strategy,
    seed: u64,
    length: usize,
    random_phase: u64,
    next_random: u64,
    /// Random sequence `k` of this state is the stream's sequence `k * stride + offset`.
    offset: u64,
    stride: u64,
    generation: u64,
    proposed: HashSet<String>,
    /// The user's sequences not yet proposed, with their index.
    given: VecDeque<(usize, Vec<String>)>,
}

impl StrategyState {
    /// A strategy at its start. `random_phase` is how many random sequences open an
    /// evolutionary search.
    pub fn new(strategy: Strategy, seed: u64, length: usize, random_phase: u64) -> StrategyState {
        StrategyState {
            strategy,
            seed,
            length: length.max(1),
            random_phase,
            next_random: 0,
            offset: 0,
            stride: 1,
            generation: 0,
            proposed: HashSet::new(),
            given: VecDeque::new(),
        }
    }

    /// The same strategy proposing `sequences` first, in order.
    pub fn with_given(mut self, sequences: &[Vec<String>]) -> StrategyState {
        self.given = sequences.iter().cloned().enumerate().collect();
        self
    }

    /// The same strategy proposing only the random sequences whose index is `index` modulo
    /// `count` (one shard of a search split over `count` processes).
    pub fn sharded(mut self, index: u64, count: u64) -> StrategyState {
        self.offset = index;
        self.stride = count.max(1);
        self
    }

    /// Up to `wanted` new proposals, given every evaluation so far (in proposal order).
    pub fn propose(
        &mut self,
        pool: &[String],
        evaluations: &[Evaluation],
        wanted: usize,
    ) -> Vec<Proposal> {
        if pool.is_empty() || wanted == 0 {
            return Vec::new();
        }
        if !self.given.is_empty() {
            let take = wanted.min(self.given.len());
            return self
                .given
                .drain(..take)
                .map(|(index, passes)| {
                    self.proposed.insert(sequence_hash(&passes));
                    Proposal { passes, origin: format!("given:{index}") }
                })
                .collect();
        }
        let random_left = match self.strategy {
            Strategy::Random => wanted as u64,
            Strategy::Evolve => self.random_phase.saturating_sub(self.next_random),
        };
        if random_left > 0 {
            return self.random_batch(pool, (random_left as usize).min(wanted));
        }
        let parents = elite(evaluations);
        if parents.is_empty() {
            // Nothing valid to breed from yet: keep sampling.
            return self.random_batch(pool, wanted);
        }
        self.children(pool, &parents, wanted)
    }

    fn random_batch(&mut self, pool: &[String], count: usize) -> Vec<Proposal> {
        let mut batch = Vec::with_capacity(count);
        for _ in 0..count {
            let index = self.next_random * self.stride + self.offset;
            self.next_random += 1;
            let passes = random_sequence(pool, self.seed, index, self.length);
            self.proposed.insert(sequence_hash(&passes));
            batch.push(Proposal { passes, origin: format!("random:{index}") });
        }
        batch
    }

    fn children(&mut self, pool: &[String], parents: &[&[String]], count: usize) -> Vec<Proposal> {
        let generation = self.generation;
        self.generation += 1;
        let mut batch = Vec::with_capacity(count);
        for child in 0..count as u64 {
            for attempt in 0..REDRAWS {
                // Indices are spaced so that every (generation, child, attempt) has its own
                // stream.
                let index = (generation << 24) | (child << 4) | attempt;
                let passes = self.breed(pool, parents, index);
                if passes.is_empty() {
                    continue;
                }
                if self.proposed.insert(sequence_hash(&passes)) {
                    batch.push(Proposal { passes, origin: format!("evolve:{generation}:{child}") });
                    break;
                }
            }
        }
        batch
    }

    fn breed(&self, pool: &[String], parents: &[&[String]], index: u64) -> Vec<String> {
        let mut rng = generator(self.seed, Stream::Evolve, index);
        // Tournament of two: the better-ranked (lower index) of two random parents.
        let pick = |rng: &mut clmap_workload::rng::SplitMix64| {
            let a = below(rng, parents.len());
            let b = below(rng, parents.len());
            parents.get(a.min(b)).copied().unwrap_or_default()
        };
        let first = pick(&mut rng);
        let mut child: Vec<String> = first.to_vec();
        if below(&mut rng, 2) == 0 {
            let second = pick(&mut rng);
            let cut_first = below(&mut rng, first.len() + 1);
            let cut_second = below(&mut rng, second.len() + 1);
            child = first.get(..cut_first).unwrap_or_default().to_vec();
            child.extend_from_slice(second.get(cut_second..).unwrap_or_default());
        }
        let mutations = 1 + below(&mut rng, 3);
        for _ in 0..mutations {
            mutate(&mut child, pool, &mut rng);
        }
        // Crossover can grow a sequence; cap it so compile time stays bounded.
        child.truncate(self.length.saturating_mul(2).max(1));
        child
    }
}

fn mutate(child: &mut Vec<String>, pool: &[String], rng: &mut clmap_workload::rng::SplitMix64) {
    let pass = pool.get(below(rng, pool.len())).cloned().unwrap_or_default();
    if pass.is_empty() {
        return;
    }
    match below(rng, 4) {
        0 if !child.is_empty() => {
            let at = below(rng, child.len());
            if let Some(slot) = child.get_mut(at) {
                *slot = pass;
            }
        }
        1 => {
            let at = below(rng, child.len() + 1);
            child.insert(at, pass);
        }
        2 if child.len() > 1 => {
            let at = below(rng, child.len());
            child.remove(at);
        }
        3 if child.len() > 1 => {
            let at = below(rng, child.len() - 1);
            child.swap(at, at + 1);
        }
        _ => child.push(pass),
    }
}

/// The fastest valid sequences, one per distinct PTX, fastest first (ties by proposal order).
fn elite(evaluations: &[Evaluation]) -> Vec<&[String]> {
    let mut timed: Vec<(f64, usize, &Evaluation)> =
        evaluations.iter().enumerate().filter_map(|(i, e)| e.time().map(|t| (t, i, e))).collect();
    timed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut seen = HashSet::new();
    let mut parents = Vec::new();
    for (_, _, evaluation) in timed {
        if let Ok(hash) = &evaluation.ptx_hash {
            if seen.insert(hash.clone()) {
                parents.push(evaluation.passes.as_slice());
            }
        }
        if parents.len() == ELITE {
            break;
        }
    }
    parents
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::Verdict;

    fn pool() -> Vec<String> {
        ["licm", "gvn", "instcombine", "sroa", "loop-reduce", "dse"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn evaluation(passes: Vec<String>, hash: &str, time: f64) -> Evaluation {
        Evaluation {
            passes,
            origin: String::new(),
            ptx_hash: Ok(hash.to_string()),
            verdict: Some(Verdict::Valid),
            median_ns: Some(time),
        }
    }

    #[test]
    fn random_strategy_numbers_its_sequences() {
        let mut state = StrategyState::new(Strategy::Random, 3, 16, 0);
        let first = state.propose(&pool(), &[], 4);
        let second = state.propose(&pool(), &[], 2);
        assert_eq!(first.len(), 4);
        assert_eq!(second[0].origin, "random:4");
        assert_eq!(second[0].passes, random_sequence(&pool(), 3, 4, 16));
    }

    #[test]
    fn evolve_starts_random_then_breeds_from_the_best() {
        let pool = pool();
        let mut state = StrategyState::new(Strategy::Evolve, 5, 8, 3);
        let opening = state.propose(&pool, &[], 10);
        assert_eq!(opening.len(), 3, "only the random phase first");
        let evaluations: Vec<Evaluation> = opening
            .iter()
            .enumerate()
            .map(|(i, p)| evaluation(p.passes.clone(), &format!("h{i}"), 100.0 - i as f64))
            .collect();
        let children = state.propose(&pool, &evaluations, 6);
        assert_eq!(children.len(), 6);
        assert!(children.iter().all(|c| c.origin.starts_with("evolve:0:")));
        assert!(children.iter().all(|c| c.passes.iter().all(|p| pool.contains(p))));
        // Replaying from scratch with the same evaluations proposes the same children.
        let mut replay = StrategyState::new(Strategy::Evolve, 5, 8, 3);
        let _ = replay.propose(&pool, &[], 10);
        assert_eq!(replay.propose(&pool, &evaluations, 6), children);
    }

    #[test]
    fn evolve_without_valid_parents_keeps_sampling() {
        let mut state = StrategyState::new(Strategy::Evolve, 5, 8, 1);
        let _ = state.propose(&pool(), &[], 1);
        let next = state.propose(&pool(), &[], 2);
        assert!(next.iter().all(|p| p.origin.starts_with("random:")));
    }

    #[test]
    fn elite_keeps_one_sequence_per_ptx() {
        let a = evaluation(vec!["gvn".into()], "same", 10.0);
        let b = evaluation(vec!["licm".into()], "same", 10.0);
        let c = evaluation(vec!["dse".into()], "other", 20.0);
        let all = [c, a, b];
        let parents = elite(&all);
        assert_eq!(parents.len(), 2);
        assert_eq!(parents[0], ["gvn".to_string()]);
    }
}
