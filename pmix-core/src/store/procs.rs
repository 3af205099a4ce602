//! Per-process job data in compact form ([`ProcTable`]).
//!
//! A namespace's per-process data used to be one list of infos per rank; at a million
//! ranks that is hundreds of megabytes in the server and a copy of it in every client.
//! Here most of it lives in one byte image (an `Image`) with a fixed, pointer-free
//! layout, read in place:
//!
//! * the **process map** (`PMIX_NODE_MAP` + `PMIX_PROC_MAP`): a table of host names and,
//!   per rank, the index of its node and its local rank. `PMIX_HOSTNAME`, `PMIX_NODEID`,
//!   `PMIX_LOCAL_RANK` and `PMIX_NODE_RANK` are answered from it when the host did not
//!   give them;
//! * **columns**: a host-given per-process key whose values are 32-bit scalars of one
//!   type (`PMIX_UINT32`, `PMIX_PROC_RANK`, `PMIX_PID`, ...) or strings is stored as one
//!   fixed-width array indexed by rank, with a presence bitmap; a Get returns the value
//!   with exactly the type and contents the host gave.
//!
//! Anything else (other types, infos with flags, qualified values, a second value for a
//! key, ranks far outside the job) stays in per-rank info lists.
//!
//! Image layout (all integers little-endian; offsets are from the image's start; every
//! region starts on a 4-byte boundary):
//!
//! ```text
//!  0 magic "PMXJ"      4 version u16 (1), flags u16 (bits: job-level keys the map implies)
//!  8 nranks u32        (ranks 0..nranks are covered by the arrays below)
//! 12 nnodes u32       16 ncols u32       20 has_map u32 (0 or 1)
//! 24 strings_off u32  28 strings_len u32 (the string area: host names, keys, texts)
//! 32 nodes_off u32    (nnodes x {name_off u32, name_len u32}, relative to the area)
//! 36 node_of_off u32  (nranks x u32: node index, 0xffffffff = not in the map)
//! 40 lrank_off u32    (nranks x u16: local rank on that node)
//! 44 cols_off u32     (ncols x 24-byte descriptors, below)
//! 48 total_len u32    52 implied_node u32 (the node those keys describe; 0 when no flag)
//! descriptor: key_off u32, key_len u32 (in the area), dtype u16, kind u8 (0 word,
//!             1 text), 0 u8, present_off u32 (ceil(nranks/8) bytes, bit r%8 of byte
//!             r/8), data_off u32 (nranks x u32 words, or nranks x {off u32, len u32}
//!             of texts in the area)
//! ```
//!
//! The flags say which of the server node's job-level process lists
//! ([`IMPLIED_KEYS`]: `PMIX_LOCAL_PEERS`, `PMIX_LOCAL_PROCS`) are exactly what the map
//! says about node `implied_node`: a Welcome then leaves them out (one entry per local
//! process, in every client), and a client builds them from the map when asked
//! (`JobData::implied_value`). The image is sealed once published: a flag that stops
//! holding (the host retracted the key) is cleared beside it (`ProcTable::cleared`),
//! and the wire form carries that after the per-rank lists.

use super::{add_info, find, keys};
use crate::error::{Error, Result};
use crate::value::{Info, Key, Nspace, Rank, Value};
use crate::wire::{Decoder, Wire};
use pmix_sys as sys;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

const MAGIC: [u8; 4] = *b"PMXJ";
const VERSION: u16 = 1;
const HEADER: usize = 56;
const DESC: usize = 24;
const NO_NODE: u32 = u32::MAX;
/// Ranks below this always get column slots (beyond it, only up to twice the number of
/// processes registered), so a hostile or odd rank cannot make the arrays huge.
const DENSE_MIN: usize = 1024;

const KIND_WORD: u8 = 0;
const KIND_TEXT: u8 = 1;

/// A value's 32-bit column form, if it has one.
fn to_word(v: &Value) -> Option<(u16, u32)> {
    Some(match *v {
        Value::Bool(b) => (sys::PMIX_BOOL, u32::from(b)),
        Value::Uint8(x) => (sys::PMIX_UINT8, u32::from(x)),
        Value::Uint16(x) => (sys::PMIX_UINT16, u32::from(x)),
        Value::Uint32(x) => (sys::PMIX_UINT32, x),
        Value::Uint(x) => (sys::PMIX_UINT, x),
        Value::Int(x) => (sys::PMIX_INT, x as u32),
        Value::Int32(x) => (sys::PMIX_INT32, x as u32),
        Value::Int16(x) => (sys::PMIX_INT16, u32::from(x as u16)),
        Value::Pid(x) => (sys::PMIX_PID, x as u32),
        Value::Rank(x) => (sys::PMIX_PROC_RANK, x),
        Value::Status(x) => (sys::PMIX_STATUS, x as u32),
        _ => return None,
    })
}

