//! The search with the real LLVM toolchain and a fake device: a corpus kernel compiled through
//! clang, opt, llvm-link and llc with a few random sequences. CI installs llvm-16, clang-16
//! and libclc-16-dev; without them this test says why and passes, unless
//! `CLMAP_REQUIRE_CLANG=1`.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use clmap_phase::compiler::{BaselineLevel, CompileOutcome, CompiledPtx, SequenceCompiler};
use clmap_phase::evaluator::{Evaluator, EvaluatorError, Verdict};
use clmap_phase::llvm_compiler::LlvmCompiler;
use clmap_phase::{Engine, NoProgress, SearchOptions, Strategy};

/// Counts the compilations that reach the real compiler.
struct Counting<'a> {
    inner: &'a LlvmCompiler,
    compiled: AtomicUsize,
}

impl SequenceCompiler for Counting<'_> {
    fn pool(&self) -> Vec<String> {
        self.inner.pool()
    }
    fn compile_many(&self, sequences: &[Vec<String>]) -> Vec<CompileOutcome> {
        self.compiled.fetch_add(sequences.len(), Ordering::SeqCst);
        self.inner.compile_many(sequences)
    }
    fn compile_baseline(&self, level: BaselineLevel) -> CompileOutcome {
        self.inner.compile_baseline(level)
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}

/// Accepts every PTX; its "time" is the PTX's size, so shorter code is faster.
struct SizeEvaluator;

impl Evaluator for SizeEvaluator {
    fn describe(&self) -> String {
        "size".into()
    }
    fn validate_small(&mut self, ptx: &CompiledPtx) -> Result<Verdict, EvaluatorError> {
        assert_eq!(ptx.text.last(), Some(&0), "PTX travels with its trailing NUL");
        assert!(String::from_utf8_lossy(&ptx.text).contains(".entry gemm"), "the kernel is there");
        Ok(Verdict::Valid)
    }
    fn validate_full(&mut self, _: &CompiledPtx, _: u64) -> Result<Verdict, EvaluatorError> {
        Ok(Verdict::Valid)
    }
    fn time_ptx(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        Ok(Ok(vec![ptx.text.len() as u64; reps as usize]))
    }
    fn time_source(&mut self, reps: u32) -> Result<Vec<u64>, EvaluatorError> {
        Ok(vec![1; reps as usize])
    }
}

#[test]
fn a_few_sequences_of_a_corpus_kernel_compile_deduplicate_and_resume() {
    let Some(llvm) = common::corpus_compiler("pb_gemm.toml") else { return };
    assert!(llvm.pool().len() > 20, "pool of {} passes", llvm.pool().len());
    let o0 = llvm.compile_baseline(BaselineLevel::O0).expect("-O0 compiles");
    let o3 = llvm.compile_baseline(BaselineLevel::O3).expect("-O3 compiles");
    assert_ne!(o0.hash, o3.hash, "-O3 changes the code of a loop kernel");
    let diff = llvm.explain_difference(&o0, &o3).expect("an explanation");
    assert!(diff.contains("instructions"), "{diff}");
    let summary = llvm.summary(&o3).expect("a summary");
    assert!(summary.is_object(), "{summary}");

    let counting = Counting { inner: &llvm, compiled: AtomicUsize::new(0) };
    let store = common::memory_store("pb_gemm", "size", llvm.describe());
    let options = SearchOptions {
        strategy: Strategy::Random,
        seed: 1,
        budget: 6,
        deadline: None,
        length: 24,
        batch: 3,
        reps: 1,
        evolve_after: 3,
        shard: None,
        given: Vec::new(),
    };
    let mut evaluator = SizeEvaluator;
    let pool = counting.pool();
    let first = {
        let mut engine = Engine::new(&counting, &mut evaluator, &store, &NoProgress, 1);
        engine.explore(&options, &pool).expect("search runs")
    };
    let c = &first.counts;
    assert_eq!(c.sequences, 6);
    assert_eq!(c.compiled + c.crashed + c.timed_out + c.compile_failed, 6, "{c:?}");
    assert!(c.compiled > 0, "no sequence compiled: {c:?}");
    assert_eq!(counting.compiled.load(Ordering::SeqCst), 6);

    // The same search again compiles nothing.
    let again = {
        let mut engine = Engine::new(&counting, &mut evaluator, &store, &NoProgress, 1);
        engine.explore(&options, &pool).expect("search runs")
    };
    assert_eq!(counting.compiled.load(Ordering::SeqCst), 6);
    assert_eq!(again.evaluations, first.evaluations);

    // A sequence that repeats a pass which does nothing more the second time gives the same
    // PTX as the shorter one: de-duplication sees through it.
    let twice = llvm.compile_many(&[
        vec!["mem2reg".to_string()],
        vec!["mem2reg".to_string(), "mem2reg".to_string()],
    ]);
    let hashes: Vec<String> = twice.into_iter().map(|r| r.expect("compiles").hash).collect();
    assert_eq!(hashes[0], hashes[1]);
}
