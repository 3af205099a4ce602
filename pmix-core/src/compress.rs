//! A small self-contained LZ77 compressor for `PMIx_Data_compress`/`decompress` and
//! the compressed value types. No external dependency, no `unsafe`.
//!
//! # Format
//! `b"PXZ1"`, the original length as `u32` little-endian, then a sequence of blocks.
//! Each block is a token byte (high nibble: literal count, low nibble: match length
//! minus [`MIN_MATCH`]; a nibble of 15 continues in extra bytes of 255 … plus a final
//! byte below 255), the literals, then — unless the block is the last one and the
//! output is complete — a `u16` little-endian back-reference distance (1..=65535).
//!
//! The decoder checks every length against the input left and the declared output
//! size, so truncated or corrupt input is an error, never a panic or an unbounded
//! allocation.

use crate::error::{Error, Result};

/// Inputs shorter than this are not compressed (`pmix_pcompress_base_limit`'s default).
pub const MIN_INPUT: usize = 4096;
/// Shortest back-reference worth encoding.
pub const MIN_MATCH: usize = 4;
const MAGIC: &[u8; 4] = b"PXZ1";
const HEADER: usize = 8;
const MAX_DIST: usize = u16::MAX as usize;
const HASH_BITS: u32 = 14;

fn corrupt(what: &str) -> Error {
    Error::new(
        pmix_sys::PMIX_ERR_UNPACK_FAILURE,
        format!("compressed data corrupt: {}", what),
    )
}

/// Compress `input`. `None` when the input is below [`MIN_INPUT`], too large for the
/// format (over 4 GiB), or would not get smaller — the "declined" outcome of
/// `PMIx_Data_compress`.
pub fn compress(input: &[u8]) -> Option<Vec<u8>> {
    if input.len() < MIN_INPUT || u32::try_from(input.len()).is_err() {
        return None;
    }
    let out = compress_raw(input);
    (out.len() < input.len()).then_some(out)
}

/// Compress without the size threshold (always produces output; used by tests and by
/// callers that want the format regardless of gain).
pub fn compress_raw(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() / 2 + 16);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(input.len() as u32).to_le_bytes());
    let mut table = vec![0usize; 1 << HASH_BITS];
    let mut lit_start = 0;
    let mut i = 0;
    while i + MIN_MATCH <= input.len() {
        let h = hash(&input[i..i + MIN_MATCH]);
        let cand = table[h];
        table[h] = i + 1; // 0 means "empty"
        if cand > 0 {
            let c = cand - 1;
            let dist = i - c;
            if dist <= MAX_DIST && input[c..c + MIN_MATCH] == input[i..i + MIN_MATCH] {
                let mut len = MIN_MATCH;
                while i + len < input.len() && input[c + len] == input[i + len] {
                    len += 1;
                }
                emit(&mut out, &input[lit_start..i], Some((dist, len)));
                i += len;
                lit_start = i;
                continue;
            }
        }
        i += 1;
    }
    emit(&mut out, &input[lit_start..], None);
    out
}

