//! Function definitions and statements.

use super::expr::{prec, ExpressionPrinter};
use super::types::{declaration, Declaration};
use super::{is_kernel, INDENT};
use crate::ir::Expression;
use crate::ir::{
    AddressSpace, Block, FenceFlags, FenceKind, Function, FunctionKind, Handle, LocalVariable,
    LoopForm, Module, Statement, SwitchCase,
};
use std::fmt::Write as _;

/// Blocks nested deeper than this are not printed (the validator rejects them).
const MAX_NESTING: usize = 256;

pub(crate) struct FunctionPrinter<'a> {
    module: &'a Module,
    function: &'a Function,
    expressions: ExpressionPrinter<'a>,
    out: String,
}

impl<'a> FunctionPrinter<'a> {
    pub fn new(module: &'a Module, function: &'a Function) -> Self {
        FunctionPrinter {
            module,
            function,
            expressions: ExpressionPrinter { module, function },
            out: String::new(),
        }
    }

    pub fn definition(mut self) -> String {
        let header = self.header();
        self.out.push_str(&header);
        self.out.push_str(" {\n");
        self.block_body(&self.function.body, 1);
        self.out.push_str("}\n");
        self.out
    }

    fn header(&self) -> String {
        let function = self.function;
        let mut prefix = String::new();
        if let FunctionKind::Kernel(attributes) = &function.kind {
            prefix.push_str("__kernel ");
            if let Some([x, y, z]) = attributes.reqd_work_group_size {
                let _ = write!(prefix, "__attribute__((reqd_work_group_size({x}, {y}, {z}))) ");
            }
            if let Some([x, y, z]) = attributes.work_group_size_hint {
                let _ = write!(prefix, "__attribute__((work_group_size_hint({x}, {y}, {z}))) ");
            }
            if let Some(hint) = attributes.vec_type_hint {
                let _ = write!(
                    prefix,
                    "__attribute__((vec_type_hint({}))) ",
                    super::types::value_type_name(self.module, hint)
                );
            }
        }
        if function.is_inline && !is_kernel(function) {
            prefix.push_str("inline ");
        }
        let params: Vec<String> = function
            .params
            .iter()
            .map(|p| {
                // An image's access qualifier is written even where it is the default.
                let access = p.access.map_or("", |a| a.qualifier());
                let constness = if p.is_const { "const" } else { "" };
                declaration(self.module, p.ty, &[access, constness], &p.name).joined()
            })
            .collect();
        let params = if params.is_empty() { "void".to_string() } else { params.join(", ") };
        let call = format!("{}({params})", function.name);
        let signature = match function.return_type {
            Some(ty) => declaration(self.module, ty, &[], &call).joined(),
            None => format!("void {call}"),
        };
        format!("{prefix}{signature}")
    }

    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str(INDENT);
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn expression(&self, e: Handle<Expression>) -> String {
        self.expressions.expression(e, prec::NONE)
    }

    fn block_body(&mut self, block: &Block, indent: usize) {
        if indent > MAX_NESTING {
            self.line(indent, "/* statements nested too deeply */");
            return;
        }
        for statement in &block.statements {
            self.statement(statement, indent);
        }
    }

    /// `{`, the block, `}` where the opening brace ends the line `opening`.
    fn braced(&mut self, opening: &str, block: &Block, indent: usize) {
        self.line(indent, &format!("{opening} {{"));
        self.block_body(block, indent + 1);
    }

