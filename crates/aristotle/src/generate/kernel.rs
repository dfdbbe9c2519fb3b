//! Emits a microbenchmark kernel as IR through [`clmap_lang::ir::builder`].
//!
//! Every variant computes the same thing: work-item `(gx, gy)` sums the elements its MAP
//! reads, in a fixed order, and writes the sum to `out[gy·N + gx]`. The local variants first
//! stage the work-group's footprint in `__local` memory (FCTH: the core the base indices fall
//! in, then the halo), synchronise, and read the tile instead of global memory.

use clmap_lang::ir::builder::{FunctionBuilder, ModuleBuilder};
use clmap_lang::ir::{
    AddressSpace, BinaryOp, Expression, Handle, LocalVariable, Scalar, WorkItemFunction,
};

use crate::generate::geometry::{self, Form, Shear, StripTile, TileLayout};
use crate::generate::{BenchSpec, GenerateError, Variant};
use crate::map::{IMapKind, Map};

/// A linear integer form over kernel variables: `Σ coefficient·variable + constant`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lin {
    terms: Vec<(Handle<LocalVariable>, i64)>,
    constant: i64,
}

impl Lin {
    pub fn var(v: Handle<LocalVariable>) -> Lin {
        Lin { terms: vec![(v, 1)], constant: 0 }
    }

    pub fn plus(mut self, other: &Lin) -> Lin {
        for &(v, c) in &other.terms {
            match self.terms.iter_mut().find(|(w, _)| *w == v) {
                Some(term) => term.1 += c,
                None => self.terms.push((v, c)),
            }
        }
        self.terms.retain(|&(_, c)| c != 0);
        self.constant += other.constant;
        self
    }

    pub fn minus(self, other: &Lin) -> Lin {
        self.plus(&other.scaled(-1))
    }

    pub fn offset(mut self, c: i64) -> Lin {
        self.constant += c;
        self
    }

    pub fn scaled(&self, k: i64) -> Lin {
        let terms = self.terms.iter().map(|&(v, c)| (v, c * k)).filter(|&(_, c)| c != 0).collect();
        Lin { terms, constant: self.constant * k }
    }

    /// `p·ty + q·tx` for an eMAP form over the given variables.
    pub fn of_form(form: Form, ty: Handle<LocalVariable>, tx: Handle<LocalVariable>) -> Lin {
        let mut lin = Lin::default();
        if form[0] != 0 {
            lin = lin.plus(&Lin::var(ty));
        }
        if form[1] != 0 {
            lin = lin.plus(&Lin::var(tx));
        }
        lin
    }
}

/// The operations of the kernels on top of the IR builder.
pub(crate) trait KernelOps {
    fn emit(&mut self, lin: &Lin) -> Handle<Expression>;
    fn flat(&mut self, row: &Lin, width: usize, col: &Lin) -> Handle<Expression>;
    fn declare_lin(&mut self, name: &str, lin: &Lin) -> Handle<LocalVariable>;
    fn declare_id(&mut self, name: &str, f: WorkItemFunction, dim: u32) -> Handle<LocalVariable>;
    fn load_buffer(&mut self, param: u32, index: Handle<Expression>) -> Handle<Expression>;
    fn tile_place(
        &mut self,
        tile: Handle<LocalVariable>,
        index: Handle<Expression>,
    ) -> Handle<Expression>;
    fn accumulate(&mut self, acc: Handle<LocalVariable>, value: Handle<Expression>);
    fn count<R>(
        &mut self,
        name: &str,
        start: i64,
        end: i64,
        step: i64,
        body: impl FnOnce(&mut Self, Handle<LocalVariable>) -> R,
    ) -> R;
    fn stride_loop<R>(
        &mut self,
        name: &str,
        start: &Lin,
        end: usize,
        step: usize,
        body: impl FnOnce(&mut Self, Handle<LocalVariable>) -> R,
    ) -> R;
}

