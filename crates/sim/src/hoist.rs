//! Loop-invariant operations moved in front of their loop, for runs that nothing observes.
//!
//! An operation inside a loop whose operands the loop never changes computes the same value in
//! every iteration: `i * n` and the address of `out[i]` in `for (j…) out[i] += a[i * n + j]`.
//! Computing it once before the loop, for the lanes that enter the loop, gives the same values
//! to every lane that reads them. Only operations without effects move: arithmetic,
//! comparisons, conversions, address arithmetic and work-item queries, never memory accesses,
//! built-ins, assignments to variables, or an integer division (which reports a zero divisor).
//! The moved operation also runs for lanes that would not have reached it (a branch inside
//! the loop), which is harmless for such operations: only the lanes that reach a read of its
//! result use it.
//!
//! Observers count operations and time them, so the moved program serves only runs without
//! an observer or checker (see [`crate::program::Program::hoisted`]).

use clmap_lang::ir::BinaryOp;

use crate::program::{Node, Op, Slot};

/// `nodes` with the invariant operations of every loop moved in front of it, or `None` when
/// no operation moves.
pub(crate) fn hoist_invariants(nodes: &[Node], slots: u32) -> Option<Vec<Node>> {
    let mut writes = vec![0u32; slots as usize];
    count_writes(nodes, &mut writes);
    let mut moved = 0usize;
    let out = transform(nodes, &writes, &mut moved);
    (moved > 0).then_some(out)
}

fn count_writes(nodes: &[Node], writes: &mut [u32]) {
    for_each_op(nodes, true, &mut |op| {
        for_written(op, &mut |s| {
            if let Some(w) = writes.get_mut(s as usize) {
                *w = w.saturating_add(1);
            }
        })
    });
}

fn transform(nodes: &[Node], writes: &[u32], moved: &mut usize) -> Vec<Node> {
    let mut out = Vec::with_capacity(nodes.len());
    for node in nodes {
        match node {
            Node::If { cond, then_, else_, span } => out.push(Node::If {
                cond: *cond,
                then_: transform(then_, writes, moved),
                else_: transform(else_, writes, moved),
                span: *span,
            }),
            Node::Switch { selector, cases, span } => out.push(Node::Switch {
                selector: *selector,
                cases: cases
                    .iter()
                    .map(|c| crate::program::CaseNode {
                        value: c.value,
                        body: transform(&c.body, writes, moved),
                        fall_through: c.fall_through,
                    })
                    .collect(),
                span: *span,
            }),
            Node::Call { body } => out.push(Node::Call { body: transform(body, writes, moved) }),
            Node::Loop { cond_nodes, cond, body, update, test_first, span } => {
                let mut cond_nodes = transform(cond_nodes, writes, moved);
                let mut body = transform(body, writes, moved);
                let mut update = transform(update, writes, moved);
                let mut inside = vec![false; writes.len()];
                for part in [&cond_nodes, &body, &update] {
                    for_each_op(part, true, &mut |op| {
                        for_written(op, &mut |s| {
                            if let Some(w) = inside.get_mut(s as usize) {
                                *w = true;
                            }
                        })
                    });
                }
                let mut hoisted = Vec::new();
                for part in [&mut cond_nodes, &mut body, &mut update] {
                    extract(part, writes, &mut inside, &mut hoisted);
                }
                *moved += hoisted.len();
                out.extend(hoisted.into_iter().map(Node::Op));
                out.push(Node::Loop {
                    cond_nodes,
                    cond: *cond,
                    body,
                    update,
                    test_first: *test_first,
                    span: *span,
                });
            }
            other => out.push(other.clone()),
        }
    }
    out
}

/// Moves the invariant operations of `nodes` (and of the branches and calls in it, not of
/// nested loops or switches, which were handled on their own) to `hoisted`, in order.
fn extract(nodes: &mut Vec<Node>, writes: &[u32], inside: &mut [bool], hoisted: &mut Vec<Op>) {
    let mut kept = Vec::with_capacity(nodes.len());
    for mut node in std::mem::take(nodes) {
        match &mut node {
            Node::Op(op) if invariant(op, writes, inside) => {
                for_written(op, &mut |s| {
                    if let Some(w) = inside.get_mut(s as usize) {
                        *w = false;
                    }
                });
                if let Node::Op(op) = node {
                    hoisted.push(op);
                }
                continue;
            }
            Node::If { then_, else_, .. } => {
                extract(then_, writes, inside, hoisted);
                extract(else_, writes, inside, hoisted);
            }
            Node::Call { body } => extract(body, writes, inside, hoisted),
            _ => {}
        }
        kept.push(node);
    }
    *nodes = kept;
}

