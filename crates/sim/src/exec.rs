//! The lock-step executor: runs one work-group at a time over all its lanes.

use clmap_lang::ir::{AddressSpace, BinaryOp, FenceFlags, Rounding, Scalar, WorkItemFunction};
use clmap_lang::Span;

use crate::arith::{map1, map2, Arith, Prim};
use crate::barrier::{BarrierSignature, Divergence};
use crate::mask::{for_active, Mask};
use crate::memory::{self, decode, read_bytes, region_base, write_bytes, SharedBuffer, Target};
use crate::observer::{
    AccessBatch, AccessKind, GroupInfo, InstructionBatch, Observer, OpClass, StoredValues,
};
use crate::program::*;
use crate::report::{InvalidAccess, Report, ReportKind, ReportSink};
use crate::value::{from_memory, normalise, to_memory, with_scalar_type, Lane};

/// Everything a launch shares between threads.
pub(crate) struct LaunchPlan<'a> {
    pub program: &'a Program,
    /// Buffers of the launch: pointer arguments first, then program-scope constants.
    pub buffers: Vec<SharedBuffer>,
    /// Index in `buffers` of the first program-scope constant.
    pub globals_base: usize,
    /// The image bound to each buffer that holds one, by buffer index.
    pub images: Vec<Option<crate::image::BoundImage>>,
    /// Register values of each parameter (per component), or bytes for private parameters.
    pub param_values: Vec<ParamValue>,
    pub local_size_bytes: u64,
    pub global_size: [u64; 3],
    pub local_size: [u64; 3],
    pub global_offset: [u64; 3],
    pub num_groups: [u64; 3],
    pub dims: u32,
    pub max_steps: u64,
    /// Follow undefined values (`--uninit`): see [`crate::uninit`].
    pub check_uninitialised: bool,
    /// No observer or checker follows the run's operations: it may run the program with
    /// loop-invariant operations hoisted.
    pub unobserved: bool,
    /// The interactive debugger, which a program compiled for it stops in at every statement.
    pub debugger: Option<crate::debugger::DebugHook>,
}

pub(crate) enum ParamValue {
    Components(Vec<u64>),
    Bytes(Vec<u8>),
}

impl LaunchPlan<'_> {
    pub fn lanes(&self) -> usize {
        (self.local_size[0] * self.local_size[1] * self.local_size[2]) as usize
    }

    pub fn group_count(&self) -> u64 {
        self.num_groups[0] * self.num_groups[1] * self.num_groups[2]
    }

    pub fn group_info(&self, index: u64) -> GroupInfo {
        let nx = self.num_groups[0].max(1);
        let ny = self.num_groups[1].max(1);
        GroupInfo {
            group_id: [index % nx, (index / nx) % ny, index / (nx * ny)],
            group_index: index,
            local_size: self.local_size,
            global_size: self.global_size,
            global_offset: self.global_offset,
            num_groups: self.num_groups,
            lanes: self.lanes(),
            first_lane: 0,
        }
    }
}

/// Why a group stopped early.
pub(crate) enum Stop {
    StepLimit,
}

struct BreakTarget {
    brk: Mask,
    cont: Mask,
    is_loop: bool,
}

/// One thread's executor; runs groups (or pieces of groups) one after another, reusing its
/// storage.
pub(crate) struct GroupExec<'a, O: Observer> {
    plan: &'a LaunchPlan<'a>,
    /// Lanes run together: the group's, or those of one of its `pieces`.
    lanes: usize,
    pieces: usize,
    /// The piece whose local ids `local_ids` holds.
    piece: usize,
    regs: Vec<u64>,
    local: Vec<u8>,
    private: Vec<u8>,
    frame: u64,
    local_ids: [Vec<u64>; 3],
    targets: Vec<BreakTarget>,
    pub(crate) live: Mask,
    call_depth: u32,
    time: u64,
    steps: u64,
    last_span: Span,
    pub(crate) group: GroupInfo,
    pub(crate) observer: O,
    pub(crate) reports: ReportSink,
    /// Output of `printf`: (group, lane, sequence, text).
    pub(crate) printf: Vec<(u64, usize, u64, String)>,
    printf_seq: u64,
    scratch: Vec<u64>,
    addr_scratch: Vec<u64>,
    /// The bytes a copy of a whole object stored, 8 to a component, component `c` of lane `l`
    /// at `c * lanes + l` (kept between copies to spare an allocation each).
    copy_scratch: Vec<u64>,
    oob: Vec<(usize, u64)>,
    /// The group's async copies not yet waited for.
    pub(crate) async_events: crate::async_copy::AsyncEvents,
    /// The arrivals at the barrier the group is gathering at, when not all came at once.
    pub(crate) barriers: crate::barrier::BarrierEpoch,
    /// Which values are undefined, under `--uninit`.
    pub(crate) uninit: Option<Box<crate::uninit::UninitValues>>,
    /// The last load read inside one buffer in every active lane.
    loaded_in_bounds: bool,
}

/// Splits the register file into a destination range and source ranges that do not overlap it
/// (copying the sources aside when they do).
#[inline(always)]
fn operands<'r, const K: usize>(
    regs: &'r mut [u64],
    scratch: &'r mut Vec<u64>,
    dst: usize,
    n: usize,
    srcs: [usize; K],
) -> Option<(&'r mut [u64], [&'r [u64]; K])> {
    let dst_end = dst.checked_add(n)?;
    if dst_end > regs.len() || srcs.iter().any(|&s| s.checked_add(n).is_none_or(|e| e > regs.len()))
    {
        return None;
    }
    if srcs.iter().any(|&s| s < dst_end && s + n > dst) {
        scratch.clear();
        for &s in &srcs {
            scratch.extend_from_slice(&regs[s..s + n]);
        }
        let sources: &'r [u64] = scratch;
        let d = &mut regs[dst..dst_end];
        return Some((d, std::array::from_fn(|i| &sources[i * n..(i + 1) * n])));
    }
    let (lo, rest) = regs.split_at_mut(dst);
    let (d, hi) = rest.split_at_mut(n);
    let lo: &'r [u64] = lo;
    let hi: &'r [u64] = hi;
    Some((
        d,
        std::array::from_fn(|i| {
            let s = srcs[i];
            if s < dst {
                &lo[s..s + n]
            } else {
                &hi[s - dst_end..s - dst_end + n]
            }
        }),
    ))
}

/// Reads memory for one lane; `None` when the address is outside every object.
#[inline(always)]
fn mem_read(
    buffers: &[SharedBuffer],
    local: &[u8],
    private: &[u8],
    frame: u64,
    addr: u64,
    size: u32,
) -> Option<u64> {
    match decode(addr) {
        Target::Buffer { index, offset } => {
            let b = &buffers.get(index)?.storage;
            if b.in_bounds(offset, u64::from(size)) {
                Some(b.read(offset, size))
            } else {
                None
            }
        }
        Target::Local { offset } => read_bytes(local, offset, size),
        Target::Private { lane, offset } => {
            if offset.checked_add(u64::from(size))? > frame {
                return None;
            }
            read_bytes(private, (lane as u64).checked_mul(frame)?.checked_add(offset)?, size)
        }
        Target::Invalid => None,
    }
}

#[inline(always)]
fn mem_write(
    buffers: &[SharedBuffer],
    local: &mut [u8],
    private: &mut [u8],
    frame: u64,
    addr: u64,
    size: u32,
    value: u64,
) -> bool {
    match decode(addr) {
        Target::Buffer { index, offset } => {
            let Some(b) = buffers.get(index) else { return false };
            if b.storage.in_bounds(offset, u64::from(size)) {
                b.storage.write(offset, size, value);
                true
            } else {
                false
            }
        }
        Target::Local { offset } => write_bytes(local, offset, size, value),
        Target::Private { lane, offset } => {
            if offset.saturating_add(u64::from(size)) > frame {
                return false;
            }
            let Some(at) = (lane as u64).checked_mul(frame).and_then(|x| x.checked_add(offset))
            else {
                return false;
            };
            write_bytes(private, at, size, value)
        }
        Target::Invalid => false,
    }
}

impl<'a, O: Observer> GroupExec<'a, O> {
    /// An executor for groups split into `pieces` runs of consecutive lanes (`pieces` divides
    /// the group's size; more than 1 only for groups whose work-items are independent, see
    /// [`crate::observer::GroupInfo::first_lane`]).
    pub fn in_pieces(plan: &'a LaunchPlan<'a>, observer: O, pieces: usize) -> Self {
        let pieces = pieces.max(1);
        let lanes = plan.lanes() / pieces;
        let slots = plan.program.slots as usize;
        let frame = plan.program.private_size;
        let dummy = GroupInfo {
            group_id: [0; 3],
            group_index: 0,
            local_size: plan.local_size,
            global_size: plan.global_size,
            global_offset: plan.global_offset,
            num_groups: plan.num_groups,
            lanes,
            first_lane: 0,
        };
        let mut local_ids = [Vec::new(), Vec::new(), Vec::new()];
        for lane in 0..lanes {
            let id = dummy.local_id(lane);
            for d in 0..3 {
                local_ids[d].push(id[d]);
            }
        }
        GroupExec {
            plan,
            lanes,
            pieces,
            piece: 0,
            regs: vec![0; slots * lanes],
            local: vec![0; plan.local_size_bytes as usize],
            private: vec![0; (frame as usize).saturating_mul(lanes)],
            frame,
            local_ids,
            targets: Vec::new(),
            live: Mask::all(lanes),
            call_depth: 0,
            time: 0,
            steps: 0,
            last_span: Span::UNDEFINED,
            group: dummy,
            observer,
            reports: ReportSink::default(),
            printf: Vec::new(),
            printf_seq: 0,
            scratch: Vec::new(),
            addr_scratch: vec![0; lanes],
            copy_scratch: Vec::new(),
            oob: Vec::new(),
            async_events: Default::default(),
            barriers: Default::default(),
            uninit: plan
                .check_uninitialised
                .then(|| Box::new(crate::uninit::UninitValues::new(plan))),
            loaded_in_bounds: false,
        }
    }

