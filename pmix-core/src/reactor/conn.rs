//! One connection of the reactor and the progress thread's state ([`Ctx`]): framing,
//! reading, writing, back-pressure and the dispatch of frames to their owners.

use super::{
    io_err, max_queued, panic_text, run_guarded, AcceptFn, Command, ConnEvent, ConnId, ConnOwner,
    DirectConn, Framing, Later, TcpAcceptFn, TimerId, READ_CHUNK,
};
use crate::error::Result;
use crate::fasthash::FastMap;
use crate::protocol::{self, FrameDecoder};
use mio::net::{UnixListener, UnixStream};
use mio::{Interest, Token};
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read, Write};
use std::os::fd::BorrowedFd;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Connection and timer tables, looked up on every read, send and timer: the fast hasher.
type HashMap<K, V> = FastMap<K, V>;

pub(super) struct Conn {
    stream: UnixStream,
    owner: ConnOwner,
    /// The connection's framing (the seam for another wire dialect: [`Framing`]).
    dec: Box<dyn Framing>,
    out: Vec<u8>,
    out_pos: usize,
    /// Output queued behind `out` once a shared tail is ([`Ctx::send_shared`]).
    later: Later,
    want_write: bool,
    /// Input back-pressure ([`ConnOpts::pause_above`]); `None` for unthrottled connections.
    pause_above: Option<usize>,
    /// A throttled connection has one frame waiting in `Ctx::pending`.
    in_flight: bool,
    /// A throttled connection is not read while its output exceeds `pause_above`.
    pub(super) paused: bool,
    /// A connection callers may write and read themselves ([`Handle::add_conn_direct`]);
    /// its poller registration is managed through this, never through `stream`.
    pub(super) direct: Option<Arc<DirectConn>>,
    /// Frames of a direct connection taken from the stream and not yet handled.
    in_hand: usize,
    /// Whether a round of work for this peer is followed by the progress thread's
    /// yields ([`Framing::worth_yielding`]).
    pub(super) yields: bool,
}

impl Conn {
    fn queued(&self) -> usize {
        self.out.len().saturating_sub(self.out_pos) + self.later.len()
    }
    fn over_output_limit(&self) -> bool {
        self.pause_above.is_some_and(|l| self.queued() > l)
    }
}

/// How a connection is served (see [`Ctx::add_conn_with`]).
#[derive(Debug, Clone, Copy)]
pub struct ConnOpts {
    /// Largest frame accepted (at most [`protocol::MAX_FRAME`]); a larger length prefix
    /// closes the connection before anything is allocated for it.
    pub max_frame: usize,
    /// Back-pressure: while more than this many bytes wait to be written to the peer,
    /// its input is neither read nor handed to the owner (frames are handed over one at
    /// a time, so one request's answers count before the next is read). A peer that
    /// sends requests and does not read the answers then stalls itself instead of
    /// growing our memory. `None`: every frame is handed over as it arrives.
    pub pause_above: Option<usize>,
}

impl Default for ConnOpts {
    fn default() -> Self {
        ConnOpts {
            max_frame: protocol::MAX_FRAME,
            pause_above: None,
        }
    }
}

/// A listening socket of the reactor and what runs for each connection it accepts: a
/// Unix one (our clients) or a TCP one (OpenPMIx peers, whose handler is also given the
/// peer's address).
pub(super) enum Listener {
    Unix(UnixListener, AcceptFn),
    Tcp(mio::net::TcpListener, TcpAcceptFn),
}

impl Listener {
    fn source(&mut self) -> &mut dyn mio::event::Source {
        match self {
            Listener::Unix(s, _) => s,
            Listener::Tcp(s, _) => s,
        }
    }

    /// Accept one connection: it and its handler, ready to run.
    fn accept(&self) -> io::Result<Command> {
        Ok(match self {
            Listener::Unix(s, f) => {
                let (stream, _) = s.accept()?;
                let f = f.clone();
                Box::new(move |ctx: &mut Ctx| f(ctx, stream))
            }
            Listener::Tcp(s, f) => {
                let (stream, peer) = s.accept()?;
                let f = f.clone();
                Box::new(move |ctx: &mut Ctx| f(ctx, stream, peer))
            }
        })
    }
}

