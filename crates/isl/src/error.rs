use thiserror::Error;

/// Why an isl operation gave no answer.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum IslError {
    /// isl itself refused: a syntax error, spaces that do not match, a resource limit.
    #[error("isl could not {operation}: {message}")]
    Failed { operation: &'static str, message: String },
    /// The operands were made in different contexts, which isl does not allow.
    #[error("cannot {operation}: the operands belong to different isl contexts")]
    ForeignContext { operation: &'static str },
    /// A NUL byte in text handed to isl.
    #[error("text for isl contains a NUL byte")]
    InteriorNul,
    /// A parameter name that the object does not have.
    #[error("no parameter named `{name}` in {object}")]
    NoSuchParameter { name: String, object: String },
    /// A dimension index past the object's dimensions.
    #[error("no dimension {index} in {object}")]
    NoSuchDimension { index: usize, object: String },
    /// A count or bound that is infinite, undefined or not an integer.
    #[error("{what} of {object} is {value}, not a finite integer")]
    NotFinite { what: &'static str, object: String, value: String },
    /// A number asked of a set whose parameters are not all fixed.
    #[error("{what} of {object} depends on the parameters {params}: fix them first")]
    Symbolic { what: &'static str, object: String, params: String },
    /// A count or bound beyond 64-bit integers.
    #[error("{what} of {object} is {value}, beyond 64-bit integers")]
    TooLarge { what: &'static str, object: String, value: String },
}
