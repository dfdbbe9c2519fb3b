//! A starting workload for a kernel: one `[[arg]]` per parameter with the element types the
//! compiled kernel declares, sizes gathered in `[sizes]` for the user to fill in. As written,
//! with its placeholder sizes, it loads and runs.

use std::fmt::Write as _;

use crate::signature::{KernelParam, ParamSpace};
use crate::toml_writer::quote;
use crate::types::ElemType;

/// Placeholder number of elements per buffer (and work-items).
const DEFAULT_N: u64 = 1024;
/// Placeholder elements per work-group of a `__local` array.
const DEFAULT_LOCAL_LEN: u64 = 256;

/// A TOML workload for `kernel` with parameters `params`. `source` is written as the `source`
/// key (a path relative to where the workload will be saved); `options` are build options.
pub fn skeleton_toml(source: &str, kernel: &str, params: &[KernelParam], options: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# A workload for kernel `{kernel}`: fill in the sizes and the data,");
    let _ =
        writeln!(out, "# then run it with `clmap run THIS_FILE`. Reference: docs/workloads.md.");
    let _ = writeln!(out, "source  = {}   # relative to this file", quote(source));
    let _ = writeln!(out, "kernel  = {}", quote(kernel));
    if !options.trim().is_empty() {
        let _ = writeln!(out, "options = {}", quote(options.trim()));
    }
    let _ = writeln!(out, "global  = [\"n\"]          # work-items per dimension (1 to 3 numbers)");
    let _ = writeln!(out, "# local = [64]            # work-group size; must divide `global`");
    let _ = writeln!(
        out,
        "# outputs = [\"...\"]      # buffers compared and dumped after the run (or output = true)"
    );
    out.push_str("\n[sizes]                    # names usable in len, global, local and values\n");
    let _ = writeln!(out, "n = {DEFAULT_N}                   # TODO: the problem size");
    for p in params.iter().filter(|p| p.space == ParamSpace::Local) {
        let _ = writeln!(
            out,
            "{} = {DEFAULT_LOCAL_LEN}   # TODO: elements of `{}` per work-group",
            local_size_name(p),
            p.name
        );
    }
    for p in params {
        out.push_str("\n[[arg]]\n");
        let _ = writeln!(out, "name   = {}", quote(&p.name));
        let elem = p.elem_type();
        let declared = p.declaration();
        match p.space {
            ParamSpace::Global | ParamSpace::Constant => {
                let (ty, note) = match elem {
                    Some(t) => (t.to_string(), String::new()),
                    None => ("uchar".to_string(), " (not a type workloads spell: bytes)".into()),
                };
                let _ = writeln!(out, "buffer = {}   # {declared}{note}", quote(&ty));
                out.push_str("len    = \"n\"   # TODO: elements\n");
                let init = match elem {
                    Some(t) if t.scalar.is_float() => "random(1, 0.0, 1.0)",
                    Some(_) => "random(1)",
                    None => "zero",
                };
                let _ = writeln!(
                    out,
                    "init   = {}   # zero, fill(V), range(START), random(SEED), file(PATH) or [..]",
                    quote(init)
                );
            }
            ParamSpace::Local => {
                let ty = elem.map_or("uchar".to_string(), |t| t.to_string());
                let _ = writeln!(out, "local  = {}   # {declared}", quote(&ty));
                let _ = writeln!(out, "len    = {}", quote(&local_size_name(p)));
            }
            ParamSpace::Private => {
                let (ty, value) = match elem {
                    Some(t) if t.scalar.is_float() => (t, "1.0".to_string()),
                    Some(t) if t.width == 1 => (t, quote("n")),
                    Some(t) => (t, "1".to_string()),
                    None => {
                        let opaque = p.type_name.starts_with("image") || p.type_name == "sampler_t";
                        let note = if opaque {
                            "images and samplers cannot be given in a workload"
                        } else {
                            "by-value structs are not supported"
                        };
                        (ElemType::scalar(crate::types::ScalarType::Int), format!("0   # {note}"))
                    }
                };
                let _ = writeln!(out, "scalar = {}   # {declared}", quote(&ty.to_string()));
                let _ = writeln!(out, "value  = {value}   # TODO");
            }
        }
    }
    out
}

/// The `[sizes]` name of a local array's length.
fn local_size_name(param: &KernelParam) -> String {
    format!("{}_len", param.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LaunchArg, Workload};

    fn param(name: &str, space: ParamSpace, ty: &str) -> KernelParam {
        KernelParam { name: name.into(), space, type_name: ty.into() }
    }

    #[test]
    fn every_parameter_becomes_an_argument_that_loads() {
        let params = vec![
            param("in", ParamSpace::Global, "float4"),
            param("lut", ParamSpace::Constant, "short"),
            param("out", ParamSpace::Global, "uint"),
            param("raw", ParamSpace::Global, "void"),
            param("tile", ParamSpace::Local, "float"),
            param("n", ParamSpace::Private, "uint"),
            param("scale", ParamSpace::Private, "float"),
            param("offset", ParamSpace::Private, "int2"),
        ];
        let text = skeleton_toml("k.cl", "k", &params, "-DTILE=16");
        let dir = std::env::temp_dir().join(format!("clmap-skeleton-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("k.cl"), "").expect("write");
        let w = Workload::from_toml_str(&text, &dir).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(w.options, "-DTILE=16");
        assert_eq!(w.launches[0].range.global[0], 1024);
        let summary: Vec<String> = w.launches[0]
            .args
            .iter()
            .map(|a| match a {
                LaunchArg::Buffer { buffer } => {
                    let b = w.buffer(buffer).expect("buffer");
                    format!("{buffer}:{}x{}", b.elem, b.len)
                }
                LaunchArg::Local { name, elem, len } => format!("{name}:local {elem}x{len}"),
                LaunchArg::Scalar { name, ty, value } => format!("{name}:{ty}={value:?}"),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                "in:float4x1024",
                "lut:shortx1024",
                "out:uintx1024",
                "raw:ucharx1024",
                "tile:local floatx256",
                "n:uint=[Int(1024)]",
                "scale:float=[Float(1.0)]",
                "offset:int2=[Int(1), Int(1)]",
            ]
        );
        assert!(text.contains("# __global float4 *in"), "{text}");
        let mut signatures = crate::FixedSignatures::one("k", params);
        crate::check_kernel_params(&w, &mut signatures).expect("the skeleton matches its kernel");
    }
}
