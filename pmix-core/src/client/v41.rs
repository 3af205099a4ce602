//! Our client under an OpenPMIx server: the one place where the engine's messages and
//! OpenPMIx's protocol (4.2.x, bfrops v41, hash gds) meet.
//!
//! The engine does not know which server it talks to. It hands its [`Link`] each
//! request as it would to one of our servers (an encoded [`Request`]) and is handed each
//! server message as one of ours (an encoded [`ServerMsg`]). For an OpenPMIx server the
//! link is a `V41Link` and the connection's framing a [`V41Framing`]; both share one
//! [`Xlate`], the per-connection state of the translation:
//!
//! * out: our `Request` → [`Command`] → a v41 body with a fresh v41 tag and the
//!   connection's pindex; the v41 tag is remembered with our tag and the command code
//!   (a v41 reply is decoded by the code of the command it answers);
//! * in: a v41 reply → `ServerMsg::Reply` under our tag; the server's event delivery
//!   (tag 0) → `ServerMsg::Event`. A commit (which we send without a reply tag) and an
//!   event registration ([`Link::events_wanted`]: OpenPMIx servers forward only the codes
//!   a client registered for) are answered by OpenPMIx servers; those replies are
//!   swallowed here.
//!
//! The handshake runs on the calling thread (`connect`), with a deadline; a server
//! offering no gds or security module we implement, or another bfrops, is refused there
//! with `PMIX_ERR_NOT_SUPPORTED` and one log line. After it the job info is fetched as
//! an OpenPMIx client does (`PMIX_REQ_CMD`) and installed as the namespace's job data, so
//! Gets of job, node, app and own keys are local as under our own servers. A malformed
//! v41 message closes the connection (the engine sees it lost), nothing else.
//!
//! The TCP socket travels through the reactor as the `UnixStream` every connection is
//! (`UnixStream::from(OwnedFd)`, safe code): the reactor only reads, writes, polls and
//! shuts it down, which are the same calls for both socket families.

use super::link::conn_owner;
use super::{lock, Client, Inner, Link, HANDSHAKE_TIMEOUT};
use crate::codec::v41::wire::{
    cmds::{self, Command, Sender},
    frame::{self, FrameDecoder, Header, TagCounter, TAG_IOF, TAG_NOTIFY},
    handshake::{self, ClientHello, ServerReply},
    replies,
};
use crate::error::{Error, Result};
use crate::params;
use crate::protocol::{self, DynReq, GroupOp, IofReq, PeerKind, Put, Req, Request, ServerMsg};
use crate::reactor::{self, ConnId, Ctx, Framing, Handle};
use crate::value::{Nspace, ProcId, Value};
use pmix_sys as sys;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

/// What a reply answers: our tag (0: nobody waits, the reply is swallowed) and the v41
/// command code it is decoded by.
type Awaited = (u32, u8);

/// The per-connection state of the translation (see the module documentation).
pub struct Xlate {
    pindex: i32,
    sender: Sender,
    tags: TagCounter,
    awaited: HashMap<u32, Awaited>,
    /// IOF pulls awaiting their reply: v41 tag → our id of the registration.
    pulls: HashMap<u32, u64>,
    /// Accepted IOF pulls: our id → the server's (a deregistration names the server's).
    iof_refs: HashMap<u64, u64>,
    /// The v41 tag of the last command framed.
    last_tag: u32,
}

impl Xlate {
    /// The translation for a connection the server gave `pindex`, from `sender`.
    pub fn new(pindex: i32, sender: Sender) -> Xlate {
        Xlate {
            pindex,
            sender,
            tags: TagCounter::default(),
            awaited: HashMap::new(),
            pulls: HashMap::new(),
            iof_refs: HashMap::new(),
            last_tag: 0,
        }
    }

