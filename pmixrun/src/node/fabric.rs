//! The front end of a multi-node job: it starts one daemon per simulated node, reaches
//! each node's server through it ([`Fabric`] is the launcher's [`JobServer`](crate::launch::JobServer)), and does
//! what a real host's network does between nodes:
//! * a fence the servers hand their hosts completes when every node hosting a
//!   participant has contributed; each of those servers then gets the concatenation of
//!   all contributions, in node order ([`FenceMatcher`]);
//! * a direct-modex request goes to the server of the node the process runs on, whose
//!   answer goes back to the asking server;
//! * events raised beyond a node go to every other node's server; connections,
//!   finalizations, lost clients and aborts go to the launcher's event queue, as a
//!   single-node job's host reports them;
//! * a rank that ended for good (its server lost it, or the launcher reaped it) fails
//!   every fence and connect round that includes it, now and later, with
//!   `PMIX_ERR_PROC_TERM_WO_SYNC`, as a single server fails its own; a rank that
//!   vanished is also announced to the other nodes' clients of its namespace with the
//!   event its own server raised there (`PMIX_ERR_PROC_TERM_WO_SYNC`);
//! * a node whose daemon's link ends takes every process it hosted with it, of the job
//!   and of the jobs spawned there: each is failed and announced as above, the launcher
//!   gets them all with the node's failure (it kills them), and calls to the node fail;
//! * publish, lookup, unpublish, log and job control are served by pmixrun's own host
//!   for every node, and group constructs and destructs are collected over the nodes
//!   hosting the members ([`serve`]);
//! * a process monitor of ranks on other nodes runs at their nodes' servers, whose
//!   updates come back as events ([`monitor`]).
//!
//! Files: this one holds the front end's state and its lookups; [`start`] starts,
//! calls and stops the daemons, [`relay`] handles each daemon message, [`matcher`]
//! matches fence contributions, [`constructs`] the parts of group constructs, [`jobserver`] is the launcher's [`JobServer`](crate::launch::JobServer), [`serve`] the
//! upcalls served for every node, [`monitor`] the monitors spanning nodes.

mod constructs;
mod jobserver;
mod matcher;
mod monitor;
mod relay;
mod serve;
mod start;

use matcher::FenceMatcher;

use super::link::{self, Down};
use crate::host::{Events, JobHost};
use crate::job::{Layout, NodeLayout};
use crate::pubsub::PubStore;
use pmix_core::{Error, Nspace, ProcId, Rank, Result};
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::process::Child;
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// The job-level keys of a registration that describe the node it is made for (see
/// `job::registration_for`): a spawned job's other nodes get its registration without
/// them, so their servers count none of its ranks as theirs.
const HOSTING_NODE_KEYS: &[&str] = &[
    pmix_sys::attrs::keys::PMIX_HOSTNAME,
    pmix_sys::attrs::keys::PMIX_NODEID,
    pmix_sys::attrs::keys::PMIX_LOCAL_SIZE,
    pmix_sys::attrs::keys::PMIX_NODE_SIZE,
    pmix_sys::attrs::keys::PMIX_LOCAL_PEERS,
    pmix_sys::attrs::keys::PMIX_LOCAL_PROCS,
    pmix_sys::attrs::keys::PMIX_LOCALLDR,
    pmix_sys::attrs::keys::PMIX_NODE_OVERSUBSCRIBED,
];

/// How long the front end waits for a daemon to start its server or answer a request.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a daemon may take to exit after it was told to.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// How the front end starts its daemons.
pub struct FabricConfig {
    /// Each node's server directory (index = node).
    pub node_dirs: Vec<PathBuf>,
    /// `--node-env`: extra environment variables of one node's daemon.
    pub node_env: Vec<(u32, String, String)>,
    /// `--report-modex`: print each fence's contributions and each direct-modex
    /// request on stderr.
    pub report_modex: bool,
}

