//! Candidate selection and the correspondence for every local load (seed 000 §IV-A–IV-D).
//!
//! A local buffer is a candidate when it is a read-only staging cache: every store writes a
//! function of one global load (GL → LS), every other use is a plain load (LL), and no store
//! follows a load. For each LL the linear system between the main store's index and the
//! load's index is solved, and the stored value with the solution substituted is the new
//! global load (nGL). Further stores (halo loads) must agree with the main one.

use crate::index_expr::{same_value, IdRanges, Sym};
use crate::poly::{Atom, Poly};
use crate::refusal::Refusal;
use crate::solve::{solve_correspondence, Solution, System};
use crate::walk::{Events, HelperArgEvent, LoadEvent, LocalBuffer, StoreEvent};
use clmap_lang::ir::{
    AddressSpace, BinaryOp, Expression, Function, Handle, Module, TypeInner, VariableRef,
};
use std::collections::BTreeMap;

/// The plan for one local load.
#[derive(Clone, Debug)]
pub struct LoadPlan {
    pub load: LoadEvent,
    pub system: System,
    pub solution: Solution,
    /// The stored value with the solution substituted: what the load reads.
    pub new_value: Sym,
}

/// A helper function whose `__local` parameter becomes the global buffer itself.
#[derive(Clone, Debug)]
pub struct HelperPlan {
    pub arg: HelperArgEvent,
    pub global_param: u32,
}

/// How a buffer can be removed.
#[derive(Clone, Debug)]
pub struct Plan {
    pub main: StoreEvent,
    pub stores: Vec<StoreEvent>,
    pub loads: Vec<LoadPlan>,
    pub helpers: Vec<HelperPlan>,
}

#[derive(Clone, Debug)]
pub enum Decision {
    Remove(Box<Plan>),
    Refused(Refusal),
}

/// One `__local` buffer of the kernel and what Grover decided for it.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub buffer: LocalBuffer,
    pub name: String,
    pub decision: Decision,
}

/// The local buffers of a kernel: `__local` variables and `__local` pointer parameters.
pub fn local_buffers(module: &Module, f: &Function) -> Vec<(LocalBuffer, String)> {
    let mut out = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        if let Some(TypeInner::Pointer { space: AddressSpace::Local, .. }) = module.types.get(p.ty)
        {
            out.push((LocalBuffer::Param(i as u32), p.name.clone()));
        }
    }
    for (h, v) in f.locals.iter() {
        if v.space == AddressSpace::Local {
            out.push((LocalBuffer::Var(h), v.name.clone()));
        }
    }
    out
}

/// Decides for one buffer.
pub fn analyse(module: &Module, f: &Function, events: &Events, buffer: LocalBuffer) -> Decision {
    match plan(module, f, events, buffer) {
        Ok(p) => Decision::Remove(Box::new(p)),
        Err(r) => Decision::Refused(r),
    }
}

