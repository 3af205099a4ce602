//! The client engine's way to its server ([`Link`]) and the handshake.
//!
//! The engine is sans-I/O: it hands each request's frame to its [`Link`] and is handed
//! each frame the server sends ([`Client::receive`]) and the end of the connection
//! ([`Client::link_lost`]). In a process the link is the reactor's connection object
//! ([`reactor::DirectConn`]: the socket, the progress thread and the direct-read fast
//! path); a test may join a client and a server engine with an in-memory link instead.
//! The handshake is two pure steps ([`hello_frame`], [`welcome`]) around the one place
//! that does the socket's first exchange (`handshake`).

use super::*;

/// How the client engine reaches its server.
///
/// The connection owns its framing (see [`reactor::Ctx::add_conn`]): a link for another
/// wire dialect frames and encodes behind this trait, and the engine does not change.
pub trait Link: Send + Sync + 'static {
    /// Send one frame body to the server (from any thread). Frames sent from one thread
    /// reach the server in that order; a commit is on its way when this returns.
    ///
    /// # Errors
    /// `PMIX_ERR_LOST_CONNECTION` when the connection is gone.
    fn send(&self, body: &[u8]) -> Result<()>;

    /// Let the calling thread read its own reply (the direct-read fast path), when the
    /// link offers it and nobody else is reading; `None`: the reply comes through
    /// [`Client::receive`] as usual.
    fn take_reader(&self) -> Option<reactor::DirectReader> {
        None
    }

    /// Close the connection at our request (finalize), on the progress thread.
    fn close(&self, ctx: &mut Ctx);

    /// How many times a caller waiting for a reply over this link yields the CPU before
    /// it sleeps ([`reactor::WAIT_YIELDS`], the default, for our own servers).
    fn wait_yields(&self) -> u32 {
        reactor::WAIT_YIELDS
    }

    /// A handler for `codes` (empty: every code) was registered here. Our servers send
    /// every event to every client and need not hear of it (the default); a server that
    /// forwards only the codes a client registered for (OpenPMIx's) is told.
    fn events_wanted(&self, codes: &[i32]) {
        let _ = codes;
    }
}

/// The link of a connected process: the reactor's connection object.
struct SocketLink(Arc<reactor::DirectConn>);

impl Link for SocketLink {
    fn send(&self, body: &[u8]) -> Result<()> {
        self.0.send(body)
    }
    fn take_reader(&self) -> Option<reactor::DirectReader> {
        self.0.take()
    }
    fn close(&self, ctx: &mut Ctx) {
        ctx.close(self.0.id());
    }
}

/// The first frame a client sends: its `Hello`, framed (sans-I/O half of the handshake).
pub fn hello_frame(me: &ProcId, kind: protocol::PeerKind) -> Vec<u8> {
    let hello = Hello {
        version: protocol::VERSION,
        proc_: me.clone(),
        pid: std::process::id() as i32,
        uid: crate::sys::euid(),
        gid: crate::sys::egid(),
        kind,
    };
    protocol::encode(&hello)
}

/// What a server's Welcome says: the server's id, ours, and the job data.
pub type Welcomed = (ProcId, ProcId, Vec<JobData>);

/// Read the server's answer to our Hello (the other sans-I/O half of the handshake).
///
/// # Errors
/// The server's refusal status, `PMIX_ERR_INVALID_CRED` if it welcomed somebody else,
/// or the decoding error of a malformed answer.
pub fn welcome(body: &[u8], me: &ProcId, kind: protocol::PeerKind) -> Result<Welcomed> {
    match protocol::decode::<Welcome>(body)? {
        Welcome::Accepted { server, you, jobs } => {
            if kind != protocol::PeerKind::ToolAssign && &you != me {
                return Err(Error::new(
                    sys::PMIX_ERR_INVALID_CRED,
                    format!("the server welcomed {} but we are {}", you, me),
                ));
            }
            Ok((server, you, jobs))
        }
        Welcome::Refused { status, reason } => Err(Error::new(
            status,
            format!("the PMIx server refused us: {}", reason),
        )),
    }
}

