//! Parser tests. They tokenize with a small tokenizer of their own, so that the parser's tests
//! depend on nothing but the token types.

use super::{parse, parse_expression, MAX_NESTING};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::span::{FileId, Span};
use crate::token::{FloatSuffix, IntSuffix, Punct, Radix, Token, TokenKind};

// ----- a tokenizer for tests ---------------------------------------------------------------

/// Splits `text` into tokens the way lexer and preprocessor together would hand them over
/// (no macros): comments dropped, `#pragma` lines as [`TokenKind::Pragma`], `Eof` last.
fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut leading_space = false;
    let mut at_line_start = true;
    let span = |start: usize, end: usize| Span::new(FileId(0), start as u32, end as u32);
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            at_line_start = true;
            leading_space = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            leading_space = true;
            i += 1;
            continue;
        }
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            continue;
        }
        if text[i..].starts_with("/*") {
            i = text[i + 2..].find("*/").map_or(bytes.len(), |n| i + 2 + n + 2);
            leading_space = true;
            continue;
        }
        let start = i;
        let kind = if c == b'#' && at_line_start {
            let end = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            let line = text[i + 1..end].trim_start();
            let rest = line.strip_prefix("pragma").expect("test input only has #pragma lines");
            i = end;
            TokenKind::Pragma(rest.trim().to_string())
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            TokenKind::Ident(text[start..i].to_string())
        } else if c.is_ascii_digit()
            || (c == b'.' && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit()))
        {
            while i < bytes.len() {
                let b = bytes[i];
                let exponent_sign = (b == b'+' || b == b'-')
                    && matches!(bytes[i - 1], b'e' | b'E')
                    && !text[start..i].starts_with("0x");
                if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || exponent_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            number(&text[start..i])
        } else if c == b'\'' {
            let value = if bytes[i + 1] == b'\\' {
                i += 4;
                match bytes[start + 2] {
                    b'n' => 10,
                    b'0' => 0,
                    other => other as i64,
                }
            } else {
                i += 3;
                bytes[start + 1] as i64
            };
            TokenKind::Char(value)
        } else if c == b'"' {
            let end = text[i + 1..].find('"').expect("closed string") + i + 1;
            i = end + 1;
            TokenKind::Str(text[start + 1..end].to_string())
        } else {
            let p = Punct::ALL_LONGEST_FIRST
                .iter()
                .find(|p| text[i..].starts_with(p.as_str()))
                .unwrap_or_else(|| panic!("test tokenizer: unexpected {:?}", c as char));
            i += p.as_str().len();
            TokenKind::Punct(*p)
        };
        let mut token = Token::new(kind, span(start, i));
        token.leading_space = leading_space;
        token.at_line_start = at_line_start;
        tokens.push(token);
        leading_space = false;
        at_line_start = false;
    }
    tokens.push(Token::new(TokenKind::Eof, span(bytes.len(), bytes.len())));
    tokens
}

fn number(spelling: &str) -> TokenKind {
    let lower = spelling.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    if !is_hex && (lower.contains('.') || lower.contains('e')) {
        let (digits, suffix) = match lower.strip_suffix('f') {
            Some(d) => (d, FloatSuffix::F),
            None => match lower.strip_suffix('h') {
                Some(d) => (d, FloatSuffix::H),
                None => (lower.as_str(), FloatSuffix::None),
            },
        };
        return TokenKind::Float { value: digits.parse().expect("float"), suffix };
    }
    let digits = lower.trim_end_matches(['u', 'l']);
    let suffix_text = &lower[digits.len()..];
    let suffix = IntSuffix { unsigned: suffix_text.contains('u'), long: suffix_text.contains('l') };
    let (radix, value) = if is_hex {
        (Radix::Hex, u64::from_str_radix(&digits[2..], 16).expect("hex"))
    } else if digits.len() > 1 && digits.starts_with('0') {
        (Radix::Octal, u64::from_str_radix(&digits[1..], 8).expect("octal"))
    } else {
        (Radix::Decimal, digits.parse().expect("decimal"))
    };
    TokenKind::Int { value, suffix, radix }
}

// ----- helpers -----------------------------------------------------------------------------

fn parse_text(text: &str) -> (TranslationUnit, Vec<Diagnostic>) {
    let (unit, diags) = parse(&tokenize(text));
    (unit, diags.0)
}

/// Parses `text`, which must be free of errors and warnings.
fn parse_clean(text: &str) -> TranslationUnit {
    let (unit, diags) = parse_text(text);
    assert!(diags.is_empty(), "unexpected diagnostics for {text:?}: {diags:#?}");
    unit
}

/// The messages of the diagnostics for `text`.
fn messages(text: &str) -> Vec<String> {
    parse_text(text).1.into_iter().map(|d| d.message).collect()
}

fn expr(text: &str) -> Expr {
    match parse_expression(&tokenize(text)) {
        Ok(e) => e,
        Err(diags) => panic!("expression {text:?} did not parse: {diags:#?}"),
    }
}

/// The one declaration of a file.
fn only_declaration(text: &str) -> Declaration {
    let unit = parse_clean(text);
    match unit.items.as_slice() {
        [ExternalDecl::Declaration(d)] => d.clone(),
        other => panic!("expected one declaration, got {other:#?}"),
    }
}

fn only_function(text: &str) -> FunctionDef {
    let unit = parse_clean(text);
    match unit.items.as_slice() {
        [ExternalDecl::Function(f)] => f.clone(),
        other => panic!("expected one function, got {other:#?}"),
    }
}

/// Statements of `void f() { body }`.
fn body(statements: &str) -> Vec<Stmt> {
    let (_, diags) = parse_text(&format!("void f() {{ {statements} }}"));
    assert!(diags.is_empty(), "{diags:#?}");
    only_function(&format!("void f() {{ {statements} }}")).body.stmts
}

fn text_of(source: &str, span: Span) -> &str {
    &source[span.range()]
}

fn type_text(ty: &TypeName) -> String {
    let mut text = spec_text(&ty.specifiers.ty);
    for part in &ty.declarator.derived {
        text.push_str(match part {
            DerivedDeclarator::Pointer { .. } => "*",
            DerivedDeclarator::Array { .. } => "[]",
            DerivedDeclarator::Function { .. } => "()",
        });
    }
    text
}

fn spec_text(ty: &TypeSpec) -> String {
    match ty {
        TypeSpec::Primitive(p) => super::keywords::primitive_name(*p).to_string(),
        TypeSpec::Vector { scalar, width } => {
            format!("{}{width}", super::keywords::primitive_name(*scalar))
        }
        TypeSpec::Named(name) => name.name.clone(),
        TypeSpec::Struct(s) => format!("struct {}", s.name.as_ref().map_or("", |n| &n.name)),
        TypeSpec::Enum(e) => format!("enum {}", e.name.as_ref().map_or("", |n| &n.name)),
    }
}

