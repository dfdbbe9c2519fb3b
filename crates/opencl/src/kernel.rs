//! Kernels: their parameters as the front end typed them, the arguments the host sets, and the
//! kernel and work-group queries.

use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex};

use clmap_lang::ir::{AccessQualifier, AddressSpace, TypeInner};

use crate::cl::*;
use crate::config::config;
use crate::info::{created, Info};
use crate::object::{Kind, Obj, Object};
use crate::platform::the_device;
use crate::program::{Built, Program};
use crate::{cl_device_id, cl_kernel, cl_mem, cl_program, cl_sampler};

/// How a kernel parameter receives its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A `__global` or `__constant` pointer: a buffer (or NULL).
    Buffer {
        constant: bool,
    },
    /// A `__local` pointer: a size, allocated per work-group.
    Local,
    /// A by-value argument of this many bytes.
    Value {
        size: usize,
    },
    Image,
    Sampler,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    /// The type as `clGetKernelArgInfo` names it (`float*`, `int4`).
    pub type_name: String,
    pub type_qualifier: u64,
    pub access: u32,
}

/// An argument as the host set it.
#[derive(Clone, Debug)]
pub enum Arg {
    Mem(cl_mem),
    Null,
    Local(usize),
    Bytes(Vec<u8>),
    Sampler(cl_sampler),
}

unsafe impl Send for Arg {}
unsafe impl Sync for Arg {}

pub struct Kernel {
    pub program: cl_program,
    pub name: String,
    pub built: Arc<Built>,
    pub sim: Arc<clmap_sim::Program>,
    pub params: Vec<Param>,
    pub args: Mutex<Vec<Option<Arg>>>,
    pub reqd_work_group_size: Option<[u32; 3]>,
    pub attributes: String,
}

unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

impl Object for Kernel {
    const KIND: Kind = Kind::Kernel;
    const INVALID: i32 = CL_INVALID_KERNEL;
}

fn params_of(built: &Built, name: &str) -> Option<(Vec<Param>, Option<[u32; 3]>, String)> {
    let module = &built.compiled.module;
    let (_, function) = module.kernels().find(|(_, f)| f.name == name)?;
    let params = function
        .params
        .iter()
        .map(|p| {
            let print = |ty| clmap_lang::print::print_type(module, ty);
            match module.types.get(p.ty) {
                Some(TypeInner::Pointer { pointee, space, is_const, is_volatile, is_restrict }) => {
                    let mut qualifier = 0;
                    if *is_const || *space == AddressSpace::Constant {
                        qualifier |= CL_KERNEL_ARG_TYPE_CONST;
                    }
                    if *is_restrict {
                        qualifier |= CL_KERNEL_ARG_TYPE_RESTRICT;
                    }
                    if *is_volatile {
                        qualifier |= CL_KERNEL_ARG_TYPE_VOLATILE;
                    }
                    let kind = match space {
                        AddressSpace::Local => ParamKind::Local,
                        AddressSpace::Constant => ParamKind::Buffer { constant: true },
                        _ => ParamKind::Buffer { constant: false },
                    };
                    Param {
                        name: p.name.clone(),
                        kind,
                        type_name: format!("{}*", print(*pointee)),
                        type_qualifier: qualifier,
                        access: CL_KERNEL_ARG_ACCESS_NONE,
                    }
                }
                Some(TypeInner::Image(kind)) => Param {
                    name: p.name.clone(),
                    kind: ParamKind::Image,
                    type_name: crate::image::type_name(*kind).to_string(),
                    type_qualifier: 0,
                    access: match p.access {
                        Some(AccessQualifier::WriteOnly) => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                        Some(AccessQualifier::ReadWrite) => CL_KERNEL_ARG_ACCESS_READ_WRITE,
                        _ => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                    },
                },
                Some(TypeInner::Sampler) => Param {
                    name: p.name.clone(),
                    kind: ParamKind::Sampler,
                    type_name: "sampler_t".to_string(),
                    type_qualifier: 0,
                    access: CL_KERNEL_ARG_ACCESS_NONE,
                },
                _ => Param {
                    name: p.name.clone(),
                    kind: ParamKind::Value { size: module.size_of(p.ty) as usize },
                    type_name: print(p.ty),
                    type_qualifier: 0,
                    access: CL_KERNEL_ARG_ACCESS_NONE,
                },
            }
        })
        .collect();
    let (reqd, attributes) = match &function.kind {
        clmap_lang::ir::FunctionKind::Kernel(attrs) => {
            let mut text = Vec::new();
            if let Some([x, y, z]) = attrs.reqd_work_group_size {
                text.push(format!("reqd_work_group_size({x},{y},{z})"));
            }
            if let Some([x, y, z]) = attrs.work_group_size_hint {
                text.push(format!("work_group_size_hint({x},{y},{z})"));
            }
            (attrs.reqd_work_group_size, text.join(" "))
        }
        _ => (None, String::new()),
    };
    Some((params, reqd, attributes))
}

