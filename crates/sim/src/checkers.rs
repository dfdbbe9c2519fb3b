//! The optional checkers (races, uninitialised local reads), as one observer.

use crate::exec::LaunchPlan;
use crate::launch::SimOptions;
use crate::observer::Observer;

/// The checkers a launch's options switch on.
#[derive(Debug, Default)]
pub(crate) struct Checkers {}

impl Checkers {
    pub(crate) fn new(_options: &SimOptions, _plan: &LaunchPlan<'_>) -> Checkers {
        Checkers {}
    }
}

impl Observer for Checkers {}
