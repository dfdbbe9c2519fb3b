//! `print`: evaluating an expression over a work-item's variables, and showing values as
//! Oclgrind does.

use std::fmt::Write as _;

use clmap_lang::ir::{Handle, Scalar, Type, TypeInner, UniqueArena};

use super::{GroupView, Session, Stop};
use crate::program::DebugPlace;

impl Session {
    pub(super) fn print(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
        if words.len() < 2 {
            self.say("Variable name(s) required.");
            return;
        }
        let scope = self.scope_statement(stop);
        for &expression in &words[1..] {
            let value = match scope {
                Some((lane, index)) => evaluate(stop, lane, index, expression),
                None => Err("not found".to_string()),
            };
            let value = value.unwrap_or_else(|why| why);
            self.capitals |= value.starts_with("(raw) ");
            self.say(&format!("{expression} = {value}"));
        }
    }
}

/// The bytes of a variable's value in `lane`, as memory holds them.
pub(super) fn variable_bytes(
    view: &GroupView<'_>,
    place: DebugPlace,
    types: &UniqueArena<Type>,
    ty: Handle<Type>,
    lane: usize,
) -> Option<Vec<u8>> {
    match place {
        DebugPlace::Reg { slot, scalar, width } => {
            let size = scalar.size() as usize;
            let mut bytes = Vec::with_capacity(size * width as usize);
            for c in 0..width {
                let bits = crate::value::to_memory(scalar, view.reg(slot + c, lane)?);
                bytes.extend_from_slice(&bits.to_le_bytes()[..size]);
            }
            let whole = clmap_lang::ir::size_of(types, ty) as usize;
            bytes.resize(bytes.len().max(whole), 0);
            Some(bytes)
        }
        DebugPlace::Mem { addr } => {
            view.read(view.reg(addr, lane)?, u64::from(clmap_lang::ir::size_of(types, ty)))
        }
    }
}

/// A value being evaluated: bytes already read, or where they are.
enum Value {
    Bytes(Vec<u8>),
    At(u64),
}

/// Evaluates a `print` expression (a variable in scope at statement `index`, then `.member`,
/// `->member` and `[index]`, after any number of leading `*`) for `lane`.
fn evaluate(
    stop: &Stop<'_, '_>,
    lane: usize,
    index: u32,
    expression: &str,
) -> Result<String, String> {
    let debug = stop.debug;
    let view = stop.view;
    let types = &debug.types;
    let size_of = |ty: Handle<Type>| u64::from(clmap_lang::ir::size_of(types, ty));
    let derefs = expression.len() - expression.trim_start_matches('*').len();
    let expression = &expression[derefs..];
    let split = expression.find(['.', '-', '[']).unwrap_or(expression.len());
    let (name, mut rest) = expression.split_at(split);
    let statement = debug.statements.get(index as usize).ok_or("not found")?;
    let variable = statement
        .visible
        .iter()
        .rev()
        .filter_map(|&v| debug.variables.get(v as usize))
        .find(|v| v.name == name)
        .ok_or("not found")?;
    let mut ty = variable.ty;
    let mut value = match variable.place {
        DebugPlace::Reg { .. } => {
            Value::Bytes(variable_bytes(view, variable.place, types, ty, lane).ok_or("not found")?)
        }
        DebugPlace::Mem { addr } => Value::At(view.reg(addr, lane).ok_or("not found")?),
    };
    let bytes_of = |value: &Value, ty: Handle<Type>| -> Result<Vec<u8>, String> {
        match value {
            Value::Bytes(b) => Ok(b.clone()),
            Value::At(a) => {
                view.read(*a, size_of(ty)).ok_or_else(|| "invalid memory address".into())
            }
        }
    };
    // `*value` moved `subscript` elements on.
    let dereference = |value: &Value,
                       ty: Handle<Type>,
                       subscript: u64|
     -> Result<(Value, Handle<Type>), String> {
        let Some(TypeInner::Pointer { pointee, .. }) = types.get(ty) else {
            return Err("not a pointer type".to_string());
        };
        let bytes = bytes_of(value, ty)?;
        let mut word = [0u8; 8];
        let n = bytes.len().min(8);
        word[..n].copy_from_slice(&bytes[..n]);
        let size = size_of(*pointee);
        let address = u64::from_le_bytes(word).wrapping_add(subscript.wrapping_mul(size));
        if view.read(address, size.max(1)).is_none() {
            return Err("invalid memory address".to_string());
        }
        Ok((Value::At(address), *pointee))
    };
    while !rest.is_empty() {
        let member;
        if let Some(after) = rest.strip_prefix('.') {
            rest = after;
            member = true;
        } else if let Some(after) = rest.strip_prefix("->") {
            rest = after;
            (value, ty) = dereference(&value, ty, 0)?;
            member = true;
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or("missing ']'")?;
            let subscript: u64 =
                after[..end].trim().parse().map_err(|_| "invalid subscript index".to_string())?;
            rest = &after[end + 1..];
            member = false;
            if let Some(TypeInner::Array { element, len }) = types.get(ty) {
                if subscript >= u64::from(*len) {
                    return Err("invalid subscript index".to_string());
                }
                let offset = subscript * size_of(*element);
                value = match value {
                    Value::At(a) => Value::At(a + offset),
                    Value::Bytes(b) => Value::Bytes(
                        b.get(offset as usize..(offset + size_of(*element)) as usize)
                            .ok_or("invalid memory address")?
                            .to_vec(),
                    ),
                };
                ty = *element;
            } else {
                (value, ty) = dereference(&value, ty, subscript)?;
            }
        } else {
            return Err("invalid print expression".to_string());
        }
        if member {
            let split = rest.find(['.', '-', '[']).unwrap_or(rest.len());
            let (name, after) = rest.split_at(split);
            rest = after;
            let Some(TypeInner::Struct { members, .. }) = types.get(ty) else {
                return Err("not a composite type".to_string());
            };
            let found = members
                .iter()
                .find(|m| m.name == name)
                .ok_or_else(|| format!("no member named '{name}' found"))?;
            let offset = u64::from(found.offset);
            value = match value {
                Value::At(a) => Value::At(a + offset),
                Value::Bytes(b) => Value::Bytes(
                    b.get(offset as usize..(offset + size_of(found.ty)) as usize)
                        .ok_or("invalid memory address")?
                        .to_vec(),
                ),
            };
            ty = found.ty;
        }
    }
    for _ in 0..derefs {
        (value, ty) = dereference(&value, ty, 0)?;
    }
    let bytes = bytes_of(&value, ty)?;
    format_value(types, ty, &bytes).ok_or_else(|| "invalid memory address".to_string())
}

