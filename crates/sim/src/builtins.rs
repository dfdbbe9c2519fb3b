//! Built-in functions: compilation of calls and their execution over lanes.

use clmap_lang::ir::{
    AtomicOp, Builtin, CommonFunction, Expression, GeometricFunction, Handle, IntegerFunction,
    MathFunction, RelationalFunction, Rounding, Scalar, Type,
};
use clmap_lang::Span;

use crate::compile::{Compiler, FnCtx, Shape};
use crate::error::SimError;
use crate::exec::GroupExec;
use crate::mask::Mask;
use crate::observer::{AccessKind, Observer};
use crate::program::*;
use crate::rounding::to_half_rounded;
use crate::value::{from_f64, from_memory, normalise, to_f64, to_memory};

impl Compiler<'_> {
    /// Compiles a call of a built-in function.
    pub(crate) fn builtin(
        &mut self,
        ctx: &mut FnCtx<'_>,
        function: Builtin,
        args: &[Handle<Expression>],
        ty: Handle<Type>,
        span: Span,
        out: &mut Vec<Node>,
    ) -> Result<Slot, SimError> {
        let (result, width) = match self.shape(ty)? {
            Shape::Arith { scalar, width } => (scalar, width),
            Shape::Word => (Scalar::ULong, 1),
            _ => (Scalar::Int, 0),
        };
        if let Builtin::WorkItem(func) = function {
            let dim = match args.first() {
                Some(a) => {
                    let slot = self.expr(ctx, *a, out)?;
                    let (s, _) = self.arith(ctx.ty(*a)?)?;
                    Some((slot, s))
                }
                None => None,
            };
            let dst = self.alloc(1)?;
            out.push(Node::Op(Op::WorkItem { func, dst, dim }));
            return Ok(dst);
        }
        let mut format = None;
        let mut compiled = Vec::with_capacity(args.len());
        let mut object = None;
        for (i, a) in args.iter().enumerate() {
            let mut literal = None;
            if let Expression::StringLiteral(text) = ctx.expr(*a)? {
                if i == 0 && function == Builtin::Printf {
                    format = Some(text.clone());
                    continue;
                }
                literal = Some(text.clone());
            }
            let slot = self.expr(ctx, *a, out)?;
            let arg_ty = ctx.ty(*a)?;
            let pointer = match self.inner(arg_ty)? {
                clmap_lang::ir::TypeInner::Pointer { pointee, space, .. } => {
                    if object.is_none() {
                        object = self.root_name(ctx, *a, 0);
                    }
                    let (s, w) = match self.shape(*pointee)? {
                        Shape::Arith { scalar, width } => (scalar, width),
                        Shape::Word => (Scalar::ULong, 1),
                        _ => (Scalar::UChar, self.module.size_of(*pointee).max(1)),
                    };
                    Some((*space, s, w))
                }
                _ => None,
            };
            let (scalar, w) = match self.shape(arg_ty)? {
                Shape::Arith { scalar, width } => (scalar, width),
                _ => (Scalar::ULong, 1),
            };
            compiled.push(BuiltinArg { slot, scalar, width: w, pointer, literal });
        }
        let touches_image = matches!(function, Builtin::ReadImage(_) | Builtin::WriteImage(_));
        let space = if touches_image {
            // Texels are global memory: the image's storage is one of the launch's buffers.
            if let Some(image) = args.first() {
                object = self.root_name(ctx, *image, 0);
            }
            clmap_lang::ir::AddressSpace::Global
        } else {
            compiled
                .iter()
                .find_map(|a| a.pointer.map(|p| p.0))
                .unwrap_or(clmap_lang::ir::AddressSpace::Private)
        };
        let site = self.site(span, object, space);
        let dst = self.alloc(width.max(1))?;
        out.push(Node::Op(Op::Builtin(Box::new(BuiltinCall {
            function,
            dst,
            result,
            width,
            args: compiled,
            site,
            format,
        }))));
        Ok(dst)
    }
}

