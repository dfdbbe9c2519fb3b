//! The OpenCL C 1.2 built-in library (§6.12) as typed overload tables, and overload
//! resolution over them.
//!
//! Each family module lists, for a name, every concrete signature the specification's
//! `gentype` notation stands for. Resolution follows clang's rules for overloaded built-ins:
//! an exact match wins; otherwise scalar arguments may be converted (promotions rank above
//! other conversions), vectors never convert, and two equally good candidates are ambiguous.

mod convert;
mod family;
mod image;
mod linear_id;
mod memory;

use super::conversions::Operand;
use super::{Checker, Reported, SResult};
use crate::ast;
use crate::diag::Diagnostic;
use crate::ir::{
    self, AddressSpace, Builtin, Expression, Handle, Scalar, TypeInner, VectorSize,
    WorkItemFunction,
};
use crate::span::Span;

/// An arithmetic type of a signature: a scalar or a vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Val {
    pub scalar: Scalar,
    pub size: Option<VectorSize>,
}

impl Val {
    pub const fn scalar(scalar: Scalar) -> Val {
        Val { scalar, size: None }
    }

    fn name(self) -> String {
        match self.size {
            Some(size) => format!("{}{}", self.scalar.name(), size.width()),
            None => self.scalar.name().to_string(),
        }
    }

    /// Same width, another element type.
    pub fn with_scalar(self, scalar: Scalar) -> Val {
        Val { scalar, size: self.size }
    }
}

/// The address spaces a pointer parameter accepts.
pub(super) const ANY_SPACE: &[AddressSpace] =
    &[AddressSpace::Global, AddressSpace::Local, AddressSpace::Private, AddressSpace::Constant];
pub(super) const WRITABLE_SPACES: &[AddressSpace] =
    &[AddressSpace::Global, AddressSpace::Local, AddressSpace::Private];
pub(super) const ATOMIC_SPACES: &[AddressSpace] = &[AddressSpace::Global, AddressSpace::Local];

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Param {
    Value(Val),
    /// A pointer to `pointee` in one of `spaces`; `const_ok` when the callee only reads.
    Pointer {
        pointee: Val,
        spaces: &'static [AddressSpace],
        const_ok: bool,
    },
    Event,
    /// `event_t *` (private).
    EventPointer,
    Image(crate::ir::ImageKind),
    /// `sampler_t`; an integer constant (the `CLK_*` flags) converts to it.
    Sampler,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Ret {
    Void,
    Value(Val),
    Event,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Signature {
    pub builtin: Builtin,
    pub params: Vec<Param>,
    pub ret: Ret,
}

impl Signature {
    pub fn new(builtin: Builtin, params: Vec<Param>, ret: Ret) -> Signature {
        Signature { builtin, params, ret }
    }

    fn describe(&self, name: &str) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| match p {
                Param::Value(v) => v.name(),
                Param::Pointer { pointee, spaces, .. } if spaces.len() == 1 => {
                    format!("{} {} *", spaces[0].qualifier(), pointee.name())
                }
                Param::Pointer { pointee, .. } => format!("{} *", pointee.name()),
                Param::Event => "event_t".to_string(),
                Param::EventPointer => "event_t *".to_string(),
                Param::Image(kind) => kind.name().to_string(),
                Param::Sampler => "sampler_t".to_string(),
            })
            .collect();
        format!("{name}({})", params.join(", "))
    }
}

/// All widths of OpenCL vectors, with `None` for the scalar form.
pub(super) const WIDTHS: [Option<VectorSize>; 6] = [
    None,
    Some(VectorSize::Two),
    Some(VectorSize::Three),
    Some(VectorSize::Four),
    Some(VectorSize::Eight),
    Some(VectorSize::Sixteen),
];
pub(super) const FLOATS: [Scalar; 3] = [Scalar::Float, Scalar::Double, Scalar::Half];
pub(super) const INTEGERS: [Scalar; 8] = [
    Scalar::Char,
    Scalar::UChar,
    Scalar::Short,
    Scalar::UShort,
    Scalar::Int,
    Scalar::UInt,
    Scalar::Long,
    Scalar::ULong,
];

/// Every `gentype` over the given element types.
pub(super) fn gentypes(scalars: &[Scalar]) -> Vec<Val> {
    let mut out = Vec::new();
    for &scalar in scalars {
        for size in WIDTHS {
            out.push(Val { scalar, size });
        }
    }
    out
}

/// Whether `name` is a built-in function that sema knows (for messages).
pub(super) fn is_builtin_name(name: &str) -> bool {
    name == "printf"
        || convert::parse_convert(name).is_some()
        || convert::parse_as(name).is_some()
        || !candidates(name).is_empty()
}

/// The concrete signatures of a built-in name (empty when it is not one).
fn candidates(name: &str) -> Vec<Signature> {
    let mut out = family::signatures(name);
    if out.is_empty() {
        out = memory::signatures(name);
    }
    if out.is_empty() {
        out = image::signatures(name);
    }
    out
}

