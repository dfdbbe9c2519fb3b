//! The index of every `__global`/`__constant` read of a kernel as an affine form in the
//! work-item's ids, the counters of the loops around it and constants (the launch's sizes and
//! the workload's scalar arguments already substituted).
//!
//! Private variables assigned once are followed to their definitions, counted loops
//! (`for (int k = lo; k < hi; k += step)`) give loop atoms with affine bounds, and helpers of
//! the form `[declarations;] return expression;` are followed into with their arguments.
//! Anything else (a value loaded from memory, division of a variable, a variable assigned
//! twice) leaves the index without a form, with the reason: detection reports it, never
//! guesses. Guards are not followed: a read under an `if` counts as made, which is what a MAP
//! describes for the work-items the guard lets through.

use std::collections::{BTreeMap, HashMap, HashSet};

use clmap_lang::ir::{
    AddressSpace, Block, Builtin, Expression, Function, Handle, Literal, LocalVariable, LoopForm,
    Module, Statement, TypeInner, UnaryOp, VariableRef, WorkItemFunction,
};
use clmap_lang::proc::{operands, BinaryOp};
use clmap_lang::Span;

/// A leaf of an affine index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IndexAtom {
    /// `get_local_id(d)`.
    LocalId(u8),
    /// `get_group_id(d)`.
    GroupId(u8),
    /// The counter of an enclosing counted loop (the kernel's local variable).
    Loop(Handle<LocalVariable>),
}

/// `Σ coefficient · atom + constant`, exact in `i64` (overflow is a refusal).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Affine {
    pub terms: BTreeMap<IndexAtom, i64>,
    pub constant: i64,
}

impl Affine {
    pub fn constant(value: i64) -> Affine {
        Affine { terms: BTreeMap::new(), constant: value }
    }

    pub fn atom(atom: IndexAtom) -> Affine {
        Affine { terms: BTreeMap::from([(atom, 1)]), constant: 0 }
    }

    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    pub fn add(&self, other: &Affine) -> Option<Affine> {
        let mut sum = self.clone();
        for (atom, c) in &other.terms {
            let entry = sum.terms.entry(*atom).or_insert(0);
            *entry = entry.checked_add(*c)?;
        }
        sum.terms.retain(|_, c| *c != 0);
        sum.constant = sum.constant.checked_add(other.constant)?;
        Some(sum)
    }

    pub fn scale(&self, k: i64) -> Option<Affine> {
        let mut terms = BTreeMap::new();
        for (atom, c) in &self.terms {
            let scaled = c.checked_mul(k)?;
            if scaled != 0 {
                terms.insert(*atom, scaled);
            }
        }
        Some(Affine { terms, constant: self.constant.checked_mul(k)? })
    }

    /// The value with every atom given by `value` (atoms it does not know count as 0).
    pub fn evaluate(&self, value: &dyn Fn(IndexAtom) -> i64) -> Option<i64> {
        let mut total = self.constant;
        for (atom, c) in &self.terms {
            total = total.checked_add(c.checked_mul(value(*atom))?)?;
        }
        Some(total)
    }
}

/// A counted loop around a read: the counter takes `lo, lo + step, …` while below `hi`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CountedLoop {
    pub counter: Handle<LocalVariable>,
    pub lo: Affine,
    pub hi: Affine,
    pub step: i64,
}

/// One read of a buffer parameter.
#[derive(Clone, Debug)]
pub struct GlobalRead {
    pub param: u32,
    /// The element index, or why it has no affine form.
    pub index: Result<Affine, String>,
    /// Counted loops around the read, outermost first.
    pub loops: Vec<CountedLoop>,
    /// Inside a loop that is not counted (its iterations are unknown).
    pub in_uncounted_loop: bool,
    /// The value is stored straight into `__local` memory (staging a tile).
    pub stages_local: bool,
    pub span: Span,
}

/// What the analysis knows of the launch: sizes and the scalar arguments' values.
#[derive(Clone, Debug)]
pub struct LaunchFacts {
    pub global: [u64; 3],
    pub local: [u64; 3],
    pub offset: [u64; 3],
    /// Value of each by-value integer parameter, by parameter index.
    pub scalars: HashMap<u32, i64>,
}

