//! Integer relations: pairs of integer tuples related by affine constraints, possibly with
//! parameters (`[n] -> { [i] -> [j] : i - 1 <= j <= i + 1 and 0 <= j < n }`). Fusion's
//! producing and consuming relations are these.

use crate::context::c_text;
use crate::error::IslError;
use crate::ffi::{self, IslMap};
use crate::object::isl_object;
use crate::set::Set;
use crate::val;

isl_object!(
    /// An owned `isl_map`.
    Map,
    IslMap,
    ffi::isl_map_copy,
    ffi::isl_map_free,
    ffi::isl_map_to_str
);

type MapUnary = unsafe extern "C" fn(*mut IslMap) -> *mut IslMap;
type MapToSet = unsafe extern "C" fn(*mut IslMap) -> *mut ffi::IslSet;
type MapWithSet = unsafe extern "C" fn(*mut IslMap, *mut ffi::IslSet) -> *mut IslMap;

impl Map {
    fn unary(&self, operation: &'static str, f: MapUnary) -> Result<Map, IslError> {
        // SAFETY: `f` takes its argument, and we hand it a copy.
        let raw = unsafe { f(self.take_copy()) };
        Map::from_raw(self.context(), raw, operation)
    }

    fn to_set(&self, operation: &'static str, f: MapToSet) -> Result<Set, IslError> {
        // SAFETY: `f` takes its argument, and we hand it a copy.
        let raw = unsafe { f(self.take_copy()) };
        Set::from_raw(self.context(), raw, operation)
    }

    fn with_set(&self, set: &Set, operation: &'static str, f: MapWithSet) -> Result<Map, IslError> {
        self.same_context(set.context(), operation)?;
        // SAFETY: `f` takes both arguments, and we hand it copies.
        let raw = unsafe { f(self.take_copy(), set.take_copy()) };
        Map::from_raw(self.context(), raw, operation)
    }

    /// The inverse relation: `y -> x` for every `x -> y`.
    pub fn reverse(&self) -> Result<Map, IslError> {
        self.unary("reverse a relation", ffi::isl_map_reverse)
    }

    /// Every `x` related to something.
    pub fn domain(&self) -> Result<Set, IslError> {
        self.to_set("take the domain of a relation", ffi::isl_map_domain)
    }

    /// Every `y` something is related to.
    pub fn range(&self) -> Result<Set, IslError> {
        self.to_set("take the range of a relation", ffi::isl_map_range)
    }

    /// Every difference `y - x` of a pair (the relation's input and output tuples have the
    /// same length): how far a tile reaches from its origin, say.
    pub fn deltas(&self) -> Result<Set, IslError> {
        self.to_set("take the differences of a relation", ffi::isl_map_deltas)
    }

    /// The composition `x -> z` for `x -> y` in `self` and `y -> z` in `next`.
    pub fn apply_range(&self, next: &Map) -> Result<Map, IslError> {
        let operation = "compose relations";
        self.same_context(next.context(), operation)?;
        // SAFETY: both arguments are taken, and we hand over copies.
        let raw = unsafe { ffi::isl_map_apply_range(self.take_copy(), next.take_copy()) };
        Map::from_raw(self.context(), raw, operation)
    }

    /// The pairs whose `x` lies in `set`.
    pub fn intersect_domain(&self, set: &Set) -> Result<Map, IslError> {
        self.with_set(set, "restrict the domain of a relation", ffi::isl_map_intersect_domain)
    }

    /// The pairs whose `y` lies in `set`.
    pub fn intersect_range(&self, set: &Set) -> Result<Map, IslError> {
        self.with_set(set, "restrict the range of a relation", ffi::isl_map_intersect_range)
    }

    /// The relation under constraints on the parameters alone.
    pub fn intersect_params(&self, params: &Set) -> Result<Map, IslError> {
        self.with_set(
            params,
            "restrict the parameters of a relation",
            ffi::isl_map_intersect_params,
        )
    }

