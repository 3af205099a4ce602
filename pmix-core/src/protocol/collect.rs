//! What clients publish ([`Put`], [`Contribution`]) and the collected data a collecting
//! fence's reply carries ([`CollectedWriter`], [`collected_index`], [`collected_find`]).

use super::REPLY_COLLECTED;
use crate::error::{Error, Result};
use crate::value::{Key, ProcId, Value};
use crate::wire::{Decoder, Wire};
use pmix_sys as sys;

/// One value a client publishes: key, scope (`pmix_scope_t`) and value.
#[derive(Debug, Clone, PartialEq)]
pub struct Put {
    /// Key.
    pub key: Key,
    /// Scope.
    pub scope: u8,
    /// Value.
    pub value: Value,
}

impl Wire for Put {
    fn encode(&self, out: &mut Vec<u8>) {
        self.key.encode(out);
        self.scope.encode(out);
        self.value.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Put {
            key: Key::decode(d)?,
            scope: u8::decode(d)?,
            value: Value::decode(d)?,
        })
    }
}

/// One participant's contribution to an allgather.
#[derive(Debug, Clone, PartialEq)]
pub struct Contribution {
    /// Who contributed.
    pub proc_: ProcId,
    /// What it contributed (opaque to the server).
    pub data: Vec<u8>,
}

impl Wire for Contribution {
    fn encode(&self, out: &mut Vec<u8>) {
        self.proc_.encode(out);
        self.data.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Contribution {
            proc_: ProcId::decode(d)?,
            data: Vec::decode(d)?,
        })
    }
}

/// Builds the reply of a successful collecting fence: [`ReplyData::Collected`] with what
/// the participants published, encoded once for every waiting participant (the tag is
/// set per reply with [`set_reply_tag`]).
///
/// The payload is read in place by the client ([`collected_index`], [`collected_find`]):
/// a reset byte (1: drop everything collected before), the `u32` process count, then per
/// process its id, a `u32` entry count, per entry the key, a `u32` value length and the
/// encoded value (entries sorted by key), the `u32` offset of each entry from the first,
/// and last the keys it no longer has (`u32` count, keys). A reader finds one key by a
/// binary search over the offsets and decodes only that value.
///
/// [`ReplyData::Collected`]: super::ReplyData::Collected
/// [`set_reply_tag`]: super::set_reply_tag
pub struct CollectedWriter {
    out: Vec<u8>,
    payload_at: usize,
    nprocs: u32,
    cap: usize,
}

impl CollectedWriter {
    /// A reply that gives up (see [`CollectedWriter::finish`]) beyond `cap` bytes.
    pub fn new(cap: usize, reset: bool) -> Self {
        let mut out = Vec::new();
        1u8.encode(&mut out); // ServerMsg::Reply
        0u32.encode(&mut out); // tag, set per reply
        sys::PMIX_SUCCESS.encode(&mut out);
        REPLY_COLLECTED.encode(&mut out);
        0u32.encode(&mut out); // payload length (a Vec<u8>), patched in finish
        let payload_at = out.len();
        (reset as u8).encode(&mut out);
        0u32.encode(&mut out); // process count, patched in finish
        CollectedWriter {
            out,
            payload_at,
            nprocs: 0,
            cap,
        }
    }

