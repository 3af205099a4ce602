//! The PMIx server: the contract between the engine and whoever hosts it (`capi`'s
//! `PMIx_server_*` on behalf of a C host such as Open MPI's mpirun/orted, or `pmixrun`
//! directly in Rust).
//!
//! A host creates one [`Server`], registers namespaces and clients, asks for the
//! environment of each child ([`Server::setup_fork`]) and implements [`Host`] to carry
//! what crosses nodes (fence blobs, direct modex) and to learn about client events.
//!
//! Threading: every `Host` method is called on the progress thread. A host answers an
//! asynchronous upcall by calling the `done` callback it was handed, from any thread,
//! at most once; the engine then continues on the progress thread.
//!
//! # Implementation notes
//! The logic is the state machine in [`state`]; this module only runs it on the progress
//! thread: it owns the listening socket and the rendezvous directory, checks each peer's
//! `SO_PEERCRED` uid, and turns [`state::Action`]s into frames, host upcalls and timers.

mod dispatch;
pub mod forksafe;
pub mod global;
pub mod host;
pub use crate::host_attrs;
mod iof_api;
pub mod modex;
mod psets;
pub mod state;
pub mod v41;

pub use host::{Host, HostCall, HostDone, HostReply};

use crate::error::{Error, Result};
use crate::reactor::{self, ConnEvent, ConnId, Ctx, Handle};
use crate::store::keys;
use crate::value::{Info, Nspace, ProcId, Value};
use pmix_sys as sys;
use state::{Action, ServerState};
use std::collections::HashMap;
use std::os::fd::AsFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// Largest frame a peer may send before its handshake is accepted (a [`Hello`] is a few
/// hundred bytes: an unauthenticated peer must not make us buffer megabytes).
///
/// [`Hello`]: crate::protocol::Hello
pub const HANDSHAKE_MAX_FRAME: usize = 4096;
/// How long a new connection may take to complete its handshake; then it is closed.
pub const HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Back-pressure on clients: while more than this many bytes of answers wait for a
/// client, its further requests are not read (see [`reactor::ConnOpts::pause_above`]).
pub const CLIENT_OUTPUT_PAUSE: usize = 4 << 20;

/// The security mode a server gives its children (`PMIX_SECURITY_MODE`): the peer's
/// uid, gid and pid come from the kernel (`SO_PEERCRED`), and a client connects only
/// from the uid it was registered for (a tool: the server's own uid).
pub const SECURITY_MODE: &str = "native";

/// Server configuration.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// The server's own identity (`PMIX_SERVER_NSPACE`/`PMIX_SERVER_RANK`).
    pub id: ProcId,
    /// Directory under which the rendezvous directory is created (`PMIX_SERVER_TMPDIR`);
    /// defaults to `$TMPDIR` or `/tmp`.
    pub tmpdir: Option<PathBuf>,
    /// All other infos the host passed to `PMIx_server_init`.
    pub info: Vec<Info>,
}

