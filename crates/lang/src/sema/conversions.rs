//! C's and OpenCL C's implicit conversions, made explicit in the IR: integer promotions, the
//! usual arithmetic conversions (with OpenCL's scalar-to-vector widening), conversions as if
//! by assignment, and the `bool` tests of conditions.

use super::{Checker, SResult};
use crate::diag::Diagnostic;
use crate::ir::{
    self, AddressSpace, ConversionKind, Expression, Handle, Scalar, TypeInner, VectorSize,
};
use crate::proc::{promote, usual_arithmetic_conversion};
use crate::span::Span;

/// A checked expression: a place (lvalue) or a value.
#[derive(Clone, Copy, Debug)]
pub(super) struct Operand {
    pub expr: Handle<Expression>,
    pub ty: Handle<ir::Type>,
    pub place: Option<PlaceInfo>,
    pub span: Span,
}

/// What is known about a place: where it lives and whether it may be assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PlaceInfo {
    pub space: AddressSpace,
    pub is_const: bool,
    /// A swizzle with a repeated component (`v.xx`) designates no single set of components.
    pub assignable: bool,
}

/// The shape of an arithmetic type: a scalar, or a vector of a width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    pub scalar: Scalar,
    pub size: Option<VectorSize>,
}

impl Checker {
    pub(super) fn add(
        &mut self,
        expr: Expression,
        ty: Handle<ir::Type>,
        span: Span,
    ) -> Handle<Expression> {
        self.func.add_expression(expr, ty, span)
    }

    pub(super) fn value_operand(
        &mut self,
        expr: Expression,
        ty: Handle<ir::Type>,
        span: Span,
    ) -> Operand {
        let expr = self.add(expr, ty, span);
        Operand { expr, ty, place: None, span }
    }

    pub(super) fn shape(&self, ty: Handle<ir::Type>) -> Option<Shape> {
        match *self.inner(ty) {
            TypeInner::Scalar(scalar) => Some(Shape { scalar, size: None }),
            TypeInner::Vector { scalar, size } => Some(Shape { scalar, size: Some(size) }),
            _ => None,
        }
    }

    pub(super) fn shape_type(&mut self, shape: Shape) -> Handle<ir::Type> {
        match shape.size {
            Some(size) => self.vector_type(shape.scalar, size),
            None => self.scalar_type(shape.scalar),
        }
    }

    /// Turns a place into its value: `Load`, or `Decay` for arrays (C99 §6.3.2.1).
    pub(super) fn rvalue(&mut self, operand: Operand) -> Operand {
        let Some(place) = operand.place else {
            return operand;
        };
        if let TypeInner::Array { element, .. } = *self.inner(operand.ty) {
            let ty = self.module.ty(TypeInner::Pointer {
                pointee: element,
                space: place.space,
                is_const: place.is_const,
                is_volatile: false,
                is_restrict: false,
            });
            return self.value_operand(Expression::Decay(operand.expr), ty, operand.span);
        }
        self.value_operand(Expression::Load(operand.expr), operand.ty, operand.span)
    }

    /// Converts a value to `target` without any check (the caller has decided it is legal).
    pub(super) fn convert_unchecked(
        &mut self,
        operand: Operand,
        target: Handle<ir::Type>,
        kind: ConversionKind,
    ) -> Operand {
        if operand.ty == target {
            return operand;
        }
        let span = operand.span;
        let target_inner = self.inner(target).clone();
        let source_inner = self.inner(operand.ty).clone();
        if let (TypeInner::Vector { scalar, .. }, TypeInner::Scalar(_)) =
            (&target_inner, &source_inner)
        {
            let element = self.scalar_type(*scalar);
            let converted = self.convert_unchecked(operand, element, kind);
            return self.value_operand(Expression::Splat(converted.expr), target, span);
        }
        self.value_operand(Expression::Convert { value: operand.expr, kind }, target, span)
    }

    pub(super) fn implicit(&mut self, operand: Operand, target: Handle<ir::Type>) -> Operand {
        self.convert_unchecked(operand, target, ConversionKind::Implicit)
    }

    /// Integer promotion of a scalar value (vectors are never promoted).
    pub(super) fn promoted(&mut self, operand: Operand) -> Operand {
        match *self.inner(operand.ty) {
            TypeInner::Scalar(s) if promote(s) != s => {
                let ty = self.scalar_type(promote(s));
                self.implicit(operand, ty)
            }
            _ => operand,
        }
    }

