//! The debug dump: what a process is doing inside the library, written on a signal.
//!
//! Opt-in: with `PMIX_RS_DUMP_SIGNAL` set (e.g. `USR2`), the first start of the progress
//! thread installs a handler for that signal. The handler only writes a byte to a socket
//! the progress thread polls ([`crate::sys::install_dump_signal`]); the progress thread
//! then renders the dump ([`render`]) and writes it to `$PMIX_RS_DUMP_DIR/pmix-dump.<pid>`
//! (written whole, then renamed into place) or, without the directory, to stderr.
//!
//! The dump holds:
//! * the process identity (pid, program, the clients and servers it runs);
//! * per thread, the last [`RING`] blocking calls that entered the library (every one
//!   goes through [`crate::reactor::prepare`]): name, start, and how long it ran or
//!   that it is still running. Calls answered locally (a `PMIx_Get` from the cache, a
//!   `PMIx_Put`) never block and are not recorded, so they cost nothing here;
//! * whatever each live client and server adds through [`register`]: a client's pending
//!   requests, a server's pending fences (who arrived, who is missing), parked Gets and
//!   direct-modex requests, and what waits on the host.
//!
//! A progress thread that is stuck cannot write it: whoever sent the signal sees no dump
//! appear (the test harness then says "progress thread not responding").

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError, Weak};
use std::time::{Duration, Instant};

/// Calls kept per thread.
pub const RING: usize = 8;
/// Threads whose calls are kept (the least recently active one makes room).
pub const THREADS: usize = 32;
/// Longest call name kept (longer names are cut).
const NAME_MAX: usize = 40;

/// One recorded call.
#[derive(Debug, Clone, Copy)]
struct Call {
    seq: u64,
    name: [u8; NAME_MAX],
    len: u8,
    start: Instant,
    end: Option<Instant>,
}

impl Call {
    fn name(&self) -> &str {
        std::str::from_utf8(&self.name[..self.len as usize]).unwrap_or("?")
    }
}

/// The recent calls of one thread.
#[derive(Debug)]
pub struct ThreadCalls {
    tid: u64,
    thread: String,
    calls: [Option<Call>; RING],
    next: usize,
    last: Instant,
}

impl ThreadCalls {
    fn new(tid: u64, thread: String) -> Self {
        ThreadCalls {
            tid,
            thread,
            calls: [None; RING],
            next: 0,
            last: Instant::now(),
        }
    }

    fn push(&mut self, c: Call) {
        self.calls[self.next] = Some(c);
        self.next = (self.next + 1) % RING;
        self.last = c.start;
    }

    fn finish(&mut self, seq: u64, at: Instant) {
        if let Some(c) = self.calls.iter_mut().flatten().find(|c| c.seq == seq) {
            c.end = Some(at);
        }
    }

    /// The kept calls, oldest first.
    fn ordered(&self) -> impl Iterator<Item = &Call> {
        (0..RING).filter_map(move |i| self.calls[(self.next + i) % RING].as_ref())
    }
}

/// Every thread's recent calls.
#[derive(Debug, Default)]
pub struct Calls {
    threads: Vec<ThreadCalls>,
}

impl Calls {
    /// Record that thread `tid` (named `thread`) entered `name`; `seq` identifies it.
    pub fn enter(&mut self, tid: u64, thread: &str, seq: u64, name: &str, at: Instant) {
        let mut c = Call {
            seq,
            name: [0; NAME_MAX],
            len: 0,
            start: at,
            end: None,
        };
        let mut n = name.len().min(NAME_MAX);
        while !name.is_char_boundary(n) {
            n -= 1;
        }
        c.name[..n].copy_from_slice(&name.as_bytes()[..n]);
        c.len = n as u8;
        let i = match self.threads.iter().position(|t| t.tid == tid) {
            Some(i) => i,
            None if self.threads.len() < THREADS => {
                self.threads.push(ThreadCalls::new(tid, thread.to_string()));
                self.threads.len() - 1
            }
            None => {
                let (i, _) = self
                    .threads
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, t)| t.last)
                    .unwrap_or((0, &self.threads[0]));
                self.threads[i] = ThreadCalls::new(tid, thread.to_string());
                i
            }
        };
        self.threads[i].push(c);
    }

    /// Record that call `seq` of thread `tid` returned.
    pub fn exit(&mut self, tid: u64, seq: u64, at: Instant) {
        if let Some(t) = self.threads.iter_mut().find(|t| t.tid == tid) {
            t.finish(seq, at);
        }
    }

    /// The names of the calls still running, with their threads' ids.
    pub fn running(&self) -> Vec<(u64, String)> {
        let mut v = Vec::new();
        for t in &self.threads {
            for c in t.ordered().filter(|c| c.end.is_none()) {
                v.push((t.tid, c.name().to_string()));
            }
        }
        v
    }

    /// One section of the dump: per thread, its calls, oldest first, ages relative to `now`.
    pub fn render(&self, now: Instant, out: &mut String) {
        let _ = writeln!(out, "calls (last {} blocking calls per thread):", RING);
        if self.threads.is_empty() {
            let _ = writeln!(out, "  (none)");
        }
        for t in &self.threads {
            let _ = writeln!(out, "  thread {} ({}):", t.tid, t.thread);
            for c in t.ordered() {
                let ago = secs(now.saturating_duration_since(c.start));
                match c.end {
                    None => {
                        let _ = writeln!(
                            out,
                            "    {} started {} s ago, RUNNING (blocked)",
                            c.name(),
                            ago
                        );
                    }
                    Some(e) => {
                        let took = secs(e.saturating_duration_since(c.start));
                        let _ = writeln!(
                            out,
                            "    {} started {} s ago, returned after {} s",
                            c.name(),
                            ago,
                            took
                        );
                    }
                }
            }
        }
    }
}

