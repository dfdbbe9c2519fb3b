//! Tests of the validator: one broken invariant per test, and no panics on garbage.

use super::testing::{block, scale_kernel, FunctionBuilder};
use super::{validate, ValidationErrorKind as Kind};
use crate::ir::*;

fn kinds(module: &Module) -> Vec<Kind> {
    match validate(module) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.into_iter().map(|e| e.kind).collect(),
    }
}

fn has(module: &Module, wanted: impl Fn(&Kind) -> bool) -> bool {
    kinds(module).iter().any(wanted)
}

#[test]
fn well_formed_kernel_is_accepted() {
    assert_eq!(kinds(&scale_kernel()), Vec::new());
}

#[test]
fn shared_expression_breaks_the_tree() {
    let mut module = scale_kernel();
    let f = &mut module.functions[Handle::from_index(0)];
    // Evaluate the kernel's store a second time from another statement.
    let store = match &f.body.statements[1] {
        Statement::Expression(e) => *e,
        _ => unreachable!(),
    };
    f.body.push(Statement::Expression(store), crate::span::Span::UNDEFINED);
    assert!(has(&module, |k| matches!(k, Kind::ExpressionReused { uses: 2, .. })));
}

#[test]
fn out_of_range_handles_are_reported_not_followed() {
    let mut module = scale_kernel();
    let f = &mut module.functions[Handle::from_index(0)];
    f.expressions.append(Expression::Load(Handle::from_index(999)), crate::span::Span::UNDEFINED);
    f.expression_types.push(Handle::from_index(77));
    f.body.push(Statement::Return(Some(Handle::from_index(555))), crate::span::Span::UNDEFINED);
    let found = kinds(&module);
    assert!(found.contains(&Kind::InvalidExpressionHandle { index: 999 }));
    assert!(found.contains(&Kind::InvalidTypeHandle { index: 77 }));
    assert!(found.iter().any(|k| matches!(k, Kind::InvalidReturn { .. })));
}

#[test]
fn type_table_must_match_the_arena() {
    let mut module = scale_kernel();
    module.functions[Handle::from_index(0)].expression_types.pop();
    assert!(has(&module, |k| matches!(k, Kind::ExpressionTypeTableLength { .. })));
}

#[test]
fn cycles_are_found_without_looping() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let int = b.scalar(Scalar::Int);
    let a = b.expr(Expression::Unary { op: UnaryOp::Negate, operand: Handle::from_index(1) }, int);
    b.expr(Expression::Unary { op: UnaryOp::Negate, operand: a }, int);
    b.finish();
    assert!(has(&module, |k| matches!(k, Kind::ExpressionCycle { .. })));
}

#[test]
fn very_deep_expressions_are_rejected_without_overflowing() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let int = b.scalar(Scalar::Int);
    let mut e = b.int(1);
    for _ in 0..5000 {
        e = b.expr(Expression::Unary { op: UnaryOp::Negate, operand: e }, int);
    }
    b.push(Statement::Expression(e));
    b.finish();
    let found = kinds(&module);
    assert_eq!(found.iter().filter(|k| matches!(k, Kind::ExpressionTooDeep { .. })).count(), 1);
    // The printer stops at the same limit instead of overflowing the stack.
    let text = crate::print::print_module(&module);
    assert!(text.contains("too deep"));
}

#[test]
fn break_and_continue_need_an_enclosing_construct() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    b.push(Statement::Break);
    let selector = b.int(0);
    let case =
        SwitchCase { value: Some(1), body: block(vec![Statement::Continue]), fall_through: false };
    b.push(Statement::Switch { selector, cases: vec![case] });
    let body = block(vec![Statement::Continue, Statement::Break]);
    b.push(Statement::Loop {
        form: LoopForm::While,
        init: Block::new(),
        condition: None,
        update: None,
        body,
        pragma: None,
    });
    b.finish();
    let found = kinds(&module);
    assert_eq!(found, vec![Kind::BreakOutsideLoop, Kind::ContinueOutsideLoop]);
}

#[test]
fn local_memory_only_in_kernels_and_declared_once() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::helper(&mut module, "h", None);
    let float = b.scalar(Scalar::Float);
    let tile = b.local("tile", float, AddressSpace::Local);
    let never = b.local("never", float, AddressSpace::Private);
    b.push(Statement::Declare { variable: tile, init: None });
    b.push(Statement::Declare { variable: tile, init: None });
    let _ = never;
    b.finish();
    let found = kinds(&module);
    assert!(found.contains(&Kind::LocalMemoryOutsideKernel { name: "tile".into() }));
    assert!(found.contains(&Kind::DeclarationCount { name: "tile".into(), count: 2 }));
    assert!(found.contains(&Kind::DeclarationCount { name: "never".into(), count: 0 }));
}

