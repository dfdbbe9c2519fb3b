//! What a PTX text does, in numbers a person can compare: instruction mix, memory operations
//! per state space, loops with the memory operations inside them, unroll factors and declared
//! registers. Seed 003 §3.2 explains its speedups with exactly these (stores moved out of
//! loops, load address patterns, unroll factors).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use serde::Serialize;

use crate::ptx::{code_lines, Ptx};

/// The kind of one PTX instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InstructionKind {
    /// `ld.global` (including `.nc`, read-only cache) and `ldu.global`.
    LoadGlobal,
    /// `ld.shared`: OpenCL `__local`.
    LoadShared,
    /// `ld.local`: private memory that did not fit in registers (stack, spills).
    LoadLocal,
    /// `ld.param`: kernel arguments.
    LoadParam,
    /// `ld.const`.
    LoadConst,
    /// `ld` without a state space (generic addressing).
    LoadGeneric,
    /// `st.global`.
    StoreGlobal,
    /// `st.shared`.
    StoreShared,
    /// `st.local`.
    StoreLocal,
    /// `st.param` (call arguments).
    StoreParam,
    /// `st` without a state space.
    StoreGeneric,
    /// `atom` and `red`.
    Atomic,
    /// `fma` and `mad`.
    Fma,
    /// Other floating-point arithmetic.
    FloatArith,
    /// Integer and bit arithmetic.
    IntArith,
    /// `cvt` and `cvta`.
    Convert,
    /// `mov`.
    Move,
    /// `setp`, `selp`, `set`, `slct`.
    Compare,
    /// `bra`.
    Branch,
    /// `bar`, `barrier`, `membar`, `fence`.
    Barrier,
    /// `call`.
    Call,
    /// `ret` and `exit`.
    Return,
    /// Anything else.
    Other,
}

impl InstructionKind {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            InstructionKind::LoadGlobal => "ld.global",
            InstructionKind::LoadShared => "ld.shared",
            InstructionKind::LoadLocal => "ld.local",
            InstructionKind::LoadParam => "ld.param",
            InstructionKind::LoadConst => "ld.const",
            InstructionKind::LoadGeneric => "ld (generic)",
            InstructionKind::StoreGlobal => "st.global",
            InstructionKind::StoreShared => "st.shared",
            InstructionKind::StoreLocal => "st.local",
            InstructionKind::StoreParam => "st.param",
            InstructionKind::StoreGeneric => "st (generic)",
            InstructionKind::Atomic => "atomic",
            InstructionKind::Fma => "fma/mad",
            InstructionKind::FloatArith => "float arithmetic",
            InstructionKind::IntArith => "integer arithmetic",
            InstructionKind::Convert => "conversions",
            InstructionKind::Move => "moves",
            InstructionKind::Compare => "compare/select",
            InstructionKind::Branch => "branches",
            InstructionKind::Barrier => "barriers",
            InstructionKind::Call => "calls",
            InstructionKind::Return => "returns",
            InstructionKind::Other => "other",
        }
    }

    /// Whether it reads or writes memory other than kernel parameters.
    pub fn is_memory_access(self) -> bool {
        self.is_load() || self.is_store() || self == InstructionKind::Atomic
    }

    /// A load from memory other than parameters.
    pub fn is_load(self) -> bool {
        matches!(
            self,
            InstructionKind::LoadGlobal
                | InstructionKind::LoadShared
                | InstructionKind::LoadLocal
                | InstructionKind::LoadConst
                | InstructionKind::LoadGeneric
        )
    }

    /// A store to memory other than parameters.
    pub fn is_store(self) -> bool {
        matches!(
            self,
            InstructionKind::StoreGlobal
                | InstructionKind::StoreShared
                | InstructionKind::StoreLocal
                | InstructionKind::StoreGeneric
        )
    }
}

