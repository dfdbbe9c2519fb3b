//! The 2014 Aristotle performance database (seed 001, §6.4) as historical devices.
//!
//! The published file summarises each (platform, MAP, dataset) by the mean and standard
//! deviation of b and B, so it is stored as summaries in `aristotle_history`, not as samples.
//! Importing twice changes nothing: devices are keyed by identity and rows by (device, MAP,
//! dataset).

use crate::store;
use clmap_db::rusqlite::params;
use clmap_db::{Database, DbError, DeviceIdentity};
use serde::Serialize;
use std::collections::BTreeSet;

/// Why the 2014 file could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("line {line}: {message}")]
    Malformed { line: usize, message: String },
    #[error("the file has no header line `platform,map,n,b_mean,…`")]
    NoHeader,
    #[error(transparent)]
    Db(#[from] DbError),
}

/// One record of the 2014 file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryRecord {
    /// Short platform key of the file (`c1060`, `k20m`, `snb`, …).
    pub platform: String,
    /// MAP number.
    pub map: u16,
    /// Dataset side.
    pub dataset: usize,
    /// Bandwidth without local memory, mean and standard deviation (GB/s).
    pub b_mean: f64,
    pub b_std: f64,
    /// Bandwidth with local memory, mean and standard deviation (GB/s).
    pub big_b_mean: f64,
    pub big_b_std: f64,
    /// B_mean / b_mean.
    pub mbr_mean: f64,
    /// The ratio from the originally published tables (an earlier run), when given.
    pub mbr_file: Option<f64>,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportSummary {
    /// Platforms found, in file order of first appearance.
    pub platforms: Vec<String>,
    /// Records read.
    pub records: usize,
    /// Records that were not in the database before.
    pub inserted: usize,
}

/// The identity of a 2014 platform, from the file's short key (Table 4 of seed 001).
pub fn platform_identity(key: &str) -> DeviceIdentity {
    // Local memory per work-group as these devices' OpenCL drivers reported it (16 KiB of
    // shared memory on the C1060, 48 KiB on Fermi and Kepler, 32 KiB elsewhere), so the
    // composing rules' capacity check works on history too.
    const KIB: u64 = 1024;
    let (name, vendor, driver, kind, local) = match key {
        "c1060" => ("NVIDIA Tesla C1060", "NVIDIA", "CUDA 5.5", "gpu", 16 * KIB),
        "c2050" => ("NVIDIA Tesla C2050", "NVIDIA", "CUDA 5.5", "gpu", 48 * KIB),
        "k20m" => ("NVIDIA Tesla K20m", "NVIDIA", "CUDA 5.5", "gpu", 48 * KIB),
        "hd7970" => ("AMD HD7970", "AMD", "AMD APP 2.8", "gpu", 32 * KIB),
        "phi" => ("Intel Xeon Phi 5110P", "Intel", "Intel OpenCL SDK 3.0", "accelerator", 32 * KIB),
        "snb" => ("Intel Xeon E5-2620", "Intel", "Intel OpenCL SDK 3.0", "cpu", 32 * KIB),
        "x5650" => ("Intel Xeon X5650", "Intel", "Intel OpenCL SDK 3.0", "cpu", 32 * KIB),
        other => (other, "unknown", "unknown", "other", 0),
    };
    DeviceIdentity {
        kind: "historical".to_string(),
        platform: format!("aristotle-2014/{key}"),
        name: name.to_string(),
        vendor: vendor.to_string(),
        driver: driver.to_string(),
        details: serde_json::json!({
            "source": "Aristotle performance database, 2014",
            "class": kind,
            "local_mem_bytes": local,
        }),
    }
}

