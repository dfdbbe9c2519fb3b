//! Numbers as written in workload files: integers stay exact (a `ulong` seed or a `long` fill
//! must not pass through `f64`), floats are `f64` until they are stored in their element type.

use std::fmt;

use crate::types::ScalarType;

/// A number from a workload file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// An exact integer; `i128` holds every `long` and `ulong` value.
    Int(i128),
    /// A floating-point value.
    Float(f64),
}

/// Why a number cannot be stored in a given type.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NumberError {
    #[error("{value} does not fit in {ty} (range {lo} to {hi})")]
    OutOfRange { value: String, ty: ScalarType, lo: i128, hi: i128 },
    #[error("{value} is not an integer, but {ty} needs one")]
    NotInteger { value: String, ty: ScalarType },
    #[error("{value} is too large for {ty}")]
    FloatOverflow { value: String, ty: ScalarType },
}

impl Number {
    /// The value as `f64` (large integers round).
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    /// Parses a decimal integer, a `0x` hexadecimal integer, a float (`1.5`, `-2e3`), `inf` or
    /// `nan`, with an optional sign.
    pub fn parse(text: &str) -> Option<Number> {
        let text = text.trim();
        let (negative, body) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        if body.is_empty() || body.starts_with(['-', '+']) {
            return None;
        }
        let sign = if negative { -1 } else { 1 };
        if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            return parse_hex_digits(hex).map(|v| Number::Int(sign * v));
        }
        if body.bytes().all(|b| b.is_ascii_digit()) {
            // 39 digits can exceed i128; such numbers fit no OpenCL type anyway.
            return body.parse::<i128>().ok().map(|v| Number::Int(sign * v));
        }
        let lower = body.to_ascii_lowercase();
        let magnitude = match lower.as_str() {
            "inf" | "infinity" => f64::INFINITY,
            "nan" => f64::NAN,
            _ => {
                // Rust's parser accepts forms like "inf" spelled oddly or "1_0"? It does not
                // accept underscores; we still require a digit so "e5" or "." are refused.
                if !lower.bytes().any(|b| b.is_ascii_digit())
                    || !lower.bytes().all(|b| b.is_ascii_digit() || b"e.+-".contains(&b))
                {
                    return None;
                }
                lower.parse::<f64>().ok()?
            }
        };
        Some(Number::Float(if negative { -magnitude } else { magnitude }))
    }

    /// Stores the number as one component of type `ty`, little-endian, appending to `out`.
    pub fn write_le(self, ty: ScalarType, out: &mut Vec<u8>) -> Result<(), NumberError> {
        if ty.is_float() {
            let value = self.as_f64();
            match ty {
                ScalarType::Double => out.extend_from_slice(&value.to_le_bytes()),
                ScalarType::Float => {
                    let rounded = value as f32;
                    check_float_range(self, value, rounded.is_infinite(), ty)?;
                    out.extend_from_slice(&rounded.to_le_bytes());
                }
                _ => {
                    let rounded = f64_to_half_bits(value);
                    check_float_range(self, value, rounded & 0x7fff == 0x7c00, ty)?;
                    out.extend_from_slice(&rounded.to_le_bytes());
                }
            }
            return Ok(());
        }
        let integer = self.to_exact_int(ty)?;
        let (lo, hi) = ty.int_range().unwrap_or((0, 0));
        if integer < lo || integer > hi {
            return Err(NumberError::OutOfRange { value: self.to_string(), ty, lo, hi });
        }
        let size = ty.size() as usize;
        // Two's complement little-endian: the low bytes of the i128 are the value's bytes.
        out.extend_from_slice(&integer.to_le_bytes()[..size]);
        Ok(())
    }

    fn to_exact_int(self, ty: ScalarType) -> Result<i128, NumberError> {
        match self {
            Number::Int(i) => Ok(i),
            Number::Float(f) => {
                if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e38 {
                    Ok(f as i128)
                } else {
                    Err(NumberError::NotInteger { value: self.to_string(), ty })
                }
            }
        }
    }

    /// Reads one component of type `ty` from little-endian bytes (`bytes.len()` must be the
    /// type's size; otherwise `None`).
    pub fn read_le(ty: ScalarType, bytes: &[u8]) -> Option<Number> {
        let n = match ty {
            ScalarType::Char => Number::Int(i8::from_le_bytes(bytes.try_into().ok()?).into()),
            ScalarType::UChar => Number::Int(u8::from_le_bytes(bytes.try_into().ok()?).into()),
            ScalarType::Short => Number::Int(i16::from_le_bytes(bytes.try_into().ok()?).into()),
            ScalarType::UShort => Number::Int(u16::from_le_bytes(bytes.try_into().ok()?).into()),
            ScalarType::Int => Number::Int(i32::from_le_bytes(bytes.try_into().ok()?).into()),
            ScalarType::UInt => Number::Int(u32::from_le_bytes(bytes.try_into().ok()?).into()),
            ScalarType::Long => Number::Int(i64::from_le_bytes(bytes.try_into().ok()?).into()),
            ScalarType::ULong => Number::Int(u64::from_le_bytes(bytes.try_into().ok()?).into()),
            ScalarType::Half => {
                Number::Float(half_bits_to_f64(u16::from_le_bytes(bytes.try_into().ok()?)))
            }
            ScalarType::Float => Number::Float(f32::from_le_bytes(bytes.try_into().ok()?).into()),
            ScalarType::Double => Number::Float(f64::from_le_bytes(bytes.try_into().ok()?)),
        };
        Some(n)
    }
}

