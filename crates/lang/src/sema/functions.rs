//! Functions: prototypes and definitions, parameters, and the OpenCL rules for kernels and
//! their attributes.

use super::scope::Symbol;
use super::types::Declared;
use super::{BodyState, Checker, FunctionEntry, Reported, SResult};
use crate::ast;
use crate::diag::Diagnostic;
use crate::ir::{self, AddressSpace, Handle, Scalar, TypeInner, VariableRef};
use crate::span::Span;

/// A checked parameter of a function declarator.
struct ParamInfo {
    name: Option<ast::Ident>,
    declared: Declared,
    /// For an image: the qualifier written, else `read_only`.
    access: Option<ir::AccessQualifier>,
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
    /// A prototype at file scope (`float h(float);`).
    pub(super) fn function_prototype(
        &mut self,
        specs: &ast::DeclSpecifiers,
        base: Handle<ir::Type>,
        declarator: &ast::Declarator,
    ) -> SResult<()> {
        self.function_declaration(specs, base, declarator, None).map(|_| ())
    }

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
            TypeInner::Image(_) | TypeInner::Sampler => {
                let shown = self.type_name(returned.ty);
                return Err(self.error(name.span, format!("function cannot return '{shown}'")));
            }
            _ => Some(returned.ty),
        };
        if let Some(ty) = return_type {
            self.require_complete(ty, name.span, "incomplete result type")?;
        }
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
        self.require_complete(declared.ty, span, "parameter has incomplete type")?;
        if let Some(space) = declared.space {
            if space != AddressSpace::Private {
                return Err(self.error(param.span, format!("parameter may not be qualified with an address space other than __private ('{}')", space.qualifier())));
            }
        }
        if is_kernel {
            self.kernel_parameter(param, &inner, declared.ty, &derived)?;
        }
        let access = match inner {
            TypeInner::Image(_) => Some(self.image_parameter_access(&param.specifiers)?),
            _ => None,
        };
        Ok(ParamInfo { name: param.declarator.name.clone(), declared, access, span })
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
        let param_access: Vec<Option<ir::AccessQualifier>> =
            signature.params.iter().map(|p| p.access).collect();
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
                || entry.param_access != param_access
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
            param_access,
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
                access: param.access,
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
