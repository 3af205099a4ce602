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

use crate::host::Events;
use crate::job::{self, Layout};
use crate::output::Stream;
use crate::scratch::Scratch;
use crate::supervisor::Supervisor;
use crate::sys::{self, ChildFds, ChildSpec, EnvFits, ExitKind, Pid};
use pmix_core::server::Server;
use pmix_core::{Info, Nspace, ProcId, Rank, Value};
use pmix_sys::attrs::keys as ak;
use std::ffi::OsString;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod ending;
mod requests;
mod run;
#[cfg(test)]
mod tests;

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
/// At most this many released ranks may still hold their gate while they connect to
/// the server (one descriptor more each), so that 4 descriptors per rank suffice.
const RELEASE_WINDOW: usize = 64;

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
    /// pmixrun's end of the launch gate ([`sys::gate_pair`]) until its launch result is
    /// read: the descriptors pmixrun holds per running rank are its stdout and stderr
    /// pipes, its pidfd and its server connection.
    gate: Option<OwnedFd>,
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
    /// Its scratch directories (a spawned job's own): removed when its last rank has
    /// been reaped (else a rank spawning again and again runs out of directory names
    /// after 100 spawns and fills TMPDIR), at the latest with the launcher.
    scratch: Option<Scratch>,
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
            scratch: None,
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
            let (gate, gate_child) = sys::gate_pair()?;
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
                gate: gate_child.as_raw_fd(),
                err: gate_child.as_raw_fd(),
            };
            let pgid = self.jobs.get(job).map_or(0, |j| j.pgid);
            let pid = sys::spawn_gated(&mut spec, &fds, pgid)?;
            if let Some(j) = self.jobs.get_mut(job) {
                if j.pgid == 0 {
                    j.pgid = pid;
                }
            }
            // The child's ends, and its buffers, are the child's copy now.
            drop((out_w, err_w, gate_child));
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
                gate: Some(gate),
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
        let ranks: Vec<usize> = (0..self.children.len())
            .filter(|&i| self.children.get(i).is_some_and(|c| c.job == job))
            .collect();
        // Each released rank's gate ends at its exec (or carries why not); it is read a
        // window behind the releases, which bounds the gates still open.
        let mut failed = Vec::new();
        for (n, &i) in ranks.iter().enumerate() {
            self.release(i, &ns, server)?;
            if let Some(&done) = n.checked_sub(RELEASE_WINDOW).and_then(|k| ranks.get(k)) {
                failed.extend(self.launch_result(job, done));
            }
        }
        for &i in ranks
            .iter()
            .skip(ranks.len().saturating_sub(RELEASE_WINDOW))
        {
            failed.extend(self.launch_result(job, i));
        }
        Ok(failed)
    }

    /// Give child `i` its environment through its gate.
    fn release(&mut self, i: usize, ns: &Nspace, server: &dyn JobServer) -> Result<(), String> {
        let Some(c) = self.children.get_mut(i) else {
            return Ok(());
        };
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
        if let Some(gate) = &c.gate {
            sys::open_gate(gate, &block)
                .map_err(|e| format!("cannot release rank {}: {e}", c.rank))?;
        }
        Ok(())
    }

    /// Wait for released child `i` (of job `job`) to execute its program, closing its
    /// gate: `Some((rank, why))` if it could not.
    fn launch_result(&mut self, job: usize, i: usize) -> Option<(Rank, String)> {
        let gate = self.children.get_mut(i).and_then(|c| c.gate.take())?;
        let (step, e) = sys::child_launch_error(&gate)?;
        let c = self.children.get(i)?;
        let (rank, program) = (c.rank, &c.program);
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
        Some((rank, what))
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
