//! The IR's operators and what is known about them: their classes, their C spelling and their
//! precedence.
//!
//! The AST keeps the operators as the parser read them (`+x`, `x++`, `a += b` are operators
//! there); sema lowers them to these enums, which name only what the IR computes. Every stage
//! that asks "is this a comparison?" asks here, so the answer cannot drift between sema, the
//! validator, the printer and the transforms.

/// Unary operators on arithmetic values (`+x` is no operation and `*`, `&`, `++` are
/// expressions of their own in the IR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Negate,
    /// `!x` (result `int` for scalars, signed integer vector for vectors)
    LogicalNot,
    /// `~x`
    BitNot,
}

impl UnaryOp {
    /// The C spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Negate => "-",
            UnaryOp::LogicalNot => "!",
            UnaryOp::BitNot => "~",
        }
    }
}

/// Binary operators on arithmetic operands (pointer arithmetic has its own expressions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogicalAnd,
    LogicalOr,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 18] = [
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::Lt,
        BinaryOp::Gt,
        BinaryOp::Le,
        BinaryOp::Ge,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::BitAnd,
        BinaryOp::BitXor,
        BinaryOp::BitOr,
        BinaryOp::LogicalAnd,
        BinaryOp::LogicalOr,
    ];

    /// The C spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Gt => ">",
            BinaryOp::Le => "<=",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::LogicalAnd => "&&",
            BinaryOp::LogicalOr => "||",
        }
    }

    /// `*`, `/`, `%`, `+`, `-`: the result has the operands' (common) type.
    pub const fn is_arithmetic(self) -> bool {
        matches!(
            self,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem | BinaryOp::Add | BinaryOp::Sub
        )
    }

    /// `<`, `>`, `<=`, `>=`, `==`, `!=`: the result is `int` (a signed integer vector for
    /// vector operands), whatever the operands' type.
    pub const fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Lt | BinaryOp::Gt | BinaryOp::Le | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        )
    }

    /// `&&`, `||`: short-circuit on scalars, result typed like a comparison's.
    pub const fn is_logical(self) -> bool {
        matches!(self, BinaryOp::LogicalAnd | BinaryOp::LogicalOr)
    }

    /// `<<`, `>>`: the right operand has the left operand's type, not a common one.
    pub const fn is_shift(self) -> bool {
        matches!(self, BinaryOp::Shl | BinaryOp::Shr)
    }

    /// `&`, `^`, `|`.
    pub const fn is_bitwise(self) -> bool {
        matches!(self, BinaryOp::BitAnd | BinaryOp::BitXor | BinaryOp::BitOr)
    }

    /// Whether the result is a truth value (`int`, or a signed integer vector whose true
    /// components are -1) rather than a value of the operands' type.
    pub const fn yields_truth_value(self) -> bool {
        self.is_comparison() || self.is_logical()
    }

    /// Operators C defines on integer operands only (`%`, shifts, bitwise).
    pub const fn is_integer_only(self) -> bool {
        matches!(self, BinaryOp::Rem) || self.is_shift() || self.is_bitwise()
    }

    /// The C precedence level of the operator on the scale of [`precedence`] (higher binds
    /// tighter; all binary operators group left to right).
    pub const fn precedence(self) -> u8 {
        match self {
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 13,
            BinaryOp::Add | BinaryOp::Sub => 12,
            BinaryOp::Shl | BinaryOp::Shr => 11,
            BinaryOp::Lt | BinaryOp::Gt | BinaryOp::Le | BinaryOp::Ge => 10,
            BinaryOp::Eq | BinaryOp::Ne => 9,
            BinaryOp::BitAnd => 8,
            BinaryOp::BitXor => 7,
            BinaryOp::BitOr => 6,
            BinaryOp::LogicalAnd => 5,
            BinaryOp::LogicalOr => 4,
        }
    }
}

/// C precedence levels of the forms that are not binary operators, loosest first, on the
/// scale of [`BinaryOp::precedence`]. An operand printed where at least `p` is required needs
/// parentheses when its own level is lower.
pub mod precedence {
    pub const NONE: u8 = 0;
    pub const COMMA: u8 = 1;
    pub const ASSIGN: u8 = 2;
    pub const CONDITIONAL: u8 = 3;
    pub const LOGICAL_OR: u8 = 4;
    /// Prefix operators and casts: tighter than every binary operator.
    pub const UNARY: u8 = 14;
    pub const POSTFIX: u8 = 15;
    pub const PRIMARY: u8 = 16;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operator_is_in_exactly_one_class() {
        for op in BinaryOp::ALL {
            let classes = [
                op.is_arithmetic(),
                op.is_comparison(),
                op.is_logical(),
                op.is_shift(),
                op.is_bitwise(),
            ];
            assert_eq!(classes.iter().filter(|c| **c).count(), 1, "{op:?}");
        }
    }

    #[test]
    fn binary_precedence_lies_between_conditional_and_unary() {
        for op in BinaryOp::ALL {
            let p = op.precedence();
            assert!((precedence::LOGICAL_OR..precedence::UNARY).contains(&p), "{op:?}");
        }
        assert!(BinaryOp::Mul.precedence() > BinaryOp::Add.precedence());
        assert!(BinaryOp::Shl.precedence() > BinaryOp::Lt.precedence());
        assert!(BinaryOp::Eq.precedence() > BinaryOp::BitAnd.precedence());
        assert!(BinaryOp::LogicalAnd.precedence() > BinaryOp::LogicalOr.precedence());
    }

    #[test]
    fn integer_only_operators_are_remainder_shifts_and_bitwise() {
        let integer_only: Vec<_> =
            BinaryOp::ALL.into_iter().filter(|o| o.is_integer_only()).collect();
        assert_eq!(
            integer_only,
            [
                BinaryOp::Rem,
                BinaryOp::Shl,
                BinaryOp::Shr,
                BinaryOp::BitAnd,
                BinaryOp::BitXor,
                BinaryOp::BitOr
            ]
        );
    }
}
