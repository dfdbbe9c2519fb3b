//! Declaration specifiers + declarators → IR types, and the C layout of structs and unions.

use super::scope::{Symbol, Tag};
use super::{Checker, Reported, SResult};
use crate::ast;
use crate::ir::{self, AddressSpace, Handle, Scalar, StructMember, TypeInner, UniqueArena};
use crate::span::Span;

/// A declared object's type with the qualifiers that apply to the object itself.
#[derive(Clone, Copy, Debug)]
pub(super) struct Declared {
    pub ty: Handle<ir::Type>,
    pub is_const: bool,
    pub is_volatile: bool,
    /// The address space written for the object (`__local float x[4]`), if any.
    pub space: Option<AddressSpace>,
}

/// The OpenCL C spelling of a type, as clang prints it in messages.
pub(super) fn display(types: &UniqueArena<ir::Type>, ty: Handle<ir::Type>) -> String {
    match types.get(ty) {
        None => "<error>".to_string(),
        Some(TypeInner::Void) => "void".to_string(),
        Some(TypeInner::Scalar(s)) => s.name().to_string(),
        Some(TypeInner::Vector { scalar, size }) => format!("{}{}", scalar.name(), size.width()),
        Some(TypeInner::Pointer { pointee, space, is_const, is_volatile, .. }) => {
            let mut text = String::new();
            if *is_const {
                text.push_str("const ");
            }
            if *is_volatile {
                text.push_str("volatile ");
            }
            if *space != AddressSpace::Private {
                text.push_str(space.qualifier());
                text.push(' ');
            }
            text.push_str(&display(types, *pointee));
            text.push_str(" *");
            text
        }
        Some(TypeInner::Array { element, len }) => format!("{}[{len}]", display(types, *element)),
        Some(TypeInner::Struct { name, is_union, naming, .. }) => match naming {
            ir::StructNaming::Typedef => name.clone(),
            ir::StructNaming::Tag => {
                format!("{} {name}", if *is_union { "union" } else { "struct" })
            }
        },
        Some(TypeInner::Event) => "event_t".to_string(),
        Some(TypeInner::Image(kind)) => kind.name().to_string(),
        Some(TypeInner::Sampler) => "sampler_t".to_string(),
    }
}

pub(super) fn address_space(space: ast::AddressSpace) -> Option<AddressSpace> {
    match space {
        ast::AddressSpace::Private => Some(AddressSpace::Private),
        ast::AddressSpace::Global => Some(AddressSpace::Global),
        ast::AddressSpace::Local => Some(AddressSpace::Local),
        ast::AddressSpace::Constant => Some(AddressSpace::Constant),
        ast::AddressSpace::Generic => None,
    }
}

fn primitive_scalar(p: ast::PrimitiveType) -> Option<Scalar> {
    use ast::PrimitiveType as P;
    Some(match p {
        P::Scalar(s) => s,
        P::PtrdiffT | P::IntptrT => Scalar::Long,
        P::SizeT | P::UintptrT => Scalar::ULong,
        P::Void | P::Event | P::Image(_) | P::Sampler => return None,
    })
}

impl Checker {
    /// The type named by declaration specifiers. `typedef_name` is the name a `typedef`
    /// gives an anonymous struct defined in these specifiers.
    pub(super) fn base_type(
        &mut self,
        specs: &ast::DeclSpecifiers,
        typedef_name: Option<&str>,
    ) -> SResult<Handle<ir::Type>> {
        if let Some((ast::AddressSpace::Generic, span)) = specs.address_space {
            return Err(
                self.error(span, "the '__generic' address space is not supported in OpenCL C 1.2")
            );
        }
        let ty = self.specified_type(specs, typedef_name)?;
        if let Some((access, span)) = specs.access {
            if !matches!(self.inner(ty), TypeInner::Image(_)) {
                let shown = self.type_name(ty);
                return Err(self.error(
                    span,
                    format!(
                        "access qualifier '{}' can only be used for image types, not '{shown}'",
                        access.name()
                    ),
                ));
            }
        }
        Ok(ty)
    }

