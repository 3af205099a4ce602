//! OpenPMIx 4.2.x's `ds21` shared-memory job-data store as byte images, sans-I/O.
//!
//! The server writes them for its OpenPMIx 4.2.x clients (`server::v41::ds21`, the
//! files through `sys::ds21`); `docs/DS21.md` has the specification, from OpenPMIx's
//! source and an image Debian's `mpirun` wrote, and the plan.
//!
//! A ds21 store is a directory of files an OpenPMIx 4.2.x client maps and reads on its
//! calling thread: an *initial segment* naming each namespace and how many meta and
//! data segments it has ([`ns_entry`], [`initial_segment`]); per namespace a *meta
//! segment* with one slot per rank (`{rank, offset, count}`; the job level, rank
//! `PMIX_RANK_WILDCARD`, is slot 0, rank `r` slot `r + 1`) and *data segments* of
//! records ([`record`]: size, key hash, key, one v41 pack of the value), each rank's
//! records closed by an extension slot ([`ext_slot`]) that ends them or continues them
//! elsewhere ([`NsImage::build`]); and a *lock segment* of process-shared mutexes, two
//! per client, whose header and offsets [`LockLayout`] gives (the mutexes themselves
//! must be initialised by `pthread_mutex_init`, the FFI edge's job).
//!
//! Integers are native `size_t`s (8 bytes, little-endian: x86-64 and aarch64 Linux).
//! Images hold each segment's used prefix; the file is that prefix followed by zeros up
//! to the segment's size ([`Geometry`]).

mod job;
mod write;

use super::{Packer, Unpacker};
use crate::error::{Error, Result};
use crate::value::{Key, Rank, Value};
use pmix_sys as sys;

pub use job::{hot_len, job_records};
pub use write::{Chains, Patch, Seg};

/// One rank's records in order: key and value.
pub type Records = Vec<(Key, Value)>;
/// Records as a reader finds them: the key's bytes and the value.
pub type RawRecords = Vec<(Vec<u8>, Value)>;

/// Size of an initial segment (OpenPMIx's `INITIAL_SEG_SIZE`).
pub const INITIAL_SEG_SIZE: usize = 4096;
/// Default size of a meta segment (`NS_META_SEG_SIZE`, 4 MiB).
pub const META_SEG_SIZE: usize = 1 << 22;
/// Default size of a data segment (`NS_DATA_SEG_SIZE`, 4 MiB).
pub const DATA_SEG_SIZE: usize = 1 << 22;
/// Size of one namespace entry of the initial segment (`ns_seg_info_t`).
pub const NS_ENTRY_SIZE: usize = 288;
/// Longest namespace name an entry holds (`PMIX_MAX_NSLEN`).
pub const MAX_NSLEN: usize = 255;
/// Size of one meta slot (`rank_meta_info`: rank, offset, count).
pub const META_SLOT_SIZE: usize = 24;
/// Size of an extension slot: 16-byte header, the empty key's NUL, one offset.
pub const EXT_SLOT_SIZE: usize = 16 + 1 + 8;
/// The header of a segment (a count or a free offset) and of each record field.
const WORD: usize = 8;
/// Flag of an extension slot in a record's size word.
const EXTENSION: u64 = 1 << 63;
/// Flag of an invalidated record in a record's size word.
const INVALIDATED: u64 = 1 << 62;
/// The size bits of a record's size word.
const SIZE_MASK: u64 = INVALIDATED - 1;

/// The sizes a client maps segments at. Clients read theirs from their own environment
/// (`NS_META_SEG_SIZE`, `NS_DATA_SEG_SIZE`), so a server uses the default unless it
/// sets those variables for its clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Bytes of a meta segment.
    pub meta: usize,
    /// Bytes of a data segment.
    pub data: usize,
}

impl Default for Geometry {
    fn default() -> Self {
        Geometry {
            meta: META_SEG_SIZE,
            data: DATA_SEG_SIZE,
        }
    }
}

impl Geometry {
    /// Meta slots per meta segment (`max_meta_elems`).
    pub fn slots_per_meta(&self) -> usize {
        (self.meta - WORD) / META_SLOT_SIZE
    }
}