    /// Runs piece `unit % pieces` of work-group `unit / pieces` to completion.
    pub fn run_unit(&mut self, unit: u64) -> Result<(), crate::SimError> {
        let plan = self.plan;
        let pieces = self.pieces as u64;
        let piece = (unit % pieces) as usize;
        self.group = plan.group_info(unit / pieces);
        self.group.lanes = self.lanes;
        self.group.first_lane = piece * self.lanes;
        if piece != self.piece {
            self.piece = piece;
            for lane in 0..self.lanes {
                let id = self.group.local_id(lane);
                for d in 0..3 {
                    self.local_ids[d][lane] = id[d];
                }
            }
        }
        self.regs.fill(0);
        self.private.fill(0);
        self.local.fill(0);
        let lanes = self.lanes;
        for &(slot, value) in &plan.program.constants {
            let at = slot as usize * lanes;
            if let Some(r) = self.regs.get_mut(at..at + lanes) {
                r.fill(value);
            }
        }
        for (param, value) in plan.program.params.iter().zip(&plan.param_values) {
            match (&param.slot, value) {
                (ParamSlot::Reg { slot, .. }, ParamValue::Components(values)) => {
                    for (c, v) in values.iter().enumerate() {
                        let at = (*slot as usize + c) * lanes;
                        if let Some(r) = self.regs.get_mut(at..at + lanes) {
                            r.fill(*v);
                        }
                    }
                }
                (ParamSlot::Private { offset, size }, ParamValue::Bytes(bytes)) => {
                    let n = (*size as usize).min(bytes.len());
                    for lane in 0..lanes {
                        let at = lane * self.frame as usize + *offset as usize;
                        if let Some(dst) = self.private.get_mut(at..at + n) {
                            dst.copy_from_slice(&bytes[..n]);
                        }
                    }
                }
                _ => {}
            }
        }
        // A partial group runs as a whole one whose missing work-items have returned.
        self.live = if self.group.is_partial() {
            let size = self.group.group_size();
            let group = &self.group;
            Mask::all(lanes).filter(|lane| {
                let id = group.local_id(lane);
                (0..3).all(|d| id[d] < size[d])
            })
        } else {
            Mask::all(lanes)
        };
        self.targets.clear();
        self.call_depth = 0;
        self.time = 0;
        self.steps = 0;
        self.printf_seq = 0;
        self.async_events = Default::default();
        self.barriers.reset();
        if let Some(u) = &mut self.uninit {
            u.group_start(plan.program);
        }
        self.observer.group_start(&self.group);
        let mut mask = self.live.clone();
        let nodes = match &plan.program.hoisted {
            Some(hoisted) if plan.unobserved => hoisted,
            _ => &plan.program.nodes,
        };
        let result = self.exec(nodes, &mut mask);
        if let (Some(debugger), Ok(())) = (&plan.debugger, &result) {
            debugger.group_finished(&self.debug_view(&Mask::none(lanes)));
        }
        if result.is_ok() {
            let mut found = Vec::new();
            self.barriers.finish(&mut found);
            self.report_divergences(found);
            crate::async_copy::copies_never_waited_for(self);
        }
        self.observer.group_end(&self.group);
        match result {
            Ok(()) => Ok(()),
            Err(Stop::StepLimit) => Err(crate::SimError::StepLimit {
                limit: plan.max_steps,
                group: self.group.group_id,
                span: self.last_span,
            }),
        }
    }

    /// What the debugger may look at: the group's state, `active` the lanes at the point
    /// where it stops.
    #[cold]
    fn debug_view<'v>(&'v self, active: &'v Mask) -> crate::debugger::GroupView<'v> {
        crate::debugger::GroupView {
            program: self.plan.program,
            group: &self.group,
            lanes: self.lanes,
            active,
            live: &self.live,
            regs: &self.regs,
            local: &self.local,
            private: &self.private,
            frame: self.frame,
            buffers: &self.plan.buffers,
            depth: self.call_depth,
        }
    }

    fn slot(&self, slot: Slot) -> &[u64] {
        let at = slot as usize * self.lanes;
        self.regs.get(at..at + self.lanes).unwrap_or(&[])
    }

    #[inline(always)]
    fn lane_value(&self, slot: Slot, lane: usize) -> u64 {
        self.regs.get(slot as usize * self.lanes + lane).copied().unwrap_or(0)
    }

    pub(crate) fn report(
        &mut self,
        kind: ReportKind,
        span: Span,
        lane: usize,
        message: String,
        object: Option<String>,
    ) {
        self.report_with_access(kind, span, lane, message, object, None);
    }

    fn report_with_access(
        &mut self,
        kind: ReportKind,
        span: Span,
        lane: usize,
        message: String,
        object: Option<String>,
        access: Option<InvalidAccess>,
    ) {
        self.reports.push(Report {
            kind,
            message,
            span,
            global_id: self.group.global_id(lane),
            local_id: self.group.local_id(lane),
            group_id: self.group.group_id,
            object,
            occurrences: 1,
            group_index: self.group.group_index,
            lane: (self.group.first_lane + lane) as u32,
            time: self.time,
            sync: 0,
            entities: None,
            access,
        });
    }

    /// The lanes of `lanes` reached a barrier (`barrier` or `wait_group_events`): reports
    /// the divergences of the barrier instances this completes.
    pub(crate) fn arrive_at_barrier(&mut self, signature: BarrierSignature, lanes: &Mask) {
        let mut found = Vec::new();
        self.barriers.arrive(signature, lanes, &self.live, &mut found);
        self.report_divergences(found);
    }

    fn report_divergences(&mut self, found: Vec<Divergence>) {
        for divergence in found {
            let (lane, span, message) = match divergence {
                Divergence::Different { lane, own, first } => {
                    let what = if own.wait { "wait_group_events" } else { "barrier" };
                    let how = if own.span != first.span || own.wait != first.wait {
                        format!("reached another {what} than the group's first work-item")
                    } else if own.fences != first.fences {
                        format!(
                            "reached this {what} with other fences than the group's first \
                             work-item"
                        )
                    } else {
                        "waited here for other events than the group's first work-item".to_string()
                    };
                    let message = format!(
                        "{what} divergence: this work-item {how}; every work-item of the group \
                         must reach the same barriers, in the same order, with the same arguments"
                    );
                    (lane, own.span, message)
                }
                Divergence::Incomplete { lane, barrier, reached, expected } => {
                    let what = if barrier.wait { "wait_group_events" } else { "barrier" };
                    let message = format!(
                        "{what} reached by {reached} of the group's {expected} live work-items; \
                         this work-item did not reach it"
                    );
                    (lane, barrier.span, message)
                }
            };
            self.report(ReportKind::BarrierDivergence, span, lane, message, None);
        }
    }

