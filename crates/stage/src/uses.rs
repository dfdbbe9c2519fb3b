//! What the kernel does with the buffer's pointer. Staging copies the buffer before any
//! work-item runs its own code, so the kernel must only read it, and only as `B[index]`: a
//! store would make the tile stale, and a pointer passed on, offset or copied reads elements
//! the index forms do not see.

use std::collections::HashMap;
use std::ops::ControlFlow;

use clmap_lang::ir::{Expression, Function, Handle, Module, VariableRef};
use clmap_lang::proc::{operands, visit_function_expressions};
use clmap_lang::Refusal;

/// Refuses unless every use of parameter `param` in kernel `f` is a read `param[index]`.
pub fn check(module: &Module, f: &Function, param: u32) -> Result<(), Refusal> {
    let _ = module;
    let name = &f.params[param as usize].name;
    let mut parent: HashMap<Handle<Expression>, Handle<Expression>> = HashMap::new();
    let mut uses = Vec::new();
    let _ = visit_function_expressions::<()>(f, &mut |h, e| {
        for child in operands(e) {
            parent.insert(child, h);
        }
        if matches!(e, Expression::Variable(VariableRef::Param(k)) if *k == param) {
            uses.push(h);
        }
        ControlFlow::Continue(())
    });
    let expr = |h: Handle<Expression>| &f.expressions[h];
    let span = |h: Handle<Expression>| f.expressions.span(h);
    for variable in uses {
        let Some(load) = parent.get(&variable).copied() else { continue };
        match expr(load) {
            Expression::Load(_) => {}
            Expression::Assign { .. }
            | Expression::CompoundAssign { .. }
            | Expression::IncDec { .. } => {
                return Err(Refusal::new(
                    format!("the kernel moves the pointer `{name}`: its reads are not the indexes it writes"),
                    span(load),
                ))
            }
            _ => {
                return Err(Refusal::new(
                    format!("the kernel takes the address of `{name}`: what is read through it is not followed"),
                    span(load),
                ))
            }
        }
        let Some(index) = parent.get(&load).copied() else {
            return Err(Refusal::new(
                format!("the pointer `{name}` is copied: reads through the copy are not followed"),
                span(load),
            ));
        };
        match expr(index) {
            Expression::Index { base, .. } if *base == load => {}
            Expression::Call { function, .. } => {
                return Err(Refusal::new(
                    format!(
                        "`{name}` is passed to helper `{}`: its reads there are not followed",
                        module.functions[*function].name
                    ),
                    span(index),
                ))
            }
            Expression::Builtin { function, .. } => {
                return Err(Refusal::new(
                    format!(
                        "`{name}` is passed to `{}`: reads made by built-ins are not followed",
                        function.name()
                    ),
                    span(index),
                ))
            }
            _ => {
                return Err(Refusal::new(
                    format!(
                        "the pointer `{name}` is used other than by indexing it (offset, copied or \
                         compared): reads through it are not followed"
                    ),
                    span(index),
                ))
            }
        }
        let Some(access) = parent.get(&index).copied() else { continue };
        match expr(access) {
            Expression::Load(_) => {}
            Expression::Assign { place, .. } if *place == index => {
                return Err(Refusal::new(
                    format!("the kernel writes to `{name}`: a tile copied before it runs would be stale"),
                    span(access),
                ))
            }
            Expression::CompoundAssign { .. } | Expression::IncDec { .. } => {
                return Err(Refusal::new(
                    format!("the kernel updates `{name}` in place: a tile copied before it runs would be stale"),
                    span(access),
                ))
            }
            Expression::AddressOf(_) | Expression::Decay(_) => {
                return Err(Refusal::new(
                    format!("the kernel takes the address of an element of `{name}`: what is read through it is not followed"),
                    span(access),
                ))
            }
            _ => {
                return Err(Refusal::new(
                    format!("the kernel reads part of an element of `{name}` (a member or component): only whole elements are staged"),
                    span(access),
                ))
            }
        }
    }
    Ok(())
}
