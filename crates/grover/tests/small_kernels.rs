//! Grover on small in-memory kernels: each refusal kind names its reason, and the rewrite
//! touches only the lines it must.

use clmap_grover::candidate::Decision;
use clmap_grover::{unlocal, GroverError, Outcome, UnlocalOptions};
use clmap_lang::frontend::{compile_isolated, Compiled};

fn compile(text: &str) -> Compiled {
    compile_isolated(text, "").unwrap_or_else(|f| panic!("does not compile:\n{}", f.render()))
}

fn run(text: &str, options: &UnlocalOptions) -> (Compiled, Outcome) {
    let compiled = compile(text);
    let outcome = unlocal(&compiled, options).expect("grover runs");
    (compiled, outcome)
}

fn refusal(outcome: &Outcome, buffer: &str) -> String {
    let report = outcome.buffers.iter().find(|b| b.candidate.name == buffer).expect("buffer");
    match &report.candidate.decision {
        Decision::Refused(r) => r.reason.clone(),
        Decision::Remove(_) => panic!("`{buffer}` was not refused"),
    }
}

const COPY: &str = "__kernel void k(__global const float *g, __global float *out) {
    __local float lm[64];
    const uint lx = get_local_id(0);
    // staging
    lm[lx] = g[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = lm[63 - lx];
}
";

#[test]
fn minimal_diff_keeps_untouched_lines() {
    let (_, outcome) = run(COPY, &UnlocalOptions::default());
    assert_eq!(outcome.removed(), vec!["lm".to_string()]);
    let expected = "__kernel void k(__global const float *g, __global float *out) {
    const uint lx = get_local_id(0);
    // staging
    out[get_global_id(0)] = g[get_global_id(0) - lx + (ulong)(63 - (long)lx)];
}
";
    assert_eq!(outcome.text, expected);
}

#[test]
fn comment_out_keeps_the_removed_lines_as_comments() {
    let options = UnlocalOptions { comment_out: true, ..Default::default() };
    let (_, outcome) = run(COPY, &options);
    assert!(outcome.text.contains("    // __local float lm[64];\n"), "{}", outcome.text);
    assert!(outcome.text.contains("    // lm[lx] = g[get_global_id(0)];\n"), "{}", outcome.text);
    assert!(outcome.text.contains("    // barrier(CLK_LOCAL_MEM_FENCE);\n"), "{}", outcome.text);
}

#[test]
fn async_copies_are_refused() {
    let text = "__kernel void k(__global const float *g, __global float *out) {
    __local float lm[64];
    event_t e = async_work_group_copy(lm, g, 64, 0);
    wait_group_events(1, &e);
    out[get_global_id(0)] = lm[get_local_id(0)];
}
";
    let (_, outcome) = run(text, &UnlocalOptions::default());
    assert!(!outcome.changed());
    assert!(
        refusal(&outcome, "lm").contains("async_work_group_copy"),
        "{}",
        refusal(&outcome, "lm")
    );
}

#[test]
fn exchanges_between_local_buffers_are_refused_for_the_target() {
    let text = "__kernel void k(__global const float *g, __global float *out) {
    __local float a[64];
    __local float b[64];
    const uint lx = get_local_id(0);
    a[lx] = g[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    b[lx] = a[63 - lx] * 2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = b[lx];
}
";
    let (_, outcome) = run(text, &UnlocalOptions::default());
    assert!(refusal(&outcome, "b").contains("local memory"), "{}", refusal(&outcome, "b"));
    // `a` is still a cache: its load inside `b`'s store becomes a global load, and the
    // barriers stay for `b`.
    assert_eq!(outcome.removed(), vec!["a".to_string()]);
    assert!(outcome.text.contains("barrier(CLK_LOCAL_MEM_FENCE);"));
    assert!(!outcome.text.contains("a[63 - lx]"));
}

#[test]
fn buffers_written_by_the_kernel_are_not_cached_copies() {
    let text = "__kernel void k(__global float *g, __global float *out) {
    __local float lm[64];
    const uint lx = get_local_id(0);
    lm[lx] = g[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    g[get_global_id(0)] = 0.0f;
    out[get_global_id(0)] = lm[63 - lx];
}
";
    let (_, outcome) = run(text, &UnlocalOptions::default());
    assert!(!outcome.changed());
    assert!(refusal(&outcome, "lm").contains("cannot follow"), "{}", refusal(&outcome, "lm"));
}

#[test]
fn nonlinear_store_indexes_and_unread_buffers_are_refused() {
    let text = "__kernel void k(__global const float *g, __global float *out) {
    __local float sq[256];
    __local float unused[16];
    const uint lx = get_local_id(0);
    sq[lx * lx] = g[get_global_id(0)];
    unused[lx] = g[lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = sq[lx];
}
";
    let (_, outcome) = run(text, &UnlocalOptions::default());
    assert!(refusal(&outcome, "sq").contains("not linear"), "{}", refusal(&outcome, "sq"));
    assert!(refusal(&outcome, "unused").contains("never read"));
}

#[test]
fn kernel_and_buffer_selection_errors() {
    let two = "__kernel void a(__global float *x) { x[0] = 1.0f; }
__kernel void b(__global float *x) { x[0] = 2.0f; }
";
    let compiled = compile(two);
    assert!(matches!(
        unlocal(&compiled, &UnlocalOptions::default()),
        Err(GroverError::WhichKernel(_))
    ));
    let options = UnlocalOptions { kernel: Some("c".into()), ..Default::default() };
    assert!(matches!(unlocal(&compiled, &options), Err(GroverError::NoSuchKernel(_))));
    let compiled = compile(COPY);
    let options = UnlocalOptions { buffers: vec!["nope".into()], ..Default::default() };
    assert!(matches!(unlocal(&compiled, &options), Err(GroverError::NoSuchBuffer { .. })));
}

