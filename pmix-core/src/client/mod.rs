//! The PMIx client: one connection to the local server, a local store that `Get` reads in
//! the caller's thread, and requests that travel over the progress thread.
//!
//! A [`Client`] is an ordinary object (tests run several in one process); the process-wide
//! `PMIx_Init`/`PMIx_Finalize` singleton that `capi` uses is [`global`].
//!
//! # Data path of a Get
//! 1. Self-referential keys (`PMIX_RANK`, `PMIX_PROCID`, `PMIX_VERSION_NUMERIC`) are
//!    answered from the client's identity.
//! 2. The caller's own data: what it put (every scope), then what the host registered for it.
//! 3. Job-level data (`PMIX_RANK_WILDCARD`) and reserved keys of peers: the job data the
//!    server sent in the handshake (no round trip).
//! 4. Peers' published data: the local cache, filled by earlier answers from the server.
//! 5. Otherwise (unless `PMIX_OPTIONAL`) the server is asked; it answers from its store,
//!    waits until the target commits the key, or asks the host (direct modex). The answer
//!    carries everything of that peer the caller may see, and it is cached: later fences do
//!    not refresh it, `PMIX_GET_REFRESH_CACHE` does.
//!
//! Steps 1–4 run in the caller's thread under a read lock; only step 5 goes through the
//! progress thread and the one wait helper.

mod connect;
mod dump;
mod events;
mod gather;
pub mod global;
pub(crate) mod group;
mod hostops;
pub use hostops::Credential;
mod iof;
mod publish;
pub mod query;
mod spawn;
pub mod tool;

use crate::error::{Error, Result};
use crate::fasthash::FastMap;
use crate::params;
use crate::protocol::{
    self, FrameDecoder, Hello, Put, ReplyData, Req, Request, ServerMsg, Welcome,
};
use crate::reactor::{self, ConnEvent, ConnId, Ctx, Handle};
use crate::store::{keys, qualified, scope_searched, JobData, KvSet, Level, Reader, Select};
use crate::value::{DataArray, Info, Key, Nspace, ProcId, Value};
use pmix_sys as sys;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock, Weak};
use std::time::Duration;

/// The version string this library reports in `PMIX_VERSION`.
pub const VERSION_STRING: &str = "7.0.0";

/// How long `PMIx_Init` waits for the server's handshake answer.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);
/// How much longer than its `PMIX_TIMEOUT` a blocking collective (fence, connect,
/// disconnect, group construct/destruct) waits for the server's verdict (the server times
/// it out for all participants at once).
const FENCE_TIMEOUT_GRACE: Duration = Duration::from_secs(2);

/// The bound of a blocking collective's own wait: its `PMIX_TIMEOUT` plus
/// [`FENCE_TIMEOUT_GRACE`], so the server's verdict, which ends the collective for every
/// participant, comes first. A caller that gave up earlier could come back (the next
/// collective over the same processes) while the server still holds the old one, and
/// join it.
pub(crate) fn collective_bound(info: &[Info]) -> Option<Duration> {
    timeout_of(info).map(|t| t + FENCE_TIMEOUT_GRACE)
}
/// How long `PMIx_Finalize` waits for the server's acknowledgement.
const FINALIZE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a client finds its server.
#[derive(Debug, Clone, Default)]
pub struct ClientConfig {
    /// Our identity and the server's socket path; `None` makes a singleton.
    pub server: Option<(ProcId, String)>,
    /// Infos passed to `PMIx_Init`.
    pub info: Vec<Info>,
    /// How we introduce ourselves: a client, or a tool (`PMIx_tool_init`) that named
    /// itself or asks the server for an identity.
    pub kind: protocol::PeerKind,
}

impl ClientConfig {
    /// Read `PMIX_NAMESPACE`, `PMIX_RANK` and the first of `PMIX_SERVER_URI41`, `4`, `3`,
    /// `21`, `2` from the environment. Without them the process is a singleton.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` if the variables are present but malformed, or the URI is not
    /// ours (`<nspace>.<rank>;unix:<path>`).
    pub fn from_env() -> Result<ClientConfig> {
        let ns = params::get(params::PMIX_NAMESPACE);
        let rank = params::get(params::PMIX_RANK);
        let uri = params::server_uri_var();
        let (Some(ns), Some(rank), Some((var, uri))) = (ns, rank, uri) else {
            return Ok(ClientConfig::default());
        };
        let rank: u32 = rank
            .trim()
            .parse()
            .map_err(|_| Error::bad_param(format!("PMIX_RANK={:?} is not a rank", rank)))?;
        let path =
            parse_uri(&uri).map_err(|e| Error::new(e.status, format!("{}: {}", var, e.context)))?;
        Ok(ClientConfig {
            server: Some((ProcId::new(Nspace::new(ns)?, rank), path)),
            ..Default::default()
        })
    }
}

/// The socket path of a server URI `<nspace>.<rank>;unix:<path>`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a URI of another transport (e.g. OpenPMIx's `tcp4://`).
pub fn parse_uri(uri: &str) -> Result<String> {
    let (_, addr) = uri
        .split_once(';')
        .ok_or_else(|| Error::bad_param(format!("server URI {:?} has no address", uri)))?;
    addr.strip_prefix("unix:")
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .ok_or_else(|| {
            Error::new(
                sys::PMIX_ERR_NOT_SUPPORTED,
                format!("server URI {:?} is not a pmix-rs unix socket", uri),
            )
        })
}

pub use crate::event::Event;

/// An event handler; runs on the progress thread.
pub type EventHandler = Arc<dyn Fn(&Event) + Send + Sync + 'static>;

/// Completion callback of a non-blocking call; runs on the progress thread.
pub type Callback<T> = Box<dyn FnOnce(Result<T>) + Send + 'static>;

/// How a non-blocking call started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Started {
    /// The callback will run.
    Pending,
    /// Done already; the callback will not run (`PMIX_OPERATION_SUCCEEDED`).
    Done,
}

/// The directives of a Get, decoded.
#[derive(Debug, Clone, Default)]
pub struct GetOpts {
    /// `PMIX_OPTIONAL`: local data only.
    pub optional: bool,
    /// `PMIX_IMMEDIATE`: the server's store only, no waiting.
    pub immediate: bool,
    /// `PMIX_GET_REFRESH_CACHE`.
    pub refresh: bool,
    /// `PMIX_TIMEOUT`.
    pub timeout: Option<Duration>,
    /// `PMIX_SESSION_INFO`/`JOB_INFO`/`APP_INFO`/`NODE_INFO`.
    pub level: Level,
    /// `PMIX_DATA_SCOPE`.
    pub scope: Option<u8>,
    /// `PMIX_APPNUM` qualifier (with `PMIX_APP_INFO`).
    pub appnum: Option<u32>,
    /// `PMIX_HOSTNAME` qualifier (with `PMIX_NODE_INFO`).
    pub hostname: Option<String>,
    /// `PMIX_NODEID` qualifier (with `PMIX_NODE_INFO`).
    pub nodeid: Option<u32>,
    /// Every directive, passed on to the server.
    pub info: Vec<Info>,
}

/// `PMIX_TIMEOUT` (seconds) from a directive list, if positive.
pub fn timeout_of(info: &[Info]) -> Option<Duration> {
    info.iter()
        .find(|i| i.key.as_str() == keys::TIMEOUT)
        .and_then(|i| match i.value {
            Value::Int(v) | Value::Int32(v) => u64::try_from(v).ok(),
            _ => i.value.as_u64(),
        })
        .filter(|&s| s > 0)
        .map(Duration::from_secs)
}

fn flag(info: &[Info], key: &str) -> bool {
    info.iter()
        .any(|i| i.key.as_str() == key && i.value.is_true())
}

impl GetOpts {
    /// A Get without directives (what [`GetOpts::default`] and an empty list give).
    pub const NONE: GetOpts = GetOpts {
        optional: false,
        immediate: false,
        refresh: false,
        timeout: None,
        level: Level::Any,
        scope: None,
        appnum: None,
        hostname: None,
        nodeid: None,
        info: Vec::new(),
    };

    /// Decode the directives of a Get.
    pub fn from_info(info: &[Info]) -> GetOpts {
        if info.is_empty() {
            return GetOpts::default();
        }
        let level = if flag(info, keys::NODE_INFO) {
            Level::Node
        } else if flag(info, keys::APP_INFO) {
            Level::App
        } else if flag(info, keys::JOB_INFO) || flag(info, keys::SESSION_INFO) {
            Level::Job
        } else {
            Level::Any
        };
        GetOpts {
            optional: flag(info, keys::OPTIONAL),
            immediate: flag(info, keys::IMMEDIATE),
            refresh: flag(info, keys::GET_REFRESH_CACHE),
            timeout: timeout_of(info),
            level,
            scope: info
                .iter()
                .find(|i| i.key.as_str() == keys::DATA_SCOPE)
                .and_then(|i| match i.value {
                    Value::Scope(s) => Some(s),
                    _ => i.value.as_u64().map(|v| v as u8),
                }),
            appnum: (level == Level::App)
                .then(|| {
                    info.iter()
                        .find(|i| i.key.as_str() == keys::APPNUM)
                        .and_then(|i| i.value.as_u64())
                        .map(|v| v as u32)
                })
                .flatten(),
            hostname: (level == Level::Node)
                .then(|| {
                    info.iter()
                        .find(|i| i.key.as_str() == keys::HOSTNAME)
                        .and_then(|i| i.value.as_str().map(str::to_string))
                })
                .flatten(),
            nodeid: (level == Level::Node)
                .then(|| {
                    info.iter()
                        .find(|i| i.key.as_str() == keys::NODEID)
                        .and_then(|i| i.value.as_u64())
                        .map(|v| v as u32)
                })
                .flatten(),
            info: info.to_vec(),
        }
    }
}