/// How well an argument matches a parameter (lower is better; `None`: not viable).
fn argument_cost(checker: &Checker, arg: &Operand, param: &Param) -> Option<u8> {
    let inner = checker.inner(arg.ty);
    match param {
        Param::Value(v) => {
            let shape = checker.shape(arg.ty)?;
            if shape.scalar == v.scalar && shape.size == v.size {
                return Some(0);
            }
            if shape.size.is_none() && v.size.is_some() {
                // clang lets a scalar become a vector (`dot(v, 1.0f)`), ranked below every
                // scalar conversion, so the spec's explicit scalar overloads win when present.
                return Some(3);
            }
            if shape.size.is_some() || v.size.is_some() {
                return None;
            }
            let promotion = (crate::proc::promote(shape.scalar) == v.scalar
                && shape.scalar != v.scalar)
                || (shape.scalar == Scalar::Float && v.scalar == Scalar::Double);
            Some(if promotion { 1 } else { 2 })
        }
        Param::Pointer { pointee, spaces, const_ok } => {
            let TypeInner::Pointer { pointee: actual, space, is_const, .. } = *inner else {
                return None;
            };
            let shape = checker.shape(actual)?;
            let same = shape.scalar == pointee.scalar && shape.size == pointee.size;
            (same && spaces.contains(&space) && (!is_const || *const_ok)).then_some(0)
        }
        Param::Event => match inner {
            TypeInner::Event => Some(0),
            TypeInner::Scalar(s) if s.is_integer() && checker.is_zero_literal(arg.expr) => Some(2),
            _ => None,
        },
        Param::EventPointer => match *inner {
            TypeInner::Pointer { pointee, .. } => {
                matches!(checker.inner(pointee), TypeInner::Event).then_some(0)
            }
            _ => None,
        },
        Param::Image(kind) => (*inner == TypeInner::Image(*kind)).then_some(0),
        Param::Sampler => match inner {
            TypeInner::Sampler => Some(0),
            // clang takes the `CLK_*` flags in place of a sampler; the value is checked when
            // the argument is converted.
            TypeInner::Scalar(s) if s.is_integer() => Some(2),
            _ => None,
        },
    }
}

impl Checker {
    pub(super) fn val_type(&mut self, v: Val) -> Handle<ir::Type> {
        match v.size {
            Some(size) => self.vector_type(v.scalar, size),
            None => self.scalar_type(v.scalar),
        }
    }

    /// A call of a built-in function by name.
    pub(super) fn builtin_call(
        &mut self,
        name: &str,
        name_span: Span,
        args: &[ast::Expr],
        span: Span,
    ) -> SResult<Operand> {
        if name == "printf" {
            return self.printf(args, span);
        }
        if let Some(conversion) = convert::parse_convert(name) {
            return self.convert_call(name, conversion, args, span);
        }
        if let Some(target) = convert::parse_as(name) {
            return self.as_call(name, target, args, span);
        }
        if let Some(which) = linear_id::LinearId::from_name(name) {
            return self.linear_id_call(which, name, name_span, args, span);
        }
        let signatures = candidates(name);
        if name == WorkItemFunction::EnqueuedLocalSize.name() && self.language_version < 200 {
            return Err(self.error_with_help(
                name_span,
                format!("'{name}' is an OpenCL C 2.0 function"),
                "build with -cl-std=CL2.0",
            ));
        }
        if signatures.is_empty() {
            return Err(self.error(
                name_span,
                format!("call to undeclared function '{name}'; implicit function declarations are invalid in OpenCL C"),
            ));
        }
        let mut values = Vec::new();
        let mut failed = false;
        for arg in args {
            match self.value(arg) {
                Ok(v) => values.push(v),
                Err(Reported) => failed = true,
            }
        }
        if failed {
            return Err(Reported);
        }
        if !signatures.iter().any(|s| s.params.len() == values.len()) {
            let fewest = signatures.iter().map(|s| s.params.len()).min().unwrap_or(0);
            let most = signatures.iter().map(|s| s.params.len()).max().unwrap_or(0);
            let (relation, expected) =
                if values.len() > most { ("many", most) } else { ("few", fewest) };
            return Err(self.error(
                span,
                format!(
                    "too {relation} arguments to function call, expected {expected}, have {}",
                    values.len()
                ),
            ));
        }
        let chosen = self.resolve(name, &signatures, &values, span)?;
        let mut converted = Vec::new();
        for (value, param) in values.iter().zip(&chosen.params) {
            let expr = match param {
                Param::Value(v) => {
                    let ty = self.val_type(*v);
                    self.implicit(*value, ty).expr
                }
                // A literal 0 stands for "no event" (clang accepts it for `event_t`).
                Param::Event if !matches!(self.inner(value.ty), TypeInner::Event) => {
                    let event = self.module.ty(TypeInner::Event);
                    self.add(Expression::ZeroValue, event, value.span)
                }
                Param::Sampler if !matches!(self.inner(value.ty), TypeInner::Sampler) => {
                    self.sampler_from_integer(*value)?.expr
                }
                _ => value.expr,
            };
            converted.push(expr);
        }
        self.check_image_call(chosen.builtin, &values)?;
        let ty = match chosen.ret {
            Ret::Void => self.void_type(),
            Ret::Value(v) => self.val_type(v),
            Ret::Event => self.module.ty(TypeInner::Event),
        };
        Ok(self.value_operand(
            Expression::Builtin { function: chosen.builtin, args: converted },
            ty,
            span,
        ))
    }

