//! Which words are keywords, and what each declaration-specifier word means.
//!
//! The lexer hands every word over as an identifier (see `token.rs`), so the parser classifies
//! them here. Builtin type names such as `float4` or `size_t` are keywords in OpenCL C: they can
//! never name a variable.

use crate::ast::{AccessQualifier, AddressSpace, ImageKind, PrimitiveType, StorageClass};
use crate::ir::Scalar;

/// A word that may appear among declaration specifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SpecifierWord {
    Storage(StorageClass),
    /// `auto` and `register`: C99 words that OpenCL C does not support.
    UnsupportedStorage,
    Kernel,
    Inline,
    Const,
    Volatile,
    Restrict,
    AddressSpace(AddressSpace),
    Access(AccessQualifier),
    Attribute,
    Signed,
    Unsigned,
    Short,
    Long,
    Int,
    /// A one-word type: `float`, `uchar`, `size_t`, `image2d_t` …
    Primitive(PrimitiveType),
    Vector {
        scalar: PrimitiveType,
        width: u8,
    },
    Struct,
    Union,
    Enum,
}

impl SpecifierWord {
    /// Words that may start a type name (casts, `sizeof`, attribute arguments): everything but
    /// storage classes, function specifiers and attributes.
    pub(crate) fn starts_type_name(self) -> bool {
        !matches!(
            self,
            SpecifierWord::Storage(_)
                | SpecifierWord::UnsupportedStorage
                | SpecifierWord::Kernel
                | SpecifierWord::Inline
                | SpecifierWord::Attribute
        )
    }
}

/// Classifies a word that can appear among declaration specifiers.
pub(crate) fn specifier_word(word: &str) -> Option<SpecifierWord> {
    use SpecifierWord as W;
    let class = match word {
        "typedef" => W::Storage(StorageClass::Typedef),
        "extern" => W::Storage(StorageClass::Extern),
        "static" => W::Storage(StorageClass::Static),
        "auto" | "register" => W::UnsupportedStorage,
        "__kernel" | "kernel" => W::Kernel,
        "inline" | "__inline" | "__inline__" => W::Inline,
        "const" | "__const" | "__const__" => W::Const,
        "volatile" | "__volatile" | "__volatile__" => W::Volatile,
        "restrict" | "__restrict" | "__restrict__" => W::Restrict,
        "__global" | "global" => W::AddressSpace(AddressSpace::Global),
        "__local" | "local" => W::AddressSpace(AddressSpace::Local),
        "__constant" | "constant" => W::AddressSpace(AddressSpace::Constant),
        "__private" | "private" => W::AddressSpace(AddressSpace::Private),
        "__generic" | "generic" => W::AddressSpace(AddressSpace::Generic),
        "__read_only" | "read_only" => W::Access(AccessQualifier::ReadOnly),
        "__write_only" | "write_only" => W::Access(AccessQualifier::WriteOnly),
        "__read_write" | "read_write" => W::Access(AccessQualifier::ReadWrite),
        "__attribute__" | "__attribute" => W::Attribute,
        "signed" | "__signed" | "__signed__" => W::Signed,
        "unsigned" => W::Unsigned,
        "short" => W::Short,
        "long" => W::Long,
        "int" => W::Int,
        "struct" => W::Struct,
        "union" => W::Union,
        "enum" => W::Enum,
        _ => {
            if let Some(prim) = primitive_word(word) {
                W::Primitive(prim)
            } else if let Some((scalar, width)) = vector_word(word) {
                W::Vector { scalar, width }
            } else {
                return None;
            }
        }
    };
    Some(class)
}

