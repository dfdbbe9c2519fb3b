//! Declarations: redefinition checks, typedefs, program-scope constants and block-scope
//! variables (function declarators are handed to `functions`, initialisers to
//! `initializers`).

use super::conversions::{Operand, PlaceInfo};
use super::initializers::{init_span, string_literal};
use super::scope::Symbol;
use super::types::Declared;
use super::{Checker, Reported, SResult};
use crate::ast;
use crate::diag::Diagnostic;
use crate::ir::{self, AddressSpace, ConstValue, Expression, Handle, TypeInner, VariableRef};
use crate::span::Span;

impl Checker {
    /// Declares an ordinary identifier in the innermost scope, reporting a redefinition.
    pub(super) fn declare_symbol(&mut self, name: &ast::Ident, symbol: Symbol) {
        if let Some(previous) = self.scopes.lookup_innermost(&name.name) {
            let previous = previous.span();
            let mut d = Diagnostic::error(name.span, format!("redefinition of '{}'", name.name));
            if previous.is_defined() {
                d = d.with_note(previous, "previous definition is here");
            }
            self.diags.push(d);
            return;
        }
        self.scopes.insert(&name.name, symbol);
    }

    pub(super) fn file_scope_declaration(&mut self, decl: &ast::Declaration) {
        let _ = self.declaration(decl, true, &mut ir::Block::new());
    }

    /// A declaration at file or block scope; block-scope variables are declared into `block`.
    pub(super) fn declaration(
        &mut self,
        decl: &ast::Declaration,
        file_scope: bool,
        block: &mut ir::Block,
    ) -> SResult<()> {
        let specs = &decl.specifiers;
        let is_typedef = matches!(specs.storage, Some((ast::StorageClass::Typedef, _)));
        let typedef_name = match decl.declarators.as_slice() {
            [only] if is_typedef && only.declarator.derived.is_empty() => {
                only.declarator.name.as_ref().map(|n| n.name.as_str())
            }
            _ => None,
        };
        if let (ast::TypeSpec::Struct(spec @ ast::StructSpec { fields: None, .. }), [], None) =
            (&specs.ty, decl.declarators.as_slice(), specs.storage)
        {
            return self.forward_declaration(spec);
        }
        let Ok(base) = self.base_type(specs, typedef_name) else {
            for init_declarator in &decl.declarators {
                self.poison(&init_declarator.declarator);
            }
            return Err(Reported);
        };
        let mut result = Ok(());
        for init_declarator in &decl.declarators {
            let declarator = &init_declarator.declarator;
            let outcome =
                if let Some(ast::DerivedDeclarator::Function { .. }) = declarator.derived.first() {
                    if is_typedef {
                        Err(self.error(declarator.span, "function types are not supported"))
                    } else if !file_scope {
                        Err(self.error(
                            declarator.span,
                            "function declarations inside functions are not supported",
                        ))
                    } else {
                        self.function_prototype(specs, base, declarator)
                    }
                } else if is_typedef {
                    self.typedef(specs, base, declarator)
                } else if file_scope {
                    self.program_scope_variable(specs, base, init_declarator)
                } else {
                    self.local_variable(specs, base, init_declarator, block)
                };
            if outcome.is_err() {
                self.poison(declarator);
                result = Err(Reported);
            }
        }
        result
    }

    /// Marks a declarator's name as erroneous where nothing else has claimed it.
    pub(super) fn poison(&mut self, declarator: &ast::Declarator) {
        if let Some(name) = &declarator.name {
            if self.scopes.lookup_innermost(&name.name).is_none() {
                self.scopes.insert(&name.name, Symbol::Poisoned { span: name.span });
            }
        }
    }

