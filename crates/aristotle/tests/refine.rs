//! The advisor's refinement on a modelled device: a launch-bound record triggers measurements
//! on scaled datasets that then decide, a tie is measured again in alternating rounds and
//! decided on the pooled samples, and both resume from the database.

use std::time::Duration;

use clmap_aristotle::campaign::Measurer;
use clmap_aristotle::map::{map_by_id, MapId};
use clmap_aristotle::refine::{self, Question, RefineSettings, Refinement};
use clmap_aristotle::store::{self, UnitKey, UnitResult, UnitSetup, Validation};
use clmap_aristotle::workload_advice::{self, Placement, Provenance, Questions, StagingQuestion};
use clmap_aristotle::{query, rules};
use clmap_db::{Database, DeviceIdentity};

/// A device whose kernel time is a launch plus work proportional to the dataset's cells; the
/// staged variant does the work `speedup` times faster. Samples vary by ±`jitter` (relative),
/// deterministically.
struct Modelled {
    work_group: [usize; 2],
    launch_ns: f64,
    ns_per_cell: f64,
    speedup: f64,
    jitter: f64,
    samples: u32,
    state: u64,
    /// Every timing asked for: (variant, dataset, samples).
    calls: Vec<(String, usize, u32)>,
}

impl Modelled {
    fn new(launch_ns: f64, ns_per_cell: f64, speedup: f64, jitter: f64) -> Modelled {
        Modelled {
            work_group: [32, 8],
            launch_ns,
            ns_per_cell,
            speedup,
            jitter,
            samples: 20,
            state: 12345,
            calls: Vec::new(),
        }
    }

    fn next_unit(&mut self) -> f64 {
        self.state = self.state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.state >> 11) as f64) / ((1u64 << 53) as f64)
    }

    fn time(&mut self, key: &UnitKey, samples: u32) -> UnitResult {
        self.calls.push((key.variant.clone(), key.dataset, samples));
        let cells = (key.dataset * key.dataset) as f64;
        let work = cells * self.ns_per_cell
            / if key.variant == query::NO_LOCAL_VARIANT { 1.0 } else { self.speedup };
        let mean = self.launch_ns + work;
        let samples_ns = (0..samples)
            .map(|_| {
                let wobble = 1.0 + self.jitter * (2.0 * self.next_unit() - 1.0);
                (mean * wobble).round() as u64
            })
            .collect();
        UnitResult::Measured { bytes_moved: (cells * 4.0) as u64, samples_ns }
    }
}

impl Measurer for Modelled {
    fn setup(&self) -> UnitSetup {
        UnitSetup { work_group: self.work_group, warmup: 1, flush_cache: false }
    }

    fn skip_reason(&mut self, _key: &UnitKey) -> Option<String> {
        None
    }

    fn validate(
        &mut self,
        _map: u16,
        _variant: &str,
        dataset: usize,
    ) -> Result<Validation, String> {
        Ok(Validation { equal: true, dataset, detail: String::new() })
    }

    fn measure(&mut self, key: &UnitKey) -> UnitResult {
        let samples = self.samples;
        self.time(key, samples)
    }

    fn measure_samples(&mut self, key: &UnitKey, samples: u32) -> UnitResult {
        self.time(key, samples)
    }
}

fn fresh() -> (Database, i64) {
    let db = Database::in_memory().expect("db");
    store::ensure_schema(&db).expect("schema");
    let id = db
        .device_id(&DeviceIdentity {
            kind: "gpu".into(),
            platform: "modelled".into(),
            name: "modelled device".into(),
            vendor: "test".into(),
            driver: "1".into(),
            details: serde_json::json!({}),
        })
        .expect("device");
    (db, id)
}

fn settings(multiple: f64) -> RefineSettings {
    RefineSettings {
        reference_variant: query::NO_LOCAL_VARIANT.into(),
        local_variant: query::STAGED_VARIANT.into(),
        delta: query::DEFAULT_DELTA,
        launch_multiple: multiple,
        max_dataset: 2048,
        pool_to: 60,
        pool_time: Duration::from_secs(60),
        deadline: None,
    }
}

