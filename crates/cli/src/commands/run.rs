//! `clmap run`: run a workload on the simulator or a device.

use crate::exit::{CliError, Status};
use crate::run_report;
use crate::workload_args;
use clmap_exec::{run_on, Target};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

const EXAMPLES: &str = "Examples:
  clmap run examples/transpose.toml --races --uninit
  clmap run kernel.sim --oclgrind-output        (a drop-in for oclgrind-kernel)
  clmap run kernel.sim -i                       (step through it: try `help`)
  clmap run examples/vector_add.toml --device gpu --out results/";

/// Run a workload: on the built-in simulator (default) or on an OpenCL device.
///
/// The simulator checks every memory access (an out-of-bounds access is reported with the
/// source line, the work-item and the work-group, and the run goes on); `--races` and `--uninit`
/// add the data-race and uninitialised-local-memory checkers. Outputs can be dumped in
/// Oclgrind's layout (`--dump`) or written as binary and CSV files (`--out DIR`).
///
/// Exit codes: 0 clean run; 1 bad workload or kernel; 2 the kernel did something wrong
/// (a checker fired, a divergent barrier, more steps than `--max-steps` allows); 3 no OpenCL
/// device.
#[derive(clap::Args, Debug)]
// oclgrind-kernel takes an option given twice (Oclgrind's runner passes a test's `# ARGS:`
// line, which may repeat what the environment already asks for), so clmap does too.
#[command(after_long_help = EXAMPLES, args_override_self = true)]
pub struct Args {
    /// The workload (.toml, or an Oclgrind .sim file).
    pub workload: PathBuf,
    /// Where to run: `sim` (the built-in simulator), or an OpenCL device as `clmap devices`
    /// lists it (`0`, `1:0`, `cpu`, `gpu`, or part of its name).
    #[arg(long, short, default_value = "sim")]
    pub device: String,
    /// Simulator threads (0 = one per core). Results do not depend on it (`--num-threads`
    /// as oclgrind-kernel spells it).
    #[arg(long, default_value_t = 0, visible_alias = "num-threads")]
    pub threads: usize,
    /// Report data races on local and global memory within a barrier interval
    /// (`--data-races` as oclgrind-kernel spells it).
    #[arg(long, visible_alias = "data-races")]
    pub races: bool,
    /// Report reads of uninitialised local memory (`--uninitialized` as oclgrind-kernel
    /// spells it).
    #[arg(long, visible_alias = "uninitialized")]
    pub uninit: bool,
    /// Build options added to the workload's own, e.g. "-cl-fast-relaxed-math -DN=64" (a
    /// .sim file has none of its own). A .sim file's `# ARGS:` line, as Oclgrind's test
    /// kernels carry it, is read too: --data-races, --uninitialized and --build-options there
    /// apply as if given here.
    #[arg(long, value_name = "OPTIONS", allow_hyphen_values = true)]
    pub build_options: Option<String>,
    /// Define a macro for the kernel, as `-D NAME` or `-D NAME=VALUE` (repeatable), added to
    /// the workload's build options.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Stop a work-group after this many steps (runaway loops); exit code 2 when one does.
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// Print at most N findings (the exit status still counts them all), as oclgrind-kernel's
    /// `--max-errors`.
    #[arg(long, value_name = "N")]
    pub max_errors: Option<usize>,
    /// Run only the first and the last work-group of each launch, as oclgrind-kernel's
    /// `-q/--quick`: a fast look at a large launch; outputs are incomplete.
    #[arg(long, short)]
    pub quick: bool,
    /// Report a race in which every work-item stored the same value as an error, like any
    /// other race (by default it is a warning, and oclgrind-kernel does not report it
    /// unless given `--uniform-writes`).
    #[arg(long)]
    pub uniform_writes: bool,
    /// Accepted for oclgrind's `--check-api`: a workload makes no OpenCL API calls, so there
    /// is nothing to check (`clmap exec --check-api` reports a program's failing calls).
    #[arg(long, hide = true)]
    pub check_api: bool,
    /// Debug the kernel interactively on the simulator: the run stops before the kernel's
    /// first line and reads commands from standard input (`help` lists them; Oclgrind's, as
    /// its `-i/--interactive` takes them): step through the first work-item's lines (or
    /// another's: `workitem X Y Z`), set breakpoints, print variables (`print s.a p->x
    /// a[3]`) and memory. Its work-group runs with it, in lock-step; groups run one after
    /// another. At the end of the input the run goes on to its end.
    #[arg(long, short = 'i')]
    pub interactive: bool,
    /// oclgrind-kernel options that clmap has no use for (`--disable-pch`, `--dump-spir`,
    /// `--inst-counts`, `--log FILE`, `--pch-dir DIR`, `--plugins LIST`): accepted, named
    /// and ignored, so scripts written for it keep working.
    #[command(flatten)]
    pub oclgrind_ignored: OclgrindIgnored,
    /// Print every output buffer, in Oclgrind's `Argument 'x': N bytes` layout (`-g` or
    /// `--global-mem` as oclgrind-kernel spells it).
    #[arg(long, short = 'g', visible_alias = "global-mem")]
    pub dump: bool,
    /// Write every output buffer to DIR as NAME.bin (raw little-endian) and NAME.csv.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Compare every output with DIR/NAME.bin (raw little-endian bytes, as `--out` and
    /// `clmap exec --capture` write them): exact for integers, the buffer's tolerance for
    /// floats. Exit code 2 when an output differs.
    #[arg(long, value_name = "DIR")]
    pub expect: Option<PathBuf>,
    /// Print dumps and errors exactly as oclgrind-kernel does, so its scripts keep working;
    /// Oclgrind's environment variables apply too (OCLGRIND_DATA_RACES=1,
    /// OCLGRIND_UNINITIALIZED=1, OCLGRIND_BUILD_OPTIONS, OCLGRIND_MAX_ERRORS (default 1000),
    /// OCLGRIND_NUM_THREADS, OCLGRIND_QUICK=1, OCLGRIND_UNIFORM_WRITES=1), options given here
    /// winning. Called through a link named `oclgrind-kernel`, clmap runs as `clmap run
    /// --oclgrind-output` with that command line.
    #[arg(long)]
    pub oclgrind_output: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Show how far the simulator has got on standard error even when it is not a terminal
    /// (on a terminal a long run shows it anyway, unless --json or --oclgrind-output is given).
    #[arg(long)]
    pub progress: bool,
    /// Instead of running, write the workload as an Oclgrind .sim file (inputs included), so
    /// oclgrind-kernel can run exactly the same launch; prints the build options it needs.
    #[arg(long, value_name = "FILE")]
    pub export_sim: Option<PathBuf>,
}