struct Shared {
    state: Mutex<ServerState>,
    host: Arc<dyn Host>,
    handle: Handle,
    handlers: crate::event::Handlers,
    /// ds21 stores for OpenPMIx 4.2.x clients (none: the v41 listener or
    /// `PMIX_RS_DS21` is off).
    ds21: Option<Arc<v41::ds21::Stores>>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, ServerState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Run one state-machine step and carry out its actions (host upcalls run after the
    /// state lock is released).
    fn step(self: &Arc<Self>, ctx: &mut Ctx, f: impl FnOnce(&mut ServerState, &mut Vec<Action>)) {
        let mut out = Vec::new();
        {
            let mut s = self.lock();
            f(&mut s, &mut out);
            s.settle(&out);
        }
        self.run(ctx, out);
    }

    /// Carry out actions produced outside [`Shared::step`]: the replies among them are
    /// accounted first (`server/budget.rs`).
    fn exec(self: &Arc<Self>, ctx: &mut Ctx, actions: Vec<Action>) {
        self.lock().settle(&actions);
        self.run(ctx, actions);
    }

    /// Carry out actions whose replies were accounted already.
    fn run(self: &Arc<Self>, ctx: &mut Ctx, actions: Vec<Action>) {
        for a in actions {
            match a {
                Action::Send(c, body) => {
                    ctx.send(c, &body);
                }
                Action::SendShared(c, head, tail) => {
                    ctx.send_shared(c, &head, &tail);
                }
                Action::SendFds(c, body, fds) => {
                    let fds: Vec<_> = fds.iter().map(|f| f.as_fd()).collect();
                    ctx.send_with_fds(c, &body, &fds);
                }
                Action::Close(c) => ctx.close(c),
                Action::Timer(after, ev) => {
                    let me = self.clone();
                    ctx.add_timer(
                        after,
                        Box::new(move |ctx| me.step(ctx, |s, out| s.timer(ev, out))),
                    );
                }
                Action::Host(c) => self.dispatch(ctx, c),
                Action::IofLocal(h, id, chunk) => h(id, &chunk),
                Action::AnswerDmodex(done, r) => done(r),
            }
        }
    }

    fn on_accept(self: &Arc<Self>, ctx: &mut Ctx, stream: mio::net::UnixStream) {
        let cred = match crate::sys::peer_cred(&stream) {
            Ok(c) => c,
            Err(e) => {
                log::warn!(
                    "server: cannot read the peer's credentials, refusing: {}",
                    e
                );
                return;
            }
        };
        let me = self.clone();
        let owner: reactor::ConnOwner = Arc::new(move |ctx, id, ev| me.on_conn(ctx, id, ev));
        let opts = reactor::ConnOpts {
            max_frame: HANDSHAKE_MAX_FRAME,
            pause_above: Some(CLIENT_OUTPUT_PAUSE),
        };
        match ctx.add_conn_with(stream, owner, opts) {
            Ok(id) => {
                log::debug!(
                    "server: connection {} from pid {} uid {}",
                    id,
                    cred.pid,
                    cred.uid
                );
                // Frames may already have been queued for dispatch by add_conn; register
                // the connection state before they are handled (dispatch runs later).
                {
                    let mut s = self.lock();
                    s.connected(id, cred.uid);
                    s.set_peer_cred(id, cred);
                }
                let me = self.clone();
                ctx.add_timer(
                    HANDSHAKE_TIMEOUT,
                    Box::new(move |ctx| me.handshake_deadline(ctx, id, cred.pid)),
                );
            }
            Err(e) => log::warn!("server: cannot serve a new connection: {}", e),
        }
    }

    /// A connection's time to complete its handshake is up. What it sent meanwhile is
    /// read and handled first (the progress thread may have been busy); a connection
    /// that is then still waiting is closed.
    fn handshake_deadline(self: &Arc<Self>, ctx: &mut Ctx, id: ConnId, pid: i32) {
        if !ctx.is_open(id) || !self.lock().awaiting_hello(id) {
            return;
        }
        ctx.poll_input(id);
        let me = self.clone();
        ctx.defer(Box::new(move |ctx| {
            if !ctx.is_open(id) || !me.lock().awaiting_hello(id) {
                return;
            }
            log::warn!(
                "server: connection {} (pid {}) sent no handshake within {} s, closing it",
                id,
                pid,
                HANDSHAKE_TIMEOUT.as_secs()
            );
            ctx.close(id);
            me.step(ctx, |s, out| s.closed(id, out));
        }));
    }

    fn on_conn(self: &Arc<Self>, ctx: &mut Ctx, id: ConnId, ev: ConnEvent) {
        match ev {
            ConnEvent::Closed(why) => {
                if self.lock().is_client(id) {
                    log::debug!("server: connection {} closed: {}", id, why);
                } else {
                    log::warn!(
                        "server: connection {} closed before its handshake: {}",
                        id,
                        why
                    );
                }
                self.step(ctx, |s, out| s.closed(id, out));
            }
            ConnEvent::Frame(body) => {
                let is_client = self.lock().is_client(id);
                if !is_client {
                    let tool = self.lock().check_tool_hello(id, &body);
                    match tool {
                        Ok(Some(t)) => return self.tool_hello(ctx, id, t),
                        Ok(None) => {}
                        Err(e) => return self.step(ctx, |s, out| s.refuse(id, &e, out)),
                    }
                    let checked = self.lock().check_hello(id, &body);
                    let verdict = checked.and_then(|p| {
                        self.host.client_connected(&p)?;
                        Ok(p)
                    });
                    match verdict {
                        Ok(p) => {
                            log::debug!("server: client {} connected", p);
                            ctx.set_max_frame(id, crate::protocol::MAX_FRAME);
                            self.step(ctx, |s, out| s.accept(id, p, out));
                        }
                        Err(e) => self.step(ctx, |s, out| s.refuse(id, &e, out)),
                    }
                    return;
                }
                let mut out = Vec::new();
                let r = self.lock().request(id, &body, &mut out);
                self.after_request(ctx, id, r, out);
            }
        }
    }

    /// Run what serving a request on `id` asked for; a malformed one closes `id`.
    fn after_request(self: &Arc<Self>, ctx: &mut Ctx, id: ConnId, r: Result<()>, out: Vec<Action>) {
        self.run(ctx, out);
        if let Err(e) = r {
            log::warn!(
                "server: malformed request on connection {}, closing it: {}",
                id,
                e
            );
            ctx.close(id);
            self.step(ctx, |s, out| s.closed(id, out));
        }
    }
}

impl Shared {
    /// Ask the host about a tool that passed our checks; its answer completes the
    /// handshake on the progress thread.
    fn tool_hello(self: &Arc<Self>, ctx: &mut Ctx, id: ConnId, t: state::ToolHello) {
        use pmix_sys::attrs::keys as k;
        let mut info = Vec::new();
        let mut add = |key: &str, v: Value| {
            if let Ok(i) = Info::new(key, v) {
                info.push(i);
            }
        };
        add(k::PMIX_USERID, Value::Uint32(t.uid));
        add(k::PMIX_GRPID, Value::Uint32(t.gid));
        add(k::PMIX_PROC_PID, Value::Pid(t.pid));
        add(
            k::PMIX_VERSION_INFO,
            Value::string(crate::client::VERSION_STRING),
        );
        if let Some(p) = &t.requested {
            add(k::PMIX_NSPACE, Value::string(p.nspace.as_str()));
            add(k::PMIX_RANK, Value::Rank(p.rank));
        }
        let up = state::Upcall::Tool {
            conn: id,
            requested: t.requested,
            info,
        };
        self.dispatch(ctx, up);
    }