/// The question's own b and B, as the advisor's campaign takes them first.
fn own_units(db: &mut Database, dev: i64, q: Question, measurer: &mut Modelled) {
    let keys: Vec<UnitKey> = [query::NO_LOCAL_VARIANT, query::STAGED_VARIANT]
        .iter()
        .map(|v| UnitKey { map: q.map, variant: v.to_string(), dataset: q.dataset })
        .collect();
    clmap_aristotle::campaign::run(db, dev, &keys, measurer, None, &mut |_| {}).expect("campaign");
}

/// The advice for one buffer of `q`'s MAP from what the database holds.
fn advice(db: &Database, dev: i64, q: Question, multiple: f64) -> workload_advice::BufferAdvice {
    let device = db.devices().expect("devices").into_iter().find(|d| d.id == dev).expect("dev");
    let table = query::map_table(db, &device, query::STAGED_VARIANT).expect("table");
    let questions = Questions {
        asked: vec![StagingQuestion {
            kernel: "k".into(),
            buffer: "B".into(),
            map: map_by_id(MapId(q.map)).expect("MAP"),
            staged_now: false,
            dataset: q.dataset,
            work_group: q.work_group,
            local_bytes: 1024,
            not_staged: None,
            reuse: None,
            partner: None,
            unpaired: None,
        }],
        undetected: Vec::new(),
    };
    let provenance = Provenance {
        units: store::units(db, dev).expect("units"),
        launch_multiple: multiple,
        ..Provenance::default()
    };
    let mut a = workload_advice::advise(
        &table,
        &questions,
        Some(48 * 1024),
        query::DEFAULT_DELTA,
        &provenance,
    );
    a.buffers.remove(0)
}

#[test]
fn a_launch_bound_record_is_measured_on_scaled_datasets_that_then_decide() {
    // An 8 µs launch: at N = 64 the kernel as written takes 10 µs and the staged one 9.4 µs,
    // within the runs' ±20 % spread; the pattern (staging does the work 1.5× faster) shows
    // only once the work outweighs the launch.
    let (mut db, dev) = fresh();
    let q = Question { map: 302, dataset: 64, work_group: [32, 8] };
    let mut device = Modelled::new(8000.0, 0.5, 1.5, 0.2);
    own_units(&mut db, dev, q, &mut device);
    let own = advice(&db, dev, q, refine::LAUNCH_MULTIPLE);
    assert_eq!(own.advice, Some(Placement::Global), "{}", own.reasoning);
    assert!(own.scaled.is_none());

    let s = settings(refine::LAUNCH_MULTIPLE);
    let units = store::units(&db, dev).expect("units");
    assert!(refine::pending(&units, q, &s));
    let done = refine::refine(&mut db, dev, q, &mut device, &s, &mut |_| {}).expect("refine");
    // The launch's cost on one work-group, then twice the side until b ≥ 4 launches: at
    // N = 256 the kernel as written takes 8 + 32.8 µs, over 4 × 8.5 µs.
    assert_eq!(done[0], Refinement::Floor { map: 302, dataset: 32, work_group: [32, 8] });
    let scaled: Vec<usize> = done
        .iter()
        .filter_map(|r| match r {
            Refinement::Scaled { to, .. } => Some(*to),
            _ => None,
        })
        .collect();
    assert_eq!(scaled, [128, 256]);
    // Every scaled unit is stored with its real dataset and work-group.
    let units = store::units(&db, dev).expect("units");
    for n in [128, 256] {
        for v in [query::NO_LOCAL_VARIANT, query::STAGED_VARIANT] {
            assert!(
                units.iter().any(|u| u.key.dataset == n
                    && u.key.variant == v
                    && u.work_group == [32, 8]
                    && u.status == "measured"),
                "{v} at {n}"
            );
        }
    }
    assert!(!units.iter().any(|u| u.key.dataset == 512), "scaled past what was needed");

    // The rules now take the N = 256 record and stage the buffer, and say why.
    let scaled_advice = advice(&db, dev, q, refine::LAUNCH_MULTIPLE);
    assert_eq!(scaled_advice.advice, Some(Placement::Local), "{}", scaled_advice.reasoning);
    let why = scaled_advice.scaled.as_ref().expect("scaled");
    assert_eq!((why.own_dataset, why.floor_dataset), (64, 32));
    assert!(why.b_ns >= refine::LAUNCH_MULTIPLE * why.floor_ns);
    assert!(
        scaled_advice.reasoning.contains("the record at N = 256"),
        "{}",
        scaled_advice.reasoning
    );
    assert_eq!(scaled_advice.measurements[0].dataset, 256);
    assert_eq!(scaled_advice.dataset, Some(64), "the buffer is still asked about at its size");
    // Without the multiple, the buffer's own (launch-bound) record decides again.
    assert_eq!(advice(&db, dev, q, 0.0).advice, Some(Placement::Global));

    // A second run measures nothing: everything is in the database.
    let calls = device.calls.len();
    let units = store::units(&db, dev).expect("units");
    assert!(!refine::pending(&units, q, &s));
    let again = refine::refine(&mut db, dev, q, &mut device, &s, &mut |_| {}).expect("refine");
    assert!(again.is_empty(), "{again:?}");
    assert_eq!(device.calls.len(), calls);
}

