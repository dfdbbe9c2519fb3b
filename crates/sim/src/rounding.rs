//! Conversions to a floating-point type under an explicit OpenCL rounding mode
//! (`convert_float_rtz(int)`, `convert_float_rtp(double)`, `convert_double_rtn(long)`, …).
//!
//! The hardware-style conversion rounds to nearest, ties to even. For a directed mode the
//! nearest value is taken and, when it is not exact, stepped by one unit in the last place
//! toward the requested direction; exactness is decided on exact integers or exact doubles, so
//! there is no double rounding (a 64-bit integer is never rounded to `double` on its way to
//! `float`).

use clmap_lang::ir::{Rounding, Scalar};

/// A value exactly: an integer of up to 64 bits, or a `double` (floats and halves widen to
/// `double` exactly).
#[derive(Clone, Copy, Debug)]
enum Exact {
    Int(i128),
    Real(f64),
}

fn exact(from: Scalar, bits: u64) -> Exact {
    if from.is_float() {
        Exact::Real(crate::value::to_f64(from, bits))
    } else if from.is_signed() {
        Exact::Int(i128::from(bits as i64))
    } else {
        Exact::Int(i128::from(bits))
    }
}

/// How the nearest value compares with the exact one.
fn nearest_vs_exact(nearest: f64, value: Exact) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match value {
        // Integral doubles up to 2^127 convert to i128 exactly; infinities saturate, which
        // still compares on the right side of any 64-bit integer.
        Exact::Int(v) => (nearest as i128).cmp(&v),
        Exact::Real(v) => nearest.partial_cmp(&v).unwrap_or(Ordering::Equal),
    }
}

/// Whether the result must move one step down (`Less`) or up (`Greater`) from the nearest
/// value, given how the nearest compares with the exact value.
fn step(rounding: Rounding, nearest_is: std::cmp::Ordering, negative: bool) -> Option<bool> {
    use std::cmp::Ordering::*;
    let up = match (rounding, nearest_is) {
        (_, Equal) | (Rounding::Rte, _) => return None,
        (Rounding::Rtp, Less) => true,
        (Rounding::Rtp, Greater) => return None,
        (Rounding::Rtn, Greater) => false,
        (Rounding::Rtn, Less) => return None,
        // Toward zero: a nearest value farther from zero than the exact one steps back.
        (Rounding::Rtz, Greater) if !negative => false,
        (Rounding::Rtz, Less) if negative => true,
        (Rounding::Rtz, _) => return None,
    };
    Some(up)
}

/// Converts register bits of `from` to `Float` or `Double` bits under `rounding`; `None`
/// when `to` is not one of those (the caller converts as usual).
pub(crate) fn to_float_rounded(
    from: Scalar,
    to: Scalar,
    bits: u64,
    rounding: Rounding,
) -> Option<u64> {
    let value = exact(from, bits);
    let negative = match value {
        Exact::Int(v) => v < 0,
        Exact::Real(v) => v < 0.0,
    };
    match to {
        Scalar::Float => {
            let nearest: f32 = match value {
                Exact::Int(v) if from.is_signed() => v as i64 as f32,
                Exact::Int(v) => v as u64 as f32,
                Exact::Real(v) => v as f32,
            };
            if nearest.is_nan() {
                return Some(u64::from(nearest.to_bits()));
            }
            let r = match step(rounding, nearest_vs_exact(f64::from(nearest), value), negative) {
                Some(true) => nearest.next_up(),
                Some(false) => nearest.next_down(),
                None => nearest,
            };
            Some(u64::from(r.to_bits()))
        }
        Scalar::Double => {
            let nearest: f64 = match value {
                Exact::Int(v) if from.is_signed() => v as i64 as f64,
                Exact::Int(v) => v as u64 as f64,
                Exact::Real(v) => v,
            };
            let r = match step(rounding, nearest_vs_exact(nearest, value), negative) {
                Some(true) => nearest.next_up(),
                Some(false) => nearest.next_down(),
                None => nearest,
            };
            Some(r.to_bits())
        }
        _ => None,
    }
}

/// Rounds a `float` or `double` value to binary16 bits under `rounding` (`None` = to nearest,
/// ties to even), as `vstore_half_rtz` and its kin store it: directly from the value, never
/// through `float` first, so a `double` is rounded once. Overflow follows the mode: toward zero
/// (or away from the infinity's side) it stops at the largest finite half, 65504.
pub(crate) fn to_half_rounded(value: f64, rounding: Option<Rounding>) -> u16 {
    let nearest = clmap_workload::number::f64_to_half_bits(value);
    let Some(rounding) = rounding else { return nearest };
    if value.is_nan() {
        return nearest;
    }
    let as_value = clmap_workload::number::half_bits_to_f64(nearest);
    let order = nearest_vs_exact(as_value, Exact::Real(value));
    match step(rounding, order, value < 0.0) {
        Some(true) => half_next_up(nearest),
        Some(false) => half_next_down(nearest),
        None => nearest,
    }
}

/// The next binary16 value above `h` (bit patterns: the sign is bit 15).
fn half_next_up(h: u16) -> u16 {
    match h {
        0x0000 | 0x8000 => 0x0001,
        _ if h & 0x8000 == 0 => h + 1,
        _ => h - 1,
    }
}

