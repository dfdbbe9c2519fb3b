//! The compiled, pre-typed form of a kernel that the executor runs.
//!
//! Compilation (see [`crate::compile`]) inlines helper functions, gives every value a register
//! *slot* (one slot = one component, `lanes` contiguous `u64`s at run time), and turns each IR
//! operation into an [`Op`] that already knows its scalar type, width and operand slots. Vector
//! components occupy consecutive slots, so an element-wise vector operation is one loop over
//! `width * lanes` values. Control flow stays structured ([`Node`]), executed with lane masks.

use clmap_lang::ir::{
    AddressSpace, BinaryOp, Builtin, FenceFlags, Rounding, Scalar, WorkItemFunction,
};
use clmap_lang::Span;

/// A register slot: component storage for every lane of a work-group.
pub(crate) type Slot = u32;

/// Where a memory instruction comes from: for reports and observers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Site {
    pub span: Span,
    /// Root variable or parameter of the address, when known.
    pub object: Option<String>,
    pub space: AddressSpace,
    /// The access is to a member of a packed struct (or inside one): its address need not be
    /// aligned to its type, so alignment is not checked.
    pub packed: bool,
    /// For an access into a private variable (an element of a private array, a member of a
    /// private struct): the variable's byte offset and size in the work-item's private memory.
    /// An access outside them reads or writes another variable, so it is reported as out of
    /// bounds, as Oclgrind (which allocates each variable apart) reports it.
    pub private_bounds: Option<(u64, u64)>,
    /// For a copy of a whole struct: the byte ranges (offset, size) of its members, those of
    /// nested structs' members in their place, padding left out. A struct copied to global or
    /// local memory with an undefined member is an undefined value stored (as Oclgrind judges
    /// it); undefined padding is not.
    pub struct_members: Option<Box<[(u64, u64)]>>,
}

#[derive(Clone, Debug)]
pub(crate) enum Node {
    Op(Op),
    If {
        cond: Slot,
        then_: Vec<Node>,
        else_: Vec<Node>,
        span: Span,
    },
    Loop {
        /// Evaluated before each test; `cond` is then a 0/1 slot (or `None`: always true).
        cond_nodes: Vec<Node>,
        cond: Option<Slot>,
        body: Vec<Node>,
        update: Vec<Node>,
        /// `false` for `do … while`.
        test_first: bool,
        span: Span,
    },
    Switch {
        selector: Slot,
        cases: Vec<CaseNode>,
        span: Span,
    },
    Break,
    Continue,
    Return,
    /// An inlined call: lanes that return inside come back when the body ends.
    Call {
        body: Vec<Node>,
    },
    Barrier {
        span: Span,
        /// The address spaces the barrier orders.
        fences: FenceFlags,
    },
    /// The start of source statement `index` of [`DebugInfo::statements`]: only in programs
    /// compiled for the interactive debugger ([`crate::compile_kernel_for_debugging`]), so
    /// that other runs pay nothing for it.
    Statement(u32),
}

