//! An opt-in breakdown of where a run's time goes, for finding what keeps the simulator from
//! scaling with threads. With `CLMAP_PROFILE=1` in the environment every launch prints one
//! line to standard error: the time spent setting it up on one thread, running its units of
//! work on all threads (with the busiest and the idlest thread's working time, whose gap is
//! the load imbalance at the end of the launch), merging the threads' results and finishing
//! (launch-wide checks, sorting findings). [`timed`] adds lines for other serial steps (the
//! metrics' summary), and [`process_summary`] ends with the process's wall time split into
//! the parallel phases and the rest, which is the serial fraction Amdahl's law speaks of.
//!
//! Without the variable nothing is measured or printed; results never depend on it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Wall time spent in the parallel phase of every launch so far, in nanoseconds.
static PARALLEL_NS: AtomicU64 = AtomicU64::new(0);
static LAUNCHES: AtomicU64 = AtomicU64::new(0);
static STARTED: OnceLock<Instant> = OnceLock::new();

/// Whether `CLMAP_PROFILE` asks for the breakdown (read once per process).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CLMAP_PROFILE").is_some_and(|v| !v.is_empty() && v != "0"))
}

/// Marks the start of the process's work; [`process_summary`] measures from here.
pub fn process_started() {
    let _ = STARTED.get_or_init(Instant::now);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `f`, and when profiling prints how long it took as the serial step `what`.
pub fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let start = Instant::now();
    let out = f();
    eprintln!("profile: {what}: {:.1} ms", ms(start.elapsed()));
    out
}

/// The phases of one launch, measured by the launcher.
pub(crate) struct LaunchTimes {
    pub units: u64,
    pub threads: usize,
    pub setup: Duration,
    pub parallel: Duration,
    /// Each thread's time from its start to taking no more work.
    pub busy: Vec<Duration>,
    /// From the last thread taking no more work to every thread having left its results: the
    /// part of merging the launch waits for.
    pub merge: Duration,
    /// Merges made (one fewer than the threads), and the time the threads spent merging in
    /// all, overlapping the end of the launch.
    pub merges: usize,
    pub merging: Duration,
    pub finish: Duration,
}

impl LaunchTimes {
    pub(crate) fn print(&self) {
        let launch = LAUNCHES.fetch_add(1, Ordering::Relaxed) + 1;
        PARALLEL_NS.fetch_add(self.parallel.as_nanos() as u64, Ordering::Relaxed);
        let most = self.busy.iter().max().copied().unwrap_or_default();
        let least = self.busy.iter().min().copied().unwrap_or_default();
        eprintln!(
            "profile: launch {launch}: {} units on {} threads: setup {:.1} ms, parallel {:.1} ms \
             (threads busy {:.1} to {:.1} ms), merge {:.1} ms ({} merges, {:.1} ms on all threads), \
             finish {:.1} ms",
            self.units,
            self.threads,
            ms(self.setup),
            ms(self.parallel),
            ms(least),
            ms(most),
            ms(self.merge),
            self.merges,
            ms(self.merging),
            ms(self.finish)
        );
    }
}

/// When profiling, prints the process's wall time since [`process_started`], the part spent
/// in the parallel phases of its launches and the rest, serial.
pub fn process_summary() {
    if !enabled() {
        return;
    }
    let Some(start) = STARTED.get() else { return };
    let total = start.elapsed();
    let parallel = Duration::from_nanos(PARALLEL_NS.load(Ordering::Relaxed));
    let serial = total.saturating_sub(parallel);
    let fraction = if total.is_zero() { 0.0 } else { serial.as_secs_f64() / total.as_secs_f64() };
    eprintln!(
        "profile: process {:.1} ms: parallel {:.1} ms, serial {:.1} ms ({:.2} % of the run)",
        ms(total),
        ms(parallel),
        ms(serial),
        100.0 * fraction
    );
}
