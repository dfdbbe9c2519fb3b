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

/// How the name of an anonymous struct or union member starts (C11 §6.7.2.1p13): the member is
/// kept as a nested record under an invented name, and member lookup looks through it.
pub const ANONYMOUS_MEMBER_PREFIX: &str = "__anonymous_member_";

impl StructMember {
    /// Whether this member stands for an anonymous struct or union.
    pub fn is_anonymous(&self) -> bool {
        self.name.starts_with(ANONYMOUS_MEMBER_PREFIX)
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
    ///
    /// A struct may point to itself (`struct node { struct node *next; }`): sema stores the
    /// struct incomplete when its tag is first seen and completes it in place
    /// ([`UniqueArena::replace`]), so its members may refer to types after it and the type
    /// graph has cycles, always through a pointer. An incomplete struct (`is_complete` false:
    /// only declared, as `struct node;`) has no members, size 0 and align 1, and may only be
    /// pointed to; the validator checks that every struct held by value (in a variable, a
    /// member, an array, an expression) is complete and that no struct contains itself.
    Struct {
        name: String,
        naming: StructNaming,
        is_union: bool,
        members: Vec<StructMember>,
        size: u32,
        align: u32,
        is_complete: bool,
    },
    /// `event_t`, the handle returned by `async_work_group_copy`.
    Event,
    /// An image (`image2d_t` …): opaque, only a function parameter, read and written through
    /// the image built-ins. Its access qualifier belongs to the parameter
    /// ([`super::Parameter::access`]).
    Image(ImageKind),
    /// `sampler_t`: how an image read addresses and filters texels. Its value is the bit set
    /// of the `CLK_*` sampler constants ([`SamplerBits`]).
    Sampler,
}

/// The image types of OpenCL C 1.2 (§6.1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ImageKind {
    Image1d,
    Image1dBuffer,
    Image1dArray,
    Image2d,
    Image2dArray,
    Image3d,
}

impl ImageKind {
    pub const ALL: [ImageKind; 6] = [
        ImageKind::Image1d,
        ImageKind::Image1dBuffer,
        ImageKind::Image1dArray,
        ImageKind::Image2d,
        ImageKind::Image2dArray,
        ImageKind::Image3d,
    ];

    /// The OpenCL C spelling of the type.
    pub const fn name(self) -> &'static str {
        match self {
            ImageKind::Image1d => "image1d_t",
            ImageKind::Image1dBuffer => "image1d_buffer_t",
            ImageKind::Image1dArray => "image1d_array_t",
            ImageKind::Image2d => "image2d_t",
            ImageKind::Image2dArray => "image2d_array_t",
            ImageKind::Image3d => "image3d_t",
        }
    }

    /// Spatial dimensions addressed by coordinates (1, 2 or 3), not counting the array layer.
    pub const fn dimensions(self) -> u32 {
        match self {
            ImageKind::Image1d | ImageKind::Image1dBuffer | ImageKind::Image1dArray => 1,
            ImageKind::Image2d | ImageKind::Image2dArray => 2,
            ImageKind::Image3d => 3,
        }
    }

    /// Whether the image is an array of layers (the layer is the coordinate after the
    /// spatial ones).
    pub const fn is_array(self) -> bool {
        matches!(self, ImageKind::Image1dArray | ImageKind::Image2dArray)
    }

    /// Components of the coordinate argument of reads and writes: `int`/`float` for 1-D,
    /// two for 2-D and 1-D arrays, four for 3-D and 2-D arrays (the last one ignored).
    pub const fn coordinate_width(self) -> u32 {
        match self {
            ImageKind::Image1d | ImageKind::Image1dBuffer => 1,
            ImageKind::Image1dArray | ImageKind::Image2d => 2,
            ImageKind::Image2dArray | ImageKind::Image3d => 4,
        }
    }
}

/// Access qualifier of an image parameter (§6.6). An image parameter written without one is
/// `read_only`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccessQualifier {
    ReadOnly,
    WriteOnly,
    /// OpenCL C 2.0 only.
    ReadWrite,
}

impl AccessQualifier {
    /// The qualifier as the printer writes it.
    pub const fn qualifier(self) -> &'static str {
        match self {
            AccessQualifier::ReadOnly => "__read_only",
            AccessQualifier::WriteOnly => "__write_only",
            AccessQualifier::ReadWrite => "__read_write",
        }
    }

    /// The spelling without underscores, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            AccessQualifier::ReadOnly => "read_only",
            AccessQualifier::WriteOnly => "write_only",
            AccessQualifier::ReadWrite => "read_write",
        }
    }
}

/// The fields of a `sampler_t` value: the `CLK_*` constants OR-ed together (§6.12.14.1), with
/// the numbers every OpenCL implementation uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerBits {
    pub normalized_coords: bool,
    pub addressing: AddressingMode,
    pub filter: FilterMode,
}

/// `CLK_ADDRESS_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressingMode {
    None,
    ClampToEdge,
    Clamp,
    Repeat,
    MirroredRepeat,
}

/// `CLK_FILTER_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FilterMode {
    Nearest,
    Linear,
}

impl SamplerBits {
    pub const NORMALIZED_COORDS_TRUE: u32 = 1;
    pub const ADDRESS_MASK: u32 = 0xE;
    pub const FILTER_MASK: u32 = 0x30;