impl KernelOps for FunctionBuilder<'_> {
    /// Builds a linear form, terms first (`gy + gx + 3`, `u - 2`).
    fn emit(&mut self, lin: &Lin) -> Handle<Expression> {
        let mut acc: Option<Handle<Expression>> = None;
        for &(v, c) in &lin.terms {
            let value = self.var_value(v);
            let magnitude = c.unsigned_abs() as i64;
            let term = if magnitude == 1 {
                value
            } else {
                let k = self.int(magnitude);
                self.mul(value, k)
            };
            acc = Some(match (acc, c < 0) {
                (None, false) => term,
                (None, true) => {
                    let zero = self.int(0);
                    self.binary(BinaryOp::Sub, zero, term)
                }
                (Some(a), false) => self.add(a, term),
                (Some(a), true) => self.binary(BinaryOp::Sub, a, term),
            });
        }
        match acc {
            None => self.int(lin.constant),
            Some(a) if lin.constant == 0 => a,
            Some(a) => {
                let k = self.int(lin.constant.abs());
                let op = if lin.constant > 0 { BinaryOp::Add } else { BinaryOp::Sub };
                self.binary(op, a, k)
            }
        }
    }

    /// `row * width + col`.
    fn flat(&mut self, row: &Lin, width: usize, col: &Lin) -> Handle<Expression> {
        let r = self.emit(row);
        let w = self.int(width as i64);
        let rw = self.mul(r, w);
        if col.terms.is_empty() && col.constant == 0 {
            return rw;
        }
        let c = self.emit(col);
        self.add(rw, c)
    }

    fn declare_lin(&mut self, name: &str, lin: &Lin) -> Handle<LocalVariable> {
        let value = self.emit(lin);
        self.declare(name, value)
    }

    fn declare_id(&mut self, name: &str, f: WorkItemFunction, dim: u32) -> Handle<LocalVariable> {
        let value = self.work_item_int(f, dim);
        self.declare(name, value)
    }

    fn load_buffer(&mut self, param: u32, index: Handle<Expression>) -> Handle<Expression> {
        let base = self.param_value(param);
        let place = self.index(base, index);
        self.load(place)
    }

    fn tile_place(
        &mut self,
        tile: Handle<LocalVariable>,
        index: Handle<Expression>,
    ) -> Handle<Expression> {
        let array = self.var(tile);
        self.index(array, index)
    }

    fn accumulate(&mut self, acc: Handle<LocalVariable>, value: Handle<Expression>) {
        let place = self.var(acc);
        self.compound_assign(BinaryOp::Add, place, value);
    }

    /// `for (int name = start; name < end; name += step)`.
    fn count<R>(
        &mut self,
        name: &str,
        start: i64,
        end: i64,
        step: i64,
        body: impl FnOnce(&mut Self, Handle<LocalVariable>) -> R,
    ) -> R {
        let start = self.int(start);
        let step = self.int(step);
        self.for_range(name, start, |b| b.int(end), step, body)
    }

    /// `for (int name = start; name < end; name += step)` with a start that depends on the
    /// work-item (the strided loops that spread a tile over the group).
    fn stride_loop<R>(
        &mut self,
        name: &str,
        start: &Lin,
        end: usize,
        step: usize,
        body: impl FnOnce(&mut Self, Handle<LocalVariable>) -> R,
    ) -> R {
        let start = self.emit(start);
        let step = self.int(step as i64);
        self.for_range(name, start, |b| b.int(end as i64), step, body)
    }
}

/// Variables every kernel declares first.
struct Ids {
    gx: Handle<LocalVariable>,
    gy: Handle<LocalVariable>,
    lx: Handle<LocalVariable>,
    ly: Handle<LocalVariable>,
}

/// The kernel's name: `map407_max`.
pub fn kernel_name(spec: &BenchSpec) -> String {
    format!("map{}_{}", spec.map.id().0, spec.variant)
}

/// The size of the problem every part of a kernel works on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Problem {
    pub dataset: usize,
    pub work_group: [usize; 2],
}

