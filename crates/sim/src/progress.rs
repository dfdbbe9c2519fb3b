//! How far the simulator has got, for a progress display: launches started and units of
//! work (work-groups, or pieces of one) handed out, counted for the whole process.
//!
//! The counters only ever grow; a display samples [`snapshot`] from another thread and
//! compares samples. They cost one relaxed atomic addition per unit of work, nothing a
//! work-group of any size notices.

use std::sync::atomic::{AtomicU64, Ordering};

static LAUNCHES: AtomicU64 = AtomicU64::new(0);
/// Units of every launch started so far, and of the current one.
static UNITS_TOTAL: AtomicU64 = AtomicU64::new(0);
static UNITS_OF_LAUNCH: AtomicU64 = AtomicU64::new(0);
static UNITS_STARTED: AtomicU64 = AtomicU64::new(0);

/// The counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Launches started by this process.
    pub launches: u64,
    /// Units of work of the latest launch, and how many of them have started.
    pub units: u64,
    pub started: u64,
}

/// The counters now. With launches running on several threads of one process at once (tests),
/// the latest launch's figures mix theirs: good enough for a display, not for anything else.
pub fn snapshot() -> Snapshot {
    let launches = LAUNCHES.load(Ordering::Relaxed);
    let total = UNITS_TOTAL.load(Ordering::Relaxed);
    let units = UNITS_OF_LAUNCH.load(Ordering::Relaxed);
    let started = UNITS_STARTED.load(Ordering::Relaxed);
    // Units started before the latest launch belong to the earlier ones.
    let before = total.saturating_sub(units);
    Snapshot { launches, units, started: started.saturating_sub(before).min(units) }
}

pub(crate) fn launch_started(units: u64) {
    // Earlier launches are finished: count their units as started, so the latest launch's
    // count starts from zero even when one stopped early.
    let total = UNITS_TOTAL.fetch_add(units, Ordering::Relaxed);
    UNITS_STARTED.fetch_max(total, Ordering::Relaxed);
    UNITS_OF_LAUNCH.store(units, Ordering::Relaxed);
    LAUNCHES.fetch_add(1, Ordering::Relaxed);
}

#[inline]
pub(crate) fn unit_started() {
    UNITS_STARTED.fetch_add(1, Ordering::Relaxed);
}
