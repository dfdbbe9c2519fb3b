//! Walkers over a function: every statement of a block, every expression of a tree, every
//! expression of a block, in program order.
//!
//! The visitor returns [`ControlFlow`]: `Break` stops the walk at once and is handed back to
//! the caller, so "is there an assignment in here?" needs no flag and no wasted work.
//!
//! The walkers never panic and never loop, whatever the IR holds: statement nesting deeper
//! than [`MAX_STATEMENT_NESTING`] is not entered, and an expression tree is not followed
//! beyond as many nodes as the function has expressions (a valid tree has no more; an
//! invalid one with a cycle would otherwise never end). Handles out of range are skipped.

use crate::ir::{Block, Expression, Function, Handle, LoopForm, Statement};
use crate::span::Span;
use crate::valid::MAX_STATEMENT_NESTING;
use std::ops::ControlFlow;

/// The expressions a statement holds itself (not those of its nested blocks), in the order
/// they are evaluated the first time through: a loop's condition before its update.
pub fn statement_expressions(statement: &Statement) -> impl Iterator<Item = Handle<Expression>> {
    let (first, second) = match statement {
        Statement::Declare { init, .. } => (*init, None),
        Statement::Expression(e) => (Some(*e), None),
        Statement::If { condition, .. } => (Some(*condition), None),
        Statement::Loop { condition, update, .. } => (*condition, *update),
        Statement::Switch { selector, .. } => (Some(*selector), None),
        Statement::Return(value) => (*value, None),
        Statement::Block(_)
        | Statement::Break
        | Statement::Continue
        | Statement::Barrier(_)
        | Statement::MemFence { .. } => (None, None),
    };
    first.into_iter().chain(second)
}

/// The blocks nested directly in a statement, in source order (a loop's `init` before its
/// body, an `if`'s branches, a switch's cases).
pub fn child_blocks(statement: &Statement) -> impl Iterator<Item = &Block> {
    let (pair, cases): ([Option<&Block>; 2], &[crate::ir::SwitchCase]) = match statement {
        Statement::Block(b) => ([Some(b), None], &[]),
        Statement::If { accept, reject, .. } => ([Some(accept), Some(reject)], &[]),
        Statement::Loop { init, body, .. } => ([Some(init), Some(body)], &[]),
        Statement::Switch { cases, .. } => ([None, None], cases.as_slice()),
        _ => ([None, None], &[]),
    };
    pair.into_iter().flatten().chain(cases.iter().map(|c| &c.body))
}

/// Visits every statement of `block` and of the blocks nested in it, each before the
/// statements nested in it, in source order.
pub fn visit_statements<'a, B>(
    block: &'a Block,
    visit: &mut impl FnMut(&'a Statement, Span) -> ControlFlow<B>,
) -> ControlFlow<B> {
    statements_at(block, visit, 0)
}

fn statements_at<'a, B>(
    block: &'a Block,
    visit: &mut impl FnMut(&'a Statement, Span) -> ControlFlow<B>,
    nesting: usize,
) -> ControlFlow<B> {
    if nesting > MAX_STATEMENT_NESTING {
        return ControlFlow::Continue(());
    }
    for (statement, span) in block.iter() {
        visit(statement, span)?;
        for inner in child_blocks(statement) {
            statements_at(inner, visit, nesting + 1)?;
        }
    }
    ControlFlow::Continue(())
}

/// Visits every expression of the tree rooted at `root`, each before its operands, operands
/// in evaluation order (see [`super::operands`]).
pub fn visit_expression_tree<B>(
    function: &Function,
    root: Handle<Expression>,
    visit: &mut impl FnMut(Handle<Expression>, &Expression) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let mut stack = vec![root];
    let mut budget = function.expressions.len();
    while let Some(handle) = stack.pop() {
        let Some(expr) = function.expressions.get(handle) else { continue };
        if budget == 0 {
            break;
        }
        budget -= 1;
        visit(handle, expr)?;
        stack.extend(super::operands(expr).rev());
    }
    ControlFlow::Continue(())
}

/// Visits every expression of `block`, statement by statement in program order (a loop as
/// `init`, condition, body, update; a `do … while` body before its condition), each tree as
/// [`visit_expression_tree`] does.
pub fn visit_block_expressions<B>(
    function: &Function,
    block: &Block,
    visit: &mut impl FnMut(Handle<Expression>, &Expression) -> ControlFlow<B>,
) -> ControlFlow<B> {
    block_expressions_at(function, block, visit, 0)
}

