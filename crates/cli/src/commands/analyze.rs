//! `clmap analyze`: architecture-independent metrics of a workload, from simulation.

use crate::exit::{CliError, Status};
use crate::workload_args;
use clmap_metrics::{analyze_workload, KernelMetrics, Mode};
use clmap_plot::{line_chart_png, line_chart_svg, read_font, ChartText, Series};
use clmap_sim::SimError;
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Measure a kernel's compute, parallelism, memory and control behaviour on the simulator.
///
/// Prints the AIWC metrics (Johnston and Milthorpe) with relative local memory usage and
/// parallel spatial locality (Chilukuri et al., IWOCL 2020), grouped as compute, parallelism,
/// memory and control. Every metric is defined in docs/metrics.md.
///
/// Several workloads may be given; `--plot DIR` then overlays their curves of memory address
/// entropy and parallel spatial locality over dropped address bits in one chart each.
///
/// `--compat aiwc` reproduces the numbers of the published AIWC plugin, defects included
/// (swapped unique read/write labels, inverted branch bits, no barrier count, thread-dependent
/// PSL averaging replayed as one thread, local memory keyed over the first buffer), to compare
/// with published tables.
///
/// Example: clmap analyze mm_simple.toml mm_coalesced_ab.toml --plot plots/
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Workloads (.toml, or Oclgrind .sim files).
    #[arg(required = true, value_name = "WORKLOAD")]
    pub inputs: Vec<PathBuf>,
    /// Print the metrics as JSON.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the metrics as CSV rows: workload,launch,kernel,category,metric,value.
    #[arg(long)]
    pub csv: bool,
    /// Follow another tool's definitions: `aiwc` reproduces the published AIWC plugin.
    #[arg(long, value_enum, value_name = "TOOL")]
    pub compat: Option<Compat>,
    /// Write lmae.svg, psl.svg and their .png versions (curves over dropped address bits) into
    /// this directory. PNG text uses DejaVu Sans (Debian package fonts-dejavu-core).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Simulator threads (0: one per core). Results do not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Stop a work-group after this many steps (runaway loops); exit code 2 when one does.
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// Show how far the simulator has got on standard error even when it is not a terminal
    /// (on a terminal a long run shows it anyway, unless --json or --csv is given).
    #[arg(long)]
    pub progress: bool,
}

/// Tools whose metric definitions `--compat` can follow.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compat {
    Aiwc,
}

/// The metrics of one launch of one workload (or, from `clmap exec`, of every launch of one
/// kernel of a program).
pub struct Analysed {
    pub workload: String,
    pub launch: usize,
    pub launches: usize,
    pub metrics: KernelMetrics,
}

/// How analysed metrics are printed.
pub struct Presentation<'a> {
    pub json: bool,
    pub csv: bool,
    pub plot: Option<&'a Path>,
}

impl Analysed {
    /// Name in plots: the workload file's stem when several workloads are compared, else
    /// the kernel; the launch number when the workload has several.
    fn label(&self, several_workloads: bool) -> String {
        let mut label = if several_workloads {
            let stem = self.workload.rsplit_once('.').map_or(self.workload.as_str(), |(s, _)| s);
            stem.to_string()
        } else {
            self.metrics.kernel.clone()
        };
        if self.launches > 1 {
            label = format!("{label} #{} {}", self.launch + 1, self.metrics.kernel);
        }
        label
    }
}

pub fn run(args: Args) -> Result<Status, CliError> {
    let mode = match args.compat {
        Some(Compat::Aiwc) => Mode::AiwcCompat,
        None => Mode::Clmap,
    };
    let mut options = workload_args::sim_options(args.threads)?;
    if let Some(steps) = args.max_steps {
        options.max_steps = steps;
    }
    let mut analysed = Vec::new();
    for input in &args.inputs {
        let prepared = workload_args::prepare(input)?;
        let display = crate::progress::ProgressLine::start(
            prepared.launch_count(),
            args.progress,
            args.json || args.csv,
        );
        let launches = analyze_workload(prepared.module(), prepared.workload(), &options, mode)
            .map_err(|e| sim_error(input, e));
        drop(display);
        let launches = launches?;
        let count = launches.len();
        let name = input
            .file_name()
            .map_or_else(|| input.display().to_string(), |n| n.to_string_lossy().into_owned());
        for (launch, metrics) in launches.into_iter().enumerate() {
            analysed.push(Analysed { workload: name.clone(), launch, launches: count, metrics });
        }
    }
    present(
        &analysed,
        &Presentation { json: args.json, csv: args.csv, plot: args.plot.as_deref() },
    )?;
    Ok(Status::Success)
}

