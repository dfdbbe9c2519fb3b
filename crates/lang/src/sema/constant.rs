//! Constant evaluation: array sizes, case labels, enumerator values, attribute arguments and
//! program-scope initialisers.
//!
//! Constant expressions are checked like any other expression (into a scratch function, so
//! their conversions are explicit) and then folded over the IR: the folder only has to know
//! how each IR operation computes, not C's typing rules.

use super::{empty_function, Checker, SResult};
use crate::ast;
use crate::ir::{self, BinaryOp, Expression, Handle, Literal, Scalar, TypeInner, UnaryOp};
use crate::span::Span;

/// A folded value: one scalar, or the components of a vector.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Folded {
    Scalar(Literal),
    Vector(Vec<Literal>),
}

/// Rounds a value to the precision of a floating scalar type.
pub(super) fn round_float(scalar: Scalar, value: f64) -> f64 {
    match scalar {
        Scalar::Float => value as f32 as f64,
        Scalar::Half => round_to_half(value),
        _ => value,
    }
}

/// Round-to-nearest-even to IEEE binary16, returned as the exactly representable `f64`.
fn round_to_half(value: f64) -> f64 {
    if !value.is_finite() || value == 0.0 {
        return value;
    }
    let magnitude = value.abs();
    // Largest finite half is 65504; halfway to the next binade step rounds to infinity.
    if magnitude >= 65520.0 {
        return f64::INFINITY.copysign(value);
    }
    // Spacing of halves around the value: 2^(e-10) for normals, 2^-24 for subnormals.
    let exponent = magnitude.log2().floor().max(-14.0);
    let quantum = (exponent - 10.0).exp2();
    let scaled = magnitude / quantum;
    let rounded = scaled.round();
    // `round` goes away from zero on ties; C rounds ties to even.
    let rounded = if (scaled - scaled.trunc() - 0.5).abs() < f64::EPSILON && rounded % 2.0 != 0.0 {
        rounded - 1.0
    } else {
        rounded
    };
    (rounded * quantum).copysign(value)
}

fn int_value(literal: Literal) -> Option<i128> {
    literal.as_i128()
}

fn float_value(literal: Literal) -> f64 {
    match literal {
        Literal::Float { value, .. } => value,
        Literal::Bool(b) => f64::from(u8::from(b)),
        Literal::Int { scalar, .. } => {
            let v = literal.as_i128().unwrap_or(0);
            if scalar.is_signed() {
                v as i64 as f64
            } else {
                v as u64 as f64
            }
        }
    }
}

/// Converts a scalar constant to another scalar type as C does.
pub(super) fn convert_literal(literal: Literal, target: Scalar) -> Literal {
    match target {
        Scalar::Bool => Literal::Bool(match literal {
            Literal::Float { value, .. } => value != 0.0,
            other => other.as_i128().unwrap_or(0) != 0,
        }),
        t if t.is_float() => {
            Literal::Float { scalar: t, value: round_float(t, float_value(literal)) }
        }
        t => match literal {
            Literal::Float { value, .. } => {
                // Out-of-range float to integer is undefined in C; saturate like hardware does.
                let v = if value.is_nan() { 0 } else { value.trunc().clamp(-1e38, 1e38) as i128 };
                Literal::int(t, v)
            }
            other => Literal::int(t, other.as_i128().unwrap_or(0)),
        },
    }
}

