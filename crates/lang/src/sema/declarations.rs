//! Declarations: typedefs, program-scope constants, function prototypes and definitions
//! (with the OpenCL rules for kernels), block-scope variables and their initialisers.

use super::conversions::AssignContext;
use super::scope::Symbol;
use super::types::Declared;
use super::{BodyState, Checker, FunctionEntry, Reported, SResult};
use crate::ast;
use crate::diag::Diagnostic;
use crate::ir::{
    self, AddressSpace, ConstValue, Expression, Handle, Scalar, TypeInner, VariableRef,
};
use crate::span::Span;

/// The longest array a brace initializer may fill (each element is an IR expression).
const MAX_LIST_ELEMENTS: u32 = 1 << 16;

/// A checked parameter of a function declarator.
struct ParamInfo {
    name: Option<ast::Ident>,
    declared: Declared,
    span: Span,
}

struct Signature {
    name: ast::Ident,
    return_type: Option<Handle<ir::Type>>,
    params: Vec<ParamInfo>,
    is_kernel: bool,
}

/// The parameter's declarator with a top-level array turned into a pointer (C99 §6.7.5.3).
fn adjusted_parameter(derived: &[ast::DerivedDeclarator]) -> Vec<ast::DerivedDeclarator> {
    let mut derived = derived.to_vec();
    if let Some(ast::DerivedDeclarator::Array { span, .. }) = derived.first() {
        let span = *span;
        derived[0] = ast::DerivedDeclarator::Pointer {
            qualifiers: ast::TypeQualifiers::default(),
            address_space: None,
            span,
        };
    }
    derived
}

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
                        self.function_declaration(specs, base, declarator, None).map(|_| ())
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
    fn poison(&mut self, declarator: &ast::Declarator) {
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
        if declared.space != Some(AddressSpace::Constant) {
            return Err(self.error_with_help(
                name.span,
                "program scope variable must reside in constant address space",
                "declare it '__constant' with an initializer",
            ));
        }
        let Some(init) = &decl.init else {
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
        let handle = self.module.global_variables.append(
            ir::GlobalVariable {
                name: name.name.clone(),
                ty: declared.ty,
                space: AddressSpace::Constant,
                init: Some(value),
            },
            name.span,
        );
        self.declare_symbol(
            name,
            Symbol::Variable {
                var: VariableRef::Global(handle),
                ty: declared.ty,
                space: AddressSpace::Constant,
                is_const: true,
                span: name.span,
            },
        );
        Ok(())
    }

    /// A constant value from an initializer lowered into the current (scratch) function.
    fn const_value(&self, expr: Handle<Expression>) -> Option<ConstValue> {
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
            return Err(self.error(name.span, format!("variable has incomplete type 'void'")));
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

    /// Lowers an initializer for an object of type `ty` into the current function.
    pub(super) fn initializer(
        &mut self,
        init: &ast::Initializer,
        ty: Handle<ir::Type>,
    ) -> SResult<Handle<Expression>> {
        match init {
            ast::Initializer::Expr(e) => {
                if let (Some(text), TypeInner::Array { element, len }) =
                    (string_literal(e), self.inner(ty).clone())
                {
                    return self.string_initializer(text, element, len, ty, e.span);
                }
                if matches!(self.inner(ty), TypeInner::Array { .. }) {
                    return Err(self.error(e.span, "array initializer must be an initializer list"));
                }
                let value = self.value(e)?;
                Ok(self.assign_convert(value, ty, AssignContext::Initialize)?.expr)
            }
            ast::Initializer::List { items, span } => self.initializer_list(items, ty, *span),
        }
    }

    fn initializer_list(
        &mut self,
        items: &[(Vec<ast::Designator>, ast::Initializer)],
        ty: Handle<ir::Type>,
        span: Span,
    ) -> SResult<Handle<Expression>> {
        let inner = self.inner(ty).clone();
        if matches!(inner, TypeInner::Scalar(_) | TypeInner::Pointer { .. }) {
            return match items {
                [(designators, item)] if designators.is_empty() => self.initializer(item, ty),
                _ => Err(self.error(span, "excess elements in scalar initializer")),
            };
        }
        let mut position = 0;
        let result = self.aggregate_items(items, &mut position, ty, span, true)?;
        Ok(result)
    }

    /// Initialises an aggregate (array, struct or vector) from `items`, starting at
    /// `*position`. A braced list consumes all its items; an aggregate whose braces were
    /// elided (C99 §6.7.8p20: `int a[2][2] = { 1, 2, 3, 4 }`) takes only what it has room for
    /// and stops at a designator, which belongs to the enclosing list.
    fn aggregate_items(
        &mut self,
        items: &[(Vec<ast::Designator>, ast::Initializer)],
        position: &mut usize,
        ty: Handle<ir::Type>,
        span: Span,
        braced: bool,
    ) -> SResult<Handle<Expression>> {
        if self.depth >= super::MAX_DEPTH {
            return Err(self.error(span, "initializer is nested too deeply"));
        }
        self.depth += 1;
        let result = self.aggregate_items_inner(items, position, ty, span, braced);
        self.depth -= 1;
        result
    }

    fn aggregate_items_inner(
        &mut self,
        items: &[(Vec<ast::Designator>, ast::Initializer)],
        position: &mut usize,
        ty: Handle<ir::Type>,
        span: Span,
        braced: bool,
    ) -> SResult<Handle<Expression>> {
        let inner = self.inner(ty).clone();
        if let TypeInner::Array { len, .. } = inner {
            // Every element becomes an expression; a huge list would exhaust memory.
            if len > MAX_LIST_ELEMENTS {
                return Err(self.error(
                    span,
                    format!("brace initializers of arrays longer than {MAX_LIST_ELEMENTS} elements are not supported"),
                ));
            }
        }
        let (slot_types, member_names): (Vec<Handle<ir::Type>>, Vec<String>) = match &inner {
            TypeInner::Array { element, len } => (vec![*element; *len as usize], Vec::new()),
            TypeInner::Struct { is_union: true, members, .. } => {
                return self.union_items(items, position, ty, members, span);
            }
            TypeInner::Struct { members, .. } => (
                members.iter().map(|m| m.ty).collect(),
                members.iter().map(|m| m.name.clone()).collect(),
            ),
            TypeInner::Vector { scalar, size } => {
                let element = self.scalar_type(*scalar);
                (vec![element; size.width() as usize], Vec::new())
            }
            _ => {
                let shown = self.type_name(ty);
                return Err(self.error(
                    span,
                    format!("cannot initialize an object of type '{shown}' with a brace list"),
                ));
            }
        };
        let is_struct = matches!(inner, TypeInner::Struct { .. });
        let mut slots: Vec<Option<Handle<Expression>>> = vec![None; slot_types.len()];
        let mut next = 0usize;
        let mut failed = false;
        while let Some((designators, item)) = items.get(*position) {
            if !designators.is_empty() {
                if !braced {
                    break;
                }
                match designators.as_slice() {
                    [ast::Designator::Index(e)] if !is_struct => {
                        let index = self.constant_integer(e, "array designator")?;
                        next = usize::try_from(index).unwrap_or(usize::MAX);
                    }
                    [ast::Designator::Field(field)] if is_struct => {
                        let Some(i) = member_names.iter().position(|m| *m == field.name) else {
                            let shown = self.type_name(ty);
                            return Err(self.error(
                                field.span,
                                format!("field designator '{}' does not refer to any field in type '{shown}'", field.name),
                            ));
                        };
                        next = i;
                    }
                    _ => {
                        return Err(
                            self.error(init_span(item), "this designator is not supported here")
                        )
                    }
                }
            }
            let Some(&slot_type) = slot_types.get(next) else {
                if !braced {
                    break;
                }
                let what = match inner {
                    TypeInner::Struct { .. } => "struct",
                    TypeInner::Vector { .. } => "vector",
                    _ => "array",
                };
                return Err(
                    self.error(init_span(item), format!("excess elements in {what} initializer"))
                );
            };
            let started_at = *position;
            let lowered = match item {
                ast::Initializer::Expr(e) if self.elides_braces(e, slot_type) => {
                    self.aggregate_items(items, position, slot_type, e.span, false)
                }
                _ => {
                    *position += 1;
                    self.initializer(item, slot_type)
                }
            };
            match lowered {
                Ok(e) => {
                    if let Some(slot) = slots.get_mut(next) {
                        *slot = Some(e);
                    }
                }
                Err(Reported) => {
                    failed = true;
                    // Recovery: go on after the culprit (an elided aggregate may have failed
                    // before taking anything).
                    if !braced {
                        break;
                    }
                    if *position == started_at {
                        *position += 1;
                    }
                }
            }
            next += 1;
        }
        if failed {
            return Err(Reported);
        }
        let mut parts = Vec::with_capacity(slots.len());
        for (slot, slot_type) in slots.into_iter().zip(slot_types) {
            parts.push(match slot {
                Some(e) => e,
                None => self.add(Expression::ZeroValue, slot_type, span),
            });
        }
        Ok(self.add(Expression::Compose(parts), ty, span))
    }

    /// A union's brace initialiser: C initialises the first member (the IR composes a union
    /// from that one part); a designator may name it explicitly.
    fn union_items(
        &mut self,
        items: &[(Vec<ast::Designator>, ast::Initializer)],
        position: &mut usize,
        ty: Handle<ir::Type>,
        members: &[ir::StructMember],
        span: Span,
    ) -> SResult<Handle<Expression>> {
        let Some(first) = members.first() else {
            return Err(self.error(span, "empty unions are not allowed"));
        };
        let Some((designators, item)) = items.get(*position) else {
            return Ok(self.add(Expression::ZeroValue, ty, span));
        };
        match designators.as_slice() {
            [] => {}
            [ast::Designator::Field(field)] if field.name == first.name => {}
            _ => {
                return Err(self.error(
                    init_span(item),
                    "initializing a union member other than the first is not supported",
                ))
            }
        }
        *position += 1;
        let part = self.initializer(item, first.ty)?;
        if let Some((_, extra)) = items.get(*position) {
            return Err(self.error(init_span(extra), "excess elements in union initializer"));
        }
        Ok(self.add(Expression::Compose(vec![part]), ty, span))
    }

    /// Whether an expression item for a slot of type `slot` starts an aggregate whose braces
    /// were left out: the slot is an aggregate and the expression is not a whole value of it.
    fn elides_braces(&mut self, e: &ast::Expr, slot: Handle<ir::Type>) -> bool {
        match self.inner(slot).clone() {
            TypeInner::Array { .. } => string_literal(e).is_none(),
            TypeInner::Vector { .. } | TypeInner::Struct { is_union: false, .. } => {
                // Only the expression's type decides; errors in it are reported when it is
                // checked for real, so diagnostics of this look are dropped.
                let before = self.diags.0.len();
                let ty = self.type_without_evaluating(e);
                self.diags.0.truncate(before);
                match ty {
                    Ok(ty) if self.inner(slot).is_arithmetic() => {
                        matches!(self.inner(ty), TypeInner::Scalar(_))
                    }
                    Ok(ty) => ty != slot,
                    Err(_) => false,
                }
            }
            _ => false,
        }
    }

    /// `char s[] = "text"`: the bytes and a terminating zero (C99 §6.7.8p14).
    fn string_initializer(
        &mut self,
        text: &str,
        element: Handle<ir::Type>,
        len: u32,
        ty: Handle<ir::Type>,
        span: Span,
    ) -> SResult<Handle<Expression>> {
        let Some(scalar @ (Scalar::Char | Scalar::UChar)) = self
            .shape(element)
            .map(|s| s.scalar)
            .filter(|_| !matches!(self.inner(element), TypeInner::Vector { .. }))
        else {
            return Err(
                self.error(span, "only arrays of char can be initialized from a string literal")
            );
        };
        let bytes = text.as_bytes();
        if bytes.len() > len as usize {
            return Err(self.error(span, "initializer-string for char array is too long"));
        }
        let mut parts = Vec::with_capacity(len as usize);
        for i in 0..len as usize {
            let byte = bytes.get(i).copied().unwrap_or(0);
            let value =
                if scalar == Scalar::Char { i128::from(byte as i8) } else { i128::from(byte) };
            parts.push(self.add(
                Expression::Literal(ir::Literal::int(scalar, value)),
                element,
                span,
            ));
        }
        Ok(self.add(Expression::Compose(parts), ty, span))
    }

    // ----- functions --------------------------------------------------------------------

    fn signature(
        &mut self,
        specs: &ast::DeclSpecifiers,
        base: Handle<ir::Type>,
        declarator: &ast::Declarator,
    ) -> SResult<Signature> {
        let Some(name) = declarator.name.clone() else {
            return Err(self.error(declarator.span, "function declaration requires a name"));
        };
        let Some(ast::DerivedDeclarator::Function { params, variadic, span: fn_span, .. }) =
            declarator.derived.first()
        else {
            return Err(self.error(declarator.span, "expected a function declarator"));
        };
        if *variadic {
            return Err(self.error(*fn_span, "variadic functions are not supported in OpenCL C"));
        }
        let is_kernel = specs.kernel.is_some();
        let returned = self.declared_type(specs, base, &declarator.derived[1..])?;
        let return_type = match self.inner(returned.ty) {
            TypeInner::Void => None,
            TypeInner::Array { .. } => {
                return Err(self.error(name.span, "function cannot return array type"))
            }
            _ => Some(returned.ty),
        };
        if is_kernel && return_type.is_some() {
            return Err(self.error(name.span, "kernel must have void return type"));
        }
        let mut infos = Vec::new();
        let mut failed = false;
        for param in params {
            match self.parameter(param, is_kernel) {
                Ok(info) => infos.push(info),
                Err(Reported) => failed = true,
            }
        }
        if failed {
            return Err(Reported);
        }
        Ok(Signature { name, return_type, params: infos, is_kernel })
    }

    fn parameter(&mut self, param: &ast::ParamDecl, is_kernel: bool) -> SResult<ParamInfo> {
        let base = self.base_type(&param.specifiers, None)?;
        let derived = adjusted_parameter(&param.declarator.derived);
        let declared = self.declared_type(&param.specifiers, base, &derived)?;
        let span = param.declarator.name.as_ref().map_or(param.span, |n| n.span);
        let inner = self.inner(declared.ty).clone();
        if matches!(inner, TypeInner::Void) {
            return Err(self.error(param.span, "parameter has incomplete type 'void'"));
        }
        if let Some(space) = declared.space {
            if space != AddressSpace::Private {
                return Err(self.error(param.span, format!("parameter may not be qualified with an address space other than __private ('{}')", space.qualifier())));
            }
        }
        if is_kernel {
            self.kernel_parameter(param, &inner, declared.ty, &derived)?;
        }
        Ok(ParamInfo { name: param.declarator.name.clone(), declared, span })
    }

    fn kernel_parameter(
        &mut self,
        param: &ast::ParamDecl,
        inner: &TypeInner,
        ty: Handle<ir::Type>,
        derived: &[ast::DerivedDeclarator],
    ) -> SResult<()> {
        let shown = self.type_name(ty);
        if derived.is_empty() {
            use ast::PrimitiveType as P;
            if let ast::TypeSpec::Primitive(
                p @ (P::SizeT | P::PtrdiffT | P::IntptrT | P::UintptrT),
            ) = param.specifiers.ty
            {
                let word = match p {
                    P::SizeT => "size_t",
                    P::PtrdiffT => "ptrdiff_t",
                    P::IntptrT => "intptr_t",
                    _ => "uintptr_t",
                };
                return Err(self.error_with_help(
                    param.span,
                    format!("'{word}' cannot be used as the type of a kernel parameter"),
                    "use uint or ulong",
                ));
            }
        }
        match inner {
            TypeInner::Scalar(Scalar::Bool)
            | TypeInner::Scalar(Scalar::Half)
            | TypeInner::Event => Err(self.error(
                param.span,
                format!("'{shown}' cannot be used as the type of a kernel parameter"),
            )),
            TypeInner::Pointer { pointee, space, .. } => {
                if self.inner(*pointee).is_pointer() {
                    return Err(self.error(
                        param.span,
                        "kernel parameter cannot be declared as a pointer to a pointer",
                    ));
                }
                if *space == AddressSpace::Private {
                    return Err(self.error_with_help(
                        param.span,
                        "pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' address space",
                        "add __global to the pointer's element type",
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Declares (or re-declares) a function; returns its index among the declared functions.
    fn function_declaration(
        &mut self,
        specs: &ast::DeclSpecifiers,
        base: Handle<ir::Type>,
        declarator: &ast::Declarator,
        defining: Option<Span>,
    ) -> SResult<(usize, Signature)> {
        let signature = self.signature(specs, base, declarator)?;
        let params: Vec<Handle<ir::Type>> =
            signature.params.iter().map(|p| p.declared.ty).collect();
        let name = &signature.name;
        if let Some(existing) = self.scopes.lookup_innermost(&name.name).cloned() {
            let Symbol::Function { index, span: previous } = existing else {
                self.diags.push(
                    Diagnostic::error(
                        name.span,
                        format!("redefinition of '{}' as different kind of symbol", name.name),
                    )
                    .with_note(existing.span(), "previous definition is here"),
                );
                return Err(Reported);
            };
            let Some(entry) = self.functions.get(index) else {
                return Err(Reported);
            };
            if entry.params != params
                || entry.return_type != signature.return_type
                || entry.is_kernel != signature.is_kernel
            {
                self.diags.push(
                    Diagnostic::error(name.span, format!("conflicting types for '{}'", name.name))
                        .with_note(previous, "previous declaration is here"),
                );
                return Err(Reported);
            }
            if defining.is_some() {
                if let Some(def) = &entry.definition {
                    let previous = def.span;
                    self.diags.push(
                        Diagnostic::error(name.span, format!("redefinition of '{}'", name.name))
                            .with_note(previous, "previous definition is here"),
                    );
                    return Err(Reported);
                }
            }
            return Ok((index, signature));
        }
        let index = self.functions.len();
        self.functions.push(FunctionEntry {
            name: name.name.clone(),
            params,
            return_type: signature.return_type,
            is_kernel: signature.is_kernel,
            declared_at: name.span,
            definition: None,
            definition_order: 0,
            calls: Vec::new(),
        });
        self.scopes.insert(&name.name, Symbol::Function { index, span: name.span });
        Ok((index, signature))
    }

    pub(super) fn function_definition(&mut self, def: &ast::FunctionDef) {
        let Ok(base) = self.base_type(&def.specifiers, None) else {
            self.poison(&def.declarator);
            return;
        };
        let Ok((index, signature)) =
            self.function_declaration(&def.specifiers, base, &def.declarator, Some(def.span))
        else {
            self.poison(&def.declarator);
            return;
        };
        let kind = if signature.is_kernel {
            match self.kernel_attributes(&def.specifiers.attributes, &def.declarator.attributes) {
                Ok(attributes) => ir::FunctionKind::Kernel(attributes),
                Err(Reported) => return,
            }
        } else {
            ir::FunctionKind::Helper
        };
        let mut function = super::empty_function(&signature.name.name, def.span);
        function.kind = kind;
        function.return_type = signature.return_type;
        function.is_inline = def.specifiers.inline;
        let saved = std::mem::replace(&mut self.func, function);
        self.body = Some(BodyState {
            function_index: index,
            return_type: signature.return_type,
            is_kernel: signature.is_kernel,
            loop_depth: 0,
            switch_depth: 0,
            block_depth: 0,
        });
        self.constant_locals.clear();
        self.scopes.push();
        for (i, param) in signature.params.iter().enumerate() {
            self.func.params.push(ir::Parameter {
                name: param.name.as_ref().map(|n| n.name.clone()).unwrap_or_default(),
                ty: param.declared.ty,
                is_const: param.declared.is_const,
                span: param.span,
            });
            if let Some(name) = &param.name {
                self.declare_symbol(
                    name,
                    Symbol::Variable {
                        var: VariableRef::Param(i as u32),
                        ty: param.declared.ty,
                        space: AddressSpace::Private,
                        is_const: param.declared.is_const,
                        span: name.span,
                    },
                );
            }
        }
        let body = self.block_statements(&def.body.stmts);
        self.scopes.pop();
        self.body = None;
        let mut function = std::mem::replace(&mut self.func, saved);
        function.body = body;
        if signature.return_type.is_some()
            && !super::stmt::ends_with_return(&function.body)
            && !super::stmt::contains_return(&function.body)
        {
            self.warning(def.body.span, "non-void function does not return a value (control may reach end of non-void function)");
        }
        if let Some(entry) = self.functions.get_mut(index) {
            entry.definition = Some(function);
            entry.definition_order = self.definitions_so_far;
        }
        self.definitions_so_far += 1;
    }

    fn kernel_attributes(
        &mut self,
        specifier_attrs: &[ast::Attribute],
        declarator_attrs: &[ast::Attribute],
    ) -> SResult<ir::KernelAttributes> {
        let mut attributes = ir::KernelAttributes::default();
        for attribute in specifier_attrs.iter().chain(declarator_attrs) {
            match attribute.name.name.as_str() {
                "reqd_work_group_size" | "work_group_size_hint" => {
                    let mut sizes = [0u32; 3];
                    if attribute.args.len() != 3 {
                        return Err(self.error(
                            attribute.span,
                            format!(
                                "'{}' attribute requires exactly 3 arguments",
                                attribute.name.name
                            ),
                        ));
                    }
                    for (slot, arg) in sizes.iter_mut().zip(&attribute.args) {
                        let ast::AttributeArg::Expr(e) = arg else {
                            return Err(self.error(attribute.span, "expected an integer constant"));
                        };
                        let value = self.constant_integer(e, "attribute argument")?;
                        *slot = u32::try_from(value).ok().filter(|v| *v > 0).ok_or_else(|| {
                            self.error(
                                e.span,
                                format!(
                                    "'{}' attribute must be greater than 0",
                                    attribute.name.name
                                ),
                            )
                        })?;
                    }
                    if attribute.name.name == "reqd_work_group_size" {
                        attributes.reqd_work_group_size = Some(sizes);
                    } else {
                        attributes.work_group_size_hint = Some(sizes);
                    }
                }
                "vec_type_hint" => {
                    let Some(ast::AttributeArg::Type(name)) = attribute.args.first() else {
                        return Err(self.error(
                            attribute.span,
                            "'vec_type_hint' attribute requires a type argument",
                        ));
                    };
                    let declared = self.type_name_type(name)?;
                    if !self.inner(declared.ty).is_arithmetic() {
                        let shown = self.type_name(declared.ty);
                        return Err(
                            self.error(name.span, format!("invalid attribute argument '{shown}'"))
                        );
                    }
                    attributes.vec_type_hint = Some(declared.ty);
                }
                _ => {}
            }
        }
        Ok(attributes)
    }
}

/// The text of a string literal, looking through parentheses.
fn string_literal(e: &ast::Expr) -> Option<&str> {
    match &e.kind {
        ast::ExprKind::Str(text) => Some(text),
        ast::ExprKind::Paren(inner) => string_literal(inner),
        _ => None,
    }
}

fn init_span(init: &ast::Initializer) -> Span {
    match init {
        ast::Initializer::Expr(e) => e.span,
        ast::Initializer::List { span, .. } => *span,
    }
}
