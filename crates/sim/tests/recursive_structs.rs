//! Structs that point to themselves or to each other run as C says, in private, `__local`
//! and `__global` memory, with the race and uninitialised-value checkers silent. The same
//! kernel is in the differential set (`tests/differential/recursive_structs.toml`), where
//! PoCL must agree with the simulator.

mod common;
use common::*;

use clmap_sim::{ArgValue, SimOptions};

fn checked(threads: usize) -> SimOptions {
    SimOptions { threads, check_races: true, check_uninitialised: true, ..SimOptions::default() }
}

#[test]
fn a_node_pointing_to_itself_is_followed() {
    let src = r#"
    typedef struct node { struct node *next; int v; } node;
    __kernel void k(__global int *out) {
        node n; n.v = 7; n.next = &n;
        out[0] = n.next->next->next->v;
    }"#;
    let out = buf_i32("out", &[0]);
    let run = run_with(src, "k", &[1], &[1], &[ArgValue::Buffer(out.clone())], &checked(1));
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    assert_eq!(i32s(&out), vec![7]);
}

#[test]
fn structs_pointing_to_each_other_through_a_forward_declaration() {
    let src = r#"
    struct b;
    struct a { struct b *p; int y; };
    struct b { struct a *q; int x; };
    __kernel void k(__global int *out) {
        struct a l; struct b r;
        l.p = &r; r.q = &l; l.y = 4; r.x = 5;
        out[0] = l.p->q->p->x * 10 + r.q->p->q->y;
    }"#;
    let out = buf_i32("out", &[0]);
    let run = run_with(src, "k", &[1], &[1], &[ArgValue::Buffer(out.clone())], &checked(1));
    assert!(run.reports.is_empty(), "{:?}", run.reports);
    assert_eq!(i32s(&out), vec![54]);
}

/// What `tests/differential/recursive_structs.cl` computes, written out directly.
fn expected(gid: i32, local_size: i32) -> [i32; 4] {
    let lid = gid % local_size;
    let group = gid / local_size;
    let base = gid - lid;
    let local_sum: i32 = (lid..local_size).map(|i| group * 16 + i).sum();
    let ring = [gid, base + (lid + 1) % local_size, base + (lid + 2) % local_size];
    [gid * 3, gid + 200, local_sum, ring.iter().map(|k| k * 7).sum()]
}

#[test]
fn lists_in_local_and_global_memory_are_built_then_walked_by_every_work_item() {
    let src = include_str!("../../../tests/differential/recursive_structs.cl");
    for threads in [1, 4] {
        let outputs: Vec<_> = ["self_out", "pair_out", "local_out", "global_out"]
            .map(|n| buf_i32(n, &[0; 64]))
            .into();
        let scratch = buf_i32("scratch", &[0; 256]);
        let mut args: Vec<ArgValue> = outputs.iter().cloned().map(ArgValue::Buffer).collect();
        args.push(ArgValue::Buffer(scratch));
        let run = run_with(src, "recursive_structs", &[64], &[16], &args, &checked(threads));
        assert!(run.reports.is_empty(), "{threads} threads: {:?}", run.reports);
        let values: Vec<Vec<i32>> = outputs.iter().map(i32s).collect();
        for gid in 0..64 {
            let want = expected(gid, 16);
            for (output, values) in values.iter().enumerate() {
                assert_eq!(values[gid as usize], want[output], "output {output}, work-item {gid}");
            }
        }
    }
}

#[test]
fn an_incomplete_struct_held_by_value_does_not_compile() {
    let src = "struct later; __kernel void k(__global int *out) { struct later v; out[0] = 1; }";
    let Err(failure) = clmap_lang::frontend::compile_isolated(src, "") else {
        panic!("an incomplete struct variable compiled");
    };
    let rendered = failure.render();
    assert!(rendered.contains("variable has incomplete type 'struct later'"), "{rendered}");
}
