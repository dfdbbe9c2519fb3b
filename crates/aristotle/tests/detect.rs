//! Automatic MAP detection: the generated microbenchmarks of the 33 MAPs are detected as
//! themselves, hand-written kernels with known patterns as theirs, and what fits no MAP is
//! refused with the reason.

use std::path::{Path, PathBuf};

use clmap_aristotle::detect::{detect, shared_sweep, Check, Detection, Outcome};
use clmap_aristotle::generate::{generate, BenchSpec, Variant};
use clmap_aristotle::map::valid_maps;
use clmap_exec::PreparedWorkload;

fn detect_prepared(prepared: &PreparedWorkload) -> Vec<Detection> {
    detect(prepared.module(), prepared.workload(), prepared.sources())
}

/// Writes `source` and a workload around it to a fresh directory and detects.
fn detect_kernel(name: &str, source: &str, toml: &str) -> Vec<Detection> {
    let dir = std::env::temp_dir().join(format!("clmap-detect-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join(format!("{name}.cl")), source).expect("write kernel");
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, format!("source = \"{name}.cl\"\n{toml}")).expect("write workload");
    let prepared = PreparedWorkload::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    detect_prepared(&prepared)
}

fn map_of<'a>(detections: &'a [Detection], buffer: &str) -> &'a Outcome {
    &detections
        .iter()
        .find(|d| d.buffer == buffer)
        .unwrap_or_else(|| panic!("no detection for {buffer}: {detections:?}"))
        .outcome
}

fn assert_map(detections: &[Detection], buffer: &str, expected: &str, radius: u32) {
    match map_of(detections, buffer) {
        Outcome::Map { map, check, .. } => {
            assert_eq!(map.name(), expected, "{buffer}");
            if radius > 0 {
                assert_eq!(map.radius, radius, "{buffer}");
            }
            assert!(matches!(check, Check::Agree { groups } if *groups > 0), "{buffer}: {check:?}");
        }
        other => panic!("{buffer}: expected {expected}, got {other:?}"),
    }
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(name)
}

const SQUARE_32: &str = "kernel = \"k\"\nglobal = [32, 32]\nlocal = [8, 8]\n";

fn buffer(name: &str, len: u64) -> String {
    format!("[[arg]]\nname = \"{name}\"\nbuffer = \"float\"\nlen = {len}\ninit = \"random(1, 0.0, 1.0)\"\n")
}

fn output(len: u64) -> String {
    format!("[[arg]]\nname = \"out\"\nbuffer = \"float\"\nlen = {len}\ninit = \"zero\"\noutput = true\n")
}

fn int(name: &str, value: i64) -> String {
    format!("[[arg]]\nname = \"{name}\"\nscalar = \"int\"\nvalue = {value}\n")
}

#[test]
fn naive_matrix_multiply_reads_a_by_rows_and_b_by_columns() {
    let source = "__kernel void k(__global const float *A, __global const float *B, __global float *out, int N) {
    int row = get_global_id(1);
    int col = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < N; k++)
        acc += A[row * N + k] * B[k * N + col];
    out[row * N + col] = acc;
}";
    let toml = format!(
        "{SQUARE_32}{}{}{}{}",
        buffer("A", 1024),
        buffer("B", 1024),
        output(1024),
        int("N", 32)
    );
    let d = detect_kernel("mm", source, &toml);
    assert_map(&d, "A", "MAP-205", 0);
    assert_map(&d, "B", "MAP-302", 0);
}

fn detection<'a>(detections: &'a [Detection], buffer: &str) -> &'a Detection {
    detections
        .iter()
        .find(|d| d.buffer == buffer)
        .unwrap_or_else(|| panic!("no detection for {buffer}: {detections:?}"))
}

