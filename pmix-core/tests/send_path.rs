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