/// One loop: a backward branch and the instructions between its target label and itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoopSummary {
    /// The label the backward branch jumps to.
    pub header: String,
    /// 1 for an outermost loop.
    pub depth: usize,
    /// Whether no other loop lies inside it.
    pub innermost: bool,
    /// Instructions in the loop, nested loops included.
    pub instructions: usize,
    /// Loads (not of parameters) in the loop.
    pub loads: usize,
    /// Stores (not of parameters) in the loop.
    pub stores: usize,
    /// `ld.global` in the loop.
    pub global_loads: usize,
    /// `st.global` in the loop: seed 003's best sequences move these out.
    pub global_stores: usize,
    /// How many copies of the original body the loop seems to hold: the number of times its
    /// sequence of memory and floating-point operations repeats (1: not unrolled).
    pub unroll_estimate: usize,
}

/// A summary of one PTX text, for comparing two compilations of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PtxSummary {
    /// All instructions.
    pub instructions: usize,
    /// Instructions per kind.
    pub kinds: BTreeMap<InstructionKind, usize>,
    /// Every loop, in the order of their backward branches.
    pub loops: Vec<LoopSummary>,
    /// Loads (not of parameters) inside any loop.
    pub loads_in_loops: usize,
    /// Stores (not of parameters) inside any loop.
    pub stores_in_loops: usize,
    /// `ld.global` inside any loop.
    pub global_loads_in_loops: usize,
    /// `st.global` inside any loop.
    pub global_stores_in_loops: usize,
    /// 64-bit integer and conversion instructions per global memory access: a proxy for the
    /// address arithmetic seed 003 saw around OpenCL loads (five instructions instead of one).
    pub address_ops_per_global_access: f64,
    /// Registers declared with `.reg`, per register type (`.f32`, `.b64`, `.pred`, …).
    pub registers: BTreeMap<String, usize>,
    /// All declared registers.
    pub registers_total: usize,
    /// Kernels (`.entry`) in the text.
    pub kernels: Vec<String>,
}

/// One instruction as far as the summary cares.
struct Instruction {
    kind: InstructionKind,
    opcode: String,
    /// For a branch: its target label.
    target: Option<String>,
    /// Whether it is a 64-bit integer or conversion op (address arithmetic).
    wide_integer: bool,
}

/// Upper bound of loops analysed: the summary is quadratic in loops and PTX from unusual
/// pipelines can be large.
const MAX_LOOPS: usize = 4096;

impl PtxSummary {
    /// Summarises `ptx`. Malformed text gives a smaller summary, never a panic.
    pub fn of(ptx: &Ptx) -> PtxSummary {
        PtxSummary::of_text(&ptx.as_str())
    }

    /// Summarises PTX given as text.
    pub fn of_text(text: &str) -> PtxSummary {
        let mut summary = PtxSummary::default();
        let mut instructions: Vec<Instruction> = Vec::new();
        let mut labels: HashMap<String, usize> = HashMap::new();

        for line in code_lines(text) {
            for statement in line.split(';') {
                let statement = statement.trim().trim_start_matches('{').trim();
                let statement = statement.trim_end_matches('}').trim();
                if statement.is_empty() {
                    continue;
                }
                if let Some(label) = statement.strip_suffix(':') {
                    if !label.contains(char::is_whitespace) {
                        labels.insert(label.to_string(), instructions.len());
                    }
                    continue;
                }
                if let Some(rest) = statement.strip_prefix(".entry") {
                    let name: String = rest
                        .trim()
                        .chars()
                        .take_while(|c| *c != '(' && !c.is_whitespace())
                        .collect();
                    if !name.is_empty() {
                        summary.kernels.push(name);
                    }
                    continue;
                }
                if let Some(rest) = statement.strip_prefix(".reg") {
                    count_registers(rest, &mut summary.registers);
                    continue;
                }
                if statement.starts_with('.') || statement.starts_with(')') {
                    continue;
                }
                if let Some(instruction) = parse_instruction(statement) {
                    instructions.push(instruction);
                }
            }
        }

        summary.instructions = instructions.len();
        for instruction in &instructions {
            *summary.kinds.entry(instruction.kind).or_insert(0) += 1;
        }
        summary.registers_total =
            summary.registers.values().fold(0usize, |total, n| total.saturating_add(*n));

        let global_accesses = instructions
            .iter()
            .filter(|i| {
                matches!(i.kind, InstructionKind::LoadGlobal | InstructionKind::StoreGlobal)
            })
            .count();
        let wide = instructions.iter().filter(|i| i.wide_integer).count();
        summary.address_ops_per_global_access =
            if global_accesses == 0 { 0.0 } else { wide as f64 / global_accesses as f64 };

        summarise_loops(&instructions, &labels, &mut summary);
        summary
    }

