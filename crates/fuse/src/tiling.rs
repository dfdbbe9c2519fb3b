//! Producing and consuming relations in isl, and symbolic tiling: a tile of the last stage,
//! pulled back through every consumer's consuming relation and its producer's producing
//! relation in reverse order, gives every stage's tile with its halo.
//!
//! Tiles are relations from the tile's origin `[t0, …]` to the work-items `[p0, …]` it
//! computes, over every origin of the launch, so one pass yields each stage's reach as the
//! set of differences `p - t` (isl's deltas) and the bounding box code generation allocates.

use clmap_isl::{Context, IslError, Map};
use clmap_lang::ir::Module;

use crate::analysis::{Access, KernelAccesses};
use crate::plan::{Plan, Source};
use crate::sym::{Atom, Cond, Sym};

/// How relations name things: `p0…` work-item coordinates, `l<var>` loop counters, kernel
/// parameter names (when kept symbolic).
fn atom_name(params: &[String]) -> impl Fn(Atom) -> String + '_ {
    move |a| match a {
        Atom::GlobalId(d) => format!("p{d}"),
        Atom::Loop(v) => format!("l{v}"),
        Atom::Param(k) => params.get(k as usize).cloned().unwrap_or_else(|| format!("arg{k}")),
    }
}

fn points(dims: usize) -> String {
    (0..dims).map(|d| format!("p{d}")).collect::<Vec<_>>().join(", ")
}

fn domain(global: &[u64]) -> String {
    global
        .iter()
        .enumerate()
        .map(|(d, g)| format!("0 <= p{d} < {g}"))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// One access as an isl piece over `[p…] -> [x]`; loop bounds take the argument values
/// `value` knows, as the index did.
fn piece(
    access: &Access,
    index: &Sym,
    guard: &Cond,
    value: &dyn Fn(Atom) -> Option<i64>,
    name: &dyn Fn(Atom) -> String,
) -> String {
    let mut atoms = Vec::new();
    index.atoms(&mut atoms);
    let loops: Vec<String> = access
        .loops
        .iter()
        .filter(|l| atoms.contains(&Atom::Loop(l.var)))
        .map(|l| {
            let (lo, hi) = (l.lo.substitute(value), l.hi.substitute(value));
            format!("{} <= l{} < {}", lo.isl(name), l.var, hi.isl(name))
        })
        .collect();
    let vars: Vec<String> = access
        .loops
        .iter()
        .filter(|l| atoms.contains(&Atom::Loop(l.var)))
        .map(|l| format!("l{}", l.var))
        .collect();
    let mut body = format!("x = {}", index.isl(name));
    if !matches!(guard, Cond::True) {
        body = format!("{body} and ({})", guard.isl(name));
    }
    for l in &loops {
        body = format!("{body} and {l}");
    }
    if vars.is_empty() {
        format!("({body})")
    } else {
        format!("(exists ({} : {body}))", vars.join(", "))
    }
}

/// A relation of kernel accesses to one buffer parameter, as isl text.
///
/// `values` gives by-value arguments; with `symbolic`, arguments that appear only linearly
/// stay isl parameters (`[n] -> { … }`), the others take their values. `consuming`: work-item
/// → element read; otherwise producing: element written → work-item. `exact_guards: false`
/// drops guards (producing relations for tiling cover every work-item of the range).
#[allow(clippy::too_many_arguments)]
pub fn relation_text(
    module: &Module,
    kernel: &KernelAccesses,
    param: u32,
    values: &dyn Fn(u32) -> Option<i64>,
    global: &[u64],
    consuming: bool,
    symbolic: bool,
    exact_guards: bool,
) -> Option<String> {
    let f = &module.functions[kernel.function];
    let names: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    let accesses: Vec<&Access> = kernel
        .of_param(param)
        .filter(|a| if consuming { a.kind.reads() } else { a.kind.writes() })
        .collect();
    if accesses.is_empty() {
        return None;
    }
    let mut keep_symbolic: Vec<u32> = Vec::new();
    if symbolic {
        let mut in_products = Vec::new();
        for a in &accesses {
            if let Ok(i) = &a.index {
                i.params_in_products(&mut in_products);
            }
            a.guard.params_in_products(&mut in_products);
        }
        for a in &accesses {
            let mut atoms = Vec::new();
            if let Ok(i) = &a.index {
                i.atoms(&mut atoms);
            }
            for atom in atoms {
                if let Atom::Param(p) = atom {
                    if !in_products.contains(&p) && !keep_symbolic.contains(&p) {
                        keep_symbolic.push(p);
                    }
                }
            }
        }
    }
    // Arguments without a value that bound a loop stay parameters too, or isl could not
    // read the relation.
    for a in &accesses {
        for l in &a.loops {
            let mut atoms = Vec::new();
            l.lo.atoms(&mut atoms);
            l.hi.atoms(&mut atoms);
            for atom in atoms {
                if let Atom::Param(p) = atom {
                    if values(p).is_none() && !keep_symbolic.contains(&p) {
                        keep_symbolic.push(p);
                    }
                }
            }
        }
    }
    let value = |a: Atom| match a {
        Atom::Param(p) if !keep_symbolic.contains(&p) => values(p),
        _ => None,
    };
    let name = atom_name(&names);
    let mut pieces = Vec::new();
    for a in &accesses {
        let index = a.index.as_ref().ok()?.substitute(&value);
        let guard = if exact_guards { a.guard.relaxed().substitute(&value) } else { Cond::True };
        pieces.push(piece(a, &index, &guard, &value, &name));
    }
    let dims = global.len();
    let params = if keep_symbolic.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = keep_symbolic.iter().map(|p| name(Atom::Param(*p))).collect();
        format!("[{}] -> ", list.join(", "))
    };
    let body = format!("({}) and {}", pieces.join(" or "), domain(global));
    Some(if consuming {
        format!("{params}{{ [{}] -> [x] : {body} }}", points(dims))
    } else {
        format!("{params}{{ [x] -> [{}] : {body} }}", points(dims))
    })
}