/// One data structure of a kernel: its MAP, how it uses local memory, its parameter index and
/// the suffix that keeps its variables apart from the other structures' (`row1`, `tile2`).
#[derive(Clone, Debug)]
pub(crate) struct Part {
    pub map: Map,
    pub variant: Variant,
    pub param: u32,
    pub suffix: String,
}

impl Part {
    fn name(&self, base: &str) -> String {
        format!("{base}{}", self.suffix)
    }

    pub(crate) fn local_cells(&self, problem: Problem) -> usize {
        match (self.variant, self.map.imap) {
            (Variant::NoLocal, _) => 0,
            (_, IMapKind::Row | IMapKind::Column) => {
                geometry::strip_tile(&self.map, self.variant, problem.work_group).cells()
            }
            _ => geometry::block_tile(&self.map, self.variant, problem.work_group).cells(),
        }
    }
}

/// Builds the module of one microbenchmark, validated.
pub fn build(spec: &BenchSpec) -> Result<clmap_lang::ir::Module, GenerateError> {
    let part = Part { map: spec.map, variant: spec.variant, param: 0, suffix: String::new() };
    let problem = Problem { dataset: spec.dataset, work_group: spec.work_group };
    build_parts(&kernel_name(spec), &[part], problem)
}

/// Builds a kernel reading one input per part (`in`, or `in1`, `in2`, …) and writing the sum
/// of every part's accumulator to `out[gy·N + gx]`.
pub(crate) fn build_parts(
    name: &str,
    parts: &[Part],
    problem: Problem,
) -> Result<clmap_lang::ir::Module, GenerateError> {
    let mut module = ModuleBuilder::new();
    let float = module.scalar(Scalar::Float);
    let input = module.pointer(float, AddressSpace::Global, true);
    let output = module.pointer(float, AddressSpace::Global, false);
    let mut b = module.kernel(name);
    let [wx, wy] = problem.work_group;
    let any_local = parts.iter().any(|p| p.variant.uses_local_memory());
    if any_local {
        // The tiles are sized for this work-group: say so, so a launch with another one fails
        // loudly instead of reading outside a tile.
        b.required_work_group_size([wx as u32, wy as u32, 1]);
    }
    for part in parts {
        let param_name = if parts.len() == 1 { "in".to_string() } else { part.name("in") };
        let index = b.param(&param_name, input);
        if index != part.param {
            return Err(GenerateError::InvalidKernel(format!(
                "part {} expects parameter {} but got {index}",
                part.suffix, part.param
            )));
        }
    }
    let output_param = b.param("out", output);
    let mut tiles = Vec::new();
    for part in parts {
        let cells = part.local_cells(problem);
        tiles.push(if cells > 0 {
            Some(b.declare_local_array(&part.name("tile"), float, cells_u32(cells)?))
        } else {
            None
        });
    }
    let gx = b.declare_id("gx", WorkItemFunction::GlobalId, 0);
    let gy = b.declare_id("gy", WorkItemFunction::GlobalId, 1);
    let (lx, ly) = if any_local {
        (
            b.declare_id("lx", WorkItemFunction::LocalId, 0),
            b.declare_id("ly", WorkItemFunction::LocalId, 1),
        )
    } else {
        (gx, gy)
    };
    // Without local memory `lx`/`ly` are never read; the aliases keep one `Ids` type.
    let ids = Ids { gx, gy, lx, ly };
    if let [part] = parts {
        if part.variant == Variant::NoLocal && part.map.imap == IMapKind::Single {
            // One element per work-item and nothing else: a copy from the element the eMAP
            // names, so that the database measures the pattern, not the kernel around it.
            let value = single_read(&mut b, part, problem, &ids);
            store_output(&mut b, output_param, problem, &ids, value);
            b.finish();
            return finish_module(module);
        }
    }
    let mut accumulators = Vec::new();
    for (part, tile) in parts.iter().zip(&tiles) {
        let zero = b.float(0.0);
        let acc = b.declare(&part.name("acc"), zero);
        accumulators.push(acc);
        match (*tile, part.map.imap) {
            (None, _) => no_local_body(&mut b, part, problem, &ids, acc),
            (Some(tile), IMapKind::Row | IMapKind::Column) => {
                let strip = geometry::strip_tile(&part.map, part.variant, problem.work_group);
                strip_body(&mut b, part, problem, &ids, acc, tile, strip)
            }
            (Some(tile), _) => {
                let layout = geometry::block_tile(&part.map, part.variant, problem.work_group);
                block_body(&mut b, part, problem, &ids, acc, tile, layout)
            }
        }
    }
    let mut total: Option<Handle<Expression>> = None;
    for acc in accumulators {
        let value = b.var_value(acc);
        total = Some(match total {
            None => value,
            Some(t) => b.add(t, value),
        });
    }
    let total = total.unwrap_or_else(|| b.float(0.0));
    store_output(&mut b, output_param, problem, &ids, total);
    b.finish();
    finish_module(module)
}

