//! Operators: unary, binary (arithmetic, comparison, logical, shifts, pointer arithmetic),
//! assignment and compound assignment, and the conditional operator.

use super::conversions::{AssignContext, Operand, PlaceInfo};
use super::{Checker, SResult};
use crate::ast;
use crate::ir::{self, AddressSpace, BinaryOp, Expression, Handle, Scalar, TypeInner, UnaryOp};
use crate::proc::usual_arithmetic_conversion;
use crate::span::Span;

impl Checker {
    pub(super) fn unary(
        &mut self,
        op: ast::UnaryOp,
        operand: &ast::Expr,
        span: Span,
    ) -> SResult<Operand> {
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
                let required = "a complete type is required here, not the incomplete type";
                self.require_complete(pointee, span, required)?;
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
                if self.inner(target.ty).is_image_or_sampler() {
                    let shown = self.type_name(target.ty);
                    return Err(self.error(
                        span,
                        format!("cannot take the address of an object of type '{shown}'"),
                    ));
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
                if self.inner(target.ty).is_pointer() {
                    self.check_pointer_arithmetic(target, span)?;
                }
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
        if self.inner(target.ty).is_image_or_sampler() {
            let shown = self.type_name(target.ty);
            return Err(
                self.error(target.span, format!("an object of type '{shown}' cannot be modified"))
            );
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
            op if op.is_comparison() => self.comparison(op, lhs, rhs, span),
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
                if op.is_integer_only() && self.shape(common).is_some_and(|s| s.scalar.is_float()) {
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

    pub(super) fn comparison(
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

    pub(super) fn pointer_binary(
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
            op if op.is_comparison() => {
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

    pub(super) fn pointee_and_space(
        &self,
        ty: Handle<ir::Type>,
    ) -> Option<(Handle<ir::Type>, AddressSpace)> {
        match *self.inner(ty) {
            TypeInner::Pointer { pointee, space, .. } => Some((pointee, space)),
            _ => None,
        }
    }

    pub(super) fn check_pointer_arithmetic(&mut self, pointer: Operand, span: Span) -> SResult<()> {
        if let Some((pointee, _)) = self.pointee_and_space(pointer.ty) {
            if matches!(self.inner(pointee), TypeInner::Void) {
                return Err(self.error(span, "arithmetic on a pointer to void"));
            }
            let what = "arithmetic on a pointer to an incomplete type";
            self.require_complete(pointee, span, what)?;
        }
        Ok(())
    }

    pub(super) fn assignment(
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
                    None => self.scalar_type(crate::proc::promote(ts.scalar)),
                }
            }
            _ => {
                let common = match (ts.size, vs.size) {
                    (None, None) => {
                        self.scalar_type(usual_arithmetic_conversion(ts.scalar, vs.scalar))
                    }
                    _ => self.arithmetic_common_type(target, value, span)?,
                };
                if op.is_integer_only() && self.shape(common).is_some_and(|s| s.scalar.is_float()) {
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

    pub(super) fn conditional(
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
            if self.shape(common).is_some_and(|s| s.scalar.size() != scalar.size()) {
                let (c, t) = (self.type_name(condition.ty), self.type_name(common));
                return Err(self.error(
                    condition.span,
                    format!("vector condition type '{c}' and result type '{t}' do not have elements of the same size"),
                ));
            }
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
        if self.inner(accept.ty).is_image_or_sampler()
            || self.inner(reject.ty).is_image_or_sampler()
        {
            let (a, r) = (self.type_name(accept.ty), self.type_name(reject.ty));
            return Err(self.error(
                span,
                format!("images and samplers cannot be chosen with '?:' ('{a}' and '{r}')"),
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
}
