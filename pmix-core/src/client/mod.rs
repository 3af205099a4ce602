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
mod fence;
mod gather;
mod get;
pub mod global;
pub(crate) mod group;
mod hostops;
mod jobs;
pub use hostops::Credential;
mod iof;
pub mod link;
mod opts;
mod publish;
mod put;
pub mod query;
mod spawn;
pub mod tool;
pub mod v41;

pub use link::Link;
use opts::{flag, qualified_get, without_qualifiers};
pub use opts::{timeout_of, GetOpts};

use crate::error::{Error, Result};
use crate::fasthash::FastMap;
use crate::params;
use crate::protocol::{
    self, FrameDecoder, Hello, Put, ReplyData, Req, Request, ServerMsg, Welcome,
};
use crate::reactor::{self, ConnEvent, Ctx, Handle};
use crate::store::{keys, qualified, scope_searched, JobData, KvSet, Level, Reader, Select};
use crate::value::{DataArray, Info, Key, Nspace, ProcId, Value};
use pmix_sys as sys;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock, Weak};
use std::time::Duration;

/// The version string this library reports in `PMIX_VERSION` (defined in [`crate::params`]).
pub use crate::params::VERSION_STRING;

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
    /// Our identity and the server's address; `None` makes a singleton.
    pub server: Option<(ProcId, ServerAddr)>,
    /// Infos passed to `PMIx_Init`.
    pub info: Vec<Info>,
    /// How we introduce ourselves: a client, or a tool (`PMIx_tool_init`) that named
    /// itself or asks the server for an identity.
    pub kind: protocol::PeerKind,
}

/// A server's address, which also says which protocol it speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerAddr {
    /// One of ours: its unix socket (our native protocol).
    Unix(String),
    /// An OpenPMIx server: its identity and TCP address (OpenPMIx's protocol, bfrops v41,
    /// see [`v41`]).
    V41 {
        /// The server's namespace and rank, from its URI.
        server: ProcId,
        /// Where it listens.
        addr: std::net::SocketAddr,
        /// Its OpenPMIx release (major, minor) when its rendezvous file states it (a
        /// tool's); `None`: the `PMIX_VERSION` it put in our environment, else 4.2.
        release: Option<(u32, u32)>,
    },
}

impl ServerAddr {
    /// The address with the OpenPMIx release `release` (a rendezvous file's version line:
    /// `5.0.11rc1`) when it is an OpenPMIx server's; unchanged otherwise.
    pub fn with_release(self, release: Option<&str>) -> ServerAddr {
        match self {
            ServerAddr::V41 { server, addr, .. } => ServerAddr::V41 {
                server,
                addr,
                release: release.and_then(crate::codec::v41::wire::handshake::version_of),
            },
            unix => unix,
        }
    }
}

impl From<String> for ServerAddr {
    fn from(path: String) -> ServerAddr {
        ServerAddr::Unix(path)
    }
}

impl ClientConfig {
    /// Read `PMIX_NAMESPACE`, `PMIX_RANK` and the server's URI from the environment:
    /// `PMIX_RS_SERVER_URI`, else the first of `PMIX_SERVER_URI41`, `4`, `3`, `21`, `2`
    /// (a `unix:` address is one of ours, a `tcp4://` one an OpenPMIx server). Without
    /// them the process is a singleton.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` if the variables are present but malformed;
    /// `PMIX_ERR_NOT_SUPPORTED` for a transport we do not speak.
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
        let addr = server_addr(&uri)
            .map_err(|e| Error::new(e.status, format!("{}: {}", var, e.context)))?;
        Ok(ClientConfig {
            server: Some((ProcId::new(Nspace::new(ns)?, rank), addr)),
            ..Default::default()
        })
    }
}

/// The address of a server URI: `<nspace>.<rank>;unix:<path>` (one of ours) or
/// `<nspace>.<rank>;tcp4://<ip>:<port>` (`tcp6://[ip]:port`: an OpenPMIx server).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a malformed URI, `PMIX_ERR_NOT_SUPPORTED` for another
/// transport.
pub fn server_addr(uri: &str) -> Result<ServerAddr> {
    match uri.split_once(';') {
        Some((_, a)) if a.starts_with("tcp4://") || a.starts_with("tcp6://") => {
            let (server, addr) = crate::codec::v41::wire::handshake::parse_uri(uri)?;
            Ok(ServerAddr::V41 {
                server,
                addr,
                release: None,
            })
        }
        _ => parse_uri(uri).map(ServerAddr::Unix),
    }
}

/// The socket path of a server URI `<nspace>.<rank>;unix:<path>`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a URI without an address, `PMIX_ERR_NOT_SUPPORTED` for one
/// of another transport (an OpenPMIx server's `tcp4://`: see [`server_addr`]).
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
                format!(
                    "server URI {:?} is neither a unix: socket nor a tcp4:// or tcp6:// address",
                    uri
                ),
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
    jobs: jobs::Jobs,
    own: KvSet,
    /// True once `own` ever held a reserved key (`pmix...`): until then a Get of one of
    /// our reserved keys skips the search of `own` (every insertion into `own` sets it).
    own_reserved: bool,
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

