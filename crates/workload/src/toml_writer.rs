//! Writing a workload back as TOML, so that workloads built in code (microbenchmarks, fused
//! pipelines) or read from `.sim` files can be saved in clmap's own format. The output loads
//! back into an equal model (the `hex` dump setting of `.sim` files has no TOML form).

use crate::image::{ImageSpec, ImageType};
use std::fmt::Write as _;
use std::path::Path;

use crate::init::Init;
use crate::model::{Access, Buffer, LaunchArg, NdRange, Tolerance, Workload};
use crate::number::Number;

impl Workload {
    /// Renders the workload as TOML. `base_dir` is where the file will live: the source and
    /// `file(...)` paths below it are written relative to it. A single launch without
    /// repetition whose arguments name every buffer once, in order, is written in the
    /// single-launch form; anything else as a pipeline (whose buffers load in name order).
    pub fn to_toml(&self, base_dir: &Path) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "source = {}", quote(&relative(&self.source_path, base_dir)));
        if !self.options.is_empty() {
            let _ = writeln!(out, "options = {}", quote(&self.options));
        }
        if let Some(bytes) = self.bytes_moved {
            let _ = writeln!(out, "bytes_moved = {bytes}");
        }
        if !self.outputs.is_empty() {
            let names: Vec<String> = self.outputs.iter().map(|n| quote(n)).collect();
            let _ = writeln!(out, "outputs = [{}]", names.join(", "));
        }
        if self.is_single_form() {
            self.write_single(&mut out, base_dir);
        } else {
            self.write_pipeline(&mut out, base_dir);
        }
        out
    }

    fn is_single_form(&self) -> bool {
        let [launch] = self.launches.as_slice() else { return false };
        if launch.repeat != 1
            || !launch.swap.is_empty()
            || !launch.writes.is_empty()
            || launch.index.is_some()
            || !self.groups.is_empty()
        {
            return false;
        }
        let used: Vec<&str> = launch
            .args
            .iter()
            .filter_map(|a| match a {
                LaunchArg::Buffer { buffer } => Some(buffer.as_str()),
                _ => None,
            })
            .collect();
        let declared: Vec<&str> = self.buffers.iter().map(|b| b.name.as_str()).collect();
        // Argument names must also be unique in the single form.
        let mut names: Vec<&str> = launch.args.iter().map(LaunchArg::name).collect();
        names.sort_unstable();
        names.dedup();
        // Views are declared in the pipeline form's `[buffers]` table only.
        used == declared
            && names.len() == launch.args.len()
            && self.buffers.iter().all(|b| b.view.is_none())
    }

    fn write_single(&self, out: &mut String, base_dir: &Path) {
        let Some(launch) = self.launches.first() else { return };
        let _ = writeln!(out, "kernel = {}", quote(&launch.kernel));
        write_range(out, &launch.range);
        for arg in &launch.args {
            out.push_str("\n[[arg]]\n");
            let _ = writeln!(out, "name = {}", quote(arg.name()));
            match arg {
                LaunchArg::Buffer { buffer } => {
                    if let Some(b) = self.buffer(buffer) {
                        let _ = writeln!(out, "buffer = {}", quote(&b.elem.to_string()));
                        for (key, value) in buffer_fields(b, base_dir) {
                            let _ = writeln!(out, "{key} = {value}");
                        }
                    }
                }
                LaunchArg::Scalar { ty, value, .. } => {
                    let _ = writeln!(out, "scalar = {}", quote(&ty.to_string()));
                    let _ = writeln!(out, "value = {}", number_list(value));
                }
                LaunchArg::Local { elem, len, .. } => {
                    let _ = writeln!(out, "local = {}\nlen = {len}", quote(&elem.to_string()));
                }
                LaunchArg::Null { .. } => out.push_str("null = true\n"),
                LaunchArg::Bytes { bytes, .. } => {
                    let _ = writeln!(out, "bytes = {}", quote(&crate::model::bytes_to_hex(bytes)));
                }
                LaunchArg::LoopScalar { ty, value, .. } => {
                    let _ = writeln!(out, "scalar = {}", quote(&ty.to_string()));
                    let _ = writeln!(out, "value = {}", quote(&value.to_string()));
                }
                LaunchArg::Sampler { bits, .. } => {
                    let _ =
                        writeln!(out, "sampler = {}", quote(&crate::image::sampler_text(*bits)));
                }
            }
        }
    }

    fn write_pipeline(&self, out: &mut String, base_dir: &Path) {
        out.push_str("\n[buffers]\n");
        for b in &self.buffers {
            let mut fields = vec![("type", quote(&b.elem.to_string()))];
            fields.extend(buffer_fields(b, base_dir));
            let inline: Vec<String> = fields.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            let _ = writeln!(out, "{} = {{ {} }}", quote(&b.name), inline.join(", "));
        }
        let mut open: Vec<usize> = Vec::new();
        for (index, launch) in self.launches.iter().enumerate() {
            let chain = self.enclosing_groups(index);
            let kept = open.iter().zip(&chain).take_while(|(a, b)| a == b).count();
            for (depth, g) in chain.iter().enumerate().skip(kept) {
                let Some(group) = self.groups.get(*g) else { continue };
                let _ = writeln!(out, "\n[[{}group]]", "group.".repeat(depth));
                let _ = writeln!(out, "repeat = {}", group.repeat);
                write_swap(out, &group.swap);
                if let Some(name) = &group.index {
                    let _ = writeln!(out, "index = {}", quote(name));
                }
            }
            let prefix = "group.".repeat(chain.len());
            open = chain;
            let _ = writeln!(out, "\n[[{prefix}launch]]");
            let _ = writeln!(out, "kernel = {}", quote(&launch.kernel));
            write_range(out, &launch.range);
            let args: Vec<String> = launch
                .args
                .iter()
                .map(|arg| match arg {
                    LaunchArg::Buffer { buffer } => quote(buffer),
                    LaunchArg::Scalar { name, ty, value } => format!(
                        "{{ name = {}, scalar = {}, value = {} }}",
                        quote(name),
                        quote(&ty.to_string()),
                        number_list(value)
                    ),
                    LaunchArg::LoopScalar { name, ty, value } => format!(
                        "{{ name = {}, scalar = {}, value = {} }}",
                        quote(name),
                        quote(&ty.to_string()),
                        quote(&value.to_string())
                    ),
                    LaunchArg::Local { name, elem, len } => format!(
                        "{{ name = {}, local = {}, len = {len} }}",
                        quote(name),
                        quote(&elem.to_string())
                    ),
                    LaunchArg::Null { name } => {
                        format!("{{ name = {}, null = true }}", quote(name))
                    }
                    LaunchArg::Bytes { name, bytes } => format!(
                        "{{ name = {}, bytes = {} }}",
                        quote(name),
                        quote(&crate::model::bytes_to_hex(bytes))
                    ),
                    LaunchArg::Sampler { name, bits } => format!(
                        "{{ name = {}, sampler = {} }}",
                        quote(name),
                        quote(&crate::image::sampler_text(*bits))
                    ),
                })
                .collect();
            let _ = writeln!(out, "args = [{}]", args.join(", "));
            if launch.repeat != 1 {
                let _ = writeln!(out, "repeat = {}", launch.repeat);
            }
            write_swap(out, &launch.swap);
            if let Some(name) = &launch.index {
                let _ = writeln!(out, "index = {}", quote(name));
            }
            for write in &launch.writes {
                let _ = writeln!(out, "\n[[{prefix}launch.write]]");
                let _ = writeln!(out, "buffer = {}", quote(&write.buffer));
                let _ = writeln!(out, "offset = {}", write.offset);
                let _ = writeln!(out, "len = {}", write.len);
                let _ = writeln!(out, "init = {}", init_text(&write.init, base_dir));
            }
        }
    }
}

