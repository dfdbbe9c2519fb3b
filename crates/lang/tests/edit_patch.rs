//! Edit sets on real IR spans, and unified diffs that `patch` and `git apply` accept.

use clmap_lang::edit::{unified_diff, EditSet};
use clmap_lang::ir::{Module, Statement};
use clmap_lang::preprocess::{self, BuildOptions, FsLoader};
use clmap_lang::span::{FileId, SourceMap, Span};
use clmap_lang::{parse, sema};
use std::path::Path;
use std::process::Command;

const KERNEL: &str = "\
// Staging through local memory.
#define TILE 16

__kernel void stage(__global const float *in, __global float *out)
{
    __local float tile[TILE];   /* one element per work-item */
    int lid = get_local_id(0);
    tile[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[(lid + 1) % TILE] * 2.0f;
}
";

fn compile(text: &str) -> (SourceMap, FileId, Module) {
    let mut sources = SourceMap::new();
    let main = sources.add_text("stage.cl", text);
    let pre = preprocess::preprocess(&mut sources, main, &BuildOptions::default(), &FsLoader);
    assert!(!pre.diagnostics.has_errors(), "{}", pre.diagnostics.render(&sources));
    let (unit, diagnostics) = parse::parse(&pre.tokens);
    assert!(!diagnostics.has_errors(), "{}", diagnostics.render(&sources));
    let (module, diagnostics) = sema::check(&unit);
    let module = module.unwrap_or_else(|| panic!("{}", diagnostics.render(&sources)));
    (sources, main, module)
}

/// The spans of the kernel's body statements that satisfy `wanted`.
fn statement_spans(module: &Module, wanted: impl Fn(&Statement) -> bool) -> Vec<Span> {
    let (_, kernel) = module.kernels().next().expect("a kernel");
    kernel.body.iter().filter(|(s, _)| wanted(s)).map(|(_, span)| span).collect()
}

#[test]
fn deleting_a_barrier_keeps_every_other_byte() {
    let (sources, main, module) = compile(KERNEL);
    let barriers = statement_spans(&module, |s| matches!(s, Statement::Barrier(_)));
    assert_eq!(barriers.len(), 1);
    let mut edits = EditSet::new(main);
    edits.delete_statement(&sources, barriers[0]).unwrap();
    let edited = edits.apply(KERNEL);
    assert_eq!(edited, KERNEL.replace("    barrier(CLK_LOCAL_MEM_FENCE);\n", ""));
    // The edited kernel still compiles, macro and comments included.
    compile(&edited);
}

#[test]
fn commenting_out_uses_line_comments() {
    let (sources, main, module) = compile(KERNEL);
    let barrier = statement_spans(&module, |s| matches!(s, Statement::Barrier(_)))[0];
    let mut edits = EditSet::new(main);
    edits.comment_out(&sources, barrier).unwrap();
    let edited = edits.apply(KERNEL);
    assert!(edited.contains("\n    // barrier(CLK_LOCAL_MEM_FENCE);\n"), "{edited}");
    // Commenting the same statement twice overlaps the first edit.
    assert!(edits.comment_out(&sources, barrier).is_err());
}

/// Applies `diff` to `old` with `patch -p0` (or `git apply -p0` when `git` is asked for) in a
/// scratch directory; `None` when the tool is not installed.
fn apply_with(tool: &str, old: &str, diff: &str, scratch: &Path) -> Option<String> {
    std::fs::create_dir_all(scratch).ok()?;
    let file = scratch.join("kernel.cl");
    std::fs::write(&file, old).ok()?;
    let patch_file = scratch.join("change.diff");
    std::fs::write(&patch_file, diff).ok()?;
    let status = if tool == "git" {
        Command::new("git")
            .args(["apply", "-p0", "--unidiff-zero", "change.diff"])
            .current_dir(scratch)
            .status()
    } else {
        Command::new("patch").args(["-s", "-p0", "-i", "change.diff"]).current_dir(scratch).status()
    };
    let status = status.ok()?;
    assert!(status.success(), "{tool} rejected the diff:\n{diff}");
    std::fs::read_to_string(&file).ok()
}

/// A small deterministic generator for edit scripts.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    }
}

#[test]
fn diffs_of_random_line_edits_apply_with_patch_and_git() {
    let scratch = clmap_testkit::Scratch::new("edit-patch");
    let old_lines: Vec<&str> = KERNEL.lines().collect();
    let mut rng = SplitMix(11);
    let mut applied = 0;
    for round in 0..40 {
        let mut lines: Vec<String> = old_lines.iter().map(|l| l.to_string()).collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(lines.len() + 1);
            match rng.below(3) {
                0 if at < lines.len() => {
                    lines.remove(at);
                }
                1 => lines.insert(at, format!("    /* inserted {round} */")),
                _ if at < lines.len() => lines[at] = format!("{} // changed", lines[at]),
                _ => lines.push("// appended".to_string()),
            }
        }
        let mut new = lines.join("\n");
        // Some rounds also drop the final line break.
        if rng.below(4) != 0 {
            new.push('\n');
        }
        let context = rng.below(4);
        let diff = unified_diff(KERNEL, &new, "kernel.cl", "kernel.cl", context);
        for tool in ["patch", "git"] {
            // git needs context to place hunks in general; patch handles zero context.
            if tool == "git" && context == 0 {
                continue;
            }
            let dir = scratch.join(format!("{round}-{tool}"));
            if let Some(result) = apply_with(tool, KERNEL, &diff, &dir) {
                assert_eq!(result, new, "{tool} produced another text from:\n{diff}");
                applied += 1;
            }
        }
    }
    if applied == 0 {
        eprintln!("neither patch nor git is installed: diffs not applied");
    }
}
