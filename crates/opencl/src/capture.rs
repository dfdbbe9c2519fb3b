//! Capturing launches as workloads (`clmap exec --capture DIR`).

use clmap_workload::NdRange;

use crate::kernel::{Arg, Kernel};

/// A launch being captured: its inputs are written before the run, its outputs after.
pub struct Capture;

impl Capture {
    pub fn after(self, _kernel: &Kernel, _args: &[Arg]) {}
}

/// Starts capturing a launch when capture is on.
pub fn before(_kernel: &Kernel, _range: &NdRange, _args: &[Arg]) -> Option<Capture> {
    None
}
