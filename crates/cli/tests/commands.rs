//! `analyze`, `unlocal`, `fuse`, `compare`, `advise`, `maps` and `time` end to end: the built `clmap`
//! binary on the examples and the corpus, checked for exit codes (crates/cli/src/exit.rs), the
//! lines a user reads and the JSON a script reads. The numbers asserted are the ones the
//! kernels determine (work-items, loads, stores), not whatever the program printed last time.
//!
//! Tests that need an OpenCL device skip without one unless `CLMAP_REQUIRE_OPENCL=1`.

use clmap_testkit::{clmap, opencl_device_matching, root, ClmapRun, Scratch};
use serde_json::Value;

/// The exit codes every command documents.
const SUCCESS: i32 = 0;
const BAD_INPUT: i32 = 1;
const KERNEL_FAULT: i32 = 2;
/// A command line clmap cannot parse is bad input too (not clap's own 2, which would read as a
/// kernel fault).
const USAGE: i32 = BAD_INPUT;
/// Something the command needs is not there: an OpenCL runtime, a device, a device's records.
const ENVIRONMENT: i32 = 3;

/// Whether an OpenCL CPU device is there for the commands given `--device cpu`.
fn cpu_device() -> bool {
    opencl_device_matching("cpu").is_some()
}

/// A copy of a corpus workload in `dir` whose kernel source is `source`, for running a
/// rewritten kernel with the original's arguments.
fn workload_with_source(original: &str, source: &std::path::Path, dir: &Scratch) -> String {
    let text = std::fs::read_to_string(root().join(original)).expect("the workload");
    let name = std::path::Path::new(original).file_name().expect("a file name");
    let mut replaced = false;
    let rewritten: String = text
        .lines()
        .map(|line| {
            if line.split('=').next().is_some_and(|key| key.trim() == "source") {
                replaced = true;
                format!("source = {:?}\n", source.display().to_string())
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    assert!(replaced, "{original} names no source");
    dir.write(name, rewritten).display().to_string()
}

/// The one launch of a single-launch workload's `analyze --json` report.
fn only_launch(run: &ClmapRun) -> Value {
    let report = run.json();
    let launches = report.as_array().expect("an array of launches");
    assert_eq!(launches.len(), 1, "{report:#}");
    launches[0].clone()
}

mod analyze {
    use super::*;

    #[test]
    fn vector_add_counts_what_the_kernel_does() {
        // 1024 work-items in groups of 64; the first n = 1000 load a[i] and b[i] and store c[i].
        let run = clmap(&["analyze", "examples/vector_add.toml", "--json"]);
        run.assert_success();
        let launch = only_launch(&run);
        assert_eq!(launch["workload"], "vector_add.toml");
        assert_eq!(launch["launch"], 0);
        let m = &launch["metrics"];
        assert_eq!(m["kernel"], "vector_add");
        assert_eq!(m["mode"], "clmap");
        let p = &m["parallelism"];
        assert_eq!(p["work_items"], 1024);
        assert_eq!(p["work_groups"], 16);
        assert_eq!(p["work_items_per_group"], 64);
        assert_eq!(p["barriers_hit"], 0);
        let mem = &m["memory"];
        assert_eq!(mem["total_reads"], 2000);
        assert_eq!(mem["total_writes"], 1000);
        assert_eq!(mem["unique_reads"], 2000);
        assert_eq!(mem["unique_writes"], 1000);
        assert_eq!(mem["accesses"], 3000);
        assert_eq!(mem["relative_local_usage"], 0.0);
        // One branch (`i < n`), taken by every work-item.
        assert_eq!(m["control"]["distinct_branches"], 1);
        assert_eq!(m["control"]["branch_executions"], 1024);
        let mix: Vec<(String, u64)> =
            serde_json::from_value(m["compute"]["instruction_mix"].clone())
                .expect("instruction mix as [name, count] pairs");
        let count = |name: &str| mix.iter().find(|(n, _)| n == name).map(|(_, c)| *c);
        assert_eq!(count("Load"), Some(2000));
        assert_eq!(count("Store"), Some(1000));
        assert_eq!(count("FloatArithmetic"), Some(1000), "one addition per element");
    }

    #[test]
    fn a_local_memory_transpose_counts_its_tile_traffic() {
        // 256 x 128 work-items in 16 x 16 groups; each loads one element from global memory,
        // stores it to the tile, waits at the barrier, loads a tile element and stores it out.
        let run = clmap(&["analyze", "examples/transpose.toml", "--json"]);
        run.assert_success();
        let m = only_launch(&run)["metrics"].clone();
        assert_eq!(m["parallelism"]["work_items"], 32768);
        assert_eq!(m["parallelism"]["work_groups"], 128);
        assert_eq!(m["parallelism"]["work_items_per_group"], 256);
        assert_eq!(m["parallelism"]["barriers_hit"], 32768);
        assert_eq!(m["memory"]["total_reads"], 2 * 32768);
        assert_eq!(m["memory"]["total_writes"], 2 * 32768);
        assert_eq!(m["memory"]["relative_local_usage"], 0.5, "half of all accesses are local");
    }

    #[test]
    fn a_pipeline_reports_every_launch() {
        let run = clmap(&["analyze", "examples/jacobi_pipeline.toml", "--json"]);
        run.assert_success();
        let report = run.json();
        let launches = report.as_array().expect("launches");
        assert_eq!(launches.len(), 10, "the pipeline repeats its launch 10 times");
        for (i, launch) in launches.iter().enumerate() {
            assert_eq!(launch["launch"], i);
            assert_eq!(launch["metrics"]["kernel"], "jacobi_step");
            assert_eq!(launch["metrics"]["parallelism"]["work_items"], 4096);
            // Every step does the same work on swapped buffers.
            assert_eq!(launch["metrics"]["memory"], launches[0]["metrics"]["memory"]);
        }
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        for workload in ["examples/transpose.toml", "tests/corpus/histogram_local_atomics.toml"] {
            let one = clmap(&["analyze", workload, "--json", "--threads", "1"]);
            let three = clmap(&["analyze", workload, "--json", "--threads", "3"]);
            one.assert_success();
            three.assert_success();
            assert_eq!(one.json(), three.json(), "{workload}");
        }
    }

    #[test]
    fn text_and_csv_show_the_same_numbers() {
        let text = clmap(&["analyze", "examples/vector_add.toml"]);
        text.assert_success();
        text.assert_stdout_contains("vector_add.toml — kernel vector_add (launch 1 of 1)");
        for heading in ["Compute", "Parallelism", "Memory", "Control"] {
            text.assert_stdout_contains(heading);
        }
        let out = text.stdout();
        let work_items = out.lines().find(|l| l.trim_start().starts_with("work-items "));
        assert_eq!(
            work_items.map(|l| l.split_whitespace().last().unwrap_or_default().to_string()),
            Some("1024".to_string()),
            "{out}"
        );
        let csv = clmap(&["analyze", "examples/vector_add.toml", "--csv"]);
        csv.assert_success();
        let out = csv.stdout();
        assert_eq!(out.lines().next(), Some("workload,launch,kernel,category,metric,value"));
        assert!(out.lines().any(|l| l == "vector_add.toml,0,vector_add,memory,total reads,2000"));
    }

    #[test]
    fn plots_are_written_where_asked() {
        let dir = Scratch::new("analyze-plots");
        let plots = dir.join("plots");
        let plots_arg = plots.display().to_string();
        let run = clmap(&[
            "analyze",
            "examples/vector_add.toml",
            "examples/transpose.toml",
            "--plot",
            &plots_arg,
        ]);
        run.assert_success().assert_stdout_contains("plots written to");
        for name in ["lmae.svg", "psl.svg", "lmae.png", "psl.png"] {
            let path = plots.join(name);
            let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            assert!(size > 100, "{} is missing or empty", path.display());
        }
        let svg = std::fs::read_to_string(plots.join("psl.svg")).expect("psl.svg");
        assert!(
            svg.contains("vector_add") && svg.contains("transpose"),
            "both curves are labelled"
        );
    }

    #[test]
    fn json_and_csv_exclude_each_other() {
        clmap(&["analyze", "examples/vector_add.toml", "--json", "--csv"]).assert_fails(USAGE);
    }
}

mod unlocal {
    use super::*;

    #[test]
    fn a_staged_transpose_loses_its_tile_and_the_rewrite_validates() {
        let dir = Scratch::new("unlocal-transpose");
        let out = dir.join("transpose_unlocal.cl");
        let out_arg = out.display().to_string();
        let original = "tests/corpus/transpose_local_padded.toml";
        let run = clmap(&["unlocal", original, "-o", &out_arg]);
        run.assert_success();
        run.assert_stderr_contains("validated on the simulator: 3 input sets");
        run.assert_stderr_contains("race and bounds checks clean");
        let rewritten = std::fs::read_to_string(&out).expect("the rewritten kernel");
        assert!(!rewritten.contains("barrier("), "the barrier went with the tile:\n{rewritten}");
        assert!(!rewritten.contains("block["), "no access to the tile is left:\n{rewritten}");

        // The rewrite, run with the original's arguments: no local traffic, the same global
        // traffic, and (on a device) the same outputs as the simulator.
        let workload = workload_with_source(original, &out, &dir);
        let before = clmap(&["analyze", original, "--json"]);
        let after = clmap(&["analyze", &workload, "--json"]);
        after.assert_success();
        let (before, after) =
            (only_launch(&before)["metrics"].clone(), only_launch(&after)["metrics"].clone());
        assert!(before["memory"]["relative_local_usage"].as_f64() > Some(0.0));
        assert_eq!(after["memory"]["relative_local_usage"], 0.0);
        assert_eq!(after["parallelism"]["barriers_hit"], 0);
        assert_eq!(after["parallelism"]["work_items"], before["parallelism"]["work_items"]);
        assert_eq!(
            after["memory"]["total_reads"].as_u64().map(|r| 2 * r),
            before["memory"]["total_reads"].as_u64(),
            "every tile load became the global load it stood for"
        );
        let agree = clmap(&["compare", &workload, "--devices", "sim,sim", "--json"]);
        agree.assert_success();
        if cpu_device() {
            let on_device = clmap(&["compare", &workload, "--devices", "sim,cpu", "--json"]);
            on_device.assert_success();
            assert_eq!(on_device.json()["agree"], true);
        }
    }

    #[test]
    fn diff_and_explain_show_what_changed_and_why() {
        let diff = clmap(&["unlocal", "tests/corpus/transpose_local_padded.toml", "--diff"]);
        diff.assert_success();
        let text = diff.stdout();
        assert!(text.starts_with("--- a/transpose_local_padded.cl\n+++ b/"), "{text}");
        assert!(text.lines().any(|l| l.starts_with("-") && l.contains("barrier(")), "{text}");
        assert!(text.lines().any(|l| l.starts_with("+") && l.contains("in[")), "{text}");
        let explain = clmap(&["unlocal", "tests/corpus/mm_nvidia_tile_ab.toml", "--explain"]);
        explain.assert_success();
        explain.assert_stdout_contains("As").assert_stdout_contains("Bs");
    }

    #[test]
    fn only_the_named_buffer_is_removed() {
        // The kernel reaches its tiles through the macros AS(i, j) and BS(i, j).
        let run =
            clmap(&["unlocal", "tests/corpus/mm_nvidia_tile_ab.toml", "--buffer", "As", "--diff"]);
        run.assert_success();
        let out = run.stdout();
        let removed: Vec<&str> = out.lines().filter(|l| l.starts_with('-')).collect();
        let added: Vec<&str> = out.lines().filter(|l| l.starts_with('+')).collect();
        assert!(
            removed.iter().any(|l| l.contains("AS(ty, tx) = A[")),
            "As is staged no more:\n{out}"
        );
        assert!(!added.iter().any(|l| l.contains("AS(")), "no use of As is left:\n{out}");
        assert!(added.iter().any(|l| l.contains("BS(k, tx)")), "Bs is still read:\n{out}");
        assert!(
            !removed.iter().any(|l| l.contains("BS(ty, tx) = B[")),
            "Bs is still staged:\n{out}"
        );
    }

    #[test]
    fn local_memory_that_is_not_a_cache_is_refused_with_the_reason() {
        let run = clmap(&["unlocal", "tests/corpus/reduce_local_tree.toml"]);
        run.assert_fails(BAD_INPUT);
        run.assert_stderr_contains("buffer `scratch`: refused");
        run.assert_stderr_contains("reduce_local_tree.cl:");
        run.assert_stderr_contains("nothing was removed");
        assert!(run.stdout().is_empty(), "no kernel is printed: {}", run.stdout());
    }

    #[test]
    fn the_rewrite_validates_on_a_device_and_is_measured() {
        if !cpu_device() {
            return;
        }
        let workload = "tests/corpus/transpose_local_padded.toml";
        let dir = Scratch::new("unlocal-device");
        let out = dir.join("out.cl").display().to_string();
        let run = clmap(&["unlocal", workload, "--validate-on", "cpu", "-o", &out]);
        run.assert_success().assert_stderr_contains("validated on device cpu");
        let measured = clmap(&["unlocal", workload, "--measure", "--device", "cpu", "--reps", "3"]);
        measured.assert_success();
        measured.assert_stdout_contains("with local memory");
        measured.assert_stdout_contains("without local memory");
        let np = measured
            .stdout()
            .lines()
            .find_map(|l| l.trim().strip_prefix("np = ").map(str::to_string))
            .unwrap_or_else(|| panic!("no np line:\n{}", measured.describe()));
        let value: f64 = np.split_whitespace().next().and_then(|v| v.parse().ok()).expect("np");
        assert!(value.is_finite() && value > 0.0, "np = {value}");
    }
}

mod compare {
    use super::*;

    #[test]
    fn a_workload_agrees_with_itself_on_the_simulator() {
        let run = clmap(&["compare", "examples/vector_add.toml", "--devices", "sim,sim"]);
        run.assert_success();
        run.assert_stdout_contains("simulator vs simulator: agree");
        run.assert_stdout_contains("c: 1024 values equal");
        run.assert_stdout_contains("all outputs agree");
        let json =
            clmap(&["compare", "examples/vector_add.toml", "--devices", "sim,sim", "--json"]);
        json.assert_success();
        let report = json.json();
        assert_eq!(report["agree"], true);
        let result = &report["results"][0];
        assert_eq!(result["workload"], "examples/vector_add.toml");
        assert_eq!(result["reference"], "simulator");
        assert_eq!(result["outputs"][0]["buffer"], "c");
        assert_eq!(result["outputs"][0]["compared"], 1024);
        assert_eq!(result["outputs"][0]["mismatches"], 0);
    }

    #[test]
    fn simulator_and_device_agree_on_correct_kernels() {
        if !cpu_device() {
            return;
        }
        let run = clmap(&[
            "compare",
            "examples/vector_add.toml",
            "examples/transpose.toml",
            "tests/corpus/histogram_local_atomics.toml",
            "--json",
        ]);
        run.assert_success();
        let report = run.json();
        assert_eq!(report["agree"], true, "{report:#}");
        assert_eq!(report["results"].as_array().map(Vec::len), Some(3));
    }

    /// The transpose with its barrier forgotten: the simulator runs a group's work-items in
    /// lock-step, so every tile element is written before it is read; PoCL runs them one
    /// after another, so most read the tile before their neighbours wrote it.
    #[test]
    fn a_kernel_with_a_race_differs_and_exits_2() {
        if !cpu_device() {
            return;
        }
        let run = clmap(&["compare", "examples/missing_barrier.toml"]);
        run.assert_code(KERNEL_FAULT);
        run.assert_stdout_contains("DIFFER");
        run.assert_stdout_contains("some outputs differ");
        let json = clmap(&[
            "compare",
            "examples/transpose.toml",
            "examples/missing_barrier.toml",
            "--json",
        ]);
        json.assert_code(KERNEL_FAULT);
        let report = json.json();
        assert_eq!(report["agree"], false);
        assert_eq!(report["results"][0]["agree"], true, "the correct transpose agrees");
        let broken = &report["results"][1]["outputs"][0];
        assert_eq!(broken["agree"], false);
        assert!(broken["mismatches"].as_u64() > Some(0), "{broken:#}");
        assert!(!broken["first_mismatches"].as_array().is_none_or(Vec::is_empty));
    }

    #[test]
    fn one_target_is_not_a_comparison() {
        let run = clmap(&["compare", "examples/vector_add.toml", "--devices", "sim"]);
        run.assert_fails(BAD_INPUT).assert_stderr_contains("at least two targets");
    }

    /// `compare --help` documents 3 for "a device is missing", as exit.rs does for the
    /// environment, and a selector no device matches is a missing device.
    #[test]
    fn a_missing_device_exits_3_as_documented() {
        let run =
            clmap(&["compare", "examples/vector_add.toml", "--devices", "sim,no-such-device"]);
        run.assert_fails(3);
    }
}

mod advise {
    use super::*;

    /// A two-MAP database in the 2014 Aristotle format: MAP-205 gains (B/b = 3), MAP-108
    /// loses (0.9), MAP-302 is similar (1.01).
    const HISTORY: &str = "platform,map,n,b_mean,b_std,B_mean,B_std,mbr_mean,mbr_file\n\
        k20m,205,2048,100.0,1.0,300.0,1.0,3.000,3.000\n\
        k20m,108,2048,100.0,1.0,90.0,1.0,0.900,0.900\n\
        k20m,302,2048,100.0,1.0,101.0,1.0,1.010,1.010\n";

    fn database(dir: &Scratch) -> String {
        let csv = dir.write("history.csv", HISTORY).display().to_string();
        let db = dir.join("advice.db").display().to_string();
        let import = clmap(&["db", "import-aristotle", &csv, "--db", &db]);
        import.assert_success().assert_stdout_contains("3 new");
        db
    }

    #[test]
    fn a_gainer_goes_local_and_a_loser_stays_global() {
        let dir = Scratch::new("advise");
        let db = database(&dir);
        let args = ["advise", "--device", "k20m", "--maps", "205,108", "--sizes", "2048"];
        let text = clmap(&[&args[..], &["--db", &db]].concat());
        text.assert_success();
        text.assert_stdout_contains("NVIDIA Tesla K20m: (l, g)");
        let lines = text.stdout();
        let line =
            |map: &str| lines.lines().find(|l| l.contains(map)).unwrap_or_default().to_string();
        assert!(
            line("MAP-205").contains("local ") && line("MAP-205").contains("rule 5.2"),
            "{lines}"
        );
        assert!(
            line("MAP-108").contains("global") && line("MAP-108").contains("rule 5.1"),
            "{lines}"
        );

        let json = clmap(&[&args[..], &["--db", &db, "--json"]].concat());
        json.assert_success();
        let advice = &json.json()["advice"];
        let choices = advice["choices"].as_array().expect("choices");
        assert_eq!(choices.len(), 2);
        assert_eq!(choices[0]["structure"]["map"], 205);
        assert_eq!(choices[0]["use_local"], true);
        assert_eq!(choices[0]["impact"], "gain");
        assert_eq!(choices[0]["mbr"], 3.0);
        assert_eq!(choices[1]["structure"]["map"], 108);
        assert_eq!(choices[1]["use_local"], false);
        assert_eq!(choices[1]["impact"], "loss");
        assert_eq!(advice["delta"], 0.05);
        assert_eq!(advice["local_bytes_used"], choices[0]["structure"]["local_bytes"]);
    }

    #[test]
    fn the_similarity_threshold_decides_a_small_gain() {
        let dir = Scratch::new("advise-delta");
        let db = database(&dir);
        let advise = |delta: &str| {
            let args =
                ["advise", "-d", "k20m", "--maps", "302", "--sizes", "2048", "--delta", delta];
            let run = clmap(&[&args[..], &["--db", &db, "--json"]].concat());
            run.assert_success();
            run.json()["advice"]["choices"][0]["impact"].as_str().unwrap_or_default().to_string()
        };
        // mbr = 1.01: similar within 5 %, a gain when only 0.5 % counts as similar.
        assert_eq!(advise("0.05"), "similar");
        assert_eq!(advise("0.005"), "gain");
    }

    #[test]
    fn bad_requests_are_bad_input() {
        let dir = Scratch::new("advise-bad");
        let db = database(&dir);
        // A device the database does not have is missing, as one the machine lacks (exit 3).
        clmap(&["advise", "--device", "no-such-gpu", "--maps", "205", "--db", &db])
            .assert_fails(ENVIRONMENT)
            .assert_stderr_contains("no device in the database matches");
        let cases: [(&[&str], &str); 3] = [
            (&["--device", "k20m", "--maps", "999"], "MAP-999"),
            (
                &["--device", "k20m", "--maps", "205,108", "--sizes", "1,2,3"],
                "--sizes has 3 values",
            ),
            (&["--device", "k20m", "--maps", "205", "--delta", "1.5"], "--delta"),
        ];
        for (args, message) in cases {
            let run = clmap(&[&["advise"][..], args, &["--db", &db]].concat());
            run.assert_fails(BAD_INPUT).assert_stderr_contains(message);
        }
    }
}

mod maps {
    use super::*;

    #[test]
    fn the_33_valid_maps_are_listed_with_their_patterns() {
        let text = clmap(&["maps", "list"]);
        text.assert_success();
        let out = text.stdout();
        assert_eq!(out.lines().filter(|l| l.starts_with("MAP-")).count(), 33, "{out}");
        let identity = out.lines().find(|l| l.starts_with("MAP-108")).expect("MAP-108");
        assert!(identity.contains("(ty, tx)") && identity.contains("the identity"), "{identity}");
        let transpose = out.lines().find(|l| l.starts_with("MAP-110")).expect("MAP-110");
        assert!(
            transpose.contains("(tx, ty)") && transpose.contains("the transpose"),
            "{transpose}"
        );

        let json = clmap(&["maps", "list", "--json"]);
        json.assert_success();
        let list = json.json();
        let maps = list.as_array().expect("an array of MAPs");
        assert_eq!(maps.len(), 33);
        let block = maps.iter().find(|m| m.to_string().contains("MAP-407")).expect("MAP-407");
        assert!(block.to_string().contains("Block"), "{block}");
    }

    #[test]
    fn show_sizes_the_tile_from_the_work_group_and_radius() {
        // MAP-407 reads a (2R+1)^2 block around the diagonal element (tx, tx): a 4 x 4 group
        // with R = 1 needs a (4 + 2)^2 = 36-cell tile for the `max` variant.
        let run = clmap(&["maps", "show", "MAP-407", "--work-group", "4x4", "--radius", "1"]);
        run.assert_success();
        run.assert_stdout_contains("3x3 block centred at (tx, tx)");
        run.assert_stdout_contains("nolocal: 0 local cells (0 bytes) per 4x4 work-group");
        run.assert_stdout_contains("max: 36 local cells (144 bytes) per 4x4 work-group");
        run.assert_stdout_contains("__kernel void map407_nolocal(");
        run.assert_stdout_contains("__local float tile[36];");
    }

    #[test]
    fn generated_workloads_validate_and_run() {
        let dir = Scratch::new("maps-generate");
        let out = dir.display().to_string();
        let run = clmap(&[
            "maps",
            "generate",
            "--out",
            &out,
            "--maps",
            "205",
            "--sizes",
            "32",
            "--variants",
            "nolocal,max",
            "--work-group",
            "8x8",
            "--validate",
        ]);
        run.assert_success();
        let mut workloads: Vec<String> = std::fs::read_dir(dir.path())
            .expect("the output directory")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".toml"))
            .collect();
        workloads.sort();
        assert_eq!(workloads, ["map205_max_n32.toml", "map205_nolocal_n32.toml"]);
        let max = dir.join("map205_max_n32.toml").display().to_string();
        let analysed = clmap(&["analyze", &max, "--json"]);
        analysed.assert_success();
        let m = only_launch(&analysed)["metrics"].clone();
        assert_eq!(m["parallelism"]["work_items"], 32 * 32);
        assert_eq!(m["parallelism"]["work_items_per_group"], 64);
        assert!(m["memory"]["relative_local_usage"].as_f64() > Some(0.0), "max stages a tile");
    }

    #[test]
    fn unknown_maps_and_shapes_are_refused() {
        clmap(&["maps", "show", "MAP-999"])
            .assert_fails(BAD_INPUT)
            .assert_stderr_contains("MAP-999 is not one of the 33 valid MAPs");
        clmap(&["maps", "show", "banana"]).assert_fails(BAD_INPUT);
        let dir = Scratch::new("maps-bad");
        let out = dir.display().to_string();
        let run = clmap(&["maps", "generate", "--out", &out, "--maps", "205", "--work-group", "8"]);
        run.assert_no_panic();
        assert_ne!(run.code(), Some(SUCCESS), "{}", run.describe());
    }
}

mod time {
    use super::*;

    #[test]
    fn timing_reports_every_sample_after_the_warm_up() {
        if !cpu_device() {
            return;
        }
        let run = clmap(&[
            "time",
            "examples/vector_add.toml",
            "--device",
            "cpu",
            "--reps",
            "5",
            "--json",
        ]);
        run.assert_success();
        let report = run.json();
        assert_eq!(report["workload"], "examples/vector_add.toml");
        assert_eq!(report["runs"], 5);
        assert_eq!(report["warmup"], 1);
        assert_eq!(report["flush"], false);
        assert_eq!(report["bytes_moved"], 12288);
        let samples: Vec<f64> =
            serde_json::from_value(report["samples_ns"].clone()).expect("samples in ns");
        assert_eq!(samples.len(), 4, "five runs, the first discarded");
        let min = report["min_ns"].as_f64().expect("min");
        let median = report["median_ns"].as_f64().expect("median");
        assert!(samples.iter().all(|&s| s >= min && s > 0.0), "{report:#}");
        assert!(median >= min, "{report:#}");
        let bandwidth = report["bandwidth_gbs"].as_f64().expect("bytes_moved gives a bandwidth");
        assert!((bandwidth - 12288.0 / median).abs() <= 1e-9 * bandwidth.max(1.0), "{report:#}");

        let text = clmap(&["time", "examples/vector_add.toml", "--device", "cpu", "--reps", "3"]);
        text.assert_success();
        text.assert_stdout_contains("3 runs (2 measured, first discarded)");
        text.assert_stdout_contains("median");
        text.assert_stdout_contains("effective bandwidth");
    }

    #[test]
    fn a_pipeline_is_timed_as_a_whole() {
        if !cpu_device() {
            return;
        }
        let run =
            clmap(&["time", "examples/jacobi_pipeline.toml", "-d", "cpu", "--reps", "3", "--json"]);
        run.assert_success();
        let report = run.json();
        assert_eq!(report["samples_ns"].as_array().map(Vec::len), Some(2));
        assert!(report["bandwidth_gbs"].is_null(), "the pipeline declares no bytes_moved");
    }

    #[test]
    fn bad_repetitions_and_devices_are_refused() {
        let run = clmap(&["time", "examples/vector_add.toml", "--device", "cpu", "--reps", "1"]);
        run.assert_fails(USAGE).assert_stderr_contains("--reps");
        if !cpu_device() {
            return;
        }
        let run = clmap(&["time", "examples/vector_add.toml", "--device", "no-such-device"]);
        run.assert_fails(3).assert_stderr_contains("no OpenCL device matches");
    }
}

/// Whatever a user hands them, the commands answer with a message and an exit code.
mod bad_input {
    use super::*;

    /// A workload file that does not parse, one whose kernel does not compile, and one whose
    /// kernel source is missing.
    fn malformed(dir: &Scratch) -> Vec<(String, &'static str)> {
        dir.write("broken.cl", "__kernel void k(__global int *x) { x[0] = ; }\n");
        let toml_error = dir.write("not_toml.toml", "kernel = \"k\"\nsource = \nglobal = [4]\n");
        let args = "[[arg]]\nname = \"x\"\nbuffer = \"int\"\nlen = 4\noutput = true\n";
        let syntax = dir.write(
            "syntax_error.toml",
            format!("kernel = \"k\"\nsource = \"broken.cl\"\nglobal = [4]\n{args}"),
        );
        let no_source = dir.write(
            "no_source.toml",
            format!("kernel = \"k\"\nsource = \"absent.cl\"\nglobal = [4]\n{args}"),
        );
        vec![
            (toml_error.display().to_string(), "not_toml.toml:2:"),
            (syntax.display().to_string(), "broken.cl:1:"),
            (no_source.display().to_string(), "absent.cl"),
            (dir.join("missing.toml").display().to_string(), "missing.toml"),
        ]
    }

    #[test]
    fn every_command_rejects_missing_and_malformed_workloads() {
        let dir = Scratch::new("bad-input");
        for (workload, message) in malformed(&dir) {
            let commands: [&[&str]; 4] = [
                &["analyze", &workload, "--json"],
                &["unlocal", &workload],
                &["compare", &workload, "--devices", "sim,sim"],
                &["time", &workload, "--device", "cpu"],
            ];
            for args in commands {
                let run = clmap(args);
                run.assert_no_panic();
                if args[0] == "time" && run.code() == Some(3) {
                    // No OpenCL here: time gives up before it reads the workload.
                    continue;
                }
                if args[0] == "time" && message == "broken.cl:1:" {
                    // The device's compiler reports the error, in its own words.
                    run.assert_fails(BAD_INPUT);
                    continue;
                }
                run.assert_fails(BAD_INPUT).assert_stderr_contains(message);
                assert!(
                    run.stdout().trim().is_empty() || args[0] != "analyze",
                    "{}",
                    run.describe()
                );
            }
        }
    }

    #[test]
    fn a_bare_kernel_is_not_a_workload() {
        for args in [
            &["analyze", "examples/vector_add.cl"][..],
            &["compare", "examples/vector_add.cl", "--devices", "sim,sim"],
        ] {
            clmap(args).assert_fails(BAD_INPUT);
        }
    }

    #[test]
    fn advise_and_maps_reject_what_they_cannot_use() {
        let dir = Scratch::new("bad-db");
        let db = dir.join("missing-dir/clmap.db").display().to_string();
        clmap(&["advise", "--device", "k20m", "--maps", "205", "--db", &db])
            .assert_fails(BAD_INPUT)
            .assert_stderr_contains("does not exist");
        clmap(&["advise", "--maps", "205"]).assert_fails(USAGE);
        clmap(&["maps", "show"]).assert_fails(USAGE);
        clmap(&["maps", "frobnicate"]).assert_fails(USAGE);
    }

    #[test]
    fn every_command_teaches_in_its_help() {
        for (command, needle) in [
            ("analyze", "--json"),
            ("unlocal", "--validate-on"),
            ("compare", "Exit codes"),
            ("advise", "composing rules"),
            ("maps", "generate"),
            ("time", "warm-up"),
        ] {
            let run = clmap(&[command, "--help"]);
            run.assert_success().assert_stdout_contains(needle).assert_stdout_contains("Example");
        }
    }
}

mod fuse {
    use super::*;

    /// Output files of `clmap run WORKLOAD --out DIR` and its launch count.
    fn run_outputs(workload: &str, dir: &Scratch, name: &str) -> (u64, Vec<(String, Vec<u8>)>) {
        let out = dir.join(name);
        let run = clmap(&["run", workload, "--out", &out.display().to_string(), "--json"]);
        run.assert_success();
        let launches = run.json()["launches"].as_u64().expect("a launch count");
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
            .expect("the output folder")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "bin"))
            .map(|p| {
                (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())
            })
            .collect();
        files.sort();
        (launches, files)
    }

    #[test]
    fn a_fused_stencil_gives_the_same_bytes_in_fewer_launches() {
        let dir = Scratch::new("fuse-jacobi2d");
        let fused = dir.join("j2d_fused.toml").display().to_string();
        let original = "examples/fusion/jacobi2d_small.toml";
        let run =
            clmap(&["fuse", original, "-o", &fused, "--tile", "16x8", "--steps", "3", "--explain"]);
        run.assert_success();
        run.assert_stdout_contains(
            "stage 0 (jacobi2d_step): t0-2 <= p0 <= t0+17, t1-2 <= p1 <= t1+9",
        );
        run.assert_stdout_contains("4 launches instead of 6");
        let source = std::fs::read_to_string(dir.join("j2d_fused.cl")).expect("the fused kernels");
        assert!(source.contains("__local"), "the tiles live in local memory:\n{source}");
        let (before, expected) = run_outputs(original, &dir, "before");
        let (after, found) = run_outputs(&fused, &dir, "after");
        assert_eq!((before, after), (6, 4));
        assert_eq!(expected.len(), 2, "both buffers of the pair are outputs");
        assert!(expected == found, "the fused pipeline's outputs differ from the original's");
    }

    #[test]
    fn json_reports_launches_stages_and_relations() {
        let dir = Scratch::new("fuse-image");
        let fused = dir.join("image_fused.toml").display().to_string();
        let run = clmap(&[
            "fuse",
            "examples/fusion/image_small.toml",
            "-o",
            &fused,
            "--tile",
            "16x8",
            "--json",
        ]);
        run.assert_success();
        let report = run.json();
        assert_eq!(report["fused"], true);
        assert_eq!(report["launches_before"], 3);
        assert_eq!(report["launches_after"], 1);
        let segment = &report["segments"][0];
        assert_eq!(segment["kind"], "spatial");
        assert_eq!(segment["stages"], serde_json::json!(["denoise", "sharpen", "blend"]));
        // denoise's 3x3 window and sharpen's 5 points: the first stage reaches one pixel out.
        assert_eq!(segment["reach"][0], serde_json::json!([[-1, 16], [-1, 8]]));
        let relations = segment["relations"].as_array().unwrap();
        assert!(relations
            .iter()
            .any(|r| r["kernel"] == "sharpen" && r["kind"] == "consuming" && r["buffer"] == "t1"));
    }

    #[test]
    fn a_pipeline_with_nothing_to_fuse_says_why_and_writes_nothing() {
        let dir = Scratch::new("fuse-nothing");
        let out = dir.join("va_fused.toml");
        let run = clmap(&["fuse", "examples/vector_add.toml", "-o", &out.display().to_string()]);
        run.assert_fails(BAD_INPUT);
        run.assert_stderr_contains("nothing fused");
        run.assert_stderr_contains("single launch");
        assert!(!out.exists());
    }

    #[test]
    fn fusion_without_redundant_computation_is_caught_by_validation() {
        let dir = Scratch::new("fuse-nr");
        let out = dir.join("nr.toml");
        let run = clmap(&[
            "fuse",
            "examples/fusion/jacobi2d_small.toml",
            "-o",
            &out.display().to_string(),
            "--tile",
            "16x8",
            "--variant",
            "nr",
        ]);
        run.assert_fails(KERNEL_FAULT);
        run.assert_stderr_contains("differs from the original");
        assert!(!out.exists(), "a rejected fusion writes nothing");
    }

    #[test]
    fn measuring_stores_candidates_and_a_second_run_answers_from_the_database() {
        if !cpu_device() {
            return;
        }
        let dir = Scratch::new("fuse-measure");
        let db = dir.join("fusion.db").display().to_string();
        let out = dir.join("fused.toml").display().to_string();
        let args = [
            "fuse",
            "examples/fusion/jacobi2d_small.toml",
            "-o",
            &out,
            "--measure",
            "--device",
            "cpu",
            "--candidates",
            "2",
            "--reps",
            "2",
            "--db",
            &db,
            "--json",
        ];
        let first = clmap(&args);
        first.assert_success();
        let first = first.json();
        assert_eq!(first["from_database"], false);
        let timed = first["candidates"].as_array().expect("the candidates tried");
        assert_eq!(timed.len(), 2, "{first:#}");
        assert!(first["unfused_ns"].as_f64() > Some(0.0) && first["fused_ns"].as_f64() > Some(0.0));
        let second = clmap(&args);
        second.assert_success();
        let second = second.json();
        assert_eq!(second["from_database"], true, "{second:#}");
        assert_eq!(second["candidates"].as_array().map(|c| c.len()), Some(1));
        assert_eq!(second["segments"][0]["tile"], first["segments"][0]["tile"]);
        assert_eq!(second["segments"][0]["steps"], first["segments"][0]["steps"]);
    }

    #[test]
    fn seeds_zero_needs_a_device_to_validate_on() {
        let run = clmap(&["fuse", "examples/fusion/jacobi2d_small.toml", "--seeds", "0"]);
        run.assert_fails(BAD_INPUT);
        run.assert_stderr_contains("--measure");
    }

    #[test]
    fn a_bad_tile_is_a_usage_error() {
        let run = clmap(&["fuse", "examples/fusion/jacobi2d_small.toml", "--tile", "16x0"]);
        run.assert_fails(BAD_INPUT);
        run.assert_stderr_contains("--tile 16x0");
    }
}