/// Whether `op` has no effect besides its result, writes slots nothing else writes, and
/// reads only slots the loop does not change.
fn invariant(op: &Op, writes: &[u32], inside: &[bool]) -> bool {
    let pure = match op {
        Op::Binary { op, ty, .. } => {
            !(matches!(op, BinaryOp::Div | BinaryOp::Rem) && ty.is_integer())
        }
        Op::Gather { .. }
        | Op::Unary { .. }
        | Op::Compare { .. }
        | Op::LogicalVector { .. }
        | Op::Not { .. }
        | Op::ToBool { .. }
        | Op::Convert { .. }
        | Op::Bitcast { .. }
        | Op::Select { .. }
        | Op::AddrIndex { .. }
        | Op::AddrConst { .. }
        | Op::PtrDiff { .. }
        | Op::PrivateAddr { .. }
        | Op::LocalAddr { .. }
        | Op::GlobalVarAddr { .. }
        | Op::WorkItem { .. } => true,
        _ => false,
    };
    if !pure {
        return false;
    }
    let mut ok = true;
    for_written(op, &mut |s| ok &= writes.get(s as usize) == Some(&1));
    for_read(op, &mut |s| ok &= !inside.get(s as usize).copied().unwrap_or(true));
    ok
}

/// Calls `f` on every operation of `nodes`; into nested loops and switches only when `deep`.
fn for_each_op(nodes: &[Node], deep: bool, f: &mut impl FnMut(&Op)) {
    for node in nodes {
        match node {
            Node::Op(op) => f(op),
            Node::If { then_, else_, .. } => {
                for_each_op(then_, deep, f);
                for_each_op(else_, deep, f);
            }
            Node::Call { body } => for_each_op(body, deep, f),
            Node::Loop { cond_nodes, body, update, .. } if deep => {
                for_each_op(cond_nodes, deep, f);
                for_each_op(body, deep, f);
                for_each_op(update, deep, f);
            }
            Node::Switch { cases, .. } if deep => {
                for c in cases {
                    for_each_op(&c.body, deep, f);
                }
            }
            _ => {}
        }
    }
}

fn range(first: Slot, len: u32, f: &mut impl FnMut(Slot)) {
    for s in first..first.saturating_add(len.max(1)) {
        f(s);
    }
}

/// Calls `f` on every register slot `op` writes.
fn for_written(op: &Op, f: &mut impl FnMut(Slot)) {
    match op {
        Op::Copy { dst, len, .. }
        | Op::Unary { dst, len, .. }
        | Op::Binary { dst, len, .. }
        | Op::Compare { dst, len, .. }
        | Op::LogicalVector { dst, len, .. }
        | Op::Not { dst, len, .. }
        | Op::ToBool { dst, len, .. }
        | Op::Convert { dst, len, .. }
        | Op::Select { dst, len, .. } => range(*dst, *len, f),
        Op::Gather { dst, srcs } => range(*dst, srcs.len() as u32, f),
        Op::Scatter { dsts, .. } => dsts.iter().for_each(|s| f(*s)),
        Op::Bitcast { dst, to_len, .. } => range(*dst, *to_len, f),
        Op::AddrIndex { dst, .. }
        | Op::AddrConst { dst, .. }
        | Op::PtrDiff { dst, .. }
        | Op::PrivateAddr { dst, .. }
        | Op::LocalAddr { dst, .. }
        | Op::GlobalVarAddr { dst, .. }
        | Op::WorkItem { dst, .. } => f(*dst),
        Op::Load { dst, width, .. } => range(*dst, *width, f),
        Op::Builtin(call) => range(call.dst, call.width, f),
        Op::Store { .. } | Op::MemCopy { .. } | Op::MemZero { .. } | Op::IndexCheck { .. } => {}
    }
}