/// Prints metrics as `clmap analyze` does: text, JSON or CSV, and plots when asked.
pub fn present(analysed: &[Analysed], how: &Presentation<'_>) -> Result<(), CliError> {
    if let Some(dir) = how.plot {
        write_plots(dir, analysed)?;
    }
    if how.json {
        let out: Vec<_> = analysed
            .iter()
            .map(|a| json!({ "workload": a.workload, "launch": a.launch, "metrics": a.metrics }))
            .collect();
        println!("{:#}", serde_json::Value::Array(out));
    } else if how.csv {
        print!("{}", csv(analysed));
    } else {
        for a in analysed {
            print!("{}", text_report(a));
        }
        if let Some(dir) = how.plot {
            println!("plots written to {}", dir.display());
        }
    }
    Ok(())
}

/// A simulation failure, named after its workload: the kernel's fault (a runaway loop) or the
/// input's, with the option that lifts a limit it hit.
fn sim_error(input: &Path, error: SimError) -> CliError {
    match crate::run_report::sim_error(error) {
        CliError::KernelFault(m) => CliError::KernelFault(format!("{}: {m}", input.display())),
        CliError::BadInput(m) => CliError::BadInput(format!("{}: {m}", input.display())),
        CliError::Environment(m) => CliError::Environment(format!("{}: {m}", input.display())),
    }
}

/// Every metric as (category, name, value), in report order.
fn rows(m: &KernelMetrics) -> Vec<(&'static str, String, String)> {
    let mut rows = Vec::new();
    let mut add = |category: &'static str, name: &str, value: String| {
        rows.push((category, name.to_string(), value));
    };
    let c = &m.compute;
    add("compute", "opcode diversity (90 %)", c.opcode_diversity.to_string());
    add("compute", "total instructions", c.total_instructions.to_string());
    add("compute", "freedom to reorder", format!("{:.4}", c.freedom_to_reorder));
    add("compute", "resource pressure", format!("{:.4}", c.resource_pressure));
    let p = &m.parallelism;
    add("parallelism", "work-items", p.work_items.to_string());
    add("parallelism", "work-groups", p.work_groups.to_string());
    add("parallelism", "work-items per group", p.work_items_per_group.to_string());
    add("parallelism", "barriers hit", p.barriers_hit.to_string());
    let spread = |s: &clmap_metrics::Spread| format!("{}/{}/{}", s.min, s.median, s.max);
    add(
        "parallelism",
        "instructions to barrier (min/median/max)",
        spread(&p.instructions_to_barrier),
    );
    add(
        "parallelism",
        "instructions per work-item (min/median/max)",
        spread(&p.instructions_per_work_item),
    );
    add(
        "parallelism",
        "SIMD width (max/mean/sd)",
        p.simd_width.map_or_else(
            || "not measured".to_string(),
            |w| format!("{}/{:.4}/{:.4}", w.max, w.mean, w.sd),
        ),
    );
    add("parallelism", "granularity", format!("{:.6e}", p.granularity));
    add("parallelism", "barriers per instruction", format!("{:.6e}", p.barriers_per_instruction));
    let mem = &m.memory;
    add("memory", "accesses", mem.accesses.to_string());
    add("memory", "total footprint", mem.total_footprint.to_string());
    add("memory", "90 % footprint", mem.footprint_90.to_string());
    add("memory", "unique reads", mem.unique_reads.to_string());
    add("memory", "unique writes", mem.unique_writes.to_string());
    add("memory", "total reads", mem.total_reads.to_string());
    add("memory", "total writes", mem.total_writes.to_string());
    add("memory", "rereads", format!("{:.4}", mem.rereads));
    add("memory", "rewrites", format!("{:.4}", mem.rewrites));
    add("memory", "global memory address entropy", format!("{:.4}", mem.global_address_entropy));
    for (i, e) in mem.local_address_entropy.iter().enumerate() {
        add("memory", &format!("LMAE, {} bits skipped", i + 1), format!("{e:.4}"));
    }
    add("memory", "relative local memory usage", format!("{:.4}", mem.relative_local_usage));
    add("memory", "relative constant memory usage", format!("{:.4}", mem.relative_constant_usage));
    for (n, v) in mem.parallel_spatial_locality.iter().enumerate() {
        add("memory", &format!("parallel spatial locality, {n} bits dropped"), format!("{v:.4}"));
    }
    let b = &m.control;
    add("control", "distinct branches", b.distinct_branches.to_string());
    add("control", "90 % branches", b.branches_90.to_string());
    add("control", "branch executions", b.branch_executions.to_string());
    add("control", "Yokota branch entropy", format!("{:.4}", b.yokota_branch_entropy));
    add(
        "control",
        "average linear branch entropy",
        format!("{:.4}", b.average_linear_branch_entropy),
    );
    rows
}