#[test]
fn a_multiply_s_operands_are_swept_along_the_same_loop() {
    // A's row and B's column advance together with `k`; C is read in the loop too, but at
    // one element, so it is swept along no loop.
    let source = "__kernel void k(__global const float *A, __global const float *B, __global float *C, int N) {
    int row = get_global_id(1);
    int col = get_global_id(0);
    for (int k = 0; k < N; k++)
        C[row * N + col] += A[row * N + k] * B[k * N + col];
}";
    let toml = format!(
        "{SQUARE_32}{}{}{}{}",
        buffer("A", 1024),
        buffer("B", 1024),
        output(1024).replace("\"out\"", "\"C\""),
        int("N", 32)
    );
    let d = detect_kernel("mm_shared", source, &toml);
    let (a, b, c) = (detection(&d, "A"), detection(&d, "B"), detection(&d, "C"));
    let shared = shared_sweep(a, b).expect("A and B share the loop over k");
    assert_eq!(shared.name, "k");
    assert_eq!(shared_sweep(b, a).map(|s| &s.name), Some(&shared.name));
    assert!(c.sweeps.is_empty(), "{:?}", c.sweeps);
    assert_eq!(shared_sweep(a, c), None);
    assert_eq!(shared_sweep(a, a), None, "a buffer is not its own partner");
}

#[test]
fn buffers_walked_in_separate_loops_share_no_sweep() {
    // Two rows summed one after the other: each has its loop, neither sees the other's.
    let source = "__kernel void k(__global const float *A, __global const float *B, __global float *out, int N) {
    int row = get_global_id(1);
    int col = get_global_id(0);
    float acc = 0.0f;
    for (int i = 0; i < N; i++)
        acc += A[row * N + i];
    for (int j = 0; j < N; j++)
        acc += B[j * N + col];
    out[row * N + col] = acc;
}";
    let toml = format!(
        "{SQUARE_32}{}{}{}{}",
        buffer("A", 1024),
        buffer("B", 1024),
        output(1024),
        int("N", 32)
    );
    let d = detect_kernel("two_loops", source, &toml);
    let (a, b) = (detection(&d, "A"), detection(&d, "B"));
    assert_map(&d, "A", "MAP-205", 0);
    assert_map(&d, "B", "MAP-302", 0);
    assert_eq!(a.sweeps.len(), 1);
    assert_eq!(b.sweeps.len(), 1);
    assert_eq!(shared_sweep(a, b), None);
}

#[test]
fn a_staged_operand_shares_the_outer_step_with_the_global_one() {
    // mm_float4_tiled stages A per step and reads B in an inner loop of the same step.
    let prepared = PreparedWorkload::load(&corpus("mm_float4_tiled.toml")).expect("loads");
    let d = detect_prepared(&prepared);
    let shared = shared_sweep(detection(&d, "B"), detection(&d, "A")).expect("a shared loop");
    assert_eq!(shared.name, "step");
}

#[test]
fn the_corpus_matrix_multiply_indexes_rows_by_x() {
    // simpleMultiply takes its row from get_global_id(0): A's row moves with tx (MAP-204)
    // and B's column with ty (MAP-303).
    let prepared = PreparedWorkload::load(&corpus("mm_simple.toml")).expect("loads");
    let d = detect_prepared(&prepared);
    assert_map(&d, "A", "MAP-204", 0);
    assert_map(&d, "B", "MAP-303", 0);
}

#[test]
fn an_unrolled_walk_down_a_column_is_the_column_map() {
    // mm_float4_tiled reads B four rows at a time, `B[(kb + 0) * n4 + gx]` … `B[(kb + 3) *
    // n4 + gx]` with kb stepping by 4: no loop counter's coefficient is the row, the distance
    // between the four reads is. Each work-item reads all of column gx (MAP-302), as the
    // naive multiply's B; A, staged in a tile, is read by rows chosen by y.
    let prepared = PreparedWorkload::load(&corpus("mm_float4_tiled.toml")).expect("loads");
    let d = detect_prepared(&prepared);
    assert_map(&d, "B", "MAP-302", 0);
    assert_map(&d, "A", "MAP-205", 0);
}