type ReplyFn = Box<dyn FnOnce(i32, ReplyData) + Send + 'static>;

/// A request waiting for its reply: what to run with it, and, for the debug dump, what
/// kind of request it was and when it was sent.
struct Waiting {
    f: ReplyFn,
    kind: &'static str,
    since: std::time::Instant,
}

#[derive(Default)]
struct Data {
    jobs: FastMap<Nspace, JobData>,
    own: KvSet,
    /// What to send at the next commit: one entry per key (its latest scope, or a deletion
    /// scope), so a key put many times is sent once. The value is not copied at Put: `None`
    /// means "the value `own` holds for the key" (read at commit). A later Put of the key
    /// in a scope that is not sent (`PMIX_INTERNAL`, `PMIX_SCOPE_UNDEF`) or a
    /// `PMIx_Store_internal` of it moves the value to be sent here first (`Some`), as does
    /// a deletion (`Some(Undef)`).
    staged: FastMap<Key, (u8, Option<Value>)>,
    peers: FastMap<ProcId, FastMap<Key, Value>>,
    /// What collecting fences delivered of each process's data (`ReplyData::Collected`,
    /// kept encoded), oldest first: each reply carries only what changed since the one
    /// before, so a key is looked up from the newest layer down. Read only where `peers`
    /// has no value for the key; a value read from here moves to `peers`, so later fences
    /// do not change it.
    collected: FastMap<ProcId, Vec<Collected>>,
    /// Groups we are a member of, with their members (see `group.rs`).
    groups: HashMap<String, Vec<ProcId>>,
}

/// Layers of collected data kept per process; beyond it the oldest is dropped (its keys
/// are then fetched from the server on first access).
const COLLECTED_LAYERS: usize = 16;

/// One process's entries in a collecting fence's reply, read in place
/// (`protocol::collected_find`); the reply's payload is shared by all its processes.
struct Collected {
    payload: Arc<Vec<u8>>,
    /// Where this process's entries sit in the payload, and the keys the reply said it
    /// no longer has; keys it deleted since (`ServerMsg::Forget`) are added there.
    at: protocol::CollectedProc,
}

/// The newest value of `key` in a process's layers of collected data: `None` if no layer
/// has it or a newer layer says it was removed.
fn find_collected(layers: &[Collected], key: &str) -> Option<Value> {
    for c in layers.iter().rev() {
        if c.at.removed.iter().any(|k| k.as_str() == key) {
            return None;
        }
        if let Some(v) = c.find(key) {
            return Some(v);
        }
    }
    None
}

impl Collected {
    fn find(&self, key: &str) -> Option<Value> {
        match protocol::collected_find(&self.payload, &self.at, key) {
            Ok(v) => v,
            Err(e) => {
                log::warn!(
                    "client: undecodable value in a fence's collected data: {}",
                    e
                );
                None
            }
        }
    }
}

/// A value handed out by pointer (`PMIX_GET_POINTER_VALUES`): the value it was made
/// from, its address for the caller, and the owner that frees it when dropped.
type Pinned = (Value, usize, Box<dyn Send>);

struct Inner {
    me: ProcId,
    server: Option<ProcId>,
    hostname: String,
    handle: Handle,
    conn: Mutex<Option<ConnId>>,
    connected: AtomicBool,
    writer: Mutex<Writer>,
    /// The connection's reading, which a caller waiting for its reply may take over
    /// (see `Client::wait_reply`).
    direct: OnceLock<Arc<reactor::DirectRead>>,
    data: RwLock<Data>,
    pending: Mutex<FastMap<u32, Waiting>>,
    next_tag: AtomicU32,
    handlers: crate::event::Handlers,
    finalized: AtomicBool,
    /// The tag of our Finalize request (0 before it is sent).
    finalize_tag: AtomicU32,
    pinned: Mutex<HashMap<(ProcId, Option<Key>), Pinned>>,
    /// `PMIx_IOF_pull` registrations (see `iof.rs`).
    iof: Mutex<iof::IofRegs>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Inner {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Data> {
        self.data.read().unwrap_or_else(|p| p.into_inner())
    }
    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Data> {
        self.data.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Run an event through our handler chain (on the progress thread).
    fn deliver(&self, ev: &Event) {
        if reactor::stopped() {
            log::debug!(
                "client: event {} not delivered: progress engine stopped",
                ev.status
            );
            return;
        }
        self.note_event(ev);
        let h = self.handle.clone();
        let post: crate::event::Poster = Arc::new(move |f| {
            let _ = h.post(move |_| f());
        });
        self.handlers.deliver(ev.clone(), post);
    }

    /// The connection to the server is gone: fail everything waiting and tell handlers.
    fn lost(&self, why: &str) {
        *lock(&self.conn) = None;
        lock(&self.writer).stream = None;
        let was = self.connected.swap(false, Ordering::SeqCst);
        let waiting: Vec<ReplyFn> = lock(&self.pending).drain().map(|(_, w)| w.f).collect();
        for f in waiting {
            f(sys::PMIX_ERR_LOST_CONNECTION, ReplyData::None);
        }
        if was && !self.finalized.load(Ordering::SeqCst) {
            log::warn!("client {}: lost connection to the server: {}", self.me, why);
            let ev = Event {
                status: sys::PMIX_ERR_LOST_CONNECTION,
                source: self.server.clone().unwrap_or_default(),
                info: Vec::new(),
            };
            self.deliver(&ev);
        }
    }

    /// Close our connection on purpose (finalize): no lost-connection event.
    fn disconnect(&self, ctx: &mut Ctx) {
        lock(&self.writer).stream = None;
        if let Some(c) = lock(&self.conn).take() {
            ctx.close(c);
        }
        self.connected.store(false, Ordering::SeqCst);
    }

    /// Hand a reply to the request waiting for it (on the progress thread, or on the
    /// caller's thread that read it, `Client::read_reply`).
    fn complete(&self, tag: u32, status: i32, data: ReplyData) {
        let f = lock(&self.pending).remove(&tag).map(|w| w.f);
        match f {
            Some(f) => f(status, data),
            None => log::debug!("client: reply for unknown tag {}", tag),
        }
    }

    fn on_conn(&self, ctx: &mut Ctx, id: ConnId, ev: ConnEvent) {
        match ev {
            ConnEvent::Closed(why) => self.lost(&why),
            ConnEvent::Frame(body) => match protocol::decode::<ServerMsg>(&body) {
                Ok(ServerMsg::Reply { tag, status, data }) => {
                    if tag != 0 && tag == self.finalize_tag.load(Ordering::SeqCst) {
                        // The server has our Finalize: close here, before the waiting
                        // caller wakes, so PMIx_Finalize needs no second trip to us.
                        self.disconnect(ctx);
                    }
                    self.complete(tag, status, data);
                }
                Ok(ServerMsg::Forget { proc_, key }) => {
                    let mut d = self.write();
                    if proc_.rank == sys::PMIX_RANK_WILDCARD {
                        // Job-level data the host retracted (deregister_resources).
                        if let Some(j) = d.jobs.get_mut(&proc_.nspace) {
                            j.job.retain(|i| i.key != key);
                            for (_, l) in j.apps.iter_mut() {
                                l.retain(|i| i.key != key);
                            }
                            for n in j.nodes.iter_mut() {
                                n.info.retain(|i| i.key != key);
                            }
                        }
                    } else if let Some(m) = d.peers.get_mut(&proc_) {
                        m.remove(&key);
                    }
                    if let Some(layers) = d.collected.get_mut(&proc_) {
                        if let Some(top) = layers.last_mut() {
                            top.at.removed.push(key);
                        }
                    }
                }
                Ok(ServerMsg::ForgetNode { nspace, node }) => {
                    let mut d = self.write();
                    if let Some(j) = d.jobs.get_mut(&nspace) {
                        j.forget_node(&node);
                    }
                }
                Ok(ServerMsg::Event {
                    status,
                    source,
                    info,
                }) => self.deliver(&Event {
                    status,
                    source,
                    info,
                }),
                Ok(ServerMsg::Iof { id, chunk }) => self.iof_chunk(id, &chunk),
                Err(e) => {
                    log::warn!(
                        "client: malformed message from the server, disconnecting: {}",
                        e
                    );
                    ctx.close(id);
                    self.lost("malformed message from the server");
                }
            },
        }
    }
}

/// The calling threads' way to the server socket (see `Client::send_frame`).
#[derive(Default)]
struct Writer {
    /// A second handle on the connection's socket (None when not connected).
    stream: Option<std::os::unix::net::UnixStream>,
    /// Framed bytes not yet written, oldest first.
    queued: Vec<u8>,
    /// A flush of `queued` is posted to the progress thread and has not run yet.
    flush_posted: bool,
    /// The reactor holds bytes of ours it has not written yet: nothing may overtake them.
    backlog: bool,
}

/// A connected (or singleton) PMIx client.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Client({})", self.inner.me)
    }
}

