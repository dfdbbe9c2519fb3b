//! Initialisers: expressions, brace lists with designators and brace elision, string
//! literals for `char` arrays, and union initialisers.

use super::conversions::AssignContext;
use super::{Checker, Reported, SResult};
use crate::ast;
use crate::ir::{self, Expression, Handle, Scalar, TypeInner};
use crate::span::Span;

/// The longest array a brace initializer may fill (each element is an IR expression).
const MAX_LIST_ELEMENTS: u32 = 1 << 16;

impl Checker {
    /// Lowers an initializer for an object of type `ty` into the current function.
    pub(super) fn initializer(
        &mut self,
        init: &ast::Initializer,
        ty: Handle<ir::Type>,
    ) -> SResult<Handle<Expression>> {
        match init {
            ast::Initializer::Expr(e) => {
                if let (Some(text), TypeInner::Array { element, len }) =
                    (string_literal(e), self.inner(ty).clone())
                {
                    return self.string_initializer(text, element, len, ty, e.span);
                }
                if matches!(self.inner(ty), TypeInner::Array { .. }) {
                    return Err(self.error(e.span, "array initializer must be an initializer list"));
                }
                let value = self.value(e)?;
                Ok(self.assign_convert(value, ty, AssignContext::Initialize)?.expr)
            }
            ast::Initializer::List { items, span } => self.initializer_list(items, ty, *span),
        }
    }

    fn initializer_list(
        &mut self,
        items: &[(Vec<ast::Designator>, ast::Initializer)],
        ty: Handle<ir::Type>,
        span: Span,
    ) -> SResult<Handle<Expression>> {
        let inner = self.inner(ty).clone();
        if matches!(inner, TypeInner::Scalar(_) | TypeInner::Pointer { .. }) {
            return match items {
                [(designators, item)] if designators.is_empty() => self.initializer(item, ty),
                _ => Err(self.error(span, "excess elements in scalar initializer")),
            };
        }
        let mut position = 0;
        let result = self.aggregate_items(items, &mut position, ty, span, true)?;
        Ok(result)
    }

    /// Initialises an aggregate (array, struct or vector) from `items`, starting at
    /// `*position`. A braced list consumes all its items; an aggregate whose braces were
    /// elided (C99 §6.7.8p20: `int a[2][2] = { 1, 2, 3, 4 }`) takes only what it has room for
    /// and stops at a designator, which belongs to the enclosing list.
    fn aggregate_items(
        &mut self,
        items: &[(Vec<ast::Designator>, ast::Initializer)],
        position: &mut usize,
        ty: Handle<ir::Type>,
        span: Span,
        braced: bool,
    ) -> SResult<Handle<Expression>> {
        if self.depth >= super::MAX_DEPTH {
            return Err(self.error(span, "initializer is nested too deeply"));
        }
        self.depth += 1;
        let result = self.aggregate_items_inner(items, position, ty, span, braced);
        self.depth -= 1;
        result
    }

