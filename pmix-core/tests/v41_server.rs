//! The server's OpenPMIx (v41) listener, spoken to with a raw TCP stream: a good client's
//! whole life (handshake, hash job info, commit, fence with a client of ours, Get of its
//! data, finalize), and the refusals: a version, gds or security mode we do not
//! implement, a claimed uid the kernel contradicts, an unregistered client; a malformed
//! frame closes that connection only. Every read has a deadline.

mod util;

use pmix_core::codec::v41::wire::{
    cmds::{self, cmd, Command, Sender},
    frame::{self, Header, HEADER_LEN},
    handshake::{self, ClientHello},
    replies,
};
use pmix_core::protocol::{Put, ReplyData, Req};
use pmix_core::server::Server;
use pmix_core::store::keys;
use pmix_core::{Key, ProcId, Value};
use pmix_sys as sys;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;
use util::{ns, RecordingHost};

/// The tcp4 address setup_fork gives OpenPMIx clients.
fn v41_addr(s: &Server, job: &str) -> String {
    let env = s.setup_fork(&ProcId::new(ns(job), 0)).unwrap();
    let uri = env
        .iter()
        .find(|(k, _)| k == "PMIX_SERVER_URI41")
        .map(|(_, v)| v.clone())
        .expect("PMIX_SERVER_URI41 exported");
    for v in [
        "PMIX_SERVER_URI4",
        "PMIX_SERVER_URI3",
        "PMIX_SERVER_URI21",
        "PMIX_SERVER_URI2",
    ] {
        assert!(env.iter().any(|(k, u)| k == v && *u == uri), "{v}");
    }
    // ds21 for 4.2.x clients, its store's directory made before the fork
    assert!(env
        .iter()
        .any(|(k, v)| k == "PMIX_GDS_MODULE" && v == "ds21,hash"));
    let store = env
        .iter()
        .find(|(k, _)| k == "PMIX_DSTORE_21_BASE_PATH")
        .expect("PMIX_DSTORE_21_BASE_PATH exported");
    let dir = std::path::Path::new(&store.1);
    assert!(dir.join("initial-pmix_shared-segment-0").is_file());
    assert!(dir.join(format!("smlockseg-{job}")).is_file());
    let native = env.iter().find(|(k, _)| k == "PMIX_RS_SERVER_URI").unwrap();
    assert!(native.1.contains(";unix:"), "{}", native.1);
    let addr = uri.split_once(";tcp4://").expect("a tcp4 URI").1;
    assert!(addr.starts_with("127.0.0.1:"), "loopback only: {addr}");
    addr.to_string()
}

fn dial(addr: &str) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

/// Send a connect message; the server's status (and pindex when 0).
fn handshake(s: &mut TcpStream, h: &ClientHello) -> (i32, Option<u32>) {
    s.write_all(&handshake::encode_client_hello(h).unwrap())
        .unwrap();
    let mut st = [0u8; 4];
    s.read_exact(&mut st).unwrap();
    let status = i32::from_be_bytes(st);
    if status != 0 {
        return (status, None);
    }
    s.read_exact(&mut st).unwrap();
    (0, Some(u32::from_be_bytes(st)))
}

fn closed_by_server(s: &mut TcpStream) -> bool {
    let mut b = [0u8; 64];
    matches!(s.read(&mut b), Ok(0))
}

fn me(job: &str, rank: u32) -> ProcId {
    ProcId::new(ns(job), rank)
}

fn euid() -> u32 {
    pmix_core::sys::euid()
}

fn egid() -> u32 {
    pmix_core::sys::egid()
}

/// Send request `c` with `tag`; read the reply with that tag (events are skipped).
fn call(s: &mut TcpStream, who: &Sender, tag: u32, c: &Command) -> (i32, ReplyData) {
    let body = cmds::encode_request(c, who).unwrap();
    s.write_all(&frame::frame(0, tag, &body).unwrap()).unwrap();
    loop {
        let mut h = [0u8; HEADER_LEN];
        s.read_exact(&mut h).unwrap();
        let h = Header::from_bytes(&h);
        let mut body = vec![0u8; h.nbytes as usize];
        s.read_exact(&mut body).unwrap();
        if h.tag == tag {
            return replies::decode_reply(c.code().unwrap(), &body).unwrap();
        }
    }
}

