//! What happens to buffers after a run: Oclgrind-compatible dumps, binary and CSV files,
//! and comparison of two runs' outputs.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use crate::model::{BufferSet, LaunchArg, Tolerance, Workload};
use crate::number::Number;
use crate::types::{ElemType, ScalarType};

/// Formats a dumped buffer exactly as `oclgrind-kernel` prints it: a blank line, the
/// `Argument 'NAME': N bytes` header, one `  NAME[i] = V` line per scalar (vector components
/// and the padding lane of 3-vectors count one by one, as Oclgrind reads raw memory), and a
/// blank line. Floats use C's `%g`; `hex` prints `0x` and the value zero-padded to twice the
/// scalar size, with Oclgrind's quirks (floats stay decimal, `char` widens to 32 bits).
pub fn format_oclgrind_dump(name: &str, elem: ElemType, bytes: &[u8], hex: bool) -> String {
    let ty = elem.scalar;
    let size = ty.size() as usize;
    let mut out = format!("\nArgument '{name}': {} bytes\n", bytes.len());
    for (i, chunk) in bytes.chunks_exact(size).enumerate() {
        let value = Number::read_le(ty, chunk).unwrap_or(Number::Int(0));
        let text = if hex { hex_value(value, ty) } else { decimal_value(value) };
        let _ = writeln!(out, "  {name}[{i}] = {text}");
    }
    out.push('\n');
    out
}

fn decimal_value(value: Number) -> String {
    match value {
        Number::Int(i) => i.to_string(),
        Number::Float(f) => format_c_g(f),
    }
}

fn hex_value(value: Number, ty: ScalarType) -> String {
    let width = 2 * ty.size() as usize;
    let digits = match value {
        // `(int)` of a char, printed in hex, shows all 32 bits of a negative value.
        Number::Int(i) if ty == ScalarType::Char => format!("{:x}", i as i32 as u32),
        Number::Int(i) => {
            let bits = 8 * ty.size() as u32;
            let mask = if bits >= 128 { u128::MAX } else { (1u128 << bits) - 1 };
            format!("{:x}", (i as u128) & mask)
        }
        Number::Float(f) => format_c_g(f),
    };
    format!("0x{digits:0>width$}")
}

/// C's `printf("%g", v)` (precision 6), as glibc prints it.
pub fn format_c_g(value: f64) -> String {
    if value.is_nan() {
        return if value.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    const PRECISION: i32 = 6;
    // The exponent after rounding to six significant digits decides the style.
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, value);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..PRECISION).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_fraction(mantissa), exponent.abs())
    } else {
        let fixed = format!("{:.*}", (PRECISION - 1 - exponent) as usize, value);
        trim_fraction(&fixed).to_string()
    }
}

fn trim_fraction(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

impl Workload {
    /// The dumps `oclgrind-kernel` would print after running this workload, given the final
    /// buffer contents by name (see [`Workload::contents_by_final_name`] for pipelines with
    /// swaps): every output buffer of the last launch, in argument order (then any
    /// output not passed to it), with its `hex` setting.
    pub fn format_oclgrind_output(&self, data: &BufferSet) -> String {
        let mut order: Vec<&str> = Vec::new();
        if let Some(launch) = self.launches.last() {
            for arg in &launch.args {
                if let LaunchArg::Buffer { buffer } = arg {
                    if self.outputs.contains(buffer) && !order.contains(&buffer.as_str()) {
                        order.push(buffer);
                    }
                }
            }
        }
        for name in &self.outputs {
            if !order.contains(&name.as_str()) {
                order.push(name);
            }
        }
        let mut out = String::new();
        for name in order {
            if let (Some(buffer), Some(contents)) = (self.buffer(name), data.get(name)) {
                out.push_str(&format_oclgrind_dump(
                    name,
                    buffer.elem,
                    &contents.bytes,
                    buffer.hex_dump,
                ));
            }
        }
        out
    }
}

/// The comparison of one output buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputComparison {
    pub name: String,
    pub elem: ElemType,
    /// The tolerance used (the buffer's own, or [`Tolerance::default`]).
    pub tolerance: Tolerance,
    pub result: Result<Comparison, CompareError>,
}