/// oclgrind-kernel's options that change nothing clmap does.
#[derive(clap::Args, Debug, Default)]
pub struct OclgrindIgnored {
    #[arg(long, hide = true)]
    disable_pch: bool,
    #[arg(long, hide = true)]
    dump_spir: bool,
    #[arg(long, hide = true)]
    inst_counts: bool,
    #[arg(long, hide = true, value_name = "FILE")]
    log: Option<String>,
    #[arg(long, hide = true, value_name = "DIR")]
    pch_dir: Option<String>,
    #[arg(long, hide = true, value_name = "LIST")]
    plugins: Option<String>,
}

impl OclgrindIgnored {
    /// The options given, as they were spelled.
    fn given(&self) -> Vec<&'static str> {
        let flags = [
            (self.disable_pch, "--disable-pch"),
            (self.dump_spir, "--dump-spir"),
            (self.inst_counts, "--inst-counts"),
            (self.log.is_some(), "--log"),
            (self.pch_dir.is_some(), "--pch-dir"),
            (self.plugins.is_some(), "--plugins"),
        ];
        flags.into_iter().filter(|(on, _)| *on).map(|(_, name)| name).collect()
    }
}

pub fn run(mut args: Args) -> Result<Status, CliError> {
    let build_options_given = args.build_options.is_some();
    apply_sim_args(&mut args)?;
    if args.oclgrind_output {
        apply_oclgrind_environment(&mut args, build_options_given, |name| {
            std::env::var(name).ok()
        })?;
    }
    if !args.defines.is_empty() {
        let defines: Vec<String> = args.defines.iter().map(|d| format!("-D{d}")).collect();
        let mine = args.build_options.take().unwrap_or_default();
        args.build_options = Some(format!("{mine} {}", defines.join(" ")).trim().to_string());
    }
    let ignored = args.oclgrind_ignored.given();
    if !ignored.is_empty() && !args.json {
        eprintln!(
            "note: oclgrind-kernel options clmap does not use were ignored: {}",
            ignored.join(" ")
        );
    }
    let prepared =
        workload_args::prepare_with_build_options(&args.workload, args.build_options.clone())?;
    let workload = prepared.workload();
    if let Some(path) = &args.export_sim {
        let export = workload.to_sim(0).map_err(|e| CliError::BadInput(e.to_string()))?;
        std::fs::write(path, &export.text)
            .map_err(|e| CliError::BadInput(format!("cannot write {}: {e}", path.display())))?;
        println!(
            "wrote {}; build options for oclgrind-kernel: {}",
            path.display(),
            export.build_options
        );
        return Ok(Status::Success);
    }
    let mut sim = workload_args::sim_options(args.threads)?;
    sim.check_races = args.races;
    sim.check_uninitialised = args.uninit;
    sim.quick = args.quick;
    // Oclgrind prints a block for every work-item that runs into a finding.
    sim.report_every_work_item = args.oclgrind_output;
    if let Some(steps) = args.max_steps {
        sim.max_steps = steps;
    }
    let mut debugger = None;
    if args.interactive {
        if args.device != "sim" {
            return Err(CliError::BadInput(format!(
                "--interactive debugs on the simulator; it cannot follow a kernel on device `{}`",
                args.device
            )));
        }
        if args.json {
            return Err(CliError::BadInput(
                "--interactive talks on standard output, which --json needs for itself".to_string(),
            ));
        }
        use std::io::IsTerminal;
        let terminal = std::io::stdin().is_terminal();
        debugger = Some(clmap_sim::debugger::DebugHook::new(
            prepared.sources().clone(),
            Box::new(std::io::BufReader::new(std::io::stdin())),
            Box::new(std::io::stdout()),
            clmap_sim::debugger::prompt(terminal, args.oclgrind_output),
        ));
        sim.debugger = debugger.clone();
    }
    let target = Target::select(&args.device, sim).map_err(run_report::exec_error)?;
    let started = Instant::now();
    let display = matches!(target, Target::Simulator(_)).then(|| {
        let quiet = args.json || args.oclgrind_output || args.interactive;
        crate::progress::ProgressLine::start(prepared.launch_count(), args.progress, quiet)
    });
    let outcome = run_on(&target, &prepared, 0).map_err(run_report::exec_error);
    drop(display);
    let mut outcome = outcome?;
    let seconds = started.elapsed().as_secs_f64();
    if args.uniform_writes {
        for r in &mut outcome.reports {
            if r.report.kind == clmap_sim::ReportKind::SameValueRace {
                r.report.kind = clmap_sim::ReportKind::DataRace;
            }
        }
    }
    // Every finding counts for the exit status; at most `--max-errors` are printed.
    let faulty = outcome.reports.iter().any(|r| r.report.kind.is_error());
    // Under --oclgrind-output, how many findings were printed before the rest were left out.
    let mut suppressed_after = None;
    if let Some(max) = args.max_errors {
        if args.oclgrind_output {
            // Oclgrind counts what it prints, and it prints no same-value races.
            let mut printed = 0;
            outcome.reports.retain(|r| {
                let counts = r.report.kind != clmap_sim::ReportKind::SameValueRace;
                let keep = !counts || printed < max;
                printed += usize::from(counts && keep);
                if !keep {
                    suppressed_after = Some(max);
                }
                keep
            });
        } else {
            outcome.reports.truncate(max);
        }
    }

    let dumped = args.dump || args.oclgrind_output;
    if args.oclgrind_output {
        eprint!("{}", run_report::oclgrind_errors(prepared.sources(), &outcome.reports));
        if let Some(max) = suppressed_after {
            // As oclgrind-kernel says it when a finding beyond --max-errors comes.
            eprint!("\nOclgrind: {max} errors generated - suppressing further errors\n\n");
        }
        for text in &outcome.printf {
            print!("{text}");
        }
        let dump = workload.format_oclgrind_output(&outcome.buffers);
        if debugger.as_ref().is_some_and(|d| d.printed_capitals()) {
            print!("{}", capital_hex_digits(&dump));
        } else {
            print!("{dump}");
        }
    } else if args.json {
        let out = json!({
            "workload": args.workload.display().to_string(),
            "target": target.name(),
            "seconds": seconds,
            "launches": outcome.launches,
            "kernel_ns": outcome.kernel_ns,
            "reports": outcome.reports.iter().map(run_report::report_json).collect::<Vec<_>>(),
            "printf": outcome.printf,
            "outputs": workload.outputs,
        });
        println!("{out:#}");
    } else {
        for text in &outcome.printf {
            print!("{text}");
        }
        let numbered = prepared.launch_count() > 1;
        eprint!("{}", run_report::render_reports(prepared.sources(), &outcome.reports, numbered));
        println!(
            "{}",
            run_report::summary(&args.workload, workload, &target.name(), seconds, &outcome)
        );
        if dumped {
            print!("{}", workload.format_oclgrind_output(&outcome.buffers));
        }
    }
    if let Some(dir) = &args.out {
        let written =
            clmap_workload::write_output_files(dir, workload, &outcome.buffers).map_err(|e| {
                CliError::BadInput(format!("cannot write outputs to {}: {e}", dir.display()))
            })?;
        if !args.json && !args.oclgrind_output {
            println!("wrote {} files to {}", written.len(), dir.display());
        }
    }
    if let Some(dir) = &args.expect {
        if !outputs_as_expected(dir, workload, &outcome.buffers, args.json)? {
            return Ok(Status::KernelFault);
        }
    }
    // oclgrind-kernel reports findings on standard error and still exits 0; scripts written for
    // it rely on that.
    // Warnings (a race in which every work-item stored the same value) do not fail a run.
    Ok(if !faulty || args.oclgrind_output { Status::Success } else { Status::KernelFault })
}