#[test]
fn an_openpmix_client_lives_beside_ours() {
    let host = Arc::new(RecordingHost::default());
    let srv = util::server_with_job("v41-life", "v41life", 2, host);
    let addr = v41_addr(&srv, "v41life");
    let mut s = dial(&addr);
    let (st, pindex) = handshake(
        &mut s,
        &ClientHello::simple(me("v41life", 0), euid(), egid()),
    );
    assert_eq!((st, pindex.is_some()), (0, true));
    let who = Sender::new(me("v41life", 0), euid(), cmds::PEER_UNKNOWN);
    let (_, job) = call(
        &mut s,
        &who,
        101,
        &Command::Req(Req::JobData {
            nspace: ns("v41life"),
        }),
    );
    let ReplyData::Job(j) = job else {
        panic!("job info: {job:?}")
    };
    assert_eq!(j.nspace.as_str(), "v41life");
    let put = Put {
        key: Key::new("v41.k").unwrap(),
        scope: sys::PMIX_GLOBAL,
        value: Value::Uint32(4242),
    };
    let commit = Command::Req(Req::Commit { puts: vec![put] });
    assert_eq!(call(&mut s, &who, 102, &commit).0, 0, "commit answered");
    // Our own client, rank 1, fences with it and reads its key.
    let ours = std::thread::spawn({
        let uri = srv.uri();
        move || {
            let c = pmix_core::client::Client::connect(pmix_core::client::ClientConfig {
                server: Some((
                    me("v41life", 1),
                    pmix_core::client::ServerAddr::Unix(
                        pmix_core::client::parse_uri(&uri).unwrap(),
                    ),
                )),
                ..Default::default()
            })
            .unwrap();
            let collect = vec![util::info(keys::COLLECT_DATA, Value::Bool(true))];
            c.fence(vec![], &collect).unwrap();
            let opts = Default::default();
            let k = Key::new("v41.k").unwrap();
            let v = c.get(Some(&me("v41life", 0)), Some(&k), &opts).unwrap();
            c.finalize().unwrap();
            v
        }
    });
    let fence = Command::Req(Req::Fence {
        procs: vec![],
        collect: true,
        timeout_ms: 0,
        info: vec![],
    });
    assert_eq!(
        call(&mut s, &who, 103, &fence).0,
        0,
        "fence with our rank 1"
    );
    assert_eq!(ours.join().unwrap(), Value::Uint32(4242));
    assert_eq!(call(&mut s, &who, 104, &Command::Req(Req::Finalize)).0, 0);
}

#[test]
fn what_we_do_not_implement_is_refused_at_the_handshake() {
    let host = Arc::new(RecordingHost::default());
    let srv = util::server_with_job("v41-refuse", "v41ref", 4, host);
    let addr = v41_addr(&srv, "v41ref");
    let good = || ClientHello::simple(me("v41ref", 0), euid(), egid());
    let cases: Vec<(&str, ClientHello, i32)> = vec![
        (
            "gds ds12",
            ClientHello {
                gds: "ds12".into(),
                ..good()
            },
            sys::PMIX_ERR_NOT_SUPPORTED,
        ),
        (
            "version 3.1",
            ClientHello {
                version: "3.1.6".into(),
                ..good()
            },
            sys::PMIX_ERR_NOT_SUPPORTED,
        ),
        (
            "bfrops v4",
            ClientHello {
                bfrops: "v4".into(),
                ..good()
            },
            sys::PMIX_ERR_NOT_SUPPORTED,
        ),
        (
            "munge with a credential that is no munge text",
            ClientHello {
                psec: "munge".into(),
                ..good()
            },
            sys::PMIX_ERR_INVALID_CRED,
        ),
        (
            "security we do not speak",
            ClientHello {
                psec: "dummy_handshake".into(),
                ..good()
            },
            sys::PMIX_ERR_NOT_SUPPORTED,
        ),
        (
            "another uid",
            ClientHello {
                credential: handshake::native_credential(euid().wrapping_add(1), egid()),
                ..good()
            },
            sys::PMIX_ERR_INVALID_CRED,
        ),
        (
            "unregistered",
            ClientHello::simple(me("v41ref", 9), euid(), egid()),
            sys::PMIX_ERR_NOT_FOUND,
        ),
    ];
    for (what, h, want) in cases {
        let mut s = dial(&addr);
        let (st, _) = handshake(&mut s, &h);
        assert_eq!(st, want, "{what}");
        assert!(closed_by_server(&mut s), "{what}: closed after the refusal");
    }
    // Not a connect message at all: closed without an answer.
    let mut s = dial(&addr);
    s.write_all(&[0x55; 32]).unwrap();
    assert!(closed_by_server(&mut s), "garbage closed");
}

