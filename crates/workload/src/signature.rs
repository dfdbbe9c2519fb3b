//! Kernel signatures: what the compiled program says about each kernel's parameters, and the
//! check of a workload's arguments against them.
//!
//! This crate does not depend on the OpenCL C front end. The caller compiles the source once
//! (with the real front end) and hands the result in through [`SignatureSource`]: Oclgrind
//! `.sim` files take from it whether each argument is a buffer, a scalar or local memory (they
//! do not say), and [`check_kernel_params`] compares every argument with its parameter.

use std::path::Path;

use crate::error::{Location, WorkloadError};
use crate::image::ImageType;
use crate::model::{LaunchArg, Workload};
use crate::types::{ElemType, ScalarType};

/// The address space of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamSpace {
    Global,
    Constant,
    Local,
    /// Passed by value.
    Private,
}

/// What a workload needs to know about one kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParam {
    pub name: String,
    pub space: ParamSpace,
    /// The value type, or the pointee type for pointers, e.g. `float4` or `unsigned int`.
    pub type_name: String,
}

impl KernelParam {
    /// The parameter as OpenCL C declares it, e.g. `__global float *out` or `uint n`.
    pub fn declaration(&self) -> String {
        let space = match self.space {
            ParamSpace::Global => "__global ",
            ParamSpace::Constant => "__constant ",
            ParamSpace::Local => "__local ",
            ParamSpace::Private => "",
        };
        let star = if self.space == ParamSpace::Private { " " } else { " *" };
        format!("{space}{}{star}{}", self.type_name, self.name)
    }

    /// The element type of the value or pointee, qualifiers ignored; `None` for `void` and
    /// types a workload cannot describe (structs, images).
    pub fn elem_type(&self) -> Option<ElemType> {
        ElemType::parse(&unqualified(&self.type_name))
    }

    /// The image type of an `image2d_t` … parameter.
    pub fn image_type(&self) -> Option<ImageType> {
        if self.space != ParamSpace::Private {
            return None;
        }
        let text = unqualified(&self.type_name);
        let text = text
            .split_whitespace()
            .filter(|w| {
                !w.contains("read_only") && !w.contains("write_only") && !w.contains("read_write")
            })
            .collect::<Vec<_>>()
            .join(" ");
        ImageType::parse(&text)
    }

    /// Whether the parameter is a `sampler_t`.
    pub fn is_sampler(&self) -> bool {
        self.space == ParamSpace::Private && unqualified(&self.type_name) == "sampler_t"
    }

    fn is_pointer(&self) -> bool {
        self.space != ParamSpace::Private
    }

    /// `void *` and `char *` style parameters: the kernel reads the buffer as bytes, so a
    /// buffer of any element type may be passed.
    fn is_byte_pointer(&self) -> bool {
        if !self.is_pointer() {
            return false;
        }
        let text = unqualified(&self.type_name);
        text == "void"
            || matches!(
                ElemType::parse(&text),
                Some(ElemType { scalar: ScalarType::Char | ScalarType::UChar, width: 1 })
            )
    }
}

