//! pmixrun as the PMIx server's host: the [`Host`] upcalls (which run on the server's
//! progress thread) become [`JobEvent`]s in a queue that the launcher's main loop
//! drains; a socket pair wakes the loop's `poll`.

use crate::pubsub::PubStore;
use pmix_core::server::{Host, HostCall, HostDone, HostReply};
use pmix_core::{App, Info, Nspace, Pdata, ProcId, Result};
use std::collections::VecDeque;
use std::fmt;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, MutexGuard};

/// Something the server told the host about one rank of a job, or asked of it.
pub enum JobEvent {
    /// The rank connected to the server (it called `PMIx_Init`).
    Connected(ProcId),
    /// The rank called `PMIx_Finalize`.
    Finalized(ProcId),
    /// The rank's connection closed before it called `PMIx_Finalize`.
    Lost(ProcId),
    /// The rank called `PMIx_Abort`. `done` releases the caller; the launcher calls it
    /// once the job is being killed.
    Abort {
        /// Who called it.
        proc_: ProcId,
        /// The status it passed.
        status: i32,
        /// Its message.
        msg: String,
        /// The processes to abort (empty: the caller's whole job).
        targets: Vec<ProcId>,
        /// Completion of the upcall.
        done: HostDone<()>,
    },
    /// A rank called `PMIx_Job_control` (kill, terminate or signal processes).
    JobControl {
        /// Who asked.
        requester: ProcId,
        /// Targets (empty: the requester's namespace).
        targets: Vec<ProcId>,
        /// Directives.
        directives: Vec<Info>,
        /// Completion of the upcall.
        done: HostDone<Vec<Info>>,
    },
    /// The rank called `PMIx_Spawn`: start the apps as a new job and hand `done` its
    /// namespace once it is registered and running.
    Spawn {
        /// Who asked.
        requester: ProcId,
        /// Job-level directives.
        job_info: Vec<Info>,
        /// The applications.
        apps: Vec<App>,
        /// Completion of the upcall.
        done: HostDone<Nspace>,
    },
    /// A node's PMIx server went away (multi-node bench only).
    NodeFailed {
        /// The node id.
        node: u32,
        /// What happened.
        msg: String,
        /// Every process the node hosted, of every job (the launcher kills those
        /// still running).
        procs: Vec<ProcId>,
    },
}

impl fmt::Debug for JobEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobEvent::Connected(p) => write!(f, "Connected({})", p.rank),
            JobEvent::Finalized(p) => write!(f, "Finalized({})", p.rank),
            JobEvent::Lost(p) => write!(f, "Lost({})", p.rank),
            JobEvent::Abort {
                proc_, status, msg, ..
            } => write!(f, "Abort({}, {status}, {msg:?})", proc_.rank),
            JobEvent::Spawn {
                requester, apps, ..
            } => write!(f, "Spawn({requester}, {} apps)", apps.len()),
            JobEvent::JobControl {
                requester, targets, ..
            } => write!(f, "JobControl({requester}, {} targets)", targets.len()),
            JobEvent::NodeFailed { node, msg, procs } => {
                write!(f, "NodeFailed({node}, {msg:?}, {} processes)", procs.len())
            }
        }
    }
}

/// The queue between the progress thread and the main loop.
pub struct Events {
    queue: Mutex<VecDeque<JobEvent>>,
    wake_tx: UnixStream,
    wake_rx: UnixStream,
}

