//! Robustness: thousands of random and mutated workload texts must load or fail with an
//! error, never panic, and whatever loads must produce its initial data.

use std::path::{Path, PathBuf};

use clmap_workload::rng::SplitMix64;
use clmap_workload::{
    Expr, FixedSignatures, Init, KernelParam, LoadOptions, Number, ParamSpace, Workload,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Small limits so that a mutated size cannot make the test allocate gigabytes.
const OPTIONS: LoadOptions = LoadOptions { max_total_bytes: 1 << 20, build_options: None };

const FRAGMENTS: &[&str] = &[
    "<",
    ">",
    "[",
    "]",
    "{",
    "}",
    "=",
    "\"",
    ",",
    "(",
    ")",
    ":",
    "#",
    "\n",
    " ",
    "-",
    ".",
    "0",
    "1",
    "-1",
    "4294967296",
    "99999999999999999999999999999999999999999",
    "1e308",
    "nan",
    "inf",
    "0x",
    "size=",
    "fill=",
    "range=",
    "1:1:8",
    "dump",
    "hex",
    "null",
    "local",
    "noinit",
    "ro",
    "wo",
    "float4",
    "uchar",
    "half",
    "double16",
    "int3",
    "random(",
    "fill(",
    "range(",
    "file(",
    "zero",
    "[[arg]]",
    "[[launch]]",
    "[buffers]",
    "global",
    "len",
    "init",
    "repeat",
    "swap",
    "outputs",
    "scalar",
    "value",
    "buffer",
    "name",
    "[[group]]",
    "[[group.launch]]",
    "[[group.group]]",
    "[[launch.write]]",
    "[sizes]",
    "\"n * 2\"",
    "\"i * 3 - 1\"",
    "(",
    "%",
    "/ 0",
    "index",
    "offset",
    "é",
    "\u{0}",
    "\t",
];

fn seeds(ext: &str, dir: &Path) -> Vec<String> {
    let mut texts = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == ext) {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    texts.push(text);
                }
            }
        }
    }
    assert!(!texts.is_empty(), "no .{ext} seeds in {}", dir.display());
    texts
}

fn pick<'a, T>(rng: &mut SplitMix64, items: &'a [T]) -> &'a T {
    &items[(rng.next_u64() % items.len() as u64) as usize]
}