    fn specified_type(
        &mut self,
        specs: &ast::DeclSpecifiers,
        typedef_name: Option<&str>,
    ) -> SResult<Handle<ir::Type>> {
        match &specs.ty {
            ast::TypeSpec::Primitive(p) => self.primitive_type(*p, specs.span),
            ast::TypeSpec::Vector { scalar, width } => {
                let element = primitive_scalar(*scalar)
                    .filter(|s| *s != Scalar::Bool)
                    .ok_or_else(|| self.error(specs.span, "invalid vector element type"))?;
                let size = ir::VectorSize::from_width(u32::from(*width))
                    .ok_or_else(|| self.error(specs.span, "invalid vector width"))?;
                Ok(self.vector_type(element, size))
            }
            ast::TypeSpec::Named(ident) => match self.scopes.lookup(&ident.name) {
                Some(Symbol::Typedef { ty, .. }) => Ok(*ty),
                Some(Symbol::Poisoned { .. }) => Err(Reported),
                _ => Err(self.error(ident.span, format!("unknown type name '{}'", ident.name))),
            },
            ast::TypeSpec::Struct(spec) => self.record_type(spec, typedef_name),
            ast::TypeSpec::Enum(spec) => {
                let underlying = self.enum_type(spec)?;
                Ok(self.scalar_type(underlying))
            }
        }
    }

    fn primitive_type(&mut self, p: ast::PrimitiveType, span: Span) -> SResult<Handle<ir::Type>> {
        match p {
            ast::PrimitiveType::Void => Ok(self.void_type()),
            ast::PrimitiveType::Event => Ok(self.module.ty(TypeInner::Event)),
            ast::PrimitiveType::Image(kind) => Ok(self.module.ty(TypeInner::Image(kind))),
            ast::PrimitiveType::Sampler => Ok(self.module.ty(TypeInner::Sampler)),
            other => match primitive_scalar(other) {
                Some(s) => Ok(self.scalar_type(s)),
                None => Err(self.error(span, "invalid type")),
            },
        }
    }

    /// Applies a declarator's pointer and array parts to a base type. Function parts are the
    /// caller's business: they are refused here ("function pointers are not supported").
    pub(super) fn declared_type(
        &mut self,
        specs: &ast::DeclSpecifiers,
        base: Handle<ir::Type>,
        derived: &[ast::DerivedDeclarator],
    ) -> SResult<Declared> {
        let space = match specs.address_space {
            Some((space, span)) => Some(address_space(space).ok_or_else(|| {
                self.error(span, "the '__generic' address space is not supported in OpenCL C 1.2")
            })?),
            None => None,
        };
        let mut current = Declared {
            ty: base,
            is_const: specs.qualifiers.is_const,
            is_volatile: specs.qualifiers.is_volatile,
            space,
        };
        for part in derived.iter().rev() {
            current = self.apply_derived(current, part)?;
        }
        Ok(current)
    }

    fn apply_derived(
        &mut self,
        current: Declared,
        part: &ast::DerivedDeclarator,
    ) -> SResult<Declared> {
        match part {
            ast::DerivedDeclarator::Pointer { qualifiers, address_space: own_space, span } => {
                if self.inner(current.ty).is_image_or_sampler() {
                    let shown = self.type_name(current.ty);
                    return Err(self
                        .error(*span, format!("pointer to type '{shown}' is invalid in OpenCL")));
                }
                if matches!(self.inner(current.ty), TypeInner::Event)
                    && current.space.is_some_and(|s| s != AddressSpace::Private)
                {
                    return Err(self.error(*span, "event_t may only be used in private memory"));
                }
                let own_space = match own_space {
                    Some(s) => Some(address_space(*s).ok_or_else(|| {
                        self.error(*span, "the '__generic' address space is not supported")
                    })?),
                    None => None,
                };
                let ty = self.module.ty(TypeInner::Pointer {
                    pointee: current.ty,
                    space: current.space.unwrap_or(AddressSpace::Private),
                    is_const: current.is_const,
                    is_volatile: current.is_volatile,
                    is_restrict: qualifiers.is_restrict,
                });
                Ok(Declared {
                    ty,
                    is_const: qualifiers.is_const,
                    is_volatile: qualifiers.is_volatile,
                    space: own_space,
                })
            }
            ast::DerivedDeclarator::Array { size, span } => {
                if matches!(self.inner(current.ty), TypeInner::Void) {
                    return Err(self.error(*span, "array has incomplete element type 'void'"));
                }
                if self.inner(current.ty).is_image_or_sampler() {
                    let shown = self.type_name(current.ty);
                    return Err(
                        self.error(*span, format!("array of '{shown}' is invalid in OpenCL"))
                    );
                }
                self.require_complete(current.ty, *span, "array has incomplete element type")?;
                let Some(size) = size else {
                    return Err(self.error(
                        *span,
                        "array size missing (arrays of unknown size are only allowed as parameters or with an initializer)",
                    ));
                };
                let len = self.array_length(size)?;
                let ty = self.module.ty(TypeInner::Array { element: current.ty, len });
                Ok(Declared { ty, ..current })
            }
            ast::DerivedDeclarator::Function { span, .. } => {
                Err(self.error(*span, "function pointers are not supported in OpenCL C"))
            }
        }
    }

