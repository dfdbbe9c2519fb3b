//! Links the system's isl (Debian: `libisl-dev`). The library is looked for where the
//! system linker looks, so that a missing package fails here with the package name rather
//! than as an undefined-symbol error from the linker.

use std::path::Path;

const SEARCH_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/lib",
];

fn main() {
    println!("cargo:rerun-if-env-changed=ISL_LIB_DIR");
    if let Some(dir) = std::env::var_os("ISL_LIB_DIR") {
        println!("cargo:rustc-link-search=native={}", Path::new(&dir).display());
    } else if !SEARCH_DIRS.iter().any(|d| Path::new(d).join("libisl.so").exists()) {
        println!(
            "cargo:warning=libisl.so was not found in {}: install libisl-dev (scripts/install-deps.sh does) \
             or set ISL_LIB_DIR",
            SEARCH_DIRS.join(", ")
        );
    }
    println!("cargo:rustc-link-lib=isl");
}
