//! `--explain`: for every candidate, the GL, LS and LL indexes, the linear system, its
//! solution and the new global index (seed 000 Table III), or the exact refusal.

use crate::candidate::Decision;
use crate::index_expr::{IdRanges, Sym};
use crate::poly::{default_atom_name, Atom};
use crate::solve::display_system;
use crate::walk::StoreEvent;
use crate::Outcome;
use clmap_lang::frontend::Compiled;
use clmap_lang::ir::Function;
use std::fmt::Write as _;

/// Symbol names for explanations: ids as in the paper (`lx`, `wy`), parameters and loop
/// counters by their names in the kernel.
pub fn atom_name(f: &Function) -> impl Fn(Atom) -> String + '_ {
    move |a| name_in(f, a)
}

fn name_in(f: &Function, a: Atom) -> String {
    match a {
        Atom::Param(i) => {
            f.params.get(i as usize).map(|p| p.name.clone()).unwrap_or_else(|| default_atom_name(a))
        }
        Atom::LoopVar(v) => {
            f.locals.get(v).map(|l| l.name.clone()).unwrap_or_else(|| default_atom_name(a))
        }
        Atom::High(x, k) => format!("({}>>{k})", name_in(f, x.atom())),
        Atom::Low(x, k) => {
            format!("({}&{})", name_in(f, x.atom()), (1u64 << k).saturating_sub(1))
        }
        _ => default_atom_name(a),
    }
}

fn index_of(s: &Sym, ranges: &IdRanges, name: &dyn Fn(Atom) -> String) -> String {
    match s.to_poly_in(ranges) {
        Ok(p) => p.display_with(name),
        Err(e) => format!("({e})"),
    }
}

fn global_index(s: &Sym, ranges: &IdRanges, name: &dyn Fn(Atom) -> String) -> String {
    match s.global_loads().first() {
        Some(Sym::GlobalLoad { name: buffer, index, .. }) => {
            format!("{buffer}[{}]", index_of(index, ranges, name))
        }
        _ => "-".to_string(),
    }
}

/// `, called at file:line:col` for a store made inside a helper function.
fn called_at(store: &StoreEvent, sources: &clmap_lang::SourceMap) -> String {
    let inside = store.statement.start <= store.span.start && store.span.end <= store.statement.end;
    if inside {
        String::new()
    } else {
        format!(", called at {}", sources.describe_presumed(store.statement))
    }
}

/// The explanation as text.
pub fn explain(compiled: &Compiled, outcome: &Outcome) -> String {
    let mut out = String::new();
    let Some(f) = compiled.module.functions.get(outcome.kernel_handle) else { return out };
    let name = atom_name(f);
    let ranges = IdRanges::of(f);
    let sources = &compiled.sources;
    let _ = writeln!(out, "kernel {}: {} local buffer(s)", outcome.kernel, outcome.buffers.len());
    for report in &outcome.buffers {
        let c = &report.candidate;
        match &c.decision {
            Decision::Refused(r) => {
                let _ = writeln!(out, "\nbuffer `{}`: refused", c.name);
                let _ = writeln!(out, "  {}", r.describe(sources));
            }
            Decision::Remove(plan) => {
                let state = if report.selected { "removed" } else { "removable (not selected)" };
                let _ = writeln!(out, "\nbuffer `{}`: {state}", c.name);
                let _ = writeln!(out, "  GL  {}", global_index(&plan.main.value, &ranges, &name));
                let _ = writeln!(
                    out,
                    "  LS  {}[{}]  at {}{}",
                    c.name,
                    index_of(&plan.main.index, &ranges, &name),
                    sources.describe_presumed(plan.main.span),
                    called_at(&plan.main, sources)
                );
                for extra in plan.stores.iter().filter(|s| !s.same_store(&plan.main)) {
                    let _ = writeln!(
                        out,
                        "  LS  {}[{}] = {}  at {}{} (agrees with the main store)",
                        c.name,
                        index_of(&extra.index, &ranges, &name),
                        global_index(&extra.value, &ranges, &name),
                        sources.describe_presumed(extra.span),
                        called_at(extra, sources)
                    );
                }
                for (i, lp) in plan.loads.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "  LL  {}[{}]  at {}",
                        c.name,
                        index_of(&lp.load.index, &ranges, &name),
                        sources.describe_presumed(lp.load.span)
                    );
                    for eq in display_system(&lp.system, &name) {
                        let _ = writeln!(out, "      system    {eq}");
                    }
                    let solved: Vec<String> = lp
                        .solution
                        .values
                        .iter()
                        .map(|(u, p)| format!("{} = {}", name(*u), p.display_with(&name)))
                        .collect();
                    let _ = writeln!(
                        out,
                        "      solution  {}",
                        if solved.is_empty() { "-".into() } else { solved.join(", ") }
                    );
                    let _ = writeln!(
                        out,
                        "      nGL       {}",
                        global_index(&lp.new_value, &ranges, &name)
                    );
                    if let Some(text) = report.replacements.get(i) {
                        let _ = writeln!(out, "      text      {text}");
                    }
                }
                for h in &plan.helpers {
                    let callee = compiled
                        .module
                        .functions
                        .get(h.arg.callee)
                        .map(|g| g.name.as_str())
                        .unwrap_or("?");
                    let _ = writeln!(
                        out,
                        "  LL  in helper `{callee}` (parameter {}): reads the global buffer with the same indexes",
                        h.arg.param + 1
                    );
                }
            }
        }
    }
    if outcome.barriers_removed {
        let _ = writeln!(out, "\nlocal barriers: removed (no local buffer remains)");
    } else if outcome.buffers.iter().any(|b| b.removed()) {
        let _ = writeln!(out, "\nlocal barriers: kept (other local buffers still need them)");
    }
    out
}
