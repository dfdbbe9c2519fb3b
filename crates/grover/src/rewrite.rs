//! The rewrite as an edit set on the user's source: every local load becomes its new global
//! load, and the staging stores, the declarations and the barriers that no longer guard
//! anything are deleted (or commented out), together with loops and `if`s left empty.

use crate::candidate::Plan;
use crate::render::RenderContext;
use crate::walk::{Events, LocalBuffer};
use clmap_lang::edit::{EditError, EditSet};
use clmap_lang::frontend::Compiled;
use clmap_lang::ir::{Block, Expression, Function, Handle, Module, Statement, TypeInner};
use clmap_lang::print::print_type;
use clmap_lang::proc;
use clmap_lang::valid::{TransformError, VerifyOptions};
use clmap_lang::{SourceMap, Span};
use std::collections::HashSet;
use std::ops::ControlFlow;

/// The name of the transform in verification errors.
pub const PASS: &str = "grover.unlocal";

/// Verifies a rewrite's text when the switch is on.
///
/// The rewrite is an edit of the user's text, not of the IR (untouched lines stay
/// byte-identical, comments and macros included), so what is verified is the text it
/// produced: compiled again with the original's options and includes. The front end
/// validates every module it returns, so a rewrite whose IR would be invalid fails here as
/// well, named as Grover's. The compiled rewrite is returned (`None` when the switch is off)
/// so that validation runs it instead of compiling the same text again.
pub fn verify_rewrite(
    compiled: &Compiled,
    text: &str,
    verify: VerifyOptions,
) -> Result<Option<Compiled>, TransformError> {
    if !verify.enabled {
        return Ok(None);
    }
    clmap_lang::frontend::recompile_main(compiled, text).map(Some).map_err(|failure| {
        TransformError::DoesNotCompile { pass: PASS.to_string(), message: failure.render() }
    })
}

