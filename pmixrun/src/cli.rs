//! Command-line parsing: pure, no I/O, no environment access (the caller passes the
//! variables `-x VAR` may read), so every rule is unit-tested.
//!
//! Grammar: `pmixrun [options] [-n N] prog [args] [: [-n M] [--wdir D] prog2 [args] ...]`.
//! Options are read until the first word that is not an option: that is the program, and
//! everything after it up to a lone `:` is its argument list. `-n`/`--wdir` belong to the
//! application whose segment they appear in; every other option is global and may appear
//! in any segment.

use std::fmt;
use std::time::Duration;

/// One application of the job (one `:`-separated segment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppSpec {
    /// Number of processes (`-n`, default 1).
    pub nprocs: u32,
    /// The program as given on the command line (resolved against `PATH` later).
    pub program: String,
    /// Arguments after the program (argv\[1..\]).
    pub args: Vec<String>,
    /// Working directory (`--wdir`), `None` = pmixrun's own.
    pub wdir: Option<String>,
    /// Process set its ranks form (`--pset`).
    pub pset: Option<String>,
}

/// Everything the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Applications in order; ranks are numbered consecutively across them.
    pub apps: Vec<AppSpec>,
    /// `--tag-output`: prefix every output line with `[nspace,rank]`.
    pub tag_output: bool,
    /// `--timeout S`: kill the job after this long.
    pub timeout: Option<Duration>,
    /// `-x VAR` / `-x VAR=val`, resolved to `(VAR, value)` pairs, in order.
    pub exports: Vec<(String, String)>,
    /// `--nodes K`: simulated nodes, one PMIx server each (the multi-node test bench).
    pub nodes: u32,
    /// `--node-env K:VAR=value`: set VAR in node K's server only (bench).
    pub node_env: Vec<(u32, String, String)>,
    /// `--report-modex`: print each fence's contributions and each direct modex (bench).
    pub report_modex: bool,
    /// `--no-tools`: the server refuses tools (by default it accepts them).
    pub no_tools: bool,
    /// `--enable-recovery`: a failing rank does not end the job.
    pub recovery: bool,
}

/// What `parse` decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Run a job.
    Run(Options),
    /// Print the help text and exit 0.
    Help,
    /// Print the version and exit 0.
    Version,
}

/// A command-line error (pmixrun prints it with a hint and exits 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The `--help` text.
pub const HELP: &str = "\
pmixrun: launch a PMIx job on this machine and host its PMIx server.

Usage:
  pmixrun [options] [-n N] prog [args...] [: [-n M] [--wdir DIR] [--pset NAME] prog2 ...]

Every application separated by ':' belongs to one namespace and gets its own
application number (PMIX_APPNUM 0, 1, ...); ranks are numbered consecutively across
applications. Options are read up to the program name; everything after the program
up to a lone ':' is passed to it unchanged.

Per-application options:
  -n N, -np N, --np N   number of processes of this application (default 1)
  --wdir DIR            working directory of this application (default: the current one)
  --pset NAME           the application's ranks form the process set NAME
                        (PMIX_PSET_NAMES, PMIx_Query_info of psets)

Global options (allowed in any segment):
  --tag-output          prefix every line a rank prints with [nspace,rank]
  --timeout S           kill the job if it has not finished after S seconds
                        (fractions allowed); pmixrun then exits with status 124
  --enable-recovery     a failing rank does not end the job (as with mpirun's option
                        of that name): pmixrun reports the failure, the other ranks
                        run on, and pmixrun exits with the first failure's status
                        once every rank has ended. The survivors' collectives that
                        include the failed rank fail (a fence, connect or Get waiting
                        for it returns an error), and a rank that vanished without
                        PMIx_Finalize is announced to its namespace with the event
                        PMIX_ERR_PROC_TERM_WO_SYNC (source and PMIX_EVENT_AFFECTED_PROC:
                        the failed rank). With --nodes, a node whose server dies
                        fails its ranks (they are killed, and the other nodes hear of
                        each as of a vanished rank) and the job goes on. PMIx_Abort,
                        --timeout and signals still end the whole job.
  --disable-recovery    the first failure ends the job (the default)
  -x VAR                export pmixrun's value of VAR to every rank (VAR must be set)
  -x VAR=value          set VAR=value in every rank's environment
  --no-tools            refuse PMIx tools. By default the server accepts tools
                        (PMIx_tool_init) run by the same user: it writes the
                        rendezvous files pmix.<host>.tool.<pmixrun pid> and
                        pmix.<host>.tool.<nspace> (holding its URI) into the
                        scratch tree, where a tool finds them with
                        PMIX_SERVER_PIDINFO or PMIX_SERVER_NSPACE, and gives a tool
                        that does not name itself the identity <nspace>-tool<n>.
                        A tool may query, get job data, pull the ranks' output
                        (PMIx_IOF_pull) and leave at any time without failing the job
  -h, --help            show this text
  -V, --version         show the version

