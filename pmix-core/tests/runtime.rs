//! End to end in one process: a real server on a Unix socket, real clients on threads,
//! the real progress thread.

mod util;

use pmix_core::client::GetOpts;
use pmix_core::store::keys;
use pmix_core::{Key, ProcId, Value};
use pmix_sys as sys;
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};
use util::*;

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

#[test]
fn init_put_commit_fence_get_between_two_clients() {
    let host = Arc::new(RecordingHost::default());
    let server = server_with_job("e2e", "job", 2, host.clone());
    let server = Arc::new(server);
    let mut threads = Vec::new();
    for rank in 0..2u32 {
        let server = server.clone();
        threads.push(std::thread::spawn(move || {
            let c = connect(&server, "job", rank).unwrap();
            c.put(
                sys::PMIX_GLOBAL,
                key("test.val"),
                Value::Uint64(100 + rank as u64),
            )
            .unwrap();
            c.put(
                sys::PMIX_LOCAL,
                key("test.str"),
                Value::string(&format!("r{}", rank)),
            )
            .unwrap();
            c.commit().unwrap();
            let collect = vec![info(keys::COLLECT_DATA, Value::Bool(true))];
            c.fence(vec![], &collect).unwrap();
            let peer = ProcId::new(ns("job"), 1 - rank);
            let opts = GetOpts::default();
            assert_eq!(
                c.get(Some(&peer), Some(&key("test.val")), &opts).unwrap(),
                Value::Uint64(100 + (1 - rank) as u64)
            );
            assert_eq!(
                c.get(Some(&peer), Some(&key("test.str")), &opts).unwrap(),
                Value::string(&format!("r{}", 1 - rank))
            );
            // Job data comes from the handshake, with the host's types.
            let wild = ProcId::new(ns("job"), sys::PMIX_RANK_WILDCARD);
            assert_eq!(
                c.get(Some(&wild), Some(&key(keys::JOB_SIZE)), &opts)
                    .unwrap(),
                Value::Uint32(2)
            );
            assert_eq!(
                c.get(Some(&wild), Some(&key("test.custom")), &opts)
                    .unwrap(),
                Value::Int16(-7)
            );
            assert_eq!(
                c.get(Some(&peer), Some(&key(keys::LOCAL_RANK)), &opts)
                    .unwrap(),
                Value::Uint16((1 - rank) as u16)
            );
            // Self-referential keys.
            let invalid = ProcId::new(ns("job"), sys::PMIX_RANK_INVALID);
            assert_eq!(
                c.get(Some(&invalid), Some(&key(keys::RANK)), &opts)
                    .unwrap(),
                Value::Rank(rank)
            );
            assert_eq!(
                c.get(None, Some(&key(keys::PROCID)), &opts).unwrap(),
                Value::Proc(Some(ProcId::new(ns("job"), rank)))
            );
            assert_eq!(
                c.get(Some(&peer), Some(&key(keys::RANK)), &opts)
                    .unwrap_err()
                    .status,
                sys::PMIX_ERR_NOT_FOUND
            );
            c.fence(vec![], &[]).unwrap();
            c.finalize().unwrap();
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    let ev = host.events.lock().unwrap().clone();
    assert_eq!(
        ev.iter().filter(|e| e.starts_with("finalized")).count(),
        2,
        "{:?}",
        ev
    );
}

#[test]
fn get_waits_until_the_target_commits_and_times_out_otherwise() {
    let server = Arc::new(server_with_job(
        "wait",
        "job",
        2,
        Arc::new(RecordingHost::default()),
    ));
    let c0 = connect(&server, "job", 0).unwrap();
    let c1 = connect(&server, "job", 1).unwrap();
    let p0 = ProcId::new(ns("job"), 0);
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        c0.put(sys::PMIX_GLOBAL, key("late"), Value::Int(5))
            .unwrap();
        c0.commit().unwrap();
        c0
    });
    let t0 = Instant::now();
    assert_eq!(
        c1.get(Some(&p0), Some(&key("late")), &GetOpts::default())
            .unwrap(),
        Value::Int(5)
    );
    assert!(t0.elapsed() >= Duration::from_millis(250));
    let c0 = t.join().unwrap();
    // Never published: OPTIONAL and IMMEDIATE answer at once, PMIX_TIMEOUT bounds the wait.
    let opt = GetOpts::from_info(&[info(keys::OPTIONAL, Value::Bool(true))]);
    assert_eq!(
        c1.get(Some(&p0), Some(&key("never")), &opt)
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    let imm = GetOpts::from_info(&[info(keys::IMMEDIATE, Value::Bool(true))]);
    assert_eq!(
        c1.get(Some(&p0), Some(&key("never")), &imm)
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    let to = GetOpts::from_info(&[info(keys::TIMEOUT, Value::Int(1))]);
    let t0 = Instant::now();
    assert_eq!(
        c1.get(Some(&p0), Some(&key("never")), &to)
            .unwrap_err()
            .status,
        sys::PMIX_ERR_TIMEOUT
    );
    assert!(t0.elapsed() < Duration::from_secs(3));
    // A REMOTE-scope key exists, but not for a peer on the same node.
    c0.put(sys::PMIX_REMOTE, key("far"), Value::Int(1)).unwrap();
    c0.put(sys::PMIX_LOCAL, key("near"), Value::Int(2)).unwrap();
    c0.commit().unwrap();
    assert_eq!(
        c1.get(Some(&p0), Some(&key("near")), &GetOpts::default())
            .unwrap(),
        Value::Int(2)
    );
    assert_eq!(
        c1.get(Some(&p0), Some(&key("far")), &GetOpts::default())
            .unwrap_err()
            .status,
        sys::PMIX_ERR_EXISTS_OUTSIDE_SCOPE
    );
    c0.finalize().unwrap();
    c1.finalize().unwrap();
}

#[test]
fn cached_values_are_not_refreshed_by_a_fence_but_by_refresh_cache() {
    let server = Arc::new(server_with_job(
        "cache",
        "job",
        2,
        Arc::new(RecordingHost::default()),
    ));
    let c0 = connect(&server, "job", 0).unwrap();
    let c1 = connect(&server, "job", 1).unwrap();
    let p0 = ProcId::new(ns("job"), 0);
    c0.put(sys::PMIX_GLOBAL, key("v"), Value::Int(1)).unwrap();
    c0.commit().unwrap();
    let opts = GetOpts::default();
    assert_eq!(
        c1.get(Some(&p0), Some(&key("v")), &opts).unwrap(),
        Value::Int(1)
    );
    c0.put(sys::PMIX_GLOBAL, key("v"), Value::Int(2)).unwrap();
    c0.commit().unwrap();
    let collect = vec![info(keys::COLLECT_DATA, Value::Bool(true))];
    let s0 = std::thread::spawn({
        let c0 = c0.clone();
        let collect = collect.clone();
        move || c0.fence(vec![], &collect)
    });
    c1.fence(vec![], &collect).unwrap();
    s0.join().unwrap().unwrap();
    assert_eq!(
        c1.get(Some(&p0), Some(&key("v")), &opts).unwrap(),
        Value::Int(1)
    );
    let refresh = GetOpts::from_info(&[info(keys::GET_REFRESH_CACHE, Value::Bool(true))]);
    assert_eq!(
        c1.get(Some(&p0), Some(&key("v")), &refresh).unwrap(),
        Value::Int(2)
    );
    c0.finalize().unwrap();
    c1.finalize().unwrap();
}

#[test]
fn fence_membership_subsets_and_wildcard_never_matching_a_list() {
    let server = Arc::new(server_with_job(
        "subset",
        "job",
        3,
        Arc::new(RecordingHost::default()),
    ));
    let c: Vec<_> = (0..3)
        .map(|r| connect(&server, "job", r).unwrap())
        .collect();
    let p = |r| ProcId::new(ns("job"), r);
    // Not a member.
    assert_eq!(
        c[2].fence(vec![p(0), p(1)], &[]).unwrap_err().status,
        sys::PMIX_ERR_NOT_A_MEMBER
    );
    // A subset fence between 0 and 1 (order irrelevant) completes without rank 2.
    let a = {
        let c0 = c[0].clone();
        std::thread::spawn(move || c0.fence(vec![p(1), p(0)], &[]))
    };
    c[1].fence(vec![p(0), p(1)], &[]).unwrap();
    a.join().unwrap().unwrap();
    // Explicit list of all three vs wildcard: never matched, so each times out.
    let to = vec![info(keys::TIMEOUT, Value::Int(1))];
    let th: Vec<_> = (0..3)
        .map(|r| {
            let cr = c[r as usize].clone();
            let to = to.clone();
            std::thread::spawn(move || {
                if r == 0 {
                    cr.fence(vec![p(0), p(1), p(2)], &to)
                } else {
                    cr.fence(vec![], &to)
                }
            })
        })
        .collect();
    for t in th {
        assert_eq!(t.join().unwrap().unwrap_err().status, sys::PMIX_ERR_TIMEOUT);
    }
    for x in c {
        x.finalize().unwrap();
    }
}

#[test]
fn lost_client_fails_the_fence_for_the_others_and_tells_the_host() {
    let host = Arc::new(RecordingHost::default());
    let server = Arc::new(server_with_job("lost", "job", 2, host.clone()));
    let c0 = connect(&server, "job", 0).unwrap();
    // Rank 1 connects by hand and then vanishes without finalizing.
    let path = pmix_core::client::parse_uri(&server.uri()).unwrap();
    let mut raw = std::os::unix::net::UnixStream::connect(&path).unwrap();
    let hello = pmix_core::protocol::Hello {
        version: pmix_core::protocol::VERSION,
        proc_: ProcId::new(ns("job"), 1),
        pid: 0,
        uid: 0,
        gid: 0,
        kind: pmix_core::protocol::PeerKind::Client,
    };
    let mut f = Vec::new();
    pmix_core::protocol::encode_frame_into(&pmix_core::protocol::encode(&hello), &mut f);
    raw.write_all(&f).unwrap();
    let mut buf = [0u8; 4];
    raw.read_exact(&mut buf).unwrap(); // the welcome arrived
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        drop(raw);
    });
    let t0 = Instant::now();
    assert_eq!(
        c0.fence(vec![], &[]).unwrap_err().status,
        sys::PMIX_ERR_PROC_TERM_WO_SYNC
    );
    assert!(t0.elapsed() < Duration::from_secs(5));
    t.join().unwrap();
    // A later fence including the lost rank fails at once.
    assert_eq!(
        c0.fence(vec![], &[]).unwrap_err().status,
        sys::PMIX_ERR_PROC_TERM_WO_SYNC
    );
    c0.finalize().unwrap();
    let ev = host.events.lock().unwrap().clone();
    assert!(ev.contains(&"lost job:1".to_string()), "{:?}", ev);
}

#[test]
fn unknown_peer_or_wrong_uid_is_refused_and_garbage_closes_only_that_connection() {
    let host = Arc::new(RecordingHost::default());
    let server = Arc::new(server_with_job("refuse", "job", 1, host));
    assert_eq!(
        connect(&server, "job", 5).unwrap_err().status,
        sys::PMIX_ERR_NOT_FOUND
    );
    assert_eq!(
        connect(&server, "other", 0).unwrap_err().status,
        sys::PMIX_ERR_NOT_FOUND
    );
    server
        .register_client(&ProcId::new(ns("job"), 7), pmix_core::sys::euid() + 1, 0)
        .unwrap();
    assert_eq!(
        connect(&server, "job", 7).unwrap_err().status,
        sys::PMIX_ERR_INVALID_CRED
    );
    let c0 = connect(&server, "job", 0).unwrap();
    // A second connection sends garbage, then a truncated frame: closed, nothing else hurt.
    let path = pmix_core::client::parse_uri(&server.uri()).unwrap();
    for junk in [
        &b"\x05\x00\x00\x00hello"[..],
        &b"\xff\xff\xff\x7f"[..],
        &b"\x10\x00"[..],
    ] {
        let mut raw = std::os::unix::net::UnixStream::connect(&path).unwrap();
        raw.write_all(junk).unwrap();
        raw.shutdown(std::net::Shutdown::Write).unwrap();
        let mut rest = Vec::new();
        raw.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let _ = raw.read_to_end(&mut rest);
    }
    c0.put(sys::PMIX_GLOBAL, key("still"), Value::Bool(true))
        .unwrap();
    c0.commit().unwrap();
    c0.fence(vec![], &[]).unwrap();
    assert_eq!(
        c0.get(None, Some(&key("still")), &GetOpts::default())
            .unwrap(),
        Value::Bool(true)
    );
    c0.finalize().unwrap();
}

#[test]
fn repeated_connect_and_finalize() {
    let server = Arc::new(server_with_job(
        "again",
        "job",
        1,
        Arc::new(RecordingHost::default()),
    ));
    for _ in 0..3 {
        let c = connect(&server, "job", 0).unwrap();
        c.fence(vec![], &[]).unwrap();
        c.finalize().unwrap();
    }
}

#[test]
fn abort_reaches_the_host() {
    let host = Arc::new(RecordingHost::default());
    let server = Arc::new(server_with_job("abort", "job", 1, host.clone()));
    let c = connect(&server, "job", 0).unwrap();
    c.abort(3, "bye", vec![]).unwrap();
    c.finalize().unwrap();
    assert!(host
        .events
        .lock()
        .unwrap()
        .contains(&"abort job:0 3 bye".to_string()));
}

#[test]
fn lost_server_fires_lost_connection_event() {
    let server = server_with_job("srvgone", "job", 1, Arc::new(RecordingHost::default()));
    let c = connect(&server, "job", 0).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    c.register_event_handler(
        vec![sys::PMIX_ERR_LOST_CONNECTION],
        Arc::new(move |ev| {
            let _ = tx.lock().unwrap().send(ev.status);
        }),
    );
    server.finalize();
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(5)).unwrap(),
        sys::PMIX_ERR_LOST_CONNECTION
    );
    assert!(c.fence(vec![], &[]).is_err());
    c.finalize().unwrap();
}

