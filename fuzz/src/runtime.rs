//! Fuzz targets of the client/server runtime: the frame reassembler, the message decoders
//! of every protocol message, the fence/direct-modex blob parser, and a whole server
//! session driven by a hostile peer (requests, closes, host answers and timers in any
//! order) through the sans-I/O `ServerState`.

use pmix_core::codec::{to_bytes, Wire};
use pmix_core::protocol::{
    self, decode_blobs, encode_blob, encode_frame_into, Blob, FrameDecoder, Hello, ProcBlob, Put,
    Req, Request, ServerMsg, Welcome, MAX_FRAME,
};
use pmix_core::server::state::{Action, ServerState, TimerEv, Upcall};
use pmix_core::store::{Entry, JobData};
use pmix_core::*;
use pmix_sys as sys;

/// `FrameDecoder`: the input is a byte stream cut into chunks whose sizes come from the
/// stream itself; the frames must be exactly what a one-shot parse of the whole stream
/// finds, whatever the chunking, and an over-long length must be refused.
pub fn frame_decode(data: &[u8]) {
    let [step, stream @ ..] = data else {
        return;
    };
    // reference: parse the whole stream at once
    let mut want = Vec::new();
    let mut bad = false;
    let mut rest = stream;
    while rest.len() >= 4 {
        let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        if len > MAX_FRAME {
            bad = true;
            break;
        }
        if rest.len() < 4 + len {
            break;
        }
        want.push(rest[4..4 + len].to_vec());
        rest = &rest[4 + len..];
    }
    // the decoder, fed in chunks of 1..=step+1 bytes (varying)
    let mut dec = FrameDecoder::new();
    let mut got = Vec::new();
    let mut failed = false;
    let mut pos = 0;
    let mut k = 0usize;
    while pos < stream.len() && !failed {
        let n = 1 + (k * 7 + *step as usize) % (*step as usize + 1);
        let end = (pos + n).min(stream.len());
        dec.push(&stream[pos..end]);
        pos = end;
        k += 1;
        loop {
            match dec.next_frame() {
                Ok(Some(f)) => got.push(f),
                Ok(None) => break,
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
    }
    assert_eq!(failed, bad, "over-long frame detection differs");
    assert_eq!(got, want, "frames differ with chunking");
    if !bad {
        assert_eq!(
            dec.has_partial(),
            !rest.is_empty(),
            "partial-frame state wrong"
        );
    }
}

/// Encode → decode → encode is stable for whatever decodes.
fn stable<T: Wire>(body: &[u8]) {
    if let Ok(m) = protocol::decode::<T>(body) {
        let once = to_bytes(&m);
        let again: T = protocol::decode(&once).expect("own encoding does not decode");
        assert_eq!(once, to_bytes(&again), "message encoding unstable");
    }
}

/// Every protocol message decoder; the first byte picks the message kind.
pub fn message_decode(data: &[u8]) {
    let [kind, body @ ..] = data else {
        return;
    };
    match kind % 5 {
        0 => stable::<Hello>(body),
        1 => stable::<Welcome>(body),
        2 => stable::<Request>(body),
        3 => stable::<ServerMsg>(body),
        _ => stable::<JobData>(body),
    }
}

/// The fence/direct-modex blob parser (`decode_blobs`) on a concatenation of blobs.
pub fn blob_decode(data: &[u8]) {
    if let Ok(blobs) = decode_blobs(data) {
        let once: Vec<u8> = blobs.iter().flat_map(encode_blob).collect();
        let again = decode_blobs(&once).expect("own blobs do not decode");
        let twice: Vec<u8> = again.iter().flat_map(encode_blob).collect();
        assert_eq!(once, twice, "blob encoding unstable");
    }
}

// ---- a whole server session ----

const UID: u32 = 1000;
/// Local ranks (connected clients) of the job; the job has twice as many ranks, so
/// fences need the host and Gets of the other half go through direct modex.
const NRANKS: u32 = 3;

fn ns() -> Nspace {
    Nspace::new("job").expect("short")
}

fn server_id() -> ProcId {
    ProcId::new(Nspace::new("srv").expect("short"), 0)
}

/// A server with namespace "job" of three local ranks, each connected and accepted on
/// connection `rank + 1`.
fn fresh_server(out: &mut Vec<Action>) -> ServerState {
    let mut s = ServerState::new(server_id(), "host0".into());
    let info = vec![
        Info::new("pmix.job.size", Value::Uint32(2 * NRANKS)).expect("short"),
        Info::new("pmix.local.size", Value::Uint32(NRANKS)).expect("short"),
        Info::new("pmix.lpeers", Value::string("0,1,2")).expect("short"),
    ];
    s.register_nspace(&ns(), NRANKS, info);
    for r in 0..NRANKS {
        let p = ProcId::new(ns(), r);
        s.register_client(&p, UID).expect("valid rank");
        let conn = r as usize + 1;
        s.connected(conn, UID);
        let hello = Hello {
            version: protocol::VERSION,
            proc_: p.clone(),
            pid: 100 + r as i32,
            uid: UID,
            gid: UID,
            kind: pmix_core::protocol::PeerKind::Client,
        };
        let checked = s
            .check_hello(conn, &protocol::encode(&hello))
            .expect("a valid hello is accepted");
        s.accept(conn, checked, out);
    }
    out.clear();
    s
}

/// What the session has asked of its host so far, so ops can answer it.
#[derive(Default)]
struct Pending {
    fences: Vec<u64>,
    dmodex: Vec<(ProcId, Option<Key>)>,
    timers: Vec<TimerEv>,
    aborts: Vec<(usize, u32)>,
    finalizes: Vec<(usize, u32)>,
}

/// `PMIX_FUZZ_TRACE=1` prints the actions of a session (to check what seeds reach).
fn trace() -> bool {
    static T: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *T.get_or_init(|| std::env::var_os("PMIX_FUZZ_TRACE").is_some())
}

/// Check every action and remember what needs an answer.
fn absorb(out: &mut Vec<Action>, p: &mut Pending) {
    for a in out.drain(..) {
        if trace() {
            match &a {
                Action::Send(c, b) => eprintln!(
                    "send conn {}: {:?}",
                    c,
                    protocol::decode::<ServerMsg>(b)
                        .map(|m| format!("{:?}", m))
                        .unwrap_or_else(|_| "welcome".into())
                ),
                Action::Close(c) => eprintln!("close {}", c),
                Action::Host(Upcall::Fence { id, procs, .. }) => {
                    eprintln!("host fence {} {:?}", id, procs)
                }
                Action::Host(Upcall::Dmodex { proc_, key, .. }) => {
                    eprintln!("host dmodex {} {:?}", proc_, key)
                }
                Action::Host(Upcall::Notify { .. }) => eprintln!("host notify"),
                Action::Timer(d, ev) => eprintln!("timer {:?} {:?}", d, ev),
                Action::Host(Upcall::Abort { conn, .. }) => eprintln!("host abort from {}", conn),
                Action::Host(Upcall::Finalized { proc_, .. }) => eprintln!("finalized {}", proc_),
                Action::Host(Upcall::Lost(p)) => eprintln!("lost {}", p),
                Action::Host(_) => eprintln!("host call"),
                Action::AnswerDmodex(..) => eprintln!("answer dmodex"),
                Action::IofLocal(_, id, c) => eprintln!("iof local {} {} bytes", id, c.data.len()),
                Action::SendFds(c, _, fds) => eprintln!("send conn {} with {} fds", c, fds.len()),
                Action::SendShared(c, head, tail) => {
                    eprintln!("send conn {} {}+{} shared bytes", c, head.len(), tail.len())
                }
            }
        }
        // A shared reply's frame is its per-connection head and the shared tail.
        let a = match a {
            Action::SendShared(c, head, tail) => Action::Send(c, [&head[..], &tail[..]].concat()),
            a => a,
        };
        match a {
            Action::Send(_, body) | Action::SendFds(_, body, _) => {
                // a reply, event or welcome: it must decode on the client side
                let ok = protocol::decode::<ServerMsg>(&body).is_ok()
                    || protocol::decode::<Welcome>(&body).is_ok();
                assert!(ok, "server sent a frame its clients cannot decode");
                assert!(body.len() <= MAX_FRAME, "server sent an over-long frame");
            }
            Action::Host(Upcall::Fence { id, .. }) => p.fences.push(id),
            Action::Host(Upcall::Dmodex { proc_, key, .. }) => p.dmodex.push((proc_, key)),
            Action::Host(Upcall::Finalized { conn, tag, .. }) => p.finalizes.push((conn, tag)),
            Action::Timer(_, ev) => p.timers.push(ev),
            Action::Host(Upcall::Abort { conn, tag, .. }) => p.aborts.push((conn, tag)),
            Action::Close(_)
            | Action::Host(Upcall::Lost(_))
            | Action::Host(Upcall::Notify { .. })
            | Action::Host(_)
            | Action::AnswerDmodex(..)
            | Action::IofLocal(..)
            | Action::SendShared(..) => {}
        }
    }
}

/// Take a length-prefixed (1 byte) chunk from the input.
fn chunk<'a>(d: &mut &'a [u8]) -> &'a [u8] {
    let Some((&n, rest)) = d.split_first() else {
        return &[];
    };
    let n = (n as usize).min(rest.len());
    let (c, r) = rest.split_at(n);
    *d = r;
    c
}

