//! A readable text form of the IR, for `clmap ir` and snapshot tests.
//!
//! Each statement is followed by the expressions it evaluates, operands before their users, one
//! per line with handle and type (`%7: float = Load %6`); places are marked with their address
//! space (`%6: __global float place = Index %3[%5]`). With a [`SourceMap`] every line ends with
//! the source position it came from (`@12:5`). The output depends only on the module, so it is
//! stable enough to diff.

use crate::ir::{
    AddressSpace, Block, ConstValue, ConversionKind, Expression, Function, FunctionKind, Handle,
    Module, Statement, Type, TypeInner, VariableRef,
};
use crate::print::print_type;
use crate::proc;
use crate::span::{SourceMap, Span};
use crate::valid::{MAX_EXPRESSION_DEPTH, MAX_STATEMENT_NESTING};
use std::fmt::Write as _;

/// The whole module: types, typedefs, pragmas, program-scope variables and every function.
pub fn dump_module(module: &Module, sources: Option<&SourceMap>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "types:");
    for (handle, ty) in module.types.iter() {
        let _ = writeln!(out, "  [{}] {}", handle.index(), describe_type(module, handle, ty));
    }
    if !module.typedefs.is_empty() {
        let _ = writeln!(out, "typedefs:");
        for typedef in &module.typedefs {
            let _ = writeln!(out, "  {} = {}", typedef.name, type_text(module, typedef.ty));
        }
    }
    if !module.pragmas.is_empty() {
        let _ = writeln!(out, "pragmas:");
        for pragma in &module.pragmas {
            let _ = writeln!(
                out,
                "  before function {}: {}{}",
                pragma.before_function,
                pragma.text,
                position(sources, pragma.span)
            );
        }
    }
    if !module.global_variables.is_empty() {
        let _ = writeln!(out, "globals:");
        for (handle, global) in module.global_variables.iter() {
            let init = match &global.init {
                Some(value) => format!(" = {}", const_text(value, 0)),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  g{} {}: {} {}{init}{}",
                handle.index(),
                global.name,
                global.space.qualifier(),
                type_text(module, global.ty),
                position(sources, module.global_variables.span(handle))
            );
        }
    }
    for (handle, function) in module.functions.iter() {
        out.push('\n');
        FunctionDumper::new(module, function, sources, &mut out).dump(handle);
    }
    out
}

fn type_text(module: &Module, ty: Handle<Type>) -> String {
    if module.types.contains(ty) {
        print_type(module, ty)
    } else {
        format!("<invalid type [{}]>", ty.index())
    }
}

/// A type with its layout facts (structs list their members with offsets).
fn describe_type(module: &Module, handle: Handle<Type>, ty: &TypeInner) -> String {
    match ty {
        TypeInner::Struct { is_complete: false, .. } => {
            format!("{} (incomplete)", type_text(module, handle))
        }
        TypeInner::Struct { members, size, align, .. } => {
            let members: Vec<String> = members
                .iter()
                .map(|m| format!("{}: {} @{}", m.name, type_text(module, m.ty), m.offset))
                .collect();
            format!(
                "{} {{ {} }} size {size} align {align}",
                type_text(module, handle),
                members.join(", ")
            )
        }
        _ => type_text(module, handle),
    }
}

