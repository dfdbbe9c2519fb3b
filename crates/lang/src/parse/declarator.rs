//! Declarators (pointers, arrays, functions, parenthesised groups) and type names.

use super::keywords::{self, SpecifierWord};
use super::{NameKind, PResult, Parser, Reported};
use crate::ast::{Declarator, DerivedDeclarator, ParamDecl, TypeName, TypeQualifiers, TypeSpec};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::token::{Punct, Token};

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

/// `int (*f)(int)`: a pointer directly wrapping a function type.
fn has_function_pointer(derived: &[DerivedDeclarator]) -> bool {
    derived.windows(2).any(|pair| {
        matches!(pair, [DerivedDeclarator::Pointer { .. }, DerivedDeclarator::Function { .. }])
    })
}

impl Parser<'_> {
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

    pub(super) fn is_vector_type(&self, ty: &TypeSpec, derived: &[DerivedDeclarator]) -> bool {
        if !derived.is_empty() {
            return false;
        }
        match ty {
            TypeSpec::Vector { .. } => true,
            TypeSpec::Named(ident) => self.typedef_name(&ident.name) == Some(true),
            _ => false,
        }
    }
}
