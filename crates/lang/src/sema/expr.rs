//! Expressions: names, literals, `sizeof`/`vec_step`, indexing, member access and swizzles,
//! casts and vector literals (operators and calls have modules of their own).

use super::conversions::{Operand, PlaceInfo};
use super::scope::Symbol;
use super::{Checker, Reported, SResult, MAX_DEPTH};
use crate::ast;
use crate::ir::{
    self, ConversionKind, Expression, Handle, Literal, Scalar, TypeInner, VariableRef,
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
            ast::ExprKind::Str(text) => Ok(self.string_literal_object(text, span)),
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
            ast::ExprKind::CompoundLiteral { ty, init } => self.compound_literal(ty, init, span),
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
            None => Err(self.error(span, format!("{}'{name}'", super::UNDECLARED_IDENTIFIER))),
        }
    }

    /// The type an expression would have, without keeping its IR (`sizeof`, `vec_step`).
    pub(super) fn type_without_evaluating(&mut self, e: &ast::Expr) -> SResult<Handle<ir::Type>> {
        let scratch = super::empty_function("", Span::UNDEFINED);
        let saved = std::mem::replace(&mut self.func, scratch);
        // Calls in an unevaluated operand are not edges of the call graph.
        let caller = self.body.as_ref().map(|b| b.function_index);
        let calls_before = caller.and_then(|c| self.functions.get(c)).map_or(0, |f| f.calls.len());
        let was_unevaluated = std::mem::replace(&mut self.unevaluated, true);
        let result = self.expression(e).map(|o| o.ty);
        self.unevaluated = was_unevaluated;
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
        self.require_complete(ty, span, "invalid application of 'sizeof' to an incomplete type")?;
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
                self.require_complete(pointee, span, "subscript of pointer to incomplete type")?;
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
            self.require_complete(pointee, pointer.span, "incomplete definition of type")?;
            let expr = self.add(Expression::Deref(pointer.expr), pointee, pointer.span);
            base = Operand {
                expr,
                ty: pointee,
                place: Some(PlaceInfo { space, is_const, assignable: true }),
                span: pointer.span,
            };
        }
        match self.inner(base.ty).clone() {
            TypeInner::Struct { .. } => {
                let Some(path) = self.member_path(base.ty, &field.name) else {
                    let shown = self.type_name(base.ty);
                    return Err(self.error(
                        field.span,
                        format!("no member named '{}' in '{shown}'", field.name),
                    ));
                };
                // Through any anonymous members on the way, one access per level.
                let mut expr = base.expr;
                let mut ty = base.ty;
                for (index, member_ty) in path {
                    expr =
                        self.add(Expression::Member { base: expr, member: index }, member_ty, span);
                    ty = member_ty;
                }
                Ok(Operand { expr, ty, place: base.place, span })
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
                // A swizzle of a place is a place (and stays one: no Load here).
                let expr = self.add(Expression::Swizzle { base: base.expr, components }, ty, span);
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

    /// The member indices (and types) that lead from a record of type `record` to its member
    /// `name`: one step for a direct member, more through anonymous structs and unions.
    fn member_path(
        &self,
        record: Handle<ir::Type>,
        name: &str,
    ) -> Option<Vec<(u32, Handle<ir::Type>)>> {
        let TypeInner::Struct { members, .. } = self.inner(record) else { return None };
        if let Some(index) = members.iter().position(|m| m.name == name) {
            return Some(vec![(index as u32, members[index].ty)]);
        }
        members.iter().enumerate().filter(|(_, m)| m.is_anonymous()).find_map(|(index, m)| {
            let mut rest = self.member_path(m.ty, name)?;
            rest.insert(0, (index as u32, m.ty));
            Some(rest)
        })
    }

    /// `(T){ … }`: the value its initialiser list builds. Kernels use them for struct values
    /// (`return (Vec){ x, y };`, `v = (Pair){ .a = 1 };`); the object itself is never named,
    /// so the value is all there is to it. An array literal is an object whose address is
    /// taken where it decays, which a value cannot give: those are refused.
    fn compound_literal(
        &mut self,
        name: &ast::TypeName,
        init: &ast::Initializer,
        span: Span,
    ) -> SResult<Operand> {
        let ty = self.type_name_type(name)?.ty;
        match self.inner(ty) {
            TypeInner::Array { .. } => {
                return Err(self.error(
                    span,
                    "compound literals of array type are not supported; declare the array",
                ))
            }
            TypeInner::Void | TypeInner::Image(_) | TypeInner::Sampler | TypeInner::Event => {
                let shown = self.type_name(ty);
                return Err(
                    self.error(span, format!("a compound literal cannot have type '{shown}'"))
                );
            }
            _ => {}
        }
        self.require_complete(ty, span, "compound literal has incomplete type")?;
        let expr = self.initializer(init, ty)?;
        Ok(Operand { expr, ty, place: None, span })
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
}