/// A value of type `ty` from its bytes, as Oclgrind prints it: numbers in decimal (floats as
/// C++ streams do, six significant digits), vectors as `(a,b)`, arrays as `{a,b}`, pointers
/// as `0x…` and structs as `(raw) 0x…`, their bytes in memory order.
pub(super) fn format_value(
    types: &UniqueArena<Type>,
    ty: Handle<Type>,
    bytes: &[u8],
) -> Option<String> {
    let size = clmap_lang::ir::size_of(types, ty) as usize;
    let bytes = bytes.get(..size)?;
    Some(match types.get(ty)? {
        TypeInner::Scalar(scalar) => format_scalar(*scalar, bytes)?,
        TypeInner::Vector { scalar, size: width } => {
            let step = scalar.size() as usize;
            let parts: Option<Vec<String>> = (0..width.width() as usize)
                .map(|i| format_scalar(*scalar, bytes.get(i * step..(i + 1) * step)?))
                .collect();
            format!("({})", parts?.join(","))
        }
        TypeInner::Pointer { .. } | TypeInner::Event => {
            format!("0x{:x}", u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?))
        }
        TypeInner::Array { element, len } => {
            let step = clmap_lang::ir::size_of(types, *element) as usize;
            let parts: Option<Vec<String>> = (0..*len as usize)
                .map(|i| format_value(types, *element, bytes.get(i * step..(i + 1) * step)?))
                .collect();
            format!("{{{}}}", parts?.join(","))
        }
        _ => {
            let mut text = String::from("(raw) 0x");
            for byte in bytes {
                let _ = write!(text, "{byte:02X}");
            }
            text
        }
    })
}

fn format_scalar(scalar: Scalar, bytes: &[u8]) -> Option<String> {
    let mut word = [0u8; 8];
    word.get_mut(..bytes.len())?.copy_from_slice(bytes);
    let raw = u64::from_le_bytes(word);
    Some(match scalar {
        Scalar::Float => crate::printf::format_general(f64::from(f32::from_bits(raw as u32))),
        Scalar::Double => crate::printf::format_general(f64::from_bits(raw)),
        Scalar::Half => {
            crate::printf::format_general(f64::from(crate::value::f16_bits_to_f32(raw as u16)))
        }
        Scalar::Bool => u8::from(raw != 0).to_string(),
        s if s.is_signed() => {
            let shift = 64 - 8 * s.size();
            (((raw << shift) as i64) >> shift).to_string()
        }
        _ => raw.to_string(),
    })
}
