//! The job's fate as a pure state machine: what the ranks did in, whether the job has
//! failed (and why) out. The launcher feeds it exits, server events, signals and the
//! timeout, and kills the job when it reports a new failure.
//!
//! Rules (documented in `--help`):
//! * a rank that exits non-zero or dies by a signal fails the job;
//! * a rank that connected to the server (called `PMIx_Init`) and exits without
//!   `PMIx_Finalize` fails the job, and so does, once any rank has connected, a rank
//!   that exited without finalizing (its peers could wait for it forever);
//!   a job in which no rank ever connects (plain programs) is judged by exit codes;
//! * `PMIx_Abort`, the timeout and SIGINT/SIGTERM fail the job;
//! * only the first failure counts: what happens to the ranks while the job is being
//!   killed is its consequence;
//! * with recovery (`--enable-recovery`) a failure of a rank (the first three rules) is
//!   reported but does not end the job; each later one is reported too, until a
//!   failure that ends the job. The exit status is still the first failure's.

use crate::sys::ExitKind;
use pmix_core::Rank;
use std::fmt;
use std::time::Duration;

/// Why the job failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// A rank exited non-zero or was killed by a signal.
    RankExit {
        /// The rank.
        rank: Rank,
        /// How it ended.
        exit: ExitKind,
    },
    /// A rank ended without calling `PMIx_Finalize` (see the module rules).
    NoFinalize {
        /// The rank.
        rank: Rank,
        /// Whether it had connected (called `PMIx_Init`).
        connected: bool,
    },
    /// A rank's connection to the server closed before `PMIx_Finalize` while the
    /// process went on running.
    Lost {
        /// The rank.
        rank: Rank,
    },
    /// A rank called `PMIx_Abort`.
    Abort {
        /// The rank.
        rank: Rank,
        /// The status it passed.
        status: i32,
        /// Its message.
        msg: String,
    },
    /// `--timeout` expired.
    Timeout(Duration),
    /// pmixrun received this signal.
    Interrupted(i32),
    /// A rank could not be started.
    Launch {
        /// The rank.
        rank: Rank,
        /// What went wrong.
        msg: String,
    },
    /// A node's PMIx server went away (multi-node bench).
    Node {
        /// The node id.
        node: u32,
        /// What happened.
        msg: String,
    },
}

impl Cause {
    /// A failure of one rank, which recovery tolerates (the others end the job). A
    /// node's failure (multi-node bench) counts as the failure of the ranks it hosts:
    /// with recovery the job goes on without them, as PRRTE's does without a node whose
    /// daemon died.
    pub fn is_rank_failure(&self) -> bool {
        matches!(
            self,
            Cause::RankExit { .. }
                | Cause::NoFinalize { .. }
                | Cause::Lost { .. }
                | Cause::Node { .. }
        )
    }

    /// The rank whose end ends the job, and its exit code, for the
    /// `PMIX_ERR_PROC_ABORTED` event the job's other ranks get before they are killed
    /// (`PMIX_EVENT_AFFECTED_PROC`, `PMIX_EXIT_CODE`; OpenPMIx's `examples/fault.c` waits
    /// for it). None when no one rank ended the job (a timeout, a signal to pmixrun, a
    /// node) or the rank never started.
    pub fn fault_event(&self) -> Option<(Rank, i32)> {
        match self {
            Cause::RankExit { rank, .. }
            | Cause::NoFinalize { rank, .. }
            | Cause::Lost { rank }
            | Cause::Abort { rank, .. } => Some((*rank, self.exit_status())),
            Cause::Timeout(_)
            | Cause::Interrupted(_)
            | Cause::Launch { .. }
            | Cause::Node { .. } => None,
        }
    }

    /// pmixrun's exit status for this failure.
    pub fn exit_status(&self) -> i32 {
        match self {
            Cause::RankExit {
                exit: ExitKind::Code(c),
                ..
            } => {
                if *c == 0 {
                    1
                } else {
                    *c
                }
            }
            Cause::RankExit {
                exit: ExitKind::Signal(s),
                ..
            } => 128 + s,
            Cause::NoFinalize { .. } | Cause::Lost { .. } | Cause::Node { .. } => 1,
            Cause::Abort { status, .. } => match status & 0xff {
                0 => 1,
                s => s,
            },
            Cause::Timeout(_) => 124,
            Cause::Interrupted(s) => 128 + s,
            Cause::Launch { .. } => 127,
        }
    }
}

