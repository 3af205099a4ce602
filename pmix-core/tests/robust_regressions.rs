//! Regressions found by the robustness work (fuzzing `fuzz/`, misuse tests). Each test is
//! named after the bug it pins. A test marked `#[ignore]` pins a bug that is still open;
//! run such tests with `cargo test -p pmix-core --test robust_regressions -- --ignored`,
//! and drop the `#[ignore]` with the fix (none is open now).

use pmix_core::protocol::{self, Hello, Req, Request, ServerMsg};
use pmix_core::server::state::{Action, ServerState, Upcall};
use pmix_core::{Info, Nspace, ProcId, Value};
use pmix_sys as sys;

const UID: u32 = 1000;

fn ns() -> Nspace {
    Nspace::new("job").unwrap()
}

/// Three local ranks of a six-rank job, each connected on connection `rank + 1`.
fn server() -> ServerState {
    let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
    s.register_nspace(
        &ns(),
        3,
        vec![
            Info::new("pmix.job.size", Value::Uint32(6)).unwrap(),
            Info::new("pmix.local.size", Value::Uint32(3)).unwrap(),
            Info::new("pmix.lpeers", Value::string("0,1,2")).unwrap(),
        ],
    );
    let mut out = Vec::new();
    for r in 0..3u32 {
        let p = ProcId::new(ns(), r);
        s.register_client(&p, UID).unwrap();
        s.connected(r as usize + 1, UID);
        let hello = Hello {
            version: protocol::VERSION,
            proc_: p,
            pid: 1,
            uid: UID,
            gid: UID,
            kind: pmix_core::protocol::PeerKind::Client,
        };
        let p = s
            .check_hello(r as usize + 1, &protocol::encode(&hello))
            .unwrap();
        s.accept(r as usize + 1, p, &mut out);
    }
    s
}

fn send(s: &mut ServerState, conn: usize, tag: u32, req: Req) -> Vec<Action> {
    let mut out = Vec::new();
    s.request(conn, &protocol::encode(&Request { tag, req }), &mut out)
        .unwrap();
    out
}

/// `PMIx_Finalize` from `conn`, with the host's answer to the finalize upcall.
fn finalize(s: &mut ServerState, conn: usize, tag: u32) -> Vec<Action> {
    let mut out = send(s, conn, tag, Req::Finalize);
    let asked: Vec<(usize, u32)> = out
        .iter()
        .filter_map(|a| match a {
            Action::Host(Upcall::Finalized { conn, tag, .. }) => Some((*conn, *tag)),
            _ => None,
        })
        .collect();
    for (c, t) in asked {
        s.finalize_done(c, t, &mut out);
    }
    out
}

