//! Findings as people read them: compiler-style blocks with a source excerpt, or the layout
//! Oclgrind prints, so that scripts written for Oclgrind keep working. The CLI prints them
//! after a run and the OpenCL platform prints them as each launch ends.

use std::fmt::Write as _;

use clmap_lang::{Diagnostic, SourceMap};

use crate::report::Report;
use crate::workload::LaunchReport;

/// Findings rendered compiler-style, one block each, with the work-item that first hit them.
///
/// `numbered`: the run has several launches (a pipeline, a host program), so each finding
/// names its launch (counted from 1) and, for a repeated one, the repetition.
pub fn render_reports(sources: &SourceMap, reports: &[LaunchReport], numbered: bool) -> String {
    if reports.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for r in reports {
        let rep = &r.report;
        let mut message = format!("{}: {}", rep.kind.name(), rep.message);
        // A message that names the element (`a[3]`) names its object already.
        if let Some(object) =
            rep.object.as_ref().filter(|o| !rep.message.contains(&format!("`{o}[")))
        {
            let _ = write!(message, " (`{object}`)");
        }
        let [gx, gy, gz] = rep.global_id;
        let [lx, ly, lz] = rep.local_id;
        let [wx, wy, wz] = rep.group_id;
        let mut help = format!(
            "first seen at work-item ({gx},{gy},{gz}), local ({lx},{ly},{lz}), work-group ({wx},{wy},{wz}) of kernel `{}`",
            r.kernel
        );
        if numbered {
            let _ = write!(help, " in launch {}", r.launch + 1);
            if r.repetition > 0 {
                let _ = write!(help, " (repetition {})", r.repetition + 1);
            }
        }
        if rep.occurrences > 1 {
            let _ = write!(help, "; {} occurrences in this launch", rep.occurrences);
        }
        let diagnostic = if rep.kind.is_error() {
            Diagnostic::error(rep.span, message)
        } else {
            Diagnostic::warning(rep.span, message)
        };
        out.push_str(&diagnostic.with_help(help).render(sources));
    }
    out
}

/// Findings in the layout `oclgrind-kernel` prints on standard error. Oclgrind does not
/// report stores of the same value by several work-items, so neither does this.
pub fn oclgrind_errors(sources: &SourceMap, reports: &[LaunchReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let rep = &r.report;
        if rep.kind == crate::report::ReportKind::SameValueRace {
            continue;
        }
        let [gx, gy, gz] = rep.global_id;
        let [lx, ly, lz] = rep.local_id;
        let [wx, wy, wz] = rep.group_id;
        let _ = writeln!(out, "\n{}", oclgrind_headline(rep));
        let _ = writeln!(out, "\tKernel: {}", r.kernel);
        if let Some(entities) = &rep.entities {
            out.push_str("\t\n");
            for (title, entity) in
                [("First entity: ", &entities.first), ("Second entity:", &entities.second)]
            {
                oclgrind_entity(&mut out, sources, title, entity);
            }
            continue;
        }
        let _ = writeln!(
            out,
            "\tEntity: Global({gx},{gy},{gz}) Local({lx},{ly},{lz}) Group({wx},{wy},{wz})"
        );
        if let Some(file) = sources.get(rep.span.file) {
            let lc = file.line_col(rep.span.start);
            // Oclgrind compiles from a string and names it `input.cl` in every message.
            let _ = writeln!(out, "\tAt line {} (column {}) of input.cl:", lc.line, lc.col);
            let _ = writeln!(out, "\t  {}", file.line_text(lc.line).trim());
        }
        out.push('\t');
        out.push('\n');
    }
    out
}

/// One side of a race as Oclgrind prints it: who, then where (an async copy, made by the
/// work-group, has no place of its own).
fn oclgrind_entity(
    out: &mut String,
    sources: &SourceMap,
    title: &str,
    entity: &crate::report::RaceEntity,
) {
    let [wx, wy, wz] = entity.group_id;
    if entity.work_group {
        let _ = writeln!(out, "\t{title} Group({wx},{wy},{wz})\n\t(location unknown)\n\t");
        return;
    }
    let [gx, gy, gz] = entity.global_id;
    let [lx, ly, lz] = entity.local_id;
    let _ = writeln!(
        out,
        "\t{title} Global({gx},{gy},{gz}) Local({lx},{ly},{lz}) Group({wx},{wy},{wz})"
    );
    if let Some(file) = sources.get(entity.span.file) {
        let lc = file.line_col(entity.span.start);
        let text = file.line_text(lc.line);
        // Oclgrind's compiler places a store at its assignment operator.
        let col = if entity.store {
            assignment_column(text, lc.col as usize).unwrap_or(lc.col as usize)
        } else {
            lc.col as usize
        };
        let _ = writeln!(out, "\tAt line {} (column {col}) of input.cl:", lc.line);
        let _ = writeln!(out, "\t  {}", text.trim());
    }
    out.push_str("\t\n");
}

