//! Formula initialisers: a buffer filled from each element's index, the way benchmark suites
//! fill their inputs (PolyBench's `A[i][j] = ((DATA_TYPE) i * j) / NI`).
//!
//! A formula is an expression of the workload language ([`Expr`]: numbers, names, `+ - * / %`,
//! parentheses) over the element's index in a row-major shape of one to three dimensions,
//! named `i`, `j` and `k` from the outermost (slowest) to the innermost, and the constant `pi`.
//! Size names are replaced by their values when the workload is loaded, so a formula carries
//! only numbers, indices and `pi`. It is evaluated in `f64` real arithmetic — `/` divides
//! without truncating and `%` is the remainder of C's `fmod` — and each value is rounded once
//! to the element type. Integer buffers accept only values that are whole numbers.

use std::f64::consts::PI;

use crate::expr::{BinaryOp, Expr, ExprError};
use crate::number::Number;
use crate::types::ScalarType;

/// Index names by dimension count: `i` is always the outermost dimension.
const INDEX_NAMES: [&[&str]; 3] = [&["i"], &["i", "j"], &["i", "j", "k"]];
/// The one named constant.
const PI_NAME: &str = "pi";

/// A buffer's contents as a function of the element index.
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    /// The expression, sizes already replaced by their values.
    expr: Expr,
    /// Extent of each dimension, outermost first; the product is the number of components.
    /// Empty: one dimension as long as the buffer.
    shape: Vec<u64>,
}

/// One step of the compiled formula, evaluated on a stack.
#[derive(Clone, Copy, Debug)]
enum Op {
    Constant(f64),
    Index(usize),
    Negate,
    Binary(BinaryOp),
}

impl Formula {
    /// Parses `text` over a `shape` of one to three dimensions (empty: one dimension, the
    /// whole buffer); `size` gives the value of a size name. Index names take precedence over
    /// sizes of the same name.
    pub fn new(
        text: &str,
        shape: Vec<u64>,
        size: &dyn Fn(&str) -> Option<i128>,
    ) -> Result<Formula, ExprError> {
        let dims = shape.len().max(1);
        if dims > 3 {
            return Err(ExprError {
                message: format!("a formula's shape has 1 to 3 dimensions, not {dims}"),
                at: 0,
            });
        }
        let indices = INDEX_NAMES[dims - 1];
        let parsed = Expr::parse(text)?;
        let expr = parsed.replace_names(&|name| {
            if indices.contains(&name) || name == PI_NAME {
                None
            } else {
                size(name).map(Expr::Int)
            }
        });
        if let Some(unknown) = first_unknown_name(&expr, indices) {
            let (name, at) = unknown;
            return Err(ExprError {
                message: format!(
                    "unknown name `{name}` in formula `{text}`; a formula over {dims} \
                     dimension{} knows {}, `pi` and the sizes",
                    if dims == 1 { "" } else { "s" },
                    indices.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ),
                at,
            });
        }
        Ok(Formula { expr, shape })
    }

    /// The expression as text that [`Formula::new`] reads back (sizes written as numbers).
    pub fn text(&self) -> String {
        self.expr.to_string()
    }

    /// Extent of each dimension, outermost first (empty: the whole buffer in one dimension).
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Checks that the shape covers exactly `components` values.
    pub fn check(&self, components: u64) -> Result<(), String> {
        if self.shape.is_empty() {
            return Ok(());
        }
        let covered = self.shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
        if covered != Some(components) {
            let shape: Vec<String> = self.shape.iter().map(u64::to_string).collect();
            return Err(format!(
                "the formula's shape [{}] does not cover the buffer's {components} values",
                shape.join(", ")
            ));
        }
        Ok(())
    }

    /// A function from the component index (in buffer order) to its value, typed for `ty`.
    pub fn evaluator(&self, ty: ScalarType) -> impl FnMut(u64) -> Result<Number, String> + '_ {
        let program = compile(&self.expr);
        let mut stack: Vec<f64> = Vec::with_capacity(16);
        let mut index = [0u64; 3];
        move |flat| {
            // Row-major: the last dimension varies fastest.
            let mut rest = flat;
            for (slot, &extent) in index.iter_mut().zip(&self.shape).rev() {
                *slot = rest % extent.max(1);
                rest /= extent.max(1);
            }
            if self.shape.is_empty() {
                index[0] = flat;
            }
            let dims = self.shape.len().max(1);
            let at = || {
                let parts: Vec<String> = index.iter().take(dims).map(u64::to_string).collect();
                format!("[{}]", parts.join(", "))
            };
            let value = run(&program, &index, &mut stack);
            if !value.is_finite() {
                return Err(format!("the formula `{}` is {value} at {}", self.text(), at()));
            }
            if ty.is_float() {
                return Ok(Number::Float(value));
            }
            if value.fract() != 0.0 {
                return Err(format!(
                    "the formula `{}` gives {value} at {}, which a {ty} buffer cannot hold",
                    self.text(),
                    at()
                ));
            }
            Ok(Number::Int(value as i128))
        }
    }
}

