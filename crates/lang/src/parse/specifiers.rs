//! Declaration specifiers: storage, qualifiers, address spaces, type words in any order,
//! struct/union/enum specifiers and `__attribute__` groups.

use super::declarator::DeclaratorKind;
use super::keywords::{self, SpecifierWord};
use super::{NameKind, PResult, Parser, Reported};
use crate::ast::{
    Attribute, AttributeArg, DeclSpecifiers, EnumSpec, EnumVariant, FieldDecl, Ident,
    PrimitiveType, StorageClass, StructKind, StructSpec, TypeQualifiers, TypeSpec,
};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::token::{Punct, TokenKind};

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
    Enum(EnumSpec),
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

impl Parser<'_> {
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
            let Some(class) = keywords::specifier_word(word) else {
                let word = word.to_string();
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
                    let word = word.to_string();
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
                        self.error_at(
                            site,
                            format!(
                                "duplicate or conflicting '{}'",
                                if class == W::Unsigned { "unsigned" } else { "signed" }
                            ),
                        );
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
    /// name or a pointer declarator) where a type is expected; consumes it and returns `true`
    /// when taken.
    fn take_type_name(&mut self, word: &str, words: &mut TypeWords) -> bool {
        if keywords::is_reserved(word) {
            return false;
        }
        let known = self.typedef_name(word).is_some();
        if !known {
            // `foo_t x`: two plain words in a row can only be a type and a name; `REAL *a`
            // where declaration specifiers are read (a parameter, a file-scope declaration;
            // statements read one only before a name) is a type and a pointer.
            let next = self.peek_nth(1);
            let next_is_name = next.ident().is_some_and(|w| !keywords::is_reserved(w));
            if !next_is_name && !next.is_punct(Punct::Star) {
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
        use crate::ir::Scalar as S;
        use PrimitiveType as P;
        let unsigned = matches!(words.signedness, Some((true, _)));
        let first_modifier = words.first_modifier();
        match words.base {
            Some((BaseType::Primitive(P::Scalar(S::Char)), _)) => {
                let sized = words.short.or(words.long).or(words.int);
                if let Some(span) = sized {
                    self.error_at(span, "cannot combine this with 'char'");
                }
                TypeSpec::Primitive(P::Scalar(if unsigned { S::UChar } else { S::Char }))
            }
            Some((BaseType::Primitive(P::Scalar(S::Double)), span)) if words.long.is_some() => {
                let long = words.long.unwrap_or(span);
                self.error_at(long.to(span), "'long double' is not supported in OpenCL C");
                TypeSpec::Primitive(P::Scalar(S::Double))
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
                    (S::Short, S::UShort)
                } else if let Some(long) = words.long {
                    if words.long_count > 1 {
                        let d = Diagnostic::error(long, "'long long' is reserved in OpenCL C")
                            .with_help("'long' is already 64 bits wide in OpenCL C");
                        self.report(d);
                    }
                    (S::Long, S::ULong)
                } else {
                    if first_modifier.is_none() {
                        let d = Diagnostic::error(specifiers_span, "a type specifier is required")
                            .with_help("OpenCL C has no implicit 'int'; name the type");
                        self.report(d);
                    }
                    (S::Int, S::UInt)
                };
                TypeSpec::Primitive(P::Scalar(if unsigned { unsigned_type } else { signed_type }))
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
    pub(super) fn attributes(&mut self) -> PResult<Vec<Attribute>> {
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
}
