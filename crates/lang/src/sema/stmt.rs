//! Statements: blocks and scopes, control flow, `switch` lowering, and the synchronisation
//! built-ins that are statements in the IR.

use super::{Checker, Reported, SResult, MAX_DEPTH};
use crate::ast;
use crate::ir::{self, FenceFlags, FenceKind, Statement};
use crate::span::Span;

/// Whether the block's last statement is a `return` (or an `if` whose branches both end so).
pub(super) fn ends_with_return(block: &ir::Block) -> bool {
    match block.statements.last() {
        Some(Statement::Return(_)) => true,
        Some(Statement::Block(inner)) => ends_with_return(inner),
        Some(Statement::If { accept, reject, .. }) => {
            ends_with_return(accept) && ends_with_return(reject)
        }
        _ => false,
    }
}

/// Whether any `return` occurs in the block.
pub(super) fn contains_return(block: &ir::Block) -> bool {
    block.statements.iter().any(|s| match s {
        Statement::Return(_) => true,
        Statement::Block(b) => contains_return(b),
        Statement::If { accept, reject, .. } => contains_return(accept) || contains_return(reject),
        Statement::Loop { body, init, .. } => contains_return(body) || contains_return(init),
        Statement::Switch { cases, .. } => cases.iter().any(|c| contains_return(&c.body)),
        _ => false,
    })
}

impl Checker {
    /// The statements of a `{ … }` whose scope the caller has opened.
    pub(super) fn block_statements(&mut self, stmts: &[ast::Stmt]) -> ir::Block {
        let mut block = ir::Block::new();
        let mut pending_pragma: Option<String> = None;
        for stmt in stmts {
            if let ast::StmtKind::Pragma(pragma) = &stmt.kind {
                // `#pragma unroll` belongs to the loop after it; other pragmas are dropped.
                let text = pragma.text.trim();
                if text == "unroll" || text.starts_with("unroll ") || text.starts_with("unroll(") {
                    pending_pragma = Some(text.to_string());
                }
                continue;
            }
            let pragma = pending_pragma.take();
            let _ = self.statement(stmt, &mut block, pragma);
        }
        block
    }

    fn scoped_block(&mut self, stmts: &[ast::Stmt]) -> ir::Block {
        self.scopes.push();
        if let Some(body) = &mut self.body {
            body.block_depth += 1;
        }
        let block = self.block_statements(stmts);
        if let Some(body) = &mut self.body {
            body.block_depth -= 1;
        }
        self.scopes.pop();
        block
    }

    /// A statement used as the body of `if`, a loop or `switch`: its own scope.
    fn substatement(&mut self, stmt: &ast::Stmt) -> ir::Block {
        match &stmt.kind {
            ast::StmtKind::Compound(block) => self.scoped_block(&block.stmts),
            _ => self.scoped_block(std::slice::from_ref(stmt)),
        }
    }

