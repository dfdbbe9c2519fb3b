//! OpenCL C 2.0's `get_global_linear_id()` and `get_local_linear_id()` (§6.13.1), written out
//! as the arithmetic on the other work-item functions that the specification defines them
//! by. The IR then needs no functions of its own for them: the simulator, the index analyses
//! and the printer (whose output then compiles as OpenCL C 1.2 too) see only work-item ids
//! and sizes they already understand.

use super::super::conversions::Operand;
use super::super::{Checker, SResult};
use crate::ast;
use crate::ir::{Builtin, Expression, Handle, Literal, Scalar, WorkItemFunction};
use crate::proc::BinaryOp;
use crate::span::Span;

/// Which linear id a name asks for.
#[derive(Clone, Copy)]
pub(super) enum LinearId {
    /// `get_global_linear_id`: the global id, offset removed, as one number (dimension 0
    /// varying fastest) over the global sizes.
    Global,
    /// `get_local_linear_id`: the local id as one number over the work-group's sizes.
    Local,
}

impl LinearId {
    pub(super) fn from_name(name: &str) -> Option<LinearId> {
        match name {
            "get_global_linear_id" => Some(LinearId::Global),
            "get_local_linear_id" => Some(LinearId::Local),
            _ => None,
        }
    }
}

impl Checker {
    /// A call of `get_global_linear_id()` or `get_local_linear_id()`, as its definition:
    /// `(id(2) * size(1) + id(1)) * size(0) + id(0)`, with `id(d)` the global id less the
    /// global offset or the local id, and `size(d)` the global size or the work-group's own
    /// local size (smaller in a partial work-group).
    pub(super) fn linear_id_call(
        &mut self,
        which: LinearId,
        name: &str,
        name_span: Span,
        args: &[ast::Expr],
        span: Span,
    ) -> SResult<Operand> {
        if self.language_version < 200 {
            return Err(self.error_with_help(
                name_span,
                format!("'{name}' is an OpenCL C 2.0 function"),
                "build with -cl-std=CL2.0",
            ));
        }
        if !args.is_empty() {
            return Err(self.error(
                span,
                format!("too many arguments to function call, expected 0, have {}", args.len()),
            ));
        }
        let size_t = self.scalar_type(Scalar::ULong);
        let uint = self.scalar_type(Scalar::UInt);
        let query = |checker: &mut Checker, function: WorkItemFunction, dim: u32| {
            let dim = Expression::Literal(Literal::int(Scalar::UInt, i128::from(dim)));
            let dim = checker.add(dim, uint, span);
            let call =
                Expression::Builtin { function: Builtin::WorkItem(function), args: vec![dim] };
            checker.add(call, size_t, span)
        };
        let binary = |checker: &mut Checker, op, lhs, rhs| -> Handle<Expression> {
            checker.add(Expression::Binary { op, lhs, rhs }, size_t, span)
        };
        let (id, size) = match which {
            LinearId::Global => (WorkItemFunction::GlobalId, WorkItemFunction::GlobalSize),
            LinearId::Local => (WorkItemFunction::LocalId, WorkItemFunction::LocalSize),
        };
        let id_in = |checker: &mut Checker, dim| {
            let id = query(checker, id, dim);
            match which {
                LinearId::Global => {
                    let offset = query(checker, WorkItemFunction::GlobalOffset, dim);
                    binary(checker, BinaryOp::Sub, id, offset)
                }
                LinearId::Local => id,
            }
        };
        let mut linear = id_in(self, 2);
        for dim in [1, 0] {
            let size = query(self, size, dim);
            let scaled = binary(self, BinaryOp::Mul, linear, size);
            let id = id_in(self, dim);
            linear = binary(self, BinaryOp::Add, scaled, id);
        }
        Ok(Operand { expr: linear, ty: size_t, place: None, span })
    }
}