    /// Add one process: its entries as (key, encoded value), sorted by key, and the keys
    /// it dropped (nothing is added when both are empty). False once over the cap.
    pub fn add<'a>(
        &mut self,
        proc_: &ProcId,
        entries: impl IntoIterator<Item = (&'a Key, &'a [u8])>,
        removed: &[&Key],
    ) -> bool {
        let start = self.out.len();
        proc_.encode(&mut self.out);
        let count_at = self.out.len();
        0u32.encode(&mut self.out);
        let first = self.out.len();
        let mut offsets = Vec::new();
        for (k, v) in entries {
            push_entry(&mut self.out, first, &mut offsets, k, |out| {
                out.extend_from_slice(v)
            });
            if self.out.len() > self.cap {
                return false;
            }
        }
        let n = offsets.len() as u32;
        push_offsets(&mut self.out, &offsets);
        (removed.len() as u32).encode(&mut self.out);
        for k in removed {
            k.encode(&mut self.out);
        }
        if n == 0 && removed.is_empty() {
            self.out.truncate(start);
        } else {
            patch_u32(&mut self.out, count_at, n);
            self.nprocs += 1;
        }
        self.out.len() <= self.cap
    }

    /// The encoded reply body (tag 0), or `None` if it grew beyond the cap.
    pub fn finish(mut self) -> Option<Vec<u8>> {
        if self.out.len() > self.cap {
            return None;
        }
        let payload = (self.out.len() - self.payload_at) as u32;
        patch_u32(&mut self.out, self.payload_at - 4, payload);
        patch_u32(&mut self.out, self.payload_at + 1, self.nprocs);
        Some(self.out)
    }
}

fn patch_u32(out: &mut [u8], at: usize, v: u32) {
    if let Some(b) = out.get_mut(at..at + 4) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// One process in a [`ReplyData::Collected`] payload (see [`collected_index`]).
///
/// [`ReplyData::Collected`]: super::ReplyData::Collected
#[derive(Debug, Clone, PartialEq)]
pub struct CollectedProc {
    /// Whose entries.
    pub proc_: ProcId,
    /// Byte offset of its first entry in the payload.
    pub at: usize,
    /// Number of entries.
    pub count: u32,
    /// Byte offset of its table of entry offsets.
    pub table: usize,
    /// Keys it no longer has.
    pub removed: Vec<Key>,
}

/// Whether a [`ReplyData::Collected`] payload resets what was collected before, and where
/// each process's entries sit in it. The whole structure is checked here (every length
/// within the payload), so later lookups only slice.
///
/// # Errors
/// `PMIX_ERR_UNPACK` for a malformed payload.
///
/// [`ReplyData::Collected`]: super::ReplyData::Collected
pub fn collected_index(payload: &[u8]) -> Result<(bool, Vec<CollectedProc>)> {
    let mut d = Decoder::new(payload);
    let reset = u8::decode(&mut d)? != 0;
    let n = d.count(9)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let p = ProcId::decode(&mut d)?;
        let count = u32::decode(&mut d)?;
        let at = d.position();
        let mut starts = Vec::with_capacity(count.min(1 << 16) as usize);
        let mut last: Option<&[u8]> = None;
        for _ in 0..count {
            starts.push((d.position() - at) as u32);
            let kn = d.count(1)?;
            let k = d.take(kn)?;
            if last.is_some_and(|l| l >= k) {
                return Err(Error::unpack("collected entries not sorted by key"));
            }
            last = Some(k);
            let vn = d.count(1)?;
            d.take(vn)?;
        }
        let table = d.position();
        for s in starts {
            if u32::decode(&mut d)? != s {
                return Err(Error::unpack("collected entry offsets do not match"));
            }
        }
        let nr = d.count(1)?;
        let mut removed = Vec::with_capacity(nr);
        for _ in 0..nr {
            removed.push(Key::decode(&mut d)?);
        }
        v.push(CollectedProc {
            proc_: p,
            at,
            count,
            table,
            removed,
        });
    }
    if !d.is_empty() {
        return Err(Error::unpack("trailing bytes after the collected data"));
    }
    Ok((reset, v))
}