    fn exec(&mut self, nodes: &'a [Node], cur: &mut Mask) -> Result<(), Stop> {
        for node in nodes {
            if cur.is_empty() {
                return Ok(());
            }
            self.steps += 1;
            self.time += 1;
            if self.steps > self.plan.max_steps {
                return Err(Stop::StepLimit);
            }
            match node {
                Node::Op(op) => self.op(op, cur),
                Node::If { cond, then_, else_, span } => {
                    self.check_condition(*cond, cur, *span);
                    let c = self.slot(*cond);
                    let mut taken = cur.filter(|l| c.get(l).is_some_and(|v| *v != 0));
                    self.observer.branch(*span, &taken, cur, self.time);
                    let mut other = cur.clone();
                    other.and_not_assign(&taken);
                    if !taken.is_empty() {
                        self.exec(then_, &mut taken)?;
                    }
                    if !other.is_empty() {
                        self.exec(else_, &mut other)?;
                    }
                    taken.or_assign(&other);
                    *cur = taken;
                }
                Node::Loop { cond_nodes, cond, body, update, test_first, span } => {
                    self.last_span = *span;
                    self.run_loop(cond_nodes, *cond, body, update, *test_first, *span, cur)?;
                }
                Node::Switch { selector, cases, span } => {
                    self.run_switch(*selector, cases, *span, cur)?
                }
                Node::Break => {
                    if let Some(t) = self.targets.last_mut() {
                        t.brk.or_assign(cur);
                    }
                    cur.clear();
                }
                Node::Continue => {
                    if let Some(t) = self.targets.iter_mut().rev().find(|t| t.is_loop) {
                        t.cont.or_assign(cur);
                    }
                    cur.clear();
                }
                Node::Return => {
                    if self.call_depth == 0 {
                        self.live.and_not_assign(cur);
                    }
                    cur.clear();
                }
                Node::Call { body } => {
                    let entry = cur.clone();
                    // Break targets of the caller are not visible inside the callee.
                    let saved = std::mem::take(&mut self.targets);
                    self.call_depth += 1;
                    let r = self.exec(body, cur);
                    self.call_depth -= 1;
                    self.targets = saved;
                    r?;
                    *cur = entry;
                }
                Node::Statement(index) => {
                    if let Some(debugger) = &self.plan.debugger {
                        debugger.at_statement(&self.debug_view(cur), *index);
                    }
                }
                Node::Barrier { span, fences } => {
                    let signature = BarrierSignature {
                        span: *span,
                        fences: *fences,
                        wait: false,
                        events: Vec::new(),
                    };
                    self.arrive_at_barrier(signature, cur);
                    self.observer.barrier(*span, *fences, cur, &self.group, self.time);
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn run_loop(
        &mut self,
        cond_nodes: &'a [Node],
        cond: Option<Slot>,
        body: &'a [Node],
        update: &'a [Node],
        test_first: bool,
        span: Span,
        cur: &mut Mask,
    ) -> Result<(), Stop> {
        let mut run = cur.clone();
        let mut exited = Mask::none(self.lanes);
        self.targets.push(BreakTarget {
            brk: Mask::none(self.lanes),
            cont: Mask::none(self.lanes),
            is_loop: true,
        });
        let result = (|| {
            let mut first = true;
            loop {
                if test_first || !first {
                    if !self.test(cond_nodes, cond, span, &mut run, &mut exited)? {
                        break;
                    }
                }
                first = false;
                self.steps += 1;
                if self.steps > self.plan.max_steps {
                    return Err(Stop::StepLimit);
                }
                self.exec(body, &mut run)?;
                if let Some(t) = self.targets.last_mut() {
                    run.or_assign(&t.cont);
                    t.cont.clear();
                }
                if run.is_empty() {
                    break;
                }
                self.exec(update, &mut run)?;
            }
            Ok(())
        })();
        let target = self.targets.pop();
        result?;
        if let Some(t) = target {
            exited.or_assign(&t.brk);
        }
        *cur = exited;
        Ok(())
    }

    /// Evaluates a loop condition, moving failing lanes from `run` to `exited`; false when no
    /// lane goes on.
    fn test(
        &mut self,
        cond_nodes: &'a [Node],
        cond: Option<Slot>,
        span: Span,
        run: &mut Mask,
        exited: &mut Mask,
    ) -> Result<bool, Stop> {
        let Some(cond) = cond else { return Ok(!run.is_empty()) };
        let mut eval_mask = run.clone();
        self.exec(cond_nodes, &mut eval_mask)?;
        self.check_condition(cond, run, span);
        let c = self.slot(cond);
        let staying = run.filter(|l| c.get(l).is_some_and(|v| *v != 0));
        self.observer.branch(span, &staying, run, self.time);
        let mut leaving = run.clone();
        leaving.and_not_assign(&staying);
        exited.or_assign(&leaving);
        *run = staying;
        Ok(!run.is_empty())
    }

    fn run_switch(
        &mut self,
        selector: Slot,
        cases: &'a [CaseNode],
        span: Span,
        cur: &mut Mask,
    ) -> Result<(), Stop> {
        self.check_condition(selector, cur, span);
        let sel = self.slot(selector).to_vec();
        let default = cases.iter().position(|c| c.value.is_none());
        // The case each lane starts at.
        let start: Vec<Option<usize>> = (0..self.lanes)
            .map(|l| {
                let v = sel.get(l).copied().unwrap_or(0) as i64;
                cases.iter().position(|c| c.value == Some(v)).or(default)
            })
            .collect();
        let unmatched = cur.filter(|l| start.get(l).copied().flatten().is_none());
        self.targets.push(BreakTarget {
            brk: Mask::none(self.lanes),
            cont: Mask::none(self.lanes),
            is_loop: false,
        });
        let mut done = Mask::none(self.lanes);
        let mut running = Mask::none(self.lanes);
        let mut result = Ok(());
        for (i, case) in cases.iter().enumerate() {
            let entering = cur.filter(|l| start.get(l).copied().flatten() == Some(i));
            self.observer.branch(span, &entering, cur, self.time);
            running.or_assign(&entering);
            if !running.is_empty() {
                if let Err(e) = self.exec(&case.body, &mut running) {
                    result = Err(e);
                    break;
                }
            }
            if !case.fall_through {
                done.or_assign(&running);
                running.clear();
            }
        }
        let target = self.targets.pop();
        result?;
        done.or_assign(&running);
        done.or_assign(&unmatched);
        if let Some(t) = target {
            done.or_assign(&t.brk);
        }
        *cur = done;
        Ok(())
    }

    // ----- operations -------------------------------------------------------------------

    /// Tells the observer an operation of `vector_width` components ran over `mask`.
    #[inline(always)]
    fn note_op(&mut self, class: OpClass, mask: &Mask, vector_width: u32) {
        let batch = InstructionBatch { class, mask, vector_width, time: self.time };
        self.observer.instruction(&batch);
    }

    /// Reports a branch of the lanes of `mask` on an undefined value in `cond` (`--uninit`).
    #[inline]
    fn check_condition(&mut self, cond: Slot, mask: &Mask, span: Span) {
        let Some(u) = self.uninit.as_ref() else { return };
        let every = u.every_lane;
        let lanes: Vec<usize> =
            u.undefined_lanes(cond, mask).take(if every { usize::MAX } else { 1 }).collect();
        for lane in lanes {
            self.report(
                ReportKind::UninitialisedRead,
                span,
                lane,
                "branch on an undefined value: the condition depends on memory or a variable \
                 nothing wrote, or on a read out of bounds"
                    .to_string(),
                None,
            );
        }
    }

    /// Follows which values `op` leaves undefined (`--uninit`), before it runs.
    #[inline(never)]
    fn follow_undefined(&mut self, op: &Op, mask: &Mask) {
        let Some(u) = self.uninit.as_deref_mut() else { return };
        let plan = self.plan;
        u.before(op, mask, &self.regs, &plan.buffers, &plan.program.sites);
        if u.has_found() {
            self.report_undefined_uses();
        }
    }

    fn report_undefined_uses(&mut self) {
        let Some(mut u) = self.uninit.take() else { return };
        for found in u.take_found() {
            let (span, object) = match found.site {
                Some(site) => {
                    let (span, object, _) = self.site(site);
                    (span, object.map(str::to_string))
                }
                None => (found.span, None),
            };
            self.report_with_access(
                ReportKind::UninitialisedRead,
                span,
                found.lane,
                found.message,
                object,
                found.access,
            );
        }
        self.uninit = Some(u);
    }

    fn op(&mut self, op: &'a Op, mask: &Mask) {
        if self.uninit.as_deref().is_some_and(|u| u.follows(op)) {
            self.follow_undefined(op, mask);
        }
        let lanes = self.lanes;
        let at = |s: Slot| s as usize * lanes;
        match op {
            Op::Copy { dst, src, len } => {
                self.note_op(OpClass::Move, mask, *len);
                let n = *len as usize;
                for c in 0..n {
                    let d = at(*dst) + c * lanes;
                    let s = at(*src) + c * lanes;
                    if d == s || d + lanes > self.regs.len() || s + lanes > self.regs.len() {
                        continue;
                    }
                    if mask.is_full() {
                        self.regs.copy_within(s..s + lanes, d);
                    } else {
                        let regs = &mut self.regs;
                        for_active!(mask, lane => { regs[d + lane] = regs[s + lane]; });
                    }
                }
            }
            Op::Gather { dst, srcs } => {
                self.note_op(OpClass::Move, mask, srcs.len() as u32);
                // Sources may include the destination's own slots only for values that are
                // never overwritten here (fresh destinations), so copy through scratch.
                self.scratch.clear();
                for s in srcs.iter() {
                    let s = at(*s);
                    if let Some(r) = self.regs.get(s..s + lanes) {
                        self.scratch.extend_from_slice(r);
                    } else {
                        self.scratch.extend(std::iter::repeat_n(0, lanes));
                    }
                }
                let d = at(*dst);
                if let Some(r) = self.regs.get_mut(d..d + self.scratch.len()) {
                    r.copy_from_slice(&self.scratch);
                }
            }
            Op::Scatter { dsts, src } => {
                self.note_op(OpClass::Move, mask, dsts.len() as u32);
                self.scratch.clear();
                let s = at(*src);
                if let Some(r) = self.regs.get(s..s + lanes * dsts.len()) {
                    self.scratch.extend_from_slice(r);
                }
                for (c, d) in dsts.iter().enumerate() {
                    let d = at(*d);
                    if d + lanes > self.regs.len() || self.scratch.len() < (c + 1) * lanes {
                        continue;
                    }
                    let regs = &mut self.regs;
                    let scratch = &self.scratch;
                    for_active!(mask, lane => { regs[d + lane] = scratch[c * lanes + lane]; });
                }
            }
            Op::Unary { op, ty, dst, a, len } => {
                let class = if ty.is_float() {
                    OpClass::FloatArithmetic
                } else {
                    OpClass::IntegerArithmetic
                };
                self.note_op(class, mask, *len);
                let n = *len as usize * lanes;
                let Some((d, [x])) =
                    operands(&mut self.regs, &mut self.scratch, at(*dst), n, [at(*a)])
                else {
                    return;
                };
                with_scalar_type!(ty, T => match op {
                    UnaryKind::Negate => map1(d, x, |v: T| v.neg()),
                    UnaryKind::BitNot => map1(d, x, |v: T| v.not()),
                });
            }
            Op::Binary { op, ty, dst, a, b, len, site } => {
                self.binary(*op, *ty, *dst, *a, *b, *len, *site, mask)
            }
            Op::Compare { op, ty, dst, a, b, len, vector } => {
                self.note_op(OpClass::Comparison, mask, *len);
                let n = *len as usize * lanes;
                let truth = if *vector { u64::MAX } else { 1 };
                let Some((d, [x, y])) =
                    operands(&mut self.regs, &mut self.scratch, at(*dst), n, [at(*a), at(*b)])
                else {
                    return;
                };
                with_scalar_type!(ty, T => compare::<T>(*op, d, x, y, truth));
            }
            Op::LogicalVector { and, ty, dst, a, b, len } => {
                self.note_op(OpClass::Comparison, mask, *len);
                let n = *len as usize * lanes;
                let Some((d, [x, y])) =
                    operands(&mut self.regs, &mut self.scratch, at(*dst), n, [at(*a), at(*b)])
                else {
                    return;
                };
                with_scalar_type!(ty, T => {
                    if *and {
                        for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
                            *d = if !<T as Lane>::from_bits(*x).is_zero() && !<T as Lane>::from_bits(*y).is_zero() { u64::MAX } else { 0 };
                        }
                    } else {
                        for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
                            *d = if !<T as Lane>::from_bits(*x).is_zero() || !<T as Lane>::from_bits(*y).is_zero() { u64::MAX } else { 0 };
                        }
                    }
                });
            }
            Op::Not { ty, dst, a, len, vector } => {
                self.note_op(OpClass::Comparison, mask, *len);
                let n = *len as usize * lanes;
                let truth = if *vector { u64::MAX } else { 1 };
                let Some((d, [x])) =
                    operands(&mut self.regs, &mut self.scratch, at(*dst), n, [at(*a)])
                else {
                    return;
                };
                with_scalar_type!(ty, T => {
                    for (d, x) in d.iter_mut().zip(x) {
                        *d = if <T as Lane>::from_bits(*x).is_zero() { truth } else { 0 };
                    }
                });
            }
            Op::ToBool { ty, dst, a, len } => {
                self.note_op(OpClass::Conversion, mask, *len);
                let n = *len as usize * lanes;
                let Some((d, [x])) =
                    operands(&mut self.regs, &mut self.scratch, at(*dst), n, [at(*a)])
                else {
                    return;
                };
                with_scalar_type!(ty, T => {
                    for (d, x) in d.iter_mut().zip(x) {
                        *d = u64::from(!<T as Lane>::from_bits(*x).is_zero());
                    }
                });
            }
            Op::Convert { from, to, dst, a, len, saturate, rounding } => {
                self.note_op(OpClass::Conversion, mask, *len);
                let n = *len as usize * lanes;
                let Some((d, [x])) =
                    operands(&mut self.regs, &mut self.scratch, at(*dst), n, [at(*a)])
                else {
                    return;
                };
                convert(*from, *to, d, x, *saturate, *rounding);
            }
            Op::Bitcast { from, to, dst, a, from_len, to_len } => {
                self.note_op(OpClass::Move, mask, *from_len);
                self.bitcast(*from, *to, *dst, *a, *from_len, *to_len);
            }
            Op::Select { cond_ty, msb, dst, cond, a, b, len } => {
                self.note_op(OpClass::Move, mask, *len);
                let n = *len as usize * lanes;
                let bits = cond_ty.size() * 8;
                let Some((d, [c, x, y])) = operands(
                    &mut self.regs,
                    &mut self.scratch,
                    at(*dst),
                    n,
                    [at(*cond), at(*a), at(*b)],
                ) else {
                    return;
                };
                for (((d, c), x), y) in d.iter_mut().zip(c).zip(x).zip(y) {
                    let pick = if *msb { (*c >> (bits - 1)) & 1 == 1 } else { *c != 0 };
                    *d = if pick { *x } else { *y };
                }
            }
            Op::AddrIndex { dst, base, index, signed, scale, negate } => {
                self.note_op(OpClass::Address, mask, 1);
                let Some((d, [p, i])) = operands(
                    &mut self.regs,
                    &mut self.scratch,
                    at(*dst),
                    lanes,
                    [at(*base), at(*index)],
                ) else {
                    return;
                };
                let scale = *scale;
                // Registers hold signed indices sign-extended and unsigned ones zero-extended,
                // so the 64-bit value is the index either way.
                let _ = signed;
                if *negate {
                    for ((d, p), i) in d.iter_mut().zip(p).zip(i) {
                        *d = p.wrapping_sub(i.wrapping_mul(scale));
                    }
                } else {
                    for ((d, p), i) in d.iter_mut().zip(p).zip(i) {
                        *d = p.wrapping_add(i.wrapping_mul(scale));
                    }
                }
            }
            Op::AddrConst { dst, base, offset } => {
                self.note_op(OpClass::Address, mask, 1);
                let Some((d, [p])) =
                    operands(&mut self.regs, &mut self.scratch, at(*dst), lanes, [at(*base)])
                else {
                    return;
                };
                for (d, p) in d.iter_mut().zip(p) {
                    *d = p.wrapping_add(*offset);
                }
            }
            Op::PtrDiff { dst, a, b, elem_size } => {
                self.note_op(OpClass::Address, mask, 1);
                let Some((d, [x, y])) =
                    operands(&mut self.regs, &mut self.scratch, at(*dst), lanes, [at(*a), at(*b)])
                else {
                    return;
                };
                let size = (*elem_size).max(1) as i64;
                for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
                    *d = (x.wrapping_sub(*y) as i64).wrapping_div(size) as u64;
                }
            }
            Op::PrivateAddr { dst, offset } => {
                let d = at(*dst);
                if let Some(r) = self.regs.get_mut(d..d + lanes) {
                    for (lane, v) in r.iter_mut().enumerate() {
                        *v = region_base(memory::PRIVATE_REGION + lane as u64) + offset;
                    }
                }
            }
            Op::LocalAddr { dst, offset } => {
                let d = at(*dst);
                if let Some(r) = self.regs.get_mut(d..d + lanes) {
                    r.fill(region_base(memory::LOCAL_REGION) + offset);
                }
            }
            Op::GlobalVarAddr { dst, global } => {
                let d = at(*dst);
                let base = memory::buffer_base(self.plan.globals_base + *global as usize);
                if let Some(r) = self.regs.get_mut(d..d + lanes) {
                    r.fill(base);
                }
            }
            Op::Load { dst, addr, scalar, width, comps, site } => {
                self.note_op(OpClass::Load, mask, *width);
                self.load(*dst, *addr, *scalar, *width, comps.as_deref(), *site, mask);
                if let Some(u) = self.uninit.as_deref_mut() {
                    let plan = self.plan;
                    let (buffers, sites) = (&plan.buffers, &plan.program.sites);
                    u.after_load(op, mask, &self.regs, buffers, sites, self.loaded_in_bounds);
                }
            }
            Op::Store { addr, src, scalar, width, comps, site } => {
                self.note_op(OpClass::Store, mask, *width);
                self.store(*addr, *src, *scalar, *width, comps.as_deref(), *site, mask);
            }
            Op::MemCopy { dst, src, size, site } => {
                self.note_op(OpClass::Store, mask, 1);
                self.mem_copy(*dst, Some(*src), *size, *site, mask);
            }
            Op::MemZero { dst, size, site } => {
                self.mem_copy(*dst, None, *size, *site, mask);
            }
            Op::IndexCheck { index, signed, len, span } => {
                self.check_index(*index, *signed, *len, *span, mask);
            }
            Op::WorkItem { func, dst, dim } => {
                self.note_op(OpClass::WorkItemQuery, mask, 1);
                self.work_item(*func, *dst, *dim);
            }
            Op::Builtin(call) => {
                self.note_op(OpClass::Builtin, mask, call_width(call));
                crate::builtins::run_builtin(self, call, mask);
                if let Some(u) = &mut self.uninit {
                    u.end_call(call, mask);
                    self.report_undefined_uses();
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        op: BinaryOp,
        ty: Scalar,
        dst: Slot,
        a: Slot,
        b: Slot,
        len: u32,
        site: u32,
        mask: &Mask,
    ) {
        let lanes = self.lanes;
        let class =
            if ty.is_float() { OpClass::FloatArithmetic } else { OpClass::IntegerArithmetic };
        self.note_op(class, mask, len);
        let n = len as usize * lanes;
        if matches!(op, BinaryOp::Div | BinaryOp::Rem) && ty.is_integer() {
            // Report the first active lane dividing by zero.
            let divisor = b as usize * lanes;
            let mut zero_lane = None;
            for c in 0..len as usize {
                let regs = &self.regs;
                for_active!(mask, lane => {
                    if zero_lane.is_none() && regs.get(divisor + c * lanes + lane).is_some_and(|v| *v == 0) {
                        zero_lane = Some(lane);
                    }
                });
            }
            if let Some(lane) = zero_lane {
                let span =
                    self.plan.program.sites.get(site as usize).map_or(Span::UNDEFINED, |s| s.span);
                self.report(
                    ReportKind::DivisionByZero,
                    span,
                    lane,
                    "integer division by zero (result taken as 0)".to_string(),
                    None,
                );
            }
        }
        let Some((d, [x, y])) = operands(
            &mut self.regs,
            &mut self.scratch,
            dst as usize * lanes,
            n,
            [a as usize * lanes, b as usize * lanes],
        ) else {
            return;
        };
        with_scalar_type!(ty, T => binary_lanes::<T>(op, d, x, y));
    }

    fn bitcast(
        &mut self,
        from: Scalar,
        to: Scalar,
        dst: Slot,
        a: Slot,
        from_len: u32,
        to_len: u32,
    ) {
        let lanes = self.lanes;
        let fs = from.size() as usize;
        let ts = to.size() as usize;
        let from_store = if from_len == 3 { 4 } else { from_len as usize };
        let to_store = if to_len == 3 { 4 } else { to_len as usize };
        let mut bytes = vec![0u8; (fs * from_store).max(ts * to_store)];
        let mut out = vec![0u64; to_len as usize * lanes];
        for lane in 0..lanes {
            bytes.fill(0);
            for c in 0..from_len as usize {
                let v = to_memory(from, self.lane_value(a + c as u32, lane)).to_le_bytes();
                if let Some(dst) = bytes.get_mut(c * fs..c * fs + fs) {
                    dst.copy_from_slice(&v[..fs]);
                }
            }
            for c in 0..to_len as usize {
                let raw = read_bytes(&bytes, (c * ts) as u64, ts as u32).unwrap_or(0);
                out[c * lanes + lane] = from_memory(to, raw);
            }
        }
        let d = dst as usize * lanes;
        if let Some(r) = self.regs.get_mut(d..d + out.len()) {
            r.copy_from_slice(&out);
        }
    }

    fn site(&self, site: u32) -> (Span, Option<&'a str>, AddressSpace) {
        match self.plan.program.sites.get(site as usize) {
            Some(s) => (s.span, s.object.as_deref(), s.space),
            None => (Span::UNDEFINED, None, AddressSpace::Private),
        }
    }

    /// Name of the object an address falls in (or near), for reports.
    fn object_name(&self, addr: u64, fallback: Option<&str>) -> Option<String> {
        match decode(addr) {
            Target::Buffer { index, .. } => {
                self.plan.buffers.get(index).map(|b| b.name.to_string())
            }
            Target::Local { offset } => self
                .plan
                .program
                .local_objects
                .iter()
                .find(|o| offset >= o.offset && offset < o.offset + o.size)
                .map(|o| o.name.clone())
                .or(fallback.map(str::to_string)),
            _ => fallback.map(str::to_string),
        }
    }

    /// `shape`: the vector type of a whole-vector access (`float4`), named after its size.
    fn describe_oob(&self, addr: u64, size: u32, store: bool, shape: Option<&str>) -> String {
        let what = if store { "store" } else { "load" };
        let bytes = match shape {
            Some(shape) => format!("{size} bytes ({shape})"),
            None => format!("{size} bytes"),
        };
        match decode(addr) {
            Target::Buffer { index, offset } => match self.plan.buffers.get(index) {
                Some(b) => format!(
                    "{what} of {bytes} at byte offset {offset} of a {}-byte buffer",
                    b.len()
                ),
                None => format!("{what} of {bytes} through a pointer to no buffer"),
            },
            Target::Local { offset } => format!(
                "{what} of {bytes} at byte offset {offset} of {} bytes of local memory",
                self.local.len()
            ),
            Target::Private { offset, .. } => format!(
                "{what} of {bytes} at byte offset {offset} of {} bytes of private memory",
                self.frame
            ),
            Target::Invalid if addr < 4096 => {
                format!("{what} of {bytes} through a null pointer")
            }
            Target::Invalid => format!("{what} of {bytes} at invalid address {addr:#x}"),
        }
    }

    fn flush_oob(&mut self, site: u32, size: u32, store: bool) {
        self.flush_oob_shaped(site, size, store, None);
    }

    /// Reports the out-of-bounds accesses of a load or store of `width` components: a whole
    /// vector (`float4 v = p[i]`, `vload4`, a `vload_half`) is one access of the vector's
    /// size, named by its type, whose lanes recorded the vector's first byte; single
    /// components are accesses of their own.
    fn flush_oob_of(&mut self, site: u32, scalar: Scalar, width: u32, whole: bool, store: bool) {
        if self.oob.is_empty() {
            return;
        }
        if whole {
            let shape = if width > 1 {
                format!("{}{width}", scalar.name())
            } else {
                scalar.name().to_string()
            };
            self.flush_oob_shaped(site, scalar.size() * width, store, Some(&shape));
        } else {
            self.flush_oob_shaped(site, scalar.size(), store, None);
        }
    }

    fn flush_oob_shaped(&mut self, site: u32, size: u32, store: bool, shape: Option<&str>) {
        if self.oob.is_empty() {
            return;
        }
        let mut oob = std::mem::take(&mut self.oob);
        let (span, fallback, _) = self.site(site);
        if let Some(&(lane, addr)) = oob.first() {
            let message = self.describe_oob(addr, size, store, shape);
            let object = self.object_name(addr, fallback);
            // Accesses are counted, not their components or bytes: each lane once.
            oob.sort_unstable_by_key(|(l, _)| *l);
            oob.dedup_by_key(|(l, _)| *l);
            let count = oob.len() as u64;
            let access = InvalidAccess { store, size, target: decode(addr) };
            self.report_with_access(
                ReportKind::OutOfBounds,
                span,
                lane,
                message,
                object,
                Some(access),
            );
            if self.reports.every_work_item() {
                // A finding for every lane, as Oclgrind prints them.
                for &(other, addr) in oob.iter().filter(|(l, _)| *l != lane) {
                    let message = self.describe_oob(addr, size, store, shape);
                    let object = self.object_name(addr, fallback);
                    let access = InvalidAccess { store, size, target: decode(addr) };
                    self.report_with_access(
                        ReportKind::OutOfBounds,
                        span,
                        other,
                        message,
                        object,
                        Some(access),
                    );
                }
            } else if count > 1 {
                // Count every lane that went out of bounds.
                let object = self.object_name(addr, fallback);
                self.report_more_lanes(span, object, count - 1);
            }
        }
        self.oob = oob;
        self.oob.clear();
    }

    /// The other lanes of an out-of-bounds access already reported for its first lane: one
    /// record that only counts them, so a report says how many work-items went astray.
    fn report_more_lanes(&mut self, span: Span, object: Option<String>, more: u64) {
        self.reports.push(Report {
            kind: ReportKind::OutOfBounds,
            message: String::new(),
            span,
            global_id: [0; 3],
            local_id: [0; 3],
            group_id: [0; 3],
            object,
            occurrences: more,
            group_index: u64::MAX,
            lane: u32::MAX,
            time: 0,
            sync: 0,
            entities: None,
            access: None,
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn load(
        &mut self,
        dst: Slot,
        addr: Slot,
        scalar: Scalar,
        width: u32,
        comps: Option<&[u8]>,
        site: u32,
        mask: &Mask,
    ) {
        let lanes = self.lanes;
        let size = scalar.size();
        let a = addr as usize * lanes;
        let d = dst as usize * lanes;
        self.loaded_in_bounds = false;
        if a + lanes > self.regs.len() || d + width as usize * lanes > self.regs.len() {
            return;
        }
        let whole = width > 1 && comps.is_none();
        let Self { regs, local, private, plan, oob, frame, .. } = self;
        let buffers = &plan.buffers[..];
        let frame = *frame;
        // Lanes of one load nearly always read the same buffer: resolve it once from the
        // first active lane and take a short path for every lane that stays inside it.
        let fast = mask.first().and_then(|first| match decode(regs[a + first]) {
            Target::Buffer { index, .. } => {
                buffers.get(index).map(|b| (memory::buffer_base(index), &*b.storage))
            }
            _ => None,
        });
        // Whether every component took the short path in every lane.
        let mut in_bounds = true;
        for c in 0..width as usize {
            let offset = u64::from(size)
                * comps.map_or(c as u64, |cs| u64::from(cs.get(c).copied().unwrap_or(0)));
            if let Some((base, storage)) = fast.filter(|(_, s)| s.len() >= u64::from(size)) {
                let limit = storage.len() - u64::from(size);
                let mut missed = false;
                let dst_at = d + c * lanes;
                // Most lanes active (loops of different lengths leave a few behind): one
                // gather over every lane that writes only the active ones.
                let mostly = mask.is_full() || 4 * mask.count() as usize >= 3 * lanes;
                if size == 4 && mostly && dst_at != a {
                    missed = gather_words(
                        regs,
                        (a, dst_at, lanes),
                        (offset, base, limit),
                        storage,
                        scalar == Scalar::Int,
                        mask,
                    );
                } else if size == 4 {
                    // The common case on its own: an aligned word, read as one load.
                    for_active!(mask, lane => {
                        let within = regs[a + lane].wrapping_add(offset).wrapping_sub(base);
                        if within <= limit {
                            let raw = if within % 4 == 0 {
                                u64::from(storage.word_at(within / 4))
                            } else {
                                storage.read(within, size)
                            };
                            regs[d + c * lanes + lane] = from_memory(scalar, raw);
                        } else {
                            missed = true;
                        }
                    });
                } else {
                    for_active!(mask, lane => {
                        let within = regs[a + lane].wrapping_add(offset).wrapping_sub(base);
                        if within <= limit {
                            regs[d + c * lanes + lane] = from_memory(scalar, storage.read(within, size));
                        } else {
                            missed = true;
                        }
                    });
                }
                if !missed {
                    continue;
                }
            }
            in_bounds = false;
            for_active!(mask, lane => {
                let address = regs[a + lane].wrapping_add(offset);
                let value = match mem_read(buffers, local, private, frame, address, size) {
                    Some(raw) => from_memory(scalar, raw),
                    None => {
                        if oob.last().is_none_or(|(l, _)| *l != lane) {
                            oob.push((lane, if whole { regs[a + lane] } else { address }));
                        }
                        0
                    }
                };
                regs[d + c * lanes + lane] = value;
            });
        }
        self.loaded_in_bounds = in_bounds;
        self.flush_oob_of(site, scalar, width, whole, false);
        self.check_private_bounds(addr, size, width, comps, site, mask, false);
        self.notify_access(addr, size, width, comps, site, mask, AccessKind::Load, Some(None));
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        addr: Slot,
        src: Slot,
        scalar: Scalar,
        width: u32,
        comps: Option<&[u8]>,
        site: u32,
        mask: &Mask,
    ) {
        let lanes = self.lanes;
        let size = scalar.size();
        let a = addr as usize * lanes;
        let s = src as usize * lanes;
        if a + lanes > self.regs.len() || s + width as usize * lanes > self.regs.len() {
            return;
        }
        let whole = width > 1 && comps.is_none();
        let Self { regs, local, private, plan, oob, frame, .. } = self;
        let buffers = &plan.buffers[..];
        let frame = *frame;
        // As for loads: the buffer of the first active lane, and a short path for the lanes
        // that store inside it.
        let fast = mask.first().and_then(|first| match decode(regs[a + first]) {
            Target::Buffer { index, .. } => {
                buffers.get(index).map(|b| (memory::buffer_base(index), &*b.storage))
            }
            _ => None,
        });
        for c in 0..width as usize {
            let offset = u64::from(size)
                * comps.map_or(c as u64, |cs| u64::from(cs.get(c).copied().unwrap_or(0)));
            if let Some((base, storage)) = fast.filter(|(_, s)| s.len() >= u64::from(size)) {
                let limit = storage.len() - u64::from(size);
                let mut missed = false;
                for_active!(mask, lane => {
                    let within = regs[a + lane].wrapping_add(offset).wrapping_sub(base);
                    if within <= limit {
                        storage.write(within, size, to_memory(scalar, regs[s + c * lanes + lane]));
                    } else {
                        missed = true;
                    }
                });
                if !missed {
                    continue;
                }
                // Lanes outside the buffer go the long way (and are reported); lanes inside it
                // store the same value again, which changes nothing.
            }
            for_active!(mask, lane => {
                let address = regs[a + lane].wrapping_add(offset);
                let value = to_memory(scalar, regs[s + c * lanes + lane]);
                if !mem_write(buffers, local, private, frame, address, size, value)
                    && oob.last().is_none_or(|(l, _)| *l != lane)
                {
                    oob.push((lane, if whole { regs[a + lane] } else { address }));
                }
            });
        }
        self.flush_oob_of(site, scalar, width, whole, true);
        self.check_private_bounds(addr, size, width, comps, site, mask, true);
        let stored = Some((src, scalar));
        let typed = Some(stored);
        self.notify_access(addr, size, width, comps, site, mask, AccessKind::Store, typed);
    }

    #[allow(clippy::too_many_arguments)]
    fn notify_access(
        &mut self,
        addr: Slot,
        size: u32,
        width: u32,
        comps: Option<&[u8]>,
        site: u32,
        mask: &Mask,
        kind: AccessKind,
        typed: Option<Option<(Slot, Scalar)>>,
    ) {
        // `typed`: a load or store of a typed value (with, for stores, the values stored);
        // `None` for copies of whole objects.
        let stored = typed.flatten();
        // Members of packed structs may sit anywhere, and an element of a private variable is
        // aligned by construction (the variable is, and so is its layout): neither needs the
        // alignment check, so they say 1 (0 would say "a copy of a whole object").
        let unchecked = self
            .plan
            .program
            .sites
            .get(site as usize)
            .is_some_and(|s| s.packed || s.private_bounds.is_some());
        let align = match (typed, comps) {
            (None, _) => 0,
            (Some(_), _) if unchecked => 1,
            (Some(_), None) => (size * if width == 3 { 4 } else { width }).next_power_of_two(),
            (Some(_), Some(_)) => size,
        };
        let (span, object, space) = self.site(site);
        let lanes = self.lanes;
        let a = addr as usize * lanes;
        let Some(addresses) = self.regs.get(a..a + lanes) else { return };
        // The stored values of components `from..from + count`, for the race checker.
        let regs = &self.regs;
        let values = |from: usize, count: usize| {
            stored.and_then(|(src, scalar)| {
                let s = (src as usize + from) * lanes;
                let regs = regs.get(s..s + count * lanes)?;
                Some(StoredValues { regs, lanes, scalar })
            })
        };
        match comps {
            None => {
                // A 3-vector touches 12 bytes though it occupies 16.
                let batch = AccessBatch {
                    addresses,
                    size: size * width,
                    space,
                    kind,
                    mask,
                    span,
                    time: self.time,
                    object,
                    group: &self.group,
                    unchanged: None,
                    stored: values(0, width as usize),
                    align,
                    by_group: false,
                };
                self.observer.memory_access(&batch);
            }
            Some(cs) => {
                for (position, &c) in cs.iter().enumerate() {
                    let offset = u64::from(size) * u64::from(c);
                    for (s, a) in self.addr_scratch.iter_mut().zip(addresses) {
                        *s = a.wrapping_add(offset);
                    }
                    let batch = AccessBatch {
                        addresses: &self.addr_scratch,
                        size,
                        space,
                        kind,
                        mask,
                        span,
                        time: self.time,
                        object,
                        group: &self.group,
                        unchanged: None,
                        stored: values(position, 1),
                        align,
                        by_group: false,
                    };
                    self.observer.memory_access(&batch);
                }
            }
        }
    }

    /// Reports lanes whose access into a private variable falls outside it (into another
    /// variable of the same work-item: memory, so the access itself was made). Only sites
    /// that index a private variable directly pay for this.
    #[allow(clippy::too_many_arguments)]
    fn check_private_bounds(
        &mut self,
        addr: Slot,
        size: u32,
        width: u32,
        comps: Option<&[u8]>,
        site: u32,
        mask: &Mask,
        store: bool,
    ) {
        let Some((start, len)) =
            self.plan.program.sites.get(site as usize).and_then(|s| s.private_bounds)
        else {
            return;
        };
        let bytes = u64::from(size)
            * comps.map_or(u64::from(if width == 3 { 3 } else { width }), |cs| {
                u64::from(cs.iter().copied().max().unwrap_or(0)) + 1
            });
        let a = addr as usize * self.lanes;
        let Some(addresses) = self.regs.get(a..a + self.lanes) else { return };
        // The common answer first, in one branch-free pass a compiler can vectorise: every
        // lane's offset lies in the variable (one unsigned comparison per lane). Lanes it
        // doubts are decoded in full below.
        let limit = len.saturating_sub(bytes);
        let maybe_outside = |x: u64| (x & memory::OFFSET_MASK).wrapping_sub(start) > limit;
        let any = if mask.is_full() {
            addresses.iter().fold(false, |acc, &x| acc | maybe_outside(x))
        } else {
            mask.iter().any(|l| addresses.get(l).is_some_and(|&x| maybe_outside(x)))
        };
        if !any && bytes <= len {
            return;
        }
        let frame = self.frame;
        // Accesses past the whole private memory were reported already (`flush_oob`).
        let outside = |address: u64| match decode(address) {
            Target::Private { offset, .. } => {
                let end = offset.saturating_add(bytes);
                end <= frame && (offset < start || end > start.saturating_add(len))
            }
            _ => false,
        };
        let lanes: Vec<usize> =
            mask.iter().filter(|&l| self.regs.get(a + l).is_some_and(|&x| outside(x))).collect();
        let Some(&lane) = lanes.first() else { return };
        let count = lanes.len() as u64;
        if self.reports.every_work_item() {
            for &other in &lanes[1..] {
                self.private_out_of_bounds(a, other, bytes, start, len, site, store);
            }
        }
        self.private_out_of_bounds(a, lane, bytes, start, len, site, store);
        if count > 1 && !self.reports.every_work_item() {
            let (span, object, _) = self.site(site);
            let object = object.map(str::to_string);
            self.report_more_lanes(span, object, count - 1);
        }
    }

    /// Reports `lane`'s access outside its private variable (`len` bytes at `start`).
    #[allow(clippy::too_many_arguments)]
    fn private_out_of_bounds(
        &mut self,
        a: usize,
        lane: usize,
        bytes: u64,
        start: u64,
        len: u64,
        site: u32,
        store: bool,
    ) {
        let address = self.regs[a + lane];
        let (span, object, _) = self.site(site);
        let offset = match decode(address) {
            Target::Private { offset, .. } => offset,
            _ => 0,
        };
        let name = object.map_or_else(|| "the variable".to_string(), |o| format!("`{o}`"));
        let message = format!(
            "{} of {bytes} bytes at byte offset {offset} of private memory, outside {name} \
             ({len} bytes at offset {start}): another variable's memory",
            if store { "store" } else { "load" }
        );
        let access = InvalidAccess { store, size: bytes as u32, target: decode(address) };
        let object = object.map(str::to_string);
        self.report_with_access(ReportKind::OutOfBounds, span, lane, message, object, Some(access));
    }

    /// Copies (or zeroes, when `src` is `None`) `size` bytes per lane.
    fn mem_copy(&mut self, dst: Slot, src: Option<Slot>, size: u64, site: u32, mask: &Mask) {
        // What each lane stores, for the race checker to tell equal stores from lost data
        // (struct assignments of the same value by several work-items); small objects only.
        const MAX_KEPT_BYTES: u64 = 512;
        let mut copied = std::mem::take(&mut self.copy_scratch);
        copied.clear();
        let keep = src.is_some() && size <= MAX_KEPT_BYTES && !self.plan.unobserved;
        if keep {
            copied.resize(size.div_ceil(8) as usize * self.lanes, 0);
        }
        let lanes: Vec<usize> = mask.iter().collect();
        for lane in lanes {
            let d = self.lane_value(dst, lane);
            let s = src.map(|s| self.lane_value(s, lane));
            let mut at = 0u64;
            while at < size {
                let chunk = (size - at).min(8) as u32;
                let value = match s {
                    Some(s) => {
                        match mem_read(
                            &self.plan.buffers,
                            &self.local,
                            &self.private,
                            self.frame,
                            s.wrapping_add(at),
                            chunk,
                        ) {
                            Some(v) => v,
                            None => {
                                self.oob.push((lane, s.wrapping_add(at)));
                                break;
                            }
                        }
                    }
                    None => 0,
                };
                if let Some(kept) = copied.get_mut((at / 8) as usize * self.lanes + lane) {
                    *kept = value;
                }
                if !mem_write(
                    &self.plan.buffers,
                    &mut self.local,
                    &mut self.private,
                    self.frame,
                    d.wrapping_add(at),
                    chunk,
                    value,
                ) {
                    self.oob.push((lane, d.wrapping_add(at)));
                    break;
                }
                at += u64::from(chunk);
            }
        }
        self.flush_oob(site, size.min(u64::from(u32::MAX)) as u32, src.is_none());
        if let Some(s) = src {
            self.notify_access(
                s,
                size.min(u64::from(u32::MAX)) as u32,
                1,
                None,
                site,
                mask,
                AccessKind::Load,
                None,
            );
        }
        let size = size.min(u64::from(u32::MAX)) as u32;
        if keep {
            self.notify_copy_store(dst, size, site, mask, &copied);
        } else {
            self.notify_access(dst, size, 1, None, site, mask, AccessKind::Store, None);
        }
        self.copy_scratch = copied;
    }

    /// The store of a copy of a whole object, with the bytes each lane stored (`copied`, as
    /// [`Self::mem_copy`] keeps them): a copy has no typed value to pass, but the race checker
    /// still needs the data to tell equal stores apart.
    fn notify_copy_store(&mut self, dst: Slot, size: u32, site: u32, mask: &Mask, copied: &[u64]) {
        let (span, object, space) = self.site(site);
        let lanes = self.lanes;
        let a = dst as usize * lanes;
        let Some(addresses) = self.regs.get(a..a + lanes) else { return };
        let batch = AccessBatch {
            addresses,
            size,
            space,
            kind: AccessKind::Store,
            mask,
            span,
            time: self.time,
            object,
            group: &self.group,
            unchanged: None,
            stored: Some(StoredValues { regs: copied, lanes, scalar: Scalar::ULong }),
            align: 0,
            by_group: false,
        };
        self.observer.memory_access(&batch);
    }

    /// Reports every lane that indexed an array of `len` elements outside it.
    fn check_index(&mut self, index: Slot, signed: bool, len: u64, span: Span, mask: &Mask) {
        let at = index as usize * self.lanes;
        let Some(values) = self.regs.get(at..at + self.lanes) else { return };
        // Index registers hold 64-bit values, sign-extended for signed types: a negative
        // index is a huge unsigned one.
        if mask.is_full() && values.iter().all(|&v| v < len) {
            return;
        }
        let outside: Vec<(usize, u64)> = mask
            .iter()
            .filter_map(|l| values.get(l).map(|&v| (l, v)))
            .filter(|p| p.1 >= len)
            .collect();
        for (lane, value) in outside {
            let shown = if signed { (value as i64).to_string() } else { value.to_string() };
            self.report(
                ReportKind::IndexOutOfRange,
                span,
                lane,
                format!("index ({shown}) exceeds static array size ({len})"),
                None,
            );
        }
    }

    fn work_item(&mut self, func: WorkItemFunction, dst: Slot, dim: Option<(Slot, Scalar)>) {
        let lanes = self.lanes;
        let g = &self.group;
        let dims = self.plan.dims;
        let group_size = g.group_size();
        for lane in 0..lanes {
            let d = dim
                .map_or(0, |(s, _)| self.regs.get(s as usize * lanes + lane).copied().unwrap_or(0));
            let in_range = d < u64::from(dims);
            let di = d.min(2) as usize;
            let value = match func {
                WorkItemFunction::WorkDim => u64::from(dims),
                WorkItemFunction::GlobalSize => {
                    if in_range {
                        g.global_size[di]
                    } else {
                        1
                    }
                }
                WorkItemFunction::LocalSize => {
                    if in_range {
                        group_size[di]
                    } else {
                        1
                    }
                }
                WorkItemFunction::EnqueuedLocalSize => {
                    if in_range {
                        g.local_size[di]
                    } else {
                        1
                    }
                }
                WorkItemFunction::NumGroups => {
                    if in_range {
                        g.num_groups[di]
                    } else {
                        1
                    }
                }
                WorkItemFunction::GlobalId => {
                    if in_range {
                        g.group_id[di] * g.local_size[di]
                            + self.local_ids[di][lane]
                            + g.global_offset[di]
                    } else {
                        0
                    }
                }
                WorkItemFunction::LocalId => {
                    if in_range {
                        self.local_ids[di][lane]
                    } else {
                        0
                    }
                }
                WorkItemFunction::GroupId => {
                    if in_range {
                        g.group_id[di]
                    } else {
                        0
                    }
                }
                WorkItemFunction::GlobalOffset => {
                    if in_range {
                        g.global_offset[di]
                    } else {
                        0
                    }
                }
            };
            let value = if func == WorkItemFunction::WorkDim {
                normalise(Scalar::UInt, value)
            } else {
                value
            };
            if let Some(r) = self.regs.get_mut(dst as usize * lanes + lane) {
                *r = value;
            }
        }
    }

    // ----- accessors for built-ins ------------------------------------------------------

    pub(crate) fn lanes(&self) -> usize {
        self.lanes
    }

    pub(crate) fn get(&self, slot: Slot, comp: u32, lane: usize) -> u64 {
        self.lane_value(slot + comp, lane)
    }

    pub(crate) fn set(&mut self, slot: Slot, comp: u32, lane: usize, value: u64) {
        let i = (slot + comp) as usize * self.lanes + lane;
        if let Some(r) = self.regs.get_mut(i) {
            *r = value;
        }
    }

    pub(crate) fn read_mem(&mut self, lane: usize, addr: u64, size: u32) -> Option<u64> {
        if let Some(u) = &mut self.uninit {
            u.call_read(&self.plan.buffers, lane, addr, size);
        }
        let r = mem_read(&self.plan.buffers, &self.local, &self.private, self.frame, addr, size);
        if r.is_none() {
            self.oob.push((lane, addr));
        }
        r
    }

    pub(crate) fn write_mem(&mut self, lane: usize, addr: u64, size: u32, value: u64) -> bool {
        let ok = mem_write(
            &self.plan.buffers,
            &mut self.local,
            &mut self.private,
            self.frame,
            addr,
            size,
            value,
        );
        if !ok {
            self.oob.push((lane, addr));
        }
        if let Some(u) = &mut self.uninit {
            u.call_write(&self.plan.buffers, lane, addr, size);
        }
        ok
    }

    /// A built-in wrote `size` bytes at `addr` for `lane` by itself (an image write encoding a
    /// texel): the uninitialised-value checker follows the bytes as it does `write_mem`'s.
    pub(crate) fn note_call_write(&mut self, lane: usize, addr: u64, size: u32) {
        if let Some(u) = &mut self.uninit {
            u.call_write(&self.plan.buffers, lane, addr, size);
        }
    }

    pub(crate) fn finish_accesses(&mut self, site: u32, size: u32, store: bool) {
        self.flush_oob(site, size, store);
    }

    /// As [`Self::finish_accesses`] for atomic updates. An update out of bounds both reads and
    /// writes there: with every work-item's findings kept, both are reported, as Oclgrind
    /// reports them; merged findings keep one, the write.
    pub(crate) fn finish_atomic_accesses(&mut self, site: u32, size: u32) {
        if self.reports.every_work_item() && !self.oob.is_empty() {
            let outside = self.oob.clone();
            self.flush_oob(site, size, false);
            self.oob = outside;
        }
        self.flush_oob(site, size, true);
    }

    /// As [`Self::finish_accesses`] for `vloadN`/`vstoreN` and the half loads and stores:
    /// one access of `n` components of `scalar`, named by its type (`float4`, `half`) as
    /// whole-vector loads and stores are.
    pub(crate) fn finish_vector_accesses(
        &mut self,
        site: u32,
        scalar: Scalar,
        n: u32,
        store: bool,
    ) {
        // A single half is named too: its load converts, unlike a plain scalar access.
        self.flush_oob_of(site, scalar, n, n > 1 || scalar == Scalar::Half, store);
    }

    /// Atomically applies `update` to `size` bytes at `addr`; returns the old value.
    pub(crate) fn atomic(
        &mut self,
        lane: usize,
        addr: u64,
        size: u32,
        update: impl Fn(u64) -> u64,
    ) -> Option<u64> {
        match decode(addr) {
            Target::Buffer { index, offset } => {
                let plan = self.plan;
                let b = plan.buffers.get(index)?;
                // The update reads, then writes: the value it writes is undefined when the
                // memory it read was (a `noinit` buffer, or outside the buffer).
                if let Some(u) = &mut self.uninit {
                    u.call_read(&plan.buffers, lane, addr, size);
                }
                let old = if b.storage.in_bounds(offset, u64::from(size)) {
                    Some(if size == 4 {
                        u64::from(
                            b.storage.atomic_update32(offset, |old| update(u64::from(old)) as u32),
                        )
                    } else {
                        b.storage.atomic_update64(offset, size, update)
                    })
                } else {
                    self.oob.push((lane, addr));
                    None
                };
                if let Some(u) = &mut self.uninit {
                    u.call_write(&plan.buffers, lane, addr, size);
                }
                old
            }
            _ => {
                // Local and private memory belong to this thread alone.
                let old = self.read_mem(lane, addr, size)?;
                self.write_mem(lane, addr, size, update(old));
                Some(old)
            }
        }
    }

    /// Tells the observer about a per-lane access whose addresses are in `addresses`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn notify_addresses(
        &mut self,
        addresses: &[u64],
        size: u32,
        site: u32,
        mask: &Mask,
        kind: AccessKind,
    ) {
        self.notify_accesses_of(addresses, size, site, mask, kind, false, None);
    }

    /// Tells the observer about stores of data it did not hold in registers (texels an image
    /// write encoded), with `stored`, the bytes each lane wrote.
    pub(crate) fn notify_stores(
        &mut self,
        addresses: &[u64],
        size: u32,
        site: u32,
        mask: &Mask,
        stored: StoredValues<'_>,
    ) {
        self.notify_accesses_of(
            addresses,
            size,
            site,
            mask,
            AccessKind::Store,
            false,
            Some(stored),
        );
    }

    /// Tells the observer about accesses the work-group makes as a whole (an async copy's):
    /// they race with any work-item's. `stored`: a store's values, when known.
    pub(crate) fn notify_group_accesses(
        &mut self,
        addresses: &[u64],
        size: u32,
        site: u32,
        mask: &Mask,
        kind: AccessKind,
        stored: Option<StoredValues<'_>>,
    ) {
        self.notify_accesses_of(addresses, size, site, mask, kind, true, stored);
    }

    #[allow(clippy::too_many_arguments)]
    fn notify_accesses_of(
        &mut self,
        addresses: &[u64],
        size: u32,
        site: u32,
        mask: &Mask,
        kind: AccessKind,
        by_group: bool,
        stored: Option<StoredValues<'_>>,
    ) {
        let (span, object, site_space) = self.site(site);
        // The two sides of an async copy are in different spaces: take it from the addresses.
        let space = match mask.first().and_then(|l| addresses.get(l)).map(|a| decode(*a)) {
            Some(Target::Local { .. }) => AddressSpace::Local,
            Some(Target::Private { .. }) => AddressSpace::Private,
            Some(Target::Buffer { .. }) if site_space == AddressSpace::Local => {
                AddressSpace::Global
            }
            _ => site_space,
        };
        let batch = AccessBatch {
            addresses,
            size,
            space,
            kind,
            mask,
            span,
            time: self.time,
            object,
            group: &self.group,
            unchanged: None,
            stored,
            align: 0,
            by_group,
        };
        self.observer.memory_access(&batch);
    }

    /// Tells the observer about an atomic operation; `unchanged` holds the lanes whose
    /// operation did not modify memory (a failed compare-and-exchange), `recorded` the value
    /// of each lane's access (see [`AccessBatch::stored`]) and their type.
    pub(crate) fn notify_atomic(
        &mut self,
        addresses: &[u64],
        size: u32,
        site: u32,
        mask: &Mask,
        unchanged: &Mask,
        recorded: (&[u64], Scalar),
    ) {
        let (span, object, space) = self.site(site);
        let lanes = self.lanes;
        let stored = (recorded.0.len() == lanes).then_some(StoredValues {
            regs: recorded.0,
            lanes,
            scalar: recorded.1,
        });
        let batch = AccessBatch {
            addresses,
            size,
            space,
            kind: AccessKind::Atomic,
            mask,
            span,
            time: self.time,
            object,
            group: &self.group,
            unchanged: (!unchanged.is_empty()).then_some(unchanged),
            stored,
            align: 0,
            by_group: false,
        };
        self.observer.memory_access(&batch);
    }

    /// Tells the observer the group synchronised over `fences` (as at a barrier).
    pub(crate) fn observer_barrier(&mut self, span: Span, fences: FenceFlags, mask: &Mask) {
        self.observer.barrier(span, fences, mask, &self.group, self.time);
    }

    /// A live work-item of the group that is not in `mask`.
    pub(crate) fn lanes_missing(&self, mask: &Mask) -> Option<usize> {
        if *mask == self.live {
            return None;
        }
        let mut missing = self.live.clone();
        missing.and_not_assign(mask);
        missing.first()
    }

    pub(crate) fn site_span(&self, site: u32) -> Span {
        self.site(site).0
    }

    pub(crate) fn site_span_and_object(&self, site: u32) -> (Span, Option<String>) {
        let (span, object, _) = self.site(site);
        (span, object.map(str::to_string))
    }

    /// The image whose first texel is at `handle` (an image value), with its storage and
    /// that address; `None` for any other value.
    pub(crate) fn image(
        &self,
        handle: u64,
    ) -> Option<(crate::image::BoundImage, &'a memory::BufferStorage, u64)> {
        let plan: &'a LaunchPlan<'a> = self.plan;
        match decode(handle) {
            Target::Buffer { index, offset: 0 } => {
                let image = plan.images.get(index).copied().flatten()?;
                let storage = &*plan.buffers.get(index)?.storage;
                Some((image, storage, handle))
            }
            _ => None,
        }
    }

    pub(crate) fn push_printf(&mut self, lane: usize, text: String) {
        self.printf_seq += 1;
        self.printf.push((self.group.group_index, lane, self.printf_seq, text));
    }
}

fn compare<T: Prim>(op: BinaryOp, d: &mut [u64], x: &[u64], y: &[u64], truth: u64) {
    macro_rules! cmp {
        ($f:expr) => {
            for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
                let (a, b) = (T::from_bits(*x), T::from_bits(*y));
                *d = if $f(a, b) { truth } else { 0 };
            }
        };
    }
    match op {
        BinaryOp::Lt => cmp!(|a: T, b: T| a < b),
        BinaryOp::Gt => cmp!(|a: T, b: T| a > b),
        BinaryOp::Le => cmp!(|a: T, b: T| a <= b),
        BinaryOp::Ge => cmp!(|a: T, b: T| a >= b),
        BinaryOp::Eq => cmp!(|a: T, b: T| a == b),
        _ => cmp!(|a: T, b: T| a != b),
    }
}

fn binary_lanes<T: Arith>(op: BinaryOp, d: &mut [u64], x: &[u64], y: &[u64]) {
    match op {
        BinaryOp::Add => map2(d, x, y, |a: T, b| a.add(b)),
        BinaryOp::Sub => map2(d, x, y, |a: T, b| a.sub(b)),
        BinaryOp::Mul => map2(d, x, y, |a: T, b| a.mul(b)),
        BinaryOp::Div => map2(d, x, y, |a: T, b| a.div(b)),
        BinaryOp::Rem => map2(d, x, y, |a: T, b| a.rem(b)),
        BinaryOp::Shl => map2(d, x, y, |a: T, b| a.shl(b)),
        BinaryOp::Shr => map2(d, x, y, |a: T, b| a.shr(b)),
        BinaryOp::BitAnd => map2(d, x, y, |a: T, b| a.and(b)),
        BinaryOp::BitOr => map2(d, x, y, |a: T, b| a.or(b)),
        BinaryOp::BitXor => map2(d, x, y, |a: T, b| a.xor(b)),
        _ => {}
    }
}

/// Rounds `v` to an integral value by an OpenCL rounding mode (`None` = toward zero).
fn round_mode(v: f64, rounding: Option<Rounding>) -> f64 {
    match rounding {
        None | Some(Rounding::Rtz) => v.trunc(),
        Some(Rounding::Rte) => v.round_ties_even(),
        Some(Rounding::Rtp) => v.ceil(),
        Some(Rounding::Rtn) => v.floor(),
    }
}

/// Value conversion between scalar types, `len` components per lane.
pub(crate) fn convert(
    from: Scalar,
    to: Scalar,
    d: &mut [u64],
    x: &[u64],
    saturate: bool,
    rounding: Option<Rounding>,
) {
    if to == Scalar::Bool {
        with_scalar_type!(from, F => map1(d, x, |v: F| u8::from(!v.is_zero())));
        return;
    }
    let from = if from == Scalar::Bool { Scalar::UChar } else { from };
    if to.is_integer() && (saturate || (from.is_float() && rounding.is_some())) {
        // Saturating or rounded conversion: go through exact wide arithmetic.
        let (lo, hi) = int_range(to);
        for (d, x) in d.iter_mut().zip(x) {
            let v: i128 = if from.is_float() {
                let f = crate::value::to_f64(from, *x);
                if f.is_nan() {
                    0
                } else {
                    let r = round_mode(f, rounding);
                    if saturate {
                        r.clamp(lo as f64, hi as f64) as i128
                    } else {
                        r as i128
                    }
                }
            } else if from.is_signed() {
                *x as i64 as i128
            } else {
                *x as i128
            };
            let v = if saturate { v.clamp(lo, hi) } else { v };
            *d = normalise(to, v as u64);
        }
        return;
    }
    if let (Some(mode), Scalar::Float | Scalar::Double) = (rounding, to) {
        for (d, x) in d.iter_mut().zip(x) {
            if let Some(bits) = crate::rounding::to_float_rounded(from, to, *x, mode) {
                *d = bits;
            }
        }
        return;
    }
    with_scalar_type!(from, F => with_scalar_type!(to, T => map1(d, x, |v: F| T::from_prim(v))));
}

fn int_range(s: Scalar) -> (i128, i128) {
    let bits = s.size() * 8;
    if s.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// The operand width of a built-in call: its widest argument or result (`dot(float4,
/// float4)` works on four components though it returns one).
fn call_width(call: &crate::program::BuiltinCall) -> u32 {
    call.args.iter().map(|a| a.width).fold(call.width, u32::max).max(1)
}

/// Loads one aligned 32-bit word per active lane of `mask` from `storage`: slots `(src, dst,
/// lanes)` are the address slot and the destination (two different slots), `(offset, base,
/// limit)` place each address in the buffer. `signed` sign-extends (`int`), otherwise the word
/// is zero-extended (`uint`, `float`). Returns whether an active lane was outside the buffer or
/// misaligned: the caller then takes the general path for every lane, which also reports them.
///
/// Not inlined: inside the executor's large `op` its loop ran out of registers and reloaded
/// its bounds from the stack on every lane, at a cost that moved by a sixth of a whole run
/// with unrelated changes elsewhere in `op`.
#[inline(never)]
fn gather_words(
    regs: &mut [u64],
    (src, dst, lanes): (usize, usize, usize),
    (offset, base, limit): (u64, u64, u64),
    storage: &memory::BufferStorage,
    signed: bool,
    mask: &Mask,
) -> bool {
    let (addresses, out) = if src < dst {
        let (low, high) = regs.split_at_mut(dst);
        (&low[src..src + lanes], &mut high[..lanes])
    } else {
        let (low, high) = regs.split_at_mut(src);
        (&high[..lanes], &mut low[dst..dst + lanes])
    };
    let words = storage.words();
    let place = (offset, base, limit);
    match (mask.is_full(), signed) {
        (true, true) => {
            gather_lanes(addresses, out, words, place, None, |w| w as i32 as i64 as u64)
        }
        (true, false) => gather_lanes(addresses, out, words, place, None, u64::from),
        (false, true) => {
            gather_lanes(addresses, out, words, place, Some(mask), |w| w as i32 as i64 as u64)
        }
        (false, false) => gather_lanes(addresses, out, words, place, Some(mask), u64::from),
    }
}

/// The loop of [`gather_words`], one copy per extension and per full or partial mask.
#[inline(always)]
fn gather_lanes(
    addresses: &[u64],
    out: &mut [u64],
    words: &[std::sync::atomic::AtomicU32],
    (offset, base, limit): (u64, u64, u64),
    mask: Option<&Mask>,
    extend: impl Fn(u32) -> u64,
) -> bool {
    let active = mask.map(Mask::words);
    let mut missed = false;
    for (lane, (address, value)) in addresses.iter().zip(out.iter_mut()).enumerate() {
        if let Some(active) = active {
            if active.get(lane / 64).is_none_or(|w| w & (1 << (lane % 64)) == 0) {
                continue;
            }
        }
        let within = address.wrapping_add(offset).wrapping_sub(base);
        match words.get((within >> 2) as usize) {
            Some(word) if within <= limit && within & 3 == 0 => {
                *value = extend(word.load(std::sync::atomic::Ordering::Relaxed))
            }
            _ => missed = true,
        }
    }
    missed
}