unsafe fn new_kernel(program: cl_program, p: &Obj<Program>, name: &str) -> Result<cl_kernel, i32> {
    let mut state = p.inner.state.lock().unwrap_or_else(|e| e.into_inner());
    let built = state.built.clone().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
    let sim = built.kernel(name).cloned().ok_or(CL_INVALID_KERNEL_NAME)?;
    let (params, reqd, attributes) = params_of(&built, name).ok_or(CL_INVALID_KERNEL_NAME)?;
    state.kernels += 1;
    drop(state);
    crate::program::retain_program(program);
    let args = Mutex::new(vec![None; params.len()]);
    Ok(Obj::create(Kernel {
        program,
        name: name.to_string(),
        built,
        sim,
        params,
        args,
        reqd_work_group_size: reqd,
        attributes,
    }))
}

pub unsafe extern "C" fn create_kernel(
    program: cl_program,
    name: *const c_char,
    errcode_ret: *mut i32,
) -> cl_kernel {
    let result = (|| {
        let p = Obj::get(program)?;
        if name.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let name = CStr::from_ptr(name).to_string_lossy().into_owned();
        new_kernel(program, p, &name)
    })();
    created(result, errcode_ret)
}

pub unsafe extern "C" fn create_kernels_in_program(
    program: cl_program,
    num_kernels: u32,
    kernels: *mut cl_kernel,
    num_ret: *mut u32,
) -> i32 {
    let p = try_cl!(Obj::get(program));
    let names: Vec<String> = match &p.inner.state.lock().unwrap_or_else(|e| e.into_inner()).built {
        Some(built) => built.kernels.iter().map(|(n, _)| n.clone()).collect(),
        None => return CL_INVALID_PROGRAM_EXECUTABLE,
    };
    if !kernels.is_null() && (num_kernels as usize) < names.len() {
        return CL_INVALID_VALUE;
    }
    if !kernels.is_null() {
        for (i, name) in names.iter().enumerate() {
            match new_kernel(program, p, name) {
                Ok(k) => *kernels.add(i) = k,
                Err(code) => return code,
            }
        }
    }
    if !num_ret.is_null() {
        *num_ret = names.len() as u32;
    }
    CL_SUCCESS
}

pub unsafe extern "C" fn retain_kernel(kernel: cl_kernel) -> i32 {
    Obj::retain(kernel)
}

