//! Declarations: specifiers, declarators, struct/union/enum bodies, initializers, attributes.

use super::keywords::{self, SpecifierWord};
use super::{NameKind, PResult, Parser, Reported};
use crate::ast::{
    Attribute, AttributeArg, DeclSpecifiers, Declaration, Declarator, DerivedDeclarator,
    Designator, EnumSpec, EnumVariant, ExternalDecl, FieldDecl, FunctionDef, Ident, InitDeclarator,
    Initializer, ParamDecl, PrimitiveType, StorageClass, StructKind, StructSpec, TypeName,
    TypeQualifiers, TypeSpec,
};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::token::{Punct, Token, TokenKind};

/// Whether a declarator must, may or must not have a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DeclaratorKind {
    /// Variables, functions, fields, typedefs.
    Named,
    /// Type names in casts, `sizeof` and attribute arguments.
    Abstract,
    /// Parameters, whose names are optional in prototypes.
    MaybeNamed,
}

/// The type-specifier words collected while reading specifiers; C lets them come in any order
/// and mixes them with qualifiers (`long const unsigned int`).
#[derive(Default)]
struct TypeWords {
    base: Option<(BaseType, Span)>,
    /// `true` for `unsigned`.
    signedness: Option<(bool, Span)>,
    short: Option<Span>,
    long_count: u8,
    long: Option<Span>,
    int: Option<Span>,
}

impl TypeWords {
    fn is_empty(&self) -> bool {
        self.base.is_none()
            && self.signedness.is_none()
            && self.short.is_none()
            && self.long.is_none()
            && self.int.is_none()
    }

    /// The first of `signed`/`unsigned`/`short`/`long`/`int`, for "cannot combine" messages.
    fn first_modifier(&self) -> Option<(&'static str, Span)> {
        let mut found: Vec<(&'static str, Span)> = Vec::new();
        if let Some((unsigned, span)) = self.signedness {
            found.push((if unsigned { "unsigned" } else { "signed" }, span));
        }
        if let Some(span) = self.short {
            found.push(("short", span));
        }
        if let Some(span) = self.long {
            found.push(("long", span));
        }
        if let Some(span) = self.int {
            found.push(("int", span));
        }
        found.into_iter().min_by_key(|(_, span)| span.start)
    }
}

/// A type specifier that stands alone (does not combine with `unsigned`, `long` …, except
/// `char`, which is handled on its own).
enum BaseType {
    Primitive(PrimitiveType),
    Vector { scalar: PrimitiveType, width: u8 },
    Named(Ident),
    Struct(StructSpec),
    Enum(crate::ast::EnumSpec),
}

impl BaseType {
    fn describe(&self) -> String {
        match self {
            BaseType::Primitive(p) => keywords::primitive_name(*p).to_string(),
            BaseType::Vector { scalar, width } => {
                format!("{}{width}", keywords::primitive_name(*scalar))
            }
            BaseType::Named(ident) => ident.name.clone(),
            BaseType::Struct(spec) => match spec.kind {
                StructKind::Struct => "struct".to_string(),
                StructKind::Union => "union".to_string(),
            },
            BaseType::Enum(_) => "enum".to_string(),
        }
    }

    fn into_type_spec(self) -> TypeSpec {
        match self {
            BaseType::Primitive(p) => TypeSpec::Primitive(p),
            BaseType::Vector { scalar, width } => TypeSpec::Vector { scalar, width },
            BaseType::Named(ident) => TypeSpec::Named(ident),
            BaseType::Struct(spec) => TypeSpec::Struct(spec),
            BaseType::Enum(spec) => TypeSpec::Enum(spec),
        }
    }
}

/// `int (*f)(int)`: a pointer directly wrapping a function type.
fn has_function_pointer(derived: &[DerivedDeclarator]) -> bool {
    derived.windows(2).any(|pair| {
        matches!(pair, [DerivedDeclarator::Pointer { .. }, DerivedDeclarator::Function { .. }])
    })
}

/// Whether `written` names the builtin `builtin`, taking the pointer-sized integer types as the
/// 64-bit types they are on the devices clmap runs on.
fn same_builtin_type(written: &TypeSpec, builtin: &TypeSpec) -> bool {
    use PrimitiveType as P;
    let canonical = |ty: &TypeSpec| match ty {
        TypeSpec::Primitive(P::SizeT | P::UintptrT) => TypeSpec::Primitive(P::ULong),
        TypeSpec::Primitive(P::PtrdiffT | P::IntptrT) => TypeSpec::Primitive(P::Long),
        other => other.clone(),
    };
    canonical(written) == canonical(builtin)
}

fn is_function_declarator(declarator: &Declarator) -> bool {
    matches!(declarator.derived.first(), Some(DerivedDeclarator::Function { .. }))
}

impl Parser<'_> {
    // ----- whole declarations ------------------------------------------------------------

