//! What the server and the signals ask of the launcher: the host events of the ranks
//! (connect, finalize, lost connection, abort, spawn, job control, a failed node) and
//! the signals pmixrun receives.

use super::{Launcher, LOST_GRACE};
use crate::host::JobEvent;
use crate::sys;
use pmix_core::{Info, Nspace, ProcId, Value};
use pmix_sys::attrs::keys as ak;
use std::time::Instant;

impl Launcher {
    pub(super) fn handle_events(&mut self) {
        for ev in self.events.drain() {
            match ev {
                JobEvent::Connected(p) => self.on_connected(&p),
                JobEvent::Finalized(p) => self.on_finalized(&p),
                JobEvent::Lost(p) => self.on_lost(&p),
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
                JobEvent::NodeFailed { node, msg, procs } => self.node_failed(node, &msg, &procs),
            }
        }
    }

    /// A node was lost with `procs`, every process it hosted. The job on the command
    /// line fails (without recovery: every job is killed); with recovery it goes on
    /// without them, and so does each spawned job that had processes running there.
    /// Either way the node's processes of every job are killed, as ending on request:
    /// their end is the node's failure, not their own.
    fn node_failed(&mut self, node: u32, msg: &str, procs: &[ProcId]) {
        let running = |l: &Launcher, job: usize| {
            l.children.iter().any(|c| {
                c.job == job
                    && !c.reaped
                    && l.jobs.get(job).is_some_and(|j| {
                        procs.contains(&ProcId::new(j.layout.nspace.clone(), c.rank))
                    })
            })
        };
        // The job on the command line first: its failure decides pmixrun's status.
        let hit: Vec<usize> = (0..self.jobs.len())
            .filter(|&j| j == 0 || running(self, j))
            .collect();
        let mut failed = Vec::new();
        for j in hit {
            let Some(x) = self.jobs.get_mut(j) else {
                continue;
            };
            if x.sup.node_failed(node, msg.to_string()) {
                failed.push((j, x.sup.ending()));
            }
        }
        if !failed.is_empty() && failed.iter().all(|&(_, ending)| !ending) {
            self.end_on_request(procs, libc::SIGKILL);
        }
        for (j, _) in failed {
            self.begin_kill(j);
        }
    }

    /// A rank connected to the server: ranks of its job that already exited 0 without
    /// finalizing can no longer be waited for, and fail the job.
    fn on_connected(&mut self, p: &ProcId) {
        let Some(j) = self.job_of(&p.nspace) else {
            return;
        };
        if self
            .jobs
            .get_mut(j)
            .is_some_and(|x| x.sup.connected(p.rank))
        {
            self.begin_kill(j);
        }
    }

    /// A rank called `PMIx_Finalize`: its exit, if already seen, can be judged.
    fn on_finalized(&mut self, p: &ProcId) {
        if let Some(j) = self.job_of(&p.nspace) {
            if let Some(x) = self.jobs.get_mut(j) {
                x.sup.finalized(p.rank);
            }
            self.settle_exit(j, p.rank);
        }
    }

    /// A rank's connection closed: it fails the job unless the rank exits within
    /// [`LOST_GRACE`] (then its exit is what is reported).
    fn on_lost(&mut self, p: &ProcId) {
        if let Some(j) = self.job_of(&p.nspace) {
            if let Some(x) = self.jobs.get_mut(j) {
                x.sup.conn_closed(p.rank);
            }
            self.lost.push((j, p.rank, Instant::now() + LOST_GRACE));
            self.settle_exit(j, p.rank);
        }
    }

    /// Signal the running ranks `targets` name (wildcards: whole jobs) and mark them
    /// as ending on request; returns how many were signalled.
    pub(super) fn end_on_request(&mut self, targets: &[ProcId], sig: i32) -> usize {
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
    pub(super) fn job_control(
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
        // What a job says about itself (it may be preempted, how it checkpoints) asks
        // nothing to be done now: pmixrun notes it and never preempts or checkpoints.
        let informational = [
            ak::PMIX_JOB_CTRL_PREEMPTIBLE,
            ak::PMIX_JOB_CTRL_CHECKPOINT_METHOD,
            ak::PMIX_JOB_CTRL_CHECKPOINT_EVENT,
            ak::PMIX_JOB_CTRL_CHECKPOINT_SIGNAL,
            ak::PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT,
            ak::PMIX_JOB_CTRL_ID,
        ];
        let (notes, acts): (Vec<&Info>, Vec<&Info>) = directives
            .iter()
            .partition(|i| informational.contains(&i.key.as_str()));
        if acts.is_empty() && !notes.is_empty() {
            log::debug!(
                "{requester} declared {} job-control properties",
                notes.len()
            );
            return Ok(Vec::new());
        }
        Err(pmix_core::Error::not_supported(
            "pmixrun's job control kills, terminates or signals processes only",
        ))
    }

    /// Start a job for a rank's `PMIx_Spawn`: lay it out, fork it, register it and
    /// release it. Ranks that cannot be started fail the spawn (the job is reaped and
    /// the caller gets `PMIX_ERR_JOB_FAILED_TO_LAUNCH`), not the session.
    pub(super) fn spawn_job(
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
            j.scratch = plan.scratch;
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

    pub(super) fn handle_signals(&mut self) {
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
}
