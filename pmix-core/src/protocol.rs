//! The client↔server protocol and the blobs servers exchange through their hosts, as a
//! sans-I/O codec: bytes in, messages out. Nothing here touches a socket, so all of it
//! can be unit-tested and fuzzed.
//!
//! # Frames
//! Every message travels as one frame: a `u32` little-endian body length, then the body.
//! A length above [`MAX_FRAME`] is rejected before anything is allocated; the reactor then
//! closes that one connection.
//!
//! # Conversation
//! 1. Client → server: [`Hello`] (magic, protocol [`VERSION`], nspace, rank, pid, uid, gid,
//!    and whether it is a client or a tool, see [`PeerKind`]).
//! 2. Server → client: [`Welcome`] — `Accepted` with the job data of the client's
//!    namespace, or `Refused` with a status and reason (then the server closes).
//! 3. Client → server: [`Request`]s, each with a tag; tag 0 asks for no reply (commit).
//! 4. Server → client: [`ServerMsg::Reply`] carrying the request's tag, or an unsolicited
//!    [`ServerMsg::Event`].
//!
//! All items inside bodies use the one codec ([`crate::codec::Wire`]).
//!
//! # Host blobs
//! A fence contribution or direct-modex answer handed to a host ([`encode_blob`]) is
//! self-delimiting (magic, version, flags, body length), so a host may concatenate the
//! blobs of several servers; [`decode_blobs`] reads such a concatenation and rejects the
//! whole of it if any part is malformed.

pub mod dynamic;
pub mod hostops;
pub mod iof;

use crate::codec::{decode_seq, encode_seq, Decoder, Wire};
use crate::error::{Error, Result};
use crate::store::{Entry, JobData, NodeData, ProcTable};
use crate::value::{Info, Key, Nspace, Pdata, ProcId, Rank, Value};
pub use dynamic::{ConnectData, DynReq, GroupOp, GroupReply, PeerData};
pub use iof::IofReq;
use pmix_sys as sys;

/// Protocol version spoken by this library (sent in [`Hello`]). 3 added I/O forwarding
/// ([`Req::Iof`], [`ServerMsg::Iof`]); 4 added tools ([`Hello::kind`], the identity in
/// [`Welcome::Accepted`]); 5 made job data compact (the per-process table of
/// `store::procs`, which a Welcome may name by its shared segment); 6 passes that segment
/// as a sealed memory file's descriptor with the Welcome instead of naming a file.
pub const VERSION: u32 = 6;
/// A client↔server wire protocol this library speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// Its name.
    pub name: &'static str,
    /// The version spoken.
    pub version: u32,
    /// The transport it runs over.
    pub transport: &'static str,
    /// One line about it.
    pub about: &'static str,
}

/// Every wire protocol this library speaks (`pmix_info` lists them): a second dialect
/// (say, OpenPMIx's own) is added here.
pub const DIALECTS: &[Dialect] = &[Dialect {
    name: "pmix-rs",
    version: VERSION,
    transport: "unix stream socket",
    about: "length-prefixed frames of the one codec; client and server must be pmix-rs \
            of the same protocol version",
}];

/// The largest frame body accepted (64 MiB).
pub const MAX_FRAME: usize = 64 << 20;
const HELLO_MAGIC: u32 = u32::from_le_bytes(*b"PMXR");
const BLOB_MAGIC: u32 = u32::from_le_bytes(*b"PMXB");
const BLOB_VERSION: u16 = 2;

/// Directive (an info key in our own `pmixrs.` namespace) that keeps fences over the same
/// participants apart: the server matches a fence on its sorted participant list *and*
/// this string value, so two fences with different tags never complete each other.
/// `PMIx_Fence` itself carries no such identity (OpenPMIx matches by participants only);
/// the CUDA communications object ([`crate::cuda`]) tags each operation with
/// `<object>.<communicator>.<sequence>`. A host that carries fences between servers
/// receives the tag among the fence's directives and must match on it too.
pub const FENCE_TAG: &str = "pmixrs.fence.tag";

/// Key under which an allgather contribution travels inside a host blob (one entry per
/// process, a byte object), so multi-server allgathers use the ordinary fence path of
/// any host that concatenates blobs.
pub const GATHER_KEY: &str = "pmixrs.gather";

/// Wire number of [`Req::Allgather`], far from the numbers of the core requests so that
/// requests added elsewhere do not collide with it.
const REQ_ALLGATHER: u8 = 64;
/// Wire number of [`Req::Iof`] (see [`REQ_ALLGATHER`]).
const REQ_IOF: u8 = 72;
/// Wire number of [`ServerMsg::Iof`].
const MSG_IOF: u8 = 4;
/// Wire number of [`ServerMsg::ForgetNode`].
const MSG_FORGET_NODE: u8 = 5;
/// Wire number of [`ReplyData::Gathered`] (see [`REQ_ALLGATHER`]).
const REPLY_GATHERED: u8 = 64;
/// Wire number of [`ReplyData::Collected`] (same reasoning).
const REPLY_COLLECTED: u8 = 65;

/// Largest collected data a collecting fence's reply carries (encoded). Beyond it the
/// reply carries none and clients fetch each peer's data on first access, as before: a
/// client's memory then does not grow with the job.
pub const COLLECTED_INLINE_MAX: usize = 256 * 1024;

/// Append `body` as one frame (length prefix + body) to `out`.
pub fn encode_frame_into(body: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
}

/// Reassembles frames from a byte stream.
#[derive(Debug)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    pos: usize,
    limit: usize,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::with_limit(MAX_FRAME)
    }
}

impl FrameDecoder {
    /// An empty decoder accepting frames of up to [`MAX_FRAME`] bytes.
    pub fn new() -> Self {
        Self::default()
    }
    /// An empty decoder accepting frames of up to `limit` bytes (at most [`MAX_FRAME`]).
    pub fn with_limit(limit: usize) -> Self {
        FrameDecoder {
            buf: Vec::new(),
            pos: 0,
            limit: limit.min(MAX_FRAME),
        }
    }
    /// Change the largest frame accepted from now on (at most [`MAX_FRAME`]); a server
    /// accepts only handshake-sized frames until the peer has identified itself.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit.min(MAX_FRAME);
    }
    /// Feed bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.pos > 0 && self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }
    /// True when some bytes of an unfinished frame are buffered.
    pub fn has_partial(&self) -> bool {
        self.pos < self.buf.len()
    }
    /// Take the bytes not consumed as frames yet (complete frames and the start of an
    /// unfinished one), leaving the decoder empty; the buffer's capacity is kept.
    pub fn take_rest(&mut self) -> Vec<u8> {
        let rest = self.buf.get(self.pos..).unwrap_or_default().to_vec();
        self.buf.clear();
        self.pos = 0;
        rest
    }
    /// The next complete frame body, if one has arrived.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a length above the decoder's limit ([`MAX_FRAME`] unless
    /// set lower; the stream is unusable). Nothing is allocated for the claimed length.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>> {
        let avail = self.buf.get(self.pos..).unwrap_or_default();
        let Some(hdr) = avail.get(..4) else {
            return Ok(None);
        };
        let mut l = [0u8; 4];
        l.copy_from_slice(hdr);
        let len = u32::from_le_bytes(l) as usize;
        if len > self.limit {
            return Err(Error::bad_param(format!(
                "frame of {} bytes exceeds the maximum of {}",
                len, self.limit
            )));
        }
        let Some(body) = avail.get(4..4 + len) else {
            return Ok(None);
        };
        let frame = body.to_vec();
        self.pos += 4 + len;
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        } else if self.pos > 1 << 20 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        Ok(Some(frame))
    }
}

