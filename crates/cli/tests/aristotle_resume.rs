//! A MAP campaign killed with SIGKILL part-way and rerun must end with every unit recorded
//! exactly once and every measured unit holding exactly its samples: nothing lost, nothing
//! duplicated. Beside it, the database commands that read campaigns back: the 2014 history, and
//! the composer's rule accuracy scored again from stored measurements.

use clmap_db::Database;
use clmap_testkit::{clmap_command, Scratch};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const REPS: u32 = 4;
const MAPS: &str = "107,205";
const SIZES: &str = "16";
const UNITS: i64 = 2 * 4;

/// An OpenCL CPU device (the campaigns below run on `--device cpu`), or a reason to skip.
fn opencl_or_skip() -> bool {
    clmap_testkit::opencl_device_matching("cpu").is_some()
}

fn campaign(db: &Path) -> Command {
    let mut cmd = clmap_command();
    cmd.args(["bench", "maps", "--device", "cpu", "--maps", MAPS, "--sizes", SIZES])
        .args(["--reps", &REPS.to_string(), "--db"])
        .arg(db)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

fn count(db: &Path, sql: &str) -> i64 {
    // The campaign may hold the write lock; reads under WAL never wait for it.
    let Ok(db) = Database::open(db) else { return 0 };
    db.connection().query_row(sql, [], |row| row.get(0)).unwrap_or(0)
}

#[test]
fn killed_campaign_resumes_without_loss_or_duplication() {
    if !opencl_or_skip() {
        return;
    }
    let dir = Scratch::new("resume");
    let db = dir.join("campaign.db");

    let mut child = campaign(&db).spawn().expect("start the campaign");
    let started = Instant::now();
    let mut killed_at = None;
    while started.elapsed() < Duration::from_secs(300) {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        let done = count(&db, "SELECT count(*) FROM aristotle_units");
        if done >= 2 {
            child.kill().expect("SIGKILL the campaign");
            killed_at = Some(done);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.wait();
    let killed_at = killed_at.expect("the campaign finished or stalled before it could be killed");
    assert!(killed_at < UNITS, "the kill came after the last unit ({killed_at} of {UNITS})");

    let status = campaign(&db).status().expect("rerun the campaign");
    assert!(status.success(), "the rerun failed: {status}");

    assert_eq!(count(&db, "SELECT count(*) FROM aristotle_units"), UNITS);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM (SELECT 1 FROM aristotle_units
             GROUP BY device_id, map, variant, dataset HAVING count(*) > 1)"
        ),
        0,
        "a unit is recorded twice"
    );
    let measured = count(&db, "SELECT count(*) FROM aristotle_units WHERE status = 'measured'");
    assert!(measured > 0, "nothing was measured");
    assert_eq!(
        count(&db, "SELECT count(*) FROM aristotle_units WHERE status = 'failed'"),
        0,
        "a unit failed"
    );
    // Every measured unit has exactly reps − 1 samples (the first run is the warm-up), keyed
    // 0 … reps − 2, and no sample belongs to a unit that is not measured.
    let expected = i64::from(REPS - 1);
    assert_eq!(count(&db, "SELECT count(*) FROM aristotle_samples"), measured * expected);
    assert_eq!(
        count(
            &db,
            &format!(
                "SELECT count(*) FROM aristotle_units u WHERE u.status = 'measured' AND
                 (SELECT count(DISTINCT rep) FROM aristotle_samples s
                  WHERE s.unit_id = u.id AND s.rep BETWEEN 0 AND {}) != {expected}",
                expected - 1
            )
        ),
        0,
        "a measured unit lacks a sample or has a stray one"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM aristotle_samples s
             LEFT JOIN aristotle_units u ON u.id = s.unit_id
             WHERE u.id IS NULL OR u.status != 'measured'"
        ),
        0,
        "orphaned samples"
    );
}

/// The database commands on the 2014 history: import twice, list, query, advise, export.
#[test]
fn history_import_query_advise_and_export_through_the_cli() {
    let csv =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/aristotle-pdb-2014.csv");
    if !csv.exists() {
        eprintln!("skipped: {} is missing", csv.display());
        return;
    }
    let dir = Scratch::new("history");
    let db = dir.join("history.db");
    let clmap = |args: &[&str]| {
        let out = clmap_command().args(args).arg("--db").arg(&db).output().expect("run clmap");
        assert!(out.status.success(), "clmap {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let path = csv.to_string_lossy().into_owned();
    assert!(clmap(&["db", "import-aristotle", &path]).contains("1386 new"));
    assert!(clmap(&["db", "import-aristotle", &path]).contains("0 new"));
    assert_eq!(clmap(&["db", "devices"]).lines().count(), 7);

    let tables: serde_json::Value =
        serde_json::from_str(&clmap(&["db", "maps", "--device", "k20m", "--json"])).expect("json");
    let k20m = &tables[0];
    assert_eq!(k20m["records"].as_array().map(Vec::len), Some(198));
    assert_eq!(k20m["distribution"][0]["gain"], 20);
    assert_eq!(k20m["distribution"][0]["similar"], 13);

    let advice: serde_json::Value = serde_json::from_str(&clmap(&[
        "advise", "--device", "k20m", "--maps", "205,108", "--sizes", "2048", "--json",
    ]))
    .expect("json");
    assert_eq!(advice["advice"]["choices"][0]["use_local"], true);
    assert_eq!(advice["advice"]["choices"][1]["use_local"], false);

    let plots = dir.join("plots");
    clmap(&["db", "maps", "--device", "c1060", "--plot", &plots.to_string_lossy()]);
    assert!(plots.join("mbr-nvidia-tesla-c1060.svg").exists());
    assert!(plots.join("gain-comparison.svg").exists());

    let csv_out = clmap(&["db", "export", "--table", "aristotle_history", "--csv"]);
    assert_eq!(csv_out.lines().count(), 1387, "a header and one line per record");
}

/// `clmap bench compose` on PoCL, then `clmap db compose` on the same database: the accuracy
/// scored from the stored measurements must be the one the campaign reported, and a database
/// without composer measurements is an error that says what to run.
#[test]
fn compose_accuracy_is_scored_again_from_the_database() {
    if !opencl_or_skip() {
        return;
    }
    let dir = Scratch::new("compose");
    let db = dir.join("compose.db");
    let clmap = |args: &[&str]| {
        clmap_command()
            .args(args)
            .arg("--db")
            .arg(&db)
            .stdin(Stdio::null())
            .output()
            .expect("run clmap")
    };
    let json = |out: std::process::Output| -> serde_json::Value {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("json")
    };

    let empty = clmap(&["db", "compose", "--device", "cpu"]);
    assert!(!empty.status.success());
    assert!(String::from_utf8_lossy(&empty.stderr).contains("clmap bench"));

    assert!(campaign(&db).status().expect("MAP campaign").success());
    let measured = json(clmap(&[
        "bench",
        "compose",
        "--device",
        "cpu",
        "--pairs",
        "107:205,205:107",
        "--sizes",
        SIZES,
        "--reps",
        "3",
        "--json",
    ]));
    assert_eq!(measured["campaign"]["measured"], 6, "{measured:#}");
    let scored = json(clmap(&["db", "compose", "--device", "cpu", "--json"]));
    let device = &scored[0];
    assert_eq!(device["pairs"], 2);
    assert_eq!(device["measured_units"], 6);
    assert_eq!(device["accuracy"], measured["accuracy"]);
    assert_eq!(device["accuracy"][0]["tests"], 4, "two steps per pair: {device:#}");

    let text = clmap(&["db", "compose"]);
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("rule prediction accuracy"));
}
