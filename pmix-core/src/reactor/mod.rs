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

mod conn;
mod direct;
mod framing;
mod later;
#[cfg(test)]
mod tests;
mod wait;

use conn::Listener;
pub use conn::{ConnOpts, Ctx};
pub use direct::{DirectConn, DirectFrame, DirectReader};
pub use framing::Framing;
use later::Later;
pub use wait::{prepare, wait, would_block, Completion, Waiter, WAIT_YIELDS};

use crate::error::{Error, Result};
use crate::protocol;
use crossbeam::channel::{self, Receiver, Sender};
use mio::net::{UnixListener, UnixStream};
use mio::{Events, Interest, Poll, Token, Waker};
use pmix_sys as sys;
use std::cell::Cell;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

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

/// Called on the progress thread for each connection a TCP listener accepted, with the
/// peer's address ([`Handle::add_tcp_listener`]).
pub type TcpAcceptFn =
    Arc<dyn Fn(&mut Ctx, mio::net::TcpStream, std::net::SocketAddr) + Send + Sync + 'static>;

/// Identifies a timer (for [`Ctx::cancel_timer`]).
pub type TimerId = u64;

const WAKER: Token = Token(0);
/// The debug-dump wake-up socket ([`crate::dump`]).
const DUMP: Token = Token(usize::MAX);
pub(super) const READ_CHUNK: usize = 64 * 1024;

thread_local! {
    static ON_PROGRESS: Cell<bool> = const { Cell::new(false) };
}

/// True when the calling thread is the progress thread.
#[inline]
pub fn on_progress_thread() -> bool {
    ON_PROGRESS.with(|f| f.get())
}

pub(super) fn run_guarded(what: &str, f: impl FnOnce()) {
    if let Err(p) = catch_unwind(AssertUnwindSafe(f)) {
        log::error!("{} panicked: {}", what, panic_text(&p));
    }
}

pub(super) fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

pub(super) fn io_err(what: &str, e: io::Error) -> Error {
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
    /// A fresh connection id, for a socket this thread registers itself.
    fn next_id(&self) -> ConnId {
        self.next_token.fetch_add(1, Ordering::Relaxed) + 1
    }

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
    /// arrived in between; `dec` is also the connection's [`Framing`] from then on). Frames and the close then reach `owner` as with
    /// [`Ctx::add_conn`].
    ///
    /// # Errors
    /// The registration error from mio, `PMIX_ERR_NOT_AVAILABLE` if the progress thread
    /// has stopped.
    pub fn add_conn(
        &self,
        mut stream: UnixStream,
        owner: ConnOwner,
        dec: impl Framing,
    ) -> Result<ConnId> {
        let id = self.next_id();
        self.registry
            .register(&mut stream, Token(id), Interest::READABLE)
            .map_err(|e| io_err("register connection", e))?;
        self.post(move |ctx| ctx.insert_conn(id, stream, owner, Box::new(dec), None, None))?;
        Ok(id)
    }

    /// [`Handle::add_conn`] for a listening socket (see [`Ctx::add_listener`]).
    ///
    /// # Errors
    /// As [`Handle::add_conn`].
    pub fn add_listener(&self, mut sock: UnixListener, on_accept: AcceptFn) -> Result<usize> {
        let id = self.next_id();
        self.registry
            .register(&mut sock, Token(id), Interest::READABLE)
            .map_err(|e| io_err("register listener", e))?;
        self.post(move |ctx| ctx.insert_listener(id, Listener::Unix(sock, on_accept)))?;
        Ok(id)
    }

    /// [`Handle::add_listener`] for a listening TCP socket (the OpenPMIx listener): the
    /// same progress thread accepts on it, `on_accept` gets each connection and its
    /// peer's address. Stop it with [`Ctx::remove_listener`].
    ///
    /// # Errors
    /// As [`Handle::add_conn`].
    pub fn add_tcp_listener(
        &self,
        mut sock: mio::net::TcpListener,
        on_accept: TcpAcceptFn,
    ) -> Result<usize> {
        let id = self.next_id();
        self.registry
            .register(&mut sock, Token(id), Interest::READABLE)
            .map_err(|e| io_err("register listener", e))?;
        self.post(move |ctx| ctx.insert_listener(id, Listener::Tcp(sock, on_accept)))?;
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

/// A connected stream socket as the stream type connections are served as. Any stream
/// socket will do (a TCP one to or from an OpenPMIx peer, too): the reactor only reads,
/// writes, polls and shuts it down, and a `sendmsg` with descriptors, which the kernel
/// refuses on TCP, falls back to the bytes alone; address queries, which would misreport,
/// are never made. The caller has made it non-blocking.
pub fn stream_of(fd: std::os::fd::OwnedFd) -> UnixStream {
    UnixStream::from_std(std::os::unix::net::UnixStream::from(fd))
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

/// [`PROGRESS_YIELDS`], or what `PMIX_RS_PROGRESS_YIELDS` says (read once per process;
/// at most 64).
fn progress_yields() -> u32 {
    static N: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        let Some(v) = crate::params::get(crate::params::PROGRESS_YIELDS) else {
            return PROGRESS_YIELDS;
        };
        match v.trim().parse::<u32>() {
            Ok(n) => n.min(64),
            Err(_) => {
                log::warn!(
                    "{}={:?} is no count; yielding {} times",
                    crate::params::PROGRESS_YIELDS,
                    v,
                    PROGRESS_YIELDS
                );
                PROGRESS_YIELDS
            }
        }
    })
}

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
    let mut ctx = Ctx::new(registry, next_token);
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
    let yields = progress_yields();
    // Under a real-time policy a yield hands the CPU only to the job's own threads, so
    // it pays after any work (see `Framing::worth_yielding`).
    let realtime = crate::sys::realtime_policy();
    while !ctx.stopping {
        let timeout = if spare > 0 {
            spare -= 1;
            std::thread::yield_now();
            Some(Duration::ZERO)
        } else {
            ctx.next_timeout()
        };
        let r = poll.poll(&mut events, timeout);
        if r.is_ok()
            && !events.is_empty()
            && (realtime || events.iter().any(|ev| ctx.yields_after(ev.token().0)))
        {
            spare = yields;
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