fn byte(d: &mut &[u8]) -> u8 {
    let Some((&b, rest)) = d.split_first() else {
        return 0;
    };
    *d = rest;
    b
}

/// A server session: each op takes an op byte and its operands from the input.
pub fn server_session(data: &[u8]) {
    let mut out = Vec::new();
    let mut s = fresh_server(&mut out);
    let mut p = Pending::default();
    let mut d = data;
    let mut next_conn = 10usize;
    let mut ops = 0;
    while !d.is_empty() && ops < 64 {
        ops += 1;
        match byte(&mut d) % 9 {
            // a request frame from a connection (0 and 4 never shook hands)
            0..=2 => {
                let conn = (byte(&mut d) % 5) as usize;
                let body = chunk(&mut d);
                if trace() {
                    eprintln!(
                        "request conn {}: {:?}",
                        conn,
                        protocol::decode::<Request>(body)
                    );
                }
                let _ = s.request(conn, body, &mut out);
            }
            // a well-formed request built from operands (reaches the deep paths)
            3 => {
                let conn = 1 + (byte(&mut d) % NRANKS as u8) as usize;
                let req = built_request(&mut d);
                if trace() {
                    eprintln!("request conn {}: {:?}", conn, req);
                }
                let _ = s.request(conn, &protocol::encode(&req), &mut out);
            }
            4 => {
                // a connection closes; with the top bit, the host then deregisters the
                // rank that was connected on it (as pmixrun does when it reaps a process)
                let b = byte(&mut d);
                let conn = (b % 5) as usize;
                if trace() {
                    eprintln!("close conn {}", conn);
                }
                s.closed(conn, &mut out);
                if b & 0x80 != 0 && (1..=NRANKS as usize).contains(&conn) {
                    let p = ProcId::new(ns(), conn as u32 - 1);
                    if trace() {
                        eprintln!("deregister {}", p);
                    }
                    s.deregister_client(&p, &mut out);
                }
            }
            5 => {
                // a new connection presenting any handshake, with the right or a wrong uid
                let conn = next_conn;
                next_conn += 1;
                let uid = if byte(&mut d) & 1 == 0 { UID } else { 0 };
                s.connected(conn, uid);
                let body = chunk(&mut d);
                match s.check_hello(conn, body) {
                    Ok(proc_) => s.accept(conn, proc_, &mut out),
                    Err(e) => s.refuse(conn, &e, &mut out),
                }
            }
            6 => {
                // the host finishes a fence with any bytes (the blob parser), or fails it
                let sel = byte(&mut d) as usize;
                let blob = chunk(&mut d).to_vec();
                if !p.fences.is_empty() {
                    let id = p.fences.remove(sel % p.fences.len());
                    let r = if sel & 0x80 == 0 {
                        Ok(blob)
                    } else {
                        Err(Error::new(sys::PMIX_ERR_TIMEOUT, "host gave up"))
                    };
                    s.fence_done(id, r, &mut out);
                }
            }
            7 => {
                // the host answers a direct modex with any bytes
                let sel = byte(&mut d) as usize;
                let blob = chunk(&mut d).to_vec();
                if !p.dmodex.is_empty() {
                    let (who, key) = p.dmodex.remove(sel % p.dmodex.len());
                    s.dmodex_done(&who, key.as_ref(), Ok(blob), &mut out);
                }
            }
            _ => {
                // a timer fires, or the host answers an abort or a finalize
                let sel = byte(&mut d) as usize;
                if sel & 1 == 0 && !p.timers.is_empty() {
                    let ev = p.timers.remove(sel % p.timers.len());
                    s.timer(ev, &mut out);
                } else if sel & 2 == 0 && !p.aborts.is_empty() {
                    let (conn, tag) = p.aborts.remove(sel % p.aborts.len());
                    s.abort_done(conn, tag, Ok(()), &mut out);
                } else if !p.finalizes.is_empty() {
                    let (conn, tag) = p.finalizes.remove(sel % p.finalizes.len());
                    s.finalize_done(conn, tag, &mut out);
                }
            }
        }
        absorb(&mut out, &mut p);
    }
    // Every client leaves and the host deregisters them (the job ended); the host answers
    // what it was asked; timers fire. Nothing the session started may be left waiting.
    for conn in s.conn_ids() {
        s.closed(conn, &mut out);
    }
    for r in 0..NRANKS {
        s.deregister_client(&ProcId::new(ns(), r), &mut out);
    }
    absorb(&mut out, &mut p);
    for id in std::mem::take(&mut p.fences) {
        s.fence_done(id, Err(Error::new(sys::PMIX_ERR_TIMEOUT, "end")), &mut out);
    }
    for (who, key) in std::mem::take(&mut p.dmodex) {
        s.dmodex_done(
            &who,
            key.as_ref(),
            Err(Error::new(sys::PMIX_ERR_TIMEOUT, "end")),
            &mut out,
        );
    }
    for (conn, tag) in std::mem::take(&mut p.finalizes) {
        s.finalize_done(conn, tag, &mut out);
    }
    for ev in std::mem::take(&mut p.timers) {
        s.timer(ev, &mut out);
    }
    absorb(&mut out, &mut p);
    // F3/F4 (docs/ROBUSTNESS.md) made this fail: a fence naming a finalized process, or
    // started by one, outlived every participant.
    assert_eq!(
        s.pending_fences(),
        0,
        "a fence outlived all its participants"
    );
    assert_eq!(
        s.pending_connects(),
        0,
        "a connect outlived all its participants"
    );
}