impl Events {
    /// An empty queue with its wake-up socket pair (both ends non-blocking).
    pub fn new() -> std::io::Result<Arc<Events>> {
        let (wake_tx, wake_rx) = UnixStream::pair()?;
        wake_tx.set_nonblocking(true)?;
        wake_rx.set_nonblocking(true)?;
        Ok(Arc::new(Events {
            queue: Mutex::new(VecDeque::new()),
            wake_tx,
            wake_rx,
        }))
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<JobEvent>> {
        // A panic while holding this lock cannot leave the queue inconsistent.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queue an event and wake the main loop (any thread).
    pub fn push(&self, ev: JobEvent) {
        log::debug!("host event {ev:?}");
        self.lock().push_back(ev);
        // A full socket buffer means a wake-up is already pending.
        let _ = (&self.wake_tx).write(&[1]);
    }

    /// Queue an event without waking the main loop: for events that only matter once
    /// the loop wakes for something else (a rank's `PMIx_Finalize` is judged when that
    /// rank exits, and the loop drains the queue before judging an exit). One wakeup of
    /// pmixrun less per rank, on a machine where every wakeup competes with the ranks.
    pub fn push_quiet(&self, ev: JobEvent) {
        log::debug!("host event {ev:?} (no wakeup)");
        self.lock().push_back(ev);
    }

    /// Take every queued event (main loop).
    pub fn drain(&self) -> Vec<JobEvent> {
        let mut buf = [0u8; 256];
        loop {
            match (&self.wake_rx).read(&mut buf) {
                Ok(n) if n > 0 => continue,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                _ => break,
            }
        }
        self.lock().drain(..).collect()
    }

    /// The descriptor that becomes readable when events are queued.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.wake_rx.as_fd()
    }
}

/// The [`Host`] pmixrun gives its server: upcalls about the jobs' ranks become events.
pub struct JobHost {
    nspace: Nspace,
    events: Arc<Events>,
    store: PubStore,
    iof: Arc<crate::iof::IofSubs>,
    /// Tools that asked for an identity so far (the next one is `<nspace>-tool<n>`).
    tools: std::sync::atomic::AtomicU32,
    cred: crate::cred::CredService,
}

impl JobHost {
    /// A host for the job `nspace` (and the jobs its ranks spawn, whose namespaces
    /// start with it).
    #[cfg(test)]
    pub fn new(nspace: Nspace, events: Arc<Events>) -> JobHost {
        Self::with_store(nspace, events, PubStore::new())
    }

    /// A host whose `PMIx_Publish` data store is `store`.
    pub fn with_store(nspace: Nspace, events: Arc<Events>, store: PubStore) -> JobHost {
        JobHost {
            nspace,
            events,
            store,
            iof: Arc::default(),
            tools: Default::default(),
            cred: Default::default(),
        }
    }

    /// What the server asked to receive of the ranks' output (the launcher reads it).
    pub fn iof_subs(&self) -> Arc<crate::iof::IofSubs> {
        self.iof.clone()
    }

    fn rank_of(&self, proc: &ProcId) -> Option<ProcId> {
        let ours = proc.nspace == self.nspace
            || proc
                .nspace
                .as_str()
                .strip_prefix(self.nspace.as_str())
                .is_some_and(|rest| rest.starts_with('.'));
        if ours && proc.rank < pmix_sys::PMIX_RANK_VALID {
            Some(proc.clone())
        } else {
            log::warn!(
                "host upcall for {proc}, which is not a rank of {} or its spawned jobs",
                self.nspace
            );
            None
        }
    }
}

impl Host for JobHost {
    fn call(&self, c: HostCall) -> Result<HostReply> {
        match c {
            HostCall::ToolConnected {
                requested,
                info,
                done,
            } => self.tool_connected(requested.as_ref(), &info, done),
            HostCall::GetCredential {
                proc_,
                peer,
                directives,
                done,
            } => self.get_credential(&proc_, peer, &directives, done),
            HostCall::ValidateCredential {
                proc_,
                peer,
                cred,
                directives,
                done,
            } => self.validate_credential(&proc_, peer, &cred, &directives, done),
            HostCall::ClientFinalized { proc_, .. } => self.client_finalized(&proc_),
            HostCall::Abort {
                proc_,
                status,
                msg,
                targets,
                done,
            } => self.abort(&proc_, status, &msg, &targets, done),
            HostCall::Spawn {
                requester,
                job_info,
                apps,
                done,
            } => self.spawn(&requester, &job_info, &apps, done),
            HostCall::JobControl {
                proc_,
                targets,
                directives,
                done,
            } => self.job_control(&proc_, &targets, &directives, done),
            HostCall::Log {
                proc_,
                data,
                directives,
                done,
            } => self.log(&proc_, &data, &directives, done),
            HostCall::Publish { proc_, info, done } => self.publish(&proc_, &info, done),
            HostCall::Lookup {
                proc_,
                keys,
                info,
                done,
            } => self.lookup(&proc_, &keys, &info, done),
            HostCall::Unpublish {
                proc_,
                keys,
                info,
                done,
            } => self.unpublish(&proc_, &keys, &info, done),
            HostCall::IofPull {
                procs,
                channels,
                directives,
                done,
            } => self.iof_pull(&procs, channels, &directives, done),
            other => other.unsupported(),
        }
    }

