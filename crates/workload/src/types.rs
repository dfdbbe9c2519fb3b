//! Element types known by name only: this crate never looks inside the OpenCL C front end, so
//! a type is a scalar kind plus a vector width, parsed from spellings such as `float4`.

use std::fmt;

/// An OpenCL C scalar type that can live in a buffer or be passed by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
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

impl ScalarType {
    /// Every scalar type, in the order used by error messages.
    pub const ALL: [ScalarType; 11] = [
        ScalarType::Char,
        ScalarType::UChar,
        ScalarType::Short,
        ScalarType::UShort,
        ScalarType::Int,
        ScalarType::UInt,
        ScalarType::Long,
        ScalarType::ULong,
        ScalarType::Half,
        ScalarType::Float,
        ScalarType::Double,
    ];

    /// Size in bytes.
    pub fn size(self) -> u64 {
        match self {
            ScalarType::Char | ScalarType::UChar => 1,
            ScalarType::Short | ScalarType::UShort | ScalarType::Half => 2,
            ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
            ScalarType::Long | ScalarType::ULong | ScalarType::Double => 8,
        }
    }

    /// The OpenCL C spelling.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Char => "char",
            ScalarType::UChar => "uchar",
            ScalarType::Short => "short",
            ScalarType::UShort => "ushort",
            ScalarType::Int => "int",
            ScalarType::UInt => "uint",
            ScalarType::Long => "long",
            ScalarType::ULong => "ulong",
            ScalarType::Half => "half",
            ScalarType::Float => "float",
            ScalarType::Double => "double",
        }
    }

    /// Parses the OpenCL C spelling (also the `unsigned int` style long forms).
    pub fn parse(text: &str) -> Option<ScalarType> {
        let normalised = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let ty = match normalised.as_str() {
            "char" | "signed char" => ScalarType::Char,
            "uchar" | "unsigned char" => ScalarType::UChar,
            "short" | "signed short" => ScalarType::Short,
            "ushort" | "unsigned short" => ScalarType::UShort,
            "int" | "signed int" | "signed" => ScalarType::Int,
            "uint" | "unsigned int" | "unsigned" => ScalarType::UInt,
            "long" | "signed long" => ScalarType::Long,
            "ulong" | "unsigned long" => ScalarType::ULong,
            "half" => ScalarType::Half,
            "float" => ScalarType::Float,
            "double" => ScalarType::Double,
            _ => return None,
        };
        Some(ty)
    }

    /// True for half, float and double.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::Half | ScalarType::Float | ScalarType::Double)
    }

    /// True for the signed integer types.
    pub fn is_signed_int(self) -> bool {
        matches!(self, ScalarType::Char | ScalarType::Short | ScalarType::Int | ScalarType::Long)
    }

    /// The inclusive range of an integer type, `None` for floating-point types.
    pub fn int_range(self) -> Option<(i128, i128)> {
        let bits = 8 * self.size() as u32;
        if self.is_float() {
            None
        } else if self.is_signed_int() {
            Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
        } else {
            Some((0, (1i128 << bits) - 1))
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Vector widths OpenCL C allows.
pub const VECTOR_WIDTHS: [u8; 6] = [1, 2, 3, 4, 8, 16];

/// A scalar or vector element type, e.g. `float` (width 1) or `int4` (width 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElemType {
    pub scalar: ScalarType,
    /// Number of components: 1, 2, 3, 4, 8 or 16.
    pub width: u8,
}

impl ElemType {
    /// A one-component type.
    pub fn scalar(scalar: ScalarType) -> ElemType {
        ElemType { scalar, width: 1 }
    }

    /// Parses `float`, `uint4`, `double16`, ... Returns `None` for anything else.
    pub fn parse(text: &str) -> Option<ElemType> {
        let text = text.trim();
        let split = text.find(|c: char| c.is_ascii_digit()).unwrap_or(text.len());
        let (base, digits) = text.split_at(split);
        let scalar = ScalarType::parse(base)?;
        if digits.is_empty() {
            return Some(ElemType::scalar(scalar));
        }
        // `int01` or `float4x` are not types.
        if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let width: u8 = digits.parse().ok()?;
        VECTOR_WIDTHS.contains(&width).then_some(ElemType { scalar, width })
    }

    /// Bytes one element occupies in a buffer. A 3-component vector is padded to 4, as in OpenCL.
    pub fn size(self) -> u64 {
        self.scalar.size() * u64::from(self.storage_width())
    }

    /// Components stored per element, counting the padding lane of 3-component vectors.
    pub fn storage_width(self) -> u8 {
        if self.width == 3 {
            4
        } else {
            self.width
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.width == 1 {
            write!(f, "{}", self.scalar)
        } else {
            write!(f, "{}{}", self.scalar, self.width)
        }
    }
}

/// The list of valid type spellings, for error messages.
pub(crate) fn valid_type_names() -> String {
    let names: Vec<&str> = ScalarType::ALL.iter().map(|s| s.name()).collect();
    format!("{} (or vectors such as float4, int2; widths 2, 3, 4, 8, 16)", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_scalars_and_vectors() {
        assert_eq!(ElemType::parse("float"), Some(ElemType::scalar(ScalarType::Float)));
        assert_eq!(ElemType::parse("uint4"), Some(ElemType { scalar: ScalarType::UInt, width: 4 }));
        assert_eq!(ElemType::parse("double16").map(|t| t.size()), Some(128));
        assert_eq!(ElemType::parse("float3").map(|t| t.size()), Some(16));
        assert_eq!(ElemType::parse("unsigned int"), Some(ElemType::scalar(ScalarType::UInt)));
    }

    #[test]
    fn rejects_bad_spellings() {
        for bad in ["float5", "int04", "floaty", "", "4", "int4x", "float0", "half32"] {
            assert_eq!(ElemType::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn integer_ranges() {
        assert_eq!(ScalarType::UChar.int_range(), Some((0, 255)));
        assert_eq!(ScalarType::Char.int_range(), Some((-128, 127)));
        assert_eq!(ScalarType::ULong.int_range(), Some((0, u64::MAX as i128)));
        assert_eq!(ScalarType::Float.int_range(), None);
    }

    #[test]
    fn display_round_trips() {
        for text in ["char", "ushort8", "double2", "half", "long3"] {
            assert_eq!(ElemType::parse(text).map(|t| t.to_string()), Some(text.to_string()));
        }
    }
}