#[derive(Clone, Debug)]
pub(crate) struct CaseNode {
    pub value: Option<i64>,
    pub body: Vec<Node>,
    pub fall_through: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnaryKind {
    Negate,
    BitNot,
}

#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// Masked copy of `len` slots (assignment to a register variable).
    Copy {
        dst: Slot,
        src: Slot,
        len: u32,
    },
    /// Unmasked: slot `dst + i` receives slot `srcs[i]` (swizzles, vector literals, splats).
    Gather {
        dst: Slot,
        srcs: Box<[Slot]>,
    },
    /// Masked: slot `dsts[i]` receives slot `src + i` (assignment to a swizzle).
    Scatter {
        dsts: Box<[Slot]>,
        src: Slot,
    },
    Unary {
        op: UnaryKind,
        ty: Scalar,
        dst: Slot,
        a: Slot,
        len: u32,
    },
    /// Arithmetic and bitwise operators; integer division by zero yields 0 and a report.
    Binary {
        op: BinaryOp,
        ty: Scalar,
        dst: Slot,
        a: Slot,
        b: Slot,
        len: u32,
        site: u32,
    },
    /// Comparison in `ty`; the result is 1 (scalar) or -1 (vector) when true, in `result`.
    Compare {
        op: BinaryOp,
        ty: Scalar,
        dst: Slot,
        a: Slot,
        b: Slot,
        len: u32,
        vector: bool,
    },
    /// Component-wise `&&` / `||` of vectors (both sides evaluated).
    LogicalVector {
        and: bool,
        ty: Scalar,
        dst: Slot,
        a: Slot,
        b: Slot,
        len: u32,
    },
    /// `!x`: 1/0 for scalars, -1/0 for vectors.
    Not {
        ty: Scalar,
        dst: Slot,
        a: Slot,
        len: u32,
        vector: bool,
    },
    /// `x != 0` as 0/1.
    ToBool {
        ty: Scalar,
        dst: Slot,
        a: Slot,
        len: u32,
    },
    Convert {
        from: Scalar,
        to: Scalar,
        dst: Slot,
        a: Slot,
        len: u32,
        saturate: bool,
        rounding: Option<Rounding>,
    },
    /// Reinterprets `from_len` components of `from` as `to_len` components of `to`
    /// (3-vectors count as 4).
    Bitcast {
        from: Scalar,
        to: Scalar,
        dst: Slot,
        a: Slot,
        from_len: u32,
        to_len: u32,
    },
    /// Component-wise `cond ? a : b` on the most significant bit of `cond` (vector `?:`,
    /// `select` on vectors) or on `cond != 0` (`msb: false`).
    Select {
        cond_ty: Scalar,
        msb: bool,
        dst: Slot,
        cond: Slot,
        a: Slot,
        b: Slot,
        len: u32,
    },
    /// `dst = base + index * scale` (index sign-extended when `signed`, negated when `negate`).
    AddrIndex {
        dst: Slot,
        base: Slot,
        index: Slot,
        signed: bool,
        scale: u64,
        negate: bool,
    },
    /// `dst = base + offset`.
    AddrConst {
        dst: Slot,
        base: Slot,
        offset: u64,
    },
    /// `(a - b) / elem_size` as `long`.
    PtrDiff {
        dst: Slot,
        a: Slot,
        b: Slot,
        elem_size: u64,
    },
    /// Per-lane address of private memory at `offset` of the lane's frame.
    PrivateAddr {
        dst: Slot,
        offset: u64,
    },
    /// Address of a kernel's `__local` variable.
    LocalAddr {
        dst: Slot,
        offset: u64,
    },
    /// Address of a program-scope `__constant` variable.
    GlobalVarAddr {
        dst: Slot,
        global: u32,
    },
    /// Loads `width` components of `scalar` (at consecutive addresses, or at the given
    /// component indices).
    Load {
        dst: Slot,
        addr: Slot,
        scalar: Scalar,
        width: u32,
        comps: Option<Box<[u8]>>,
        site: u32,
    },
    Store {
        addr: Slot,
        src: Slot,
        scalar: Scalar,
        width: u32,
        comps: Option<Box<[u8]>>,
        site: u32,
    },
    /// Copies `size` bytes (aggregate assignment).
    MemCopy {
        dst: Slot,
        src: Slot,
        size: u64,
        site: u32,
    },
    /// Zeroes `size` bytes.
    MemZero {
        dst: Slot,
        size: u64,
        site: u32,
    },
    /// Reports lanes whose `index` is not below `len`: an access through an array of `len`
    /// elements indexed past its end (or below 0), even when the address stays inside the
    /// enclosing object (`int a[4][4]; a[0][5]`). Placed after the access it guards.
    IndexCheck {
        index: Slot,
        signed: bool,
        len: u64,
        span: Span,
    },
    WorkItem {
        func: WorkItemFunction,
        dst: Slot,
        dim: Option<(Slot, Scalar)>,
    },
    Builtin(Box<BuiltinCall>),
}