/// The type name without `const`, `volatile` and `restrict`.
fn unqualified(type_name: &str) -> String {
    type_name
        .split_whitespace()
        .filter(|w| {
            !matches!(*w, "const" | "volatile" | "restrict" | "__restrict" | "__restrict__")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The kernels of one compiled program.
pub trait KernelSignatures {
    /// The parameters of `kernel`, `Ok(None)` when the program has no such kernel, `Err`
    /// when they cannot be told.
    fn kernel_params(&mut self, kernel: &str) -> Result<Option<Vec<KernelParam>>, String>;

    /// The names of the program's kernels, for messages about a kernel that is not there.
    fn kernel_names(&mut self) -> Vec<String>;
}

/// Compiles a workload's source: given the source path, text and build options, returns the
/// program's signatures, or the compiler's rendered diagnostics. Loading calls it at most once.
pub trait SignatureSource {
    fn signatures(
        &mut self,
        source_path: &Path,
        source: &str,
        options: &str,
    ) -> Result<&mut dyn KernelSignatures, String>;
}

/// Signatures known in advance (tests; tools that generated the kernel themselves). It is its
/// own [`SignatureSource`] and ignores the source it is given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FixedSignatures {
    pub kernels: Vec<(String, Vec<KernelParam>)>,
}

impl FixedSignatures {
    /// One kernel and its parameters.
    pub fn one(kernel: impl Into<String>, params: Vec<KernelParam>) -> FixedSignatures {
        FixedSignatures { kernels: vec![(kernel.into(), params)] }
    }
}

impl KernelSignatures for FixedSignatures {
    fn kernel_params(&mut self, kernel: &str) -> Result<Option<Vec<KernelParam>>, String> {
        Ok(self.kernels.iter().find(|(k, _)| k == kernel).map(|(_, p)| p.clone()))
    }

    fn kernel_names(&mut self) -> Vec<String> {
        self.kernels.iter().map(|(k, _)| k.clone()).collect()
    }
}

impl SignatureSource for FixedSignatures {
    fn signatures(
        &mut self,
        _source_path: &Path,
        _source: &str,
        _options: &str,
    ) -> Result<&mut dyn KernelSignatures, String> {
        Ok(self)
    }
}

/// "`k` has no kernel `x` (kernels: a, b)".
pub(crate) fn no_such_kernel(kernel: &str, signatures: &mut dyn KernelSignatures) -> String {
    let names = signatures.kernel_names();
    format!(
        "the program has no kernel `{kernel}` (kernels: {})",
        if names.is_empty() { "none".to_string() } else { names.join(", ") }
    )
}

/// Checks every launch against its kernel's parameters: the kernel exists, the argument
/// count matches, each argument has the parameter's kind (a buffer or NULL for `__global` and
/// `__constant` pointers, local memory for `__local` pointers, a scalar for by-value
/// parameters) and its element type. Element types compare by component type and width,
/// spelling aside (`uint` is `unsigned int`); `void *` and `char *` parameters take buffers of
/// any type; a buffer of scalars may back a pointer to vectors of the same component type
/// (Oclgrind `.sim` files describe every buffer by its components).
pub fn check_kernel_params(
    workload: &Workload,
    signatures: &mut dyn KernelSignatures,
) -> Result<(), WorkloadError> {
    check_launches(workload, signatures, &[])
}

/// [`check_kernel_params`], with where each launch is written (`located[i]` for launch `i`;
/// the file alone for launches it does not cover), so a message points at the launch.
pub(crate) fn check_launches(
    workload: &Workload,
    signatures: &mut dyn KernelSignatures,
    located: &[Location],
) -> Result<(), WorkloadError> {
    for (index, launch) in workload.launches.iter().enumerate() {
        let fail = |message: String| WorkloadError::Invalid {
            location: located
                .get(index)
                .cloned()
                .unwrap_or_else(|| Location::file(workload.path.clone())),
            message,
        };
        let at = format!("launch {} (`{}`)", index + 1, launch.kernel);
        let params = signatures
            .kernel_params(&launch.kernel)
            .map_err(|e| fail(format!("{at}: {e}")))?
            .ok_or_else(|| fail(format!("{at}: {}", no_such_kernel(&launch.kernel, signatures))))?;
        if params.len() != launch.args.len() {
            return Err(fail(format!("{at}: {}", count_mismatch(&params, &launch.args))));
        }
        for (position, (arg, param)) in launch.args.iter().zip(&params).enumerate() {
            check_arg(workload, arg, param).map_err(|problem| {
                fail(format!(
                    "{at}: argument {position} (`{}`) {problem}; the parameter is `{}`",
                    arg.name(),
                    param.declaration()
                ))
            })?;
        }
    }
    Ok(())
}

/// Says which parameters have no argument, or which arguments no parameter. Arguments are
/// bound by position; when every argument is named after a parameter, the names tell which
/// are missing wherever they are in the list, else the list's tail is.
fn count_mismatch(params: &[KernelParam], args: &[LaunchArg]) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let declared: Vec<String> = params.iter().map(KernelParam::declaration).collect();
    let counts = format!(
        "{} argument{} given, the kernel has {} parameter{} ({})",
        args.len(),
        plural(args.len()),
        params.len(),
        plural(params.len()),
        declared.join(", ")
    );
    let quoted =
        |names: Vec<String>| names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    if args.len() < params.len() {
        let by_name = args.iter().all(|a| params.iter().any(|p| p.name == a.name()));
        let missing: Vec<String> = if by_name {
            params
                .iter()
                .filter(|p| !args.iter().any(|a| a.name() == p.name))
                .map(KernelParam::declaration)
                .collect()
        } else {
            params[args.len()..].iter().map(KernelParam::declaration).collect()
        };
        format!(
            "{counts}: no argument for {}; add one for each, in the kernel's order",
            quoted(missing)
        )
    } else {
        // Positions count from 0, as `clSetKernelArg` and the other messages here count them.
        let extra: Vec<String> = args
            .iter()
            .enumerate()
            .skip(params.len())
            .map(|(i, a)| format!("{i} (`{}`)", a.name()))
            .collect();
        let (s, verb) = if extra.len() == 1 { ("", "matches") } else { ("s", "match") };
        format!("{counts}: argument{s} {} {verb} no parameter", extra.join(", "))
    }
}

fn check_arg(workload: &Workload, arg: &LaunchArg, param: &KernelParam) -> Result<(), String> {
    let image = match arg {
        LaunchArg::Buffer { buffer } => workload.buffer(buffer).and_then(|b| b.image),
        _ => None,
    };
    match (param.image_type(), image) {
        (Some(wanted), Some(given)) if wanted == given.ty => return Ok(()),
        (Some(wanted), Some(given)) => {
            return Err(format!("is an {}, but the kernel expects an {wanted}", given.ty))
        }
        (Some(wanted), None) => {
            return Err(format!(
                "is not an image, but the kernel expects an {wanted} (a buffer with \
                 `image = {{ type = \"{wanted}\", … }}`)"
            ))
        }
        (None, Some(given)) => {
            return Err(format!("is an {}, but the parameter is no image", given.ty))
        }
        (None, None) => {}
    }
    match (param.is_sampler(), arg) {
        (true, LaunchArg::Sampler { .. }) => return Ok(()),
        (true, _) => {
            return Err("is not a sampler, but the kernel expects one (`{ sampler = \"CLK_…\" }`)"
                .to_string())
        }
        (false, LaunchArg::Sampler { .. }) => {
            return Err("is a sampler, but the parameter is no sampler_t".to_string())
        }
        _ => {}
    }
    let (kind, elem) = match arg {
        LaunchArg::Buffer { buffer } => ("a buffer", workload.buffer(buffer).map(|b| b.elem)),
        LaunchArg::Null { .. } => ("NULL", None),
        LaunchArg::Local { elem, .. } => ("local memory", Some(*elem)),
        LaunchArg::Scalar { ty, .. } | LaunchArg::LoopScalar { ty, .. } => ("a scalar", Some(*ty)),
        LaunchArg::Bytes { .. } => ("raw bytes", None),
        LaunchArg::Sampler { .. } => ("a sampler", None),
    };
    let kind_fits = match arg {
        LaunchArg::Buffer { .. } | LaunchArg::Null { .. } => {
            matches!(param.space, ParamSpace::Global | ParamSpace::Constant)
        }
        LaunchArg::Local { .. } => param.space == ParamSpace::Local,
        LaunchArg::Scalar { .. }
        | LaunchArg::LoopScalar { .. }
        | LaunchArg::Bytes { .. }
        | LaunchArg::Sampler { .. } => param.space == ParamSpace::Private,
    };
    if !kind_fits {
        let wanted = match param.space {
            ParamSpace::Global | ParamSpace::Constant => "a buffer (or NULL)",
            ParamSpace::Local => "local memory (`local = TYPE, len = N`)",
            ParamSpace::Private => "a scalar (`scalar = TYPE, value = V`)",
        };
        return Err(format!("is {kind}, but the kernel expects {wanted}"));
    }
    let Some(elem) = elem else { return Ok(()) };
    if param.is_byte_pointer() {
        return Ok(());
    }
    // Structs, images and other types a workload cannot spell are not compared.
    let Some(declared) = param.elem_type() else { return Ok(()) };
    let same_components = declared.scalar == elem.scalar;
    let width_fits = declared.width == elem.width || (param.is_pointer() && elem.width == 1);
    if same_components && width_fits {
        return Ok(());
    }
    let noun = match arg {
        LaunchArg::Buffer { .. } => "buffer",
        LaunchArg::Local { .. } => "local array",
        _ => "scalar",
    };
    Err(format!("is a `{elem}` {noun}, but the parameter's type is `{declared}`"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Access, ArgSpec, NdRange};
    use crate::number::Number;
    use crate::Init;

    fn param(name: &str, space: ParamSpace, type_name: &str) -> KernelParam {
        KernelParam { name: name.into(), space, type_name: type_name.into() }
    }

    fn buffer(name: &str, elem: &str) -> ArgSpec {
        ArgSpec::Buffer {
            name: name.into(),
            elem: ElemType::parse(elem).expect("type"),
            len: 4,
            init: Init::Zero,
            output: false,
            access: Access::ReadWrite,
            tolerance: None,
        }
    }

    fn scalar(name: &str, ty: &str) -> ArgSpec {
        ArgSpec::Scalar {
            name: name.into(),
            ty: ElemType::parse(ty).expect("type"),
            value: vec![Number::Int(1)],
        }
    }

    fn check(args: Vec<ArgSpec>, params: Vec<KernelParam>) -> Result<(), String> {
        let w = Workload::single("", "k", NdRange::linear(4, None), args);
        check_kernel_params(&w, &mut FixedSignatures::one("k", params)).map_err(|e| e.to_string())
    }

    #[test]
    fn matching_arguments_pass_whatever_the_spelling() {
        let params = vec![
            param("a", ParamSpace::Global, "const float"),
            param("b", ParamSpace::Constant, "unsigned int"),
            param("c", ParamSpace::Global, "void"),
            param("d", ParamSpace::Global, "uchar"),
            param("n", ParamSpace::Private, "const uint"),
            param("v", ParamSpace::Global, "float4"),
        ];
        let args = vec![
            buffer("a", "float"),
            buffer("b", "uint"),
            buffer("c", "double2"),
            buffer("d", "int"),
            scalar("n", "unsigned int"),
            buffer("v", "float4"),
        ];
        assert_eq!(check(args, params), Ok(()));
    }

    #[test]
    fn an_int_buffer_for_a_float_pointer_names_launch_argument_and_types() {
        let err = check(vec![buffer("x", "int")], vec![param("out", ParamSpace::Global, "float")])
            .expect_err("mismatch");
        assert!(
            err.contains("launch 1 (`k`)")
                && err.contains("argument 0 (`x`)")
                && err.contains("`int` buffer")
                && err.contains("`float`")
                && err.contains("__global float *out"),
            "{err}"
        );
    }

    #[test]
    fn kinds_counts_vectors_and_kernels_are_checked() {
        let global = |t: &str| param("p", ParamSpace::Global, t);
        assert!(check(vec![scalar("s", "int")], vec![global("int")])
            .is_err_and(|e| e.contains("expects a buffer")));
        assert!(check(vec![buffer("b", "int")], vec![param("n", ParamSpace::Private, "int")])
            .is_err_and(|e| e.contains("expects a scalar")));
        assert!(check(vec![buffer("b", "int")], vec![param("t", ParamSpace::Local, "int")])
            .is_err_and(|e| e.contains("local memory")));
        assert!(check(vec![], vec![global("int")]).is_err_and(|e| e.contains("0 arguments")));
        assert!(check(vec![buffer("b", "float2")], vec![global("float4")])
            .is_err_and(|e| e.contains("`float2`")));
        assert!(check(vec![buffer("b", "int4")], vec![global("float4")]).is_err());
        // A buffer of components may back a vector pointer (as .sim files describe buffers).
        assert_eq!(check(vec![buffer("b", "float")], vec![global("float4")]), Ok(()));
        assert!(check(vec![scalar("s", "int")], vec![param("f", ParamSpace::Private, "float")])
            .is_err_and(|e| e.contains("`int` scalar")));
        assert!(check(vec![scalar("s", "float")], vec![param("v", ParamSpace::Private, "float4")])
            .is_err());
        // Types a workload cannot spell are not compared.
        assert_eq!(check(vec![buffer("b", "int")], vec![global("struct cell")]), Ok(()));
        let w = Workload::single("", "k", NdRange::linear(4, None), vec![]);
        let err = check_kernel_params(&w, &mut FixedSignatures::one("other", vec![]))
            .expect_err("no kernel")
            .to_string();
        assert!(err.contains("no kernel `k`") && err.contains("other"), "{err}");
    }

    #[test]
    fn declarations_read_like_opencl_c() {
        assert_eq!(param("out", ParamSpace::Global, "float").declaration(), "__global float *out");
        assert_eq!(param("n", ParamSpace::Private, "uint").declaration(), "uint n");
    }
}
