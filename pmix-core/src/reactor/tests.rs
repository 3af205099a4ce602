//! The reactor's tests: the progress thread's life cycle, the wait helper, timers and the
//! framed connections.

use super::*;
use crate::protocol::FrameDecoder;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

// The reactor is process-wide; tests that start and stop it must not overlap.
static SERIAL: Mutex<()> = Mutex::new(());

pub(super) fn serial() -> std::sync::MutexGuard<'static, ()> {
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

#[test]
fn abandoned_wait_is_not_available() {
    let _s = serial();
    let h = acquire().unwrap();
    let r: Result<()> = wait("x", None, |done| h.post(move |_| drop(done)));
    assert_eq!(r.unwrap_err().status, sys::PMIX_ERR_NOT_AVAILABLE);
    release();
}

/// A framing of its own: one frame per line.
#[derive(Default)]
struct Lines(Vec<u8>);

impl Framing for Lines {
    fn push(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    fn next_frame(&mut self) -> Result<Option<Vec<u8>>> {
        Ok(self.0.iter().position(|&b| b == b'\n').map(|i| {
            let rest = self.0.split_off(i + 1);
            let mut line = std::mem::replace(&mut self.0, rest);
            line.pop();
            line
        }))
    }
    fn has_partial(&self) -> bool {
        !self.0.is_empty()
    }
    fn set_limit(&mut self, _max_frame: usize) {}
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(body);
        out.push(b'\n');
    }
}

#[test]
fn a_connection_in_another_framing_reads_and_writes_its_own_frames() {
    let _s = serial();
    let h = acquire().unwrap();
    let (mut peer, ours) = std::os::unix::net::UnixStream::pair().unwrap();
    ours.set_nonblocking(true).unwrap();
    // The owner answers every frame with the frame reversed, in the same framing.
    let owner: ConnOwner = Arc::new(|ctx, id, ev| {
        if let ConnEvent::Frame(mut b) = ev {
            b.reverse();
            ctx.send(id, &b);
        }
    });
    h.call("test", move |ctx| {
        ctx.add_conn_framed(
            UnixStream::from_std(ours),
            owner,
            ConnOpts::default(),
            Box::new(Lines::default()),
        )
    })
    .unwrap();
    peer.write_all(b"abc\nxy").unwrap();
    peer.write_all(b"z\n").unwrap();
    peer.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 64];
    while got.len() < 8 {
        let n = peer.read(&mut buf).unwrap();
        assert!(n > 0);
        got.extend_from_slice(&buf[..n]);
    }
    assert_eq!(got, b"cba\nzyx\n");
    release();
}
