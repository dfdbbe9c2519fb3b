//! How values sit in registers.
//!
//! Every lane of every register component is one `u64`. Signed integers are stored
//! sign-extended, unsigned integers and `bool` zero-extended, `float` as its bit pattern in the
//! low half, `double` as its bit pattern, and `half` as the bit pattern of the `float` holding
//! its value (arithmetic on `half` runs in `float` and rounds back to binary16 after every
//! operation, which is what OpenCL requires of a `half` result).

use clmap_lang::ir::Scalar;

/// A Rust type that a register lane can be read as and written from.
pub(crate) trait Lane: Copy {
    fn from_bits(bits: u64) -> Self;
    fn to_bits(self) -> u64;
}

macro_rules! int_lane {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            #[inline(always)]
            fn from_bits(bits: u64) -> Self { bits as $t }
            #[inline(always)]
            fn to_bits(self) -> u64 { self as i128 as u64 }
        }
    )*};
}
int_lane!(i8, u8, i16, u16, i32, u32, i64, u64);

impl Lane for f32 {
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    #[inline(always)]
    fn to_bits(self) -> u64 {
        u64::from(f32::to_bits(self))
    }
}

impl Lane for f64 {
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    #[inline(always)]
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
}

/// A `half` value held in a `float`; writing it back rounds to binary16.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub(crate) struct Half(pub f32);

impl Lane for Half {
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        Half(f32::from_bits(bits as u32))
    }
    #[inline(always)]
    fn to_bits(self) -> u64 {
        u64::from(round_to_half(self.0).to_bits())
    }
}

/// Rounds a `float` to the nearest binary16 value (ties to even), keeping it a `float`.
pub(crate) fn round_to_half(x: f32) -> f32 {
    f16_bits_to_f32(f32_to_f16_bits(x))
}

/// IEEE binary32 → binary16 with round-to-nearest-even.
pub(crate) fn f32_to_f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        // Infinity stays infinity; NaN keeps a quiet payload bit.
        return sign | 0x7c00 | if mant != 0 { 0x200 | (mant >> 13) as u16 } else { 0 };
    }
    let unbiased = exp - 127;
    if unbiased > 15 {
        return sign | 0x7c00;
    }
    if unbiased >= -14 {
        // Normal half: 10 mantissa bits, round the 13 dropped ones.
        let half_exp = (unbiased + 15) as u32;
        let mut value = (half_exp << 10) | (mant >> 13);
        let rest = mant & 0x1fff;
        if rest > 0x1000 || (rest == 0x1000 && value & 1 == 1) {
            value += 1; // may carry into the exponent, which is the right result
        }
        return sign | value as u16;
    }
    if unbiased < -25 {
        return sign;
    }
    // Subnormal half: shift the full significand right.
    let significand = mant | 0x80_0000;
    let shift = (-14 - unbiased + 13) as u32;
    let mut value = significand >> shift;
    let rest = significand & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    if rest > halfway || (rest == halfway && value & 1 == 1) {
        value += 1;
    }
    sign | value as u16
}

/// IEEE binary16 → binary32 (exact).
pub(crate) fn f16_bits_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let mant = u32::from(h & 0x3ff);
    let bits = if exp == 0 {
        if mant == 0 {
            sign
        } else {
            // Subnormal: value = mant * 2^-24.
            let value = mant as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -value } else { value };
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (mant << 13)
    } else {
        sign | ((exp + 112) << 23) | (mant << 13)
    };
    f32::from_bits(bits)
}

/// Puts raw little-endian memory bits of a scalar into register form.
#[inline(always)]
pub(crate) fn from_memory(scalar: Scalar, raw: u64) -> u64 {
    match scalar {
        Scalar::Char => raw as i8 as i64 as u64,
        Scalar::Short => raw as i16 as i64 as u64,
        Scalar::Int => raw as i32 as i64 as u64,
        Scalar::Half => u64::from(f16_bits_to_f32(raw as u16).to_bits()),
        Scalar::Bool => u64::from(raw as u8 != 0),
        Scalar::UChar => raw & 0xff,
        Scalar::UShort => raw & 0xffff,
        Scalar::UInt | Scalar::Float => raw & 0xffff_ffff,
        Scalar::Long | Scalar::ULong | Scalar::Double => raw,
    }
}

/// The memory bits of a register value (the low `size` bytes are what is stored).
#[inline(always)]
pub(crate) fn to_memory(scalar: Scalar, reg: u64) -> u64 {
    match scalar {
        Scalar::Half => u64::from(f32_to_f16_bits(f32::from_bits(reg as u32))),
        _ => reg,
    }
}

