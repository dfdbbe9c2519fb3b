//! The simulated address space and the memory behind it.
//!
//! Addresses are 64-bit. The top 24 bits name a *region*, the low 40 bits are the byte offset
//! in it, so every object starts on its own 2^40-aligned base and a pointer that wanders out of
//! its object lands in no valid offset (or in no region) and is caught by the bounds check:
//!
//! | region | what |
//! |---|---|
//! | 0 | nothing (`NULL` and small integers cast to pointers) |
//! | 1 + i | global or constant buffer `i` of the launch, then program-scope constants |
//! | [`LOCAL_REGION`] | the work-group's local memory |
//! | [`PRIVATE_REGION`] + lane | the private memory of one work-item |
//!
//! Global buffers are shared by every thread that runs work-groups. A buggy kernel may race on
//! them, so they are stored as relaxed `AtomicU32` words: on x86 a relaxed load or store is a
//! plain move, and racing accesses stay defined behaviour in Rust. Narrow stores update their
//! word with a compare-and-swap; 64-bit atomics take a striped lock (every 64-bit atomic on the
//! same address takes the same lock, so they are atomic with respect to each other).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// Bits of the byte offset inside a region.
pub const REGION_SHIFT: u32 = 40;
/// Mask of the byte offset inside a region.
pub const OFFSET_MASK: u64 = (1 << REGION_SHIFT) - 1;
/// Region of the current work-group's local memory.
pub const LOCAL_REGION: u64 = 0xE0_0000;
/// Region of lane 0's private memory; lane `l` has `PRIVATE_REGION + l`.
pub const PRIVATE_REGION: u64 = 0xF0_0000;

/// The base address of a region.
pub const fn region_base(region: u64) -> u64 {
    region << REGION_SHIFT
}

/// Base address of global buffer `index` (0-based) of a launch.
pub const fn buffer_base(index: usize) -> u64 {
    region_base(index as u64 + 1)
}

/// A global or constant buffer: bytes that several threads may read and write at once.
#[derive(Debug)]
pub struct BufferStorage {
    words: Box<[AtomicU32]>,
    len: u64,
    locks: Box<[Mutex<()>]>,
}

/// What the host allowed kernels to do with a buffer (OpenCL's `CL_MEM_READ_ONLY` and
/// `CL_MEM_WRITE_ONLY`, Oclgrind's `ro` and `wo`). A kernel that writes a read-only buffer or
/// reads a write-only one is reported, as Oclgrind does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HostAccess {
    #[default]
    ReadWrite,
    ReadOnly,
    WriteOnly,
}

/// Bytes of a buffer the host has mapped (`clEnqueueMapBuffer`) and not unmapped when a
/// kernel is launched: the kernel may not write them, nor read them when they were mapped for
/// writing, because the host may be changing them at the same time. Oclgrind reports both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MappedRegion {
    /// Byte offset of the first mapped byte in the buffer.
    pub start: u64,
    /// Byte offset one past the last.
    pub end: u64,
    /// Mapped with `CL_MAP_WRITE` or `CL_MAP_WRITE_INVALIDATE_REGION`.
    pub for_writing: bool,
}

/// A named buffer shared between the host side and the simulator; cloning shares the storage.
#[derive(Clone, Debug)]
pub struct SharedBuffer {
    pub name: Arc<str>,
    pub storage: Arc<BufferStorage>,
    pub access: HostAccess,
    /// The regions the host has mapped during this launch (none outside the OpenCL platform).
    pub mapped: Option<Arc<[MappedRegion]>>,
    /// For a buffer whose contents the host never gave (`noinit`): which bytes no kernel or
    /// host write has defined yet, for the uninitialised-value check.
    pub(crate) undefined: Option<Arc<UndefinedBytes>>,
}

/// One flag per byte of a buffer: not defined yet. Shared, like the buffer, by every thread.
#[derive(Debug)]
pub(crate) struct UndefinedBytes {
    flags: Box<[AtomicBool]>,
}