/// The column (counted from 1) of the first assignment operator (`=`, `+=`, `<<=`, …) at or
/// after column `from` of `line`, outside brackets.
fn assignment_column(line: &str, from: usize) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut depth = 0i32;
    for i in from.saturating_sub(1)..bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b';' if depth == 0 => return None,
            b'=' if depth == 0 => {
                let prev = |n: usize| i.checked_sub(n).and_then(|j| bytes.get(j)).copied();
                if bytes.get(i + 1) == Some(&b'=') {
                    return None;
                }
                return match prev(1) {
                    Some(b'<' | b'>') if prev(2) == prev(1) => Some(i - 1),
                    Some(b'=' | b'!' | b'<' | b'>') => None,
                    Some(b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^') => Some(i),
                    _ => Some(i + 1),
                };
            }
            _ => {}
        }
    }
    None
}

/// Oclgrind's first line for a finding, in its words and address layout (global buffer n,
/// counted from 1 in argument order, at `n << 48`; local and private memory at `1 << 48`):
/// `Invalid write of size 4 at global memory address …`, `Read-write data race at local
/// memory address …`, `Uninitialized value written to …`, `Controlflow depends on
/// uninitialized value`, `Work-group divergence detected (barrier)`. Other findings keep our
/// message.
fn oclgrind_headline(rep: &Report) -> String {
    use crate::report::ReportKind;
    let place = |access: &crate::report::InvalidAccess| {
        use crate::memory::Target;
        match access.target {
            Target::Buffer { index, offset } => ("global", ((index as u64 + 1) << 48) | offset),
            Target::Local { offset } => ("local", (1u64 << 48) | offset),
            Target::Private { offset, .. } => ("private", (1u64 << 48) | offset),
            Target::Invalid => ("global", 0),
        }
    };
    match (rep.kind, rep.access) {
        (ReportKind::OutOfBounds, Some(access)) => {
            let what = if access.store { "write" } else { "read" };
            let (space, address) = place(&access);
            format!("Invalid {what} of size {} at {space} memory address {address:#x}", access.size)
        }
        (ReportKind::DataRace, access) => {
            let write_write = rep.entities.as_ref().is_some_and(|e| e.write_write)
                || rep.message.starts_with("write after write")
                || rep.message.contains("stored to by several work-groups");
            let kind = if write_write { "Write-write" } else { "Read-write" };
            match access {
                Some(access) => {
                    let (space, address) = place(&access);
                    format!("{kind} data race at {space} memory address {address:#x}")
                }
                None => format!("{kind} data race"),
            }
        }
        (ReportKind::UninitialisedRead, Some(access)) if rep.message.starts_with("address") => {
            let what = if access.store { "write to" } else { "read from" };
            let (space, address) = place(&access);
            format!("Uninitialized address used to {what} {space} memory address {address:#x}")
        }
        (ReportKind::UninitialisedRead, Some(access)) => {
            let (space, address) = place(&access);
            format!("Uninitialized value written to {space} memory address {address:#x}")
        }
        (ReportKind::UninitialisedRead, None) => {
            "Controlflow depends on uninitialized value".to_string()
        }
        (ReportKind::BarrierDivergence, _) => {
            "Work-group divergence detected (barrier)".to_string()
        }
        (ReportKind::Misaligned, Some(access)) if access.store => {
            "Invalid memory store - destination pointer is not aligned to the pointed type"
                .to_string()
        }
        (ReportKind::Misaligned, _) => {
            "Invalid memory load - source pointer is not aligned to the pointed type".to_string()
        }
        (ReportKind::ForbiddenAccess, Some(access)) if access.store => {
            "Invalid write to read-only buffer".to_string()
        }
        (ReportKind::ForbiddenAccess, _) => "Invalid read from write-only buffer".to_string(),
        (ReportKind::MappedAccess, Some(access)) if access.store => {
            "Invalid write to mapped buffer".to_string()
        }
        (ReportKind::MappedAccess, _) => "Invalid read from buffer mapped for writing".to_string(),
        (ReportKind::AsyncCopy, _) if rep.message.starts_with("divergent") => {
            "Work-group divergence detected (async copy)".to_string()
        }
        (ReportKind::AsyncCopy, _) if rep.message.starts_with("wait") => {
            "Invalid wait event".to_string()
        }
        (ReportKind::AsyncCopy, _) => "Work-item finished without waiting for events".to_string(),
        _ => capitalise(&rep.message),
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