/// What a local lookup decided.
enum Lookup<T = Value> {
    Found(T),
    /// Found among what a collecting fence delivered: the caller moves it to the cache.
    Collected(ProcId, Key, Value),
    Fail(Error),
    Ask {
        target: ProcId,
        key: Option<Key>,
        immediate: bool,
    },
}

/// Mark `key` to be sent at the next commit in `scope`, with the value `own` holds for it.
fn stage(staged: &mut FastMap<Key, (u8, Option<Value>)>, key: &str, scope: u8) -> Result<()> {
    // Replace in place when the key is staged already (no new key copy).
    match staged.get_mut(key) {
        Some(s) => *s = (scope, None),
        None => {
            staged.insert(Key::new(key)?, (scope, None));
        }
    }
    Ok(())
}

/// `own`'s value of `key` was just replaced by one that is not sent (`old` is what it
/// held): a commit pending for the key must still send `old`.
fn keep_staged_value(
    staged: &mut FastMap<Key, (u8, Option<Value>)>,
    key: &str,
    old: Option<Value>,
) {
    if let (Some(old), Some(s)) = (old, staged.get_mut(key)) {
        if s.1.is_none() {
            s.1 = Some(old);
        }
    }
}

/// A value found locally, after the caller's conversion (which may fail).
fn found<T>(r: Result<T>) -> Lookup<T> {
    match r {
        Ok(t) => Lookup::Found(t),
        Err(e) => Lookup::Fail(e),
    }
}

fn info_array(infos: Vec<Info>) -> Value {
    Value::DataArray(Box::new(DataArray {
        dtype: sys::PMIX_INFO,
        items: infos
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect(),
    }))
}

/// What a server's welcome gave us: the stream, the server's id, our id, job data, the
/// decoder holding whatever the server sent after its Welcome (an event can follow it at
/// once; the connection's reader continues from there), and the descriptors that came
/// with the Welcome (its job-data segments).
type Welcomed = (
    std::os::unix::net::UnixStream,
    ProcId,
    ProcId,
    Vec<JobData>,
    FrameDecoder,
    Vec<std::os::fd::OwnedFd>,
);

/// Connect and exchange Hello/Welcome on the calling thread.
fn handshake(me: &ProcId, path: &str, kind: protocol::PeerKind) -> Result<Welcomed> {
    let unreach = |e: std::io::Error| {
        Error::new(
            sys::PMIX_ERR_UNREACH,
            format!("cannot reach the PMIx server at {}: {}", path, e),
        )
    };
    let mut s = std::os::unix::net::UnixStream::connect(path).map_err(unreach)?;
    s.set_read_timeout(Some(HANDSHAKE_TIMEOUT))
        .map_err(unreach)?;
    let hello = Hello {
        version: protocol::VERSION,
        proc_: me.clone(),
        pid: std::process::id() as i32,
        uid: crate::sys::euid(),
        gid: crate::sys::egid(),
        kind,
    };
    let mut frame = Vec::new();
    protocol::encode_frame_into(&protocol::encode(&hello), &mut frame);
    s.write_all(&frame).map_err(unreach)?;
    let mut dec = FrameDecoder::new();
    let mut buf = vec![0u8; 16 * 1024];
    let mut fds = Vec::new();
    let body = loop {
        if let Some(f) = dec.next_frame()? {
            break f;
        }
        let n = crate::sys::recv_with_fds(&s, &mut buf, &mut fds).map_err(unreach)?;
        if n == 0 {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                format!(
                    "the PMIx server at {} closed the connection during the handshake",
                    path
                ),
            ));
        }
        dec.push(buf.get(..n).unwrap_or_default());
    };
    match protocol::decode::<Welcome>(&body)? {
        Welcome::Accepted { server, you, jobs } => {
            s.set_read_timeout(None).map_err(unreach)?;
            if kind != protocol::PeerKind::ToolAssign && &you != me {
                return Err(Error::new(
                    sys::PMIX_ERR_INVALID_CRED,
                    format!("the server welcomed {} but we are {}", you, me),
                ));
            }
            Ok((s, server, you, jobs, dec, fds))
        }
        Welcome::Refused { status, reason } => Err(Error::new(
            status,
            format!("the PMIx server at {} refused us: {}", path, reason),
        )),
    }
}

/// What a tool knows about its own namespace: a job of one on this node, as for a
/// singleton but without `PMIX_SINGLETON`.
fn tool_job(me: &ProcId, host: &str) -> JobData {
    let mut jd = singleton_job(me, host);
    jd.job.retain(|i| i.key.as_str() != keys::SINGLETON);
    jd
}

fn singleton_job(me: &ProcId, host: &str) -> JobData {
    let mut jd = JobData {
        nspace: me.nspace.clone(),
        ..Default::default()
    };
    let mut add = |k: &str, v: Value| {
        if let Ok(i) = Info::new(k, v) {
            jd.job.push(i);
        }
    };
    add(keys::JOB_SIZE, Value::Uint32(1));
    add(keys::LOCAL_SIZE, Value::Uint32(1));
    add(keys::NUM_NODES, Value::Uint32(1));
    add(keys::LOCAL_PEERS, Value::string("0"));
    add(keys::NODE_LIST, Value::string(host));
    add(keys::SINGLETON, Value::Bool(true));
    let mut p = Vec::new();
    for (k, v) in [
        (keys::LOCAL_RANK, Value::Uint16(0)),
        (keys::NODE_RANK, Value::Uint16(0)),
        (keys::HOSTNAME, Value::string(host)),
        (keys::NODEID, Value::Uint32(0)),
        (keys::APPNUM, Value::Uint32(0)),
    ] {
        if let Ok(i) = Info::new(k, v) {
            p.push(i);
        }
    }
    jd.procs.extend_list(0, p);
    jd
}

impl Client {
    /// Connect to the server named by `cfg` (or become a singleton) and load its job data.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH` if the server cannot be reached, the server's refusal status
    /// (e.g. `PMIX_ERR_INVALID_CRED`, `PMIX_ERR_NOT_FOUND` for an unregistered client),
    /// or `PMIX_ERR_OUT_OF_RESOURCE` if the progress thread cannot start.
    pub fn connect(cfg: ClientConfig) -> Result<Client> {
        let handle = reactor::acquire()?;
        let r = Self::connect_with(cfg, handle);
        if r.is_err() {
            reactor::release();
        }
        r
    }

    /// A client without a server connection: everything it answers comes from its own
    /// store (a singleton, or the server process's own view of itself).
    fn local(me: ProcId, hostname: String, handle: Handle, data: Data) -> Client {
        Client {
            inner: Arc::new(Inner {
                me,
                server: None,
                hostname,
                handle,
                conn: Mutex::new(None),
                connected: AtomicBool::new(false),
                writer: Mutex::new(Writer::default()),
                direct: OnceLock::new(),
                data: RwLock::new(data),
                pending: Mutex::new(FastMap::default()),
                next_tag: AtomicU32::new(1),
                handlers: Default::default(),
                finalized: AtomicBool::new(false),
                finalize_tag: AtomicU32::new(0),
                pinned: Mutex::new(HashMap::new()),
                iof: Mutex::new(Default::default()),
            }),
        }
    }

    /// The client view a server process has of itself (`PMIx_Get`, `PMIx_Put`,
    /// `PMIx_Store_internal` called in a host such as mpirun without `PMIx_Init`): a
    /// local store under the server's identity, with no connection.
    ///
    /// # Errors
    /// `PMIX_ERR_OUT_OF_RESOURCE` if the progress thread cannot start.
    pub fn embedded(id: ProcId) -> Result<Client> {
        let handle = reactor::acquire()?;
        let hostname = crate::sys::hostname();
        let mut data = Data::default();
        data.jobs.insert(
            id.nspace.clone(),
            JobData {
                nspace: id.nspace.clone(),
                ..Default::default()
            },
        );
        Ok(Self::local(id, hostname, handle, data))
    }