/// A compact prefix form of an expression's shape: `(+ a (* b c))`.
fn sexpr(e: &Expr) -> String {
    let list = |head: &str, parts: Vec<String>| format!("({head} {})", parts.join(" "));
    match &e.kind {
        ExprKind::Ident(name) => name.clone(),
        ExprKind::Int { value, .. } => value.to_string(),
        ExprKind::Float { value, .. } => format!("{value:?}"),
        ExprKind::Char(c) => format!("'{c}'"),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Paren(inner) => list("paren", vec![sexpr(inner)]),
        ExprKind::Unary { op, operand } => list(&format!("{op:?}"), vec![sexpr(operand)]),
        ExprKind::Binary { op, lhs, rhs } => list(op.as_str(), vec![sexpr(lhs), sexpr(rhs)]),
        ExprKind::Assign { op, lhs, rhs } => {
            let head = format!("{}=", op.map_or("", BinaryOp::as_str));
            list(&head, vec![sexpr(lhs), sexpr(rhs)])
        }
        ExprKind::Conditional { cond, then, otherwise } => {
            list("?", vec![sexpr(cond), sexpr(then), sexpr(otherwise)])
        }
        ExprKind::Comma { lhs, rhs } => list(",", vec![sexpr(lhs), sexpr(rhs)]),
        ExprKind::Call { callee, args } => {
            list("call", std::iter::once(sexpr(callee)).chain(args.iter().map(sexpr)).collect())
        }
        ExprKind::Index { base, index } => list("[]", vec![sexpr(base), sexpr(index)]),
        ExprKind::Member { base, field, arrow } => {
            list(if *arrow { "->" } else { "." }, vec![sexpr(base), field.name.clone()])
        }
        ExprKind::Cast { ty, operand } => list("cast", vec![type_text(ty), sexpr(operand)]),
        ExprKind::VectorLiteral { ty, elems } => {
            list("vec", std::iter::once(type_text(ty)).chain(elems.iter().map(sexpr)).collect())
        }
        ExprKind::CompoundLiteral { ty, init } => {
            let items = match init.as_ref() {
                Initializer::List { items, .. } => items.len(),
                Initializer::Expr(_) => 1,
            };
            list("literal", vec![type_text(ty), format!("{items} items")])
        }
        ExprKind::SizeofExpr(inner) => list("sizeof", vec![sexpr(inner)]),
        ExprKind::SizeofType(ty) => list("sizeof-type", vec![type_text(ty)]),
        ExprKind::VecStepExpr(inner) => list("vec_step", vec![sexpr(inner)]),
        ExprKind::VecStepType(ty) => list("vec_step-type", vec![type_text(ty)]),
    }
}

fn stmt_expr(stmt: &Stmt) -> &Expr {
    match &stmt.kind {
        StmtKind::Expr(Some(e)) => e,
        other => panic!("expected an expression statement, got {other:#?}"),
    }
}

// ----- expressions -------------------------------------------------------------------------

#[test]
fn binary_operators_follow_c_precedence_and_associativity() {
    assert_eq!(sexpr(&expr("a + b * c")), "(+ a (* b c))");
    assert_eq!(sexpr(&expr("a * b + c")), "(+ (* a b) c)");
    assert_eq!(sexpr(&expr("a - b - c")), "(- (- a b) c)");
    assert_eq!(sexpr(&expr("a << 1 + 2")), "(<< a (+ 1 2))");
    assert_eq!(sexpr(&expr("a < b == c > d")), "(== (< a b) (> c d))");
    assert_eq!(sexpr(&expr("a | b ^ c & d")), "(| a (^ b (& c d)))");
    assert_eq!(sexpr(&expr("a || b && c || d")), "(|| (|| a (&& b c)) d)");
    assert_eq!(sexpr(&expr("a % b / c")), "(/ (% a b) c)");
}

#[test]
fn assignment_and_conditional_associate_to_the_right() {
    assert_eq!(sexpr(&expr("a = b = c")), "(= a (= b c))");
    assert_eq!(sexpr(&expr("a += b -= c")), "(+= a (-= b c))");
    assert_eq!(sexpr(&expr("a <<= b >>= c")), "(<<= a (>>= b c))");
    assert_eq!(sexpr(&expr("a ? b : c ? d : e")), "(? a b (? c d e))");
    assert_eq!(sexpr(&expr("a ? b, c : d")), "(? a (, b c) d)");
    assert_eq!(sexpr(&expr("x = a || b ? 1 : 2")), "(= x (? (|| a b) 1 2))");
    assert_eq!(sexpr(&expr("a, b = 1, c")), "(, (, a (= b 1)) c)");
    let ops = ["*=", "/=", "%=", "&=", "^=", "|="];
    for op in ops {
        assert_eq!(sexpr(&expr(&format!("a {op} b"))), format!("({op} a b)"));
    }
}

#[test]
fn unary_and_postfix_operators() {
    assert_eq!(sexpr(&expr("-a * b")), "(* (Neg a) b)");
    assert_eq!(sexpr(&expr("!~+a")), "(LogicalNot (BitNot (Plus a)))");
    assert_eq!(sexpr(&expr("*p++")), "(Deref (PostInc p))");
    assert_eq!(sexpr(&expr("&a[i].x")), "(AddrOf (. ([] a i) x))");
    assert_eq!(sexpr(&expr("++a--")), "(PreInc (PostDec a))");
    assert_eq!(sexpr(&expr("--*p")), "(PreDec (Deref p))");
    assert_eq!(sexpr(&expr("p->next->v[2]")), "([] (-> (-> p next) v) 2)");
    assert_eq!(sexpr(&expr("f(a, b = 2)(c)")), "(call (call f a (= b 2)) c)");
    assert_eq!(sexpr(&expr("f()")), "(call f)");
    assert_eq!(sexpr(&expr("a[i][j]")), "([] ([] a i) j)");
}

#[test]
fn sizeof_and_vec_step_take_types_or_expressions() {
    assert_eq!(sexpr(&expr("sizeof(float4)")), "(sizeof-type float4)");
    assert_eq!(sexpr(&expr("sizeof(int *)")), "(sizeof-type int*)");
    assert_eq!(sexpr(&expr("sizeof x + 1")), "(+ (sizeof x) 1)");
    assert_eq!(sexpr(&expr("sizeof (x) * 2")), "(* (sizeof (paren x)) 2)");
    assert_eq!(sexpr(&expr("sizeof a[0]")), "(sizeof ([] a 0))");
    assert_eq!(sexpr(&expr("vec_step(float3)")), "(vec_step-type float3)");
    assert_eq!(sexpr(&expr("vec_step(v) - 1")), "(- (vec_step v) 1)");
}

#[test]
fn literals_and_adjacent_strings() {
    assert_eq!(sexpr(&expr("0x1F + 010 + 7u")), "(+ (+ 31 8) 7)");
    match expr("0x10UL").kind {
        ExprKind::Int { value, suffix, radix } => {
            assert_eq!((value, radix), (16, Radix::Hex));
            assert_eq!(suffix, IntSuffix { unsigned: true, long: true });
        }
        other => panic!("{other:?}"),
    }
    match expr("1.5f").kind {
        ExprKind::Float { value, suffix } => assert_eq!((value, suffix), (1.5, FloatSuffix::F)),
        other => panic!("{other:?}"),
    }
    assert_eq!(sexpr(&expr("'a'")), "'97'");
    assert_eq!(sexpr(&expr("printf(\"x=%d \" \"y\\n\", x)")), "(call printf \"x=%d y\\\\n\" x)");
}

