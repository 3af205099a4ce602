//! A connection that a calling thread may write and read itself: the client's fast path.
//!
//! A caller that sends a request and would then sleep until the progress thread has read
//! its reply and woken it does both ends on its own thread instead, through the
//! connection's [`DirectConn`]: [`DirectConn::send`] writes the frame to the socket at
//! once (so a commit is in the server's socket when `PMIx_Commit` returns), and
//! [`DirectConn::take`] hands it the reading until its reply has come. One thread handoff
//! (a cross-CPU wakeup) less per blocking request (docs/PERF.md).
//!
//! The connection object is the only place that writes or reads the socket: the
//! progress thread through its [`Ctx`] and the caller through this object, with one
//! state saying whose turn it is ([`Reading`] for the input, `out_held` for the output).
//!
//! * **Output.** A caller writes only while the progress thread holds none of the
//!   connection's output; what the socket does not take at once is queued here and handed
//!   to the progress thread, and later frames queue behind it, so the peer sees frames in
//!   the order they were sent. The progress thread writes only while it holds the output.
//! * **Input.** While a caller reads, the poller does not watch the socket's readability
//!   (the progress thread is not woken for what the caller reads) and the progress thread
//!   leaves it alone. The caller takes only its own reply from the stream; the first frame
//!   that is anything else is given back unhandled, with everything read after it, and
//!   the caller goes back to waiting as before, so frames are still handled in order and
//!   every callback still runs on the progress thread. Giving the reading back makes the
//!   poller watch readability again, which reports data that arrived meanwhile (the kernel
//!   checks the socket on every change of interest: nothing is lost to edge-triggered
//!   polling).

use super::{io_err, ConnId, ConnOwner, Ctx, Handle, READ_CHUNK};
use crate::error::{Error, Result};
use crate::protocol::{self, FrameDecoder};
use mio::{Interest, Token};
use pmix_sys as sys;
use std::io::{self, Read, Write};
use std::os::unix::io::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// A connection's reading and writing, shared between the progress thread and the
/// callers that send on it and wait for their replies ([`Handle::add_conn_direct`]).
pub struct DirectConn {
    id: ConnId,
    /// The descriptor the poller knows the connection by (the progress thread's socket).
    fd: RawFd,
    handle: Handle,
    st: Mutex<Shared>,
}

