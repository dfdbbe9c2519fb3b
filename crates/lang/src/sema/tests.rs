//! Unit tests of semantic checking, from OpenCL C source through the whole front end.

use crate::diag::Diagnostics;
use crate::ir::{self, Expression, Handle, Scalar, Statement, TypeInner};
use crate::preprocess::{preprocess_text, BuildOptions};
use crate::span::SourceMap;

/// Preprocesses, parses and checks `text`; panics on lexer or parser errors (tests only).
fn check_text(text: &str) -> (Option<ir::Module>, Diagnostics, SourceMap) {
    let (sources, pre) = preprocess_text(text, &BuildOptions::default());
    assert!(!pre.diagnostics.has_errors(), "preprocessor: {}", pre.diagnostics.render(&sources));
    let (unit, parse_diags) = crate::parse::parse(&pre.tokens);
    assert!(!parse_diags.has_errors(), "parser: {}", parse_diags.render(&sources));
    let (module, diags) = super::check(&unit);
    (module, diags, sources)
}

/// Checks text that must be accepted, and validates the module.
fn module(text: &str) -> ir::Module {
    let (module, diags, sources) = check_text(text);
    let Some(module) = module else {
        panic!("unexpected errors:\n{}", diags.render(&sources));
    };
    if let Err(errors) = crate::valid::validate(&module) {
        panic!("validator rejects sema's output: {errors:?}");
    }
    module
}

/// The rendered errors of text that must be rejected.
fn errors(text: &str) -> String {
    let (module, diags, sources) = check_text(text);
    assert!(module.is_none(), "expected errors, got a module");
    assert!(diags.has_errors());
    diags.render(&sources)
}

fn kernel<'m>(module: &'m ir::Module, name: &str) -> &'m ir::Function {
    let handle = module.function_by_name(name).expect("function exists");
    &module.functions[handle]
}

/// Types of the expressions of `Statement::Expression`s and initialisers at the top of `f`.
fn statement_types(module: &ir::Module, f: &ir::Function) -> Vec<String> {
    f.body
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Expression(e) | Statement::Declare { init: Some(e), .. } => Some(*e),
            Statement::Return(Some(e)) => Some(*e),
            _ => None,
        })
        .map(|e| super::types::display(&module.types, f.type_of(e)))
        .collect()
}

fn find_expression(
    f: &ir::Function,
    pred: impl Fn(&Expression) -> bool,
) -> Option<Handle<Expression>> {
    f.expressions.iter().find(|(_, e)| pred(e)).map(|(h, _)| h)
}

#[test]
fn corpus_style_kernel_checks_and_validates() {
    let m = module(
        "#define N 16\n\
         __kernel void k(__global const float *in, __global float *out, __local float *tile, uint n) {\n\
             size_t gid = get_global_id(0);\n\
             uint lid = get_local_id(0);\n\
             __local float scratch[N];\n\
             tile[lid] = in[gid];\n\
             barrier(CLK_LOCAL_MEM_FENCE);\n\
             float acc = 0.0f;\n\
             for (uint i = 0; i < n; i++) {\n\
                 if (i == lid) continue;\n\
                 acc += tile[i] * 2;\n\
             }\n\
             scratch[lid % N] = acc;\n\
             out[gid] = sqrt(acc) + scratch[0];\n\
         }\n",
    );
    let k = kernel(&m, "k");
    assert!(k.is_kernel());
    assert!(k
        .body
        .statements
        .iter()
        .any(|s| matches!(s, Statement::Barrier(f) if f.local && !f.global)));
    assert!(k
        .locals
        .iter()
        .any(|(_, l)| l.name == "scratch" && l.space == ir::AddressSpace::Local));
    let sqrt = find_expression(k, |e| {
        matches!(
            e,
            Expression::Builtin {
                function: ir::Builtin::Math { function: ir::MathFunction::Sqrt, .. },
                ..
            }
        )
    });
    assert_eq!(
        sqrt.map(|e| super::types::display(&m.types, k.type_of(e))),
        Some("float".to_string())
    );
}

#[test]
fn literal_types_follow_c99() {
    let m = module(
        "void f() {\n\
            1; 2147483648; 0x80000000; 4294967296; 1u; 1l; 0xffffffffffffffff; 'a'; 1.0; 1.0f; 1.0h;\n\
         }\n",
    );
    let f = kernel(&m, "f");
    assert_eq!(
        statement_types(&m, f),
        ["int", "long", "uint", "long", "uint", "long", "ulong", "int", "double", "float", "half"]
    );
}

#[test]
fn usual_arithmetic_conversions_are_explicit() {
    let m = module(
        "float f(char c, uint u, int i, float x, long l) {\n\
            c + c; u + i; i + x; l + u; c << l; return i;\n\
         }\n",
    );
    let f = kernel(&m, "f");
    assert_eq!(statement_types(&m, f), ["int", "uint", "float", "long", "int", "float"]);
    // `u + i`: the int operand is converted to uint.
    let conversions = f
        .expressions
        .iter()
        .filter(|(_, e)| {
            matches!(e, Expression::Convert { kind: ir::ConversionKind::Implicit, .. })
        })
        .count();
    assert!(conversions >= 6, "{conversions}");
}

#[test]
fn vector_scalar_mixes_splat_and_comparisons_give_signed_vectors() {
    let m = module(
        "void f(float4 v, int4 w, uchar4 b) {\n\
            v * 2; v + 0.5f; v < v; w == 3; b != b; v.xy + 1.0f; !w; w ? v : v;\n\
         }\n",
    );
    let f = kernel(&m, "f");
    let types = statement_types(&m, f);
    assert_eq!(types, ["float4", "float4", "int4", "int4", "char4", "float2", "int4", "float4"]);
    assert!(find_expression(f, |e| matches!(e, Expression::Splat(_))).is_some());
}

