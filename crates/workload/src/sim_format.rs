//! Oclgrind's `.sim` files (`oclgrind-kernel FILE.sim`): the kernel file, the kernel name,
//! three global sizes, three work-group sizes, then one `<...>` description per kernel
//! argument, optionally followed by its values. `#` starts a comment.

use std::path::{Path, PathBuf};

use crate::error::{Location, WorkloadError};
use crate::init::Init;
use crate::model::{Access, Buffer, Launch, LaunchArg, LoadOptions, NdRange, Workload};
use crate::number::Number;
use crate::signature::{
    check_kernel_params, no_such_kernel, KernelParam, ParamSpace, SignatureSource,
};
use crate::types::{ElemType, ScalarType};

/// Reads whitespace-separated tokens across lines, remembering positions for errors.
struct Cursor<'a> {
    lines: Vec<&'a str>,
    line: usize,
    column: usize,
    file: Option<PathBuf>,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str, file: Option<PathBuf>) -> Cursor<'a> {
        let lines = text
            .lines()
            .map(|line| match line.find('#') {
                Some(comment) => line.get(..comment).unwrap_or(""),
                None => line,
            })
            .collect();
        Cursor { lines, line: 0, column: 0, file }
    }

    fn location(&self) -> Location {
        Location {
            file: self.file.clone(),
            line: Some(self.line + 1),
            column: Some(self.column + 1),
        }
    }

    fn error(&self, message: impl Into<String>) -> WorkloadError {
        WorkloadError::Syntax { location: self.location(), message: message.into() }
    }

    fn rest_of_line(&self) -> &'a str {
        self.lines.get(self.line).and_then(|l| l.get(self.column..)).unwrap_or("")
    }

    /// Moves to the next non-whitespace byte; false at the end of the file.
    fn skip_whitespace(&mut self) -> bool {
        loop {
            let rest = self.rest_of_line();
            let trimmed = rest.trim_start();
            if !trimmed.is_empty() {
                self.column += rest.len() - trimmed.len();
                return true;
            }
            if self.line + 1 >= self.lines.len() {
                self.column += rest.len();
                return false;
            }
            self.line += 1;
            self.column = 0;
        }
    }

    fn token(&mut self, what: &str) -> Result<&'a str, WorkloadError> {
        if !self.skip_whitespace() {
            return Err(self.error(format!("unexpected end of file while reading {what}")));
        }
        let rest = self.rest_of_line();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.column += end;
        Ok(rest.get(..end).unwrap_or(""))
    }

    fn size(&mut self, what: &str) -> Result<u64, WorkloadError> {
        let at = self.location();
        let token = self.token(what)?;
        token.parse::<u64>().map_err(|_| WorkloadError::Syntax {
            location: at,
            message: format!("expected a whole number for {what}, found `{token}`"),
        })
    }

    /// Reads an argument header: `<` then everything up to the next `>` on that line.
    /// (Oclgrind stops at the last `>` of the line; the two agree on every file Oclgrind
    /// accepts, and stopping at the first also allows several headers on one line.)
    fn header(&mut self, what: &str) -> Result<(&'a str, Location), WorkloadError> {
        if !self.skip_whitespace() {
            return Err(self.error(format!("unexpected end of file: {what} needs a <...> header")));
        }
        let at = self.location();
        let rest = self.rest_of_line();
        let Some(body) = rest.strip_prefix('<') else {
            return Err(self.error(format!("expected an argument header <...> for {what}")));
        };
        let Some(end) = body.find('>') else {
            return Err(self.error("missing `>` at the end of the argument header"));
        };
        self.column += 1 + end + 1;
        Ok((body.get(..end).unwrap_or(""), at))
    }
}

/// What an argument header says.
#[derive(Default)]
struct Header<'a> {
    size: Option<u64>,
    ty: Option<ScalarType>,
    dump: bool,
    hex: bool,
    noinit: bool,
    null: bool,
    local: bool,
    access: Option<Access>,
    fill: Option<&'a str>,
    range: Option<&'a str>,
}