    /// Evaluates an array size: a positive integer constant expression.
    pub(super) fn array_length(&mut self, size: &ast::Expr) -> SResult<u32> {
        let value = self.constant_integer(size, "array size")?;
        if value <= 0 {
            return Err(self.error(size.span, "array size must be greater than zero"));
        }
        u32::try_from(value).map_err(|_| self.error(size.span, "array is too large"))
    }

    /// A type name (casts, `sizeof`, `vec_type_hint`), with the qualifiers dropped.
    pub(super) fn type_name_type(&mut self, name: &ast::TypeName) -> SResult<Declared> {
        let base = self.base_type(&name.specifiers, None)?;
        self.declared_type(&name.specifiers, base, &name.declarator.derived)
    }

    fn record_type(
        &mut self,
        spec: &ast::StructSpec,
        typedef_name: Option<&str>,
    ) -> SResult<Handle<ir::Type>> {
        let is_union = spec.kind == ast::StructKind::Union;
        let keyword = if is_union { "union" } else { "struct" };
        let Some(fields) = &spec.fields else {
            // A reference, `struct S`: the visible tag, or (C11 §6.7.2.3p8) a new incomplete
            // type declared in the current scope, to be completed later or only pointed to.
            let Some(name) = &spec.name else {
                return Err(self.error(spec.span, format!("expected {keyword} name")));
            };
            return match self.scopes.lookup_tag(&name.name) {
                Some(_) => self.visible_record(name, is_union),
                None => Ok(self.declare_incomplete_record(name, is_union)),
            };
        };
        // The struct exists, incomplete, from its `{`: its members may point to it.
        let handle = match &spec.name {
            Some(name) => match self.scopes.lookup_tag_innermost(&name.name) {
                Some(Tag::Record { ty, span, .. }) if !self.inner(*ty).is_incomplete() => {
                    let previous = *span;
                    self.diags.push(
                        crate::diag::Diagnostic::error(
                            name.span,
                            format!("redefinition of '{}'", name.name),
                        )
                        .with_note(previous, "previous definition is here"),
                    );
                    return Err(Reported);
                }
                Some(_) => {
                    let ty = self.visible_record(name, is_union)?;
                    // Notes about a redefinition point at this definition, not the declaration.
                    self.scopes
                        .insert_tag(&name.name, Tag::Record { is_union, ty, span: name.span });
                    ty
                }
                None => self.declare_incomplete_record(name, is_union),
            },
            None => {
                let name = match typedef_name {
                    Some(typedef) => typedef.to_string(),
                    None => self.invent_struct_name(keyword),
                };
                let naming = match typedef_name {
                    Some(_) => ir::StructNaming::Typedef,
                    None => ir::StructNaming::Tag,
                };
                let name = self.unique_struct_name(name);
                self.module.types.insert(incomplete_struct(name, naming, is_union), spec.span)
            }
        };
        let (packed, explicit_align) = self.record_attributes(&spec.attributes)?;
        let mut members: Vec<StructMember> = Vec::new();
        let mut layout = RecordLayout { is_union, offset: 0, size: 0, align: 1 };
        let mut failed = false;
        for field in fields {
            let Ok(base) = self.base_type(&field.specifiers, None) else {
                failed = true;
                continue;
            };
            if field.declarators.is_empty() {
                // C11 §6.7.2.1p13: an untagged struct or union without a declarator is an
                // anonymous member, whose members are the enclosing record's (pyopencl's
                // complex types are a union of two such structs). It is kept as a member
                // with an invented name, so layout, initialisers and the printer treat it as
                // the nested record it is; `member` looks through it by name.
                if !is_anonymous_record(&field.specifiers) {
                    self.warning(field.span, "declaration does not declare anything");
                    continue;
                }
                let member_align = if packed { 1 } else { self.module.align_of(base).max(1) };
                let at = layout.place(self.module.size_of(base), member_align);
                let name = format!("{}{}", ir::ANONYMOUS_MEMBER_PREFIX, members.len());
                members.push(StructMember { name, ty: base, offset: at });
                continue;
            }
            for declarator in &field.declarators {
                let Ok(declared) = self.declared_type(&field.specifiers, base, &declarator.derived)
                else {
                    failed = true;
                    continue;
                };
                let Some(name) = &declarator.name else {
                    self.error(declarator.span, "anonymous members are not supported");
                    failed = true;
                    continue;
                };
                if members.iter().any(|m| m.name == name.name) {
                    self.error(name.span, format!("duplicate member '{}'", name.name));
                    failed = true;
                    continue;
                }
                if matches!(
                    self.inner(declared.ty),
                    TypeInner::Void | TypeInner::Event | TypeInner::Image(_) | TypeInner::Sampler
                ) {
                    let shown = self.type_name(declared.ty);
                    self.error(name.span, format!("field has invalid type '{shown}'"));
                    failed = true;
                    continue;
                }
                if self
                    .require_complete(declared.ty, name.span, "field has incomplete type")
                    .is_err()
                {
                    failed = true;
                    continue;
                }
                let member_align = {
                    let natural = if packed { 1 } else { self.module.align_of(declared.ty) };
                    let (_, attr) = self.record_attributes(&declarator.attributes)?;
                    natural.max(attr.unwrap_or(1))
                };
                let at = layout.place(self.module.size_of(declared.ty), member_align);
                members.push(StructMember { name: name.name.clone(), ty: declared.ty, offset: at });
            }
        }
        if failed {
            return Err(Reported);
        }
        if members.is_empty() {
            return Err(
                self.error(spec.span, format!("empty {keyword} is not allowed in OpenCL C"))
            );
        }
        let align = layout.align.max(explicit_align.unwrap_or(1));
        let size = round_up(layout.size, align);
        let TypeInner::Struct { name, naming, .. } = self.inner(handle).clone() else {
            return Err(self.error(spec.span, format!("'{keyword}' is not a record type")));
        };
        let complete =
            TypeInner::Struct { name, naming, is_union, members, size, align, is_complete: true };
        // Struct names are unique, so no other type equals the completed one.
        if self.module.types.replace(handle, complete, spec.span).is_err() {
            return Err(self.error(spec.span, format!("{keyword} conflicts with another type")));
        }
        Ok(handle)
    }

