//! The launcher's tests: real processes (`sh`) against a fake server.

use super::*;
use crate::host::JobEvent;
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
fn launch_failures_inside_and_beyond_the_release_window_are_reported() {
    // Gates are read a window behind the releases: a failure read inside the loop
    // (rank 3) and one read after it (the last rank) are each reported.
    let n = RELEASE_WINDOW + 8;
    for bad in [3, n - 1] {
        let mut plans: Vec<RankPlan> = (0..n).map(|_| sh("sleep 30")).collect();
        plans[bad] = RankPlan {
            path: "/nonexistent/prog".into(),
            argv: vec!["prog".into()],
            wdir: None,
        };
        let r = launch(plans, false, Some(20.0), fake(None));
        assert_eq!(r.status, 127, "{}", r.err);
        let want = format!("rank {bad} could not be started: cannot execute /nonexistent/prog");
        assert!(r.err.contains(&want), "{want} not in {}", r.err);
    }
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
fn node_lost_just_after_its_rank_failed_is_the_cause() {
    // A rank of a node whose daemon died meets its lost server and exits at once; its
    // exit can be reaped before the node's loss is heard (chaos-check, session 10).
    let hook: Hook = Box::new(|p, ev| {
        ev.push(JobEvent::Connected(p.clone()));
        if p.rank == 1 {
            let ev = Arc::clone(ev);
            let p = p.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                ev.push(JobEvent::NodeFailed {
                    node: 1,
                    msg: "its daemon exited".into(),
                    procs: vec![p],
                });
            });
        }
    });
    let r = launch(
        vec![sh("sleep 30"), sh("sleep 0.05; exit 3")],
        false,
        Some(20.0),
        fake(Some(hook)),
    );
    assert_eq!(r.status, 1, "{}", r.err);
    assert!(
        r.err
            .contains("the PMIx server of node 1 failed: its daemon exited"),
        "{}",
        r.err
    );
    assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
}

#[test]
fn connected_rank_failing_is_judged_when_its_server_stays_silent() {
    // No word from the server (neither the connection's end nor a node's loss): the
    // exit is judged after the grace, as the rank's failure.
    let hook: Hook = Box::new(|p, ev| ev.push(JobEvent::Connected(p.clone())));
    let r = launch(
        vec![sh("sleep 30"), sh("exit 3")],
        false,
        Some(20.0),
        fake(Some(hook)),
    );
    assert_eq!(r.status, 3, "{}", r.err);
    assert!(r.err.contains("rank 1 exited with status 3"), "{}", r.err);
    assert!(r.elapsed >= LOST_GRACE, "{:?}", r.elapsed);
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
fn untagged_lines_of_two_ranks_never_mix() {
    // Each rank writes every line in two pieces, a few ms apart, while the other writes
    // its own: forwarded raw, pieces of the two ranks' lines would interleave.
    let piecewise = |who: &str| {
        sh(&format!(
            "for i in 1 2 3 4 5 6 7 8; do printf '{who}-start '; sleep 0.005; printf '{who}-end\\n'; done"
        ))
    };
    let r = launch(
        vec![piecewise("a"), piecewise("b")],
        false,
        Some(20.0),
        fake(None),
    );
    assert_eq!(r.status, 0);
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(lines.len(), 16, "{}", r.out);
    for l in lines {
        assert!(
            l == "a-start a-end" || l == "b-start b-end",
            "mixed line {l:?}"
        );
    }
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
