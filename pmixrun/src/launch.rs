//! Process management: fork the ranks (gated, see `sys::spawn_gated`), register them
//! with the server, release them, then supervise: forward their output, watch for
//! exits, server events, signals and the timeout, and kill the job on the first
//! failure (SIGTERM, then SIGKILL after a grace period). With recovery
//! (`--enable-recovery`) the failure of a rank is reported and the others run on.
//! A rank that has been reaped is deregistered from the server at once, so collectives
//! still waiting for it fail instead of waiting for a process that is gone.
//!
//! Jobs started later by `PMIx_Spawn` ([`crate::spawn`]) are supervised by the same
//! loop: pmixrun runs until every job has ended. They are connected to their parent,
//! so, as `mpirun` does, the first failure of any job ends all of them (and, when a
//! process ended without synchronizing, every job is told `PMIX_ERR_JOB_TERM_WO_SYNC`
//! first).
//!
//! The server is reached through [`JobServer`], which `pmix_core::server::Server`
//! implements; tests use a fake.

use crate::host::{Events, JobEvent};
use crate::job::{self, Layout};
use crate::output::Stream;
use crate::scratch::Scratch;
use crate::supervisor::{Cause, Supervisor};
use crate::sys::{self, ChildFds, ChildSpec, EnvFits, ExitKind, Pid};
use pmix_core::server::Server;
use pmix_core::{Info, Nspace, ProcId, Rank, Value};
use pmix_sys::attrs::keys as ak;
use std::ffi::OsString;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
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
    /// Raise an event at the server's clients in `range` (see [`Server::notify_event`]).
    fn notify(&self, _status: i32, _source: &ProcId, _range: u8, _info: Vec<Info>) {}
    /// Hand the server output a rank wrote (see [`Server::iof_deliver`]).
    fn iof_deliver(&self, _source: &ProcId, _channel: u16, _data: Vec<u8>, _info: Vec<Info>) {}
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
    fn notify(&self, status: i32, source: &ProcId, range: u8, info: Vec<Info>) {
        if let Err(e) = Server::notify_event_range(self, status, source, range, info) {
            log::debug!("cannot raise event {status}: {e}");
        }
    }
    fn iof_deliver(&self, source: &ProcId, channel: u16, data: Vec<u8>, info: Vec<Info>) {
        // Handed over without waiting: the progress thread takes the chunks in order.
        if let Err(e) =
            Server::iof_deliver(self, source, channel, data, info, Some(Box::new(|_| {})))
        {
            log::debug!("cannot forward output of {source}: {e}");
        }
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
    /// How long a clean exit may wait for the server's word (see [`EXIT_VERDICT_WAIT`]).
    pub exit_verdict_wait: Duration,
    /// `--enable-recovery`: a failing rank does not end the jobs.
    pub recovery: bool,
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
/// A rank that exited 0 while its server connection was open and its `PMIx_Finalize`
/// not yet seen is judged once the server has read that connection to its end (a busy
/// server may still hold the finalize request; the client stops waiting for the answer
/// after a while), or after this long.
pub const EXIT_VERDICT_WAIT: Duration = Duration::from_secs(30);
/// Without pidfds, how often to look for exited ranks.
const TICK: Duration = Duration::from_millis(50);

struct Out {
    fd: OwnedFd,
    stream: Stream,
}

struct Child {
    /// Index of its job in `Launcher::jobs`.
    job: usize,
    rank: Rank,
    pid: Pid,
    program: String,
    /// Variables its application adds (a spawned app's `env`).
    extra_env: Vec<(String, String)>,
    /// Whether an environment of `(bytes, variables)` fits the child's gate buffers.
    env_fits: EnvFits,
    pidfd: Option<OwnedFd>,
    stdout: Option<Out>,
    stderr: Option<Out>,
    gate: Option<OwnedFd>,
    err: Option<OwnedFd>,
    reaped: bool,
    /// A process asked for this rank's end (job control, abort of a subset).
    on_request: bool,
}

/// One job: the one pmixrun was asked to run (index 0) or one a rank spawned.
struct Job {
    layout: Layout,
    sup: Supervisor,
    pgid: Pid,
    /// The process that spawned it (None for the job on the command line).
    parent: Option<ProcId>,
    /// The spawner asked to hear when it ends (`PMIX_NOTIFY_COMPLETION`).
    notify_end: bool,
    /// The spawner asked to hear of each rank's end (`PMIX_NOTIFY_PROC_TERMINATION`;
    /// with `abnormal_only`, `PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION`: failures only).
    notify_procs: bool,
    abnormal_only: bool,
    /// Its scratch directories (a spawned job's own; removed with the launcher).
    _scratch: Option<Scratch>,
    /// Its end has been dealt with.
    ended: bool,
}

/// The jobs: their ranks, forked and (after [`Launcher::start`]) running.
pub struct Launcher {
    jobs: Vec<Job>,
    children: Vec<Child>,
    cfg: LaunchConfig,
    sinks: Sinks,
    events: Arc<Events>,
    signals: Option<sys::SignalPipes>,
    /// The job whose failure is being acted on (later failures are its consequences).
    failed: Option<usize>,
    /// With recovery: the first job a rank of which failed (its status is pmixrun's).
    first_failed: Option<usize>,
    /// Reaped ranks not yet deregistered from the server.
    reaped: Vec<ProcId>,
    kill_at: Option<Instant>,
    killed_hard: bool,
    lost: Vec<(usize, Rank, Instant)>,
    /// Clean exits waiting for the server's word on the rank's connection (job, rank,
    /// exit, deadline; see [`EXIT_VERDICT_WAIT`]).
    exits_pending: Vec<(usize, Rank, ExitKind, Instant)>,
    /// Set by [`Launcher::serve_spawns`]: the server spawned jobs are registered with.
    server: Option<Arc<dyn JobServer + Send + Sync>>,
    /// Called with the namespace of each spawned job that ended.
    on_job_end: Option<JobEndHook>,
    /// What the server wants of the ranks' output (set by [`Launcher::forward_output`]).
    iof: Option<Arc<crate::iof::IofSubs>>,
}

/// What [`Launcher::on_job_end`] registers.
pub type JobEndHook = Box<dyn FnMut(&Nspace) + Send>;

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
        signals: Option<sys::SignalPipes>,
    ) -> io::Result<Launcher> {
        let mut l = Launcher {
            jobs: Vec::new(),
            children: Vec::with_capacity(plans.len()),
            cfg,
            sinks,
            events,
            signals,
            failed: None,
            first_failed: None,
            reaped: Vec::new(),
            kill_at: None,
            killed_hard: false,
            lost: Vec::new(),
            exits_pending: Vec::new(),
            server: None,
            on_job_end: None,
            iof: None,
        };
        let n = plans.len();
        l.fork_job(
            layout,
            plans.into_iter().map(|p| (p, Vec::new())).collect(),
            n,
        )?;
        Ok(l)
    }

    /// Fork the ranks of a new job (each plan with its extra variables); returns its
    /// index. The children wait at their gates until [`Launcher::start_job`].
    fn fork_job(
        &mut self,
        layout: &Layout,
        plans: Vec<(RankPlan, Vec<(String, String)>)>,
        n: usize,
    ) -> io::Result<usize> {
        let job = self.jobs.len();
        self.jobs.push(Job {
            layout: layout.clone(),
            sup: {
                let mut s = Supervisor::new(n);
                s.set_recovery(self.cfg.recovery);
                s
            },
            pgid: 0,
            parent: None,
            notify_end: false,
            notify_procs: false,
            abnormal_only: false,
            _scratch: None,
            ended: false,
        });
        let base_bytes = env_block(&self.cfg.base_env).len() + ENV_SLACK_BYTES;
        let base_vars = self.cfg.base_env.len() + ENV_SLACK_VARS;
        let devnull = std::fs::File::open("/dev/null")?;
        for (i, (plan, extra_env)) in plans.into_iter().enumerate() {
            let rank = Rank::try_from(i).map_err(|_| io::Error::other("too many ranks"))?;
            let argv: Vec<Vec<u8>> = plan.argv.iter().map(|a| a.as_bytes().to_vec()).collect();
            let extra_bytes: usize = extra_env.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
            let mut spec = ChildSpec::new(
                plan.path.as_os_str().as_bytes(),
                &argv,
                plan.wdir.as_ref().map(|w| w.as_os_str().as_bytes()),
                base_bytes + extra_bytes,
                base_vars + extra_env.len(),
            )?;
            let (out_r, out_w) = sys::pipe()?;
            let (err_r, err_w) = sys::pipe()?;
            let (gate_r, gate_w) = sys::pipe()?;
            let (fail_r, fail_w) = sys::pipe()?;
            sys::set_nonblocking(&out_r)?;
            sys::set_nonblocking(&err_r)?;
            let stdin = if job == 0 && rank == 0 && self.cfg.stdin_to_rank0 {
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
            let pgid = self.jobs.get(job).map_or(0, |j| j.pgid);
            let pid = sys::spawn_gated(&mut spec, &fds, pgid)?;
            if let Some(j) = self.jobs.get_mut(job) {
                if j.pgid == 0 {
                    j.pgid = pid;
                }
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
            let tag = self
                .cfg
                .tag_output
                .then(|| format!("[{},{}] ", layout.nspace, rank));
            self.children.push(Child {
                job,
                rank,
                pid,
                program: plan.path.display().to_string(),
                extra_env,
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
                on_request: false,
            });
        }
        Ok(job)
    }

    /// The ranks' pids, in rank order (the job on the command line).
    #[cfg(test)]
    pub fn pids(&self) -> Vec<Pid> {
        self.job_pids(0)
    }

    fn job_pids(&self, job: usize) -> Vec<Pid> {
        self.children
            .iter()
            .filter(|c| c.job == job)
            .map(|c| c.pid)
            .collect()
    }

    /// Let the launcher start the jobs that ranks ask for with `PMIx_Spawn`, registering
    /// them with `server`. Without it, spawn requests are refused.
    pub fn serve_spawns(&mut self, server: Arc<dyn JobServer + Send + Sync>) {
        self.server = Some(server);
    }

    /// Hand the server (the one given to [`Launcher::serve_spawns`]) the ranks' output
    /// that `subs` covers, besides writing it out as usual.
    pub fn forward_output(&mut self, subs: Arc<crate::iof::IofSubs>) {
        self.iof = Some(subs);
    }

    /// Call `f` with the namespace of every spawned job once all its ranks have ended.
    pub fn on_job_end(&mut self, f: JobEndHook) {
        self.on_job_end = Some(f);
    }

    /// Register the job and its ranks with `server`, give every rank its environment
    /// and let it run. On `Err` the caller should [`Launcher::abandon`] the job.
    pub fn start(&mut self, server: &dyn JobServer) -> Result<(), String> {
        for (rank, what) in self.start_job(0, server)? {
            if self
                .jobs
                .get_mut(0)
                .is_some_and(|j| j.sup.launch_failed(rank, what))
            {
                self.begin_kill(0);
            }
        }
        Ok(())
    }

    /// Register job `job` and its ranks, release them, and return the ranks that could
    /// not be started (with why).
    fn start_job(
        &mut self,
        job: usize,
        server: &dyn JobServer,
    ) -> Result<Vec<(Rank, String)>, String> {
        let Some(j) = self.jobs.get(job) else {
            return Err(format!("no job {job}"));
        };
        let ns = j.layout.nspace.clone();
        match &j.parent {
            None => server.register_job(&j.layout, &self.job_pids(job))?,
            Some(parent) => {
                // A spawned job: it says so, and who its parent is.
                let mut infos = job::registration(&j.layout, &self.job_pids(job))
                    .map_err(|e| format!("cannot describe the job: {e}"))?;
                infos.retain(|i| i.key.as_str() != ak::PMIX_SPAWNED);
                for (k, v) in [
                    (ak::PMIX_SPAWNED, Value::Bool(true)),
                    (ak::PMIX_PARENT_ID, Value::Proc(Some(parent.clone()))),
                ] {
                    infos.push(Info::new(k, v).map_err(|e| e.to_string())?);
                }
                server
                    .register_nspace(&ns, j.layout.size(), infos)
                    .map_err(|e| format!("the PMIx server refused the job: {e}"))?;
            }
        }
        let (uid, gid) = sys::uid_gid();
        for c in self.children.iter().filter(|c| c.job == job) {
            server
                .register_client(&ProcId::new(ns.clone(), c.rank), uid, gid)
                .map_err(|e| format!("the PMIx server refused rank {}: {e}", c.rank))?;
        }
        for c in self.children.iter_mut().filter(|c| c.job == job) {
            let proc = ProcId::new(ns.clone(), c.rank);
            let mut vars = c.extra_env.clone();
            vars.extend(
                server
                    .setup_fork(&proc)
                    .map_err(|e| format!("no environment for rank {}: {e}", c.rank))?,
            );
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
        let mut failed = Vec::new();
        for i in 0..self.children.len() {
            if self.children.get(i).is_none_or(|c| c.job != job) {
                continue;
            }
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
                            .jobs
                            .get(job)
                            .and_then(|j| {
                                j.layout
                                    .apps
                                    .iter()
                                    .find(|a| rank >= a.first && rank < a.first + a.size)
                            })
                            .map(|a| a.wdir.display().to_string())
                            .unwrap_or_default();
                        format!("cannot change to directory {dir}: {e}")
                    }
                    sys::ChildStep::Gate => format!("did not receive its environment: {e}"),
                };
                failed.push((rank, what));
            }
        }
        Ok(failed)
    }

    /// Kill every rank (SIGKILL) and reap it: the job never started properly.
    pub fn abandon(&mut self) {
        for c in &mut self.children {
            if !c.reaped {
                let _ = sys::kill(c.pid, libc::SIGKILL);
            }
        }
        self.reap_blocking(None);
    }

    /// Reap the ranks of `job` (every job: `None`), waiting for them.
    fn reap_blocking(&mut self, job: Option<usize>) {
        for c in &mut self.children {
            if job.is_some_and(|j| j != c.job) {
                continue;
            }
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
            c.pidfd = None;
        }
    }

    fn say(&mut self, msg: &str) {
        crate::output::write_line(&mut self.sinks.stderr, &format!("pmixrun: {msg}"));
    }

    /// Ranks of every job still running.
    fn nrunning(&self) -> usize {
        self.children.iter().filter(|c| !c.reaped).count()
    }

    fn job_of(&self, nspace: &Nspace) -> Option<usize> {
        self.jobs.iter().position(|j| &j.layout.nspace == nspace)
    }

    /// Signal every running rank of `job` (every job: `None`), and each job's process
    /// group while it surely exists.
    fn signal_jobs(&mut self, job: Option<usize>, sig: i32) {
        for c in &self.children {
            if !c.reaped && job.is_none_or(|j| j == c.job) {
                if let Err(e) = sys::kill(c.pid, sig) {
                    log::warn!("kill {} (rank {}): {e}", c.pid, c.rank);
                }
            }
        }
        for (i, j) in self.jobs.iter().enumerate() {
            if job.is_some_and(|k| k != i) {
                continue;
            }
            // The group id stays reserved while its leader (rank 0) is not reaped.
            let leader_alive = self
                .children
                .iter()
                .any(|c| c.job == i && c.rank == 0 && !c.reaped);
            if leader_alive && j.pgid > 0 {
                let _ = sys::killpg(j.pgid, sig);
            }
        }
    }

    /// Report job `job`'s (new) failure and start killing every job, unless recovery
    /// lets the others run on.
    fn begin_kill(&mut self, job: usize) {
        if self.failed.is_some() {
            return; // a consequence of the failure already being acted on
        }
        let Some((cause, ending)) = self
            .jobs
            .get(job)
            .and_then(|j| j.sup.last().cloned().map(|c| (c, j.sup.ending())))
        else {
            return;
        };
        if !ending {
            self.first_failed.get_or_insert(job);
            self.report_tolerated(job, &cause);
            return;
        }
        self.failed = Some(job);
        let rank = match &cause {
            Cause::RankExit { rank, .. }
            | Cause::NoFinalize { rank, .. }
            | Cause::Lost { rank }
            | Cause::Abort { rank, .. }
            | Cause::Launch { rank, .. } => Some(*rank),
            Cause::Timeout(_) | Cause::Interrupted(_) | Cause::Node { .. } => None,
        };
        let mut msg = match self.jobs.get(job) {
            Some(j) if job > 0 => format!("spawned job {}: {cause}", j.layout.nspace),
            _ => cause.to_string(),
        };
        if let Some(c) =
            rank.and_then(|r| self.children.iter().find(|c| c.job == job && c.rank == r))
        {
            msg.push_str(&format!(" (pid {}, {})", c.pid, c.program));
        }
        let running = self.nrunning();
        if running > 0 {
            msg.push_str(&format!(
                "; killing the job{} ({running} rank{} still running)",
                if self.jobs.len() > 1 { "s" } else { "" },
                if running == 1 { "" } else { "s" }
            ));
        }
        self.say(&msg);
        // Connected jobs end because a process ended without synchronizing: say so.
        let unsynced = matches!(cause, Cause::NoFinalize { .. } | Cause::Lost { .. });
        if unsynced && self.jobs.len() > 1 {
            if let Some(server) = self.server.clone() {
                for j in &self.jobs {
                    let src = ProcId::new(j.layout.nspace.clone(), pmix_sys::PMIX_RANK_WILDCARD);
                    let info =
                        Info::new(ak::PMIX_EVENT_AFFECTED_PROC, Value::Proc(Some(src.clone())))
                            .into_iter()
                            .collect();
                    server.notify(
                        pmix_sys::PMIX_ERR_JOB_TERM_WO_SYNC,
                        &src,
                        pmix_sys::PMIX_RANGE_SESSION,
                        info,
                    );
                }
            }
        }
        let sig = match cause {
            Cause::Interrupted(s) => s,
            _ => libc::SIGTERM,
        };
        if running > 0 {
            self.signal_jobs(None, sig);
            self.kill_at = Some(Instant::now() + self.cfg.grace);
        }
    }

    /// With recovery: say that a rank failed and that the others run on.
    fn report_tolerated(&mut self, job: usize, cause: &Cause) {
        let mut msg = match self.jobs.get(job) {
            Some(j) if job > 0 => format!("spawned job {}: {cause}", j.layout.nspace),
            _ => cause.to_string(),
        };
        let rank = match cause {
            Cause::RankExit { rank, .. }
            | Cause::NoFinalize { rank, .. }
            | Cause::Lost { rank } => Some(*rank),
            _ => None,
        };
        if let Some(c) =
            rank.and_then(|r| self.children.iter().find(|c| c.job == job && c.rank == r))
        {
            msg.push_str(&format!(" (pid {}, {})", c.pid, c.program));
        }
        let running = self.nrunning();
        msg.push_str(&format!(
            "; continuing (--enable-recovery), {running} rank{} still running",
            if running == 1 { "" } else { "s" }
        ));
        self.say(&msg);
    }

    fn kill_hard(&mut self) {
        if !self.killed_hard {
            self.killed_hard = true;
            self.kill_at = None;
            self.signal_jobs(None, libc::SIGKILL);
        }
    }

    fn handle_events(&mut self) {
        for ev in self.events.drain() {
            match ev {
                JobEvent::Connected(p) => {
                    let Some(j) = self.job_of(&p.nspace) else {
                        continue;
                    };
                    if self
                        .jobs
                        .get_mut(j)
                        .is_some_and(|x| x.sup.connected(p.rank))
                    {
                        self.begin_kill(j);
                    }
                }
                JobEvent::Finalized(p) => {
                    if let Some(j) = self.job_of(&p.nspace) {
                        if let Some(x) = self.jobs.get_mut(j) {
                            x.sup.finalized(p.rank);
                        }
                        self.settle_exit(j, p.rank);
                    }
                }
                JobEvent::Lost(p) => {
                    if let Some(j) = self.job_of(&p.nspace) {
                        if let Some(x) = self.jobs.get_mut(j) {
                            x.sup.conn_closed(p.rank);
                        }
                        self.lost.push((j, p.rank, Instant::now() + LOST_GRACE));
                        self.settle_exit(j, p.rank);
                    }
                }
                JobEvent::Abort {
                    proc_,
                    status,
                    msg,
                    targets,
                    done,
                } if !targets.is_empty()
                    && !targets
                        .iter()
                        .any(|t| pmix_core::event::proc_matches(t, &proc_)) =>
                {
                    // An abort of other processes: they end, the caller goes on.
                    let n = self.end_on_request(&targets, libc::SIGKILL);
                    let mut line =
                        format!("{proc_} called PMIx_Abort({status}) on {n} other processes");
                    if !msg.is_empty() {
                        line.push_str(&format!(": {msg}"));
                    }
                    self.say(&line);
                    done(Ok(()));
                }
                JobEvent::Abort {
                    proc_,
                    status,
                    msg,
                    done,
                    ..
                } => {
                    if let Some(j) = self.job_of(&proc_.nspace) {
                        if self
                            .jobs
                            .get_mut(j)
                            .is_some_and(|x| x.sup.abort(proc_.rank, status, msg))
                        {
                            self.begin_kill(j);
                        }
                    }
                    // The job is being killed; release the caller of PMIx_Abort.
                    done(Ok(()));
                }
                JobEvent::Spawn {
                    requester,
                    job_info,
                    apps,
                    done,
                } => {
                    let r = self.spawn_job(requester, &job_info, &apps);
                    done(r);
                }
                JobEvent::JobControl {
                    requester,
                    targets,
                    directives,
                    done,
                } => {
                    let r = self.job_control(&requester, targets, &directives);
                    done(r);
                }
                JobEvent::NodeFailed { node, msg } => {
                    if self
                        .jobs
                        .get_mut(0)
                        .is_some_and(|j| j.sup.node_failed(node, msg))
                    {
                        self.begin_kill(0);
                    }
                }
            }
        }
    }

    /// Signal the running ranks `targets` name (wildcards: whole jobs) and mark them
    /// as ending on request; returns how many were signalled.
    fn end_on_request(&mut self, targets: &[ProcId], sig: i32) -> usize {
        let mut n = 0;
        for c in &mut self.children {
            let Some(j) = self.jobs.get(c.job) else {
                continue;
            };
            let p = ProcId::new(j.layout.nspace.clone(), c.rank);
            if c.reaped
                || !targets
                    .iter()
                    .any(|t| pmix_core::event::proc_matches(t, &p))
            {
                continue;
            }
            c.on_request = true;
            if let Err(e) = sys::kill(c.pid, sig) {
                log::warn!("kill {} ({p}): {e}", c.pid);
            }
            n += 1;
        }
        n
    }

    /// `PMIx_Job_control` from `requester`: `PMIX_JOB_CTRL_KILL` (SIGKILL),
    /// `PMIX_JOB_CTRL_TERMINATE` (SIGTERM) or `PMIX_JOB_CTRL_SIGNAL` (that signal) to
    /// `targets` (empty: the requester's namespace). Ranks killed or terminated this way
    /// do not fail the jobs.
    fn job_control(
        &mut self,
        requester: &ProcId,
        targets: Vec<ProcId>,
        directives: &[Info],
    ) -> pmix_core::Result<Vec<Info>> {
        let targets = if targets.is_empty() {
            vec![ProcId::new(
                requester.nspace.clone(),
                pmix_sys::PMIX_RANK_WILDCARD,
            )]
        } else {
            targets
        };
        let has = |k: &str| {
            directives
                .iter()
                .any(|i| i.key.as_str() == k && i.value.is_true())
        };
        if has(ak::PMIX_JOB_CTRL_KILL) || has(ak::PMIX_JOB_CTRL_TERMINATE) {
            let sig = if has(ak::PMIX_JOB_CTRL_KILL) {
                libc::SIGKILL
            } else {
                libc::SIGTERM
            };
            let n = self.end_on_request(&targets, sig);
            log::debug!("{requester} ended {n} processes by job control");
            return Ok(Vec::new());
        }
        if let Some(sig) = directives
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_JOB_CTRL_SIGNAL)
            .and_then(|i| match i.value {
                Value::Int(s) | Value::Int32(s) => Some(s),
                _ => None,
            })
        {
            for c in &self.children {
                let Some(j) = self.jobs.get(c.job) else {
                    continue;
                };
                let p = ProcId::new(j.layout.nspace.clone(), c.rank);
                if !c.reaped
                    && targets
                        .iter()
                        .any(|t| pmix_core::event::proc_matches(t, &p))
                {
                    sys::kill(c.pid, sig).map_err(|e| {
                        pmix_core::Error::new(pmix_sys::PMIX_ERROR, format!("kill {p}: {e}"))
                    })?;
                }
            }
            return Ok(Vec::new());
        }
        Err(pmix_core::Error::not_supported(
            "pmixrun's job control kills, terminates or signals processes only",
        ))
    }

    /// Start a job for a rank's `PMIx_Spawn`: lay it out, fork it, register it and
    /// release it. Ranks that cannot be started fail the spawn (the job is reaped and
    /// the caller gets `PMIX_ERR_JOB_FAILED_TO_LAUNCH`), not the session.
    fn spawn_job(
        &mut self,
        requester: ProcId,
        job_info: &[Info],
        apps: &[pmix_core::App],
    ) -> pmix_core::Result<Nspace> {
        let Some(server) = self.server.clone() else {
            return Err(pmix_core::Error::not_supported(
                "this launcher does not spawn",
            ));
        };
        if self.failed.is_some() {
            return Err(pmix_core::Error::new(
                pmix_sys::PMIX_ERR_JOB_TERMINATED,
                "the jobs are being killed",
            ));
        }
        let parent_job = self.job_of(&requester.nspace).unwrap_or(0);
        let (first, parent_wdir) = match (self.jobs.first(), self.jobs.get(parent_job)) {
            (Some(f), Some(p)) => (
                f.layout.clone(),
                p.layout.apps.first().map(|a| a.wdir.clone()),
            ),
            _ => return Err(pmix_core::Error::bad_param("no job to spawn from")),
        };
        let nspace = Nspace::new(format!("{}.{}", first.nspace, self.jobs.len()))?;
        let base_path = self
            .cfg
            .base_env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone());
        let plan = crate::spawn::plan(
            &nspace,
            &first,
            parent_wdir.as_deref(),
            base_path.as_deref(),
            apps,
        )?;
        let n = plan.ranks.len();
        let job = self.fork_job(&plan.layout, plan.ranks, n).map_err(|e| {
            pmix_core::Error::new(pmix_sys::PMIX_ERR_JOB_FAILED_TO_LAUNCH, e.to_string())
        })?;
        if let Some(j) = self.jobs.get_mut(job) {
            j.parent = Some(requester.clone());
            j.notify_end = crate::spawn::flag(job_info, ak::PMIX_NOTIFY_COMPLETION);
            let all = crate::spawn::flag(job_info, ak::PMIX_NOTIFY_PROC_TERMINATION);
            let abnormal = crate::spawn::flag(job_info, ak::PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION);
            j.notify_procs = all || abnormal;
            j.abnormal_only = abnormal && !all;
            j._scratch = plan.scratch;
        }
        let failed = match self.start_job(job, &*server) {
            Ok(f) => f,
            Err(e) => vec![(0, e)],
        };
        if let Some((rank, what)) = failed.into_iter().next() {
            self.say(&format!(
                "spawn by {requester} failed: rank {rank} of {nspace} could not be started: {what}"
            ));
            self.signal_jobs(Some(job), libc::SIGKILL);
            self.reap_blocking(Some(job));
            if let Some(j) = self.jobs.get_mut(job) {
                j.ended = true;
            }
            return Err(pmix_core::Error::new(
                pmix_sys::PMIX_ERR_JOB_FAILED_TO_LAUNCH,
                what,
            ));
        }
        log::debug!("{requester} spawned {nspace} ({n} ranks)");
        Ok(nspace)
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
                    exits.push((c.job, c.rank, exit, c.on_request));
                }
                Ok(None) => {}
                Err(e) => {
                    log::warn!("waitpid {}: {e}", c.pid);
                    c.reaped = true;
                    exits.push((c.job, c.rank, ExitKind::Signal(libc::SIGKILL), c.on_request));
                }
            }
        }
        if !exits.is_empty() {
            // The server queues a rank's Connected and Finalized events before it answers
            // its PMIx_Finalize, so they are queued by the time the process can have
            // exited, but maybe after the last drain: drain again before judging. (The
            // exit-verdict wait below covers only ranks already known to be connected; a
            // rank that connected, finalized and exited since the last drain would be
            // judged as one that never called PMIx_Init: seen with 1000 ranks under load.)
            self.handle_events();
        }
        for (job, rank, exit, on_request) in exits {
            log::debug!("job {job} rank {rank} ended: {exit:?}");
            if let Some(j) = self.jobs.get(job) {
                self.reaped.push(ProcId::new(j.layout.nspace.clone(), rank));
            }
            self.proc_ended(job, rank, exit);
            if on_request {
                if let Some(j) = self.jobs.get_mut(job) {
                    j.sup.ended_on_request(rank, exit);
                }
                continue;
            }
            if self
                .jobs
                .get(job)
                .is_some_and(|j| j.sup.exit_needs_server(rank, exit))
            {
                self.exits_pending.push((
                    job,
                    rank,
                    exit,
                    Instant::now() + self.cfg.exit_verdict_wait,
                ));
                continue;
            }
            self.judge_exit(job, rank, exit);
        }
        self.jobs_ended();
    }

    fn judge_exit(&mut self, job: usize, rank: Rank, exit: ExitKind) {
        if self
            .jobs
            .get_mut(job)
            .is_some_and(|j| j.sup.exited(rank, exit))
        {
            self.begin_kill(job);
        }
    }

    /// The server has the last word on `rank`'s connection: judge its exit if pending.
    fn settle_exit(&mut self, job: usize, rank: Rank) {
        if let Some(i) = self
            .exits_pending
            .iter()
            .position(|(j, r, _, _)| *j == job && *r == rank)
        {
            let (_, _, exit, _) = self.exits_pending.swap_remove(i);
            self.judge_exit(job, rank, exit);
        }
    }

    /// A rank of a spawned job ended: tell the spawner if it asked
    /// (`PMIX_EVENT_PROC_TERMINATED`, with the rank and its exit code).
    fn proc_ended(&self, job: usize, rank: Rank, exit: ExitKind) {
        let Some(j) = self.jobs.get(job) else { return };
        let code = match exit {
            ExitKind::Code(c) => c,
            ExitKind::Signal(s) => 128 + s,
        };
        if !j.notify_procs || (j.abnormal_only && code == 0) {
            return;
        }
        let (Some(server), Some(parent)) = (&self.server, &j.parent) else {
            return;
        };
        let who = ProcId::new(j.layout.nspace.clone(), rank);
        let range = pmix_core::value::DataArray {
            dtype: pmix_sys::PMIX_PROC,
            items: vec![Value::Proc(Some(parent.clone()))],
        };
        let info: Vec<Info> = [
            (ak::PMIX_EVENT_AFFECTED_PROC, Value::Proc(Some(who.clone()))),
            (ak::PMIX_EXIT_CODE, Value::Int(code)),
            (
                ak::PMIX_EVENT_CUSTOM_RANGE,
                Value::DataArray(Box::new(range)),
            ),
        ]
        .into_iter()
        .filter_map(|(k, v)| Info::new(k, v).ok())
        .collect();
        server.notify(
            pmix_sys::PMIX_EVENT_PROC_TERMINATED,
            &who,
            pmix_sys::PMIX_RANGE_CUSTOM,
            info,
        );
    }

    /// Spawned jobs whose ranks have all ended: tell the spawner if it asked.
    fn jobs_ended(&mut self) {
        for i in 1..self.jobs.len() {
            let done = self.children.iter().all(|c| c.job != i || c.reaped);
            let Some(j) = self.jobs.get_mut(i) else {
                continue;
            };
            if j.ended || !done {
                continue;
            }
            j.ended = true;
            let ns = j.layout.nspace.clone();
            if let Some(f) = self.on_job_end.as_mut() {
                f(&ns);
            }
            let Some(j) = self.jobs.get(i) else { continue };
            let status = j.sup.exit_status();
            if status != 0 && self.failed.is_none() {
                continue;
            }
            if j.notify_end {
                let src = ProcId::new(j.layout.nspace.clone(), pmix_sys::PMIX_RANK_WILDCARD);
                let parent = j.parent.clone();
                let mut info: Vec<Info> = Vec::new();
                for (k, v) in [
                    (ak::PMIX_EVENT_AFFECTED_PROC, Value::Proc(Some(src.clone()))),
                    (ak::PMIX_JOB_TERM_STATUS, Value::Status(status)),
                    (ak::PMIX_NSPACE, Value::string(j.layout.nspace.as_str())),
                ] {
                    if let Ok(i) = Info::new(k, v) {
                        info.push(i);
                    }
                }
                if let Some(p) = parent {
                    let range = pmix_core::value::DataArray {
                        dtype: pmix_sys::PMIX_PROC,
                        items: vec![Value::Proc(Some(p))],
                    };
                    if let Ok(i) = Info::new(
                        ak::PMIX_EVENT_CUSTOM_RANGE,
                        Value::DataArray(Box::new(range)),
                    ) {
                        info.push(i);
                    }
                }
                if let Some(server) = &self.server {
                    server.notify(
                        pmix_sys::PMIX_EVENT_JOB_END,
                        &src,
                        pmix_sys::PMIX_RANGE_CUSTOM,
                        info,
                    );
                }
            }
        }
    }

    fn handle_signals(&mut self) {
        let Some(sigs) = self.signals.as_ref().map(|s| s.drain()) else {
            return;
        };
        for sig in sigs {
            if self.jobs.get_mut(0).is_some_and(|j| j.sup.interrupted(sig)) {
                self.begin_kill(0);
            } else if self.nrunning() > 0 {
                self.say(&format!(
                    "received {} while the job is being killed; sending SIGKILL",
                    crate::supervisor::signal_name(sig)
                ));
                self.kill_hard();
            }
        }
    }

    /// Read what is ready on one output pipe; returns false at end of file.
    fn pump(
        fd: BorrowedFd<'_>,
        stream: &mut Stream,
        sink: &mut dyn Write,
        mut raw: Option<&mut Vec<u8>>,
    ) -> bool {
        let mut buf = [0u8; 65536];
        let mut out = Vec::new();
        let open = loop {
            match sys::read(fd, &mut buf) {
                Ok(0) => break false,
                Ok(n) => {
                    let got = buf.get(..n).unwrap_or(&[]);
                    if let Some(r) = raw.as_deref_mut() {
                        r.extend_from_slice(got);
                    }
                    stream.feed(got, &mut out);
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

    /// Supervise every job to its end; returns pmixrun's exit status. `server` is told
    /// of every rank reaped (it can never take part in anything again).
    pub fn run(&mut self, server: &dyn JobServer) -> i32 {
        let started = Instant::now();
        let deadline = self.cfg.timeout.map(|t| started + t);
        let mut drain_until: Option<Instant> = None;
        loop {
            self.handle_events();
            self.reap();
            for p in std::mem::take(&mut self.reaped) {
                server.deregister_client(&p);
            }
            self.handle_signals();
            let now = Instant::now();
            let (due, pending): (Vec<_>, Vec<_>) =
                self.lost.drain(..).partition(|(_, _, at)| now >= *at);
            self.lost = pending;
            for (job, rank, _) in due {
                if self.jobs.get_mut(job).is_some_and(|j| j.sup.lost(rank)) {
                    self.begin_kill(job);
                }
            }
            let (due, pending): (Vec<_>, Vec<_>) = self
                .exits_pending
                .drain(..)
                .partition(|(_, _, _, at)| now >= *at);
            self.exits_pending = pending;
            for (job, rank, exit, _) in due {
                log::warn!(
                    "rank {rank} exited; the server did not report its finalize or its \
                     connection's end within {:.1} s",
                    self.cfg.exit_verdict_wait.as_secs_f64()
                );
                self.judge_exit(job, rank, exit);
            }
            if let (Some(d), Some(t)) = (deadline, self.cfg.timeout) {
                if now >= d
                    && self.nrunning() > 0
                    && self.jobs.get_mut(0).is_some_and(|j| j.sup.timed_out(t))
                {
                    self.begin_kill(0);
                }
            }
            if self.kill_at.is_some_and(|k| now >= k) && self.nrunning() > 0 {
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
            if self.nrunning() == 0 && self.exits_pending.is_empty() {
                let until = *drain_until.get_or_insert(now + DRAIN);
                if !outputs_open || now >= until {
                    break;
                }
            }

            // Wait for the next thing to happen.
            let mut pfds: Vec<BorrowedFd<'_>> = vec![self.events.fd()];
            pfds.extend(self.signals.iter().flat_map(|s| s.fds()));
            // A finalize the server reports for a pending exit does not wake the loop
            // (`Events::push_quiet`): look again every tick while one is pending.
            let mut need_tick = !self.exits_pending.is_empty();
            for c in &self.children {
                if let Some(o) = &c.stdout {
                    pfds.push(o.fd.as_fd());
                }
                if let Some(o) = &c.stderr {
                    pfds.push(o.fd.as_fd());
                }
                match &c.pidfd {
                    Some(p) => pfds.push(p.as_fd()),
                    None if !c.reaped => need_tick = true,
                    None => {}
                }
            }
            let next_lost = self
                .lost
                .iter()
                .map(|(_, _, at)| *at)
                .chain(self.exits_pending.iter().map(|(_, _, _, at)| *at))
                .min();
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
            let ready = match sys::poll_readable(&pfds, timeout_ms) {
                Ok(r) => r,
                Err(e) => {
                    log::warn!("poll: {e}");
                    std::thread::sleep(TICK);
                    Vec::new()
                }
            };
            drop(pfds);
            for c in &mut self.children {
                let source = self
                    .jobs
                    .get(c.job)
                    .map(|j| ProcId::new(j.layout.nspace.clone(), c.rank));
                for (slot, sink, channel) in [
                    (
                        &mut c.stdout,
                        &mut self.sinks.stdout,
                        pmix_sys::PMIX_FWD_STDOUT_CHANNEL,
                    ),
                    (
                        &mut c.stderr,
                        &mut self.sinks.stderr,
                        pmix_sys::PMIX_FWD_STDERR_CHANNEL,
                    ),
                ] {
                    let Some(o) = slot else { continue };
                    if !ready.contains(&o.fd.as_raw_fd()) {
                        continue;
                    }
                    let fwd = match (&self.iof, &self.server, &source) {
                        (Some(subs), Some(srv), Some(src)) if subs.wants(src, channel) => {
                            Some((srv, src))
                        }
                        _ => None,
                    };
                    let mut raw = Vec::new();
                    let open = Self::pump(
                        o.fd.as_fd(),
                        &mut o.stream,
                        sink.as_mut(),
                        fwd.is_some().then_some(&mut raw),
                    );
                    if let Some((srv, src)) = fwd {
                        if !raw.is_empty() {
                            srv.iof_deliver(src, channel, raw, Vec::new());
                        }
                        if !open {
                            srv.iof_deliver(src, channel, Vec::new(), crate::iof::complete());
                        }
                    }
                    if !open {
                        *slot = None;
                    }
                }
            }
        }
        // Output still held open by descendants is dropped with the pipes.
        self.exit_status()
    }

    /// pmixrun's exit status: 0, or that of the failure acted on (with recovery, of
    /// the first rank failure).
    fn exit_status(&self) -> i32 {
        self.failed
            .or(self.first_failed)
            .and_then(|j| self.jobs.get(j))
            .or_else(|| self.jobs.first())
            .map_or(0, |j| j.sup.exit_status())
    }

    /// Forget the jobs on the server (after [`Launcher::run`]).
    pub fn finish(&mut self, server: &dyn JobServer) {
        for c in &self.children {
            if let Some(j) = self.jobs.get(c.job) {
                server.deregister_client(&ProcId::new(j.layout.nspace.clone(), c.rank));
            }
        }
        for j in &self.jobs {
            server.deregister_nspace(&j.layout.nspace);
        }
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
        deregs: Mutex<Vec<ProcId>>,
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
        fn deregister_client(&self, p: &ProcId) {
            self.deregs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(p.clone());
        }
        fn deregister_nspace(&self, _: &Nspace) {}
    }

    struct Run {
        status: i32,
        out: String,
        err: String,
        elapsed: Duration,
        infos: Vec<Info>,
        pids: Vec<Pid>,
        /// Ranks deregistered while the job ran, in order.
        deregs: Vec<Rank>,
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
        launch_with(plans, tag, timeout, false, fake)
    }

    fn launch_with(
        plans: Vec<RankPlan>,
        tag: bool,
        timeout: Option<f64>,
        recovery: bool,
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
            exit_verdict_wait: Duration::from_secs(1),
            recovery,
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
            Ok(()) => l.run(&server),
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
        let deregs = server
            .deregs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|p| p.rank)
            .collect();
        Run {
            status,
            out: out.text(),
            err: err.text(),
            elapsed: t0.elapsed(),
            infos,
            pids,
            deregs,
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
            deregs: Mutex::new(Vec::new()),
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
    fn with_recovery_a_failed_rank_is_reported_and_the_others_run_on() {
        let hook: Hook = Box::new(|p, ev| ev.push(JobEvent::Connected(p.clone())));
        let plans = vec![
            sh("sleep 0.5; exit 0"),
            sh("exit 3"),
            sh("kill -KILL $$"),
            sh("sleep 0.5; exit 0"),
        ];
        let r = launch_with(plans, false, Some(20.0), true, fake(Some(hook)));
        // Every failure is reported, none ends the job, the first decides the status.
        assert!(r.err.contains("rank 1 exited with status 3"), "{}", r.err);
        assert!(r.err.contains("rank 2 was killed by SIGKILL"), "{}", r.err);
        assert!(
            r.err.contains("rank 0 called PMIx_Init but exited without"),
            "{}",
            r.err
        );
        assert!(
            r.err.contains("continuing (--enable-recovery)"),
            "{}",
            r.err
        );
        assert!(!r.err.contains("killing the job"), "{}", r.err);
        assert!(r.elapsed >= Duration::from_millis(500), "{:?}", r.elapsed);
        assert!([3, 128 + libc::SIGKILL].contains(&r.status), "{}", r.status);
        // Each rank was deregistered as soon as it was reaped: the two that failed at
        // once before the two that slept.
        assert_eq!(r.deregs.len(), 4, "{:?}", r.deregs);
        let mut first: Vec<Rank> = r.deregs.iter().take(2).copied().collect();
        first.sort();
        assert_eq!(first, vec![1, 2]);
        // A timeout still ends the job.
        let r = launch_with(
            vec![sh("exit 2"), sh("sleep 30")],
            false,
            Some(1.0),
            true,
            fake(None),
        );
        assert_eq!(r.status, 2, "{}", r.err);
        assert!(r.err.contains("timed out"), "{}", r.err);
        assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
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
                    proc_: p.clone(),
                    status: 5,
                    msg: "giving up".into(),
                    targets: vec![],
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
        // The server never reports rank 0's connection's end: judged after the wait.
        let hook: Hook = Box::new(|p, ev| ev.push(JobEvent::Connected(p.clone())));
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
    fn finalize_reported_after_the_exit_still_counts() {
        // A busy server reads a rank's finalize only after the rank (whose client gave up
        // waiting for the answer) has exited: the exit waits for the server's word.
        let hook: Hook = Box::new(|p, ev| {
            ev.push(JobEvent::Connected(p.clone()));
            let (p, ev) = (p.clone(), ev.clone());
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(400));
                ev.push(JobEvent::Finalized(p));
            });
        });
        let r = launch(
            vec![sh("exit 0"), sh("exit 0")],
            false,
            Some(20.0),
            fake(Some(hook)),
        );
        assert_eq!(r.status, 0, "{}", r.err);
    }

    #[test]
    fn lost_reported_after_a_clean_exit_fails_the_job() {
        let hook: Hook = Box::new(|p, ev| {
            ev.push(JobEvent::Connected(p.clone()));
            let (p, ev) = (p.clone(), ev.clone());
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(400));
                ev.push(JobEvent::Lost(p));
            });
        });
        let r = launch(vec![sh("exit 0")], false, Some(20.0), fake(Some(hook)));
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
            ev.push(JobEvent::Connected(p.clone()));
            if p.rank == 1 {
                ev.push(JobEvent::Lost(p.clone()));
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
            ev.push(JobEvent::Connected(p.clone()));
            ev.push(JobEvent::Lost(p.clone()));
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
            ev.push(JobEvent::Connected(p.clone()));
            ev.push(JobEvent::Finalized(p.clone()));
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
                deregs: Mutex::new(Vec::new()),
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
            deregs: Mutex::new(Vec::new()),
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
