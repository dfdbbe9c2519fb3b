//! `async_work_group_copy`, `async_work_group_strided_copy` and `wait_group_events`.
//!
//! A copy is the work-group's, made once with the first work-item's arguments (every
//! work-item must pass the same ones). It is made when the group waits for its event, as
//! Oclgrind makes it: until then its destination holds what it held, so a kernel that reads
//! it before waiting sees the old data, and a copy no wait names is never made (and reported
//! when the group ends). Waiting is a barrier of the group: every work-item must reach the
//! same `wait_group_events` with the same events; the events waited for are those of the
//! group's first work-item there.

use clmap_lang::ir::{AddressSpace, FenceFlags, Scalar};
use clmap_lang::Span;

use crate::barrier::BarrierSignature;
use crate::builtins::{arg, for_lanes};
use crate::exec::GroupExec;
use crate::mask::Mask;
use crate::observer::{AccessKind, Observer, StoredValues};
use crate::program::BuiltinCall;
use crate::report::ReportKind;

/// The async copies of a work-group not waited for yet, and the events they return.
#[derive(Debug, Default)]
pub(crate) struct AsyncEvents {
    /// The last fresh event handle given out (handles start at 1; 0 is "no event").
    last: u64,
    pending: Vec<PendingCopy>,
}

/// A copy issued and not made yet.
#[derive(Debug)]
struct PendingCopy {
    event: u64,
    /// The copy's call, for reports and observers.
    site: u32,
    span: Span,
    /// The work-item whose arguments the group copies with.
    lane: usize,
    src: u64,
    dst: u64,
    /// Bytes per element, elements, and the stride (in elements) of the strided side.
    elem: u64,
    count: u64,
    stride: u64,
    /// The destination is local memory (the stride applies to the source).
    to_local: bool,
}

impl AsyncEvents {
    fn fresh(&mut self) -> u64 {
        self.last += 1;
        self.last
    }
}

/// Issues a copy for the lanes of `mask`; its event is their result.
pub(crate) fn issue<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    strided: bool,
    mask: &Mask,
) {
    let Some(lane) = mask.first() else { return };
    let (Some(dst), Some(src)) = (call.args.first(), call.args.get(1)) else { return };
    copy_divergence(ex, call, lane, mask);
    let (dst_space, scalar, width) = dst.pointer.unwrap_or((AddressSpace::Local, Scalar::UChar, 1));
    let storage_width = if width == 3 { 4 } else { width };
    let given = call.args.last().map_or(0, |e| ex.get(e.slot, 0, lane));
    // A copy given an event joins it; otherwise it gets a fresh one.
    let event = if given == 0 { ex.async_events.fresh() } else { given };
    let copy = PendingCopy {
        event,
        site: call.site,
        span: ex.site_span(call.site),
        lane,
        src: ex.get(src.slot, 0, lane),
        dst: ex.get(dst.slot, 0, lane),
        elem: u64::from(scalar.size() * storage_width),
        count: arg(ex, call, 2, 0, lane).min(1 << 32),
        stride: if strided { arg(ex, call, 3, 0, lane) } else { 1 },
        to_local: dst_space == AddressSpace::Local,
    };
    ex.async_events.pending.push(copy);
    for l in for_lanes(mask) {
        ex.set(call.dst, 0, l, event);
    }
}

/// Makes `copy`: reads and writes as its work-item, reporting accesses out of bounds and
/// telling the observer about both sides as accesses of the group.
fn make<O: Observer>(ex: &mut GroupExec<'_, O>, copy: &PendingCopy) {
    let lane = copy.lane;
    let mut single = Mask::none(ex.lanes());
    single.set(lane, true);
    let lanes = ex.lanes();
    let mut src_addrs = vec![0u64; lanes];
    let mut dst_addrs = vec![0u64; lanes];
    let elem = copy.elem;
    // The bytes each element stores, one per component (component `c` of the copy's lane
    // at `c * lanes + lane`): a work-item's store of the same value does not race with it.
    let mut copied = vec![0u64; (elem as usize).min(1 << 12) * lanes];
    for i in 0..copy.count {
        let strided = i.wrapping_mul(copy.stride);
        let (si, di) = if copy.to_local { (strided, i) } else { (i, strided) };
        let s = copy.src.wrapping_add(si.wrapping_mul(elem));
        let d = copy.dst.wrapping_add(di.wrapping_mul(elem));
        let mut at = 0;
        while at < elem {
            let chunk = (elem - at).min(8) as u32;
            let Some(v) = ex.read_mem(lane, s + at, chunk) else {
                ex.finish_accesses(copy.site, elem as u32, false);
                break;
            };
            if !ex.write_mem(lane, d + at, chunk, v) {
                ex.finish_accesses(copy.site, elem as u32, true);
                break;
            }
            for (b, byte) in v.to_le_bytes().iter().take(chunk as usize).enumerate() {
                if let Some(c) = copied.get_mut((at as usize + b) * lanes + lane) {
                    *c = u64::from(*byte);
                }
            }
            at += u64::from(chunk);
        }
        src_addrs[lane] = s;
        dst_addrs[lane] = d;
        // An element cut short by an access out of bounds stored no known value.
        let stored = (at >= elem && copied.len() >= elem as usize * lanes)
            .then_some(StoredValues { regs: &copied, lanes, scalar: Scalar::UChar });
        let (site, size) = (copy.site, elem as u32);
        ex.notify_group_accesses(&src_addrs, size, site, &single, AccessKind::Load, None);
        ex.notify_group_accesses(&dst_addrs, size, site, &single, AccessKind::Store, stored);
    }
    ex.finish_accesses(copy.site, elem as u32, true);
}

