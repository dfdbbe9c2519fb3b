//! The interactive debugger: `clmap run -i`, and oclgrind-kernel's `-i/--interactive`.
//!
//! A program compiled for it ([`crate::compile_kernel_for_debugging`]) carries a
//! [`Node::Statement`](crate::program::Node) marker at the start of every source statement;
//! the executor hands each marker, with a read-only view of the work-group, to the
//! [`DebugHook`] of the launch's [`SimOptions`](crate::SimOptions). The hook decides whether to
//! stop there and, when it does, reads commands (Oclgrind's, with their short forms) until one
//! resumes the run. Programs compiled the usual way have no marker, so a run without the
//! debugger pays nothing for it.
//!
//! # How it differs from Oclgrind's
//!
//! Oclgrind runs one work-item at a time, up to a barrier, and its debugger follows the one
//! that runs. clmap runs a work-group's work-items in lock-step, so the debugger follows the
//! *selected* work-item (the first of the launch at the start, another after `workitem` or
//! after a breakpoint another one hit) and a `step` advances its whole group by one statement
//! of that work-item. What it prints is the selected work-item's own state: its line, its
//! variables, its private memory. Its group's other work-items have run the same statements
//! (or, where their control flow diverged, wait at theirs); groups run one after another, in
//! order. So:
//!
//! - `workitem` to another work-item of the running group shows where it is now (the last
//!   statement it started); to one of a group that has run, says it has finished; to one of a
//!   group that has not started, selects it, and the run stops at its first line when the
//!   group starts.
//! - A breakpoint stops when any work-item of the running group reaches its line: the
//!   selected one if it is among them, else the first of them, which becomes the selected one.
//! - Oclgrind also stops when a check reports an error; clmap's checks report at the end of
//!   the launch, so the debugger does not stop for them.
//! - `print` also takes elements of arrays held in variables (`a[2]`), leading `*`s
//!   (`*p`, `**q`) and unsigned integers as such; pointers are clmap's addresses (see
//!   [`crate::memory`]), which `gmem`, `lmem` and `pmem` take too (or, for `lmem` and `pmem`,
//!   offsets into the group's local memory and the work-item's private memory).
//!
//! # Where things are
//!
//! - this file: the hook the executor calls ([`DebugHook`]), the session's state, and the
//!   decisions where to stop (steps, breakpoints, the selected work-item's group);
//! - `commands`: the command loop at a stop and the commands that show where the run is or
//!   move it on (`step`, `next`, `continue`, `quit`, `backtrace`, `info`, `workitem`, `help`);
//! - `source`: source lines, `list`, and setting and deleting breakpoints;
//! - `print`: the `print` expression evaluator and Oclgrind's formatting of values;
//! - `memory`: `gmem`, `lmem` and `pmem` dumps.

mod commands;
mod memory;
mod print;
mod source;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use clmap_lang::{SourceMap, Span};

use crate::exec::LaunchPlan;
use crate::mask::Mask;
use crate::memory::{decode, SharedBuffer, Target};
use crate::observer::GroupInfo;
use crate::program::{DebugInfo, Program};

/// The debugger of a run, shared by the launches of a workload (breakpoints persist from one
/// to the next). Cloning shares it.
#[derive(Clone)]
pub struct DebugHook(Arc<Mutex<Session>>);

impl std::fmt::Debug for DebugHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DebugHook")
    }
}

impl PartialEq for DebugHook {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for DebugHook {}

/// The prompt for a debugger reading from a terminal (none when commands come from a pipe or
/// a file): Oclgrind's when clmap answers to its names, since scripts driving it may wait for
/// that prompt.
pub fn prompt(terminal: bool, oclgrind_names: bool) -> Option<&'static str> {
    terminal.then_some(if oclgrind_names { "(oclgrind) " } else { "(clmap) " })
}

impl DebugHook {
    /// A debugger that reads commands from `input` and writes to `output`; `sources` are the
    /// texts the kernels were compiled from. With a `prompt` (for a terminal: `(clmap) `, or
    /// `(oclgrind) ` when called by Oclgrind's names), it writes it before reading each
    /// command.
    pub fn new(
        sources: SourceMap,
        input: Box<dyn BufRead + Send>,
        output: Box<dyn Write + Send>,
        prompt: Option<&'static str>,
    ) -> DebugHook {
        DebugHook(Arc::new(Mutex::new(Session {
            sources,
            input,
            out: output,
            prompt,
            running: true,
            mode: Mode::Step { line: 0, depth: 0, over: false },
            breakpoints: BTreeMap::new(),
            next_breakpoint: 1,
            last_break_line: 0,
            list_position: 0,
            shown_depth: 0,
            selected: [0; 3],
            launch: LaunchShape::default(),
            group: None,
            last_statement: Vec::new(),
            capitals: false,
        })))
    }

    /// The texts the next launches' kernels were compiled from, which `list` shows and
    /// `break` counts lines in: a host program builds programs of its own, each with its own
    /// sources, so the platform sets them before each launch.
    pub fn set_sources(&self, sources: SourceMap) {
        self.session().sources = sources;
    }

