//! The TOML workload format (`docs/workloads.md`): raw serde tables, then normalisation into
//! the [`Workload`] model with errors that point at the offending key.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::error::{Location, WorkloadError};
use crate::init::Init;
use crate::model::{Access, Buffer, Launch, LaunchArg, LoadOptions, NdRange, Tolerance, Workload};
use crate::number::Number;
use crate::types::{valid_type_names, ElemType};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    source: Spanned<String>,
    #[serde(default)]
    options: String,
    bytes_moved: Option<u64>,
    outputs: Option<Spanned<Vec<String>>>,
    // Single launch.
    kernel: Option<Spanned<String>>,
    global: Option<Spanned<Vec<u64>>>,
    local: Option<Spanned<Vec<u64>>>,
    offset: Option<Spanned<Vec<u64>>>,
    #[serde(default)]
    arg: Vec<Spanned<RawArg>>,
    // Pipeline.
    buffers: Option<Spanned<BTreeMap<String, Spanned<RawBuffer>>>>,
    #[serde(default)]
    launch: Vec<Spanned<RawLaunch>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArg {
    name: String,
    buffer: Option<Spanned<String>>,
    scalar: Option<Spanned<String>>,
    local: Option<Spanned<String>>,
    null: Option<bool>,
    len: Option<u64>,
    init: Option<Spanned<toml::Value>>,
    output: Option<bool>,
    access: Option<Spanned<String>>,
    tolerance: Option<RawTolerance>,
    value: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuffer {
    #[serde(rename = "type")]
    ty: Spanned<String>,
    len: u64,
    init: Option<Spanned<toml::Value>>,
    output: Option<bool>,
    access: Option<Spanned<String>>,
    tolerance: Option<RawTolerance>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaunch {
    kernel: String,
    global: Spanned<Vec<u64>>,
    local: Option<Spanned<Vec<u64>>>,
    offset: Option<Spanned<Vec<u64>>>,
    #[serde(default)]
    args: Vec<Spanned<toml::Value>>,
    repeat: Option<Spanned<i64>>,
    swap: Option<Spanned<toml::Value>>,
    /// A top-level `outputs = [...]` written after a `[[launch]]` table belongs, in TOML, to
    /// that launch; it is accepted there and means the same as at the top.
    outputs: Option<Spanned<Vec<String>>>,
}

/// An argument written inline in a launch's `args` list.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInlineArg {
    name: Option<String>,
    scalar: Option<String>,
    value: Option<toml::Value>,
    local: Option<String>,
    len: Option<u64>,
    null: Option<bool>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct RawTolerance {
    #[serde(default)]
    rel: f64,
    #[serde(default)]
    abs: f64,
}

/// Carries the file name and text so every error can be located.
struct Ctx<'a> {
    file: Option<PathBuf>,
    text: &'a str,
    base_dir: &'a Path,
}

impl Ctx<'_> {
    fn at(&self, span: Range<usize>) -> Location {
        Location::at_offset(self.file.clone(), self.text, span.start)
    }

    fn invalid(&self, span: Range<usize>, message: impl Into<String>) -> WorkloadError {
        WorkloadError::Invalid { location: self.at(span), message: message.into() }
    }

    fn elem(&self, name: &Spanned<String>) -> Result<ElemType, WorkloadError> {
        ElemType::parse(name.get_ref()).ok_or_else(|| {
            self.invalid(
                name.span(),
                format!(
                    "unknown element type `{}`; expected {}",
                    name.get_ref(),
                    valid_type_names()
                ),
            )
        })
    }

    /// `init` is a string of the init language, or an array with one number per component.
    fn init(&self, init: Option<&Spanned<toml::Value>>) -> Result<Init, WorkloadError> {
        let Some(init) = init else { return Ok(Init::Zero) };
        match init.get_ref() {
            toml::Value::String(text) => Init::parse(text, self.base_dir)
                .map_err(|message| self.invalid(init.span(), message)),
            toml::Value::Array(values) => values
                .iter()
                .map(number)
                .collect::<Result<Vec<_>, _>>()
                .map(Init::Values)
                .map_err(|message| self.invalid(init.span(), message)),
            other => Err(self.invalid(
                init.span(),
                format!(
                    "`init` must be a string ({}) or an array of numbers, not a {}",
                    crate::init::INIT_SYNTAX,
                    other.type_str()
                ),
            )),
        }
    }

    fn access(&self, access: Option<&Spanned<String>>) -> Result<Access, WorkloadError> {
        let Some(access) = access else { return Ok(Access::ReadWrite) };
        match access.get_ref().as_str() {
            "read_write" => Ok(Access::ReadWrite),
            "read_only" => Ok(Access::ReadOnly),
            "write_only" => Ok(Access::WriteOnly),
            other => Err(self.invalid(
                access.span(),
                format!("unknown access `{other}`; expected read_write, read_only or write_only"),
            )),
        }
    }

    fn range(
        &self,
        global: &Spanned<Vec<u64>>,
        local: Option<&Spanned<Vec<u64>>>,
        offset: Option<&Spanned<Vec<u64>>>,
    ) -> Result<NdRange, WorkloadError> {
        let dims = global.get_ref().len();
        if !(1..=3).contains(&dims) {
            return Err(self.invalid(
                global.span(),
                format!("`global` has {dims} dimensions; OpenCL allows 1 to 3"),
            ));
        }
        let widen = |key: &str, v: &Spanned<Vec<u64>>| -> Result<[u64; 3], WorkloadError> {
            if v.get_ref().len() != dims {
                return Err(self.invalid(
                    v.span(),
                    format!("`{key}` has {} dimensions but `global` has {dims}", v.get_ref().len()),
                ));
            }
            let mut out = [1u64; 3];
            for (slot, value) in out.iter_mut().zip(v.get_ref()) {
                *slot = *value;
            }
            Ok(out)
        };
        let range = NdRange {
            global: widen("global", global)?,
            local: local.map(|l| widen("local", l)).transpose()?,
            offset: match offset {
                Some(o) => {
                    let mut o3 = widen("offset", o)?;
                    for slot in o3.iter_mut().skip(dims) {
                        *slot = 0;
                    }
                    o3
                }
                None => [0; 3],
            },
            dims: dims as u8,
        };
        let span = local.map_or_else(|| global.span(), |l| l.span());
        range.validate().map_err(|message| self.invalid(span, message))?;
        Ok(range)
    }
}