/// The value of `key` among one process's entries (`c`, from [`collected_index`] on the
/// same payload): a binary search over the entry offsets; only that value is decoded.
///
/// # Errors
/// `PMIX_ERR_UNPACK` if the value does not decode.
pub fn collected_find(payload: &[u8], c: &CollectedProc, key: &str) -> Result<Option<Value>> {
    let entry = |i: u32| -> Option<(&[u8], &[u8])> {
        let o = c.table.checked_add(i as usize * 4)?;
        let off = u32::from_le_bytes(payload.get(o..o + 4)?.try_into().ok()?) as usize;
        let mut d = Decoder::new(payload.get(c.at.checked_add(off)?..)?);
        let kn = d.count(1).ok()?;
        let k = d.take(kn).ok()?;
        let vn = d.count(1).ok()?;
        Some((k, d.take(vn).ok()?))
    };
    let (mut lo, mut hi) = (0u32, c.count);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let Some((k, v)) = entry(mid) else {
            return Err(Error::unpack("collected entry out of bounds"));
        };
        match k.cmp(key.as_bytes()) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return crate::wire::from_bytes::<Value>(v).map(Some),
        }
    }
    Ok(None)
}

/// One process's published entries as it brings them to a collecting fence in shared
/// memory (`crate::shm`, [`collected_section_proc`]): the `u32` entry count, the `u32`
/// byte offset of the entry-offset table, then the entries as a
/// [`CollectedWriter`] process section has them (key, `u32` value length, encoded value;
/// sorted by key, as `entries` must be), then the `u32` offset of each entry from the
/// first.
pub fn collected_section<'a>(entries: impl IntoIterator<Item = (&'a Key, &'a Value)>) -> Vec<u8> {
    let mut out = Vec::new();
    collected_section_into(entries, &mut out, &mut Vec::new());
    out
}

/// [`collected_section`] into `out` (cleared first), with `offsets` as scratch: a caller
/// that keeps both between calls encodes without allocating once they have grown.
pub fn collected_section_into<'a>(
    entries: impl IntoIterator<Item = (&'a Key, &'a Value)>,
    out: &mut Vec<u8>,
    offsets: &mut Vec<u32>,
) {
    out.clear();
    offsets.clear();
    out.extend_from_slice(&[0u8; 8]);
    for (k, v) in entries {
        push_entry(out, 8, offsets, k, |out| v.encode(out));
    }
    let table = out.len() as u32;
    patch_u32(out, 0, offsets.len() as u32);
    patch_u32(out, 4, table);
    push_offsets(out, offsets);
}

/// One entry of a process's collected data, as both forms hold it ([`CollectedWriter`]
/// sections and [`collected_section`]s): the key, the `u32` length of the encoded value,
/// the value (`value` writes it); its offset from `first` goes to `offsets`.
fn push_entry(
    out: &mut Vec<u8>,
    first: usize,
    offsets: &mut Vec<u32>,
    k: &Key,
    value: impl FnOnce(&mut Vec<u8>),
) {
    offsets.push((out.len() - first) as u32);
    k.encode(out);
    let len_at = out.len();
    0u32.encode(out);
    value(out);
    let n = (out.len() - len_at - 4) as u32;
    patch_u32(out, len_at, n);
}

/// The entry-offset table that ends a process's entries ([`push_entry`]).
fn push_offsets(out: &mut Vec<u8>, offsets: &[u32]) {
    for o in offsets {
        o.encode(out);
    }
}

/// Where `proc_`'s entries sit in a [`collected_section`], for [`collected_find`] (which
/// checks every offset it follows).
///
/// # Errors
/// `PMIX_ERR_UNPACK` if the header does not fit the bytes.
pub fn collected_section_proc(section: &[u8], proc_: ProcId) -> Result<CollectedProc> {
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(
            section.get(at..at + 4)?.try_into().ok()?,
        ))
    };
    let (Some(count), Some(table)) = (word(0), word(4)) else {
        return Err(Error::unpack("collected section shorter than its header"));
    };
    let end = (table as u64).checked_add(count as u64 * 4);
    if table < 8 || end.is_none_or(|e| e > section.len() as u64) {
        return Err(Error::unpack("collected section's table out of bounds"));
    }
    Ok(CollectedProc {
        proc_,
        at: 8,
        count,
        table: table as usize,
        removed: Vec::new(),
    })
}
