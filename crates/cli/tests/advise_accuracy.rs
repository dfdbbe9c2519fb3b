//! The accuracy table of `bench/advise_accuracy.sh`: the collector end to end on two corpus
//! workloads on the simulator (the table's shape), and the table builder
//! (`bench/advise_accuracy.py`) over canned `clmap tune --json` reports whose right answers
//! are known, so that a wrong comparison of the advised layout with the winner fails.

use std::path::Path;
use std::process::Command;

use clmap_testkit::{clmap_command, root, Scratch};
use serde_json::{json, Value};

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} is not readable: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn run(command: &mut Command, what: &str) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn row<'a>(table: &'a Value, name: &str) -> &'a Value {
    table["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row {name} in {table:#}"))
}

#[test]
fn the_collector_tables_two_corpus_workloads_on_the_simulator() {
    let out = Scratch::new("advise-accuracy-sim");
    let clmap = clmap_command().get_program().to_owned();
    let stdout = run(
        Command::new("bash")
            .arg(root().join("bench/advise_accuracy.sh"))
            .arg("sim")
            .arg(out.path())
            .env("CLMAP", clmap)
            .env("WORKLOADS", "jacobi2d mm_nvidia_tile_a")
            .env("MAPS", "none")
            .env("REPS", "2")
            .env("SEEDS", "1")
            .env("LIMIT", "120"),
        "bench/advise_accuracy.sh",
    );
    let table = read_json(&out.join("accuracy.json"));
    let rows = table["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2, "{table:#}");
    assert_eq!(table["meta"]["reps"], 2);
    assert_eq!(table["devices"], json!(["simulator"]));
    for (name, kernel) in [("jacobi2d", "jacobi2d_step"), ("mm_nvidia_tile_a", "matrixMul_tile_a")]
    {
        let r = row(&table, name);
        assert_eq!(r["group"], "corpus");
        assert_eq!(r["kernel"], kernel, "{r:#}");
        assert!(r["variants_timed"].as_u64().unwrap_or(0) >= 2, "{r:#}");
        assert!(r["winner"].is_string(), "{r:#}");
        // The simulator has no advisor, so nothing is judged and nothing counts.
        assert_eq!(r["judged"], false);
        assert!(r["note"].as_str().unwrap_or("").starts_with("no advice"), "{r:#}");
    }
    assert_eq!(table["summary"]["workloads"], 2);
    assert_eq!(table["summary"]["judged"], 0);
    assert_eq!(table["summary"]["accuracy"], Value::Null);
    let markdown = std::fs::read_to_string(out.join("accuracy.md")).expect("accuracy.md");
    assert_eq!(stdout, markdown);
    let table_lines: Vec<&str> = markdown.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(table_lines.len(), 4, "header, rule and two rows:\n{markdown}");
    assert!(table_lines[0].contains("| advised / winner |"));
}

fn variant(name: &str, kind: &str, staged: &[&str], unstaged: &[&str], ns: Option<f64>) -> Value {
    json!({
        "name": name,
        "built": { "kind": kind },
        "layout": { "staged": staged, "unstaged": unstaged },
        "status": if ns.is_some() { "timed" } else { "invalid" },
        "time": ns.map(|ns| json!({ "median_ns": ns })),
        // Deliberately wrong: the builder must find the winner from the medians.
        "chosen": name == "as-written",
    })
}

/// `decided`: the buffers the advisor gave a placement, as `clmap tune` words its decisions.
fn report(
    variants: Vec<Value>,
    advised: &str,
    advised_variant: Option<&str>,
    decided: &[&str],
) -> Value {
    let decisions: Vec<String> =
        decided.iter().map(|b| format!("{b} in k: MAP-204 → global, rule 5.1")).collect();
    json!({
        "workload": "w.toml",
        "kernel": "k",
        "devices": [{
            "device": "canned device",
            "variants": variants,
            "advisor": {
                "advised": advised,
                "advised_variant": advised_variant,
                // Deliberately wrong too: agreement is computed from the layouts.
                "predicted": true,
                "decisions": decisions,
                "note": if decided.is_empty() { json!("no MAP detected") } else { Value::Null },
            },
        }],
    })
}

#[test]
fn the_table_builder_judges_the_advice_by_the_measured_winner() {
    let dir = Scratch::new("advise-accuracy-canned");
    let runs = [
        // Advised unstaging As, and unlocal:As is the fastest: agreement.
        (
            "right",
            report(
                vec![
                    variant("as-written", "as_written", &[], &[], Some(200.0)),
                    variant("unlocal:As", "unlocal", &[], &["A"], Some(100.0)),
                ],
                "unstage A",
                Some("unlocal:As"),
                &["A"],
            ),
        ),
        // Advised as written, staging B is 30 % faster: wrong, ×1.30.
        (
            "wrong",
            report(
                vec![
                    variant("as-written", "as_written", &[], &[], Some(130.0)),
                    variant("stage:B", "stage", &["B"], &[], Some(100.0)),
                    variant("wg:32x8", "work_group", &[], &[], Some(10.0)),
                ],
                "as written",
                Some("as-written"),
                &["A", "B"],
            ),
        ),
        // Advised staging B, as written 2 % faster: wrong, but within the 5 % tie.
        (
            "near",
            report(
                vec![
                    variant("as-written", "as_written", &[], &[], Some(100.0)),
                    variant("stage:B", "stage", &["B"], &[], Some(102.0)),
                ],
                "stage B",
                Some("stage:B"),
                &["B"],
            ),
        ),
        // Advised staging C, which no variant does: wrong with no time.
        (
            "unbuilt",
            report(
                vec![
                    variant("as-written", "as_written", &[], &[], Some(100.0)),
                    variant("stage:B", "stage", &["B"], &[], Some(90.0)),
                ],
                "stage C",
                None,
                &["C"],
            ),
        ),
        // No advice: listed, not judged.
        (
            "silent",
            report(
                vec![
                    variant("as-written", "as_written", &[], &[], Some(100.0)),
                    variant("stage:B", "stage", &["B"], &[], Some(90.0)),
                ],
                "no advice",
                None,
                &[],
            ),
        ),
        // One layout timed (the other invalid): nothing to choose between, not judged.
        (
            "alone",
            report(
                vec![
                    variant("as-written", "as_written", &[], &[], Some(100.0)),
                    variant("stage:B", "stage", &["B"], &[], None),
                ],
                "as written",
                Some("as-written"),
                &["B"],
            ),
        ),
    ];
    for (name, report) in &runs {
        dir.write(format!("runs/{name}.json"), report.to_string());
        dir.write(format!("runs/{name}.rc"), "0\n");
    }
    dir.write("runs/killed.json", "");
    dir.write("runs/killed.rc", "124\n");
    let stdout = run(
        Command::new("python3").arg(root().join("bench/advise_accuracy.py")).arg(dir.path()),
        "bench/advise_accuracy.py",
    );
    let table = read_json(&dir.join("accuracy.json"));
    assert_eq!(table["rows"].as_array().map(Vec::len), Some(7));

    let right = row(&table, "right");
    assert_eq!((&right["agree"], &right["winner"]), (&json!(true), &json!("unlocal:As")));
    assert_eq!(right["ratio"], 1.0, "the advised variant is the winner");
    let wrong = row(&table, "wrong");
    assert_eq!(wrong["agree"], false);
    assert_eq!(wrong["winner"], "stage:B", "work-group variants are not layouts");
    assert!((wrong["ratio"].as_f64().unwrap() - 1.3).abs() < 1e-9, "{wrong:#}");
    assert_eq!(wrong["within_tie"], false);
    let near = row(&table, "near");
    assert_eq!((&near["agree"], &near["within_tie"]), (&json!(false), &json!(true)));
    assert!((near["ratio"].as_f64().unwrap() - 1.02).abs() < 1e-9);
    let unbuilt = row(&table, "unbuilt");
    assert_eq!((&unbuilt["agree"], &unbuilt["ratio"]), (&json!(false), &Value::Null));
    assert!(unbuilt["note"].as_str().unwrap().contains("no variant with the advised layout"));
    assert_eq!(unbuilt["winner_moves_undecided"], true, "B was not judged: {unbuilt:#}");
    assert_eq!(wrong["winner_moves_undecided"], false, "B was judged");
    for name in ["silent", "alone", "killed"] {
        assert_eq!(row(&table, name)["judged"], false, "{name}");
    }
    assert!(row(&table, "killed")["note"].as_str().unwrap().contains("timed out"));

    let s = &table["summary"];
    assert_eq!((&s["workloads"], &s["judged"], &s["agree"]), (&json!(7), &json!(4), &json!(1)));
    assert_eq!(s["accuracy"], 0.25);
    assert_eq!((&s["agree_within_tie"], &s["accuracy_within_tie"]), (&json!(2), &json!(0.5)));
    assert_eq!((&s["wrong"], &s["wrong_with_time"]), (&json!(3), &json!(2)));
    assert_eq!(s["wrong_on_undecided_buffer"], 1);
    assert!((s["wrong_ratio_max"].as_f64().unwrap() - 1.3).abs() < 1e-9);
    let geomean = (1.3f64 * 1.02).sqrt();
    assert!((s["wrong_ratio_geomean"].as_f64().unwrap() - geomean).abs() < 1e-9);

    assert!(stdout.contains("**Accuracy: 1 of 4 judged workloads (25 %)**"), "{stdout}");
    let line = |name: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("no line for {name}:\n{stdout}"))
            .to_string()
    };
    assert!(line("wrong").contains("| **no** | ×1.30 |"), "{}", line("wrong"));
    assert!(line("near").contains("| tie | ×1.02 |"), "{}", line("near"));
    assert!(line("right").contains("| yes | ×1.00 |"), "{}", line("right"));
}