#[test]
fn switch_cases_are_unique() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let selector = b.int(3);
    let case = |value| SwitchCase { value, body: Block::new(), fall_through: true };
    b.push(Statement::Switch {
        selector,
        cases: vec![case(Some(1)), case(None), case(Some(1)), case(None)],
    });
    b.finish();
    assert_eq!(kinds(&module), vec![Kind::DuplicateCase { value: 1 }, Kind::DuplicateDefault]);
}

#[test]
fn calls_go_to_earlier_functions_with_matching_arguments() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::helper(&mut module, "f", None);
    let void = b.ty(TypeInner::Void);
    // f calls itself: recursion.
    let call = b.expr(Expression::Call { function: Handle::from_index(0), args: vec![] }, void);
    b.push(Statement::Expression(call));
    b.finish();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let arg = b.int(1);
    let call = b.expr(Expression::Call { function: Handle::from_index(0), args: vec![arg] }, void);
    b.push(Statement::Expression(call));
    b.finish();
    let found = kinds(&module);
    assert!(found.contains(&Kind::CallNotDefinedBefore { callee: "f".into() }));
    assert!(found.contains(&Kind::ArgumentCount { callee: "f".into(), expected: 0, found: 1 }));
}

#[test]
fn operator_types_must_agree() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let x = b.float(1.0);
    let y = b.int(2);
    let mixed = b.binary(BinaryOp::Mul, x, y);
    b.push(Statement::Expression(mixed));
    let x = b.float(1.0);
    let y = b.float(2.0);
    let float = b.scalar(Scalar::Float);
    // A comparison must give int, not float.
    let compare = b.expr(Expression::Binary { op: BinaryOp::Lt, lhs: x, rhs: y }, float);
    b.push(Statement::Expression(compare));
    let x = b.float(1.0);
    let y = b.float(2.0);
    let rem = b.binary(BinaryOp::Rem, x, y);
    b.push(Statement::Expression(rem));
    b.finish();
    let reasons: Vec<String> = kinds(&module)
        .into_iter()
        .filter_map(|k| match k {
            Kind::InvalidExpression { reason, .. } => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(reasons[0].contains("different types (float and int)"));
    assert!(reasons[1].contains("comparison"));
    assert!(reasons[2].contains("integers"));
}

#[test]
fn places_and_swizzles() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let float4 = b.vector(Scalar::Float, 4);
    let float2 = b.vector(Scalar::Float, 2);
    let v = b.local("v", float4, AddressSpace::Private);
    b.push(Statement::Declare { variable: v, init: None });
    // A literal is not a place.
    let one = b.float(1.0);
    let two = b.float(2.0);
    let bad_store = b.assign(one, two);
    b.push(Statement::Expression(bad_store));
    // v.xx = … repeats a component; v.s7 is out of range for a float4.
    let place = b.local_place(v);
    let xx = b.expr(Expression::Swizzle { base: place, components: vec![0, 0] }, float2);
    let value = b.expr(Expression::ZeroValue, float2);
    let repeat = b.assign(xx, value);
    b.push(Statement::Expression(repeat));
    let place = b.local_place(v);
    let float = b.scalar(Scalar::Float);
    let s7 = b.expr(Expression::Swizzle { base: place, components: vec![7] }, float);
    let read = b.load(s7);
    b.push(Statement::Expression(read));
    b.finish();
    let found = kinds(&module);
    assert!(found.iter().any(|k| matches!(k, Kind::NotAPlace { .. })), "{found:?}");
    assert!(found.iter().any(
        |k| matches!(k, Kind::InvalidExpression { reason, .. } if reason.contains("repeats"))
    ));
    assert!(found.iter().any(
        |k| matches!(k, Kind::InvalidExpression { reason, .. } if reason.contains("out of range"))
    ));
}

#[test]
fn stores_through_constant_pointers_are_rejected() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let float = b.scalar(Scalar::Float);
    let ptr = b.pointer(float, AddressSpace::Constant);
    let p = b.param("p", ptr);
    let base = b.param_value(p);
    let zero = b.int(0);
    let target = b.index(base, zero);
    let value = b.float(1.0);
    let store = b.assign(target, value);
    b.push(Statement::Expression(store));
    b.finish();
    assert!(has(&module, |k| matches!(k, Kind::WriteToReadOnly { .. })));
}

