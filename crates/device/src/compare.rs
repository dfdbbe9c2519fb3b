//! Comparing a device's output buffer with a reference (the simulator's, or another device's):
//! exact for integers, within a tolerance for floating point.

use serde::Serialize;

/// How the bytes of a buffer are read for comparison (little-endian, as OpenCL devices store
/// them on every platform clmap targets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementKind {
    /// Two's-complement integers of 1, 2, 4 or 8 bytes.
    Signed(u8),
    /// Unsigned integers of 1, 2, 4 or 8 bytes.
    Unsigned(u8),
    /// IEEE 754 binary16 (`half`).
    Float16,
    /// IEEE 754 binary32 (`float`).
    Float32,
    /// IEEE 754 binary64 (`double`).
    Float64,
}

impl ElementKind {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElementKind::Signed(bytes) | ElementKind::Unsigned(bytes) => bytes as usize,
            ElementKind::Float16 => 2,
            ElementKind::Float32 => 4,
            ElementKind::Float64 => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, ElementKind::Float16 | ElementKind::Float32 | ElementKind::Float64)
    }
}

/// Allowed difference between floating-point elements: `|a − b| ≤ absolute + relative ·
/// max(|a|, |b|)`. The absolute term keeps results near zero from failing on rounding noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative part.
    pub relative: f64,
    /// Absolute part.
    pub absolute: f64,
}

impl Default for Tolerance {
    /// Loose enough for reassociated sums and fused multiply-adds in single precision, tight
    /// enough to catch a wrong index.
    fn default() -> Self {
        Tolerance { relative: 1e-5, absolute: 1e-6 }
    }
}

/// One element that differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mismatch {
    /// Element index in the buffer.
    pub index: usize,
    /// Reference value, printed.
    pub expected: String,
    /// Device value, printed.
    pub actual: String,
}

/// Result of comparing two buffers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Elements compared.
    pub elements: usize,
    /// Elements outside the tolerance (integers: different).
    pub mismatches: usize,
    /// The first mismatches, at most [`Comparison::REPORTED`].
    pub first_mismatches: Vec<Mismatch>,
    /// Largest relative difference among floating-point elements that are both finite and
    /// larger in magnitude than the absolute tolerance (0 for integers).
    pub max_relative_error: f64,
}

impl Comparison {
    /// How many mismatches are kept for the report.
    pub const REPORTED: usize = 10;

    /// Whether the buffers agree.
    pub fn matches(&self) -> bool {
        self.mismatches == 0
    }
}

/// Buffers that cannot be compared element by element.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComparisonError {
    /// The buffers differ in length.
    #[error("the buffers differ in length: {expected} bytes expected, {actual} bytes produced")]
    LengthMismatch {
        /// Reference length.
        expected: usize,
        /// Device length.
        actual: usize,
    },
    /// The length is not a whole number of elements.
    #[error("{bytes} bytes are not a whole number of {element_size}-byte elements")]
    PartialElement {
        /// Buffer length.
        bytes: usize,
        /// Element size.
        element_size: usize,
    },
    /// An integer size other than 1, 2, 4 or 8.
    #[error("unsupported integer size of {0} bytes")]
    UnsupportedSize(u8),
}

/// Compares `actual` with `expected`, element by element.
pub fn compare_buffers(
    expected: &[u8],
    actual: &[u8],
    kind: ElementKind,
    tolerance: Tolerance,
) -> Result<Comparison, ComparisonError> {
    let size = kind.size();
    if let ElementKind::Signed(bytes) | ElementKind::Unsigned(bytes) = kind {
        if !matches!(bytes, 1 | 2 | 4 | 8) {
            return Err(ComparisonError::UnsupportedSize(bytes));
        }
    }
    if expected.len() != actual.len() {
        return Err(ComparisonError::LengthMismatch {
            expected: expected.len(),
            actual: actual.len(),
        });
    }
    if !expected.len().is_multiple_of(size) {
        return Err(ComparisonError::PartialElement { bytes: expected.len(), element_size: size });
    }
    let mut comparison = Comparison {
        elements: expected.len() / size,
        mismatches: 0,
        first_mismatches: Vec::new(),
        max_relative_error: 0.0,
    };
    for (index, (want, got)) in
        expected.chunks_exact(size).zip(actual.chunks_exact(size)).enumerate()
    {
        let agrees = if kind.is_float() {
            let (want, got) = (decode_float(want, kind), decode_float(got, kind));
            if want.is_finite() && got.is_finite() {
                let scale = want.abs().max(got.abs());
                // Near zero the relative error says nothing; the absolute tolerance governs there.
                if scale > tolerance.absolute {
                    comparison.max_relative_error =
                        comparison.max_relative_error.max((want - got).abs() / scale);
                }
            }
            floats_agree(want, got, tolerance)
        } else {
            want == got
        };
        if !agrees {
            comparison.mismatches += 1;
            if comparison.first_mismatches.len() < Comparison::REPORTED {
                comparison.first_mismatches.push(Mismatch {
                    index,
                    expected: format_element(want, kind),
                    actual: format_element(got, kind),
                });
            }
        }
    }
    Ok(comparison)
}