/// Parses the 2014 CSV text.
pub fn parse(text: &str) -> Result<Vec<HistoryRecord>, HistoryError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or(HistoryError::NoHeader)?;
    let columns: Vec<&str> = header.split(',').map(str::trim).collect();
    let position = |name: &str| columns.iter().position(|c| *c == name);
    let required = ["platform", "map", "n", "b_mean", "b_std", "B_mean", "B_std", "mbr_mean"];
    let mut at = Vec::with_capacity(required.len());
    for name in required {
        at.push(position(name).ok_or(HistoryError::NoHeader)?);
    }
    let mbr_file_at = position("mbr_file");
    let mut records = Vec::new();
    for (index, line) in lines {
        let line_no = index + 1;
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let malformed = |message: String| HistoryError::Malformed { line: line_no, message };
        let cell = |i: usize| -> Result<&str, HistoryError> {
            let column = at.get(i).copied().unwrap_or(usize::MAX);
            cells.get(column).copied().ok_or_else(|| malformed(format!("missing column {i}")))
        };
        let number = |i: usize| -> Result<f64, HistoryError> {
            let text = cell(i)?;
            text.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| malformed(format!("`{text}` is not a number")))
        };
        let map = cell(1)?.parse::<u16>().map_err(|_| {
            malformed(format!("`{}` is not a MAP number", cells.get(1).unwrap_or(&"")))
        })?;
        let dataset = cell(2)?
            .parse::<usize>()
            .map_err(|_| malformed("the dataset size is not a whole number".to_string()))?;
        let mbr_file = mbr_file_at
            .and_then(|i| cells.get(i))
            .and_then(|t| t.parse::<f64>().ok())
            .filter(|v| v.is_finite());
        records.push(HistoryRecord {
            platform: cell(0)?.to_string(),
            map,
            dataset,
            b_mean: number(3)?,
            b_std: number(4)?,
            big_b_mean: number(5)?,
            big_b_std: number(6)?,
            mbr_mean: number(7)?,
            mbr_file,
        });
    }
    Ok(records)
}

/// Imports the 2014 records as historical devices; idempotent.
pub fn import(db: &mut Database, records: &[HistoryRecord]) -> Result<ImportSummary, HistoryError> {
    store::ensure_schema(db)?;
    let mut platforms: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for record in records {
        if seen.insert(record.platform.clone()) {
            platforms.push(record.platform.clone());
        }
    }
    let mut ids = std::collections::BTreeMap::new();
    for platform in &platforms {
        ids.insert(platform.clone(), db.device_id(&platform_identity(platform))?);
    }
    let inserted = db.transaction(|tx| {
        let mut insert = tx.prepare(
            "INSERT OR IGNORE INTO aristotle_history
                 (device_id, map, dataset, b_mean, b_std, big_b_mean, big_b_std, mbr_mean, mbr_file)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        let mut inserted = 0;
        for r in records {
            let Some(&device_id) = ids.get(&r.platform) else { continue };
            inserted += insert.execute(params![
                device_id,
                r.map,
                i64::try_from(r.dataset).unwrap_or(i64::MAX),
                r.b_mean,
                r.b_std,
                r.big_b_mean,
                r.big_b_std,
                r.mbr_mean,
                r.mbr_file
            ])?;
        }
        Ok(inserted)
    })?;
    Ok(ImportSummary { platforms, records: records.len(), inserted })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "platform,map,n,b_mean,b_std,B_mean,B_std,mbr_mean,mbr_file
c1060,107,128,3.460,0.089,4.093,0.135,1.183,1.170
snb,107,128,2.0,0.1,1.0,0.1,0.5,
";

    #[test]
    fn parses_and_imports_idempotently() {
        let records = parse(SAMPLE).expect("parse");
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].map, 107);
        assert_eq!(records[0].mbr_file, Some(1.170));
        assert_eq!(records[1].mbr_file, None);
        let mut db = Database::in_memory().expect("db");
        let first = import(&mut db, &records).expect("import");
        assert_eq!(first.inserted, 2);
        assert_eq!(first.platforms, vec!["c1060", "snb"]);
        let again = import(&mut db, &records).expect("import");
        assert_eq!(again.inserted, 0);
        assert_eq!(db.find_devices("historical").expect("devices").len(), 2);
    }

    #[test]
    fn malformed_lines_name_their_line() {
        let bad = "platform,map,n,b_mean,b_std,B_mean,B_std,mbr_mean\nc1060,x,128,1,1,1,1,1\n";
        match parse(bad) {
            Err(HistoryError::Malformed { line, .. }) => assert_eq!(line, 2),
            other => panic!("expected a malformed-line error, got {other:?}"),
        }
        assert!(matches!(parse("a,b\n"), Err(HistoryError::NoHeader)));
    }
}
