//! `clmap advise` judges a buffer read in the same loop as another detected buffer by their
//! interleaved pair's record (rule `interleaved`), not by its single-MAP record: a multiply
//! against a database where the pair says "stage B" and MAP-302 alone says "keep it global";
//! and a kernel whose two buffers are walked in separate loops keeps the single-MAP rules.

mod common;

use std::path::{Path, PathBuf};

use clmap_aristotle::store::{self, UnitKey, UnitResult, UnitSetup};
use clmap_testkit::{clmap, Scratch};
use common::MATMUL;

const DEVICE: &str = "pair test gpu";
const BYTES: u64 = 1_000_000;
const WORK_GROUP: [usize; 2] = [16, 16];

/// The same two reads, one loop after the other: nothing interleaves.
const TWO_LOOPS: &str = "__kernel void sums(__global const float *A, __global const float *B,
                   __global float *C, int n)
{
    int col = get_global_id(0);
    int row = get_global_id(1);
    float acc = 0.0f;
    for (int i = 0; i < n; i++)
        acc += A[row * n + i];
    for (int j = 0; j < n; j++)
        acc += B[j * n + col];
    C[row * n + col] = acc;
}
";

fn workload(dir: &Scratch, source: &str, kernel: &str) -> PathBuf {
    dir.write(format!("{kernel}.cl"), source);
    let mut text = format!(
        "kernel = \"{kernel}\"\nsource = \"{kernel}.cl\"\nglobal = [64, 64]\nlocal  = [16, 16]\n"
    );
    for (name, output) in [("A", false), ("B", false), ("C", true)] {
        let init = if output { "\"zero\"\noutput = true" } else { "\"random(1, -1.0, 1.0)\"" };
        text.push_str(&format!(
            "\n[[arg]]\nname   = \"{name}\"\nbuffer = \"float\"\nlen    = 4096\ninit   = {init}\n"
        ));
    }
    text.push_str("\n[[arg]]\nname   = \"n\"\nscalar = \"int\"\nvalue  = 64\n");
    dir.write(format!("{kernel}.toml"), text)
}

/// A database with, at N = 64 on 16×16 work-groups, each `(map, variant, GB/s)` measured.
fn database(dir: &Scratch, units: &[(u16, &str, f64)]) -> PathBuf {
    let path = dir.join("pairs.db");
    let (mut db, device) =
        common::test_gpu_database(&path, DEVICE, serde_json::json!({ "local_mem_bytes": 49152 }));
    let setup = UnitSetup { work_group: WORK_GROUP, warmup: 1, flush_cache: true };
    for &(map, variant, gbs) in units {
        let ns = (BYTES as f64 / gbs).round() as u64;
        let key = UnitKey { map, variant: variant.into(), dataset: 64 };
        let result = UnitResult::Measured { bytes_moved: BYTES, samples_ns: vec![ns; 3] };
        store::record_unit(&mut db, device, &key, &setup, &result).expect("unit");
    }
    path
}

fn advise(workload: &Path, db: &Path, json: bool) -> clmap_testkit::ClmapRun {
    advise_with(workload, db, json, true)
}

fn advise_with(
    workload: &Path,
    db: &Path,
    json: bool,
    interleaved: bool,
) -> clmap_testkit::ClmapRun {
    let mut args = vec![
        "advise",
        workload.to_str().expect("UTF-8"),
        "--device",
        DEVICE,
        "--db",
        db.to_str().expect("UTF-8"),
        "--no-measure",
    ];
    if interleaved {
        args.push("--interleaved");
    }
    if json {
        args.push("--json");
    }
    let run = clmap(&args);
    run.assert_success();
    run
}

fn entry(list: &serde_json::Value, buffer: &str) -> serde_json::Value {
    list.as_array()
        .expect("a list")
        .iter()
        .find(|e| e["buffer"] == buffer)
        .cloned()
        .unwrap_or_else(|| panic!("no entry for {buffer} in {list:#}"))
}

fn placed(e: &serde_json::Value) -> (&str, &str) {
    (e["advice"].as_str().expect("advice"), e["rule"].as_str().expect("rule"))
}

/// Single MAPs: staging either operand alone loses (b = 10, B = 8 GB/s). The pair of B
/// (MAP-302) read beside A (MAP-205, global): staging B doubles the bandwidth.
const RECORDS: [(u16, &str, f64); 6] = [
    (205, "nolocal", 10.0),
    (205, "stage", 8.0),
    (302, "nolocal", 10.0),
    (302, "stage", 8.0),
    (302, "interleaved-205-gg", 10.0),
    (302, "interleaved-205-sg", 20.0),
];

