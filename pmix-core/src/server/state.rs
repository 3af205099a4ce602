//! The server as a state machine: connection events, client requests, host completions
//! and timer expiries go in; frames to send, connections to close, host upcalls and timers
//! to start come out as [`Action`]s. No socket, thread or clock lives here, so tests can
//! drive it directly; `server/mod.rs` executes the actions on the progress thread.

mod dump;
mod upcall;
pub use upcall::Upcall;

use super::host::HostDone;
use super::modex::{self, FenceStats, ModexLog};
use crate::error::{Error, Result};
use crate::fasthash::FastMap;
use crate::protocol::{
    self, Blob, Contribution, Hello, ProcBlob, Put, ReplyData, Req, Request, ServerMsg, Welcome,
};
use crate::reactor::ConnId;
use crate::store::{keys, scope_searched, scope_visible, Entry, JobData, KvSet, Level, Reader};
use crate::value::{Info, Key, Nspace, ProcId, Rank, Value};
use pmix_sys as sys;
use std::collections::BTreeSet;
/// The state's tables hash with the client's fast hasher: std's SipHash of the fence
/// trackers' participant lists was a third of the server's work per fence (docs/PERF.md).
type HashMap<K, V> = FastMap<K, V>;
use std::time::Duration;

// The dynamic operations (connect, spawn, publish, queries, groups, events) live in their
// own files as children of this module, so they can reach the state directly.
#[path = "budget.rs"]
pub mod budget;
#[path = "connect.rs"]
mod connect;
#[path = "dynamic.rs"]
mod dynamic;
#[path = "events.rs"]
mod events;
#[path = "group.rs"]
mod group;
#[path = "tools.rs"]
mod tools;
pub use tools::ToolHello;
#[path = "hostops.rs"]
mod hostops;
#[path = "iof.rs"]
mod iof;
#[path = "query.rs"]
mod query;

pub use query::QueryState;

/// Something the glue must do after a state-machine step.
pub enum Action {
    /// Send this frame body on a connection.
    Send(ConnId, Vec<u8>),
    /// Send this frame body on a connection with these descriptors attached
    /// (`SCM_RIGHTS`; a Welcome's job-data segments). Should they not go (the
    /// connection's queue is not empty), the frame goes alone and the client asks for
    /// inline copies.
    SendFds(ConnId, Vec<u8>, Vec<std::sync::Arc<std::os::fd::OwnedFd>>),
    /// Close a connection (after sending what was queued).
    Close(ConnId),
    /// Hand a direct-modex answer to the host that asked.
    AnswerDmodex(HostDone<Vec<u8>>, Result<Vec<u8>>),
    /// Start a timer; when it fires call [`ServerState::timer`] with this event.
    Timer(Duration, TimerEv),
    /// Make a host upcall (carried out by `server/dispatch.rs`).
    Host(Upcall),
    /// Hand a chunk of forwarded output to a registration of the server process itself
    /// (its handler and id).
    IofLocal(crate::iof::IofHandler, u64, crate::iof::IofChunk),
}

/// What a timer means when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerEv {
    /// The fence tracker with this id timed out.
    Fence(u64),
    /// The parked Get with this id timed out.
    Get(u64),
    /// A dynamic operation (connect, disconnect, lookup, …) with this id timed out.
    Dyn(u64),
}

/// A registered client (allowed to connect).
#[derive(Debug, Clone, Copy)]
struct ClientReg {
    uid: u32,
    object: usize,
}

#[derive(Default)]
struct ProcData {
    kv: KvSet,
    committed: bool,
    remote: bool,
    /// What changed since the process last took part in a collecting fence (local procs).
    log: ModexLog,
}

struct NsState {
    job: JobData,
    nlocal: u32,
    local: BTreeSet<Rank>,
    clients: HashMap<Rank, ClientReg>,
    data: HashMap<Rank, ProcData>,
    /// Ranks whose connection closed (after `PMIx_Finalize` or not) and that have not
    /// connected again.
    gone: BTreeSet<Rank>,
    /// Ranks whose connection closed before `PMIx_Finalize` (vanished).
    lost: BTreeSet<Rank>,
    /// Ranks the host deregistered (`PMIx_server_deregister_client`): they can never
    /// connect again, so once not connected they will never arrive at a collective.
    dereg: BTreeSet<Rank>,
}

enum ConnState {
    /// Connected, handshake not yet seen; the kernel-reported uid.
    New { uid: u32 },
    /// A client that passed the handshake.
    Client { proc_: ProcId, finalized: bool },
    /// A tool whose handshake passed our checks, waiting for the host's `tool_connected`.
    ToolWaiting,
}

struct Arrival {
    conn: ConnId,
    tag: u32,
    /// The arriving process's contribution, for an allgather.
    contrib: Option<Contribution>,
}

/// What one fence is matched on: its sorted participants plus the optional private tag
/// ([`protocol::FENCE_TAG`]). PMIx fences carry no identity of their own, so two fences
/// over the same participants would otherwise complete each other; the tag (with a
/// sequence number in it) lets independent streams of collectives share a participant
/// set, as the communicators of a CUDA communications object do. Untagged fences behave
/// exactly as before.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct FenceKey {
    procs: Vec<ProcId>,
    tag: Option<String>,
}

/// The [`protocol::FENCE_TAG`] among a fence's directives.
fn fence_tag(info: &[Info]) -> Option<String> {
    info.iter()
        .find(|i| i.key.as_str() == protocol::FENCE_TAG)
        .and_then(|i| i.value.as_str().map(str::to_string))
}

struct Tracker {
    id: u64,
    procs: Vec<ProcId>,
    collect: bool,
    info: Vec<Info>,
    expected: usize,
    arrived: Vec<Arrival>,
    host_called: bool,
    /// Participants as a set of processes (wildcards expanded), for delta modex.
    set: Vec<ProcId>,
    /// Per local participant, the change number its section carried.
    sent: Vec<(ProcId, u64)>,
    /// An allgather ([`Req::Allgather`]): replies carry every contribution.
    gather: bool,
}

struct GetWaiter {
    id: u64,
    conn: ConnId,
    tag: u32,
    requester: ProcId,
    target: ProcId,
    key: Option<Key>,
    scope: Option<u8>,
}

/// A Get about a namespace not registered yet: it is re-run once the namespace is.
struct NsWaiter {
    id: u64,
    conn: ConnId,
    tag: u32,
    requester: ProcId,
    target: ProcId,
    key: Option<Key>,
    info: Vec<Info>,
}

/// What the last reply to one participant set's collecting fence carried: per process,
/// a fingerprint of each entry, sorted by key (see `ServerState::collected`).
type SentCollected = FastMap<ProcId, Vec<(Key, u64)>>;

/// The server's whole state.
pub struct ServerState {
    id: ProcId,
    hostname: String,
    nspaces: HashMap<Nspace, NsState>,
    /// What `PMIx_server_register_resources` recorded: job-level (and node) data every
    /// namespace sees, unless its own registration gives the key.
    resources: Vec<Info>,
    conns: HashMap<ConnId, ConnState>,
    by_proc: HashMap<ProcId, ConnId>,
    fences: HashMap<FenceKey, Tracker>,
    getters: Vec<GetWaiter>,
    ns_waiters: Vec<NsWaiter>,
    dmodex_out: BTreeSet<(ProcId, Option<Key>)>,
    dmodex_in: Vec<(ProcId, Option<Key>, HostDone<Vec<u8>>)>,
    next_id: u64,
    dynamic: dynamic::DynState,
    delta_modex: bool,
    stats: FenceStats,
    /// Per participant set of collecting fences, a fingerprint of every entry the last
    /// reply to that set carried (see `collected`).
    sent_collected: HashMap<Vec<ProcId>, SentCollected>,
    /// I/O forwarding: registrations and the output cache (see `server/iof.rs`).
    iof: iof::IofState,
    /// Tool connections (see `server/tools.rs`).
    pub(super) tools: tools::ToolState,
    /// Requests handed to host module slots (see `server/hostops.rs`).
    hostops: hostops::HostOpsState,
    /// Where namespaces' per-process tables are published for local clients (None: they
    /// travel inline in every Welcome).
    segments: Option<Segments>,
    /// Requests parked per connection, and their caps (see `server/budget.rs`).
    budget: budget::Budget,
}

/// Publication of per-process tables as sealed memory files clients map (`store::procs`).
#[derive(Debug)]
struct Segments {
    /// Smaller images travel inline (a mapping costs a client more than a copy).
    min: usize,
    /// Numbers the files' names (`pmix-jobdata.<n>`, seen in `/proc/<pid>/fd`).
    next: u64,
}

/// The environment variable that sets the smallest image published as a segment (bytes;
/// `0` publishes every non-empty one, `off` none).
pub const JOB_SEGMENT_MIN_ENV: &str = crate::params::JOB_SEGMENT_MIN;
/// Default of [`JOB_SEGMENT_MIN_ENV`].
pub const JOB_SEGMENT_MIN: usize = 8192;

fn reply(conn: ConnId, tag: u32, status: i32, data: ReplyData) -> Action {
    Action::Send(
        conn,
        protocol::encode(&ServerMsg::Reply { tag, status, data }),
    )
}

impl ServerState {
    /// A server with identity `id` running on `hostname`.
    pub fn new(id: ProcId, hostname: String) -> Self {
        ServerState {
            id,
            hostname,
            nspaces: HashMap::default(),
            resources: Vec::new(),
            conns: HashMap::default(),
            by_proc: HashMap::default(),
            fences: HashMap::default(),
            getters: Vec::new(),
            ns_waiters: Vec::new(),
            dmodex_out: BTreeSet::new(),
            dmodex_in: Vec::new(),
            next_id: 0,
            dynamic: Default::default(),
            delta_modex: false,
            stats: FenceStats::default(),
            sent_collected: HashMap::default(),
            iof: Default::default(),
            tools: Default::default(),
            hostops: Default::default(),
            segments: None,
            budget: Default::default(),
        }
    }

    /// Cap what each connection may have parked (see `server/budget.rs`).
    pub fn set_request_limits(&mut self, limits: budget::Limits) {
        self.budget.set_limits(limits);
    }

    /// Account for the replies among `actions` (of a step that served no request).
    pub fn settle(&mut self, actions: &[Action]) {
        if self.budget.concerns(actions) {
            self.budget.settle(None, actions);
        }
    }

    /// The requests parked for a connection (count, accounted bytes).
    pub fn parked(&self, conn: ConnId) -> (usize, usize) {
        self.budget.parked(conn)
    }

    /// Publish namespaces' per-process tables of at least `min` bytes as sealed memory
    /// files handed to local clients with their Welcome; `None` turns it off.
    pub fn set_segments(&mut self, min: Option<usize>) {
        self.segments = min.map(|min| Segments { min, next: 0 });
    }

    /// Turn delta modex on or off (see [`modex`]; the server reads
    /// `PMIX_MCA_pmix_server_fence_delta_modex` at start).
    pub fn set_delta_modex(&mut self, on: bool) {
        self.delta_modex = on;
    }

    /// What this server contributed to collecting fences so far.
    pub fn fence_stats(&self) -> FenceStats {
        self.stats
    }

    /// Data was published on behalf of `proc_` by another path than its commits
    /// (`register_resources`, a group collective): its next fence section is full.
    pub fn published_elsewhere(&mut self, proc_: &ProcId) {
        if let Some(ns) = self.nspaces.get_mut(&proc_.nspace) {
            ns.data
                .entry(proc_.rank)
                .or_default()
                .log
                .published_elsewhere();
        }
    }

