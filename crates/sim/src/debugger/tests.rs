use super::DebugHook;
use crate::{compile_kernel, compile_kernel_for_debugging, run_program, ArgValue};
use crate::{NoObserver, SharedBuffer, SimOptions};
use clmap_workload::NdRange;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A helper, a loop, a switch, private and local arrays, a barrier and a branch only
/// some work-items take: everything that gets a statement marker.
const KERNEL: &str = "\
int twice(int x)
{
  return 2 * x;
}

kernel void k(global int *out)
{
  int i = get_global_id(0);
  int l = get_local_id(0);
  local int shared[4];
  int parts[3] = {1, 2, 3};
  int sum = 0;
  for (int j = 0; j < 3; j++)
    sum += parts[j] * twice(i);
  switch (i % 3)
  {
  case 0: sum += 1; break;
  default: sum -= 1;
  }
  if (i > 5)
    return;
  shared[l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = shared[3 - l];
}
";

/// Output written to a buffer the test reads afterwards.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("captured output").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs the kernel over 8 work-items in groups of 4, under the debugger with `commands`
/// when given; the output buffer and what the debugger printed.
fn run(commands: Option<&str>) -> (Vec<u8>, String) {
    let compiled = clmap_lang::frontend::compile_isolated(KERNEL, "").expect("compiles");
    let range = NdRange { global: [8, 1, 1], local: Some([4, 1, 1]), offset: [0; 3], dims: 1 };
    let out = SharedBuffer::zeroed("out", 32);
    let captured = Captured::default();
    let mut options = SimOptions { threads: 2, ..SimOptions::default() };
    let program = match commands {
        Some(commands) => {
            options.debugger = Some(DebugHook::new(
                compiled.sources.clone(),
                Box::new(std::io::Cursor::new(commands.to_string())),
                Box::new(captured.clone()),
                None,
            ));
            compile_kernel_for_debugging(&compiled.module, "k")
        }
        None => compile_kernel(&compiled.module, "k"),
    }
    .expect("compiles for the simulator");
    run_program(&program, &range, &[ArgValue::Buffer(out.clone())], &options, &|| NoObserver)
        .expect("runs");
    let text = String::from_utf8(captured.0.lock().expect("captured").clone()).expect("utf-8");
    (out.to_bytes(), text)
}

#[test]
fn a_program_compiled_for_debugging_computes_what_the_plain_one_does() {
    let (plain, _) = run(None);
    assert_ne!(plain, vec![0; 32]);
    for commands in ["", "continue\n", "step\nstep\nnext\nstep\nquit\n", "break 14\nc\nc\nc\n"] {
        let (debugged, _) = run(Some(commands));
        assert_eq!(debugged, plain, "commands {commands:?}");
    }
}

#[test]
fn step_enters_helpers_and_next_steps_over_them() {
    let (_, text) = run(Some("s\ns\ns\ns\ns\ns\ns\nbt\n"));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "6\tkernel void k(global int *out)",
            "8\t  int i = get_global_id(0);",
            "9\t  int l = get_local_id(0);",
            "11\t  int parts[3] = {1, 2, 3};",
            "12\t  int sum = 0;",
            "13\t  for (int j = 0; j < 3; j++)",
            "14\t    sum += parts[j] * twice(i);",
            "In function twice(x=0) at line 1",
            "1\tint twice(int x)",
            "#1 twice(x=0) at line 1",
            "#0 k(out=0x10000000000) at line 14",
        ]
    );
    let (_, text) = run(Some("b 14\nc\nn\nn\nn\nn\nn\nprint sum parts j\n"));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "6\tkernel void k(global int *out)",
            "Breakpoint 1 hit at line 14 by work-item (0,0,0)",
            "14\t    sum += parts[j] * twice(i);",
            "13\t  for (int j = 0; j < 3; j++)",
            "Breakpoint 1 hit at line 14 by work-item (0,0,0)",
            "14\t    sum += parts[j] * twice(i);",
            "13\t  for (int j = 0; j < 3; j++)",
            "Breakpoint 1 hit at line 14 by work-item (0,0,0)",
            "14\t    sum += parts[j] * twice(i);",
            "13\t  for (int j = 0; j < 3; j++)",
            "sum = 0",
            "parts = {1,2,3}",
            "j = 3",
        ]
    );
}

#[test]
fn a_work_item_that_returned_early_has_finished_while_its_group_runs_on() {
    // The first group reaches the breakpoint first: its first work-item stops there.
    let (_, text) = run(Some("wi 6\nb 22\nc\nc\nwi 6\nwi 4\np sum l\n"));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "6\tkernel void k(global int *out)",
            "Switched to work-item: (6,0,0)",
            "Its work-group has not started: 'step' runs to its first line.",
            "Breakpoint 1 hit at line 22 by work-item (0,0,0)",
            "22\t  shared[l] = sum;",
            // Work-items 6 and 7 returned: 4 is the second group's first at the line.
            "Breakpoint 1 hit at line 22 by work-item (4,0,0)",
            "22\t  shared[l] = sum;",
            "Switched to work-item: (6,0,0)",
            "Work-item has finished execution.",
            "Switched to work-item: (4,0,0)",
            "22\t  shared[l] = sum;",
            "sum = 47",
            "l = 0",
        ]
    );
}
