//! Tests of the direct-read and direct-write fast path ([`super::DirectConn`]).

use super::super::tests::serial;
use super::*;
use crate::reactor::{acquire, release, ConnEvent, ConnOwner};
use crossbeam::channel;
use std::io::{Read, Write};
use std::time::Duration;

/// A direct connection and a log of what its owner received.
fn direct_pair(
    h: &Handle,
) -> (
    std::os::unix::net::UnixStream,
    ConnId,
    Arc<DirectConn>,
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
) -> (std::os::unix::net::UnixStream, ConnId, Arc<DirectConn>) {
    let (peer, ours) = std::os::unix::net::UnixStream::pair().unwrap();
    let (id, d) = h.add_conn_direct(ours, owner, FrameDecoder::new()).unwrap();
    (peer, id, d)
}

fn take_soon(d: &Arc<DirectConn>) -> DirectReader {
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
    while t0.elapsed() < Duration::from_secs(5) && !matches!(d.lock().reading, Reading::Closed) {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        matches!(d.lock().reading, Reading::Closed),
        "the end of the stream was not handled"
    );
    release();
}

/// Read frames from `peer` until `n` arrived (or 5 s passed).
fn read_frames(peer: &mut std::os::unix::net::UnixStream, n: usize) -> Vec<Vec<u8>> {
    peer.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut dec = FrameDecoder::new();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    while out.len() < n {
        while let Some(f) = dec.next_frame().unwrap() {
            out.push(f);
        }
        if out.len() >= n {
            break;
        }
        let k = peer.read(&mut buf).expect("frames within 5 s");
        assert!(k > 0, "peer closed after {} of {} frames", out.len(), n);
        dec.push(&buf[..k]);
    }
    out
}

#[test]
fn caller_frames_reach_the_peer_in_order_past_a_full_socket() {
    let _s = serial();
    let h = acquire().unwrap();
    let (mut peer, _id, d, _got) = direct_pair(&h);
    // Far more than a socket buffer: most of it waits for the progress thread, and
    // frames sent meanwhile (from two threads) queue behind it.
    let big = vec![7u8; 4 << 20];
    let d2 = d.clone();
    let t = std::thread::spawn(move || {
        for i in 0..50u32 {
            d2.send(&i.to_le_bytes()).unwrap();
        }
    });
    d.send(&big).unwrap();
    t.join().unwrap();
    d.send(b"last").unwrap();
    let frames = read_frames(&mut peer, 52);
    let big_at = frames.iter().position(|f| f.len() == big.len()).unwrap();
    let small: Vec<u32> = frames
        .iter()
        .filter(|f| f.len() == 4 && f.as_slice() != b"last")
        .map(|f| u32::from_le_bytes([f[0], f[1], f[2], f[3]]))
        .collect();
    assert_eq!(
        small,
        (0..50).collect::<Vec<_>>(),
        "one thread's frames in order"
    );
    assert_eq!(frames.last().unwrap().as_slice(), b"last");
    assert!(big_at < 51, "the big frame came whole, before the last one");
    release();
}

#[test]
fn progress_thread_frames_and_caller_frames_do_not_interleave() {
    let _s = serial();
    let h = acquire().unwrap();
    let (mut peer, id, d, _got) = direct_pair(&h);
    let big = vec![1u8; 2 << 20];
    let b2 = big.clone();
    // The progress thread sends a big frame; a caller sends right after.
    h.call("test", move |ctx| Ok(ctx.send(id, &b2))).unwrap();
    d.send(b"after").unwrap();
    let frames = read_frames(&mut peer, 2);
    assert_eq!(frames[0].len(), big.len());
    assert_eq!(frames[1].as_slice(), b"after");
    release();
}

#[test]
fn send_on_a_closed_connection_is_lost_connection() {
    let _s = serial();
    let h = acquire().unwrap();
    let (peer, _id, d, got) = direct_pair(&h);
    drop(peer);
    let _ = wait_for(&got, 1);
    let e = d.send(b"x").unwrap_err();
    assert_eq!(e.status, pmix_sys::PMIX_ERR_LOST_CONNECTION);
    assert!(d.take().is_none(), "a closed connection cannot be taken");
    release();
}
