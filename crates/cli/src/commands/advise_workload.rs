//! `clmap advise WORKLOAD`: the buffers' MAPs detected, the measurements the composing rules
//! need taken where the database lacks them, and the rules' advice per buffer.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use clmap_aristotle::campaign::{self, UnitFate};
use clmap_aristotle::campaign_device::DeviceMeasurer;
use clmap_aristotle::campaign_progress::CampaignProgress;
use clmap_aristotle::detect::detect;
use clmap_aristotle::store::{self, UnitKey};
use clmap_aristotle::workload_advice::{
    self, BufferAdvice, NeededUnit, Placement, Provenance, Questions, TileSizing, WorkloadAdvice,
};
use clmap_aristotle::{query, refine, rules, Variant};
use clmap_db::{Database, DeviceRecord};
use clmap_exec::PreparedWorkload;

use crate::commands::advise::Args;
use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use crate::perf_db::{db_error, select_devices};

pub(crate) fn run(args: &Args, path: &Path) -> Result<Status, CliError> {
    let prepared = crate::workload_args::prepare(path)?;
    let (device, questions, advice) = advice(args, &prepared)?;
    if args.json {
        print_json(&device, &advice)?;
    } else {
        // `advice` checked the variant already.
        let variant = local_variant(args).map(|(name, _)| name).unwrap_or_default();
        print_text(path, &device, &questions, &advice, &variant);
    }
    Ok(Status::Success)
}

/// The advice for a prepared workload on the device `args` names, measuring first what the
/// database lacks unless `--no-measure` (`clmap tune` asks through here too).
pub(crate) fn advice(
    args: &Args,
    prepared: &PreparedWorkload,
) -> Result<(DeviceRecord, Questions, WorkloadAdvice), CliError> {
    let (local_variant, sizing) = local_variant(args)?;
    let local_variant = local_variant.as_str();
    let detections = detect(prepared.module(), prepared.workload(), prepared.sources());
    let mut questions = workload_advice::questions(&detections, sizing, args.interleaved);
    let mut db = args.db.open()?;
    let db_path = args.db.file.clone().unwrap_or_else(clmap_db::default_path);
    let known = known_device(&db, &args.device)?;
    // The 2014 history cannot be measured again: its nearest datasets stand in.
    let historical = known.as_ref().is_some_and(|d| d.identity.kind == "historical");
    let may_open = !(historical || args.no_measure || args.nearest);
    if let Some(simd) = simd_width(args, known.as_ref(), may_open) {
        workload_advice::split_by_warps(&mut questions, simd);
    }
    let needed = workload_advice::needed_units(&questions.asked, local_variant);
    // With --nearest nothing is measured: the rules take the nearest records there are.
    let mut missing = match (&known, historical || args.nearest) {
        (_, true) => Vec::new(),
        (Some(device), false) => pending(&db, device.id, &needed)?,
        (None, false) => needed.clone(),
    };
    if args.no_measure {
        // An interleaved pair the database lacks leaves its buffer to the single-MAP record
        // (the advice says so): only those records are required.
        missing.retain(|u| clmap_aristotle::InterleavedVersion::parse(&u.key.variant).is_none());
    }
    let mut measured_now = BTreeSet::new();
    let device = if missing.is_empty() {
        match known {
            Some(device) => device,
            // Nothing needed and no device: the error lists the devices there are.
            None if args.no_measure || args.nearest => select_devices(&db, &args.device)?.remove(0),
            // No buffer to measure for (no MAP detected): the OpenCL device is recorded so
            // that the answer names it.
            None => measure(&mut db, args, None, &needed)?.0,
        }
    } else if args.no_measure {
        return Err(CliError::BadInput(missing_message(
            args,
            known.as_ref(),
            &missing,
            &db_path.display().to_string(),
        )));
    } else {
        let is_pair = |u: &NeededUnit| clmap_aristotle::InterleavedVersion::parse(&u.key.variant);
        let only_pairs = missing.iter().all(|u| is_pair(u).is_some());
        match (measure(&mut db, args, known.clone(), &needed), known) {
            (Ok((device, fresh)), _) => {
                measured_now = fresh;
                device
            }
            // Interleaved pairs refine the advice; without the OpenCL device the single-MAP
            // records there are still decide.
            (Err(e), Some(device)) if only_pairs => {
                eprintln!(
                    "advisor: {} interleaved pair version(s) are not in the database and cannot \
                     be measured ({e}); their buffers are judged by their single-MAP records",
                    missing.len()
                );
                device
            }
            (Err(e), _) => return Err(e),
        }
    };
    if !(historical || args.no_measure || args.nearest) {
        let refined = refine_questions(&mut db, args, &device, &questions, local_variant)?;
        measured_now.extend(refined);
    }
    let table = query::map_table(&db, &device, local_variant).map_err(db_error)?;
    let provenance = Provenance {
        launch_multiple: args.launch_multiple.max(0.0),
        historical,
        units: if historical {
            Vec::new()
        } else {
            store::units(&db, device.id).map_err(db_error)?
        },
        measured_now,
    };
    let capacity = args
        .local_capacity
        .or_else(|| device.identity.details.get("local_mem_bytes").and_then(|v| v.as_u64()));
    let advice = workload_advice::advise(&table, &questions, capacity, args.delta, &provenance);
    Ok((device, questions, advice))
}

