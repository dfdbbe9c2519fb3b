//! Contexts: the device list, the properties the host gave, and the error callback.

use std::ffi::{c_char, c_void, CString};

use crate::cl::*;
use crate::info::{created, set_error, Info};
use crate::object::{Kind, Obj, Object};
use crate::platform::{check_devices, the_device, the_platform};
use crate::{cl_context, cl_device_id};

pub type ContextNotify = unsafe extern "C" fn(
    errinfo: *const c_char,
    private: *const c_void,
    cb: usize,
    user: *mut c_void,
);

pub struct Context {
    /// The properties as given, zero-terminated (empty when the host gave none).
    pub properties: Vec<isize>,
    notify: Option<(ContextNotify, usize)>,
}

impl Object for Context {
    const KIND: Kind = Kind::Context;
    const INVALID: i32 = CL_INVALID_CONTEXT;
}

impl Context {
    /// Tells the host's callback about an error in this context, as `pfn_notify` promises.
    pub fn notify(&self, message: &str) {
        if let Some((callback, user)) = self.notify {
            let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
            unsafe { callback(text.as_ptr(), std::ptr::null(), 0, user as *mut c_void) };
        }
    }
}

unsafe fn read_properties(properties: *const isize) -> Result<Vec<isize>, i32> {
    let mut out = Vec::new();
    if properties.is_null() {
        return Ok(out);
    }
    let mut at = properties;
    let mut seen_platform = false;
    loop {
        let key = *at;
        if key == 0 {
            break;
        }
        let value = *at.add(1);
        match key as u32 {
            CL_CONTEXT_PLATFORM => {
                if seen_platform {
                    return Err(CL_INVALID_PROPERTY);
                }
                seen_platform = true;
                if value as usize != the_platform() as usize {
                    return Err(CL_INVALID_PLATFORM);
                }
            }
            CL_CONTEXT_INTEROP_USER_SYNC => {}
            _ => return Err(CL_INVALID_PROPERTY),
        }
        out.extend([key, value]);
        at = at.add(2);
    }
    out.push(0);
    Ok(out)
}

unsafe fn new_context(
    properties: *const isize,
    notify: Option<ContextNotify>,
    user: *mut c_void,
) -> Result<cl_context, i32> {
    if notify.is_none() && !user.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let properties = read_properties(properties)?;
    Ok(Obj::create(Context { properties, notify: notify.map(|f| (f, user as usize)) }))
}

pub unsafe extern "C" fn create_context(
    properties: *const isize,
    num_devices: u32,
    devices: *const cl_device_id,
    notify: Option<ContextNotify>,
    user: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_context {
    let result =
        check_devices(devices, num_devices).and_then(|()| new_context(properties, notify, user));
    created(result, errcode_ret)
}

pub unsafe extern "C" fn create_context_from_type(
    properties: *const isize,
    device_type: u64,
    notify: Option<ContextNotify>,
    user: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_context {
    let mut count = 0u32;
    let code = crate::platform::get_device_ids(
        std::ptr::null_mut(),
        device_type,
        0,
        std::ptr::null_mut(),
        &mut count,
    );
    if code != CL_SUCCESS {
        set_error(errcode_ret, code);
        return std::ptr::null_mut();
    }
    created(new_context(properties, notify, user), errcode_ret)
}

pub unsafe extern "C" fn retain_context(context: cl_context) -> i32 {
    Obj::retain(context)
}

pub unsafe extern "C" fn release_context(context: cl_context) -> i32 {
    match Obj::release(context) {
        Ok(_) => CL_SUCCESS,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn get_context_info(
    context: cl_context,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let ctx = try_cl!(Obj::get(context));
    let info = match param {
        CL_CONTEXT_REFERENCE_COUNT => Info::uint(ctx.ref_count()),
        CL_CONTEXT_NUM_DEVICES => Info::uint(1),
        CL_CONTEXT_DEVICES => Info::ptrs(&[the_device()]),
        CL_CONTEXT_PROPERTIES => Info::isizes(&ctx.inner.properties),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}