    /// The record a visible tag names, refusing a tag of the other kind (`union S` after
    /// `struct S`).
    fn visible_record(&mut self, name: &ast::Ident, is_union: bool) -> SResult<Handle<ir::Type>> {
        match self.scopes.lookup_tag(&name.name) {
            Some(Tag::Record { ty, is_union: u, .. }) if *u == is_union => Ok(*ty),
            Some(Tag::Record { span, .. }) => {
                let previous = *span;
                self.diags.push(
                    crate::diag::Diagnostic::error(
                        name.span,
                        format!(
                            "use of '{}' with tag type that does not match previous declaration",
                            name.name
                        ),
                    )
                    .with_note(previous, "previous use is here"),
                );
                Err(Reported)
            }
            Some(Tag::Enum { .. }) | None => Err(self.error(
                name.span,
                format!(
                    "use of '{}' with tag type that does not match previous declaration",
                    name.name
                ),
            )),
        }
    }

    /// Declares tag `name` in the innermost scope as a new struct or union without members.
    fn declare_incomplete_record(&mut self, name: &ast::Ident, is_union: bool) -> Handle<ir::Type> {
        let unique = self.unique_struct_name(name.name.clone());
        let ty = self
            .module
            .types
            .insert(incomplete_struct(unique, ir::StructNaming::Tag, is_union), name.span);
        self.scopes.insert_tag(&name.name, Tag::Record { is_union, ty, span: name.span });
        ty
    }

