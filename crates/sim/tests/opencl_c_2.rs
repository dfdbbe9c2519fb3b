//! OpenCL C 2.0 programs on the simulator: program-scope pointers initialised with the
//! addresses of other program-scope variables, and the linear work-item ids, in launches with
//! a global offset and partial work-groups.

mod common;

use clmap_sim::{run_kernel, ArgValue, NoObserver, SimOptions};
use common::{buf_i32, i32s};

fn module(src: &str) -> clmap_lang::ir::Module {
    match clmap_lang::frontend::compile_isolated(src, "-cl-std=CL2.0") {
        Ok(c) => c.module,
        Err(f) => panic!("does not compile:\n{}", f.render()),
    }
}

fn launch(src: &str, global: [u64; 3], local: [u64; 3], offset: [u64; 3], args: &[ArgValue]) {
    let range = clmap_workload::NdRange { global, local: Some(local), offset, dims: 3 };
    let options = SimOptions { threads: 1, ..SimOptions::default() };
    if let Err(e) = run_kernel(&module(src), "k", &range, args, &options, &|| NoObserver) {
        panic!("simulation failed: {e}");
    }
}

const POINTERS: &str = "
typedef struct { short kind; int values[3]; } Row;
global Row rows[2] = {{1, {11, 12, 13}}, {2, {21, 22, 23}}};
constant int limits[3] = {100, 200, 300};
global int *middle = &rows[1].values[1];
global Row *all_rows = rows;
constant int *last_limit = limits + 2;
global short *second_kind = (global short *)&rows[1];
global int *global *to_middle = &middle;
kernel void k(global int *unused, global int *out) {
    out[0] = *middle;
    out[1] = all_rows[0].values[2];
    out[2] = *last_limit;
    out[3] = *second_kind;
    out[4] = **to_middle;
    middle -= 1;
    out[5] = *middle;
}
";

#[test]
fn program_scope_pointers_point_where_their_targets_are_placed() {
    // The variables come after the launch's buffers: two here, so the addresses in the
    // initialisers are resolved at launch, not when the kernel is compiled.
    let out = buf_i32("out", &[0; 6]);
    let unused = ArgValue::Buffer(buf_i32("unused", &[0]));
    launch(POINTERS, [1, 1, 1], [1, 1, 1], [0; 3], &[unused, ArgValue::Buffer(out.clone())]);
    assert_eq!(i32s(&out), [22, 13, 300, 2, 22, 21]);
    // With NULL for the first buffer the variables move, and the pointers with them.
    let out = buf_i32("out", &[0; 6]);
    launch(
        POINTERS,
        [1, 1, 1],
        [1, 1, 1],
        [0; 3],
        &[ArgValue::Null, ArgValue::Buffer(out.clone())],
    );
    assert_eq!(i32s(&out), [22, 13, 300, 2, 22, 21]);
}

#[test]
fn linear_ids_count_from_the_offset_and_within_partial_groups() {
    let src = "kernel void k(global int *global_ids, global int *local_ids) {
        size_t g = get_global_linear_id();
        global_ids[g] = (int)(get_global_id(0) + 100 * get_global_id(1));
        local_ids[g] = (int)get_local_linear_id();
    }";
    let (global_ids, local_ids) = (buf_i32("g", &[-1; 12]), buf_i32("l", &[-1; 12]));
    let args = [ArgValue::Buffer(global_ids.clone()), ArgValue::Buffer(local_ids.clone())];
    // 4 x 3 items from (5, 7); groups of 3 x 2, so the last column and row are partial.
    launch(src, [4, 3, 1], [3, 2, 1], [5, 7, 0], &args);
    let expected_global: Vec<i32> =
        (0..3).flat_map(|y| (0..4).map(move |x| (5 + x) + 100 * (7 + y))).collect();
    assert_eq!(i32s(&global_ids), expected_global);
    // Local ids run over each group's own sizes: 3 x 2, 1 x 2, 3 x 1 and 1 x 1.
    assert_eq!(i32s(&local_ids), [0, 1, 2, 0, 3, 4, 5, 1, 0, 1, 2, 0]);
}
