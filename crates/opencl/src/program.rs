//! Programs: source, build (clmap's front end, then the simulator's compiler for every
//! kernel), separate compile and link, binaries, and their queries.
//!
//! A program binary is the program's source with its options and headers, in a small JSON
//! document: the front end is fast, so a program created from a binary is built again from
//! that source. What matters to host programs is that the binary round-trips, which it does.

use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clmap_lang::frontend::{self, Compiled};
use clmap_lang::preprocess::{BuildOptions, FileLoader, FsLoader};
use clmap_lang::{SourceFile, SourceMap};

use crate::cl::*;
use crate::info::{created, slice, Info};
use crate::object::{Kind, Obj, Object};
use crate::platform::{check_devices, the_device};
use crate::{cl_context, cl_device_id, cl_program};

/// The name findings and build logs give the program's main source.
pub const SOURCE_NAME: &str = "input.cl";

pub struct Program {
    pub context: cl_context,
    pub state: Mutex<ProgramState>,
}

unsafe impl Send for Program {}
unsafe impl Sync for Program {}

impl Object for Program {
    const KIND: Kind = Kind::Program;
    const INVALID: i32 = CL_INVALID_PROGRAM;
}

#[derive(Default)]
pub struct ProgramState {
    pub source: String,
    /// Headers given to `clCompileProgram`, by include name.
    pub headers: Vec<(String, String)>,
    pub from_binary: bool,
    pub binary_type: u32,
    pub options: String,
    pub status: i32,
    pub log: String,
    pub built: Option<Arc<Built>>,
    /// Kernel objects made from the program: a program with kernels may not be rebuilt.
    pub kernels: usize,
}

/// An executable program: the checked module and every kernel compiled for the simulator.
pub struct Built {
    pub compiled: Compiled,
    pub source: String,
    pub options: String,
    pub kernels: Vec<(String, Arc<clmap_sim::Program>)>,
    /// Warnings of the platform's own for the build log (ignored options).
    pub notes: String,
}

impl Built {
    pub fn kernel(&self, name: &str) -> Option<&Arc<clmap_sim::Program>> {
        self.kernels.iter().find(|(n, _)| n == name).map(|(_, p)| p)
    }
}

fn new_program(context: cl_context, state: ProgramState) -> cl_program {
    unsafe { crate::context::retain_context(context) };
    Obj::create(Program { context, state: Mutex::new(state) })
}

pub unsafe extern "C" fn create_program_with_source(
    context: cl_context,
    count: u32,
    strings: *const *const c_char,
    lengths: *const usize,
    errcode_ret: *mut i32,
) -> cl_program {
    let result = (|| {
        Obj::get(context)?;
        if count == 0 || strings.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut source = String::new();
        for i in 0..count as usize {
            let s = *strings.add(i);
            if s.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            let len = if lengths.is_null() { 0 } else { *lengths.add(i) };
            let bytes = if len == 0 {
                CStr::from_ptr(s).to_bytes()
            } else {
                std::slice::from_raw_parts(s as *const u8, len)
            };
            // A length that counts the terminating NUL is common; the NUL is not source.
            let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
            source.push_str(&clmap_lang::decode_source(bytes.to_vec()));
        }
        Ok(new_program(
            context,
            ProgramState {
                source,
                status: CL_BUILD_NONE,
                binary_type: CL_PROGRAM_BINARY_TYPE_NONE,
                ..Default::default()
            },
        ))
    })();
    created(result, errcode_ret)
}

const BINARY_MAGIC: &str = "clmap-program-binary";

fn encode_binary(state: &ProgramState) -> Vec<u8> {
    serde_json::json!({
        "format": BINARY_MAGIC,
        "version": 1,
        "type": state.binary_type,
        "options": state.options,
        "headers": state.headers,
        "source": state.source,
    })
    .to_string()
    .into_bytes()
}

fn decode_binary(bytes: &[u8]) -> Option<ProgramState> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    if v["format"] != BINARY_MAGIC {
        return None;
    }
    let headers = v["headers"]
        .as_array()?
        .iter()
        .filter_map(|h| Some((h[0].as_str()?.to_string(), h[1].as_str()?.to_string())))
        .collect();
    Some(ProgramState {
        source: v["source"].as_str()?.to_string(),
        headers,
        from_binary: true,
        binary_type: v["type"].as_u64()? as u32,
        options: v["options"].as_str().unwrap_or("").to_string(),
        status: CL_BUILD_NONE,
        ..Default::default()
    })
}

