//! The front end of a multi-node job: it starts one daemon per simulated node, reaches
//! each node's server through it ([`Fabric`] is the launcher's [`JobServer`]), and does
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
//! * publish, lookup, unpublish, log and job control are served by pmixrun's own host
//!   for every node, and group constructs and destructs are collected over the nodes
//!   hosting the members ([`serve`]).

mod serve;

use super::link::{self, Call, Down, Up};
use crate::host::{Events, JobEvent, JobHost};
use crate::job::{self, Layout, NodeLayout};
use crate::launch::JobServer;
use crate::pubsub::PubStore;
use crate::sys::Pid;
use pmix_core::{Error, Info, Nspace, ProcId, Rank, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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

/// A fence that completed on every node hosting a participant.
#[derive(Debug, PartialEq, Eq)]
pub struct FenceDone {
    /// The participants, as the servers sorted them.
    pub procs: Vec<ProcId>,
    /// `(node, the node's fence id)` of every contribution, in node order.
    pub parts: Vec<(usize, u64)>,
    /// Every contribution's size, in node order.
    pub sizes: Vec<(usize, usize)>,
    /// The concatenation of the contributions, in node order.
    pub data: Vec<u8>,
}

struct Round {
    procs: Vec<ProcId>,
    tag: Option<String>,
    expect: BTreeSet<usize>,
    parts: BTreeMap<usize, (u64, Vec<u8>)>,
}

/// Matches the fence contributions of the nodes: one round per participant set and fence
/// tag (`pmix_core::protocol::FENCE_TAG`, which tells apart concurrent collectives over
/// the same processes), complete when every expected node has contributed. A node that
/// contributes again to a set whose round it is already in opens the next round.
#[derive(Default)]
pub struct FenceMatcher {
    rounds: Vec<Round>,
}

impl FenceMatcher {
    /// Add `node`'s contribution (its fence `id`, its blob) to a fence over `procs`
    /// (with fence tag `tag`) whose participants live on the nodes `expect`.
    ///
    /// # Errors
    /// A message when `node` is not among `expect`.
    pub fn contribute(
        &mut self,
        procs: Vec<ProcId>,
        tag: Option<String>,
        expect: BTreeSet<usize>,
        node: usize,
        id: u64,
        data: Vec<u8>,
    ) -> std::result::Result<Option<FenceDone>, String> {
        if !expect.contains(&node) {
            return Err(format!("node {node} hosts no participant of this fence"));
        }
        let pos = self
            .rounds
            .iter()
            .position(|r| r.procs == procs && r.tag == tag && !r.parts.contains_key(&node));
        let pos = match pos {
            Some(p) => p,
            None => {
                self.rounds.push(Round {
                    procs,
                    tag,
                    expect,
                    parts: BTreeMap::new(),
                });
                self.rounds.len() - 1
            }
        };
        let Some(round) = self.rounds.get_mut(pos) else {
            return Ok(None);
        };
        round.parts.insert(node, (id, data));
        if round.parts.len() < round.expect.len() {
            return Ok(None);
        }
        let round = self.rounds.remove(pos);
        let mut done = FenceDone {
            procs: round.procs,
            parts: Vec::new(),
            sizes: Vec::new(),
            data: Vec::new(),
        };
        for (n, (id, d)) in round.parts {
            done.parts.push((n, id));
            done.sizes.push((n, d.len()));
            done.data.extend_from_slice(&d);
        }
        Ok(Some(done))
    }

    /// Remove the rounds whose participants include `p`; returns `(node, fence id)` of
    /// every contribution they had, which the caller fails.
    pub fn fail_including(&mut self, p: &ProcId) -> Vec<(usize, u64)> {
        let (gone, keep): (Vec<Round>, Vec<Round>) = std::mem::take(&mut self.rounds)
            .into_iter()
            .partition(|r| pmix_core::server::state::includes(&r.procs, p));
        self.rounds = keep;
        gone.into_iter()
            .flat_map(|r| r.parts.into_iter().map(|(n, (id, _))| (n, id)))
            .collect()
    }

    /// Rounds still waiting for contributions.
    #[cfg(test)]
    pub fn pending(&self) -> usize {
        self.rounds.len()
    }
}

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
    closing: bool,
    /// Group constructs and destructs being collected (by group name, see [`serve`]).
    groups: FenceMatcher,
    /// Their contributors' completions, by (node, the node's id).
    group_waits: HashMap<(usize, u64), super::upcall::Finish>,
    /// Whether a contributor of the group round (by tag) asked for a context id.
    group_ctx: HashMap<String, bool>,
    /// Context ids handed out so far.
    last_ctx: u64,
    /// Members that left a group (by name): a destruct no longer waits for their nodes.
    group_left: HashMap<String, Vec<ProcId>>,
    /// Constructs collected in parts (by group name, see [`serve`]).
    group_parts: HashMap<String, serve::Parts>,
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
    /// (the node of the rank that spawned them).
    spawned: Mutex<HashMap<Nspace, usize>>,
    /// What each node's server pulls of the ranks' output (index = node).
    iof: Vec<crate::iof::IofSubs>,
}