impl UndefinedBytes {
    /// Whether any of `size` bytes at `offset` is undefined (bytes past the end count as
    /// undefined).
    #[inline]
    pub(crate) fn any(&self, offset: u64, size: u64) -> bool {
        let (Ok(start), Ok(size)) = (usize::try_from(offset), usize::try_from(size)) else {
            return true;
        };
        match self.flags.get(start..start.saturating_add(size)) {
            Some(flags) => flags.iter().any(|f| f.load(Ordering::Relaxed)),
            None => true,
        }
    }

    /// Marks `size` bytes at `offset` defined (or undefined again).
    #[inline]
    pub(crate) fn set(&self, offset: u64, size: u64, undefined: bool) {
        let (Ok(start), Ok(size)) = (usize::try_from(offset), usize::try_from(size)) else {
            return;
        };
        let end = start.saturating_add(size).min(self.flags.len());
        if let Some(flags) = self.flags.get(start..end) {
            flags.iter().for_each(|f| f.store(undefined, Ordering::Relaxed));
        }
    }
}

impl SharedBuffer {
    /// A buffer holding a copy of `bytes`.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> SharedBuffer {
        SharedBuffer {
            name: Arc::from(name),
            storage: Arc::new(BufferStorage::from_bytes(bytes)),
            access: HostAccess::ReadWrite,
            mapped: None,
            undefined: None,
        }
    }

    /// A buffer of `len` zero bytes.
    pub fn zeroed(name: &str, len: u64) -> SharedBuffer {
        SharedBuffer {
            name: Arc::from(name),
            storage: Arc::new(BufferStorage::zeroed(len)),
            access: HostAccess::ReadWrite,
            mapped: None,
            undefined: None,
        }
    }

    /// The same storage, with kernels allowed `access` to it.
    pub fn with_access(self, access: HostAccess) -> SharedBuffer {
        SharedBuffer { access, ..self }
    }

    /// The same storage, with `regions` mapped by the host while a kernel runs (none: the
    /// buffer as it is).
    pub fn with_mapped(self, regions: Vec<MappedRegion>) -> SharedBuffer {
        let mapped = if regions.is_empty() { None } else { Some(Arc::from(regions)) };
        SharedBuffer { mapped, ..self }
    }

    /// The same storage, with contents the host never defined (`noinit`): under the
    /// uninitialised-value check, a value read from a byte before anything wrote it is
    /// undefined.
    pub fn with_undefined_contents(self) -> SharedBuffer {
        let flags = (0..self.storage.len).map(|_| AtomicBool::new(true)).collect();
        SharedBuffer { undefined: Some(Arc::new(UndefinedBytes { flags })), ..self }
    }

    /// The current contents.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.storage.to_bytes()
    }

    pub fn len(&self) -> u64 {
        self.storage.len
    }

    pub fn is_empty(&self) -> bool {
        self.storage.len == 0
    }

    /// Copies `bytes` into the buffer at byte `offset`, as the host's `clEnqueueWriteBuffer`
    /// between launches does; a range past the end is an error and writes nothing.
    pub fn write_bytes(&self, offset: u64, bytes: &[u8]) -> Result<(), String> {
        if !self.storage.in_bounds(offset, bytes.len() as u64) {
            return Err(format!(
                "{} bytes at offset {offset} do not fit in buffer `{}` of {} bytes",
                bytes.len(),
                self.name,
                self.storage.len
            ));
        }
        self.storage.write_range(offset, bytes);
        if let Some(undefined) = &self.undefined {
            undefined.set(offset, bytes.len() as u64, false);
        }
        Ok(())
    }

    /// Copies `out.len()` bytes starting at byte `offset` out of the buffer, as the host's
    /// `clEnqueueReadBuffer` of a range does; a range past the end is an error.
    pub fn read_bytes(&self, offset: u64, out: &mut [u8]) -> Result<(), String> {
        if !self.storage.in_bounds(offset, out.len() as u64) {
            return Err(format!(
                "{} bytes at offset {offset} do not fit in buffer `{}` of {} bytes",
                out.len(),
                self.name,
                self.storage.len
            ));
        }
        self.storage.read_range(offset, out);
        Ok(())
    }
}

const LOCK_STRIPES: usize = 64;