    fn typedef(
        &mut self,
        specs: &ast::DeclSpecifiers,
        base: Handle<ir::Type>,
        declarator: &ast::Declarator,
    ) -> SResult<()> {
        if let Some((access, span)) = specs.access {
            return Err(self.error(
                span,
                format!(
                    "access qualifier '{}' belongs on an image parameter, not in a typedef",
                    access.name()
                ),
            ));
        }
        let declared = self.declared_type(specs, base, &declarator.derived)?;
        let Some(name) = &declarator.name else {
            return Err(self.error(declarator.span, "typedef requires a name"));
        };
        if let Some(Symbol::Typedef { ty, .. }) = self.scopes.lookup_innermost(&name.name) {
            if *ty == declared.ty {
                return Ok(()); // C11 allows repeating an identical typedef; clang accepts it.
            }
        }
        self.declare_symbol(name, Symbol::Typedef { ty: declared.ty, span: name.span });
        if self.scopes.is_file_scope() {
            self.module.typedefs.push(ir::Typedef {
                name: name.name.clone(),
                ty: declared.ty,
                span: name.span,
            });
        }
        Ok(())
    }

    fn program_scope_variable(
        &mut self,
        specs: &ast::DeclSpecifiers,
        base: Handle<ir::Type>,
        decl: &ast::InitDeclarator,
    ) -> SResult<()> {
        let declarator = &decl.declarator;
        let Some(name) = &declarator.name else {
            return Err(self.error(declarator.span, "declaration does not declare anything"));
        };
        let declared = self.sized_declared(specs, base, &declarator.derived, decl.init.as_ref())?;
        self.require_complete(declared.ty, name.span, "variable has incomplete type")?;
        self.refuse_image_variable(declared.ty, name)?;
        // A program-scope sampler may be written `const sampler_t` (clang makes it constant).
        let is_const_sampler = matches!(self.inner(declared.ty), TypeInner::Sampler)
            && declared.is_const
            && declared.space.is_none();
        // OpenCL C 2.0 adds `__global` program-scope variables (the default space there).
        let space = match declared.space {
            Some(AddressSpace::Constant) => AddressSpace::Constant,
            None if is_const_sampler => AddressSpace::Constant,
            Some(AddressSpace::Global) | None if self.language_version >= 200 => {
                AddressSpace::Global
            }
            Some(AddressSpace::Global) | None => {
                return Err(self.error_with_help(
                    name.span,
                    "program scope variable must reside in constant address space",
                    "declare it '__constant' with an initializer, or build with -cl-std=CL2.0 \
                     for a '__global' one",
                ));
            }
            Some(_) => {
                return Err(self.error(
                    name.span,
                    "program scope variable must reside in global or constant address space",
                ));
            }
        };
        let Some(init) = &decl.init else {
            if space == AddressSpace::Global {
                return self.declare_global(name, declared.ty, space, declared.is_const, None);
            }
            return Err(
                self.error(name.span, "variable in constant address space must be initialized")
            );
        };
        let scratch = super::empty_function("", Span::UNDEFINED);
        let saved = std::mem::replace(&mut self.func, scratch);
        let lowered = self.initializer(init, declared.ty);
        let value = lowered.ok().and_then(|e| self.const_value(e));
        self.func = saved;
        let Some(value) = value else {
            if !self.diags.has_errors() {
                self.error(init_span(init), "initializer element is not a compile-time constant");
            }
            return Err(Reported);
        };
        let is_const = space == AddressSpace::Constant || declared.is_const;
        self.declare_global(name, declared.ty, space, is_const, Some(value))
    }

    fn declare_global(
        &mut self,
        name: &ast::Ident,
        ty: Handle<ir::Type>,
        space: AddressSpace,
        is_const: bool,
        init: Option<ConstValue>,
    ) -> SResult<()> {
        let handle = self
            .module
            .global_variables
            .append(ir::GlobalVariable { name: name.name.clone(), ty, space, init }, name.span);
        self.declare_symbol(
            name,
            Symbol::Variable {
                var: VariableRef::Global(handle),
                ty,
                space,
                is_const,
                span: name.span,
            },
        );
        Ok(())
    }

