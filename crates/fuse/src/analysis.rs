//! Kernel code analysis: every access a kernel makes to its `__global` buffers, with the
//! index as a symbolic value of the work-item, the guard under which it happens and the
//! counted loops around it — the raw material of the producing and consuming relations.
//!
//! Integer variables assigned once are followed to their definitions, helper functions that
//! compute an index (`return y * w + x;`) are followed into, `min`/`max`/`clamp` are exact.
//! What cannot be followed is recorded with the reason and the source span, never guessed:
//! a buffer whose accesses are not all known cannot take part in fusion.

use std::collections::HashMap;

use clmap_lang::ir::{
    AddressSpace, Block, Builtin, CommonFunction, Expression, Function, Handle, Literal, LoopForm,
    Module, Statement, TypeInner, UnaryOp, VariableRef, WorkItemFunction,
};
use clmap_lang::proc::{operands, BinaryOp};
use clmap_lang::Span;

use crate::refusal::Refusal;
use crate::sym::{compare, Atom, Cond, Sym};

/// How an access uses the element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    /// `+=`, `++`: read, then written.
    ReadWrite,
}

impl AccessKind {
    pub fn reads(self) -> bool {
        matches!(self, AccessKind::Read | AccessKind::ReadWrite)
    }
    pub fn writes(self) -> bool {
        matches!(self, AccessKind::Write | AccessKind::ReadWrite)
    }
}

/// A counted loop `for (v = lo; v < hi; v++)` around an access.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopBound {
    pub var: u32,
    pub lo: Sym,
    /// Exclusive.
    pub hi: Sym,
}

/// One `buffer[index]` of a kernel.
#[derive(Clone, Debug)]
pub struct Access {
    /// The kernel parameter (a `__global` or `__constant` pointer).
    pub param: u32,
    pub kind: AccessKind,
    /// The element index, or why it has no symbolic value.
    pub index: Result<Sym, String>,
    /// The guard: the conditions of the enclosing `if`s.
    pub guard: Cond,
    pub loops: Vec<LoopBound>,
    /// Inside some loop (counted or not).
    pub in_loop: bool,
    /// The `Index` place expression.
    pub place: Handle<Expression>,
    pub span: Span,
}

/// Everything fusion needs to know about one kernel at one launch's sizes.
#[derive(Clone, Debug)]
pub struct KernelAccesses {
    pub kernel: String,
    pub function: Handle<Function>,
    pub accesses: Vec<Access>,
    /// Buffer parameters whose accesses are not all visible as indexing (the pointer is
    /// passed on, offset, used by an atomic or a vector load).
    pub opaque: Vec<(u32, Refusal)>,
    /// Why the kernel cannot be a stage of a fused kernel at all.
    pub blockers: Vec<Refusal>,
}

impl KernelAccesses {
    pub fn opaque_reason(&self, param: u32) -> Option<&Refusal> {
        self.opaque.iter().find(|(p, _)| *p == param).map(|(_, r)| r)
    }

    pub fn of_param(&self, param: u32) -> impl Iterator<Item = &Access> {
        self.accesses.iter().filter(move |a| a.param == param)
    }
}

/// Analyses kernel `function` of `module` for a launch of `global` work-items.
pub fn analyse(module: &Module, function: Handle<Function>, global: [u64; 3]) -> KernelAccesses {
    let f = &module.functions[function];
    let mut walker = Walker {
        module,
        f,
        global,
        vars: VarInfo::of(f),
        out: KernelAccesses {
            kernel: f.name.clone(),
            function,
            accesses: Vec::new(),
            opaque: Vec::new(),
            blockers: Vec::new(),
        },
        helper_info: HashMap::new(),
        counters: Vec::new(),
        arg_store: Vec::new(),
    };
    for (_, v) in f.locals.iter() {
        if v.space == AddressSpace::Local {
            walker.blocker(
                format!("`{}` is `__local` memory (a work-group collective)", v.name),
                f.span,
            );
        }
    }
    for (i, p) in f.params.iter().enumerate() {
        if let TypeInner::Pointer { space: AddressSpace::Local, .. } = module.types[p.ty] {
            walker.blocker(format!("parameter `{}` is `__local` memory", p.name), p.span);
        }
        let _ = i;
    }
    let ctx = Ctx { guard: Cond::True, loops: Vec::new(), in_loop: false };
    walker.block(&f.body, &ctx);
    walker.out
}