/// A value handed out by pointer (`PMIX_GET_POINTER_VALUES`): the value it was made
/// from, its address for the caller, and the owner that frees it when dropped.
type Pinned = (Value, usize, Box<dyn Send>);

struct Inner {
    me: ProcId,
    server: Option<ProcId>,
    hostname: String,
    handle: Handle,
    connected: AtomicBool,
    /// The way to the server (set once connected; see `link.rs`).
    link: OnceLock<Arc<dyn Link>>,
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
    /// Same-node fences in shared memory (see `fence.rs`).
    shm: fence::ShmFence,
}

impl Data {
    /// Whether `own` may hold `k` (see `own_reserved`).
    #[inline]
    fn own_may_hold(&self, k: &Key) -> bool {
        self.own_reserved || !k.is_reserved()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Inner {
    fn new(
        me: ProcId,
        server: Option<ProcId>,
        hostname: String,
        handle: Handle,
        mut data: Data,
    ) -> Inner {
        data.jobs.set_me(&me);
        Inner {
            me,
            server,
            hostname,
            handle,
            connected: AtomicBool::new(false),
            link: OnceLock::new(),
            data: RwLock::new(data),
            pending: Mutex::new(FastMap::default()),
            next_tag: AtomicU32::new(1),
            handlers: Default::default(),
            finalized: AtomicBool::new(false),
            finalize_tag: AtomicU32::new(0),
            pinned: Mutex::new(HashMap::new()),
            iof: Mutex::new(Default::default()),
            shm: Default::default(),
        }
    }

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
        let was = self.connected.swap(false, Ordering::SeqCst);
        self.shm.server_lost(self.finalized.load(Ordering::SeqCst));
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
        self.connected.store(false, Ordering::SeqCst);
        if let Some(l) = self.link.get() {
            l.close(ctx);
        }
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

    /// One frame from the server. `close` closes the connection (the server has our
    /// Finalize, or sent something we cannot read).
    fn on_frame(&self, body: &[u8], close: impl FnOnce()) {
        match protocol::decode::<ServerMsg>(body) {
            Ok(ServerMsg::Reply { tag, status, data }) => {
                if tag != 0 && tag == self.finalize_tag.load(Ordering::SeqCst) {
                    // The server has our Finalize: close here, before the waiting caller
                    // wakes, so PMIx_Finalize needs no second trip to us.
                    self.connected.store(false, Ordering::SeqCst);
                    close();
                }
                self.complete(tag, status, data);
            }
            Ok(ServerMsg::Forget { proc_, key }) => self.forget(proc_, key),
            Ok(ServerMsg::ForgetNode { nspace, node }) => {
                self.write().jobs.update(&nspace, |j| j.forget_node(&node));
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
                close();
                self.lost("malformed message from the server");
            }
        }
    }

    /// `ServerMsg::Forget`: a key the server no longer has for `proc_`.
    fn forget(&self, proc_: ProcId, key: Key) {
        let mut d = self.write();
        if proc_.rank == sys::PMIX_RANK_WILDCARD {
            // Job-level data the host retracted (deregister_resources).
            d.jobs.update(&proc_.nspace, |j| {
                j.retract_job_key(&key);
                for (_, l) in j.apps.iter_mut() {
                    l.retain(|i| i.key != key);
                }
                for n in j.nodes.iter_mut() {
                    n.info.retain(|i| i.key != key);
                }
            });
        } else if let Some(m) = d.peers.get_mut(&proc_) {
            m.remove(&key);
        }
        if proc_.rank != sys::PMIX_RANK_WILDCARD {
            self.shm.forgot(&self.me, &proc_, &key);
        }
        if let Some(layers) = d.collected.get_mut(&proc_) {
            if let Some(top) = layers.last_mut() {
                top.at.removed.push(key);
            }
        }
    }
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
            inner: Arc::new(Inner::new(me, None, hostname, handle, data)),
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
    /// ([`reactor::DirectConn`]): the reply's handler then runs here, before this
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
        let link = self.inner.link.get();
        if let Some(l) = link {
            waiter.set_yields(l.wait_yields());
        }
        // The reading is taken over before the request goes out: a reply that comes at
        // once (the last arrival at a fence) would otherwise wake the progress thread.
        let reader = link.and_then(|l| l.take_reader());
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

    /// Send one frame to the server through the link (the reactor's connection object,
    /// which writes it from this thread when it can: see [`reactor::DirectConn::send`]).
    fn send_frame(&self, body: &[u8]) -> Result<()> {
        match self.inner.link.get() {
            Some(l) => l.send(body),
            None => Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                "not connected to a PMIx server",
            )),
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
        if let Some(l) = self.inner.link.get() {
            l.events_wanted(&codes);
        }
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
        reactor::would_block("PMIx_Finalize")?;
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

fn state_includes(procs: &[ProcId], p: &ProcId) -> bool {
    crate::value::includes(procs, p)
}
