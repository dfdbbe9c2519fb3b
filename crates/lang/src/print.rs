//! The OpenCL C back end: IR to source text that clang accepts and that computes the same.
//!
//! Modelled on naga's MSL writer: one pass over the module that writes declarations before
//! their first use (pragmas, struct definitions, typedefs, program-scope constants, then
//! functions in module order, helpers before the kernels that call them). The output is
//! deterministic (4-space indentation, one statement per line) and a fixpoint of reading it
//! back: printing the checked result of the printed text yields the same text.
//!
//! Conversions sema made explicit are left out where C performs them anyway
//! ([`ConversionKind::Implicit`](crate::ir::ConversionKind)), so the text stays close to what
//! the user wrote.

mod expr;
mod literal;
mod stmt;
#[cfg(test)]
mod tests;
mod types;

use crate::ir::{
    ConstValue, Expression, Function, FunctionKind, GlobalVariable, Handle, Module, StructNaming,
    Type, TypeInner,
};
use crate::span::Span;
use std::fmt::Write as _;

pub(crate) use expr::ExpressionPrinter;
use types::declaration;

const INDENT: &str = "    ";

/// The whole translation unit.
pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    let leading = |p: &&crate::ir::ModulePragma| p.before_function == 0;
    for pragma in module.pragmas.iter().filter(leading) {
        let _ = writeln!(out, "{}", pragma_line(&pragma.text));
    }
    let mut section = Section::new(&mut out);
    let mut typedef_run = String::new();
    for item in type_declarations(module) {
        match item {
            TypeDeclaration::Struct(_, ty) => {
                section.item(&std::mem::take(&mut typedef_run));
                section.item(&struct_definition(module, ty));
            }
            TypeDeclaration::Typedef(t) => {
                let decl = declaration(module, t.ty, &[], &t.name).joined();
                let _ = writeln!(typedef_run, "typedef {decl};");
            }
        }
    }
    section.item(&typedef_run);
    // String literals are written where they are used, not declared.
    let globals: String = module
        .global_variables
        .iter()
        .filter(|(_, g)| g.string_literal().is_none())
        .map(|(_, g)| global(module, g))
        .collect();
    section.item(&globals);
    for (index, handle) in module.functions.handles().enumerate() {
        let mut text = String::new();
        if index > 0 {
            for pragma in module.pragmas.iter().filter(|p| p.before_function == index) {
                let _ = writeln!(text, "{}", pragma_line(&pragma.text));
            }
        }
        text.push_str(&print_function(module, handle));
        section.item(&text);
    }
    let count = module.functions.len();
    let trailing: String = module
        .pragmas
        .iter()
        .filter(|p| p.before_function >= count && p.before_function > 0)
        .map(|p| format!("{}\n", pragma_line(&p.text)))
        .collect();
    section.item(&trailing);
    out
}

/// One function definition, header and body.
pub fn print_function(module: &Module, f: Handle<Function>) -> String {
    match module.functions.get(f) {
        Some(function) => stmt::FunctionPrinter::new(module, function).definition(),
        None => format!("/* invalid function {} */\n", f.index()),
    }
}

/// One expression of `f`, without surrounding parentheses.
pub fn print_expression(module: &Module, f: &Function, e: Handle<Expression>) -> String {
    ExpressionPrinter { module, function: f }.expression(e, expr::prec::NONE)
}

/// A type as a type name, e.g. `__global float *` or `struct Point`.
pub fn print_type(module: &Module, ty: Handle<Type>) -> String {
    types::type_name(module, ty)
}

/// A literal as the printer spells it (`1.0f`, `3u`), for the IR dump.
pub(crate) fn literal_text(lit: crate::ir::Literal) -> String {
    literal::literal(lit).text
}

/// Items separated by one blank line, empty items skipped.
struct Section<'o> {
    out: &'o mut String,
}

impl<'o> Section<'o> {
    fn new(out: &'o mut String) -> Self {
        Section { out }
    }