/// Builds the interleaved kernel of two sweep MAPs (Row or Column, no halo): one loop over
/// `k = 0 … N−1` reads both structures' `k`-th element and multiplies them into one
/// accumulator, `acc += in1[…k…] * in2[…k…]`, as a matrix multiply reads its row and column
/// operands, then `out[gy·N + gx] = acc`. Neither input is staged; the staged versions are
/// this kernel with an input staged by the stager (the rewrite `clmap tune` times).
pub(crate) fn build_interleaved(
    name: &str,
    maps: [Map; 2],
    problem: Problem,
) -> Result<clmap_lang::ir::Module, GenerateError> {
    for map in &maps {
        if !matches!(map.imap, IMapKind::Row | IMapKind::Column) || map.radius != 0 {
            return Err(GenerateError::Unsupported {
                map: map.name(),
                variant: Variant::NoLocal,
                reason: "only Row and Column MAPs sweep a loop an interleaved pair can share"
                    .to_string(),
            });
        }
    }
    let mut module = ModuleBuilder::new();
    let float = module.scalar(Scalar::Float);
    let input = module.pointer(float, AddressSpace::Global, true);
    let output = module.pointer(float, AddressSpace::Global, false);
    let mut b = module.kernel(name);
    for param in ["in1", "in2"] {
        b.param(param, input);
    }
    let output_param = b.param("out", output);
    let gx = b.declare_id("gx", WorkItemFunction::GlobalId, 0);
    let gy = b.declare_id("gy", WorkItemFunction::GlobalId, 1);
    let ids = Ids { gx, gy, lx: gx, ly: gy };
    let n = problem.dataset;
    // Each structure's fixed coordinate: the row a Row MAP walks along, the column a Column
    // MAP walks down.
    let fixed: Vec<(Handle<LocalVariable>, usize, bool)> = maps
        .iter()
        .enumerate()
        .map(|(k, map)| {
            let (_, width) = geometry::input_shape(map, n);
            let is_row = map.imap == IMapKind::Row;
            let form =
                if is_row { map.emap.row_coefficients() } else { map.emap.col_coefficients() };
            let name = if is_row { format!("row{}", k + 1) } else { format!("col{}", k + 1) };
            let line = b.declare_lin(&name, &Lin::of_form(form, ids.gy, ids.gx));
            (line, width, is_row)
        })
        .collect();
    let zero = b.float(0.0);
    let acc = b.declare("acc", zero);
    b.count("k", 0, n as i64, 1, |b, k| {
        let mut values = Vec::new();
        for (param, &(line, width, is_row)) in fixed.iter().enumerate() {
            let index = if is_row {
                b.flat(&Lin::var(line), width, &Lin::var(k))
            } else {
                b.flat(&Lin::var(k), width, &Lin::var(line))
            };
            values.push(b.load_buffer(param as u32, index));
        }
        let product = b.mul(values[0], values[1]);
        b.accumulate(acc, product);
    });
    let total = b.var_value(acc);
    store_output(&mut b, output_param, problem, &ids, total);
    b.finish();
    finish_module(module)
}

