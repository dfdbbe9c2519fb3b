//! The isl context every set and relation belongs to, and the conversion of isl's failures
//! into [`IslError`]s.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::rc::Rc;

use crate::error::IslError;
use crate::ffi;
use crate::map::Map;
use crate::set::Set;

/// Owns an `isl_ctx`. Every [`Set`] and [`Map`] keeps its context alive, so the context is
/// freed only after the last object made in it. isl contexts are not thread-safe, which is
/// why objects hold an `Rc` and are neither `Send` nor `Sync`.
#[derive(Clone)]
pub struct Context {
    pub(crate) raw: Rc<RawContext>,
}

pub(crate) struct RawContext(pub(crate) *mut ffi::IslCtx);

impl Drop for RawContext {
    fn drop(&mut self) {
        // SAFETY: the pointer came from isl_ctx_alloc and every object made in it holds this
        // Rc, so none is left when the last reference drops.
        unsafe { ffi::isl_ctx_free(self.0) }
    }
}

impl Context {
    /// A fresh context in which failures are returned as errors instead of being printed.
    pub fn new() -> Context {
        // SAFETY: isl_ctx_alloc has no preconditions; a null result means out of memory.
        let raw = unsafe { ffi::isl_ctx_alloc() };
        assert!(!raw.is_null(), "isl_ctx_alloc failed: out of memory");
        // SAFETY: `raw` is a live context.
        unsafe { ffi::isl_options_set_on_error(raw, ffi::ISL_ON_ERROR_CONTINUE) };
        Context { raw: Rc::new(RawContext(raw)) }
    }

    /// Parses a set in isl notation, e.g. `[n] -> { [i] : 0 <= i < n }`.
    pub fn set(&self, text: &str) -> Result<Set, IslError> {
        let text = c_text(text)?;
        // SAFETY: the context is live and `text` is NUL-terminated; the result is ours.
        let raw = unsafe { ffi::isl_set_read_from_str(self.ptr(), text.as_ptr()) };
        Set::from_raw(self, raw, "parse a set")
    }

    /// Parses a relation in isl notation, e.g. `[n] -> { [i] -> [j] : j = i + 1 }`.
    pub fn map(&self, text: &str) -> Result<Map, IslError> {
        let text = c_text(text)?;
        // SAFETY: as in `set`.
        let raw = unsafe { ffi::isl_map_read_from_str(self.ptr(), text.as_ptr()) };
        Map::from_raw(self, raw, "parse a relation")
    }

    pub(crate) fn ptr(&self) -> *mut ffi::IslCtx {
        self.raw.0
    }

    pub(crate) fn same_as(&self, other: &Context) -> bool {
        Rc::ptr_eq(&self.raw, &other.raw)
    }

    /// The error isl recorded for a failed `operation`, and the context reset for the next.
    pub(crate) fn take_error(&self, operation: &'static str) -> IslError {
        // SAFETY: the context is live; the message is borrowed until the reset below.
        let message = unsafe {
            let msg = ffi::isl_ctx_last_error_msg(self.ptr());
            let text = if msg.is_null() {
                String::from("no message")
            } else {
                CStr::from_ptr(msg).to_string_lossy().into_owned()
            };
            ffi::isl_ctx_reset_error(self.ptr());
            text
        };
        IslError::Failed { operation, message }
    }

    /// Turns an `isl_bool` into a Rust one.
    pub(crate) fn boolean(
        &self,
        value: ffi::IslBool,
        operation: &'static str,
    ) -> Result<bool, IslError> {
        match value {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.take_error(operation)),
        }
    }
}

impl Default for Context {
    fn default() -> Self {
        Context::new()
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Context({:p})", self.raw.0)
    }
}

/// Text for isl, which reads C strings.
pub(crate) fn c_text(text: &str) -> Result<CString, IslError> {
    CString::new(text).map_err(|_| IslError::InteriorNul)
}

/// Takes ownership of a string isl allocated.
///
/// # Safety
/// `raw` is null or a `malloc`ed, NUL-terminated string that nobody else frees.
pub(crate) unsafe fn owned_string(raw: *mut c_char) -> Option<String> {
    if raw.is_null() {
        return None;
    }
    let text = CStr::from_ptr(raw).to_string_lossy().into_owned();
    ffi::free(raw.cast());
    Some(text)
}