/// Component `c` of argument `i` in `lane` (scalar arguments broadcast).
pub(crate) fn arg<O: Observer>(
    ex: &GroupExec<'_, O>,
    call: &BuiltinCall,
    i: usize,
    c: u32,
    lane: usize,
) -> u64 {
    match call.args.get(i) {
        Some(a) => ex.get(a.slot, if a.width == 1 { 0 } else { c.min(a.width - 1) }, lane),
        None => 0,
    }
}

fn argf<O: Observer>(
    ex: &GroupExec<'_, O>,
    call: &BuiltinCall,
    i: usize,
    c: u32,
    lane: usize,
) -> f64 {
    let scalar = call.args.get(i).map_or(Scalar::Float, |a| a.scalar);
    to_f64(scalar, arg(ex, call, i, c, lane))
}

fn argi<O: Observer>(
    ex: &GroupExec<'_, O>,
    call: &BuiltinCall,
    i: usize,
    c: u32,
    lane: usize,
) -> i128 {
    let scalar = call.args.get(i).map_or(Scalar::Int, |a| a.scalar);
    let v = arg(ex, call, i, c, lane);
    if scalar.is_signed() {
        v as i64 as i128
    } else {
        v as i128
    }
}

/// Runs a built-in call for the lanes of `mask`.
pub(crate) fn run_builtin<O: Observer>(ex: &mut GroupExec<'_, O>, call: &BuiltinCall, mask: &Mask) {
    match call.function {
        Builtin::Math { function, .. } => math(ex, call, function, mask),
        Builtin::Integer(f) => integer(ex, call, f, mask),
        Builtin::Common(f) => common(ex, call, f, mask),
        Builtin::Geometric(f) => geometric(ex, call, f, mask),
        Builtin::Relational(f) => relational(ex, call, f, mask),
        Builtin::VectorLoad { width, half, aligned } => {
            let n = width.map_or(1, |w| w.width());
            vector_load(ex, call, n, half, aligned, mask)
        }
        Builtin::VectorStore { width, half, aligned, rounding } => {
            let n = width.map_or(1, |w| w.width());
            vector_store(ex, call, n, half.then_some(rounding), aligned, mask)
        }
        Builtin::AsyncCopy { strided } => crate::async_copy::issue(ex, call, strided, mask),
        Builtin::WaitGroupEvents => crate::async_copy::wait_group_events(ex, call, mask),
        Builtin::Prefetch => {}
        Builtin::Atomic { op, .. } => atomic(ex, call, op, mask),
        Builtin::Shuffle | Builtin::Shuffle2 => shuffle(ex, call, mask),
        Builtin::Printf => crate::printf::run_printf(ex, call, mask),
        Builtin::WorkItem(_) => {}
        Builtin::ReadImage(v) => crate::image::run::read(ex, call, v, mask),
        Builtin::WriteImage(v) => crate::image::run::write(ex, call, v, mask),
        Builtin::ImageQuery(q) => crate::image::run::query(ex, call, q, mask),
    }
}

pub(crate) fn for_lanes(mask: &Mask) -> Vec<usize> {
    mask.iter().collect()
}

