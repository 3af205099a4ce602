//! The one translation between an OpenPMIx (v41) connection and the engine: a
//! [`Framing`] that turns the peer's connect message into a [`Hello`] and its requests
//! into [`Request`]s, and the engine's [`Welcome`] and [`ServerMsg`]s back into v41
//! replies and events. The state machine behind it sees ordinary frames of our own
//! protocol; nothing there knows which dialect a connection speaks.
//!
//! What the engine has no message for is answered here: the status reply v41 clients
//! expect for a commit and an event registration (`Translation::local`, sent by the
//! connection's owner after the engine has taken the request), and the refusal of a
//! connect message that asks for what we do not implement (`Translation::refusal`).

use super::ds21::Stores;
use crate::codec::v41::wire::{
    cmds::{self, cmd, Command, Sender},
    frame::{self, FrameDecoder as V41Decoder, HEADER_LEN},
    handshake::{self, ClientHello},
    replies,
};
use crate::error::{Error, Result};
use crate::protocol::{self, Hello, IofReq, PeerKind, ReplyData, Req, Request, ServerMsg, Welcome};
use crate::reactor::Framing;
use crate::value::{Info, ProcId};
use pmix_sys as sys;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// What an answered request needs to be encoded for v41: its command and, for a Get,
/// whose data it asked for.
#[derive(Debug, Clone)]
struct Pending {
    cmd: u8,
    target: Option<ProcId>,
    /// An IOF pull's id for the registration (the client's; our reply names it as the
    /// server's too).
    refid: Option<u64>,
}

#[derive(Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for the connect message.
    Hello,
    /// Connect message taken; munged is checking its credential (off the progress
    /// thread, [`super::cred::check_later`]).
    Checking,
    /// Connect message taken; waiting for the engine's Welcome.
    Welcome,
    /// Accepted.
    Ready,
}

/// The per-connection translation state, shared by the framing and the owner.
#[derive(Debug)]
pub struct Translation {
    phase: Phase,
    /// The uid the kernel says owns the peer's socket.
    kernel_uid: u32,
    /// Who the peer is, once its connect message is taken.
    sender: Option<Sender>,
    pending: HashMap<u32, Pending>,
    /// Replies made here (native [`ServerMsg`] bodies), for the owner to send.
    local: Vec<Vec<u8>>,
    /// Requests decoded for the engine, oldest first, each with its v41 body's length:
    /// the owner hands them over as they are ([`Translation::take_decoded`]; an empty
    /// frame stands for each), not encoded in our protocol only to be decoded again.
    decoded: std::collections::VecDeque<(Request, usize)>,
    /// A refused connect message: the status to answer with.
    refusal: Option<i32>,
    /// A tool's process-type flag (its handshake answer has the tool layout).
    tool: Option<u8>,
    /// A connect message whose munge credential munged is to check: the owner hands
    /// the credential to a worker (taken once), the message waits here for the verdict.
    munge: Option<(ClientHello, Option<Vec<u8>>)>,
    /// The server's ds21 stores (none: `PMIX_RS_DS21=0`).
    stores: Option<Arc<Stores>>,
    /// The peer chose the ds21 gds: its namespace's store is written before the first
    /// job-info reply.
    ds21: bool,
}

/// The translation shared between a connection's framing and its owner.
pub type Shared = Arc<Mutex<Translation>>;

/// Lock, ignoring a poisoned lock (the state stays consistent between calls).
pub fn lock(t: &Shared) -> MutexGuard<'_, Translation> {
    t.lock().unwrap_or_else(|p| p.into_inner())
}

impl Translation {
    /// A new connection whose socket the kernel says `kernel_uid` owns.
    pub fn new(kernel_uid: u32, stores: Option<Arc<Stores>>) -> Shared {
        Arc::new(Mutex::new(Translation {
            phase: Phase::Hello,
            kernel_uid,
            sender: None,
            pending: HashMap::new(),
            local: Vec::new(),
            decoded: Default::default(),
            refusal: None,
            tool: None,
            munge: None,
            stores,
            ds21: false,
        }))
    }