fn fold_binary(op: BinaryOp, a: Literal, b: Literal, result: Scalar) -> Option<Literal> {
    use BinaryOp::*;
    let operand = a.scalar();
    let truth = |t: bool| Literal::int(result, if t { 1 } else { 0 });
    if operand.is_float() {
        let (x, y) = (float_value(a), float_value(b));
        let value = match op {
            Add => x + y,
            Sub => x - y,
            Mul => x * y,
            Div => x / y,
            Lt => return Some(truth(x < y)),
            Gt => return Some(truth(x > y)),
            Le => return Some(truth(x <= y)),
            Ge => return Some(truth(x >= y)),
            Eq => return Some(truth(x == y)),
            Ne => return Some(truth(x != y)),
            LogicalAnd => return Some(truth(x != 0.0 && y != 0.0)),
            LogicalOr => return Some(truth(x != 0.0 || y != 0.0)),
            _ => return None,
        };
        return Some(Literal::Float { scalar: operand, value: round_float(operand, value) });
    }
    let (x, y) = (int_value(a)?, int_value(b)?);
    let bits = i128::from(operand.size()) * 8;
    let value = match op {
        Add => x.wrapping_add(y),
        Sub => x.wrapping_sub(y),
        Mul => x.wrapping_mul(y),
        Div | Rem => {
            if y == 0 {
                return None;
            }
            if op == Div {
                x / y
            } else {
                x % y
            }
        }
        Shl => x.checked_shl((y.rem_euclid(bits)) as u32).unwrap_or(0),
        Shr => x >> (y.rem_euclid(bits)) as u32,
        BitAnd => x & y,
        BitOr => x | y,
        BitXor => x ^ y,
        Lt => return Some(truth(x < y)),
        Gt => return Some(truth(x > y)),
        Le => return Some(truth(x <= y)),
        Ge => return Some(truth(x >= y)),
        Eq => return Some(truth(x == y)),
        Ne => return Some(truth(x != y)),
        LogicalAnd => return Some(truth(x != 0 && y != 0)),
        LogicalOr => return Some(truth(x != 0 || y != 0)),
    };
    Some(Literal::int(operand, value))
}

impl Checker {
    /// Folds an IR expression of the current function to a constant, if it is one.
    pub(super) fn fold(&self, expr: Handle<Expression>) -> Option<Folded> {
        self.fold_depth(expr, 0)
    }

    fn fold_depth(&self, expr: Handle<Expression>, depth: u32) -> Option<Folded> {
        if depth > super::MAX_DEPTH {
            return None;
        }
        let ty = self.func.expression_types.get(expr.index()).copied()?;
        let shape = self.shape(ty);
        let scalar_of = |f: Folded| match f {
            Folded::Scalar(l) => Some(l),
            Folded::Vector(_) => None,
        };
        let lanes = |f: Folded| match f {
            Folded::Scalar(l) => vec![l],
            Folded::Vector(v) => v,
        };
        let sub = |e| self.fold_depth(e, depth + 1);
        match self.func.expressions.get(expr)? {
            Expression::Literal(l) => Some(Folded::Scalar(*l)),
            Expression::Convert { value, .. } => {
                // A sampler holds its flags as a `uint`.
                let target = match shape {
                    Some(shape) => shape.scalar,
                    None if matches!(self.inner(ty), TypeInner::Sampler) => Scalar::UInt,
                    None => return None,
                };
                match sub(*value)? {
                    Folded::Scalar(l) => Some(Folded::Scalar(convert_literal(l, target))),
                    Folded::Vector(v) => Some(Folded::Vector(
                        v.into_iter().map(|l| convert_literal(l, target)).collect(),
                    )),
                }
            }
            Expression::Splat(value) => {
                let l = scalar_of(sub(*value)?)?;
                let width = shape?.size?.width() as usize;
                Some(Folded::Vector(vec![l; width]))
            }
            Expression::Compose(parts) => {
                shape?.size?;
                let mut all = Vec::new();
                for part in parts {
                    all.extend(lanes(sub(*part)?));
                }
                Some(Folded::Vector(all))
            }
            Expression::Unary { op, operand } => {
                let result = shape?.scalar;
                let apply = |l: Literal| -> Option<Literal> {
                    Some(match op {
                        UnaryOp::Negate => match l {
                            Literal::Float { scalar, value } => {
                                Literal::Float { scalar, value: -value }
                            }
                            other => Literal::int(other.scalar(), -int_value(other)?),
                        },
                        UnaryOp::BitNot => Literal::int(l.scalar(), !int_value(l)?),
                        UnaryOp::LogicalNot => {
                            let zero = match l {
                                Literal::Float { value, .. } => value == 0.0,
                                other => int_value(other)? == 0,
                            };
                            let truth =
                                if result.is_signed() && shape?.size.is_some() { -1 } else { 1 };
                            Literal::int(result, if zero { truth } else { 0 })
                        }
                    })
                };
                match sub(*operand)? {
                    Folded::Scalar(l) => Some(Folded::Scalar(apply(l)?)),
                    Folded::Vector(v) => {
                        Some(Folded::Vector(v.into_iter().map(apply).collect::<Option<_>>()?))
                    }
                }
            }
            Expression::Binary { op, lhs, rhs } => {
                let result = shape?;
                match (sub(*lhs)?, sub(*rhs)?) {
                    (Folded::Scalar(a), Folded::Scalar(b)) => {
                        Some(Folded::Scalar(fold_binary(*op, a, b, result.scalar)?))
                    }
                    (Folded::Vector(a), Folded::Vector(b)) if a.len() == b.len() => {
                        let mut out = Vec::new();
                        for (x, y) in a.into_iter().zip(b) {
                            let l = fold_binary(*op, x, y, result.scalar)?;
                            // Vector comparisons are -1 when true.
                            let l = match l {
                                Literal::Int { bits: 1, scalar } if op.yields_truth_value() => {
                                    Literal::int(scalar, -1)
                                }
                                l => l,
                            };
                            out.push(l);
                        }
                        Some(Folded::Vector(out))
                    }
                    _ => None,
                }
            }
            Expression::Conditional { condition, accept, reject } => {
                let c = scalar_of(sub(*condition)?)?;
                let truth = match c {
                    Literal::Float { value, .. } => value != 0.0,
                    other => int_value(other)? != 0,
                };
                if truth {
                    sub(*accept)
                } else {
                    sub(*reject)
                }
            }
            Expression::Comma { .. } => None,
            // clang folds a program-scope scalar constant (`__constant int N = 4; float a[N];`),
            // not an OpenCL C 2.0 `__global` variable, which kernels may change.
            Expression::Load(place) => match self.func.expressions.get(*place)? {
                Expression::Variable(ir::VariableRef::Global(global)) => {
                    let variable = self.module.global_variables.get(*global)?;
                    if variable.space != ir::AddressSpace::Constant {
                        return None;
                    }
                    match variable.init.as_ref()? {
                        ir::ConstValue::Literal(l) => Some(Folded::Scalar(*l)),
                        _ => None,
                    }
                }
                _ => None,
            },
            Expression::Swizzle { base, components } => {
                let all = lanes(sub(*base)?);
                let picked: Vec<Literal> = components
                    .iter()
                    .map(|&c| all.get(usize::from(c)).copied())
                    .collect::<Option<_>>()?;
                match picked.as_slice() {
                    [one] => Some(Folded::Scalar(*one)),
                    _ => Some(Folded::Vector(picked)),
                }
            }
            _ => None,
        }
    }