#[test]
fn vector_type_mismatch_is_reported_with_a_conversion_hint() {
    let text = errors("void f(int4 a, float4 b) { a + b; }\n");
    assert!(text.contains("cannot convert between vector types 'int4' and 'float4'"), "{text}");
    assert!(text.contains("convert_"), "{text}");
    let text = errors("void f(int4 a, float4 b) { b = a; }\n");
    assert!(text.contains("assigning to 'float4' from incompatible type 'int4'"), "{text}");
    let text = errors("void f(int4 a) { a * 1.5f; }\n");
    assert!(
        text.contains("cannot convert between scalar type 'float' and vector type 'int4'"),
        "{text}"
    );
}

#[test]
fn undeclared_identifier_points_at_its_line() {
    let text = errors("void f() {\n  int a = 1;\n  a = b + 1;\n}\n");
    assert!(text.contains("main.cl:3:7: error: use of undeclared identifier 'b'"), "{text}");
}

#[test]
fn several_errors_are_reported_in_one_run() {
    let (_, diags, _) = check_text("void f() { x = 1; y = 2; }\nvoid g() { z; }\n");
    assert_eq!(diags.0.iter().filter(|d| d.is_error()).count(), 3);
}

#[test]
fn redefinition_has_a_note_at_the_previous_one() {
    let (_, diags, _) = check_text("void f() { int a; float a; }\n");
    let d = diags.0.iter().find(|d| d.message == "redefinition of 'a'").expect("reported");
    assert_eq!(d.notes.len(), 1);
}

#[test]
fn kernel_rules() {
    assert!(errors("__kernel int k() { return 0; }").contains("kernel must have void return type"));
    assert!(errors("__kernel void k(float *p) {}")
        .contains("must reside in '__global', '__constant' or '__local'"));
    assert!(errors("__kernel void k(bool b) {}")
        .contains("'bool' cannot be used as the type of a kernel parameter"));
    assert!(errors("__kernel void k(size_t n) {}").contains("'size_t' cannot be used"));
    assert!(errors("__kernel void k(__global float **p) {}").contains("pointer to a pointer"));
    assert!(errors("void f() { __local int x; }").contains("local address space"));
    assert!(
        errors("__kernel void k() { __local int x = 1; }").contains("cannot have an initializer")
    );
    assert!(errors("__kernel void k() { __global int x; }").contains("global address space"));
    assert!(errors("float g = 1.0f;").contains("constant address space"));
    assert!(errors("__kernel void k(read_write image2d_t i) {}")
        .contains("'read_write' can not be used for images prior to OpenCL C 2.0"));
}

#[test]
fn kernel_attributes_are_recorded() {
    let m = module(
        "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) __attribute__((vec_type_hint(float4)))\n\
         void k(__global float *p) { p[0] = 1.0f; }\n",
    );
    let ir::FunctionKind::Kernel(attributes) = &kernel(&m, "k").kind else { panic!("kernel") };
    assert_eq!(attributes.reqd_work_group_size, Some([64, 1, 1]));
    let hint = attributes.vec_type_hint.expect("hint");
    assert_eq!(super::types::display(&m.types, hint), "float4");
}

#[test]
fn recursion_and_undefined_functions_are_errors() {
    let text =
        errors("int f(int x);\nint g(int x) { return f(x); }\nint f(int x) { return g(x - 1); }\n");
    assert!(text.contains("recursive call"), "{text}");
    let text = errors("int f(int x);\nint g(int x) { return f(x); }\n");
    assert!(text.contains("never defined"), "{text}");
}

#[test]
fn prototypes_let_functions_be_defined_after_their_callers() {
    let m = module("float h(float);\n__kernel void k(__global float *p) { p[0] = h(p[1]); }\nfloat h(float x) { return x * x; }\n");
    let names: Vec<&str> = m.functions.iter().map(|(_, f)| f.name.as_str()).collect();
    assert_eq!(names, ["h", "k"]);
    let k = kernel(&m, "k");
    let call = find_expression(k, |e| matches!(e, Expression::Call { .. })).expect("call");
    let Expression::Call { function, .. } = &k.expressions[call] else { unreachable!() };
    assert_eq!(m.functions[*function].name, "h");
}

#[test]
fn swizzles_as_values_and_places() {
    let m = module("void f(float4 v, float8 w) { v.xy = v.zw; v.s3; w.hi; w.odd.lo; v.even = (float2)(1.0f); }\n");
    let f = kernel(&m, "f");
    assert_eq!(statement_types(&m, f), ["float2", "float", "float4", "float2", "float2"]);
    assert!(errors("void f(float4 v) { v.xx = v.yz; }").contains("duplicate components"));
    assert!(errors("void f(float2 v) { v.z; }").contains("exceeds type 'float2'"));
    assert!(errors("void f(float4 v) { v.xs1; }").contains("mixed"));
}

#[test]
fn vector_literals_in_every_arity_mix() {
    let m = module("void f(float2 a, float x) { (float4)(a, a); (float4)(x, a, x); (float4)(x); (float3)(a, 1); }\n");
    let f = kernel(&m, "f");
    assert_eq!(statement_types(&m, f), ["float4", "float4", "float4", "float3"]);
    assert!(errors("void f(float2 a) { (float4)(a, a, a); }").contains("too many elements"));
    assert!(errors("void f(int2 a) { (float4)(a, a); }").contains("vector literal"));
}

#[test]
fn casts_and_conversions() {
    let m = module("void f(int4 i, float x, __global int *p) { (float)1; (float4)x; convert_float4(i); convert_uchar4_sat(i); as_float4(i); (__global float *)p; }\n");
    let f = kernel(&m, "f");
    assert_eq!(
        statement_types(&m, f),
        ["float", "float4", "float4", "uchar4", "float4", "__global float *"]
    );
    assert!(
        errors("void f(int4 i) { (float4)i; }").contains("invalid conversion between vector types")
    );
    assert!(errors("void f(int4 i) { convert_float4_sat(i); }").contains("saturated"));
    assert!(errors("void f(int4 i) { as_float2(i); }").contains("sizes"));
}

