//! Double-precision helpers for the math built-ins that Rust's standard library lacks.
//! Results are computed in `f64` and rounded to the argument type by the caller, which keeps
//! `float` results well within OpenCL C 1.2's ULP limits.

use std::f64::consts::PI;

/// Error function: power series near zero, continued fraction of `erfc` in the tails.
pub(crate) fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() < 3.0 {
        // erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let mut term = x;
        let mut sum = x;
        let x2 = x * x;
        let mut n = 0.0;
        while n < 200.0 {
            n += 1.0;
            term *= -x2 / n;
            let add = term / (2.0 * n + 1.0);
            sum += add;
            if add.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        sum * 2.0 / PI.sqrt()
    } else {
        let c = erfc_tail(x.abs());
        if x > 0.0 {
            1.0 - c
        } else {
            c - 1.0
        }
    }
}

pub(crate) fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x >= 3.0 {
        erfc_tail(x)
    } else if x <= -3.0 {
        2.0 - erfc_tail(-x)
    } else if x < 0.5 {
        1.0 - erf(x)
    } else {
        // Moderate x: the series loses digits to cancellation in 1 - erf; integrate the
        // continued fraction from a larger argument is not needed below 3, but use the
        // relation with more terms of the fraction for accuracy.
        erfc_cf(x, 400)
    }
}

/// erfc(x) for x >= 3 by Lentz's continued fraction.
fn erfc_tail(x: f64) -> f64 {
    erfc_cf(x, 200)
}

/// erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...))))
fn erfc_cf(x: f64, terms: u32) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    let mut f = 0.0;
    for k in (1..=terms).rev() {
        f = (f64::from(k) / 2.0) / (x + f);
    }
    (-x * x).exp() / PI.sqrt() / (x + f)
}

/// ln|Γ(x)| and the sign of Γ(x) (Lanczos approximation, reflection for x < 0.5).
pub(crate) fn lgamma_sign(x: f64) -> (f64, i32) {
    if x.is_nan() {
        return (x, 1);
    }
    if x.is_infinite() {
        return (f64::INFINITY, 1);
    }
    if x <= 0.0 && x == x.floor() {
        return (f64::INFINITY, 1);
    }
    if x < 0.5 {
        let s = (PI * x).sin();
        let (lg, _) = lgamma_sign(1.0 - x);
        let sign = if s < 0.0 { -1 } else { 1 };
        return ((PI / s.abs()).ln() - lg, sign);
    }
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    (0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + a.ln(), 1)
}

pub(crate) fn tgamma(x: f64) -> f64 {
    if x <= 0.0 && x == x.floor() {
        return f64::NAN;
    }
    let (lg, sign) = lgamma_sign(x);
    f64::from(sign) * lg.exp()
}

/// sin(πx) with exact zeros at integers.
pub(crate) fn sinpi(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    let r = x % 2.0;
    if r == r.trunc() {
        return 0.0f64.copysign(x);
    }
    (PI * r).sin()
}

pub(crate) fn cospi(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    let r = (x % 2.0).abs();
    if r == 0.5 || r == 1.5 {
        return 0.0;
    }
    (PI * r).cos()
}

pub(crate) fn tanpi(x: f64) -> f64 {
    sinpi(x) / cospi(x)
}

/// C's `remainder` and `remquo`: x - n*y with n the exact quotient x/y rounded to the nearest
/// integer (ties to even), and the low seven bits of n with the sign of x/y, which is all
/// OpenCL promises of `remquo`'s quotient. Exact for any ratio: the remainder comes from the
/// exact `fmod`, not from a rounded quotient, and n's low bits from `fmod` by 128 y.
pub(crate) fn remquo(x: f64, y: f64) -> (f64, i64) {
    if y == 0.0 || x.is_infinite() || x.is_nan() || y.is_nan() {
        return (f64::NAN, 0);
    }
    let (ax, ay) = (x.abs(), y.abs());
    // |x| = q |y| + r with 0 <= r < |y|, exactly; q mod 128 from |x| mod 128 |y| (when 128 |y|
    // overflows, q itself is below 128).
    let r = ax % ay;
    let wide = 128.0 * ay;
    let below = if wide.is_finite() { ax % wide } else { ax };
    let mut low = ((below - r) / ay).round() as i64;
    // Round the quotient to the nearest integer, ties to even.
    let rest = ay - r;
    let mut rem = r;
    if r > rest || (r == rest && low % 2 == 1) {
        rem = -rest;
        low += 1;
    }
    let rem = if x.is_sign_negative() { -rem } else { rem };
    let sign = if (x < 0.0) != (y < 0.0) { -1 } else { 1 };
    (rem, sign * (low & 0x7f))
}

