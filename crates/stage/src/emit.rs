//! The staged kernel as edits of the user's text: a cooperative load inserted at the top of
//! the kernel's body, and each read `B[index]` replaced by `B_tile[position]`. Everything
//! else stays byte for byte, so the diff shows only the staging.

use clmap_aristotle::detect::index_forms::{Affine, GlobalRead, IndexAtom};
use clmap_lang::edit::EditSet;
use clmap_lang::ir::Function;
use clmap_lang::{FileId, Refusal, Span};

use crate::tile::{TileBox, TileCell};

pub struct EmitInput<'a> {
    pub function: &'a Function,
    pub main: FileId,
    /// The main file's text.
    pub text: &'a str,
    pub buffer: &'a str,
    pub element_type: &'a str,
    /// Elements in the buffer: the cooperative load reads none outside.
    pub buffer_len: u64,
    pub local: [u64; 3],
    pub dims: u8,
    pub tile: &'a TileBox,
    pub reads: &'a [GlobalRead],
}

pub struct Emitted {
    pub text: String,
    pub tile_name: String,
}

pub fn emit(input: &EmitInput<'_>) -> Result<Emitted, Refusal> {
    let f = input.function;
    let text = input.text;
    if f.span.file != input.main {
        return Err(Refusal::new(
            "the kernel is defined in an included file or a macro: only the main file is edited",
            f.span,
        ));
    }
    let brace = text
        .get(f.span.start as usize..f.span.end as usize)
        .and_then(|t| t.find('{'))
        .map(|at| f.span.start as usize + at)
        .ok_or_else(|| Refusal::new("the kernel's body cannot be found in the text", f.span))?;
    let indent = body_indent(input, brace);
    let tile_name = fresh_name(text, &format!("{}_tile", input.buffer));
    let counter = fresh_name(text, &format!("{}_i", input.buffer));
    let global = fresh_name(text, &format!("{}_g", input.buffer));

    let mut edits = EditSet::new(input.main);
    let prologue = prologue(input, &indent, &tile_name, &counter, &global);
    let fail = |e: clmap_lang::edit::EditError, span: Span| {
        Refusal::new(format!("the source cannot be edited here: {e}"), span)
    };
    edits.insert_after(brace as u32 + 1, prologue).map_err(|e| fail(e, f.span))?;
    let mut done: Vec<Span> = Vec::new();
    for (read, cell) in input.reads.iter().zip(&input.tile.cells) {
        let span = read.span;
        if done.contains(&span) {
            return Err(Refusal::new(
                "several reads of the buffer come from this text (a macro?): write each as \
                 `buffer[index]` to stage them",
                span,
            ));
        }
        let spelled = text.get(span.range()).unwrap_or("");
        let plain = span.file == input.main
            && spelled
                .strip_prefix(input.buffer)
                .is_some_and(|rest| rest.trim_start().starts_with('['))
            && spelled.ends_with(']');
        if !plain {
            return Err(Refusal::new(
                format!(
                    "this read of `{}` is not spelled `{}[index]` here (a macro or an included \
                     file wrote it), so it cannot be redirected to the tile",
                    input.buffer, input.buffer
                ),
                span,
            ));
        }
        let replacement = format!("{tile_name}[{}]", cell_text(f, cell, input.tile));
        edits.replace(span, replacement).map_err(|e| fail(e, span))?;
        done.push(span);
    }
    let text = edits.try_apply(text).map_err(|e| fail(e, f.span))?;
    Ok(Emitted { text, tile_name })
}

/// The indentation of the body's first statement (four spaces when it has none on its line).
fn body_indent(input: &EmitInput<'_>, brace: usize) -> String {
    let first = input.function.body.spans.iter().find(|s| s.file == input.main);
    let start = first.map_or(brace + 1, |s| s.start as usize);
    let line_start = input.text[..start.min(input.text.len())].rfind('\n').map_or(0, |n| n + 1);
    let leading: String =
        input.text[line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    if leading.is_empty() || line_start <= brace {
        "    ".to_string()
    } else {
        leading
    }
}

/// `wanted`, or `wanted_2`, … : a name the text does not use.
fn fresh_name(text: &str, wanted: &str) -> String {
    let used = |name: &str| {
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !ident(before) && !ident(after)
        })
    };
    if !used(wanted) {
        return wanted.to_string();
    }
    (2..).map(|k| format!("{wanted}_{k}")).find(|n| !used(n)).unwrap_or_default()
}