/// The value a column word stands for (the inverse of [`to_word`]).
fn from_word(dtype: u16, w: u32) -> Option<Value> {
    Some(match dtype {
        sys::PMIX_BOOL => Value::Bool(w != 0),
        sys::PMIX_UINT8 => Value::Uint8(u8::try_from(w).ok()?),
        sys::PMIX_UINT16 => Value::Uint16(u16::try_from(w).ok()?),
        sys::PMIX_UINT32 => Value::Uint32(w),
        sys::PMIX_UINT => Value::Uint(w),
        sys::PMIX_INT => Value::Int(w as i32),
        sys::PMIX_INT32 => Value::Int32(w as i32),
        sys::PMIX_INT16 => Value::Int16(u16::try_from(w).ok()? as i16),
        sys::PMIX_PID => Value::Pid(w as i32),
        sys::PMIX_PROC_RANK => Value::Rank(w),
        sys::PMIX_STATUS => Value::Status(w as i32),
        _ => return None,
    })
}

fn rd32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn rd16(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

fn bad(what: &str) -> Error {
    Error::unpack(format!("process table: {}", what))
}

/// The bytes of an image: owned, or a read-only mapping of a node's shared segment.
#[derive(Debug, Clone)]
enum Image {
    Owned(Arc<[u8]>),
    Mapped(Arc<crate::sys::Mapping>),
}

impl Default for Image {
    fn default() -> Self {
        Image::Owned(Arc::from(Vec::new()))
    }
}

impl Image {
    fn bytes(&self) -> &[u8] {
        match self {
            Image::Owned(b) => b,
            Image::Mapped(m) => m.bytes(),
        }
    }
}

/// Where an image is published for the clients of this node.
#[derive(Debug, Clone)]
pub enum Segment {
    /// Server side: the sealed memory file the server wrote once ([`ProcTable::publish`]);
    /// a Welcome hands it to each local client over its socket (`SCM_RIGHTS`).
    Sealed {
        /// The memory file.
        fd: Arc<std::os::fd::OwnedFd>,
        /// Its length in bytes (the image's).
        len: u32,
    },
    /// Client side: the Welcome named the descriptor it carried at this index.
    Passed {
        /// Index among the descriptors that came with the Welcome.
        index: u32,
        /// The image's length in bytes.
        len: u32,
    },
}

impl PartialEq for Segment {
    fn eq(&self, other: &Self) -> bool {
        use std::os::fd::AsRawFd;
        match (self, other) {
            (Segment::Sealed { fd: a, len: l }, Segment::Sealed { fd: b, len: m }) => {
                a.as_raw_fd() == b.as_raw_fd() && l == m
            }
            (Segment::Passed { index: a, len: l }, Segment::Passed { index: b, len: m }) => {
                a == b && l == m
            }
            _ => false,
        }
    }
}

/// One column's place in the image.
#[derive(Debug, Clone, PartialEq)]
struct ColDesc {
    key: Key,
    dtype: u16,
    kind: u8,
    present: usize,
    data: usize,
}

/// Where things are in an image (checked once, when the image is made or received).
#[derive(Debug, Clone, PartialEq, Default)]
struct Layout {
    nranks: usize,
    nnodes: usize,
    has_map: bool,
    strings: usize,
    strings_len: usize,
    nodes: usize,
    node_of: usize,
    lrank: usize,
    cols: Vec<ColDesc>,
    /// For each of [`MAP_KEYS`], the index in `cols` of a host column for it, if any (so
    /// a Get of a key the map answers does not scan the columns).
    map_cols: [Option<usize>; 4],
    /// Bit i: [`IMPLIED_KEYS`]`[i]` at job level is what the map says of `implied_node`
    /// as the image says (a retraction since is in `ProcTable::cleared`).
    implied: u16,
    implied_node: u32,
}

/// The job-level keys an image can say the process map implies (bit i of its flags).
pub const IMPLIED_KEYS: [&str; 2] = [keys::LOCAL_PEERS, keys::LOCAL_PROCS];

/// The keys the process map answers, in the order `infos` lists them.
const MAP_KEYS: [&str; 4] = [
    keys::HOSTNAME,
    keys::NODEID,
    keys::LOCAL_RANK,
    keys::NODE_RANK,
];

/// `key`'s index in [`MAP_KEYS`].
#[inline]
fn map_key(key: &str) -> Option<usize> {
    MAP_KEYS.iter().position(|k| super::same_key(k, key))
}

/// `off + n * size` lies inside `len` bytes.
fn fits(off: usize, n: usize, size: usize, len: usize) -> bool {
    n.checked_mul(size)
        .and_then(|s| s.checked_add(off))
        .is_some_and(|end| end <= len)
}

impl Layout {
    /// Check an image and learn where its parts are. Every offset and count is checked
    /// against the image's length, so reads later can only miss, never overrun.
    fn parse(b: &[u8]) -> Result<Layout> {
        if b.is_empty() {
            return Ok(Layout::default());
        }
        if b.len() < HEADER || b.get(..4) != Some(&MAGIC[..]) {
            return Err(bad("not an image (bad magic or short header)"));
        }
        if rd16(b, 4) != Some(VERSION) {
            return Err(bad("unknown version"));
        }
        let f = |at: usize| rd32(b, at).map(|v| v as usize).ok_or_else(|| bad("short"));
        let (nranks, nnodes, ncols, has_map) = (f(8)?, f(12)?, f(16)?, f(20)?);
        let (strings, strings_len, nodes, node_of, lrank, cols) =
            (f(24)?, f(28)?, f(32)?, f(36)?, f(40)?, f(44)?);
        let implied = rd16(b, 6).ok_or_else(|| bad("short"))?;
        let implied_node = rd32(b, 52).ok_or_else(|| bad("short"))?;
        if f(48)? != b.len() {
            return Err(bad("length does not match the header"));
        }
        let len = b.len();
        let has_map = match has_map {
            0 => false,
            1 => true,
            _ => return Err(bad("bad map flag")),
        };
        if implied >> IMPLIED_KEYS.len() != 0
            || (implied != 0 && (!has_map || implied_node as usize >= nnodes))
        {
            return Err(bad("bad implied-keys flags"));
        }
        if !fits(strings, strings_len, 1, len)
            || !fits(nodes, nnodes, 8, len)
            || !fits(cols, ncols, DESC, len)
            || (has_map && (!fits(node_of, nranks, 4, len) || !fits(lrank, nranks, 2, len)))
        {
            return Err(bad("a region lies outside the image"));
        }
        let mut lay = Layout {
            nranks,
            nnodes,
            has_map,
            strings,
            strings_len,
            nodes,
            node_of,
            lrank,
            cols: Vec::new(),
            map_cols: [None; 4],
            implied,
            implied_node,
        };
        for i in 0..nnodes {
            let at = nodes + i * 8;
            let (o, n) = (f(at)?, f(at + 4)?);
            if !fits(o, n, 1, strings_len) {
                return Err(bad("a host name lies outside the string area"));
            }
        }
        for i in 0..ncols {
            let at = cols + i * DESC;
            let (ko, kl) = (f(at)?, f(at + 4)?);
            let key = lay
                .text_in(b, ko, kl)
                .and_then(|s| std::str::from_utf8(s).ok())
                .ok_or_else(|| bad("a column key lies outside the string area"))?;
            let key = Key::new(key)?;
            let dtype = rd16(b, at + 8).ok_or_else(|| bad("short"))?;
            let kind = b.get(at + 10).copied().ok_or_else(|| bad("short"))?;
            let (present, data) = (f(at + 12)?, f(at + 16)?);
            let width = match kind {
                KIND_WORD if from_word(dtype, 0).is_some() => 4,
                KIND_TEXT if dtype == sys::PMIX_STRING => 8,
                _ => return Err(bad("unknown column type")),
            };
            if !fits(present, nranks.div_ceil(8), 1, len) || !fits(data, nranks, width, len) {
                return Err(bad("a column lies outside the image"));
            }
            if let Some(m) = map_key(key.as_str()).and_then(|m| lay.map_cols.get_mut(m)) {
                m.get_or_insert(i);
            }
            lay.cols.push(ColDesc {
                key,
                dtype,
                kind,
                present,
                data,
            });
        }
        Ok(lay)
    }

    /// `len` bytes at `off` of the string area of image `b`, if they are inside it.
    fn text_in<'a>(&self, b: &'a [u8], off: usize, len: usize) -> Option<&'a [u8]> {
        if !fits(off, len, 1, self.strings_len) {
            return None;
        }
        b.get(self.strings + off..self.strings + off + len)
    }
}