#[test]
fn casts_are_told_from_parentheses_by_the_type_words() {
    assert_eq!(sexpr(&expr("(float)a + b")), "(+ (cast float a) b)");
    assert_eq!(sexpr(&expr("(uint)-x")), "(cast uint (Neg x))");
    assert_eq!(sexpr(&expr("(__global float *)p")), "(cast float* p)");
    assert_eq!(sexpr(&expr("(const int)(x)")), "(cast int (paren x))");
    assert_eq!(sexpr(&expr("(a) - b")), "(- (paren a) b)");
    assert_eq!(sexpr(&expr("(a)(b)")), "(call (paren a) b)");
    assert_eq!(sexpr(&expr("(struct S *)p")), "(cast struct S* p)");
    assert_eq!(sexpr(&expr("(unsigned long)x")), "(cast ulong x)");
    assert_eq!(sexpr(&expr("(float (*)[4])p")), "(cast float*[] p)");
}

#[test]
fn casts_use_typedef_names_in_scope_and_respect_shadowing() {
    let stmts = body("typedef int T; T x; x = (T)-y; { int T; x = (T) - y; }");
    assert_eq!(sexpr(stmt_expr(&stmts[2])), "(= x (cast T (Neg y)))");
    let StmtKind::Compound(inner) = &stmts[3].kind else { panic!("{:?}", stmts[3]) };
    assert_eq!(sexpr(stmt_expr(&inner.stmts[1])), "(= x (- (paren T) y))");
}

#[test]
fn vector_literals_nest_and_take_postfix_operators() {
    assert_eq!(sexpr(&expr("(float4)(1, 2, 3, 4)")), "(vec float4 1 2 3 4)");
    assert_eq!(sexpr(&expr("(int2)(x)")), "(vec int2 x)");
    assert_eq!(sexpr(&expr("(float4)((float2)(1, 2), 3, 4)")), "(vec float4 (vec float2 1 2) 3 4)");
    assert_eq!(sexpr(&expr("(float4)(1, 2, 3, 4).xy")), "(. (vec float4 1 2 3 4) xy)");
    assert_eq!(sexpr(&expr("a * (uchar16)(b = 1)")), "(* a (vec uchar16 (= b 1)))");
    // A vector type followed by something else than `(` is an ordinary cast.
    assert_eq!(sexpr(&expr("(float4)x")), "(cast float4 x)");
    // A pointer to a vector is no vector type.
    assert_eq!(sexpr(&expr("(float4 *)(p)")), "(cast float4* (paren p))");
    let literal = expr("(float2)(1, 2)");
    assert_eq!(literal.span, Span::new(FileId(0), 0, 14));
}

#[test]
fn vector_typedefs_make_vector_literals_but_scalar_typedefs_do_not() {
    let stmts = body(
        "typedef float4 V; typedef V W; typedef float S; \
         x = (V)(1, 2, 3, 4); x = (W)(0); x = (S)(1);",
    );
    assert_eq!(sexpr(stmt_expr(&stmts[3])), "(= x (vec V 1 2 3 4))");
    assert_eq!(sexpr(stmt_expr(&stmts[4])), "(= x (vec W 0))");
    assert_eq!(sexpr(stmt_expr(&stmts[5])), "(= x (cast S (paren 1)))");
}

#[test]
fn expression_spans_cover_their_tokens() {
    let source = "foo + bar * (baz)";
    let e = expr(source);
    assert_eq!(text_of(source, e.span), source);
    let ExprKind::Binary { lhs, rhs, .. } = &e.kind else { panic!() };
    assert_eq!(text_of(source, lhs.span), "foo");
    assert_eq!(text_of(source, rhs.span), "bar * (baz)");
    let source = "a[i].x++";
    assert_eq!(text_of(source, expr(source).span), source);
}

#[test]
fn parse_expression_rejects_leftovers() {
    let diags = parse_expression(&tokenize("a + b c")).unwrap_err();
    assert_eq!(diags.0.len(), 1);
    assert_eq!(diags.0[0].message, "expected end of expression");
    assert_eq!(diags.0[0].span, Span::new(FileId(0), 6, 7));
    let diags = parse_expression(&tokenize("a +")).unwrap_err();
    assert_eq!(diags.0[0].message, "expected expression");
    assert!(parse_expression(&[]).is_err());
}

// ----- declarations ------------------------------------------------------------------------

#[test]
fn specifiers_combine_in_any_order() {
    use crate::ir::Scalar as S;
    use PrimitiveType as P;
    let cases = [
        ("unsigned x;", P::Scalar(S::UInt)),
        ("signed x;", P::Scalar(S::Int)),
        ("long int x;", P::Scalar(S::Long)),
        ("int long x;", P::Scalar(S::Long)),
        ("short int x;", P::Scalar(S::Short)),
        ("unsigned short x;", P::Scalar(S::UShort)),
        ("signed char x;", P::Scalar(S::Char)),
        ("unsigned char x;", P::Scalar(S::UChar)),
        ("char unsigned x;", P::Scalar(S::UChar)),
        ("unsigned long x;", P::Scalar(S::ULong)),
        ("long unsigned int x;", P::Scalar(S::ULong)),
        ("uint x;", P::Scalar(S::UInt)),
        ("size_t x;", P::SizeT),
        ("bool x;", P::Scalar(S::Bool)),
        ("half x;", P::Scalar(S::Half)),
        ("event_t x;", P::Event),
        ("image2d_t x;", P::Image(ImageKind::Image2d)),
        ("image1d_buffer_t x;", P::Image(ImageKind::Image1dBuffer)),
        ("sampler_t x;", P::Sampler),
    ];
    for (text, expected) in cases {
        let d = only_declaration(text);
        assert_eq!(d.specifiers.ty, TypeSpec::Primitive(expected), "{text}");
    }
}

#[test]
fn qualifiers_address_spaces_and_function_specifiers() {
    let d = only_declaration("float const __constant x = 1;");
    assert!(d.specifiers.qualifiers.is_const);
    assert_eq!(d.specifiers.address_space.map(|a| a.0), Some(AddressSpace::Constant));
    for (word, space) in [
        ("global", AddressSpace::Global),
        ("__global", AddressSpace::Global),
        ("local", AddressSpace::Local),
        ("__local", AddressSpace::Local),
        ("constant", AddressSpace::Constant),
        ("private", AddressSpace::Private),
        ("__private", AddressSpace::Private),
        ("generic", AddressSpace::Generic),
        ("__generic", AddressSpace::Generic),
    ] {
        let d = only_declaration(&format!("{word} int *p;"));
        assert_eq!(d.specifiers.address_space.map(|a| a.0), Some(space), "{word}");
    }
    let d = only_declaration("static volatile __restrict int x;");
    assert_eq!(d.specifiers.storage.map(|s| s.0), Some(StorageClass::Static));
    assert!(d.specifiers.qualifiers.is_volatile && d.specifiers.qualifiers.is_restrict);
    let d = only_declaration("extern __const int x;");
    assert_eq!(d.specifiers.storage.map(|s| s.0), Some(StorageClass::Extern));
    assert!(d.specifiers.qualifiers.is_const);
    let f = only_function("__kernel void k(__read_only image2d_t a, write_only image2d_t b) {}");
    assert!(f.specifiers.kernel.is_some());
    let Some(DerivedDeclarator::Function { params, .. }) = f.declarator.derived.first() else {
        panic!()
    };
    assert_eq!(params[0].specifiers.access.map(|a| a.0), Some(AccessQualifier::ReadOnly));
    assert_eq!(params[1].specifiers.access.map(|a| a.0), Some(AccessQualifier::WriteOnly));
    let f = only_function("inline kernel void k() {}");
    assert!(f.specifiers.inline && f.specifiers.kernel.is_some());
    let f = only_function("__inline int g(read_write image3d_t i) { return 0; }");
    assert!(f.specifiers.inline);
}

