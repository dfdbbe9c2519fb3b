//! How a launch's units of work (work-groups, or pieces of them) are shared out among its
//! threads.
//!
//! Threads claim *runs of consecutive units* rather than one unit at a time. Neighbouring
//! work-groups nearly always touch neighbouring memory (the rows of a matrix, a tile of an
//! image), so a thread that runs a block of them touches a block of each buffer. Taking one
//! group at a time would hand every thread groups from all over the NDRange, and every
//! per-thread table that follows memory (the race checker's shadow, `analyze`'s counts) would
//! cover whole buffers on every thread: sixteen threads then keep sixteen copies, and their
//! caches hold sixteen times the data.
//!
//! Runs shrink as the launch drains (guided self-scheduling): each claim takes a share of
//! what is left, so early claims are long and the last ones single units, which keeps the
//! threads finishing together.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// Each claim takes `1 / (SHARES_PER_THREAD * threads)` of the units left.
const SHARES_PER_THREAD: u64 = 2;

/// The units `0..units` of a launch, claimed by `threads` threads.
#[derive(Debug)]
pub(crate) struct UnitQueue {
    next: AtomicU64,
    units: u64,
    divisor: u64,
}

impl UnitQueue {
    pub(crate) fn new(units: u64, threads: usize) -> UnitQueue {
        UnitQueue {
            next: AtomicU64::new(0),
            units,
            divisor: SHARES_PER_THREAD.saturating_mul(threads.max(1) as u64),
        }
    }

    /// The next run of consecutive units for the calling thread, or `None` once every unit
    /// has been claimed.
    pub(crate) fn claim(&self) -> Option<Range<u64>> {
        let mut start = self.next.load(Ordering::Relaxed);
        loop {
            if start >= self.units {
                return None;
            }
            let length = ((self.units - start) / self.divisor).max(1);
            let end = start + length;
            match self.next.compare_exchange_weak(start, end, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(start..end),
                Err(current) => start = current,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(queue: &UnitQueue) -> Vec<Range<u64>> {
        std::iter::from_fn(|| queue.claim()).collect()
    }

    #[test]
    fn every_unit_is_claimed_once_in_order() {
        for (units, threads) in [(0, 4), (1, 16), (7, 16), (1024, 16), (1000, 3), (5, 1)] {
            let runs = claims(&UnitQueue::new(units, threads));
            let flat: Vec<u64> = runs.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(flat, (0..units).collect::<Vec<_>>(), "{units} units, {threads} threads");
        }
    }

    #[test]
    fn runs_start_long_and_end_with_single_units() {
        let runs = claims(&UnitQueue::new(1024, 16));
        assert_eq!(runs[0], 0..32, "the first claim takes 1/32 of the launch");
        assert!(runs.windows(2).all(|w| w[0].end - w[0].start >= w[1].end - w[1].start));
        let last = runs.len() - 1;
        assert!(runs[last - 20..].iter().all(|r| r.end - r.start == 1));
    }

    #[test]
    fn concurrent_claims_share_out_every_unit_exactly_once() {
        let queue = UnitQueue::new(100_000, 8);
        let mut all: Vec<Range<u64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8).map(|_| scope.spawn(|| claims(&queue))).collect();
            handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        all.sort_by_key(|r| r.start);
        assert_eq!(all.first().map(|r| r.start), Some(0));
        assert!(all.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!(all.last().map(|r| r.end), Some(100_000));
    }
}
