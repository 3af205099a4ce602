//! A collecting fence's reply carries the participants' data (`ReplyData::Collected`), so
//! that a first Get of a peer's key after it is answered from the client's own store.
//! The caching rules stay those of a fetched value: a value read once is kept (a later
//! fence does not change it), a deletion drops it, scopes are respected, and data larger
//! than `COLLECTED_INLINE_MAX` is not carried at all (it is fetched on first access).

mod util;

use pmix_core::client::{Client, GetOpts};
use pmix_core::store::keys;
use pmix_core::{Info, Key, ProcId, Value};
use pmix_sys as sys;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use util::*;

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

/// `PMIX_OPTIONAL`: local data only, so a success proves the value was already here.
fn optional() -> GetOpts {
    GetOpts::from_info(&[info(keys::OPTIONAL, Value::Bool(true))])
}

/// Where the two threads of [`two`] meet: a barrier that gives up (panics) after 30 s, so
/// that a thread whose peer died fails instead of waiting forever.
#[derive(Default)]
struct Meet {
    arrived: Mutex<u64>,
    cv: Condvar,
}

impl Meet {
    fn wait(&self) {
        let mut n = self.arrived.lock().unwrap();
        *n += 1;
        let round = n.div_ceil(2);
        self.cv.notify_all();
        let (n, t) = self
            .cv
            .wait_timeout_while(n, Duration::from_secs(30), |n| *n < round * 2)
            .unwrap();
        assert!(
            !t.timed_out(),
            "the other thread never came ({} arrivals)",
            *n
        );
    }
}

fn collect() -> Vec<Info> {
    vec![info(keys::COLLECT_DATA, Value::Bool(true))]
}

/// Run `f(client, rank, barrier)` in the two clients of one job, each on its own thread.
fn two(name: &str, f: impl Fn(&Client, u32, &Meet) + Send + Sync + 'static) {
    let host = Arc::new(RecordingHost::default());
    let server = Arc::new(server_with_job(name, "job", 2, host));
    let f = Arc::new(f);
    let b = Arc::new(Meet::default());
    let ts: Vec<_> = (0..2u32)
        .map(|rank| {
            let (server, f, b) = (server.clone(), f.clone(), b.clone());
            std::thread::spawn(move || {
                let c = connect(&server, "job", rank).unwrap();
                f(&c, rank, &b);
                c.fence(vec![], &[]).unwrap();
                c.finalize().unwrap();
            })
        })
        .collect();
    for t in ts {
        t.join().unwrap();
    }
}

#[test]
fn after_a_collecting_fence_peer_data_is_local_and_values_read_are_kept() {
    two("collected1", |c, rank, _| {
        let peer = ProcId::new(ns("job"), 1 - rank);
        let put = |scope: u8, k: &str, v: u32| c.put(scope, key(k), Value::Uint32(v)).unwrap();
        let get = |k: &str| c.get(Some(&peer), Some(&key(k)), &optional());
        let theirs = |v: u32| Value::Uint32(v + 1 - rank);
        put(sys::PMIX_GLOBAL, "a", 10 + rank);
        put(sys::PMIX_GLOBAL, "b", 20 + rank);
        put(sys::PMIX_LOCAL, "l", 30 + rank);
        put(sys::PMIX_REMOTE, "r", 40 + rank);
        c.commit().unwrap();
        // A plain fence exchanges nothing: nothing of the peer is local yet.
        c.fence(vec![], &[]).unwrap();
        assert_eq!(get("a").unwrap_err().status, sys::PMIX_ERR_NOT_FOUND);
        // A collecting fence brings what a local peer may see (not the REMOTE key).
        c.fence(vec![], &collect()).unwrap();
        assert_eq!(get("a").unwrap(), theirs(10));
        assert_eq!(get("l").unwrap(), theirs(30));
        assert_eq!(get("r").unwrap_err().status, sys::PMIX_ERR_NOT_FOUND);
        // Without OPTIONAL the server is asked and names the scope problem.
        let plain = GetOpts::default();
        assert_eq!(
            c.get(Some(&peer), Some(&key("r")), &plain)
                .unwrap_err()
                .status,
            sys::PMIX_ERR_EXISTS_OUTSIDE_SCOPE
        );
        // New values and a second collecting fence: "a" was read, so it is kept; "b"
        // was not, so the newer value shows.
        put(sys::PMIX_GLOBAL, "a", 110 + rank);
        put(sys::PMIX_GLOBAL, "b", 120 + rank);
        c.commit().unwrap();
        c.fence(vec![], &collect()).unwrap();
        assert_eq!(get("a").unwrap(), theirs(10));
        assert_eq!(get("b").unwrap(), theirs(120));
        // Refresh reads the server's current value.
        let refresh = GetOpts::from_info(&[info(keys::GET_REFRESH_CACHE, Value::Bool(true))]);
        assert_eq!(
            c.get(Some(&peer), Some(&key("a")), &refresh).unwrap(),
            theirs(110)
        );
    });
}

