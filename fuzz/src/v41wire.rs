//! The `v41_wire` target: OpenPMIx's wire protocol decoders (`codec::v41::wire`) on
//! hostile bytes. The first input byte picks the decoder:
//! * 0: the frame decoder, fed in pieces of the second byte's size: every frame it
//!   yields re-encodes to exactly the bytes it took.
//! * 1: a connect payload: whatever decodes encodes to a payload that decodes to the
//!   same hello (a fixed point); the capability check never panics.
//! * 2: a server's handshake reply for flag `byte % 10`: never takes more than given.
//! * 3: a request body: whatever decodes encodes again and decodes to the same request.
//! * 4: a reply body to command `byte % 33`, and an event body: no panic.
//! * 5: the server's side of a connection (`server::v41::translate`, the framing that
//!   turns a v41 peer's bytes into our Hello and requests), fed in pieces of the second
//!   byte's size: what it yields decodes as our Hello (first) and our requests, and the
//!   answers it is given (a welcome, a reply per tagged request, its own replies) come
//!   out as whole v41 frames.
//! Sources of the seeds are the messages of a 4.2.2 session, re-created with the
//! encoders (the byte-exact captures are the unit tests' fixtures).

use pmix_core::codec::v41::wire::{cmds, frame, handshake, replies};
use pmix_core::protocol::{Put, Req};
use pmix_core::*;
use pmix_sys as sys;

fn sender() -> cmds::Sender {
    cmds::Sender::new(
        ProcId::new(Nspace::new("1431175169").expect("short"), 0),
        0,
        cmds::PEER_UNKNOWN,
    )
}

/// The target's body.
pub fn v41_wire(data: &[u8]) {
    let [sel, rest @ ..] = data else {
        return;
    };
    match sel % 6 {
        0 => frames(rest),
        1 => hello(rest),
        2 => {
            let [f, bytes @ ..] = rest else { return };
            if let Ok(Some((_, used))) = handshake::decode_server_reply(f % 10, bytes) {
                assert!(used <= bytes.len());
            }
        }
        3 => request(rest),
        5 => serve(rest),
        _ => {
            let [c, body @ ..] = rest else { return };
            let _ = replies::decode_reply(c % 33, body);
            let _ = replies::decode_event(body);
        }
    }
}

fn frames(rest: &[u8]) {
    let [piece, stream @ ..] = rest else { return };
    let mut d = frame::FrameDecoder::with_limit(1 << 16);
    let mut taken = 0;
    for chunk in stream.chunks((*piece as usize).max(1)) {
        d.push(chunk);
        loop {
            match d.next_frame() {
                Ok(Some((h, body))) => {
                    let again = frame::frame(h.pindex, h.tag, &body).expect("fits");
                    assert_eq!(&again[..12], &stream[taken..taken + 12]);
                    assert_eq!(&again[16..], &stream[taken + 16..taken + again.len()]);
                    taken += again.len();
                }
                Ok(None) => break,
                Err(_) => return,
            }
        }
    }
    assert_eq!(taken + d.pending(), stream.len());
}

fn hello(payload: &[u8]) {
    let Ok(h) = handshake::decode_client_hello(payload) else {
        return;
    };
    let _ = handshake::check_client_hello(&h);
    let Ok(bytes) = handshake::encode_client_hello(&h) else {
        return;
    };
    let back = handshake::decode_client_hello(&bytes[frame::HEADER_LEN..])
        .expect("own connect message rejected");
    assert_eq!(back, h, "connect message is not a fixed point");
}

fn request(body: &[u8]) {
    let s = sender();
    let Ok(c) = cmds::decode_request(body, &s) else {
        return;
    };
    let Ok(again) = cmds::encode_request(&c, &s) else {
        return;
    };
    let back = cmds::decode_request(&again, &s).expect("own request rejected");
    assert_eq!(back, c, "request is not a fixed point");
}

fn serve(rest: &[u8]) {
    use pmix_core::reactor::Framing;
    use pmix_core::server::v41::translate::{lock, Translation, V41Framing};
    let [piece, stream @ ..] = rest else { return };
    let t = Translation::new(0, None);
    let mut f = V41Framing::new(t.clone(), 1 << 16);
    let mut out = Vec::new();
    let mut hello_seen = false;
    for chunk in stream.chunks((*piece as usize).max(1)) {
        f.push(chunk);
        loop {
            match f.next_frame() {
                Ok(Some(body)) if body.is_empty() => {}
                Ok(Some(body)) if !hello_seen => {
                    protocol::decode::<protocol::Hello>(&body).expect("a Hello");
                    hello_seen = true;
                    f.encode_into(&[0], &mut out);
                }
                Ok(Some(body)) => {
                    let r: protocol::Request = protocol::decode(&body).expect("a Request");
                    if r.tag != 0 {
                        let m = protocol::ServerMsg::Reply {
                            tag: r.tag,
                            status: 0,
                            data: protocol::ReplyData::None,
                        };
                        f.encode_into(&protocol::encode(&m), &mut out);
                    }
                }
                Ok(None) | Err(_) => break,
            }
            let local = lock(&t).take_local();
            for m in local {
                f.encode_into(&m, &mut out);
            }
        }
    }
    // After the handshake answer (status + pindex, 8 bytes) only whole v41 frames.
    if hello_seen && out.len() >= 8 {
        let mut d = frame::FrameDecoder::new();
        d.push(&out[8..]);
        while let Ok(Some(_)) = d.next_frame() {}
        assert_eq!(d.pending(), 0, "the server wrote a partial v41 frame");
    }
}

/// Seeds: a frame stream, a connect payload, a handshake reply, requests, replies.
pub fn seeds() -> Vec<Vec<u8>> {
    let s = sender();
    let me = s.me.clone();
    let reqs = [
        Req::JobData {
            nspace: me.nspace.clone(),
        },
        Req::Commit {
            puts: vec![Put {
                key: Key::new("ring.k").expect("short"),
                scope: sys::PMIX_GLOBAL,
                value: Value::string("value-of-0"),
            }],
        },
        Req::Fence {
            procs: vec![],
            collect: true,
            timeout_ms: 0,
            info: vec![],
        },
        Req::Get {
            target: ProcId::new(me.nspace.clone(), 1),
            key: Some(Key::new("ring.k").expect("short")),
            immediate: false,
            timeout_ms: 0,
            info: vec![],
        },
        Req::Finalize,
    ];
    let mut out = Vec::new();
    let mut stream = Vec::new();
    for r in reqs {
        let body = cmds::encode_request(&cmds::Command::Req(r), &s).expect("encodes");
        frame::encode_frame(0, 101, &body, &mut stream).expect("fits");
        out.push([&[3u8][..], &body].concat());
    }
    out.push([&[0u8, 7][..], &stream].concat());
    let h = handshake::ClientHello::simple(me.clone(), 0, 0);
    let hb = handshake::encode_client_hello(&h).expect("encodes");
    out.push([&[5u8, 13][..], &hb, &stream].concat());
    out.push([&[1u8][..], &hb[frame::HEADER_LEN..]].concat());
    out.push(vec![2, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    let blob = vec![(
        me.clone(),
        vec![Info::new("ring.k", Value::string("v")).expect("short")],
    )];
    let get = replies::encode_get_reply(0, &blob).expect("encodes");
    out.push([&[4u8, cmds::cmd::GETNB][..], &get].concat());
    let ev = protocol::ServerMsg::Event {
        status: -150,
        source: me,
        info: vec![],
    };
    out.push(
        [
            &[4u8, 0][..],
            &replies::encode_event(&ev, 2).expect("encodes"),
        ]
        .concat(),
    );
    out
}