fn parse_header<'a>(text: &'a str, at: &Location) -> Result<Header<'a>, WorkloadError> {
    let fail = |message: String| WorkloadError::Syntax { location: at.clone(), message };
    let mut h = Header::default();
    for token in text.split_whitespace() {
        if let Some(ty) = sim_type(token) {
            if h.ty.replace(ty).is_some() {
                return Err(fail("argument type given twice".into()));
            }
            continue;
        }
        match token {
            "dump" => h.dump = true,
            "hex" => h.hex = true,
            "noinit" => h.noinit = true,
            "null" => h.null = true,
            "local" => h.local = true,
            "ro" | "wo" => {
                let access = if token == "ro" { Access::ReadOnly } else { Access::WriteOnly };
                if h.access.is_some_and(|a| a != access) {
                    return Err(fail("`ro` and `wo` are mutually exclusive".into()));
                }
                h.access = Some(access);
            }
            _ => {
                if let Some(value) = token.strip_prefix("size=") {
                    let size = value
                        .parse::<u64>()
                        .map_err(|_| fail(format!("invalid value for `size`: `{value}`")))?;
                    h.size = Some(size);
                } else if let Some(value) = token.strip_prefix("fill=") {
                    h.fill = Some(value).filter(|v| !v.is_empty());
                    if h.fill.is_none() {
                        return Err(fail("expected =VALUE after `fill`".into()));
                    }
                } else if let Some(value) = token.strip_prefix("range=") {
                    h.range = Some(value).filter(|v| !v.is_empty());
                    if h.range.is_none() {
                        return Err(fail("expected =START:INC:END after `range`".into()));
                    }
                } else {
                    return Err(fail(format!(
                        "unrecognised header token `{token}`; expected size=N, a type (char, \
                         uchar, short, ushort, int, uint, long, ulong, float, double), fill=V, \
                         range=START:INC:END, noinit, dump, hex, ro, wo, null or local"
                    )));
                }
            }
        }
    }
    let initialisers = [h.noinit, h.fill.is_some(), h.range.is_some()];
    if initialisers.iter().filter(|x| **x).count() > 1 {
        return Err(fail("multiple initialisers present".into()));
    }
    if h.null && (h.size.is_some() || h.fill.is_some() || h.range.is_some() || h.noinit || h.dump) {
        return Err(fail("`null` is not valid with other argument descriptors".into()));
    }
    if !h.null && h.size.is_none() {
        return Err(fail("`size=N` is required".into()));
    }
    Ok(h)
}

/// Type names Oclgrind accepts in a header (plus `half`, which it lacks).
fn sim_type(token: &str) -> Option<ScalarType> {
    match token {
        "char" | "uchar" | "short" | "ushort" | "int" | "uint" | "long" | "ulong" | "half"
        | "float" | "double" => ScalarType::parse(token),
        _ => None,
    }
}

/// Parses one value in the number format of the argument (hexadecimal after `hex`).
fn parse_value(token: &str, ty: ScalarType, hex: bool) -> Option<Number> {
    if hex && !ty.is_float() {
        let (negative, digits) = match token.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, token),
        };
        let digits =
            digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")).unwrap_or(digits);
        if digits.is_empty() || digits.len() > 32 {
            return None;
        }
        let value = i128::try_from(u128::from_str_radix(digits, 16).ok()?).ok()?;
        return Some(Number::Int(if negative { -value } else { value }));
    }
    Number::parse(token)
}

fn default_type(param: &KernelParam) -> Option<ScalarType> {
    if param.type_name.split_whitespace().any(|w| w == "void") {
        // Oclgrind treats `void *` buffers as bytes.
        return Some(ScalarType::UChar);
    }
    param.elem_type().map(|t| t.scalar)
}

