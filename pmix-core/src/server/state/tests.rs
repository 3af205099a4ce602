//! The server state machine driven directly, in memory: no sockets, no threads.
use super::fence::gather_blob;
use super::*;
use crate::protocol::{encode_blob, ProcBlob};
use crate::store::Entry;
use std::sync::{Arc, Mutex};

const UID: u32 = 1000;

fn ns() -> Nspace {
    Nspace::new("job").unwrap()
}
fn p(r: Rank) -> ProcId {
    ProcId::new(ns(), r)
}
fn wild() -> ProcId {
    p(sys::PMIX_RANK_WILDCARD)
}

/// A server with `size` ranks, of which `local` (0..local) live here and are connected
/// as connections 1..=local.
fn setup(size: u32, local: u32) -> ServerState {
    let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
    let peers: Vec<String> = (0..local).map(|r| r.to_string()).collect();
    s.register_nspace(
        &ns(),
        local,
        vec![
            Info::new(keys::JOB_SIZE, Value::Uint32(size)).unwrap(),
            Info::new(keys::LOCAL_PEERS, Value::string(&peers.join(","))).unwrap(),
        ],
    );
    for r in 0..local {
        connect_test_client(&mut s, &p(r), r as ConnId + 1, UID);
    }
    s
}

fn req(s: &mut ServerState, conn: ConnId, tag: u32, r: Req) -> Vec<Action> {
    let mut out = Vec::new();
    s.request(conn, &protocol::encode(&Request { tag, req: r }), &mut out)
        .unwrap();
    out
}

