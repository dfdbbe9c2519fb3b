//! Expressions: names, literals, operators, casts, vector literals, member access and calls.

use super::conversions::{common_scalar, AssignContext, Operand, PlaceInfo};
use super::scope::Symbol;
use super::{Checker, Reported, SResult, MAX_DEPTH};
use crate::ast::{self, BinaryOp};
use crate::ir::{
    self, AddressSpace, ConversionKind, Expression, Handle, Literal, Scalar, TypeInner, UnaryOp,
    VariableRef,
};
use crate::span::Span;
use crate::token::{FloatSuffix, IntSuffix, Radix};

/// The names of the synchronisation functions that are statements in the IR.
pub(super) const SYNC_FUNCTIONS: &[&str] =
    &["barrier", "mem_fence", "read_mem_fence", "write_mem_fence"];

/// C99 §6.4.4.1: the first type of the literal's list that can represent its value.
pub(super) fn integer_literal_type(value: u64, suffix: IntSuffix, radix: Radix) -> Scalar {
    let decimal = radix == Radix::Decimal;
    let candidates: &[Scalar] = match (suffix.unsigned, suffix.long, decimal) {
        (false, false, true) => &[Scalar::Int, Scalar::Long],
        (false, false, false) => &[Scalar::Int, Scalar::UInt, Scalar::Long, Scalar::ULong],
        (true, false, _) => &[Scalar::UInt, Scalar::ULong],
        (false, true, true) => &[Scalar::Long],
        (false, true, false) => &[Scalar::Long, Scalar::ULong],
        (true, true, _) => &[Scalar::ULong],
    };
    candidates
        .iter()
        .copied()
        .find(|s| match s {
            Scalar::Int => value <= i32::MAX as u64,
            Scalar::UInt => value <= u32::MAX as u64,
            Scalar::Long => value <= i64::MAX as u64,
            _ => true,
        })
        // Too large for `long`: clang takes `unsigned long` (with a warning).
        .unwrap_or(Scalar::ULong)
}