/// The next binary16 value below `h`.
fn half_next_down(h: u16) -> u16 {
    match h {
        0x0000 | 0x8000 => 0x8001,
        _ if h & 0x8000 == 0 => h - 1,
        _ => h + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_in_every_mode() {
        let modes = [
            None,
            Some(Rounding::Rte),
            Some(Rounding::Rtz),
            Some(Rounding::Rtp),
            Some(Rounding::Rtn),
        ];
        let all = |v: f64| modes.map(|m| to_half_rounded(v, m));
        // Exact values stay as they are in every mode.
        assert_eq!(all(1.5), [0x3e00; 5]);
        assert_eq!(all(-0.0), [0x8000; 5]);
        // 0.49999997 lies between 0.49975586 (0x37ff) and 0.5 (0x3800), nearer 0.5.
        assert_eq!(all(0.499_999_970_198_059_1), [0x3800, 0x3800, 0x37ff, 0x3800, 0x37ff]);
        assert_eq!(all(-0.499_999_970_198_059_1), [0xb800, 0xb800, 0xb7ff, 0xb7ff, 0xb800]);
        // Past the largest half: infinity only away from zero in the mode's direction.
        assert_eq!(all(65535.5), [0x7c00, 0x7c00, 0x7bff, 0x7c00, 0x7bff]);
        assert_eq!(all(-65519.0), [0xfbff, 0xfbff, 0xfbff, 0xfbff, 0xfc00]);
        assert_eq!(all(f64::INFINITY), [0x7c00; 5]);
        // Below the smallest subnormal (2^-24): zero, or the subnormal in the mode's direction.
        assert_eq!(all(1e-10), [0x0000, 0x0000, 0x0000, 0x0001, 0x0000]);
        assert_eq!(all(-1e-10), [0x8000, 0x8000, 0x8000, 0x8000, 0x8001]);
        // A double just above a tie is rounded once, up, not first to the float tie and then
        // to even: 1 + 2^-11 + 2^-40 is nearer 1 + 2^-10 (0x3c01) than 1 (0x3c00).
        assert_eq!(to_half_rounded(1.0 + 2f64.powi(-11) + 2f64.powi(-40), None), 0x3c01);
        assert!(clmap_workload::number::half_bits_to_f64(to_half_rounded(
            f64::NAN,
            Some(Rounding::Rtz)
        ))
        .is_nan());
    }

    fn float(from: Scalar, bits: u64, r: Rounding) -> f32 {
        f32::from_bits(to_float_rounded(from, Scalar::Float, bits, r).expect("float") as u32)
    }

    #[test]
    fn int_to_float_in_every_mode() {
        // 2^24 + 1 lies between the floats 2^24 and 2^24 + 2; the tie goes to the even 2^24.
        let v = (1u64 << 24) + 1;
        let below = 16_777_216.0f32;
        let above = 16_777_218.0f32;
        assert_eq!(float(Scalar::Int, v, Rounding::Rte), below);
        assert_eq!(float(Scalar::Int, v, Rounding::Rtz), below);
        assert_eq!(float(Scalar::Int, v, Rounding::Rtn), below);
        assert_eq!(float(Scalar::Int, v, Rounding::Rtp), above);
        let neg = (-(v as i64)) as u64;
        assert_eq!(float(Scalar::Int, neg, Rounding::Rtz), -below);
        assert_eq!(float(Scalar::Int, neg, Rounding::Rtn), -above);
        assert_eq!(float(Scalar::Int, neg, Rounding::Rtp), -below);
        // 2^24 + 3 rounds to nearest upward: toward zero must step back down.
        let w = (1u64 << 24) + 3;
        assert_eq!(float(Scalar::UInt, w, Rounding::Rte), 16_777_220.0);
        assert_eq!(float(Scalar::UInt, w, Rounding::Rtz), above);
        // Exact values stay.
        assert_eq!(float(Scalar::Int, 12345, Rounding::Rtp), 12345.0);
    }

    #[test]
    fn long_to_float_does_not_round_twice() {
        // 2^60 + 2^36 + 1: via double it would become 2^60 + 2^36 (a tie for float, going to
        // the even 2^60); the exact value is above the tie, so nearest is 2^60 + 2^37.
        let v: u64 = (1 << 60) + (1 << 36) + 1;
        assert_eq!(float(Scalar::ULong, v, Rounding::Rte), ((1u64 << 60) + (1 << 37)) as f32);
        assert_eq!(float(Scalar::ULong, v, Rounding::Rtz), (1u64 << 60) as f32);
        assert_eq!(float(Scalar::Long, u64::MAX, Rounding::Rtp), -1.0);
    }

    #[test]
    fn double_to_float_and_long_to_double() {
        let third = (1.0f64 / 3.0).to_bits();
        let near = 1.0f64 as f32 / 3.0;
        let lo = float(Scalar::Double, third, Rounding::Rtn);
        let hi = float(Scalar::Double, third, Rounding::Rtp);
        assert!(f64::from(lo) < 1.0 / 3.0 && f64::from(hi) > 1.0 / 3.0);
        assert_eq!(lo.next_up(), hi);
        assert!(near == lo || near == hi);
        assert_eq!(float(Scalar::Double, third, Rounding::Rtz), lo);
        // Beyond the float range: toward zero gives the largest float, to nearest infinity.
        let huge = 1e300f64.to_bits();
        assert_eq!(float(Scalar::Double, huge, Rounding::Rtz), f32::MAX);
        assert_eq!(float(Scalar::Double, huge, Rounding::Rte), f32::INFINITY);
        assert!(float(Scalar::Double, f64::NAN.to_bits(), Rounding::Rtz).is_nan());
        let double = |bits: u64, r| {
            f64::from_bits(to_float_rounded(Scalar::Long, Scalar::Double, bits, r).expect("double"))
        };
        let v = (1u64 << 53) + 1;
        assert_eq!(double(v, Rounding::Rtp), ((1u64 << 53) + 2) as f64);
        assert_eq!(double(v, Rounding::Rtn), (1u64 << 53) as f64);
    }
}