    fn item(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        self.out.push_str(text);
    }
}

fn pragma_line(text: &str) -> String {
    let text = text.trim();
    if text.starts_with('#') {
        text.to_string()
    } else {
        format!("#pragma {text}")
    }
}

/// A struct definition (or declaration, for a struct never completed) or a typedef at file
/// scope.
enum TypeDeclaration<'m> {
    Struct(Handle<Type>, &'m TypeInner),
    Typedef(&'m crate::ir::Typedef),
}

/// Struct definitions and typedefs in the order the source declared them, when their spans
/// say so (all in one file); otherwise structs in type order, then typedefs. Then a struct
/// held by value in another (a member, an array element) moves before it if it came after:
/// `struct outer { struct inner { int x; } i; }` exists, incomplete, before `inner`.
/// Pointers need no order: in C a `struct b *` member declares `struct b` at file scope, so
/// structs pointing to each other print in either order.
fn type_declarations(module: &Module) -> Vec<TypeDeclaration<'_>> {
    let mut items: Vec<(Span, TypeDeclaration<'_>)> = Vec::new();
    for (handle, ty) in module.types.iter() {
        if let TypeInner::Struct { .. } = ty {
            items.push((module.types.span(handle), TypeDeclaration::Struct(handle, ty)));
        }
    }
    for t in &module.typedefs {
        if !names_typedef_struct(module, &t.name, t.ty) {
            items.push((t.span, TypeDeclaration::Typedef(t)));
        }
    }
    let file = items.first().map(|(span, _)| span.file);
    if items.iter().all(|(span, _)| span.is_defined() && Some(span.file) == file) {
        // Stable: equal starts keep the struct-then-typedef order.
        items.sort_by_key(|(span, _)| span.start);
    }
    let mut placed = vec![false; module.types.len()];
    let mut ordered = Vec::with_capacity(items.len());
    for (_, item) in items {
        if let TypeDeclaration::Struct(handle, _) = item {
            place_struct(module, handle, &mut placed, &mut ordered);
        } else {
            ordered.push(item);
        }
    }
    ordered
}

/// Appends the struct `ty` after the structs it holds by value that are not placed yet. The
/// validator guarantees no struct holds itself, so this terminates; `placed` also guards it.
fn place_struct<'m>(
    module: &'m Module,
    ty: Handle<Type>,
    placed: &mut [bool],
    ordered: &mut Vec<TypeDeclaration<'m>>,
) {
    let Some(slot) = placed.get_mut(ty.index()) else { return };
    if *slot {
        return;
    }
    *slot = true;
    let Some(inner @ TypeInner::Struct { members, .. }) = module.types.get(ty) else { return };
    place_held_structs(module, members, placed, ordered);
    ordered.push(TypeDeclaration::Struct(ty, inner));
}

/// Places the structs that `members` hold by value. An anonymous member's record is printed
/// inside its parent, so it is not placed itself; what it holds is.
fn place_held_structs<'m>(
    module: &'m Module,
    members: &'m [crate::ir::StructMember],
    placed: &mut [bool],
    ordered: &mut Vec<TypeDeclaration<'m>>,
) {
    for member in members {
        if member.is_anonymous() {
            if let Some(TypeInner::Struct { members: inner, .. }) = module.types.get(member.ty) {
                if let Some(slot) = placed.get_mut(member.ty.index()) {
                    if *slot {
                        continue;
                    }
                    *slot = true;
                }
                place_held_structs(module, inner, placed, ordered);
            }
            continue;
        }
        let mut held = member.ty;
        for _ in 0..placed.len() {
            match module.types.get(held) {
                Some(TypeInner::Array { element, .. }) => held = *element,
                _ => break,
            }
        }
        if matches!(module.types.get(held), Some(TypeInner::Struct { .. })) {
            place_struct(module, held, placed, ordered);
        }
    }
}