type CallReply = (i32, String, Vec<(String, String)>);

#[derive(Default)]
struct State {
    calls: HashMap<u64, (usize, mpsc::Sender<CallReply>)>,
    next: u64,
    fences: FenceMatcher,
    nfences: u64,
    /// Our id of a forwarded direct modex → (asking node, its id).
    dmodex: HashMap<u64, (usize, u64)>,
    /// Ranks that ended for good: rounds including them fail.
    ended: BTreeSet<ProcId>,
    /// Nodes whose daemon's link ended: calls to them fail at once.
    lost_nodes: BTreeSet<usize>,
    closing: bool,
    /// Group destructs being collected (by group name, see [`serve`]).
    groups: FenceMatcher,
    /// Group constructs being collected (see [`constructs`]).
    constructs: constructs::Constructs,
    /// Their contributors' completions, by (node, the node's id).
    group_waits: HashMap<(usize, u64), super::upcall::Finish>,
    /// Context ids handed out so far.
    last_ctx: u64,
    /// Members that left a group (by name): a destruct no longer waits for their nodes.
    group_left: HashMap<String, Vec<ProcId>>,
    /// Bootstrap constructs collected in parts (see [`constructs`]).
    group_parts: constructs::Bootstraps,
    /// Process monitors of ranks on other nodes (see [`monitor`]).
    monitors: monitor::Monitors,
}

struct Shared {
    nspace: Nspace,
    nodes: Vec<NodeLayout>,
    links: Vec<link::Sender>,
    events: Arc<Events>,
    report: bool,
    st: Mutex<State>,
    /// pmixrun's host, serving the forwarded upcalls.
    head: JobHost,
    /// Its `PMIx_Publish` store.
    store: PubStore,
    /// The jobs the ranks spawned, by namespace: the node hosting all their ranks
    /// (the node of the rank that spawned them), and their size.
    spawned: Mutex<HashMap<Nspace, (usize, u32)>>,
    /// What each node's server pulls of the ranks' output (index = node).
    iof: Vec<crate::iof::IofSubs>,
}

/// The daemons of a multi-node job, reached as one [`JobServer`](crate::launch::JobServer).
pub struct Fabric {
    shared: Arc<Shared>,
    children: Mutex<Vec<Child>>,
    readers: Mutex<Vec<JoinHandle<()>>>,
}

