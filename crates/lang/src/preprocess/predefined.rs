//! The macros every OpenCL C 1.2 program sees before its first line: language version,
//! extensions, and the limits and constants of OpenCL C 1.2 §6.12.2 and §6.12.3. They are
//! written as source text (the `<built-in>` file) so that they get real spans like any macro.

use super::options::{BuildOptions, MacroOption};
use std::fmt::Write as _;

/// Limits, floating-point properties and math constants (§6.12.2, §6.12.3), in literal forms a
/// C compiler accepts. Infinities and NaN are written as divisions that sema folds.
const CONSTANTS: &str = "\
#define CHAR_BIT 8
#define SCHAR_MAX 127
#define SCHAR_MIN (-127 - 1)
#define CHAR_MAX SCHAR_MAX
#define CHAR_MIN SCHAR_MIN
#define UCHAR_MAX 255
#define SHRT_MAX 32767
#define SHRT_MIN (-32767 - 1)
#define USHRT_MAX 65535
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 0xffffffffU
#define LONG_MAX 0x7fffffffffffffffL
#define LONG_MIN (-0x7fffffffffffffffL - 1)
#define ULONG_MAX 0xffffffffffffffffUL
#define FLT_DIG 6
#define FLT_MANT_DIG 24
#define FLT_MAX_10_EXP +38
#define FLT_MAX_EXP +128
#define FLT_MIN_10_EXP -37
#define FLT_MIN_EXP -125
#define FLT_RADIX 2
#define FLT_MAX 0x1.fffffep127f
#define FLT_MIN 0x1.0p-126f
#define FLT_EPSILON 0x1.0p-23f
#define DBL_DIG 15
#define DBL_MANT_DIG 53
#define DBL_MAX_10_EXP +308
#define DBL_MAX_EXP +1024
#define DBL_MIN_10_EXP -307
#define DBL_MIN_EXP -1021
#define DBL_MAX 0x1.fffffffffffffp1023
#define DBL_MIN 0x1.0p-1022
#define DBL_EPSILON 0x1.0p-52
#define M_E_F 2.71828182845904523536028747135266250f
#define M_LOG2E_F 1.44269504088896340735992468100189214f
#define M_LOG10E_F 0.434294481903251827651128918916605082f
#define M_LN2_F 0.693147180559945309417232121458176568f
#define M_LN10_F 2.30258509299404568401799145468436421f
#define M_PI_F 3.14159265358979323846264338327950288f
#define M_PI_2_F 1.57079632679489661923132169163975144f
#define M_PI_4_F 0.785398163397448309615660845819875721f
#define M_1_PI_F 0.318309886183790671537767526745028724f
#define M_2_PI_F 0.636619772367581343075535053490057448f
#define M_2_SQRTPI_F 1.12837916709551257389615890312154517f
#define M_SQRT2_F 1.41421356237309504880168872420969808f
#define M_SQRT1_2_F 0.707106781186547524400844362104849039f
#define M_E 2.71828182845904523536028747135266250
#define M_LOG2E 1.44269504088896340735992468100189214
#define M_LOG10E 0.434294481903251827651128918916605082
#define M_LN2 0.693147180559945309417232121458176568
#define M_LN10 2.30258509299404568401799145468436421
#define M_PI 3.14159265358979323846264338327950288
#define M_PI_2 1.57079632679489661923132169163975144
#define M_PI_4 0.785398163397448309615660845819875721
#define M_1_PI 0.318309886183790671537767526745028724
#define M_2_PI 0.636619772367581343075535053490057448
#define M_2_SQRTPI 1.12837916709551257389615890312154517
#define M_SQRT2 1.41421356237309504880168872420969808
#define M_SQRT1_2 0.707106781186547524400844362104849039
#define MAXFLOAT 0x1.fffffep127f
#define HUGE_VALF (1.0f / 0.0f)
#define INFINITY (1.0f / 0.0f)
#define NAN (0.0f / 0.0f)
#define HUGE_VAL (1.0 / 0.0)
#define FP_ILOGB0 (-2147483647 - 1)
#define FP_ILOGBNAN 2147483647
";

/// Extensions OpenCL C 1.2 devices commonly report; each is defined to 1.
const EXTENSIONS: &[&str] = &[
    "cl_khr_fp64",
    "cl_khr_byte_addressable_store",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_fp16",
];

/// The text of the `<built-in>` file for these options (`__FILE__` and `__LINE__` are not in
/// it: the preprocessor computes them at each use).
pub fn prelude(options: &BuildOptions) -> String {
    let version = options.std().version();
    let mut text = String::with_capacity(4096);
    let _ = writeln!(text, "#define __OPENCL_VERSION__ {version}");
    let _ = writeln!(text, "#define __OPENCL_C_VERSION__ {version}");
    for (name, value) in [
        ("CL_VERSION_1_0", 100),
        ("CL_VERSION_1_1", 110),
        ("CL_VERSION_1_2", 120),
        ("CL_VERSION_2_0", 200),
        ("CL_VERSION_3_0", 300),
    ] {
        // 1.x versions are always there (programs compare against them); later ones only when
        // the selected language has them.
        if value <= 120 || value <= version {
            let _ = writeln!(text, "#define {name} {value}");
        }
    }
    text.push_str(
        "#define __ENDIAN_LITTLE__ 1\n#define __STDC__ 1\n#define __STDC_VERSION__ 199901L\n",
    );
    text.push_str(
        "#define __kernel_exec(X, typen) __kernel __attribute__((work_group_size_hint(X, 1, 1))) __attribute__((vec_type_hint(typen)))\n",
    );
    text.push_str(
        "#define kernel_exec(X, typen) __kernel __attribute__((work_group_size_hint(X, 1, 1))) __attribute__((vec_type_hint(typen)))\n",
    );
    if options.fast_relaxed_math() {
        text.push_str("#define __FAST_RELAXED_MATH__ 1\n");
    }
    for ext in EXTENSIONS {
        let _ = writeln!(text, "#define {ext} 1");
    }
    text.push_str(CONSTANTS);
    text
}

/// The text of the `<command line>` file: `-D` and `-U` as directives, in order.
pub fn command_line(options: &BuildOptions) -> String {
    let mut text = String::new();
    for m in &options.macros {
        match m {
            MacroOption::Define { name, value } => {
                // A value cannot continue the directive onto another line.
                let value = value.as_deref().unwrap_or("1").replace(['\n', '\r'], " ");
                let _ = writeln!(text, "#define {name} {value}");
            }
            MacroOption::Undefine(name) => {
                let _ = writeln!(text, "#undef {name}");
            }
        }
    }
    text
}
