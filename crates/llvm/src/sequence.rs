//! Pass sequences and their rendering as new-pass-manager pipeline text.

use crate::pool::{PassLevel, PassPool};

/// An ordered list of pass names from a [`PassPool`], repetitions allowed (seed 003 draws
/// sequences of up to 256 passes at random from the pool).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PassSequence(pub Vec<String>);

impl PassSequence {
    /// The `opt -passes=` text. The new pass manager only infers adaptors for a pipeline of a
    /// single level, so a mixed sequence is nested explicitly: module passes bare, CGSCC passes
    /// in `cgscc(…)`, function passes in `function(…)`, loop passes in `loop(…)` or
    /// `loop-mssa(…)` inside the function group. Adjacent passes of one level share a group,
    /// which keeps the order and lets the pass manager run them per function (or loop) in turn.
    ///
    /// A name the pool does not know is written bare, so `opt` reports it.
    pub fn pipeline(&self, pool: &PassPool) -> String {
        let mut renderer = PipelineRenderer::default();
        for name in &self.0 {
            let level = pool.level(name).unwrap_or(PassLevel::Module);
            renderer.push(name, level);
        }
        renderer.finish()
    }

    /// Stable text identifying the sequence: the names joined by `,`.
    pub fn key(&self) -> String {
        self.0.join(",")
    }

    /// Parses [`PassSequence::key`] text back; empty text is the empty sequence.
    pub fn from_key(key: &str) -> PassSequence {
        PassSequence(
            key.split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_string)
                .collect(),
        )
    }

    /// Number of passes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no passes (the pipeline then does nothing: the -O0 baseline).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Builds the nested text one pass at a time, closing groups when the level changes.
#[derive(Default)]
struct PipelineRenderer {
    /// Finished top-level elements.
    top: Vec<String>,
    /// The open CGSCC group.
    cgscc: Vec<String>,
    /// The open function group's finished elements.
    function: Vec<String>,
    /// The open loop group inside the function group, with whether it is `loop-mssa`.
    loops: Vec<String>,
    loops_need_mssa: bool,
}

impl PipelineRenderer {
    fn push(&mut self, name: &str, level: PassLevel) {
        match level {
            PassLevel::Module => {
                self.close_cgscc();
                self.close_function();
                self.top.push(name.to_string());
            }
            PassLevel::Cgscc => {
                self.close_function();
                self.cgscc.push(name.to_string());
            }
            PassLevel::Function => {
                self.close_cgscc();
                self.close_loops();
                self.function.push(name.to_string());
            }
            PassLevel::Loop | PassLevel::LoopMssa => {
                self.close_cgscc();
                let mssa = level == PassLevel::LoopMssa;
                if !self.loops.is_empty() && self.loops_need_mssa != mssa {
                    self.close_loops();
                }
                self.loops_need_mssa = mssa;
                self.loops.push(name.to_string());
            }
        }
    }

    fn close_cgscc(&mut self) {
        if !self.cgscc.is_empty() {
            let group = format!("cgscc({})", self.cgscc.join(","));
            self.cgscc.clear();
            self.top.push(group);
        }
    }

    fn close_loops(&mut self) {
        if !self.loops.is_empty() {
            let adaptor = if self.loops_need_mssa { "loop-mssa" } else { "loop" };
            let group = format!("{adaptor}({})", self.loops.join(","));
            self.loops.clear();
            self.function.push(group);
        }
    }

    fn close_function(&mut self) {
        self.close_loops();
        if !self.function.is_empty() {
            let group = format!("function({})", self.function.join(","));
            self.function.clear();
            self.top.push(group);
        }
    }

    fn finish(mut self) -> String {
        self.close_cgscc();
        self.close_function();
        self.top.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::PoolPass;

    fn pool() -> PassPool {
        let pass = |name: &str, level| PoolPass { name: name.to_string(), level };
        PassPool::from_passes(vec![
            pass("globaldce", PassLevel::Module),
            pass("function-attrs", PassLevel::Cgscc),
            pass("instcombine", PassLevel::Function),
            pass("gvn", PassLevel::Function),
            pass("loop-rotate", PassLevel::Loop),
            pass("indvars", PassLevel::Loop),
            pass("licm", PassLevel::LoopMssa),
        ])
    }

    fn seq(names: &[&str]) -> PassSequence {
        PassSequence(names.iter().map(|n| n.to_string()).collect())
    }

    #[test]
    fn levels_nest_and_adjacent_passes_share_a_group() {
        let text = seq(&[
            "instcombine",
            "loop-rotate",
            "indvars",
            "licm",
            "gvn",
            "globaldce",
            "function-attrs",
            "function-attrs",
            "licm",
        ])
        .pipeline(&pool());
        assert_eq!(
            text,
            "function(instcombine,loop(loop-rotate,indvars),loop-mssa(licm),gvn),globaldce,\
             cgscc(function-attrs,function-attrs),function(loop-mssa(licm))"
        );
    }

    #[test]
    fn empty_and_unknown_passes() {
        assert_eq!(seq(&[]).pipeline(&pool()), "");
        assert_eq!(
            seq(&["gvn", "no-such-pass", "gvn"]).pipeline(&pool()),
            "function(gvn),no-such-pass,function(gvn)"
        );
    }

    #[test]
    fn key_round_trips() {
        let s = seq(&["gvn", "licm", "gvn"]);
        assert_eq!(s.key(), "gvn,licm,gvn");
        assert_eq!(PassSequence::from_key(&s.key()), s);
        assert!(PassSequence::from_key("").is_empty());
    }
}