#[test]
fn builtin_overloads_resolve_with_scalar_widening() {
    let m = module(
        "void f(float4 v, int4 w, int i, uint u, __global float *p) {\n\
            fmin(v, 1.0f); clamp(w, 0, 255); mix(v, v, 0.5f); dot(v, v); isnan(v); any(w); abs(i); select(v, v, w);\n\
            vload4(0, p); vstore4(v, i, p); atomic_add((__global int *)p, 1); get_local_size(u); mad24(i, i, i); cross(v, v);\n\
         }\n",
    );
    let f = kernel(&m, "f");
    assert_eq!(
        statement_types(&m, f),
        [
            "float4", "int4", "float4", "float", "int4", "int", "uint", "float4", "float4", "void",
            "int", "ulong", "int", "float4"
        ]
    );
}

#[test]
fn no_matching_overload_lists_candidates() {
    let (_, diags, _) = check_text("void f(int4 a) { dot(a, a); }");
    let d = diags.0.iter().find(|d| d.is_error()).expect("error");
    assert!(d.message.contains("no matching overload for dot(int4, int4)"), "{}", d.message);
    assert!(d.help.as_deref().is_some_and(|h| h.contains("dot(float4, float4)")), "{:?}", d.help);
    assert!(errors("void f() { sqrt(2); }").contains("ambiguous"));
}

#[test]
fn barriers_are_statements_only() {
    assert!(errors("__kernel void k() { int x = (barrier(CLK_LOCAL_MEM_FENCE), 1); }")
        .contains("statement of its own"));
    let m = module("__kernel void k() { mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); }");
    let k = kernel(&m, "k");
    assert!(matches!(
        k.body.statements[0],
        Statement::MemFence {
            flags: ir::FenceFlags { local: true, global: true },
            kind: ir::FenceKind::ReadWrite
        }
    ));
}

#[test]
fn structs_layout_and_members() {
    let m = module(
        "typedef struct { char c; float4 v; int i; } S;\n\
         struct __attribute__((packed)) P { char c; int i; };\n\
         float f(S s, __global S *p, struct P q) { return s.v.x + p->i + q.i; }\n",
    );
    let sizes: Vec<(String, u32, u32)> = m
        .types
        .iter()
        .filter_map(|(h, t)| match t {
            TypeInner::Struct { name, .. } => Some((name.clone(), m.size_of(h), m.align_of(h))),
            _ => None,
        })
        .collect();
    assert_eq!(sizes, [("S".to_string(), 48, 16), ("P".to_string(), 5, 1)]);
    assert_eq!(m.typedefs.len(), 1);
}

#[test]
fn program_scope_constants_fold_including_infinity() {
    let m = module(
        "__constant float inf = (1.0f / 0.0f);\n\
         __constant int table[] = { 1, 2, 3 };\n\
         enum { A = 3, B };\n\
         __constant int sizes[B] = { [2] = A };\n\
         __kernel void k(__global float *o) { o[0] = inf + table[1] + sizes[2]; }\n",
    );
    let values: Vec<&ir::ConstValue> =
        m.global_variables.iter().filter_map(|(_, g)| g.init.as_ref()).collect();
    assert_eq!(
        values[0],
        &ir::ConstValue::Literal(ir::Literal::Float {
            scalar: Scalar::Float,
            value: f64::INFINITY
        })
    );
    let (_, table) = m.global_variables.iter().nth(1).expect("table");
    assert_eq!(super::types::display(&m.types, table.ty), "int[3]");
    let (_, sizes) = m.global_variables.iter().nth(2).expect("sizes");
    assert_eq!(super::types::display(&m.types, sizes.ty), "int[4]");
}

#[test]
fn control_flow_statements() {
    let m = module(
        "int f(int x) {\n\
            int r = 0;\n\
            switch (x) { case 1: case 2: r = 1; break; case 3: r = 2; default: r += 3; }\n\
            while (x > 0) { x--; if (x == 5) break; }\n\
            do { x++; } while (x < 3);\n\
            #pragma unroll 4\n\
            for (int i = 0; i < 4; ++i) r += i;\n\
            return r;\n\
         }\n",
    );
    let f = kernel(&m, "f");
    let Some(Statement::Switch { cases, .. }) = f.body.statements.get(1) else { panic!("switch") };
    let shape: Vec<(Option<i64>, bool)> = cases.iter().map(|c| (c.value, c.fall_through)).collect();
    assert_eq!(shape, [(Some(1), true), (Some(2), false), (Some(3), true), (None, true)]);
    let pragma = f.body.statements.iter().find_map(|s| match s {
        Statement::Loop { form: ir::LoopForm::For, pragma, .. } => Some(pragma.clone()),
        _ => None,
    });
    assert_eq!(pragma, Some(Some("unroll 4".to_string())));
    assert!(
        errors("void f() { break; }").contains("'break' statement not in loop or switch statement")
    );
    assert!(errors("void f(int x) { switch (x) { case 1: break; case 1: break; } }")
        .contains("duplicate case value"));
    assert!(errors("void f() { l: goto l; }").contains("not supported"));
}

#[test]
fn pointers_arithmetic_and_address_spaces() {
    let m = module(
        "void f(__global float *p, __global float *q, __local int *l) {\n\
            p + 1; 2 + p; p - q; p < q; &p[3]; *l; p++;\n\
         }\n",
    );
    let f = kernel(&m, "f");
    assert_eq!(
        statement_types(&m, f),
        [
            "__global float *",
            "__global float *",
            "long",
            "int",
            "__global float *",
            "int",
            "__global float *"
        ]
    );
    let text = errors("void f(__global float *p) { __local float *l = p; }");
    assert!(text.contains("changes address space of pointer"), "{text}");
    let (_, diags, _) = check_text("void f(const __global float *p) { __global float *q = p; }");
    assert!(diags.0.iter().any(|d| d.message.contains("discards qualifiers")));
}

