//! A light textual scan of a kernel's parameter list. Oclgrind `.sim` files do not say
//! whether an argument is a buffer, a by-value scalar or local memory: Oclgrind asks the
//! compiled kernel. This crate does not depend on the OpenCL C front end, so it reads the
//! kernel's signature from the source text; callers that have the front end can pass exact
//! parameters instead (see [`crate::Workload::from_sim_str_with_params`]).

/// The address space of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamSpace {
    Global,
    Constant,
    Local,
    /// Passed by value.
    Private,
}

/// What a `.sim` reader needs to know about one kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParam {
    pub name: String,
    pub space: ParamSpace,
    /// The value type, or the pointee type for pointers, e.g. `float4` or `unsigned int`.
    pub type_name: String,
}

/// Longest parameter list scanned; real kernels have far fewer.
const MAX_PARAMS: usize = 1024;

/// Finds `kernel` (a `__kernel`/`kernel` function) in `source` and returns its parameters.
/// Returns `None` when the kernel cannot be found or its list cannot be read (macros, for
/// instance, are not expanded).
pub fn scan_kernel_params(source: &str, kernel: &str) -> Option<Vec<KernelParam>> {
    let text = strip_comments(source);
    let bytes = text.as_bytes();
    let mut search_from = 0;
    while let Some(found) = find_word(&text, search_from, &["__kernel", "kernel"]) {
        search_from = found.1;
        let Some(open) = text.get(found.1..).and_then(find_call_open) else {
            continue;
        };
        let open = found.1 + open;
        let name = last_identifier(text.get(found.1..open).unwrap_or(""));
        if name != Some(kernel) {
            continue;
        }
        let close = matching_paren(bytes, open)?;
        return parse_params(text.get(open + 1..close)?);
    }
    None
}

fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut previous = ' ';
                for d in chars.by_ref() {
                    if previous == '*' && d == '/' {
                        break;
                    }
                    previous = d;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Finds the next whole-word occurrence of one of `words`, returning (start, end).
fn find_word(text: &str, from: usize, words: &[&str]) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        if is_ident_byte(bytes[i]) {
            let start = i;
            while i < bytes.len() && is_ident_byte(bytes[i]) {
                i += 1;
            }
            if words.contains(&text.get(start..i).unwrap_or("")) {
                return Some((start, i));
            }
        } else {
            i += 1;
        }
    }
    None
}

/// The offset of the parenthesis that opens the parameter list, skipping
/// `__attribute__((...))` groups. Gives up at `;`, `{` or `}`.
fn find_call_open(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => {
                let before = rest.get(..i).unwrap_or("").trim_end();
                if before.ends_with("__attribute__") || before.ends_with("__attribute") {
                    i = matching_paren(bytes, i)? + 1;
                    continue;
                }
                return Some(i);
            }
            b';' | b'{' | b'}' => return None,
            _ => i += 1,
        }
    }
    None
}

fn matching_paren(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn last_identifier(text: &str) -> Option<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).rfind(|w| !w.is_empty())
}

const QUALIFIERS: [&str; 12] = [
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
    "read_only",
    "write_only",
    "read_write",
    "__read_only",
    "__write_only",
    "__read_write",
    "struct",
];

fn parse_params(list: &str) -> Option<Vec<KernelParam>> {
    let list = list.trim();
    if list.is_empty() || list == "void" {
        return Some(Vec::new());
    }
    let mut params = Vec::new();
    for piece in list.split(',') {
        if params.len() >= MAX_PARAMS || piece.contains('(') {
            return None;
        }
        let is_pointer = piece.contains('*') || piece.contains('[');
        let words: Vec<&str> = piece
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty() && !w.bytes().all(|b| b.is_ascii_digit()))
            .collect();
        let (name, rest) = words.split_last()?;
        let mut space = None;
        let mut type_words = Vec::new();
        for word in rest {
            match *word {
                "__global" | "global" => space = Some(ParamSpace::Global),
                "__constant" | "constant" => space = Some(ParamSpace::Constant),
                "__local" | "local" => space = Some(ParamSpace::Local),
                "__private" | "private" => space = Some(ParamSpace::Private),
                w if QUALIFIERS.contains(&w) => {}
                w => type_words.push(w),
            }
        }
        if type_words.is_empty() {
            return None;
        }
        let space = match space {
            Some(space) => space,
            None if is_pointer => ParamSpace::Global,
            None => ParamSpace::Private,
        };
        params.push(KernelParam { name: name.to_string(), space, type_name: type_words.join(" ") });
    }
    Some(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_typical_signature() {
        let source = "// helper\nfloat f(float x) { return x; }\n\
            __kernel __attribute__((reqd_work_group_size(16, 1, 1)))\n\
            void scale(__global const float4 *restrict in, /* out */ global float *out,\n\
                       const unsigned int n, __local int *tmp, __constant short *lut)\n{}";
        let params = scan_kernel_params(source, "scale").expect("found");
        let summary: Vec<(&str, ParamSpace, &str)> =
            params.iter().map(|p| (p.name.as_str(), p.space, p.type_name.as_str())).collect();
        assert_eq!(
            summary,
            vec![
                ("in", ParamSpace::Global, "float4"),
                ("out", ParamSpace::Global, "float"),
                ("n", ParamSpace::Private, "unsigned int"),
                ("tmp", ParamSpace::Local, "int"),
                ("lut", ParamSpace::Constant, "short"),
            ]
        );
    }

    #[test]
    fn picks_the_named_kernel_among_several() {
        let source = "kernel void a(int x) {}\nkernel void b(global uint *y, float z) {}";
        let params = scan_kernel_params(source, "b").expect("found");
        assert_eq!(params.len(), 2);
        assert_eq!(params[0].name, "y");
        assert_eq!(scan_kernel_params(source, "c"), None);
        assert_eq!(scan_kernel_params("kernel void e(void) {}", "e"), Some(Vec::new()));
    }

    #[test]
    fn survives_garbage() {
        for text in ["kernel", "kernel void k(", "kernel void k((((", "__kernel ) k (", "/*"] {
            let _ = scan_kernel_params(text, "k");
        }
    }
}
