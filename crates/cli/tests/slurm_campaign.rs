//! A phase search split into shards that run as a Slurm job array on this machine, merged with
//! `clmap db merge`: the merged database must hold exactly what one process running the whole
//! search stores. Slurm is started on localhost when it is installed but not running
//! (`scripts/slurm-localhost.sh`); without Slurm the test says so and passes, unless
//! `CLMAP_REQUIRE_SLURM=1`. The device is PoCL (`--any-device`: every candidate fails to load,
//! deterministically), the compiler the real LLVM toolchain.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use clmap_testkit::{clmap_command, root, Scratch};

fn skip(why: &str) {
    if std::env::var("CLMAP_REQUIRE_SLURM").as_deref() == Ok("1") {
        panic!("CLMAP_REQUIRE_SLURM=1 but {why}");
    }
    eprintln!("skipped: {why}; set CLMAP_REQUIRE_SLURM=1 to make this a failure");
}

/// Sequences (hash, passes, origin, outcome, PTX) and PTX verdicts of a database's only
/// phase context, with that context's key.
type Results = (
    String,
    BTreeSet<(String, String, String, String, Option<String>)>,
    BTreeSet<(String, String)>,
);

fn results(db: &Path) -> Results {
    let db = clmap_db::Database::open(db).expect("database opens");
    let conn = db.connection();
    let key: String =
        conn.query_row("SELECT key FROM phase_contexts", [], |r| r.get(0)).expect("one context");
    let mut stmt = conn
        .prepare("SELECT seq_hash, passes, origin, compile_status, ptx_hash FROM phase_sequences")
        .unwrap();
    let sequences = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut stmt = conn.prepare("SELECT ptx_hash, verdict FROM phase_ptx").unwrap();
    let ptx = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    (key, sequences, ptx)
}

/// As many shards as the campaign the issue asks CI to run.
const SHARDS: usize = 4;

#[test]
fn a_four_shard_campaign_through_slurm_merges_into_the_single_process_results() {
    if Command::new("sinfo").arg("--version").output().is_err() {
        skip("Slurm is not installed (apt-get install slurm-wlm munge)");
        return;
    }
    let started = Command::new(root().join("scripts/slurm-localhost.sh")).output().expect("runs");
    match started.status.code() {
        Some(0) => {}
        Some(2) => {
            skip(&format!(
                "Slurm cannot be started here: {}",
                String::from_utf8_lossy(&started.stderr)
            ));
            return;
        }
        other => {
            panic!("Slurm did not start ({other:?}): {}", String::from_utf8_lossy(&started.stderr))
        }
    }

    let scratch = Scratch::new("slurm-campaign");
    let options = [
        "--small",
        "tests/corpus/pbo_gemm.toml",
        "--device",
        "cpu",
        "--any-device",
        "--budget",
        "12",
        "--length",
        "6",
        "--reps",
        "1",
        "--final-reps",
        "1",
        "--random-inputs",
        "0",
        "--aliased-inputs",
        "0",
        "--no-minimise",
        "--jobs",
        "1",
    ];
    // The single-process run first: it also detects the pass pool once for the shards.
    let single_db = scratch.join("single.db");
    let single = clmap_command()
        .args(["phase", "tests/corpus/pbo_gemm.toml"])
        .args(options)
        .args(["--strategy", "random", "--json", "--db"])
        .arg(&single_db)
        .output()
        .expect("clmap runs");
    match single.status.code() {
        Some(0) => {}
        Some(3)
            if std::env::var("CLMAP_REQUIRE_CLANG").as_deref() != Ok("1")
                && std::env::var("CLMAP_REQUIRE_OPENCL").as_deref() != Ok("1") =>
        {
            eprintln!(
                "skipped: no toolchain or no OpenCL device ({})",
                String::from_utf8_lossy(&single.stderr)
            );
            return;
        }
        other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&single.stderr)),
    }

    let outdir = scratch.join("campaign");
    let campaign = Command::new(root().join("bench/phase/slurm-campaign.sh"))
        .current_dir(root())
        .env("CLMAP", clmap_command().get_program())
        .arg(&outdir)
        .arg(SHARDS.to_string())
        .arg("tests/corpus/pbo_gemm.toml")
        .args(options)
        .output()
        .expect("the campaign script runs");
    assert!(
        campaign.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&campaign.stdout),
        String::from_utf8_lossy(&campaign.stderr)
    );
    // Each shard ran as its own job and wrote its own database and report.
    let mut shard_sequences = 0;
    for shard in 0..SHARDS {
        let report: serde_json::Value = serde_json::from_slice(
            &std::fs::read(outdir.join(format!("shard-{shard}.json"))).expect("shard report"),
        )
        .expect("JSON");
        assert_eq!(report["counts"]["sequences"], 12 / SHARDS, "shard {shard}");
        let (_, sequences, _) = results(&outdir.join(format!("shard-{shard}.db")));
        assert_eq!(sequences.len(), 12 / SHARDS);
        assert!(sequences.iter().all(|s| {
            let index: usize = s.2.trim_start_matches("random:").parse().unwrap();
            index % SHARDS == shard
        }));
        shard_sequences += sequences.len();
    }
    assert_eq!(shard_sequences, 12);

    let merged = results(&outdir.join("merged.db"));
    let whole = results(&single_db);
    assert_eq!(merged.0, whole.0, "one search context");
    assert_eq!(merged.1, whole.1, "the same sequences with the same outcomes");
    assert_eq!(merged.2, whole.2, "the same PTX with the same verdicts");
    assert_eq!(merged.1.len(), 12);

    // On the merged database the whole search resumes without compiling anything.
    let resumed = clmap_command()
        .args(["phase", "tests/corpus/pbo_gemm.toml"])
        .args(options)
        .args(["--strategy", "random", "--json", "--db"])
        .arg(outdir.join("merged.db"))
        .output()
        .expect("clmap runs");
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let report: serde_json::Value = serde_json::from_slice(&resumed.stdout).expect("JSON");
    assert_eq!(report["counts"]["resumed"], 12);
}
