//! Which aliased layouts a workload allows, decided on the simulator (no device needed).

use std::path::Path;

use clmap_exec::PreparedWorkload;
use clmap_phase::aliasing::aliased_layouts;
use clmap_workload::LaunchArg;

fn corpus(name: &str) -> PreparedWorkload {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(name);
    PreparedWorkload::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn gesummv_may_share_tmp_and_y_but_not_an_input_with_an_output() {
    let analysis = aliased_layouts(&corpus("pbo_gesummv.toml"), 16);
    let allowed: Vec<String> = analysis.allowed.iter().map(|l| l.label()).collect();
    // Work-item i reads and writes only element i of tmp and y: defined when they share.
    assert_eq!(allowed.first().map(String::as_str), Some("tmp=y"), "{allowed:?}");
    // Pointers that are only read may always share (x fits inside a, b inside a).
    for read_only in ["b=a", "x=a", "x=b"] {
        assert!(allowed.iter().any(|l| l == read_only), "{read_only} missing from {allowed:?}");
    }
    // y or tmp sharing a, b or x: work-item i writes element i, which other work-items read
    // as part of their row or of x. Refused as races.
    for (kept, replaced) in [("a", "y"), ("a", "tmp"), ("x", "y")] {
        let refused = analysis
            .refused
            .iter()
            .find(|r| r.kept == kept && r.replaced == replaced)
            .unwrap_or_else(|| panic!("{replaced}={kept} not refused: {:?}", analysis.refused));
        assert!(refused.reason.contains("data race"), "{refused:?}");
    }
    // The layout binds one buffer to both arguments in every launch and nothing else.
    let layout = analysis.allowed.first().expect("tmp=y");
    let args: Vec<&str> = layout.workload.launches[0]
        .args
        .iter()
        .filter_map(|a| match a {
            LaunchArg::Buffer { buffer } => Some(buffer.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(args, ["a", "b", "x", "y", "y"]);
}

#[test]
fn gemm_may_not_share_c_with_its_operands_and_the_limit_holds() {
    let analysis = aliased_layouts(&corpus("pbo_gemm.toml"), 16);
    let allowed: Vec<String> = analysis.allowed.iter().map(|l| l.label()).collect();
    // a (ni x nk) and b (nk x nj) are only read: b, the longer, stands for both.
    assert_eq!(allowed, ["a=b"], "{:?}", analysis.refused);
    assert_eq!(analysis.refused.len(), 2, "{:?}", analysis.refused);
    assert!(
        analysis.refused.iter().all(|r| r.reason.contains("data race")),
        "{:?}",
        analysis.refused
    );
    assert!(aliased_layouts(&corpus("pbo_gemm.toml"), 0).allowed.is_empty());
}