/// Which local variables have one value (assigned only at their declaration) and which
/// are loop counters.
#[derive(Default)]
struct VarInfo {
    /// Declared initialiser of each variable.
    init: HashMap<u32, Handle<Expression>>,
    /// Assignments other than the declaration.
    writes: HashMap<u32, Vec<Handle<Expression>>>,
}

impl VarInfo {
    fn of(f: &Function) -> VarInfo {
        let mut info = VarInfo::default();
        let _ = clmap_lang::proc::visit_statements::<()>(&f.body, &mut |s: &Statement, _| {
            if let Statement::Declare { variable, init: Some(init) } = s {
                info.init.insert(variable.index() as u32, *init);
            }
            std::ops::ControlFlow::Continue(())
        });
        for (h, e) in f.expressions.iter() {
            let place = match e {
                Expression::Assign { place, .. }
                | Expression::CompoundAssign { place, .. }
                | Expression::IncDec { place, .. } => *place,
                Expression::AddressOf(place) => *place,
                _ => continue,
            };
            if let Some(Expression::Variable(VariableRef::Local(v))) = f.expressions.get(place) {
                info.writes.entry(v.index() as u32).or_default().push(h);
            }
        }
        info
    }

    fn single_value(&self, var: u32) -> Option<Handle<Expression>> {
        if self.writes.get(&var).is_some_and(|w| !w.is_empty()) {
            return None;
        }
        self.init.get(&var).copied()
    }
}

#[derive(Clone)]
struct Ctx {
    guard: Cond,
    loops: Vec<LoopBound>,
    in_loop: bool,
}

/// How an expression's place is used.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Value,
    Write,
    ReadWrite,
    AddressTaken,
}

struct Walker<'a> {
    module: &'a Module,
    f: &'a Function,
    global: [u64; 3],
    vars: VarInfo,
    out: KernelAccesses,
    helper_info: HashMap<Handle<Function>, Box<VarInfo>>,
    /// Variables recognised as counters of counted loops.
    counters: Vec<u32>,
    /// Argument values of helper calls being evaluated (kept for the frames that borrow them).
    arg_store: Vec<Box<[Sym]>>,
}

/// The frame symbolic evaluation runs in: the kernel, or a helper with its arguments.
#[derive(Clone, Copy)]
struct Frame<'a> {
    f: &'a Function,
    args: Option<&'a [Sym]>,
    vars: &'a VarInfo,
}

impl<'a> Walker<'a> {
    fn blocker(&mut self, reason: String, span: Span) {
        self.out.blockers.push(Refusal::new(reason, span));
    }

    fn opaque(&mut self, param: u32, reason: String, span: Span) {
        if self.out.opaque_reason(param).is_none() {
            self.out.opaque.push((param, Refusal::new(reason, span)));
        }
    }

    fn block(&mut self, block: &Block, ctx: &Ctx) {
        for (statement, span) in block.iter() {
            self.statement(statement, span, ctx);
        }
    }

    fn statement(&mut self, s: &Statement, span: Span, ctx: &Ctx) {
        match s {
            Statement::Declare { init, .. } => {
                if let Some(e) = init {
                    self.expr(*e, Role::Value, ctx);
                }
            }
            Statement::Expression(e) => self.expr(*e, Role::Value, ctx),
            Statement::Block(b) => self.block(b, ctx),
            Statement::If { condition, accept, reject } => {
                self.expr(*condition, Role::Value, ctx);
                let cond = self.cond(*condition);
                let mut yes = ctx.clone();
                yes.guard = Cond::and(ctx.guard.clone(), cond.clone());
                self.block(accept, &yes);
                let mut no = ctx.clone();
                no.guard = Cond::and(ctx.guard.clone(), Cond::not(cond));
                self.block(reject, &no);
            }
            Statement::Loop { form, init, condition, update, body, .. } => {
                self.block(init, ctx);
                let mut inner = ctx.clone();
                inner.in_loop = true;
                if let Some(bound) = self.counted_loop(*form, init, *condition, *update) {
                    inner.loops.push(bound);
                }
                if let Some(c) = condition {
                    self.expr(*c, Role::Value, &inner);
                }
                if let Some(u) = update {
                    self.expr(*u, Role::Value, &inner);
                }
                self.block(body, &inner);
            }
            Statement::Switch { selector, cases } => {
                self.expr(*selector, Role::Value, ctx);
                let mut inner = ctx.clone();
                inner.guard = Cond::and(ctx.guard.clone(), Cond::Unknown("a switch".into()));
                for case in cases {
                    self.block(&case.body, &inner);
                }
            }
            Statement::Return(Some(e)) => self.expr(*e, Role::Value, ctx),
            Statement::Return(None) => {
                if !ctx.guard.eq(&Cond::True) || ctx.in_loop {
                    // An early return changes what follows into guarded code; refuse rather
                    // than track it.
                    self.blocker(
                        "an early `return` (the analysis follows `if` guards only)".into(),
                        span,
                    );
                }
            }
            Statement::Barrier(_) => {
                self.blocker("`barrier` is a work-group collective".into(), span)
            }
            Statement::MemFence { .. } => {
                self.blocker("a memory fence orders work-items of a group".into(), span)
            }
            Statement::Break | Statement::Continue => {}
        }
    }

