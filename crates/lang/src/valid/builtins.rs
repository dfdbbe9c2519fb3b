//! How many arguments each built-in function takes (OpenCL C 1.2 §6.12).

use crate::ir::{
    AtomicOp, Builtin, CommonFunction as C, GeometricFunction as G, IntegerFunction as I,
    MathFunction as M, RelationalFunction as R, WorkItemFunction,
};

/// The smallest and largest argument count of a built-in.
pub(super) fn arity(builtin: Builtin) -> (usize, usize) {
    let exactly = |n| (n, n);
    match builtin {
        Builtin::WorkItem(WorkItemFunction::WorkDim) => exactly(0),
        Builtin::WorkItem(_) => exactly(1),
        Builtin::Math { function, .. } => exactly(math(function)),
        Builtin::Integer(f) => exactly(match f {
            I::Abs | I::Clz | I::Popcount => 1,
            I::MadHi | I::MadSat | I::Mad24 => 3,
            _ => 2,
        }),
        Builtin::Common(f) => exactly(match f {
            C::Degrees | C::Radians | C::Sign => 1,
            C::Max | C::Min | C::Step => 2,
            C::Clamp | C::Mix | C::Smoothstep => 3,
        }),
        Builtin::Geometric(f) => exactly(match f {
            G::Length | G::Normalize | G::FastLength | G::FastNormalize => 1,
            G::Cross | G::Dot | G::Distance | G::FastDistance => 2,
        }),
        Builtin::Relational(f) => exactly(match f {
            R::IsFinite | R::IsInf | R::IsNan | R::IsNormal | R::Signbit | R::Any | R::All => 1,
            R::Bitselect | R::Select => 3,
            _ => 2,
        }),
        Builtin::VectorLoad { .. } => exactly(2),
        Builtin::VectorStore { .. } => exactly(3),
        Builtin::AsyncCopy { strided: false } => exactly(4),
        Builtin::AsyncCopy { strided: true } => exactly(5),
        Builtin::WaitGroupEvents | Builtin::Prefetch | Builtin::Shuffle => exactly(2),
        Builtin::Shuffle2 => exactly(3),
        Builtin::Atomic { op, .. } => exactly(match op {
            AtomicOp::Inc | AtomicOp::Dec => 1,
            AtomicOp::CmpXchg => 3,
            _ => 2,
        }),
        Builtin::Printf => (1, usize::MAX),
        // With or without a sampler.
        Builtin::ReadImage(_) => (2, 3),
        Builtin::WriteImage(_) => exactly(3),
        Builtin::ImageQuery(_) => exactly(1),
    }
}

fn math(function: M) -> usize {
    match function {
        M::Fma | M::Mad | M::Remquo => 3,
        M::Atan2
        | M::Atan2pi
        | M::Copysign
        | M::Fdim
        | M::Fmax
        | M::Fmin
        | M::Fmod
        | M::Fract
        | M::Frexp
        | M::Hypot
        | M::Ldexp
        | M::LgammaR
        | M::Maxmag
        | M::Minmag
        | M::Modf
        | M::Nextafter
        | M::Pow
        | M::Pown
        | M::Powr
        | M::Remainder
        | M::Rootn
        | M::Sincos
        | M::Divide => 2,
        _ => 1,
    }
}