    fn connect_with(cfg: ClientConfig, handle: Handle) -> Result<Client> {
        let hostname = params::get(params::PMIX_HOSTNAME).unwrap_or_else(crate::sys::hostname);
        let Some((me, path)) = cfg.server else {
            let me = ProcId::new(
                Nspace::new(format!("singleton.{}.{}", hostname, std::process::id()))?,
                0,
            );
            let mut data = Data::default();
            data.jobs
                .insert(me.nspace.clone(), singleton_job(&me, &hostname));
            log::debug!("client: no server in the environment; singleton {}", me);
            return Ok(Self::local(me, hostname, handle, data));
        };
        let (stream, server, me, jobs, rest, fds) = handshake(&me, &path, cfg.kind)?;
        let mut data = Data::default();
        // Per-process tables the server published on this node are mapped, not copied;
        // one that cannot be mapped is asked for inline once connected. The descriptors
        // are closed once mapped (the mappings stay).
        let mut unmapped = Vec::new();
        for mut j in jobs {
            if let Err(e) = j.procs.attach(&fds) {
                log::warn!("client {}: {}; asking for an inline copy", me, e);
                unmapped.push(j.nspace.clone());
            }
            data.jobs.insert(j.nspace.clone(), j);
        }
        drop(fds);
        if cfg.kind != protocol::PeerKind::Client && !data.jobs.contains_key(&me.nspace) {
            data.jobs
                .insert(me.nspace.clone(), tool_job(&me, &hostname));
        }
        let inner = Arc::new(Inner {
            me,
            server: Some(server),
            hostname,
            handle: handle.clone(),
            conn: Mutex::new(None),
            connected: AtomicBool::new(true),
            writer: Mutex::new(Writer {
                stream: stream.try_clone().ok(),
                ..Default::default()
            }),
            direct: OnceLock::new(),
            data: RwLock::new(data),
            pending: Mutex::new(FastMap::default()),
            next_tag: AtomicU32::new(1),
            handlers: Default::default(),
            finalized: AtomicBool::new(false),
            finalize_tag: AtomicU32::new(0),
            pinned: Mutex::new(HashMap::new()),
            iof: Mutex::new(Default::default()),
        });
        crate::dump::register(crate::dump::source_of(&inner, Inner::dump));
        stream
            .set_nonblocking(true)
            .map_err(|e| Error::new(sys::PMIX_ERR_UNREACH, e.to_string()))?;
        // The calling threads' own handle for reading their replies (without one, every
        // reply goes through the progress thread).
        let reader = stream.try_clone().ok();
        let weak: Weak<Inner> = Arc::downgrade(&inner);
        let owner: reactor::ConnOwner = Arc::new(move |ctx, id, ev| {
            if let Some(i) = weak.upgrade() {
                i.on_conn(ctx, id, ev);
            } else {
                ctx.close(id);
            }
        });
        // The progress thread takes the connection over when it next runs; Init does not
        // wait for it (one thread wakeup less on the way to the first operation). The
        // conn lock is held until the id is recorded, so no command sees it unset.
        {
            let mut conn = lock(&inner.conn);
            let stream = mio::net::UnixStream::from_std(stream);
            match reader {
                Some(reader) => {
                    let (id, d) = handle.add_conn_direct(stream, reader, owner, rest)?;
                    *conn = Some(id);
                    let _ = inner.direct.set(d);
                }
                None => *conn = Some(handle.add_conn(stream, owner, rest)?),
            }
        }
        log::debug!("client {} connected", inner.me);
        let client = Client { inner };
        for ns in unmapped {
            if let Err(e) = client.fetch_job_inline(ns.clone()) {
                // Gets of other processes' keys still reach the server; our own
                // per-process keys are missing until a refresh succeeds.
                log::warn!("client {}: no job data for {}: {}", client.inner.me, ns, e);
            }
        }
        Ok(client)
    }

    /// Replace a namespace's job data with the server's inline copy (blocking; used when
    /// the segment a Welcome named cannot be mapped here).
    ///
    /// # Errors
    /// The request's failure (`PMIX_ERR_UNREACH`, `PMIX_ERR_TIMEOUT`, the server's status).
    fn fetch_job_inline(&self, nspace: Nspace) -> Result<()> {
        let inner = self.inner.clone();
        reactor::wait("PMIx_Init", Some(HANDSHAKE_TIMEOUT), |done| {
            self.request(
                Req::JobData { nspace },
                Box::new(move |status, data| {
                    done.complete(match (status, data) {
                        (sys::PMIX_SUCCESS, ReplyData::Job(jd)) => {
                            inner.write().jobs.insert(jd.nspace.clone(), *jd);
                            Ok(())
                        }
                        (st, _) => Err(Error::new(
                            st,
                            "the server sent no inline copy of the job data",
                        )),
                    })
                }),
            )
        })
    }

    /// A tool that is not connected to a server (`PMIX_TOOL_DO_NOT_CONNECT`, a failed
    /// optional connection, or after `PMIx_tool_disconnect`).
    ///
    /// # Errors
    /// `PMIX_ERR_OUT_OF_RESOURCE` if the progress thread cannot start.
    pub fn tool_local(me: ProcId) -> Result<Client> {
        let handle = reactor::acquire()?;
        let hostname = params::get(params::PMIX_HOSTNAME).unwrap_or_else(crate::sys::hostname);
        let mut data = Data::default();
        data.jobs
            .insert(me.nspace.clone(), tool_job(&me, &hostname));
        Ok(Self::local(me, hostname, handle, data))
    }

    /// True while connected to a server (false for a singleton, a local tool, or after
    /// the connection was lost).
    pub fn is_connected(&self) -> bool {
        self.inner.server.is_some() && self.inner.connected.load(Ordering::SeqCst)
    }

    /// Our own identity.
    pub fn proc_id(&self) -> &ProcId {
        &self.inner.me
    }

    /// True when running without a server.
    pub fn is_singleton(&self) -> bool {
        self.inner.server.is_none()
    }

    /// The server's identity (None for a singleton).
    pub fn server_id(&self) -> Option<&ProcId> {
        self.inner.server.as_ref()
    }

    /// Send a request; `f` runs on the progress thread with the reply (or
    /// `PMIX_ERR_LOST_CONNECTION`).
    fn request(&self, req: Req, f: ReplyFn) -> Result<()> {
        self.request_tagged(req, f).map(|_| ())
    }

