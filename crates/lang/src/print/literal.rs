//! Literal spellings that read back as exactly the same value and type.

use crate::ir::{Literal, Scalar};

/// A literal's text and whether it needs the precedence of a unary expression (a leading `-`
/// or a cast) rather than that of a primary one.
pub(crate) struct LiteralText {
    pub text: String,
    pub is_unary: bool,
}

pub(crate) fn literal(lit: Literal) -> LiteralText {
    match lit {
        // OpenCL C names them `true` and `false` (sema and clang's header both know them).
        Literal::Bool(b) => LiteralText { text: b.to_string(), is_unary: false },
        Literal::Int { scalar, .. } => integer(scalar, lit.as_i128().unwrap_or(0)),
        Literal::Float { scalar, value } => float(scalar, value),
    }
}

/// Integers: `int` plain, `uint` with `u`, `long` with `L`, `ulong` with `UL`; the small types
/// have no literal of their own and are written as casts of an `int`.
pub(crate) fn integer(scalar: Scalar, value: i128) -> LiteralText {
    let text = match scalar {
        Scalar::Int => signed(value, i32::MIN as i128, ""),
        Scalar::UInt => format!("{value}u"),
        Scalar::Long => signed(value, i64::MIN as i128, "L"),
        Scalar::ULong => format!("{value}UL"),
        Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort => {
            return LiteralText { text: format!("({}){value}", scalar.name()), is_unary: true };
        }
        Scalar::Bool => return literal(Literal::Bool(value != 0)),
        // Not produced by sema; written as a conversion so the value survives.
        Scalar::Half | Scalar::Float | Scalar::Double => {
            return LiteralText { text: format!("({}){value}", scalar.name()), is_unary: true };
        }
    };
    LiteralText { is_unary: text.starts_with('-'), text }
}

/// A signed decimal; the most negative value has no literal (its magnitude does not fit), so
/// it is written as an expression.
fn signed(value: i128, min: i128, suffix: &str) -> String {
    if value == min {
        format!("({}{suffix} - 1{suffix})", value + 1)
    } else {
        format!("{value}{suffix}")
    }
}

/// Floats in the shortest decimal that reads back as the same value of the type; infinities
/// and NaN as constant divisions, which need no header.
pub(crate) fn float(scalar: Scalar, value: f64) -> LiteralText {
    let (suffix, zero) = match scalar {
        Scalar::Double => ("", "0.0"),
        _ => ("f", "0.0f"),
    };
    let text = if value.is_nan() {
        format!("({zero} / {zero})")
    } else if value.is_infinite() {
        let sign = if value < 0.0 { "-" } else { "" };
        format!("({sign}1.0{suffix} / {zero})")
    } else {
        let digits = match scalar {
            Scalar::Double => shortest(format!("{value}"), format!("{value:e}")),
            _ => {
                let single = value as f32;
                shortest(format!("{single}"), format!("{single:e}"))
            }
        };
        format!("{digits}{suffix}")
    };
    if scalar == Scalar::Half {
        return LiteralText { text: format!("(half){text}"), is_unary: true };
    }
    LiteralText { is_unary: text.starts_with('-'), text }
}

/// Rust prints the shortest digits that round-trip, positional or in exponent form; the
/// shorter one is kept, and a positional form gets a `.0` so that C reads a floating literal.
fn shortest(positional: String, exponent: String) -> String {
    let positional = if positional.contains('.') { positional } else { format!("{positional}.0") };
    if exponent.len() < positional.len() {
        exponent
    } else {
        positional
    }
}

/// A string literal for `printf`: quotes, backslashes and control characters escaped. Octal
/// escapes always have three digits so that a following digit is not swallowed.
pub(crate) fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\{:03o}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lit: Literal) -> String {
        literal(lit).text
    }

    #[test]
    fn integers_carry_their_type() {
        assert_eq!(text(Literal::int(Scalar::Int, 42)), "42");
        assert_eq!(text(Literal::int(Scalar::Int, -7)), "-7");
        assert_eq!(text(Literal::int(Scalar::Int, i32::MIN as i128)), "(-2147483647 - 1)");
        assert_eq!(text(Literal::int(Scalar::UInt, 4_294_967_295)), "4294967295u");
        assert_eq!(text(Literal::int(Scalar::Long, -3)), "-3L");
        assert_eq!(text(Literal::int(Scalar::ULong, u64::MAX as i128)), "18446744073709551615UL");
        assert_eq!(text(Literal::int(Scalar::UChar, 255)), "(uchar)255");
        assert_eq!(text(Literal::int(Scalar::Short, -2)), "(short)-2");
    }

    #[test]
    fn floats_round_trip() {
        let f = |v: f64| text(Literal::Float { scalar: Scalar::Float, value: v });
        assert_eq!(f(1.0), "1.0f");
        assert_eq!(f(0.1f32 as f64), "0.1f");
        assert_eq!(f(0.125), "0.125f");
        assert_eq!(f(1e-10f32 as f64), "1e-10f");
        assert_eq!(f(3.4028235e38f32 as f64), "3.4028235e38f");
        assert_eq!(f(-0.0), "-0.0f");
        assert_eq!(f(f64::INFINITY), "(1.0f / 0.0f)");
        assert_eq!(f(f64::NEG_INFINITY), "(-1.0f / 0.0f)");
        assert_eq!(f(f64::NAN), "(0.0f / 0.0f)");
        let d = |v: f64| text(Literal::Float { scalar: Scalar::Double, value: v });
        assert_eq!(d(0.1), "0.1");
        assert_eq!(d(2.0), "2.0");
        assert_eq!(d(1e300), "1e300");
        for v in [0.1f32, 1.0 / 3.0, 16777215.0, 1.175_494_4e-38, 7e-45] {
            let printed = f(v as f64);
            let parsed: f32 = printed.trim_end_matches('f').parse().unwrap();
            assert_eq!(parsed.to_bits(), v.to_bits(), "{printed}");
        }
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c\n\u{1}9"), "\"a\\\"b\\\\c\\n\\0019\"");
    }
}
