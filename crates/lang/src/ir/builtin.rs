//! The OpenCL C 1.2 built-in functions the IR can call (§6.12), by family.
//!
//! Sema resolves an overloaded call such as `fmin(float4, float)` to one of these plus
//! explicitly converted arguments (the scalar splatted to `float4`); the result type is in the
//! function's expression-type table like any other. Synchronisation functions are statements
//! ([`super::Statement::Barrier`], [`super::Statement::MemFence`]), conversions and
//! reinterpretations are expressions ([`super::Expression::Convert`], [`super::Expression::Bitcast`]).

macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant,)* }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The OpenCL C name (without precision prefixes).
            pub const fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            pub fn from_name(name: &str) -> Option<$name> {
                match name { $($text => Some($name::$variant),)* _ => None }
            }
        }
    };
}

named_enum! {
    /// §6.12.1 work-item functions.
    WorkItemFunction {
        WorkDim = "get_work_dim",
        GlobalSize = "get_global_size",
        GlobalId = "get_global_id",
        LocalSize = "get_local_size",
        LocalId = "get_local_id",
        NumGroups = "get_num_groups",
        GroupId = "get_group_id",
        GlobalOffset = "get_global_offset",
        /// OpenCL C 2.0: the local size the launch asked for, which differs from
        /// `get_local_size` in a partial last work-group.
        EnqueuedLocalSize = "get_enqueued_local_size",
    }
}

named_enum! {
    /// §6.12.2 math functions (the `half_` and `native_` forms are a [`MathPrecision`]).
    MathFunction {
        Acos = "acos", Acosh = "acosh", Acospi = "acospi", Asin = "asin", Asinh = "asinh",
        Asinpi = "asinpi", Atan = "atan", Atan2 = "atan2", Atanh = "atanh", Atanpi = "atanpi",
        Atan2pi = "atan2pi", Cbrt = "cbrt", Ceil = "ceil", Copysign = "copysign", Cos = "cos",
        Cosh = "cosh", Cospi = "cospi", Erfc = "erfc", Erf = "erf", Exp = "exp", Exp2 = "exp2",
        Exp10 = "exp10", Expm1 = "expm1", Fabs = "fabs", Fdim = "fdim", Floor = "floor",
        Fma = "fma", Fmax = "fmax", Fmin = "fmin", Fmod = "fmod", Fract = "fract", Frexp = "frexp",
        Hypot = "hypot", Ilogb = "ilogb", Ldexp = "ldexp", Lgamma = "lgamma", LgammaR = "lgamma_r",
        Log = "log", Log2 = "log2", Log10 = "log10", Log1p = "log1p", Logb = "logb", Mad = "mad",
        Maxmag = "maxmag", Minmag = "minmag", Modf = "modf", Nan = "nan", Nextafter = "nextafter",
        Pow = "pow", Pown = "pown", Powr = "powr", Remainder = "remainder", Remquo = "remquo",
        Rint = "rint", Rootn = "rootn", Round = "round", Rsqrt = "rsqrt", Sin = "sin",
        Sincos = "sincos", Sinh = "sinh", Sinpi = "sinpi", Sqrt = "sqrt", Tan = "tan", Tanh = "tanh",
        Tanpi = "tanpi", Tgamma = "tgamma", Trunc = "trunc",
        /// Only as `half_divide` / `native_divide`.
        Divide = "divide",
        /// Only as `half_recip` / `native_recip`.
        Recip = "recip",
    }
}

/// Accuracy class of a math call: `sin`, `half_sin`, `native_sin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MathPrecision {
    Full,
    Half,
    Native,
}

named_enum! {
    /// §6.12.3 integer functions (`clamp`, `max`, `min` are in [`CommonFunction`] for both
    /// integers and floats).
    IntegerFunction {
        Abs = "abs", AbsDiff = "abs_diff", AddSat = "add_sat", Hadd = "hadd", Rhadd = "rhadd",
        Clz = "clz", MadHi = "mad_hi", MadSat = "mad_sat", MulHi = "mul_hi", Rotate = "rotate",
        SubSat = "sub_sat", Upsample = "upsample", Popcount = "popcount", Mad24 = "mad24",
        Mul24 = "mul24",
    }
}

named_enum! {
    /// §6.12.4 common functions, plus `clamp/max/min` for integers (§6.12.3).
    CommonFunction {
        Clamp = "clamp", Degrees = "degrees", Max = "max", Min = "min", Mix = "mix",
        Radians = "radians", Step = "step", Smoothstep = "smoothstep", Sign = "sign",
    }
}