#[test]
fn deleted_key_is_dropped_from_peer_caches_and_behaves_as_never_published() {
    let server = Arc::new(server_with_job(
        "delete",
        "job",
        2,
        Arc::new(RecordingHost::default()),
    ));
    let c0 = connect(&server, "job", 0).unwrap();
    let c1 = connect(&server, "job", 1).unwrap();
    let p0 = ProcId::new(ns("job"), 0);
    c0.put(sys::PMIX_GLOBAL, key("d"), Value::Int(1)).unwrap();
    c0.commit().unwrap();
    assert_eq!(
        c1.get(Some(&p0), Some(&key("d")), &GetOpts::default())
            .unwrap(),
        Value::Int(1)
    );
    c0.put(sys::PMIX_DEL_GLOBAL, key("d"), Value::Undef)
        .unwrap();
    c0.put(sys::PMIX_DEL_GLOBAL, key("never-there"), Value::Undef)
        .unwrap();
    assert_eq!(
        c0.get(None, Some(&key("d")), &GetOpts::default())
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    c0.commit().unwrap();
    // The fence reply travels after the deletion notice on the same connection.
    let t = {
        let c0 = c0.clone();
        std::thread::spawn(move || c0.fence(vec![], &[]))
    };
    c1.fence(vec![], &[]).unwrap();
    t.join().unwrap().unwrap();
    let imm = GetOpts::from_info(&[info(keys::IMMEDIATE, Value::Bool(true))]);
    assert_eq!(
        c1.get(Some(&p0), Some(&key("d")), &imm).unwrap_err().status,
        sys::PMIX_ERR_NOT_FOUND
    );
    c0.finalize().unwrap();
    c1.finalize().unwrap();
}

#[test]
fn qualified_values_are_selected_by_their_qualifiers() {
    use pmix_core::{DataArray, Info};
    let server = Arc::new(server_with_job(
        "qual",
        "job",
        2,
        Arc::new(RecordingHost::default()),
    ));
    let c0 = connect(&server, "job", 0).unwrap();
    let c1 = connect(&server, "job", 1).unwrap();
    let qual = |k: &str, v: &str| {
        let mut i = info(k, Value::string(v));
        i.flags = sys::PMIX_INFO_QUALIFIER;
        i
    };
    let posted = |v: i32, dev: &str| {
        Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INFO,
            items: vec![
                Value::Info(Box::new(info("bw", Value::Int(v)))),
                Value::Info(Box::new(qual("dev", dev))),
            ],
        }))
    };
    for (v, dev) in [(10, "eth0"), (20, "ib0")] {
        c0.put(sys::PMIX_GLOBAL, key(keys_qual()), posted(v, dev))
            .unwrap();
    }
    c0.commit().unwrap();
    let p0 = ProcId::new(ns("job"), 0);
    let with = |dev: &str| GetOpts::from_info(&[qual("dev", dev)]);
    assert_eq!(
        c1.get(Some(&p0), Some(&key("bw")), &with("ib0")).unwrap(),
        Value::Int(20)
    );
    assert_eq!(
        c1.get(Some(&p0), Some(&key("bw")), &with("eth0")).unwrap(),
        Value::Int(10)
    );
    assert_eq!(
        c1.get(Some(&p0), Some(&key("bw")), &with("lo"))
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    // The owner selects the same way; an unqualified Get does not see qualified values.
    assert_eq!(
        c0.get(None, Some(&key("bw")), &with("eth0")).unwrap(),
        Value::Int(10)
    );
    let opt: Vec<Info> = vec![info(keys::OPTIONAL, Value::Bool(true))];
    assert_eq!(
        c1.get(Some(&p0), Some(&key("bw")), &GetOpts::from_info(&opt))
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    c0.finalize().unwrap();
    c1.finalize().unwrap();
}

fn keys_qual() -> &'static str {
    pmix_core::store::qualified::CONTAINER
}