/// What the socket handshake gave: the stream, the Welcome, the decoder holding whatever
/// the server sent after its Welcome (an event can follow it at once; the connection's
/// reader continues from there), and the descriptors that came with the Welcome (its
/// job-data segments).
type SocketWelcome = (
    std::os::unix::net::UnixStream,
    Welcomed,
    FrameDecoder,
    Vec<std::os::fd::OwnedFd>,
    Option<std::os::fd::OwnedFd>,
);

/// Connect and exchange Hello/Welcome on the calling thread, before the connection is
/// handed to the reactor (the Welcome's descriptors come with `SCM_RIGHTS`).
fn handshake(me: &ProcId, path: &str, kind: protocol::PeerKind) -> Result<SocketWelcome> {
    let unreach = |e: std::io::Error| {
        Error::new(
            sys::PMIX_ERR_UNREACH,
            format!("cannot reach the PMIx server at {}: {}", path, e),
        )
    };
    let mut s = std::os::unix::net::UnixStream::connect(path).map_err(unreach)?;
    s.set_read_timeout(Some(HANDSHAKE_TIMEOUT))
        .map_err(unreach)?;
    let mut frame = Vec::new();
    protocol::encode_frame_into(&hello_frame(me, kind), &mut frame);
    s.write_all(&frame).map_err(unreach)?;
    let mut dec = FrameDecoder::new();
    let mut buf = vec![0u8; 16 * 1024];
    let mut fds = Vec::new();
    let body = loop {
        if let Some(f) = dec.next_frame()? {
            break f;
        }
        let n = crate::sys::recv_with_fds(&s, &mut buf, &mut fds).map_err(unreach)?;
        if n == 0 {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                format!(
                    "the PMIx server at {} closed the connection during the handshake",
                    path
                ),
            ));
        }
        dec.push(buf.get(..n).unwrap_or_default());
    };
    // Name the server's socket in the refusal: "the PMIx server at <path> refused us: …".
    let w = welcome(&body, me, kind).map_err(|e| {
        let context = match e.context.strip_prefix("the PMIx server ") {
            Some(rest) => format!("the PMIx server at {} {}", path, rest),
            None => format!("the PMIx server at {}: {}", path, e.context),
        };
        Error::new(e.status, context)
    })?;
    s.set_read_timeout(None).map_err(unreach)?;
    // The fence area, if any, is the last descriptor (after the job-data segments).
    let mut fds = fds;
    let area = match protocol::welcome_fence_area(&body) {
        Some(i) if i as usize + 1 == fds.len() => fds.pop(),
        _ => None,
    };
    Ok((s, w, dec, fds, area))
}

/// The owner of a client's connection on the progress thread: frames go to the engine,
/// the end of the connection fails what waits (a client already dropped closes it).
pub(super) fn conn_owner(inner: &Arc<Inner>) -> reactor::ConnOwner {
    let weak: Weak<Inner> = Arc::downgrade(inner);
    Arc::new(move |ctx, id, ev| match weak.upgrade() {
        Some(i) => match ev {
            ConnEvent::Closed(why) => i.lost(&why),
            ConnEvent::Frame(body) => i.on_frame(&body, || ctx.close(id)),
        },
        None => ctx.close(id),
    })
}

/// What a tool knows about its own namespace: a job of one on this node, as for a
/// singleton but without `PMIX_SINGLETON`.
pub(super) fn tool_job(me: &ProcId, host: &str) -> JobData {
    let mut jd = singleton_job(me, host);
    jd.job.retain(|i| i.key.as_str() != keys::SINGLETON);
    jd
}

