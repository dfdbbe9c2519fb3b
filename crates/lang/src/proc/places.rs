//! Facts about places (lvalues): whether an expression is one, and where its object lives.
//!
//! Both follow a chain of `Member`, `Swizzle` and array `Index` expressions to the variable or
//! pointer it starts from; the chain is followed at most [`MAX_EXPRESSION_DEPTH`] steps, so an
//! invalid module with a cycle gives an answer instead of a hang.

use crate::ir::{AddressSpace, Expression, Function, Handle, Module, TypeInner, VariableRef};
use crate::valid::MAX_EXPRESSION_DEPTH;

/// Whether `e` designates an object (the IR's rule in [`crate::ir`]'s invariants).
pub fn is_place(function: &Function, e: Handle<Expression>) -> bool {
    let mut current = e;
    for _ in 0..=MAX_EXPRESSION_DEPTH {
        match function.expressions.get(current) {
            Some(Expression::Variable(_) | Expression::Deref(_) | Expression::Index { .. }) => {
                return true
            }
            Some(Expression::Member { base, .. } | Expression::Swizzle { base, .. }) => {
                current = *base
            }
            _ => return false,
        }
    }
    false
}

/// The address space of the object a place designates: the variable's, or that of the
/// pointer it is reached through. `None` when `place` is not a place or the IR is broken.
pub fn place_space(
    module: &Module,
    function: &Function,
    place: Handle<Expression>,
) -> Option<AddressSpace> {
    let mut current = place;
    for _ in 0..=MAX_EXPRESSION_DEPTH {
        match function.expressions.get(current)? {
            Expression::Variable(VariableRef::Local(h)) => {
                return function.locals.get(*h).map(|l| l.space)
            }
            Expression::Variable(VariableRef::Param(_)) => return Some(AddressSpace::Private),
            Expression::Variable(VariableRef::Global(h)) => {
                return module.global_variables.get(*h).map(|g| g.space)
            }
            Expression::Deref(pointer) => return pointer_space(module, function, *pointer),
            Expression::Index { base, .. } => match pointer_space(module, function, *base) {
                Some(space) => return Some(space),
                None => current = *base,
            },
            Expression::Member { base, .. } | Expression::Swizzle { base, .. } => current = *base,
            _ => return None,
        }
    }
    None
}

/// The address space a pointer-typed expression points into; `None` for other types.
pub fn pointer_space(
    module: &Module,
    function: &Function,
    pointer: Handle<Expression>,
) -> Option<AddressSpace> {
    let ty = function.expression_types.get(pointer.index())?;
    match module.types.get(*ty)? {
        TypeInner::Pointer { space, .. } => Some(*space),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::compile_isolated;

    #[test]
    fn places_lead_to_their_variable_or_pointer() {
        let compiled = compile_isolated(
            "__kernel void k(__global float *g) {
                __local float tile[4];
                float4 v = (float4)(0.0f);
                tile[0] = 1.0f;
                g[1] = tile[0];
                v.x = 2.0f;
            }",
            "",
        )
        .expect("compiles");
        let module = &compiled.module;
        let (_, f) = module.kernels().next().unwrap();
        let mut spaces = Vec::new();
        for (h, e) in f.expressions.iter() {
            if let Expression::Assign { place, .. } = e {
                assert!(is_place(f, *place));
                assert!(!is_place(f, h));
                spaces.push(place_space(module, f, *place));
            }
        }
        assert_eq!(
            spaces,
            [Some(AddressSpace::Local), Some(AddressSpace::Global), Some(AddressSpace::Private)]
        );
    }
}