    /// The type two arithmetic operands are brought to (usual arithmetic conversions with
    /// OpenCL's vector rules), or an error at `op_span`.
    pub(super) fn arithmetic_common_type(
        &mut self,
        lhs: Operand,
        rhs: Operand,
        op_span: Span,
    ) -> SResult<Handle<ir::Type>> {
        let (Some(a), Some(b)) = (self.shape(lhs.ty), self.shape(rhs.ty)) else {
            return Err(self.invalid_operands(lhs, rhs, op_span));
        };
        match (a.size, b.size) {
            (None, None) => Ok(self.scalar_type(usual_arithmetic_conversion(a.scalar, b.scalar))),
            (Some(_), Some(_)) => {
                if lhs.ty == rhs.ty {
                    Ok(lhs.ty)
                } else if a.size != b.size {
                    let (l, r) = (self.type_name(lhs.ty), self.type_name(rhs.ty));
                    Err(self.error(
                        op_span,
                        format!("cannot convert between vector values of different size ('{l}' and '{r}')"),
                    ))
                } else {
                    let (l, r) = (self.type_name(lhs.ty), self.type_name(rhs.ty));
                    Err(self.vector_mismatch(op_span, &l, &r))
                }
            }
            (Some(_), None) => self.scalar_to_vector(rhs, lhs.ty, a.scalar, b.scalar),
            (None, Some(_)) => self.scalar_to_vector(lhs, rhs.ty, b.scalar, a.scalar),
        }
    }

    fn vector_mismatch(&mut self, span: Span, l: &str, r: &str) -> super::Reported {
        let target = r;
        self.error_with_help(
            span,
            format!("cannot convert between vector types '{l}' and '{r}'"),
            format!("use convert_{target}() to convert one operand explicitly"),
        )
    }

    /// OpenCL C 1.2 §6.2.6: a scalar next to a vector is converted to the element type, but
    /// only when that loses no rank: a floating scalar never becomes integer elements, and a
    /// scalar of higher rank than the element (`char4 + 1`, `float4 * 0.5`, or `int4 + uint`
    /// at equal rank) is refused, as clang refuses it.
    fn scalar_to_vector(
        &mut self,
        scalar: Operand,
        vector_ty: Handle<ir::Type>,
        element: Scalar,
        scalar_kind: Scalar,
    ) -> SResult<Handle<ir::Type>> {
        if element.is_integer() && scalar_kind.is_float() {
            let (s, v) = (self.type_name(scalar.ty), self.type_name(vector_ty));
            return Err(self.error(
                scalar.span,
                format!("cannot convert between scalar type '{s}' and vector type '{v}'"),
            ));
        }
        let higher_rank = if scalar_kind.is_float() {
            scalar_kind.rank() > element.rank()
        } else if element.is_float() || scalar_kind == Scalar::Bool {
            false
        } else {
            scalar_kind.rank() > element.rank()
                || (scalar_kind.rank() == element.rank()
                    && !scalar_kind.is_signed()
                    && element.is_signed())
        };
        if higher_rank {
            let (s, v) = (self.type_name(scalar.ty), self.type_name(vector_ty));
            return Err(self.error_with_help(
                scalar.span,
                format!(
                    "scalar operand type has greater rank than the type of the vector element ('{v}' and '{s}')"
                ),
                format!("cast the scalar to '{}' first", element.name()),
            ));
        }
        Ok(vector_ty)
    }

    pub(super) fn invalid_operands(
        &mut self,
        lhs: Operand,
        rhs: Operand,
        op_span: Span,
    ) -> super::Reported {
        let (l, r) = (self.type_name(lhs.ty), self.type_name(rhs.ty));
        self.error(op_span, format!("invalid operands to binary expression ('{l}' and '{r}')"))
    }

    /// A value turned into a `bool` test (see the module documentation).
    pub(super) fn condition(&mut self, operand: Operand) -> SResult<Operand> {
        let operand = self.rvalue(operand);
        let bool_ty = self.scalar_type(Scalar::Bool);
        match self.inner(operand.ty).clone() {
            TypeInner::Scalar(_) => Ok(self.implicit(operand, bool_ty)),
            TypeInner::Pointer { .. } => {
                let ulong = self.scalar_type(Scalar::ULong);
                let as_int = self.implicit(operand, ulong);
                Ok(self.implicit(as_int, bool_ty))
            }
            TypeInner::Vector { .. } => {
                let shown = self.type_name(operand.ty);
                Err(self.error_with_help(
                    operand.span,
                    format!("statement requires expression of scalar type ('{shown}' invalid)"),
                    "reduce the vector with any() or all()",
                ))
            }
            _ => {
                let shown = self.type_name(operand.ty);
                Err(self.error(
                    operand.span,
                    format!("statement requires expression of scalar type ('{shown}' invalid)"),
                ))
            }
        }
    }