impl Workload {
    /// Compares every output buffer of two runs (contents by final name), each with its own
    /// tolerance. An output missing from either set is reported as a size mismatch.
    pub fn compare_outputs(
        &self,
        expected: &BufferSet,
        actual: &BufferSet,
    ) -> Vec<OutputComparison> {
        self.outputs
            .iter()
            .filter_map(|name| self.buffer(name))
            .map(|buffer| {
                let tolerance = buffer.tolerance.unwrap_or_default();
                let e = expected.get(&buffer.name).map_or(&[][..], |b| &b.bytes[..]);
                let a = actual.get(&buffer.name).map_or(&[][..], |b| &b.bytes[..]);
                let result =
                    if expected.get(&buffer.name).is_none() || actual.get(&buffer.name).is_none() {
                        Err(CompareError::SizeMismatch { expected: e.len(), actual: a.len() })
                    } else {
                        compare_buffers(buffer.elem, e, a, tolerance)
                    };
                OutputComparison { name: buffer.name.clone(), elem: buffer.elem, tolerance, result }
            })
            .collect()
    }
}

/// Writes every output buffer of `workload` into `dir` as `NAME.bin` (raw bytes) and
/// `NAME.csv`, creating `dir` if needed; `data` holds the contents by final name (see
/// [`Workload::contents_by_final_name`]). Returns the files written.
pub fn write_output_files(
    dir: &Path,
    workload: &Workload,
    data: &BufferSet,
) -> io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for name in &workload.outputs {
        let (Some(buffer), Some(contents)) = (workload.buffer(name), data.get(name)) else {
            continue;
        };
        // Buffer names come from users; keep file names to a safe alphabet.
        let stem: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
            .collect();
        let binary = dir.join(format!("{stem}.bin"));
        write_binary(&binary, &contents.bytes)?;
        let csv = dir.join(format!("{stem}.csv"));
        let file = io::BufWriter::new(std::fs::File::create(&csv)?);
        write_csv(file, buffer.elem, &contents.bytes)?;
        written.push(binary);
        written.push(csv);
    }
    Ok(written)
}

/// Writes the raw little-endian bytes of a buffer.
pub fn write_binary(path: &Path, bytes: &[u8]) -> io::Result<()> {
    std::fs::write(path, bytes)
}

/// Writes a buffer as CSV: a header `index,value` (or `index,s0,s1,...` for vectors), then one
/// row per element. Floats use the shortest text that reads back to the same value.
pub fn write_csv(mut out: impl Write, elem: ElemType, bytes: &[u8]) -> io::Result<()> {
    let ty = elem.scalar;
    let size = ty.size() as usize;
    let width = usize::from(elem.width);
    if width == 1 {
        writeln!(out, "index,value")?;
    } else {
        let columns: Vec<String> = (0..width).map(|c| format!("s{c:x}")).collect();
        writeln!(out, "index,{}", columns.join(","))?;
    }
    let element_bytes = elem.size() as usize;
    for (index, element) in bytes.chunks_exact(element_bytes).enumerate() {
        let mut row = index.to_string();
        for component in element.chunks_exact(size).take(width) {
            row.push(',');
            match Number::read_le(ty, component) {
                Some(Number::Int(i)) => row.push_str(&i.to_string()),
                Some(Number::Float(f)) if ty == ScalarType::Float => {
                    row.push_str(&(f as f32).to_string())
                }
                Some(Number::Float(f)) => row.push_str(&f.to_string()),
                None => {}
            }
        }
        writeln!(out, "{row}")?;
    }
    Ok(())
}

/// One differing component.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Index of the scalar component (element index times the vector width, plus the lane).
    pub index: u64,
    pub expected: Number,
    pub actual: Number,
}

/// The result of comparing two buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Components compared.
    pub compared: u64,
    /// Largest absolute difference (NaN-vs-NaN counts as 0; infinite when one side is NaN
    /// or infinite and the other is not).
    pub max_abs: f64,
    /// Largest difference relative to the expected value (where it is non-zero).
    pub max_rel: f64,
    /// Largest finite magnitude of the expected values: the scale the norm rule compares
    /// differences with.
    pub scale: f64,
    /// Components outside the tolerance.
    pub mismatches: u64,
    /// The first few mismatches, in index order.
    pub first_mismatches: Vec<Mismatch>,
}