/// The variant B comes from (`stage` unless `--local-variant` names another) and how its tile
/// sizes a buffer's local memory.
fn local_variant(args: &Args) -> Result<(String, TileSizing), CliError> {
    let name = args.local_variant.as_deref().unwrap_or(query::STAGED_VARIANT).trim();
    if name.eq_ignore_ascii_case(query::STAGED_VARIANT) {
        return Ok((query::STAGED_VARIANT.to_string(), TileSizing::Stager));
    }
    let variant: Variant = name.parse().map_err(|e| {
        CliError::BadInput(format!("--local-variant: {e} (or {})", query::STAGED_VARIANT))
    })?;
    if !variant.uses_local_memory() {
        return Err(CliError::BadInput(format!(
            "--local-variant: `{name}` uses no local memory; B must come from one that does"
        )));
    }
    Ok((variant.as_str().to_string(), TileSizing::Generated(variant)))
}

/// The measurements that let each question's record decide (the launch's cost, scaled
/// datasets where the record is launch-bound, ties measured again), taken on the OpenCL
/// device only when the database lacks some; returns the units measured.
fn refine_questions(
    db: &mut Database,
    args: &Args,
    device: &DeviceRecord,
    questions: &Questions,
    local_variant: &str,
) -> Result<BTreeSet<NeededUnit>, CliError> {
    // Each question with the variants of its b and B: the single MAP's, and an interleaved
    // pair's two versions where the buffer has a partner (never scaled: the pair is measured
    // at the kernel's own dataset only).
    let mut asked: Vec<(refine::Question, String, String)> = Vec::new();
    for q in questions.asked.iter().filter(|q| q.not_staged.is_none()) {
        let question =
            refine::Question { map: q.map.id().0, dataset: q.dataset, work_group: q.work_group };
        asked.push((question, query::NO_LOCAL_VARIANT.to_string(), local_variant.to_string()));
        let pair = q.interleaved_versions().filter(|_| local_variant == query::STAGED_VARIANT);
        if let (Some([reference, staged]), Some(partner)) = (pair, &q.partner) {
            let question = refine::Question { dataset: partner.dataset, ..question };
            asked.push((question, reference.variant(), staged.variant()));
        }
    }
    asked.sort_unstable();
    asked.dedup();
    let mut settings = refine::RefineSettings {
        reference_variant: query::NO_LOCAL_VARIANT.to_string(),
        local_variant: local_variant.to_string(),
        delta: args.delta,
        // A multiple of 0 scales nothing: no record is under it.
        launch_multiple: args.launch_multiple.max(0.0),
        max_dataset: refine::MAX_SCALED_DATASET,
        pool_to: if args.pool_seconds > 0.0 {
            rules::POOLED_SAMPLES.max(3 * (args.reps as usize - 1))
        } else {
            0
        },
        pool_time: Duration::from_secs_f64(args.pool_seconds.clamp(0.0, 3600.0)),
        deadline: None,
    };
    let settings_for = |reference: &str, local: &str, settings: &refine::RefineSettings| {
        let pair = reference != query::NO_LOCAL_VARIANT;
        refine::RefineSettings {
            reference_variant: reference.to_string(),
            local_variant: local.to_string(),
            launch_multiple: if pair { 0.0 } else { settings.launch_multiple },
            ..settings.clone()
        }
    };
    let units = store::units(db, device.id).map_err(db_error)?;
    let waiting: Vec<(refine::Question, String, String)> = asked
        .into_iter()
        .filter(|(q, b, big_b)| refine::pending(&units, *q, &settings_for(b, big_b, &settings)))
        .collect();
    if waiting.is_empty() {
        return Ok(BTreeSet::new());
    }
    let opencl = match clmap_device::select_device(&args.device) {
        Ok(d) => d,
        Err(e) => {
            eprintln!(
                "advisor: {} record(s) could be refined (launch-bound or tied) but the OpenCL \
                 device cannot be opened ({e}); advising from the records there are",
                waiting.len()
            );
            return Ok(BTreeSet::new());
        }
    };
    let identity = crate::device_identity::device_identity(opencl.info());
    if db.device_id(&identity).map_err(db_error)? != device.id {
        eprintln!(
            "advisor: the OpenCL device {} is not #{} {}; its records are not refined",
            opencl.info().name,
            device.id,
            device.label()
        );
        return Ok(BTreeSet::new());
    }
    let info = opencl.info();
    settings.max_dataset = refine::max_dataset(info.max_mem_alloc_bytes, info.global_mem_bytes);
    settings.deadline = (args.refine_seconds > 0.0)
        .then(|| Instant::now() + Duration::from_secs_f64(args.refine_seconds.min(86_400.0)));
    let mut measured = BTreeSet::new();
    for (q, reference, local) in waiting {
        let settings = settings_for(&reference, &local, &settings);
        let mut measurer = DeviceMeasurer::new(&opencl, q.work_group, args.reps, !args.no_flush)
            .with_rewrite(
                query::STAGED_VARIANT,
                crate::commands::bench::staged_microbenchmark(info.local_mem_bytes),
            )
            .with_buffer_stager(crate::commands::bench::buffer_stager(info.local_mem_bytes));
        let [x, y] = q.work_group;
        let mut report = |r: &refine::Refinement| {
            let line = match r {
                refine::Refinement::Floor { dataset, .. } => {
                    measured.insert(NeededUnit {
                        key: store::UnitKey {
                            map: q.map,
                            variant: query::NO_LOCAL_VARIANT.into(),
                            dataset: *dataset,
                        },
                        work_group: q.work_group,
                    });
                    format!("launch cost: MAP-{} on one work-group (N = {dataset})", q.map)
                }
                refine::Refinement::Scaled { from, to, .. } => {
                    for variant in [reference.as_str(), local.as_str()] {
                        measured.insert(NeededUnit {
                            key: store::UnitKey {
                                map: q.map,
                                variant: variant.into(),
                                dataset: *to,
                            },
                            work_group: q.work_group,
                        });
                    }
                    format!("launch-bound at N = {from}: MAP-{} measured at N = {to}", q.map)
                }
                refine::Refinement::Pooled { dataset, before, after, .. } => format!(
                    "tie at N = {dataset}: MAP-{} {reference} and {local} measured again, \
                     samples {}+{} → {}+{}",
                    q.map, before[0], before[1], after[0], after[1]
                ),
            };
            eprintln!("  advisor, MAP-{} N = {} on {x}x{y}: {line}", q.map, q.dataset);
        };
        refine::refine(db, device.id, q, &mut measurer, &settings, &mut report)
            .map_err(|e| CliError::BadInput(format!("the performance database: {e}")))?;
    }
    Ok(measured)
}

