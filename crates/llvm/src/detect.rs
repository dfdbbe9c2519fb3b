//! Finding the usable passes of the installed `opt`: list them, drop those that are not
//! transformations, and try each remaining one alone on the probe kernels.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{CompileError, LlvmError, Stage};
use crate::pipeline::{compile_pipeline, front_end, parallel_map, Bitcode, OptLevel};
use crate::pool::{ExcludedPass, PassLevel, PassPool, PoolPass};
use crate::probe_kernels::PROBE_KERNELS;
use crate::process::run_tool;
use crate::toolchain::Toolchain;

/// Bumped whenever probing or filtering changes, so that old caches are not trusted.
const PROBE_FORMAT: u32 = 2;

/// A probe that takes longer than this is a pass that hangs, whatever the configured limit.
const PROBE_TIMEOUT_CAP: Duration = Duration::from_secs(30);

/// Name fragments of passes that are not code transformations a search should try: printers,
/// verifiers and analyses-in-disguise report without changing code; instrumentation adds calls
/// to runtimes that do not exist on a GPU; no-op passes only waste sequence slots.
const NON_TRANSFORM_FRAGMENTS: [&str; 24] = [
    "print",
    "dot-",
    "view-",
    "verify",
    "verifier",
    "no-op",
    "invalidate",
    "debugify",
    "instrument",
    "profile",
    "pgo-",
    "gcov",
    "instrprof",
    "instrorderfile",
    "san",
    "memprof",
    "trigger-",
    "aa-eval",
    "lint",
    "require<",
    "cross-dso-cfi",
    "lowertypetests",
    "function-import",
    "extract-blocks",
];

/// Whole names of passes that run without error on the probes but are no use to a search for
/// faster GPU code, by why:
const NOT_FOR_GPU_KERNELS: [&str; 62] = [
    // They only count, name, annotate or strip metadata and debug information: the code is
    // the same afterwards.
    "instcount",
    "helloworld",
    "pa-eval",
    "legacy-divergence-analysis",
    "annotation-remarks",
    "annotation2metadata",
    "transform-warning",
    "instnamer",
    "name-anon-globals",
    "add-discriminators",
    "declare-to-assign",
    "redundant-dbg-inst-elim",
    "strip",
    "strip-dead-debug-info",
    "strip-debug-declare",
    "strip-nondebug",
    "strip-nonlinetable-debuginfo",
    "assume-builder",
    "assume-simplify",
    "recompute-globalsaa",
    "forceattrs",
    "cg-profile",
    "synthetic-counts-propagation",
    // They serve other languages and runtimes (Objective-C, coroutines, OpenMP, garbage
    // collection, guards of managed runtimes, CFI, sample profiles, C++ static destructors,
    // ifuncs, thread-local storage, host libm calls).
    "objc-arc",
    "objc-arc-apelim",
    "objc-arc-contract",
    "objc-arc-expand",
    "coro-early",
    "coro-cleanup",
    "coro-elide",
    "coro-split",
    "openmp-opt",
    "openmp-opt-postlink",
    "openmp-opt-cgscc",
    "rewrite-statepoints-for-gc",
    "strip-gc-relocates",
    "make-guards-explicit",
    "lower-guard-intrinsic",
    "lower-widenable-condition",
    "guard-widening",
    "loop-predication",
    "wholeprogramdevirt",
    "kcfi",
    "pseudo-probe",
    "pseudo-probe-update",
    "lower-global-dtors",
    "lower-ifunc",
    "rewrite-symbols",
    "rel-lookup-table-converter",
    "tlshoist",
    "inject-tli-mappings",
    "libcalls-shrinkwrap",
    "partially-inline-libcalls",
    "lowerinvoke",
    "lower-matrix-intrinsics",
    "inliner-ml-advisor-release",
    // They add checks that trap instead of optimising.
    "poison-checking",
    "bounds-checking",
    // It makes atomics plain loads and stores, which is only valid on one thread: kernels
    // would race, and validation on small inputs could miss it.
    "loweratomic",
    // They move loops or blocks into new functions, which the final always-inline does not
    // put back: calls the GPU code was never meant to have.
    "loop-extract",
    "hotcoldsplit",
    "iroutliner",
];

