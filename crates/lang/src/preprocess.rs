//! The C99 preprocessor with OpenCL C's predefined macros.

mod options;

pub use options::{BuildOptions, ClStd, MacroOption};
mod condition;
mod predefined;