    /// A file-scope declaration or function definition.
    /// `None` for a declaration that declares nothing new (a builtin type's typedef).
    pub(super) fn declaration_or_function(&mut self) -> PResult<Option<ExternalDecl>> {
        let start = self.peek().site;
        let specifiers = self.decl_specifiers("a declaration")?;
        if self.eat_punct(Punct::Semi).is_some() {
            let span = self.span_from(start);
            return Ok(Some(ExternalDecl::Declaration(Declaration {
                specifiers,
                declarators: Vec::new(),
                span,
            })));
        }
        if self.builtin_typedef(&specifiers) {
            return Ok(None);
        }
        let declarator = self.declarator(DeclaratorKind::Named)?;
        if is_function_declarator(&declarator) && self.at_punct(Punct::LBrace) {
            let function = self.function_definition(start, specifiers, declarator)?;
            return Ok(Some(ExternalDecl::Function(function)));
        }
        let declaration = self.finish_declaration(start, specifiers, declarator)?;
        Ok(Some(ExternalDecl::Declaration(declaration)))
    }

    /// `typedef unsigned int uint;` at file scope: code shared with host C does this, and C
    /// compilers for OpenCL accept it when the type is the builtin one. It declares nothing
    /// new, so it is consumed here (with a warning) and left out of the tree; a different type
    /// is an error. Returns whether such a typedef was consumed.
    fn builtin_typedef(&mut self, specifiers: &DeclSpecifiers) -> bool {
        if !matches!(specifiers.storage, Some((StorageClass::Typedef, _)))
            || !self.peek_nth(1).is_punct(Punct::Semi)
        {
            return false;
        }
        let Some(word) = self.peek_word() else { return false };
        let builtin = match keywords::specifier_word(word) {
            Some(SpecifierWord::Primitive(prim)) => TypeSpec::Primitive(prim),
            Some(SpecifierWord::Vector { scalar, width }) => TypeSpec::Vector { scalar, width },
            _ => return false,
        };
        let word = word.to_string();
        let site = self.bump();
        self.bump();
        if same_builtin_type(&specifiers.ty, &builtin) {
            let d = Diagnostic::warning(site, format!("typedef of builtin type '{word}' ignored"))
                .with_help(format!("OpenCL C defines '{word}' already; the typedef can go"));
            self.diags.push(d);
        } else {
            let d = Diagnostic::error(site, format!("cannot redefine builtin type '{word}'"));
            self.report(d);
        }
        true
    }

    /// A declaration inside a function (a block item or the init of a `for`).
    pub(super) fn declaration(&mut self) -> PResult<Declaration> {
        let start = self.peek().site;
        let specifiers = self.decl_specifiers("a declaration")?;
        if self.eat_punct(Punct::Semi).is_some() {
            let span = self.span_from(start);
            return Ok(Declaration { specifiers, declarators: Vec::new(), span });
        }
        let declarator = self.declarator(DeclaratorKind::Named)?;
        if is_function_declarator(&declarator) && self.at_punct(Punct::LBrace) {
            let d =
                Diagnostic::error(declarator.span, "a function cannot be defined inside another")
                    .with_help("move this definition to file scope");
            return Err(self.report(d));
        }
        self.finish_declaration(start, specifiers, declarator)
    }

    /// The rest of `specifiers declarator [= init], … ;` once the first declarator is read.
    fn finish_declaration(
        &mut self,
        start: Span,
        specifiers: DeclSpecifiers,
        first: Declarator,
    ) -> PResult<Declaration> {
        let mut declarators = Vec::new();
        let mut declarator = first;
        loop {
            // The name is in scope from the end of its declarator, initializer included.
            self.declare_declarator(&specifiers, &declarator);
            let init = match self.eat_punct(Punct::Assign) {
                Some(_) => Some(self.initializer()?),
                None => None,
            };
            let span = self.span_from(declarator.span);
            declarators.push(InitDeclarator { declarator, init, span });
            if self.eat_punct(Punct::Comma).is_none() {
                break;
            }
            declarator = self.declarator(DeclaratorKind::Named)?;
        }
        self.expect_semi("after declaration")?;
        Ok(Declaration { specifiers, declarators, span: self.span_from(start) })
    }