    fn statement(&mut self, statement: &Statement, indent: usize) {
        match statement {
            Statement::Declare { variable, init } => {
                let text = self.declare(&[(*variable, *init)]);
                self.line(indent, &format!("{text};"));
            }
            Statement::Expression(e) => {
                let text = self.expression(*e);
                self.line(indent, &format!("{text};"));
            }
            Statement::Block(block) => {
                self.line(indent, "{");
                self.block_body(block, indent + 1);
                self.line(indent, "}");
            }
            Statement::If { condition, accept, reject } => {
                let opening = format!("if ({})", self.expression(*condition));
                self.if_chain(&opening, accept, reject, indent);
            }
            Statement::Loop { form, init, condition, update, body, pragma } => {
                let pragma_line = pragma.as_deref().map(unroll_pragma);
                let condition_text = condition.map(|c| self.expression(c)).unwrap_or_default();
                match form {
                    LoopForm::For => {
                        let init_text = match self.for_init(init) {
                            Some(text) => text,
                            None => {
                                // An init the for-header cannot hold goes into a scope of its
                                // own before the loop.
                                self.line(indent, "{");
                                self.block_body(init, indent + 1);
                                if let Some(pragma) = &pragma_line {
                                    self.line(indent + 1, pragma);
                                }
                                self.for_loop("", &condition_text, *update, body, indent + 1);
                                self.line(indent, "}");
                                return;
                            }
                        };
                        if let Some(pragma) = &pragma_line {
                            self.line(indent, pragma);
                        }
                        self.for_loop(&init_text, &condition_text, *update, body, indent);
                    }
                    LoopForm::While | LoopForm::DoWhile => {
                        if let Some(pragma) = &pragma_line {
                            self.line(indent, pragma);
                        }
                        self.while_loop(*form, *condition, condition_text, body, indent);
                    }
                }
            }
            Statement::Switch { selector, cases } => {
                let opening = format!("switch ({})", self.expression(*selector));
                self.line(indent, &format!("{opening} {{"));
                for case in cases {
                    self.case(case, indent + 1);
                }
                self.line(indent, "}");
            }
            Statement::Break => self.line(indent, "break;"),
            Statement::Continue => self.line(indent, "continue;"),
            Statement::Return(None) => self.line(indent, "return;"),
            Statement::Return(Some(value)) => {
                let text = format!("return {};", self.expression(*value));
                self.line(indent, &text);
            }
            Statement::Barrier(flags) => {
                self.line(indent, &format!("barrier({});", fence_flags(*flags)));
            }
            Statement::MemFence { flags, kind } => {
                let name = match kind {
                    FenceKind::ReadWrite => "mem_fence",
                    FenceKind::Read => "read_mem_fence",
                    FenceKind::Write => "write_mem_fence",
                };
                self.line(indent, &format!("{name}({});", fence_flags(*flags)));
            }
        }
    }

    fn while_loop(
        &mut self,
        form: LoopForm,
        condition: Option<Handle<Expression>>,
        condition_text: String,
        body: &Block,
        indent: usize,
    ) {
        // A loop without a condition runs until a `break`.
        let condition_text = if condition.is_some() { condition_text } else { "1".to_string() };
        if form == LoopForm::DoWhile {
            self.braced("do", body, indent);
            self.line(indent, &format!("}} while ({condition_text});"));
        } else {
            self.braced(&format!("while ({condition_text})"), body, indent);
            self.line(indent, "}");
        }
    }

    /// `if … else if … else …`: an else branch that is exactly one `if` continues the chain.
    fn if_chain(&mut self, opening: &str, accept: &Block, reject: &Block, indent: usize) {
        self.braced(opening, accept, indent);
        match reject.statements.as_slice() {
            [] => self.line(indent, "}"),
            [Statement::If { condition, accept, reject }] if indent <= MAX_NESTING => {
                let opening = format!("}} else if ({})", self.expression(*condition));
                self.if_chain(&opening, accept, reject, indent);
            }
            _ => {
                self.braced("} else", reject, indent);
                self.line(indent, "}");
            }
        }
    }

    fn for_loop(
        &mut self,
        init: &str,
        condition: &str,
        update: Option<Handle<Expression>>,
        body: &Block,
        indent: usize,
    ) {
        let update = update.map(|u| self.expression(u)).unwrap_or_default();
        let condition = if condition.is_empty() { String::new() } else { format!(" {condition}") };
        let update = if update.is_empty() { String::new() } else { format!(" {update}") };
        self.braced(&format!("for ({init};{condition};{update})"), body, indent);
        self.line(indent, "}");
    }

