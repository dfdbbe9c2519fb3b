//! The `clGet*Info` protocol: a query answers with bytes, which the caller receives through
//! `param_value` (if it gave room for them) and whose size it learns through
//! `param_value_size_ret`.

use std::ffi::c_void;

use crate::cl::*;

/// The answer to an info query, before it is copied out.
pub enum Info {
    Bytes(Vec<u8>),
}

impl Info {
    pub fn uint(v: u32) -> Info {
        Info::Bytes(v.to_ne_bytes().to_vec())
    }
    pub fn int(v: i32) -> Info {
        Info::Bytes(v.to_ne_bytes().to_vec())
    }
    pub fn ulong(v: u64) -> Info {
        Info::Bytes(v.to_ne_bytes().to_vec())
    }
    pub fn size(v: usize) -> Info {
        Info::Bytes(v.to_ne_bytes().to_vec())
    }
    pub fn bool(v: bool) -> Info {
        Info::uint(u32::from(v))
    }
    pub fn ptr<T>(p: *const T) -> Info {
        Info::size(p as usize)
    }
    pub fn sizes(v: &[usize]) -> Info {
        Info::Bytes(v.iter().flat_map(|x| x.to_ne_bytes()).collect())
    }
    pub fn ptrs<T>(v: &[*mut T]) -> Info {
        Info::Bytes(v.iter().flat_map(|x| (*x as usize).to_ne_bytes()).collect())
    }
    pub fn isizes(v: &[isize]) -> Info {
        Info::Bytes(v.iter().flat_map(|x| x.to_ne_bytes()).collect())
    }
    /// A C string, NUL included.
    pub fn string(s: &str) -> Info {
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        Info::Bytes(bytes)
    }

    /// Copies the answer out as the specification describes: `CL_INVALID_VALUE` when the caller
    /// gave a buffer that is too small.
    ///
    /// # Safety
    /// `value` must have room for `value_size` bytes; `size_ret` must be NULL or writable.
    pub unsafe fn write(self, value_size: usize, value: *mut c_void, size_ret: *mut usize) -> i32 {
        let Info::Bytes(bytes) = self;
        if !value.is_null() {
            if value_size < bytes.len() {
                return CL_INVALID_VALUE;
            }
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), value.cast::<u8>(), bytes.len());
        }
        if !size_ret.is_null() {
            *size_ret = bytes.len();
        }
        CL_SUCCESS
    }
}

/// Writes `code` through an `errcode_ret` pointer when the caller gave one.
///
/// # Safety
/// `errcode_ret` must be NULL or writable.
pub unsafe fn set_error(errcode_ret: *mut i32, code: i32) {
    if code < 0 {
        crate::api::report_failed_call(code);
    }
    if !errcode_ret.is_null() {
        *errcode_ret = code;
    }
}

/// A result of a `clCreate*` call delivered the C way: the handle, and the code through
/// `errcode_ret`.
///
/// # Safety
/// `errcode_ret` must be NULL or writable.
pub unsafe fn created<T>(result: Result<*mut T, i32>, errcode_ret: *mut i32) -> *mut T {
    match result {
        Ok(handle) => {
            set_error(errcode_ret, CL_SUCCESS);
            handle
        }
        Err(code) => {
            set_error(errcode_ret, code);
            std::ptr::null_mut()
        }
    }
}

/// Reads a C array the caller passed as pointer and count.
///
/// # Safety
/// `ptr` must point at `count` values when it is not NULL.
pub unsafe fn slice<'a, T>(ptr: *const T, count: usize) -> &'a [T] {
    if ptr.is_null() || count == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(ptr, count)
    }
}
