//! C's scopes: the ordinary-name space (variables, functions, typedefs, enumerators) and the
//! tag space (`struct S`, `union U`, `enum E`), both nested by block.

use std::collections::HashMap;

use crate::ir::{self, AddressSpace, Handle, Literal, VariableRef};
use crate::span::Span;

/// What an ordinary identifier names.
#[derive(Clone, Debug)]
pub(super) enum Symbol {
    Variable {
        var: VariableRef,
        ty: Handle<ir::Type>,
        space: AddressSpace,
        is_const: bool,
        span: Span,
    },
    Typedef {
        ty: Handle<ir::Type>,
        span: Span,
    },
    /// Index into the checker's declared functions.
    Function {
        index: usize,
        span: Span,
    },
    /// An enumerator or a predefined constant (`CLK_LOCAL_MEM_FENCE`, `FLT_MAX`).
    Constant {
        value: Literal,
        span: Span,
    },
    /// A name whose declaration had an error: uses of it fail quietly, so one mistake is
    /// reported once rather than at every use.
    Poisoned {
        span: Span,
    },
}

impl Symbol {
    pub(super) fn span(&self) -> Span {
        match *self {
            Symbol::Variable { span, .. }
            | Symbol::Typedef { span, .. }
            | Symbol::Function { span, .. }
            | Symbol::Constant { span, .. }
            | Symbol::Poisoned { span } => span,
        }
    }
}

/// What a tag names.
#[derive(Clone, Debug)]
pub(super) enum Tag {
    /// A struct or union; `ty` is incomplete while only declared (`struct S;`).
    Record { is_union: bool, ty: Handle<ir::Type>, span: Span },
    Enum {
        span: Span,
        /// The integer type that holds every enumerator (`int` unless a value needs more).
        underlying: crate::ir::Scalar,
    },
}

#[derive(Default)]
struct Scope {
    symbols: HashMap<String, Symbol>,
    tags: HashMap<String, Tag>,
}

/// The stack of scopes; index 0 holds the predefined names, 1 the file scope.
pub(super) struct Scopes {
    stack: Vec<Scope>,
}

impl Scopes {
    pub(super) fn new() -> Self {
        Scopes { stack: vec![Scope::default(), Scope::default()] }
    }

    pub(super) fn push(&mut self) {
        self.stack.push(Scope::default());
    }

    pub(super) fn pop(&mut self) {
        // The predefined and file scopes stay.
        if self.stack.len() > 2 {
            self.stack.pop();
        }
    }

    pub(super) fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.stack.iter().rev().find_map(|s| s.symbols.get(name))
    }

    /// The symbol declared under `name` in the innermost scope, if any.
    pub(super) fn lookup_innermost(&self, name: &str) -> Option<&Symbol> {
        self.stack.last().and_then(|s| s.symbols.get(name))
    }

    pub(super) fn is_file_scope(&self) -> bool {
        self.stack.len() <= 2
    }

    pub(super) fn insert(&mut self, name: &str, symbol: Symbol) {
        if let Some(scope) = self.stack.last_mut() {
            scope.symbols.insert(name.to_string(), symbol);
        }
    }

    pub(super) fn insert_predefined(&mut self, name: &str, symbol: Symbol) {
        if let Some(scope) = self.stack.first_mut() {
            scope.symbols.insert(name.to_string(), symbol);
        }
    }

    pub(super) fn lookup_tag(&self, name: &str) -> Option<&Tag> {
        self.stack.iter().rev().find_map(|s| s.tags.get(name))
    }

    pub(super) fn lookup_tag_innermost(&self, name: &str) -> Option<&Tag> {
        self.stack.last().and_then(|s| s.tags.get(name))
    }

    pub(super) fn insert_tag(&mut self, name: &str, tag: Tag) {
        if let Some(scope) = self.stack.last_mut() {
            scope.tags.insert(name.to_string(), tag);
        }
    }
}
