//! `clmap`: the command-line front door to every part of the toolkit.
//!
//! Each subcommand lives in its own module under `commands/`; this file only parses the command
//! line and maps outcomes to exit codes (see [`exit`]).

mod commands;
mod device_identity;
mod exit;
mod perf_db;
mod progress;
mod report;
mod run_report;
mod source_args;
mod workload_args;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// clmap: simulate OpenCL kernels, measure how they touch memory, rewrite them, and time them.
///
/// Start with `clmap check kernel.cl` to see whether clmap understands a kernel, `clmap print` to
/// see it the way clmap does, and `clmap ir` for the typed intermediate form every analysis
/// works on.
///
/// Exit codes: 0 success; 1 bad input (a file that does not parse or check, a bad option);
/// 2 the kernel did something wrong (out-of-bounds access, race, divergent barrier);
/// 3 the environment lacks something (no OpenCL runtime or device).
#[derive(Parser, Debug)]
#[command(name = "clmap", version, about, long_about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The most memory a workload's buffers may take together, and one simulated work-group
    /// (registers, private and local memory): bytes, or with K, M, G or T, e.g. 16G (default
    /// 4G for the buffers, 1G for a work-group; the environment variable CLMAP_MAX_ALLOC sets
    /// it too).
    #[arg(long, global = true, value_name = "SIZE", value_parser = workload_args::parse_size)]
    max_alloc: Option<u64>,
}

#[derive(Subcommand, Debug)]
enum Command {
    Check(commands::check::Args),
    Print(commands::print::Args),
    Ir(commands::ir::Args),
    Run(commands::run::Args),
    Compare(commands::compare::Args),
    Devices(commands::devices::Args),
    Exec(commands::exec::Args),
    Time(commands::time::Args),
    Unlocal(commands::unlocal::Args),
    Local(commands::local::Args),
    Fuse(commands::fuse::Args),
    Analyze(commands::analyze::Args),
    Maps(commands::maps::Args),
    Bench(commands::bench::Args),
    Db(commands::db::Args),
    Advise(commands::advise::Args),
    Phase(commands::phase::Args),
    Tune(commands::tune::Args),
    Workload(commands::workload::Args),
}

/// `clmap … | head` closes the pipe before clmap has printed everything. Rust ignores SIGPIPE,
/// so the next `print!` would panic; like other command-line tools, clmap instead ends
/// quietly through the default action. (clmap writes to no child process's stdin, where an
/// ignored SIGPIPE would matter.)
fn end_quietly_when_the_reader_leaves() {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn signal(signum: i32, handler: usize) -> usize;
        }
        const SIGPIPE: i32 = 13;
        const SIG_DFL: usize = 0;
        // SAFETY: restoring a signal's default action has no preconditions.
        unsafe {
            signal(SIGPIPE, SIG_DFL);
        }
    }
}

/// The name under which clmap takes `oclgrind-kernel`'s command line.
const OCLGRIND_KERNEL: &str = "oclgrind-kernel";
/// The name under which clmap takes `oclgrind`'s (a program and its arguments).
const OCLGRIND: &str = "oclgrind";

/// The command line as clmap parses it: called through a link named `oclgrind-kernel` or
/// `oclgrind`, clmap stands in for it, so scripts written for Oclgrind run unchanged:
/// `oclgrind-kernel ARGS…` is `clmap run --oclgrind-output ARGS…`, `oclgrind ./app ARGS…`
/// is `clmap exec --oclgrind-output ./app ARGS…`.
fn command_line(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = args.into_iter().collect();
    let called = args.first().map(std::path::Path::new).and_then(|p| p.file_stem());
    let command = match called {
        Some(name) if name == OCLGRIND_KERNEL => Some("run"),
        Some(name) if name == OCLGRIND => Some("exec"),
        _ => None,
    };
    if let Some(command) = command {
        args.splice(1..1, [command, "--oclgrind-output"].map(std::ffi::OsString::from));
    }
    args
}

fn main() -> ExitCode {
    clmap_sim::profile::process_started();
    end_quietly_when_the_reader_leaves();
    let cli = match Cli::try_parse_from(command_line(std::env::args_os())) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            // `--help` and `--version` are answers; anything else is a bad option (exit 1, as
            // documented), not clap's own 2, which clmap keeps for kernels that misbehave.
            return if error.use_stderr() { exit::Status::BadInput } else { exit::Status::Success }
                .into();
        }
    };
    workload_args::set_max_alloc(cli.max_alloc);
    let outcome = match cli.command {
        Command::Check(args) => commands::check::run(args),
        Command::Print(args) => commands::print::run(args),
        Command::Ir(args) => commands::ir::run(args),
        Command::Run(args) => commands::run::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::Devices(args) => commands::devices::run(args),
        Command::Exec(args) => commands::exec::run(args),
        Command::Time(args) => commands::time::run(args),
        Command::Unlocal(args) => commands::unlocal::run(args),
        Command::Local(args) => commands::local::run(args),
        Command::Fuse(args) => commands::fuse::run(args),
        Command::Analyze(args) => commands::analyze::run(args),
        Command::Maps(args) => commands::maps::run(args),
        Command::Bench(args) => commands::bench::run(args),
        Command::Db(args) => commands::db::run(args),
        Command::Advise(args) => commands::advise::run(args),
        Command::Phase(args) => commands::phase::run(args),
        Command::Tune(args) => commands::tune::run(args),
        Command::Workload(args) => commands::workload::run(args),
    };
    clmap_sim::profile::process_summary();
    match outcome {
        Ok(code) => code.into(),
        Err(error) => {
            eprintln!("error: {error}");
            error.exit_code().into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<std::ffi::OsString> {
        line.split(' ').map(std::ffi::OsString::from).collect()
    }

    #[test]
    fn the_oclgrind_kernel_name_takes_its_command_line() {
        assert_eq!(
            command_line(words("/usr/local/bin/oclgrind-kernel --data-races a.sim")),
            words("/usr/local/bin/oclgrind-kernel run --oclgrind-output --data-races a.sim")
        );
        assert_eq!(command_line(words("clmap run a.sim")), words("clmap run a.sim"));
        assert_eq!(
            command_line(words("./oclgrind-kernel-old x")),
            words("./oclgrind-kernel-old x")
        );
        assert_eq!(
            command_line(words("/opt/bin/oclgrind --data-races ./app -n 4")),
            words("/opt/bin/oclgrind exec --oclgrind-output --data-races ./app -n 4")
        );
        match Cli::try_parse_from(command_line(words("oclgrind --data-races ./app -q"))) {
            Ok(Cli { command: Command::Exec(exec), .. }) => {
                assert!(exec.oclgrind_output && exec.races);
                assert_eq!(exec.command, words("./app -q"), "the program's own options stay its");
            }
            other => panic!("{other:?}"),
        }
        let cli = Cli::try_parse_from(command_line(words("oclgrind-kernel -q a.sim")))
            .expect("oclgrind-kernel's options parse");
        match cli.command {
            Command::Run(run) => assert!(run.oclgrind_output && run.quick),
            other => panic!("{other:?}"),
        }
    }
}