/// An argument of a built-in call: its slot and its value shape.
#[derive(Clone, Debug)]
pub(crate) struct BuiltinArg {
    pub slot: Slot,
    pub scalar: Scalar,
    pub width: u32,
    /// Address space and pointee scalar/width for pointer arguments.
    pub pointer: Option<(AddressSpace, Scalar, u32)>,
    /// A string literal argument (`printf("%s", "text")`).
    pub literal: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct BuiltinCall {
    pub function: Builtin,
    pub dst: Slot,
    pub result: Scalar,
    pub width: u32,
    pub args: Vec<BuiltinArg>,
    pub site: u32,
    /// `printf`: the format string.
    pub format: Option<String>,
}

/// How a kernel parameter receives its argument.
#[derive(Clone, Debug)]
pub(crate) enum ParamSlot {
    /// In a register: `width` components of `scalar` (pointers and events are `ULong`).
    Reg { slot: Slot, scalar: Scalar, width: u32 },
    /// In each lane's private memory (by-value structs, parameters whose address is taken).
    Private { offset: u64, size: u64 },
}

#[derive(Clone, Debug)]
pub(crate) struct ParamInfo {
    pub name: String,
    pub slot: ParamSlot,
    /// For pointer parameters: the address space pointed to.
    pub pointer_space: Option<AddressSpace>,
    /// For image and sampler parameters: which, so the argument can be checked.
    pub opaque: Option<OpaqueParam>,
}

/// Parameters whose argument is neither a buffer nor bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpaqueParam {
    Image(clmap_lang::ir::ImageKind),
    Sampler,
}

/// A `__local` variable of the kernel.
#[derive(Clone, Debug)]
pub(crate) struct LocalObject {
    pub name: String,
    pub offset: u64,
    pub size: u64,
}

/// A program-scope variable and its initial bytes.
#[derive(Clone, Debug)]
pub(crate) struct GlobalImage {
    pub name: String,
    pub bytes: Vec<u8>,
    /// Index of the variable in the module's `global_variables`.
    pub variable: u32,
    /// A `__global` variable (OpenCL C 2.0), whose contents persist from launch to launch of
    /// the program; a `__constant` one starts from `bytes` in every launch.
    pub persistent: bool,
    /// Pointers in `bytes` to other program-scope variables, whose addresses are known only
    /// when a launch places the variables after its buffers.
    pub relocations: Vec<GlobalRelocation>,
}

/// A pointer inside a program-scope variable's initial bytes that holds the address of byte
/// `offset` of program-scope variable `global` (an index of [`Program::globals`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GlobalRelocation {
    /// Where the 8-byte pointer is, in the variable's bytes.
    pub at: usize,
    pub global: u32,
    pub offset: u64,
}

impl GlobalImage {
    /// The variable's initial bytes in a launch whose program-scope variables come after
    /// `globals_base` buffers: its pointers point where the launch placed their targets.
    pub fn initial_bytes(&self, globals_base: usize) -> std::borrow::Cow<'_, [u8]> {
        if self.relocations.is_empty() {
            return std::borrow::Cow::Borrowed(&self.bytes);
        }
        let mut bytes = self.bytes.clone();
        for r in &self.relocations {
            let address = crate::memory::buffer_base(globals_base + r.global as usize) + r.offset;
            if let Some(slot) = bytes.get_mut(r.at..r.at + 8) {
                slot.copy_from_slice(&address.to_le_bytes());
            }
        }
        std::borrow::Cow::Owned(bytes)
    }
}

/// A kernel ready to run.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) kernel: String,
    pub(crate) nodes: Vec<Node>,
    /// Register slots in total.
    pub(crate) slots: u32,
    /// Constants written into their slots once per work-group.
    pub(crate) constants: Vec<(Slot, u64)>,
    /// Bytes of private memory per lane.
    pub(crate) private_size: u64,
    /// Bytes of `__local` variables declared in the kernel body.
    pub(crate) local_size: u64,
    pub(crate) local_objects: Vec<LocalObject>,
    pub(crate) params: Vec<ParamInfo>,
    pub(crate) sites: Vec<Site>,
    pub(crate) globals: Vec<GlobalImage>,
    /// Register variables declared without an initialiser (slot, components): their value is
    /// undefined until assigned, which the uninitialised-value check follows.
    pub(crate) undefined_slots: Vec<(Slot, u32)>,
    pub(crate) reqd_work_group_size: Option<[u32; 3]>,
    /// The program is OpenCL C 2.0 or later: a launch may end in partial work-groups.
    pub(crate) partial_groups: bool,
    /// No work-item can see what another of its group does, or when: the kernel has no
    /// barrier, `__local` variable, atomic, `printf` or async copy (local-pointer arguments
    /// are checked per launch). Such a group may run in pieces.
    pub(crate) independent_work_items: bool,
    /// `nodes` with loop-invariant operations moved in front of their loops (see
    /// [`crate::hoist`]), for runs that nothing observes; `None` when nothing moves.
    pub(crate) hoisted: Option<Vec<Node>>,
    /// What the interactive debugger needs to show the source and the variables; only in
    /// programs compiled for it.
    pub(crate) debug: Option<Box<DebugInfo>>,
}