    /// Converts a value as if by assignment to an object of type `target` (C99 §6.5.16.1),
    /// reporting what clang reports. `context` is "assigning to", "initializing",
    /// "passing to parameter of type" or "returning".
    pub(super) fn assign_convert(
        &mut self,
        operand: Operand,
        target: Handle<ir::Type>,
        context: AssignContext,
    ) -> SResult<Operand> {
        let operand = self.rvalue(operand);
        if operand.ty == target {
            return Ok(operand);
        }
        let target_inner = self.inner(target).clone();
        let source_inner = self.inner(operand.ty).clone();
        match (&target_inner, &source_inner) {
            (TypeInner::Scalar(_), TypeInner::Scalar(_)) => Ok(self.implicit(operand, target)),
            (TypeInner::Vector { scalar, .. }, TypeInner::Scalar(s)) => {
                if scalar.is_integer() && s.is_float() && context == AssignContext::Argument {
                    return Err(self.incompatible(operand, target, context));
                }
                Ok(self.implicit(operand, target))
            }
            (
                TypeInner::Pointer {
                    pointee: tp, space: ts, is_const: tc, is_volatile: tv, ..
                },
                TypeInner::Pointer {
                    pointee: sp, space: ss, is_const: sc, is_volatile: sv, ..
                },
            ) => {
                if self.is_null_constant(operand.expr) {
                    return Ok(self.implicit(operand, target));
                }
                if ts != ss {
                    let (t, s) = (self.type_name(target), self.type_name(operand.ty));
                    return Err(self.error(
                        operand.span,
                        format!(
                            "{} '{t}' from '{s}' changes address space of pointer",
                            context.verb()
                        ),
                    ));
                }
                let void = self.void_type();
                let compatible = tp == sp || *tp == void || *sp == void;
                if !compatible {
                    let (t, s) = (self.type_name(target), self.type_name(operand.ty));
                    self.warning(
                        operand.span,
                        format!("incompatible pointer types {} '{t}' from '{s}'", context.verb()),
                    );
                }
                if (*sc && !*tc) || (*sv && !*tv) {
                    let (t, s) = (self.type_name(target), self.type_name(operand.ty));
                    self.warning(
                        operand.span,
                        format!("{} '{t}' from '{s}' discards qualifiers", context.verb()),
                    );
                }
                Ok(self.implicit(operand, target))
            }
            // `event_t e = 0;`: an event that names no copy yet, as OpenCL compilers accept
            // (async_work_group_copy takes it as "no event to join").
            (TypeInner::Event, TypeInner::Scalar(s))
                if s.is_integer() && self.is_zero_literal(operand.expr) =>
            {
                Ok(self.value_operand(Expression::ZeroValue, target, operand.span))
            }
            // `sampler_t s = CLK_…;`: the flags, folded and checked.
            (TypeInner::Sampler, TypeInner::Scalar(s)) if s.is_integer() => {
                self.sampler_from_integer(operand)
            }
            (TypeInner::Pointer { .. }, TypeInner::Scalar(s)) if s.is_integer() => {
                if self.is_zero_literal(operand.expr) {
                    Ok(self.implicit(operand, target))
                } else {
                    let (t, s) = (self.type_name(target), self.type_name(operand.ty));
                    Err(self.error(
                        operand.span,
                        format!(
                            "incompatible integer to pointer conversion {} '{t}' from '{s}'",
                            context.verb()
                        ),
                    ))
                }
            }
            _ => Err(self.incompatible(operand, target, context)),
        }
    }

    fn incompatible(
        &mut self,
        operand: Operand,
        target: Handle<ir::Type>,
        context: AssignContext,
    ) -> super::Reported {
        let (t, s) = (self.type_name(target), self.type_name(operand.ty));
        let mut diagnostic = Diagnostic::error(
            operand.span,
            format!("{} '{t}' from incompatible type '{s}'", context.verb()),
        );
        if let (Some(ts), Some(ss)) = (self.shape(target), self.shape(operand.ty)) {
            if ts.size.is_some() && ss.size == ts.size {
                diagnostic = diagnostic.with_help(format!("use convert_{t}() to convert it"));
            }
        }
        self.diags.push(diagnostic);
        super::Reported
    }

    pub(super) fn is_zero_literal(&self, expr: Handle<Expression>) -> bool {
        matches!(
            self.func.expressions.get(expr),
            Some(Expression::Literal(ir::Literal::Int { bits: 0, .. }))
        )
    }

    /// A null pointer constant (C99 §6.3.2.3): a literal `0`, or one cast to `void *`.
    pub(super) fn is_null_constant(&self, expr: Handle<Expression>) -> bool {
        if self.is_zero_literal(expr) {
            return true;
        }
        let Some(Expression::Convert { value, .. }) = self.func.expressions.get(expr) else {
            return false;
        };
        let is_void_pointer = match self.func.expression_types.get(expr.index()) {
            Some(&ty) => match *self.inner(ty) {
                TypeInner::Pointer { pointee, .. } => {
                    matches!(self.inner(pointee), TypeInner::Void)
                }
                _ => false,
            },
            None => false,
        };
        is_void_pointer && self.is_zero_literal(*value)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AssignContext {
    Assign,
    Initialize,
    Argument,
    Return,
}

impl AssignContext {
    fn verb(self) -> &'static str {
        match self {
            AssignContext::Assign => "assigning to",
            AssignContext::Initialize => "initializing",
            AssignContext::Argument => "passing to parameter of type",
            AssignContext::Return => "returning",
        }
    }
}
