//! Code generation: every stage becomes a helper function, made from its kernel by an IR
//! transform (the work-item's global id becomes a parameter, reads of an earlier stage's
//! result and the write of a result kept on chip address `__local` tiles), and one fused
//! kernel per step count runs the stages over each work-group's tile with its halo,
//! cooperatively, with a barrier between stages.
//!
//! The fused kernel is specialised at build time: tile sizes, halos and index strides are
//! constants, and the loops over a tile step by the work-group size in each dimension, so no
//! division or remainder is left in them.

use std::fmt::Write as _;

use clmap_lang::ir::{
    AddressSpace, Builtin, CommonFunction, Expression, Function, FunctionKind, Handle, Literal,
    Module, Parameter, Scalar, Type, TypeInner, VariableRef, WorkItemFunction,
};
use clmap_lang::proc::BinaryOp;
use clmap_lang::Span;
use clmap_workload::{LaunchArg, Workload};

use crate::plan::{Plan, Source};
use crate::sym::{sym_c, Atom, Cond, Linear, Sym};
use crate::tiling::Boxes;

/// The tile and work-group shape of a fused kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub tile: Vec<u64>,
    pub group: Vec<u64>,
}

/// A fused kernel's text and how to launch it.
#[derive(Clone, Debug)]
pub struct FusedKernel {
    pub name: String,
    /// The storages passed as buffers, in parameter order.
    pub buffers: Vec<String>,
    /// By-value arguments, in parameter order after the buffers: (name, the launch argument).
    pub scalars: Vec<(String, LaunchArg)>,
    pub global: Vec<u64>,
    pub local: Vec<u64>,
    /// Local memory per work-group, in bytes.
    pub local_bytes: u64,
}