    /// The host's answer about a tool: accept it (with a client's frame limit) or refuse it.
    pub(super) fn tool_verdict(self: &Arc<Self>, ctx: &mut Ctx, id: ConnId, r: Result<ProcId>) {
        self.step(ctx, |s, out| s.accept_tool(id, r, out));
        if self.lock().is_client(id) {
            ctx.set_max_frame(id, crate::protocol::MAX_FRAME);
        }
    }
}

/// A running server (one per process).
pub struct Server {
    shared: Arc<Shared>,
    id: ProcId,
    dir: PathBuf,
    sock: PathBuf,
    listener: usize,
    finalized_flag: std::sync::atomic::AtomicBool,
    /// The server's own copy of delivered output (None: not written here).
    local_output: Mutex<Option<crate::iof::LocalOutput>>,
    /// Rendezvous files for tools (removed at finalize).
    rendezvous: Vec<PathBuf>,
    /// The OpenPMIx (v41) listener, unless `PMIX_RS_V41=0` or it could not start.
    v41: Option<v41::Listener>,
    /// What [`Server::setup_fork`] gives a child, readable in a forked child (see
    /// [`forksafe`]).
    fork: forksafe::ForkCell<ForkEnv>,
    /// The process the server runs in (a `setup_fork` elsewhere is in a forked child).
    pid: u32,
}

/// The environment [`Server::setup_fork`] makes, but for the child's own identity: fixed
/// at start, and the ds21 store of each namespace once the server's own process has
/// made it.
struct ForkEnv {
    /// After `PMIX_NAMESPACE` and `PMIX_RANK`: our URI and, with the v41 listener, the
    /// URIs OpenPMIx clients read.
    uris: Vec<(String, String)>,
    /// With the v41 listener: `PMIX_ID`, the gds choice and the buffer type follow the
    /// URIs.
    v41: bool,
    /// `PMIX_SECURITY_MODE` (with the v41 listener it depends on munged, asked once per
    /// process: set at the first namespace's registration, see
    /// [`Server::fork_security`]).
    security: Option<&'static str>,
    /// The last entries: version, temporary directories, host name.
    tail: Vec<(String, String)>,
    /// The ds21 store directory of each namespace that has one.
    ds21: HashMap<Nspace, PathBuf>,
}

impl ForkEnv {
    /// What every child gets, fixed when the server starts: our URI, with the v41
    /// listener the URIs OpenPMIx clients read, the version, directories and host name.
    fn at_start(
        uri: &str,
        v41: Option<&v41::Listener>,
        id: &ProcId,
        tmpdir: &Path,
        hostname: &str,
    ) -> ForkEnv {
        let mut uris = vec![(
            crate::params::PMIX_RS_SERVER_URI.to_string(),
            uri.to_string(),
        )];
        if let Some(l) = v41 {
            // What OpenPMIx clients read: only the URI versions we speak (v41 and older
            // names), so that 5.x and later clients choose v41 too.
            let u = l.uri(id);
            uris.extend(
                crate::params::SERVER_URIS
                    .iter()
                    .map(|v| (v.to_string(), u.clone())),
            );
        }
        ForkEnv {
            uris,
            v41: v41.is_some(),
            security: v41.is_none().then_some(SECURITY_MODE),
            tail: vec![
                ("PMIX_VERSION".into(), crate::client::VERSION_STRING.into()),
                ("PMIX_SERVER_TMPDIR".into(), tmpdir.display().to_string()),
                (
                    "PMIX_SYSTEM_TMPDIR".into(),
                    crate::params::get(crate::params::TMPDIR).unwrap_or_else(|| "/tmp".into()),
                ),
                ("PMIX_HOSTNAME".into(), hostname.to_string()),
            ],
            ds21: HashMap::new(),
        }
    }