/// The meta slot of `rank`: 0 for the job level, `rank + 1` otherwise.
pub fn slot_of(rank: Rank) -> usize {
    if rank == sys::PMIX_RANK_WILDCARD {
        0
    } else {
        rank as usize + 1
    }
}

/// A key's hash as ds21 stores it: the sum of its bytes taken as C `char`s (signed on
/// x86-64), in a `size_t`.
pub fn key_hash(key: &[u8]) -> u64 {
    key.iter()
        .fold(0u64, |h, &b| h.wrapping_add(b as i8 as i64 as u64))
}

fn word(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn read_word(b: &[u8], at: usize) -> Result<u64> {
    b.get(at..at + WORD)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
        .ok_or_else(|| Error::unpack(format!("ds21: word at {at} past the image")))
}

/// A record's data: one v41 pack of one `PMIX_VALUE` (`INT32` count 1, type,
/// payload), non-described, as OpenPMIx packs it with the client's bfrops.
///
/// # Errors
/// A value v41 cannot carry.
pub fn value_bytes(v: &Value) -> Result<Vec<u8>> {
    let mut p = Packer::new();
    p.int(1);
    p.value(v)?;
    Ok(p.into_bytes())
}

/// One record: `size_t` size of the whole record, `size_t` key hash, the key with its
/// NUL, the value's bytes ([`value_bytes`]).
///
/// # Errors
/// A value v41 cannot carry.
pub fn record(key: &str, v: &Value) -> Result<Vec<u8>> {
    let data = value_bytes(v)?;
    let size = 2 * WORD + key.len() + 1 + data.len();
    let mut out = Vec::with_capacity(size);
    word(&mut out, size as u64);
    word(&mut out, key_hash(key.as_bytes()));
    out.extend_from_slice(key.as_bytes());
    out.push(0);
    out.extend_from_slice(&data);
    Ok(out)
}

/// An extension slot: a rank's records end here (`next` 0) or continue at global data
/// offset `next`.
pub fn ext_slot(next: u64) -> [u8; EXT_SLOT_SIZE] {
    let mut out = [0u8; EXT_SLOT_SIZE];
    out[..WORD].copy_from_slice(&(EXT_SLOT_SIZE as u64 | EXTENSION).to_le_bytes());
    // hash 0, key "" (its NUL), then the offset
    out[2 * WORD + 1..].copy_from_slice(&next.to_le_bytes());
    out
}

/// One namespace entry of the initial segment: the name NUL-padded to 256 bytes, the
/// server's table index and track index (0: clients ignore both), padding, then the
/// counts of meta and data segments.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a name longer than [`MAX_NSLEN`] or holding a NUL.
pub fn ns_entry(nspace: &str, meta_segs: usize, data_segs: usize) -> Result<[u8; NS_ENTRY_SIZE]> {
    if nspace.len() > MAX_NSLEN || nspace.as_bytes().contains(&0) {
        return Err(Error::bad_param(format!(
            "ds21: namespace {nspace:?} does not fit an entry"
        )));
    }
    let mut e = [0u8; NS_ENTRY_SIZE];
    e[..nspace.len()].copy_from_slice(nspace.as_bytes());
    e[272..280].copy_from_slice(&(meta_segs as u64).to_le_bytes());
    e[280..288].copy_from_slice(&(data_segs as u64).to_le_bytes());
    Ok(e)
}

/// Entries one initial segment holds.
pub const ENTRIES_PER_INITIAL: usize = (INITIAL_SEG_SIZE - 2 * WORD) / NS_ENTRY_SIZE;

/// The used prefix of an initial segment holding `entries`: the count, the "full" flag
/// (0: no further initial segment), the entries.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` past [`ENTRIES_PER_INITIAL`] entries (chaining to a second
/// initial segment is not needed with one namespace per directory).
pub fn initial_segment(entries: &[[u8; NS_ENTRY_SIZE]]) -> Result<Vec<u8>> {
    if entries.len() > ENTRIES_PER_INITIAL {
        return Err(Error::bad_param(
            "ds21: too many namespaces for one segment",
        ));
    }
    let mut out = Vec::with_capacity(2 * WORD + entries.len() * NS_ENTRY_SIZE);
    word(&mut out, entries.len() as u64);
    word(&mut out, 0);
    entries.iter().for_each(|e| out.extend_from_slice(e));
    Ok(out)
}

/// The lock segment's layout for `num_locks` clients: header (`size_t` segment size,
/// `u32` lock count, `size_t` alignment, `size_t` offset of the first mutex), one `i32`
/// in-use flag per client from byte 32, then `2 · num_locks` mutexes `align` apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockLayout {
    /// Client slots (OpenPMIx: the namespace's local process count).
    pub num_locks: u32,
    /// Distance between two mutexes.
    pub align: usize,
    /// Offset of mutex 0.
    pub mutex_offs: usize,
    /// Size of the file, whole pages.
    pub seg_size: usize,
}