/// The first name that is neither an index of the shape nor `pi`, with its offset.
fn first_unknown_name(expr: &Expr, indices: &[&str]) -> Option<(String, usize)> {
    match expr {
        Expr::Int(_) => None,
        Expr::Name { name, at } => {
            (!indices.contains(&name.as_str()) && name != PI_NAME).then(|| (name.clone(), *at))
        }
        Expr::Neg { operand, .. } => first_unknown_name(operand, indices),
        Expr::Binary { lhs, rhs, .. } => {
            first_unknown_name(lhs, indices).or_else(|| first_unknown_name(rhs, indices))
        }
    }
}

/// The expression in postfix order, names resolved: evaluated once per component, so the tree
/// is walked once here instead.
fn compile(expr: &Expr) -> Vec<Op> {
    fn walk(expr: &Expr, out: &mut Vec<Op>) {
        match expr {
            Expr::Int(v) => out.push(Op::Constant(*v as f64)),
            Expr::Name { name, .. } => out.push(match name.as_str() {
                "i" => Op::Index(0),
                "j" => Op::Index(1),
                "k" => Op::Index(2),
                // Only `pi` is left after `Formula::new`.
                _ => Op::Constant(PI),
            }),
            Expr::Neg { operand, .. } => {
                walk(operand, out);
                out.push(Op::Negate);
            }
            Expr::Binary { op, lhs, rhs, .. } => {
                walk(lhs, out);
                walk(rhs, out);
                out.push(Op::Binary(*op));
            }
        }
    }
    let mut out = Vec::new();
    walk(expr, &mut out);
    out
}

fn run(program: &[Op], index: &[u64; 3], stack: &mut Vec<f64>) -> f64 {
    stack.clear();
    for op in program {
        let value = match *op {
            Op::Constant(c) => c,
            Op::Index(d) => index.get(d).copied().unwrap_or(0) as f64,
            Op::Negate => -stack.pop().unwrap_or(0.0),
            Op::Binary(op) => {
                let b = stack.pop().unwrap_or(0.0);
                let a = stack.pop().unwrap_or(0.0);
                match op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Sub => a - b,
                    BinaryOp::Mul => a * b,
                    BinaryOp::Div => a / b,
                    BinaryOp::Rem => a % b,
                }
            }
        };
        stack.push(value);
    }
    stack.pop().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(name: &str) -> Option<i128> {
        match name {
            "ni" => Some(4),
            "nj" => Some(3),
            "i" => Some(99),
            _ => None,
        }
    }

    fn values(formula: &Formula, ty: ScalarType, count: u64) -> Vec<f64> {
        let mut eval = formula.evaluator(ty);
        (0..count).map(|n| eval(n).expect("finite").as_f64()).collect()
    }

    #[test]
    fn indices_are_row_major_and_sizes_become_numbers() {
        let f = Formula::new("i * (j + 1) / ni", vec![4, 3], &sizes).expect("formula");
        assert_eq!(f.text(), "i * (j + 1) / 4");
        assert_eq!(f.check(12), Ok(()));
        assert!(f.check(13).is_err());
        let v = values(&f, ScalarType::Double, 12);
        // Row 1 is i = 1: 1/4, 2/4, 3/4; the division does not truncate.
        assert_eq!(&v[3..6], &[0.25, 0.5, 0.75]);
        assert_eq!(v[11], 3.0 * 3.0 / 4.0);
    }

    #[test]
    fn three_dimensions_remainders_and_pi() {
        let f =
            Formula::new("i % 2 + 10 * (j % 2) + 100 * k", vec![2, 2, 3], &sizes).expect("formula");
        let v = values(&f, ScalarType::Float, 12);
        assert_eq!(v, vec![0., 100., 200., 10., 110., 210., 1., 101., 201., 11., 111., 211.]);
        let x = Formula::new("i * pi", vec![3], &sizes).expect("formula");
        assert_eq!(values(&x, ScalarType::Double, 3)[2], 2.0 * PI);
        // An index name wins over a size of the same name.
        let shadow = Formula::new("i", vec![5], &sizes).expect("formula");
        assert_eq!(values(&shadow, ScalarType::Double, 5)[4], 4.0);
    }

    #[test]
    fn bad_formulas_are_refused_with_a_reason() {
        let unknown = Formula::new("i * q", vec![4], &sizes).expect_err("q is unknown");
        assert!(unknown.message.contains("`q`"), "{}", unknown.message);
        assert_eq!(unknown.at, 4);
        let too_deep = Formula::new("k", vec![2], &sizes).expect_err("k needs three dims");
        assert!(too_deep.message.contains("`i`"), "{}", too_deep.message);
        assert!(Formula::new("i", vec![1, 2, 3, 4], &sizes).is_err());
        let flat = Formula::new("2 * i", vec![], &sizes).expect("one dimension");
        assert_eq!(flat.check(7), Ok(()));
        assert_eq!(values(&flat, ScalarType::Int, 3), vec![0.0, 2.0, 4.0]);
        assert!(Formula::new("i +", vec![2], &sizes).is_err());

        let zero = Formula::new("1 / i", vec![2], &sizes).expect("parses");
        let mut eval = zero.evaluator(ScalarType::Float);
        assert!(eval(0).expect_err("1/0").contains("[0]"));
        let half = Formula::new("i / 2", vec![2], &sizes).expect("parses");
        let mut eval = half.evaluator(ScalarType::Int);
        assert_eq!(eval(0), Ok(Number::Int(0)));
        assert!(eval(1).expect_err("0.5 is no int").contains("int"));
    }
}