    fn declare_declarator(&mut self, specifiers: &DeclSpecifiers, declarator: &Declarator) {
        let Some(name) = &declarator.name else { return };
        let kind = if matches!(specifiers.storage, Some((StorageClass::Typedef, _))) {
            NameKind::Typedef { vector: self.is_vector_type(&specifiers.ty, &declarator.derived) }
        } else {
            NameKind::Ordinary
        };
        self.declare(&name.name, kind);
    }

    fn function_definition(
        &mut self,
        start: Span,
        specifiers: DeclSpecifiers,
        declarator: Declarator,
    ) -> PResult<FunctionDef> {
        if let Some(name) = &declarator.name {
            self.declare(&name.name, NameKind::Ordinary);
        }
        let param_names: Vec<String> = match declarator.derived.first() {
            Some(DerivedDeclarator::Function { params, .. }) => params
                .iter()
                .filter_map(|param| param.declarator.name.as_ref())
                .map(|name| name.name.clone())
                .collect(),
            _ => Vec::new(),
        };
        self.push_scope();
        for name in &param_names {
            self.declare(name, NameKind::Ordinary);
        }
        let body = self.block();
        self.pop_scope();
        let body = body?;
        Ok(FunctionDef { specifiers, declarator, body, span: self.span_from(start) })
    }

    // ----- specifiers --------------------------------------------------------------------

    /// Declaration specifiers in any order; `what` names the construct for the error when
    /// there are none ("expected a declaration").
    pub(super) fn decl_specifiers(&mut self, what: &str) -> PResult<DeclSpecifiers> {
        let start = self.peek().site;
        let start_pos = self.pos;
        let mut storage: Option<(StorageClass, Span)> = None;
        let mut qualifiers = TypeQualifiers::default();
        let mut address_space = None;
        let mut access = None;
        let mut kernel = None;
        let mut inline = false;
        let mut attributes = Vec::new();
        let mut words = TypeWords::default();
        while let Some(word) = self.peek_word() {
            let word = word.to_string();
            let Some(class) = keywords::specifier_word(&word) else {
                if !words.is_empty() || !self.take_type_name(&word, &mut words) {
                    break;
                }
                continue;
            };
            use SpecifierWord as W;
            match class {
                W::Storage(class) => {
                    let site = self.bump();
                    if storage.is_some() {
                        self.error_at(site, "more than one storage class in one declaration");
                    } else {
                        storage = Some((class, site));
                    }
                }
                W::UnsupportedStorage => {
                    let site = self.bump();
                    self.error_at(site, format!("'{word}' is not supported in OpenCL C"));
                }
                W::Kernel => kernel = Some(self.bump()),
                W::Inline => {
                    self.bump();
                    inline = true;
                }
                W::Const => {
                    self.bump();
                    qualifiers.is_const = true;
                }
                W::Volatile => {
                    self.bump();
                    qualifiers.is_volatile = true;
                }
                W::Restrict => {
                    self.bump();
                    qualifiers.is_restrict = true;
                }
                W::AddressSpace(space) => {
                    let site = self.bump();
                    match address_space {
                        Some((previous, _)) if previous != space => {
                            self.error_at(site, "conflicting address space qualifiers");
                        }
                        _ => address_space = Some((space, site)),
                    }
                }
                W::Access(qualifier) => {
                    let site = self.bump();
                    match access {
                        Some((previous, _)) if previous != qualifier => {
                            self.error_at(site, "conflicting access qualifiers");
                        }
                        _ => access = Some((qualifier, site)),
                    }
                }
                W::Attribute => attributes.extend(self.attributes()?),
                W::Signed | W::Unsigned => {
                    let site = self.bump();
                    if words.signedness.is_some() {
                        self.error_at(site, format!("duplicate or conflicting '{word}'"));
                    } else {
                        words.signedness = Some((class == W::Unsigned, site));
                    }
                }
                W::Short => {
                    let site = self.bump();
                    if words.short.is_some() {
                        self.error_at(site, "duplicate 'short'");
                    }
                    words.short = Some(site);
                }
                W::Long => {
                    let site = self.bump();
                    words.long_count = words.long_count.saturating_add(1);
                    let first = words.long.unwrap_or(site);
                    words.long = Some(first.to(site));
                }
                W::Int => {
                    let site = self.bump();
                    if words.int.is_some() {
                        self.error_at(site, "duplicate 'int'");
                    }
                    words.int = Some(site);
                }
                W::Primitive(_) | W::Vector { .. }
                    if matches!(storage, Some((StorageClass::Typedef, _)))
                        && !words.is_empty()
                        && self.peek_nth(1).is_punct(Punct::Semi) =>
                {
                    // `typedef unsigned int uint;`: the word is the name being (re)defined.
                    break;
                }
                W::Primitive(prim) => {
                    let site = self.bump();
                    self.set_base(&mut words, BaseType::Primitive(prim), site);
                }
                W::Vector { scalar, width } => {
                    let site = self.bump();
                    self.set_base(&mut words, BaseType::Vector { scalar, width }, site);
                }
                W::Struct | W::Union => {
                    let kind =
                        if class == W::Struct { StructKind::Struct } else { StructKind::Union };
                    let spec = self.struct_spec(kind)?;
                    let span = spec.span;
                    self.set_base(&mut words, BaseType::Struct(spec), span);
                }
                W::Enum => {
                    let spec = self.enum_spec()?;
                    let span = spec.span;
                    self.set_base(&mut words, BaseType::Enum(spec), span);
                }
            }
        }
        if self.pos == start_pos {
            return Err(self.error_here(format!("expected {what}")));
        }
        let span = self.span_from(start);
        let ty = self.combine_type_words(words, span);
        Ok(DeclSpecifiers {
            storage,
            qualifiers,
            address_space,
            access,
            kernel,
            inline,
            ty,
            attributes,
            span,
        })
    }

