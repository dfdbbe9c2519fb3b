//! The TOML workload format (`docs/workloads.md`): raw serde tables, then normalisation into
//! the [`Workload`] model with errors that point at the offending key.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::error::{Location, WorkloadError};
use crate::expr::{Expr, ExprError};
use crate::image::{ImageSpec, ImageType};
use crate::init::Init;
use crate::model::{
    Access, Buffer, BufferWrite, Group, Launch, LaunchArg, LoadOptions, NdRange, Tolerance,
    Workload,
};
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
    /// Named sizes: integers or expressions of other sizes.
    sizes: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    // Single launch.
    kernel: Option<Spanned<String>>,
    global: Option<Dims>,
    local: Option<Dims>,
    offset: Option<Dims>,
    #[serde(default)]
    arg: Vec<Spanned<RawArg>>,
    // Pipeline.
    // Not `Spanned` as a whole: the TOML reader cannot give a span to a table made only by
    // dotted headers (`[buffers.a]` with no `[buffers]`), and each buffer has its own span.
    buffers: Option<BTreeMap<String, Spanned<RawBuffer>>>,
    #[serde(default)]
    launch: Vec<Spanned<RawLaunch>>,
    #[serde(default)]
    group: Vec<Spanned<RawGroup>>,
}

/// `global`, `local` or `offset`: one integer or expression per dimension.
type Dims = Spanned<Vec<Spanned<toml::Value>>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArg {
    name: String,
    buffer: Option<Spanned<String>>,
    scalar: Option<Spanned<String>>,
    local: Option<Spanned<String>>,
    null: Option<bool>,
    bytes: Option<Spanned<String>>,
    sampler: Option<Spanned<toml::Value>>,
    len: Option<Spanned<toml::Value>>,
    init: Option<Spanned<toml::Value>>,
    output: Option<bool>,
    access: Option<Spanned<String>>,
    tolerance: Option<Spanned<RawTolerance>>,
    image: Option<Spanned<RawImage>>,
    value: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuffer {
    #[serde(rename = "type")]
    ty: Spanned<String>,
    len: Spanned<toml::Value>,
    init: Option<Spanned<toml::Value>>,
    output: Option<bool>,
    access: Option<Spanned<String>>,
    tolerance: Option<Spanned<RawTolerance>>,
    image: Option<Spanned<RawImage>>,
    view: Option<Spanned<RawView>>,
}

/// `view = { of = "parent", offset = BYTES }` on a pipeline buffer (see [`crate::model::View`]).
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawView {
    of: String,
    offset: u64,
}

/// `image = { type = "image2d_t", width = W, height = H, order = "CL_RGBA", channel_type =
/// "CL_FLOAT" }` on a buffer (see [`crate::image`]).
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawImage {
    #[serde(rename = "type")]
    ty: String,
    width: u64,
    height: Option<u64>,
    depth: Option<u64>,
    array_size: Option<u64>,
    order: String,
    channel_type: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaunch {
    kernel: String,
    global: Dims,
    local: Option<Dims>,
    offset: Option<Dims>,
    #[serde(default)]
    args: Vec<Spanned<toml::Value>>,
    repeat: Option<Spanned<toml::Value>>,
    swap: Option<Spanned<toml::Value>>,
    index: Option<Spanned<String>>,
    #[serde(default)]
    write: Vec<Spanned<RawWrite>>,
    /// A top-level `outputs = [...]` written after a `[[launch]]` table belongs, in TOML, to
    /// that launch; it is accepted there and means the same as at the top.
    outputs: Option<Spanned<Vec<String>>>,
}

/// `[[group]]`: launches (and groups) run `repeat` times over, in the order written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGroup {
    repeat: Option<Spanned<toml::Value>>,
    swap: Option<Spanned<toml::Value>>,
    index: Option<Spanned<String>>,
    #[serde(default)]
    launch: Vec<Spanned<RawLaunch>>,
    #[serde(default)]
    group: Vec<Spanned<RawGroup>>,
    /// As for launches: `outputs` written after the group's keys lands here.
    outputs: Option<Spanned<Vec<String>>>,
}

/// `[[launch.write]]`: the host writes part of a buffer before the launch.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWrite {
    buffer: Spanned<String>,
    offset: Option<Spanned<toml::Value>>,
    len: Option<Spanned<toml::Value>>,
    init: Spanned<toml::Value>,
}

/// An argument written inline in a launch's `args` list.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInlineArg {
    name: Option<String>,
    scalar: Option<String>,
    value: Option<toml::Value>,
    local: Option<String>,
    len: Option<toml::Value>,
    null: Option<bool>,
    bytes: Option<String>,
    sampler: Option<toml::Value>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct RawTolerance {
    #[serde(default)]
    rel: f64,
    #[serde(default)]
    abs: f64,
    #[serde(default)]
    norm: f64,
}

