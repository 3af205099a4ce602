//! A client engine and a server engine joined in memory, as quiche's `Pipe` joins a client
//! and a server connection: no socket, no listener. The test moves every frame itself:
//! the client's [`Link`] queues what the engine sends, the server state machine
//! ([`ServerState`]) takes it and answers with actions, and the answers go back through
//! [`Client::receive`]. It runs the handshake, Put/Commit, a fence of two clients and a
//! Get of a peer's key, and checks what each side saw.

use pmix_core::client::link::{hello_frame, Link};
use pmix_core::client::{Client, GetOpts};
use pmix_core::protocol::{self, PeerKind, Request};
use pmix_core::reactor::{ConnId, Ctx};
use pmix_core::server::state::{Action, ServerState, Upcall};
use pmix_core::store::keys;
use pmix_core::{Info, Key, Nspace, ProcId, Value};
use pmix_sys as sys;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The client's end of the pipe: frames the engine sent, not yet taken by the server.
#[derive(Default)]
struct MemLink {
    out: Mutex<VecDeque<Vec<u8>>>,
    closed: Mutex<bool>,
}

impl Link for MemLink {
    fn send(&self, body: &[u8]) -> pmix_core::Result<()> {
        self.out.lock().unwrap().push_back(body.to_vec());
        Ok(())
    }
    fn close(&self, _ctx: &mut Ctx) {
        *self.closed.lock().unwrap() = true;
    }
}

/// One client joined to the server on connection `conn`.
struct End {
    conn: ConnId,
    link: Arc<MemLink>,
    client: Client,
}

/// The server engine and its clients; the test is the wire between them.
struct Pipe {
    server: ServerState,
    ends: Vec<End>,
    /// The requests the server received, by kind, in order.
    seen: Vec<&'static str>,
}

fn ns() -> Nspace {
    Nspace::new("pipe-job").unwrap()
}

fn uid() -> u32 {
    pmix_core::sys::euid()
}

impl Pipe {
    /// A server with a job of `n` ranks on this node, each joined through the handshake.
    fn new(n: u32) -> Pipe {
        let mut server = ServerState::new(
            ProcId::new(Nspace::new("pipe-srv").unwrap(), 0),
            "pipehost".into(),
        );
        // No shared segments: their descriptors cannot travel through this pipe.
        server.set_segments(None);
        let peers: Vec<String> = (0..n).map(|r| r.to_string()).collect();
        let mut out = Vec::new();
        server.register_nspace(
            &ns(),
            n,
            vec![
                Info::new(keys::JOB_SIZE, Value::Uint32(n)).unwrap(),
                Info::new(keys::LOCAL_PEERS, Value::string(&peers.join(","))).unwrap(),
            ],
        );
        server.nspace_registered(&ns(), &mut out);
        let mut p = Pipe {
            server,
            ends: Vec::new(),
            seen: Vec::new(),
        };
        for r in 0..n {
            p.join(r);
        }
        p
    }

    /// The handshake of rank `r` on connection `r + 1`: its Hello to the server, the
    /// server's Welcome back, and a client engine made from it.
    fn join(&mut self, r: u32) {
        let me = ProcId::new(ns(), r);
        let conn = r as ConnId + 1;
        self.server.register_client(&me, uid()).unwrap();
        self.server.connected(conn, uid());
        let who = self
            .server
            .check_hello(conn, &hello_frame(&me, PeerKind::Client))
            .expect("the server accepts our Hello");
        let mut out = Vec::new();
        self.server.accept(conn, who, &mut out);
        let welcome = out
            .iter()
            .find_map(|a| match a {
                Action::Send(c, b) if *c == conn => Some(b.clone()),
                _ => None,
            })
            .expect("a Welcome");
        let link = Arc::new(MemLink::default());
        let client = Client::over_link(&me, PeerKind::Client, &welcome, link.clone())
            .expect("the client takes the Welcome");
        assert!(client.is_connected());
        self.ends.push(End { conn, link, client });
    }

    /// Move frames both ways until neither side has anything more to say.
    fn pump(&mut self) {
        loop {
            let mut moved = false;
            for i in 0..self.ends.len() {
                let (conn, frames) = {
                    let e = &self.ends[i];
                    (e.conn, std::mem::take(&mut *e.link.out.lock().unwrap()))
                };
                for f in frames {
                    moved = true;
                    if let Ok(r) = protocol::decode::<Request>(&f) {
                        self.seen.push(r.req.kind());
                    }
                    let mut out = Vec::new();
                    self.server.request(conn, &f, &mut out).unwrap();
                    self.deliver(out);
                }
            }
            if !moved {
                return;
            }
        }
    }