    /// A typedef name (or, for a better message, an unknown word followed by a declarator
    /// name) where a type is expected; consumes it and returns `true` when taken.
    fn take_type_name(&mut self, word: &str, words: &mut TypeWords) -> bool {
        if keywords::is_reserved(word) {
            return false;
        }
        let known = self.typedef_name(word).is_some();
        if !known {
            // `foo_t x`: two plain words in a row can only be a type and a name.
            let next_is_name = self.peek_nth(1).ident().is_some_and(|w| !keywords::is_reserved(w));
            if !next_is_name {
                return false;
            }
        }
        let span = self.bump();
        if !known {
            self.error_at(span, format!("unknown type name '{word}'"));
        }
        words.base = Some((BaseType::Named(Ident { name: word.to_string(), span }), span));
        true
    }

    fn set_base(&mut self, words: &mut TypeWords, base: BaseType, span: Span) {
        if let Some((previous, _)) = &words.base {
            let message =
                format!("cannot combine '{}' with '{}'", base.describe(), previous.describe());
            self.error_at(span, message);
            return;
        }
        words.base = Some((base, span));
    }

    /// Turns the collected words into one type, reporting combinations C or OpenCL forbid.
    fn combine_type_words(&mut self, words: TypeWords, specifiers_span: Span) -> TypeSpec {
        use PrimitiveType as P;
        let unsigned = matches!(words.signedness, Some((true, _)));
        let first_modifier = words.first_modifier();
        match words.base {
            Some((BaseType::Primitive(P::Char), _)) => {
                let sized = words.short.or(words.long).or(words.int);
                if let Some(span) = sized {
                    self.error_at(span, "cannot combine this with 'char'");
                }
                TypeSpec::Primitive(if unsigned { P::UChar } else { P::Char })
            }
            Some((BaseType::Primitive(P::Double), span)) if words.long.is_some() => {
                let long = words.long.unwrap_or(span);
                self.error_at(long.to(span), "'long double' is not supported in OpenCL C");
                TypeSpec::Primitive(P::Double)
            }
            Some((base, _)) => {
                if let Some((modifier, span)) = first_modifier {
                    let message = format!("cannot combine '{modifier}' with '{}'", base.describe());
                    self.error_at(span, message);
                }
                base.into_type_spec()
            }
            None => {
                let (signed_type, unsigned_type) = if let Some(short) = words.short {
                    if words.long.is_some() {
                        self.error_at(short, "cannot combine 'short' with 'long'");
                    }
                    (P::Short, P::UShort)
                } else if let Some(long) = words.long {
                    if words.long_count > 1 {
                        let d = Diagnostic::error(long, "'long long' is reserved in OpenCL C")
                            .with_help("'long' is already 64 bits wide in OpenCL C");
                        self.report(d);
                    }
                    (P::Long, P::ULong)
                } else {
                    if first_modifier.is_none() {
                        let d = Diagnostic::error(specifiers_span, "a type specifier is required")
                            .with_help("OpenCL C has no implicit 'int'; name the type");
                        self.report(d);
                    }
                    (P::Int, P::UInt)
                };
                TypeSpec::Primitive(if unsigned { unsigned_type } else { signed_type })
            }
        }
    }