/// Per-process data of one namespace: the image (process map and columns) and the
/// per-rank info lists for everything else.
#[derive(Debug, Clone, Default)]
pub struct ProcTable {
    image: Image,
    lay: Layout,
    lists: BTreeMap<Rank, Vec<Info>>,
    /// Server: where the image is published for local clients. Client: the segment the
    /// Welcome named, while it is not mapped yet ([`ProcTable::attach`]).
    seg: Option<Segment>,
    /// Flags of the image's implied keys that no longer hold (bit i: [`IMPLIED_KEYS`]`[i]`):
    /// the host retracted the key after the image was sealed. Carried in the wire form
    /// (after the lists), so a client welcomed after the retraction does not build the
    /// key from the map.
    cleared: u16,
}

impl PartialEq for ProcTable {
    fn eq(&self, other: &Self) -> bool {
        self.image.bytes() == other.image.bytes()
            && self.lists == other.lists
            && self.seg == other.seg
            && self.cleared == other.cleared
    }
}

impl ProcTable {
    /// A table from its image and lists.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_FAILURE` (or read-past-end) if the image is malformed.
    pub fn from_parts(image: Vec<u8>, lists: BTreeMap<Rank, Vec<Info>>) -> Result<ProcTable> {
        let lay = Layout::parse(&image)?;
        Ok(ProcTable {
            image: Image::Owned(image.into()),
            lay,
            lists,
            seg: None,
            cleared: 0,
        })
    }

