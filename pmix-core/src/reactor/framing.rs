//! How a connection cuts its byte stream into frames and frames what it sends: the seam
//! where a second wire dialect plugs in.
//!
//! Every connection owns one [`Framing`], chosen when it is added
//! ([`Ctx::add_conn_framed`](super::Ctx::add_conn_framed); the other constructors take a
//! [`FrameDecoder`], pmix-rs's own length-prefixed frames). The reactor only moves bytes:
//! it pushes what it reads into the framing, hands each complete frame body to the
//! connection's owner, and has the framing encode each body the owner sends. A dialect
//! with another header (OpenPMIx's usock header, for one) implements this trait, and its
//! owner decodes the bodies with that dialect's codec; nothing else in the reactor
//! changes. The direct-read fast path ([`super::DirectConn`]) reads pmix-rs frames only.

use crate::error::Result;
use crate::protocol::{self, FrameDecoder};

/// A connection's framing (see the module documentation).
pub trait Framing: Send + 'static {
    /// Append bytes read from the stream.
    fn push(&mut self, bytes: &[u8]);
    /// The next complete frame body, if one is complete.
    ///
    /// # Errors
    /// A malformed or oversized frame: the reactor closes the connection.
    fn next_frame(&mut self) -> Result<Option<Vec<u8>>>;
    /// True while the start of a frame has been pushed and its end has not.
    fn has_partial(&self) -> bool;
    /// Change the largest frame accepted from now on.
    fn set_limit(&mut self, max_frame: usize);
    /// Append `body`, framed, to `out`.
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>);
    /// Append the header of a frame whose body of `len` bytes follows in pieces
    /// ([`Ctx::send_shared`](super::Ctx::send_shared)); false, with nothing appended,
    /// for a framing that cannot (the default): such bodies are framed whole.
    fn encode_header_into(&self, _len: usize, _out: &mut Vec<u8>) -> bool {
        false
    }
    /// Whether work on this connection is followed by the progress thread's yields (see
    /// `PROGRESS_YIELDS`): true (the default) for a peer that can answer on the same CPU
    /// in time for them (a pmix-rs process reads its reply on the thread that asked and
    /// sends its next request at once). An OpenPMIx peer wakes its own progress thread
    /// for every message and hands it on to another thread, so the yields never find
    /// its next message: under normal scheduling and load they only hand the CPU to
    /// other work (docs/PERF.md), and its framing says false. Under a real-time policy,
    /// where a yield hands the CPU only to threads of the same priority, the progress
    /// thread yields after any work.
    fn worth_yielding(&self) -> bool {
        true
    }
}

impl Framing for FrameDecoder {
    fn push(&mut self, bytes: &[u8]) {
        FrameDecoder::push(self, bytes);
    }
    fn next_frame(&mut self) -> Result<Option<Vec<u8>>> {
        FrameDecoder::next_frame(self)
    }
    fn has_partial(&self) -> bool {
        FrameDecoder::has_partial(self)
    }
    fn set_limit(&mut self, max_frame: usize) {
        FrameDecoder::set_limit(self, max_frame);
    }
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>) {
        protocol::encode_frame_into(body, out);
    }
    fn encode_header_into(&self, len: usize, out: &mut Vec<u8>) -> bool {
        // The length prefix `encode_frame_into` writes.
        match u32::try_from(len) {
            Ok(n) => {
                out.extend_from_slice(&n.to_le_bytes());
                true
            }
            Err(_) => false,
        }
    }
}