/// Every read of a `__global`/`__constant` pointer parameter in kernel `function`.
pub fn global_reads(
    module: &Module,
    function: Handle<Function>,
    facts: &LaunchFacts,
) -> Vec<GlobalRead> {
    let f = &module.functions[function];
    let vars = SingleDefinitions::of(f);
    let straight = straight_line_variables(f, &vars);
    let mut walker = Walker {
        module,
        f,
        facts,
        vars,
        straight,
        current: HashMap::new(),
        derived: HashMap::new(),
        counters: Vec::new(),
        loops: Vec::new(),
        uncounted: 0,
        reads: Vec::new(),
    };
    walker.block(&f.body);
    walker.reads
}

/// Which private variables have one value: defined only by their declaration.
#[derive(Default)]
struct SingleDefinitions {
    init: HashMap<Handle<LocalVariable>, Handle<Expression>>,
    assigned: HashMap<Handle<LocalVariable>, Vec<Handle<Expression>>>,
}

impl SingleDefinitions {
    fn of(f: &Function) -> SingleDefinitions {
        let mut defs = SingleDefinitions::default();
        let _ = clmap_lang::proc::visit_statements::<()>(&f.body, &mut |s: &Statement, _| {
            if let Statement::Declare { variable, init: Some(init) } = s {
                defs.init.insert(*variable, *init);
            }
            std::ops::ControlFlow::Continue(())
        });
        for (h, e) in f.expressions.iter() {
            let place = match e {
                Expression::Assign { place, .. }
                | Expression::CompoundAssign { place, .. }
                | Expression::IncDec { place, .. }
                | Expression::AddressOf(place) => *place,
                _ => continue,
            };
            if let Some(Expression::Variable(VariableRef::Local(v))) = f.expressions.get(place) {
                defs.assigned.entry(*v).or_default().push(h);
            }
        }
        defs
    }

    fn single_value(&self, var: Handle<LocalVariable>) -> Option<Handle<Expression>> {
        if self.assigned.get(&var).is_some_and(|w| !w.is_empty()) {
            return None;
        }
        self.init.get(&var).copied()
    }
}

/// The variables of `f` whose every write is a plain `v = expression;` statement of the
/// kernel's body itself, outside any branch or loop: `x` reused for another coordinate after a
/// barrier (`x = get_group_id(1) * B + lx;`) has, at each read, the value of the last such
/// statement before it.
fn straight_line_variables(
    f: &Function,
    vars: &SingleDefinitions,
) -> HashSet<Handle<LocalVariable>> {
    let mut top: HashMap<Handle<LocalVariable>, usize> = HashMap::new();
    for statement in &f.body.statements {
        let Statement::Expression(e) = statement else { continue };
        if let Expression::Assign { place, .. } = &f.expressions[*e] {
            if let Expression::Variable(VariableRef::Local(v)) = f.expressions[*place] {
                *top.entry(v).or_default() += 1;
            }
        }
    }
    vars.assigned
        .iter()
        .filter(|(v, writes)| top.get(v).is_some_and(|n| *n == writes.len()))
        .map(|(v, _)| *v)
        .collect()
}

/// Where an expression is evaluated: the kernel, or a helper called with these arguments.
#[derive(Clone, Copy)]
struct Frame<'a> {
    f: &'a Function,
    args: Option<&'a [Result<Affine, String>]>,
    vars: &'a SingleDefinitions,
}

/// Helpers nested deeper than this are not followed (recursion is not OpenCL C anyway).
const MAX_DEPTH: u32 = 64;

struct Walker<'a> {
    module: &'a Module,
    f: &'a Function,
    facts: &'a LaunchFacts,
    vars: SingleDefinitions,
    /// Variables written only by statements of the kernel's body itself (no branch or loop
    /// around them): each has one value between two of its writes, the last one walked.
    straight: HashSet<Handle<LocalVariable>>,
    /// The value each of `straight` holds where the walk is.
    current: HashMap<Handle<LocalVariable>, Result<Affine, String>>,
    /// Induction variables stepped beside an enclosing loop's counter, as affine forms of it.
    derived: HashMap<Handle<LocalVariable>, Affine>,
    counters: Vec<Handle<LocalVariable>>,
    loops: Vec<CountedLoop>,
    uncounted: u32,
    reads: Vec<GlobalRead>,
}

impl<'a> Walker<'a> {
    fn block(&mut self, block: &Block) {
        for (statement, _) in block.iter() {
            self.statement(statement);
        }
    }