/// Adds one helper per stage to `module` (named `<name>_s<k>`) and returns the text of the
/// fused kernel `name` that calls them.
pub fn generate(
    module: &mut Module,
    workload: &Workload,
    plan: &Plan,
    boxes: &Boxes,
    shape: &Shape,
    name: &str,
) -> (String, FusedKernel) {
    let dims = plan.global.len();
    let mut helpers = Vec::new();
    for k in 0..plan.stages.len() {
        let helper = stage_helper(module, plan, boxes, k, &format!("{name}_s{k}"));
        helpers.push(helper);
    }
    // Buffers (storages) in first-use order, with the type of their first parameter.
    let mut buffers: Vec<(String, String)> = Vec::new();
    let mut scalars: Vec<(String, LaunchArg)> = Vec::new();
    for (k, stage) in plan.stages.iter().enumerate() {
        let f = &module.functions[stage.function];
        let launch = &workload.launches[stage.launch];
        for (p, arg) in launch.args.iter().enumerate() {
            match (&stage.storage[p], arg) {
                (Some(s), _) => {
                    if !buffers.iter().any(|(b, _)| b == s) {
                        let ty = param_type_text(module, f.params[p].ty, plan, s);
                        buffers.push((s.clone(), ty));
                    }
                }
                (None, LaunchArg::Scalar { .. }) if literal_int(arg).is_some() => {}
                (None, LaunchArg::Scalar { .. }) => {
                    let n = scalar_name(stage.launch, p);
                    if !scalars.iter().any(|(s, _)| *s == n) {
                        scalars.push((n, arg.clone()));
                    }
                }
                (None, LaunchArg::LoopScalar { name, ty, value }) => {
                    // One parameter per stage, evaluated at the stage's repetition.
                    let own = |n: &str| n == "i" || launch.index.as_deref() == Some(n);
                    let value = match &stage.repetition {
                        Some(r) => value.replace_names(&|n| own(n).then(|| r.clone())),
                        None => value.clone(),
                    };
                    let arg = LaunchArg::LoopScalar { name: name.clone(), ty: *ty, value };
                    scalars.push((loop_scalar_name(stage.launch, p, k), arg));
                }
                _ => {}
            }
        }
    }
    let mut out = String::new();
    let group: Vec<u64> = (0..3).map(|d| shape.group.get(d).copied().unwrap_or(1)).collect();
    let _ = writeln!(
        out,
        "// Fused: {} stages over tiles of {} work-items, computed by work-groups of {}.",
        plan.stages.len(),
        join_x(&shape.tile),
        join_x(&shape.group)
    );
    let _ = write!(
        out,
        "__kernel __attribute__((reqd_work_group_size({}, {}, {}))) void {name}(",
        group[0], group[1], group[2]
    );
    let mut params: Vec<String> = buffers
        .iter()
        .map(|(b, ty)| format!("{ty} {} /* {b} */", buffer_param(&buffers, b)))
        .collect();
    for (n, arg) in &scalars {
        if let LaunchArg::Scalar { ty, .. } | LaunchArg::LoopScalar { ty, .. } = arg {
            params.push(format!("{} {n}", ty));
        }
    }
    let _ = writeln!(out, "{})\n{{", params.join(", "));
    let slots = LocalSlots::assign(plan, boxes);
    let mut local_bytes = 0u64;
    for (j, (elem, n)) in slots.slots.iter().enumerate() {
        local_bytes += n * elem_bytes(elem);
        let _ = writeln!(out, "    __local {elem} fuse_slot{j}[{n}];");
    }
    let tile = |k: usize, o: usize| {
        format!("fuse_slot{}", slots.slot_of[k][o].expect("an output kept in local memory"))
    };
    for d in 0..dims {
        let _ =
            writeln!(out, "    const int fuse_t{d} = (int)get_group_id({d}) * {};", shape.tile[d]);
    }
    for d in 0..dims {
        let _ = writeln!(out, "    const int fuse_l{d} = (int)get_local_id({d});");
    }
    for (k, stage) in plan.stages.iter().enumerate() {
        let ext = boxes.extent(k);
        let reach = &boxes.reach[k];
        let _ = writeln!(out, "    // stage {k}: {}", stage.kernel);
        let indent = loops_open(&mut out, dims, &ext, &shape.group, "");
        for d in 0..dims {
            let _ = writeln!(
                out,
                "{indent}const int fuse_q{d} = fuse_t{d} + {} + fuse_x{d};",
                reach[d].0
            );
        }
        let inside = inside_c(plan, reach, &shape.tile);
        let point: Vec<String> = (0..dims).map(|d| format!("fuse_q{d}")).collect();
        let slot = slot_c(&(0..dims).map(|d| format!("fuse_x{d}")).collect::<Vec<_>>(), &ext);
        let inside_text = if inside.is_empty() { "1".to_string() } else { inside.clone() };
        for (o, output) in stage.outputs.iter().enumerate() {
            let unwritten = match &output.written {
                Some(c) => format!("!({inside_text}) || !({})", cond_c(c, stage)),
                None => "1".into(),
            };
            if output.to_tile && !output.discard {
                // Points the kernel does not write keep the buffer's old value, which later
                // stages may read.
                let own = buffer_param(&buffers, &output.storage);
                let _ = writeln!(out, "{indent}if ({unwritten}) {{");
                let _ = writeln!(
                    out,
                    "{indent}    const {} fuse_w = {};",
                    index_type(output.len),
                    output.index_c(&point)
                );
                let _ = writeln!(
                    out,
                    "{indent}    if (fuse_w >= 0 && fuse_w < {}) {}[{slot}] = {own}[fuse_w];",
                    output.len,
                    tile(k, o)
                );
                let _ = writeln!(out, "{indent}}}");
            } else if let Some(from) = &output.fill_from {
                // The result goes to a scratch buffer that replaces the kernel's own: points
                // it does not write carry the old value over.
                let own = buffer_param(&buffers, &output.storage);
                let from = buffer_param(&buffers, from);
                let _ = writeln!(
                    out,
                    "{indent}if ({inside_text} && ({unwritten})) {{ const {} fuse_w = {}; {own}[fuse_w] = {from}[fuse_w]; }}",
                    index_type(output.len),
                    output.index_c(&point)
                );
            }
        }
        let mut args = Vec::new();
        let launch = &workload.launches[stage.launch];
        for (p, arg) in launch.args.iter().enumerate() {
            let p32 = p as u32;
            match &stage.storage[p] {
                Some(s) => match (stage.output_of(p32), stage.sources.get(&p32)) {
                    (Some((o, output)), _) if output.to_tile => args.push(tile(k, o)),
                    (None, Some(Source::Tile { producer, output })) => {
                        args.push(tile(*producer, *output))
                    }
                    _ => args.push(buffer_param(&buffers, s)),
                },
                None => match arg {
                    LaunchArg::Scalar { .. } => match literal_int(arg) {
                        Some(v) => args.push(v),
                        None => args.push(scalar_name(stage.launch, p)),
                    },
                    LaunchArg::LoopScalar { .. } => args.push(loop_scalar_name(stage.launch, p, k)),
                    _ => args.push("0".into()),
                },
            }
        }
        for d in 0..dims {
            args.push(format!("fuse_q{d}"));
        }
        for d in 0..dims {
            args.push(format!("fuse_t{d}"));
        }
        let call = format!("{}({});", helpers[k], args.join(", "));
        if inside.is_empty() {
            let _ = writeln!(out, "{indent}{call}");
        } else {
            let _ = writeln!(out, "{indent}if ({inside}) {call}");
        }
        loops_close(&mut out, dims, "");
        if k + 1 < plan.stages.len() {
            // Later stages read this one's tile, or reuse the slot of a tile it read.
            let _ = writeln!(out, "    barrier(CLK_LOCAL_MEM_FENCE);");
        }
        let out_going: Vec<usize> = (0..stage.outputs.len())
            .filter(|o| stage.outputs[*o].to_tile && stage.outputs[*o].to_global)
            .collect();
        if !out_going.is_empty() {
            // Results needed after the fused kernel too: their core tiles go out.
            let indent = loops_open(&mut out, dims, &shape.tile, &shape.group, "fuse_c");
            for d in 0..dims {
                let _ = writeln!(out, "{indent}const int fuse_q{d} = fuse_t{d} + fuse_c{d};");
            }
            let core_slot = slot_c(
                &(0..dims).map(|d| format!("(fuse_c{d} - ({}))", reach[d].0)).collect::<Vec<_>>(),
                &ext,
            );
            let core: Vec<(i64, i64)> = shape.tile.iter().map(|t| (0, *t as i64 - 1)).collect();
            let inside = inside_c(plan, &core, &shape.tile);
            for o in out_going {
                let output = &stage.outputs[o];
                let mut conds = Vec::new();
                if !inside.is_empty() {
                    conds.push(inside.clone());
                }
                if let Some(c) = &output.written {
                    conds.push(format!("({})", cond_c(c, stage)));
                }
                let store = format!(
                    "{}[{}] = {}[{core_slot}];",
                    buffer_param(&buffers, &output.storage),
                    output.index_c(&point),
                    tile(k, o)
                );
                if conds.is_empty() {
                    let _ = writeln!(out, "{indent}{store}");
                } else {
                    let _ = writeln!(out, "{indent}if ({}) {store}", conds.join(" && "));
                }
            }
            loops_close(&mut out, dims, "c");
        }
    }
    out.push_str("}\n");
    let tiles: Vec<u64> = (0..dims).map(|d| plan.global[d].div_ceil(shape.tile[d])).collect();
    let kernel = FusedKernel {
        name: name.to_string(),
        buffers: buffers.into_iter().map(|(b, _)| b).collect(),
        scalars,
        global: (0..dims).map(|d| tiles[d] * shape.group[d]).collect(),
        local: shape.group.clone(),
        local_bytes,
    };
    (out, kernel)
}