    fn aggregate_items_inner(
        &mut self,
        items: &[(Vec<ast::Designator>, ast::Initializer)],
        position: &mut usize,
        ty: Handle<ir::Type>,
        span: Span,
        braced: bool,
    ) -> SResult<Handle<Expression>> {
        let inner = self.inner(ty).clone();
        if let TypeInner::Array { len, .. } = inner {
            // Every element becomes an expression; a huge list would exhaust memory.
            if len > MAX_LIST_ELEMENTS {
                return Err(self.error(
                    span,
                    format!("brace initializers of arrays longer than {MAX_LIST_ELEMENTS} elements are not supported"),
                ));
            }
        }
        let (slot_types, member_names): (Vec<Handle<ir::Type>>, Vec<String>) = match &inner {
            TypeInner::Array { element, len } => (vec![*element; *len as usize], Vec::new()),
            TypeInner::Struct { is_union: true, members, .. } => {
                return self.union_items(items, position, ty, members, span);
            }
            TypeInner::Struct { members, .. } => (
                members.iter().map(|m| m.ty).collect(),
                members.iter().map(|m| m.name.clone()).collect(),
            ),
            TypeInner::Vector { scalar, size } => {
                let element = self.scalar_type(*scalar);
                (vec![element; size.width() as usize], Vec::new())
            }
            _ => {
                let shown = self.type_name(ty);
                return Err(self.error(
                    span,
                    format!("cannot initialize an object of type '{shown}' with a brace list"),
                ));
            }
        };
        let is_struct = matches!(inner, TypeInner::Struct { .. });
        let mut slots: Vec<Option<Handle<Expression>>> = vec![None; slot_types.len()];
        let mut next = 0usize;
        let mut failed = false;
        while let Some((designators, item)) = items.get(*position) {
            if !designators.is_empty() {
                if !braced {
                    break;
                }
                match designators.as_slice() {
                    [ast::Designator::Index(e)] if !is_struct => {
                        let index = self.constant_integer(e, "array designator")?;
                        next = usize::try_from(index).unwrap_or(usize::MAX);
                    }
                    [ast::Designator::Field(field)] if is_struct => {
                        let Some(i) = member_names.iter().position(|m| *m == field.name) else {
                            let shown = self.type_name(ty);
                            return Err(self.error(
                                field.span,
                                format!("field designator '{}' does not refer to any field in type '{shown}'", field.name),
                            ));
                        };
                        next = i;
                    }
                    _ => {
                        return Err(
                            self.error(init_span(item), "this designator is not supported here")
                        )
                    }
                }
            }
            let Some(&slot_type) = slot_types.get(next) else {
                if !braced {
                    break;
                }
                let what = match inner {
                    TypeInner::Struct { .. } => "struct",
                    TypeInner::Vector { .. } => "vector",
                    _ => "array",
                };
                return Err(
                    self.error(init_span(item), format!("excess elements in {what} initializer"))
                );
            };
            let started_at = *position;
            let lowered = match item {
                ast::Initializer::Expr(e) if self.elides_braces(e, slot_type) => {
                    self.aggregate_items(items, position, slot_type, e.span, false)
                }
                _ => {
                    *position += 1;
                    self.initializer(item, slot_type)
                }
            };
            match lowered {
                Ok(e) => {
                    if let Some(slot) = slots.get_mut(next) {
                        *slot = Some(e);
                    }
                }
                Err(Reported) => {
                    failed = true;
                    // Recovery: go on after the culprit (an elided aggregate may have failed
                    // before taking anything).
                    if !braced {
                        break;
                    }
                    if *position == started_at {
                        *position += 1;
                    }
                }
            }
            next += 1;
        }
        if failed {
            return Err(Reported);
        }
        let mut parts = Vec::with_capacity(slots.len());
        for (slot, slot_type) in slots.into_iter().zip(slot_types) {
            parts.push(match slot {
                Some(e) => e,
                None => self.add(Expression::ZeroValue, slot_type, span),
            });
        }
        Ok(self.add(Expression::Compose(parts), ty, span))
    }

    /// A union's brace initialiser: C initialises the first member (the IR composes a union
    /// from that one part); a designator may name it explicitly.
    fn union_items(
        &mut self,
        items: &[(Vec<ast::Designator>, ast::Initializer)],
        position: &mut usize,
        ty: Handle<ir::Type>,
        members: &[ir::StructMember],
        span: Span,
    ) -> SResult<Handle<Expression>> {
        let Some(first) = members.first() else {
            return Err(self.error(span, "empty unions are not allowed"));
        };
        let Some((designators, item)) = items.get(*position) else {
            return Ok(self.add(Expression::ZeroValue, ty, span));
        };
        match designators.as_slice() {
            [] => {}
            [ast::Designator::Field(field)] if field.name == first.name => {}
            _ => {
                return Err(self.error(
                    init_span(item),
                    "initializing a union member other than the first is not supported",
                ))
            }
        }
        *position += 1;
        let part = self.initializer(item, first.ty)?;
        if let Some((_, extra)) = items.get(*position) {
            return Err(self.error(init_span(extra), "excess elements in union initializer"));
        }
        Ok(self.add(Expression::Compose(vec![part]), ty, span))
    }

