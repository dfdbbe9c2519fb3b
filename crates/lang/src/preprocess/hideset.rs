//! Hide sets (Prosser's algorithm): every token carries the set of macros whose expansion it
//! came out of; a macro name whose own macro is in its hide set is "painted blue" and never
//! expanded again. Sets are interned, so a token carries a `u32` and set operations are cached.

use std::collections::HashMap;

/// Index of an interned set; `HideSet::EMPTY` is the set of ordinary source tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct HideSet(u32);

impl HideSet {
    pub const EMPTY: HideSet = HideSet(0);
}

/// The interner. Members are macro-name symbols (small integers), kept sorted.
#[derive(Debug)]
pub struct HideSets {
    sets: Vec<Vec<u32>>,
    ids: HashMap<Vec<u32>, HideSet>,
    unions: HashMap<(HideSet, HideSet), HideSet>,
}

impl Default for HideSets {
    fn default() -> Self {
        let mut ids = HashMap::new();
        ids.insert(Vec::new(), HideSet::EMPTY);
        HideSets { sets: vec![Vec::new()], ids, unions: HashMap::new() }
    }
}

impl HideSets {
    fn members(&self, set: HideSet) -> &[u32] {
        self.sets.get(set.0 as usize).map(Vec::as_slice).unwrap_or(&[])
    }

    fn intern(&mut self, members: Vec<u32>) -> HideSet {
        if let Some(&id) = self.ids.get(&members) {
            return id;
        }
        let id = HideSet(self.sets.len() as u32);
        self.sets.push(members.clone());
        self.ids.insert(members, id);
        id
    }

    pub fn contains(&self, set: HideSet, symbol: u32) -> bool {
        set != HideSet::EMPTY && self.members(set).binary_search(&symbol).is_ok()
    }

    pub fn with(&mut self, set: HideSet, symbol: u32) -> HideSet {
        let single = self.intern(vec![symbol]);
        self.union(set, single)
    }

    pub fn union(&mut self, a: HideSet, b: HideSet) -> HideSet {
        if a == b || b == HideSet::EMPTY {
            return a;
        }
        if a == HideSet::EMPTY {
            return b;
        }
        if let Some(&u) = self.unions.get(&(a, b)) {
            return u;
        }
        let mut members: Vec<u32> =
            self.members(a).iter().chain(self.members(b)).copied().collect();
        members.sort_unstable();
        members.dedup();
        let u = self.intern(members);
        self.unions.insert((a, b), u);
        u
    }

    pub fn intersection(&mut self, a: HideSet, b: HideSet) -> HideSet {
        if a == b {
            return a;
        }
        if a == HideSet::EMPTY || b == HideSet::EMPTY {
            return HideSet::EMPTY;
        }
        let other = self.members(b);
        let members: Vec<u32> =
            self.members(a).iter().copied().filter(|m| other.binary_search(m).is_ok()).collect();
        self.intern(members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let mut sets = HideSets::default();
        let a = sets.with(HideSet::EMPTY, 3);
        let ab = sets.with(a, 1);
        assert!(sets.contains(ab, 1) && sets.contains(ab, 3) && !sets.contains(ab, 2));
        let b = sets.with(HideSet::EMPTY, 1);
        assert_eq!(sets.union(b, a), ab, "interned: same members, same id");
        assert_eq!(sets.intersection(ab, b), b);
        assert_eq!(sets.intersection(a, b), HideSet::EMPTY);
        assert!(!sets.contains(HideSet::EMPTY, 0));
    }
}
