//! A progress bar on stderr for campaigns, with the rate and the time left.

use crate::campaign::{Progress, UnitFate};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The terminal view of a running campaign. Hidden when stderr is not a terminal, so logs of
/// scripted campaigns stay readable.
pub struct CampaignProgress {
    bar: ProgressBar,
}

impl CampaignProgress {
    /// A bar over `total` units, labelled `what` (e.g. the device name).
    pub fn new(total: usize, what: &str) -> CampaignProgress {
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        // The template is a constant, so it always parses; the fallback keeps that a non-panic.
        let style = ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} units, {elapsed} elapsed, ETA {eta} {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(what.to_string());
        CampaignProgress { bar }
    }

    /// Shows a finished unit.
    pub fn update(&self, progress: &Progress) {
        // Resumed units are not work done in this run: resetting the ETA clock while they are
        // replayed keeps the estimate from promising a rate that was never measured.
        if progress.fate == UnitFate::Resumed {
            self.bar.reset_eta();
        }
        self.bar.set_position(progress.done as u64);
        self.bar.set_message(format!(
            "MAP-{} {} {} ({:?})",
            progress.unit.map, progress.unit.variant, progress.unit.dataset, progress.fate
        ));
    }

    /// Shows a count of finished units (for campaigns that report no unit details).
    pub fn update_count(&self, done: usize, total: usize) {
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