#[test]
fn lvalue_rules() {
    assert!(errors("void f(int a) { 1 = a; }").contains("not assignable"));
    assert!(errors("void f() { const int a = 1; a = 2; }").contains("const-qualified"));
    assert!(errors("void f() { int a[2]; int b[2]; a = b; }").contains("array type"));
    assert!(errors("void f(__constant int *p) { p[0] = 1; }").contains("const"));
}

#[test]
fn sizeof_and_vec_step_are_literals() {
    let m = module("void f(float3 v) { sizeof(float3); sizeof v; vec_step(v); vec_step(int8); }");
    let f = kernel(&m, "f");
    let literals: Vec<i128> = f
        .body
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Expression(e) => match f.expressions[*e] {
                Expression::Literal(l) => l.as_i128(),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(literals, [16, 16, 4, 8]);
}

#[test]
fn printf_takes_a_literal_format_and_promotes_floats() {
    let m = module("__kernel void k(float x) { printf(\"%f %d\\n\", x, (char)1); }");
    let k = kernel(&m, "k");
    let call = find_expression(k, |e| {
        matches!(e, Expression::Builtin { function: ir::Builtin::Printf, .. })
    })
    .expect("printf");
    let Expression::Builtin { args, .. } = &k.expressions[call] else { unreachable!() };
    let types: Vec<String> =
        args.iter().map(|a| super::types::display(&m.types, k.type_of(*a))).collect();
    assert_eq!(types, ["const __constant char *", "double", "int"]);
}

#[test]
fn compound_assignment_records_the_compute_type() {
    let m = module("void f(uchar c, float4 v) { c += 1.5f; v *= 2; c <<= 1; }");
    let f = kernel(&m, "f");
    let computes: Vec<String> = f
        .expressions
        .iter()
        .filter_map(|(_, e)| match e {
            Expression::CompoundAssign { compute_type, .. } => {
                Some(super::types::display(&m.types, *compute_type))
            }
            _ => None,
        })
        .collect();
    assert_eq!(computes, ["float", "float4", "int"]);
}

#[test]
fn variable_length_arrays_and_three_component_halves() {
    let text = errors("void f(int n) { float a[n]; }");
    assert!(text.contains("variable-length arrays are not supported"), "{text}");
    let m = module("void f(float3 v) { v.hi; v.lo; }");
    let f = kernel(&m, "f");
    assert_eq!(statement_types(&m, f), ["float2", "float2"]);
    assert!(errors("void f(float3 v) { v.hi = (float2)(1.0f); }").contains("not assignable"));
}

#[test]
fn deep_nesting_and_huge_initialisers_do_not_crash() {
    let depth = 60;
    let nested = format!("void f(int x) {{ x = {}x{}; }}", "-(".repeat(depth), ")".repeat(depth));
    module(&nested);
    let blocks = format!("void f() {{ {} int y = 1; {} }}", "{".repeat(depth), "}".repeat(depth));
    module(&blocks);
    let huge = errors("__kernel void k() { int big[100000000] = { 1 }; }");
    assert!(huge.contains("not supported"), "{huge}");
}

#[test]
fn booleans_and_null_pointers() {
    let m = module(
        "bool f(__global float *p) { int n = true; if (p == (void *)0) return false; __global float *q = (void *)0; return n; }",
    );
    let f = kernel(&m, "f");
    assert!(
        find_expression(f, |e| matches!(e, Expression::Literal(ir::Literal::Bool(true)))).is_some()
    );
    assert!(find_expression(f, |e| matches!(e, Expression::PointerCompare { .. })).is_some());
}

#[test]
fn clang_agreements_on_scope_and_overloads() {
    let text = errors(
        "__kernel void k(__global float *o) { if (o[0] > 0) { __local float t[4]; t[0] = 1; } }",
    );
    assert!(text.contains("outermost scope of a kernel"), "{text}");
    let m = module("float f(float4 v) { return dot(v, 1.0f); }");
    let f = kernel(&m, "f");
    assert!(find_expression(f, |e| matches!(e, Expression::Splat(_))).is_some());
    let m = module(
        "int f(int v) { switch (v) { int q; case 1: q = 2; return q; default: return 0; } }",
    );
    let f = kernel(&m, "f");
    assert!(
        matches!(&f.body.statements[0], Statement::Block(b) if matches!(b.statements.last(), Some(Statement::Switch { .. })))
    );
}

#[test]
fn const_locals_fold_and_float_selection_conditions_are_refused() {
    let m = module("void f() { const int n = 4; float a[n * 2]; a[0] = 1.0f; }");
    let f = kernel(&m, "f");
    let array = f.locals.iter().find(|(_, l)| l.name == "a").map(|(_, l)| l.ty).expect("a");
    assert_eq!(super::types::display(&m.types, array), "float[8]");
    assert!(errors("void f(float x) { int y = x ? 1 : 2; }")
        .contains("floating point type is not allowed"));
}

#[test]
fn a_bad_declaration_is_reported_once() {
    let (_, diags, _) = check_text("void f() { int a[-1]; a[0] = 1; a[1] = 2; }\n__kernel int g(int x) { return x; }\nvoid h() { g(1); }\n");
    let errors: Vec<&str> =
        diags.0.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
}

#[test]
fn brace_elision_fills_nested_aggregates_in_order() {
    let m = module(
        "typedef struct { float a; int b[2]; } S;\n\
         void f() { int a[2][3] = { 1, 2, 3, 4, 5 }; S s[2] = { 1.0f, 2, 3, [1] = { 4.0f } }; float4 v[2] = { 1, (float4)(0.0f) }; }",
    );
    let f = kernel(&m, "f");
    let Some(Statement::Declare { init: Some(init), .. }) = f.body.statements.first() else {
        panic!("declare")
    };
    let Expression::Compose(rows) = &f.expressions[*init] else { panic!("compose") };
    let Expression::Compose(second) = &f.expressions[rows[1]] else { panic!("row") };
    assert!(matches!(f.expressions[second[1]], Expression::Literal(l) if l.as_i128() == Some(5)));
    assert!(matches!(f.expressions[second[2]], Expression::ZeroValue));
    let text = errors("void f() { int a[2][2] = { 1, 2, 3, 4, 5 }; }");
    assert!(text.contains("excess elements"), "{text}");
}

/// A scalar item for a vector element converts to the whole vector (OpenCL's scalar-to-vector
/// conversion replicates it) instead of filling the vector's components: clang compiles
/// `int4 w[2] = {7, 8}` as two splats, and `struct { int4 a; int b; } s = {1, 2}` as
/// `a = (int4)(1)`, `b = 2`. Braces of the vector's own still list components.
#[test]
fn scalars_initialise_whole_vector_elements() {
    let m = module(
        "typedef struct { int4 a; int b; } S;\n\
         void f() { int4 w[2] = { 7, 8 }; S s = { 1, 2 }; int4 v[1] = { { 1, 2, 3, 4 } }; long16 l[4] = { 1, 2, 3, 4 }; }",
    );
    let f = kernel(&m, "f");
    let inits: Vec<Handle<Expression>> = f
        .body
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Declare { init: Some(init), .. } => Some(*init),
            _ => None,
        })
        .collect();
    let parts = |h: Handle<Expression>| match &f.expressions[h] {
        Expression::Compose(parts) => parts.clone(),
        other => panic!("expected a brace list, got {other:?}"),
    };
    let is_splat = |h: Handle<Expression>| matches!(f.expressions[h], Expression::Splat(_));
    let w = parts(inits[0]);
    assert_eq!(w.len(), 2);
    assert!(w.iter().all(|&e| is_splat(e)), "each scalar fills one whole int4");
    let s = parts(inits[1]);
    assert!(is_splat(s[0]), "the int4 member is the splatted 1");
    assert!(matches!(f.expressions[s[1]], Expression::Literal(l) if l.as_i128() == Some(2)));
    let v = parts(inits[2]);
    let components = parts(v[0]);
    assert_eq!(components.len(), 4, "a vector's own braces list its components");
    assert!(
        matches!(f.expressions[components[2]], Expression::Literal(l) if l.as_i128() == Some(3))
    );
    let l = parts(inits[3]);
    assert_eq!(l.len(), 4);
    assert!(l.iter().all(|&e| is_splat(e)));
}

