//! `clmap exec -i`: the simulator's interactive debugger (`clmap run -i`'s) inside a host
//! program.
//!
//! Every launch stops before its kernel's first line, as Oclgrind's `-i` does, and the
//! debugger talks through the C library's `stdin` and `stdout`: the streams the program
//! itself reads and prints to. Sharing the C library's buffers (not only the file
//! descriptors) is what keeps both in order: a program that reads its own input with
//! `scanf` or `fgets` between launches and the debugger take lines from one buffer, each when
//! it asks, whether standard input is a terminal or a pipe; and the debugger's lines come
//! after whatever the program printed before the launch, also when standard output is a pipe
//! that the C library fills before writing. `quit`, as Oclgrind's, and the end of the input
//! both leave the debugger for good: the program runs on without stopping again.

use std::io::{BufRead, Read, Write};
use std::sync::{Mutex, MutexGuard, OnceLock};

use clmap_lang::SourceMap;
use clmap_sim::debugger::DebugHook;

use crate::config::config;
use crate::kernel::Kernel;

extern "C" {
    static stdin: *mut std::ffi::c_void;
    static stdout: *mut std::ffi::c_void;
    fn fgetc(stream: *mut std::ffi::c_void) -> i32;
    fn fflush(stream: *mut std::ffi::c_void) -> i32;
}

/// A launch under the debugger: it holds the debugger for itself while it runs.
pub struct Debugging {
    pub hook: DebugHook,
    /// Launches from several queues (or threads) take turns: the debugger follows one.
    _one_launch_at_a_time: MutexGuard<'static, ()>,
}

/// The debugger for a launch of `kernel`, when the program runs under `clmap exec -i`.
pub fn session(kernel: &Kernel) -> Option<Debugging> {
    if !config().interactive {
        return None;
    }
    static TURN: Mutex<()> = Mutex::new(());
    static HOOK: OnceLock<DebugHook> = OnceLock::new();
    let turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let hook = HOOK.get_or_init(|| {
        use std::io::IsTerminal;
        let terminal = std::io::stdin().is_terminal();
        DebugHook::new(
            SourceMap::new(),
            Box::new(HostStdin::default()),
            Box::new(HostStdout),
            clmap_sim::debugger::prompt(terminal, config().oclgrind_format),
        )
    });
    hook.set_sources(kernel.built.compiled.sources.clone());
    Some(Debugging { hook: hook.clone(), _one_launch_at_a_time: turn })
}

/// The C library's `stdin`, a character at a time, so the debugger never takes more of it
/// than the line it reads: the rest stays in the C library's buffer for the program.
#[derive(Default)]
struct HostStdin {
    byte: [u8; 1],
    held: bool,
}

impl Read for HostStdin {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for HostStdin {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if !self.held {
            // SAFETY: `stdin` is the C library's initialised FILE for the process's life.
            let c = unsafe { fgetc(stdin) };
            if c < 0 {
                return Ok(&[]);
            }
            self.byte[0] = c as u8;
            self.held = true;
        }
        Ok(&self.byte)
    }

    fn consume(&mut self, amount: usize) {
        if amount > 0 {
            self.held = false;
        }
    }
}

/// The C library's `stdout`, where the program's own lines and the kernels' `printf` go.
struct HostStdout;

impl Write for HostStdout {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        crate::findings::host_stdout(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // SAFETY: as for `stdin` above.
        unsafe { fflush(stdout) };
        Ok(())
    }
}
