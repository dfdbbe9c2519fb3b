//! Writing a single-launch workload as an Oclgrind `.sim` file, so `oclgrind-kernel` can run
//! exactly the inputs clmap runs (it is the reference the benchmarks compare against).

use std::fmt::Write as _;

use crate::error::{Location, WorkloadError};
use crate::init::Init;
use crate::model::{Access, LaunchArg, Workload};
use crate::number::Number;
use crate::types::{ElemType, ScalarType};

/// A workload rendered for `oclgrind-kernel`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimExport {
    /// The `.sim` text.
    pub text: String,
    /// Build options, which a `.sim` file cannot hold: pass them with
    /// `oclgrind-kernel --build-options`.
    pub build_options: String,
}

impl Workload {
    /// Renders the workload as an Oclgrind `.sim` file. The kernel file is written as an
    /// absolute path (Oclgrind resolves it against its working directory). Buffers whose data
    /// Oclgrind cannot generate itself (random, file, float ranges) are written out value by
    /// value, from [`Workload::initial_data`] with `seed_shift`. Refused: pipelines,
    /// repeated launches and groups, host writes, scalars that depend on the repetition, global offsets, `half` data, and non-finite floats, none of which
    /// the format can express. Without a work-group size, work-groups of 1 are written.
    pub fn to_sim(&self, seed_shift: u64) -> Result<SimExport, WorkloadError> {
        let refuse = |message: String| WorkloadError::Invalid {
            location: Location::file(self.path.clone()),
            message: format!("cannot write as an Oclgrind .sim file: {message}"),
        };
        let [launch] = self.launches.as_slice() else {
            return Err(refuse(format!("it has {} launches; .sim holds one", self.launches.len())));
        };
        if launch.repeat != 1 || !launch.swap.is_empty() || !self.groups.is_empty() {
            return Err(refuse("repeated launches, groups and swaps have no .sim form".into()));
        }
        if !launch.writes.is_empty() {
            return Err(refuse("host writes between launches have no .sim form".into()));
        }
        if launch.range.offset != [0; 3] {
            return Err(refuse("a global offset has no .sim form".into()));
        }
        let data = self.initial_data(seed_shift)?;
        let source = std::fs::canonicalize(&self.source_path).unwrap_or(self.source_path.clone());
        let source = source.to_string_lossy();
        if source.chars().any(char::is_whitespace) || source.contains('#') {
            return Err(refuse(format!("the kernel path `{source}` contains spaces or '#'")));
        }
        let mut text = String::new();
        let _ = writeln!(text, "# written by clmap from {}", self.describe_origin());
        let _ = writeln!(text, "{source}\n{}", launch.kernel);
        let sizes = |v: [u64; 3]| format!("{} {} {}", v[0], v[1], v[2]);
        let _ = writeln!(text, "{}", sizes(launch.range.global));
        let _ = writeln!(text, "{}", sizes(launch.range.local.unwrap_or([1, 1, 1])));
        for arg in &launch.args {
            match arg {
                LaunchArg::Null { .. } => text.push_str("<null>\n"),
                LaunchArg::LoopScalar { name, .. } => {
                    return Err(refuse(format!(
                        "scalar `{name}` depends on the repetition, which .sim cannot express"
                    )));
                }
                LaunchArg::Local { elem, len, .. } => {
                    let _ = writeln!(text, "<size={}>", len.saturating_mul(elem.size()));
                }
                LaunchArg::Sampler { name, .. } => {
                    return Err(refuse(format!(
                        "argument `{name}` is a sampler, which .sim cannot express"
                    )));
                }
                LaunchArg::Bytes { bytes, .. } => {
                    // A struct: its bytes, which Oclgrind lays out as the parameter's value.
                    let _ = write!(text, "<size={} uchar hex>", bytes.len());
                    for byte in bytes {
                        let _ = write!(text, " 0x{byte:02x}");
                    }
                    text.push('\n');
                }
                LaunchArg::Scalar { name, ty, .. } => {
                    let bytes = arg.scalar_bytes().unwrap_or(Ok(Vec::new()))?;
                    let values = values_text(*ty, &bytes)
                        .map_err(|m| refuse(format!("scalar `{name}`: {m}")))?;
                    let _ = writeln!(text, "<size={} {}> {values}", bytes.len(), sim_type(*ty)?);
                }
                LaunchArg::Buffer { buffer } => {
                    let (Some(b), Some(contents)) = (self.buffer(buffer), data.get(buffer)) else {
                        return Err(refuse(format!("unknown buffer `{buffer}`")));
                    };
                    let mut header = format!("size={} {}", contents.bytes.len(), sim_type(b.elem)?);
                    match b.access {
                        Access::ReadWrite => {}
                        Access::ReadOnly => header.push_str(" ro"),
                        Access::WriteOnly => header.push_str(" wo"),
                    }
                    if b.output {
                        header.push_str(" dump");
                    }
                    let integer = !b.elem.scalar.is_float();
                    match (&b.init, b.elem.width) {
                        (Init::NoInit, _) => header.push_str(" noinit"),
                        (Init::Zero, _) => header.push_str(" fill=0"),
                        (Init::Fill(v), 1) if integer || v.as_f64().is_finite() => {
                            let _ = write!(header, " fill={}", fill_text(*v));
                        }
                        (Init::Range { start: Number::Int(s), step: Number::Int(i) }, 1)
                            if integer && *i != 0 =>
                        {
                            let last = i128::from(b.len.saturating_sub(1));
                            let end = s.saturating_add(i.saturating_mul(last));
                            let _ = write!(header, " range={s}:{i}:{end}");
                        }
                        _ => {
                            let values = values_text(b.elem, &contents.bytes)
                                .map_err(|m| refuse(format!("buffer `{buffer}`: {m}")))?;
                            let _ = writeln!(text, "<{header}>\n{values}");
                            continue;
                        }
                    }
                    let _ = writeln!(text, "<{header}>");
                }
            }
        }
        Ok(SimExport { text, build_options: self.options.clone() })
    }