fn write_swap(out: &mut String, swap: &[(String, String)]) {
    if !swap.is_empty() {
        let pairs: Vec<String> =
            swap.iter().map(|(a, b)| format!("[{}, {}]", quote(a), quote(b))).collect();
        let _ = writeln!(out, "swap = [{}]", pairs.join(", "));
    }
}

fn write_range(out: &mut String, range: &NdRange) {
    let dims = usize::from(range.dims.clamp(1, 3));
    let list =
        |v: &[u64; 3]| v.iter().take(dims).map(u64::to_string).collect::<Vec<_>>().join(", ");
    let _ = writeln!(out, "global = [{}]", list(&range.global));
    if let Some(local) = &range.local {
        let _ = writeln!(out, "local = [{}]", list(local));
    }
    if range.offset != [0; 3] {
        let _ = writeln!(out, "offset = [{}]", list(&range.offset));
    }
}

fn buffer_fields(b: &Buffer, base_dir: &Path) -> Vec<(&'static str, String)> {
    let mut fields = vec![("len", b.len.to_string())];
    match &b.view {
        Some(view) => fields.push((
            "view",
            format!("{{ of = {}, offset = {} }}", quote(&view.parent), view.offset),
        )),
        None => fields.push(("init", init_text(&b.init, base_dir))),
    }
    if b.output {
        fields.push(("output", "true".to_string()));
    }
    match b.access {
        Access::ReadWrite => {}
        Access::ReadOnly => fields.push(("access", quote("read_only"))),
        Access::WriteOnly => fields.push(("access", quote("write_only"))),
    }
    if let Some(Tolerance { rel, abs, norm }) = b.tolerance {
        let mut parts = format!("rel = {}, abs = {}", toml_float(rel), toml_float(abs));
        if norm != 0.0 {
            parts.push_str(&format!(", norm = {}", toml_float(norm)));
        }
        fields.push(("tolerance", format!("{{ {parts} }}")));
    }
    if let Some(image) = &b.image {
        fields.push(("image", image_text(image)));
    }
    fields
}

