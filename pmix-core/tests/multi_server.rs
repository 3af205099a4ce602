//! Two servers in one process, each with one local client of the same job, joined by a
//! test "fabric" host that carries fence blobs and direct-modex requests between them —
//! the path a multi-node job takes.

mod util;

use pmix_core::client::GetOpts;
use pmix_core::server::{Host, HostCall, HostDone, HostReply, Server, ServerConfig};
use pmix_core::store::keys;
use pmix_core::{Key, ProcId, Value};
use pmix_sys as sys;
use std::sync::{Arc, Mutex};
use util::*;

type Contribution = (Vec<u8>, HostDone<Vec<u8>>);

/// Joins the servers: a fence completes when every server has called in; a direct modex
/// is answered by the server owning the process.
#[derive(Default)]
struct Fabric {
    servers: Mutex<Vec<Arc<Server>>>,
    fence: Mutex<Vec<Contribution>>,
    fence_calls: Mutex<usize>,
    corrupt: Mutex<bool>,
}

struct Node {
    fabric: Arc<Fabric>,
}

impl Host for Node {
    fn call(&self, call: HostCall) -> pmix_core::Result<HostReply> {
        match call {
            HostCall::Fence { data, done, .. } => {
                *self.fabric.fence_calls.lock().unwrap() += 1;
                let mut f = self.fabric.fence.lock().unwrap();
                f.push((data, done));
                if f.len() == 2 {
                    let mut all = Vec::new();
                    let parts: Vec<_> = f.drain(..).collect();
                    for (d, _) in &parts {
                        all.extend_from_slice(d);
                    }
                    if *self.fabric.corrupt.lock().unwrap() {
                        all.truncate(all.len() - 1);
                    }
                    // Complete from another thread, as a real host would.
                    std::thread::spawn(move || {
                        for (_, done) in parts {
                            done(Ok(all.clone()));
                        }
                    });
                }
                Ok(HostReply::Pending)
            }
            HostCall::DirectModex { proc_, done, .. } => {
                // Rank r lives on server r.
                let s = self.fabric.servers.lock().unwrap()[proc_.rank as usize].clone();
                s.dmodex_request(&proc_, done)?;
                Ok(HostReply::Pending)
            }
            other => other.unsupported(),
        }
    }
}

fn start(fabric: &Arc<Fabric>, idx: u32) -> Arc<Server> {
    let s = Server::start(
        ServerConfig {
            id: ProcId::new(ns(&format!("node{}", idx)), 0),
            tmpdir: Some(tmpdir(&format!("multi{}", idx))),
            info: vec![],
        },
        Arc::new(Node {
            fabric: fabric.clone(),
        }),
    )
    .unwrap();
    let infos = vec![
        info(keys::JOB_SIZE, Value::Uint32(2)),
        info(keys::LOCAL_PEERS, Value::string(&idx.to_string())),
    ];
    s.register_nspace(&ns("job"), 1, infos).unwrap();
    s.register_client(&ProcId::new(ns("job"), idx), pmix_core::sys::euid(), 0)
        .unwrap();
    Arc::new(s)
}

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

#[test]
fn collecting_fence_and_direct_modex_across_two_servers() {
    let fabric = Arc::new(Fabric::default());
    let s0 = start(&fabric, 0);
    let s1 = start(&fabric, 1);
    fabric
        .servers
        .lock()
        .unwrap()
        .extend([s0.clone(), s1.clone()]);
    let c0 = connect(&s0, "job", 0).unwrap();
    let c1 = connect(&s1, "job", 1).unwrap();
    let collect = vec![info(keys::COLLECT_DATA, Value::Bool(true))];
    for (c, r) in [(&c0, 0u32), (&c1, 1u32)] {
        c.put(
            sys::PMIX_REMOTE,
            key("ep"),
            Value::ByteObject(vec![r as u8; 8]),
        )
        .unwrap();
        c.put(sys::PMIX_LOCAL, key("shm"), Value::Int(r as i32))
            .unwrap();
        c.commit().unwrap();
    }
    let t = {
        let c0 = c0.clone();
        let collect = collect.clone();
        std::thread::spawn(move || c0.fence(vec![], &collect))
    };
    c1.fence(vec![], &collect).unwrap();
    t.join().unwrap().unwrap();
    assert_eq!(
        *fabric.fence_calls.lock().unwrap(),
        2,
        "host fence once per server"
    );
    // After the collecting fence each server holds the other's REMOTE data: IMMEDIATE finds it.
    let imm = GetOpts::from_info(&[info(keys::IMMEDIATE, Value::Bool(true))]);
    assert_eq!(
        c0.get(Some(&ProcId::new(ns("job"), 1)), Some(&key("ep")), &imm)
            .unwrap(),
        Value::ByteObject(vec![1; 8])
    );
    // LOCAL data never left its node; only the key's existence did.
    assert_eq!(
        c0.get(Some(&ProcId::new(ns("job"), 1)), Some(&key("shm")), &imm)
            .unwrap_err()
            .status,
        sys::PMIX_ERR_EXISTS_OUTSIDE_SCOPE
    );
    // Direct modex: a key published after the fence is fetched through the host.
    c1.put(sys::PMIX_GLOBAL, key("late"), Value::string("x"))
        .unwrap();
    c1.commit().unwrap();
    let refresh = GetOpts::from_info(&[info(keys::GET_REFRESH_CACHE, Value::Bool(true))]);
    assert_eq!(
        c0.get(
            Some(&ProcId::new(ns("job"), 1)),
            Some(&key("late")),
            &refresh
        )
        .unwrap(),
        Value::string("x")
    );
    // A malformed concatenation fails the fence with BAD_PARAM on both sides.
    *fabric.corrupt.lock().unwrap() = true;
    let t = {
        let c0 = c0.clone();
        let collect = collect.clone();
        std::thread::spawn(move || c0.fence(vec![], &collect))
    };
    assert_eq!(
        c1.fence(vec![], &collect).unwrap_err().status,
        sys::PMIX_ERR_BAD_PARAM
    );
    assert_eq!(
        t.join().unwrap().unwrap_err().status,
        sys::PMIX_ERR_BAD_PARAM
    );
    c0.finalize().unwrap();
    c1.finalize().unwrap();
}