    fn next(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The server's host name.
    pub fn hostname(&self) -> &str {
        &self.hostname
    }

    // ---------------------------------------------------------------- registration

    /// Register (or re-register) a namespace.
    pub fn register_nspace(&mut self, nspace: &Nspace, nlocal: u32, mut info: Vec<Info>) {
        // Resources come after the namespace's own infos, so its own values win.
        let own: Vec<Key> = info.iter().map(|i| i.key.clone()).collect();
        info.extend(
            self.resources
                .iter()
                .filter(|r| is_node_array(r) || !own.contains(&r.key))
                .cloned(),
        );
        let mut job = JobData::from_register(nspace, info);
        job.derive(&self.hostname);
        if let Some(seg) = self.segments.as_mut() {
            if job.procs.image().len() >= seg.min.max(1) {
                let name = format!("pmix-jobdata.{}", seg.next);
                seg.next += 1;
                if let Err(e) = job.procs.publish(&name) {
                    log::warn!(
                        "server: cannot publish {}'s job data as a sealed memory file, \
                         sending it inline: {}",
                        nspace,
                        e
                    );
                }
            }
        }
        let mut local: BTreeSet<Rank> = job.local_peers().unwrap_or_default().into_iter().collect();
        let (clients, data, gone, lost, dereg) = match self.nspaces.remove(nspace) {
            Some(old) => {
                local.extend(old.clients.keys().copied());
                (old.clients, old.data, old.gone, old.lost, old.dereg)
            }
            None => Default::default(),
        };
        self.nspaces.insert(
            nspace.clone(),
            NsState {
                job,
                nlocal,
                local,
                clients,
                data,
                gone,
                lost,
                dereg,
            },
        );
    }

    /// `PMIx_server_register_resources`: record data every job sees as job-level data
    /// (node descriptions given as `PMIX_NODE_INFO_ARRAY` as node data). Namespaces
    /// registered later get it with their registration; namespaces already registered get
    /// it in the server's store, where their clients read it with
    /// `PMIX_GET_REFRESH_CACHE` (or a Get the client cannot answer itself). A namespace's
    /// own value for a key wins over a resource.
    pub fn register_resources(&mut self, info: Vec<Info>) {
        for i in info {
            let old = if is_node_array(&i) {
                None
            } else {
                let pos = self.resources.iter().position(|r| r.key == i.key);
                pos.map(|p| self.resources.remove(p).value)
            };
            for ns in self.nspaces.values_mut() {
                let add = JobData::from_register(&ns.job.nspace, vec![i.clone()]);
                for j in add.job {
                    match ns.job.job.iter_mut().find(|x| x.key == j.key) {
                        // Replace a value that came from the previous registration.
                        Some(x) if old.as_ref() == Some(&x.value) => x.value = j.value,
                        Some(_) => {}
                        None => ns.job.job.push(j),
                    }
                }
                for n in add.nodes {
                    let same = ns.job.nodes.iter_mut().find(|m| {
                        (n.id.is_some() && m.id == n.id)
                            || (n.hostname.is_some() && m.hostname == n.hostname)
                    });
                    match same {
                        Some(m) => {
                            for x in n.info {
                                if !m.info.iter().any(|y| y.key == x.key) {
                                    m.info.push(x);
                                }
                            }
                        }
                        None => ns.job.nodes.push(n),
                    }
                }
            }
            self.resources.push(i);
        }
    }

    /// `PMIx_server_deregister_resources`: retract job-level data from the record and from
    /// every registered namespace, and tell their connected clients to drop it (one-way,
    /// like a committed deletion). A plain info removes every job-level and node entry with
    /// that key. A `PMIX_DATA_ARRAY` of infos narrows the removal to the node entries its
    /// `PMIX_NODEID`/`PMIX_HOSTNAME` name: its other members are the keys removed there,
    /// and with none the whole node entry goes; a node entry left holding only its
    /// identifiers is removed. Clients are told about a key once no entry of their
    /// namespace holds it any more.
    pub fn deregister_resources(&mut self, info: Vec<Info>, out: &mut Vec<Action>) {
        let mut gone: Vec<Key> = Vec::new();
        // Node entries narrowed by an id: (namespace, node id, hostname, keys; none = all).
        let mut node_gone: Vec<(Nspace, crate::store::NodeData)> = Vec::new();
        for i in info {
            match crate::store::info_array(&i.value) {
                Some(list) => {
                    let is_id =
                        |k: &Key| k.as_str() == keys::NODEID || k.as_str() == keys::HOSTNAME;
                    let ids: Vec<Info> = list.iter().filter(|x| is_id(&x.key)).cloned().collect();
                    let targets: Vec<Key> = list
                        .iter()
                        .filter(|x| !is_id(&x.key))
                        .map(|x| x.key.clone())
                        .collect();
                    if ids.is_empty() {
                        // No node named: the members are simply keys to remove.
                        gone.extend(targets.iter().cloned());
                        self.retract_everywhere(&targets);
                        continue;
                    }
                    let hit = |n: &crate::store::NodeData| {
                        ids.iter().any(|id| match id.key.as_str() {
                            keys::NODEID => {
                                n.id.is_some() && n.id.map(u64::from) == id.value.as_u64()
                            }
                            _ => n.hostname.is_some() && n.hostname.as_deref() == id.value.as_str(),
                        })
                    };
                    for (name, ns) in self.nspaces.iter_mut() {
                        for n in ns.job.nodes.iter_mut().filter(|n| hit(n)) {
                            if targets.is_empty() {
                                n.info.clear();
                            } else {
                                n.info.retain(|x| !targets.contains(&x.key));
                            }
                            node_gone.push((
                                name.clone(),
                                crate::store::NodeData {
                                    id: n.id,
                                    hostname: n.hostname.clone(),
                                    info: targets
                                        .iter()
                                        .filter_map(|k| Info::new(k.as_str(), Value::Undef).ok())
                                        .collect(),
                                },
                            ));
                        }
                        ns.job
                            .nodes
                            .retain(|n| n.info.iter().any(|x| !is_id(&x.key)));
                    }
                    self.resources.retain(|r| {
                        !(is_node_array(r)
                            && crate::store::info_array(&r.value).is_some_and(|l| {
                                let n = crate::store::NodeData {
                                    id: l
                                        .iter()
                                        .find(|x| x.key.as_str() == keys::NODEID)
                                        .and_then(|x| x.value.as_u64())
                                        .map(|v| v as u32),
                                    hostname: l
                                        .iter()
                                        .find(|x| x.key.as_str() == keys::HOSTNAME)
                                        .and_then(|x| x.value.as_str().map(str::to_string)),
                                    info: Vec::new(),
                                };
                                hit(&n)
                            }))
                    });
                }
                None => {
                    gone.push(i.key.clone());
                    self.retract_everywhere(std::slice::from_ref(&i.key));
                }
            }
        }
        gone.sort();
        gone.dedup();
        // One-way notices to the clients whose namespace no longer holds the key anywhere,
        // and, for removals narrowed to a node, to every client (one that holds another
        // namespace's job data after a connect drops it there too).
        for (&c, st) in &self.conns {
            let ConnState::Client { proc_, .. } = st else {
                continue;
            };
            let Some(ns) = self.nspaces.get(&proc_.nspace) else {
                continue;
            };
            for (name, node) in &node_gone {
                out.push(Action::Send(
                    c,
                    protocol::encode(&ServerMsg::ForgetNode {
                        nspace: name.clone(),
                        node: node.clone(),
                    }),
                ));
            }
            for k in &gone {
                let still = ns.job.job.iter().any(|x| &x.key == k)
                    || ns
                        .job
                        .nodes
                        .iter()
                        .any(|n| n.info.iter().any(|x| &x.key == k));
                if !still {
                    out.push(Action::Send(
                        c,
                        protocol::encode(&ServerMsg::Forget {
                            proc_: ProcId::new(proc_.nspace.clone(), sys::PMIX_RANK_WILDCARD),
                            key: k.clone(),
                        }),
                    ));
                }
            }
        }
    }

    fn retract_everywhere(&mut self, gone: &[Key]) {
        self.resources
            .retain(|r| is_node_array(r) || !gone.contains(&r.key));
        for ns in self.nspaces.values_mut() {
            ns.job.job.retain(|x| !gone.contains(&x.key));
            for n in ns.job.nodes.iter_mut() {
                n.info.retain(|x| !gone.contains(&x.key));
            }
        }
    }

    /// A namespace was just registered: Gets that were waiting for it run now (they are
    /// answered, or wait further for their key as any other Get).
    pub fn nspace_registered(&mut self, nspace: &Nspace, out: &mut Vec<Action>) {
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.ns_waiters)
            .into_iter()
            .partition(|w| &w.target.nspace == nspace);
        self.ns_waiters = later;
        for w in now {
            let (conn, tag) = (w.conn, w.tag);
            self.get(
                conn,
                tag,
                &w.requester,
                w.target,
                w.key,
                false,
                0,
                w.info,
                out,
            );
            // If it parks again, it keeps its id, so its PMIX_TIMEOUT timer still applies.
            if let Some(g) = self
                .getters
                .last_mut()
                .filter(|g| g.conn == conn && g.tag == tag)
            {
                g.id = w.id;
            }
        }
    }

    /// Forget a namespace (its clients' connections stay until they close).
    pub fn deregister_nspace(&mut self, nspace: &Nspace, out: &mut Vec<Action>) {
        // Its segment, if any, is freed once the last client that mapped it unmaps it.
        self.nspaces.remove(nspace);
        let (done, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.dmodex_in)
            .into_iter()
            .partition(|(p, _, _)| &p.nspace == nspace);
        self.dmodex_in = keep;
        for (p, _, d) in done {
            out.push(Action::AnswerDmodex(
                d,
                Err(Error::not_found(format!(
                    "{} deregistered before {} committed",
                    nspace, p
                ))),
            ));
        }
        let keys: Vec<FenceKey> = self
            .fences
            .keys()
            .filter(|k| k.procs.iter().any(|p| &p.nspace == nspace))
            .cloned()
            .collect();
        for k in keys {
            self.fail_fence(&k, sys::PMIX_ERR_NOT_FOUND, out);
        }
    }

    /// Allow `proc_` to connect from a peer with this uid.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a wildcard or otherwise invalid rank.
    pub fn register_client(&mut self, proc_: &ProcId, uid: u32) -> Result<()> {
        self.register_client_object(proc_, uid, 0)
    }

    /// [`ServerState::register_client`] with the host's opaque object for this client
    /// (a C host's `server_object`, handed back in its upcalls).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a wildcard or otherwise invalid rank.
    pub fn register_client_object(
        &mut self,
        proc_: &ProcId,
        uid: u32,
        object: usize,
    ) -> Result<()> {
        if proc_.rank >= sys::PMIX_RANK_VALID {
            return Err(Error::bad_param("register_client needs a real rank"));
        }
        let ns = self
            .nspaces
            .entry(proc_.nspace.clone())
            .or_insert_with(|| NsState {
                job: JobData {
                    nspace: proc_.nspace.clone(),
                    ..Default::default()
                },
                nlocal: 0,
                local: BTreeSet::new(),
                clients: HashMap::default(),
                data: HashMap::default(),
                gone: BTreeSet::new(),
                lost: BTreeSet::new(),
                dereg: BTreeSet::new(),
            });
        ns.clients.insert(proc_.rank, ClientReg { uid, object });
        ns.local.insert(proc_.rank);
        ns.gone.remove(&proc_.rank);
        ns.lost.remove(&proc_.rank);
        ns.dereg.remove(&proc_.rank);
        Ok(())
    }

    /// The host's object registered for a client (0 if none).
    pub fn client_object(&self, proc_: &ProcId) -> usize {
        self.nspaces
            .get(&proc_.nspace)
            .and_then(|ns| ns.clients.get(&proc_.rank))
            .map(|c| c.object)
            .unwrap_or(0)
    }

    /// Forget a client: the host says the process will not connect again (pmixrun says
    /// so when it has reaped the process). A process that finalized stays an expected
    /// participant of collectives while it may still `PMIx_Init` again (see
    /// `ServerState::ended`); from now on it is not, so every fence, connect or
    /// disconnect waiting for it fails with `PMIX_ERR_PROC_TERM_WO_SYNC`, and Gets
    /// waiting for its data get `PMIX_ERR_NOT_FOUND`. A client still connected keeps
    /// its connection; its close then counts as its end.
    ///
    /// A host may say the same of a process of another node (pmixrun's multi-node bench
    /// does when a process dies there): collectives here that include it fail as well,
    /// and Gets of its data keep waiting for the answer of its own node.
    pub fn deregister_client(&mut self, proc_: &ProcId, out: &mut Vec<Action>) {
        if proc_.rank >= sys::PMIX_RANK_VALID {
            return;
        }
        let local = self.is_local(proc_);
        let Some(ns) = self.nspaces.get_mut(&proc_.nspace) else {
            return;
        };
        ns.clients.remove(&proc_.rank);
        ns.dereg.insert(proc_.rank);
        if self.live(proc_) {
            return;
        }
        self.participant_ended(proc_, out);
        if local {
            self.target_gone(proc_, sys::PMIX_ERR_NOT_FOUND, out);
        }
    }

    /// True if `p` has a connection that has not sent `PMIx_Finalize`.
    fn live(&self, p: &ProcId) -> bool {
        self.by_proc.get(p).is_some_and(|c| {
            matches!(
                self.conns.get(c),
                Some(ConnState::Client {
                    finalized: false,
                    ..
                })
            )
        })
    }

    /// True if a participant named by `p` (a rank, or with `PMIX_RANK_WILDCARD` any local
    /// rank of its namespace) will never arrive at a collective: it vanished without
    /// `PMIx_Finalize`, or it is not connected and the host deregistered it.
    ///
    /// A process that merely finalized is still expected, as in OpenPMIx: it may call
    /// `PMIx_Init` again and take part (a program cycling init/finalize, as MPI
    /// sessions do, would otherwise see its collectives fail whenever a peer is between
    /// its finalize and its next init).
    fn ended(&self, p: &ProcId) -> bool {
        let Some(ns) = self.nspaces.get(&p.nspace) else {
            return false;
        };
        let dead = |r: Rank| {
            ns.lost.contains(&r)
                || (ns.dereg.contains(&r) && !self.live(&ProcId::new(p.nspace.clone(), r)))
        };
        if p.rank == sys::PMIX_RANK_WILDCARD {
            ns.lost.iter().chain(ns.dereg.iter()).any(|&r| dead(r))
        } else {
            dead(p.rank)
        }
    }