fn math<O: Observer>(ex: &mut GroupExec<'_, O>, call: &BuiltinCall, f: MathFunction, mask: &Mask) {
    use crate::mathlib as m;
    use MathFunction as F;
    let r = call.result;
    let is_double = r == Scalar::Double;
    for lane in for_lanes(mask) {
        for c in 0..call.width.max(1) {
            let x = argf(ex, call, 0, c, lane);
            let y = argf(ex, call, 1, c, lane);
            let z = argf(ex, call, 2, c, lane);
            let v = match f {
                F::Acos => x.acos(),
                F::Acosh => x.acosh(),
                F::Acospi => x.acos() / std::f64::consts::PI,
                F::Asin => x.asin(),
                F::Asinh => x.asinh(),
                F::Asinpi => x.asin() / std::f64::consts::PI,
                F::Atan => x.atan(),
                F::Atan2 => x.atan2(y),
                F::Atanh => x.atanh(),
                F::Atanpi => x.atan() / std::f64::consts::PI,
                F::Atan2pi => x.atan2(y) / std::f64::consts::PI,
                F::Cbrt => x.cbrt(),
                F::Ceil => x.ceil(),
                F::Copysign => x.copysign(y),
                F::Cos => x.cos(),
                F::Cosh => x.cosh(),
                F::Cospi => m::cospi(x),
                F::Erfc => m::erfc(x),
                F::Erf => m::erf(x),
                F::Exp => x.exp(),
                F::Exp2 => x.exp2(),
                F::Exp10 => 10f64.powf(x),
                F::Expm1 => x.exp_m1(),
                F::Fabs => x.abs(),
                F::Fdim => {
                    if x > y {
                        x - y
                    } else if x.is_nan() || y.is_nan() {
                        f64::NAN
                    } else {
                        0.0
                    }
                }
                F::Floor => x.floor(),
                F::Fma | F::Mad => x.mul_add(y, z),
                F::Fmax => {
                    if y.is_nan() || x >= y {
                        x
                    } else {
                        y
                    }
                }
                F::Fmin => {
                    if y.is_nan() || x <= y {
                        x
                    } else {
                        y
                    }
                }
                F::Fmod => x % y,
                F::Fract => {
                    let fl = x.floor();
                    store_pointer_float(ex, call, 1, c, lane, fl);
                    m::fract(x, fl, is_double)
                }
                F::Frexp => {
                    let (mant, e) = m::frexp(x);
                    store_pointer_int(ex, call, 1, c, lane, i64::from(e));
                    mant
                }
                F::Hypot => x.hypot(y),
                F::Ilogb => {
                    let v = m::ilogb(x);
                    ex.set(call.dst, c, lane, normalise(r, v as i64 as u64));
                    continue;
                }
                F::Ldexp => {
                    let e = argi(ex, call, 1, c, lane).clamp(-10000, 10000) as i32;
                    x * 2f64.powi(e)
                }
                F::Lgamma => m::lgamma_sign(x).0,
                F::LgammaR => {
                    let (lg, sign) = m::lgamma_sign(x);
                    store_pointer_int(ex, call, 1, c, lane, i64::from(sign));
                    lg
                }
                F::Log => x.ln(),
                F::Log2 => x.log2(),
                F::Log10 => x.log10(),
                F::Log1p => x.ln_1p(),
                F::Logb => {
                    if x == 0.0 {
                        f64::NEG_INFINITY
                    } else if x.is_infinite() {
                        f64::INFINITY
                    } else if x.is_nan() {
                        x
                    } else {
                        f64::from(m::ilogb(x))
                    }
                }
                F::Maxmag => {
                    if x.abs() > y.abs() {
                        x
                    } else if y.abs() > x.abs() {
                        y
                    } else {
                        x.max(y)
                    }
                }
                F::Minmag => {
                    if x.abs() < y.abs() {
                        x
                    } else if y.abs() < x.abs() {
                        y
                    } else {
                        x.min(y)
                    }
                }
                F::Modf => {
                    let t = x.trunc();
                    store_pointer_float(ex, call, 1, c, lane, t);
                    if x.is_infinite() {
                        0.0f64.copysign(x)
                    } else {
                        x - t
                    }
                }
                F::Nan => {
                    let bits = arg(ex, call, 0, c, lane);
                    let v = match r {
                        Scalar::Double => {
                            f64::from_bits(0x7ff8_0000_0000_0000 | (bits & 0x7_ffff_ffff_ffff))
                                .to_bits()
                        }
                        _ => u64::from(
                            f32::from_bits(0x7fc0_0000 | (bits as u32 & 0x3f_ffff)).to_bits(),
                        ),
                    };
                    ex.set(call.dst, c, lane, v);
                    continue;
                }
                F::Nextafter => {
                    let v = if is_double {
                        m::next_after_f64(x, y).to_bits()
                    } else {
                        u64::from(m::next_after_f32(x as f32, y as f32).to_bits())
                    };
                    ex.set(call.dst, c, lane, v);
                    continue;
                }
                F::Pow | F::Powr => x.powf(y),
                F::Pown => x.powi(
                    argi(ex, call, 1, c, lane).clamp(i128::from(i32::MIN), i128::from(i32::MAX))
                        as i32,
                ),
                F::Remainder => m::remquo(x, y).0,
                F::Remquo => {
                    let (rem, q) = m::remquo(x, y);
                    store_pointer_int(ex, call, 2, c, lane, q);
                    rem
                }
                F::Rint => x.round_ties_even(),
                F::Rootn => {
                    let n = argi(ex, call, 1, c, lane) as f64;
                    if x < 0.0 && n % 2.0 != 0.0 {
                        -(-x).powf(1.0 / n)
                    } else {
                        x.powf(1.0 / n)
                    }
                }
                F::Round => x.round(),
                F::Rsqrt => 1.0 / x.sqrt(),
                F::Sin => x.sin(),
                F::Sincos => {
                    store_pointer_float(ex, call, 1, c, lane, x.cos());
                    x.sin()
                }
                F::Sinh => x.sinh(),
                F::Sinpi => m::sinpi(x),
                F::Sqrt => x.sqrt(),
                F::Tan => x.tan(),
                F::Tanh => x.tanh(),
                F::Tanpi => m::tanpi(x),
                F::Tgamma => m::tgamma(x),
                F::Trunc => x.trunc(),
                F::Divide => x / y,
                F::Recip => 1.0 / x,
            };
            ex.set(call.dst, c, lane, from_f64(r, v));
        }
    }
    finish_pointer_outputs(ex, call, mask);
}

