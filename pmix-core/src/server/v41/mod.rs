//! The OpenPMIx listener: OpenPMIx 4.2.x and 5.x clients (Debian's libpmix, say) beside
//! our own, in the same namespaces, fences and key-value store.
//!
//! A loopback TCP socket (all interfaces only when the host passed
//! `PMIX_SERVER_REMOTE_CONNECTIONS`), on by default, off with `PMIX_RS_V41=0`. The
//! progress thread accepts on it like on our Unix listener (no thread of its own); for
//! each connection it asks the kernel which uid owns the peer's socket
//! ([`crate::sys::tcp_peer_uid`]) and serves it like any connection of ours except for
//! its framing: [`translate`] turns the
//! v41 connect message and requests into our Hello and requests, and our replies and
//! events into v41 ones. The same handshake deadline, frame limits and back-pressure
//! apply.

pub mod cred;
pub mod ds21;
pub mod translate;

use super::{Shared, CLIENT_OUTPUT_PAUSE, HANDSHAKE_MAX_FRAME, HANDSHAKE_TIMEOUT};
use crate::codec::v41::wire::handshake::{encode_server_reply, ServerReply};
use crate::error::{Error, Result};
use crate::reactor::{self, ConnEvent, ConnId, Ctx, Handle};
use crate::value::ProcId;
use pmix_sys as sys;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Weak};
use translate::{lock, Translation, V41Framing};

/// `PMIX_RS_V41`: `0` turns the OpenPMIx listener off.
pub const ENV: &str = crate::params::PMIX_RS_V41;

/// Whether the OpenPMIx listener is wanted (`PMIX_RS_V41` is not `0`/`no`/`off`).
pub fn enabled() -> bool {
    match crate::params::get(ENV) {
        Some(v) => !matches!(v.trim(), "0" | "no" | "off" | "false"),
        None => true,
    }
}

/// A running OpenPMIx listener.
pub struct Listener {
    /// Its id in the reactor's listener table.
    id: usize,
    addr: SocketAddr,
    handle: Handle,
}

impl Listener {
    /// The address clients connect to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URI OpenPMIx clients read: `<nspace>.<rank>;tcp4://<ip>:<port>`.
    pub fn uri(&self, server: &ProcId) -> String {
        let ip = match self.addr.ip() {
            std::net::IpAddr::V4(v4) if v4.is_unspecified() => std::net::Ipv4Addr::LOCALHOST,
            std::net::IpAddr::V4(v4) => v4,
            std::net::IpAddr::V6(_) => std::net::Ipv4Addr::LOCALHOST,
        };
        format!(
            "{}.{};tcp4://{}:{}",
            server.nspace,
            server.rank,
            ip,
            self.addr.port()
        )
    }

    /// Stop accepting (connections already accepted stay). Not waited for: the
    /// progress thread drops the socket when it next runs.
    pub fn stop(&self) {
        let id = self.id;
        let _ = self.handle.post(move |ctx| ctx.remove_listener(id));
    }
}

/// Bind the listener and hand it to the progress thread.
///
/// # Errors
/// `PMIX_ERR_COMM_FAILURE` if the socket cannot be bound or registered.
pub(super) fn start(sh: &Arc<Shared>, remote: bool) -> Result<Listener> {
    let comm = |what: &str, e: std::io::Error| {
        Error::new(sys::PMIX_ERR_COMM_FAILURE, format!("{}: {}", what, e))
    };
    let bind = if remote { "0.0.0.0:0" } else { "127.0.0.1:0" };
    let sock = TcpListener::bind(bind).map_err(|e| comm("bind the v41 listener", e))?;
    let addr = sock.local_addr().map_err(|e| comm("v41 listener", e))?;
    sock.set_nonblocking(true)
        .map_err(|e| comm("nonblocking v41 listener", e))?;
    let weak: Weak<Shared> = Arc::downgrade(sh);
    let on_accept: reactor::TcpAcceptFn = Arc::new(move |ctx, s, peer| {
        let Some(sh) = weak.upgrade() else { return };
        if let Some((stream, uid)) = vet(s, peer, remote) {
            sh.on_accept_v41(ctx, stream, uid, peer);
        }
    });
    let handle = sh.handle.clone();
    let id = handle.add_tcp_listener(mio::net::TcpListener::from_std(sock), on_accept)?;
    log::debug!("server: OpenPMIx (v41) listener on {}", addr);
    Ok(Listener { id, addr, handle })
}

/// The kernel's word on who owns the peer's socket; `None` (logged) when it has none
/// and remote peers were not asked for, or the socket cannot be served.
fn vet(
    s: mio::net::TcpStream,
    peer: SocketAddr,
    remote: bool,
) -> Option<(mio::net::UnixStream, u32)> {
    let ours = s.local_addr().ok()?;
    let uid = match crate::sys::tcp_peer_uid(&peer, &ours) {
        Ok(Some(uid)) => uid,
        Ok(None) if remote => {
            log::info!(
                "server: v41 peer {} is not on this host; its claimed uid cannot be checked",
                peer
            );
            crate::sys::euid()
        }
        Ok(None) => {
            log::warn!(
                "server: refusing v41 peer {}: the kernel knows no local socket of it",
                peer
            );
            return None;
        }
        Err(e) => {
            log::warn!(
                "server: refusing v41 peer {}: cannot read the socket table: {}",
                peer,
                e
            );
            return None;
        }
    };
    let _ = s.set_nodelay(true);
    // Non-blocking already (the reactor's accept made it so).
    Some((
        crate::reactor::stream_of(std::os::fd::OwnedFd::from(s)),
        uid,
    ))
}

