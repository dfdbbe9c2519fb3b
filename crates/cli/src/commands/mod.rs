//! One module per subcommand.

pub mod check;
pub mod devices;
pub mod ir;
pub mod print;
pub mod time;