fn text_report(a: &Analysed) -> String {
    let mut out = String::new();
    let definitions = match a.metrics.mode {
        Mode::Clmap => "clmap definitions",
        Mode::AiwcCompat => "AIWC-compatible numbers",
    };
    let _ = writeln!(
        out,
        "{} — kernel {} (launch {} of {}), {definitions}",
        a.workload,
        a.metrics.kernel,
        a.launch + 1,
        a.launches
    );
    let mut category = "";
    for (cat, name, value) in rows(&a.metrics) {
        if cat != category {
            category = cat;
            let _ = writeln!(out, "\n  {}", capitalised(cat));
        }
        let _ = writeln!(out, "    {name:<46} {value:>16}");
    }
    let mix: Vec<String> =
        a.metrics.compute.instruction_mix.iter().map(|(c, n)| format!("{c} {n}")).collect();
    let _ = writeln!(out, "\n  instruction mix: {}\n", mix.join(", "));
    out
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |f| f.to_uppercase().chain(chars).collect())
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn csv(analysed: &[Analysed]) -> String {
    let mut out = String::from("workload,launch,kernel,category,metric,value\n");
    for a in analysed {
        for (cat, name, value) in rows(&a.metrics) {
            let _ = writeln!(
                out,
                "{},{},{},{cat},{},{}",
                csv_field(&a.workload),
                a.launch,
                csv_field(&a.metrics.kernel),
                csv_field(&name),
                csv_field(&value)
            );
        }
    }
    out
}

fn write_plots(dir: &Path, analysed: &[Analysed]) -> Result<(), CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::BadInput(format!("cannot create {}: {e}", dir.display())))?;
    let several =
        analysed.iter().map(|a| &a.workload).collect::<std::collections::BTreeSet<_>>().len() > 1;
    let curve = |a: &Analysed, values: Vec<f64>| Series {
        label: a.label(several),
        points: values.into_iter().enumerate().map(|(n, v)| (n as f64, v)).collect(),
    };
    let lmae: Vec<Series> = analysed
        .iter()
        .map(|a| {
            let m = &a.metrics.memory;
            let mut values = vec![m.global_address_entropy];
            values.extend(&m.local_address_entropy);
            curve(a, values)
        })
        .collect();
    let psl: Vec<Series> = analysed
        .iter()
        .map(|a| curve(a, a.metrics.memory.parallel_spatial_locality.clone()))
        .collect();
    let charts = [
        (
            "lmae",
            ChartText {
                title: "Memory address entropy",
                x_label: "low address bits skipped",
                y_label: "entropy (bits)",
            },
            lmae,
        ),
        (
            "psl",
            ChartText {
                title: "Parallel spatial locality",
                x_label: "low address bits dropped",
                y_label: "normalised PSL",
            },
            psl,
        ),
    ];
    let font = read_font();
    if let Err(e) = &font {
        eprintln!("warning: no PNG charts: {e} (the SVG charts are written)");
    }
    let write = |path: PathBuf, bytes: &[u8]| {
        std::fs::write(&path, bytes)
            .map_err(|e| CliError::BadInput(format!("cannot write {}: {e}", path.display())))
    };
    for (file, text, series) in charts {
        write(dir.join(format!("{file}.svg")), line_chart_svg(&text, &series).as_bytes())?;
        if let Ok(font) = &font {
            let png = line_chart_png(&text, &series, font)
                .map_err(|e| CliError::Environment(format!("{file}.png: {e}")))?;
            write(dir.join(format!("{file}.png")), &png)?;
        }
    }
    Ok(())
}
