//! What clmap's exit codes mean, in one place.

use std::process::ExitCode;

/// The outcome of a command that ran to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Everything asked for was done and nothing was wrong.
    Success = 0,
    /// The input was rejected (syntax or type errors, bad workload, bad option).
    BadInput = 1,
    /// The kernel misbehaved when run (out of bounds, race, divergent barrier, step limit).
    KernelFault = 2,
    /// Something the command needs is not installed or not present (OpenCL runtime, device).
    Environment = 3,
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> ExitCode {
        ExitCode::from(status as u8)
    }
}

/// An error that stops a command before it can report normally.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    Environment(String),
    /// The kernel itself is at fault (it ran past its step budget, say).
    #[error("{0}")]
    KernelFault(String),
}

impl CliError {
    pub fn exit_code(&self) -> Status {
        match self {
            CliError::BadInput(_) => Status::BadInput,
            CliError::Environment(_) => Status::Environment,
            CliError::KernelFault(_) => Status::KernelFault,
        }
    }
}
