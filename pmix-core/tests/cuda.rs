//! The CUDA communications object end to end in one process: a real server (or two,
//! joined by a test fabric host), real clients on threads, the real progress thread.

mod util;

use pmix_core::client::{Client, ClientConfig};
use pmix_core::cuda::{self, Finished, ObjectId, ReduceOp, RequestId};
use pmix_core::server::{Host, HostCall, HostDone, HostReply, Server, ServerConfig};
use pmix_core::store::keys;
use pmix_core::{protocol, ProcId, Value};
use pmix_sys as sys;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use util::*;

/// Poll a request until it completes (at most 10 s).
fn wait(obj: ObjectId, req: RequestId) -> Finished {
    let t0 = Instant::now();
    loop {
        if let Some(f) = cuda::test(obj, req).unwrap() {
            return f;
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "request hung");
        std::thread::yield_now();
    }
}

fn expected(op: ReduceOp, n: u32, count: usize) -> Vec<u64> {
    (0..count)
        .map(|i| {
            (0..n)
                .map(|r| value(r, i))
                .reduce(|a, b| op.apply(a, b))
                .unwrap()
        })
        .collect()
}

fn value(rank: u32, i: usize) -> u64 {
    (rank as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i as u64) << 3
}

#[test]
fn singleton_object_runs_every_operation_alone() {
    let c = Client::connect(ClientConfig::default()).unwrap();
    let obj = cuda::create(&c, vec![]).unwrap();
    cuda::resize(obj, 3).unwrap();
    cuda::resize(obj, 2).unwrap();
    assert_eq!(cuda::size(obj).unwrap(), 3);
    let b = cuda::barrier(obj, 2).unwrap();
    assert!(wait(obj, b).outcome.unwrap().is_empty());
    let r = cuda::allreduce(obj, 1, &[5, 6], ReduceOp::Max, 42).unwrap();
    let f = wait(obj, r);
    assert_eq!((f.outcome.unwrap(), f.sink), (vec![5, 6], 42));
    // A finished request is gone.
    assert_eq!(
        cuda::test(obj, r).unwrap_err().status,
        sys::PMIX_ERR_BAD_PARAM
    );
    assert_eq!(cuda::async_error(obj).unwrap(), 0);
    cuda::retain(obj).unwrap();
    cuda::release(obj).unwrap();
    cuda::release(obj).unwrap();
    assert_eq!(
        cuda::async_error(obj).unwrap_err().status,
        sys::PMIX_ERR_BAD_PARAM
    );
    c.finalize().unwrap();
}

