//! Barrier divergence: every work-item of a group must reach the same barrier, in the same
//! order, with the same fences (and, for `wait_group_events`, the same events).
//!
//! Oclgrind's definition is the one followed: the work-items of a group run until each has
//! reached *a* barrier (or finished), and they pass it together; a work-item whose barrier is
//! not the one the group's first work-item reached (another instruction, other fences, other
//! events) is divergent, and so is a barrier some work-items never reached. The lock-step
//! executor reaches the two sides of a branch one after the other, so the arrivals at one
//! barrier instance are gathered here ([`BarrierEpoch`]) until every live work-item has
//! arrived, one of them arrives a second time (it passed the barrier), or the group ends; then
//! they are judged. A barrier every live work-item reaches at once costs one mask comparison.

use clmap_lang::ir::FenceFlags;
use clmap_lang::Span;

use crate::mask::Mask;

/// A barrier as a work-item reaches it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BarrierSignature {
    pub span: Span,
    pub fences: FenceFlags,
    /// A `wait_group_events` (a barrier of the group too), not a `barrier`.
    pub wait: bool,
    /// The events of a `wait_group_events`, in the order given.
    pub events: Vec<u64>,
}

/// A divergence found when an instance of a barrier is judged.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Divergence {
    /// `lane` reached `own` while the group's first work-item reached `first`.
    Different { lane: usize, own: BarrierSignature, first: BarrierSignature },
    /// Only `reached` of the `expected` live work-items reached `barrier`; `lane` is the first
    /// that did not.
    Incomplete { lane: usize, barrier: BarrierSignature, reached: u32, expected: u32 },
}

struct Arrival {
    signature: BarrierSignature,
    lanes: Mask,
}

/// The arrivals at the barrier instance the group is gathering at.
#[derive(Default)]
pub(crate) struct BarrierEpoch {
    arrivals: Vec<Arrival>,
    /// The lanes that arrived, and the live lanes when the first did.
    reached: Option<(Mask, Mask)>,
}

impl BarrierEpoch {
    /// Forgets any arrival (a new work-group).
    pub(crate) fn reset(&mut self) {
        self.arrivals.clear();
        self.reached = None;
    }

    /// The lanes of `lanes` reached the barrier `signature`; `live` are the group's work-items
    /// that have not returned. Divergences of the instances this judges go to `found`.
    pub(crate) fn arrive(
        &mut self,
        signature: BarrierSignature,
        lanes: &Mask,
        live: &Mask,
        found: &mut Vec<Divergence>,
    ) {
        if lanes.is_empty() {
            return;
        }
        if let Some((reached, _)) = &self.reached {
            let mut again = reached.clone();
            again.and_assign(lanes);
            if !again.is_empty() {
                // These lanes passed the barrier the group was gathering at: it is over.
                self.judge(found);
            }
        }
        if self.reached.is_none() && lanes == live {
            return;
        }
        let (reached, _) =
            self.reached.get_or_insert_with(|| (Mask::none(live.lanes()), live.clone()));
        reached.or_assign(lanes);
        match self.arrivals.iter_mut().find(|a| a.signature == signature) {
            Some(arrival) => arrival.lanes.or_assign(lanes),
            None => self.arrivals.push(Arrival { signature, lanes: lanes.clone() }),
        }
        if let Some((reached, expected)) = &self.reached {
            let mut waiting = expected.clone();
            waiting.and_not_assign(reached);
            if waiting.is_empty() {
                self.judge(found);
            }
        }
    }

    /// The group ended: judges the instance it was gathering at, if any.
    pub(crate) fn finish(&mut self, found: &mut Vec<Divergence>) {
        self.judge(found);
    }

