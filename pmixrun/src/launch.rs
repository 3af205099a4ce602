//! Process management: fork the ranks (gated, see `sys::spawn_gated`), register them
//! with the server, release them, then supervise: forward their output, watch for
//! exits, server events, signals and the timeout, and kill the job on the first
//! failure (SIGTERM, then SIGKILL after a grace period).
//!
//! The server is reached through [`JobServer`], which `pmix_core::server::Server`
//! implements; tests use a fake.

use crate::host::{Events, JobEvent};
use crate::job::{self, Layout};
use crate::output::Stream;
use crate::supervisor::{Cause, Supervisor};
use crate::sys::{self, ChildFds, ChildSpec, EnvFits, ExitKind, Pid};
use pmix_core::server::Server;
use pmix_core::{Info, Nspace, ProcId, Rank};
use std::ffi::OsString;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the launcher needs from the PMIx server.
pub trait JobServer {
    /// See [`Server::register_nspace`].
    fn register_nspace(
        &self,
        nspace: &Nspace,
        nlocal: u32,
        info: Vec<Info>,
    ) -> pmix_core::Result<()>;
    /// See [`Server::register_client`].
    fn register_client(&self, proc: &ProcId, uid: u32, gid: u32) -> pmix_core::Result<()>;
    /// See [`Server::setup_fork`].
    fn setup_fork(&self, proc: &ProcId) -> pmix_core::Result<Vec<(String, String)>>;
    /// See [`Server::deregister_client`].
    fn deregister_client(&self, proc: &ProcId);
    /// See [`Server::deregister_nspace`].
    fn deregister_nspace(&self, nspace: &Nspace);
    /// Register the job: by default the one node's registration with
    /// [`JobServer::register_nspace`] (a multi-node bench registers each node's own).
    fn register_job(&self, layout: &Layout, pids: &[Pid]) -> Result<(), String> {
        let infos =
            job::registration(layout, pids).map_err(|e| format!("cannot describe the job: {e}"))?;
        self.register_nspace(&layout.nspace, layout.size(), infos)
            .map_err(|e| format!("the PMIx server refused the job: {e}"))
    }
}

impl JobServer for Server {
    fn register_nspace(
        &self,
        nspace: &Nspace,
        nlocal: u32,
        info: Vec<Info>,
    ) -> pmix_core::Result<()> {
        Server::register_nspace(self, nspace, nlocal, info)
    }
    fn register_client(&self, proc: &ProcId, uid: u32, gid: u32) -> pmix_core::Result<()> {
        Server::register_client(self, proc, uid, gid)
    }
    fn setup_fork(&self, proc: &ProcId) -> pmix_core::Result<Vec<(String, String)>> {
        Server::setup_fork(self, proc)
    }
    fn deregister_client(&self, proc: &ProcId) {
        Server::deregister_client(self, proc)
    }
    fn deregister_nspace(&self, nspace: &Nspace) {
        Server::deregister_nspace(self, nspace)
    }
}

/// How one rank is started.
#[derive(Debug, Clone)]
pub struct RankPlan {
    /// The executable (already resolved against `PATH`).
    pub path: PathBuf,
    /// argv, argv\[0\] included.
    pub argv: Vec<OsString>,
    /// Working directory (`None` = pmixrun's).
    pub wdir: Option<PathBuf>,
}

/// Where output and messages go.
pub struct Sinks {
    /// The ranks' stdout.
    pub stdout: Box<dyn Write + Send>,
    /// The ranks' stderr and pmixrun's own messages.
    pub stderr: Box<dyn Write + Send>,
}

/// Launcher settings.
pub struct LaunchConfig {
    /// Prefix lines with `[nspace,rank] `.
    pub tag_output: bool,
    /// Kill the job after this long.
    pub timeout: Option<Duration>,
    /// Time between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// Environment every rank starts from (before the server's variables).
    pub base_env: Vec<(OsString, OsString)>,
    /// Give rank 0 pmixrun's stdin (otherwise every rank reads /dev/null).
    pub stdin_to_rank0: bool,
}

/// Room for the variables the server adds to a rank's environment.
const ENV_SLACK_BYTES: usize = 256 * 1024;
const ENV_SLACK_VARS: usize = 1024;
/// How long output may still arrive after the last rank exited (descendants of a rank
/// can hold its pipes open).
const DRAIN: Duration = Duration::from_millis(500);
/// A rank whose connection closed is given this long to exit before the lost
/// connection itself fails the job (so a crash is reported as the crash it is).
const LOST_GRACE: Duration = Duration::from_millis(300);
/// Without pidfds, how often to look for exited ranks.
const TICK: Duration = Duration::from_millis(50);