named_enum! {
    /// §6.12.5 geometric functions.
    GeometricFunction {
        Cross = "cross", Dot = "dot", Distance = "distance", Length = "length",
        Normalize = "normalize", FastDistance = "fast_distance", FastLength = "fast_length",
        FastNormalize = "fast_normalize",
    }
}

named_enum! {
    /// §6.12.6 relational functions.
    RelationalFunction {
        IsEqual = "isequal", IsNotEqual = "isnotequal", IsGreater = "isgreater",
        IsGreaterEqual = "isgreaterequal", IsLess = "isless", IsLessEqual = "islessequal",
        IsLessGreater = "islessgreater", IsFinite = "isfinite", IsInf = "isinf", IsNan = "isnan",
        IsNormal = "isnormal", IsOrdered = "isordered", IsUnordered = "isunordered",
        Signbit = "signbit", Any = "any", All = "all", Bitselect = "bitselect", Select = "select",
    }
}

named_enum! {
    /// §6.12.11 atomic functions; the operation is the same for `atomic_*` and `atom_*` names.
    AtomicOp {
        Add = "add", Sub = "sub", Xchg = "xchg", Inc = "inc", Dec = "dec", CmpXchg = "cmpxchg",
        Min = "min", Max = "max", And = "and", Or = "or", Xor = "xor",
    }
}

named_enum! {
    /// §6.12.14.5 image queries.
    ImageQuery {
        Width = "get_image_width",
        Height = "get_image_height",
        Depth = "get_image_depth",
        ChannelDataType = "get_image_channel_data_type",
        ChannelOrder = "get_image_channel_order",
        Dim = "get_image_dim",
        ArraySize = "get_image_array_size",
    }
}

/// The element type of `read_image*` results and `write_image*` colours: the suffix of the
/// function's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ImageValue {
    /// `read_imagef` / `write_imagef`: `float4`.
    Float,
    /// `read_imagei` / `write_imagei`: `int4`.
    Int,
    /// `read_imageui` / `write_imageui`: `uint4`.
    UInt,
}

impl ImageValue {
    pub const ALL: [ImageValue; 3] = [ImageValue::Float, ImageValue::Int, ImageValue::UInt];

    pub const fn suffix(self) -> &'static str {
        match self {
            ImageValue::Float => "f",
            ImageValue::Int => "i",
            ImageValue::UInt => "ui",
        }
    }

    pub const fn scalar(self) -> super::Scalar {
        match self {
            ImageValue::Float => super::Scalar::Float,
            ImageValue::Int => super::Scalar::Int,
            ImageValue::UInt => super::Scalar::UInt,
        }
    }

    pub fn from_suffix(suffix: &str) -> Option<ImageValue> {
        ImageValue::ALL.into_iter().find(|v| v.suffix() == suffix)
    }
}

/// Rounding mode of conversions and `vstore_half`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rounding {
    /// to nearest even
    Rte,
    /// toward zero
    Rtz,
    /// toward +infinity
    Rtp,
    /// toward -infinity
    Rtn,
}

impl Rounding {
    pub const fn suffix(self) -> &'static str {
        match self {
            Rounding::Rte => "_rte",
            Rounding::Rtz => "_rtz",
            Rounding::Rtp => "_rtp",
            Rounding::Rtn => "_rtn",
        }
    }
}

/// A resolved built-in function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    WorkItem(WorkItemFunction),
    Math {
        function: MathFunction,
        precision: MathPrecision,
    },
    Integer(IntegerFunction),
    Common(CommonFunction),
    Geometric(GeometricFunction),
    Relational(RelationalFunction),
    /// `vloadN(offset, p)`, `vload_half(offset, p)`, `vload_halfN`, `vloada_halfN`.
    /// `width` is `None` for the scalar `vload_half`.
    VectorLoad {
        width: Option<super::VectorSize>,
        half: bool,
        aligned: bool,
    },
    /// `vstoreN(data, offset, p)`, `vstore_half[N][_rte…]`, `vstorea_halfN[_rte…]`.
    VectorStore {
        width: Option<super::VectorSize>,
        half: bool,
        aligned: bool,
        rounding: Option<Rounding>,
    },
    /// `async_work_group_copy` (`strided: false`) / `async_work_group_strided_copy`.
    AsyncCopy {
        strided: bool,
    },
    WaitGroupEvents,
    Prefetch,
    /// `atomic_add` (`legacy: false`) or the `atom_add` extension spelling (`legacy: true`).
    Atomic {
        op: AtomicOp,
        legacy: bool,
    },
    Shuffle,
    Shuffle2,
    Printf,
    /// `read_imagef(image, [sampler,] coord)` and its `i`/`ui` forms (§6.12.14.2): with a
    /// sampler when the call has three arguments. The image's type says how many coordinate
    /// components there are, the coordinate's type whether they are `int` or `float`.
    ReadImage(ImageValue),
    /// `write_imagef(image, coord, color)` and its `i`/`ui` forms (§6.12.14.4).
    WriteImage(ImageValue),
    ImageQuery(ImageQuery),
}

