//! A crashing or hanging stage costs one compilation, names its stage and never takes the
//! caller down. The stages are played by wrapper scripts around the real tools.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use clmap_llvm::{
    compile, compile_many, front_end, FailureKind, PassLevel, PassPool, PassSequence, PoolPass,
    Stage, Toolchain, ToolchainConfig,
};

/// An `opt` that dies on SIGSEGV for the pass `segv`, sleeps (with a child process holding its
/// output pipes) for `hang`, aborts for `abort`, and is the real opt otherwise.
fn fake_opt(real: &Path) -> String {
    format!(
        r#"#!/bin/sh
case "$*" in
  *segv*) kill -SEGV $$ ;;
  *hang*) sleep 60; exit 0 ;;
  *abort*) echo "LLVM ERROR: pretend fatal error" >&2; kill -ABRT $$ ;;
esac
exec "{}" "$@"
"#,
        real.display()
    )
}

fn write_executable(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write wrapper");
    let mut permissions = std::fs::metadata(path).expect("metadata").permissions();
    permissions.set_mode(0o755);
    std::fs::set_permissions(path, permissions).expect("chmod");
}

fn wrapper_toolchain(real: &Toolchain, dir: &Path, timeout: Duration) -> Toolchain {
    for (name, path) in [
        ("clang", real.clang_path()),
        ("llvm-link", real.llvm_link_path()),
        ("llc", real.llc_path()),
    ] {
        write_executable(
            &dir.join(name),
            &format!("#!/bin/sh\nexec \"{}\" \"$@\"\n", path.display()),
        );
    }
    write_executable(&dir.join("opt"), &fake_opt(real.opt_path()));
    Toolchain::detect(&ToolchainConfig {
        llvm_bin: Some(dir.to_path_buf()),
        libclc: Some(real.libclc_path().to_path_buf()),
        clc_include: Some(real.clc_include_path().to_path_buf()),
        sm: real.sm().to_string(),
        timeout,
    })
    .expect("wrapper toolchain")
}

fn pool() -> PassPool {
    let pass = |name: &str| PoolPass { name: name.to_string(), level: PassLevel::Function };
    PassPool::from_passes(vec![pass("segv"), pass("hang"), pass("abort"), pass("sroa")])
}

fn seq(name: &str) -> PassSequence {
    PassSequence(vec![name.to_string()])
}

#[test]
fn crashes_and_hangs_are_isolated_errors() {
    let Some(real) = common::toolchain() else { return };
    let dir = clmap_testkit::Scratch::new("llvm-isolation");
    let tc = wrapper_toolchain(&real, dir.path(), Duration::from_secs(2));
    let bc = front_end(&tc, common::GEMM, "", &[]).expect("front end through the wrapper");
    let pool = pool();

    let crash = compile(&tc, &bc, &pool, &seq("segv")).expect_err("segv");
    assert_eq!(crash.stage, Stage::Optimise);
    assert_eq!(crash.kind, FailureKind::Crashed);
    assert!(crash.detail.contains("signal 11"), "{}", crash.detail);

    let abort = compile(&tc, &bc, &pool, &seq("abort")).expect_err("abort");
    assert_eq!(abort.kind, FailureKind::Crashed);
    assert!(abort.detail.contains("pretend fatal error"), "{}", abort.detail);

    // The sleeping grandchild holds the pipes open: only killing the whole process group lets
    // the compilation return near the limit instead of after the full sleep.
    let started = Instant::now();
    let hang = compile(&tc, &bc, &pool, &seq("hang")).expect_err("hang");
    assert_eq!(hang.stage, Stage::Optimise);
    assert_eq!(hang.kind, FailureKind::TimedOut);
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());

    // Failures of some sequences leave the others intact.
    let results =
        compile_many(&tc, &bc, &pool, &[seq("segv"), seq("sroa"), seq("hang"), seq("sroa")], 2);
    assert_eq!(results.len(), 4);
    assert!(results[0].is_err() && results[2].is_err());
    let first = results[1].as_ref().expect("sroa compiles");
    let second = results[3].as_ref().expect("sroa compiles");
    assert_eq!(first.hash, second.hash);
}

#[test]
fn a_missing_tool_is_named_in_the_error() {
    let dir = clmap_testkit::Scratch::new("llvm-isolation");
    let err = Toolchain::detect(&ToolchainConfig {
        llvm_bin: Some(dir.path().to_path_buf()),
        ..ToolchainConfig::default()
    })
    .expect_err("empty bin dir");
    let text = err.to_string();
    assert!(text.contains("clang") || text.contains("opt"), "{text}");
    assert!(text.contains("CLMAP_LLVM_BIN"), "{text}");

    let err = Toolchain::detect(&ToolchainConfig {
        llvm_bin: Some(dir.path().join("does-not-exist")),
        ..ToolchainConfig::default()
    })
    .expect_err("missing dir");
    assert!(err.to_string().contains("does-not-exist"), "{err}");
}