/// A duration as seconds with three decimals.
pub fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

static CALLS: Mutex<Calls> = Mutex::new(Calls {
    threads: Vec::new(),
});
static SEQ: AtomicU64 = AtomicU64::new(1);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

thread_local! {
    /// The kernel's id of this thread (what gdb shows as LWP), read once.
    static TID: u64 = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name().and_then(|n| n.to_str()).and_then(|n| n.parse().ok()))
        .unwrap_or(0);
}

/// A blocking call in progress (see [`enter`]); dropping it records the return.
#[derive(Debug)]
pub struct CallMark {
    tid: u64,
    seq: u64,
}

impl Drop for CallMark {
    fn drop(&mut self) {
        lock(&CALLS).exit(self.tid, self.seq, Instant::now());
    }
}

/// Record that the calling thread entered the blocking call `name`: one short lock and a
/// copy of the name (blocking calls only: they cost microseconds or more anyway).
pub fn enter(name: &str) -> CallMark {
    let tid = TID.with(|t| *t);
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let cur = std::thread::current();
    let thread = match cur.name() {
        Some(n) => n,
        None if u64::from(std::process::id()) == tid => "main",
        None => "-",
    };
    lock(&CALLS).enter(tid, thread, seq, name, Instant::now());
    CallMark { tid, seq }
}

/// Something that adds a section to the dump: it writes into the string and returns
/// false once the object it describes is gone (it is then dropped from the list).
pub type Source = Box<dyn Fn(&mut String) -> bool + Send + Sync + 'static>;

static SOURCES: Mutex<Vec<Source>> = Mutex::new(Vec::new());

/// Add a section to every later dump (see [`Source`]).
pub fn register(f: Source) {
    lock(&SOURCES).push(f);
}

/// A [`Source`] that describes `obj` through `f` while `obj` lives.
pub fn source_of<T: Send + Sync + 'static>(
    obj: &Arc<T>,
    f: impl Fn(&T, &mut String) + Send + Sync + 'static,
) -> Source {
    let w: Weak<T> = Arc::downgrade(obj);
    Box::new(move |out| match w.upgrade() {
        Some(o) => {
            f(&o, out);
            true
        }
        None => false,
    })
}

/// Lock `m` for the dump without waiting long: a lock held by a stuck thread must not
/// stop the dump. `None` after about 200 ms.
pub fn try_lock_for_dump<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    for _ in 0..200 {
        match m.try_lock() {
            Ok(g) => return Some(g),
            Err(TryLockError::Poisoned(p)) => return Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    None
}

/// The whole dump, as text.
pub fn render() -> String {
    let now = Instant::now();
    let mut out = String::new();
    let exe = std::fs::read_link("/proc/self/exe")
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "?".into());
    let _ = writeln!(
        out,
        "pmix-rs debug dump of pid {} ({})",
        std::process::id(),
        exe
    );
    match START.get() {
        Some(t) => {
            let _ = writeln!(out, "library active for {} s", secs(now - *t));
        }
        None => {
            let _ = writeln!(out, "library active: unknown");
        }
    }
    match try_lock_for_dump(&CALLS) {
        Some(c) => c.render(now, &mut out),
        None => out.push_str("calls: (the call table is locked by another thread)\n"),
    }
    let mut sources = lock(&SOURCES);
    sources.retain(|s| s(&mut out));
    if sources.is_empty() {
        out.push_str("no client or server is active\n");
    }
    out.push_str("end of dump\n");
    out
}

