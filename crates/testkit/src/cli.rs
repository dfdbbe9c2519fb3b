//! The `clmap` binary as a user runs it, for the cli package's end-to-end tests.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `clmap` executable cargo built beside the running test.
///
/// Integration tests live in `target/<profile>/deps/`; cargo builds the package's binaries
/// into `target/<profile>/` before it runs them, so this works from the cli package's tests
/// (the only ones that can ask cargo for the binary).
fn binary() -> PathBuf {
    let test = std::env::current_exe().expect("the test executable's path");
    let profile_dir = test
        .parent()
        .filter(|dir| dir.ends_with("deps"))
        .and_then(|deps| deps.parent())
        .unwrap_or_else(|| panic!("{} is not in a cargo deps directory", test.display()));
    let binary = profile_dir.join(format!("clmap{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "{} is missing: the clmap binary is built for the cli package's own tests",
        binary.display()
    );
    binary
}

/// A `clmap` command run from the repository root, for tests that need more than
/// [`clmap`]: environment variables, other working directories, a child to kill.
pub fn clmap_command() -> Command {
    let mut command = Command::new(binary());
    command.current_dir(crate::root());
    command
}

/// Runs `clmap ARGS…` from the repository root and returns what it did.
pub fn clmap(args: &[&str]) -> ClmapRun {
    ClmapRun::of(clmap_command().args(args), args)
}

/// One finished run of `clmap`, with assertions that quote the whole run when they fail.
#[derive(Debug)]
pub struct ClmapRun {
    pub args: Vec<String>,
    pub output: Output,
}

impl ClmapRun {
    /// Runs a prepared command; `args` names the run in failure messages.
    pub fn of(command: &mut Command, args: &[&str]) -> ClmapRun {
        let output = command.output().expect("the clmap binary runs");
        ClmapRun { args: args.iter().map(|a| a.to_string()).collect(), output }
    }

    /// The exit code (`None` when a signal ended the process).
    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// The run for a failure message: command line, exit code, both streams.
    pub fn describe(&self) -> String {
        format!(
            "clmap {}\nexit code: {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.args.join(" "),
            self.code(),
            self.stdout(),
            self.stderr()
        )
    }

    /// Asserts the exit code, and that clmap did not panic whatever the code.
    pub fn assert_code(&self, code: i32) -> &ClmapRun {
        self.assert_no_panic();
        assert_eq!(self.code(), Some(code), "unexpected exit code:\n{}", self.describe());
        self
    }

    pub fn assert_success(&self) -> &ClmapRun {
        self.assert_code(0)
    }

    /// Asserts that the command failed as a user should see a failure: the given non-zero
    /// code, a message on standard error, no panic.
    pub fn assert_fails(&self, code: i32) -> &ClmapRun {
        assert_ne!(code, 0, "a failure has a non-zero exit code");
        self.assert_code(code);
        assert!(!self.stderr().trim().is_empty(), "failed without a message:\n{}", self.describe());
        self
    }

    /// A panic is a bug whatever the input: Rust exits 101 and prints "panicked".
    pub fn assert_no_panic(&self) -> &ClmapRun {
        assert!(
            self.code() != Some(101) && !self.stderr().contains("panicked"),
            "clmap panicked:\n{}",
            self.describe()
        );
        self
    }

    pub fn assert_stdout_contains(&self, needle: &str) -> &ClmapRun {
        assert!(self.stdout().contains(needle), "stdout lacks {needle:?}:\n{}", self.describe());
        self
    }

    pub fn assert_stderr_contains(&self, needle: &str) -> &ClmapRun {
        assert!(self.stderr().contains(needle), "stderr lacks {needle:?}:\n{}", self.describe());
        self
    }

    /// Standard output parsed as JSON.
    ///
    /// # Panics
    /// When it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.output.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.describe()))
    }
}
