//! Whole declarations and function definitions, and their initializers.

use super::declarator::DeclaratorKind;
use super::keywords::{self, SpecifierWord};
use super::{NameKind, PResult, Parser, Reported};
use crate::ast::{
    DeclSpecifiers, Declaration, Declarator, DerivedDeclarator, Designator, ExternalDecl,
    FunctionDef, InitDeclarator, Initializer, PrimitiveType, StorageClass, TypeSpec,
};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::token::Punct;

/// Whether `written` names the builtin `builtin`, taking the pointer-sized integer types as the
/// 64-bit types they are on the devices clmap runs on.
fn same_builtin_type(written: &TypeSpec, builtin: &TypeSpec) -> bool {
    use crate::ir::Scalar as S;
    use PrimitiveType as P;
    let canonical = |ty: &TypeSpec| match ty {
        TypeSpec::Primitive(P::SizeT | P::UintptrT) => TypeSpec::Primitive(P::Scalar(S::ULong)),
        TypeSpec::Primitive(P::PtrdiffT | P::IntptrT) => TypeSpec::Primitive(P::Scalar(S::Long)),
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
