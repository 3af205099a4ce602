//! Signals sent to pmixrun, as a user at a terminal (Ctrl-C) or a batch system (SIGTERM,
//! SIGHUP) sends them: the job is killed, pmixrun says why and exits with 128 + the
//! signal; a second signal while the ranks linger kills them at once.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A pmixrun job of `n` ranks running `script` (under `sh -c`, `$1` is a directory
/// the test owns), with its stderr lines arriving on a channel.
struct Job {
    child: Child,
    lines: mpsc::Receiver<String>,
    dir: PathBuf,
}

impl Job {
    fn start(name: &str, n: u32, script: &str) -> Job {
        let dir =
            std::env::temp_dir().join(format!("pmixrun-signals-{name}.{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("test directory");
        let mut child = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args([
                "--timeout",
                "60",
                "-n",
                &n.to_string(),
                "sh",
                "-c",
                script,
                "sh",
            ])
            .arg(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start pmixrun");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Job { child, lines, dir }
    }

    /// Wait (at most 20 s) until every rank has written its pid file.
    fn wait_ranks(&self, n: u32) -> Vec<u32> {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let pids: Vec<u32> = (0..n)
                .filter_map(|r| std::fs::read_to_string(self.dir.join(format!("pid.{r}"))).ok())
                .filter_map(|s| s.trim().parse().ok())
                .collect();
            if pids.len() == n as usize {
                return pids;
            }
            assert!(Instant::now() < until, "the ranks did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn signal(&self, sig: &str) {
        let st = Command::new("kill")
            .args([&format!("-{sig}"), &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(st.success(), "kill -{sig} failed");
    }

    /// The next stderr line containing `what`, within `limit`.
    fn expect_line(&self, what: &str, limit: Duration) -> String {
        let until = Instant::now() + limit;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.contains(what) => return l,
                Ok(_) => {}
                Err(_) => panic!("pmixrun did not say {what:?} within {limit:?}"),
            }
        }
    }

    /// pmixrun's exit code, waiting at most `limit` (killed and failed past it).
    fn exit_code(&mut self, limit: Duration) -> Option<i32> {
        let until = Instant::now() + limit;
        loop {
            if let Some(st) = self.child.try_wait().expect("wait pmixrun") {
                return st.code();
            }
            if Instant::now() >= until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("pmixrun did not exit within {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Whether process `pid` still exists (reaped processes leave no /proc entry).
fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

const RANK: &str = r#"echo $$ > "$1/pid.$PMIX_RANK.tmp"; mv "$1/pid.$PMIX_RANK.tmp" "$1/pid.$PMIX_RANK"; exec sleep 30"#;

#[test]
fn a_signal_kills_the_job_and_pmixrun_exits_128_plus_it() {
    for (sig, num) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        let mut job = Job::start(&format!("one-{sig}"), 2, RANK);
        let pids = job.wait_ranks(2);
        let t0 = Instant::now();
        job.signal(sig);
        job.expect_line(
            &format!("received SIG{sig}; killing the job"),
            Duration::from_secs(10),
        );
        assert_eq!(
            job.exit_code(Duration::from_secs(10)),
            Some(128 + num),
            "SIG{sig}"
        );
        // The ranks die with SIGTERM at once, well within the 3 s grace.
        assert!(
            t0.elapsed() < Duration::from_secs(3),
            "SIG{sig}: {:?}",
            t0.elapsed()
        );
        for pid in pids {
            assert!(!alive(pid), "SIG{sig}: rank pid {pid} outlived pmixrun");
        }
    }
}

#[test]
fn a_second_signal_kills_lingering_ranks_at_once() {
    // The ranks ignore SIGTERM (and `sleep` inherits that), so only SIGKILL ends them.
    let script = format!("trap '' TERM; {RANK}");
    let mut job = Job::start("twice", 2, &script);
    let pids = job.wait_ranks(2);
    job.signal("TERM");
    job.expect_line("received SIGTERM; killing the job", Duration::from_secs(10));
    let t0 = Instant::now();
    job.signal("INT");
    job.expect_line(
        "received SIGINT while the job is being killed; sending SIGKILL",
        Duration::from_secs(10),
    );
    // The first signal decides the exit status.
    assert_eq!(job.exit_code(Duration::from_secs(10)), Some(128 + 15));
    // Without the second signal pmixrun would wait out its 3 s grace.
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    for pid in pids {
        assert!(!alive(pid), "rank pid {pid} outlived pmixrun");
    }
}