/// Whether a typedef is the one that names a `typedef struct { … } Name;` (printed with the
/// struct itself).
fn names_typedef_struct(module: &Module, name: &str, ty: Handle<Type>) -> bool {
    matches!(
        module.types.get(ty),
        Some(TypeInner::Struct { name: n, naming: StructNaming::Typedef, .. }) if n == name
    )
}

fn struct_definition(module: &Module, ty: &TypeInner) -> String {
    let TypeInner::Struct { name, naming, is_union, members, is_complete, .. } = ty else {
        return String::new();
    };
    let keyword = if *is_union { "union" } else { "struct" };
    if !is_complete {
        // Declared only, and used only through pointers.
        return format!("{keyword} {name};\n");
    }
    let body = struct_body(module, members, 1);
    let attributes = layout_attributes(module, ty);
    match naming {
        StructNaming::Tag => format!("{keyword} {attributes}{name} {{\n{body}}};\n"),
        StructNaming::Typedef => format!("typedef {keyword} {attributes}{{\n{body}}} {name};\n"),
    }
}

/// The member lines of a record at `depth` levels of indentation; an anonymous member's record
/// is written in place, without a name, as the source had it.
fn struct_body(module: &Module, members: &[crate::ir::StructMember], depth: usize) -> String {
    let indent = INDENT.repeat(depth);
    let mut body = String::new();
    for member in members {
        match module.types.get(member.ty) {
            Some(nested @ TypeInner::Struct { is_union, members: inner, .. })
                if member.is_anonymous() && depth < MAX_ANONYMOUS_DEPTH =>
            {
                let keyword = if *is_union { "union" } else { "struct" };
                let attributes = layout_attributes(module, nested);
                let inner = struct_body(module, inner, depth + 1);
                let _ = writeln!(body, "{indent}{keyword} {attributes}{{\n{inner}{indent}}};");
            }
            _ => {
                let decl = declaration(module, member.ty, &[], &member.name);
                let _ = writeln!(body, "{indent}{};", decl.joined());
            }
        }
    }
    body
}

/// Deeper anonymous records than this are printed as named members (a bound on recursion
/// over a module the validator has not seen).
const MAX_ANONYMOUS_DEPTH: usize = 64;

/// `__attribute__((packed))` and `__attribute__((aligned(N)))` where the struct's recorded
/// layout differs from the natural one, so that buffers shared with the host keep their layout.
fn layout_attributes(module: &Module, ty: &TypeInner) -> String {
    let TypeInner::Struct { is_union, members, align, .. } = ty else {
        return String::new();
    };
    let mut natural_end = 0u32;
    let mut packed_end = 0u32;
    let mut natural_align = 1u32;
    let mut natural = true;
    let mut packed = true;
    for member in members {
        let member_align = module.align_of(member.ty).max(1);
        let size = module.size_of(member.ty);
        natural_align = natural_align.max(member_align);
        let (natural_offset, packed_offset) = if *is_union {
            (0, 0)
        } else {
            (natural_end.div_ceil(member_align).saturating_mul(member_align), packed_end)
        };
        natural &= member.offset == natural_offset;
        packed &= member.offset == packed_offset;
        natural_end = natural_end.max(natural_offset.saturating_add(size));
        packed_end = packed_end.max(packed_offset.saturating_add(size));
    }
    let mut attributes = String::new();
    let base_align = if !natural && packed {
        attributes.push_str("__attribute__((packed)) ");
        1
    } else {
        natural_align
    };
    if *align > base_align {
        let _ = write!(attributes, "__attribute__((aligned({align}))) ");
    }
    attributes
}

fn global(module: &Module, variable: &GlobalVariable) -> String {
    let decl = declaration(module, variable.ty, &[variable.space.qualifier()], &variable.name);
    match &variable.init {
        Some(init) => {
            format!("{} = {};\n", decl.joined(), const_value(module, init, variable.ty, 0))
        }
        None => format!("{};\n", decl.joined()),
    }
}

