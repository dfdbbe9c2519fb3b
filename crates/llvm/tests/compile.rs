//! The pipeline against the installed LLVM: baselines, sequences and PTX identity.

mod common;

use clmap_llvm::{
    compile, compile_baseline, compile_many, front_end, passes_with_effect, FailureKind,
    InstructionKind, OptLevel, PassLevel, PassPool, PassSequence, PoolPass, PtxSummary, Stage,
};

fn small_pool() -> PassPool {
    let pass = |name: &str, level| PoolPass { name: name.to_string(), level };
    PassPool::from_passes(vec![
        pass("sroa", PassLevel::Function),
        pass("instcombine", PassLevel::Function),
        pass("simplifycfg", PassLevel::Function),
        pass("loop-rotate", PassLevel::Loop),
        pass("licm", PassLevel::LoopMssa),
        pass("no-op-function", PassLevel::Function),
        pass("loop-unroll", PassLevel::Function),
        pass("globaldce", PassLevel::Module),
    ])
}

fn seq(names: &[&str]) -> PassSequence {
    PassSequence(names.iter().map(|n| n.to_string()).collect())
}

#[test]
fn baselines_and_a_sequence_give_ptx() {
    let Some(tc) = common::toolchain() else { return };
    let bc = front_end(&tc, common::GEMM, "-DUNUSED=1", &[]).expect("front end");
    let mut by_level = Vec::new();
    for level in OptLevel::ALL {
        let ptx = compile_baseline(&tc, &bc, level)
            .unwrap_or_else(|e| panic!("{} does not compile: {e}", level.flag()));
        by_level.push(ptx);
    }
    let o0 = by_level[0].clone();
    let o3 = by_level[3].clone();
    for ptx in [&o0, &o3] {
        let text = ptx.as_str();
        assert!(text.contains(".entry gemm"), "{text}");
        assert!(text.contains(&format!(".target {}", tc.sm())));
        assert_eq!(ptx.text.last(), Some(&0));
    }
    // -O3 unrolls the k loop, so it loads from global memory at more places than -O0.
    let global_loads = |text: &str| text.matches("ld.global").count();
    assert_eq!(global_loads(&o0.as_str()), 2, "{}", o0.as_str());
    assert!(global_loads(&o3.as_str()) > 2, "{}", o3.as_str());
    assert_ne!(o0.hash, o3.hash);

    // The summary sees the loop and -O3's unrolling (by four on LLVM 16 for this loop).
    let before = PtxSummary::of(&o0);
    let after = PtxSummary::of(&o3);
    assert_eq!(before.kernels, vec!["gemm"]);
    assert_eq!(before.unroll_estimates(), vec![1]);
    assert!(after.unroll_estimates().iter().any(|&k| k > 1), "{after:?}");
    assert_eq!(before.global_loads_in_loops, 2);
    assert!(after.count(InstructionKind::LoadGlobal) > 2);
    assert!(before.diff(&after).contains("unroll factors"), "{}", before.diff(&after));

    let pool = small_pool();
    let unrolled = compile(
        &tc,
        &bc,
        &pool,
        &seq(&["sroa", "instcombine", "loop-rotate", "licm", "loop-unroll"]),
    )
    .expect("sequence");
    assert!(global_loads(&unrolled.as_str()) > 2, "{}", unrolled.as_str());
    assert_ne!(unrolled.hash, o0.hash);
}

#[test]
fn equal_code_shares_a_hash() {
    let Some(tc) = common::toolchain() else { return };
    let bc = front_end(&tc, common::GEMM, "", &[]).expect("front end");
    let pool = small_pool();
    let results = compile_many(
        &tc,
        &bc,
        &pool,
        &[
            seq(&["loop-rotate", "loop-unroll"]),
            seq(&["loop-rotate", "no-op-function", "loop-unroll"]),
            seq(&["no-op-function"]),
            seq(&[]),
        ],
        2,
    );
    let hashes: Vec<String> = results.into_iter().map(|r| r.expect("compiles").hash).collect();
    assert_eq!(hashes[0], hashes[1], "a no-op pass must not change the hash");
    assert_eq!(hashes[2], hashes[3], "no-op alone is the same code as no pass");
    assert_ne!(hashes[0], hashes[2], "unrolling changes the code");
}

#[test]
fn bad_source_and_bad_pipeline_are_errors_with_their_stage() {
    let Some(tc) = common::toolchain() else { return };
    let err = front_end(&tc, "__kernel void k( {", "", &[]).expect_err("syntax error");
    assert_eq!(err.stage, Stage::FrontEnd);
    assert_eq!(err.kind, FailureKind::Failed);
    assert!(err.detail.contains("error"), "{}", err.detail);

    let bc = front_end(&tc, common::GEMM, "", &[]).expect("front end");
    let err = compile(&tc, &bc, &small_pool(), &seq(&["no-such-pass"])).expect_err("unknown");
    assert_eq!(err.stage, Stage::Optimise);
    assert!(err.detail.contains("no-such-pass"), "{}", err.detail);
}

#[test]
fn passes_that_change_nothing_are_found_one_by_one() {
    let Some(tc) = common::toolchain() else { return };
    let bc = front_end(&tc, common::GEMM, "", &[]).expect("front end");
    let pool = small_pool();
    let sequence = seq(&["sroa", "no-op-function", "sroa", "instcombine", "loop-rotate", "licm"]);
    let effects = passes_with_effect(&tc, &bc, &pool, &sequence).expect("each pass runs alone");
    assert_eq!(effects.len(), sequence.len());
    // The unoptimised front-end output keeps every variable in memory: sroa promotes them, and
    // a second sroa has nothing left to do; the no-op pass never changes anything.
    assert_eq!(&effects[..4], &[true, false, false, true], "{effects:?}");
    // Dropping what changed nothing gives the same PTX as the whole sequence.
    let kept = PassSequence(
        sequence.0.iter().zip(&effects).filter(|(_, e)| **e).map(|(p, _)| p.clone()).collect(),
    );
    assert!(kept.len() < sequence.len());
    let whole = compile(&tc, &bc, &pool, &sequence).expect("whole sequence compiles");
    let shorter = compile(&tc, &bc, &pool, &kept).expect("kept passes compile");
    assert_eq!(whole.hash, shorter.hash);
}

#[test]
fn a_pass_opt_refuses_is_an_error_not_a_guess() {
    let Some(tc) = common::toolchain() else { return };
    let bc = front_end(&tc, common::GEMM, "", &[]).expect("front end");
    let err = passes_with_effect(&tc, &bc, &small_pool(), &seq(&["sroa", "no-such-pass"]))
        .expect_err("opt refuses an unknown pass");
    assert_eq!(err.stage, Stage::Optimise);
}
