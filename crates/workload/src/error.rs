//! Errors of loading and materialising workloads. They carry a location (file, line,
//! column when known) and are rendered to users by the command line, not here.

use std::fmt;
use std::path::PathBuf;

/// Where in a workload file a problem is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    pub file: Option<PathBuf>,
    /// 1-based line.
    pub line: Option<usize>,
    /// 1-based column, in characters.
    pub column: Option<usize>,
}

impl Location {
    /// A location in `file` with no line.
    pub fn file(file: Option<PathBuf>) -> Location {
        Location { file, line: None, column: None }
    }

    /// Resolves a byte offset in `text` into line and column.
    pub fn at_offset(file: Option<PathBuf>, text: &str, offset: usize) -> Location {
        let offset = offset.min(text.len());
        let before = text.get(..offset).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
        Location { file, line: Some(line), column: Some(column) }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(path) => write!(f, "{}", path.display())?,
            None => f.write_str("<workload>")?,
        }
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        Ok(())
    }
}

/// Everything that can go wrong with a workload.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The kernel source named by the workload does not exist or cannot be read.
    #[error("{location}: cannot read kernel source {}: {source}", path.display())]
    MissingSource {
        location: Location,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The text is not well-formed (TOML syntax, unknown keys, wrong value types, .sim syntax).
    #[error("{location}: {message}")]
    Syntax { location: Location, message: String },
    /// The text is well-formed but describes something impossible or inconsistent.
    #[error("{location}: {message}")]
    Invalid { location: Location, message: String },
    /// The buffers together exceed the configured allocation limit.
    #[error(
        "{location}: the buffers need {needed} bytes in total, more than the limit of {limit} \
         bytes"
    )]
    TooLarge { location: Location, needed: u64, limit: u64 },
    /// The kernel source does not compile (`message`: the compiler's rendered diagnostics).
    #[error("{location}: the program does not compile:\n{message}")]
    Frontend { location: Location, message: String },
    /// A `.sim` file was loaded without a compiler to tell the kernel's parameters.
    #[error(
        "{}: an Oclgrind .sim file takes the kernel's parameters from the compiled program; \
         load it through the front end (clmap_exec::PreparedWorkload::load, or \
         Workload::load_with_signatures)",
        path.display()
    )]
    NeedsSignatures { path: PathBuf },
    /// The file name has an extension this crate does not read.
    #[error(
        "{}: unknown workload format (expected a .toml or .sim file){}",
        path.display(),
        if path.extension().is_some_and(|e| e == "cl") {
            format!(
                "; this is a kernel: `clmap workload --skeleton {}` writes a workload for it",
                path.display()
            )
        } else {
            String::new()
        }
    )]
    UnknownFormat { path: PathBuf },
}

impl WorkloadError {
    /// The location the error points at, when it has one.
    pub fn location(&self) -> Option<&Location> {
        match self {
            WorkloadError::MissingSource { location, .. }
            | WorkloadError::Syntax { location, .. }
            | WorkloadError::Invalid { location, .. }
            | WorkloadError::TooLarge { location, .. }
            | WorkloadError::Frontend { location, .. } => Some(location),
            WorkloadError::Io { .. }
            | WorkloadError::UnknownFormat { .. }
            | WorkloadError::NeedsSignatures { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_columns() {
        let text = "a = 1\nbé = 2\n";
        let loc = Location::at_offset(None, text, text.find('2').unwrap_or(0));
        assert_eq!((loc.line, loc.column), (Some(2), Some(6)));
        assert_eq!(Location::at_offset(None, text, 0).to_string(), "<workload>:1:1");
        // Offsets past the end are clamped rather than panicking.
        assert_eq!(Location::at_offset(None, text, 999).line, Some(3));
    }
}