pub(super) fn singleton_job(me: &ProcId, host: &str) -> JobData {
    let mut jd = JobData {
        nspace: me.nspace.clone(),
        ..Default::default()
    };
    let mut add = |k: &str, v: Value| {
        if let Ok(i) = Info::new(k, v) {
            jd.job.push(i);
        }
    };
    add(keys::JOB_SIZE, Value::Uint32(1));
    add(keys::LOCAL_SIZE, Value::Uint32(1));
    add(keys::NUM_NODES, Value::Uint32(1));
    add(keys::LOCAL_PEERS, Value::string("0"));
    add(keys::NODE_LIST, Value::string(host));
    add(keys::SINGLETON, Value::Bool(true));
    let mut p = Vec::new();
    for (k, v) in [
        (keys::LOCAL_RANK, Value::Uint16(0)),
        (keys::NODE_RANK, Value::Uint16(0)),
        (keys::HOSTNAME, Value::string(host)),
        (keys::NODEID, Value::Uint32(0)),
        (keys::APPNUM, Value::Uint32(0)),
    ] {
        if let Ok(i) = Info::new(k, v) {
            p.push(i);
        }
    }
    jd.procs.extend_list(0, p);
    jd
}

impl Client {
    pub(super) fn connect_with(cfg: ClientConfig, handle: Handle) -> Result<Client> {
        let hostname = params::get(params::PMIX_HOSTNAME).unwrap_or_else(crate::sys::hostname);
        let Some((me, path)) = cfg.server else {
            let me = ProcId::new(
                Nspace::new(format!("singleton.{}.{}", hostname, std::process::id()))?,
                0,
            );
            let mut data = Data::default();
            data.jobs
                .insert(me.nspace.clone(), singleton_job(&me, &hostname));
            log::debug!("client: no server in the environment; singleton {}", me);
            return Ok(Self::local(me, hostname, handle, data));
        };
        let path = match path {
            ServerAddr::Unix(p) => p,
            ServerAddr::V41 {
                server,
                addr,
                release,
            } => {
                let to = super::v41::Server {
                    id: server,
                    addr,
                    release,
                };
                return super::v41::connect(me, to, cfg.kind, hostname, handle);
            }
        };
        let (stream, welcomed, rest, fds, area) = handshake(&me, &path, cfg.kind)?;
        let (inner, unmapped) = Inner::welcomed(welcomed, &fds, cfg.kind, hostname, handle.clone());
        drop(fds);
        if let Some(fd) = area {
            inner.attach_fence_area(&fd);
        }
        let owner = conn_owner(&inner);
        // The progress thread takes the connection over when it next runs; Init does not
        // wait for it (one thread wakeup less on the way to the first operation).
        let (_, conn) = handle.add_conn_direct(stream, owner, rest)?;
        let _ = inner.link.set(Arc::new(SocketLink(conn)));
        log::debug!("client {} connected", inner.me);
        Ok(Self::ready(inner, unmapped))
    }

    /// A client over `link`, given the server's answer to our [`hello_frame`] (sans-I/O:
    /// the caller moves the frames, handing the server's to [`Client::receive`]). Job data
    /// the Welcome names in shared segments cannot be mapped without their descriptors
    /// and is asked for inline (which waits for the answer: call it from a thread other
    /// than the one moving the frames, or send no segments).
    ///
    /// # Errors
    /// As [`welcome`]; `PMIX_ERR_OUT_OF_RESOURCE` if the progress thread cannot start.
    pub fn over_link(
        me: &ProcId,
        kind: protocol::PeerKind,
        welcome_body: &[u8],
        link: Arc<dyn Link>,
    ) -> Result<Client> {
        let welcomed = welcome(welcome_body, me, kind)?;
        let handle = reactor::acquire()?;
        let hostname = params::get(params::PMIX_HOSTNAME).unwrap_or_else(crate::sys::hostname);
        let (inner, unmapped) = Inner::welcomed(welcomed, &[], kind, hostname, handle);
        let _ = inner.link.set(link);
        Ok(Self::ready(inner, unmapped))
    }

