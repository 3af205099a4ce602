//! `pmixrun`: launches a job on this machine and hosts its PMIx server.
//!
//! A path through the program: [`cli`] reads the command line; [`job`] lays the job
//! out and builds what is registered with the server ([`keys`] spells the attribute
//! keys); [`scratch`] makes the job's directories; [`launch`] forks the ranks (through
//! [`sys`], the only unsafe code), registers them, releases them and supervises them,
//! with [`supervisor`] deciding the job's fate, [`output`] forwarding what the ranks
//! print and [`host`] turning the server's upcalls into events. With `--nodes K` the
//! server part is [`node`]: one daemon per simulated node (pmixrun itself, started as
//! `pmixrun --node-daemon`), joined by the front end.
#![deny(unsafe_code)]

mod cli;
mod cred;
mod host;
mod iof;
mod job;
mod keys;
mod launch;
mod node;
mod output;
mod pubsub;
mod scratch;
mod spawn;
mod supervisor;
#[allow(unsafe_code)]
mod sys;

use cli::{Command, Options};
use host::{Events, JobHost};
use job::{AppLayout, Layout};
use launch::{LaunchConfig, Launcher, RankPlan, Sinks};
use pmix_core::server::{Server, ServerConfig};
use pmix_core::{params, Nspace, ProcId};
use scratch::Scratch;
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Time between SIGTERM and SIGKILL when the job is killed.
const GRACE: Duration = Duration::from_secs(3);

fn main() {
    init_logger();
    let code = real_main();
    std::process::exit(code);
}

