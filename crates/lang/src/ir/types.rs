//! Types of the IR and their memory layout (OpenCL C 1.2 §6.1, with 64-bit addresses).

use super::arena::{Handle, UniqueArena};

/// Scalar types. `size_t`, `ptrdiff_t`, `intptr_t` and `uintptr_t` are 64-bit on every device
/// clmap targets, so sema maps them to `ULong`/`Long`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    Float,
    Double,
}

impl Scalar {
    /// Size in bytes (`bool` is one byte, though it may not be stored in buffers).
    pub const fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort | Scalar::Half => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Long | Scalar::ULong | Scalar::Double => 8,
        }
    }

    pub const fn is_float(self) -> bool {
        matches!(self, Scalar::Half | Scalar::Float | Scalar::Double)
    }

    pub const fn is_integer(self) -> bool {
        !self.is_float() && !matches!(self, Scalar::Bool)
    }

    pub const fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::Char
                | Scalar::Short
                | Scalar::Int
                | Scalar::Long
                | Scalar::Half
                | Scalar::Float
                | Scalar::Double
        )
    }

    /// Integer conversion rank (C99 §6.3.1.1); floats rank above all integers.
    pub const fn rank(self) -> u8 {
        match self {
            Scalar::Bool => 0,
            Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt => 3,
            Scalar::Long | Scalar::ULong => 4,
            Scalar::Half => 5,
            Scalar::Float => 6,
            Scalar::Double => 7,
        }
    }

    /// The OpenCL C spelling (`uchar`, not `unsigned char`).
    pub const fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long => "long",
            Scalar::ULong => "ulong",
            Scalar::Half => "half",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }

    /// The signed integer of the same size: the element type of vector comparison results.
    pub const fn signed_of_size(size: u32) -> Scalar {
        match size {
            1 => Scalar::Char,
            2 => Scalar::Short,
            4 => Scalar::Int,
            _ => Scalar::Long,
        }
    }

    pub const fn to_unsigned(self) -> Scalar {
        match self {
            Scalar::Char => Scalar::UChar,
            Scalar::Short => Scalar::UShort,
            Scalar::Int => Scalar::UInt,
            Scalar::Long => Scalar::ULong,
            other => other,
        }
    }
}

/// Vector widths of OpenCL C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VectorSize {
    Two = 2,
    Three = 3,
    Four = 4,
    Eight = 8,
    Sixteen = 16,
}

impl VectorSize {
    pub const fn from_width(width: u32) -> Option<VectorSize> {
        match width {
            2 => Some(VectorSize::Two),
            3 => Some(VectorSize::Three),
            4 => Some(VectorSize::Four),
            8 => Some(VectorSize::Eight),
            16 => Some(VectorSize::Sixteen),
            _ => None,
        }
    }

    pub const fn width(self) -> u32 {
        self as u32
    }

    /// Storage width: a 3-vector occupies the space (and alignment) of a 4-vector.
    pub const fn storage_width(self) -> u32 {
        match self {
            VectorSize::Three => 4,
            other => other as u32,
        }
    }
}

/// Where memory lives. Every pointer type and every variable has exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddressSpace {
    Private,
    Global,
    Local,
    Constant,
}

impl AddressSpace {
    /// The qualifier as the printer writes it.
    pub const fn qualifier(self) -> &'static str {
        match self {
            AddressSpace::Private => "__private",
            AddressSpace::Global => "__global",
            AddressSpace::Local => "__local",
            AddressSpace::Constant => "__constant",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructMember {
    pub name: String,
    pub ty: Handle<Type>,
    /// Byte offset from the start of the struct (0 for every member of a union).
    pub offset: u32,
}

/// How the source named a struct, so the printer can write it back the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StructNaming {
    /// `struct Name { … }`
    Tag,
    /// `typedef struct { … } Name;` (no tag)
    Typedef,
}

pub type Type = TypeInner;

/// A type. Types live in a [`UniqueArena`], so two handles are equal exactly when the types are.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeInner {
    Void,
    Scalar(Scalar),
    Vector {
        scalar: Scalar,
        size: VectorSize,
    },
    /// A pointer into `space`; `is_const`/`is_volatile`/`is_restrict` qualify the pointee
    /// (`const __global float *`), as written in the source.
    Pointer {
        pointee: Handle<Type>,
        space: AddressSpace,
        is_const: bool,
        is_volatile: bool,
        is_restrict: bool,
    },
    /// Fixed-size array; C's `[]` parameters are pointers by the time they reach the IR.
    Array {
        element: Handle<Type>,
        len: u32,
    },
    /// A struct or union. `name` is unique among the module's structs (sema invents one for an
    /// anonymous struct that is not typedef'd).
    Struct {
        name: String,
        naming: StructNaming,
        is_union: bool,
        members: Vec<StructMember>,
        size: u32,
        align: u32,
    },
    /// `event_t`, the handle returned by `async_work_group_copy`.
    Event,
}

impl TypeInner {
    pub fn scalar(&self) -> Option<Scalar> {
        match *self {
            TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } => Some(s),
            _ => None,
        }
    }

    pub fn vector_size(&self) -> Option<VectorSize> {
        match *self {
            TypeInner::Vector { size, .. } => Some(size),
            _ => None,
        }
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, TypeInner::Pointer { .. })
    }

    pub fn is_arithmetic(&self) -> bool {
        matches!(self, TypeInner::Scalar(_) | TypeInner::Vector { .. })
    }
}

/// Size of a type in bytes, as on the device (vec3 = vec4, struct padding included).
pub fn size_of(types: &UniqueArena<Type>, ty: Handle<Type>) -> u32 {
    match types.get(ty) {
        Some(TypeInner::Scalar(s)) => s.size(),
        Some(TypeInner::Vector { scalar, size }) => scalar.size() * size.storage_width(),
        Some(TypeInner::Pointer { .. }) => 8,
        Some(TypeInner::Array { element, len }) => size_of(types, *element).saturating_mul(*len),
        Some(TypeInner::Struct { size, .. }) => *size,
        Some(TypeInner::Event) => 8,
        Some(TypeInner::Void) | None => 0,
    }
}

/// Alignment of a type in bytes: vectors are aligned to their size (vec3 to vec4's).
pub fn align_of(types: &UniqueArena<Type>, ty: Handle<Type>) -> u32 {
    match types.get(ty) {
        Some(TypeInner::Scalar(s)) => s.size(),
        Some(TypeInner::Vector { scalar, size }) => scalar.size() * size.storage_width(),
        Some(TypeInner::Pointer { .. }) | Some(TypeInner::Event) => 8,
        Some(TypeInner::Array { element, .. }) => align_of(types, *element),
        Some(TypeInner::Struct { align, .. }) => *align,
        Some(TypeInner::Void) | None => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;

    #[test]
    fn vec3_is_laid_out_as_vec4() {
        let mut types = UniqueArena::new();
        let f3 = types.insert(
            TypeInner::Vector { scalar: Scalar::Float, size: VectorSize::Three },
            Span::UNDEFINED,
        );
        assert_eq!(size_of(&types, f3), 16);
        assert_eq!(align_of(&types, f3), 16);
        let arr = types.insert(TypeInner::Array { element: f3, len: 3 }, Span::UNDEFINED);
        assert_eq!(size_of(&types, arr), 48);
    }
}