fn plan(
    module: &Module,
    f: &Function,
    events: &Events,
    buffer: LocalBuffer,
) -> Result<Plan, Refusal> {
    let stores: Vec<StoreEvent> =
        events.stores.iter().filter(|s| s.buffer == buffer).cloned().collect();
    let loads: Vec<LoadEvent> =
        events.loads.iter().filter(|l| l.buffer == buffer).cloned().collect();
    // A store after a load (in program order) reuses the buffer as scratch space.
    // (Tiled loops store before they load in the text; the next iteration's store is not
    // "after" in this sense.)
    if let Some(first_load) = loads.iter().map(|l| l.ctx.order).min() {
        if let Some(late) = stores.iter().find(|s| s.ctx.order > first_load) {
            return Err(Refusal::new(
                "the buffer is written after it is read (it is reused as scratch memory, not a read-only cache)",
                late.span,
            ));
        }
    }
    if let Some((_, reason, span)) =
        events.other.iter().find(|(b, _, _)| *b == buffer || *b == LocalBuffer::Param(u32::MAX))
    {
        return Err(Refusal::new(format!("the kernel {reason}"), *span));
    }
    let helper_args: Vec<HelperArgEvent> =
        events.helper_args.iter().filter(|h| h.buffer == buffer).cloned().collect();
    let Some(first) = stores.first() else {
        return Err(Refusal::new("nothing is stored into it, so it caches nothing", f.span));
    };
    if loads.is_empty() && helper_args.is_empty() {
        return Err(Refusal::new("it is never read", first.span));
    }
    for s in &stores {
        if let Some(reason) = s.value.opaque_reason() {
            let what = if reason.contains("local memory") {
                "stores a value computed from local memory (a reduction, scan or exchange between work-items)".to_string()
            } else {
                format!("stores a value Grover cannot follow back to global memory: {reason}")
            };
            return Err(Refusal::new(what, s.span));
        }
        match s.value.global_loads().len() {
            1 => {}
            0 => {
                return Err(Refusal::new(
                    "stores a computed value, not data loaded from global memory",
                    s.span,
                ))
            }
            _ => {
                return Err(Refusal::new(
                    "stores a value combined from several global loads",
                    s.span,
                ))
            }
        }
    }
    let main = stores
        .iter()
        .min_by_key(|s| (s.ctx.guards.len(), s.ctx.order))
        .cloned()
        .unwrap_or_else(|| first.clone());
    let ranges = IdRanges::of(f);
    let main_index = main
        .index
        .to_poly_in(&ranges)
        .map_err(|e| Refusal::new(format!("the store index: {e}"), main.span))?;

    let mut load_plans = Vec::new();
    for load in &loads {
        let unknowns =
            unknowns_between(&main, &load.ctx.loops.iter().map(|l| l.id).collect::<Vec<_>>());
        let ll = load
            .index
            .to_poly_in(&ranges)
            .map_err(|e| Refusal::new(format!("the load index: {e}"), load.span))?;
        let extra = guard_equations(&main);
        let name = |a: Atom| crate::poly::default_atom_name(a);
        let (system, solution) = solve_correspondence(&main_index, &ll, &unknowns, &extra, &name)
            .map_err(|e| Refusal::new(e.to_string(), load.span))?;
        let needed: Vec<Atom> =
            unknowns.iter().copied().filter(|u| main.value.mentions(&|a| a == *u)).collect();
        if let Some(open) = needed.iter().find(|u| !solution.values.contains_key(u)) {
            return Err(Refusal::new(
                format!(
                    "the element a work-item loads was stored by a work-item the system does not determine uniquely ({} is free)",
                    crate::poly::default_atom_name(*open)
                ),
                load.span,
            ));
        }
        for p in solution.values.values() {
            if p.terms().any(|(_, c)| !c.is_integer()) {
                return Err(Refusal::new("the solution has fractional coefficients", load.span));
            }
        }
        // An id solved as itself (`ly = ly`) means the loading work-item stored that
        // dimension: the original text already says so.
        let map: BTreeMap<Atom, Sym> = solution
            .values
            .iter()
            .filter(|(u, _)| needed.contains(&whole_atom(**u)))
            .filter(|(u, p)| **p != Poly::atom(**u))
            .map(|(u, p)| (*u, Sym::Solved(p.clone())))
            .collect();
        let new_value = main.value.substitute(&map);
        load_plans.push(LoadPlan { load: load.clone(), system, solution, new_value });
    }

    for other in stores.iter().filter(|s| !s.same_store(&main)) {
        check_agreement(&main, &main_index, other, &ranges)?;
    }

    let mut helpers = Vec::new();
    for arg in helper_args {
        helpers.push(helper_plan(module, f, &main, &main_index, arg)?);
    }
    Ok(Plan { main, stores, loads: load_plans, helpers })
}

/// The unknown a solved part stands for (`tid` for `tid >> 4`).
fn whole_atom(a: Atom) -> Atom {
    match a {
        Atom::High(x, _) | Atom::Low(x, _) => x.atom(),
        other => other,
    }
}

/// The storing work-item's local ids and the counters of loops around the store that do not
/// also enclose `other_loops` (those stay the same between the store and the load).
fn unknowns_between(store: &StoreEvent, other_loops: &[u32]) -> Vec<Atom> {
    let mut unknowns = vec![Atom::LocalId(0), Atom::LocalId(1), Atom::LocalId(2)];
    let shared = store.ctx.loops.iter().zip(other_loops).take_while(|(a, b)| a.id == **b).count();
    for l in store.ctx.loops.iter().skip(shared) {
        unknowns.extend(l.induction.iter().map(|v| Atom::LoopVar(*v)));
    }
    unknowns
}

/// `lid == c` conjuncts of the guards around a store fix that unknown.
fn guard_equations(store: &StoreEvent) -> Vec<(Atom, Poly)> {
    let mut out = Vec::new();
    for guard in store.ctx.guards.iter().flatten() {
        collect_equalities(guard, &mut out, 0);
    }
    out
}

fn strip(s: &Sym) -> &Sym {
    match s {
        Sym::Convert { value, .. } => strip(value),
        Sym::Var { def, .. } => strip(def),
        other => other,
    }
}

fn collect_equalities(cond: &Sym, out: &mut Vec<(Atom, Poly)>, depth: usize) {
    if depth > 32 {
        return;
    }
    match strip(cond) {
        Sym::Binary { op: BinaryOp::LogicalAnd, lhs, rhs, .. } => {
            collect_equalities(lhs, out, depth + 1);
            collect_equalities(rhs, out, depth + 1);
        }
        Sym::Binary { op: BinaryOp::Eq, lhs, rhs, .. } => {
            for (a, b) in [(lhs, rhs), (rhs, lhs)] {
                if let (Sym::Atom(atom @ Atom::LocalId(_), _), Ok(value)) = (strip(a), b.to_poly())
                {
                    if !value.mentions(|x| matches!(x, Atom::LocalId(_) | Atom::LoopVar(_))) {
                        out.push((*atom, value));
                        return;
                    }
                }
            }
        }
        _ => {}
    }
}