/// Calls `f` on every register slot the operations [`invariant`] accepts read.
fn for_read(op: &Op, f: &mut impl FnMut(Slot)) {
    match op {
        Op::Unary { a, len, .. }
        | Op::Not { a, len, .. }
        | Op::ToBool { a, len, .. }
        | Op::Convert { a, len, .. } => range(*a, *len, f),
        Op::Binary { a, b, len, .. }
        | Op::Compare { a, b, len, .. }
        | Op::LogicalVector { a, b, len, .. } => {
            range(*a, *len, f);
            range(*b, *len, f);
        }
        Op::Select { cond, a, b, len, .. } => {
            range(*cond, *len, f);
            range(*a, *len, f);
            range(*b, *len, f);
        }
        Op::Gather { srcs, .. } => srcs.iter().for_each(|s| f(*s)),
        Op::Bitcast { a, from_len, .. } => range(*a, *from_len, f),
        Op::AddrIndex { base, index, .. } => {
            f(*base);
            f(*index);
        }
        Op::AddrConst { base, .. } => f(*base),
        Op::PtrDiff { a, b, .. } => {
            f(*a);
            f(*b);
        }
        Op::WorkItem { dim, .. } => {
            if let Some((s, _)) = dim {
                f(*s);
            }
        }
        Op::PrivateAddr { .. } | Op::LocalAddr { .. } | Op::GlobalVarAddr { .. } => {}
        // Not moved: report every slot as read so that nothing depends on this list.
        Op::Copy { src, len, .. } => range(*src, *len, f),
        Op::Scatter { src, dsts } => range(*src, dsts.len() as u32, f),
        Op::Load { addr, .. } => f(*addr),
        Op::Store { addr, src, width, .. } => {
            f(*addr);
            range(*src, *width, f);
        }
        Op::MemCopy { dst, src, .. } => {
            f(*dst);
            f(*src);
        }
        Op::MemZero { dst, .. } => f(*dst),
        Op::IndexCheck { index, .. } => f(*index),
        Op::Builtin(call) => call.args.iter().for_each(|a| range(a.slot, a.width, f)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> crate::program::Program {
        let module = match clmap_lang::frontend::compile_isolated(src, "") {
            Ok(c) => c.module,
            Err(f) => panic!("{}", f.render()),
        };
        crate::compile::compile_kernel(&module, "k").expect("compiles")
    }

    /// Operations directly in the body of the first loop of `nodes`.
    fn loop_ops(nodes: &[Node]) -> usize {
        nodes
            .iter()
            .find_map(|n| match n {
                Node::Loop { body, .. } => {
                    let mut count = 0;
                    for_each_op(body, false, &mut |_| count += 1);
                    Some(count)
                }
                Node::If { then_, .. } => Some(loop_ops(then_)),
                _ => None,
            })
            .unwrap_or(0)
    }

    #[test]
    fn row_and_address_arithmetic_leave_the_loop_and_memory_accesses_stay() {
        let p = program(
            "__kernel void k(__global const float *a, __global float *x, __global const float *y, int n) {
                int i = get_global_id(0);
                if (i < n) {
                    for (int j = 0; j < n; j++)
                        x[i] += a[i * n + j] * y[j] / (float)n;
                }
            }",
        );
        let hoisted = p.hoisted.as_ref().expect("something moves");
        let (before, after) = (loop_ops(&p.nodes), loop_ops(hoisted));
        // `i * n`, the address of `x[i]` and `(float)n` move; the loads, the store and
        // everything that depends on `j` stay.
        assert_eq!(before - after, 3, "{before} -> {after}");
        let mut loads = 0;
        for_each_op(hoisted, true, &mut |op| loads += usize::from(matches!(op, Op::Load { .. })));
        assert_eq!(loads, 3);
    }

    #[test]
    fn a_loop_that_changes_its_operands_or_divides_integers_keeps_them() {
        let p = program(
            "__kernel void k(__global int *x, int n) {
                int i = get_global_id(0);
                int s = 1;
                for (int j = 0; j < n; j++) {
                    s = s * 3 + i;
                    x[i] += n / (i + 1);
                }
            }",
        );
        // `i + 1` and the address of `x[i]` move; `n / (i + 1)` may divide by zero, so it
        // stays, and `s * 3` changes in every iteration.
        let hoisted = p.hoisted.as_ref().expect("i + 1 moves");
        let mut divisions = 0;
        for_each_op(hoisted, true, &mut |op| {
            divisions += usize::from(matches!(op, Op::Binary { op: BinaryOp::Div, .. }))
        });
        assert_eq!(divisions, 1);
        assert_eq!(loop_ops(&p.nodes) - loop_ops(hoisted), 2);
    }
}