    /// [`Client::request`], returning the request's tag (what `wait_reply` waits for).
    fn request_tagged(&self, req: Req, f: ReplyFn) -> Result<u32> {
        if !self.inner.connected.load(Ordering::SeqCst) {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                "not connected to a PMIx server",
            ));
        }
        let mut tag = self.inner.next_tag.fetch_add(1, Ordering::Relaxed);
        if tag == 0 {
            tag = self.inner.next_tag.fetch_add(1, Ordering::Relaxed);
        }
        if matches!(req, Req::Finalize) {
            self.inner.finalize_tag.store(tag, Ordering::SeqCst);
        }
        let kind = req.kind();
        let body = protocol::encode(&Request { tag, req });
        let since = std::time::Instant::now();
        lock(&self.inner.pending).insert(tag, Waiting { f, kind, since });
        if let Err(e) = self.send_frame(&body) {
            lock(&self.inner.pending).remove(&tag);
            return Err(e);
        }
        Ok(tag)
    }

    /// Wait for the reply to the request `start` sends (`start` returns its tag, or
    /// `None` when no reply is to come), as `reactor::wait` does, except that the
    /// waiting thread reads the reply from the socket itself when it can
    /// ([`reactor::DirectRead`]): the reply's handler then runs here, before this
    /// returns, and the progress thread is not woken. The first frame that is not this
    /// reply (an event, a notice to forget a key, another thread's reply) is given back to
    /// the progress thread unhandled, with everything after it, and the wait goes on as
    /// usual: frames are handled in the order they came, and callbacks stay on the
    /// progress thread. A second thread that waits meanwhile waits as usual.
    ///
    /// # Errors
    /// As `reactor::wait`.
    fn wait_reply<T>(
        &self,
        call: &str,
        timeout: Option<Duration>,
        start: impl FnOnce(reactor::Completion<T>) -> Result<Option<u32>>,
    ) -> Result<T> {
        let (done, mut waiter) = reactor::prepare(call, timeout)?;
        // The reading is taken over before the request goes out: a reply that comes at
        // once (the last arrival at a fence) would otherwise wake the progress thread.
        let reader = self.inner.direct.get().and_then(|d| d.take());
        if let (Some(tag), Some(r)) = (start(done)?, reader) {
            self.read_reply(tag, r, &mut waiter);
        }
        waiter.finish()
    }

    fn read_reply<T>(
        &self,
        tag: u32,
        mut r: reactor::DirectReader,
        waiter: &mut reactor::Waiter<T>,
    ) {
        if waiter.done() {
            return; // completed without a reply from the server
        }
        if let reactor::DirectFrame::Frame(body) = r.next_frame(waiter.deadline()) {
            // Anything but our own reply goes back undecoded.
            if protocol::reply_tag(&body) != Some(tag) {
                r.put_back(&body);
                return;
            }
            match protocol::decode::<ServerMsg>(&body) {
                // Handled before the reading is given back (`r` is dropped after it), so
                // that nothing the server sent after it takes effect first.
                Ok(ServerMsg::Reply { status, data, .. }) => self.inner.complete(tag, status, data),
                _ => r.put_back(&body),
            }
        }
    }

    fn send_only(&self, req: Req) -> Result<()> {
        if !self.inner.connected.load(Ordering::SeqCst) {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                "not connected to a PMIx server",
            ));
        }
        let body = protocol::encode(&Request { tag: 0, req });
        self.send_frame(&body)
    }

    /// Send one frame to the server.
    ///
    /// The calling thread writes the frame to the socket itself, so a request costs no
    /// wakeup of the progress thread, and a commit is in the server's socket when
    /// `PMIx_Commit` returns (ahead of anything this process sends that server later,
    /// from any thread; see docs/PERF.md on Commit). Whatever the socket does not take at
    /// once waits in `Writer::queued` and is handed to the progress thread; later frames
    /// queue behind it until the reactor has written it all (`backlog`), so the server
    /// always sees frames in the order they were sent.
    fn send_frame(&self, body: &[u8]) -> Result<()> {
        let mut w = lock(&self.inner.writer);
        protocol::encode_frame_into(body, &mut w.queued);
        if !w.backlog {
            let Writer { stream, queued, .. } = &mut *w;
            if let Some(s) = stream.as_mut() {
                let mut off = 0;
                while off < queued.len() {
                    match s.write(queued.get(off..).unwrap_or_default()) {
                        Ok(0) => break,
                        Ok(n) => off += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        // Full (WouldBlock) or broken: the progress thread takes over and
                        // meets the error, if any, itself.
                        Err(_) => break,
                    }
                }
                queued.drain(..off);
            }
            if w.queued.is_empty() {
                return Ok(());
            }
        }
        if w.flush_posted {
            return Ok(());
        }
        w.flush_posted = true;
        let inner = self.inner.clone();
        let posted = self.inner.handle.post(move |ctx| {
            let conn = *lock(&inner.conn);
            let sent = {
                let mut w = lock(&inner.writer);
                w.flush_posted = false;
                let bytes = std::mem::take(&mut w.queued);
                let sent = conn.is_some_and(|c| ctx.send_raw(c, &bytes));
                w.backlog = sent && conn.is_some_and(|c| !ctx.flushed(c));
                sent
            };
            if !sent {
                // The connection is gone: whatever waits for a reply fails now (a
                // request may have been queued after `lost` ran).
                let waiting: Vec<ReplyFn> =
                    lock(&inner.pending).drain().map(|(_, w)| w.f).collect();
                for f in waiting {
                    f(sys::PMIX_ERR_LOST_CONNECTION, ReplyData::None);
                }
            }
        });
        if posted.is_err() {
            w.flush_posted = false;
        }
        posted
    }

    // ------------------------------------------------------------ put / commit

    /// `PMIx_Put`: store locally (visible to our own Gets at once) and stage for the next
    /// commit unless the scope is `PMIX_INTERNAL`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a scope other than LOCAL, REMOTE, GLOBAL, INTERNAL, UNDEF
    /// or one of the `PMIX_DEL_*` deletion scopes (which remove `key`; `value` is ignored,
    /// and deleting an absent key is not an error).
    pub fn put(&self, scope: u8, key: Key, value: Value) -> Result<()> {
        self.put_str(scope, key.as_str(), value)
    }

    /// [`Client::put`] with the key as a string: a key already put before is found
    /// without allocating; a new one is checked as [`Key::new`] does.
    ///
    /// # Errors
    /// As [`Client::put`], and `PMIX_ERR_BAD_PARAM` for an invalid key.
    pub fn put_str(&self, scope: u8, key: &str, value: Value) -> Result<()> {
        reactor::check_serviceable("PMIx_Put")?;
        if reactor::on_progress_thread() {
            return reactor::wait("PMIx_Put", None, |_| Ok(()));
        }
        if key.is_empty() {
            return Err(Error::bad_param("empty key"));
        }
        if scope > sys::PMIX_DEL_INTERNAL {
            return Err(Error::bad_param(format!(
                "scope {} not supported by Put",
                scope
            )));
        }
        let mut d = self.inner.write();
        let value = if key == qualified::CONTAINER && scope < sys::PMIX_DEL_LOCAL {
            qualified::merge(d.own.map.get(key).map(|e| &e.value), &value)?
        } else {
            value
        };
        if scope >= sys::PMIX_DEL_LOCAL {
            // Deletion: gone from our own view at once; the others learn at commit.
            d.own.map.remove(key);
            if scope == sys::PMIX_DEL_INTERNAL {
                d.staged.remove(key);
            } else {
                let k = Key::new(key)?;
                d.staged.insert(k, (scope, Some(Value::Undef)));
            }
            return Ok(());
        }
        let d = &mut *d;
        let sent = matches!(scope, sys::PMIX_LOCAL | sys::PMIX_REMOTE | sys::PMIX_GLOBAL);
        if sent {
            stage(&mut d.staged, key, scope)?;
        }
        let old = match d.own.map.get_mut(key) {
            Some(e) => {
                e.scope = scope;
                Some(std::mem::replace(&mut e.value, value))
            }
            None => {
                d.own.put(Key::new(key)?, scope, value);
                None
            }
        };
        if !sent {
            keep_staged_value(&mut d.staged, key, old);
        }
        Ok(())
    }

    /// [`Client::put_str`] of a string value given by reference (`None`: a NULL string).
    /// Putting a string again under a key whose value is a string rewrites that string in
    /// place: no allocation, no copy for the commit (`Data::staged`), so a repeated Put
    /// of a key costs no allocator call at all.
    ///
    /// # Errors
    /// As [`Client::put_str`].
    pub fn put_string(&self, scope: u8, key: &str, s: Option<&[u8]>) -> Result<()> {
        let sent = matches!(scope, sys::PMIX_LOCAL | sys::PMIX_REMOTE | sys::PMIX_GLOBAL);
        if let (true, Some(bytes)) = (sent && key != qualified::CONTAINER, s) {
            reactor::check_serviceable("PMIx_Put")?;
            if !reactor::on_progress_thread() {
                let mut d = self.inner.write();
                let d = &mut *d;
                if let Some(e) = d.own.map.get_mut(key) {
                    if let Value::String(Some(buf)) = &mut e.value {
                        buf.clear();
                        buf.extend_from_slice(bytes);
                        e.scope = scope;
                        return stage(&mut d.staged, key, scope);
                    }
                }
            }
        }
        self.put_str(scope, key, Value::String(s.map(<[u8]>::to_vec)))
    }

    /// `PMIx_Commit`: send what was put since the last commit.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH` if the server connection is gone.
    pub fn commit(&self) -> Result<()> {
        reactor::check_serviceable("PMIx_Commit")?;
        if reactor::on_progress_thread() {
            return reactor::wait("PMIx_Commit", None, |_| Ok(()));
        }
        let puts: Vec<Put> = {
            let mut d = self.inner.write();
            let staged = std::mem::take(&mut d.staged);
            // The one place the delta is visible: with PMIX_DEBUG=debug each commit
            // reports how many changes (puts and deletions since the previous commit) it
            // sends.
            if staged.is_empty() {
                log::debug!("PMIx_Commit: nothing to send (no change since the previous commit)");
                return Ok(());
            }
            log::debug!(
                "PMIx_Commit: sending {} change(s) made since the previous commit",
                staged.len()
            );
            if self.is_singleton() {
                return Ok(());
            }
            staged
                .into_iter()
                .filter_map(|(key, (scope, value))| {
                    let value = match value {
                        Some(v) => v,
                        // Staged by reference: the value Put last, still in `own`.
                        None => d.own.map.get(&key)?.value.clone(),
                    };
                    Some(Put { key, scope, value })
                })
                .collect()
        };
        self.send_only(Req::Commit { puts })
    }

    /// `PMIx_Store_internal`: store a value as if it came from `proc` (our cache only).
    pub fn store_internal(&self, proc: &ProcId, key: Key, value: Value) -> Result<()> {
        let mut d = self.inner.write();
        if proc == &self.inner.me {
            let d = &mut *d;
            let old = d.own.map.insert(
                key.clone(),
                crate::store::Entry {
                    scope: sys::PMIX_INTERNAL,
                    value,
                },
            );
            keep_staged_value(&mut d.staged, key.as_str(), old.map(|e| e.value));
        } else if proc.rank == sys::PMIX_RANK_WILDCARD {
            let jd = d
                .jobs
                .entry(proc.nspace.clone())
                .or_insert_with(|| JobData {
                    nspace: proc.nspace.clone(),
                    ..Default::default()
                });
            jd.job.retain(|i| i.key != key);
            jd.job.push(Info {
                key,
                flags: 0,
                value,
            });
        } else {
            d.peers.entry(proc.clone()).or_default().insert(key, value);
        }
        Ok(())
    }

    // ------------------------------------------------------------ fence

    fn fence_args(&self, procs: Vec<ProcId>) -> Result<Vec<ProcId>> {
        // A group name stands for its members.
        let procs = self.expand_group_procs(procs);
        let procs = if procs.is_empty() {
            vec![ProcId::new(
                self.inner.me.nspace.clone(),
                sys::PMIX_RANK_WILDCARD,
            )]
        } else {
            procs
        };
        if !state_includes(&procs, &self.inner.me) {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_A_MEMBER,
                format!("{} is not among the fence participants", self.inner.me),
            ));
        }
        Ok(procs)
    }

    /// True if the fence names only us, explicitly (`{self}`): nobody else can arrive and
    /// our committed data is already at our server, so it is satisfied at once.
    ///
    /// # Implementation notes
    /// Our namespace's wildcard in a job of one is not treated so, although it could be:
    /// Open MPI 4.1.4 calls `PMIx_Fence_nb(NULL procs, ...)` in `MPI_Init` and takes any
    /// return other than `PMIX_SUCCESS` as a failure, so a job of one (and an MPI
    /// singleton, which runs under its own orted) would not start. That fence goes to the
    /// server and completes through the callback, as with OpenPMIx.
    fn sole_participant(&self, procs: &[ProcId]) -> bool {
        if !self.inner.connected.load(Ordering::SeqCst) {
            return false; // the request fails with PMIX_ERR_UNREACH, as any other
        }
        let me = &self.inner.me;
        !procs.is_empty() && procs.iter().all(|p| p == me)
    }

    /// `PMIx_Fence_nb`. An empty `procs` means our whole namespace.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_A_MEMBER` if we are not a participant; `PMIX_ERR_UNREACH` if the
    /// server is gone. A fence satisfied at once (a singleton, or `procs` names only us)
    /// returns `Ok(Started::Done)` and `cb` is not called.
    pub fn fence_nb(&self, procs: Vec<ProcId>, info: &[Info], cb: Callback<()>) -> Result<Started> {
        reactor::check_serviceable("PMIx_Fence_nb")?;
        let procs = self.fence_args(procs)?;
        if self.is_singleton() || self.sole_participant(&procs) {
            return Ok(Started::Done);
        }
        self.fence_request(procs, info, cb)?;
        Ok(Started::Pending)
    }

    /// Send a fence request for `procs` (checked); `cb` runs with the reply. Returns the
    /// request's tag.
    fn fence_request(&self, procs: Vec<ProcId>, info: &[Info], cb: Callback<()>) -> Result<u32> {
        let req = Req::Fence {
            procs,
            collect: flag(info, keys::COLLECT_DATA),
            timeout_ms: timeout_of(info)
                .map(|d| d.as_millis().min(u32::MAX as u128) as u32)
                .unwrap_or(0),
            info: info.to_vec(),
        };
        let inner = self.inner.clone();
        self.request_tagged(
            req,
            Box::new(move |status, data| {
                if let ReplyData::Collected(payload) = data {
                    match protocol::collected_index(&payload) {
                        Ok((reset, index)) => {
                            let payload = Arc::new(payload);
                            let mut d = inner.write();
                            if reset {
                                d.collected.clear();
                            }
                            for cp in index {
                                if cp.proc_ == inner.me {
                                    continue;
                                }
                                let layers = d.collected.entry(cp.proc_.clone()).or_default();
                                if layers.len() >= COLLECTED_LAYERS {
                                    layers.remove(0);
                                }
                                layers.push(Collected {
                                    payload: payload.clone(),
                                    at: cp,
                                });
                            }
                        }
                        Err(e) => {
                            // Whatever we held may be outdated now: fetch on first access.
                            log::warn!("client: malformed collected data ignored: {}", e);
                            inner.write().collected.clear();
                        }
                    }
                }
                cb(if status == sys::PMIX_SUCCESS {
                    Ok(())
                } else {
                    Err(Error::new(status, "fence failed"))
                })
            }),
        )
    }

    /// `PMIx_Fence` (blocking).
    ///
    /// # Errors
    /// As [`Client::fence_nb`], plus `PMIX_ERR_WOULD_BLOCK` on the progress thread and
    /// `PMIX_ERR_TIMEOUT` after `PMIX_TIMEOUT`.
    pub fn fence(&self, procs: Vec<ProcId>, info: &[Info]) -> Result<()> {
        self.fence_as("PMIx_Fence", procs, info)
    }

    /// [`Client::fence`] on behalf of the C call `call` (`PMIx_Fence`, or `PMIx_Fence_nb`
    /// given no callback), which the diagnostics name.
    ///
    /// # Errors
    /// As [`Client::fence`].
    pub fn fence_as(&self, call: &'static str, procs: Vec<ProcId>, info: &[Info]) -> Result<()> {
        reactor::check_serviceable(call)?;
        if reactor::on_progress_thread() {
            return reactor::wait(call, None, |_| Ok(()));
        }
        let procs = self.fence_args(procs)?;
        if self.is_singleton() || self.sole_participant(&procs) {
            return Ok(());
        }
        // The server's timer ends a fence with PMIX_TIMEOUT for every participant; our own
        // bound, a little later, only guards against a server that never answers.
        let bound = collective_bound(info);
        self.wait_reply(call, bound, |done| {
            self.fence_request(procs, info, Box::new(move |r| done.complete(r)))
                .map(Some)
        })
    }

    // ------------------------------------------------------------ get

    /// The self-referential keys (`PMIX_VERSION_NUMERIC`, `PMIX_PROCID`, `PMIX_RANK`),
    /// answered from our identity alone; None for any other key. They touch nothing that
    /// waits, so they are answered on the progress thread too.
    fn self_referential(&self, proc: Option<&ProcId>, key: Option<&Key>) -> Option<Lookup> {
        let me = &self.inner.me;
        Some(match key?.as_str() {
            keys::VERSION_NUMERIC => Lookup::Found(Value::Uint32(sys::PMIX_NUMERIC_VERSION)),
            keys::PROCID => match proc {
                None => Lookup::Found(Value::Proc(Some(me.clone()))),
                Some(_) => Lookup::Fail(Error::not_found(
                    "PMIX_PROCID is only answered for a NULL proc",
                )),
            },
            keys::RANK => match proc {
                Some(p) if p.nspace == me.nspace && p.rank == sys::PMIX_RANK_INVALID => {
                    Lookup::Found(Value::Rank(me.rank))
                }
                _ => Lookup::Fail(Error::not_found(
                    "PMIX_RANK is only answered for {own namespace, PMIX_RANK_INVALID}",
                )),
            },
            _ => return None,
        })
    }

    fn lookup_local(&self, proc: Option<&ProcId>, key: Option<&Key>, opts: &GetOpts) -> Lookup {
        match self.self_referential(proc, key) {
            Some(l) => l,
            None => self.lookup_data(proc, key, opts, |v| Ok(v.clone())),
        }
    }

    /// [`Client::lookup_local`] for a key already known not to be self-referential.
    fn lookup_data<T>(
        &self,
        proc: Option<&ProcId>,
        key: Option<&Key>,
        opts: &GetOpts,
        f: impl FnOnce(&Value) -> Result<T>,
    ) -> Lookup<T> {
        let me = &self.inner.me;
        if let Some(k) = key {
            // Process sets and groups change at run time: the server answers.
            if matches!(
                k.as_str(),
                pmix_sys::attrs::keys::PMIX_PSET_NAMES | pmix_sys::attrs::keys::PMIX_GROUP_NAMES
            ) && !self.is_singleton()
            {
                return Lookup::Ask {
                    target: proc.cloned().unwrap_or_else(|| me.clone()),
                    key: Some(k.clone()),
                    immediate: true,
                };
            }
        }
        // Borrowed: a Get answered locally allocates nothing but the value it returns.
        let target: &ProcId = proc.unwrap_or(me);
        let d = self.inner.read();
        let host = Some(self.inner.hostname.as_str());
        let scope_ok = |s: u8| opts.scope.is_none_or(|want| scope_searched(s, want));
        if target == me {
            return match key {
                Some(k) => {
                    if opts.level == Level::Any {
                        if let Some(e) = d.own.map.get(k) {
                            if scope_ok(e.scope) {
                                return found(f(&e.value));
                            }
                        }
                    }
                    match d
                        .jobs
                        .get(&me.nspace)
                        .and_then(|j| j.proc_value(me.rank, k.as_str(), opts.level))
                    {
                        Some(v) => found(f(&v)),
                        None => Lookup::Fail(Error::not_found(format!("{} has no key {}", me, k))),
                    }
                }
                None => {
                    let mut v = d.own.visible(Reader::Owner);
                    if let Some(j) = d.jobs.get(&me.nspace) {
                        v.extend(j.proc_infos(me.rank));
                    }
                    found(f(&info_array(v)))
                }
            };
        }
        if target.rank == sys::PMIX_RANK_WILDCARD {
            // PMIX_GET_REFRESH_CACHE on job data: ask the server's current registration.
            if opts.refresh && key.is_some() && !self.is_singleton() {
                return Lookup::Ask {
                    target: target.clone(),
                    key: key.cloned(),
                    immediate: true,
                };
            }
            let Some(j) = d.jobs.get(&target.nspace) else {
                if opts.optional {
                    return Lookup::Fail(Error::not_found("namespace not known locally"));
                }
                // The server may know it, or will once it is registered: it waits for
                // the registration unless PMIX_IMMEDIATE says not to.
                return Lookup::Ask {
                    target: target.clone(),
                    key: key.cloned(),
                    immediate: opts.immediate,
                };
            };
            if let Some(v) = key
                .filter(|_| opts.level == Level::Any)
                .and_then(|k| j.job_level(k.as_str()))
            {
                // Job-level keys first (the common case): the application and node
                // selection below matters only when the job level lacks the key.
                return found(f(v));
            }
            return match key {
                Some(k) => match j.job_value_sel(
                    k.as_str(),
                    opts.level,
                    &Select {
                        // Default to the caller's own application when it is in this job.
                        appnum: opts.appnum.or_else(|| {
                            (target.nspace == me.nspace)
                                .then(|| {
                                    j.proc_value(me.rank, keys::APPNUM, Level::Any)
                                        .and_then(|v| v.as_u64())
                                        .map(|v| v as u32)
                                })
                                .flatten()
                        }),
                        hostname: opts.hostname.as_deref(),
                        nodeid: opts.nodeid,
                        local_host: host,
                    },
                ) {
                    Some(v) => found(f(&v)),
                    None => Lookup::Fail(Error::not_found(format!(
                        "no job-level key {} for {}",
                        k, target.nspace
                    ))),
                },
                None => found(f(&info_array(j.job.clone()))),
            };
        }
        let Some(k) = key else {
            if self.is_singleton() {
                // No server to ask (a singleton, or a server process's own view): all we
                // hold for that process, as stored with PMIx_Store_internal or registered.
                let mut all: Vec<Info> = d
                    .peers
                    .get(target)
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| Info {
                                key: k.clone(),
                                flags: 0,
                                value: v.clone(),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                if let Some(j) = d.jobs.get(&target.nspace) {
                    all.extend(j.proc_infos(target.rank));
                }
                return found(f(&info_array(all)));
            }
            return Lookup::Ask {
                target: target.clone(),
                key: None,
                immediate: opts.immediate,
            };
        };
        if host_key(k) {
            if let Some(v) = d
                .jobs
                .get(&target.nspace)
                .and_then(|j| j.proc_value(target.rank, k.as_str(), opts.level))
            {
                return found(f(&v));
            }
        }
        // The cache does not keep scopes: a PMIX_DATA_SCOPE search goes to the server.
        if !opts.refresh && opts.scope.is_none() {
            if let Some(v) = d.peers.get(target).and_then(|m| m.get(k)) {
                return found(f(v));
            }
            if let Some(v) = d
                .collected
                .get(target)
                .and_then(|l| find_collected(l, k.as_str()))
            {
                return Lookup::Collected(target.clone(), k.clone(), v);
            }
        }
        // A non-reserved key the host registered for this process (or its job).
        if let Some(v) = d
            .jobs
            .get(&target.nspace)
            .and_then(|j| j.proc_value(target.rank, k.as_str(), opts.level))
        {
            return found(f(&v));
        }
        if opts.optional || self.is_singleton() {
            return Lookup::Fail(Error::not_found(format!(
                "{} not found locally for {}",
                k, target
            )));
        }
        // A reserved key is not waited for once its namespace is known; for a namespace
        // not known here yet, the server waits for the registration (unless IMMEDIATE).
        let known_ns = d.jobs.contains_key(&target.nspace);
        Lookup::Ask {
            immediate: opts.immediate || (host_key(k) && known_ns),
            target: target.clone(),
            key: Some(k.clone()),
        }
    }

    fn ask(
        &self,
        target: ProcId,
        key: Option<Key>,
        immediate: bool,
        opts: &GetOpts,
        cb: Callback<Value>,
    ) -> Result<u32> {
        if opts.refresh && target.rank == sys::PMIX_RANK_WILDCARD {
            return self.refresh_job(target, key, opts, cb);
        }
        let inner = self.inner.clone();
        let refresh = opts.refresh;
        let t2 = target.clone();
        let k2 = key.clone();
        let req = Req::Get {
            target,
            key,
            immediate,
            timeout_ms: opts
                .timeout
                .map(|d| d.as_millis().min(u32::MAX as u128) as u32)
                .unwrap_or(0),
            info: opts.info.clone(),
        };
        self.request_tagged(
            req,
            Box::new(move |status, data| {
                if status != sys::PMIX_SUCCESS {
                    cb(Err(Error::new(
                        status,
                        format!("get of {:?} from {} failed", k2, t2),
                    )));
                    return;
                }
                let infos = match data {
                    ReplyData::Data(v) => v,
                    _ => Vec::new(),
                };
                let wildcard = t2.rank == sys::PMIX_RANK_WILDCARD;
                if !wildcard {
                    let mut d = inner.write();
                    if refresh {
                        d.collected.remove(&t2);
                    }
                    let cache = d.peers.entry(t2.clone()).or_default();
                    if refresh {
                        cache.clear();
                    }
                    for i in &infos {
                        cache.insert(i.key.clone(), i.value.clone());
                    }
                }
                let r = match &k2 {
                    Some(k) => infos
                        .iter()
                        .find(|i| &i.key == k)
                        .map(|i| i.value.clone())
                        .ok_or_else(|| Error::not_found(format!("{} has no key {}", t2, k))),
                    None => {
                        let mut all = infos;
                        if let Some(j) = inner.read().jobs.get(&t2.nspace) {
                            all.extend(j.proc_infos(t2.rank));
                        }
                        Ok(info_array(all))
                    }
                };
                cb(r);
            }),
        )
    }

    /// A peer's value read from what a fence delivered joins the cache of values read, so
    /// that later fences do not change what this process sees (unless a value was cached
    /// meanwhile by another thread; that one wins).
    fn keep_read(&self, proc: ProcId, key: Key, v: Value) -> Value {
        self.inner
            .write()
            .peers
            .entry(proc)
            .or_default()
            .entry(key)
            .or_insert(v)
            .clone()
    }

    /// `PMIX_GET_REFRESH_CACHE` with rank WILDCARD: replace our copy of the namespace's
    /// job-level data with the server's current registration, then answer from it.
    fn refresh_job(
        &self,
        target: ProcId,
        key: Option<Key>,
        opts: &GetOpts,
        cb: Callback<Value>,
    ) -> Result<u32> {
        let me = self.clone();
        let mut plain = opts.clone();
        plain.refresh = false;
        let req = Req::JobData {
            nspace: target.nspace.clone(),
        };
        self.request_tagged(
            req,
            Box::new(move |status, data| {
                match (status, data) {
                    (sys::PMIX_SUCCESS, ReplyData::Job(jd)) => {
                        me.inner.write().jobs.insert(jd.nspace.clone(), *jd);
                    }
                    (sys::PMIX_SUCCESS, _) => {}
                    (st, _) => {
                        cb(Err(Error::new(
                            st,
                            format!("refresh of {}'s job data failed", target.nspace),
                        )));
                        return;
                    }
                }
                cb(match me.lookup_local(Some(&target), key.as_ref(), &plain) {
                    Lookup::Found(v) => Ok(v),
                    Lookup::Collected(p, k, v) => Ok(me.keep_read(p, k, v)),
                    Lookup::Fail(e) => Err(e),
                    Lookup::Ask { .. } => Err(Error::not_found(format!(
                        "{:?} is not in {}'s job data",
                        key, target.nspace
                    ))),
                });
            }),
        )
    }

    /// `PMIx_Get` (blocking). `proc` None means ourselves; `key` None returns all of the
    /// process's data as a `PMIX_DATA_ARRAY` of `PMIX_INFO`.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_EXISTS_OUTSIDE_SCOPE`, `PMIX_ERR_TIMEOUT`,
    /// `PMIX_ERR_WOULD_BLOCK` (progress thread), `PMIX_ERR_UNREACH`/`LOST_CONNECTION`.
    pub fn get(&self, proc: Option<&ProcId>, key: Option<&Key>, opts: &GetOpts) -> Result<Value> {
        self.get_with(proc, key, opts, |v| Ok(v.clone()))
    }

    /// [`Client::get`] handing the value to `f` by reference: a value found locally is
    /// converted by `f` while the store is read, instead of being copied out first (the C
    /// API converts it straight into the caller's `pmix_value_t`).
    ///
    /// # Errors
    /// As [`Client::get`], and `f`'s own.
    pub fn get_with<T>(
        &self,
        proc: Option<&ProcId>,
        key: Option<&Key>,
        opts: &GetOpts,
        f: impl FnOnce(&Value) -> Result<T>,
    ) -> Result<T> {
        reactor::check_serviceable("PMIx_Get")?;
        match self.self_referential(proc, key) {
            Some(Lookup::Found(v)) => return f(&v),
            Some(Lookup::Fail(e)) => return Err(e),
            _ => {}
        }
        if reactor::on_progress_thread() {
            return reactor::wait("PMIx_Get", None, |_| Ok(()));
        }
        if let Some((container, sel)) = qualified_get(key, opts) {
            let v = self
                .get(proc, Some(&container), &without_qualifiers(opts))
                .and_then(sel)?;
            return f(&v);
        }
        // `f` runs once: on a value found here, or on the one read from elsewhere below.
        let mut f = Some(f);
        let mut apply = |v: &Value| match f.take() {
            Some(f) => f(v),
            None => Err(Error::new(sys::PMIX_ERROR, "value converted twice")),
        };
        match self.lookup_data(proc, key, opts, &mut apply) {
            Lookup::Found(t) => Ok(t),
            Lookup::Collected(p, k, v) => apply(&self.keep_read(p, k, v)),
            Lookup::Fail(e) => Err(e),
            Lookup::Ask {
                target,
                key,
                immediate,
            } => apply(&self.wait_reply("PMIx_Get", opts.timeout, |done| {
                self.ask(
                    target,
                    key,
                    immediate,
                    opts,
                    Box::new(move |r| done.complete(r)),
                )
                .map(Some)
            })?),
        }
    }

    /// `PMIx_Get_nb`: `cb` runs exactly once, on the progress thread.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH` or `PMIX_ERR_NOT_AVAILABLE` if the request cannot be started
    /// (then `cb` is not called).
    pub fn get_nb(
        &self,
        proc: Option<&ProcId>,
        key: Option<&Key>,
        opts: &GetOpts,
        cb: Callback<Value>,
    ) -> Result<()> {
        reactor::check_serviceable("PMIx_Get_nb")?;
        if let Some((container, sel)) = qualified_get(key, opts) {
            return self.get_nb(
                proc,
                Some(&container),
                &without_qualifiers(opts),
                Box::new(move |r| cb(r.and_then(sel))),
            );
        }
        match self.lookup_local(proc, key, opts) {
            Lookup::Found(v) => self.inner.handle.post(move |_| cb(Ok(v))),
            Lookup::Collected(p, k, v) => {
                let v = self.keep_read(p, k, v);
                self.inner.handle.post(move |_| cb(Ok(v)))
            }
            Lookup::Fail(e) => self.inner.handle.post(move |_| cb(Err(e))),
            Lookup::Ask {
                target,
                key,
                immediate,
            } => self.ask(target, key, immediate, opts, cb).map(|_| ()),
        }
    }

    // ------------------------------------------------------------ abort, events

    /// `PMIx_Abort`: ask the host to abort `targets` (empty: our namespace) and wait for
    /// its answer (the host usually kills us first).
    ///
    /// # Errors
    /// The host's error (e.g. `PMIX_ERR_NOT_SUPPORTED`), `PMIX_ERR_WOULD_BLOCK`.
    pub fn abort(&self, status: i32, msg: &str, targets: Vec<ProcId>) -> Result<()> {
        if self.is_singleton() {
            log::warn!("PMIx_Abort in a singleton ({}): {}", status, msg);
            return reactor::wait("PMIx_Abort", None, |done| {
                done.complete(Ok(()));
                Ok(())
            });
        }
        let req = Req::Abort {
            status,
            msg: msg.to_string(),
            targets,
        };
        reactor::wait("PMIx_Abort", None, |done| {
            self.request(
                req,
                Box::new(move |st, _| {
                    done.complete(if st == sys::PMIX_SUCCESS {
                        Ok(())
                    } else {
                        Err(Error::new(st, "abort refused"))
                    })
                }),
            )
        })
    }

    /// Register an event handler for `codes` (empty: every event, a default handler).
    /// Returns its id.
    pub fn register_event_handler(&self, codes: Vec<i32>, h: EventHandler) -> usize {
        self.inner.handlers.register_simple(codes, h)
    }

    /// Remove an event handler.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for an unknown id.
    pub fn deregister_event_handler(&self, id: usize) -> Result<()> {
        self.inner.handlers.deregister(id)
    }

    /// `PMIx_Notify_event` from a client: deliver to our own handlers and, unless the
    /// range is `PMIX_RANGE_PROC_LOCAL`, to the other clients of the server.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH` if the server is gone.
    pub fn notify_event(&self, status: i32, range: u8, info: Vec<Info>) -> Result<()> {
        let ev = Event {
            status,
            source: self.inner.me.clone(),
            info: info.clone(),
        };
        if self.event_reaches_self(range, &info) {
            let inner = self.inner.clone();
            self.inner.handle.post(move |_| inner.deliver(&ev))?;
        }
        if self.is_singleton() || range == sys::PMIX_RANGE_PROC_LOCAL {
            return Ok(());
        }
        self.request(
            Req::Notify {
                status,
                range,
                info,
            },
            Box::new(|_, _| {}),
        )
    }

    /// `PMIx_Job_control` (minimal): requests that only register files or directories
    /// for cleanup (`PMIX_REGISTER_CLEANUP`, `PMIX_REGISTER_CLEANUP_DIR` and their
    /// `PMIX_CLEANUP_*` modifiers) are accepted; the launcher removes its session
    /// directories itself, so nothing more is done. Anything else is not supported yet.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` for any other directive.
    pub fn job_control(&self, _targets: &[ProcId], directives: &[Info]) -> Result<()> {
        use pmix_sys::attrs::keys as k;
        const CLEANUP: [&str; 6] = [
            k::PMIX_REGISTER_CLEANUP,
            k::PMIX_REGISTER_CLEANUP_DIR,
            k::PMIX_CLEANUP_RECURSIVE,
            k::PMIX_CLEANUP_EMPTY,
            k::PMIX_CLEANUP_IGNORE,
            k::PMIX_CLEANUP_LEAVE_TOPDIR,
        ];
        if !directives.is_empty() && directives.iter().all(|i| CLEANUP.contains(&i.key.as_str())) {
            log::debug!("PMIx_Job_control: cleanup registration accepted (left to the launcher)");
            return Ok(());
        }
        Err(Error::not_supported(
            "PMIx_Job_control supports only cleanup registration",
        ))
    }

    /// `PMIX_GET_POINTER_VALUES`: the address of a library-owned copy of `value`, the
    /// value of `key` for `proc`. The same address is returned while the value stays the
    /// same; when it changes, the old copy is released (its owner dropped) and a new one
    /// made with `make`, which returns the owner and the address. All copies are released
    /// at finalize. So a pointer stays valid until the key's value changes or finalize.
    ///
    /// # Errors
    /// `make`'s error.
    pub fn pin<T: Send + 'static>(
        &self,
        proc: &ProcId,
        key: Option<&Key>,
        value: &Value,
        make: impl FnOnce(&Value) -> Result<(T, usize)>,
    ) -> Result<usize> {
        let mut p = lock(&self.inner.pinned);
        let k = (proc.clone(), key.cloned());
        if let Some((v, addr, _)) = p.get(&k) {
            if v == value {
                return Ok(*addr);
            }
        }
        let (owner, addr) = make(value)?;
        p.insert(k, (value.clone(), addr, Box::new(owner)));
        Ok(addr)
    }

    /// Run `f` on the progress thread (to call a C completion callback there).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` once the progress thread has stopped.
    pub fn run_on_progress(&self, f: impl FnOnce() + Send + 'static) -> Result<()> {
        self.inner.handle.post(move |_| f())
    }

    /// Deliver an event to our own handlers (used by the server side of a process too).
    pub fn deliver_local(&self, ev: Event) -> Result<()> {
        let inner = self.inner.clone();
        self.inner.handle.post(move |_| inner.deliver(&ev))
    }

    // ------------------------------------------------------------ finalize

    /// `PMIx_Finalize`: tell the server, close the connection and release the progress
    /// thread. Calling it twice is harmless.
    ///
    /// # Errors
    /// `PMIX_ERR_WOULD_BLOCK` on the progress thread (nothing is done then).
    pub fn finalize(&self) -> Result<()> {
        if reactor::on_progress_thread() {
            return reactor::wait("PMIx_Finalize", None, |_| Ok(()));
        }
        if self.inner.finalized.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        lock(&self.inner.pinned).clear();
        *lock(&self.inner.iof) = Default::default();
        if !self.is_singleton() && self.inner.connected.load(Ordering::SeqCst) {
            let r = reactor::wait("PMIx_Finalize", Some(FINALIZE_TIMEOUT), |done| {
                self.request(Req::Finalize, Box::new(move |_, _| done.complete(Ok(()))))
            });
            if let Err(e) = r {
                log::debug!("client: finalize handshake: {}", e);
            }
            // Normally the reply closed the connection already (`Inner::disconnect`).
            if self.inner.connected.load(Ordering::SeqCst) {
                let inner = self.inner.clone();
                let _ = self.inner.handle.call("PMIx_Finalize", move |ctx| {
                    inner.disconnect(ctx);
                    Ok(())
                });
            }
        }
        reactor::release();
        Ok(())
    }
}

