//! OpenPMIx's "bfrops v4.1" byte format (the `v41` component of OpenPMIx 4.2.x and
//! 5.x), sans-I/O: a [`Packer`] appending to a `Vec<u8>` and an [`Unpacker`] reading a
//! `&[u8]`, with typed helpers for the primitives and for every PMIx data type
//! ([`Packer::pack`]/[`Unpacker::unpack`] over [`Value`]s).
//!
//! `PMIx_Data_pack`/`unpack` use it, and so can the client/server wire protocol for
//! message bodies. Buffers are "non-described" (`PMIX_BFROP_BUFFER_NON_DESC`, what
//! 4.2.2 produces by default): no type tags except where v41 always writes one (the
//! type of a value, info or pdata payload, a data array's element type, and `pid_t`).
//!
//! # Primitives
//! * Integers of 16 bits or more are base-128 varints (OpenPMIx's `psquash/flex128`):
//!   little-endian groups of 7 bits, bit 7 set while more follow, at most 8 such bytes;
//!   a 9th byte then holds the top 8 bits whole. Signed types are sign-folded first on
//!   their 64-bit sign extension (`v >= 0` → `2v`, `v < 0` → `2·!v + 1`).
//! * A string is an `INT32` length including the NUL, then the bytes and NUL; length 0
//!   is a NULL string.
//! * A top-level pack is an `INT32` count, then the items.
//!
//! # Strictness
//! Decoding never panics and never reserves more than the remaining input justifies:
//! every count is checked against the bytes left (each element takes at least one
//! byte), a varint must fit its type, nesting is bounded by [`MAX_DEPTH`]. Running out
//! of input is `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER` (what OpenPMIx returns, and
//! what "read to the end" loops stop on), malformed input `PMIX_ERR_UNPACK_FAILURE`, an
//! unknown type `PMIX_ERR_UNKNOWN_DATA_TYPE`.

use crate::error::{Error, Result};
use crate::value::{CString, Info, Key, ProcId, Value};
use pmix_sys as sys;

pub mod ds21;
mod types;
pub mod wire;

/// Deepest nesting of values (data arrays of values of data arrays …) the decoder
/// accepts.
pub const MAX_DEPTH: u32 = 32;

/// The type tag OpenPMIx writes before every `pid_t` (`BFROP_TYPE_PID_T` for a 4-byte
/// `pid_t`).
pub const PID_TAG: u16 = sys::PMIX_UINT32;

/// `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER` with context.
pub fn past_end(context: impl Into<String>) -> Error {
    Error::new(sys::PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, context)
}

/// `PMIX_ERR_UNKNOWN_DATA_TYPE` for type `t`.
pub fn unknown_type(t: u16) -> Error {
    Error::new(
        sys::PMIX_ERR_UNKNOWN_DATA_TYPE,
        format!("v41 codec: unknown data type {}", t),
    )
}

/// Appends v41 encodings to a byte vector.
#[derive(Debug, Default, Clone)]
pub struct Packer {
    buf: Vec<u8>,
}

