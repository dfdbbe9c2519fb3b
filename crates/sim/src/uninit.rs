//! The uninitialised-value check (`--uninit`, Oclgrind's `--uninitialized`): which values are
//! undefined, followed through registers and memory, and reported where an undefined value is
//! *used*: stored to global or local memory, branched on, or used as an address. Reading
//! undefined memory is no error by itself (a kernel may load a whole vector and use one
//! component), which is also how Oclgrind decides.
//!
//! Undefined values come from register variables declared without an initialiser, private and
//! local memory nothing wrote (variables, arrays, `__local` pointer arguments), `noinit`
//! buffers, and reads out of bounds (a read past an object yields no defined value, though the
//! simulator gives 0). Operations propagate per component: a result component is undefined
//! when an operand component it is computed from is, so `v.x` of a vector whose only `x` was
//! set is defined while `v` itself is not. Loads take the state of the bytes they read; stores
//! give the bytes they write the state of the value. Copies of whole objects carry the state
//! along, padding included; a struct copied to global or local memory is reported when one of
//! its members (not its padding) is undefined, as Oclgrind reports it.
//!
//! Every register slot has a summary flag: while it is clear, no lane of the slot holds an
//! undefined value, so an operation whose operands are all defined costs a few tests.

use clmap_lang::ir::{AddressSpace, Scalar};
use clmap_lang::Span;

use crate::exec::LaunchPlan;
use crate::mask::{for_active, Mask};
use crate::memory::{decode, SharedBuffer, Target};
use crate::program::{BuiltinCall, Op, ParamSlot, Program, Site, Slot};
use crate::report::InvalidAccess;

/// A use of an undefined value, for the executor to report.
pub(crate) struct UndefinedUse {
    pub lane: usize,
    /// The memory instruction it happened at, when it is one.
    pub site: Option<u32>,
    pub span: Span,
    pub message: String,
    pub access: Option<InvalidAccess>,
}

/// The state of one work-group: a flag per register component and lane, and per byte of the
/// group's local memory and its work-items' private memory (`true` = undefined).
pub(crate) struct UninitValues {
    lanes: usize,
    regs: Vec<bool>,
    /// Per slot: some lane may hold an undefined value.
    dirty: Vec<bool>,
    /// Some slot may be dirty: false only while every entry of `dirty` is, so that
    /// operations on registers alone need not be followed at all (see [`Self::follows`]).
    any_dirty: bool,
    local: Vec<bool>,
    private: Vec<bool>,
    frame: u64,
    /// Private bytes holding by-value arguments: defined before the kernel starts.
    arguments: Vec<(u64, u64)>,
    /// Whether some buffer of the launch has undefined bytes (`noinit`).
    undefined_buffers: bool,
    /// During a built-in call, per lane: its value operands are undefined, it read undefined
    /// memory, and the memory it read last was.
    call_operands: Vec<bool>,
    call_result: Vec<bool>,
    call_last_read: Vec<bool>,
    in_call: bool,
    call_site: u32,
    /// A load whose result's states [`UninitValues::after_load`] gives.
    pending_load: bool,
    temp: Vec<bool>,
    bytes: Vec<bool>,
    found: Vec<UndefinedUse>,
    /// Report every lane that uses an undefined value, as Oclgrind reports every work-item
    /// ([`crate::SimOptions::report_every_work_item`]), rather than the first of each use.
    pub(crate) every_lane: bool,
}

/// Most private bytes (all lanes together) followed; larger frames count as defined.
const MAX_PRIVATE_SHADOW: u64 = 1 << 28;
/// Most local bytes followed; larger local memory counts as defined past it.
const MAX_LOCAL_SHADOW: u64 = 1 << 28;

