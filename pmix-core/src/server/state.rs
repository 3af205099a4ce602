//! The server as a state machine: connection events, client requests, host completions
//! and timer expiries go in; frames to send, connections to close, host upcalls and timers
//! to start come out as [`Action`]s. No socket, thread or clock lives here, so tests can
//! drive it directly; `server/mod.rs` executes the actions on the progress thread.

mod dump;
mod fence;
mod fence_shm;
use fence_shm::ShmArea;
mod kvs;
mod registry;
mod session;
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
#[path = "group_remote.rs"]
mod group_remote;
#[path = "tools.rs"]
mod tools;
pub use tools::ToolHello;
#[path = "hostops.rs"]
mod hostops;
#[path = "iof.rs"]
mod iof;
#[path = "monitor/mod.rs"]
mod monitor;
pub use monitor::MonitorAsk;
#[path = "query.rs"]
mod query;

pub use query::QueryState;

/// Something the glue must do after a state-machine step.
pub enum Action {
    /// Send this frame body on a connection.
    Send(ConnId, Vec<u8>),
    /// Send the frame body made of this head and this tail, which other sends share (the
    /// reply of a collective: one encoding for every participant, the head carries the
    /// tag). The connection holds the tail by reference while its peer reads it.
    SendShared(ConnId, Vec<u8>, std::sync::Arc<[u8]>),
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
    /// The periodic monitor with this id is due (see `server/monitor`).
    Monitor(u64),
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
    /// `PMIX_IMMEDIATE`: held only for a commit of the target's on its way (see
    /// `ServerState::shm_commit_in_flight`), then answered with what is here.
    immediate: bool,
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
    /// Connections whose fence replies carry the status alone (OpenPMIx clients: they
    /// fetch peers' data with Gets, see `server/v41/translate.rs`): a collecting fence
    /// whose waiters are all of these builds no collected data.
    status_only_fence: BTreeSet<ConnId>,
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
    /// Periodic monitors this server runs itself (see `server/monitor`).
    monitors: monitor::Monitors,
    /// Same-node fence areas per namespace (see `state/fence_shm.rs`); `None`: off.
    shm: Option<HashMap<Nspace, ShmArea>>,
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
            status_only_fence: BTreeSet::new(),
            iof: Default::default(),
            tools: Default::default(),
            hostops: Default::default(),
            segments: None,
            shm: None,
            budget: Default::default(),
            monitors: Default::default(),
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
            TimerEv::Monitor(id) => self.monitor_tick(id, out),
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

pub use crate::value::includes;

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
mod tests;