/// How to detect the pool.
#[derive(Clone, Debug, Default)]
pub struct PoolDetection {
    /// Directory of the cache file; `None`: `$XDG_CACHE_HOME/clmap` or `~/.cache/clmap`.
    pub cache_dir: Option<PathBuf>,
    /// Do not read or write a cache.
    pub no_cache: bool,
    /// Probing threads; 0: one per available core.
    pub jobs: usize,
    /// Only consider these candidates (tests use a handful to stay fast); `None`: every pass
    /// `opt --print-passes` lists.
    pub only: Option<Vec<String>>,
}

/// The usable passes of `tc`'s `opt`: detected on first use (tens of seconds), then read from a
/// cache file in `cache` (a directory; `None` for the default) keyed by opt's path and version.
pub fn detect_pass_pool(
    tc: &Toolchain,
    cache: Option<&Path>,
    jobs: usize,
) -> Result<PassPool, LlvmError> {
    detect_pass_pool_with(
        tc,
        &PoolDetection {
            cache_dir: cache.map(Path::to_path_buf),
            jobs,
            ..PoolDetection::default()
        },
    )
}

/// [`detect_pass_pool`] with every option.
pub fn detect_pass_pool_with(
    tc: &Toolchain,
    options: &PoolDetection,
) -> Result<PassPool, LlvmError> {
    let key = cache_key(tc, options);
    let cache_file = if options.no_cache {
        None
    } else {
        options.cache_dir.clone().or_else(default_cache_dir).map(|given| {
            // A path ending in .json is the cache file itself; anything else is a directory.
            if given.extension().is_some_and(|ext| ext == "json") {
                given
            } else {
                given.join(format!("passes-{key}.json"))
            }
        })
    };
    if let Some(pool) = cache_file.as_deref().and_then(|path| read_cache(path, &key)) {
        return Ok(pool);
    }

    let listing = list_passes(tc)?;
    let candidates: Vec<Candidate> = match &options.only {
        Some(only) => {
            listing.into_iter().filter(|c| only.iter().any(|name| name == &c.name)).collect()
        }
        None => listing.into_iter().filter(|c| is_transformation(&c.name)).collect(),
    };
    let pool = probe(tc, &candidates, options.jobs)?;

    if let Some(path) = &cache_file {
        // A cache that cannot be written only costs the next run the probing time.
        let _ = write_cache(path, &key, &format!("{} {}", tc.opt.display(), tc.version()), &pool);
    }
    Ok(pool)
}

/// The passes of `tc`'s `opt` that detection probes: every pass `opt --print-passes` lists,
/// analyses, printers, instrumentation and the passes of other languages and runtimes left
/// out, with the level the listing gives each. The pool is those that survive the probe.
pub fn transformation_candidates(tc: &Toolchain) -> Result<Vec<(String, PassLevel)>, LlvmError> {
    Ok(list_passes(tc)?
        .into_iter()
        .filter(|c| is_transformation(&c.name))
        .map(|c| (c.name, c.level))
        .collect())
}

/// A pass as `opt --print-passes` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub name: String,
    pub level: PassLevel,
}

fn list_passes(tc: &Toolchain) -> Result<Vec<Candidate>, LlvmError> {
    let mut command = Command::new(&tc.opt);
    command.arg("--print-passes");
    let output = run_tool(command, Stage::Setup, tc.timeout)
        .map_err(|e| LlvmError::PoolDetection(format!("opt --print-passes: {e}")))?;
    let candidates = parse_print_passes(&String::from_utf8_lossy(&output.stdout));
    if candidates.is_empty() {
        return Err(LlvmError::PoolDetection("opt --print-passes listed no passes".to_string()));
    }
    Ok(candidates)
}

/// Reads the sections of `opt --print-passes`. Analyses are skipped; passes listed "with
/// params" are kept under their bare name (most have defaults; the probe removes the rest).
pub(crate) fn parse_print_passes(text: &str) -> Vec<Candidate> {
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut level: Option<PassLevel> = None;
    for line in text.lines() {
        if !line.starts_with(' ') {
            level = section_level(line.trim());
            continue;
        }
        let Some(level) = level else { continue };
        let entry = line.trim();
        let name = entry.split('<').next().unwrap_or("").trim();
        // An entry whose name itself has a parameter (print<…>, invalidate<all>) cannot run
        // bare; an empty name is a malformed line.
        if name.is_empty() || is_parameterised_name(entry) {
            continue;
        }
        if !candidates.iter().any(|c| c.name == name) {
            candidates.push(Candidate { name: name.to_string(), level });
        }
    }
    candidates
}