    fn statement(&mut self, s: &Statement) {
        match s {
            Statement::Declare { variable, init: Some(e) } => {
                self.expr(*e, false);
                if self.straight.contains(variable) {
                    let value = self.value(*e);
                    self.current.insert(*variable, value);
                }
            }
            Statement::Expression(e) => {
                self.expr(*e, false);
                if let Expression::Assign { place, value } = &self.f.expressions[*e] {
                    if let Expression::Variable(VariableRef::Local(v)) = self.f.expressions[*place]
                    {
                        if self.straight.contains(&v) {
                            let value = self.value(*value);
                            self.current.insert(v, value);
                        }
                    }
                }
            }
            Statement::Block(b) => self.block(b),
            Statement::If { condition, accept, reject } => {
                self.expr(*condition, false);
                self.block(accept);
                self.block(reject);
            }
            Statement::Loop { form, init, condition, update, body, .. } => {
                self.block(init);
                let counted = self.counted_loop(*form, init, *condition, *update);
                match &counted {
                    Some((l, derived)) => {
                        self.loops.push(l.clone());
                        self.derived.extend(derived.iter().map(|(v, a)| (*v, a.clone())));
                    }
                    None => self.uncounted += 1,
                }
                if let Some(c) = condition {
                    self.expr(*c, false);
                }
                if let Some(u) = update {
                    self.expr(*u, false);
                }
                self.block(body);
                match counted {
                    Some((_, derived)) => {
                        self.loops.pop();
                        for (v, _) in derived {
                            self.derived.remove(&v);
                        }
                    }
                    None => self.uncounted -= 1,
                }
            }
            Statement::Switch { selector, cases } => {
                self.expr(*selector, false);
                for case in cases {
                    self.block(&case.body);
                }
            }
            Statement::Return(Some(e)) => self.expr(*e, false),
            _ => {}
        }
    }

    /// `for (int v = lo; v < hi; v += step)` (also `<=`, `++`), `v` written nowhere else; with
    /// the loop, the other variables the header declares and steps beside `v` (`for (int a =
    /// a0, b = b0; a <= end; a += sa, b += sb)`, as in the NVIDIA SDK's tiled multiply), each
    /// as an affine form of `v`: `b = b0 + (v - lo) · sb / sa`, when `sa` divides `sb`.
    fn counted_loop(
        &mut self,
        form: LoopForm,
        init: &Block,
        condition: Option<Handle<Expression>>,
        update: Option<Handle<Expression>>,
    ) -> Option<(CountedLoop, Vec<(Handle<LocalVariable>, Affine)>)> {
        if form != LoopForm::For {
            return None;
        }
        let f = self.f;
        let declared: Vec<(Handle<LocalVariable>, Handle<Expression>)> = init
            .statements
            .iter()
            .map_while(|s| match s {
                Statement::Declare { variable, init: Some(e) } => Some((*variable, *e)),
                _ => None,
            })
            .collect();
        let (counter, lo) = *declared.first()?;
        let mut steps = Vec::new();
        self.increments(update?, &mut steps)?;
        let written_only_by = |v: Handle<LocalVariable>, by: Handle<Expression>| {
            self.vars.assigned.get(&v).is_none_or(|w| w.iter().all(|h| *h == by))
        };
        let &(_, counter_update, step) = steps.iter().find(|(v, _, _)| *v == counter)?;
        if step <= 0 || !written_only_by(counter, counter_update) {
            return None;
        }
        let Expression::Binary { op, lhs, rhs } = &f.expressions[strip_convert(f, condition?)]
        else {
            return None;
        };
        if !self.is_var_value(*lhs, counter) {
            return None;
        }
        let bound = self.value(*rhs).ok()?;
        let hi = match op {
            BinaryOp::Lt => bound,
            BinaryOp::Le => bound.add(&Affine::constant(1))?,
            _ => return None,
        };
        let lo = self.value(lo).ok()?;
        let mut derived = Vec::new();
        for &(v, start) in declared.iter().skip(1) {
            let Some(&(_, by, dv)) = steps.iter().find(|(w, _, _)| *w == v) else { continue };
            if dv % step != 0 || !written_only_by(v, by) {
                continue;
            }
            let Ok(start) = self.value(start) else { continue };
            // v = start + (counter - lo) · dv / step
            let form = Affine::atom(IndexAtom::Loop(counter))
                .add(&lo.scale(-1)?)
                .and_then(|d| d.scale(dv / step))
                .and_then(|d| d.add(&start));
            if let Some(form) = form {
                derived.push((v, form));
            }
        }
        self.counters.push(counter);
        Some((CountedLoop { counter, lo, hi, step }, derived))
    }

