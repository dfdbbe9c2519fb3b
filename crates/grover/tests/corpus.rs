//! The Grover corpus: every local-memory pattern of seed 000's Table I is transformed,
//! validated on the simulator and compared with its snapshot; the refused kinds are refused
//! with their reason.
//!
//! Snapshots live in `tests/grover/*.out` (diff, then explanation). Set `CLMAP_BLESS=1` to
//! rewrite them after an intended change.

use clmap_exec::{front_end_runs, PreparedWorkload};
use clmap_grover::{explain::explain, unlocal, validate::validate_compiled, UnlocalOptions};
use clmap_lang::valid::VerifyOptions;
use clmap_testkit::ClangCheck;
use clmap_workload::Workload;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Case {
    snapshot: &'static str,
    workload: &'static str,
    buffers: &'static [&'static str],
    /// Buffers that must be removed (the others must be refused or not selected).
    removed: &'static [&'static str],
}

fn run_case(case: &Case) -> String {
    let path = root().join(case.workload);
    let runs_before = front_end_runs();
    let prepared =
        PreparedWorkload::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let workload = prepared.workload();
    let compiled = prepared.compiled();
    let kernel = workload.launches.first().map(|l| l.kernel.clone());
    let options = UnlocalOptions {
        kernel,
        buffers: case.buffers.iter().map(|s| s.to_string()).collect(),
        comment_out: false,
        // Verification after the transform compiles the rewrite; validation reuses it.
        verify: VerifyOptions::ON,
        ..Default::default()
    };
    let mut outcome = unlocal(compiled, &options).expect("grover runs");
    let explanation = explain(compiled, &outcome);
    let mut removed = outcome.removed();
    removed.sort();
    let mut want: Vec<String> = case.removed.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(removed, want, "{}:\n{explanation}", case.snapshot);
    if outcome.changed() {
        let verified = outcome.verified.take();
        assert!(verified.is_some(), "{}: the verify switch compiled the rewrite", case.snapshot);
        let v = validate_compiled(&prepared, &outcome.text, verified, 3).unwrap_or_else(|e| {
            panic!("{}: validation failed: {e}\n{}", case.snapshot, outcome.text)
        });
        assert_eq!(v.validation.seeds, 3);
        // The front end ran once for the original and once for the rewrite: analysis,
        // verification, and three input sets on both kernels reuse the compiled programs.
        assert_eq!(front_end_runs() - runs_before, 2, "{}", case.snapshot);
        clang_accepts(workload, &outcome.text, case.snapshot);
    }
    let name = Path::new(case.workload).file_name().and_then(|n| n.to_str()).unwrap_or("");
    // Paths in explanations are relative to the repository, whatever the checkout.
    let prefix = format!("{}/", root().display());
    let explanation = explanation.replace(&prefix, "");
    format!("{}\n{explanation}", outcome.diff(&name.replace(".toml", ".cl")))
}

/// The printed kernel must compile with clang as OpenCL C 1.2, with the workload's build
/// options and its includes beside the original source.
fn clang_accepts(workload: &Workload, text: &str, name: &str) {
    let dir = workload.source_path.parent().map(Path::to_path_buf).unwrap_or_default();
    ClangCheck::new()
        .include_dir(dir)
        .options(&workload.options)
        .assert_compiles(text, &format!("{name}'s rewritten kernel"));
}

fn check_snapshot(case: &Case) {
    let actual = run_case(case);
    let path = root().join("tests/grover").join(format!("{}.out", case.snapshot));
    if std::env::var_os("CLMAP_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing snapshot {} (run with CLMAP_BLESS=1)", path.display()));
    assert_eq!(actual, expected, "snapshot {} differs", case.snapshot);
}

macro_rules! cases {
    ($($name:ident: $workload:literal, [$($b:literal),*] => [$($r:literal),*];)*) => {
        $(
            #[test]
            fn $name() {
                check_snapshot(&Case {
                    snapshot: stringify!($name),
                    workload: $workload,
                    buffers: &[$($b),*],
                    removed: &[$($r),*],
                });
            }
        )*
    };
}

cases! {
    nvd_mt: "tests/corpus/transpose_local_padded.toml", [] => ["block"];
    amd_mt: "tests/corpus/transpose_float4_diagonal.toml", [] => ["block"];
    amd_rg: "tests/corpus/transpose_rg_block.toml", [] => ["block"];
    amd_mm: "tests/corpus/mm_float4_tiled.toml", [] => ["tileA"];
    nvd_mm_a: "tests/corpus/mm_nvidia_tile_a.toml", [] => ["As"];
    nvd_mm_b: "tests/corpus/mm_nvidia_tile_b.toml", [] => ["Bs"];
    nvd_mm_ab_only_a: "tests/corpus/mm_nvidia_tile_ab.toml", ["As"] => ["As"];
    nvd_mm_ab_only_b: "tests/corpus/mm_nvidia_tile_ab.toml", ["Bs"] => ["Bs"];
    nvd_mm_ab: "tests/corpus/mm_nvidia_tile_ab.toml", [] => ["As", "Bs"];
    nvd_nbody: "tests/corpus/nbody_local.toml", [] => ["tile"];
    pab_st: "tests/corpus/stencil3d_parboil.toml", [] => ["plane"];
    amd_ss: "tests/corpus/string_search.toml", [] => ["local_pattern"];
    rod_sc: "tests/corpus/broadcast_streamcluster.toml", [] => ["centre"];
    refuse_nbody_tile_reuse: "tests/corpus/nbody_tile_reuse.toml", [] => [];
    refuse_reduction: "tests/corpus/reduce_local_tree.toml", [] => [];
    refuse_scan: "tests/corpus/scan_local.toml", [] => [];
    refuse_histogram: "tests/corpus/histogram_local_atomics.toml", [] => [];
    fig1_transpose_2d: "tests/grover/fig1_transpose_2d.toml", [] => ["lm"];
    stage_function_reverse: "tests/grover/stage_function_reverse.toml", [] => ["tile"];
    refuse_ambiguous: "tests/grover/refuse_ambiguous.toml", [] => [];
    tile_two_pass: "tests/grover/tile_two_pass.toml", [] => ["tile"];
    transpose_two_halves: "tests/grover/transpose_two_halves.toml", [] => ["tile"];
    refuse_two_pass_disagree: "tests/grover/refuse_two_pass_disagree.toml", [] => [];
    transpose_bits: "tests/grover/transpose_bits.toml", [] => ["tile"];
    refuse_mask_not_low_bits: "tests/grover/refuse_mask_not_low_bits.toml", [] => [];
    helper_store_transpose: "tests/grover/helper_store_transpose.toml", [] => ["tile"];
    helper_store_value: "tests/grover/helper_store_value.toml", [] => ["tile"];
    refuse_helper_side_effect: "tests/grover/refuse_helper_side_effect.toml", [] => [];
}
