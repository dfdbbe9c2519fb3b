//! Arenas of IR nodes addressed by typed `u32` handles, with a span beside every node.
//!
//! Handles are only meaningful for the arena that issued them; the validator checks that every
//! handle stored in the IR is in range, so later passes may index without checking.

use crate::span::Span;
use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;

/// A typed index into an [`Arena`] or [`UniqueArena`].
pub struct Handle<T> {
    index: u32,
    marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    pub const fn from_index(index: usize) -> Self {
        Handle { index: index as u32, marker: PhantomData }
    }

    pub const fn index(self) -> usize {
        self.index as usize
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}
impl<T> Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.index)
    }
}

/// An append-only vector of nodes with a span each.
#[derive(Clone)]
pub struct Arena<T> {
    data: Vec<T>,
    spans: Vec<Span>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { data: Vec::new(), spans: Vec::new() }
    }
}

impl<T: PartialEq> PartialEq for Arena<T> {
    fn eq(&self, other: &Self) -> bool {
        self.data == other.data && self.spans == other.spans
    }
}

impl<T: fmt::Debug> fmt::Debug for Arena<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter().map(|(h, v)| (h, v))).finish()
    }
}

impl<T> Arena<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn append(&mut self, value: T, span: Span) -> Handle<T> {
        self.data.push(value);
        self.spans.push(span);
        Handle::from_index(self.data.len() - 1)
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn get(&self, handle: Handle<T>) -> Option<&T> {
        self.data.get(handle.index())
    }

    pub fn get_mut(&mut self, handle: Handle<T>) -> &mut T {
        &mut self.data[handle.index()]
    }

    pub fn span(&self, handle: Handle<T>) -> Span {
        self.spans.get(handle.index()).copied().unwrap_or(Span::UNDEFINED)
    }

    pub fn contains(&self, handle: Handle<T>) -> bool {
        handle.index() < self.data.len()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (Handle<T>, &T)> + ExactSizeIterator {
        self.data.iter().enumerate().map(|(i, v)| (Handle::from_index(i), v))
    }

    pub fn handles(&self) -> impl DoubleEndedIterator<Item = Handle<T>> + ExactSizeIterator {
        (0..self.data.len()).map(Handle::from_index)
    }
}

impl<T> std::ops::Index<Handle<T>> for Arena<T> {
    type Output = T;
    fn index(&self, handle: Handle<T>) -> &T {
        &self.data[handle.index()]
    }
}

impl<T> std::ops::IndexMut<Handle<T>> for Arena<T> {
    fn index_mut(&mut self, handle: Handle<T>) -> &mut T {
        &mut self.data[handle.index()]
    }
}

/// An arena that stores each distinct value once (types), so handle equality is type equality.
#[derive(Clone)]
pub struct UniqueArena<T: Eq + Hash + Clone> {
    data: Vec<T>,
    spans: Vec<Span>,
    lookup: HashMap<T, u32>,
}

impl<T: Eq + Hash + Clone> Default for UniqueArena<T> {
    fn default() -> Self {
        UniqueArena { data: Vec::new(), spans: Vec::new(), lookup: HashMap::new() }
    }
}

impl<T: Eq + Hash + Clone + fmt::Debug> fmt::Debug for UniqueArena<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<T: Eq + Hash + Clone> UniqueArena<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the handle of an equal value if there is one, else appends it. The span of the
    /// first insertion is kept.
    pub fn insert(&mut self, value: T, span: Span) -> Handle<T> {
        if let Some(&i) = self.lookup.get(&value) {
            return Handle::from_index(i as usize);
        }
        self.data.push(value.clone());
        self.spans.push(span);
        let index = self.data.len() as u32 - 1;
        self.lookup.insert(value, index);
        Handle::from_index(index as usize)
    }

    /// Replaces the value at `handle` in place, so handles already taken to it (a struct's own
    /// members pointing back at it) now denote the new value. Refused, leaving the arena as it
    /// was, when an equal value lives at another handle: each value is stored once.
    pub fn replace(&mut self, handle: Handle<T>, value: T, span: Span) -> Result<(), Handle<T>> {
        if let Some(&i) = self.lookup.get(&value) {
            if i as usize != handle.index() {
                return Err(Handle::from_index(i as usize));
            }
        }
        let Some(slot) = self.data.get_mut(handle.index()) else {
            return Err(handle);
        };
        let old = std::mem::replace(slot, value.clone());
        self.lookup.remove(&old);
        self.lookup.insert(value, handle.index() as u32);
        self.spans[handle.index()] = span;
        Ok(())
    }

    pub fn find(&self, value: &T) -> Option<Handle<T>> {
        self.lookup.get(value).map(|&i| Handle::from_index(i as usize))
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn get(&self, handle: Handle<T>) -> Option<&T> {
        self.data.get(handle.index())
    }

    pub fn span(&self, handle: Handle<T>) -> Span {
        self.spans.get(handle.index()).copied().unwrap_or(Span::UNDEFINED)
    }

    pub fn contains(&self, handle: Handle<T>) -> bool {
        handle.index() < self.data.len()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (Handle<T>, &T)> + ExactSizeIterator {
        self.data.iter().enumerate().map(|(i, v)| (Handle::from_index(i), v))
    }
}

impl<T: Eq + Hash + Clone> std::ops::Index<Handle<T>> for UniqueArena<T> {
    type Output = T;
    fn index(&self, handle: Handle<T>) -> &T {
        &self.data[handle.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_arena_interns() {
        let mut a = UniqueArena::new();
        let x = a.insert("x".to_string(), Span::UNDEFINED);
        let y = a.insert("y".to_string(), Span::UNDEFINED);
        assert_eq!(a.insert("x".to_string(), Span::UNDEFINED), x);
        assert_ne!(x, y);
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn replace_keeps_the_handle_and_uniqueness() {
        let mut a = UniqueArena::new();
        let x = a.insert("x".to_string(), Span::UNDEFINED);
        let y = a.insert("y".to_string(), Span::UNDEFINED);
        assert_eq!(a.replace(x, "z".to_string(), Span::UNDEFINED), Ok(()));
        assert_eq!(a[x], "z");
        assert_eq!(a.find(&"z".to_string()), Some(x));
        assert_eq!(a.find(&"x".to_string()), None, "the old value is forgotten");
        assert_eq!(a.replace(x, "y".to_string(), Span::UNDEFINED), Err(y), "y is stored at y");
        assert_eq!(a[x], "z", "a refused replacement changes nothing");
        assert_eq!(a.insert("x".to_string(), Span::UNDEFINED).index(), 2);
    }
}