impl Shared {
    /// The front end's state for the job `layout`, reaching its daemons over `links`.
    fn new(
        layout: &Layout,
        links: Vec<link::Sender>,
        events: Arc<Events>,
        report: bool,
    ) -> Arc<Shared> {
        let store = PubStore::new();
        Arc::new(Shared {
            nspace: layout.nspace.clone(),
            nodes: layout.nodes.clone(),
            links,
            head: JobHost::with_store(layout.nspace.clone(), events.clone(), store.clone()),
            store,
            spawned: Mutex::default(),
            iof: layout.nodes.iter().map(|_| Default::default()).collect(),
            events,
            report,
            st: Mutex::new(State::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn send(&self, node: usize, msg: &Down) {
        match self.links.get(node) {
            Some(l) => l.send(msg),
            None => log::warn!("no link to node {node}"),
        }
    }

    /// Answer `node`'s fence (or connect) `id` with a failure `status` and no data.
    fn fence_failed(&self, node: usize, id: u64, status: i32) {
        let data = Vec::new();
        self.send(node, &Down::FenceDone { id, status, data });
    }

    fn node_of(&self, rank: Rank) -> Option<usize> {
        self.nodes.iter().position(|n| n.ranks.contains(&rank))
    }

    /// The node hosting the spawned job `ns`, if it is one.
    fn spawned_node(&self, ns: &Nspace) -> Option<usize> {
        self.spawned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(ns)
            .map(|&(node, _)| node)
    }

    /// Every process `node` hosts: the job's ranks placed there and every rank of each
    /// job spawned there (all of them live and die with the node).
    fn node_procs(&self, node: usize) -> Vec<ProcId> {
        let mut procs: Vec<ProcId> = self
            .nodes
            .get(node)
            .map(|n| n.ranks.clone())
            .unwrap_or_default()
            .into_iter()
            .map(|r| ProcId::new(self.nspace.clone(), r))
            .collect();
        let mut spawned: Vec<(Nspace, u32)> = self
            .spawned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(_, &(n, _))| n == node)
            .map(|(ns, &(_, size))| (ns.clone(), size))
            .collect();
        spawned.sort();
        for (ns, size) in spawned {
            procs.extend((0..size).map(|r| ProcId::new(ns.clone(), r)));
        }
        procs
    }

    /// The node hosting the rank `p` (of the job or of a job it spawned).
    fn node_of_proc(&self, p: &ProcId) -> Option<usize> {
        if p.rank >= pmix_sys::PMIX_RANK_VALID {
            return None;
        }
        if p.nspace == self.nspace {
            self.node_of(p.rank)
        } else {
            self.spawned_node(&p.nspace)
        }
    }

    /// `p` when it is a rank of the job or of a job it spawned.
    fn rank_of(&self, p: &ProcId) -> Option<Rank> {
        let ours = p.nspace == self.nspace || self.spawned_node(&p.nspace).is_some();
        (ours && p.rank < pmix_sys::PMIX_RANK_VALID).then_some(p.rank)
    }

    /// The nodes hosting the participants `procs`.
    fn nodes_of(&self, procs: &[ProcId]) -> std::result::Result<BTreeSet<usize>, String> {
        let mut set = BTreeSet::new();
        for p in procs {
            if p.nspace != self.nspace {
                // A spawned job lives on one node.
                let n = self
                    .spawned_node(&p.nspace)
                    .ok_or_else(|| format!("fence names namespace {}, not this job's", p.nspace))?;
                set.insert(n);
                continue;
            }
            if p.rank == pmix_sys::PMIX_RANK_WILDCARD {
                set.extend(
                    (0..self.nodes.len())
                        .filter(|&n| self.nodes.get(n).is_some_and(|nl| !nl.ranks.is_empty())),
                );
            } else {
                set.insert(
                    self.node_of(p.rank)
                        .ok_or_else(|| format!("fence names {p}, which is not in the job"))?,
                );
            }
        }
        Ok(set)
    }
}

/// The call id under which a node's [`Up::Ready`](link::Up::Ready) is awaited (ids of real calls are
/// small and count up from 1; these count down from the top).
fn ready_id(node: usize) -> u64 {
    u64::MAX - node as u64
}

fn status_err(status: i32, msg: String) -> Error {
    Error::new(status, msg)
}

impl Fabric {
    /// What the nodes' servers pull of the ranks' output, all nodes together (the
    /// launcher forwards what this covers, [`JobServer::iof_deliver`](crate::launch::JobServer::iof_deliver) routes it).
    pub fn iof_subs(&self) -> Arc<crate::iof::IofSubs> {
        self.shared.head.iof_subs()
    }

    /// A process set (`--pset`) is defined at every node's server, so every rank hears
    /// of it.
    pub fn define_process_set(&self, name: &str, members: Vec<ProcId>) {
        for n in 0..self.shared.links.len() {
            self.shared.send(
                n,
                &Down::Pset {
                    name: name.to_string(),
                    members: members.clone(),
                },
            );
        }
    }

    /// The store behind `PMIx_Publish` for every node (the launcher empties a job's
    /// `PMIX_PERSIST_APP` entries when it ends).
    pub fn pub_store(&self) -> PubStore {
        self.shared.store.clone()
    }

    fn node_for(&self, proc: &ProcId) -> Result<usize> {
        self.shared
            .node_of_proc(proc)
            .ok_or_else(|| Error::bad_param(format!("{proc} is on no node")))
    }
}