const TRANSPOSE_BITS_UNBOUNDED: &str =
    "__kernel void k(__global const float *g, __global float *out) {
    __local float tile[256];
    const uint tid = get_local_id(0);
    const uint row = tid >> 4;
    const uint col = tid & 15;
    tile[(row << 4) | col] = g[get_group_id(0) * 256 + tid];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[(col << 4) | row];
}
";

#[test]
fn or_of_bits_that_may_overlap_is_refused_without_a_work_group_size() {
    // Without `reqd_work_group_size`, `tid >> 4` may exceed 15 and carry into `col << 4`.
    let (_, outcome) = run(TRANSPOSE_BITS_UNBOUNDED, &UnlocalOptions::default());
    let why = refusal(&outcome, "tile");
    assert!(why.contains("the load index") && why.contains("`|` is followed only"), "{why}");
    assert!(why.contains("reqd_work_group_size"), "{why}");
    let bounded = TRANSPOSE_BITS_UNBOUNDED
        .replace("__kernel void", "__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void");
    let (_, outcome) = run(&bounded, &UnlocalOptions::default());
    assert_eq!(outcome.removed(), vec!["tile".to_string()]);
    assert!(
        outcome.text.contains(
            "out[get_global_id(0)] = g[get_group_id(0) * 256 + ((tid >> 4) + 16 * (tid & 15))];"
        ),
        "{}",
        outcome.text
    );
}

#[test]
fn division_and_remainder_by_powers_of_two_are_the_shift_and_the_mask() {
    let text = "__kernel void k(__global const float *g, __global float *out) {
    __local float tile[16][16];
    const uint tid = get_local_id(0);
    tile[tid / 16][tid % 16] = g[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[tid % 16][tid / 16];
}
";
    let (_, outcome) = run(text, &UnlocalOptions::default());
    assert_eq!(outcome.removed(), vec!["tile".to_string()], "{}", outcome.text);
    assert!(
        outcome.text.contains("g[get_global_id(0) - tid + (ulong)((tid >> 4) + 16 * (tid & 15))]"),
        "{}",
        outcome.text
    );
}

#[test]
fn shifts_and_masks_of_a_global_id_are_refused_with_the_reason() {
    // `get_global_id(0) & 15` is `(wx * Lx + lx) & 15`: with a symbolic group size the group's
    // part is not known to be a multiple of 16.
    let text = "__kernel void k(__global const float *g, __global float *out) {
    __local float tile[16];
    tile[get_global_id(0) & 15] = g[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[get_local_id(0)];
}
";
    let (_, outcome) = run(text, &UnlocalOptions::default());
    let why = refusal(&outcome, "tile");
    assert!(why.contains("the store index: the index uses `& 15` of"), "{why}");
    assert!(why.contains("local id or loop counter plus a multiple of 16"), "{why}");
}

#[test]
fn one_id_split_at_two_places_is_refused() {
    let text = "__kernel void k(__global const float *g, __global float *out) {
    __local float tile[256];
    const uint tid = get_local_id(0);
    tile[(tid >> 4) * 16 + (tid & 7)] = g[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[tid];
}
";
    let (_, outcome) = run(text, &UnlocalOptions::default());
    let why = refusal(&outcome, "tile");
    assert!(why.contains("split at two places (3 and 4)"), "{why}");
}

#[test]
fn staging_helpers_that_loop_or_read_the_tile_are_refused() {
    let looping = "void fill(__local float *t, __global const float *g, uint i) {
    for (int r = 0; r < 2; r++) t[i + 64 * r] = g[i + 64 * r];
}
__kernel void k(__global const float *g, __global float *out) {
    __local float tile[128];
    fill(tile, g, get_local_id(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[127 - get_local_id(0)];
}
";
    let (_, outcome) = run(looping, &UnlocalOptions::default());
    let why = refusal(&outcome, "tile");
    assert!(why.contains("staging helper `fill`, which contains a loop"), "{why}");
    let reading = "void swap_in(__local float *t, __global const float *g, uint i) {
    t[i] = g[i];
    t[i + 64] = t[i];
}
__kernel void k(__global const float *g, __global float *out) {
    __local float tile[128];
    swap_in(tile, g, get_local_id(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[127 - get_local_id(0)];
}
";
    let (_, outcome) = run(reading, &UnlocalOptions::default());
    let why = refusal(&outcome, "tile");
    assert!(why.contains("staging helper `swap_in`, which also reads the local buffer"), "{why}");
}

#[test]
fn interleaved_stores_are_refused_with_the_left_over_index() {
    // `tile[2 * l]` and `tile[2 * l + 1]` agree (element e holds g[base + e]), but the load is
    // solved against the main store alone, whose stride 2 does not divide `127 - l`.
    let text = "__kernel void k(__global const float *g, __global float *out) {
    __local float tile[128];
    const uint l = get_local_id(0);
    const uint base = get_group_id(0) * 128;
    tile[2 * l] = g[base + 2 * l];
    tile[2 * l + 1] = g[base + 2 * l + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[base + l] = tile[127 - l];
}
";
    let (_, outcome) = run(text, &UnlocalOptions::default());
    let why = refusal(&outcome, "tile");
    assert!(
        why.contains("reads elements the store does not write (left over: -lx + 127)"),
        "{why}"
    );
}