/// The device's warp (SIMD) width: `--simd-width`, else the database's record of the device,
/// else, where the command may open it, the OpenCL device's own answer; none when nothing
/// says (a device recorded before the width was kept, with `--nearest`).
fn simd_width(args: &Args, known: Option<&DeviceRecord>, may_open: bool) -> Option<usize> {
    if let Some(width) = args.simd_width {
        return Some(width as usize);
    }
    let recorded = known
        .and_then(|d| d.identity.details.get("simd_width"))
        .and_then(|v| v.as_u64())
        .filter(|&w| w > 0);
    if let Some(width) = recorded {
        return usize::try_from(width).ok();
    }
    if !may_open {
        return None;
    }
    let device = clmap_device::select_device(&args.device).ok()?;
    device.info().simd_width.map(|w| w as usize)
}

/// The one database device the selector names, or none; several is an error.
fn known_device(db: &Database, selector: &str) -> Result<Option<DeviceRecord>, CliError> {
    let mut found = db.find_devices(selector).map_err(db_error)?;
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        _ => {
            let names: Vec<String> =
                found.iter().map(|d| format!("#{} {}", d.id, d.label())).collect();
            Err(CliError::BadInput(format!(
                "`{selector}` matches several devices in the database: {}; pick one by id (`#N`)",
                names.join(", ")
            )))
        }
    }
}