/// A signal's conventional name, for messages.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::RankExit {
                rank,
                exit: ExitKind::Code(c),
            } => write!(f, "rank {rank} exited with status {c}"),
            Cause::RankExit {
                rank,
                exit: ExitKind::Signal(s),
            } => write!(f, "rank {rank} was killed by {} ({s})", signal_name(*s)),
            Cause::NoFinalize {
                rank,
                connected: true,
            } => write!(
                f,
                "rank {rank} called PMIx_Init but exited without calling PMIx_Finalize"
            ),
            Cause::NoFinalize {
                rank,
                connected: false,
            } => write!(
                f,
                "rank {rank} exited without calling PMIx_Init/PMIx_Finalize \
                 while other ranks of the job use PMIx"
            ),
            Cause::Lost { rank } => write!(
                f,
                "rank {rank} closed its connection to the PMIx server without calling \
                 PMIx_Finalize"
            ),
            Cause::Abort { rank, status, msg } => {
                write!(f, "rank {rank} called PMIx_Abort with status {status}")?;
                if !msg.is_empty() {
                    write!(f, ": {msg}")?;
                }
                Ok(())
            }
            Cause::Timeout(d) => write!(f, "the job timed out after {} s", d.as_secs_f64()),
            Cause::Interrupted(s) => write!(f, "received {}", signal_name(*s)),
            Cause::Launch { rank, msg } => write!(f, "rank {rank} could not be started: {msg}"),
            Cause::Node { node, msg } => write!(f, "the PMIx server of node {node} failed: {msg}"),
        }
    }
}

#[derive(Debug, Clone, Default)]
struct RankRec {
    exit: Option<ExitKind>,
    connected: bool,
    finalized: bool,
    /// Connected, and the server has not reported the connection's end since.
    conn_open: bool,
}

/// The state of every rank and of the job.
#[derive(Debug)]
pub struct Supervisor {
    ranks: Vec<RankRec>,
    /// The first failure (it decides the exit status).
    cause: Option<Cause>,
    /// The latest failure reported.
    last: Option<Cause>,
    any_connected: bool,
    /// Rank failures do not end the job (`--enable-recovery`).
    recovery: bool,
    /// A failure that ends the job has happened.
    ending: bool,
}

impl Supervisor {
    /// A job of `n` ranks, all running.
    pub fn new(n: usize) -> Supervisor {
        Supervisor {
            ranks: vec![RankRec::default(); n],
            cause: None,
            last: None,
            any_connected: false,
            recovery: false,
            ending: false,
        }
    }

    /// With `on`, failures of single ranks are reported but do not end the job.
    pub fn set_recovery(&mut self, on: bool) {
        self.recovery = on;
    }

    fn rec(&mut self, rank: Rank) -> Option<&mut RankRec> {
        self.ranks.get_mut(usize::try_from(rank).ok()?)
    }

    /// Record a failure; true if the caller must act on it: report it (see
    /// [`Supervisor::last`]) and, if [`Supervisor::ending`], kill the job. Failures
    /// after one that ends the job are its consequences (false).
    fn fail(&mut self, cause: Cause) -> bool {
        if self.ending {
            log::debug!("while failing: {cause}");
            return false;
        }
        if !(self.recovery && cause.is_rank_failure()) {
            self.ending = true;
        }
        if self.cause.is_none() {
            self.cause = Some(cause.clone());
        }
        self.last = Some(cause);
        true
    }

    /// The first failure, if any.
    #[cfg(test)]
    pub fn cause(&self) -> Option<&Cause> {
        self.cause.as_ref()
    }

    /// The latest failure reported, if any.
    pub fn last(&self) -> Option<&Cause> {
        self.last.as_ref()
    }

    /// Whether a failure has ended the job (without recovery: any failure).
    pub fn ending(&self) -> bool {
        self.ending
    }

    /// A rank connected to the server.
    pub fn connected(&mut self, rank: Rank) -> bool {
        let Some(r) = self.rec(rank) else {
            return false;
        };
        r.connected = true;
        r.conn_open = true;
        // A rank that finalized and initialized again must finalize again.
        r.finalized = false;
        self.any_connected = true;
        // Ranks that already left without finalizing can now no longer be waited for.
        let gone = self
            .ranks
            .iter()
            .position(|r| r.exit == Some(ExitKind::Code(0)) && !r.finalized);
        match gone.and_then(|i| Rank::try_from(i).ok()) {
            Some(rank) => self.fail(Cause::NoFinalize {
                rank,
                connected: false,
            }),
            None => false,
        }
    }

