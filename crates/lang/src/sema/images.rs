//! Images and samplers (§6.12.14): where they may appear, which reads and writes an image's
//! access qualifier allows, and samplers made from the `CLK_*` flags.
//!
//! An image is always a parameter, so the access qualifier of an image value is found by
//! following it back to the parameter it loads; the qualifier is not part of the type.

use super::constant::Folded;
use super::conversions::Operand;
use super::{Checker, SResult};
use crate::ast;
use crate::diag::Diagnostic;
use crate::ir::{
    self, AccessQualifier, Builtin, ConversionKind, Expression, Handle, Literal, SamplerBits,
    Scalar, TypeInner, VariableRef,
};

impl Checker {
    /// Refuses an image type for anything but a parameter (§6.9.a).
    pub(super) fn refuse_image_variable(
        &mut self,
        ty: Handle<ir::Type>,
        name: &ast::Ident,
    ) -> SResult<()> {
        if matches!(self.inner(ty), TypeInner::Image(_)) {
            let shown = self.type_name(ty);
            return Err(self.error(
                name.span,
                format!("type '{shown}' can only be used as a function parameter in OpenCL"),
            ));
        }
        Ok(())
    }

    /// The access qualifier of an image parameter: the one written, else `read_only`.
    /// `read_write` is OpenCL C 2.0.
    pub(super) fn image_parameter_access(
        &mut self,
        specs: &ast::DeclSpecifiers,
    ) -> SResult<AccessQualifier> {
        match specs.access {
            None => Ok(AccessQualifier::ReadOnly),
            Some((AccessQualifier::ReadWrite, span)) if self.language_version < 200 => {
                Err(self.error_with_help(
                    span,
                    "access qualifier 'read_write' can not be used for images prior to OpenCL C 2.0",
                    "read through one image parameter declared __read_only and write through another declared __write_only",
                ))
            }
            Some((access, _)) => Ok(access),
        }
    }

    /// The parameter an image value loads, if it is one (through `,` too).
    fn image_parameter(&self, expr: Handle<Expression>) -> Option<&ir::Parameter> {
        let mut current = expr;
        for _ in 0..super::MAX_DEPTH {
            match self.func.expressions.get(current)? {
                Expression::Load(place) | Expression::Comma { rhs: place, .. } => current = *place,
                Expression::Variable(VariableRef::Param(i)) => {
                    return self.func.params.get(*i as usize)
                }
                _ => return None,
            }
        }
        None
    }

    /// The access qualifier of an image value (`None` when it cannot be traced to a
    /// parameter, which sema does not produce).
    pub(super) fn image_access(&self, expr: Handle<Expression>) -> Option<AccessQualifier> {
        self.image_parameter(expr).and_then(|p| p.access)
    }

    /// Checks that an image built-in may use its image argument: sampled reads need a
    /// `read_only` image, sampler-less reads anything but `write_only`, writes anything but
    /// `read_only` (§6.12.14 and, for `read_write`, OpenCL C 2.0 §6.13.14).
    pub(super) fn check_image_call(&mut self, builtin: Builtin, args: &[Operand]) -> SResult<()> {
        let (Builtin::ReadImage(_) | Builtin::WriteImage(_), Some(image)) = (builtin, args.first())
        else {
            return Ok(());
        };
        let Some(access) = self.image_access(image.expr) else {
            return Ok(());
        };
        let name = self.image_parameter(image.expr).map(|p| p.name.clone()).unwrap_or_default();
        let function = builtin.name();
        let sampled = args.len() == 3 && matches!(builtin, Builtin::ReadImage(_));
        let refusal = match (builtin, access) {
            (Builtin::ReadImage(_), AccessQualifier::WriteOnly) => Some((
                format!("'{function}' cannot read the write_only image '{name}'"),
                "declare the parameter __read_only to read it".to_string(),
            )),
            (Builtin::ReadImage(_), AccessQualifier::ReadWrite) if sampled => Some((
                format!("'{function}' with a sampler needs a read_only image; '{name}' is read_write"),
                "read a read_write image without a sampler, at integer coordinates".to_string(),
            )),
            (Builtin::WriteImage(_), AccessQualifier::ReadOnly) => Some((
                format!("'{function}' cannot write the read_only image '{name}'"),
                "declare the parameter __write_only to write it (an image parameter without a qualifier is read_only)".to_string(),
            )),
            _ => None,
        };
        match refusal {
            Some((message, help)) => Err(self.error_with_help(image.span, message, help)),
            None => Ok(()),
        }
    }

    /// Checks that an image argument of a user function has the parameter's access qualifier
    /// (clang treats `read_only image2d_t` and `write_only image2d_t` as different types).
    pub(super) fn check_image_argument(
        &mut self,
        argument: Operand,
        expected: Option<AccessQualifier>,
        param_ty: Handle<ir::Type>,
    ) -> SResult<()> {
        let (Some(expected), Some(actual)) = (expected, self.image_access(argument.expr)) else {
            return Ok(());
        };
        if expected == actual {
            return Ok(());
        }
        let shown = self.type_name(param_ty);
        Err(self.error(
            argument.span,
            format!(
                "passing '{} {shown}' to parameter of incompatible type '{} {shown}'",
                actual.name(),
                expected.name()
            ),
        ))
    }

    /// A sampler made from an integer constant expression holding the `CLK_*` flags: an
    /// implicit conversion of the folded value, so every later stage reads the bits directly.
    pub(super) fn sampler_from_integer(&mut self, operand: Operand) -> SResult<Operand> {
        let is_integer = matches!(self.inner(operand.ty), TypeInner::Scalar(s) if s.is_integer());
        let value = match self.fold(operand.expr) {
            Some(Folded::Scalar(literal)) if is_integer => literal.as_i128(),
            _ => None,
        };
        let Some(value) = value else {
            let shown = self.type_name(operand.ty);
            return Err(self.error_with_help(
                operand.span,
                format!("a sampler must be initialized with a constant, not a value of type '{shown}'"),
                "OR the CLK_* flags together: CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST",
            ));
        };
        let bits = u32::try_from(value).ok().filter(|b| SamplerBits::decode(*b).is_some());
        let Some(bits) = bits else {
            return Err(self.error_with_help(
                operand.span,
                format!("{value:#x} is not a sampler: it sets bits no combination of CLK_* sampler flags sets"),
                "OR one CLK_NORMALIZED_COORDS_*, one CLK_ADDRESS_* and one CLK_FILTER_* flag",
            ));
        };
        if bits & SamplerBits::FILTER_MASK == 0 {
            self.diags.push(
                Diagnostic::warning(
                    operand.span,
                    "sampler initializer has no filter mode; CLK_FILTER_NEAREST is used",
                )
                .with_help("add CLK_FILTER_NEAREST or CLK_FILTER_LINEAR"),
            );
        }
        let literal = self.literal(Literal::int(Scalar::UInt, i128::from(bits)), operand.span);
        let sampler = self.module.ty(TypeInner::Sampler);
        Ok(self.value_operand(
            Expression::Convert { value: literal.expr, kind: ConversionKind::Implicit },
            sampler,
            operand.span,
        ))
    }
}