#[test]
fn alignment_attributes_on_locals() {
    let m = module("void f() { __attribute__((aligned(16))) float a[4]; float b __attribute__((aligned(32))); a[0] = b = 0.0f; }");
    let f = kernel(&m, "f");
    let aligns: Vec<Option<u32>> = f.locals.iter().map(|(_, l)| l.align).collect();
    assert_eq!(aligns, [Some(16), Some(32)]);
}

/// `line:col` of the first error.
fn first_error_at(text: &str) -> (u32, u32, String) {
    let (_, diags, sources) = check_text(text);
    let d = diags.0.iter().find(|d| d.is_error()).expect("an error");
    let at = sources.file(d.span.file).line_col(d.span.start);
    (at.line, at.col, d.message.clone())
}

#[test]
fn diagnostics_point_at_the_culprit() {
    let (line, col, _) = first_error_at(
        "__kernel void k(__global float *o) {\n    float4 v = 0;\n    o[0] = v.q;\n}\n",
    );
    assert_eq!((line, col), (3, 14));
    let (line, col, message) = first_error_at("#define BAD(x) ((x) + missing)\n__kernel void k(__global float *o) {\n    o[0] = BAD(1);\n}\n");
    assert_eq!((line, col), (3, 12), "{message}");
    assert!(message.contains("'missing'"));
    let (line, col, _) = first_error_at("void f(int4 a, float4 b) {\n  a =\n      b;\n}\n");
    assert_eq!((line, col), (3, 7));
    let (line, _, message) = first_error_at("int f(int x) {\n  switch (x) {\n  case 1: return 1;\n  case 1: return 2;\n  }\n  return 0;\n}\n");
    assert_eq!(line, 4, "{message}");
}

#[test]
fn scalars_of_higher_rank_than_vector_elements_are_refused() {
    let text = errors("void f(char4 c) { c + 1; }\n");
    assert!(text.contains("greater rank than the type of the vector element"), "{text}");
    assert!(errors("void f(float4 v) { v * 0.5; }\n").contains("greater rank"));
    assert!(errors("void f(int4 v, uint u) { v + u; }\n").contains("greater rank"));
    module(
        "void f(uint4 u, int i, long4 l, float4 v) { u + i; l + i; v * 2; u + 1; v * (long)2; }",
    );
}

#[test]
fn unions_initialise_their_first_member() {
    let m = module("typedef union { float f; uint u; } U; __constant U c = { 1.0f }; void f() { U a = { 2.0f }; U b = { .f = 3.0f }; U z = {}; a.u = b.u + z.u + c.u; }");
    assert!(
        matches!(m.global_variables.iter().next().and_then(|(_, g)| g.init.clone()), Some(ir::ConstValue::Composite(parts)) if parts.len() == 1)
    );
    assert!(errors("typedef union { float f; uint u; } U; void f() { U a = { .u = 1 }; }")
        .contains("other than the first"));
}

#[test]
fn pragmas_stay_before_the_functions_written_after_them() {
    let m = module("float h(float);\nvoid a() {}\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nvoid k() { h(1.0f); }\nfloat h(float x) { return x; }\n");
    let names: Vec<&str> = m.functions.iter().map(|(_, f)| f.name.as_str()).collect();
    assert_eq!(names, ["a", "h", "k"]);
    assert_eq!(m.pragmas.len(), 1);
    assert_eq!(m.pragmas[0].before_function, 1);
}