    /// A rank called `PMIx_Finalize`.
    pub fn finalized(&mut self, rank: Rank) {
        if let Some(r) = self.rec(rank) {
            r.finalized = true;
            r.conn_open = false;
        }
    }

    /// The server saw a rank's connection end without `PMIx_Finalize`.
    pub fn conn_closed(&mut self, rank: Rank) {
        if let Some(r) = self.rec(rank) {
            r.conn_open = false;
        }
    }

    /// Whether a failing exit waits for the server's word (at most `LOST_GRACE`) before
    /// it is judged: the exit of a rank whose connection its server has not seen end. A
    /// rank of a node whose daemon died meets its lost server and exits at once, and
    /// pmixrun (which forks every rank) can reap it before it hears of the node's loss:
    /// the server's word (the connection's end) or the node's loss comes within
    /// milliseconds, and a lost node is then named as the cause, not its rank.
    pub fn failure_needs_server(&self, rank: Rank, exit: ExitKind) -> bool {
        let r = usize::try_from(rank).ok().and_then(|i| self.ranks.get(i));
        exit != ExitKind::Code(0) && r.is_some_and(|r| r.connected && !r.finalized && r.conn_open)
    }

    /// Whether an exit must wait for the server before it is judged: a clean exit of a
    /// rank whose connection the server still reads (its `PMIx_Finalize` may be in
    /// there, not yet seen: a client stops waiting for the answer after a while).
    pub fn exit_needs_server(&self, rank: Rank, exit: ExitKind) -> bool {
        let r = usize::try_from(rank).ok().and_then(|i| self.ranks.get(i));
        exit == ExitKind::Code(0) && r.is_some_and(|r| r.connected && !r.finalized && r.conn_open)
    }

    /// A rank ended; true if that fails the job (first failure).
    pub fn exited(&mut self, rank: Rank, exit: ExitKind) -> bool {
        let any_connected = self.any_connected;
        let Some(r) = self.rec(rank) else {
            return false;
        };
        r.exit = Some(exit);
        let (connected, finalized) = (r.connected, r.finalized);
        match exit {
            ExitKind::Code(0) if finalized || !any_connected => false,
            ExitKind::Code(0) => self.fail(Cause::NoFinalize { rank, connected }),
            _ => self.fail(Cause::RankExit { rank, exit }),
        }
    }

    /// A rank ended because a process asked for it (`PMIx_Job_control`, or a
    /// `PMIx_Abort` of other processes): recorded, never a failure.
    pub fn ended_on_request(&mut self, rank: Rank, exit: ExitKind) {
        if let Some(r) = self.rec(rank) {
            r.exit = Some(exit);
            r.finalized = true;
        }
    }

    /// The server lost a rank's connection before `PMIx_Finalize`, and the process
    /// has not ended since (an exit is judged by [`Supervisor::exited`]).
    pub fn lost(&mut self, rank: Rank) -> bool {
        match self.rec(rank) {
            Some(r) if r.exit.is_none() && !r.finalized => self.fail(Cause::Lost { rank }),
            _ => false,
        }
    }

    /// A rank called `PMIx_Abort`.
    pub fn abort(&mut self, rank: Rank, status: i32, msg: String) -> bool {
        self.fail(Cause::Abort { rank, status, msg })
    }

    /// `--timeout` expired.
    pub fn timed_out(&mut self, after: Duration) -> bool {
        self.fail(Cause::Timeout(after))
    }

    /// pmixrun received `sig`.
    pub fn interrupted(&mut self, sig: i32) -> bool {
        self.fail(Cause::Interrupted(sig))
    }

    /// A node's server went away.
    pub fn node_failed(&mut self, node: u32, msg: String) -> bool {
        self.fail(Cause::Node { node, msg })
    }

    /// A rank could not be started.
    pub fn launch_failed(&mut self, rank: Rank, msg: String) -> bool {
        self.fail(Cause::Launch { rank, msg })
    }

    /// Whether `rank` is still running (not yet reaped).
    #[cfg(test)]
    pub fn running(&self, rank: Rank) -> bool {
        usize::try_from(rank)
            .ok()
            .and_then(|i| self.ranks.get(i))
            .is_some_and(|r| r.exit.is_none())
    }