/// A syntactically valid request chosen by the input.
fn built_request(d: &mut &[u8]) -> Request {
    let tag = byte(d) as u32;
    let rank = |b: u8| match b % 5 {
        3 => sys::PMIX_RANK_WILDCARD,
        4 => sys::PMIX_RANK_UNDEF,
        r => r as u32,
    };
    let key = |b: u8| Key::new(format!("k{}", b % 4)).expect("short");
    let req = match byte(d) % 6 {
        0 => Req::Commit {
            puts: (0..byte(d) % 4)
                .map(|i| Put {
                    key: key(i),
                    scope: byte(d) % 6,
                    value: Value::Uint32(i as u32),
                })
                .collect(),
        },
        1 => Req::Fence {
            procs: (0..byte(d) % 4)
                .map(|_| ProcId::new(ns(), rank(byte(d))))
                .collect(),
            collect: byte(d) & 1 == 1,
            timeout_ms: (byte(d) % 3) as u32 * 10,
            info: Vec::new(),
        },
        2 => Req::Get {
            target: ProcId::new(ns(), rank(byte(d))),
            key: Some(key(byte(d))),
            immediate: byte(d) & 1 == 1,
            timeout_ms: (byte(d) % 3) as u32 * 10,
            info: Vec::new(),
        },
        3 => Req::JobData { nspace: ns() },
        4 => Req::Abort {
            status: -1,
            msg: "fuzz".into(),
            targets: Vec::new(),
        },
        _ => Req::Finalize,
    };
    Request { tag, req }
}

