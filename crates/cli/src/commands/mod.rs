//! One module per subcommand.

pub mod analyze;
pub mod check;
pub mod compare;
pub mod devices;
pub mod ir;
pub mod print;
pub mod run;
pub mod time;
pub mod unlocal;
