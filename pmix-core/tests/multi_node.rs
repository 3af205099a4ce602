//! Several servers in one process, each with its own clients, joined by a test "fabric"
//! host: collecting fences with delta modex on and off, mixed settings, deletions across
//! nodes, direct modex that waits for a key, and the full-set fallbacks.

mod util;

use pmix_core::client::{Client, GetOpts};
use pmix_core::server::{Host, HostCall, HostDone, HostReply, Server, ServerConfig};
use pmix_core::store::keys;
use pmix_core::{Info, Key, ProcId, Value};
use pmix_sys as sys;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use util::*;

type Contribution = (usize, Vec<u8>, HostDone<Vec<u8>>);

/// Joins the servers: a fence over the whole job completes when every server has called
/// in (concatenation in node order); a direct modex goes to the owner's server.
struct Fabric {
    servers: Mutex<Vec<Arc<Server>>>,
    owner: Vec<usize>,
    fence: Mutex<Vec<Contribution>>,
    dmodex_calls: AtomicUsize,
}

struct NodeHost {
    fabric: Arc<Fabric>,
    node: usize,
}

impl Host for NodeHost {
    fn call(&self, call: HostCall) -> pmix_core::Result<HostReply> {
        match call {
            HostCall::Fence { data, done, .. } => {
                let nservers = self.fabric.servers.lock().unwrap().len();
                let mut f = self.fabric.fence.lock().unwrap();
                f.push((self.node, data, done));
                if f.len() == nservers {
                    let mut parts: Vec<_> = f.drain(..).collect();
                    parts.sort_by_key(|p| p.0);
                    let mut all = Vec::new();
                    for (_, d, _) in &parts {
                        all.extend_from_slice(d);
                    }
                    std::thread::spawn(move || {
                        for (_, _, done) in parts {
                            done(Ok(all.clone()));
                        }
                    });
                }
                Ok(HostReply::Pending)
            }
            HostCall::DirectModex { proc_, info, done } => {
                self.fabric.dmodex_calls.fetch_add(1, Ordering::SeqCst);
                let owner = self.fabric.owner[proc_.rank as usize];
                let s = self.fabric.servers.lock().unwrap()[owner].clone();
                s.dmodex_request_info(&proc_, &info, done)?;
                Ok(HostReply::Pending)
            }
            other => other.unsupported(),
        }
    }
}

struct Cluster {
    fabric: Arc<Fabric>,
    servers: Vec<Arc<Server>>,
    clients: Vec<Client>,
}

/// `nodes[i]` ranks on node i (consecutive), job `job`; `delta[i]` is node i's setting.
fn cluster(name: &str, nodes: &[u32], delta: &[bool]) -> Cluster {
    let size: u32 = nodes.iter().sum();
    let mut owner = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        owner.extend(std::iter::repeat_n(i, *n as usize));
    }
    let fabric = Arc::new(Fabric {
        servers: Mutex::new(Vec::new()),
        owner,
        fence: Mutex::new(Vec::new()),
        dmodex_calls: AtomicUsize::new(0),
    });
    let job = ns(&format!("{name}-job"));
    let mut servers = Vec::new();
    let mut first = 0;
    for (i, n) in nodes.iter().enumerate() {
        let s = Server::start(
            ServerConfig {
                id: ProcId::new(ns(&format!("{name}-node{i}")), 0),
                tmpdir: Some(tmpdir(&format!("{name}{i}"))),
                info: vec![info(keys::HOSTNAME, Value::string(&format!("node{i}")))],
            },
            Arc::new(NodeHost {
                fabric: fabric.clone(),
                node: i,
            }),
        )
        .unwrap();
        s.set_delta_modex(delta[i]);
        let peers: Vec<String> = (first..first + n).map(|r| r.to_string()).collect();
        s.register_nspace(
            &job,
            *n,
            vec![
                info(keys::JOB_SIZE, Value::Uint32(size)),
                info(keys::LOCAL_PEERS, Value::string(&peers.join(","))),
            ],
        )
        .unwrap();
        for r in first..first + n {
            s.register_client(&ProcId::new(job.clone(), r), pmix_core::sys::euid(), 0)
                .unwrap();
        }
        first += n;
        servers.push(Arc::new(s));
    }
    fabric
        .servers
        .lock()
        .unwrap()
        .extend(servers.iter().cloned());
    let mut clients = Vec::new();
    for r in 0..size {
        let s = &servers[fabric.owner[r as usize]];
        clients.push(connect(s, job.as_str(), r).unwrap());
    }
    Cluster {
        fabric,
        servers,
        clients,
    }
}

