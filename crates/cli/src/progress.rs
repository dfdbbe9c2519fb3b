//! A progress line on standard error while the simulator runs a long workload.
//!
//! On a terminal it appears once a run has lasted a second and is redrawn in place twice a
//! second, then erased; elsewhere (a pipe, a log file) nothing is printed unless `--progress`
//! asks for it, and then a plain line every few seconds. Standard output is never touched,
//! so `--json` output stays as it is.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The display thread; dropping it stops and erases the line.
pub struct ProgressLine {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ProgressLine {
    /// Starts the display for a run of `launches` launches: when `forced` (`--progress`), or
    /// when standard error is a terminal and `quiet` (machine-readable output) is not set.
    pub fn start(launches: u64, forced: bool, quiet: bool) -> ProgressLine {
        let terminal = std::io::stderr().is_terminal();
        let stop = Arc::new(AtomicBool::new(false));
        if !forced && (quiet || !terminal) {
            return ProgressLine { stop, thread: None };
        }
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || show(&flag, launches.max(1), terminal));
        ProgressLine { stop, thread: Some(thread) }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn show(stop: &AtomicBool, launches: u64, terminal: bool) {
    let started = Instant::now();
    let base = clmap_sim::progress::snapshot().launches;
    // A terminal line is redrawn often; a line in a log is written seldom.
    let (first, every) = if terminal {
        (Duration::from_secs(1), Duration::from_millis(500))
    } else {
        (Duration::from_millis(200), Duration::from_secs(3))
    };
    let mut next = first;
    let mut drawn = false;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(50));
        let elapsed = started.elapsed();
        if elapsed < next {
            continue;
        }
        next = elapsed + every;
        let now = clmap_sim::progress::snapshot();
        let launch = now.launches.saturating_sub(base).clamp(1, launches);
        let percent = (100 * now.started).checked_div(now.units).unwrap_or(0);
        let line = format!(
            "simulating: launch {launch} of {launches}, {percent}% of its work-groups started, \
             {:.0} s",
            elapsed.as_secs_f64()
        );
        let mut err = std::io::stderr().lock();
        let _ = if terminal { write!(err, "\r\x1b[K{line}") } else { writeln!(err, "{line}") };
        let _ = err.flush();
        drawn = true;
    }
    if drawn && terminal {
        let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
    }
}