    /// Pairs in either relation.
    pub fn union(&self, other: &Map) -> Result<Map, IslError> {
        let operation = "unite relations";
        self.same_context(other.context(), operation)?;
        // SAFETY: both arguments are taken, and we hand over copies.
        let raw = unsafe { ffi::isl_map_union(self.take_copy(), other.take_copy()) };
        Map::from_raw(self.context(), raw, operation)
    }

    /// The same relation with its pieces merged where isl can.
    pub fn coalesce(&self) -> Result<Map, IslError> {
        self.unary("coalesce a relation", ffi::isl_map_coalesce)
    }

    /// A single conjunction containing the relation, made of constraints of its pieces: the
    /// over-approximation that keeps repeated pull-backs from multiplying disjuncts.
    pub fn simple_hull(&self) -> Result<Map, IslError> {
        // SAFETY: `isl_map_simple_hull` takes its argument (a copy) and gives a basic map,
        // which `isl_map_from_basic_map` takes; a null from the first passes through the
        // second as null, which `from_raw` reports.
        let raw =
            unsafe { ffi::isl_map_from_basic_map(ffi::isl_map_simple_hull(self.take_copy())) };
        Map::from_raw(self.context(), raw, "take the simple hull of a relation")
    }

    /// The relation with the parameter `name` fixed to `value`.
    pub fn fix_param(&self, name: &str, value: i64) -> Result<Map, IslError> {
        let text = c_text(name)?;
        // SAFETY: kept; the name is NUL-terminated.
        let pos = unsafe {
            ffi::isl_map_find_dim_by_name(self.keep(), ffi::ISL_DIM_PARAM, text.as_ptr())
        };
        let pos = u32::try_from(pos).map_err(|_| IslError::NoSuchParameter {
            name: name.to_string(),
            object: self.to_string(),
        })?;
        let value = val::from_i64(self.context(), value)?;
        // SAFETY: map and value are taken; we hand over a copy and a fresh value.
        let raw = unsafe { ffi::isl_map_fix_val(self.take_copy(), ffi::ISL_DIM_PARAM, pos, value) };
        Map::from_raw(self.context(), raw, "fix a parameter of a relation")
    }

    /// The lengths of the input and output tuples.
    pub fn arity(&self) -> Result<(usize, usize), IslError> {
        let count = |kind| {
            // SAFETY: kept.
            let n = unsafe { ffi::isl_map_dim(self.keep(), kind) };
            usize::try_from(n)
                .map_err(|_| self.context().take_error("count the dimensions of a relation"))
        };
        Ok((count(ffi::ISL_DIM_IN)?, count(ffi::ISL_DIM_OUT)?))
    }

    /// Whether both relations have the same pairs.
    pub fn is_equal(&self, other: &Map) -> Result<bool, IslError> {
        let operation = "compare relations";
        self.same_context(other.context(), operation)?;
        // SAFETY: both kept.
        let answer = unsafe { ffi::isl_map_is_equal(self.keep(), other.keep()) };
        self.context().boolean(answer, operation)
    }

    /// Whether the relation has no pairs.
    pub fn is_empty(&self) -> Result<bool, IslError> {
        // SAFETY: kept.
        let answer = unsafe { ffi::isl_map_is_empty(self.keep()) };
        self.context().boolean(answer, "test a relation for emptiness")
    }

    /// Whether every `x` is related to at most one `y` (a function).
    pub fn is_single_valued(&self) -> Result<bool, IslError> {
        // SAFETY: kept.
        let answer = unsafe { ffi::isl_map_is_single_valued(self.keep()) };
        self.context().boolean(answer, "test a relation for single values")
    }
}

impl PartialEq for Map {
    /// Equal relations; relations of different contexts or spaces are unequal.
    fn eq(&self, other: &Map) -> bool {
        self.is_equal(other).unwrap_or(false)
    }
}