    // ----- struct, union, enum -----------------------------------------------------------

    fn struct_spec(&mut self, kind: StructKind) -> PResult<StructSpec> {
        let start = self.bump();
        let mut attributes = self.attribute_list()?;
        let name = match self.peek_word() {
            Some(word) if !keywords::is_reserved(word) => Some(self.expect_ident("a name")?),
            _ => None,
        };
        let fields = if self.at_punct(Punct::LBrace) {
            Some(self.nested(|p| p.struct_body())?)
        } else {
            if name.is_none() {
                let keyword = if kind == StructKind::Struct { "struct" } else { "union" };
                return Err(self.error_here(format!("expected a name or '{{' after '{keyword}'")));
            }
            None
        };
        if fields.is_some() {
            attributes.extend(self.attribute_list()?);
        }
        Ok(StructSpec { kind, name, fields, attributes, span: self.span_from(start) })
    }

    fn struct_body(&mut self) -> PResult<Vec<FieldDecl>> {
        let open = self.bump();
        let mut fields = Vec::new();
        while !self.at_punct(Punct::RBrace) && !self.at_eof() {
            if matches!(self.peek().kind, TokenKind::Pragma(_)) {
                // The tree has no place for it here, and no pragma changes a struct's layout
                // in OpenCL C; say so rather than drop it silently.
                let site = self.bump();
                self.diags.push(Diagnostic::warning(site, "#pragma inside a struct is ignored"));
                continue;
            }
            let before = self.pos;
            match self.field_declaration() {
                Ok(field) => fields.push(field),
                Err(Reported) => self.recover_statement(),
            }
            if self.pos == before && !self.at_punct(Punct::RBrace) {
                self.bump();
            }
        }
        self.expect_closing(Punct::RBrace, open)?;
        Ok(fields)
    }

    fn field_declaration(&mut self) -> PResult<FieldDecl> {
        let start = self.peek().site;
        let specifiers = self.decl_specifiers("a member declaration")?;
        let mut declarators = Vec::new();
        if !self.at_punct(Punct::Semi) {
            loop {
                let declarator = self.declarator(DeclaratorKind::Named)?;
                if let Some(colon) = self.eat_punct(Punct::Colon) {
                    let width = self.conditional()?;
                    self.error_at(colon.to(width.span), "bit-fields are not supported in OpenCL C");
                }
                declarators.push(declarator);
                if self.eat_punct(Punct::Comma).is_none() {
                    break;
                }
            }
        }
        self.expect_semi("after struct member")?;
        Ok(FieldDecl { specifiers, declarators, span: self.span_from(start) })
    }

    fn enum_spec(&mut self) -> PResult<EnumSpec> {
        let start = self.bump();
        // Attributes on enums (`packed`) have no meaning for clmap; they are read and dropped.
        self.attribute_list()?;
        let name = match self.peek_word() {
            Some(word) if !keywords::is_reserved(word) => Some(self.expect_ident("a name")?),
            _ => None,
        };
        let variants = if self.at_punct(Punct::LBrace) {
            Some(self.enum_body()?)
        } else {
            if name.is_none() {
                return Err(self.error_here("expected a name or '{' after 'enum'"));
            }
            None
        };
        self.attribute_list()?;
        Ok(EnumSpec { name, variants, span: self.span_from(start) })
    }

    fn enum_body(&mut self) -> PResult<Vec<EnumVariant>> {
        let open = self.bump();
        let mut variants = Vec::new();
        while !self.at_punct(Punct::RBrace) && !self.at_eof() {
            let parsed = self.enum_variant();
            let ok = parsed.is_ok();
            match parsed {
                Ok(variant) => variants.push(variant),
                Err(Reported) => self.recover_list_item(Punct::RBrace),
            }
            if self.eat_punct(Punct::Comma).is_some() {
                continue;
            }
            if self.at_punct(Punct::RBrace) {
                break;
            }
            if ok {
                // `A B`: report, then resume at the next enumerator of this same list.
                self.error_here("expected ',' or '}' after enumerator");
                self.recover_list_item(Punct::RBrace);
                if self.eat_punct(Punct::Comma).is_some() {
                    continue;
                }
                if self.at_punct(Punct::RBrace) {
                    break;
                }
            }
            return Err(Reported);
        }
        self.expect_closing(Punct::RBrace, open)?;
        Ok(variants)
    }

