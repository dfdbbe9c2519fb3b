//! Calls of user functions (arguments converted as if by assignment, call-graph edges
//! recorded) and dispatch of built-in names.

use super::conversions::{AssignContext, Operand};
use super::expr::SYNC_FUNCTIONS;
use super::scope::Symbol;
use super::{Checker, Reported, SResult};
use crate::ast;
use crate::ir::{Expression, Handle};
use crate::span::Span;

impl Checker {
    pub(super) fn call(
        &mut self,
        callee: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> SResult<Operand> {
        let ast::ExprKind::Ident(name) = &callee.kind else {
            return Err(self.error(
                callee.span,
                "called object is not a function (function pointers are not supported)",
            ));
        };
        match self.scopes.lookup(name).cloned() {
            Some(Symbol::Function { index, .. }) => self.user_call(index, name, args, span),
            Some(Symbol::Poisoned { .. }) => Err(Reported),
            Some(other) => {
                let shown = match other {
                    Symbol::Variable { ty, .. } => self.type_name(ty),
                    _ => "int".to_string(),
                };
                Err(self
                    .error(callee.span, format!("called object type '{shown}' is not a function")))
            }
            None if SYNC_FUNCTIONS.contains(&name.as_str()) => {
                Err(self
                    .error(span, format!("{name}() may only be called as a statement of its own")))
            }
            None => self.builtin_call(name, callee.span, args, span),
        }
    }

    pub(super) fn user_call(
        &mut self,
        index: usize,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> SResult<Operand> {
        let Some(entry) = self.functions.get(index).cloned() else {
            return Err(self.error(span, "internal error: unknown function"));
        };
        // A kernel may call another kernel; the callee then behaves as an ordinary function.
        if args.len() != entry.params.len() {
            let relation = if args.len() < entry.params.len() { "few" } else { "many" };
            self.diags.push(
                crate::diag::Diagnostic::error(
                    span,
                    format!(
                        "too {relation} arguments to function call, expected {}, have {}",
                        entry.params.len(),
                        args.len()
                    ),
                )
                .with_note(entry.declared_at, format!("'{name}' declared here")),
            );
            return Err(Reported);
        }
        let mut converted = Vec::new();
        let mut failed = false;
        for (i, (arg, &param)) in args.iter().zip(&entry.params).enumerate() {
            let access = entry.param_access.get(i).copied().flatten();
            match self
                .value(arg)
                .and_then(|v| self.assign_convert(v, param, AssignContext::Argument))
                .and_then(|v| self.check_image_argument(v, access, param).map(|()| v))
            {
                Ok(v) => converted.push(v.expr),
                Err(Reported) => failed = true,
            }
        }
        if failed {
            return Err(Reported);
        }
        if let Some(body) = &self.body {
            let caller = body.function_index;
            if let Some(f) = self.functions.get_mut(caller) {
                f.calls.push((index, span));
            }
        }
        let ty = match entry.return_type {
            Some(ty) => ty,
            None => self.void_type(),
        };
        Ok(self.value_operand(
            Expression::Call { function: Handle::from_index(index), args: converted },
            ty,
            span,
        ))
    }
}
