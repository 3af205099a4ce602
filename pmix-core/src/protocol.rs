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
//! 1. Client → server: [`Hello`] (magic, protocol [`VERSION`], nspace, rank, pid, uid, gid).
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

use crate::codec::{decode_seq, encode_seq, Decoder, Wire};
use crate::error::{Error, Result};
use crate::store::{Entry, JobData, NodeData};
use crate::value::{Info, Key, Nspace, ProcId, Rank, Value};
use pmix_sys as sys;
use std::collections::BTreeMap;

/// Protocol version spoken by this library (sent in [`Hello`]).
pub const VERSION: u32 = 1;
/// The largest frame body accepted (64 MiB).
pub const MAX_FRAME: usize = 64 << 20;
const HELLO_MAGIC: u32 = u32::from_le_bytes(*b"PMXR");
const BLOB_MAGIC: u32 = u32::from_le_bytes(*b"PMXB");
const BLOB_VERSION: u16 = 1;

/// Append `body` as one frame (length prefix + body) to `out`.
pub fn encode_frame_into(body: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
}

/// Reassembles frames from a byte stream.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    pos: usize,
}

impl FrameDecoder {
    /// An empty decoder.
    pub fn new() -> Self {
        Self::default()
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
    /// The next complete frame body, if one has arrived.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a length above [`MAX_FRAME`] (the stream is unusable).
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>> {
        let avail = self.buf.get(self.pos..).unwrap_or_default();
        let Some(hdr) = avail.get(..4) else {
            return Ok(None);
        };
        let mut l = [0u8; 4];
        l.copy_from_slice(hdr);
        let len = u32::from_le_bytes(l) as usize;
        if len > MAX_FRAME {
            return Err(Error::bad_param(format!(
                "frame of {} bytes exceeds the maximum of {}",
                len, MAX_FRAME
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
}

impl Wire for Hello {
    fn encode(&self, out: &mut Vec<u8>) {
        HELLO_MAGIC.encode(out);
        self.version.encode(out);
        self.proc_.encode(out);
        self.pid.encode(out);
        self.uid.encode(out);
        self.gid.encode(out);
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
            Welcome::Accepted { server, jobs } => {
                0u8.encode(out);
                server.encode(out);
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
        self.nspace.encode(out);
        self.job.encode(out);
        (self.apps.len() as u32).encode(out);
        for (n, l) in &self.apps {
            n.encode(out);
            l.encode(out);
        }
        encode_seq(&self.nodes, out);
        (self.procs.len() as u32).encode(out);
        for (r, l) in &self.procs {
            r.encode(out);
            l.encode(out);
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let nspace = Nspace::decode(d)?;
        let job = Vec::decode(d)?;
        let apps = decode_seq::<Section>(d)?
            .into_iter()
            .map(|s| (s.0, s.1))
            .collect();
        let nodes = decode_seq(d)?;
        let mut procs = BTreeMap::new();
        for s in decode_seq::<Section>(d)? {
            procs.insert(s.0, s.1);
        }
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
    /// An event for the client's handlers.
    Event {
        /// Event code.
        status: i32,
        /// Where it comes from.
        source: ProcId,
        /// Event infos.
        info: Vec<Info>,
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
                }
            }
            ServerMsg::Forget { proc_, key } => {
                3u8.encode(out);
                proc_.encode(out);
                key.encode(out);
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
            t => return Err(Error::unpack(format!("unknown server message {}", t))),
        })
    }
}

/// One process's contribution inside a host blob.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcBlob {
    /// Whose data.
    pub proc_: ProcId,
    /// Its REMOTE/GLOBAL entries.
    pub entries: Vec<(Key, Entry)>,
}

/// One server's blob, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Blob {
    /// Whether the fence collected data (`PMIX_COLLECT_DATA`).
    pub collect: bool,
    /// Per-process data.
    pub procs: Vec<ProcBlob>,
}

/// Encode one server's contribution for a host (fence or direct modex).
pub fn encode_blob(blob: &Blob) -> Vec<u8> {
    let mut body = Vec::new();
    (blob.procs.len() as u32).encode(&mut body);
    for p in &blob.procs {
        p.proc_.encode(&mut body);
        (p.entries.len() as u32).encode(&mut body);
        for (k, e) in &p.entries {
            k.encode(&mut body);
            e.scope.encode(&mut body);
            e.value.encode(&mut body);
        }
    }
    let mut out = Vec::with_capacity(body.len() + 11);
    BLOB_MAGIC.encode(&mut out);
    BLOB_VERSION.encode(&mut out);
    (blob.collect as u8).encode(&mut out);
    (body.len() as u32).encode(&mut out);
    out.extend_from_slice(&body);
    out
}

fn decode_blob_body(d: &mut Decoder<'_>) -> Result<Vec<ProcBlob>> {
    let n = d.count(1)?;
    let mut procs = Vec::with_capacity(n.min(4096));
    for _ in 0..n {
        let proc_ = ProcId::decode(d)?;
        let m = d.count(1)?;
        let mut entries = Vec::with_capacity(m.min(4096));
        for _ in 0..m {
            let k = Key::decode(d)?;
            let scope = u8::decode(d)?;
            let value = Value::decode(d)?;
            entries.push((k, Entry { scope, value }));
        }
        procs.push(ProcBlob { proc_, entries });
    }
    Ok(procs)
}

/// Decode a concatenation of server blobs (possibly empty).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if any part is malformed, of an unknown version, or if the parts
/// disagree on whether the fence collected data; nothing is returned in that case.
pub fn decode_blobs(bytes: &[u8]) -> Result<Vec<Blob>> {
    let mut d = Decoder::new(bytes);
    let mut out = Vec::new();
    let bad = |e: Error| Error::bad_param(format!("malformed fence/modex data: {}", e.context));
    while !d.is_empty() {
        let magic = u32::decode(&mut d).map_err(bad)?;
        if magic != BLOB_MAGIC {
            return Err(Error::bad_param("malformed fence/modex data: bad magic"));
        }
        let ver = u16::decode(&mut d).map_err(bad)?;
        if ver != BLOB_VERSION {
            return Err(Error::bad_param(format!(
                "fence/modex data of unknown version {}",
                ver
            )));
        }
        let flags = u8::decode(&mut d).map_err(bad)?;
        let len = u32::decode(&mut d).map_err(bad)? as usize;
        let body = d.take(len).map_err(bad)?;
        let mut bd = Decoder::new(body);
        let procs = decode_blob_body(&mut bd).map_err(bad)?;
        if !bd.is_empty() {
            return Err(Error::bad_param(
                "malformed fence/modex data: trailing bytes",
            ));
        }
        out.push(Blob {
            collect: flags & 1 != 0,
            procs,
        });
    }
    if let Some(first) = out.first() {
        if out.iter().any(|b| b.collect != first.collect) {
            return Err(Error::bad_param(
                "servers disagree on whether the fence collects data",
            ));
        }
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
    fn messages_round_trip_and_truncations_fail() {
        roundtrip(Hello {
            version: VERSION,
            proc_: p("ns", 3),
            pid: 42,
            uid: 1000,
            gid: 100,
        });
        let mut jd = JobData {
            nspace: Nspace::new("ns").unwrap(),
            job: vec![Info::new("pmix.job.size", Value::Uint32(4)).unwrap()],
            apps: vec![(0, vec![Info::new("a", Value::Int8(-1)).unwrap()])],
            nodes: vec![NodeData {
                id: Some(0),
                hostname: Some("h".into()),
                info: vec![],
            }],
            procs: BTreeMap::new(),
        };
        jd.procs
            .insert(1, vec![Info::new("pmix.lrank", Value::Uint16(1)).unwrap()]);
        roundtrip(Welcome::Accepted {
            server: p("srv", 0),
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
        roundtrip(ServerMsg::Forget {
            proc_: p("ns", 2),
            key: Key::new("gone").unwrap(),
        });
        roundtrip(ServerMsg::Event {
            status: sys::PMIX_ERR_LOST_CONNECTION,
            source: p("srv", 0),
            info: vec![],
        });
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

    #[test]
    fn blobs_concatenate_and_reject_corruption() {
        let e = |v: i32| Entry {
            scope: sys::PMIX_GLOBAL,
            value: Value::Int(v),
        };
        let a = Blob {
            collect: true,
            procs: vec![ProcBlob {
                proc_: p("ns", 0),
                entries: vec![(Key::new("k").unwrap(), e(1))],
            }],
        };
        let b = Blob {
            collect: true,
            procs: vec![ProcBlob {
                proc_: p("ns", 1),
                entries: vec![(Key::new("k").unwrap(), e(2))],
            }],
        };
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
        let mut mixed = encode_blob(&a);
        mixed.extend(encode_blob(&Blob {
            collect: false,
            procs: vec![],
        }));
        assert_eq!(
            decode_blobs(&mixed).unwrap_err().status,
            sys::PMIX_ERR_BAD_PARAM
        );
    }
}
