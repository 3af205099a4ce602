//! The one progress thread per process ("pmix-progress").
//!
//! It owns one mio [`Poll`], one [`Waker`], one command channel and a timer list. It is
//! the only code that does socket I/O and the only thread that runs callbacks (non-blocking
//! completions, event handlers, host upcalls). Everything else talks to it by posting a
//! [`Command`] ([`Handle::post`]) and, for blocking APIs, waiting through the one wait
//! helper [`wait`].
//!
//! Life cycle: [`acquire`] starts the thread on first use (client init, server start) and
//! counts users; [`release`] stops it when the last user is gone. It can be started again
//! afterwards (repeated `PMIx_Init`/`PMIx_Finalize`).
//!
//! # Implementation notes
//! Connections are framed streams (see [`crate::protocol`]). Each connection has an
//! *owner*: a shared closure that receives its frames and its close. Owners are cloned
//! out of the connection table before they run, so an owner may freely send, close or
//! open connections through the [`Ctx`] it is handed. A panic in an owner, timer or
//! command is caught: it is logged and, for a connection owner, the connection is closed
//! (its owner sees [`ConnEvent::Closed`]), so no peer waits forever.

use crate::error::{Error, Result};
use crate::fasthash::FastMap;
use crate::protocol::{self, FrameDecoder};
use crossbeam::channel::{self, Receiver, RecvTimeoutError, Sender};
use mio::net::{UnixListener, UnixStream};
use mio::{Events, Interest, Poll, Token, Waker};
use pmix_sys as sys;
use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};
/// Connection and timer tables, looked up on every read, send and timer: the fast hasher.
type HashMap<K, V> = FastMap<K, V>;
use std::io::{self, Read, Write};
use std::os::fd::BorrowedFd;
use std::os::unix::io::{AsRawFd, RawFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Work posted to the progress thread.
pub type Command = Box<dyn FnOnce(&mut Ctx) + Send + 'static>;

/// Identifies one connection inside the reactor.
pub type ConnId = usize;

/// What happens on a connection, as its owner sees it.
#[derive(Debug)]
pub enum ConnEvent {
    /// One complete frame body arrived.
    Frame(Vec<u8>),
    /// The connection is gone (peer closed, I/O error, malformed frame, panic in the owner).
    /// The text says why. Not delivered for a close the owner asked for with [`Ctx::close`].
    Closed(String),
}

/// The owner of a connection: receives its events on the progress thread.
pub type ConnOwner = Arc<dyn Fn(&mut Ctx, ConnId, ConnEvent) + Send + Sync + 'static>;

/// Called on the progress thread for each accepted connection.
pub type AcceptFn = Arc<dyn Fn(&mut Ctx, UnixStream) + Send + Sync + 'static>;

/// Identifies a timer (for [`Ctx::cancel_timer`]).
pub type TimerId = u64;

const WAKER: Token = Token(0);
/// The debug-dump wake-up socket ([`crate::dump`]).
const DUMP: Token = Token(usize::MAX);
const READ_CHUNK: usize = 64 * 1024;

thread_local! {
    static ON_PROGRESS: Cell<bool> = const { Cell::new(false) };
}

/// True when the calling thread is the progress thread.
pub fn on_progress_thread() -> bool {
    ON_PROGRESS.with(|f| f.get())
}

struct Conn {
    stream: UnixStream,
    owner: ConnOwner,
    dec: FrameDecoder,
    out: Vec<u8>,
    out_pos: usize,
    want_write: bool,
    /// Input back-pressure ([`ConnOpts::pause_above`]); `None` for unthrottled connections.
    pause_above: Option<usize>,
    /// A throttled connection has one frame waiting in `Ctx::pending`.
    in_flight: bool,
    /// A throttled connection is not read while its output exceeds `pause_above`.
    paused: bool,
    /// A connection whose reading a waiting caller may take over ([`Handle::add_conn_direct`]);
    /// its poller registration is managed through this, never through `stream`.
    direct: Option<Arc<DirectRead>>,
}

impl Conn {
    fn queued(&self) -> usize {
        self.out.len().saturating_sub(self.out_pos)
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

struct Listener {
    sock: UnixListener,
    on_accept: AcceptFn,
}

/// The progress thread's state, handed to every command, timer and connection owner.
pub struct Ctx {
    registry: Arc<mio::Registry>,
    conns: HashMap<usize, Conn>,
    listeners: HashMap<usize, Listener>,
    timers: BTreeMap<(Instant, TimerId), Command>,
    timer_index: HashMap<TimerId, Instant>,
    /// Shared with every [`Handle`]: other threads take ids for sockets they register
    /// themselves ([`Handle::add_conn`], [`Handle::add_listener`]).
    next_token: Arc<AtomicUsize>,
    next_timer: TimerId,
    pending: VecDeque<(ConnId, ConnOwner, ConnEvent)>,
    deferred: VecDeque<Command>,
    read_buf: Vec<u8>,
    stopping: bool,
}

impl Ctx {
    fn token(&mut self) -> Token {
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
        let dec = FrameDecoder::with_limit(opts.max_frame);
        self.insert_conn(tok.0, stream, owner, dec, opts.pause_above, None);
        Ok(tok.0)
    }

    /// Take over a connection another thread registered under `id` (see
    /// [`Handle::add_conn`]); `dec` holds whatever that thread read past its last frame.
    fn insert_conn(
        &mut self,
        id: ConnId,
        stream: UnixStream,
        owner: ConnOwner,
        dec: FrameDecoder,
        pause_above: Option<usize>,
        direct: Option<Arc<DirectRead>>,
    ) {
        self.conns.insert(
            id,
            Conn {
                stream,
                owner,
                dec,
                out: Vec::new(),
                out_pos: 0,
                want_write: false,
                pause_above,
                in_flight: false,
                paused: false,
                direct,
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
        let Some(c) = self.conns.get_mut(&id) else {
            return false;
        };
        protocol::encode_frame_into(body, &mut c.out);
        self.flush(id);
        let queued = self
            .conns
            .get(&id)
            .map(|c| c.out.len().saturating_sub(c.out_pos))
            .unwrap_or(0);
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
        let Some(c) = self.conns.get_mut(&id) else {
            return false;
        };
        if fds.is_empty() || c.out_pos < c.out.len() {
            if !fds.is_empty() {
                log::debug!("connection {}: output queued, descriptors not passed", id);
            }
            return self.send(id, body);
        }
        let mut frame = Vec::with_capacity(body.len() + 4);
        protocol::encode_frame_into(body, &mut frame);
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
        let Some(c) = self.conns.get_mut(&id) else {
            return false;
        };
        c.out.extend_from_slice(bytes);
        self.flush(id);
        self.conns.contains_key(&id)
    }

    /// True when nothing queued on `id` is left to write (or the connection is gone).
    pub fn flushed(&self, id: ConnId) -> bool {
        self.conns.get(&id).is_none_or(|c| c.out_pos >= c.out.len())
    }

    /// Close a connection at the owner's request (its owner gets no `Closed` event).
    /// Bytes not yet written are attempted once more, then dropped.
    pub fn close(&mut self, id: ConnId) {
        if let Some(mut c) = self.conns.remove(&id) {
            if c.out_pos < c.out.len() {
                let _ = c.stream.write(c.out.get(c.out_pos..).unwrap_or_default());
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
        self.listeners.insert(tok.0, Listener { sock, on_accept });
        Ok(tok.0)
    }

    /// Take over a listener another thread registered under `id` (see
    /// [`Handle::add_listener`]), accepting whoever connected before it was in the table.
    fn insert_listener(&mut self, id: usize, sock: UnixListener, on_accept: AcceptFn) {
        self.listeners.insert(id, Listener { sock, on_accept });
        self.on_accept(id);
    }

    /// Stop listening.
    pub fn remove_listener(&mut self, id: usize) {
        if let Some(mut l) = self.listeners.remove(&id) {
            let _ = self.registry.deregister(&mut l.sock);
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

    fn flush(&mut self, id: ConnId) {
        let mut failed = None;
        if let Some(c) = self.conns.get_mut(&id) {
            while c.out_pos < c.out.len() {
                match c.stream.write(c.out.get(c.out_pos..).unwrap_or_default()) {
                    Ok(0) => {
                        failed = Some("peer stopped reading (write returned 0)".to_string());
                        break;
                    }
                    Ok(n) => c.out_pos += n,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        failed = Some(format!("write failed: {}", e));
                        break;
                    }
                }
            }
            if failed.is_none() {
                if c.out_pos >= c.out.len() {
                    c.out.clear();
                    c.out_pos = 0;
                } else if c.out_pos > 1 << 20 {
                    c.out.drain(..c.out_pos);
                    c.out_pos = 0;
                }
                let want = !c.out.is_empty();
                if want != c.want_write {
                    c.want_write = want;
                    if let Some(d) = &c.direct {
                        let mut s = d.lock();
                        s.want_write = want;
                        d.apply_interest(&mut s);
                    } else {
                        let interest = if want {
                            Interest::READABLE | Interest::WRITABLE
                        } else {
                            Interest::READABLE
                        };
                        let _ = self.registry.reregister(&mut c.stream, Token(id), interest);
                    }
                }
            }
        }
        if let Some(why) = failed {
            self.drop_conn(id, why);
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
    fn on_readable(&mut self, id: ConnId, until_empty: bool) {
        let direct = self.conns.get(&id).and_then(|c| c.direct.clone());
        if let Some(d) = &direct {
            // A caller reading the connection leaves it to us when it is done (and then
            // registers it with the poller again, which reports what arrived meanwhile);
            // otherwise no caller may take it over until we are done here.
            let back = {
                let mut s = d.lock();
                if s.taken {
                    return;
                }
                s.reading = true;
                std::mem::take(&mut s.handback)
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
        if let Some(d) = direct {
            let partial = self.conns.get(&id).is_some_and(|c| c.dec.has_partial());
            let mut s = d.lock();
            s.reading = false;
            s.partial = partial;
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
                    if let Some(d) = &c.direct {
                        d.lock().in_hand += 1;
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
    fn resume(&mut self, id: ConnId) {
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

    fn on_accept(&mut self, id: usize) {
        loop {
            let Some(l) = self.listeners.get(&id) else {
                return;
            };
            match l.sock.accept() {
                Ok((stream, _)) => {
                    let f = l.on_accept.clone();
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(self, stream))) {
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

    fn dispatch(&mut self) {
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
                    if let Some(d) = self.conns.get(&id).and_then(|c| c.direct.as_ref()) {
                        let mut s = d.lock();
                        s.in_hand = s.in_hand.saturating_sub(1);
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

    fn run_timers(&mut self) {
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

    fn next_timeout(&self) -> Option<Duration> {
        self.timers
            .first_key_value()
            .map(|(&(at, _), _)| at.saturating_duration_since(Instant::now()))
    }
}

fn run_guarded(what: &str, f: impl FnOnce()) {
    if let Err(p) = catch_unwind(AssertUnwindSafe(f)) {
        log::error!("{} panicked: {}", what, panic_text(&p));
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

fn io_err(what: &str, e: io::Error) -> Error {
    Error::new(sys::PMIX_ERR_COMM_FAILURE, format!("{}: {}", what, e))
}

/// A cheap, clonable way to reach the progress thread.
#[derive(Clone)]
pub struct Handle {
    tx: Sender<Command>,
    waker: Arc<Waker>,
    registry: Arc<mio::Registry>,
    next_token: Arc<AtomicUsize>,
}

impl Handle {
    /// Post `f` to run on the progress thread.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` once the progress thread has stopped.
    pub fn post(&self, f: impl FnOnce(&mut Ctx) + Send + 'static) -> Result<()> {
        self.tx
            .send(Box::new(f))
            .map_err(|_| Error::new(sys::PMIX_ERR_NOT_AVAILABLE, "progress thread stopped"))?;
        let _ = self.waker.wake();
        Ok(())
    }

    /// Hand a connected stream to the progress thread without waiting for it: the
    /// socket is registered with the poller here, its id is returned at once, and the
    /// progress thread takes it over when it next runs (first the complete frames in
    /// `dec`, what the calling thread read beyond its own exchange, then whatever
    /// arrived in between). Frames and the close then reach `owner` as with
    /// [`Ctx::add_conn`].
    ///
    /// # Errors
    /// The registration error from mio, `PMIX_ERR_NOT_AVAILABLE` if the progress thread
    /// has stopped.
    pub fn add_conn(
        &self,
        mut stream: UnixStream,
        owner: ConnOwner,
        dec: FrameDecoder,
    ) -> Result<ConnId> {
        let id = self.next_token.fetch_add(1, Ordering::Relaxed) + 1;
        self.registry
            .register(&mut stream, Token(id), Interest::READABLE)
            .map_err(|e| io_err("register connection", e))?;
        self.post(move |ctx| ctx.insert_conn(id, stream, owner, dec, None, None))?;
        Ok(id)
    }

    /// [`Handle::add_conn`] for a connection whose reading a caller waiting for a reply
    /// may take over ([`DirectRead::take`]): `reader` is the caller's own handle on the
    /// same socket (a `try_clone` of it).
    ///
    /// # Errors
    /// As [`Handle::add_conn`].
    pub fn add_conn_direct(
        &self,
        stream: UnixStream,
        reader: std::os::unix::net::UnixStream,
        owner: ConnOwner,
        dec: FrameDecoder,
    ) -> Result<(ConnId, Arc<DirectRead>)> {
        let id = self.next_token.fetch_add(1, Ordering::Relaxed) + 1;
        let d = Arc::new(DirectRead {
            id,
            fd: stream.as_raw_fd(),
            handle: self.clone(),
            st: Mutex::new(DirectState {
                // Nobody takes the connection over before the progress thread has
                // delivered what the handshake read past its own exchange.
                reading: true,
                stream: Some(reader),
                ..Default::default()
            }),
        });
        {
            let mut s = d.lock();
            d.apply_interest(&mut s);
            if s.registered == Reg::None {
                return Err(Error::new(
                    sys::PMIX_ERR_COMM_FAILURE,
                    "register connection: the poller refused it",
                ));
            }
        }
        let d2 = d.clone();
        if let Err(e) =
            self.post(move |ctx| ctx.insert_conn(id, stream, owner, dec, None, Some(d2)))
        {
            d.retire();
            return Err(e);
        }
        Ok((id, d))
    }

    /// [`Handle::add_conn`] for a listening socket (see [`Ctx::add_listener`]).
    ///
    /// # Errors
    /// As [`Handle::add_conn`].
    pub fn add_listener(&self, mut sock: UnixListener, on_accept: AcceptFn) -> Result<usize> {
        let id = self.next_token.fetch_add(1, Ordering::Relaxed) + 1;
        self.registry
            .register(&mut sock, Token(id), Interest::READABLE)
            .map_err(|e| io_err("register listener", e))?;
        self.post(move |ctx| ctx.insert_listener(id, sock, on_accept))?;
        Ok(id)
    }

    /// Run `f` on the progress thread and wait for its result (through [`wait`]).
    ///
    /// # Errors
    /// `PMIX_ERR_WOULD_BLOCK` on the progress thread, `PMIX_ERR_NOT_AVAILABLE` if the
    /// thread stops first, or `f`'s own error.
    pub fn call<T: Send + 'static>(
        &self,
        name: &str,
        f: impl FnOnce(&mut Ctx) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        wait(name, None, |done| {
            self.post(move |ctx| done.complete(f(ctx)))
        })
    }
}

struct Running {
    handle: Handle,
    thread: Option<JoinHandle<()>>,
}

struct Global {
    users: usize,
    running: Option<Running>,
}

static GLOBAL: Mutex<Global> = Mutex::new(Global {
    users: 0,
    running: None,
});

fn lock_global() -> std::sync::MutexGuard<'static, Global> {
    GLOBAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// Start the progress thread if needed and count one more user.
///
/// # Errors
/// `PMIX_ERR_OUT_OF_RESOURCE` if the poller or the thread cannot be created.
pub fn acquire() -> Result<Handle> {
    crate::dump::install_from_env();
    let mut g = lock_global();
    if let Some(h) = g.running.as_ref().map(|r| r.handle.clone()) {
        g.users += 1;
        return Ok(h);
    }
    let poll = Poll::new().map_err(|e| out_of_resource("create poller", e))?;
    let waker = Arc::new(
        Waker::new(poll.registry(), WAKER).map_err(|e| out_of_resource("create waker", e))?,
    );
    let registry = Arc::new(
        poll.registry()
            .try_clone()
            .map_err(|e| out_of_resource("clone registry", e))?,
    );
    let next_token = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = channel::unbounded();
    let (r2, t2) = (registry.clone(), next_token.clone());
    let thread = std::thread::Builder::new()
        .name(THREAD_NAME.into())
        .spawn(move || run(poll, r2, t2, rx))
        .map_err(|e| out_of_resource("spawn progress thread", e))?;
    let handle = Handle {
        tx,
        waker,
        registry,
        next_token,
    };
    g.running = Some(Running {
        handle: handle.clone(),
        thread: Some(thread),
    });
    g.users = 1;
    STOPPED.store(false, Ordering::SeqCst);
    log::debug!("progress thread started");
    Ok(handle)
}

/// Output queued for one peer beyond which the connection is dropped (see [`Ctx::send`]).
/// Four maximum-size frames: a peer that reads at all never comes near it.
pub const DEFAULT_MAX_QUEUED: usize = 4 * protocol::MAX_FRAME;

static MAX_QUEUED: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_QUEUED);

/// The current per-connection output limit.
pub fn max_queued() -> usize {
    MAX_QUEUED.load(Ordering::Relaxed)
}

/// Change the per-connection output limit (process-wide; tests use a small one).
pub fn set_max_queued(bytes: usize) {
    MAX_QUEUED.store(bytes.max(1), Ordering::Relaxed);
}

/// Set by [`stop_servicing`] (`PMIx_Progress_thread_stop`); cleared when a new progress
/// thread starts.
static STOPPED: AtomicBool = AtomicBool::new(false);

/// The name of the one progress thread (also accepted by [`stop_servicing`] callers as
/// `PMIX_PROGRESS_THREAD_NAME`).
pub const THREAD_NAME: &str = "pmix-progress";

/// `PMIx_Progress_thread_stop`: the library's progress engine stops servicing the API.
/// From now on the client calls that need it return `PMIX_ERR_NOT_AVAILABLE` at once
/// ([`stopped`]) and event handlers are no longer run. The thread itself keeps running
/// for what is already in flight and for `PMIx_Finalize`, which stays usable so the
/// process can leave cleanly; the next start of the thread (a new `PMIx_Init` after the
/// last finalize) services the API again.
pub fn stop_servicing() {
    if !STOPPED.swap(true, Ordering::SeqCst) {
        log::debug!("progress engine stopped by PMIx_Progress_thread_stop");
    }
}

/// True after [`stop_servicing`], until a new progress thread starts.
pub fn stopped() -> bool {
    STOPPED.load(Ordering::SeqCst)
}

/// `PMIX_ERR_NOT_AVAILABLE` for `call` if the progress engine was stopped.
///
/// # Errors
/// `PMIX_ERR_NOT_AVAILABLE` after [`stop_servicing`].
pub fn check_serviceable(call: &str) -> Result<()> {
    if stopped() {
        log::debug!("{}: the progress engine has been stopped", call);
        return Err(Error::new(
            sys::PMIX_ERR_NOT_AVAILABLE,
            format!("{}: the progress engine has been stopped", call),
        ));
    }
    Ok(())
}

/// The running progress thread's handle, if any (does not count a user).
pub fn current() -> Option<Handle> {
    lock_global().running.as_ref().map(|r| r.handle.clone())
}

/// Count one user less; the last one stops the progress thread (and waits for it, unless
/// called on the progress thread itself).
pub fn release() {
    release_with(true);
}

/// [`release`] for a process about to exit: the last user tells the progress thread to
/// stop but does not wait for it to wake up and finish (on a loaded machine that wait is
/// a scheduling delay at the end of every `pmixrun`).
pub fn release_at_exit() {
    release_with(false);
}

fn release_with(join: bool) {
    let running = {
        let mut g = lock_global();
        if g.users == 0 {
            return;
        }
        g.users -= 1;
        if g.users > 0 {
            return;
        }
        g.running.take()
    };
    // Join without holding the global lock: a callback still running on the old thread
    // may look the reactor up, and a new user may start a fresh thread meanwhile.
    if let Some(mut r) = running {
        let _ = r.handle.post(|ctx| ctx.stopping = true);
        if let Some(t) = r.thread.take() {
            if on_progress_thread() || !join {
                drop(t); // detach: it exits after the current callback
            } else {
                let _ = t.join();
            }
        }
        log::debug!("progress thread stopped");
    }
}

/// How many times the progress thread, after a round of work, yields the CPU
/// (`sched_yield`) and looks at the poller without waiting before it sleeps in it. On a
/// machine with more runnable threads than CPUs (ranks and the server on two cores) the
/// yield lets a rank run and send its next request, which the thread then finds without
/// having slept: no wakeup of an idle CPU (a VM exit here), and requests taken in batches.
/// With nothing else to run a yield returns at once, so this costs a few µs of CPU per
/// round of work (docs/PERF.md: a fence at 2 ranks under `pmixrun` took 37–46 µs and
/// 13–17 µs of the server's CPU without it, 25–29 µs and 7–10 µs with it).
const PROGRESS_YIELDS: u32 = 4;

fn out_of_resource(what: &str, e: io::Error) -> Error {
    Error::new(sys::PMIX_ERR_OUT_OF_RESOURCE, format!("{}: {}", what, e))
}

fn run(
    mut poll: Poll,
    registry: Arc<mio::Registry>,
    next_token: Arc<AtomicUsize>,
    rx: Receiver<Command>,
) {
    ON_PROGRESS.with(|f| f.set(true));
    let mut ctx = Ctx {
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
    };
    let mut events = Events::with_capacity(256);
    if let Some(w) = crate::dump::wake_socket() {
        let mut w = w.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = poll.registry().register(&mut *w, DUMP, Interest::READABLE) {
            log::warn!("progress thread: cannot watch the debug-dump signal: {}", e);
        }
    }
    // After a round with work, look again a few times, yielding the CPU in between,
    // before sleeping in the poller (see PROGRESS_YIELDS).
    let mut spare = 0u32;
    while !ctx.stopping {
        let timeout = if spare > 0 {
            spare -= 1;
            std::thread::yield_now();
            Some(Duration::ZERO)
        } else {
            ctx.next_timeout()
        };
        let r = poll.poll(&mut events, timeout);
        if r.is_ok() && !events.is_empty() {
            spare = PROGRESS_YIELDS;
        }
        if let Err(e) = r {
            if e.kind() != io::ErrorKind::Interrupted {
                log::error!("progress thread: poll failed: {}", e);
                std::thread::sleep(Duration::from_millis(10));
            }
            continue;
        }
        for ev in events.iter() {
            let t = ev.token();
            if t == WAKER {
                continue;
            }
            if t == DUMP {
                run_guarded("debug dump", crate::dump::on_wake);
                continue;
            }
            if ctx.listeners.contains_key(&t.0) {
                ctx.on_accept(t.0);
            } else {
                if ev.is_writable() {
                    ctx.flush(t.0);
                    if ctx.conns.get(&t.0).is_some_and(|c| c.paused) {
                        ctx.resume(t.0);
                    }
                }
                let closing = ev.is_read_closed() || ev.is_error();
                if ev.is_readable() || closing {
                    ctx.on_readable(t.0, closing);
                }
            }
            ctx.dispatch();
        }
        ctx.run_timers();
        while let Ok(cmd) = rx.try_recv() {
            run_guarded("command", || cmd(&mut ctx));
            ctx.dispatch();
        }
    }
    // Drop everything still registered; commands still queued are dropped unrun, which
    // completes their waiters with PMIX_ERR_NOT_AVAILABLE (see `Completion`).
    for c in ctx.conns.values() {
        if let Some(d) = &c.direct {
            d.retire();
        }
    }
    ctx.conns.clear();
    ctx.listeners.clear();
    ctx.timers.clear();
    ctx.pending.clear();
    ctx.deferred.clear();
    while rx.try_recv().is_ok() {}
    if let Some(w) = crate::dump::wake_socket() {
        let mut w = w.lock().unwrap_or_else(|p| p.into_inner());
        let _ = poll.registry().deregister(&mut *w);
    }
    ON_PROGRESS.with(|f| f.set(false));
}

/// The completion side of a blocking wait: hand it to whatever finishes the operation
/// (usually a closure on the progress thread). Dropping it without completing makes the
/// waiter return `PMIX_ERR_NOT_AVAILABLE`.
pub struct Completion<T> {
    tx: Sender<Result<T>>,
}

impl<T> Completion<T> {
    /// Deliver the result (a waiter that already timed out simply never sees it).
    pub fn complete(self, r: Result<T>) {
        let _ = self.tx.send(r);
    }
}

/// The one wait helper every blocking API goes through.
///
/// `start` receives the [`Completion`] and starts the operation (typically by posting to
/// the progress thread). The caller then sleeps on a channel (no spinning) until the
/// operation completes or `timeout` passes.
///
/// # Errors
/// * `PMIX_ERR_WOULD_BLOCK` at once, with a log line naming `call`, on the progress thread
///   (nothing is started);
/// * `PMIX_ERR_TIMEOUT` when `timeout` passes first;
/// * `PMIX_ERR_NOT_AVAILABLE` if the operation was abandoned (progress thread stopped);
/// * `start`'s error, or the operation's own.
pub fn wait<T>(
    call: &str,
    timeout: Option<Duration>,
    start: impl FnOnce(Completion<T>) -> Result<()>,
) -> Result<T> {
    let (done, waiter) = prepare(call, timeout)?;
    start(done)?;
    waiter.finish()
}

/// The first half of [`wait`], for a caller that does something of its own before it
/// sleeps (a client reading its reply itself, [`DirectRead`]): the [`Completion`] to
/// start the operation with and the [`Waiter`] to finish with.
///
/// # Errors
/// `PMIX_ERR_WOULD_BLOCK` on the progress thread, with a log line naming `call`.
pub fn prepare<T>(call: &str, timeout: Option<Duration>) -> Result<(Completion<T>, Waiter<T>)> {
    if on_progress_thread() {
        log::warn!(
            "{}: blocking call made on the PMIx progress thread (inside a callback, event \
             handler or host upcall); returning PMIX_ERR_WOULD_BLOCK",
            call
        );
        return Err(Error::new(
            sys::PMIX_ERR_WOULD_BLOCK,
            format!("{} would block the progress thread", call),
        ));
    }
    let (tx, rx) = channel::bounded(1);
    let waiter = Waiter {
        call: call.to_string(),
        rx,
        deadline: timeout.map(|d| Instant::now() + d),
        got: None,
        _mark: crate::dump::enter(call),
    };
    Ok((Completion { tx }, waiter))
}

/// The waiting side of a blocking call (see [`prepare`]).
pub struct Waiter<T> {
    call: String,
    rx: Receiver<Result<T>>,
    deadline: Option<Instant>,
    got: Option<Result<T>>,
    /// This call in the debug dump's table of recent calls (returned when dropped).
    _mark: crate::dump::CallMark,
}

impl<T> Waiter<T> {
    /// When the wait gives up (`None`: never).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// True once the operation has completed (or was abandoned); does not sleep.
    pub fn done(&mut self) -> bool {
        if self.got.is_none() {
            self.got = match self.rx.try_recv() {
                Ok(r) => Some(r),
                Err(channel::TryRecvError::Empty) => None,
                Err(channel::TryRecvError::Disconnected) => Some(Err(abandoned(&self.call))),
            };
        }
        self.got.is_some()
    }

    /// Sleep on the channel (no spinning) until the operation completes or the deadline
    /// passes.
    ///
    /// # Errors
    /// As [`wait`].
    pub fn finish(mut self) -> Result<T> {
        if let Some(r) = self.got.take() {
            return r;
        }
        let call = &self.call;
        let r = match self.deadline {
            Some(t) => self
                .rx
                .recv_timeout(t.saturating_duration_since(Instant::now()))
                .map_err(|e| match e {
                    RecvTimeoutError::Timeout => {
                        Error::new(sys::PMIX_ERR_TIMEOUT, format!("{} timed out", call))
                    }
                    RecvTimeoutError::Disconnected => abandoned(call),
                }),
            None => self.rx.recv().map_err(|_| abandoned(call)),
        };
        r?
    }
}

/// A connection's reading, shared between the progress thread and one caller at a time
/// that waits for a reply on it ([`Handle::add_conn_direct`]).
///
/// A caller that would otherwise sleep until the progress thread has read its reply and
/// woken it reads the socket itself ([`DirectRead::take`]): one thread handoff (a
/// cross-CPU wakeup) less per blocking request. While it reads, the poller does not watch
/// the socket's readability (the progress thread is not woken for what the caller reads)
/// and the progress thread leaves it alone. The caller takes only its own reply from the stream; the
/// first frame that is anything else is given back unhandled, with everything read
/// after it, and the caller goes back to waiting as before, so frames are still handled
/// in order and every callback still runs on the progress thread. Giving the reading
/// back makes the poller watch readability again, which reports data that arrived
/// meanwhile (the kernel checks the socket on every change of interest: nothing is lost
/// to edge-triggered polling).
pub struct DirectRead {
    id: ConnId,
    /// The descriptor the poller knows the connection by (the progress thread's socket).
    fd: RawFd,
    handle: Handle,
    st: Mutex<DirectState>,
}

/// A direct connection's registration with the poller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Reg {
    /// Not registered.
    #[default]
    None,
    /// Registered, watching nothing ([`crate::sys::epoll_park`]).
    Parked,
    /// Registered for this.
    Watch(Interest),
}

#[derive(Default)]
struct DirectState {
    /// A caller reads the socket.
    taken: bool,
    /// The progress thread reads it (or has not taken the connection over yet).
    reading: bool,
    /// Frames the progress thread took from the stream and has not finished handling.
    in_hand: usize,
    /// The progress thread holds the start of a frame.
    partial: bool,
    /// Bytes a caller read and gave back, to be handled before anything read later.
    handback: Vec<u8>,
    /// The progress thread has output waiting for the socket to take it.
    want_write: bool,
    /// What the poller watches now.
    registered: Reg,
    /// The connection has left the progress thread's table.
    closed: bool,
    /// The caller's handle on the socket (with a caller while it reads).
    stream: Option<std::os::unix::net::UnixStream>,
    /// The caller's decoder and read buffer, kept for their capacity.
    dec: FrameDecoder,
    buf: Vec<u8>,
}

/// What [`DirectReader::next_frame`] found.
#[derive(Debug)]
pub enum DirectFrame {
    /// One complete frame body.
    Frame(Vec<u8>),
    /// The deadline passed first.
    TimedOut,
    /// The stream ended, failed or holds a malformed frame: the progress thread deals
    /// with it once the reading is given back.
    Ended,
}

impl DirectRead {
    fn lock(&self) -> MutexGuard<'_, DirectState> {
        self.st.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Make the poller watch what the state asks for: readability unless a caller reads,
    /// writability while output waits, nothing once the connection is closed. While a
    /// caller reads and no output waits, the socket stays registered and watches nothing
    /// ([`crate::sys::epoll_park`]): switching the interest (`EPOLL_CTL_MOD`, about 1 µs
    /// for the pair here) is cheaper than removing the socket and adding it back
    /// (`EPOLL_CTL_DEL` + `ADD`, 2–3.5 µs).
    fn apply_interest(&self, s: &mut DirectState) {
        let want = if s.closed {
            Reg::None
        } else if s.taken && !s.want_write {
            Reg::Parked
        } else if s.taken {
            Reg::Watch(Interest::WRITABLE)
        } else if s.want_write {
            Reg::Watch(Interest::READABLE | Interest::WRITABLE)
        } else {
            Reg::Watch(Interest::READABLE)
        };
        if want == s.registered {
            return;
        }
        let registry = &self.handle.registry;
        let mut src = mio::unix::SourceFd(&self.fd);
        let tok = Token(self.id);
        let r = match (s.registered, want) {
            (Reg::None, Reg::Watch(i)) => registry.register(&mut src, tok, i),
            (Reg::None, Reg::Parked) => registry
                .register(&mut src, tok, Interest::READABLE)
                .and_then(|()| crate::sys::epoll_park(&**registry, self.fd, self.id as u64)),
            (_, Reg::Watch(i)) => registry.reregister(&mut src, tok, i),
            (_, Reg::Parked) => crate::sys::epoll_park(&**registry, self.fd, self.id as u64),
            (_, Reg::None) => registry.deregister(&mut src),
        };
        match r {
            Ok(()) => s.registered = want,
            Err(e) => log::warn!(
                "connection {}: poller registration ({:?}) failed: {}",
                self.id,
                want,
                e
            ),
        }
    }

    /// The connection leaves the progress thread's table: out of the poller for good (the
    /// descriptor is closed next), and the caller's handle is dropped once nobody reads
    /// (so the peer sees the close).
    fn retire(&self) {
        let mut s = self.lock();
        s.closed = true;
        s.stream = None;
        self.apply_interest(&mut s);
    }

    /// Take the connection's reading over, if nobody else reads it and the progress
    /// thread holds nothing of it (no frame being handled, no partial frame, no output
    /// waiting); `None` otherwise, and the caller waits as before. The reading goes back
    /// to the progress thread when the reader is dropped.
    pub fn take(self: &Arc<Self>) -> Option<DirectReader> {
        let mut s = self.lock();
        if s.taken
            || s.reading
            || s.in_hand > 0
            || s.partial
            || s.closed
            || s.want_write
            || !s.handback.is_empty()
        {
            return None;
        }
        let stream = s.stream.take()?;
        s.taken = true;
        self.apply_interest(&mut s);
        if matches!(s.registered, Reg::Watch(i) if i.is_readable()) {
            // Readability still watched by the poller: both threads would read.
            s.taken = false;
            s.stream = Some(stream);
            return None;
        }
        Some(DirectReader {
            d: self.clone(),
            stream: Some(stream),
            dec: std::mem::take(&mut s.dec),
            buf: std::mem::take(&mut s.buf),
            back: Vec::new(),
        })
    }
}

/// How many times a caller reading its reply yields the CPU (`sched_yield`, then one
/// non-blocking read) before it sleeps in `poll`. On a machine with more runnable
/// threads than CPUs the yield lets the server or another rank run on this CPU, and a
/// reply that comes meanwhile finds the caller runnable: no sleep, and no wakeup of an
/// idle CPU, which costs a VM exit here. With nothing else to run a yield returns at once,
/// so this costs a few µs of CPU before the sleep. It mirrors the few yields the
/// channel wait of [`wait`] makes before it sleeps (docs/PERF.md has the measurements:
/// same CPU time per fence, 0.42 → 0.23 of OpenPMIx's fence time at 8 ranks on 2 cores).
const DIRECT_YIELDS: u32 = 4;

/// A caller's hold on a connection's reading (see [`DirectRead`]); dropping it gives the
/// reading back to the progress thread.
pub struct DirectReader {
    d: Arc<DirectRead>,
    stream: Option<std::os::unix::net::UnixStream>,
    dec: FrameDecoder,
    buf: Vec<u8>,
    /// Frames given back ([`DirectReader::put_back`]), framed again.
    back: Vec<u8>,
}

impl DirectReader {
    /// The next complete frame: from what was read already, else read from the socket,
    /// sleeping (in `poll`) until data arrives or `deadline` passes.
    pub fn next_frame(&mut self, deadline: Option<Instant>) -> DirectFrame {
        let Some(stream) = self.stream.as_ref() else {
            return DirectFrame::Ended;
        };
        let mut yields = DIRECT_YIELDS;
        loop {
            match self.dec.next_frame() {
                Ok(Some(f)) => return DirectFrame::Frame(f),
                Ok(None) => {}
                // The bytes stay in the decoder: the progress thread meets them and closes.
                Err(_) => return DirectFrame::Ended,
            }
            let left = deadline.map(|t| t.saturating_duration_since(Instant::now()));
            if left.is_some_and(|l| l.is_zero()) {
                return DirectFrame::TimedOut;
            }
            if yields > 0 {
                yields -= 1;
                std::thread::yield_now();
            } else {
                match crate::sys::wait_readable(stream, left) {
                    Ok(true) => {}
                    Ok(false) => return DirectFrame::TimedOut,
                    Err(_) => return DirectFrame::Ended,
                }
            }
            if self.buf.len() < READ_CHUNK {
                self.buf = vec![0u8; READ_CHUNK];
            }
            let mut s = stream;
            match s.read(&mut self.buf) {
                Ok(0) => return DirectFrame::Ended,
                Ok(n) => self.dec.push(self.buf.get(..n).unwrap_or_default()),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => return DirectFrame::Ended,
            }
        }
    }

    /// Give back a frame [`DirectReader::next_frame`] returned: the progress thread
    /// handles it, before anything read after it.
    pub fn put_back(&mut self, frame: &[u8]) {
        protocol::encode_frame_into(frame, &mut self.back);
    }
}

impl Drop for DirectReader {
    fn drop(&mut self) {
        let mut rest = std::mem::take(&mut self.back);
        rest.extend_from_slice(&self.dec.take_rest());
        let post = {
            let mut s = self.d.lock();
            s.taken = false;
            s.dec = std::mem::take(&mut self.dec);
            s.buf = std::mem::take(&mut self.buf);
            if !s.closed {
                s.stream = self.stream.take();
            }
            let post = !rest.is_empty() && !s.closed;
            s.handback = rest;
            // Readability watched again: what arrived after our last read is reported now.
            self.d.apply_interest(&mut s);
            post
        };
        if post {
            // Bytes read and not ours: the progress thread handles them now, even if
            // nothing more arrives.
            let id = self.d.id;
            let _ = self.d.handle.post(move |ctx| ctx.poll_input(id));
        }
    }
}

fn abandoned(call: &str) -> Error {
    Error::new(
        sys::PMIX_ERR_NOT_AVAILABLE,
        format!("{}: the progress engine stopped before completion", call),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    // The reactor is process-wide; tests that start and stop it must not overlap.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn serial() -> std::sync::MutexGuard<'static, ()> {
        SERIAL.lock().unwrap_or_else(|p| p.into_inner())
    }

    #[test]
    fn call_runs_on_progress_thread_and_restarts() {
        let _s = serial();
        for _ in 0..3 {
            let h = acquire().unwrap();
            let on = h.call("test", |_| Ok(on_progress_thread())).unwrap();
            assert!(on);
            assert!(!on_progress_thread());
            release();
        }
    }

    #[test]
    fn wait_on_progress_thread_would_block() {
        let _s = serial();
        let h = acquire().unwrap();
        let r = h
            .call("outer", |_| {
                let inner: Result<()> = wait("PMIx_Fence", None, |_d| Ok(()));
                Ok(inner.unwrap_err().status)
            })
            .unwrap();
        assert_eq!(r, sys::PMIX_ERR_WOULD_BLOCK);
        release();
    }

    #[test]
    fn wait_times_out() {
        let _s = serial();
        let h = acquire().unwrap();
        let t0 = Instant::now();
        let r: Result<()> = wait("PMIx_Get", Some(Duration::from_millis(100)), |done| {
            h.post(move |ctx| {
                ctx.add_timer(
                    Duration::from_millis(2000),
                    Box::new(move |_| done.complete(Ok(()))),
                );
            })
        });
        assert_eq!(r.unwrap_err().status, sys::PMIX_ERR_TIMEOUT);
        assert!(t0.elapsed() < Duration::from_millis(1500));
        release();
    }

    #[test]
    fn timers_fire_in_order_and_cancel() {
        let _s = serial();
        let h = acquire().unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let o = order.clone();
        let r: Result<()> = wait("t", Some(Duration::from_secs(5)), |done| {
            h.post(move |ctx| {
                let o1 = o.clone();
                let o2 = o.clone();
                ctx.add_timer(
                    Duration::from_millis(30),
                    Box::new(move |_| o1.lock().unwrap().push(2)),
                );
                ctx.add_timer(
                    Duration::from_millis(10),
                    Box::new(move |_| o2.lock().unwrap().push(1)),
                );
                let o3 = o.clone();
                let c = ctx.add_timer(
                    Duration::from_millis(20),
                    Box::new(move |_| o3.lock().unwrap().push(99)),
                );
                ctx.cancel_timer(c);
                ctx.add_timer(
                    Duration::from_millis(50),
                    Box::new(move |_| done.complete(Ok(()))),
                );
            })
        });
        r.unwrap();
        assert_eq!(*order.lock().unwrap(), vec![1, 2]);
        release();
    }

    #[test]
    fn frames_flow_and_malformed_frame_closes_only_that_connection() {
        let _s = serial();
        let h = acquire().unwrap();
        let got = Arc::new(Mutex::new(Vec::<String>::new()));
        let g = got.clone();
        let owner: ConnOwner = Arc::new(move |ctx, id, ev| match ev {
            ConnEvent::Frame(b) => {
                g.lock().unwrap().push(format!("frame {}", b.len()));
                ctx.send(id, &b); // echo
            }
            ConnEvent::Closed(why) => g.lock().unwrap().push(format!("closed {}", why)),
        });
        let (a1, b1) = std::os::unix::net::UnixStream::pair().unwrap();
        let (a2, b2) = std::os::unix::net::UnixStream::pair().unwrap();
        for s in [&b1, &b2] {
            s.set_nonblocking(true).unwrap();
        }
        let (o1, o2) = (owner.clone(), owner);
        h.call("add", move |ctx| {
            ctx.add_conn(UnixStream::from_std(b1), o1)?;
            ctx.add_conn(UnixStream::from_std(b2), o2)?;
            Ok(())
        })
        .unwrap();
        let mut a1 = a1;
        let mut a2 = a2;
        a1.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        a2.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        // A frame larger than the maximum closes connection 2 ...
        a2.write_all(&(protocol::MAX_FRAME as u32 + 1).to_le_bytes())
            .unwrap();
        let mut b = [0u8; 1];
        assert_eq!(a2.read(&mut b).unwrap(), 0);
        // ... while connection 1 still echoes.
        let mut frame = Vec::new();
        protocol::encode_frame_into(b"hello", &mut frame);
        a1.write_all(&frame).unwrap();
        let mut echo = vec![0u8; frame.len()];
        a1.read_exact(&mut echo).unwrap();
        assert_eq!(echo, frame);
        let log = got.lock().unwrap().clone();
        assert!(
            log.iter().any(|l| l.starts_with("closed malformed")),
            "{:?}",
            log
        );
        assert!(log.contains(&"frame 5".to_string()));
        release();
    }

    /// A connection handed over by another thread (Handle::add_conn) first delivers the
    /// frames that thread read past its own exchange (a client's handshake can read an
    /// event the server sent right after its Welcome), then what arrives later, in order.
    #[test]
    fn handed_over_connection_delivers_frames_read_before_the_hand_over() {
        let _s = serial();
        let h = acquire().unwrap();
        let got = Arc::new(Mutex::new(Vec::<Vec<u8>>::new()));
        let g = got.clone();
        let owner: ConnOwner = Arc::new(move |_ctx, _id, ev| {
            if let ConnEvent::Frame(b) = ev {
                g.lock().unwrap().push(b);
            }
        });
        let (mut peer, ours) = std::os::unix::net::UnixStream::pair().unwrap();
        ours.set_nonblocking(true).unwrap();
        let mut early = FrameDecoder::new();
        let mut bytes = Vec::new();
        protocol::encode_frame_into(b"first", &mut bytes);
        protocol::encode_frame_into(b"second", &mut bytes);
        // Half of a third frame: the rest comes through the socket.
        let mut third = Vec::new();
        protocol::encode_frame_into(b"third", &mut third);
        let (head, tail) = third.split_at(6);
        bytes.extend_from_slice(head);
        early.push(&bytes);
        h.add_conn(UnixStream::from_std(ours), owner, early)
            .unwrap();
        peer.write_all(tail).unwrap();
        let mut later = Vec::new();
        protocol::encode_frame_into(b"fourth", &mut later);
        peer.write_all(&later).unwrap();
        let t0 = Instant::now();
        while got.lock().unwrap().len() < 4 && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let frames: Vec<String> = got
            .lock()
            .unwrap()
            .iter()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect();
        assert_eq!(frames, vec!["first", "second", "third", "fourth"]);
        release();
    }

    /// F5 (docs/ROBUSTNESS.md): a peer that writes part of a frame and closes while the
    /// progress thread is busy gets one event for both; stopping after the short read
    /// lost the end of the stream, and the connection was never seen closed.
    #[test]
    fn data_and_end_of_stream_in_one_event_close_the_connection() {
        let _s = serial();
        let h = acquire().unwrap();
        let closed = Arc::new(Mutex::new(Vec::<ConnId>::new()));
        let c2 = closed.clone();
        let owner: ConnOwner = Arc::new(move |_ctx, id, ev| {
            if let ConnEvent::Closed(_) = ev {
                c2.lock().unwrap().push(id);
            }
        });
        for _ in 0..3 {
            let (mut a, b) = std::os::unix::net::UnixStream::pair().unwrap();
            b.set_nonblocking(true).unwrap();
            let o = owner.clone();
            let id = h
                .call("add", move |ctx| ctx.add_conn(UnixStream::from_std(b), o))
                .unwrap();
            // Keep the progress thread busy while both arrive.
            let (tx, rx) = std::sync::mpsc::channel();
            h.post(move |_| {
                tx.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(100));
            })
            .unwrap();
            rx.recv().unwrap();
            a.write_all(&[100, 0, 0, 0, 1, 2, 3]).unwrap();
            drop(a);
            let t0 = Instant::now();
            while !closed.lock().unwrap().contains(&id) && t0.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(
                closed.lock().unwrap().contains(&id),
                "connection {} never seen closed",
                id
            );
        }
        release();
    }

    /// A peer that never reads is dropped once its queue passes the limit, instead of
    /// growing our memory without bound; the owner sees it closed.
    #[test]
    fn close_arriving_with_the_last_frame_is_seen() {
        // The peer's last frame and its close reach the socket while the progress thread
        // is busy, so one readiness event reports both: the close must not be lost.
        let _s = serial();
        let h = acquire().unwrap();
        let got = Arc::new(Mutex::new(Vec::<String>::new()));
        let g = got.clone();
        let owner: ConnOwner = Arc::new(move |_ctx, _id, ev| match ev {
            ConnEvent::Frame(b) => g.lock().unwrap().push(format!("frame {}", b.len())),
            ConnEvent::Closed(why) => g.lock().unwrap().push(format!("closed {}", why)),
        });
        let mut ok = 0;
        for _ in 0..20 {
            got.lock().unwrap().clear();
            let (mut peer, ours) = std::os::unix::net::UnixStream::pair().unwrap();
            ours.set_nonblocking(true).unwrap();
            let o = owner.clone();
            h.call("add", move |ctx| {
                ctx.add_conn(UnixStream::from_std(ours), o)
            })
            .unwrap();
            let (busy_tx, busy_rx) = channel::bounded::<()>(1);
            h.post(move |_| {
                let _ = busy_tx.send(());
                std::thread::sleep(Duration::from_millis(50));
            })
            .unwrap();
            busy_rx.recv().unwrap();
            let mut frame = Vec::new();
            protocol::encode_frame_into(b"last", &mut frame);
            peer.write_all(&frame).unwrap();
            peer.shutdown(std::net::Shutdown::Write).unwrap();
            let t0 = Instant::now();
            while got.lock().unwrap().len() < 2 && t0.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(5));
            }
            let log = got.lock().unwrap().clone();
            assert_eq!(
                log.first().map(String::as_str),
                Some("frame 4"),
                "{:?}",
                log
            );
            assert!(
                log.get(1)
                    .is_some_and(|l| l.starts_with("closed peer closed")),
                "{:?}",
                log
            );
            ok += 1;
        }
        assert_eq!(ok, 20);
        release();
    }

    #[test]
    fn throttled_connection_is_not_read_while_its_answers_wait() {
        // Each 8-byte request is answered with 256 KiB; the peer sends 100 requests and
        // reads nothing: with back-pressure at 1 MiB only a handful are handled, and all
        // of them once the peer reads.
        let _s = serial();
        let h = acquire().unwrap();
        let handled = Arc::new(AtomicUsize::new(0));
        let n2 = handled.clone();
        let owner: ConnOwner = Arc::new(move |ctx, id, ev| {
            if let ConnEvent::Frame(_) = ev {
                n2.fetch_add(1, Ordering::SeqCst);
                ctx.send(id, &vec![1u8; 256 * 1024]);
            }
        });
        let (mut peer, ours) = std::os::unix::net::UnixStream::pair().unwrap();
        ours.set_nonblocking(true).unwrap();
        let opts = ConnOpts {
            max_frame: 64,
            pause_above: Some(1 << 20),
        };
        h.call("add", move |ctx| {
            ctx.add_conn_with(UnixStream::from_std(ours), owner, opts)
        })
        .unwrap();
        let mut reqs = Vec::new();
        for _ in 0..100 {
            protocol::encode_frame_into(b"request!", &mut reqs);
        }
        peer.write_all(&reqs).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let early = handled.load(Ordering::SeqCst);
        // The socket buffer takes some answers; at most 1 MiB + one answer is queued.
        assert!(
            early < 40,
            "{} requests handled while nothing was read",
            early
        );
        peer.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut buf = vec![0u8; 1 << 20];
        let mut total = 0usize;
        let want = 100 * (256 * 1024 + 4);
        while total < want {
            match peer.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => total += n,
            }
        }
        assert_eq!(total, want, "all answers arrive once the peer reads");
        assert_eq!(handled.load(Ordering::SeqCst), 100);
        release();
    }

    #[test]
    fn output_to_a_peer_that_does_not_read_is_capped() {
        let _s = serial();
        let h = acquire().unwrap();
        set_max_queued(1 << 20);
        let closed = Arc::new(Mutex::new(None::<String>));
        let c2 = closed.clone();
        let owner: ConnOwner = Arc::new(move |_ctx, _id, ev| {
            if let ConnEvent::Closed(why) = ev {
                *c2.lock().unwrap() = Some(why);
            }
        });
        let (peer, ours) = std::os::unix::net::UnixStream::pair().unwrap();
        ours.set_nonblocking(true).unwrap();
        let id = h
            .call("add", move |ctx| {
                ctx.add_conn(UnixStream::from_std(ours), owner)
            })
            .unwrap();
        let chunk = vec![7u8; 64 * 1024];
        let mut sent = 0usize;
        for _ in 0..200 {
            let c = chunk.clone();
            let open = h.call("send", move |ctx| Ok(ctx.send(id, &c))).unwrap();
            if !open {
                break;
            }
            sent += chunk.len();
        }
        set_max_queued(DEFAULT_MAX_QUEUED);
        assert!(
            sent < 200 * chunk.len(),
            "the connection was closed ({} bytes sent)",
            sent
        );
        // The close reaches the owner once the progress thread dispatches it.
        let t0 = Instant::now();
        while closed.lock().unwrap().is_none() && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let why = closed.lock().unwrap().clone().unwrap_or_default();
        assert!(why.contains("not reading"), "{}", why);
        drop(peer);
        release();
    }

    #[test]
    fn panicking_command_does_not_kill_the_thread() {
        let _s = serial();
        let h = acquire().unwrap();
        let n = Arc::new(AtomicUsize::new(0));
        h.post(|_| panic!("boom")).unwrap();
        let n2 = n.clone();
        h.call("after", move |_| {
            n2.fetch_add(1, Ordering::SeqCst);
            Ok(())
        })
        .unwrap();
        assert_eq!(n.load(Ordering::SeqCst), 1);
        release();
    }

    /// A direct connection and a log of what its owner received.
    fn direct_pair(
        h: &Handle,
    ) -> (
        std::os::unix::net::UnixStream,
        ConnId,
        Arc<DirectRead>,
        Arc<Mutex<Vec<String>>>,
    ) {
        let got = Arc::new(Mutex::new(Vec::<String>::new()));
        let g = got.clone();
        let owner: ConnOwner = Arc::new(move |_ctx, _id, ev| match ev {
            ConnEvent::Frame(b) => g
                .lock()
                .unwrap()
                .push(String::from_utf8_lossy(&b).into_owned()),
            ConnEvent::Closed(_) => g.lock().unwrap().push("closed".into()),
        });
        let (peer, id, d) = direct_conn(h, owner);
        (peer, id, d, got)
    }

    /// A direct connection owned by `owner`, and the peer's end of it.
    fn direct_conn(
        h: &Handle,
        owner: ConnOwner,
    ) -> (std::os::unix::net::UnixStream, ConnId, Arc<DirectRead>) {
        let (peer, ours) = std::os::unix::net::UnixStream::pair().unwrap();
        ours.set_nonblocking(true).unwrap();
        let reader = ours.try_clone().unwrap();
        let (id, d) = h
            .add_conn_direct(
                UnixStream::from_std(ours),
                reader,
                owner,
                FrameDecoder::new(),
            )
            .unwrap();
        (peer, id, d)
    }

    fn take_soon(d: &Arc<DirectRead>) -> DirectReader {
        let t0 = Instant::now();
        loop {
            if let Some(r) = d.take() {
                return r;
            }
            assert!(t0.elapsed() < Duration::from_secs(5), "never free to take");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn send(peer: &mut std::os::unix::net::UnixStream, body: &str) {
        let mut f = Vec::new();
        protocol::encode_frame_into(body.as_bytes(), &mut f);
        peer.write_all(&f).unwrap();
    }

    fn wait_for(got: &Arc<Mutex<Vec<String>>>, n: usize) -> Vec<String> {
        let t0 = Instant::now();
        while got.lock().unwrap().len() < n && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(2));
        }
        got.lock().unwrap().clone()
    }

    fn soon() -> Option<Instant> {
        Some(Instant::now() + Duration::from_secs(5))
    }

    /// The caller reads its frame itself; the progress thread does not see it, nor
    /// anything while the caller reads; what the caller gives back, and what it read after
    /// that, reaches the owner in order; later data too (the socket is watched again).
    #[test]
    fn direct_reader_takes_its_frame_and_gives_the_rest_back_in_order() {
        let _s = serial();
        let h = acquire().unwrap();
        let (mut peer, _id, d, got) = direct_pair(&h);
        let mut r = take_soon(&d);
        assert!(d.take().is_none(), "a second caller cannot take it");
        send(&mut peer, "mine");
        match r.next_frame(soon()) {
            DirectFrame::Frame(b) => assert_eq!(b, b"mine"),
            other => panic!("{:?}", other),
        }
        send(&mut peer, "event");
        send(&mut peer, "reply");
        // A partial frame, completed after the reading is given back.
        let mut tail = Vec::new();
        protocol::encode_frame_into(b"later", &mut tail);
        peer.write_all(&tail[..5]).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            got.lock().unwrap().is_empty(),
            "the progress thread read while taken"
        );
        match r.next_frame(soon()) {
            DirectFrame::Frame(b) => {
                assert_eq!(b, b"event");
                r.put_back(&b);
            }
            other => panic!("{:?}", other),
        }
        drop(r);
        peer.write_all(&tail[5..]).unwrap();
        assert_eq!(wait_for(&got, 3), vec!["event", "reply", "later"]);
        send(&mut peer, "after");
        assert_eq!(wait_for(&got, 4).last().map(String::as_str), Some("after"));
        drop(peer);
        assert_eq!(wait_for(&got, 5).last().map(String::as_str), Some("closed"));
        assert!(d.take().is_none(), "a closed connection cannot be taken");
        release();
    }

    /// Data that arrives after the caller's last read, while it still holds the reading,
    /// is seen by the progress thread once the reading is given back (the socket is
    /// registered again, which reports it): no lost wakeup.
    #[test]
    fn data_arriving_just_before_the_reading_is_given_back_is_not_lost() {
        let _s = serial();
        let h = acquire().unwrap();
        let (mut peer, _id, d, got) = direct_pair(&h);
        for i in 0..50 {
            let r = take_soon(&d);
            send(&mut peer, &format!("f{}", i));
            if i % 2 == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            drop(r);
            let log = wait_for(&got, i + 1);
            assert_eq!(log.last(), Some(&format!("f{}", i)), "{:?}", log);
        }
        release();
    }

    /// Nobody takes the reading while the progress thread still handles a frame of the
    /// connection (it could be one that must take effect before a later reply); the
    /// caller's wait ends at its deadline; the peer's end is handed to the owner.
    #[test]
    fn direct_reading_waits_for_frames_in_hand_times_out_and_sees_the_end() {
        let _s = serial();
        let h = acquire().unwrap();
        let (in_handler_tx, in_handler_rx) = channel::bounded::<()>(1);
        let (go_tx, go_rx) = channel::bounded::<()>(1);
        let owner: ConnOwner = Arc::new(move |_ctx, _id, ev| {
            if let ConnEvent::Frame(b) = ev {
                if b == b"slow" {
                    let _ = in_handler_tx.send(());
                    let _ = go_rx.recv_timeout(Duration::from_secs(5));
                }
            }
        });
        let (mut peer, _id, d) = direct_conn(&h, owner);
        drop(take_soon(&d));
        send(&mut peer, "slow");
        in_handler_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(d.take().is_none(), "taken while a frame was in hand");
        go_tx.send(()).unwrap();
        let mut r = take_soon(&d);
        let t0 = Instant::now();
        let end = Instant::now() + Duration::from_millis(60);
        assert!(matches!(r.next_frame(Some(end)), DirectFrame::TimedOut));
        assert!(t0.elapsed() >= Duration::from_millis(60));
        drop(peer);
        assert!(matches!(r.next_frame(soon()), DirectFrame::Ended));
        drop(r);
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(5) && !d.lock().closed {
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(d.lock().closed, "the end of the stream was not handled");
        release();
    }

    #[test]
    fn abandoned_wait_is_not_available() {
        let _s = serial();
        let h = acquire().unwrap();
        let r: Result<()> = wait("x", None, |done| h.post(move |_| drop(done)));
        assert_eq!(r.unwrap_err().status, sys::PMIX_ERR_NOT_AVAILABLE);
        release();
    }
}