pub unsafe extern "C" fn release_kernel(kernel: cl_kernel) -> i32 {
    match Obj::release(kernel) {
        Ok(Some(k)) => {
            if let Ok(p) = Obj::get(k.program) {
                let mut state = p.inner.state.lock().unwrap_or_else(|e| e.into_inner());
                state.kernels = state.kernels.saturating_sub(1);
            }
            crate::program::release_program(k.program)
        }
        Ok(None) => CL_SUCCESS,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn set_kernel_arg(
    kernel: cl_kernel,
    index: u32,
    size: usize,
    value: *const c_void,
) -> i32 {
    let k = try_cl!(Obj::get(kernel));
    let Some(param) = k.inner.params.get(index as usize) else { return CL_INVALID_ARG_INDEX };
    let handle_size = std::mem::size_of::<*mut c_void>();
    let arg = match param.kind {
        ParamKind::Buffer { .. } | ParamKind::Image => {
            if size != handle_size {
                return CL_INVALID_ARG_SIZE;
            }
            let mem =
                if value.is_null() { std::ptr::null_mut() } else { *(value as *const cl_mem) };
            if mem.is_null() {
                if param.kind == ParamKind::Image {
                    return CL_INVALID_ARG_VALUE;
                }
                Arg::Null
            } else {
                let m = match Obj::get(mem) {
                    Ok(m) => m,
                    Err(_) => return CL_INVALID_MEM_OBJECT,
                };
                let is_image = matches!(m.inner.kind, crate::memory::MemKind::Image(_));
                if is_image != (param.kind == ParamKind::Image) {
                    return CL_INVALID_ARG_VALUE;
                }
                Arg::Mem(mem)
            }
        }
        ParamKind::Local => {
            if !value.is_null() {
                return CL_INVALID_ARG_VALUE;
            }
            if size == 0 {
                return CL_INVALID_ARG_SIZE;
            }
            Arg::Local(size)
        }
        ParamKind::Sampler => {
            if size != handle_size {
                return CL_INVALID_ARG_SIZE;
            }
            if value.is_null() {
                return CL_INVALID_ARG_VALUE;
            }
            let sampler = *(value as *const cl_sampler);
            if Obj::get(sampler).is_err() {
                return CL_INVALID_SAMPLER;
            }
            Arg::Sampler(sampler)
        }
        ParamKind::Value { size: expected } => {
            if size != expected {
                return CL_INVALID_ARG_SIZE;
            }
            if value.is_null() {
                return CL_INVALID_ARG_VALUE;
            }
            Arg::Bytes(std::slice::from_raw_parts(value as *const u8, size).to_vec())
        }
    };
    k.inner.args.lock().unwrap_or_else(|e| e.into_inner())[index as usize] = Some(arg);
    CL_SUCCESS
}

pub unsafe extern "C" fn get_kernel_info(
    kernel: cl_kernel,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let k = try_cl!(Obj::get(kernel));
    let context =
        Obj::get(k.inner.program).map(|p| p.inner.context).unwrap_or(std::ptr::null_mut());
    let info = match param {
        CL_KERNEL_FUNCTION_NAME => Info::string(&k.inner.name),
        CL_KERNEL_NUM_ARGS => Info::uint(k.inner.params.len() as u32),
        CL_KERNEL_REFERENCE_COUNT => Info::uint(k.ref_count()),
        CL_KERNEL_CONTEXT => Info::ptr(context),
        CL_KERNEL_PROGRAM => Info::ptr(k.inner.program),
        CL_KERNEL_ATTRIBUTES => Info::string(&k.inner.attributes),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}

pub unsafe extern "C" fn get_kernel_arg_info(
    kernel: cl_kernel,
    index: u32,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let k = try_cl!(Obj::get(kernel));
    let Some(p) = k.inner.params.get(index as usize) else { return CL_INVALID_ARG_INDEX };
    let info = match param {
        CL_KERNEL_ARG_ADDRESS_QUALIFIER => Info::uint(match p.kind {
            ParamKind::Buffer { constant: true } => CL_KERNEL_ARG_ADDRESS_CONSTANT,
            ParamKind::Buffer { constant: false } | ParamKind::Image => {
                CL_KERNEL_ARG_ADDRESS_GLOBAL
            }
            ParamKind::Local => CL_KERNEL_ARG_ADDRESS_LOCAL,
            _ => CL_KERNEL_ARG_ADDRESS_PRIVATE,
        }),
        CL_KERNEL_ARG_ACCESS_QUALIFIER => Info::uint(p.access),
        CL_KERNEL_ARG_TYPE_NAME => Info::string(&p.type_name),
        CL_KERNEL_ARG_TYPE_QUALIFIER => Info::ulong(p.type_qualifier),
        CL_KERNEL_ARG_NAME => Info::string(&p.name),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}

/// Bytes of `__local` memory a launch of `kernel` uses: the kernel's own variables and the
/// sizes of its local-pointer arguments.
pub fn local_bytes(kernel: &Kernel) -> u64 {
    let args = kernel.args.lock().unwrap_or_else(|e| e.into_inner());
    let from_args: u64 = args
        .iter()
        .map(|a| match a {
            Some(Arg::Local(n)) => (*n as u64).div_ceil(16) * 16,
            _ => 0,
        })
        .sum();
    kernel.sim.static_local_bytes() + from_args
}

pub unsafe extern "C" fn get_kernel_work_group_info(
    kernel: cl_kernel,
    device: cl_device_id,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let k = try_cl!(Obj::get(kernel));
    if !device.is_null() && device != the_device() {
        return CL_INVALID_DEVICE;
    }
    let d = &config().device;
    let info = match param {
        CL_KERNEL_WORK_GROUP_SIZE => Info::size(d.max_work_group as usize),
        CL_KERNEL_COMPILE_WORK_GROUP_SIZE => {
            let reqd = k.inner.reqd_work_group_size.unwrap_or([0, 0, 0]);
            Info::sizes(&reqd.map(|x| x as usize))
        }
        CL_KERNEL_LOCAL_MEM_SIZE => Info::ulong(local_bytes(&k.inner)),
        CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => Info::size(d.preferred_multiple as usize),
        CL_KERNEL_PRIVATE_MEM_SIZE => Info::ulong(k.inner.sim.private_bytes()),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}