/// Where the in-use flags start in a lock segment.
const LOCK_FLAGS_AT: usize = 32;

impl LockLayout {
    /// The layout OpenPMIx's server computes from `sizeof(pthread_mutex_t)`, the cache
    /// line and the page size (all non-zero).
    pub fn new(num_locks: u32, mutex_size: usize, cache_line: usize, page: usize) -> Self {
        let align = (mutex_size / cache_line + 1) * cache_line;
        let flags = LOCK_FLAGS_AT + 4 * num_locks as usize;
        let mutex_offs = (flags / align + 1) * align;
        let seg_size = ((mutex_offs + 2 * num_locks as usize * align) / page + 1) * page;
        LockLayout {
            num_locks,
            align,
            mutex_offs,
            seg_size,
        }
    }

    /// Offset of mutex `j` (client `i` has `2i`, its "signal" lock, and `2i + 1`).
    pub fn mutex_at(&self, j: usize) -> usize {
        self.mutex_offs + j * self.align
    }

    /// The bytes before the first mutex: header and in-use flags (all free).
    pub fn header(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.mutex_offs];
        out[..8].copy_from_slice(&(self.seg_size as u64).to_le_bytes());
        out[8..12].copy_from_slice(&self.num_locks.to_le_bytes());
        out[16..24].copy_from_slice(&(self.align as u64).to_le_bytes());
        out[24..32].copy_from_slice(&(self.mutex_offs as u64).to_le_bytes());
        out
    }
}

/// One meta slot: the PMIx rank, the global data offset of its first record, how many
/// valid records it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetaSlot {
    /// The rank (`PMIX_RANK_WILDCARD` for slot 0).
    pub rank: u64,
    /// Global data offset (segment · data size + offset within it); 0: no data.
    pub offset: u64,
    /// Valid records.
    pub count: u64,
}

/// A namespace's meta and data segments (used prefixes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NsImage {
    /// The sizes the images are laid out for.
    pub geometry: Geometry,
    /// Meta segments `smseg-<nspace>-<i>`.
    pub meta: Vec<Vec<u8>>,
    /// Data segments `smdataseg-<nspace>-<i>`, each starting with its free offset.
    pub data: Vec<Vec<u8>>,
}

/// Data segments being filled.
struct DataWriter {
    size: usize,
    segs: Vec<Vec<u8>>,
}

