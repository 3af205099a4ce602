//! Output a connection queues behind its byte buffer once a shared tail is queued
//! ([`Ctx::send_shared`](super::Ctx::send_shared)): the tail is held by reference
//! (`Arc<[u8]>`), so a reply every participant of a collective receives (a collecting
//! fence's data) is held once however many connections still have it to write, and
//! what is sent after it waits here in order.

use std::collections::VecDeque;
use std::sync::Arc;

enum Chunk {
    Own(Vec<u8>),
    Shared(Arc<[u8]>),
}

impl Chunk {
    fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Own(v) => v,
            Chunk::Shared(a) => a,
        }
    }
}

/// Chunks waiting behind a connection's byte buffer, in order (see the module docs).
#[derive(Default)]
pub(super) struct Later {
    chunks: VecDeque<Chunk>,
    /// Bytes of the first chunk already written.
    pos: usize,
    /// Bytes of every chunk, written or not.
    bytes: usize,
}

impl Later {
    /// Nothing waits here.
    pub(super) fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Bytes still to write.
    pub(super) fn len(&self) -> usize {
        self.bytes - self.pos
    }

    /// Queue a shared tail (an empty one is not queued: no chunk is ever empty).
    pub(super) fn push_shared(&mut self, tail: Arc<[u8]>) {
        if tail.is_empty() {
            return;
        }
        self.bytes += tail.len();
        self.chunks.push_back(Chunk::Shared(tail));
    }

    /// Queue the bytes `fill` appends (to the last owned chunk, or a new one).
    pub(super) fn push_own(&mut self, fill: impl FnOnce(&mut Vec<u8>)) {
        if !matches!(self.chunks.back(), Some(Chunk::Own(_))) {
            self.chunks.push_back(Chunk::Own(Vec::new()));
        }
        if let Some(Chunk::Own(v)) = self.chunks.back_mut() {
            let before = v.len();
            fill(v);
            self.bytes += v.len() - before;
            if v.is_empty() {
                self.chunks.pop_back();
            }
        }
    }

    /// The unwritten bytes of the first chunk.
    pub(super) fn front(&self) -> Option<&[u8]> {
        self.chunks
            .front()
            .map(|c| c.bytes().get(self.pos..).unwrap_or_default())
    }

    /// `n` bytes of [`Later::front`] were written.
    pub(super) fn consumed(&mut self, n: usize) {
        self.pos += n;
        while let Some(c) = self.chunks.front() {
            let len = c.bytes().len();
            if self.pos < len {
                break;
            }
            self.pos -= len;
            self.bytes -= len;
            self.chunks.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FrameDecoder;
    use crate::reactor::{acquire, release, ConnEvent, ConnOwner};
    use std::io::Read;
    use std::time::Duration;

    /// Read frames from `peer` until `n` have arrived.
    fn frames(peer: &mut std::os::unix::net::UnixStream, n: usize) -> Vec<Vec<u8>> {
        peer.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut dec = FrameDecoder::new();
        let mut got = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        while got.len() < n {
            let k = peer.read(&mut buf).unwrap();
            assert!(k > 0, "connection ended after {} frames", got.len());
            dec.push(&buf[..k]);
            while let Some(f) = dec.next_frame().unwrap() {
                got.push(f);
            }
        }
        got
    }

    #[test]
    fn a_shared_tail_reaches_every_peer_whole_and_in_order() {
        let _s = crate::reactor::tests::serial();
        let h = acquire().unwrap();
        // Larger than a socket buffer: most of it waits in the queues.
        let tail: Arc<[u8]> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        let owner: ConnOwner = Arc::new(|_, _, _: ConnEvent| {});
        let mut peers = Vec::new();
        let mut ids = Vec::new();
        for _ in 0..2 {
            let (peer, ours) = std::os::unix::net::UnixStream::pair().unwrap();
            ours.set_nonblocking(true).unwrap();
            let o = owner.clone();
            ids.push(
                h.call("add", move |ctx| {
                    ctx.add_conn(mio::net::UnixStream::from_std(ours), o)
                })
                .unwrap(),
            );
            peers.push(peer);
        }
        let t = tail.clone();
        h.call("send", move |ctx| {
            for (k, &id) in ids.iter().enumerate() {
                assert!(ctx.send_shared(id, &[k as u8], &t));
                assert!(ctx.send(id, b"after"));
            }
            Ok(())
        })
        .unwrap();
        for (k, peer) in peers.iter_mut().enumerate() {
            let got = frames(peer, 2);
            assert_eq!(got[0].len(), 1 + tail.len());
            assert_eq!(got[0][0], k as u8, "each peer its own head");
            assert!(got[0][1..] == tail[..], "the tail, whole");
            assert_eq!(got[1], b"after", "what was sent next comes next");
        }
        // Written out: the queues hold no reference any more.
        let t0 = std::time::Instant::now();
        while Arc::strong_count(&tail) > 1 && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(Arc::strong_count(&tail), 1);
        release();
    }

    #[test]
    fn chunks_come_out_in_order_and_shared_tails_are_not_copied() {
        let tail: Arc<[u8]> = Arc::from(&b"shared"[..]);
        let mut l = Later::default();
        assert!(l.is_empty() && l.front().is_none());
        l.push_shared(tail.clone());
        l.push_own(|v| v.extend_from_slice(b"ab"));
        l.push_own(|v| v.extend_from_slice(b"cd"));
        l.push_shared(tail.clone());
        assert_eq!(Arc::strong_count(&tail), 3, "held by reference");
        assert_eq!(l.len(), 16);
        let mut got = Vec::new();
        while let Some(f) = l.front() {
            // Write at most 4 bytes at a time, as a busy socket would take them.
            let n = f.len().min(4);
            got.extend_from_slice(&f[..n]);
            l.consumed(n);
        }
        assert_eq!(got, b"sharedabcdshared");
        assert_eq!((l.is_empty(), l.len()), (true, 0));
        assert_eq!(Arc::strong_count(&tail), 1, "released once written");
    }
}