/// Each stage's reach from the tile origin: per dimension, the smallest and largest
/// `p - t` over all tiles (inclusive).
#[derive(Clone, Debug, PartialEq)]
pub struct Boxes {
    pub tile: Vec<u64>,
    pub reach: Vec<Vec<(i64, i64)>>,
}

impl Boxes {
    /// Points of stage `k`'s box.
    pub fn extent(&self, k: usize) -> Vec<u64> {
        self.reach[k].iter().map(|(lo, hi)| (hi - lo + 1) as u64).collect()
    }

    pub fn points(&self, k: usize) -> u64 {
        self.extent(k).iter().product()
    }

    /// Redundant computation: points computed beyond one per stage and tile point, as a
    /// fraction of those.
    pub fn redundancy(&self) -> f64 {
        let core: u64 = self.tile.iter().product();
        let total: u64 = (0..self.reach.len()).map(|k| self.points(k)).sum();
        total as f64 / (core as f64 * self.reach.len() as f64) - 1.0
    }
}

/// The seed's symbolic tiling, done once per plan: a tile of the last stage with symbolic
/// origin `[t0, …]` and length parameters `L0, …` is pulled back through every consumer's
/// consuming relation and its producer's producing relation in reverse order, giving each
/// stage's tile as a relation from the origin to the work-items it must compute, for any
/// length. A concrete tile size then only fixes the lengths ([`SymbolicTiling::boxes`]).
///
/// Origins range over the whole index space, not only multiples of the length (which would
/// not be affine in a symbolic length): the reach found is the one of interior tiles, which
/// is what every tile must be able to hold.
pub struct SymbolicTiling {
    dims: usize,
    tiles: Vec<Map>,
}

/// A stage's tile widened to one piece. Where its reach is that of a translated box — the
/// same lower offsets and an upper offset that grows with the length, probed at two lengths
/// — the piece is that box, exactly (for interior tiles). Otherwise it is isl's simple hull,
/// which may be a little wider where constraints couple dimensions (linearised indices).
fn widen(ctx: &Context, tile: &Map, global: &[u64]) -> Result<Map, IslError> {
    const PROBES: [i64; 2] = [16, 32];
    let dims = global.len();
    let reach_at = |len: i64| -> Result<Vec<(i64, i64)>, IslError> {
        let mut fixed = tile.clone();
        for d in 0..dims {
            fixed = fixed.fix_param(&length(d), len)?;
        }
        let deltas = fixed.deltas()?;
        (0..dims).map(|d| deltas.dim_range(d)).collect()
    };
    if let (Ok(a), Ok(b)) = (reach_at(PROBES[0]), reach_at(PROBES[1])) {
        let translated =
            a.iter().zip(&b).all(|(x, y)| x.0 == y.0 && y.1 - x.1 == PROBES[1] - PROBES[0]);
        if translated {
            let lengths: Vec<String> = (0..dims).map(length).collect();
            let cons: Vec<String> = (0..dims)
                .map(|d| {
                    let (lo, hi) = a[d];
                    let beyond = hi - (PROBES[0] - 1);
                    format!(
                        "0 <= t{d} < {g} and t{d} + {lo} <= p{d} <= t{d} + L{d} - 1 + {beyond} \
                         and 0 <= p{d} < {g} and L{d} > 0",
                        g = global[d]
                    )
                })
                .collect();
            let origins: Vec<String> = (0..dims).map(|d| format!("t{d}")).collect();
            return ctx.map(&format!(
                "[{}] -> {{ [{}] -> [{}] : {} }}",
                lengths.join(", "),
                origins.join(", "),
                points(dims),
                cons.join(" and ")
            ));
        }
    }
    tile.coalesce()?.simple_hull()
}