impl BufferStorage {
    pub fn from_bytes(bytes: &[u8]) -> BufferStorage {
        let storage = BufferStorage::zeroed(bytes.len() as u64);
        // A word holds its four bytes in little-endian order (see `read`): on a little-endian
        // host that is the bytes' own layout, so buffers of any size load with one copy.
        if cfg!(target_endian = "little") {
            // SAFETY: the words were just allocated for at least `bytes.len()` bytes and no
            // other thread can see them yet; `AtomicU32` has the layout of `u32`.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    storage.words.as_ptr().cast::<u8>().cast_mut(),
                    bytes.len(),
                )
            };
        } else {
            for (w, c) in storage.words.iter().zip(bytes.chunks(4)) {
                let mut b = [0u8; 4];
                b[..c.len()].copy_from_slice(c);
                w.store(u32::from_le_bytes(b), Ordering::Relaxed);
            }
        }
        storage
    }

    /// A buffer of `len` zero bytes. The words come from a zeroed allocation and are not
    /// touched here: a large buffer costs no page faults until the kernel or the host uses it
    /// (and each page then faults once, on its first write, rather than on a read and again on
    /// a write).
    pub fn zeroed(len: u64) -> BufferStorage {
        let count = (len as usize).div_ceil(4);
        // SAFETY: all-zero bits are a valid `AtomicU32` (zero).
        let words = unsafe { Box::<[AtomicU32]>::new_zeroed_slice(count).assume_init() };
        let locks = (0..LOCK_STRIPES).map(|_| Mutex::new(())).collect();
        BufferStorage { words, len, locks }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len as usize];
        self.read_range(0, &mut out);
        out
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    /// Host copies move whole words where they can: the edges of an unaligned range go byte
    /// by byte, the middle four bytes at a time. The caller checked bounds.
    fn read_range(&self, offset: u64, out: &mut [u8]) {
        let mut at = offset;
        let mut rest = out;
        while !rest.is_empty() && (at % 4 != 0 || rest.len() < 4) {
            rest[0] = self.read_slow(at, 1) as u8;
            rest = &mut rest[1..];
            at += 1;
        }
        let words = rest.len() / 4;
        let (middle, tail) = rest.split_at_mut(words * 4);
        for (i, chunk) in middle.chunks_exact_mut(4).enumerate() {
            chunk.copy_from_slice(&self.word(at / 4 + i as u64).to_le_bytes());
        }
        at += (words * 4) as u64;
        for (i, byte) in tail.iter_mut().enumerate() {
            *byte = self.read_slow(at + i as u64, 1) as u8;
        }
    }

    /// The writing twin of [`BufferStorage::read_range`].
    fn write_range(&self, offset: u64, bytes: &[u8]) {
        let mut at = offset;
        let mut rest = bytes;
        while !rest.is_empty() && (at % 4 != 0 || rest.len() < 4) {
            self.write_slow(at, 1, u64::from(rest[0]));
            rest = &rest[1..];
            at += 1;
        }
        let words = rest.len() / 4;
        let (middle, tail) = rest.split_at(words * 4);
        for (i, chunk) in middle.chunks_exact(4).enumerate() {
            let word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            self.store_word(at / 4 + i as u64, word);
        }
        at += (words * 4) as u64;
        for (i, byte) in tail.iter().enumerate() {
            self.write_slow(at + i as u64, 1, u64::from(*byte));
        }
    }

    /// Whether `size` bytes at `offset` lie inside the buffer.
    #[inline(always)]
    pub fn in_bounds(&self, offset: u64, size: u64) -> bool {
        offset.checked_add(size).is_some_and(|end| end <= self.len)
    }

    /// The buffer's 4-byte words, for loops that read many of them.
    #[inline(always)]
    pub(crate) fn words(&self) -> &[AtomicU32] {
        &self.words
    }

    /// The 4-byte word at word `index` (byte `4 * index`), 0 past the end.
    #[inline(always)]
    pub fn word_at(&self, index: u64) -> u32 {
        self.word(index)
    }

    #[inline(always)]
    fn word(&self, index: u64) -> u32 {
        self.words.get(index as usize).map_or(0, |w| w.load(Ordering::Relaxed))
    }

    /// Reads `size` (1 to 8) bytes, little-endian, zero-extended. The caller checked bounds.
    #[inline(always)]
    pub fn read(&self, offset: u64, size: u32) -> u64 {
        if offset % 4 == 0 {
            let w = offset / 4;
            match size {
                4 => return u64::from(self.word(w)),
                8 => return u64::from(self.word(w)) | (u64::from(self.word(w + 1)) << 32),
                _ => {}
            }
        }
        self.read_slow(offset, size)
    }

    fn read_slow(&self, offset: u64, size: u32) -> u64 {
        let mut value = 0u64;
        for i in 0..u64::from(size.min(8)) {
            let byte_at = offset + i;
            let byte = (self.word(byte_at / 4) >> ((byte_at % 4) * 8)) & 0xff;
            value |= u64::from(byte) << (8 * i);
        }
        value
    }

    /// Writes the low `size` (1 to 8) bytes of `value`. The caller checked bounds.
    #[inline(always)]
    pub fn write(&self, offset: u64, size: u32, value: u64) {
        if offset % 4 == 0 {
            let w = offset / 4;
            match size {
                4 => return self.store_word(w, value as u32),
                8 => {
                    self.store_word(w, value as u32);
                    return self.store_word(w + 1, (value >> 32) as u32);
                }
                _ => {}
            }
        }
        self.write_slow(offset, size, value)
    }

    #[inline(always)]
    fn store_word(&self, index: u64, value: u32) {
        if let Some(w) = self.words.get(index as usize) {
            w.store(value, Ordering::Relaxed);
        }
    }

    fn write_slow(&self, offset: u64, size: u32, value: u64) {
        for i in 0..u64::from(size.min(8)) {
            let byte_at = offset + i;
            let shift = (byte_at % 4) * 8;
            let byte = ((value >> (8 * i)) & 0xff) as u32;
            if let Some(w) = self.words.get((byte_at / 4) as usize) {
                let _ = w.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                    Some((old & !(0xff << shift)) | (byte << shift))
                });
            }
        }
    }

    /// Atomically replaces the 4-byte word at an aligned `offset` with `update(old)`, returning
    /// the old value. Unaligned offsets fall back to the 64-bit lock path.
    pub fn atomic_update32(&self, offset: u64, mut update: impl FnMut(u32) -> u32) -> u32 {
        if offset % 4 == 0 {
            if let Some(w) = self.words.get((offset / 4) as usize) {
                return match w
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |old| Some(update(old)))
                {
                    Ok(old) | Err(old) => old,
                };
            }
        }
        self.atomic_update64(offset, 4, |old| u64::from(update(old as u32))) as u32
    }

    /// Atomically (with respect to other calls of this function on the same address) replaces
    /// `size` bytes at `offset` with `update(old)`, returning the old value.
    pub fn atomic_update64(&self, offset: u64, size: u32, update: impl FnOnce(u64) -> u64) -> u64 {
        let stripe = (offset / 8) as usize % LOCK_STRIPES;
        let guard = self.locks.get(stripe).map(|l| l.lock().unwrap_or_else(|p| p.into_inner()));
        let old = self.read(offset, size);
        self.write(offset, size, update(old));
        drop(guard);
        old
    }
}

