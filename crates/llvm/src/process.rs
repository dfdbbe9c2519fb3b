//! Running one tool as a child process with a time limit, so that a crashing or hanging pass
//! costs one compilation and never the caller.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

use crate::error::{CompileError, FailureKind, Stage};

/// How much of a failing tool's stderr is kept: enough for LLVM's message and the top of its
/// stack dump, not megabytes of warnings.
const STDERR_TAIL_BYTES: usize = 2000;

/// Markers LLVM prints when it gives up from inside (fatal errors, assertions, stack dumps).
/// They exit with status 1 rather than on a signal, but they are crashes of a pass, not
/// rejections of the input.
const CRASH_MARKERS: [&str; 3] = ["LLVM ERROR", "PLEASE submit a bug report", "Stack dump"];

/// What a successful run left behind.
pub(crate) struct ToolOutput {
    /// Everything the tool wrote to stdout.
    pub stdout: Vec<u8>,
    /// Everything the tool wrote to stderr (warnings, `-v` reports).
    pub stderr: Vec<u8>,
}

/// Runs `command` to completion or until `timeout`, in its own process group so that a timeout
/// kills whatever the tool started too. The environment is inherited (users may need
/// `LD_LIBRARY_PATH` for carried binaries).
pub(crate) fn run_tool(
    mut command: Command,
    stage: Stage,
    timeout: Duration,
) -> Result<ToolOutput, CompileError> {
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command.spawn().map_err(|e| CompileError {
        stage,
        kind: FailureKind::Failed,
        detail: format!("cannot start {program}: {e}"),
    })?;

    // Both pipes are drained on threads: a tool that fills one pipe while we wait would
    // otherwise block forever.
    let stdout_reader = child.stdout.take().map(spawn_reader);
    let stderr_reader = child.stderr.take().map(spawn_reader);

    let waited = child.wait_timeout(timeout);
    let status = match waited {
        Ok(Some(status)) => Some(status),
        Ok(None) => None,
        Err(e) => {
            kill_group(&mut child);
            return Err(CompileError {
                stage,
                kind: FailureKind::Failed,
                detail: format!("waiting for {program} failed: {e}"),
            });
        }
    };
    if status.is_none() {
        kill_group(&mut child);
    }
    let stdout = stdout_reader.map(join_reader).unwrap_or_default();
    let stderr = stderr_reader.map(join_reader).unwrap_or_default();

    let Some(status) = status else {
        return Err(CompileError {
            stage,
            kind: FailureKind::TimedOut,
            detail: format!(
                "{program} killed after {:.1} s{}",
                timeout.as_secs_f64(),
                tail_suffix(&stderr)
            ),
        });
    };
    if let Some(signal) = status.signal() {
        return Err(CompileError {
            stage,
            kind: FailureKind::Crashed,
            detail: format!("{program} killed by signal {signal}{}", tail_suffix(&stderr)),
        });
    }
    if !status.success() {
        let text = String::from_utf8_lossy(&stderr);
        let kind = if CRASH_MARKERS.iter().any(|marker| text.contains(marker)) {
            FailureKind::Crashed
        } else {
            FailureKind::Failed
        };
        return Err(CompileError {
            stage,
            kind,
            detail: format!("{program} exited with {status}{}", tail_suffix(&stderr)),
        });
    }
    Ok(ToolOutput { stdout, stderr })
}

fn spawn_reader<R: Read + Send + 'static>(mut pipe: R) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        // A read error only shortens the captured text; the exit status still decides.
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

fn join_reader(handle: std::thread::JoinHandle<Vec<u8>>) -> Vec<u8> {
    handle.join().unwrap_or_default()
}

/// Kills the child's whole process group, then reaps the child. The group id is the child's
/// pid because it was started with `process_group(0)`.
fn kill_group(child: &mut std::process::Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: killpg only sends a signal; a stale group id yields ESRCH, which is harmless.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The last part of a tool's stderr, on a new line, or nothing when it was silent.
fn tail_suffix(stderr: &[u8]) -> String {
    let tail = stderr_tail(stderr);
    if tail.is_empty() {
        String::new()
    } else {
        format!("\n{tail}")
    }
}

/// The last [`STDERR_TAIL_BYTES`] of `stderr`, cut at a line start where possible.
pub(crate) fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim_end();
    if text.len() <= STDERR_TAIL_BYTES {
        return text.to_string();
    }
    let mut start = text.len() - STDERR_TAIL_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let tail = &text[start..];
    match tail.find('\n') {
        Some(newline) => format!("…{}", &tail[newline..]),
        None => format!("…{tail}"),
    }
}
