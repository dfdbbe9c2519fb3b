//! Which passes of a sequence change the module where they run.
//!
//! A random 256-pass sequence is mostly passes that find nothing to do by the time they run
//! (a second `instcombine` after a first, a loop pass after the loops are gone). Finding them
//! takes one `opt` run per pass, each on the module the passes before it left, instead of the
//! hundreds of whole-sequence compilations that removing them one by one would cost; the
//! minimiser then drops them all at once and checks with one compilation that the PTX stayed
//! the same (running passes one by one is close to, but not exactly, running them as one
//! pipeline, which groups adjacent function passes per function).

use crate::error::{CompileError, Stage};
use crate::pipeline::{read_file, temp_dir, write_file, Bitcode};
use crate::pool::PassPool;
use crate::process::run_tool;
use crate::sequence::PassSequence;
use crate::toolchain::Toolchain;
use std::process::Command;

/// Runs the passes of `seq` one at a time from `bc` and says, per pass, whether it changed the
/// module (its printed IR, module identifier aside). A pass that fails on its own is an error:
/// the caller then knows nothing about the passes and keeps them all.
pub fn passes_with_effect(
    tc: &Toolchain,
    bc: &Bitcode,
    pool: &PassPool,
    seq: &PassSequence,
) -> Result<Vec<bool>, CompileError> {
    let dir = temp_dir()?;
    let first = dir.path().join("0.bc");
    write_file(&first, bc.bytes())?;
    let mut input = first;
    let mut previous: Option<Vec<u8>> = None;
    let mut effects = Vec::with_capacity(seq.len());
    for (index, name) in seq.0.iter().enumerate() {
        let output = dir.path().join(format!("{}.ll", index + 1));
        let single = PassSequence(vec![name.clone()]).pipeline(pool);
        let mut command = Command::new(&tc.opt);
        command.arg(format!("-passes={single}")).arg("-S").arg(&input).arg("-o").arg(&output);
        run_tool(command, Stage::Optimise, tc.timeout)?;
        let text = without_module_id(read_file(&output)?);
        let changed = match &previous {
            Some(before) => *before != text,
            // The first pass is compared with the input printed the same way.
            None => {
                let printed = dir.path().join("0.ll");
                let mut command = Command::new(&tc.opt);
                command.arg("-S").arg(&input).arg("-o").arg(&printed);
                run_tool(command, Stage::Optimise, tc.timeout)?;
                without_module_id(read_file(&printed)?) != text
            }
        };
        effects.push(changed);
        previous = Some(text);
        if index > 0 {
            // Only the latest module is needed; big sequences can grow it to megabytes.
            let _ = std::fs::remove_file(&input);
        }
        input = output;
    }
    Ok(effects)
}

/// The printed module without its first line when that is `; ModuleID = '<file name>'`,
/// which names the file opt read and so differs between otherwise equal modules.
fn without_module_id(text: Vec<u8>) -> Vec<u8> {
    if text.starts_with(b"; ModuleID") {
        match text.iter().position(|&b| b == b'\n') {
            Some(end) => text[end + 1..].to_vec(),
            None => Vec::new(),
        }
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::without_module_id;

    #[test]
    fn module_id_line_is_ignored_and_nothing_else() {
        assert_eq!(without_module_id(b"; ModuleID = 'a.ll'\nsource\n".to_vec()), b"source\n");
        assert_eq!(without_module_id(b"source\n".to_vec()), b"source\n");
        assert_eq!(without_module_id(b"; ModuleID = 'x'".to_vec()), b"");
    }
}
