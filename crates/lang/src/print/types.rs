//! C declarators: how a type and a name are written together (`__global float *p`,
//! `__local float tile[16][17]`, `float (*rows)[4]`).

use crate::ir::{AddressSpace, Handle, Module, StructNaming, Type, TypeInner};

/// A declaration split in two: the type specifier with its qualifiers (`__global const float`)
/// and the declarator around the name (`*restrict p`). Several declarators can share one
/// specifier (`int i = 0, j = 0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Declaration {
    pub specifier: String,
    pub declarator: String,
}

impl Declaration {
    /// `specifier declarator`, or just the specifier for an abstract declarator.
    pub fn joined(&self) -> String {
        if self.declarator.is_empty() {
            self.specifier.clone()
        } else {
            format!("{} {}", self.specifier, self.declarator)
        }
    }
}

/// Nesting beyond this is not a type a kernel writes; it also bounds the recursion on IR that
/// has not been validated.
const MAX_TYPE_DEPTH: usize = 64;

/// The declaration of `name` (empty for a type name such as a cast's) with type `ty`;
/// `qualifiers` qualify the declared object itself (`const`, an address space).
pub(crate) fn declaration(
    module: &Module,
    ty: Handle<Type>,
    qualifiers: &[&str],
    name: &str,
) -> Declaration {
    build(module, ty, &join_qualifiers(qualifiers), name.to_string(), 0)
}

/// The type as a type name: `__global float *`, `float4`, `struct Point`.
pub(crate) fn type_name(module: &Module, ty: Handle<Type>) -> String {
    declaration(module, ty, &[], "").joined()
}

/// The name of a scalar or vector type as used in `convert_T` and `as_T`.
pub(crate) fn value_type_name(module: &Module, ty: Handle<Type>) -> String {
    match module.types.get(ty) {
        Some(TypeInner::Scalar(s)) => s.name().to_string(),
        Some(TypeInner::Vector { scalar, size }) => format!("{}{}", scalar.name(), size.width()),
        _ => type_name(module, ty),
    }
}

fn join_qualifiers(qualifiers: &[&str]) -> String {
    qualifiers.iter().filter(|q| !q.is_empty()).copied().collect::<Vec<_>>().join(" ")
}

fn build(
    module: &Module,
    ty: Handle<Type>,
    qualifiers: &str,
    inner: String,
    depth: usize,
) -> Declaration {
    let Some(inner_ty) = module.types.get(ty).filter(|_| depth < MAX_TYPE_DEPTH) else {
        return Declaration {
            specifier: format!("/* invalid type {} */ int", ty.index()),
            declarator: inner,
        };
    };
    match inner_ty {
        TypeInner::Pointer { pointee, space, is_const, is_volatile, is_restrict } => {
            // Qualifiers of the pointer object itself go after its `*`.
            let mut declarator = String::from("*");
            if *is_restrict {
                declarator.push_str("restrict");
            }
            if !qualifiers.is_empty() {
                if *is_restrict {
                    declarator.push(' ');
                }
                declarator.push_str(qualifiers);
            }
            if declarator.len() > 1 && !inner.is_empty() {
                declarator.push(' ');
            }
            declarator.push_str(&inner);
            // The generic default: a pointer into private memory needs no qualifier.
            let space = if *space == AddressSpace::Private { "" } else { space.qualifier() };
            let pointee_qualifiers = join_qualifiers(&[
                space,
                if *is_const { "const" } else { "" },
                if *is_volatile { "volatile" } else { "" },
            ]);
            build(module, *pointee, &pointee_qualifiers, declarator, depth + 1)
        }
        TypeInner::Array { element, len } => {
            let inner = if inner.starts_with('*') { format!("({inner})") } else { inner };
            build(module, *element, qualifiers, format!("{inner}[{len}]"), depth + 1)
        }
        other => {
            let base = base_name(other);
            let specifier =
                if qualifiers.is_empty() { base } else { format!("{qualifiers} {base}") };
            Declaration { specifier, declarator: inner }
        }
    }
}

/// The spelling of a type that is not built from others by a declarator.
fn base_name(ty: &TypeInner) -> String {
    match ty {
        TypeInner::Void => "void".to_string(),
        TypeInner::Scalar(s) => s.name().to_string(),
        TypeInner::Vector { scalar, size } => format!("{}{}", scalar.name(), size.width()),
        TypeInner::Struct { name, naming: StructNaming::Tag, is_union, .. } => {
            format!("{} {name}", if *is_union { "union" } else { "struct" })
        }
        TypeInner::Struct { name, naming: StructNaming::Typedef, .. } => name.clone(),
        TypeInner::Event => "event_t".to_string(),
        TypeInner::Image(kind) => kind.name().to_string(),
        TypeInner::Sampler => "sampler_t".to_string(),
        TypeInner::Pointer { .. } | TypeInner::Array { .. } => String::new(),
    }
}