/// The progress thread's state, handed to every command, timer and connection owner.
pub struct Ctx {
    pub(super) registry: Arc<mio::Registry>,
    pub(super) conns: HashMap<usize, Conn>,
    pub(super) listeners: HashMap<usize, Listener>,
    pub(super) timers: BTreeMap<(Instant, TimerId), Command>,
    pub(super) timer_index: HashMap<TimerId, Instant>,
    /// Shared with every [`Handle`]: other threads take ids for sockets they register
    /// themselves ([`Handle::add_conn`], [`Handle::add_listener`]).
    pub(super) next_token: Arc<AtomicUsize>,
    pub(super) next_timer: TimerId,
    pub(super) pending: VecDeque<(ConnId, ConnOwner, ConnEvent)>,
    pub(super) deferred: VecDeque<Command>,
    pub(super) read_buf: Vec<u8>,
    pub(super) stopping: bool,
}

impl Ctx {
    pub(super) fn new(registry: Arc<mio::Registry>, next_token: Arc<AtomicUsize>) -> Ctx {
        Ctx {
            registry,
            conns: HashMap::default(),
            listeners: HashMap::default(),
            timers: BTreeMap::new(),
            timer_index: HashMap::default(),
            next_token,
            next_timer: 0,
            pending: VecDeque::new(),
            deferred: VecDeque::new(),
            read_buf: Vec::new(),
            stopping: false,
        }
    }