    /// Replies made here since the last call, for the owner to send (through the framing).
    pub fn take_local(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.local)
    }

    /// The oldest request decoded for the engine and its v41 body's length.
    pub fn take_decoded(&mut self) -> Option<(Request, usize)> {
        self.decoded.pop_front()
    }

    /// The status of a refused connect message, once.
    pub fn take_refusal(&mut self) -> Option<i32> {
        self.refusal.take()
    }

    fn answer_here(&mut self, tag: u32, cmd: u8, status: i32) {
        self.pending.insert(
            tag,
            Pending {
                cmd,
                target: None,
                refid: None,
            },
        );
        let m = ServerMsg::Reply {
            tag,
            status,
            data: ReplyData::None,
        };
        self.local.push(protocol::encode(&m));
    }

    /// A munge credential to have checked, once (the connect message waits for
    /// [`Translation::munge_verdict`]).
    pub fn take_munge(&mut self) -> Option<Vec<u8>> {
        self.munge.as_mut().and_then(|(_, c)| c.take())
    }

    /// Whether a connect message still waits for munged's verdict.
    pub fn checking(&self) -> bool {
        self.phase == Phase::Checking
    }

    /// Munged's verdict on the waiting connect message: the engine's Hello of it, or
    /// the status to refuse it with (logged). `None` when nothing waits (a verdict that
    /// came after the deadline's).
    pub fn munge_verdict(&mut self, verdict: Result<(u32, u32)>) -> Option<Result<Vec<u8>>> {
        if self.phase != Phase::Checking {
            return None;
        }
        let (h, _) = self.munge.take()?;
        let r = verdict.and_then(|ids| self.accept_hello(&h, ids));
        Some(r.map_err(|e| {
            log::warn!("server: refusing an OpenPMIx peer: {}", e.context);
            self.phase = Phase::Welcome;
            Error::new(status_or_error(e.status), e.context)
        }))
    }

    /// Check a connect message and make the engine's Hello of it; `None` when its munge
    /// credential must be checked first (phase [`Phase::Checking`]).
    fn hello(&mut self, payload: &[u8]) -> Result<Option<Vec<u8>>> {
        let h = handshake::decode_client_hello(payload)?;
        handshake::check_client_hello(&h)?;
        if h.psec == "munge" {
            let cred = h.credential.clone();
            self.munge = Some((h, Some(cred)));
            self.phase = Phase::Checking;
            return Ok(None);
        }
        let ids = claimed_ids(&h)?;
        self.accept_hello(&h, ids).map(Some)
    }

    /// The engine's Hello of a checked connect message whose credential vouches for
    /// `(uid, gid)`.
    fn accept_hello(&mut self, h: &ClientHello, (uid, gid): (u32, u32)) -> Result<Vec<u8>> {
        if uid != self.kernel_uid {
            return Err(Error::new(
                sys::PMIX_ERR_INVALID_CRED,
                format!(
                    "v41 handshake: the peer claims uid {} but the kernel says its socket \
                     belongs to uid {}",
                    uid, self.kernel_uid
                ),
            ));
        }
        let kind = peer_kind(h.flag)?;
        let me = match (kind, h.proc_.clone()) {
            (PeerKind::ToolAssign, _) => ProcId::default(),
            (_, Some(p)) => p,
            (_, None) => return Err(Error::unpack("v41 handshake: no identity")),
        };
        if kind != PeerKind::Client {
            self.tool = Some(h.flag);
        }
        log::debug!(
            "server: OpenPMIx {} client {} (bfrops {}, gds {}, psec {})",
            h.version,
            me,
            h.bfrops,
            h.gds,
            h.psec
        );
        let pid = h
            .info
            .iter()
            .find(|i| i.key.as_str() == sys::attrs::keys::PMIX_PROC_PID)
            .and_then(|i| match i.value {
                crate::value::Value::Pid(p) => Some(p),
                _ => None,
            })
            .unwrap_or(0);
        let hello = Hello {
            version: protocol::VERSION,
            proc_: me.clone(),
            pid,
            uid,
            gid,
            kind,
        };
        let peer = handshake::version_of(&h.version).unwrap_or(cmds::PEER_UNKNOWN);
        self.ds21 = h.gds == "ds21";
        self.sender = Some(Sender::new(me, uid, peer));
        self.phase = Phase::Welcome;
        Ok(protocol::encode(&hello))
    }

    /// A v41 request, decoded for the engine ([`Translation::take_decoded`]) or
    /// answered here.
    fn request(&mut self, tag: u32, body: &[u8]) -> Result<()> {
        let Some(s) = self.sender.clone() else {
            return Err(Error::bad_param("v41: a request before the handshake"));
        };
        let c = match cmds::decode_request(body, &s) {
            Ok(c) => c,
            Err(e) if e.status == sys::PMIX_ERR_NOT_SUPPORTED => {
                log::info!("server: v41 client {}: {}", s.me, e.context);
                self.answer_here(tag, cmd::NOTIFY, e.status);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let req = match c {
            Command::RegEvents { .. } => {
                self.answer_here(tag, cmd::REGEVENTS, sys::PMIX_SUCCESS);
                return Ok(());
            }
            Command::DeregEvents { .. } => return Ok(()),
            Command::Req(r) => r,
        };
        if let Req::Commit { puts } = &req {
            // Into the namespace's ds21 store first (when written), so that a peer
            // reads the values there once a fence after this commit has completed.
            if let Some(st) = &self.stores {
                st.commit(&s.me, puts);
            }
            // The engine answers no commit; v41 clients wait for a status.
            self.answer_here(tag, cmd::COMMIT, sys::PMIX_SUCCESS);
            self.decoded
                .push_back((Request { tag: 0, req }, body.len()));
            return Ok(());
        }
        let code = cmds::req_code(&req).unwrap_or(cmd::NOTIFY);
        let target = match &req {
            Req::Get { target, .. } => Some(target.clone()),
            Req::JobData { nspace } => Some(ProcId::new(nspace.clone(), sys::PMIX_RANK_WILDCARD)),
            _ => None,
        };
        let refid = match &req {
            Req::Iof(IofReq::Pull { id, .. }) => Some(*id),
            _ => None,
        };
        self.pending.insert(
            tag,
            Pending {
                cmd: code,
                target,
                refid,
            },
        );
        self.decoded.push_back((Request { tag, req }, body.len()));
        Ok(())
    }

    /// One engine message as v41 bytes (header and body) appended to `out`.
    fn encode(&mut self, body: &[u8], out: &mut Vec<u8>) -> Result<()> {
        if self.phase == Phase::Welcome && self.tool.is_some() {
            return self.tool_welcome(body, out);
        }
        if self.phase == Phase::Welcome {
            let w = welcome_status(body)?;
            let r = handshake::ServerReply::Client {
                status: w,
                pindex: (w == sys::PMIX_SUCCESS).then_some(0),
            };
            out.extend_from_slice(&handshake::encode_server_reply(&r));
            self.phase = Phase::Ready;
            return Ok(());
        }
        if let Some((tag, status)) = self.fence_reply(body) {
            // The collected data (every participant's, in each reply) is not read.
            self.pending.remove(&tag);
            let b = replies::encode_reply(cmd::FENCENB, status, &ReplyData::None)?;
            return frame::encode_frame(0, tag, &b, out);
        }
        let m: ServerMsg = protocol::decode(body)?;
        match m {
            ServerMsg::Reply { tag, status, data } => {
                let p = self.pending.remove(&tag).unwrap_or(Pending {
                    cmd: cmd::NOTIFY,
                    target: None,
                    refid: None,
                });
                if let (cmd::REQ, ReplyData::Job(j)) = (p.cmd, &data) {
                    return self.job_info_reply(tag, j, out);
                }
                let b = reply_body(&p, status, &data, self.sender.as_ref()).or_else(|e| {
                    log::warn!(
                        "server: v41 reply to command {} cannot carry its data ({}); \
                         answering with the status only",
                        p.cmd,
                        e.context
                    );
                    replies::encode_reply(p.cmd, status_or_error(status), &ReplyData::None)
                })?;
                frame::encode_frame(0, tag, &b, out)
            }
            ServerMsg::Iof { id, chunk } => {
                let b = replies::encode_iof(id, &chunk)?;
                frame::encode_frame(0, frame::TAG_IOF, &b, out)
            }
            m @ ServerMsg::Event { .. } => {
                let b = replies::encode_event(&m, sys::PMIX_RANGE_SESSION)?;
                frame::encode_frame(0, frame::TAG_NOTIFY, &b, out)
            }
            other => {
                log::debug!(
                    "server: v41 peers have no message for {:?}; not sent",
                    std::mem::discriminant(&other)
                );
                Ok(())
            }
        }
    }
}

impl Translation {
    /// The reply to a job-info request: the job info a hash client keeps; a ds21
    /// client's own namespace's store is written first (once per namespace), from the
    /// same job info.
    fn job_info_reply(&self, tag: u32, j: &crate::store::JobData, out: &mut Vec<u8>) -> Result<()> {
        let info = replies::job_info_reply(j)?;
        if let (true, Some(st), Some(s)) = (self.ds21, &self.stores, &self.sender) {
            if s.me.nspace == info.nspace {
                st.write_job(&info);
            }
        }
        frame::encode_frame(0, tag, &replies::encode_job_info(&info)?, out)
    }

    /// The tag and status of an engine reply to a pending fence, read from the reply's
    /// head alone: a v41 fence reply is the status only (OpenPMIx 4.2 and 5 clients
    /// read nothing after it; they fetch peers' data with Gets), so the collected data
    /// behind it is never decoded.
    fn fence_reply(&self, body: &[u8]) -> Option<(u32, i32)> {
        let tag = protocol::reply_tag(body)?;
        if self.pending.get(&tag)?.cmd != cmd::FENCENB {
            return None;
        }
        Some((tag, protocol::reply_status(body)?))
    }

    /// A tool's handshake answer: status, the identity assigned to a tool that asked for
    /// one, the server's identity, the security handshake's status.
    fn tool_welcome(&mut self, body: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let w: Welcome = protocol::decode(body)?;
        self.phase = Phase::Ready;
        let r = match w {
            Welcome::Accepted { server, you, .. } => {
                let needs_id = self.tool == Some(handshake::flag::TOOL_NEEDS_ID);
                let uid = self.kernel_uid;
                let peer = self.sender.as_ref().map_or(cmds::PEER_UNKNOWN, |s| s.peer);
                self.sender = Some(Sender::new(you.clone(), uid, peer));
                handshake::ServerReply::Tool {
                    status: sys::PMIX_SUCCESS,
                    assigned: needs_id.then_some(you),
                    server: Some(server),
                    sec_status: 0,
                }
            }
            Welcome::Refused { status, reason } => {
                log::info!("server: v41 tool refused: {}", reason);
                handshake::ServerReply::Tool {
                    status: status_or_error(status),
                    assigned: None,
                    server: None,
                    sec_status: 0,
                }
            }
        };
        out.extend_from_slice(&handshake::encode_server_reply(&r));
        Ok(())
    }
}

/// Our peer kind for a v41 process-type flag (launchers and singletons are not served).
fn peer_kind(flag: u8) -> Result<PeerKind> {
    use handshake::flag as f;
    Ok(match flag {
        f::SIMPLE_CLIENT => PeerKind::Client,
        f::TOOL_NEEDS_ID => PeerKind::ToolAssign,
        f::TOOL_GIVEN_ID | f::TOOL_CLIENT => PeerKind::ToolNamed,
        other => {
            return Err(Error::not_supported(format!(
                "v41 handshake: process type {} (launchers and singletons are not served \
                 over the OpenPMIx listener)",
                other
            )))
        }
    })
}

fn status_or_error(s: i32) -> i32 {
    if s == sys::PMIX_SUCCESS {
        sys::PMIX_ERROR
    } else {
        s
    }
}

/// The uid and gid a connect message claims (its native credential).
fn claimed_ids(h: &ClientHello) -> Result<(u32, u32)> {
    match h.psec.as_str() {
        "native" => handshake::parse_native_credential(&h.credential),
        _ => h.ids.ok_or_else(|| {
            Error::new(
                sys::PMIX_ERR_INVALID_CRED,
                format!("v41 handshake: security {:?} with no uid", h.psec),
            )
        }),
    }
}

/// The status of an engine Welcome (its first byte says accepted or refused).
fn welcome_status(body: &[u8]) -> Result<i32> {
    match body.first() {
        Some(0) => Ok(sys::PMIX_SUCCESS),
        Some(1) => match protocol::decode::<Welcome>(body)? {
            Welcome::Refused { status, reason } => {
                log::info!("server: v41 client refused: {}", reason);
                Ok(status_or_error(status))
            }
            Welcome::Accepted { .. } => Ok(sys::PMIX_SUCCESS),
        },
        _ => Err(Error::unpack("v41: an engine message that is no welcome")),
    }
}

/// The v41 body of the reply to `p` (a collecting fence's data is not carried: v41
/// clients fetch their peers' data with Gets) for the client `to` (a group construct's
/// reply differs between OpenPMIx 4.2 and 5.x clients).
fn reply_body(p: &Pending, status: i32, data: &ReplyData, to: Option<&Sender>) -> Result<Vec<u8>> {
    match (p.cmd, data) {
        (cmd::GROUP_CONSTRUCT, d) => {
            let (v5, own) = to.map_or((false, Default::default()), |s| {
                (s.peer_is_v5(), s.me.nspace.clone())
            });
            let g = match d {
                ReplyData::Group(g) => Some(&**g),
                _ => None,
            };
            replies::encode_group_reply(status, g, v5, &own)
        }
        // STATUS, and on success the server's id for the registration: the client's
        (cmd::IOF_PULL, _) => Ok(replies::encode_pull_reply(status, p.refid)),
        (cmd::GROUP_DESTRUCT, _) => {
            replies::encode_reply(cmd::GROUP_DESTRUCT, status, &ReplyData::None)
        }
        (cmd::FENCENB, _) => replies::encode_reply(cmd::FENCENB, status, &ReplyData::None),
        (cmd::GETNB, ReplyData::Data(infos)) if status == sys::PMIX_SUCCESS => {
            let who = p.target.clone().unwrap_or_default();
            replies::encode_get_reply(status, &[(who, infos.clone())])
        }
        (cmd::GETNB, _) => replies::encode_get_reply(status, &[]),
        (cmd::QUERY, ReplyData::Data(infos)) => {
            replies::encode_reply(cmd::QUERY, status, &ReplyData::Data(flat_query(infos)))
        }
        (cmd::REQ, d) if !matches!(d, ReplyData::Job(_)) => {
            // A namespace the server has no job data for (a tool's own): none.
            let nspace = p.target.clone().unwrap_or_default().nspace;
            replies::encode_job_info(&replies::JobInfo {
                nspace,
                kvals: Vec::new(),
            })
        }
        (c, d) => replies::encode_reply(c, status, d),
    }
}

/// A query reply in the form OpenPMIx's tools read it: one info per key found (`pps`
/// takes `info[0]` as the `PMIX_QUERY_NAMESPACES` string, `pquery` prints each info by
/// its key). OpenPMIx 4.2.x and 5.x libraries hand the server's infos to the caller as
/// they are, so the engine's `PMIX_QUERY_RESULTS` arrays (one per query, qualifiers
/// first) are unwrapped here; infos of any other key stay as they are.
fn flat_query(infos: &[Info]) -> Vec<Info> {
    let mut out = Vec::new();
    for i in infos {
        match crate::store::info_array(&i.value) {
            Some(list) if i.key.as_str() == sys::attrs::keys::PMIX_QUERY_RESULTS => out.extend(
                list.into_iter()
                    .filter(|x| x.key.as_str() != sys::attrs::keys::PMIX_QUERY_QUALIFIERS),
            ),
            _ => out.push(i.clone()),
        }
    }
    out
}

/// The framing of a v41 connection (see the module documentation).
pub struct V41Framing {
    t: Shared,
    dec: V41Decoder,
    /// Bytes of the connect message (its header is in host order, no v41 frame).
    hello: Vec<u8>,
    limit: usize,
}

impl V41Framing {
    /// The framing of a new connection, sharing `t` with its owner.
    pub fn new(t: Shared, limit: usize) -> V41Framing {
        V41Framing {
            t,
            dec: V41Decoder::with_limit(limit),
            hello: Vec::new(),
            limit,
        }
    }

    /// The connect message, once all of it is here.
    fn next_hello(&mut self) -> Result<Option<Vec<u8>>> {
        let Some(h) = self.hello.first_chunk::<HEADER_LEN>() else {
            return Ok(None);
        };
        let n = handshake::hello_len(h)?;
        if n > self.limit {
            return Err(Error::new(
                sys::PMIX_ERR_BAD_PARAM,
                format!("v41 connect message of {} bytes (limit {})", n, self.limit),
            ));
        }
        if self.hello.len() < HEADER_LEN + n {
            return Ok(None);
        }
        let rest = self.hello.split_off(HEADER_LEN + n);
        let payload = self.hello.split_off(HEADER_LEN);
        self.hello.clear();
        self.dec.push(&rest);
        let mut t = lock(&self.t);
        match t.hello(&payload) {
            Ok(Some(b)) => Ok(Some(b)),
            // Empty: the owner has the credential checked.
            Ok(None) => Ok(Some(Vec::new())),
            Err(e) => {
                log::warn!("server: refusing an OpenPMIx peer: {}", e.context);
                t.refusal = Some(status_or_error(e.status));
                t.phase = Phase::Welcome;
                // Empty: the owner sends the refusal and closes.
                Ok(Some(Vec::new()))
            }
        }
    }
}

impl Framing for V41Framing {
    fn worth_yielding(&self) -> bool {
        false // an OpenPMIx peer answers through its own progress thread
    }
    fn push(&mut self, bytes: &[u8]) {
        if lock(&self.t).phase == Phase::Hello {
            self.hello.extend_from_slice(bytes);
        } else {
            self.dec.push(bytes);
        }
    }
    fn next_frame(&mut self) -> Result<Option<Vec<u8>>> {
        if lock(&self.t).phase == Phase::Hello {
            return self.next_hello();
        }
        {
            let t = lock(&self.t);
            if t.refusal.is_some() || t.phase == Phase::Checking {
                return Ok(None);
            }
        }
        let Some((h, body)) = self.dec.next_frame()? else {
            return Ok(None);
        };
        // Each request yields an empty frame: the owner hands the engine what was
        // decoded and sends what was answered here.
        lock(&self.t).request(h.tag, &body)?;
        Ok(Some(Vec::new()))
    }
    fn has_partial(&self) -> bool {
        !self.hello.is_empty() || self.dec.pending() > 0
    }
    fn set_limit(&mut self, max_frame: usize) {
        self.limit = max_frame;
        self.dec.set_limit(max_frame);
    }
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>) {
        if let Err(e) = lock(&self.t).encode(body, out) {
            log::warn!(
                "server: a message for a v41 peer could not be encoded: {}",
                e
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::JobData;
    use crate::value::{DataArray, Info, Nspace, Value};
    use sys::attrs::keys as k;

    fn spawned_job() -> JobData {
        JobData {
            nspace: Nspace::new("job.child.1").unwrap(),
            job: vec![Info::new(sys::attrs::keys::PMIX_JOB_SIZE, Value::Uint32(2)).unwrap()],
            ..JobData::default()
        }
    }

    #[test]
    fn spawn_reply_names_the_new_namespace_and_carries_its_job_info() {
        let p = Pending {
            cmd: cmd::SPAWNNB,
            target: None,
            refid: None,
        };
        let data = ReplyData::Job(Box::new(spawned_job()));
        let body = reply_body(&p, sys::PMIX_SUCCESS, &data, None).unwrap();
        // What an OpenPMIx client reads: status, namespace, then KVALs to the end.
        let (status, got) = replies::decode_reply(cmd::SPAWNNB, &body).unwrap();
        assert_eq!(status, sys::PMIX_SUCCESS);
        let ReplyData::Data(infos) = got else {
            panic!("no namespace in the spawn reply: {:?}", got)
        };
        assert_eq!(infos[0].value, Value::string("job.child.1"));
        let key = sys::attrs::keys::PMIX_JOB_SIZE.as_bytes();
        assert!(body.windows(key.len()).any(|w| w == key), "no job size");
    }

    #[test]
    fn a_fence_reply_is_the_status_without_decoding_the_collected_data() {
        let t = Translation::new(0, None);
        let mut t = lock(&t);
        t.phase = Phase::Ready;
        t.pending.insert(
            7,
            Pending {
                cmd: cmd::FENCENB,
                target: None,
                refid: None,
            },
        );
        let mut body = protocol::encode(&ServerMsg::Reply {
            tag: 7,
            status: sys::PMIX_SUCCESS,
            data: ReplyData::None,
        });
        // Collected data this translation must not need to read: not even decodable.
        body.pop();
        body.extend_from_slice(&[9, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]);
        let mut out = Vec::new();
        t.encode(&body, &mut out).unwrap();
        let h = frame::Header::from_bytes(out.first_chunk::<HEADER_LEN>().unwrap());
        assert_eq!(h.tag, 7);
        let (st, d) = replies::decode_reply(cmd::FENCENB, &out[HEADER_LEN..]).unwrap();
        assert_eq!((st, d), (sys::PMIX_SUCCESS, ReplyData::None));
        assert!(t.pending.is_empty(), "answered once");
        // Any other pending command's reply is decoded in full (and this one fails).
        t.pending.insert(
            8,
            Pending {
                cmd: cmd::GETNB,
                target: None,
                refid: None,
            },
        );
        protocol::set_reply_tag(&mut body, 8);
        assert!(t.encode(&body, &mut Vec::new()).is_err());
    }

    #[test]
    fn failed_spawn_reply_is_the_status_alone() {
        let p = Pending {
            cmd: cmd::SPAWNNB,
            target: None,
            refid: None,
        };
        let body = reply_body(&p, sys::PMIX_ERR_NOT_FOUND, &ReplyData::None, None).unwrap();
        let (status, got) = replies::decode_reply(cmd::SPAWNNB, &body).unwrap();
        assert_eq!(status, sys::PMIX_ERR_NOT_FOUND);
        assert_eq!(got, ReplyData::None);
    }

    fn wrapped(items: Vec<Info>) -> Info {
        Info::new(
            k::PMIX_QUERY_RESULTS,
            Value::DataArray(Box::new(DataArray {
                dtype: sys::PMIX_INFO,
                items: items
                    .into_iter()
                    .map(|i| Value::Info(Box::new(i)))
                    .collect(),
            })),
        )
        .unwrap()
    }

    #[test]
    fn query_results_are_unwrapped_for_v41_tools() {
        let ns = Info::new(k::PMIX_QUERY_NAMESPACES, Value::string("a,b")).unwrap();
        let size = Info::new(k::PMIX_JOB_SIZE, Value::Uint32(4)).unwrap();
        let quals = Info::new(
            k::PMIX_QUERY_QUALIFIERS,
            Value::DataArray(Box::new(DataArray {
                dtype: sys::PMIX_INFO,
                items: vec![Value::Info(Box::new(
                    Info::new(k::PMIX_NSPACE, Value::string("a")).unwrap(),
                ))],
            })),
        )
        .unwrap();
        let other = Info::new(k::PMIX_HOSTNAME, Value::string("h")).unwrap();
        let got = flat_query(&[
            wrapped(vec![ns.clone()]),
            wrapped(vec![quals, size.clone()]),
            other.clone(),
        ]);
        assert_eq!(got, vec![ns, size, other]);
        // As the reply's body: status, then the flat infos.
        let p = Pending {
            cmd: cmd::QUERY,
            target: None,
            refid: None,
        };
        let b = reply_body(
            &p,
            0,
            &ReplyData::Data(vec![wrapped(vec![got[0].clone()])]),
            None,
        )
        .unwrap();
        let (st, d) = replies::decode_reply(cmd::QUERY, &b).unwrap();
        assert_eq!((st, d), (0, ReplyData::Data(vec![got[0].clone()])));
    }
}