#[test]
fn advice_to_stage_two_buffers_is_judged_against_the_variant_staging_both() {
    let dir = Scratch::new("advise-accuracy-combined");
    let runs = [
        // Both staged together is the fastest: the advice agrees.
        (
            "both_win",
            report(
                vec![
                    variant("as-written", "as_written", &[], &[], Some(200.0)),
                    variant("stage:A", "stage", &["A"], &[], Some(150.0)),
                    variant("stage:B", "stage", &["B"], &[], Some(140.0)),
                    variant("stage:A+B", "stage_all", &["A", "B"], &[], Some(100.0)),
                ],
                "stage A B",
                Some("stage:A+B"),
                &["A", "B"],
            ),
        ),
        // Staging B alone beats both together: wrong, by the combined variant's time.
        (
            "one_is_enough",
            report(
                vec![
                    variant("as-written", "as_written", &[], &[], Some(200.0)),
                    variant("stage:A", "stage", &["A"], &[], Some(150.0)),
                    variant("stage:B", "stage", &["B"], &[], Some(90.0)),
                    variant("stage:A+B", "stage_all", &["A", "B"], &[], Some(120.0)),
                ],
                "stage A B",
                Some("stage:A+B"),
                &["A", "B"],
            ),
        ),
    ];
    for (name, report) in &runs {
        dir.write(format!("runs/{name}.json"), report.to_string());
        dir.write(format!("runs/{name}.rc"), "0\n");
    }
    run(
        Command::new("python3").arg(root().join("bench/advise_accuracy.py")).arg(dir.path()),
        "bench/advise_accuracy.py",
    );
    let table = read_json(&dir.join("accuracy.json"));
    let both = row(&table, "both_win");
    assert_eq!((&both["judged"], &both["agree"]), (&json!(true), &json!(true)), "{both:#}");
    assert_eq!(both["winner"], "stage:A+B");
    let one = row(&table, "one_is_enough");
    assert_eq!((&one["agree"], &one["winner"]), (&json!(false), &json!("stage:B")), "{one:#}");
    assert!((one["ratio"].as_f64().unwrap() - 120.0 / 90.0).abs() < 1e-9, "{one:#}");
}
