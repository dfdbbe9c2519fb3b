//! Work-item, math, integer, common, geometric and relational functions and `shuffle`.

use super::{gentypes, Param, Ret, Signature, Val, FLOATS, INTEGERS, WIDTHS};
use crate::ir::{
    Builtin, CommonFunction, GeometricFunction, IntegerFunction, MathFunction, MathPrecision,
    RelationalFunction, Scalar, VectorSize, WorkItemFunction,
};

fn v(val: Val) -> Param {
    Param::Value(val)
}

fn ret(val: Val) -> Ret {
    Ret::Value(val)
}

/// The signatures of `name` among these families (empty when it is none of them).
pub(super) fn signatures(name: &str) -> Vec<Signature> {
    if let Some(f) = WorkItemFunction::from_name(name) {
        let builtin = Builtin::WorkItem(f);
        return if f == WorkItemFunction::WorkDim {
            vec![Signature::new(builtin, vec![], ret(Val::scalar(Scalar::UInt)))]
        } else {
            vec![Signature::new(
                builtin,
                vec![v(Val::scalar(Scalar::UInt))],
                ret(Val::scalar(Scalar::ULong)),
            )]
        };
    }
    let mut out = math(name);
    if out.is_empty() {
        out = integer(name);
    }
    if out.is_empty() {
        out = common(name);
    }
    if out.is_empty() {
        out = geometric(name);
    }
    if out.is_empty() {
        out = relational(name);
    }
    if out.is_empty() {
        out = shuffle(name);
    }
    out
}

fn int_like(g: Val) -> Val {
    g.with_scalar(Scalar::Int)
}

fn math(name: &str) -> Vec<Signature> {
    let (precision, base) = if let Some(rest) = name.strip_prefix("half_") {
        (MathPrecision::Half, rest)
    } else if let Some(rest) = name.strip_prefix("native_") {
        (MathPrecision::Native, rest)
    } else {
        (MathPrecision::Full, name)
    };
    let Some(function) = MathFunction::from_name(base) else {
        return Vec::new();
    };
    use MathFunction as M;
    let builtin = Builtin::Math { function, precision };
    let mut out = Vec::new();
    if precision != MathPrecision::Full {
        let allowed = matches!(
            function,
            M::Cos
                | M::Divide
                | M::Exp
                | M::Exp2
                | M::Exp10
                | M::Log
                | M::Log2
                | M::Log10
                | M::Powr
                | M::Recip
                | M::Rsqrt
                | M::Sin
                | M::Sqrt
                | M::Tan
        );
        if !allowed {
            return out;
        }
        for g in gentypes(&[Scalar::Float]) {
            let params = match function {
                M::Divide | M::Powr => vec![v(g), v(g)],
                _ => vec![v(g)],
            };
            out.push(Signature::new(builtin, params, ret(g)));
        }
        return out;
    }
    if matches!(function, M::Divide | M::Recip) {
        return out;
    }
    let spaces = super::WRITABLE_SPACES;
    for g in gentypes(&FLOATS) {
        let scalar = Val::scalar(g.scalar);
        let ptr = |pointee: Val| Param::Pointer { pointee, spaces, const_ok: false };
        match function {
            M::Atan2
            | M::Atan2pi
            | M::Copysign
            | M::Fdim
            | M::Fmod
            | M::Hypot
            | M::Maxmag
            | M::Minmag
            | M::Nextafter
            | M::Pow
            | M::Powr
            | M::Remainder => {
                out.push(Signature::new(builtin, vec![v(g), v(g)], ret(g)));
            }
            M::Fmax | M::Fmin => {
                out.push(Signature::new(builtin, vec![v(g), v(g)], ret(g)));
                if g.size.is_some() {
                    out.push(Signature::new(builtin, vec![v(g), v(scalar)], ret(g)));
                }
            }
            M::Fma | M::Mad => out.push(Signature::new(builtin, vec![v(g), v(g), v(g)], ret(g))),
            M::Fract | M::Modf | M::Sincos => {
                out.push(Signature::new(builtin, vec![v(g), ptr(g)], ret(g)));
            }
            M::Frexp | M::LgammaR => {
                out.push(Signature::new(builtin, vec![v(g), ptr(int_like(g))], ret(g)));
            }
            M::Remquo => {
                out.push(Signature::new(builtin, vec![v(g), v(g), ptr(int_like(g))], ret(g)));
            }
            M::Ilogb => out.push(Signature::new(builtin, vec![v(g)], ret(int_like(g)))),
            M::Ldexp => {
                out.push(Signature::new(builtin, vec![v(g), v(int_like(g))], ret(g)));
                if g.size.is_some() {
                    out.push(Signature::new(
                        builtin,
                        vec![v(g), v(Val::scalar(Scalar::Int))],
                        ret(g),
                    ));
                }
            }
            M::Pown | M::Rootn => {
                out.push(Signature::new(builtin, vec![v(g), v(int_like(g))], ret(g)));
            }
            M::Nan => {
                let code = match g.scalar {
                    Scalar::Double => Scalar::ULong,
                    Scalar::Half => Scalar::UShort,
                    _ => Scalar::UInt,
                };
                out.push(Signature::new(builtin, vec![v(g.with_scalar(code))], ret(g)));
            }
            _ => out.push(Signature::new(builtin, vec![v(g)], ret(g))),
        }
    }
    out
}

