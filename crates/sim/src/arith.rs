//! Element-wise arithmetic on register lanes, generic over the Rust type of the scalar so
//! that each operation is one monomorphised loop.

use crate::value::{Half, Lane};

/// Conversion between primitive types with C / OpenCL semantics (`as` casts: integers wrap,
/// floats to integers truncate and saturate).
pub(crate) trait Prim: Lane + PartialOrd {
    fn as_i8(self) -> i8;
    fn as_u8(self) -> u8;
    fn as_i16(self) -> i16;
    fn as_u16(self) -> u16;
    fn as_i32(self) -> i32;
    fn as_u32(self) -> u32;
    fn as_i64(self) -> i64;
    fn as_u64(self) -> u64;
    fn as_f32(self) -> f32;
    fn as_f64(self) -> f64;
    fn from_prim<S: Prim>(s: S) -> Self;
}

macro_rules! prim {
    ($t:ty, $as:ident) => {
        impl Prim for $t {
            #[inline(always)]
            fn as_i8(self) -> i8 {
                self as i8
            }
            #[inline(always)]
            fn as_u8(self) -> u8 {
                self as u8
            }
            #[inline(always)]
            fn as_i16(self) -> i16 {
                self as i16
            }
            #[inline(always)]
            fn as_u16(self) -> u16 {
                self as u16
            }
            #[inline(always)]
            fn as_i32(self) -> i32 {
                self as i32
            }
            #[inline(always)]
            fn as_u32(self) -> u32 {
                self as u32
            }
            #[inline(always)]
            fn as_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn as_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn as_f32(self) -> f32 {
                self as f32
            }
            #[inline(always)]
            fn as_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_prim<S: Prim>(s: S) -> Self {
                s.$as()
            }
        }
    };
}
prim!(i8, as_i8);
prim!(u8, as_u8);
prim!(i16, as_i16);
prim!(u16, as_u16);
prim!(i32, as_i32);
prim!(u32, as_u32);
prim!(i64, as_i64);
prim!(u64, as_u64);
prim!(f32, as_f32);
prim!(f64, as_f64);

impl Prim for Half {
    #[inline(always)]
    fn as_i8(self) -> i8 {
        self.0 as i8
    }
    #[inline(always)]
    fn as_u8(self) -> u8 {
        self.0 as u8
    }
    #[inline(always)]
    fn as_i16(self) -> i16 {
        self.0 as i16
    }
    #[inline(always)]
    fn as_u16(self) -> u16 {
        self.0 as u16
    }
    #[inline(always)]
    fn as_i32(self) -> i32 {
        self.0 as i32
    }
    #[inline(always)]
    fn as_u32(self) -> u32 {
        self.0 as u32
    }
    #[inline(always)]
    fn as_i64(self) -> i64 {
        self.0 as i64
    }
    #[inline(always)]
    fn as_u64(self) -> u64 {
        self.0 as u64
    }
    #[inline(always)]
    fn as_f32(self) -> f32 {
        self.0
    }
    #[inline(always)]
    fn as_f64(self) -> f64 {
        f64::from(self.0)
    }
    #[inline(always)]
    fn from_prim<S: Prim>(s: S) -> Self {
        Half(s.as_f32())
    }
}

/// The operators of OpenCL C on one scalar type.
pub(crate) trait Arith: Prim {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// Integer division by zero yields 0 (the caller reports it).
    fn div(self, o: Self) -> Self;
    fn rem(self, o: Self) -> Self;
    fn shl(self, o: Self) -> Self;
    fn shr(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn not(self) -> Self;
    fn is_zero(self) -> bool;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline(always)] fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline(always)] fn div(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_div(o) } }
            #[inline(always)] fn rem(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_rem(o) } }
            // OpenCL masks the shift count by the bit width of the left operand.
            #[inline(always)] fn shl(self, o: Self) -> Self { self.wrapping_shl(o as u32) }
            #[inline(always)] fn shr(self, o: Self) -> Self { self.wrapping_shr(o as u32) }
            #[inline(always)] fn and(self, o: Self) -> Self { self & o }
            #[inline(always)] fn or(self, o: Self) -> Self { self | o }
            #[inline(always)] fn xor(self, o: Self) -> Self { self ^ o }
            #[inline(always)] fn neg(self) -> Self { (0 as $t).wrapping_sub(self) }
            #[inline(always)] fn not(self) -> Self { !self }
            #[inline(always)] fn is_zero(self) -> bool { self == 0 }
        }
    )*};
}
int_arith!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! float_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, o: Self) -> Self { self + o }
            #[inline(always)] fn sub(self, o: Self) -> Self { self - o }
            #[inline(always)] fn mul(self, o: Self) -> Self { self * o }
            #[inline(always)] fn div(self, o: Self) -> Self { self / o }
            #[inline(always)] fn rem(self, o: Self) -> Self { self % o }
            #[inline(always)] fn shl(self, _o: Self) -> Self { self }
            #[inline(always)] fn shr(self, _o: Self) -> Self { self }
            #[inline(always)] fn and(self, _o: Self) -> Self { self }
            #[inline(always)] fn or(self, _o: Self) -> Self { self }
            #[inline(always)] fn xor(self, _o: Self) -> Self { self }
            #[inline(always)] fn neg(self) -> Self { -self }
            #[inline(always)] fn not(self) -> Self { self }
            #[inline(always)] fn is_zero(self) -> bool { self == 0.0 }
        }
    )*};
}
float_arith!(f32, f64);

impl Arith for Half {
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Half(self.0 + o.0)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Half(self.0 - o.0)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Half(self.0 * o.0)
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        Half(self.0 / o.0)
    }
    #[inline(always)]
    fn rem(self, o: Self) -> Self {
        Half(self.0 % o.0)
    }
    #[inline(always)]
    fn shl(self, _o: Self) -> Self {
        self
    }
    #[inline(always)]
    fn shr(self, _o: Self) -> Self {
        self
    }
    #[inline(always)]
    fn and(self, _o: Self) -> Self {
        self
    }
    #[inline(always)]
    fn or(self, _o: Self) -> Self {
        self
    }
    #[inline(always)]
    fn xor(self, _o: Self) -> Self {
        self
    }
    #[inline(always)]
    fn neg(self) -> Self {
        Half(-self.0)
    }
    #[inline(always)]
    fn not(self) -> Self {
        self
    }
    #[inline(always)]
    fn is_zero(self) -> bool {
        self.0 == 0.0
    }
}

/// `d[i] = f(a[i])` over equal-length slices.
#[inline(always)]
pub(crate) fn map1<A: Lane, R: Lane>(d: &mut [u64], a: &[u64], f: impl Fn(A) -> R) {
    for (d, a) in d.iter_mut().zip(a) {
        *d = f(A::from_bits(*a)).to_bits();
    }
}

/// `d[i] = f(a[i], b[i])` over equal-length slices.
#[inline(always)]
pub(crate) fn map2<A: Lane, R: Lane>(d: &mut [u64], a: &[u64], b: &[u64], f: impl Fn(A, A) -> R) {
    for ((d, a), b) in d.iter_mut().zip(a).zip(b) {
        *d = f(A::from_bits(*a), A::from_bits(*b)).to_bits();
    }
}
