//! What the platform tells the user while the program runs: `printf` output, checker findings
//! as each launch ends (with the kernel, source line and work-item), and a machine-readable
//! log that `clmap exec` summarises when the program exits.

use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use clmap_sim::findings::{oclgrind_errors, render_reports};
use clmap_sim::{LaunchReport, SimError};
use clmap_workload::NdRange;
use serde_json::json;

use crate::config::config;
use crate::kernel::Kernel;
use crate::launch::Outcome;

/// Launches so far.
static LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// The next launch's number. Launches are numbered from 1 everywhere a user sees them: the
/// messages, the log (and so `clmap exec`'s summary and `--json`), and the capture's files.
fn next_launch() -> usize {
    LAUNCHES.fetch_add(1, Ordering::Relaxed) as usize + 1
}
/// The log file, opened once: one write per launch, unbuffered, so a program that crashes
/// leaves every launch before the crash in it.
static LOG: Mutex<Option<std::fs::File>> = Mutex::new(None);

/// Appends one JSON object per line to the log file, when there is one.
fn log(entries: &[serde_json::Value]) {
    let Some(path) = &config().log else { return };
    let mut file = LOG.lock().unwrap_or_else(|e| e.into_inner());
    if file.is_none() {
        *file = std::fs::OpenOptions::new().create(true).append(true).open(path).ok();
    }
    let Some(file) = file.as_mut() else { return };
    let mut text = String::new();
    for e in entries {
        text.push_str(&e.to_string());
        text.push('\n');
    }
    let _ = file.write_all(text.as_bytes());
}

/// Notes, once, that the program reached the platform (it asked for the platform list), so
/// `clmap exec` can tell a program that never used OpenCL through the loader from one that did.
pub fn platform_reached() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| log(&[json!({ "event": "platform" })]));
}

/// Writes a kernel's `printf` output through the C library's `stdout`, the stream the host
/// program prints to: both then share one buffer, so the lines come in the order the program
/// caused them, whether standard output is a terminal (line-buffered) or a pipe (flushed when
/// full or at exit), as with a runtime written in C. Writing to the file descriptor directly
/// would put every kernel line before whatever the host had buffered.
pub(crate) fn host_stdout(bytes: &[u8]) {
    extern "C" {
        static stdout: *mut std::ffi::c_void;
        fn fwrite(
            data: *const std::ffi::c_void,
            size: usize,
            count: usize,
            stream: *mut std::ffi::c_void,
        ) -> usize;
    }
    if bytes.is_empty() {
        return;
    }
    // SAFETY: the platform lives in a process with the C library loaded (the ICD loader is a
    // C library), whose `stdout` is an initialised FILE for the process's life.
    unsafe {
        fwrite(bytes.as_ptr().cast(), 1, bytes.len(), stdout);
    }
}

pub fn launch_finished(kernel: &Kernel, range: &NdRange, seconds: f64, run: &Outcome) {
    let launch = next_launch();
    for text in &run.printf {
        host_stdout(text.as_bytes());
    }
    let sources = &kernel.built.compiled.sources;
    let reports: Vec<LaunchReport> = run
        .reports
        .iter()
        .map(|r| LaunchReport {
            // The report's launch is an index (its messages add one).
            launch: launch - 1,
            repetition: 0,
            kernel: kernel.name.clone(),
            report: r.clone(),
        })
        .collect();
    if !reports.is_empty() {
        let text = if config().oclgrind_format {
            oclgrind_errors(sources, &reports)
        } else {
            render_reports(sources, &reports, true)
        };
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
    }
    let mut entries = vec![json!({
        "event": "launch",
        "launch": launch,
        "kernel": kernel.name,
        "global": range.global,
        "local": range.local,
        "dims": range.dims,
        "work_groups": run.work_groups,
        "seconds": seconds,
    })];
    for r in &reports {
        let rep = &r.report;
        let (file, line) = match sources.get(rep.span.file) {
            Some(f) => (f.name.clone(), f.line_col(rep.span.start).line),
            None => (String::new(), 0),
        };
        entries.push(json!({
            "event": "finding",
            "launch": launch,
            "kernel": r.kernel,
            "kind": rep.kind.name(),
            "message": rep.message,
            "object": rep.object,
            "file": file,
            "line": line,
            "global_id": rep.global_id,
            "local_id": rep.local_id,
            "group_id": rep.group_id,
            "occurrences": rep.occurrences,
        }));
    }
    log(&entries);
}

pub fn launch_failed(kernel: &Kernel, error: &SimError) {
    let launch = next_launch();
    // The simulator's message names no flag; the one that raises the budget here is exec's.
    let message = error
        .step_limit_naming("`clmap exec --max-steps N` raises the budget")
        .unwrap_or_else(|| error.to_string());
    eprintln!("clmap: kernel `{}` failed in launch {launch}: {message}", kernel.name);
    log(&[json!({
        "event": "failure",
        "launch": launch,
        "kernel": kernel.name,
        "message": message,
    })]);
}