#[test]
fn diagnostics_name_the_function() {
    let mut module = scale_kernel();
    module.functions[Handle::from_index(0)]
        .body
        .push(Statement::Continue, crate::span::Span::UNDEFINED);
    let errors = validate(&module).unwrap_err();
    let diagnostic = errors[0].to_diagnostic();
    assert_eq!(diagnostic.message, "invalid IR: in function 'scale': `continue` outside a loop");
    assert!(diagnostic.is_error());
}

/// A tiny deterministic generator, so the mutation test needs no dependency.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> usize {
        (self.next() % n.max(1)) as usize
    }
}

/// Rewires one operand handle of the expression to `target`.
fn rewire(expr: &mut Expression, target: usize) {
    let h = Handle::from_index(target);
    match expr {
        Expression::Load(e) | Expression::Deref(e) | Expression::Convert { value: e, .. } => *e = h,
        Expression::Index { index, .. } => *index = h,
        Expression::Binary { rhs, .. } => *rhs = h,
        Expression::Assign { value, .. } => *value = h,
        Expression::Builtin { args, .. } => {
            if let Some(a) = args.first_mut() {
                *a = h
            }
        }
        _ => {}
    }
}

#[test]
fn mutated_modules_never_panic_the_validator_printer_or_dump() {
    let mut rng = SplitMix(7);
    let mut accepted = 0;
    for _ in 0..2000 {
        let mut module = scale_kernel();
        let f = &mut module.functions[Handle::from_index(0)];
        let count = f.expressions.len() as u64;
        for _ in 0..1 + rng.below(3) {
            let victim = Handle::from_index(rng.below(count));
            let target = rng.below(count + 3);
            match rng.below(4) {
                0 => rewire(&mut f.expressions[victim], target),
                1 => f.expression_types[victim.index()] = Handle::from_index(rng.below(8)),
                2 => f.body.statements.swap(0, 1),
                _ => f.params.truncate(rng.below(3)),
            }
        }
        if validate(&module).is_ok() {
            accepted += 1;
        }
        // Neither the printer nor the dump may panic, even on IR the validator rejects.
        let _ = crate::print::print_module(&module);
        let _ = crate::dump::dump_module(&module, None);
    }
    // Some mutations are harmless (a swap of type handles that happen to be equal, …), most
    // are not.
    assert!(accepted < 1000, "{accepted} of 2000 mutated modules accepted");
}

#[test]
fn pointers_point_into_the_place_address_space() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let float = b.scalar(Scalar::Float);
    let tile_type = b.ty(TypeInner::Array { element: float, len: 4 });
    let tile = b.local("tile", tile_type, AddressSpace::Local);
    b.push(Statement::Declare { variable: tile, init: None });
    // `&tile[0]` typed as a __global pointer: a transform that moved the array forgot the
    // pointer.
    let global_ptr = b.pointer(float, AddressSpace::Global);
    let place = b.local_place(tile);
    let zero = b.int(0);
    let element = b.index(place, zero);
    let address = b.expr(Expression::AddressOf(element), global_ptr);
    b.push(Statement::Expression(address));
    let place = b.local_place(tile);
    let decayed = b.expr(Expression::Decay(place), global_ptr);
    b.push(Statement::Expression(decayed));
    b.finish();
    let reasons: Vec<String> = kinds(&module)
        .into_iter()
        .filter_map(|k| match k {
            Kind::InvalidExpression { reason, .. } => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        vec!["a pointer into __global memory points at a __local object".to_string(); 2]
    );
}