#[test]
fn vector_type_words() {
    let d = only_declaration("float4 a, b;");
    assert_eq!(
        d.specifiers.ty,
        TypeSpec::Vector { scalar: PrimitiveType::Scalar(crate::ir::Scalar::Float), width: 4 }
    );
    assert_eq!(d.declarators.len(), 2);
    let d = only_declaration("const ushort16 v;");
    assert_eq!(
        d.specifiers.ty,
        TypeSpec::Vector { scalar: PrimitiveType::Scalar(crate::ir::Scalar::UShort), width: 16 }
    );
    let d = only_declaration("double3 v;");
    assert_eq!(
        d.specifiers.ty,
        TypeSpec::Vector { scalar: PrimitiveType::Scalar(crate::ir::Scalar::Double), width: 3 }
    );
}

#[test]
fn typedefs_of_builtin_types_are_dropped_with_a_warning() {
    let (unit, diags) = parse_text(
        "typedef unsigned int uint;\ntypedef unsigned long size_t;\ntypedef float float4;\nuint x;",
    );
    let found: Vec<(&str, crate::diag::Severity)> =
        diags.iter().map(|d| (d.message.as_str(), d.severity)).collect();
    use crate::diag::Severity::{Error, Warning};
    assert_eq!(
        found,
        [
            ("typedef of builtin type 'uint' ignored", Warning),
            ("typedef of builtin type 'size_t' ignored", Warning),
            ("cannot redefine builtin type 'float4'", Error),
        ]
    );
    // Only `uint x;` is left, and `uint` is still the builtin type.
    let [ExternalDecl::Declaration(d)] = unit.items.as_slice() else { panic!("{unit:#?}") };
    assert_eq!(
        d.specifiers.ty,
        TypeSpec::Primitive(PrimitiveType::Scalar(crate::ir::Scalar::UInt))
    );
    // Other uses of builtin words as names stay errors.
    assert_eq!(messages("int x, uint;"), ["expected identifier or '(', found keyword 'uint'"]);
    assert_eq!(messages("int uint;"), ["cannot combine 'int' with 'uint'"]);
}

#[test]
fn long_long_and_bad_combinations_are_reported() {
    let diags = parse_text("long long x;").1;
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].message, "'long long' is reserved in OpenCL C");
    assert_eq!(diags[0].span, Span::new(FileId(0), 0, 9));
    assert!(diags[0].help.is_some());
    assert_eq!(messages("unsigned float x;"), ["cannot combine 'unsigned' with 'float'"]);
    assert_eq!(messages("int float x;"), ["cannot combine 'int' with 'float'"]);
    assert_eq!(messages("float double x;"), ["cannot combine 'double' with 'float'"]);
    assert_eq!(messages("long double x;"), ["'long double' is not supported in OpenCL C"]);
    assert_eq!(messages("const x;"), ["a type specifier is required"]);
    assert_eq!(messages("register int x;"), ["'register' is not supported in OpenCL C"]);
    assert_eq!(messages("short long x;"), ["cannot combine 'short' with 'long'"]);
}

#[test]
fn declarator_parts_are_ordered_from_the_name_outwards() {
    fn shape(text: &str) -> Vec<&'static str> {
        let d = only_declaration(text);
        d.declarators[0]
            .declarator
            .derived
            .iter()
            .map(|part| match part {
                DerivedDeclarator::Pointer { .. } => "ptr",
                DerivedDeclarator::Array { size: Some(_), .. } => "arr",
                DerivedDeclarator::Array { size: None, .. } => "arr?",
                DerivedDeclarator::Function { .. } => "fn",
            })
            .collect()
    }
    assert_eq!(shape("int *a[3];"), ["arr", "ptr"]);
    assert_eq!(shape("int (*p)[3];"), ["ptr", "arr"]);
    assert_eq!(shape("int *(*p)[3];"), ["ptr", "arr", "ptr"]);
    assert_eq!(shape("int m[2][3];"), ["arr", "arr"]);
    assert_eq!(shape("extern int open[];"), ["arr?"]);
    assert_eq!(shape("int **pp;"), ["ptr", "ptr"]);
    assert_eq!(shape("int *f(int);"), ["fn", "ptr"]);
    assert_eq!(shape("int (x);"), Vec::<&str>::new());

    let d = only_declaration("int m[2][N + 1];");
    let DerivedDeclarator::Array { size: Some(size), .. } = &d.declarators[0].declarator.derived[1]
    else {
        panic!()
    };
    assert_eq!(sexpr(size), "(+ N 1)");
}

#[test]
fn pointer_qualifiers_belong_to_their_star() {
    let d = only_declaration("global float * const restrict * local q;");
    let derived = &d.declarators[0].declarator.derived;
    // From the name out: the `* local` written last applies first.
    let DerivedDeclarator::Pointer { qualifiers, address_space, .. } = &derived[0] else {
        panic!()
    };
    assert_eq!(*address_space, Some(AddressSpace::Local));
    assert!(!qualifiers.is_const);
    let DerivedDeclarator::Pointer { qualifiers, address_space, .. } = &derived[1] else {
        panic!()
    };
    assert_eq!(*address_space, None);
    assert!(qualifiers.is_const && qualifiers.is_restrict);
    assert_eq!(d.specifiers.address_space.map(|a| a.0), Some(AddressSpace::Global));
}

#[test]
fn prototypes_with_void_variadic_and_unnamed_parameters() {
    let d =
        only_declaration("int f(void), g(), h(int, __global float *), p(const char *fmt, ...);");
    let function = |i: usize| match d.declarators[i].declarator.derived.first() {
        Some(DerivedDeclarator::Function { params, variadic, void_params, .. }) => {
            (params.clone(), *variadic, *void_params)
        }
        other => panic!("{other:?}"),
    };
    let (params, variadic, void_params) = function(0);
    assert!(params.is_empty() && !variadic && void_params);
    let (params, _, void_params) = function(1);
    assert!(params.is_empty() && !void_params);
    let (params, _, _) = function(2);
    assert_eq!(params.len(), 2);
    assert!(params[0].declarator.name.is_none());
    assert_eq!(params[1].declarator.derived.len(), 1);
    let (params, variadic, _) = function(3);
    assert_eq!(params.len(), 1);
    assert!(variadic);
    assert_eq!(params[0].declarator.name.as_ref().map(|n| n.name.as_str()), Some("fmt"));
}