/// For a Get that names qualifiers: the container key to fetch instead, and the
/// selection to apply to it.
type Selector = Box<dyn FnOnce(Value) -> Result<Value> + Send>;

fn qualified_get(key: Option<&Key>, opts: &GetOpts) -> Option<(Key, Selector)> {
    // The common Get names no qualifier: decide that before copying anything.
    let key = key?;
    if !opts
        .info
        .iter()
        .any(|i| i.flags & sys::PMIX_INFO_QUALIFIER != 0)
    {
        return None;
    }
    let k = key.clone();
    let quals = qualified::requested(&opts.info);
    if quals.is_empty() {
        return None;
    }
    let container = Key::new(qualified::CONTAINER).ok()?;
    Some((
        container,
        Box::new(move |c: Value| {
            qualified::select(&c, &k, &quals)
                .ok_or_else(|| Error::not_found(format!("no value of {} with those qualifiers", k)))
        }),
    ))
}

fn without_qualifiers(opts: &GetOpts) -> GetOpts {
    let mut o = opts.clone();
    o.info.retain(|i| i.flags & sys::PMIX_INFO_QUALIFIER == 0);
    o
}

/// A reserved key the host provides (answered at once, never waited for). The container
/// of qualified values is reserved by name but published by processes.
fn host_key(k: &Key) -> bool {
    k.is_reserved() && k.as_str() != qualified::CONTAINER
}

fn state_includes(procs: &[ProcId], p: &ProcId) -> bool {
    crate::server::state::includes(procs, p)
}
