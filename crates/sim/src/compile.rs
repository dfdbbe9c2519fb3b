//! IR → [`Program`]: inlining, register allocation and operation selection.

use std::collections::{HashMap, HashSet};

use clmap_lang::ir::{
    AddressSpace, BinaryOp, Block, ConstValue, ConversionKind, Expression, Function, FunctionKind,
    Handle, Literal, LocalVariable, LoopForm, Module, Scalar, Statement, Type, TypeInner, UnaryOp,
    VariableRef,
};
use clmap_lang::Span;

use crate::error::SimError;
use crate::program::*;
use crate::value::{normalise, Half, Lane};

/// Deepest expression nesting compiled (deeper trees are refused, not overflowed).
const MAX_EXPRESSION_DEPTH: u32 = 400;
/// Deepest chain of inlined calls.
const MAX_CALL_DEPTH: u32 = 64;
/// Most register slots of one kernel after inlining.
const MAX_SLOTS: u32 = 1 << 20;

/// Compiles kernel `kernel` of `module`.
pub fn compile_kernel(module: &Module, kernel: &str) -> Result<Program, SimError> {
    compile(module, kernel, false)
}

/// Compiles kernel `kernel` of `module` for the interactive debugger ([`crate::debugger`]):
/// the program marks the start of every source statement and knows its variables. It runs
/// as [`compile_kernel`]'s does, with no loop-invariant operation moved out of its loop, so
/// that every value is where the source puts it.
pub fn compile_kernel_for_debugging(module: &Module, kernel: &str) -> Result<Program, SimError> {
    compile(module, kernel, true)
}

fn compile(module: &Module, kernel: &str, debug: bool) -> Result<Program, SimError> {
    let handle = module
        .kernel_by_name(kernel)
        .ok_or_else(|| SimError::UnknownKernel { name: kernel.to_string() })?;
    let function = module
        .functions
        .get(handle)
        .ok_or_else(|| SimError::UnknownKernel { name: kernel.to_string() })?;
    let mut c = Compiler {
        module,
        slots: 0,
        constants: Vec::new(),
        private_size: 0,
        local_size: 0,
        local_objects: Vec::new(),
        sites: Vec::new(),
        call_depth: 0,
        expr_depth: 0,
        globals: HashMap::new(),
        global_images: Vec::new(),
        undefined_slots: Vec::new(),
        pending_index_checks: Vec::new(),
        debug: debug.then(|| DebugBuilder {
            statements: Vec::new(),
            variables: Vec::new(),
            functions: vec![DebugFunction {
                name: function.name.clone(),
                span: function.span,
                params: Vec::new(),
                caller: None,
            }],
            visible: Vec::new(),
            function: 0,
        }),
    };
    let mut nodes = Vec::new();
    let mut ctx = FnCtx::new(function);
    let mut params = Vec::new();
    for (i, p) in function.params.iter().enumerate() {
        let loc = c.declare_var(&mut ctx, &mut nodes, VariableRef::Param(i as u32), p.ty, None)?;
        let pointer_space = match c.inner(p.ty)? {
            TypeInner::Pointer { space, .. } => Some(*space),
            _ => None,
        };
        let opaque = match c.inner(p.ty)? {
            TypeInner::Image(kind) => Some(OpaqueParam::Image(*kind)),
            TypeInner::Sampler => Some(OpaqueParam::Sampler),
            _ => None,
        };
        let size = u64::from(module.size_of(p.ty));
        let slot = match loc {
            VarLoc::Reg { slot, scalar, width } => ParamSlot::Reg { slot, scalar, width },
            VarLoc::Mem { private_offset: Some(offset), .. } => ParamSlot::Private { offset, size },
            VarLoc::Mem { .. } => {
                return Err(c.unsupported(p.span, "a kernel parameter in local memory"));
            }
        };
        params.push(ParamInfo { name: p.name.clone(), slot, pointer_space, opaque });
    }
    if let Some(d) = &mut c.debug {
        d.functions[0].params = d.visible.clone();
    }
    c.mark_statement(function.span, &mut nodes);
    c.block(&mut ctx, &function.body, &mut nodes)?;
    let reqd = match &function.kind {
        FunctionKind::Kernel(attrs) => attrs.reqd_work_group_size,
        FunctionKind::Helper => None,
    };
    let independent_work_items = c.local_size == 0 && work_items_independent(&nodes);
    let hoisted = if debug { None } else { crate::hoist::hoist_invariants(&nodes, c.slots) };
    let debug = c.debug.take().map(|d| {
        Box::new(DebugInfo {
            types: module.types.clone(),
            statements: d.statements,
            variables: d.variables,
            functions: d.functions,
        })
    });
    Ok(Program {
        kernel: kernel.to_string(),
        nodes,
        slots: c.slots,
        constants: c.constants,
        private_size: c.private_size,
        local_size: c.local_size,
        local_objects: c.local_objects,
        params,
        sites: c.sites,
        globals: c.global_images,
        undefined_slots: c.undefined_slots,
        reqd_work_group_size: reqd,
        partial_groups: module.allows_partial_groups(),
        independent_work_items,
        hoisted,
        debug,
    })
}

/// The debugger's view of a program as it is compiled (see [`DebugInfo`]).
struct DebugBuilder {
    statements: Vec<DebugStatement>,
    variables: Vec<DebugVariable>,
    functions: Vec<DebugFunction>,
    /// The variables in scope at the statement being compiled.
    visible: Vec<u32>,
    /// The function being compiled, in `functions`.
    function: u32,
}

/// Where a variable lives.
#[derive(Clone, Copy, Debug)]
enum VarLoc {
    Reg {
        slot: Slot,
        scalar: Scalar,
        width: u32,
    },
    /// In memory; `addr` holds each lane's address of the variable.
    Mem {
        addr: Slot,
        space: AddressSpace,
        private_offset: Option<u64>,
    },
}

/// A compiled place (lvalue).
#[derive(Clone, Debug)]
enum Place {
    Reg { slot: Slot, len: u32 },
    RegComponents { slots: Vec<Slot> },
    Mem { addr: Slot, ty: Handle<Type>, site: u32 },
    MemComponents { addr: Slot, scalar: Scalar, comps: Vec<u8>, site: u32 },
}

/// The register form of a value of some type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Shape {
    Arith {
        scalar: Scalar,
        width: u32,
    },
    /// Pointers, events, images and samplers: one `ULong` slot.
    Word,
    /// Arrays and structs: one slot with the address of the bytes.
    Aggregate {
        size: u64,
    },
    Void,
}

impl Shape {
    pub(crate) fn slots(self) -> u32 {
        match self {
            Shape::Arith { width, .. } => width,
            Shape::Word | Shape::Aggregate { .. } => 1,
            Shape::Void => 0,
        }
    }
}

pub(crate) struct FnCtx<'f> {
    pub(crate) function: &'f Function,
    vars: HashMap<VariableRef, VarLoc>,
    /// Variables whose address is taken somewhere in the function.
    address_taken: HashSet<VariableRef>,
    /// Where `return value` writes: register slots or an aggregate temporary.
    ret: Option<(Slot, Shape)>,
}

impl<'f> FnCtx<'f> {
    fn new(function: &'f Function) -> Self {
        let mut address_taken = HashSet::new();
        for (_, e) in function.expressions.iter() {
            if let Expression::AddressOf(p) = e {
                if let Some(root) = place_root(function, *p, 0) {
                    address_taken.insert(root);
                }
            }
        }
        FnCtx { function, vars: HashMap::new(), address_taken, ret: None }
    }

    pub(crate) fn expr(&self, e: Handle<Expression>) -> Result<&'f Expression, SimError> {
        self.function.expressions.get(e).ok_or(SimError::InvalidIr {
            message: format!("expression {e:?} out of range in `{}`", self.function.name),
        })
    }

    pub(crate) fn ty(&self, e: Handle<Expression>) -> Result<Handle<Type>, SimError> {
        self.function.expression_types.get(e.index()).copied().ok_or(SimError::InvalidIr {
            message: format!("expression {e:?} has no type in `{}`", self.function.name),
        })
    }

    pub(crate) fn span(&self, e: Handle<Expression>) -> Span {
        self.function.expressions.span(e)
    }
}