/// `out[gy·N + gx] = value`.
fn store_output(
    b: &mut FunctionBuilder<'_>,
    output_param: u32,
    problem: Problem,
    ids: &Ids,
    value: Handle<Expression>,
) {
    let out_index = b.flat(&Lin::var(ids.gy), problem.dataset, &Lin::var(ids.gx));
    let out = b.param_value(output_param);
    let place = b.index(out, out_index);
    b.assign(place, value);
}

fn finish_module(module: ModuleBuilder) -> Result<clmap_lang::ir::Module, GenerateError> {
    let module = module.finish().map_err(|e| GenerateError::InvalidKernel(e.to_string()))?;
    // Every generated kernel is verified before it is printed, like any transform's output.
    clmap_lang::valid::verify_after_transform(&module, crate::generate::PASS)?;
    Ok(module)
}

/// The one element a Single MAP's work-item reads, straight from `in`: `in[row·W + col]` with
/// the eMAP's base written in the global ids.
fn single_read(
    b: &mut FunctionBuilder<'_>,
    part: &Part,
    problem: Problem,
    ids: &Ids,
) -> Handle<Expression> {
    let map = &part.map;
    let (_, width) = geometry::input_shape(map, problem.dataset);
    let row = Lin::of_form(map.emap.row_coefficients(), ids.gy, ids.gx);
    let col = Lin::of_form(map.emap.col_coefficients(), ids.gy, ids.gx);
    let index = b.flat(&row, width, &col);
    b.load_buffer(part.param, index)
}

fn cells_u32(cells: usize) -> Result<u32, GenerateError> {
    u32::try_from(cells).map_err(|_| GenerateError::InvalidKernel(format!("{cells} local cells")))
}

/// Every read goes to `in`: `acc += in[(row + dr + R) * W + (col + dc + R)]`.
fn no_local_body(
    b: &mut FunctionBuilder<'_>,
    part: &Part,
    problem: Problem,
    ids: &Ids,
    acc: Handle<LocalVariable>,
) {
    let map = &part.map;
    let n = problem.dataset;
    let (_, width) = geometry::input_shape(map, n);
    let radius = i64::from(map.radius);
    // Row MAPs sweep the columns and Column MAPs the rows: the swept coordinate has no base
    // (the unused alias is never read).
    let row = Lin::of_form(map.emap.row_coefficients(), ids.gy, ids.gx);
    let col = Lin::of_form(map.emap.col_coefficients(), ids.gy, ids.gx);
    let row = match map.imap {
        IMapKind::Column => ids.gy,
        _ => b.declare_lin(&part.name("row"), &row),
    };
    let col = match map.imap {
        IMapKind::Row => ids.gx,
        _ => b.declare_lin(&part.name("col"), &col),
    };
    match map.imap {
        IMapKind::Row => b.count("k", 0, n as i64, 1, |b, k| {
            let index = b.flat(&Lin::var(row), width, &Lin::var(k));
            let v = b.load_buffer(part.param, index);
            b.accumulate(acc, v);
        }),
        IMapKind::Column => b.count("k", 0, n as i64, 1, |b, k| {
            let index = b.flat(&Lin::var(k), width, &Lin::var(col));
            let v = b.load_buffer(part.param, index);
            b.accumulate(acc, v);
        }),
        IMapKind::Block => {
            let side = 2 * radius + 1;
            b.count("dr", 0, side, 1, |b, dr| {
                b.count("dc", 0, side, 1, |b, dc| {
                    let r = Lin::var(row).plus(&Lin::var(dr));
                    let c = Lin::var(col).plus(&Lin::var(dc));
                    let index = b.flat(&r, width, &c);
                    let v = b.load_buffer(part.param, index);
                    b.accumulate(acc, v);
                })
            })
        }
        IMapKind::Single | IMapKind::Neighbor => {
            for (dr, dc) in geometry::block_offsets(map) {
                let r = Lin::var(row).offset(dr + radius);
                let c = Lin::var(col).offset(dc + radius);
                let index = b.flat(&r, width, &c);
                let v = b.load_buffer(part.param, index);
                b.accumulate(acc, v);
            }
        }
    }
}