fn real_main() -> i32 {
    // A node daemon of the multi-node bench (started by the front end only).
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == "--node-daemon")
    {
        return node::daemon::run();
    }
    let mut args = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => args.push(s),
            Err(a) => {
                eprintln!("pmixrun: argument {a:?} is not valid UTF-8");
                return 2;
            }
        }
    }
    // `-x VAR` exports whatever variable the user names: not a parameter pmixrun
    // honours, so not one of pmix_core::params.
    match cli::parse(&args, &|name| std::env::var(name).ok()) {
        Err(e) => {
            eprintln!("pmixrun: {e}\nTry 'pmixrun --help' for more information.");
            2
        }
        Ok(Command::Help) => {
            print!("{}", cli::HELP);
            0
        }
        Ok(Command::Version) => {
            println!("pmixrun (pmix-rs) {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Ok(Command::Run(opts)) => run(opts),
    }
}

/// The environment every rank starts from: pmixrun's own, without the variables that
/// tie a process to some other PMIx server (an outer job's `PMIX_*`, except the
/// user's `PMIX_DEBUG`, `PMIX_MCA_*` and debug-dump (`PMIX_RS_DUMP_*`) settings), plus
/// the `-x` exports.
fn base_env(
    vars: impl Iterator<Item = (OsString, OsString)>,
    exports: &[(String, String)],
) -> Vec<(OsString, OsString)> {
    let keep = |k: &OsString| {
        let k = k.to_string_lossy();
        !k.starts_with("PMIX_")
            || k == "PMIX_DEBUG"
            || k.starts_with("PMIX_MCA_")
            || k == pmix_core::params::DUMP_SIGNAL
            || k == pmix_core::params::DUMP_DIR
    };
    let mut env: Vec<(OsString, OsString)> = vars
        .filter(|(k, _)| keep(k))
        .filter(|(k, _)| {
            !exports
                .iter()
                .any(|(e, _)| k.to_string_lossy() == e.as_str())
        })
        .collect();
    env.extend(
        exports
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    env
}

/// Where the job's scratch tree goes: `$TMPDIR` when set; otherwise `/dev/shm` when it
/// is a tmpfs we may write to, else `/tmp`. The tree holds only directories and the
/// server's socket, and on a disk file system (ext4 mounted with `discard`, say) making
/// and removing its seven directories costs milliseconds of `pmixrun -n 2`'s run
/// (docs/PERF.md); in memory it costs a few tens of microseconds.
fn scratch_base(tmpdir: Option<OsString>, is_tmpfs: impl Fn(&Path) -> bool) -> PathBuf {
    if let Some(t) = tmpdir.filter(|t| !t.is_empty()) {
        return PathBuf::from(t);
    }
    let shm = Path::new("/dev/shm");
    if is_tmpfs(shm) {
        shm.to_path_buf()
    } else {
        PathBuf::from("/tmp")
    }
}

fn absolute(p: &Path, cwd: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

fn run(opts: Options) -> i32 {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("pmixrun: cannot read the current directory: {e}");
            return 1;
        }
    };
    // Lay the job out: programs resolved before anything is started.
    let (apps, plans, first) = match plan_apps(&opts, &cwd) {
        Ok(p) => p,
        Err(status) => return status,
    };

    let hostname = match sys::hostname() {
        Ok(h) => h,
        Err(e) => {
            eprintln!("pmixrun: cannot read the host name: {e}");
            return 1;
        }
    };
    let pid = std::process::id();
    // Not `pmixrun.…`: keys beginning with `pmix` are reserved (never waited for), and
    // programs name keys after their namespace (OpenPMIx's dmodex example does).
    let nspace = match Nspace::new(format!("job.{hostname}.{pid}")) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("pmixrun: cannot name the job: {e}");
            return 1;
        }
    };
    if let Err(e) = sys::raise_fd_limit() {
        log::debug!("cannot raise the descriptor limit: {e}");
    }
    let base = scratch_base(params::get_os(params::TMPDIR), sys::writable_tmpfs);
    let (uid, _) = sys::uid_gid();
    scratch::remove_stale(&base, uid, pid);
    let scratch = match Scratch::create(&base, uid, pid, nspace.as_str(), job::NODE_ID, first) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pmixrun: cannot create the job's scratch directory: {e}");
            return 1;
        }
    };
    let layout = Layout {
        nspace: nspace.clone(),
        nodes: job::nodes(&hostname, first, opts.nodes),
        hostname,
        session_id: pid,
        apps,
        ncpus: sys::cpu_count(),
        dirs: scratch.dirs().clone(),
    };

    let signals = match sys::signal_pipes(&[libc::SIGINT, libc::SIGTERM, libc::SIGHUP]) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("pmixrun: cannot install signal handlers: {e}");
            return 1;
        }
    };
    let events = match Events::new() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("pmixrun: cannot create the event queue: {e}");
            return 1;
        }
    };
    let cfg = LaunchConfig {
        tag_output: opts.tag_output,
        timeout: opts.timeout,
        grace: GRACE,
        base_env: base_env(std::env::vars_os(), &opts.exports),
        stdin_to_rank0: !std::io::stdin().is_terminal(),
        exit_verdict_wait: launch::EXIT_VERDICT_WAIT,
        recovery: opts.recovery,
    };
    let sinks = Sinks {
        stdout: Box::new(std::io::stdout()),
        stderr: Box::new(std::io::stderr()),
    };
    let mut launcher = match Launcher::spawn(&layout, plans, cfg, sinks, events.clone(), signals) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pmixrun: cannot start the ranks: {e}");
            return 1;
        }
    };
    if layout.nodes.len() > 1 {
        let status = run_nodes(&layout, &opts, &scratch, &mut launcher, events);
        drop(launcher);
        drop(scratch);
        return status;
    }

    let status = serve_one_node(&layout, &opts, &scratch, launcher, events);
    drop(scratch);
    status
}

/// The ranks' plans and the applications' layout, programs resolved against `PATH`
/// before anything starts; `Err` is pmixrun's exit status (127: a program not found),
/// said on stderr.
fn plan_apps(opts: &Options, cwd: &Path) -> Result<(Vec<AppLayout>, Vec<RankPlan>, u32), i32> {
    let path_var = std::env::var_os("PATH");
    let mut apps = Vec::new();
    let mut plans = Vec::new();
    let mut first = 0u32;
    for (appnum, app) in (0u32..).zip(&opts.apps) {
        let Some(prog) = launch::resolve_program(&app.program, path_var.as_deref()) else {
            if app.program.contains('/') {
                eprintln!("pmixrun: {}: not an executable file", app.program);
            } else {
                eprintln!("pmixrun: {}: command not found", app.program);
            }
            return Err(127);
        };
        // The rank changes directory before exec, so relative paths must not depend on it.
        let prog = absolute(&prog, cwd);
        let wdir = app.wdir.as_ref().map(|w| absolute(Path::new(w), cwd));
        let mut argv = vec![app.program.clone()];
        argv.extend(app.args.iter().cloned());
        for _ in 0..app.nprocs {
            plans.push(RankPlan {
                path: prog.clone(),
                argv: argv.iter().map(OsString::from).collect(),
                wdir: wdir.clone(),
            });
        }
        apps.push(AppLayout {
            appnum,
            first,
            size: app.nprocs,
            argv,
            wdir: wdir.unwrap_or_else(|| cwd.to_path_buf()),
        });
        first += app.nprocs;
    }
    Ok((apps, plans, first))
}