/// One-word builtin types other than `int`, `short`, `long` (which combine with other words).
fn primitive_word(word: &str) -> Option<PrimitiveType> {
    use PrimitiveType as P;
    use Scalar as S;
    let prim = match word {
        "void" => P::Void,
        "bool" | "_Bool" => P::Scalar(S::Bool),
        "char" => P::Scalar(S::Char),
        "uchar" => P::Scalar(S::UChar),
        "ushort" => P::Scalar(S::UShort),
        "uint" => P::Scalar(S::UInt),
        "ulong" => P::Scalar(S::ULong),
        "half" => P::Scalar(S::Half),
        "float" => P::Scalar(S::Float),
        "double" => P::Scalar(S::Double),
        "size_t" => P::SizeT,
        "ptrdiff_t" => P::PtrdiffT,
        "intptr_t" => P::IntptrT,
        "uintptr_t" => P::UintptrT,
        "event_t" => P::Event,
        "sampler_t" => P::Sampler,
        "image1d_t" => P::Image(ImageKind::Image1d),
        "image1d_array_t" => P::Image(ImageKind::Image1dArray),
        "image1d_buffer_t" => P::Image(ImageKind::Image1dBuffer),
        "image2d_t" => P::Image(ImageKind::Image2d),
        "image2d_array_t" => P::Image(ImageKind::Image2dArray),
        "image3d_t" => P::Image(ImageKind::Image3d),
        _ => return None,
    };
    Some(prim)
}

/// `float4` → `(Float, 4)`; only the widths OpenCL C defines (2, 3, 4, 8, 16).
pub(crate) fn vector_word(word: &str) -> Option<(PrimitiveType, u8)> {
    use PrimitiveType as P;
    use Scalar as S;
    let digits_at = word.find(|c: char| c.is_ascii_digit())?;
    let (scalar_name, digits) = word.split_at(digits_at);
    let width = match digits {
        "2" => 2,
        "3" => 3,
        "4" => 4,
        "8" => 8,
        "16" => 16,
        _ => return None,
    };
    let scalar = match scalar_name {
        "char" => P::Scalar(S::Char),
        "uchar" => P::Scalar(S::UChar),
        "short" => P::Scalar(S::Short),
        "ushort" => P::Scalar(S::UShort),
        "int" => P::Scalar(S::Int),
        "uint" => P::Scalar(S::UInt),
        "long" => P::Scalar(S::Long),
        "ulong" => P::Scalar(S::ULong),
        "half" => P::Scalar(S::Half),
        "float" => P::Scalar(S::Float),
        "double" => P::Scalar(S::Double),
        _ => return None,
    };
    Some((scalar, width))
}

/// Words that can never be an identifier (a variable, function, field or label name).
pub(crate) fn is_reserved(word: &str) -> bool {
    const STATEMENT_AND_OPERATOR_WORDS: &[&str] = &[
        "if",
        "else",
        "while",
        "do",
        "for",
        "switch",
        "case",
        "default",
        "break",
        "continue",
        "return",
        "goto",
        "sizeof",
        "vec_step",
        "_Complex",
        "_Imaginary",
    ];
    STATEMENT_AND_OPERATOR_WORDS.contains(&word) || specifier_word(word).is_some()
}

/// A printable name for a specifier word in diagnostics ("cannot combine 'float' with 'int'").
pub(crate) fn primitive_name(prim: PrimitiveType) -> &'static str {
    use PrimitiveType as P;
    match prim {
        P::Void => "void",
        P::Scalar(s) => s.name(),
        P::SizeT => "size_t",
        P::PtrdiffT => "ptrdiff_t",
        P::IntptrT => "intptr_t",
        P::UintptrT => "uintptr_t",
        P::Event => "event_t",
        P::Image(kind) => kind.name(),
        P::Sampler => "sampler_t",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_names_need_a_valid_width_and_scalar() {
        assert_eq!(vector_word("float4"), Some((PrimitiveType::Scalar(Scalar::Float), 4)));
        assert_eq!(vector_word("uchar16"), Some((PrimitiveType::Scalar(Scalar::UChar), 16)));
        assert_eq!(vector_word("double3"), Some((PrimitiveType::Scalar(Scalar::Double), 3)));
        assert_eq!(vector_word("float5"), None);
        assert_eq!(vector_word("float04"), None);
        assert_eq!(vector_word("bool2"), None);
        assert_eq!(vector_word("x4"), None);
    }

    #[test]
    fn type_words_are_reserved_but_ordinary_names_are_not() {
        assert!(is_reserved("float4"));
        assert!(is_reserved("__global"));
        assert!(is_reserved("while"));
        assert!(!is_reserved("gid"));
        assert!(!is_reserved("float4x"));
        assert!(!is_reserved("true"));
    }
}