/// Entries like `print<inline-advisor>` or `invalidate<all>` are whole names with a bracket,
/// not a pass with optional parameters.
fn is_parameterised_name(entry: &str) -> bool {
    matches!(entry.split('<').next(), Some("print" | "invalidate" | "require" | "dot" | "view"))
}

fn section_level(header: &str) -> Option<PassLevel> {
    let lower = header.to_ascii_lowercase();
    if lower.contains("analys") || !lower.ends_with(':') {
        return None;
    }
    if lower.starts_with("module passes") {
        Some(PassLevel::Module)
    } else if lower.starts_with("cgscc passes") {
        Some(PassLevel::Cgscc)
    } else if lower.starts_with("function passes") {
        Some(PassLevel::Function)
    } else if lower.starts_with("loopnest passes") || lower.starts_with("loop passes") {
        Some(PassLevel::Loop)
    } else {
        None
    }
}

fn is_transformation(name: &str) -> bool {
    !NON_TRANSFORM_FRAGMENTS.iter().any(|fragment| name.contains(fragment))
        && !NOT_FOR_GPU_KERNELS.contains(&name)
}

/// One probe kernel compiled by the front end, with what its -O0 PTX declares externally.
struct ProbeInput {
    name: &'static str,
    bitcode: Bitcode,
    externs_at_o0: usize,
}

fn probe(tc: &Toolchain, candidates: &[Candidate], jobs: usize) -> Result<PassPool, LlvmError> {
    let mut probe_tc = tc.clone();
    probe_tc.timeout = tc.timeout.min(PROBE_TIMEOUT_CAP);
    let mut inputs = Vec::with_capacity(PROBE_KERNELS.len());
    for kernel in &PROBE_KERNELS {
        let fail = |e: CompileError| {
            LlvmError::PoolDetection(format!("probe kernel {} does not compile: {e}", kernel.name))
        };
        let bitcode = front_end(&probe_tc, kernel.source, "", &[]).map_err(fail)?;
        let o0 = compile_pipeline(&probe_tc, &bitcode, OptLevel::O0.pipeline()).map_err(fail)?;
        inputs.push(ProbeInput {
            name: kernel.name,
            externs_at_o0: extern_count(&o0.as_str()),
            bitcode,
        });
    }

    let verdicts =
        parallel_map(candidates, jobs, |candidate| probe_candidate(&probe_tc, &inputs, candidate));
    let mut usable = Vec::new();
    let mut excluded = Vec::new();
    for (candidate, verdict) in candidates.iter().zip(verdicts) {
        match verdict {
            Ok(level) => usable.push(PoolPass { name: candidate.name.clone(), level }),
            Err(reason) => excluded.push(ExcludedPass { name: candidate.name.clone(), reason }),
        }
    }
    Ok(PassPool::from_passes(usable).with_excluded(excluded))
}

/// The level the candidate works at, or why it is not usable. A loop pass that fails inside
/// `loop(…)` is retried inside `loop-mssa(…)`: that is how passes needing MemorySSA show.
fn probe_candidate(
    tc: &Toolchain,
    inputs: &[ProbeInput],
    candidate: &Candidate,
) -> Result<PassLevel, String> {
    let first = try_level(tc, inputs, &candidate.name, candidate.level);
    match (first, candidate.level) {
        (Ok(()), level) => Ok(level),
        (Err(loop_reason), PassLevel::Loop) => {
            match try_level(tc, inputs, &candidate.name, PassLevel::LoopMssa) {
                Ok(()) => Ok(PassLevel::LoopMssa),
                Err(_) => Err(loop_reason),
            }
        }
        (Err(reason), _) => Err(reason),
    }
}

fn try_level(
    tc: &Toolchain,
    inputs: &[ProbeInput],
    name: &str,
    level: PassLevel,
) -> Result<(), String> {
    let pool = PassPool::from_passes(vec![PoolPass { name: name.to_string(), level }]);
    let pipeline = crate::sequence::PassSequence(vec![name.to_string()]).pipeline(&pool);
    for input in inputs {
        let ptx = compile_pipeline(tc, &input.bitcode, Some(&pipeline))
            .map_err(|e| format!("{} on {}: {e}", e.kind.as_str(), input.name))?;
        let text = ptx.as_str();
        if !text.contains(&format!(".entry {}", input.name)) {
            return Err(format!("removes kernel {}", input.name));
        }
        if extern_count(&text) > input.externs_at_o0 {
            return Err(format!(
                "adds calls to external functions in {} (instrumentation)",
                input.name
            ));
        }
    }
    Ok(())
}

