//! Vector component selection (OpenCL C 1.2 §6.1.7): `.xyzw`, `.s0`–`.sF`, `.lo`, `.hi`,
//! `.even`, `.odd`.

use crate::ir::VectorSize;

/// The component indices a suffix selects from a vector of `size`, or a message (where
/// `{type}` stands for the vector's type name).
///
/// `.lo`/`.hi`/`.even`/`.odd` of a 3-component vector treat it as a 4-component one whose
/// fourth component is undefined, as the specification says. The IR has no fourth component
/// to name, so the undefined lane repeats the component before it (`.hi` of a `float3` is
/// `.zz`): the values agree wherever the specification defines them, and the repetition keeps
/// such a swizzle from being assigned to.
pub(super) fn parse(name: &str, size: VectorSize) -> Result<Vec<u8>, String> {
    let width = size.width();
    let halves = size.storage_width() / 2;
    let components: Vec<u8> = match name {
        "lo" => (0..halves).map(|i| i as u8).collect(),
        "hi" => (halves..2 * halves).map(|i| i as u8).collect(),
        "even" => (0..halves).map(|i| (2 * i) as u8).collect(),
        "odd" => (0..halves).map(|i| (2 * i + 1) as u8).collect(),
        _ => {
            if let Some(digits) = name.strip_prefix('s').or_else(|| name.strip_prefix('S')) {
                numbered(digits, width)?
            } else {
                lettered(name, width)?
            }
        }
    };
    let components: Vec<u8> = components
        .iter()
        .enumerate()
        .map(|(i, &c)| match i.checked_sub(1) {
            Some(previous) if u32::from(c) >= width => {
                components.get(previous).copied().unwrap_or(0)
            }
            _ => c,
        })
        .collect();
    if VectorSize::from_width(components.len() as u32).is_none() && components.len() != 1 {
        return Err(format!("vector component access has invalid length {}", components.len()));
    }
    Ok(components)
}

fn numbered(digits: &str, width: u32) -> Result<Vec<u8>, String> {
    if digits.is_empty() {
        return Err("illegal vector component name 's'".to_string());
    }
    digits
        .chars()
        .map(|c| {
            let index =
                c.to_digit(16).ok_or_else(|| format!("illegal vector component name '{c}'"))?;
            if index >= width {
                return Err(format!("vector component access exceeds type '{{type}}' (component '{c}' is out of range)"));
            }
            Ok(index as u8)
        })
        .collect()
}

fn lettered(letters: &str, width: u32) -> Result<Vec<u8>, String> {
    letters
        .chars()
        .map(|c| {
            let index = match c {
                'x' => 0,
                'y' => 1,
                'z' => 2,
                'w' => 3,
                _ => {
                    return Err(if letters.contains(|d: char| "xyzw".contains(d)) {
                        format!("illegal vector component name '{c}' (xyzw and sN cannot be mixed)")
                    } else {
                        format!("illegal vector component name '{c}'")
                    })
                }
            };
            if width > 4 {
                return Err(
                    "vector component access with xyzw requires at most 4 components; use .sN on '{type}'"
                        .to_string(),
                );
            }
            if index >= width {
                return Err(format!("vector component access exceeds type '{{type}}' (component '{c}' is out of range)"));
            }
            Ok(index as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_numbers_and_halves() {
        assert_eq!(parse("zyx", VectorSize::Four), Ok(vec![2, 1, 0]));
        assert_eq!(parse("sF0", VectorSize::Sixteen), Ok(vec![15, 0]));
        assert_eq!(parse("S3", VectorSize::Four), Ok(vec![3]));
        assert_eq!(parse("hi", VectorSize::Eight), Ok(vec![4, 5, 6, 7]));
        assert_eq!(parse("odd", VectorSize::Four), Ok(vec![1, 3]));
        assert_eq!(parse("hi", VectorSize::Three), Ok(vec![2, 2]));
        assert_eq!(parse("odd", VectorSize::Three), Ok(vec![1, 1]));
        assert_eq!(parse("lo", VectorSize::Three), Ok(vec![0, 1]));
        assert_eq!(parse("lo", VectorSize::Two), Ok(vec![0]));
    }

    #[test]
    fn rejects_bad_components() {
        assert!(parse("w", VectorSize::Three).unwrap_err().contains("exceeds"));
        assert!(parse("s4", VectorSize::Four).unwrap_err().contains("exceeds"));
        assert!(parse("xs1", VectorSize::Four).unwrap_err().contains("mixed"));
        assert!(parse("xyz", VectorSize::Two).is_err());
        assert!(parse("xyzxy", VectorSize::Four).unwrap_err().contains("invalid length"));
    }
}