/// Stores a float through pointer argument `i` (component `c`) for `lane`.
fn store_pointer_float<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    i: usize,
    c: u32,
    lane: usize,
    v: f64,
) {
    store_pointer(ex, call, i, c, lane, |scalar| to_memory(scalar, from_f64(scalar, v)));
}

/// Stores an integer through pointer argument `i` (component `c`) for `lane`.
fn store_pointer_int<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    i: usize,
    c: u32,
    lane: usize,
    v: i64,
) {
    store_pointer(ex, call, i, c, lane, |scalar| normalise(scalar, v as u64));
}

/// Writes component `c` of pointer argument `i` for `lane`, with the bits `encode` makes for
/// the pointee's scalar type.
fn store_pointer<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    i: usize,
    c: u32,
    lane: usize,
    encode: impl FnOnce(Scalar) -> u64,
) {
    let Some(a) = call.args.get(i) else { return };
    let Some((_, scalar, _)) = a.pointer else { return };
    let base = ex.get(a.slot, 0, lane);
    let addr = base.wrapping_add(u64::from(c) * u64::from(scalar.size()));
    ex.write_mem(lane, addr, scalar.size(), encode(scalar));
}

fn finish_pointer_outputs<O: Observer>(ex: &mut GroupExec<'_, O>, call: &BuiltinCall, mask: &Mask) {
    if let Some(a) = call.args.iter().find(|a| a.pointer.is_some()) {
        let size = a.pointer.map_or(4, |(_, s, w)| s.size() * w);
        let addresses: Vec<u64> = (0..ex.lanes()).map(|l| ex.get(a.slot, 0, l)).collect();
        ex.notify_addresses(&addresses, size, call.site, mask, AccessKind::Store);
    }
    ex.finish_accesses(call.site, 4, true);
}

