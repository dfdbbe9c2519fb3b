//! Findings of a run: out-of-bounds accesses, races, uninitialised values, barrier divergence.

use clmap_lang::Span;
use std::fmt;

/// What kind of defect a [`Report`] describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReportKind {
    /// A load or store outside every object (the load yields 0, the store is dropped).
    OutOfBounds,
    /// Two work-items touched the same bytes, at least one writing, with no barrier between.
    DataRace,
    /// Several work-items stored to the same bytes with no barrier between, all the same
    /// value: no data is lost whichever store lands last. A warning (Oclgrind does not report
    /// these at all), so that a flag set by every work-item is told apart from a real race.
    SameValueRace,
    /// A use of an undefined value (`--uninit`): stored to global or local memory, branched
    /// on, or used as an address, where it comes from memory or a variable nothing wrote, or
    /// from a read out of bounds.
    UninitialisedRead,
    /// A barrier reached by some but not all live work-items of a group, or work-items of a
    /// group that reached different barriers (or one `wait_group_events` with other events).
    BarrierDivergence,
    /// Integer division or remainder by zero (the result is 0).
    DivisionByZero,
    /// A store through a pointer to `__constant` memory.
    ConstantWrite,
    /// An atomic operation on an address that is not suitably aligned or not in global/local
    /// memory.
    InvalidAtomic,
    /// A load or store through a pointer not aligned to the type it points to (the access is
    /// made as if it were aligned; devices may fault or round the address down).
    Misaligned,
    /// A store to a buffer the host created read-only, or a load from one it created
    /// write-only (`CL_MEM_READ_ONLY`, `CL_MEM_WRITE_ONLY`; Oclgrind's `ro`, `wo`).
    ForbiddenAccess,
    /// A store to bytes the host has mapped, or a load from bytes it mapped for writing,
    /// while the kernel runs (`clEnqueueMapBuffer` without `clEnqueueUnmapMemObject` before
    /// the launch).
    MappedAccess,
    /// An `async_work_group_copy` never waited for, or a wait for an event no copy returned.
    AsyncCopy,
    /// A load or store through an array of fixed size indexed outside it (`int a[4][4];
    /// a[0][5]`), which Oclgrind reports even where the address stays inside the enclosing
    /// object.
    IndexOutOfRange,
}

impl ReportKind {
    /// Whether the finding is an error (the kernel did something wrong) rather than a
    /// warning about something that works but may not be meant.
    pub fn is_error(self) -> bool {
        self != ReportKind::SameValueRace
    }

    pub fn name(self) -> &'static str {
        match self {
            ReportKind::OutOfBounds => "out-of-bounds access",
            ReportKind::DataRace => "data race",
            ReportKind::SameValueRace => "same-value data race",
            ReportKind::UninitialisedRead => "uninitialised value",
            ReportKind::BarrierDivergence => "barrier divergence",
            ReportKind::DivisionByZero => "division by zero",
            ReportKind::ConstantWrite => "write to constant memory",
            ReportKind::InvalidAtomic => "invalid atomic",
            ReportKind::Misaligned => "misaligned access",
            ReportKind::ForbiddenAccess => "access the buffer's flags forbid",
            ReportKind::MappedAccess => "access to a mapped buffer",
            ReportKind::AsyncCopy => "async copy",
            ReportKind::IndexOutOfRange => "array index out of range",
        }
    }
}

/// One finding, naming the work-item that first hit it (in group, then lane order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub kind: ReportKind,
    pub message: String,
    pub span: Span,
    pub global_id: [u64; 3],
    pub local_id: [u64; 3],
    pub group_id: [u64; 3],
    /// The buffer or variable involved, when known.
    pub object: Option<String>,
    /// How many times the same finding (kind, location, object) occurred in the launch.
    pub occurrences: u64,
    /// Linear index of the work-group, for ordering.
    pub group_index: u64,
    /// Lane (linear local id) of the work-item, for ordering.
    pub lane: u32,
    /// When, in the work-group's instruction count, so that a work-item's findings come in
    /// the order it ran into them (0 for findings made when the launch ends).
    pub time: u64,
    /// For a race in Oclgrind's layout (findings per work-item): when the race checker found
    /// it, as Oclgrind finds races at the barrier that ends their interval (or the end of the
    /// work-group) rather than when they happen; 0 for every other finding. Within a
    /// work-group, findings sort by it first.
    pub sync: u64,
    /// For an out-of-bounds access: what was accessed, so tools can describe it in their own
    /// terms (Oclgrind's layout, for one).
    pub access: Option<InvalidAccess>,
    /// For a race in Oclgrind's layout: both sides of it. Such reports are kept one per
    /// conflict, never merged.
    pub entities: Option<Box<RaceEntities>>,
}

/// The two sides of a race as Oclgrind names them: the access found to conflict, and the
/// earlier one it conflicts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceEntities {
    pub first: RaceEntity,
    pub second: RaceEntity,
    /// Both sides store (Oclgrind's "Write-write"), rather than one loads ("Read-write").
    pub write_write: bool,
}