/// The daemons of a multi-node job, reached as one [`JobServer`].
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

    fn node_of(&self, rank: Rank) -> Option<usize> {
        self.nodes.iter().position(|n| n.ranks.contains(&rank))
    }

    /// The node hosting the spawned job `ns`, if it is one.
    fn spawned_node(&self, ns: &Nspace) -> Option<usize> {
        self.spawned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(ns)
            .copied()
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

    fn handle(&self, node: usize, msg: Up) {
        match msg {
            Up::Ready { .. } | Up::Reply { .. } => self.reply(node, msg),
            Up::Connected(p) => {
                if self.rank_of(&p).is_some() {
                    self.events.push(JobEvent::Connected(p));
                }
            }
            Up::Finalized { id, proc_ } => {
                self.store.proc_ended(&proc_);
                if self.rank_of(&proc_).is_some() {
                    self.events.push(JobEvent::Finalized(proc_.clone()));
                }
                if id != 0 {
                    self.send(node, &Down::FinalizedSeen { id });
                }
            }
            Up::Lost(p) => {
                self.store.proc_ended(&p);
                if self.rank_of(&p).is_some() {
                    self.proc_ended(&p);
                    // The other servers learn that it will never arrive (their
                    // collectives waiting for it fail) and tell their clients.
                    for n in (0..self.links.len()).filter(|&n| n != node) {
                        self.deregister_at(n, &p);
                    }
                    self.announce_lost(node, &p);
                    self.events.push(JobEvent::Lost(p));
                }
            }
            Up::Abort {
                id,
                proc_,
                status,
                msg,
                ..
            } => self.abort(node, id, proc_, status, msg),
            Up::Fence {
                id,
                procs,
                info,
                data,
            } => {
                let tag = info
                    .iter()
                    .find(|i| i.key.as_str() == pmix_core::protocol::FENCE_TAG)
                    .and_then(|i| i.value.as_str().map(str::to_string));
                self.fence(node, id, procs, tag, data)
            }
            Up::Dmodex { id, proc_, info } => self.dmodex(node, id, proc_, info),
            Up::Upcall { id, call } => self.upcall(node, id, call),
            Up::DmodexAnswer { id, status, data } => {
                let asker = self.lock().dmodex.remove(&id);
                match asker {
                    Some((n, their)) => self.send(
                        n,
                        &Down::DmodexDone {
                            id: their,
                            status,
                            data,
                        },
                    ),
                    None => log::warn!("node {node} answered unknown direct modex {id}"),
                }
            }
            Up::Notify {
                source,
                status,
                range,
                info,
            } => {
                if status == pmix_sys::PMIX_GROUP_LEFT {
                    self.group_left(&source, &info);
                }
                for n in (0..self.links.len()).filter(|&n| n != node) {
                    self.send(
                        n,
                        &Down::Notify {
                            status,
                            source: source.clone(),
                            range,
                            info: info.clone(),
                        },
                    );
                }
            }
        }
    }

    /// A rank on `node` called `PMIx_Abort` (daemon request `id`): the launcher kills
    /// the job, then the daemon's caller is released.
    fn abort(&self, node: usize, id: u64, proc_: ProcId, status: i32, msg: String) {
        if self.rank_of(&proc_).is_none() {
            self.send(
                node,
                &Down::AbortDone {
                    id,
                    status: pmix_sys::PMIX_ERR_BAD_PARAM,
                },
            );
            return;
        };
        let l = self.links.get(node).cloned();
        self.events.push(JobEvent::Abort {
            proc_,
            status,
            msg,
            targets: Vec::new(),
            done: Box::new(move |r| {
                let status = match r {
                    Ok(()) => pmix_sys::PMIX_SUCCESS,
                    Err(e) => pmix_core::protocol::status_of(&e),
                };
                if let Some(l) = l {
                    l.send(&Down::AbortDone { id, status });
                }
            }),
        });
    }

    /// A server on `node` asks for `proc_`'s data (daemon request `id`): the question
    /// goes to the node that hosts the rank, under an id of the front end's.
    fn dmodex(&self, node: usize, id: u64, proc_: ProcId, info: Vec<Info>) {
        let owner = self.node_of_proc(&proc_);
        let owner = match (owner, proc_.nspace == self.nspace) {
            (Some(o), _) => o,
            // Job-level data: any node has it (a spawned job's node has its).
            (None, true) if proc_.rank == pmix_sys::PMIX_RANK_WILDCARD => node,
            (None, false) if proc_.rank == pmix_sys::PMIX_RANK_WILDCARD => {
                self.spawned_node(&proc_.nspace).unwrap_or(node)
            }
            _ => {
                self.send(
                    node,
                    &Down::DmodexDone {
                        id,
                        status: pmix_sys::PMIX_ERR_NOT_FOUND,
                        data: Vec::new(),
                    },
                );
                return;
            }
        };
        let gid = {
            let mut st = self.lock();
            st.next += 1;
            let gid = st.next;
            st.dmodex.insert(gid, (node, id));
            gid
        };
        self.report(&format!(
            "direct modex {gid}: node{node} asks node{owner} for {proc_}"
        ));
        self.send(
            owner,
            &Down::DmodexAsk {
                id: gid,
                proc_,
                info,
            },
        );
    }

    /// `p` will never take part in anything again: fail the rounds that include it.
    fn proc_ended(&self, p: &ProcId) {
        if self.rank_of(p).is_none() {
            return;
        }
        let mut st = self.lock();
        st.ended.insert(p.clone());
        for (n, id) in st.fences.fail_including(p) {
            log::warn!("fence or connect {id} of node {n} fails: {p} ended");
            self.send(
                n,
                &Down::FenceDone {
                    id,
                    status: pmix_sys::PMIX_ERR_PROC_TERM_WO_SYNC,
                    data: Vec::new(),
                },
            );
        }
    }

    /// Tell `node`'s server that `p` will never take part again (for a process of
    /// another node, its collectives waiting for `p` fail; see
    /// `ServerState::deregister_client`).
    fn deregister_at(&self, node: usize, p: &ProcId) {
        self.send(
            node,
            &Down::Call {
                id: 0,
                call: Call::DeregisterClient { proc_: p.clone() },
            },
        );
    }

    /// `p`'s server (on `node`) lost it: the clients of its namespace on the other nodes
    /// hear of it as that server's own clients did.
    fn announce_lost(&self, node: usize, p: &ProcId) {
        let info: Vec<Info> = Info::new(
            pmix_sys::attrs::keys::PMIX_EVENT_AFFECTED_PROC,
            pmix_core::Value::Proc(Some(p.clone())),
        )
        .into_iter()
        .collect();
        for n in (0..self.links.len()).filter(|&n| n != node) {
            self.send(
                n,
                &Down::Notify {
                    status: pmix_sys::PMIX_ERR_PROC_TERM_WO_SYNC,
                    source: p.clone(),
                    range: pmix_sys::PMIX_RANGE_NAMESPACE,
                    info: info.clone(),
                },
            );
        }
    }

    fn reply(&self, node: usize, msg: Up) {
        let (id, r) = match msg {
            Up::Ready { status, msg } => (0, (status, msg, Vec::new())),
            Up::Reply {
                id,
                status,
                msg,
                env,
            } => (id, (status, msg, env)),
            _ => return,
        };
        // Ready answers the node's pseudo-call 0, registered per node.
        let key = if id == 0 { ready_id(node) } else { id };
        let waiter = self.lock().calls.remove(&key);
        match waiter {
            Some((_, tx)) => {
                let _ = tx.send(r);
            }
            None => log::debug!("node {node}: reply to unknown request {id}"),
        }
    }

    fn fence(&self, node: usize, id: u64, procs: Vec<ProcId>, tag: Option<String>, data: Vec<u8>) {
        let expect = match self.nodes_of(&procs) {
            Ok(e) => e,
            Err(why) => {
                log::warn!("node {node}: {why}");
                self.send(
                    node,
                    &Down::FenceDone {
                        id,
                        status: pmix_sys::PMIX_ERR_BAD_PARAM,
                        data: Vec::new(),
                    },
                );
                return;
            }
        };
        let (done, n) = {
            let mut st = self.lock();
            let gone = st
                .ended
                .iter()
                .find(|q| pmix_core::server::state::includes(&procs, q))
                .cloned();
            if let Some(r) = gone {
                drop(st);
                log::warn!("node {node}: fence or connect {id} names rank {r}, which ended");
                self.send(
                    node,
                    &Down::FenceDone {
                        id,
                        status: pmix_sys::PMIX_ERR_PROC_TERM_WO_SYNC,
                        data: Vec::new(),
                    },
                );
                return;
            }
            let r = st.fences.contribute(procs, tag, expect, node, id, data);
            if let Ok(Some(d)) = &r {
                st.nfences += 1;
                // Released while the state is locked: whatever a released process
                // makes us send any node later (its death, say) queues behind this.
                for &(n, their) in &d.parts {
                    self.send(
                        n,
                        &Down::FenceDone {
                            id: their,
                            status: pmix_sys::PMIX_SUCCESS,
                            data: d.data.clone(),
                        },
                    );
                }
            }
            (r, st.nfences)
        };
        let done = match done {
            Ok(Some(d)) => d,
            Ok(None) => return,
            Err(why) => {
                log::warn!("{why}");
                self.send(
                    node,
                    &Down::FenceDone {
                        id,
                        status: pmix_sys::PMIX_ERR_BAD_PARAM,
                        data: Vec::new(),
                    },
                );
                return;
            }
        };
        let sizes: Vec<String> = done
            .sizes
            .iter()
            .map(|(n, s)| format!("node{n}={s}"))
            .collect();
        let over = match done.procs.as_slice() {
            [p] if p.rank == pmix_sys::PMIX_RANK_WILDCARD => "all ranks".to_string(),
            ps => format!("{} ranks", ps.len()),
        };
        self.report(&format!(
            "fence {n} over {over}: {} bytes, total {} bytes",
            sizes.join(" "),
            done.data.len()
        ));
    }

    /// Log a line of the modex report (and print it with `--report-modex`).
    fn report(&self, line: &str) {
        log::info!("{line}");
        if self.report {
            crate::output::write_line(&mut std::io::stderr().lock(), &format!("pmixrun: {line}"));
        }
    }

    /// A daemon's link ended.
    fn closed(&self, node: usize, r: Result<()>) {
        let closing = {
            let mut st = self.lock();
            // Requests to that node will never be answered.
            st.calls.retain(|_, (n, _)| *n != node);
            st.closing
        };
        if closing {
            return;
        }
        let why = match r {
            Ok(()) => "its daemon exited".to_string(),
            Err(e) => format!("its link broke ({e})"),
        };
        self.events.push(JobEvent::NodeFailed {
            node: u32::try_from(node).unwrap_or(u32::MAX),
            msg: why,
        });
    }
}

