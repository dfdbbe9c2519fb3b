//! When a candidate computes what the reference computes: the search's validation rule.
//!
//! Seed 003 accepted a PTX whose outputs were within 1 % of the reference's. Applied value by
//! value, that rule rejects correct code wherever the reference value is a sum that cancels to
//! nearly zero: another order of the same floating-point operations changes such a value by
//! far more than 1 % of itself (classical Gram–Schmidt in single precision does this to its
//! `q` output, and every GRAMSCHM finalist of the first campaign failed for it). The search
//! therefore measures the error of each float output in the maximum norm, relative to the
//! output's largest magnitude:
//!
//! ```text
//! max_i |actual_i − expected_i|  ≤  0.01 × max_i |expected_i|      (over the whole buffer)
//! ```
//!
//! The maximum norm rather than, say, the Euclidean one: a single wrong element (a missed
//! update, a wrong index) must fail however large the buffer is, and in the Euclidean norm one
//! wrong value among 2^20 hides below 1 %; the bound also decomposes into one bound per value
//! (`|actual_i − expected_i| ≤ 0.01 × max |expected|`), so a failure names its first wrong
//! indices like every other comparison. The scale is the output's largest magnitude because
//! the rounding error of a reordered sum is proportional to the magnitude of its terms, which
//! the largest outputs reflect, not to the (possibly cancelled) value itself. Integers must
//! be equal.
//!
//! A workload may choose another rule per buffer by declaring a tolerance with a `norm` part
//! (`tolerance = { norm = 0.001 }`, or `{ rel = 0.01, norm = 1e-4 }` for the first campaign's
//! rule); that tolerance is then used whole. A tolerance without a norm part is written for
//! comparing the simulator with a device, which run the same operations in the same order,
//! and is left to those comparisons.

use clmap_workload::{compare_buffers, Buffer, BufferSet, Tolerance, Workload};

use crate::evaluator::Verdict;

/// Seed 003's 1 %, applied in the maximum norm relative to the output's largest magnitude.
pub const DEFAULT_NORM: f64 = 0.01;

/// What the rule is, in words: part of a search context's key, so that verdicts stored under
/// another rule are never reused.
pub const RULE: &str = "floats: max |a - e| <= 0.01 max |e| per output unless the buffer declares \
                        a norm tolerance; integers exact";

/// The tolerance an output is validated with: the buffer's own when it declares a norm part,
/// else [`DEFAULT_NORM`] in the maximum norm.
pub fn validation_tolerance(buffer: &Buffer) -> Tolerance {
    match buffer.tolerance {
        Some(declared) if declared.uses_norm() => declared,
        _ => Tolerance::norm(DEFAULT_NORM),
    }
}

/// Compares every output of `workload` with the reference: integers exactly, floats with
/// [`validation_tolerance`].
pub fn compare(workload: &Workload, reference: &BufferSet, actual: &BufferSet) -> Verdict {
    for name in &workload.outputs {
        let Some(buffer) = workload.buffer(name) else { continue };
        let (Some(expected), Some(got)) = (reference.get(name), actual.get(name)) else {
            return Verdict::Failed(format!("output `{name}` is missing"));
        };
        let tolerance = validation_tolerance(buffer);
        match compare_buffers(buffer.elem, &expected.bytes, &got.bytes, tolerance) {
            Err(error) => return Verdict::Failed(format!("output `{name}`: {error}")),
            Ok(comparison) if !comparison.passed() => {
                let first = comparison
                    .first_mismatches
                    .first()
                    .map(|m| {
                        format!(
                            " (first at {}: expected {:?}, got {:?})",
                            m.index, m.expected, m.actual
                        )
                    })
                    .unwrap_or_default();
                return Verdict::Wrong(format!(
                    "output `{name}`: {} of {} values outside the tolerance ({tolerance}), \
                     largest difference {:.3e} of the output's largest magnitude{first}",
                    comparison.mismatches,
                    comparison.compared,
                    comparison.norm_error()
                ));
            }
            Ok(_) => {}
        }
    }
    Verdict::Valid
}

#[cfg(test)]
mod tests {
    use super::*;
    use clmap_workload::{Access, ArgSpec, ElemType, Init, NdRange, Number, ScalarType};

    fn workload(tolerance: Option<Tolerance>) -> Workload {
        Workload::single(
            "",
            "k",
            NdRange::linear(4, None),
            vec![ArgSpec::Buffer {
                name: "q".into(),
                elem: ElemType::scalar(ScalarType::Float),
                len: 4,
                init: Init::Fill(Number::Float(0.0)),
                output: true,
                access: Access::ReadWrite,
                tolerance,
            }],
        )
    }

    fn set(workload: &Workload, values: &[f32]) -> BufferSet {
        let mut data = workload.initial_data(0).expect("data");
        if let Some(q) = data.get_mut("q") {
            q.bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        }
        data
    }

    #[test]
    fn cancelled_values_pass_and_wrong_values_fail() {
        // A device-comparison tolerance is not the search's rule: the default norm applies.
        let w = workload(Some(Tolerance { rel: 1e-5, abs: 1e-6, norm: 0.0 }));
        let reference = set(&w, &[0.8, -0.6, 3.0e-5, 0.1]);
        let reordered = set(&w, &[0.8001, -0.6, -2.0e-4, 0.1]);
        assert_eq!(compare(&w, &reference, &reordered), Verdict::Valid);
        let wrong = set(&w, &[0.8, -0.6, 3.0e-5, 0.2]);
        let verdict = compare(&w, &reference, &wrong);
        assert!(
            matches!(&verdict, Verdict::Wrong(reason) if reason.contains("first at 3")),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_declared_norm_is_used_whole() {
        let strict = workload(Some(Tolerance::norm(1e-6)));
        let reference = set(&strict, &[0.8, -0.6, 3.0e-5, 0.1]);
        let reordered = set(&strict, &[0.8001, -0.6, -2.0e-4, 0.1]);
        assert!(!compare(&strict, &reference, &reordered).is_valid());
        let first_campaign = workload(Some(Tolerance { rel: 0.01, abs: 0.0, norm: 1e-4 }));
        assert!(!compare(&first_campaign, &reference, &reordered).is_valid());
        assert_eq!(validation_tolerance(&first_campaign.buffers[0]).rel, 0.01);
    }
}
