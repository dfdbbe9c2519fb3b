//! Integer sets: a union of integer points bounded by affine constraints, possibly with
//! symbolic parameters (`[n] -> { [i] : 0 <= i < n }`).

use std::ffi::CStr;

use crate::context::c_text;
use crate::error::IslError;
use crate::ffi::{self, IslSet};
use crate::map::Map;
use crate::object::isl_object;
use crate::val;

isl_object!(
    /// An owned `isl_set`.
    Set,
    IslSet,
    ffi::isl_set_copy,
    ffi::isl_set_free,
    ffi::isl_set_to_str
);

type SetUnary = unsafe extern "C" fn(*mut IslSet) -> *mut IslSet;
type SetBinary = unsafe extern "C" fn(*mut IslSet, *mut IslSet) -> *mut IslSet;

impl Set {
    fn unary(&self, operation: &'static str, f: SetUnary) -> Result<Set, IslError> {
        // SAFETY: `f` takes its argument, and we hand it a copy.
        let raw = unsafe { f(self.take_copy()) };
        Set::from_raw(self.context(), raw, operation)
    }

    fn binary(&self, other: &Set, operation: &'static str, f: SetBinary) -> Result<Set, IslError> {
        self.same_context(other.context(), operation)?;
        // SAFETY: `f` takes both arguments, and we hand it copies.
        let raw = unsafe { f(self.take_copy(), other.take_copy()) };
        Set::from_raw(self.context(), raw, operation)
    }

    fn predicate(
        &self,
        other: &Set,
        operation: &'static str,
        f: unsafe extern "C" fn(*mut IslSet, *mut IslSet) -> ffi::IslBool,
    ) -> Result<bool, IslError> {
        self.same_context(other.context(), operation)?;
        // SAFETY: both arguments are kept.
        let answer = unsafe { f(self.keep(), other.keep()) };
        self.context().boolean(answer, operation)
    }

    /// Points in either set.
    pub fn union(&self, other: &Set) -> Result<Set, IslError> {
        self.binary(other, "unite sets", ffi::isl_set_union)
    }

    /// Points in both sets.
    pub fn intersect(&self, other: &Set) -> Result<Set, IslError> {
        self.binary(other, "intersect sets", ffi::isl_set_intersect)
    }

    /// Points of `self` that are not in `other`.
    pub fn subtract(&self, other: &Set) -> Result<Set, IslError> {
        self.binary(other, "subtract sets", ffi::isl_set_subtract)
    }

    /// Constraints on the parameters alone, intersected into the set (`params` has no set
    /// dimensions, e.g. `[n] -> { : n >= 16 }`).
    pub fn intersect_params(&self, params: &Set) -> Result<Set, IslError> {
        self.binary(params, "restrict the parameters of a set", ffi::isl_set_intersect_params)
    }

    /// The image of the set under a relation: every `y` with `x -> y` in `map` for some `x`
    /// in the set.
    pub fn apply(&self, map: &Map) -> Result<Set, IslError> {
        let operation = "apply a relation to a set";
        self.same_context(map.context(), operation)?;
        // SAFETY: both arguments are taken, and we hand over copies.
        let raw = unsafe { ffi::isl_set_apply(self.take_copy(), map.take_copy()) };
        Set::from_raw(self.context(), raw, operation)
    }

    /// The same set with its pieces merged where isl can, for shorter printing.
    pub fn coalesce(&self) -> Result<Set, IslError> {
        self.unary("coalesce a set", ffi::isl_set_coalesce)
    }

    /// The parameter values for which the set is not empty.
    pub fn params(&self) -> Result<Set, IslError> {
        self.unary("project a set onto its parameters", ffi::isl_set_params)
    }

    /// The lexicographically smallest point (as a function of the parameters).
    pub fn lexmin(&self) -> Result<Set, IslError> {
        self.unary("find the lexicographic minimum", ffi::isl_set_lexmin)
    }

    /// The lexicographically largest point (as a function of the parameters).
    pub fn lexmax(&self) -> Result<Set, IslError> {
        self.unary("find the lexicographic maximum", ffi::isl_set_lexmax)
    }

    /// The set with the parameter `name` fixed to `value` (it stays a parameter).
    pub fn fix_param(&self, name: &str, value: i64) -> Result<Set, IslError> {
        let pos = self.param_position(name)?;
        let value = val::from_i64(self.context(), value)?;
        // SAFETY: set and value are taken; we hand over a copy and a fresh value.
        let raw = unsafe { ffi::isl_set_fix_val(self.take_copy(), ffi::ISL_DIM_PARAM, pos, value) };
        Set::from_raw(self.context(), raw, "fix a parameter of a set")
    }

    /// Whether the set has no points (for every value of the parameters).
    pub fn is_empty(&self) -> Result<bool, IslError> {
        // SAFETY: kept.
        let answer = unsafe { ffi::isl_set_is_empty(self.keep()) };
        self.context().boolean(answer, "test a set for emptiness")
    }

    /// Whether both sets have the same points.
    pub fn is_equal(&self, other: &Set) -> Result<bool, IslError> {
        self.predicate(other, "compare sets", ffi::isl_set_is_equal)
    }

