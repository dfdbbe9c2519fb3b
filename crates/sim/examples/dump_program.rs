//! Prints the compiled form of a kernel: `dump_program FILE.cl KERNEL`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(kernel)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: dump_program FILE.cl KERNEL");
        std::process::exit(2);
    };
    let compiled = match clmap_lang::frontend::compile_file(std::path::Path::new(path), "") {
        Ok(c) => c,
        Err(f) => {
            eprintln!("{}", f.render());
            std::process::exit(1);
        }
    };
    match clmap_sim::compile_kernel(&compiled.module, kernel) {
        Ok(p) => println!("{p:#?}"),
        Err(e) => eprintln!("error: {e}"),
    }
}
