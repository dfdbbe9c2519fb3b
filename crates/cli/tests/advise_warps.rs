//! `clmap advise` splits each buffer's reuse between the work-items of one warp and different
//! warps: hand-written kernels (a matrix multiply on two work-group shapes, a column read, a
//! vector every work-item walks) against a database whose every MAP gains from staging, so
//! that only the split can keep a buffer in global memory.

mod common;

use std::path::{Path, PathBuf};

use clmap_aristotle::store::{self, UnitKey, UnitResult, UnitSetup};
use clmap_testkit::{clmap, Scratch};
use common::MATMUL;

const DEVICE: &str = "warp test gpu";
const BYTES: u64 = 1_000_000;

const COLUMN: &str = "__kernel void colsum(__global const float *M, __global float *out, int n)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += M[k * n + y];
    out[y * n + x] = acc;
}
";

const VECTOR: &str = "__kernel void scale(__global const float *s, __global const float *v,
                    __global float *out, int n)
{
    int i = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += s[k] * v[i];
    out[i] = acc;
}
";

fn buffer(name: &str, len: usize, output: bool) -> String {
    let init = if output { "\"zero\"\noutput = true" } else { "\"random(1, -1.0, 1.0)\"" };
    format!("\n[[arg]]\nname   = \"{name}\"\nbuffer = \"float\"\nlen    = {len}\ninit   = {init}\n")
}

/// A workload of `kernel` in `source` on `global` and `local`, its buffers `(name, len,
/// output)` then the scalar `n = 64`.
fn workload(
    dir: &Scratch,
    name: &str,
    source: &str,
    kernel: &str,
    sizes: (&str, &str),
    buffers: &[(&str, usize, bool)],
) -> PathBuf {
    dir.write(format!("{kernel}.cl"), source);
    let mut text = format!(
        "kernel = \"{kernel}\"\nsource = \"{kernel}.cl\"\nglobal = {}\nlocal  = {}\n",
        sizes.0, sizes.1
    );
    for &(b, len, output) in buffers {
        text.push_str(&buffer(b, len, output));
    }
    text.push_str("\n[[arg]]\nname   = \"n\"\nscalar = \"int\"\nvalue  = 64\n");
    dir.write(format!("{name}.toml"), text)
}

/// A database whose device records `details`, with b = 10 and B = 20 GB/s (staging gains ×2)
/// for every `(map, dataset, work-group)`.
fn database(
    dir: &Scratch,
    details: serde_json::Value,
    units: &[(u16, usize, [usize; 2])],
) -> PathBuf {
    let path = dir.join("warps.db");
    let (mut db, device) = common::test_gpu_database(&path, DEVICE, details);
    for &(map, dataset, work_group) in units {
        let setup = UnitSetup { work_group, warmup: 1, flush_cache: true };
        for (variant, gbs) in [("nolocal", 10.0), ("stage", 20.0)] {
            let ns = (BYTES as f64 / gbs).round() as u64;
            let key = UnitKey { map, variant: variant.into(), dataset };
            let result = UnitResult::Measured { bytes_moved: BYTES, samples_ns: vec![ns; 3] };
            store::record_unit(&mut db, device, &key, &setup, &result).expect("unit");
        }
    }
    path
}

fn advise(workload: &Path, db: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "advise",
        workload.to_str().expect("UTF-8"),
        "--device",
        DEVICE,
        "--db",
        db.to_str().expect("UTF-8"),
        "--no-measure",
        "--json",
    ];
    args.extend_from_slice(extra);
    let run = clmap(&args);
    run.assert_success();
    run.json()
}

fn entry(list: &serde_json::Value, buffer: &str) -> serde_json::Value {
    list.as_array()
        .expect("a list")
        .iter()
        .find(|e| e["buffer"] == buffer)
        .cloned()
        .unwrap_or_else(|| panic!("no entry for {buffer} in {list:#}"))
}

/// (within a warp, across warps) as the advice reports them.
fn split(e: &serde_json::Value) -> (f64, f64) {
    let r = &e["reuse"];
    (
        r["within_warp"].as_f64().unwrap_or_else(|| panic!("no reuse in {e:#}")),
        r["across_warps"].as_f64().expect("across"),
    )
}

fn placed(e: &serde_json::Value) -> (&str, &str) {
    (e["advice"].as_str().expect("advice"), e["rule"].as_str().expect("rule"))
}

const MATRICES: [(&str, usize, bool); 3] =
    [("A", 4096, false), ("B", 4096, false), ("C", 4096, true)];

const WARP_32: fn() -> serde_json::Value =
    || serde_json::json!({ "local_mem_bytes": 49152, "simd_width": 32 });

#[test]
fn a_multiplys_row_operand_is_a_broadcast_within_a_warp_and_its_column_operand_is_not() {
    let dir = Scratch::new("advise-warps-mm");
    let units = [(205, 64, [32, 8]), (302, 64, [32, 8]), (205, 64, [16, 16]), (302, 64, [16, 16])];
    let db = database(&dir, WARP_32(), &units);
    for (name, local, a_within, b_split) in
        [("mm32x8", "[32, 8]", 32.0, (1.0, 8.0)), ("mm16x16", "[16, 16]", 16.0, (2.0, 8.0))]
    {
        let w = workload(&dir, name, MATMUL, "mm", ("[64, 64]", local), &MATRICES);
        let list = advise(&w, &db, &[]);
        // A[row][k]: every work-item of one row of the group reads it in the same step, all
        // in one warp. Staging gains ×2 in the database, and A still stays global, unmeasured.
        let a = entry(&list, "A");
        assert_eq!(split(&a), (a_within, 1.0), "{name}: {a:#}");
        assert_eq!(placed(&a), ("global", "warp"), "{name}: {a:#}");
        assert_eq!(a["measurements"].as_array().map(Vec::len), Some(0), "{a:#}");
        let why = a["reasoning"].as_str().expect("reasoning");
        assert!(
            why.contains(&format!(
                "reuse {a_within}× within a warp (broadcast), 1× across warps (warps of 32)"
            )),
            "{why}"
        );
        // B[k][col]: each element is read by one work-item (two on 16 x 16) of each of 8 warps;
        // its record decides, and the reasoning gives the split.
        let b = entry(&list, "B");
        assert_eq!(split(&b), b_split, "{name}: {b:#}");
        assert_eq!(placed(&b), ("local", "5.2"), "{name}: {b:#}");
        assert!(b["reasoning"].as_str().expect("why").contains("8× across warps"), "{b:#}");
    }
}