fn floats_agree(want: f64, got: f64, tolerance: Tolerance) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return want == got;
    }
    (want - got).abs() <= tolerance.absolute + tolerance.relative * want.abs().max(got.abs())
}

/// Little-endian bytes to an array of fixed size; the callers pass chunks of exactly `N`.
fn fixed<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut array = [0u8; N];
    for (slot, byte) in array.iter_mut().zip(bytes) {
        *slot = *byte;
    }
    array
}

fn decode_float(bytes: &[u8], kind: ElementKind) -> f64 {
    match kind {
        ElementKind::Float16 => half_to_f64(u16::from_le_bytes(fixed(bytes))),
        ElementKind::Float32 => f32::from_le_bytes(fixed(bytes)) as f64,
        _ => f64::from_le_bytes(fixed(bytes)),
    }
}

/// IEEE binary16 to f64, subnormals, infinities and NaN included.
fn half_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f64::from(bits & 0x3ff);
    match exponent {
        0 => sign * mantissa * 2f64.powi(-24),
        0x1f if mantissa == 0.0 => sign * f64::INFINITY,
        0x1f => f64::NAN,
        _ => sign * (1.0 + mantissa / 1024.0) * 2f64.powi(exponent - 15),
    }
}

fn format_element(bytes: &[u8], kind: ElementKind) -> String {
    match kind {
        ElementKind::Signed(1) => i8::from_le_bytes(fixed(bytes)).to_string(),
        ElementKind::Signed(2) => i16::from_le_bytes(fixed(bytes)).to_string(),
        ElementKind::Signed(4) => i32::from_le_bytes(fixed(bytes)).to_string(),
        ElementKind::Signed(_) => i64::from_le_bytes(fixed(bytes)).to_string(),
        ElementKind::Unsigned(1) => u8::from_le_bytes(fixed(bytes)).to_string(),
        ElementKind::Unsigned(2) => u16::from_le_bytes(fixed(bytes)).to_string(),
        ElementKind::Unsigned(4) => u32::from_le_bytes(fixed(bytes)).to_string(),
        ElementKind::Unsigned(_) => u64::from_le_bytes(fixed(bytes)).to_string(),
        ElementKind::Float32 => f32::from_le_bytes(fixed(bytes)).to_string(),
        float => decode_float(bytes, float).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|value| value.to_le_bytes()).collect()
    }

    #[test]
    fn integers_must_be_equal() {
        let expected: Vec<u8> = [1i32, -2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut actual = expected.clone();
        let same =
            compare_buffers(&expected, &actual, ElementKind::Signed(4), Tolerance::default());
        assert!(same.expect("comparable").matches());
        actual[4] = 0xfd; // -2 becomes -3
        let result =
            compare_buffers(&expected, &actual, ElementKind::Signed(4), Tolerance::default())
                .expect("comparable");
        assert_eq!(result.mismatches, 1);
        assert_eq!(
            result.first_mismatches,
            vec![Mismatch { index: 1, expected: "-2".into(), actual: "-3".into() }]
        );
    }

    #[test]
    fn floats_within_tolerance_agree() {
        let expected = floats(&[1.0, 1000.0, 0.0, f32::NAN, f32::INFINITY]);
        let actual = floats(&[1.000001, 1000.004, 1e-7, f32::NAN, f32::INFINITY]);
        let result =
            compare_buffers(&expected, &actual, ElementKind::Float32, Tolerance::default())
                .expect("comparable");
        assert!(result.matches(), "{result:?}");
        assert!(result.max_relative_error > 0.0 && result.max_relative_error < 1e-5);
        let wrong = floats(&[1.0, 1001.0, 0.0, 0.0, f32::NEG_INFINITY]);
        let result = compare_buffers(&expected, &wrong, ElementKind::Float32, Tolerance::default())
            .expect("comparable");
        assert_eq!(result.mismatches, 3);
        assert_eq!(result.first_mismatches[0].index, 1);
    }

    #[test]
    fn half_precision_is_decoded() {
        assert_eq!(half_to_f64(0x3c00), 1.0);
        assert_eq!(half_to_f64(0xc000), -2.0);
        assert_eq!(half_to_f64(0x0001), 2f64.powi(-24));
        assert!(half_to_f64(0x7e00).is_nan());
        assert_eq!(half_to_f64(0x7c00), f64::INFINITY);
    }

    #[test]
    fn incomparable_buffers_are_errors() {
        let kind = ElementKind::Float32;
        let tolerance = Tolerance::default();
        assert!(matches!(
            compare_buffers(&[0; 8], &[0; 4], kind, tolerance),
            Err(ComparisonError::LengthMismatch { expected: 8, actual: 4 })
        ));
        assert!(matches!(
            compare_buffers(&[0; 6], &[0; 6], kind, tolerance),
            Err(ComparisonError::PartialElement { bytes: 6, element_size: 4 })
        ));
        assert!(matches!(
            compare_buffers(&[0; 6], &[0; 6], ElementKind::Unsigned(3), tolerance),
            Err(ComparisonError::UnsupportedSize(3))
        ));
    }
}