    fn client_connected(&self, proc: &ProcId) -> Result<()> {
        if let Some(r) = self.rank_of(proc) {
            self.events.push(JobEvent::Connected(r));
        }
        Ok(())
    }

    fn client_lost(&self, proc: &ProcId) {
        self.store.proc_ended(proc);
        if let Some(r) = self.rank_of(proc) {
            self.events.push(JobEvent::Lost(r));
        }
    }
}

/// The upcalls pmixrun serves (see [`Host for JobHost`](#impl-Host-for-JobHost)).
impl JobHost {
    /// A tool that named itself keeps its name; one that asks gets `<nspace>-tool<n>`,
    /// rank 0 (outside the `<nspace>.<n>` names of spawned jobs, so a tool is never
    /// taken for a rank).
    fn tool_connected(
        &self,
        requested: Option<&ProcId>,
        _info: &[pmix_core::Info],
        done: pmix_core::server::HostDone<ProcId>,
    ) -> Result<HostReply> {
        let id = match requested {
            Some(p) => p.clone(),
            None => {
                let n = self
                    .tools
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                ProcId::new(Nspace::new(format!("{}-tool{}", self.nspace, n))?, 0)
            }
        };
        log::debug!("pmixrun: tool {id} connected");
        done(Ok(id));
        Ok(HostReply::Pending)
    }

    fn get_credential(
        &self,
        proc: &ProcId,
        peer: pmix_core::sys::PeerCred,
        directives: &[Info],
        done: HostDone<(Vec<u8>, Vec<Info>)>,
    ) -> Result<HostReply> {
        if !crate::cred::type_allowed(directives) {
            return Err(pmix_core::Error::not_supported(
                "pmixrun issues only pmixrun credentials",
            ));
        }
        done(Ok((
            self.cred.issue(proc, peer),
            crate::cred::issued_info(),
        )));
        Ok(HostReply::Pending)
    }

    fn validate_credential(
        &self,
        proc: &ProcId,
        _peer: pmix_core::sys::PeerCred,
        cred: &[u8],
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        if !crate::cred::type_allowed(directives) {
            return Err(pmix_core::Error::not_supported(
                "pmixrun checks only pmixrun credentials",
            ));
        }
        match self.cred.validate(cred) {
            Ok(c) => done(Ok(crate::cred::claims_info(&c))),
            Err(e) => {
                log::info!("credential from {proc} rejected: {e}");
                done(Err(e));
            }
        }
        Ok(HostReply::Pending)
    }

    fn client_finalized(&self, proc: &ProcId) -> Result<HostReply> {
        self.store.proc_ended(proc);
        if let Some(r) = self.rank_of(proc) {
            self.events.push_quiet(JobEvent::Finalized(r));
        }
        Ok(HostReply::Completed)
    }

    fn abort(
        &self,
        proc: &ProcId,
        status: i32,
        msg: &str,
        targets: &[ProcId],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        match self.rank_of(proc) {
            Some(proc_) => {
                self.events.push(JobEvent::Abort {
                    proc_,
                    status,
                    msg: msg.to_string(),
                    targets: targets.to_vec(),
                    done,
                });
                Ok(HostReply::Pending)
            }
            None => Err(pmix_core::Error::bad_param("abort from an unknown process")),
        }
    }

    fn spawn(
        &self,
        requester: &ProcId,
        job_info: &[Info],
        apps: &[App],
        done: HostDone<Nspace>,
    ) -> Result<HostReply> {
        self.events.push(JobEvent::Spawn {
            requester: requester.clone(),
            job_info: job_info.to_vec(),
            apps: apps.to_vec(),
            done,
        });
        Ok(HostReply::Pending)
    }

    fn job_control(
        &self,
        proc: &ProcId,
        targets: &[ProcId],
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        self.events.push(JobEvent::JobControl {
            requester: proc.clone(),
            targets: targets.to_vec(),
            directives: directives.to_vec(),
            done,
        });
        Ok(HostReply::Pending)
    }

