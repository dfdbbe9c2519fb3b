//! Printer tests on IR built by hand: forms sema rarely produces (synthesised by transforms)
//! and the exact spelling of each construct.

use super::{print_expression, print_function, print_module, print_type};
use crate::ir::*;
use crate::valid::testing::{block, scale_kernel, FunctionBuilder};
use crate::valid::validate;

#[test]
fn scale_kernel_prints_as_c() {
    let module = scale_kernel();
    assert_eq!(validate(&module), Ok(()));
    assert_eq!(
        print_module(&module),
        "__kernel void scale(__global float *data, float factor) {\n    ulong i = get_global_id(0);\n    data[i] = data[i] * factor;\n}\n"
    );
}

#[test]
fn declarators_nest_like_c() {
    let mut module = Module::default();
    let float = module.ty(TypeInner::Scalar(Scalar::Float));
    let row = module.ty(TypeInner::Array { element: float, len: 4 });
    let matrix = module.ty(TypeInner::Array { element: row, len: 3 });
    let to_row = module.ty(TypeInner::Pointer {
        pointee: row,
        space: AddressSpace::Local,
        is_const: true,
        is_volatile: false,
        is_restrict: false,
    });
    let global = module.ty(TypeInner::Pointer {
        pointee: float,
        space: AddressSpace::Global,
        is_const: false,
        is_volatile: true,
        is_restrict: true,
    });
    let to_global = module.ty(TypeInner::Pointer {
        pointee: global,
        space: AddressSpace::Private,
        is_const: false,
        is_volatile: false,
        is_restrict: false,
    });
    assert_eq!(print_type(&module, matrix), "float [3][4]");
    assert_eq!(print_type(&module, to_row), "__local const float (*)[4]");
    assert_eq!(print_type(&module, global), "__global volatile float *restrict");
    assert_eq!(print_type(&module, to_global), "__global volatile float *restrict *");
    let d = super::types::declaration(&module, to_row, &["const"], "rows");
    assert_eq!(d.joined(), "__local const float (*const rows)[4]");
}

/// A kernel with one expression statement built by `build`; returns the statement's text.
fn print_statement(build: impl FnOnce(&mut FunctionBuilder) -> Handle<Expression>) -> String {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let e = build(&mut b);
    let function = b.function.clone();
    b.push(Statement::Expression(e));
    b.finish();
    print_expression(&module, &function, e)
}

#[test]
fn negation_never_reads_as_decrement() {
    let text = print_statement(|b| {
        let one = b.int(1);
        let min = b.int(i32::MIN as i128);
        b.binary(BinaryOp::Sub, one, min)
    });
    assert_eq!(text, "1 - (-2147483647 - 1)");
}

#[test]
fn bitwise_and_shift_mixes_get_parentheses() {
    let text = print_statement(|b| {
        let (x, y, z) = (b.int(1), b.int(2), b.int(3));
        let sum = b.binary(BinaryOp::Add, y, z);
        let shifted = b.binary(BinaryOp::Shl, x, sum);
        let w = b.int(4);
        let masked = b.binary(BinaryOp::BitAnd, shifted, w);
        let v = b.int(5);
        b.binary(BinaryOp::BitOr, masked, v)
    });
    assert_eq!(text, "((1 << (2 + 3)) & 4) | 5");
    let text = print_statement(|b| {
        let (x, y, z) = (b.int(1), b.int(2), b.int(3));
        let and = b.binary(BinaryOp::LogicalAnd, x, y);
        let or = b.binary(BinaryOp::LogicalOr, and, z);
        let w = b.int(0);
        let cmp = b.binary(BinaryOp::Lt, or, w);
        let v = b.int(9);
        b.binary(BinaryOp::Eq, cmp, v)
    });
    assert_eq!(text, "(((1 && 2) || 3) < 0) == 9");
}