/// Decode exactly one message from a frame body (trailing bytes are an error).
pub fn decode<T: Wire>(body: &[u8]) -> Result<T> {
    crate::codec::from_bytes(body)
}

/// Encode one message as a frame body.
pub fn encode<T: Wire>(msg: &T) -> Vec<u8> {
    crate::codec::to_bytes(msg)
}

/// The client's first frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Hello {
    /// Protocol version the client speaks.
    pub version: u32,
    /// Who the client says it is.
    pub proc_: ProcId,
    /// Its pid.
    pub pid: i32,
    /// Its effective uid (the server trusts `SO_PEERCRED`, not this).
    pub uid: u32,
    /// Its effective gid.
    pub gid: u32,
    /// What kind of peer it is.
    pub kind: PeerKind,
}

/// Who is knocking: a client the host registered, or a tool (`PMIx_tool_init`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PeerKind {
    /// A registered client; [`Hello::proc_`] is its identity.
    #[default]
    Client,
    /// A tool that chose its own identity ([`Hello::proc_`]).
    ToolNamed,
    /// A tool asking the server (its host) for an identity; [`Hello::proc_`] is only a
    /// placeholder.
    ToolAssign,
}

impl Wire for PeerKind {
    fn encode(&self, out: &mut Vec<u8>) {
        let b: u8 = match self {
            PeerKind::Client => 0,
            PeerKind::ToolNamed => 1,
            PeerKind::ToolAssign => 2,
        };
        b.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            0 => PeerKind::Client,
            1 => PeerKind::ToolNamed,
            2 => PeerKind::ToolAssign,
            t => return Err(Error::unpack(format!("unknown peer kind {}", t))),
        })
    }
}

impl Wire for Hello {
    fn encode(&self, out: &mut Vec<u8>) {
        HELLO_MAGIC.encode(out);
        self.version.encode(out);
        self.proc_.encode(out);
        self.pid.encode(out);
        self.uid.encode(out);
        self.gid.encode(out);
        self.kind.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        if u32::decode(d)? != HELLO_MAGIC {
            return Err(Error::unpack("not a pmix-rs handshake"));
        }
        Ok(Hello {
            version: u32::decode(d)?,
            proc_: ProcId::decode(d)?,
            pid: i32::decode(d)?,
            uid: u32::decode(d)?,
            gid: u32::decode(d)?,
            kind: PeerKind::decode(d)?,
        })
    }
}

/// The server's answer to [`Hello`].
#[derive(Debug, Clone, PartialEq)]
pub enum Welcome {
    /// Connection accepted: the server's id and the job data of the client's namespace.
    Accepted {
        /// The server's own id.
        server: ProcId,
        /// The peer's identity (a tool's may have been assigned by the host).
        you: ProcId,
        /// Job data (the client's namespace first).
        jobs: Vec<JobData>,
    },
    /// Connection refused (the server closes it after this frame).
    Refused {
        /// Why, as a status.
        status: i32,
        /// Why, as text.
        reason: String,
    },
}

impl Wire for Welcome {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Welcome::Accepted { server, you, jobs } => {
                0u8.encode(out);
                server.encode(out);
                you.encode(out);
                encode_seq(jobs, out);
            }
            Welcome::Refused { status, reason } => {
                1u8.encode(out);
                status.encode(out);
                reason.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            0 => Welcome::Accepted {
                server: ProcId::decode(d)?,
                you: ProcId::decode(d)?,
                jobs: decode_seq(d)?,
            },
            1 => Welcome::Refused {
                status: i32::decode(d)?,
                reason: String::decode(d)?,
            },
            t => return Err(Error::unpack(format!("unknown welcome tag {}", t))),
        })
    }
}

/// The frame body of `Welcome::Accepted { server, you, jobs }` encoded from borrowed job data:
/// the server sends every client of a namespace its job data, and copying it into an
/// owned `Welcome` first (then dropping it) was most of the handshake's cost.
///
/// A per-process table published as a sealed segment is named by the index of its
/// descriptor, which this adds to `fds`: they must travel with the frame (`SCM_RIGHTS`).
/// A client that does not receive them asks for inline copies (`Req::JobData`).
pub fn encode_welcome_accepted(
    server: &ProcId,
    you: &ProcId,
    jobs: &[&JobData],
    fds: &mut Vec<std::sync::Arc<std::os::fd::OwnedFd>>,
) -> Vec<u8> {
    let mut out = Vec::new();
    0u8.encode(&mut out);
    server.encode(&mut out);
    you.encode(&mut out);
    (jobs.len() as u32).encode(&mut out);
    for j in jobs {
        encode_job(j, &mut out, Some(&mut *fds));
    }
    out
}

/// A [`JobData`]'s encoding; `local`: for a client on this node, whose per-process table
/// may be handed over as its shared segment (a descriptor added there) instead of
/// carried inline.
fn encode_job(
    j: &JobData,
    out: &mut Vec<u8>,
    local: Option<&mut Vec<std::sync::Arc<std::os::fd::OwnedFd>>>,
) {
    j.nspace.encode(out);
    j.job.encode(out);
    (j.apps.len() as u32).encode(out);
    for (n, l) in &j.apps {
        n.encode(out);
        l.encode(out);
    }
    encode_seq(&j.nodes, out);
    if let Some(fds) = local {
        j.procs.encode_local(out, fds);
    } else {
        j.procs.encode(out);
    }
}

impl Wire for NodeData {
    fn encode(&self, out: &mut Vec<u8>) {
        self.id.encode(out);
        self.hostname.encode(out);
        self.info.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(NodeData {
            id: Option::decode(d)?,
            hostname: Option::decode(d)?,
            info: Vec::decode(d)?,
        })
    }
}

/// A rank with its infos (per-app and per-process sections of [`JobData`]).
struct Section(u32, Vec<Info>);

impl Wire for Section {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Section(u32::decode(d)?, Vec::decode(d)?))
    }
}