    /// Instructions of one kind.
    pub fn count(&self, kind: InstructionKind) -> usize {
        self.kinds.get(&kind).copied().unwrap_or(0)
    }

    /// A readable report of what differs from `self` (before) to `other` (after): one line per
    /// changed figure, or a line saying nothing summarised changed.
    pub fn diff(&self, other: &PtxSummary) -> String {
        let mut out = String::new();
        let mut line = |label: &str, before: usize, after: usize| {
            if before != after {
                let delta = after as i64 - before as i64;
                let _ = writeln!(out, "{label}: {before} → {after} ({delta:+})");
            }
        };
        line("instructions", self.instructions, other.instructions);
        let kinds: std::collections::BTreeSet<InstructionKind> =
            self.kinds.keys().chain(other.kinds.keys()).copied().collect();
        for kind in kinds {
            line(&format!("  {}", kind.name()), self.count(kind), other.count(kind));
        }
        line("loops", self.loops.len(), other.loops.len());
        line("loads inside loops", self.loads_in_loops, other.loads_in_loops);
        line("stores inside loops", self.stores_in_loops, other.stores_in_loops);
        line("global loads inside loops", self.global_loads_in_loops, other.global_loads_in_loops);
        line(
            "global stores inside loops",
            self.global_stores_in_loops,
            other.global_stores_in_loops,
        );
        line("registers declared", self.registers_total, other.registers_total);
        let before_unroll = self.unroll_estimates();
        let after_unroll = other.unroll_estimates();
        if before_unroll != after_unroll {
            let _ = writeln!(
                out,
                "unroll factors of innermost loops (estimated): {before_unroll:?} → {after_unroll:?}"
            );
        }
        if (self.address_ops_per_global_access - other.address_ops_per_global_access).abs() >= 0.05
        {
            let _ = writeln!(
                out,
                "64-bit address instructions per global access: {:.2} → {:.2}",
                self.address_ops_per_global_access, other.address_ops_per_global_access
            );
        }
        if out.is_empty() {
            out.push_str("no difference in instruction mix, loops or registers\n");
        }
        out
    }

    /// The unroll estimate of each innermost loop, in order.
    pub fn unroll_estimates(&self) -> Vec<usize> {
        self.loops.iter().filter(|l| l.innermost).map(|l| l.unroll_estimate).collect()
    }
}

/// `.reg .f32 %f<7>` declares `%f0`…`%f6`; `.reg .b32 %r1, %r2` declares two.
fn count_registers(declaration: &str, registers: &mut BTreeMap<String, usize>) {
    let mut words = declaration.split_whitespace();
    let mut register_type = String::new();
    let mut count = 0usize;
    for word in words.by_ref() {
        if word.starts_with('.') {
            // `.v4 .f32`: the last dotted word is the element type.
            register_type = word.to_string();
            continue;
        }
        for name in word.split(',').filter(|n| !n.is_empty()) {
            let declared = match (name.find('<'), name.find('>')) {
                (Some(open), Some(close)) if open < close => {
                    name.get(open + 1..close).and_then(|n| n.parse::<usize>().ok()).unwrap_or(1)
                }
                _ => 1,
            };
            count = count.saturating_add(declared);
        }
    }
    if !register_type.is_empty() && count > 0 {
        let total = registers.entry(register_type).or_insert(0);
        *total = total.saturating_add(count);
    }
}