    fn env(&self, proc: &ProcId) -> Vec<(String, String)> {
        let mut env = vec![
            ("PMIX_NAMESPACE".to_string(), proc.nspace.to_string()),
            ("PMIX_RANK".to_string(), proc.rank.to_string()),
        ];
        env.extend(self.uris.iter().cloned());
        if self.v41 {
            env.push(("PMIX_ID".into(), proc.to_string()));
            // ds21 for 4.2.x clients when the namespace's store is there (5.x has none
            // and picks hash); each gets the store's directory.
            match self.ds21.get(&proc.nspace) {
                Some(dir) => {
                    env.push(("PMIX_GDS_MODULE".into(), "ds21,hash".into()));
                    env.push(("PMIX_DSTORE_21_BASE_PATH".into(), dir.display().to_string()));
                }
                None => env.push(("PMIX_GDS_MODULE".into(), "hash".into())),
            }
            env.push((
                "PMIX_BFROP_BUFFER_TYPE".into(),
                "PMIX_BFROP_BUFFER_NON_DESC".into(),
            ));
        }
        let psec = match self.security {
            Some(m) => m,
            None => v41::cred::security_mode(),
        };
        env.push(("PMIX_SECURITY_MODE".into(), psec.into()));
        env.extend(self.tail.iter().cloned());
        env
    }
}

/// Write the rendezvous files tools look for (see [`crate::rendezvous`]); a file that
/// cannot be written is logged and skipped.
fn rendezvous_files(
    info: &[Info],
    tmpdir: &Path,
    host: &str,
    id: &ProcId,
    uri: &str,
    v41_uri: Option<&str>,
) -> Vec<PathBuf> {
    use crate::rendezvous as rv;
    use pmix_sys::attrs::keys as k;
    let flag = |key: &str| {
        info.iter()
            .any(|i| i.key.as_str() == key && i.value.is_true())
    };
    let mut files = vec![
        rv::pid_file(tmpdir, host, i64::from(std::process::id())),
        rv::nspace_file(tmpdir, host, id.nspace.as_str()),
    ];
    if flag(k::PMIX_SERVER_SESSION_SUPPORT) {
        files.push(rv::session_file(tmpdir, host));
    }
    if flag(k::PMIX_SERVER_SYSTEM_SUPPORT) {
        let given = info
            .iter()
            .find(|i| i.key.as_str() == k::PMIX_SYSTEM_TMPDIR)
            .and_then(|i| i.value.as_str());
        files.push(rv::system_file(
            &rv::tmpdir(given, crate::params::PMIX_SYSTEM_TMPDIR),
            host,
        ));
    }
    let write = |f: &Path| match v41_uri {
        Some(v) => rv::write_v41(f, v, uri),
        None => rv::write(f, uri),
    };
    files.retain(|f| match write(f) {
        Ok(()) => {
            log::debug!("server: tools find us through {}", f.display());
            true
        }
        Err(e) => {
            log::warn!("server: {}", e);
            false
        }
    });
    files
}

/// Make the private rendezvous directory for server `id` under `tmpdir` and bind its
/// socket (private too, non-blocking): the directory, the socket's path, the listener.
fn bind_rendezvous(
    tmpdir: &Path,
    id: &ProcId,
) -> Result<(PathBuf, PathBuf, std::os::unix::net::UnixListener)> {
    let mut base = tmpdir.join(format!("pmix-rs.{}", crate::sys::euid()));
    let mut dir = base.join(format!("{}.{}", id.nspace, std::process::id()));
    // sun_path holds 108 bytes; fall back to /tmp for very long directories.
    if dir.join("sock").as_os_str().len() > 100 {
        base = PathBuf::from("/tmp").join(format!("pmix-rs.{}", crate::sys::euid()));
        dir = base.join(format!("s.{}", std::process::id()));
    }
    private_dir(&base)?;
    remove_stale(&base);
    private_dir(&dir)?;
    let sock = dir.join("sock");
    let _ = std::fs::remove_file(&sock);
    let listener = std::os::unix::net::UnixListener::bind(&sock)
        .map_err(|e| comm(&format!("bind {}", sock.display()), e))?;
    // bind() applies the umask only: the socket itself is private too (connecting
    // needs write permission on it), not just its directory.
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| comm("chmod rendezvous socket", e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| comm("nonblocking listener", e))?;
    Ok((dir, sock, listener))
}

/// Start the OpenPMIx listener unless `PMIX_RS_V41=0`; a failure is logged and leaves
/// the server serving our own clients only.
fn start_v41(shared: &Arc<Shared>, remote: bool) -> Option<v41::Listener> {
    if !v41::enabled() {
        log::debug!("server: OpenPMIx listener off ({}=0)", v41::ENV);
        return None;
    }
    match v41::start(shared, remote) {
        Ok(l) => Some(l),
        Err(e) => {
            log::warn!("server: no OpenPMIx listener: {}", e);
            None
        }
    }
}

fn comm(what: &str, e: std::io::Error) -> Error {
    Error::new(sys::PMIX_ERR_COMM_FAILURE, format!("{}: {}", what, e))
}

/// The smallest per-process table published as a shared segment
/// ([`state::JOB_SEGMENT_MIN_ENV`]); None when publication is off.
fn segment_min() -> Option<usize> {
    match crate::params::get(state::JOB_SEGMENT_MIN_ENV) {
        Some(v) if v.trim() == "off" => None,
        Some(v) => match v.trim().parse() {
            Ok(n) => Some(n),
            Err(_) => {
                log::warn!(
                    "{}={:?} is not a byte count or \"off\"; using {}",
                    state::JOB_SEGMENT_MIN_ENV,
                    v,
                    state::JOB_SEGMENT_MIN
                );
                Some(state::JOB_SEGMENT_MIN)
            }
        },
        None => Some(state::JOB_SEGMENT_MIN),
    }
}

/// Remove rendezvous directories left behind by servers that no longer run.
fn remove_stale(base: &Path) {
    let Ok(rd) = std::fs::read_dir(base) else {
        return;
    };
    for ent in rd.flatten() {
        let name = ent.file_name().to_string_lossy().to_string();
        let Some(pid) = name.rsplit('.').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{}", pid)).exists() {
            log::debug!("server: removing stale rendezvous directory {}", name);
            let _ = std::fs::remove_dir_all(ent.path());
        }
    }
}

