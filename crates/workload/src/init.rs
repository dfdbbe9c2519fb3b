//! Initial contents of a buffer: the `init = "..."` mini-language and the bytes it produces.

use std::path::{Path, PathBuf};

use crate::formula::Formula;
use crate::number::{Number, NumberError};
use crate::rng::SplitMix64;
use crate::types::{ElemType, ScalarType};

/// How a buffer is filled before the first launch.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// All bytes zero.
    Zero,
    /// Contents unspecified (zero bytes in practice, but marked uninitialised so checkers can
    /// report reads before writes).
    NoInit,
    /// Every component set to one value.
    Fill(Number),
    /// Component `i` (counting vector components one by one) is `start + i * step`.
    Range { start: Number, step: Number },
    /// Uniform random values from SplitMix64; integers in [lo, hi], floats in [lo, hi).
    Random { seed: u64, lo: Option<Number>, hi: Option<Number> },
    /// Raw little-endian bytes read from a file (path as resolved at load time).
    File(PathBuf),
    /// One value per component, as listed in an Oclgrind `.sim` file.
    Values(Vec<Number>),
    /// Each component computed from its index (a TOML table `{ formula = "...", shape = [...] }`).
    /// Fixed data: seed shifts do not change it.
    Formula(Formula),
}

/// The syntax accepted by [`Init::parse`], for error messages.
pub const INIT_SYNTAX: &str = "zero | noinit | fill(V) | range(START) | range(START, STEP) | \
                               random(SEED) | random(SEED, LO, HI) | file(PATH)";

/// Default range of `random(SEED)` for integers: [0, 100].
pub const DEFAULT_RANDOM_INT: (i128, i128) = (0, 100);

impl Init {
    /// Parses the text of an `init` key. Relative `file(...)` paths are resolved against
    /// `base_dir`.
    pub fn parse(text: &str, base_dir: &Path) -> Result<Init, String> {
        let text = text.trim();
        match text {
            "zero" => return Ok(Init::Zero),
            "noinit" => return Ok(Init::NoInit),
            _ => {}
        }
        let open = text.find('(').ok_or_else(|| expected(text))?;
        let inner = text
            .get(open + 1..)
            .and_then(|rest| rest.strip_suffix(')'))
            .ok_or_else(|| expected(text))?;
        let func = text.get(..open).unwrap_or("").trim();
        if func == "file" {
            let path = inner.trim().trim_matches('"');
            if path.is_empty() {
                return Err("file(PATH) needs a path".to_string());
            }
            return Ok(Init::File(base_dir.join(path)));
        }
        let args: Vec<&str> = inner.split(',').map(str::trim).collect();
        let numbers = args
            .iter()
            .map(|a| Number::parse(a).ok_or_else(|| format!("`{a}` is not a number in `{text}`")))
            .collect::<Result<Vec<_>, _>>()?;
        match (func, numbers.as_slice()) {
            ("fill", [v]) => Ok(Init::Fill(*v)),
            ("range", [start]) => Ok(Init::Range { start: *start, step: Number::Int(1) }),
            ("range", [start, step]) => Ok(Init::Range { start: *start, step: *step }),
            ("random", [seed]) => Ok(Init::Random { seed: seed_of(*seed)?, lo: None, hi: None }),
            ("random", [seed, lo, hi]) => {
                Ok(Init::Random { seed: seed_of(*seed)?, lo: Some(*lo), hi: Some(*hi) })
            }
            ("fill" | "range" | "random", _) => {
                Err(format!("wrong number of arguments in `{text}`; expected {INIT_SYNTAX}"))
            }
            _ => Err(expected(text)),
        }
    }

