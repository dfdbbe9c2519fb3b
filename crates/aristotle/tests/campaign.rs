//! The campaign engine with a scripted measurer: resumption, skips, validations and failures.

use clmap_aristotle::campaign::{self, Measurer, UnitFate};
use clmap_aristotle::store::{self, UnitKey, UnitResult, UnitSetup, Validation};
use clmap_db::{Database, DeviceIdentity};
use std::collections::BTreeMap;

/// Measures every unit with `reps` samples, except what it is told to skip, fail or find
/// different; counts what it is asked.
#[derive(Default)]
struct Scripted {
    reps: usize,
    skip_map: Option<u16>,
    fail_variant: Option<String>,
    differing_variant: Option<String>,
    validations: BTreeMap<(u16, String), usize>,
    measured: Vec<UnitKey>,
}

impl Measurer for Scripted {
    fn setup(&self) -> UnitSetup {
        UnitSetup { work_group: [16, 16], warmup: 1, flush_cache: true }
    }

    fn skip_reason(&mut self, key: &UnitKey) -> Option<String> {
        (Some(key.map) == self.skip_map).then(|| "too much local memory".to_string())
    }

    fn validate(&mut self, map: u16, variant: &str, dataset: usize) -> Result<Validation, String> {
        *self.validations.entry((map, variant.to_string())).or_default() += 1;
        let equal = self.differing_variant.as_deref() != Some(variant);
        Ok(Validation { equal, dataset, detail: String::new() })
    }

    fn measure(&mut self, key: &UnitKey) -> UnitResult {
        self.measured.push(key.clone());
        if self.fail_variant.as_deref() == Some(key.variant.as_str()) {
            return UnitResult::Failed { reason: "launch failed".into() };
        }
        UnitResult::Measured { bytes_moved: 1 << 20, samples_ns: vec![1000; self.reps] }
    }
}

fn fresh() -> (Database, i64) {
    let db = Database::in_memory().expect("db");
    let id = db
        .device_id(&DeviceIdentity {
            kind: "cpu".into(),
            platform: "scripted".into(),
            name: "scripted device".into(),
            vendor: "test".into(),
            driver: "1".into(),
            details: serde_json::json!({}),
        })
        .expect("device");
    (db, id)
}

fn variants() -> Vec<String> {
    ["nolocal", "max", "min"].map(String::from).to_vec()
}

#[test]
fn a_stopped_campaign_resumes_where_it_stopped() {
    let (mut db, dev) = fresh();
    let units = campaign::plan(&[107, 205], &variants(), &[128, 256]);
    assert_eq!(units.len(), 12);
    // Datasets first: the first six units are all of dataset 128.
    assert!(units.iter().take(6).all(|u| u.dataset == 128));

    let mut first = Scripted { reps: 20, ..Scripted::default() };
    let summary =
        campaign::run(&mut db, dev, &units[..5], &mut first, None, &mut |_| {}).expect("run");
    assert_eq!((summary.measured, summary.samples), (5, 100));

    let mut fates = Vec::new();
    let mut second = Scripted { reps: 20, ..Scripted::default() };
    let summary =
        campaign::run(&mut db, dev, &units, &mut second, None, &mut |p| fates.push(p.fate))
            .expect("rerun");
    assert_eq!((summary.resumed, summary.measured), (5, 7));
    assert_eq!(fates.iter().filter(|f| **f == UnitFate::Resumed).count(), 5);
    assert_eq!(second.measured, units[5..].to_vec(), "only the missing units are measured");
    // One validation per (MAP, local variant) across both runs: 107/max and 107/min were
    // validated in the first run, the rest in the second.
    assert!(second.validations.values().all(|&n| n == 1));
    assert!(!second.validations.contains_key(&(107, "max".to_string())));
    let stored = store::units(&db, dev).expect("units");
    assert_eq!(stored.len(), 12);
    assert!(stored.iter().all(|u| u.samples == 20));
}

#[test]
fn skips_and_differing_outputs_are_recorded_and_not_retried_failures_are() {
    let (mut db, dev) = fresh();
    let units = campaign::plan(&[107, 205], &variants(), &[128]);
    let mut m = Scripted {
        reps: 3,
        skip_map: Some(205),
        fail_variant: Some("min".into()),
        differing_variant: Some("max".into()),
        ..Scripted::default()
    };
    let s = campaign::run(&mut db, dev, &units, &mut m, None, &mut |_| {}).expect("run");
    // 107: nolocal measured, max differs (skipped), min fails; 205: all three skipped.
    assert_eq!((s.measured, s.skipped, s.failed), (1, 4, 1));
    let check = store::validation(&db, dev, 107, "max").expect("query").expect("recorded");
    assert!(!check.equal);

    let mut again = Scripted { reps: 3, ..Scripted::default() };
    let s = campaign::run(&mut db, dev, &units, &mut again, None, &mut |_| {}).expect("rerun");
    assert_eq!((s.resumed, s.measured), (5, 1), "only the failed unit is retried");
    let min = store::units(&db, dev)
        .expect("units")
        .into_iter()
        .find(|u| u.key.map == 107 && u.key.variant == "min")
        .expect("unit");
    assert_eq!((min.status.as_str(), min.samples), ("measured", 3));
}

#[test]
fn a_deadline_leaves_the_rest_for_later() {
    let (mut db, dev) = fresh();
    let units = campaign::plan(&[107], &variants(), &[128]);
    let mut m = Scripted { reps: 2, ..Scripted::default() };
    let s =
        campaign::run(&mut db, dev, &units, &mut m, Some(std::time::Duration::ZERO), &mut |_| {})
            .expect("run");
    assert_eq!((s.measured, s.left_for_later), (0, 3));
    assert!(store::units(&db, dev).expect("units").is_empty());
}