impl Comparison {
    /// True when every component matched.
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }

    /// The largest difference relative to the buffer's largest magnitude,
    /// `max |actual - expected| / max |expected|`: what the norm rule bounds.
    pub fn norm_error(&self) -> f64 {
        if self.max_abs == 0.0 {
            0.0
        } else if self.scale == 0.0 {
            f64::INFINITY
        } else {
            self.max_abs / self.scale
        }
    }
}

/// How many mismatches [`compare_buffers`] keeps for reports.
pub const KEPT_MISMATCHES: usize = 16;

/// Why two buffers cannot be compared at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("buffer sizes differ: expected {expected} bytes, got {actual}")]
    SizeMismatch { expected: usize, actual: usize },
    #[error("{len} bytes is not a whole number of {elem} elements")]
    Ragged { len: usize, elem: ElemType },
}

/// Compares `actual` against `expected`: integers exactly, floats within
/// `|actual - expected| <= abs + rel * |expected| + norm * scale` (`scale` the largest finite
/// `|expected|` of the buffer, see [`Tolerance`]), NaN equal to NaN, infinities equal only to
/// themselves. The padding lane of 3-component vectors is ignored.
pub fn compare_buffers(
    elem: ElemType,
    expected: &[u8],
    actual: &[u8],
    tolerance: Tolerance,
) -> Result<Comparison, CompareError> {
    if expected.len() != actual.len() {
        return Err(CompareError::SizeMismatch { expected: expected.len(), actual: actual.len() });
    }
    let element_bytes = elem.size() as usize;
    if expected.len() % element_bytes != 0 {
        return Err(CompareError::Ragged { len: expected.len(), elem });
    }
    let ty = elem.scalar;
    let size = ty.size() as usize;
    let width = usize::from(elem.width);
    let scale = largest_magnitude(elem, expected);
    // The part of the bound that does not depend on the value itself.
    let floor = tolerance.abs + tolerance.norm * scale;
    let mut result = Comparison {
        compared: 0,
        max_abs: 0.0,
        max_rel: 0.0,
        scale,
        mismatches: 0,
        first_mismatches: Vec::new(),
    };
    let pairs = expected.chunks_exact(element_bytes).zip(actual.chunks_exact(element_bytes));
    for (element, (e_elem, a_elem)) in pairs.enumerate() {
        let lanes = e_elem.chunks_exact(size).zip(a_elem.chunks_exact(size)).take(width);
        for (lane, (e_bytes, a_bytes)) in lanes.enumerate() {
            let (Some(e), Some(a)) = (Number::read_le(ty, e_bytes), Number::read_le(ty, a_bytes))
            else {
                continue;
            };
            result.compared += 1;
            let (abs, rel, ok) = difference(e, a, tolerance.rel, floor);
            result.max_abs = result.max_abs.max(abs);
            result.max_rel = result.max_rel.max(rel);
            if !ok {
                result.mismatches += 1;
                if result.first_mismatches.len() < KEPT_MISMATCHES {
                    let index = (element * width + lane) as u64;
                    result.first_mismatches.push(Mismatch { index, expected: e, actual: a });
                }
            }
        }
    }
    Ok(result)
}

/// The largest finite magnitude among the components of `bytes` (padding lanes skipped).
fn largest_magnitude(elem: ElemType, bytes: &[u8]) -> f64 {
    let ty = elem.scalar;
    let size = ty.size() as usize;
    let width = usize::from(elem.width);
    bytes
        .chunks_exact(elem.size() as usize)
        .flat_map(|element| element.chunks_exact(size).take(width))
        .filter_map(|lane| Number::read_le(ty, lane))
        .map(|n| n.as_f64().abs())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
}