/// Seen from a second store: its work-item and loop counters are other symbols.
fn shadow(store: &StoreEvent, main: &StoreEvent) -> BTreeMap<Atom, Sym> {
    let ty = |s: &Sym| s.ty().unwrap_or(Handle::from_index(0));
    let t = ty(&store.index);
    let mut map: BTreeMap<Atom, Sym> =
        (0..3u8).map(|d| (Atom::LocalId(d), Sym::Atom(Atom::ShadowLocalId(d), t))).collect();
    let main_loops: Vec<u32> = main.ctx.loops.iter().map(|l| l.id).collect();
    let shared = store.ctx.loops.iter().zip(&main_loops).take_while(|(a, b)| a.id == **b).count();
    for l in store.ctx.loops.iter().skip(shared) {
        for v in &l.induction {
            map.insert(Atom::LoopVar(*v), Sym::Atom(Atom::ShadowLoopVar(*v), t));
        }
    }
    for (atom, value) in guard_equations(store) {
        if let Atom::LocalId(d) = atom {
            map.insert(Atom::LocalId(d), Sym::Solved(value));
        }
    }
    map
}

/// A second store (a halo load) must put into every element the value the main store's
/// correspondence gives for it.
fn check_agreement(
    main: &StoreEvent,
    main_index: &Poly,
    other: &StoreEvent,
    ranges: &IdRanges,
) -> Result<(), Refusal> {
    let map = shadow(other, main);
    let other_index = other.index.substitute(&map);
    let other_value = other.value.substitute(&map);
    let disagree = |why: String| {
        Refusal::new(
            format!("this store and the one at the main staging store disagree: {why}"),
            other.span,
        )
    };
    let ll = other_index.to_poly_in(ranges).map_err(|e| disagree(e.to_string()))?;
    let other_loops: Vec<u32> = other.ctx.loops.iter().map(|l| l.id).collect();
    let unknowns = unknowns_between(main, &other_loops);
    let name = |a: Atom| crate::poly::default_atom_name(a);
    let (_, solution) =
        solve_correspondence(main_index, &ll, &unknowns, &guard_equations(main), &name)
            .map_err(|e| disagree(e.to_string()))?;
    let map: BTreeMap<Atom, Sym> =
        solution.values.iter().map(|(u, p)| (*u, Sym::Solved(p.clone()))).collect();
    let predicted = main.value.substitute(&map);
    if same_value(&predicted, &other_value) {
        Ok(())
    } else {
        Err(disagree("they store different global elements into the same local element".into()))
    }
}

/// A local pointer passed to a helper: the helper may only read through it, and the store
/// must copy global memory element for element (`lm[i] = g[i]`), so the helper can read
/// the global buffer with the same indexes.
fn helper_plan(
    module: &Module,
    kernel: &Function,
    main: &StoreEvent,
    main_index: &Poly,
    arg: HelperArgEvent,
) -> Result<HelperPlan, Refusal> {
    let Sym::GlobalLoad { param, index, .. } = &main.value else {
        return Err(Refusal::new(
            "the buffer is passed to a helper function, but its store is not a plain copy of a global buffer",
            arg.arg_span,
        ));
    };
    let same = index.to_poly().ok().as_ref() == Some(main_index);
    if !same || !main.ctx.guards.is_empty() {
        return Err(Refusal::new(
            "the buffer is passed to a helper function, but the store does not copy global memory element for element",
            arg.arg_span,
        ));
    }
    let Some(callee) = module.functions.get(arg.callee) else {
        return Err(Refusal::new("the helper function is missing", arg.arg_span));
    };
    if let Err(why) = helper_only_reads(callee, arg.param as u32) {
        return Err(Refusal::new(format!("the helper `{}` {why}", callee.name), arg.arg_span));
    }
    let calls = module
        .functions
        .iter()
        .flat_map(|(_, g)| g.expressions.iter().map(|(_, e)| e))
        .filter(|e| matches!(e, Expression::Call { function, .. } if *function == arg.callee))
        .count();
    if calls != 1 {
        return Err(Refusal::new(
            format!("the helper `{}` is called from more than one place", callee.name),
            arg.arg_span,
        ));
    }
    let _ = kernel;
    Ok(HelperPlan { arg, global_param: *param })
}

/// The helper uses its parameter only as the base of element reads.
fn helper_only_reads(f: &Function, param: u32) -> Result<(), String> {
    for (h, e) in f.expressions.iter() {
        match e {
            Expression::Variable(VariableRef::Param(p)) if *p == param => {
                // Its parent must be a Load whose parent is the base of an Index that is read.
                let loaded = f.expressions.iter().find_map(|(lh, le)| match le {
                    Expression::Load(x) if *x == h => Some(lh),
                    _ => None,
                });
                let Some(loaded) = loaded else {
                    return Err("assigns or takes the address of the parameter".into());
                };
                let indexed = f.expressions.iter().find_map(|(ih, ie)| match ie {
                    Expression::Index { base, .. } if *base == loaded => Some(ih),
                    _ => None,
                });
                let Some(indexed) = indexed else {
                    return Err("uses the parameter other than to read elements".into());
                };
                let read = f
                    .expressions
                    .iter()
                    .any(|(_, re)| matches!(re, Expression::Load(x) if *x == indexed));
                if !read {
                    return Err("writes through the parameter".into());
                }
            }
            _ => {}
        }
    }
    Ok(())
}