/// The needed units the database does not hold yet (measured or skipped) for the device.
fn pending(
    db: &Database,
    device_id: i64,
    needed: &[NeededUnit],
) -> Result<Vec<NeededUnit>, CliError> {
    let mut out = Vec::new();
    for unit in needed {
        if !store::unit_done(db, device_id, &unit.key, unit.work_group).map_err(db_error)? {
            out.push(unit.clone());
        }
    }
    Ok(out)
}

fn missing_message(
    args: &Args,
    known: Option<&DeviceRecord>,
    missing: &[NeededUnit],
    db_path: &str,
) -> String {
    let whose = match known {
        Some(d) => format!("#{} {}", d.id, d.label()),
        None => format!("`{}` (no device in the database matches it)", args.device),
    };
    let mut text = format!(
        "--no-measure: the performance database {db_path} lacks {} measurement(s) the advice \
         needs on {whose}:\n",
        missing.len()
    );
    for unit in missing {
        let [x, y] = unit.work_group;
        text.push_str(&format!(
            "  MAP-{} {} at N = {} ({x}x{y} work-groups)\n",
            unit.key.map, unit.key.variant, unit.key.dataset
        ));
    }
    text.push_str("take them with:\n");
    for command in workload_advice::bench_commands(missing, &args.device, db_path) {
        text.push_str(&format!("  {command}\n"));
    }
    text.push_str("or run the same `clmap advise` without --no-measure, which takes them first");
    text
}

/// Opens the OpenCL device, checks it is the database's device the selector named (if any),
/// and runs a campaign of the needed units not done yet, one per work-group shape.
fn measure(
    db: &mut Database,
    args: &Args,
    known: Option<DeviceRecord>,
    needed: &[NeededUnit],
) -> Result<(DeviceRecord, BTreeSet<NeededUnit>), CliError> {
    let device = clmap_device::select_device(&args.device).map_err(environment_error)?;
    let identity = crate::device_identity::device_identity(device.info());
    let device_id = db.device_id(&identity).map_err(db_error)?;
    if let Some(known) = &known {
        if known.id != device_id {
            return Err(CliError::BadInput(format!(
                "`{}` names #{} {} in the database but the OpenCL device {}: measurements must \
                 come from the device they are recorded for; name the device so that both agree",
                args.device,
                known.id,
                known.label(),
                device.info().name
            )));
        }
    }
    let missing = pending(db, device_id, needed)?;
    let maps: BTreeSet<u16> = missing.iter().map(|u| u.key.map).collect();
    let sizes: BTreeSet<usize> = missing.iter().map(|u| u.key.dataset).collect();
    if !missing.is_empty() {
        eprintln!(
            "measuring {} microbenchmark(s) the database lacks on {} (MAPs {}, N = {}); \
             finished ones are kept if this is interrupted",
            missing.len(),
            device.info().name,
            join(&maps),
            join(&sizes)
        );
    }
    let mut shapes: Vec<[usize; 2]> = missing.iter().map(|u| u.work_group).collect();
    shapes.sort_unstable();
    shapes.dedup();
    let mut measured_now = BTreeSet::new();
    for shape in shapes {
        let units: Vec<UnitKey> =
            missing.iter().filter(|u| u.work_group == shape).map(|u| u.key.clone()).collect();
        let local_mem = device.info().local_mem_bytes;
        let mut measurer = DeviceMeasurer::new(&device, shape, args.reps, !args.no_flush)
            .with_rewrite(
                query::STAGED_VARIANT,
                crate::commands::bench::staged_microbenchmark(local_mem),
            )
            .with_buffer_stager(crate::commands::bench::buffer_stager(local_mem));
        let bar = CampaignProgress::new(units.len(), &device.info().name);
        let summary = campaign::run(db, device_id, &units, &mut measurer, None, &mut |p| {
            bar.update(p);
            if p.fate == UnitFate::Measured {
                measured_now.insert(NeededUnit { key: p.unit.clone(), work_group: shape });
            }
        })
        .map_err(db_error)?;
        bar.finish();
        eprintln!(
            "  {}x{} work-groups: {} measured, {} skipped, {} failed in {:.1} s",
            shape[0],
            shape[1],
            summary.measured,
            summary.skipped,
            summary.failed,
            summary.elapsed_s
        );
        for failure in &summary.failures {
            eprintln!("  failed: {failure}");
        }
    }
    let record = db
        .devices()
        .map_err(db_error)?
        .into_iter()
        .find(|d| d.id == device_id)
        .ok_or_else(|| CliError::BadInput("the device vanished from the database".into()))?;
    Ok((record, measured_now))
}

fn join<T: ToString>(items: &BTreeSet<T>) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