    /// The steps of a `for` header's update: `v++` or `v += constant`, several joined by
    /// commas; none when any part is something else.
    fn increments(
        &self,
        e: Handle<Expression>,
        out: &mut Vec<(Handle<LocalVariable>, Handle<Expression>, i64)>,
    ) -> Option<()> {
        let local = |place: Handle<Expression>| match self.f.expressions[place] {
            Expression::Variable(VariableRef::Local(v)) => Some(v),
            _ => None,
        };
        match &self.f.expressions[e] {
            Expression::Comma { lhs, rhs } => {
                self.increments(*lhs, out)?;
                self.increments(*rhs, out)
            }
            Expression::IncDec { place, increment: true, .. } => {
                out.push((local(*place)?, e, 1));
                Some(())
            }
            Expression::CompoundAssign { op: BinaryOp::Add, place, value, .. } => {
                let step = self.value(*value).ok()?.as_constant()?;
                out.push((local(*place)?, e, step));
                Some(())
            }
            _ => None,
        }
    }

    fn is_var(&self, place: Handle<Expression>, var: Handle<LocalVariable>) -> bool {
        matches!(self.f.expressions[place], Expression::Variable(VariableRef::Local(v)) if v == var)
    }

    fn is_var_value(&self, e: Handle<Expression>, var: Handle<LocalVariable>) -> bool {
        match &self.f.expressions[strip_convert(self.f, e)] {
            Expression::Load(p) => self.is_var(*p, var),
            _ => false,
        }
    }

