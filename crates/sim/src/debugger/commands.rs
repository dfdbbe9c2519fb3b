//! The command loop at a stop, and the commands that show where the run is or move it on.

use std::fmt::Write as _;
use std::io::Write;

use super::print::{format_value, variable_bytes};
use super::source::LIST_LENGTH;
use super::{format_id, DebugInfo, GroupView, Mode, Selected, Session, Stop};

impl Session {
    /// Shows where the run stopped and reads commands until one resumes it.
    pub(super) fn stopped(
        &mut self,
        view: &GroupView<'_>,
        debug: &DebugInfo,
        statement: Option<u32>,
    ) {
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
            if let Some(prompt) = self.prompt {
                let _ = write!(self.out, "{prompt}");
            }
            let _ = self.out.flush();
            let mut line = String::new();
            let eof = !matches!(self.input.read_line(&mut line), Ok(n) if n > 0);
            if eof {
                if self.prompt.is_some() {
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
    pub(super) fn current_statement(&self, stop: &Stop<'_, '_>) -> Option<u32> {
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
    pub(super) fn scope_statement(&self, stop: &Stop<'_, '_>) -> Option<(usize, u32)> {
        let (group, lane) = self.group_and_lane(self.selected);
        if group != stop.view.group.group_index || lane >= stop.view.lanes {
            return None;
        }
        let index = self.current_statement(stop).or(self.last_statement.get(lane).copied()?)?;
        Some((lane, index))
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
            "continue" | "c" => {
                "Run on until a breakpoint is reached or the next kernel launch starts.".to_string()
            }
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
            "quit" | "q" => {
                "Leave the debugger: the run goes on to its end without stopping again.".to_string()
            }
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
}
