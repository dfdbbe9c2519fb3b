//! Grover over every workload of the kernel corpus: it must never panic, and whatever it
//! rewrites must compute the same outputs as the original on several inputs (the guarantee
//! `clmap unlocal` gives before printing a kernel).

use clmap_exec::PreparedWorkload;
use clmap_grover::{unlocal, validate::validate_compiled, UnlocalOptions};
use std::path::Path;

/// Every rewritten workload is simulated four times (original and rewrite, several seeds):
/// about ten seconds with the simulator optimised, as test builds have it.
#[test]
fn every_rewrite_of_the_corpus_validates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("toml"))
        .collect();
    entries.sort();
    let mut rewritten = Vec::new();
    for path in entries {
        let Ok(prepared) = PreparedWorkload::load(&path) else { continue };
        let compiled = prepared.compiled();
        let mut kernels: Vec<String> =
            prepared.workload().launches.iter().map(|l| l.kernel.clone()).collect();
        kernels.dedup();
        // Pipelines run several kernels; rewriting one at a time keeps the others as they are.
        for kernel in kernels {
            let options = UnlocalOptions { kernel: Some(kernel.clone()), ..Default::default() };
            let mut outcome = unlocal(compiled, &options).expect("grover runs on corpus kernels");
            if !outcome.changed() {
                continue;
            }
            let verified = outcome.verified.take();
            if let Err(e) = validate_compiled(&prepared, &outcome.text, verified, 2) {
                panic!(
                    "{} ({kernel}): the rewrite does not validate: {e}\n{}",
                    path.display(),
                    outcome.text
                );
            }
            rewritten.push(format!(
                "{}:{kernel}",
                path.file_name().and_then(|n| n.to_str()).unwrap_or("")
            ));
        }
    }
    eprintln!("rewritten and validated: {}", rewritten.join(", "));
    // The seed-000 patterns of the corpus are among them.
    for expected in
        ["transpose_local_padded", "mm_nvidia_tile_ab", "stencil3d_parboil", "string_search"]
    {
        assert!(
            rewritten.iter().any(|r| r.starts_with(expected)),
            "{expected} was not rewritten; rewritten: {rewritten:?}"
        );
    }
}