    /// If the local process `p` will publish nothing more, what a request for data it
    /// does not have is told: `PMIX_ERR_LOST_CONNECTION` if it vanished,
    /// `PMIX_ERR_NOT_FOUND` if it finalized and left (or was deregistered unconnected).
    fn departed(&self, p: &ProcId) -> Option<i32> {
        let Some(ns) = self.nspaces.get(&p.nspace) else {
            return Some(sys::PMIX_ERR_NOT_FOUND);
        };
        if ns.lost.contains(&p.rank) {
            Some(sys::PMIX_ERR_LOST_CONNECTION)
        } else if ns.gone.contains(&p.rank) || (ns.dereg.contains(&p.rank) && !self.live(p)) {
            Some(sys::PMIX_ERR_NOT_FOUND)
        } else {
            None
        }
    }

    /// `p` will never arrive: the fences and connects that include it fail.
    fn participant_ended(&mut self, p: &ProcId, out: &mut Vec<Action>) {
        let keys: Vec<FenceKey> = self
            .fences
            .keys()
            .filter(|k| includes(&k.procs, p))
            .cloned()
            .collect();
        for k in keys {
            log::warn!(
                "server: fence over {:?} fails: participant {} ended",
                k.procs,
                p
            );
            self.fail_fence(&k, sys::PMIX_ERR_PROC_TERM_WO_SYNC, out);
        }
        self.connect_participant_gone(p, true, out);
    }

    // ---------------------------------------------------------------- connections

    /// A peer connected; `uid` is what `SO_PEERCRED` reported.
    pub fn connected(&mut self, conn: ConnId, uid: u32) {
        self.conns.insert(conn, ConnState::New { uid });
    }

