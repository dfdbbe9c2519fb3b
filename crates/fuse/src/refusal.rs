//! Why something is not fused: the reason and the source it is about (the type every
//! transform refuses with; reasons about the pipeline have no span).

pub use clmap_lang::Refusal;