    /// Publish the image as a sealed memory file ([`crate::sys::sealed_memfd`]) for the
    /// clients of this node to map, and remember it: Welcomes then hand over the file
    /// instead of carrying the image ([`ProcTable::encode_local`]). Nothing happens for
    /// an empty image.
    ///
    /// # Errors
    /// The memory file's creation, write or seal error (the table is unchanged then;
    /// `ENOSYS` on a kernel without `memfd_create`).
    pub fn publish(&mut self, name: &str) -> std::io::Result<()> {
        let bytes = self.image.bytes();
        let len = u32::try_from(bytes.len())
            .map_err(|_| std::io::Error::other("image larger than 4 GiB"))?;
        if len == 0 {
            return Ok(());
        }
        let fd = crate::sys::sealed_memfd(name, bytes)?;
        self.seg = Some(Segment::Sealed {
            fd: Arc::new(fd),
            len,
        });
        Ok(())
    }

    /// The published segment (server side), or the one still to be mapped (client side).
    pub fn segment(&self) -> Option<&Segment> {
        self.seg.as_ref()
    }

    /// True when the Welcome named a segment that is not mapped yet.
    pub fn needs_attach(&self) -> bool {
        matches!(self.seg, Some(Segment::Passed { .. })) && self.image.bytes().is_empty()
    }

    /// Map the segment the Welcome named, among the descriptors `fds` that came with it,
    /// and read the image in place. The descriptor must be sealed against writes and
    /// size changes ([`crate::sys::is_sealed`]) and hold exactly the announced length.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` when no such descriptor came, it is not sealed, its size
    /// differs, it cannot be mapped or does not hold a well-formed image; the table is
    /// unchanged then.
    pub fn attach(&mut self, fds: &[std::os::fd::OwnedFd]) -> Result<()> {
        let Some(Segment::Passed { index, len }) = self.seg.clone().filter(|_| self.needs_attach())
        else {
            return Ok(());
        };
        let fail = |what: String| {
            Error::new(
                sys::PMIX_ERR_NOT_AVAILABLE,
                format!("job-data segment (descriptor {}): {}", index, what),
            )
        };
        let fd = fds
            .get(index as usize)
            .ok_or_else(|| fail(format!("not received ({} came)", fds.len())))?;
        if !crate::sys::is_sealed(fd) {
            return Err(fail("not a sealed memory file".into()));
        }
        let f = std::fs::File::from(fd.try_clone().map_err(|e| fail(e.to_string()))?);
        let meta = f.metadata().map_err(|e| fail(e.to_string()))?;
        if !meta.is_file() || meta.len() != u64::from(len) {
            return Err(fail(format!("{} bytes, {} announced", meta.len(), len)));
        }
        let m = crate::sys::Mapping::map_file(&f, len as usize).map_err(|e| fail(e.to_string()))?;
        let lay = Layout::parse(m.bytes()).map_err(|e| fail(e.to_string()))?;
        self.image = Image::Mapped(Arc::new(m));
        self.lay = lay;
        Ok(())
    }

    /// Encode for a client on this node: like the wire form, but naming the published
    /// segment instead of carrying the image when there is one, and there is room for
    /// its descriptor in `fds` (at most [`crate::sys::MAX_FDS`]), which travel with the
    /// frame.
    pub fn encode_local(&self, out: &mut Vec<u8>, fds: &mut Vec<Arc<std::os::fd::OwnedFd>>) {
        match &self.seg {
            Some(Segment::Sealed { fd, len })
                if !self.image.bytes().is_empty() && fds.len() < crate::sys::MAX_FDS =>
            {
                FORM_SEGMENT.encode(out);
                (fds.len() as u32).encode(out);
                len.encode(out);
                fds.push(fd.clone());
                self.encode_lists(out);
            }
            _ => self.encode(out),
        }
    }

    /// The per-rank lists, then the cleared implied flags.
    fn encode_lists(&self, out: &mut Vec<u8>) {
        (self.lists.len() as u32).encode(out);
        for (r, l) in &self.lists {
            r.encode(out);
            l.encode(out);
        }
        self.cleared.encode(out);
    }

    /// The node whose process list the map gives for the job-level key `key`, when the
    /// image says the host's value of it is exactly that ([`IMPLIED_KEYS`]).
    pub fn implied_node(&self, key: &str) -> Option<u32> {
        let bit = IMPLIED_KEYS.iter().position(|k| super::same_key(k, key))?;
        (self.lay.implied & !self.cleared & (1 << bit) != 0).then_some(self.lay.implied_node)
    }

    /// Forget that the map implies `key` (the host retracted the key). The image may be
    /// sealed and mapped by clients already: the flag is cleared beside it, and the wire
    /// form carries that to clients welcomed later.
    pub fn clear_implied(&mut self, key: &str) {
        if let Some(bit) = IMPLIED_KEYS.iter().position(|k| super::same_key(k, key)) {
            self.cleared |= 1 << bit;
        }
    }

