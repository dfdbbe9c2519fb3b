//! The optional checkers, built on the observer interface: data races within a barrier
//! interval (local and global memory, inside one work-group) and reads of uninitialised local
//! memory. Out-of-bounds accesses and barrier divergence are checked by the executor itself.

use std::collections::HashMap;

use clmap_lang::ir::AddressSpace;
use clmap_lang::Span;

use crate::exec::LaunchPlan;
use crate::launch::SimOptions;
use crate::memory::{decode, Target};
use crate::observer::{AccessBatch, AccessKind, GroupInfo, Observer};
use crate::report::{Report, ReportKind, ReportSink};
use crate::Mask;

/// The checkers a launch's options switch on, as one observer.
#[derive(Debug, Default)]
pub(crate) struct Checkers {
    race: Option<RaceChecker>,
    uninit: Option<UninitChecker>,
}

impl Checkers {
    pub(crate) fn new(options: &SimOptions, plan: &LaunchPlan<'_>) -> Checkers {
        Checkers {
            race: options.check_races.then(|| RaceChecker::new(plan.local_size_bytes)),
            uninit: options.check_uninitialised.then(|| {
                UninitChecker::new(plan.local_size_bytes, plan.program.local_objects.clone())
            }),
        }
    }
}

impl Observer for Checkers {
    #[inline]
    fn group_start(&mut self, group: &GroupInfo) {
        if let Some(r) = &mut self.race {
            r.group_start(group);
        }
        if let Some(u) = &mut self.uninit {
            u.group_start(group);
        }
    }
    #[inline]
    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        if let Some(r) = &mut self.race {
            r.memory_access(batch);
        }
        if let Some(u) = &mut self.uninit {
            u.memory_access(batch);
        }
    }
    #[inline]
    fn barrier(&mut self, span: Span, active: &Mask, group: &GroupInfo, time: u64) {
        if let Some(r) = &mut self.race {
            r.barrier(span, active, group, time);
        }
    }
    fn take_reports(&mut self) -> Vec<Report> {
        let mut out = Vec::new();
        if let Some(r) = &mut self.race {
            out.extend(std::mem::take(&mut r.reports).into_sorted());
        }
        if let Some(u) = &mut self.uninit {
            out.extend(std::mem::take(&mut u.reports).into_sorted());
        }
        out
    }
}

fn report_for(
    group: &GroupInfo,
    kind: ReportKind,
    span: Span,
    lane: usize,
    message: String,
    object: Option<String>,
) -> Report {
    Report {
        kind,
        message,
        span,
        global_id: group.global_id(lane),
        local_id: group.local_id(lane),
        group_id: group.group_id,
        object,
        occurrences: 1,
        group_index: group.group_index,
        lane: lane as u32,
    }
}

/// What one byte saw in the current barrier interval. Lanes are stored as `lane + 1`
/// (0 = nobody, [`MANY`] = several lanes).
#[derive(Clone, Copy, Debug, Default)]
struct ByteState {
    epoch: u32,
    writer: u32,
    reader: u32,
    atomic: u32,
}

const MANY: u32 = u32::MAX;
const PAGE_BITS: u32 = 12;

/// Detects two work-items of a group touching the same bytes, at least one writing, with no
/// barrier between (atomics do not race with atomics).
#[derive(Debug)]
struct RaceChecker {
    epoch: u32,
    local: Vec<ByteState>,
    pages: HashMap<u64, usize>,
    page_store: Vec<Box<[ByteState]>>,
    last_page: Option<(u64, usize)>,
    reports: ReportSink,
}

impl RaceChecker {
    fn new(local_bytes: u64) -> Self {
        RaceChecker {
            epoch: 1,
            local: vec![ByteState::default(); local_bytes.min(1 << 28) as usize],
            pages: HashMap::new(),
            page_store: Vec::new(),
            last_page: None,
            reports: ReportSink::default(),
        }
    }

    fn group_start(&mut self, _group: &GroupInfo) {
        self.next_interval();
    }

    fn barrier(&mut self, _span: Span, _active: &Mask, _group: &GroupInfo, _time: u64) {
        self.next_interval();
    }