    /// Checks that the initialiser can produce `len` elements of `elem`: values fit the type,
    /// ranges are ordered, explicit lists and files have the right length. (A file is read
    /// again when the data is produced, and checked again then.)
    pub fn check(&self, elem: ElemType, len: u64) -> Result<(), String> {
        let ty = elem.scalar;
        let components = len.saturating_mul(u64::from(elem.width));
        let fits = |n: Number| -> Result<(), String> {
            n.write_le(ty, &mut Vec::new()).map_err(|e: NumberError| e.to_string())
        };
        match self {
            Init::Zero | Init::NoInit => Ok(()),
            Init::File(path) => {
                // Checked at load time so a wrong path is reported with the workload's location.
                let found = std::fs::metadata(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                    .len();
                let needed = len.saturating_mul(elem.size());
                if found != needed {
                    return Err(format!(
                        "{} has {found} bytes, the buffer needs {needed} ({len} x {elem})",
                        path.display()
                    ));
                }
                Ok(())
            }
            Init::Fill(v) => fits(*v),
            Init::Formula(formula) => formula.check(components),
            Init::Values(values) => {
                if values.len() as u64 != components {
                    return Err(format!(
                        "{} values given, {components} expected ({len} x {elem})",
                        values.len()
                    ));
                }
                values.iter().try_for_each(|v| fits(*v))
            }
            Init::Range { start, step } => {
                fits(*start)?;
                if components > 0 {
                    fits(range_value(*start, *step, components - 1, ty))
                        .map_err(|e| format!("the last value of the range is out of range: {e}"))?;
                }
                Ok(())
            }
            Init::Random { lo, hi, .. } => {
                let (lo, hi) = (random_bounds(*lo, *hi, ty))?;
                match (lo, hi) {
                    (Number::Int(a), Number::Int(b)) if !ty.is_float() => {
                        fits(lo)?;
                        fits(hi)?;
                        if a > b {
                            return Err(format!("random range is empty: {a} > {b}"));
                        }
                        Ok(())
                    }
                    _ if ty.is_float() => {
                        fits(lo)?;
                        fits(hi)?;
                        let (a, b) = (lo.as_f64(), hi.as_f64());
                        if !(a.is_finite() && b.is_finite() && a < b) {
                            return Err(format!(
                                "random range for {ty} must be finite with LO < HI, got [{lo}, {hi})"
                            ));
                        }
                        Ok(())
                    }
                    _ => Err(format!("random bounds for {ty} must be integers, got {lo} and {hi}")),
                }
            }
        }
    }

    /// Produces the bytes of `len` elements of `elem`. `seed_shift` is added to random seeds.
    /// The padding component of 3-component vectors is zero. Call [`Init::check`] first; an
    /// unchecked bad value is reported here rather than panicking.
    pub fn generate(&self, elem: ElemType, len: u64, seed_shift: u64) -> Result<Vec<u8>, String> {
        let ty = elem.scalar;
        let byte_len = len.checked_mul(elem.size()).ok_or("buffer size overflows")?;
        let byte_len =
            usize::try_from(byte_len).map_err(|_| "buffer too large for this machine")?;
        if let Init::File(path) = self {
            let bytes =
                std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if bytes.len() != byte_len {
                return Err(format!(
                    "{} has {} bytes, the buffer needs {byte_len} ({len} x {elem})",
                    path.display(),
                    bytes.len()
                ));
            }
            return Ok(bytes);
        }
        let mut out = Vec::new();
        out.try_reserve_exact(byte_len).map_err(|_| "out of memory for buffer")?;
        out.resize(byte_len, 0);
        match self {
            Init::Zero | Init::NoInit | Init::File(_) => {}
            Init::Fill(v) => {
                let mut one = Vec::new();
                v.write_le(ty, &mut one).map_err(|e| e.to_string())?;
                for_each_component(&mut out, elem, |_, lane| {
                    lane.copy_from_slice(&one);
                    Ok(())
                })?;
            }
            Init::Values(values) => {
                let mut scratch = Vec::with_capacity(8);
                for_each_component(&mut out, elem, |i, lane| {
                    let v = values.get(i as usize).ok_or("too few values")?;
                    encode(*v, ty, &mut scratch, lane)
                })?;
            }
            Init::Range { start, step } => {
                let mut scratch = Vec::with_capacity(8);
                for_each_component(&mut out, elem, |i, lane| {
                    encode(range_value(*start, *step, i, ty), ty, &mut scratch, lane)
                })?;
            }
            Init::Formula(formula) => {
                formula.check(len.saturating_mul(u64::from(elem.width)))?;
                let mut value = formula.evaluator(ty);
                let mut scratch = Vec::with_capacity(8);
                for_each_component(&mut out, elem, |i, lane| {
                    encode(value(i)?, ty, &mut scratch, lane)
                })?;
            }
            Init::Random { seed, lo, hi } => {
                let (lo, hi) = random_bounds(*lo, *hi, ty)?;
                let mut rng = SplitMix64::new(seed.wrapping_add(seed_shift));
                let mut scratch = Vec::with_capacity(8);
                if matches!(ty, ScalarType::Float | ScalarType::Double) {
                    // The common case without a `Number` per value (large inputs are made on
                    // one thread before a run): the same values, encoded as `write_le` does.
                    let (a, b) = (lo.as_f64(), hi.as_f64());
                    for_each_component(&mut out, elem, |_, lane| {
                        let v = random_float(&mut rng, a, b, ty);
                        match ty {
                            ScalarType::Double => lane.copy_from_slice(&v.to_le_bytes()),
                            _ if !(v as f32).is_infinite() || !v.is_finite() => {
                                lane.copy_from_slice(&(v as f32).to_le_bytes())
                            }
                            _ => return encode(Number::Float(v), ty, &mut scratch, lane),
                        }
                        Ok(())
                    })?;
                } else {
                    for_each_component(&mut out, elem, |_, lane| {
                        encode(random_value(&mut rng, lo, hi, ty), ty, &mut scratch, lane)
                    })?;
                }
            }
        }
        Ok(out)
    }
}

fn expected(text: &str) -> String {
    format!("cannot understand init `{text}`; expected {INIT_SYNTAX}")
}

fn seed_of(n: Number) -> Result<u64, String> {
    match n {
        Number::Int(i) => {
            u64::try_from(i).map_err(|_| format!("seed {i} must be an integer from 0 to 2^64-1"))
        }
        Number::Float(f) => Err(format!("seed {f} must be an integer")),
    }
}

/// Calls `write(i, lane)` for every real component of a zeroed buffer, `i` counting
/// components in order; the padding lane of 3-component vectors is skipped (stays zero).
fn for_each_component(
    out: &mut [u8],
    elem: ElemType,
    mut write: impl FnMut(u64, &mut [u8]) -> Result<(), String>,
) -> Result<(), String> {
    let size = elem.scalar.size() as usize;
    let width = usize::from(elem.width);
    let mut index = 0u64;
    for element in out.chunks_exact_mut(elem.size() as usize) {
        for lane in element.chunks_exact_mut(size).take(width) {
            write(index, lane)?;
            index += 1;
        }
    }
    Ok(())
}

/// Encodes `n` as `ty` into `lane` (exactly the type's size), through a reused scratch vector.
fn encode(n: Number, ty: ScalarType, scratch: &mut Vec<u8>, lane: &mut [u8]) -> Result<(), String> {
    scratch.clear();
    n.write_le(ty, scratch).map_err(|e| e.to_string())?;
    if scratch.len() != lane.len() {
        return Err(format!("internal size mismatch encoding {ty}"));
    }
    lane.copy_from_slice(scratch);
    Ok(())
}

fn range_value(start: Number, step: Number, index: u64, ty: ScalarType) -> Number {
    match (start, step) {
        (Number::Int(a), Number::Int(b)) if !ty.is_float() => {
            // Saturate rather than overflow: the range check then reports the value.
            Number::Int(a.saturating_add(b.saturating_mul(i128::from(index))))
        }
        _ => Number::Float(start.as_f64() + step.as_f64() * index as f64),
    }
}

fn random_bounds(
    lo: Option<Number>,
    hi: Option<Number>,
    ty: ScalarType,
) -> Result<(Number, Number), String> {
    match (lo, hi) {
        // `random(1, 0.0, 10.0)` on an integer buffer means the integers 0 to 10.
        (Some(lo), Some(hi)) if !ty.is_float() => Ok((integral(lo), integral(hi))),
        (Some(lo), Some(hi)) => Ok((lo, hi)),
        (None, None) if ty.is_float() => Ok((Number::Float(0.0), Number::Float(1.0))),
        (None, None) => Ok((Number::Int(DEFAULT_RANDOM_INT.0), Number::Int(DEFAULT_RANDOM_INT.1))),
        _ => Err("random needs both LO and HI, or neither".to_string()),
    }
}

fn integral(n: Number) -> Number {
    match n {
        Number::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e38 => {
            Number::Int(f as i128)
        }
        other => other,
    }
}

fn random_value(rng: &mut SplitMix64, lo: Number, hi: Number, ty: ScalarType) -> Number {
    match (lo, hi) {
        (Number::Int(a), Number::Int(b)) if !ty.is_float() && a <= b => {
            Number::Int(rng.next_in_range(a, b))
        }
        _ => Number::Float(random_float(rng, lo.as_f64(), hi.as_f64(), ty)),
    }
}

/// A random value of floating-point type `ty` in `[a, b)`.
#[inline]
fn random_float(rng: &mut SplitMix64, a: f64, b: f64, ty: ScalarType) -> f64 {
    let mut v = a + (b - a) * rng.next_unit_f64();
    // Rounding to the element type may land on HI; step back to keep [LO, HI).
    match ty {
        ScalarType::Float if v as f32 >= b as f32 && a < b => {
            v = f64::from(f32_below(b as f32));
        }
        ScalarType::Double if v >= b && a < b => v = f64_below(b),
        _ => {}
    }
    v
}

/// The largest `f32` below a finite `x`.
fn f32_below(x: f32) -> f32 {
    if x == 0.0 {
        -f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() - 1)
    } else {
        f32::from_bits(x.to_bits() + 1)
    }
}

