//! Source lines: what `list` shows, and breakpoints on them.

use std::io::Write;

use super::{Session, Stop};

/// Source lines `list` shows at a time.
pub(super) const LIST_LENGTH: u32 = 10;

impl Session {
    pub(super) fn current_line(&self, stop: &Stop<'_, '_>) -> u32 {
        self.current_statement(stop)
            .and_then(|i| stop.debug.statements.get(i as usize))
            .map_or(0, |s| self.line_of(s.span))
    }

    pub(super) fn print_current_line(&mut self, stop: &Stop<'_, '_>) {
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

    pub(super) fn list(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
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

    pub(super) fn set_breakpoint(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
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

    pub(super) fn delete(&mut self, words: &[&str]) {
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
}