/// The base index of the group's first work-item along `form`: `form · (gy − ly, gx − lx)`.
fn group_origin(form: Form, ids: &Ids) -> Lin {
    let y = Lin::var(ids.gy).minus(&Lin::var(ids.ly));
    let x = Lin::var(ids.gx).minus(&Lin::var(ids.lx));
    let mut lin = Lin::default();
    if form[0] != 0 {
        lin = lin.plus(&y);
    }
    if form[1] != 0 {
        lin = lin.plus(&x);
    }
    lin
}

/// `(r, c)` relative to the group origin → tile coordinates `(u, v)` of the layout.
fn to_tile(shear: Shear, r: &Lin, c: &Lin) -> (Lin, Lin) {
    match shear {
        Shear::None => (r.clone(), c.clone()),
        Shear::Columns => (r.clone(), c.clone().minus(r)),
        Shear::Rows => (r.clone().minus(c), c.clone()),
    }
}

/// Tile coordinates `(u, v)` → `(r, c)` relative to the group origin.
fn from_tile(shear: Shear, u: &Lin, v: &Lin) -> (Lin, Lin) {
    match shear {
        Shear::None => (u.clone(), v.clone()),
        Shear::Columns => (u.clone(), u.clone().plus(v)),
        Shear::Rows => (u.clone().plus(v), v.clone()),
    }
}

