//! Memory a merge is done with, freed where no one waits for it.
//!
//! Merging the threads' results of a launch leaves large allocations behind: the pages of
//! another thread's table whose contents were added into this one, caches only that thread
//! used. Freed during the merge, they cost the launch as much as combining the pages did
//! (glibc gives the top of a thread's heap back to the system as blocks are freed, a system
//! call at a time), and the last merge is what the launch waits for. A merge hands them to a
//! [`Spent`] instead, and the launch frees all of them after its last merge on a thread of
//! its own (see [`crate::Observer::merge_keeping`]).

use std::fmt;

/// Allocations of any kind, kept to be freed together later.
#[derive(Default)]
pub struct Spent(Vec<Box<dyn Send>>);

impl Spent {
    /// Keeps `value` until this is dropped.
    pub fn keep<T: Send + 'static>(&mut self, value: T) {
        self.0.push(Box::new(value));
    }

    /// Takes over everything `other` keeps.
    pub fn append(&mut self, mut other: Spent) {
        self.0.append(&mut other.0);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Spent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Spent({} allocations)", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn keeps_values_until_dropped_and_appends_the_others() {
        let tracked = Arc::new(());
        let mut spent = Spent::default();
        assert!(spent.is_empty());
        spent.keep(Arc::clone(&tracked));
        let mut more = Spent::default();
        more.keep(vec![Arc::clone(&tracked), Arc::clone(&tracked)]);
        spent.append(more);
        assert!(!spent.is_empty());
        assert_eq!(Arc::strong_count(&tracked), 4);
        drop(spent);
        assert_eq!(Arc::strong_count(&tracked), 1);
    }
}