/// Who reads the connection now: the one state of the direct-read fast path.
#[derive(Debug, Default)]
pub(super) enum Reading {
    /// The progress thread reads it or holds part of its input: it is reading, has not
    /// taken the connection over yet, is handling one of its frames or holds the start of
    /// one. No caller may take the reading over.
    #[default]
    Reactor,
    /// The progress thread holds nothing of it: a caller may take the reading over.
    Idle,
    /// A caller reads it (its handle on the socket is in the [`DirectReader`]).
    Caller,
    /// A caller gave back bytes it read and did not handle: the progress thread handles
    /// them before anything it reads itself.
    HandedBack(Vec<u8>),
    /// The connection has left the progress thread's table.
    Closed,
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
struct Shared {
    reading: Reading,
    /// The progress thread holds output for the socket: no caller writes, and the poller
    /// watches writability.
    out_held: bool,
    /// Framed bytes a caller could not write at once, oldest first, for the progress
    /// thread.
    queued: Vec<u8>,
    /// A hand-over of `queued` is posted to the progress thread and has not run yet.
    flush_posted: bool,
    /// What the poller watches now.
    registered: Reg,
    /// The callers' handles on the socket (`None` once closed, the reader also while a
    /// caller holds it).
    reader: Option<UnixStream>,
    writer: Option<UnixStream>,
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

impl Handle {
    /// [`Handle::add_conn`] for a connection that callers may write and read themselves
    /// ([`DirectConn`]). The callers' handles are `try_clone`s of `stream`; without them
    /// every frame goes through the progress thread.
    ///
    /// # Errors
    /// As [`Handle::add_conn`].
    pub fn add_conn_direct(
        &self,
        stream: UnixStream,
        owner: ConnOwner,
        dec: FrameDecoder,
    ) -> Result<(ConnId, Arc<DirectConn>)> {
        stream
            .set_nonblocking(true)
            .map_err(|e| io_err("set connection non-blocking", e))?;
        let reader = stream.try_clone().ok();
        let writer = stream.try_clone().ok();
        let stream = mio::net::UnixStream::from_std(stream);
        let id = self.next_id();
        let d = Arc::new(DirectConn {
            id,
            fd: stream.as_raw_fd(),
            handle: self.clone(),
            st: Mutex::new(Shared {
                // Nobody takes the connection over before the progress thread has
                // delivered what the handshake read past its own exchange.
                reading: Reading::Reactor,
                reader,
                writer,
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
        if let Err(e) = self.post(move |ctx| ctx.insert_direct(id, stream, owner, dec, d2)) {
            d.retire();
            return Err(e);
        }
        Ok((id, d))
    }
}

impl DirectConn {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.st.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The connection's id in the reactor.
    pub fn id(&self) -> ConnId {
        self.id
    }

    /// Send one frame (`body` gets its length prefix here), from any thread: written to
    /// the socket at once when the progress thread holds none of the connection's
    /// output, otherwise (or for what the socket does not take) handed to the progress
    /// thread, behind what it holds.
    ///
    /// # Errors
    /// `PMIX_ERR_LOST_CONNECTION` once the connection is closed; `PMIX_ERR_NOT_AVAILABLE`
    /// if the progress thread has stopped.
    pub fn send(&self, body: &[u8]) -> Result<()> {
        let mut s = self.lock();
        if matches!(s.reading, Reading::Closed) {
            return Err(Error::new(
                sys::PMIX_ERR_LOST_CONNECTION,
                "the connection to the server is closed",
            ));
        }
        protocol::encode_frame_into(body, &mut s.queued);
        if !s.out_held {
            let Shared { writer, queued, .. } = &mut *s;
            if let Some(w) = writer.as_mut() {
                let n = write_some(w, queued);
                queued.drain(..n);
            }
        }
        if s.queued.is_empty() || s.flush_posted {
            return Ok(());
        }
        s.flush_posted = true;
        let id = self.id;
        let posted = self.handle.post(move |ctx| ctx.flush_direct(id));
        if posted.is_err() {
            s.flush_posted = false;
        }
        posted
    }

    /// Progress thread: the bytes callers queued, to be written behind what the progress
    /// thread holds, which it now holds too (`out_held`).
    pub(super) fn claim_output(&self, out: &mut Vec<u8>) {
        let mut s = self.lock();
        s.flush_posted = false;
        out.append(&mut s.queued);
        s.out_held = true;
    }

    /// Progress thread, after a write: it still holds output (`pending`) or not, and the
    /// poller watches writability accordingly. False when callers queued more meanwhile
    /// and nothing is pending: then it takes that over ([`DirectConn::claim_output`]) and
    /// writes on.
    pub(super) fn output_written(&self, pending: bool) -> bool {
        let mut s = self.lock();
        if !pending && !s.queued.is_empty() {
            return false;
        }
        s.out_held = pending;
        self.apply_interest(&mut s);
        true
    }

    /// Progress thread, before it reads: false when a caller reads (or the connection is
    /// closed), otherwise what a caller gave back, to be handled first.
    pub(super) fn begin_read(&self) -> Option<Vec<u8>> {
        let mut s = self.lock();
        match std::mem::take(&mut s.reading) {
            r @ (Reading::Caller | Reading::Closed) => {
                s.reading = r;
                None
            }
            Reading::HandedBack(b) => Some(b),
            Reading::Reactor | Reading::Idle => Some(Vec::new()),
        }
    }

    /// Progress thread: it is done reading and handling for now; `holding` says whether
    /// it still holds part of the input (frames not yet handled, the start of a frame).
    pub(super) fn settle(&self, holding: bool) {
        let mut s = self.lock();
        match s.reading {
            Reading::Reactor if !holding => s.reading = Reading::Idle,
            Reading::Idle if holding => s.reading = Reading::Reactor,
            _ => {}
        }
    }

    /// Make the poller watch what the state asks for: readability unless a caller reads,
    /// writability while output waits, nothing once the connection is closed. While a
    /// caller reads and no output waits, the socket stays registered and watches nothing
    /// ([`crate::sys::epoll_park`]): switching the interest (`EPOLL_CTL_MOD`, about 1 µs
    /// for the pair here) is cheaper than removing the socket and adding it back
    /// (`EPOLL_CTL_DEL` + `ADD`, 2–3.5 µs).
    fn apply_interest(&self, s: &mut Shared) {
        let want = match (&s.reading, s.out_held) {
            (Reading::Closed, _) => Reg::None,
            (Reading::Caller, false) => Reg::Parked,
            (Reading::Caller, true) => Reg::Watch(Interest::WRITABLE),
            (_, true) => Reg::Watch(Interest::READABLE | Interest::WRITABLE),
            (_, false) => Reg::Watch(Interest::READABLE),
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
    /// descriptor is closed next), and the callers' handles are dropped once nobody reads
    /// (so the peer sees the close).
    pub(super) fn retire(&self) {
        let mut s = self.lock();
        s.reading = Reading::Closed;
        s.reader = None;
        s.writer = None;
        s.queued.clear();
        self.apply_interest(&mut s);
    }

    /// Take the connection's reading over, if nobody else reads it and the progress
    /// thread holds nothing of it (no frame being handled, no partial frame, no output
    /// waiting); `None` otherwise, and the caller waits as before. The reading goes back
    /// to the progress thread when the reader is dropped.
    pub fn take(self: &Arc<Self>) -> Option<DirectReader> {
        let mut s = self.lock();
        if !matches!(s.reading, Reading::Idle) || s.out_held {
            return None;
        }
        let stream = s.reader.take()?;
        s.reading = Reading::Caller;
        self.apply_interest(&mut s);
        if matches!(s.registered, Reg::Watch(i) if i.is_readable()) {
            // Readability still watched by the poller: both threads would read.
            s.reading = Reading::Idle;
            s.reader = Some(stream);
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

/// Write what `w` takes of `bytes` now; the count written. A full socket (`WouldBlock`)
/// or a broken one stops it: the progress thread takes over and meets the error, if any,
/// itself.
fn write_some(mut w: &UnixStream, bytes: &[u8]) -> usize {
    let mut off = 0;
    while off < bytes.len() {
        match w.write(bytes.get(off..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => off += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    off
}

impl Ctx {
    /// A posted hand-over of bytes callers queued on a direct connection.
    fn flush_direct(&mut self, id: ConnId) {
        self.claim_direct_output(id);
        self.flush(id);
    }
}

/// A caller's hold on a connection's reading (see [`DirectConn`]); dropping it gives the
/// reading back to the progress thread.
pub struct DirectReader {
    d: Arc<DirectConn>,
    stream: Option<UnixStream>,
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
        // The waiter's yields ([`super::wait::WAIT_YIELDS`]), each followed by one
        // non-blocking read; measured here: same CPU time per fence, 0.42 → 0.23 of
        // OpenPMIx's fence time at 8 ranks on 2 cores (docs/PERF.md).
        let mut yields = super::wait::WAIT_YIELDS;
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
            s.dec = std::mem::take(&mut self.dec);
            s.buf = std::mem::take(&mut self.buf);
            let post = if matches!(s.reading, Reading::Closed) {
                false
            } else {
                s.reader = self.stream.take();
                let post = !rest.is_empty();
                s.reading = if post {
                    Reading::HandedBack(rest)
                } else {
                    Reading::Idle
                };
                post
            };
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

#[cfg(test)]
#[path = "direct_tests.rs"]
mod tests;