    /// Whether the debugger has printed hexadecimal bytes (a struct, or memory). Oclgrind's
    /// output stream keeps writing hexadecimal digits as capitals after that, its dump of
    /// the outputs included; under `--oclgrind-output` clmap's dump does the same.
    pub fn printed_capitals(&self) -> bool {
        self.session().capitals
    }

    fn session(&self) -> std::sync::MutexGuard<'_, Session> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn launch_started(&self, program: &Program, plan: &LaunchPlan<'_>) {
        self.session().launch_started(program, plan);
    }

    pub(crate) fn at_statement(&self, view: &GroupView<'_>, index: u32) {
        self.session().at_statement(view, index);
    }

    pub(crate) fn group_finished(&self, view: &GroupView<'_>) {
        self.session().group_finished(view);
    }
}

/// What the debugger may look at in a work-group, where it stops.
pub(crate) struct GroupView<'v> {
    pub program: &'v Program,
    pub group: &'v GroupInfo,
    pub lanes: usize,
    /// The lanes at the statement being stopped at (none when the group has finished).
    pub active: &'v Mask,
    /// The lanes that have not returned.
    pub live: &'v Mask,
    pub regs: &'v [u64],
    pub local: &'v [u8],
    pub private: &'v [u8],
    pub frame: u64,
    pub buffers: &'v [SharedBuffer],
    /// Calls between the kernel and the statement.
    pub depth: u32,
}

impl GroupView<'_> {
    fn debug(&self) -> Option<&DebugInfo> {
        self.program.debug.as_deref()
    }

    /// The register value of `slot` in `lane`.
    fn reg(&self, slot: u32, lane: usize) -> Option<u64> {
        self.regs.get(slot as usize * self.lanes + lane).copied()
    }

    /// `size` bytes at simulated address `addr`, if they are all inside one object.
    fn read(&self, addr: u64, size: u64) -> Option<Vec<u8>> {
        let len = usize::try_from(size).ok()?;
        match decode(addr) {
            Target::Buffer { index, offset } => {
                let buffer = self.buffers.get(index)?;
                if !buffer.storage.in_bounds(offset, size) {
                    return None;
                }
                let mut bytes = vec![0; len];
                buffer.read_bytes(offset, &mut bytes).ok()?;
                Some(bytes)
            }
            Target::Local { offset } => {
                let start = usize::try_from(offset).ok()?;
                self.local.get(start..start.checked_add(len)?).map(<[u8]>::to_vec)
            }
            Target::Private { lane, offset } => {
                if lane >= self.lanes || offset.checked_add(size)? > self.frame {
                    return None;
                }
                let start = usize::try_from(lane as u64 * self.frame + offset).ok()?;
                self.private.get(start..start.checked_add(len)?).map(<[u8]>::to_vec)
            }
            Target::Invalid => None,
        }
    }
}

/// How the run goes on after a command resumes it.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// Stop at the selected work-item's next line other than `line`; with `over`, not in a
    /// function called deeper than `depth`.
    Step { line: u32, depth: u32, over: bool },
    /// Stop at breakpoints only.
    Continue,
}

/// The launch being debugged.
#[derive(Clone, Debug, Default)]
struct LaunchShape {
    kernel: String,
    global_size: [u64; 3],
    local_size: [u64; 3],
    offset: [u64; 3],
    num_groups: [u64; 3],
    /// File of the kernel's source, whose lines `list` and `break` mean.
    file: Option<clmap_lang::FileId>,
}

struct Session {
    sources: SourceMap,
    input: Box<dyn BufRead + Send>,
    out: Box<dyn Write + Send>,
    prompt: Option<&'static str>,
    /// `false` once `quit` (or the end of the input) let the run go on to its end: for good,
    /// as in Oclgrind, so a host program's later launches do not stop either.
    running: bool,
    mode: Mode,
    /// Breakpoint number → line.
    breakpoints: BTreeMap<u32, u32>,
    next_breakpoint: u32,
    /// The line of the breakpoint last stopped at, until the run leaves it.
    last_break_line: u32,
    /// The first line `list` showed last, 0 after a stop.
    list_position: u32,
    /// The call depth of the last stop whose function was shown.
    shown_depth: u32,
    /// Global id of the work-item the debugger follows.
    selected: [u64; 3],
    launch: LaunchShape,
    /// Index of the work-group running.
    group: Option<u64>,
    /// The last statement each lane of the running group started.
    last_statement: Vec<Option<u32>>,
    /// See [`DebugHook::printed_capitals`].
    capitals: bool,
}

/// Where a command runs: the group's view, and the statement stopped at (`None` when the
/// selected work-item's group has finished).
struct Stop<'s, 'v> {
    view: &'s GroupView<'v>,
    debug: &'s DebugInfo,
    statement: Option<u32>,
}

/// Where the selected work-item is, seen from the running group.
enum Selected {
    /// Lane `lane` of the running group, which has not returned.
    Running { lane: usize },
    /// It has returned, or its group has run.
    Finished,
    /// Its group has not started.
    NotStarted,
}