#[test]
fn scaling_stops_at_the_devices_memory_bound() {
    let (mut db, dev) = fresh();
    let q = Question { map: 302, dataset: 64, work_group: [32, 8] };
    let mut device = Modelled::new(8000.0, 0.5, 1.5, 0.0);
    own_units(&mut db, dev, q, &mut device);
    let s = RefineSettings { max_dataset: 128, ..settings(refine::LAUNCH_MULTIPLE) };
    refine::refine(&mut db, dev, q, &mut device, &s, &mut |_| {}).expect("refine");
    let largest = device.calls.iter().map(|c| c.1).max();
    assert_eq!(largest, Some(128));
    // The largest record there is decides, and the advice says it is still launch-bound-ish
    // through the times it reports.
    let a = advice(&db, dev, q, refine::LAUNCH_MULTIPLE);
    assert_eq!(
        a.scaled.as_ref().map(|s| (s.own_dataset, a.measurements[0].dataset)),
        Some((64, 128))
    );
}

#[test]
fn a_tie_is_measured_again_in_alternating_rounds_and_decided_on_the_pooled_samples() {
    // No launch to speak of and a true gain of ×1.10 behind ±30 % noise: 20 samples a side
    // cannot tell it from a tie, 60 a side can.
    let (mut db, dev) = fresh();
    let q = Question { map: 205, dataset: 256, work_group: [32, 8] };
    let mut device = Modelled::new(100.0, 1.0, 1.10, 0.3);
    own_units(&mut db, dev, q, &mut device);
    let before = advice(&db, dev, q, refine::LAUNCH_MULTIPLE);
    assert_eq!(before.advice, Some(Placement::Global), "{}", before.reasoning);
    assert!(
        before.reasoning.contains("similar") || before.reasoning.contains("tie"),
        "{}",
        before.reasoning
    );

    let s = settings(refine::LAUNCH_MULTIPLE);
    let first_calls = device.calls.len();
    let done = refine::refine(&mut db, dev, q, &mut device, &s, &mut |_| {}).expect("refine");
    assert!(
        done.contains(&Refinement::Pooled {
            map: 205,
            dataset: 256,
            work_group: [32, 8],
            before: [20, 20],
            after: [60, 60],
        }),
        "{done:?}"
    );
    // The re-measurement alternates b and B in rounds of ROUND_SAMPLES.
    let rounds: Vec<&(String, usize, u32)> =
        device.calls[first_calls..].iter().filter(|c| c.1 == 256).collect();
    assert_eq!(rounds.len(), 8);
    for (i, call) in rounds.iter().enumerate() {
        let expected = if i % 2 == 0 { query::NO_LOCAL_VARIANT } else { query::STAGED_VARIANT };
        assert_eq!((call.0.as_str(), call.2), (expected, refine::ROUND_SAMPLES));
    }
    // Every sample is kept, and the pooled means decide.
    let units = store::units(&db, dev).expect("units");
    let pooled =
        refine::record_of(&units, 205, 256, [32, 8], query::STAGED_VARIANT).expect("record");
    assert_eq!(pooled.samples, Some([60, 60]));
    assert!(rules::relative_noise(&pooled) < 0.08, "{}", rules::relative_noise(&pooled));
    let after = advice(&db, dev, q, refine::LAUNCH_MULTIPLE);
    assert_eq!(after.advice, Some(Placement::Local), "{}", after.reasoning);
    assert!(after.reasoning.contains("pooled samples"), "{}", after.reasoning);
    // Resumed: nothing is measured again.
    assert!(!refine::pending(&units, q, &s));
}