    fn judge(&mut self, found: &mut Vec<Divergence>) {
        let Some((reached, expected)) = self.reached.take() else { return };
        let arrivals = std::mem::take(&mut self.arrivals);
        let first = arrivals
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.lanes.first().map(|lane| (lane, i)))
            .min()
            .map(|(_, i)| i);
        let Some(first) = first else { return };
        let reference = &arrivals[first].signature;
        let mut different: Vec<Divergence> = arrivals
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != first)
            .flat_map(|(_, a)| {
                a.lanes.iter().map(move |lane| Divergence::Different {
                    lane,
                    own: a.signature.clone(),
                    first: reference.clone(),
                })
            })
            .collect();
        different.sort_by_key(|d| match d {
            Divergence::Different { lane, .. } | Divergence::Incomplete { lane, .. } => *lane,
        });
        found.extend(different);
        let mut missing = expected.clone();
        missing.and_not_assign(&reached);
        if let Some(lane) = missing.first() {
            let mut arrived = expected.clone();
            arrived.and_assign(&reached);
            found.push(Divergence::Incomplete {
                lane,
                barrier: reference.clone(),
                reached: arrived.count(),
                expected: expected.count(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(start: u32) -> BarrierSignature {
        BarrierSignature {
            span: Span { start, ..Span::UNDEFINED },
            fences: FenceFlags::default(),
            wait: false,
            events: Vec::new(),
        }
    }

    fn lanes(n: usize, set: &[usize]) -> Mask {
        Mask::all(n).filter(|l| set.contains(&l))
    }

    fn lanes_of(found: &[Divergence]) -> Vec<(usize, bool)> {
        found
            .iter()
            .map(|d| match d {
                Divergence::Different { lane, .. } => (*lane, true),
                Divergence::Incomplete { lane, .. } => (*lane, false),
            })
            .collect()
    }

    #[test]
    fn a_barrier_every_live_work_item_reaches_at_once_records_nothing() {
        let mut epoch = BarrierEpoch::default();
        let mut found = Vec::new();
        let all = Mask::all(4);
        epoch.arrive(at(1), &all, &all, &mut found);
        epoch.finish(&mut found);
        assert!(found.is_empty());
    }

    #[test]
    fn the_two_sides_of_a_branch_at_different_barriers_diverge_after_the_first_work_item() {
        let mut epoch = BarrierEpoch::default();
        let mut found = Vec::new();
        let all = Mask::all(4);
        // The executor runs the side of lanes 2 and 3 first; lane 0 still sets the reference.
        epoch.arrive(at(20), &lanes(4, &[2, 3]), &all, &mut found);
        assert!(found.is_empty());
        epoch.arrive(at(10), &lanes(4, &[0, 1]), &all, &mut found);
        assert_eq!(lanes_of(&found), [(2, true), (3, true)]);
        match &found[0] {
            Divergence::Different { own, first, .. } => {
                assert_eq!((own.span.start, first.span.start), (20, 10));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_same_barrier_reached_in_two_parts_is_no_divergence() {
        let mut epoch = BarrierEpoch::default();
        let mut found = Vec::new();
        let all = Mask::all(4);
        epoch.arrive(at(5), &lanes(4, &[0, 1]), &all, &mut found);
        epoch.arrive(at(5), &lanes(4, &[2, 3]), &all, &mut found);
        epoch.finish(&mut found);
        assert!(found.is_empty());
    }

    #[test]
    fn other_events_at_the_same_wait_diverge() {
        let mut epoch = BarrierEpoch::default();
        let mut found = Vec::new();
        let all = Mask::all(2);
        let wait = |events: Vec<u64>| BarrierSignature { wait: true, events, ..at(7) };
        epoch.arrive(wait(vec![1]), &lanes(2, &[0]), &all, &mut found);
        epoch.arrive(wait(vec![2]), &lanes(2, &[1]), &all, &mut found);
        assert_eq!(lanes_of(&found), [(1, true)]);
    }

    #[test]
    fn work_items_that_never_arrive_leave_the_barrier_incomplete() {
        let mut epoch = BarrierEpoch::default();
        let mut found = Vec::new();
        let all = Mask::all(4);
        epoch.arrive(at(3), &lanes(4, &[0, 1]), &all, &mut found);
        // Lanes 0 and 1 reach a barrier again: the first instance is over without 2 and 3.
        epoch.arrive(at(3), &lanes(4, &[0, 1]), &all, &mut found);
        assert_eq!(
            found,
            [Divergence::Incomplete { lane: 2, barrier: at(3), reached: 2, expected: 4 }]
        );
        found.clear();
        epoch.finish(&mut found);
        assert_eq!(lanes_of(&found), [(2, false)]);
    }
}