#[test]
fn a_tile_declared_as_a_two_dimensional_local_array_is_seen_through() {
    // coalescedAMultiply stages A in `__local float aTile[16][16]`, stored as
    // `aTile[localRow][localCol] = A[…]`: the store's place indexes a row of the array, which
    // is local memory too. Through the tile each work-item reads all of row tx (MAP-204),
    // as simpleMultiply reads A directly.
    let prepared = PreparedWorkload::load(&corpus("mm_coalesced_a.toml")).expect("loads");
    let d = detect_prepared(&prepared);
    match map_of(&d, "A") {
        Outcome::Map { map, staged, check } => {
            assert_eq!(map.name(), "MAP-204");
            assert!(*staged, "A is staged in aTile");
            assert!(matches!(check, Check::Agree { groups } if *groups > 0), "{check:?}");
        }
        other => panic!("A: expected MAP-204 through the tile, got {other:?}"),
    }
    assert_map(&d, "B", "MAP-303", 0);
}

#[test]
fn induction_variables_stepped_beside_the_loop_counter_are_followed() {
    // The NVIDIA SDK's tiled multiply walks A and B with two variables stepped together, `for
    // (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep)`: `b` is
    // bBegin + (a - aBegin) · bStep / aStep. Read directly, B is then the naive multiply's
    // column (MAP-302); read through its tile, A is its row (MAP-205), and the other way round
    // in the variant that stages B.
    for (workload, staged, direct) in
        [("mm_nvidia_tile_a.toml", "A", "B"), ("mm_nvidia_tile_b.toml", "B", "A")]
    {
        let prepared = PreparedWorkload::load(&corpus(workload)).expect("loads");
        let d = detect_prepared(&prepared);
        let expected = |buffer: &str| if buffer == "A" { "MAP-205" } else { "MAP-302" };
        assert_map(&d, staged, expected(staged), 0);
        assert_map(&d, direct, expected(direct), 0);
        assert!(
            matches!(map_of(&d, staged), Outcome::Map { staged: true, .. }),
            "{workload}: {staged} is read through its tile"
        );
        assert!(
            matches!(map_of(&d, direct), Outcome::Map { staged: false, .. }),
            "{workload}: {direct} is read from global memory"
        );
    }
}

#[test]
fn a_stepped_variable_whose_step_the_counter_does_not_divide_is_refused() {
    // `b` moves 3 elements while `a` moves 2: b = 3 (a / 2), not an integer affine form of a.
    let source = "__kernel void k(__global const float *B, __global float *out) {
    float acc = 0.0f;
    for (int a = 0, b = 0; a < 8; a += 2, b += 3)
        acc += B[b + get_global_id(0)];
    out[get_global_id(1) * 32 + get_global_id(0)] = acc;
}";
    let toml = format!("{SQUARE_32}{}{}", buffer("B", 1024), output(1024));
    let d = detect_kernel("stepped", source, &toml);
    match map_of(&d, "B") {
        Outcome::Refused { reason } => {
            assert!(reason.contains("`b` is assigned more than once"), "{reason}")
        }
        other => panic!("B: expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_coordinate_reassigned_after_a_read_keeps_its_value_at_the_read() {
    // oclTranspose reuses `x` and `y` for the output's coordinates after the barrier. Each
    // read sees the last plain assignment of the kernel's body before it: both reads here are
    // of element (gy, gx), the identity MAP-108, which the simulator's trace confirms.
    let source = "__kernel void k(__global const float *in, __global float *out) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    float v = in[y * 32 + x];
    x = get_global_id(1);
    y = get_global_id(0);
    out[x * 32 + y] = v + in[x * 32 + y];
}";
    let toml = format!("{SQUARE_32}{}{}", buffer("in", 1024), output(1024));
    let d = detect_kernel("reassigned", source, &toml);
    assert_map(&d, "in", "MAP-108", 0);
}