    /// A string literal used as a value (not as `printf`'s format or a `char` array's
    /// initialiser): an unnamed `__constant char[N + 1]` holding its bytes and a NUL (C99
    /// §6.4.5p5; OpenCL C 1.2 §6.5.3 puts it in the constant space). Each distinct text is one
    /// array, named with [`ir::STRING_LITERAL_PREFIX`] so that the printer writes the literal
    /// back where it is used.
    pub(super) fn string_literal_object(&mut self, text: &str, span: Span) -> Operand {
        let char_ty = self.scalar_type(ir::Scalar::Char);
        let bytes = text.as_bytes();
        let ty = self.module.ty(TypeInner::Array {
            element: char_ty,
            len: u32::try_from(bytes.len() + 1).unwrap_or(u32::MAX),
        });
        let place =
            Some(PlaceInfo { space: AddressSpace::Constant, is_const: false, assignable: true });
        if self.unevaluated {
            // `sizeof("…")` needs the type only; an array nothing uses would stay in the module.
            let expr = self.add(Expression::ZeroValue, ty, span);
            return Operand { expr, ty, place, span };
        }
        let global = match self.string_literals.get(text) {
            Some(&global) => global,
            None => {
                let init = bytes
                    .iter()
                    .chain(&[0])
                    .map(|&b| {
                        ConstValue::Literal(ir::Literal::int(ir::Scalar::Char, i128::from(b as i8)))
                    })
                    .collect();
                let name = format!("{}{}", ir::STRING_LITERAL_PREFIX, self.string_literals.len());
                let global = self.module.global_variables.append(
                    ir::GlobalVariable {
                        name,
                        ty,
                        space: AddressSpace::Constant,
                        init: Some(ConstValue::Composite(init)),
                    },
                    span,
                );
                self.string_literals.insert(text.to_string(), global);
                global
            }
        };
        let expr = self.add(Expression::Variable(VariableRef::Global(global)), ty, span);
        Operand { expr, ty, place, span }
    }

    /// A constant value from an initializer lowered into the current (scratch) function.
    fn const_value(&self, expr: Handle<Expression>) -> Option<ConstValue> {
        if let Some((global, offset)) = self.address_constant(expr, 0) {
            return Some(ConstValue::Address { global, offset });
        }
        match self.func.expressions.get(expr)? {
            Expression::ZeroValue => Some(ConstValue::Zero),
            Expression::Compose(parts) if !self.inner(self.func.type_of(expr)).is_arithmetic() => {
                parts
                    .iter()
                    .map(|&p| self.const_value(p))
                    .collect::<Option<Vec<_>>>()
                    .map(ConstValue::Composite)
            }
            _ => match self.fold(expr)? {
                super::constant::Folded::Scalar(l) => Some(ConstValue::Literal(l)),
                super::constant::Folded::Vector(v) => {
                    Some(ConstValue::Composite(v.into_iter().map(ConstValue::Literal).collect()))
                }
            },
        }
    }

    /// The declared type, with the length of an outermost `[]` taken from a brace initializer.
    fn sized_declared(
        &mut self,
        specs: &ast::DeclSpecifiers,
        base: Handle<ir::Type>,
        derived: &[ast::DerivedDeclarator],
        init: Option<&ast::Initializer>,
    ) -> SResult<Declared> {
        if let (Some(ast::DerivedDeclarator::Array { size: None, span }), Some(init)) =
            (derived.first(), init)
        {
            let element = self.declared_type(specs, base, &derived[1..])?;
            let len = match init {
                ast::Initializer::List { items, .. } => self.list_length(items)?,
                ast::Initializer::Expr(e) => match string_literal(e) {
                    Some(text) => u32::try_from(text.len() + 1)
                        .map_err(|_| self.error(e.span, "string is too long"))?,
                    None => {
                        return Err(
                            self.error(e.span, "array initializer must be an initializer list")
                        );
                    }
                },
            };
            if len == 0 {
                return Err(self.error(*span, "zero size arrays are not allowed"));
            }
            let ty = self.module.ty(TypeInner::Array { element: element.ty, len });
            return Ok(Declared { ty, ..element });
        }
        self.declared_type(specs, base, derived)
    }

    fn list_length(&mut self, items: &[(Vec<ast::Designator>, ast::Initializer)]) -> SResult<u32> {
        let mut next: i128 = 0;
        let mut len: i128 = 0;
        for (designators, _) in items {
            if let Some(ast::Designator::Index(e)) = designators.first() {
                next = self.constant_integer(e, "array designator")?;
            }
            next += 1;
            len = len.max(next);
        }
        u32::try_from(len).map_err(|_| self.error(Span::UNDEFINED, "array is too large"))
    }