impl Wire for JobData {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_job(self, out, None);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let nspace = Nspace::decode(d)?;
        let job = Vec::decode(d)?;
        let apps = decode_seq::<Section>(d)?
            .into_iter()
            .map(|s| (s.0, s.1))
            .collect();
        let nodes = decode_seq(d)?;
        let procs = ProcTable::decode(d)?;
        Ok(JobData {
            nspace,
            job,
            apps,
            nodes,
            procs,
        })
    }
}

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
            offsets.push((self.out.len() - first) as u32);
            k.encode(&mut self.out);
            (v.len() as u32).encode(&mut self.out);
            self.out.extend_from_slice(v);
            if self.out.len() > self.cap {
                return false;
            }
        }
        let n = offsets.len() as u32;
        for o in offsets {
            o.encode(&mut self.out);
        }
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
            std::cmp::Ordering::Equal => return crate::codec::from_bytes::<Value>(v).map(Some),
        }
    }
    Ok(None)
}

/// The tag of an encoded [`ServerMsg::Reply`] body, without decoding it (`None`: not a
/// reply). See [`set_reply_tag`] for the layout.
pub fn reply_tag(body: &[u8]) -> Option<u32> {
    match body.get(..5) {
        Some([1, t @ ..]) => Some(u32::from_le_bytes([t[0], t[1], t[2], t[3]])),
        _ => None,
    }
}

/// Set the tag of an encoded [`ServerMsg::Reply`] body (byte 0 is the message kind, the
/// tag follows as a little-endian `u32`). False if `body` is not a reply.
pub fn set_reply_tag(body: &mut [u8], tag: u32) -> bool {
    match body.get_mut(..5) {
        Some([1, t @ ..]) => {
            t.copy_from_slice(&tag.to_le_bytes());
            true
        }
        _ => false,
    }
}

/// A client request.
#[derive(Debug, Clone, PartialEq)]
pub enum Req {
    /// Publish what was put since the last commit (no reply).
    Commit {
        /// The values.
        puts: Vec<Put>,
    },
    /// Enter a fence. Reply: status.
    Fence {
        /// Participants as the caller described them (the server sorts them).
        procs: Vec<ProcId>,
        /// `PMIX_COLLECT_DATA`.
        collect: bool,
        /// `PMIX_TIMEOUT` in milliseconds (0 = none).
        timeout_ms: u32,
        /// All directives the caller passed.
        info: Vec<Info>,
    },
    /// Fetch a process's published data. Reply: status and the data the caller may see.
    Get {
        /// Whose data.
        target: ProcId,
        /// The key wanted (None: anything the target committed).
        key: Option<Key>,
        /// `PMIX_IMMEDIATE`: answer from the server's store only, never wait.
        immediate: bool,
        /// `PMIX_TIMEOUT` in milliseconds (0 = none).
        timeout_ms: u32,
        /// All directives the caller passed.
        info: Vec<Info>,
    },
    /// Fetch the job data of a namespace. Reply: `ReplyData::Job`.
    JobData {
        /// Which namespace.
        nspace: Nspace,
    },
    /// `PMIx_Abort`. Reply: status.
    Abort {
        /// Status to report.
        status: i32,
        /// Message.
        msg: String,
        /// Processes to abort (empty: the caller's namespace).
        targets: Vec<ProcId>,
    },
    /// `PMIx_Finalize`. Reply: status.
    Finalize,
    /// `PMIx_Notify_event` from a client. Reply: status.
    Notify {
        /// Event code.
        status: i32,
        /// `pmix_data_range_t`.
        range: u8,
        /// Event infos.
        info: Vec<Info>,
    },
    /// A dynamic operation (connect, spawn, publish, query, …; see [`dynamic`]).
    Dyn(DynReq),
    /// A fence that also gathers one opaque contribution per participant (our own
    /// extension, used by [`crate::cuda`]). Matched like a fence (participants and
    /// [`FENCE_TAG`]); reply: status and [`ReplyData::Gathered`], every participant's
    /// contribution sorted by process.
    Allgather {
        /// Participants as the caller described them (the server sorts them).
        procs: Vec<ProcId>,
        /// `PMIX_TIMEOUT` in milliseconds (0 = none).
        timeout_ms: u32,
        /// All directives the caller passed (with [`FENCE_TAG`]).
        info: Vec<Info>,
        /// The caller's contribution.
        data: Vec<u8>,
    },
    /// An I/O-forwarding request (pull, deregister, push; see [`iof`]).
    Iof(IofReq),
}

impl Req {
    /// The request's kind, as the debug dump names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Req::Commit { .. } => "commit",
            Req::Fence { .. } => "fence",
            Req::Get { .. } => "get",
            Req::JobData { .. } => "job data",
            Req::Abort { .. } => "abort",
            Req::Finalize => "finalize",
            Req::Notify { .. } => "notify",
            Req::Dyn(_) => "dynamic (connect, publish, spawn, group, query, ...)",
            Req::Allgather { .. } => "allgather",
            Req::Iof(_) => "iof",
        }
    }
}

/// A request with the tag its reply will carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Matches the reply (0: no reply wanted).
    pub tag: u32,
    /// The request.
    pub req: Req,
}