/// A dump as oclgrind-kernel prints it once its output stream writes capitals (after its
/// debugger printed bytes in hexadecimal): each value's digits and letters in capitals, the
/// `0x` before them as it is.
fn capital_hex_digits(dump: &str) -> String {
    let mut out = String::with_capacity(dump.len());
    for line in dump.split_inclusive('\n') {
        match line.split_once(" = ") {
            Some((name, value)) if line.starts_with("  ") => {
                let value = value.to_uppercase();
                let value = value.strip_prefix("0X").map_or(value.clone(), |v| format!("0x{v}"));
                out.push_str(name);
                out.push_str(" = ");
                out.push_str(&value);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// Compares the outputs of a run with the files in `dir`; says which differ.
fn outputs_as_expected(
    dir: &std::path::Path,
    workload: &clmap_workload::Workload,
    actual: &clmap_workload::BufferSet,
    quiet: bool,
) -> Result<bool, CliError> {
    let mut expected = actual.clone();
    for data in &mut expected.buffers {
        if !workload.outputs.contains(&data.name) {
            continue;
        }
        let path = dir.join(format!("{}.bin", data.name));
        data.bytes = std::fs::read(&path).map_err(|e| {
            CliError::BadInput(format!("--expect: cannot read {}: {e}", path.display()))
        })?;
    }
    let compared = workload.compare_outputs(&expected, actual);
    let mut agree = true;
    for c in &compared {
        let line = match &c.result {
            Ok(r) if r.passed() => format!("{}: as expected ({} values)", c.name, r.compared),
            Ok(r) => {
                agree = false;
                let first = r
                    .first_mismatches
                    .first()
                    .map(|m| format!("; [{}] expected {} got {}", m.index, m.expected, m.actual))
                    .unwrap_or_default();
                format!(
                    "{}: {} of {} values differ from {}{first}",
                    c.name,
                    r.mismatches,
                    r.compared,
                    dir.display()
                )
            }
            Err(e) => {
                agree = false;
                format!("{}: cannot compare with {}: {e}", c.name, dir.display())
            }
        };
        if !quiet || !agree {
            eprintln!("{line}");
        }
    }
    Ok(agree)
}

/// The options of a `.sim` file's `# ARGS:` line (Oclgrind's test kernels carry one), applied
/// to `args`: flags given on the command line stay; options clmap has no use for are named
/// once and ignored.
fn apply_sim_args(args: &mut Args) -> Result<(), CliError> {
    if args.workload.extension().is_none_or(|e| e != "sim") {
        return Ok(());
    }
    let Ok(bytes) = std::fs::read(&args.workload) else { return Ok(()) };
    let text = clmap_lang::decode_source(bytes);
    let Some(line) = text.lines().find_map(|l| l.trim_start().strip_prefix("# ARGS:")) else {
        return Ok(());
    };
    let words = clmap_lang::preprocess::split_words(line).map_err(|e| {
        CliError::BadInput(format!("{}: the `# ARGS:` line: {e}", args.workload.display()))
    })?;
    let mut words = words.into_iter();
    let mut ignored = Vec::new();
    while let Some(word) = words.next() {
        let mut number = |what: &str| -> Result<usize, CliError> {
            let value = words.next().unwrap_or_default();
            value.parse().map_err(|_| {
                CliError::BadInput(format!(
                    "{}: the `# ARGS:` line: {what} takes a number, not `{value}`",
                    args.workload.display()
                ))
            })
        };
        match word.as_str() {
            "--data-races" => args.races = true,
            "--uninitialized" => args.uninit = true,
            "-q" | "--quick" => args.quick = true,
            "--uniform-writes" => args.uniform_writes = true,
            "-i" | "--interactive" => args.interactive = true,
            "-g" | "--global-mem" => args.dump = true,
            // A launch makes no API calls; there is nothing for it to check.
            "--check-api" => {}
            "--num-threads" => {
                let n = number("--num-threads")?;
                if args.threads == 0 {
                    args.threads = n;
                }
            }
            "--max-errors" => {
                let n = number("--max-errors")?;
                args.max_errors.get_or_insert(n);
            }
            // Options with a value clmap has no use for: the value goes with them.
            "--log" | "--pch-dir" | "--plugins" => {
                let value = words.next().unwrap_or_default();
                ignored.push(format!("{word} {value}"));
            }
            "--build-options" => {
                let extra = words.next().unwrap_or_default();
                args.build_options = Some(match args.build_options.take() {
                    // Given on the command line too, as Oclgrind's runner passes the line.
                    Some(mine) if mine == extra => mine,
                    Some(mine) => format!("{extra} {mine}"),
                    None => extra,
                });
            }
            other => ignored.push(other.to_string()),
        }
    }
    if !ignored.is_empty() && !args.json {
        eprintln!(
            "note: {}: `# ARGS:` options clmap does not use were ignored: {}",
            args.workload.display(),
            ignored.join(" ")
        );
    }
    Ok(())
}

/// oclgrind-kernel's limit on the errors it prints when OCLGRIND_MAX_ERRORS does not set one.
const OCLGRIND_DEFAULT_MAX_ERRORS: usize = 1000;

/// Oclgrind's environment variables (read through `var`), applied to `args` as
/// oclgrind-kernel applies them: a switch is on when its variable is `1`; a number must be
/// a whole number (not 0 for OCLGRIND_NUM_THREADS). Options given on the command line or the
/// `# ARGS:` line win, as oclgrind-kernel's own options set the same variables; in
/// particular `--build-options` replaces OCLGRIND_BUILD_OPTIONS (`build_options_given`:
/// whether the command line gave them). OCLGRIND_CHECK_API concerns programs that call the
/// OpenCL API (`clmap exec --check-api`); oclgrind-kernel makes no such calls and neither
/// does this.
fn apply_oclgrind_environment(
    args: &mut Args,
    build_options_given: bool,
    var: impl Fn(&str) -> Option<String>,
) -> Result<(), CliError> {
    let switch = |name: &str| var(name).is_some_and(|v| v == "1");
    let number = |name: &str, zero_allowed: bool| -> Result<Option<usize>, CliError> {
        let Some(text) = var(name) else { return Ok(None) };
        match text.parse::<usize>() {
            Ok(n) if n > 0 || zero_allowed => Ok(Some(n)),
            _ => Err(CliError::BadInput(format!(
                "{name}={text}: expected a whole number{}",
                if zero_allowed { "" } else { " above 0" }
            ))),
        }
    };
    args.races |= switch("OCLGRIND_DATA_RACES");
    args.uninit |= switch("OCLGRIND_UNINITIALIZED");
    args.quick |= switch("OCLGRIND_QUICK");
    args.uniform_writes |= switch("OCLGRIND_UNIFORM_WRITES");
    if let Some(n) = number("OCLGRIND_NUM_THREADS", false)? {
        if args.threads == 0 {
            args.threads = n;
        }
    }
    let max_errors = number("OCLGRIND_MAX_ERRORS", true)?;
    args.max_errors.get_or_insert(max_errors.unwrap_or(OCLGRIND_DEFAULT_MAX_ERRORS));
    if !build_options_given {
        if let Some(extra) = var("OCLGRIND_BUILD_OPTIONS").filter(|o| !o.trim().is_empty()) {
            args.build_options = Some(match args.build_options.take() {
                Some(mine) => format!("{mine} {extra}"),
                None => extra,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        run: Args,
    }

    fn args(line: &str) -> Args {
        Command::try_parse_from(std::iter::once("run").chain(line.split_whitespace()))
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .run
    }

    fn environment<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn oclgrind_switches_are_on_when_their_variable_is_1() {
        let mut a = args("--oclgrind-output k.sim");
        let vars = [
            ("OCLGRIND_DATA_RACES", "1"),
            ("OCLGRIND_UNINITIALIZED", "1"),
            ("OCLGRIND_QUICK", "0"),
            ("OCLGRIND_UNIFORM_WRITES", "yes"),
            ("OCLGRIND_NUM_THREADS", "3"),
        ];
        apply_oclgrind_environment(&mut a, false, environment(&vars)).expect("valid");
        assert!(a.races && a.uninit && !a.quick && !a.uniform_writes);
        assert_eq!((a.threads, a.max_errors), (3, Some(OCLGRIND_DEFAULT_MAX_ERRORS)));
        let mut a = args("--oclgrind-output --threads 2 --max-errors 5 k.sim");
        let vars = [
            ("OCLGRIND_QUICK", "1"),
            ("OCLGRIND_UNIFORM_WRITES", "1"),
            ("OCLGRIND_NUM_THREADS", "3"),
            ("OCLGRIND_MAX_ERRORS", "7"),
        ];
        apply_oclgrind_environment(&mut a, false, environment(&vars)).expect("valid");
        assert!(a.quick && a.uniform_writes && !a.races);
        assert_eq!((a.threads, a.max_errors), (2, Some(5)));
    }

    #[test]
    fn oclgrind_numbers_are_checked() {
        for (name, value) in [
            ("OCLGRIND_NUM_THREADS", "0"),
            ("OCLGRIND_NUM_THREADS", "two"),
            ("OCLGRIND_MAX_ERRORS", "-1"),
        ] {
            let mut a = args("--oclgrind-output k.sim");
            let error = apply_oclgrind_environment(&mut a, false, environment(&[(name, value)]))
                .expect_err(value);
            assert!(error.to_string().starts_with(&format!("{name}={value}")), "{error}");
        }
        let mut a = args("--oclgrind-output k.sim");
        apply_oclgrind_environment(&mut a, false, environment(&[("OCLGRIND_MAX_ERRORS", "0")]))
            .expect("no errors printed at all is a limit");
        assert_eq!(a.max_errors, Some(0));
    }

    #[test]
    fn build_options_on_the_command_line_replace_oclgrinds() {
        let vars = [("OCLGRIND_BUILD_OPTIONS", "-cl-opt-disable")];
        let mut a = args("--oclgrind-output k.sim");
        apply_oclgrind_environment(&mut a, false, environment(&vars)).expect("valid");
        assert_eq!(a.build_options.as_deref(), Some("-cl-opt-disable"));
        let mut a = args("--oclgrind-output --build-options -DN=2 k.sim");
        apply_oclgrind_environment(&mut a, true, environment(&vars)).expect("valid");
        assert_eq!(a.build_options.as_deref(), Some("-DN=2"));
    }

    #[test]
    fn an_option_may_be_given_twice() {
        let a = args("--oclgrind-output --data-races --data-races --build-options -DA --build-options -DB k.sim");
        assert!(a.races);
        assert_eq!(a.build_options.as_deref(), Some("-DB"));
    }
}
