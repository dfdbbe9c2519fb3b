//! Module-level checks: the type arena, program-scope variables, pragmas, typedefs and
//! function signatures.

use super::{ValidationError, ValidationErrorKind as Kind};
use crate::ir::{
    AddressSpace, ConstValue, Function, FunctionKind, Handle, Module, Type, TypeInner,
};
use crate::span::Span;
use std::collections::HashSet;

/// Runs the module-level checks; returns whether the type arena is sound: pointers and arrays
/// refer only to earlier types, struct members to any type, but no struct contains itself
/// other than through a pointer, and whatever is held by value is complete. Walks over a
/// type's by-value contents (members, elements) therefore terminate; a walk that follows a
/// pointer's pointee must stop at structs, which may point back to themselves.
pub(super) fn check_module(module: &Module, errors: &mut Vec<ValidationError>) -> bool {
    let types_ok = check_types(module, errors);
    for (handle, global) in module.global_variables.iter() {
        let span = module.global_variables.span(handle);
        let mut report = |reason: String| {
            errors.push(ValidationError {
                function: None,
                span,
                kind: Kind::InvalidGlobal { name: global.name.clone(), reason },
            })
        };
        if module.types.get(global.ty).is_none() {
            report(format!("type handle [{}] is out of range", global.ty.index()));
            continue;
        }
        if module.types.get(global.ty).is_some_and(TypeInner::is_incomplete) {
            report(format!("its type [{}] is an incomplete struct", global.ty.index()));
        }
        let space_ok = match global.space {
            AddressSpace::Constant => true,
            AddressSpace::Global => module.language_version >= 200,
            _ => false,
        };
        if !space_ok {
            report(format!(
                "program-scope variables must be __constant or (OpenCL C 2.0) __global, not {}",
                global.space.qualifier()
            ));
        }
        if let Some(init) = &global.init {
            if types_ok {
                if let Err(reason) = check_const_value(module, init, global.ty) {
                    report(reason);
                }
            }
        }
    }
    for pragma in &module.pragmas {
        if pragma.before_function > module.functions.len() {
            errors.push(ValidationError {
                function: None,
                span: pragma.span,
                kind: Kind::InvalidPragma {
                    text: pragma.text.clone(),
                    before_function: pragma.before_function,
                },
            });
        }
    }
    for typedef in &module.typedefs {
        if !module.types.contains(typedef.ty) {
            errors.push(ValidationError {
                function: None,
                span: typedef.span,
                kind: Kind::InvalidTypeHandle { index: typedef.ty.index() },
            });
        }
    }
    let mut names = HashSet::new();
    for (_, function) in module.functions.iter() {
        if !names.insert(function.name.as_str()) {
            errors.push(ValidationError {
                function: None,
                span: function.span,
                kind: Kind::DuplicateFunction { name: function.name.clone() },
            });
        }
        check_signature(module, function, errors);
    }
    types_ok
}

fn check_types(module: &Module, errors: &mut Vec<ValidationError>) -> bool {
    let mut ok = true;
    let mut holds_incomplete = false;
    for (handle, ty) in module.types.iter() {
        let span = module.types.span(handle);
        let mut report = |kind| errors.push(ValidationError { function: None, span, kind });
        // A struct's members are stored after the struct (it exists, incomplete, before its
        // members are known); pointers and arrays are built from types that already exist.
        let may_refer_forward = matches!(ty, TypeInner::Struct { .. });
        let mut refer = |referenced: Handle<Type>, report: &mut dyn FnMut(Kind)| {
            if !module.types.contains(referenced) {
                ok = false;
                report(Kind::InvalidTypeHandle { index: referenced.index() });
            } else if referenced.index() >= handle.index() && !may_refer_forward {
                ok = false;
                report(Kind::TypeForwardReference {
                    ty: handle.index(),
                    referenced: referenced.index(),
                });
            }
        };
        let malformed =
            |reason: &str| Kind::InvalidType { ty: handle.index(), reason: reason.into() };
        let incomplete =
            |what: &str, referenced: Handle<Type>| {
                module.types.get(referenced).is_some_and(TypeInner::is_incomplete).then(|| {
                    Kind::IncompleteType { what: what.to_string(), ty: referenced.index() }
                })
            };
        match ty {
            TypeInner::Vector { scalar, .. } if !scalar.is_integer() && !scalar.is_float() => {
                report(malformed("vectors of bool do not exist in OpenCL C"));
            }
            TypeInner::Pointer { pointee, .. } => {
                refer(*pointee, &mut report);
                if module.types.get(*pointee).is_some_and(TypeInner::is_image_or_sampler) {
                    report(malformed("images and samplers cannot be pointed to"));
                }
            }
            TypeInner::Array { element, len } => {
                refer(*element, &mut report);
                if module.types.get(*element).is_some_and(TypeInner::is_image_or_sampler) {
                    report(malformed("arrays of images or samplers do not exist"));
                }
                if *len == 0 {
                    report(malformed("arrays have at least one element"));
                }
                if matches!(module.types.get(*element), Some(TypeInner::Void)) {
                    report(malformed("arrays of void do not exist"));
                }
                if let Some(kind) = incomplete("an array element", *element) {
                    holds_incomplete = true;
                    report(kind);
                }
            }
            TypeInner::Struct { members, is_complete, size, align, .. } => {
                if !is_complete && (!members.is_empty() || *size != 0 || *align != 1) {
                    report(malformed("an incomplete struct has no members, size 0 and align 1"));
                }
                if *is_complete && members.is_empty() {
                    report(malformed("a complete struct has members"));
                }
                let mut names = HashSet::new();
                for member in members {
                    refer(member.ty, &mut report);
                    if matches!(module.types.get(member.ty), Some(TypeInner::Void)) {
                        report(malformed("a struct member cannot be void"));
                    }
                    if module.types.get(member.ty).is_some_and(TypeInner::is_image_or_sampler) {
                        report(malformed("a struct member cannot be an image or a sampler"));
                    }
                    if let Some(kind) = incomplete(&format!("member '{}'", member.name), member.ty)
                    {
                        holds_incomplete = true;
                        report(kind);
                    }
                    if !names.insert(member.name.as_str()) {
                        report(malformed("two members have the same name"));
                    }
                }
            }
            _ => {}
        }
    }
    ok &= !holds_incomplete;
    if ok {
        for ty in structs_containing_themselves(module) {
            ok = false;
            errors.push(ValidationError {
                function: None,
                span: module.types.span(ty),
                kind: Kind::StructContainsItself { ty: ty.index() },
            });
        }
    }
    ok
}