    fn enum_variant(&mut self) -> PResult<EnumVariant> {
        let name = self.expect_ident("an enumerator name")?;
        self.declare(&name.name, NameKind::Ordinary);
        let value = match self.eat_punct(Punct::Assign) {
            Some(_) => Some(self.conditional()?),
            None => None,
        };
        Ok(EnumVariant { name, value })
    }

    // ----- declarators -------------------------------------------------------------------

    /// A declarator, checked for what OpenCL C forbids outright (function pointers).
    pub(super) fn declarator(&mut self, kind: DeclaratorKind) -> PResult<Declarator> {
        let declarator = self.nested(|p| p.declarator_parts(kind))?;
        if has_function_pointer(&declarator.derived) {
            let d =
                Diagnostic::error(declarator.span, "function pointers are not allowed in OpenCL C")
                    .with_help("call the function directly, or select it with a switch");
            self.report(d);
        }
        Ok(declarator)
    }

    fn declarator_parts(&mut self, kind: DeclaratorKind) -> PResult<Declarator> {
        let start = self.peek().site;
        let start_pos = self.pos;
        let mut attributes = Vec::new();
        let mut pointers = Vec::new();
        while let Some(star) = self.eat_punct(Punct::Star) {
            let mut qualifiers = TypeQualifiers::default();
            let mut address_space = None;
            loop {
                match self.peek_word().and_then(keywords::specifier_word) {
                    Some(SpecifierWord::Const) => qualifiers.is_const = true,
                    Some(SpecifierWord::Volatile) => qualifiers.is_volatile = true,
                    Some(SpecifierWord::Restrict) => qualifiers.is_restrict = true,
                    Some(SpecifierWord::AddressSpace(space)) => address_space = Some(space),
                    Some(SpecifierWord::Attribute) => {
                        attributes.extend(self.attributes()?);
                        continue;
                    }
                    _ => break,
                }
                self.bump();
            }
            let span = self.span_from(star);
            pointers.push(DerivedDeclarator::Pointer { qualifiers, address_space, span });
        }

        let mut name = None;
        let mut derived = Vec::new();
        let at_plain_word = self.peek_word().is_some_and(|w| !keywords::is_reserved(w));
        if kind != DeclaratorKind::Abstract && at_plain_word {
            name = Some(self.expect_ident("a name")?);
        } else if self.at_punct(Punct::LParen) && self.paren_starts_declarator(kind) {
            let open = self.bump();
            let inner = self.nested(|p| p.declarator_parts(kind))?;
            self.expect_closing(Punct::RParen, open)?;
            name = inner.name;
            derived = inner.derived;
            attributes.extend(inner.attributes);
        } else if kind == DeclaratorKind::Named {
            let message = match self.peek_word() {
                Some(word) => format!("expected identifier or '(', found keyword '{word}'"),
                None => "expected identifier or '('".to_string(),
            };
            return Err(self.error_here(message));
        }

        loop {
            if let Some(open) = self.eat_punct(Punct::LBracket) {
                let size = if self.at_punct(Punct::RBracket) {
                    None
                } else {
                    Some(Box::new(self.assignment()?))
                };
                self.expect_closing(Punct::RBracket, open)?;
                derived.push(DerivedDeclarator::Array { size, span: self.span_from(open) });
            } else if self.at_punct(Punct::LParen) {
                derived.push(self.parameter_list()?);
            } else {
                break;
            }
        }
        // The pointer written nearest the name applies first.
        derived.extend(pointers.into_iter().rev());
        attributes.extend(self.attribute_list()?);
        let span = if self.pos == start_pos { self.here() } else { self.span_from(start) };
        Ok(Declarator { name, derived, attributes, span })
    }