    /// This table with its image saying that the job-level keys of `mask` (bit i:
    /// [`IMPLIED_KEYS`]`[i]`) are what the map says of node `node`. Unchanged when the
    /// image has no map, the node is not in it, or the image is already published.
    pub fn with_implied(&self, node: u32, mask: u16) -> ProcTable {
        if !self.lay.has_map || node as usize >= self.lay.nnodes || self.seg.is_some() {
            return self.clone();
        }
        let mut bytes = self.image.bytes().to_vec();
        if let Some(s) = bytes.get_mut(6..8) {
            s.copy_from_slice(&(mask & ((1 << IMPLIED_KEYS.len()) - 1)).to_le_bytes());
        }
        put32(&mut bytes, 52, node as usize);
        ProcTable::from_parts(bytes, self.lists.clone()).unwrap_or_else(|e| {
            log::error!("process table: cannot mark implied keys: {}", e);
            self.clone()
        })
    }

    /// The image's bytes (empty when there is no map and no column).
    pub fn image(&self) -> &[u8] {
        self.image.bytes()
    }

    /// The per-rank lists (data that has no column).
    pub fn lists(&self) -> &BTreeMap<Rank, Vec<Info>> {
        &self.lists
    }

    /// Add infos to `rank`'s list (they are not moved into columns).
    pub fn extend_list(&mut self, rank: Rank, infos: impl IntoIterator<Item = Info>) {
        self.lists.entry(rank).or_default().extend(infos);
    }

    /// True when nothing is known about any process.
    pub fn is_empty(&self) -> bool {
        self.lists.is_empty() && self.lay.nranks == 0
    }

    fn b(&self) -> &[u8] {
        self.image.bytes()
    }

    fn present(&self, c: &ColDesc, r: usize) -> bool {
        r < self.lay.nranks
            && self
                .b()
                .get(c.present + r / 8)
                .is_some_and(|byte| byte & (1 << (r % 8)) != 0)
    }

    fn col_value(&self, c: &ColDesc, r: usize) -> Option<Value> {
        if !self.present(c, r) {
            return None;
        }
        if c.kind == KIND_TEXT {
            let at = c.data + r * 8;
            let (o, n) = (
                rd32(self.b(), at)? as usize,
                rd32(self.b(), at + 4)? as usize,
            );
            let s = self.lay.text_in(self.b(), o, n)?;
            return Some(Value::String(Some(s.to_vec())));
        }
        from_word(c.dtype, rd32(self.b(), c.data + r * 4)?)
    }

    /// The map's node index of `rank`, if the map places it.
    fn node_of(&self, r: usize) -> Option<u32> {
        if !self.lay.has_map || r >= self.lay.nranks {
            return None;
        }
        rd32(self.b(), self.lay.node_of + r * 4).filter(|&n| n != NO_NODE)
    }

    fn host_name(&self, node: u32) -> Option<&[u8]> {
        let at = self
            .lay
            .nodes
            .checked_add((node as usize).checked_mul(8)?)?;
        if node as usize >= self.lay.nnodes {
            return None;
        }
        let (o, n) = (
            rd32(self.b(), at)? as usize,
            rd32(self.b(), at + 4)? as usize,
        );
        self.lay.text_in(self.b(), o, n)
    }

    /// What the process map says about `rank` for `key`.
    /// `m`: the key's index in [`MAP_KEYS`].
    fn map_value(&self, r: usize, m: usize) -> Option<Value> {
        let node = self.node_of(r)?;
        match m {
            0 => Some(Value::String(Some(self.host_name(node)?.to_vec()))),
            1 => Some(Value::Uint32(node)),
            2 | 3 => Some(Value::Uint16(rd16(self.b(), self.lay.lrank + r * 2)?)),
            _ => None,
        }
    }

    /// The ranks the process map places on one node, in rank order: the node named
    /// `host`, or else the one with index `id` (`None`: no map, or no such node).
    pub fn map_node_ranks(&self, host: Option<&str>, id: Option<u32>) -> Option<Vec<Rank>> {
        if !self.lay.has_map {
            return None;
        }
        let by_name = host.and_then(|h| {
            (0..self.lay.nnodes as u32).find(|&n| self.host_name(n) == Some(h.as_bytes()))
        });
        let node = by_name.or(id.filter(|&i| (i as usize) < self.lay.nnodes))?;
        Some(
            (0..self.lay.nranks)
                .filter(|&r| self.node_of(r) == Some(node))
                .map(|r| r as Rank)
                .collect(),
        )
    }

