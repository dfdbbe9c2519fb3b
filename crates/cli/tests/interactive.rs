//! `clmap run -i`: the interactive debugger, driven by commands on standard input. Its
//! conversation with Oclgrind's own commands is checked against `oclgrind-kernel` in
//! `tests/oclgrind_checks/interactive_loop.*`; these tests pin what is clmap's own: a
//! work-group stepping in lock-step behind the selected work-item.

use clmap_testkit::{clmap, clmap_command, ClmapRun, Scratch};
use std::io::Write;
use std::process::Stdio;

/// Two work-groups of two work-items: a loop, a branch only odd work-items take, `__local`
/// memory and a barrier.
const WALK: &str = "\
kernel void walk(global int *data, global uint *out)
{
  int i = get_global_id(0);
  local int shared[2];
  uint acc = 0;
  for (int k = 0; k < 2; k++)
  {
    acc += data[i] * (k + 1);
  }
  if (i % 2 == 1)
  {
    acc = acc + 100;
  }
  shared[get_local_id(0)] = i;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = acc + shared[0];
}
";

const WALK_SIM: &str = "\
walk.cl
walk
4 1 1
2 1 1

<size=16 int range=1:1:4>
<size=16 uint fill=0 dump>
";

fn walk() -> Scratch {
    let scratch = Scratch::new("interactive");
    scratch.write("walk.cl", WALK);
    scratch.write("walk.sim", WALK_SIM);
    scratch
}

/// Runs `clmap run -i walk.sim ARGS` with `commands` on standard input.
fn debug(scratch: &Scratch, commands: &str, args: &[&str]) -> ClmapRun {
    let sim = scratch.join("walk.sim");
    let mut all = vec!["run", "-i", sim.to_str().expect("utf-8 path")];
    all.extend_from_slice(args);
    let mut child = clmap_command()
        .args(&all)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("clmap runs");
    child.stdin.take().expect("stdin").write_all(commands.as_bytes()).expect("commands");
    let output = child.wait_with_output().expect("clmap ends");
    ClmapRun { args: all.iter().map(|a| a.to_string()).collect(), output }
}

/// The debugger's lines: standard output up to the dump (`--oclgrind-output`).
fn conversation(run: &ClmapRun) -> Vec<String> {
    run.assert_success();
    let out = run.stdout();
    let end = out.find("\nArgument '").unwrap_or(out.len());
    out[..end].lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
}

#[test]
fn step_follows_the_first_work_item_through_loops_and_past_a_branch_it_does_not_take() {
    let scratch = walk();
    let commands = "step\n".repeat(11) + "print acc i shared shared[1] k\nstep\nprint acc\nstep\n";
    let run = debug(&scratch, &commands, &["--oclgrind-output"]);
    let lines = [
        "1\tkernel void walk(global int *data, global uint *out)",
        "3\t  int i = get_global_id(0);",
        "5\t  uint acc = 0;",
        "6\t  for (int k = 0; k < 2; k++)",
        "8\t    acc += data[i] * (k + 1);",
        "6\t  for (int k = 0; k < 2; k++)",
        "8\t    acc += data[i] * (k + 1);",
        "6\t  for (int k = 0; k < 2; k++)",
        // Work-item 0 takes no branch: line 12 is its odd neighbour's.
        "10\t  if (i % 2 == 1)",
        "14\t  shared[get_local_id(0)] = i;",
        "15\t  barrier(CLK_LOCAL_MEM_FENCE);",
        "16\t  out[i] = acc + shared[0];",
        "acc = 3",
        "i = 0",
        // Its group's other work-item ran with it.
        "shared = {0,1}",
        "shared[1] = 1",
        // The loop's variable is out of scope after the loop.
        "k = not found",
        // The work-item has finished; its variables keep their last values.
        "acc = 3",
        "Work-item has finished.",
    ];
    assert_eq!(conversation(&run), lines);
    // At the end of the input the run goes on to its end, with the right outputs.
    let out = run.stdout();
    for (i, v) in [3, 106, 11, 114].iter().enumerate() {
        assert!(out.contains(&format!("  out[{i}] = {v}\n")), "{out}");
    }
}

#[test]
fn breakpoints_and_workitem_move_between_the_work_items_of_a_group_and_of_the_launch() {
    let scratch = walk();
    let commands = "break 12\ninfo break\nc\nprint i acc\nworkitem 0\nprint acc\nworkitem 3\nc\n\
                    print i\nworkitem 0\nworkitem 9\nbt\nc\n";
    let run = debug(&scratch, commands, &["--oclgrind-output"]);
    let lines = [
        "1\tkernel void walk(global int *data, global uint *out)",
        "Breakpoint 1: Line 12",
        // Only the odd work-item reaches line 12: it becomes the one followed.
        "Breakpoint 1 hit at line 12 by work-item (1,0,0)",
        "12\t    acc = acc + 100;",
        "i = 1",
        "acc = 6",
        // Work-item 0 waits at the branch it does not take.
        "Switched to work-item: (0,0,0)",
        "10\t  if (i % 2 == 1)",
        "acc = 3",
        // Work-item 3's group has not run yet: the run stops for it when it does.
        "Switched to work-item: (3,0,0)",
        "Its work-group has not started: 'step' runs to its first line.",
        "Breakpoint 1 hit at line 12 by work-item (3,0,0)",
        "12\t    acc = acc + 100;",
        "i = 3",
        "Work-item has already finished, unable to load state.",
        "Invalid global ID.",
        "#0 walk(data=0x10000000000, out=0x20000000000) at line 12",
    ];
    assert_eq!(conversation(&run), lines);
}

