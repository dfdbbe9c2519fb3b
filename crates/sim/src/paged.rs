//! Merging paged per-thread tables.
//!
//! The race checker's shadow and the metrics' access counts keep one table per simulation
//! thread, each a vector of optional fixed-size pages. A launch's threads merge them as they
//! finish (see `launch.rs`), each merge on one thread, with [`merge_pages_keeping`], which
//! keeps the pages it combined to be freed after the launch (see [`crate::spent`]).
//! [`merge_pages`] shares one merge's pages out among several threads, for a caller with
//! threads to spare. Pages are independent, so the result is the same whatever the number
//! of threads.

/// One page of a table: `None` until something was recorded in it.
pub type Page<T> = Option<Box<[T]>>;

/// Fewest pages worth a thread of their own: below this, starting the thread costs more
/// than merging the pages.
const MIN_PAGES_PER_THREAD: usize = 8;

/// Merges `theirs` into `mine`, page by page, on up to `threads` threads: a page only
/// `theirs` has moves over whole, and pages both have are combined element by element with
/// `combine(mine, theirs)`. `mine` grows to `theirs`'s length if shorter.
pub fn merge_pages<T, F>(mine: &mut Vec<Page<T>>, theirs: Vec<Page<T>>, threads: usize, combine: F)
where
    T: Send + Sync,
    F: Fn(&mut T, &T) + Sync,
{
    if mine.len() < theirs.len() {
        mine.resize_with(theirs.len(), || None);
    }
    let threads = threads.min(theirs.len() / MIN_PAGES_PER_THREAD).max(1);
    if threads == 1 {
        merge_range(mine, theirs, &combine);
        return;
    }
    let chunk = theirs.len().div_ceil(threads);
    let mut pages = theirs.into_iter();
    let ranges: Vec<Vec<Page<T>>> =
        (0..threads).map(|_| pages.by_ref().take(chunk).collect()).collect();
    std::thread::scope(|scope| {
        for (into, from) in mine.chunks_mut(chunk).zip(ranges) {
            let combine = &combine;
            scope.spawn(move || merge_range(into, from, combine));
        }
    });
}

/// Merges `theirs` into `mine` on this thread as [`merge_pages`] does, but keeps the pages of
/// `theirs` that were combined into `mine` in `spent` instead of freeing them: freeing
/// thousands of large pages gives memory back to the system a page at a time, which costs
/// more than combining them, so the caller frees them all at once where no one waits.
pub fn merge_pages_keeping<T, F>(
    mine: &mut Vec<Page<T>>,
    theirs: Vec<Page<T>>,
    spent: &mut Vec<Box<[T]>>,
    combine: F,
) where
    F: Fn(&mut T, &T),
{
    if mine.len() < theirs.len() {
        mine.resize_with(theirs.len(), || None);
    }
    for (into, from) in mine.iter_mut().zip(theirs) {
        let Some(from) = from else { continue };
        match into {
            Some(page) => {
                page.iter_mut().zip(from.iter()).for_each(|(a, b)| combine(a, b));
                spent.push(from);
            }
            None => *into = Some(from),
        }
    }
}

fn merge_range<T, F: Fn(&mut T, &T)>(mine: &mut [Page<T>], theirs: Vec<Page<T>>, combine: &F) {
    for (into, from) in mine.iter_mut().zip(theirs) {
        let Some(from) = from else { continue };
        match into {
            Some(page) => page.iter_mut().zip(from.iter()).for_each(|(a, b)| combine(a, b)),
            None => *into = Some(from),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(pages: usize, seed: u64) -> Vec<Page<u64>> {
        (0..pages as u64)
            .map(|p| {
                ((p + seed) % 3 != 0)
                    .then(|| (0..16).map(|i| (p * 31 + i * 7 + seed) % 11).collect())
            })
            .collect()
    }

    #[test]
    fn the_result_does_not_depend_on_the_threads() {
        let serial = {
            let mut mine = table(100, 1);
            merge_pages(&mut mine, table(100, 2), 1, |a, b| *a += b);
            mine
        };
        for threads in [2, 3, 7, 16, 64] {
            let mut mine = table(100, 1);
            merge_pages(&mut mine, table(100, 2), threads, |a, b| *a += b);
            assert_eq!(mine, serial, "{threads} threads");
        }
        // A page only the other table has is taken over; one both have is combined.
        let mine = table(100, 1);
        let theirs = table(100, 2);
        let only_theirs = (0..100).find(|&p| mine[p].is_none() && theirs[p].is_some()).unwrap();
        assert_eq!(serial[only_theirs], theirs[only_theirs]);
        let both = (0..100).find(|&p| mine[p].is_some() && theirs[p].is_some()).unwrap();
        let expected: Vec<u64> = mine[both]
            .as_ref()
            .unwrap()
            .iter()
            .zip(theirs[both].as_ref().unwrap().iter())
            .map(|(a, b)| a + b)
            .collect();
        assert_eq!(serial[both].as_deref(), Some(&expected[..]));
    }

    #[test]
    fn keeping_the_spent_pages_gives_the_same_table() {
        let mut merged = table(100, 1);
        merge_pages(&mut merged, table(100, 2), 1, |a, b| *a += b);
        let mut kept = table(100, 1);
        let mut spent = Vec::new();
        merge_pages_keeping(&mut kept, table(100, 2), &mut spent, |a, b| *a += b);
        assert_eq!(kept, merged);
        // Exactly the pages both tables had were combined and kept aside.
        let (mine, theirs) = (table(100, 1), table(100, 2));
        let both = (0..100).filter(|&p| mine[p].is_some() && theirs[p].is_some()).count();
        assert_eq!(spent.len(), both);
    }

    #[test]
    fn a_shorter_table_grows_and_an_empty_one_takes_everything() {
        let mut mine: Vec<Page<u64>> = Vec::new();
        merge_pages(&mut mine, table(40, 5), 4, |a, b| *a += b);
        assert_eq!(mine, table(40, 5));
    }
}