#[test]
fn typedef_names_make_declarations_and_can_be_shadowed() {
    let unit = parse_clean("typedef float real; real * x; void f(real real) { real * y; }");
    assert_eq!(unit.items.len(), 3);
    let ExternalDecl::Declaration(d) = &unit.items[1] else { panic!() };
    assert_eq!(spec_text(&d.specifiers.ty), "real");
    assert_eq!(d.declarators[0].declarator.derived.len(), 1);
    // Inside f, the parameter `real` hides the typedef: `real * y` multiplies.
    let ExternalDecl::Function(f) = &unit.items[2] else { panic!() };
    assert_eq!(sexpr(stmt_expr(&f.body.stmts[0])), "(* real y)");

    let stmts = body("typedef int T; { T * a; int T; T * b; } T * c;");
    assert!(matches!(stmts[0].kind, StmtKind::Decl(_)));
    let StmtKind::Compound(inner) = &stmts[1].kind else { panic!() };
    assert!(matches!(inner.stmts[0].kind, StmtKind::Decl(_)));
    assert!(matches!(inner.stmts[1].kind, StmtKind::Decl(_)));
    assert_eq!(sexpr(stmt_expr(&inner.stmts[2])), "(* T b)");
    // The block ended, so `T` is a type again.
    assert!(matches!(stmts[2].kind, StmtKind::Decl(_)));
}

#[test]
fn unknown_type_names_are_reported_as_such() {
    let (_, diags) = parse_text("void f() { foo_t x; }");
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].message, "unknown type name 'foo_t'");
    assert_eq!(diags[0].span, Span::new(FileId(0), 11, 16));
}

#[test]
fn structs_unions_and_enums() {
    let unit = parse_clean(
        "struct P { float x, y; struct { int a; } inner; union { int i; float f; }; };\n\
         struct P p, *q;\n\
         typedef struct __attribute__((packed)) { char c; int i; } Packed;\n\
         struct __attribute__((aligned(16))) A { float4 v; } __attribute__((aligned));\n\
         enum Color { RED, GREEN = 4, BLUE, };\n\
         enum Color c = GREEN;\n\
         typedef enum { ONE = 1 } E;",
    );
    assert_eq!(unit.items.len(), 7);
    let ExternalDecl::Declaration(d) = &unit.items[0] else { panic!() };
    let TypeSpec::Struct(s) = &d.specifiers.ty else { panic!() };
    assert_eq!(s.kind, StructKind::Struct);
    assert_eq!(s.name.as_ref().map(|n| n.name.as_str()), Some("P"));
    let fields = s.fields.as_ref().expect("a definition");
    assert_eq!(fields.len(), 3);
    assert_eq!(fields[0].declarators.len(), 2);
    let TypeSpec::Struct(nested) = &fields[1].specifiers.ty else { panic!() };
    assert!(nested.name.is_none() && nested.fields.is_some());
    let TypeSpec::Struct(anonymous_union) = &fields[2].specifiers.ty else { panic!() };
    assert_eq!(anonymous_union.kind, StructKind::Union);
    assert!(fields[2].declarators.is_empty());

    let ExternalDecl::Declaration(d) = &unit.items[1] else { panic!() };
    let TypeSpec::Struct(reference) = &d.specifiers.ty else { panic!() };
    assert!(reference.fields.is_none());
    assert_eq!(d.declarators.len(), 2);

    let ExternalDecl::Declaration(d) = &unit.items[2] else { panic!() };
    let TypeSpec::Struct(packed) = &d.specifiers.ty else { panic!() };
    assert_eq!(packed.attributes[0].name.name, "packed");

    let ExternalDecl::Declaration(d) = &unit.items[3] else { panic!() };
    let TypeSpec::Struct(aligned) = &d.specifiers.ty else { panic!() };
    let names: Vec<_> = aligned.attributes.iter().map(|a| a.name.name.as_str()).collect();
    assert_eq!(names, ["aligned", "aligned"]);
    assert_eq!(aligned.attributes[0].args.len(), 1);
    assert!(aligned.attributes[1].args.is_empty());

    let ExternalDecl::Declaration(d) = &unit.items[4] else { panic!() };
    let TypeSpec::Enum(color) = &d.specifiers.ty else { panic!() };
    let variants = color.variants.as_ref().expect("a definition");
    assert_eq!(variants.len(), 3);
    assert_eq!(variants[1].name.name, "GREEN");
    assert_eq!(variants[1].value.as_ref().map(sexpr).as_deref(), Some("4"));
    assert!(variants[2].value.is_none());
}

#[test]
fn pragmas_inside_structs_are_ignored_with_a_warning() {
    let (unit, diags) = parse_text("struct S {\n#pragma pack\n int a; int b; };");
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].severity, crate::diag::Severity::Warning);
    let [ExternalDecl::Declaration(d)] = unit.items.as_slice() else { panic!() };
    let TypeSpec::Struct(s) = &d.specifiers.ty else { panic!() };
    assert_eq!(s.fields.as_ref().map(Vec::len), Some(2));
}

#[test]
fn bit_fields_are_reported() {
    assert_eq!(messages("struct S { int a : 3; };"), ["bit-fields are not supported in OpenCL C"]);
}

#[test]
fn attributes_on_kernels_declarators_and_types() {
    let f = only_function(
        "__kernel __attribute__((reqd_work_group_size(16, 16, 1), vec_type_hint(float4)))\n\
         __attribute__((work_group_size_hint(8,1,1))) void k(global float *a) {}",
    );
    let attributes = &f.specifiers.attributes;
    let names: Vec<_> = attributes.iter().map(|a| a.name.name.as_str()).collect();
    assert_eq!(names, ["reqd_work_group_size", "vec_type_hint", "work_group_size_hint"]);
    assert_eq!(attributes[0].args.len(), 3);
    assert!(matches!(&attributes[0].args[0], AttributeArg::Expr(e) if sexpr(e) == "16"));
    match &attributes[1].args[..] {
        [AttributeArg::Type(ty)] => assert_eq!(type_text(ty), "float4"),
        other => panic!("{other:?}"),
    }

    let f = only_function("void f() __attribute__((nosvm, endian(host))) {}");
    let names: Vec<_> = f.declarator.attributes.iter().map(|a| a.name.name.as_str()).collect();
    assert_eq!(names, ["nosvm", "endian"]);
    assert!(
        matches!(&f.declarator.attributes[1].args[..], [AttributeArg::Expr(e)] if sexpr(e) == "host")
    );

    let d = only_declaration("local float tile[16] __attribute__((aligned(16)));");
    assert_eq!(d.declarators[0].declarator.attributes[0].name.name, "aligned");
    let d = only_declaration("int __attribute__((const)) g(int);");
    assert_eq!(d.specifiers.attributes[0].name.name, "const");
}