/// The name of the tile length parameter of dimension `d`.
fn length(d: usize) -> String {
    format!("L{d}")
}

impl SymbolicTiling {
    pub fn new(ctx: &Context, module: &Module, plan: &Plan) -> Result<SymbolicTiling, IslError> {
        let global = &plan.global;
        let dims = global.len();
        let origins: Vec<String> = (0..dims).map(|d| format!("t{d}")).collect();
        let lengths: Vec<String> = (0..dims).map(length).collect();
        let mut cons = Vec::new();
        for d in 0..dims {
            cons.push(format!(
                "0 <= t{d} < {g} and t{d} <= p{d} < t{d} + L{d} and p{d} < {g} and L{d} > 0",
                g = global[d]
            ));
        }
        let core = ctx.map(&format!(
            "[{}] -> {{ [{}] -> [{}] : {} }}",
            lengths.join(", "),
            origins.join(", "),
            points(dims),
            cons.join(" and ")
        ))?;
        let stages = &plan.stages;
        let mut tiles: Vec<Option<Map>> = stages
            .iter()
            .map(|s| s.outputs.iter().any(|o| o.to_global).then(|| core.clone()))
            .collect();
        for k in (0..stages.len()).rev() {
            // Only the box of a tile is used, so each stage's tile is widened to one piece
            // before it is pulled back further: exact pieces would multiply with every stage
            // (a 5-point stencil fused 15 times). A stage that computes a few more points
            // stays correct, because the tiles before it are pulled back from the wider one.
            let Some(tile_k) = tiles[k].as_ref().map(|t| widen(ctx, t, global)).transpose()? else {
                continue;
            };
            tiles[k] = Some(tile_k.clone());
            let stage = &stages[k];
            let mut sources: Vec<(&u32, &Source)> = stage.sources.iter().collect();
            sources.sort_by_key(|(p, _)| **p);
            for (param, source) in sources {
                let Source::Tile { producer, output } = source else { continue };
                let values = |p: u32| stage.values.get(&p).copied();
                let Some(c) = relation_text(
                    module,
                    &stage.accesses,
                    *param,
                    &values,
                    global,
                    true,
                    false,
                    true,
                ) else {
                    continue;
                };
                let producer_stage = &stages[*producer];
                let pvalues = |p: u32| producer_stage.values.get(&p).copied();
                let Some(pr) = relation_text(
                    module,
                    &producer_stage.accesses,
                    producer_stage.outputs[*output].param,
                    &pvalues,
                    global,
                    false,
                    false,
                    false,
                ) else {
                    continue;
                };
                let pulled = tile_k.apply_range(&ctx.map(&c)?)?.apply_range(&ctx.map(&pr)?)?;
                tiles[*producer] = Some(match &tiles[*producer] {
                    Some(t) => t.union(&pulled)?,
                    None => pulled,
                });
            }
        }
        let tiles = tiles.into_iter().map(|t| t.unwrap_or_else(|| core.clone())).collect();
        Ok(SymbolicTiling { dims, tiles })
    }

    /// Stage `k`'s tile as a relation from the origin to work-items, lengths symbolic.
    pub fn stage_tile(&self, k: usize) -> &Map {
        &self.tiles[k]
    }

    /// Every stage's box for tiles of `tile` work-items.
    pub fn boxes(&self, tile: &[u64]) -> Result<Boxes, IslError> {
        let dims = self.dims;
        let mut reach = Vec::new();
        for t in &self.tiles {
            let mut fixed = t.clone();
            for (d, len) in tile.iter().enumerate().take(dims) {
                fixed = fixed.fix_param(&length(d), *len as i64)?;
            }
            let deltas = fixed.deltas()?;
            let mut r = Vec::new();
            for d in 0..dims {
                r.push(deltas.dim_range(d)?);
            }
            reach.push(r);
        }
        Ok(Boxes { tile: tile.to_vec(), reach })
    }
}
