//! `clBuildProgram` option strings: the macro and include options the preprocessor needs, the
//! language version, and everything else kept verbatim for the device compiler.

use std::path::PathBuf;

/// OpenCL C language version selected with `-cl-std=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClStd {
    Cl10,
    Cl11,
    Cl12,
    Cl20,
    Cl30,
}

impl ClStd {
    /// The value of `__OPENCL_C_VERSION__` (100, 110, 120, 200, 300).
    pub fn version(self) -> u32 {
        match self {
            ClStd::Cl10 => 100,
            ClStd::Cl11 => 110,
            ClStd::Cl12 => 120,
            ClStd::Cl20 => 200,
            ClStd::Cl30 => 300,
        }
    }

    /// The spelling after `-cl-std=`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClStd::Cl10 => "CL1.0",
            ClStd::Cl11 => "CL1.1",
            ClStd::Cl12 => "CL1.2",
            ClStd::Cl20 => "CL2.0",
            ClStd::Cl30 => "CL3.0",
        }
    }

    fn parse(s: &str) -> Option<ClStd> {
        [ClStd::Cl10, ClStd::Cl11, ClStd::Cl12, ClStd::Cl20, ClStd::Cl30]
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s))
    }
}

/// A `-D` or `-U` option; they apply in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MacroOption {
    /// `-D NAME` (value `1`) or `-D NAME=VALUE`; NAME may carry a parameter list `F(x)`.
    Define { name: String, value: Option<String> },
    /// `-U NAME`
    Undefine(String),
}

/// Options of one program build.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildOptions {
    pub macros: Vec<MacroOption>,
    /// `-I` directories, searched in order.
    pub include_dirs: Vec<PathBuf>,
    /// `-cl-std=`; `None` means the default, OpenCL C 1.2.
    pub cl_std: Option<ClStd>,
    /// Every other accepted option (`-cl-fast-relaxed-math`, `-w`, `-Werror`, …), verbatim.
    pub other: Vec<String>,
}

/// Options without an argument that are not `-cl-…` but are still valid build options.
const PLAIN_OPTIONS: &[&str] = &["-w", "-Werror", "-g"];

impl BuildOptions {
    /// Parses a `clBuildProgram` option string: `-D NAME`, `-DNAME=VAL`, `-D NAME=VAL`, `-U`,
    /// `-I dir`, `-Idir`, `-cl-std=CL1.2`, any other `-cl-…` option (kept verbatim), `-w`,
    /// `-Werror`, `-g`. Words may be quoted with `"…"` or `'…'`. Anything else is rejected
    /// with a message naming it.
    pub fn parse(options: &str) -> Result<BuildOptions, String> {
        let words = split_words(options).map_err(|e| e.to_string())?;
        let mut result = BuildOptions::default();
        let mut iter = words.into_iter();
        while let Some(word) = iter.next() {
            let mut argument = |flag: &str, attached: &str| -> Result<String, String> {
                if !attached.is_empty() {
                    return Ok(attached.to_string());
                }
                iter.next().ok_or_else(|| format!("missing argument after '{flag}'"))
            };
            if let Some(rest) = word.strip_prefix("-D") {
                let def = argument("-D", rest)?;
                let (name, value) = match def.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (def.clone(), None),
                };
                if !is_macro_name(&name) {
                    return Err(format!("invalid macro name '{name}' in '-D {def}'"));
                }
                result.macros.push(MacroOption::Define { name, value });
            } else if let Some(rest) = word.strip_prefix("-U") {
                let name = argument("-U", rest)?;
                if !is_identifier(&name) {
                    return Err(format!("invalid macro name '{name}' after '-U'"));
                }
                result.macros.push(MacroOption::Undefine(name));
            } else if let Some(rest) = word.strip_prefix("-I") {
                result.include_dirs.push(PathBuf::from(argument("-I", rest)?));
            } else if let Some(std) = word.strip_prefix("-cl-std=") {
                let std = ClStd::parse(std)
                    .ok_or_else(|| format!("unknown OpenCL C version '{std}' in '{word}'"))?;
                result.cl_std = Some(std);
            } else if word.starts_with("-cl-") || PLAIN_OPTIONS.contains(&word.as_str()) {
                result.other.push(word);
            } else {
                return Err(format!("unknown build option '{word}'"));
            }
        }
        Ok(result)
    }

    /// The options as a string that [`BuildOptions::parse`] reads back to the same value and
    /// that OpenCL implementations accept.
    pub fn to_option_string(&self) -> String {
        let mut words: Vec<String> = Vec::new();
        for m in &self.macros {
            match m {
                MacroOption::Define { name, value: None } => {
                    words.push(format!("-D{}", quote(name)))
                }
                MacroOption::Define { name, value: Some(v) } => {
                    words.push(format!("-D{}", quote(&format!("{name}={v}"))))
                }
                MacroOption::Undefine(name) => words.push(format!("-U{}", quote(name))),
            }
        }
        for dir in &self.include_dirs {
            words.push(format!("-I{}", quote(&dir.to_string_lossy())));
        }
        if let Some(std) = self.cl_std {
            words.push(format!("-cl-std={}", std.as_str()));
        }
        words.extend(self.other.iter().map(|w| quote(w)));
        words.join(" ")
    }

    /// The language version in effect (OpenCL C 1.2 unless `-cl-std=` says otherwise).
    pub fn std(&self) -> ClStd {
        self.cl_std.unwrap_or(ClStd::Cl12)
    }

    /// Whether `-cl-fast-relaxed-math` was given.
    pub fn fast_relaxed_math(&self) -> bool {
        self.other.iter().any(|w| w == "-cl-fast-relaxed-math")
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `NAME` or `NAME(params)` as accepted after `-D`.
fn is_macro_name(s: &str) -> bool {
    match s.split_once('(') {
        Some((name, params)) => is_identifier(name) && params.ends_with(')'),
        None => is_identifier(s),
    }
}

/// Quotes a word when it holds whitespace, quotes or backslashes.
fn quote(word: &str) -> String {
    if !word.is_empty()
        && !word.chars().any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\'))
    {
        return word.to_string();
    }
    let mut out = String::from("\"");
    for c in word.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Why an option string cannot be split into words; `at` is the byte offset of the opening
/// quote or of the backslash.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    #[error("unterminated {} quote opened at byte {at} of the build options", quote_name(*.quote))]
    UnterminatedQuote { quote: char, at: usize },
    #[error("backslash at byte {at} ends the build options: it escapes nothing")]
    TrailingBackslash { at: usize },
}

fn quote_name(quote: char) -> &'static str {
    if quote == '\'' {
        "single"
    } else {
        "double"
    }
}