    /// The address an expression of pointer type stands for when it is an address constant
    /// (C99 §6.6.9): a program-scope variable and a byte offset into it, from `&` (or an
    /// array's decay) of the variable, an element or a member with constant indices, pointer
    /// casts and constant pointer offsets.
    pub(super) fn address_constant(
        &self,
        expr: Handle<Expression>,
        depth: u32,
    ) -> Option<(Handle<ir::GlobalVariable>, u64)> {
        if depth > super::MAX_DEPTH || !self.inner(self.func.type_of(expr)).is_pointer() {
            return None;
        }
        match self.func.expressions.get(expr)? {
            Expression::AddressOf(place) | Expression::Decay(place) => {
                self.place_address(*place, depth + 1)
            }
            Expression::Convert { value, .. } | Expression::Bitcast(value) => {
                self.address_constant(*value, depth + 1)
            }
            Expression::PointerOffset { pointer, offset, subtract } => {
                let (global, base) = self.address_constant(*pointer, depth + 1)?;
                let step = self.pointee_size(*pointer)?;
                let count = match self.fold(*offset)? {
                    Folded::Scalar(l) => l.as_i128()?,
                    Folded::Vector(_) => return None,
                };
                let bytes = count.checked_mul(i128::from(step))?;
                let at =
                    if *subtract { i128::from(base) - bytes } else { i128::from(base) + bytes };
                Some((global, u64::try_from(at).ok()?))
            }
            _ => None,
        }
    }