/// (absolute difference, relative difference, within `floor + rel * |expected|`).
fn difference(expected: Number, actual: Number, rel_tol: f64, floor: f64) -> (f64, f64, bool) {
    match (expected, actual) {
        (Number::Int(e), Number::Int(a)) => {
            let abs = (e - a).unsigned_abs() as f64;
            let rel = if e == 0 {
                if abs == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                abs / e.unsigned_abs() as f64
            };
            (abs, rel, e == a)
        }
        _ => {
            let (e, a) = (expected.as_f64(), actual.as_f64());
            if e.is_nan() || a.is_nan() {
                let same = e.is_nan() && a.is_nan();
                let diff = if same { 0.0 } else { f64::INFINITY };
                return (diff, diff, same);
            }
            if e.is_infinite() || a.is_infinite() {
                let same = e == a;
                let diff = if same { 0.0 } else { f64::INFINITY };
                return (diff, diff, same);
            }
            let abs = (a - e).abs();
            let rel = if e == 0.0 {
                if abs == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                abs / e.abs()
            };
            (abs, rel, abs <= floor + rel_tol * e.abs())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn c_g_formatting_matches_glibc() {
        // Expected strings printed by glibc's printf("%g").
        let cases: [(f64, &str); 20] = [
            (0.5, "0.5"),
            (2.5, "2.5"),
            (1.0000005, "1"),
            (1234565.0, "1.23456e+06"),
            (0.000123455, "0.000123455"),
            (1e-5, "1e-05"),
            (999999.5, "1e+06"),
            (9999995.0, "1e+07"),
            (1.5e-5, "1.5e-05"),
            (123456.5, "123456"),
            (0.3125e-4, "3.125e-05"),
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (-2.5e9, "-2.5e+09"),
            (1e100, "1e+100"),
            (4.56789012, "4.56789"),
            (-0.0, "-0"),
            (f64::NEG_INFINITY, "-inf"),
            (0.0001, "0.0001"),
            (1.23456789e-300, "1.23457e-300"),
        ];
        for (value, text) in cases {
            assert_eq!(format_c_g(value), text, "{value:e}");
        }
        assert_eq!(format_c_g(f64::NAN), "nan");
        assert_eq!(format_c_g(-f64::NAN), "-nan");
    }

    #[test]
    fn dump_layout_and_hex_quirks() {
        let float = ElemType::scalar(ScalarType::Float);
        assert_eq!(
            format_oclgrind_dump("out", float, &floats(&[1.0, -2.5]), false),
            "\nArgument 'out': 8 bytes\n  out[0] = 1\n  out[1] = -2.5\n\n"
        );
        assert_eq!(
            format_oclgrind_dump("out", float, &floats(&[-2.5]), true),
            "\nArgument 'out': 4 bytes\n  out[0] = 0x0000-2.5\n\n"
        );
        let char_ty = ElemType::scalar(ScalarType::Char);
        assert_eq!(
            format_oclgrind_dump("c", char_ty, &[0xa0, 0x18], true),
            "\nArgument 'c': 2 bytes\n  c[0] = 0xffffffa0\n  c[1] = 0x18\n\n"
        );
        let short = ElemType::scalar(ScalarType::Short);
        assert!(format_oclgrind_dump("s", short, &(-20000i16).to_le_bytes(), true)
            .contains("s[0] = 0xb1e0\n"));
    }

    #[test]
    fn comparison_rules() {
        let float = ElemType::scalar(ScalarType::Float);
        let tol = Tolerance { rel: 1e-3, abs: 0.0, norm: 0.0 };
        let expected = floats(&[1.0, f32::NAN, f32::INFINITY, 100.0, 0.0]);
        let same = compare_buffers(float, &expected, &expected, tol).expect("comparable");
        assert!(same.passed());
        assert_eq!((same.compared, same.max_abs), (5, 0.0));
        let actual = floats(&[1.0005, f32::NAN, f32::INFINITY, 100.2, 1e-9]);
        let c = compare_buffers(float, &expected, &actual, tol).expect("comparable");
        assert_eq!(c.mismatches, 2, "{c:?}");
        assert_eq!(c.first_mismatches.iter().map(|m| m.index).collect::<Vec<_>>(), vec![3, 4]);
        assert!((c.max_abs - 0.2).abs() < 1e-4);
        let nan_vs_number = floats(&[1.0, 2.0, f32::INFINITY, 100.0, 0.0]);
        assert_eq!(
            compare_buffers(float, &expected, &nan_vs_number, tol).map(|c| c.mismatches),
            Ok(1)
        );

        let int = ElemType::scalar(ScalarType::Int);
        let e: Vec<u8> = [5i32, -3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let a: Vec<u8> = [5i32, -4].iter().flat_map(|v| v.to_le_bytes()).collect();
        let c =
            compare_buffers(int, &e, &a, Tolerance { rel: 1.0, abs: 10.0, norm: 1.0 }).expect("ok");
        assert_eq!((c.mismatches, c.max_abs), (1, 1.0), "integers are exact");
        assert!(matches!(
            compare_buffers(int, &e, &a[..4], tol),
            Err(CompareError::SizeMismatch { .. })
        ));
        assert!(matches!(
            compare_buffers(int, &e[..3], &a[..3], tol),
            Err(CompareError::Ragged { .. })
        ));
    }

    /// Sums of the same terms in two orders, in single precision: where the terms cancel, the
    /// two results differ by far more than 1 % of themselves, but by little next to the
    /// buffer's largest value.
    fn reordered_sums() -> (Vec<f32>, Vec<f32>) {
        let rows: [[f32; 4]; 3] =
            [[1.5, 2.25, -0.75, 3.0], [1.0e4, 0.3, -1.0e4, -0.299], [-8.0, 4.0, 2.5, 0.125]];
        let forward = rows.iter().map(|r| r.iter().sum::<f32>()).collect();
        let backward = rows.iter().map(|r| r.iter().rev().sum::<f32>()).collect();
        (forward, backward)
    }

    #[test]
    fn the_norm_rule_accepts_cancellation_that_the_per_value_rule_rejects() {
        let float = ElemType::scalar(ScalarType::Float);
        let (expected, actual) = reordered_sums();
        // The cancelling row really does differ relatively: about 8e-4 against 1e-3.
        assert!((expected[1] - actual[1]).abs() > 0.01 * expected[1].abs(), "{expected:?}");
        let (e, a) = (floats(&expected), floats(&actual));
        let per_value = Tolerance { rel: 0.01, abs: 0.0, norm: 0.0 };
        let by_norm = Tolerance::norm(0.01);
        let c = compare_buffers(float, &e, &a, per_value).expect("comparable");
        assert_eq!(c.mismatches, 1, "the per-value rule rejects the cancelled sum: {c:?}");
        let c = compare_buffers(float, &e, &a, by_norm).expect("comparable");
        assert!(c.passed(), "{c:?}");
        assert_eq!(c.scale, 6.0, "the largest magnitude of the expected values");
        assert!(c.norm_error() < 0.01, "{}", c.norm_error());

        // A real error (one value off by 5 % of the largest) fails both rules.
        let mut wrong = actual.clone();
        wrong[0] += 0.05 * 6.0;
        let w = floats(&wrong);
        for tolerance in [per_value, by_norm] {
            let c = compare_buffers(float, &e, &w, tolerance).expect("comparable");
            assert!(!c.passed(), "{tolerance}: {c:?}");
            assert_eq!(c.first_mismatches[0].index, 0);
        }
    }

    #[test]
    fn the_norm_scale_skips_padding_and_non_finite_values() {
        let float3 = ElemType { scalar: ScalarType::Float, width: 3 };
        let expected = floats(&[1.0, -4.0, f32::INFINITY, 1000.0, 2.0, 0.0, 0.0, 1000.0]);
        let actual = floats(&[1.03, -4.0, f32::INFINITY, 0.0, 2.0, 0.0, 0.0, -5.0]);
        let c = compare_buffers(float3, &expected, &actual, Tolerance::norm(0.01)).expect("ok");
        assert_eq!(c.scale, 4.0, "the padding lanes hold 1000, the infinity is no scale");
        assert!(c.passed(), "0.03 is within 1 % of 4: {c:?}");
        let all_zero = floats(&[0.0, 0.0, 0.0, 0.0]);
        let tiny = floats(&[0.0, 1e-30, 0.0, 0.0]);
        let float = ElemType::scalar(ScalarType::Float);
        let c = compare_buffers(float, &all_zero, &tiny, Tolerance::norm(0.5)).expect("ok");
        assert_eq!(c.mismatches, 1, "an all-zero reference leaves the norm rule no room");
        assert_eq!(c.norm_error(), f64::INFINITY);
    }

    #[test]
    fn tolerances_print_the_parts_in_use() {
        assert_eq!(Tolerance::default().to_string(), "rel 1e-5, abs 1e-6");
        assert_eq!(Tolerance::norm(0.01).to_string(), "norm 1e-2");
        assert_eq!(Tolerance { rel: 0.0, abs: 0.0, norm: 0.0 }.to_string(), "exact");
    }

    #[test]
    fn comparison_ignores_vector_padding() {
        let int3 = ElemType { scalar: ScalarType::Int, width: 3 };
        let e: Vec<u8> = [1i32, 2, 3, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let a: Vec<u8> = [1i32, 2, 3, 99].iter().flat_map(|v| v.to_le_bytes()).collect();
        let c = compare_buffers(int3, &e, &a, Tolerance::default()).expect("ok");
        assert!(c.passed());
        assert_eq!(c.compared, 3);
    }

    #[test]
    fn output_files_are_written_per_output_buffer() {
        use crate::model::{Access, ArgSpec, NdRange};
        use crate::Init;
        let w = Workload::single(
            "",
            "k",
            NdRange::linear(2, None),
            vec![ArgSpec::Buffer {
                name: "out/x".into(),
                elem: ElemType::scalar(ScalarType::Float),
                len: 2,
                init: Init::Fill(Number::Float(1.5)),
                output: true,
                access: Access::ReadWrite,
                tolerance: None,
            }],
        );
        let data = w.initial_data(0).expect("data");
        let dir = std::env::temp_dir().join(format!("clmap-out-{}", std::process::id()));
        let files = write_output_files(&dir, &w, &data).expect("write");
        assert_eq!(files.len(), 2);
        assert_eq!(std::fs::read(dir.join("out_x.bin")).ok(), Some(floats(&[1.5, 1.5])));
        let csv = std::fs::read_to_string(dir.join("out_x.csv")).unwrap_or_default();
        assert_eq!(csv, "index,value\n0,1.5\n1,1.5\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn outputs_compare_with_their_own_tolerance() {
        use crate::model::{Access, ArgSpec, NdRange};
        use crate::Init;
        let buffer = |name: &str, tolerance| ArgSpec::Buffer {
            name: name.into(),
            elem: ElemType::scalar(ScalarType::Float),
            len: 1,
            init: Init::Fill(Number::Float(1.0)),
            output: true,
            access: Access::ReadWrite,
            tolerance,
        };
        let w = Workload::single(
            "",
            "k",
            NdRange::linear(1, None),
            vec![
                buffer("loose", Some(Tolerance { rel: 0.1, abs: 0.0, norm: 0.0 })),
                buffer("strict", None),
            ],
        );
        let expected = w.initial_data(0).expect("data");
        let mut actual = expected.clone();
        for b in &mut actual.buffers {
            b.bytes = 1.01f32.to_le_bytes().to_vec();
        }
        let results = w.compare_outputs(&expected, &actual);
        let passed: Vec<(String, bool)> = results
            .iter()
            .map(|c| (c.name.clone(), c.result.as_ref().is_ok_and(Comparison::passed)))
            .collect();
        assert_eq!(passed, vec![("loose".into(), true), ("strict".into(), false)]);
        actual.buffers.pop();
        assert!(w.compare_outputs(&expected, &actual)[1].result.is_err());
    }

    #[test]
    fn csv_rows() {
        let mut out = Vec::new();
        write_csv(&mut out, ElemType::scalar(ScalarType::Float), &floats(&[0.1, -2.0]))
            .expect("csv");
        assert_eq!(String::from_utf8_lossy(&out), "index,value\n0,0.1\n1,-2\n");
        let mut out = Vec::new();
        let uchar2 = ElemType { scalar: ScalarType::UChar, width: 2 };
        write_csv(&mut out, uchar2, &[1, 2, 3, 255]).expect("csv");
        assert_eq!(String::from_utf8_lossy(&out), "index,s0,s1\n0,1,2\n1,3,255\n");
    }
}