/// Local memory slots shared by tiles whose lifetimes do not overlap: a temporal chain needs
/// only two, whatever the number of steps, which is what lets deep fusion keep large tiles.
pub struct LocalSlots {
    /// The slot of each stage's outputs (`None` for outputs that go to global memory only).
    pub slot_of: Vec<Vec<Option<usize>>>,
    /// Element type and points of each slot (the largest tile it holds).
    pub slots: Vec<(String, u64)>,
}

impl LocalSlots {
    pub fn assign(plan: &Plan, boxes: &Boxes) -> LocalSlots {
        let stages = &plan.stages;
        // The last stage that reads each tile.
        let mut last_use: Vec<Vec<usize>> =
            stages.iter().enumerate().map(|(k, s)| vec![k; s.outputs.len()]).collect();
        for (k, stage) in stages.iter().enumerate() {
            for source in stage.sources.values() {
                if let Source::Tile { producer, output } = source {
                    let u = &mut last_use[*producer][*output];
                    *u = (*u).max(k);
                }
            }
        }
        let mut slot_of: Vec<Vec<Option<usize>>> =
            stages.iter().map(|s| vec![None; s.outputs.len()]).collect();
        let mut slots: Vec<(String, u64)> = Vec::new();
        // Per slot: the (stage, output) whose tile it holds now.
        let mut holder: Vec<(usize, usize)> = Vec::new();
        for (k, stage) in stages.iter().enumerate() {
            for (o, output) in stage.outputs.iter().enumerate() {
                if !output.to_tile {
                    continue;
                }
                let points = boxes.points(k);
                let free = (0..slots.len())
                    .find(|&j| slots[j].0 == output.elem && last_use[holder[j].0][holder[j].1] < k);
                let j = match free {
                    Some(j) => {
                        slots[j].1 = slots[j].1.max(points);
                        holder[j] = (k, o);
                        j
                    }
                    None => {
                        slots.push((output.elem.clone(), points));
                        holder.push((k, o));
                        slots.len() - 1
                    }
                };
                slot_of[k][o] = Some(j);
            }
        }
        LocalSlots { slot_of, slots }
    }