/// A TOML number, or a string holding one (TOML integers stop at i64; a string such as
/// `"0xffffffffffffffff"` reaches the rest of `ulong`).
fn number(raw: &toml::Value) -> Result<Number, String> {
    match raw {
        toml::Value::Integer(i) => Ok(Number::Int(i128::from(*i))),
        toml::Value::Float(f) => Ok(Number::Float(*f)),
        toml::Value::String(t) => Number::parse(t).ok_or_else(|| format!("`{t}` is not a number")),
        other => Err(format!("expected a number, found a {}", other.type_str())),
    }
}

/// Scalar values: one number per component; a single number is broadcast to every component
/// of a vector, as OpenCL C converts a scalar to a vector.
fn scalar_values(ty: ElemType, value: Option<&toml::Value>) -> Result<Vec<Number>, String> {
    let value = value.ok_or_else(|| format!("a {ty} scalar needs `value`"))?;
    match value {
        toml::Value::Array(list) => {
            if list.len() != usize::from(ty.width) {
                return Err(format!("{ty} needs {} values, {} given", ty.width, list.len()));
            }
            list.iter().map(number).collect()
        }
        one => Ok(vec![number(one)?; usize::from(ty.width)]),
    }
}

fn tolerance(raw: Option<RawTolerance>) -> Option<Tolerance> {
    raw.map(|t| Tolerance { rel: t.rel, abs: t.abs })
}