impl Packer {
    /// An empty packer.
    pub fn new() -> Self {
        Self::default()
    }
    /// A packer appending to `buf`.
    pub fn with(buf: Vec<u8>) -> Self {
        Packer { buf }
    }
    /// The bytes packed so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }
    /// The packed bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
    /// One raw byte (`BOOL`, `BYTE`, `INT8`, `UINT8` and the 8-bit enums).
    pub fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }
    /// Raw bytes, no length.
    pub fn raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    /// An unsigned varint (`UINT16/32/64`, `SIZE`, `PROC_RANK`, `DATA_TYPE`, …).
    pub fn uint(&mut self, v: u64) {
        let mut v = v;
        for _ in 0..8 {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(b);
                return;
            }
            self.buf.push(b | 0x80);
        }
        self.buf.push(v as u8);
    }
    /// A signed varint (`INT16/32/64`, `INT`, `UINT`, `STATUS`, counts).
    pub fn int(&mut self, v: i64) {
        let folded = if v < 0 {
            ((!v as u64) << 1) | 1
        } else {
            (v as u64) << 1
        };
        self.uint(folded);
    }
    /// `PMIX_SIZE`.
    pub fn size(&mut self, n: usize) {
        self.uint(n as u64);
    }
    /// A data type code (`UINT16`).
    pub fn dtype(&mut self, t: u16) {
        self.uint(t as u64);
    }
    /// A string (`None` = NULL). Bytes after an embedded NUL are not sent: the C side
    /// takes `strlen`.
    pub fn string(&mut self, s: Option<&[u8]>) {
        match s {
            None => self.int(0),
            Some(b) => {
                let b = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
                self.int(b.len() as i64 + 1);
                self.raw(b);
                self.byte(0);
            }
        }
    }
    /// A string from a [`CString`].
    pub fn cstring(&mut self, s: &CString) {
        self.string(s.as_deref());
    }
    /// Bytes with a `SIZE` prefix (byte objects, data buffers).
    pub fn bytes(&mut self, b: &[u8]) {
        self.size(b.len());
        self.raw(b);
    }
    /// One top-level pack call: `INT32` count, then `items`, each encoded as type `t`.
    ///
    /// # Errors
    /// `PMIX_ERR_UNKNOWN_DATA_TYPE` for a type v41 cannot carry, `PMIX_ERR_BAD_PARAM`
    /// for an item of another type, `PMIX_ERR_NOT_SUPPORTED` for hwloc objects.
    /// Nothing is appended on error.
    pub fn pack(&mut self, items: &[Value], t: u16) -> Result<()> {
        let n = i32::try_from(items.len()).map_err(|_| Error::bad_param("too many items"))?;
        let start = self.buf.len();
        self.int(n as i64);
        let r = self.seq(items, t, true);
        if r.is_err() {
            self.buf.truncate(start);
        }
        r
    }
    /// `items` of type `t` back to back, as one OpenPMIx pack of that many items: a
    /// `pid_t` run carries one type tag for the whole run (`empty_tag`: even when empty,
    /// as a top-level pack does).
    pub fn seq(&mut self, items: &[Value], t: u16, empty_tag: bool) -> Result<()> {
        if t == sys::PMIX_PID && (empty_tag || !items.is_empty()) {
            self.dtype(PID_TAG);
        }
        items.iter().try_for_each(|v| {
            if v.dtype() != t {
                return Err(Error::bad_param(format!(
                    "item of type {} in a pack of type {}",
                    v.dtype(),
                    t
                )));
            }
            match v {
                Value::Pid(x) => {
                    self.uint(*x as u32 as u64);
                    Ok(())
                }
                _ => self.elem(v),
            }
        })
    }
    /// One element of its own type, without a tag (a `pid_t` gets its own tag).
    pub fn elem(&mut self, v: &Value) -> Result<()> {
        types::pack_elem(self, v)
    }
    /// A `PMIX_VALUE`: its type (`UINT16`) then its payload.
    pub fn value(&mut self, v: &Value) -> Result<()> {
        self.dtype(v.dtype());
        types::pack_payload(self, v)
    }
    /// One `PMIX_PROC` element: namespace string, then the rank.
    pub fn proc_id(&mut self, id: &ProcId) {
        types::proc_(self, id);
    }
    /// One `PMIX_INFO` element: key, directives, type, payload.
    pub fn info(&mut self, i: &Info) -> Result<()> {
        types::info(self, i)
    }
}

/// Reads v41 encodings from a byte slice.
#[derive(Debug, Clone)]
pub struct Unpacker<'a> {
    buf: &'a [u8],
    pos: usize,
    depth: u32,
}