/// The call id under which a node's [`Up::Ready`] is awaited (ids of real calls are
/// small and count up from 1; these count down from the top).
fn ready_id(node: usize) -> u64 {
    u64::MAX - node as u64
}

fn status_err(status: i32, msg: String) -> Error {
    Error::new(status, msg)
}

impl Fabric {
    /// Start one daemon per node of `layout` and their servers; `events` receives what
    /// the servers report about the ranks.
    ///
    /// # Errors
    /// A message when a daemon cannot be started or its server does not come up.
    pub fn start(
        layout: &Layout,
        cfg: FabricConfig,
        events: Arc<Events>,
    ) -> std::result::Result<Fabric, String> {
        let exe = std::env::current_exe()
            .map_err(|e| format!("cannot find pmixrun's own executable: {e}"))?;
        let mut children = Vec::new();
        let mut links = Vec::new();
        let mut streams = Vec::new();
        let kill_all = |children: &mut Vec<Child>| {
            for c in children.iter_mut() {
                let _ = c.kill();
                let _ = c.wait();
            }
        };
        for node in &layout.nodes {
            let (ours, theirs) =
                UnixStream::pair().map_err(|e| format!("cannot make a link: {e}"))?;
            let mut cmd = Command::new(&exe);
            cmd.arg("--node-daemon")
                .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                // Its own process group: a terminal's ^C reaches the front end, which
                // ends the job and then its daemons, in that order.
                .process_group(0);
            for (n, k, v) in &cfg.node_env {
                if *n == node.id {
                    cmd.env(k, v);
                }
            }
            let child = match cmd.spawn() {
                Ok(c) => c,
                Err(e) => {
                    kill_all(&mut children);
                    return Err(format!("cannot start the daemon of node {}: {e}", node.id));
                }
            };
            children.push(child);
            let w = ours
                .try_clone()
                .and_then(|w| link::writer(w, &format!("link-node{}", node.id)));
            match w {
                Ok(tx) => links.push(tx),
                Err(e) => {
                    kill_all(&mut children);
                    return Err(format!("cannot write to node {}: {e}", node.id));
                }
            }
            streams.push(ours);
        }
        let shared = Shared::new(layout, links, events, cfg.report_modex);
        let mut readers = Vec::new();
        let mut ready = Vec::new();
        for (i, stream) in streams.into_iter().enumerate() {
            let (tx, rx) = mpsc::channel();
            shared.lock().calls.insert(ready_id(i), (i, tx));
            ready.push(rx);
            let sh = shared.clone();
            let t = std::thread::Builder::new()
                .name(format!("node{i}-reader"))
                .spawn(move || {
                    let r = link::read_loop::<Up>(stream, |m| {
                        sh.handle(i, m);
                        true
                    });
                    sh.closed(i, r);
                });
            match t {
                Ok(t) => readers.push(t),
                Err(e) => {
                    let f = Fabric {
                        shared,
                        children: Mutex::new(children),
                        readers: Mutex::new(readers),
                    };
                    f.shutdown();
                    return Err(format!("cannot start a reader thread: {e}"));
                }
            }
        }
        let mut fabric = Fabric {
            shared,
            children: Mutex::new(children),
            readers: Mutex::new(readers),
        };
        if let Err(e) = fabric.set_up_nodes(layout, &cfg, ready) {
            fabric.shutdown();
            return Err(e);
        }
        Ok(fabric)
    }

