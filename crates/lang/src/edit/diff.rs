//! Line diffs in the unified format of `diff -u`, accepted by `patch` and `git apply`.
//!
//! The shortest edit script is found with Myers' O((N+M)·D) algorithm after stripping the common
//! prefix and suffix, which is what makes the typical transform diff (a few changed lines in a
//! kernel) cost almost nothing.

use std::fmt::Write as _;

/// One line of an edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// Line `old` of the old text equals line `new` of the new one.
    Keep {
        old: usize,
        new: usize,
    },
    Delete {
        old: usize,
    },
    Insert {
        new: usize,
    },
}

/// The unified diff from `old` to `new` with `context` lines around each change, headed by
/// `--- old_name` / `+++ new_name`. Identical texts give an empty string. A last line without
/// a line break is marked `\ No newline at end of file`, as `diff` does.
pub fn unified_diff(
    old: &str,
    new: &str,
    old_name: &str,
    new_name: &str,
    context: usize,
) -> String {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let script = edit_script(&old_lines, &new_lines);
    if script.iter().all(|op| matches!(op, Op::Keep { .. })) {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(out, "--- {old_name}");
    let _ = writeln!(out, "+++ {new_name}");
    for hunk in hunks(&script, context) {
        write_hunk(&mut out, &script, hunk, &old_lines, &new_lines);
    }
    out
}

/// Ranges of the script (start, end) that form hunks: changes with up to `context` kept lines
/// on each side, merged when their contexts touch.
fn hunks(script: &[Op], context: usize) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (i, op) in script.iter().enumerate() {
        if matches!(op, Op::Keep { .. }) {
            continue;
        }
        let start = i.saturating_sub(context);
        let end = (i + 1 + context).min(script.len());
        match ranges.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => ranges.push((start, end)),
        }
    }
    ranges
}