/// A program-scope initialiser, shaped by the type it initialises.
fn const_value(module: &Module, value: &ConstValue, ty: Handle<Type>, depth: usize) -> String {
    let inner = module.types.get(ty);
    if depth > expr::MAX_DEPTH {
        return "0".to_string();
    }
    match (value, inner) {
        (ConstValue::Literal(lit), Some(TypeInner::Sampler)) => sampler_text(*lit),
        (ConstValue::Literal(lit), Some(TypeInner::Vector { .. })) => {
            format!("({})({})", types::type_name(module, ty), literal::literal(*lit).text)
        }
        (ConstValue::Literal(lit), _) => literal::literal(*lit).text,
        (ConstValue::Zero, Some(TypeInner::Scalar(s))) => {
            literal::literal(expr::zero_literal(*s)).text
        }
        (ConstValue::Zero, Some(TypeInner::Vector { scalar, .. })) => format!(
            "({})({})",
            types::type_name(module, ty),
            literal::literal(expr::zero_literal(*scalar)).text
        ),
        (ConstValue::Zero, _) => "{0}".to_string(),
        (ConstValue::Address { global, offset }, _) => address_text(module, *global, *offset, ty),
        (ConstValue::Composite(items), Some(TypeInner::Vector { scalar, size })) => {
            // A vector literal needs every component: missing trailing ones are zero.
            let zero = literal::literal(expr::zero_literal(*scalar)).text;
            let element = module.types.find(&TypeInner::Scalar(*scalar));
            let mut parts: Vec<String> = items
                .iter()
                .map(|item| match element {
                    Some(el) => const_value(module, item, el, depth + 1),
                    None => zero.clone(),
                })
                .collect();
            let count: u32 = items.len() as u32;
            for _ in count..size.width() {
                parts.push(zero.clone());
            }
            format!("({})({})", types::type_name(module, ty), parts.join(", "))
        }
        (ConstValue::Composite(items), Some(TypeInner::Array { element, .. })) => {
            let parts: Vec<String> =
                items.iter().map(|item| const_value(module, item, *element, depth + 1)).collect();
            format!("{{{}}}", parts.join(", "))
        }
        (ConstValue::Composite(items), Some(TypeInner::Struct { members, .. })) => {
            let parts: Vec<String> = items
                .iter()
                .zip(members)
                .map(|(item, m)| const_value(module, item, m.ty, depth + 1))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        (ConstValue::Composite(items), _) => match items.first() {
            Some(first) => format!("{{{}}}", const_value(module, first, ty, depth + 1)),
            None => "{0}".to_string(),
        },
    }
}

/// The address of byte `offset` of a program-scope variable, as a constant of pointer type
/// `ty`: `&name` cast to it, stepped through `uchar` when the address is inside the variable.
fn address_text(
    module: &Module,
    global: Handle<GlobalVariable>,
    offset: u64,
    ty: Handle<Type>,
) -> String {
    let Some(target) = module.global_variables.get(global) else { return "0".to_string() };
    let pointer = types::type_name(module, ty);
    let name = target.string_literal().map_or_else(|| target.name.clone(), |t| literal::string(&t));
    if offset == 0 {
        return format!("({pointer})&{name}");
    }
    let space = target.space.qualifier();
    format!("({pointer})(({space} uchar *)&{name} + {offset})")
}

/// A sampler's value as the `CLK_*` flags that make it (the literal itself when it is no
/// valid combination, which the validator refuses).
pub(crate) fn sampler_text(value: crate::ir::Literal) -> String {
    value
        .as_i128()
        .and_then(|v| u32::try_from(v).ok())
        .and_then(crate::ir::SamplerBits::decode)
        .map_or_else(|| literal::literal(value).text, crate::ir::SamplerBits::constant_names)
}

/// Whether a function is a kernel (for the header).
fn is_kernel(function: &Function) -> bool {
    matches!(function.kind, FunctionKind::Kernel(_))
}