#[test]
fn initializers_with_braces_and_designators() {
    let d = only_declaration("constant float m[2][2] = { {1, 2}, {3, 4}, }; ");
    let Some(Initializer::List { items, .. }) = &d.declarators[0].init else { panic!() };
    assert_eq!(items.len(), 2);
    let Initializer::List { items: row, .. } = &items[1].1 else { panic!() };
    assert!(matches!(&row[0].1, Initializer::Expr(e) if sexpr(e) == "3"));

    let d = only_declaration("struct P p = { .x = 1, .y = { [2] = 3, 4 }, [1].z = f(2) };");
    let Some(Initializer::List { items, .. }) = &d.declarators[0].init else { panic!() };
    assert_eq!(items.len(), 3);
    assert!(matches!(&items[0].0[..], [Designator::Field(f)] if f.name == "x"));
    let Initializer::List { items: inner, .. } = &items[1].1 else { panic!() };
    assert!(matches!(&inner[0].0[..], [Designator::Index(e)] if sexpr(e) == "2"));
    assert!(inner[1].0.is_empty());
    assert!(
        matches!(&items[2].0[..], [Designator::Index(_), Designator::Field(f)] if f.name == "z")
    );
    assert!(matches!(&items[2].1, Initializer::Expr(e) if sexpr(e) == "(call f 2)"));

    let d = only_declaration("int a = 1, *b = &a, c[] = {};");
    assert_eq!(d.declarators.len(), 3);
    assert!(
        matches!(&d.declarators[2].init, Some(Initializer::List { items, .. }) if items.is_empty())
    );
}

#[test]
fn function_pointers_are_reported_at_the_declarator() {
    let source = "int (*fp)(int);";
    let (unit, diags) = parse_text(source);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].message, "function pointers are not allowed in OpenCL C");
    assert_eq!(text_of(source, diags[0].span), "(*fp)(int)");
    // The declaration itself is still in the tree, for tools that want it.
    assert_eq!(unit.items.len(), 1);

    let source = "void f(void (*callback)(float)) {}";
    let diags = parse_text(source).1;
    assert_eq!(diags.len(), 1);
    assert_eq!(text_of(source, diags[0].span), "(*callback)(float)");
    assert_eq!(messages("typedef int (*handler)(void);").len(), 1);
    assert_eq!(messages("int x = sizeof(int (*)(int));").len(), 1);
}

#[test]
fn stray_semicolons_at_file_scope_are_accepted() {
    let unit = parse_clean(";\nvoid f() {};\nstruct S { int a; };;\n");
    assert_eq!(unit.items.len(), 2);
}

#[test]
fn program_scope_variables_and_prototypes_keep_their_order() {
    let unit = parse_clean(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         constant int N = 4;\n\
         float helper(float x);\n\
         float helper(float x) { return x * 2.0f; }\n",
    );
    let ExternalDecl::Pragma(pragma) = &unit.items[0] else { panic!() };
    assert_eq!(pragma.text, "OPENCL EXTENSION cl_khr_fp64 : enable");
    assert!(matches!(unit.items[1], ExternalDecl::Declaration(_)));
    assert!(matches!(unit.items[2], ExternalDecl::Declaration(_)));
    assert!(matches!(unit.items[3], ExternalDecl::Function(_)));
}

// ----- statements --------------------------------------------------------------------------

#[test]
fn loop_attributes_are_read_and_reported_as_ignored() {
    let source = "void f() {\n  __attribute__((opencl_unroll_hint(2))) for (;;) break;\n  \
                  __attribute__((aligned(4))) int x;\n}";
    let (unit, diags) = parse_text(source);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].severity, crate::diag::Severity::Warning);
    assert_eq!(diags[0].message, "statement attributes are ignored: 'opencl_unroll_hint'");
    assert_eq!(text_of(source, diags[0].span), "__attribute__((opencl_unroll_hint(2)))");
    let [ExternalDecl::Function(f)] = unit.items.as_slice() else { panic!() };
    assert!(matches!(f.body.stmts[0].kind, StmtKind::For { .. }));
    // Before a declaration, attributes stay what they are: declaration specifiers.
    let StmtKind::Decl(d) = &f.body.stmts[1].kind else { panic!() };
    assert_eq!(d.specifiers.attributes[0].name.name, "aligned");
}

#[test]
fn dangling_else_binds_to_the_nearest_if() {
    let stmts = body("if (a) if (b) x = 1; else x = 2;");
    let StmtKind::If { then, otherwise, .. } = &stmts[0].kind else { panic!() };
    assert!(otherwise.is_none());
    let StmtKind::If { otherwise: inner_else, .. } = &then.kind else { panic!() };
    assert!(inner_else.is_some());
}

#[test]
fn every_statement_kind() {
    let stmts = body(
        "int i = 0;\n\
         ;\n\
         { i++; }\n\
         if (i) i = 1; else { i = 2; }\n\
         while (i < 10) i++;\n\
         do { i--; } while (i);\n\
         for (int j = 0, k = 1; j < 4; j++, k++) continue;\n\
         for (i = 0; ; ) break;\n\
         for (;;) {}\n\
         switch (i) { case 1: case 2: i = 0; break; default: i = 1; }\n\
         goto end;\n\
         end: return;\n\
         #pragma unroll 4\n\
         return i + 1;",
    );
    let kinds: Vec<&str> = stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Compound(_) => "block",
            StmtKind::Decl(_) => "decl",
            StmtKind::Expr(None) => "empty",
            StmtKind::Expr(Some(_)) => "expr",
            StmtKind::If { .. } => "if",
            StmtKind::While { .. } => "while",
            StmtKind::DoWhile { .. } => "do",
            StmtKind::For { .. } => "for",
            StmtKind::Switch { .. } => "switch",
            StmtKind::Case { .. } => "case",
            StmtKind::Default { .. } => "default",
            StmtKind::Break => "break",
            StmtKind::Continue => "continue",
            StmtKind::Return(_) => "return",
            StmtKind::Goto(_) => "goto",
            StmtKind::Labeled { .. } => "label",
            StmtKind::Pragma(_) => "pragma",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "decl", "empty", "block", "if", "while", "do", "for", "for", "for", "switch", "goto",
            "label", "pragma", "return"
        ]
    );
    let StmtKind::For { init: Some(ForInit::Decl(d)), cond: Some(cond), step: Some(step), .. } =
        &stmts[6].kind
    else {
        panic!("{:?}", stmts[6])
    };
    assert_eq!(d.declarators.len(), 2);
    assert_eq!(sexpr(cond), "(< j 4)");
    assert_eq!(sexpr(step), "(, (PostInc j) (PostInc k))");
    let StmtKind::For { init: Some(ForInit::Expr(_)), cond: None, step: None, .. } = &stmts[7].kind
    else {
        panic!()
    };
    let StmtKind::Switch { body: switch_body, .. } = &stmts[9].kind else { panic!() };
    let StmtKind::Compound(block) = &switch_body.kind else { panic!() };
    let StmtKind::Case { value, body: case_body } = &block.stmts[0].kind else { panic!() };
    assert_eq!(sexpr(value), "1");
    assert!(matches!(case_body.kind, StmtKind::Case { .. }));
    assert!(matches!(block.stmts[1].kind, StmtKind::Break));
    assert!(matches!(block.stmts[2].kind, StmtKind::Default { .. }));
    let StmtKind::Labeled { label, body: labeled } = &stmts[11].kind else { panic!() };
    assert_eq!(label.name, "end");
    assert!(matches!(labeled.kind, StmtKind::Return(None)));
    let StmtKind::Pragma(pragma) = &stmts[12].kind else { panic!() };
    assert_eq!(pragma.text, "unroll 4");
}