fn prologue(input: &EmitInput<'_>, indent: &str, tile: &str, i: &str, g: &str) -> String {
    let t = input.tile;
    let [lx, ly, lz] = input.local;
    let linear = match input.dims {
        0 | 1 => "get_local_id(0)".to_string(),
        2 => format!("get_local_id(1) * {lx} + get_local_id(0)"),
        _ => format!("(get_local_id(2) * {ly} + get_local_id(1)) * {lx} + get_local_id(0)"),
    };
    let items = lx.max(1) * ly.max(1) * lz.max(1);
    let size =
        if t.rows == 1 { t.columns.to_string() } else { format!("{} * {}", t.rows, t.columns) };
    let mut origin: Vec<String> = t
        .group
        .iter()
        .rev()
        .map(|(d, c)| match c {
            1 => format!("(long)get_group_id({d})"),
            c => format!("{c}L * (long)get_group_id({d})"),
        })
        .collect();
    if t.base != 0 || origin.is_empty() {
        origin.push(format!("{}L", t.base));
    }
    let within = if t.width == 0 || t.columns == t.width as u64 {
        i.to_string()
    } else {
        format!("(long)({i} / {c}) * {w} + {i} % {c}", c = t.columns, w = t.width)
    };
    origin.push(within);
    let g_value = origin.join(" + ").replace("+ -", "- ");
    let view = if t.width == 0 {
        format!("{} elements from {}", t.columns, t.origin_text())
    } else {
        format!(
            "{} x {} elements of rows of {} from {}",
            t.rows,
            t.columns,
            t.width,
            t.origin_text()
        )
    };
    let b = input.buffer;
    let len = input.buffer_len;
    let ty = input.element_type;
    format!(
        "\n{indent}// The work-group's footprint of `{b}` ({view}), staged in local memory.\n\
         {indent}__local {ty} {tile}[{size}];\n\
         {indent}for (int {i} = (int)({linear}); {i} < {size}; {i} += {items}) {{\n\
         {indent}{indent}const long {g} = {g_value};\n\
         {indent}{indent}if ({g} >= 0 && {g} < {len})\n\
         {indent}{indent}{indent}{tile}[{i}] = {b}[{g}];\n\
         {indent}}}\n\
         {indent}barrier(CLK_LOCAL_MEM_FENCE);\n"
    )
}

/// A read's element of the tile, `row * columns + column`, each part written as the original
/// index writes its own (`(y + dy) * w + x + dx` becomes `(ly + dy + 2) * 20 + lx + dx + 2`).
fn cell_text(f: &Function, cell: &TileCell, tile: &TileBox) -> String {
    let column = affine_text(f, &cell.column);
    if tile.rows == 1 || cell.row == Affine::constant(0) {
        return column;
    }
    let row = affine_text(f, &cell.row);
    let row = if cell.row.terms.len() + usize::from(cell.row.constant != 0) > 1 {
        format!("({row})")
    } else {
        row
    };
    let row = format!("{row} * {}", tile.columns);
    match column.strip_prefix('-') {
        _ if cell.column == Affine::constant(0) => row,
        Some(negated) => format!("{row} - {negated}"),
        None => format!("{row} + {column}"),
    }
}

/// An affine form as OpenCL C: local ids (y before x), loop counters, then the constant.
fn affine_text(f: &Function, position: &Affine) -> String {
    let mut terms: Vec<(IndexAtom, i64)> = position.terms.iter().map(|(a, c)| (*a, *c)).collect();
    terms.sort_by_key(|(a, _)| match a {
        IndexAtom::LocalId(d) => (0, 2 - i64::from(*d)),
        IndexAtom::Loop(_) => (1, 0),
        IndexAtom::GroupId(d) => (2, i64::from(*d)),
    });
    let mut out = String::new();
    for (atom, c) in terms {
        let name = match atom {
            IndexAtom::LocalId(d) => format!("get_local_id({d})"),
            IndexAtom::Loop(v) => f.locals.get(v).map_or_else(|| "?".into(), |l| l.name.clone()),
            IndexAtom::GroupId(d) => format!("get_group_id({d})"),
        };
        let magnitude = c.unsigned_abs();
        let term = if magnitude == 1 { name } else { format!("{name} * {magnitude}") };
        if out.is_empty() {
            if c < 0 {
                out.push('-');
            }
        } else {
            out.push_str(if c < 0 { " - " } else { " + " });
        }
        out.push_str(&term);
    }
    let k = position.constant;
    if out.is_empty() {
        return k.to_string();
    }
    if k != 0 {
        out.push_str(&format!(" {} {}", if k < 0 { "-" } else { "+" }, k.unsigned_abs()));
    }
    out
}