    fn log(
        &self,
        proc: &ProcId,
        data: &[Info],
        _directives: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let mut handled = false;
        for i in data {
            let Some(text) = i.value.as_str() else {
                continue;
            };
            match i.key.as_str() {
                pmix_sys::attrs::keys::PMIX_LOG_STDERR => {
                    crate::output::write_line(&mut std::io::stderr().lock(), text);
                    handled = true;
                }
                pmix_sys::attrs::keys::PMIX_LOG_STDOUT => {
                    crate::output::write_line(&mut std::io::stdout().lock(), text);
                    handled = true;
                }
                _ => {}
            }
        }
        if handled {
            done(Ok(()));
        } else {
            log::debug!("log request from {proc} names no channel pmixrun has");
            done(Err(pmix_core::Error::not_supported(
                "pmixrun logs to PMIX_LOG_STDERR and PMIX_LOG_STDOUT only",
            )));
        }
        Ok(HostReply::Pending)
    }

    fn publish(&self, proc: &ProcId, info: &[Info], done: HostDone<()>) -> Result<HostReply> {
        done(self.store.publish(proc, info));
        Ok(HostReply::Pending)
    }

    fn lookup(
        &self,
        proc: &ProcId,
        keys: &[String],
        info: &[Info],
        done: HostDone<Vec<Pdata>>,
    ) -> Result<HostReply> {
        self.store.lookup(proc, keys, info, done);
        Ok(HostReply::Pending)
    }

    fn unpublish(
        &self,
        proc: &ProcId,
        keys: &[String],
        info: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        self.store.unpublish(proc, keys, info);
        done(Ok(()));
        Ok(HostReply::Pending)
    }

    /// A rank pulls output: the launcher starts (or stops) handing the server the
    /// ranks' output this covers. (`push_stdin` is not implemented: ranks read
    /// /dev/null or pmixrun's own stdin, so pushes are refused with NOT_SUPPORTED.)
    fn iof_pull(
        &self,
        procs: &[ProcId],
        channels: pmix_core::iof::Channels,
        directives: &[Info],
        _done: HostDone<()>,
    ) -> Result<HostReply> {
        self.iof.update(procs, channels, directives);
        Ok(HostReply::Completed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns() -> Nspace {
        Nspace::new("job").expect("nspace")
    }

    #[test]
    fn upcalls_become_events_in_order() {
        let ev = Events::new().expect("events");
        let host = JobHost::new(ns(), ev.clone());
        host.client_connected(&ProcId::new(ns(), 1))
            .expect("connect");
        let finalized = |proc_| {
            let r = host.call(HostCall::ClientFinalized {
                proc_,
                done: Box::new(|_| {}),
            });
            assert!(matches!(r, Ok(HostReply::Completed)));
        };
        finalized(ProcId::new(ns(), 1));
        // Another namespace, and a special rank, are ignored; a spawned job's are not.
        finalized(ProcId::new(Nspace::new("other").expect("ns"), 0));
        finalized(ProcId::new(Nspace::new("jobx").expect("ns"), 0));
        finalized(ProcId::new(Nspace::new("job.1").expect("ns"), 3));
        finalized(ProcId::new(ns(), pmix_sys::PMIX_RANK_WILDCARD));
        let reply = host
            .call(HostCall::Abort {
                proc_: ProcId::new(ns(), 2),
                status: 7,
                msg: "bye".into(),
                targets: vec![],
                done: Box::new(|_| {}),
            })
            .expect("abort");
        assert!(matches!(reply, HostReply::Pending));
        let got: Vec<String> = ev.drain().iter().map(|e| format!("{e:?}")).collect();
        assert_eq!(
            got,
            vec![
                "Connected(1)",
                "Finalized(1)",
                "Finalized(3)",
                "Abort(2, 7, \"bye\")"
            ]
        );
        assert!(ev.drain().is_empty());
    }

    #[test]
    fn push_wakes_the_fd() {
        let ev = Events::new().expect("events");
        let ready = |ev: &Events| {
            crate::sys::poll_readable(&[ev.fd()], 0)
                .expect("poll")
                .len()
        };
        assert_eq!(ready(&ev), 0);
        ev.push(JobEvent::Connected(ProcId::new(ns(), 0)));
        assert_eq!(ready(&ev), 1);
        assert_eq!(ev.drain().len(), 1);
        assert_eq!(ready(&ev), 0);
        // A quiet event waits for the next drain without waking the loop.
        ev.push_quiet(JobEvent::Finalized(ProcId::new(ns(), 0)));
        assert_eq!(ready(&ev), 0);
        assert_eq!(ev.drain().len(), 1);
    }
}