impl Wire for Request {
    fn encode(&self, out: &mut Vec<u8>) {
        self.tag.encode(out);
        match &self.req {
            Req::Commit { puts } => {
                1u8.encode(out);
                encode_seq(puts, out);
            }
            Req::Fence {
                procs,
                collect,
                timeout_ms,
                info,
            } => {
                2u8.encode(out);
                procs.encode(out);
                collect.encode(out);
                timeout_ms.encode(out);
                info.encode(out);
            }
            Req::Get {
                target,
                key,
                immediate,
                timeout_ms,
                info,
            } => {
                3u8.encode(out);
                target.encode(out);
                key.encode(out);
                immediate.encode(out);
                timeout_ms.encode(out);
                info.encode(out);
            }
            Req::JobData { nspace } => {
                4u8.encode(out);
                nspace.encode(out);
            }
            Req::Abort {
                status,
                msg,
                targets,
            } => {
                5u8.encode(out);
                status.encode(out);
                msg.encode(out);
                targets.encode(out);
            }
            Req::Finalize => 6u8.encode(out),
            Req::Notify {
                status,
                range,
                info,
            } => {
                7u8.encode(out);
                status.encode(out);
                range.encode(out);
                info.encode(out);
            }
            Req::Dyn(r) => {
                8u8.encode(out);
                r.encode(out);
            }
            Req::Allgather {
                procs,
                timeout_ms,
                info,
                data,
            } => {
                REQ_ALLGATHER.encode(out);
                procs.encode(out);
                timeout_ms.encode(out);
                info.encode(out);
                data.encode(out);
            }
            Req::Iof(r) => {
                REQ_IOF.encode(out);
                r.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let tag = u32::decode(d)?;
        let req = match u8::decode(d)? {
            1 => Req::Commit {
                puts: decode_seq(d)?,
            },
            2 => Req::Fence {
                procs: Vec::decode(d)?,
                collect: bool::decode(d)?,
                timeout_ms: u32::decode(d)?,
                info: Vec::decode(d)?,
            },
            3 => Req::Get {
                target: ProcId::decode(d)?,
                key: Option::decode(d)?,
                immediate: bool::decode(d)?,
                timeout_ms: u32::decode(d)?,
                info: Vec::decode(d)?,
            },
            4 => Req::JobData {
                nspace: Nspace::decode(d)?,
            },
            5 => Req::Abort {
                status: i32::decode(d)?,
                msg: String::decode(d)?,
                targets: Vec::decode(d)?,
            },
            6 => Req::Finalize,
            7 => Req::Notify {
                status: i32::decode(d)?,
                range: u8::decode(d)?,
                info: Vec::decode(d)?,
            },
            8 => Req::Dyn(DynReq::decode(d)?),
            REQ_ALLGATHER => Req::Allgather {
                procs: Vec::decode(d)?,
                timeout_ms: u32::decode(d)?,
                info: Vec::decode(d)?,
                data: Vec::decode(d)?,
            },
            REQ_IOF => Req::Iof(IofReq::decode(d)?),
            t => return Err(Error::unpack(format!("unknown request type {}", t))),
        };
        Ok(Request { tag, req })
    }
}

/// Data carried by a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplyData {
    /// Nothing (status only).
    None,
    /// A process's published data visible to the requester.
    Data(Vec<Info>),
    /// A namespace's job data.
    Job(Box<JobData>),
    /// What a completed connect delivers (see [`ConnectData`]).
    Connected(Box<ConnectData>),
    /// Published data found by a lookup.
    Pdata(Vec<Pdata>),
    /// What a completed group construct or join delivers (see [`GroupReply`]).
    Group(Box<GroupReply>),
    /// Every participant's contribution to an allgather, sorted by process.
    Gathered(Vec<Contribution>),
    /// What the participants of a collecting fence published, for the requester's
    /// local store, kept encoded (see [`CollectedWriter`]).
    Collected(Vec<u8>),
}

/// A message from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerMsg {
    /// The answer to the request with this tag.
    Reply {
        /// The request's tag.
        tag: u32,
        /// Outcome.
        status: i32,
        /// Data, if any.
        data: ReplyData,
    },
    /// A process deleted one of its keys: drop it from the cache.
    Forget {
        /// Whose key.
        proc_: ProcId,
        /// Which key.
        key: Key,
    },
    /// The host retracted data of one node (`deregister_resources` narrowed by
    /// `PMIX_NODEID`/`PMIX_HOSTNAME`): drop these keys from that node's entry of the
    /// namespace's job data (`node.info` names them; empty means the whole entry).
    ForgetNode {
        /// Whose job data.
        nspace: Nspace,
        /// Which node, and the keys removed there (their values are ignored).
        node: NodeData,
    },
    /// An event for the client's handlers.
    Event {
        /// Event code.
        status: i32,
        /// Where it comes from.
        source: ProcId,
        /// Event infos.
        info: Vec<Info>,
    },
    /// Forwarded output for the client's registration `id` (see [`iof`]).
    Iof {
        /// The client's id of the registration.
        id: u64,
        /// The chunk.
        chunk: Box<crate::iof::IofChunk>,
    },
}

impl Wire for ServerMsg {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            ServerMsg::Reply { tag, status, data } => {
                1u8.encode(out);
                tag.encode(out);
                status.encode(out);
                match data {
                    ReplyData::None => 0u8.encode(out),
                    ReplyData::Data(v) => {
                        1u8.encode(out);
                        v.encode(out);
                    }
                    ReplyData::Job(j) => {
                        2u8.encode(out);
                        j.encode(out);
                    }
                    ReplyData::Connected(c) => {
                        3u8.encode(out);
                        c.encode(out);
                    }
                    ReplyData::Pdata(v) => {
                        4u8.encode(out);
                        encode_seq(v, out);
                    }
                    ReplyData::Group(g) => {
                        5u8.encode(out);
                        g.encode(out);
                    }
                    ReplyData::Gathered(v) => {
                        REPLY_GATHERED.encode(out);
                        encode_seq(v, out);
                    }
                    ReplyData::Collected(v) => {
                        REPLY_COLLECTED.encode(out);
                        v.encode(out);
                    }
                }
            }
            ServerMsg::Forget { proc_, key } => {
                3u8.encode(out);
                proc_.encode(out);
                key.encode(out);
            }
            ServerMsg::ForgetNode { nspace, node } => {
                MSG_FORGET_NODE.encode(out);
                nspace.encode(out);
                node.encode(out);
            }
            ServerMsg::Event {
                status,
                source,
                info,
            } => {
                2u8.encode(out);
                status.encode(out);
                source.encode(out);
                info.encode(out);
            }
            ServerMsg::Iof { id, chunk } => {
                MSG_IOF.encode(out);
                id.encode(out);
                chunk.source.encode(out);
                chunk.channel.encode(out);
                chunk.info.encode(out);
                chunk.data.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            1 => ServerMsg::Reply {
                tag: u32::decode(d)?,
                status: i32::decode(d)?,
                data: match u8::decode(d)? {
                    0 => ReplyData::None,
                    1 => ReplyData::Data(Vec::decode(d)?),
                    2 => ReplyData::Job(Box::new(JobData::decode(d)?)),
                    3 => ReplyData::Connected(Box::new(ConnectData::decode(d)?)),
                    4 => ReplyData::Pdata(decode_seq(d)?),
                    5 => ReplyData::Group(Box::new(GroupReply::decode(d)?)),
                    REPLY_GATHERED => ReplyData::Gathered(decode_seq(d)?),
                    REPLY_COLLECTED => ReplyData::Collected(Vec::decode(d)?),
                    t => return Err(Error::unpack(format!("unknown reply data {}", t))),
                },
            },
            2 => ServerMsg::Event {
                status: i32::decode(d)?,
                source: ProcId::decode(d)?,
                info: Vec::decode(d)?,
            },
            3 => ServerMsg::Forget {
                proc_: ProcId::decode(d)?,
                key: Key::decode(d)?,
            },
            MSG_FORGET_NODE => ServerMsg::ForgetNode {
                nspace: Nspace::decode(d)?,
                node: NodeData::decode(d)?,
            },
            MSG_IOF => ServerMsg::Iof {
                id: u64::decode(d)?,
                chunk: Box::new(crate::iof::IofChunk {
                    source: ProcId::decode(d)?,
                    channel: u16::decode(d)?,
                    info: Vec::decode(d)?,
                    data: Vec::decode(d)?,
                }),
            },
            t => return Err(Error::unpack(format!("unknown server message {}", t))),
        })
    }
}