/// (conn, tag, status) of every reply among the actions.
fn replies(out: &[Action]) -> Vec<(ConnId, u32, i32)> {
    out.iter()
        .filter_map(|a| match sent(a) {
            Some((c, b)) => match protocol::decode::<ServerMsg>(&b) {
                Ok(ServerMsg::Reply { tag, status, .. }) => Some((c, tag, status)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The connection and whole frame body of a send (a shared one reassembled).
fn sent(a: &Action) -> Option<(ConnId, Vec<u8>)> {
    match a {
        Action::Send(c, b) => Some((*c, b.clone())),
        Action::SendShared(c, head, tail) => Some((*c, [&head[..], &tail[..]].concat())),
        _ => None,
    }
}

fn fence(procs: Vec<ProcId>, collect: bool) -> Req {
    Req::Fence {
        procs,
        collect,
        timeout_ms: 0,
        info: vec![],
    }
}

fn put(k: &str, scope: u8, v: i32) -> Put {
    Put {
        key: Key::new(k).unwrap(),
        scope,
        value: Value::Int(v),
    }
}

#[test]
fn all_local_fence_completes_at_the_last_arrival_and_sets_never_mix() {
    let mut s = setup(3, 3);
    assert!(replies(&req(&mut s, 1, 10, fence(vec![], false))).is_empty());
    // An explicit list naming all three is a different fence.
    assert!(replies(&req(&mut s, 2, 11, fence(vec![p(2), p(0), p(1)], false))).is_empty());
    assert!(replies(&req(&mut s, 2, 12, fence(vec![wild()], false))).is_empty());
    assert_eq!(s.pending_fences(), 2);
    let out = req(&mut s, 3, 13, fence(vec![], false));
    let mut r = replies(&out);
    r.sort();
    assert_eq!(r, vec![(1, 10, 0), (2, 12, 0), (3, 13, 0)]);
    assert_eq!(s.pending_fences(), 1);
    assert!(!out
        .iter()
        .any(|a| matches!(a, Action::Host(Upcall::Fence { .. }))));
}

/// The latest arrival is answered first (it is often still awake to read its reply;
/// OpenPMIx's server does the same, and OpenPMIx clients' fences were slower without it).
#[test]
fn a_local_fence_answers_its_latest_arrival_first() {
    for collect in [false, true] {
        let mut s = setup(3, 3);
        assert!(replies(&req(&mut s, 2, 20, fence(vec![], collect))).is_empty());
        assert!(replies(&req(&mut s, 3, 30, fence(vec![], collect))).is_empty());
        let order: Vec<ConnId> = replies(&req(&mut s, 1, 10, fence(vec![], collect)))
            .iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(order, vec![1, 3, 2], "collect {collect}");
    }
}

#[test]
fn not_a_member_and_collect_mismatch() {
    let mut s = setup(2, 2);
    assert_eq!(
        replies(&req(&mut s, 1, 1, fence(vec![p(1)], false))),
        vec![(1, 1, sys::PMIX_ERR_NOT_A_MEMBER)]
    );
    req(&mut s, 1, 2, fence(vec![], true));
    assert_eq!(
        replies(&req(&mut s, 2, 3, fence(vec![], false))),
        vec![(2, 3, sys::PMIX_ERR_BAD_PARAM)]
    );
}

#[test]
fn multi_node_fence_hands_the_host_one_blob_and_stores_the_others() {
    // Ranks 0 and 1 here, ranks 2 and 3 elsewhere.
    let mut s = setup(4, 2);
    for (conn, r) in [(1, 0), (2, 1)] {
        req(
            &mut s,
            conn,
            0,
            Req::Commit {
                puts: vec![put("g", sys::PMIX_GLOBAL, r), put("l", sys::PMIX_LOCAL, r)],
            },
        );
    }
    assert!(req(&mut s, 1, 5, fence(vec![], true)).is_empty());
    let out = req(&mut s, 2, 6, fence(vec![], true));
    let (id, data) = match out.as_slice() {
        [Action::Host(Upcall::Fence {
            id, data, procs, ..
        })] => {
            assert_eq!(procs, &vec![wild()]);
            (*id, data.clone())
        }
        _ => panic!("expected exactly one host fence"),
    };
    let ours = protocol::decode_blobs(&data).unwrap();
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].procs.len(), 2);
    // GLOBAL values travel; LOCAL keys travel only as markers without their value.
    assert!(ours[0].procs.iter().all(|pb| pb.entries.len() == 2
        && pb.entries[0].0.as_str() == "g"
        && pb.entries[1].1 == modex::marker(sys::PMIX_LOCAL)));
    // The host returns every server's blob, concatenated.
    let mut theirs = Blob::new(true);
    theirs.procs.push(ProcBlob::full(
        p(3),
        vec![(
            Key::new("g").unwrap(),
            Entry {
                scope: sys::PMIX_REMOTE,
                value: Value::Int(33),
            },
        )],
    ));
    let theirs = encode_blob(&theirs);
    let mut all = data.clone();
    all.extend(theirs);
    let mut out = Vec::new();
    s.fence_done(id, Ok(all), &mut out);
    let mut r = replies(&out);
    r.sort();
    assert_eq!(r, vec![(1, 5, 0), (2, 6, 0)]);
    // Rank 3's data is now in the store: an immediate Get finds it.
    let out = req(
        &mut s,
        1,
        7,
        Req::Get {
            target: p(3),
            key: Some(Key::new("g").unwrap()),
            immediate: true,
            timeout_ms: 0,
            info: vec![],
        },
    );
    assert_eq!(replies(&out), vec![(1, 7, 0)]);
    // A malformed completion fails the next fence for everyone with BAD_PARAM.
    req(&mut s, 1, 8, fence(vec![], true));
    let out = req(&mut s, 2, 9, fence(vec![], true));
    let Some(Action::Host(Upcall::Fence { id, .. })) = out.first() else {
        panic!("expected a host fence");
    };
    let mut out = Vec::new();
    s.fence_done(*id, Ok(vec![1, 2, 3]), &mut out);
    let mut r = replies(&out);
    r.sort();
    assert_eq!(
        r,
        vec![
            (1, 8, sys::PMIX_ERR_BAD_PARAM),
            (2, 9, sys::PMIX_ERR_BAD_PARAM)
        ]
    );
}

#[test]
fn get_parks_until_commit_or_timer() {
    let mut s = setup(2, 2);
    let get = |k: &str, timeout_ms| Req::Get {
        target: p(0),
        key: Some(Key::new(k).unwrap()),
        immediate: false,
        timeout_ms,
        info: vec![],
    };
    assert!(replies(&req(&mut s, 2, 1, get("x", 0))).is_empty());
    let out = req(&mut s, 2, 2, get("y", 500));
    let ev = out
        .iter()
        .find_map(|a| match a {
            Action::Timer(_, ev) => Some(*ev),
            _ => None,
        })
        .unwrap();
    let out = req(
        &mut s,
        1,
        0,
        Req::Commit {
            puts: vec![put("x", sys::PMIX_GLOBAL, 1)],
        },
    );
    assert_eq!(replies(&out), vec![(2, 1, 0)]);
    let mut out = Vec::new();
    s.timer(ev, &mut out);
    assert_eq!(replies(&out), vec![(2, 2, sys::PMIX_ERR_TIMEOUT)]);
}

#[test]
fn parked_requests_past_the_cap_are_refused_for_that_client_only() {
    let mut s = setup(3, 3);
    s.set_request_limits(budget::Limits {
        count: 2,
        bytes: 1 << 20,
    });
    let get = |k: &str| Req::Get {
        target: p(0),
        key: Some(Key::new(k).unwrap()),
        immediate: false,
        timeout_ms: 0,
        info: vec![],
    };
    assert!(replies(&req(&mut s, 2, 1, get("x"))).is_empty());
    assert!(replies(&req(&mut s, 2, 2, get("y"))).is_empty());
    assert_eq!(s.parked(2).0, 2);
    let refused = vec![(2, 3, sys::PMIX_ERR_OUT_OF_RESOURCE)];
    assert_eq!(replies(&req(&mut s, 2, 3, get("z"))), refused);
    // Another client parks as before; a fence (parked too) is refused for rank 1.
    assert!(replies(&req(&mut s, 3, 1, get("x"))).is_empty());
    let fence = fence(vec![wild()], false);
    assert_eq!(
        replies(&req(&mut s, 2, 4, fence)),
        vec![(2, 4, sys::PMIX_ERR_OUT_OF_RESOURCE)]
    );
    // Rank 0 commits x: both Gets of x are answered, rank 1 may park again.
    let commit = Req::Commit {
        puts: vec![put("x", sys::PMIX_GLOBAL, 1)],
    };
    assert_eq!(
        replies(&req(&mut s, 1, 0, commit)),
        vec![(2, 1, 0), (3, 1, 0)]
    );
    assert_eq!(s.parked(2).0, 1);
    assert_eq!(s.parked(3).0, 0);
    assert!(replies(&req(&mut s, 2, 5, get("w"))).is_empty());
    // Finalize is never refused.
    let out = req(&mut s, 2, 6, Req::Finalize);
    assert!(out
        .iter()
        .any(|a| matches!(a, Action::Host(Upcall::Finalized { tag: 6, .. }))));
    let mut out = Vec::new();
    s.closed(2, &mut out);
    assert_eq!(s.parked(2), (0, 0));
}

#[test]
fn a_later_participants_timeout_releases_everyone() {
    let mut s = setup(3, 3);
    assert!(req(&mut s, 1, 1, fence(vec![], false)).is_empty());
    let out = req(
        &mut s,
        2,
        2,
        Req::Fence {
            procs: vec![],
            collect: false,
            timeout_ms: 1000,
            info: vec![],
        },
    );
    let ev = out
        .iter()
        .find_map(|a| match a {
            Action::Timer(_, ev) => Some(*ev),
            _ => None,
        })
        .expect("the second arrival's timeout starts a timer");
    let mut out = Vec::new();
    s.timer(ev, &mut out);
    let mut r = replies(&out);
    r.sort();
    assert_eq!(
        r,
        vec![(1, 1, sys::PMIX_ERR_TIMEOUT), (2, 2, sys::PMIX_ERR_TIMEOUT)]
    );
    assert_eq!(s.pending_fences(), 0);
}

/// Regression: a client whose own wait timed out entered the next fence over the same
/// set while the server still held its first request, and counted twice.
#[test]
fn a_participant_arriving_again_counts_once() {
    let mut s = setup(2, 2);
    assert!(req(&mut s, 1, 1, fence(vec![], false)).is_empty());
    let out = req(&mut s, 1, 2, fence(vec![], false));
    assert_eq!(replies(&out), vec![(1, 1, sys::PMIX_ERR_TIMEOUT)]);
    assert_eq!(s.pending_fences(), 1, "one arrival of two: still waiting");
    let mut r = replies(&req(&mut s, 2, 3, fence(vec![], false)));
    r.sort();
    assert_eq!(r, vec![(1, 2, 0), (2, 3, 0)]);
}

#[test]
fn get_waits_for_a_namespace_to_be_registered() {
    let mut s = setup(1, 1);
    let later = Nspace::new("later").unwrap();
    let get = |rank, k: &str, immediate| Req::Get {
        target: ProcId::new(later.clone(), rank),
        key: Some(Key::new(k).unwrap()),
        immediate,
        timeout_ms: 0,
        info: vec![],
    };
    assert_eq!(
        replies(&req(&mut s, 1, 1, get(0, "x", true))),
        vec![(1, 1, sys::PMIX_ERR_NOT_FOUND)],
        "IMMEDIATE does not wait"
    );
    assert!(replies(&req(
        &mut s,
        1,
        2,
        get(sys::PMIX_RANK_WILDCARD, keys::JOB_SIZE, false)
    ))
    .is_empty());
    assert!(replies(&req(&mut s, 1, 3, get(0, "x", false))).is_empty());
    s.register_nspace(
        &later,
        0,
        vec![Info::new(keys::JOB_SIZE, Value::Uint32(5)).unwrap()],
    );
    let mut out = Vec::new();
    s.nspace_registered(&later, &mut out);
    assert_eq!(
        replies(&out),
        vec![(1, 2, 0)],
        "job data answers at registration"
    );
    // The rank's key is not published yet: that Get now waits for it as usual.
    assert_eq!(s.getters.len(), 1);
}

#[test]
fn resources_reach_every_job_and_their_retraction_reaches_clients() {
    let mut s = setup(2, 2);
    s.register_resources(vec![
        Info::new(keys::JOB_SIZE, Value::Uint32(99)).unwrap(),
        Info::new("cluster", Value::string("c1")).unwrap(),
    ]);
    let job = &s.nspaces[&ns()].job;
    assert_eq!(job.job_size(), Some(2), "the namespace's own value wins");
    assert_eq!(
        job.job_value("cluster", Level::Any, None).as_deref(),
        Some(&Value::string("c1")),
        "an existing job sees a new resource"
    );
    let later = Nspace::new("later").unwrap();
    s.register_nspace(&later, 0, vec![]);
    assert_eq!(
        s.nspaces[&later]
            .job
            .job_value("cluster", Level::Any, None)
            .as_deref(),
        Some(&Value::string("c1")),
        "a job registered later sees it"
    );
    let mut out = Vec::new();
    s.deregister_resources(vec![Info::new("cluster", Value::Undef).unwrap()], &mut out);
    assert!(s
        .nspaces
        .values()
        .all(|n| n.job.job_value("cluster", Level::Any, None).is_none()));
    let forgets = out
        .iter()
        .filter(|a| match a {
            Action::Send(_, b) => matches!(
                protocol::decode::<ServerMsg>(b),
                Ok(ServerMsg::Forget { proc_, key })
                    if proc_.rank == sys::PMIX_RANK_WILDCARD && key.as_str() == "cluster"
            ),
            _ => false,
        })
        .count();
    assert_eq!(forgets, 2, "both connected clients are told");
}

#[test]
fn lost_client_fails_its_fences_and_is_reported() {
    let mut s = setup(2, 2);
    req(&mut s, 1, 4, fence(vec![], false));
    let mut out = Vec::new();
    s.closed(2, &mut out);
    assert!(out
        .iter()
        .any(|a| matches!(a, Action::Host(Upcall::Lost(q)) if q == &p(1))));
    assert_eq!(replies(&out), vec![(1, 4, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]);
    assert_eq!(
        replies(&req(&mut s, 1, 5, fence(vec![p(0), p(1)], false))),
        vec![(1, 5, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]
    );
}

/// Regression: Open MPI's mpirun (np 32) called a rank "exited improperly" because the
/// client was released from PMIx_Finalize before the host had recorded the finalize.
#[test]
fn finalize_is_acknowledged_only_after_the_host() {
    let mut s = setup(1, 1);
    let out = req(&mut s, 1, 3, Req::Finalize);
    assert!(replies(&out).is_empty(), "no reply before the host answers");
    let Some(Action::Host(Upcall::Finalized { conn, tag, proc_ })) = out.first() else {
        panic!("expected the host upcall");
    };
    assert_eq!((*conn, *tag, proc_.clone()), (1, 3, p(0)));
    let mut out = Vec::new();
    s.finalize_done(1, 3, &mut out);
    assert_eq!(replies(&out), vec![(1, 3, 0)]);
}

#[test]
fn handshake_checks() {
    let mut s = setup(2, 0);
    s.register_client(&p(0), UID).unwrap();
    let hello = |r, version| {
        protocol::encode(&Hello {
            version,
            proc_: p(r),
            pid: 1,
            uid: UID,
            gid: 0,
            kind: protocol::PeerKind::Client,
        })
    };
    s.connected(1, UID + 1);
    assert_eq!(
        s.check_hello(1, &hello(0, protocol::VERSION))
            .unwrap_err()
            .status,
        sys::PMIX_ERR_INVALID_CRED
    );
    s.connected(2, UID);
    assert_eq!(
        s.check_hello(2, &hello(1, protocol::VERSION))
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    assert_eq!(
        s.check_hello(2, &hello(0, 99)).unwrap_err().status,
        sys::PMIX_ERR_NOT_SUPPORTED
    );
    assert!(s.check_hello(2, b"garbage").is_err());
    assert!(s.check_hello(2, &hello(0, protocol::VERSION)).is_ok());
}

/// Regression: repeated PMIx_Init after PMIx_Finalize failed with PMIX_ERR_EXISTS when
/// the new connection's handshake was handled before the old connection's close.
#[test]
fn reinit_races_the_old_connections_close() {
    let mut s = setup(2, 2);
    // Rank 0 (conn 1) finalizes; its socket close has not been seen yet.
    req(&mut s, 1, 5, Req::Finalize);
    s.connected(9, UID);
    let hello = protocol::encode(&Hello {
        version: protocol::VERSION,
        proc_: p(0),
        pid: 1,
        uid: UID,
        gid: 0,
        kind: protocol::PeerKind::Client,
    });
    let who = s
        .check_hello(9, &hello)
        .expect("a finalized connection must not block re-init");
    let mut out = Vec::new();
    s.accept(9, who, &mut out);
    // The old connection's close now arrives: rank 0 is not gone and stays connected.
    let mut out = Vec::new();
    s.closed(1, &mut out);
    assert!(s.is_client(9));
    s.connected(10, UID);
    assert_eq!(
        s.check_hello(10, &hello).unwrap_err().status,
        sys::PMIX_ERR_EXISTS,
        "a live connection still blocks a second one"
    );
}

/// Direct modex per (process, key): an answer without the key a Get waits for ends
/// that Get only if it was that Get's own request.
#[test]
fn direct_modex_is_per_process_and_key() {
    let mut s = setup(4, 2);
    let get = |k: &str| Req::Get {
        target: p(2),
        key: Some(Key::new(k).unwrap()),
        immediate: false,
        timeout_ms: 0,
        info: vec![],
    };
    let asked = |out: &[Action]| -> Vec<Option<String>> {
        out.iter()
            .filter_map(|a| match a {
                Action::Host(Upcall::Dmodex { key, .. }) => {
                    Some(key.as_ref().map(|k| k.to_string()))
                }
                _ => None,
            })
            .collect()
    };
    assert_eq!(asked(&req(&mut s, 1, 1, get("a"))), vec![Some("a".into())]);
    assert_eq!(asked(&req(&mut s, 2, 2, get("b"))), vec![Some("b".into())]);
    // The same process and key again: no second request.
    assert!(asked(&req(&mut s, 2, 3, get("a"))).is_empty());
    let answer = |keys: &[&str]| {
        let mut b = Blob::new(true);
        b.procs.push(ProcBlob::full(
            p(2),
            keys.iter()
                .map(|k| {
                    (
                        Key::new(*k).unwrap(),
                        Entry {
                            scope: sys::PMIX_GLOBAL,
                            value: Value::Int(1),
                        },
                    )
                })
                .collect(),
        ));
        encode_blob(&b)
    };
    let mut out = Vec::new();
    let a = Key::new("a").unwrap();
    s.dmodex_done(&p(2), Some(&a), Ok(answer(&["a"])), &mut out);
    let mut r = replies(&out);
    r.sort();
    assert_eq!(
        r,
        vec![(1, 1, 0), (2, 3, 0)],
        "b keeps waiting for its own request"
    );
    let mut out = Vec::new();
    let b = Key::new("b").unwrap();
    s.dmodex_done(&p(2), Some(&b), Ok(answer(&["a"])), &mut out);
    assert_eq!(replies(&out), vec![(2, 2, sys::PMIX_ERR_NOT_FOUND)]);
}

#[test]
fn dmodex_request_waits_for_the_commit() {
    let mut s = setup(2, 2);
    let got: Arc<Mutex<Option<Result<Vec<u8>>>>> = Arc::new(Mutex::new(None));
    let g = got.clone();
    let mut out = Vec::new();
    s.dmodex_request(
        &p(1),
        Box::new(move |r| *g.lock().unwrap() = Some(r)),
        &mut out,
    );
    assert!(out.is_empty());
    let out = req(
        &mut s,
        2,
        0,
        Req::Commit {
            puts: vec![put("r", sys::PMIX_REMOTE, 7), put("l", sys::PMIX_LOCAL, 8)],
        },
    );
    for a in out {
        if let Action::AnswerDmodex(done, r) = a {
            done(r);
        }
    }
    let blob = got.lock().unwrap().take().unwrap().unwrap();
    let b = protocol::decode_blobs(&blob).unwrap();
    assert_eq!(b[0].procs[0].proc_, p(1));
    let e = &b[0].procs[0].entries;
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].0.as_str(), "l");
    assert_eq!(
        e[0].1,
        modex::marker(sys::PMIX_LOCAL),
        "a LOCAL value never leaves the node, only its key"
    );
    assert_eq!(e[1].1.value, Value::Int(7));
}

/// Regression (multi-node Open MPI): another node's direct-modex request can reach us
/// before our host has registered the job; it waits for the commit instead of failing.
#[test]
fn dmodex_request_before_the_job_is_registered_waits() {
    let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
    let got: Arc<Mutex<Option<Result<Vec<u8>>>>> = Arc::new(Mutex::new(None));
    let g = got.clone();
    let mut out = Vec::new();
    s.dmodex_request(
        &p(0),
        Box::new(move |r| *g.lock().unwrap() = Some(r)),
        &mut out,
    );
    assert!(out.is_empty(), "parked, not answered");
    s.register_nspace(
        &ns(),
        1,
        vec![
            Info::new(keys::JOB_SIZE, Value::Uint32(2)).unwrap(),
            Info::new(keys::LOCAL_PEERS, Value::string("0")).unwrap(),
        ],
    );
    s.register_client(&p(0), UID).unwrap();
    s.connected(1, UID);
    let hello = protocol::encode(&Hello {
        version: protocol::VERSION,
        proc_: p(0),
        pid: 1,
        uid: UID,
        gid: 0,
        kind: protocol::PeerKind::Client,
    });
    let who = s.check_hello(1, &hello).unwrap();
    s.accept(1, who, &mut out);
    let out = req(
        &mut s,
        1,
        0,
        Req::Commit {
            puts: vec![put("r", sys::PMIX_GLOBAL, 7)],
        },
    );
    for a in out {
        if let Action::AnswerDmodex(done, r) = a {
            done(r);
        }
    }
    let blob = got.lock().unwrap().take().expect("answered").unwrap();
    let b = protocol::decode_blobs(&blob).unwrap();
    assert_eq!(b[0].procs[0].proc_, p(0));
    assert_eq!(b[0].procs[0].entries.len(), 1);
}

#[test]
fn parked_dmodex_request_fails_when_the_job_is_deregistered() {
    let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
    let mut out = Vec::new();
    s.dmodex_request(&p(0), Box::new(|_| {}), &mut out);
    assert!(out.is_empty());
    s.register_nspace(&ns(), 1, vec![]);
    s.deregister_nspace(&ns(), &mut out);
    let st: Vec<i32> = out
        .into_iter()
        .filter_map(|a| match a {
            Action::AnswerDmodex(_, r) => Some(r.err().map(|e| e.status).unwrap_or(0)),
            _ => None,
        })
        .collect();
    assert_eq!(st, vec![sys::PMIX_ERR_NOT_FOUND]);
}

fn tagged(procs: Vec<ProcId>, tag: &str) -> Req {
    Req::Fence {
        procs,
        collect: false,
        timeout_ms: 0,
        info: vec![Info::new(protocol::FENCE_TAG, Value::string(tag)).unwrap()],
    }
}

fn gather(tag: &str, data: &[u8]) -> Req {
    Req::Allgather {
        procs: vec![],
        timeout_ms: 0,
        info: vec![Info::new(protocol::FENCE_TAG, Value::string(tag)).unwrap()],
        data: data.to_vec(),
    }
}

/// (conn, tag, status, contributions) of every gathered reply among the actions.
fn gathers(out: &[Action]) -> Vec<(ConnId, u32, i32, Vec<Contribution>)> {
    out.iter()
        .filter_map(|a| match sent(a) {
            Some((c, b)) => match protocol::decode::<ServerMsg>(&b) {
                Ok(ServerMsg::Reply { tag, status, data }) => Some((
                    c,
                    tag,
                    status,
                    match data {
                        ReplyData::Gathered(v) => v,
                        _ => vec![],
                    },
                )),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[test]
fn fence_tags_keep_fences_over_the_same_participants_apart() {
    let mut s = setup(2, 2);
    // Rank 0 enters "a" then "b"; rank 1 enters "b" then "a". Untagged, the first two
    // arrivals would have completed each other.
    assert!(replies(&req(&mut s, 1, 1, tagged(vec![], "a"))).is_empty());
    assert!(replies(&req(&mut s, 1, 2, tagged(vec![], "b"))).is_empty());
    assert!(replies(&req(&mut s, 2, 3, fence(vec![], false))).is_empty());
    assert_eq!(s.pending_fences(), 3, "a, b and the untagged fence");
    let mut r = replies(&req(&mut s, 2, 4, tagged(vec![], "b")));
    r.sort();
    assert_eq!(r, vec![(1, 2, 0), (2, 4, 0)]);
    let mut r = replies(&req(&mut s, 2, 5, tagged(vec![], "a")));
    r.sort();
    assert_eq!(r, vec![(1, 1, 0), (2, 5, 0)]);
    // The untagged fence is still waiting for rank 0's untagged arrival.
    let mut r = replies(&req(&mut s, 1, 6, fence(vec![], false)));
    r.sort();
    assert_eq!(r, vec![(1, 6, 0), (2, 3, 0)]);
    assert_eq!(s.pending_fences(), 0);
}

#[test]
fn allgather_hands_everyone_every_contribution_sorted() {
    let mut s = setup(3, 3);
    assert!(replies(&req(&mut s, 3, 1, gather("g", b"two"))).is_empty());
    assert!(replies(&req(&mut s, 1, 2, gather("g", b"zero"))).is_empty());
    let mut g = gathers(&req(&mut s, 2, 3, gather("g", b"")));
    g.sort_by_key(|x| x.0);
    assert_eq!(g.len(), 3);
    for (_, _, status, all) in &g {
        assert_eq!(*status, 0);
        let got: Vec<(u32, &[u8])> = all
            .iter()
            .map(|c| (c.proc_.rank, c.data.as_slice()))
            .collect();
        assert_eq!(
            got,
            vec![(0, &b"zero"[..]), (1, &b""[..]), (2, &b"two"[..])]
        );
    }
    // An allgather and a plain fence with the same key do not mix.
    req(&mut s, 1, 4, gather("h", b"x"));
    assert_eq!(
        replies(&req(&mut s, 2, 5, tagged(vec![], "h"))),
        vec![(2, 5, sys::PMIX_ERR_BAD_PARAM)]
    );
}

#[test]
fn multi_server_allgather_rides_the_host_blob() {
    // Ranks 0 and 1 here, rank 2 elsewhere.
    let mut s = setup(3, 2);
    req(&mut s, 1, 1, gather("g", &[0]));
    let out = req(&mut s, 2, 2, gather("g", &[1]));
    let (id, data, info) = match out.as_slice() {
        [Action::Host(Upcall::Fence { id, data, info, .. })] => (*id, data.clone(), info.clone()),
        _ => panic!("expected one host fence"),
    };
    assert!(
        info.iter().any(|i| i.key.as_str() == protocol::FENCE_TAG),
        "the host sees the tag"
    );
    let theirs = gather_blob(&[Arrival {
        conn: 0,
        tag: 0,
        contrib: Some(Contribution {
            proc_: p(2),
            data: vec![2],
        }),
    }]);
    let mut all = theirs;
    all.extend(data);
    let mut out = Vec::new();
    s.fence_done(id, Ok(all), &mut out);
    let g = gathers(&out);
    assert_eq!(g.len(), 2);
    for (_, _, status, all) in g {
        assert_eq!(status, 0);
        let got: Vec<(u32, Vec<u8>)> = all.into_iter().map(|c| (c.proc_.rank, c.data)).collect();
        assert_eq!(got, vec![(0, vec![0]), (1, vec![1]), (2, vec![2])]);
    }
    // Nothing of it landed in the key-value store.
    assert!(!s.has_key(&p(2), Some(&Key::new(protocol::GATHER_KEY).unwrap())));
}

#[test]
fn lost_client_fails_tagged_fences_and_tells_its_peers() {
    let mut s = setup(3, 3);
    req(&mut s, 1, 7, gather("g", b"a"));
    req(&mut s, 2, 8, tagged(vec![], "t"));
    let mut out = Vec::new();
    s.closed(3, &mut out);
    let mut r = replies(&out);
    r.sort();
    assert_eq!(
        r,
        vec![
            (1, 7, sys::PMIX_ERR_PROC_TERM_WO_SYNC),
            (2, 8, sys::PMIX_ERR_PROC_TERM_WO_SYNC)
        ]
    );
    let mut told: Vec<ConnId> = out
        .iter()
        .filter_map(|a| match a {
            Action::Send(c, b) => match protocol::decode::<ServerMsg>(b) {
                Ok(ServerMsg::Event { status, source, .. })
                    if status == sys::PMIX_ERR_PROC_TERM_WO_SYNC && source == p(2) =>
                {
                    Some(*c)
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    told.sort();
    assert_eq!(told, vec![1, 2]);
    // A finalized client leaving is not news.
    req(&mut s, 2, 9, Req::Finalize);
    let mut out = Vec::new();
    s.closed(2, &mut out);
    assert!(!out.iter().any(|a| matches!(a, Action::Send(..))));
}

/// The data a fence reply carries ([`ReplyData::Collected`] or none), per connection.
fn fence_data(out: &[Action]) -> Vec<(ConnId, bool)> {
    let mut v: Vec<(ConnId, bool)> = out
        .iter()
        .filter_map(|a| {
            let (c, b) = sent(a)?;
            match protocol::decode::<ServerMsg>(&b).ok()? {
                ServerMsg::Reply { data, .. } => Some((c, matches!(data, ReplyData::Collected(_)))),
                _ => None,
            }
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_collecting_fence_of_status_only_waiters_builds_no_collected_data() {
    let mut s = setup(2, 2);
    s.status_only_fence(1);
    s.status_only_fence(2);
    let round = |s: &mut ServerState, v: i32| {
        for c in [1, 2] {
            let commit = Req::Commit {
                puts: vec![put("k", sys::PMIX_GLOBAL, v)],
            };
            req(s, c, 0, commit);
        }
        assert!(req(s, 1, 1, fence(vec![], true)).is_empty());
        req(s, 2, 1, fence(vec![], true))
    };
    // Both waiters are OpenPMIx clients: the status alone for each.
    assert_eq!(fence_data(&round(&mut s, 1)), vec![(1, false), (2, false)]);
    // Connection 2 reads collected data from now on (as one of ours would); only rank
    // 1 has new data, yet the reply carries rank 0's too: nothing was sent to this set
    // before.
    s.status_only_fence.remove(&2);
    let commit = Req::Commit {
        puts: vec![put("k", sys::PMIX_GLOBAL, 2)],
    };
    req(&mut s, 2, 0, commit);
    assert!(req(&mut s, 2, 2, fence(vec![], true)).is_empty());
    let out = req(&mut s, 1, 2, fence(vec![], true));
    assert_eq!(fence_data(&out), vec![(1, true), (2, true)]);
    let (_, b) = out
        .iter()
        .find_map(|a| sent(a).filter(|(c, _)| *c == 2))
        .unwrap();
    let Ok(ServerMsg::Reply {
        data: ReplyData::Collected(payload),
        ..
    }) = protocol::decode::<ServerMsg>(&b)
    else {
        panic!("no collected data for our client");
    };
    let (_, idx) = protocol::collected_index(&payload).unwrap();
    let got: Vec<Rank> = idx.iter().map(|e| e.proc_.rank).collect();
    assert_eq!(got, vec![0, 1], "both ranks' data, rank 0's too");
}