impl DataWriter {
    fn new(size: usize) -> Self {
        DataWriter {
            size,
            segs: vec![vec![0u8; WORD]],
        }
    }
    /// Global offset of the next byte of the last segment.
    fn next_offset(&self) -> u64 {
        ((self.segs.len() - 1) * self.size + self.segs.last().map_or(0, Vec::len)) as u64
    }
    /// Overwrite bytes at global offset `at` (inside what was appended).
    fn set(&mut self, at: u64, b: &[u8]) {
        let (seg, off) = (at as usize / self.size, at as usize % self.size);
        self.segs[seg][off..off + b.len()].copy_from_slice(b);
    }
    /// Append `rec` (with room left for an extension slot behind it), opening a new
    /// segment when it does not fit; `chained`: the rank already has records, which then
    /// continue in the new segment. Returns the record's global offset.
    fn put(&mut self, rec: &[u8], chained: bool) -> Result<u64> {
        if WORD + rec.len() + EXT_SLOT_SIZE > self.size {
            return Err(Error::bad_param(format!(
                "ds21: a {}-byte record does not fit a {}-byte data segment",
                rec.len(),
                self.size
            )));
        }
        let last = self.segs.last().map_or(0, Vec::len);
        if last + rec.len() + EXT_SLOT_SIZE > self.size {
            let next = (self.segs.len() * self.size + WORD) as u64;
            if chained {
                self.append(&ext_slot(next));
            }
            self.segs.push(vec![0u8; WORD]);
        }
        let at = self.next_offset();
        self.append(rec);
        Ok(at)
    }
    fn append(&mut self, b: &[u8]) {
        self.segs
            .last_mut()
            .expect("a segment")
            .extend_from_slice(b);
    }
    /// The segments with their free offsets written.
    fn finish(mut self) -> Vec<Vec<u8>> {
        for s in &mut self.segs {
            let free = s.len() as u64;
            s[..WORD].copy_from_slice(&free.to_le_bytes());
        }
        self.segs
    }
}

impl NsImage {
    /// Lay out `ranks` (each rank with its records in order; the job level as
    /// `PMIX_RANK_WILDCARD`) as OpenPMIx's server writes them: each rank's records back
    /// to back, then an extension slot; a record that would leave no room for an
    /// extension slot in its segment goes to the next one, the rank's records chained
    /// there. A rank without records gets no slot.
    ///
    /// # Errors
    /// A value v41 cannot carry; a record larger than a data segment.
    pub fn build(geometry: Geometry, ranks: &[(Rank, Records)]) -> Result<NsImage> {
        NsImage::build_split(geometry, ranks, &|_, r| r.len())
    }

    /// As [`NsImage::build`], but of each rank's records only the first `hot(rank,
    /// records)` are laid out where the rank's chain begins; their extension slot
    /// leads to the others, laid out after every rank's first part. Records stored
    /// later ([`Chains::put`]) are linked in at that slot, so a reader finds them after
    /// the hot records, before the rest.
    ///
    /// # Errors
    /// As [`NsImage::build`].
    pub fn build_split(
        geometry: Geometry,
        ranks: &[(Rank, Records)],
        hot: &dyn Fn(Rank, &Records) -> usize,
    ) -> Result<NsImage> {
        let mut data = DataWriter::new(geometry.data);
        let mut slots = Vec::new();
        let mut cold = Vec::new();
        let put_all = |data: &mut DataWriter, recs: &[(Key, Value)]| -> Result<u64> {
            let mut first = None;
            for (k, v) in recs {
                let at = data.put(&record(k.as_str(), v)?, first.is_some())?;
                first.get_or_insert(at);
            }
            Ok(first.expect("a record"))
        };
        for (rank, recs) in ranks.iter().filter(|(_, r)| !r.is_empty()) {
            let h = hot(*rank, recs).clamp(1, recs.len());
            let offset = put_all(&mut data, &recs[..h])?;
            if h < recs.len() {
                cold.push((data.next_offset(), &recs[h..]));
            }
            data.append(&ext_slot(0));
            let slot = MetaSlot {
                rank: *rank as u64,
                offset,
                count: recs.len() as u64,
            };
            slots.push((slot_of(*rank), slot));
        }
        for (link, recs) in cold {
            let at = put_all(&mut data, recs)?;
            data.append(&ext_slot(0));
            data.set(link, &ext_slot(at));
        }
        Ok(NsImage {
            geometry,
            meta: meta_segments(geometry, &slots),
            data: data.finish(),
        })
    }

    /// The namespace's initial-segment entry for this image.
    ///
    /// # Errors
    /// As [`ns_entry`].
    pub fn entry(&self, nspace: &str) -> Result<[u8; NS_ENTRY_SIZE]> {
        ns_entry(nspace, self.meta.len(), self.data.len())
    }

    /// The meta slot of `rank`, `None` when it has no data (offset 0).
    pub fn slot(&self, rank: Rank) -> Option<MetaSlot> {
        let s = slot_of(rank);
        let per = self.geometry.slots_per_meta();
        let seg = self.meta.get(s / per)?;
        let at = WORD + (s % per) * META_SLOT_SIZE;
        let w = |i: usize| read_word(seg, at + i * WORD).unwrap_or(0);
        let slot = MetaSlot {
            rank: w(0),
            offset: w(1),
            count: w(2),
        };
        (slot.offset != 0).then_some(slot)
    }