fn unsigned_of(g: Val) -> Val {
    g.with_scalar(g.scalar.to_unsigned())
}

fn integer(name: &str) -> Vec<Signature> {
    let Some(function) = IntegerFunction::from_name(name) else {
        return Vec::new();
    };
    use IntegerFunction as I;
    let builtin = Builtin::Integer(function);
    let mut out = Vec::new();
    match function {
        I::Upsample => {
            let pairs = [
                (Scalar::Char, Scalar::Short),
                (Scalar::UChar, Scalar::UShort),
                (Scalar::Short, Scalar::Int),
                (Scalar::UShort, Scalar::UInt),
                (Scalar::Int, Scalar::Long),
                (Scalar::UInt, Scalar::ULong),
            ];
            for (hi, result) in pairs {
                for size in WIDTHS {
                    let h = Val { scalar: hi, size };
                    out.push(Signature::new(
                        builtin,
                        vec![v(h), v(unsigned_of(h))],
                        ret(Val { scalar: result, size }),
                    ));
                }
            }
        }
        I::Mad24 | I::Mul24 => {
            for g in gentypes(&[Scalar::Int, Scalar::UInt]) {
                let params =
                    if function == I::Mad24 { vec![v(g), v(g), v(g)] } else { vec![v(g), v(g)] };
                out.push(Signature::new(builtin, params, ret(g)));
            }
        }
        _ => {
            for g in gentypes(&INTEGERS) {
                let (params, result) = match function {
                    I::Abs => (vec![v(g)], unsigned_of(g)),
                    I::AbsDiff => (vec![v(g), v(g)], unsigned_of(g)),
                    I::Clz | I::Popcount => (vec![v(g)], g),
                    I::MadHi | I::MadSat => (vec![v(g), v(g), v(g)], g),
                    _ => (vec![v(g), v(g)], g),
                };
                out.push(Signature::new(builtin, params, ret(result)));
            }
        }
    }
    out
}

fn common(name: &str) -> Vec<Signature> {
    let Some(function) = CommonFunction::from_name(name) else {
        return Vec::new();
    };
    use CommonFunction as C;
    let builtin = Builtin::Common(function);
    let mut out = Vec::new();
    let all: Vec<Val> = match function {
        C::Clamp | C::Max | C::Min => {
            let mut scalars = FLOATS.to_vec();
            scalars.extend(INTEGERS);
            gentypes(&scalars)
        }
        _ => gentypes(&FLOATS),
    };
    for g in all {
        let s = Val::scalar(g.scalar);
        let vector = g.size.is_some();
        match function {
            C::Clamp | C::Smoothstep if function == C::Clamp => {
                out.push(Signature::new(builtin, vec![v(g), v(g), v(g)], ret(g)));
                if vector {
                    out.push(Signature::new(builtin, vec![v(g), v(s), v(s)], ret(g)));
                }
            }
            C::Smoothstep => {
                out.push(Signature::new(builtin, vec![v(g), v(g), v(g)], ret(g)));
                if vector {
                    out.push(Signature::new(builtin, vec![v(s), v(s), v(g)], ret(g)));
                }
            }
            C::Max | C::Min => {
                out.push(Signature::new(builtin, vec![v(g), v(g)], ret(g)));
                if vector {
                    out.push(Signature::new(builtin, vec![v(g), v(s)], ret(g)));
                }
            }
            C::Mix => {
                out.push(Signature::new(builtin, vec![v(g), v(g), v(g)], ret(g)));
                if vector {
                    out.push(Signature::new(builtin, vec![v(g), v(g), v(s)], ret(g)));
                }
            }
            C::Step => {
                out.push(Signature::new(builtin, vec![v(g), v(g)], ret(g)));
                if vector {
                    out.push(Signature::new(builtin, vec![v(s), v(g)], ret(g)));
                }
            }
            C::Degrees | C::Radians | C::Sign | C::Clamp => {
                out.push(Signature::new(builtin, vec![v(g)], ret(g)));
            }
        }
    }
    out
}