    /// Whether an expression item for a slot of type `slot` starts an aggregate whose braces
    /// were left out: the slot is an aggregate and the expression is not a whole value of it.
    ///
    /// A vector slot is not entered by a scalar: in OpenCL C a scalar converts to a vector by
    /// replicating it, and that conversion initialises the whole element, so
    /// `long16 a[4] = {1, 2, 3, 4}` is four splatted vectors, as clang (hence PoCL and
    /// Oclgrind) compiles it, not sixteen components of `a[0]`. A vector's own braces still
    /// list its components (`int4 v = {1, 2}`).
    fn elides_braces(&mut self, e: &ast::Expr, slot: Handle<ir::Type>) -> bool {
        match self.inner(slot).clone() {
            TypeInner::Array { .. } => string_literal(e).is_none(),
            TypeInner::Vector { .. } => {
                let before = self.diags.0.len();
                let ty = self.type_without_evaluating(e);
                self.diags.0.truncate(before);
                match ty {
                    Ok(ty) => !matches!(self.inner(ty), TypeInner::Scalar(_)) && ty != slot,
                    Err(_) => false,
                }
            }
            TypeInner::Struct { is_union: false, .. } => {
                // Only the expression's type decides; errors in it are reported when it is
                // checked for real, so diagnostics of this look are dropped.
                let before = self.diags.0.len();
                let ty = self.type_without_evaluating(e);
                self.diags.0.truncate(before);
                match ty {
                    Ok(ty) if self.inner(slot).is_arithmetic() => {
                        matches!(self.inner(ty), TypeInner::Scalar(_))
                    }
                    Ok(ty) => ty != slot,
                    Err(_) => false,
                }
            }
            _ => false,
        }
    }

    /// `char s[] = "text"`: the bytes and a terminating zero (C99 §6.7.8p14).
    fn string_initializer(
        &mut self,
        text: &str,
        element: Handle<ir::Type>,
        len: u32,
        ty: Handle<ir::Type>,
        span: Span,
    ) -> SResult<Handle<Expression>> {
        let Some(scalar @ (Scalar::Char | Scalar::UChar)) = self
            .shape(element)
            .map(|s| s.scalar)
            .filter(|_| !matches!(self.inner(element), TypeInner::Vector { .. }))
        else {
            return Err(
                self.error(span, "only arrays of char can be initialized from a string literal")
            );
        };
        let bytes = text.as_bytes();
        if bytes.len() > len as usize {
            return Err(self.error(span, "initializer-string for char array is too long"));
        }
        let mut parts = Vec::with_capacity(len as usize);
        for i in 0..len as usize {
            let byte = bytes.get(i).copied().unwrap_or(0);
            let value =
                if scalar == Scalar::Char { i128::from(byte as i8) } else { i128::from(byte) };
            parts.push(self.add(
                Expression::Literal(ir::Literal::int(scalar, value)),
                element,
                span,
            ));
        }
        Ok(self.add(Expression::Compose(parts), ty, span))
    }
}

/// The text of a string literal, looking through parentheses.
pub(super) fn string_literal(e: &ast::Expr) -> Option<&str> {
    match &e.kind {
        ast::ExprKind::Str(text) => Some(text),
        ast::ExprKind::Paren(inner) => string_literal(inner),
        _ => None,
    }
}

pub(super) fn init_span(init: &ast::Initializer) -> Span {
    match init {
        ast::Initializer::Expr(e) => e.span,
        ast::Initializer::List { span, .. } => *span,
    }
}