struct Out {
    fd: OwnedFd,
    stream: Stream,
}

struct Child {
    rank: Rank,
    pid: Pid,
    program: String,
    /// Whether an environment of `(bytes, variables)` fits the child's gate buffers.
    env_fits: EnvFits,
    pidfd: Option<OwnedFd>,
    stdout: Option<Out>,
    stderr: Option<Out>,
    gate: Option<OwnedFd>,
    err: Option<OwnedFd>,
    reaped: bool,
}

/// A job: its ranks, forked and (after [`Launcher::start`]) running.
pub struct Launcher {
    layout: Layout,
    children: Vec<Child>,
    pgid: Pid,
    cfg: LaunchConfig,
    sinks: Sinks,
    events: Arc<Events>,
    signals: Option<OwnedFd>,
    sup: Supervisor,
    kill_at: Option<Instant>,
    killed_hard: bool,
    lost: Vec<(Rank, Instant)>,
}

fn env_block(vars: &[(OsString, OsString)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (k, v) in vars {
        out.extend_from_slice(k.as_bytes());
        out.push(b'=');
        out.extend_from_slice(v.as_bytes());
        out.push(0);
    }
    out
}

/// `base` with `over` applied (a name in `over` replaces the same name in `base`).
fn merge_env(
    base: &[(OsString, OsString)],
    over: &[(String, String)],
) -> Vec<(OsString, OsString)> {
    let mut out: Vec<(OsString, OsString)> = base
        .iter()
        .filter(|(k, _)| !over.iter().any(|(o, _)| k.as_bytes() == o.as_bytes()))
        .cloned()
        .collect();
    out.extend(
        over.iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    out
}

/// Find `program` the way a shell does: a name with a `/` is used as is, any other is
/// looked up in `path` (the value of `PATH`). Only regular, executable files match.
pub fn resolve_program(program: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let p = PathBuf::from(program);
        return runnable(&p).then_some(p);
    }
    let path = path?;
    std::env::split_paths(path)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".").join(program)
            } else {
                dir.join(program)
            }
        })
        .find(|p| runnable(p))
}

impl Launcher {
    /// Fork every rank of `layout` (one plan per rank), each waiting at its gate.
    pub fn spawn(
        layout: &Layout,
        plans: Vec<RankPlan>,
        cfg: LaunchConfig,
        sinks: Sinks,
        events: Arc<Events>,
        signals: Option<OwnedFd>,
    ) -> io::Result<Launcher> {
        let n = plans.len();
        let mut l = Launcher {
            layout: layout.clone(),
            children: Vec::with_capacity(n),
            pgid: 0,
            cfg,
            sinks,
            events,
            signals,
            sup: Supervisor::new(n),
            kill_at: None,
            killed_hard: false,
            lost: Vec::new(),
        };
        if let Some(s) = &l.signals {
            sys::set_nonblocking(s.as_raw_fd())?;
        }
        let env_bytes = env_block(&l.cfg.base_env).len() + ENV_SLACK_BYTES;
        let env_vars = l.cfg.base_env.len() + ENV_SLACK_VARS;
        let devnull = std::fs::File::open("/dev/null")?;
        for (i, plan) in plans.into_iter().enumerate() {
            let rank = Rank::try_from(i).map_err(|_| io::Error::other("too many ranks"))?;
            let argv: Vec<Vec<u8>> = plan.argv.iter().map(|a| a.as_bytes().to_vec()).collect();
            let mut spec = ChildSpec::new(
                plan.path.as_os_str().as_bytes(),
                &argv,
                plan.wdir.as_ref().map(|w| w.as_os_str().as_bytes()),
                env_bytes,
                env_vars,
            )?;
            let (out_r, out_w) = sys::pipe()?;
            let (err_r, err_w) = sys::pipe()?;
            let (gate_r, gate_w) = sys::pipe()?;
            let (fail_r, fail_w) = sys::pipe()?;
            sys::set_nonblocking(out_r.as_raw_fd())?;
            sys::set_nonblocking(err_r.as_raw_fd())?;
            let stdin = if rank == 0 && l.cfg.stdin_to_rank0 {
                0
            } else {
                devnull.as_raw_fd()
            };
            let fds = ChildFds {
                stdin,
                stdout: out_w.as_raw_fd(),
                stderr: err_w.as_raw_fd(),
                gate: gate_r.as_raw_fd(),
                err: fail_w.as_raw_fd(),
            };
            let pid = sys::spawn_gated(&mut spec, &fds, l.pgid)?;
            if l.pgid == 0 {
                l.pgid = pid;
            }
            // The child's ends, and its buffers, are the child's copy now.
            drop((out_w, err_w, gate_r, fail_w));
            let env_fits = spec.fits();
            drop(spec);
            let pidfd = match sys::pidfd_open(pid) {
                Ok(fd) => Some(fd),
                Err(e) => {
                    log::debug!("pidfd_open: {e}; polling for exits instead");
                    None
                }
            };
            let tag = l
                .cfg
                .tag_output
                .then(|| format!("[{},{}] ", layout.nspace, rank));
            l.children.push(Child {
                rank,
                pid,
                program: plan.path.display().to_string(),
                env_fits,
                pidfd,
                stdout: Some(Out {
                    fd: out_r,
                    stream: Stream::new(tag.clone()),
                }),
                stderr: Some(Out {
                    fd: err_r,
                    stream: Stream::new(tag),
                }),
                gate: Some(gate_w),
                err: Some(fail_r),
                reaped: false,
            });
        }
        Ok(l)
    }