fn parse_hex_digits(hex: &str) -> Option<i128> {
    if hex.is_empty() || hex.len() > 32 {
        return None;
    }
    u128::from_str_radix(hex, 16).ok().and_then(|v| i128::try_from(v).ok())
}

/// Infinity and NaN are legitimate inputs; only a finite value that rounds to an infinity of
/// the type is a typo. A value just above the largest finite one that rounds down to it is
/// that value: `3.4028235e38`, the shortest form of `FLT_MAX`, reads back as `FLT_MAX`.
fn check_float_range(
    n: Number,
    value: f64,
    rounds_to_infinity: bool,
    ty: ScalarType,
) -> Result<(), NumberError> {
    if value.is_finite() && rounds_to_infinity {
        return Err(NumberError::FloatOverflow { value: n.to_string(), ty });
    }
    Ok(())
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) => write!(f, "{x:?}"),
        }
    }
}

/// Largest finite IEEE binary16 value.
pub const HALF_MAX: f64 = 65504.0;

/// Converts to IEEE binary16 with round-to-nearest-even, directly from `f64` so the result
/// is never rounded twice.
pub fn f64_to_half_bits(value: f64) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let mantissa = bits & 0x000f_ffff_ffff_ffff;
    if exponent == 0x7ff {
        // Keep NaNs quiet and non-zero.
        return sign | 0x7c00 | if mantissa != 0 { 0x0200 } else { 0 };
    }
    let unbiased = exponent - 1023;
    if unbiased > 15 {
        return sign | 0x7c00;
    }
    // Full significand with the implicit bit, 53 bits.
    let significand = if exponent == 0 { mantissa } else { mantissa | (1u64 << 52) };
    // The half value is significand * 2^(unbiased - 52); in half units of 2^-24 that is a shift.
    // Normal halves keep 11 bits, subnormals fewer: both fall out of shifting to units of 2^-24
    // (subnormal spacing) and, for normals, of 2^(unbiased-10).
    let half_unit_exp = if unbiased < -14 { -24 } else { unbiased - 10 };
    let shift = (half_unit_exp - (unbiased - 52)) as u32;
    if shift >= 64 {
        return sign;
    }
    let kept = significand >> shift;
    let remainder = significand & ((1u64 << shift) - 1);
    let halfway = 1u64 << (shift - 1);
    let rounded = if remainder > halfway || (remainder == halfway && kept & 1 == 1) {
        kept + 1
    } else {
        kept
    };
    if unbiased < -14 {
        // Subnormal (rounding may carry into the smallest normal, which the bit pattern handles).
        return sign | rounded as u16;
    }
    let biased = (unbiased + 15) as u64;
    // `rounded` has 11 bits (or 12 after a carry); adding the exponent field handles the carry.
    let pattern = (biased << 10) + (rounded - (1 << 10));
    if pattern >= 0x7c00 {
        return sign | 0x7c00;
    }
    sign | pattern as u16
}