    fn statement(
        &mut self,
        stmt: &ast::Stmt,
        block: &mut ir::Block,
        pragma: Option<String>,
    ) -> SResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(stmt.span, "statement is nested too deeply"));
        }
        self.depth += 1;
        let result = self.statement_inner(stmt, block, pragma);
        self.depth -= 1;
        result
    }

    fn statement_inner(
        &mut self,
        stmt: &ast::Stmt,
        block: &mut ir::Block,
        pragma: Option<String>,
    ) -> SResult<()> {
        let span = stmt.span;
        match &stmt.kind {
            ast::StmtKind::Compound(inner) => {
                let inner = self.scoped_block(&inner.stmts);
                block.push(Statement::Block(inner), span);
            }
            ast::StmtKind::Decl(decl) => self.declaration(decl, false, block)?,
            ast::StmtKind::Expr(None) => {}
            ast::StmtKind::Expr(Some(e)) => {
                if let Some(sync) = self.synchronisation(e)? {
                    block.push(sync, span);
                } else {
                    let value = self.value(e)?;
                    block.push(Statement::Expression(value.expr), span);
                }
            }
            ast::StmtKind::If { cond, then, otherwise } => {
                let condition = self.value(cond).and_then(|c| self.condition(c));
                let accept = self.substatement(then);
                let reject = match otherwise {
                    Some(s) => self.substatement(s),
                    None => ir::Block::new(),
                };
                block.push(Statement::If { condition: condition?.expr, accept, reject }, span);
            }
            ast::StmtKind::While { cond, body } => {
                let condition = self.value(cond).and_then(|c| self.condition(c));
                let body = self.loop_body(body);
                block.push(
                    Statement::Loop {
                        form: ir::LoopForm::While,
                        init: ir::Block::new(),
                        condition: Some(condition?.expr),
                        update: None,
                        body,
                        pragma,
                    },
                    span,
                );
            }
            ast::StmtKind::DoWhile { body, cond } => {
                let body = self.loop_body(body);
                let condition = self.value(cond).and_then(|c| self.condition(c));
                block.push(
                    Statement::Loop {
                        form: ir::LoopForm::DoWhile,
                        init: ir::Block::new(),
                        condition: Some(condition?.expr),
                        update: None,
                        body,
                        pragma,
                    },
                    span,
                );
            }
            ast::StmtKind::For { init, cond, step, body } => {
                self.scopes.push();
                let result =
                    self.for_loop(init.as_ref(), cond.as_ref(), step.as_ref(), body, pragma, span);
                self.scopes.pop();
                block.push(result?, span);
            }
            ast::StmtKind::Switch { cond, body } => {
                let switch = self.switch(cond, body, span)?;
                block.push(switch, span);
            }
            ast::StmtKind::Case { value, .. } => {
                return Err(self.error(value.span, "'case' statement not in switch statement (or not directly in its block, which is not supported)"));
            }
            ast::StmtKind::Default { .. } => {
                return Err(self.error(span, "'default' statement not in switch statement (or not directly in its block, which is not supported)"));
            }
            ast::StmtKind::Break => {
                let inside =
                    self.body.as_ref().is_some_and(|b| b.loop_depth > 0 || b.switch_depth > 0);
                if !inside {
                    return Err(
                        self.error(span, "'break' statement not in loop or switch statement")
                    );
                }
                block.push(Statement::Break, span);
            }
            ast::StmtKind::Continue => {
                let in_loop = self.body.as_ref().is_some_and(|b| b.loop_depth > 0);
                if !in_loop {
                    return Err(self.error(span, "'continue' statement not in loop statement"));
                }
                block.push(Statement::Continue, span);
            }
            ast::StmtKind::Return(value) => {
                let statement = self.return_statement(value.as_ref(), span, block)?;
                block.push(statement, span);
            }
            ast::StmtKind::Goto(_) | ast::StmtKind::Labeled { .. } => {
                return Err(self.error(span, "goto and labels are not supported"));
            }
            ast::StmtKind::Pragma(_) => {}
        }
        Ok(())
    }

    fn loop_body(&mut self, body: &ast::Stmt) -> ir::Block {
        if let Some(b) = &mut self.body {
            b.loop_depth += 1;
        }
        let block = self.substatement(body);
        if let Some(b) = &mut self.body {
            b.loop_depth -= 1;
        }
        block
    }

    fn for_loop(
        &mut self,
        init: Option<&ast::ForInit>,
        cond: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
        body: &ast::Stmt,
        pragma: Option<String>,
        span: Span,
    ) -> SResult<Statement> {
        let mut init_block = ir::Block::new();
        let mut failed = false;
        match init {
            Some(ast::ForInit::Decl(decl)) => {
                failed |= self.declaration(decl, false, &mut init_block).is_err()
            }
            Some(ast::ForInit::Expr(e)) => match self.value(e) {
                Ok(v) => init_block.push(Statement::Expression(v.expr), e.span),
                Err(Reported) => failed = true,
            },
            None => {}
        }
        let condition = match cond {
            Some(c) => match self.value(c).and_then(|v| self.condition(v)) {
                Ok(v) => Some(v.expr),
                Err(Reported) => {
                    failed = true;
                    None
                }
            },
            None => None,
        };
        let update = match step {
            Some(s) => match self.value(s) {
                Ok(v) => Some(v.expr),
                Err(Reported) => {
                    failed = true;
                    None
                }
            },
            None => None,
        };
        let body = self.loop_body(body);
        let _ = span;
        if failed {
            return Err(Reported);
        }
        Ok(Statement::Loop {
            form: ir::LoopForm::For,
            init: init_block,
            condition,
            update,
            body,
            pragma,
        })
    }

    /// A `return`; `block` receives what must run before it (`return f();` in a void function
    /// calls `f` first).
    fn return_statement(
        &mut self,
        value: Option<&ast::Expr>,
        span: Span,
        block: &mut ir::Block,
    ) -> SResult<Statement> {
        let return_type = self.body.as_ref().and_then(|b| b.return_type);
        match (value, return_type) {
            (None, None) => Ok(Statement::Return(None)),
            (Some(e), None) => {
                let v = self.value(e)?;
                if matches!(self.inner(v.ty), ir::TypeInner::Void) {
                    // `return f();` of a void call (clang accepts it): call, then return.
                    block.push(Statement::Expression(v.expr), e.span);
                    return Ok(Statement::Return(None));
                }
                Err(self.error(e.span, "void function should not return a value"))
            }
            (None, Some(_)) => Err(self.error(span, "non-void function should return a value")),
            (Some(e), Some(ty)) => {
                let v = self.value(e)?;
                let converted =
                    self.assign_convert(v, ty, super::conversions::AssignContext::Return)?;
                Ok(Statement::Return(Some(converted.expr)))
            }
        }
    }

    /// `barrier(flags)` and the fences as statements; `None` when `e` is something else.
    fn synchronisation(&mut self, e: &ast::Expr) -> SResult<Option<Statement>> {
        let mut inner = e;
        while let ast::ExprKind::Paren(i) = &inner.kind {
            inner = i;
        }
        let ast::ExprKind::Call { callee, args } = &inner.kind else {
            return Ok(None);
        };
        let ast::ExprKind::Ident(name) = &callee.kind else {
            return Ok(None);
        };
        if !super::expr::SYNC_FUNCTIONS.contains(&name.as_str())
            || self.scopes.lookup(name).is_some()
        {
            return Ok(None);
        }
        let [flags] = args.as_slice() else {
            return Err(self.error(
                inner.span,
                format!("{name}() takes exactly one argument (the fence flags)"),
            ));
        };
        let value = self.constant_integer(flags, "fence flags")?;
        if !(0..=3).contains(&value) {
            return Err(self.error_with_help(
                flags.span,
                "invalid fence flags",
                "use CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE or both joined with |",
            ));
        }
        let flags = FenceFlags { local: value & 1 != 0, global: value & 2 != 0 };
        Ok(Some(match name.as_str() {
            "barrier" => Statement::Barrier(flags),
            "mem_fence" => Statement::MemFence { flags, kind: FenceKind::ReadWrite },
            "read_mem_fence" => Statement::MemFence { flags, kind: FenceKind::Read },
            _ => Statement::MemFence { flags, kind: FenceKind::Write },
        }))
    }

    fn switch(&mut self, cond: &ast::Expr, body: &ast::Stmt, span: Span) -> SResult<Statement> {
        let selector = self.value(cond)?;
        if !self.shape(selector.ty).is_some_and(|s| {
            s.size.is_none() && (s.scalar.is_integer() || s.scalar == ir::Scalar::Bool)
        }) {
            let shown = self.type_name(selector.ty);
            return Err(self.error(
                selector.span,
                format!("statement requires expression of integer type ('{shown}' invalid)"),
            ));
        }
        let selector = self.promoted(selector);
        let selector_scalar = self.shape(selector.ty).map(|s| s.scalar).unwrap_or(ir::Scalar::Int);
        let ast::StmtKind::Compound(block) = &body.kind else {
            return Err(self.error(body.span, "a switch body that is not a block is not supported"));
        };
        if let Some(b) = &mut self.body {
            b.switch_depth += 1;
        }
        self.scopes.push();
        let mut prelude = ir::Block::new();
        let result = self.switch_cases(&block.stmts, selector_scalar, &mut prelude);
        self.scopes.pop();
        if let Some(b) = &mut self.body {
            b.switch_depth -= 1;
        }
        let cases = result?;
        let switch = Statement::Switch { selector: selector.expr, cases };
        if prelude.is_empty() {
            return Ok(switch);
        }
        // Declarations before the first label are visible in every case; they go in a scope
        // around the switch.
        prelude.push(switch, span);
        Ok(Statement::Block(prelude))
    }

    fn switch_cases(
        &mut self,
        stmts: &[ast::Stmt],
        selector: ir::Scalar,
        prelude: &mut ir::Block,
    ) -> SResult<Vec<ir::SwitchCase>> {
        let mut cases: Vec<ir::SwitchCase> = Vec::new();
        let mut seen: Vec<(Option<i64>, Span)> = Vec::new();
        let mut failed = false;
        for stmt in stmts {
            // A case label may label another case label: `case 1: case 2: body`.
            let mut current = stmt;
            let mut opened_label = false;
            loop {
                let (value, inner) = match &current.kind {
                    ast::StmtKind::Case { value, body } => {
                        let v = match self.constant_integer(value, "case value") {
                            Ok(v) => {
                                let literal = ir::Literal::int(selector, v);
                                Some(literal.as_i128().unwrap_or(v) as i64)
                            }
                            Err(Reported) => {
                                failed = true;
                                None
                            }
                        };
                        if v.is_none() {
                            current = body;
                            continue;
                        }
                        (v, &**body)
                    }
                    ast::StmtKind::Default { body } => (None, &**body),
                    _ => break,
                };
                if let Some((_, previous)) = seen.iter().find(|(v, _)| *v == value) {
                    let message = match value {
                        Some(v) => format!("duplicate case value '{v}'"),
                        None => "multiple default labels in one switch".to_string(),
                    };
                    self.diags.push(
                        crate::diag::Diagnostic::error(current.span, message)
                            .with_note(*previous, "previous case defined here"),
                    );
                    failed = true;
                }
                seen.push((value, current.span));
                if let Some(last) = cases.last_mut() {
                    last.fall_through = !ends_in_jump(&last.body);
                }
                cases.push(ir::SwitchCase { value, body: ir::Block::new(), fall_through: true });
                opened_label = true;
                current = inner;
            }
            if !opened_label && cases.is_empty() {
                // Statements before the first label never run. Declarations without an
                // initialiser only introduce names, so they are kept; anything else is refused.
                let declares_only = match &stmt.kind {
                    ast::StmtKind::Decl(decl) => decl.declarators.iter().all(|d| d.init.is_none()),
                    _ => false,
                };
                if declares_only {
                    failed |= self.statement(stmt, prelude, None).is_err();
                } else {
                    self.error(
                        stmt.span,
                        "statements before the first case label are not supported",
                    );
                    failed = true;
                }
                continue;
            }
            let Some(mut case_body) = cases.last_mut().map(|c| std::mem::take(&mut c.body)) else {
                continue;
            };
            if self.statement(current, &mut case_body, None).is_err() {
                failed = true;
            }
            if let Some(last) = cases.last_mut() {
                last.body = case_body;
            }
        }
        if let Some(last) = cases.last_mut() {
            last.fall_through = !ends_in_jump(&last.body);
        }
        if failed {
            return Err(Reported);
        }
        Ok(cases)
    }
}

/// Whether control cannot fall off the end of a case body.
fn ends_in_jump(block: &ir::Block) -> bool {
    matches!(
        block.statements.last(),
        Some(Statement::Break | Statement::Continue | Statement::Return(_))
    )
}