    /// The value of `key` for process `rank`: a host-given column value, then the rank's
    /// list, then what the process map implies.
    pub fn get(&self, rank: Rank, key: &str) -> Option<Cow<'_, Value>> {
        let r = rank as usize;
        let mk = map_key(key);
        if r < self.lay.nranks {
            let col = match mk {
                Some(m) => self
                    .lay
                    .map_cols
                    .get(m)
                    .copied()
                    .flatten()
                    .and_then(|i| self.lay.cols.get(i)),
                None => self.lay.cols.iter().find(|c| c.key.as_str() == key),
            };
            if let Some(c) = col {
                if let Some(v) = self.col_value(c, r) {
                    return Some(Cow::Owned(v));
                }
            }
        }
        if let Some(v) = self.lists.get(&rank).and_then(|l| find(l, key)) {
            return Some(Cow::Borrowed(v));
        }
        mk.and_then(|m| self.map_value(r, m)).map(Cow::Owned)
    }

    /// All keys of `rank`: its list, its column values, then the map's values for keys
    /// the host did not give.
    pub fn infos(&self, rank: Rank) -> Vec<Info> {
        let r = rank as usize;
        let mut out: Vec<Info> = self.lists.get(&rank).cloned().unwrap_or_default();
        for c in &self.lay.cols {
            if let Some(v) = self.col_value(c, r) {
                out.push(Info {
                    key: c.key.clone(),
                    flags: 0,
                    value: v,
                });
            }
        }
        for (m, k) in MAP_KEYS.into_iter().enumerate() {
            if find(&out, k).is_some() {
                continue;
            }
            if let (Some(v), Ok(key)) = (self.map_value(r, m), Key::new(k)) {
                out.push(Info {
                    key,
                    flags: 0,
                    value: v,
                });
            }
        }
        out
    }

    /// A builder holding this table's contents (to add the process map).
    fn to_builder(&self) -> ProcBuilder {
        let mut b = ProcBuilder::new(self.lay.nranks);
        b.lists = self.lists.clone();
        for c in &self.lay.cols {
            let idx = b.column(&c.key, c.dtype, c.kind);
            for r in 0..self.lay.nranks {
                if let (Some(v), Some(col)) = (self.col_value(c, r), b.cols.get_mut(idx)) {
                    col.set(r, &v, &mut b.texts);
                }
            }
        }
        b
    }

    /// This table with the process map added: `hosts` in node-id order and each node's
    /// ranks (the index in its list is the local rank). Values the host gave for a rank
    /// keep precedence.
    pub fn with_map(&self, hosts: &[String], ranks: &[Vec<Rank>]) -> ProcTable {
        let mut b = self.to_builder();
        let total: usize = ranks.iter().map(Vec::len).sum();
        let limit = total.saturating_mul(2).max(DENSE_MIN);
        let mut map = MapBuild {
            hosts: hosts.to_vec(),
            node_of: Vec::new(),
            lrank: Vec::new(),
        };
        for (nodeid, list) in ranks.iter().enumerate() {
            let host = hosts.get(nodeid).map(String::as_str).unwrap_or_default();
            for (lrank, &r) in list.iter().enumerate() {
                let (ri, lr) = (r as usize, lrank as u16);
                if ri < limit && nodeid < NO_NODE as usize {
                    if map.node_of.len() <= ri {
                        map.node_of.resize(ri + 1, NO_NODE);
                        map.lrank.resize(ri + 1, 0);
                    }
                    if let (Some(n), Some(l)) = (map.node_of.get_mut(ri), map.lrank.get_mut(ri)) {
                        *n = nodeid as u32;
                        *l = lr;
                    }
                } else {
                    // Far outside the job: kept as list entries, like any other value.
                    let in_col: Vec<bool> = [
                        keys::HOSTNAME,
                        keys::NODEID,
                        keys::LOCAL_RANK,
                        keys::NODE_RANK,
                    ]
                    .iter()
                    .map(|k| b.col_for(k, ri).is_some())
                    .collect();
                    let list = b.lists.entry(r).or_default();
                    for ((k, v), in_col) in [
                        (keys::HOSTNAME, Value::string(host)),
                        (keys::NODEID, Value::Uint32(nodeid as u32)),
                        (keys::LOCAL_RANK, Value::Uint16(lr)),
                        (keys::NODE_RANK, Value::Uint16(lr)),
                    ]
                    .into_iter()
                    .zip(in_col)
                    {
                        if find(list, k).is_none() && !in_col {
                            if let Ok(key) = Key::new(k) {
                                list.push(Info {
                                    key,
                                    flags: 0,
                                    value: v,
                                });
                            }
                        }
                    }
                }
            }
        }
        b.map = Some(map);
        b.finish()
    }
}

/// The process map while a table is built.
struct MapBuild {
    hosts: Vec<String>,
    node_of: Vec<u32>,
    lrank: Vec<u16>,
}

/// One column while a table is built.
struct ColBuild {
    key: Key,
    dtype: u16,
    kind: u8,
    present: Vec<u8>,
    /// Words (one per rank) or text spans (two per rank: offset and length in `texts`).
    data: Vec<u32>,
}

impl ColBuild {
    fn has(&self, r: usize) -> bool {
        self.present
            .get(r / 8)
            .is_some_and(|b| b & (1 << (r % 8)) != 0)
    }

    /// Store `v` for rank `r`; false if it does not fit this column.
    fn set(&mut self, r: usize, v: &Value, texts: &mut Vec<u8>) -> bool {
        let per = if self.kind == KIND_TEXT { 2 } else { 1 };
        let words: [u32; 2] = match (self.kind, v) {
            (KIND_TEXT, Value::String(Some(s))) => {
                let (Ok(off), Ok(len)) = (u32::try_from(texts.len()), u32::try_from(s.len()))
                else {
                    return false;
                };
                if texts.len().saturating_add(s.len()) > u32::MAX as usize / 2 {
                    return false;
                }
                texts.extend_from_slice(s);
                [off, len]
            }
            (KIND_WORD, v) => match to_word(v) {
                Some((t, w)) if t == self.dtype => [w, 0],
                _ => return false,
            },
            _ => return false,
        };
        if self.present.len() <= r / 8 {
            self.present.resize(r / 8 + 1, 0);
        }
        if self.data.len() < (r + 1) * per {
            self.data.resize((r + 1) * per, 0);
        }
        if let Some(b) = self.present.get_mut(r / 8) {
            *b |= 1 << (r % 8);
        }
        for (i, w) in words.iter().take(per).enumerate() {
            if let Some(d) = self.data.get_mut(r * per + i) {
                *d = *w;
            }
        }
        true
    }
}

