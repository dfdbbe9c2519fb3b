//! Pass sequences as the search sees them: drawn at random, mutated, crossed, and named by a
//! stable hash.
//!
//! Every random choice is derived from `(seed, stream, index)` rather than from one generator
//! advanced across the whole search. Sequence `i` of a search is therefore the same in every
//! run with the same seed, which is what lets a stopped search resume without redoing or
//! skipping work, however far the previous run got.

use clmap_workload::rng::SplitMix64;
use sha2::{Digest, Sha256};

/// Number of pass instances in a random sequence. Seed 003 draws every sequence with 256 pass
/// instances (repetitions allowed) from the usable pool.
pub const PAPER_SEQUENCE_LENGTH: usize = 256;

/// Separate random streams, so that the sequence drawn for index `i` does not depend on how
/// many mutations were drawn before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The random-sampling strategy.
    Random = 1,
    /// Children of the evolutionary strategy.
    Evolve = 2,
}

/// A generator for one `(seed, stream, index)` triple.
pub fn generator(seed: u64, stream: Stream, index: u64) -> SplitMix64 {
    // Mix the three numbers through SplitMix64 itself so neighbouring indices give unrelated
    // states (a plain sum would make (seed, i + 1) and (seed + 1, i) collide).
    let mut mixer = SplitMix64::new(seed ^ 0x5eed_5eed_5eed_5eed);
    let a = mixer.next_u64();
    let mut mixer = SplitMix64::new(a ^ (stream as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let b = mixer.next_u64();
    let mut mixer = SplitMix64::new(b ^ index);
    SplitMix64::new(mixer.next_u64())
}

/// A uniform index below `bound` (which must be positive).
pub fn below(rng: &mut SplitMix64, bound: usize) -> usize {
    if bound == 0 {
        return 0;
    }
    // Multiply-high: exact and free of modulo bias for any bound that fits in 64 bits.
    ((u128::from(rng.next_u64()) * bound as u128) >> 64) as usize
}

/// Random sequence number `index` of a search: `length` passes drawn uniformly, with
/// repetition, from `pool`. An empty pool gives an empty sequence.
pub fn random_sequence(pool: &[String], seed: u64, index: u64, length: usize) -> Vec<String> {
    if pool.is_empty() {
        return Vec::new();
    }
    let mut rng = generator(seed, Stream::Random, index);
    (0..length).map(|_| pool[below(&mut rng, pool.len())].clone()).collect()
}

/// The stable text of a sequence: pass names joined by commas (pass names never contain one).
pub fn sequence_text(passes: &[String]) -> String {
    passes.join(",")
}

/// Parses [`sequence_text`] back; the empty text is the empty sequence.
pub fn parse_sequence_text(text: &str) -> Vec<String> {
    text.split(',').map(str::trim).filter(|p| !p.is_empty()).map(str::to_string).collect()
}

/// Sequences as a user writes them in a file (`clmap phase --sequences`): one per line, pass
/// names separated by spaces or commas, `#` starting a comment; blank lines are skipped and a
/// sequence listed twice is kept once. Passes outside `pool` (the toolchain's detected
/// passes) are refused with their line, since a random or bred sequence never holds them and
/// a pass the probe did not accept may crash `opt` on every kernel.
pub fn parse_sequence_list(text: &str, pool: &[String]) -> Result<Vec<Vec<String>>, String> {
    let known: std::collections::HashSet<&str> = pool.iter().map(String::as_str).collect();
    let mut seen = std::collections::HashSet::new();
    let mut sequences = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        let passes: Vec<String> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        if passes.is_empty() {
            continue;
        }
        let unknown: Vec<&str> =
            passes.iter().map(String::as_str).filter(|p| !known.contains(p)).collect();
        if !unknown.is_empty() {
            return Err(format!(
                "line {}: {} not in this toolchain's pass pool ({} passes; `clmap phase` \
                 lists it in the pass cache)",
                number + 1,
                unknown.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "),
                pool.len()
            ));
        }
        if seen.insert(sequence_hash(&passes)) {
            sequences.push(passes);
        }
    }
    Ok(sequences)
}

/// A short, stable identity for a sequence: hex SHA-256 of its text, first 32 digits.
pub fn sequence_hash(passes: &[String]) -> String {
    let digest = Sha256::digest(sequence_text(passes).as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Hex SHA-256 of arbitrary text (workload identities and the like).
pub fn text_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> Vec<String> {
        ["licm", "gvn", "instcombine", "sroa", "loop-reduce"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn sequence_i_depends_only_on_seed_and_index() {
        let pool = pool();
        let first = random_sequence(&pool, 7, 3, 256);
        assert_eq!(first.len(), 256);
        assert_eq!(first, random_sequence(&pool, 7, 3, 256));
        assert_ne!(first, random_sequence(&pool, 7, 4, 256));
        assert_ne!(first, random_sequence(&pool, 8, 3, 256));
        assert!(first.iter().all(|p| pool.contains(p)));
    }

    #[test]
    fn draws_cover_the_whole_pool() {
        let pool = pool();
        let seq = random_sequence(&pool, 1, 0, 256);
        for pass in &pool {
            assert!(seq.contains(pass), "{pass} never drawn in 256 draws");
        }
    }

    #[test]
    fn empty_pool_gives_empty_sequence() {
        assert!(random_sequence(&[], 1, 0, 256).is_empty());
    }

    #[test]
    fn text_round_trips_and_hash_distinguishes() {
        let seq: Vec<String> = vec!["gvn".into(), "licm".into(), "gvn".into()];
        assert_eq!(parse_sequence_text(&sequence_text(&seq)), seq);
        assert_eq!(sequence_hash(&seq).len(), 32);
        let other: Vec<String> = vec!["licm".into(), "gvn".into(), "gvn".into()];
        assert_ne!(sequence_hash(&seq), sequence_hash(&other));
        assert!(parse_sequence_text("").is_empty());
    }

    #[test]
    fn sequence_lists_read_lines_comments_and_both_separators() {
        let text =
            "# from the H100 campaign\nlicm gvn\n\nsroa,loop-reduce  # minimised\nlicm  gvn\n";
        let list = parse_sequence_list(text, &pool()).unwrap();
        assert_eq!(list, vec![vec!["licm", "gvn"], vec!["sroa", "loop-reduce"]]);
        let error = parse_sequence_list("licm\ngvn no-such-pass", &pool()).unwrap_err();
        assert!(error.starts_with("line 2: `no-such-pass` not in"), "{error}");
        assert!(parse_sequence_list("# nothing\n", &pool()).unwrap().is_empty());
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = generator(0, Stream::Evolve, 0);
        for bound in 1..50 {
            assert!(below(&mut rng, bound) < bound);
        }
        assert_eq!(below(&mut rng, 0), 0);
    }
}