/// Splits an option string into words the way a POSIX shell does, so the simulator's front end
/// and the clang child process see the same options: whitespace separates; `'…'` groups
/// verbatim; `"…"` groups, a backslash in it escaping `"` and `\` and standing for itself
/// before anything else; outside quotes a backslash escapes the next character
/// (`dir\ 1` is one word).
pub fn split_words(text: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, e @ ('"' | '\\'))) => current.push(e),
                            Some((_, other)) => {
                                current.push('\\');
                                current.push(other);
                            }
                            None => return Err(SplitError::UnterminatedQuote { quote: '"', at }),
                        },
                        Some((_, other)) => current.push(other),
                        None => return Err(SplitError::UnterminatedQuote { quote: '"', at }),
                    }
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, other)) => current.push(other),
                        None => return Err(SplitError::UnterminatedQuote { quote: '\'', at }),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some((_, escaped)) => current.push(escaped),
                    None => return Err(SplitError::TrailingBackslash { at }),
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        let o = BuildOptions::parse(
            "-D A -DB=2 -D C=x+1 -UD -U E -I inc -Iother -cl-std=CL2.0 -cl-fast-relaxed-math -w -Werror -cl-mad-enable -D 'F(x)=(x*2)' -DS=\"a b\"",
        )
        .expect("valid options");
        assert_eq!(
            o.macros,
            vec![
                MacroOption::Define { name: "A".into(), value: None },
                MacroOption::Define { name: "B".into(), value: Some("2".into()) },
                MacroOption::Define { name: "C".into(), value: Some("x+1".into()) },
                MacroOption::Undefine("D".into()),
                MacroOption::Undefine("E".into()),
                MacroOption::Define { name: "F(x)".into(), value: Some("(x*2)".into()) },
                MacroOption::Define { name: "S".into(), value: Some("a b".into()) },
            ]
        );
        assert_eq!(o.include_dirs, vec![PathBuf::from("inc"), PathBuf::from("other")]);
        assert_eq!(o.std(), ClStd::Cl20);
        assert!(o.fast_relaxed_math());
        assert_eq!(o.other, ["-cl-fast-relaxed-math", "-w", "-Werror", "-cl-mad-enable"]);
    }

    #[test]
    fn round_trips_through_the_option_string() {
        for text in [
            "",
            "-DA -DB=2 -I inc -cl-std=CL1.1",
            "-D 'Q=\"quoted\\\\\"' -I 'dir with space' -cl-denorms-are-zero -cl-unknown-thing",
            "-D N= -U N -cl-std=cl1.2",
        ] {
            let parsed = BuildOptions::parse(text).expect(text);
            let again = BuildOptions::parse(&parsed.to_option_string()).expect("round trip");
            assert_eq!(parsed, again, "{text} -> {}", parsed.to_option_string());
        }
        assert_eq!(BuildOptions::default().std().version(), 120);
    }

    #[test]
    fn words_split_like_a_shell() {
        let words = |text| split_words(text).expect(text);
        assert_eq!(words(""), Vec::<String>::new());
        assert_eq!(words("  -DA \t -DB=2\n"), ["-DA", "-DB=2"]);
        assert_eq!(
            words(" -DN=4  -DNAME='a b' \"-DQ=\\\"x\\\"\" -I dir\\ 1"),
            ["-DN=4", "-DNAME=a b", "-DQ=\"x\"", "-I", "dir 1"]
        );
        // Quotes join with what touches them, and an empty pair is an empty word.
        assert_eq!(words("-D'A'=\"b c\"d ''"), ["-DA=b cd", ""]);
        // Single quotes keep backslashes; double quotes keep those that escape nothing.
        assert_eq!(words(r#"'a\"b' "c\d\\e\"f""#), [r#"a\"b"#, r#"c\d\e"f"#]);
        assert_eq!(words(r"a\'b\\c"), [r"a'b\c"]);
    }

    #[test]
    fn unfinished_quotes_and_escapes_say_where() {
        assert_eq!(split_words("-D'x"), Err(SplitError::UnterminatedQuote { quote: '\'', at: 2 }));
        assert_eq!(
            split_words("-DA \"b\\\""),
            Err(SplitError::UnterminatedQuote { quote: '"', at: 4 })
        );
        assert_eq!(split_words("-DA \\"), Err(SplitError::TrailingBackslash { at: 4 }));
        assert_eq!(
            SplitError::UnterminatedQuote { quote: '"', at: 4 }.to_string(),
            "unterminated double quote opened at byte 4 of the build options"
        );
    }

    #[test]
    fn rejects_what_is_not_a_build_option() {
        for text in
            ["-O2", "kernel.cl", "-D", "-D 1x", "-cl-std=CL9.9", "-I", "-D \"open", "-U a-b"]
        {
            assert!(BuildOptions::parse(text).is_err(), "{text} should be rejected");
        }
    }
}