/// Brings arbitrary 64 bits into the canonical register form of `scalar`.
#[inline(always)]
pub(crate) fn normalise(scalar: Scalar, bits: u64) -> u64 {
    match scalar {
        Scalar::Char => bits as i8 as i64 as u64,
        Scalar::Short => bits as i16 as i64 as u64,
        Scalar::Int => bits as i32 as i64 as u64,
        Scalar::Bool => u64::from(bits != 0),
        Scalar::UChar => bits & 0xff,
        Scalar::UShort => bits & 0xffff,
        Scalar::UInt | Scalar::Float | Scalar::Half => bits & 0xffff_ffff,
        Scalar::Long | Scalar::ULong | Scalar::Double => bits,
    }
}

/// The value of a register lane as `f64` (floats) or exact integer as `f64`.
#[inline]
pub(crate) fn to_f64(scalar: Scalar, bits: u64) -> f64 {
    match scalar {
        Scalar::Float | Scalar::Half => f64::from(f32::from_bits(bits as u32)),
        Scalar::Double => f64::from_bits(bits),
        s if s.is_signed() => bits as i64 as f64,
        _ => bits as f64,
    }
}

/// Writes an `f64` result as a register lane of float type `scalar`.
#[inline]
pub(crate) fn from_f64(scalar: Scalar, value: f64) -> u64 {
    match scalar {
        Scalar::Float => (value as f32).to_bits() as u64,
        Scalar::Half => Half(value as f32).to_bits(),
        Scalar::Double => value.to_bits(),
        s if s.is_signed() => normalise(s, value as i64 as u64),
        s => normalise(s, value as u64),
    }
}

/// Runs `$body` with `$T` bound to the Rust type of an arithmetic scalar.
macro_rules! with_scalar_type {
    ($scalar:expr, $T:ident => $body:expr) => {
        match $scalar {
            clmap_lang::ir::Scalar::Bool | clmap_lang::ir::Scalar::UChar => {
                type $T = u8;
                $body
            }
            clmap_lang::ir::Scalar::Char => {
                type $T = i8;
                $body
            }
            clmap_lang::ir::Scalar::Short => {
                type $T = i16;
                $body
            }
            clmap_lang::ir::Scalar::UShort => {
                type $T = u16;
                $body
            }
            clmap_lang::ir::Scalar::Int => {
                type $T = i32;
                $body
            }
            clmap_lang::ir::Scalar::UInt => {
                type $T = u32;
                $body
            }
            clmap_lang::ir::Scalar::Long => {
                type $T = i64;
                $body
            }
            clmap_lang::ir::Scalar::ULong => {
                type $T = u64;
                $body
            }
            clmap_lang::ir::Scalar::Half => {
                type $T = $crate::value::Half;
                $body
            }
            clmap_lang::ir::Scalar::Float => {
                type $T = f32;
                $body
            }
            clmap_lang::ir::Scalar::Double => {
                type $T = f64;
                $body
            }
        }
    };
}
pub(crate) use with_scalar_type;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_round_trip_matches_ieee() {
        assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f32_to_f16_bits(-2.0), 0xc000);
        assert_eq!(f32_to_f16_bits(65504.0), 0x7bff);
        assert_eq!(f32_to_f16_bits(65520.0), 0x7c00);
        assert_eq!(f32_to_f16_bits(5.960_464_5e-8), 0x0001);
        assert_eq!(f16_bits_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(f16_bits_to_f32(0x3555), 0.333_251_95);
        // 1 + 2^-11 is halfway between 1 and the next half: ties to even gives 1.
        assert_eq!(round_to_half(1.0 + 1.0 / 2048.0), 1.0);
        assert_eq!(round_to_half(1.0 + 3.0 / 2048.0), 1.0 + 2.0 / 1024.0);
        assert!(f16_bits_to_f32(f32_to_f16_bits(f32::NAN)).is_nan());
    }

    #[test]
    fn registers_hold_canonical_forms() {
        assert_eq!(from_memory(Scalar::Char, 0xff), u64::MAX);
        assert_eq!(from_memory(Scalar::UChar, 0x1ff), 0xff);
        assert_eq!(normalise(Scalar::Int, 0x1_8000_0000), 0xffff_ffff_8000_0000);
        assert_eq!((-5i32).to_bits(), (-5i64) as u64);
        assert_eq!(<i32 as Lane>::from_bits((-5i64) as u64), -5);
    }
}