#[test]
fn the_split_follows_the_devices_simd_width() {
    let dir = Scratch::new("advise-warps-width");
    let units = [(205, 64, [32, 8]), (302, 64, [32, 8])];
    let w = workload(&dir, "mm", MATMUL, "mm", ("[64, 64]", "[32, 8]"), &MATRICES);
    // A device recorded before the width was kept: nothing is split, both operands gain.
    let old = Scratch::new("advise-warps-width-none");
    let db = database(&old, serde_json::json!({ "local_mem_bytes": 49152 }), &units);
    let list = advise(&w, &db, &[]);
    let a = entry(&list, "A");
    assert!(a.get("reuse").is_none(), "{a:#}");
    assert_eq!(placed(&a).0, "local", "{a:#}");
    // 8-wide SIMD groups (PoCL's preferred multiple): a row of 32 work-items is 4 of them, so
    // A's reuse is partly across warps and its record decides.
    let list = advise(&w, &db, &["--simd-width", "8"]);
    let a = entry(&list, "A");
    assert_eq!(split(&a), (8.0, 4.0), "{a:#}");
    assert_eq!(placed(&a).0, "local", "{a:#}");
    // --simd-width overrides what the database records.
    let db32 = database(&dir, WARP_32(), &units);
    assert_eq!(placed(&entry(&advise(&w, &db32, &[]), "A")).1, "warp");
    assert_eq!(split(&entry(&advise(&w, &db32, &["--simd-width", "8"]), "A")), (8.0, 4.0));
}

#[test]
fn a_column_read_by_a_whole_warp_is_a_broadcast() {
    // M[k][y]: the column follows ty (MAP-303), so the 32 work-items of a warp share it.
    let dir = Scratch::new("advise-warps-column");
    let db = database(&dir, WARP_32(), &[(303, 64, [32, 8])]);
    let w = workload(
        &dir,
        "colsum",
        COLUMN,
        "colsum",
        ("[64, 64]", "[32, 8]"),
        &[("M", 4096, false), ("out", 4096, true)],
    );
    let m = entry(&advise(&w, &db, &[]), "M");
    assert_eq!(m["map"], "MAP-303");
    assert_eq!(split(&m), (32.0, 1.0), "{m:#}");
    assert_eq!(placed(&m), ("global", "warp"), "{m:#}");
}

#[test]
fn a_vector_every_work_item_walks_is_shared_across_warps_only_in_groups_of_several_warps() {
    // s[k]: in each step every work-item reads the same element, a scalar broadcast to the
    // group. A group of one warp reads it in one transaction; a group of two warps twice.
    let dir = Scratch::new("advise-warps-vector");
    let db = database(&dir, WARP_32(), &[(205, 64, [64, 1])]);
    let buffers = [("s", 64, false), ("v", 128, false), ("out", 128, true)];
    let two = workload(&dir, "scale64", VECTOR, "scale", ("[128]", "[64]"), &buffers);
    let s = entry(&advise(&two, &db, &[]), "s");
    assert_eq!(split(&s), (32.0, 2.0), "{s:#}");
    assert_eq!(placed(&s), ("local", "5.2"), "{s:#}");
    let one = workload(&dir, "scale32", VECTOR, "scale", ("[128]", "[32]"), &buffers);
    // No record on 32 x 1 groups is needed: the broadcast is decided without one.
    let s = entry(&advise(&one, &db, &[]), "s");
    assert_eq!(split(&s), (32.0, 1.0), "{s:#}");
    assert_eq!(placed(&s), ("global", "warp"), "{s:#}");
}

#[test]
fn a_record_of_another_work_group_says_how_its_warps_split_the_reuse() {
    // Only 16 x 16 records for the multiply's 32 x 8 launch: --nearest answers from them, and
    // B's reasoning says that those groups split its reuse otherwise (2× within a warp).
    let dir = Scratch::new("advise-warps-nearest");
    let db = database(&dir, WARP_32(), &[(205, 64, [16, 16]), (302, 64, [16, 16])]);
    let w = workload(&dir, "mm", MATMUL, "mm", ("[64, 64]", "[32, 8]"), &MATRICES);
    let run = clmap(&[
        "advise",
        w.to_str().expect("UTF-8"),
        "--device",
        DEVICE,
        "--db",
        db.to_str().expect("UTF-8"),
        "--nearest",
        "--json",
    ]);
    run.assert_success();
    let b = entry(&run.json(), "B");
    assert_eq!(split(&b), (1.0, 8.0), "{b:#}");
    let why = b["reasoning"].as_str().expect("reasoning");
    assert!(
        why.contains(
            "on 32x8 work-groups, reuse 1× within a warp, 8× across warps (warps of 32) \
             (the record's 16x16 work-groups: reuse 2× within a warp (broadcast), 8× across \
             warps (warps of 32))"
        ),
        "{why}"
    );
    // A is a broadcast on both shapes and needs no record.
    assert_eq!(placed(&entry(&run.json(), "A")), ("global", "warp"));
}
