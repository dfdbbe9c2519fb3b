//! Fuzz target: any bytes through the whole front end (preprocess, parse, check, validate, and
//! print + re-check of whatever compiles). The only acceptable outcomes are a module or
//! diagnostics; a panic, hang or stack overflow is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(compiled) = clmap_lang::frontend::compile_isolated(text, "") {
        let printed = clmap_lang::print::print_module(&compiled.module);
        // The printer promises valid OpenCL C: what it prints must compile again.
        if let Err(failure) = clmap_lang::frontend::compile_isolated(&printed, "") {
            panic!("printed program does not compile:\n{printed}\n{}", failure.render());
        }
    }
});