/// Seeds for the runtime targets, from valid encodings.
pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    let p0 = ProcId::new(ns(), 0);
    let info = vec![Info::new("pmix.job.size", Value::Uint32(3)).expect("short")];
    let requests = vec![
        Request {
            tag: 0,
            req: Req::Commit {
                puts: vec![Put {
                    key: Key::new("k0").expect("short"),
                    scope: sys::PMIX_GLOBAL,
                    value: Value::string("v"),
                }],
            },
        },
        Request {
            tag: 1,
            req: Req::Fence {
                procs: vec![ProcId::new(ns(), sys::PMIX_RANK_WILDCARD)],
                collect: true,
                timeout_ms: 0,
                info: info.clone(),
            },
        },
        Request {
            tag: 2,
            req: Req::Get {
                target: ProcId::new(ns(), 1),
                key: Some(Key::new("k0").expect("short")),
                immediate: false,
                timeout_ms: 10,
                info: Vec::new(),
            },
        },
        Request {
            tag: 3,
            req: Req::JobData { nspace: ns() },
        },
        Request {
            tag: 4,
            req: Req::Abort {
                status: -1,
                msg: "bye".into(),
                targets: vec![p0.clone()],
            },
        },
        Request {
            tag: 5,
            req: Req::Finalize,
        },
        Request {
            tag: 6,
            req: Req::Notify {
                status: -1,
                range: 1,
                info: info.clone(),
            },
        },
    ];
    let mut blob = Blob::new(true);
    blob.procs.push(ProcBlob::full(
        p0.clone(),
        vec![(
            Key::new("k0").expect("short"),
            Entry {
                scope: sys::PMIX_GLOBAL,
                value: Value::Uint64(7),
            },
        )],
    ));
    let hello = Hello {
        version: protocol::VERSION,
        proc_: p0.clone(),
        pid: 1,
        uid: UID,
        gid: UID,
        kind: pmix_core::protocol::PeerKind::Client,
    };
    let job = JobData::from_register(&ns(), info.clone());
    match name {
        "frame_decode" => {
            let mut stream = Vec::new();
            for r in &requests {
                encode_frame_into(&protocol::encode(r), &mut stream);
            }
            vec![
                [&[3u8][..], &stream].concat(),
                [&[0u8][..], &stream].concat(),
            ]
        }
        "message_decode" => {
            let mut v = vec![
                [&[0u8][..], &protocol::encode(&hello)].concat(),
                [
                    &[1u8][..],
                    &protocol::encode(&Welcome::Accepted {
                        server: server_id(),
                        you: server_id(),
                        jobs: vec![job.clone()],
                    }),
                ]
                .concat(),
                [
                    &[1u8][..],
                    &protocol::encode(&Welcome::Refused {
                        status: -1,
                        reason: "no".into(),
                    }),
                ]
                .concat(),
                [
                    &[3u8][..],
                    &protocol::encode(&ServerMsg::Event {
                        status: -1,
                        source: p0.clone(),
                        info: info.clone(),
                    }),
                ]
                .concat(),
                [&[4u8][..], &to_bytes(&job)].concat(),
            ];
            for r in &requests {
                v.push([&[2u8][..], &protocol::encode(r)].concat());
            }
            v
        }
        "blob_decode" => {
            let one = encode_blob(&blob);
            vec![one.clone(), [one.clone(), one].concat(), Vec::new()]
        }
        "server_session" => {
            // every client commits, then all fence, then rank 0 gets from rank 1; the host
            // completes the fence with a blob; then raw request frames
            let mut s = Vec::new();
            for conn in 0..3u8 {
                s.extend([3, conn, 0, 0, 2]); // op 3: built Commit with 2 puts
                s.extend([0, 1]); // scopes of the two puts
            }
            for conn in 0..3u8 {
                s.extend([3, conn, 1 + conn, 1, 0, 1, 0]); // Fence, no procs (whole job)
            }
            let b = encode_blob(&blob);
            s.extend([6, 0, b.len() as u8]);
            s.extend(&b);
            s.extend([3, 0, 9, 2, 1, 0, 0, 1]); // Get rank 1 key k0
            s.extend([3, 1, 10, 2, 4, 0, 0, 1]); // Get rank 4 (remote): direct modex
            s.extend([7, 0, b.len() as u8]); // the host answers it with the blob
            s.extend(&b);
            for r in &requests {
                let body = protocol::encode(r);
                if body.len() < 256 {
                    s.extend([0, 1, body.len() as u8]);
                    s.extend(&body);
                }
            }
            let h = protocol::encode(&hello);
            s.extend([5, 0, h.len() as u8]);
            s.extend(&h);
            vec![s]
        }
        _ => Vec::new(),
    }
}