    /// `struct S;` alone: declares `S` in the innermost scope, hiding an outer `S` (C11
    /// §6.7.2.3p7); repeating it where `S` is already declared changes nothing.
    pub(super) fn forward_declaration(&mut self, spec: &ast::StructSpec) -> SResult<()> {
        let is_union = spec.kind == ast::StructKind::Union;
        let Some(name) = &spec.name else {
            return Ok(());
        };
        match self.scopes.lookup_tag_innermost(&name.name) {
            Some(_) => self.visible_record(name, is_union).map(|_| ()),
            None => {
                self.declare_incomplete_record(name, is_union);
                Ok(())
            }
        }
    }

    /// Refuses a struct that is only declared where its contents are needed: `what` starts
    /// the message, as clang words it ("variable has incomplete type").
    pub(super) fn require_complete(
        &mut self,
        ty: Handle<ir::Type>,
        span: Span,
        what: &str,
    ) -> SResult<()> {
        if !self.inner(ty).is_incomplete() {
            return Ok(());
        }
        let shown = self.type_name(ty);
        Err(self.error(span, format!("{what} '{shown}'")))
    }

    fn invent_struct_name(&mut self, keyword: &str) -> String {
        let mut n = 0;
        loop {
            let name = format!("__anonymous_{keyword}_{n}");
            if !self.struct_names.contains(&name) {
                return name;
            }
            n += 1;
        }
    }

    /// Struct names must be unique in the module; a tag reused in an inner scope gets a
    /// numbered name (the printer writes what the IR says).
    fn unique_struct_name(&mut self, name: String) -> String {
        let mut candidate = name.clone();
        let mut n = 1;
        while self.struct_names.contains(&candidate) {
            candidate = format!("{name}_{n}");
            n += 1;
        }
        self.struct_names.insert(candidate.clone());
        candidate
    }

    /// `packed` and `aligned(N)` among record or member attributes; others are ignored.
    fn record_attributes(&mut self, attributes: &[ast::Attribute]) -> SResult<(bool, Option<u32>)> {
        let mut packed = false;
        let mut align = None;
        for attribute in attributes {
            match attribute.name.name.trim_matches('_') {
                "packed" => packed = true,
                "aligned" => {
                    let value = match attribute.args.first() {
                        Some(ast::AttributeArg::Expr(e)) => {
                            self.constant_integer(e, "alignment")?
                        }
                        None => 16,
                        Some(ast::AttributeArg::Type(t)) => {
                            return Err(self.error(t.span, "expected an integer constant"))
                        }
                    };
                    if value <= 0 || value > 1 << 16 || (value & (value - 1)) != 0 {
                        return Err(
                            self.error(attribute.span, "requested alignment is not a power of 2")
                        );
                    }
                    align = Some(value as u32);
                }
                _ => {}
            }
        }
        Ok((packed, align))
    }

