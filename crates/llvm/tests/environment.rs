//! Configuration through the environment, as on a GPU machine that has a system clang but gets
//! opt, llvm-link, llc and libclc carried in a directory. Its own test binary because it sets
//! process-wide variables.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use clmap_llvm::{compile_baseline, front_end, LlvmError, OptLevel, Toolchain, ToolchainConfig};

fn wrapper(path: &Path, target: &Path) {
    std::fs::write(path, format!("#!/bin/sh\nexec \"{}\" \"$@\"\n", target.display()))
        .expect("write wrapper");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
        .unwrap_or(false)
}

#[test]
fn a_carried_directory_plus_system_clang_is_enough() {
    let Some(real) = common::toolchain() else { return };
    let major = real.version().split('.').next().unwrap_or("").to_string();

    let carried = clmap_testkit::Scratch::new("llvm-environment");
    let bin = carried.path().join("bin");
    let include = carried.path().join("include").join("clc");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::create_dir_all(&include).expect("include");
    wrapper(&bin.join("opt"), real.opt_path());
    wrapper(&bin.join("llvm-link"), real.llvm_link_path());
    wrapper(&bin.join("llc"), real.llc_path());
    let libclc = carried.path().join("nvptx64--nvidiacl.bc");
    std::fs::copy(real.libclc_path(), &libclc).expect("copy libclc");
    // The header directory is given as the `clc` directory itself; detection must use its
    // parent for -I. Only clc.h is linked in, which includes the rest from the real place.
    std::fs::write(
        include.join("clc.h"),
        format!("#include \"{}/clc/clc.h\"\n", real.clc_include_path().display()),
    )
    .expect("clc.h");

    std::env::set_var("CLMAP_LLVM_BIN", &bin);
    std::env::set_var("CLMAP_LIBCLC", &libclc);
    std::env::set_var("CLMAP_CLC_INCLUDE", &include);

    let clang_name = format!("clang-{major}");
    if on_path(&clang_name) {
        let tc = Toolchain::detect(&ToolchainConfig::default()).expect("carried toolchain");
        let description = tc.describe();
        assert!(description.contains(&bin.display().to_string()), "{description}");
        assert!(description.contains(&clang_name), "{description}");
        assert_eq!(tc.version(), real.version());
        assert_eq!(tc.clc_include_path(), include.parent().expect("parent"));
        let bc = front_end(&tc, common::GEMM, "", &[]).expect("front end");
        let ptx = compile_baseline(&tc, &bc, OptLevel::O2).expect("O2");
        assert!(ptx.as_str().contains(".entry gemm"));
    } else {
        eprintln!("skipping the system-clang half: {clang_name} is not on PATH");
    }

    // A variable naming a missing file is reported with the variable's name.
    std::env::set_var("CLMAP_LIBCLC", carried.path().join("missing.bc"));
    let err = Toolchain::detect(&ToolchainConfig {
        llvm_bin: Some(real.opt_path().parent().expect("bin dir").to_path_buf()),
        ..ToolchainConfig::default()
    })
    .expect_err("missing libclc");
    assert!(matches!(err, LlvmError::GivenPathMissing { .. }), "{err}");
    assert!(err.to_string().contains("CLMAP_LIBCLC"), "{err}");
}
