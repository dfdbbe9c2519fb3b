//! One pass over a kernel that records every use of local memory (stores, loads, barriers,
//! declarations, anything else) together with the symbolic values of indexes and stored
//! values at that point (seed 000 §IV-A, candidate detection, and §IV-B, index trees).
//!
//! The walk is an abstract interpretation of the structured body: a map from private
//! variables to their current [`Sym`], split at `if`s (a variable assigned in a branch becomes
//! opaque after it) and at loops (induction variables become [`Atom::LoopVar`]; a variable
//! carried from one iteration to the next is followed when its value is a function of the
//! induction variable, as in the Parboil stencil's register planes).

use crate::index_expr::{same_value, work_item_atom, Sym};
use crate::poly::Atom;
use clmap_lang::ir::{
    AddressSpace, BinaryOp, Block, Builtin, Expression, Function, Handle, Literal, LocalVariable,
    Module, Statement, Type, TypeInner, VariableRef,
};
use clmap_lang::print::print_expression;
use clmap_lang::proc;
use clmap_lang::Span;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::ControlFlow;

/// A `__local` object: a variable declared in the kernel or a `__local` pointer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LocalBuffer {
    Var(Handle<LocalVariable>),
    Param(u32),
}

/// Where an access sits: enclosing loops (outermost first), guards, scope, program order.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub loops: Vec<LoopInfo>,
    /// Conditions of the enclosing `if`s (`None`: an `else` branch or a switch case).
    pub guards: Vec<Option<Sym>>,
    /// Block ids from the function body inwards.
    pub scope: Vec<u32>,
    /// Position in program order.
    pub order: usize,
}

#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub id: u32,
    pub induction: Vec<Handle<LocalVariable>>,
}

#[derive(Clone, Debug)]
pub struct StoreEvent {
    pub buffer: LocalBuffer,
    pub index: Sym,
    pub value: Sym,
    /// The statement that stores (to delete).
    pub statement: Span,
    pub span: Span,
    pub ctx: Context,
}

impl StoreEvent {
    /// The same store: the same place and statement (a helper called twice stores at one
    /// place from two statements, which are two stores).
    pub fn same_store(&self, other: &StoreEvent) -> bool {
        self.span == other.span && self.statement == other.statement
    }
}

#[derive(Clone, Debug)]
pub struct LoadEvent {
    pub buffer: LocalBuffer,
    pub index: Sym,
    /// The text `buf[index]` to replace.
    pub span: Span,
    pub ctx: Context,
    /// Private variables in scope that hold exactly one atom (`lx` for `get_local_id(0)`),
    /// used to print solutions with the user's names.
    pub names: Vec<(Atom, String)>,
}

#[derive(Clone, Debug)]
pub struct BarrierEvent {
    pub span: Span,
    pub global_fence: bool,
}

/// A local pointer handed to a helper function.
#[derive(Clone, Debug)]
pub struct HelperArgEvent {
    pub buffer: LocalBuffer,
    pub callee: Handle<clmap_lang::ir::Function>,
    pub param: usize,
    pub arg_span: Span,
}

/// Everything the walk found, in program order per kind.
#[derive(Clone, Debug, Default)]
pub struct Events {
    pub stores: Vec<StoreEvent>,
    pub loads: Vec<LoadEvent>,
    pub barriers: Vec<BarrierEvent>,
    pub helper_args: Vec<HelperArgEvent>,
    /// Uses that make a buffer ineligible, with the reason.
    pub other: Vec<(LocalBuffer, String, Span)>,
    pub declarations: Vec<(LocalBuffer, Span)>,
    /// Number of definitions of every private variable (declaration with initialiser,
    /// assignments, updates).
    pub definitions: HashMap<Handle<LocalVariable>, usize>,
    /// Scope and order at which each variable is declared.
    pub declared_at: HashMap<Handle<LocalVariable>, (Vec<u32>, usize)>,
}

/// Deepest nesting of blocks the walk follows.
const MAX_DEPTH: usize = 200;
/// Largest symbolic value followed, in nodes.
const MAX_SYM_NODES: usize = 512;
/// Deepest expression nesting followed.
const MAX_EVAL_DEPTH: usize = 256;
/// Rounds of the loop-carried value search.
const CARRY_ROUNDS: usize = 3;

pub struct Walker<'a> {
    module: &'a Module,
    f: &'a Function,
    env: HashMap<Handle<LocalVariable>, Sym>,
    ctx: Context,
    next_id: u32,
    order: usize,
    record: bool,
    /// Pointer parameters written through (not cacheable).
    written_params: BTreeSet<u32>,
    assigned_params: BTreeSet<u32>,
    pub events: Events,
    pub too_deep: bool,
    depth: usize,
    /// Set while the body of a staging helper is walked in place of its call.
    frame: Option<HelperFrame>,
}

/// A helper function that stores into local memory, walked at its call: its parameters are
/// what the call passes, and its stores are deleted with the call statement.
#[derive(Clone, Debug)]
struct HelperFrame {
    name: String,
    params: Vec<ParamBinding>,
    call_statement: Span,
}

/// What a helper's parameter is at one call.
#[derive(Clone, Debug)]
enum ParamBinding {
    /// A value (an index, the value to store).
    Value(Sym),
    /// The kernel's local buffer.
    Local(LocalBuffer),
    /// A `__global`/`__constant` parameter of the kernel it never writes.
    Global(u32, String),
    Other,
}