/// The source view of a program compiled for the interactive debugger: its statements, in
/// the order [`Node::Statement`] indices name them, and its variables.
#[derive(Clone, Debug)]
pub(crate) struct DebugInfo {
    /// The module's types, which the debugger walks to print members and elements.
    pub types: clmap_lang::ir::UniqueArena<clmap_lang::ir::Type>,
    pub statements: Vec<DebugStatement>,
    pub variables: Vec<DebugVariable>,
    /// The kernel and every inlined call, by [`DebugStatement::function`].
    pub functions: Vec<DebugFunction>,
}

#[derive(Clone, Debug)]
pub(crate) struct DebugStatement {
    pub span: Span,
    /// Index in [`DebugInfo::functions`] of the (inlined) function the statement is in.
    pub function: u32,
    /// Calls between the kernel and the statement (0 in the kernel's own body).
    pub depth: u32,
    /// The variables in scope, innermost declaration last (indices of
    /// [`DebugInfo::variables`]).
    pub visible: Vec<u32>,
}

#[derive(Clone, Debug)]
pub(crate) struct DebugFunction {
    pub name: String,
    pub span: Span,
    /// The parameters, as indices of [`DebugInfo::variables`].
    pub params: Vec<u32>,
    /// The statement of the call, for a helper; `None` for the kernel.
    pub caller: Option<u32>,
}

#[derive(Clone, Debug)]
pub(crate) struct DebugVariable {
    pub name: String,
    pub ty: clmap_lang::ir::Handle<clmap_lang::ir::Type>,
    pub place: DebugPlace,
}

/// Where a variable's value is while its scope runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DebugPlace {
    /// In `width` register slots from `slot`.
    Reg { slot: Slot, scalar: Scalar, width: u32 },
    /// In memory, at the address register `addr` holds.
    Mem { addr: Slot },
}

/// Whether no node of `nodes` lets one work-item observe another of its group (see
/// [`Program::independent_work_items`]).
pub(crate) fn work_items_independent(nodes: &[Node]) -> bool {
    nodes.iter().all(|node| match node {
        Node::Op(Op::Builtin(call)) => !matches!(
            call.function,
            Builtin::Atomic { .. }
                | Builtin::AsyncCopy { .. }
                | Builtin::WaitGroupEvents
                | Builtin::Printf
        ),
        Node::Op(Op::LocalAddr { .. }) | Node::Barrier { .. } => false,
        Node::Op(_) | Node::Break | Node::Continue | Node::Return | Node::Statement(_) => true,
        Node::If { then_, else_, .. } => {
            work_items_independent(then_) && work_items_independent(else_)
        }
        Node::Loop { cond_nodes, body, update, .. } => {
            work_items_independent(cond_nodes)
                && work_items_independent(body)
                && work_items_independent(update)
        }
        Node::Switch { cases, .. } => cases.iter().all(|c| work_items_independent(&c.body)),
        Node::Call { body } => work_items_independent(body),
    })
}

impl Program {
    /// The kernel's name.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// Names of the kernel's parameters, in order.
    pub fn param_names(&self) -> impl Iterator<Item = &str> {
        self.params.iter().map(|p| p.name.as_str())
    }

    /// Number of register slots (each holds one component for every lane).
    pub fn register_slots(&self) -> u32 {
        self.slots
    }

    /// Bytes of `__local` variables the kernel declares in its body (local-pointer arguments
    /// come on top, per launch).
    pub fn static_local_bytes(&self) -> u64 {
        self.local_size
    }

    /// Bytes of private memory each work-item uses.
    pub fn private_bytes(&self) -> u64 {
        self.private_size
    }
}