    fn describe_origin(&self) -> String {
        match &self.path {
            Some(path) => path.display().to_string(),
            None => "a workload built in code".to_string(),
        }
    }
}

fn sim_type(elem: ElemType) -> Result<&'static str, WorkloadError> {
    if elem.scalar == ScalarType::Half {
        return Err(WorkloadError::Invalid {
            location: Location::default(),
            message: "cannot write as an Oclgrind .sim file: Oclgrind has no half data".into(),
        });
    }
    Ok(elem.scalar.name())
}

fn fill_text(v: Number) -> String {
    match v {
        Number::Int(i) => i.to_string(),
        Number::Float(f) => format!("{f:e}"),
    }
}

/// Every scalar of `bytes` (vector padding included, as Oclgrind reads raw memory), eight to a
/// line. Floats are written in the shortest form that C++ streams read back exactly.
fn values_text(elem: ElemType, bytes: &[u8]) -> Result<String, String> {
    let ty = elem.scalar;
    let mut out = String::new();
    for (i, chunk) in bytes.chunks_exact(ty.size() as usize).enumerate() {
        if i > 0 {
            out.push(if i % 8 == 0 { '\n' } else { ' ' });
        }
        match Number::read_le(ty, chunk) {
            Some(Number::Int(v)) => {
                let _ = write!(out, "{v}");
            }
            Some(Number::Float(f)) if !f.is_finite() => {
                return Err(format!("value {f} at index {i} cannot be read by Oclgrind"));
            }
            Some(Number::Float(f)) if ty == ScalarType::Float => {
                let _ = write!(out, "{:e}", f as f32);
            }
            Some(Number::Float(f)) => {
                let _ = write!(out, "{f:e}");
            }
            None => {}
        }
    }
    Ok(out)
}