fn parse_instruction(statement: &str) -> Option<Instruction> {
    let mut words = statement.split_whitespace().peekable();
    if words.peek().is_some_and(|w| w.starts_with('@')) {
        words.next();
    }
    let opcode = words.next()?.to_string();
    let operands: Vec<&str> = words.collect();
    let kind = classify(&opcode);
    let target = (kind == InstructionKind::Branch)
        .then(|| operands.last().map(|t| t.trim_end_matches(',').to_string()))
        .flatten();
    let wide_integer = matches!(kind, InstructionKind::IntArith | InstructionKind::Convert)
        && (opcode.contains("64")
            || opcode.starts_with("mul.wide")
            || opcode.starts_with("mad.wide"));
    Some(Instruction { kind, opcode, target, wide_integer })
}

fn classify(opcode: &str) -> InstructionKind {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or("");
    let qualifiers: Vec<&str> = parts.collect();
    let has = |q: &str| qualifiers.contains(&q);
    let float = qualifiers
        .iter()
        .any(|q| matches!(*q, "f16" | "f16x2" | "bf16" | "bf16x2" | "f32" | "f64"));
    match base {
        "ld" | "ldu" => {
            if has("global") {
                InstructionKind::LoadGlobal
            } else if has("shared") {
                InstructionKind::LoadShared
            } else if has("local") {
                InstructionKind::LoadLocal
            } else if has("param") {
                InstructionKind::LoadParam
            } else if has("const") {
                InstructionKind::LoadConst
            } else {
                InstructionKind::LoadGeneric
            }
        }
        "st" => {
            if has("global") {
                InstructionKind::StoreGlobal
            } else if has("shared") {
                InstructionKind::StoreShared
            } else if has("local") {
                InstructionKind::StoreLocal
            } else if has("param") {
                InstructionKind::StoreParam
            } else {
                InstructionKind::StoreGeneric
            }
        }
        "atom" | "red" => InstructionKind::Atomic,
        "fma" => InstructionKind::Fma,
        "mad" if float => InstructionKind::Fma,
        // Integer multiply-add is mostly address arithmetic (`mad.wide.s32`).
        "mad" => InstructionKind::IntArith,
        "cvt" | "cvta" => InstructionKind::Convert,
        "mov" => InstructionKind::Move,
        "setp" | "selp" | "set" | "slct" => InstructionKind::Compare,
        "bra" | "brx" => InstructionKind::Branch,
        "bar" | "barrier" | "membar" | "fence" => InstructionKind::Barrier,
        "call" => InstructionKind::Call,
        "ret" | "exit" => InstructionKind::Return,
        "add" | "sub" | "mul" | "div" | "rem" | "abs" | "neg" | "min" | "max" | "sad" => {
            if float {
                InstructionKind::FloatArith
            } else {
                InstructionKind::IntArith
            }
        }
        "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh" | "copysign"
        | "testp" => InstructionKind::FloatArith,
        "and" | "or" | "xor" | "not" | "cnot" | "shl" | "shr" | "shf" | "bfe" | "bfi" | "brev"
        | "popc" | "clz" | "prmt" | "mul24" | "mad24" | "lop3" => InstructionKind::IntArith,
        _ => InstructionKind::Other,
    }
}