    /// The buffer parameter `e` loads, if it is a `__global`/`__constant` pointer parameter.
    fn buffer_param(&self, e: Handle<Expression>) -> Option<u32> {
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

    /// Whether `place` is an element of `__local` memory (a local array or pointer).
    fn is_local_place(&self, place: Handle<Expression>) -> bool {
        match &self.f.expressions[place] {
            Expression::Index { base, .. } => self.is_local_base(*base),
            _ => false,
        }
    }

    /// Whether an indexed base is `__local` memory: a local variable or pointer parameter, or
    /// a row of a local array of arrays (`tile[r][c]` indexes the row `tile[r]`).
    fn is_local_base(&self, base: Handle<Expression>) -> bool {
        let f = self.f;
        match &f.expressions[base] {
            Expression::Variable(VariableRef::Local(v)) => {
                f.locals[*v].space == AddressSpace::Local
            }
            Expression::Index { base, .. } => self.is_local_base(*base),
            Expression::Load(p) | Expression::Decay(p) => match f.expressions[*p] {
                Expression::Variable(VariableRef::Local(v)) => {
                    f.locals[v].space == AddressSpace::Local
                }
                Expression::Variable(VariableRef::Param(k)) => {
                    f.params.get(k as usize).is_some_and(|p| {
                        matches!(
                            self.module.types[p.ty],
                            TypeInner::Pointer { space: AddressSpace::Local, .. }
                        )
                    })
                }
                Expression::Index { base, .. } => self.is_local_base(base),
                _ => false,
            },
            _ => false,
        }
    }

    /// Visits an expression; `stages_local` marks a value stored straight into local memory.
    fn expr(&mut self, e: Handle<Expression>, stages_local: bool) {
        let f = self.f;
        match &f.expressions[e] {
            Expression::Load(place) => {
                if let Expression::Index { base, index } = &f.expressions[*place] {
                    if let Some(param) = self.buffer_param(*base) {
                        let value = self.value(*index);
                        self.reads.push(GlobalRead {
                            param,
                            index: value,
                            loops: self.loops.clone(),
                            in_uncounted_loop: self.uncounted > 0,
                            stages_local,
                            span: f.expressions.span(*place),
                        });
                        self.expr(*index, false);
                        return;
                    }
                }
                self.expr(*place, false)
            }
            Expression::Assign { place, value } => {
                let staging = self.is_local_place(*place);
                self.place(*place);
                let value = strip_convert(f, *value);
                self.expr(value, staging);
            }
            Expression::CompoundAssign { place, value, .. } => {
                self.place_read_too(*place);
                self.expr(*value, false);
            }
            Expression::IncDec { place, .. } => self.place_read_too(*place),
            Expression::Call { function, args } => {
                // Reads made inside a helper through a pointer argument are not followed:
                // say so rather than leave the buffer out.
                for arg in args {
                    match self.buffer_param(strip_convert(f, *arg)) {
                        Some(param) => self.reads.push(GlobalRead {
                            param,
                            index: Err(format!(
                                "the pointer is passed to helper `{}`, whose reads are not followed",
                                self.module.functions[*function].name
                            )),
                            loops: self.loops.clone(),
                            in_uncounted_loop: self.uncounted > 0,
                            stages_local,
                            span: f.expressions.span(e),
                        }),
                        None => self.expr(*arg, false),
                    }
                }
            }
            other => {
                for child in operands(other) {
                    self.expr(child, false);
                }
            }
        }
    }

    /// A place written: its index expressions are visited, the place itself is no read.
    fn place(&mut self, place: Handle<Expression>) {
        match &self.f.expressions[place] {
            Expression::Index { base, index } => {
                if self.buffer_param(*base).is_none() {
                    self.expr(*base, false);
                }
                self.expr(*index, false);
            }
            _ => self.expr(place, false),
        }
    }

    /// A place read and written (`+=`, `++`): a buffer element there is read.
    fn place_read_too(&mut self, place: Handle<Expression>) {
        if let Expression::Index { base, index } = &self.f.expressions[place] {
            if let Some(param) = self.buffer_param(*base) {
                let value = self.value(*index);
                self.reads.push(GlobalRead {
                    param,
                    index: value,
                    loops: self.loops.clone(),
                    in_uncounted_loop: self.uncounted > 0,
                    stages_local: false,
                    span: self.f.expressions.span(place),
                });
                self.expr(*index, false);
                return;
            }
        }
        self.place(place)
    }

    fn value(&self, e: Handle<Expression>) -> Result<Affine, String> {
        let frame = Frame { f: self.f, args: None, vars: &self.vars };
        self.eval(frame, e, 0)
    }

    fn eval(&self, fr: Frame<'_>, e: Handle<Expression>, depth: u32) -> Result<Affine, String> {
        if depth > MAX_DEPTH {
            return Err("the index expression nests too deeply".into());
        }
        let f = fr.f;
        let ty = f.type_of(e);
        match self.module.types.get(ty) {
            Some(TypeInner::Scalar(s)) if s.is_integer() => {}
            _ => return Err("the index is not integer arithmetic".into()),
        }
        let d = depth + 1;
        let overflow = || "the index overflows 64 bits".to_string();
        match &f.expressions[e] {
            Expression::Literal(l) => match l {
                Literal::Int { .. } | Literal::Bool(_) => l
                    .as_i128()
                    .and_then(|v| i64::try_from(v).ok())
                    .map(Affine::constant)
                    .ok_or_else(|| "a constant out of range".into()),
                Literal::Float { .. } => Err("a floating-point constant".into()),
            },
            Expression::Convert { value, .. } => self.eval(fr, *value, d),
            Expression::Load(place) => match &f.expressions[*place] {
                Expression::Variable(VariableRef::Param(k)) => match fr.args {
                    Some(args) => args
                        .get(*k as usize)
                        .cloned()
                        .unwrap_or_else(|| Err("a missing argument".into())),
                    None => {
                        self.facts.scalars.get(k).map(|v| Affine::constant(*v)).ok_or_else(|| {
                            format!(
                                "the argument `{}` has no integer value in the workload",
                                f.params[*k as usize].name
                            )
                        })
                    }
                },
                Expression::Variable(VariableRef::Local(v)) => {
                    if let Some(init) = fr.vars.single_value(*v) {
                        return self.eval(fr, init, d);
                    }
                    if fr.args.is_none() {
                        if let Some(form) = self.derived.get(v) {
                            return Ok(form.clone());
                        }
                        if let Some(value) = self.current.get(v) {
                            return value.clone();
                        }
                    }
                    if fr.args.is_none() && self.counters.contains(v) {
                        Ok(Affine::atom(IndexAtom::Loop(*v)))
                    } else {
                        Err(format!("`{}` is assigned more than once", f.locals[*v].name))
                    }
                }
                Expression::Variable(VariableRef::Global(_)) => {
                    Err("a program-scope variable".into())
                }
                _ => Err("a value loaded from memory (the index is data-dependent)".into()),
            },
            Expression::Unary { op: UnaryOp::Negate, operand } => {
                self.eval(fr, *operand, d)?.scale(-1).ok_or_else(overflow)
            }
            Expression::Binary { op, lhs, rhs } => {
                let a = self.eval(fr, *lhs, d)?;
                let b = self.eval(fr, *rhs, d)?;
                match op {
                    BinaryOp::Add => a.add(&b).ok_or_else(overflow),
                    BinaryOp::Sub => a.add(&b.scale(-1).ok_or_else(overflow)?).ok_or_else(overflow),
                    BinaryOp::Mul => match (a.as_constant(), b.as_constant()) {
                        (Some(k), _) => b.scale(k).ok_or_else(overflow),
                        (_, Some(k)) => a.scale(k).ok_or_else(overflow),
                        _ => Err("a product of two work-item-dependent values (not affine)".into()),
                    },
                    BinaryOp::Shl => match b.as_constant() {
                        Some(s) if (0..31).contains(&s) => a.scale(1 << s).ok_or_else(overflow),
                        _ => Err("a shift by a non-constant amount".into()),
                    },
                    _ => match (a.as_constant(), b.as_constant()) {
                        (Some(x), Some(y)) => {
                            fold(*op, x, y).map(Affine::constant).ok_or_else(|| {
                                format!("`{}` of constants that does not fold", op.as_str())
                            })
                        }
                        _ => Err(format!(
                            "`{}` of a work-item-dependent value (not affine)",
                            op.as_str()
                        )),
                    },
                }
            }
            Expression::Builtin { function: Builtin::WorkItem(w), args } => {
                let dim = match args.first() {
                    Some(a) => self
                        .eval(fr, *a, d)?
                        .as_constant()
                        .ok_or("a work-item query of a non-constant dimension")?,
                    None => 0,
                };
                let dim = usize::try_from(dim)
                    .ok()
                    .filter(|d| *d < 3)
                    .ok_or("a dimension out of range")?;
                let dim8 = dim as u8;
                let size = |v: u64| i64::try_from(v).map(Affine::constant).map_err(|_| overflow());
                let facts = self.facts;
                match w {
                    WorkItemFunction::LocalId => Ok(Affine::atom(IndexAtom::LocalId(dim8))),
                    WorkItemFunction::GroupId => Ok(Affine::atom(IndexAtom::GroupId(dim8))),
                    WorkItemFunction::GlobalId => {
                        let local = i64::try_from(facts.local[dim]).map_err(|_| overflow())?;
                        let offset = i64::try_from(facts.offset[dim]).map_err(|_| overflow())?;
                        Affine::atom(IndexAtom::GroupId(dim8))
                            .scale(local)
                            .and_then(|g| g.add(&Affine::atom(IndexAtom::LocalId(dim8))))
                            .and_then(|g| g.add(&Affine::constant(offset)))
                            .ok_or_else(overflow)
                    }
                    WorkItemFunction::LocalSize | WorkItemFunction::EnqueuedLocalSize => {
                        size(facts.local[dim])
                    }
                    WorkItemFunction::GlobalSize => size(facts.global[dim]),
                    WorkItemFunction::NumGroups => {
                        size(facts.global[dim] / facts.local[dim].max(1))
                    }
                    WorkItemFunction::GlobalOffset => size(facts.offset[dim]),
                    WorkItemFunction::WorkDim => Err("`get_work_dim`".into()),
                }
            }
            Expression::Call { function, args } => {
                let values: Vec<Result<Affine, String>> =
                    args.iter().map(|a| self.eval(fr, *a, d)).collect();
                self.call(*function, &values, d)
            }
            Expression::Comma { rhs, .. } => self.eval(fr, *rhs, d),
            Expression::Conditional { .. } => Err("a `?:` choice".into()),
            Expression::Builtin { function, .. } => {
                Err(format!("the built-in `{}`", function.name()))
            }
            _ => Err("an expression the analysis does not follow".into()),
        }
    }

    /// A helper `[declarations;] return expression;`, evaluated with its arguments.
    fn call(
        &self,
        function: Handle<Function>,
        args: &[Result<Affine, String>],
        depth: u32,
    ) -> Result<Affine, String> {
        let callee = &self.module.functions[function];
        let statements = &callee.body.statements;
        let simple = matches!(statements.split_last(), Some((Statement::Return(Some(_)), before))
            if before.iter().all(|s| matches!(s, Statement::Declare { init: Some(_), .. })));
        let Some(Statement::Return(Some(result))) = statements.last().filter(|_| simple) else {
            return Err(format!("helper `{}` is more than `return expression;`", callee.name));
        };
        let vars = SingleDefinitions::of(callee);
        let frame = Frame { f: callee, args: Some(args), vars: &vars };
        self.eval(frame, *result, depth)
    }
}

fn strip_convert(f: &Function, mut e: Handle<Expression>) -> Handle<Expression> {
    while let Expression::Convert { value, .. } = &f.expressions[e] {
        e = *value;
    }
    e
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
