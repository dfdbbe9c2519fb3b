//! clmap's performance database: one SQLite file that every measuring part of clmap writes to.
//!
//! The core owns what all parts share: opening the file (WAL journal, foreign keys, a busy
//! timeout so a second clmap process waits instead of failing), the registry of schemas, and the
//! table of devices that samples point at. Each part (MAP campaigns, phase-order searches) keeps
//! its tables in its own crate and registers them here with [`Database::ensure_schema`]; schemas
//! are identified by name rather than by a global version number so that parts evolve
//! independently.
//!
//! Durability is what makes campaigns resumable: a sample is committed in the same transaction
//! that marks its work unit done, so a process killed at any instant leaves either both or
//! neither.

mod device;
mod error;
mod export;
mod merge;
mod schema;

pub use device::{DeviceIdentity, DeviceRecord};
pub use error::DbError;
pub use export::{export_csv, export_json};
pub use merge::{MergeSummary, TableMerge};
pub use rusqlite;
pub use schema::Schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// An open database.
pub struct Database {
    conn: rusqlite::Connection,
    path: Option<PathBuf>,
}

/// Where `clmap` keeps its database unless told otherwise: `$CLMAP_DB`, else `clmap.db` in the
/// current directory (a campaign's results belong with the project that ran it).
pub fn default_path() -> PathBuf {
    match std::env::var_os("CLMAP_DB") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => PathBuf::from("clmap.db"),
    }
}

impl Database {
    /// Opens (creating if needed) the database file at `path` and applies the core schema.
    pub fn open(path: &Path) -> Result<Database, DbError> {
        if let Some(parent) = path.parent() {
            if !parent.as_os_str().is_empty() && !parent.is_dir() {
                return Err(DbError::NoDirectory(parent.to_path_buf()));
            }
        }
        let conn = rusqlite::Connection::open(path)
            .map_err(|source| DbError::Open { path: path.to_path_buf(), source })?;
        Self::configure(conn, Some(path.to_path_buf()))
    }

    /// A database that lives in memory only (tests, dry runs).
    pub fn in_memory() -> Result<Database, DbError> {
        let conn = rusqlite::Connection::open_in_memory().map_err(DbError::Sql)?;
        Self::configure(conn, None)
    }

    fn configure(conn: rusqlite::Connection, path: Option<PathBuf>) -> Result<Database, DbError> {
        // Another clmap process may be writing (a second campaign, a query while one runs):
        // wait for it rather than failing with SQLITE_BUSY.
        conn.busy_timeout(Duration::from_secs(30))?;
        if path.is_some() {
            // WAL keeps readers working while a campaign writes, and makes commits cheap
            // enough to commit every sample.
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
        }
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let db = Database { conn, path };
        db.check_not_foreign()?;
        db.ensure_schema(&schema::CORE)?;
        Ok(db)
    }

    /// The file this database lives in (`None` when in memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The underlying connection, for the queries of the part that owns a schema.
    pub fn connection(&self) -> &rusqlite::Connection {
        &self.conn
    }

    /// Mutable access to the connection, needed to open transactions.
    pub fn connection_mut(&mut self) -> &mut rusqlite::Connection {
        &mut self.conn
    }

    /// Runs `work` in one transaction: committed if it returns `Ok`, rolled back otherwise.
    pub fn transaction<T>(
        &mut self,
        work: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        let tx = self.conn.transaction()?;
        let value = work(&tx)?;
        tx.commit()?;
        Ok(value)
    }

    /// Applies `schema` unless it was applied before. The statements run in one transaction, so
    /// a schema is either wholly there or not at all.
    pub fn ensure_schema(&self, schema: &Schema) -> Result<(), DbError> {
        schema::ensure(&self.conn, schema)
    }

    /// The names of the schemas applied to this database, in the order they were applied.
    pub fn schemas(&self) -> Result<Vec<String>, DbError> {
        schema::applied(&self.conn)
    }

    /// The id of the device with this identity, inserting it the first time it is seen.
    pub fn device_id(&self, identity: &DeviceIdentity) -> Result<i64, DbError> {
        device::upsert(&self.conn, identity)
    }

    /// Every device the database knows, in the order they were first recorded.
    pub fn devices(&self) -> Result<Vec<DeviceRecord>, DbError> {
        device::all(&self.conn)
    }

    /// The devices matching a user's selector: a device id (`#3` or `3`), a kind (`cpu`, `gpu`,
    /// `historical`) or a case-insensitive part of the name or platform.
    pub fn find_devices(&self, selector: &str) -> Result<Vec<DeviceRecord>, DbError> {
        Ok(device::matching(self.devices()?, selector))
    }

    /// Refuses files that are SQLite databases but not clmap's (an unrelated `clmap.db`), before
    /// anything is written to them.
    fn check_not_foreign(&self) -> Result<(), DbError> {
        let tables: Vec<String> = {
            let mut stmt =
                self.conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?;
            let rows = stmt.query_map([], |row| row.get::<_, String>(0))?;
            rows.collect::<Result<_, _>>()?
        };
        let ours = tables.iter().any(|t| t == schema::REGISTRY_TABLE);
        if !tables.is_empty() && !ours {
            return Err(DbError::Foreign(self.path.clone().unwrap_or_default()));
        }
        Ok(())
    }
}