    /// One of the engine's encoded [`Request`]s as a framed v41 message.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` for a request with no OpenPMIx counterpart (allgather,
    /// group invite/join/leave, host operations); `PMIX_ERR_NOT_FOUND` for the
    /// deregistration of an IOF pull the server never accepted, or (to a 5.x server)
    /// the destruct of a group whose members we do not know; the decoding error of a
    /// body that is not a `Request`.
    pub fn request(&mut self, body: &[u8]) -> Result<Vec<u8>> {
        let Request { tag, mut req } = protocol::decode::<Request>(body)?;
        match &mut req {
            Req::Commit { puts } => {
                *puts = std::mem::take(puts).into_iter().map(compress_put).collect();
            }
            // The engine dropped its cached copy already: asking again is the refresh.
            // (A 4.2 server answers a refresh of a local peer with no data at all.)
            Req::Get { info, .. } => {
                info.retain(|i| i.key.as_str() != sys::attrs::keys::PMIX_GET_REFRESH_CACHE);
            }
            // OpenPMIx's client gives an app without a working directory its own (4.2.2
            // `PMIx_Spawn_nb`): ORTE resolves a relative command against it.
            Req::Dyn(DynReq::Spawn { apps, .. }) => {
                for a in apps.iter_mut().filter(|a| a.cwd.is_none()) {
                    a.cwd = std::env::current_dir()
                        .ok()
                        .map(|d| d.into_os_string().into_encoded_bytes());
                }
            }
            // A 5.x server keeps no group membership: it counts a destruct's participants
            // from the members the request names, and refuses one that names none
            // (PRRTE 3.0.14: BAD_PARAM). OpenPMIx 5's own client answers the destruct of
            // a group it does not know NOT_FOUND without asking; so do we.
            Req::Dyn(DynReq::Group { op, id, procs, .. })
                if *op == GroupOp::Destruct as u8
                    && procs.is_empty()
                    && self.sender.peer_is_v5() =>
            {
                return Err(Error::not_found(format!(
                    "group {} is not one of this process's groups",
                    id
                )));
            }
            // The server knows the registration by its own id.
            Req::Iof(IofReq::Deregister { id, .. }) => {
                *id = self.iof_refs.remove(id).ok_or_else(|| {
                    Error::not_found(format!("IOF registration {} unknown to the server", id))
                })?;
            }
            _ => {}
        }
        let pull = match &req {
            Req::Iof(IofReq::Pull { id, .. }) => Some(*id),
            _ => None,
        };
        let out = self.command(tag, &Command::Req(req))?;
        if let Some(id) = pull {
            self.pulls.insert(self.last_tag, id);
        }
        Ok(out)
    }

    /// `c` as a framed v41 message; its reply goes to our `tag` (0: swallowed).
    ///
    /// # Errors
    /// As [`cmds::encode_request`].
    pub fn command(&mut self, tag: u32, c: &Command) -> Result<Vec<u8>> {
        let code = c.code()?;
        let body = cmds::encode_request(c, &self.sender)?;
        let v41_tag = self.tags.next_tag();
        self.last_tag = v41_tag;
        if c.has_reply() {
            self.awaited.insert(v41_tag, (tag, code));
        }
        frame::frame(self.pindex, v41_tag, &body)
    }

    /// A v41 message from the server as one of our [`ServerMsg`] bodies; `None` for a
    /// reply nobody waits for (logged when it is a failure) or an unknown tag.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_*` for a malformed body (the connection is closed).
    pub fn server_msg(&mut self, h: &Header, body: &[u8]) -> Result<Option<Vec<u8>>> {
        if h.tag == TAG_NOTIFY {
            return Ok(Some(protocol::encode(&replies::decode_event(body)?)));
        }
        if h.tag == TAG_IOF {
            let (id, chunk) = replies::decode_iof(body)?;
            return Ok(Some(protocol::encode(&ServerMsg::Iof {
                id,
                chunk: Box::new(chunk),
            })));
        }
        let Some((tag, code)) = self.awaited.remove(&h.tag) else {
            log::debug!("v41 client: message with unknown tag {} dropped", h.tag);
            return Ok(None);
        };
        if let Some(id) = self.pulls.remove(&h.tag) {
            if let Some(refid) = replies::iof_pull_refid(body)? {
                self.iof_refs.insert(id, refid);
            }
        }
        let (status, data) = replies::decode_reply(code, body)?;
        if tag == 0 {
            if status != sys::PMIX_SUCCESS {
                log::debug!("v41 client: command {} answered {}", code, status);
            }
            return Ok(None);
        }
        Ok(Some(protocol::encode(&ServerMsg::Reply {
            tag,
            status,
            data,
        })))
    }
}