    /// Declares an enum's constants and returns the type that holds them: `int`, as C has it,
    /// unless a value needs more. Then, as clang and GCC accept it (hashcat's headers write
    /// 64-bit hash constants as enumerators), each enumerator that `int` cannot hold gets the
    /// first of `unsigned int`, `long`, `unsigned long` that can, with a warning, and the enum
    /// type the first that holds all of them.
    fn enum_type(&mut self, spec: &ast::EnumSpec) -> SResult<Scalar> {
        let Some(variants) = &spec.variants else {
            if let Some(name) = &spec.name {
                return match self.scopes.lookup_tag(&name.name) {
                    Some(Tag::Enum { underlying, .. }) => Ok(*underlying),
                    Some(_) => Ok(Scalar::Int),
                    None => Err(self.error(
                        name.span,
                        format!("incomplete type 'enum {}' is not supported", name.name),
                    )),
                };
            }
            return Ok(Scalar::Int);
        };
        if let Some(name) = &spec.name {
            if let Some(Tag::Enum { span, .. }) = self.scopes.lookup_tag_innermost(&name.name) {
                let previous = *span;
                self.diags.push(
                    crate::diag::Diagnostic::error(
                        name.span,
                        format!("redefinition of 'enum {}'", name.name),
                    )
                    .with_note(previous, "previous definition is here"),
                );
                return Err(Reported);
            }
        }
        let mut next: i128 = 0;
        let (mut low, mut high) = (0i128, 0i128);
        for variant in variants {
            if let Some(value) = &variant.value {
                next = self.constant_integer(value, "enumerator value")?;
            }
            let Some(scalar) = holding_type(next, next) else {
                return Err(self.error(
                    variant.name.span,
                    "enumerator value is not representable in any integer type",
                ));
            };
            if scalar != Scalar::Int {
                let shown = scalar_name(scalar);
                self.warning(
                    variant.name.span,
                    format!(
                        "enumerator value is not representable in 'int'; it has type '{shown}'"
                    ),
                );
            }
            (low, high) = (low.min(next), high.max(next));
            self.declare_symbol(
                &variant.name,
                Symbol::Constant { value: ir::Literal::int(scalar, next), span: variant.name.span },
            );
            next += 1;
        }
        let underlying = holding_type(low, high).unwrap_or(Scalar::Long);
        if let Some(name) = &spec.name {
            self.scopes.insert_tag(&name.name, Tag::Enum { span: name.span, underlying });
        }
        Ok(underlying)
    }
}

/// Where a record's members go, in declaration order: a struct's one after another at their
/// alignment, a union's all at 0.
struct RecordLayout {
    is_union: bool,
    /// The end of the last member placed.
    offset: u32,
    size: u32,
    align: u32,
}

impl RecordLayout {
    /// Places a member of `size` bytes aligned to `align`; returns its offset.
    fn place(&mut self, size: u32, align: u32) -> u32 {
        let at = if self.is_union { 0 } else { round_up(self.offset, align) };
        self.align = self.align.max(align);
        if self.is_union {
            self.size = self.size.max(size);
        } else {
            self.offset = at.saturating_add(size);
            self.size = self.offset;
        }
        at
    }
}

/// The first of `int`, `unsigned int`, `long`, `unsigned long` that holds every value from
/// `low` to `high`.
fn holding_type(low: i128, high: i128) -> Option<Scalar> {
    let fits = |min: i128, max: i128| low >= min && high <= max;
    if fits(i32::MIN.into(), i32::MAX.into()) {
        Some(Scalar::Int)
    } else if fits(0, u32::MAX.into()) {
        Some(Scalar::UInt)
    } else if fits(i64::MIN.into(), i64::MAX.into()) {
        Some(Scalar::Long)
    } else if fits(0, u64::MAX.into()) {
        Some(Scalar::ULong)
    } else {
        None
    }
}

/// The C spelling clang's messages use: `unsigned int` where OpenCL also writes `uint`.
fn scalar_name(scalar: Scalar) -> &'static str {
    match scalar {
        Scalar::UInt => "unsigned int",
        Scalar::ULong => "unsigned long",
        other => other.name(),
    }
}

/// Whether a member declaration without declarators is an anonymous struct or union: an
/// untagged definition.
fn is_anonymous_record(specifiers: &ast::DeclSpecifiers) -> bool {
    matches!(&specifiers.ty, ast::TypeSpec::Struct(spec) if spec.name.is_none() && spec.fields.is_some())
}

fn incomplete_struct(name: String, naming: ir::StructNaming, is_union: bool) -> TypeInner {
    TypeInner::Struct {
        name,
        naming,
        is_union,
        members: Vec::new(),
        size: 0,
        align: 1,
        is_complete: false,
    }
}

pub(super) fn round_up(value: u32, align: u32) -> u32 {
    if align <= 1 {
        return value;
    }
    value.div_ceil(align).saturating_mul(align)
}