/// The largest `f64` below a finite `x`.
fn f64_below(x: f64) -> f64 {
    if x == 0.0 {
        -f64::from_bits(1)
    } else if x > 0.0 {
        f64::from_bits(x.to_bits() - 1)
    } else {
        f64::from_bits(x.to_bits() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Init, String> {
        Init::parse(text, Path::new("/base"))
    }

    fn float_elems(bytes: &[u8]) -> Vec<f32> {
        bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(parse("zero"), Ok(Init::Zero));
        assert_eq!(parse(" noinit "), Ok(Init::NoInit));
        assert_eq!(parse("fill(2.5)"), Ok(Init::Fill(Number::Float(2.5))));
        assert_eq!(
            parse("range(3)"),
            Ok(Init::Range { start: Number::Int(3), step: Number::Int(1) })
        );
        assert_eq!(
            parse("range(0, -2)"),
            Ok(Init::Range { start: Number::Int(0), step: Number::Int(-2) })
        );
        assert_eq!(parse("random(7)"), Ok(Init::Random { seed: 7, lo: None, hi: None }));
        assert_eq!(
            parse("random(1, -1.0, 1.0)"),
            Ok(Init::Random {
                seed: 1,
                lo: Some(Number::Float(-1.0)),
                hi: Some(Number::Float(1.0))
            })
        );
        assert_eq!(parse("file(data/in.bin)"), Ok(Init::File(PathBuf::from("/base/data/in.bin"))));
    }

    #[test]
    fn rejects_bad_syntax_with_the_expected_forms() {
        for bad in [
            "",
            "zeros",
            "fill()",
            "fill(1, 2)",
            "random(-1)",
            "random(1.5)",
            "range(a)",
            "random(1, 2)",
            "fill(1",
            "file()",
            "sqrt(2)",
        ] {
            let err = parse(bad).expect_err(bad);
            assert!(!err.is_empty());
        }
        assert!(parse("bogus").unwrap_err().contains("random(SEED, LO, HI)"));
    }

    #[test]
    fn checks_values_against_the_type() {
        let uchar = ElemType::scalar(ScalarType::UChar);
        assert!(Init::Fill(Number::Int(300)).check(uchar, 4).is_err());
        assert!(Init::Fill(Number::Int(255)).check(uchar, 4).is_ok());
        let range = Init::Range { start: Number::Int(250), step: Number::Int(1) };
        assert!(range.check(uchar, 6).is_ok());
        assert!(range.check(uchar, 7).is_err());
        let random = Init::Random { seed: 0, lo: Some(Number::Int(5)), hi: Some(Number::Int(1)) };
        assert!(random.check(uchar, 1).is_err());
        let float = ElemType::scalar(ScalarType::Float);
        let empty =
            Init::Random { seed: 0, lo: Some(Number::Float(1.0)), hi: Some(Number::Float(1.0)) };
        assert!(empty.check(float, 1).is_err());
        assert!(Init::Values(vec![Number::Int(1)]).check(float, 2).is_err());
        let integral_floats =
            Init::Random { seed: 0, lo: Some(Number::Float(0.0)), hi: Some(Number::Float(9.0)) };
        assert!(integral_floats.check(uchar, 4).is_ok());
        let fractional =
            Init::Random { seed: 0, lo: Some(Number::Float(0.5)), hi: Some(Number::Float(9.0)) };
        assert!(fractional.check(uchar, 4).is_err());
    }

    #[test]
    fn generates_ranges_over_vector_components_with_padding() {
        let int3 = ElemType { scalar: ScalarType::Int, width: 3 };
        let bytes = Init::Range { start: Number::Int(10), step: Number::Int(2) }
            .generate(int3, 2, 0)
            .expect("valid range");
        let ints: Vec<i32> =
            bytes.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        assert_eq!(ints, vec![10, 12, 14, 0, 16, 18, 20, 0]);
    }

    #[test]
    fn random_is_deterministic_and_shiftable() {
        let float = ElemType::scalar(ScalarType::Float);
        let init =
            Init::Random { seed: 1, lo: Some(Number::Float(-1.0)), hi: Some(Number::Float(1.0)) };
        let a = init.generate(float, 1000, 0).expect("random");
        assert_eq!(a, init.generate(float, 1000, 0).expect("random"));
        assert_ne!(a, init.generate(float, 1000, 1).expect("random"));
        let values = float_elems(&a);
        assert!(values.iter().all(|v| (-1.0..1.0).contains(v)));
        // Pin the first value: SplitMix64(1) first output, top 53 bits, scaled to [-1, 1).
        let first = (SplitMix64::new(1).next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        assert_eq!(values[0], (-1.0 + 2.0 * first) as f32);
        let ints = Init::Random { seed: 3, lo: None, hi: None }
            .generate(ElemType::scalar(ScalarType::UChar), 500, 0)
            .expect("random");
        assert!(ints.iter().all(|&b| b <= 100));
        assert!(ints.contains(&100) && ints.contains(&0));
    }

    #[test]
    fn random_floats_are_those_of_the_general_encoding() {
        // Float and double buffers skip the per-value `Number`; the bytes must be the same,
        // for integer and float bounds, vectors (with 3-component padding) and a huge range
        // whose values do not fit a float (an error either way).
        let bounds = [
            (Number::Float(-1.0), Number::Float(1.0)),
            (Number::Int(-3), Number::Int(7)),
            (Number::Float(0.5), Number::Float(0.5)),
            (Number::Float(-1e300), Number::Float(1e300)),
        ];
        for (lo, hi) in bounds {
            for elem in [
                ElemType::scalar(ScalarType::Float),
                ElemType { scalar: ScalarType::Float, width: 3 },
                ElemType { scalar: ScalarType::Double, width: 4 },
            ] {
                let init = Init::Random { seed: 9, lo: Some(lo), hi: Some(hi) };
                let fast = init.generate(elem, 300, 2);
                let (lo, hi) = random_bounds(Some(lo), Some(hi), elem.scalar).expect("bounds");
                let mut rng = SplitMix64::new(11);
                let mut scratch = Vec::new();
                let mut general = vec![0u8; 300 * elem.size() as usize];
                let slow = for_each_component(&mut general, elem, |_, lane| {
                    encode(
                        random_value(&mut rng, lo, hi, elem.scalar),
                        elem.scalar,
                        &mut scratch,
                        lane,
                    )
                })
                .map(|()| general);
                assert_eq!(fast, slow, "{lo:?}..{hi:?} as {elem}");
            }
        }
    }

    #[test]
    fn neighbours_below() {
        assert_eq!(f32_below(1.0), 1.0 - f32::EPSILON / 2.0);
        assert_eq!(f32_below(-1.0), -1.0 - f32::EPSILON);
        assert!(f32_below(0.0) < 0.0);
        assert_eq!(f64_below(1.0), 1.0 - f64::EPSILON / 2.0);
    }

    #[test]
    fn file_size_must_match() {
        let dir = std::env::temp_dir().join(format!("clmap-init-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("four.bin");
        std::fs::write(&path, [1u8, 2, 3, 4]).expect("write");
        let uchar = ElemType::scalar(ScalarType::UChar);
        assert_eq!(Init::File(path.clone()).generate(uchar, 4, 0), Ok(vec![1, 2, 3, 4]));
        assert!(Init::File(path.clone()).generate(uchar, 5, 0).is_err());
        assert_eq!(Init::File(path.clone()).check(uchar, 4), Ok(()));
        assert!(Init::File(path.clone()).check(uchar, 2).is_err_and(|e| e.contains("4 bytes")));
        assert!(Init::File(dir.join("missing.bin")).check(uchar, 4).is_err());
        assert!(Init::File(dir.join("missing.bin")).generate(uchar, 4, 0).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