/// A long string put as OpenPMIx's `PMIx_Put` stores it: `PMIX_COMPRESSED_STRING`
/// (zlib, [`crate::compress`]) when it is over the compression limit and gets smaller,
/// so an OpenPMIx reader finds what its own peers send.
pub fn compress_put(mut p: Put) -> Put {
    if let Value::String(Some(s)) = &p.value {
        if s.len() > crate::compress::MIN_INPUT {
            if let Some(z) = crate::compress::compress(s) {
                p.value = Value::CompressedString(z);
            }
        }
    }
    p
}

/// The framing of a connection to an OpenPMIx server: v41 messages in, our
/// [`ServerMsg`] bodies out (through the shared [`Xlate`]).
pub struct V41Framing {
    dec: FrameDecoder,
    x: Arc<Mutex<Xlate>>,
    /// The socket, to keep its acknowledgements immediate (`TCP_QUICKACK`, which the
    /// kernel drops again as it sees fit: set after every read). Without it a server
    /// reply written while an earlier one (the commit's, which we do not answer) waits
    /// for its acknowledgement is held back by the server's Nagle until our delayed
    /// acknowledgement, 40 ms (measured: every collecting fence after a commit).
    ack: Option<TcpStream>,
}

impl Framing for V41Framing {
    fn worth_yielding(&self) -> bool {
        false // an OpenPMIx peer answers through its own progress thread
    }
    fn push(&mut self, bytes: &[u8]) {
        self.dec.push(bytes);
        if let Some(s) = &self.ack {
            if let Err(e) = rustix::net::sockopt::set_tcp_quickack(s, true) {
                log::debug!("v41 client: TCP_QUICKACK: {}", e);
                self.ack = None;
            }
        }
    }
    fn next_frame(&mut self) -> Result<Option<Vec<u8>>> {
        while let Some((h, body)) = self.dec.next_frame()? {
            match lock(&self.x).server_msg(&h, &body) {
                Ok(Some(m)) => return Ok(Some(m)),
                Ok(None) => {}
                Err(e) => {
                    log::warn!(
                        "v41 client: malformed message (tag {}, {} bytes) from the server: {}",
                        h.tag,
                        body.len(),
                        e
                    );
                    return Err(e);
                }
            }
        }
        Ok(None)
    }
    fn has_partial(&self) -> bool {
        self.dec.pending() > 0
    }
    fn set_limit(&mut self, max_frame: usize) {
        self.dec.set_limit(max_frame);
    }
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>) {
        match lock(&self.x).request(body) {
            Ok(b) => out.extend_from_slice(&b),
            Err(e) => log::warn!("v41 client: request not sent: {}", e),
        }
    }
}

/// The engine's link to an OpenPMIx server: requests are translated and written on the
/// calling thread (so one that has no v41 counterpart fails at once, and no thread
/// handoff delays a request); what the socket does not take at once goes to the progress
/// thread, and so does everything after it, in order.
struct V41Link {
    id: ConnId,
    handle: Handle,
    x: Arc<Mutex<Xlate>>,
    out: Mutex<Out>,
}

/// The callers' side of the output.
struct Out {
    /// The callers' handle on the socket (`None` once closed).
    writer: Option<TcpStream>,
    /// The progress thread holds output: later messages queue behind it.
    via_reactor: bool,
}

fn lost(e: std::io::Error) -> Error {
    Error::new(
        sys::PMIX_ERR_LOST_CONNECTION,
        format!("the OpenPMIx server's connection: {}", e),
    )
}

impl V41Link {
    fn post(&self, bytes: Vec<u8>) -> Result<()> {
        let id = self.id;
        self.handle
            .post(move |ctx| {
                ctx.send_raw(id, &bytes);
            })
            .map_err(|e| Error::new(sys::PMIX_ERR_LOST_CONNECTION, e.context))
    }

    /// Write `bytes` from this thread as far as the socket takes them at once (the
    /// socket is non-blocking; std sends with `MSG_NOSIGNAL`), the rest through the
    /// progress thread.
    fn write_out(&self, bytes: Vec<u8>) -> Result<()> {
        let mut o = lock(&self.out);
        let mut done = 0;
        if !o.via_reactor {
            let Some(w) = o.writer.as_mut() else {
                return Err(Error::new(
                    sys::PMIX_ERR_LOST_CONNECTION,
                    "the connection to the OpenPMIx server is closed",
                ));
            };
            while done < bytes.len() {
                match w.write(bytes.get(done..).unwrap_or_default()) {
                    Ok(0) => break,
                    Ok(n) => done += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(lost(e)),
                }
            }
            if done == bytes.len() {
                return Ok(());
            }
            o.via_reactor = true;
        }
        // Posted under the lock: nothing written later can overtake it.
        self.post(bytes.get(done..).unwrap_or_default().to_vec())
    }
}