    /// Give every node's daemon its setup (node id, host name, server name, scratch
    /// directory) and wait for each server's word that it runs (on `ready`).
    fn set_up_nodes(
        &mut self,
        layout: &Layout,
        cfg: &FabricConfig,
        ready: Vec<mpsc::Receiver<CallReply>>,
    ) -> std::result::Result<(), String> {
        for (i, node) in layout.nodes.iter().enumerate() {
            let server = Nspace::new(format!("{}.server", layout.nspace))
                .map(|n| ProcId::new(n, node.id))
                .map_err(|e| format!("cannot name node {}'s server: {e}", node.id))?;
            let tmpdir = cfg
                .node_dirs
                .get(i)
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            self.shared.send(
                i,
                &Down::Setup {
                    node: node.id,
                    hostname: node.hostname.clone(),
                    server,
                    tmpdir,
                },
            );
        }
        for (i, rx) in ready.into_iter().enumerate() {
            let r = match rx.recv_timeout(CALL_TIMEOUT) {
                Ok((0, _, _)) => Ok(()),
                Ok((_, msg, _)) => Err(msg),
                Err(_) => Err("no answer".to_string()),
            };
            if let Err(why) = r {
                return Err(format!("the PMIx server of node {i} did not start: {why}"));
            }
        }
        Ok(())
    }