    /// Check a handshake. `Ok(proc)` means the glue should ask the host
    /// (`client_connected`) and then call [`ServerState::accept`] or
    /// [`ServerState::refuse`].
    pub fn check_hello(&mut self, conn: ConnId, body: &[u8]) -> Result<ProcId> {
        let Some(ConnState::New { uid }) = self.conns.get(&conn) else {
            return Err(Error::bad_param(
                "handshake on a connection that already had one",
            ));
        };
        let uid = *uid;
        let hello: Hello = protocol::decode(body)
            .map_err(|e| Error::unpack(format!("bad handshake: {}", e.context)))?;
        if hello.version != protocol::VERSION {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_SUPPORTED,
                format!(
                    "protocol version {} (we speak {})",
                    hello.version,
                    protocol::VERSION
                ),
            ));
        }
        if hello.kind != protocol::PeerKind::Client {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_SUPPORTED,
                "a tool handshake on the client path",
            ));
        }
        let p = hello.proc_;
        let reg = self
            .nspaces
            .get(&p.nspace)
            .and_then(|ns| ns.clients.get(&p.rank))
            .copied()
            .ok_or_else(|| {
                Error::new(
                    sys::PMIX_ERR_NOT_FOUND,
                    format!("{} is not a registered client", p),
                )
            })?;
        if reg.uid != uid {
            return Err(Error::new(
                sys::PMIX_ERR_INVALID_CRED,
                format!(
                    "{}: peer uid {} but the client was registered for uid {}",
                    p, uid, reg.uid
                ),
            ));
        }
        // A client that finalized and reconnects (repeated PMIx_Init) may race its own
        // old connection's close: a finalized connection does not block a new one.
        let old_live = self.by_proc.get(&p).is_some_and(|c| {
            !matches!(
                self.conns.get(c),
                Some(ConnState::Client {
                    finalized: true,
                    ..
                })
            )
        });
        if old_live {
            return Err(Error::new(
                sys::PMIX_ERR_EXISTS,
                format!("{} is already connected", p),
            ));
        }
        Ok(p)
    }

    /// Accept a checked client: send the welcome with its namespace's job data.
    pub fn accept(&mut self, conn: ConnId, proc_: ProcId, out: &mut Vec<Action>) {
        let jobs: Vec<&JobData> = self
            .nspaces
            .get(&proc_.nspace)
            .map(|ns| &ns.job)
            .into_iter()
            .collect();
        let mut fds = Vec::new();
        let body = protocol::encode_welcome_accepted(&self.id, &proc_, &jobs, &mut fds);
        out.push(if fds.is_empty() {
            Action::Send(conn, body)
        } else {
            Action::SendFds(conn, body, fds)
        });
        if let Some(ns) = self.nspaces.get_mut(&proc_.nspace) {
            // A process that finalized and called PMIx_Init again is back.
            ns.gone.remove(&proc_.rank);
        }
        self.by_proc.insert(proc_.clone(), conn);
        self.conns.insert(
            conn,
            ConnState::Client {
                proc_,
                finalized: false,
            },
        );
    }

    /// Refuse a handshake: send the reason and close.
    pub fn refuse(&mut self, conn: ConnId, e: &Error, out: &mut Vec<Action>) {
        log::warn!("server: refusing connection {}: {}", conn, e);
        let w = Welcome::Refused {
            status: protocol::status_of(e),
            reason: e.context.clone(),
        };
        out.push(Action::Send(conn, protocol::encode(&w)));
        out.push(Action::Close(conn));
        self.conns.remove(&conn);
    }

    /// True if the connection has passed the handshake.
    pub fn is_client(&self, conn: ConnId) -> bool {
        matches!(self.conns.get(&conn), Some(ConnState::Client { .. }))
    }

    /// True while a connection has not sent its handshake yet (a tool whose handshake
    /// waits for the host's verdict has sent it).
    pub fn awaiting_hello(&self, conn: ConnId) -> bool {
        matches!(self.conns.get(&conn), Some(ConnState::New { .. }))
    }

    /// A connection closed (peer went away, or we closed it on a malformed frame).
    pub fn closed(&mut self, conn: ConnId, out: &mut Vec<Action>) {
        self.hostops_conn_gone(conn);
        self.budget.closed(conn);
        let Some(st) = self.conns.remove(&conn) else {
            return;
        };
        let ConnState::Client { proc_, finalized } = st else {
            return;
        };
        if self.tools.conns.remove(&conn) {
            self.tool_closed(conn, &proc_, finalized, out);
            return;
        }
        self.getters.retain(|g| g.conn != conn);
        self.ns_waiters.retain(|g| g.conn != conn);
        self.iof_conn_gone(conn);
        if self.by_proc.get(&proc_).is_some_and(|&c| c != conn) {
            // The process already reconnected (finalize, then Init again): this was its
            // old, finalized connection, and the process is not gone.
            return;
        }
        self.by_proc.remove(&proc_);
        for t in self.fences.values_mut() {
            t.arrived.retain(|a| a.conn != conn);
        }
        let mut deregistered = false;
        if let Some(ns) = self.nspaces.get_mut(&proc_.nspace) {
            ns.gone.insert(proc_.rank);
            if !finalized {
                ns.lost.insert(proc_.rank);
            }
            deregistered = ns.dereg.contains(&proc_.rank);
        }
        self.dyn_gone(&proc_, finalized, out);
        if finalized {
            // Still expected in fences unless it can never come back (see `ended`).
            if deregistered {
                self.participant_ended(&proc_, out);
            }
            self.target_gone(&proc_, sys::PMIX_ERR_NOT_FOUND, out);
            return;
        }
        log::warn!("server: client {} disconnected without finalizing", proc_);
        out.push(Action::Host(Upcall::Lost(proc_.clone())));
        // Every fence it takes part in can never complete now.
        self.participant_ended(&proc_, out);
        self.tell_peers_lost(&proc_, out);
        // As in OpenPMIx, whoever waits for a vanished process's data is told that the
        // connection dropped (a finalized process's missing data is just not found).
        self.target_gone(&proc_, sys::PMIX_ERR_LOST_CONNECTION, out);
    }

    /// Pending Gets and direct-modex requests for a process that is gone end now, with
    /// `status`.
    fn target_gone(&mut self, proc_: &ProcId, status: i32, out: &mut Vec<Action>) {
        let (done, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.getters)
            .into_iter()
            .partition(|g| &g.target == proc_);
        self.getters = keep;
        for g in done {
            out.push(reply(g.conn, g.tag, status, ReplyData::None));
        }
        let (done, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.dmodex_in)
            .into_iter()
            .partition(|(p, _, _)| p == proc_);
        self.dmodex_in = keep;
        for (_, _, d) in done {
            out.push(Action::AnswerDmodex(
                d,
                Err(Error::new(
                    status,
                    format!("{} ended without committing", proc_),
                )),
            ));
        }
    }

    /// A frame from an accepted client.
    pub fn request(&mut self, conn: ConnId, body: &[u8], out: &mut Vec<Action>) -> Result<()> {
        let Some(ConnState::Client { proc_, finalized }) = self.conns.get(&conn) else {
            return Err(Error::bad_param("request before handshake"));
        };
        let (me, finalized) = (proc_.clone(), *finalized);
        let Request { tag, req } = protocol::decode(body)?;
        if finalized {
            // PMIx_Finalize was the client's last word on this connection: whatever it
            // sends later is refused (a one-way request, tag 0, is dropped), as the
            // client library itself refuses calls after finalize. Serving it could start
            // collectives the client will never see through.
            log::warn!(
                "server: {} sent a request after PMIx_Finalize; refused with PMIX_ERR_INIT",
                me
            );
            if tag != 0 {
                out.push(reply(conn, tag, sys::PMIX_ERR_INIT, ReplyData::None));
            }
            return Ok(());
        }
        let exempt = matches!(req, Req::Finalize | Req::Abort { .. });
        if tag != 0 && !exempt && !self.budget.admit(conn, body.len(), &me) {
            out.push(reply(
                conn,
                tag,
                sys::PMIX_ERR_OUT_OF_RESOURCE,
                ReplyData::None,
            ));
            return Ok(());
        }
        let start = out.len();
        self.serve(conn, tag, me, req, out);
        let served = (tag != 0).then_some((conn, tag, body.len()));
        self.budget.settle(served, &out[start..]);
        Ok(())
    }

    /// Serve one decoded request of an accepted client.
    fn serve(&mut self, conn: ConnId, tag: u32, me: ProcId, req: Req, out: &mut Vec<Action>) {
        match req {
            Req::Commit { puts } => self.commit(&me, puts, out),
            Req::Fence {
                procs,
                collect,
                timeout_ms,
                info,
            } => self.fence(conn, tag, &me, procs, collect, timeout_ms, info, None, out),
            Req::Allgather {
                procs,
                timeout_ms,
                info,
                data,
            } => self.fence(
                conn,
                tag,
                &me,
                procs,
                false,
                timeout_ms,
                info,
                Some(data),
                out,
            ),
            Req::Get {
                target,
                key,
                immediate,
                timeout_ms,
                info,
            } => self.get(
                conn, tag, &me, target, key, immediate, timeout_ms, info, out,
            ),
            Req::JobData { nspace } => match self.nspaces.get(&nspace) {
                Some(ns) => out.push(reply(
                    conn,
                    tag,
                    sys::PMIX_SUCCESS,
                    ReplyData::Job(Box::new(ns.job.clone())),
                )),
                None => out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None)),
            },
            Req::Abort {
                status,
                msg,
                targets,
            } => out.push(Action::Host(Upcall::Abort {
                conn,
                tag,
                proc_: me,
                status,
                msg,
                targets,
            })),
            Req::Finalize => {
                if let Some(ConnState::Client { finalized, .. }) = self.conns.get_mut(&conn) {
                    *finalized = true;
                }
                if self.is_tool(conn) {
                    // A tool is not the host's client: no host upcall, no job effects.
                    self.tool_finalize(conn, tag, out);
                    return;
                }
                self.iof_conn_gone(conn);
                self.dyn_finalized(&me, out);
                // The client is released only after the host has recorded the finalize
                // (a host may otherwise see the process exit first and call it abnormal).
                out.push(Action::Host(Upcall::Finalized {
                    conn,
                    tag,
                    proc_: me,
                }));
            }
            Req::Dyn(r) => self.dyn_request(conn, tag, &me, r, out),
            Req::Iof(r) => self.iof_request(conn, tag, &me, r, out),
            Req::Notify {
                status,
                range,
                info,
            } => self.client_notify(conn, tag, &me, status, range, info, out),
        }
    }

    /// Send an event to every connected client (a host's `PMIx_Notify_event`).
    pub fn notify(&mut self, status: i32, source: &ProcId, info: Vec<Info>, out: &mut Vec<Action>) {
        self.host_notify(status, source, sys::PMIX_RANGE_SESSION, info, out);
    }

    /// The host has recorded a client's finalize: release the client (whatever the host
    /// said, the client is finalizing).
    pub fn finalize_done(&mut self, conn: ConnId, tag: u32, out: &mut Vec<Action>) {
        out.push(reply(conn, tag, sys::PMIX_SUCCESS, ReplyData::None));
    }

    /// The host answered an abort upcall.
    pub fn abort_done(&mut self, conn: ConnId, tag: u32, r: Result<()>, out: &mut Vec<Action>) {
        let status = match r {
            Ok(()) => sys::PMIX_SUCCESS,
            Err(e) => protocol::status_of(&e),
        };
        out.push(reply(conn, tag, status, ReplyData::None));
    }

    // ---------------------------------------------------------------- data

    fn commit(&mut self, who: &ProcId, puts: Vec<Put>, out: &mut Vec<Action>) {
        let Some(ns) = self.nspaces.get_mut(&who.nspace) else {
            return;
        };
        let pd = ns.data.entry(who.rank).or_default();
        let mut deleted = Vec::new();
        for p in puts {
            if matches!(
                p.scope,
                sys::PMIX_LOCAL | sys::PMIX_REMOTE | sys::PMIX_GLOBAL
            ) {
                pd.log.put(&p.key);
                pd.kv.put(p.key, p.scope, p.value);
            } else if matches!(
                p.scope,
                sys::PMIX_DEL_LOCAL | sys::PMIX_DEL_REMOTE | sys::PMIX_DEL_GLOBAL
            ) {
                // A deletion removes the key if it was visible in the scope it names;
                // deleting an absent key is not an error.
                let drop_it = match pd.kv.map.get(&p.key) {
                    Some(e) => match p.scope {
                        sys::PMIX_DEL_GLOBAL => true,
                        sys::PMIX_DEL_LOCAL => {
                            matches!(e.scope, sys::PMIX_LOCAL | sys::PMIX_GLOBAL)
                        }
                        _ => matches!(e.scope, sys::PMIX_REMOTE | sys::PMIX_GLOBAL),
                    },
                    None => false,
                };
                if drop_it {
                    pd.kv.map.remove(&p.key);
                    pd.log.delete(&p.key, p.scope);
                    deleted.push(p.key);
                }
            } else {
                log::warn!(
                    "server: {} committed key {} with scope {}; ignored",
                    who,
                    p.key,
                    p.scope
                );
            }
        }
        pd.committed = true;
        // Local clients that cached a deleted key drop it (one-way notice).
        for k in deleted {
            let msg = protocol::encode(&ServerMsg::Forget {
                proc_: who.clone(),
                key: k,
            });
            for (&c, st) in &self.conns {
                if matches!(st, ConnState::Client { proc_, .. } if proc_ != who) {
                    out.push(Action::Send(c, msg.clone()));
                }
            }
        }
        // Parked Gets for this process that can now be answered.
        let waiting: Vec<GetWaiter> = {
            let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.getters)
                .into_iter()
                .partition(|g| &g.target == who && self.has_key(&g.target, g.key.as_ref()));
            self.getters = later;
            now
        };
        for g in waiting {
            self.answer_get(
                g.conn,
                g.tag,
                &g.requester,
                &g.target,
                g.key.as_ref(),
                g.scope,
                out,
            );
        }
        // Direct-modex requests from other nodes (those naming a key wait for that key).
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.dmodex_in)
            .into_iter()
            .partition(|(p, k, _)| p == who && self.has_key(p, k.as_ref()));
        self.dmodex_in = later;
        for (p, _, d) in now {
            let blob = self.blob_for(std::slice::from_ref(&p), true);
            out.push(Action::AnswerDmodex(d, Ok(blob)));
        }
    }

    fn proc_data(&self, p: &ProcId) -> Option<&ProcData> {
        self.nspaces.get(&p.nspace)?.data.get(&p.rank)
    }

    fn has_key(&self, p: &ProcId, key: Option<&Key>) -> bool {
        match self.proc_data(p) {
            Some(pd) => match key {
                Some(k) => pd.kv.map.contains_key(k),
                None => pd.committed || pd.remote,
            },
            None => false,
        }
    }

    fn is_local(&self, p: &ProcId) -> bool {
        self.nspaces
            .get(&p.nspace)
            .map(|ns| ns.local.contains(&p.rank) || ns.clients.contains_key(&p.rank))
            .unwrap_or(false)
    }

    /// Reply to a Get from what the store holds now.
    #[allow(clippy::too_many_arguments)]
    fn answer_get(
        &self,
        conn: ConnId,
        tag: u32,
        requester: &ProcId,
        target: &ProcId,
        key: Option<&Key>,
        scope: Option<u8>,
        out: &mut Vec<Action>,
    ) {
        let reader = if requester == target {
            Reader::Owner
        } else if self.proc_data(target).map(|d| d.remote).unwrap_or(false) {
            Reader::Remote // data that came from another node is visible to all of us
        } else {
            Reader::Local
        };
        let Some(pd) = self.proc_data(target) else {
            out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
            return;
        };
        if let Some(k) = key {
            match pd.kv.map.get(k) {
                None => {
                    out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
                    return;
                }
                Some(e) if scope.is_some_and(|want| !scope_searched(e.scope, want)) => {
                    // PMIX_DATA_SCOPE restricts the search to values visible in that scope.
                    out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
                    return;
                }
                Some(Entry { scope, .. }) if !scope_visible(*scope, reader) => {
                    out.push(reply(
                        conn,
                        tag,
                        sys::PMIX_ERR_EXISTS_OUTSIDE_SCOPE,
                        ReplyData::None,
                    ));
                    return;
                }
                Some(_) => {}
            }
        }
        out.push(reply(
            conn,
            tag,
            sys::PMIX_SUCCESS,
            ReplyData::Data(match scope {
                None => pd.kv.visible(reader),
                Some(want) => {
                    let mut only = pd.kv.clone();
                    only.map.retain(|_, e| scope_searched(e.scope, want));
                    only.visible(reader)
                }
            }),
        ));
    }

    #[allow(clippy::too_many_arguments)]
    fn get(
        &mut self,
        conn: ConnId,
        tag: u32,
        requester: &ProcId,
        target: ProcId,
        key: Option<Key>,
        immediate: bool,
        timeout_ms: u32,
        info: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        if self.dyn_get(conn, tag, &target, key.as_ref(), out) {
            return;
        }
        // A namespace we do not know yet may still be registered (a job started later):
        // unless told not to wait, the Get waits for it (bounded by its PMIX_TIMEOUT).
        if !immediate && !self.nspaces.contains_key(&target.nspace) {
            let id = self.next();
            if timeout_ms > 0 {
                out.push(Action::Timer(
                    Duration::from_millis(timeout_ms as u64),
                    TimerEv::Get(id),
                ));
            }
            log::debug!(
                "server: Get from {} waits for namespace {} to be registered",
                requester,
                target.nspace
            );
            self.ns_waiters.push(NsWaiter {
                id,
                conn,
                tag,
                requester: requester.clone(),
                target,
                key,
                info,
            });
            return;
        }
        // Reserved keys and job-level requests are answered from the registered job data
        // (a process may also have published a reserved key itself; that wins).
        let reserved = key
            .as_ref()
            .map(|k| k.is_reserved() && k.as_str() != crate::store::qualified::CONTAINER)
            .unwrap_or(false);
        let in_job_data = match (&key, self.nspaces.get(&target.nspace)) {
            (Some(k), Some(ns)) => ns
                .job
                .proc_value(target.rank, k.as_str(), Level::Any)
                .is_some(),
            _ => false,
        };
        if target.rank == sys::PMIX_RANK_WILDCARD
            || ((reserved || in_job_data) && !self.has_key(&target, key.as_ref()))
        {
            let v = self.nspaces.get(&target.nspace).and_then(|ns| {
                let k = key.as_ref()?;
                if target.rank == sys::PMIX_RANK_WILDCARD {
                    ns.job
                        .job_value(k.as_str(), Level::Any, Some(&self.hostname))
                        .map(std::borrow::Cow::into_owned)
                } else {
                    ns.job
                        .proc_value(target.rank, k.as_str(), Level::Any)
                        .map(std::borrow::Cow::into_owned)
                }
                .map(|value| Info {
                    key: k.clone(),
                    flags: 0,
                    value,
                })
            });
            match v {
                Some(i) => out.push(reply(
                    conn,
                    tag,
                    sys::PMIX_SUCCESS,
                    ReplyData::Data(vec![i]),
                )),
                None => out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None)),
            }
            return;
        }
        let refresh = info
            .iter()
            .any(|i| i.key.as_str() == keys::GET_REFRESH_CACHE && i.value.is_true());
        let scope = info
            .iter()
            .find(|i| i.key.as_str() == keys::DATA_SCOPE)
            .and_then(|i| match i.value {
                Value::Scope(s) => Some(s),
                _ => i.value.as_u64().and_then(|v| u8::try_from(v).ok()),
            });
        let local = self.is_local(&target);
        let have = self.has_key(&target, key.as_ref());
        // A refresh of a remote target's data asks its node again (direct modex), unless
        // PMIX_IMMEDIATE limits the answer to what this server holds.
        if have && (local || !refresh || immediate) {
            self.answer_get(conn, tag, requester, &target, key.as_ref(), scope, out);
            return;
        }
        if immediate {
            out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
            return;
        }
        let known_ns = self.nspaces.contains_key(&target.nspace);
        if !known_ns {
            // Nothing can arrive for a namespace we were never told about.
            out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
            return;
        }
        if local {
            if let Some(status) = self.departed(&target) {
                out.push(reply(conn, tag, status, ReplyData::None));
                return;
            }
        } else if known_ns && !self.dmodex_out.contains(&(target.clone(), key.clone())) {
            // Another node holds it: ask the host (once per process and key at a time).
            let mut dinfo = info.clone();
            if let Some(k) = &key {
                if let Ok(i) = Info::new(keys::REQUIRED_KEY, Value::string(k.as_str())) {
                    dinfo.push(i);
                }
            }
            self.dmodex_out.insert((target.clone(), key.clone()));
            out.push(Action::Host(Upcall::Dmodex {
                proc_: target.clone(),
                key: key.clone(),
                info: dinfo,
            }));
        }
        let id = self.next();
        if timeout_ms > 0 {
            out.push(Action::Timer(
                Duration::from_millis(timeout_ms as u64),
                TimerEv::Get(id),
            ));
        }
        self.getters.push(GetWaiter {
            id,
            conn,
            tag,
            requester: requester.clone(),
            target,
            key,
            scope,
        });
    }

    /// The host answered our direct-modex request for `proc_` (asked for `key`).
    ///
    /// Parked Gets for `proc_` whose key is now here are answered; a Get for `key` that is
    /// still missing gets `PMIX_ERR_NOT_FOUND` (the other node answered without it);
    /// Gets for other keys keep waiting for their own requests.
    pub fn dmodex_done(
        &mut self,
        proc_: &ProcId,
        key: Option<&Key>,
        r: Result<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        let asked = (proc_.clone(), key.cloned());
        self.dmodex_out.remove(&asked);
        let res = r.and_then(|b| protocol::decode_blobs(&b));
        let ok = res.is_ok();
        if let Ok(blobs) = &res {
            self.store_blobs(blobs.clone(), out);
        }
        let (mine, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.getters)
            .into_iter()
            .partition(|g| {
                &g.target == proc_
                    && ((ok && self.has_key(&g.target, g.key.as_ref())) || g.key.as_ref() == key)
            });
        self.getters = keep;
        match res {
            Ok(_) => {
                for g in mine {
                    self.answer_get(
                        g.conn,
                        g.tag,
                        &g.requester,
                        &g.target,
                        g.key.as_ref(),
                        g.scope,
                        out,
                    );
                }
            }
            Err(e) => {
                log::warn!("server: direct modex for {} failed: {}", proc_, e);
                for g in mine {
                    out.push(reply(
                        g.conn,
                        g.tag,
                        protocol::status_of(&e),
                        ReplyData::None,
                    ));
                }
            }
        }
    }

    /// Another node asks (through its host and ours) for `proc_`'s data.
    pub fn dmodex_request(
        &mut self,
        proc_: &ProcId,
        done: HostDone<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        self.dmodex_request_key(proc_, None, done, out)
    }

    /// [`ServerState::dmodex_request`] for a request naming a key (`PMIX_REQUIRED_KEY`):
    /// the answer waits until `proc_` has committed that key (or is gone).
    pub fn dmodex_request_key(
        &mut self,
        proc_: &ProcId,
        key: Option<Key>,
        done: HostDone<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        let Some(ns) = self.nspaces.get(&proc_.nspace) else {
            if proc_.rank == sys::PMIX_RANK_WILDCARD {
                out.push(Action::AnswerDmodex(
                    done,
                    Err(Error::not_found(format!(
                        "namespace {} unknown",
                        proc_.nspace
                    ))),
                ));
            } else {
                // Another node's client may ask before our host has registered the job
                // here (hosts register a job on each node at their own pace): wait for
                // the process to commit, as for a registered one.
                log::debug!("server: direct modex for {} waits for its namespace", proc_);
                self.dmodex_in.push((proc_.clone(), key, done));
            }
            return;
        };
        if proc_.rank == sys::PMIX_RANK_WILDCARD {
            // Job-level data travels as one pseudo-process entry of GLOBAL values.
            let mut blob = Blob::new(true);
            blob.procs.push(ProcBlob::full(
                proc_.clone(),
                ns.job
                    .job
                    .iter()
                    .map(|i| {
                        (
                            i.key.clone(),
                            Entry {
                                scope: sys::PMIX_GLOBAL,
                                value: i.value.clone(),
                            },
                        )
                    })
                    .collect(),
            ));
            out.push(Action::AnswerDmodex(done, Ok(protocol::encode_blob(&blob))));
            return;
        }
        let committed = ns
            .data
            .get(&proc_.rank)
            .map(|d| d.committed)
            .unwrap_or(false);
        if committed && self.has_key(proc_, key.as_ref()) {
            let blob = self.blob_for(std::slice::from_ref(proc_), true);
            out.push(Action::AnswerDmodex(done, Ok(blob)));
        } else if let Some(status) = self.departed(proc_) {
            out.push(Action::AnswerDmodex(
                done,
                Err(Error::new(
                    status,
                    format!("{} ended without committing", proc_),
                )),
            ));
        } else {
            self.dmodex_in.push((proc_.clone(), key, done));
        }
    }

    /// A direct-modex answer: the full sections of `procs` (local processes only).
    fn blob_for(&self, procs: &[ProcId], collect: bool) -> Vec<u8> {
        let mut blob = Blob::new(collect);
        if collect {
            for p in procs {
                if let Some(pd) = self.proc_data(p) {
                    if !pd.remote {
                        blob.procs
                            .push(modex::full_section(p, &pd.kv, Some(&pd.log)));
                    }
                }
            }
        }
        protocol::encode_blob(&blob)
    }

    /// Our contribution to a collecting fence over the participant `set`: one section per
    /// local participant (full or delta, see [`modex`]), with the change number each one
    /// covers.
    fn fence_contribution(&self, procs: &[ProcId], set: &[ProcId]) -> (Blob, Vec<(ProcId, u64)>) {
        let mut blob = Blob::new(true);
        blob.delta = self.delta_modex;
        let mut sent = Vec::new();
        for p in procs {
            // A participant that never committed has nothing to say.
            let Some(pd) = self.proc_data(p).filter(|pd| !pd.remote) else {
                continue;
            };
            let (sec, seq) = pd.log.section(p, &pd.kv, set, self.delta_modex);
            blob.procs.push(sec);
            sent.push((p.clone(), seq));
        }
        (blob, sent)
    }

    /// Store what other servers sent (fence or direct modex). Our own processes' sections
    /// are skipped (ours are fresher). Keys a section deletes are dropped, and every
    /// local client is told to forget them.
    fn store_blobs(&mut self, blobs: Vec<Blob>, out: &mut Vec<Action>) {
        let mut forget = Vec::new();
        for b in blobs {
            for pb in b.procs {
                if self.is_local(&pb.proc_) {
                    continue; // our own clients' data is already here, and fresher
                }
                let Some(ns) = self.nspaces.get_mut(&pb.proc_.nspace) else {
                    continue;
                };
                if pb.proc_.rank == sys::PMIX_RANK_WILDCARD {
                    continue;
                }
                let who = pb.proc_.clone();
                let pd = ns.data.entry(pb.proc_.rank).or_default();
                pd.remote = true;
                for k in modex::apply_section(&mut pd.kv, pb) {
                    forget.push((who.clone(), k));
                }
            }
        }
        for (who, key) in forget {
            let msg = protocol::encode(&ServerMsg::Forget { proc_: who, key });
            for (&c, st) in &self.conns {
                if matches!(st, ConnState::Client { .. }) {
                    out.push(Action::Send(c, msg.clone()));
                }
            }
        }
    }

    // ---------------------------------------------------------------- fences

    /// Local participants a fence over `procs` waits for, and whether all participants
    /// are local. `Err` for an unknown namespace.
    fn fence_shape(&self, procs: &[ProcId]) -> Result<(usize, bool)> {
        let mut n = 0usize;
        let mut all_local = true;
        for p in procs {
            let ns = self.nspaces.get(&p.nspace).ok_or_else(|| {
                Error::bad_param(format!("fence names unknown namespace {}", p.nspace))
            })?;
            if p.rank == sys::PMIX_RANK_WILDCARD {
                let nlocal = if ns.nlocal > 0 {
                    ns.nlocal as usize
                } else {
                    ns.local.len()
                };
                n += nlocal;
                if let Some(size) = ns.job.job_size() {
                    if size as usize > nlocal {
                        all_local = false;
                    }
                }
            } else if ns.local.contains(&p.rank) || ns.clients.contains_key(&p.rank) {
                n += 1;
            } else {
                all_local = false;
            }
        }
        Ok((n, all_local))
    }

    #[allow(clippy::too_many_arguments)]
    fn fence(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        mut procs: Vec<ProcId>,
        collect: bool,
        timeout_ms: u32,
        info: Vec<Info>,
        data: Option<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        if procs.is_empty() {
            procs.push(ProcId::new(me.nspace.clone(), sys::PMIX_RANK_WILDCARD));
        }
        procs.sort();
        procs.dedup();
        if !includes(&procs, me) {
            out.push(reply(
                conn,
                tag,
                sys::PMIX_ERR_NOT_A_MEMBER,
                ReplyData::None,
            ));
            return;
        }
        // A participant that already vanished (or finalized and was deregistered) can
        // never arrive.
        if procs.iter().any(|p| self.ended(p)) {
            out.push(reply(
                conn,
                tag,
                sys::PMIX_ERR_PROC_TERM_WO_SYNC,
                ReplyData::None,
            ));
            return;
        }
        let (expected, _) = match self.fence_shape(&procs) {
            Ok(s) => s,
            Err(e) => {
                out.push(reply(conn, tag, protocol::status_of(&e), ReplyData::None));
                return;
            }
        };
        let key = FenceKey {
            procs,
            tag: fence_tag(&info),
        };
        let gather = data.is_some();
        if !self.fences.contains_key(&key) {
            let id = self.next();
            self.fences.insert(
                key.clone(),
                Tracker {
                    id,
                    procs: key.procs.clone(),
                    collect,
                    info,
                    expected,
                    arrived: Vec::new(),
                    host_called: false,
                    set: Vec::new(),
                    sent: Vec::new(),
                    gather,
                },
            );
        }
        let Some(t) = self.fences.get_mut(&key) else {
            return;
        };
        if t.gather != gather {
            log::warn!(
                "server: {} entered an allgather where the others entered a fence (or the reverse)",
                me
            );
            out.push(reply(conn, tag, sys::PMIX_ERR_BAD_PARAM, ReplyData::None));
            return;
        }
        if t.collect != collect {
            log::warn!(
                "server: {} entered a fence with a different PMIX_COLLECT_DATA than the others",
                me
            );
            out.push(reply(conn, tag, sys::PMIX_ERR_BAD_PARAM, ReplyData::None));
            return;
        }
        // A participant arriving again has given up on its earlier request (its own wait
        // timed out): that request ends now, and it counts once.
        if let Some(pos) = t.arrived.iter().position(|a| a.conn == conn) {
            let old = t.arrived.remove(pos);
            out.push(reply(
                old.conn,
                old.tag,
                sys::PMIX_ERR_TIMEOUT,
                ReplyData::None,
            ));
        }
        t.arrived.push(Arrival {
            conn,
            tag,
            contrib: data.map(|data| Contribution {
                proc_: me.clone(),
                data,
            }),
        });
        // Each participant's PMIX_TIMEOUT bounds the fence for every participant: the
        // first timer to fire fails it for all of them (later ones find no tracker).
        if timeout_ms > 0 {
            out.push(Action::Timer(
                Duration::from_millis(timeout_ms as u64),
                TimerEv::Fence(t.id),
            ));
        }
        if t.arrived.len() >= t.expected && !t.host_called {
            self.fence_locally_complete(&key, out);
        }
    }

    fn fence_locally_complete(&mut self, key: &FenceKey, out: &mut Vec<Action>) {
        let all_local = match self.fence_shape(&key.procs) {
            Ok((_, a)) => a,
            Err(_) => true,
        };
        if all_local {
            if let Some(t) = self.fences.remove(key) {
                if t.gather {
                    let all = t.arrived.iter().filter_map(|a| a.contrib.clone()).collect();
                    release_gather(t.arrived, all, out);
                } else {
                    self.release_fence(&t.procs, t.collect, t.arrived, sys::PMIX_SUCCESS, out);
                }
            }
            return;
        }
        let Some(t) = self.fences.get(key) else {
            return;
        };
        let (id, collect, info) = (t.id, t.collect, t.info.clone());
        let (data, sent, set) = if t.gather {
            (gather_blob(&t.arrived), Vec::new(), Vec::new())
        } else if collect {
            let participants = self.local_participants(&key.procs);
            let set = modex::participant_set(&key.procs, |n| {
                self.nspaces.get(n).and_then(|ns| ns.job.job_size())
            });
            let (blob, sent) = self.fence_contribution(&participants, &set);
            let bytes = protocol::encode_blob(&blob);
            let me = self.id.clone();
            let delta = self.delta_modex;
            self.stats.record(&me, bytes.len(), &blob.procs, delta);
            (bytes, sent, set)
        } else {
            // A fence that does not collect data exchanges nothing.
            (
                protocol::encode_blob(&Blob::new(false)),
                Vec::new(),
                Vec::new(),
            )
        };
        if let Some(t) = self.fences.get_mut(key) {
            t.host_called = true;
            t.set = set;
            t.sent = sent;
        }
        out.push(Action::Host(Upcall::Fence {
            id,
            procs: key.procs.clone(),
            info,
            data,
        }));
    }

    /// A client vanished without finalizing: tell the other clients of its namespace
    /// (`PMIX_ERR_PROC_TERM_WO_SYNC`, source and `PMIX_EVENT_AFFECTED_PROC` = the lost
    /// process), so that a process with no operation pending learns it too; the CUDA
    /// communications object turns this into `check_async_error`. OpenPMIx leaves this
    /// to the host; ours does it because our launcher only kills the job.
    fn tell_peers_lost(&self, lost: &ProcId, out: &mut Vec<Action>) {
        let info = Info::new(keys::EVENT_AFFECTED_PROC, Value::Proc(Some(lost.clone())))
            .map(|i| vec![i])
            .unwrap_or_default();
        let ev = protocol::encode(&ServerMsg::Event {
            status: sys::PMIX_ERR_PROC_TERM_WO_SYNC,
            source: lost.clone(),
            info,
        });
        for (&c, st) in &self.conns {
            if matches!(st, ConnState::Client { proc_, finalized: false } if proc_.nspace == lost.nspace)
            {
                out.push(Action::Send(c, ev.clone()));
            }
        }
    }

    fn local_participants(&self, key: &[ProcId]) -> Vec<ProcId> {
        let mut v = Vec::new();
        for p in key {
            let Some(ns) = self.nspaces.get(&p.nspace) else {
                continue;
            };
            if p.rank == sys::PMIX_RANK_WILDCARD {
                for r in ns.local.iter().chain(ns.clients.keys()) {
                    let q = ProcId::new(p.nspace.clone(), *r);
                    if !v.contains(&q) {
                        v.push(q);
                    }
                }
            } else if self.is_local(p) {
                v.push(p.clone());
            }
        }
        v
    }

    fn fail_fence(&mut self, key: &FenceKey, status: i32, out: &mut Vec<Action>) {
        if let Some(t) = self.fences.remove(key) {
            for a in t.arrived {
                out.push(reply(a.conn, a.tag, status, ReplyData::None));
            }
        }
    }

    /// The host finished a fence we handed it.
    pub fn fence_done(&mut self, id: u64, r: Result<Vec<u8>>, out: &mut Vec<Action>) {
        let Some(key) = self
            .fences
            .iter()
            .find(|(_, t)| t.id == id)
            .map(|(k, _)| k.clone())
        else {
            return; // already failed (timeout, lost participant)
        };
        let Some(t) = self.fences.remove(&key) else {
            return;
        };
        if t.gather {
            match r.and_then(|b| protocol::decode_blobs(&b)) {
                Ok(blobs) => {
                    let all = gathered(blobs);
                    release_gather(t.arrived, all, out);
                }
                Err(e) => {
                    log::warn!("server: allgather over {:?} failed: {}", t.procs, e);
                    for a in t.arrived {
                        out.push(reply(
                            a.conn,
                            a.tag,
                            protocol::status_of(&e),
                            ReplyData::None,
                        ));
                    }
                }
            }
            return;
        }
        let status = match r.and_then(|b| protocol::decode_blobs(&b)) {
            Ok(blobs) => {
                self.store_blobs(blobs, out);
                // What our sections carried has arrived: move each boundary.
                for (p, seq) in t.sent {
                    if let Some(ns) = self.nspaces.get_mut(&p.nspace) {
                        ns.data
                            .entry(p.rank)
                            .or_default()
                            .log
                            .delivered(seq, t.set.clone());
                    }
                }
                sys::PMIX_SUCCESS
            }
            Err(e) => {
                log::warn!("server: fence over {:?} failed: {}", t.procs, e);
                protocol::status_of(&e)
            }
        };
        self.release_fence(&t.procs, t.collect, t.arrived, status, out);
    }

    /// The replies that release a completed fence's local participants. A successful
    /// collecting fence carries what its participants published, as local readers may
    /// see it (encoded once and tagged per waiter; nothing when larger than
    /// [`protocol::COLLECTED_INLINE_MAX`]), so that a client answers its first Get of a
    /// peer's key after the fence from its own store instead of asking us.
    fn release_fence(
        &mut self,
        procs: &[ProcId],
        collect: bool,
        arrived: Vec<Arrival>,
        status: i32,
        out: &mut Vec<Action>,
    ) {
        let body = if collect && status == sys::PMIX_SUCCESS {
            self.collected(procs)
        } else {
            None
        };
        for a in arrived {
            match &body {
                Some(b) => {
                    let mut b = b.clone();
                    protocol::set_reply_tag(&mut b, a.tag);
                    out.push(Action::Send(a.conn, b));
                }
                None => out.push(reply(a.conn, a.tag, status, ReplyData::None)),
            }
        }
    }

    /// The reply body (tag 0) carrying the published data of the processes in `procs`
    /// that this server holds (a wildcard stands for every process of its namespace), as
    /// a local reader sees it: LOCAL and GLOBAL entries of local processes, REMOTE and
    /// GLOBAL ones that came from other nodes.
    ///
    /// Only what changed since the last reply to a fence over the same participants is
    /// carried (every local participant received that one: a fence completes only when
    /// all have arrived), plus the keys that disappeared; a fingerprint of each entry
    /// sent is kept per participant set for that. Beyond the inline limit the reply
    /// carries nothing but a reset, clients then drop what they collected and fetch on
    /// first access, and the next reply to that set is complete again.
    fn collected(&mut self, procs: &[ProcId]) -> Option<Vec<u8>> {
        use crate::codec::Wire;
        use std::hash::BuildHasher;
        let mut prev = self.sent_collected.remove(procs).unwrap_or_default();
        let mut next = FastMap::default();
        let mut w = protocol::CollectedWriter::new(protocol::COLLECTED_INLINE_MAX, false);
        let fp = crate::fasthash::FastState::default();
        let mut values = Vec::new();
        let mut changed = Vec::new();
        for p in procs {
            let Some(ns) = self.nspaces.get(&p.nspace) else {
                continue;
            };
            let mut ranks: Vec<Rank> = if p.rank == sys::PMIX_RANK_WILDCARD {
                ns.data.keys().copied().collect()
            } else {
                vec![p.rank]
            };
            ranks.sort_unstable();
            for r in ranks {
                let Some(pd) = ns.data.get(&r) else {
                    continue;
                };
                let reader = if pd.remote {
                    Reader::Remote
                } else {
                    Reader::Local
                };
                let who = ProcId::new(p.nspace.clone(), r);
                // What was sent for `who` and what it holds now are both sorted by key:
                // one merge walk finds the changed, new and removed keys, and moves the
                // unchanged keys' fingerprints over without copying a key.
                let mut old = prev.remove(&who).unwrap_or_default().into_iter().peekable();
                let mut now: Vec<(Key, u64)> = Vec::new();
                let mut removed: Vec<Key> = Vec::new();
                values.clear();
                changed.clear();
                for (k, e) in pd.kv.map.iter() {
                    if !scope_visible(e.scope, reader) {
                        continue;
                    }
                    while let Some(ok) = old.next_if(|(ok, _)| ok < k) {
                        removed.push(ok.0);
                    }
                    let at = values.len();
                    e.value.encode(&mut values);
                    let h = fp.hash_one(values.get(at..).unwrap_or_default());
                    match old.next_if(|(ok, _)| ok == k) {
                        Some((ok, oh)) => {
                            if oh != h {
                                changed.push((k, at, values.len()));
                            }
                            now.push((ok, h));
                        }
                        None => {
                            changed.push((k, at, values.len()));
                            now.push((k.clone(), h));
                        }
                    }
                }
                removed.extend(old.map(|(k, _)| k));
                let removed: Vec<&Key> = removed.iter().collect();
                let entries = changed
                    .iter()
                    .map(|&(k, a, b)| (k, values.get(a..b).unwrap_or_default()));
                if !w.add(&who, entries, &removed) {
                    // Too much to carry: clients start over; so does this set.
                    return protocol::CollectedWriter::new(protocol::COLLECTED_INLINE_MAX, true)
                        .finish();
                }
                next.insert(who, now);
            }
        }
        self.sent_collected.insert(procs.to_vec(), next);
        w.finish()
    }

    /// A timer started by an [`Action::Timer`] fired.
    pub fn timer(&mut self, ev: TimerEv, out: &mut Vec<Action>) {
        match ev {
            TimerEv::Fence(id) => {
                if let Some(key) = self
                    .fences
                    .iter()
                    .find(|(_, t)| t.id == id)
                    .map(|(k, _)| k.clone())
                {
                    log::warn!("server: fence over {:?} timed out", key);
                    self.fail_fence(&key, sys::PMIX_ERR_TIMEOUT, out);
                }
            }
            TimerEv::Dyn(id) => self.dyn_timer(id, out),
            TimerEv::Get(id) => {
                if let Some(pos) = self.ns_waiters.iter().position(|g| g.id == id) {
                    let g = self.ns_waiters.remove(pos);
                    out.push(reply(g.conn, g.tag, sys::PMIX_ERR_TIMEOUT, ReplyData::None));
                }
                if let Some(pos) = self.getters.iter().position(|g| g.id == id) {
                    let g = self.getters.remove(pos);
                    out.push(reply(g.conn, g.tag, sys::PMIX_ERR_TIMEOUT, ReplyData::None));
                }
            }
        }
    }

    /// Every open connection (to close them at finalize).
    pub fn conn_ids(&self) -> Vec<ConnId> {
        self.conns.keys().copied().collect()
    }

    /// Number of fences waiting (for tests and diagnostics).
    pub fn pending_fences(&self) -> usize {
        self.fences.len()
    }
}