/// Why the edits could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    #[error("{0}")]
    Render(#[from] crate::render::RenderError),
    #[error("the source cannot be edited there: {0}")]
    Edit(#[from] EditError),
    #[error("the code to change is not in the main file (it comes from a header)")]
    OtherFile,
    #[error("the local buffer is declared together with other variables in one declaration")]
    SharedDeclaration,
}

/// The edits for the given plans; `texts[i][j]` is the text that replaces load `j` of plan `i`.
pub struct Rewrite {
    pub edits: EditSet,
    pub texts: Vec<Vec<String>>,
}

#[allow(clippy::too_many_arguments)]
pub fn rewrite(
    module: &Module,
    function: &Function,
    sources: &SourceMap,
    main_file: clmap_lang::FileId,
    events: &Events,
    plans: &[&Plan],
    removed: &[LocalBuffer],
    remove_barriers: bool,
    comment_out: bool,
) -> Result<Rewrite, RewriteError> {
    let mut edits = EditSet::new(main_file);
    let text = sources.get(main_file).map(|f| f.text.as_str()).unwrap_or("");
    let mut dead: HashSet<Span> = HashSet::new();
    for plan in plans {
        for s in &plan.stores {
            dead.insert(s.statement);
        }
    }
    for (buffer, span) in &events.declarations {
        if removed.contains(buffer) {
            dead.insert(*span);
        }
    }
    if remove_barriers {
        for b in events.barriers.iter().filter(|b| !b.global_fence) {
            dead.insert(b.span);
        }
    }
    let declarations: HashSet<Span> = events.declarations.iter().map(|(_, s)| *s).collect();
    let mut doomed = Vec::new();
    collect_dead(function, &function.body, &dead, &mut doomed, 0);
    for span in doomed {
        if span.file != main_file {
            return Err(RewriteError::OtherFile);
        }
        let span = if declarations.contains(&span) {
            whole_declaration(text, span).ok_or(RewriteError::SharedDeclaration)?
        } else {
            with_semicolon(text, span)
        };
        if comment_out {
            edits.comment_out(sources, span)?;
        } else {
            delete_lines(&mut edits, text, span)?;
        }
    }
    let mut texts = Vec::new();
    for plan in plans {
        let mut plan_texts = Vec::new();
        for lp in &plan.loads {
            if lp.load.span.file != main_file {
                return Err(RewriteError::OtherFile);
            }
            let ctx = RenderContext { module, function, events, load: &lp.load };
            let value = ctx.render(&lp.new_value)?;
            // Composite values print their own parentheses, so the text drops in as is.
            let replacement = value;
            edits.replace(lp.load.span, replacement.clone())?;
            plan_texts.push(replacement);
        }
        for h in &plan.helpers {
            helper_edits(module, function, text, &mut edits, h)?;
        }
        texts.push(plan_texts);
    }
    Ok(Rewrite { edits, texts })
}

/// The helper's `__local` parameter takes the global buffer's type, and the call passes the
/// global buffer.
fn helper_edits(
    module: &Module,
    kernel: &Function,
    text: &str,
    edits: &mut EditSet,
    h: &crate::candidate::HelperPlan,
) -> Result<(), RewriteError> {
    let global = kernel.params.get(h.global_param as usize).ok_or(RewriteError::OtherFile)?;
    edits.replace(h.arg.arg_span, global.name.clone())?;
    let callee = module.functions.get(h.arg.callee).ok_or(RewriteError::OtherFile)?;
    let param = callee.params.get(h.arg.param).ok_or(RewriteError::OtherFile)?;
    if param.span.file != edits.file() {
        return Err(RewriteError::OtherFile);
    }
    // The declaration runs from after the previous `(` or `,` to the parameter's name.
    let name_start = param.span.start as usize;
    let before = text.get(..name_start).unwrap_or("");
    let decl_start = before.rfind(['(', ',']).map_or(0, |i| i + 1);
    let leading = before.get(decl_start..).unwrap_or("");
    let decl_start = decl_start + (leading.len() - leading.trim_start().len());
    let mut ty = print_type(module, global.ty);
    // Keep the helper's promise not to write through the pointer.
    if let Some(TypeInner::Pointer { is_const: false, .. }) = module.types.get(global.ty) {
        if let Some(TypeInner::Pointer { is_const: true, .. }) = module.types.get(param.ty) {
            ty = format!("const {ty}");
        }
    }
    let spaced = if ty.ends_with('*') { ty } else { format!("{ty} ") };
    edits.replace(Span::new(edits.file(), decl_start as u32, name_start as u32), spaced)?;
    Ok(())
}

/// A declaration from its first specifier to its `;`; `None` when it declares several names.
fn whole_declaration(text: &str, span: Span) -> Option<Span> {
    let before = text.get(..span.start as usize)?;
    let start = before.rfind([';', '{', '}', '\n']).map_or(0, |i| i + 1);
    let leading = before.get(start..)?;
    let start = start + (leading.len() - leading.trim_start().len());
    let end = span.end as usize + text.get(span.end as usize..)?.find(';')? + 1;
    let body = text.get(start..end)?;
    if body.contains(',') || body.contains('=') {
        return None;
    }
    Some(Span::new(span.file, start as u32, end as u32))
}

/// Deletes the statement's whole lines when it stands alone on them, and one of the blank
/// lines around it when it was set off by blank lines on both sides.
fn delete_lines(edits: &mut EditSet, text: &str, span: Span) -> Result<(), EditError> {
    let (start, end) = (span.start as usize, span.end as usize);
    let line_start = text.get(..start).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    let line_end = text.get(end..).and_then(|t| t.find('\n')).map_or(text.len(), |i| end + i + 1);
    let alone = text.get(line_start..start).is_some_and(|t| t.trim().is_empty())
        && text.get(end..line_end).is_some_and(|t| t.trim().is_empty());
    if !alone {
        return edits.delete(span);
    }
    let previous_blank = line_start >= 1
        && text.get(..line_start - 1).is_some_and(|t| {
            let prev_start = t.rfind('\n').map_or(0, |i| i + 1);
            t.get(prev_start..).is_some_and(|l| l.trim().is_empty())
        });
    let next_line_end = text.get(line_end..).and_then(|t| t.find('\n')).map(|i| line_end + i + 1);
    let mut stop = line_end;
    if let Some(next_end) = next_line_end {
        if previous_blank && text.get(line_end..next_end).is_some_and(|l| l.trim().is_empty()) {
            stop = next_end;
        }
    }
    edits.delete(Span::new(span.file, line_start as u32, stop as u32))
}

/// Statement spans stop before the `;` in some forms; a deletion takes it along.
fn with_semicolon(text: &str, span: Span) -> Span {
    let rest = text.get(span.end as usize..).unwrap_or("");
    let trimmed = rest.trim_start_matches([' ', '\t']);
    if !text.get(..span.end as usize).unwrap_or("").ends_with(';') && trimmed.starts_with(';') {
        let extra = rest.len() - trimmed.len() + 1;
        Span::new(span.file, span.start, span.end + extra as u32)
    } else {
        span
    }
}

const MAX_DEPTH: usize = 200;

/// The largest statements made only of deleted statements.
fn collect_dead(f: &Function, b: &Block, dead: &HashSet<Span>, out: &mut Vec<Span>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for (s, span) in b.iter() {
        if is_dead(f, s, span, dead, depth) {
            out.push(span);
            continue;
        }
        match s {
            Statement::Block(inner) => collect_dead(f, inner, dead, out, depth + 1),
            Statement::If { accept, reject, .. } => {
                collect_dead(f, accept, dead, out, depth + 1);
                collect_dead(f, reject, dead, out, depth + 1);
            }
            Statement::Loop { body, .. } => collect_dead(f, body, dead, out, depth + 1),
            Statement::Switch { cases, .. } => {
                for c in cases {
                    collect_dead(f, &c.body, dead, out, depth + 1);
                }
            }
            _ => {}
        }
    }
}

fn is_dead(f: &Function, s: &Statement, span: Span, dead: &HashSet<Span>, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let all_dead = |b: &Block| b.iter().all(|(s, sp)| is_dead(f, s, sp, dead, depth + 1));
    match s {
        Statement::Expression(_) | Statement::Declare { .. } | Statement::Barrier(_) => {
            dead.contains(&span)
        }
        Statement::Block(b) => !b.is_empty() && all_dead(b),
        Statement::If { condition, accept, reject } => {
            is_pure(f, *condition) && !accept.is_empty() && all_dead(accept) && all_dead(reject)
        }
        Statement::Loop { condition, body, .. } => {
            condition.is_none_or(|c| is_pure(f, c)) && !body.is_empty() && all_dead(body)
        }
        _ => false,
    }
}

/// No assignment, call or memory-touching built-in inside.
fn is_pure(f: &Function, e: Handle<Expression>) -> bool {
    let impure = proc::visit_expression_tree(f, e, &mut |_, expr| match expr {
        Expression::Assign { .. }
        | Expression::CompoundAssign { .. }
        | Expression::IncDec { .. }
        | Expression::Call { .. } => ControlFlow::Break(()),
        Expression::Builtin { function, .. } if function.touches_memory() => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    });
    impure.is_continue()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{unlocal, GroverError, UnlocalOptions};
    use clmap_lang::frontend::compile_isolated;

    const STAGED: &str = "#define N 64
__kernel void k(__global const float *g, __global float *out) {
    __local float lm[N];
    const uint lx = get_local_id(0);
    lm[lx] = g[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = lm[N - 1 - lx];
}
";

    fn compiled() -> Compiled {
        compile_isolated(STAGED, "").unwrap_or_else(|f| panic!("{}", f.render()))
    }

    #[test]
    fn a_real_rewrite_passes_verification() {
        let compiled = compiled();
        let options = UnlocalOptions { verify: VerifyOptions::ON, ..Default::default() };
        let outcome = unlocal(&compiled, &options).expect("the rewrite verifies");
        assert_eq!(outcome.removed(), ["lm"]);
        assert!(!outcome.text.contains("__local"), "{}", outcome.text);
        assert!(matches!(verify_rewrite(&compiled, &outcome.text, VerifyOptions::ON), Ok(Some(_))));
        assert!(outcome.verified.is_some(), "the verified rewrite is kept for validation");
    }

    #[test]
    fn a_rewrite_that_does_not_compile_is_rejected_naming_the_pass() {
        let compiled = compiled();
        // What a rewrite that deleted the declaration but left a use behind would print.
        let broken = STAGED.replace("    __local float lm[N];\n", "");
        let error = verify_rewrite(&compiled, &broken, VerifyOptions::ON)
            .expect_err("a use of a deleted buffer must not verify");
        assert_eq!(error.pass(), PASS);
        let TransformError::DoesNotCompile { message, .. } = &error else { panic!("{error}") };
        assert!(message.contains("lm"), "{message}");
        assert!(error.to_string().contains("`grover.unlocal`"), "{error}");
        // With the switch off the same text goes through unchecked.
        assert!(matches!(verify_rewrite(&compiled, &broken, VerifyOptions::OFF), Ok(None)));
        // And unlocal reports it as a transform error, not as a rewrite the caller can use.
        let wrapped: GroverError = error.into();
        assert!(matches!(wrapped, GroverError::Transform(_)));
    }

    #[test]
    fn the_recompiled_rewrite_keeps_the_original_build_options() {
        let compiled =
            compile_isolated(&STAGED.replace("#define N 64\n", ""), "-DN=64").expect("compiles");
        let options = UnlocalOptions { verify: VerifyOptions::ON, ..Default::default() };
        let outcome = unlocal(&compiled, &options).expect("N comes from the build options");
        assert!(outcome.changed());
    }
}