/// Collects per-process values, then writes the image ([`ProcBuilder::finish`]).
pub struct ProcBuilder {
    limit: usize,
    cols: Vec<ColBuild>,
    texts: Vec<u8>,
    lists: BTreeMap<Rank, Vec<Info>>,
    map: Option<MapBuild>,
}

impl ProcBuilder {
    /// A builder expecting about `nprocs` processes (ranks much beyond that go to lists).
    pub fn new(nprocs: usize) -> ProcBuilder {
        ProcBuilder {
            limit: nprocs.saturating_mul(2).max(DENSE_MIN),
            cols: Vec::new(),
            texts: Vec::new(),
            lists: BTreeMap::new(),
            map: None,
        }
    }

    fn column(&mut self, key: &Key, dtype: u16, kind: u8) -> usize {
        match self.cols.iter().position(|c| &c.key == key) {
            Some(i) => i,
            None => {
                self.cols.push(ColBuild {
                    key: key.clone(),
                    dtype,
                    kind,
                    present: Vec::new(),
                    data: Vec::new(),
                });
                self.cols.len() - 1
            }
        }
    }

    fn col_for(&self, key: &str, r: usize) -> Option<&ColBuild> {
        self.cols
            .iter()
            .find(|c| c.key.as_str() == key)
            .filter(|c| c.has(r))
    }

    /// Add one host-given info for `rank` (`nspace` names the job in log lines).
    pub fn add(&mut self, rank: Rank, info: Info, nspace: &Nspace) {
        let r = rank as usize;
        let key = info.key.as_str();
        let known = self.col_for(key, r).is_some()
            || self
                .lists
                .get(&rank)
                .is_some_and(|l| find(l, key).is_some());
        let shape = match &info.value {
            Value::String(Some(_)) => Some((sys::PMIX_STRING, KIND_TEXT)),
            v => to_word(v).map(|(t, _)| (t, KIND_WORD)),
        };
        if !known && info.flags == 0 && r < self.limit && key != super::qualified::CONTAINER {
            if let Some((dtype, kind)) = shape {
                let fits_col = self
                    .cols
                    .iter()
                    .find(|c| c.key.as_str() == key)
                    .is_none_or(|c| c.dtype == dtype && c.kind == kind);
                if fits_col {
                    let i = self.column(&info.key, dtype, kind);
                    if let Some(c) = self.cols.get_mut(i) {
                        if c.set(r, &info.value, &mut self.texts) {
                            return;
                        }
                    }
                }
            }
        }
        add_info(self.lists.entry(rank).or_default(), info, nspace);
    }

    /// The number of ranks the image covers: the longest column or process map.
    fn nranks(&self) -> usize {
        self.cols
            .iter()
            .map(|c| c.data.len() / if c.kind == KIND_TEXT { 2 } else { 1 })
            .chain(self.map.iter().map(|m| m.node_of.len()))
            .max()
            .unwrap_or(0)
    }

    /// Write the image.
    pub fn finish(self) -> ProcTable {
        let nranks = self.nranks();
        let cols: Vec<&ColBuild> = self.cols.iter().filter(|c| !c.present.is_empty()).collect();
        if nranks == 0 && self.map.as_ref().is_none_or(|m| m.hosts.is_empty()) {
            return ProcTable {
                lists: self.lists,
                ..Default::default()
            };
        }
        // The string area: texts, then host names, then keys.
        let mut strings = self.texts;
        let spans = |s: &[u8], strings: &mut Vec<u8>| {
            let at = strings.len() as u32;
            strings.extend_from_slice(s);
            (at, s.len() as u32)
        };
        let hosts: Vec<(u32, u32)> = self
            .map
            .iter()
            .flat_map(|m| m.hosts.iter())
            .map(|h| spans(h.as_bytes(), &mut strings))
            .collect();
        let keyspans: Vec<(u32, u32)> = cols
            .iter()
            .map(|c| spans(c.key.as_str().as_bytes(), &mut strings))
            .collect();
        let mut out = vec![0u8; HEADER];
        // Node table.
        let nodes_off = out.len();
        for (o, n) in &hosts {
            out.extend_from_slice(&o.to_le_bytes());
            out.extend_from_slice(&n.to_le_bytes());
        }
        // Process map.
        let (node_of_off, lrank_off) = match &self.map {
            Some(m) => write_map(&mut out, m, nranks),
            None => (0, 0),
        };
        // Columns: descriptors, then each column's bitmap and data.
        let cols_off = write_columns(&mut out, &cols, &keyspans, nranks);
        let strings_off = out.len();
        out.extend_from_slice(&strings);
        pad4(&mut out);
        let total = out.len();
        if let Some(s) = out.get_mut(0..8) {
            s.copy_from_slice(&[MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3], 1, 0, 0, 0]);
        }
        for (at, v) in [
            (8, nranks),
            (12, hosts.len()),
            (16, cols.len()),
            (20, usize::from(self.map.is_some())),
            (24, strings_off),
            (28, strings.len()),
            (32, nodes_off),
            (36, node_of_off),
            (40, lrank_off),
            (44, cols_off),
            (48, total),
        ] {
            put32(&mut out, at, v);
        }
        match ProcTable::from_parts(out, self.lists) {
            Ok(t) => t,
            Err(e) => {
                // Only reachable through a bug in the writer above.
                log::error!(
                    "process table: the image just written does not parse: {}",
                    e
                );
                ProcTable::default()
            }
        }
    }
}