    /// The best viable signature (C++ rules: no worse in any argument, better in one).
    fn resolve(
        &mut self,
        name: &str,
        signatures: &[Signature],
        args: &[Operand],
        span: Span,
    ) -> SResult<Signature> {
        let mut viable: Vec<(Vec<u8>, &Signature)> = Vec::new();
        for signature in signatures {
            if signature.params.len() != args.len() {
                continue;
            }
            let costs: Option<Vec<u8>> = args
                .iter()
                .zip(&signature.params)
                .map(|(a, p)| argument_cost(self, a, p))
                .collect();
            if let Some(costs) = costs {
                if !viable.iter().any(|(_, s)| s.params == signature.params) {
                    viable.push((costs, signature));
                }
            }
        }
        let better = |a: &[u8], b: &[u8]| a.iter().zip(b).all(|(x, y)| x <= y) && a != b;
        let best: Vec<&(Vec<u8>, &Signature)> = viable
            .iter()
            .filter(|(costs, _)| !viable.iter().any(|(other, _)| better(other, costs)))
            .collect();
        match best.as_slice() {
            [(_, one)] => Ok((*one).clone()),
            [] => {
                let shown: Vec<String> = args.iter().map(|a| self.type_name(a.ty)).collect();
                let mut listed: Vec<String> =
                    signatures.iter().take(12).map(|s| s.describe(name)).collect();
                if signatures.len() > 12 {
                    listed.push(format!("… and {} more", signatures.len() - 12));
                }
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!("no matching overload for {name}({})", shown.join(", ")),
                    )
                    .with_help(format!("candidates: {}", listed.join(", "))),
                );
                Err(Reported)
            }
            several => {
                let shown: Vec<String> = args.iter().map(|a| self.type_name(a.ty)).collect();
                let listed: Vec<String> =
                    several.iter().take(6).map(|(_, s)| s.describe(name)).collect();
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!("call to '{name}' is ambiguous ({})", shown.join(", ")),
                    )
                    .with_help(format!(
                        "candidates: {}; cast the arguments to the intended types",
                        listed.join(", ")
                    )),
                );
                Err(Reported)
            }
        }
    }

    /// `printf(format, …)`: a string-literal format, then arguments after the default
    /// argument promotions (`float` → `double`, small integers → `int`).
    fn printf(&mut self, args: &[ast::Expr], span: Span) -> SResult<Operand> {
        let Some((format, rest)) = args.split_first() else {
            return Err(self.error(span, "printf requires a format string"));
        };
        let mut inner = format;
        while let ast::ExprKind::Paren(i) = &inner.kind {
            inner = i;
        }
        let ast::ExprKind::Str(text) = &inner.kind else {
            return Err(self.error(format.span, "the format of printf must be a string literal"));
        };
        let char_ty = self.scalar_type(Scalar::Char);
        let format_ty = self.module.ty(TypeInner::Pointer {
            pointee: char_ty,
            space: AddressSpace::Constant,
            is_const: true,
            is_volatile: false,
            is_restrict: false,
        });
        let mut converted =
            vec![self.add(Expression::StringLiteral(text.clone()), format_ty, format.span)];
        for arg in rest {
            let mut inner = arg;
            while let ast::ExprKind::Paren(i) = &inner.kind {
                inner = i;
            }
            if let ast::ExprKind::Str(text) = &inner.kind {
                // A `%s` argument: OpenCL C allows string literals here too.
                converted.push(self.add(
                    Expression::StringLiteral(text.clone()),
                    format_ty,
                    arg.span,
                ));
                continue;
            }
            let value = self.value(arg)?;
            let promoted = match *self.inner(value.ty) {
                TypeInner::Scalar(Scalar::Float | Scalar::Half) => {
                    let double = self.scalar_type(Scalar::Double);
                    self.implicit(value, double)
                }
                TypeInner::Scalar(_) => self.promoted(value),
                TypeInner::Void
                | TypeInner::Struct { .. }
                | TypeInner::Array { .. }
                | TypeInner::Image(_)
                | TypeInner::Sampler => {
                    let shown = self.type_name(value.ty);
                    return Err(self.error(arg.span, format!("cannot pass '{shown}' to printf")));
                }
                _ => value,
            };
            converted.push(promoted.expr);
        }
        let int = self.scalar_type(Scalar::Int);
        Ok(self.value_operand(
            Expression::Builtin { function: Builtin::Printf, args: converted },
            int,
            span,
        ))
    }
}