/// Blob flag: the fence collects data (`PMIX_COLLECT_DATA`); set on direct-modex answers.
pub const BLOB_COLLECT: u8 = 0x01;
/// Blob flag: the sending server runs delta modex (`pmix_server_fence_delta_modex`), so
/// its sections may be deltas.
pub const BLOB_DELTA: u8 = 0x02;
/// Every flag this version understands; any other bit makes the whole input unusable.
const BLOB_KNOWN_FLAGS: u8 = BLOB_COLLECT | BLOB_DELTA;

/// What one process's section of a blob holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    /// Everything the process has published (and every key it ever deleted).
    Full,
    /// Only what changed since the process last took part in a collecting fence.
    Delta,
}

/// One process's contribution inside a host blob.
///
/// `entries` are the process's REMOTE and GLOBAL values, plus its LOCAL keys as scope
/// markers (value [`Value::Undef`]): a LOCAL value never leaves its node, but the other
/// nodes learn that the key exists, so a Get there answers
/// `PMIX_ERR_EXISTS_OUTSIDE_SCOPE`. `deleted` names keys the process removed with a
/// `PMIX_DEL_*` scope; a receiver drops them before storing `entries`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcBlob {
    /// Whose data.
    pub proc_: ProcId,
    /// Full set or delta.
    pub kind: SectionKind,
    /// Values (LOCAL ones as markers).
    pub entries: Vec<(Key, Entry)>,
    /// Deleted keys with the `PMIX_DEL_*` scope they were deleted with.
    pub deleted: Vec<(Key, u8)>,
}

impl ProcBlob {
    /// A full section with these entries and no deletions.
    pub fn full(proc_: ProcId, entries: Vec<(Key, Entry)>) -> ProcBlob {
        ProcBlob {
            proc_,
            kind: SectionKind::Full,
            entries,
            deleted: Vec::new(),
        }
    }
}

/// One server's blob, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Blob {
    /// Whether the fence collected data (`PMIX_COLLECT_DATA`).
    pub collect: bool,
    /// Whether the sender runs delta modex.
    pub delta: bool,
    /// Per-process data.
    pub procs: Vec<ProcBlob>,
}

impl Blob {
    /// An empty blob of a fence (collecting or not), without delta modex.
    pub fn new(collect: bool) -> Blob {
        Blob {
            collect,
            delta: false,
            procs: Vec::new(),
        }
    }

    /// The flag byte this blob carries.
    pub fn flags(&self) -> u8 {
        let mut f = 0;
        if self.collect {
            f |= BLOB_COLLECT;
        }
        if self.delta {
            f |= BLOB_DELTA;
        }
        f
    }
}

/// Encode one server's contribution for a host (fence or direct modex).
///
/// ```text
/// blob    := "PMXB" u32 | version u16 (= 2) | flags u8 | body length u32 | body
/// body    := u32 n, n × Nspace (the namespaces the sections name)
///            u32 m, m × section
/// section := u32 nspace index | u32 rank | u8 kind (0 full, 1 delta)
///            | u32 k, k × (Key, scope u8, Value)   -- LOCAL entries carry Undef
///            | u32 d, d × (Key, PMIX_DEL_* scope u8)
/// ```
pub fn encode_blob(blob: &Blob) -> Vec<u8> {
    let mut nspaces: Vec<&Nspace> = Vec::new();
    for p in &blob.procs {
        if !nspaces.contains(&&p.proc_.nspace) {
            nspaces.push(&p.proc_.nspace);
        }
    }
    let mut body = Vec::new();
    (nspaces.len() as u32).encode(&mut body);
    for n in &nspaces {
        n.encode(&mut body);
    }
    (blob.procs.len() as u32).encode(&mut body);
    for p in &blob.procs {
        let idx = nspaces
            .iter()
            .position(|n| *n == &p.proc_.nspace)
            .unwrap_or(0);
        (idx as u32).encode(&mut body);
        p.proc_.rank.encode(&mut body);
        let kind: u8 = match p.kind {
            SectionKind::Full => 0,
            SectionKind::Delta => 1,
        };
        kind.encode(&mut body);
        (p.entries.len() as u32).encode(&mut body);
        for (k, e) in &p.entries {
            k.encode(&mut body);
            e.scope.encode(&mut body);
            if e.scope == sys::PMIX_LOCAL {
                Value::Undef.encode(&mut body); // the value stays on its node
            } else {
                e.value.encode(&mut body);
            }
        }
        (p.deleted.len() as u32).encode(&mut body);
        for (k, scope) in &p.deleted {
            k.encode(&mut body);
            scope.encode(&mut body);
        }
    }
    let mut out = Vec::with_capacity(body.len() + 11);
    BLOB_MAGIC.encode(&mut out);
    BLOB_VERSION.encode(&mut out);
    blob.flags().encode(&mut out);
    (body.len() as u32).encode(&mut out);
    out.extend_from_slice(&body);
    out
}

fn decode_blob_body(d: &mut Decoder<'_>, delta_allowed: bool) -> Result<Vec<ProcBlob>> {
    let nspaces: Vec<Nspace> = decode_seq(d)?;
    // A section is at least 17 bytes (index, rank, kind, two counts).
    let n = d.count(17)?;
    let mut procs = Vec::with_capacity(n);
    for _ in 0..n {
        let idx = u32::decode(d)? as usize;
        let nspace = nspaces
            .get(idx)
            .ok_or_else(|| Error::unpack(format!("namespace index {} out of range", idx)))?;
        let rank = u32::decode(d)?;
        let kind = match u8::decode(d)? {
            0 => SectionKind::Full,
            1 if delta_allowed => SectionKind::Delta,
            1 => return Err(Error::unpack("delta section in a blob not flagged delta")),
            k => return Err(Error::unpack(format!("unknown section kind {}", k))),
        };
        let m = d.count(7)?;
        let mut entries = Vec::with_capacity(m);
        for _ in 0..m {
            let k = Key::decode(d)?;
            let scope = u8::decode(d)?;
            if !matches!(scope, sys::PMIX_LOCAL | sys::PMIX_REMOTE | sys::PMIX_GLOBAL) {
                return Err(Error::unpack(format!("entry {} with scope {}", k, scope)));
            }
            let mut value = Value::decode(d)?;
            if scope == sys::PMIX_LOCAL {
                value = Value::Undef;
            }
            entries.push((k, Entry { scope, value }));
        }
        let m = d.count(5)?;
        let mut deleted = Vec::with_capacity(m);
        for _ in 0..m {
            let k = Key::decode(d)?;
            let scope = u8::decode(d)?;
            if !matches!(
                scope,
                sys::PMIX_DEL_LOCAL | sys::PMIX_DEL_REMOTE | sys::PMIX_DEL_GLOBAL
            ) {
                return Err(Error::unpack(format!(
                    "deletion of {} with scope {}",
                    k, scope
                )));
            }
            deleted.push((k, scope));
        }
        procs.push(ProcBlob {
            proc_: ProcId::new(nspace.clone(), rank),
            kind,
            entries,
            deleted,
        });
    }
    Ok(procs)
}