    /// `for (int v = lo; v < hi; v++)` (also `<=`, `+= 1`, `++v`), with `v` written nowhere
    /// else.
    fn counted_loop(
        &mut self,
        form: LoopForm,
        init: &Block,
        condition: Option<Handle<Expression>>,
        update: Option<Handle<Expression>>,
    ) -> Option<LoopBound> {
        if form != LoopForm::For {
            return None;
        }
        let f = self.f;
        let (var, lo) = match init.statements.first()? {
            Statement::Declare { variable, init: Some(e) } => (variable.index() as u32, *e),
            _ => return None,
        };
        let update = update?;
        let steps_by_one = match &f.expressions[update] {
            Expression::IncDec { place, increment: true, .. } => self.is_var(*place, var),
            Expression::CompoundAssign { op: BinaryOp::Add, place, value, .. } => {
                self.is_var(*place, var) && self.value(*value).ok() == Some(Sym::Const(1))
            }
            _ => false,
        };
        let other_writes =
            self.vars.writes.get(&var).map_or(0, |w| w.iter().filter(|h| **h != update).count());
        if !steps_by_one || other_writes > 0 {
            return None;
        }
        let Expression::Binary { op, lhs, rhs } = &f.expressions[strip_convert(f, condition?)]
        else {
            return None;
        };
        if !self.is_var_value(*lhs, var) {
            return None;
        }
        let bound = self.value(*rhs).ok()?;
        let hi = match op {
            BinaryOp::Lt => bound,
            BinaryOp::Le => Sym::add(bound, Sym::Const(1)),
            _ => return None,
        };
        let lo = self.value(lo).ok()?;
        self.counters.push(var);
        Some(LoopBound { var, lo, hi })
    }

    fn is_var(&self, place: Handle<Expression>, var: u32) -> bool {
        matches!(self.f.expressions[place], Expression::Variable(VariableRef::Local(v)) if v.index() as u32 == var)
    }

    fn is_var_value(&self, e: Handle<Expression>, var: u32) -> bool {
        match &self.f.expressions[strip_convert(self.f, e)] {
            Expression::Load(p) => self.is_var(*p, var),
            _ => false,
        }
    }

    fn pointer_param(&self, e: Handle<Expression>) -> Option<u32> {
        let Expression::Load(p) = &self.f.expressions[e] else { return None };
        let Expression::Variable(VariableRef::Param(k)) = self.f.expressions[*p] else {
            return None;
        };
        let ty = self.f.params.get(k as usize)?.ty;
        match self.module.types[ty] {
            TypeInner::Pointer { space: AddressSpace::Global | AddressSpace::Constant, .. } => {
                Some(k)
            }
            _ => None,
        }
    }