/// Finds loops as backward branches and fills the loop figures of `summary`.
fn summarise_loops(
    instructions: &[Instruction],
    labels: &HashMap<String, usize>,
    summary: &mut PtxSummary,
) {
    // (start, end inclusive, header label)
    let mut spans: Vec<(usize, usize, String)> = Vec::new();
    for (index, instruction) in instructions.iter().enumerate() {
        let Some(target) = &instruction.target else {
            continue;
        };
        if let Some(&start) = labels.get(target) {
            if start <= index && spans.len() < MAX_LOOPS {
                spans.push((start, index, target.clone()));
            }
        }
    }
    let inside_any = |index: usize| spans.iter().any(|(s, e, _)| *s <= index && index <= *e);
    for (index, instruction) in instructions.iter().enumerate() {
        if !inside_any(index) {
            continue;
        }
        if instruction.kind.is_load() {
            summary.loads_in_loops += 1;
        }
        if instruction.kind.is_store() {
            summary.stores_in_loops += 1;
        }
        match instruction.kind {
            InstructionKind::LoadGlobal => summary.global_loads_in_loops += 1,
            InstructionKind::StoreGlobal => summary.global_stores_in_loops += 1,
            _ => {}
        }
    }
    for (position, (start, end, header)) in spans.iter().enumerate() {
        let body = instructions.get(*start..=*end).unwrap_or(&[]);
        let depth = spans.iter().filter(|(s, e, _)| s <= start && end <= e).count();
        let innermost = !spans.iter().enumerate().any(|(other, (s, e, _))| {
            other != position && start <= s && e <= end && (s, e) != (start, end)
        });
        let count = |kind: InstructionKind| body.iter().filter(|i| i.kind == kind).count();
        summary.loops.push(LoopSummary {
            header: header.clone(),
            depth,
            innermost,
            instructions: body.len(),
            loads: body.iter().filter(|i| i.kind.is_load()).count(),
            stores: body.iter().filter(|i| i.kind.is_store()).count(),
            global_loads: count(InstructionKind::LoadGlobal),
            global_stores: count(InstructionKind::StoreGlobal),
            unroll_estimate: unroll_estimate(body),
        });
    }
}