/// Decode a concatenation of server blobs (possibly empty).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if any part is malformed, of an unknown version, carries a flag
/// this version does not know, or if the parts disagree on their flags (whether the
/// fence collected data, whether delta modex is on); nothing is returned in that case,
/// so a caller never stores part of a rejected input.
pub fn decode_blobs(bytes: &[u8]) -> Result<Vec<Blob>> {
    let mut d = Decoder::new(bytes);
    let mut out = Vec::new();
    let mut first_flags: Option<u8> = None;
    let bad = |e: Error| Error::bad_param(format!("malformed fence/modex data: {}", e.context));
    while !d.is_empty() {
        let magic = u32::decode(&mut d).map_err(bad)?;
        if magic != BLOB_MAGIC {
            return Err(Error::bad_param("malformed fence/modex data: bad magic"));
        }
        let ver = u16::decode(&mut d).map_err(bad)?;
        if ver != BLOB_VERSION {
            return Err(Error::bad_param(format!(
                "fence/modex data of unknown version {} (we read {})",
                ver, BLOB_VERSION
            )));
        }
        let flags = u8::decode(&mut d).map_err(bad)?;
        if flags & !BLOB_KNOWN_FLAGS != 0 {
            return Err(Error::bad_param(format!(
                "fence/modex data with unknown flags {:#04x}",
                flags & !BLOB_KNOWN_FLAGS
            )));
        }
        match first_flags {
            None => first_flags = Some(flags),
            Some(f) if f != flags => {
                return Err(Error::bad_param(format!(
                    "servers disagree on the kind of fence contribution (flags {:#04x} and \
                     {:#04x}: collect bit {:#04x}, delta-modex bit {:#04x})",
                    f, flags, BLOB_COLLECT, BLOB_DELTA
                )))
            }
            Some(_) => {}
        }
        let len = u32::decode(&mut d).map_err(bad)? as usize;
        let body = d.take(len).map_err(bad)?;
        let mut bd = Decoder::new(body);
        let procs = decode_blob_body(&mut bd, flags & BLOB_DELTA != 0).map_err(bad)?;
        if !bd.is_empty() {
            return Err(Error::bad_param(
                "malformed fence/modex data: trailing bytes",
            ));
        }
        out.push(Blob {
            collect: flags & BLOB_COLLECT != 0,
            delta: flags & BLOB_DELTA != 0,
            procs,
        });
    }
    Ok(out)
}

/// A process id from parts, for messages.
pub fn proc_of(nspace: &Nspace, rank: Rank) -> ProcId {
    ProcId::new(nspace.clone(), rank)
}