#[test]
fn data_scope_restricts_the_search() {
    let server = Arc::new(server_with_job(
        "scope",
        "job",
        2,
        Arc::new(RecordingHost::default()),
    ));
    let c0 = connect(&server, "job", 0).unwrap();
    let c1 = connect(&server, "job", 1).unwrap();
    c0.put(sys::PMIX_GLOBAL, key("g"), Value::Int(1)).unwrap();
    c0.put(sys::PMIX_LOCAL, key("l"), Value::Int(2)).unwrap();
    c0.commit().unwrap();
    let p0 = ProcId::new(ns("job"), 0);
    let scoped = |s: u8| GetOpts::from_info(&[info(keys::DATA_SCOPE, Value::Scope(s))]);
    assert_eq!(
        c1.get(Some(&p0), Some(&key("l")), &scoped(sys::PMIX_LOCAL))
            .unwrap(),
        Value::Int(2)
    );
    // A GLOBAL value is in the LOCAL scope too; a LOCAL one is not in the REMOTE scope.
    assert_eq!(
        c1.get(Some(&p0), Some(&key("g")), &scoped(sys::PMIX_LOCAL))
            .unwrap(),
        Value::Int(1)
    );
    assert_eq!(
        c1.get(Some(&p0), Some(&key("l")), &scoped(sys::PMIX_REMOTE))
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    assert_eq!(
        c1.get(Some(&p0), Some(&key("g")), &scoped(sys::PMIX_GLOBAL))
            .unwrap(),
        Value::Int(1)
    );
    // The owner's own view honours it too.
    assert_eq!(
        c0.get(None, Some(&key("l")), &scoped(sys::PMIX_REMOTE))
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    assert_eq!(
        c0.get(None, Some(&key("l")), &scoped(sys::PMIX_GLOBAL))
            .unwrap(),
        Value::Int(2)
    );
    c0.finalize().unwrap();
    c1.finalize().unwrap();
}

#[test]
fn host_events_reach_client_handlers_on_the_progress_thread() {
    let server = Arc::new(server_with_job(
        "events",
        "job",
        1,
        Arc::new(RecordingHost::default()),
    ));
    let c = connect(&server, "job", 0).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let id = c.register_event_handler(
        vec![sys::PMIX_ERR_JOB_TERM_WO_SYNC],
        Arc::new(move |ev| {
            let on_progress = pmix_core::reactor::on_progress_thread();
            let _ = tx
                .lock()
                .unwrap()
                .send((ev.status, ev.source.clone(), on_progress));
        }),
    );
    // An event for another code is not delivered to this handler.
    server
        .notify_event(sys::PMIX_EVENT_JOB_END, server.id(), vec![])
        .unwrap();
    server
        .notify_event(
            sys::PMIX_ERR_JOB_TERM_WO_SYNC,
            &ProcId::new(ns("job"), 3),
            vec![],
        )
        .unwrap();
    let (st, src, on_progress) = rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(st, sys::PMIX_ERR_JOB_TERM_WO_SYNC);
    assert_eq!(src, ProcId::new(ns("job"), 3));
    assert!(on_progress);
    assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
    c.deregister_event_handler(id).unwrap();
    assert_eq!(
        c.deregister_event_handler(id).unwrap_err().status,
        sys::PMIX_ERR_NOT_FOUND
    );
    c.finalize().unwrap();
}

/// Regression (Open MPI over several hosts): mpirun stores each daemon's wireup data with
/// Store_internal and reads it back with a Get of that daemon and a NULL key, in the server
/// process without PMIx_Init. That Get answered PMIX_ERR_UNREACH (it asked a server the
/// process is not connected to), and mpirun aborted.
#[test]
fn embedded_get_of_all_data_of_another_proc_reads_store_internal() {
    let me = ProcId::new(ns("daemons"), 0);
    let c = pmix_core::client::Client::embedded(me).unwrap();
    let dmn = ProcId::new(ns("daemons"), 1);
    c.store_internal(&dmn, key("pmix.puri"), Value::string("tcp://10.0.0.2:1"))
        .unwrap();
    let all = c.get(Some(&dmn), None, &GetOpts::default()).unwrap();
    let infos = pmix_core::store::info_array(&all).expect("a data array of infos");
    assert!(infos
        .iter()
        .any(|i| i.key.as_str() == "pmix.puri" && i.value == Value::string("tcp://10.0.0.2:1")));
    c.finalize().unwrap();
}

/// Slurm's plugin registers a catch-all event handler in its server process and kills the
/// step on any event it receives: client connect, commit, fences (collecting or not),
/// Gets and finalize must hand the server process's own handlers nothing. A server's own
/// `notify_event` still reaches them (so the handler is really registered).
#[test]
fn routine_client_activity_raises_no_event_in_the_server_process() {
    let server = Arc::new(server_with_job(
        "quiet",
        "job",
        2,
        Arc::new(RecordingHost::default()),
    ));
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    server.register_event_handler(
        vec![],
        Arc::new(move |ev| {
            let _ = tx.lock().unwrap().send(ev.status);
        }),
    );
    let mut threads = Vec::new();
    for rank in 0..2u32 {
        let server = server.clone();
        threads.push(std::thread::spawn(move || {
            let c = connect(&server, "job", rank).unwrap();
            c.put(sys::PMIX_GLOBAL, key("quiet.v"), Value::Uint32(rank))
                .unwrap();
            c.commit().unwrap();
            for collect in [true, false] {
                let directives = vec![info(keys::COLLECT_DATA, Value::Bool(collect))];
                c.fence(vec![], &directives).unwrap();
            }
            let peer = ProcId::new(ns("job"), 1 - rank);
            let got = c.get(Some(&peer), Some(&key("quiet.v")), &GetOpts::default());
            assert_eq!(got.unwrap(), Value::Uint32(1 - rank));
            c.finalize().unwrap();
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    let late = rx.recv_timeout(Duration::from_millis(300));
    assert!(
        late.is_err(),
        "the server's own handler got event {:?}",
        late
    );
    server
        .notify_event(sys::PMIX_EVENT_JOB_END, server.id(), vec![])
        .unwrap();
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(5)).unwrap(),
        sys::PMIX_EVENT_JOB_END
    );
}
