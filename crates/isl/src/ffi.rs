//! The part of isl's C interface (version 0.23 and later) this crate wraps.
//!
//! isl marks every pointer argument `__isl_take` (the callee frees it) or `__isl_keep` (the
//! caller keeps it); results are `__isl_give` (the caller owns them) unless a comment says
//! otherwise. The safe wrappers in this crate copy before every `take` of a borrowed value, so
//! the annotations below are what their correctness rests on.

use std::os::raw::{c_char, c_int, c_long, c_uint, c_void};

#[repr(C)]
pub struct IslCtx {
    _private: [u8; 0],
}
#[repr(C)]
pub struct IslSet {
    _private: [u8; 0],
}
#[repr(C)]
pub struct IslMap {
    _private: [u8; 0],
}

/// `isl_basic_map`: one conjunction of constraints (a relation without disjunctions).
#[repr(C)]
pub struct IslBasicMap {
    _private: [u8; 0],
}
#[repr(C)]
pub struct IslVal {
    _private: [u8; 0],
}

/// `enum isl_dim_type`.
pub type IslDimType = c_uint;
pub const ISL_DIM_PARAM: IslDimType = 1;
pub const ISL_DIM_IN: IslDimType = 2;
pub const ISL_DIM_OUT: IslDimType = 3;
/// `isl_dim_set` is `isl_dim_out`.
pub const ISL_DIM_SET: IslDimType = ISL_DIM_OUT;

/// `isl_bool`: -1 error, 0 false, 1 true.
pub type IslBool = c_int;
/// `isl_size`: -1 error, otherwise a count.
pub type IslSize = c_int;

/// `ISL_ON_ERROR_CONTINUE`: return NULL/error and record the message, print nothing.
pub const ISL_ON_ERROR_CONTINUE: c_int = 1;