    fn local_variable(
        &mut self,
        specs: &ast::DeclSpecifiers,
        base: Handle<ir::Type>,
        decl: &ast::InitDeclarator,
        block: &mut ir::Block,
    ) -> SResult<()> {
        let declarator = &decl.declarator;
        let Some(name) = &declarator.name else {
            return Err(self.error(declarator.span, "declaration does not declare anything"));
        };
        if let Some((ast::StorageClass::Static | ast::StorageClass::Extern, span)) = specs.storage {
            return Err(self.error(
                span,
                "static and extern variables are not supported inside functions in OpenCL C 1.2",
            ));
        }
        let declared = self.sized_declared(specs, base, &declarator.derived, decl.init.as_ref())?;
        self.require_complete(declared.ty, name.span, "variable has incomplete type")?;
        let space = declared.space.unwrap_or(AddressSpace::Private);
        match space {
            AddressSpace::Private => {}
            AddressSpace::Local => {
                if !self.body.as_ref().is_some_and(|b| b.is_kernel && b.block_depth == 0) {
                    return Err(self.error(name.span, "variables in the local address space can only be declared in the outermost scope of a kernel function"));
                }
                if decl.init.is_some() {
                    return Err(
                        self.error(name.span, "'__local' variable cannot have an initializer")
                    );
                }
            }
            AddressSpace::Global | AddressSpace::Constant => {
                return Err(self.error(
                    name.span,
                    format!(
                        "function scope variable cannot be declared in {} address space",
                        space.qualifier()
                    ),
                ));
            }
        }
        if matches!(self.inner(declared.ty), TypeInner::Void) {
            return Err(self.error(name.span, "variable has incomplete type 'void'"));
        }
        self.refuse_image_variable(declared.ty, name)?;
        if matches!(self.inner(declared.ty), TypeInner::Sampler) {
            if space != AddressSpace::Private {
                return Err(self.error(name.span, "a sampler variable lives in private memory"));
            }
            if decl.init.is_none() {
                return Err(self.error_with_help(
                    name.span,
                    "a sampler variable must be initialized",
                    "initialize it with the CLK_* flags: CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST",
                ));
            }
        }
        // `aligned` may be written among the specifiers or after the declarator.
        let attributes: Vec<ast::Attribute> =
            specs.attributes.iter().chain(&declarator.attributes).cloned().collect();
        let align = self.declarator_alignment(&attributes)?;
        let variable = self.func.locals.append(
            ir::LocalVariable {
                name: name.name.clone(),
                ty: declared.ty,
                space,
                is_const: declared.is_const,
                is_volatile: declared.is_volatile,
                align,
            },
            name.span,
        );
        self.declare_symbol(
            name,
            Symbol::Variable {
                var: VariableRef::Local(variable),
                ty: declared.ty,
                space,
                is_const: declared.is_const,
                span: name.span,
            },
        );
        let init = match &decl.init {
            Some(init) => Some(self.initializer(init, declared.ty)?),
            None => None,
        };
        if let (true, Some(init)) = (declared.is_const, init) {
            if let Some(super::constant::Folded::Scalar(value)) = self.fold(init) {
                self.constant_locals.insert(variable, value);
            }
        }
        block.push(ir::Statement::Declare { variable, init }, decl.span);
        Ok(())
    }

    fn declarator_alignment(&mut self, attributes: &[ast::Attribute]) -> SResult<Option<u32>> {
        let mut align = None;
        for attribute in attributes {
            if attribute.name.name.trim_matches('_') == "aligned" {
                let value = match attribute.args.first() {
                    Some(ast::AttributeArg::Expr(e)) => self.constant_integer(e, "alignment")?,
                    _ => 16,
                };
                if value <= 0 || (value & (value - 1)) != 0 || value > 1 << 16 {
                    return Err(
                        self.error(attribute.span, "requested alignment is not a power of 2")
                    );
                }
                align = Some(value as u32);
            }
        }
        Ok(align)
    }
}