/// Parses TOML workload text; relative paths are resolved against `base_dir`.
pub(crate) fn parse(
    text: &str,
    base_dir: &Path,
    file: Option<PathBuf>,
    options: &LoadOptions,
) -> Result<Workload, WorkloadError> {
    let ctx = Ctx { file: file.clone(), text, base_dir };
    let raw: RawFile = toml::from_str(text).map_err(|e| WorkloadError::Syntax {
        location: match e.span() {
            Some(span) => ctx.at(span),
            None => Location::file(file.clone()),
        },
        message: e.message().trim().to_string(),
    })?;

    let source_path = base_dir.join(raw.source.get_ref());
    let source =
        std::fs::read_to_string(&source_path).map_err(|source| WorkloadError::MissingSource {
            location: ctx.at(raw.source.span()),
            path: source_path.clone(),
            source,
        })?;

    let mut buffers = Vec::new();
    let launches = if raw.launch.is_empty() {
        vec![single_launch(&ctx, &raw, &mut buffers)?]
    } else {
        pipeline(&ctx, &raw, &mut buffers)?
    };

    let mut outputs: Vec<String> = Vec::new();
    let lists =
        raw.outputs.iter().chain(raw.launch.iter().filter_map(|l| l.get_ref().outputs.as_ref()));
    for list in lists {
        for name in list.get_ref() {
            if !buffers.iter().any(|b| &b.name == name) {
                return Err(ctx.invalid(list.span(), format!("output `{name}` is not a buffer")));
            }
            if !outputs.contains(name) {
                outputs.push(name.clone());
            }
        }
    }
    for b in &mut buffers {
        if outputs.contains(&b.name) {
            b.output = true;
        } else if b.output {
            outputs.push(b.name.clone());
        }
    }

    let workload = Workload {
        path: file.clone(),
        source_path,
        source,
        options: raw.options.clone(),
        buffers,
        launches,
        outputs,
        bytes_moved: raw.bytes_moved,
    };
    workload.validate(options).map_err(|e| crate::with_file(e, file))?;
    Ok(workload)
}