/// Carries the file name and text so every error can be located.
struct Ctx<'a> {
    file: Option<PathBuf>,
    text: &'a str,
    base_dir: &'a Path,
    /// The `[sizes]` table, evaluated.
    sizes: BTreeMap<String, i128>,
    /// The build options select OpenCL C 2.0 or later: launches may end in partial groups.
    partial_groups: bool,
}

/// Deepest nesting of `[[group]]` tables.
const MAX_GROUP_DEPTH: usize = 16;

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

    /// `init` is a string of the init language, an array with one number per component, or a
    /// formula table.
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
            toml::Value::Table(table) => self.formula(table, init.span()),
            other => Err(self.invalid(
                init.span(),
                format!(
                    "`init` must be a string ({}), an array of numbers or a table \
                     {{ formula = \"...\", shape = [...] }}, not a {}",
                    crate::init::INIT_SYNTAX,
                    other.type_str()
                ),
            )),
        }
    }

    /// `init = { formula = "i * j / ni", shape = ["ni", "nj"] }`: values from the index. The
    /// reader gives no spans inside an inline table, so errors point at the whole table.
    fn formula(
        &self,
        table: &toml::value::Table,
        span: Range<usize>,
    ) -> Result<Init, WorkloadError> {
        if let Some(key) = table.keys().find(|k| !matches!(k.as_str(), "formula" | "shape")) {
            return Err(self.invalid(
                span,
                format!("unknown key `{key}` in a formula initialiser; expected formula, shape"),
            ));
        }
        let Some(toml::Value::String(text)) = table.get("formula") else {
            return Err(self.invalid(span, "a table `init` needs `formula = \"EXPRESSION\"`"));
        };
        let shape = match table.get("shape") {
            None => None,
            Some(toml::Value::Array(dims)) => Some(
                dims.iter()
                    .map(|d| self.count(&Spanned::new(span.clone(), d.clone()), "a `shape` entry"))
                    .collect::<Result<Vec<u64>, _>>()?,
            ),
            Some(_) => {
                return Err(
                    self.invalid(span, "`shape` must be an array of sizes, e.g. [\"ni\", 64]")
                )
            }
        };
        // Without a shape the formula runs over the flat index `i`.
        let shape = shape.unwrap_or_default();
        let formula = crate::formula::Formula::new(text, shape, &|n| self.sizes.get(n).copied())
            .map_err(|e| self.invalid(span.clone(), format!("init formula: {}", e.message)))?;
        Ok(Init::Formula(formula))
    }

    /// A buffer's `tolerance = { rel, abs, norm }`; a part left out is 0.
    fn tolerance(
        &self,
        raw: Option<&Spanned<RawTolerance>>,
    ) -> Result<Option<Tolerance>, WorkloadError> {
        let Some(raw) = raw else { return Ok(None) };
        let RawTolerance { rel, abs, norm } = *raw.get_ref();
        if [rel, abs, norm].iter().any(|v| !v.is_finite() || *v < 0.0) {
            return Err(self.invalid(
                raw.span(),
                "tolerance parts (rel, abs, norm) must be finite and not negative",
            ));
        }
        Ok(Some(Tolerance { rel, abs, norm }))
    }

    /// A buffer's `image = { … }`.
    fn image(&self, raw: Option<&Spanned<RawImage>>) -> Result<Option<ImageSpec>, WorkloadError> {
        let Some(raw) = raw else { return Ok(None) };
        let span = raw.span();
        let r = raw.get_ref();
        let ty = ImageType::parse(&r.ty).ok_or_else(|| {
            let names: Vec<&str> = ImageType::ALL.iter().map(|t| t.name()).collect();
            self.invalid(
                span.clone(),
                format!("`{}` is not an image type (known: {})", r.ty, names.join(", ")),
            )
        })?;
        let channel_order = crate::image::channel_order_code(&r.order).ok_or_else(|| {
            self.invalid(
                span.clone(),
                format!("`{}` is not a channel order (CL_R … CL_BGRA)", r.order),
            )
        })?;
        let channel_type = crate::image::channel_type_code(&r.channel_type).ok_or_else(|| {
            self.invalid(
                span.clone(),
                format!("`{}` is not a channel type (CL_UNORM_INT8 … CL_FLOAT)", r.channel_type),
            )
        })?;
        let uses = |present: bool, key: &str, types: &str| -> Result<(), WorkloadError> {
            if present {
                Err(self.invalid(span.clone(), format!("`{key}` is only for {types}, not {ty}")))
            } else {
                Ok(())
            }
        };
        let two_d = matches!(ty, ImageType::Image2d | ImageType::Image2dArray | ImageType::Image3d);
        let arrays = matches!(ty, ImageType::Image1dArray | ImageType::Image2dArray);
        uses(r.height.is_some() && !two_d, "height", "2-D and 3-D images")?;
        uses(r.depth.is_some() && ty != ImageType::Image3d, "depth", "image3d_t")?;
        uses(r.array_size.is_some() && !arrays, "array_size", "image arrays")?;
        let needs = |value: Option<u64>, key: &str, wanted: bool| -> Result<u64, WorkloadError> {
            match (value, wanted) {
                (Some(v), _) => Ok(v),
                (None, false) => Ok(1),
                (None, true) => Err(self.invalid(span.clone(), format!("a {ty} needs `{key}`"))),
            }
        };
        Ok(Some(ImageSpec {
            ty,
            width: r.width,
            height: needs(r.height, "height", two_d)?,
            depth: needs(r.depth, "depth", ty == ImageType::Image3d)?,
            array_size: needs(r.array_size, "array_size", arrays)?,
            channel_order,
            channel_type,
        }))
    }

    /// A sampler argument: `CLK_…` flags joined by `|`, or their value as a number.
    fn sampler(&self, value: &toml::Value, span: Range<usize>) -> Result<u32, WorkloadError> {
        let parsed = match value {
            toml::Value::String(text) => crate::image::parse_sampler(text),
            toml::Value::Integer(n) => u32::try_from(*n)
                .map_err(|_| format!("{n} is not a sampler value"))
                .and_then(|bits| crate::image::sampler_problem(bits).map_or(Ok(bits), Err)),
            _ => Err("a sampler is `CLK_…` flags joined by `|`, or a number".to_string()),
        };
        parsed.map_err(|m| self.invalid(span, format!("sampler: {m}")))
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

    /// The error of an expression written in the string at `span`, pointing at the culprit.
    fn expr_error(&self, span: Range<usize>, what: &str, e: ExprError) -> WorkloadError {
        // The string's text starts after its opening quote.
        let at = span.start.saturating_add(1).saturating_add(e.at).min(span.end);
        self.invalid(at..at, format!("{what}: {}", e.message))
    }

    /// The names an expression may use, for error messages: every size, then `extra`.
    fn known_names(&self, extra: &[String]) -> Vec<String> {
        self.sizes.keys().cloned().chain(extra.iter().cloned()).collect()
    }

    /// An integer written as a TOML integer or as an expression string over the sizes.
    fn integer(&self, value: &Spanned<toml::Value>, what: &str) -> Result<i128, WorkloadError> {
        match value.get_ref() {
            toml::Value::Integer(i) => Ok(i128::from(*i)),
            toml::Value::String(text) => {
                let expr = Expr::parse(text).map_err(|e| self.expr_error(value.span(), what, e))?;
                let known = || self.known_names(&[]);
                expr.eval(&|n| self.sizes.get(n).copied(), &known)
                    .map_err(|e| self.expr_error(value.span(), what, e))
            }
            other => Err(self.invalid(
                value.span(),
                format!(
                    "{what} must be an integer or an expression string, not a {}",
                    other.type_str()
                ),
            )),
        }
    }

    /// A non-negative integer (a length, a size, an offset).
    fn count(&self, value: &Spanned<toml::Value>, what: &str) -> Result<u64, WorkloadError> {
        let n = self.integer(value, what)?;
        u64::try_from(n)
            .map_err(|_| self.invalid(value.span(), format!("{what} must not be negative, is {n}")))
    }

    fn range(
        &self,
        global: &Dims,
        local: Option<&Dims>,
        offset: Option<&Dims>,
    ) -> Result<NdRange, WorkloadError> {
        let dims = global.get_ref().len();
        if !(1..=3).contains(&dims) {
            return Err(self.invalid(
                global.span(),
                format!("`global` has {dims} dimensions; OpenCL allows 1 to 3"),
            ));
        }
        let widen = |key: &str, v: &Dims| -> Result<[u64; 3], WorkloadError> {
            if v.get_ref().len() != dims {
                return Err(self.invalid(
                    v.span(),
                    format!("`{key}` has {} dimensions but `global` has {dims}", v.get_ref().len()),
                ));
            }
            let mut out = [1u64; 3];
            for (d, (slot, value)) in out.iter_mut().zip(v.get_ref()).enumerate() {
                *slot = self.count(value, &format!("`{key}` in dimension {d}"))?;
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
        range.validate_for(self.partial_groups).map_err(|message| self.invalid(span, message))?;
        Ok(range)
    }

    /// A scalar's value. Integer scalars also take expressions: of sizes (folded now), or of
    /// loop indices (`indices`), which makes a [`LaunchArg::LoopScalar`].
    fn scalar(
        &self,
        name: String,
        ty: ElemType,
        value: Option<&toml::Value>,
        span: Range<usize>,
        indices: &[String],
    ) -> Result<LaunchArg, WorkloadError> {
        let fail = |m: String| self.invalid(span.clone(), format!("scalar `{name}`: {m}"));
        let integer = !ty.scalar.is_float();
        let one = |v: &toml::Value| -> Result<Result<Number, Expr>, WorkloadError> {
            match v {
                toml::Value::String(text) if integer && Number::parse(text).is_none() => {
                    let what = format!("scalar `{name}`");
                    let expr =
                        Expr::parse(text).map_err(|e| self.expr_error(span.clone(), &what, e))?;
                    for used in expr.names() {
                        if !self.sizes.contains_key(used) && !indices.iter().any(|n| n == used) {
                            return Err(fail(format!(
                                "unknown name `{used}`; known names: {}",
                                self.known_names(indices).join(", ")
                            )));
                        }
                    }
                    let expr = expr
                        .substitute(&|n| self.sizes.get(n).copied())
                        .map_err(|e| self.expr_error(span.clone(), &what, e))?;
                    Ok(match expr.constant() {
                        Some(v) => Ok(Number::Int(v)),
                        None => Err(expr),
                    })
                }
                other => number(other).map(Ok).map_err(fail),
            }
        };
        let value = value.ok_or_else(|| fail(format!("a {ty} scalar needs `value`")))?;
        let values = match value {
            toml::Value::Array(list) => {
                if list.len() != usize::from(ty.width) {
                    return Err(fail(format!(
                        "{ty} needs {} values, {} given",
                        ty.width,
                        list.len()
                    )));
                }
                let mut out = Vec::new();
                for v in list {
                    match one(v)? {
                        Ok(n) => out.push(n),
                        Err(_) => {
                            return Err(fail(
                                "only single integer values may depend on the repetition".into(),
                            ))
                        }
                    }
                }
                out
            }
            single => match one(single)? {
                Ok(n) => vec![n; usize::from(ty.width)],
                Err(expr) if ty.width == 1 => {
                    return Ok(LaunchArg::LoopScalar { name, ty, value: expr })
                }
                Err(_) => {
                    return Err(fail(format!(
                        "a {ty} vector cannot depend on the repetition; only single integers can"
                    )))
                }
            },
        };
        Ok(LaunchArg::Scalar { name, ty, value: values })
    }
}

/// Evaluates the `[sizes]` table: each entry an integer or an expression of other entries,
/// in any order; cycles are errors.
fn sizes(
    ctx: &Ctx<'_>,
    table: &BTreeMap<String, Spanned<toml::Value>>,
) -> Result<BTreeMap<String, i128>, WorkloadError> {
    fn resolve(
        ctx: &Ctx<'_>,
        table: &BTreeMap<String, Spanned<toml::Value>>,
        name: &str,
        done: &mut BTreeMap<String, i128>,
        visiting: &mut Vec<String>,
    ) -> Result<Option<i128>, WorkloadError> {
        if let Some(v) = done.get(name) {
            return Ok(Some(*v));
        }
        let Some(value) = table.get(name) else { return Ok(None) };
        if visiting.iter().any(|v| v == name) {
            visiting.push(name.to_string());
            return Err(ctx.invalid(
                value.span(),
                format!("sizes refer to each other in a cycle: {}", visiting.join(" -> ")),
            ));
        }
        if visiting.len() > 256 {
            return Err(ctx.invalid(value.span(), "sizes refer to each other too deeply"));
        }
        let what = format!("size `{name}`");
        let v = match value.get_ref() {
            toml::Value::Integer(i) => i128::from(*i),
            toml::Value::String(text) => {
                let expr = Expr::parse(text).map_err(|e| ctx.expr_error(value.span(), &what, e))?;
                visiting.push(name.to_string());
                let mut known = BTreeMap::new();
                for used in expr.names() {
                    if let Some(v) = resolve(ctx, table, used, done, visiting)? {
                        known.insert(used.to_string(), v);
                    }
                }
                visiting.pop();
                let names = || table.keys().cloned().collect::<Vec<_>>();
                expr.eval(&|n| known.get(n).copied(), &names)
                    .map_err(|e| ctx.expr_error(value.span(), &what, e))?
            }
            other => {
                return Err(ctx.invalid(
                    value.span(),
                    format!(
                        "{what} must be an integer or an expression string, not a {}",
                        other.type_str()
                    ),
                ))
            }
        };
        done.insert(name.to_string(), v);
        Ok(Some(v))
    }
    let mut done = BTreeMap::new();
    for (name, value) in table {
        let identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier || name == "i" {
            return Err(ctx.invalid(
                value.span(),
                format!(
                    "`{name}` cannot name a size: sizes are identifiers, and `i` is the loop index"
                ),
            ));
        }
        resolve(ctx, table, name, &mut done, &mut Vec::new())?;
    }
    Ok(done)
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

/// Parses TOML workload text; relative paths are resolved against `base_dir`.
pub(crate) fn parse(
    text: &str,
    base_dir: &Path,
    file: Option<PathBuf>,
    options: &LoadOptions,
) -> Result<Workload, WorkloadError> {
    parse_located(text, base_dir, file, options).map(|(workload, _)| workload)
}

/// [`parse`], with where each launch is written: its `kernel` key (a single launch) or its
/// `[[launch]]` table, one per entry of [`Workload::launches`], for messages about a launch
/// found wrong later (against its kernel's parameters).
pub(crate) fn parse_located(
    text: &str,
    base_dir: &Path,
    file: Option<PathBuf>,
    options: &LoadOptions,
) -> Result<(Workload, Vec<Location>), WorkloadError> {
    let mut ctx =
        Ctx { file: file.clone(), text, base_dir, sizes: BTreeMap::new(), partial_groups: false };
    let raw: RawFile = toml::from_str(text).map_err(|e| WorkloadError::Syntax {
        location: match e.span() {
            Some(span) => ctx.at(span),
            None => Location::file(file.clone()),
        },
        message: e.message().trim().to_string(),
    })?;
    if let Some(table) = &raw.sizes {
        ctx.sizes = sizes(&ctx, table.get_ref())?;
    }
    ctx.partial_groups = crate::model::allows_partial_groups(&format!(
        "{} {}",
        raw.options,
        options.build_options.as_deref().unwrap_or("")
    ));

    let source_path = base_dir.join(raw.source.get_ref());
    let source =
        clmap_lang::read_source(&source_path).map_err(|source| WorkloadError::MissingSource {
            location: ctx.at(raw.source.span()),
            path: source_path.clone(),
            source,
        })?;

    let mut buffers = Vec::new();
    let mut groups = Vec::new();
    let mut output_lists: Vec<&Spanned<Vec<String>>> = raw.outputs.iter().collect();
    let mut launch_spans = Vec::new();
    let launches = if raw.launch.is_empty() && raw.group.is_empty() {
        launch_spans.extend(raw.kernel.as_ref().map(Spanned::span));
        vec![single_launch(&ctx, &raw, &mut buffers)?]
    } else {
        pipeline(&ctx, &raw, &mut buffers, &mut groups, &mut output_lists, &mut launch_spans)?
    };

    let mut outputs: Vec<String> = Vec::new();
    for list in output_lists {
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
        options: match &options.build_options {
            Some(extra) if !extra.trim().is_empty() => {
                format!("{} {extra}", raw.options).trim().to_string()
            }
            _ => raw.options.clone(),
        },
        buffers,
        launches,
        groups,
        outputs,
        bytes_moved: raw.bytes_moved,
    };
    workload.validate(options).map_err(|e| crate::with_file(e, file))?;
    let located = launch_spans.into_iter().map(|span| ctx.at(span)).collect();
    Ok((workload, located))
}

fn single_launch(
    ctx: &Ctx<'_>,
    raw: &RawFile,
    buffers: &mut Vec<Buffer>,
) -> Result<Launch, WorkloadError> {
    if let Some(table) = &raw.buffers {
        let span = table.values().next().map_or(0..0, |b| b.span());
        return Err(ctx.invalid(span, "`[buffers]` belongs to pipelines: add `[[launch]]` tables"));
    }
    let kernel = raw.kernel.as_ref().ok_or_else(|| {
        ctx.invalid(0..0, "missing `kernel` (a single launch) or `[[launch]]` tables (a pipeline)")
    })?;
    let global = raw
        .global
        .as_ref()
        .ok_or_else(|| ctx.invalid(kernel.span(), "missing `global` (the NDRange size)"))?;
    let range = ctx.range(global, raw.local.as_ref(), raw.offset.as_ref())?;
    let indices = ["i".to_string()];
    let mut args = Vec::new();
    for arg in &raw.arg {
        let span = arg.span();
        let arg = arg.get_ref();
        if buffers.iter().any(|b| b.name == arg.name)
            || args.iter().any(|a: &LaunchArg| a.name() == arg.name)
        {
            return Err(ctx.invalid(span, format!("argument name `{}` is used twice", arg.name)));
        }
        let kinds = [
            arg.buffer.is_some(),
            arg.scalar.is_some(),
            arg.local.is_some(),
            arg.null.is_some(),
            arg.bytes.is_some(),
            arg.sampler.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(ctx.invalid(
                span,
                format!(
                    "argument `{}` needs exactly one of `buffer`, `scalar`, `local`, `null`, `bytes` or \
                     `sampler`",
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
        let len = |kind: &str| -> Result<u64, WorkloadError> {
            let len = arg.len.as_ref().ok_or_else(|| {
                ctx.invalid(span.clone(), format!("{kind} `{}` needs `len`", arg.name))
            })?;
            ctx.count(len, &format!("`len` of `{}`", arg.name))
        };
        if let Some(ty) = &arg.buffer {
            not_for("value", arg.value.is_some(), "buffer")?;
            let elem = ctx.elem(ty)?;
            buffers.push(Buffer {
                name: arg.name.clone(),
                elem,
                len: len("buffer")?,
                init: ctx.init(arg.init.as_ref())?,
                access: ctx.access(arg.access.as_ref())?,
                output: arg.output.unwrap_or(false),
                tolerance: ctx.tolerance(arg.tolerance.as_ref())?,
                hex_dump: false,
                image: ctx.image(arg.image.as_ref())?,
                view: None,
            });
            args.push(LaunchArg::Buffer { buffer: arg.name.clone() });
            continue;
        }
        for (key, present) in [
            ("init", arg.init.is_some()),
            ("output", arg.output.is_some()),
            ("access", arg.access.is_some()),
            ("tolerance", arg.tolerance.is_some()),
            ("image", arg.image.is_some()),
        ] {
            not_for(key, present, "non-buffer")?;
        }
        if let Some(ty) = &arg.scalar {
            not_for("len", arg.len.is_some(), "scalar")?;
            let ty = ctx.elem(ty)?;
            let value_span = arg.value.as_ref().map_or(span.clone(), |v| v.span());
            args.push(ctx.scalar(
                arg.name.clone(),
                ty,
                arg.value.as_ref().map(|v| v.get_ref()),
                value_span,
                &indices,
            )?);
        } else if let Some(sampler) = &arg.sampler {
            not_for("value", arg.value.is_some(), "sampler")?;
            not_for("len", arg.len.is_some(), "sampler")?;
            let bits = ctx.sampler(sampler.get_ref(), sampler.span())?;
            args.push(LaunchArg::Sampler { name: arg.name.clone(), bits });
        } else if let Some(hex) = &arg.bytes {
            not_for("value", arg.value.is_some(), "bytes")?;
            not_for("len", arg.len.is_some(), "bytes")?;
            let bytes = crate::model::hex_to_bytes(hex.get_ref())
                .map_err(|m| ctx.invalid(hex.span(), format!("`bytes` of `{}`: {m}", arg.name)))?;
            args.push(LaunchArg::Bytes { name: arg.name.clone(), bytes });
        } else if let Some(ty) = &arg.local {
            not_for("value", arg.value.is_some(), "local")?;
            let elem = ctx.elem(ty)?;
            args.push(LaunchArg::Local { name: arg.name.clone(), elem, len: len("local")? });
        } else {
            not_for("value", arg.value.is_some(), "null")?;
            not_for("len", arg.len.is_some(), "null")?;
            if arg.null != Some(true) {
                return Err(ctx.invalid(span, "`null` may only be `true`"));
            }
            args.push(LaunchArg::Null { name: arg.name.clone() });
        }
    }
    Ok(Launch::new(kernel.get_ref().clone(), range, args))
}

fn pipeline<'r>(
    ctx: &Ctx<'_>,
    raw: &'r RawFile,
    buffers: &mut Vec<Buffer>,
    groups: &mut Vec<Group>,
    outputs: &mut Vec<&'r Spanned<Vec<String>>>,
    spans: &mut Vec<Range<usize>>,
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
        for (name, b) in table {
            let b = b.get_ref();
            let len = ctx.count(&b.len, &format!("`len` of buffer `{name}`"))?;
            if let (Some(view), Some(init)) = (&b.view, &b.init) {
                let span = view.span().start.min(init.span().start)..view.span().end;
                return Err(ctx.invalid(
                    span,
                    format!(
                        "buffer `{name}` is a view: its contents are its parent's, not an `init`"
                    ),
                ));
            }
            let view = b.view.as_ref().map(|v| crate::model::View {
                parent: v.get_ref().of.clone(),
                offset: v.get_ref().offset,
            });
            buffers.push(Buffer {
                name: name.clone(),
                elem: ctx.elem(&b.ty)?,
                len,
                init: ctx.init(b.init.as_ref())?,
                access: ctx.access(b.access.as_ref())?,
                output: b.output.unwrap_or(false),
                tolerance: ctx.tolerance(b.tolerance.as_ref())?,
                hex_dump: false,
                image: ctx.image(b.image.as_ref())?,
                view,
            });
        }
    }
    let mut launches = Vec::new();
    let mut body = Body { ctx, buffers, launches: &mut launches, groups, outputs, spans };
    body.items(&raw.launch, &raw.group, &mut vec!["i".to_string()], 0)?;
    Ok(launches)
}

/// Builds the launches and groups of a pipeline, depth first, in the order they are written.
struct Body<'c, 'r, 'o> {
    ctx: &'c Ctx<'c>,
    buffers: &'o [Buffer],
    launches: &'o mut Vec<Launch>,
    groups: &'o mut Vec<Group>,
    outputs: &'o mut Vec<&'r Spanned<Vec<String>>>,
    /// Where each launch of `launches` is written.
    spans: &'o mut Vec<Range<usize>>,
}

impl<'r> Body<'_, 'r, '_> {
    /// `launch` and `group` are two TOML arrays; the file's order between their tables is the
    /// order of their positions in the text.
    fn items(
        &mut self,
        launches: &'r [Spanned<RawLaunch>],
        groups: &'r [Spanned<RawGroup>],
        indices: &mut Vec<String>,
        depth: usize,
    ) -> Result<(), WorkloadError> {
        enum Item<'r> {
            Launch(&'r Spanned<RawLaunch>),
            Group(&'r Spanned<RawGroup>),
        }
        let mut items: Vec<(usize, Item<'r>)> =
            launches.iter().map(|l| (l.span().start, Item::Launch(l))).collect();
        items.extend(groups.iter().map(|g| (g.span().start, Item::Group(g))));
        items.sort_by_key(|(at, _)| *at);
        for (_, item) in items {
            match item {
                Item::Launch(launch) => self.launch(launch, indices)?,
                Item::Group(group) => self.group(group, indices, depth + 1)?,
            }
        }
        Ok(())
    }

    fn repeat(&self, repeat: Option<&Spanned<toml::Value>>) -> Result<u32, WorkloadError> {
        let Some(r) = repeat else { return Ok(1) };
        let n = self.ctx.integer(r, "`repeat`")?;
        u32::try_from(n).ok().filter(|n| *n >= 1).ok_or_else(|| {
            self.ctx.invalid(r.span(), "`repeat` must be a whole number from 1 to 2^32-1")
        })
    }

    fn swap(
        &self,
        swap: Option<&Spanned<toml::Value>>,
        fallback: Range<usize>,
    ) -> Result<Vec<(String, String)>, WorkloadError> {
        let Some(s) = swap else { return Ok(Vec::new()) };
        let pairs = swap_pairs(s.get_ref()).ok_or_else(|| {
            self.ctx.invalid(s.span(), "`swap` must be a pair of buffer names, or a list of pairs")
        })?;
        for (a, b) in &pairs {
            for name in [a, b] {
                if !self.buffers.iter().any(|buf| &buf.name == name) {
                    let at = if s.span().is_empty() { fallback.clone() } else { s.span() };
                    return Err(self
                        .ctx
                        .invalid(at, format!("swap names unknown buffer `{name}`")));
                }
            }
        }
        Ok(pairs)
    }

    fn index(
        &self,
        index: Option<&Spanned<String>>,
        indices: &[String],
    ) -> Result<Option<String>, WorkloadError> {
        let Some(name) = index else { return Ok(None) };
        let text = name.get_ref();
        let identifier = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier || indices.contains(text) || self.ctx.sizes.contains_key(text) {
            return Err(self.ctx.invalid(
                name.span(),
                format!(
                    "`index = \"{text}\"`: a loop index needs an identifier that is not `i`, a size \
                     or the index of an enclosing loop"
                ),
            ));
        }
        Ok(Some(text.clone()))
    }

    fn launch(
        &mut self,
        launch: &'r Spanned<RawLaunch>,
        indices: &mut Vec<String>,
    ) -> Result<(), WorkloadError> {
        let ctx = self.ctx;
        let span = launch.span();
        let l = launch.get_ref();
        if l.kernel.is_empty() {
            let n = self.launches.len() + 1;
            return Err(ctx.invalid(span, format!("launch {n} has an empty kernel name")));
        }
        let range = ctx.range(&l.global, l.local.as_ref(), l.offset.as_ref())?;
        let index = self.index(l.index.as_ref(), indices)?;
        let pushed = index.iter().len();
        indices.extend(index.clone());
        let mut args = Vec::new();
        for (position, arg) in l.args.iter().enumerate() {
            args.push(inline_arg(ctx, self.buffers, arg, position, indices)?);
        }
        indices.truncate(indices.len() - pushed);
        let mut writes = Vec::new();
        for write in &l.write {
            writes.push(self.write(write)?);
        }
        self.outputs.extend(l.outputs.as_ref());
        self.spans.push(span.clone());
        self.launches.push(Launch {
            kernel: l.kernel.clone(),
            range,
            args,
            repeat: self.repeat(l.repeat.as_ref())?,
            swap: self.swap(l.swap.as_ref(), span)?,
            index,
            writes,
        });
        Ok(())
    }

    fn write(&self, write: &Spanned<RawWrite>) -> Result<BufferWrite, WorkloadError> {
        let ctx = self.ctx;
        let w = write.get_ref();
        let name = w.buffer.get_ref();
        let buffer = self.buffers.iter().find(|b| &b.name == name).ok_or_else(|| {
            ctx.invalid(w.buffer.span(), format!("host write names unknown buffer `{name}`"))
        })?;
        let offset = match &w.offset {
            Some(o) => ctx.count(o, &format!("`offset` of the write to `{name}`"))?,
            None => 0,
        };
        let len = match &w.len {
            Some(l) => ctx.count(l, &format!("`len` of the write to `{name}`"))?,
            None => buffer.len.saturating_sub(offset),
        };
        let init = ctx.init(Some(&w.init))?;
        // Checked here too, so the error points at the write rather than at the launch.
        let end = offset.checked_add(len);
        if len == 0 || end.is_none_or(|end| end > buffer.len) {
            return Err(ctx.invalid(
                w.len.as_ref().or(w.offset.as_ref()).map_or(write.span(), |v| v.span()),
                format!(
                    "the write to `{name}` covers elements {offset} to {} but the buffer has {} \
                     (offsets and lengths count elements)",
                    offset.saturating_add(len),
                    buffer.len
                ),
            ));
        }
        Ok(BufferWrite { buffer: name.clone(), offset, len, init })
    }

    fn group(
        &mut self,
        group: &'r Spanned<RawGroup>,
        indices: &mut Vec<String>,
        depth: usize,
    ) -> Result<(), WorkloadError> {
        let ctx = self.ctx;
        let span = group.span();
        if depth > MAX_GROUP_DEPTH {
            return Err(ctx.invalid(span, format!("groups nest more than {MAX_GROUP_DEPTH} deep")));
        }
        let g = group.get_ref();
        let repeat = self.repeat(g.repeat.as_ref())?;
        let swap = self.swap(g.swap.as_ref(), span.clone())?;
        let index = self.index(g.index.as_ref(), indices)?;
        self.outputs.extend(g.outputs.as_ref());
        let start = self.launches.len();
        let slot = self.groups.len();
        self.groups.push(Group { launches: start..start, repeat, swap, index: index.clone() });
        let pushed = index.iter().len();
        indices.extend(index);
        self.items(&g.launch, &g.group, indices, depth)?;
        indices.truncate(indices.len() - pushed);
        let end = self.launches.len();
        if end == start {
            return Err(ctx.invalid(span, "a group needs at least one `[[group.launch]]`"));
        }
        if let Some(entry) = self.groups.get_mut(slot) {
            entry.launches = start..end;
        }
        Ok(())
    }
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
    indices: &[String],
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
    if let Some(sampler) = &inline.sampler {
        if inline.scalar.is_some()
            || inline.local.is_some()
            || inline.null.is_some()
            || inline.value.is_some()
            || inline.len.is_some()
            || inline.bytes.is_some()
        {
            return Err(ctx.invalid(
                span,
                format!("argument {position}: `sampler` stands alone (with `name`)"),
            ));
        }
        let bits = ctx.sampler(sampler, span.clone()).map_err(|e| match e {
            WorkloadError::Invalid { location, message } => WorkloadError::Invalid {
                location,
                message: format!("argument {position}: {message}"),
            },
            other => other,
        })?;
        return Ok(LaunchArg::Sampler { name, bits });
    }
    if let Some(hex) = &inline.bytes {
        if inline.scalar.is_some()
            || inline.local.is_some()
            || inline.null.is_some()
            || inline.value.is_some()
            || inline.len.is_some()
        {
            return Err(ctx.invalid(
                span,
                format!("argument {position}: `bytes` stands alone (with `name`)"),
            ));
        }
        let bytes = crate::model::hex_to_bytes(hex)
            .map_err(|m| ctx.invalid(span.clone(), format!("argument {position}: `bytes`: {m}")))?;
        return Ok(LaunchArg::Bytes { name, bytes });
    }
    match (&inline.scalar, &inline.local, inline.null) {
        (Some(ty), None, None) if inline.len.is_none() => {
            let ty = ctx.elem(&spanned(ty))?;
            ctx.scalar(name, ty, inline.value.as_ref(), span.clone(), indices).map_err(
                |e| match e {
                    WorkloadError::Invalid { location, message } => WorkloadError::Invalid {
                        location,
                        message: format!("argument {position}: {message}"),
                    },
                    other => other,
                },
            )
        }
        (None, Some(ty), None) if inline.value.is_none() => {
            let elem = ctx.elem(&spanned(ty))?;
            let len = inline.len.ok_or_else(|| {
                ctx.invalid(span.clone(), format!("argument {position}: local needs `len`"))
            })?;
            let len = ctx
                .count(&Spanned::new(span.clone(), len), &format!("argument {position}: `len`"))?;
            Ok(LaunchArg::Local { name, elem, len })
        }
        (None, None, Some(true)) if inline.value.is_none() && inline.len.is_none() => {
            Ok(LaunchArg::Null { name })
        }
        _ => Err(ctx.invalid(
            span,
            format!(
                "argument {position}: expected a buffer name, {{ scalar = TYPE, value = V }}, \
                 {{ local = TYPE, len = N }}, {{ null = true }}, {{ bytes = \"HEX\" }} or \
                 {{ sampler = \"CLK_…\" }}"
            ),
        )),
    }
}