/// How deep helpers that pass parameters on are followed when deciding what they write.
const MAX_HELPER_DEPTH: usize = 8;

impl<'a> Walker<'a> {
    pub fn new(module: &'a Module, f: &'a Function) -> Self {
        let (written_params, assigned_params) = written_parameters(module, f, 0);
        Walker {
            module,
            f,
            env: HashMap::new(),
            ctx: Context::default(),
            next_id: 1,
            order: 0,
            record: true,
            written_params,
            assigned_params,
            events: Events::default(),
            too_deep: false,
            depth: 0,
            frame: None,
        }
    }

    /// Walks the whole body.
    pub fn run(mut self) -> Events {
        for (h, _) in self.f.locals.iter() {
            self.events.definitions.insert(h, 0);
        }
        count_definitions(self.f, &mut self.events.definitions);
        let body = &self.f.body;
        self.ctx.scope.push(0);
        self.block(body);
        if self.too_deep {
            self.events.other.push((
                LocalBuffer::Param(u32::MAX),
                "the kernel nests blocks too deeply to analyse".into(),
                self.f.span,
            ));
        }
        self.events
    }

    fn ty_of(&self, e: Handle<Expression>) -> Handle<Type> {
        self.f.expression_types.get(e.index()).copied().unwrap_or(Handle::from_index(0))
    }

    fn inner(&self, ty: Handle<Type>) -> Option<&TypeInner> {
        self.module.types.get(ty)
    }