    fn expr(&mut self, e: Handle<Expression>, role: Role, ctx: &Ctx) {
        let f = self.f;
        let span = f.expressions.span(e);
        match &f.expressions[e] {
            Expression::Index { base, index } => {
                if let Some(param) = self.pointer_param(*base) {
                    let kind = match role {
                        Role::Value => AccessKind::Read,
                        Role::Write => AccessKind::Write,
                        Role::ReadWrite => AccessKind::ReadWrite,
                        Role::AddressTaken => {
                            self.opaque(param, "its element's address is taken".into(), span);
                            AccessKind::ReadWrite
                        }
                    };
                    let value = self.value(*index);
                    self.out.accesses.push(Access {
                        param,
                        kind,
                        index: value,
                        guard: ctx.guard.clone(),
                        loops: ctx.loops.clone(),
                        in_loop: ctx.in_loop,
                        place: e,
                        span,
                    });
                } else {
                    self.expr(*base, role, ctx);
                }
                self.expr(*index, Role::Value, ctx);
            }
            Expression::Member { base, .. } | Expression::Swizzle { base, .. } => {
                self.expr(*base, role, ctx)
            }
            Expression::Load(p) => self.expr(*p, Role::Value, ctx),
            Expression::AddressOf(p) | Expression::Decay(p) => {
                self.expr(*p, Role::AddressTaken, ctx)
            }
            Expression::Assign { place, value } => {
                self.expr(*place, Role::Write, ctx);
                self.expr(*value, Role::Value, ctx);
            }
            Expression::CompoundAssign { place, value, .. } => {
                self.expr(*place, Role::ReadWrite, ctx);
                self.expr(*value, Role::Value, ctx);
            }
            Expression::IncDec { place, .. } => self.expr(*place, Role::ReadWrite, ctx),
            Expression::Variable(VariableRef::Param(k)) => {
                // A pointer parameter reached other than as `p[i]`.
                if let Some(p) = f.params.get(*k as usize) {
                    if matches!(
                        self.module.types[p.ty],
                        TypeInner::Pointer {
                            space: AddressSpace::Global | AddressSpace::Constant,
                            ..
                        }
                    ) {
                        self.opaque(
                            *k,
                            format!("the pointer `{}` is used other than by indexing", p.name),
                            span,
                        );
                    }
                }
            }
            Expression::Builtin { function, args } => {
                match function {
                    Builtin::WorkItem(w) => {
                        if !matches!(
                            w,
                            WorkItemFunction::GlobalId
                                | WorkItemFunction::GlobalSize
                                | WorkItemFunction::WorkDim
                        ) {
                            self.blocker(
                                format!(
                                    "`{}` depends on the work-group shape, which fusion changes",
                                    w.name()
                                ),
                                span,
                            );
                        }
                    }
                    Builtin::Atomic { .. } => {
                        self.blocker(format!("`{}` is an atomic update", function.name()), span)
                    }
                    Builtin::AsyncCopy { .. } | Builtin::WaitGroupEvents => self
                        .blocker(format!("`{}` is a work-group collective", function.name()), span),
                    Builtin::Printf => self.blocker(
                        "`printf` would print again for every redundant computation".into(),
                        span,
                    ),
                    // Fusion follows buffers element by element; an image's texels are reached
                    // through coordinates, samplers and formats it does not model.
                    Builtin::ReadImage(_) | Builtin::WriteImage(_) | Builtin::ImageQuery(_) => self
                        .blocker(
                            format!(
                                "`{}` works on an image, which fusion does not analyse",
                                function.name()
                            ),
                            span,
                        ),
                    _ => {}
                }
                for a in args {
                    self.expr(*a, Role::Value, ctx);
                }
            }
            other => {
                for child in operands(other) {
                    self.expr(child, Role::Value, ctx);
                }
            }
        }
    }