    /// Hand the server's frames to the clients they are for.
    fn deliver(&mut self, out: Vec<Action>) {
        for a in out {
            match a {
                Action::Send(c, body) | Action::SendFds(c, body, _) => {
                    if let Some(e) = self.ends.iter().find(|e| e.conn == c) {
                        e.client.receive(&body);
                    }
                }
                Action::Host(Upcall::Fence { .. }) => {
                    panic!("a fence of local ranks needs no host")
                }
                _ => {}
            }
        }
    }
}

/// A callback's result, for the test to look at once the pipe has been pumped.
type Slot<T> = Arc<Mutex<Option<pmix_core::Result<T>>>>;

fn slot<T>() -> Slot<T> {
    Arc::new(Mutex::new(None))
}

#[test]
fn handshake_put_commit_fence_get_through_an_in_memory_pipe() {
    let mut p = Pipe::new(2);
    let me0 = p.ends[0].client.proc_id().clone();
    let me1 = p.ends[1].client.proc_id().clone();
    assert_eq!(me0, ProcId::new(ns(), 0));

    // Job data came with the Welcome: answered locally, nothing sent.
    let wild = ProcId::new(ns(), sys::PMIX_RANK_WILDCARD);
    let size = p.ends[1]
        .client
        .get(
            Some(&wild),
            Some(&Key::new(keys::JOB_SIZE).unwrap()),
            &GetOpts::NONE,
        )
        .unwrap();
    assert_eq!(size.as_u64(), Some(2));
    assert!(p.ends[1].link.out.lock().unwrap().is_empty());

    // Put is local; Commit sends one frame.
    let k = Key::new("pipe.key").unwrap();
    p.ends[0]
        .client
        .put(sys::PMIX_GLOBAL, k.clone(), Value::Int(42))
        .unwrap();
    assert!(p.ends[0].link.out.lock().unwrap().is_empty());
    p.ends[0].client.commit().unwrap();
    assert_eq!(p.ends[0].link.out.lock().unwrap().len(), 1);

    // A fence of both: neither completes before both have arrived.
    let done: Vec<Slot<()>> = vec![slot(), slot()];
    for (i, d) in done.iter().enumerate() {
        let d = d.clone();
        p.ends[i]
            .client
            .fence_nb(vec![], &[], Box::new(move |r| *d.lock().unwrap() = Some(r)))
            .unwrap();
        if i == 0 {
            p.pump();
            assert!(
                done[0].lock().unwrap().is_none(),
                "fence done with one arrival"
            );
        }
    }
    p.pump();
    for d in &done {
        assert!(
            matches!(*d.lock().unwrap(), Some(Ok(()))),
            "both fences completed"
        );
    }

    // Rank 1 reads rank 0's key: one Get to the server, answered from its store.
    let got: Slot<Value> = slot();
    let g = got.clone();
    p.ends[1]
        .client
        .get_nb(
            Some(&me0),
            Some(&k),
            &GetOpts::NONE,
            Box::new(move |r| *g.lock().unwrap() = Some(r)),
        )
        .unwrap();
    p.pump();
    match got.lock().unwrap().take() {
        Some(Ok(v)) => assert_eq!(v, Value::Int(42)),
        other => panic!("Get of the peer's key: {:?}", other),
    }
    // Now cached: a second Get sends nothing.
    let again = p.ends[1]
        .client
        .get(Some(&me0), Some(&k), &GetOpts::NONE)
        .unwrap();
    assert_eq!(again, Value::Int(42));
    assert!(p.ends[1].link.out.lock().unwrap().is_empty());
    assert_eq!(p.seen, vec!["commit", "fence", "fence", "get"]);
    let _ = me1;

    // The link goes away: a request fails at once, and nothing is left waiting.
    p.ends[1].client.link_lost("test closed the pipe");
    assert!(!p.ends[1].client.is_connected());
    let e = p.ends[1]
        .client
        .get_nb(
            Some(&me0),
            Some(&Key::new("pipe.other").unwrap()),
            &GetOpts::NONE,
            Box::new(|_| {}),
        )
        .unwrap_err();
    assert_eq!(e.status, sys::PMIX_ERR_UNREACH);
}