static START: OnceLock<Instant> = OnceLock::new();

/// The signal named by `PMIX_RS_DUMP_SIGNAL`'s value: `USR1`, `USR2`, `URG`, `WINCH`
/// (with or without `SIG`), `RTMIN+N`, or a number. `None` for anything else.
pub fn parse_signal(s: &str) -> Option<i32> {
    let s = s.trim();
    let s = s.strip_prefix("SIG").unwrap_or(s);
    let n = match s.to_ascii_uppercase().as_str() {
        "USR1" => libc::SIGUSR1,
        "USR2" => libc::SIGUSR2,
        "URG" => libc::SIGURG,
        "WINCH" => libc::SIGWINCH,
        "RTMIN" => crate::sys::sigrtmin(),
        other => {
            if let Some(k) = other.strip_prefix("RTMIN+") {
                crate::sys::sigrtmin() + k.parse::<i32>().ok().filter(|k| (0..=8).contains(k))?
            } else {
                other.parse::<i32>().ok()?
            }
        }
    };
    let forbidden = [libc::SIGKILL, libc::SIGSTOP, libc::SIGSEGV, libc::SIGBUS];
    (n > 0 && n < 65 && !forbidden.contains(&n)).then_some(n)
}

/// The write end of the wake-up socket (the signal handler's), kept for the process's life.
static WAKE_WRITE: OnceLock<std::os::unix::net::UnixStream> = OnceLock::new();

/// The read end of the wake-up socket (polled by the progress thread), once installed.
static WAKE: OnceLock<Option<Mutex<mio::net::UnixStream>>> = OnceLock::new();

/// Install the dump signal if `PMIX_RS_DUMP_SIGNAL` asks for one (once per process;
/// called when the progress thread first starts). A value that names no usable signal
/// is logged and ignored.
pub fn install_from_env() {
    START.get_or_init(Instant::now);
    WAKE.get_or_init(|| {
        let v = crate::params::get(crate::params::DUMP_SIGNAL)?;
        if v.is_empty() {
            return None;
        }
        let Some(sig) = parse_signal(&v) else {
            log::warn!(
                "{}={:?} names no signal we can use (USR1, USR2, URG, WINCH, RTMIN+N or a \
                 number); no debug dump",
                crate::params::DUMP_SIGNAL,
                v
            );
            return None;
        };
        match install(sig) {
            Ok(r) => {
                log::debug!("debug dump on signal {}", sig);
                Some(Mutex::new(r))
            }
            Err(e) => {
                log::warn!("debug dump on signal {}: {}; no debug dump", sig, e);
                None
            }
        }
    });
}

fn install(sig: i32) -> std::io::Result<mio::net::UnixStream> {
    let (r, w) = std::os::unix::net::UnixStream::pair()?;
    r.set_nonblocking(true)?;
    w.set_nonblocking(true)?;
    // The write end lives as long as the process (the handler may run at any time).
    let w = WAKE_WRITE.get_or_init(|| w);
    crate::sys::install_dump_signal(sig, w)?;
    Ok(mio::net::UnixStream::from_std(r))
}

/// The wake-up socket, for the progress thread to register with its poller.
pub fn wake_socket() -> Option<&'static Mutex<mio::net::UnixStream>> {
    WAKE.get().and_then(|w| w.as_ref())
}

/// On the progress thread, after the wake-up socket became readable: drain it and write
/// the dump.
pub fn on_wake() {
    if let Some(w) = wake_socket() {
        let mut buf = [0u8; 64];
        let mut s = lock(w);
        while matches!(std::io::Read::read(&mut *s, &mut buf), Ok(n) if n > 0) {}
    }
    write_dump(&render());
}

/// Write a rendered dump where `PMIX_RS_DUMP_DIR` says (whole, then renamed into place:
/// a reader never sees half of it), or to stderr.
pub fn write_dump(text: &str) {
    let pid = std::process::id();
    match crate::params::get(crate::params::DUMP_DIR).filter(|d| !d.is_empty()) {
        Some(dir) => {
            let tmp = std::path::Path::new(&dir).join(format!(".pmix-dump.{}.tmp", pid));
            let dst = std::path::Path::new(&dir).join(format!("pmix-dump.{}", pid));
            let r = std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, &dst));
            if let Err(e) = r {
                log::error!("debug dump to {}: {}", dst.display(), e);
                eprint!("{}", text);
            }
        }
        None => eprint!("{}", text),
    }
}

#[cfg(test)]
mod tests;
