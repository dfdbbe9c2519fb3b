//! Export of whole tables, so measurements can be kept in a repository and plotted without
//! hardware or clmap.

use crate::error::DbError;
use crate::Database;
use rusqlite::types::ValueRef;
use std::io::Write;

/// Writes `table` as CSV (header row, RFC 4180 quoting) in row-id order.
pub fn export_csv(db: &Database, table: &str, out: &mut dyn Write) -> Result<u64, DbError> {
    let (columns, rows) = read_table(db, table)?;
    writeln!(out, "{}", columns.iter().map(|c| quote(c)).collect::<Vec<_>>().join(","))?;
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .map(|cell| match cell {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => quote(s),
                other => other.to_string(),
            })
            .collect();
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(rows.len() as u64)
}

/// Writes `table` as a JSON array of objects keyed by column name.
pub fn export_json(db: &Database, table: &str, out: &mut dyn Write) -> Result<u64, DbError> {
    let (columns, rows) = read_table(db, table)?;
    let objects: Vec<serde_json::Value> = rows
        .iter()
        .map(|row| {
            let map = columns.iter().cloned().zip(row.iter().cloned()).collect();
            serde_json::Value::Object(map)
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &objects)
        .map_err(|e| DbError::Io(std::io::Error::other(e)))?;
    writeln!(out)?;
    Ok(rows.len() as u64)
}

type Table = (Vec<String>, Vec<Vec<serde_json::Value>>);

fn read_table(db: &Database, table: &str) -> Result<Table, DbError> {
    let conn = db.connection();
    // The name is checked against the catalogue, never spliced in unchecked.
    let exists: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1",
        [table],
        |row| row.get(0),
    )?;
    if exists == 0 {
        return Err(DbError::NoSuchTable(table.to_string()));
    }
    let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\""))?;
    let columns: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
    let width = columns.len();
    let rows = stmt.query_map([], |row| {
        (0..width)
            .map(|i| {
                Ok(match row.get_ref(i)? {
                    ValueRef::Null => serde_json::Value::Null,
                    ValueRef::Integer(v) => serde_json::Value::from(v),
                    ValueRef::Real(v) => serde_json::Value::from(v),
                    ValueRef::Text(t) => {
                        serde_json::Value::String(String::from_utf8_lossy(t).into_owned())
                    }
                    ValueRef::Blob(b) => serde_json::Value::String(hex(b)),
                })
            })
            .collect::<Result<Vec<_>, rusqlite::Error>>()
    })?;
    Ok((columns, rows.collect::<Result<_, _>>()?))
}

fn quote(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