#[test]
fn a_malformed_frame_closes_that_connection_only() {
    let host = Arc::new(RecordingHost::default());
    let srv = util::server_with_job("v41-bad", "v41bad", 2, host);
    let addr = v41_addr(&srv, "v41bad");
    let mut a = dial(&addr);
    assert_eq!(
        handshake(
            &mut a,
            &ClientHello::simple(me("v41bad", 0), euid(), egid())
        )
        .0,
        0
    );
    let mut b = dial(&addr);
    assert_eq!(
        handshake(
            &mut b,
            &ClientHello::simple(me("v41bad", 1), euid(), egid())
        )
        .0,
        0
    );
    // A GETNB whose body is cut short.
    let bad = frame::frame(0, 101, &[0, 0, 0, 1, cmd::GETNB, 0xff]).unwrap();
    a.write_all(&bad).unwrap();
    assert!(
        closed_by_server(&mut a),
        "the malformed frame's connection is closed"
    );
    // An oversized frame header on another fresh connection.
    let mut c = dial(&addr);
    let mut hello = ClientHello::simple(me("v41bad", 0), euid(), egid());
    hello.pad = false;
    assert_eq!(handshake(&mut c, &hello).0, 0, "rank 0 may connect again");
    let huge = Header {
        pindex: 0,
        tag: 101,
        nbytes: u32::MAX,
    }
    .to_bytes();
    c.write_all(&huge).unwrap();
    assert!(closed_by_server(&mut c), "an oversized frame is refused");
    let who = Sender::new(me("v41bad", 1), euid(), cmds::PEER_UNKNOWN);
    let (_, job) = call(
        &mut b,
        &who,
        101,
        &Command::Req(Req::JobData {
            nspace: ns("v41bad"),
        }),
    );
    assert!(
        matches!(job, ReplyData::Job(_)),
        "the other connection still works"
    );
}

/// A credential from the `munge` command (optionally as another user, or with a time to
/// live), as OpenPMIx sends it: the text and its NUL.
fn munge_cli(prefix: &[&str], args: &[&str]) -> Vec<u8> {
    let mut argv: Vec<&str> = prefix.to_vec();
    argv.push("munge");
    argv.push("-n");
    argv.extend_from_slice(args);
    let out = std::process::Command::new(argv[0])
        .args(&argv[1..])
        .output()
        .expect("run munge");
    assert!(out.status.success(), "{argv:?}: {out:?}");
    let mut c = String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .as_bytes()
        .to_vec();
    c.push(0);
    c
}

/// Run by `make munge-check` (PMIX_TEST_MUNGED=1), which starts a private munged on the
/// default socket inside its own mount namespace; elsewhere there is no munged to ask.
#[test]
fn munge_credentials_are_checked_by_munged() {
    if std::env::var_os("PMIX_TEST_MUNGED").is_none() {
        eprintln!("skipped: needs the private munged of `make munge-check`");
        return;
    }
    let host = Arc::new(RecordingHost::default());
    let srv = util::server_with_job("v41-munge", "v41mu", 8, host);
    let addr = v41_addr(&srv, "v41mu");
    let env = srv.setup_fork(&me("v41mu", 0)).unwrap();
    assert!(
        env.iter()
            .any(|(k, v)| k == "PMIX_SECURITY_MODE" && v == "native,munge"),
        "munge offered to OpenPMIx children while munged runs"
    );
    let hello = |rank: u32, credential: Vec<u8>| ClientHello {
        psec: "munge".into(),
        credential,
        ..ClientHello::simple(me("v41mu", rank), euid(), egid())
    };
    let cred = pmix_core::sys::munge::encode().expect("munged answers");
    let mut ok = dial(&addr);
    assert_eq!(handshake(&mut ok, &hello(0, cred.clone())).0, 0, "accepted");
    let mut tampered = cred.clone();
    let mid = tampered.len() / 2;
    tampered[mid] = if tampered[mid] == b'A' { b'B' } else { b'A' };
    let expiring = munge_cli(&[], &["-t", "1"]);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("replayed", cred),
        ("tampered", tampered),
        ("not NUL-terminated", b"MUNGE:abc".to_vec()),
        (
            "of another uid",
            munge_cli(
                &[
                    "setpriv",
                    "--reuid=65534",
                    "--regid=65534",
                    "--clear-groups",
                ],
                &[],
            ),
        ),
    ];
    for (rank, (what, c)) in (1..).zip(cases) {
        let mut s = dial(&addr);
        let (st, _) = handshake(&mut s, &hello(rank, c));
        assert_eq!(st, sys::PMIX_ERR_INVALID_CRED, "{what}");
        assert!(closed_by_server(&mut s), "{what}: closed after the refusal");
    }
    std::thread::sleep(Duration::from_millis(2100));
    let mut s = dial(&addr);
    let (st, _) = handshake(&mut s, &hello(7, expiring));
    assert_eq!(st, sys::PMIX_ERR_INVALID_CRED, "expired");
}

