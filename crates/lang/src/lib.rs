//! The OpenCL C front end of clmap.
//!
//! Text flows one way through these modules:
//!
//! ```text
//! source text ─► lex ─► preprocess ─► parse (ast) ─► sema ─► ir ─► valid
//!                                                               └─► print ─► OpenCL C text
//! ```
//!
//! `lang` knows nothing of execution: the simulator, the transforms and the device runner build
//! on the [`ir::Module`] this crate produces (or, for devices, on the source text alone).

pub mod diag;
pub mod span;
pub mod token;

pub mod lex;
pub mod preprocess;

pub mod ast;
pub mod parse;

pub mod ir;
pub mod sema;

pub mod valid;

pub mod frontend;

pub mod dump;
pub mod edit;
pub mod print;

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use span::{FileId, SourceFile, SourceMap, Span};
