//! Built-ins that touch memory: `vload`/`vstore` (and their half forms), asynchronous copies,
//! `prefetch`, `wait_group_events` and the atomic functions.

use super::{
    Param, Ret, Signature, Val, ANY_SPACE, ATOMIC_SPACES, FLOATS, INTEGERS, WIDTHS, WRITABLE_SPACES,
};
use crate::ir::{AddressSpace, AtomicOp, Builtin, Rounding, Scalar, VectorSize};

const GLOBAL: &[AddressSpace] = &[AddressSpace::Global];
const LOCAL: &[AddressSpace] = &[AddressSpace::Local];
const SIZE: Param = Param::Value(Val::scalar(Scalar::ULong));

fn element_scalars() -> Vec<Scalar> {
    let mut scalars = INTEGERS.to_vec();
    scalars.extend(FLOATS);
    scalars
}

fn rounding_suffix(name: &str) -> (&str, Option<Rounding>) {
    for (suffix, mode) in [
        ("_rte", Rounding::Rte),
        ("_rtz", Rounding::Rtz),
        ("_rtp", Rounding::Rtp),
        ("_rtn", Rounding::Rtn),
    ] {
        if let Some(rest) = name.strip_suffix(suffix) {
            return (rest, Some(mode));
        }
    }
    (name, None)
}

fn width_of(digits: &str) -> Option<Option<VectorSize>> {
    if digits.is_empty() {
        return Some(None);
    }
    VectorSize::from_width(digits.parse().ok()?).map(Some)
}

pub(super) fn signatures(name: &str) -> Vec<Signature> {
    let mut out = Vec::new();
    let half = Val::scalar(Scalar::Half);
    if let Some(digits) =
        name.strip_prefix("vloada_half").or_else(|| name.strip_prefix("vload_half"))
    {
        let aligned = name.starts_with("vloada");
        let Some(width) = width_of(digits) else { return out };
        if aligned && width.is_none() {
            return out;
        }
        let builtin = Builtin::VectorLoad { width, half: true, aligned };
        let pointer = Param::Pointer { pointee: half, spaces: ANY_SPACE, const_ok: true };
        out.push(Signature::new(
            builtin,
            vec![SIZE, pointer],
            Ret::Value(Val { scalar: Scalar::Float, size: width }),
        ));
        return out;
    }
    if let Some(rest) =
        name.strip_prefix("vstorea_half").or_else(|| name.strip_prefix("vstore_half"))
    {
        let aligned = name.starts_with("vstorea");
        let (digits, rounding) = rounding_suffix(rest);
        let Some(width) = width_of(digits) else { return out };
        if aligned && width.is_none() {
            return out;
        }
        let builtin = Builtin::VectorStore { width, half: true, aligned, rounding };
        for scalar in [Scalar::Float, Scalar::Double] {
            let pointer =
                Param::Pointer { pointee: half, spaces: WRITABLE_SPACES, const_ok: false };
            out.push(Signature::new(
                builtin,
                vec![Param::Value(Val { scalar, size: width }), SIZE, pointer],
                Ret::Void,
            ));
        }
        return out;
    }
    if let Some(digits) = name.strip_prefix("vload") {
        let Some(Some(width)) = width_of(digits) else { return out };
        let builtin = Builtin::VectorLoad { width: Some(width), half: false, aligned: false };
        for scalar in element_scalars() {
            let pointer =
                Param::Pointer { pointee: Val::scalar(scalar), spaces: ANY_SPACE, const_ok: true };
            out.push(Signature::new(
                builtin,
                vec![SIZE, pointer],
                Ret::Value(Val { scalar, size: Some(width) }),
            ));
        }
        return out;
    }
    if let Some(digits) = name.strip_prefix("vstore") {
        let Some(Some(width)) = width_of(digits) else { return out };
        let builtin = Builtin::VectorStore {
            width: Some(width),
            half: false,
            aligned: false,
            rounding: None,
        };
        for scalar in element_scalars() {
            let pointer = Param::Pointer {
                pointee: Val::scalar(scalar),
                spaces: WRITABLE_SPACES,
                const_ok: false,
            };
            out.push(Signature::new(
                builtin,
                vec![Param::Value(Val { scalar, size: Some(width) }), SIZE, pointer],
                Ret::Void,
            ));
        }
        return out;
    }
    match name {
        "async_work_group_copy" | "async_work_group_strided_copy" => {
            let strided = name.ends_with("strided_copy");
            let builtin = Builtin::AsyncCopy { strided };
            for scalar in element_scalars() {
                for size in WIDTHS {
                    let g = Val { scalar, size };
                    for (dst, src) in [(LOCAL, GLOBAL), (GLOBAL, LOCAL)] {
                        let mut params = vec![
                            Param::Pointer { pointee: g, spaces: dst, const_ok: false },
                            Param::Pointer { pointee: g, spaces: src, const_ok: true },
                            SIZE,
                        ];
                        if strided {
                            params.push(SIZE);
                        }
                        params.push(Param::Event);
                        out.push(Signature::new(builtin, params, Ret::Event));
                    }
                }
            }
        }
        "wait_group_events" => {
            out.push(Signature::new(
                Builtin::WaitGroupEvents,
                vec![Param::Value(Val::scalar(Scalar::Int)), Param::EventPointer],
                Ret::Void,
            ));
        }
        "prefetch" => {
            for scalar in element_scalars() {
                for size in WIDTHS {
                    let pointer = Param::Pointer {
                        pointee: Val { scalar, size },
                        spaces: GLOBAL,
                        const_ok: true,
                    };
                    out.push(Signature::new(Builtin::Prefetch, vec![pointer, SIZE], Ret::Void));
                }
            }
        }
        _ => out = atomics(name),
    }
    out
}

fn atomics(name: &str) -> Vec<Signature> {
    let (legacy, op_name) = if let Some(rest) = name.strip_prefix("atomic_") {
        (false, rest)
    } else if let Some(rest) = name.strip_prefix("atom_") {
        (true, rest)
    } else {
        return Vec::new();
    };
    let Some(op) = AtomicOp::from_name(op_name) else {
        return Vec::new();
    };
    let builtin = Builtin::Atomic { op, legacy };
    let mut scalars = vec![Scalar::Int, Scalar::UInt];
    if legacy {
        scalars.extend([Scalar::Long, Scalar::ULong]);
    }
    if op == AtomicOp::Xchg && !legacy {
        scalars.push(Scalar::Float);
    }
    let mut out = Vec::new();
    for scalar in scalars {
        let t = Val::scalar(scalar);
        let pointer = Param::Pointer { pointee: t, spaces: ATOMIC_SPACES, const_ok: false };
        let params = match op {
            AtomicOp::Inc | AtomicOp::Dec => vec![pointer],
            AtomicOp::CmpXchg => vec![pointer, Param::Value(t), Param::Value(t)],
            _ => vec![pointer, Param::Value(t)],
        };
        out.push(Signature::new(builtin, params, Ret::Value(t)));
    }
    out
}
