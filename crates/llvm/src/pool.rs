//! The usable passes of one `opt` and the pass manager level each runs at.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Where a pass sits in the new pass manager, which decides how a pipeline must nest it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassLevel {
    /// Runs on the whole module: written bare.
    Module,
    /// Runs on call-graph SCCs: written inside `cgscc(…)`.
    Cgscc,
    /// Runs on each function: written inside `function(…)`.
    Function,
    /// Runs on each loop (or loop nest): written inside `function(loop(…))`.
    Loop,
    /// A loop pass that needs MemorySSA (licm and friends on LLVM 16): written inside
    /// `function(loop-mssa(…))`.
    LoopMssa,
}

/// One usable pass.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolPass {
    /// The name as `opt -passes` accepts it.
    pub name: String,
    /// Its level.
    pub level: PassLevel,
}

/// A pass that detection left out, and why (it crashed, hung, broke the IR, removed the kernel
/// or instrumented it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExcludedPass {
    /// The pass name.
    pub name: String,
    /// What went wrong on the probe kernels.
    pub reason: String,
}

/// The passes a sequence may draw from, each with its level. Built by
/// [`crate::detect_pass_pool`] or, in tests and for known lists, [`PassPool::from_passes`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassPool {
    passes: Vec<PoolPass>,
    #[serde(default)]
    excluded: Vec<ExcludedPass>,
    #[serde(skip)]
    index: HashMap<String, usize>,
}

impl PassPool {
    /// A pool of the given passes; a repeated name keeps its first level.
    pub fn from_passes(passes: Vec<PoolPass>) -> PassPool {
        let mut pool = PassPool {
            passes: Vec::with_capacity(passes.len()),
            excluded: Vec::new(),
            index: HashMap::new(),
        };
        for pass in passes {
            if !pool.index.contains_key(&pass.name) {
                pool.index.insert(pass.name.clone(), pool.passes.len());
                pool.passes.push(pass);
            }
        }
        pool
    }

    /// The pass names, in detection order.
    pub fn names(&self) -> Vec<&str> {
        self.passes.iter().map(|p| p.name.as_str()).collect()
    }

    /// Every pass with its level.
    pub fn passes(&self) -> &[PoolPass] {
        &self.passes
    }

    /// How many passes there are.
    pub fn len(&self) -> usize {
        self.passes.len()
    }

    /// Whether the pool has no pass.
    pub fn is_empty(&self) -> bool {
        self.passes.is_empty()
    }

    /// The level of `name`, if it is in the pool.
    pub fn level(&self, name: &str) -> Option<PassLevel> {
        self.index.get(name).and_then(|&i| self.passes.get(i)).map(|p| p.level)
    }

    /// The candidates detection excluded, with reasons.
    pub fn excluded(&self) -> &[ExcludedPass] {
        &self.excluded
    }

    /// The same pool, recording which candidates were excluded.
    pub fn with_excluded(mut self, excluded: Vec<ExcludedPass>) -> PassPool {
        self.excluded = excluded;
        self
    }

    /// Rebuilds the name index after deserialising (the index is not stored).
    pub(crate) fn reindexed(self) -> PassPool {
        let excluded = self.excluded;
        PassPool::from_passes(self.passes).with_excluded(excluded)
    }
}