/// Structs that contain themselves by value, through members and array elements (pointers
/// are not followed): such a struct would be infinitely large. Every handle is in range.
fn structs_containing_themselves(module: &Module) -> Vec<Handle<Type>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    // The by-value types a type holds directly.
    let held = |ty: Handle<Type>| -> Vec<Handle<Type>> {
        match &module.types[ty] {
            TypeInner::Struct { members, .. } => members.iter().map(|m| m.ty).collect(),
            TypeInner::Array { element, .. } => vec![*element],
            _ => Vec::new(),
        }
    };
    let mut marks = vec![Mark::New; module.types.len()];
    let mut found = Vec::new();
    for (root, _) in module.types.iter() {
        if marks[root.index()] != Mark::New {
            continue;
        }
        // Depth-first with an explicit stack, so a deep nesting cannot overflow ours.
        let mut stack = vec![(root, held(root), 0usize)];
        marks[root.index()] = Mark::OnPath;
        while let Some((ty, children, next)) = stack.last_mut() {
            let Some(&child) = children.get(*next) else {
                marks[ty.index()] = Mark::Done;
                stack.pop();
                continue;
            };
            *next += 1;
            match marks[child.index()] {
                Mark::New => {
                    marks[child.index()] = Mark::OnPath;
                    let grandchildren = held(child);
                    stack.push((child, grandchildren, 0));
                }
                Mark::OnPath => {
                    if !found.contains(&child) {
                        found.push(child);
                    }
                }
                Mark::Done => {}
            }
        }
    }
    found
}

/// Whether a program-scope initialiser has the shape of its type.
fn check_const_value(module: &Module, value: &ConstValue, ty: Handle<Type>) -> Result<(), String> {
    // No type contains itself by value (checked before), so the nesting is bounded.
    match (value, module.types.get(ty)) {
        (
            ConstValue::Literal(crate::ir::Literal::Int { scalar, bits }),
            Some(TypeInner::Sampler),
        ) => {
            let valid = *scalar == crate::ir::Scalar::UInt
                && u32::try_from(*bits).ok().and_then(crate::ir::SamplerBits::decode).is_some();
            if valid {
                Ok(())
            } else {
                Err("a sampler is initialised with the uint of its CLK_* flags".into())
            }
        }
        (_, Some(TypeInner::Image(_) | TypeInner::Sampler)) => {
            Err("images are parameters; a sampler constant is a uint literal".into())
        }
        (ConstValue::Zero, Some(_)) => Ok(()),
        (ConstValue::Address { global, offset }, Some(TypeInner::Pointer { .. })) => {
            let Some(target) = module.global_variables.get(*global) else {
                return Err(format!("global handle [{}] is out of range", global.index()));
            };
            // One past the end is a valid address, as in C.
            if *offset > u64::from(module.size_of(target.ty)) {
                return Err(format!("offset {offset} is past the end of `{}`", target.name));
            }
            Ok(())
        }
        (ConstValue::Address { .. }, Some(_)) => Err("only a pointer holds an address".into()),
        (ConstValue::Literal(lit), Some(inner)) if inner.scalar() == Some(lit.scalar()) => Ok(()),
        (ConstValue::Literal(lit), Some(_)) => {
            Err(format!("a {} literal cannot initialise this type", lit.scalar().name()))
        }
        (ConstValue::Composite(items), Some(TypeInner::Array { element, len })) => {
            if items.len() > *len as usize {
                return Err(format!("{} initialisers for an array of {len}", items.len()));
            }
            items.iter().try_for_each(|item| check_const_value(module, item, *element))
        }
        (ConstValue::Composite(items), Some(TypeInner::Vector { scalar, size })) => {
            if items.len() > size.width() as usize {
                return Err(format!(
                    "{} initialisers for a vector of {}",
                    items.len(),
                    size.width()
                ));
            }
            let Some(element) = module.types.find(&TypeInner::Scalar(*scalar)) else {
                return match items.iter().all(|i| matches!(i, ConstValue::Zero)) {
                    true => Ok(()),
                    false => Err("vector element type missing from the type arena".into()),
                };
            };
            items.iter().try_for_each(|item| check_const_value(module, item, element))
        }
        (ConstValue::Composite(items), Some(TypeInner::Struct { members, is_union, .. })) => {
            let limit = if *is_union { 1 } else { members.len() };
            if items.len() > limit {
                return Err(format!("{} initialisers for {} members", items.len(), limit));
            }
            items
                .iter()
                .zip(members)
                .try_for_each(|(item, m)| check_const_value(module, item, m.ty))
        }
        (ConstValue::Composite(items), Some(TypeInner::Scalar(_))) if items.len() <= 1 => {
            items.iter().try_for_each(|item| check_const_value(module, item, ty))
        }
        (ConstValue::Composite(_), Some(_)) => {
            Err("a brace list cannot initialise this type".into())
        }
        (_, None) => Err(format!("type handle [{}] is out of range", ty.index())),
    }
}

