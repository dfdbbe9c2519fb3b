//! Per-function checks of the statement tree: control-flow placement, declarations, returns
//! and the types of conditions.

use super::expression::{is_integer_scalar, FunctionValidator};
use super::{ValidationErrorKind as Kind, MAX_STATEMENT_NESTING};
use crate::ir::{
    AddressSpace, Block, Expression, Handle, LoopForm, Statement, TypeInner, VariableRef,
};
use crate::span::Span;
use std::collections::HashSet;

/// Where a statement sits: what `break` and `continue` would leave.
#[derive(Clone, Copy, Default)]
struct Context {
    in_loop: bool,
    in_switch: bool,
    depth: usize,
}

impl FunctionValidator<'_> {
    pub(super) fn check_body(&mut self) {
        let body = &self.function.body;
        self.block(body, Context::default());
    }

    /// A block is a scope: variables it declares are visible until its end.
    fn block(&mut self, block: &Block, context: Context) {
        let scope = self.scope_stack.len();
        self.statements(block, context);
        self.close_scope(scope);
    }

    fn close_scope(&mut self, scope: usize) {
        while self.scope_stack.len() > scope {
            if let Some(local) = self.scope_stack.pop() {
                if let Some(visible) = self.in_scope.get_mut(local.index()) {
                    *visible = false;
                }
            }
        }
    }

    /// Reports the variables an expression tree names outside their scope. Each expression is
    /// walked once (trees are used once; `scope_checked` also stops cycles).
    fn check_scope(&mut self, root: Handle<Expression>, span: Span) {
        let mut stack = vec![root];
        while let Some(e) = stack.pop() {
            match self.scope_checked.get_mut(e.index()) {
                Some(checked) if !*checked => *checked = true,
                _ => continue,
            }
            let Some(expr) = self.function.expressions.get(e) else { continue };
            if let Expression::Variable(VariableRef::Local(local)) = expr {
                if self.in_scope.get(local.index()) == Some(&false) {
                    let name = self.function.locals[*local].name.clone();
                    self.error(span, Kind::VariableOutOfScope { name });
                }
            }
            stack.extend(crate::proc::operands(expr));
        }
    }

    fn statements(&mut self, block: &Block, context: Context) {
        if context.depth > MAX_STATEMENT_NESTING {
            let span = block.spans.first().copied().unwrap_or(self.function.span);
            self.error(span, Kind::NestingTooDeep);
            return;
        }
        if block.statements.len() != block.spans.len() {
            self.error(
                self.function.span,
                Kind::InvalidStatement {
                    reason: format!(
                        "a block has {} statements but {} spans",
                        block.statements.len(),
                        block.spans.len()
                    ),
                },
            );
        }
        for (index, statement) in block.statements.iter().enumerate() {
            let span = block.spans.get(index).copied().unwrap_or(self.function.span);
            self.statement(statement, span, context);
        }
    }

    /// Counts a use of `e` by a statement; false when it is out of range.
    fn root(&mut self, e: Handle<crate::ir::Expression>, span: Span) -> bool {
        match self.uses.get_mut(e.index()) {
            Some(uses) => {
                *uses += 1;
                self.check_scope(e, span);
                true
            }
            None => {
                self.error(span, Kind::InvalidExpressionHandle { index: e.index() });
                false
            }
        }
    }

    /// A condition: a scalar or a pointer (compared with zero).
    fn condition(&mut self, e: Handle<Expression>, span: Span) {
        if self.root(e, span)
            && !matches!(self.type_of(e), Some(TypeInner::Scalar(_) | TypeInner::Pointer { .. }))
        {
            let reason = format!(
                "condition %{} has type {}, not a scalar",
                e.index(),
                self.type_text(self.type_handle(e))
            );
            self.error(span, Kind::InvalidStatement { reason });
        }
    }

    fn statement(&mut self, statement: &Statement, span: Span, context: Context) {
        let nested = Context { depth: context.depth + 1, ..context };
        match statement {
            Statement::Declare { variable, init } => {
                let Some(local) = self.function.locals.get(*variable) else {
                    return self.error(span, Kind::InvalidLocalHandle { index: variable.index() });
                };
                if let Some(count) = self.declarations.get_mut(variable.index()) {
                    *count += 1;
                }
                // Visible from here (in its own initialiser too, as in C) to the block's end.
                if let Some(visible) = self.in_scope.get_mut(variable.index()) {
                    *visible = true;
                    self.scope_stack.push(*variable);
                }
                if local.space == AddressSpace::Local {
                    if !self.function.is_kernel() {
                        self.error(
                            span,
                            Kind::LocalMemoryOutsideKernel { name: local.name.clone() },
                        );
                    }
                    if init.is_some() {
                        self.error(
                            span,
                            Kind::InvalidStatement {
                                reason: format!(
                                    "`__local` variable '{}' cannot be initialised",
                                    local.name
                                ),
                            },
                        );
                    }
                }
                if let Some(init) = *init {
                    if self.root(init, span) && self.type_handle(init) != Some(local.ty) {
                        let reason = format!(
                            "'{}' of type {} is initialised with {}",
                            local.name,
                            self.type_text(Some(local.ty)),
                            self.type_text(self.type_handle(init))
                        );
                        self.error(span, Kind::InvalidStatement { reason });
                    }
                }
            }
            Statement::Expression(e) => {
                self.root(*e, span);
            }
            Statement::Block(block) => self.block(block, nested),
            Statement::If { condition, accept, reject } => {
                self.condition(*condition, span);
                self.block(accept, nested);
                self.block(reject, nested);
            }
            Statement::Loop { form, init, condition, update, body, .. } => {
                if *form != LoopForm::For && !init.is_empty() {
                    self.error(
                        span,
                        Kind::InvalidStatement {
                            reason: "only a for loop has an init clause".to_string(),
                        },
                    );
                }
                if init
                    .statements
                    .iter()
                    .any(|s| !matches!(s, Statement::Declare { .. } | Statement::Expression(_)))
                {
                    self.error(
                        span,
                        Kind::InvalidStatement {
                            reason: "a for loop's init holds declarations or an expression"
                                .to_string(),
                        },
                    );
                }
                // The init runs outside the loop: `break` there belongs to an outer construct.
                // Its declarations are visible in the condition, the update and the body.
                let scope = self.scope_stack.len();
                self.statements(init, nested);
                if let Some(condition) = condition {
                    self.condition(*condition, span);
                }
                if let Some(update) = update {
                    self.root(*update, span);
                }
                self.block(body, Context { in_loop: true, ..nested });
                self.close_scope(scope);
            }
            Statement::Switch { selector, cases } => {
                if self.root(*selector, span) && !is_integer_scalar(self.type_of(*selector)) {
                    self.error(
                        span,
                        Kind::InvalidStatement {
                            reason: "a switch selects on an integer scalar".to_string(),
                        },
                    );
                }
                // The cases share the switch body's scope, as in C.
                let scope = self.scope_stack.len();
                let mut values = HashSet::new();
                let mut defaults = 0;
                for case in cases {
                    match case.value {
                        Some(value) if !values.insert(value) => {
                            self.error(span, Kind::DuplicateCase { value })
                        }
                        Some(_) => {}
                        None => {
                            defaults += 1;
                            if defaults == 2 {
                                self.error(span, Kind::DuplicateDefault);
                            }
                        }
                    }
                    self.statements(&case.body, Context { in_switch: true, ..nested });
                }
                self.close_scope(scope);
            }
            Statement::Break => {
                if !context.in_loop && !context.in_switch {
                    self.error(span, Kind::BreakOutsideLoop);
                }
            }
            Statement::Continue => {
                if !context.in_loop {
                    self.error(span, Kind::ContinueOutsideLoop);
                }
            }
            Statement::Return(value) => {
                let expected = self.function.return_type;
                match (value, expected) {
                    (None, None) => {}
                    (Some(_), None) => self.error(
                        span,
                        Kind::InvalidReturn {
                            reason: "a void function returns a value".to_string(),
                        },
                    ),
                    (None, Some(ty)) => {
                        let reason = format!(
                            "return without a value in a function returning {}",
                            self.type_text(Some(ty))
                        );
                        self.error(span, Kind::InvalidReturn { reason });
                    }
                    (Some(value), Some(ty)) => {
                        if self.root(*value, span) && self.type_handle(*value) != Some(ty) {
                            let reason = format!(
                                "returns {} from a function returning {}",
                                self.type_text(self.type_handle(*value)),
                                self.type_text(Some(ty))
                            );
                            self.error(span, Kind::InvalidReturn { reason });
                        }
                    }
                }
            }
            Statement::Barrier(_) | Statement::MemFence { .. } => {}
        }
    }
}