    /// Send a request to a node's server and wait for the answer.
    fn call(&self, node: usize, c: Call) -> Result<Vec<(String, String)>> {
        let (tx, rx) = mpsc::channel();
        let id = {
            let mut st = self.shared.lock();
            st.next += 1;
            let id = st.next;
            st.calls.insert(id, (node, tx));
            id
        };
        self.shared.send(node, &Down::Call { id, call: c });
        match rx.recv_timeout(CALL_TIMEOUT) {
            Ok((0, _, env)) => Ok(env),
            Ok((status, msg, _)) => Err(status_err(status, msg)),
            Err(_) => {
                self.shared.lock().calls.remove(&id);
                Err(Error::new(
                    pmix_sys::PMIX_ERR_UNREACH,
                    format!("node {node}'s server did not answer"),
                ))
            }
        }
    }

    /// What the nodes' servers pull of the ranks' output, all nodes together (the
    /// launcher forwards what this covers, [`JobServer::iof_deliver`] routes it).
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

    /// Tell every daemon to finalize its server and exit; wait for them (killing any
    /// that do not exit in time).
    pub fn shutdown(&self) {
        self.shared.lock().closing = true;
        for n in 0..self.shared.links.len() {
            self.shared.send(n, &Down::Shutdown);
        }
        let until = Instant::now() + EXIT_GRACE;
        let mut children = self.children.lock().unwrap_or_else(|p| p.into_inner());
        for (i, c) in children.iter_mut().enumerate() {
            loop {
                match c.try_wait() {
                    Ok(Some(st)) => {
                        if !st.success() {
                            log::warn!("node {i}'s daemon ended with {st}");
                        }
                        break;
                    }
                    Ok(None) if Instant::now() < until => {
                        std::thread::sleep(Duration::from_millis(10))
                    }
                    _ => {
                        log::warn!("node {i}'s daemon did not exit; killing it");
                        let _ = c.kill();
                        let _ = c.wait();
                        break;
                    }
                }
            }
        }
        children.clear();
        drop(children);
        let readers: Vec<JoinHandle<()>> = self
            .readers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        for t in readers {
            let _ = t.join();
        }
    }
}