    fn kernel_frame(&self) -> Frame<'a> {
        // SAFETY of lifetimes: `vars` lives as long as the walker; the frame is used only
        // during one call.
        Frame { f: self.f, args: None, vars: unsafe_extend(&self.vars) }
    }

    fn value(&mut self, e: Handle<Expression>) -> Result<Sym, String> {
        let frame = self.kernel_frame();
        self.eval(frame, e, 0)
    }

    fn cond(&mut self, e: Handle<Expression>) -> Cond {
        let frame = self.kernel_frame();
        self.eval_cond(frame, e)
    }

    fn eval_cond(&mut self, fr: Frame<'a>, e: Handle<Expression>) -> Cond {
        let f = fr.f;
        match &f.expressions[e] {
            Expression::Convert { value, .. } => self.eval_cond(fr, *value),
            Expression::Binary { op: BinaryOp::LogicalAnd, lhs, rhs } => {
                Cond::and(self.eval_cond(fr, *lhs), self.eval_cond(fr, *rhs))
            }
            Expression::Binary { op: BinaryOp::LogicalOr, lhs, rhs } => {
                Cond::Or(vec![self.eval_cond(fr, *lhs), self.eval_cond(fr, *rhs)])
            }
            Expression::Unary { op: UnaryOp::LogicalNot, operand } => {
                Cond::not(self.eval_cond(fr, *operand))
            }
            Expression::Binary { op, lhs, rhs } if is_comparison(*op) => {
                match (self.eval(fr, *lhs, 0), self.eval(fr, *rhs, 0)) {
                    (Ok(a), Ok(b)) => {
                        compare(*op, a, b).unwrap_or(Cond::Unknown("comparison".into()))
                    }
                    (Err(r), _) | (_, Err(r)) => Cond::Unknown(r),
                }
            }
            _ => match self.eval(fr, e, 0) {
                // `if (n)`: non-zero.
                Ok(v) => Cond::not(Cond::Zero(v)),
                Err(r) => Cond::Unknown(r),
            },
        }
    }

    /// The symbolic value of an integer expression.
    fn eval(&mut self, fr: Frame<'a>, e: Handle<Expression>, depth: u32) -> Result<Sym, String> {
        if depth > 64 {
            return Err("the expression is too deep".into());
        }
        let f = fr.f;
        let ty = f.type_of(e);
        if let TypeInner::Scalar(s) = self.module.types[ty] {
            if !s.is_integer() && s != clmap_lang::ir::Scalar::Bool {
                return Err("a floating-point value".into());
            }
        } else {
            return Err("not an integer scalar".into());
        }
        let d = depth + 1;
        match &f.expressions[e] {
            Expression::Literal(l) => match l {
                Literal::Int { .. } | Literal::Bool(_) => l
                    .as_i128()
                    .and_then(|v| i64::try_from(v).ok())
                    .map(Sym::Const)
                    .ok_or_else(|| "a constant out of range".into()),
                Literal::Float { .. } => Err("a floating-point constant".into()),
            },
            Expression::Convert { value, .. } => self.eval(fr, *value, d),
            Expression::Load(place) => match &f.expressions[*place] {
                Expression::Variable(VariableRef::Param(k)) => match fr.args {
                    Some(args) => {
                        args.get(*k as usize).cloned().ok_or_else(|| "a missing argument".into())
                    }
                    None => Ok(Sym::atom(Atom::Param(*k))),
                },
                Expression::Variable(VariableRef::Local(v)) => {
                    let var = v.index() as u32;
                    let name = &f.locals[*v].name;
                    if let Some(init) = fr.vars.single_value(var) {
                        return self.eval(fr, init, d);
                    }
                    if fr.args.is_none() && self.counters.contains(&var) {
                        Ok(Sym::atom(Atom::Loop(var)))
                    } else {
                        Err(format!("`{name}` is assigned more than once"))
                    }
                }
                Expression::Variable(VariableRef::Global(_)) => {
                    Err("a program-scope variable".into())
                }
                _ => Err("a value loaded from memory (data-dependent)".into()),
            },
            Expression::Unary { op: UnaryOp::Negate, operand } => {
                Ok(Sym::mul(Sym::Const(-1), self.eval(fr, *operand, d)?))
            }
            Expression::Binary { op, lhs, rhs } => {
                let a = self.eval(fr, *lhs, d)?;
                let b = self.eval(fr, *rhs, d)?;
                match op {
                    BinaryOp::Add => Ok(Sym::add(a, b)),
                    BinaryOp::Sub => Ok(Sym::sub(a, b)),
                    BinaryOp::Mul => Ok(Sym::mul(a, b)),
                    BinaryOp::Shl => match b.constant() {
                        Some(s) if (0..31).contains(&s) => Ok(Sym::mul(a, Sym::Const(1 << s))),
                        _ => Err("a shift by a non-constant".into()),
                    },
                    BinaryOp::Div
                    | BinaryOp::Rem
                    | BinaryOp::Shr
                    | BinaryOp::BitAnd
                    | BinaryOp::BitOr
                    | BinaryOp::BitXor => match (a.constant(), b.constant()) {
                        (Some(x), Some(y)) => fold(*op, x, y)
                            .map(Sym::Const)
                            .ok_or_else(|| "a constant division by zero".into()),
                        _ => Err(format!("`{}` is not affine", op.as_str())),
                    },
                    _ => Err(format!("`{}` on indices", op.as_str())),
                }
            }
            Expression::Builtin { function: Builtin::WorkItem(w), args } => {
                let dim = match args.first() {
                    Some(a) => self
                        .eval(fr, *a, d)?
                        .constant()
                        .ok_or("a work-item query of a non-constant dimension")?,
                    None => 0,
                };
                let dim =
                    u8::try_from(dim).ok().filter(|d| *d < 3).ok_or("a dimension out of range")?;
                match w {
                    WorkItemFunction::GlobalId => Ok(Sym::atom(Atom::GlobalId(dim))),
                    WorkItemFunction::GlobalSize => {
                        Ok(Sym::Const(self.global[dim as usize] as i64))
                    }
                    _ => Err(format!("`{}`", w.name())),
                }
            }
            Expression::Builtin { function: Builtin::Common(c), args } => {
                let vals: Result<Vec<Sym>, String> =
                    args.iter().map(|a| self.eval(fr, *a, d)).collect();
                let mut vals = vals?;
                match (c, vals.len()) {
                    (CommonFunction::Min, 2) => {
                        let b = vals.pop().unwrap_or(Sym::Const(0));
                        let a = vals.pop().unwrap_or(Sym::Const(0));
                        Ok(Sym::min(a, b))
                    }
                    (CommonFunction::Max, 2) => {
                        let b = vals.pop().unwrap_or(Sym::Const(0));
                        let a = vals.pop().unwrap_or(Sym::Const(0));
                        Ok(Sym::max(a, b))
                    }
                    (CommonFunction::Clamp, 3) => {
                        let hi = vals.pop().unwrap_or(Sym::Const(0));
                        let lo = vals.pop().unwrap_or(Sym::Const(0));
                        let x = vals.pop().unwrap_or(Sym::Const(0));
                        Ok(Sym::min(Sym::max(x, lo), hi))
                    }
                    _ => Err(format!("`{}`", c.name())),
                }
            }
            Expression::Call { function, args } => {
                let vals: Result<Vec<Sym>, String> =
                    args.iter().map(|a| self.eval(fr, *a, d)).collect();
                let vals = vals?;
                self.call(*function, vals, d)
            }
            Expression::Comma { rhs, .. } => self.eval(fr, *rhs, d),
            Expression::Conditional { .. } => Err("a `?:` choice".into()),
            _ => Err("an expression the analysis does not follow".into()),
        }
    }

    /// A helper that computes its result as `[declarations;] return expr;`.
    fn call(
        &mut self,
        function: Handle<Function>,
        args: Vec<Sym>,
        depth: u32,
    ) -> Result<Sym, String> {
        let callee: &'a Function = &self.module.functions[function];
        let info =
            self.helper_info.entry(function).or_insert_with(|| Box::new(VarInfo::of(callee)));
        let info: &'a VarInfo = unsafe_extend(&**info);
        let statements = &callee.body.statements;
        let Some((Statement::Return(Some(result)), before)) = statements.split_last() else {
            return Err(format!("helper `{}` is more than `return expression;`", callee.name));
        };
        if before.iter().any(|s| !matches!(s, Statement::Declare { init: Some(_), .. })) {
            return Err(format!("helper `{}` is more than `return expression;`", callee.name));
        }
        self.arg_store.push(args.into_boxed_slice());
        let args: &'a [Sym] = unsafe_extend(&*self.arg_store[self.arg_store.len() - 1]);
        let frame = Frame { f: callee, args: Some(args), vars: info };
        self.eval(frame, *result, depth)
    }
}

/// Lifetimes of the walker's own tables, which outlive every evaluation that borrows them.
fn unsafe_extend<'a, T: ?Sized>(value: &T) -> &'a T {
    // SAFETY: callers pass tables owned by the walker (or boxed in its map, which never
    // removes entries) and use the reference only while the walker lives.
    unsafe { &*(value as *const T) }
}

fn strip_convert(f: &Function, mut e: Handle<Expression>) -> Handle<Expression> {
    while let Expression::Convert { value, .. } = &f.expressions[e] {
        e = *value;
    }
    e
}

fn is_comparison(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
    )
}

fn fold(op: BinaryOp, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        BinaryOp::Div => a.checked_div(b)?,
        BinaryOp::Rem => a.checked_rem(b)?,
        BinaryOp::Shr => a.checked_shr(u32::try_from(b).ok()?)?,
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        _ => return None,
    })
}