fn hash(b: &[u8]) -> usize {
    let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    (v.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize
}

fn emit(out: &mut Vec<u8>, lits: &[u8], m: Option<(usize, usize)>) {
    let lit_n = lits.len();
    let match_n = m.map_or(0, |(_, len)| len - MIN_MATCH);
    let token = ((lit_n.min(15) as u8) << 4) | (match_n.min(15) as u8);
    out.push(token);
    if lit_n >= 15 {
        push_len(out, lit_n - 15);
    }
    out.extend_from_slice(lits);
    if let Some((dist, _)) = m {
        out.extend_from_slice(&(dist as u16).to_le_bytes());
        if match_n >= 15 {
            push_len(out, match_n - 15);
        }
    }
}

fn push_len(out: &mut Vec<u8>, mut n: usize) {
    while n >= 255 {
        out.push(255);
        n -= 255;
    }
    out.push(n as u8);
}

/// The original length recorded in a compressed block, if the header is valid.
pub fn decompressed_len(input: &[u8]) -> Option<usize> {
    if input.len() < HEADER || &input[..4] != MAGIC {
        return None;
    }
    Some(u32::from_le_bytes([input[4], input[5], input[6], input[7]]) as usize)
}

/// Decompress data produced by [`compress`]/[`compress_raw`].
///
/// # Errors
/// `PMIX_ERR_UNPACK_FAILURE` for anything malformed: bad header, truncated blocks,
/// distances pointing before the start, output longer or shorter than declared.
pub fn decompress(input: &[u8]) -> Result<Vec<u8>> {
    let want = decompressed_len(input).ok_or_else(|| corrupt("bad header"))?;
    // Each input byte can expand to at most a few hundred output bytes; never trust
    // the declared size alone for the up-front reservation.
    let mut out = Vec::with_capacity(want.min(input.len().saturating_mul(64)));
    let mut pos = HEADER;
    let byte = |pos: &mut usize| -> Result<u8> {
        let b = *input.get(*pos).ok_or_else(|| corrupt("truncated"))?;
        *pos += 1;
        Ok(b)
    };
    let read_len = |pos: &mut usize, base: usize| -> Result<usize> {
        let mut n = base;
        if base == 15 {
            loop {
                let b = byte(pos)?;
                n = n
                    .checked_add(b as usize)
                    .ok_or_else(|| corrupt("length overflow"))?;
                if b != 255 {
                    break;
                }
            }
        }
        Ok(n)
    };
    let mut terminated = false;
    while pos < input.len() {
        let token = byte(&mut pos)?;
        let lit_n = read_len(&mut pos, (token >> 4) as usize)?;
        let lits = input
            .get(pos..pos.saturating_add(lit_n))
            .ok_or_else(|| corrupt("truncated literals"))?;
        if out.len() + lit_n > want {
            return Err(corrupt("output longer than declared"));
        }
        out.extend_from_slice(lits);
        pos += lit_n;
        if pos == input.len() && out.len() == want {
            terminated = true;
            break;
        }
        let dist = u16::from_le_bytes([byte(&mut pos)?, byte(&mut pos)?]) as usize;
        let match_n = read_len(&mut pos, (token & 0xf) as usize)? + MIN_MATCH;
        if dist == 0 || dist > out.len() {
            return Err(corrupt("distance out of range"));
        }
        if out.len() + match_n > want {
            return Err(corrupt("output longer than declared"));
        }
        let start = out.len() - dist;
        for k in 0..match_n {
            let b = out[start + k];
            out.push(b);
        }
    }
    if !terminated || out.len() != want {
        return Err(corrupt(
            "missing final block or output shorter than declared",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift, so the tests need no crate.
    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    fn sample(seed: &mut u64, len: usize, alphabet: u64) -> Vec<u8> {
        (0..len).map(|_| (rng(seed) % alphabet) as u8).collect()
    }

    #[test]
    fn small_inputs_are_declined() {
        assert!(compress(&[0u8; MIN_INPUT - 1]).is_none());
        assert!(compress(&[0u8; MIN_INPUT]).is_some());
    }

    #[test]
    fn incompressible_input_is_declined() {
        let mut seed = 0x1234_5678;
        assert!(compress(&sample(&mut seed, 8192, 256)).is_none());
    }

    #[test]
    fn round_trips() {
        let mut seed = 42;
        for (len, alpha) in [
            (0, 2),
            (1, 2),
            (5, 3),
            (100, 4),
            (5000, 3),
            (70_000, 2),
            (20_000, 200),
        ] {
            let data = sample(&mut seed, len, alpha);
            let c = compress_raw(&data);
            assert_eq!(decompress(&c).unwrap(), data, "len {} alpha {}", len, alpha);
        }
        let text = b"key=value;".repeat(1000);
        let c = compress(&text).unwrap();
        assert!(c.len() < text.len() / 10);
        assert_eq!(decompress(&c).unwrap(), text);
    }

    #[test]
    fn truncated_and_corrupted_input_is_rejected_without_panic() {
        let mut seed = 7;
        let data = sample(&mut seed, 6000, 5);
        let c = compress_raw(&data);
        for cut in 0..c.len() {
            assert!(decompress(&c[..cut]).is_err(), "cut at {}", cut);
        }
        for _ in 0..3000 {
            let mut bad = c.clone();
            let i = (rng(&mut seed) as usize) % bad.len();
            bad[i] ^= 1 << (rng(&mut seed) % 8);
            // Either an error or some output of exactly the declared length.
            if let Ok(out) = decompress(&bad) {
                assert_eq!(Some(out.len()), decompressed_len(&bad));
            }
        }
        // A hostile declared size does not allocate it.
        let mut huge = MAGIC.to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        huge.push(0x10);
        huge.push(b'x');
        assert!(decompress(&huge).is_err());
    }
}