impl Link for V41Link {
    fn send(&self, body: &[u8]) -> Result<()> {
        let bytes = lock(&self.x).request(body)?;
        self.write_out(bytes)
    }
    fn close(&self, ctx: &mut Ctx) {
        // Our copy of the socket goes first, so that the close reaches the server.
        lock(&self.out).writer = None;
        ctx.close(self.id);
    }
    fn wait_yields(&self) -> u32 {
        // An OpenPMIx server answers through its own progress thread: on this machine's
        // two cores, yielding first made 8-rank fences 15 % slower (docs/PERF.md).
        0
    }
    fn events_wanted(&self, codes: &[i32]) {
        // 4.2's server forwards only codes registered by name (an empty registration is
        // acknowledged and never matched); the reply is swallowed.
        let c = Command::RegEvents {
            codes: codes.to_vec(),
            info: Vec::new(),
        };
        let sent = lock(&self.x)
            .command(0, &c)
            .and_then(|bytes| self.write_out(bytes));
        if let Err(e) = sent {
            log::warn!("v41 client: event registration not sent: {}", e);
        }
    }
}

fn unreach(addr: SocketAddr) -> impl Fn(std::io::Error) -> Error {
    move |e| {
        Error::new(
            sys::PMIX_ERR_UNREACH,
            format!("cannot reach the OpenPMIx server at {}: {}", addr, e),
        )
    }
}

/// The connect message for `me` in the security mode `psec`.
fn hello_for(me: &ProcId, psec: &str) -> Result<ClientHello> {
    let mut h = ClientHello::simple(me.clone(), crate::sys::euid(), crate::sys::egid());
    // No 4.2.x pad byte (as 5.x clients send it): a 5.x server reads a pad as an info
    // blob and logs PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER; 4.2.x servers need none.
    h.pad = false;
    if psec != h.psec {
        h.psec = psec.to_string();
        h.credential = handshake::credential(psec)?;
    }
    Ok(h)
}

/// Connect, send the connect message and read the answer on the calling thread: the
/// stream, the pindex, and what the server sent after its answer.
fn handshake(me: &ProcId, addr: SocketAddr) -> Result<(TcpStream, u32, Vec<u8>)> {
    let gds = handshake::choose_gds(params::get(params::PMIX_GDS_MODULE).as_deref())?;
    let psec = handshake::choose_psec(params::get(params::PMIX_SECURITY_MODE).as_deref())?;
    let err = unreach(addr);
    let mut s = TcpStream::connect_timeout(&addr, HANDSHAKE_TIMEOUT).map_err(&err)?;
    let hello = hello_for(me, psec)?;
    let (reply, rest) = exchange(&mut s, &hello, addr)?;
    let ServerReply::Client {
        pindex: Some(pindex),
        ..
    } = reply
    else {
        return Err(Error::unpack("v41 handshake: not a client's answer"));
    };
    log::debug!(
        "client {}: connected to the OpenPMIx server at {} (gds {}, security {}, pindex {})",
        me,
        addr,
        gds,
        psec,
        pindex
    );
    Ok((s, pindex, rest))
}