impl UninitValues {
    pub(crate) fn new(plan: &LaunchPlan<'_>) -> UninitValues {
        let program = plan.program;
        let lanes = plan.lanes();
        let slots = program.slots as usize;
        let private_bytes = program.private_size.saturating_mul(lanes as u64);
        let arguments = program
            .params
            .iter()
            .filter_map(|p| match p.slot {
                ParamSlot::Private { offset, size } => Some((offset, size)),
                _ => None,
            })
            .collect();
        UninitValues {
            lanes,
            regs: vec![false; slots * lanes],
            dirty: vec![false; slots],
            any_dirty: false,
            local: vec![true; plan.local_size_bytes.min(MAX_LOCAL_SHADOW) as usize],
            private: if private_bytes <= MAX_PRIVATE_SHADOW {
                vec![true; private_bytes as usize]
            } else {
                Vec::new()
            },
            frame: program.private_size,
            arguments,
            undefined_buffers: plan.buffers.iter().any(|b| b.undefined.is_some()),
            call_operands: vec![false; lanes],
            call_result: vec![false; lanes],
            call_last_read: vec![false; lanes],
            in_call: false,
            call_site: 0,
            pending_load: false,
            temp: Vec::new(),
            bytes: Vec::new(),
            found: Vec::new(),
            every_lane: false,
        }
    }

    /// A new work-group: registers defined except variables declared without a value; local
    /// and private memory undefined except by-value arguments.
    pub(crate) fn group_start(&mut self, program: &Program) {
        self.regs.fill(false);
        self.dirty.fill(false);
        self.any_dirty = false;
        for &(slot, width) in &program.undefined_slots {
            for c in 0..width {
                self.fill(slot + c, true);
            }
        }
        self.local.fill(true);
        self.private.fill(true);
        if self.frame > 0 && !self.private.is_empty() {
            for lane_bytes in self.private.chunks_mut(self.frame as usize) {
                for &(offset, size) in &self.arguments {
                    let end = offset.saturating_add(size).min(self.frame);
                    if let Some(bytes) = lane_bytes.get_mut(offset as usize..end as usize) {
                        bytes.fill(false);
                    }
                }
            }
        }
    }

    /// Whether a use was found since the last [`Self::take_found`].
    #[inline]
    pub(crate) fn has_found(&self) -> bool {
        !self.found.is_empty()
    }

