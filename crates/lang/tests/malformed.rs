//! Every file in `tests/malformed/` must be rejected by the whole front end with an error on
//! the line its first comment names, containing the phrase it names:
//! `// expect-error: LINE: phrase`.

use std::path::Path;

#[test]
fn every_malformed_input_is_rejected_at_its_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/malformed");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/malformed exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    files.sort();
    assert!(files.len() >= 25, "the malformed set has {} files", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let header = text.lines().next().unwrap_or("");
        let spec = header.strip_prefix("// expect-error:").map(str::trim);
        let Some((line, phrase)) = spec.and_then(|s| s.split_once(':')) else {
            failures.push(format!("{}: no `// expect-error: LINE: phrase` header", path.display()));
            continue;
        };
        let line: u32 = line.trim().parse().expect("line number");
        let phrase = phrase.trim();
        let name = path.display().to_string();
        match clmap_lang::frontend::compile_source(&name, &text, "") {
            Ok(_) => failures.push(format!("{name}: accepted, expected an error at line {line}")),
            Err(failure) => {
                let hit = failure.diagnostics.0.iter().any(|d| {
                    d.is_error()
                        && d.message.contains(phrase)
                        && failure
                            .sources
                            .get(d.span.file)
                            .is_some_and(|f| f.line_col(d.span.start).line == line)
                });
                if !hit {
                    failures.push(format!(
                        "{name}: no error containing {phrase:?} at line {line}; got:\n{}",
                        failure.render()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