/// The variable a place designates the inside of (`a` for `a[i].x`).
fn place_root(f: &Function, e: Handle<Expression>, depth: u32) -> Option<VariableRef> {
    if depth > MAX_EXPRESSION_DEPTH {
        return None;
    }
    match f.expressions.get(e)? {
        Expression::Variable(v) => Some(*v),
        Expression::Member { base, .. } | Expression::Swizzle { base, .. } => {
            place_root(f, *base, depth + 1)
        }
        Expression::Index { base, .. } => {
            let base_ty = f.expression_types.get(base.index())?;
            let _ = base_ty;
            place_root(f, *base, depth + 1)
        }
        _ => None,
    }
}

pub(crate) struct Compiler<'m> {
    pub(crate) module: &'m Module,
    slots: u32,
    constants: Vec<(Slot, u64)>,
    private_size: u64,
    local_size: u64,
    local_objects: Vec<LocalObject>,
    sites: Vec<Site>,
    call_depth: u32,
    expr_depth: u32,
    globals: HashMap<Handle<clmap_lang::ir::GlobalVariable>, u32>,
    global_images: Vec<GlobalImage>,
    undefined_slots: Vec<(Slot, u32)>,
    /// Index checks of the place being compiled ([`Op::IndexCheck`]), emitted after the
    /// load or store that uses it: an address only taken (`&a[4]`) is no access.
    pending_index_checks: Vec<Op>,
    /// Statements and variables for the interactive debugger, when compiling for it.
    debug: Option<DebugBuilder>,
}

fn align_up(x: u64, align: u64) -> u64 {
    let a = align.max(1);
    x.div_ceil(a).saturating_mul(a)
}

impl<'m> Compiler<'m> {
    pub(crate) fn unsupported(&self, span: Span, what: &str) -> SimError {
        SimError::Unsupported { what: what.to_string(), span }
    }

