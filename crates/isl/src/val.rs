//! isl's arbitrary-precision values, read back as 64-bit integers where they fit.

use crate::context::{owned_string, Context};
use crate::error::IslError;
use crate::ffi;

/// Takes ownership of an `isl_val` and reads it as an `i128` (wide enough for any count of
/// points a 64-bit index space holds); `what` and `object` name it in errors.
pub(crate) fn take_integer(
    ctx: &Context,
    raw: *mut ffi::IslVal,
    what: &'static str,
    object: &dyn std::fmt::Display,
) -> Result<i128, IslError> {
    if raw.is_null() {
        return Err(ctx.take_error(what));
    }
    // SAFETY: `raw` is a live value we own; to_str keeps it, free releases our reference.
    let text = unsafe {
        let text = owned_string(ffi::isl_val_to_str(raw));
        ffi::isl_val_free(raw);
        text
    }
    .unwrap_or_default();
    // isl prints integers in decimal and everything else as `infty`, `-infty`, `NaN` or `p/q`.
    if !text.bytes().all(|b| b.is_ascii_digit() || b == b'-') || text.is_empty() {
        return Err(IslError::NotFinite { what, object: object.to_string(), value: text });
    }
    text.parse::<i128>().map_err(|_| IslError::TooLarge {
        what,
        object: object.to_string(),
        value: text,
    })
}

/// A new `isl_val` holding `value`.
pub(crate) fn from_i64(ctx: &Context, value: i64) -> Result<*mut ffi::IslVal, IslError> {
    let long = std::os::raw::c_long::try_from(value).map_err(|_| IslError::TooLarge {
        what: "a parameter value",
        object: String::from("this platform's C long"),
        value: value.to_string(),
    })?;
    // SAFETY: the context is live; a null result is reported below.
    let raw = unsafe { ffi::isl_val_int_from_si(ctx.ptr(), long) };
    if raw.is_null() {
        Err(ctx.take_error("make an integer value"))
    } else {
        Ok(raw)
    }
}