fn int_bounds(s: Scalar) -> (i128, i128) {
    let bits = s.size() * 8;
    if s.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn integer<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    f: IntegerFunction,
    mask: &Mask,
) {
    use IntegerFunction as F;
    let ty = call.args.first().map_or(call.result, |a| a.scalar);
    let bits = ty.size() * 8;
    let (lo, hi) = int_bounds(ty);
    let wrap = |v: i128| -> i128 {
        let m = v & ((1i128 << bits) - 1);
        if ty.is_signed() && m >= 1i128 << (bits - 1) {
            m - (1i128 << bits)
        } else {
            m
        }
    };
    for lane in for_lanes(mask) {
        for c in 0..call.width.max(1) {
            let x = argi(ex, call, 0, c, lane);
            let y = argi(ex, call, 1, c, lane);
            let z = argi(ex, call, 2, c, lane);
            let unsigned_bits = |v: i128| (v as u128) & ((1u128 << bits) - 1);
            let v: i128 = match f {
                F::Abs => x.abs(),
                F::AbsDiff => (x - y).abs(),
                F::AddSat => (x + y).clamp(lo, hi),
                F::SubSat => (x - y).clamp(lo, hi),
                F::Hadd => (x + y) >> 1,
                F::Rhadd => (x + y + 1) >> 1,
                F::Clz => {
                    let u = unsigned_bits(x);
                    (u.leading_zeros() - (128 - bits)) as i128
                }
                F::Popcount => unsigned_bits(x).count_ones() as i128,
                F::MulHi => mul_hi(x, y, ty),
                F::MadHi => wrap(mul_hi(x, y, ty) + z),
                F::MadSat => {
                    let p =
                        x.checked_mul(y).map_or(if (x < 0) != (y < 0) { lo } else { hi }, |p| p);
                    p.saturating_add(z).clamp(lo, hi)
                }
                F::Rotate => {
                    let u = unsigned_bits(x);
                    let n = (y as u128 % u128::from(bits)) as u32;
                    let r = if n == 0 {
                        u
                    } else {
                        ((u << n) | (u >> (bits - n))) & ((1u128 << bits) - 1)
                    };
                    wrap(r as i128)
                }
                F::Upsample => {
                    let lo_bits = call.args.get(1).map_or(8, |a| a.scalar.size() * 8);
                    let lo_v = (y as u128) & ((1u128 << lo_bits) - 1);
                    (x << lo_bits) | lo_v as i128
                }
                F::Mul24 => sign24(x, ty) * sign24(y, ty),
                F::Mad24 => sign24(x, ty) * sign24(y, ty) + z,
            };
            ex.set(call.dst, c, lane, normalise(call.result, v as u64));
        }
    }
}

fn sign24(v: i128, ty: Scalar) -> i128 {
    if ty.is_signed() {
        ((v as i64) << 40 >> 40) as i128
    } else {
        v & 0xff_ffff
    }
}

fn mul_hi(x: i128, y: i128, ty: Scalar) -> i128 {
    let bits = ty.size() * 8;
    if bits == 64 && !ty.is_signed() {
        let p = (x as u128).wrapping_mul(y as u128);
        (p >> 64) as i128
    } else {
        (x * y) >> bits
    }
}

fn common<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    f: CommonFunction,
    mask: &Mask,
) {
    use CommonFunction as F;
    let r = call.result;
    for lane in for_lanes(mask) {
        for c in 0..call.width.max(1) {
            if !r.is_float() {
                let x = argi(ex, call, 0, c, lane);
                let y = argi(ex, call, 1, c, lane);
                let z = argi(ex, call, 2, c, lane);
                let v = match f {
                    F::Clamp => x.max(y).min(z),
                    F::Max => x.max(y),
                    F::Min => x.min(y),
                    _ => x,
                };
                ex.set(call.dst, c, lane, normalise(r, v as u64));
                continue;
            }
            let x = argf(ex, call, 0, c, lane);
            let y = argf(ex, call, 1, c, lane);
            let z = argf(ex, call, 2, c, lane);
            let v = match f {
                F::Clamp => x.max(y).min(z),
                F::Degrees => x.to_degrees(),
                F::Radians => x.to_radians(),
                F::Max => {
                    if y.is_nan() || x >= y {
                        x
                    } else {
                        y
                    }
                }
                F::Min => {
                    if y.is_nan() || x <= y {
                        x
                    } else {
                        y
                    }
                }
                F::Mix => x + (y - x) * z,
                F::Step => {
                    if y < x {
                        0.0
                    } else {
                        1.0
                    }
                }
                F::Smoothstep => {
                    let t = ((z - x) / (y - x)).clamp(0.0, 1.0);
                    t * t * (3.0 - 2.0 * t)
                }
                F::Sign => {
                    if x.is_nan() {
                        0.0
                    } else if x > 0.0 {
                        1.0
                    } else if x < 0.0 {
                        -1.0
                    } else {
                        x
                    }
                }
            };
            ex.set(call.dst, c, lane, from_f64(r, v));
        }
    }
}