    pub(crate) fn inner(&self, ty: Handle<Type>) -> Result<&'m TypeInner, SimError> {
        self.module
            .types
            .get(ty)
            .ok_or(SimError::InvalidIr { message: format!("type {ty:?} out of range") })
    }

    pub(crate) fn shape(&self, ty: Handle<Type>) -> Result<Shape, SimError> {
        Ok(match self.inner(ty)? {
            TypeInner::Scalar(s) => Shape::Arith { scalar: *s, width: 1 },
            TypeInner::Vector { scalar, size } => {
                Shape::Arith { scalar: *scalar, width: size.width() }
            }
            // An image is the address of its storage, a sampler its `CLK_*` bits.
            TypeInner::Pointer { .. }
            | TypeInner::Event
            | TypeInner::Image(_)
            | TypeInner::Sampler => Shape::Word,
            TypeInner::Array { .. } | TypeInner::Struct { .. } => {
                Shape::Aggregate { size: u64::from(self.module.size_of(ty)) }
            }
            TypeInner::Void => Shape::Void,
        })
    }

    /// Scalar type used to compute on values of `ty` (pointers as `ulong`).
    pub(crate) fn arith(&self, ty: Handle<Type>) -> Result<(Scalar, u32), SimError> {
        match self.shape(ty)? {
            Shape::Arith { scalar, width } => Ok((scalar, width)),
            Shape::Word => Ok((Scalar::ULong, 1)),
            _ => Err(SimError::InvalidIr { message: "arithmetic on an aggregate".to_string() }),
        }
    }

    pub(crate) fn alloc(&mut self, n: u32) -> Result<Slot, SimError> {
        let slot = self.slots;
        self.slots = self.slots.checked_add(n.max(1)).filter(|s| *s <= MAX_SLOTS).ok_or(
            SimError::TooLarge { message: "the kernel needs too many registers".to_string() },
        )?;
        Ok(slot)
    }

    pub(crate) fn constant(&mut self, values: &[u64]) -> Result<Slot, SimError> {
        let slot = self.alloc(values.len() as u32)?;
        for (i, v) in values.iter().enumerate() {
            self.constants.push((slot + i as u32, *v));
        }
        Ok(slot)
    }

    fn alloc_private(&mut self, size: u64, align: u64) -> Result<u64, SimError> {
        let offset = align_up(self.private_size, align.min(128));
        self.private_size = offset
            .checked_add(size)
            .filter(|s| *s <= 1 << 30)
            .ok_or(SimError::TooLarge { message: "private memory over 1 GiB".to_string() })?;
        Ok(offset)
    }

    pub(crate) fn site(&mut self, span: Span, object: Option<String>, space: AddressSpace) -> u32 {
        self.sites.push(Site {
            span,
            object,
            space,
            packed: false,
            private_bounds: None,
            struct_members: None,
        });
        self.sites.len() as u32 - 1
    }

    /// The site of a copy of a whole `ty` to the place of `site`: for a struct, a site of its
    /// own that lists the struct's members ([`Site::struct_members`]).
    fn struct_copy_site(&mut self, site: u32, ty: Handle<Type>) -> u32 {
        if !matches!(self.module.types.get(ty), Some(TypeInner::Struct { .. })) {
            return site;
        }
        let mut members = Vec::new();
        self.member_bytes(ty, 0, &mut members);
        let Some(mut copy) = self.sites.get(site as usize).cloned() else { return site };
        copy.struct_members = Some(members.into());
        self.sites.push(copy);
        self.sites.len() as u32 - 1
    }

    /// The byte ranges of the members of `ty` placed at `base`, in order, adjacent ranges
    /// joined: nested structs' members (also in arrays) in their place; a union as a whole.
    fn member_bytes(&self, ty: Handle<Type>, base: u64, out: &mut Vec<(u64, u64)>) {
        match self.module.types.get(ty) {
            Some(TypeInner::Struct { is_union: false, members, .. }) => {
                for m in members {
                    self.member_bytes(m.ty, base + u64::from(m.offset), out);
                }
            }
            Some(TypeInner::Array { element, len })
                if matches!(
                    self.module.types.get(*element),
                    Some(TypeInner::Struct { is_union: false, .. })
                ) =>
            {
                let size = u64::from(self.module.size_of(*element));
                for i in 0..u64::from(*len) {
                    self.member_bytes(*element, base + i * size, out);
                }
            }
            _ => {
                let size = u64::from(self.module.size_of(ty));
                match out.last_mut() {
                    Some((start, len)) if *start + *len == base => *len += size,
                    _ => out.push((base, size)),
                }
            }
        }
    }

    /// A fresh private temporary of `size` bytes; returns the slot with its per-lane address.
    pub(crate) fn private_temp(
        &mut self,
        out: &mut Vec<Node>,
        size: u64,
        align: u64,
    ) -> Result<Slot, SimError> {
        let offset = self.alloc_private(size, align)?;
        let dst = self.alloc(1)?;
        out.push(Node::Op(Op::PrivateAddr { dst, offset }));
        Ok(dst)
    }

    fn declare_var(
        &mut self,
        ctx: &mut FnCtx<'_>,
        out: &mut Vec<Node>,
        var: VariableRef,
        ty: Handle<Type>,
        local: Option<&LocalVariable>,
    ) -> Result<VarLoc, SimError> {
        let shape = self.shape(ty)?;
        let in_local = local.is_some_and(|l| l.space == AddressSpace::Local);
        let loc = if in_local {
            let size = u64::from(self.module.size_of(ty));
            let align = u64::from(self.module.align_of(ty))
                .max(local.and_then(|l| l.align).map_or(1, u64::from));
            let offset = align_up(self.local_size, align.min(128));
            self.local_size = offset
                .checked_add(size)
                .ok_or(SimError::TooLarge { message: "local memory overflow".to_string() })?;
            self.local_objects.push(LocalObject {
                name: local.map(|l| l.name.clone()).unwrap_or_default(),
                offset,
                size,
            });
            let addr = self.alloc(1)?;
            out.push(Node::Op(Op::LocalAddr { dst: addr, offset }));
            VarLoc::Mem { addr, space: AddressSpace::Local, private_offset: None }
        } else if matches!(shape, Shape::Aggregate { .. }) || ctx.address_taken.contains(&var) {
            let size = u64::from(self.module.size_of(ty));
            let align = u64::from(self.module.align_of(ty));
            let offset = self.alloc_private(size, align)?;
            let addr = self.alloc(1)?;
            out.push(Node::Op(Op::PrivateAddr { dst: addr, offset }));
            VarLoc::Mem { addr, space: AddressSpace::Private, private_offset: Some(offset) }
        } else {
            let (scalar, width) = match shape {
                Shape::Arith { scalar, width } => (scalar, width),
                _ => (Scalar::ULong, 1),
            };
            let slot = self.alloc(width)?;
            VarLoc::Reg { slot, scalar, width }
        };
        ctx.vars.insert(var, loc);
        if self.debug.is_some() {
            let name = match var {
                VariableRef::Param(i) => ctx.function.params.get(i as usize).map(|p| &p.name),
                _ => local.map(|l| &l.name),
            };
            let place = match loc {
                VarLoc::Reg { slot, scalar, width } => DebugPlace::Reg { slot, scalar, width },
                VarLoc::Mem { addr, .. } => DebugPlace::Mem { addr },
            };
            if let (Some(d), Some(name)) = (&mut self.debug, name) {
                d.visible.push(d.variables.len() as u32);
                d.variables.push(DebugVariable { name: name.clone(), ty, place });
            }
        }
        Ok(loc)
    }

    /// Marks the start of a source statement at `span`, when compiling for the debugger.
    fn mark_statement(&mut self, span: Span, out: &mut Vec<Node>) {
        if let Some(d) = &mut self.debug {
            let index = d.statements.len() as u32;
            d.statements.push(DebugStatement {
                span,
                function: d.function,
                depth: self.call_depth,
                visible: d.visible.clone(),
            });
            out.push(Node::Statement(index));
        }
    }

    /// The number of variables in scope, to restore when a scope ends.
    fn scope_start(&self) -> usize {
        self.debug.as_ref().map_or(0, |d| d.visible.len())
    }

    fn scope_end(&mut self, start: usize) {
        if let Some(d) = &mut self.debug {
            d.visible.truncate(start);
        }
    }

    // ----- statements -------------------------------------------------------------------

    fn block(
        &mut self,
        ctx: &mut FnCtx<'_>,
        block: &Block,
        out: &mut Vec<Node>,
    ) -> Result<(), SimError> {
        let scope = self.scope_start();
        for (statement, span) in block.iter() {
            self.statement(ctx, statement, span, out)?;
        }
        self.scope_end(scope);
        Ok(())
    }

    fn statement(
        &mut self,
        ctx: &mut FnCtx<'_>,
        statement: &Statement,
        span: Span,
        out: &mut Vec<Node>,
    ) -> Result<(), SimError> {
        if self.debug.is_some() {
            // A line the debugger stops at: what runs code, and private declarations, as
            // Oclgrind stops at them (a `__local` declaration runs nothing in a work-item).
            let runs = match statement {
                Statement::Declare { variable, init } => {
                    init.is_some()
                        || ctx
                            .function
                            .locals
                            .get(*variable)
                            .is_some_and(|l| l.space != AddressSpace::Local)
                }
                Statement::Block(_)
                | Statement::Break
                | Statement::Continue
                | Statement::MemFence { .. } => false,
                _ => true,
            };
            if runs {
                self.mark_statement(span, out);
            }
        }
        match statement {
            Statement::Declare { variable, init } => {
                let local = ctx.function.locals.get(*variable).ok_or(SimError::InvalidIr {
                    message: format!("variable {variable:?} out of range"),
                })?;
                let var = VariableRef::Local(*variable);
                let loc = match ctx.vars.get(&var) {
                    Some(loc) => *loc,
                    None => {
                        let loc = self.declare_var(ctx, out, var, local.ty, Some(local))?;
                        if let (None, VarLoc::Reg { slot, width, .. }) = (init, loc) {
                            self.undefined_slots.push((slot, width));
                        }
                        loc
                    }
                };
                if let Some(init) = init {
                    let value = self.expr(ctx, *init, out)?;
                    let place = self.var_place(ctx, var, loc, local.ty, span)?;
                    self.store(out, &place, value, local.ty)?;
                }
            }
            Statement::Expression(e) => {
                self.expr(ctx, *e, out)?;
            }
            Statement::Block(b) => self.block(ctx, b, out)?,
            Statement::If { condition, accept, reject } => {
                let cond = self.condition(ctx, *condition, out)?;
                let mut then_ = Vec::new();
                self.block(ctx, accept, &mut then_)?;
                let mut else_ = Vec::new();
                self.block(ctx, reject, &mut else_)?;
                out.push(Node::If { cond, then_, else_, span });
            }
            Statement::Loop { form, init, condition, update, body, .. } => {
                // The variables the loop's initialiser declares are in scope in the loop.
                let scope = self.scope_start();
                for (statement, span) in init.iter() {
                    self.statement(ctx, statement, span, out)?;
                }
                let mut cond_nodes = Vec::new();
                // Each test of the condition comes back to the loop's line.
                self.mark_statement(span, &mut cond_nodes);
                let cond = match condition {
                    Some(c) => Some(self.condition(ctx, *c, &mut cond_nodes)?),
                    None => None,
                };
                let mut body_nodes = Vec::new();
                self.block(ctx, body, &mut body_nodes)?;
                let mut update_nodes = Vec::new();
                if let Some(u) = update {
                    self.expr(ctx, *u, &mut update_nodes)?;
                }
                out.push(Node::Loop {
                    cond_nodes,
                    cond,
                    body: body_nodes,
                    update: update_nodes,
                    test_first: *form != LoopForm::DoWhile,
                    span,
                });
                self.scope_end(scope);
            }
            Statement::Switch { selector, cases } => {
                let sel = self.expr(ctx, *selector, out)?;
                let (scalar, _) = self.arith(ctx.ty(*selector)?)?;
                // Case values compare as the selector's promoted type: widen to `long`.
                let selector = if scalar == Scalar::Long || scalar == Scalar::ULong {
                    sel
                } else {
                    let dst = self.alloc(1)?;
                    out.push(Node::Op(Op::Convert {
                        from: scalar,
                        to: Scalar::Long,
                        dst,
                        a: sel,
                        len: 1,
                        saturate: false,
                        rounding: None,
                    }));
                    dst
                };
                let mut compiled = Vec::new();
                for case in cases {
                    let mut body = Vec::new();
                    self.block(ctx, &case.body, &mut body)?;
                    compiled.push(CaseNode {
                        value: case.value,
                        body,
                        fall_through: case.fall_through,
                    });
                }
                out.push(Node::Switch { selector, cases: compiled, span });
            }
            Statement::Break => out.push(Node::Break),
            Statement::Continue => out.push(Node::Continue),
            Statement::Return(value) => {
                if let (Some(v), Some((ret, shape))) = (value, ctx.ret) {
                    let slot = self.expr(ctx, *v, out)?;
                    match shape {
                        Shape::Aggregate { size } => {
                            let site = self.site(span, None, AddressSpace::Private);
                            out.push(Node::Op(Op::MemCopy { dst: ret, src: slot, size, site }));
                        }
                        other => {
                            out.push(Node::Op(Op::Copy { dst: ret, src: slot, len: other.slots() }))
                        }
                    }
                } else if let Some(v) = value {
                    // A kernel cannot return a value; evaluate it for its effects.
                    self.expr(ctx, *v, out)?;
                }
                out.push(Node::Return);
            }
            Statement::Barrier(fences) => out.push(Node::Barrier { span, fences: *fences }),
            Statement::MemFence { .. } => {}
        }
        Ok(())
    }

    /// Whether a scalar expression's register value is always 0 or 1 (comparisons and
    /// logical operators on scalars), so converting it to `bool` changes nothing.
    fn is_zero_or_one(&self, ctx: &FnCtx<'_>, e: Handle<Expression>) -> Result<bool, SimError> {
        let (_, width) = match self.shape(ctx.ty(e)?)? {
            Shape::Arith { scalar, width } => (scalar, width),
            _ => return Ok(false),
        };
        if width != 1 {
            return Ok(false);
        }
        Ok(match ctx.expr(e)? {
            Expression::Binary { op, lhs, .. } => {
                op.yields_truth_value() && self.shape(ctx.ty(*lhs)?)?.slots() == 1
            }
            Expression::Unary { op: UnaryOp::LogicalNot, .. }
            | Expression::PointerCompare { .. } => true,
            _ => false,
        })
    }

    /// Compiles a condition into a 0/1 slot.
    fn condition(
        &mut self,
        ctx: &mut FnCtx<'_>,
        e: Handle<Expression>,
        out: &mut Vec<Node>,
    ) -> Result<Slot, SimError> {
        let slot = self.expr(ctx, e, out)?;
        let (scalar, _) = self.arith(ctx.ty(e)?)?;
        if scalar == Scalar::Bool || self.is_zero_or_one(ctx, e)? {
            return Ok(slot);
        }
        let dst = self.alloc(1)?;
        out.push(Node::Op(Op::ToBool { ty: scalar, dst, a: slot, len: 1 }));
        Ok(dst)
    }

    // ----- places -----------------------------------------------------------------------

    fn var_place(
        &mut self,
        ctx: &FnCtx<'_>,
        var: VariableRef,
        loc: VarLoc,
        ty: Handle<Type>,
        span: Span,
    ) -> Result<Place, SimError> {
        Ok(match loc {
            VarLoc::Reg { slot, width, .. } => Place::Reg { slot, len: width },
            VarLoc::Mem { addr, space, private_offset } => {
                let name = self.var_name(ctx, var);
                let site = self.site(span, name, space);
                if let (Some(offset), Some(s)) = (private_offset, self.sites.get_mut(site as usize))
                {
                    s.private_bounds = Some((offset, u64::from(self.module.size_of(ty))));
                }
                Place::Mem { addr, ty, site }
            }
        })
    }

    fn var_name(&self, ctx: &FnCtx<'_>, var: VariableRef) -> Option<String> {
        match var {
            VariableRef::Local(h) => ctx.function.locals.get(h).map(|l| l.name.clone()),
            VariableRef::Param(i) => ctx.function.params.get(i as usize).map(|p| p.name.clone()),
            VariableRef::Global(g) => self.module.global_variables.get(g).map(|v| v.name.clone()),
        }
    }

    /// The name of the variable an address expression derives from.
    pub(crate) fn root_name(
        &self,
        ctx: &FnCtx<'_>,
        e: Handle<Expression>,
        depth: u32,
    ) -> Option<String> {
        if depth > 64 {
            return None;
        }
        match ctx.function.expressions.get(e)? {
            Expression::Variable(v) => self.var_name(ctx, *v),
            Expression::Deref(x)
            | Expression::Load(x)
            | Expression::Decay(x)
            | Expression::AddressOf(x)
            | Expression::Bitcast(x)
            | Expression::Convert { value: x, .. }
            | Expression::Index { base: x, .. }
            | Expression::Member { base: x, .. }
            | Expression::Swizzle { base: x, .. }
            | Expression::PointerOffset { pointer: x, .. } => self.root_name(ctx, *x, depth + 1),
            Expression::Assign { place: x, .. } | Expression::CompoundAssign { place: x, .. } => {
                self.root_name(ctx, *x, depth + 1)
            }
            _ => None,
        }
    }

    fn pointee(&self, ptr_ty: Handle<Type>) -> Result<(Handle<Type>, AddressSpace), SimError> {
        match self.inner(ptr_ty)? {
            TypeInner::Pointer { pointee, space, .. } => Ok((*pointee, *space)),
            _ => Err(SimError::InvalidIr { message: "dereference of a non-pointer".to_string() }),
        }
    }

    fn place(
        &mut self,
        ctx: &mut FnCtx<'_>,
        e: Handle<Expression>,
        out: &mut Vec<Node>,
    ) -> Result<Place, SimError> {
        self.enter()?;
        let r = self.place_inner(ctx, e, out);
        self.expr_depth -= 1;
        r
    }

    /// A place whose address is taken, not accessed: its index checks are dropped.
    fn place_unaccessed(
        &mut self,
        ctx: &mut FnCtx<'_>,
        e: Handle<Expression>,
        out: &mut Vec<Node>,
    ) -> Result<Place, SimError> {
        let pending = self.pending_index_checks.len();
        let place = self.place(ctx, e, out);
        self.pending_index_checks.truncate(pending);
        place
    }

    /// Compiles a value while the index checks of a place are pending, so that the value's
    /// own accesses do not emit them (they belong after the place's access, under its mask).
    fn value_keeping_checks(
        &mut self,
        ctx: &mut FnCtx<'_>,
        e: Handle<Expression>,
        out: &mut Vec<Node>,
    ) -> Result<Slot, SimError> {
        let pending = std::mem::take(&mut self.pending_index_checks);
        let value = self.expr(ctx, e, out);
        self.pending_index_checks = pending;
        value
    }

    /// Emits the index checks of the place just loaded or stored.
    fn flush_index_checks(&mut self, out: &mut Vec<Node>) {
        out.extend(self.pending_index_checks.drain(..).map(Node::Op));
    }

    fn place_inner(
        &mut self,
        ctx: &mut FnCtx<'_>,
        e: Handle<Expression>,
        out: &mut Vec<Node>,
    ) -> Result<Place, SimError> {
        let span = ctx.span(e);
        let ty = ctx.ty(e)?;
        match ctx.expr(e)? {
            Expression::Variable(v) => {
                let loc = self.variable(ctx, *v, out)?;
                self.var_place(ctx, *v, loc, ty, span)
            }
            Expression::Deref(p) => {
                let addr = self.expr(ctx, *p, out)?;
                let (_, space) = self.pointee(ctx.ty(*p)?)?;
                let name = self.root_name(ctx, *p, 0);
                let site = self.site(span, name, space);
                Ok(Place::Mem { addr, ty, site })
            }
            Expression::Index { base, index } => {
                let base_ty = ctx.ty(*base)?;
                let elem_size = u64::from(self.module.size_of(ty));
                let mut packed = false;
                let mut bounds = None;
                let array_len = match self.inner(base_ty)? {
                    TypeInner::Array { len, .. } => Some(u64::from(*len)),
                    _ => None,
                };
                let (base_addr, space) = match self.inner(base_ty)? {
                    TypeInner::Pointer { space, .. } => (self.expr(ctx, *base, out)?, *space),
                    TypeInner::Array { .. } => match self.place(ctx, *base, out)? {
                        Place::Mem { addr, site, .. } => {
                            let base_site = self.sites.get(site as usize);
                            packed = base_site.is_some_and(|s| s.packed);
                            bounds = base_site.and_then(|s| s.private_bounds);
                            let space = base_site.map_or(AddressSpace::Private, |s| s.space);
                            (addr, space)
                        }
                        _ => {
                            return Err(
                                self.unsupported(span, "indexing an array held in registers")
                            )
                        }
                    },
                    _ => {
                        return Err(self
                            .unsupported(span, "indexing a value that is not an array or pointer"))
                    }
                };
                let idx = self.value_keeping_checks(ctx, *index, out)?;
                let (idx_scalar, _) = self.arith(ctx.ty(*index)?)?;
                if let Some(len) = array_len.filter(|&l| l > 0) {
                    self.pending_index_checks.push(Op::IndexCheck {
                        index: idx,
                        signed: idx_scalar.is_signed(),
                        len,
                        span,
                    });
                }
                let dst = self.alloc(1)?;
                out.push(Node::Op(Op::AddrIndex {
                    dst,
                    base: base_addr,
                    index: idx,
                    signed: idx_scalar.is_signed(),
                    scale: elem_size,
                    negate: false,
                }));
                let name = self.root_name(ctx, *base, 0);
                let site = self.site(span, name, space);
                if let Some(s) = self.sites.get_mut(site as usize) {
                    s.packed = packed;
                    s.private_bounds = bounds;
                }
                Ok(Place::Mem { addr: dst, ty, site })
            }
            Expression::Member { base, member } => {
                let base_ty = ctx.ty(*base)?;
                let offset = match self.inner(base_ty)? {
                    TypeInner::Struct { members, .. } => {
                        members.get(*member as usize).map(|m| u64::from(m.offset)).ok_or(
                            SimError::InvalidIr { message: "member out of range".to_string() },
                        )?
                    }
                    _ => {
                        return Err(SimError::InvalidIr {
                            message: "member of a non-struct".to_string(),
                        })
                    }
                };
                match self.place(ctx, *base, out)? {
                    Place::Mem { addr, site, .. } => {
                        let dst = self.alloc(1)?;
                        out.push(Node::Op(Op::AddrConst { dst, base: addr, offset }));
                        let old = self.sites.get(site as usize).cloned();
                        // A member of a packed struct (or of a struct inside one) may sit at
                        // any offset.
                        let packed = old.as_ref().is_some_and(|s| s.packed)
                            || self.module.align_of(base_ty) < self.module.align_of(ty);
                        let bounds = old.as_ref().and_then(|s| s.private_bounds);
                        let site = self.site(
                            span,
                            old.as_ref().and_then(|s| s.object.clone()),
                            old.map_or(AddressSpace::Private, |s| s.space),
                        );
                        if let Some(s) = self.sites.get_mut(site as usize) {
                            s.packed = packed;
                            s.private_bounds = bounds;
                        }
                        Ok(Place::Mem { addr: dst, ty, site })
                    }
                    _ => Err(self.unsupported(span, "a struct held in registers")),
                }
            }
            Expression::Swizzle { base, components } => {
                let base_place = self.place(ctx, *base, out)?;
                let base_ty = ctx.ty(*base)?;
                let (scalar, _) = self.arith(base_ty)?;
                match base_place {
                    Place::Reg { slot, .. } => Ok(Place::RegComponents {
                        slots: components.iter().map(|c| slot + u32::from(*c)).collect(),
                    }),
                    Place::RegComponents { slots } => Ok(Place::RegComponents {
                        slots: components
                            .iter()
                            .map(|c| slots.get(*c as usize).copied().unwrap_or(0))
                            .collect(),
                    }),
                    Place::Mem { addr, site, .. } => {
                        Ok(Place::MemComponents { addr, scalar, comps: components.clone(), site })
                    }
                    Place::MemComponents { addr, comps, site, .. } => Ok(Place::MemComponents {
                        addr,
                        scalar,
                        comps: components
                            .iter()
                            .map(|c| comps.get(*c as usize).copied().unwrap_or(0))
                            .collect(),
                        site,
                    }),
                }
            }
            // A struct or array value that is not a place (a call's result, a conditional's)
            // lives in private memory like every aggregate, so its members are read there:
            // `f(x).re`, `(c ? a : b).v`.
            _ if matches!(self.shape(ty)?, Shape::Aggregate { .. }) => {
                let addr = self.expr(ctx, e, out)?;
                let site = self.site(span, None, AddressSpace::Private);
                Ok(Place::Mem { addr, ty, site })
            }
            _ => Err(SimError::InvalidIr { message: "expression is not a place".to_string() }),
        }
    }

    /// The location of a variable, materialising program-scope constants on first use.
    fn variable(
        &mut self,
        ctx: &mut FnCtx<'_>,
        v: VariableRef,
        out: &mut Vec<Node>,
    ) -> Result<VarLoc, SimError> {
        if let Some(loc) = ctx.vars.get(&v) {
            return Ok(*loc);
        }
        match v {
            VariableRef::Global(g) => {
                if let Some(bits) = self.sampler_constant(g) {
                    // A sampler is no memory: its bits are a constant register.
                    let slot = self.constant(&[bits])?;
                    return Ok(VarLoc::Reg { slot, scalar: Scalar::ULong, width: 1 });
                }
                let index = self.global_image(g)?;
                let addr = self.alloc(1)?;
                out.push(Node::Op(Op::GlobalVarAddr { dst: addr, global: index }));
                let space = self
                    .module
                    .global_variables
                    .get(g)
                    .map_or(AddressSpace::Constant, |gv| gv.space);
                Ok(VarLoc::Mem { addr, space, private_offset: None })
            }
            VariableRef::Local(h) => {
                // A variable used before its declaration statement (should not happen after
                // sema); give it storage so the run stays defined.
                let local = ctx
                    .function
                    .locals
                    .get(h)
                    .ok_or(SimError::InvalidIr { message: "unknown variable".to_string() })?;
                self.declare_var(ctx, out, v, local.ty, Some(local))
            }
            VariableRef::Param(_) => {
                Err(SimError::InvalidIr { message: "unknown parameter".to_string() })
            }
        }
    }

    /// The bits of a program-scope `sampler_t` constant; `None` for other globals.
    fn sampler_constant(&self, g: Handle<clmap_lang::ir::GlobalVariable>) -> Option<u64> {
        let gv = self.module.global_variables.get(g)?;
        if !matches!(self.module.types.get(gv.ty), Some(TypeInner::Sampler)) {
            return None;
        }
        match &gv.init {
            Some(ConstValue::Literal(l)) => Some(l.as_i128().unwrap_or(0) as u64),
            _ => Some(0),
        }
    }

    fn global_image(&mut self, g: Handle<clmap_lang::ir::GlobalVariable>) -> Result<u32, SimError> {
        if let Some(i) = self.globals.get(&g) {
            return Ok(*i);
        }
        let gv = self
            .module
            .global_variables
            .get(g)
            .ok_or(SimError::InvalidIr { message: "unknown global variable".to_string() })?;
        let size = self.module.size_of(gv.ty) as usize;
        // Numbered before its initialiser is written, which numbers the variables it points to.
        let index = self.global_images.len() as u32;
        self.global_images.push(GlobalImage {
            name: gv.name.clone(),
            bytes: Vec::new(),
            variable: g.index() as u32,
            persistent: gv.space == AddressSpace::Global,
            relocations: Vec::new(),
        });
        self.globals.insert(g, index);
        let mut bytes = vec![0u8; size];
        let mut relocations = Vec::new();
        if let Some(init) = &gv.init {
            self.write_const(gv.ty, init, &mut bytes, 0, 0, &mut relocations)?;
        }
        if let Some(image) = self.global_images.get_mut(index as usize) {
            image.bytes = bytes;
            image.relocations = relocations;
        }
        Ok(index)
    }

    fn write_const(
        &mut self,
        ty: Handle<Type>,
        value: &ConstValue,
        bytes: &mut [u8],
        offset: usize,
        depth: u32,
        relocations: &mut Vec<GlobalRelocation>,
    ) -> Result<(), SimError> {
        if depth > 64 {
            return Err(SimError::TooLarge {
                message: "initialiser nested too deeply".to_string(),
            });
        }
        match (self.inner(ty)?, value) {
            (_, ConstValue::Zero) => {}
            (TypeInner::Pointer { .. }, ConstValue::Address { global, offset: target }) => {
                let global = self.global_image(*global)?;
                relocations.push(GlobalRelocation { at: offset, global, offset: *target });
            }
            (TypeInner::Scalar(s), ConstValue::Literal(l)) => {
                let bits = literal_bits(*l, *s);
                let raw = crate::value::to_memory(*s, bits).to_le_bytes();
                let n = s.size() as usize;
                if let Some(dst) = bytes.get_mut(offset..offset + n) {
                    dst.copy_from_slice(&raw[..n]);
                }
            }
            (TypeInner::Vector { scalar, .. }, ConstValue::Composite(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if let ConstValue::Literal(l) = item {
                        let bits = literal_bits(*l, *scalar);
                        let raw = crate::value::to_memory(*scalar, bits).to_le_bytes();
                        let n = scalar.size() as usize;
                        let at = offset + i * n;
                        if let Some(dst) = bytes.get_mut(at..at + n) {
                            dst.copy_from_slice(&raw[..n]);
                        }
                    }
                }
            }
            (TypeInner::Vector { scalar, size }, ConstValue::Literal(l)) => {
                let bits = literal_bits(*l, *scalar);
                let raw = crate::value::to_memory(*scalar, bits).to_le_bytes();
                let n = scalar.size() as usize;
                for i in 0..size.width() as usize {
                    let at = offset + i * n;
                    if let Some(dst) = bytes.get_mut(at..at + n) {
                        dst.copy_from_slice(&raw[..n]);
                    }
                }
            }
            (TypeInner::Array { element, .. }, ConstValue::Composite(items)) => {
                let size = self.module.size_of(*element) as usize;
                for (i, item) in items.iter().enumerate() {
                    self.write_const(
                        *element,
                        item,
                        bytes,
                        offset + i * size,
                        depth + 1,
                        relocations,
                    )?;
                }
            }
            (TypeInner::Struct { members, .. }, ConstValue::Composite(items)) => {
                for (m, item) in members.iter().zip(items) {
                    self.write_const(
                        m.ty,
                        item,
                        bytes,
                        offset + m.offset as usize,
                        depth + 1,
                        relocations,
                    )?;
                }
            }
            _ => {
                return Err(SimError::Unsupported {
                    what: "this constant initialiser".to_string(),
                    span: Span::UNDEFINED,
                })
            }
        }
        Ok(())
    }

    /// Reads a place into registers.
    fn load(&mut self, out: &mut Vec<Node>, place: &Place) -> Result<Slot, SimError> {
        let loaded = self.load_place(out, place);
        self.flush_index_checks(out);
        loaded
    }

    fn load_place(&mut self, out: &mut Vec<Node>, place: &Place) -> Result<Slot, SimError> {
        Ok(match place {
            Place::Reg { slot, .. } => *slot,
            Place::RegComponents { slots } => {
                let dst = self.alloc(slots.len() as u32)?;
                out.push(Node::Op(Op::Gather { dst, srcs: slots.clone().into() }));
                dst
            }
            Place::Mem { addr, ty, site } => match self.shape(*ty)? {
                Shape::Arith { scalar, width } => {
                    let dst = self.alloc(width)?;
                    out.push(Node::Op(Op::Load {
                        dst,
                        addr: *addr,
                        scalar,
                        width,
                        comps: None,
                        site: *site,
                    }));
                    dst
                }
                Shape::Word => {
                    let dst = self.alloc(1)?;
                    out.push(Node::Op(Op::Load {
                        dst,
                        addr: *addr,
                        scalar: Scalar::ULong,
                        width: 1,
                        comps: None,
                        site: *site,
                    }));
                    dst
                }
                Shape::Aggregate { .. } | Shape::Void => *addr,
            },
            Place::MemComponents { addr, scalar, comps, site } => {
                let dst = self.alloc(comps.len() as u32)?;
                out.push(Node::Op(Op::Load {
                    dst,
                    addr: *addr,
                    scalar: *scalar,
                    width: comps.len() as u32,
                    comps: Some(comps.clone().into()),
                    site: *site,
                }));
                dst
            }
        })
    }

    /// Writes `value` (of type `ty`) into a place, for the active lanes.
    fn store(
        &mut self,
        out: &mut Vec<Node>,
        place: &Place,
        value: Slot,
        ty: Handle<Type>,
    ) -> Result<(), SimError> {
        match place {
            Place::Reg { slot, len } => {
                if *slot != value {
                    out.push(Node::Op(Op::Copy { dst: *slot, src: value, len: *len }));
                }
            }
            Place::RegComponents { slots } => {
                out.push(Node::Op(Op::Scatter { dsts: slots.clone().into(), src: value }))
            }
            Place::Mem { addr, ty: place_ty, site } => match self.shape(*place_ty)? {
                Shape::Arith { scalar, width } => out.push(Node::Op(Op::Store {
                    addr: *addr,
                    src: value,
                    scalar,
                    width,
                    comps: None,
                    site: *site,
                })),
                Shape::Word => out.push(Node::Op(Op::Store {
                    addr: *addr,
                    src: value,
                    scalar: Scalar::ULong,
                    width: 1,
                    comps: None,
                    site: *site,
                })),
                Shape::Aggregate { size } => {
                    let site = self.struct_copy_site(*site, *place_ty);
                    out.push(Node::Op(Op::MemCopy { dst: *addr, src: value, size, site }))
                }
                Shape::Void => {}
            },
            Place::MemComponents { addr, scalar, comps, site } => out.push(Node::Op(Op::Store {
                addr: *addr,
                src: value,
                scalar: *scalar,
                width: comps.len() as u32,
                comps: Some(comps.clone().into()),
                site: *site,
            })),
        }
        let _ = ty;
        self.flush_index_checks(out);
        Ok(())
    }

    // ----- expressions ------------------------------------------------------------------

    fn enter(&mut self) -> Result<(), SimError> {
        self.expr_depth += 1;
        if self.expr_depth > MAX_EXPRESSION_DEPTH {
            self.expr_depth -= 1;
            return Err(SimError::TooLarge { message: "expression nested too deeply".to_string() });
        }
        Ok(())
    }

    pub(crate) fn expr(
        &mut self,
        ctx: &mut FnCtx<'_>,
        e: Handle<Expression>,
        out: &mut Vec<Node>,
    ) -> Result<Slot, SimError> {
        self.enter()?;
        let r = self.expr_inner(ctx, e, out);
        self.expr_depth -= 1;
        r
    }

    fn expr_inner(
        &mut self,
        ctx: &mut FnCtx<'_>,
        e: Handle<Expression>,
        out: &mut Vec<Node>,
    ) -> Result<Slot, SimError> {
        let ty = ctx.ty(e)?;
        let span = ctx.span(e);
        let expression = ctx.expr(e)?;
        match expression {
            Expression::Literal(l) => {
                let shape = self.shape(ty)?;
                let scalar = match shape {
                    Shape::Arith { scalar, .. } => scalar,
                    _ => Scalar::ULong,
                };
                let bits = literal_bits(*l, scalar);
                let n = shape.slots().max(1) as usize;
                self.constant(&vec![bits; n])
            }
            Expression::StringLiteral(_) => self.constant(&[0]),
            Expression::ZeroValue => match self.shape(ty)? {
                Shape::Aggregate { size } => {
                    let align = u64::from(self.module.align_of(ty));
                    let dst = self.private_temp(out, size, align)?;
                    let site = self.site(span, None, AddressSpace::Private);
                    out.push(Node::Op(Op::MemZero { dst, size, site }));
                    Ok(dst)
                }
                shape => self.constant(&vec![0; shape.slots().max(1) as usize]),
            },
            Expression::Variable(_)
            | Expression::Deref(_)
            | Expression::Index { .. }
            | Expression::Member { .. } => {
                // A place used as a value without `Load` (tolerated: read it).
                let place = self.place(ctx, e, out)?;
                self.load(out, &place)
            }
            Expression::Swizzle { base, components } => {
                if ctx.expr(*base)?.is_place(&ctx.function.expressions) {
                    let place = self.place(ctx, e, out)?;
                    return self.load(out, &place);
                }
                let src = self.expr(ctx, *base, out)?;
                let dst = self.alloc(components.len() as u32)?;
                let srcs: Box<[Slot]> = components.iter().map(|c| src + u32::from(*c)).collect();
                out.push(Node::Op(Op::Gather { dst, srcs }));
                Ok(dst)
            }
            Expression::Load(p) => {
                let place = self.place(ctx, *p, out)?;
                self.load(out, &place)
            }
            Expression::AddressOf(p) => match self.place_unaccessed(ctx, *p, out)? {
                Place::Mem { addr, .. } => Ok(addr),
                Place::MemComponents { addr, scalar, comps, .. } if comps.len() == 1 => {
                    let dst = self.alloc(1)?;
                    let offset = u64::from(comps[0]) * u64::from(scalar.size());
                    out.push(Node::Op(Op::AddrConst { dst, base: addr, offset }));
                    Ok(dst)
                }
                _ => Err(self.unsupported(span, "taking the address of a value held in registers")),
            },
            Expression::Decay(p) => match self.place_unaccessed(ctx, *p, out)? {
                Place::Mem { addr, .. } => Ok(addr),
                _ => Err(self.unsupported(span, "an array held in registers")),
            },
            Expression::Unary { op, operand } => {
                let a = self.expr(ctx, *operand, out)?;
                let (scalar, width) = self.arith(ctx.ty(*operand)?)?;
                let dst = self.alloc(width)?;
                match op {
                    UnaryOp::Negate => out.push(Node::Op(Op::Unary {
                        op: UnaryKind::Negate,
                        ty: scalar,
                        dst,
                        a,
                        len: width,
                    })),
                    UnaryOp::BitNot => out.push(Node::Op(Op::Unary {
                        op: UnaryKind::BitNot,
                        ty: scalar,
                        dst,
                        a,
                        len: width,
                    })),
                    UnaryOp::LogicalNot => {
                        let (result, _) = self.arith(ty)?;
                        let vector = width > 1;
                        let _ = result;
                        out.push(Node::Op(Op::Not { ty: scalar, dst, a, len: width, vector }))
                    }
                }
                Ok(dst)
            }
            Expression::Binary { op, lhs, rhs } => self.binary(ctx, *op, *lhs, *rhs, ty, span, out),
            Expression::PointerOffset { pointer, offset, subtract } => {
                let base = self.expr(ctx, *pointer, out)?;
                let index = self.expr(ctx, *offset, out)?;
                let (pointee, _) = self.pointee(ctx.ty(*pointer)?)?;
                let (idx_scalar, _) = self.arith(ctx.ty(*offset)?)?;
                let dst = self.alloc(1)?;
                out.push(Node::Op(Op::AddrIndex {
                    dst,
                    base,
                    index,
                    signed: idx_scalar.is_signed(),
                    scale: u64::from(self.module.size_of(pointee)).max(1),
                    negate: *subtract,
                }));
                Ok(dst)
            }
            Expression::PointerDifference { lhs, rhs } => {
                let a = self.expr(ctx, *lhs, out)?;
                let b = self.expr(ctx, *rhs, out)?;
                let (pointee, _) = self.pointee(ctx.ty(*lhs)?)?;
                let dst = self.alloc(1)?;
                out.push(Node::Op(Op::PtrDiff {
                    dst,
                    a,
                    b,
                    elem_size: u64::from(self.module.size_of(pointee)).max(1),
                }));
                Ok(dst)
            }
            Expression::PointerCompare { op, lhs, rhs } => {
                let a = self.expr(ctx, *lhs, out)?;
                let b = self.expr(ctx, *rhs, out)?;
                let dst = self.alloc(1)?;
                out.push(Node::Op(Op::Compare {
                    op: *op,
                    ty: Scalar::ULong,
                    dst,
                    a,
                    b,
                    len: 1,
                    vector: false,
                }));
                Ok(dst)
            }
            Expression::Conditional { condition, accept, reject } => {
                let cond_ty = ctx.ty(*condition)?;
                let shape = self.shape(ty)?;
                if let Shape::Arith { width, .. } = self.shape(cond_ty)? {
                    if width > 1 {
                        let (cond_scalar, _) = self.arith(cond_ty)?;
                        let c = self.expr(ctx, *condition, out)?;
                        let a = self.expr(ctx, *accept, out)?;
                        let b = self.expr(ctx, *reject, out)?;
                        let dst = self.alloc(width)?;
                        out.push(Node::Op(Op::Select {
                            cond_ty: cond_scalar,
                            msb: true,
                            dst,
                            cond: c,
                            a,
                            b,
                            len: width,
                        }));
                        return Ok(dst);
                    }
                }
                let cond = self.condition(ctx, *condition, out)?;
                let dst = self.alloc(shape.slots())?;
                let mut then_ = Vec::new();
                let a = self.expr(ctx, *accept, &mut then_)?;
                if shape.slots() > 0 {
                    then_.push(Node::Op(Op::Copy { dst, src: a, len: shape.slots() }));
                }
                let mut else_ = Vec::new();
                let b = self.expr(ctx, *reject, &mut else_)?;
                if shape.slots() > 0 {
                    else_.push(Node::Op(Op::Copy { dst, src: b, len: shape.slots() }));
                }
                out.push(Node::If { cond, then_, else_, span });
                Ok(dst)
            }
            Expression::Convert { value, kind } => {
                let from_ty = ctx.ty(*value)?;
                let a = self.expr(ctx, *value, out)?;
                let from_shape = self.shape(from_ty)?;
                let to_shape = self.shape(ty)?;
                let (saturate, rounding) = match kind {
                    ConversionKind::Explicit { saturate, rounding } => (*saturate, *rounding),
                    _ => (false, None),
                };
                match (from_shape, to_shape) {
                    (Shape::Word, Shape::Word) => Ok(a),
                    (Shape::Aggregate { .. }, _) | (_, Shape::Aggregate { .. }) => Ok(a),
                    (_, Shape::Void) => Ok(a),
                    _ => {
                        let (from, from_w) = self.arith(from_ty)?;
                        let (to, to_w) = self.arith(ty)?;
                        if from == to && from_w == to_w {
                            return Ok(a);
                        }
                        if to == Scalar::Bool && from_w == 1 && self.is_zero_or_one(ctx, *value)? {
                            // A comparison already yields 0 or 1: the conversion is a no-op.
                            return Ok(a);
                        }
                        let dst = self.alloc(to_w)?;
                        let src = if from_w == 1 && to_w > 1 {
                            // A scalar converted to a vector: convert, then splat below.
                            a
                        } else {
                            a
                        };
                        if to == Scalar::Bool {
                            out.push(Node::Op(Op::ToBool {
                                ty: from,
                                dst,
                                a: src,
                                len: to_w.min(from_w),
                            }));
                        } else {
                            out.push(Node::Op(Op::Convert {
                                from,
                                to,
                                dst,
                                a: src,
                                len: to_w.min(from_w),
                                saturate,
                                rounding,
                            }));
                        }
                        if from_w == 1 && to_w > 1 {
                            let splat = self.alloc(to_w)?;
                            out.push(Node::Op(Op::Gather {
                                dst: splat,
                                srcs: vec![dst; to_w as usize].into(),
                            }));
                            return Ok(splat);
                        }
                        Ok(dst)
                    }
                }
            }
            Expression::Bitcast(value) => {
                let a = self.expr(ctx, *value, out)?;
                let (from, from_w) = self.arith(ctx.ty(*value)?)?;
                let (to, to_w) = self.arith(ty)?;
                let dst = self.alloc(to_w)?;
                out.push(Node::Op(Op::Bitcast {
                    from,
                    to,
                    dst,
                    a,
                    from_len: from_w,
                    to_len: to_w,
                }));
                Ok(dst)
            }
            Expression::Splat(value) => {
                let a = self.expr(ctx, *value, out)?;
                let (_, width) = self.arith(ty)?;
                let dst = self.alloc(width)?;
                out.push(Node::Op(Op::Gather { dst, srcs: vec![a; width as usize].into() }));
                Ok(dst)
            }
            Expression::Compose(parts) => self.compose(ctx, ty, parts, span, out),
            Expression::Assign { place, value } => {
                let p = self.place(ctx, *place, out)?;
                let v = self.value_keeping_checks(ctx, *value, out)?;
                self.store(out, &p, v, ty)?;
                Ok(v)
            }
            Expression::CompoundAssign { op, place, value, compute_type } => {
                let p = self.place(ctx, *place, out)?;
                let place_ty = ctx.ty(*place)?;
                let rhs = self.value_keeping_checks(ctx, *value, out)?;
                let current = self.load(out, &p)?;
                let result = if self.shape(place_ty)? == Shape::Word {
                    let (pointee, _) = self.pointee(place_ty)?;
                    let (idx_scalar, _) = self.arith(ctx.ty(*value)?)?;
                    let dst = self.alloc(1)?;
                    out.push(Node::Op(Op::AddrIndex {
                        dst,
                        base: current,
                        index: rhs,
                        signed: idx_scalar.is_signed(),
                        scale: u64::from(self.module.size_of(pointee)).max(1),
                        negate: *op == BinaryOp::Sub,
                    }));
                    dst
                } else {
                    let (place_scalar, width) = self.arith(place_ty)?;
                    let (compute, _) = self.arith(*compute_type)?;
                    let lhs = self.convert_slot(out, current, place_scalar, compute, width)?;
                    let dst = self.alloc(width)?;
                    let site = self.site(span, None, AddressSpace::Private);
                    out.push(Node::Op(Op::Binary {
                        op: *op,
                        ty: compute,
                        dst,
                        a: lhs,
                        b: rhs,
                        len: width,
                        site,
                    }));
                    self.convert_slot(out, dst, compute, place_scalar, width)?
                };
                self.store(out, &p, result, place_ty)?;
                Ok(result)
            }
            Expression::IncDec { place, increment, prefix } => {
                let p = self.place(ctx, *place, out)?;
                let place_ty = ctx.ty(*place)?;
                let current = self.load(out, &p)?;
                let shape = self.shape(place_ty)?;
                let old = if *prefix {
                    current
                } else {
                    // Keep the old value: the store below may overwrite `current`'s slot.
                    let copy = self.alloc(shape.slots())?;
                    out.push(Node::Op(Op::Gather {
                        dst: copy,
                        srcs: (0..shape.slots()).map(|i| current + i).collect(),
                    }));
                    copy
                };
                let new = if shape == Shape::Word {
                    let (pointee, _) = self.pointee(place_ty)?;
                    let one = self.constant(&[1])?;
                    let dst = self.alloc(1)?;
                    out.push(Node::Op(Op::AddrIndex {
                        dst,
                        base: old,
                        index: one,
                        signed: true,
                        scale: u64::from(self.module.size_of(pointee)).max(1),
                        negate: !*increment,
                    }));
                    dst
                } else {
                    let (scalar, width) = self.arith(place_ty)?;
                    let one = self.constant(&vec![
                        literal_bits(
                            Literal::Int { scalar: Scalar::Int, bits: 1 },
                            scalar
                        );
                        width as usize
                    ])?;
                    let dst = self.alloc(width)?;
                    let op = if *increment { BinaryOp::Add } else { BinaryOp::Sub };
                    out.push(Node::Op(Op::Binary {
                        op,
                        ty: scalar,
                        dst,
                        a: old,
                        b: one,
                        len: width,
                        site: 0,
                    }));
                    dst
                };
                self.store(out, &p, new, place_ty)?;
                Ok(if *prefix { new } else { old })
            }
            Expression::Comma { lhs, rhs } => {
                self.expr(ctx, *lhs, out)?;
                self.expr(ctx, *rhs, out)
            }
            Expression::Call { function, args } => self.call(ctx, *function, args, ty, span, out),
            Expression::Builtin { function, args } => {
                self.builtin(ctx, *function, args, ty, span, out)
            }
        }
    }

    fn convert_slot(
        &mut self,
        out: &mut Vec<Node>,
        a: Slot,
        from: Scalar,
        to: Scalar,
        width: u32,
    ) -> Result<Slot, SimError> {
        if from == to {
            return Ok(a);
        }
        let dst = self.alloc(width)?;
        if to == Scalar::Bool {
            out.push(Node::Op(Op::ToBool { ty: from, dst, a, len: width }));
        } else {
            out.push(Node::Op(Op::Convert {
                from,
                to,
                dst,
                a,
                len: width,
                saturate: false,
                rounding: None,
            }));
        }
        Ok(dst)
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        ctx: &mut FnCtx<'_>,
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
        ty: Handle<Type>,
        span: Span,
        out: &mut Vec<Node>,
    ) -> Result<Slot, SimError> {
        let (operand_scalar, width) = self.arith(ctx.ty(lhs)?)?;
        let is_logical = matches!(op, BinaryOp::LogicalAnd | BinaryOp::LogicalOr);
        if is_logical && width == 1 {
            // Short-circuit: the right side runs only for lanes that need it.
            let l = self.condition(ctx, lhs, out)?;
            let dst = self.alloc(1)?;
            let mut rhs_nodes = Vec::new();
            let r = self.condition(ctx, rhs, &mut rhs_nodes)?;
            rhs_nodes.push(Node::Op(Op::Copy { dst, src: r, len: 1 }));
            let (then_, else_) = if op == BinaryOp::LogicalAnd {
                (rhs_nodes, vec![Node::Op(Op::Copy { dst, src: l, len: 1 })])
            } else {
                (vec![Node::Op(Op::Copy { dst, src: l, len: 1 })], rhs_nodes)
            };
            out.push(Node::If { cond: l, then_, else_, span });
            return Ok(dst);
        }
        let a = self.expr(ctx, lhs, out)?;
        let b = self.expr(ctx, rhs, out)?;
        let dst = self.alloc(width)?;
        let vector = width > 1;
        let node = match op {
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr => Op::LogicalVector {
                and: op == BinaryOp::LogicalAnd,
                ty: operand_scalar,
                dst,
                a,
                b,
                len: width,
            },
            BinaryOp::Lt
            | BinaryOp::Gt
            | BinaryOp::Le
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne => Op::Compare { op, ty: operand_scalar, dst, a, b, len: width, vector },
            _ => {
                let (scalar, _) = self.arith(ty)?;
                let site = self.site(span, None, AddressSpace::Private);
                Op::Binary { op, ty: scalar, dst, a, b, len: width, site }
            }
        };
        out.push(Node::Op(node));
        Ok(dst)
    }

    fn compose(
        &mut self,
        ctx: &mut FnCtx<'_>,
        ty: Handle<Type>,
        parts: &[Handle<Expression>],
        span: Span,
        out: &mut Vec<Node>,
    ) -> Result<Slot, SimError> {
        match self.shape(ty)? {
            Shape::Arith { width, .. } => {
                let mut srcs = Vec::new();
                for p in parts {
                    let slot = self.expr(ctx, *p, out)?;
                    let n = self.shape(ctx.ty(*p)?)?.slots();
                    srcs.extend((0..n).map(|i| slot + i));
                }
                srcs.resize(width as usize, *srcs.last().unwrap_or(&0));
                let dst = self.alloc(width)?;
                out.push(Node::Op(Op::Gather { dst, srcs: srcs.into() }));
                Ok(dst)
            }
            Shape::Aggregate { size } => {
                let align = u64::from(self.module.align_of(ty));
                let dst = self.private_temp(out, size, align)?;
                let site = self.site(span, None, AddressSpace::Private);
                // The temporary is aligned to the type and laid out by it: its members are
                // where the layout puts them, packed or not, so alignment is not checked.
                if let Some(s) = self.sites.get_mut(site as usize) {
                    s.packed = true;
                }
                out.push(Node::Op(Op::MemZero { dst, size, site }));
                let layout: Vec<(u64, Handle<Type>)> = match self.inner(ty)? {
                    TypeInner::Array { element, len } => {
                        let es = u64::from(self.module.size_of(*element));
                        (0..u64::from(*len)).map(|i| (i * es, *element)).collect()
                    }
                    TypeInner::Struct { members, .. } => {
                        members.iter().map(|m| (u64::from(m.offset), m.ty)).collect()
                    }
                    _ => Vec::new(),
                };
                for (p, (offset, member_ty)) in parts.iter().zip(layout) {
                    let value = self.expr(ctx, *p, out)?;
                    let addr = self.alloc(1)?;
                    out.push(Node::Op(Op::AddrConst { dst: addr, base: dst, offset }));
                    let place = Place::Mem { addr, ty: member_ty, site };
                    self.store(out, &place, value, member_ty)?;
                }
                Ok(dst)
            }
            _ => Err(self.unsupported(span, "a composite of this type")),
        }
    }

    fn call(
        &mut self,
        ctx: &mut FnCtx<'_>,
        function: Handle<Function>,
        args: &[Handle<Expression>],
        ty: Handle<Type>,
        span: Span,
        out: &mut Vec<Node>,
    ) -> Result<Slot, SimError> {
        let callee =
            self.module.functions.get(function).ok_or(SimError::InvalidIr {
                message: "call of an unknown function".to_string(),
            })?;
        if self.call_depth >= MAX_CALL_DEPTH {
            return Err(SimError::TooLarge {
                message: format!("calls nested deeper than {MAX_CALL_DEPTH}"),
            });
        }
        let mut arg_slots = Vec::with_capacity(args.len());
        for a in args {
            arg_slots.push(self.expr(ctx, *a, out)?);
        }
        let mut callee_ctx = FnCtx::new(callee);
        let mut body = Vec::new();
        // The callee sees its own variables only.
        let caller_scope = self.debug.as_mut().map(|d| {
            let caller = d.statements.len().checked_sub(1).map(|s| s as u32);
            d.functions.push(DebugFunction {
                name: callee.name.clone(),
                span: callee.span,
                params: Vec::new(),
                caller,
            });
            let function = std::mem::replace(&mut d.function, d.functions.len() as u32 - 1);
            (function, std::mem::take(&mut d.visible))
        });
        for (i, (p, value)) in callee.params.iter().zip(arg_slots).enumerate() {
            let var = VariableRef::Param(i as u32);
            let loc = self.declare_var(&mut callee_ctx, &mut body, var, p.ty, None)?;
            let place = self.var_place(&callee_ctx, var, loc, p.ty, p.span)?;
            self.store(&mut body, &place, value, p.ty)?;
        }
        let ret_shape = self.shape(ty)?;
        let ret = match ret_shape {
            Shape::Void => None,
            Shape::Aggregate { size } => {
                let align = u64::from(self.module.align_of(ty));
                Some((self.private_temp(out, size, align)?, ret_shape))
            }
            shape => Some((self.alloc(shape.slots())?, shape)),
        };
        callee_ctx.ret = ret;
        self.call_depth += 1;
        if let Some(d) = &mut self.debug {
            let params = d.visible.clone();
            if let Some(f) = d.functions.get_mut(d.function as usize) {
                f.params = params;
            }
        }
        self.mark_statement(callee.span, &mut body);
        let saved_depth = std::mem::replace(&mut self.expr_depth, 0);
        let r = self.block(&mut callee_ctx, &callee.body, &mut body);
        self.expr_depth = saved_depth;
        self.call_depth -= 1;
        if let (Some(d), Some((function, visible))) = (&mut self.debug, caller_scope) {
            d.function = function;
            d.visible = visible;
        }
        r?;
        out.push(Node::Call { body });
        let _ = span;
        Ok(ret.map_or(0, |(slot, _)| slot))
    }
}

/// The register bits of a literal converted to `scalar`.
pub(crate) fn literal_bits(l: Literal, scalar: Scalar) -> u64 {
    let value_f64 = match l {
        Literal::Bool(b) => f64::from(u8::from(b)),
        Literal::Int { .. } => l.as_i128().unwrap_or(0) as f64,
        Literal::Float { value, .. } => value,
    };
    match scalar {
        Scalar::Float => Lane::to_bits(value_f64 as f32),
        Scalar::Half => Half(value_f64 as f32).to_bits(),
        Scalar::Double => value_f64.to_bits(),
        Scalar::Bool => u64::from(value_f64 != 0.0),
        s => match l {
            Literal::Float { value, .. } => normalise(s, value as i64 as u64),
            _ => normalise(s, l.as_i128().unwrap_or(0) as u64),
        },
    }
}