#[test]
fn a_deleted_key_leaves_the_collected_data_too() {
    two("collected2", |c, rank, b| {
        let peer = ProcId::new(ns("job"), 1 - rank);
        c.put(sys::PMIX_GLOBAL, key("gone"), Value::Uint32(rank))
            .unwrap();
        c.put(sys::PMIX_GLOBAL, key("kept"), Value::Uint32(rank))
            .unwrap();
        c.commit().unwrap();
        c.fence(vec![], &collect()).unwrap();
        // Delete before either side has read the other's key.
        c.put(sys::PMIX_DEL_GLOBAL, key("gone"), Value::Undef)
            .unwrap();
        c.commit().unwrap();
        // The server tells the other client; a plain fence orders that notice before
        // the fence's own reply on the same connection.
        c.fence(vec![], &[]).unwrap();
        b.wait();
        let o = optional();
        assert_eq!(
            c.get(Some(&peer), Some(&key("gone")), &o)
                .unwrap_err()
                .status,
            sys::PMIX_ERR_NOT_FOUND
        );
        assert_eq!(
            c.get(Some(&peer), Some(&key("kept")), &o).unwrap(),
            Value::Uint32(1 - rank)
        );
    });
}

#[test]
fn data_beyond_the_inline_limit_is_fetched_on_first_access() {
    two("collected3", |c, rank, _| {
        let peer = ProcId::new(ns("job"), 1 - rank);
        let big = Value::ByteObject(vec![rank as u8; pmix_core::protocol::COLLECTED_INLINE_MAX]);
        c.put(sys::PMIX_GLOBAL, key("big"), big).unwrap();
        c.commit().unwrap();
        c.fence(vec![], &collect()).unwrap();
        assert_eq!(
            c.get(Some(&peer), Some(&key("big")), &optional())
                .unwrap_err()
                .status,
            sys::PMIX_ERR_NOT_FOUND,
            "too large to travel with the fence"
        );
        let got = c
            .get(Some(&peer), Some(&key("big")), &GetOpts::default())
            .unwrap();
        assert_eq!(
            got,
            Value::ByteObject(vec![
                1 - rank as u8;
                pmix_core::protocol::COLLECTED_INLINE_MAX
            ])
        );
    });
}

#[test]
fn later_fences_carry_only_changes_and_every_value_stays_right() {
    two("collected4", |c, rank, _| {
        let peer = ProcId::new(ns("job"), 1 - rank);
        let o = optional();
        c.put(sys::PMIX_GLOBAL, key("fixed"), Value::Uint32(7 + rank))
            .unwrap();
        // More rounds than the client keeps layers of collected data.
        for round in 0..40u32 {
            c.put(
                sys::PMIX_GLOBAL,
                key(&format!("r{}", round)),
                Value::Uint32(round),
            )
            .unwrap();
            c.put(
                sys::PMIX_GLOBAL,
                key("moving"),
                Value::Uint32(1000 * rank + round),
            )
            .unwrap();
            if round == 20 {
                c.put(sys::PMIX_DEL_GLOBAL, key("r3"), Value::Undef)
                    .unwrap();
            }
            c.commit().unwrap();
            c.fence(vec![], &collect()).unwrap();
            // The key added in this round came with the fence (the newest layer).
            assert_eq!(
                c.get(Some(&peer), Some(&key(&format!("r{}", round))), &o)
                    .unwrap(),
                Value::Uint32(round)
            );
        }
        // Never read before: the last value, wherever it came from.
        let plain = GetOpts::default();
        assert_eq!(
            c.get(Some(&peer), Some(&key("moving")), &plain).unwrap(),
            Value::Uint32(1000 * (1 - rank) + 39)
        );
        assert_eq!(
            c.get(Some(&peer), Some(&key("fixed")), &plain).unwrap(),
            Value::Uint32(7 + 1 - rank)
        );
        // The deleted key is gone.
        assert_eq!(
            c.get(Some(&peer), Some(&key("r3")), &o).unwrap_err().status,
            sys::PMIX_ERR_NOT_FOUND
        );
    });
}
