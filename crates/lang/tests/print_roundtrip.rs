//! The printer's parentheses keep the tree: random fully parenthesised expressions are checked,
//! printed with minimal parentheses, checked again, and the two modules must dump the same.
//! A text fixpoint alone would not catch a lost pair of parentheses (`a - (b - c)` printed as
//! `a - b - c` reprints as itself); comparing the IR does.

use clmap_lang::ir::Module;
use clmap_lang::preprocess::{self, BuildOptions, FsLoader};
use clmap_lang::span::SourceMap;
use clmap_lang::{dump, parse, print, sema, valid};

fn compile(text: &str) -> Result<Module, String> {
    let mut sources = SourceMap::new();
    let main = sources.add_text("roundtrip.cl", text);
    let pre = preprocess::preprocess(&mut sources, main, &BuildOptions::default(), &FsLoader);
    let (unit, mut diagnostics) = parse::parse(&pre.tokens);
    diagnostics.extend(pre.diagnostics);
    if diagnostics.has_errors() {
        return Err(diagnostics.render(&sources));
    }
    let (module, diagnostics) = sema::check(&unit);
    match module {
        Some(module) if !diagnostics.has_errors() => {
            valid::validate(&module).map_err(|errors| format!("{errors:?}"))?;
            Ok(module)
        }
        _ => Err(diagnostics.render(&sources)),
    }
}

struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const BINARY: &[&str] = &[
    "*", "/", "%", "+", "-", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&",
    "||",
];

/// A random `int` expression over `a`, `b`, `c`, fully parenthesised.
fn int_expression(rng: &mut SplitMix, depth: usize) -> String {
    if depth == 0 {
        return rng.pick(&["a", "b", "c", "1", "7", "v.x", "v.w", "arr[1]"]).to_string();
    }
    match rng.below(9) {
        0 => format!("({}{})", rng.pick(&["-", "!", "~"]), int_expression(rng, depth - 1)),
        1 => format!(
            "({} ? {} : {})",
            int_expression(rng, depth - 1),
            int_expression(rng, depth - 1),
            int_expression(rng, depth - 1)
        ),
        2 => format!("((int)(f * {}))", int_expression(rng, depth - 1)),
        3 => format!("(a = {})", int_expression(rng, depth - 1)),
        4 => format!("({}, {})", int_expression(rng, depth - 1), int_expression(rng, depth - 1)),
        5 => {
            format!("(b {}= {})", rng.pick(&["+", "*", "^", "<<"]), int_expression(rng, depth - 1))
        }
        6 => format!(
            "({}{})",
            rng.pick(&["c++ + ", "++c + ", "c-- - "]),
            int_expression(rng, depth - 1)
        ),
        _ => {
            let op = rng.pick(BINARY);
            format!("({} {op} {})", int_expression(rng, depth - 1), int_expression(rng, depth - 1))
        }
    }
}

#[test]
fn minimal_parentheses_preserve_the_tree() {
    let mut rng = SplitMix(2024);
    let mut checked = 0;
    for _ in 0..300 {
        let depth = 1 + rng.below(5);
        let expression = int_expression(&mut rng, depth);
        let source = format!(
            "__kernel void k(__global int *out, int a, int b, int c, float f, int4 v) {{\n    int arr[2] = {{a, b}};\n    out[0] = {expression};\n}}\n"
        );
        let original = compile(&source).unwrap_or_else(|e| panic!("{source}\n{e}"));
        let printed = print::print_module(&original);
        let reparsed = compile(&printed).unwrap_or_else(|e| panic!("{printed}\n{e}"));
        assert_eq!(
            dump::dump_module(&original, None),
            dump::dump_module(&reparsed, None),
            "printing changed the tree of\n{expression}\ninto\n{printed}"
        );
        assert_eq!(print::print_module(&reparsed), printed, "not a fixpoint");
        checked += 1;
    }
    assert_eq!(checked, 300);
}

/// The dump with the type table's numbering taken out: a printed program may declare its
/// structs in another order (a forward declaration `struct b;` is not kept), which renumbers
/// the types but changes none of them. Functions name their types, so they are compared as
/// they are.
fn dump_without_type_numbers(module: &Module) -> String {
    let dumped = dump::dump_module(module, None);
    let (types, rest) = dumped.split_once("\ntypedefs:").unwrap_or((&dumped, ""));
    let mut lines: Vec<&str> = types
        .lines()
        .map(|line| line.trim_start().split_once("] ").map_or(line, |(_, t)| t))
        .collect();
    lines.sort_unstable();
    format!("{}\ntypedefs:{rest}", lines.join("\n"))
}

#[test]
fn self_referential_structs_print_back_to_the_same_ir() {
    let sources = [
        "typedef struct node { struct node *next; int v; } node;\n\
         __kernel void k(__global int *out) {\n\
             node n; n.v = 7; n.next = &n;\n\
             out[0] = n.next->next->next->v;\n\
         }\n",
        "struct b;\n\
         struct a { struct b *p; int y; };\n\
         struct b { struct a *q; int x; };\n\
         __kernel void k(__global int *out) {\n\
             struct a l; struct b r; l.p = &r; r.q = &l; r.x = 5;\n\
             out[0] = l.p->q->p->x;\n\
         }\n",
        "struct opaque;\n\
         typedef struct list list;\n\
         struct list { __local list *next; __global struct opaque *payload; int value; };\n\
         __kernel void k(__global int *out, __global struct opaque *o, __local list *cells) {\n\
             cells[0].next = 0; cells[0].payload = o; cells[0].value = 1;\n\
             out[0] = cells->next == 0 ? cells->value : 0;\n\
         }\n",
        "struct outer { struct inner { int w; } in; struct outer *self; };\n\
         __kernel void k(__global int *out) {\n\
             struct outer o; o.self = &o; o.in.w = 2; out[0] = o.self->self->in.w;\n\
         }\n",
    ];
    for source in sources {
        let original = compile(source).unwrap_or_else(|e| panic!("{source}\n{e}"));
        let printed = print::print_module(&original);
        let reparsed = compile(&printed).unwrap_or_else(|e| panic!("{printed}\n{e}"));
        assert_eq!(
            dump_without_type_numbers(&original),
            dump_without_type_numbers(&reparsed),
            "printing changed\n{source}\ninto\n{printed}"
        );
        assert_eq!(print::print_module(&reparsed), printed, "not a fixpoint");
    }
}
