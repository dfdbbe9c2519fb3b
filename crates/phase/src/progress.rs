//! Progress of a long search, reported to whoever watches: a terminal progress bar, or nothing.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Receives progress events from the search.
pub trait Progress {
    /// A new stage starts (`baselines`, `search`, `minimise`, `final`), with `total` steps of
    /// which `done` are already done (resumed from the database).
    fn stage(&self, name: &str, total: u64, done: u64);
    /// `steps` more steps are done; `best_speedup` is the best speedup so far over the vendor's
    /// compilation from source, when known.
    fn advance(&self, steps: u64, best_speedup: Option<f64>);
    /// The search is over.
    fn finish(&self);
}

/// Reports nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn stage(&self, _name: &str, _total: u64, _done: u64) {}
    fn advance(&self, _steps: u64, _best_speedup: Option<f64>) {}
    fn finish(&self) {}
}

/// A progress bar on standard error (hidden when standard error is not a terminal).
pub struct TerminalProgress {
    bar: Mutex<Option<ProgressBar>>,
}

impl Default for TerminalProgress {
    fn default() -> Self {
        TerminalProgress::new()
    }
}

impl TerminalProgress {
    /// A progress bar that draws on standard error.
    pub fn new() -> TerminalProgress {
        TerminalProgress { bar: Mutex::new(None) }
    }

    fn with_bar(&self, work: impl FnOnce(&mut Option<ProgressBar>)) {
        // A panic elsewhere while the lock was held leaves only a stale bar behind.
        let mut guard = self.bar.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        work(&mut guard);
    }
}

impl Progress for TerminalProgress {
    fn stage(&self, name: &str, total: u64, done: u64) {
        self.with_bar(|slot| {
            if let Some(old) = slot.take() {
                old.finish_and_clear();
            }
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{prefix:>9} [{bar:30}] {pos}/{len} {msg} ({elapsed}, eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(name.to_string());
            bar.set_position(done.min(total));
            bar.enable_steady_tick(Duration::from_millis(500));
            *slot = Some(bar);
        });
    }

    fn advance(&self, steps: u64, best_speedup: Option<f64>) {
        self.with_bar(|slot| {
            if let Some(bar) = slot {
                bar.inc(steps);
                if let Some(speedup) = best_speedup {
                    bar.set_message(format!("best {speedup:.2}x vs source"));
                }
            }
        });
    }

    fn finish(&self) {
        self.with_bar(|slot| {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        });
    }
}
