//! OpenCL C 2.0 corners the front end accepts under `-cl-std=CL2.0` and refuses, with the
//! option to pass, under OpenCL C 1.2: `__global` program-scope variables (pointers among them
//! initialised with the addresses of others), `get_enqueued_local_size` and the linear ids.
//! The printed text reads back to the same variables.

use clmap_lang::frontend::{compile_isolated, Compiled};
use clmap_lang::ir::{AddressSpace, Builtin, ConstValue, Expression, WorkItemFunction};
use clmap_lang::print;

const CL2: &str = "-cl-std=CL2.0";

fn compile(src: &str, options: &str) -> Compiled {
    match compile_isolated(src, options) {
        Ok(c) => c,
        Err(f) => panic!("does not compile:\n{}", f.render()),
    }
}

fn refused(src: &str, options: &str) -> String {
    match compile_isolated(src, options) {
        Ok(_) => panic!("compiles, but should not:\n{src}"),
        Err(f) => f.render(),
    }
}

const GLOBALS: &str = "global int counter = 5;
int table[4];
constant int scale = 3;
__kernel void k(__global int *out) {
    int i = get_global_id(0);
    table[i] = counter * scale + i;
    counter = 1;
    out[i] = table[i] + get_enqueued_local_size(0);
}
";

#[test]
fn global_program_scope_variables_are_opencl_c_2() {
    let c = compile(GLOBALS, CL2);
    let globals: Vec<_> = c.module.global_variables.iter().map(|(_, g)| g).collect();
    assert_eq!(globals.len(), 3);
    assert_eq!((globals[0].name.as_str(), globals[0].space), ("counter", AddressSpace::Global));
    assert!(matches!(globals[0].init, Some(ConstValue::Literal(_))));
    // Without an address space OpenCL C 2.0 puts it in global memory, zero-initialised.
    assert_eq!((globals[1].name.as_str(), globals[1].space), ("table", AddressSpace::Global));
    assert_eq!(globals[1].init, None);
    assert_eq!(globals[2].space, AddressSpace::Constant);
    assert!(c.module.allows_partial_groups());

    let printed = print::print_module(&c.module);
    assert!(printed.contains("__global int counter = 5;"), "{printed}");
    assert!(printed.contains("__global int table[4];"), "{printed}");
    let again = compile(&printed, CL2);
    let spaces = |m: &clmap_lang::ir::Module| {
        m.global_variables
            .iter()
            .map(|(_, g)| (g.name.clone(), g.space, g.init.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(spaces(&again.module), spaces(&c.module));
}

#[test]
fn opencl_c_1_2_refuses_them_and_names_the_option() {
    let rendered = refused(GLOBALS, "");
    assert!(rendered.contains("program scope variable must reside in constant address space"));
    assert!(rendered.contains("-cl-std=CL2.0"), "{rendered}");
    let rendered = refused(
        "__kernel void k(__global ulong *out) { out[0] = get_enqueued_local_size(0); }",
        "-cl-std=CL1.2",
    );
    assert!(rendered.contains("'get_enqueued_local_size' is an OpenCL C 2.0 function"));
    assert!(rendered.contains("-cl-std=CL2.0"), "{rendered}");
    // Even OpenCL C 2.0 has no program-scope local or private variables, nor uninitialised
    // constants.
    assert!(refused("local int x; __kernel void k() {}", CL2).contains("global or constant"));
    assert!(refused("constant int x; __kernel void k() {}", CL2).contains("must be initialized"));
}

#[test]
fn the_enqueued_local_size_is_its_own_work_item_function() {
    let c = compile(GLOBALS, CL2);
    let k = &c.module.functions[c.module.kernel_by_name("k").expect("kernel")];
    assert!(k.expressions.iter().any(|(_, e)| matches!(
        e,
        Expression::Builtin {
            function: Builtin::WorkItem(WorkItemFunction::EnqueuedLocalSize),
            ..
        }
    )));
}

const POINTERS: &str = "typedef struct { int id; float weights[3]; } Entry;
global Entry table[2] = {{1, {0.5f, 1.5f, 2.5f}}, {2, {3.5f, 4.5f, 5.5f}}};
constant short steps[4] = {10, 20, 30, 40};
global float *second_weight = &table[1].weights[1];
global Entry *first = table;
constant short *last_step = steps + 3;
global int *first_id = (global int *)&table;
global float *global *indirect = &second_weight;
__kernel void k(__global float *out) { out[0] = *second_weight + **indirect; }
";

#[test]
fn program_scope_pointers_hold_addresses_of_program_scope_variables() {
    let c = compile(POINTERS, CL2);
    let globals: Vec<_> = c.module.global_variables.iter().collect();
    let address = |name: &str| {
        let (_, g) = globals.iter().find(|(_, g)| g.name == name).expect(name);
        match &g.init {
            Some(ConstValue::Address { global, offset }) => {
                (c.module.global_variables.get(*global).map(|g| g.name.clone()), *offset)
            }
            other => panic!("{name}: {other:?}"),
        }
    };
    // Entry is 16 bytes: the second one's weights[1] is at 16 + 4 + 4.
    assert_eq!(address("second_weight"), (Some("table".to_string()), 24));
    assert_eq!(address("first"), (Some("table".to_string()), 0));
    assert_eq!(address("last_step"), (Some("steps".to_string()), 6));
    assert_eq!(address("first_id"), (Some("table".to_string()), 0));
    assert_eq!(address("indirect"), (Some("second_weight".to_string()), 0));

    // Printed, they read back to the same addresses, and clang takes the text.
    let printed = print::print_module(&c.module);
    let again = compile(&printed, CL2);
    let inits = |m: &clmap_lang::ir::Module| {
        m.global_variables.iter().map(|(_, g)| g.init.clone()).collect::<Vec<_>>()
    };
    assert_eq!(inits(&again.module), inits(&c.module), "{printed}");
    if let Some(clang) = clmap_testkit::clang() {
        let check = clmap_testkit::ClangCheck::new().options(CL2);
        clang.check(&printed, &check).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    }
}

#[test]
fn an_address_that_is_not_constant_is_refused() {
    let src = "global int table[4];\nglobal int at = 1;\nglobal int *p = &table[at];\n\
               __kernel void k() {}";
    assert!(refused(src, CL2).contains("not a compile-time constant"));
    // C has no address before the start of an object.
    let src = "global int table[4];\nglobal int *p = table + 5 - 6;\n__kernel void k() {}";
    assert!(refused(src, CL2).contains("not a compile-time constant"), "before the start");
}

#[test]
fn linear_ids_are_the_work_item_functions_they_are_defined_by() {
    let src = "__kernel void k(__global ulong *out) {
        out[get_global_linear_id()] = get_local_linear_id();
    }";
    let c = compile(src, CL2);
    let k = &c.module.functions[c.module.kernel_by_name("k").expect("kernel")];
    let used: std::collections::BTreeSet<_> = k
        .expressions
        .iter()
        .filter_map(|(_, e)| match e {
            Expression::Builtin { function: Builtin::WorkItem(f), .. } => Some(f.name()),
            _ => None,
        })
        .collect();
    assert_eq!(
        used.into_iter().collect::<Vec<_>>(),
        ["get_global_id", "get_global_offset", "get_global_size", "get_local_id", "get_local_size"]
    );
    // The printed kernel spells them out, so it is OpenCL C 1.2 too.
    let printed = print::print_module(&c.module);
    assert!(!printed.contains("linear_id"), "{printed}");
    compile(&printed, "-cl-std=CL1.2");

    let rendered = refused(src, "-cl-std=CL1.2");
    assert!(rendered.contains("'get_global_linear_id' is an OpenCL C 2.0 function"), "{rendered}");
    assert!(rendered.contains("-cl-std=CL2.0"), "{rendered}");
    let rendered =
        refused("__kernel void k(__global ulong *o) { o[0] = get_local_linear_id(0); }", CL2);
    assert!(rendered.contains("too many arguments"), "{rendered}");
}
