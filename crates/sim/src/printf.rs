//! `printf` with C's conversions and OpenCL's vector conversions (`%v4f`, `%v2hlx`).

use clmap_lang::ir::Scalar;

use crate::exec::GroupExec;
use crate::mask::Mask;
use crate::observer::Observer;
use crate::program::BuiltinCall;
use crate::value::to_f64;

/// A parsed conversion specification.
#[derive(Clone, Debug, Default, PartialEq)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    precision: Option<usize>,
    vector: Option<usize>,
    conv: char,
}

enum Piece {
    Text(String),
    Conv(Spec),
}

fn parse(format: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            text.push(ch);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            text.push('%');
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.peek() {
            match f {
                '-' => spec.minus = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            chars.next();
        }
        let number = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
            let mut n: Option<usize> = None;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d as usize).min(4096));
                chars.next();
            }
            n
        };
        spec.width = number(&mut chars);
        if chars.peek() == Some(&'.') {
            chars.next();
            spec.precision = Some(number(&mut chars).unwrap_or(0));
        }
        if chars.peek() == Some(&'v') {
            chars.next();
            spec.vector = number(&mut chars);
        }
        while let Some(&l) = chars.peek() {
            if matches!(l, 'h' | 'l' | 'L' | 'z' | 't' | 'j') {
                chars.next();
            } else {
                break;
            }
        }
        match chars.next() {
            Some(c) => {
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                spec.conv = c;
                pieces.push(Piece::Conv(spec));
            }
            None => text.push('%'),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    pieces
}

fn pad(spec: &Spec, body: String, numeric: bool) -> String {
    let width = spec.width.unwrap_or(0);
    let len = body.chars().count();
    if len >= width {
        return body;
    }
    let fill = width - len;
    if spec.minus {
        format!("{body}{}", " ".repeat(fill))
    } else if spec.zero && numeric && !body.contains("inf") && !body.contains("nan") {
        let (sign, digits) = match body.chars().next() {
            Some(c @ ('-' | '+' | ' ')) => (c.to_string(), body[1..].to_string()),
            _ => (String::new(), body.clone()),
        };
        let (prefix, rest) = if digits.starts_with("0x") || digits.starts_with("0X") {
            (digits[..2].to_string(), digits[2..].to_string())
        } else {
            (String::new(), digits)
        };
        format!("{sign}{prefix}{}{rest}", "0".repeat(fill))
    } else {
        format!("{}{body}", " ".repeat(fill))
    }
}

