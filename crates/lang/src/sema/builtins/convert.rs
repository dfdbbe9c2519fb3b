//! `convert_<type>[_sat][_rounding]` (§6.2.3) and `as_<type>` (§6.2.4).

use super::Val;
use crate::ast;
use crate::ir::{ConversionKind, Expression, Rounding, Scalar, VectorSize};
use crate::sema::conversions::Operand;
use crate::sema::{Checker, SResult};
use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Conversion {
    target: Val,
    saturate: bool,
    rounding: Option<Rounding>,
}

/// `float4`, `uchar`, … as a [`Val`] (no `bool`, `size_t` or `half` vectors of odd widths).
fn parse_type_name(text: &str) -> Option<Val> {
    let digits_at = text.find(|c: char| c.is_ascii_digit()).unwrap_or(text.len());
    let (word, digits) = text.split_at(digits_at);
    let scalar = match word {
        "char" => Scalar::Char,
        "uchar" => Scalar::UChar,
        "short" => Scalar::Short,
        "ushort" => Scalar::UShort,
        "int" => Scalar::Int,
        "uint" => Scalar::UInt,
        "long" => Scalar::Long,
        "ulong" => Scalar::ULong,
        "float" => Scalar::Float,
        "double" => Scalar::Double,
        "half" => Scalar::Half,
        _ => return None,
    };
    let size =
        if digits.is_empty() { None } else { Some(VectorSize::from_width(digits.parse().ok()?)?) };
    Some(Val { scalar, size })
}

pub(super) fn parse_convert(name: &str) -> Option<Conversion> {
    let mut rest = name.strip_prefix("convert_")?;
    let mut rounding = None;
    for (suffix, mode) in [
        ("_rte", Rounding::Rte),
        ("_rtz", Rounding::Rtz),
        ("_rtp", Rounding::Rtp),
        ("_rtn", Rounding::Rtn),
    ] {
        if let Some(r) = rest.strip_suffix(suffix) {
            rest = r;
            rounding = Some(mode);
            break;
        }
    }
    let saturate = match rest.strip_suffix("_sat") {
        Some(r) => {
            rest = r;
            true
        }
        None => false,
    };
    Some(Conversion { target: parse_type_name(rest)?, saturate, rounding })
}

pub(super) fn parse_as(name: &str) -> Option<Val> {
    parse_type_name(name.strip_prefix("as_")?)
}

impl Checker {
    fn single_argument(&mut self, name: &str, args: &[ast::Expr], span: Span) -> SResult<Operand> {
        match args {
            [arg] => self.value(arg),
            _ => Err(self.error(span, format!("{name}() takes exactly one argument"))),
        }
    }

    pub(super) fn convert_call(
        &mut self,
        name: &str,
        conversion: Conversion,
        args: &[ast::Expr],
        span: Span,
    ) -> SResult<Operand> {
        let value = self.single_argument(name, args, span)?;
        let Some(shape) = self.shape(value.ty) else {
            let shown = self.type_name(value.ty);
            return Err(self
                .error(value.span, format!("{name}() cannot convert a value of type '{shown}'")));
        };
        if shape.size != conversion.target.size {
            let (s, t) = (self.type_name(value.ty), conversion.target.name());
            return Err(self.error(
                value.span,
                format!("{name}() needs an argument with as many components as '{t}' (have '{s}')"),
            ));
        }
        if shape.scalar == Scalar::Bool {
            return Err(self.error(value.span, format!("{name}() cannot convert 'bool'")));
        }
        if conversion.saturate && conversion.target.scalar.is_float() {
            return Err(self.error(
                span,
                "saturated conversions are only defined for integer destination types",
            ));
        }
        let target = self.val_type(conversion.target);
        let kind = ConversionKind::Explicit {
            saturate: conversion.saturate,
            rounding: conversion.rounding,
        };
        // Even a same-type conversion stays visible: the printer writes back what the user wrote.
        Ok(self.value_operand(Expression::Convert { value: value.expr, kind }, target, span))
    }

    pub(super) fn as_call(
        &mut self,
        name: &str,
        target: Val,
        args: &[ast::Expr],
        span: Span,
    ) -> SResult<Operand> {
        let value = self.single_argument(name, args, span)?;
        let target_ty = self.val_type(target);
        if self.shape(value.ty).is_none() {
            let shown = self.type_name(value.ty);
            return Err(self.error(
                value.span,
                format!("invalid reinterpretation of '{shown}' with {name}()"),
            ));
        }
        let (from, to) = (self.module.size_of(value.ty), self.module.size_of(target_ty));
        if from != to {
            let shown = self.type_name(value.ty);
            return Err(self.error(
                span,
                format!("invalid reinterpretation: sizes of '{}' and '{shown}' must match ({to} and {from} bytes)", target.name()),
            ));
        }
        Ok(self.value_operand(Expression::Bitcast(value.expr), target_ty, span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_conversion_names() {
        let c = parse_convert("convert_uchar4_sat_rte").unwrap();
        assert_eq!(c.target, Val { scalar: Scalar::UChar, size: Some(VectorSize::Four) });
        assert!(c.saturate);
        assert_eq!(c.rounding, Some(Rounding::Rte));
        assert_eq!(parse_convert("convert_float").unwrap().target, Val::scalar(Scalar::Float));
        assert!(parse_convert("convert_float5").is_none());
        assert!(parse_convert("convert_bool").is_none());
        assert_eq!(
            parse_as("as_uint2"),
            Some(Val { scalar: Scalar::UInt, size: Some(VectorSize::Two) })
        );
    }
}