    /// The ranks' pids, in rank order.
    pub fn pids(&self) -> Vec<Pid> {
        self.children.iter().map(|c| c.pid).collect()
    }

    /// Register the job and its ranks with `server`, give every rank its environment
    /// and let it run. On `Err` the caller should [`Launcher::abandon`] the job.
    pub fn start(&mut self, server: &dyn JobServer) -> Result<(), String> {
        let ns = self.layout.nspace.clone();
        server.register_job(&self.layout, &self.pids())?;
        let (uid, gid) = sys::uid_gid();
        for c in &self.children {
            server
                .register_client(&ProcId::new(ns.clone(), c.rank), uid, gid)
                .map_err(|e| format!("the PMIx server refused rank {}: {e}", c.rank))?;
        }
        for c in &mut self.children {
            let proc = ProcId::new(ns.clone(), c.rank);
            let vars = server
                .setup_fork(&proc)
                .map_err(|e| format!("no environment for rank {}: {e}", c.rank))?;
            let env = merge_env(&self.cfg.base_env, &vars);
            let block = env_block(&env);
            if !c.env_fits.fits(block.len(), env.len()) {
                return Err(format!(
                    "the environment of rank {} is too large ({} bytes)",
                    c.rank,
                    block.len()
                ));
            }
            if let Some(gate) = c.gate.take() {
                sys::open_gate(&gate, &block)
                    .map_err(|e| format!("cannot release rank {}: {e}", c.rank))?;
            }
        }
        // Every rank is released: each error pipe now ends at exec (or carries why not).
        for i in 0..self.children.len() {
            let Some(err) = self.children.get_mut(i).and_then(|c| c.err.take()) else {
                continue;
            };
            if let Some((step, e)) = sys::child_launch_error(&err) {
                let (rank, program) = match self.children.get(i) {
                    Some(c) => (c.rank, c.program.clone()),
                    None => continue,
                };
                let what = match step {
                    sys::ChildStep::Exec => format!("cannot execute {program}: {e}"),
                    sys::ChildStep::Chdir => {
                        let dir = self
                            .layout
                            .apps
                            .iter()
                            .find(|a| rank >= a.first && rank < a.first + a.size)
                            .map(|a| a.wdir.display().to_string())
                            .unwrap_or_default();
                        format!("cannot change to directory {dir}: {e}")
                    }
                    sys::ChildStep::Gate => format!("did not receive its environment: {e}"),
                };
                if self.sup.launch_failed(rank, what) {
                    self.begin_kill();
                }
            }
        }
        Ok(())
    }

    /// Kill every rank (SIGKILL) and reap it: the job never started properly.
    pub fn abandon(&mut self) {
        for c in &mut self.children {
            if !c.reaped {
                let _ = sys::kill(c.pid, libc::SIGKILL);
            }
        }
        self.reap_blocking();
    }

    fn reap_blocking(&mut self) {
        for c in &mut self.children {
            while !c.reaped {
                match sys::try_wait(c.pid) {
                    Ok(Some(_)) => c.reaped = true,
                    Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                    Err(e) => {
                        log::warn!("waitpid {}: {e}", c.pid);
                        c.reaped = true;
                    }
                }
            }
        }
    }

    fn say(&mut self, msg: &str) {
        let _ = writeln!(self.sinks.stderr, "pmixrun: {msg}");
        let _ = self.sinks.stderr.flush();
    }

    /// Signal every running rank, and the job's process group while it surely exists.
    fn signal_job(&mut self, sig: i32) {
        for c in &self.children {
            if !c.reaped {
                if let Err(e) = sys::kill(c.pid, sig) {
                    log::warn!("kill {} (rank {}): {e}", c.pid, c.rank);
                }
            }
        }
        // The group id stays reserved while its leader (rank 0) is not reaped.
        if self.children.first().is_some_and(|c| !c.reaped) {
            let _ = sys::killpg(self.pgid, sig);
        }
    }