/// External functions a PTX calls: a GPU has no runtime library to resolve them.
fn extern_count(ptx: &str) -> usize {
    ptx.matches(".extern .func").count()
}

fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|home| PathBuf::from(home).join(".cache"))
        })?;
    Some(base.join("clmap"))
}

/// Hash of everything the result depends on: which opt (path and full version text), the
/// target, the probe format and a candidate restriction.
fn cache_key(tc: &Toolchain, options: &PoolDetection) -> String {
    let mut hasher = Sha256::new();
    let opt_path = std::fs::canonicalize(&tc.opt).unwrap_or_else(|_| tc.opt.clone());
    hasher.update(opt_path.as_os_str().as_encoded_bytes());
    hasher.update([0]);
    hasher.update(tc.version().as_bytes());
    hasher.update([0]);
    hasher.update(tc.libclc.as_os_str().as_encoded_bytes());
    hasher.update([0]);
    hasher.update(tc.sm.as_bytes());
    hasher.update(PROBE_FORMAT.to_le_bytes());
    if let Some(only) = &options.only {
        for name in only {
            hasher.update([1]);
            hasher.update(name.as_bytes());
        }
    }
    hasher.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[derive(Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    /// The [`cache_key`] it was detected under: a file named explicitly is checked against it.
    key: String,
    /// Which opt, for a person reading the file.
    opt: String,
    pool: PassPool,
}

fn read_cache(path: &Path, key: &str) -> Option<PassPool> {
    let text = std::fs::read_to_string(path).ok()?;
    let file: CacheFile = serde_json::from_str(&text).ok()?;
    (file.format == PROBE_FORMAT && file.key == key && !file.pool.is_empty())
        .then(|| file.pool.reindexed())
}

fn write_cache(path: &Path, key: &str, opt: &str, pool: &PassPool) -> Result<(), LlvmError> {
    let io = |context: String| move |source| LlvmError::Io { context, source };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(format!("creating {}", dir.display())))?;
    }
    let text = serde_json::to_string_pretty(&CacheFile {
        format: PROBE_FORMAT,
        key: key.to_string(),
        opt: opt.to_string(),
        pool: pool.clone(),
    })
    .map_err(|e| LlvmError::PoolDetection(format!("serialising the cache: {e}")))?;
    // Write then rename, so a concurrent reader never sees half a file.
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&temporary, text).map_err(io(format!("writing {}", temporary.display())))?;
    std::fs::rename(&temporary, path).map_err(io(format!("renaming to {}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = "Module passes:
  always-inline
  print<inline-advisor>
  globaldce
  invalidate<all>
Module passes with params:
  ipsccp<no-func-spec;func-spec>
Module analyses:
  callgraph
CGSCC passes:
  function-attrs
Function passes:
  gvn
  instcombine
Function passes with params:
  gvn<no-pre;pre>
  sroa<preserve-cfg>
Function analyses:
  aa
Function alias analyses:
  basic-aa
LoopNest passes:
  loop-interchange
Loop passes:
  licm
  print<ddg>
Loop passes with params:
  simple-loop-unswitch<nontrivial>
Loop analyses:
  ddg
";

    #[test]
    fn listing_sections_give_levels_and_skip_analyses() {
        let parsed = parse_print_passes(LISTING);
        let pairs: Vec<(&str, PassLevel)> =
            parsed.iter().map(|c| (c.name.as_str(), c.level)).collect();
        assert_eq!(
            pairs,
            vec![
                ("always-inline", PassLevel::Module),
                ("globaldce", PassLevel::Module),
                ("ipsccp", PassLevel::Module),
                ("function-attrs", PassLevel::Cgscc),
                ("gvn", PassLevel::Function),
                ("instcombine", PassLevel::Function),
                ("sroa", PassLevel::Function),
                ("loop-interchange", PassLevel::Loop),
                ("licm", PassLevel::Loop),
                ("simple-loop-unswitch", PassLevel::Loop),
            ]
        );
    }

    #[test]
    fn reporting_and_instrumenting_passes_are_not_candidates() {
        for name in [
            "print",
            "verify",
            "asan",
            "pgo-instr-gen",
            "no-op-function",
            "aa-eval",
            "loweratomic",
            "objc-arc",
        ] {
            assert!(!is_transformation(name), "{name}");
        }
        for name in ["gvn", "licm", "loop-unroll", "instcombine", "sroa", "mem2reg"] {
            assert!(is_transformation(name), "{name}");
        }
    }
}