impl Builtin {
    /// The name as written in OpenCL C, for the printer and diagnostics.
    pub fn name(self) -> String {
        match self {
            Builtin::WorkItem(f) => f.name().to_string(),
            Builtin::Math { function, precision } => match precision {
                MathPrecision::Full => function.name().to_string(),
                MathPrecision::Half => format!("half_{}", function.name()),
                MathPrecision::Native => format!("native_{}", function.name()),
            },
            Builtin::Integer(f) => f.name().to_string(),
            Builtin::Common(f) => f.name().to_string(),
            Builtin::Geometric(f) => f.name().to_string(),
            Builtin::Relational(f) => f.name().to_string(),
            Builtin::VectorLoad { width, half, aligned } => {
                let w = width.map(|w| w.width().to_string()).unwrap_or_default();
                match (half, aligned) {
                    (false, _) => format!("vload{w}"),
                    (true, false) => format!("vload_half{w}"),
                    (true, true) => format!("vloada_half{w}"),
                }
            }
            Builtin::VectorStore { width, half, aligned, rounding } => {
                let w = width.map(|w| w.width().to_string()).unwrap_or_default();
                let r = rounding.map(Rounding::suffix).unwrap_or("");
                match (half, aligned) {
                    (false, _) => format!("vstore{w}"),
                    (true, false) => format!("vstore_half{w}{r}"),
                    (true, true) => format!("vstorea_half{w}{r}"),
                }
            }
            Builtin::AsyncCopy { strided: false } => "async_work_group_copy".to_string(),
            Builtin::AsyncCopy { strided: true } => "async_work_group_strided_copy".to_string(),
            Builtin::WaitGroupEvents => "wait_group_events".to_string(),
            Builtin::Prefetch => "prefetch".to_string(),
            Builtin::Atomic { op, legacy } => {
                format!("{}_{}", if legacy { "atom" } else { "atomic" }, op.name())
            }
            Builtin::Shuffle => "shuffle".to_string(),
            Builtin::Shuffle2 => "shuffle2".to_string(),
            Builtin::Printf => "printf".to_string(),
            Builtin::ReadImage(v) => format!("read_image{}", v.suffix()),
            Builtin::WriteImage(v) => format!("write_image{}", v.suffix()),
            Builtin::ImageQuery(q) => q.name().to_string(),
        }
    }

    /// Whether the call reads or writes memory through a pointer or image argument (the
    /// simulator reports these accesses to observers).
    pub fn touches_memory(self) -> bool {
        matches!(
            self,
            Builtin::ReadImage(_)
                | Builtin::WriteImage(_)
                | Builtin::VectorLoad { .. }
                | Builtin::VectorStore { .. }
                | Builtin::AsyncCopy { .. }
                | Builtin::Atomic { .. }
                | Builtin::Prefetch
        ) || matches!(
            self,
            Builtin::Math {
                function: MathFunction::Fract
                    | MathFunction::Frexp
                    | MathFunction::LgammaR
                    | MathFunction::Modf
                    | MathFunction::Remquo
                    | MathFunction::Sincos,
                ..
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::VectorSize;

    #[test]
    fn names_round_trip_as_opencl_spells_them() {
        assert_eq!(
            Builtin::Math { function: MathFunction::Exp, precision: MathPrecision::Native }.name(),
            "native_exp"
        );
        assert_eq!(
            Builtin::VectorStore {
                width: Some(VectorSize::Four),
                half: true,
                aligned: true,
                rounding: Some(Rounding::Rtz)
            }
            .name(),
            "vstorea_half4_rtz"
        );
        assert_eq!(Builtin::Atomic { op: AtomicOp::CmpXchg, legacy: true }.name(), "atom_cmpxchg");
        assert_eq!(MathFunction::from_name("atan2pi"), Some(MathFunction::Atan2pi));
        assert_eq!(Builtin::ReadImage(ImageValue::UInt).name(), "read_imageui");
        assert_eq!(Builtin::WriteImage(ImageValue::Float).name(), "write_imagef");
        assert_eq!(ImageQuery::from_name("get_image_dim"), Some(ImageQuery::Dim));
    }
}