/// `fract`'s result for `x` whose floor is `floor`: x - floor(x), kept below 1 (the largest
/// value under 1 of the type), with OpenCL's edge cases: a NaN stays NaN, an infinity gives a
/// zero of its sign, a zero keeps its sign.
pub(crate) fn fract(x: f64, floor: f64, is_double: bool) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() || x == 0.0 {
        return 0.0f64.copysign(x);
    }
    let below_one =
        if is_double { 1.0 - f64::EPSILON / 2.0 } else { f64::from(1.0f32 - f32::EPSILON / 2.0) };
    (x - floor).min(below_one)
}

/// `frexp`: mantissa in [0.5, 1) and exponent.
pub(crate) fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || x.is_nan() || x.is_infinite() {
        return (x, 0);
    }
    let mut e = x.abs().log2().floor() as i32 + 1;
    let mut m = x / 2f64.powi(e);
    // Correct rounding of log2 near powers of two.
    if m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    } else if m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    (m, e)
}

pub(crate) fn ilogb(x: f64) -> i32 {
    if x == 0.0 {
        return i32::MIN;
    }
    if x.is_nan() || x.is_infinite() {
        return i32::MAX;
    }
    frexp(x).1 - 1
}

pub(crate) fn next_after_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return f32::NAN;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f32::from_bits(1).copysign(y);
    }
    let bits = x.to_bits();
    let up = (y > x) == (x > 0.0);
    f32::from_bits(if up { bits + 1 } else { bits - 1 })
}

pub(crate) fn next_after_f64(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f64::from_bits(1).copysign(y);
    }
    let bits = x.to_bits();
    let up = (y > x) == (x > 0.0);
    f64::from_bits(if up { bits + 1 } else { bits - 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_functions_match_known_values() {
        assert!((erf(0.5) - 0.520_499_877_813_046_5).abs() < 1e-15);
        assert!((erf(-2.0) + 0.995_322_265_018_952_7).abs() < 1e-15);
        assert!((erfc(4.0) - 1.541_725_790_028_002e-8).abs() < 1e-20);
        assert!((erfc(1.0) - 0.157_299_207_050_285_13).abs() < 1e-15);
        assert!((tgamma(5.0) - 24.0).abs() < 1e-12);
        assert!((tgamma(0.5) - PI.sqrt()).abs() < 1e-14);
        assert!((lgamma_sign(-0.5).0 - (2.0 * PI.sqrt()).ln()).abs() < 1e-13);
        assert_eq!(lgamma_sign(-0.5).1, -1);
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(ilogb(1.0), 0);
        assert_eq!(remquo(5.0, 2.0), (1.0, 2));
        assert_eq!(sinpi(1.0), 0.0);
        assert_eq!(next_after_f32(1.0, 2.0), 1.000_000_1);
    }

    #[test]
    fn fract_edge_cases() {
        assert!(fract(f64::NAN, f64::NAN, false).is_nan());
        assert_eq!(fract(f64::INFINITY, f64::INFINITY, false).to_bits(), 0.0f64.to_bits());
        let minus_inf = fract(f64::NEG_INFINITY, f64::NEG_INFINITY, false);
        assert_eq!(minus_inf.to_bits(), (-0.0f64).to_bits());
        assert_eq!(fract(-0.0, -0.0, false).to_bits(), (-0.0f64).to_bits());
        assert_eq!(fract(-1.25, -2.0, false), 0.75);
        // Just below an integer, x - floor(x) would round to 1 in float: the result stays below.
        let x = -1e-9f64;
        assert_eq!(fract(x, -1.0, false), f64::from(0.999_999_94f32));
    }

    /// Signs and ties of the remainder, and exactness for ratios far beyond what a rounded
    /// quotient holds (a quotient above 2^63 used to overflow a negation): the remainder is
    /// exact and the quotient's low seven bits are right.
    #[test]
    fn remquo_is_exact_for_any_ratio() {
        assert_eq!(remquo(-7.0, 2.0), (1.0, -4)); // -3.5 rounds to -4: ties to even
        assert_eq!(remquo(7.0, -2.0), (-1.0, -4));
        assert_eq!(remquo(3.0, 2.0), (-1.0, 2));
        assert_eq!(remquo(-0.0, 2.0).0.to_bits(), (-0.0f64).to_bits());
        // FLT_MAX is an even multiple of 2^7 of the smallest subnormal.
        assert_eq!(remquo(f64::from(f32::MAX), f64::from(1e-45f32)), (0.0, 0));
        // -3e38 as a float is -(7 k + 1) with k mod 128 = 73: remainder -1, quotient -73.
        let x = f64::from(-3.0e38f32);
        assert_eq!(x, -300_000_000_549_775_575_777_803_994_281_145_270_272.0);
        assert_eq!(remquo(x, 7.0), (-1.0, -73));
        // Doubles too: 1e308 / 1e-308 rounds to n with n mod 128 = 56.
        assert_eq!(remquo(1e308, 1e-308), (3.498_445_546_245_627e-309, 56));
        assert_eq!(remquo(f64::MAX, f64::MAX / 3.0).1.abs(), 3);
    }
}