#[test]
fn calls_in_sizeof_are_not_evaluated() {
    let m = module("int f(int x) { return sizeof(f(x)) + x; }");
    assert_eq!(m.functions.len(), 1);
}

#[test]
fn vector_conditions_need_elements_of_the_result_size() {
    assert!(
        errors("void f(char4 c, float4 v) { c ? v : v; }").contains("elements of the same size")
    );
    module("void f(uint4 c, float4 v) { c ? v : v; }");
}

#[test]
fn program_scope_scalar_constants_fold() {
    let m = module("__constant int N = 4;\n__constant int M = N * 2;\n__kernel void k(__global float *o) { float a[M]; a[0] = N; o[0] = a[0]; }");
    let k = kernel(&m, "k");
    let a = k.locals.iter().find(|(_, l)| l.name == "a").map(|(_, l)| l.ty).expect("a");
    assert_eq!(super::types::display(&m.types, a), "float[8]");
}

#[test]
fn an_event_may_start_as_zero_and_nothing_else() {
    // `event_t e = 0;` names no copy yet; async_work_group_copy accepts it as its event.
    let m = module(
        "__kernel void k(__global const float *in, __local float *tmp) {\n\
             event_t e = 0;\n\
             e = async_work_group_copy(tmp, in, 16, e);\n\
             wait_group_events(1, &e);\n\
         }\n",
    );
    let f = kernel(&m, "k");
    assert!(f.expressions.iter().any(|(_, e)| matches!(e, ir::Expression::ZeroValue)));
    let err = errors("__kernel void k() { event_t e = 1; }\n");
    assert!(err.contains("initializing 'event_t' from incompatible type 'int'"), "{err}");
}

/// The handle of the struct named `name`.
fn struct_named(m: &ir::Module, name: &str) -> Handle<ir::Type> {
    m.types
        .iter()
        .find(|(_, t)| matches!(t, TypeInner::Struct { name: n, .. } if n == name))
        .map(|(h, _)| h)
        .expect("struct exists")
}

/// The pointee of member `member` of struct `ty`.
fn member_pointee(m: &ir::Module, ty: Handle<ir::Type>, member: &str) -> Handle<ir::Type> {
    let TypeInner::Struct { members, .. } = &m.types[ty] else { panic!("not a struct") };
    let member = members.iter().find(|x| x.name == member).expect("member exists");
    match m.types[member.ty] {
        TypeInner::Pointer { pointee, .. } => pointee,
        _ => panic!("member is not a pointer"),
    }
}

#[test]
fn a_struct_may_point_to_itself() {
    let m = module(
        "typedef struct node { struct node *next; int v; } node;\n\
         __kernel void k(__global int *out) {\n\
             node n; n.v = 7; n.next = &n;\n\
             out[0] = n.next->next->next->v;\n\
         }\n",
    );
    let node = struct_named(&m, "node");
    assert_eq!(member_pointee(&m, node, "next"), node, "the member points to the struct itself");
    assert!(matches!(
        m.types[node],
        TypeInner::Struct { size: 16, align: 8, is_complete: true, .. }
    ));
    let typedef = m.typedefs.iter().find(|t| t.name == "node").expect("typedef");
    assert_eq!(typedef.ty, node);
}

#[test]
fn structs_may_point_to_each_other_through_a_forward_declaration() {
    let m = module(
        "struct b;\n\
         struct a { struct b *p; };\n\
         struct b { struct a *q; int x; };\n\
         __kernel void k(__global int *out) {\n\
             struct a l; struct b r; l.p = &r; r.q = &l; r.x = 3;\n\
             out[0] = l.p->q->p->x;\n\
         }\n",
    );
    let (a, b) = (struct_named(&m, "a"), struct_named(&m, "b"));
    assert_eq!(member_pointee(&m, a, "p"), b);
    assert_eq!(member_pointee(&m, b, "q"), a);
    // Without the forward declaration, the member's `struct b` declares it (C11 6.7.2.3p8).
    let m = module(
        "struct a { struct b *p; };\nstruct b { struct a *q; int x; };\n\
         int f(struct a *l) { return l->p->x; }\n",
    );
    let (a, b) = (struct_named(&m, "a"), struct_named(&m, "b"));
    assert_eq!(member_pointee(&m, a, "p"), b, "one struct b, declared then completed");
}

#[test]
fn a_struct_used_only_through_pointers_stays_incomplete() {
    let m = module(
        "struct handle;\n\
         void f(__global struct handle *h, __global struct handle **out) {\n\
             out[0] = h;\n\
         }\n",
    );
    let handle = struct_named(&m, "handle");
    assert!(m.types[handle].is_incomplete());
    assert_eq!(m.size_of(handle), 0);
}

#[test]
fn an_inner_declaration_hides_an_outer_struct() {
    // `struct s;` in a block declares a new struct there, as in C.
    let m = module(
        "struct s { int x; };\n\
         int f(struct s *outer) {\n\
             struct s;\n\
             struct t { struct s *inner; } v;\n\
             struct s { float y; } w;\n\
             v.inner = &w;\n\
             return outer->x + (int)v.inner->y;\n\
         }\n",
    );
    let t = struct_named(&m, "t");
    let inner = member_pointee(&m, t, "inner");
    assert_ne!(inner, struct_named(&m, "s"));
    assert!(matches!(&m.types[inner], TypeInner::Struct { name, .. } if name == "s_1"));
}