fn check_signature(module: &Module, function: &Function, errors: &mut Vec<ValidationError>) {
    let mut report = |span: Span, kind: Kind| {
        errors.push(ValidationError { function: Some(function.name.clone()), span, kind })
    };
    let signature = |reason: &str| Kind::InvalidSignature { reason: reason.to_string() };
    if let Some(ty) = function.return_type {
        match module.types.get(ty) {
            None => report(function.span, Kind::InvalidTypeHandle { index: ty.index() }),
            Some(TypeInner::Array { .. }) => {
                report(function.span, signature("functions cannot return arrays"))
            }
            Some(TypeInner::Void) => {
                report(function.span, signature("a void return type is written as `None`"))
            }
            Some(TypeInner::Image(_) | TypeInner::Sampler) => {
                report(function.span, signature("functions cannot return images or samplers"))
            }
            Some(t) if t.is_incomplete() => report(
                function.span,
                Kind::IncompleteType { what: "the return type".into(), ty: ty.index() },
            ),
            Some(_) => {}
        }
    }
    let is_kernel = matches!(function.kind, FunctionKind::Kernel(_));
    for param in &function.params {
        match module.types.get(param.ty) {
            None => report(param.span, Kind::InvalidTypeHandle { index: param.ty.index() }),
            Some(TypeInner::Void) => report(param.span, signature("a parameter cannot be void")),
            Some(t) if t.is_incomplete() => report(
                param.span,
                Kind::IncompleteType {
                    what: format!("parameter '{}'", param.name),
                    ty: param.ty.index(),
                },
            ),
            Some(TypeInner::Pointer { space: AddressSpace::Private, .. }) if is_kernel => report(
                param.span,
                signature(
                    "kernel pointer parameters point to __global, __constant or __local memory",
                ),
            ),
            Some(_) => {}
        }
        let is_image = matches!(module.types.get(param.ty), Some(TypeInner::Image(_)));
        if is_image != param.access.is_some() {
            report(
                param.span,
                signature("image parameters, and only they, have an access qualifier"),
            );
        }
    }
    if let FunctionKind::Kernel(attributes) = &function.kind {
        if function.return_type.is_some() {
            report(function.span, signature("kernels return void"));
        }
        for sizes in
            [attributes.reqd_work_group_size, attributes.work_group_size_hint].iter().flatten()
        {
            if sizes.contains(&0) {
                report(function.span, signature("work-group sizes in attributes are positive"));
            }
        }
        if let Some(hint) = attributes.vec_type_hint {
            if !module.types.get(hint).is_some_and(TypeInner::is_arithmetic) {
                report(function.span, signature("vec_type_hint names a scalar or vector type"));
            }
        }
    }
    for (handle, local) in function.locals.iter() {
        let span = function.locals.span(handle);
        match module.types.get(local.ty) {
            None => report(span, Kind::InvalidTypeHandle { index: local.ty.index() }),
            Some(TypeInner::Void) => report(span, signature("a variable cannot be void")),
            Some(TypeInner::Image(_)) => {
                report(span, signature("images are parameters, never variables"))
            }
            Some(t) if t.is_incomplete() => report(
                span,
                Kind::IncompleteType {
                    what: format!("variable '{}'", local.name),
                    ty: local.ty.index(),
                },
            ),
            Some(_) => {}
        }
        if matches!(local.space, AddressSpace::Global | AddressSpace::Constant) {
            report(
                span,
                Kind::InvalidStatement {
                    reason: format!(
                        "variable '{}' is {}; function-scope variables are private or __local",
                        local.name,
                        local.space.qualifier()
                    ),
                },
            );
        }
    }
}
