//! The operands of an expression: every expression handle it refers to, in evaluation order.
//!
//! One match over [`Expression`] for every pass that walks expression trees (the validator,
//! the IR dump, the transforms' analyses); a variant added to the IR is added here once.

use crate::ir::{Expression, Handle};
use std::slice;

/// The operands of `expr`, in the order C evaluates them (left to right where C leaves it
/// unspecified, as the simulator does): `place` before `value`, `base` before `index`,
/// arguments in order.
pub fn operands(expr: &Expression) -> Operands<'_> {
    let fixed = |handles: &[Handle<Expression>]| {
        let mut array = [Handle::from_index(0); 3];
        array[..handles.len()].copy_from_slice(handles);
        Operands(Inner::Fixed { handles: array, next: 0, len: handles.len() as u8 })
    };
    match expr {
        Expression::Literal(_)
        | Expression::StringLiteral(_)
        | Expression::ZeroValue
        | Expression::Variable(_) => fixed(&[]),
        Expression::Deref(e)
        | Expression::Load(e)
        | Expression::AddressOf(e)
        | Expression::Decay(e)
        | Expression::Bitcast(e)
        | Expression::Splat(e)
        | Expression::Member { base: e, .. }
        | Expression::Swizzle { base: e, .. }
        | Expression::Unary { operand: e, .. }
        | Expression::Convert { value: e, .. }
        | Expression::IncDec { place: e, .. } => fixed(&[*e]),
        Expression::Index { base, index } => fixed(&[*base, *index]),
        Expression::Binary { lhs, rhs, .. }
        | Expression::PointerDifference { lhs, rhs }
        | Expression::PointerCompare { lhs, rhs, .. }
        | Expression::Comma { lhs, rhs } => fixed(&[*lhs, *rhs]),
        Expression::PointerOffset { pointer, offset, .. } => fixed(&[*pointer, *offset]),
        Expression::Conditional { condition, accept, reject } => {
            fixed(&[*condition, *accept, *reject])
        }
        Expression::Assign { place, value } | Expression::CompoundAssign { place, value, .. } => {
            fixed(&[*place, *value])
        }
        Expression::Compose(parts) => Operands(Inner::Slice(parts.iter())),
        Expression::Call { args, .. } | Expression::Builtin { args, .. } => {
            Operands(Inner::Slice(args.iter()))
        }
    }
}

/// Iterator over the operands of one expression (see [`operands`]); allocates nothing.
#[derive(Clone, Debug)]
pub struct Operands<'a>(Inner<'a>);

#[derive(Clone, Debug)]
enum Inner<'a> {
    Fixed { handles: [Handle<Expression>; 3], next: u8, len: u8 },
    Slice(slice::Iter<'a, Handle<Expression>>),
}

impl Iterator for Operands<'_> {
    type Item = Handle<Expression>;

    fn next(&mut self) -> Option<Handle<Expression>> {
        match &mut self.0 {
            Inner::Fixed { handles, next, len } => {
                let handle = handles.get(usize::from(*next)).filter(|_| *next < *len)?;
                *next += 1;
                Some(*handle)
            }
            Inner::Slice(iter) => iter.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.0 {
            Inner::Fixed { next, len, .. } => usize::from(len - next),
            Inner::Slice(iter) => iter.len(),
        };
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Operands<'_> {
    fn next_back(&mut self) -> Option<Handle<Expression>> {
        match &mut self.0 {
            Inner::Fixed { handles, next, len } => {
                if *next >= *len {
                    return None;
                }
                *len -= 1;
                Some(handles[usize::from(*len)])
            }
            Inner::Slice(iter) => iter.next_back().copied(),
        }
    }
}

impl ExactSizeIterator for Operands<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Literal, Scalar};

    fn h(i: u32) -> Handle<Expression> {
        Handle::from_index(i as usize)
    }

    #[test]
    fn operands_come_in_evaluation_order() {
        let assign = Expression::Assign { place: h(4), value: h(2) };
        assert_eq!(operands(&assign).collect::<Vec<_>>(), [h(4), h(2)]);
        let cond = Expression::Conditional { condition: h(1), accept: h(2), reject: h(3) };
        assert_eq!(operands(&cond).collect::<Vec<_>>(), [h(1), h(2), h(3)]);
        assert_eq!(operands(&cond).rev().collect::<Vec<_>>(), [h(3), h(2), h(1)]);
        let binary = Expression::Binary { op: BinaryOp::Add, lhs: h(7), rhs: h(5) };
        assert_eq!(operands(&binary).len(), 2);
    }

    #[test]
    fn leaves_have_no_operands_and_calls_have_their_arguments() {
        let literal = Expression::Literal(Literal::int(Scalar::Int, 3));
        assert_eq!(operands(&literal).count(), 0);
        let compose = Expression::Compose(vec![h(3), h(1), h(2), h(0)]);
        assert_eq!(operands(&compose).collect::<Vec<_>>(), [h(3), h(1), h(2), h(0)]);
        assert_eq!(operands(&compose).next_back(), Some(h(0)));
    }
}
