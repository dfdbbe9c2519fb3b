//! `#include` from disk through `FsLoader`: quoted includes start next to the including file,
//! angled ones only in `-I` directories, and missing files are diagnostics.

use clmap_lang::lex::tokens_to_string;
use clmap_lang::preprocess::{preprocess, BuildOptions, FsLoader};
use clmap_lang::{SourceFile, SourceMap};
use std::path::PathBuf;

struct TempTree(PathBuf);

impl TempTree {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("clmap-pp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src/detail")).expect("temporary directory");
        std::fs::create_dir_all(dir.join("include")).expect("temporary directory");
        TempTree(dir)
    }

    fn write(&self, path: &str, text: &str) -> PathBuf {
        let full = self.0.join(path);
        std::fs::write(&full, text).expect("temporary file");
        full
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn includes_resolve_on_disk() {
    let tree = TempTree::new("fs");
    tree.write("src/common.h", "#pragma once\nlocal_common\n#include \"detail/inner.h\"\n");
    tree.write("src/detail/inner.h", "inner\n#include \"../common.h\"\n");
    tree.write("include/common.h", "system_common\n");
    tree.write("include/only_system.h", "#include \"common.h\"\n");
    let main_path = tree.write(
        "src/main.cl",
        "#include \"common.h\"\n#include <common.h>\n#include <only_system.h>\n#include \"absent.h\"\nend\n",
    );
    let text = std::fs::read_to_string(&main_path).expect("main");
    let mut sources = SourceMap::new();
    let main = sources.add(SourceFile::new("main.cl", Some(main_path), text));
    let mut options = BuildOptions::default();
    options.include_dirs.push(tree.0.join("include"));
    let result = preprocess(&mut sources, main, &options, &FsLoader);
    // `only_system.h` includes "common.h" next to itself, i.e. the system one again.
    assert_eq!(
        tokens_to_string(&result.tokens),
        "local_common inner system_common system_common end"
    );
    let errors: Vec<&str> = result.diagnostics.0.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(errors, ["'absent.h' file not found"]);
    assert_eq!(result.included_files.len(), 5);
}