/// The blob a server hands its host for an allgather: every local contribution as one
/// [`protocol::GATHER_KEY`] byte object (collecting, so any concatenating host carries it).
fn gather_blob(arrived: &[Arrival]) -> Vec<u8> {
    let procs = arrived
        .iter()
        .filter_map(|a| a.contrib.as_ref())
        .filter_map(|c| {
            let key = Key::new(protocol::GATHER_KEY).ok()?;
            Some(ProcBlob::full(
                c.proc_.clone(),
                vec![(
                    key,
                    Entry {
                        scope: sys::PMIX_GLOBAL,
                        value: Value::ByteObject(c.data.clone()),
                    },
                )],
            ))
        })
        .collect();
    let mut blob = Blob::new(true);
    blob.procs = procs;
    protocol::encode_blob(&blob)
}

/// The contributions inside the blobs of every server of an allgather.
fn gathered(blobs: Vec<Blob>) -> Vec<Contribution> {
    let mut all = Vec::new();
    for b in blobs {
        for pb in b.procs {
            for (k, e) in pb.entries {
                if let (protocol::GATHER_KEY, Value::ByteObject(data)) = (k.as_str(), e.value) {
                    all.push(Contribution {
                        proc_: pb.proc_.clone(),
                        data,
                    });
                }
            }
        }
    }
    all
}