fn const_text(value: &ConstValue, depth: usize) -> String {
    match value {
        ConstValue::Literal(lit) => crate::print::literal_text(*lit),
        ConstValue::Zero => "zero".to_string(),
        ConstValue::Address { global, offset } => format!("&g{} + {offset}", global.index()),
        ConstValue::Composite(_) if depth > MAX_EXPRESSION_DEPTH => "{…}".to_string(),
        ConstValue::Composite(items) => {
            let items: Vec<String> = items.iter().map(|i| const_text(i, depth + 1)).collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// ` @line:col` for a defined span (with the file name when it is not the first file).
fn position(sources: Option<&SourceMap>, span: Span) -> String {
    let Some(sources) = sources else { return String::new() };
    let Some(file) = sources.get(span.file) else { return String::new() };
    let lc = file.line_col(span.start);
    if span.file.0 == 0 {
        format!("  @{}:{}", lc.line, lc.col)
    } else {
        format!("  @{}:{}:{}", file.name, lc.line, lc.col)
    }
}

struct FunctionDumper<'a> {
    module: &'a Module,
    function: &'a Function,
    sources: Option<&'a SourceMap>,
    out: &'a mut String,
    /// Expressions already written (guards against shared or cyclic operands in IR that has
    /// not been validated).
    written: Vec<bool>,
}

impl<'a> FunctionDumper<'a> {
    fn new(
        module: &'a Module,
        function: &'a Function,
        sources: Option<&'a SourceMap>,
        out: &'a mut String,
    ) -> Self {
        let written = vec![false; function.expressions.len()];
        FunctionDumper { module, function, sources, out, written }
    }

    fn dump(&mut self, handle: Handle<Function>) {
        let f = self.function;
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| {
                let constness = if p.is_const { "const " } else { "" };
                let access = p.access.map(|a| format!("{} ", a.name())).unwrap_or_default();
                format!("{}: {access}{constness}{}", p.name, type_text(self.module, p.ty))
            })
            .collect();
        let returns = match f.return_type {
            Some(ty) => type_text(self.module, ty),
            None => "void".to_string(),
        };
        let kind = match &f.kind {
            FunctionKind::Kernel(_) => "kernel",
            FunctionKind::Helper if f.is_inline => "inline function",
            FunctionKind::Helper => "function",
        };
        let _ = writeln!(
            self.out,
            "{kind} #{} {}({}) -> {returns}{}",
            handle.index(),
            f.name,
            params.join(", "),
            position(self.sources, f.span)
        );
        if let FunctionKind::Kernel(attributes) = &f.kind {
            if let Some(size) = attributes.reqd_work_group_size {
                let _ = writeln!(self.out, "  reqd_work_group_size {size:?}");
            }
            if let Some(size) = attributes.work_group_size_hint {
                let _ = writeln!(self.out, "  work_group_size_hint {size:?}");
            }
            if let Some(hint) = attributes.vec_type_hint {
                let _ = writeln!(self.out, "  vec_type_hint {}", type_text(self.module, hint));
            }
        }
        if !f.locals.is_empty() {
            let _ = writeln!(self.out, "  locals:");
            for (local, variable) in f.locals.iter() {
                let mut flags = String::new();
                if variable.is_const {
                    flags.push_str(" const");
                }
                if variable.is_volatile {
                    flags.push_str(" volatile");
                }
                if let Some(align) = variable.align {
                    let _ = write!(flags, " align {align}");
                }
                let _ = writeln!(
                    self.out,
                    "    l{} {}: {} {}{flags}",
                    local.index(),
                    variable.name,
                    variable.space.qualifier(),
                    type_text(self.module, variable.ty)
                );
            }
        }
        let _ = writeln!(self.out, "  body:");
        self.block(&f.body, 2);
        let unused: Vec<Handle<Expression>> =
            f.expressions.handles().filter(|e| !self.written[e.index()]).collect();
        if !unused.is_empty() {
            let _ = writeln!(self.out, "  unused expressions:");
            for e in unused {
                self.expression_tree(e, 2);
            }
        }
    }

    fn line(&mut self, indent: usize, text: &str, span: Span) {
        let position = position(self.sources, span);
        let _ = writeln!(self.out, "{:width$}{text}{position}", "", width = indent * 2);
    }

    fn block(&mut self, block: &Block, indent: usize) {
        if indent > MAX_STATEMENT_NESTING * 2 {
            self.line(indent, "… nested too deeply", Span::UNDEFINED);
            return;
        }
        for (statement, span) in block.iter() {
            self.statement(statement, span, indent);
        }
    }

    fn statement(&mut self, statement: &Statement, span: Span, indent: usize) {
        match statement {
            Statement::Declare { variable, init } => {
                let name = self.function.locals.get(*variable).map_or("?", |l| l.name.as_str());
                let text = match init {
                    Some(init) => {
                        format!("Declare l{} {name} = %{}", variable.index(), init.index())
                    }
                    None => format!("Declare l{} {name}", variable.index()),
                };
                self.line(indent, &text, span);
                if let Some(init) = init {
                    self.expression_tree(*init, indent + 1);
                }
            }
            Statement::Expression(e) => {
                self.line(indent, &format!("Evaluate %{}", e.index()), span);
                self.expression_tree(*e, indent + 1);
            }
            Statement::Block(block) => {
                self.line(indent, "Block", span);
                self.block(block, indent + 1);
            }
            Statement::If { condition, accept, reject } => {
                self.line(indent, &format!("If %{}", condition.index()), span);
                self.expression_tree(*condition, indent + 1);
                self.line(indent, "then:", Span::UNDEFINED);
                self.block(accept, indent + 1);
                if !reject.is_empty() {
                    self.line(indent, "else:", Span::UNDEFINED);
                    self.block(reject, indent + 1);
                }
            }
            Statement::Loop { form, init, condition, update, body, pragma } => {
                let mut text = format!("Loop {form:?}");
                if let Some(pragma) = pragma {
                    let _ = write!(text, " (#pragma {})", pragma.trim());
                }
                self.line(indent, &text, span);
                if !init.is_empty() {
                    self.line(indent, "init:", Span::UNDEFINED);
                    self.block(init, indent + 1);
                }
                if let Some(condition) = condition {
                    self.line(
                        indent,
                        &format!("condition %{}:", condition.index()),
                        Span::UNDEFINED,
                    );
                    self.expression_tree(*condition, indent + 1);
                }
                if let Some(update) = update {
                    self.line(indent, &format!("update %{}:", update.index()), Span::UNDEFINED);
                    self.expression_tree(*update, indent + 1);
                }
                self.line(indent, "body:", Span::UNDEFINED);
                self.block(body, indent + 1);
            }
            Statement::Switch { selector, cases } => {
                self.line(indent, &format!("Switch %{}", selector.index()), span);
                self.expression_tree(*selector, indent + 1);
                for case in cases {
                    let label = match case.value {
                        Some(value) => format!("case {value}"),
                        None => "default".to_string(),
                    };
                    let falls = if case.fall_through { " (falls through)" } else { "" };
                    self.line(indent, &format!("{label}:{falls}"), Span::UNDEFINED);
                    self.block(&case.body, indent + 1);
                }
            }
            Statement::Break => self.line(indent, "Break", span),
            Statement::Continue => self.line(indent, "Continue", span),
            Statement::Return(None) => self.line(indent, "Return", span),
            Statement::Return(Some(value)) => {
                self.line(indent, &format!("Return %{}", value.index()), span);
                self.expression_tree(*value, indent + 1);
            }
            Statement::Barrier(flags) => {
                self.line(indent, &format!("Barrier{}", fences(flags.local, flags.global)), span)
            }
            Statement::MemFence { flags, kind } => self.line(
                indent,
                &format!("MemFence {kind:?}{}", fences(flags.local, flags.global)),
                span,
            ),
        }
    }

    /// Writes `root` and the operands below it that were not written yet, operands first,
    /// without recursion.
    fn expression_tree(&mut self, root: Handle<Expression>, indent: usize) {
        let mut stack = vec![(root, false)];
        while let Some((e, expanded)) = stack.pop() {
            if self.written.get(e.index()).copied().unwrap_or(true) && !expanded {
                if !self.function.expressions.contains(e) {
                    self.line(
                        indent,
                        &format!("%{}: <invalid handle>", e.index()),
                        Span::UNDEFINED,
                    );
                }
                continue;
            }
            if expanded {
                self.expression_line(e, indent);
                continue;
            }
            if let Some(w) = self.written.get_mut(e.index()) {
                *w = true;
            }
            stack.push((e, true));
            if let Some(expr) = self.function.expressions.get(e) {
                stack.extend(proc::operands(expr).rev().map(|operand| (operand, false)));
            }
        }
    }

    fn expression_line(&mut self, e: Handle<Expression>, indent: usize) {
        let Some(expr) = self.function.expressions.get(e) else { return };
        let ty = self.function.expression_types.get(e.index()).copied();
        let mut ty_text = ty.map_or("<no type>".to_string(), |t| type_text(self.module, t));
        if proc::is_place(self.function, e) {
            let space = proc::place_space(self.module, self.function, e)
                .map_or("", AddressSpace::qualifier);
            ty_text = format!("{space} {ty_text} place");
        }
        let text = format!("%{}: {ty_text} = {}", e.index(), self.describe(expr));
        let span = self.function.expressions.span(e);
        self.line(indent, &text, span);
    }

    fn variable(&self, var: VariableRef) -> String {
        match var {
            VariableRef::Local(h) => {
                let name = self.function.locals.get(h).map_or("?", |l| l.name.as_str());
                format!("Local l{} {name}", h.index())
            }
            VariableRef::Param(i) => {
                let name = self.function.params.get(i as usize).map_or("?", |p| p.name.as_str());
                format!("Param {i} {name}")
            }
            VariableRef::Global(h) => {
                let name = self.module.global_variables.get(h).map_or("?", |g| g.name.as_str());
                format!("Global g{} {name}", h.index())
            }
        }
    }

    fn describe(&self, expr: &Expression) -> String {
        let list = |args: &[Handle<Expression>]| {
            args.iter().map(|a| format!("%{}", a.index())).collect::<Vec<_>>().join(", ")
        };
        match expr {
            Expression::Literal(lit) => format!("Literal {}", crate::print::literal_text(*lit)),
            Expression::StringLiteral(text) => format!("String {text:?}"),
            Expression::ZeroValue => "Zero".to_string(),
            Expression::Variable(var) => self.variable(*var),
            Expression::Deref(p) => format!("Deref %{}", p.index()),
            Expression::Index { base, index } => {
                format!("Index %{}[%{}]", base.index(), index.index())
            }
            Expression::Member { base, member } => {
                let name = self
                    .function
                    .expression_types
                    .get(base.index())
                    .and_then(|t| self.module.types.get(*t))
                    .and_then(|t| match t {
                        TypeInner::Struct { members, .. } => members.get(*member as usize),
                        _ => None,
                    })
                    .map_or("?", |m| m.name.as_str());
                format!("Member %{}.{name}", base.index())
            }
            Expression::Swizzle { base, components } => {
                let components: Vec<String> = components.iter().map(u8::to_string).collect();
                format!("Swizzle %{} [{}]", base.index(), components.join(" "))
            }
            Expression::Load(p) => format!("Load %{}", p.index()),
            Expression::AddressOf(p) => format!("AddressOf %{}", p.index()),
            Expression::Decay(p) => format!("Decay %{}", p.index()),
            Expression::Unary { op, operand } => format!("{op:?} %{}", operand.index()),
            Expression::Binary { op, lhs, rhs } => {
                format!("Binary %{} {} %{}", lhs.index(), op.as_str(), rhs.index())
            }
            Expression::PointerOffset { pointer, offset, subtract } => format!(
                "PointerOffset %{} {} %{}",
                pointer.index(),
                if *subtract { "-" } else { "+" },
                offset.index()
            ),
            Expression::PointerDifference { lhs, rhs } => {
                format!("PointerDifference %{} - %{}", lhs.index(), rhs.index())
            }
            Expression::PointerCompare { op, lhs, rhs } => {
                format!("PointerCompare %{} {} %{}", lhs.index(), op.as_str(), rhs.index())
            }
            Expression::Conditional { condition, accept, reject } => format!(
                "Conditional %{} ? %{} : %{}",
                condition.index(),
                accept.index(),
                reject.index()
            ),
            Expression::Convert { value, kind } => {
                let kind = match kind {
                    ConversionKind::Implicit => "implicit".to_string(),
                    ConversionKind::Cast => "cast".to_string(),
                    ConversionKind::Explicit { saturate, rounding } => format!(
                        "explicit{}{}",
                        if *saturate { "_sat" } else { "" },
                        rounding.map_or("", |r| r.suffix())
                    ),
                };
                format!("Convert.{kind} %{}", value.index())
            }
            Expression::Bitcast(v) => format!("Bitcast %{}", v.index()),
            Expression::Splat(v) => format!("Splat %{}", v.index()),
            Expression::Compose(parts) => format!("Compose({})", list(parts)),
            Expression::Assign { place, value } => {
                format!("Assign %{} = %{}", place.index(), value.index())
            }
            Expression::CompoundAssign { op, place, value, compute_type } => format!(
                "CompoundAssign %{} {}= %{} in {}",
                place.index(),
                op.as_str(),
                value.index(),
                type_text(self.module, *compute_type)
            ),
            Expression::IncDec { place, increment, prefix } => format!(
                "{}{} %{}",
                if *prefix { "Pre" } else { "Post" },
                if *increment { "Increment" } else { "Decrement" },
                place.index()
            ),
            Expression::Comma { lhs, rhs } => format!("Comma %{}, %{}", lhs.index(), rhs.index()),
            Expression::Call { function, args } => {
                let name = self.module.functions.get(*function).map_or("?", |f| f.name.as_str());
                format!("Call #{} {name}({})", function.index(), list(args))
            }
            Expression::Builtin { function, args } => {
                format!("Builtin {}({})", function.name(), list(args))
            }
        }
    }
}

fn fences(local: bool, global: bool) -> &'static str {
    match (local, global) {
        (false, false) => "",
        (true, false) => " local",
        (false, true) => " global",
        (true, true) => " local global",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::valid::testing::scale_kernel;

    #[test]
    fn statements_list_their_expressions_operands_first() {
        let text = dump_module(&scale_kernel(), None);
        let expected = "\
types:
  [0] float
  [1] ulong
  [2] __global float *
  [3] uint
  [4] int

kernel #0 scale(data: __global float *, factor: float) -> void
  locals:
    l0 i: __private ulong
  body:
    Declare l0 i = %2
      %0: int = Literal 0
      %1: uint = Convert.implicit %0
      %2: ulong = Builtin get_global_id(%1)
    Evaluate %17
      %3: __private __global float * place = Param 0 data
      %4: __global float * = Load %3
      %5: __private ulong place = Local l0 i
      %6: ulong = Load %5
      %7: __global float place = Index %4[%6]
      %8: __private __global float * place = Param 0 data
      %9: __global float * = Load %8
      %10: __private ulong place = Local l0 i
      %11: ulong = Load %10
      %12: __global float place = Index %9[%11]
      %13: float = Load %12
      %14: __private float place = Param 1 factor
      %15: float = Load %14
      %16: float = Binary %13 * %15
      %17: float = Assign %7 = %16
";
        assert_eq!(text, expected);
    }
}
