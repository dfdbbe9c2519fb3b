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

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use clmap_lang::ir::{Handle, Scalar, Type, TypeInner, UniqueArena};
use clmap_lang::{SourceMap, Span};

use crate::exec::LaunchPlan;
use crate::mask::Mask;
use crate::memory::{decode, SharedBuffer, Target};
use crate::observer::GroupInfo;
use crate::program::{DebugInfo, DebugPlace, Program};

/// Source lines `list` shows at a time.
const LIST_LENGTH: u32 = 10;

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

impl DebugHook {
    /// A debugger that reads commands from `input` and writes to `output`; `sources` are the
    /// texts the kernels were compiled from. With `prompt`, it writes `(clmap) ` before
    /// reading each command (for a terminal).
    pub fn new(
        sources: SourceMap,
        input: Box<dyn BufRead + Send>,
        output: Box<dyn Write + Send>,
        prompt: bool,
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
    prompt: bool,
    /// `false` once `quit` (or the end of the input) let the run go on to its end.
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
    fn say(&mut self, text: &str) {
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

    fn line_of(&self, span: Span) -> u32 {
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
    fn group_and_lane(&self, id: [u64; 3]) -> (u64, usize) {
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

    fn selected_in(&self, view: &GroupView<'_>) -> Selected {
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

    /// Shows where the run stopped and reads commands until one resumes it.
    fn stopped(&mut self, view: &GroupView<'_>, debug: &DebugInfo, statement: Option<u32>) {
        let stop = Stop { view, debug, statement };
        if let Some(index) = statement {
            let depth = debug.statements.get(index as usize).map_or(0, |s| s.depth);
            if depth != self.shown_depth {
                let function = self.function_line(&stop, index);
                self.say(&format!("In function {function}"));
                self.shown_depth = depth;
            }
        }
        self.print_current_line(&stop);
        self.list_position = 0;
        loop {
            if self.prompt {
                let _ = write!(self.out, "(clmap) ");
            }
            let _ = self.out.flush();
            let mut line = String::new();
            let eof = !matches!(self.input.read_line(&mut line), Ok(n) if n > 0);
            if eof {
                if self.prompt {
                    self.say("(quit)");
                }
                self.running = false;
                break;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.is_empty() {
                continue;
            }
            if self.command(&stop, &words) {
                break;
            }
        }
        let _ = self.out.flush();
    }

    /// Runs one command; `true` when it resumes the run.
    fn command(&mut self, stop: &Stop<'_, '_>, words: &[&str]) -> bool {
        match words[0] {
            "backtrace" | "bt" => self.backtrace(stop),
            "break" | "b" => self.set_breakpoint(stop, words),
            "continue" | "c" => {
                self.mode = Mode::Continue;
                return true;
            }
            "delete" | "d" => self.delete(words),
            "gmem" | "gm" | "lmem" | "lm" | "pmem" | "pm" => self.memory(stop, words),
            "help" | "h" => self.help(words),
            "info" | "i" => self.info(stop, words),
            "list" | "l" => self.list(stop, words),
            "next" | "n" => return self.step(stop, true),
            "print" | "p" => self.print(stop, words),
            "quit" | "q" => {
                self.running = false;
                return true;
            }
            "step" | "s" => return self.step(stop, false),
            "workitem" | "wi" => self.switch_work_item(stop, words),
            other => self.say(&format!("Unrecognized command '{other}'")),
        }
        false
    }

    /// The statement the selected work-item is at, or last started; `None` when it has
    /// finished or has not started.
    fn current_statement(&self, stop: &Stop<'_, '_>) -> Option<u32> {
        match self.selected_in(stop.view) {
            Selected::Running { lane } => {
                if stop.statement.is_some() && stop.view.active.get(lane) {
                    stop.statement
                } else {
                    self.last_statement.get(lane).copied().flatten()
                }
            }
            _ => None,
        }
    }

    /// The statement whose variables `print` sees: the current one, or the last one the
    /// selected work-item started when it has finished.
    fn scope_statement(&self, stop: &Stop<'_, '_>) -> Option<(usize, u32)> {
        let (group, lane) = self.group_and_lane(self.selected);
        if group != stop.view.group.group_index || lane >= stop.view.lanes {
            return None;
        }
        let index = self.current_statement(stop).or(self.last_statement.get(lane).copied()?)?;
        Some((lane, index))
    }

    fn current_line(&self, stop: &Stop<'_, '_>) -> u32 {
        self.current_statement(stop)
            .and_then(|i| stop.debug.statements.get(i as usize))
            .map_or(0, |s| self.line_of(s.span))
    }

    fn print_current_line(&mut self, stop: &Stop<'_, '_>) {
        let Some(index) = self.current_statement(stop) else { return };
        let Some(statement) = stop.debug.statements.get(index as usize) else { return };
        let line = self.line_of(statement.span);
        let text = self.sources.get(statement.span.file).map(|f| f.line_text(line).to_string());
        match text {
            Some(text) if line > 0 => self.say(&format!("{line}\t{text}")),
            _ => self.say("Source line not available."),
        }
    }

    fn source_line_count(&self) -> u32 {
        self.launch.file.and_then(|f| self.sources.get(f)).map_or(0, |f| f.line_count())
    }

    fn print_source_line(&mut self, line: u32) {
        let text = self.launch.file.and_then(|f| self.sources.get(f)).map(|f| {
            if line >= 1 && line <= f.line_count() {
                Some(f.line_text(line).to_string())
            } else {
                None
            }
        });
        match text.flatten() {
            Some(text) => self.say(&format!("{line}\t{text}")),
            None => self.say(&format!("Invalid line number: {line}")),
        }
    }

    /// `name(param=value, …) at line N` for the function of statement `index`, as the
    /// selected work-item sees it, `line` being that of statement `at`.
    fn function_line(&self, stop: &Stop<'_, '_>, index: u32) -> String {
        self.function_at(stop, index, index)
    }

    fn function_at(&self, stop: &Stop<'_, '_>, of: u32, at: u32) -> String {
        let debug = stop.debug;
        let statement = debug.statements.get(of as usize);
        let function = statement.and_then(|s| debug.functions.get(s.function as usize));
        let line = debug.statements.get(at as usize).map_or(0, |s| self.line_of(s.span));
        let Some(function) = function else { return format!("? at line {line}") };
        let lane = self.group_and_lane(self.selected).1;
        let params: Vec<String> = function
            .params
            .iter()
            .filter_map(|&v| debug.variables.get(v as usize))
            .map(|v| {
                let value = variable_bytes(stop.view, v.place, &debug.types, v.ty, lane)
                    .and_then(|bytes| format_value(&debug.types, v.ty, &bytes));
                format!("{}={}", v.name, value.unwrap_or_else(|| "?".to_string()))
            })
            .collect();
        format!("{}({}) at line {line}", function.name, params.join(", "))
    }

    fn backtrace(&mut self, stop: &Stop<'_, '_>) {
        let Some(index) = self.current_statement(stop) else { return };
        let debug = stop.debug;
        let depth = debug.statements.get(index as usize).map_or(0, |s| s.depth);
        let mut lines = vec![format!("#{depth} {}", self.function_line(stop, index))];
        // Each frame's call statement is in its caller's function.
        let mut at = index;
        let mut level = depth;
        while let Some(caller) = debug
            .statements
            .get(at as usize)
            .and_then(|s| debug.functions.get(s.function as usize))
            .and_then(|f| f.caller)
        {
            level = level.saturating_sub(1);
            lines.push(format!("#{level} {}", self.function_at(stop, caller, caller)));
            at = caller;
        }
        for line in lines {
            self.say(&line);
        }
    }

    fn set_breakpoint(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
        let count = self.source_line_count();
        if count == 0 {
            self.say("Breakpoints only valid when source is available.");
            return;
        }
        let line = match words.get(1) {
            Some(word) => match word.parse::<u32>() {
                Ok(line) if line > 0 && line <= count + 1 => line,
                _ => {
                    self.say("Invalid line number.");
                    return;
                }
            },
            None => self.current_line(stop),
        };
        if line == 0 {
            self.say("Not currently on a line.");
            return;
        }
        self.breakpoints.insert(self.next_breakpoint, line);
        self.next_breakpoint += 1;
    }

    fn delete(&mut self, words: &[&str]) {
        if let Some(word) = words.get(1) {
            match word.parse::<u32>() {
                Ok(number) if self.breakpoints.remove(&number).is_some() => {}
                Ok(_) => self.say("Breakpoint not found."),
                Err(_) => self.say("Invalid breakpoint number."),
            }
            return;
        }
        let _ = write!(self.out, "Delete all breakpoints? (y/n) ");
        let _ = self.out.flush();
        let mut answer = String::new();
        let _ = self.input.read_line(&mut answer);
        if answer.trim() == "y" {
            self.breakpoints.clear();
        }
    }

    fn help(&mut self, words: &[&str]) {
        let Some(&topic) = words.get(1) else {
            let mut text = String::from("Command list:\n");
            for (name, short) in [
                ("backtrace", "bt"),
                ("break", "b"),
                ("continue", "c"),
                ("delete", "d"),
                ("gmem", "gm"),
                ("help", "h"),
                ("info", "i"),
                ("list", "l"),
                ("next", "n"),
                ("lmem", "lm"),
                ("pmem", "pm"),
                ("print", "p"),
                ("quit", "q"),
                ("step", "s"),
                ("workitem", "wi"),
            ] {
                let _ = writeln!(text, "  {name:<12} ({short})");
            }
            text.push_str("(type 'help command' for more information)");
            self.say(&text);
            return;
        };
        let text = match topic {
            "backtrace" | "bt" => {
                "Show the calls that lead to the selected work-item's line, innermost first."
                    .to_string()
            }
            "break" | "b" => "Stop when a work-item reaches a source line.\n\
                 'break' alone: the current line; 'break N': line N of the kernel's file."
                .to_string(),
            "continue" | "c" => "Run on until a breakpoint is reached.".to_string(),
            "delete" | "d" => "Remove breakpoint N ('delete N'), or all of them ('delete', \
                 which asks first)."
                .to_string(),
            "help" | "h" => "Describe a command: 'help command'.".to_string(),
            "info" | "i" => "Show the launch, the selected work-item and where it is.\n\
                 'info break' lists the breakpoints."
                .to_string(),
            "list" | "l" => format!(
                "Show source lines: the {LIST_LENGTH} after the last ones shown (or after the \
                 current line);\n'list -' the {LIST_LENGTH} before them; 'list N' those around \
                 line N."
            ),
            "gmem" | "gm" | "lmem" | "lm" | "pmem" | "pm" => {
                let space = match topic.as_bytes()[0] {
                    b'g' => "global memory (an address as 'print' shows a pointer)",
                    b'l' => "the work-group's local memory (an address, or an offset in it)",
                    _ => "the selected work-item's private memory (an address, or an offset in it)",
                };
                format!(
                    "Show the bytes of {space}.\n'{topic} ADDRESS [SIZE]': SIZE bytes (8 unless \
                     given) from ADDRESS, hexadecimal and a multiple of 4;\n'{topic}' alone: \
                     all of it."
                )
            }
            "next" | "n" => {
                "Run to the selected work-item's next line, over the lines of functions it \
                 calls."
                    .to_string()
            }
            "print" | "p" => "Show the values of variables: 'print x y'.\nMembers, elements and \
                 pointers: 'print s.a', 'print a[3]', 'print p->x', 'print *p'."
                .to_string(),
            "quit" | "q" => "Leave the debugger; the kernel runs to its end.".to_string(),
            "step" | "s" => "Run to the selected work-item's next line (its work-group runs \
                 with it, in lock-step)."
                .to_string(),
            "workitem" | "wi" => "Follow another work-item: 'workitem X [Y [Z]]', its global \
                 id."
            .to_string(),
            other => format!("Unrecognized command '{other}'"),
        };
        self.say(&text);
    }

    fn info(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
        if let Some(&what) = words.get(1) {
            if what == "break" {
                let lines: Vec<String> = self
                    .breakpoints
                    .iter()
                    .map(|(n, line)| format!("Breakpoint {n}: Line {line}"))
                    .collect();
                for line in lines {
                    self.say(&line);
                }
            } else {
                self.say(&format!("Invalid info command: {what}"));
            }
            return;
        }
        let l = &self.launch;
        let text = format!(
            "Running kernel '{}'\n-> Global work size:   {}\n-> Global work offset: {}\n\
             -> Local work size:    {}\n\nCurrent work-item: {}",
            l.kernel,
            format_id(l.global_size),
            format_id(l.offset),
            format_id(l.local_size),
            format_id(self.selected),
        );
        self.say(&text);
        match self.current_statement(stop) {
            Some(index) => {
                let function = self.function_line(stop, index);
                self.say(&format!("In function {function}"));
                self.print_current_line(stop);
            }
            None => match self.selected_in(stop.view) {
                Selected::NotStarted => self.say("Its work-group has not started."),
                _ => self.say("Work-item has finished."),
            },
        }
    }

    fn list(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
        let count = self.source_line_count();
        if count == 0 {
            self.say("No source code available.");
            return;
        }
        let mut start = 0;
        let mut forwards = true;
        if let Some(&word) = words.get(1) {
            if word == "-" {
                forwards = false;
            } else {
                match word.parse::<u32>() {
                    Ok(line) => start = line.saturating_sub(LIST_LENGTH / 2).max(1),
                    Err(_) => {
                        self.say("Invalid line number.");
                        return;
                    }
                }
            }
        }
        if start == 0 {
            if forwards {
                start = if self.list_position > 0 {
                    self.list_position + LIST_LENGTH
                } else {
                    self.current_line(stop) + 1
                };
                if start > count {
                    self.list_position = count + 1;
                    return;
                }
            } else {
                let from = if self.list_position > 0 {
                    self.list_position
                } else {
                    self.current_line(stop)
                };
                start = if from > LIST_LENGTH { from - LIST_LENGTH } else { 1 };
            }
        }
        for line in start..(start + LIST_LENGTH).min(count + 1) {
            self.print_source_line(line);
        }
        self.list_position = start;
    }

    fn step(&mut self, stop: &Stop<'_, '_>, over: bool) -> bool {
        match self.selected_in(stop.view) {
            Selected::Finished => {
                self.say("Work-item has finished.");
                return false;
            }
            Selected::NotStarted => {
                self.mode = Mode::Step { line: 0, depth: 0, over: false };
                return true;
            }
            Selected::Running { .. } => {}
        }
        let depth = self
            .current_statement(stop)
            .and_then(|i| stop.debug.statements.get(i as usize))
            .map_or(0, |s| s.depth);
        self.mode = Mode::Step { line: self.current_line(stop), depth, over };
        true
    }

    fn print(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
        if words.len() < 2 {
            self.say("Variable name(s) required.");
            return;
        }
        let scope = self.scope_statement(stop);
        for &expression in &words[1..] {
            let value = match scope {
                Some((lane, index)) => evaluate(stop, lane, index, expression),
                None => Err("not found".to_string()),
            };
            let value = value.unwrap_or_else(|why| why);
            self.capitals |= value.starts_with("(raw) ");
            self.say(&format!("{expression} = {value}"));
        }
    }

    fn switch_work_item(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
        let mut id = self.launch.offset;
        for (d, word) in words.iter().skip(1).enumerate() {
            let l = &self.launch;
            let value = word.parse::<u64>().ok().filter(|&v| {
                d < 3 && v >= l.offset[d] && v - l.offset[d] < l.global_size[d].max(1)
            });
            match value {
                Some(v) => id[d] = v,
                None => {
                    self.say("Invalid global ID.");
                    return;
                }
            }
        }
        let previous = std::mem::replace(&mut self.selected, id);
        match self.selected_in(stop.view) {
            Selected::Finished if self.group_and_lane(id).0 < stop.view.group.group_index => {
                self.selected = previous;
                self.say("Work-item has already finished, unable to load state.");
            }
            Selected::Finished => {
                self.say(&format!("Switched to work-item: {}", format_id(id)));
                self.say("Work-item has finished execution.");
            }
            Selected::NotStarted => {
                self.say(&format!("Switched to work-item: {}", format_id(id)));
                self.say("Its work-group has not started: 'step' runs to its first line.");
            }
            Selected::Running { .. } => {
                self.say(&format!("Switched to work-item: {}", format_id(id)));
                self.print_current_line(stop);
            }
        }
    }

    fn memory(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
        let view = stop.view;
        let space = words[0].as_bytes()[0];
        let lane = match self.selected_in(view) {
            Selected::Running { lane } => Some(lane),
            _ => None,
        };
        // The address of offset 0 of the memory asked for.
        let base = match space {
            b'l' => crate::memory::region_base(crate::memory::LOCAL_REGION),
            b'p' => match lane {
                Some(lane) => {
                    crate::memory::region_base(crate::memory::PRIVATE_REGION + lane as u64)
                }
                None => {
                    self.say("Work-item has finished.");
                    return;
                }
            },
            _ => 0,
        };
        if words.len() == 1 {
            let regions: Vec<(u64, u64)> = match space {
                b'g' => (0..view.buffers.len())
                    .map(|i| (crate::memory::buffer_base(i), view.buffers[i].len()))
                    .collect(),
                b'l' => vec![(base, view.local.len() as u64)],
                _ => vec![(base, view.frame)],
            };
            for (start, len) in regions {
                if let Some(bytes) = view.read(start, len) {
                    let text = hex_rows(start, &bytes);
                    self.capitals = true;
                    self.say(&text);
                }
            }
            return;
        }
        if words.len() > 3 {
            self.say("Invalid number of arguments.");
            return;
        }
        let digits = words[1].trim_start_matches("0x").trim_start_matches("0X");
        let address = match u64::from_str_radix(digits, 16) {
            Ok(a) if a % 4 == 0 => a,
            _ => {
                self.say("Invalid address.");
                return;
            }
        };
        let size = match words.get(2).map(|w| w.parse::<u64>()) {
            None => 8,
            Some(Ok(n)) if n > 0 => n,
            Some(_) => {
                self.say("Invalid size");
                return;
            }
        };
        // An offset in local or private memory means that memory's address.
        let at = match (space, decode(address)) {
            (b'g', Target::Buffer { .. }) => Some(address),
            (b'l', Target::Local { .. }) => Some(address),
            (b'p', Target::Private { lane: l, .. }) if Some(l) == lane => Some(address),
            (b'l' | b'p', _) if address >> crate::memory::REGION_SHIFT == 0 => Some(base + address),
            _ => None,
        };
        match at.and_then(|a| view.read(a, size)) {
            Some(bytes) => {
                let text = hex_rows(address, &bytes);
                self.capitals = true;
                self.say(&text);
            }
            None => self.say("Invalid memory address."),
        }
    }
}

/// Rows of four bytes, each after its address, between blank lines.
fn hex_rows(address: u64, bytes: &[u8]) -> String {
    let mut text = String::new();
    for (i, byte) in bytes.iter().enumerate() {
        if i % 4 == 0 {
            let _ = write!(text, "\n{:>16X}:", address + i as u64);
        }
        let _ = write!(text, " {byte:02X}");
    }
    text.push('\n');
    text
}

fn format_id(id: [u64; 3]) -> String {
    format!("({},{},{})", id[0], id[1], id[2])
}

/// The bytes of a variable's value in `lane`, as memory holds them.
fn variable_bytes(
    view: &GroupView<'_>,
    place: DebugPlace,
    types: &UniqueArena<Type>,
    ty: Handle<Type>,
    lane: usize,
) -> Option<Vec<u8>> {
    match place {
        DebugPlace::Reg { slot, scalar, width } => {
            let size = scalar.size() as usize;
            let mut bytes = Vec::with_capacity(size * width as usize);
            for c in 0..width {
                let bits = crate::value::to_memory(scalar, view.reg(slot + c, lane)?);
                bytes.extend_from_slice(&bits.to_le_bytes()[..size]);
            }
            let whole = clmap_lang::ir::size_of(types, ty) as usize;
            bytes.resize(bytes.len().max(whole), 0);
            Some(bytes)
        }
        DebugPlace::Mem { addr } => {
            view.read(view.reg(addr, lane)?, u64::from(clmap_lang::ir::size_of(types, ty)))
        }
    }
}

/// A value being evaluated: bytes already read, or where they are.
enum Value {
    Bytes(Vec<u8>),
    At(u64),
}

/// Evaluates a `print` expression (a variable in scope at statement `index`, then `.member`,
/// `->member` and `[index]`, after any number of leading `*`) for `lane`.
fn evaluate(
    stop: &Stop<'_, '_>,
    lane: usize,
    index: u32,
    expression: &str,
) -> Result<String, String> {
    let debug = stop.debug;
    let view = stop.view;
    let types = &debug.types;
    let size_of = |ty: Handle<Type>| u64::from(clmap_lang::ir::size_of(types, ty));
    let derefs = expression.len() - expression.trim_start_matches('*').len();
    let expression = &expression[derefs..];
    let split = expression.find(['.', '-', '[']).unwrap_or(expression.len());
    let (name, mut rest) = expression.split_at(split);
    let statement = debug.statements.get(index as usize).ok_or("not found")?;
    let variable = statement
        .visible
        .iter()
        .rev()
        .filter_map(|&v| debug.variables.get(v as usize))
        .find(|v| v.name == name)
        .ok_or("not found")?;
    let mut ty = variable.ty;
    let mut value = match variable.place {
        DebugPlace::Reg { .. } => {
            Value::Bytes(variable_bytes(view, variable.place, types, ty, lane).ok_or("not found")?)
        }
        DebugPlace::Mem { addr } => Value::At(view.reg(addr, lane).ok_or("not found")?),
    };
    let bytes_of = |value: &Value, ty: Handle<Type>| -> Result<Vec<u8>, String> {
        match value {
            Value::Bytes(b) => Ok(b.clone()),
            Value::At(a) => {
                view.read(*a, size_of(ty)).ok_or_else(|| "invalid memory address".into())
            }
        }
    };
    // `*value` moved `subscript` elements on.
    let dereference = |value: &Value,
                       ty: Handle<Type>,
                       subscript: u64|
     -> Result<(Value, Handle<Type>), String> {
        let Some(TypeInner::Pointer { pointee, .. }) = types.get(ty) else {
            return Err("not a pointer type".to_string());
        };
        let bytes = bytes_of(value, ty)?;
        let mut word = [0u8; 8];
        let n = bytes.len().min(8);
        word[..n].copy_from_slice(&bytes[..n]);
        let size = size_of(*pointee);
        let address = u64::from_le_bytes(word).wrapping_add(subscript.wrapping_mul(size));
        if view.read(address, size.max(1)).is_none() {
            return Err("invalid memory address".to_string());
        }
        Ok((Value::At(address), *pointee))
    };
    while !rest.is_empty() {
        let member;
        if let Some(after) = rest.strip_prefix('.') {
            rest = after;
            member = true;
        } else if let Some(after) = rest.strip_prefix("->") {
            rest = after;
            (value, ty) = dereference(&value, ty, 0)?;
            member = true;
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or("missing ']'")?;
            let subscript: u64 =
                after[..end].trim().parse().map_err(|_| "invalid subscript index".to_string())?;
            rest = &after[end + 1..];
            member = false;
            if let Some(TypeInner::Array { element, len }) = types.get(ty) {
                if subscript >= u64::from(*len) {
                    return Err("invalid subscript index".to_string());
                }
                let offset = subscript * size_of(*element);
                value = match value {
                    Value::At(a) => Value::At(a + offset),
                    Value::Bytes(b) => Value::Bytes(
                        b.get(offset as usize..(offset + size_of(*element)) as usize)
                            .ok_or("invalid memory address")?
                            .to_vec(),
                    ),
                };
                ty = *element;
            } else {
                (value, ty) = dereference(&value, ty, subscript)?;
            }
        } else {
            return Err("invalid print expression".to_string());
        }
        if member {
            let split = rest.find(['.', '-', '[']).unwrap_or(rest.len());
            let (name, after) = rest.split_at(split);
            rest = after;
            let Some(TypeInner::Struct { members, .. }) = types.get(ty) else {
                return Err("not a composite type".to_string());
            };
            let found = members
                .iter()
                .find(|m| m.name == name)
                .ok_or_else(|| format!("no member named '{name}' found"))?;
            let offset = u64::from(found.offset);
            value = match value {
                Value::At(a) => Value::At(a + offset),
                Value::Bytes(b) => Value::Bytes(
                    b.get(offset as usize..(offset + size_of(found.ty)) as usize)
                        .ok_or("invalid memory address")?
                        .to_vec(),
                ),
            };
            ty = found.ty;
        }
    }
    for _ in 0..derefs {
        (value, ty) = dereference(&value, ty, 0)?;
    }
    let bytes = bytes_of(&value, ty)?;
    format_value(types, ty, &bytes).ok_or_else(|| "invalid memory address".to_string())
}

/// A value of type `ty` from its bytes, as Oclgrind prints it: numbers in decimal (floats as
/// C++ streams do, six significant digits), vectors as `(a,b)`, arrays as `{a,b}`, pointers
/// as `0x…` and structs as `(raw) 0x…`, their bytes in memory order.
fn format_value(types: &UniqueArena<Type>, ty: Handle<Type>, bytes: &[u8]) -> Option<String> {
    let size = clmap_lang::ir::size_of(types, ty) as usize;
    let bytes = bytes.get(..size)?;
    Some(match types.get(ty)? {
        TypeInner::Scalar(scalar) => format_scalar(*scalar, bytes)?,
        TypeInner::Vector { scalar, size: width } => {
            let step = scalar.size() as usize;
            let parts: Option<Vec<String>> = (0..width.width() as usize)
                .map(|i| format_scalar(*scalar, bytes.get(i * step..(i + 1) * step)?))
                .collect();
            format!("({})", parts?.join(","))
        }
        TypeInner::Pointer { .. } | TypeInner::Event => {
            format!("0x{:x}", u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?))
        }
        TypeInner::Array { element, len } => {
            let step = clmap_lang::ir::size_of(types, *element) as usize;
            let parts: Option<Vec<String>> = (0..*len as usize)
                .map(|i| format_value(types, *element, bytes.get(i * step..(i + 1) * step)?))
                .collect();
            format!("{{{}}}", parts?.join(","))
        }
        _ => {
            let mut text = String::from("(raw) 0x");
            for byte in bytes {
                let _ = write!(text, "{byte:02X}");
            }
            text
        }
    })
}

fn format_scalar(scalar: Scalar, bytes: &[u8]) -> Option<String> {
    let mut word = [0u8; 8];
    word.get_mut(..bytes.len())?.copy_from_slice(bytes);
    let raw = u64::from_le_bytes(word);
    Some(match scalar {
        Scalar::Float => crate::printf::format_general(f64::from(f32::from_bits(raw as u32))),
        Scalar::Double => crate::printf::format_general(f64::from_bits(raw)),
        Scalar::Half => {
            crate::printf::format_general(f64::from(crate::value::f16_bits_to_f32(raw as u16)))
        }
        Scalar::Bool => u8::from(raw != 0).to_string(),
        s if s.is_signed() => {
            let shift = 64 - 8 * s.size();
            (((raw << shift) as i64) >> shift).to_string()
        }
        _ => raw.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::DebugHook;
    use crate::{compile_kernel, compile_kernel_for_debugging, run_program, ArgValue};
    use crate::{NoObserver, SharedBuffer, SimOptions};
    use clmap_workload::NdRange;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    /// A helper, a loop, a switch, private and local arrays, a barrier and a branch only
    /// some work-items take: everything that gets a statement marker.
    const KERNEL: &str = "\
int twice(int x)
{
  return 2 * x;
}

kernel void k(global int *out)
{
  int i = get_global_id(0);
  int l = get_local_id(0);
  local int shared[4];
  int parts[3] = {1, 2, 3};
  int sum = 0;
  for (int j = 0; j < 3; j++)
    sum += parts[j] * twice(i);
  switch (i % 3)
  {
  case 0: sum += 1; break;
  default: sum -= 1;
  }
  if (i > 5)
    return;
  shared[l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = shared[3 - l];
}
";

    /// Output written to a buffer the test reads afterwards.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("captured output").extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Runs the kernel over 8 work-items in groups of 4, under the debugger with `commands`
    /// when given; the output buffer and what the debugger printed.
    fn run(commands: Option<&str>) -> (Vec<u8>, String) {
        let compiled = clmap_lang::frontend::compile_isolated(KERNEL, "").expect("compiles");
        let range = NdRange { global: [8, 1, 1], local: Some([4, 1, 1]), offset: [0; 3], dims: 1 };
        let out = SharedBuffer::zeroed("out", 32);
        let captured = Captured::default();
        let mut options = SimOptions { threads: 2, ..SimOptions::default() };
        let program = match commands {
            Some(commands) => {
                options.debugger = Some(DebugHook::new(
                    compiled.sources.clone(),
                    Box::new(std::io::Cursor::new(commands.to_string())),
                    Box::new(captured.clone()),
                    false,
                ));
                compile_kernel_for_debugging(&compiled.module, "k")
            }
            None => compile_kernel(&compiled.module, "k"),
        }
        .expect("compiles for the simulator");
        run_program(&program, &range, &[ArgValue::Buffer(out.clone())], &options, &|| NoObserver)
            .expect("runs");
        let text = String::from_utf8(captured.0.lock().expect("captured").clone()).expect("utf-8");
        (out.to_bytes(), text)
    }

    #[test]
    fn a_program_compiled_for_debugging_computes_what_the_plain_one_does() {
        let (plain, _) = run(None);
        assert_ne!(plain, vec![0; 32]);
        for commands in ["", "continue\n", "step\nstep\nnext\nstep\nquit\n", "break 14\nc\nc\nc\n"]
        {
            let (debugged, _) = run(Some(commands));
            assert_eq!(debugged, plain, "commands {commands:?}");
        }
    }

    #[test]
    fn step_enters_helpers_and_next_steps_over_them() {
        let (_, text) = run(Some("s\ns\ns\ns\ns\ns\ns\nbt\n"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "6\tkernel void k(global int *out)",
                "8\t  int i = get_global_id(0);",
                "9\t  int l = get_local_id(0);",
                "11\t  int parts[3] = {1, 2, 3};",
                "12\t  int sum = 0;",
                "13\t  for (int j = 0; j < 3; j++)",
                "14\t    sum += parts[j] * twice(i);",
                "In function twice(x=0) at line 1",
                "1\tint twice(int x)",
                "#1 twice(x=0) at line 1",
                "#0 k(out=0x10000000000) at line 14",
            ]
        );
        let (_, text) = run(Some("b 14\nc\nn\nn\nn\nn\nn\nprint sum parts j\n"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "6\tkernel void k(global int *out)",
                "Breakpoint 1 hit at line 14 by work-item (0,0,0)",
                "14\t    sum += parts[j] * twice(i);",
                "13\t  for (int j = 0; j < 3; j++)",
                "Breakpoint 1 hit at line 14 by work-item (0,0,0)",
                "14\t    sum += parts[j] * twice(i);",
                "13\t  for (int j = 0; j < 3; j++)",
                "Breakpoint 1 hit at line 14 by work-item (0,0,0)",
                "14\t    sum += parts[j] * twice(i);",
                "13\t  for (int j = 0; j < 3; j++)",
                "sum = 0",
                "parts = {1,2,3}",
                "j = 3",
            ]
        );
    }

    #[test]
    fn a_work_item_that_returned_early_has_finished_while_its_group_runs_on() {
        // The first group reaches the breakpoint first: its first work-item stops there.
        let (_, text) = run(Some("wi 6\nb 22\nc\nc\nwi 6\nwi 4\np sum l\n"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "6\tkernel void k(global int *out)",
                "Switched to work-item: (6,0,0)",
                "Its work-group has not started: 'step' runs to its first line.",
                "Breakpoint 1 hit at line 22 by work-item (0,0,0)",
                "22\t  shared[l] = sum;",
                // Work-items 6 and 7 returned: 4 is the second group's first at the line.
                "Breakpoint 1 hit at line 22 by work-item (4,0,0)",
                "22\t  shared[l] = sum;",
                "Switched to work-item: (6,0,0)",
                "Work-item has finished execution.",
                "Switched to work-item: (4,0,0)",
                "22\t  shared[l] = sum;",
                "sum = 47",
                "l = 0",
            ]
        );
    }
}