    /// A connected client, once the job data it could not map is fetched.
    pub(super) fn ready(inner: Arc<Inner>, unmapped: Vec<Nspace>) -> Client {
        let client = Client { inner };
        for ns in unmapped {
            if let Err(e) = client.fetch_job_inline(ns.clone()) {
                // Gets of other processes' keys still reach the server; our own
                // per-process keys are missing until a refresh succeeds.
                log::warn!("client {}: no job data for {}: {}", client.inner.me, ns, e);
            }
        }
        client
    }

    /// A frame the server sent (sans-I/O entry; the reactor's connection calls the same
    /// on the progress thread). Replies run their requests' callbacks here.
    pub fn receive(&self, body: &[u8]) {
        self.inner.on_frame(body, || {});
    }

    /// The link to the server is gone (sans-I/O entry): requests waiting fail with
    /// `PMIX_ERR_LOST_CONNECTION` and the handlers hear of it.
    pub fn link_lost(&self, why: &str) {
        self.inner.lost(why);
    }

    /// Replace a namespace's job data with the server's inline copy (blocking; used when
    /// the segment a Welcome named cannot be mapped here).
    ///
    /// # Errors
    /// The request's failure (`PMIX_ERR_UNREACH`, `PMIX_ERR_TIMEOUT`, the server's status).
    pub(super) fn fetch_job_inline(&self, nspace: Nspace) -> Result<()> {
        let inner = self.inner.clone();
        reactor::wait("PMIx_Init", Some(HANDSHAKE_TIMEOUT), |done| {
            self.request(
                Req::JobData { nspace },
                Box::new(move |status, data| {
                    done.complete(match (status, data) {
                        (sys::PMIX_SUCCESS, ReplyData::Job(jd)) => {
                            inner.write().jobs.insert(jd.nspace.clone(), *jd);
                            Ok(())
                        }
                        (st, _) => Err(Error::new(
                            st,
                            "the server sent no inline copy of the job data",
                        )),
                    })
                }),
            )
        })
    }

    /// A tool that is not connected to a server (`PMIX_TOOL_DO_NOT_CONNECT`, a failed
    /// optional connection, or after `PMIx_tool_disconnect`).
    ///
    /// # Errors
    /// `PMIX_ERR_OUT_OF_RESOURCE` if the progress thread cannot start.
    pub fn tool_local(me: ProcId) -> Result<Client> {
        let handle = reactor::acquire()?;
        let hostname = params::get(params::PMIX_HOSTNAME).unwrap_or_else(crate::sys::hostname);
        let mut data = Data::default();
        data.jobs
            .insert(me.nspace.clone(), tool_job(&me, &hostname));
        Ok(Self::local(me, hostname, handle, data))
    }
}

impl Inner {
    /// The engine of a client the server welcomed (not yet linked). Per-process tables
    /// the server published on this node are mapped from `fds`, not copied; the
    /// namespaces whose tables cannot be mapped are returned, to be asked for inline once
    /// connected. The descriptors can be closed once this returns (the mappings stay).
    pub(super) fn welcomed(
        (server, me, jobs): Welcomed,
        fds: &[std::os::fd::OwnedFd],
        kind: protocol::PeerKind,
        hostname: String,
        handle: Handle,
    ) -> (Arc<Inner>, Vec<Nspace>) {
        let mut data = Data::default();
        let mut unmapped = Vec::new();
        for mut j in jobs {
            if let Err(e) = j.procs.attach(fds) {
                log::warn!("client {}: {}; asking for an inline copy", me, e);
                unmapped.push(j.nspace.clone());
            }
            data.jobs.insert(j.nspace.clone(), j);
        }
        if kind != protocol::PeerKind::Client && !data.jobs.contains_key(&me.nspace) {
            data.jobs
                .insert(me.nspace.clone(), tool_job(&me, &hostname));
        }
        let inner = Arc::new(Inner::new(me, Some(server), hostname, handle, data));
        inner.connected.store(true, Ordering::SeqCst);
        crate::dump::register(crate::dump::source_of(&inner, Inner::dump));
        (inner, unmapped)
    }
}