#[test]
fn statement_and_declaration_spans() {
    let source = "void f() { int x = 1; if (x) x = 2; }";
    let f = only_function(source);
    assert_eq!(text_of(source, f.span), source);
    assert_eq!(text_of(source, f.body.span), "{ int x = 1; if (x) x = 2; }");
    assert_eq!(text_of(source, f.body.stmts[0].span), "int x = 1;");
    assert_eq!(text_of(source, f.body.stmts[1].span), "if (x) x = 2;");
    let StmtKind::Decl(d) = &f.body.stmts[0].kind else { panic!() };
    assert_eq!(text_of(source, d.specifiers.span), "int");
    assert_eq!(text_of(source, d.declarators[0].span), "x = 1");
    let name = d.declarators[0].declarator.name.as_ref().expect("named");
    assert_eq!(text_of(source, name.span), "x");
}

// ----- errors and recovery -----------------------------------------------------------------

#[test]
fn two_independent_errors_give_two_diagnostics() {
    let source = "kernel void f(global int *a) {\n  a[0] = 1 2;\n  a[1] = ;\n  a[2] = 3;\n}\n";
    let (unit, diags) = parse_text(source);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(diags[0].message, "expected ';' after expression");
    // Right after the `1`, where the `;` is missing.
    assert_eq!(diags[0].span.start as usize, source.find("1 2").expect("there") + 1);
    assert!(diags[0].span.is_empty());
    assert_eq!(diags[1].message, "expected expression");
    assert_eq!(diags[1].span.start as usize, source.find("= ;").expect("there") + 2);
    let [ExternalDecl::Function(f)] = unit.items.as_slice() else { panic!() };
    // The good statement after both errors survived.
    assert_eq!(f.body.stmts.len(), 1);
    assert_eq!(sexpr(stmt_expr(&f.body.stmts[0])), "(= ([] a 2) 3)");
}

#[test]
fn a_missing_semicolon_at_the_end_of_a_line_loses_nothing() {
    let source = "void f() {\n  int x = 1\n  x = 2;\n}\n";
    let (unit, diags) = parse_text(source);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].message, "expected ';' after declaration");
    let [ExternalDecl::Function(f)] = unit.items.as_slice() else { panic!() };
    assert_eq!(f.body.stmts.len(), 2);
}

#[test]
fn errors_at_file_scope_recover_at_the_next_declaration() {
    let source = "int a = ;\nvoid f(int x y) { return; }\nint ok;\nfloat g() { return 1.0f; }\n";
    let (unit, diags) = parse_text(source);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(diags[0].message, "expected expression");
    assert_eq!(diags[1].message, "expected ',' or ')' after parameter");
    assert_eq!(text_of(source, diags[1].span), "y");
    // `f` itself survives: the broken parameter list recovers at its own `)`.
    assert_eq!(unit.items.len(), 3);
    assert!(matches!(&unit.items[0], ExternalDecl::Function(f) if f.body.stmts.len() == 1));
    assert!(matches!(unit.items[2], ExternalDecl::Function(_)));
}

#[test]
fn errors_inside_initializer_lists_stay_inside() {
    let (unit, diags) = parse_text("int a[3][2] = { {1, 2 3}, {4, 5}, {6, } };\nint b;");
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].message, "expected ',' or '}' in initializer list");
    assert_eq!(unit.items.len(), 2);
}

#[test]
fn unclosed_brackets_point_at_their_opener() {
    let source = "void f() { g(1, 2; }";
    let diags = parse_text(source).1;
    assert_eq!(diags[0].message, "expected ')'");
    assert_eq!(diags[0].notes.len(), 1);
    assert_eq!(text_of(source, diags[0].notes[0].0), "(");
    let diags = parse_text("void f() { if (x) {").1;
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert!(diags.iter().all(|d| d.message == "expected '}'"));
}

#[test]
fn keywords_cannot_be_names() {
    assert_eq!(messages("int while;"), ["expected identifier or '(', found keyword 'while'"]);
    assert_eq!(messages("void f() { x = while; }"), ["expected expression, found keyword 'while'"]);
    assert_eq!(
        messages("typedef int T; void f() { x = T; }"),
        ["unexpected type name 'T': expected expression"]
    );
}

#[test]
fn misplaced_constructs_are_reported() {
    assert_eq!(
        messages("void f() { int g() { return 1; } }"),
        ["a function cannot be defined inside another"]
    );
    assert_eq!(messages("void f() { if (x) int y = 1; }"), ["a declaration is not a statement"]);
    assert_eq!(messages("}"), ["unexpected '}' outside of a function"]);
    // A compound literal is a postfix expression: its member is read.
    assert_eq!(
        sexpr(&expr("(struct P){ 1, { 2, 3 } }.y + 1")),
        "(+ (. (literal struct P 2 items) y) 1)"
    );
    assert_eq!(messages("void f() { do x++; until (x); }"), ["expected 'while' in do/while loop"]);
    assert_eq!(messages("void f() { x = 1; else x = 2; }"), ["else without a matching 'if'"]);
    assert_eq!(messages("void f() { if (x) { case 1: x = 2; } }"), ["case label outside switch"]);
    assert_eq!(messages("void f() { default: ; }"), ["'default' label outside switch"]);
    // A case inside a block inside a switch is fine, and the switch count unwinds.
    assert_eq!(
        messages("void f() { switch (x) { case 1: { case 2: ; } } case 3: ; }"),
        ["case label outside switch"]
    );
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    for (open, close) in [("(", ")"), ("{", "}"), ("-", ""), ("x = ", ""), ("if (1) ", "")] {
        let depth = 5 * MAX_NESTING as usize;
        let source = format!("void f() {{ {} 1 {}; }}", open.repeat(depth), close.repeat(depth));
        let diags = parse_text(&source).1;
        assert!(!diags.is_empty(), "{open}");
        assert!(
            diags.iter().any(|d| d.message == "code is nested too deeply"),
            "{open}: {diags:#?}"
        );
    }
    let shallow = format!("int x = {}1{};", "(".repeat(60), ")".repeat(60));
    parse_clean(&shallow);
    let declarator = format!("int {}x{};", "(*".repeat(2000), ")".repeat(2000));
    assert!(messages(&declarator).contains(&"code is nested too deeply".to_string()));
    let initializer = format!("int x = {}1{};", "{".repeat(2000), "}".repeat(2000));
    assert!(messages(&initializer).contains(&"code is nested too deeply".to_string()));
}

#[test]
fn long_operator_chains_are_bounded() {
    let fine = format!("int x = {};", vec!["a"; 200].join(" + "));
    parse_clean(&fine);
    let fine = format!("int x = v{};", ".s0".repeat(200));
    parse_clean(&fine);
    let too_long = format!("int x = {};", vec!["a"; 50_000].join(" + "));
    assert_eq!(messages(&too_long), ["expression is too long"]);
    let too_long = format!("int x = a{};", "[0]".repeat(300));
    assert_eq!(messages(&too_long), ["expression is too long"]);
    // Operators inside parentheses count toward the chain the parentheses sit in (a bound on
    // the depth of the tree, if not always a tight one).
    let half = vec!["a"; 150].join(" * ");
    let nested = format!("int x = {half} + ({half});");
    assert_eq!(messages(&nested), ["expression is too long"]);
}