#[test]
fn the_interleaved_record_stages_a_multiply_s_column_operand_the_single_map_keeps_global() {
    let dir = Scratch::new("advise-interleaved-mm");
    let db = database(&dir, &RECORDS);
    let w = workload(&dir, MATMUL, "mm");
    let list = advise(&w, &db, true).json();
    let b = entry(&list, "B");
    assert_eq!(placed(&b), ("local", "interleaved"), "{b:#}");
    assert_eq!(b["interleaved"]["with"], "A", "{b:#}");
    assert_eq!(b["interleaved"]["maps"], serde_json::json!(["MAP-302", "MAP-205"]), "{b:#}");
    assert_eq!(b["interleaved"]["sweep"], "k", "{b:#}");
    assert_eq!(
        b["interleaved"]["compared"],
        serde_json::json!(["interleaved-205-gg", "interleaved-205-sg"])
    );
    assert_eq!(b["expected_gain"].as_f64(), Some(2.0), "{b:#}");
    let why = b["reasoning"].as_str().expect("reasoning");
    assert!(why.contains("the single-MAP record alone gave rule 5.1 (global)"), "{why}");
    let measured: Vec<&str> = b["measurements"]
        .as_array()
        .expect("measurements")
        .iter()
        .map(|m| m["variant"].as_str().expect("variant"))
        .collect();
    assert_eq!(measured, ["interleaved-205-gg", "interleaved-205-sg"]);
    // A's pair (A staged beside B) is not in the database: its single-MAP record decides, and
    // the advice says why.
    let a = entry(&list, "A");
    assert_eq!(placed(&a), ("global", "5.1"), "{a:#}");
    assert!(a.get("interleaved").is_none(), "{a:#}");
    let why = a["reasoning"].as_str().expect("reasoning");
    assert!(why.contains("read in the loop over `k` with `B`"), "{why}");
    assert!(why.contains("the interleaved pair has no record (not measured)"), "{why}");
    // The text names the record that decided.
    let text = advise(&w, &db, false).stdout();
    assert!(
        text.contains(
            "B: MAP-302, N = 64 → stage in __local; expected gain ×2.00; rule interleaved"
        ),
        "{text}"
    );
    assert!(
        text.contains("decided by the interleaved pair MAP-302 × MAP-205 (loop `k` with `A`)"),
        "{text}"
    );
}

#[test]
fn without_interleaved_the_single_map_records_decide_as_before() {
    let dir = Scratch::new("advise-interleaved-off");
    let db = database(&dir, &RECORDS);
    let w = workload(&dir, MATMUL, "mm");
    let list = advise_with(&w, &db, true, false).json();
    for buffer in ["A", "B"] {
        let e = entry(&list, buffer);
        assert_eq!(placed(&e), ("global", "5.1"), "{e:#}");
        assert!(e.get("interleaved").is_none(), "{e:#}");
        let why = e["reasoning"].as_str().expect("reasoning");
        assert!(!why.contains("interleaved"), "{why}");
    }
}

#[test]
fn a_tied_interleaved_record_leaves_the_decision_to_the_single_map_record() {
    let dir = Scratch::new("advise-interleaved-tie");
    let mut records = RECORDS.to_vec();
    // MAP-302 alone gains ×2; its pair beside A is a tie.
    records[3] = (302, "stage", 20.0);
    records[5] = (302, "interleaved-205-sg", 10.2);
    let db = database(&dir, &records);
    let list = advise(&workload(&dir, MATMUL, "mm"), &db, true).json();
    let b = entry(&list, "B");
    assert_eq!(placed(&b), ("local", "5.2"), "{b:#}");
    assert!(b.get("interleaved").is_none(), "{b:#}");
    let why = b["reasoning"].as_str().expect("why");
    assert!(why.contains("B/b = 1.020 staging it (±5.0 % counts as a tie), no evidence"), "{why}");
}

#[test]
fn buffers_walked_in_separate_loops_keep_their_single_map_rules() {
    let dir = Scratch::new("advise-interleaved-two-loops");
    let db = database(&dir, &RECORDS);
    let list = advise(&workload(&dir, TWO_LOOPS, "sums"), &db, true).json();
    for buffer in ["A", "B"] {
        let e = entry(&list, buffer);
        assert_eq!(placed(&e), ("global", "5.1"), "{e:#}");
        assert!(e.get("interleaved").is_none(), "{e:#}");
        let why = e["reasoning"].as_str().expect("reasoning");
        assert!(!why.contains("interleaved"), "{why}");
        let variants: Vec<&str> = e["measurements"]
            .as_array()
            .expect("measurements")
            .iter()
            .map(|m| m["variant"].as_str().expect("variant"))
            .collect();
        assert_eq!(variants, ["nolocal", "stage"], "{e:#}");
    }
}

/// Both operands gain in their pairs (A ×1.4, B ×1.2, each beside the other in global
/// memory); `ss` is A's pair with both staged, against A staged alone (`sg`, 14 GB/s).
fn both_gain(ss: f64) -> Vec<(u16, &'static str, f64)> {
    let mut records = RECORDS.to_vec();
    records[5] = (302, "interleaved-205-sg", 12.0);
    records.extend([
        (205, "interleaved-302-gg", 10.0),
        (205, "interleaved-302-sg", 14.0),
        (205, "interleaved-302-ss", ss),
    ]);
    records
}

#[test]
fn when_both_operands_gain_both_are_staged_only_if_the_pair_staged_twice_beats_one() {
    let dir = Scratch::new("advise-interleaved-both");
    let w = workload(&dir, MATMUL, "mm");
    // Staging B as well slows A's staged pair down: only A, the larger gain, is staged.
    let list = advise(&w, &database(&dir, &both_gain(13.0)), true).json();
    let (a, b) = (entry(&list, "A"), entry(&list, "B"));
    assert_eq!(placed(&a), ("local", "interleaved"), "{a:#}");
    assert_eq!(placed(&b), ("global", "interleaved"), "{b:#}");
    assert_eq!(b["expected_gain"].as_f64(), Some(1.0), "{b:#}");
    let why = b["reasoning"].as_str().expect("reasoning");
    assert!(
        why.contains("`A` is advised to change too (expected ×1.40, the larger gain)"),
        "{why}"
    );
    assert!(why.contains("did not beat it (B/b = 0.929)"), "{why}");
    // Staging both beats A alone: both are staged.
    let dir = Scratch::new("advise-interleaved-both-gain");
    let list = advise(&w, &database(&dir, &both_gain(20.0)), true).json();
    for buffer in ["A", "B"] {
        let e = entry(&list, buffer);
        assert_eq!(placed(&e), ("local", "interleaved"), "{e:#}");
        let why = e["reasoning"].as_str().expect("reasoning");
        assert!(why.contains("both are followed"), "{why}");
    }
}