/// The largest k such that the body's sequence of memory and floating-point operations is one
/// pattern repeated k times. Integer bookkeeping (the induction variable, address increments)
/// is left out because unrolling does not copy it.
fn unroll_estimate(body: &[Instruction]) -> usize {
    let skeleton: Vec<&str> = body
        .iter()
        .filter(|i| {
            i.kind.is_memory_access()
                || matches!(i.kind, InstructionKind::Fma | InstructionKind::FloatArith)
        })
        .map(|i| i.opcode.as_str())
        .collect();
    let n = skeleton.len();
    if n < 2 {
        return 1;
    }
    (2..=n)
        .rev()
        .filter(|k| n % k == 0)
        .find(|k| {
            let period = n / k;
            skeleton
                .iter()
                .enumerate()
                .skip(period)
                .all(|(i, op)| skeleton.get(i - period) == Some(op))
        })
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An unrolled-by-two dot product with the store of the result inside the loop, as the
    /// baselines in seed 003 keep it.
    const LOOP_PTX: &str = r#"
//
// Generated by LLVM NVPTX Back-End
//
.version 7.8
.target sm_90
.address_size 64
.entry dot(
	.param .u64 dot_param_0,
	.param .u64 dot_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	.reg .f32 	%f<8>;
	.reg .b64 	%rd<9>;

	ld.param.u64 	%rd1, [dot_param_0];
	ld.param.u64 	%rd2, [dot_param_1];
	mov.u32 	%r1, 0;
$L__BB0_1:                 // loop header
	ld.global.f32 	%f1, [%rd1];
	ld.global.f32 	%f2, [%rd1+4];
	fma.rn.f32 	%f3, %f1, %f2, %f3;
	st.global.f32 	[%rd2], %f3;
	ld.global.f32 	%f4, [%rd1+8];
	ld.global.f32 	%f5, [%rd1+12];
	fma.rn.f32 	%f3, %f4, %f5, %f3;
	st.global.f32 	[%rd2], %f3;
	add.s64 	%rd1, %rd1, 16;
	add.s32 	%r1, %r1, 2;
	setp.lt.s32 	%p1, %r1, 64;
	@%p1 bra 	$L__BB0_1;
	cvt.u64.u32 	%rd3, %r1;
	ld.shared.f32 	%f6, [%rd3];
	ret;
}
"#;

    #[test]
    fn counts_loops_memory_and_registers() {
        let summary = PtxSummary::of_text(LOOP_PTX);
        assert_eq!(summary.kernels, vec!["dot"]);
        assert_eq!(summary.instructions, 18);
        assert_eq!(summary.count(InstructionKind::LoadGlobal), 4);
        assert_eq!(summary.count(InstructionKind::StoreGlobal), 2);
        assert_eq!(summary.count(InstructionKind::LoadParam), 2);
        assert_eq!(summary.count(InstructionKind::LoadShared), 1);
        assert_eq!(summary.count(InstructionKind::Fma), 2);
        assert_eq!(summary.count(InstructionKind::Branch), 1);
        assert_eq!(summary.loops.len(), 1);
        let only = &summary.loops[0];
        assert_eq!(only.header, "$L__BB0_1");
        assert_eq!(only.instructions, 12);
        assert_eq!((only.global_loads, only.global_stores), (4, 2));
        assert_eq!(only.unroll_estimate, 2);
        assert!(only.innermost);
        assert_eq!(summary.global_stores_in_loops, 2);
        assert_eq!(summary.loads_in_loops, 4);
        assert_eq!(summary.registers.get(".f32"), Some(&8));
        assert_eq!(summary.registers_total, 2 + 5 + 8 + 9);
        // add.s64 and cvt.u64.u32 over six global accesses.
        assert!((summary.address_ops_per_global_access - 2.0 / 6.0).abs() < 1e-9);
    }

    #[test]
    fn diff_reports_stores_moved_out_of_the_loop() {
        let before = PtxSummary::of_text(LOOP_PTX);
        // The better code keeps the sum in a register and stores once after the loop.
        let after_text = LOOP_PTX
            .replacen("\tst.global.f32 \t[%rd2], %f3;\n", "", 2)
            .replace("\tret;", "\tst.global.f32 \t[%rd2], %f3;\n\tret;");
        let after = PtxSummary::of_text(&after_text);
        assert_eq!(after.global_stores_in_loops, 0);
        assert_eq!(after.count(InstructionKind::StoreGlobal), 1);
        let report = before.diff(&after);
        assert!(report.contains("global stores inside loops: 2 → 0 (-2)"), "{report}");
        assert!(report.contains("st.global: 2 → 1 (-1)"), "{report}");
        assert!(!report.contains("ld.global"), "{report}");
        assert_eq!(before.diff(&before), "no difference in instruction mix, loops or registers\n");
    }

    #[test]
    fn nested_loops_have_depths_and_one_innermost() {
        let text = ".entry k()\n{\n$A:\n add.s32 %r1, %r1, 1;\n$B:\n ld.global.f32 %f1, [%rd1];\n \
                    @%p1 bra $B;\n @%p2 bra $A;\n ret;\n}\n";
        let summary = PtxSummary::of_text(text);
        assert_eq!(summary.loops.len(), 2);
        let inner = summary.loops.iter().find(|l| l.header == "$B").expect("inner");
        let outer = summary.loops.iter().find(|l| l.header == "$A").expect("outer");
        assert_eq!((inner.depth, inner.innermost), (2, true));
        assert_eq!((outer.depth, outer.innermost), (1, false));
        assert_eq!(summary.global_loads_in_loops, 1);
    }

    #[test]
    fn garbage_gives_an_empty_summary() {
        let summary = PtxSummary::of_text(
            "}}{{ ;;; @ : .reg <> %x<99999999999999999999>\n.reg .b32 %r<18446744073709551615>, %q<9>;\n@%p bra $nowhere;",
        );
        assert_eq!(summary.loops.len(), 0);
        assert_eq!(summary.registers_total, usize::MAX);
        assert!(summary.kernels.is_empty());
    }
}
