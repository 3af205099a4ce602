//! Frames: the length prefix, the incremental decoder, one message per body, and
//! the tag of an encoded reply.

use super::MAX_FRAME;
use crate::error::{Error, Result};
use crate::wire::Wire;

/// Append `body` as one frame (length prefix + body) to `out`.
pub fn encode_frame_into(body: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
}

/// The largest buffer capacity a [`FrameDecoder`] keeps once it is empty.
const RETAIN: usize = 128 * 1024;

/// Reassembles frames from a byte stream.
#[derive(Debug)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    pos: usize,
    limit: usize,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::with_limit(MAX_FRAME)
    }
}

impl FrameDecoder {
    /// An empty decoder accepting frames of up to [`MAX_FRAME`] bytes.
    pub fn new() -> Self {
        Self::default()
    }
    /// An empty decoder accepting frames of up to `limit` bytes (at most [`MAX_FRAME`]).
    pub fn with_limit(limit: usize) -> Self {
        FrameDecoder {
            buf: Vec::new(),
            pos: 0,
            limit: limit.min(MAX_FRAME),
        }
    }
    /// Change the largest frame accepted from now on (at most [`MAX_FRAME`]); a server
    /// accepts only handshake-sized frames until the peer has identified itself.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit.min(MAX_FRAME);
    }
    /// Feed bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.pos > 0 && self.pos == self.buf.len() {
            self.empty();
        }
        self.buf.extend_from_slice(bytes);
    }
    /// Forget the consumed bytes. The buffer keeps its capacity up to [`RETAIN`]: the
    /// room a large frame needed (a collecting fence's reply in a big job) is given
    /// back, not held by every client for the rest of its life.
    fn empty(&mut self) {
        if self.buf.capacity() > RETAIN {
            self.buf = Vec::new();
        } else {
            self.buf.clear();
        }
        self.pos = 0;
    }
    /// True when some bytes of an unfinished frame are buffered.
    pub fn has_partial(&self) -> bool {
        self.pos < self.buf.len()
    }
    /// Take the bytes not consumed as frames yet (complete frames and the start of an
    /// unfinished one), leaving the decoder empty; the buffer's capacity is kept.
    pub fn take_rest(&mut self) -> Vec<u8> {
        let rest = self.buf.get(self.pos..).unwrap_or_default().to_vec();
        self.buf.clear();
        self.pos = 0;
        rest
    }
    /// The next complete frame body, if one has arrived.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a length above the decoder's limit ([`MAX_FRAME`] unless
    /// set lower; the stream is unusable). Nothing is allocated for the claimed length.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>> {
        let avail = self.buf.get(self.pos..).unwrap_or_default();
        let Some(hdr) = avail.get(..4) else {
            return Ok(None);
        };
        let mut l = [0u8; 4];
        l.copy_from_slice(hdr);
        let len = u32::from_le_bytes(l) as usize;
        if len > self.limit {
            return Err(Error::bad_param(format!(
                "frame of {} bytes exceeds the maximum of {}",
                len, self.limit
            )));
        }
        let Some(body) = avail.get(4..4 + len) else {
            return Ok(None);
        };
        let frame = body.to_vec();
        self.pos += 4 + len;
        if self.pos == self.buf.len() {
            self.empty();
        } else if self.pos > 1 << 20 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        Ok(Some(frame))
    }
}

/// Decode exactly one message from a frame body (trailing bytes are an error).
pub fn decode<T: Wire>(body: &[u8]) -> Result<T> {
    crate::wire::from_bytes(body)
}

/// Encode one message as a frame body.
pub fn encode<T: Wire>(msg: &T) -> Vec<u8> {
    crate::wire::to_bytes(msg)
}

/// The tag of an encoded [`ServerMsg::Reply`] body, without decoding it (`None`: not a
/// reply). See [`set_reply_tag`] for the layout.
///
/// [`ServerMsg::Reply`]: super::ServerMsg::Reply
pub fn reply_tag(body: &[u8]) -> Option<u32> {
    match body.get(..5) {
        Some([1, t @ ..]) => Some(u32::from_le_bytes([t[0], t[1], t[2], t[3]])),
        _ => None,
    }
}

/// The status of an encoded [`ServerMsg::Reply`] body, without decoding the data behind
/// it (a little-endian `i32` after the tag; `None`: not a reply).
///
/// [`ServerMsg::Reply`]: super::ServerMsg::Reply
pub fn reply_status(body: &[u8]) -> Option<i32> {
    match body.get(..9) {
        Some([1, _, _, _, _, s @ ..]) => Some(i32::from_le_bytes([s[0], s[1], s[2], s[3]])),
        _ => None,
    }
}

/// Set the tag of an encoded [`ServerMsg::Reply`] body (byte 0 is the message kind, the
/// tag follows as a little-endian `u32`). False if `body` is not a reply.
///
/// [`ServerMsg::Reply`]: super::ServerMsg::Reply
pub fn set_reply_tag(body: &mut [u8], tag: u32) -> bool {
    match body.get_mut(..5) {
        Some([1, t @ ..]) => {
            t.copy_from_slice(&tag.to_le_bytes());
            true
        }
        _ => false,
    }
}
