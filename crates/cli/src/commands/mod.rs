//! One module per subcommand.

pub mod advise;
pub mod advise_workload;
pub mod analyze;
pub mod bench;
pub mod check;
pub mod compare;
pub mod db;
pub mod devices;
pub mod exec;
pub mod fuse;
pub mod ir;
pub mod local;
pub mod maps;
pub mod phase;
pub mod print;
pub mod run;
pub mod time;
pub mod tune;
pub mod unlocal;
pub mod workload;