/// Converts IEEE binary16 bits to `f64` (exact).
pub fn half_bits_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f64::from(bits & 0x3ff);
    let magnitude = match exponent {
        0 => mantissa * 2f64.powi(-24),
        0x1f if mantissa == 0.0 => f64::INFINITY,
        0x1f => f64::NAN,
        _ => (1.0 + mantissa / 1024.0) * 2f64.powi(exponent - 15),
    };
    sign * magnitude
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: Number, ty: ScalarType) -> Result<Vec<u8>, NumberError> {
        let mut out = Vec::new();
        n.write_le(ty, &mut out).map(|_| out)
    }

    #[test]
    fn parses_numbers() {
        assert_eq!(Number::parse("42"), Some(Number::Int(42)));
        assert_eq!(Number::parse("-0x10"), Some(Number::Int(-16)));
        assert_eq!(Number::parse("18446744073709551615"), Some(Number::Int(u64::MAX as i128)));
        assert_eq!(Number::parse("1.5e3"), Some(Number::Float(1500.0)));
        assert_eq!(Number::parse("-inf"), Some(Number::Float(f64::NEG_INFINITY)));
        assert!(matches!(Number::parse("nan"), Some(Number::Float(x)) if x.is_nan()));
        for bad in ["", "-", "--1", "1x", "e5", ".", "0x", "1.2.3", "abc"] {
            assert_eq!(Number::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn integer_range_checks() {
        assert_eq!(bytes(Number::Int(255), ScalarType::UChar), Ok(vec![255]));
        assert!(matches!(
            bytes(Number::Int(300), ScalarType::UChar),
            Err(NumberError::OutOfRange { .. })
        ));
        assert_eq!(bytes(Number::Int(-1), ScalarType::Short), Ok(vec![0xff, 0xff]));
        assert!(bytes(Number::Int(-1), ScalarType::UInt).is_err());
        assert_eq!(bytes(Number::Float(3.0), ScalarType::Int), Ok(vec![3, 0, 0, 0]));
        assert!(matches!(
            bytes(Number::Float(3.5), ScalarType::Int),
            Err(NumberError::NotInteger { .. })
        ));
        assert_eq!(bytes(Number::Int(u64::MAX as i128), ScalarType::ULong), Ok(vec![0xff; 8]));
    }

    #[test]
    fn float_conversions() {
        assert_eq!(bytes(Number::Float(1.0), ScalarType::Float), Ok(1.0f32.to_le_bytes().to_vec()));
        assert_eq!(bytes(Number::Int(2), ScalarType::Double), Ok(2.0f64.to_le_bytes().to_vec()));
        assert!(bytes(Number::Float(1e39), ScalarType::Float).is_err());
        assert!(bytes(Number::Float(f64::INFINITY), ScalarType::Float).is_ok());
        assert!(bytes(Number::Float(70000.0), ScalarType::Half).is_err());
    }

    #[test]
    fn values_that_round_to_the_largest_finite_value_are_accepted() {
        // The shortest decimal forms of FLT_MAX and -FLT_MAX lie just outside them.
        let max = Number::parse("3.4028235e38").unwrap();
        assert_eq!(bytes(max, ScalarType::Float), Ok(f32::MAX.to_le_bytes().to_vec()));
        let min = Number::parse("-3.4028235e38").unwrap();
        assert_eq!(bytes(min, ScalarType::Float), Ok(f32::MIN.to_le_bytes().to_vec()));
        // Half a unit in the last place above FLT_MAX rounds to infinity (ties to even).
        let halfway = f64::from(f32::MAX) + 2f64.powi(103);
        assert!(bytes(Number::Float(halfway), ScalarType::Float).is_err());
        assert!(bytes(Number::Float(halfway - 2f64.powi(76)), ScalarType::Float).is_ok());
        // Half: 65519.99 rounds to 65504, 65520 to infinity.
        assert_eq!(bytes(Number::Float(65519.99), ScalarType::Half), Ok(vec![0xff, 0x7b]));
        assert!(bytes(Number::Float(-65520.0), ScalarType::Half).is_err());
    }

    #[test]
    fn half_known_values() {
        assert_eq!(f64_to_half_bits(1.0), 0x3c00);
        assert_eq!(f64_to_half_bits(-2.0), 0xc000);
        assert_eq!(f64_to_half_bits(65504.0), 0x7bff);
        assert_eq!(f64_to_half_bits(65520.0), 0x7c00); // rounds up to infinity
        assert_eq!(f64_to_half_bits(0.0), 0x0000);
        assert_eq!(f64_to_half_bits(-0.0), 0x8000);
        assert_eq!(f64_to_half_bits(5.960464477539063e-8), 0x0001); // smallest subnormal
        assert_eq!(f64_to_half_bits(6.103515625e-5), 0x0400); // smallest normal
        assert_eq!(f64_to_half_bits(1.0 / 3.0), 0x3555);
        assert_eq!(f64_to_half_bits(1.0 + 1.0 / 2048.0), 0x3c00); // tie to even
        assert_eq!(f64_to_half_bits(1.0 + 3.0 / 2048.0), 0x3c02); // tie to even, up
        assert_eq!(f64_to_half_bits(f64::INFINITY), 0x7c00);
        assert_eq!(f64_to_half_bits(1e-10), 0x0000);
        assert!(half_bits_to_f64(f64_to_half_bits(f64::NAN)).is_nan());
    }

    #[test]
    fn half_round_trips_every_finite_pattern() {
        for bits in 0u16..=0xffff {
            let exponent = (bits >> 10) & 0x1f;
            if exponent == 0x1f {
                continue;
            }
            assert_eq!(f64_to_half_bits(half_bits_to_f64(bits)), bits, "{bits:#x}");
        }
    }

    #[test]
    fn reads_back_what_it_writes() {
        for ty in ScalarType::ALL {
            let out = bytes(Number::Int(7), ty).expect("7 fits every type");
            assert_eq!(Number::read_le(ty, &out).map(|n| n.as_f64()), Some(7.0), "{ty}");
        }
        assert_eq!(Number::read_le(ScalarType::Int, &[1, 2]), None);
    }
}