    /// Decodes a sampler value; `None` when it sets bits no `CLK_*` constant has, or an
    /// addressing or filter mode that does not exist. A value without filter bits reads as
    /// `CLK_FILTER_NEAREST` (clang accepts it with a warning).
    pub const fn decode(bits: u32) -> Option<SamplerBits> {
        if bits & !(Self::NORMALIZED_COORDS_TRUE | Self::ADDRESS_MASK | Self::FILTER_MASK) != 0 {
            return None;
        }
        let addressing = match bits & Self::ADDRESS_MASK {
            0 => AddressingMode::None,
            2 => AddressingMode::ClampToEdge,
            4 => AddressingMode::Clamp,
            6 => AddressingMode::Repeat,
            8 => AddressingMode::MirroredRepeat,
            _ => return None,
        };
        let filter = match bits & Self::FILTER_MASK {
            0 | 0x10 => FilterMode::Nearest,
            0x20 => FilterMode::Linear,
            _ => return None,
        };
        Some(SamplerBits {
            normalized_coords: bits & Self::NORMALIZED_COORDS_TRUE != 0,
            addressing,
            filter,
        })
    }

    pub const fn encode(self) -> u32 {
        let addressing = match self.addressing {
            AddressingMode::None => 0,
            AddressingMode::ClampToEdge => 2,
            AddressingMode::Clamp => 4,
            AddressingMode::Repeat => 6,
            AddressingMode::MirroredRepeat => 8,
        };
        let filter = match self.filter {
            FilterMode::Nearest => 0x10,
            FilterMode::Linear => 0x20,
        };
        self.normalized_coords as u32 | addressing | filter
    }

    /// The value written with the `CLK_*` names, as a kernel would write it.
    pub fn constant_names(self) -> String {
        let normalized = if self.normalized_coords {
            "CLK_NORMALIZED_COORDS_TRUE"
        } else {
            "CLK_NORMALIZED_COORDS_FALSE"
        };
        let addressing = match self.addressing {
            AddressingMode::None => "CLK_ADDRESS_NONE",
            AddressingMode::ClampToEdge => "CLK_ADDRESS_CLAMP_TO_EDGE",
            AddressingMode::Clamp => "CLK_ADDRESS_CLAMP",
            AddressingMode::Repeat => "CLK_ADDRESS_REPEAT",
            AddressingMode::MirroredRepeat => "CLK_ADDRESS_MIRRORED_REPEAT",
        };
        let filter = match self.filter {
            FilterMode::Nearest => "CLK_FILTER_NEAREST",
            FilterMode::Linear => "CLK_FILTER_LINEAR",
        };
        format!("{normalized} | {addressing} | {filter}")
    }
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

    /// A struct or union only declared so far: it may be pointed to, not held by value.
    pub fn is_incomplete(&self) -> bool {
        matches!(self, TypeInner::Struct { is_complete: false, .. })
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, TypeInner::Pointer { .. })
    }

    pub fn is_arithmetic(&self) -> bool {
        matches!(self, TypeInner::Scalar(_) | TypeInner::Vector { .. })
    }

    /// Images and samplers: values that may not be stored, computed with or pointed to.
    pub fn is_image_or_sampler(&self) -> bool {
        matches!(self, TypeInner::Image(_) | TypeInner::Sampler)
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
        // Handles, as clang lays them out on 64-bit targets (`sizeof(image2d_t)` is 8).
        Some(TypeInner::Event | TypeInner::Image(_) | TypeInner::Sampler) => 8,
        Some(TypeInner::Void) | None => 0,
    }
}

/// Alignment of a type in bytes: vectors are aligned to their size (vec3 to vec4's).
pub fn align_of(types: &UniqueArena<Type>, ty: Handle<Type>) -> u32 {
    match types.get(ty) {
        Some(TypeInner::Scalar(s)) => s.size(),
        Some(TypeInner::Vector { scalar, size }) => scalar.size() * size.storage_width(),
        Some(
            TypeInner::Pointer { .. } | TypeInner::Event | TypeInner::Image(_) | TypeInner::Sampler,
        ) => 8,
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

    #[test]
    fn sampler_bits_round_trip_through_the_clk_constants() {
        let bits = 0x20 | 6 | 1; // LINEAR | REPEAT | NORMALIZED_COORDS_TRUE
        let decoded = SamplerBits::decode(bits).expect("valid sampler");
        assert_eq!(decoded.addressing, AddressingMode::Repeat);
        assert_eq!(decoded.filter, FilterMode::Linear);
        assert!(decoded.normalized_coords);
        assert_eq!(decoded.encode(), bits);
        assert_eq!(
            SamplerBits::decode(0x10 | 4).map(SamplerBits::constant_names).as_deref(),
            Some("CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST")
        );
        assert_eq!(SamplerBits::decode(0x10 | 10), None, "no addressing mode 5");
        assert_eq!(SamplerBits::decode(0x30), None, "two filters");
        assert_eq!(
            SamplerBits::decode(0x2).map(|s| s.filter),
            Some(FilterMode::Nearest),
            "no filter bits"
        );
        assert_eq!(SamplerBits::decode(0x110), None, "unknown bit");
    }
}