/// Where an address points, once decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Buffer { index: usize, offset: u64 },
    Local { offset: u64 },
    Private { lane: usize, offset: u64 },
    Invalid,
}

/// Decodes an address into its region and offset (without checking the offset).
#[inline(always)]
pub fn decode(address: u64) -> Target {
    let region = address >> REGION_SHIFT;
    let offset = address & OFFSET_MASK;
    if region == 0 {
        Target::Invalid
    } else if region < LOCAL_REGION {
        Target::Buffer { index: (region - 1) as usize, offset }
    } else if region == LOCAL_REGION {
        Target::Local { offset }
    } else if region >= PRIVATE_REGION {
        Target::Private { lane: (region - PRIVATE_REGION) as usize, offset }
    } else {
        Target::Invalid
    }
}

/// Little-endian read of up to 8 bytes from a plain byte slice; `None` when out of bounds.
#[inline(always)]
pub fn read_bytes(bytes: &[u8], offset: u64, size: u32) -> Option<u64> {
    let start = usize::try_from(offset).ok()?;
    let slice = bytes.get(start..start.checked_add(size as usize)?)?;
    Some(match size {
        4 => u64::from(u32::from_le_bytes([slice[0], slice[1], slice[2], slice[3]])),
        _ => {
            let mut buf = [0u8; 8];
            let n = slice.len().min(8);
            buf[..n].copy_from_slice(&slice[..n]);
            u64::from_le_bytes(buf)
        }
    })
}

