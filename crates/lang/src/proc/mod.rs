//! Facts about the IR that every stage shares, in the spirit of naga's `proc` module: the
//! operators and their classes and precedence, C's arithmetic conversions, the operands of an
//! expression, places, and walkers over statements and expressions.
//!
//! Sema, the validator, the printer, the IR dump and the transforms ask these questions of
//! the IR; answering them here, once, keeps the stages from disagreeing (a printer that
//! thought a conversion implicit where sema did not would print code that computes in other
//! types). A new question that more than one stage asks belongs here.

mod conversions;
mod operands;
mod operators;
mod places;
mod walk;

pub use conversions::{promote, usual_arithmetic_conversion};
pub use operands::{operands, Operands};
pub use operators::{precedence, BinaryOp, UnaryOp};
pub use places::{is_place, place_space, pointer_space};
pub use walk::{
    child_blocks, statement_expressions, visit_block_expressions, visit_expression_tree,
    visit_function_expressions, visit_statements,
};