impl Shared {
    /// A v41 connection accepted (its socket owned by `uid`, says the kernel).
    fn on_accept_v41(
        self: &Arc<Self>,
        ctx: &mut Ctx,
        stream: mio::net::UnixStream,
        uid: u32,
        peer: SocketAddr,
    ) {
        let t = Translation::new(uid, self.ds21.clone());
        let framing = Box::new(V41Framing::new(t.clone(), HANDSHAKE_MAX_FRAME));
        let me = self.clone();
        let owner: reactor::ConnOwner =
            Arc::new(move |ctx, id, ev| me.on_v41_conn(ctx, id, ev, &t));
        let opts = reactor::ConnOpts {
            max_frame: HANDSHAKE_MAX_FRAME,
            pause_above: Some(CLIENT_OUTPUT_PAUSE),
        };
        // Registered before its frames are handled (dispatch runs later).
        let id = match ctx.add_conn_framed(stream, owner, opts, framing) {
            Ok(id) => id,
            Err(e) => return log::warn!("server: cannot serve v41 peer {}: {}", peer, e),
        };
        log::debug!("server: v41 connection {} from {} (uid {})", id, peer, uid);
        {
            let mut s = self.lock();
            s.connected(id, uid);
            s.status_only_fence(id);
            s.set_peer_cred(
                id,
                crate::sys::PeerCred {
                    pid: 0,
                    uid,
                    gid: crate::sys::egid(),
                },
            );
        }
        let me = self.clone();
        ctx.add_timer(
            HANDSHAKE_TIMEOUT,
            Box::new(move |ctx| me.handshake_deadline(ctx, id, 0)),
        );
    }

    /// A v41 connection's event: the engine takes our-protocol frames as from any
    /// client; what the translation answered itself goes out after.
    fn on_v41_conn(
        self: &Arc<Self>,
        ctx: &mut Ctx,
        id: ConnId,
        ev: ConnEvent,
        t: &translate::Shared,
    ) {
        match ev {
            ConnEvent::Frame(body) if body.is_empty() => {
                let refused = lock(t).take_refusal();
                if let Some(status) = refused {
                    return self.refuse_v41(ctx, id, status);
                }
                let munge = lock(t).take_munge();
                if let Some(cred) = munge {
                    return self.check_munge(ctx, id, t, cred);
                }
                let decoded = lock(t).take_decoded();
                if let Some((req, len)) = decoded {
                    let mut out = Vec::new();
                    let r = self.lock().request_decoded(id, req, len, &mut out);
                    self.after_request(ctx, id, r, out);
                }
            }
            ev => self.on_conn(ctx, id, ev),
        }
        let local = lock(t).take_local();
        for body in local {
            ctx.send(id, &body);
        }
    }

    /// Answer a refused connect message with `status` and close the connection.
    fn refuse_v41(self: &Arc<Self>, ctx: &mut Ctx, id: ConnId, status: i32) {
        let r = ServerReply::Client {
            status,
            pindex: None,
        };
        ctx.send_raw(id, &encode_server_reply(&r));
        ctx.close(id);
        self.step(ctx, |s, out| s.closed(id, out));
    }

    /// Have munged check a connect message's credential off the progress thread; its
    /// verdict, or the deadline's if munged does not answer in time, decides the connect.
    fn check_munge(self: &Arc<Self>, ctx: &mut Ctx, id: ConnId, t: &translate::Shared, c: Vec<u8>) {
        let (me, tt, handle) = (self.clone(), t.clone(), self.handle.clone());
        let abandoned = cred::check_later(
            c,
            Box::new(move |verdict| {
                let posted = handle.post(move |ctx| me.munge_verdict(ctx, id, &tt, verdict));
                if posted.is_err() {
                    log::debug!("server: munge verdict for connection {} after shutdown", id);
                }
            }),
        );
        let (me, tt, wait) = (self.clone(), t.clone(), cred::deadline());
        ctx.add_timer(
            wait,
            Box::new(move |ctx| {
                abandoned.store(true, std::sync::atomic::Ordering::Release);
                if !lock(&tt).checking() {
                    return;
                }
                let e = Error::new(
                    sys::PMIX_ERR_TIMEOUT,
                    format!(
                        "munged did not check connection {}'s credential within {:.1} s",
                        id,
                        wait.as_secs_f64()
                    ),
                );
                me.munge_verdict(ctx, id, &tt, Err(e));
            }),
        );
    }

    /// Munged's verdict (or the deadline's) on connection `id`'s connect message, on the
    /// progress thread: the engine takes the Hello, or the peer gets the refusal.
    fn munge_verdict(
        self: &Arc<Self>,
        ctx: &mut Ctx,
        id: ConnId,
        t: &translate::Shared,
        verdict: Result<(u32, u32)>,
    ) {
        if !ctx.is_open(id) {
            return;
        }
        let Some(r) = lock(t).munge_verdict(verdict) else {
            return log::debug!("server: a late munge verdict for connection {}", id);
        };
        match r {
            Ok(hello) => {
                self.on_conn(ctx, id, ConnEvent::Frame(hello));
                // Whatever the peer sent meanwhile waited in the framing.
                ctx.poll_input(id);
            }
            Err(e) => self.refuse_v41(ctx, id, e.status),
        }
    }
}
