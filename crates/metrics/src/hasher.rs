//! A fast hasher for address keys. The memory map is updated once per access, so the default
//! SipHash (built to resist adversarial keys, which addresses are not) would dominate the
//! cost of analysis.

use std::hash::{BuildHasherDefault, Hasher};

/// Multiplicative mixing of a 64-bit key; high and low bits both reach the low bits the
/// table indexes with, so keys that differ only in their region bits still spread.
#[derive(Clone, Copy, Debug, Default)]
pub struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    #[inline]
    fn write_u64(&mut self, key: u64) {
        let x = (self.0 ^ key ^ (key >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 32);
    }
}

/// Builds [`AddressHasher`]s for hash maps keyed by addresses.
pub type BuildAddressHasher = BuildHasherDefault<AddressHasher>;