#[test]
fn an_incomplete_struct_held_by_value_is_refused_where_it_is_used() {
    // (source, message, the text the caret points at)
    let cases = [
        (
            "struct b; __kernel void k() { struct b v; }",
            "variable has incomplete type 'struct b'",
            "v;",
        ),
        ("struct b; struct c { struct b m; };", "field has incomplete type 'struct b'", "m;"),
        ("struct c { struct c m; };", "field has incomplete type 'struct c'", "m;"),
        (
            "struct b; int f() { return sizeof(struct b); }",
            "invalid application of 'sizeof' to an incomplete type 'struct b'",
            "sizeof",
        ),
        (
            "struct b; int f(struct b *p) { return p->x; }",
            "incomplete definition of type 'struct b'",
            "p->",
        ),
        (
            "struct b; void f(struct b *p) { *p; }",
            "a complete type is required here, not the incomplete type 'struct b'",
            "*p;",
        ),
        (
            "struct b; void f(struct b *p) { p[1]; }",
            "subscript of pointer to incomplete type 'struct b'",
            "p[1]",
        ),
        (
            "struct b; void f(struct b *p) { p + 1; }",
            "arithmetic on a pointer to an incomplete type 'struct b'",
            "p + 1",
        ),
        (
            "struct b; void f(struct b *p) { --p; }",
            "arithmetic on a pointer to an incomplete type 'struct b'",
            "--p",
        ),
        ("struct b; void f(struct b v) { }", "parameter has incomplete type 'struct b'", "v)"),
        ("struct b; struct b f(void);", "incomplete result type 'struct b'", "f(void)"),
        (
            "struct b; void f() { struct b a[2]; }",
            "array has incomplete element type 'struct b'",
            "[2]",
        ),
        (
            "union u; struct u *p;",
            "use of 'u' with tag type that does not match previous declaration",
            "u *p",
        ),
    ];
    for (text, message, culprit) in cases {
        let rendered = errors(text);
        let column = text.find(culprit).expect("culprit in text") + 1;
        assert!(rendered.contains(&format!("1:{column}: error: {message}")), "{text}: {rendered}");
    }
}

#[test]
fn a_struct_defined_twice_is_refused_after_a_forward_declaration_too() {
    let rendered = errors("struct s;\nstruct s { int x; };\nstruct s { int y; };\n");
    assert!(rendered.contains("3:8: error: redefinition of 's'"), "{rendered}");
    assert!(rendered.contains("2:8: note: previous definition is here"), "{rendered}");
}

#[test]
fn anonymous_members_are_reached_by_name_and_laid_out_in_place() {
    let m = module(
        "typedef union {\n\
             struct { float x, y; } __attribute__((aligned(8)));\n\
             struct { float re, im; } __attribute__((aligned(8)));\n\
         } cf;\n\
         struct tagged { char kind; union { int i; float f; }; short after; };\n\
         typedef struct { union { struct { short lo, hi; }; int both; }; char flag; } halves;\n\
         float f(cf c, __global struct tagged *t, halves h) {\n\
             c.re = c.y; t->f = 1.0f; h.hi = 2; return c.x + c.im + t->i + h.both + t->after;\n\
         }\n",
    );
    let layout = |name: &str| {
        let ty = struct_named(&m, name);
        let TypeInner::Struct { members, .. } = &m.types[ty] else { panic!("not a struct") };
        let offsets: Vec<u32> = members.iter().map(|m| m.offset).collect();
        (m.size_of(ty), m.align_of(ty), offsets)
    };
    // The two structs overlap; each keeps the alignment its attribute asked for.
    assert_eq!(layout("cf"), (8, 8, vec![0, 0]));
    // The union sits at the next multiple of its alignment, the next member after it.
    assert_eq!(layout("tagged"), (12, 4, vec![0, 4, 8]));
    assert_eq!(layout("halves"), (8, 4, vec![0, 4]));

    // `t->f` is two member accesses: the anonymous union, then its `f`.
    let f = &m.functions[m.function_by_name("f").expect("f")];
    let union_f = f.expressions.iter().any(|(_, e)| match e {
        Expression::Member { base, member: 0 } => matches!(
            f.expressions[*base],
            Expression::Member { member: 1, base: outer }
                if matches!(f.expressions[outer], Expression::Deref(_))
        ),
        _ => false,
    });
    assert!(union_f, "t->f goes through the anonymous union (member 1), then member 0");
}

#[test]
fn anonymous_member_mistakes_are_reported() {
    // A name that no level has is still an error, naming the outer type.
    let e = errors(
        "struct s { union { int i; float f; }; };\n\
         int g(struct s v) { return v.j; }\n",
    );
    assert!(e.contains("no member named 'j' in 'struct s'"), "{e}");
    // A declaration that declares nothing is a warning (as clang has it), not a member.
    let (module, diags, sources) =
        check_text("struct s { int; float x; };\nfloat g(struct s v) { return v.x; }\n");
    let m = module.unwrap_or_else(|| panic!("{}", diags.render(&sources)));
    assert!(diags.render(&sources).contains("declaration does not declare anything"));
    assert_eq!(m.size_of(struct_named(&m, "s")), 4);
}

#[test]
fn a_pragma_between_a_loop_and_its_body_keeps_the_loop_nest() {
    // Generated code (ViennaCL's matrix products) hints each loop of a nest; the inner loop is
    // still the outer loop's body, so the outer counter is in scope inside it.
    let m = module(
        "__kernel void k(__global float *out) {\n\
             float r[4][4];\n\
             #pragma unroll 4\n\
             int n = 4;\n\
             for (int kk = 0; kk < n; kk++)\n\
             #pragma unroll 4\n\
             for (int mm = 0; mm < 4; mm++)\n\
             {\n\
                 r[kk][mm] = out[kk * 4 + mm];\n\
             }\n\
             if (n > 3)\n\
             #pragma nounroll\n\
             while (n > 0) n--;\n\
             else\n\
             #pragma nounroll\n\
             n = 2;\n\
             out[0] = r[3][3] + n;\n\
         }\n",
    );
    assert!(m.function_by_name("k").is_some());
}

