//! Behaviour of the whole preprocessor, from source text to tokens.

use super::*;
use crate::token::{Punct, TokenKind};

fn run(text: &str) -> (SourceMap, Preprocessed) {
    preprocess_text(text, &BuildOptions::default())
}

/// Output text of a program that must preprocess without errors.
fn pp(text: &str) -> String {
    let (sources, result) = run(text);
    assert!(!result.diagnostics.has_errors(), "{}", result.diagnostics.render(&sources));
    tokens_to_string(&result.tokens)
}

fn pp_with(text: &str, options: &str) -> String {
    let options = BuildOptions::parse(options).expect("options");
    let (sources, result) = preprocess_text(text, &options);
    assert!(!result.diagnostics.has_errors(), "{}", result.diagnostics.render(&sources));
    tokens_to_string(&result.tokens)
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

fn errors(text: &str) -> Vec<String> {
    let (_, result) = run(text);
    result.diagnostics.0.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect()
}

fn warnings(text: &str) -> Vec<String> {
    let (_, result) = run(text);
    result.diagnostics.0.iter().filter(|d| !d.is_error()).map(|d| d.message.clone()).collect()
}

#[test]
fn c99_example_3_rescanning_and_hide_sets() {
    let text = "#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
";
    let expected = "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
int i[] = { 1, 23, 4, 5, };
char c[2][6] = { \"hello\", \"\" };";
    assert_eq!(squash(&pp(text)), squash(expected));
}

#[test]
fn c99_example_4_stringification_and_pasting() {
    let text = r#"#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: x), s);
xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)
"#;
    let (sources, result) = run(text);
    assert!(!result.diagnostics.has_errors(), "{}", result.diagnostics.render(&sources));
    let strings: Vec<String> = result
        .tokens
        .iter()
        .filter_map(|t| match &t.kind {
            TokenKind::Str(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        strings,
        [
            "x",
            "1",
            "= %d, x",
            "2",
            "= %s",
            r#"strncmp("abc\0d", "abc", '\4') == 0"#,
            ": x",
            "vers2.h",
            "hello",
            "hello",
            ", world"
        ]
    );
    let out = tokens_to_string(&result.tokens);
    assert!(out.starts_with("printf(\"x\" \"1\" \"= %d, x\" \"2\" \"= %s\", x1, x2);"), "{out}");
    // The stringified literal is spelled with escapes, as a compiler would need it.
    let literal = result
        .tokens
        .iter()
        .find(|t| matches!(&t.kind, TokenKind::Str(s) if s.starts_with("strncmp")));
    let literal = literal.expect("stringified strncmp");
    assert_eq!(sources.snippet(literal.span), r#""strncmp(\"abc\\0d\", \"abc\", '\\4') == 0""#);
}

#[test]
fn c99_example_5_placemarkers() {
    let text = "#define t(x,y,z) x ## y ## z
int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),
 t(10,,), t(,11,), t(,,12), t(,,) };";
    assert_eq!(squash(&pp(text)), squash("int j[] = { 123, 45, 67, 89, 10, 11, 12, };"));
}

#[test]
fn c99_example_7_variadic_macros() {
    let text = r#"#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test): printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
"#;
    let expected = r#"fprintf(stderr, "Flag" );
fprintf(stderr, "X = %d\n", x );
puts( "The first, second, and third items." );
((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));"#;
    assert_eq!(squash(&pp(text)), squash(expected));
}

#[test]
fn hash_hash_example_pastes_into_a_plain_token() {
    let text = "#define hash_hash # ## #
#define mkstr(a) # a
#define in_between(a) mkstr(a)
#define join(c, d) in_between(c hash_hash d)
char p[] = join(x, y);";
    assert_eq!(pp(text), "char p[] = \"x ## y\";");
}

#[test]
fn variadic_edge_cases() {
    assert_eq!(
        pp("#define V(a, ...) a + f(__VA_ARGS__)\nV(1) V(1,) V(1, 2, (3, 4))"),
        "1 + f() 1 + f() 1 + f(2, (3, 4))"
    );
    assert_eq!(pp("#define E(...) [__VA_ARGS__]\nE() E(a,b)"), "[] [a,b]");
}

#[test]
fn function_like_macro_without_parenthesis_is_left_alone() {
    assert_eq!(pp("#define f(x) (x)\nint f; f\n(1) f /* c */ (2)"), "int f; (1) (2)");
    assert_eq!(pp("#define f(x) <x>\n#define g f\ng(1) g"), "<1> f");
}

#[test]
fn arguments_span_lines_and_nest_parentheses() {
    assert_eq!(pp("#define f(a, b) a|b\nf((1, 2),\n  g(3,\n 4))"), "(1, 2)| g(3, 4)");
    assert_eq!(pp("#define f(a) [a]\nf() f( ) f(())"), "[] [] [()]");
}

#[test]
fn macros_do_not_expand_inside_themselves() {
    assert_eq!(pp("#define foo foo + 1\nfoo"), "foo + 1");
    assert_eq!(pp("#define a b\n#define b a\na b"), "a b");
    assert_eq!(pp("#define f(x) x f\nf(1)(2)"), "1 f(2)");
}

#[test]
fn conditionals_choose_groups() {
    let text = "#define A 2
#if A == 1
one
#elif A == 2
two
#  if 0
'unbalanced quote in a skipped group
#  elif 1
nested_elif
#  elif 1/0
#  else
'unbalanced
#  endif
#else
three
#endif
#ifdef A
has_a
#endif
#ifndef A
no_a
#else
else_a
#endif
#if defined(A) && !defined B && defined A
defs
#endif
#if (-1 < 0u) || (-7 / 2 != -3) || (1 << 4 != 16)
wrong
#endif
#
end";
    assert_eq!(pp(text), "two nested_elif has_a else_a defs end");
}

#[test]
fn defined_operand_is_not_expanded() {
    assert_eq!(pp("#define X Y\n#if defined X && !defined Y\nok\n#endif"), "ok");
    assert_eq!(
        pp("#define ZERO 0\n#if ZERO\nno\n#elif UNDEFINED_NAME\nno\n#else\nyes\n#endif"),
        "yes"
    );
}

#[test]
fn include_search_order() {
    let mut files = HashMap::new();
    files.insert(PathBuf::from("src/a.h"), "src_a sub_include\n#include \"sub/b.h\"\n".to_string());
    files.insert(PathBuf::from("src/sub/b.h"), "src_sub_b\n#include \"c.h\"\n".to_string());
    files.insert(PathBuf::from("src/sub/c.h"), "src_sub_c\n".to_string());
    files.insert(PathBuf::from("inc/a.h"), "inc_a\n".to_string());
    files.insert(PathBuf::from("inc/only.h"), "inc_only\n".to_string());
    files.insert(PathBuf::from("inc2/only.h"), "inc2_only\n".to_string());
    files.insert(PathBuf::from("inc/once.h"), "#pragma once\nonce\n".to_string());
    let loader = MemoryLoader(files);
    let mut sources = SourceMap::new();
    let main = sources.add(crate::span::SourceFile::new(
        "main.cl",
        Some(PathBuf::from("src/main.cl")),
        "#include \"a.h\"\n#include <a.h>\n#include \"only.h\"\n#define H <only.h>\n#include H\n#include \"once.h\"\n#include <once.h>\nend"
            .to_string(),
    ));
    let options = BuildOptions::parse("-I inc -I inc2").expect("options");
    let result = preprocess(&mut sources, main, &options, &loader);
    assert!(!result.diagnostics.has_errors(), "{}", result.diagnostics.render(&sources));
    assert_eq!(
        tokens_to_string(&result.tokens),
        "src_a sub_include src_sub_b src_sub_c inc_a inc_only inc_only once end"
    );
    let names: Vec<&str> =
        result.included_files.iter().map(|&f| sources.file(f).name.as_str()).collect();
    assert_eq!(
        names,
        [
            "src/a.h",
            "src/sub/b.h",
            "src/sub/c.h",
            "inc/a.h",
            "inc/only.h",
            "inc/only.h",
            "inc/once.h"
        ]
    );
}

#[test]
fn include_problems_are_diagnosed_at_the_directive() {
    let text = "#include \"missing.h\"\nint x;";
    let (sources, result) = run(text);
    let d = &result.diagnostics.0[0];
    assert!(d.is_error() && d.message.contains("missing.h"));
    assert_eq!(sources.snippet(d.span), "#include \"missing.h\"");
    assert_eq!(tokens_to_string(&result.tokens), "int x;");

    let mut files = HashMap::new();
    files.insert(PathBuf::from("self.h"), "x\n#include \"self.h\"\n".to_string());
    let mut sources = SourceMap::new();
    let main = sources.add_text("main.cl", "#include \"self.h\"\n");
    let result = preprocess(&mut sources, main, &BuildOptions::default(), &MemoryLoader(files));
    assert!(result.diagnostics.0.iter().any(|d| d.message.contains("nested too deeply")));
    assert_eq!(result.tokens.len(), 201, "200 levels of x, then the error, then Eof");
}

#[test]
fn predefined_macros_follow_the_options() {
    assert_eq!(pp("__OPENCL_VERSION__ __OPENCL_C_VERSION__ CL_VERSION_1_2 __ENDIAN_LITTLE__ __STDC_VERSION__"), "120 120 120 1 199901l");
    assert_eq!(
        pp_with("__OPENCL_C_VERSION__ CL_VERSION_2_0", "-cl-std=CL1.1"),
        "110 CL_VERSION_2_0"
    );
    assert_eq!(pp_with("__OPENCL_C_VERSION__ CL_VERSION_2_0", "-cl-std=CL2.0"), "200 200");
    assert_eq!(pp("__FAST_RELAXED_MATH__"), "__FAST_RELAXED_MATH__");
    assert_eq!(pp_with("__FAST_RELAXED_MATH__", "-cl-fast-relaxed-math"), "1");
    assert_eq!(pp("cl_khr_fp64 cl_khr_int64_base_atomics cl_khr_fp16"), "1 1 1");
    assert_eq!(pp("INT_MIN UINT_MAX CHAR_BIT"), "(-2147483647 - 1) 4294967295u 8");
    assert_eq!(pp("INFINITY NAN FP_ILOGBNAN"), "(1.0f / 0.0f) (0.0f / 0.0f) 2147483647");
    let (_, result) = run("FLT_MAX DBL_EPSILON M_PI_F");
    let values: Vec<f64> = result
        .tokens
        .iter()
        .filter_map(|t| match t.kind {
            TokenKind::Float { value, .. } => Some(value),
            _ => None,
        })
        .collect();
    assert_eq!(values, [f32::MAX as f64, f64::EPSILON, std::f64::consts::PI]);
    assert_eq!(
        pp("__kernel_exec(64, float4) void k(void) {}"),
        "__kernel __attribute__((work_group_size_hint(64, 1, 1))) __attribute__((vec_type_hint(float4))) void k(void) {}"
    );
    assert_eq!(pp_with("A B C F(3)", "-DA -DB=2 -D C=x -UB -D 'F(x)=x*x'"), "1 B x 3*3");
}

#[test]
fn line_and_file_follow_line_directives() {
    assert_eq!(pp("__LINE__\n\n__LINE__ __FILE__"), "1 3 \"main.cl\"");
    let text = "a\n#line 100 \"k.cl\"\n__LINE__ __FILE__\n__LINE__\n#line 7\n__LINE__ __FILE__";
    let (sources, result) = run(text);
    assert!(!result.diagnostics.has_errors());
    assert_eq!(tokens_to_string(&result.tokens), "a 100 \"k.cl\" 101 7 \"k.cl\"");
    let main = FileId(0);
    let offset = text.find("__LINE__\n#line").map(|o| o as u32).unwrap_or(0);
    assert_eq!(sources.presumed(main, offset).1.line, 101);
    assert_eq!(pp("#define L __LINE__\n\nL"), "3");
}

#[test]
fn spans_and_sites_of_expanded_tokens() {
    let text = "#define ONE 1\n#define ADD(a, b) ((a) + (b))\nint x = ADD(ONE, 2);\n";
    let (sources, result) = run(text);
    let invocation = text.find("ADD(ONE").map(|o| o as u32).unwrap_or(0);
    let site = Span::new(FileId(0), invocation, invocation + "ADD(ONE, 2)".len() as u32);
    let expanded: Vec<&Token> = result.tokens.iter().filter(|t| t.expansion.is_some()).collect();
    assert_eq!(expanded.len(), 9, "( ( 1 ) + ( 2 ) )");
    assert!(expanded.iter().all(|t| t.site == site));
    let plus = expanded.iter().find(|t| t.is_punct(Punct::Plus)).expect("plus");
    assert_eq!(sources.snippet(plus.span), "+");
    assert_eq!(
        sources.file(plus.span.file).line_col(plus.span.start).line,
        2,
        "spelled in the #define"
    );
    let one =
        expanded.iter().find(|t| matches!(t.kind, TokenKind::Int { value: 1, .. })).expect("one");
    assert_eq!(sources.snippet(one.span), "1");
    assert_eq!(one.span.start as usize, text.find('1').unwrap_or(0));
    let two =
        expanded.iter().find(|t| matches!(t.kind, TokenKind::Int { value: 2, .. })).expect("two");
    assert_eq!(two.span.start, invocation + 9, "argument tokens keep their spelling in the call");
    let add = result.expansion(plus.expansion.expect("expansion")).expect("record");
    assert_eq!(add.macro_name, "ADD");
    assert_eq!(add.site, site);
    assert_eq!(sources.snippet(add.definition), "ADD(a, b) ((a) + (b))");
    let ones = result.expansions.iter().find(|e| e.macro_name == "ONE").expect("ONE");
    assert_eq!(sources.snippet(ones.site), "ONE");
    // Non-expanded tokens keep site == span, and the leading space of the name moves to the
    // first token of the expansion.
    let eq = result.tokens.iter().find(|t| t.is_punct(Punct::Assign)).expect("=");
    assert_eq!(eq.site, eq.span);
    assert!(expanded[0].leading_space);

    // A synthetic token lives in the scratch file; its site is still the invocation.
    let (sources, result) = run("#define S(x) #x\n#define P(a, b) a ## b\nS(hi) P(x, y)");
    let s = &result.tokens[0];
    assert_eq!(sources.snippet(s.span), "\"hi\"");
    assert_eq!(sources.snippet(s.site), "S(hi)");
    let p = &result.tokens[1];
    assert_eq!((sources.snippet(p.span), sources.snippet(p.site)), ("xy", "P(x, y)"));
    assert_eq!(sources.file(p.span.file).name, "<scratch space>");
}

#[test]
fn pragmas_become_tokens() {
    let (sources, result) = run("#pragma OPENCL EXTENSION cl_khr_fp64 : enable \nx\n#define U(n) _Pragma(\"unroll \" ) n\nU(4)");
    let kinds: Vec<&TokenKind> = result.tokens.iter().map(|t| &t.kind).collect();
    assert_eq!(kinds[0], &TokenKind::Pragma("OPENCL EXTENSION cl_khr_fp64 : enable".into()));
    assert_eq!(
        sources.snippet(result.tokens[0].site),
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"
    );
    assert_eq!(kinds[2], &TokenKind::Pragma("unroll".into()));
    assert_eq!(sources.snippet(result.tokens[2].site), "U(4)");
    assert_eq!(
        tokens_to_string(&result.tokens),
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable x #pragma unroll 4"
    );
}

#[test]
fn error_and_warning_directives() {
    let (sources, result) = run("#warning careful here\n#error stop: don't go on\nafter");
    let d = &result.diagnostics.0;
    assert_eq!(d.len(), 2);
    assert!(!d[0].is_error() && d[0].message == "#warning careful here");
    assert!(d[1].is_error() && d[1].message == "#error stop: don't go on");
    assert_eq!(sources.snippet(d[1].span), "#error stop: don't go on");
    assert_eq!(tokens_to_string(&result.tokens), "after");
    assert!(errors("#if 0\n#error not reached\n#endif").is_empty());
}

#[test]
fn redefinitions() {
    assert!(
        warnings("#define A 1 + 2\n#define A 1 + 2\n#define F(x) (x)\n#define F(x) (x)").is_empty()
    );
    for text in [
        "#define A 1\n#define A 2",
        "#define A 1+2\n#define A 1 + 2",
        "#define F(x) x\n#define F(y) y",
        "#define __LINE__ 3",
    ] {
        assert!(warnings(text).iter().any(|w| w.contains("redefined")), "{text}");
    }
    let (_, result) = run("#define A 1\n#define A 2\nA");
    assert_eq!(tokens_to_string(&result.tokens), "2");
    assert_eq!(result.diagnostics.0[0].notes.len(), 1);
}

#[test]
fn malformed_inputs_give_diagnostics() {
    let cases = [
        ("#if 1\nx", "unterminated conditional"),
        ("#else\n", "without #if"),
        ("#endif\n", "without #if"),
        ("#elif 1\n", "without #if"),
        ("#if 1\n#else\n#else\n#endif", "after #else"),
        ("#if 0\n#else\n#elif 1\n#endif", "after #else"),
        ("#define defined 1", "defined"),
        ("#undef defined", "defined"),
        ("#define f(x) x\nf(1, 2)", "requires 1 argument"),
        ("#define f(x, y) x\nf(1)", "requires 2 arguments"),
        ("#define f(x) x\nf(1", "unterminated argument list"),
        ("#include \"nope.h\"", "not found"),
        ("#include <nope.h>", "not found"),
        ("#include", "FILENAME"),
        ("#if 1/0\n#endif", "division by zero"),
        ("#if\n#endif", "expected an expression"),
        ("#foo", "invalid preprocessing directive"),
        ("#define", "macro name missing"),
        ("#define 3 x", "identifier"),
        ("#define f(x,x) x", "duplicate"),
        ("#define f(x) #y", "'#' is not followed"),
        ("#define a ## b", "'##'"),
        ("#define a b ##", "'##'"),
        ("#define f(x", "missing ')'"),
        ("#define P(a, b) a ## b\nP(+, /)", "pasting"),
        ("#define P(a, b) a ## b\nP(/, /)", "pasting"),
        ("#line 0", "positive integer"),
        ("#line x", "positive integer"),
        ("#line 5 6", "filename"),
        ("_Pragma(1)", "_Pragma"),
        ("#undef", "macro name missing"),
        ("#ifdef\n#endif", "macro name missing"),
        ("#error", "#error"),
        ("\"unterminated", "missing terminating"),
        ("/* open", "unterminated comment"),
        ("int @;", "invalid character"),
    ];
    for (text, needle) in cases {
        let found = errors(text);
        assert!(
            found.iter().any(|m| m.contains(needle)),
            "{text:?}: expected an error containing {needle:?}, got {found:?}"
        );
    }
}

#[test]
fn limits_stop_runaway_expansion() {
    // Each level doubles: 2^30 tokens unless the limit stops it.
    let mut text = String::from("#define m0 x x\n");
    for i in 1..=30 {
        text.push_str(&format!("#define m{i} m{} m{}\n", i - 1, i - 1));
    }
    text.push_str("m30");
    let (_, result) = run(&text);
    assert!(result.diagnostics.0.iter().any(|d| d.message.contains("too many tokens")));
    assert!(result.tokens.len() < 3_000_000);

    let depth = 400;
    let nested = format!("#define f(x) x\n{}1{}", "f(".repeat(depth), ")".repeat(depth));
    let (_, result) = run(&nested);
    assert!(result.diagnostics.0.iter().any(|d| d.message.contains("nested too deeply")));
}

#[test]
fn no_panic_on_any_prefix_of_tricky_input() {
    let text = "#define f(a, ...) #a a ## __VA_ARGS__ f\n#if defined(f) && (1 ? 2 : 0x1p3)\n\
                f(x, y, z) f(\n#elif 'a\n#else\n#include <x>\n#endif\n#line 3 \"n\"\n_Pragma(\"x\")\n\
                \"s\\\n\" 0x1.8p1f '\\377' ..\\\n. /* c */ # ## %:\n#pragma once\n";
    for end in 0..=text.len() {
        if text.is_char_boundary(end) {
            let (_, result) = run(&text[..end]);
            assert!(matches!(result.tokens.last().map(|t| &t.kind), Some(TokenKind::Eof)));
        }
    }
}

#[test]
fn malformed_numbers_matter_only_when_they_reach_the_output() {
    assert_eq!(pp("#define CAT(a, b) a ## b\nCAT(0x, 1f) CAT(1e, 5) CAT(., 5)"), "31 100000.0 0.5");
    assert!(errors("#define CAT(a, b) a ## b\nCAT(1e, +5)").iter().any(|m| m.contains("exponent")));
    assert!(errors("int x = 0x;").iter().any(|m| m.contains("0x")));
    assert!(errors("#if 0\n0x 1e\n#endif").is_empty(), "skipped groups are not checked");
    assert!(errors("#if 09\n#endif").iter().any(|m| m.contains("octal")));
}

/// Pseudo-random programs built from preprocessor fragments: none may panic or hang.
#[test]
fn random_fragment_soup_never_panics() {
    const FRAGMENTS: &[&str] = &[
        "#define ",
        "#undef ",
        "#if ",
        "#ifdef ",
        "#elif ",
        "#else",
        "#endif",
        "#include ",
        "#line ",
        "#pragma ",
        "#error ",
        "\n",
        " ",
        "f",
        "g",
        "x",
        "(",
        ")",
        ",",
        "...",
        "__VA_ARGS__",
        "#",
        "##",
        "defined",
        "1",
        "0x",
        "'a'",
        "\"s\"",
        "<",
        ">",
        "/*",
        "*/",
        "//",
        "\\\n",
        "_Pragma",
        "__LINE__",
        "?",
        ":",
        "/",
        "0",
        "-",
        "f(",
        "g(x)",
        "@",
        "\u{e9}",
        "'",
        "\"",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..300 {
        let len = (next() % 60) as usize;
        let text: String =
            (0..len).map(|_| FRAGMENTS[(next() % FRAGMENTS.len() as u64) as usize]).collect();
        let (_, result) = run(&text);
        assert!(matches!(result.tokens.last().map(|t| &t.kind), Some(TokenKind::Eof)), "{text:?}");
    }
}

#[test]
fn expansion_chains_lead_to_the_outermost_macro() {
    let (_, result) = run("#define INNER 7\n#define OUTER (INNER)\nOUTER");
    let seven = result.tokens.iter().find(|t| matches!(t.kind, TokenKind::Int { value: 7, .. }));
    let id = seven.and_then(|t| t.expansion).expect("expanded");
    let names: Vec<&str> = result.expansion_chain(id).map(|e| e.macro_name.as_str()).collect();
    assert_eq!(names, ["INNER", "OUTER"]);
}