/// An OpenPMIx server to connect to.
pub(super) struct Server {
    /// Its identity, from its URI.
    pub id: ProcId,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its release as its rendezvous file states it (a tool's; see [`peer_release`]).
    pub release: Option<(u32, u32)>,
}

/// The release of OpenPMIx whose message forms we use with a server (the dialect's
/// [`Sender`] peer) and where we learnt it: the server's rendezvous file (`file`, how
/// a tool finds it: OpenPMIx's tools read it there too), else the variable OpenPMIx
/// servers give the clients they start (`PMIX_VERSION`, e.g. `5.0.11rc1`), else 4.2's.
fn peer_release(file: Option<(u32, u32)>) -> ((u32, u32), &'static str) {
    if let Some(r) = file {
        return (r, "its rendezvous file");
    }
    match params::get(params::PMIX_VERSION)
        .as_deref()
        .and_then(handshake::version_of)
    {
        Some(r) => (r, "PMIX_VERSION"),
        None => (cmds::PEER_UNKNOWN, "assumed"),
    }
}

/// Connect `me` to the OpenPMIx server `to` (see the module documentation).
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` for a server offering no gds/security we implement or a
/// tool identity; the server's refusal status; `PMIX_ERR_UNREACH` when it cannot be
/// reached or does not answer in time.
pub(super) fn connect(
    me: ProcId,
    to: Server,
    kind: PeerKind,
    hostname: String,
    handle: Handle,
) -> Result<Client> {
    let r = connect_as(me, to, kind, hostname, handle);
    if let Err(e) = &r {
        log::error!("PMIx client under an OpenPMIx server: {}", e);
    }
    r
}

fn connect_as(
    me: ProcId,
    to: Server,
    kind: PeerKind,
    hostname: String,
    handle: Handle,
) -> Result<Client> {
    if kind != PeerKind::Client {
        return connect_tool(me, to, kind, hostname, handle);
    }
    let (tcp, pindex, rest) = handshake(&me, to.addr)?;
    let nspace = me.nspace.clone();
    let (peer, _) = peer_release(to.release);
    let conn = Conn {
        tcp,
        rest,
        pindex: pindex as i32,
        addr: to.addr,
        peer,
    };
    attach(conn, me, to.id, kind, hostname, handle, vec![nspace])
}

/// A v41 connection whose handshake is done.
struct Conn {
    tcp: TcpStream,
    /// What the server sent after its answer.
    rest: Vec<u8>,
    /// Our peer index (-1 for a tool).
    pindex: i32,
    /// The server's address.
    addr: SocketAddr,
    /// The server's OpenPMIx release ([`peer_release`]).
    peer: (u32, u32),
}

/// The engine's side of a v41 connection whose handshake is done: the translation, the
/// reactor's framing, the link, and the client (`fetch`: the namespaces whose job data
/// is still to be asked for).
fn attach(
    conn: Conn,
    me: ProcId,
    server: ProcId,
    kind: PeerKind,
    hostname: String,
    handle: Handle,
    fetch: Vec<Nspace>,
) -> Result<Client> {
    let Conn {
        tcp,
        rest,
        pindex,
        addr,
        peer,
    } = conn;
    let err = unreach(addr);
    tcp.set_nonblocking(true).map_err(&err)?;
    let writer = tcp.try_clone().map_err(&err)?;
    let stream = reactor::stream_of(OwnedFd::from(tcp));
    let sender = Sender::new(me.clone(), crate::sys::euid(), peer);
    let x = Arc::new(Mutex::new(Xlate::new(pindex, sender)));
    let mut dec = FrameDecoder::new();
    dec.push(&rest);
    let (inner, _) = Inner::welcomed(
        (server, me, Vec::new()),
        &[],
        kind,
        hostname,
        handle.clone(),
    );
    let framing = V41Framing {
        dec,
        x: x.clone(),
        ack: writer.try_clone().ok(),
    };
    let id = handle.add_conn(stream, conn_owner(&inner), framing)?;
    let link = V41Link {
        id,
        handle,
        x,
        out: Mutex::new(Out {
            writer: Some(writer),
            via_reactor: false,
        }),
    };
    let _ = inner.link.set(Arc::new(link));
    Ok(Client::ready(inner, fetch))
}

/// A tool's connect message: `TOOL_GIVEN_ID` with `me`, or `TOOL_NEEDS_ID` (the server
/// assigns the identity); our uid and gid, our pid as `PMIX_PROC_PID` and our command
/// line as `PMIX_CMD_LINE`, as OpenPMIx's tools send them (PRRTE 3.0.14's `prterun`
/// dies of SIGSEGV when a tool's connect message has no `PMIX_CMD_LINE`: measured).
fn tool_hello(me: &ProcId, kind: PeerKind, psec: &str) -> Result<ClientHello> {
    let mut h = hello_for(me, psec)?;
    h.ids = Some((crate::sys::euid(), crate::sys::egid()));
    if kind == PeerKind::ToolAssign {
        h.flag = handshake::flag::TOOL_NEEDS_ID;
        h.proc_ = None;
    } else {
        h.flag = handshake::flag::TOOL_GIVEN_ID;
    }
    let pid = i32::try_from(std::process::id()).unwrap_or(0);
    let cmd: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let cmd = if cmd.is_empty() {
        "pmix-tool".to_string()
    } else {
        cmd.join(" ")
    };
    h.info = [
        crate::value::Info::new(sys::attrs::keys::PMIX_PROC_PID, Value::Pid(pid)),
        crate::value::Info::new(sys::attrs::keys::PMIX_CMD_LINE, Value::string(&cmd)),
    ]
    .into_iter()
    .flatten()
    .collect();
    Ok(h)
}

/// Send `hello` and read the server's answer on the calling thread (with the
/// handshake deadline): the answer and what the server sent after it.
fn exchange(
    s: &mut TcpStream,
    hello: &ClientHello,
    addr: SocketAddr,
) -> Result<(ServerReply, Vec<u8>)> {
    let err = unreach(addr);
    s.set_nodelay(true).map_err(&err)?;
    s.set_read_timeout(Some(HANDSHAKE_TIMEOUT)).map_err(&err)?;
    s.write_all(&handshake::encode_client_hello(hello)?)
        .map_err(&err)?;
    let mut got = Vec::new();
    loop {
        if let Some((r, used)) = handshake::decode_server_reply(hello.flag, &got)? {
            s.set_read_timeout(None).map_err(&err)?;
            return Ok((r, got.split_off(used)));
        }
        let mut b = [0u8; 1024];
        match s.read(&mut b).map_err(&err)? {
            0 => {
                return Err(Error::new(
                    sys::PMIX_ERR_UNREACH,
                    format!(
                        "the OpenPMIx server at {} closed the connection during the handshake",
                        addr
                    ),
                ))
            }
            n => got.extend_from_slice(b.get(..n).unwrap_or_default()),
        }
    }
}

/// A tool (`PMIx_tool_init`) attaching to the OpenPMIx server at `addr`: the tool form of
/// the handshake (the server assigns our identity when we have none and names itself),
/// then requests as a client's, with pindex -1 as OpenPMIx's tools send it. The tool's
/// own job data is made here (it has no job at the server); the server's namespace is
/// the one its answer names.
fn connect_tool(
    me: ProcId,
    to: Server,
    kind: PeerKind,
    hostname: String,
    handle: Handle,
) -> Result<Client> {
    let addr = to.addr;
    let psec = handshake::choose_psec(params::get(params::PMIX_SECURITY_MODE).as_deref())?;
    let err = unreach(addr);
    let mut tcp = TcpStream::connect_timeout(&addr, HANDSHAKE_TIMEOUT).map_err(&err)?;
    let hello = tool_hello(&me, kind, psec)?;
    let (reply, rest) = exchange(&mut tcp, &hello, addr)?;
    let ServerReply::Tool {
        assigned,
        server: named,
        sec_status,
        ..
    } = reply
    else {
        return Err(Error::unpack("v41 handshake: not a tool's answer"));
    };
    if sec_status != 0 {
        return Err(Error::new(
            sec_status as i32,
            format!(
                "the OpenPMIx server at {} refused our credential (status {})",
                addr, sec_status as i32
            ),
        ));
    }
    let me = match (kind, assigned) {
        (PeerKind::ToolAssign, Some(id)) => id,
        (PeerKind::ToolAssign, None) => {
            return Err(Error::unpack(
                "v41 handshake: no identity assigned to the tool",
            ))
        }
        _ => me,
    };
    let server = named.unwrap_or(to.id);
    let (peer, from) = peer_release(to.release);
    log::debug!(
        "tool {}: attached to the OpenPMIx server {} at {} (security {}); its release {}.{} ({})",
        me,
        server,
        addr,
        psec,
        peer.0,
        peer.1,
        from
    );
    let conn = Conn {
        tcp,
        rest,
        pindex: -1,
        addr,
        peer,
    };
    // A tool's own job data is local (Inner::welcomed makes it): nothing to fetch.
    attach(conn, me, server, kind, hostname, handle, Vec::new())
}

#[cfg(test)]
mod tests;