    /// At `(` where no name has been read yet: does it group a declarator (`(*p)[3]`) or start
    /// a parameter list (`int (int)`, an abstract function type)?
    fn paren_starts_declarator(&self, kind: DeclaratorKind) -> bool {
        let next = self.peek_nth(1);
        if next.is_punct(Punct::Star) || next.is_punct(Punct::LParen) {
            return true;
        }
        match next.ident() {
            Some(word) => {
                kind != DeclaratorKind::Abstract
                    && !keywords::is_reserved(word)
                    && self.typedef_name(word).is_none()
            }
            None => false,
        }
    }

    fn parameter_list(&mut self) -> PResult<DerivedDeclarator> {
        let open = self.bump();
        // Parameter names live in their own scope: they may hide typedef names.
        self.push_scope();
        let result = self.parameters(open);
        self.pop_scope();
        result
    }

    fn parameters(&mut self, open: Span) -> PResult<DerivedDeclarator> {
        let mut params = Vec::new();
        let mut variadic = false;
        let mut void_params = false;
        if self.at_word("void") && self.peek_nth(1).is_punct(Punct::RParen) {
            self.bump();
            void_params = true;
        } else {
            while !self.at_punct(Punct::RParen) && !self.at_eof() {
                if self.eat_punct(Punct::Ellipsis).is_some() {
                    variadic = true;
                    break;
                }
                let parsed = self.parameter();
                let ok = parsed.is_ok();
                match parsed {
                    Ok(param) => params.push(param),
                    Err(Reported) => self.recover_list_item(Punct::RParen),
                }
                if self.eat_punct(Punct::Comma).is_some() {
                    continue;
                }
                if self.at_punct(Punct::RParen) {
                    break;
                }
                if ok {
                    // `int a b`: report, then resume at the next parameter.
                    self.error_here("expected ',' or ')' after parameter");
                    self.recover_list_item(Punct::RParen);
                    if self.eat_punct(Punct::Comma).is_some() {
                        continue;
                    }
                    if self.at_punct(Punct::RParen) {
                        break;
                    }
                }
                return Err(Reported);
            }
        }
        self.expect_closing(Punct::RParen, open)?;
        Ok(DerivedDeclarator::Function {
            params,
            variadic,
            void_params,
            span: self.span_from(open),
        })
    }

    fn parameter(&mut self) -> PResult<ParamDecl> {
        let start = self.peek().site;
        let specifiers = self.decl_specifiers("a parameter declaration")?;
        let declarator = self.declarator(DeclaratorKind::MaybeNamed)?;
        if let Some(name) = &declarator.name {
            self.declare(&name.name, NameKind::Ordinary);
        }
        Ok(ParamDecl { specifiers, declarator, span: self.span_from(start) })
    }

    // ----- type names --------------------------------------------------------------------

    /// `specifiers abstract-declarator`, as in a cast.
    pub(super) fn type_name(&mut self) -> PResult<TypeName> {
        let start = self.peek().site;
        let specifiers = self.decl_specifiers("a type")?;
        let declarator = self.declarator(DeclaratorKind::Abstract)?;
        Ok(TypeName { specifiers, declarator, span: self.span_from(start) })
    }

    /// Whether `token` can start a type name: a type word, qualifier, `struct`/`union`/`enum`,
    /// or a typedef name in scope.
    pub(super) fn starts_type_name(&self, token: &Token) -> bool {
        let Some(word) = token.ident() else { return false };
        match keywords::specifier_word(word) {
            Some(class) => class.starts_type_name(),
            None => self.typedef_name(word).is_some(),
        }
    }

    /// Whether the current token starts a declaration inside a function.
    pub(super) fn starts_declaration(&self) -> bool {
        let Some(word) = self.peek_word() else { return false };
        if keywords::specifier_word(word).is_some() || self.typedef_name(word).is_some() {
            return true;
        }
        // `foo_t x;` with an unknown `foo_t`: not an expression either way, and reading it as
        // a declaration gives the better message ("unknown type name").
        !keywords::is_reserved(word)
            && self.peek_nth(1).ident().is_some_and(|w| !keywords::is_reserved(w))
    }

    /// A type name that denotes a vector type, after which `(…)` is a vector literal.
    pub(super) fn is_vector_type_name(&self, ty: &TypeName) -> bool {
        self.is_vector_type(&ty.specifiers.ty, &ty.declarator.derived)
    }

    fn is_vector_type(&self, ty: &TypeSpec, derived: &[DerivedDeclarator]) -> bool {
        if !derived.is_empty() {
            return false;
        }
        match ty {
            TypeSpec::Vector { .. } => true,
            TypeSpec::Named(ident) => self.typedef_name(&ident.name) == Some(true),
            _ => false,
        }
    }