impl<'a> Unpacker<'a> {
    /// An unpacker at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Unpacker {
            buf,
            pos: 0,
            depth: 0,
        }
    }
    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// True when all input has been read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    /// The unread input.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }
    /// Take `n` raw bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(past_end(format!(
                "need {} bytes, {} left",
                n,
                self.remaining()
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    /// One raw byte.
    pub fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    /// An unsigned varint of at most `bytes` bytes of value (2, 4 or 8).
    pub fn uint(&mut self, bytes: u32) -> Result<u64> {
        let mut v: u64 = 0;
        for i in 0..9u32 {
            let b = self.byte()?;
            if i == 8 {
                v |= (b as u64) << 56;
                break;
            }
            v |= ((b & 0x7f) as u64) << (7 * i);
            if b & 0x80 == 0 {
                break;
            }
        }
        if bytes < 8 && v >> (8 * bytes) != 0 {
            return Err(Error::unpack(format!(
                "varint {} does not fit {} bytes",
                v, bytes
            )));
        }
        Ok(v)
    }
    /// A signed varint of at most `bytes` bytes.
    pub fn int(&mut self, bytes: u32) -> Result<i64> {
        let f = self.uint(bytes)?;
        let mag = (f >> 1) as i64;
        Ok(if f & 1 == 1 { !mag } else { mag })
    }
    /// `INT32`.
    pub fn i32(&mut self) -> Result<i32> {
        Ok(self.int(4)? as i32)
    }
    /// `UINT32`.
    pub fn u32(&mut self) -> Result<u32> {
        Ok(self.uint(4)? as u32)
    }
    /// `UINT16` (also data types).
    pub fn u16(&mut self) -> Result<u16> {
        Ok(self.uint(2)? as u16)
    }
    /// `PMIX_SIZE`.
    pub fn size(&mut self) -> Result<usize> {
        usize::try_from(self.uint(8)?).map_err(|_| Error::unpack("size out of range"))
    }
    /// A count of elements that take at least `min` bytes each: checked against the
    /// input left, so it can size an allocation.
    pub fn checked(&mut self, n: u64, min: usize) -> Result<usize> {
        let left = self.remaining() as u64;
        if n.saturating_mul(min.max(1) as u64) > left {
            return Err(past_end(format!(
                "count {} exceeds the {} bytes left",
                n, left
            )));
        }
        Ok(n as usize)
    }
    /// A `SIZE` count of elements of at least `min` bytes each.
    pub fn count_size(&mut self, min: usize) -> Result<usize> {
        let n = self.uint(8)?;
        self.checked(n, min)
    }
    /// An `INT32`/`INT` count (negative is malformed).
    pub fn count_int(&mut self, min: usize) -> Result<usize> {
        let n = self.i32()?;
        let n = u64::try_from(n).map_err(|_| Error::unpack(format!("negative count {}", n)))?;
        self.checked(n, min)
    }
    /// A string: `None` for NULL; the bytes up to the first NUL otherwise.
    pub fn string(&mut self) -> Result<CString> {
        let n = self.count_int(1)?;
        if n == 0 {
            return Ok(None);
        }
        let b = self.take(n)?;
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        Ok(Some(b[..end].to_vec()))
    }
    /// `SIZE`-prefixed bytes.
    pub fn bytes(&mut self) -> Result<Vec<u8>> {
        let n = self.count_size(1)?;
        Ok(self.take(n)?.to_vec())
    }
    /// One top-level pack call of type `t`: the `INT32` count, then the items.
    pub fn unpack(&mut self, t: u16) -> Result<Vec<Value>> {
        let n = self.count_int(1)?;
        self.seq(t, n, true)
    }
    /// `n` items of type `t` back to back (see [`Packer::seq`]); `n` must already be
    /// checked against the input.
    pub fn seq(&mut self, t: u16, n: usize, empty_tag: bool) -> Result<Vec<Value>> {
        let mut out = Vec::with_capacity(n);
        if t == sys::PMIX_PID && (empty_tag || n > 0) {
            let tag = self.u16()?;
            for _ in 0..n {
                out.push(Value::Pid(types::pid_as(self, tag)?));
            }
            return Ok(out);
        }
        for _ in 0..n {
            out.push(self.elem(t)?);
        }
        Ok(out)
    }
    /// One element of type `t` (no tag in the input).
    pub fn elem(&mut self, t: u16) -> Result<Value> {
        if self.depth >= MAX_DEPTH {
            return Err(Error::unpack("values nested too deeply"));
        }
        self.depth += 1;
        let r = types::unpack_elem(self, t);
        self.depth -= 1;
        r
    }
    /// A `PMIX_VALUE`: type then payload.
    pub fn value(&mut self) -> Result<Value> {
        let t = self.u16()?;
        self.payload(t)
    }
    /// The payload of a value of type `t` (nothing for `PMIX_UNDEF`).
    pub fn payload(&mut self, t: u16) -> Result<Value> {
        if t == sys::PMIX_UNDEF {
            return Ok(Value::Undef);
        }
        self.elem(t)
    }
    /// One `PMIX_PROC` element.
    pub fn proc_id(&mut self) -> Result<ProcId> {
        types::u_proc(self)
    }
    /// One `PMIX_INFO` element.
    pub fn info(&mut self) -> Result<Info> {
        types::u_info(self)
    }
    /// A string that must be a valid key (an empty one is allowed, as in an unset info).
    pub fn key(&mut self) -> Result<Key> {
        let s = self.string()?;
        types::key(s)
    }
}

#[cfg(test)]
mod tests;