#[test]
fn compositions_and_conversions_have_matching_shapes() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let float = b.scalar(Scalar::Float);
    let float4 = b.vector(Scalar::Float, 4);
    let int2 = b.vector(Scalar::Int, 2);
    // Three floats do not make a float4.
    let parts = vec![b.float(1.0), b.float(2.0), b.float(3.0)];
    let short = b.expr(Expression::Compose(parts), float4);
    b.push(Statement::Expression(short));
    // A float4 does not convert to an int2.
    let v = b.expr(Expression::ZeroValue, float4);
    let narrowed = b.expr(Expression::Convert { value: v, kind: ConversionKind::Cast }, int2);
    b.push(Statement::Expression(narrowed));
    // as_int2 of a float: sizes differ.
    let x = b.float(1.0);
    let bits = b.expr(Expression::Bitcast(x), int2);
    b.push(Statement::Expression(bits));
    let _ = float;
    b.finish();
    let reasons: Vec<String> = kinds(&module)
        .into_iter()
        .filter_map(|k| match k {
            Kind::InvalidExpression { reason, .. } => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(reasons[0].contains("width 3"));
    assert!(reasons[1].contains("cannot convert float4 to int2"));
    assert!(reasons[2].contains("same size"));
}

#[test]
fn variables_are_used_only_inside_their_scope() {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let int = b.scalar(Scalar::Int);
    let inner = b.local("inner", int, AddressSpace::Private);
    let counter = b.local("i", int, AddressSpace::Private);
    let zero = b.int(0);
    b.push(Statement::Block(block(vec![Statement::Declare { variable: inner, init: Some(zero) }])));
    // `inner` after its block has ended.
    let late = b.local_value(inner);
    b.push(Statement::Expression(late));
    // A for-loop variable is visible in the condition and body, not after the loop.
    let zero = b.int(0);
    let i = b.local_value(counter);
    let ten = b.int(10);
    let condition = b.binary(BinaryOp::Lt, i, ten);
    let use_in_body = b.local_value(counter);
    b.push(Statement::Loop {
        form: LoopForm::For,
        init: block(vec![Statement::Declare { variable: counter, init: Some(zero) }]),
        condition: Some(condition),
        update: None,
        body: block(vec![Statement::Expression(use_in_body), Statement::Break]),
        pragma: None,
    });
    let after = b.local_value(counter);
    b.push(Statement::Expression(after));
    b.finish();
    assert_eq!(
        kinds(&module),
        vec![
            Kind::VariableOutOfScope { name: "inner".into() },
            Kind::VariableOutOfScope { name: "i".into() }
        ]
    );
}

/// A struct named `name` with the given members, laid out one pointer-sized slot each.
fn struct_of(name: &str, members: &[(&str, Handle<Type>)]) -> TypeInner {
    TypeInner::Struct {
        name: name.into(),
        naming: StructNaming::Tag,
        is_union: false,
        members: members
            .iter()
            .enumerate()
            .map(|(i, (n, ty))| StructMember { name: (*n).into(), ty: *ty, offset: 8 * i as u32 })
            .collect(),
        size: 8 * members.len() as u32,
        align: if members.is_empty() { 1 } else { 8 },
        is_complete: !members.is_empty(),
    }
}

#[test]
fn a_struct_may_point_to_itself_but_not_contain_itself() {
    let span = crate::span::Span::UNDEFINED;
    let mut module = Module::default();
    let node = module.ty(struct_of("node", &[]));
    let next = module.ty(TypeInner::Pointer {
        pointee: node,
        space: AddressSpace::Private,
        is_const: false,
        is_volatile: false,
        is_restrict: false,
    });
    assert_eq!(module.types.replace(node, struct_of("node", &[("next", next)]), span), Ok(()));
    assert_eq!(kinds(&module), Vec::new(), "a cycle through a pointer is fine");

    let loop_ = module.ty(struct_of("loop", &[]));
    let pair = module.ty(TypeInner::Array { element: loop_, len: 2 });
    let whole = struct_of("loop", &[("next", next), ("inside", pair)]);
    assert_eq!(module.types.replace(loop_, whole, span), Ok(()));
    let found = kinds(&module);
    assert!(found.contains(&Kind::StructContainsItself { ty: loop_.index() }), "{found:?}");
}

#[test]
fn an_incomplete_struct_is_only_pointed_to() {
    let mut module = Module::default();
    let opaque = module.ty(struct_of("opaque", &[]));
    let holder = module.ty(struct_of("holder", &[("inside", opaque)]));
    let found = kinds(&module);
    assert!(
        found.iter().any(|k| matches!(k, Kind::IncompleteType { ty, .. } if *ty == opaque.index())),
        "{found:?} for {holder:?}"
    );

    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "k");
    let opaque = b.ty(struct_of("opaque", &[]));
    let pointer = b.pointer(opaque, AddressSpace::Global);
    b.param("handle", pointer);
    let value = b.local("value", opaque, AddressSpace::Private);
    b.push(Statement::Declare { variable: value, init: None });
    b.finish();
    let found = kinds(&module);
    assert_eq!(
        found,
        vec![Kind::IncompleteType { what: "variable 'value'".into(), ty: opaque.index() }],
        "the pointer parameter is fine, the variable is not"
    );
}
