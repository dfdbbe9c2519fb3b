//! Differential test: every corpus kernel preprocesses to the same tokens as `clang -E`.
//!
//! Both outputs are re-lexed by our lexer and compared token by token (values, not spellings),
//! so layout differences do not matter. Clang's `-cl-no-stdinc` keeps its OpenCL header out.
//! Clang evaluates `#if` with 128-bit integers on this target where we use 64 bits (as C99
//! allows), so the corpus avoids conditions whose value depends on the width.

use clmap_lang::lex::{display_kind, lex_str, tokens_to_string};
use clmap_lang::preprocess::{preprocess, BuildOptions, FsLoader};
use clmap_lang::{SourceFile, SourceMap};
use std::path::{Path, PathBuf};
use std::process::Command;

fn clang() -> Option<&'static str> {
    ["clang-16", "clang"]
        .into_iter()
        .find(|name| Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// The `options = "…"` value of a workload file next to the kernel, if any.
fn corpus_options(kernel: &Path) -> String {
    let toml = std::fs::read_to_string(kernel.with_extension("toml")).unwrap_or_default();
    toml.lines()
        .find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "options").then(|| value.trim().trim_matches('"').to_string())
        })
        .unwrap_or_default()
}

fn values(text: &str) -> Vec<String> {
    lex_str(text).iter().map(|t| display_kind(&t.kind)).collect()
}

#[test]
fn corpus_matches_clang_preprocessor() {
    let Some(clang) = clang() else {
        eprintln!("clang not found: differential preprocessing test skipped");
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut kernels: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    kernels.sort();
    assert!(!kernels.is_empty());
    let mut failures = Vec::new();
    for kernel in &kernels {
        let option_string = corpus_options(kernel);
        let mut options = BuildOptions::parse(&option_string).expect("valid corpus options");
        options.include_dirs.push(dir.clone());
        let text = std::fs::read_to_string(kernel).expect("readable kernel");
        let mut sources = SourceMap::new();
        let main = sources.add(SourceFile::new("k.cl", Some(kernel.clone()), text));
        let ours = preprocess(&mut sources, main, &options, &FsLoader);
        let output = Command::new(clang)
            .args(["-E", "-P", "-x", "cl", "-cl-std=CL1.2", "-cl-no-stdinc"])
            .args(option_string.split_whitespace())
            .arg("-I")
            .arg(&dir)
            .arg(kernel)
            .output()
            .expect("clang runs");
        if !output.status.success() {
            failures.push(format!("{}: clang failed", kernel.display()));
            continue;
        }
        let theirs = values(&String::from_utf8_lossy(&output.stdout));
        let mine = values(&tokens_to_string(&ours.tokens));
        if theirs != mine {
            let at = theirs.iter().zip(&mine).position(|(a, b)| a != b).unwrap_or(0);
            let end = |v: &Vec<String>| (at + 6).min(v.len());
            failures.push(format!(
                "{}: first difference at token {at}: clang {:?}, ours {:?}",
                kernel.display(),
                theirs.get(at..end(&theirs)).unwrap_or(&[]),
                mine.get(at..end(&mine)).unwrap_or(&[]),
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Macro corner cases (rescanning, painting, pasting, stringifying, variadics) against clang.
#[test]
fn macro_corner_cases_match_clang_preprocessor() {
    let Some(clang) = clang() else {
        eprintln!("clang not found: differential preprocessing test skipped");
        return;
    };
    let text = r#"#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
#define OBJ (1 + OBJ)
OBJ
#define AA BB
#define BB AA
AA BB
#define CAT(a, b) a ## b
#define XCAT(a, b) CAT(a, b)
XCAT(XCAT(1, 2), 3) CAT(x, CAT(y, z)) CAT(0x, 1f) CAT(1e, 5) CAT(., 5) CAT(<, <=) CAT(-, >)
#define EMPTY
#define LPAREN (
#define F(x) [x]
F EMPTY (1) F LPAREN 2)
#define G(x, ...) x __VA_ARGS__ #__VA_ARGS__
G(1) G(1,2,3) G((a,b),c)
#define STR(x) #x
#define XSTR(x) STR(x)
STR( a  +   b ) STR("x\n" '\'') XSTR(__LINE__) STR(  ) STR(a
b)
#if (2 || 1/0) && -1 < 0 && (1 ? 2 : 0) > 1 && ('\377' < 0) && (-7 / 2 == -3)
yes1
#endif
#if defined(F) + defined EMPTY == 2 && !defined NOPE
yes2
#elif 1
no
#endif
#define ID(x) x
ID(ID)(5) ID(ID(ID))(6)
#define NEST(x) x NEST
NEST(NEST)(1)
int line = __LINE__;
#define TWICE(x) x x
TWICE(TWICE(a))
#define APPLY(f, x) f(x)
APPLY(STR, hi there) APPLY(F, APPLY(F, 1))
#define COMMA ,
F(COMMA) G(a COMMA b, c)
#define M(x) defined(x)
#if M(M)
yes3
#endif
#define H2(x) x
H2(
  multi
  line
)
INT_MAX FLT_MAX CL_VERSION_1_2
"#;
    let scratch = clmap_testkit::Scratch::new("pp-corner");
    let path = scratch.write("corner.cl", text);
    // Clang has no OpenCL limits without its header; give both sides the same ones.
    let defines = "-DINT_MAX=2147483647 -DFLT_MAX=0x1.fffffep127f -DCL_VERSION_1_2=120";
    let output = Command::new(clang)
        .args(["-E", "-P", "-x", "cl", "-cl-std=CL1.2", "-cl-no-stdinc"])
        .args(defines.split_whitespace())
        .arg(&path)
        .output()
        .expect("clang runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (sources, ours) = clmap_lang::preprocess::preprocess_text(text, &BuildOptions::default());
    assert!(!ours.diagnostics.has_errors(), "{}", ours.diagnostics.render(&sources));
    assert_eq!(
        values(&tokens_to_string(&ours.tokens)),
        values(&String::from_utf8_lossy(&output.stdout))
    );
}