fn single_launch(
    ctx: &Ctx<'_>,
    raw: &RawFile,
    buffers: &mut Vec<Buffer>,
) -> Result<Launch, WorkloadError> {
    if let Some(b) = &raw.buffers {
        return Err(
            ctx.invalid(b.span(), "`[buffers]` belongs to pipelines: add `[[launch]]` tables")
        );
    }
    let kernel = raw.kernel.as_ref().ok_or_else(|| {
        ctx.invalid(0..0, "missing `kernel` (a single launch) or `[[launch]]` tables (a pipeline)")
    })?;
    let global = raw
        .global
        .as_ref()
        .ok_or_else(|| ctx.invalid(kernel.span(), "missing `global` (the NDRange size)"))?;
    let range = ctx.range(global, raw.local.as_ref(), raw.offset.as_ref())?;
    let mut args = Vec::new();
    for arg in &raw.arg {
        let span = arg.span();
        let arg = arg.get_ref();
        if buffers.iter().any(|b| b.name == arg.name)
            || args.iter().any(|a: &LaunchArg| a.name() == arg.name)
        {
            return Err(ctx.invalid(span, format!("argument name `{}` is used twice", arg.name)));
        }
        let kinds =
            [arg.buffer.is_some(), arg.scalar.is_some(), arg.local.is_some(), arg.null.is_some()];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(ctx.invalid(
                span,
                format!(
                    "argument `{}` needs exactly one of `buffer`, `scalar`, `local` or `null`",
                    arg.name
                ),
            ));
        }
        let not_for = |key: &str, present: bool, kind: &str| -> Result<(), WorkloadError> {
            if present {
                Err(ctx.invalid(
                    span.clone(),
                    format!("`{key}` is not valid on a {kind} argument (`{}`)", arg.name),
                ))
            } else {
                Ok(())
            }
        };
        if let Some(ty) = &arg.buffer {
            not_for("value", arg.value.is_some(), "buffer")?;
            let elem = ctx.elem(ty)?;
            let len = arg.len.ok_or_else(|| {
                ctx.invalid(span.clone(), format!("buffer `{}` needs `len`", arg.name))
            })?;
            buffers.push(Buffer {
                name: arg.name.clone(),
                elem,
                len,
                init: ctx.init(arg.init.as_ref())?,
                access: ctx.access(arg.access.as_ref())?,
                output: arg.output.unwrap_or(false),
                tolerance: tolerance(arg.tolerance),
                hex_dump: false,
            });
            args.push(LaunchArg::Buffer { buffer: arg.name.clone() });
            continue;
        }
        for (key, present) in [
            ("init", arg.init.is_some()),
            ("output", arg.output.is_some()),
            ("access", arg.access.is_some()),
            ("tolerance", arg.tolerance.is_some()),
        ] {
            not_for(key, present, "non-buffer")?;
        }
        if let Some(ty) = &arg.scalar {
            not_for("len", arg.len.is_some(), "scalar")?;
            let ty = ctx.elem(ty)?;
            let value_span = arg.value.as_ref().map_or(span.clone(), |v| v.span());
            let value = scalar_values(ty, arg.value.as_ref().map(|v| v.get_ref()))
                .map_err(|m| ctx.invalid(value_span, format!("scalar `{}`: {m}", arg.name)))?;
            args.push(LaunchArg::Scalar { name: arg.name.clone(), ty, value });
        } else if let Some(ty) = &arg.local {
            not_for("value", arg.value.is_some(), "local")?;
            let elem = ctx.elem(ty)?;
            let len = arg.len.ok_or_else(|| {
                ctx.invalid(span.clone(), format!("local `{}` needs `len`", arg.name))
            })?;
            args.push(LaunchArg::Local { name: arg.name.clone(), elem, len });
        } else {
            not_for("value", arg.value.is_some(), "null")?;
            not_for("len", arg.len.is_some(), "null")?;
            if arg.null != Some(true) {
                return Err(ctx.invalid(span, "`null` may only be `true`"));
            }
            args.push(LaunchArg::Null { name: arg.name.clone() });
        }
    }
    Ok(Launch { kernel: kernel.get_ref().clone(), range, args, repeat: 1, swap: Vec::new() })
}

fn pipeline(
    ctx: &Ctx<'_>,
    raw: &RawFile,
    buffers: &mut Vec<Buffer>,
) -> Result<Vec<Launch>, WorkloadError> {
    for (present, key, span) in [
        (raw.kernel.is_some(), "kernel", raw.kernel.as_ref().map(|k| k.span())),
        (raw.global.is_some(), "global", raw.global.as_ref().map(|k| k.span())),
        (raw.local.is_some(), "local", raw.local.as_ref().map(|k| k.span())),
        (raw.offset.is_some(), "offset", raw.offset.as_ref().map(|k| k.span())),
        (!raw.arg.is_empty(), "arg", raw.arg.first().map(|a| a.span())),
    ] {
        if present {
            return Err(ctx.invalid(
                span.unwrap_or(0..0),
                format!(
                    "top-level `{key}` cannot be combined with `[[launch]]`: move it into a launch"
                ),
            ));
        }
    }
    if let Some(table) = &raw.buffers {
        for (name, b) in table.get_ref() {
            let span = b.span();
            let b = b.get_ref();
            buffers.push(Buffer {
                name: name.clone(),
                elem: ctx.elem(&b.ty)?,
                len: b.len,
                init: ctx.init(b.init.as_ref())?,
                access: ctx.access(b.access.as_ref())?,
                output: b.output.unwrap_or(false),
                tolerance: tolerance(b.tolerance),
                hex_dump: false,
            });
            if b.len == 0 {
                return Err(ctx.invalid(span, format!("buffer `{name}` has zero elements")));
            }
        }
    }
    let mut launches = Vec::new();
    for (index, launch) in raw.launch.iter().enumerate() {
        let span = launch.span();
        let l = launch.get_ref();
        let range = ctx.range(&l.global, l.local.as_ref(), l.offset.as_ref())?;
        let mut args = Vec::new();
        for (position, arg) in l.args.iter().enumerate() {
            args.push(inline_arg(ctx, buffers, arg, position)?);
        }
        let repeat = match &l.repeat {
            None => 1,
            Some(r) => u32::try_from(*r.get_ref()).ok().filter(|n| *n >= 1).ok_or_else(|| {
                ctx.invalid(r.span(), "`repeat` must be a whole number from 1 to 2^32-1")
            })?,
        };
        let swap = match &l.swap {
            None => Vec::new(),
            Some(s) => swap_pairs(s.get_ref()).ok_or_else(|| {
                ctx.invalid(s.span(), "`swap` must be a pair of buffer names, or a list of pairs")
            })?,
        };
        for (a, b) in &swap {
            for name in [a, b] {
                if !buffers.iter().any(|buf| &buf.name == name) {
                    let at = l.swap.as_ref().map_or(span.clone(), |s| s.span());
                    return Err(ctx.invalid(at, format!("swap names unknown buffer `{name}`")));
                }
            }
        }
        if l.kernel.is_empty() {
            return Err(ctx.invalid(span, format!("launch {} has an empty kernel name", index + 1)));
        }
        launches.push(Launch { kernel: l.kernel.clone(), range, args, repeat, swap });
    }
    Ok(launches)
}