    pub(super) fn token(&mut self) -> Token {
        Token(self.next_token.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Start serving `stream` as a framed connection owned by `owner`.
    ///
    /// # Errors
    /// The registration error from mio.
    pub fn add_conn(&mut self, stream: UnixStream, owner: ConnOwner) -> Result<ConnId> {
        self.add_conn_with(stream, owner, ConnOpts::default())
    }

    /// [`Ctx::add_conn`] with a frame limit and back-pressure ([`ConnOpts`]).
    ///
    /// # Errors
    /// The registration error from mio.
    pub fn add_conn_with(
        &mut self,
        mut stream: UnixStream,
        owner: ConnOwner,
        opts: ConnOpts,
    ) -> Result<ConnId> {
        let tok = self.token();
        self.registry
            .register(&mut stream, tok, Interest::READABLE)
            .map_err(|e| io_err("register connection", e))?;
        let dec = Box::new(FrameDecoder::with_limit(opts.max_frame));
        self.insert_conn(tok.0, stream, owner, dec, opts.pause_above, None);
        Ok(tok.0)
    }

    /// [`Ctx::add_conn_with`] for a connection in another framing (a second wire
    /// dialect): `framing` cuts its input into frames and frames what is sent on it;
    /// `opts.max_frame` is applied to it.
    ///
    /// # Errors
    /// The registration error from mio.
    pub fn add_conn_framed(
        &mut self,
        mut stream: UnixStream,
        owner: ConnOwner,
        opts: ConnOpts,
        mut framing: Box<dyn Framing>,
    ) -> Result<ConnId> {
        let tok = self.token();
        self.registry
            .register(&mut stream, tok, Interest::READABLE)
            .map_err(|e| io_err("register connection", e))?;
        framing.set_limit(opts.max_frame);
        self.insert_conn(tok.0, stream, owner, framing, opts.pause_above, None);
        Ok(tok.0)
    }

    /// Take over a connection another thread registered under `id` (see
    /// [`Handle::add_conn`]); `dec` holds whatever that thread read past its last frame.
    pub(super) fn insert_conn(
        &mut self,
        id: ConnId,
        stream: UnixStream,
        owner: ConnOwner,
        dec: Box<dyn Framing>,
        pause_above: Option<usize>,
        direct: Option<Arc<DirectConn>>,
    ) {
        let yields = dec.worth_yielding();
        self.conns.insert(
            id,
            Conn {
                stream,
                owner,
                dec,
                out: Vec::new(),
                out_pos: 0,
                later: Later::default(),
                want_write: false,
                pause_above,
                in_flight: false,
                paused: false,
                direct,
                in_hand: 0,
                yields,
            },
        );
        // Frames the other thread read already, then data that may be waiting (a frame
        // sent before registration, or an event that arrived before the connection was
        // in the table): read once.
        if !self.extract(id, false) {
            return;
        }
        // Perhaps with the end of the stream: read until the socket is empty.
        self.on_readable(id, true);
    }

    /// [`Ctx::insert_conn`] for a direct connection ([`Handle::add_conn_direct`]).
    pub(super) fn insert_direct(
        &mut self,
        id: ConnId,
        stream: UnixStream,
        owner: ConnOwner,
        dec: FrameDecoder,
        d: Arc<DirectConn>,
    ) {
        self.insert_conn(id, stream, owner, Box::new(dec), None, Some(d));
    }

    /// Whether an event of `token` is followed by the progress thread's yields (any but
    /// a connection whose framing says they are not worth it, [`Framing::worth_yielding`]).
    pub(super) fn yields_after(&self, token: usize) -> bool {
        self.conns.get(&token).is_none_or(|c| c.yields)
    }

    /// Read and hand over (to `pending`) what `id` has sent but was not read yet.
    pub fn poll_input(&mut self, id: ConnId) {
        if self.conns.contains_key(&id) {
            self.on_readable(id, true);
        }
    }

    /// Change the largest frame accepted on `id` from now on (see [`ConnOpts::max_frame`]).
    pub fn set_max_frame(&mut self, id: ConnId, max_frame: usize) {
        if let Some(c) = self.conns.get_mut(&id) {
            c.dec.set_limit(max_frame);
        }
    }

    /// True while `id` is an open connection.
    pub fn is_open(&self, id: ConnId) -> bool {
        self.conns.contains_key(&id)
    }

    /// Queue one frame (`body` gets its length prefix here) and write what the socket
    /// takes now. Returns false if the connection is gone.
    ///
    /// A peer that stops reading cannot make us queue without bound: once more than
    /// [`max_queued`] bytes wait for it, the connection is closed with a log line (its
    /// owner sees `Closed`, as for any lost peer).
    pub fn send(&mut self, id: ConnId, body: &[u8]) -> bool {
        self.claim_direct_output(id);
        let Some(c) = self.conns.get_mut(&id) else {
            return false;
        };
        if c.later.is_empty() {
            c.dec.encode_into(body, &mut c.out);
        } else {
            c.later.push_own(|b| c.dec.encode_into(body, b));
        }
        self.flush(id);
        self.limit_queue(id)
    }

    /// [`Ctx::send`] of the frame body `head` followed by `tail`, a tail other sends
    /// share (the reply every participant of a collective gets): the connection holds a
    /// reference to it, not a copy, until the peer has read it. A direct connection, and
    /// a framing that cannot frame a body in pieces, get one copied body instead.
    pub fn send_shared(&mut self, id: ConnId, head: &[u8], tail: &Arc<[u8]>) -> bool {
        let Some(c) = self.conns.get_mut(&id) else {
            return false;
        };
        let mut header = Vec::new();
        if c.direct.is_some()
            || !c
                .dec
                .encode_header_into(head.len() + tail.len(), &mut header)
        {
            let body = [head, &tail[..]].concat();
            return self.send(id, &body);
        }
        header.extend_from_slice(head);
        if c.later.is_empty() {
            c.out.extend_from_slice(&header);
        } else {
            c.later.push_own(|b| b.extend_from_slice(&header));
        }
        c.later.push_shared(tail.clone());
        self.flush(id);
        self.limit_queue(id)
    }

    /// Close `id` if more than [`max_queued`] bytes wait for its peer; whether it is open.
    fn limit_queue(&mut self, id: ConnId) -> bool {
        let queued = self.conns.get(&id).map(|c| c.queued()).unwrap_or(0);
        let cap = max_queued();
        if queued > cap {
            log::warn!(
                "connection {}: the peer is not reading ({} bytes queued, limit {}); closing it",
                id,
                queued,
                cap
            );
            self.drop_conn(id, format!("peer not reading: {} bytes queued", queued));
        }
        self.conns.contains_key(&id)
    }

    /// [`Ctx::send`] with descriptors attached to the frame's first bytes (`SCM_RIGHTS`).
    /// They go only when nothing is queued before the frame (the frame is then written
    /// at once, as far as the socket takes it); otherwise, or when the socket refuses
    /// them, the frame is queued alone, with a log line. Returns false if the connection
    /// is gone.
    pub fn send_with_fds(&mut self, id: ConnId, body: &[u8], fds: &[BorrowedFd<'_>]) -> bool {
        self.claim_direct_output(id);
        let Some(c) = self.conns.get_mut(&id) else {
            return false;
        };
        if fds.is_empty() || c.out_pos < c.out.len() || !c.later.is_empty() {
            if !fds.is_empty() {
                log::debug!("connection {}: output queued, descriptors not passed", id);
            }
            return self.send(id, body);
        }
        let mut frame = Vec::with_capacity(body.len() + 4);
        c.dec.encode_into(body, &mut frame);
        let sent = match crate::sys::send_with_fds(&c.stream, &frame, fds) {
            Ok(n) => n,
            Err(e) => {
                log::debug!("connection {}: descriptors not passed: {}", id, e);
                0
            }
        };
        c.out.clear();
        c.out_pos = 0;
        c.out
            .extend_from_slice(frame.get(sent..).unwrap_or_default());
        self.flush(id);
        self.conns.contains_key(&id)
    }

    /// Queue bytes that are already framed (the rest of a frame another thread began to
    /// write on its own copy of the socket) and write what the socket takes now.
    /// Returns false if the connection is gone.
    pub fn send_raw(&mut self, id: ConnId, bytes: &[u8]) -> bool {
        self.claim_direct_output(id);
        let Some(c) = self.conns.get_mut(&id) else {
            return false;
        };
        if c.later.is_empty() {
            c.out.extend_from_slice(bytes);
        } else {
            c.later.push_own(|b| b.extend_from_slice(bytes));
        }
        self.flush(id);
        self.conns.contains_key(&id)
    }

    /// On a direct connection, take over what callers queued (it goes first) and hold the
    /// output, so that no caller writes while the progress thread does.
    pub(super) fn claim_direct_output(&mut self, id: ConnId) {
        if let Some(c) = self.conns.get_mut(&id) {
            if let Some(d) = &c.direct {
                if c.out_pos >= c.out.len() {
                    c.out.clear();
                    c.out_pos = 0;
                }
                d.claim_output(&mut c.out);
            }
        }
    }

    /// True when nothing queued on `id` is left to write (or the connection is gone).
    pub fn flushed(&self, id: ConnId) -> bool {
        self.conns
            .get(&id)
            .is_none_or(|c| c.out_pos >= c.out.len() && c.later.is_empty())
    }

    /// Close a connection at the owner's request (its owner gets no `Closed` event).
    /// Bytes not yet written are attempted once more, then dropped.
    pub fn close(&mut self, id: ConnId) {
        if let Some(mut c) = self.conns.remove(&id) {
            if c.queued() > 0 {
                // Non-blocking: as much as the socket takes now.
                let _ = write_out(&mut c);
            }
            self.unregister(&mut c);
        }
    }

    /// Listen on `sock`; `on_accept` runs for every new connection.
    ///
    /// # Errors
    /// The registration error from mio.
    pub fn add_listener(&mut self, mut sock: UnixListener, on_accept: AcceptFn) -> Result<usize> {
        let tok = self.token();
        self.registry
            .register(&mut sock, tok, Interest::READABLE)
            .map_err(|e| io_err("register listener", e))?;
        self.listeners
            .insert(tok.0, Listener::Unix(sock, on_accept));
        Ok(tok.0)
    }

    /// Take over a listener another thread registered under `id` (see
    /// [`Handle::add_listener`]), accepting whoever connected before it was in the table.
    pub(super) fn insert_listener(&mut self, id: usize, l: Listener) {
        self.listeners.insert(id, l);
        self.on_accept(id);
    }

    /// Stop listening.
    pub fn remove_listener(&mut self, id: usize) {
        if let Some(mut l) = self.listeners.remove(&id) {
            let _ = self.registry.deregister(l.source());
        }
    }

    /// Run `f` on the progress thread after `after` has elapsed.
    pub fn add_timer(&mut self, after: Duration, f: Command) -> TimerId {
        self.next_timer += 1;
        let id = self.next_timer;
        let at = Instant::now() + after;
        self.timers.insert((at, id), f);
        self.timer_index.insert(id, at);
        id
    }

    /// Cancel a timer that has not fired yet (no effect otherwise).
    pub fn cancel_timer(&mut self, id: TimerId) {
        if let Some(at) = self.timer_index.remove(&id) {
            self.timers.remove(&(at, id));
        }
    }

    /// Run `f` on the progress thread once the current callback has returned (used to
    /// call user code outside of any engine state borrow).
    pub fn defer(&mut self, f: Command) {
        self.deferred.push_back(f);
    }

    pub(super) fn flush(&mut self, id: ConnId) {
        loop {
            let failed = match self.conns.get_mut(&id) {
                Some(c) => write_out(c),
                None => return,
            };
            if let Some(why) = failed {
                self.drop_conn(id, why);
                return;
            }
            let Some(c) = self.conns.get_mut(&id) else {
                return;
            };
            let want = !c.out.is_empty() || !c.later.is_empty();
            if let Some(d) = &c.direct {
                c.want_write = want;
                if d.output_written(want) {
                    return;
                }
                // Callers queued more while we wrote: it goes now.
                self.claim_direct_output(id);
                continue;
            }
            if want != c.want_write {
                c.want_write = want;
                let interest = if want {
                    Interest::READABLE | Interest::WRITABLE
                } else {
                    Interest::READABLE
                };
                let _ = self.registry.reregister(&mut c.stream, Token(id), interest);
            }
            return;
        }
    }

    /// Take a connection that is leaving the table out of the poller.
    fn unregister(&self, c: &mut Conn) {
        match &c.direct {
            Some(d) => d.retire(),
            None => {
                let _ = self.registry.deregister(&mut c.stream);
            }
        }
    }

    fn drop_conn(&mut self, id: ConnId, why: String) {
        if let Some(mut c) = self.conns.remove(&id) {
            self.unregister(&mut c);
            self.pending
                .push_back((id, c.owner, ConnEvent::Closed(why)));
        }
    }

    /// Read what `id` has for us. `until_empty`: read on until the socket says EAGAIN or
    /// EOF, even after a short read: the event also reported the peer's end of the stream
    /// (or an error), which may have come with its last data and raises no later event
    /// (F5, H1 in docs/ROBUSTNESS.md); or a paused connection resumes, whose events were
    /// not acted on while it was paused.
    pub(super) fn on_readable(&mut self, id: ConnId, until_empty: bool) {
        let direct = self.conns.get(&id).and_then(|c| c.direct.clone());
        if let Some(d) = &direct {
            // A caller reading the connection leaves it to us when it is done (and then
            // registers it with the poller again, which reports what arrived meanwhile);
            // otherwise no caller may take it over until we are done here.
            let Some(back) = d.begin_read() else {
                return;
            };
            if !back.is_empty() {
                if let Some(c) = self.conns.get_mut(&id) {
                    c.dec.push(&back);
                }
                if !self.extract(id, false) {
                    return;
                }
            }
        }
        // One read buffer for the thread's lifetime: zeroing 64 KiB on every wakeup was
        // most of the progress thread's work per message (docs/PERF.md).
        let mut buf = std::mem::take(&mut self.read_buf);
        if buf.len() < READ_CHUNK {
            buf = vec![0u8; READ_CHUNK];
        }
        self.read_into(id, &mut buf, until_empty);
        self.read_buf = buf;
        if let Some(c) = self.conns.get(&id) {
            if let Some(d) = &c.direct {
                d.settle(c.in_hand > 0 || c.dec.has_partial());
            }
        }
    }

    fn read_into(&mut self, id: ConnId, buf: &mut [u8], until_empty: bool) {
        loop {
            let Some(c) = self.conns.get_mut(&id) else {
                return;
            };
            if c.pause_above.is_some() {
                if c.over_output_limit() {
                    c.paused = true;
                }
                if c.paused {
                    if until_empty {
                        // The peer may be gone: a failed write drops the connection.
                        self.flush(id);
                    }
                    return;
                }
            }
            match c.stream.read(buf) {
                Ok(0) => {
                    let why = if c.dec.has_partial() {
                        "peer closed in the middle of a frame (truncated frame)"
                    } else {
                        "peer closed the connection"
                    };
                    // Whatever complete frames it sent before closing are still handed over.
                    if self.extract(id, true) {
                        self.drop_conn(id, why.to_string());
                    }
                    return;
                }
                Ok(n) => {
                    // A read that did not fill the buffer emptied the socket: stop here
                    // instead of paying one more read for EAGAIN (data that arrives later
                    // raises a new edge-triggered event). Not when the peer's end of the
                    // stream came with the same event: no later event would report it,
                    // and the connection would never be seen closed (a client that died
                    // right after writing part of a frame; docs/ROBUSTNESS.md, F5).
                    let drained = n < buf.len() && !until_empty;
                    c.dec.push(buf.get(..n).unwrap_or_default());
                    if !self.extract(id, false) || drained {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.drop_conn(id, format!("read failed: {}", e));
                    return;
                }
            }
        }
    }

    /// Move the complete frames of `id` from its decoder to `pending` (a throttled
    /// connection: one at a time, and none while paused, unless `all`). False when the
    /// connection is gone (a malformed frame closes it).
    fn extract(&mut self, id: ConnId, all: bool) -> bool {
        loop {
            let Some(c) = self.conns.get_mut(&id) else {
                return false;
            };
            if !all && c.pause_above.is_some() && (c.in_flight || c.paused) {
                return true;
            }
            match c.dec.next_frame() {
                Ok(Some(frame)) => {
                    c.in_flight = c.pause_above.is_some();
                    if c.direct.is_some() {
                        c.in_hand += 1;
                    }
                    self.pending
                        .push_back((id, c.owner.clone(), ConnEvent::Frame(frame)));
                }
                Ok(None) => return true,
                Err(e) => {
                    log::warn!("connection {}: malformed frame, closing: {}", id, e);
                    self.drop_conn(id, format!("malformed frame: {}", e));
                    return false;
                }
            }
        }
    }

    /// A throttled connection's frame was handled: hand over its next one (see
    /// [`Ctx::resume`]).
    fn frame_done(&mut self, id: ConnId) {
        if let Some(c) = self.conns.get_mut(&id) {
            c.in_flight = false;
            self.resume(id);
        }
    }

    /// Pause a throttled connection while its output is over the limit; otherwise hand
    /// over its next frame and, if it was paused, read what it sent meanwhile.
    pub(super) fn resume(&mut self, id: ConnId) {
        let Some(c) = self.conns.get_mut(&id) else {
            return;
        };
        if c.pause_above.is_none() {
            return;
        }
        if c.over_output_limit() {
            if !c.paused {
                log::debug!(
                    "connection {}: {} bytes wait for the peer; not reading it until they are written",
                    id,
                    c.queued()
                );
            }
            c.paused = true;
            return;
        }
        let resumed = std::mem::replace(&mut c.paused, false);
        if self.extract(id, false) && resumed {
            // Its readiness events were not acted on while paused: read what is there.
            self.on_readable(id, true);
        }
    }

    pub(super) fn on_accept(&mut self, id: usize) {
        loop {
            let Some(l) = self.listeners.get(&id) else {
                return;
            };
            match l.accept() {
                Ok(run) => {
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| run(self))) {
                        log::error!("accept handler panicked: {}", panic_text(&p));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    log::warn!("accept failed: {}", e);
                    return;
                }
            }
        }
    }

    pub(super) fn dispatch(&mut self) {
        loop {
            if let Some((id, owner, ev)) = self.pending.pop_front() {
                let closed = matches!(ev, ConnEvent::Closed(_));
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| owner(self, id, ev))) {
                    log::error!(
                        "connection {}: handler panicked ({}); closing it",
                        id,
                        panic_text(&p)
                    );
                    if !closed {
                        self.drop_conn(id, "internal error while handling a frame".into());
                    }
                }
                if !closed {
                    if let Some(c) = self.conns.get_mut(&id) {
                        if let Some(d) = &c.direct {
                            c.in_hand = c.in_hand.saturating_sub(1);
                            if c.in_hand == 0 {
                                d.settle(c.dec.has_partial());
                            }
                        }
                    }
                    self.frame_done(id);
                }
                continue;
            }
            if let Some(f) = self.deferred.pop_front() {
                run_guarded("deferred callback", || f(self));
                continue;
            }
            break;
        }
    }

    pub(super) fn run_timers(&mut self) {
        let now = Instant::now();
        while let Some((&(at, id), _)) = self.timers.first_key_value() {
            if at > now {
                break;
            }
            if let Some(f) = self.timers.remove(&(at, id)) {
                self.timer_index.remove(&id);
                run_guarded("timer", || f(self));
                self.dispatch();
            }
        }
    }

    pub(super) fn next_timeout(&self) -> Option<Duration> {
        self.timers
            .first_key_value()
            .map(|(&(at, _), _)| at.saturating_duration_since(Instant::now()))
    }
}

/// Write what the socket takes of `c`'s queued output; the reason to drop the connection
/// if the write failed.
fn write_out(c: &mut Conn) -> Option<String> {
    loop {
        let in_out = c.out_pos < c.out.len();
        let buf = if in_out {
            c.out.get(c.out_pos..).unwrap_or_default()
        } else {
            match c.later.front() {
                Some(f) => f,
                None => break,
            }
        };
        match c.stream.write(buf) {
            Ok(0) => return Some("peer stopped reading (write returned 0)".to_string()),
            Ok(n) if in_out => c.out_pos += n,
            Ok(n) => c.later.consumed(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Some(format!("write failed: {}", e)),
        }
    }
    if c.out_pos >= c.out.len() {
        c.out.clear();
        c.out_pos = 0;
    } else if c.out_pos > 1 << 20 {
        c.out.drain(..c.out_pos);
        c.out_pos = 0;
    }
    None
}