pub unsafe extern "C" fn create_program_with_binary(
    context: cl_context,
    num_devices: u32,
    devices: *const cl_device_id,
    lengths: *const usize,
    binaries: *const *const u8,
    binary_status: *mut i32,
    errcode_ret: *mut i32,
) -> cl_program {
    let result = (|| {
        Obj::get(context)?;
        check_devices(devices, num_devices)?;
        if lengths.is_null() || binaries.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let len = *lengths;
        let data = *binaries;
        if len == 0 || data.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let state = decode_binary(std::slice::from_raw_parts(data, len));
        if !binary_status.is_null() {
            *binary_status = if state.is_some() { CL_SUCCESS } else { CL_INVALID_BINARY };
        }
        let state = state.ok_or(CL_INVALID_BINARY)?;
        Ok(new_program(context, state))
    })();
    created(result, errcode_ret)
}

pub unsafe extern "C" fn create_program_with_built_in_kernels(
    context: cl_context,
    num_devices: u32,
    devices: *const cl_device_id,
    _names: *const c_char,
    errcode_ret: *mut i32,
) -> cl_program {
    let result = Obj::get(context)
        .and_then(|_| check_devices(devices, num_devices))
        // The device has no built-in kernels, so every name is unknown.
        .and_then(|()| Err(CL_INVALID_VALUE));
    created(result, errcode_ret)
}

pub unsafe extern "C" fn retain_program(program: cl_program) -> i32 {
    Obj::retain(program)
}

pub unsafe extern "C" fn release_program(program: cl_program) -> i32 {
    match Obj::release(program) {
        Ok(Some(p)) => crate::context::release_context(p.context),
        Ok(None) => CL_SUCCESS,
        Err(code) => code,
    }
}

/// Serves `clCompileProgram`'s headers by include name, then the disk.
struct Headers<'a>(&'a [(String, String)]);

impl FileLoader for Headers<'_> {
    fn load(&self, path: &Path) -> Option<String> {
        self.0
            .iter()
            .find(|(name, _)| path.ends_with(name) || path == Path::new(name))
            .map(|(_, text)| text.clone())
            .or_else(|| FsLoader.load(path))
    }
}

/// Why a build failed: the log, and whether the only errors were calls to functions defined
/// in no source given (which a separately compiled unit may leave for the link).
struct BuildFailure {
    log: String,
    only_undefined_calls: bool,
}

impl From<String> for BuildFailure {
    fn from(log: String) -> BuildFailure {
        BuildFailure { log, only_undefined_calls: false }
    }
}

/// Runs the front end and the simulator's compiler: the build, or its log.
/// Parses build options the way devices take them: options clmap does not know (vendor
/// options such as `-O3` or `-nv-…`) are dropped with a warning rather than failing the build,
/// since the programs that pass them were written for drivers that accept them.
fn lenient_options(options: &str) -> Result<(BuildOptions, Vec<String>), String> {
    let mut words: Vec<String> = options.split_whitespace().map(str::to_string).collect();
    let mut dropped = Vec::new();
    loop {
        match BuildOptions::parse(&words.join(" ")) {
            Ok(parsed) => return Ok((parsed, dropped)),
            Err(message) => {
                let unknown = message
                    .strip_prefix("unknown build option '")
                    .and_then(|rest| rest.strip_suffix('\''))
                    .map(str::to_string);
                match unknown.and_then(|w| words.iter().position(|x| *x == w)) {
                    Some(at) => dropped.push(words.remove(at)),
                    None => return Err(format!("invalid build options: {message}")),
                }
            }
        }
    }
}

fn build_source(
    source: &str,
    options: &str,
    headers: &[(String, String)],
) -> Result<Built, BuildFailure> {
    let (parsed, dropped) = lenient_options(options)?;
    let notes: String = dropped
        .iter()
        .map(|w| format!("warning: build option '{w}' is not known to clmap and was ignored\n"))
        .collect();
    if !notes.is_empty() && !crate::config::config().quiet {
        eprint!("clmap: {notes}");
    }
    let mut sources = SourceMap::new();
    let main = sources.add(SourceFile::new(
        SOURCE_NAME.to_string(),
        Some(PathBuf::from(SOURCE_NAME)),
        source.to_string(),
    ));
    let compiled = frontend::compile(sources, main, parsed, &Headers(headers)).map_err(|f| {
        let errors = f.diagnostics.0.iter().filter(|d| d.severity == clmap_lang::Severity::Error);
        let only_undefined_calls = errors.clone().count() > 0
            && errors.clone().all(|d| d.message.ends_with("is called but never defined"));
        BuildFailure { log: format!("{notes}{}", f.render()), only_undefined_calls }
    })?;
    let mut kernels = Vec::new();
    let names: Vec<String> = compiled.module.kernels().map(|(_, f)| f.name.clone()).collect();
    for name in names {
        // Under the debugger, with a marker at each statement; otherwise without them, so a
        // run that is not debugged pays nothing for it.
        let program = if crate::config::config().interactive {
            clmap_sim::compile_kernel_for_debugging(&compiled.module, &name)
        } else {
            clmap_sim::compile_kernel(&compiled.module, &name)
        };
        let program = program.map_err(|e| format!("kernel `{name}`: {e}"))?;
        kernels.push((name, Arc::new(program)));
    }
    Ok(Built { compiled, source: source.to_string(), options: options.to_string(), kernels, notes })
}