fn swap_pairs(value: &toml::Value) -> Option<Vec<(String, String)>> {
    let list = value.as_array()?;
    let as_pair = |v: &toml::Value| -> Option<(String, String)> {
        match v.as_array()?.as_slice() {
            [a, b] => Some((a.as_str()?.to_string(), b.as_str()?.to_string())),
            _ => None,
        }
    };
    if list.iter().all(|v| v.is_str()) {
        return as_pair(value).map(|p| vec![p]);
    }
    list.iter().map(as_pair).collect()
}

fn inline_arg(
    ctx: &Ctx<'_>,
    buffers: &[Buffer],
    arg: &Spanned<toml::Value>,
    position: usize,
) -> Result<LaunchArg, WorkloadError> {
    let span = arg.span();
    if let Some(name) = arg.get_ref().as_str() {
        if !buffers.iter().any(|b| b.name == name) {
            return Err(
                ctx.invalid(span, format!("argument {position} names unknown buffer `{name}`"))
            );
        }
        return Ok(LaunchArg::Buffer { buffer: name.to_string() });
    }
    let inline: RawInlineArg = arg.get_ref().clone().try_into().map_err(|e: toml::de::Error| {
        ctx.invalid(
            span.clone(),
            format!(
                "argument {position}: {} (expected a buffer name or an inline table)",
                e.message().trim()
            ),
        )
    })?;
    let name = inline.name.clone().unwrap_or_else(|| format!("arg{position}"));
    let spanned = |s: &String| Spanned::new(span.clone(), s.clone());
    match (&inline.scalar, &inline.local, inline.null) {
        (Some(ty), None, None) if inline.len.is_none() => {
            let ty = ctx.elem(&spanned(ty))?;
            let value = scalar_values(ty, inline.value.as_ref())
                .map_err(|m| ctx.invalid(span.clone(), format!("argument {position}: {m}")))?;
            Ok(LaunchArg::Scalar { name, ty, value })
        }
        (None, Some(ty), None) if inline.value.is_none() => {
            let elem = ctx.elem(&spanned(ty))?;
            let len = inline.len.ok_or_else(|| {
                ctx.invalid(span.clone(), format!("argument {position}: local needs `len`"))
            })?;
            Ok(LaunchArg::Local { name, elem, len })
        }
        (None, None, Some(true)) if inline.value.is_none() && inline.len.is_none() => {
            Ok(LaunchArg::Null { name })
        }
        _ => Err(ctx.invalid(
            span,
            format!(
                "argument {position}: expected a buffer name, {{ scalar = TYPE, value = V }}, \
                 {{ local = TYPE, len = N }} or {{ null = true }}"
            ),
        )),
    }
}
