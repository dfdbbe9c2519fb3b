//! The registry of named schemas.
//!
//! A schema is a batch of `CREATE` statements owned by one part of clmap. Applied schemas are
//! recorded by name in [`REGISTRY_TABLE`]; a changed table gets a new schema name (`maps-v2`)
//! whose statements migrate the old one, so databases written by older clmap versions keep
//! working.

use crate::error::DbError;
use rusqlite::{params, Connection, OptionalExtension};

/// A named batch of SQL statements that creates or migrates tables.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    /// Unique name, conventionally `<part>-v<N>`.
    pub name: &'static str,
    /// Statements separated by semicolons.
    pub sql: &'static str,
}

/// The table that records which schemas a database has.
pub(crate) const REGISTRY_TABLE: &str = "clmap_schema";

/// Tables every part relies on: the registry and the devices samples point at.
pub(crate) const CORE: Schema = Schema {
    name: "core-v1",
    sql: "
        CREATE TABLE IF NOT EXISTS devices (
            id          INTEGER PRIMARY KEY,
            kind        TEXT NOT NULL,
            platform    TEXT NOT NULL,
            name        TEXT NOT NULL,
            vendor      TEXT NOT NULL,
            driver      TEXT NOT NULL,
            details     TEXT NOT NULL DEFAULT '{}',
            first_seen  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            UNIQUE (kind, platform, name, vendor, driver)
        );
    ",
};

pub(crate) fn ensure(conn: &Connection, schema: &Schema) -> Result<(), DbError> {
    conn.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS {REGISTRY_TABLE} (
             name TEXT PRIMARY KEY,
             applied TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
         )"
    ))?;
    let known: Option<String> = conn
        .query_row(
            &format!("SELECT name FROM {REGISTRY_TABLE} WHERE name = ?1"),
            params![schema.name],
            |row| row.get(0),
        )
        .optional()?;
    if known.is_some() {
        return Ok(());
    }
    let with_context = |source| DbError::Schema { name: schema.name.to_string(), source };
    // BEGIN IMMEDIATE takes the write lock first, so two processes opening a fresh database at
    // once cannot both apply the same schema.
    conn.execute_batch("BEGIN IMMEDIATE").map_err(with_context)?;
    let applied = (|| {
        let again: Option<String> = conn
            .query_row(
                &format!("SELECT name FROM {REGISTRY_TABLE} WHERE name = ?1"),
                params![schema.name],
                |row| row.get(0),
            )
            .optional()?;
        if again.is_none() {
            conn.execute_batch(schema.sql)?;
            conn.execute(
                &format!("INSERT INTO {REGISTRY_TABLE} (name) VALUES (?1)"),
                params![schema.name],
            )?;
        }
        Ok::<(), rusqlite::Error>(())
    })();
    match applied {
        Ok(()) => conn.execute_batch("COMMIT").map_err(with_context),
        Err(source) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(with_context(source))
        }
    }
}

pub(crate) fn applied(conn: &Connection) -> Result<Vec<String>, DbError> {
    let mut stmt = conn.prepare(&format!("SELECT name FROM {REGISTRY_TABLE} ORDER BY rowid"))?;
    let names = stmt.query_map([], |row| row.get::<_, String>(0))?;
    Ok(names.collect::<Result<_, _>>()?)
}
