//! What can go wrong with the database, as sentences a user can act on.

use std::path::PathBuf;

/// A database failure.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("cannot open the database {}: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("the directory {} for the database does not exist", .0.display())]
    NoDirectory(PathBuf),
    #[error(
        "{} is an SQLite database but not clmap's (it has tables and no `clmap_schema`); \
         pass another path with --db",
        .0.display()
    )]
    Foreign(PathBuf),
    #[error("schema `{name}` cannot be applied: {source}")]
    Schema {
        name: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("there is no table `{0}` in the database")]
    NoSuchTable(String),
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("cannot write the export: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Invalid(String),
}