impl Cluster {
    /// Every client enters a fence over the job; the results in rank order.
    fn fence(&self, collect: bool) -> Vec<pmix_core::Result<()>> {
        let threads: Vec<_> = self
            .clients
            .iter()
            .map(|c| {
                let c = c.clone();
                std::thread::spawn(move || {
                    c.fence(vec![], &[info(keys::COLLECT_DATA, Value::Bool(collect))])
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    }

    fn proc(&self, r: u32) -> ProcId {
        ProcId::new(self.clients[0].proc_id().nspace.clone(), r)
    }

    fn finalize(self) {
        for c in &self.clients {
            c.finalize().unwrap();
        }
    }
}

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

fn opts(flags: &[&str]) -> GetOpts {
    let infos: Vec<Info> = flags.iter().map(|f| info(f, Value::Bool(true))).collect();
    GetOpts::from_info(&infos)
}

/// Everything `of` published, as `reader` gets it from its server's store now.
fn all_data(reader: &Client, of: &ProcId) -> Vec<(String, Value)> {
    let v = reader
        .get(
            Some(of),
            None,
            &opts(&[keys::GET_REFRESH_CACHE, keys::IMMEDIATE]),
        )
        .unwrap();
    let Value::DataArray(a) = v else {
        panic!("not an array: {v:?}")
    };
    let mut out: Vec<(String, Value)> = a
        .items
        .into_iter()
        .filter_map(|i| match i {
            Value::Info(i) if i.key.as_str().starts_with("k.") => {
                Some((i.key.to_string(), i.value))
            }
            _ => None,
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// 100 keys published once, one changed before each collecting fence (and one deleted
/// before the third), a barrier between fences; returns what rank 0 read of the other
/// node's ranks after each fence, and node 0's contribution size per collecting fence.
fn sequence(name: &str, delta: bool) -> (Vec<Vec<(String, Value)>>, Vec<u64>) {
    let c = cluster(name, &[2, 2], &[delta, delta]);
    for (r, cl) in c.clients.iter().enumerate() {
        for i in 0..100 {
            cl.put(
                sys::PMIX_GLOBAL,
                key(&format!("k.{i:03}")),
                Value::Uint32(r as u32 * 1000 + i),
            )
            .unwrap();
        }
        cl.put(sys::PMIX_LOCAL, key("k.local"), Value::Int(1))
            .unwrap();
    }
    let mut seen = Vec::new();
    let mut sizes = Vec::new();
    for f in 0..4u32 {
        for (r, cl) in c.clients.iter().enumerate() {
            if f > 0 {
                cl.put(
                    sys::PMIX_GLOBAL,
                    key("k.000"),
                    Value::Uint32(r as u32 * 1000 + 500 + f),
                )
                .unwrap();
            }
            if f == 2 {
                cl.put(sys::PMIX_DEL_GLOBAL, key("k.050"), Value::Undef)
                    .unwrap();
            }
            cl.commit().unwrap();
        }
        assert!(c.fence(true).iter().all(|r| r.is_ok()));
        sizes.push(c.servers[0].fence_stats().last_bytes);
        for q in [2, 3] {
            seen.push(all_data(&c.clients[0], &c.proc(q)));
        }
        // A fence without data moves no boundary.
        assert!(c.fence(false).iter().all(|r| r.is_ok()));
    }
    c.finalize();
    (seen, sizes)
}

#[test]
fn delta_modex_delivers_the_same_data_in_a_fraction_of_the_bytes() {
    let (full_seen, full_sizes) = sequence("delt0", false);
    let (delta_seen, delta_sizes) = sequence("delt1", true);
    assert_eq!(full_seen, delta_seen, "the same values either way");
    // The data is what was published: 100 keys, k.000 changed, k.050 deleted from fence 2.
    let last = full_seen.last().unwrap();
    assert_eq!(
        last.len(),
        99,
        "100 keys less the deleted one (LOCAL ones stay home)"
    );
    assert!(last.iter().all(|(k, _)| k != "k.050" && k != "k.local"));
    assert_eq!(
        last[0],
        ("k.000".to_string(), Value::Uint32(3 * 1000 + 503))
    );
    // The first contribution is full either way (same name lengths, same bytes); later
    // ones shrink with delta modex.
    assert_eq!(full_sizes[0], delta_sizes[0]);
    let (f, d) = (full_sizes[3], delta_sizes[3]);
    assert!(f >= 20 * d, "full {f} bytes, delta {d} bytes");
}

#[test]
fn servers_with_different_settings_reject_the_fence_and_store_nothing() {
    let c = cluster("mixed", &[1, 1], &[false, true]);
    c.clients[1]
        .put(sys::PMIX_GLOBAL, key("k.x"), Value::Int(7))
        .unwrap();
    c.clients[1].commit().unwrap();
    for r in c.fence(true) {
        assert_eq!(r.unwrap_err().status, sys::PMIX_ERR_BAD_PARAM);
    }
    assert_eq!(
        c.clients[0]
            .get(
                Some(&c.proc(1)),
                Some(&key("k.x")),
                &opts(&[keys::IMMEDIATE])
            )
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    assert!(c.fence(false).iter().all(|r| r.is_ok()));
    c.finalize();
}

#[test]
fn a_deletion_travels_with_the_next_collecting_fence() {
    let c = cluster("del", &[2, 1], &[true, true]);
    let (owner, local_peer, remote) = (&c.clients[0], &c.clients[1], &c.clients[2]);
    owner
        .put(sys::PMIX_GLOBAL, key("k.gone"), Value::Int(1))
        .unwrap();
    owner.commit().unwrap();
    assert!(c.fence(true).iter().all(|r| r.is_ok()));
    let p0 = c.proc(0);
    for cl in [local_peer, remote] {
        assert_eq!(
            cl.get(Some(&p0), Some(&key("k.gone")), &GetOpts::default())
                .unwrap(),
            Value::Int(1)
        );
    }
    owner
        .put(sys::PMIX_DEL_GLOBAL, key("k.gone"), Value::Undef)
        .unwrap();
    owner.commit().unwrap();
    assert!(c.fence(false).iter().all(|r| r.is_ok()));
    // On the owner's node the cached copy is dropped at commit.
    let optional = opts(&[keys::OPTIONAL]);
    assert_eq!(
        local_peer
            .get(Some(&p0), Some(&key("k.gone")), &optional)
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    assert!(c.fence(true).iter().all(|r| r.is_ok()));
    // On the other node once the collecting fence completed: cache and server alike.
    assert_eq!(
        remote
            .get(Some(&p0), Some(&key("k.gone")), &optional)
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    assert_eq!(
        remote
            .get(Some(&p0), Some(&key("k.gone")), &opts(&[keys::IMMEDIATE]))
            .unwrap_err()
            .status,
        sys::PMIX_ERR_NOT_FOUND
    );
    c.finalize();
}

#[test]
fn direct_modex_waits_for_the_key_and_fetches_once() {
    let c = cluster("dwait", &[1, 1], &[false, false]);
    c.clients[1]
        .put(sys::PMIX_GLOBAL, key("k.early"), Value::Int(1))
        .unwrap();
    c.clients[1].commit().unwrap();
    assert!(c.fence(false).iter().all(|r| r.is_ok()));
    let reader = c.clients[0].clone();
    let p1 = c.proc(1);
    let t = std::thread::spawn(move || {
        let o = GetOpts::from_info(&[info(keys::TIMEOUT, Value::Int(10))]);
        reader.get(Some(&p1), Some(&key("k.late")), &o)
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(!t.is_finished(), "the Get waits for the key");
    c.clients[1]
        .put(sys::PMIX_GLOBAL, key("k.late"), Value::Int(2))
        .unwrap();
    c.clients[1].commit().unwrap();
    assert_eq!(t.join().unwrap().unwrap(), Value::Int(2));
    assert_eq!(c.fabric.dmodex_calls.load(Ordering::SeqCst), 1);
    // The rest of its data came with it.
    assert_eq!(
        c.clients[0]
            .get(Some(&c.proc(1)), Some(&key("k.early")), &GetOpts::default())
            .unwrap(),
        Value::Int(1)
    );
    assert_eq!(c.fabric.dmodex_calls.load(Ordering::SeqCst), 1);
    // A key never committed ends with the Get's PMIX_TIMEOUT.
    let o = GetOpts::from_info(&[info(keys::TIMEOUT, Value::Int(1))]);
    assert_eq!(
        c.clients[0]
            .get(Some(&c.proc(1)), Some(&key("k.never")), &o)
            .unwrap_err()
            .status,
        sys::PMIX_ERR_TIMEOUT
    );
    assert!(c.fence(false).iter().all(|r| r.is_ok()));
    c.finalize();
}

#[test]
fn full_contributions_exactly_when_the_fence_page_says() {
    // Ranks 0 and 1 on node 0 (whose contributions are counted), rank 2 on node 1.
    let c = cluster("fallback", &[2, 1], &[true, true]);
    let fence = |procs: Vec<ProcId>| {
        let threads: Vec<_> = c
            .clients
            .iter()
            .filter(|cl| procs.is_empty() || procs.contains(cl.proc_id()))
            .map(|cl| {
                let (cl, procs) = (cl.clone(), procs.clone());
                std::thread::spawn(move || {
                    cl.fence(procs, &[info(keys::COLLECT_DATA, Value::Bool(true))])
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap().unwrap();
        }
        let s = c.servers[0].fence_stats();
        (s.last_full, s.last_delta)
    };
    let change = |v: i32| {
        for cl in &c.clients {
            cl.put(sys::PMIX_GLOBAL, key("k.v"), Value::Int(v)).unwrap();
            cl.commit().unwrap();
        }
    };
    change(1);
    assert_eq!(
        fence(vec![]),
        (2, 0),
        "never took part in a collecting fence: full"
    );
    change(2);
    assert_eq!(fence(vec![]), (0, 2), "same participants: delta");
    // A fence without data in between moves nothing.
    for r in c.fence(false) {
        r.unwrap();
    }
    change(3);
    assert_eq!(fence(vec![]), (0, 2));
    // Data published for rank 0 by another path (register_resources, a group).
    c.servers[0].published_elsewhere(&c.proc(0));
    change(4);
    assert_eq!(
        fence(vec![]),
        (1, 1),
        "published elsewhere: full for that rank"
    );
    // The same set of processes listed explicitly is the same participant set.
    change(5);
    assert_eq!(fence(vec![c.proc(2), c.proc(0), c.proc(1)]), (0, 2));
    // Another set (ranks 0 and 2 only): full for rank 0, rank 1 takes no part.
    change(6);
    assert_eq!(fence(vec![c.proc(0), c.proc(2)]), (1, 0));
    // Back to the whole job: rank 0 last contributed to another set, rank 1 did not.
    change(7);
    assert_eq!(fence(vec![]), (1, 1));
    // Everyone reads the latest value whatever each section was.
    for q in 0..3 {
        let o = opts(&[keys::GET_REFRESH_CACHE, keys::IMMEDIATE]);
        for cl in &c.clients {
            if cl.proc_id() != &c.proc(q) {
                assert_eq!(
                    cl.get(Some(&c.proc(q)), Some(&key("k.v")), &o).unwrap(),
                    Value::Int(7)
                );
            }
        }
    }
    c.finalize();
}
