//! OpenCL C 2.0 corners the front end accepts under `-cl-std=CL2.0` and refuses, with the
//! option to pass, under OpenCL C 1.2: `__global` program-scope variables and
//! `get_enqueued_local_size`. The printed text reads back to the same variables.

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
