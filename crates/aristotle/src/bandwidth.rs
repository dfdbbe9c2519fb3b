//! The device's own copy bandwidth, measured beside a campaign: the ceiling the Single MAPs
//! without local memory are compared with (they read each element once, as a copy does).

use clmap_db::rusqlite::params;
use clmap_db::{Database, DbError, Schema};
use clmap_device::{Device, DeviceError};
use serde::Serialize;

/// The table of copy-bandwidth measurements; every measurement is kept, with its time.
pub const SCHEMA: Schema = Schema {
    name: "aristotle-bandwidth-v1",
    sql: "
        CREATE TABLE aristotle_copy_bandwidth (
            id            INTEGER PRIMARY KEY,
            device_id     INTEGER NOT NULL REFERENCES devices(id),
            bytes         INTEGER NOT NULL,
            reps          INTEGER NOT NULL,
            bandwidth_gbs REAL NOT NULL,
            recorded      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
        );
    ",
};

/// Why the reference could not be measured or stored.
#[derive(Debug, thiserror::Error)]
pub enum BandwidthError {
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Db(#[from] DbError),
}

/// A stored measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CopyBandwidth {
    /// Bytes copied per run (read once and written once).
    pub bytes: u64,
    pub bandwidth_gbs: f64,
    pub recorded: String,
}

/// Bytes a copy must move to stand beside a campaign's largest dataset: one float per element
/// of an N × N grid, as the Single MAPs read.
pub fn reference_bytes(largest_dataset: usize) -> u64 {
    (largest_dataset as u64).saturating_pow(2).saturating_mul(4)
}

/// Measures the copy bandwidth of `bytes` (median of `reps` copies) and records it.
pub fn measure_and_record(
    db: &Database,
    device: &Device,
    device_id: i64,
    bytes: u64,
    reps: u32,
) -> Result<f64, BandwidthError> {
    db.ensure_schema(&SCHEMA)?;
    let size = usize::try_from(bytes).unwrap_or(usize::MAX);
    let gbs = clmap_device::copy_bandwidth(device, size, reps.max(1))?;
    db.connection()
        .execute(
            "INSERT INTO aristotle_copy_bandwidth (device_id, bytes, reps, bandwidth_gbs)
             VALUES (?1, ?2, ?3, ?4)",
            params![device_id, i64::try_from(bytes).unwrap_or(i64::MAX), reps, gbs],
        )
        .map_err(DbError::from)?;
    Ok(gbs)
}

/// The latest copy bandwidth recorded for a device, if any.
pub fn latest(db: &Database, device_id: i64) -> Result<Option<CopyBandwidth>, DbError> {
    db.ensure_schema(&SCHEMA)?;
    let mut stmt = db.connection().prepare(
        "SELECT bytes, bandwidth_gbs, recorded FROM aristotle_copy_bandwidth
         WHERE device_id = ?1 ORDER BY id DESC LIMIT 1",
    )?;
    let mut rows = stmt.query_map([device_id], |row| {
        Ok(CopyBandwidth {
            bytes: u64::try_from(row.get::<_, i64>(0)?).unwrap_or(0),
            bandwidth_gbs: row.get(1)?,
            recorded: row.get(2)?,
        })
    })?;
    Ok(rows.next().transpose()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_is_one_float_per_element_and_latest_starts_empty() {
        assert_eq!(reference_bytes(4096), 4096 * 4096 * 4);
        let db = Database::in_memory().expect("db");
        assert_eq!(latest(&db, 1).expect("query"), None);
    }
}