/// Single, Block and Neighbor MAPs with a local tile: stage, synchronise, read the tile.
fn block_body(
    b: &mut FunctionBuilder<'_>,
    part: &Part,
    problem: Problem,
    ids: &Ids,
    acc: Handle<LocalVariable>,
    tile: Handle<LocalVariable>,
    layout: TileLayout,
) {
    let map = &part.map;
    let [wx, wy] = problem.work_group;
    let (height, width) = geometry::input_shape(map, problem.dataset);
    let radius = i64::from(map.radius);
    let (hr, hc) = (layout.halo_rows as i64, layout.halo_cols as i64);
    // The group's origin: the base index of its work-item (0, 0), in the padded input.
    let row0 = group_origin(map.emap.row_coefficients(), ids).offset(radius);
    let col0 = group_origin(map.emap.col_coefficients(), ids).offset(radius);
    let row0 = b.declare_lin(&part.name("row0"), &row0);
    let col0 = b.declare_lin(&part.name("col0"), &col0);
    let tile_index =
        |u: &Lin, v: &Lin| -> (Lin, Lin) { (u.clone().offset(hr), v.clone().offset(hc)) };

    // FCTH, first pass: the core, one work-item per cell, the group sweeping it in steps of
    // its own shape.
    b.stride_loop("u", &Lin::var(ids.ly), layout.core_rows, wy, |b, u| {
        b.stride_loop("v", &Lin::var(ids.lx), layout.core_cols, wx, |b, v| {
            let (r, c) = from_tile(layout.shear, &Lin::var(u), &Lin::var(v));
            let (tu, tv) = tile_index(&Lin::var(u), &Lin::var(v));
            let local = b.flat(&tu, layout.pitch, &tv);
            let place = b.tile_place(tile, local);
            let global = b.flat(&Lin::var(row0).plus(&r), width, &Lin::var(col0).plus(&c));
            let value = b.load_buffer(part.param, global);
            b.assign(place, value);
        })
    });
    // Second pass: the halo, the group walking the tile's cells linearly and loading those
    // outside the core that lie inside the input.
    if hr > 0 || hc > 0 {
        let linear = Lin::var(ids.ly).scaled(wx as i64).plus(&Lin::var(ids.lx));
        let cols = layout.cols();
        b.stride_loop("t", &linear, layout.rows() * cols, wx * wy, |b, t| {
            let t_value = b.var_value(t);
            let k = b.int(cols as i64);
            let quotient = b.binary(BinaryOp::Div, t_value, k);
            let h = b.int(hr);
            let u_value = b.binary(BinaryOp::Sub, quotient, h);
            let u = b.declare("u", u_value);
            let t_value = b.var_value(t);
            let k = b.int(cols as i64);
            let remainder = b.binary(BinaryOp::Rem, t_value, k);
            let h = b.int(hc);
            let v_value = b.binary(BinaryOp::Sub, remainder, h);
            let v = b.declare("v", v_value);
            let (r, c) = from_tile(layout.shear, &Lin::var(u), &Lin::var(v));
            let r = b.declare_lin("r", &Lin::var(row0).plus(&r));
            let c = b.declare_lin("c", &Lin::var(col0).plus(&c));
            let outside_core = {
                let checks = [
                    (u, BinaryOp::Lt, 0),
                    (u, BinaryOp::Ge, layout.core_rows as i64),
                    (v, BinaryOp::Lt, 0),
                    (v, BinaryOp::Ge, layout.core_cols as i64),
                ];
                any_of(b, &checks)
            };
            let inside_input = {
                let checks = [
                    (r, BinaryOp::Ge, 0),
                    (r, BinaryOp::Lt, height as i64),
                    (c, BinaryOp::Ge, 0),
                    (c, BinaryOp::Lt, width as i64),
                ];
                all_of(b, &checks)
            };
            let condition = b.logical(BinaryOp::LogicalAnd, outside_core, inside_input);
            b.if_then(condition, |b| {
                let local = b.flat(&Lin::var(u).offset(hr), layout.pitch, &Lin::var(v).offset(hc));
                let place = b.tile_place(tile, local);
                let global = b.flat(&Lin::var(r), width, &Lin::var(c));
                let value = b.load_buffer(part.param, global);
                b.assign(place, value);
            });
        });
    }
    b.barrier_local();

    // Use: the same offsets in the same order as without local memory. The work-item's base
    // relative to the group is written out in `ly`/`lx` so that the shear cancels (`v = dc -
    // dr` for a diagonal) instead of surviving as `lc - lr`.
    let lr = Lin::of_form(map.emap.row_coefficients(), ids.ly, ids.lx);
    let lc = Lin::of_form(map.emap.col_coefficients(), ids.ly, ids.lx);
    let read = |b: &mut FunctionBuilder<'_>, r: Lin, c: Lin| {
        let (u, v) = to_tile(layout.shear, &r, &c);
        let (u, v) = tile_index(&u, &v);
        let local = b.flat(&u, layout.pitch, &v);
        let place = b.tile_place(tile, local);
        let value = b.load(place);
        b.accumulate(acc, value);
    };
    if map.imap == IMapKind::Block {
        let side = 2 * radius + 1;
        b.count("dr", 0, side, 1, |b, dr| {
            b.count("dc", 0, side, 1, |b, dc| {
                let r = lr.clone().plus(&Lin::var(dr)).offset(-radius);
                let c = lc.clone().plus(&Lin::var(dc)).offset(-radius);
                read(b, r, c);
            })
        })
    } else {
        for (dr, dc) in geometry::block_offsets(map) {
            read(b, lr.clone().offset(dr), lc.clone().offset(dc));
        }
    }
}

/// `a op k || …`
fn any_of(
    b: &mut FunctionBuilder<'_>,
    checks: &[(Handle<LocalVariable>, BinaryOp, i64)],
) -> Handle<Expression> {
    combine(b, checks, BinaryOp::LogicalOr)
}

/// `a op k && …`
fn all_of(
    b: &mut FunctionBuilder<'_>,
    checks: &[(Handle<LocalVariable>, BinaryOp, i64)],
) -> Handle<Expression> {
    combine(b, checks, BinaryOp::LogicalAnd)
}

fn combine(
    b: &mut FunctionBuilder<'_>,
    checks: &[(Handle<LocalVariable>, BinaryOp, i64)],
    join: BinaryOp,
) -> Handle<Expression> {
    let mut result: Option<Handle<Expression>> = None;
    for &(v, op, k) in checks {
        let value = b.var_value(v);
        let bound = b.int(k);
        let check = b.binary(op, value, bound);
        result = Some(match result {
            None => check,
            Some(r) => b.logical(join, r, check),
        });
    }
    result.unwrap_or_else(|| b.int(1))
}

