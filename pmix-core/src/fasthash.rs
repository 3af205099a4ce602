//! A fast hasher for the client's lookup tables (namespaces, process ids, keys).
//!
//! `std`'s default SipHash costs about a hundred instructions for a 20-byte namespace,
//! which was a tenth of a whole `PMIx_Get` (`docs/PERF.md`). This one mixes eight bytes
//! per step (rotate, xor, multiply), starting from a per-process random seed so that
//! colliding key sets cannot be precomputed; it is not meant to resist an adversary who
//! can observe timings, only to keep the tables' buckets even for ordinary input.

use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

const K: u64 = 0x517c_c1b7_2722_0a95;

/// The hasher state.
#[derive(Clone, Copy)]
pub struct FastHasher(u64);

impl FastHasher {
    #[inline]
    fn mix(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // A final avalanche so that the low bits (the bucket index) depend on every input bit.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}

/// Builds [`FastHasher`]s with the process's seed.
#[derive(Clone, Copy)]
pub struct FastState(u64);

impl Default for FastState {
    fn default() -> Self {
        static SEED: OnceLock<u64> = OnceLock::new();
        FastState(*SEED.get_or_init(|| {
            // std's RandomState is seeded from the OS; hash nothing to extract a seed.
            std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish()
        }))
    }
}

impl BuildHasher for FastState {
    type Hasher = FastHasher;
    #[inline]
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

/// A `HashMap` with [`FastState`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, FastState>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn h<T: Hash>(t: &T) -> u64 {
        FastState::default().hash_one(t)
    }

    #[test]
    fn equal_inputs_hash_equal_and_tails_matter() {
        assert_eq!(h(&"pmixrun.vm.1234"), h(&"pmixrun.vm.1234"));
        assert_ne!(h(&"pmixrun.vm.1234"), h(&"pmixrun.vm.1235"));
        assert_ne!(h(&"abcdefgh"), h(&"abcdefgh\0"));
        assert_ne!(h(&("a", 1u32)), h(&("a", 2u32)));
    }

    #[test]
    fn buckets_are_even_for_sequential_keys() {
        // 4096 keys "key.N" into 64 buckets: no bucket more than 3x the mean.
        let mut b = [0u32; 64];
        for i in 0..4096 {
            b[(h(&format!("key.{}", i)) & 63) as usize] += 1;
        }
        assert!(b.iter().all(|&n| n < 3 * 64), "{:?}", b);
    }
}
