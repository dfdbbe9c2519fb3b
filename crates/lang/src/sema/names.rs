//! Identifiers every OpenCL C program may use without declaring them: the fence flags of
//! `barrier`, the sampler flags and image format constants of §6.12.14, and the limits of
//! `<float.h>`/`<limits.h>` that OpenCL C 1.2 §6.12.2 and §6.12.3 make part of the language.

use super::scope::Symbol;
use super::Checker;
use crate::ir::{Literal, Scalar};
use crate::span::Span;

pub(super) fn define_predefined(checker: &mut Checker) {
    let ints: &[(&str, Scalar, i128)] = &[
        ("CLK_LOCAL_MEM_FENCE", Scalar::UInt, 1),
        ("CLK_GLOBAL_MEM_FENCE", Scalar::UInt, 2),
        // clang's header spells it `((void*)0)`; a literal 0 is the same null pointer constant
        // wherever a pointer is expected (the preprocessor's definition wins when it has one).
        ("NULL", Scalar::Int, 0),
        ("CHAR_BIT", Scalar::Int, 8),
        ("CHAR_MAX", Scalar::Int, 127),
        ("CHAR_MIN", Scalar::Int, -128),
        ("SCHAR_MAX", Scalar::Int, 127),
        ("SCHAR_MIN", Scalar::Int, -128),
        ("UCHAR_MAX", Scalar::Int, 255),
        ("SHRT_MAX", Scalar::Int, 32767),
        ("SHRT_MIN", Scalar::Int, -32768),
        ("USHRT_MAX", Scalar::Int, 65535),
        ("INT_MAX", Scalar::Int, i32::MAX as i128),
        ("INT_MIN", Scalar::Int, i32::MIN as i128),
        ("UINT_MAX", Scalar::UInt, u32::MAX as i128),
        ("LONG_MAX", Scalar::Long, i64::MAX as i128),
        ("LONG_MIN", Scalar::Long, i64::MIN as i128),
        ("ULONG_MAX", Scalar::ULong, u64::MAX as i128),
        ("FLT_DIG", Scalar::Int, 6),
        ("FLT_MANT_DIG", Scalar::Int, 24),
        ("FLT_MAX_10_EXP", Scalar::Int, 38),
        ("FLT_MAX_EXP", Scalar::Int, 128),
        ("FLT_MIN_10_EXP", Scalar::Int, -37),
        ("FLT_MIN_EXP", Scalar::Int, -125),
        ("FLT_RADIX", Scalar::Int, 2),
    ];
    // §6.12.14: sampler flags, and the channel orders and data types the image queries
    // return, numbered as the host's `CL_*` constants.
    let image_constants: &[(&str, i128)] = &[
        ("CLK_NORMALIZED_COORDS_FALSE", 0),
        ("CLK_NORMALIZED_COORDS_TRUE", 1),
        ("CLK_ADDRESS_NONE", 0),
        ("CLK_ADDRESS_CLAMP_TO_EDGE", 2),
        ("CLK_ADDRESS_CLAMP", 4),
        ("CLK_ADDRESS_REPEAT", 6),
        ("CLK_ADDRESS_MIRRORED_REPEAT", 8),
        ("CLK_FILTER_NEAREST", 0x10),
        ("CLK_FILTER_LINEAR", 0x20),
        ("CLK_R", 0x10B0),
        ("CLK_A", 0x10B1),
        ("CLK_RG", 0x10B2),
        ("CLK_RA", 0x10B3),
        ("CLK_RGB", 0x10B4),
        ("CLK_RGBA", 0x10B5),
        ("CLK_BGRA", 0x10B6),
        ("CLK_ARGB", 0x10B7),
        ("CLK_INTENSITY", 0x10B8),
        ("CLK_LUMINANCE", 0x10B9),
        ("CLK_Rx", 0x10BA),
        ("CLK_RGx", 0x10BB),
        ("CLK_RGBx", 0x10BC),
        ("CLK_SNORM_INT8", 0x10D0),
        ("CLK_SNORM_INT16", 0x10D1),
        ("CLK_UNORM_INT8", 0x10D2),
        ("CLK_UNORM_INT16", 0x10D3),
        ("CLK_UNORM_SHORT_565", 0x10D4),
        ("CLK_UNORM_SHORT_555", 0x10D5),
        ("CLK_UNORM_INT_101010", 0x10D6),
        ("CLK_SIGNED_INT8", 0x10D7),
        ("CLK_SIGNED_INT16", 0x10D8),
        ("CLK_SIGNED_INT32", 0x10D9),
        ("CLK_UNSIGNED_INT8", 0x10DA),
        ("CLK_UNSIGNED_INT16", 0x10DB),
        ("CLK_UNSIGNED_INT32", 0x10DC),
        ("CLK_HALF_FLOAT", 0x10DD),
        ("CLK_FLOAT", 0x10DE),
    ];
    for &(name, value) in image_constants {
        let symbol =
            Symbol::Constant { value: Literal::int(Scalar::Int, value), span: Span::UNDEFINED };
        checker.scopes.insert_predefined(name, symbol);
    }
    for &(name, scalar, value) in ints {
        let symbol = Symbol::Constant { value: Literal::int(scalar, value), span: Span::UNDEFINED };
        checker.scopes.insert_predefined(name, symbol);
    }
    // OpenCL C makes `true` and `false` keywords of type `bool`, as clang does.
    for (name, value) in [("true", true), ("false", false)] {
        let symbol = Symbol::Constant { value: Literal::Bool(value), span: Span::UNDEFINED };
        checker.scopes.insert_predefined(name, symbol);
    }
    let floats: &[(&str, Scalar, f64)] = &[
        ("FLT_MAX", Scalar::Float, f32::MAX as f64),
        ("FLT_MIN", Scalar::Float, f32::MIN_POSITIVE as f64),
        ("FLT_EPSILON", Scalar::Float, f32::EPSILON as f64),
        ("MAXFLOAT", Scalar::Float, f32::MAX as f64),
        ("HUGE_VALF", Scalar::Float, f64::INFINITY),
        ("INFINITY", Scalar::Float, f64::INFINITY),
        ("NAN", Scalar::Float, f64::NAN),
        ("HUGE_VAL", Scalar::Double, f64::INFINITY),
        ("DBL_MAX", Scalar::Double, f64::MAX),
        ("DBL_MIN", Scalar::Double, f64::MIN_POSITIVE),
        ("DBL_EPSILON", Scalar::Double, f64::EPSILON),
        ("M_E_F", Scalar::Float, std::f32::consts::E as f64),
        ("M_LOG2E_F", Scalar::Float, std::f32::consts::LOG2_E as f64),
        ("M_LOG10E_F", Scalar::Float, std::f32::consts::LOG10_E as f64),
        ("M_LN2_F", Scalar::Float, std::f32::consts::LN_2 as f64),
        ("M_LN10_F", Scalar::Float, std::f32::consts::LN_10 as f64),
        ("M_PI_F", Scalar::Float, std::f32::consts::PI as f64),
        ("M_PI_2_F", Scalar::Float, std::f32::consts::FRAC_PI_2 as f64),
        ("M_PI_4_F", Scalar::Float, std::f32::consts::FRAC_PI_4 as f64),
        ("M_1_PI_F", Scalar::Float, std::f32::consts::FRAC_1_PI as f64),
        ("M_2_PI_F", Scalar::Float, std::f32::consts::FRAC_2_PI as f64),
        ("M_2_SQRTPI_F", Scalar::Float, std::f32::consts::FRAC_2_SQRT_PI as f64),
        ("M_SQRT2_F", Scalar::Float, std::f32::consts::SQRT_2 as f64),
        ("M_SQRT1_2_F", Scalar::Float, std::f32::consts::FRAC_1_SQRT_2 as f64),
        ("M_E", Scalar::Double, std::f64::consts::E),
        ("M_LOG2E", Scalar::Double, std::f64::consts::LOG2_E),
        ("M_LOG10E", Scalar::Double, std::f64::consts::LOG10_E),
        ("M_LN2", Scalar::Double, std::f64::consts::LN_2),
        ("M_LN10", Scalar::Double, std::f64::consts::LN_10),
        ("M_PI", Scalar::Double, std::f64::consts::PI),
        ("M_PI_2", Scalar::Double, std::f64::consts::FRAC_PI_2),
        ("M_PI_4", Scalar::Double, std::f64::consts::FRAC_PI_4),
        ("M_1_PI", Scalar::Double, std::f64::consts::FRAC_1_PI),
        ("M_2_PI", Scalar::Double, std::f64::consts::FRAC_2_PI),
        ("M_2_SQRTPI", Scalar::Double, std::f64::consts::FRAC_2_SQRT_PI),
        ("M_SQRT2", Scalar::Double, std::f64::consts::SQRT_2),
        ("M_SQRT1_2", Scalar::Double, std::f64::consts::FRAC_1_SQRT_2),
    ];
    for &(name, scalar, value) in floats {
        let symbol =
            Symbol::Constant { value: Literal::Float { scalar, value }, span: Span::UNDEFINED };
        checker.scopes.insert_predefined(name, symbol);
    }
}