unsafe fn options_text(options: *const c_char) -> String {
    if options.is_null() {
        String::new()
    } else {
        CStr::from_ptr(options).to_string_lossy().into_owned()
    }
}

type BuildNotify = unsafe extern "C" fn(program: cl_program, user: *mut c_void);

pub unsafe extern "C" fn build_program(
    program: cl_program,
    num_devices: u32,
    devices: *const cl_device_id,
    options: *const c_char,
    notify: Option<BuildNotify>,
    user: *mut c_void,
) -> i32 {
    let p = try_cl!(Obj::get(program));
    if (num_devices == 0) != devices.is_null() || (notify.is_none() && !user.is_null()) {
        return CL_INVALID_VALUE;
    }
    if num_devices > 0 {
        if let Err(code) = check_devices(devices, num_devices) {
            return code;
        }
    }
    let options = options_text(options);
    let code = {
        let mut state = p.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.kernels > 0 {
            return CL_INVALID_OPERATION;
        }
        if state.binary_type == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
            || state.binary_type == CL_PROGRAM_BINARY_TYPE_LIBRARY
        {
            return CL_INVALID_BINARY;
        }
        // A program made from a binary builds with the options it was built with.
        let options =
            if state.from_binary && options.is_empty() { state.options.clone() } else { options };
        finish_build(&mut state, &options, CL_BUILD_PROGRAM_FAILURE)
    };
    if let Some(callback) = notify {
        callback(program, user);
    }
    code
}

fn finish_build(state: &mut ProgramState, options: &str, failure: i32) -> i32 {
    state.options = options.to_string();
    let result = build_source(&state.source, options, &state.headers);
    if failure == CL_COMPILE_PROGRAM_FAILURE {
        if let Err(BuildFailure { only_undefined_calls: true, .. }) = &result {
            // A unit compiled on its own may call what another unit defines; the link checks.
            state.log.clear();
            state.status = CL_BUILD_SUCCESS;
            state.built = None;
            return CL_SUCCESS;
        }
    }
    match result {
        Ok(built) => {
            state.log = format!(
                "{}{}",
                built.notes,
                built.compiled.warnings.render(&built.compiled.sources)
            );
            state.status = CL_BUILD_SUCCESS;
            state.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
            state.built = Some(Arc::new(built));
            CL_SUCCESS
        }
        Err(BuildFailure { log, .. }) => {
            state.log = log;
            state.status = CL_BUILD_ERROR;
            state.built = None;
            if state.log.starts_with("invalid build options") {
                CL_INVALID_BUILD_OPTIONS
            } else {
                failure
            }
        }
    }
}

pub unsafe extern "C" fn compile_program(
    program: cl_program,
    num_devices: u32,
    devices: *const cl_device_id,
    options: *const c_char,
    num_headers: u32,
    headers: *const cl_program,
    header_names: *const *const c_char,
    notify: Option<BuildNotify>,
    user: *mut c_void,
) -> i32 {
    let p = try_cl!(Obj::get(program));
    if (num_devices == 0) != devices.is_null()
        || (num_headers == 0) != headers.is_null()
        || (num_headers > 0 && header_names.is_null())
        || (notify.is_none() && !user.is_null())
    {
        return CL_INVALID_VALUE;
    }
    let mut header_texts = Vec::new();
    for (i, h) in slice(headers, num_headers as usize).iter().enumerate() {
        let hp = try_cl!(Obj::get(*h));
        let name = CStr::from_ptr(*header_names.add(i)).to_string_lossy().into_owned();
        let text = hp.inner.state.lock().unwrap_or_else(|e| e.into_inner()).source.clone();
        header_texts.push((name, text));
    }
    let options = options_text(options);
    let code = {
        let mut state = p.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.kernels > 0 {
            return CL_INVALID_OPERATION;
        }
        state.headers = header_texts;
        // Compiling checks the program now, so errors reach the compile log; linking builds
        // the executable from the compiled objects' sources.
        let code = finish_build(&mut state, &options, CL_COMPILE_PROGRAM_FAILURE);
        if code == CL_SUCCESS {
            state.binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
            state.built = None;
        }
        code
    };
    if let Some(callback) = notify {
        callback(program, user);
    }
    code
}