/// `{ type = "image2d_t", width = …, order = "CL_RGBA", channel_type = "CL_FLOAT" }`, with
/// only the sizes the image's type uses.
fn image_text(image: &ImageSpec) -> String {
    let mut parts = vec![format!("type = {}", quote(image.ty.name()))];
    parts.push(format!("width = {}", image.width));
    let two_d =
        matches!(image.ty, ImageType::Image2d | ImageType::Image2dArray | ImageType::Image3d);
    if two_d {
        parts.push(format!("height = {}", image.height));
    }
    if image.ty == ImageType::Image3d {
        parts.push(format!("depth = {}", image.depth));
    }
    if matches!(image.ty, ImageType::Image1dArray | ImageType::Image2dArray) {
        parts.push(format!("array_size = {}", image.array_size));
    }
    parts.push(format!("order = {}", quote(&image.order_name())));
    parts.push(format!("channel_type = {}", quote(&image.type_name())));
    format!("{{ {} }}", parts.join(", "))
}

fn init_text(init: &Init, base_dir: &Path) -> String {
    match init {
        Init::Zero => quote("zero"),
        Init::NoInit => quote("noinit"),
        Init::Fill(v) => quote(&format!("fill({})", init_number(*v))),
        Init::Range { start, step } => {
            quote(&format!("range({}, {})", init_number(*start), init_number(*step)))
        }
        Init::Random { seed, lo: Some(lo), hi: Some(hi) } => {
            quote(&format!("random({seed}, {}, {})", init_number(*lo), init_number(*hi)))
        }
        Init::Random { seed, .. } => quote(&format!("random({seed})")),
        Init::File(path) => quote(&format!("file({})", relative(path, base_dir))),
        Init::Values(values) => {
            let items: Vec<String> = values.iter().map(|v| toml_number(*v)).collect();
            format!("[{}]", items.join(", "))
        }
        Init::Formula(formula) if formula.shape().is_empty() => {
            format!("{{ formula = {} }}", quote(&formula.text()))
        }
        Init::Formula(formula) => {
            let shape: Vec<String> = formula.shape().iter().map(u64::to_string).collect();
            format!("{{ formula = {}, shape = [{}] }}", quote(&formula.text()), shape.join(", "))
        }
    }
}

/// A number inside an init string: integers in decimal, floats in the shortest form that
/// reads back to the same `f64` (always with a `.` or exponent, so they stay floats).
fn init_number(n: Number) -> String {
    match n {
        Number::Int(i) => i.to_string(),
        Number::Float(f) if f.is_nan() => "nan".to_string(),
        Number::Float(f) if f.is_infinite() => if f > 0.0 { "inf" } else { "-inf" }.to_string(),
        Number::Float(f) => format!("{f:?}"),
    }
}

/// A number as a TOML value: integers beyond i64 become strings, which the reader accepts.
fn toml_number(n: Number) -> String {
    match n {
        Number::Int(i) => match i64::try_from(i) {
            Ok(small) => small.to_string(),
            Err(_) => quote(&i.to_string()),
        },
        Number::Float(f) => toml_float(f),
    }
}

fn toml_float(f: f64) -> String {
    init_number(Number::Float(f))
}

fn number_list(values: &[Number]) -> String {
    match values {
        [one] => toml_number(*one),
        _ => format!("[{}]", values.iter().map(|v| toml_number(*v)).collect::<Vec<_>>().join(", ")),
    }
}

fn relative(path: &Path, base_dir: &Path) -> String {
    path.strip_prefix(base_dir).unwrap_or(path).to_string_lossy().into_owned()
}

/// A TOML basic string.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_escapes() {
        assert_eq!(quote("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
    }

    #[test]
    fn numbers_read_back() {
        for n in [Number::Float(0.1), Number::Float(1e-7), Number::Float(-3.0), Number::Int(-5)] {
            assert_eq!(Number::parse(&init_number(n)), Some(n));
        }
        assert_eq!(toml_number(Number::Int(u64::MAX.into())), "\"18446744073709551615\"");
        assert_eq!(toml_number(Number::Float(f64::NEG_INFINITY)), "-inf");
    }
}