/// [`visit_block_expressions`] over the function's body.
pub fn visit_function_expressions<B>(
    function: &Function,
    visit: &mut impl FnMut(Handle<Expression>, &Expression) -> ControlFlow<B>,
) -> ControlFlow<B> {
    visit_block_expressions(function, &function.body, visit)
}

fn block_expressions_at<B>(
    function: &Function,
    block: &Block,
    visit: &mut impl FnMut(Handle<Expression>, &Expression) -> ControlFlow<B>,
    nesting: usize,
) -> ControlFlow<B> {
    if nesting > MAX_STATEMENT_NESTING {
        return ControlFlow::Continue(());
    }
    for (statement, _) in block.iter() {
        match statement {
            Statement::Loop { form, init, condition, update, body, .. } => {
                block_expressions_at(function, init, visit, nesting + 1)?;
                if *form != LoopForm::DoWhile {
                    visit_tree(function, *condition, visit)?;
                }
                block_expressions_at(function, body, visit, nesting + 1)?;
                if *form == LoopForm::DoWhile {
                    visit_tree(function, *condition, visit)?;
                }
                visit_tree(function, *update, visit)?;
            }
            other => {
                for root in statement_expressions(other) {
                    visit_expression_tree(function, root, visit)?;
                }
                for inner in child_blocks(other) {
                    block_expressions_at(function, inner, visit, nesting + 1)?;
                }
            }
        }
    }
    ControlFlow::Continue(())
}

fn visit_tree<B>(
    function: &Function,
    root: Option<Handle<Expression>>,
    visit: &mut impl FnMut(Handle<Expression>, &Expression) -> ControlFlow<B>,
) -> ControlFlow<B> {
    match root {
        Some(root) => visit_expression_tree(function, root, visit),
        None => ControlFlow::Continue(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::compile_isolated;
    use crate::ir::{Expression, VariableRef};

    const KERNEL: &str = "__kernel void k(__global int *out, int n) {
        int acc = 0;
        for (int i = 0; i < n; i++) {
            if (i % 2) { acc += i; } else { acc -= 1; }
        }
        do { acc++; } while (acc < 3);
        out[0] = acc;
    }";

    fn kernel() -> crate::ir::Module {
        compile_isolated(KERNEL, "").expect("the test kernel compiles").module
    }

    #[test]
    fn statements_are_visited_before_their_nested_statements_in_source_order() {
        let module = kernel();
        let (_, f) = module.kernels().next().unwrap();
        let mut kinds = Vec::new();
        let _: ControlFlow<()> = visit_statements(&f.body, &mut |s, _| {
            kinds.push(match s {
                Statement::Declare { .. } => "declare",
                Statement::Loop { .. } => "loop",
                Statement::If { .. } => "if",
                Statement::Expression(_) => "expr",
                Statement::Block(_) => "block",
                _ => "other",
            });
            ControlFlow::Continue(())
        });
        assert_eq!(
            kinds,
            ["declare", "loop", "declare", "if", "expr", "expr", "loop", "expr", "expr"]
        );
    }

    #[test]
    fn every_expression_of_a_valid_function_is_visited_exactly_once() {
        let module = kernel();
        let (_, f) = module.kernels().next().unwrap();
        let mut seen = vec![0u32; f.expressions.len()];
        let _: ControlFlow<()> = visit_function_expressions(f, &mut |h, _| {
            seen[h.index()] += 1;
            ControlFlow::Continue(())
        });
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
    }

    #[test]
    fn a_break_stops_the_walk_and_comes_back() {
        let module = kernel();
        let (_, f) = module.kernels().next().unwrap();
        let mut visited = 0;
        let first_param = visit_function_expressions(f, &mut |h, e| {
            visited += 1;
            match e {
                Expression::Variable(VariableRef::Param(i)) => ControlFlow::Break((h, *i)),
                _ => ControlFlow::Continue(()),
            }
        });
        let ControlFlow::Break((_, index)) = first_param else { panic!("no parameter found") };
        // `n` in the loop condition comes before `out` in the last statement.
        assert_eq!(index, 1);
        assert!(visited < f.expressions.len());
    }

    #[test]
    fn a_cycle_in_invalid_ir_does_not_hang_the_walk() {
        let mut module = kernel();
        let (handle, _) = module.kernels().next().unwrap();
        let f = module.functions.get_mut(handle);
        // %0 made its own operand: the validator rejects it, the walker must still end.
        let root = Handle::from_index(0);
        *f.expressions.get_mut(root) = Expression::Load(root);
        let mut visits = 0usize;
        let _: ControlFlow<()> = visit_expression_tree(f, root, &mut |_, _| {
            visits += 1;
            ControlFlow::Continue(())
        });
        assert_eq!(visits, f.expressions.len());
    }
}