/// The one-node job: start the PMIx server, register and release the ranks, supervise
/// them to their end, then close the server; returns pmixrun's exit status.
fn serve_one_node(
    layout: &Layout,
    opts: &Options,
    scratch: &Scratch,
    mut launcher: Launcher,
    events: Arc<Events>,
) -> i32 {
    let nspace = layout.nspace.clone();
    let server_id = match Nspace::new(format!("{nspace}.server")) {
        Ok(n) => ProcId::new(n, 0),
        Err(e) => {
            eprintln!("pmixrun: cannot name the server: {e}");
            return 1;
        }
    };
    let server_info = match server_info(layout, opts) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("pmixrun: cannot describe the server: {e}");
            return 1;
        }
    };
    let server_cfg = ServerConfig {
        id: server_id,
        tmpdir: Some(scratch.node_dir().to_path_buf()),
        info: server_info,
    };
    let store = pubsub::PubStore::new();
    let host = JobHost::with_store(nspace, events, store.clone());
    let iof_subs = host.iof_subs();
    let server = match Server::start(server_cfg, Arc::new(host)) {
        Ok(s) => {
            // pmixrun has no monitoring of its own: the server watches heartbeats.
            s.set_local_heartbeats(true);
            Arc::new(s)
        }
        Err(e) => {
            launcher.abandon();
            eprintln!("pmixrun: cannot start the PMIx server: {e}");
            return 1;
        }
    };
    for (name, members) in cli_psets(layout, opts) {
        if let Err(e) = server.define_process_set(&name, members) {
            log::warn!("cannot define process set {name}: {e}");
        }
    }
    if let Err(e) = launcher.start(&*server) {
        launcher.abandon();
        eprintln!("pmixrun: {e}");
        server.close_now();
        return 1;
    }
    launcher.serve_spawns(server.clone());
    launcher.forward_output(iof_subs);
    launcher.on_job_end(Box::new(move |ns| store.job_ended(ns)));
    let status = launcher.run(&*server);
    launcher.finish(&*server);
    // The launcher holds a reference to the server (for spawns): it goes first.
    drop(launcher);
    // pmixrun exits next: the server's progress thread is not waited for.
    match Arc::try_unwrap(server) {
        Ok(s) => s.finalize_at_exit(),
        Err(s) => s.close_now(),
    }
    status
}

/// The server's own attributes: this node's name as the job was registered with it,
/// no local output (pmixrun writes the ranks' output itself; the server only forwards it
/// to pullers), and tool support unless `--no-tools`.
fn server_info(layout: &Layout, opts: &Options) -> pmix_core::Result<Vec<pmix_core::Info>> {
    let mut v = vec![
        pmix_core::Info::new(
            keys::PMIX_HOSTNAME,
            pmix_core::Value::string(&layout.hostname),
        )?,
        pmix_core::Info::new(
            pmix_sys::attrs::keys::PMIX_IOF_LOCAL_OUTPUT,
            pmix_core::Value::Bool(false),
        )?,
    ];
    if !opts.no_tools {
        v.extend(pmix_core::Info::new(
            pmix_sys::attrs::keys::PMIX_SERVER_TOOL_SUPPORT,
            pmix_core::Value::Bool(true),
        ));
    }
    Ok(v)
}

/// The multi-node bench: start a daemon per node, register and release the ranks
/// through them, supervise the job, then stop the daemons.
/// Process sets named on the command line (`--pset`), one per application.
fn cli_psets(layout: &Layout, opts: &Options) -> Vec<(String, Vec<ProcId>)> {
    let mut sets = Vec::new();
    let mut first_rank = 0u32;
    for app in &opts.apps {
        if let Some(name) = &app.pset {
            let members = (first_rank..first_rank + app.nprocs)
                .map(|r| ProcId::new(layout.nspace.clone(), r))
                .collect();
            sets.push((name.clone(), members));
        }
        first_rank += app.nprocs;
    }
    sets
}