pub unsafe extern "C" fn link_program(
    context: cl_context,
    num_devices: u32,
    devices: *const cl_device_id,
    options: *const c_char,
    num_inputs: u32,
    inputs: *const cl_program,
    notify: Option<BuildNotify>,
    user: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_program {
    let result = (|| {
        Obj::get(context)?;
        if (num_devices == 0) != devices.is_null() || num_inputs == 0 || inputs.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut state = ProgramState { status: CL_BUILD_NONE, ..Default::default() };
        let mut compile_options = String::new();
        for input in slice(inputs, num_inputs as usize) {
            let ip = Obj::get(*input)?;
            let s = ip.inner.state.lock().unwrap_or_else(|e| e.into_inner());
            if s.binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
                && s.binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY
            {
                return Err(CL_INVALID_PROGRAM);
            }
            state.source.push_str(&s.source);
            state.source.push('\n');
            state.headers.extend(s.headers.iter().cloned());
            if compile_options.is_empty() {
                compile_options = s.options.clone();
            }
        }
        let link_options = options_text(options);
        let library = link_options.split_whitespace().any(|w| w == "-create-library");
        let kept: Vec<&str> = link_options
            .split_whitespace()
            .filter(|w| !matches!(*w, "-create-library" | "-enable-link-options"))
            .collect();
        let options = format!("{compile_options} {}", kept.join(" ")).trim().to_string();
        let code = finish_build(&mut state, &options, CL_LINK_PROGRAM_FAILURE);
        if library && code == CL_SUCCESS {
            state.binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
            state.built = None;
        }
        let program = new_program(context, state);
        if let Some(callback) = notify {
            callback(program, user);
        }
        // A failed link still returns the program, so the host can read its log.
        Ok((program, code))
    })();
    match result {
        Ok((program, code)) => {
            crate::info::set_error(errcode_ret, code);
            program
        }
        Err(code) => {
            crate::info::set_error(errcode_ret, code);
            std::ptr::null_mut()
        }
    }
}

pub unsafe extern "C" fn unload_compiler() -> i32 {
    CL_SUCCESS
}

pub unsafe extern "C" fn unload_platform_compiler(platform: crate::cl_platform_id) -> i32 {
    if platform.is_null() || platform == crate::platform::the_platform() {
        CL_SUCCESS
    } else {
        CL_INVALID_PLATFORM
    }
}

pub unsafe extern "C" fn get_program_info(
    program: cl_program,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let p = try_cl!(Obj::get(program));
    let state = p.inner.state.lock().unwrap_or_else(|e| e.into_inner());
    let kernel_names = || -> Result<Vec<String>, i32> {
        let built = state.built.as_ref().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        Ok(built.kernels.iter().map(|(n, _)| n.clone()).collect())
    };
    let info = match param {
        CL_PROGRAM_REFERENCE_COUNT => Info::uint(p.ref_count()),
        CL_PROGRAM_CONTEXT => Info::ptr(p.inner.context),
        CL_PROGRAM_NUM_DEVICES => Info::uint(1),
        CL_PROGRAM_DEVICES => Info::ptrs(&[the_device()]),
        CL_PROGRAM_SOURCE => Info::string(if state.from_binary { "" } else { &state.source }),
        CL_PROGRAM_BINARY_SIZES => Info::sizes(&[encode_binary(&state).len()]),
        CL_PROGRAM_BINARIES => {
            let bytes = encode_binary(&state);
            if !value.is_null() {
                if size < std::mem::size_of::<*mut u8>() {
                    return CL_INVALID_VALUE;
                }
                let target = *(value as *const *mut u8);
                if !target.is_null() {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), target, bytes.len());
                }
            }
            if !size_ret.is_null() {
                *size_ret = std::mem::size_of::<*mut u8>();
            }
            return CL_SUCCESS;
        }
        CL_PROGRAM_NUM_KERNELS => match kernel_names() {
            Ok(names) => Info::size(names.len()),
            Err(code) => return code,
        },
        CL_PROGRAM_KERNEL_NAMES => match kernel_names() {
            Ok(names) => Info::string(&names.join(";")),
            Err(code) => return code,
        },
        _ => return CL_INVALID_VALUE,
    };
    drop(state);
    info.write(size, value, size_ret)
}

pub unsafe extern "C" fn get_program_build_info(
    program: cl_program,
    device: cl_device_id,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let p = try_cl!(Obj::get(program));
    if device != the_device() {
        return CL_INVALID_DEVICE;
    }
    let state = p.inner.state.lock().unwrap_or_else(|e| e.into_inner());
    let info = match param {
        CL_PROGRAM_BUILD_STATUS => Info::int(state.status),
        CL_PROGRAM_BUILD_OPTIONS => Info::string(&state.options),
        CL_PROGRAM_BUILD_LOG => Info::string(&state.log),
        CL_PROGRAM_BINARY_TYPE => Info::uint(state.binary_type),
        _ => return CL_INVALID_VALUE,
    };
    drop(state);
    info.write(size, value, size_ret)
}