#[test]
fn swizzles_use_letters_only_where_valid() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let f4 = b.vector(Scalar::Float, 4);
    let f2 = b.vector(Scalar::Float, 2);
    let f16 = b.vector(Scalar::Float, 16);
    let v4 = b.local("v", f4, AddressSpace::Private);
    let v16 = b.local("w", f16, AddressSpace::Private);
    b.push(Statement::Declare { variable: v4, init: None });
    b.push(Statement::Declare { variable: v16, init: None });
    let place = b.local_place(v4);
    let wz = b.expr(Expression::Swizzle { base: place, components: vec![3, 2] }, f2);
    let wz = b.load(wz);
    let place = b.local_place(v16);
    let high = b.expr(Expression::Swizzle { base: place, components: vec![10, 15] }, f2);
    let high = b.load(high);
    let sum = b.binary(BinaryOp::Add, wz, high);
    let place = b.local_place(v16);
    let low = b.expr(Expression::Swizzle { base: place, components: vec![0, 1] }, f2);
    let store = b.assign(low, sum);
    b.push(Statement::Expression(store));
    b.finish();
    assert_eq!(validate(&module), Ok(()));
    let text = print_function(&module, Handle::from_index(0));
    assert!(text.contains("    w.s01 = v.wz + w.saf;\n"), "{text}");
}

#[test]
fn members_through_pointers_use_arrows_and_aggregates_use_braces() {
    let mut module = Module::default();
    let float = module.ty(TypeInner::Scalar(Scalar::Float));
    let point = module.ty(TypeInner::Struct {
        name: "point".into(),
        naming: StructNaming::Tag,
        is_union: false,
        members: vec![
            StructMember { name: "x".into(), ty: float, offset: 0 },
            StructMember { name: "y".into(), ty: float, offset: 4 },
        ],
        size: 8,
        align: 4,
        is_complete: true,
    });
    let pair = module.ty(TypeInner::Array { element: point, len: 2 });
    let mut b = FunctionBuilder::helper(&mut module, "f", Some(float));
    let ptr = b.pointer(point, AddressSpace::Global);
    let p = b.param("p", ptr);
    let local = b.local("pts", pair, AddressSpace::Private);
    let (a, c) = (b.float(1.0), b.float(2.0));
    let first = b.expr(Expression::Compose(vec![a, c]), point);
    let second = b.expr(Expression::ZeroValue, point);
    let init = b.expr(Expression::Compose(vec![first, second]), pair);
    b.push(Statement::Declare { variable: local, init: Some(init) });
    let pointer = b.param_value(p);
    let target = b.expr(Expression::Deref(pointer), point);
    let member = b.expr(Expression::Member { base: target, member: 1 }, float);
    let value = b.load(member);
    b.push(Statement::Return(Some(value)));
    b.finish();
    assert_eq!(validate(&module), Ok(()));
    assert_eq!(
        print_module(&module),
        "struct point {\n    float x;\n    float y;\n};\n\nfloat f(__global struct point *p) {\n    struct point pts[2] = {{1.0f, 2.0f}, {0}};\n    return p->y;\n}\n"
    );
}

#[test]
fn loops_keep_their_form_and_odd_inits_get_a_scope() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let int = b.scalar(Scalar::Int);
    let float = b.scalar(Scalar::Float);
    let i = b.local("i", int, AddressSpace::Private);
    let f = b.local("f", float, AddressSpace::Private);
    let zero = b.int(0);
    let half = b.float(0.5);
    let init = block(vec![
        Statement::Declare { variable: i, init: Some(zero) },
        Statement::Declare { variable: f, init: Some(half) },
    ]);
    b.push(Statement::Loop {
        form: LoopForm::For,
        init,
        condition: None,
        update: None,
        body: block(vec![Statement::Break]),
        pragma: Some("unroll".into()),
    });
    let one = b.int(1);
    b.push(Statement::Loop {
        form: LoopForm::DoWhile,
        init: Block::new(),
        condition: Some(one),
        update: None,
        body: block(vec![Statement::Break]),
        pragma: Some("2".into()),
    });
    b.finish();
    assert_eq!(validate(&module), Ok(()));
    assert_eq!(
        print_function(&module, Handle::from_index(0)),
        "__kernel void k(void) {\n    {\n        int i = 0;\n        float f = 0.5f;\n        #pragma unroll\n        for (;;) {\n            break;\n        }\n    }\n    #pragma unroll 2\n    do {\n        break;\n    } while (1);\n}\n"
    );
}