fn geometric<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    f: GeometricFunction,
    mask: &Mask,
) {
    use GeometricFunction as F;
    let n = call.args.first().map_or(1, |a| a.width);
    let r = call.result;
    for lane in for_lanes(mask) {
        let x: Vec<f64> = (0..n).map(|c| argf(ex, call, 0, c, lane)).collect();
        let y: Vec<f64> = (0..n).map(|c| argf(ex, call, 1, c, lane)).collect();
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
        match f {
            F::Dot => ex.set(call.dst, 0, lane, from_f64(r, dot(&x, &y))),
            F::Length | F::FastLength => ex.set(call.dst, 0, lane, from_f64(r, dot(&x, &x).sqrt())),
            F::Distance | F::FastDistance => {
                let d: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p - q).collect();
                ex.set(call.dst, 0, lane, from_f64(r, dot(&d, &d).sqrt()));
            }
            F::Normalize | F::FastNormalize => {
                let len = dot(&x, &x).sqrt();
                for (c, v) in x.iter().enumerate() {
                    let out = if len == 0.0 { *v } else { v / len };
                    ex.set(call.dst, c as u32, lane, from_f64(r, out));
                }
            }
            F::Cross => {
                let g = |v: &[f64], i: usize| v.get(i).copied().unwrap_or(0.0);
                let out = [
                    g(&x, 1) * g(&y, 2) - g(&x, 2) * g(&y, 1),
                    g(&x, 2) * g(&y, 0) - g(&x, 0) * g(&y, 2),
                    g(&x, 0) * g(&y, 1) - g(&x, 1) * g(&y, 0),
                    0.0,
                ];
                for c in 0..call.width.min(4) {
                    ex.set(call.dst, c, lane, from_f64(r, out[c as usize]));
                }
            }
        }
    }
}