fn print_json(device: &DeviceRecord, advice: &WorkloadAdvice) -> Result<(), CliError> {
    let mut entries = Vec::with_capacity(advice.buffers.len());
    for buffer in &advice.buffers {
        let mut value = serde_json::to_value(buffer)
            .map_err(|e| CliError::BadInput(format!("cannot encode the advice as JSON: {e}")))?;
        if let Some(object) = value.as_object_mut() {
            object.insert("device".into(), device.label().into());
            object.insert("delta".into(), advice.delta.into());
        }
        entries.push(value);
    }
    let text = serde_json::to_string_pretty(&entries)
        .map_err(|e| CliError::BadInput(format!("cannot encode the advice as JSON: {e}")))?;
    println!("{text}");
    Ok(())
}

fn print_text(
    path: &Path,
    device: &DeviceRecord,
    questions: &Questions,
    advice: &WorkloadAdvice,
    local_variant: &str,
) {
    println!(
        "{} on {} (δ = {}, B from the `{local_variant}` variant)",
        path.display(),
        device.label(),
        advice.delta
    );
    let mut kernel = None;
    for buffer in advice.buffers.iter().filter(|b| b.map.is_some()) {
        if kernel != Some(&buffer.kernel) {
            kernel = Some(&buffer.kernel);
            print_kernel_head(&buffer.kernel, advice);
        }
        print_buffer(buffer);
    }
    if !questions.undetected.is_empty() {
        println!("no MAP detected (no advice):");
        for u in &questions.undetected {
            println!("  {} in {}: {}", u.buffer, u.kernel, u.reason);
        }
    }
    if advice.buffers.is_empty() {
        println!("no kernel of the workload reads a __global buffer");
    }
}

fn print_kernel_head(kernel: &str, advice: &WorkloadAdvice) {
    let letters: Vec<&str> = advice
        .buffers
        .iter()
        .filter(|b| b.kernel == kernel && b.map.is_some())
        .map(|b| if b.advice == Some(Placement::Local) { "l" } else { "g" })
        .collect();
    let used = advice.local_bytes_used.iter().find(|(k, _)| k == kernel).map_or(0, |(_, b)| *b);
    let capacity =
        advice.local_capacity.map_or_else(|| "unknown".to_string(), |c| format!("{c} bytes"));
    println!(
        "kernel {kernel}: ({}), local memory {used} bytes per work-group of {capacity}",
        letters.join(", ")
    );
}

fn print_buffer(b: &BufferAdvice) {
    let map = b.map.as_deref().unwrap_or("?");
    let radius = b.radius.map(|r| format!(" R = {r}")).unwrap_or_default();
    let verdict = match (b.advice, b.staged_now) {
        (Some(Placement::Local), Some(true)) => "keep its __local staging",
        (Some(Placement::Local), _) => "stage in __local",
        (Some(Placement::Global), Some(true)) => "remove its __local staging (clmap unlocal)",
        (Some(Placement::Global), _) => "keep in __global",
        (None, _) => "no advice",
    };
    let gain = match b.expected_gain {
        Some(g) => format!("expected gain ×{g:.2}"),
        None => "no expected gain (no measurement)".to_string(),
    };
    println!(
        "  {}: {map}{radius}, N = {} → {verdict}; {gain}; rule {}",
        b.buffer,
        b.dataset.unwrap_or(0),
        b.rule.as_deref().unwrap_or("-")
    );
    println!("    {}", b.reasoning);
    if let Some(pair) = &b.interleaved {
        println!(
            "    decided by the interleaved pair {} × {} (loop `{}` with `{}`): {} against {}",
            pair.maps[0], pair.maps[1], pair.sweep, pair.with, pair.compared[1], pair.compared[0]
        );
    }
    for (k, m) in b.measurements.iter().enumerate() {
        // b first, then B (the single MAP's `nolocal` and local variant, or the pair's
        // versions with the buffer in global memory and staged).
        let name = if k == 0 { "b" } else { "B" };
        let samples = m.samples.map(|n| format!(", {n} samples")).unwrap_or_default();
        let shape = m.work_group.map(|[x, y]| format!(" on {x}x{y}")).unwrap_or_default();
        println!(
            "    {name} = {:.2} ± {:.2} GB/s: MAP-{} {} at N = {}{shape}{samples}, {}",
            m.bandwidth_gbs, m.std_gbs, m.map, m.variant, m.dataset, m.source
        );
    }
    if workload_advice::lacks_record(b) {
        println!("    (no measurement: run `clmap bench maps` for this MAP and size)");
    }
}