#[test]
fn without_a_launch_multiple_only_ties_are_measured_again() {
    let (mut db, dev) = fresh();
    let q = Question { map: 302, dataset: 64, work_group: [32, 8] };
    let mut device = Modelled::new(8000.0, 0.5, 1.5, 0.2);
    own_units(&mut db, dev, q, &mut device);
    let done =
        refine::refine(&mut db, dev, q, &mut device, &settings(0.0), &mut |_| {}).expect("refine");
    // The launch-bound tie at N = 64 is pooled where it is: no floor, no scaled dataset.
    assert!(
        matches!(done.as_slice(), [Refinement::Pooled { dataset: 64, after: [60, 60], .. }]),
        "{done:?}"
    );
    assert!(device.calls.iter().all(|c| c.1 == 64));
}

#[test]
fn a_true_tie_stays_a_tie_after_the_pooled_samples() {
    let (mut db, dev) = fresh();
    let q = Question { map: 205, dataset: 256, work_group: [32, 8] };
    let mut device = Modelled::new(100.0, 1.0, 1.0, 0.2);
    own_units(&mut db, dev, q, &mut device);
    let s = settings(refine::LAUNCH_MULTIPLE);
    refine::refine(&mut db, dev, q, &mut device, &s, &mut |_| {}).expect("refine");
    let units = store::units(&db, dev).expect("units");
    let pooled =
        refine::record_of(&units, 205, 256, [32, 8], query::STAGED_VARIANT).expect("record");
    assert_eq!(pooled.samples, Some([60, 60]));
    let a = advice(&db, dev, q, refine::LAUNCH_MULTIPLE);
    assert_eq!(a.advice, Some(Placement::Global), "{}", a.reasoning);
    assert_eq!(a.expected_gain, Some(1.0));
}

#[test]
fn a_decisive_record_is_neither_scaled_nor_measured_again() {
    let (mut db, dev) = fresh();
    let q = Question { map: 205, dataset: 256, work_group: [32, 8] };
    let mut device = Modelled::new(100.0, 1.0, 2.0, 0.02);
    own_units(&mut db, dev, q, &mut device);
    let s = settings(refine::LAUNCH_MULTIPLE);
    let done = refine::refine(&mut db, dev, q, &mut device, &s, &mut |_| {}).expect("refine");
    // Only the launch's cost is taken; the record is far above it and far from a tie.
    assert_eq!(done, [Refinement::Floor { map: 205, dataset: 32, work_group: [32, 8] }]);
    assert_eq!(advice(&db, dev, q, refine::LAUNCH_MULTIPLE).advice, Some(Placement::Local));
}

#[test]
fn past_its_deadline_the_refinement_leaves_the_rest_for_a_later_run() {
    let (mut db, dev) = fresh();
    let q = Question { map: 302, dataset: 64, work_group: [32, 8] };
    let mut device = Modelled::new(8000.0, 0.5, 1.5, 0.2);
    own_units(&mut db, dev, q, &mut device);
    let late = RefineSettings {
        deadline: Some(std::time::Instant::now()),
        ..settings(refine::LAUNCH_MULTIPLE)
    };
    let done = refine::refine(&mut db, dev, q, &mut device, &late, &mut |_| {}).expect("refine");
    // Only the launch's cost is taken; the scaled datasets wait.
    assert_eq!(done, [Refinement::Floor { map: 302, dataset: 32, work_group: [32, 8] }]);
    let units = store::units(&db, dev).expect("units");
    assert!(refine::pending(&units, q, &late));
    // The next run, in time, goes on from there.
    let s = settings(refine::LAUNCH_MULTIPLE);
    let done = refine::refine(&mut db, dev, q, &mut device, &s, &mut |_| {}).expect("refine");
    assert!(matches!(done[0], Refinement::Scaled { from: 64, to: 128, .. }), "{done:?}");
}