/// Release the local participants of a completed allgather with every contribution
/// (sorted by process, one per process). A reply too large for one frame fails the
/// allgather with `PMIX_ERR_OUT_OF_RESOURCE` instead of breaking the connections.
fn release_gather(arrived: Vec<Arrival>, mut all: Vec<Contribution>, out: &mut Vec<Action>) {
    all.sort_by(|a, b| a.proc_.cmp(&b.proc_));
    all.dedup_by(|a, b| a.proc_ == b.proc_);
    let size: usize = all
        .iter()
        .map(|c| c.data.len() + c.proc_.nspace.as_str().len() + 16)
        .sum();
    let (status, data) = if size + 64 > protocol::MAX_FRAME {
        log::warn!(
            "server: allgather result of about {} bytes exceeds the frame limit of {}",
            size,
            protocol::MAX_FRAME
        );
        (sys::PMIX_ERR_OUT_OF_RESOURCE, None)
    } else {
        (sys::PMIX_SUCCESS, Some(all))
    };
    for a in arrived {
        let d = match &data {
            Some(all) => ReplyData::Gathered(all.clone()),
            None => ReplyData::None,
        };
        out.push(reply(a.conn, a.tag, status, d));
    }
}

/// True for a `PMIX_NODE_INFO_ARRAY` info (node data among the resources).
fn is_node_array(i: &Info) -> bool {
    i.key.as_str() == keys::NODE_INFO_ARRAY
}

/// True if the participant list names `p` (explicitly or through its namespace's wildcard).
pub fn includes(procs: &[ProcId], p: &ProcId) -> bool {
    procs
        .iter()
        .any(|q| q.nspace == p.nspace && (q.rank == p.rank || q.rank == sys::PMIX_RANK_WILDCARD))
}

/// Tests only: register `proc_` (uid `uid`) and run its handshake on connection `conn`,
/// as the reactor would for a client that connects; returns what the server sent.
#[cfg(test)]
pub(crate) fn connect_test_client(
    s: &mut ServerState,
    proc_: &ProcId,
    conn: ConnId,
    uid: u32,
) -> Vec<Action> {
    s.register_client(proc_, uid).expect("register_client");
    s.connected(conn, uid);
    let hello = protocol::Hello {
        version: protocol::VERSION,
        proc_: proc_.clone(),
        pid: 1,
        uid,
        gid: 0,
        kind: protocol::PeerKind::Client,
    };
    let who = s
        .check_hello(conn, &protocol::encode(&hello))
        .expect("hello accepted");
    let mut out = Vec::new();
    s.accept(conn, who, &mut out);
    out
}

#[cfg(test)]
mod tests {
    //! The server state machine driven directly, in memory: no sockets, no threads.
    use super::*;
    use crate::protocol::{encode_blob, ProcBlob};
    use crate::store::Entry;
    use std::sync::{Arc, Mutex};

    const UID: u32 = 1000;

    fn ns() -> Nspace {
        Nspace::new("job").unwrap()
    }
    fn p(r: Rank) -> ProcId {
        ProcId::new(ns(), r)
    }
    fn wild() -> ProcId {
        p(sys::PMIX_RANK_WILDCARD)
    }

    /// A server with `size` ranks, of which `local` (0..local) live here and are connected
    /// as connections 1..=local.
    fn setup(size: u32, local: u32) -> ServerState {
        let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
        let peers: Vec<String> = (0..local).map(|r| r.to_string()).collect();
        s.register_nspace(
            &ns(),
            local,
            vec![
                Info::new(keys::JOB_SIZE, Value::Uint32(size)).unwrap(),
                Info::new(keys::LOCAL_PEERS, Value::string(&peers.join(","))).unwrap(),
            ],
        );
        for r in 0..local {
            connect_test_client(&mut s, &p(r), r as ConnId + 1, UID);
        }
        s
    }

    fn req(s: &mut ServerState, conn: ConnId, tag: u32, r: Req) -> Vec<Action> {
        let mut out = Vec::new();
        s.request(conn, &protocol::encode(&Request { tag, req: r }), &mut out)
            .unwrap();
        out
    }