    /// The uses found since the last call.
    pub(crate) fn take_found(&mut self) -> std::vec::Drain<'_, UndefinedUse> {
        self.found.drain(..)
    }

    // ----- registers ----------------------------------------------------------------------

    #[inline]
    fn is_dirty(&self, slot: Slot, len: u32) -> bool {
        let start = slot as usize;
        self.dirty.get(start..start + len as usize).is_none_or(|d| d.iter().any(|x| *x))
    }

    fn lane_flags(&self, slot: Slot) -> &[bool] {
        let at = slot as usize * self.lanes;
        self.regs.get(at..at + self.lanes).unwrap_or(&[])
    }

    #[inline]
    fn flag(&self, slot: Slot, lane: usize) -> bool {
        self.regs.get(slot as usize * self.lanes + lane).copied().unwrap_or(false)
    }

    /// Sets every lane of `slot`.
    fn fill(&mut self, slot: Slot, undefined: bool) {
        let at = slot as usize * self.lanes;
        if let Some(flags) = self.regs.get_mut(at..at + self.lanes) {
            flags.fill(undefined);
        }
        if let Some(d) = self.dirty.get_mut(slot as usize) {
            *d = undefined;
        }
        self.any_dirty |= undefined;
    }

    /// Marks `len` slots from `dst` defined in every lane (`mask: None`) or in the lanes of
    /// `mask`.
    fn define(&mut self, dst: Slot, len: u32, mask: Option<&Mask>) {
        for c in 0..len {
            let slot = dst + c;
            if !self.dirty.get(slot as usize).copied().unwrap_or(false) {
                continue;
            }
            match mask {
                Some(m) if !m.is_full() => {
                    let at = slot as usize * self.lanes;
                    let Some(flags) = self.regs.get_mut(at..at + self.lanes) else { continue };
                    for_active!(m, lane => { flags[lane] = false; });
                }
                _ => self.fill(slot, false),
            }
        }
    }

    /// Writes `flags` (one per lane) into `slot`, in every lane or those of `mask`.
    fn write_lanes(&mut self, slot: Slot, flags: &[bool], mask: Option<&Mask>) {
        let lanes = self.lanes;
        let at = slot as usize * lanes;
        let Some(dst) = self.regs.get_mut(at..at + lanes) else { return };
        match mask {
            Some(m) if !m.is_full() => {
                for_active!(m, lane => { dst[lane] = flags.get(lane).copied().unwrap_or(false); });
            }
            _ => dst.copy_from_slice(&flags[..lanes.min(flags.len())]),
        }
        if let Some(d) = self.dirty.get_mut(slot as usize) {
            *d = dst.iter().any(|x| *x);
            self.any_dirty |= *d;
        }
    }

    /// Component `c` of `dst` from component `c` of each source (undefined if any is), for
    /// `len` components, in every lane.
    fn elementwise(&mut self, dst: Slot, sources: &[Slot], len: u32) {
        if sources.iter().all(|&s| !self.is_dirty(s, len)) {
            self.define(dst, len, None);
            return;
        }
        let lanes = self.lanes;
        let mut temp = std::mem::take(&mut self.temp);
        for c in 0..len {
            temp.clear();
            temp.resize(lanes, false);
            for &s in sources {
                for (t, f) in temp.iter_mut().zip(self.lane_flags(s + c)) {
                    *t |= *f;
                }
            }
            self.write_lanes(dst + c, &temp, None);
        }
        self.temp = temp;
    }

    /// Every component of `dst` undefined where any component of any source is.
    fn spread(&mut self, dst: Slot, dst_len: u32, sources: &[(Slot, u32)]) {
        if sources.iter().all(|&(s, len)| !self.is_dirty(s, len)) {
            self.define(dst, dst_len, None);
            return;
        }
        let lanes = self.lanes;
        let mut temp = std::mem::take(&mut self.temp);
        temp.clear();
        temp.resize(lanes, false);
        for &(s, len) in sources {
            for c in 0..len {
                for (t, f) in temp.iter_mut().zip(self.lane_flags(s + c)) {
                    *t |= *f;
                }
            }
        }
        for c in 0..dst_len {
            self.write_lanes(dst + c, &temp, None);
        }
        self.temp = temp;
    }

    /// Slot `dsts[i]` takes slot `srcs[i]`, in every lane or those of `mask`.
    fn move_slots(&mut self, dsts: &[Slot], srcs: &[Slot], mask: Option<&Mask>) {
        if srcs.iter().all(|&s| !self.is_dirty(s, 1)) {
            for &d in dsts {
                self.define(d, 1, mask);
            }
            return;
        }
        // Sources may overlap destinations: read them all first.
        let lanes = self.lanes;
        let mut temp = std::mem::take(&mut self.temp);
        temp.clear();
        for &s in srcs {
            let flags = self.lane_flags(s);
            if flags.len() == lanes {
                temp.extend_from_slice(flags);
            } else {
                temp.extend(std::iter::repeat_n(false, lanes));
            }
        }
        for (i, &d) in dsts.iter().enumerate() {
            if let Some(flags) = temp.get(i * lanes..(i + 1) * lanes) {
                self.write_lanes(d, flags, mask);
            }
        }
        self.temp = temp;
    }

    /// The lanes of `mask` whose value in `slot` is undefined, in order.
    pub(crate) fn undefined_lanes<'m>(
        &'m self,
        slot: Slot,
        mask: &'m Mask,
    ) -> impl Iterator<Item = usize> + 'm {
        // A clean slot (the common case) has no undefined lane: skip the walk over the mask.
        let flags = if self.is_dirty(slot, 1) { self.lane_flags(slot) } else { &[] };
        let lanes = if flags.is_empty() { None } else { Some(mask.iter()) };
        lanes.into_iter().flatten().filter(move |&l| flags.get(l).copied().unwrap_or(false))
    }

    /// The lanes to report of those found, each once with what was found first for it, in
    /// lane order: all of them, or the first.
    fn reported<T>(&self, mut found: Vec<(usize, T)>) -> Vec<(usize, T)> {
        found.sort_by_key(|(lane, _)| *lane);
        found.dedup_by_key(|(lane, _)| *lane);
        if !self.every_lane {
            found.truncate(1);
        }
        found
    }

    // ----- memory -------------------------------------------------------------------------

    /// Whether any of `size` bytes at `addr` is undefined; bytes outside every object are
    /// (as are bytes outside the private variable `bounds` names, another variable's).
    fn memory_undefined(
        &self,
        buffers: &[SharedBuffer],
        addr: u64,
        size: u64,
        bounds: Option<(u64, u64)>,
    ) -> bool {
        match decode(addr) {
            Target::Buffer { index, offset } => match buffers.get(index) {
                Some(b) if b.storage.in_bounds(offset, size) => {
                    b.undefined.as_ref().is_some_and(|u| u.any(offset, size))
                }
                _ => true,
            },
            Target::Local { offset } => {
                let (start, end) = (offset as usize, offset.saturating_add(size) as usize);
                self.local.get(start..end).is_none_or(|b| b.iter().any(|x| *x))
            }
            Target::Private { lane, offset } => {
                if offset.saturating_add(size) > self.frame {
                    return true;
                }
                if let Some((start, len)) = bounds {
                    if offset < start || offset + size > start + len {
                        return true;
                    }
                }
                if self.private.is_empty() {
                    return false;
                }
                let at = (lane as u64).saturating_mul(self.frame).saturating_add(offset) as usize;
                self.private.get(at..at + size as usize).is_none_or(|b| b.iter().any(|x| *x))
            }
            Target::Invalid => true,
        }
    }

    /// Gives `size` bytes at `addr` the state `undefined`.
    fn set_memory(&mut self, buffers: &[SharedBuffer], addr: u64, size: u64, undefined: bool) {
        match decode(addr) {
            Target::Buffer { index, offset } => {
                if let Some(u) = buffers.get(index).and_then(|b| b.undefined.as_ref()) {
                    u.set(offset, size, undefined);
                }
            }
            Target::Local { offset } => {
                let end = offset.saturating_add(size).min(self.local.len() as u64);
                if let Some(b) = self.local.get_mut(offset as usize..end as usize) {
                    b.fill(undefined);
                }
            }
            Target::Private { lane, offset } => {
                if offset.saturating_add(size) > self.frame || self.private.is_empty() {
                    return;
                }
                let at = (lane as u64).saturating_mul(self.frame).saturating_add(offset) as usize;
                if let Some(b) = self.private.get_mut(at..at + size as usize) {
                    b.fill(undefined);
                }
            }
            Target::Invalid => {}
        }
    }

    /// The per-byte states of `size` bytes at `addr` into `self.bytes`.
    fn read_bytes(&mut self, buffers: &[SharedBuffer], addr: u64, size: u64) {
        let mut bytes = std::mem::take(&mut self.bytes);
        bytes.clear();
        for i in 0..size {
            bytes.push(self.memory_undefined(buffers, addr.wrapping_add(i), 1, None));
        }
        self.bytes = bytes;
    }

    /// Whether a byte of `self.bytes` (a struct just read) inside one of the struct's
    /// `members` ranges is undefined; its padding does not count.
    fn member_undefined(&self, members: &[(u64, u64)]) -> bool {
        members.iter().any(|&(offset, size)| {
            let (start, end) = (offset as usize, offset.saturating_add(size) as usize);
            self.bytes.get(start..end.min(self.bytes.len())).is_some_and(|b| b.iter().any(|x| *x))
        })
    }

    fn write_bytes(&mut self, buffers: &[SharedBuffer], addr: u64) {
        let bytes = std::mem::take(&mut self.bytes);
        // Runs of equal states, so a defined copy costs one call per object.
        let mut start = 0;
        while start < bytes.len() {
            let state = bytes[start];
            let mut end = start + 1;
            while end < bytes.len() && bytes[end] == state {
                end += 1;
            }
            self.set_memory(buffers, addr.wrapping_add(start as u64), (end - start) as u64, state);
            start = end;
        }
        self.bytes = bytes;
    }

    // ----- operations ---------------------------------------------------------------------

    /// Whether [`Self::before`] has anything to do for `op`. An operation that reads and
    /// writes registers only makes its result undefined only from an undefined operand, and
    /// its result slot needs clearing only when dirty: while no slot is, it changes nothing.
    #[inline]
    pub(crate) fn follows(&self, op: &Op) -> bool {
        self.any_dirty
            || matches!(
                op,
                Op::Load { .. }
                    | Op::Store { .. }
                    | Op::MemCopy { .. }
                    | Op::MemZero { .. }
                    | Op::Builtin(_)
            )
    }

    /// Follows `op` over the lanes of `mask`, before the executor runs it (its operands are
    /// still in `regs`).
    pub(crate) fn before(
        &mut self,
        op: &Op,
        mask: &Mask,
        regs: &[u64],
        buffers: &[SharedBuffer],
        sites: &[Site],
    ) {
        match op {
            Op::Copy { dst, src, len } if !self.is_dirty(*src, *len) => {
                self.define(*dst, *len, Some(mask))
            }
            Op::Gather { dst, srcs } if srcs.iter().all(|&s| !self.is_dirty(s, 1)) => {
                self.define(*dst, srcs.len() as u32, None)
            }
            Op::Scatter { dsts, src } if !self.is_dirty(*src, dsts.len() as u32) => {
                for &d in dsts.iter() {
                    self.define(d, 1, Some(mask));
                }
            }
            Op::Copy { dst, src, len } => {
                let srcs: Vec<Slot> = (0..*len).map(|c| src + c).collect();
                let dsts: Vec<Slot> = (0..*len).map(|c| dst + c).collect();
                self.move_slots(&dsts, &srcs, Some(mask));
            }
            Op::Gather { dst, srcs } => {
                let dsts: Vec<Slot> = (0..srcs.len() as u32).map(|c| dst + c).collect();
                self.move_slots(&dsts, srcs, None);
            }
            Op::Scatter { dsts, src } => {
                let srcs: Vec<Slot> = (0..dsts.len() as u32).map(|c| src + c).collect();
                self.move_slots(dsts, &srcs, Some(mask));
            }
            Op::Unary { dst, a, len, .. }
            | Op::Not { dst, a, len, .. }
            | Op::ToBool { dst, a, len, .. }
            | Op::Convert { dst, a, len, .. } => self.elementwise(*dst, &[*a], *len),
            Op::Binary { dst, a, b, len, .. }
            | Op::Compare { dst, a, b, len, .. }
            | Op::LogicalVector { dst, a, b, len, .. } => self.elementwise(*dst, &[*a, *b], *len),
            Op::Bitcast { dst, a, from_len, to_len, .. } => {
                self.spread(*dst, *to_len, &[(*a, *from_len)])
            }
            Op::Select { cond_ty, msb, dst, cond, a, b, len } => {
                self.select(*cond_ty, *msb, *dst, *cond, *a, *b, *len, regs)
            }
            Op::AddrIndex { dst, base, index, .. } => self.elementwise(*dst, &[*base, *index], 1),
            Op::AddrConst { dst, base, .. } => self.elementwise(*dst, &[*base], 1),
            Op::PtrDiff { dst, a, b, .. } => self.elementwise(*dst, &[*a, *b], 1),
            Op::PrivateAddr { dst, .. }
            | Op::LocalAddr { dst, .. }
            | Op::GlobalVarAddr { dst, .. }
            | Op::WorkItem { dst, .. } => self.define(*dst, 1, None),
            Op::Load { dst, addr, scalar, width, comps, site } => self.load(
                *dst,
                *addr,
                *scalar,
                *width,
                comps.as_deref(),
                *site,
                mask,
                regs,
                buffers,
                sites,
            ),
            Op::Store { addr, src, scalar, width, comps, site } => self.store(
                *addr,
                *src,
                *scalar,
                *width,
                comps.as_deref(),
                *site,
                mask,
                regs,
                buffers,
                sites,
            ),
            Op::MemCopy { dst, src, size, site } => {
                let members = sites.get(*site as usize).and_then(|s| s.struct_members.as_deref());
                let mut found: Vec<(usize, u64)> = Vec::new();
                for lane in mask.iter() {
                    let (Some(&to), Some(&from)) = (
                        regs.get(*dst as usize * self.lanes + lane),
                        regs.get(*src as usize * self.lanes + lane),
                    ) else {
                        continue;
                    };
                    self.read_bytes(buffers, from, *size);
                    if (found.is_empty() || self.every_lane)
                        && !matches!(decode(to), Target::Private { .. })
                        && members.is_some_and(|m| self.member_undefined(m))
                    {
                        found.push((lane, to));
                    }
                    self.write_bytes(buffers, to);
                }
                for (lane, to) in self.reported(found) {
                    let target = decode(to);
                    let place =
                        if matches!(target, Target::Local { .. }) { "local" } else { "global" };
                    self.found.push(UndefinedUse {
                        lane,
                        site: Some(*site),
                        span: Span::UNDEFINED,
                        message: format!(
                            "copy of a struct with an undefined member to {place} memory: it \
                             comes from memory or a variable nothing wrote, or from a read out \
                             of bounds"
                        ),
                        access: Some(InvalidAccess { store: true, size: *size as u32, target }),
                    });
                }
            }
            Op::MemZero { dst, size, .. } => {
                for lane in mask.iter() {
                    if let Some(&to) = regs.get(*dst as usize * self.lanes + lane) {
                        self.set_memory(buffers, to, *size, false);
                    }
                }
            }
            Op::Builtin(call) => self.begin_call(call),
            Op::IndexCheck { .. } => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn select(
        &mut self,
        cond_ty: Scalar,
        msb: bool,
        dst: Slot,
        cond: Slot,
        a: Slot,
        b: Slot,
        len: u32,
        regs: &[u64],
    ) {
        if !self.is_dirty(cond, len) && !self.is_dirty(a, len) && !self.is_dirty(b, len) {
            self.define(dst, len, None);
            return;
        }
        let lanes = self.lanes;
        let bits = cond_ty.size() * 8;
        let mut temp = std::mem::take(&mut self.temp);
        for c in 0..len {
            temp.clear();
            for lane in 0..lanes {
                let value = regs.get((cond + c) as usize * lanes + lane).copied().unwrap_or(0);
                let pick = if msb { (value >> (bits - 1)) & 1 == 1 } else { value != 0 };
                let chosen = if pick { a + c } else { b + c };
                temp.push(self.flag(cond + c, lane) || self.flag(chosen, lane));
            }
            self.write_lanes(dst + c, &temp, None);
        }
        self.temp = temp;
    }

    /// Lanes of `mask` whose address in `addr` is undefined: one report.
    fn check_address(
        &mut self,
        addr: Slot,
        mask: &Mask,
        regs: &[u64],
        site: u32,
        size: u32,
        store: bool,
    ) {
        let lanes: Vec<(usize, ())> = self.undefined_lanes(addr, mask).map(|l| (l, ())).collect();
        let what = if store { "store" } else { "load" };
        for (lane, ()) in self.reported(lanes) {
            let address = regs.get(addr as usize * self.lanes + lane).copied().unwrap_or(0);
            self.found.push(UndefinedUse {
                lane,
                site: Some(site),
                span: Span::UNDEFINED,
                message: format!(
                    "address of a {what} computed from an undefined value (memory or a \
                     variable nothing wrote, or a read out of bounds)"
                ),
                access: Some(InvalidAccess { store, size, target: decode(address) }),
            });
        }
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
        regs: &[u64],
        buffers: &[SharedBuffer],
        sites: &[Site],
    ) {
        let size = scalar.size();
        self.check_address(addr, mask, regs, site, size * width, false);
        let space = sites.get(site as usize).map_or(AddressSpace::Global, |s| s.space);
        let global = matches!(space, AddressSpace::Global | AddressSpace::Constant);
        if global && !self.undefined_buffers && !(dst..dst.saturating_add(width)).contains(&addr) {
            // Only a read out of bounds gives an undefined value here, and the executor's load
            // finds out whether every lane read inside one buffer: the states follow it
            // ([`Self::after_load`]; the load changes neither memory nor the addresses).
            self.pending_load = true;
            return;
        }
        self.load_states(dst, addr, scalar, width, comps, site, mask, regs, buffers, sites, false);
    }

    /// The states of a load's result, after the executor ran it, when [`Self::before`] left
    /// them for then; `in_bounds`: every active lane read inside one buffer.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn after_load(
        &mut self,
        op: &Op,
        mask: &Mask,
        regs: &[u64],
        buffers: &[SharedBuffer],
        sites: &[Site],
        in_bounds: bool,
    ) {
        if !std::mem::take(&mut self.pending_load) {
            return;
        }
        if let Op::Load { dst, addr, scalar, width, comps, site } = op {
            let comps = comps.as_deref();
            let (dst, addr, scalar, width, site) = (*dst, *addr, *scalar, *width, *site);
            self.load_states(
                dst, addr, scalar, width, comps, site, mask, regs, buffers, sites, in_bounds,
            );
        }
    }

    /// Gives each component of a load's result the state of the bytes it read; `in_bounds`
    /// says that every active lane read inside one global buffer, whose bytes are defined.
    #[allow(clippy::too_many_arguments)]
    fn load_states(
        &mut self,
        dst: Slot,
        addr: Slot,
        scalar: Scalar,
        width: u32,
        comps: Option<&[u8]>,
        site: u32,
        mask: &Mask,
        regs: &[u64],
        buffers: &[SharedBuffer],
        sites: &[Site],
        in_bounds: bool,
    ) {
        let size = scalar.size();
        let site_info = sites.get(site as usize);
        let space = site_info.map_or(AddressSpace::Global, |s| s.space);
        let bounds = site_info.and_then(|s| s.private_bounds);
        let lanes = self.lanes;
        let global = matches!(space, AddressSpace::Global | AddressSpace::Constant);
        let mut temp = std::mem::take(&mut self.temp);
        for c in 0..width {
            let offset = u64::from(size)
                * comps
                    .map_or(u64::from(c), |cs| u64::from(cs.get(c as usize).copied().unwrap_or(0)));
            if in_bounds {
                if self.is_dirty(dst + c, 1) {
                    temp.clear();
                    temp.resize(lanes, false);
                    self.write_lanes(dst + c, &temp, Some(mask));
                }
                continue;
            }
            temp.clear();
            temp.resize(lanes, false);
            for_active!(mask, lane => {
                let Some(&base) = regs.get(addr as usize * lanes + lane) else { continue };
                let at = base.wrapping_add(offset);
                temp[lane] = if global && !self.undefined_buffers {
                    // Only a read out of bounds gives an undefined value.
                    match decode(at) {
                        Target::Buffer { index, offset } => {
                            buffers.get(index).is_none_or(|b| !b.storage.in_bounds(offset, u64::from(size)))
                        }
                        _ => self.memory_undefined(buffers, at, u64::from(size), bounds),
                    }
                } else {
                    self.memory_undefined(buffers, at, u64::from(size), bounds)
                };
            });
            if temp.iter().any(|x| *x) || self.is_dirty(dst + c, 1) {
                self.write_lanes(dst + c, &temp, Some(mask));
            }
        }
        self.temp = temp;
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
        regs: &[u64],
        buffers: &[SharedBuffer],
        sites: &[Site],
    ) {
        let size = scalar.size();
        self.check_address(addr, mask, regs, site, size * width, true);
        let space = sites.get(site as usize).map_or(AddressSpace::Global, |s| s.space);
        let global = matches!(space, AddressSpace::Global | AddressSpace::Constant);
        let undefined = self.is_dirty(src, width);
        if global && !self.undefined_buffers && !undefined {
            return;
        }
        let lanes = self.lanes;
        // Per lane, the first undefined component's base address.
        let mut found: Vec<(usize, u64)> = Vec::new();
        for c in 0..width {
            let offset = u64::from(size)
                * comps
                    .map_or(u64::from(c), |cs| u64::from(cs.get(c as usize).copied().unwrap_or(0)));
            for_active!(mask, lane => {
                let Some(&base) = regs.get(addr as usize * lanes + lane) else { continue };
                let value_undefined = undefined && self.flag(src + c, lane);
                let at = base.wrapping_add(offset);
                self.set_memory(buffers, at, u64::from(size), value_undefined);
                if value_undefined && !matches!(decode(at), Target::Private { .. }) {
                    found.push((lane, base));
                }
            });
        }
        for (lane, base) in self.reported(found) {
            let target = decode(base);
            let place = match target {
                Target::Local { .. } => "local",
                _ => "global",
            };
            self.found.push(UndefinedUse {
                lane,
                site: Some(site),
                span: Span::UNDEFINED,
                message: format!(
                    "store of an undefined value to {place} memory: it comes from memory or a \
                     variable nothing wrote, or from a read out of bounds"
                ),
                access: Some(InvalidAccess { store: true, size: size * width, target }),
            });
        }
    }

    // ----- built-in calls -----------------------------------------------------------------

    fn begin_call(&mut self, call: &BuiltinCall) {
        self.in_call = true;
        self.call_site = call.site;
        self.call_operands.fill(false);
        self.call_result.fill(false);
        self.call_last_read.fill(false);
        for arg in call.args.iter().filter(|a| a.pointer.is_none() && a.literal.is_none()) {
            if !self.is_dirty(arg.slot, arg.width) {
                continue;
            }
            for c in 0..arg.width {
                let at = (arg.slot + c) as usize * self.lanes;
                if let Some(flags) = self.regs.get(at..at + self.lanes) {
                    for (o, f) in self.call_operands.iter_mut().zip(flags) {
                        *o |= *f;
                    }
                }
            }
        }
    }

    /// A built-in read `size` bytes at `addr` for `lane`.
    pub(crate) fn call_read(
        &mut self,
        buffers: &[SharedBuffer],
        lane: usize,
        addr: u64,
        size: u32,
    ) {
        if !self.in_call {
            return;
        }
        let undefined = self.memory_undefined(buffers, addr, u64::from(size), None);
        if let (Some(last), Some(result)) =
            (self.call_last_read.get_mut(lane), self.call_result.get_mut(lane))
        {
            *last = undefined;
            *result |= undefined;
        }
    }

    /// A built-in wrote `size` bytes at `addr` for `lane`: what it wrote is undefined when its
    /// value operands were, or when the memory it read last was (copies, atomics).
    pub(crate) fn call_write(
        &mut self,
        buffers: &[SharedBuffer],
        lane: usize,
        addr: u64,
        size: u32,
    ) {
        if !self.in_call {
            return;
        }
        let site = self.call_site;
        let undefined = self.call_operands.get(lane).copied().unwrap_or(false)
            || self.call_last_read.get(lane).copied().unwrap_or(false);
        self.set_memory(buffers, addr, u64::from(size), undefined);
        let target = decode(addr);
        if undefined
            && !matches!(target, Target::Private { .. })
            && !self.found.iter().any(|f| f.site == Some(site))
        {
            let place = if matches!(target, Target::Local { .. }) { "local" } else { "global" };
            self.found.push(UndefinedUse {
                lane,
                site: Some(site),
                span: Span::UNDEFINED,
                message: format!(
                    "store of an undefined value to {place} memory by a built-in: it comes from \
                     memory or a variable nothing wrote, or from a read out of bounds"
                ),
                access: Some(InvalidAccess { store: true, size, target }),
            });
        }
    }

    /// The call's result, in the lanes of `mask`: undefined where its value operands or the
    /// memory it read were.
    pub(crate) fn end_call(&mut self, call: &BuiltinCall, mask: &Mask) {
        self.in_call = false;
        let lanes = self.lanes;
        let mut temp = std::mem::take(&mut self.temp);
        temp.clear();
        temp.extend(self.call_operands.iter().zip(&self.call_result).map(|(a, b)| *a || *b));
        temp.resize(lanes, false);
        if temp.iter().any(|x| *x) {
            for c in 0..call.width.max(1) {
                self.write_lanes(call.dst + c, &temp, Some(mask));
            }
        } else {
            self.define(call.dst, call.width.max(1), Some(mask));
        }
        self.temp = temp;
    }
}