#[test]
fn compound_literals_are_values_of_their_type() {
    let m = module(
        "typedef struct { float2 v; int id; } MV;\n\
         typedef struct { float x, y; } P;\n\
         P mk(float a) { return (P){ a, a * 2.0f }; }\n\
         __kernel void k(__global float *o) {\n\
             MV invalid = (MV){ (float2)(-1.0f, -1.0f), -1 };\n\
             P p = mk(o[1]);\n\
             p = (P){ .y = 5.0f };\n\
             o[0] = invalid.v.x + p.y + (P){ 3.0f, 4.0f }.y + (int){ 7 };\n\
         }\n",
    );
    // `(P){ .y = 5.0f }` is the list's value: x zero, y 5.
    let f = kernel(&m, "k");
    let composed =
        f.expressions.iter().filter(|(_, e)| matches!(e, Expression::Compose(_))).count();
    assert!(composed >= 3, "one value per struct literal, got {composed}");

    let e = errors("__kernel void k(__global int *o) { int *p = (int[2]){ 1, 2 }; o[0] = p[1]; }");
    assert!(e.contains("compound literals of array type are not supported"), "{e}");
    let e = errors("struct s;\n__kernel void k(__global int *o) { (struct s){ 1 }; }");
    assert!(e.contains("incomplete type"), "{e}");
}

#[test]
fn string_literals_are_constant_char_arrays_shared_by_text() {
    let m = module(
        "inline int first(__constant const char *s) { return s[0]; }\n\
         __kernel void k(__global int *o) {\n\
             __constant char *p = \"buzz\";\n\
             o[0] = sizeof(\"fizzbuzz\");\n\
             o[1] = first(\"fizz\") + first(\"fizz\") + p[1] + \"xyz\"[2];\n\
             printf(\"%s\\n\", \"fizz\");\n\
         }\n",
    );
    // One array per distinct text ("fizz" twice is one), none for printf's format nor for
    // sizeof's operand, which is not evaluated; each is a NUL-terminated `__constant char[N + 1]`.
    let literals: Vec<(String, TypeInner, ir::AddressSpace)> = m
        .global_variables
        .iter()
        .filter_map(|(_, g)| Some((g.string_literal()?, m.types[g.ty].clone(), g.space)))
        .collect();
    let texts: Vec<&str> = literals.iter().map(|(t, _, _)| t.as_str()).collect();
    assert_eq!(texts, ["buzz", "fizz", "xyz"], "{literals:?}");
    for (text, ty, space) in &literals {
        assert!(matches!(ty, TypeInner::Array { len, .. } if *len as usize == text.len() + 1));
        assert_eq!(*space, ir::AddressSpace::Constant);
    }
    // sizeof counts the NUL.
    let sizes: Vec<i128> = kernel(&m, "k")
        .expressions
        .iter()
        .filter_map(|(_, e)| match e {
            Expression::Literal(l) => l.as_i128(),
            _ => None,
        })
        .collect();
    assert!(sizes.contains(&9), "{sizes:?}");
    // A literal is in the constant space: not writable, and not a `__global` pointer.
    let e = errors("__kernel void k(__global int *o) { \"abc\"[0] = 'x'; }");
    assert!(e.contains("__constant address space"), "{e}");
    let e = errors(
        "__kernel void k(__global int *o) { __global const char *p = \"abc\"; o[0] = p[0]; }",
    );
    assert!(e.contains("address space"), "{e}");
}

#[test]
fn enumerators_too_wide_for_int_take_the_first_type_that_holds_them() {
    let (module, diags, sources) = check_text(
        "typedef enum { SMALL = 3, BIG = 0x736f6d6570736575UL, NEXT, NEG = -1 } mixed;\n\
         typedef enum { U = 0x80000000u } unsigned_one;\n\
         __kernel void k(__global ulong *o) { mixed m = BIG; o[0] = BIG; o[1] = NEXT; o[2] = m; o[3] = U; }\n",
    );
    let m = module.unwrap_or_else(|| panic!("{}", diags.render(&sources)));
    let rendered = diags.render(&sources);
    assert!(rendered.contains("not representable in 'int'; it has type 'long'"), "{rendered}");
    assert!(rendered.contains("it has type 'unsigned int'"), "{rendered}");
    let literals: Vec<(Scalar, i128)> = kernel(&m, "k")
        .expressions
        .iter()
        .filter_map(|(_, e)| match e {
            Expression::Literal(l) => l.as_i128().map(|v| (l.scalar(), v)),
            _ => None,
        })
        .collect();
    assert!(literals.contains(&(Scalar::Long, 0x736f6d6570736575)), "{literals:?}");
    assert!(literals.contains(&(Scalar::Long, 0x736f6d6570736576)), "NEXT is BIG + 1");
    assert!(literals.contains(&(Scalar::UInt, 0x8000_0000)), "{literals:?}");
    // A variable of the enum type holds every enumerator: `mixed` is long (it has -1).
    let mixed = m.typedefs.iter().find(|t| t.name == "mixed").expect("typedef");
    assert_eq!(m.types[mixed.ty], TypeInner::Scalar(Scalar::Long));
    let e = errors("enum { HUGE = 0xffffffffffffffffUL, MORE };\n");
    assert!(e.contains("not representable in any integer type"), "{e}");
}

#[test]
fn unknown_extensions_warn_and_werror_fails_the_build() {
    let text = "#pragma OPENCL EXTENSION made_up_extension : enable\n\
                #pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
                #pragma OPENCL EXTENSION cl_amd_printf : enable\n\
                kernel void k(global int *o) { o[0] = 1; }\n";
    let compiled = crate::frontend::compile_source("k.cl", text, "").expect("a warning only");
    let warnings: Vec<&str> = compiled.warnings.0.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(warnings, ["unknown OpenCL extension 'made_up_extension' - ignoring"]);
    // -Werror turns it into an error, as clang does; -w drops it.
    let failure = crate::frontend::compile_source("k.cl", text, "-Werror").err().expect("fails");
    assert!(failure.diagnostics.has_errors());
    assert!(failure.render().contains("made_up_extension' - ignoring [-Werror]"));
    let quiet = crate::frontend::compile_source("k.cl", text, "-w").expect("builds");
    assert!(quiet.warnings.0.is_empty());
}
