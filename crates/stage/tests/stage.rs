//! Staging real kernels: each MAP's buffer staged, validated on the simulator, the diff
//! compared with its snapshot under `tests/stage/`.

use std::path::{Path, PathBuf};

use clmap_exec::PreparedWorkload;
use clmap_stage::{stage_buffer, StageLimits, StagedVariant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn prepare(workload: &str) -> PreparedWorkload {
    PreparedWorkload::load(&root().join(workload)).expect("the workload loads")
}

fn stage(workload: &str, kernel: &str, buffer: &str) -> StagedVariant {
    let original = prepare(workload);
    match stage_buffer(&original, kernel, buffer, &StageLimits::default()) {
        Ok(v) => v,
        Err(r) => panic!("{}", clmap_stage::describe_refusal(&r, original.sources())),
    }
}

#[test]
fn matrix_multiply_rows_of_a() {
    let v = stage("tests/corpus/mm_simple.toml", "simpleMultiply", "A");
    assert_eq!(v.footprint.imap.as_deref(), Some("Row"), "{:?}", v.footprint);
    assert_eq!((v.footprint.rows, v.footprint.columns), (16, 256));
    assert!(v.diff.contains("A_tile[get_local_id(0) * 256 + k]"), "{}", v.diff);
    assert_eq!(v.validation.outputs, ["C"]);
}