#[test]
fn memory_commands_show_the_bytes_of_global_local_and_private_memory() {
    let scratch = walk();
    let commands = "break 16\nc\nprint data\ngmem 10000000000\nlmem 0 8\ngm 10000000002\n\
                    gm 10000000000 0\ngm 30000000000\npmem 0\nlm\n";
    let run = debug(&scratch, commands, &["--oclgrind-output"]);
    let out = run.stdout();
    let lines = conversation(&run);
    assert_eq!(lines[3], "data = 0x10000000000", "{out}");
    // Rows of four bytes after their address; `lmem` offsets are the group's local memory.
    assert!(
        out.contains("\n     10000000000: 01 00 00 00\n     10000000004: 02 00 00 00\n"),
        "{out}"
    );
    assert!(
        out.contains("\n               0: 00 00 00 00\n               4: 01 00 00 00\n"),
        "{out}"
    );
    for refusal in ["Invalid address.", "Invalid size", "Invalid memory address."] {
        assert!(lines.iter().any(|l| l == refusal), "{refusal}: {out}");
    }
}

/// Oclgrind's output stream keeps writing hexadecimal digits as capitals once its debugger
/// printed bytes (a struct, memory): a hexadecimal dump follows it.
#[test]
fn the_dump_has_capital_digits_after_the_debugger_printed_bytes() {
    let scratch = walk();
    scratch.write("walk.sim", WALK_SIM.replace("uint fill=0", "uint hex fill=0"));
    let plain = debug(&scratch, "c\n", &["--oclgrind-output"]).stdout();
    assert!(plain.contains("  out[1] = 0x0000006a\n"), "{plain}");
    let after = debug(&scratch, "lmem 0 4\nc\n", &["--oclgrind-output"]).stdout();
    assert!(after.contains("  out[1] = 0x0000006A\n"), "{after}");
}

#[test]
fn quitting_or_running_out_of_commands_finishes_the_run_as_without_the_debugger() {
    let scratch = walk();
    let sim = scratch.join("walk.sim");
    let plain = clmap(&["run", sim.to_str().expect("utf-8"), "--oclgrind-output"]);
    plain.assert_success();
    for commands in ["", "quit\n", "s\ns\nq\nstep\n", "c\n"] {
        let run = debug(&scratch, commands, &["--oclgrind-output"]);
        let out = run.stdout();
        let dump = &out[out.find("\nArgument '").expect("a dump")..];
        assert_eq!(dump, plain.stdout(), "commands {commands:?}");
    }
}

#[test]
fn help_and_mistakes_are_answered_and_the_run_goes_on() {
    let scratch = walk();
    let commands =
        "help\nhelp step\nhelp frob\nfrob\nprint\nprint nothere data[\nbreak 0\nbreak x\n\
                    delete 4\ndelete x\nlist 99\ninfo what\nworkitem 1 1\n";
    let run = debug(&scratch, commands, &[]);
    let lines = conversation(&run);
    assert!(lines.iter().any(|l| l == "  workitem     (wi)"), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("lock-step")), "{lines:?}");
    for answer in [
        "Unrecognized command 'frob'",
        "Variable name(s) required.",
        "nothere = not found",
        "data[ = missing ']'",
        "Invalid line number.",
        "Breakpoint not found.",
        "Invalid breakpoint number.",
        "Invalid info command: what",
        "Invalid global ID.",
    ] {
        assert!(lines.iter().any(|l| l == answer), "{answer}: {lines:?}");
    }
    assert!(run.stdout().contains("no problems found"), "{}", run.stdout());
}

#[test]
fn the_debugger_runs_only_on_the_simulator_and_without_json() {
    let scratch = walk();
    let run = debug(&scratch, "", &["--device", "cpu"]);
    run.assert_fails(1);
    assert!(run.stderr().contains("--interactive debugs on the simulator"), "{}", run.stderr());
    // Its conversation is on standard output, where --json would write.
    let run = debug(&scratch, "", &["--json"]);
    run.assert_fails(1);
    assert!(run.stderr().contains("--json needs"), "{}", run.stderr());
}

/// On a terminal the debugger prompts, with Oclgrind's prompt when it stands in for
/// `oclgrind-kernel`, since scripts that drive Oclgrind may wait for it. `script` (util-linux)
/// gives the run a terminal; without it there is nothing to check.
#[test]
fn on_a_terminal_the_prompt_follows_the_name_it_answers_to() {
    let Ok(script) = which_script() else { return };
    let scratch = walk();
    let sim = scratch.join("walk.sim");
    let clmap_binary = clmap_command().get_program().to_owned();
    for (extra, prompt) in [(" --dump", "(clmap) "), (" --oclgrind-output", "(oclgrind) ")] {
        let command = format!(
            "'{}' run -i '{}'{extra}",
            clmap_binary.to_str().expect("utf-8 path"),
            sim.to_str().expect("utf-8 path")
        );
        let mut child = std::process::Command::new(&script)
            .args(["-qec", &command, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("script runs");
        child.stdin.take().expect("stdin").write_all(b"quit\n").expect("commands written");
        let out = child.wait_with_output().expect("finishes");
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() && !text.contains("kernel void walk") {
            // No terminal to be had here (no pseudo-terminals in this container): the run never
            // started, and there is no prompt to check.
            eprintln!(
                "script could not give the run a terminal: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return;
        }
        assert!(text.contains(prompt), "expected the prompt {prompt:?} in:\n{text}");
        let other = if prompt == "(clmap) " { "(oclgrind) " } else { "(clmap) " };
        assert!(!text.contains(other), "{other:?} should not prompt here:\n{text}");
        // The run went on to its end after `quit`, its dump printed.
        assert!(text.contains("Argument"), "{text}");
    }
}

fn which_script() -> Result<std::path::PathBuf, ()> {
    ["/usr/bin/script", "/bin/script"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.exists())
        .ok_or(())
}
