//! `gmem`, `lmem` and `pmem`: the bytes of global, local and private memory.

use std::fmt::Write as _;

use super::{Selected, Session, Stop};
use crate::memory::{decode, Target};

impl Session {
    pub(super) fn memory(&mut self, stop: &Stop<'_, '_>, words: &[&str]) {
        let view = stop.view;
        let space = words[0].as_bytes()[0];
        let lane = match self.selected_in(view) {
            Selected::Running { lane } => Some(lane),
            _ => None,
        };
        // The address of offset 0 of the memory asked for.
        let base = match space {
            b'l' => crate::memory::region_base(crate::memory::LOCAL_REGION),
            b'p' => match lane {
                Some(lane) => {
                    crate::memory::region_base(crate::memory::PRIVATE_REGION + lane as u64)
                }
                None => {
                    self.say("Work-item has finished.");
                    return;
                }
            },
            _ => 0,
        };
        if words.len() == 1 {
            let regions: Vec<(u64, u64)> = match space {
                b'g' => (0..view.buffers.len())
                    .map(|i| (crate::memory::buffer_base(i), view.buffers[i].len()))
                    .collect(),
                b'l' => vec![(base, view.local.len() as u64)],
                _ => vec![(base, view.frame)],
            };
            for (start, len) in regions {
                if let Some(bytes) = view.read(start, len) {
                    let text = hex_rows(start, &bytes);
                    self.capitals = true;
                    self.say(&text);
                }
            }
            return;
        }
        if words.len() > 3 {
            self.say("Invalid number of arguments.");
            return;
        }
        let digits = words[1].trim_start_matches("0x").trim_start_matches("0X");
        let address = match u64::from_str_radix(digits, 16) {
            Ok(a) if a % 4 == 0 => a,
            _ => {
                self.say("Invalid address.");
                return;
            }
        };
        let size = match words.get(2).map(|w| w.parse::<u64>()) {
            None => 8,
            Some(Ok(n)) if n > 0 => n,
            Some(_) => {
                self.say("Invalid size");
                return;
            }
        };
        // An offset in local or private memory means that memory's address.
        let at = match (space, decode(address)) {
            (b'g', Target::Buffer { .. }) => Some(address),
            (b'l', Target::Local { .. }) => Some(address),
            (b'p', Target::Private { lane: l, .. }) if Some(l) == lane => Some(address),
            (b'l' | b'p', _) if address >> crate::memory::REGION_SHIFT == 0 => Some(base + address),
            _ => None,
        };
        match at.and_then(|a| view.read(a, size)) {
            Some(bytes) => {
                let text = hex_rows(address, &bytes);
                self.capitals = true;
                self.say(&text);
            }
            None => self.say("Invalid memory address."),
        }
    }
}

/// Rows of four bytes, each after its address, between blank lines.
fn hex_rows(address: u64, bytes: &[u8]) -> String {
    let mut text = String::new();
    for (i, byte) in bytes.iter().enumerate() {
        if i % 4 == 0 {
            let _ = write!(text, "\n{:>16X}:", address + i as u64);
        }
        let _ = write!(text, " {byte:02X}");
    }
    text.push('\n');
    text
}