/// Parses `.sim` text. The kernel's parameters come from `signatures`, which compiles the
/// kernel file the `.sim` names; the arguments are then checked against them.
pub(crate) fn parse(
    text: &str,
    base_dir: &Path,
    file: Option<PathBuf>,
    signatures: &mut dyn SignatureSource,
    options: &LoadOptions,
) -> Result<Workload, WorkloadError> {
    let mut cursor = Cursor::new(text, file.clone());
    let source_at = {
        cursor.skip_whitespace();
        cursor.location()
    };
    let program = cursor.token("the kernel file name")?;
    let kernel = cursor.token("the kernel name")?.to_string();
    let mut global = [0u64; 3];
    for g in &mut global {
        *g = cursor.size("the NDRange (three global sizes)")?;
    }
    let range_at = cursor.location();
    let mut local = [0u64; 3];
    for l in &mut local {
        *l = cursor.size("the work-group size (three sizes)")?;
    }
    // Oclgrind always launches three dimensions, so `get_work_dim()` is 3.
    let range = NdRange { global, local: Some(local), offset: [0; 3], dims: 3 };
    // A .sim file has no build options of its own; the runner may give some.
    let build = options.build_options.clone().unwrap_or_default();
    range
        .validate_for(crate::model::allows_partial_groups(&build))
        .map_err(|message| WorkloadError::Invalid { location: range_at, message })?;

    let source_path = base_dir.join(program);
    let source =
        clmap_lang::read_source(&source_path).map_err(|source| WorkloadError::MissingSource {
            location: source_at.clone(),
            path: source_path.clone(),
            source,
        })?;
    let program = signatures
        .signatures(&source_path, &source, &build)
        .map_err(|message| WorkloadError::Frontend { location: source_at.clone(), message })?;
    let params = program
        .kernel_params(&kernel)
        .map_err(|message| WorkloadError::Invalid { location: source_at.clone(), message })?
        .ok_or_else(|| WorkloadError::Invalid {
            location: source_at.clone(),
            message: format!("{}: {}", source_path.display(), no_such_kernel(&kernel, program)),
        })?;
    let params = params.as_slice();

    let mut buffers: Vec<Buffer> = Vec::new();
    let mut args = Vec::new();
    for (index, param) in params.iter().enumerate() {
        let what = format!("argument {index} (`{}`)", param.name);
        let (header_text, at) = cursor.header(&what)?;
        let h = parse_header(header_text, &at)?;
        let fail = |message: String| WorkloadError::Invalid {
            location: at.clone(),
            message: format!("{what}: {message}"),
        };
        let is_buffer = matches!(param.space, ParamSpace::Global | ParamSpace::Constant);
        if (h.null || h.dump || h.noinit) && !is_buffer {
            return Err(fail("`null`, `dump` and `noinit` are only valid for buffers".into()));
        }
        if h.access.is_some() && param.space != ParamSpace::Global {
            return Err(fail("`ro` and `wo` are only valid for global buffers".into()));
        }
        if h.null {
            args.push(LaunchArg::Null { name: param.name.clone() });
            continue;
        }
        let size = h.size.unwrap_or(0);
        let ty = h.ty.or_else(|| default_type(param)).ok_or_else(|| {
            fail(format!(
                "the parameter type `{}` has no default element type; name one in the header",
                param.type_name
            ))
        })?;
        // Oclgrind allocates a buffer of zero bytes (every access to it is out of bounds);
        // local memory and by-value arguments need some.
        if (size == 0 && !is_buffer) || size % ty.size() != 0 {
            return Err(fail(format!(
                "size {size} is not a positive multiple of the {ty} size ({} bytes)",
                ty.size()
            )));
        }
        let count = size / ty.size();
        if param.space == ParamSpace::Local || h.local {
            // Oclgrind ignores `fill` and `range` on local memory (it has no host contents);
            // so do we, to read the same files.
            args.push(LaunchArg::Local {
                name: param.name.clone(),
                elem: ElemType::scalar(ty),
                len: count,
            });
            continue;
        }
        let number = |token: &str| -> Result<Number, WorkloadError> {
            parse_value(token, ty, h.hex)
                .ok_or_else(|| fail(format!("`{token}` is not a valid {ty} value")))
        };
        let init = if h.noinit {
            Init::NoInit
        } else if let Some(fill) = h.fill {
            Init::Fill(number(fill)?)
        } else if let Some(range) = h.range {
            sim_range(range, count, ty, &number).map_err(&fail)?
        } else {
            if count > MAX_LISTED_VALUES {
                return Err(fail(format!("{count} values to list; use fill, range or noinit")));
            }
            let mut values = Vec::new();
            for _ in 0..count {
                let token = cursor.token(&format!("the values of {what}"))?;
                values.push(number(token)?);
            }
            Init::Values(values)
        };
        if param.space == ParamSpace::Private && param.elem_type().is_none() {
            // A struct (or another type no number spells): the values, typed by the header,
            // are the bytes of the value as `clSetKernelArg` receives them.
            init.check(ElemType::scalar(ty), count).map_err(&fail)?;
            let bytes = init.generate(ElemType::scalar(ty), count, 0).map_err(&fail)?;
            args.push(LaunchArg::Bytes { name: param.name.clone(), bytes });
            continue;
        }
        if param.space == ParamSpace::Private {
            let width = u8::try_from(count).ok().filter(|w| [1, 2, 4, 8, 16].contains(w));
            let Some(width) = width else {
                return Err(fail(format!(
                    "a by-value argument of {count} x {ty} is not an OpenCL type"
                )));
            };
            let declared = param.elem_type().filter(|t| t.scalar == ty);
            let elem = match declared {
                Some(t) if t.width == 3 && width == 4 => t,
                _ => ElemType { scalar: ty, width },
            };
            let mut value = match init {
                Init::Fill(v) => vec![v; usize::from(width)],
                Init::Values(v) => v,
                Init::Range { start, step } => (0..width)
                    .map(|i| match (start, step) {
                        (Number::Int(a), Number::Int(b)) => {
                            Number::Int(a.saturating_add(b.saturating_mul(i128::from(i))))
                        }
                        _ => Number::Float(start.as_f64() + step.as_f64() * f64::from(i)),
                    })
                    .collect(),
                _ => vec![Number::Int(0); usize::from(width)],
            };
            value.truncate(usize::from(elem.width));
            args.push(LaunchArg::Scalar { name: param.name.clone(), ty: elem, value });
            continue;
        }
        let name = unique_name(&buffers, &param.name, index);
        buffers.push(Buffer {
            name: name.clone(),
            elem: ElemType::scalar(ty),
            len: count,
            init,
            access: h.access.unwrap_or_default(),
            output: h.dump,
            tolerance: None,
            hex_dump: h.hex,
            image: None,
            view: None,
        });
        args.push(LaunchArg::Buffer { buffer: name });
    }
    if cursor.skip_whitespace() {
        let extra = cursor.rest_of_line().split_whitespace().next().unwrap_or("");
        return Err(cursor.error(format!(
            "unexpected `{extra}` after the last argument (kernel `{kernel}` has {} parameters)",
            params.len()
        )));
    }
    let outputs = buffers.iter().filter(|b| b.output).map(|b| b.name.clone()).collect();
    let workload = Workload {
        path: file.clone(),
        source_path,
        source,
        options: build,
        buffers,
        launches: vec![Launch::new(kernel, range, args)],
        groups: Vec::new(),
        outputs,
        bytes_moved: None,
    };
    workload.validate(options).map_err(|e| crate::with_file(e, file.clone()))?;
    check_kernel_params(&workload, program)?;
    Ok(workload)
}