    /// Bytes of local memory per work-group.
    pub fn bytes(&self) -> u64 {
        self.slots.iter().map(|(elem, n)| n * elem_bytes(elem)).sum()
    }
}

/// Bytes of an element type as OpenCL C spells it.
pub fn elem_bytes(elem: &str) -> u64 {
    match elem {
        "char" | "uchar" | "bool" => 1,
        "short" | "ushort" | "half" => 2,
        "long" | "ulong" | "double" => 8,
        _ if elem.ends_with("16") => 16 * elem_bytes(elem.trim_end_matches("16")),
        _ if elem.ends_with('8') => 8 * elem_bytes(elem.trim_end_matches('8')),
        _ if elem.ends_with('4') || elem.ends_with('3') => {
            4 * elem_bytes(elem.trim_end_matches(['3', '4']))
        }
        _ if elem.ends_with('2') => 2 * elem_bytes(elem.trim_end_matches('2')),
        _ => 4,
    }
}

/// The test that a point of a stage's box lies in the index space, as C over the loop
/// variables `<var><d>`; the parts that hold for every tile (the box never reaches below
/// zero, or past the end, in that dimension) are left out, and an empty text means always.
fn inside_c(plan: &Plan, reach: &[(i64, i64)], tile: &[u64]) -> String {
    let mut parts = Vec::new();
    for (d, (lo, hi)) in reach.iter().enumerate() {
        if *lo < 0 {
            parts.push(format!("fuse_q{d} >= 0"));
        }
        // Tiles start at multiples of the tile size: when it divides the index space, a
        // box that does not reach past its tile never reaches past the end.
        if !plan.global[d].is_multiple_of(tile[d]) || *hi >= tile[d] as i64 {
            parts.push(format!("fuse_q{d} < {}", plan.global[d]));
        }
    }
    parts.join(" && ")
}