extern "C" {
    pub fn isl_ctx_alloc() -> *mut IslCtx;
    pub fn isl_ctx_free(ctx: *mut IslCtx);
    pub fn isl_options_set_on_error(ctx: *mut IslCtx, val: c_int) -> c_int;
    /// Borrowed from the context; valid until the next error or reset.
    pub fn isl_ctx_last_error_msg(ctx: *mut IslCtx) -> *const c_char;
    pub fn isl_ctx_reset_error(ctx: *mut IslCtx);

    pub fn isl_set_read_from_str(ctx: *mut IslCtx, text: *const c_char) -> *mut IslSet;
    pub fn isl_set_copy(set: *mut IslSet) -> *mut IslSet;
    pub fn isl_set_free(set: *mut IslSet) -> *mut IslSet;
    /// keep; the string is the caller's, freed with `free`.
    pub fn isl_set_to_str(set: *mut IslSet) -> *mut c_char;
    pub fn isl_set_union(a: *mut IslSet, b: *mut IslSet) -> *mut IslSet;
    pub fn isl_set_intersect(a: *mut IslSet, b: *mut IslSet) -> *mut IslSet;
    pub fn isl_set_subtract(a: *mut IslSet, b: *mut IslSet) -> *mut IslSet;
    pub fn isl_set_apply(set: *mut IslSet, map: *mut IslMap) -> *mut IslSet;
    pub fn isl_set_coalesce(set: *mut IslSet) -> *mut IslSet;
    pub fn isl_set_params(set: *mut IslSet) -> *mut IslSet;
    pub fn isl_set_intersect_params(set: *mut IslSet, params: *mut IslSet) -> *mut IslSet;
    pub fn isl_set_lexmin(set: *mut IslSet) -> *mut IslSet;
    pub fn isl_set_lexmax(set: *mut IslSet) -> *mut IslSet;
    pub fn isl_set_fix_val(
        set: *mut IslSet,
        kind: IslDimType,
        pos: c_uint,
        value: *mut IslVal,
    ) -> *mut IslSet;
    /// keep.
    pub fn isl_set_is_empty(set: *mut IslSet) -> IslBool;
    /// keep, keep.
    pub fn isl_set_is_equal(a: *mut IslSet, b: *mut IslSet) -> IslBool;
    /// keep, keep.
    pub fn isl_set_is_subset(a: *mut IslSet, b: *mut IslSet) -> IslBool;
    /// keep.
    pub fn isl_set_is_bounded(set: *mut IslSet) -> IslBool;
    /// keep.
    pub fn isl_set_dim(set: *mut IslSet, kind: IslDimType) -> IslSize;
    /// keep; -1 when there is no such dimension.
    pub fn isl_set_find_dim_by_name(
        set: *mut IslSet,
        kind: IslDimType,
        name: *const c_char,
    ) -> c_int;
    /// keep; the name is borrowed from the set (NULL when unnamed).
    pub fn isl_set_get_dim_name(set: *mut IslSet, kind: IslDimType, pos: c_uint) -> *const c_char;
    /// keep; NaN when the dimension is not fixed to one value.
    pub fn isl_set_plain_get_val_if_fixed(
        set: *mut IslSet,
        kind: IslDimType,
        pos: c_uint,
    ) -> *mut IslVal;
    /// keep.
    pub fn isl_set_count_val(set: *mut IslSet) -> *mut IslVal;
    /// take.
    pub fn isl_set_dim_min_val(set: *mut IslSet, pos: c_int) -> *mut IslVal;
    /// take.
    pub fn isl_set_dim_max_val(set: *mut IslSet, pos: c_int) -> *mut IslVal;

    pub fn isl_map_read_from_str(ctx: *mut IslCtx, text: *const c_char) -> *mut IslMap;
    pub fn isl_map_copy(map: *mut IslMap) -> *mut IslMap;
    pub fn isl_map_free(map: *mut IslMap) -> *mut IslMap;
    /// keep; the string is the caller's, freed with `free`.
    pub fn isl_map_to_str(map: *mut IslMap) -> *mut c_char;
    pub fn isl_map_reverse(map: *mut IslMap) -> *mut IslMap;
    pub fn isl_map_domain(map: *mut IslMap) -> *mut IslSet;
    pub fn isl_map_range(map: *mut IslMap) -> *mut IslSet;
    pub fn isl_map_deltas(map: *mut IslMap) -> *mut IslSet;
    pub fn isl_map_apply_range(a: *mut IslMap, b: *mut IslMap) -> *mut IslMap;
    pub fn isl_map_intersect_domain(map: *mut IslMap, set: *mut IslSet) -> *mut IslMap;
    pub fn isl_map_intersect_range(map: *mut IslMap, set: *mut IslSet) -> *mut IslMap;
    pub fn isl_map_intersect_params(map: *mut IslMap, params: *mut IslSet) -> *mut IslMap;
    pub fn isl_map_union(a: *mut IslMap, b: *mut IslMap) -> *mut IslMap;
    pub fn isl_map_coalesce(map: *mut IslMap) -> *mut IslMap;
    pub fn isl_map_simple_hull(map: *mut IslMap) -> *mut IslBasicMap;
    pub fn isl_map_from_basic_map(bmap: *mut IslBasicMap) -> *mut IslMap;
    pub fn isl_map_fix_val(
        map: *mut IslMap,
        kind: IslDimType,
        pos: c_uint,
        value: *mut IslVal,
    ) -> *mut IslMap;
    /// keep.
    pub fn isl_map_find_dim_by_name(
        map: *mut IslMap,
        kind: IslDimType,
        name: *const c_char,
    ) -> c_int;
    /// keep.
    pub fn isl_map_dim(map: *mut IslMap, kind: IslDimType) -> IslSize;
    /// keep, keep.
    pub fn isl_map_is_equal(a: *mut IslMap, b: *mut IslMap) -> IslBool;
    /// keep.
    pub fn isl_map_is_empty(map: *mut IslMap) -> IslBool;
    /// keep.
    pub fn isl_map_is_single_valued(map: *mut IslMap) -> IslBool;

    pub fn isl_val_int_from_si(ctx: *mut IslCtx, value: c_long) -> *mut IslVal;
    pub fn isl_val_free(val: *mut IslVal) -> *mut IslVal;
    /// keep; the string is the caller's, freed with `free`.
    pub fn isl_val_to_str(val: *mut IslVal) -> *mut c_char;

    /// The C library's `free`, for strings isl hands over.
    pub fn free(ptr: *mut c_void);
}