/// Little-endian write of the low `size` bytes; `false` when out of bounds.
#[inline(always)]
pub fn write_bytes(bytes: &mut [u8], offset: u64, size: u32, value: u64) -> bool {
    let Ok(start) = usize::try_from(offset) else { return false };
    let Some(end) = start.checked_add(size as usize) else { return false };
    let Some(slice) = bytes.get_mut(start..end) else { return false };
    let le = value.to_le_bytes();
    let n = slice.len().min(8);
    slice[..n].copy_from_slice(&le[..n]);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_reads_and_writes_every_width_and_alignment() {
        let b = BufferStorage::from_bytes(&[0u8; 13]);
        b.write(0, 4, 0x1122_3344);
        assert_eq!(b.read(0, 4), 0x1122_3344);
        assert_eq!(b.read(1, 2), 0x2233);
        b.write(5, 8, 0x0102_0304_0506_0708);
        assert_eq!(b.read(5, 8), 0x0102_0304_0506_0708);
        assert_eq!(b.read(4, 1), 0);
        b.write(3, 1, 0xaa);
        assert_eq!(b.read(0, 4), 0xaa22_3344);
        assert_eq!(b.to_bytes().len(), 13);
        assert!(b.in_bounds(9, 4));
        assert!(!b.in_bounds(10, 4));
        assert!(!b.in_bounds(u64::MAX, 4));
        assert_eq!(b.atomic_update32(0, |v| v + 1), 0xaa22_3344);
        assert_eq!(b.read(0, 4), 0xaa22_3345);
    }

    #[test]
    fn addresses_decode_to_regions() {
        assert_eq!(decode(0), Target::Invalid);
        assert_eq!(decode(buffer_base(2) + 12), Target::Buffer { index: 2, offset: 12 });
        assert_eq!(decode(region_base(LOCAL_REGION) + 4), Target::Local { offset: 4 });
        assert_eq!(
            decode(region_base(PRIVATE_REGION + 3) + 8),
            Target::Private { lane: 3, offset: 8 }
        );
        assert_eq!(read_bytes(&[1, 2, 3], 1, 2), Some(0x0302));
        assert_eq!(read_bytes(&[1, 2, 3], 2, 2), None);
    }

    #[test]
    fn host_range_copies_match_byte_by_byte_copies_at_every_alignment() {
        let original: Vec<u8> = (0..37u8).collect();
        for offset in 0..6u64 {
            for len in [0usize, 1, 3, 4, 5, 9, 17, 30] {
                if offset as usize + len > original.len() {
                    continue;
                }
                let b = SharedBuffer::from_bytes("b", &original);
                let mut out = vec![0u8; len];
                b.read_bytes(offset, &mut out).unwrap();
                assert_eq!(out, &original[offset as usize..offset as usize + len]);
                let patch: Vec<u8> = (0..len as u8).map(|i| 200 - i).collect();
                b.write_bytes(offset, &patch).unwrap();
                let mut expected = original.clone();
                expected[offset as usize..offset as usize + len].copy_from_slice(&patch);
                assert_eq!(b.to_bytes(), expected, "offset {offset}, len {len}");
            }
        }
        let b = SharedBuffer::from_bytes("b", &original);
        assert!(b.read_bytes(30, &mut [0u8; 8]).is_err());
        assert!(b.write_bytes(36, &[1, 2]).is_err());
    }
}