fn run_nodes(
    layout: &Layout,
    opts: &Options,
    scratch: &Scratch,
    launcher: &mut Launcher,
    events: Arc<Events>,
) -> i32 {
    let mut node_dirs = Vec::new();
    for n in &layout.nodes {
        match scratch.node_dir_for(n.id) {
            Ok(d) => node_dirs.push(d),
            Err(e) => {
                launcher.abandon();
                eprintln!("pmixrun: cannot create node {}'s directory: {e}", n.id);
                return 1;
            }
        }
    }
    let cfg = node::fabric::FabricConfig {
        node_dirs,
        node_env: opts.node_env.clone(),
        report_modex: opts.report_modex,
    };
    let fabric = match node::fabric::Fabric::start(layout, cfg, events) {
        Ok(f) => Arc::new(f),
        Err(e) => {
            launcher.abandon();
            eprintln!("pmixrun: {e}");
            return 1;
        }
    };
    for (name, members) in cli_psets(layout, opts) {
        fabric.define_process_set(&name, members);
    }
    if let Err(e) = launcher.start(&*fabric) {
        launcher.abandon();
        eprintln!("pmixrun: {e}");
        fabric.shutdown();
        return 1;
    }
    let store = fabric.pub_store();
    launcher.on_job_end(Box::new(move |ns| store.job_ended(ns)));
    launcher.serve_spawns(fabric.clone());
    launcher.forward_output(fabric.iof_subs());
    let status = launcher.run(&*fabric);
    launcher.finish(&*fabric);
    fabric.shutdown();
    status
}

/// A stderr logger, installed only when `PMIX_DEBUG` asks for one.
struct Logger;

impl log::Log for Logger {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= log::max_level()
    }
    fn log(&self, r: &log::Record<'_>) {
        if self.enabled(r.metadata()) {
            // One write per line, so lines of several writers to one pipe do not mix.
            let line = format!(
                "[pmixrun {} {}] {}: {}\n",
                std::process::id(),
                r.level(),
                r.target(),
                r.args()
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        }
    }
    fn flush(&self) {}
}

static LOGGER: Logger = Logger;

fn init_logger() {
    let Some(v) = params::get(params::PMIX_DEBUG) else {
        return;
    };
    let level = match v.to_ascii_lowercase().as_str() {
        "" | "0" | "no" | "off" => return,
        "error" => log::LevelFilter::Error,
        "warn" => log::LevelFilter::Warn,
        "info" => log::LevelFilter::Info,
        "trace" => log::LevelFilter::Trace,
        _ => log::LevelFilter::Debug,
    };
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(level);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_env_drops_an_outer_jobs_pmix_variables() {
        let vars = [
            ("PATH", "/bin"),
            ("PMIX_NAMESPACE", "outer"),
            ("PMIX_SERVER_URI41", "x"),
            ("PMIX_DEBUG", "1"),
            ("PMIX_MCA_gds", "hash"),
            ("A", "old"),
        ]
        .into_iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = base_env(
            vars,
            &[("A".into(), "new".into()), ("B".into(), "b".into())],
        );
        let got: Vec<String> = env
            .iter()
            .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
            .collect();
        assert_eq!(
            got,
            vec![
                "PATH=/bin",
                "PMIX_DEBUG=1",
                "PMIX_MCA_gds=hash",
                "A=new",
                "B=b"
            ]
        );
    }

    #[test]
    fn scratch_goes_to_tmpdir_else_dev_shm_else_tmp() {
        let yes = |_: &Path| true;
        let no = |_: &Path| false;
        assert_eq!(
            scratch_base(Some("/scratch".into()), yes),
            PathBuf::from("/scratch")
        );
        assert_eq!(
            scratch_base(Some("".into()), yes),
            PathBuf::from("/dev/shm")
        );
        assert_eq!(scratch_base(None, yes), PathBuf::from("/dev/shm"));
        assert_eq!(scratch_base(None, no), PathBuf::from("/tmp"));
    }

    #[test]
    fn relative_paths_become_absolute() {
        let cwd = Path::new("/cwd");
        assert_eq!(absolute(Path::new("a/b"), cwd), PathBuf::from("/cwd/a/b"));
        assert_eq!(absolute(Path::new("/x"), cwd), PathBuf::from("/x"));
    }
}