fn sign_prefix(spec: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

/// `%e` body of a finite non-negative value.
fn exp_form(v: f64, precision: usize, upper: bool) -> String {
    let s = format!("{:.*e}", precision, v);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    format!("{mant}{e}{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

fn strip_zeros(s: String) -> String {
    if !s.contains('.') {
        return s;
    }
    let (mant, exp) = match s.find(['e', 'E']) {
        Some(i) => (s[..i].to_string(), s[i..].to_string()),
        None => (s.clone(), String::new()),
    };
    let mant = mant.trim_end_matches('0').trim_end_matches('.').to_string();
    format!("{mant}{exp}")
}

fn format_float(spec: &Spec, v: f64) -> String {
    let upper = spec.conv.is_ascii_uppercase();
    let negative = v.is_sign_negative() && !v.is_nan();
    let a = v.abs();
    let body = if v.is_nan() {
        if upper {
            "NAN".to_string()
        } else {
            "nan".to_string()
        }
    } else if v.is_infinite() {
        if upper {
            "INF".to_string()
        } else {
            "inf".to_string()
        }
    } else {
        let p = spec.precision.unwrap_or(6);
        match spec.conv.to_ascii_lowercase() {
            'f' => format!("{:.*}", p, a),
            'e' => exp_form(a, p, upper),
            'g' => {
                let p = if p == 0 { 1 } else { p };
                let exp = if a == 0.0 {
                    0
                } else {
                    let s = format!("{:.*e}", p - 1, a);
                    s.split_once('e').and_then(|(_, e)| e.parse::<i32>().ok()).unwrap_or(0)
                };
                let s = if exp < -4 || exp >= p as i32 {
                    exp_form(a, p - 1, upper)
                } else {
                    format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, a)
                };
                if spec.alt {
                    s
                } else {
                    strip_zeros(s)
                }
            }
            _ => {
                // %a: hexadecimal float.
                let bits = a.to_bits();
                let exp = ((bits >> 52) & 0x7ff) as i64;
                let mant = bits & 0xf_ffff_ffff_ffff;
                let (lead, e) =
                    if exp == 0 { (0, if mant == 0 { 0 } else { -1022 }) } else { (1, exp - 1023) };
                let mut hex = format!("{mant:013x}");
                while hex.ends_with('0') {
                    hex.pop();
                }
                let p = if hex.is_empty() { String::new() } else { format!(".{hex}") };
                let s = format!("0x{lead}{p}p{}{}", if e < 0 { '-' } else { '+' }, e.abs());
                if upper {
                    s.to_uppercase()
                } else {
                    s
                }
            }
        }
    };
    pad(spec, format!("{}{body}", sign_prefix(spec, negative)), true)
}

/// `%g` of `v`: six significant digits, as C's `printf` and C++'s streams write a number by
/// default.
pub(crate) fn format_general(v: f64) -> String {
    format_float(&Spec { conv: 'g', ..Spec::default() }, v)
}

fn format_int(spec: &Spec, value: u64, scalar: Scalar) -> String {
    let signed_value = if scalar.is_signed() { value as i64 as i128 } else { value as i128 };
    let body = match spec.conv {
        'd' | 'i' => {
            let digits = signed_value.unsigned_abs().to_string();
            let digits = match spec.precision {
                Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
                _ => digits,
            };
            format!("{}{digits}", sign_prefix(spec, signed_value < 0))
        }
        conv => {
            let bits = scalar.size() * 8;
            let u = if bits >= 64 { value } else { value & ((1u64 << bits) - 1) };
            let digits = match conv {
                'x' => format!("{u:x}"),
                'X' => format!("{u:X}"),
                'o' => format!("{u:o}"),
                _ => u.to_string(),
            };
            let digits = match spec.precision {
                Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
                _ => digits,
            };
            match conv {
                'x' if spec.alt && u != 0 => format!("0x{digits}"),
                'X' if spec.alt && u != 0 => format!("0X{digits}"),
                'o' if spec.alt && !digits.starts_with('0') => format!("0{digits}"),
                _ => digits,
            }
        }
    };
    pad(spec, body, spec.precision.is_none())
}

/// Formats one lane's `printf` call.
fn format_lane<O: Observer>(ex: &mut GroupExec<'_, O>, call: &BuiltinCall, lane: usize) -> String {
    let format = call.format.clone().unwrap_or_default();
    let mut out = String::new();
    let mut next = 0usize;
    for piece in parse(&format) {
        match piece {
            Piece::Text(t) => out.push_str(&t),
            Piece::Conv(spec) => {
                let Some(a) = call.args.get(next) else {
                    out.push_str("<missing>");
                    continue;
                };
                next += 1;
                let n = spec.vector.unwrap_or(1).max(1);
                let mut parts = Vec::new();
                for c in 0..n {
                    let comp = (c as u32).min(a.width.saturating_sub(1));
                    let v = ex.get(a.slot, comp, lane);
                    let s = match spec.conv {
                        'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => {
                            format_float(&spec, to_f64(a.scalar, v))
                        }
                        'c' => pad(&spec, char::from(v as u8).to_string(), false),
                        's' if a.literal.is_some() => {
                            let mut s = a.literal.clone().unwrap_or_default();
                            if let Some(p) = spec.precision {
                                s = s.chars().take(p).collect();
                            }
                            pad(&spec, s, false)
                        }
                        's' => {
                            let mut text = Vec::new();
                            for i in 0..4096u64 {
                                match ex.read_mem(lane, v.wrapping_add(i), 1) {
                                    Some(0) | None => break,
                                    Some(b) => text.push(b as u8),
                                }
                            }
                            let mut s = String::from_utf8_lossy(&text).into_owned();
                            if let Some(p) = spec.precision {
                                s = s.chars().take(p).collect();
                            }
                            pad(&spec, s, false)
                        }
                        'p' => pad(&spec, format!("0x{v:x}"), false),
                        _ => format_int(&spec, v, a.scalar),
                    };
                    parts.push(s);
                }
                out.push_str(&parts.join(","));
            }
        }
    }
    out
}

pub(crate) fn run_printf<O: Observer>(ex: &mut GroupExec<'_, O>, call: &BuiltinCall, mask: &Mask) {
    for lane in mask.iter() {
        let text = format_lane(ex, call, lane);
        ex.push_printf(lane, text);
        ex.set(call.dst, 0, lane, 0);
    }
    ex.finish_accesses(call.site, 1, false);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> Spec {
        match parse(s).into_iter().next() {
            Some(Piece::Conv(spec)) => spec,
            _ => Spec::default(),
        }
    }

    #[test]
    fn formats_like_c() {
        assert_eq!(format_float(&spec("%f"), 1.5), "1.500000");
        assert_eq!(format_float(&spec("%.2e"), 12345.0), "1.23e+04");
        assert_eq!(format_float(&spec("%g"), 0.0001), "0.0001");
        assert_eq!(format_float(&spec("%g"), 1e-5), "1e-05");
        assert_eq!(format_float(&spec("%g"), 123456789.0), "1.23457e+08");
        assert_eq!(format_float(&spec("%8.3f"), -1.23456), "  -1.235");
        assert_eq!(format_int(&spec("%05d"), (-42i64) as u64, Scalar::Int), "-0042");
        assert_eq!(format_int(&spec("%#x"), 255, Scalar::UInt), "0xff");
        assert_eq!(format_int(&spec("%u"), (-1i64) as u64, Scalar::Int), "4294967295");
        assert_eq!(spec("%v4hlf").vector, Some(4));
        assert_eq!(format_float(&spec("%a"), 1.0), "0x1p+0");
    }
}