/// The replies (tag, status) among some actions.
fn replies(out: &[Action]) -> Vec<(u32, i32)> {
    out.iter()
        .filter_map(|a| match a {
            Action::Send(_, b) => match protocol::decode::<ServerMsg>(b) {
                Ok(ServerMsg::Reply { tag, status, .. }) => Some((tag, status)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The fence of [`fence_with_finalized_participant_never_completes`]: ranks 0 and 2.
fn fence_0_2(s: &mut ServerState, conn: usize, tag: u32) -> Vec<Action> {
    send(
        s,
        conn,
        tag,
        Req::Fence {
            procs: vec![ProcId::new(ns(), 0), ProcId::new(ns(), 2)],
            collect: false,
            timeout_ms: 0,
            info: Vec::new(),
        },
    )
}

/// Found by the `server_session` fuzz target (F3): a fence naming a process that has
/// already finalized was accepted and waited forever - the caller hung unless it passed
/// `PMIX_TIMEOUT`, and the tracker outlived every participant.
///
/// As in OpenPMIx, a process that finalized stays an expected participant while it may
/// still call `PMIx_Init` again (MPI sessions cycle init/finalize; failing the fence then
/// would break them). It stops being one when the host deregisters it (pmixrun does when
/// it reaps the process): a fence already waiting for it fails then, and a later one at
/// once, with `PMIX_ERR_PROC_TERM_WO_SYNC`.
#[test]
fn fence_with_finalized_participant_never_completes() {
    let mut s = server();
    let rank2 = ProcId::new(ns(), 2);
    let out = finalize(&mut s, 3, 7); // rank 2 finalizes
    assert_eq!(replies(&out), vec![(7, sys::PMIX_SUCCESS)]);
    let mut out = Vec::new();
    s.closed(3, &mut out); // and leaves normally
                           // Rank 0 waits: rank 2 may still initialize again.
    assert_eq!(replies(&fence_0_2(&mut s, 1, 8)), vec![]);
    assert_eq!(s.pending_fences(), 1);
    // The host reaps rank 2: the fence fails now.
    let mut out = Vec::new();
    s.deregister_client(&rank2, &mut out);
    assert_eq!(
        replies(&out),
        vec![(8, sys::PMIX_ERR_PROC_TERM_WO_SYNC)],
        "rank 0 gets an error (pending fences {})",
        s.pending_fences()
    );
    assert_eq!(s.pending_fences(), 0);
    // A later fence naming rank 2 fails at once, and so does a wildcard one.
    let r = replies(&fence_0_2(&mut s, 1, 9));
    assert_eq!(r, vec![(9, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]);
    let r = replies(&send(
        &mut s,
        1,
        10,
        Req::Fence {
            procs: Vec::new(),
            collect: false,
            timeout_ms: 0,
            info: Vec::new(),
        },
    ));
    assert_eq!(r, vec![(10, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]);
    assert_eq!(s.pending_fences(), 0);
}

/// The rule above from the other side (OpenPMIx issue 4113): a participant that
/// finalized and initializes again completes the fence that waited for it.
#[test]
fn finalized_participant_that_initializes_again_completes_the_fence() {
    let mut s = server();
    let rank2 = ProcId::new(ns(), 2);
    finalize(&mut s, 3, 7);
    let mut out = Vec::new();
    s.closed(3, &mut out);
    assert_eq!(replies(&fence_0_2(&mut s, 1, 8)), vec![]);
    // Rank 2 connects again (PMIx_Init) on a new connection and enters the fence.
    s.connected(30, UID);
    let hello = Hello {
        version: protocol::VERSION,
        proc_: rank2.clone(),
        pid: 1,
        uid: UID,
        gid: UID,
        kind: protocol::PeerKind::Client,
    };
    let p = s.check_hello(30, &protocol::encode(&hello)).unwrap();
    s.accept(30, p, &mut out);
    let out = fence_0_2(&mut s, 30, 1);
    let mut r = replies(&out);
    r.sort();
    assert_eq!(r, vec![(1, sys::PMIX_SUCCESS), (8, sys::PMIX_SUCCESS)]);
}

/// Found by the `server_session` fuzz target (F4): requests from a client that already
/// finalized were served (a fence, a commit, ...) although the client promised to send
/// nothing more; with the bug above this left a fence that could never complete. They
/// are refused with `PMIX_ERR_INIT` (one-way ones dropped).
#[test]
fn requests_after_finalize_are_served() {
    let mut s = server();
    let out = finalize(&mut s, 1, 1);
    assert_eq!(replies(&out), vec![(1, sys::PMIX_SUCCESS)]);
    let out = send(&mut s, 1, 2, Req::JobData { nspace: ns() });
    let r = replies(&out);
    assert!(
        r.len() == 1 && r[0].1 != sys::PMIX_SUCCESS,
        "a finalized client is still served: {:?}",
        r
    );
    assert_eq!(r, vec![(2, sys::PMIX_ERR_INIT)]);
    // A fence from it starts nothing, and a commit (one-way) is dropped.
    let out = fence_0_2(&mut s, 1, 3);
    assert_eq!(replies(&out), vec![(3, sys::PMIX_ERR_INIT)]);
    assert_eq!(s.pending_fences(), 0);
    let out = send(&mut s, 1, 0, Req::Commit { puts: Vec::new() });
    assert!(out.is_empty());
}

/// A rank that vanishes while another waits for a key it never put: the waiter is told
/// `PMIX_ERR_LOST_CONNECTION` (as OpenPMIx tells requests parked on a lost peer); a
/// rank that finalized without putting it gives `PMIX_ERR_NOT_FOUND`.
#[test]
fn get_waiting_for_a_departed_target_ends() {
    for (finalizes, want) in [
        (false, sys::PMIX_ERR_LOST_CONNECTION),
        (true, sys::PMIX_ERR_NOT_FOUND),
    ] {
        let mut s = server();
        let get = Req::Get {
            target: ProcId::new(ns(), 2),
            key: Some(pmix_core::Key::new("never.put").unwrap()),
            immediate: false,
            timeout_ms: 0,
            info: Vec::new(),
        };
        assert_eq!(replies(&send(&mut s, 1, 5, get.clone())), vec![]);
        if finalizes {
            finalize(&mut s, 3, 1);
        }
        let mut out = Vec::new();
        s.closed(3, &mut out);
        assert_eq!(replies(&out), vec![(5, want)], "finalized: {finalizes}");
        // A later Get is answered at once.
        assert_eq!(replies(&send(&mut s, 1, 6, get)), vec![(6, want)]);
    }
}

/// A rank the host deregistered before it ever connected (it died before `PMIx_Init`):
/// fences naming it fail and Gets of its data end instead of waiting forever.
#[test]
fn deregistered_rank_that_never_connected_ends_collectives() {
    let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
    s.register_nspace(
        &ns(),
        2,
        vec![
            Info::new("pmix.job.size", Value::Uint32(2)).unwrap(),
            Info::new("pmix.local.size", Value::Uint32(2)).unwrap(),
            Info::new("pmix.lpeers", Value::string("0,1")).unwrap(),
        ],
    );
    let mut out = Vec::new();
    for r in 0..2u32 {
        s.register_client(&ProcId::new(ns(), r), UID).unwrap();
    }
    let p0 = ProcId::new(ns(), 0);
    s.connected(1, UID);
    let hello = Hello {
        version: protocol::VERSION,
        proc_: p0,
        pid: 1,
        uid: UID,
        gid: UID,
        kind: protocol::PeerKind::Client,
    };
    let p = s.check_hello(1, &protocol::encode(&hello)).unwrap();
    s.accept(1, p, &mut out);
    let wild = Req::Fence {
        procs: Vec::new(),
        collect: false,
        timeout_ms: 0,
        info: Vec::new(),
    };
    assert_eq!(replies(&send(&mut s, 1, 1, wild.clone())), vec![]);
    let get = Req::Get {
        target: ProcId::new(ns(), 1),
        key: Some(pmix_core::Key::new("never.put").unwrap()),
        immediate: false,
        timeout_ms: 0,
        info: Vec::new(),
    };
    assert_eq!(replies(&send(&mut s, 1, 2, get)), vec![]);
    let mut out = Vec::new();
    s.deregister_client(&ProcId::new(ns(), 1), &mut out);
    let mut r = replies(&out);
    r.sort();
    assert_eq!(
        r,
        vec![
            (1, sys::PMIX_ERR_PROC_TERM_WO_SYNC),
            (2, sys::PMIX_ERR_NOT_FOUND)
        ]
    );
    assert_eq!(
        replies(&send(&mut s, 1, 3, wild)),
        vec![(3, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]
    );
}

/// Found by the fault tests (K4, docs/ROBUSTNESS.md): a rank of another node died; the
/// host deregisters it here too. A fence already handed to the host fails, and fences
/// and connects naming it (or the whole job) fail at once instead of waiting for a rank
/// that will never arrive.
#[test]
fn a_remote_rank_the_host_deregisters_ends_collectives_here() {
    let mut s = server();
    let remote = ProcId::new(ns(), 4);
    let fence = |procs: Vec<ProcId>| Req::Fence {
        procs,
        collect: false,
        timeout_ms: 0,
        info: Vec::new(),
    };
    // {0,4}: rank 0 is the only local participant, so the host has the fence.
    let out = send(
        &mut s,
        1,
        1,
        fence(vec![ProcId::new(ns(), 0), remote.clone()]),
    );
    assert!(out
        .iter()
        .any(|a| matches!(a, Action::Host(Upcall::Fence { .. }))));
    let mut out = Vec::new();
    s.deregister_client(&remote, &mut out);
    assert_eq!(replies(&out), vec![(1, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]);
    assert_eq!(
        replies(&send(&mut s, 1, 2, fence(Vec::new()))),
        vec![(2, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]
    );
    let connect = Req::Dyn(pmix_core::protocol::dynamic::DynReq::Connect {
        procs: vec![ProcId::new(ns(), sys::PMIX_RANK_WILDCARD)],
        timeout_ms: 0,
        info: Vec::new(),
        endpoint: Vec::new(),
    });
    assert_eq!(
        replies(&send(&mut s, 1, 3, connect)),
        vec![(3, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]
    );
    // A fence of the local ranks still works.
    let local: Vec<ProcId> = (0..3).map(|r| ProcId::new(ns(), r)).collect();
    let mut r = Vec::new();
    for c in 1..=3u32 {
        r.extend(replies(&send(
            &mut s,
            c as usize,
            10 + c,
            fence(local.clone()),
        )));
    }
    r.sort();
    assert_eq!(
        r,
        vec![
            (11, sys::PMIX_SUCCESS),
            (12, sys::PMIX_SUCCESS),
            (13, sys::PMIX_SUCCESS)
        ]
    );
}