/// The status a server sends for an engine error.
pub fn status_of(e: &Error) -> i32 {
    if e.status == sys::PMIX_SUCCESS {
        sys::PMIX_ERROR
    } else {
        e.status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(ns: &str, r: u32) -> ProcId {
        ProcId::new(Nspace::new(ns).unwrap(), r)
    }

    fn roundtrip<T: Wire + PartialEq + std::fmt::Debug>(v: T) {
        let b = encode(&v);
        assert_eq!(decode::<T>(&b).unwrap(), v);
        // Every strict prefix must fail cleanly (truncation), never panic.
        for cut in 0..b.len() {
            assert!(decode::<T>(&b[..cut]).is_err(), "prefix {} decoded", cut);
        }
    }

    #[test]
    fn welcome_from_borrowed_job_data_is_the_welcome_encoding() {
        let mut job = JobData {
            nspace: Nspace::new("job").unwrap(),
            ..Default::default()
        };
        job.job
            .push(Info::new("pmix.job.size", Value::Uint32(4)).unwrap());
        let mut b = crate::store::ProcBuilder::new(4);
        b.add(
            2,
            Info::new("pmix.lrank", Value::Uint16(2)).unwrap(),
            &job.nspace,
        );
        b.add(2, Info::new("x", Value::Double(0.5)).unwrap(), &job.nspace);
        job.procs = b.finish();
        let server = p("srv", 0);
        let you = p("job", 2);
        for jobs in [vec![], vec![job.clone()]] {
            let refs: Vec<&JobData> = jobs.iter().collect();
            let owned = encode(&Welcome::Accepted {
                server: server.clone(),
                you: you.clone(),
                jobs: jobs.clone(),
            });
            assert_eq!(
                encode_welcome_accepted(&server, &you, &refs, &mut Vec::new()),
                owned
            );
            assert_eq!(
                decode::<Welcome>(&owned).unwrap(),
                Welcome::Accepted {
                    server: server.clone(),
                    you: you.clone(),
                    jobs
                }
            );
        }
    }

    #[test]
    fn frames_reassemble_across_arbitrary_splits() {
        let mut wire = Vec::new();
        encode_frame_into(b"abc", &mut wire);
        encode_frame_into(b"", &mut wire);
        encode_frame_into(&[7u8; 1000], &mut wire);
        for split in 1..wire.len() {
            let mut dec = FrameDecoder::new();
            let mut got = Vec::new();
            for chunk in wire.chunks(split) {
                dec.push(chunk);
                while let Some(f) = dec.next_frame().unwrap() {
                    got.push(f);
                }
            }
            assert_eq!(got.len(), 3);
            assert_eq!(got[0], b"abc");
            assert!(got[1].is_empty());
            assert_eq!(got[2].len(), 1000);
            assert!(!dec.has_partial());
        }
    }

    #[test]
    fn oversized_frame_is_rejected_before_allocation() {
        let mut dec = FrameDecoder::new();
        dec.push(&u32::MAX.to_le_bytes());
        assert_eq!(
            dec.next_frame().unwrap_err().status,
            sys::PMIX_ERR_BAD_PARAM
        );
    }

    #[test]
    fn decoder_limit_refuses_longer_frames_before_buffering_them() {
        let mut dec = FrameDecoder::with_limit(16);
        let mut bytes = Vec::new();
        encode_frame_into(&[1u8; 16], &mut bytes);
        dec.push(&bytes);
        assert_eq!(dec.next_frame().unwrap().map(|f| f.len()), Some(16));
        dec.push(&17u32.to_le_bytes());
        assert_eq!(
            dec.next_frame().unwrap_err().status,
            sys::PMIX_ERR_BAD_PARAM
        );
        // Raised later (a peer that identified itself), and never above MAX_FRAME.
        let mut dec = FrameDecoder::with_limit(16);
        dec.set_limit(usize::MAX);
        dec.push(&17u32.to_le_bytes());
        dec.push(&[0u8; 17]);
        assert_eq!(dec.next_frame().unwrap().map(|f| f.len()), Some(17));
        dec.push(&((MAX_FRAME + 1) as u32).to_le_bytes());
        assert!(dec.next_frame().is_err());
    }

    #[test]
    fn messages_round_trip_and_truncations_fail() {
        roundtrip(Hello {
            version: VERSION,
            proc_: p("ns", 3),
            pid: 42,
            uid: 1000,
            gid: 100,
            kind: PeerKind::Client,
        });
        for kind in [PeerKind::ToolNamed, PeerKind::ToolAssign] {
            roundtrip(Hello {
                version: VERSION,
                proc_: p("tool", 0),
                pid: 7,
                uid: 1000,
                gid: 100,
                kind,
            });
        }
        let mut jd = JobData {
            nspace: Nspace::new("ns").unwrap(),
            job: vec![Info::new("pmix.job.size", Value::Uint32(4)).unwrap()],
            apps: vec![(0, vec![Info::new("a", Value::Int8(-1)).unwrap()])],
            nodes: vec![NodeData {
                id: Some(0),
                hostname: Some("h".into()),
                info: vec![],
            }],
            procs: Default::default(),
        };
        jd.procs
            .extend_list(1, vec![Info::new("pmix.lrank", Value::Uint16(1)).unwrap()]);
        roundtrip(Welcome::Accepted {
            server: p("srv", 0),
            you: p("ns", 1),
            jobs: vec![jd.clone()],
        });
        roundtrip(Welcome::Refused {
            status: sys::PMIX_ERR_NO_PERMISSIONS,
            reason: "no".into(),
        });
        let reqs = vec![
            Req::Commit {
                puts: vec![Put {
                    key: Key::new("k").unwrap(),
                    scope: sys::PMIX_GLOBAL,
                    value: Value::ByteObject(vec![1, 2, 3]),
                }],
            },
            Req::Fence {
                procs: vec![p("ns", sys::PMIX_RANK_WILDCARD)],
                collect: true,
                timeout_ms: 5000,
                info: vec![],
            },
            Req::Get {
                target: p("ns", 1),
                key: Some(Key::new("k").unwrap()),
                immediate: false,
                timeout_ms: 0,
                info: vec![],
            },
            Req::JobData {
                nspace: Nspace::new("other").unwrap(),
            },
            Req::Abort {
                status: -1,
                msg: "bye".into(),
                targets: vec![],
            },
            Req::Finalize,
            Req::Notify {
                status: -200,
                range: 3,
                info: vec![],
            },
            Req::Allgather {
                procs: vec![p("ns", 0), p("ns", 1)],
                timeout_ms: 0,
                info: vec![Info::new(FENCE_TAG, Value::string("t.1.2")).unwrap()],
                data: vec![9, 8, 7],
            },
            Req::Iof(IofReq::Pull {
                id: 7,
                procs: vec![p("ns", sys::PMIX_RANK_WILDCARD)],
                channels: sys::PMIX_FWD_STDOUT_CHANNEL | sys::PMIX_FWD_STDERR_CHANNEL,
                directives: vec![Info::new("pmix.iof.tag", Value::Bool(true)).unwrap()],
            }),
            Req::Iof(IofReq::Deregister {
                id: u64::MAX,
                directives: vec![],
            }),
            Req::Iof(IofReq::Push {
                targets: vec![p("ns", 0)],
                directives: vec![],
                data: Some(b"stdin".to_vec()),
            }),
            Req::Iof(IofReq::Push {
                targets: vec![],
                directives: vec![],
                data: None,
            }),
        ];
        for (i, req) in reqs.into_iter().enumerate() {
            roundtrip(Request { tag: i as u32, req });
        }
        roundtrip(ServerMsg::Reply {
            tag: 9,
            status: 0,
            data: ReplyData::Data(vec![Info::new("k", Value::Double(1.5)).unwrap()]),
        });
        roundtrip(ServerMsg::Reply {
            tag: 9,
            status: 0,
            data: ReplyData::Job(Box::new(jd)),
        });
        roundtrip(ServerMsg::ForgetNode {
            nspace: Nspace::new("ns").unwrap(),
            node: NodeData {
                id: Some(3),
                hostname: Some("n3".into()),
                info: vec![Info::new("k", Value::Undef).unwrap()],
            },
        });
        roundtrip(ServerMsg::Reply {
            tag: 10,
            status: 0,
            data: ReplyData::Gathered(vec![
                Contribution {
                    proc_: p("ns", 0),
                    data: vec![],
                },
                Contribution {
                    proc_: p("ns", 1),
                    data: vec![1; 17],
                },
            ]),
        });
        roundtrip(ServerMsg::Forget {
            proc_: p("ns", 2),
            key: Key::new("gone").unwrap(),
        });
        roundtrip(ServerMsg::Event {
            status: sys::PMIX_ERR_LOST_CONNECTION,
            source: p("srv", 0),
            info: vec![],
        });
        for data in [b"line\n".to_vec(), Vec::new()] {
            roundtrip(ServerMsg::Iof {
                id: 3,
                chunk: Box::new(crate::iof::IofChunk {
                    source: p("ns", 1),
                    channel: sys::PMIX_FWD_STDERR_CHANNEL,
                    info: vec![Info::new("pmix.iof.cmp", Value::Bool(true)).unwrap()],
                    data,
                }),
            });
        }
    }

    #[test]
    fn garbage_never_panics() {
        // A cheap deterministic fuzz: pseudo-random bodies through every decoder.
        let mut x: u64 = 0x9e3779b97f4a7c15;
        for len in 0..400usize {
            let mut b = Vec::with_capacity(len);
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b.push(x as u8);
            }
            let _ = decode::<Hello>(&b);
            let _ = decode::<Welcome>(&b);
            let _ = decode::<Request>(&b);
            let _ = decode::<ServerMsg>(&b);
            let _ = decode_blobs(&b);
        }
    }

    fn entry(scope: u8, v: i32) -> Entry {
        Entry {
            scope,
            value: Value::Int(v),
        }
    }

    fn blob(collect: bool, delta: bool, procs: Vec<ProcBlob>) -> Blob {
        Blob {
            collect,
            delta,
            procs,
        }
    }

    #[test]
    fn blobs_concatenate_and_reject_corruption() {
        let k = || Key::new("k").unwrap();
        let a = blob(
            true,
            false,
            vec![ProcBlob::full(
                p("ns", 0),
                vec![(k(), entry(sys::PMIX_GLOBAL, 1))],
            )],
        );
        let b = blob(
            true,
            false,
            vec![
                ProcBlob::full(p("ns", 1), vec![(k(), entry(sys::PMIX_GLOBAL, 2))]),
                ProcBlob {
                    proc_: p("other", 7),
                    kind: SectionKind::Full,
                    entries: vec![],
                    deleted: vec![(k(), sys::PMIX_DEL_GLOBAL)],
                },
            ],
        );
        let mut cat = encode_blob(&a);
        cat.extend(encode_blob(&b));
        assert_eq!(decode_blobs(&cat).unwrap(), vec![a.clone(), b]);
        assert!(decode_blobs(&[]).unwrap().is_empty());
        for cut in 1..cat.len() {
            if cut == encode_blob(&a).len() {
                continue; // a whole first blob alone is valid
            }
            assert_eq!(
                decode_blobs(&cat[..cut]).unwrap_err().status,
                sys::PMIX_ERR_BAD_PARAM,
                "cut {}",
                cut
            );
        }
    }

    #[test]
    fn local_values_travel_as_markers_only() {
        let b = blob(
            true,
            false,
            vec![ProcBlob::full(
                p("ns", 0),
                vec![
                    (Key::new("secret").unwrap(), entry(sys::PMIX_LOCAL, 42)),
                    (Key::new("pub").unwrap(), entry(sys::PMIX_REMOTE, 43)),
                ],
            )],
        );
        let bytes = encode_blob(&b);
        let got = decode_blobs(&bytes).unwrap();
        let e = &got[0].procs[0].entries;
        assert_eq!(
            e[0].1,
            Entry {
                scope: sys::PMIX_LOCAL,
                value: Value::Undef
            }
        );
        assert_eq!(e[1].1, entry(sys::PMIX_REMOTE, 43));
    }

    /// Flags are compared across every part; one disagreeing or unknown flag rejects all.
    #[test]
    fn flag_disagreement_and_unknown_flags_reject_the_whole_input() {
        let one = |collect, delta| {
            encode_blob(&blob(
                collect,
                delta,
                vec![ProcBlob::full(
                    p("ns", 0),
                    vec![(Key::new("k").unwrap(), entry(sys::PMIX_GLOBAL, 1))],
                )],
            ))
        };
        for (x, y) in [
            ((true, false), (false, false)),
            ((true, true), (true, false)),
        ] {
            let mut cat = one(x.0, x.1);
            cat.extend(one(y.0, y.1));
            cat.extend(one(x.0, x.1));
            let e = decode_blobs(&cat).unwrap_err();
            assert_eq!(e.status, sys::PMIX_ERR_BAD_PARAM);
            assert!(e.context.contains("disagree"), "{}", e.context);
        }
        let mut same = one(true, true);
        same.extend(one(true, true));
        assert_eq!(decode_blobs(&same).unwrap().len(), 2);
        // An unknown flag bit (offset 6 is the flag byte).
        let mut unknown = one(true, false);
        unknown[6] |= 0x80;
        let e = decode_blobs(&unknown).unwrap_err();
        assert_eq!(e.status, sys::PMIX_ERR_BAD_PARAM);
        assert!(e.context.contains("unknown flags"), "{}", e.context);
        // Another version.
        let mut old = one(true, false);
        old[4] = 1;
        assert!(decode_blobs(&old).unwrap_err().context.contains("version"));
        // A delta section in a blob that does not say delta.
        let mut d = blob(true, true, vec![ProcBlob::full(p("ns", 0), vec![])]);
        d.procs[0].kind = SectionKind::Delta;
        let mut bytes = encode_blob(&d);
        assert!(decode_blobs(&bytes).is_ok());
        bytes[6] &= !BLOB_DELTA;
        assert_eq!(
            decode_blobs(&bytes).unwrap_err().status,
            sys::PMIX_ERR_BAD_PARAM
        );
    }

    #[test]
    fn collected_reply_is_encoded_once_tagged_per_waiter_and_read_in_place() {
        let (a, b, c) = (
            Key::new("a").unwrap(),
            Key::new("b").unwrap(),
            Key::new("c").unwrap(),
        );
        let (one, x) = (Value::Uint32(1), Value::string("x"));
        let (one_b, x_b) = (crate::codec::to_bytes(&one), crate::codec::to_bytes(&x));
        let mut w = CollectedWriter::new(COLLECTED_INLINE_MAX, false);
        assert!(w.add(&p("ns", 0), [(&a, &one_b[..])], &[]));
        assert!(w.add(&p("ns", 1), [], &[]), "nothing to say: left out");
        assert!(w.add(&p("ns", 2), [(&b, &x_b[..]), (&c, &one_b[..])], &[&a]));
        let mut body = w.finish().unwrap();
        assert!(set_reply_tag(&mut body, 77));
        assert_eq!(
            reply_tag(&body),
            Some(77),
            "the tag is read back without decoding"
        );
        let ServerMsg::Reply { tag, status, data } = decode::<ServerMsg>(&body).unwrap() else {
            panic!("not a reply");
        };
        assert_eq!((tag, status), (77, sys::PMIX_SUCCESS));
        let ReplyData::Collected(payload) = data else {
            panic!("no collected data");
        };
        let (reset, idx) = collected_index(&payload).unwrap();
        assert!(!reset);
        assert_eq!(idx.len(), 2);
        assert_eq!((idx[0].proc_.clone(), idx[0].count), (p("ns", 0), 1));
        assert_eq!((idx[1].proc_.clone(), idx[1].count), (p("ns", 2), 2));
        assert_eq!(idx[1].removed, vec![a.clone()]);
        let find = |i: usize, k: &str| collected_find(&payload, &idx[i], k).unwrap();
        assert_eq!(find(0, "a"), Some(one.clone()));
        assert_eq!(find(1, "b"), Some(x));
        assert_eq!(find(1, "c"), Some(one.clone()));
        assert_eq!(find(1, "a"), None);
        // Re-encoding the decoded reply gives the same bytes.
        assert_eq!(
            body,
            encode(&ServerMsg::Reply {
                tag: 77,
                status: sys::PMIX_SUCCESS,
                data: ReplyData::Collected(payload.clone()),
            })
        );
        // Every truncation of the payload is an error, never a panic.
        for n in 0..payload.len() {
            assert!(collected_index(&payload[..n]).is_err(), "{}", n);
        }
        // A reset with nothing else.
        let body = CollectedWriter::new(100, true).finish().unwrap();
        let Ok(ServerMsg::Reply {
            data: ReplyData::Collected(payload),
            ..
        }) = decode::<ServerMsg>(&body)
        else {
            panic!("not a collected reply");
        };
        assert_eq!(collected_index(&payload).unwrap(), (true, vec![]));
        // Over the cap: nothing.
        let mut w = CollectedWriter::new(40, false);
        assert!(!w.add(
            &p("ns", 0),
            [(&a, &one_b[..]), (&b, &one_b[..]), (&c, &one_b[..])],
            &[]
        ));
        assert!(w.finish().is_none());
        // Only replies take a tag.
        let mut ev = encode(&ServerMsg::Forget {
            proc_: p("ns", 0),
            key: a,
        });
        assert!(!set_reply_tag(&mut ev, 1));
        assert_eq!(reply_tag(&ev), None);
        assert_eq!(reply_tag(&[1, 2]), None, "too short to hold a tag");
    }
}