    /// Number of ranks still running.
    #[cfg(test)]
    pub fn nrunning(&self) -> usize {
        self.ranks.iter().filter(|r| r.exit.is_none()).count()
    }

    /// pmixrun's exit status: 0, or the first failure's.
    pub fn exit_status(&self) -> i32 {
        self.cause.as_ref().map_or(0, Cause::exit_status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExitKind::*;

    #[test]
    fn plain_programs_succeed_on_zero() {
        let mut s = Supervisor::new(3);
        for r in 0..3 {
            assert!(!s.exited(r, Code(0)));
        }
        assert_eq!(s.nrunning(), 0);
        assert_eq!(s.exit_status(), 0);
    }

    #[test]
    fn first_nonzero_exit_wins() {
        let mut s = Supervisor::new(3);
        assert!(s.exited(1, Code(3)));
        // Consequences of killing the job do not replace the cause.
        assert!(!s.exited(0, Signal(libc::SIGTERM)));
        assert!(!s.exited(2, Code(5)));
        assert_eq!(s.exit_status(), 3);
        assert_eq!(
            s.cause().map(|c| c.to_string()).as_deref(),
            Some("rank 1 exited with status 3")
        );
    }

    #[test]
    fn signal_death_is_128_plus_signal() {
        let mut s = Supervisor::new(2);
        assert!(s.exited(0, Signal(libc::SIGSEGV)));
        assert_eq!(s.exit_status(), 128 + libc::SIGSEGV);
        assert!(s
            .cause()
            .map(|c| c.to_string())
            .unwrap_or_default()
            .contains("SIGSEGV"));
    }

    #[test]
    fn connected_rank_must_finalize() {
        let mut s = Supervisor::new(2);
        s.connected(0);
        s.connected(1);
        s.finalized(0);
        assert!(!s.exited(0, Code(0)));
        assert!(s.exited(1, Code(0)));
        assert_eq!(
            s.cause(),
            Some(&Cause::NoFinalize {
                rank: 1,
                connected: true
            })
        );
        assert_eq!(s.exit_status(), 1);
    }

    #[test]
    fn an_exit_seen_before_the_servers_word_waits_for_it() {
        // The server records Finalize before answering it, but pmixrun may reap the
        // process before it reads that event: such an exit is held for the server.
        let mut s = Supervisor::new(2);
        s.connected(0);
        s.connected(1);
        assert!(s.exit_needs_server(0, Code(0)));
        s.finalized(0);
        assert!(!s.exit_needs_server(0, Code(0)));
        assert!(!s.exited(0, Code(0)));
        // A closed connection without Finalize is the server's word too: then it fails.
        s.conn_closed(1);
        assert!(!s.exit_needs_server(1, Code(0)));
        assert!(s.exited(1, Code(0)));
        // Non-zero exits never wait.
        let mut t = Supervisor::new(1);
        t.connected(0);
        assert!(!t.exit_needs_server(0, Code(3)));
    }

    #[test]
    fn early_leaver_fails_once_the_job_uses_pmix() {
        // Rank 1 exits 0 without ever connecting, then rank 0 connects.
        let mut s = Supervisor::new(2);
        assert!(!s.exited(1, Code(0)));
        assert!(s.connected(0));
        assert_eq!(
            s.cause(),
            Some(&Cause::NoFinalize {
                rank: 1,
                connected: false
            })
        );
        // And the other order.
        let mut s = Supervisor::new(2);
        s.connected(0);
        assert!(s.exited(1, Code(0)));
    }

    #[test]
    fn reinitialized_rank_must_finalize_again() {
        let mut s = Supervisor::new(1);
        s.connected(0);
        s.finalized(0);
        s.connected(0);
        assert!(s.exited(0, Code(0)));
        let mut s = Supervisor::new(1);
        for _ in 0..3 {
            s.connected(0);
            s.finalized(0);
        }
        assert!(!s.exited(0, Code(0)));
    }

    #[test]
    fn lost_connection_of_a_running_rank_fails() {
        let mut s = Supervisor::new(2);
        s.connected(0);
        assert!(s.lost(0));
        assert_eq!(s.exit_status(), 1);
        // An exit already seen decides instead.
        let mut s = Supervisor::new(1);
        s.connected(0);
        assert!(s.exited(0, Signal(libc::SIGSEGV)));
        assert!(!s.lost(0));
        assert_eq!(s.exit_status(), 128 + libc::SIGSEGV);
    }

    #[test]
    fn finalized_rank_with_nonzero_status_still_fails() {
        let mut s = Supervisor::new(1);
        s.connected(0);
        s.finalized(0);
        assert!(s.exited(0, Code(2)));
        assert_eq!(s.exit_status(), 2);
    }

    #[test]
    fn abort_status_mapping() {
        let mut s = Supervisor::new(2);
        assert!(s.abort(1, 42, "boom".into()));
        assert!(!s.abort(0, 3, String::new()));
        assert_eq!(s.exit_status(), 42);
        assert_eq!(
            s.cause().map(|c| c.to_string()).as_deref(),
            Some("rank 1 called PMIx_Abort with status 42: boom")
        );
        assert_eq!(
            Cause::Abort {
                rank: 0,
                status: 0,
                msg: String::new()
            }
            .exit_status(),
            1
        );
        assert_eq!(
            Cause::Abort {
                rank: 0,
                status: -1,
                msg: String::new()
            }
            .exit_status(),
            255
        );
        assert_eq!(
            Cause::Abort {
                rank: 0,
                status: 256,
                msg: String::new()
            }
            .exit_status(),
            1
        );
    }

    #[test]
    fn one_ranks_end_is_told_with_its_exit_code() {
        let exit = |c| Cause::RankExit {
            rank: 2,
            exit: ExitKind::Code(c),
        };
        assert_eq!(exit(3).fault_event(), Some((2, 3)));
        let killed = Cause::RankExit {
            rank: 1,
            exit: ExitKind::Signal(9),
        };
        assert_eq!(killed.fault_event(), Some((1, 137)));
        let abort = Cause::Abort {
            rank: 0,
            status: 5,
            msg: String::new(),
        };
        assert_eq!(abort.fault_event(), Some((0, 5)));
        assert_eq!(Cause::Lost { rank: 4 }.fault_event(), Some((4, 1)));
        assert_eq!(Cause::Timeout(Duration::from_secs(1)).fault_event(), None);
        assert_eq!(Cause::Interrupted(2).fault_event(), None);
        let launch = Cause::Launch {
            rank: 0,
            msg: String::new(),
        };
        assert_eq!(launch.fault_event(), None);
    }

    #[test]
    fn timeout_and_signals() {
        let mut s = Supervisor::new(1);
        assert!(s.timed_out(Duration::from_secs(2)));
        assert_eq!(s.exit_status(), 124);
        let mut s = Supervisor::new(1);
        assert!(s.interrupted(libc::SIGINT));
        assert!(!s.timed_out(Duration::from_secs(2)));
        assert_eq!(s.exit_status(), 130);
        assert!(s.running(0));
        assert!(!s.running(7));
    }

    #[test]
    fn recovery_reports_every_rank_failure_and_keeps_the_first_status() {
        let mut s = Supervisor::new(4);
        s.set_recovery(true);
        for r in 0..4 {
            s.connected(r);
        }
        assert!(s.exited(2, Signal(libc::SIGKILL)));
        assert!(!s.ending());
        assert!(s.running(0));
        assert!(s.exited(3, Code(0))); // without finalizing
        assert!(!s.ending());
        assert!(s.lost(1));
        assert_eq!(s.last(), Some(&Cause::Lost { rank: 1 }));
        s.finalized(0);
        assert!(!s.exited(0, Code(0)));
        assert_eq!(s.exit_status(), 128 + libc::SIGKILL);
        // A failure that is not a rank's still ends the job, and what follows is its
        // consequence.
        let mut s = Supervisor::new(2);
        s.set_recovery(true);
        assert!(s.exited(1, Code(4)));
        assert!(s.timed_out(Duration::from_secs(1)));
        assert!(s.ending());
        assert!(!s.exited(0, Signal(libc::SIGTERM)));
        assert_eq!(s.exit_status(), 4);
        assert_eq!(s.last(), Some(&Cause::Timeout(Duration::from_secs(1))));
    }

    #[test]
    fn unknown_ranks_are_ignored() {
        let mut s = Supervisor::new(1);
        assert!(!s.exited(5, Code(1)));
        assert!(!s.connected(9));
        s.finalized(9);
        assert_eq!(s.exit_status(), 0);
    }
}