/// Row and Column MAPs with local memory: the group walks its rows (columns) in chunks,
/// staging `lines × chunk` cells per step.
fn strip_body(
    b: &mut FunctionBuilder<'_>,
    part: &Part,
    problem: Problem,
    ids: &Ids,
    acc: Handle<LocalVariable>,
    tile: Handle<LocalVariable>,
    strip: StripTile,
) {
    let map = &part.map;
    let n = problem.dataset;
    let [wx, wy] = problem.work_group;
    let (_, width) = geometry::input_shape(map, n);
    let is_row = map.imap == IMapKind::Row;
    let form = if is_row { map.emap.row_coefficients() } else { map.emap.col_coefficients() };
    let line0 = b.declare_lin(&part.name("line0"), &group_origin(form, ids));
    let line = b.declare_lin(&part.name("line"), &Lin::of_form(form, ids.ly, ids.lx));
    let chunk = strip.chunk;
    b.count("k0", 0, n as i64, chunk as i64, |b, k0| {
        // Stage: lines × chunk cells; for rows the group's x runs along the chunk so global
        // reads stay contiguous, for columns the group's y does.
        let (outer_start, outer_step, inner_start, inner_step) = if is_row {
            (Lin::var(ids.ly), wy, Lin::var(ids.lx), wx)
        } else {
            (Lin::var(ids.lx), wx, Lin::var(ids.ly), wy)
        };
        b.stride_loop("s", &outer_start, strip.lines, outer_step, |b, s| {
            b.stride_loop("e", &inner_start, chunk, inner_step, |b, e| {
                let local = b.flat(&Lin::var(s), strip.pitch, &Lin::var(e));
                let place = b.tile_place(tile, local);
                let along = Lin::var(k0).plus(&Lin::var(e));
                let across = Lin::var(line0).plus(&Lin::var(s));
                let global = if is_row {
                    b.flat(&across, width, &along)
                } else {
                    b.flat(&along, width, &across)
                };
                let value = b.load_buffer(part.param, global);
                b.assign(place, value);
            })
        });
        b.barrier_local();
        b.count("k", 0, chunk as i64, 1, |b, k| {
            let local = b.flat(&Lin::var(line), strip.pitch, &Lin::var(k));
            let place = b.tile_place(tile, local);
            let value = b.load(place);
            b.accumulate(acc, value);
        });
        b.barrier_local();
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::PASS;
    use crate::map::valid_maps;
    use clmap_lang::ir::Statement;
    use clmap_lang::valid::{verify_after_transform_with, TransformError, VerifyOptions};
    use clmap_lang::Span;

    #[test]
    fn every_generated_kernel_passes_verification() {
        for map in valid_maps() {
            for variant in Variant::ALL {
                let spec = BenchSpec { map, variant, dataset: 32, work_group: [16, 16] };
                let module = build(&spec).unwrap_or_else(|e| panic!("{map} {variant}: {e}"));
                let verified = verify_after_transform_with(&module, PASS, VerifyOptions::ON);
                assert_eq!(verified, Ok(()), "{map} {variant}");
            }
        }
    }

    #[test]
    fn a_corrupted_generated_kernel_is_rejected_as_the_generator_s() {
        let map = valid_maps()[0];
        let spec = BenchSpec { map, variant: Variant::LocalMax, dataset: 32, work_group: [16, 16] };
        let mut module = build(&spec).expect("builds");
        let (kernel, _) = module.kernels().next().expect("one kernel");
        let body = &mut module.functions.get_mut(kernel).body;
        body.push(Statement::Expression(Handle::from_index(1 << 20)), Span::UNDEFINED);
        let error = verify_after_transform_with(&module, PASS, VerifyOptions::ON)
            .expect_err("a dangling handle must not pass");
        assert_eq!(error.pass(), "aristotle.generate");
        assert!(matches!(error, TransformError::InvalidIr { .. }), "{error}");
        assert!(error.first_error().and_then(|e| e.invalid_handle()).is_some(), "{error}");
        assert!(GenerateError::from(error).to_string().starts_with("internal error: transform"));
    }
}