fn write_hunk(
    out: &mut String,
    script: &[Op],
    hunk: (usize, usize),
    old_lines: &[&str],
    new_lines: &[&str],
) {
    let has_old = |op: &Op| !matches!(op, Op::Insert { .. });
    let has_new = |op: &Op| !matches!(op, Op::Delete { .. });
    let before = script.get(..hunk.0).unwrap_or(&[]);
    let ops = script.get(hunk.0..hunk.1).unwrap_or(&[]);
    let old_before = before.iter().filter(|op| has_old(op)).count();
    let new_before = before.iter().filter(|op| has_new(op)).count();
    let old_count = ops.iter().filter(|op| has_old(op)).count();
    let new_count = ops.iter().filter(|op| has_new(op)).count();
    // An empty side names the line after which it applies (the `diff` convention).
    let old_pos = if old_count > 0 { old_before + 1 } else { old_before };
    let new_pos = if new_count > 0 { new_before + 1 } else { new_before };
    let _ = writeln!(
        out,
        "@@ -{} +{} @@",
        range_text(old_pos, old_count),
        range_text(new_pos, new_count)
    );
    for op in ops {
        let (marker, line) = match *op {
            Op::Keep { old, .. } => (' ', old_lines.get(old)),
            Op::Delete { old } => ('-', old_lines.get(old)),
            Op::Insert { new } => ('+', new_lines.get(new)),
        };
        let line = line.copied().unwrap_or("");
        out.push(marker);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

fn range_text(start: usize, count: usize) -> String {
    if count == 1 {
        format!("{start}")
    } else {
        format!("{start},{count}")
    }
}

/// The shortest edit script turning `a` into `b`.
fn edit_script(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix =
        a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let middle_a = &a[prefix..a.len() - suffix];
    let middle_b = &b[prefix..b.len() - suffix];
    let mut script: Vec<Op> = (0..prefix).map(|i| Op::Keep { old: i, new: i }).collect();
    for op in myers(middle_a, middle_b) {
        script.push(match op {
            Op::Keep { old, new } => Op::Keep { old: old + prefix, new: new + prefix },
            Op::Delete { old } => Op::Delete { old: old + prefix },
            Op::Insert { new } => Op::Insert { new: new + prefix },
        });
    }
    let tail_a = a.len() - suffix;
    let tail_b = b.len() - suffix;
    script.extend((0..suffix).map(|i| Op::Keep { old: tail_a + i, new: tail_b + i }));
    script
}

/// Myers' greedy forward algorithm, keeping each round's frontier to trace the path back.
fn myers(a: &[&str], b: &[&str]) -> Vec<Op> {
    let n = a.len() as isize;
    let m = b.len() as isize;
    let max = (n + m) as usize;
    let offset = max as isize + 1;
    let mut frontier = vec![0isize; 2 * max + 3];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    'search: for d in 0..=max as isize {
        trace.push(frontier.clone());
        let mut k = -d;
        while k <= d {
            let idx = (k + offset) as usize;
            let mut x = if k == -d || (k != d && frontier[idx - 1] < frontier[idx + 1]) {
                frontier[idx + 1]
            } else {
                frontier[idx - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            frontier[idx] = x;
            if x >= n && y >= m {
                trace.push(frontier.clone());
                break 'search;
            }
            k += 2;
        }
    }
    // Walk back from (n, m) through the saved frontiers.
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..trace.len() - 1).rev() {
        let v = &trace[d];
        let d = d as isize;
        let k = x - y;
        let idx = (k + offset) as usize;
        let prev_k = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) { k + 1 } else { k - 1 };
        let prev_x = v[(prev_k + offset) as usize];
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            x -= 1;
            y -= 1;
            ops.push(Op::Keep { old: x as usize, new: y as usize });
        }
        if x == prev_x {
            y -= 1;
            ops.push(Op::Insert { new: y as usize });
        } else {
            x -= 1;
            ops.push(Op::Delete { old: x as usize });
        }
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        ops.push(Op::Keep { old: x as usize, new: y as usize });
    }
    ops.reverse();
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply_script(a: &[&str], b: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        for op in edit_script(a, b) {
            match op {
                Op::Keep { old, new } => {
                    assert_eq!(a[old], b[new]);
                    out.push(a[old].to_string());
                }
                Op::Delete { .. } => {}
                Op::Insert { new } => out.push(b[new].to_string()),
            }
        }
        out
    }

    #[test]
    fn scripts_rebuild_the_new_text() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["a", "b", "c"], &["a", "x", "c"]),
            (&[], &["a"]),
            (&["a"], &[]),
            (&["a", "b", "c", "a", "b", "b", "a"], &["c", "b", "a", "b", "a", "c"]),
            (&["x", "y"], &["y", "x", "y", "z"]),
        ];
        for (a, b) in cases {
            assert_eq!(apply_script(a, b), b.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        }
        // Myers finds the shortest script: 5 edits for the textbook example.
        let a = ["a", "b", "c", "a", "b", "b", "a"];
        let b = ["c", "b", "a", "b", "a", "c"];
        let edits = edit_script(&a, &b).iter().filter(|op| !matches!(op, Op::Keep { .. })).count();
        assert_eq!(edits, 5);
    }

    #[test]
    fn unified_format_matches_diff_u() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\nfour\n5\n6\n7\n8\n9\nten\n";
        let diff = unified_diff(old, new, "a/k.cl", "b/k.cl", 2);
        assert_eq!(
            diff,
            "--- a/k.cl\n+++ b/k.cl\n@@ -2,5 +2,5 @@\n 2\n 3\n-4\n+four\n 5\n 6\n@@ -8,2 +8,3 @@\n 8\n 9\n+ten\n"
        );
        assert_eq!(unified_diff(old, old, "a", "b", 3), "");
    }

    #[test]
    fn empty_sides_and_missing_final_newline() {
        assert_eq!(unified_diff("", "x\n", "a", "b", 3), "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n");
        assert_eq!(unified_diff("x\n", "", "a", "b", 3), "--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n");
        assert_eq!(
            unified_diff("a\nb", "a\nc", "a", "b", 3),
            "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
        );
    }
}