    // ----- attributes --------------------------------------------------------------------

    /// Zero or more `__attribute__((…))` groups.
    pub(super) fn attribute_list(&mut self) -> PResult<Vec<Attribute>> {
        let mut attributes = Vec::new();
        while self.peek_word().and_then(keywords::specifier_word) == Some(SpecifierWord::Attribute)
        {
            attributes.extend(self.attributes()?);
        }
        Ok(attributes)
    }

    /// One `__attribute__((a, b(1, 2), c(float4)))` group; any attribute name is kept.
    fn attributes(&mut self) -> PResult<Vec<Attribute>> {
        self.bump();
        let outer = self.expect_punct(Punct::LParen, "after '__attribute__'")?;
        let inner = self.expect_punct(Punct::LParen, "after '__attribute__('")?;
        let mut attributes = Vec::new();
        while !self.at_punct(Punct::RParen) && !self.at_eof() {
            if self.eat_punct(Punct::Comma).is_some() {
                continue;
            }
            attributes.push(self.attribute()?);
            if !self.at_punct(Punct::RParen) {
                self.expect_punct(Punct::Comma, "between attributes")?;
            }
        }
        self.expect_closing(Punct::RParen, inner)?;
        self.expect_closing(Punct::RParen, outer)?;
        Ok(attributes)
    }

    fn attribute(&mut self) -> PResult<Attribute> {
        // Attribute names may be keywords (`const`), so any word is accepted.
        let Some(word) = self.peek_word() else {
            return Err(self.error_here("expected an attribute name"));
        };
        let name = word.to_string();
        let name = Ident { name, span: self.bump() };
        let mut args = Vec::new();
        if let Some(open) = self.eat_punct(Punct::LParen) {
            while !self.at_punct(Punct::RParen) && !self.at_eof() {
                let arg = if self.starts_type_name(self.peek()) {
                    AttributeArg::Type(self.type_name()?)
                } else {
                    AttributeArg::Expr(self.assignment()?)
                };
                args.push(arg);
                if self.eat_punct(Punct::Comma).is_none() {
                    break;
                }
            }
            self.expect_closing(Punct::RParen, open)?;
        }
        Ok(Attribute { span: self.span_from(name.span), name, args })
    }

    // ----- initializers ------------------------------------------------------------------

    pub(super) fn initializer(&mut self) -> PResult<Initializer> {
        if self.at_punct(Punct::LBrace) {
            self.nested(|p| p.initializer_list())
        } else {
            Ok(Initializer::Expr(self.assignment()?))
        }
    }

    fn initializer_list(&mut self) -> PResult<Initializer> {
        let open = self.bump();
        let mut items = Vec::new();
        while !self.at_punct(Punct::RBrace) && !self.at_eof() {
            let parsed = self.initializer_item();
            let ok = parsed.is_ok();
            match parsed {
                Ok(item) => items.push(item),
                Err(Reported) => self.recover_list_item(Punct::RBrace),
            }
            if self.eat_punct(Punct::Comma).is_some() {
                continue;
            }
            if self.at_punct(Punct::RBrace) {
                break;
            }
            if ok {
                // `{1, 2 3}`: report, then resume at the next item of this same list.
                self.error_here("expected ',' or '}' in initializer list");
                self.recover_list_item(Punct::RBrace);
                if self.eat_punct(Punct::Comma).is_some() {
                    continue;
                }
                if self.at_punct(Punct::RBrace) {
                    break;
                }
            }
            return Err(Reported);
        }
        self.expect_closing(Punct::RBrace, open)?;
        Ok(Initializer::List { items, span: self.span_from(open) })
    }

    fn initializer_item(&mut self) -> PResult<(Vec<Designator>, Initializer)> {
        let mut designators = Vec::new();
        loop {
            if self.eat_punct(Punct::Dot).is_some() {
                designators.push(Designator::Field(self.expect_ident("a field name")?));
            } else if let Some(open) = self.eat_punct(Punct::LBracket) {
                let index = self.conditional()?;
                self.expect_closing(Punct::RBracket, open)?;
                designators.push(Designator::Index(index));
            } else {
                break;
            }
        }
        if !designators.is_empty() {
            self.expect_punct(Punct::Assign, "after designator")?;
        }
        let init = self.initializer()?;
        Ok((designators, init))
    }
}