fn relational<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    f: RelationalFunction,
    mask: &Mask,
) {
    use RelationalFunction as F;
    let vector = call.width > 1;
    let truth = |b: bool| -> u64 {
        if !b {
            0
        } else if vector {
            u64::MAX
        } else {
            1
        }
    };
    let r = call.result;
    for lane in for_lanes(mask) {
        match f {
            F::Any | F::All => {
                let a = call.args.first();
                let (s, n) = a.map_or((Scalar::Int, 1), |a| (a.scalar, a.width));
                let bits = s.size() * 8;
                let msb = |c: u32| (arg(ex, call, 0, c, lane) >> (bits - 1)) & 1 == 1;
                let v = if f == F::Any { (0..n).any(msb) } else { (0..n).all(msb) };
                ex.set(call.dst, 0, lane, u64::from(v));
                continue;
            }
            _ => {}
        }
        for c in 0..call.width.max(1) {
            let x = argf(ex, call, 0, c, lane);
            let y = argf(ex, call, 1, c, lane);
            let v = match f {
                F::IsEqual => truth(x == y),
                F::IsNotEqual => truth(x != y),
                F::IsGreater => truth(x > y),
                F::IsGreaterEqual => truth(x >= y),
                F::IsLess => truth(x < y),
                F::IsLessEqual => truth(x <= y),
                F::IsLessGreater => truth(x < y || x > y),
                F::IsFinite => truth(x.is_finite()),
                F::IsInf => truth(x.is_infinite()),
                F::IsNan => truth(x.is_nan()),
                F::IsNormal => {
                    let arg_scalar = call.args.first().map_or(Scalar::Float, |a| a.scalar);
                    let normal = if arg_scalar == Scalar::Float {
                        (x as f32).is_normal()
                    } else {
                        x.is_normal()
                    };
                    truth(normal)
                }
                F::IsOrdered => truth(!x.is_nan() && !y.is_nan()),
                F::IsUnordered => truth(x.is_nan() || y.is_nan()),
                F::Signbit => truth(x.is_sign_negative()),
                F::Bitselect => {
                    let a = arg(ex, call, 0, c, lane);
                    let b = arg(ex, call, 1, c, lane);
                    let m = arg(ex, call, 2, c, lane);
                    normalise(r, (a & !m) | (b & m))
                }
                F::Select => {
                    let a = arg(ex, call, 0, c, lane);
                    let b = arg(ex, call, 1, c, lane);
                    let m = arg(ex, call, 2, c, lane);
                    let cs = call.args.get(2).map_or(Scalar::Int, |a| a.scalar);
                    let pick = if vector { (m >> (cs.size() * 8 - 1)) & 1 == 1 } else { m != 0 };
                    if pick {
                        b
                    } else {
                        a
                    }
                }
                F::Any | F::All => 0,
            };
            let v = if matches!(f, F::Bitselect | F::Select) { v } else { normalise(r, v) };
            ex.set(call.dst, c, lane, v);
        }
    }
}

fn vector_load<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    n: u32,
    half: bool,
    aligned: bool,
    mask: &Mask,
) {
    let Some(p) = call.args.get(1) else { return };
    let scalar = if half { Scalar::Half } else { p.pointer.map_or(Scalar::Float, |x| x.1) };
    let size = scalar.size();
    let stride = if aligned && n == 3 { 4 } else { n };
    let mut addresses = vec![0u64; ex.lanes()];
    for lane in for_lanes(mask) {
        let offset = arg(ex, call, 0, 0, lane);
        let base =
            ex.get(p.slot, 0, lane).wrapping_add(offset.wrapping_mul(u64::from(stride * size)));
        addresses[lane] = base;
        for c in 0..n {
            let raw = ex.read_mem(lane, base.wrapping_add(u64::from(c * size)), size).unwrap_or(0);
            let v = from_memory(scalar, raw);
            // vload_half yields floats: a half register already holds the float bits.
            ex.set(call.dst, c, lane, v);
        }
    }
    ex.finish_vector_accesses(call.site, scalar, n, false);
    ex.notify_addresses(&addresses, size * n, call.site, mask, AccessKind::Load);
}

/// `vstoreN`, or with `half` (the rounding mode of `vstore_half…`, `None` = to nearest even)
/// the half stores.
fn vector_store<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    n: u32,
    half: Option<Option<Rounding>>,
    aligned: bool,
    mask: &Mask,
) {
    let (Some(data), Some(p)) = (call.args.first(), call.args.get(2)) else { return };
    let scalar = if half.is_some() { Scalar::Half } else { p.pointer.map_or(data.scalar, |x| x.1) };
    let size = scalar.size();
    let stride = if aligned && n == 3 { 4 } else { n };
    let mut addresses = vec![0u64; ex.lanes()];
    for lane in for_lanes(mask) {
        let offset = arg(ex, call, 1, 0, lane);
        let base =
            ex.get(p.slot, 0, lane).wrapping_add(offset.wrapping_mul(u64::from(stride * size)));
        addresses[lane] = base;
        for c in 0..n {
            let v = ex.get(data.slot, c.min(data.width.saturating_sub(1)), lane);
            let bits = match half {
                // The data is float (or double): round it to half once, in the call's mode.
                Some(rounding) => u64::from(to_half_rounded(to_f64(data.scalar, v), rounding)),
                None => to_memory(scalar, v),
            };
            ex.write_mem(lane, base.wrapping_add(u64::from(c * size)), size, bits);
        }
    }
    ex.finish_vector_accesses(call.site, scalar, n, true);
    ex.notify_addresses(&addresses, size * n, call.site, mask, AccessKind::Store);
}