    fn expr(&self, e: Handle<Expression>) -> Option<&'a Expression> {
        self.f.expressions.get(e)
    }

    fn block(&mut self, b: &Block) {
        if self.ctx.scope.len() > MAX_DEPTH {
            self.too_deep = true;
            return;
        }
        for (statement, span) in b.iter() {
            self.statement(statement, span);
        }
    }

    fn fresh_scope(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn statement(&mut self, s: &Statement, span: Span) {
        self.order += 1;
        self.ctx.order = self.order;
        match s {
            Statement::Declare { init: Some(e), .. } | Statement::If { condition: e, .. }
                if self.frame.is_some() && self.has_effect_in_helper(*e) =>
            {
                self.refuse_helper("does more than store into the local buffer", span);
            }
            Statement::Declare { variable, init } => {
                let Some(var) = self.f.locals.get(*variable) else { return };
                if var.space == AddressSpace::Local {
                    if self.record {
                        self.events.declarations.push((LocalBuffer::Var(*variable), span));
                    }
                    return;
                }
                let value = match init {
                    Some(e) => self.eval(*e),
                    None => Sym::Opaque(format!("`{}` has no initial value", var.name)),
                };
                if self.record && self.frame.is_none() {
                    self.events.declared_at.insert(*variable, (self.ctx.scope.clone(), self.order));
                }
                self.env.insert(*variable, value);
            }
            Statement::Expression(e) => {
                self.eval_statement(*e, span);
            }
            Statement::Block(b) => {
                let id = self.fresh_scope();
                self.ctx.scope.push(id);
                self.block(b);
                self.ctx.scope.pop();
            }
            Statement::If { condition, accept, reject } => {
                let c = self.eval(*condition);
                let before = self.env.clone();
                let id = self.fresh_scope();
                self.ctx.scope.push(id);
                self.ctx.guards.push(Some(c));
                self.block(accept);
                self.ctx.guards.pop();
                self.ctx.scope.pop();
                let after_accept = std::mem::replace(&mut self.env, before.clone());
                let id = self.fresh_scope();
                self.ctx.scope.push(id);
                self.ctx.guards.push(None);
                self.block(reject);
                self.ctx.guards.pop();
                self.ctx.scope.pop();
                self.merge(&before, &after_accept);
            }
            Statement::Loop { .. } | Statement::Switch { .. } | Statement::Barrier(_)
                if self.frame.is_some() =>
            {
                self.refuse_helper("contains a loop, a switch or a barrier", span);
            }
            Statement::Loop { init, condition, update, body, .. } => {
                self.loop_statement(init, *condition, *update, body);
            }
            Statement::Switch { selector, cases } => {
                self.eval(*selector);
                let before = self.env.clone();
                let mut ends = Vec::new();
                for case in cases {
                    self.env = before.clone();
                    let id = self.fresh_scope();
                    self.ctx.scope.push(id);
                    self.ctx.guards.push(None);
                    self.block(&case.body);
                    self.ctx.guards.pop();
                    self.ctx.scope.pop();
                    ends.push(self.env.clone());
                }
                self.env = before.clone();
                for end in ends {
                    self.merge(&before, &end);
                }
            }
            Statement::Barrier(flags) => {
                if self.record {
                    self.events.barriers.push(BarrierEvent { span, global_fence: flags.global });
                }
            }
            Statement::Return(Some(e)) => {
                self.eval(*e);
            }
            Statement::Break
            | Statement::Continue
            | Statement::Return(None)
            | Statement::MemFence { .. } => {}
        }
    }

    /// After a branch: variables whose value differs between the two ends are unknown.
    fn merge(
        &mut self,
        before: &HashMap<Handle<LocalVariable>, Sym>,
        other: &HashMap<Handle<LocalVariable>, Sym>,
    ) {
        let keys: Vec<_> = self.env.keys().chain(other.keys()).copied().collect();
        for k in keys {
            let a = self.env.get(&k);
            let b = other.get(&k);
            let same = match (a, b) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            };
            if !same && before.contains_key(&k) {
                let name = self.var_name(k);
                self.env.insert(k, Sym::Opaque(format!("`{name}` is assigned under a condition")));
            } else if !same {
                self.env.remove(&k);
            }
        }
    }

    fn var_name(&self, v: Handle<LocalVariable>) -> String {
        self.f.locals.get(v).map(|l| l.name.clone()).unwrap_or_default()
    }

    fn loop_statement(
        &mut self,
        init: &Block,
        condition: Option<Handle<Expression>>,
        update: Option<Handle<Expression>>,
        body: &Block,
    ) {
        let id = self.fresh_scope();
        self.ctx.scope.push(id);
        self.block(init);
        let mut assigned = BTreeSet::new();
        let mut in_update = BTreeSet::new();
        if let Some(u) = update {
            assigned_variables(self.f, u, &mut in_update);
        }
        if let Some(c) = condition {
            assigned_variables(self.f, c, &mut assigned);
        }
        assigned_in_block(self.f, body, &mut assigned);
        let induction: Vec<_> =
            in_update.iter().copied().filter(|v| !assigned.contains(v)).collect();
        let carried: Vec<_> = assigned
            .iter()
            .chain(in_update.iter())
            .copied()
            .filter(|v| !induction.contains(v))
            .collect();

        let before = self.env.clone();
        let mut entry = before.clone();
        for &v in &induction {
            let ty = self.f.locals.get(v).map(|l| l.ty).unwrap_or(Handle::from_index(0));
            entry.insert(v, Sym::Atom(Atom::LoopVar(v), ty));
        }
        for &v in &carried {
            let name = self.var_name(v);
            entry
                .insert(v, Sym::Opaque(format!("`{name}` changes from one iteration to the next")));
        }
        // Follow values carried across iterations (`current = top` at the end of the body)
        // when they are a function of one induction variable with a constant step.
        if let Some(step) = update.and_then(|u| self.constant_step(u, &induction)) {
            let (k, s) = step;
            for _ in 0..CARRY_ROUNDS {
                let saved_record = std::mem::replace(&mut self.record, false);
                let saved_order = self.order;
                self.env = entry.clone();
                self.ctx.loops.push(LoopInfo { id, induction: induction.clone() });
                let bid = self.fresh_scope();
                self.ctx.scope.push(bid);
                self.block(body);
                self.ctx.scope.pop();
                self.ctx.loops.pop();
                self.record = saved_record;
                self.order = saved_order;
                let end = std::mem::take(&mut self.env);
                let mut changed = false;
                for &v in &carried {
                    if entry.get(&v).is_some_and(|s| s.opaque_reason().is_none()) {
                        continue;
                    }
                    let (Some(last), Some(initial)) = (end.get(&v), before.get(&v)) else {
                        continue;
                    };
                    if last.opaque_reason().is_some() {
                        continue;
                    }
                    let ty = self.f.locals.get(k).map(|l| l.ty).unwrap_or(Handle::from_index(0));
                    let previous = Sym::Binary {
                        op: BinaryOp::Sub,
                        lhs: Box::new(Sym::Atom(Atom::LoopVar(k), ty)),
                        rhs: Box::new(Sym::Int(s, ty)),
                        ty,
                    };
                    let proposed = last.substitute(&BTreeMap::from([(Atom::LoopVar(k), previous)]));
                    let Some(k0) = before.get(&k) else { continue };
                    let at_start =
                        proposed.substitute(&BTreeMap::from([(Atom::LoopVar(k), k0.clone())]));
                    if same_value(&at_start, initial) {
                        entry.insert(v, proposed);
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        self.env = entry;
        self.ctx.loops.push(LoopInfo { id, induction });
        if let Some(c) = condition {
            self.eval(c);
        }
        let bid = self.fresh_scope();
        self.ctx.scope.push(bid);
        self.block(body);
        self.ctx.scope.pop();
        if let Some(u) = update {
            self.eval(u);
        }
        self.ctx.loops.pop();
        self.ctx.scope.pop();
        let mut after = before;
        for v in assigned.iter().chain(in_update.iter()) {
            if after.contains_key(v) {
                let name = self.var_name(*v);
                after.insert(*v, Sym::Opaque(format!("`{name}` after a loop that changes it")));
            }
        }
        self.env = after;
    }

    /// `k++`, `++k`, `k += c`: the induction variable and its constant step.
    fn constant_step(
        &self,
        update: Handle<Expression>,
        induction: &[Handle<LocalVariable>],
    ) -> Option<(Handle<LocalVariable>, i128)> {
        let var_of = |place: Handle<Expression>| match self.expr(place) {
            Some(Expression::Variable(VariableRef::Local(v))) if induction.contains(v) => Some(*v),
            _ => None,
        };
        match self.expr(update)? {
            Expression::IncDec { place, increment, .. } => {
                Some((var_of(*place)?, if *increment { 1 } else { -1 }))
            }
            Expression::CompoundAssign { op: BinaryOp::Add, place, value, .. } => {
                let c = self.literal_int(*value)?;
                Some((var_of(*place)?, c))
            }
            _ => None,
        }
    }

    fn literal_int(&self, e: Handle<Expression>) -> Option<i128> {
        match self.expr(e)? {
            Expression::Literal(l) => l.as_i128(),
            Expression::Convert { value, .. } => self.literal_int(*value),
            _ => None,
        }
    }

    fn eval_statement(&mut self, e: Handle<Expression>, span: Span) {
        // A statement that stores into local memory: remember the statement for deletion
        // (inside a staging helper, the call that runs it).
        if let Some(Expression::Assign { place, value }) = self.expr(e) {
            if let Some((buffer, index)) = self.local_place(*place) {
                let value_sym = self.eval(*value);
                if self.record {
                    let place_span = self.f.expressions.span(*place);
                    let statement = self.frame.as_ref().map_or(span, |h| h.call_statement);
                    self.events.stores.push(StoreEvent {
                        buffer,
                        index,
                        value: value_sym,
                        statement,
                        span: place_span,
                        ctx: self.ctx.clone(),
                    });
                }
                return;
            }
        }
        // A helper may compute into its own private variables, nothing else.
        if self.frame.is_some() && self.has_effect_in_helper(e) {
            self.refuse_helper("does more than store into the local buffer", span);
            return;
        }
        if let Some(Expression::Call { function, args }) = self.expr(e) {
            if self.frame.is_none() && self.stores_through_local(*function, args) {
                self.walk_store_helper(*function, args, span);
                return;
            }
        }
        self.eval(e);
    }

    /// Whether a call hands a local buffer to a helper that writes through it.
    fn stores_through_local(
        &self,
        callee: Handle<clmap_lang::ir::Function>,
        args: &[Handle<Expression>],
    ) -> bool {
        let Some(g) = self.module.functions.get(callee) else { return false };
        let written = written_parameters(self.module, g, 0).0;
        args.iter()
            .enumerate()
            .any(|(i, a)| self.local_pointer(*a).is_some() && written.contains(&(i as u32)))
    }

    /// Walks a staging helper's body at its call, with its parameters bound to the call's
    /// arguments, so its stores are the kernel's stores (seen at the call, in the kernel's
    /// loops and guards) and its indexes and values are in the kernel's terms.
    fn walk_store_helper(
        &mut self,
        callee: Handle<clmap_lang::ir::Function>,
        args: &[Handle<Expression>],
        call_statement: Span,
    ) {
        let Some(g) = self.module.functions.get(callee) else { return };
        let mut params = Vec::with_capacity(args.len());
        for &a in args {
            let binding = if let Some(buffer) = self.local_pointer(a) {
                if !self.plain_local_pointer(a) {
                    self.other(
                        buffer,
                        "passes a pointer into the middle of it to a function".into(),
                        call_statement,
                    );
                }
                ParamBinding::Local(buffer)
            } else if let Some((p, name)) = self.global_param(a) {
                ParamBinding::Global(p, name)
            } else {
                let value = self.eval(a);
                let is_pointer =
                    matches!(self.inner(self.ty_of(a)), Some(TypeInner::Pointer { .. }));
                if is_pointer {
                    ParamBinding::Other
                } else {
                    ParamBinding::Value(value)
                }
            };
            params.push(binding);
        }
        let (written, assigned) = written_parameters(self.module, g, 0);
        let frame = HelperFrame { name: g.name.clone(), params, call_statement };
        let saved_f = std::mem::replace(&mut self.f, g);
        let saved_env = std::mem::take(&mut self.env);
        let saved_written = std::mem::replace(&mut self.written_params, written);
        let saved_assigned = std::mem::replace(&mut self.assigned_params, assigned);
        self.frame = Some(frame);
        let id = self.fresh_scope();
        self.ctx.scope.push(id);
        self.block(&g.body);
        self.ctx.scope.pop();
        self.frame = None;
        self.f = saved_f;
        self.env = saved_env;
        self.written_params = saved_written;
        self.assigned_params = saved_assigned;
    }

    /// Inside a staging helper, whether an expression does anything that deleting the call
    /// would lose (a call, a memory-touching built-in, a store other than to a private
    /// variable of the helper).
    fn has_effect_in_helper(&self, e: Handle<Expression>) -> bool {
        let f = self.f;
        let flow = proc::visit_expression_tree(f, e, &mut |_, expr| match expr {
            Expression::Call { .. } => ControlFlow::Break(()),
            Expression::Builtin { function, .. }
                if function.touches_memory() || matches!(function, Builtin::Printf) =>
            {
                ControlFlow::Break(())
            }
            Expression::Assign { place, .. }
            | Expression::CompoundAssign { place, .. }
            | Expression::IncDec { place, .. } => match f.expressions.get(*place) {
                Some(Expression::Variable(VariableRef::Local(_))) => ControlFlow::Continue(()),
                _ => ControlFlow::Break(()),
            },
            _ => ControlFlow::Continue(()),
        });
        flow.is_break()
    }

    /// Inside a staging helper: what the helper does besides storing makes every local
    /// buffer it receives ineligible.
    fn refuse_helper(&mut self, what: &str, span: Span) {
        let Some(frame) = &self.frame else { return };
        let reason = format!("calls the staging helper `{}`, which {what}", frame.name);
        let buffers: Vec<LocalBuffer> = frame
            .params
            .iter()
            .filter_map(|b| match b {
                ParamBinding::Local(buffer) => Some(*buffer),
                _ => None,
            })
            .collect();
        for buffer in buffers {
            self.other(buffer, reason.clone(), span);
        }
    }

    /// The binding of a helper parameter while a staging helper is walked.
    fn frame_param(&self, i: u32) -> Option<&ParamBinding> {
        self.frame.as_ref()?.params.get(i as usize)
    }

    /// The local buffer and flattened element index a place designates, if it is one.
    fn local_place(&mut self, place: Handle<Expression>) -> Option<(LocalBuffer, Sym)> {
        let Expression::Index { base, index } = self.expr(place)? else { return None };
        let (buffer, outer, stride) = self.local_base(*base)?;
        let ty = self.ty_of(*index);
        let i = self.eval(*index);
        let flat = match outer {
            None => i,
            Some(o) => Sym::Binary {
                op: BinaryOp::Add,
                lhs: Box::new(Sym::Binary {
                    op: BinaryOp::Mul,
                    lhs: Box::new(o),
                    rhs: Box::new(Sym::Int(i128::from(stride), ty)),
                    ty,
                }),
                rhs: Box::new(i),
                ty,
            },
        };
        Some((buffer, flat))
    }

    /// The buffer behind the base of an index, with the outer index of a 2D array and the
    /// length of its rows.
    fn local_base(&mut self, base: Handle<Expression>) -> Option<(LocalBuffer, Option<Sym>, u32)> {
        match self.expr(base)? {
            Expression::Load(p) => match self.expr(*p)? {
                Expression::Variable(VariableRef::Param(i)) => {
                    if self.frame.is_some() {
                        return match self.frame_param(*i)? {
                            ParamBinding::Local(buffer) => Some((*buffer, None, 1)),
                            _ => None,
                        };
                    }
                    let ty = self.f.params.get(*i as usize)?.ty;
                    match self.inner(ty)? {
                        TypeInner::Pointer { space: AddressSpace::Local, .. } => {
                            Some((LocalBuffer::Param(*i), None, 1))
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
            Expression::Variable(VariableRef::Local(v)) => {
                let var = self.f.locals.get(*v)?;
                (var.space == AddressSpace::Local).then_some((LocalBuffer::Var(*v), None, 1))
            }
            Expression::Index { base: inner_base, index } => {
                // `lm[y][x]`: the row length comes from the row's array type.
                let row_ty = self.ty_of(base);
                let len = match self.inner(row_ty)? {
                    TypeInner::Array { len, .. } => *len,
                    _ => return None,
                };
                let (buffer, outer, stride) = self.local_base(*inner_base)?;
                if outer.is_some() {
                    // Three-dimensional local arrays are not flattened here.
                    let _ = stride;
                    return None;
                }
                let i = self.eval(*index);
                Some((buffer, Some(i), len))
            }
            _ => None,
        }
    }

    /// The local buffer a pointer value points into, if it does.
    fn local_pointer(&self, e: Handle<Expression>) -> Option<LocalBuffer> {
        match self.expr(e)? {
            Expression::Load(p) => match self.expr(*p)? {
                Expression::Variable(VariableRef::Param(i)) if self.frame.is_some() => {
                    match self.frame_param(*i)? {
                        ParamBinding::Local(buffer) => Some(*buffer),
                        _ => None,
                    }
                }
                Expression::Variable(VariableRef::Param(i)) => {
                    let ty = self.f.params.get(*i as usize)?.ty;
                    matches!(self.inner(ty)?, TypeInner::Pointer { space: AddressSpace::Local, .. })
                        .then_some(LocalBuffer::Param(*i))
                }
                _ => None,
            },
            Expression::Decay(p) | Expression::AddressOf(p) => self.local_root(*p),
            Expression::PointerOffset { pointer, .. } => self.local_pointer(*pointer),
            Expression::Convert { value, .. } => self.local_pointer(*value),
            _ => None,
        }
    }

    /// The local buffer a place lies in.
    fn local_root(&self, place: Handle<Expression>) -> Option<LocalBuffer> {
        match self.expr(place)? {
            Expression::Variable(VariableRef::Local(v)) => (self.f.locals.get(*v)?.space
                == AddressSpace::Local)
                .then_some(LocalBuffer::Var(*v)),
            Expression::Index { base, .. } => {
                self.local_root(*base).or_else(|| self.local_pointer(*base))
            }
            Expression::Member { base, .. } | Expression::Swizzle { base, .. } => {
                self.local_root(*base)
            }
            Expression::Deref(p) => self.local_pointer(*p),
            _ => None,
        }
    }

    fn other(&mut self, buffer: LocalBuffer, reason: String, span: Span) {
        if self.record {
            self.events.other.push((buffer, reason, span));
        }
    }

    /// The symbolic value of an expression; records the local accesses inside it. Values
    /// beyond [`MAX_SYM_NODES`] nodes become opaque, which bounds the work on adversarial
    /// kernels (`b = a + a; c = b + b; …` doubles the tree at every line).
    fn eval(&mut self, e: Handle<Expression>) -> Sym {
        self.depth += 1;
        let value = if self.depth > MAX_EVAL_DEPTH {
            // Accesses inside would go unseen: refuse every buffer rather than miss one.
            self.too_deep = true;
            Sym::Opaque("an expression nested too deeply to follow".into())
        } else {
            self.eval_inner(e)
        };
        self.depth -= 1;
        if value.size_at_most(MAX_SYM_NODES) {
            value
        } else {
            Sym::Opaque("an expression too large to follow".into())
        }
    }

    fn eval_inner(&mut self, e: Handle<Expression>) -> Sym {
        let Some(expr) = self.expr(e) else { return Sym::Opaque("a broken expression".into()) };
        let ty = self.ty_of(e);
        let span = self.f.expressions.span(e);
        match expr {
            Expression::Literal(l @ Literal::Int { .. }) => Sym::Int(l.as_i128().unwrap_or(0), ty),
            Expression::Literal(_) => {
                Sym::Literal { text: print_expression(self.module, self.f, e), ty }
            }
            Expression::Load(place) => self.load(*place, ty, span),
            Expression::Assign { place, value } => {
                let v = self.eval(*value);
                match self.expr(*place) {
                    Some(Expression::Variable(VariableRef::Local(var))) => {
                        self.env.insert(*var, v.clone());
                    }
                    _ => {
                        if let Some((buffer, _)) = self.local_place(*place) {
                            self.other(buffer, "stores into it inside an expression".into(), span);
                        } else if let Some(buffer) = self.local_root(*place) {
                            self.other(buffer, "stores into part of an element".into(), span);
                        } else {
                            self.eval_place(*place);
                        }
                    }
                }
                v
            }
            Expression::CompoundAssign { place, value, .. } => {
                self.eval(*value);
                self.update_place(*place, span, "updates it in place (`op=`)");
                Sym::Opaque("an updated value".into())
            }
            Expression::IncDec { place, .. } => {
                self.update_place(*place, span, "updates it in place (`++`/`--`)");
                Sym::Opaque("an updated value".into())
            }
            Expression::Comma { lhs, rhs } => {
                self.eval(*lhs);
                self.eval(*rhs)
            }
            Expression::AddressOf(place) => {
                if let Some(buffer) = self.local_root(*place) {
                    self.other(buffer, "takes the address of an element".into(), span);
                } else {
                    self.eval_place(*place);
                }
                Sym::Opaque("an address".into())
            }
            Expression::Decay(place) => {
                if let Some(buffer) = self.local_root(*place) {
                    self.other(buffer, "uses the array as a pointer".into(), span);
                }
                Sym::Opaque("a pointer".into())
            }
            Expression::Unary { op, operand } => {
                let v = self.eval(*operand);
                Sym::Unary { op: *op, operand: Box::new(v), ty }
            }
            Expression::Binary { op, lhs, rhs } => {
                let l = self.eval(*lhs);
                let r = self.eval(*rhs);
                Sym::Binary { op: *op, lhs: Box::new(l), rhs: Box::new(r), ty }
            }
            Expression::Convert { value, kind } => {
                let v = self.eval(*value);
                Sym::Convert { value: Box::new(v), kind: *kind, ty }
            }
            Expression::Splat(value) => {
                let v = self.eval(*value);
                Sym::Splat { value: Box::new(v), ty }
            }
            Expression::Compose(parts) => {
                let parts = parts.iter().map(|p| self.eval(*p)).collect();
                Sym::Compose { parts, ty }
            }
            Expression::Swizzle { base, components } => {
                let b = self.eval(*base);
                Sym::Swizzle { base: Box::new(b), components: components.clone(), ty }
            }
            Expression::Builtin { function, args } => self.builtin(*function, args, ty, span),
            Expression::Call { function, args } => {
                if self.frame.is_some() && args.iter().any(|a| self.local_pointer(*a).is_some()) {
                    self.refuse_helper("passes the local buffer on to another function", span);
                    return Sym::Opaque("the result of a function call".into());
                }
                for (i, a) in args.iter().enumerate() {
                    if let Some(buffer) = self.local_pointer(*a) {
                        let plain = self.plain_local_pointer(*a);
                        if plain && self.record {
                            self.events.helper_args.push(HelperArgEvent {
                                buffer,
                                callee: *function,
                                param: i,
                                arg_span: self.f.expressions.span(*a),
                            });
                        } else if !plain {
                            self.other(
                                buffer,
                                "passes a pointer into the middle of it to a function".into(),
                                span,
                            );
                        }
                    } else {
                        self.eval(*a);
                    }
                }
                Sym::Opaque("the result of a function call".into())
            }
            Expression::Conditional { condition, accept, reject } => {
                self.eval(*condition);
                self.eval(*accept);
                self.eval(*reject);
                Sym::Opaque("a conditional value".into())
            }
            Expression::PointerOffset { pointer, offset, .. } => {
                if let Some(buffer) = self.local_pointer(*pointer) {
                    self.other(buffer, "does pointer arithmetic on it".into(), span);
                }
                self.eval(*pointer);
                self.eval(*offset);
                Sym::Opaque("a pointer".into())
            }
            Expression::PointerDifference { lhs, rhs }
            | Expression::PointerCompare { lhs, rhs, .. } => {
                self.eval(*lhs);
                self.eval(*rhs);
                Sym::Opaque("a pointer comparison".into())
            }
            Expression::Bitcast(value) => {
                self.eval(*value);
                Sym::Opaque("a reinterpreted value".into())
            }
            Expression::Variable(_)
            | Expression::Index { .. }
            | Expression::Member { .. }
            | Expression::Deref(_) => {
                self.eval_place(e);
                Sym::Opaque("a place".into())
            }
            Expression::StringLiteral(_) | Expression::ZeroValue => {
                Sym::Opaque("a constant".into())
            }
        }
    }

    /// Whether a local pointer argument is the buffer itself (no offset).
    fn plain_local_pointer(&self, e: Handle<Expression>) -> bool {
        match self.expr(e) {
            Some(Expression::Load(_)) => true,
            Some(Expression::Decay(p)) => matches!(self.expr(*p), Some(Expression::Variable(_))),
            Some(Expression::Convert { value, .. }) => self.plain_local_pointer(*value),
            _ => false,
        }
    }

    /// Records the accesses in the index expressions of a place.
    fn eval_place(&mut self, place: Handle<Expression>) {
        match self.expr(place) {
            Some(Expression::Index { base, index }) => {
                let (b, i) = (*base, *index);
                self.eval_place(b);
                self.eval(i);
            }
            Some(Expression::Member { base, .. }) | Some(Expression::Swizzle { base, .. }) => {
                self.eval_place(*base)
            }
            Some(Expression::Deref(p)) => {
                self.eval(*p);
            }
            Some(Expression::Load(_)) => {
                self.eval(place);
            }
            _ => {}
        }
    }

    fn update_place(&mut self, place: Handle<Expression>, span: Span, what: &str) {
        if let Some(buffer) = self.local_root(place) {
            self.other(buffer, what.to_string(), span);
            return;
        }
        if let Some(Expression::Variable(VariableRef::Local(v))) = self.expr(place) {
            let name = self.var_name(*v);
            self.env.insert(*v, Sym::Opaque(format!("`{name}` is updated in place")));
            return;
        }
        self.eval_place(place);
    }

    fn load(&mut self, place: Handle<Expression>, ty: Handle<Type>, span: Span) -> Sym {
        match self.expr(place) {
            Some(Expression::Variable(VariableRef::Local(v))) => {
                let name = self.var_name(*v);
                match self.env.get(v) {
                    // A helper's variables are not in scope at the kernel's loads: their
                    // definitions stand in their place.
                    Some(def) if self.frame.is_some() => def.clone(),
                    Some(def) => Sym::Var { var: *v, name, def: Box::new(def.clone()) },
                    None => Sym::Opaque(format!("`{name}` is not known here")),
                }
            }
            Some(Expression::Variable(VariableRef::Param(i))) if self.frame.is_some() => {
                match (self.frame_param(*i), self.assigned_params.contains(i)) {
                    (Some(ParamBinding::Value(v)), false) => v.clone(),
                    _ => Sym::Opaque("a parameter of the staging helper".into()),
                }
            }
            Some(Expression::Variable(VariableRef::Param(i))) => {
                if self.assigned_params.contains(i) {
                    Sym::Opaque("an assigned parameter".into())
                } else {
                    Sym::Atom(Atom::Param(*i), ty)
                }
            }
            Some(Expression::Index { base, index }) => {
                if let Some((buffer, flat)) = self.local_place(place) {
                    if self.frame.is_some() {
                        self.refuse_helper("also reads the local buffer", span);
                        return Sym::Opaque("a value read from local memory".into());
                    }
                    if self.record {
                        let names = self.atom_names();
                        self.events.loads.push(LoadEvent {
                            buffer,
                            index: flat,
                            span: self.f.expressions.span(place),
                            ctx: self.ctx.clone(),
                            names,
                        });
                    }
                    return Sym::Opaque("a value read from local memory".into());
                }
                let (base, index) = (*base, *index);
                let param = self.global_param(base);
                let i = self.eval(index);
                match param {
                    Some((p, name)) => Sym::GlobalLoad { param: p, name, index: Box::new(i), ty },
                    None => {
                        self.eval_place(base);
                        Sym::Opaque("a value read from memory Grover does not follow".into())
                    }
                }
            }
            Some(Expression::Swizzle { base, components }) => {
                let components = components.clone();
                let base_ty = self.ty_of(*base);
                let b = self.load(*base, base_ty, span);
                Sym::Swizzle { base: Box::new(b), components, ty }
            }
            _ => {
                if let Some(buffer) = self.local_root(place) {
                    self.other(buffer, "reads it in a way Grover does not follow".into(), span);
                }
                self.eval_place(place);
                Sym::Opaque("a value read from memory Grover does not follow".into())
            }
        }
    }

    /// A `__global`/`__constant` pointer parameter the kernel never writes through.
    fn global_param(&self, base: Handle<Expression>) -> Option<(u32, String)> {
        let Expression::Load(p) = self.expr(base)? else { return None };
        let Expression::Variable(VariableRef::Param(i)) = self.expr(*p)? else { return None };
        if self.frame.is_some() {
            return match self.frame_param(*i)? {
                ParamBinding::Global(p, name) if !self.written_params.contains(i) => {
                    Some((*p, name.clone()))
                }
                _ => None,
            };
        }
        let param = self.f.params.get(*i as usize)?;
        let cacheable = matches!(
            self.inner(param.ty)?,
            TypeInner::Pointer { space: AddressSpace::Global | AddressSpace::Constant, .. }
        );
        (cacheable && !self.written_params.contains(i) && !self.assigned_params.contains(i))
            .then(|| (*i, param.name.clone()))
    }

    fn builtin(
        &mut self,
        function: Builtin,
        args: &[Handle<Expression>],
        ty: Handle<Type>,
        span: Span,
    ) -> Sym {
        if let Builtin::WorkItem(w) = function {
            let dim = args.first().and_then(|a| self.literal_int(*a));
            return match (dim, w) {
                (Some(d @ 0..=2), clmap_lang::ir::WorkItemFunction::GlobalId) => {
                    Sym::GlobalId(d as u8, ty)
                }
                (Some(d @ 0..=2), _) => match work_item_atom(w, d as u8) {
                    Some(a) => Sym::Atom(a, ty),
                    None => Sym::Opaque(format!("`{}`", w.name())),
                },
                _ => Sym::Opaque(format!("`{}` of a variable dimension", w.name())),
            };
        }
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            if let Some(buffer) = self.local_pointer(*a) {
                self.other(
                    buffer,
                    match function {
                        Builtin::Atomic { .. } => format!(
                            "updates it with `{}` (a histogram or counter, not a cache)",
                            function.name()
                        ),
                        _ => format!("passes it to `{}`", function.name()),
                    },
                    span,
                );
                values.push(Sym::Opaque("a local pointer".into()));
            } else {
                values.push(self.eval(*a));
            }
        }
        if function.touches_memory() || matches!(function, Builtin::Printf) {
            return Sym::Opaque(format!("the result of `{}`", function.name()));
        }
        Sym::Call { builtin: function, args: values, ty }
    }

    /// Private variables in scope that hold a single atom, for printing solutions.
    fn atom_names(&self) -> Vec<(Atom, String)> {
        let mut names = Vec::new();
        for (v, s) in &self.env {
            if self.events.definitions.get(v) != Some(&1) {
                continue;
            }
            let mut inner = s;
            while let Sym::Convert { value, .. } = inner {
                inner = value;
            }
            if let Sym::Atom(a @ (Atom::LocalId(_) | Atom::GroupId(_) | Atom::LocalSize(_)), _) =
                inner
            {
                names.push((*a, self.var_name(*v)));
            }
        }
        names.sort();
        names
    }
}

/// Parameters stored through (directly, by atomics or vector stores, or handed to helpers
/// that store through them) and parameters assigned.
fn written_parameters(
    module: &Module,
    f: &Function,
    depth: usize,
) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let mut written = BTreeSet::new();
    let mut assigned = BTreeSet::new();
    let root_param = |mut e: Handle<Expression>| -> Option<u32> {
        for _ in 0..64 {
            match f.expressions.get(e)? {
                Expression::Variable(VariableRef::Param(i)) => return Some(*i),
                Expression::Index { base, .. }
                | Expression::Member { base, .. }
                | Expression::Swizzle { base, .. } => e = *base,
                Expression::Load(p) | Expression::Deref(p) | Expression::Decay(p) => e = *p,
                Expression::PointerOffset { pointer, .. } => e = *pointer,
                Expression::Convert { value, .. } => e = *value,
                _ => return None,
            }
        }
        None
    };
    for (_, expr) in f.expressions.iter() {
        match expr {
            Expression::Assign { place, .. }
            | Expression::CompoundAssign { place, .. }
            | Expression::IncDec { place, .. } => {
                if let Some(Expression::Variable(VariableRef::Param(i))) = f.expressions.get(*place)
                {
                    assigned.insert(*i);
                } else if let Some(i) = root_param(*place) {
                    written.insert(i);
                }
            }
            Expression::Builtin { function, args } if function.touches_memory() => {
                for a in args {
                    if let Some(i) = root_param(*a) {
                        written.insert(i);
                    }
                }
            }
            Expression::Call { function, args } => {
                // A helper that only reads through a pointer leaves it a read-only buffer;
                // helpers that pass it on deeper than a few levels count as writing.
                let callee_writes: Option<BTreeSet<u32>> = (depth < MAX_HELPER_DEPTH)
                    .then(|| module.functions.get(*function))
                    .flatten()
                    .map(|g| written_parameters(module, g, depth + 1).0);
                for (j, a) in args.iter().enumerate() {
                    if let Some(i) = root_param(*a) {
                        if callee_writes.as_ref().is_none_or(|w| w.contains(&(j as u32))) {
                            written.insert(i);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (written, assigned)
}

/// Counts definitions of every private variable.
fn count_definitions(f: &Function, counts: &mut HashMap<Handle<LocalVariable>, usize>) {
    for (_, expr) in f.expressions.iter() {
        if let Expression::Assign { place, .. }
        | Expression::CompoundAssign { place, .. }
        | Expression::IncDec { place, .. } = expr
        {
            if let Some(Expression::Variable(VariableRef::Local(v))) = f.expressions.get(*place) {
                *counts.entry(*v).or_insert(0) += 1;
            }
        }
    }
    count_declarations(&f.body, counts);
}

fn count_declarations(b: &Block, counts: &mut HashMap<Handle<LocalVariable>, usize>) {
    let _: ControlFlow<()> = proc::visit_statements(b, &mut |s, _| {
        if let Statement::Declare { variable, init: Some(_) } = s {
            *counts.entry(*variable).or_insert(0) += 1;
        }
        ControlFlow::Continue(())
    });
}

/// Records the private variable `expr` assigns, if it assigns one.
fn record_assigned(
    f: &Function,
    expr: &Expression,
    out: &mut BTreeSet<Handle<LocalVariable>>,
) -> ControlFlow<()> {
    if let Expression::Assign { place, .. }
    | Expression::CompoundAssign { place, .. }
    | Expression::IncDec { place, .. } = expr
    {
        if let Some(Expression::Variable(VariableRef::Local(v))) = f.expressions.get(*place) {
            out.insert(*v);
        }
    }
    ControlFlow::Continue(())
}

/// Private variables an expression assigns.
fn assigned_variables(
    f: &Function,
    e: Handle<Expression>,
    out: &mut BTreeSet<Handle<LocalVariable>>,
) {
    let _ = proc::visit_expression_tree(f, e, &mut |_, expr| record_assigned(f, expr, out));
}

/// Private variables a block assigns (declarations inside it do not count: they are new
/// each iteration).
fn assigned_in_block(f: &Function, b: &Block, out: &mut BTreeSet<Handle<LocalVariable>>) {
    let _ = proc::visit_block_expressions(f, b, &mut |_, expr| record_assigned(f, expr, out));
}