    /// Whether every point of `self` is in `other`.
    pub fn is_subset(&self, other: &Set) -> Result<bool, IslError> {
        self.predicate(other, "test set inclusion", ffi::isl_set_is_subset)
    }

    /// Whether the set is bounded in every set dimension.
    pub fn is_bounded(&self) -> Result<bool, IslError> {
        // SAFETY: kept.
        let answer = unsafe { ffi::isl_set_is_bounded(self.keep()) };
        self.context().boolean(answer, "test a set for boundedness")
    }

    /// The number of set dimensions (the length of its tuples).
    pub fn dims(&self) -> Result<usize, IslError> {
        self.count_dims(ffi::ISL_DIM_SET, "count the dimensions of a set")
    }

    /// The names of the parameters, in isl's order.
    pub fn param_names(&self) -> Result<Vec<String>, IslError> {
        let n = self.count_dims(ffi::ISL_DIM_PARAM, "count the parameters of a set")?;
        (0..n)
            .map(|pos| {
                // SAFETY: kept; the name is borrowed from the set and copied at once.
                let name = unsafe {
                    let raw =
                        ffi::isl_set_get_dim_name(self.keep(), ffi::ISL_DIM_PARAM, pos as u32);
                    (!raw.is_null()).then(|| CStr::from_ptr(raw).to_string_lossy().into_owned())
                };
                Ok(name.unwrap_or_default())
            })
            .collect()
    }

    /// The number of points of a bounded set whose parameters are all fixed.
    pub fn count(&self) -> Result<u64, IslError> {
        self.require_fixed_params("the number of points")?;
        // isl answers 0 for an unbounded set rather than failing, so that is checked first.
        if !self.is_bounded()? {
            return Err(IslError::NotFinite {
                what: "the number of points",
                object: self.to_string(),
                value: String::from("unbounded"),
            });
        }
        // SAFETY: kept; the value is ours.
        let raw = unsafe { ffi::isl_set_count_val(self.keep()) };
        let n = val::take_integer(self.context(), raw, "the number of points", self)?;
        u64::try_from(n).map_err(|_| IslError::TooLarge {
            what: "the number of points",
            object: self.to_string(),
            value: n.to_string(),
        })
    }

    /// The smallest and largest value of set dimension `index` over a bounded set whose
    /// parameters are all fixed.
    pub fn dim_range(&self, index: usize) -> Result<(i64, i64), IslError> {
        self.require_fixed_params("the range of a dimension")?;
        let dims = self.dims()?;
        if index >= dims {
            return Err(IslError::NoSuchDimension { index, object: self.to_string() });
        }
        let pos = index as i32;
        // SAFETY: both calls take the set; we hand each a copy. The values are ours.
        let (min, max) = unsafe {
            (
                ffi::isl_set_dim_min_val(self.take_copy(), pos),
                ffi::isl_set_dim_max_val(self.take_copy(), pos),
            )
        };
        let min = val::take_integer(self.context(), min, "the minimum", self);
        let max = val::take_integer(self.context(), max, "the maximum", self);
        let narrow = |v: i128, what| {
            i64::try_from(v).map_err(|_| IslError::TooLarge {
                what,
                object: self.to_string(),
                value: v.to_string(),
            })
        };
        Ok((narrow(min?, "the minimum")?, narrow(max?, "the maximum")?))
    }

    /// isl answers numbers about a set with free parameters as if they were 0 or fails
    /// obscurely; a clear error is better.
    fn require_fixed_params(&self, what: &'static str) -> Result<(), IslError> {
        let names = self.param_names()?;
        let mut free = Vec::new();
        for (pos, name) in names.iter().enumerate() {
            // SAFETY: kept; the value is ours.
            let raw = unsafe {
                ffi::isl_set_plain_get_val_if_fixed(self.keep(), ffi::ISL_DIM_PARAM, pos as u32)
            };
            if val::take_integer(self.context(), raw, what, self).is_err() {
                free.push(name.as_str());
            }
        }
        if free.is_empty() {
            Ok(())
        } else {
            Err(IslError::Symbolic { what, object: self.to_string(), params: free.join(", ") })
        }
    }

    fn count_dims(
        &self,
        kind: ffi::IslDimType,
        operation: &'static str,
    ) -> Result<usize, IslError> {
        // SAFETY: kept.
        let n = unsafe { ffi::isl_set_dim(self.keep(), kind) };
        usize::try_from(n).map_err(|_| self.context().take_error(operation))
    }

    fn param_position(&self, name: &str) -> Result<u32, IslError> {
        let text = c_text(name)?;
        // SAFETY: kept; the name is NUL-terminated.
        let pos = unsafe {
            ffi::isl_set_find_dim_by_name(self.keep(), ffi::ISL_DIM_PARAM, text.as_ptr())
        };
        u32::try_from(pos).map_err(|_| IslError::NoSuchParameter {
            name: name.to_string(),
            object: self.to_string(),
        })
    }
}

impl PartialEq for Set {
    /// Equal point sets; sets of different contexts or spaces are unequal.
    fn eq(&self, other: &Set) -> bool {
        self.is_equal(other).unwrap_or(false)
    }
}
