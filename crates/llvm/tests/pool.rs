//! Pass pool detection against the installed `opt`, on a few candidates to keep CI fast.

mod common;

use clmap_llvm::{detect_pass_pool_with, PassLevel, PoolDetection};

#[test]
fn probing_finds_levels_and_excludes_broken_passes() {
    let Some(tc) = common::toolchain() else { return };
    let cache = clmap_testkit::Scratch::new("llvm-pool");
    let only = ["sroa", "licm", "loop-rotate", "globaldce", "internalize", "not-a-pass"];
    let options = PoolDetection {
        cache_dir: Some(cache.path().to_path_buf()),
        no_cache: false,
        jobs: 2,
        only: Some(only.iter().map(|s| s.to_string()).collect()),
    };
    let pool = detect_pass_pool_with(&tc, &options).expect("detection");
    assert_eq!(pool.level("sroa"), Some(PassLevel::Function));
    assert_eq!(pool.level("loop-rotate"), Some(PassLevel::Loop));
    assert_eq!(pool.level("globaldce"), Some(PassLevel::Module));
    // licm is listed as a loop pass but refuses to run without MemorySSA on LLVM 16; either
    // way it must end up usable at a level that works.
    assert!(matches!(pool.level("licm"), Some(PassLevel::LoopMssa | PassLevel::Loop)));
    // internalize makes the kernel internal and the final globaldce then deletes it.
    assert_eq!(pool.level("internalize"), None);
    let excluded: Vec<&str> = pool.excluded().iter().map(|e| e.name.as_str()).collect();
    assert!(excluded.contains(&"internalize"), "{excluded:?}");
    assert_eq!(pool.len(), 4, "{:?}", pool.names());

    // The second detection comes from the cache file.
    let files: Vec<_> =
        std::fs::read_dir(cache.path()).expect("cache dir").filter_map(Result::ok).collect();
    assert_eq!(files.len(), 1);
    let again = detect_pass_pool_with(&tc, &options).expect("cached");
    assert_eq!(again, pool);

    // A cache named as a .json file is used as that file, and only when its key matches:
    // a pool detected for another opt is probed again, not trusted.
    let explicit = cache.path().join("explicit.json");
    let cached_text = std::fs::read_to_string(files[0].path()).expect("cache text");
    let foreign = cached_text.replacen("\"key\": \"", "\"key\": \"other-", 1);
    assert_ne!(foreign, cached_text);
    std::fs::write(&explicit, foreign.replace("\"sroa\"", "\"stale-pass\"")).expect("write");
    let options = PoolDetection { cache_dir: Some(explicit.clone()), ..options };
    let reprobed = detect_pass_pool_with(&tc, &options).expect("reprobed");
    assert_eq!(reprobed.level("stale-pass"), None);
    assert_eq!(reprobed.names(), pool.names());
    let rewritten = std::fs::read_to_string(&explicit).expect("rewritten");
    assert_eq!(rewritten, cached_text);
}

/// The passes a search for the suite's kernels needs (seed 003's effect comes from run-time
/// alias checks and the hoisting they allow), with the level each must be nested at where it
/// matters: they come from the installed `opt`, not from a list in clmap.
const NEEDED: [(&str, Option<PassLevel>); 14] = [
    ("loop-versioning", Some(PassLevel::Function)),
    ("loop-versioning-licm", Some(PassLevel::Loop)),
    ("licm", Some(PassLevel::LoopMssa)),
    ("lnicm", Some(PassLevel::LoopMssa)),
    ("loop-unroll-and-jam", Some(PassLevel::Loop)),
    ("slp-vectorizer", Some(PassLevel::Function)),
    ("load-store-vectorizer", Some(PassLevel::Function)),
    ("loop-vectorize", Some(PassLevel::Function)),
    ("loop-interchange", None),
    ("loop-fusion", None),
    ("loop-distribute", None),
    ("simple-loop-unswitch", None),
    ("loop-unroll", None),
    ("gvn", Some(PassLevel::Function)),
];

#[test]
fn the_pool_is_every_listed_transformation_that_survives_the_probe() {
    let Some(tc) = common::toolchain() else { return };
    let candidates = clmap_llvm::transformation_candidates(&tc).expect("opt --print-passes");
    // The default cache, as `clmap phase` uses it: probed once per opt, then read back.
    let pool = detect_pass_pool_with(&tc, &PoolDetection { jobs: 2, ..PoolDetection::default() })
        .expect("detection");
    let excluded: Vec<&str> = pool.excluded().iter().map(|e| e.name.as_str()).collect();
    let names = pool.names();
    // Every candidate ends up in the pool or excluded with a reason, and nothing else is in
    // the pool.
    for (name, _) in &candidates {
        assert!(
            names.contains(&name.as_str()) != excluded.contains(&name.as_str()),
            "{name}: in the pool {}, excluded {}",
            names.contains(&name.as_str()),
            excluded.contains(&name.as_str())
        );
    }
    assert_eq!(names.len() + excluded.len(), candidates.len());
    assert!(pool.excluded().iter().all(|e| !e.reason.is_empty()));
    for (name, level) in NEEDED {
        assert!(
            candidates.iter().any(|(c, _)| c == name),
            "{name} is not listed by opt --print-passes ({})",
            tc.describe()
        );
        let found = pool.level(name);
        assert!(
            found.is_some(),
            "{name} excluded: {:?}",
            pool.excluded().iter().find(|e| e.name == name)
        );
        if let Some(level) = level {
            assert_eq!(found, Some(level), "{name}");
        }
    }
    assert!(pool.len() >= 80, "only {} usable passes: {:?}", pool.len(), names);
}