impl Session {
    pub(super) fn say(&mut self, text: &str) {
        let _ = writeln!(self.out, "{text}");
    }

    fn launch_started(&mut self, program: &Program, plan: &LaunchPlan<'_>) {
        let file = program.debug.as_deref().and_then(|d| d.functions.first()).map(|f| f.span.file);
        self.launch = LaunchShape {
            kernel: program.kernel.clone(),
            global_size: plan.global_size,
            local_size: plan.local_size,
            offset: plan.global_offset,
            num_groups: plan.num_groups,
            file,
        };
        self.selected = plan.global_offset;
        self.group = None;
        self.last_break_line = 0;
        self.list_position = 0;
        self.shown_depth = 0;
        if self.running {
            self.mode = Mode::Step { line: 0, depth: 0, over: false };
        }
    }

    pub(super) fn line_of(&self, span: Span) -> u32 {
        if !span.is_defined() {
            return 0;
        }
        self.sources.get(span.file).map_or(0, |f| f.line_col(span.start).line)
    }

    /// Notes that `view`'s group is running, and which lanes are at `index`.
    fn follow(&mut self, view: &GroupView<'_>, index: Option<u32>) {
        if self.group != Some(view.group.group_index) {
            self.group = Some(view.group.group_index);
            self.last_statement.clear();
            self.last_statement.resize(view.lanes, None);
        }
        if let Some(index) = index {
            for lane in 0..view.lanes.min(self.last_statement.len()) {
                if view.active.get(lane) {
                    self.last_statement[lane] = Some(index);
                }
            }
        }
    }

    /// The linear index of the work-group of global id `id`, and its lane there.
    pub(super) fn group_and_lane(&self, id: [u64; 3]) -> (u64, usize) {
        let l = &self.launch;
        let mut group = [0u64; 3];
        let mut local = [0u64; 3];
        for d in 0..3 {
            let size = l.local_size[d].max(1);
            let rel = id[d].saturating_sub(l.offset[d]);
            group[d] = rel / size;
            local[d] = rel % size;
        }
        let nx = l.num_groups[0].max(1);
        let ny = l.num_groups[1].max(1);
        let lx = l.local_size[0].max(1);
        let ly = l.local_size[1].max(1);
        let index = group[0] + nx * (group[1] + ny * group[2]);
        let lane = local[0] + lx * (local[1] + ly * local[2]);
        (index, lane as usize)
    }

    pub(super) fn selected_in(&self, view: &GroupView<'_>) -> Selected {
        let (group, lane) = self.group_and_lane(self.selected);
        let running = view.group.group_index;
        if group < running {
            Selected::Finished
        } else if group > running {
            Selected::NotStarted
        } else if lane < view.lanes && view.live.get(lane) && !view.active.is_empty() {
            Selected::Running { lane }
        } else {
            // It returned, or the group has ended (no lane is anywhere).
            Selected::Finished
        }
    }

    fn at_statement(&mut self, view: &GroupView<'_>, index: u32) {
        if !self.running {
            return;
        }
        let Some(debug) = view.debug() else { return };
        let Some(statement) = debug.statements.get(index as usize) else { return };
        self.follow(view, Some(index));
        let line = self.line_of(statement.span);
        if self.hit_breakpoint(view, line) {
            self.stopped(view, debug, Some(index));
            return;
        }
        let Mode::Step { line: from, depth, over } = self.mode else { return };
        let Selected::Running { lane } = self.selected_in(view) else { return };
        if !view.active.get(lane) || line == 0 || line == from || (over && view.depth > depth) {
            return;
        }
        self.stopped(view, debug, Some(index));
    }

    fn group_finished(&mut self, view: &GroupView<'_>) {
        if !self.running {
            return;
        }
        let Some(debug) = view.debug() else { return };
        self.follow(view, None);
        let (group, _) = self.group_and_lane(self.selected);
        if matches!(self.mode, Mode::Continue) || group != view.group.group_index {
            return;
        }
        self.stopped(view, debug, None);
    }

    /// Whether a work-item of the group reached a breakpoint at `line`; says so, and selects
    /// it, when one did.
    fn hit_breakpoint(&mut self, view: &GroupView<'_>, line: u32) -> bool {
        if self.breakpoints.is_empty() {
            return false;
        }
        if self.last_break_line != 0 {
            if line == self.last_break_line {
                return false;
            }
            self.last_break_line = 0;
        }
        let Some((&number, _)) = self.breakpoints.iter().find(|(_, &l)| l == line) else {
            return false;
        };
        let lane = match self.selected_in(view) {
            Selected::Running { lane } if view.active.get(lane) => lane,
            _ => match view.active.first() {
                Some(lane) => lane,
                None => return false,
            },
        };
        self.selected = view.group.global_id(lane);
        let id = format_id(self.selected);
        self.say(&format!("Breakpoint {number} hit at line {line} by work-item {id}"));
        self.last_break_line = line;
        self.list_position = 0;
        true
    }
}

fn format_id(id: [u64; 3]) -> String {
    format!("({},{},{})", id[0], id[1], id[2])
}