    /// Report the (new) failure and start killing the job.
    fn begin_kill(&mut self) {
        let Some(cause) = self.sup.cause().cloned() else {
            return;
        };
        let rank = match &cause {
            Cause::RankExit { rank, .. }
            | Cause::NoFinalize { rank, .. }
            | Cause::Lost { rank }
            | Cause::Abort { rank, .. }
            | Cause::Launch { rank, .. } => Some(*rank),
            Cause::Timeout(_) | Cause::Interrupted(_) | Cause::Node { .. } => None,
        };
        let mut msg = cause.to_string();
        if let Some(c) = rank.and_then(|r| self.children.get(r as usize)) {
            msg.push_str(&format!(" (pid {}, {})", c.pid, c.program));
        }
        let running = self.sup.nrunning();
        if running > 0 {
            msg.push_str(&format!(
                "; killing the job ({running} rank{} still running)",
                if running == 1 { "" } else { "s" }
            ));
        }
        self.say(&msg);
        let sig = match cause {
            Cause::Interrupted(s) => s,
            _ => libc::SIGTERM,
        };
        if running > 0 {
            self.signal_job(sig);
            self.kill_at = Some(Instant::now() + self.cfg.grace);
        }
    }

    fn kill_hard(&mut self) {
        if !self.killed_hard {
            self.killed_hard = true;
            self.kill_at = None;
            self.signal_job(libc::SIGKILL);
        }
    }

    fn handle_events(&mut self) {
        for ev in self.events.drain() {
            match ev {
                JobEvent::Connected(r) => {
                    if self.sup.connected(r) {
                        self.begin_kill();
                    }
                }
                JobEvent::Finalized(r) => self.sup.finalized(r),
                JobEvent::Lost(r) => self.lost.push((r, Instant::now() + LOST_GRACE)),
                JobEvent::Abort {
                    rank,
                    status,
                    msg,
                    done,
                } => {
                    if self.sup.abort(rank, status, msg) {
                        self.begin_kill();
                    }
                    // The job is being killed; release the caller of PMIx_Abort.
                    done(Ok(()));
                }
                JobEvent::NodeFailed { node, msg } => {
                    if self.sup.node_failed(node, msg) {
                        self.begin_kill();
                    }
                }
            }
        }
    }

    fn reap(&mut self) {
        let mut exits = Vec::new();
        for c in &mut self.children {
            if c.reaped {
                continue;
            }
            match sys::try_wait(c.pid) {
                Ok(Some(exit)) => {
                    c.reaped = true;
                    c.pidfd = None;
                    exits.push((c.rank, exit));
                }
                Ok(None) => {}
                Err(e) => {
                    log::warn!("waitpid {}: {e}", c.pid);
                    c.reaped = true;
                    exits.push((c.rank, ExitKind::Signal(libc::SIGKILL)));
                }
            }
        }
        for (rank, exit) in exits {
            log::debug!("rank {rank} ended: {exit:?}");
            if self.sup.exited(rank, exit) {
                self.begin_kill();
            }
        }
    }