#[test]
fn communicators_are_independent_and_results_are_right() {
    const N: u32 = 3;
    let server = Arc::new(server_with_job(
        "cuda",
        "job",
        N,
        Arc::new(RecordingHost::default()),
    ));
    let threads: Vec<_> = (0..N)
        .map(|rank| {
            let server = server.clone();
            std::thread::spawn(move || {
                let c = connect(&server, "job", rank).unwrap();
                let obj = cuda::create(&c, vec![]).unwrap();
                cuda::resize(obj, 3).unwrap();
                // Opposite orders on communicators 1 and 2, all outstanding at once.
                let mine: Vec<u64> = (0..10).map(|i| value(rank, i)).collect();
                // Communicator 1 sums 10 values, communicator 2 takes the minimum of one.
                let (first, second) = if rank % 2 == 0 { (1, 2) } else { (2, 1) };
                let issue = |comm| {
                    if comm == 1 {
                        cuda::allreduce(obj, 1, &mine, ReduceOp::Sum, 0).unwrap()
                    } else {
                        cuda::allreduce(obj, 2, &mine[..1], ReduceOp::Min, 0).unwrap()
                    }
                };
                let a = issue(first);
                let b = issue(second);
                // Many outstanding operations on communicator 0, collected with test_any.
                let mut reqs: Vec<Option<RequestId>> = (0..50)
                    .map(|i| {
                        Some(if i % 2 == 0 {
                            cuda::barrier(obj, 0).unwrap()
                        } else {
                            cuda::allreduce(obj, 0, &[rank as u64 + i], ReduceOp::BitXor, 0)
                                .unwrap()
                        })
                    })
                    .collect();
                let mut done = 0;
                let t0 = Instant::now();
                while done < reqs.len() {
                    if let Some((i, f)) = cuda::test_any(obj, &reqs).unwrap() {
                        let v = f.outcome.unwrap();
                        if i % 2 == 1 {
                            let want = (0..N as u64).fold(0, |x, r| x ^ (r + i as u64));
                            assert_eq!(v, vec![want]);
                        }
                        reqs[i] = None;
                        done += 1;
                    }
                    assert!(t0.elapsed() < Duration::from_secs(10));
                    std::thread::yield_now();
                }
                assert!(cuda::test_any(obj, &reqs).unwrap().is_none());
                let fa = wait(obj, a).outcome.unwrap();
                let fb = wait(obj, b).outcome.unwrap();
                let (sum, min) = if first == 1 { (fa, fb) } else { (fb, fa) };
                assert_eq!(sum, expected(ReduceOp::Sum, N, 10));
                assert_eq!(min, expected(ReduceOp::Min, N, 1));
                assert_eq!(cuda::async_error(obj).unwrap(), 0);
                cuda::release(obj).unwrap();
                c.finalize().unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// A member that speaks the wire by hand, so that the test can make it vanish: it
/// handshakes, enters the creation fences the real members enter (their tag format is
/// `pmixrs.cuda.<n>.create`), then its connection is dropped as when its process dies.
fn raw_member(server: &Server, rank: u32, creations: u32) -> std::os::unix::net::UnixStream {
    use std::io::{Read, Write};
    let path = pmix_core::client::parse_uri(&server.uri()).unwrap();
    let mut raw = std::os::unix::net::UnixStream::connect(&path).unwrap();
    let hello = protocol::Hello {
        version: protocol::VERSION,
        proc_: ProcId::new(ns("job"), rank),
        pid: 0,
        uid: 0,
        gid: 0,
        kind: pmix_core::protocol::PeerKind::Client,
    };
    let mut f = Vec::new();
    protocol::encode_frame_into(&protocol::encode(&hello), &mut f);
    for n in 1..=creations {
        let req = protocol::Request {
            tag: n,
            req: protocol::Req::Fence {
                procs: vec![ProcId::new(ns("job"), sys::PMIX_RANK_WILDCARD)],
                collect: false,
                timeout_ms: 0,
                info: vec![info(
                    protocol::FENCE_TAG,
                    Value::string(&format!("pmixrs.cuda.{}.create", n)),
                )],
            },
        };
        protocol::encode_frame_into(&protocol::encode(&req), &mut f);
    }
    raw.write_all(&f).unwrap();
    let mut buf = [0u8; 4];
    raw.read_exact(&mut buf).unwrap(); // the welcome arrived
    raw
}

/// Create one object on every client at once (creation is collective).
fn create_all(clients: &[Client]) -> Vec<ObjectId> {
    let ts: Vec<_> = clients
        .iter()
        .map(|c| {
            let c = c.clone();
            std::thread::spawn(move || cuda::create(&c, vec![]).unwrap())
        })
        .collect();
    ts.into_iter().map(|t| t.join().unwrap()).collect()
}

#[test]
fn a_member_dying_fails_the_barrier_and_sets_the_async_error() {
    let server = Arc::new(server_with_job(
        "cudadeath",
        "job",
        3,
        Arc::new(RecordingHost::default()),
    ));
    let victim = raw_member(&server, 2, 2);
    let clients: Vec<Client> = (0..2)
        .map(|r| connect(&server, "job", r).unwrap())
        .collect();
    let busy = create_all(&clients);
    // A second object with no operation pending learns of the death too (an event).
    let idle = create_all(&clients);
    let reqs: Vec<RequestId> = busy.iter().map(|&o| cuda::barrier(o, 0).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        cuda::test(busy[0], reqs[0]).unwrap().is_none(),
        "the victim has not entered the barrier"
    );
    drop(victim);
    for (&o, &r) in busy.iter().zip(&reqs) {
        let e = wait(o, r).outcome.unwrap_err();
        assert_eq!(e.status, sys::PMIX_ERR_PROC_TERM_WO_SYNC);
        assert_eq!(
            cuda::async_error(o).unwrap(),
            sys::PMIX_ERR_PROC_TERM_WO_SYNC
        );
    }
    let t0 = Instant::now();
    while idle.iter().any(|&o| cuda::async_error(o).unwrap() == 0) {
        assert!(t0.elapsed() < Duration::from_secs(5), "no death event");
        std::thread::sleep(Duration::from_millis(5));
    }
    // Later operations fail at once.
    let b = cuda::barrier(busy[0], 0).unwrap();
    assert!(wait(busy[0], b).outcome.is_err());
    for o in busy.into_iter().chain(idle) {
        cuda::release(o).unwrap();
    }
    for c in clients {
        c.finalize().unwrap();
    }
}

#[test]
fn released_object_lives_until_its_requests_complete() {
    let server = Arc::new(server_with_job(
        "cudarel",
        "job",
        2,
        Arc::new(RecordingHost::default()),
    ));
    let clients: Vec<Client> = (0..2)
        .map(|r| connect(&server, "job", r).unwrap())
        .collect();
    let objs = create_all(&clients);
    let (obj, obj1) = (objs[0], objs[1]);
    let r = cuda::barrier(obj, 0).unwrap();
    cuda::release(obj).unwrap();
    assert_eq!(
        cuda::test(obj, r).unwrap_err().status,
        sys::PMIX_ERR_BAD_PARAM,
        "the handle is gone at once"
    );
    // The peer's barrier still completes: our half was sent.
    let b = cuda::barrier(obj1, 0).unwrap();
    assert!(wait(obj1, b).outcome.is_ok());
    cuda::release(obj1).unwrap();
    for c in clients {
        c.finalize().unwrap();
    }
}

/// Joins two servers; a fence completes when both servers have called in with the same
/// participants *and* the same tag (a host must honour the tag, as this one does).
#[derive(Default)]
struct Fabric {
    pending: Mutex<HashMap<String, Vec<Contribution>>>,
}

/// One server's blob and how to hand it the result.
type Contribution = (Vec<u8>, HostDone<Vec<u8>>);

struct Node(Arc<Fabric>);

impl Host for Node {
    fn call(&self, call: HostCall) -> pmix_core::Result<HostReply> {
        let HostCall::Fence {
            procs,
            info,
            data,
            done,
        } = call
        else {
            return call.unsupported();
        };
        let tag = info
            .iter()
            .find(|i| i.key.as_str() == protocol::FENCE_TAG)
            .and_then(|i| i.value.as_str().map(str::to_string))
            .unwrap_or_default();
        let key = format!("{:?}/{}", procs, tag);
        let mut p = self.0.pending.lock().unwrap();
        let list = p.entry(key.clone()).or_default();
        list.push((data, done));
        if list.len() == 2 {
            let parts = p.remove(&key).unwrap();
            let all: Vec<u8> = parts.iter().flat_map(|(d, _)| d.clone()).collect();
            std::thread::spawn(move || {
                for (_, done) in parts {
                    done(Ok(all.clone()));
                }
            });
        }
        Ok(HostReply::Pending)
    }
}

#[test]
fn two_servers_opposite_orders_and_allreduce_through_the_host() {
    let fabric = Arc::new(Fabric::default());
    let servers: Vec<Arc<Server>> = (0..2u32)
        .map(|idx| {
            let s = Server::start(
                ServerConfig {
                    id: ProcId::new(ns(&format!("cnode{}", idx)), 0),
                    tmpdir: Some(tmpdir(&format!("cudamulti{}", idx))),
                    info: vec![],
                },
                Arc::new(Node(fabric.clone())),
            )
            .unwrap();
            s.register_nspace(
                &ns("job"),
                1,
                vec![
                    info(keys::JOB_SIZE, Value::Uint32(2)),
                    info(keys::LOCAL_PEERS, Value::string(&idx.to_string())),
                ],
            )
            .unwrap();
            s.register_client(&ProcId::new(ns("job"), idx), pmix_core::sys::euid(), 0)
                .unwrap();
            Arc::new(s)
        })
        .collect();
    let threads: Vec<_> = (0..2u32)
        .map(|rank| {
            let s = servers[rank as usize].clone();
            std::thread::spawn(move || {
                let c = connect(&s, "job", rank).unwrap();
                let obj = cuda::create(&c, vec![]).unwrap();
                cuda::resize(obj, 3).unwrap();
                let mine: Vec<u64> = (0..1000).map(|i| value(rank, i)).collect();
                let order = if rank == 0 { [1, 2] } else { [2, 1] };
                let reqs: Vec<(usize, RequestId)> = order
                    .iter()
                    .map(|&comm| {
                        let op = if comm == 1 {
                            ReduceOp::Max
                        } else {
                            ReduceOp::BitOr
                        };
                        (comm, cuda::allreduce(obj, comm, &mine, op, 0).unwrap())
                    })
                    .collect();
                let b = cuda::barrier(obj, 0).unwrap();
                for (comm, r) in reqs {
                    let op = if comm == 1 {
                        ReduceOp::Max
                    } else {
                        ReduceOp::BitOr
                    };
                    assert_eq!(wait(obj, r).outcome.unwrap(), expected(op, 2, 1000));
                }
                assert!(wait(obj, b).outcome.is_ok());
                cuda::release(obj).unwrap();
                c.finalize().unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert!(fabric.pending.lock().unwrap().is_empty());
}