/// Sends munged SIGCONT when dropped (a failed assertion must not leave it stopped).
struct Stopped(String);

impl Stopped {
    fn new(pid: String) -> Stopped {
        signal("-STOP", &pid);
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        signal("-CONT", &self.0);
    }
}

fn signal(sig: &str, pid: &str) {
    let st = std::process::Command::new("kill")
        .args([sig, pid])
        .status()
        .expect("run kill");
    assert!(st.success(), "kill {sig} {pid}");
}

/// Run by `make munge-check` (PMIX_TEST_MUNGED_PID, PMIX_RS_MUNGE_TIMEOUT=2): with munged
/// stopped, a munge connect is refused with PMIX_ERR_TIMEOUT at the deadline while a
/// native client connecting meanwhile is served at once (munged is asked off the
/// progress thread); once munged runs again, munge connects are accepted again.
#[test]
fn munge_credentials_a_hung_munged_fails_one_connect_only() {
    let Ok(pid) = std::env::var("PMIX_TEST_MUNGED_PID") else {
        eprintln!("skipped: needs the private munged of `make munge-check`");
        return;
    };
    let host = Arc::new(RecordingHost::default());
    let srv = util::server_with_job("v41-hung", "v41hung", 3, host);
    let addr = v41_addr(&srv, "v41hung");
    let hello = |rank: u32, credential: Vec<u8>| ClientHello {
        psec: "munge".into(),
        credential,
        ..ClientHello::simple(me("v41hung", rank), euid(), egid())
    };
    let cred = pmix_core::sys::munge::encode().expect("munged answers");
    let stopped = Stopped::new(pid);
    let t0 = std::time::Instant::now();
    let mut hung = dial(&addr);
    hung.write_all(&handshake::encode_client_hello(&hello(0, cred)).unwrap())
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let mut native = dial(&addr);
    let simple = ClientHello::simple(me("v41hung", 1), euid(), egid());
    assert_eq!(handshake(&mut native, &simple).0, 0, "native client served");
    let native_took = t0.elapsed();
    let mut st = [0u8; 4];
    hung.read_exact(&mut st).unwrap();
    let hung_took = t0.elapsed();
    assert_eq!(i32::from_be_bytes(st), sys::PMIX_ERR_TIMEOUT, "hung munged");
    assert!(closed_by_server(&mut hung), "closed after the refusal");
    assert!(
        native_took < Duration::from_millis(1500) && hung_took >= Duration::from_millis(1900),
        "native served in {native_took:?}, before the munge deadline ({hung_took:?})"
    );
    drop(stopped);
    let mut again = dial(&addr);
    let cred = pmix_core::sys::munge::encode().expect("munged answers again");
    assert_eq!(handshake(&mut again, &hello(2, cred)).0, 0, "munge again");
}

/// The names of this process's threads.
fn thread_names() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|s| s.trim().to_string())
        .collect()
}

#[test]
fn the_listener_is_served_by_the_progress_thread() {
    let host = Arc::new(RecordingHost::default());
    let srv = util::server_with_job("v41-thr", "v41thr", 1, host);
    let addr = v41_addr(&srv, "v41thr");
    let mut a = dial(&addr);
    let hello = ClientHello::simple(me("v41thr", 0), euid(), egid());
    assert_eq!(handshake(&mut a, &hello).0, 0);
    let names = thread_names();
    assert!(names.iter().any(|n| n == "pmix-progress"), "{names:?}");
    // (pmix-munge: the workers that ask munged, started by munge connects only.)
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("pmix-") && n != "pmix-progress" && n != "pmix-munge"),
        "no accept thread of its own: {names:?}"
    );
    srv.finalize();
    // Once the progress thread has dropped the listener, its port refuses connections.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(&addr).is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "{addr} still accepts after finalize"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