/// Pad `v` with zeros to a multiple of 4 bytes.
fn pad4(v: &mut Vec<u8>) {
    while !v.len().is_multiple_of(4) {
        v.push(0);
    }
}

/// Write `v` as a little-endian `u32` at `at` of `out` (nothing if out of range).
fn put32(out: &mut [u8], at: usize, v: usize) {
    if let Some(s) = out.get_mut(at..at + 4) {
        s.copy_from_slice(&(v as u32).to_le_bytes());
    }
}

/// Append the process map (node of each rank, then local rank of each rank) to the image;
/// the offsets of the two arrays.
fn write_map(out: &mut Vec<u8>, m: &MapBuild, nranks: usize) -> (usize, usize) {
    let node_of_off = out.len();
    for r in 0..nranks {
        let n = m.node_of.get(r).copied().unwrap_or(NO_NODE);
        out.extend_from_slice(&n.to_le_bytes());
    }
    let lrank_off = out.len();
    for r in 0..nranks {
        out.extend_from_slice(&m.lrank.get(r).copied().unwrap_or(0).to_le_bytes());
    }
    pad4(out);
    (node_of_off, lrank_off)
}

/// Append the column descriptors, then each column's bitmap and data, to the image
/// (`keyspans`: each column's key in the string area); the descriptors' offset.
fn write_columns(
    out: &mut Vec<u8>,
    cols: &[&ColBuild],
    keyspans: &[(u32, u32)],
    nranks: usize,
) -> usize {
    let cols_off = out.len();
    out.resize(cols_off + cols.len() * DESC, 0);
    for (i, (c, (ko, kl))) in cols.iter().zip(keyspans).enumerate() {
        let present_off = out.len();
        for byte in 0..nranks.div_ceil(8) {
            out.push(c.present.get(byte).copied().unwrap_or(0));
        }
        pad4(out);
        let data_off = out.len();
        let per = if c.kind == KIND_TEXT { 2 } else { 1 };
        for w in 0..nranks * per {
            out.extend_from_slice(&c.data.get(w).copied().unwrap_or(0).to_le_bytes());
        }
        let at = cols_off + i * DESC;
        put32(out, at, *ko as usize);
        put32(out, at + 4, *kl as usize);
        if let Some(s) = out.get_mut(at + 8..at + 12) {
            let d = c.dtype.to_le_bytes();
            s.copy_from_slice(&[d[0], d[1], c.kind, 0]);
        }
        put32(out, at + 12, present_off);
        put32(out, at + 16, data_off);
    }
    cols_off
}

/// Wire forms of a table: the image inline, or this node's segment (a descriptor passed
/// with the frame).
const FORM_INLINE: u8 = 0;
const FORM_SEGMENT: u8 = 1;

/// `u8 form` (0: `u32` length and the image; 1: `u32` index of the segment's descriptor
/// among those passed with the frame, and its `u32` length), then
/// `u32 n` and n × (rank, infos). The plain encoding is always inline; only a Welcome to a
/// client on this node names the segment ([`ProcTable::encode_local`]).
impl Wire for ProcTable {
    fn encode(&self, out: &mut Vec<u8>) {
        FORM_INLINE.encode(out);
        (self.image.bytes().len() as u32).encode(out);
        out.extend_from_slice(self.image.bytes());
        self.encode_lists(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let (image, seg) = match u8::decode(d)? {
            FORM_INLINE => {
                let n = d.count(1)?;
                (d.take(n)?.to_vec(), None)
            }
            FORM_SEGMENT => {
                let index = u32::decode(d)?;
                let len = u32::decode(d)?;
                (Vec::new(), Some(Segment::Passed { index, len }))
            }
            f => return Err(Error::unpack(format!("unknown process table form {}", f))),
        };
        let mut lists = BTreeMap::new();
        let k = d.count(8)?;
        for _ in 0..k {
            let r = Rank::decode(d)?;
            let l = Vec::<Info>::decode(d)?;
            lists.insert(r, l);
        }
        let cleared = u16::decode(d)?;
        let mut t = ProcTable::from_parts(image, lists)?;
        t.seg = seg;
        t.cleared = cleared;
        Ok(t)
    }
}

#[cfg(test)]
mod tests;
