//! A caller blocked in `PMIx_Fence`/`PMIx_Get` reads its reply from the socket itself
//! (`reactor::DirectConn`). What the server sent before that reply must still take
//! effect before the call returns, and every callback still runs on the progress thread.

mod util;

use pmix_core::client::{Client, GetOpts};
use pmix_core::store::keys;
use pmix_core::{Key, ProcId, Value};
use pmix_sys as sys;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;
use util::*;

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

const CODE: i32 = -31_007;

/// Rank 0 is already waiting in a fence (reading its socket itself) when rank 1 deletes
/// a key rank 0 has cached and raises an event, then joins the fence: the notice to
/// forget the key and the event reach rank 0 before the fence's reply, and both must have
/// taken effect when its fence returns (the handler ran on the progress thread).
#[test]
fn a_notice_and_an_event_that_precede_the_reply_take_effect_before_the_fence_returns() {
    let host = Arc::new(RecordingHost::default());
    let server = Arc::new(server_with_job("direct1", "job", 2, host));
    let barrier = Arc::new(Barrier::new(2));
    let seen = Arc::new(AtomicUsize::new(0));
    let rounds = 10;
    let ts: Vec<_> = (0..2u32)
        .map(|rank| {
            let (server, b, seen) = (server.clone(), barrier.clone(), seen.clone());
            std::thread::spawn(move || {
                let c: Client = connect(&server, "job", rank).unwrap();
                let on_progress = Arc::new(AtomicUsize::new(0));
                if rank == 0 {
                    let (s2, p2) = (seen.clone(), on_progress.clone());
                    c.register_event_handler(
                        vec![CODE],
                        Arc::new(move |_ev| {
                            if pmix_core::reactor::on_progress_thread() {
                                p2.fetch_add(1, Ordering::SeqCst);
                            }
                            s2.fetch_add(1, Ordering::SeqCst);
                        }),
                    );
                }
                let peer = ProcId::new(ns("job"), 1 - rank);
                let optional = GetOpts::from_info(&[info(keys::OPTIONAL, Value::Bool(true))]);
                for i in 0..rounds {
                    let k = key(&format!("k{}", i));
                    if rank == 1 {
                        c.put(sys::PMIX_GLOBAL, k.clone(), Value::Uint32(i))
                            .unwrap();
                        c.commit().unwrap();
                    }
                    b.wait();
                    if rank == 0 {
                        // Cached through the server (a blocking Get read directly too).
                        let v = c.get(Some(&peer), Some(&k), &GetOpts::default());
                        assert_eq!(v.unwrap(), Value::Uint32(i));
                        assert_eq!(
                            c.get(Some(&peer), Some(&k), &optional).unwrap(),
                            Value::Uint32(i)
                        );
                    }
                    b.wait();
                    if rank == 1 {
                        // Let rank 0 settle in its fence first.
                        std::thread::sleep(Duration::from_millis(20));
                        c.put(sys::PMIX_DEL_GLOBAL, k.clone(), Value::Undef)
                            .unwrap();
                        c.commit().unwrap();
                        c.notify_event(CODE, sys::PMIX_RANGE_NAMESPACE, vec![])
                            .unwrap();
                    }
                    c.fence(vec![], &[]).unwrap();
                    if rank == 0 {
                        assert_eq!(
                            c.get(Some(&peer), Some(&k), &optional).unwrap_err().status,
                            sys::PMIX_ERR_NOT_FOUND,
                            "round {}: the deletion had not taken effect",
                            i
                        );
                        assert_eq!(
                            seen.load(Ordering::SeqCst),
                            i as usize + 1,
                            "round {}: the event handler had not run",
                            i
                        );
                    }
                }
                if rank == 0 {
                    assert_eq!(on_progress.load(Ordering::SeqCst), rounds as usize);
                }
                c.fence(vec![], &[]).unwrap();
                c.finalize().unwrap();
            })
        })
        .collect();
    for t in ts {
        t.join().unwrap();
    }
}

/// Several threads of one client block at once: one reads the socket, the others wait
/// as before, and everyone gets its own answer (the reader gives the others' replies
/// back to the progress thread).
#[test]
fn concurrent_blocking_gets_each_get_their_own_answer() {
    let host = Arc::new(RecordingHost::default());
    let server = Arc::new(server_with_job("direct2", "job", 2, host));
    let barrier = Arc::new(Barrier::new(2));
    let ts: Vec<_> = (0..2u32)
        .map(|rank| {
            let (server, b) = (server.clone(), barrier.clone());
            std::thread::spawn(move || {
                let c: Client = connect(&server, "job", rank).unwrap();
                if rank == 1 {
                    for k in 0..40u32 {
                        c.put(
                            sys::PMIX_GLOBAL,
                            key(&format!("c{}", k)),
                            Value::Uint32(k * 7),
                        )
                        .unwrap();
                    }
                    c.commit().unwrap();
                }
                b.wait();
                if rank == 0 {
                    let peer = ProcId::new(ns("job"), 1);
                    let refresh =
                        GetOpts::from_info(&[info(keys::GET_REFRESH_CACHE, Value::Bool(true))]);
                    let workers: Vec<_> = (0..4u32)
                        .map(|t| {
                            let (c, peer, refresh) = (c.clone(), peer.clone(), refresh.clone());
                            std::thread::spawn(move || {
                                for round in 0..25u32 {
                                    let k = (t * 10 + round) % 40;
                                    let v = c
                                        .get(Some(&peer), Some(&key(&format!("c{}", k))), &refresh)
                                        .unwrap();
                                    assert_eq!(v, Value::Uint32(k * 7));
                                }
                            })
                        })
                        .collect();
                    for w in workers {
                        w.join().unwrap();
                    }
                }
                b.wait();
                c.fence(vec![], &[]).unwrap();
                c.finalize().unwrap();
            })
        })
        .collect();
    for t in ts {
        t.join().unwrap();
    }
}