    fn next_interval(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Epochs wrapped: forget everything explicitly.
            self.local.iter_mut().for_each(|b| *b = ByteState::default());
            self.page_store
                .iter_mut()
                .for_each(|p| p.iter_mut().for_each(|b| *b = ByteState::default()));
            self.epoch = 1;
        }
    }

    fn global_state(&mut self, addr: u64) -> &mut ByteState {
        let page = addr >> PAGE_BITS;
        let index = match self.last_page {
            Some((p, i)) if p == page => i,
            _ => {
                let next = self.page_store.len();
                let i = *self.pages.entry(page).or_insert(next);
                if i == next {
                    self.page_store
                        .push(vec![ByteState::default(); 1 << PAGE_BITS].into_boxed_slice());
                }
                self.last_page = Some((page, i));
                i
            }
        };
        let offset = (addr & ((1 << PAGE_BITS) - 1)) as usize;
        &mut self.page_store[index][offset]
    }

    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        if matches!(batch.space, AddressSpace::Private | AddressSpace::Constant)
            && batch.kind == AccessKind::Load
        {
            return;
        }
        let epoch = self.epoch;
        let mut found: Option<(usize, &'static str, u32)> = None;
        for lane in batch.mask.iter() {
            let Some(&addr) = batch.addresses.get(lane) else { continue };
            let me = lane as u32 + 1;
            let target = decode(addr);
            let is_local = matches!(target, Target::Local { .. });
            if !is_local && !matches!(target, Target::Buffer { .. }) {
                continue;
            }
            for b in 0..u64::from(batch.size) {
                let at = addr.wrapping_add(b);
                let state = match decode(at) {
                    Target::Local { offset } => match self.local.get_mut(offset as usize) {
                        Some(s) => s,
                        None => continue,
                    },
                    Target::Buffer { .. } => self.global_state(at),
                    _ => continue,
                };
                if state.epoch != epoch {
                    *state = ByteState { epoch, ..ByteState::default() };
                }
                let other = |who: u32| who != 0 && who != me;
                let conflict = match batch.kind {
                    AccessKind::Load => {
                        let c = if other(state.writer) || other(state.atomic) {
                            Some(("read after write", state.writer.max(state.atomic)))
                        } else {
                            None
                        };
                        state.reader =
                            if state.reader == 0 || state.reader == me { me } else { MANY };
                        c
                    }
                    AccessKind::Store => {
                        let c = if other(state.writer) || other(state.atomic) {
                            Some(("write after write", state.writer.max(state.atomic)))
                        } else if other(state.reader) {
                            Some(("write after read", state.reader))
                        } else {
                            None
                        };
                        state.writer =
                            if state.writer == 0 || state.writer == me { me } else { MANY };
                        c
                    }
                    AccessKind::Atomic => {
                        let c = if other(state.writer) {
                            Some(("atomic after write", state.writer))
                        } else if other(state.reader) {
                            Some(("atomic after read", state.reader))
                        } else {
                            None
                        };
                        state.atomic =
                            if state.atomic == 0 || state.atomic == me { me } else { MANY };
                        c
                    }
                };
                if let Some((what, who)) = conflict {
                    if found.is_none() {
                        found = Some((lane, what, who));
                    }
                    break;
                }
            }
        }
        if let Some((lane, what, who)) = found {
            let space = match batch.space {
                AddressSpace::Local => "local",
                _ => "global",
            };
            let other = if who == MANY {
                "several other work-items".to_string()
            } else {
                let id = batch.group.local_id(who as usize - 1);
                format!("work-item with local id ({},{},{})", id[0], id[1], id[2])
            };
            let message = format!(
                "{what} on {space} memory: this access conflicts with {other} in the same barrier interval"
            );
            self.reports.push(report_for(
                batch.group,
                ReportKind::DataRace,
                batch.span,
                lane,
                message,
                batch.object.map(str::to_string),
            ));
        }
    }
}

/// Detects reads of `__local` bytes that no work-item of the group has written.
#[derive(Debug)]
struct UninitChecker {
    written: Vec<bool>,
    objects: Vec<crate::program::LocalObject>,
    reports: ReportSink,
}

impl UninitChecker {
    fn new(local_bytes: u64, objects: Vec<crate::program::LocalObject>) -> Self {
        UninitChecker {
            written: vec![false; local_bytes.min(1 << 28) as usize],
            objects,
            reports: ReportSink::default(),
        }
    }

    fn group_start(&mut self, _group: &GroupInfo) {
        self.written.fill(false);
    }

    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        if batch.space != AddressSpace::Local && batch.kind == AccessKind::Load {
            // Pointers to local memory always have the local space in their type.
            return;
        }
        let mut found = None;
        for lane in batch.mask.iter() {
            let Some(&addr) = batch.addresses.get(lane) else { continue };
            let Target::Local { offset } = decode(addr) else { continue };
            let start = offset as usize;
            let end = start.saturating_add(batch.size as usize).min(self.written.len());
            let Some(bytes) = self.written.get_mut(start..end) else { continue };
            match batch.kind {
                AccessKind::Store | AccessKind::Atomic => bytes.fill(true),
                AccessKind::Load => {
                    if found.is_none() && bytes.iter().any(|w| !w) {
                        found = Some((lane, offset));
                    }
                }
            }
        }
        if let Some((lane, offset)) = found {
            let object = self
                .objects
                .iter()
                .find(|o| offset >= o.offset && offset < o.offset + o.size)
                .map(|o| o.name.clone())
                .or(batch.object.map(str::to_string));
            self.reports.push(report_for(
                batch.group,
                ReportKind::UninitialisedRead,
                batch.span,
                lane,
                format!("read of local memory at byte offset {offset} that no work-item of the group has written"),
                object,
            ));
        }
    }
}
