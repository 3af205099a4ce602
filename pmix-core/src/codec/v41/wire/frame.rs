//! OpenPMIx's message framing (`pmix_ptl_hdr_t`), sans-I/O.
//!
//! After the handshake every message is a 16-byte header and a body. The header holds
//! the sender's `pindex` (`int32`), the `tag` (`uint32`) and the body length `nbytes`
//! (`uint32` on the wire; `size_t` in the C struct, hence 4 more bytes of padding), all
//! in network byte order. The body is a v41 buffer with no prefix of its own.

use crate::error::{Error, Result};
use pmix_sys as sys;

/// Bytes in a message header.
pub const HEADER_LEN: usize = 16;

/// Tag of an unsolicited event notification from the server.
pub const TAG_NOTIFY: u32 = 0;
/// Tag of a heartbeat.
pub const TAG_HEARTBEAT: u32 = 1;
/// Tag of unsolicited forwarded output.
pub const TAG_IOF: u32 = 2;
/// The first tag a client gives a request (tags below it are reserved).
pub const TAG_DYNAMIC: u32 = 100;

/// Largest body this side accepts by default (the engine's own frame limit).
pub const MAX_BODY: usize = crate::protocol::MAX_FRAME;

/// A decoded message header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The sender's index: a client sends the one the server assigned it, the server
    /// its own (0).
    pub pindex: i32,
    /// Matches a reply to its request; 0 for events.
    pub tag: u32,
    /// Body length.
    pub nbytes: u32,
}

impl Header {
    /// The header's 16 bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..4].copy_from_slice(&self.pindex.to_be_bytes());
        h[4..8].copy_from_slice(&self.tag.to_be_bytes());
        h[8..12].copy_from_slice(&self.nbytes.to_be_bytes());
        h
    }
    /// A header from its 16 bytes (the padding is not checked: OpenPMIx never reads it).
    pub fn from_bytes(h: &[u8; HEADER_LEN]) -> Header {
        let word = |i: usize| [h[i], h[i + 1], h[i + 2], h[i + 3]];
        Header {
            pindex: i32::from_be_bytes(word(0)),
            tag: u32::from_be_bytes(word(4)),
            nbytes: u32::from_be_bytes(word(8)),
        }
    }
}

/// Append one message (header then body) to `out`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a body longer than `u32::MAX` bytes.
pub fn encode_frame(pindex: i32, tag: u32, body: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let nbytes = u32::try_from(body.len())
        .map_err(|_| Error::bad_param(format!("v41 message of {} bytes", body.len())))?;
    out.extend_from_slice(
        &Header {
            pindex,
            tag,
            nbytes,
        }
        .to_bytes(),
    );
    out.extend_from_slice(body);
    Ok(())
}

/// One message as a fresh buffer.
pub fn frame(pindex: i32, tag: u32, body: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    encode_frame(pindex, tag, body, &mut out)?;
    Ok(out)
}

/// Splits a byte stream into messages; bytes arrive in any pieces.
#[derive(Debug)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    start: usize,
    limit: usize,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameDecoder {
    /// A decoder with the default body limit ([`MAX_BODY`]).
    pub fn new() -> Self {
        Self::with_limit(MAX_BODY)
    }
    /// A decoder refusing bodies over `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        FrameDecoder {
            buf: Vec::new(),
            start: 0,
            limit,
        }
    }
    /// Refuse bodies over `limit` bytes from now on.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }
    /// Feed bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }
    /// Bytes held that do not yet form a whole message.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }
    /// The next whole message, if one has arrived.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_FAILURE` for a body over the limit: the stream cannot be
    /// resynchronised, so the caller closes the connection.
    pub fn next_frame(&mut self) -> Result<Option<(Header, Vec<u8>)>> {
        let avail = &self.buf[self.start..];
        if avail.len() < HEADER_LEN {
            return Ok(None);
        }
        let mut h = [0u8; HEADER_LEN];
        h.copy_from_slice(&avail[..HEADER_LEN]);
        let hdr = Header::from_bytes(&h);
        let n = hdr.nbytes as usize;
        if n > self.limit {
            return Err(Error::new(
                sys::PMIX_ERR_UNPACK_FAILURE,
                format!(
                    "v41 message of {} bytes (tag {}) over the limit of {}",
                    n, hdr.tag, self.limit
                ),
            ));
        }
        if avail.len() < HEADER_LEN + n {
            return Ok(None);
        }
        let body = avail[HEADER_LEN..HEADER_LEN + n].to_vec();
        self.start += HEADER_LEN + n;
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        } else if self.start > 64 * 1024 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        Ok(Some((hdr, body)))
    }
}

/// The client's request tags: 100, 101, … wrapping back to 100 (as OpenPMIx counts).
#[derive(Debug, Clone)]
pub struct TagCounter(u32);

impl Default for TagCounter {
    fn default() -> Self {
        TagCounter(TAG_DYNAMIC)
    }
}

impl TagCounter {
    /// The next tag (the first one is 101, as a 4.2.2 client's first request uses).
    pub fn next_tag(&mut self) -> u32 {
        self.0 = if self.0 == u32::MAX {
            TAG_DYNAMIC
        } else {
            self.0 + 1
        };
        self.0
    }
}