/// An integer by-value argument as a literal: such values are known at build time, and as
/// literals the sizes and guards that use them fold into the fused kernel.
fn literal_int(arg: &LaunchArg) -> Option<String> {
    match arg {
        LaunchArg::Scalar { ty, value, .. } if ty.width == 1 && !ty.scalar.is_float() => {
            match value.as_slice() {
                [clmap_workload::Number::Int(v)] => Some(format!("(({}){v})", ty)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The narrowest C type that indexes a buffer of `len` elements.
fn index_type(len: u64) -> &'static str {
    if len < (1 << 31) {
        "int"
    } else {
        "long"
    }
}

fn join_x(v: &[u64]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("x")
}

fn scalar_name(launch: usize, param: usize) -> String {
    format!("fuse_arg{launch}_{param}")
}

/// A value that changes with the repetition, as stage `stage` sees it.
fn loop_scalar_name(launch: usize, param: usize, stage: usize) -> String {
    format!("fuse_arg{launch}_{param}_s{stage}")
}

/// The fused kernel's parameter for a storage (buffer names are labels, not identifiers).
fn buffer_param(buffers: &[(String, String)], storage: &str) -> String {
    let i = buffers.iter().position(|(b, _)| b == storage).expect("storage listed");
    format!("fuse_buf{i}")
}

/// The driver's parameter type for a storage: the kernel's spelling, without `const` when
/// any stage writes the storage.
fn param_type_text(module: &Module, ty: Handle<Type>, plan: &Plan, storage: &str) -> String {
    let written = plan.stages.iter().any(|s| s.outputs.iter().any(|o| o.storage == storage));
    match &module.types[ty] {
        TypeInner::Pointer { pointee, space, .. } => {
            let space = match space {
                AddressSpace::Constant if !written => "__constant",
                _ => "__global",
            };
            let konst = if written { "" } else { "const " };
            format!("{konst}{space} {} *", clmap_lang::print::print_type(module, *pointee))
        }
        _ => clmap_lang::print::print_type(module, ty),
    }
}

/// Opens one loop per dimension over `extent`, stepping by the work-group size; returns the
/// indentation of the body. Loop variables are `<prefix or x><d>`, starting at `l<d>`.
fn loops_open(
    out: &mut String,
    dims: usize,
    extent: &[u64],
    group: &[u64],
    prefix: &str,
) -> String {
    let var = if prefix.is_empty() { "fuse_x" } else { prefix };
    let mut indent = String::from("    ");
    for d in (0..dims).rev() {
        let _ = writeln!(
            out,
            "{indent}for (int {var}{d} = fuse_l{d}; {var}{d} < {}; {var}{d} += {}) {{",
            extent[d], group[d]
        );
        indent.push_str("    ");
    }
    indent
}

fn loops_close(out: &mut String, dims: usize, _prefix: &str) {
    for d in 0..dims {
        let indent = "    ".repeat(dims - d);
        let _ = writeln!(out, "{indent}}}");
    }
}

/// Row-major slot of a point in a box of `extent`.
fn slot_c(coords: &[String], extent: &[u64]) -> String {
    let mut stride = 1u64;
    let mut parts = Vec::new();
    for (d, c) in coords.iter().enumerate() {
        parts.push(if stride == 1 { c.clone() } else { format!("{c} * {stride}") });
        stride *= extent[d];
    }
    parts.join(" + ")
}

/// A write guard as C over the point `q…` (arguments substituted by their values).
fn cond_c(c: &Cond, stage: &crate::plan::StagePlan) -> String {
    let c = c.substitute(&stage.value_of());
    c.c(&|a| match a {
        Atom::GlobalId(d) => format!("fuse_q{d}"),
        Atom::Loop(v) => format!("loop{v}"),
        Atom::Param(p) => format!("arg{p}"),
    })
}

/// Builds the helper of stage `k` from its kernel.
fn stage_helper(module: &mut Module, plan: &Plan, boxes: &Boxes, k: usize, name: &str) -> String {
    let stage = &plan.stages[k];
    let dims = plan.global.len();
    let mut f: Function = module.functions[stage.function].clone();
    f.name = name.to_string();
    f.kind = FunctionKind::Helper;
    let ulong = module.ty(TypeInner::Scalar(Scalar::ULong));
    let int = module.ty(TypeInner::Scalar(Scalar::Int));
    let uint = module.ty(TypeInner::Scalar(Scalar::UInt));
    // The work-item's coordinates (`fuse_p…`) and the tile origin (`fuse_t…`) become
    // parameters of the helper.
    let mut add_params = |prefix: &str, ty| {
        let first = f.params.len() as u32;
        for d in 0..dims {
            f.params.push(Parameter {
                name: format!("{prefix}{d}"),
                ty,
                is_const: false,
                access: None,
                span: Span::UNDEFINED,
            });
        }
        first
    };
    let first_point = add_params("fuse_p", ulong);
    let first_origin = add_params("fuse_t", int);
    // Parameters that become `__local` tiles.
    let mut to_local: Vec<u32> = stage
        .sources
        .iter()
        .filter(|(_, s)| matches!(s, Source::Tile { .. }))
        .map(|(p, _)| *p)
        .collect();
    to_local.extend(stage.outputs.iter().filter(|o| o.to_tile).map(|o| o.param));
    for p in &to_local {
        let old = f.params[*p as usize].ty;
        let TypeInner::Pointer { pointee, is_const, is_volatile, is_restrict, .. } =
            module.types[old].clone()
        else {
            continue;
        };
        let new = module.ty(TypeInner::Pointer {
            pointee,
            space: AddressSpace::Local,
            is_const,
            is_volatile,
            is_restrict,
        });
        f.params[*p as usize].ty = new;
        let handles: Vec<Handle<Expression>> = f.expressions.handles().collect();
        for h in handles {
            let retype = match &f.expressions[h] {
                Expression::Variable(VariableRef::Param(q)) => q == p,
                Expression::Load(inner) => {
                    matches!(f.expressions[*inner], Expression::Variable(VariableRef::Param(q)) if q == *p)
                }
                _ => false,
            };
            if retype {
                f.expression_types[h.index()] = new;
            }
        }
    }
    // Work-item queries.
    let handles: Vec<Handle<Expression>> = f.expressions.handles().collect();
    for h in handles {
        let Expression::Builtin { function: Builtin::WorkItem(w), args } = &f.expressions[h] else {
            continue;
        };
        let dim = args.first().and_then(|a| literal_value(&f, *a)).unwrap_or(0) as usize;
        let span = f.expressions.span(h);
        let replacement = match w {
            WorkItemFunction::GlobalId => {
                let var = f.add_expression(
                    Expression::Variable(VariableRef::Param(first_point + dim as u32)),
                    ulong,
                    span,
                );
                Expression::Load(var)
            }
            WorkItemFunction::GlobalSize => Expression::Literal(Literal::int(
                Scalar::ULong,
                plan.global.get(dim).copied().unwrap_or(1) as i128,
            )),
            WorkItemFunction::WorkDim => {
                Expression::Literal(Literal::int(Scalar::UInt, dims as i128))
            }
            _ => continue,
        };
        f.expressions[h] = replacement;
    }
    let _ = uint;
    let mut emit = Emitter { f: &mut f, int, first_point, first_origin };
    // The writes of results kept in tiles.
    for output in stage.outputs.iter().filter(|o| o.to_tile) {
        let reach = &boxes.reach[k];
        let ext = boxes.extent(k);
        let places: Vec<Handle<Expression>> = stage
            .accesses
            .of_param(output.param)
            .filter(|a| a.kind.writes())
            .map(|a| a.place)
            .collect();
        for place in places {
            let comps: Vec<Handle<Expression>> = (0..dims)
                .map(|d| {
                    let p = emit.point(d);
                    let t = emit.origin(d);
                    let rel = emit.binary(BinaryOp::Sub, p, t);
                    let lo = emit.literal(-reach[d].0);
                    emit.binary(BinaryOp::Add, rel, lo)
                })
                .collect();
            let slot = emit.linearise(comps, &ext);
            emit.set_index(place, slot);
        }
    }
    // Reads of earlier stages' tiles.
    for (p, reads) in &stage.tile_reads {
        let Some(Source::Tile { producer, output }) = stage.sources.get(p) else { continue };
        let prod = &plan.stages[*producer];
        let offset = &prod.outputs[*output].offset;
        let reach = &boxes.reach[*producer];
        let ext = boxes.extent(*producer);
        for read in reads {
            let comps: Vec<Handle<Expression>> = (0..dims)
                .map(|d| {
                    let c = emit.linear(&read.components[d]);
                    let t = emit.origin(d);
                    let rel = emit.binary(BinaryOp::Sub, c, t);
                    let lo = emit.literal(-(reach[d].0 + offset[d]));
                    emit.binary(BinaryOp::Add, rel, lo)
                })
                .collect();
            let slot = emit.linearise(comps, &ext);
            emit.set_index(read.place, slot);
        }
    }
    module.functions.append(f, Span::UNDEFINED);
    name.to_string()
}

fn literal_value(f: &Function, e: Handle<Expression>) -> Option<i128> {
    match &f.expressions[e] {
        Expression::Literal(l) => l.as_i128(),
        Expression::Convert { value, .. } => literal_value(f, *value),
        _ => None,
    }
}

/// Appends `int` expressions to a function.
struct Emitter<'f> {
    f: &'f mut Function,
    int: Handle<Type>,
    first_point: u32,
    first_origin: u32,
}

impl Emitter<'_> {
    fn add(&mut self, e: Expression) -> Handle<Expression> {
        self.f.add_expression(e, self.int, Span::UNDEFINED)
    }

    fn literal(&mut self, v: i64) -> Handle<Expression> {
        self.add(Expression::Literal(Literal::int(Scalar::Int, v as i128)))
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    ) -> Handle<Expression> {
        self.add(Expression::Binary { op, lhs, rhs })
    }

    /// The value of a variable as an `int` (a cast where it is another integer type).
    fn load_int(&mut self, variable: VariableRef, ty: Handle<Type>) -> Handle<Expression> {
        let var = self.f.add_expression(Expression::Variable(variable), ty, Span::UNDEFINED);
        let load = self.f.add_expression(Expression::Load(var), ty, Span::UNDEFINED);
        if ty == self.int {
            load
        } else {
            self.add(Expression::Convert {
                value: load,
                kind: clmap_lang::ir::ConversionKind::Cast,
            })
        }
    }

    fn param_int(&mut self, param: u32) -> Handle<Expression> {
        let ty = self.f.params[param as usize].ty;
        self.load_int(VariableRef::Param(param), ty)
    }

    fn point(&mut self, d: usize) -> Handle<Expression> {
        self.param_int(self.first_point + d as u32)
    }

    fn origin(&mut self, d: usize) -> Handle<Expression> {
        self.param_int(self.first_origin + d as u32)
    }

    fn local_int(&mut self, var: u32) -> Handle<Expression> {
        let handle = self.f.locals.handles().nth(var as usize).expect("loop counter exists");
        let ty = self.f.locals[handle].ty;
        self.load_int(VariableRef::Local(handle), ty)
    }

    fn sym(&mut self, s: &Sym) -> Handle<Expression> {
        match s {
            Sym::Const(c) => self.literal(*c),
            Sym::Atom(Atom::GlobalId(d)) => self.point(*d as usize),
            Sym::Atom(Atom::Loop(v)) => self.local_int(*v),
            Sym::Atom(Atom::Param(_)) => {
                unreachable!("parameters are substituted before code generation")
            }
            Sym::Add(a, b) => {
                let (a, b) = (self.sym(a), self.sym(b));
                self.binary(BinaryOp::Add, a, b)
            }
            Sym::Mul(a, b) => {
                let (a, b) = (self.sym(a), self.sym(b));
                self.binary(BinaryOp::Mul, a, b)
            }
            Sym::Min(a, b) | Sym::Max(a, b) => {
                let which = if matches!(s, Sym::Min(..)) {
                    CommonFunction::Min
                } else {
                    CommonFunction::Max
                };
                let (a, b) = (self.sym(a), self.sym(b));
                self.add(Expression::Builtin { function: Builtin::Common(which), args: vec![a, b] })
            }
        }
    }

    fn linear(&mut self, l: &Linear) -> Handle<Expression> {
        let mut acc = self.literal(l.constant);
        for (term, c) in &l.terms {
            let t = self.sym(term);
            let t = if *c == 1 {
                t
            } else {
                let c = self.literal(*c);
                self.binary(BinaryOp::Mul, t, c)
            };
            acc = self.binary(BinaryOp::Add, acc, t);
        }
        acc
    }

    fn linearise(&mut self, comps: Vec<Handle<Expression>>, extent: &[u64]) -> Handle<Expression> {
        let mut stride = 1u64;
        let mut acc: Option<Handle<Expression>> = None;
        for (d, c) in comps.into_iter().enumerate() {
            let term = if stride == 1 {
                c
            } else {
                let s = self.literal(stride as i64);
                self.binary(BinaryOp::Mul, c, s)
            };
            acc = Some(match acc {
                None => term,
                Some(a) => self.binary(BinaryOp::Add, a, term),
            });
            stride *= extent[d];
        }
        acc.expect("at least one dimension")
    }

    fn set_index(&mut self, place: Handle<Expression>, slot: Handle<Expression>) {
        if let Expression::Index { index, .. } = &mut self.f.expressions[place] {
            *index = slot;
        }
    }
}

/// C text of a value over the point `q…`, for messages.
pub fn describe_sym(s: &Sym) -> String {
    sym_c(s, &|a| match a {
        Atom::GlobalId(d) => format!("q{d}"),
        Atom::Loop(v) => format!("loop{v}"),
        Atom::Param(p) => format!("arg{p}"),
    })
}