#[test]
fn conversions_print_by_kind() {
    let text = print_statement(|b| {
        let uint = b.scalar(Scalar::UInt);
        let uchar4 = b.vector(Scalar::UChar, 4);
        let float4 = b.vector(Scalar::Float, 4);
        let x = b.float(f64::INFINITY);
        let bits = b.expr(Expression::Bitcast(x), uint);
        let uint4 = b.vector(Scalar::UInt, 4);
        let splat = b.expr(Expression::Splat(bits), uint4);
        let sat = b.expr(
            Expression::Convert {
                value: splat,
                kind: ConversionKind::Explicit { saturate: true, rounding: Some(Rounding::Rtz) },
            },
            uchar4,
        );
        let back = b.expr(Expression::Convert { value: sat, kind: ConversionKind::Cast }, float4);
        b.expr(Expression::Convert { value: back, kind: ConversionKind::Implicit }, float4)
    });
    assert_eq!(text, "(float4)convert_uchar4_sat_rtz((uint4)(as_uint((1.0f / 0.0f))))");
}

#[test]
fn printed_hand_built_kernels_pass_clang() {
    let module = scale_kernel();
    let text = print_module(&module);
    let path = std::env::temp_dir().join(format!("clmap-print-unit-{}.cl", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let status = std::process::Command::new("clang-16")
        .args(["-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header", "-fsyntax-only"])
        .arg(&path)
        .status();
    let _ = std::fs::remove_file(&path);
    match status {
        Ok(status) => assert!(status.success(), "clang rejects:\n{text}"),
        Err(_) => eprintln!("clang-16 not found: skipped"),
    }
}

#[test]
fn trees_at_the_depth_limit_print_on_a_test_thread_stack() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let mut sum = b.int(0);
    // Each level is a binary operator whose right operand is a loaded conditional, the
    // deepest frames the printer has.
    let int = b.scalar(Scalar::Int);
    for i in 1..(crate::valid::MAX_EXPRESSION_DEPTH as i128 / 2) {
        let (c, x, y) = (b.int(1), b.int(i), b.int(-i));
        let choice = b.expr(Expression::Conditional { condition: c, accept: x, reject: y }, int);
        let inner = b.binary(BinaryOp::Sub, choice, sum);
        sum = b.expr(Expression::Unary { op: UnaryOp::BitNot, operand: inner }, int);
    }
    b.push(Statement::Expression(sum));
    b.finish();
    assert_eq!(validate(&module), Ok(()));
    let text = print_module(&module);
    assert!(text.contains("~((1 ? 511 : -511) - ~((1 ? 510 : -510) - "), "{}", &text[..200]);
    assert!(!text.contains("too deep"));
}

#[test]
fn every_nesting_form_prints_at_the_depth_limit() {
    let depth = crate::valid::MAX_EXPRESSION_DEPTH - 2;
    type Wrap = fn(&mut FunctionBuilder, Handle<Expression>) -> Handle<Expression>;
    // Each form with the number of tree levels one wrapping adds.
    let forms: &[(&str, usize, Wrap)] = &[
        ("builtin", 1, |b, e| {
            let float = b.scalar(Scalar::Float);
            let function =
                Builtin::Math { function: MathFunction::Fabs, precision: MathPrecision::Full };
            b.expr(Expression::Builtin { function, args: vec![e] }, float)
        }),
        ("cast", 1, |b, e| {
            let float = b.scalar(Scalar::Float);
            b.expr(Expression::Convert { value: e, kind: ConversionKind::Cast }, float)
        }),
        ("explicit", 1, |b, e| {
            let float = b.scalar(Scalar::Float);
            let kind = ConversionKind::Explicit { saturate: false, rounding: None };
            b.expr(Expression::Convert { value: e, kind }, float)
        }),
        ("splat and swizzle", 2, |b, e| {
            let float = b.scalar(Scalar::Float);
            let float2 = b.vector(Scalar::Float, 2);
            let v = b.expr(Expression::Splat(e), float2);
            b.expr(Expression::Swizzle { base: v, components: vec![1] }, float)
        }),
        ("compose", 2, |b, e| {
            let float = b.scalar(Scalar::Float);
            let float2 = b.vector(Scalar::Float, 2);
            let one = b.float(1.0);
            let v = b.expr(Expression::Compose(vec![e, one]), float2);
            b.expr(Expression::Swizzle { base: v, components: vec![0] }, float)
        }),
        ("comma", 1, |b, e| {
            let zero = b.float(0.0);
            let float = b.scalar(Scalar::Float);
            b.expr(Expression::Comma { lhs: zero, rhs: e }, float)
        }),
    ];
    for (name, levels_per_wrap, wrap) in forms {
        let mut module = Module::default();
        let mut b = FunctionBuilder::kernel(&mut module, "k");
        let mut e = b.float(2.0);
        let mut levels = 1;
        while levels < depth {
            e = wrap(&mut b, e);
            levels += levels_per_wrap;
        }
        b.push(Statement::Expression(e));
        b.finish();
        let text = print_module(&module);
        assert!(!text.contains("too deep"), "{name}");
    }
}

#[test]
fn implicit_conversions_c_would_not_make_are_spelled_out() {
    // uint + int computes in uint in C; an IR that adds them as int (a transform's
    // "implicit" conversion of the uint) must show the conversion.
    let text = print_statement(|b| {
        let int = b.scalar(Scalar::Int);
        let uint = b.scalar(Scalar::UInt);
        let x = b.expr(Expression::Literal(Literal::int(Scalar::UInt, 7)), uint);
        let x = b.expr(Expression::Convert { value: x, kind: ConversionKind::Implicit }, int);
        let y = b.int(-1);
        b.binary(BinaryOp::Lt, y, x)
    });
    assert_eq!(text, "-1 < (int)7u");
    // int + float computes in float in C: nothing to show.
    let text = print_statement(|b| {
        let float = b.scalar(Scalar::Float);
        let x = b.int(2);
        let x = b.expr(Expression::Convert { value: x, kind: ConversionKind::Implicit }, float);
        let y = b.float(0.5);
        b.binary(BinaryOp::Mul, x, y)
    });
    assert_eq!(text, "2 * 0.5f");
}

#[test]
fn implicit_vector_and_address_space_conversions_become_casts() {
    // OpenCL converts no vector implicitly.
    let text = print_statement(|b| {
        let int4 = b.vector(Scalar::Int, 4);
        let float4 = b.vector(Scalar::Float, 4);
        let v = b.expr(Expression::ZeroValue, int4);
        b.expr(Expression::Convert { value: v, kind: ConversionKind::Implicit }, float4)
    });
    assert_eq!(text, "(float4)(int4)(0)");
    // Nor a pointer into another address space.
    let text = print_statement(|b| {
        let float = b.scalar(Scalar::Float);
        let global = b.pointer(float, AddressSpace::Global);
        let local = b.pointer(float, AddressSpace::Local);
        let p = b.expr(Expression::ZeroValue, global);
        b.expr(Expression::Convert { value: p, kind: ConversionKind::Implicit }, local)
    });
    assert_eq!(text, "(__local float *)(__global float *)0");
}
