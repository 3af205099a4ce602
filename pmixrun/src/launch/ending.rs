//! How jobs end: reaping the ranks, judging their exits with the supervisor, reporting
//! the first failure and killing the jobs (SIGTERM, then SIGKILL), and telling spawners
//! of the ends they asked to hear of.

use super::{Launcher, LOST_GRACE};
use crate::supervisor::Cause;
use crate::sys::{self, ExitKind};
use pmix_core::{Info, ProcId, Rank, Value};
use pmix_sys::attrs::keys as ak;
use std::time::{Duration, Instant};

/// How long the ranks have to act on `PMIX_ERR_PROC_ABORTED` before the job is signalled.
const FAULT_NOTICE: Duration = Duration::from_millis(250);

impl Launcher {
    /// Signal every running rank of `job` (every job: `None`), and each job's process
    /// group while it surely exists.
    pub(super) fn signal_jobs(&mut self, job: Option<usize>, sig: i32) {
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
    pub(super) fn begin_kill(&mut self, job: usize) {
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
        let told = self.tell_fault(job, &cause);
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
            if told {
                // A moment for the others' handlers of that event before the signal.
                std::thread::sleep(FAULT_NOTICE);
            }
            self.signal_jobs(None, sig);
            self.kill_at = Some(Instant::now() + self.cfg.grace);
        }
    }

    /// Tell job `job`'s ranks which of them ended it (`PMIX_ERR_PROC_ABORTED`, see
    /// [`Cause::fault_event`]); whether an event went out.
    fn tell_fault(&self, job: usize, cause: &Cause) -> bool {
        let (Some((rank, code)), Some(server), Some(j)) = (
            cause.fault_event(),
            self.server.as_ref(),
            self.jobs.get(job),
        ) else {
            return false;
        };
        let who = ProcId::new(j.layout.nspace.clone(), rank);
        let info = [
            Info::new(ak::PMIX_EVENT_AFFECTED_PROC, Value::Proc(Some(who.clone()))),
            Info::new(ak::PMIX_EXIT_CODE, Value::Int(code)),
        ]
        .into_iter()
        .flatten()
        .collect();
        server.notify(
            pmix_sys::PMIX_ERR_PROC_ABORTED,
            &who,
            pmix_sys::PMIX_RANGE_NAMESPACE,
            info,
        );
        true
    }

    /// With recovery: say that a rank failed and that the others run on.
    pub(super) fn report_tolerated(&mut self, job: usize, cause: &Cause) {
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

    pub(super) fn kill_hard(&mut self) {
        if !self.killed_hard {
            self.killed_hard = true;
            self.kill_at = None;
            self.signal_jobs(None, libc::SIGKILL);
        }
    }

    pub(super) fn reap(&mut self) {
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
            let wait = self.jobs.get(job).and_then(|j| {
                if j.sup.exit_needs_server(rank, exit) {
                    Some(self.cfg.exit_verdict_wait)
                } else if j.sup.failure_needs_server(rank, exit) {
                    Some(LOST_GRACE)
                } else {
                    None
                }
            });
            if let Some(w) = wait {
                self.exits_pending
                    .push((job, rank, exit, Instant::now() + w));
                continue;
            }
            self.judge_exit(job, rank, exit);
        }
        self.jobs_ended();
    }

    pub(super) fn judge_exit(&mut self, job: usize, rank: Rank, exit: ExitKind) {
        if self
            .jobs
            .get_mut(job)
            .is_some_and(|j| j.sup.exited(rank, exit))
        {
            self.begin_kill(job);
        }
    }

    /// The server has the last word on `rank`'s connection: judge its exit if pending.
    pub(super) fn settle_exit(&mut self, job: usize, rank: Rank) {
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
    pub(super) fn proc_ended(&self, job: usize, rank: Rank, exit: ExitKind) {
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
    pub(super) fn jobs_ended(&mut self) {
        for i in 1..self.jobs.len() {
            let done = self.children.iter().all(|c| c.job != i || c.reaped);
            let Some(j) = self.jobs.get_mut(i) else {
                continue;
            };
            if j.ended || !done {
                continue;
            }
            j.ended = true;
            j.scratch = None;
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
}