#[test]
fn a_coordinate_reassigned_in_a_branch_is_still_refused() {
    // An assignment under a condition gives the variable two values at the read.
    let source = "__kernel void k(__global const float *in, __global float *out, int flip) {
    int x = get_global_id(0);
    if (flip)
        x = get_global_id(1);
    out[get_global_id(1) * 32 + get_global_id(0)] = in[get_global_id(1) * 32 + x];
}";
    let toml = format!("{SQUARE_32}{}{}{}", buffer("in", 1024), output(1024), int("flip", 0));
    let d = detect_kernel("branch", source, &toml);
    match map_of(&d, "in") {
        Outcome::Refused { reason } => {
            assert!(reason.contains("`x` is assigned more than once"), "{reason}")
        }
        other => panic!("in: expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_transposed_read_is_map_110() {
    let source = "#define AT(m, r, c) m[(r) * 32 + (c)]
int flat(int r, int c, int w) { return r * w + c; }
__kernel void k(__global const float *in, __global float *out) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    out[flat(y, x, 32)] = AT(in, x, y);
}";
    let d = detect_kernel(
        "transpose",
        source,
        &format!("{SQUARE_32}{}{}", buffer("in", 1024), output(1024)),
    );
    assert_map(&d, "in", "MAP-110", 0);
}

#[test]
fn a_five_point_cross_is_map_508_and_jacobi_too() {
    let source = "__kernel void k(__global const float *in, __global float *out, int w) {
    int x = get_global_id(0) + 1;
    int y = get_global_id(1) + 1;
    out[(y - 1) * 32 + x - 1] = in[y * w + x] + in[y * w + x - 1] + in[y * w + x + 1]
        + in[(y - 1) * w + x] + in[(y + 1) * w + x];
}";
    let toml = format!("{SQUARE_32}{}{}{}", buffer("in", 34 * 34), output(1024), int("w", 34));
    assert_map(&detect_kernel("cross", source, &toml), "in", "MAP-508", 0);
    let prepared = PreparedWorkload::load(&corpus("jacobi2d.toml")).expect("loads");
    assert_map(&detect_prepared(&prepared), "A", "MAP-508", 0);
}

#[test]
fn a_five_by_five_box_is_map_408_with_radius_2() {
    let source = "__kernel void k(__global const float *in, __global float *out) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    float s = 0.0f;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++)
            s += in[(y + 2 + dy) * 36 + (x + 2 + dx)];
    out[y * 32 + x] = s;
}";
    let d = detect_kernel(
        "box",
        source,
        &format!("{SQUARE_32}{}{}", buffer("in", 36 * 36), output(1024)),
    );
    assert_map(&d, "in", "MAP-408", 2);
}

#[test]
fn a_data_dependent_gather_is_refused_with_the_reason_and_line() {
    let source =
        "__kernel void k(__global const float *in, __global const int *idx, __global float *out) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    out[y * 32 + x] = in[idx[y * 32 + x]];
}";
    let toml = format!(
        "{SQUARE_32}{}[[arg]]\nname = \"idx\"\nbuffer = \"int\"\nlen = 1024\ninit = \"range(0)\"\n{}",
        buffer("in", 1024),
        output(1024)
    );
    let d = detect_kernel("gather", source, &toml);
    match map_of(&d, "in") {
        Outcome::Refused { reason } => assert!(reason.contains("data-dependent"), "{reason}"),
        other => panic!("the gather must be refused: {other:?}"),
    }
    assert_map(&d, "idx", "MAP-108", 0);
    let refused = d.iter().find(|d| d.buffer == "in").expect("in");
    assert!(refused.span.is_defined(), "the refusal points at the read");
}

#[test]
fn every_generated_microbenchmark_is_detected_as_its_own_map() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for map in valid_maps() {
        let map = if map.imap == clmap_aristotle::IMapKind::Block {
            map.with_radius(1).unwrap()
        } else {
            map
        };
        for variant in Variant::ALL {
            let spec = BenchSpec { map, variant, dataset: 32, work_group: [8, 4] };
            let bench = generate(&spec).expect("generates");
            let prepared = PreparedWorkload::new(bench.workload.clone()).expect("compiles");
            let d = detect_prepared(&prepared);
            checked += 1;
            match d.iter().find(|d| d.buffer == "in").map(|d| &d.outcome) {
                Some(Outcome::Map { map: found, staged, check: Check::Agree { groups } })
                    if *found == map && *staged == variant.uses_local_memory() && *groups > 0 => {}
                other => failures.push(format!("{map} {variant}: {other:?}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} not detected as themselves:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