    /// The first clause of a for-header: empty, one expression, or declarations that share a
    /// type specifier. `None` when the init block holds anything else.
    fn for_init(&self, init: &Block) -> Option<String> {
        match init.statements.as_slice() {
            [] => Some(String::new()),
            [Statement::Expression(e)] => Some(self.expression(*e)),
            statements => {
                let mut declared = Vec::new();
                for statement in statements {
                    let Statement::Declare { variable, init } = statement else {
                        return None;
                    };
                    declared.push((*variable, *init));
                }
                let specifiers: Vec<String> =
                    declared.iter().map(|(v, _)| self.local_declaration(*v).specifier).collect();
                if specifiers.windows(2).all(|w| w[0] == w[1]) {
                    Some(self.declare(&declared))
                } else {
                    None
                }
            }
        }
    }

    fn local_declaration(&self, variable: Handle<LocalVariable>) -> Declaration {
        let Some(local) = self.function.locals.get(variable) else {
            return Declaration {
                specifier: "int".to_string(),
                declarator: format!("/* invalid local {} */ invalid", variable.index()),
            };
        };
        let space = match local.space {
            AddressSpace::Private => "",
            other => other.qualifier(),
        };
        let qualifiers = [
            space,
            if local.is_const { "const" } else { "" },
            if local.is_volatile { "volatile" } else { "" },
        ];
        declaration(self.module, local.ty, &qualifiers, &local.name)
    }

    /// One declaration statement (without `;`) declaring every variable in `declared`, which
    /// share their specifier.
    fn declare(&self, declared: &[(Handle<LocalVariable>, Option<Handle<Expression>>)]) -> String {
        let mut text = String::new();
        for (i, (variable, init)) in declared.iter().enumerate() {
            let decl = self.local_declaration(*variable);
            if i == 0 {
                text.push_str(&decl.joined());
            } else {
                let _ = write!(text, ", {}", decl.declarator);
            }
            if let Some(align) = self.function.locals.get(*variable).and_then(|l| l.align) {
                let _ = write!(text, " __attribute__((aligned({align})))");
            }
            if let Some(init) = init {
                let _ = write!(text, " = {}", self.expressions.initializer(*init));
            }
        }
        text
    }

    fn case(&mut self, case: &SwitchCase, indent: usize) {
        match case.value {
            Some(value) => self.line(indent, &format!("case {}:", case_value(value))),
            None => self.line(indent, "default:"),
        }
        // A label cannot be followed by a declaration in C: such a body gets its own scope.
        let starts_with_declaration =
            matches!(case.body.statements.first(), Some(Statement::Declare { .. }));
        if starts_with_declaration {
            self.line(indent + 1, "{");
            self.block_body(&case.body, indent + 2);
            self.line(indent + 1, "}");
        } else {
            self.block_body(&case.body, indent + 1);
        }
        // Sema keeps the `break` that ends a case in its body; one is added only where the
        // body does not already leave the case.
        if !case.fall_through && !ends_in_jump(&case.body) {
            self.line(indent + 1, "break;");
        }
    }
}

fn ends_in_jump(block: &Block) -> bool {
    matches!(
        block.statements.last(),
        Some(Statement::Break | Statement::Continue | Statement::Return(_))
    )
}

/// The `#pragma unroll` line of a loop. The IR keeps either the whole text after `pragma`
/// (`unroll 4`) or only the argument of `unroll` (`4`, or empty); both print the same.
fn unroll_pragma(text: &str) -> String {
    let text = text.trim();
    let argument = match text.strip_prefix("unroll") {
        Some(rest) if rest.is_empty() || rest.starts_with([' ', '(', '\t']) => rest.trim(),
        _ => text,
    };
    if argument.is_empty() {
        "#pragma unroll".to_string()
    } else {
        format!("#pragma unroll {argument}")
    }
}

fn case_value(value: i64) -> String {
    if value == i64::MIN {
        "(-9223372036854775807L - 1L)".to_string()
    } else if i32::try_from(value).is_ok() {
        value.to_string()
    } else {
        format!("{value}L")
    }
}

fn fence_flags(flags: FenceFlags) -> String {
    match (flags.local, flags.global) {
        (false, false) => "0".to_string(),
        (true, false) => "CLK_LOCAL_MEM_FENCE".to_string(),
        (false, true) => "CLK_GLOBAL_MEM_FENCE".to_string(),
        (true, true) => "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE".to_string(),
    }
}
