//! The engine's own byte format: how every engine type becomes bytes and back (the
//! [`Wire`] trait, the [`Decoder`] and the encodings of the data model). The native
//! client/server protocol ([`crate::protocol`]), the stored job data ([`crate::store`]) and
//! the fence/dmodex blobs handed to hosts use it. OpenPMIx's byte formats sit above, in
//! [`crate::codec`], which also re-exports everything here under its old paths.
//!
//! Encoding is little-endian and self-describing where a type code is needed (a
//! [`Value`](crate::value::Value) carries its `u16` data type). Decoding never panics and
//! never allocates more than the remaining input could justify: every length is checked
//! against the bytes left before anything is reserved.

use crate::error::{Error, Result};

mod values;
pub use values::{decode_seq, encode_seq};

/// Something that can be written to and read back from the codec.
pub trait Wire: Sized {
    /// Append the encoding of `self` to `out`.
    fn encode(&self, out: &mut Vec<u8>);
    /// Read one value from the decoder.
    fn decode(d: &mut Decoder<'_>) -> Result<Self>;
}

/// Encode one item into a fresh buffer.
pub fn to_bytes<T: Wire>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    v.encode(&mut out);
    out
}

/// Decode exactly one item from `buf`; trailing bytes are an error.
pub fn from_bytes<T: Wire>(buf: &[u8]) -> Result<T> {
    let mut d = Decoder::new(buf);
    let v = T::decode(&mut d)?;
    if !d.is_empty() {
        return Err(Error::unpack(format!("{} trailing bytes", d.remaining())));
    }
    Ok(v)
}

/// A cursor over input bytes.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Decoder { buf, pos: 0 }
    }
    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// True when all input has been read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// Take `n` bytes, or fail with `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER`.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        match self.buf.get(self.pos..).and_then(|rest| rest.get(..n)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.past_end(n)),
        }
    }
    /// Take a fixed-size array.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self
            .buf
            .get(self.pos..)
            .and_then(|rest| rest.first_chunk::<N>())
        {
            Some(a) => {
                self.pos += N;
                Ok(*a)
            }
            None => Err(self.past_end(N)),
        }
    }
    /// The error of a read of `n` bytes past the end (kept out of the inlined paths).
    #[cold]
    #[inline(never)]
    fn past_end(&self, n: usize) -> Error {
        Error::new(
            pmix_sys::PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER,
            format!("need {} bytes, {} left", n, self.remaining()),
        )
    }
    /// Read a length/count prefix (u32) and check that at least `count * min_item_size`
    /// bytes remain, so a hostile count cannot make us allocate.
    pub fn count(&mut self, min_item_size: usize) -> Result<usize> {
        let n = u32::decode(self)? as usize;
        if n.saturating_mul(min_item_size.max(1)) > self.remaining() {
            return Err(Error::unpack(format!(
                "count {} exceeds remaining input",
                n
            )));
        }
        Ok(n)
    }
}

macro_rules! wire_le {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn encode(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn decode(d: &mut Decoder<'_>) -> Result<Self> {
                Ok(<$t>::from_le_bytes(d.array()?))
            }
        }
    )*};
}
wire_le!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

impl Wire for bool {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(*self as u8);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        match u8::decode(d)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(Error::unpack(format!("invalid bool byte {}", b))),
        }
    }
}

/// Byte strings: u32 length + bytes.
impl Wire for Vec<u8> {
    fn encode(&self, out: &mut Vec<u8>) {
        (self.len() as u32).encode(out);
        out.extend_from_slice(self);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let n = d.count(1)?;
        Ok(d.take(n)?.to_vec())
    }
}

impl Wire for String {
    fn encode(&self, out: &mut Vec<u8>) {
        (self.len() as u32).encode(out);
        out.extend_from_slice(self.as_bytes());
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let n = d.count(1)?;
        let b = d.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| Error::unpack("string is not UTF-8"))
    }
}

/// Optional items: a presence byte, then the item.
impl<T: Wire> Wire for Option<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        match u8::decode(d)? {
            0 => Ok(None),
            1 => Ok(Some(T::decode(d)?)),
            b => Err(Error::unpack(format!("invalid option tag {}", b))),
        }
    }
}