/// A char boundary at or before a random position.
fn position(rng: &mut SplitMix64, text: &str) -> usize {
    let mut at = (rng.next_u64() % (text.len() as u64 + 1)) as usize;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutate(rng: &mut SplitMix64, text: &str) -> String {
    let mut text = text.to_string();
    let edits = 1 + rng.next_u64() % 4;
    for _ in 0..edits {
        match rng.next_u64() % 6 {
            0 => {
                let a = position(rng, &text);
                let b = position(rng, &text);
                let (a, b) = (a.min(b), a.max(b));
                text.replace_range(a..b.min(a + 20), "");
            }
            1 | 2 => {
                let at = position(rng, &text);
                text.insert_str(at, pick::<&str>(rng, FRAGMENTS));
            }
            3 => {
                // Replace a number with an extreme one.
                if let Some(at) = text.find(|c: char| c.is_ascii_digit()) {
                    let end = text[at..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(text.len(), |e| at + e);
                    let extreme = ["0", "18446744073709551616", "-5", "3", "1099511627776"];
                    text.replace_range(at..end, pick::<&str>(rng, &extreme));
                }
            }
            4 => {
                let at = position(rng, &text);
                text.truncate(at);
            }
            _ => {
                let lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let line = pick::<&str>(rng, &lines).to_string();
                    let at = position(rng, &text);
                    text.insert_str(at, &format!("\n{line}\n"));
                }
            }
        }
    }
    text
}

fn random_text(rng: &mut SplitMix64) -> String {
    let pieces = rng.next_u64() % 40;
    (0..pieces).map(|_| *pick::<&str>(rng, FRAGMENTS)).collect()
}

fn exercise(loaded: Result<Workload, clmap_workload::WorkloadError>) -> bool {
    match loaded {
        Ok(w) => {
            let _ = w.initial_data(3);
            // Walking the schedule (groups, loop scalars, host writes) must not panic either.
            for step in w.schedule().take(2000) {
                if step.is_err() {
                    break;
                }
            }
            let _ = w.final_slots();
            let _ = w.to_toml(Path::new("."));
            true
        }
        Err(e) => {
            // Rendering the error must not panic either.
            let _ = e.to_string();
            false
        }
    }
}

#[test]
fn mutated_toml_never_panics() {
    let dir = root().join("examples");
    let seeds = seeds("toml", &dir);
    let mut rng = SplitMix64::new(2024);
    let mut loaded = 0;
    for i in 0..3000 {
        let text = if i % 5 == 0 {
            random_text(&mut rng)
        } else {
            let seed = pick::<String>(&mut rng, &seeds).clone();
            mutate(&mut rng, &seed)
        };
        loaded += usize::from(exercise(Workload::from_toml_str_with(&text, &dir, &OPTIONS)));
    }
    // The mutations are mild enough that some survive; all failing would mean a broken seed.
    assert!(loaded > 50, "only {loaded} mutants loaded");
}

/// The parameters of the kernels under `tests/sim_files`, as the front end reports them
/// (written out so that thousands of mutants do not each run the compiler).
fn sim_signatures() -> FixedSignatures {
    let p = |name: &str, space: ParamSpace, ty: &str| KernelParam {
        name: name.into(),
        space,
        type_name: ty.into(),
    };
    let g = ParamSpace::Global;
    FixedSignatures {
        kernels: vec![
            (
                "fcopy".into(),
                vec![p("in", g, "float"), p("out", g, "float"), p("dout", g, "double")],
            ),
            (
                "mix".into(),
                vec![
                    p("a", g, "float"),
                    p("b", g, "int"),
                    p("out", g, "float"),
                    p("c", g, "char"),
                    p("s", g, "short"),
                    p("u", g, "ulong"),
                    p("d", g, "double"),
                    p("n", ParamSpace::Private, "uint"),
                    p("tmp", ParamSpace::Local, "float"),
                ],
            ),
            (
                "maybe_copy".into(),
                vec![p("in", g, "uint"), p("bias", g, "uint"), p("out", g, "uint")],
            ),
            (
                "vector_add".into(),
                vec![
                    p("a", g, "float"),
                    p("b", g, "float"),
                    p("c", g, "float"),
                    p("n", ParamSpace::Private, "uint"),
                ],
            ),
        ],
    }
}

#[test]
fn mutated_sim_never_panics() {
    let dir = root().join("tests/sim_files");
    let seeds = seeds("sim", &dir);
    let mut rng = SplitMix64::new(77);
    let mut loaded = 0;
    for i in 0..3000 {
        let text = if i % 5 == 0 {
            random_text(&mut rng)
        } else {
            let seed = pick::<String>(&mut rng, &seeds).clone();
            mutate(&mut rng, &seed)
        };
        let mut signatures = sim_signatures();
        loaded +=
            usize::from(exercise(Workload::from_sim_str(&text, &dir, &OPTIONS, &mut signatures)));
    }
    assert!(loaded > 50, "only {loaded} mutants loaded");
}

#[test]
fn mutated_kernels_and_init_strings_never_panic() {
    let mut rng = SplitMix64::new(5);
    let mut kernels = seeds("cl", &root().join("examples"));
    kernels.extend(seeds("cl", &root().join("tests/sim_files")));
    let inits = ["random(1, -1.0, 1.0)", "range(0, 0.5)", "fill(0x7f)", "file(a.bin)", "zero"];
    for _ in 0..2000 {
        let kernel = pick::<String>(&mut rng, &kernels).clone();
        let text = mutate(&mut rng, &kernel);
        let _ = Expr::parse(&text);
        let seed = *pick::<&str>(&mut rng, &inits);
        let init = mutate(&mut rng, seed);
        let _ = Init::parse(&init, Path::new("."));
        let _ = Number::parse(&init);
    }
}

#[test]
fn random_expressions_never_panic_and_print_back_to_themselves() {
    const PIECES: &[&str] = &[
        "n",
        "i",
        "ni",
        "0",
        "1",
        "7",
        "-",
        "+",
        "*",
        "/",
        "%",
        "(",
        ")",
        " ",
        "0x10",
        "18446744073709551615",
        "9223372036854775808",
        "4294967296",
        "x_1",
        "$",
        "1e3",
    ];
    let mut rng = SplitMix64::new(99);
    let mut parsed = 0;
    for _ in 0..20_000 {
        let len = 1 + (rng.next_u64() % 12) as usize;
        let text: String =
            (0..len).map(|_| PIECES[(rng.next_u64() % PIECES.len() as u64) as usize]).collect();
        let Ok(expr) = Expr::parse(&text) else { continue };
        parsed += 1;
        let lookup = |name: &str| match name {
            "n" => Some(i128::from(u64::MAX)),
            "ni" => Some(i128::from(i64::MIN)),
            "i" => Some(3),
            _ => None,
        };
        let value = expr.eval(&lookup, &Vec::new);
        let again = Expr::parse(&expr.to_string()).expect("printed expressions parse");
        assert_eq!(again, expr, "{text} printed as {expr}");
        assert_eq!(again.eval(&lookup, &Vec::new).ok(), value.ok(), "{text}");
        let _ = expr.substitute(&lookup);
    }
    assert!(parsed > 1000, "only {parsed} expressions parsed");
}