/// One side of a race: who made the access, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceEntity {
    pub global_id: [u64; 3],
    pub local_id: [u64; 3],
    pub group_id: [u64; 3],
    pub span: Span,
    /// A plain store: Oclgrind's line points at its assignment operator.
    pub store: bool,
    /// The work-group as a whole (an async copy), not one of its work-items.
    pub work_group: bool,
}

/// The facts of an out-of-bounds access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidAccess {
    pub store: bool,
    /// Bytes accessed.
    pub size: u32,
    pub target: crate::memory::Target,
}

impl Report {
    /// The ordering key that makes reports independent of the number of threads: by work-group,
    /// work-item, then time.
    pub(crate) fn order_key(&self) -> (u64, u64, u32, u64, u32, u32, ReportKind) {
        let span = &self.span;
        (self.group_index, self.sync, self.lane, self.time, span.start, span.file.0, self.kind)
    }

    /// The identity used to merge repeated findings.
    pub(crate) fn dedup_key(&self) -> (ReportKind, Span, Option<String>) {
        (self.kind, self.span, self.object.clone())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)?;
        if let Some(object) = &self.object {
            write!(f, " (`{object}`)")?;
        }
        let [gx, gy, gz] = self.global_id;
        let [lx, ly, lz] = self.local_id;
        let [wx, wy, wz] = self.group_id;
        write!(
            f,
            " at work-item ({gx},{gy},{gz}), local ({lx},{ly},{lz}), group ({wx},{wy},{wz})"
        )?;
        if self.occurrences > 1 {
            write!(f, ", {} times", self.occurrences)?;
        }
        Ok(())
    }
}

/// What tells findings apart when every work-item's are kept: kind, place, object, group,
/// lane, message.
type PerWorkItemKey = (ReportKind, Span, Option<String>, u64, u32, String);

/// Collects reports, keeping one per (kind, location, object) with an occurrence count; the
/// kept one is the first in (group, lane) order, so merging collectors from several threads
/// gives the same result in any order.
#[derive(Clone, Debug, Default)]
pub struct ReportSink {
    reports: std::collections::HashMap<(ReportKind, Span, Option<String>), Report>,
    /// With [`ReportSink::new`]`(true)`: the findings kept once per work-item and event, by
    /// (group, lane) and message besides kind, place and object: Oclgrind prints a block each
    /// time a work-item runs into a finding, so two indices past an array, or the read and the
    /// write of one atomic update, are two blocks (findings the checkers make once per group
    /// name one work-item of it).
    per_work_item: std::collections::HashMap<PerWorkItemKey, Report>,
    /// Races in Oclgrind's layout, one per conflict.
    races: Vec<Report>,
    every_work_item: bool,
}

impl ReportSink {
    /// A sink that merges repeated findings, or, with `every_work_item`, keeps one per
    /// work-item for the kinds Oclgrind reports per work-item.
    pub fn new(every_work_item: bool) -> ReportSink {
        ReportSink { every_work_item, ..ReportSink::default() }
    }

    /// Whether findings are kept once per work-item (see [`ReportSink::new`]).
    pub fn every_work_item(&self) -> bool {
        self.every_work_item
    }

    pub fn push(&mut self, report: Report) {
        use std::collections::hash_map::Entry;
        if report.entities.is_some() {
            self.races.push(report);
            return;
        }
        if self.every_work_item {
            let (kind, span, object) = report.dedup_key();
            let key = (kind, span, object, report.group_index, report.lane, report.message.clone());
            match self.per_work_item.entry(key) {
                Entry::Vacant(v) => {
                    v.insert(report);
                }
                Entry::Occupied(mut o) => {
                    let kept = o.get_mut();
                    kept.occurrences = kept.occurrences.saturating_add(report.occurrences);
                    if report.order_key() < kept.order_key() {
                        let occurrences = kept.occurrences;
                        *kept = report;
                        kept.occurrences = occurrences;
                    }
                }
            }
            return;
        }
        match self.reports.entry(report.dedup_key()) {
            Entry::Vacant(v) => {
                v.insert(report);
            }
            Entry::Occupied(mut o) => {
                let kept = o.get_mut();
                let total = kept.occurrences.saturating_add(report.occurrences);
                if report.order_key() < kept.order_key() {
                    *kept = report;
                }
                kept.occurrences = total;
            }
        }
    }

    pub fn merge(&mut self, other: ReportSink) {
        self.races.extend(other.races);
        for (_, r) in other
            .reports
            .into_iter()
            .chain(other.per_work_item.into_iter().map(|(k, r)| ((k.0, k.1, k.2), r)))
        {
            self.push(r);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.reports.is_empty() && self.per_work_item.is_empty() && self.races.is_empty()
    }

    /// The reports sorted by work-group, lane and location.
    pub fn into_sorted(self) -> Vec<Report> {
        let mut out: Vec<Report> = self
            .reports
            .into_values()
            .chain(self.per_work_item.into_values())
            .chain(self.races)
            .collect();
        out.sort_by(|a, b| {
            a.order_key().cmp(&b.order_key()).then_with(|| a.message.cmp(&b.message))
        });
        out
    }
}