Multi-node test bench (for testing PMIx behaviour across nodes on one machine; real
multi-node jobs run under a real host such as Open MPI, PRRTE or Slurm):
  --nodes K             simulate K nodes (1 to 64, at most one per rank). Each node
                        has its own PMIx server in its own process (a pmixrun node
                        daemon) with its own host name node0..node<K-1>, node id,
                        rendezvous directory and local ranks; the ranks are placed
                        in blocks (node 0 gets the first ranks; with N ranks the
                        first N mod K nodes get one more). pmixrun joins the servers
                        the way a real host does: it concatenates their fence
                        contributions (in node order), forwards direct-modex requests
                        to the node owning the process, and relays events, aborts
                        and lost clients. Every server is registered with its own
                        node's view (PMIX_LOCAL_PEERS, PMIX_LOCAL_SIZE, PMIX_HOSTNAME,
                        PMIX_NODEID, ...) and with every node and process of the job.
  --node-env K:VAR=value
                        set VAR=value in the environment of node K's server only
                        (e.g. 1:PMIX_MCA_pmix_server_fence_delta_modex=1 to give
                        the nodes different settings); may be repeated
  --report-modex        print on stderr one line per completed fence, with the size
                        in bytes of each node's contribution, and one per direct-modex
                        request (which node asks which for whose data)

What each rank gets:
  the environment of pmixrun, plus the -x variables, plus what the PMIx server's
  setup_fork provides (PMIX_NAMESPACE, PMIX_RANK, the server's URI, ...). Rank 0
  reads pmixrun's standard input unless that is a terminal; the other ranks read
  /dev/null. stdout and stderr of every rank are passed through to pmixrun's,
  line by line (a line written in pieces is held until its newline, 0.1 s at
  most), so lines of different ranks never mix.
  The namespace is pmixrun.<hostname>.<pid>; a scratch tree (PMIX_TMPDIR, with
  PMIX_NSDIR and one PMIX_PROCDIR per rank) is created under $TMPDIR (if unset:
  /dev/shm when it is a writable tmpfs, else /tmp) and removed when the job ends.

Exit status and failures:
  0 when every rank exits 0. Otherwise the status of the first failure:
  - a rank exits non-zero: that status; a rank killed by signal S: 128+S;
  - a rank calls PMIx_Abort(status, ...): status (1 if status is 0);
  - a rank that called PMIx_Init exits without PMIx_Finalize (or closes its
    connection to the server and goes on running), or, once any rank has connected
    to the server, any rank exits without finalizing: 1;
  - --timeout expires: 124;
  - pmixrun receives SIGINT or SIGTERM: it forwards the signal to the job and exits
    with 128+signal (a second signal kills the job with SIGKILL);
  - pmixrun cannot start the job (bad program, no server): 127 or 1.
  On any failure pmixrun names the rank and the reason on stderr, sends SIGTERM to
  the ranks still running and SIGKILL after a grace period (with --enable-recovery,
  only for a failure that is not a single rank's).
  Usage errors exit with status 2.

Environment:
  PMIX_DEBUG=level      log pmixrun's and the server's activity to stderr
                        (error, warn, info, debug, trace, or 1 for debug)
";

fn parse_count(opt: &str, v: &str) -> Result<u32, UsageError> {
    match v.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(UsageError(format!(
            "{opt} needs a positive whole number, got '{v}'"
        ))),
    }
}

fn parse_timeout(v: &str) -> Result<Duration, UsageError> {
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(UsageError(format!(
            "--timeout needs a positive number of seconds, got '{v}'"
        ))),
    }
}