impl Drop for Fabric {
    fn drop(&mut self) {
        let running = !self
            .children
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty();
        if running && !self.shared.lock().closing {
            self.shutdown();
        }
    }
}

impl JobServer for Fabric {
    /// A job a rank spawned is placed, whole, on the node of that rank (its
    /// `PMIX_PARENT_ID`); the job on the command line is registered everywhere.
    fn register_nspace(&self, nspace: &Nspace, nlocal: u32, info: Vec<Info>) -> Result<()> {
        if nspace != &self.shared.nspace {
            let parent = info
                .iter()
                .find(|i| i.key.as_str() == pmix_sys::attrs::keys::PMIX_PARENT_ID)
                .and_then(|i| match &i.value {
                    pmix_core::Value::Proc(Some(p)) => self.shared.node_of_proc(p),
                    _ => None,
                })
                .unwrap_or(0);
            self.shared
                .spawned
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(nspace.clone(), parent);
            // The other nodes know the job too (their ranks resolve it and read its job
            // data), as one with no rank of theirs: without the hosting node's own keys.
            let elsewhere: Vec<Info> = info
                .iter()
                .filter(|i| !HOSTING_NODE_KEYS.contains(&i.key.as_str()))
                .cloned()
                .collect();
            self.call(
                parent,
                Call::RegisterNspace {
                    nspace: nspace.clone(),
                    nlocal,
                    info,
                },
            )?;
            for n in (0..self.shared.nodes.len()).filter(|&n| n != parent) {
                let call = Call::RegisterNspace {
                    nspace: nspace.clone(),
                    nlocal: 0,
                    info: elsewhere.clone(),
                };
                if let Err(e) = self.call(n, call) {
                    log::warn!("node {n} cannot know spawned job {nspace}: {e}");
                }
            }
            return Ok(());
        }
        for n in 0..self.shared.nodes.len() {
            self.call(
                n,
                Call::RegisterNspace {
                    nspace: nspace.clone(),
                    nlocal,
                    info: info.clone(),
                },
            )?;
        }
        Ok(())
    }
    fn register_client(&self, proc: &ProcId, uid: u32, gid: u32) -> Result<()> {
        self.call(
            self.node_for(proc)?,
            Call::RegisterClient {
                proc_: proc.clone(),
                uid,
                gid,
            },
        )
        .map(|_| ())
    }
    fn setup_fork(&self, proc: &ProcId) -> Result<Vec<(String, String)>> {
        self.call(
            self.node_for(proc)?,
            Call::SetupFork {
                proc_: proc.clone(),
            },
        )
    }
    /// The process ended for good (the launcher reaped it): every server forgets it
    /// (its own as a client; the others stop waiting for it in collectives) and the
    /// rounds that include it fail.
    fn deregister_client(&self, proc: &ProcId) {
        for n in 0..self.shared.links.len() {
            self.shared.deregister_at(n, proc);
        }
        self.shared.proc_ended(proc);
    }
    fn deregister_nspace(&self, nspace: &Nspace) {
        for n in 0..self.shared.links.len() {
            self.shared.send(
                n,
                &Down::Call {
                    id: 0,
                    call: Call::DeregisterNspace {
                        nspace: nspace.clone(),
                    },
                },
            );
        }
    }
    /// An event the launcher raises (a job's end, a rank's termination) goes to every
    /// node's server, which delivers it to its clients in range.
    fn notify(&self, status: i32, source: &ProcId, range: u8, info: Vec<Info>) {
        for n in 0..self.shared.links.len() {
            self.shared.send(
                n,
                &Down::Notify {
                    status,
                    source: source.clone(),
                    range,
                    info: info.clone(),
                },
            );
        }
    }
    /// Output a node's server pulled goes to that node.
    fn iof_deliver(&self, source: &ProcId, channel: u16, data: Vec<u8>, info: Vec<Info>) {
        for (n, subs) in self.shared.iof.iter().enumerate() {
            if subs.wants(source, channel) {
                self.shared.send(
                    n,
                    &Down::IofDeliver {
                        source: source.clone(),
                        channel,
                        data: data.clone(),
                        info: info.clone(),
                    },
                );
            }
        }
    }
    /// Each node's server gets its own registration (its node's keys at job level).
    fn register_job(&self, layout: &Layout, pids: &[Pid]) -> std::result::Result<(), String> {
        for (i, node) in layout.nodes.iter().enumerate() {
            let infos = job::registration_for(layout, pids, i)
                .map_err(|e| format!("cannot describe the job for node {}: {e}", node.id))?;
            let nlocal = u32::try_from(node.ranks.len()).unwrap_or(u32::MAX);
            self.call(
                i,
                Call::RegisterNspace {
                    nspace: layout.nspace.clone(),
                    nlocal,
                    info: infos,
                },
            )
            .map_err(|e| format!("the PMIx server of node {} refused the job: {e}", node.id))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(r: u32) -> ProcId {
        ProcId::new(Nspace::new("job").expect("ns"), r)
    }

    fn set(v: &[usize]) -> BTreeSet<usize> {
        v.iter().copied().collect()
    }

    #[test]
    fn fence_completes_when_every_node_contributed_in_node_order() {
        let mut m = FenceMatcher::default();
        let all = vec![p(pmix_sys::PMIX_RANK_WILDCARD)];
        assert_eq!(
            m.contribute(all.clone(), None, set(&[0, 1, 2]), 2, 7, b"cc".to_vec()),
            Ok(None)
        );
        assert_eq!(
            m.contribute(all.clone(), None, set(&[0, 1, 2]), 0, 5, b"a".to_vec()),
            Ok(None)
        );
        // Another set is another fence.
        assert_eq!(
            m.contribute(vec![p(0), p(3)], None, set(&[0, 1]), 0, 6, b"x".to_vec()),
            Ok(None)
        );
        let done = m
            .contribute(all.clone(), None, set(&[0, 1, 2]), 1, 9, b"bbb".to_vec())
            .expect("ok")
            .expect("complete");
        assert_eq!(done.data, b"abbbcc");
        assert_eq!(done.parts, vec![(0, 5), (1, 9), (2, 7)]);
        assert_eq!(done.sizes, vec![(0, 1), (1, 3), (2, 2)]);
        assert_eq!(m.pending(), 1);
        assert!(m
            .contribute(vec![p(0), p(3)], None, set(&[0, 1]), 2, 1, vec![])
            .is_err());
    }

    #[test]
    fn a_node_that_fences_again_opens_the_next_round() {
        let mut m = FenceMatcher::default();
        let all = vec![p(pmix_sys::PMIX_RANK_WILDCARD)];
        assert_eq!(
            m.contribute(all.clone(), None, set(&[0, 1]), 0, 1, b"1".to_vec()),
            Ok(None)
        );
        assert_eq!(
            m.contribute(all.clone(), None, set(&[0, 1]), 0, 2, b"2".to_vec()),
            Ok(None)
        );
        let first = m
            .contribute(all.clone(), None, set(&[0, 1]), 1, 3, b"3".to_vec())
            .expect("ok")
            .expect("complete");
        assert_eq!(first.parts, vec![(0, 1), (1, 3)]);
        let second = m
            .contribute(all.clone(), None, set(&[0, 1]), 1, 4, b"4".to_vec())
            .expect("ok")
            .expect("complete");
        assert_eq!(second.data, b"24");
        // Tagged collectives over the same processes are told apart.
        let tag = |t: &str| Some(t.to_string());
        assert_eq!(
            m.contribute(all.clone(), tag("a"), set(&[0, 1]), 0, 5, b"a0".to_vec()),
            Ok(None)
        );
        assert_eq!(
            m.contribute(all.clone(), tag("b"), set(&[0, 1]), 1, 6, b"b1".to_vec()),
            Ok(None)
        );
        let a = m
            .contribute(all, tag("a"), set(&[0, 1]), 1, 7, b"a1".to_vec())
            .expect("ok")
            .expect("complete");
        assert_eq!(a.data, b"a0a1");
        assert_eq!(m.pending(), 1);
    }

    #[test]
    fn an_ended_rank_fails_the_rounds_that_include_it() {
        let mut m = FenceMatcher::default();
        let all = vec![p(pmix_sys::PMIX_RANK_WILDCARD)];
        m.contribute(all.clone(), None, set(&[0, 1]), 0, 1, vec![])
            .expect("ok");
        m.contribute(vec![p(0), p(2)], None, set(&[0, 1]), 0, 2, vec![])
            .expect("ok");
        m.contribute(vec![p(0), p(2)], None, set(&[0, 1]), 1, 3, vec![])
            .ok();
        m.contribute(vec![p(0), p(1)], None, set(&[0, 1]), 0, 4, vec![])
            .expect("ok");
        let mut failed = m.fail_including(&p(2));
        failed.sort();
        // The wildcard round and the {0,2} round (one contribution was its completion,
        // so that round is already gone); {0,1} stays.
        assert_eq!(failed, vec![(0, 1)]);
        assert_eq!(m.pending(), 1);
        assert_eq!(m.fail_including(&p(1)), vec![(0, 4)]);
        assert_eq!(m.pending(), 0);
    }
}
