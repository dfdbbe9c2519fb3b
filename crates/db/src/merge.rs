//! Merging databases: the shards of a campaign, each written by its own process (a Slurm job,
//! a machine), into one.
//!
//! The merge knows no part's tables; it reads what SQLite knows about them. Tables are copied
//! in the order of their foreign keys, and a row's identity is, in that order of preference,
//! a unique key other than a surrogate id (`devices (kind, platform, …)`, `phase_contexts
//! (key)`), the primary key (`phase_sequences (context_id, seq_hash)`), or, for rows with only
//! a surrogate id (a list of samples), every other column. A row whose identity is already in
//! the target is a duplicate when its other columns agree and a conflict when they do not; in
//! both cases the target's row stays (the first database wins). Surrogate ids are renumbered
//! and every foreign key follows, so a device that is `#1` in one shard and `#3` in another
//! becomes one device.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};

use crate::error::DbError;
use crate::schema::REGISTRY_TABLE;
use crate::Database;

/// What a merge did to one table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableMerge {
    /// Rows copied.
    pub inserted: u64,
    /// Rows already there with the same contents.
    pub duplicates: u64,
    /// Rows whose identity was there with other contents (the target's row was kept).
    pub conflicts: u64,
}

/// What a merge did, per table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeSummary {
    pub tables: BTreeMap<String, TableMerge>,
}

struct Column {
    name: String,
    /// Part of the primary key.
    primary: bool,
    /// The column is an `INTEGER PRIMARY KEY` (an alias of the rowid): renumbered on copy.
    surrogate: bool,
}

struct ForeignKey {
    column: String,
    table: String,
}

impl Database {
    /// Copies every row of the database at `source` that this one lacks (see the module
    /// documentation), creating the tables it lacks first, in one transaction.
    pub fn merge_from(&mut self, source: &Path) -> Result<MergeSummary, DbError> {
        if !source.is_file() {
            return Err(DbError::Invalid(format!("{} is not a file", source.display())));
        }
        // Opening it once checks that it is a clmap database and brings its core schema up.
        drop(Database::open(source)?);
        let conn = self.connection_mut();
        conn.execute("ATTACH DATABASE ?1 AS src", [source.to_string_lossy()])?;
        let result = (|| -> Result<MergeSummary, DbError> {
            let tx = conn.transaction()?;
            let summary = merge_attached(&tx)?;
            tx.commit()?;
            Ok(summary)
        })();
        let detached = conn.execute("DETACH DATABASE src", []);
        let summary = result?;
        detached?;
        Ok(summary)
    }
}

fn merge_attached(conn: &Connection) -> Result<MergeSummary, DbError> {
    // Tables and indexes the target lacks, as the source declares them.
    let mut stmt = conn.prepare(
        "SELECT type, name, sql FROM src.sqlite_master
         WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type DESC, rowid",
    )?;
    let objects: Vec<(String, String, String)> = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    drop(stmt);
    for (kind, name, sql) in &objects {
        let exists: i64 = conn.query_row(
            "SELECT count(*) FROM main.sqlite_master WHERE type = ?1 AND name = ?2",
            [kind, name],
            |row| row.get(0),
        )?;
        if exists == 0 {
            conn.execute_batch(sql)?;
        }
    }
    conn.execute(
        &format!("INSERT OR IGNORE INTO main.{REGISTRY_TABLE} SELECT * FROM src.{REGISTRY_TABLE}"),
        [],
    )?;

    let tables: Vec<String> = objects
        .iter()
        .filter(|(kind, name, _)| kind == "table" && name != REGISTRY_TABLE)
        .map(|(_, name, _)| name.clone())
        .collect();
    let mut keys: HashMap<String, Vec<ForeignKey>> = HashMap::new();
    for table in &tables {
        keys.insert(table.clone(), foreign_keys(conn, table)?);
    }
    let mut summary = MergeSummary::default();
    let mut id_maps: HashMap<String, HashMap<i64, i64>> = HashMap::new();
    for table in dependency_order(&tables, &keys) {
        let merged =
            merge_table(conn, &table, keys.get(&table).map_or(&[][..], |k| k), &mut id_maps)?;
        summary.tables.insert(table, merged);
    }
    Ok(summary)
}