impl Checker {
    /// Checks an expression; the result may be a place.
    pub(super) fn expression(&mut self, e: &ast::Expr) -> SResult<Operand> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(e.span, "expression is nested too deeply"));
        }
        self.depth += 1;
        let result = self.expression_inner(e);
        self.depth -= 1;
        result
    }

    /// Checks an expression and takes its value.
    pub(super) fn value(&mut self, e: &ast::Expr) -> SResult<Operand> {
        let operand = self.expression(e)?;
        Ok(self.rvalue(operand))
    }

    fn expression_inner(&mut self, e: &ast::Expr) -> SResult<Operand> {
        let span = e.span;
        match &e.kind {
            ast::ExprKind::Ident(name) => self.identifier(name, span),
            ast::ExprKind::Int { value, suffix, radix } => {
                let scalar = integer_literal_type(*value, *suffix, *radix);
                Ok(self.literal(Literal::int(scalar, i128::from(*value)), span))
            }
            ast::ExprKind::Float { value, suffix } => {
                let scalar = match suffix {
                    FloatSuffix::None => Scalar::Double,
                    FloatSuffix::F => Scalar::Float,
                    FloatSuffix::H => Scalar::Half,
                };
                let value = super::constant::round_float(scalar, *value);
                Ok(self.literal(Literal::Float { scalar, value }, span))
            }
            ast::ExprKind::Char(value) => {
                Ok(self.literal(Literal::int(Scalar::Int, i128::from(*value)), span))
            }
            ast::ExprKind::Str(_) => {
                Err(self.error(span, "string literals are only supported as the format of printf"))
            }
            ast::ExprKind::Paren(inner) => {
                let operand = self.expression(inner)?;
                Ok(Operand { span, ..operand })
            }
            ast::ExprKind::Unary { op, operand } => self.unary(*op, operand, span),
            ast::ExprKind::Binary { op, lhs, rhs } => {
                let l = self.value(lhs)?;
                let r = self.value(rhs)?;
                self.binary(*op, l, r, span)
            }
            ast::ExprKind::Assign { op, lhs, rhs } => self.assignment(*op, lhs, rhs, span),
            ast::ExprKind::Conditional { cond, then, otherwise } => {
                self.conditional(cond, then, otherwise, span)
            }
            ast::ExprKind::Comma { lhs, rhs } => {
                let l = self.value(lhs)?;
                let r = self.value(rhs)?;
                Ok(self.value_operand(Expression::Comma { lhs: l.expr, rhs: r.expr }, r.ty, span))
            }
            ast::ExprKind::Call { callee, args } => self.call(callee, args, span),
            ast::ExprKind::Index { base, index } => self.index(base, index, span),
            ast::ExprKind::Member { base, field, arrow } => self.member(base, field, *arrow, span),
            ast::ExprKind::Cast { ty, operand } => self.cast(ty, operand, span),
            ast::ExprKind::VectorLiteral { ty, elems } => self.vector_literal(ty, elems, span),
            ast::ExprKind::SizeofExpr(inner) => {
                let ty = self.type_without_evaluating(inner)?;
                self.sizeof_type(ty, span)
            }
            ast::ExprKind::SizeofType(name) => {
                let declared = self.type_name_type(name)?;
                self.sizeof_type(declared.ty, span)
            }
            ast::ExprKind::VecStepExpr(inner) => {
                let ty = self.type_without_evaluating(inner)?;
                self.vec_step(ty, span)
            }
            ast::ExprKind::VecStepType(name) => {
                let declared = self.type_name_type(name)?;
                self.vec_step(declared.ty, span)
            }
        }
    }

    pub(super) fn literal(&mut self, literal: Literal, span: Span) -> Operand {
        let ty = self.scalar_type(literal.scalar());
        self.value_operand(Expression::Literal(literal), ty, span)
    }

    fn identifier(&mut self, name: &str, span: Span) -> SResult<Operand> {
        match self.scopes.lookup(name).cloned() {
            Some(Symbol::Variable { var, ty, space, is_const, .. }) => {
                if let (VariableRef::Local(local), None) = (var, &self.body) {
                    if let Some(&value) = self.constant_locals.get(&local) {
                        return Ok(self.literal(value, span));
                    }
                }
                if let (VariableRef::Local(_) | VariableRef::Param(_), None) = (var, &self.body) {
                    let message = match self.constant_context.as_deref() {
                        Some("array size") => format!(
                            "variable-length arrays are not supported in OpenCL C ('{name}' is not a constant)"
                        ),
                        Some(what) => format!("{what} is not a constant expression ('{name}' is a variable)"),
                        None => format!("'{name}' is not a constant expression"),
                    };
                    return Err(self.error(span, message));
                }
                let expr = self.add(Expression::Variable(var), ty, span);
                Ok(Operand {
                    expr,
                    ty,
                    place: Some(PlaceInfo { space, is_const, assignable: true }),
                    span,
                })
            }
            Some(Symbol::Constant { value, .. }) => Ok(self.literal(value, span)),
            Some(Symbol::Poisoned { .. }) => Err(Reported),
            Some(Symbol::Typedef { .. }) => {
                Err(self.error(span, format!("unexpected type name '{name}': expected expression")))
            }
            Some(Symbol::Function { .. }) => Err(self.error(
                span,
                format!("function '{name}' used as a value (function pointers are not supported)"),
            )),
            None if super::builtins::is_builtin_name(name) => {
                Err(self.error(span, format!("built-in function '{name}' must be called")))
            }
            None => Err(self.error(span, format!("use of undeclared identifier '{name}'"))),
        }
    }

    /// The type an expression would have, without keeping its IR (`sizeof`, `vec_step`).
    pub(super) fn type_without_evaluating(&mut self, e: &ast::Expr) -> SResult<Handle<ir::Type>> {
        let scratch = super::empty_function("", Span::UNDEFINED);
        let saved = std::mem::replace(&mut self.func, scratch);
        // Calls in an unevaluated operand are not edges of the call graph.
        let caller = self.body.as_ref().map(|b| b.function_index);
        let calls_before = caller.and_then(|c| self.functions.get(c)).map_or(0, |f| f.calls.len());
        let result = self.expression(e).map(|o| o.ty);
        if let Some(f) = caller.and_then(|c| self.functions.get_mut(c)) {
            f.calls.truncate(calls_before);
        }
        self.func = saved;
        result
    }

    fn sizeof_type(&mut self, ty: Handle<ir::Type>, span: Span) -> SResult<Operand> {
        if matches!(self.inner(ty), TypeInner::Void) {
            return Err(
                self.error(span, "invalid application of 'sizeof' to an incomplete type 'void'")
            );
        }
        let size = self.module.size_of(ty);
        Ok(self.literal(Literal::int(Scalar::ULong, i128::from(size)), span))
    }

    fn vec_step(&mut self, ty: Handle<ir::Type>, span: Span) -> SResult<Operand> {
        let steps = match *self.inner(ty) {
            TypeInner::Vector { size, .. } => size.storage_width(),
            TypeInner::Scalar(_) => 1,
            _ => {
                let shown = self.type_name(ty);
                return Err(
                    self.error(span, format!("invalid argument type '{shown}' to vec_step"))
                );
            }
        };
        Ok(self.literal(Literal::int(Scalar::Int, i128::from(steps)), span))
    }

    // ----- operators --------------------------------------------------------------------

    fn unary(&mut self, op: ast::UnaryOp, operand: &ast::Expr, span: Span) -> SResult<Operand> {
        match op {
            ast::UnaryOp::Plus | ast::UnaryOp::Neg | ast::UnaryOp::BitNot => {
                let value = self.value(operand)?;
                let Some(shape) = self.shape(value.ty) else {
                    let shown = self.type_name(value.ty);
                    return Err(self.error(
                        span,
                        format!("invalid argument type '{shown}' to unary expression"),
                    ));
                };
                if op == ast::UnaryOp::BitNot
                    && !shape.scalar.is_integer()
                    && shape.scalar != Scalar::Bool
                {
                    let shown = self.type_name(value.ty);
                    return Err(self.error(
                        span,
                        format!("invalid argument type '{shown}' to unary expression"),
                    ));
                }
                let value = self.promoted(value);
                if op == ast::UnaryOp::Plus {
                    return Ok(Operand { span, ..value });
                }
                let ir_op = if op == ast::UnaryOp::Neg { UnaryOp::Negate } else { UnaryOp::BitNot };
                Ok(self.value_operand(
                    Expression::Unary { op: ir_op, operand: value.expr },
                    value.ty,
                    span,
                ))
            }
            ast::UnaryOp::LogicalNot => {
                let value = self.value(operand)?;
                if let Some(shape @ super::conversions::Shape { size: Some(size), .. }) =
                    self.shape(value.ty)
                {
                    let result =
                        self.vector_type(Scalar::signed_of_size(shape.scalar.size()), size);
                    return Ok(self.value_operand(
                        Expression::Unary { op: UnaryOp::LogicalNot, operand: value.expr },
                        result,
                        span,
                    ));
                }
                let test = self.condition(value)?;
                let int = self.scalar_type(Scalar::Int);
                Ok(self.value_operand(
                    Expression::Unary { op: UnaryOp::LogicalNot, operand: test.expr },
                    int,
                    span,
                ))
            }
            ast::UnaryOp::Deref => {
                let pointer = self.value(operand)?;
                let TypeInner::Pointer { pointee, space, is_const, .. } = *self.inner(pointer.ty)
                else {
                    let shown = self.type_name(pointer.ty);
                    return Err(self.error(
                        span,
                        format!("indirection requires pointer operand ('{shown}' invalid)"),
                    ));
                };
                if matches!(self.inner(pointee), TypeInner::Void) {
                    return Err(
                        self.error(span, "indirection of a 'void *' pointer is not allowed")
                    );
                }
                let expr = self.add(Expression::Deref(pointer.expr), pointee, span);
                Ok(Operand {
                    expr,
                    ty: pointee,
                    place: Some(PlaceInfo { space, is_const, assignable: true }),
                    span,
                })
            }
            ast::UnaryOp::AddrOf => {
                let target = self.expression(operand)?;
                let Some(place) = target.place else {
                    return Err(self.error(span, "cannot take the address of an rvalue"));
                };
                if matches!(
                    self.func.expressions.get(target.expr),
                    Some(Expression::Swizzle { .. })
                ) {
                    return Err(self.error(span, "address of vector element requested"));
                }
                let ty = self.module.ty(TypeInner::Pointer {
                    pointee: target.ty,
                    space: place.space,
                    is_const: place.is_const,
                    is_volatile: false,
                    is_restrict: false,
                });
                Ok(self.value_operand(Expression::AddressOf(target.expr), ty, span))
            }
            ast::UnaryOp::PreInc
            | ast::UnaryOp::PreDec
            | ast::UnaryOp::PostInc
            | ast::UnaryOp::PostDec => {
                let target = self.expression(operand)?;
                self.check_assignable(target, span)?;
                let ok = match self.inner(target.ty) {
                    TypeInner::Scalar(s) => *s != Scalar::Bool,
                    // clang increments integer vectors only.
                    TypeInner::Vector { scalar, .. } => scalar.is_integer(),
                    TypeInner::Pointer { .. } => true,
                    _ => false,
                };
                if !ok {
                    let shown = self.type_name(target.ty);
                    return Err(self.error(
                        span,
                        format!("cannot increment or decrement value of type '{shown}'"),
                    ));
                }
                let increment = matches!(op, ast::UnaryOp::PreInc | ast::UnaryOp::PostInc);
                let prefix = matches!(op, ast::UnaryOp::PreInc | ast::UnaryOp::PreDec);
                Ok(self.value_operand(
                    Expression::IncDec { place: target.expr, increment, prefix },
                    target.ty,
                    span,
                ))
            }
        }
    }

    /// Checks that an operand designates a modifiable object.
    pub(super) fn check_assignable(&mut self, target: Operand, span: Span) -> SResult<()> {
        let Some(place) = target.place else {
            return Err(self.error(target.span, "expression is not assignable"));
        };
        if matches!(self.inner(target.ty), TypeInner::Array { .. }) {
            let shown = self.type_name(target.ty);
            return Err(self.error(target.span, format!("array type '{shown}' is not assignable")));
        }
        if place.is_const {
            return Err(self.error(
                target.span,
                "cannot assign to a const-qualified object (read-only variable is not assignable)",
            ));
        }
        if !place.assignable {
            return Err(
                self.error(span, "vector is not assignable (contains duplicate components, or the undefined lane of a 3-component vector)")
            );
        }
        if place.space == AddressSpace::Constant {
            return Err(self
                .error(target.span, "cannot assign to an object in the __constant address space"));
        }
        Ok(())
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        lhs: Operand,
        rhs: Operand,
        span: Span,
    ) -> SResult<Operand> {
        let lhs_pointer = self.inner(lhs.ty).is_pointer();
        let rhs_pointer = self.inner(rhs.ty).is_pointer();
        if lhs_pointer || rhs_pointer {
            return self.pointer_binary(op, lhs, rhs, span);
        }
        match op {
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr => {
                let (ls, rs) = (self.shape(lhs.ty), self.shape(rhs.ty));
                if ls.is_some_and(|s| s.size.is_none()) && rs.is_some_and(|s| s.size.is_none()) {
                    let l = self.condition(lhs)?;
                    let r = self.condition(rhs)?;
                    let int = self.scalar_type(Scalar::Int);
                    return Ok(self.value_operand(
                        Expression::Binary { op, lhs: l.expr, rhs: r.expr },
                        int,
                        span,
                    ));
                }
                self.comparison(op, lhs, rhs, span)
            }
            BinaryOp::Lt
            | BinaryOp::Gt
            | BinaryOp::Le
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne => self.comparison(op, lhs, rhs, span),
            BinaryOp::Shl | BinaryOp::Shr => {
                let (Some(ls), Some(rs)) = (self.shape(lhs.ty), self.shape(rhs.ty)) else {
                    return Err(self.invalid_operands(lhs, rhs, span));
                };
                if !ls.scalar.is_integer() && ls.scalar != Scalar::Bool
                    || !rs.scalar.is_integer() && rs.scalar != Scalar::Bool
                {
                    return Err(self.invalid_operands(lhs, rhs, span));
                }
                if ls.size.is_none() && rs.size.is_some() {
                    return Err(self.invalid_operands(lhs, rhs, span));
                }
                if ls.size.is_some() && rs.size.is_some() && ls.size != rs.size {
                    return Err(self.invalid_operands(lhs, rhs, span));
                }
                let l = self.promoted(lhs);
                // The right operand takes the left operand's type (see the IR invariants).
                let r = self.implicit(rhs, l.ty);
                Ok(self.value_operand(
                    Expression::Binary { op, lhs: l.expr, rhs: r.expr },
                    l.ty,
                    span,
                ))
            }
            _ => {
                let common = self.arithmetic_common_type(lhs, rhs, span)?;
                let integer_only = matches!(
                    op,
                    BinaryOp::Rem | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor
                );
                if integer_only && self.shape(common).is_some_and(|s| s.scalar.is_float()) {
                    return Err(self.invalid_operands(lhs, rhs, span));
                }
                let l = self.implicit(lhs, common);
                let r = self.implicit(rhs, common);
                Ok(self.value_operand(
                    Expression::Binary { op, lhs: l.expr, rhs: r.expr },
                    common,
                    span,
                ))
            }
        }
    }

    fn comparison(
        &mut self,
        op: BinaryOp,
        lhs: Operand,
        rhs: Operand,
        span: Span,
    ) -> SResult<Operand> {
        let common = self.arithmetic_common_type(lhs, rhs, span)?;
        let l = self.implicit(lhs, common);
        let r = self.implicit(rhs, common);
        let result = match self.shape(common) {
            Some(super::conversions::Shape { scalar, size: Some(size) }) => {
                self.vector_type(Scalar::signed_of_size(scalar.size()), size)
            }
            _ => self.scalar_type(Scalar::Int),
        };
        Ok(self.value_operand(Expression::Binary { op, lhs: l.expr, rhs: r.expr }, result, span))
    }

    fn pointer_binary(
        &mut self,
        op: BinaryOp,
        lhs: Operand,
        rhs: Operand,
        span: Span,
    ) -> SResult<Operand> {
        let is_integer = |c: &Self, o: &Operand| {
            c.shape(o.ty).is_some_and(|s| s.size.is_none() && s.scalar.is_integer())
        };
        let lhs_pointer = self.inner(lhs.ty).is_pointer();
        let rhs_pointer = self.inner(rhs.ty).is_pointer();
        match op {
            BinaryOp::Add | BinaryOp::Sub if lhs_pointer && is_integer(self, &rhs) => {
                self.check_pointer_arithmetic(lhs, span)?;
                Ok(self.value_operand(
                    Expression::PointerOffset {
                        pointer: lhs.expr,
                        offset: rhs.expr,
                        subtract: op == BinaryOp::Sub,
                    },
                    lhs.ty,
                    span,
                ))
            }
            BinaryOp::Add if rhs_pointer && is_integer(self, &lhs) => {
                self.check_pointer_arithmetic(rhs, span)?;
                Ok(self.value_operand(
                    Expression::PointerOffset {
                        pointer: rhs.expr,
                        offset: lhs.expr,
                        subtract: false,
                    },
                    rhs.ty,
                    span,
                ))
            }
            BinaryOp::Sub if lhs_pointer && rhs_pointer => {
                if self.pointee_and_space(lhs.ty) != self.pointee_and_space(rhs.ty) {
                    return Err(self.invalid_operands(lhs, rhs, span));
                }
                self.check_pointer_arithmetic(lhs, span)?;
                let long = self.scalar_type(Scalar::Long);
                Ok(self.value_operand(
                    Expression::PointerDifference { lhs: lhs.expr, rhs: rhs.expr },
                    long,
                    span,
                ))
            }
            BinaryOp::Lt
            | BinaryOp::Gt
            | BinaryOp::Le
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne => {
                let (l, r) = match (lhs_pointer, rhs_pointer) {
                    (true, true) if self.is_null_constant(rhs.expr) => {
                        let r = self.implicit(rhs, lhs.ty);
                        (lhs, r)
                    }
                    (true, true) if self.is_null_constant(lhs.expr) => {
                        let l = self.implicit(lhs, rhs.ty);
                        (l, rhs)
                    }
                    (true, true) => {
                        if self.pointee_and_space(lhs.ty).map(|p| p.1)
                            != self.pointee_and_space(rhs.ty).map(|p| p.1)
                        {
                            let (a, b) = (self.type_name(lhs.ty), self.type_name(rhs.ty));
                            return Err(self.error(span, format!("comparison between pointers in different address spaces ('{a}' and '{b}')")));
                        }
                        let r = if lhs.ty != rhs.ty { self.implicit(rhs, lhs.ty) } else { rhs };
                        (lhs, r)
                    }
                    (true, false) if self.is_zero_literal(rhs.expr) => {
                        let r = self.implicit(rhs, lhs.ty);
                        (lhs, r)
                    }
                    (false, true) if self.is_zero_literal(lhs.expr) => {
                        let l = self.implicit(lhs, rhs.ty);
                        (l, rhs)
                    }
                    _ => return Err(self.invalid_operands(lhs, rhs, span)),
                };
                let int = self.scalar_type(Scalar::Int);
                Ok(self.value_operand(
                    Expression::PointerCompare { op, lhs: l.expr, rhs: r.expr },
                    int,
                    span,
                ))
            }
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr => {
                let l = self.condition(lhs)?;
                let r = self.condition(rhs)?;
                let int = self.scalar_type(Scalar::Int);
                Ok(self.value_operand(
                    Expression::Binary { op, lhs: l.expr, rhs: r.expr },
                    int,
                    span,
                ))
            }
            _ => Err(self.invalid_operands(lhs, rhs, span)),
        }
    }

    fn pointee_and_space(&self, ty: Handle<ir::Type>) -> Option<(Handle<ir::Type>, AddressSpace)> {
        match *self.inner(ty) {
            TypeInner::Pointer { pointee, space, .. } => Some((pointee, space)),
            _ => None,
        }
    }

    fn check_pointer_arithmetic(&mut self, pointer: Operand, span: Span) -> SResult<()> {
        if let Some((pointee, _)) = self.pointee_and_space(pointer.ty) {
            if matches!(self.inner(pointee), TypeInner::Void) {
                return Err(self.error(span, "arithmetic on a pointer to void"));
            }
        }
        Ok(())
    }

    fn assignment(
        &mut self,
        op: Option<BinaryOp>,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> SResult<Operand> {
        let target = self.expression(lhs)?;
        let value = self.value(rhs);
        self.check_assignable(target, span)?;
        let value = value?;
        let Some(op) = op else {
            let converted = self.assign_convert(value, target.ty, AssignContext::Assign)?;
            return Ok(self.value_operand(
                Expression::Assign { place: target.expr, value: converted.expr },
                target.ty,
                span,
            ));
        };
        if self.inner(target.ty).is_pointer() {
            let integer =
                self.shape(value.ty).is_some_and(|s| s.size.is_none() && s.scalar.is_integer());
            if !matches!(op, BinaryOp::Add | BinaryOp::Sub) || !integer {
                return Err(self.invalid_operands(target, value, span));
            }
            return Ok(self.value_operand(
                Expression::CompoundAssign {
                    op,
                    place: target.expr,
                    value: value.expr,
                    compute_type: target.ty,
                },
                target.ty,
                span,
            ));
        }
        let (Some(ts), Some(vs)) = (self.shape(target.ty), self.shape(value.ty)) else {
            return Err(self.invalid_operands(target, value, span));
        };
        if ts.size.is_none() && vs.size.is_some() {
            let (t, v) = (self.type_name(target.ty), self.type_name(value.ty));
            return Err(
                self.error(span, format!("assigning to '{t}' from incompatible type '{v}'"))
            );
        }
        let compute_type = match op {
            BinaryOp::Shl | BinaryOp::Shr => {
                if !ts.scalar.is_integer() || !vs.scalar.is_integer() {
                    return Err(self.invalid_operands(target, value, span));
                }
                match ts.size {
                    Some(_) => target.ty,
                    None => self.scalar_type(super::conversions::promote(ts.scalar)),
                }
            }
            _ => {
                let common = match (ts.size, vs.size) {
                    (None, None) => self.scalar_type(common_scalar(ts.scalar, vs.scalar)),
                    _ => self.arithmetic_common_type(target, value, span)?,
                };
                let integer_only = matches!(
                    op,
                    BinaryOp::Rem | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor
                );
                if integer_only && self.shape(common).is_some_and(|s| s.scalar.is_float()) {
                    return Err(self.invalid_operands(target, value, span));
                }
                common
            }
        };
        let value = self.implicit(value, compute_type);
        Ok(self.value_operand(
            Expression::CompoundAssign { op, place: target.expr, value: value.expr, compute_type },
            target.ty,
            span,
        ))
    }

    fn conditional(
        &mut self,
        cond: &ast::Expr,
        then: &ast::Expr,
        otherwise: &ast::Expr,
        span: Span,
    ) -> SResult<Operand> {
        let condition = self.value(cond)?;
        let accept = self.value(then);
        let reject = self.value(otherwise);
        let (accept, reject) = (accept?, reject?);
        if let Some(super::conversions::Shape { scalar, size: Some(size) }) =
            self.shape(condition.ty)
        {
            if !scalar.is_integer() {
                let shown = self.type_name(condition.ty);
                return Err(self.error(
                    condition.span,
                    format!("vector condition type '{shown}' must be an integer vector"),
                ));
            }
            let common = self.arithmetic_common_type(accept, reject, span)?;
            let common = match self.shape(common) {
                Some(shape) if shape.size.is_none() => self.shape_type(super::conversions::Shape {
                    scalar: shape.scalar,
                    size: Some(size),
                }),
                Some(shape) if shape.size == Some(size) => common,
                _ => {
                    let (c, t) = (self.type_name(condition.ty), self.type_name(common));
                    return Err(self.error(span, format!("vector condition type '{c}' and result type '{t}' do not have the same number of elements")));
                }
            };
            let a = self.implicit(accept, common);
            let r = self.implicit(reject, common);
            return Ok(self.value_operand(
                Expression::Conditional {
                    condition: condition.expr,
                    accept: a.expr,
                    reject: r.expr,
                },
                common,
                span,
            ));
        }
        if self.shape(condition.ty).is_some_and(|s| s.scalar.is_float()) {
            // OpenCL C 1.2 §6.3.i: the condition of `?:` is an integer.
            let shown = self.type_name(condition.ty);
            return Err(self.error(
                condition.span,
                format!("used type '{shown}' where floating point type is not allowed"),
            ));
        }
        let test = self.condition(condition)?;
        let result = if accept.ty == reject.ty {
            accept.ty
        } else if self.shape(accept.ty).is_some() && self.shape(reject.ty).is_some() {
            self.arithmetic_common_type(accept, reject, span)?
        } else if self.inner(accept.ty).is_pointer() && self.is_zero_literal(reject.expr) {
            accept.ty
        } else if self.inner(reject.ty).is_pointer() && self.is_zero_literal(accept.expr) {
            reject.ty
        } else {
            let (a, r) = (self.type_name(accept.ty), self.type_name(reject.ty));
            return Err(self.error(span, format!("incompatible operand types ('{a}' and '{r}')")));
        };
        let a = self.implicit(accept, result);
        let r = self.implicit(reject, result);
        Ok(self.value_operand(
            Expression::Conditional { condition: test.expr, accept: a.expr, reject: r.expr },
            result,
            span,
        ))
    }

    // ----- postfix ----------------------------------------------------------------------

    fn index(&mut self, base: &ast::Expr, index: &ast::Expr, span: Span) -> SResult<Operand> {
        let base = self.expression(base)?;
        let index = self.value(index)?;
        if !self.shape(index.ty).is_some_and(|s| {
            s.size.is_none() && (s.scalar.is_integer() || s.scalar == Scalar::Bool)
        }) {
            return Err(self.error(index.span, "array subscript is not an integer"));
        }
        let index = self.promoted(index);
        if let (Some(place), TypeInner::Array { element, .. }) =
            (base.place, self.inner(base.ty).clone())
        {
            let expr =
                self.add(Expression::Index { base: base.expr, index: index.expr }, element, span);
            return Ok(Operand { expr, ty: element, place: Some(place), span });
        }
        if base.place.is_none() && matches!(self.inner(base.ty), TypeInner::Array { .. }) {
            return Err(self.error_with_help(
                base.span,
                "indexing an array inside a temporary value is not supported",
                "store the value in a variable first",
            ));
        }
        let pointer = self.rvalue(base);
        match *self.inner(pointer.ty) {
            TypeInner::Pointer { pointee, space, is_const, .. } => {
                if matches!(self.inner(pointee), TypeInner::Void) {
                    return Err(self.error(span, "subscript of pointer to void"));
                }
                let expr = self.add(
                    Expression::Index { base: pointer.expr, index: index.expr },
                    pointee,
                    span,
                );
                Ok(Operand {
                    expr,
                    ty: pointee,
                    place: Some(PlaceInfo { space, is_const, assignable: true }),
                    span,
                })
            }
            _ => Err(self.error(pointer.span, "subscripted value is not an array or pointer")),
        }
    }

    fn member(
        &mut self,
        base: &ast::Expr,
        field: &ast::Ident,
        arrow: bool,
        span: Span,
    ) -> SResult<Operand> {
        let mut base = self.expression(base)?;
        if arrow {
            let pointer = self.rvalue(base);
            let TypeInner::Pointer { pointee, space, is_const, .. } = *self.inner(pointer.ty)
            else {
                let shown = self.type_name(pointer.ty);
                return Err(self.error(
                    pointer.span,
                    format!("member reference type '{shown}' is not a pointer"),
                ));
            };
            let expr = self.add(Expression::Deref(pointer.expr), pointee, pointer.span);
            base = Operand {
                expr,
                ty: pointee,
                place: Some(PlaceInfo { space, is_const, assignable: true }),
                span: pointer.span,
            };
        }
        match self.inner(base.ty).clone() {
            TypeInner::Struct { members, .. } => {
                let Some((index, member)) =
                    members.iter().enumerate().find(|(_, m)| m.name == field.name)
                else {
                    let shown = self.type_name(base.ty);
                    return Err(self.error(
                        field.span,
                        format!("no member named '{}' in '{shown}'", field.name),
                    ));
                };
                let expr = self.add(
                    Expression::Member { base: base.expr, member: index as u32 },
                    member.ty,
                    span,
                );
                Ok(Operand { expr, ty: member.ty, place: base.place, span })
            }
            TypeInner::Vector { scalar, size } if !arrow => {
                let components = super::swizzle::parse(&field.name, size).map_err(|message| {
                    let shown = self.type_name(base.ty);
                    self.error(field.span, message.replace("{type}", &shown))
                })?;
                let repeated =
                    (1..components.len()).any(|i| components[..i].contains(&components[i]));
                let ty = match ir::VectorSize::from_width(components.len() as u32) {
                    Some(width) if components.len() > 1 => self.vector_type(scalar, width),
                    _ => self.scalar_type(scalar),
                };
                let base_expr = match base.place {
                    Some(_) => base.expr,
                    None => base.expr,
                };
                let expr = self.add(Expression::Swizzle { base: base_expr, components }, ty, span);
                let place =
                    base.place.map(|p| PlaceInfo { assignable: p.assignable && !repeated, ..p });
                Ok(Operand { expr, ty, place, span })
            }
            _ => {
                let shown = self.type_name(base.ty);
                Err(self.error(
                    span,
                    format!("member reference base type '{shown}' is not a structure or union"),
                ))
            }
        }
    }

    fn cast(&mut self, name: &ast::TypeName, operand: &ast::Expr, span: Span) -> SResult<Operand> {
        let target = self.type_name_type(name)?.ty;
        let value = self.value(operand)?;
        if matches!(self.inner(target), TypeInner::Void) {
            // `(void)e` evaluates `e` for its effects only.
            return Ok(Operand { span, ..value });
        }
        let target_inner = self.inner(target).clone();
        let source_inner = self.inner(value.ty).clone();
        let legal = match (&target_inner, &source_inner) {
            (TypeInner::Scalar(_), TypeInner::Scalar(_)) => true,
            (TypeInner::Vector { .. }, TypeInner::Scalar(_)) => true,
            (TypeInner::Vector { .. }, TypeInner::Vector { .. }) => {
                if target == value.ty {
                    return Ok(Operand { span, ..value });
                }
                let (t, s) = (self.type_name(target), self.type_name(value.ty));
                return Err(self.error_with_help(
                    span,
                    format!("invalid conversion between vector types '{s}' and '{t}'"),
                    format!("use convert_{t}() for a value conversion or as_{t}() to reinterpret the bits"),
                ));
            }
            (TypeInner::Pointer { .. }, TypeInner::Pointer { .. }) => true,
            (TypeInner::Pointer { .. }, TypeInner::Scalar(s))
            | (TypeInner::Scalar(s), TypeInner::Pointer { .. }) => s.is_integer(),
            _ => target == value.ty,
        };
        if !legal {
            let (t, s) = (self.type_name(target), self.type_name(value.ty));
            return Err(self.error(span, format!("cannot cast from '{s}' to '{t}'")));
        }
        let converted = self.convert_unchecked(value, target, ConversionKind::Cast);
        Ok(Operand { span, ..converted })
    }

    fn vector_literal(
        &mut self,
        name: &ast::TypeName,
        elems: &[ast::Expr],
        span: Span,
    ) -> SResult<Operand> {
        let target = self.type_name_type(name)?.ty;
        let TypeInner::Vector { scalar, size } = *self.inner(target) else {
            let shown = self.type_name(target);
            return Err(self.error(span, format!("'{shown}' is not a vector type")));
        };
        let mut values = Vec::new();
        let mut failed = false;
        for elem in elems {
            match self.value(elem) {
                Ok(v) => values.push(v),
                Err(Reported) => failed = true,
            }
        }
        if failed {
            return Err(Reported);
        }
        if let [single] = values.as_slice() {
            if self.shape(single.ty).is_some_and(|s| s.size.is_none()) {
                let splat = self.convert_unchecked(*single, target, ConversionKind::Cast);
                return Ok(Operand { span, ..splat });
            }
        }
        let element_ty = self.scalar_type(scalar);
        let mut components = Vec::new();
        let mut width = 0u32;
        for value in values {
            match self.inner(value.ty).clone() {
                TypeInner::Scalar(_) => {
                    width += 1;
                    components.push(self.implicit(value, element_ty).expr);
                }
                TypeInner::Vector { scalar: s, size: n } if s == scalar => {
                    width += n.width();
                    components.push(value.expr);
                }
                _ => {
                    let (v, t) = (self.type_name(value.ty), self.type_name(target));
                    return Err(self.error(
                        value.span,
                        format!(
                            "cannot use a value of type '{v}' in a vector literal of type '{t}'"
                        ),
                    ));
                }
            }
        }
        if width != size.width() {
            let shown = self.type_name(target);
            let relation = if width < size.width() { "too few" } else { "too many" };
            return Err(self.error(span, format!("{relation} elements in vector initialization (expected {} elements, have {width}) for '{shown}'", size.width())));
        }
        Ok(self.value_operand(Expression::Compose(components), target, span))
    }

    // ----- calls ------------------------------------------------------------------------

    fn call(&mut self, callee: &ast::Expr, args: &[ast::Expr], span: Span) -> SResult<Operand> {
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

    fn user_call(
        &mut self,
        index: usize,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> SResult<Operand> {
        let Some(entry) = self.functions.get(index).cloned() else {
            return Err(self.error(span, "internal error: unknown function"));
        };
        if entry.is_kernel && self.body.is_some() {
            // Kernels may call kernels; the callee behaves as an ordinary function.
        }
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
        for (arg, &param) in args.iter().zip(&entry.params) {
            match self
                .value(arg)
                .and_then(|v| self.assign_convert(v, param, AssignContext::Argument))
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