    /// The record at global data offset `off`: size word, key, value bytes.
    fn record_at(&self, off: u64) -> Result<(u64, &[u8], &[u8])> {
        let (seg, at) = (
            off as usize / self.geometry.data,
            off as usize % self.geometry.data,
        );
        let b = self
            .data
            .get(seg)
            .ok_or_else(|| Error::unpack(format!("ds21: offset {off} past the data")))?;
        let sw = read_word(b, at)?;
        let size = (sw & SIZE_MASK) as usize;
        let body = b
            .get(at + 2 * WORD..at + size)
            .filter(|_| size > 2 * WORD)
            .ok_or_else(|| Error::unpack(format!("ds21: bad record at {off}")))?;
        let nul = body
            .iter()
            .position(|&c| c == 0)
            .ok_or_else(|| Error::unpack(format!("ds21: unterminated key at {off}")))?;
        Ok((sw, &body[..nul], &body[nul + 1..]))
    }

    /// The valid records of `rank` in order, walked as an OpenPMIx client walks them
    /// (invalidated records skipped, extension slots followed); `None` when the rank has
    /// no slot.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_*` for a malformed image.
    pub fn records(&self, rank: Rank) -> Result<Option<RawRecords>> {
        let Some(slot) = self.slot(rank) else {
            return Ok(None);
        };
        let mut out = Vec::new();
        let mut off = slot.offset;
        // every record takes at least 16 bytes: a bound against a looping chain
        let mut steps = self.data.iter().map(Vec::len).sum::<usize>() / (2 * WORD);
        while (out.len() as u64) < slot.count {
            steps = steps
                .checked_sub(1)
                .ok_or_else(|| Error::unpack("ds21: record chain does not end"))?;
            let (sw, key, data) = self.record_at(off)?;
            if sw & INVALIDATED != 0 {
                off += sw & SIZE_MASK;
            } else if sw & EXTENSION != 0 {
                match read_word(data, 0)? {
                    0 => break,
                    next => off = next,
                }
            } else {
                out.push((key.to_vec(), unpack_value(data)?));
                off += sw & SIZE_MASK;
            }
        }
        Ok(Some(out))
    }

    /// The value of `key` for `rank` (the job level: `PMIX_RANK_WILDCARD`), as a
    /// client's fetch finds it.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_*` for a malformed image.
    pub fn lookup(&self, rank: Rank, key: &str) -> Result<Option<Value>> {
        Ok(self
            .records(rank)?
            .and_then(|r| r.into_iter().find(|(k, _)| k == key.as_bytes()))
            .map(|(_, v)| v))
    }
}

/// A record's value: the pack's count must be 1.
fn unpack_value(data: &[u8]) -> Result<Value> {
    let mut u = Unpacker::new(data);
    if u.i32()? != 1 {
        return Err(Error::unpack("ds21: record value count is not 1"));
    }
    u.value()
}

/// The meta segments holding `slots` (slot index, contents), each as long as its last
/// used slot; every segment up to the last one used exists.
fn meta_segments(g: Geometry, slots: &[(usize, MetaSlot)]) -> Vec<Vec<u8>> {
    let per = g.slots_per_meta();
    let nsegs = slots.iter().map(|(s, _)| s / per + 1).max().unwrap_or(1);
    let mut segs = vec![vec![0u8; WORD]; nsegs];
    for (s, m) in slots {
        let seg = &mut segs[s / per];
        let at = WORD + (s % per) * META_SLOT_SIZE;
        if seg.len() < at + META_SLOT_SIZE {
            seg.resize(at + META_SLOT_SIZE, 0);
        }
        for (i, v) in [m.rank, m.offset, m.count].into_iter().enumerate() {
            seg[at + i * WORD..at + (i + 1) * WORD].copy_from_slice(&v.to_le_bytes());
        }
    }
    segs
}

#[cfg(test)]
mod tests;
