//! `#include` from disk through `FsLoader`: quoted includes start next to the including file,
//! angled ones only in `-I` directories, and missing files are diagnostics.

use clmap_lang::lex::tokens_to_string;
use clmap_lang::preprocess::{preprocess, BuildOptions, FsLoader};
use clmap_lang::{SourceFile, SourceMap};
use clmap_testkit::Scratch;
use std::path::PathBuf;

struct TempTree(Scratch);

impl TempTree {
    fn new(name: &str) -> Self {
        let scratch = Scratch::new(&format!("pp-{name}"));
        std::fs::create_dir_all(scratch.join("src/detail")).expect("temporary directory");
        std::fs::create_dir_all(scratch.join("include")).expect("temporary directory");
        TempTree(scratch)
    }

    fn write(&self, path: &str, text: &str) -> PathBuf {
        self.0.write(path, text)
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