fn atomic<O: Observer>(ex: &mut GroupExec<'_, O>, call: &BuiltinCall, op: AtomicOp, mask: &Mask) {
    let Some(p) = call.args.first() else { return };
    let scalar = p.pointer.map_or(Scalar::Int, |x| x.1);
    let size = scalar.size();
    let signed = scalar.is_signed() && scalar.is_integer();
    let mut addresses = vec![0u64; ex.lanes()];
    // Lanes whose compare-and-exchange found another value: they read and wrote nothing.
    let mut unchanged = Mask::none(ex.lanes());
    // The value each lane's access stands for in a race: the one it read, except that a
    // compare-and-exchange that succeeded is its new value (Oclgrind records each atomic
    // operation's store before it modifies memory, and a compare-and-exchange's after).
    let mut recorded = vec![0u64; ex.lanes()];
    for lane in for_lanes(mask) {
        let addr = ex.get(p.slot, 0, lane);
        addresses[lane] = addr;
        let (cmp, val) = if op == AtomicOp::CmpXchg {
            (arg(ex, call, 1, 0, lane), arg(ex, call, 2, 0, lane))
        } else {
            (0, arg(ex, call, 1, 0, lane))
        };
        let bits = size * 8;
        let mask_bits = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let to_mem = |v: u64| to_memory(scalar, v) & mask_bits;
        let reg = |raw: u64| from_memory(scalar, raw);
        let update = |old_raw: u64| -> u64 {
            let old = reg(old_raw);
            let new = match op {
                AtomicOp::Add => old.wrapping_add(val),
                AtomicOp::Sub => old.wrapping_sub(val),
                AtomicOp::Xchg => val,
                AtomicOp::Inc => old.wrapping_add(1),
                AtomicOp::Dec => old.wrapping_sub(1),
                AtomicOp::CmpXchg => {
                    if old == cmp {
                        val
                    } else {
                        old
                    }
                }
                AtomicOp::Min => {
                    if signed {
                        (old as i64).min(val as i64) as u64
                    } else {
                        old.min(val)
                    }
                }
                AtomicOp::Max => {
                    if signed {
                        (old as i64).max(val as i64) as u64
                    } else {
                        old.max(val)
                    }
                }
                AtomicOp::And => old & val,
                AtomicOp::Or => old | val,
                AtomicOp::Xor => old ^ val,
            };
            to_mem(new)
        };
        let old = ex.atomic(lane, addr, size, update).map_or(0, reg);
        recorded[lane] = old;
        if op == AtomicOp::CmpXchg {
            if old == cmp {
                recorded[lane] = val;
            } else {
                unchanged.set(lane, true);
            }
        }
        ex.set(call.dst, 0, lane, old);
    }
    ex.finish_atomic_accesses(call.site, size);
    ex.notify_atomic(&addresses, size, call.site, mask, &unchanged, (&recorded, scalar));
}

fn shuffle<O: Observer>(ex: &mut GroupExec<'_, O>, call: &BuiltinCall, mask: &Mask) {
    let two = call.function == Builtin::Shuffle2;
    let m = call.args.first().map_or(1, |a| a.width).max(1);
    let mask_arg = if two { 2 } else { 1 };
    for lane in for_lanes(mask) {
        for c in 0..call.width {
            let sel = arg(ex, call, mask_arg, c, lane);
            let idx = (sel % u64::from(if two { 2 * m } else { m })) as u32;
            let v =
                if idx < m { arg(ex, call, 0, idx, lane) } else { arg(ex, call, 1, idx - m, lane) };
            ex.set(call.dst, c, lane, v);
        }
    }
}
