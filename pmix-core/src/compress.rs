//! zlib compression for `PMIx_Data_compress`/`decompress` and the compressed value
//! types, in OpenPMIx's framing (its `pcompress/zlib` component), so blocks cross
//! between the two libraries in both directions.
//!
//! # Format
//! The uncompressed length as a `u32` in host byte order (little-endian on the
//! platforms we build for), then one zlib stream (RFC 1950: header, deflate data,
//! Adler-32), compressed at level 9 like OpenPMIx. The deflate engine is `flate2` over
//! the safe-Rust `zlib-rs` backend (docs/DESIGN.md, "Dependencies").
//!
//! The decoder inflates into a buffer that grows with the output actually produced
//! (never the declared size up front), stops as soon as the output would exceed the
//! declared length, and requires the stream to end with exactly that many bytes, so
//! truncated or corrupt input is an error, never a panic or an unbounded allocation.

use crate::error::{Error, Result};
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// Inputs shorter than this are not compressed (`pmix_pcompress_base_limit`'s default).
pub const MIN_INPUT: usize = 4096;
/// Bytes of the length prefix.
pub const HEADER: usize = 4;
/// OpenPMIx's `deflateInit` level.
const LEVEL: u32 = 9;

fn corrupt(what: &str) -> Error {
    Error::new(
        pmix_sys::PMIX_ERR_UNPACK_FAILURE,
        format!("compressed data corrupt: {}", what),
    )
}

/// Compress `input`. `None` when the input is below [`MIN_INPUT`], too large for the
/// format (`u32::MAX` bytes or more), or would not get smaller (prefix included) — the
/// "declined" outcome of `PMIx_Data_compress`.
pub fn compress(input: &[u8]) -> Option<Vec<u8>> {
    if input.len() < MIN_INPUT || input.len() as u64 >= u32::MAX as u64 {
        return None;
    }
    let out = compress_raw(input);
    (out.len() < input.len()).then_some(out)
}

/// Compress without the size threshold (always produces output for inputs under
/// 4 GiB; used by tests and by callers that want the format regardless of gain).
/// Longer inputs record a truncated length and are rejected by [`decompress`].
pub fn compress_raw(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() / 2 + 64);
    out.extend_from_slice(&(input.len() as u32).to_le_bytes());
    let mut z = Compress::new(Compression::new(LEVEL), true);
    loop {
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(4096));
        }
        let done = z.total_in() as usize;
        match z.compress_vec(&input[done..], &mut out, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => return out,
            Ok(_) => continue,
            // deflate does not fail on valid parameters and an in-memory buffer with
            // room; should it, the output is cut to the prefix, which never decodes
            Err(e) => {
                log::error!("deflate failed: {}", e);
                out.truncate(HEADER);
                return out;
            }
        }
    }
}

/// The original length recorded in a compressed block, if it has a prefix.
pub fn decompressed_len(input: &[u8]) -> Option<usize> {
    let h: [u8; HEADER] = input.get(..HEADER)?.try_into().ok()?;
    Some(u32::from_le_bytes(h) as usize)
}

/// Decompress data produced by [`compress`]/[`compress_raw`] or by OpenPMIx's
/// `PMIx_Data_compress`. Bytes after the end of the zlib stream are ignored (as
/// OpenPMIx does).
///
/// # Errors
/// `PMIX_ERR_UNPACK_FAILURE` for anything malformed: no prefix, a corrupt or truncated
/// stream, output longer or shorter than declared.
pub fn decompress(input: &[u8]) -> Result<Vec<u8>> {
    let want = decompressed_len(input).ok_or_else(|| corrupt("no length prefix"))?;
    let data = &input[HEADER..];
    let mut z = Decompress::new(true);
    let mut out: Vec<u8> = Vec::with_capacity(want.min(64 * 1024) + 1);
    loop {
        if out.len() == out.capacity() {
            // room for one byte past the declared size, to detect an over-long stream
            let room = out.capacity().max(4096).min(want + 1 - out.len()).max(1);
            out.reserve_exact(room);
        }
        let (in0, out0) = (z.total_in(), out.len());
        let done = in0 as usize;
        let st = z
            .decompress_vec(&data[done..], &mut out, FlushDecompress::Finish)
            .map_err(|e| corrupt(&e.to_string()))?;
        if out.len() > want {
            return Err(corrupt("output longer than declared"));
        }
        match st {
            Status::StreamEnd => break,
            _ if z.total_in() == in0 && out.len() == out0 && out.len() < out.capacity() => {
                return Err(corrupt("truncated"))
            }
            _ => {}
        }
    }
    if out.len() != want {
        return Err(corrupt("output shorter than declared"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    fn sample(seed: &mut u64, len: usize, alpha: u64) -> Vec<u8> {
        (0..len).map(|_| b'a' + (rng(seed) % alpha) as u8).collect()
    }

    #[test]
    fn small_inputs_are_declined() {
        assert!(compress(&[0u8; MIN_INPUT - 1]).is_none());
        assert!(compress(&[0u8; MIN_INPUT]).is_some());
    }

    #[test]
    fn incompressible_input_is_declined() {
        let mut seed = 0x1234_5678;
        let noise: Vec<u8> = (0..8192).map(|_| rng(&mut seed) as u8).collect();
        assert!(compress(&noise).is_none());
    }

    #[test]
    fn framing_is_length_prefix_then_zlib() {
        let text = b"key=value;".repeat(1000);
        let c = compress(&text).unwrap();
        assert_eq!(&c[..4], &(text.len() as u32).to_le_bytes());
        // zlib header: CM 8 (deflate), header checksum multiple of 31, level-9 flag
        assert_eq!(c[4] & 0x0f, 8);
        assert_eq!(((c[4] as u16) << 8 | c[5] as u16) % 31, 0);
        assert!(c.len() < text.len() / 10);
        assert_eq!(decompress(&c).unwrap(), text);
    }

    #[test]
    fn round_trips() {
        let mut seed = 42;
        for (len, alpha) in [(0, 2), (1, 2), (5, 3), (100, 4), (5000, 3), (70_000, 2)] {
            let data = sample(&mut seed, len, alpha);
            let c = compress_raw(&data);
            assert_eq!(decompress(&c).unwrap(), data, "len {} alpha {}", len, alpha);
        }
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
            if let Ok(out) = decompress(&bad) {
                assert_eq!(Some(out.len()), decompressed_len(&bad));
            }
        }
        // A declared size that disagrees with the stream is rejected both ways, and
        // a hostile declared size does not allocate it.
        let mut short = c.clone();
        short[..4].copy_from_slice(&5999u32.to_le_bytes());
        assert!(decompress(&short).is_err());
        let mut huge = c.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decompress(&huge).is_err());
    }
}