    /// (conn, tag, status) of every reply among the actions.
    fn replies(out: &[Action]) -> Vec<(ConnId, u32, i32)> {
        out.iter()
            .filter_map(|a| match a {
                Action::Send(c, b) => match protocol::decode::<ServerMsg>(b) {
                    Ok(ServerMsg::Reply { tag, status, .. }) => Some((*c, tag, status)),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    fn fence(procs: Vec<ProcId>, collect: bool) -> Req {
        Req::Fence {
            procs,
            collect,
            timeout_ms: 0,
            info: vec![],
        }
    }

    fn put(k: &str, scope: u8, v: i32) -> Put {
        Put {
            key: Key::new(k).unwrap(),
            scope,
            value: Value::Int(v),
        }
    }

    #[test]
    fn all_local_fence_completes_at_the_last_arrival_and_sets_never_mix() {
        let mut s = setup(3, 3);
        assert!(replies(&req(&mut s, 1, 10, fence(vec![], false))).is_empty());
        // An explicit list naming all three is a different fence.
        assert!(replies(&req(&mut s, 2, 11, fence(vec![p(2), p(0), p(1)], false))).is_empty());
        assert!(replies(&req(&mut s, 2, 12, fence(vec![wild()], false))).is_empty());
        assert_eq!(s.pending_fences(), 2);
        let out = req(&mut s, 3, 13, fence(vec![], false));
        let mut r = replies(&out);
        r.sort();
        assert_eq!(r, vec![(1, 10, 0), (2, 12, 0), (3, 13, 0)]);
        assert_eq!(s.pending_fences(), 1);
        assert!(!out
            .iter()
            .any(|a| matches!(a, Action::Host(Upcall::Fence { .. }))));
    }

    #[test]
    fn not_a_member_and_collect_mismatch() {
        let mut s = setup(2, 2);
        assert_eq!(
            replies(&req(&mut s, 1, 1, fence(vec![p(1)], false))),
            vec![(1, 1, sys::PMIX_ERR_NOT_A_MEMBER)]
        );
        req(&mut s, 1, 2, fence(vec![], true));
        assert_eq!(
            replies(&req(&mut s, 2, 3, fence(vec![], false))),
            vec![(2, 3, sys::PMIX_ERR_BAD_PARAM)]
        );
    }

    #[test]
    fn multi_node_fence_hands_the_host_one_blob_and_stores_the_others() {
        // Ranks 0 and 1 here, ranks 2 and 3 elsewhere.
        let mut s = setup(4, 2);
        for (conn, r) in [(1, 0), (2, 1)] {
            req(
                &mut s,
                conn,
                0,
                Req::Commit {
                    puts: vec![put("g", sys::PMIX_GLOBAL, r), put("l", sys::PMIX_LOCAL, r)],
                },
            );
        }
        assert!(req(&mut s, 1, 5, fence(vec![], true)).is_empty());
        let out = req(&mut s, 2, 6, fence(vec![], true));
        let (id, data) = match out.as_slice() {
            [Action::Host(Upcall::Fence {
                id, data, procs, ..
            })] => {
                assert_eq!(procs, &vec![wild()]);
                (*id, data.clone())
            }
            _ => panic!("expected exactly one host fence"),
        };
        let ours = protocol::decode_blobs(&data).unwrap();
        assert_eq!(ours.len(), 1);
        assert_eq!(ours[0].procs.len(), 2);
        // GLOBAL values travel; LOCAL keys travel only as markers without their value.
        assert!(ours[0].procs.iter().all(|pb| pb.entries.len() == 2
            && pb.entries[0].0.as_str() == "g"
            && pb.entries[1].1 == modex::marker(sys::PMIX_LOCAL)));
        // The host returns every server's blob, concatenated.
        let mut theirs = Blob::new(true);
        theirs.procs.push(ProcBlob::full(
            p(3),
            vec![(
                Key::new("g").unwrap(),
                Entry {
                    scope: sys::PMIX_REMOTE,
                    value: Value::Int(33),
                },
            )],
        ));
        let theirs = encode_blob(&theirs);
        let mut all = data.clone();
        all.extend(theirs);
        let mut out = Vec::new();
        s.fence_done(id, Ok(all), &mut out);
        let mut r = replies(&out);
        r.sort();
        assert_eq!(r, vec![(1, 5, 0), (2, 6, 0)]);
        // Rank 3's data is now in the store: an immediate Get finds it.
        let out = req(
            &mut s,
            1,
            7,
            Req::Get {
                target: p(3),
                key: Some(Key::new("g").unwrap()),
                immediate: true,
                timeout_ms: 0,
                info: vec![],
            },
        );
        assert_eq!(replies(&out), vec![(1, 7, 0)]);
        // A malformed completion fails the next fence for everyone with BAD_PARAM.
        req(&mut s, 1, 8, fence(vec![], true));
        let out = req(&mut s, 2, 9, fence(vec![], true));
        let Some(Action::Host(Upcall::Fence { id, .. })) = out.first() else {
            panic!("expected a host fence");
        };
        let mut out = Vec::new();
        s.fence_done(*id, Ok(vec![1, 2, 3]), &mut out);
        let mut r = replies(&out);
        r.sort();
        assert_eq!(
            r,
            vec![
                (1, 8, sys::PMIX_ERR_BAD_PARAM),
                (2, 9, sys::PMIX_ERR_BAD_PARAM)
            ]
        );
    }

    #[test]
    fn get_parks_until_commit_or_timer() {
        let mut s = setup(2, 2);
        let get = |k: &str, timeout_ms| Req::Get {
            target: p(0),
            key: Some(Key::new(k).unwrap()),
            immediate: false,
            timeout_ms,
            info: vec![],
        };
        assert!(replies(&req(&mut s, 2, 1, get("x", 0))).is_empty());
        let out = req(&mut s, 2, 2, get("y", 500));
        let ev = out
            .iter()
            .find_map(|a| match a {
                Action::Timer(_, ev) => Some(*ev),
                _ => None,
            })
            .unwrap();
        let out = req(
            &mut s,
            1,
            0,
            Req::Commit {
                puts: vec![put("x", sys::PMIX_GLOBAL, 1)],
            },
        );
        assert_eq!(replies(&out), vec![(2, 1, 0)]);
        let mut out = Vec::new();
        s.timer(ev, &mut out);
        assert_eq!(replies(&out), vec![(2, 2, sys::PMIX_ERR_TIMEOUT)]);
    }

    #[test]
    fn parked_requests_past_the_cap_are_refused_for_that_client_only() {
        let mut s = setup(3, 3);
        s.set_request_limits(budget::Limits {
            count: 2,
            bytes: 1 << 20,
        });
        let get = |k: &str| Req::Get {
            target: p(0),
            key: Some(Key::new(k).unwrap()),
            immediate: false,
            timeout_ms: 0,
            info: vec![],
        };
        assert!(replies(&req(&mut s, 2, 1, get("x"))).is_empty());
        assert!(replies(&req(&mut s, 2, 2, get("y"))).is_empty());
        assert_eq!(s.parked(2).0, 2);
        let refused = vec![(2, 3, sys::PMIX_ERR_OUT_OF_RESOURCE)];
        assert_eq!(replies(&req(&mut s, 2, 3, get("z"))), refused);
        // Another client parks as before; a fence (parked too) is refused for rank 1.
        assert!(replies(&req(&mut s, 3, 1, get("x"))).is_empty());
        let fence = fence(vec![wild()], false);
        assert_eq!(
            replies(&req(&mut s, 2, 4, fence)),
            vec![(2, 4, sys::PMIX_ERR_OUT_OF_RESOURCE)]
        );
        // Rank 0 commits x: both Gets of x are answered, rank 1 may park again.
        let commit = Req::Commit {
            puts: vec![put("x", sys::PMIX_GLOBAL, 1)],
        };
        assert_eq!(
            replies(&req(&mut s, 1, 0, commit)),
            vec![(2, 1, 0), (3, 1, 0)]
        );
        assert_eq!(s.parked(2).0, 1);
        assert_eq!(s.parked(3).0, 0);
        assert!(replies(&req(&mut s, 2, 5, get("w"))).is_empty());
        // Finalize is never refused.
        let out = req(&mut s, 2, 6, Req::Finalize);
        assert!(out
            .iter()
            .any(|a| matches!(a, Action::Host(Upcall::Finalized { tag: 6, .. }))));
        let mut out = Vec::new();
        s.closed(2, &mut out);
        assert_eq!(s.parked(2), (0, 0));
    }

    #[test]
    fn a_later_participants_timeout_releases_everyone() {
        let mut s = setup(3, 3);
        assert!(req(&mut s, 1, 1, fence(vec![], false)).is_empty());
        let out = req(
            &mut s,
            2,
            2,
            Req::Fence {
                procs: vec![],
                collect: false,
                timeout_ms: 1000,
                info: vec![],
            },
        );
        let ev = out
            .iter()
            .find_map(|a| match a {
                Action::Timer(_, ev) => Some(*ev),
                _ => None,
            })
            .expect("the second arrival's timeout starts a timer");
        let mut out = Vec::new();
        s.timer(ev, &mut out);
        let mut r = replies(&out);
        r.sort();
        assert_eq!(
            r,
            vec![(1, 1, sys::PMIX_ERR_TIMEOUT), (2, 2, sys::PMIX_ERR_TIMEOUT)]
        );
        assert_eq!(s.pending_fences(), 0);
    }

    /// Regression: a client whose own wait timed out entered the next fence over the same
    /// set while the server still held its first request, and counted twice.
    #[test]
    fn a_participant_arriving_again_counts_once() {
        let mut s = setup(2, 2);
        assert!(req(&mut s, 1, 1, fence(vec![], false)).is_empty());
        let out = req(&mut s, 1, 2, fence(vec![], false));
        assert_eq!(replies(&out), vec![(1, 1, sys::PMIX_ERR_TIMEOUT)]);
        assert_eq!(s.pending_fences(), 1, "one arrival of two: still waiting");
        let mut r = replies(&req(&mut s, 2, 3, fence(vec![], false)));
        r.sort();
        assert_eq!(r, vec![(1, 2, 0), (2, 3, 0)]);
    }

    #[test]
    fn get_waits_for_a_namespace_to_be_registered() {
        let mut s = setup(1, 1);
        let later = Nspace::new("later").unwrap();
        let get = |rank, k: &str, immediate| Req::Get {
            target: ProcId::new(later.clone(), rank),
            key: Some(Key::new(k).unwrap()),
            immediate,
            timeout_ms: 0,
            info: vec![],
        };
        assert_eq!(
            replies(&req(&mut s, 1, 1, get(0, "x", true))),
            vec![(1, 1, sys::PMIX_ERR_NOT_FOUND)],
            "IMMEDIATE does not wait"
        );
        assert!(replies(&req(
            &mut s,
            1,
            2,
            get(sys::PMIX_RANK_WILDCARD, keys::JOB_SIZE, false)
        ))
        .is_empty());
        assert!(replies(&req(&mut s, 1, 3, get(0, "x", false))).is_empty());
        s.register_nspace(
            &later,
            0,
            vec![Info::new(keys::JOB_SIZE, Value::Uint32(5)).unwrap()],
        );
        let mut out = Vec::new();
        s.nspace_registered(&later, &mut out);
        assert_eq!(
            replies(&out),
            vec![(1, 2, 0)],
            "job data answers at registration"
        );
        // The rank's key is not published yet: that Get now waits for it as usual.
        assert_eq!(s.getters.len(), 1);
    }

    #[test]
    fn resources_reach_every_job_and_their_retraction_reaches_clients() {
        let mut s = setup(2, 2);
        s.register_resources(vec![
            Info::new(keys::JOB_SIZE, Value::Uint32(99)).unwrap(),
            Info::new("cluster", Value::string("c1")).unwrap(),
        ]);
        let job = &s.nspaces[&ns()].job;
        assert_eq!(job.job_size(), Some(2), "the namespace's own value wins");
        assert_eq!(
            job.job_value("cluster", Level::Any, None).as_deref(),
            Some(&Value::string("c1")),
            "an existing job sees a new resource"
        );
        let later = Nspace::new("later").unwrap();
        s.register_nspace(&later, 0, vec![]);
        assert_eq!(
            s.nspaces[&later]
                .job
                .job_value("cluster", Level::Any, None)
                .as_deref(),
            Some(&Value::string("c1")),
            "a job registered later sees it"
        );
        let mut out = Vec::new();
        s.deregister_resources(vec![Info::new("cluster", Value::Undef).unwrap()], &mut out);
        assert!(s
            .nspaces
            .values()
            .all(|n| n.job.job_value("cluster", Level::Any, None).is_none()));
        let forgets = out
            .iter()
            .filter(|a| match a {
                Action::Send(_, b) => matches!(
                    protocol::decode::<ServerMsg>(b),
                    Ok(ServerMsg::Forget { proc_, key })
                        if proc_.rank == sys::PMIX_RANK_WILDCARD && key.as_str() == "cluster"
                ),
                _ => false,
            })
            .count();
        assert_eq!(forgets, 2, "both connected clients are told");
    }

    #[test]
    fn lost_client_fails_its_fences_and_is_reported() {
        let mut s = setup(2, 2);
        req(&mut s, 1, 4, fence(vec![], false));
        let mut out = Vec::new();
        s.closed(2, &mut out);
        assert!(out
            .iter()
            .any(|a| matches!(a, Action::Host(Upcall::Lost(q)) if q == &p(1))));
        assert_eq!(replies(&out), vec![(1, 4, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]);
        assert_eq!(
            replies(&req(&mut s, 1, 5, fence(vec![p(0), p(1)], false))),
            vec![(1, 5, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]
        );
    }

    /// Regression: Open MPI's mpirun (np 32) called a rank "exited improperly" because the
    /// client was released from PMIx_Finalize before the host had recorded the finalize.
    #[test]
    fn finalize_is_acknowledged_only_after_the_host() {
        let mut s = setup(1, 1);
        let out = req(&mut s, 1, 3, Req::Finalize);
        assert!(replies(&out).is_empty(), "no reply before the host answers");
        let Some(Action::Host(Upcall::Finalized { conn, tag, proc_ })) = out.first() else {
            panic!("expected the host upcall");
        };
        assert_eq!((*conn, *tag, proc_.clone()), (1, 3, p(0)));
        let mut out = Vec::new();
        s.finalize_done(1, 3, &mut out);
        assert_eq!(replies(&out), vec![(1, 3, 0)]);
    }

    #[test]
    fn handshake_checks() {
        let mut s = setup(2, 0);
        s.register_client(&p(0), UID).unwrap();
        let hello = |r, version| {
            protocol::encode(&Hello {
                version,
                proc_: p(r),
                pid: 1,
                uid: UID,
                gid: 0,
                kind: protocol::PeerKind::Client,
            })
        };
        s.connected(1, UID + 1);
        assert_eq!(
            s.check_hello(1, &hello(0, protocol::VERSION))
                .unwrap_err()
                .status,
            sys::PMIX_ERR_INVALID_CRED
        );
        s.connected(2, UID);
        assert_eq!(
            s.check_hello(2, &hello(1, protocol::VERSION))
                .unwrap_err()
                .status,
            sys::PMIX_ERR_NOT_FOUND
        );
        assert_eq!(
            s.check_hello(2, &hello(0, 99)).unwrap_err().status,
            sys::PMIX_ERR_NOT_SUPPORTED
        );
        assert!(s.check_hello(2, b"garbage").is_err());
        assert!(s.check_hello(2, &hello(0, protocol::VERSION)).is_ok());
    }

    /// Regression: repeated PMIx_Init after PMIx_Finalize failed with PMIX_ERR_EXISTS when
    /// the new connection's handshake was handled before the old connection's close.
    #[test]
    fn reinit_races_the_old_connections_close() {
        let mut s = setup(2, 2);
        // Rank 0 (conn 1) finalizes; its socket close has not been seen yet.
        req(&mut s, 1, 5, Req::Finalize);
        s.connected(9, UID);
        let hello = protocol::encode(&Hello {
            version: protocol::VERSION,
            proc_: p(0),
            pid: 1,
            uid: UID,
            gid: 0,
            kind: protocol::PeerKind::Client,
        });
        let who = s
            .check_hello(9, &hello)
            .expect("a finalized connection must not block re-init");
        let mut out = Vec::new();
        s.accept(9, who, &mut out);
        // The old connection's close now arrives: rank 0 is not gone and stays connected.
        let mut out = Vec::new();
        s.closed(1, &mut out);
        assert!(s.is_client(9));
        s.connected(10, UID);
        assert_eq!(
            s.check_hello(10, &hello).unwrap_err().status,
            sys::PMIX_ERR_EXISTS,
            "a live connection still blocks a second one"
        );
    }

    /// Direct modex per (process, key): an answer without the key a Get waits for ends
    /// that Get only if it was that Get's own request.
    #[test]
    fn direct_modex_is_per_process_and_key() {
        let mut s = setup(4, 2);
        let get = |k: &str| Req::Get {
            target: p(2),
            key: Some(Key::new(k).unwrap()),
            immediate: false,
            timeout_ms: 0,
            info: vec![],
        };
        let asked = |out: &[Action]| -> Vec<Option<String>> {
            out.iter()
                .filter_map(|a| match a {
                    Action::Host(Upcall::Dmodex { key, .. }) => {
                        Some(key.as_ref().map(|k| k.to_string()))
                    }
                    _ => None,
                })
                .collect()
        };
        assert_eq!(asked(&req(&mut s, 1, 1, get("a"))), vec![Some("a".into())]);
        assert_eq!(asked(&req(&mut s, 2, 2, get("b"))), vec![Some("b".into())]);
        // The same process and key again: no second request.
        assert!(asked(&req(&mut s, 2, 3, get("a"))).is_empty());
        let answer = |keys: &[&str]| {
            let mut b = Blob::new(true);
            b.procs.push(ProcBlob::full(
                p(2),
                keys.iter()
                    .map(|k| {
                        (
                            Key::new(*k).unwrap(),
                            Entry {
                                scope: sys::PMIX_GLOBAL,
                                value: Value::Int(1),
                            },
                        )
                    })
                    .collect(),
            ));
            encode_blob(&b)
        };
        let mut out = Vec::new();
        let a = Key::new("a").unwrap();
        s.dmodex_done(&p(2), Some(&a), Ok(answer(&["a"])), &mut out);
        let mut r = replies(&out);
        r.sort();
        assert_eq!(
            r,
            vec![(1, 1, 0), (2, 3, 0)],
            "b keeps waiting for its own request"
        );
        let mut out = Vec::new();
        let b = Key::new("b").unwrap();
        s.dmodex_done(&p(2), Some(&b), Ok(answer(&["a"])), &mut out);
        assert_eq!(replies(&out), vec![(2, 2, sys::PMIX_ERR_NOT_FOUND)]);
    }

    #[test]
    fn dmodex_request_waits_for_the_commit() {
        let mut s = setup(2, 2);
        let got: Arc<Mutex<Option<Result<Vec<u8>>>>> = Arc::new(Mutex::new(None));
        let g = got.clone();
        let mut out = Vec::new();
        s.dmodex_request(
            &p(1),
            Box::new(move |r| *g.lock().unwrap() = Some(r)),
            &mut out,
        );
        assert!(out.is_empty());
        let out = req(
            &mut s,
            2,
            0,
            Req::Commit {
                puts: vec![put("r", sys::PMIX_REMOTE, 7), put("l", sys::PMIX_LOCAL, 8)],
            },
        );
        for a in out {
            if let Action::AnswerDmodex(done, r) = a {
                done(r);
            }
        }
        let blob = got.lock().unwrap().take().unwrap().unwrap();
        let b = protocol::decode_blobs(&blob).unwrap();
        assert_eq!(b[0].procs[0].proc_, p(1));
        let e = &b[0].procs[0].entries;
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].0.as_str(), "l");
        assert_eq!(
            e[0].1,
            modex::marker(sys::PMIX_LOCAL),
            "a LOCAL value never leaves the node, only its key"
        );
        assert_eq!(e[1].1.value, Value::Int(7));
    }

    /// Regression (multi-node Open MPI): another node's direct-modex request can reach us
    /// before our host has registered the job; it waits for the commit instead of failing.
    #[test]
    fn dmodex_request_before_the_job_is_registered_waits() {
        let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
        let got: Arc<Mutex<Option<Result<Vec<u8>>>>> = Arc::new(Mutex::new(None));
        let g = got.clone();
        let mut out = Vec::new();
        s.dmodex_request(
            &p(0),
            Box::new(move |r| *g.lock().unwrap() = Some(r)),
            &mut out,
        );
        assert!(out.is_empty(), "parked, not answered");
        s.register_nspace(
            &ns(),
            1,
            vec![
                Info::new(keys::JOB_SIZE, Value::Uint32(2)).unwrap(),
                Info::new(keys::LOCAL_PEERS, Value::string("0")).unwrap(),
            ],
        );
        s.register_client(&p(0), UID).unwrap();
        s.connected(1, UID);
        let hello = protocol::encode(&Hello {
            version: protocol::VERSION,
            proc_: p(0),
            pid: 1,
            uid: UID,
            gid: 0,
            kind: protocol::PeerKind::Client,
        });
        let who = s.check_hello(1, &hello).unwrap();
        s.accept(1, who, &mut out);
        let out = req(
            &mut s,
            1,
            0,
            Req::Commit {
                puts: vec![put("r", sys::PMIX_GLOBAL, 7)],
            },
        );
        for a in out {
            if let Action::AnswerDmodex(done, r) = a {
                done(r);
            }
        }
        let blob = got.lock().unwrap().take().expect("answered").unwrap();
        let b = protocol::decode_blobs(&blob).unwrap();
        assert_eq!(b[0].procs[0].proc_, p(0));
        assert_eq!(b[0].procs[0].entries.len(), 1);
    }

    #[test]
    fn parked_dmodex_request_fails_when_the_job_is_deregistered() {
        let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
        let mut out = Vec::new();
        s.dmodex_request(&p(0), Box::new(|_| {}), &mut out);
        assert!(out.is_empty());
        s.register_nspace(&ns(), 1, vec![]);
        s.deregister_nspace(&ns(), &mut out);
        let st: Vec<i32> = out
            .into_iter()
            .filter_map(|a| match a {
                Action::AnswerDmodex(_, r) => Some(r.err().map(|e| e.status).unwrap_or(0)),
                _ => None,
            })
            .collect();
        assert_eq!(st, vec![sys::PMIX_ERR_NOT_FOUND]);
    }

    fn tagged(procs: Vec<ProcId>, tag: &str) -> Req {
        Req::Fence {
            procs,
            collect: false,
            timeout_ms: 0,
            info: vec![Info::new(protocol::FENCE_TAG, Value::string(tag)).unwrap()],
        }
    }

    fn gather(tag: &str, data: &[u8]) -> Req {
        Req::Allgather {
            procs: vec![],
            timeout_ms: 0,
            info: vec![Info::new(protocol::FENCE_TAG, Value::string(tag)).unwrap()],
            data: data.to_vec(),
        }
    }

    /// (conn, tag, status, contributions) of every gathered reply among the actions.
    fn gathers(out: &[Action]) -> Vec<(ConnId, u32, i32, Vec<Contribution>)> {
        out.iter()
            .filter_map(|a| match a {
                Action::Send(c, b) => match protocol::decode::<ServerMsg>(b) {
                    Ok(ServerMsg::Reply { tag, status, data }) => Some((
                        *c,
                        tag,
                        status,
                        match data {
                            ReplyData::Gathered(v) => v,
                            _ => vec![],
                        },
                    )),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    #[test]
    fn fence_tags_keep_fences_over_the_same_participants_apart() {
        let mut s = setup(2, 2);
        // Rank 0 enters "a" then "b"; rank 1 enters "b" then "a". Untagged, the first two
        // arrivals would have completed each other.
        assert!(replies(&req(&mut s, 1, 1, tagged(vec![], "a"))).is_empty());
        assert!(replies(&req(&mut s, 1, 2, tagged(vec![], "b"))).is_empty());
        assert!(replies(&req(&mut s, 2, 3, fence(vec![], false))).is_empty());
        assert_eq!(s.pending_fences(), 3, "a, b and the untagged fence");
        let mut r = replies(&req(&mut s, 2, 4, tagged(vec![], "b")));
        r.sort();
        assert_eq!(r, vec![(1, 2, 0), (2, 4, 0)]);
        let mut r = replies(&req(&mut s, 2, 5, tagged(vec![], "a")));
        r.sort();
        assert_eq!(r, vec![(1, 1, 0), (2, 5, 0)]);
        // The untagged fence is still waiting for rank 0's untagged arrival.
        let mut r = replies(&req(&mut s, 1, 6, fence(vec![], false)));
        r.sort();
        assert_eq!(r, vec![(1, 6, 0), (2, 3, 0)]);
        assert_eq!(s.pending_fences(), 0);
    }

    #[test]
    fn allgather_hands_everyone_every_contribution_sorted() {
        let mut s = setup(3, 3);
        assert!(replies(&req(&mut s, 3, 1, gather("g", b"two"))).is_empty());
        assert!(replies(&req(&mut s, 1, 2, gather("g", b"zero"))).is_empty());
        let mut g = gathers(&req(&mut s, 2, 3, gather("g", b"")));
        g.sort_by_key(|x| x.0);
        assert_eq!(g.len(), 3);
        for (_, _, status, all) in &g {
            assert_eq!(*status, 0);
            let got: Vec<(u32, &[u8])> = all
                .iter()
                .map(|c| (c.proc_.rank, c.data.as_slice()))
                .collect();
            assert_eq!(
                got,
                vec![(0, &b"zero"[..]), (1, &b""[..]), (2, &b"two"[..])]
            );
        }
        // An allgather and a plain fence with the same key do not mix.
        req(&mut s, 1, 4, gather("h", b"x"));
        assert_eq!(
            replies(&req(&mut s, 2, 5, tagged(vec![], "h"))),
            vec![(2, 5, sys::PMIX_ERR_BAD_PARAM)]
        );
    }

    #[test]
    fn multi_server_allgather_rides_the_host_blob() {
        // Ranks 0 and 1 here, rank 2 elsewhere.
        let mut s = setup(3, 2);
        req(&mut s, 1, 1, gather("g", &[0]));
        let out = req(&mut s, 2, 2, gather("g", &[1]));
        let (id, data, info) = match out.as_slice() {
            [Action::Host(Upcall::Fence { id, data, info, .. })] => {
                (*id, data.clone(), info.clone())
            }
            _ => panic!("expected one host fence"),
        };
        assert!(
            info.iter().any(|i| i.key.as_str() == protocol::FENCE_TAG),
            "the host sees the tag"
        );
        let theirs = gather_blob(&[Arrival {
            conn: 0,
            tag: 0,
            contrib: Some(Contribution {
                proc_: p(2),
                data: vec![2],
            }),
        }]);
        let mut all = theirs;
        all.extend(data);
        let mut out = Vec::new();
        s.fence_done(id, Ok(all), &mut out);
        let g = gathers(&out);
        assert_eq!(g.len(), 2);
        for (_, _, status, all) in g {
            assert_eq!(status, 0);
            let got: Vec<(u32, Vec<u8>)> =
                all.into_iter().map(|c| (c.proc_.rank, c.data)).collect();
            assert_eq!(got, vec![(0, vec![0]), (1, vec![1]), (2, vec![2])]);
        }
        // Nothing of it landed in the key-value store.
        assert!(!s.has_key(&p(2), Some(&Key::new(protocol::GATHER_KEY).unwrap())));
    }

    #[test]
    fn lost_client_fails_tagged_fences_and_tells_its_peers() {
        let mut s = setup(3, 3);
        req(&mut s, 1, 7, gather("g", b"a"));
        req(&mut s, 2, 8, tagged(vec![], "t"));
        let mut out = Vec::new();
        s.closed(3, &mut out);
        let mut r = replies(&out);
        r.sort();
        assert_eq!(
            r,
            vec![
                (1, 7, sys::PMIX_ERR_PROC_TERM_WO_SYNC),
                (2, 8, sys::PMIX_ERR_PROC_TERM_WO_SYNC)
            ]
        );
        let mut told: Vec<ConnId> = out
            .iter()
            .filter_map(|a| match a {
                Action::Send(c, b) => match protocol::decode::<ServerMsg>(b) {
                    Ok(ServerMsg::Event { status, source, .. })
                        if status == sys::PMIX_ERR_PROC_TERM_WO_SYNC && source == p(2) =>
                    {
                        Some(*c)
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        told.sort();
        assert_eq!(told, vec![1, 2]);
        // A finalized client leaving is not news.
        req(&mut s, 2, 9, Req::Finalize);
        let mut out = Vec::new();
        s.closed(2, &mut out);
        assert!(!out.iter().any(|a| matches!(a, Action::Send(..))));
    }
}