    /// The address of a place, as [`Checker::address_constant`].
    fn place_address(
        &self,
        place: Handle<Expression>,
        depth: u32,
    ) -> Option<(Handle<ir::GlobalVariable>, u64)> {
        if depth > super::MAX_DEPTH {
            return None;
        }
        match self.func.expressions.get(place)? {
            Expression::Variable(ir::VariableRef::Global(global)) => Some((*global, 0)),
            Expression::Deref(pointer) => self.address_constant(*pointer, depth + 1),
            Expression::Index { base, index } => {
                let index = match self.fold(*index)? {
                    Folded::Scalar(l) => l.as_i128()?,
                    Folded::Vector(_) => return None,
                };
                let (global, at) = if self.inner(self.func.type_of(*base)).is_pointer() {
                    self.address_constant(*base, depth + 1)?
                } else {
                    self.place_address(*base, depth + 1)?
                };
                let step = self.module.size_of(self.func.type_of(place));
                let at = i128::from(at).checked_add(index.checked_mul(i128::from(step))?)?;
                Some((global, u64::try_from(at).ok()?))
            }
            Expression::Member { base, member } => {
                let (global, at) = self.place_address(*base, depth + 1)?;
                let TypeInner::Struct { members, .. } = self.inner(self.func.type_of(*base)) else {
                    return None;
                };
                let offset = members.get(*member as usize)?.offset;
                Some((global, at.checked_add(u64::from(offset))?))
            }
            _ => None,
        }
    }

    /// The size of what a pointer-typed expression points to.
    fn pointee_size(&self, pointer: Handle<Expression>) -> Option<u32> {
        match self.inner(self.func.type_of(pointer)) {
            TypeInner::Pointer { pointee, .. } => Some(self.module.size_of(*pointee)),
            _ => None,
        }
    }

    /// Checks an expression in a scratch function (nothing of it stays in the current
    /// function) and returns the scratch function with the expression's handle.
    pub(super) fn scratch_expression(
        &mut self,
        e: &ast::Expr,
    ) -> (ir::Function, SResult<super::conversions::Operand>) {
        let scratch = empty_function("", Span::UNDEFINED);
        let saved = std::mem::replace(&mut self.func, scratch);
        let body = self.body.take();
        let result = self.value(e);
        self.body = body;
        let scratch = std::mem::replace(&mut self.func, saved);
        (scratch, result)
    }

    /// An integer constant expression (C99 §6.6), as its mathematical value.
    pub(super) fn constant_integer(&mut self, e: &ast::Expr, what: &str) -> SResult<i128> {
        let outer = self.constant_context.replace(what.to_string());
        let (scratch, result) = self.scratch_expression(e);
        self.constant_context = outer;
        let operand = result?;
        let saved = std::mem::replace(&mut self.func, scratch);
        let folded = self.fold(operand.expr);
        let is_integer = matches!(self.inner(operand.ty), TypeInner::Scalar(s) if s.is_integer() || *s == Scalar::Bool);
        self.func = saved;
        match folded {
            Some(Folded::Scalar(l)) if is_integer => l.as_i128().ok_or_else(|| {
                self.error(e.span, format!("{what} is not an integer constant expression"))
            }),
            _ if !is_integer => {
                let shown = self.type_name(operand.ty);
                Err(self.error(e.span, format!("{what} has non-integer type '{shown}'")))
            }
            _ if what == "array size" => Err(self.error(
                e.span,
                "variable-length arrays are not supported in OpenCL C (the size must be an integer constant expression)",
            )),
            _ => Err(self.error(e.span, format!("{what} is not an integer constant expression"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_rounding_is_to_nearest_even() {
        assert_eq!(round_to_half(1.0), 1.0);
        assert_eq!(round_to_half(65504.0), 65504.0);
        assert_eq!(round_to_half(70000.0), f64::INFINITY);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even 1.0.
        assert_eq!(round_to_half(1.0 + (-11f64).exp2()), 1.0);
        assert_eq!(round_to_half(0.1), 0.0999755859375);
    }

    #[test]
    fn integer_folding_wraps_to_the_type() {
        let a = Literal::int(Scalar::Int, i128::from(i32::MAX));
        let one = Literal::int(Scalar::Int, 1);
        assert_eq!(
            fold_binary(BinaryOp::Add, a, one, Scalar::Int).and_then(Literal::as_i128),
            Some(i128::from(i32::MIN))
        );
        let inf = fold_binary(
            BinaryOp::Div,
            Literal::Float { scalar: Scalar::Float, value: 1.0 },
            Literal::Float { scalar: Scalar::Float, value: 0.0 },
            Scalar::Float,
        );
        assert_eq!(inf, Some(Literal::Float { scalar: Scalar::Float, value: f64::INFINITY }));
    }
}