/// Resolve one `-x` argument. `lookup` reads pmixrun's environment.
fn parse_export(
    v: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<(String, String), UsageError> {
    let (name, value) = match v.split_once('=') {
        Some((n, val)) => (n.to_string(), Some(val.to_string())),
        None => (v.to_string(), None),
    };
    let valid_name = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid_name {
        return Err(UsageError(format!("-x: '{name}' is not a variable name")));
    }
    match value {
        Some(val) => Ok((name, val)),
        None => match lookup(&name) {
            Some(val) => Ok((name, val)),
            None => Err(UsageError(format!(
                "-x {name}: {name} is not set in pmixrun's environment (use -x {name}=value)"
            ))),
        },
    }
}

/// Split `--opt=value` into its parts; other words are returned whole.
fn split_long(word: &str) -> (&str, Option<&str>) {
    if word.starts_with("--") {
        if let Some((o, v)) = word.split_once('=') {
            return (o, Some(v));
        }
    }
    (word, None)
}

/// Parse the arguments after the program name. `lookup` reads pmixrun's environment
/// (for `-x VAR`).
pub fn parse(
    args: &[String],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Command, UsageError> {
    let mut opts = Options {
        apps: Vec::new(),
        tag_output: false,
        timeout: None,
        exports: Vec::new(),
        nodes: 1,
        node_env: Vec::new(),
        report_modex: false,
        no_tools: false,
        recovery: false,
    };
    let mut i = 0;
    loop {
        // One segment: options, then the program and its arguments.
        let mut nprocs: Option<u32> = None;
        let mut wdir: Option<String> = None;
        let mut pset: Option<String> = None;
        let program = loop {
            let Some(word) = args.get(i) else {
                if nprocs.is_some() || wdir.is_some() || pset.is_some() {
                    return Err(UsageError("a program is missing after its options".into()));
                }
                if opts.apps.is_empty() {
                    return Err(UsageError("no program given".into()));
                }
                return Err(UsageError("no program after ':'".into()));
            };
            i += 1;
            let (opt, inline) = split_long(word);
            // Fetch the option's value: inline (`--opt=v`) or the next word.
            let mut value = |name: &str| -> Result<String, UsageError> {
                if let Some(v) = inline {
                    return Ok(v.to_string());
                }
                let v = args
                    .get(i)
                    .ok_or_else(|| UsageError(format!("{name} needs a value")))?;
                i += 1;
                Ok(v.clone())
            };
            match opt {
                "-h" | "--help" => return Ok(Command::Help),
                "-V" | "--version" => return Ok(Command::Version),
                "-n" | "-np" | "--np" | "--n" => {
                    if nprocs.is_some() {
                        return Err(UsageError(format!("{opt} given twice for one application")));
                    }
                    nprocs = Some(parse_count(opt, &value(opt)?)?);
                }
                "--wdir" => wdir = Some(value(opt)?),
                "--pset" => {
                    let v = value(opt)?;
                    if v.is_empty() {
                        return Err(UsageError("--pset needs a name".into()));
                    }
                    pset = Some(v);
                }
                "--tag-output" | "--enable-recovery" | "--disable-recovery" | "--report-modex"
                | "--no-tools" => set_flag(&mut opts, opt, inline)?,
                "--timeout" => opts.timeout = Some(parse_timeout(&value(opt)?)?),
                "-x" => {
                    let e = parse_export(&value(opt)?, lookup)?;
                    opts.exports.retain(|(n, _)| *n != e.0);
                    opts.exports.push(e);
                }
                "--nodes" => opts.nodes = parse_count(opt, &value(opt)?)?,
                "--node-env" => opts.node_env.push(parse_node_env(&value(opt)?)?),
                ":" => return Err(UsageError("':' with no program before it".into())),
                w if w.starts_with('-') && w.len() > 1 => {
                    return Err(UsageError(format!("unknown option '{w}'")));
                }
                _ => break word.clone(),
            }
        };
        let (app_args, more) = program_args(args, &mut i);
        opts.apps.push(AppSpec {
            nprocs: nprocs.unwrap_or(1),
            program,
            args: app_args,
            wdir,
            pset,
        });
        if !more {
            break;
        }
    }
    check_sizes(&opts)?;
    Ok(Command::Run(opts))
}

/// The program's arguments from `args[*i]` up to the next `:` (which is consumed);
/// also whether an application follows.
fn program_args(args: &[String], i: &mut usize) -> (Vec<String>, bool) {
    let mut app_args = Vec::new();
    while let Some(word) = args.get(*i) {
        *i += 1;
        if word == ":" {
            return (app_args, true);
        }
        app_args.push(word.clone());
    }
    (app_args, false)
}

/// A flag (an option without a value) that applies to the whole command line.
fn set_flag(opts: &mut Options, opt: &str, inline: Option<&str>) -> Result<(), UsageError> {
    if inline.is_some() {
        return Err(UsageError(format!("{opt} takes no value")));
    }
    match opt {
        "--tag-output" => opts.tag_output = true,
        "--report-modex" => opts.report_modex = true,
        "--no-tools" => opts.no_tools = true,
        _ => opts.recovery = opt == "--enable-recovery",
    }
    Ok(())
}

/// The limits on the whole job: ranks, nodes, and nodes that `--node-env` names.
fn check_sizes(opts: &Options) -> Result<(), UsageError> {
    let total: u64 = opts.apps.iter().map(|a| u64::from(a.nprocs)).sum();
    if total > u64::from(MAX_RANKS) {
        return Err(UsageError(format!(
            "{total} processes requested; at most {MAX_RANKS} are supported"
        )));
    }
    if opts.nodes > MAX_NODES {
        return Err(UsageError(format!(
            "--nodes {}: at most {MAX_NODES} nodes are supported",
            opts.nodes
        )));
    }
    if u64::from(opts.nodes) > total {
        return Err(UsageError(format!(
            "--nodes {} needs at least {} processes (every node hosts a rank), got {total}",
            opts.nodes, opts.nodes
        )));
    }
    if let Some((n, _, _)) = opts.node_env.iter().find(|(n, _, _)| *n >= opts.nodes) {
        return Err(UsageError(format!(
            "--node-env {n}:...: there is no node {n} (nodes are 0 to {})",
            opts.nodes - 1
        )));
    }
    Ok(())
}

/// Upper bound on the job size (ranks below `PMIX_RANK_VALID`, and a sane fd budget).
pub const MAX_RANKS: u32 = 4096;

/// Upper bound on `--nodes` (each simulated node is a process and two threads).
pub const MAX_NODES: u32 = 64;

/// Read `--node-env K:VAR=value`.
fn parse_node_env(v: &str) -> Result<(u32, String, String), UsageError> {
    let usage = || UsageError(format!("--node-env needs K:VAR=value, got '{v}'"));
    let (node, rest) = v.split_once(':').ok_or_else(usage)?;
    let node: u32 = node.parse().map_err(|_| usage())?;
    let (name, value) = rest.split_once('=').ok_or_else(usage)?;
    let valid_name = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid_name {
        return Err(UsageError(format!(
            "--node-env: '{name}' is not a variable name"
        )));
    }
    Ok((node, name.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }
    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".into()),
            _ => None,
        }
    }
    fn run(s: &str) -> Options {
        match parse(&args(s), &env) {
            Ok(Command::Run(o)) => o,
            other => panic!("{s}: {other:?}"),
        }
    }
    fn err(s: &str) -> String {
        match parse(&args(s), &env) {
            Err(UsageError(m)) => m,
            other => panic!("{s}: expected an error, got {other:?}"),
        }
    }

    #[test]
    fn single_app_with_args_that_look_like_options() {
        let o = run("-n 4 ./prog -n 2 --tag-output x");
        assert_eq!(o.apps.len(), 1);
        assert_eq!(o.apps[0].nprocs, 4);
        assert_eq!(o.apps[0].program, "./prog");
        assert_eq!(o.apps[0].args, args("-n 2 --tag-output x"));
        assert!(!o.tag_output);
        assert_eq!(o.nodes, 1);
    }

    #[test]
    fn mpmd_segments_have_their_own_counts() {
        let o = run("--tag-output -np 2 ./a 1 : -n 3 --wdir /tmp ./b : ./c");
        assert!(o.tag_output);
        let counts: Vec<u32> = o.apps.iter().map(|a| a.nprocs).collect();
        assert_eq!(counts, vec![2, 3, 1]);
        assert_eq!(o.apps[0].args, vec!["1".to_string()]);
        assert_eq!(o.apps[1].wdir.as_deref(), Some("/tmp"));
        assert_eq!(o.apps[0].wdir, None);
        assert_eq!(o.apps[2].program, "./c");
    }

    #[test]
    fn global_options_in_later_segments() {
        let o = run("-n 1 a : --timeout 2.5 -x A=1 -n 2 b");
        assert_eq!(o.timeout, Some(Duration::from_millis(2500)));
        assert_eq!(o.exports, vec![("A".into(), "1".into())]);
    }

    #[test]
    fn multi_node_bench_options() {
        let o =
            run("--nodes 3 -n 7 --node-env 1:PMIX_MCA_x=1 --node-env=2:B=c=d --report-modex prog");
        assert_eq!(o.nodes, 3);
        assert!(o.report_modex);
        assert_eq!(
            o.node_env,
            vec![
                (1, "PMIX_MCA_x".into(), "1".into()),
                (2, "B".into(), "c=d".into())
            ]
        );
    }

    #[test]
    fn recovery_flags_last_wins() {
        assert!(!run("prog").recovery);
        assert!(run("--enable-recovery -n 2 prog").recovery);
        assert!(!run("--enable-recovery --disable-recovery prog").recovery);
        assert!(run("-n 1 a : --enable-recovery b").recovery);
        assert!(err("--enable-recovery=1 prog").contains("no value"));
    }

    #[test]
    fn long_options_with_equals() {
        let o = run("--np=3 --timeout=1 --nodes=1 prog");
        assert_eq!(o.apps[0].nprocs, 3);
        assert_eq!(o.timeout, Some(Duration::from_secs(1)));
    }

    #[test]
    fn exports_read_the_environment_and_last_wins() {
        let o = run("-x HOME -x A=b=c -x A=d prog");
        assert_eq!(
            o.exports,
            vec![("HOME".into(), "/home/me".into()), ("A".into(), "d".into())]
        );
        assert!(err("-x NOPE prog").contains("not set"));
        assert!(err("-x 1A=2 prog").contains("not a variable name"));
        assert!(err("-x =2 prog").contains("not a variable name"));
    }

    #[test]
    fn help_and_version_win() {
        assert_eq!(parse(&args("-n 2 --help"), &env), Ok(Command::Help));
        assert_eq!(parse(&args("-V"), &env), Ok(Command::Version));
        // ...but not when they are the program's arguments.
        assert_eq!(run("prog --help").apps[0].args, vec!["--help".to_string()]);
    }

    #[test]
    fn usage_errors() {
        assert!(err("").contains("no program"));
        assert!(err("-n").contains("needs a value"));
        assert!(err("-n 0 prog").contains("positive"));
        assert!(err("-n -3 prog").contains("positive"));
        assert!(err("-n x prog").contains("positive"));
        assert!(err("-n 2").contains("program is missing"));
        assert!(err("--bogus prog").contains("unknown option"));
        assert!(err("prog : ").contains("after ':'"));
        assert!(err("prog : -n 2").contains("program is missing"));
        assert!(err(": prog").contains("':'"));
        assert!(err("-n 1 -n 2 prog").contains("twice"));
        assert!(err("--timeout 0 prog").contains("timeout"));
        assert!(err("--timeout nan prog").contains("timeout"));
        assert!(err("--nodes 0 prog").contains("positive"));
        assert!(err("--nodes 3 -n 2 prog").contains("at least 3 processes"));
        assert!(err("--nodes 65 -n 100 prog").contains("at most 64"));
        assert!(err("--nodes 2 -n 2 --node-env 2:A=1 prog").contains("no node 2"));
        assert!(err("--node-env 1A=1 prog").contains("K:VAR=value"));
        assert!(err("--node-env x:A=1 prog").contains("K:VAR=value"));
        assert!(err("--node-env 0:1A=1 prog").contains("not a variable name"));
        assert!(err("--report-modex=1 prog").contains("no value"));
        assert!(err("--tag-output=yes prog").contains("no value"));
        assert!(err("-n 4000 a : -n 97 b").contains("at most"));
    }

    #[test]
    fn help_mentions_every_option() {
        for o in [
            "-n N",
            "-np",
            "--wdir",
            "--tag-output",
            "--timeout",
            "-x VAR",
            "--nodes",
            "--node-env",
            "--report-modex",
            "--no-tools",
            "--enable-recovery",
            "--disable-recovery",
            "--help",
            "--version",
        ] {
            assert!(HELP.contains(o), "help lacks {o}");
        }
    }
}