fn geometric(name: &str) -> Vec<Signature> {
    let Some(function) = GeometricFunction::from_name(name) else {
        return Vec::new();
    };
    use GeometricFunction as G;
    let builtin = Builtin::Geometric(function);
    let fast = matches!(function, G::FastDistance | G::FastLength | G::FastNormalize);
    let scalars: &[Scalar] =
        if fast { &[Scalar::Float] } else { &[Scalar::Float, Scalar::Double, Scalar::Half] };
    let mut out = Vec::new();
    for &scalar in scalars {
        let s = Val::scalar(scalar);
        let sizes: &[Option<VectorSize>] = if function == G::Cross {
            &[Some(VectorSize::Three), Some(VectorSize::Four)]
        } else {
            &[None, Some(VectorSize::Two), Some(VectorSize::Three), Some(VectorSize::Four)]
        };
        for &size in sizes {
            let g = Val { scalar, size };
            let (params, result) = match function {
                G::Cross => (vec![v(g), v(g)], g),
                G::Dot | G::Distance | G::FastDistance => (vec![v(g), v(g)], s),
                G::Length | G::FastLength => (vec![v(g)], s),
                G::Normalize | G::FastNormalize => (vec![v(g)], g),
            };
            out.push(Signature::new(builtin, params, ret(result)));
        }
    }
    out
}

/// The result of a relational test on `g`: `int` for scalars, else the signed integer
/// vector of the element size.
fn test_result(g: Val) -> Val {
    match g.size {
        None => Val::scalar(Scalar::Int),
        Some(_) => g.with_scalar(Scalar::signed_of_size(g.scalar.size())),
    }
}

fn relational(name: &str) -> Vec<Signature> {
    let Some(function) = RelationalFunction::from_name(name) else {
        return Vec::new();
    };
    use RelationalFunction as R;
    let builtin = Builtin::Relational(function);
    let mut out = Vec::new();
    match function {
        R::Any | R::All => {
            for g in gentypes(&[Scalar::Char, Scalar::Short, Scalar::Int, Scalar::Long]) {
                out.push(Signature::new(builtin, vec![v(g)], ret(Val::scalar(Scalar::Int))));
            }
        }
        R::Bitselect => {
            let mut scalars = INTEGERS.to_vec();
            scalars.extend(FLOATS);
            for g in gentypes(&scalars) {
                out.push(Signature::new(builtin, vec![v(g), v(g), v(g)], ret(g)));
            }
        }
        R::Select => {
            let mut scalars = INTEGERS.to_vec();
            scalars.extend(FLOATS);
            for g in gentypes(&scalars) {
                let signed = g.with_scalar(Scalar::signed_of_size(g.scalar.size()));
                for mask in [signed, unsigned_of(signed)] {
                    out.push(Signature::new(builtin, vec![v(g), v(g), v(mask)], ret(g)));
                }
            }
        }
        R::IsFinite | R::IsInf | R::IsNan | R::IsNormal | R::Signbit => {
            for g in gentypes(&FLOATS) {
                out.push(Signature::new(builtin, vec![v(g)], ret(test_result(g))));
            }
        }
        _ => {
            for g in gentypes(&FLOATS) {
                out.push(Signature::new(builtin, vec![v(g), v(g)], ret(test_result(g))));
            }
        }
    }
    out
}

fn shuffle(name: &str) -> Vec<Signature> {
    let builtin = match name {
        "shuffle" => Builtin::Shuffle,
        "shuffle2" => Builtin::Shuffle2,
        _ => return Vec::new(),
    };
    let widths = [VectorSize::Two, VectorSize::Four, VectorSize::Eight, VectorSize::Sixteen];
    let mut scalars = INTEGERS.to_vec();
    scalars.extend(FLOATS);
    let mut out = Vec::new();
    for scalar in scalars {
        for m in widths {
            for n in widths {
                let x = Val { scalar, size: Some(m) };
                let mask = Val {
                    scalar: Scalar::signed_of_size(scalar.size()).to_unsigned(),
                    size: Some(n),
                };
                let result = Val { scalar, size: Some(n) };
                let params = if builtin == Builtin::Shuffle {
                    vec![v(x), v(mask)]
                } else {
                    vec![v(x), v(x), v(mask)]
                };
                out.push(Signature::new(builtin, params, ret(result)));
            }
        }
    }
    out
}
