//! The effect the original-style kernels exist for: GEMM written as PolyBench/GPU writes it
//! (`c[i][j] += alpha * a[i][k] * b[k][j]` inside the k loop) keeps a global store in its
//! reduction loop under every -O level, because the buffers may alias; a short random search
//! over the real LLVM pass pool finds sequences whose PTX versions the loop on a run-time alias
//! check and keeps no global store in the fast version's reduction loop.
//!
//! There is no NVIDIA device in CI, so the evaluator here is a stand-in that accepts every PTX
//! and "times" it by its global memory operations inside loops (a store inside a loop costs as
//! much as the round trip it forces); what the test checks is the PTX itself. CI installs
//! llvm-16, clang-16 and libclc-16-dev; without them this test says why and passes, unless
//! `CLMAP_REQUIRE_CLANG=1`.

mod common;

use std::collections::HashMap;

use clmap_llvm::PtxSummary;
use clmap_phase::compiler::{BaselineLevel, CompiledPtx, SequenceCompiler};
use clmap_phase::evaluator::{Evaluator, EvaluatorError, Verdict};
use clmap_phase::{Engine, NoProgress, SearchOptions, Strategy};

/// A loop that reads both operands from global memory (the reduction over k) but writes none
/// of it. The kernel has no other loop that reads global memory, so this is the k loop, or one
/// version or unrolled remainder of it.
fn has_store_free_reduction_loop(summary: &PtxSummary) -> bool {
    summary.loops.iter().any(|l| l.global_loads >= 2 && l.global_stores == 0)
}

/// Every loop that reads global memory also writes it: the store is inside.
fn every_reduction_loop_stores(summary: &PtxSummary) -> bool {
    let reductions: Vec<_> = summary.loops.iter().filter(|l| l.global_loads >= 2).collect();
    !reductions.is_empty() && reductions.iter().all(|l| l.global_stores > 0)
}

/// Accepts every PTX; its time grows with the global loads and (ten times more) the global
/// stores inside loops. Remembers each PTX so the test can look at the winner's code.
#[derive(Default)]
struct LoopTrafficEvaluator {
    texts: HashMap<String, String>,
}

impl Evaluator for LoopTrafficEvaluator {
    fn describe(&self) -> String {
        "loop traffic".into()
    }
    fn validate_small(&mut self, _: &CompiledPtx) -> Result<Verdict, EvaluatorError> {
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
        let text = String::from_utf8_lossy(ptx.text.strip_suffix(&[0]).unwrap_or(&ptx.text));
        let summary = PtxSummary::of_text(&text);
        // The fast version of a versioned loop is what runs when the buffers do not overlap:
        // a store-free reduction loop is the time of the kernel.
        let cost = if has_store_free_reduction_loop(&summary) {
            100 + summary.global_loads_in_loops as u64
        } else {
            1000 + (summary.global_loads_in_loops + 10 * summary.global_stores_in_loops) as u64
        };
        self.texts.insert(ptx.hash.clone(), text.into_owned());
        Ok(Ok(vec![cost; reps as usize]))
    }
    fn time_source(&mut self, reps: u32) -> Result<Vec<u64>, EvaluatorError> {
        Ok(vec![10_000; reps as usize])
    }
}

#[test]
fn a_short_search_moves_the_global_store_out_of_gemms_reduction_loop() {
    let Some(llvm) = common::corpus_compiler("pbo_gemm.toml") else { return };
    let pool = llvm.pool();
    for needed in ["licm", "loop-rotate", "loop-versioning-licm"] {
        assert!(pool.iter().any(|p| p == needed), "{needed} is in the detected pool");
    }

    // No -O level removes the store: the k loop of every one writes c.
    for level in [BaselineLevel::O1, BaselineLevel::O2, BaselineLevel::O3] {
        let ptx = llvm.compile_baseline(level).expect("the -O level compiles");
        let summary = PtxSummary::of_text(&String::from_utf8_lossy(&ptx.text));
        assert!(
            every_reduction_loop_stores(&summary),
            "{level:?} keeps c's store in the reduction loop: {:?}",
            summary.loops
        );
    }

    let store = common::memory_store("pbo_gemm", "loop traffic", llvm.describe());
    let options = SearchOptions {
        strategy: Strategy::Random,
        seed: 7,
        budget: 16,
        deadline: None,
        // Long sequences, as the campaign's: the run-time alias check needs loop-versioning
        // (or loop-versioning-licm) after the loop is in rotated, LCSSA form, and a random
        // sequence of this length holds such an order most of the time.
        length: 160,
        batch: 8,
        reps: 1,
        evolve_after: 8,
        shard: None,
        given: Vec::new(),
    };
    let mut evaluator = LoopTrafficEvaluator::default();
    let exploration = {
        let mut engine = Engine::new(&llvm, &mut evaluator, &store, &NoProgress, 1);
        engine.explore(&options, &pool).expect("search runs")
    };
    let best = exploration
        .evaluations
        .iter()
        .filter(|e| e.time().is_some())
        .min_by(|a, b| a.time().partial_cmp(&b.time()).expect("times are numbers"))
        .expect("some sequence compiled and was timed");
    let hash = best.ptx_hash.as_ref().expect("the best sequence compiled");
    let summary = PtxSummary::of_text(&evaluator.texts[hash]);
    assert!(
        has_store_free_reduction_loop(&summary),
        "the best of {} sequences keeps a store in every reduction loop: {:?}\npasses: {}",
        exploration.evaluations.len(),
        summary.loops,
        best.passes.join(" ")
    );
    // The store left the loop but not the kernel.
    assert!(summary.count(clmap_llvm::InstructionKind::StoreGlobal) > 0);
}