/// Create `dir` with mode 0700, or check that an existing one is ours and private.
fn private_dir(dir: &Path) -> Result<()> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let md = std::fs::symlink_metadata(dir).map_err(|e| comm("stat rendezvous dir", e))?;
            if !md.is_dir() || md.uid() != crate::sys::euid() {
                return Err(Error::new(
                    sys::PMIX_ERR_NO_PERMISSIONS,
                    format!("{} exists and is not a directory we own", dir.display()),
                ));
            }
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| comm("chmod rendezvous dir", e))
        }
        Err(e) => Err(comm("create rendezvous dir", e)),
    }
}

impl Server {
    /// Start the server: create the rendezvous socket and start serving on the progress thread.
    ///
    /// # Errors
    /// `PMIX_ERR_NO_PERMISSIONS` or `PMIX_ERR_COMM_FAILURE` if the rendezvous directory or
    /// socket cannot be made; `PMIX_ERR_OUT_OF_RESOURCE` if the progress thread cannot start.
    pub fn start(cfg: ServerConfig, host: Arc<dyn Host>) -> Result<Server> {
        let mut id = cfg.id.clone();
        if id.nspace.is_empty() {
            id.nspace = Nspace::new(format!("pmix-rs-server.{}", std::process::id()))?;
        }
        if id.rank >= sys::PMIX_RANK_VALID {
            id.rank = 0;
        }
        let hostname = cfg
            .info
            .iter()
            .find(|i| i.key.as_str() == keys::SERVER_HOSTNAME || i.key.as_str() == keys::HOSTNAME)
            .and_then(|i| i.value.as_str().map(str::to_string))
            .unwrap_or_else(crate::sys::hostname);
        let tmpdir = cfg
            .tmpdir
            .clone()
            .or_else(|| crate::params::get_os(crate::params::TMPDIR).map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("/tmp"));
        let (dir, sock, listener) = bind_rendezvous(&tmpdir, &id)?;
        let handle = reactor::acquire()?;
        let mut state = ServerState::new(id.clone(), hostname.clone());
        let flag = |key: &str| {
            cfg.info
                .iter()
                .any(|i| i.key.as_str() == key && i.value.is_true())
        };
        let tools = flag(pmix_sys::attrs::keys::PMIX_SERVER_TOOL_SUPPORT);
        if tools {
            state.enable_tools(crate::sys::euid());
        }
        let delta = modex::delta_from_env();
        if delta {
            log::debug!("server {}: delta modex on ({})", id, modex::DELTA_MODEX_ENV);
        }
        state.set_delta_modex(delta);
        let seg_min = segment_min();
        state.set_segments(seg_min);
        state.set_shm_fences(crate::shm::enabled());
        state.set_finalize_term_events(host.finalize_raises_term_wo_sync());
        state.set_context_id_base(host.context_id_base());
        state.set_request_limits(state::budget::Limits::from_env());
        let ds21 = (v41::enabled() && v41::ds21::enabled())
            .then(|| Arc::new(v41::ds21::Stores::new(dir.clone(), hostname.clone())));
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            host,
            handle: handle.clone(),
            handlers: Default::default(),
            ds21,
        });
        crate::dump::register(crate::dump::source_of(&shared, |sh, out| {
            match crate::dump::try_lock_for_dump(&sh.state) {
                Some(st) => st.dump(out),
                None => out.push_str("server: (state locked by another thread)\n"),
            }
        }));
        let sh = shared.clone();
        // Registered here; the progress thread takes the listener over when it next runs
        // (no wait: clients that connect before that are accepted then).
        let lid = handle.add_listener(
            mio::net::UnixListener::from_std(listener),
            Arc::new(move |ctx, stream| sh.on_accept(ctx, stream)),
        );
        let listener = match lid {
            Ok(l) => l,
            Err(e) => {
                reactor::release();
                let _ = std::fs::remove_dir_all(&dir);
                return Err(e);
            }
        };
        log::debug!("server {} listening on {}", id, sock.display());
        let v41 = start_v41(
            &shared,
            flag(pmix_sys::attrs::keys::PMIX_SERVER_REMOTE_CONNECTIONS),
        );
        let local_output = Mutex::new(iof_api::local_output_default(&cfg.info));
        let uri = format!("{}.{};unix:{}", id.nspace, id.rank, sock.display());
        let fork = ForkEnv::at_start(&uri, v41.as_ref(), &id, &tmpdir, &hostname);
        let rendezvous = if tools {
            let v41_uri = v41.as_ref().map(|l| l.uri(&id));
            rendezvous_files(&cfg.info, &tmpdir, &hostname, &id, &uri, v41_uri.as_deref())
        } else {
            Vec::new()
        };
        Ok(Server {
            v41,
            rendezvous,
            shared,
            id,
            dir,
            sock,
            listener,
            finalized_flag: std::sync::atomic::AtomicBool::new(false),
            local_output,
            fork: forksafe::ForkCell::new(fork),
            pid: std::process::id(),
        })
    }

    /// The server's identity.
    pub fn id(&self) -> &ProcId {
        &self.id
    }

    /// The URI clients use to reach this server: `<nspace>.<rank>;unix:<path>`.
    pub fn uri(&self) -> String {
        format!(
            "{}.{};unix:{}",
            self.id.nspace,
            self.id.rank,
            self.sock.display()
        )
    }

    /// The private rendezvous directory (removed by [`Server::finalize`]).
    pub fn rendezvous_dir(&self) -> &Path {
        &self.dir
    }

    fn run<T: Send + 'static>(
        &self,
        name: &str,
        f: impl FnOnce(&Arc<Shared>, &mut Ctx) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let sh = self.shared.clone();
        self.shared.handle.call(name, move |ctx| f(&sh, ctx))
    }

    fn post(&self, f: impl FnOnce(&Arc<Shared>, &mut Ctx) + Send + 'static) -> Result<()> {
        let sh = self.shared.clone();
        self.shared.handle.post(move |ctx| f(&sh, ctx))
    }

    /// Register a namespace with its job, app, node and per-process info (blocking).
    ///
    /// # Errors
    /// `PMIX_ERR_WOULD_BLOCK` on the progress thread (use [`Server::register_nspace_nb`]).
    pub fn register_nspace(
        &self,
        nspace: &Nspace,
        nlocalprocs: u32,
        info: Vec<Info>,
    ) -> Result<()> {
        reactor::would_block("PMIx_server_register_nspace")?;
        self.fork_security();
        self.step_here(|s, out| {
            s.register_nspace(nspace, nlocalprocs, info);
            s.nspace_registered(nspace, out);
        })
    }

    /// Run one state-machine step on the calling thread (the state is behind its lock)
    /// and hand its actions, if any, to the progress thread. A blocking registration
    /// thus costs no wakeup of the progress thread: the launcher releases its ranks
    /// sooner.
    fn step_here(&self, f: impl FnOnce(&mut ServerState, &mut Vec<Action>)) -> Result<()> {
        let mut out = Vec::new();
        {
            let mut s = self.shared.lock();
            f(&mut s, &mut out);
            s.settle(&out);
        }
        if !out.is_empty() {
            self.post(move |sh, ctx| sh.run(ctx, out))?;
        }
        Ok(())
    }

    /// Non-blocking [`Server::register_nspace`]: `done` runs on the progress thread.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn register_nspace_nb(
        &self,
        nspace: &Nspace,
        nlocalprocs: u32,
        info: Vec<Info>,
        done: HostDone<()>,
    ) -> Result<()> {
        self.fork_security();
        let ns = nspace.clone();
        self.post(move |sh, ctx| {
            sh.step(ctx, |s, out| {
                s.register_nspace(&ns, nlocalprocs, info);
                s.nspace_registered(&ns, out);
            });
            done(Ok(()));
        })
    }

    /// `PMIx_server_register_resources`: record job-level data every job sees (see
    /// [`ServerState::register_resources`]). Without `done` it blocks until recorded;
    /// with it, it returns at once and `done` runs on the progress thread afterwards.
    ///
    /// # Errors
    /// `PMIX_ERR_WOULD_BLOCK` (blocking form on the progress thread),
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn register_resources(&self, info: Vec<Info>, done: Option<HostDone<()>>) -> Result<()> {
        let f = move |sh: &Arc<Shared>, _ctx: &mut Ctx| sh.lock().register_resources(info);
        match done {
            Some(d) => self.post(move |sh, ctx| {
                f(sh, ctx);
                d(Ok(()));
            }),
            None => self.run("PMIx_server_register_resources", move |sh, ctx| {
                f(sh, ctx);
                Ok(())
            }),
        }
    }

    /// `PMIx_server_deregister_resources`: retract job-level data from every job and tell
    /// their clients (see [`ServerState::deregister_resources`]). Blocking without `done`,
    /// as [`Server::register_resources`].
    ///
    /// # Errors
    /// As [`Server::register_resources`].
    pub fn deregister_resources(&self, info: Vec<Info>, done: Option<HostDone<()>>) -> Result<()> {
        let f = move |sh: &Arc<Shared>, ctx: &mut Ctx| {
            sh.step(ctx, |s, out| s.deregister_resources(info, out))
        };
        match done {
            Some(d) => self.post(move |sh, ctx| {
                f(sh, ctx);
                d(Ok(()));
            }),
            None => self.run("PMIx_server_deregister_resources", move |sh, ctx| {
                f(sh, ctx);
                Ok(())
            }),
        }
    }

    /// Forget a namespace and everything stored for it.
    pub fn deregister_nspace(&self, nspace: &Nspace) {
        if let Some(st) = &self.shared.ds21 {
            self.fork.with(|f| f.ds21.remove(nspace));
            st.remove(nspace);
        }
        let ns = nspace.clone();
        let _ = self.post(move |sh, ctx| sh.step(ctx, |s, out| s.deregister_nspace(&ns, out)));
    }

    /// [`Server::register_client`] with the host's opaque object for the client (a C
    /// host's `server_object`; see [`Server::client_object`]).
    ///
    /// # Errors
    /// As [`Server::register_client`].
    pub fn register_client_with_object(
        &self,
        proc: &ProcId,
        uid: u32,
        object: usize,
    ) -> Result<()> {
        reactor::would_block("PMIx_server_register_client")?;
        self.shared.lock().register_client_object(proc, uid, object)
    }

    /// Non-blocking [`Server::register_client`]: `done` runs on the progress thread.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn register_client_nb(&self, proc: &ProcId, uid: u32, done: HostDone<()>) -> Result<()> {
        let p = proc.clone();
        self.post(move |sh, _| {
            let r = sh.lock().register_client(&p, uid);
            done(r);
        })
    }

    /// Run `f` on the progress thread (to complete a host's callback there).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn run_on_progress(&self, f: impl FnOnce() + Send + 'static) -> Result<()> {
        self.post(move |_, _| f())
    }

    /// Allow `proc` to connect, from a peer with this uid/gid.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a wildcard rank.
    pub fn register_client(&self, proc: &ProcId, uid: u32, _gid: u32) -> Result<()> {
        // Only the state changes (under its lock): no trip to the progress thread.
        self.shared.lock().register_client(proc, uid)
    }

    /// Forget a client: it will not connect again. Fences and connects still waiting for
    /// it fail, and so do Gets waiting for its data (see
    /// [`state::ServerState::deregister_client`]).
    pub fn deregister_client(&self, proc: &ProcId) {
        let p = proc.clone();
        let _ = self.post(move |sh, ctx| sh.step(ctx, |s, out| s.deregister_client(&p, out)));
    }

    /// The environment variables a child process needs to find this server as `proc`.
    ///
    /// Fork-safe: a host may call it in a child it forked (Slurm's plugin does, in
    /// slurmstepd's task before its exec). There it takes no lock but a
    /// [`forksafe::ForkCell`]'s, which no other thread can hold across a fork: a lock
    /// held at the fork by another thread of the host would stay held in the child for
    /// ever. Only in the server's own process is a namespace's ds21 store made (at its
    /// first child, which needs the state's count of local clients); a child forked
    /// before that gets the hash gds.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a wildcard or invalid rank.
    pub fn setup_fork(&self, proc: &ProcId) -> Result<Vec<(String, String)>> {
        if proc.rank >= sys::PMIX_RANK_VALID {
            return Err(Error::bad_param("setup_fork needs a real rank"));
        }
        if std::process::id() == self.pid {
            self.fork_security();
            self.prepare_ds21(&proc.nspace);
        }
        Ok(self.fork.with(|f| f.env(proc)))
    }

    /// Ask munged, once per process, which security the OpenPMIx children are offered,
    /// and keep the answer for [`Server::setup_fork`] (in the host's own process: not in
    /// a forked child, where a round trip that another thread had begun would never
    /// end).
    /// Never on the progress thread, which serves every connection of the process (a
    /// forked child then asks munged itself, as before).
    fn fork_security(&self) {
        if self.v41.is_some()
            && !reactor::on_progress_thread()
            && self.fork.with(|f| f.security.is_none())
        {
            let m = v41::cred::security_mode();
            self.fork.with(|f| f.security = Some(m));
        }
    }

    /// The ds21 store of `nspace`, made at its first child with room for its local
    /// clients, and recorded for [`Server::setup_fork`].
    fn prepare_ds21(&self, nspace: &Nspace) {
        let Some(st) = &self.shared.ds21 else {
            return;
        };
        if self.fork.with(|f| f.ds21.contains_key(nspace)) {
            return;
        }
        let nlocal = self.shared.lock().nlocal(nspace);
        if let Some(dir) = nlocal.and_then(|n| st.prepare(nspace, n)) {
            self.fork.with(|f| f.ds21.insert(nspace.clone(), dir));
        }
    }

    /// Answer a direct-modex request from another node for `proc`'s data (the remote
    /// host's `direct_modex` upcall reached us). `done` receives the blob once `proc`
    /// has committed (at once if it already has).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn dmodex_request(&self, proc: &ProcId, done: HostDone<Vec<u8>>) -> Result<()> {
        self.dmodex_request_info(proc, &[], done)
    }

    /// [`Server::dmodex_request`] with the directives the requesting server's
    /// `direct_modex` upcall carried: with `PMIX_REQUIRED_KEY` the answer waits until
    /// `proc` has committed that key (a Get on another node for data not yet committed
    /// here waits for it, bounded by its `PMIX_TIMEOUT`).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn dmodex_request_info(
        &self,
        proc: &ProcId,
        info: &[Info],
        done: HostDone<Vec<u8>>,
    ) -> Result<()> {
        let p = proc.clone();
        let key = info
            .iter()
            .find(|i| i.key.as_str() == keys::REQUIRED_KEY)
            .and_then(|i| i.value.as_str())
            .and_then(|k| crate::value::Key::new(k).ok());
        self.post(move |sh, ctx| sh.step(ctx, |s, out| s.dmodex_request_key(&p, key, done, out)))
    }

    /// Turn delta modex on or off (normally read from
    /// `PMIX_MCA_pmix_server_fence_delta_modex` at start; for hosts that configure the
    /// engine directly, and tests).
    pub fn set_delta_modex(&self, on: bool) {
        self.shared.lock().set_delta_modex(on);
    }

    /// Keep heartbeat watches (`PMIx_Process_monitor` with `PMIX_MONITOR_HEARTBEAT`)
    /// in the server when the host's `monitor` answers `PMIX_ERR_NOT_SUPPORTED`: for a
    /// host such as pmixrun that has no monitoring of its own (see `server/monitor`).
    pub fn set_local_heartbeats(&self, on: bool) {
        self.shared.lock().set_local_heartbeats(on);
    }

    /// What this server contributed to collecting fences so far (bytes per fence; the
    /// same numbers are logged at info level, see [`modex`]).
    pub fn fence_stats(&self) -> modex::FenceStats {
        self.shared.lock().fence_stats()
    }

    /// Data was published on behalf of `proc` by another path than its commits (for
    /// `register_resources` or a group collective): with delta modex, its next fence
    /// contribution is the full set.
    pub fn published_elsewhere(&self, proc: &ProcId) {
        self.shared.lock().published_elsewhere(proc);
    }

    /// Deliver an event to every connected client and to this process's own handlers
    /// (`PMIx_Notify_event` in a server, range `PMIX_RANGE_SESSION`).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn notify_event(&self, status: i32, source: &ProcId, info: Vec<Info>) -> Result<()> {
        self.notify_event_range(status, source, sys::PMIX_RANGE_SESSION, info)
    }

    /// `PMIx_Notify_event` in a server: deliver an event to the connected clients in
    /// `range` (see `server/events.rs`) and to this process's own handlers.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn notify_event_range(
        &self,
        status: i32,
        source: &ProcId,
        range: u8,
        info: Vec<Info>,
    ) -> Result<()> {
        let src = source.clone();
        self.post(move |sh, ctx| {
            let ev = crate::event::Event {
                status,
                source: src.clone(),
                info: info.clone(),
            };
            sh.step(ctx, |s, out| s.host_notify(status, &src, range, info, out));
            let h = sh.handle.clone();
            let post: crate::event::Poster = Arc::new(move |f| {
                let _ = h.post(move |_| f());
            });
            sh.handlers.deliver(ev, post);
        })
    }

    /// Register an event handler in the server process (`codes` empty: every event).
    pub fn register_event_handler(&self, codes: Vec<i32>, h: crate::client::EventHandler) -> usize {
        self.shared.handlers.register_simple(codes, h)
    }

    /// Register a chain handler in the server process (see [`crate::event`]).
    ///
    /// # Errors
    /// `PMIX_ERR_EVENT_REGISTRATION` for a position that is taken or a missing named
    /// handler.
    pub fn register_chain_handler(
        &self,
        codes: Vec<i32>,
        opts: crate::event::HandlerOpts,
        h: crate::event::ChainHandler,
    ) -> Result<usize> {
        self.shared.handlers.register(codes, opts, h)
    }

    /// Remove an event handler registered with [`Server::register_event_handler`].
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for an unknown id.
    pub fn deregister_event_handler(&self, id: usize) -> Result<()> {
        self.shared.handlers.deregister(id)
    }

    /// The opaque object the host gave with [`Server::register_client_object`] (0 if none).
    pub fn client_object(&self, proc: &ProcId) -> usize {
        self.shared.lock().client_object(proc)
    }

    /// [`Server::register_client_nb`] with the host's opaque object for the client.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn register_client_object(
        &self,
        proc: &ProcId,
        uid: u32,
        object: usize,
        done: HostDone<()>,
    ) -> Result<()> {
        let p = proc.clone();
        self.post(move |sh, _| {
            let r = sh.lock().register_client_object(&p, uid, object);
            done(r);
        })
    }

    /// Stop serving, close every client connection and remove the rendezvous directory.
    pub fn finalize(mut self) {
        self.shutdown();
    }

    /// [`Server::finalize`] for a host that exits right after: the progress thread is
    /// told to stop but not waited for (see [`reactor::release_at_exit`]).
    pub fn finalize_at_exit(self) {
        if self
            .finalized_flag
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        self.stop(false);
    }

    /// Like [`Server::finalize`] for a server shared through an `Arc`: stop serving now;
    /// dropping the last handle later does nothing more.
    pub fn close_now(&self) {
        if self
            .finalized_flag
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        self.stop(true);
    }

    fn shutdown(&mut self) {
        if self
            .finalized_flag
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        self.stop(true);
    }

    fn stop(&self, join: bool) {
        self.flush_local_output();
        if let Some(l) = &self.v41 {
            l.stop();
        }
        let lid = self.listener;
        // Not waited for: `reactor::release` below (when it stops the thread) runs after
        // it, and a thread still used by others runs it next.
        let _ = self.post(move |sh, ctx| {
            ctx.remove_listener(lid);
            let conns = sh.lock().conn_ids();
            for c in conns {
                ctx.close(c);
            }
        });
        if let Some(st) = &self.shared.ds21 {
            st.remove_all();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
        for f in &self.rendezvous {
            let _ = std::fs::remove_file(f);
        }
        if join {
            reactor::release();
        } else {
            reactor::release_at_exit();
        }
        log::debug!("server {} finalized", self.id);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}