/// Most values an argument may list explicitly (a larger list would be a huge file anyway).
const MAX_LISTED_VALUES: u64 = 1 << 26;

fn unique_name(buffers: &[Buffer], name: &str, index: usize) -> String {
    if !name.is_empty() && !buffers.iter().any(|b| b.name == name) {
        name.to_string()
    } else {
        format!("arg{index}")
    }
}

/// `range=START:INC:END`: Oclgrind requires the range to produce exactly `count` values.
fn sim_range(
    text: &str,
    count: u64,
    ty: ScalarType,
    number: &dyn Fn(&str) -> Result<Number, WorkloadError>,
) -> Result<Init, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let [start, step, end] = parts.as_slice() else {
        return Err(format!("invalid range `{text}`; expected START:INC:END"));
    };
    let start = number(start).map_err(|e| e.to_string())?;
    let step = number(step).map_err(|e| e.to_string())?;
    let end = number(end).map_err(|e| e.to_string())?;
    let produced = match (start, step, end) {
        (Number::Int(s), Number::Int(i), Number::Int(e)) if !ty.is_float() => {
            // Checked: the ends may be any 128-bit values the parser accepted.
            let span = e.checked_sub(s);
            match span {
                Some(span) if i != 0 && span.checked_rem(i) == Some(0) => span
                    .checked_div(i)
                    .and_then(|n| n.checked_add(1))
                    .and_then(|n| u64::try_from(n).ok()),
                _ => None,
            }
        }
        _ => {
            let n = (end.as_f64() - start.as_f64() + step.as_f64()) / step.as_f64();
            (n.is_finite() && n >= 0.0 && n.fract() == 0.0).then_some(n as u64)
        }
    };
    if produced != Some(count) {
        return Err(format!("range `{text}` does not produce the {count} values the size needs"));
    }
    Ok(Init::Range { start, step })
}
