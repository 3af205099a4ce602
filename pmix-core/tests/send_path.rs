//! The client's send path (`Client::send_frame`): requests written by the calling thread,
//! commits queued and flushed by the progress thread, and whatever the socket does not
//! take at once handed over to the reactor. Whatever the path, the server must see every
//! frame whole and in the order it was sent.

mod util;

use pmix_core::client::GetOpts;
use pmix_core::store::keys;
use pmix_core::{Key, ProcId, Value};
use pmix_sys as sys;
use std::sync::Arc;
use util::*;

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

/// A value of `len` bytes that says which round wrote it.
fn blob(round: u32, len: usize) -> Value {
    let mut b = format!("round-{}-", round).into_bytes();
    b.resize(len, b'a' + (round % 26) as u8);
    Value::ByteObject(b)
}

#[test]
fn commits_larger_than_the_socket_buffer_then_fences_arrive_whole_and_in_order() {
    let host = Arc::new(RecordingHost::default());
    let server = Arc::new(server_with_job("sendpath", "job", 2, host));
    let collect = vec![info(keys::COLLECT_DATA, Value::Bool(true))];
    let mut threads = Vec::new();
    for rank in 0..2u32 {
        let server = server.clone();
        let collect = collect.clone();
        threads.push(std::thread::spawn(move || {
            let c = connect(&server, "job", rank).unwrap();
            let peer = ProcId::new(ns("job"), 1 - rank);
            let opts = GetOpts::default();
            for round in 0..4u32 {
                // Several MiB per round: far more than a Unix socket buffer holds, so the
                // commit's frame is written partly by the reactor, and the fence that
                // follows at once must queue behind it.
                c.put(
                    sys::PMIX_GLOBAL,
                    key(&format!("big.{}", round)),
                    blob(round, 3 << 20),
                )
                .unwrap();
                // Many small commits: each is queued, one flush carries many of them.
                for i in 0..200u32 {
                    c.put(
                        sys::PMIX_GLOBAL,
                        key("small"),
                        Value::Uint32(round * 1000 + i),
                    )
                    .unwrap();
                    c.commit().unwrap();
                }
                c.fence(vec![], &collect).unwrap();
                let got = c
                    .get(Some(&peer), Some(&key(&format!("big.{}", round))), &opts)
                    .unwrap();
                assert_eq!(got, blob(round, 3 << 20), "round {}", round);
            }
            // The last small value is the one the server holds (refresh reads it anew).
            let refresh = GetOpts::from_info(&[info(keys::GET_REFRESH_CACHE, Value::Bool(true))]);
            assert_eq!(
                c.get(Some(&peer), Some(&key("small")), &refresh).unwrap(),
                Value::Uint32(3 * 1000 + 199)
            );
            c.fence(vec![], &[]).unwrap();
            c.finalize().unwrap();
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn requests_from_many_threads_of_one_client_all_get_their_answers() {
    let host = Arc::new(RecordingHost::default());
    let server = Arc::new(server_with_job("sendpath2", "job", 2, host));
    let c1 = connect(&server, "job", 1).unwrap();
    c1.put(sys::PMIX_GLOBAL, key("k"), Value::Uint32(7))
        .unwrap();
    c1.commit().unwrap();
    let c0 = connect(&server, "job", 0).unwrap();
    let peer = ProcId::new(ns("job"), 1);
    // Eight threads race on the one connection: each request's frame is written whole
    // (the writer lock) and each reply reaches its own waiter (the tag).
    let opts = GetOpts::from_info(&[info(keys::GET_REFRESH_CACHE, Value::Bool(true))]);
    let mut ts = Vec::new();
    for _ in 0..8 {
        let c0 = c0.clone();
        let peer = peer.clone();
        let opts = opts.clone();
        ts.push(std::thread::spawn(move || {
            for _ in 0..200 {
                assert_eq!(
                    c0.get(Some(&peer), Some(&key("k")), &opts).unwrap(),
                    Value::Uint32(7)
                );
            }
        }));
    }
    for t in ts {
        t.join().unwrap();
    }
    c0.finalize().unwrap();
    c1.finalize().unwrap();
}

/// A commit sends the value each key had when it was last Put in a sent scope, read
/// from the store at commit (the Put does not copy it): a later `PMIX_INTERNAL` Put or
/// `PMIx_Store_internal` of the key does not change what is sent, a string put again is
/// rewritten in place and sent as last put, and a deletion wins over an earlier Put.
#[test]
fn commit_sends_the_last_value_put_in_a_sent_scope() {
    let host = Arc::new(RecordingHost::default());
    let server = Arc::new(server_with_job("stagesem", "job", 2, host));
    let c0 = connect(&server, "job", 0).unwrap();
    let c1 = connect(&server, "job", 1).unwrap();
    let me = ProcId::new(ns("job"), 0);
    let s = |t: &str| Value::string(t);
    // Put in a sent scope, then overwrite only locally.
    c0.put(sys::PMIX_GLOBAL, key("a"), s("sent")).unwrap();
    c0.put(sys::PMIX_INTERNAL, key("a"), s("local only"))
        .unwrap();
    c0.put(sys::PMIX_GLOBAL, key("b"), Value::Uint32(1))
        .unwrap();
    c0.store_internal(&me, key("b"), Value::Uint32(2)).unwrap();
    // A string put again and again: the last one is sent.
    for i in 0..5 {
        c0.put_string(sys::PMIX_GLOBAL, "c", Some(format!("v{i}").as_bytes()))
            .unwrap();
    }
    // Put, then deleted.
    c0.put(sys::PMIX_GLOBAL, key("d"), s("gone")).unwrap();
    c0.put_str(sys::PMIX_DEL_GLOBAL, "d", Value::Undef).unwrap();
    // Our own view has the latest of everything.
    let opts = GetOpts::default();
    assert_eq!(
        c0.get(None, Some(&key("a")), &opts).unwrap(),
        s("local only")
    );
    assert_eq!(
        c0.get(None, Some(&key("b")), &opts).unwrap(),
        Value::Uint32(2)
    );
    assert_eq!(c0.get(None, Some(&key("c")), &opts).unwrap(), s("v4"));
    assert!(c0.get(None, Some(&key("d")), &opts).is_err());
    c0.commit().unwrap();
    let peer = ProcId::new(ns("job"), 0);
    assert_eq!(
        c1.get(Some(&peer), Some(&key("a")), &opts).unwrap(),
        s("sent")
    );
    assert_eq!(
        c1.get(Some(&peer), Some(&key("b")), &opts).unwrap(),
        Value::Uint32(1)
    );
    assert_eq!(
        c1.get(Some(&peer), Some(&key("c")), &opts).unwrap(),
        s("v4")
    );
    let imm = GetOpts::from_info(&[info(keys::IMMEDIATE, Value::Bool(true))]);
    assert!(c1.get(Some(&peer), Some(&key("d")), &imm).is_err());
    // After the commit, a string put again in place is sent by the next commit.
    c0.put_string(sys::PMIX_GLOBAL, "c", Some(b"v5")).unwrap();
    c0.commit().unwrap();
    let refresh = GetOpts::from_info(&[info(keys::GET_REFRESH_CACHE, Value::Bool(true))]);
    assert_eq!(
        c1.get(Some(&peer), Some(&key("c")), &refresh).unwrap(),
        s("v5")
    );
    c0.finalize().unwrap();
    c1.finalize().unwrap();
}