#[test]
fn many_errors_stop_the_parse() {
    let source = "int = ;\n".repeat(1000);
    let diags = parse_text(&source).1;
    assert_eq!(diags.len(), super::MAX_ERRORS + 1);
    assert_eq!(
        diags.last().map(|d| d.message.as_str()),
        Some("too many errors; parsing stopped here")
    );
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_token_sequences_never_panic_or_hang() {
    let vocabulary: Vec<Token> = tokenize(
        "int float4 T x y struct S union enum typedef kernel __global local const * & ( ) [ ] \
         { } , ; : ? = += == < << > - + ! ~ ++ -- . -> ... 1 2.5f 'c' \"s\" sizeof vec_step \
         if else while do for switch case default break continue return goto void \
         __attribute__ aligned unsigned long short signed char",
    )
    .into_iter()
    .filter(|t| t.kind != TokenKind::Eof)
    .chain([Token::new(TokenKind::Pragma("unroll".into()), Span::new(FileId(0), 0, 0))])
    .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..4000 {
        let length = rng.below(80);
        let mut tokens: Vec<Token> =
            (0..length).map(|_| vocabulary[rng.below(vocabulary.len())].clone()).collect();
        // Half the time, leave the stream without its `Eof`.
        if rng.below(2) == 0 {
            tokens.push(Token::new(TokenKind::Eof, Span::new(FileId(0), 0, 0)));
        }
        let _ = parse(&tokens);
        let _ = parse_expression(&tokens);
    }
}

#[test]
fn mutated_kernels_never_panic_or_hang() {
    let kernel = tokenize(
        "typedef float4 V; struct P { float x; } __attribute__((packed));\n\
         __kernel __attribute__((reqd_work_group_size(16,1,1)))\n\
         void k(__global const float *a, __local float *tile, int n) {\n\
           int i = get_global_id(0), j = (int)a[0];\n\
           V v = (V)(1, 2, 3, 4); float4 w = (float4)(v.xy, (float2)(1));\n\
           struct P p = { .x = 1 }; int m[2][2] = {{1, 2}, {3, 4}};\n\
           #pragma unroll\n\
           for (int k = 0; k < n; ++k) { if (i < n) tile[k] = a[i * n + k]; else break; }\n\
           switch (i) { case 0: i = sizeof(float) ? 1 : 2; default: ; }\n\
           barrier(CLK_LOCAL_MEM_FENCE); do i--; while (i > 0);\n\
         }\n",
    );
    let body_tokens = &kernel[..kernel.len() - 1];
    let mut rng = Rng(42);
    for _ in 0..3000 {
        let mut tokens = body_tokens.to_vec();
        for _ in 0..=rng.below(4) {
            let at = rng.below(tokens.len());
            match rng.below(3) {
                0 => {
                    tokens.remove(at);
                }
                1 => {
                    let copy = tokens[rng.below(tokens.len())].clone();
                    tokens.insert(at, copy);
                }
                _ => {
                    let other = rng.below(tokens.len());
                    tokens.swap(at, other);
                }
            }
        }
        tokens.truncate(tokens.len() - rng.below(3));
        let _ = parse(&tokens);
    }
    // The unmutated kernel is clean.
    let (unit, diags) = parse(&kernel);
    assert!(diags.0.is_empty(), "{diags:#?}");
    assert_eq!(unit.items.len(), 3);
}

#[test]
fn recovery_reports_each_error_once() {
    let cases = [
        ("struct S { int a b; float c; };\nint x;", "expected ';' after struct member"),
        ("enum E { A, B C, D };\nint x;", "expected ',' or '}' after enumerator"),
        ("void f(int a b, float c) { return; }\nint x;", "expected ',' or ')' after parameter"),
        ("void f() { x = (1 + 2; y = 3; }\nint x;", "expected ')'"),
        ("void f() { if (x) { y = 1; } else { z = ; } w = 2; }\nint x;", "expected expression"),
        ("void f() { for (int i = 0; i < n; i++ { a[i] = 0; } b = 1; }\nint x;", "expected ')'"),
        (
            "void f() { int a[3] = {1, 2, 3; b = 1; }\nint x;",
            "expected ',' or '}' in initializer list",
        ),
        ("kernel void f(global float *a) { a[0] = 1.0f }\nint x;", "expected ';' after expression"),
        ("void f() { x = a ? b; }\nint x;", "expected ':' in conditional expression"),
        ("int f() { return 1 }\nint x;", "expected ';' after return statement"),
        ("void f() { switch (x) { case 1 x = 1; } }\nint x;", "expected ':' after 'case' value"),
        ("void f() ) { }\nint x;", "expected ';' after declaration"),
        ("int a[3) = {1};\nint x;", "expected ']'"),
        ("float4 v = (float4)(1, 2, ;\nint x;", "expected expression"),
        ("void f() { foo(; bar(); }\nint x;", "expected expression"),
        ("typedef struct { int a; } S\nS x;", "expected ';' after declaration"),
    ];
    for (source, message) in cases {
        let (unit, diags) = parse_text(source);
        let found: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(found, [message], "{source}");
        // The declaration on the last line always survives.
        let Some(ExternalDecl::Declaration(last)) = unit.items.last() else {
            panic!("{source}: {:#?}", unit.items)
        };
        let name = last.declarators.first().and_then(|d| d.declarator.name.as_ref());
        assert_eq!(name.map(|n| n.name.as_str()), Some("x"), "{source}");
    }
}

#[test]
fn spans_use_the_site_of_macro_expanded_tokens() {
    // `int x = TWICE(y);` where TWICE(a) expands to `a * 2`: the expanded tokens are spelled in
    // the `#define` (file 1) but sit at the invocation `TWICE(y)` (file 0, bytes 8..16).
    let mut tokens = tokenize("int x = y * 2;");
    let invocation = Span::new(FileId(0), 8, 16);
    for token in &mut tokens[3..6] {
        token.span = Span::new(FileId(1), 20, 25);
        token.site = invocation;
    }
    tokens[6].site = Span::new(FileId(0), 16, 17);
    let (unit, diags) = parse(&tokens);
    assert!(diags.0.is_empty(), "{diags:#?}");
    let [ExternalDecl::Declaration(d)] = unit.items.as_slice() else { panic!() };
    let Some(Initializer::Expr(init)) = &d.declarators[0].init else { panic!() };
    assert_eq!(init.span, invocation);
    let ExprKind::Binary { lhs, .. } = &init.kind else { panic!() };
    assert_eq!(lhs.span, invocation);
    assert_eq!(d.span, Span::new(FileId(0), 0, 17));
}

#[test]
fn empty_input_and_input_without_eof() {
    let (unit, diags) = parse(&[]);
    assert!(unit.items.is_empty() && diags.0.is_empty());
    let mut tokens = tokenize("int x;");
    tokens.pop();
    let (unit, diags) = parse(&tokens);
    assert!(diags.0.is_empty());
    assert_eq!(unit.items.len(), 1);
    tokens.pop();
    let (_, diags) = parse(&tokens);
    assert_eq!(diags.0.len(), 1);
    assert_eq!(diags.0[0].message, "expected ';' after declaration");
    // Tokens after an `Eof` in the middle are not read.
    let mut tokens = tokenize("int x;");
    tokens.extend(tokenize("int y = ;"));
    assert_eq!(parse(&tokens).0.items.len(), 1);
}