    fn handle_signals(&mut self) {
        let Some(fd) = self.signals.as_ref().map(|s| s.as_raw_fd()) else {
            return;
        };
        let mut buf = [0u8; 64];
        loop {
            let n = match sys::read(fd, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for &b in buf.iter().take(n) {
                let sig = i32::from(b);
                if self.sup.interrupted(sig) {
                    self.begin_kill();
                } else if self.sup.nrunning() > 0 {
                    self.say(&format!(
                        "received {} while the job is being killed; sending SIGKILL",
                        crate::supervisor::signal_name(sig)
                    ));
                    self.kill_hard();
                }
            }
        }
    }

    /// Read what is ready on one output pipe; returns false at end of file.
    fn pump(fd: RawFd, stream: &mut Stream, sink: &mut dyn Write) -> bool {
        let mut buf = [0u8; 65536];
        let mut out = Vec::new();
        let open = loop {
            match sys::read(fd, &mut buf) {
                Ok(0) => break false,
                Ok(n) => {
                    stream.feed(buf.get(..n).unwrap_or(&[]), &mut out);
                    if n < buf.len() {
                        break true;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break true,
                Err(_) => break false,
            }
        };
        if !open {
            stream.finish(&mut out);
        }
        if !out.is_empty() {
            // A reader that went away must not stop the job; keep draining the ranks.
            let _ = sink.write_all(&out);
            let _ = sink.flush();
        }
        open
    }

    /// Supervise the job to its end; returns pmixrun's exit status.
    pub fn run(&mut self) -> i32 {
        let started = Instant::now();
        let deadline = self.cfg.timeout.map(|t| started + t);
        let mut drain_until: Option<Instant> = None;
        loop {
            self.handle_events();
            self.reap();
            self.handle_signals();
            let now = Instant::now();
            let (due, pending): (Vec<_>, Vec<_>) =
                self.lost.drain(..).partition(|(_, at)| now >= *at);
            self.lost = pending;
            for (rank, _) in due {
                if self.sup.lost(rank) {
                    self.begin_kill();
                }
            }
            if let (Some(d), Some(t)) = (deadline, self.cfg.timeout) {
                if now >= d && self.sup.nrunning() > 0 && self.sup.timed_out(t) {
                    self.begin_kill();
                }
            }
            if self.kill_at.is_some_and(|k| now >= k) && self.sup.nrunning() > 0 {
                self.say(&format!(
                    "ranks still running {:.1} s after SIGTERM; sending SIGKILL",
                    self.cfg.grace.as_secs_f64()
                ));
                self.kill_hard();
            }
            let outputs_open = self
                .children
                .iter()
                .any(|c| c.stdout.is_some() || c.stderr.is_some());
            if self.sup.nrunning() == 0 {
                let until = *drain_until.get_or_insert(now + DRAIN);
                if !outputs_open || now >= until {
                    break;
                }
            }

            // Wait for the next thing to happen.
            let mut pfds: Vec<libc::pollfd> = Vec::new();
            let pfd = |fd: RawFd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            pfds.push(pfd(self.events.fd()));
            if let Some(s) = &self.signals {
                pfds.push(pfd(s.as_raw_fd()));
            }
            let mut need_tick = false;
            for c in &self.children {
                if let Some(o) = &c.stdout {
                    pfds.push(pfd(o.fd.as_raw_fd()));
                }
                if let Some(o) = &c.stderr {
                    pfds.push(pfd(o.fd.as_raw_fd()));
                }
                match &c.pidfd {
                    Some(p) => pfds.push(pfd(p.as_raw_fd())),
                    None if !c.reaped => need_tick = true,
                    None => {}
                }
            }
            let next_lost = self.lost.iter().map(|(_, at)| *at).min();
            let mut wake = [deadline, self.kill_at, drain_until, next_lost]
                .into_iter()
                .flatten()
                .map(|t| t.saturating_duration_since(now))
                .min();
            if need_tick {
                wake = Some(wake.map_or(TICK, |w| w.min(TICK)));
            }
            let timeout_ms = wake.map_or(-1, |w| {
                i32::try_from(w.as_millis().saturating_add(1)).unwrap_or(i32::MAX)
            });
            if let Err(e) = sys::poll(&mut pfds, timeout_ms) {
                log::warn!("poll: {e}");
                std::thread::sleep(TICK);
            }
            let ready: Vec<RawFd> = pfds
                .iter()
                .filter(|p| p.revents != 0)
                .map(|p| p.fd)
                .collect();
            for c in &mut self.children {
                for (slot, sink) in [
                    (&mut c.stdout, &mut self.sinks.stdout),
                    (&mut c.stderr, &mut self.sinks.stderr),
                ] {
                    let Some(o) = slot else { continue };
                    if ready.contains(&o.fd.as_raw_fd())
                        && !Self::pump(o.fd.as_raw_fd(), &mut o.stream, sink.as_mut())
                    {
                        *slot = None;
                    }
                }
            }
        }
        // Output still held open by descendants is dropped with the pipes.
        self.sup.exit_status()
    }

    /// Forget the job on the server (after [`Launcher::run`]).
    pub fn finish(&mut self, server: &dyn JobServer) {
        for c in &self.children {
            server.deregister_client(&ProcId::new(self.layout.nspace.clone(), c.rank));
        }
        server.deregister_nspace(&self.layout.nspace);
    }
}

impl Drop for Launcher {
    /// No rank outlives its launcher.
    fn drop(&mut self) {
        if self.children.iter().any(|c| !c.reaped) {
            self.abandon();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::tests::layout as five_rank_layout;
    use crate::job::{AppLayout, Dirs};
    use std::sync::Mutex;

    /// A sink the test can read.
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    impl Buf {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
        }
    }

    type Hook = Box<dyn Fn(&ProcId, &Arc<Events>) + Send + Sync>;

    /// A server that records what it is told and answers setup_fork with fixed
    /// variables; `on_fork` can queue host events as if the rank had done something.
    struct Fake {
        events: Arc<Events>,
        infos: Mutex<Vec<Info>>,
        clients: Mutex<Vec<ProcId>>,
        fail_register: bool,
        on_fork: Option<Hook>,
        huge_env: bool,
    }

    impl JobServer for Fake {
        fn register_nspace(&self, _: &Nspace, _: u32, info: Vec<Info>) -> pmix_core::Result<()> {
            if self.fail_register {
                return Err(pmix_core::Error::not_supported("fake refuses"));
            }
            *self.infos.lock().unwrap_or_else(|p| p.into_inner()) = info;
            Ok(())
        }
        fn register_client(&self, p: &ProcId, _: u32, _: u32) -> pmix_core::Result<()> {
            self.clients
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(p.clone());
            Ok(())
        }
        fn setup_fork(&self, p: &ProcId) -> pmix_core::Result<Vec<(String, String)>> {
            if let Some(h) = &self.on_fork {
                h(p, &self.events);
            }
            let mut vars = vec![
                ("PMIX_RANK".into(), p.rank.to_string()),
                ("FAKE_VAR".into(), "from-server".into()),
            ];
            if self.huge_env {
                vars.push(("HUGE".into(), "x".repeat(ENV_SLACK_BYTES + 1)));
            }
            Ok(vars)
        }
        fn deregister_client(&self, _: &ProcId) {}
        fn deregister_nspace(&self, _: &Nspace) {}
    }

    struct Run {
        status: i32,
        out: String,
        err: String,
        elapsed: Duration,
        infos: Vec<Info>,
        pids: Vec<Pid>,
    }

    fn layout(n: u32) -> Layout {
        let mut l = five_rank_layout();
        l.apps = vec![AppLayout {
            appnum: 0,
            first: 0,
            size: n,
            argv: vec!["sh".into()],
            wdir: "/".into(),
        }];
        l.nodes = crate::job::nodes("host", n, 1);
        l.dirs = Dirs {
            tmpdir: "/tmp".into(),
            nsdir: "/tmp".into(),
            procdirs: (0..n).map(|_| PathBuf::from("/tmp")).collect(),
        };
        l
    }

    fn sh(script: &str) -> RankPlan {
        RankPlan {
            path: "/bin/sh".into(),
            argv: vec!["sh".into(), "-c".into(), script.into()],
            wdir: None,
        }
    }

    fn launch(
        plans: Vec<RankPlan>,
        tag: bool,
        timeout: Option<f64>,
        fake: impl FnOnce(Arc<Events>) -> Fake,
    ) -> Run {
        let n = u32::try_from(plans.len()).expect("n");
        let events = Events::new().expect("events");
        let (out, err) = (Buf::default(), Buf::default());
        let cfg = LaunchConfig {
            tag_output: tag,
            timeout: timeout.map(Duration::from_secs_f64),
            grace: Duration::from_millis(300),
            base_env: vec![
                ("PATH".into(), "/usr/bin:/bin".into()),
                ("FAKE_VAR".into(), "from-base".into()),
                ("BASE_VAR".into(), "base".into()),
            ],
            stdin_to_rank0: false,
        };
        let sinks = Sinks {
            stdout: Box::new(out.clone()),
            stderr: Box::new(err.clone()),
        };
        let t0 = Instant::now();
        let mut l =
            Launcher::spawn(&layout(n), plans, cfg, sinks, events.clone(), None).expect("spawn");
        let server = fake(events);
        let pids = l.pids();
        let status = match l.start(&server) {
            Ok(()) => l.run(),
            Err(e) => {
                l.abandon();
                let _ = writeln!(err.clone(), "start: {e}");
                -1
            }
        };
        drop(l);
        let infos = server
            .infos
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        Run {
            status,
            out: out.text(),
            err: err.text(),
            elapsed: t0.elapsed(),
            infos,
            pids,
        }
    }

    fn fake(hook: Option<Hook>) -> impl FnOnce(Arc<Events>) -> Fake {
        move |events| Fake {
            events,
            infos: Mutex::new(Vec::new()),
            clients: Mutex::new(Vec::new()),
            fail_register: false,
            on_fork: hook,
            huge_env: false,
        }
    }

    fn gone(pid: Pid) -> bool {
        // Reaped children are no longer ours: kill(pid, 0) fails with ESRCH (or the pid
        // was reused by an unrelated process, which we cannot signal as ourselves only
        // if it is not ours; either way it is not our child any more).
        sys::try_wait(pid).is_err()
    }

    #[test]
    fn ranks_get_the_server_environment_and_tagged_output() {
        let plans = (0..3)
            .map(|_| sh("echo \"r=$PMIX_RANK v=$FAKE_VAR b=$BASE_VAR\"; echo e >&2"))
            .collect();
        let r = launch(plans, true, Some(20.0), fake(None));
        assert_eq!(r.status, 0, "stderr: {}", r.err);
        for rank in 0..3 {
            let line = format!("[pmixrun.host.42,{rank}] r={rank} v=from-server b=base\n");
            assert!(r.out.contains(&line), "missing {line:?} in {:?}", r.out);
            assert!(
                r.err.contains(&format!("[pmixrun.host.42,{rank}] e\n")),
                "{}",
                r.err
            );
        }
        // The registration carried the real pids.
        let pdata: Vec<&Info> = r
            .infos
            .iter()
            .filter(|i| i.key.as_str() == crate::keys::PMIX_PROC_INFO_ARRAY)
            .collect();
        assert_eq!(pdata.len(), 3);
        let s = format!("{:?}", pdata[2].value);
        assert!(s.contains(&format!("Pid({})", r.pids[2])), "{s}");
        assert!(r.pids.iter().all(|&p| gone(p)));
    }

    #[test]
    fn first_failure_kills_the_rest_promptly() {
        let plans = vec![sh("sleep 30"), sh("exit 3"), sh("sleep 30")];
        let r = launch(plans, false, Some(20.0), fake(None));
        assert_eq!(r.status, 3);
        assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
        assert!(r.err.contains("rank 1 exited with status 3"), "{}", r.err);
        assert!(
            r.err.contains("killing the job (2 ranks still running)"),
            "{}",
            r.err
        );
        assert!(r.pids.iter().all(|&p| gone(p)));
    }

    #[test]
    fn signal_death_is_128_plus_signal() {
        let r = launch(vec![sh("kill -SEGV $$")], false, Some(20.0), fake(None));
        assert_eq!(r.status, 128 + libc::SIGSEGV);
        assert!(r.err.contains("rank 0 was killed by SIGSEGV"), "{}", r.err);
    }

    #[test]
    fn timeout_escalates_to_sigkill() {
        // The rank ignores SIGTERM, so only the SIGKILL after the grace period ends it.
        let plans = vec![
            sh("trap '' TERM; echo ready; while :; do sleep 1; done"),
            sh("sleep 30"),
        ];
        let r = launch(plans, false, Some(0.5), fake(None));
        assert_eq!(r.status, 124, "{}", r.err);
        assert!(r.err.contains("the job timed out after 0.5 s"), "{}", r.err);
        assert!(r.err.contains("sending SIGKILL"), "{}", r.err);
        assert!(r.elapsed < Duration::from_secs(8), "{:?}", r.elapsed);
        assert!(r.out.contains("ready"));
    }

    #[test]
    fn exec_failure_is_reported() {
        let plans = vec![
            RankPlan {
                path: "/nonexistent/prog".into(),
                argv: vec!["prog".into()],
                wdir: None,
            },
            sh("sleep 30"),
        ];
        let r = launch(plans, false, Some(20.0), fake(None));
        assert_eq!(r.status, 127);
        assert!(
            r.err
                .contains("rank 0 could not be started: cannot execute /nonexistent/prog"),
            "{}",
            r.err
        );
    }

    #[test]
    fn bad_working_directory_is_reported() {
        let mut p = sh("pwd");
        p.wdir = Some("/nonexistent/dir".into());
        let r = launch(vec![p], false, Some(20.0), fake(None));
        assert_eq!(r.status, 127);
        assert!(r.err.contains("cannot change to directory"), "{}", r.err);
        let mut p = sh("pwd");
        p.wdir = Some("/usr".into());
        let r = launch(vec![p], false, Some(20.0), fake(None));
        assert_eq!((r.status, r.out.as_str()), (0, "/usr\n"));
    }

    #[test]
    fn abort_kills_the_job_with_its_status_and_releases_the_caller() {
        let released = Arc::new(Mutex::new(false));
        let flag = released.clone();
        let hook: Hook = Box::new(move |p, ev| {
            if p.rank == 1 {
                let flag = flag.clone();
                ev.push(JobEvent::Abort {
                    rank: 1,
                    status: 5,
                    msg: "giving up".into(),
                    done: Box::new(move |_| *flag.lock().unwrap_or_else(|p| p.into_inner()) = true),
                });
            }
        });
        let r = launch(
            vec![sh("sleep 30"), sh("sleep 30")],
            false,
            Some(20.0),
            fake(Some(hook)),
        );
        assert_eq!(r.status, 5);
        assert!(
            r.err
                .contains("rank 1 called PMIx_Abort with status 5: giving up"),
            "{}",
            r.err
        );
        assert!(*released.lock().unwrap_or_else(|p| p.into_inner()));
        assert!(r.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn connected_rank_exiting_without_finalize_fails_the_job() {
        let hook: Hook = Box::new(|p, ev| ev.push(JobEvent::Connected(p.rank)));
        let r = launch(
            vec![sh("exit 0"), sh("sleep 30")],
            false,
            Some(20.0),
            fake(Some(hook)),
        );
        assert_eq!(r.status, 1);
        assert!(
            r.err
                .contains("rank 0 called PMIx_Init but exited without calling PMIx_Finalize"),
            "{}",
            r.err
        );
        assert!(r.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn lost_connection_of_a_live_rank_fails_the_job() {
        let hook: Hook = Box::new(|p, ev| {
            ev.push(JobEvent::Connected(p.rank));
            if p.rank == 1 {
                ev.push(JobEvent::Lost(1));
            }
        });
        let r = launch(
            vec![sh("sleep 30"), sh("sleep 30")],
            false,
            Some(20.0),
            fake(Some(hook)),
        );
        assert_eq!(r.status, 1);
        assert!(
            r.err.contains(
                "rank 1 closed its connection to the PMIx server without calling PMIx_Finalize"
            ),
            "{}",
            r.err
        );
        assert!(r.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn lost_connection_of_a_crashing_rank_reports_the_crash() {
        let hook: Hook = Box::new(|p, ev| {
            ev.push(JobEvent::Connected(p.rank));
            ev.push(JobEvent::Lost(p.rank));
        });
        let r = launch(
            vec![sh("kill -SEGV $$")],
            false,
            Some(20.0),
            fake(Some(hook)),
        );
        assert_eq!(r.status, 128 + libc::SIGSEGV, "{}", r.err);
        assert!(r.err.contains("killed by SIGSEGV"), "{}", r.err);
    }

    #[test]
    fn finalized_ranks_succeed() {
        let hook: Hook = Box::new(|p, ev| {
            ev.push(JobEvent::Connected(p.rank));
            ev.push(JobEvent::Finalized(p.rank));
        });
        let r = launch(
            vec![sh("exit 0"), sh("sleep 0.2")],
            false,
            Some(20.0),
            fake(Some(hook)),
        );
        assert_eq!(r.status, 0, "{}", r.err);
        assert_eq!(r.err, "");
    }

    #[test]
    fn refused_registration_leaves_no_process_behind() {
        let r = launch(
            vec![sh("sleep 30"), sh("sleep 30")],
            false,
            None,
            |events| Fake {
                events,
                infos: Mutex::new(Vec::new()),
                clients: Mutex::new(Vec::new()),
                fail_register: true,
                on_fork: None,
                huge_env: false,
            },
        );
        assert_eq!(r.status, -1);
        assert!(
            r.err.contains("the PMIx server refused the job"),
            "{}",
            r.err
        );
        assert!(r.pids.iter().all(|&p| gone(p)));
        assert!(r.elapsed < Duration::from_secs(5));
    }

    #[test]
    fn environment_too_large_for_the_gate_is_refused() {
        let r = launch(vec![sh("sleep 30")], false, None, |events| Fake {
            events,
            infos: Mutex::new(Vec::new()),
            clients: Mutex::new(Vec::new()),
            fail_register: false,
            on_fork: None,
            huge_env: true,
        });
        assert_eq!(r.status, -1);
        assert!(
            r.err.contains("the environment of rank 0 is too large"),
            "{}",
            r.err
        );
        assert!(r.pids.iter().all(|&p| gone(p)));
    }

    #[test]
    fn untagged_output_passes_through_unbuffered() {
        let r = launch(
            vec![sh("printf 'no newline'")],
            false,
            Some(20.0),
            fake(None),
        );
        assert_eq!((r.status, r.out.as_str()), (0, "no newline"));
    }

    #[test]
    fn program_resolution() {
        let path = std::ffi::OsString::from("/nonexistent:/bin:/usr/bin");
        assert!(resolve_program("sh", Some(&path)).is_some_and(|p| p.ends_with("sh")));
        assert_eq!(resolve_program("no-such-program-xyz", Some(&path)), None);
        assert_eq!(
            resolve_program("/bin/sh", None),
            Some(PathBuf::from("/bin/sh"))
        );
        // A directory or a non-executable file is not a program.
        assert_eq!(resolve_program("/tmp", None), None);
        let plain = std::env::temp_dir().join(format!("pmixrun-noexec-{}", std::process::id()));
        std::fs::write(&plain, b"x").expect("file");
        let found = resolve_program(plain.to_str().expect("utf8"), None);
        std::fs::remove_file(&plain).expect("rm");
        assert_eq!(found, None);
        assert_eq!(resolve_program("", Some(&path)), None);
    }

    #[test]
    fn merged_environment_prefers_the_server() {
        let base = vec![("A".into(), "1".into()), ("B".into(), "2".into())];
        let m = merge_env(&base, &[("B".into(), "3".into())]);
        assert_eq!(env_block(&m), b"A=1\0B=3\0");
    }
}