/// Reports an async copy that not every work-item of the group reached, or reached with
/// arguments of its own (OpenCL requires the same ones from all): the group copies once, with
/// the first work-item's.
fn copy_divergence<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    first: usize,
    mask: &Mask,
) {
    let differs = |ex: &GroupExec<'_, O>, l: usize| {
        call.args
            .iter()
            .any(|a| (0..a.width.max(1)).any(|c| ex.get(a.slot, c, l) != ex.get(a.slot, c, first)))
    };
    let (lane, what) = if let Some(missing) = ex.lanes_missing(mask) {
        (missing, "did not reach it")
    } else if let Some(l) = for_lanes(mask).into_iter().find(|&l| differs(ex, l)) {
        (l, "reached it with other arguments than the group's first work-item")
    } else {
        return;
    };
    let (span, object) = ex.site_span_and_object(call.site);
    ex.report(
        ReportKind::AsyncCopy,
        span,
        lane,
        format!(
            "divergent async copy: this work-item {what}; every work-item of the group must \
             reach it with the same arguments"
        ),
        object,
    );
}

/// `wait_group_events(n, list)` for the lanes of `mask`: a barrier of the group, at which the
/// copies of the first lane's events are made. Every event must be one a copy of the group
/// returned and that no earlier wait consumed ("Invalid wait event", Oclgrind says); naming
/// one twice in a list is waiting for it once.
pub(crate) fn wait_group_events<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    mask: &Mask,
) {
    let Some(first) = mask.first() else { return };
    let span = ex.site_span(call.site);
    let fences = FenceFlags { local: true, global: true };
    // Each lane's list: the barrier it reached is the same only with the same events.
    let mut lists: Vec<(Vec<u64>, Mask)> = Vec::new();
    let mut waited = Vec::new();
    for lane in for_lanes(mask) {
        let count = arg(ex, call, 0, 0, lane).min(1 << 16);
        let list = arg(ex, call, 1, 0, lane);
        let mut events = Vec::new();
        for i in 0..count {
            let Some(event) = ex.read_mem(lane, list.wrapping_add(8 * i), 8) else { break };
            events.push(event);
        }
        if lane == first {
            waited.clone_from(&events);
        }
        match lists.iter_mut().find(|(e, _)| *e == events) {
            Some((_, lanes)) => lanes.set(lane, true),
            None => {
                let mut lanes = Mask::none(ex.lanes());
                lanes.set(lane, true);
                lists.push((events, lanes));
            }
        }
    }
    ex.finish_accesses(call.site, 8, false);
    for (events, lanes) in lists {
        ex.arrive_at_barrier(BarrierSignature { span, fences, wait: true, events }, &lanes);
    }
    if let Some(&event) =
        waited.iter().find(|e| !ex.async_events.pending.iter().any(|c| c.event == **e))
    {
        let (span, object) = ex.site_span_and_object(call.site);
        ex.report(
            ReportKind::AsyncCopy,
            span,
            first,
            format!(
                "wait for event {event}, which no async copy of this work-group returned or \
                 which was waited for already"
            ),
            object,
        );
    }
    let pending = std::mem::take(&mut ex.async_events.pending);
    let (now, later): (Vec<PendingCopy>, Vec<PendingCopy>) =
        pending.into_iter().partition(|c| waited.contains(&c.event));
    ex.async_events.pending = later;
    for copy in &now {
        make(ex, copy);
    }
    // Waiting synchronises the group over both spaces, since a copy moves data between them.
    ex.observer_barrier(span, fences, mask);
}

/// At the end of a work-group: copies no `wait_group_events` waited for ("Work-item finished
/// without waiting for events", Oclgrind says). They were never made: on a device the kernel
/// may end, or read the destination, before they are.
pub(crate) fn copies_never_waited_for<O: Observer>(ex: &mut GroupExec<'_, O>) {
    let pending = std::mem::take(&mut ex.async_events.pending);
    let Some(first) = pending.first() else { return };
    let more = pending.len() - 1;
    // Oclgrind finds it as the group's last work-item finishes, and names that one.
    let lane = if ex.reports.every_work_item() {
        ex.live.iter().last().unwrap_or(first.lane)
    } else {
        first.lane
    };
    ex.report(
        ReportKind::AsyncCopy,
        first.span,
        lane,
        format!(
            "async copy never waited for: the work-group finished without wait_group_events \
             on its event{}",
            if more > 0 {
                format!(" ({more} more copies not waited for either)")
            } else {
                String::new()
            }
        ),
        None,
    );
}
