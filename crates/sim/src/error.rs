//! Errors that stop a simulation (findings that let it go on are [`crate::Report`]s).

use clmap_lang::Span;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("no kernel named `{name}` in the program")]
    UnknownKernel { name: String },
    #[error("the kernel uses {what}, which the simulator does not support")]
    Unsupported { what: String, span: Span },
    #[error("malformed IR: {message}")]
    InvalidIr { message: String },
    #[error("{message}")]
    TooLarge { message: String },
    #[error(
        "work-group ({}, {}, {}) ran more than {limit} steps; the kernel may loop forever \
         (raise the step budget if it does not)",
        group[0], group[1], group[2]
    )]
    StepLimit { limit: u64, group: [u64; 3], span: Span },
    #[error("{what} needs {needed} bytes, more than the limit of {limit} bytes")]
    AllocationLimit { what: String, needed: u64, limit: u64 },
    #[error("bad arguments: {message}")]
    BadArguments { message: String },
    #[error("bad NDRange: {message}")]
    BadRange { message: String },
    #[error(transparent)]
    Workload(#[from] clmap_workload::WorkloadError),
}

impl SimError {
    /// A step-limit error worded for where it is shown: `lift` says what raises the budget
    /// there (`` `--max-steps N` allows more ``); `None` for any other error.
    pub fn step_limit_naming(&self, lift: &str) -> Option<String> {
        match self {
            SimError::StepLimit { limit, group: [x, y, z], .. } => Some(format!(
                "work-group ({x}, {y}, {z}) ran more than {limit} steps: the kernel may loop \
                 forever; if it does not, {lift}"
            )),
            _ => None,
        }
    }
}
