//! C's implicit arithmetic conversions (C99 §6.3.1.1 and §6.3.1.8), as facts about scalars.
//!
//! Sema applies them when it makes conversions explicit, the builder when it balances operands,
//! and the printer when it decides which of the IR's conversions C would perform by itself (and
//! may therefore be left out of the text). One definition keeps the three in agreement: if the
//! printer's idea of C's rules differed from sema's, printed code would compute in other types
//! than the IR says.

use crate::ir::{ConversionKind, Scalar};

/// Integer promotion: `bool` and integers of lower rank than `int` become `int`; every other
/// scalar is unchanged.
pub const fn promote(scalar: Scalar) -> Scalar {
    match scalar {
        Scalar::Bool | Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort => Scalar::Int,
        other => other,
    }
}

/// The common type of the usual arithmetic conversions for two scalar operands: the type a
/// binary operator computes in.
pub fn usual_arithmetic_conversion(a: Scalar, b: Scalar) -> Scalar {
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    // Floats rank above every integer, so the higher rank wins both among floats and between
    // a float and an integer; likewise between integers of the same signedness.
    if a.is_float() || b.is_float() || a.is_signed() == b.is_signed() {
        return if a.rank() >= b.rank() { a } else { b };
    }
    let (signed, unsigned) = if a.is_signed() { (a, b) } else { (b, a) };
    if unsigned.rank() >= signed.rank() {
        unsigned
    } else if signed.size() > unsigned.size() {
        signed
    } else {
        signed.to_unsigned()
    }
}

impl ConversionKind {
    /// Whether the conversion was inserted by the compiler rather than written (a C cast or a
    /// `convert_T` call): the printer leaves it out where C performs it anyway.
    pub const fn is_implicit(self) -> bool {
        matches!(self, ConversionKind::Implicit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use Scalar::*;

    const ALL: [Scalar; 12] =
        [Bool, Char, UChar, Short, UShort, Int, UInt, Long, ULong, Half, Float, Double];

    #[test]
    fn small_integers_promote_to_int() {
        for s in [Bool, Char, UChar, Short, UShort] {
            assert_eq!(promote(s), Int);
        }
        for s in [UInt, Long, Float] {
            assert_eq!(promote(s), s);
        }
    }

    #[test]
    fn usual_conversions_follow_c99() {
        assert_eq!(usual_arithmetic_conversion(Char, Short), Int);
        assert_eq!(usual_arithmetic_conversion(Int, UInt), UInt);
        assert_eq!(usual_arithmetic_conversion(UInt, Long), Long);
        assert_eq!(usual_arithmetic_conversion(Long, ULong), ULong);
        assert_eq!(usual_arithmetic_conversion(ULong, Int), ULong);
        assert_eq!(usual_arithmetic_conversion(Int, Float), Float);
        assert_eq!(usual_arithmetic_conversion(Half, Float), Float);
        assert_eq!(usual_arithmetic_conversion(Double, ULong), Double);
        assert_eq!(usual_arithmetic_conversion(UChar, Half), Half);
    }

    #[test]
    fn usual_conversions_are_symmetric_and_never_below_int() {
        for a in ALL {
            for b in ALL {
                let common = usual_arithmetic_conversion(a, b);
                assert_eq!(common, usual_arithmetic_conversion(b, a), "{a:?} {b:?}");
                assert!(common.rank() >= Int.rank(), "{a:?} {b:?}");
                assert!(common.rank() >= promote(a).rank().min(promote(b).rank()));
            }
        }
    }

    #[test]
    fn only_implicit_conversions_are_implicit() {
        assert!(ConversionKind::Implicit.is_implicit());
        assert!(!ConversionKind::Cast.is_implicit());
        assert!(!ConversionKind::Explicit { saturate: false, rounding: None }.is_implicit());
    }
}