/// Referenced tables before the tables that reference them (a cycle keeps the listed order).
fn dependency_order(tables: &[String], keys: &HashMap<String, Vec<ForeignKey>>) -> Vec<String> {
    let mut done: HashSet<String> = HashSet::new();
    let mut order = Vec::new();
    while order.len() < tables.len() {
        let before = order.len();
        for table in tables {
            if done.contains(table) {
                continue;
            }
            let ready = keys.get(table).is_none_or(|fks| {
                fks.iter().all(|fk| {
                    fk.table == *table || done.contains(&fk.table) || !tables.contains(&fk.table)
                })
            });
            if ready {
                done.insert(table.clone());
                order.push(table.clone());
            }
        }
        if order.len() == before {
            for table in tables {
                if done.insert(table.clone()) {
                    order.push(table.clone());
                }
            }
        }
    }
    order
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn foreign_keys(conn: &Connection, table: &str) -> Result<Vec<ForeignKey>, DbError> {
    let mut stmt = conn.prepare(&format!("PRAGMA src.foreign_key_list({})", quoted(table)))?;
    let keys = stmt
        .query_map([], |row| Ok(ForeignKey { table: row.get(2)?, column: row.get(3)? }))?
        .collect::<Result<_, _>>()?;
    Ok(keys)
}

fn columns(conn: &Connection, table: &str, foreign: &[ForeignKey]) -> Result<Vec<Column>, DbError> {
    let mut stmt = conn.prepare(&format!("PRAGMA src.table_info({})", quoted(table)))?;
    let raw: Vec<(String, String, i64)> = stmt
        .query_map([], |row| Ok((row.get(1)?, row.get(2)?, row.get(5)?)))?
        .collect::<Result<_, _>>()?;
    let primary = raw.iter().filter(|(_, _, pk)| *pk > 0).count();
    Ok(raw
        .into_iter()
        .map(|(name, ty, pk)| Column {
            // An INTEGER PRIMARY KEY that is also a foreign key (one report per context)
            // names another table's row: it is kept, not renumbered.
            surrogate: primary == 1
                && pk == 1
                && ty.eq_ignore_ascii_case("integer")
                && !foreign.iter().any(|fk| fk.column == name),
            primary: pk > 0,
            name,
        })
        .collect())
}

/// The columns of the first unique index that does not contain the surrogate id (unique
/// constraints first, then the primary key).
fn identity_columns(
    conn: &Connection,
    table: &str,
    columns: &[Column],
) -> Result<Option<Vec<String>>, DbError> {
    let mut stmt = conn.prepare(&format!("PRAGMA src.index_list({})", quoted(table)))?;
    let mut indexes: Vec<(String, bool, String)> = stmt
        .query_map([], |row| Ok((row.get(1)?, row.get::<_, i64>(2)? != 0, row.get(3)?)))?
        .collect::<Result<_, _>>()?;
    drop(stmt);
    indexes.sort_by_key(|(_, _, origin)| origin != "u");
    for (index, unique, _) in indexes {
        if !unique {
            continue;
        }
        let mut stmt = conn.prepare(&format!("PRAGMA src.index_info({})", quoted(&index)))?;
        let names: Vec<String> = stmt.query_map([], |row| row.get(2))?.collect::<Result<_, _>>()?;
        let has_surrogate =
            names.iter().any(|n| columns.iter().any(|c| c.surrogate && &c.name == n));
        if !names.is_empty() && !has_surrogate {
            return Ok(Some(names));
        }
    }
    // A rowid primary key has no index of its own: the key columns themselves, unless they
    // are the surrogate.
    let primary: Vec<String> =
        columns.iter().filter(|c| c.primary && !c.surrogate).map(|c| c.name.clone()).collect();
    if !primary.is_empty() && !columns.iter().any(|c| c.primary && c.surrogate) {
        return Ok(Some(primary));
    }
    Ok(None)
}

fn merge_table(
    conn: &Connection,
    table: &str,
    foreign: &[ForeignKey],
    id_maps: &mut HashMap<String, HashMap<i64, i64>>,
) -> Result<TableMerge, DbError> {
    let columns = columns(conn, table, foreign)?;
    let identity = identity_columns(conn, table, &columns)?;
    let plain: Vec<&Column> = columns.iter().filter(|c| !c.surrogate).collect();
    let surrogate = columns.iter().find(|c| c.surrogate).map(|c| c.name.clone());
    // How a row is found in the target: its identity, or all its columns but the id.
    let key: Vec<String> = match &identity {
        Some(names) => names.clone(),
        None => plain.iter().map(|c| c.name.clone()).collect(),
    };
    let select_list = columns.iter().map(|c| quoted(&c.name)).collect::<Vec<_>>().join(", ");
    let find_sql = format!(
        "SELECT {}{} FROM main.{} WHERE {}",
        surrogate.as_deref().map_or("NULL".to_string(), quoted),
        plain.iter().map(|c| format!(", {}", quoted(&c.name))).collect::<String>(),
        quoted(table),
        if key.is_empty() {
            "0".to_string()
        } else {
            key.iter().map(|k| format!("{} IS ?", quoted(k))).collect::<Vec<_>>().join(" AND ")
        }
    );
    let insert_sql = format!(
        "INSERT INTO main.{} ({}) VALUES ({})",
        quoted(table),
        plain.iter().map(|c| quoted(&c.name)).collect::<Vec<_>>().join(", "),
        vec!["?"; plain.len()].join(", ")
    );
    let mut rows_stmt =
        conn.prepare(&format!("SELECT {select_list} FROM src.{}", quoted(table)))?;
    let rows: Vec<Vec<Value>> = rows_stmt
        .query_map([], |row| (0..columns.len()).map(|i| row.get::<_, Value>(i)).collect())?
        .collect::<Result<_, _>>()?;
    drop(rows_stmt);
    let mut find = conn.prepare(&find_sql)?;
    let mut insert = conn.prepare(&insert_sql)?;
    let mut merged = TableMerge::default();
    let mut own_map: HashMap<i64, i64> = HashMap::new();
    for mut row in rows {
        // Foreign keys point at the target's ids of the rows they meant.
        for fk in foreign {
            let (Some(index), Some(map)) =
                (columns.iter().position(|c| c.name == fk.column), id_maps.get(&fk.table))
            else {
                continue;
            };
            if let Some(Value::Integer(old)) = row.get(index) {
                if let Some(&new) = map.get(old) {
                    row[index] = Value::Integer(new);
                }
            }
        }
        let value_of = |name: &str| {
            columns.iter().position(|c| c.name == name).and_then(|i| row.get(i)).cloned()
        };
        let key_values: Vec<Value> =
            key.iter().map(|k| value_of(k).unwrap_or(Value::Null)).collect();
        let old_id = surrogate.as_deref().and_then(|s| match value_of(s) {
            Some(Value::Integer(id)) => Some(id),
            _ => None,
        });
        let plain_values: Vec<Value> =
            plain.iter().map(|c| value_of(&c.name).unwrap_or(Value::Null)).collect();
        let found: Option<(Value, Vec<Value>)> = {
            let mut hits = find.query(params_from_iter(key_values.iter()))?;
            match hits.next()? {
                Some(hit) => {
                    let id: Value = hit.get(0)?;
                    let values: Vec<Value> =
                        (1..=plain.len()).map(|i| hit.get(i)).collect::<Result<_, _>>()?;
                    Some((id, values))
                }
                None => None,
            }
        };
        let new_id = match found {
            Some((id, values)) => {
                if values == plain_values {
                    merged.duplicates += 1;
                } else {
                    merged.conflicts += 1;
                }
                match id {
                    Value::Integer(id) => Some(id),
                    _ => None,
                }
            }
            None => {
                insert.execute(params_from_iter(plain_values.iter()))?;
                merged.inserted += 1;
                Some(conn.last_insert_rowid())
            }
        };
        if let (Some(old), Some(new)) = (old_id, new_id) {
            own_map.insert(old, new);
        }
    }
    id_maps.insert(table.to_string(), own_map);
    Ok(merged)
}
