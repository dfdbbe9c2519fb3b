//! Devices: who produced a sample. Live devices come from OpenCL; historical ones (the 2014
//! Aristotle platforms) from imported files.

use crate::error::DbError;
use rusqlite::{params, Connection};
use serde::Serialize;

/// What identifies a device across runs. Two runs on the same device with the same driver share
/// one record; a driver update makes a new one, since it can change every figure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceIdentity {
    /// `cpu`, `gpu`, `accelerator`, `other`, or `historical` for imported data.
    pub kind: String,
    /// The OpenCL platform name (or the source of imported data).
    pub platform: String,
    /// The device name.
    pub name: String,
    /// The device vendor.
    pub vendor: String,
    /// The driver version.
    pub driver: String,
    /// Anything else worth keeping (compute units, memory sizes) as a JSON object.
    pub details: serde_json::Value,
}

/// A device as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceRecord {
    /// Row id, stable for the life of the database.
    pub id: i64,
    /// The identity it was recorded with.
    pub identity: DeviceIdentity,
    /// When it was first recorded (UTC, ISO 8601).
    pub first_seen: String,
}

impl DeviceRecord {
    /// A short label for tables and plots: the name, with the platform when that says more.
    pub fn label(&self) -> String {
        let id = &self.identity;
        if id.kind == "historical" || id.name.contains(&id.platform) {
            id.name.clone()
        } else {
            format!("{} ({})", id.name, id.platform)
        }
    }
}

pub(crate) fn upsert(conn: &Connection, identity: &DeviceIdentity) -> Result<i64, DbError> {
    let details = identity.details.to_string();
    conn.execute(
        "INSERT INTO devices (kind, platform, name, vendor, driver, details)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (kind, platform, name, vendor, driver) DO NOTHING",
        params![
            identity.kind,
            identity.platform,
            identity.name,
            identity.vendor,
            identity.driver,
            details
        ],
    )?;
    Ok(conn.query_row(
        "SELECT id FROM devices
         WHERE kind = ?1 AND platform = ?2 AND name = ?3 AND vendor = ?4 AND driver = ?5",
        params![identity.kind, identity.platform, identity.name, identity.vendor, identity.driver],
        |row| row.get(0),
    )?)
}

pub(crate) fn all(conn: &Connection) -> Result<Vec<DeviceRecord>, DbError> {
    let mut stmt = conn.prepare(
        "SELECT id, kind, platform, name, vendor, driver, details, first_seen
         FROM devices ORDER BY id",
    )?;
    let rows = stmt.query_map([], |row| {
        let details: String = row.get(6)?;
        Ok(DeviceRecord {
            id: row.get(0)?,
            identity: DeviceIdentity {
                kind: row.get(1)?,
                platform: row.get(2)?,
                name: row.get(3)?,
                vendor: row.get(4)?,
                driver: row.get(5)?,
                // A hand-edited details column must not make the database unreadable.
                details: serde_json::from_str(&details).unwrap_or(serde_json::Value::Null),
            },
            first_seen: row.get(7)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(crate) fn matching(devices: Vec<DeviceRecord>, selector: &str) -> Vec<DeviceRecord> {
    let wanted = selector.trim();
    if let Ok(id) = wanted.trim_start_matches('#').parse::<i64>() {
        return devices.into_iter().filter(|d| d.id == id).collect();
    }
    let lower = wanted.to_lowercase();
    if matches!(lower.as_str(), "cpu" | "gpu" | "accelerator" | "other" | "historical") {
        return devices.into_iter().filter(|d| d.identity.kind == lower).collect();
    }
    devices
        .into_iter()
        .filter(|d| {
            d.identity.name.to_lowercase().contains(&lower)
                || d.identity.platform.to_lowercase().contains(&lower)
        })
        .collect()
}
