//! pmixrun as the PMIx server's host: the [`Host`] upcalls (which run on the server's
//! progress thread) become [`JobEvent`]s in a queue that the launcher's main loop
//! drains; a socket pair wakes the loop's `poll`.

use pmix_core::server::{Host, HostDone, HostReply};
use pmix_core::{Nspace, ProcId, Rank, Result};
use std::collections::VecDeque;
use std::fmt;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, MutexGuard};

/// Something the server told the host about one rank of the job.
pub enum JobEvent {
    /// The rank connected to the server (it called `PMIx_Init`).
    Connected(Rank),
    /// The rank called `PMIx_Finalize`.
    Finalized(Rank),
    /// The rank's connection closed before it called `PMIx_Finalize`.
    Lost(Rank),
    /// The rank called `PMIx_Abort`. `done` releases the caller; the launcher calls it
    /// once the job is being killed.
    Abort {
        /// Who called it.
        rank: Rank,
        /// The status it passed.
        status: i32,
        /// Its message.
        msg: String,
        /// Completion of the upcall.
        done: HostDone<()>,
    },
    /// A node's PMIx server went away (multi-node bench only).
    NodeFailed {
        /// The node id.
        node: u32,
        /// What happened.
        msg: String,
    },
}

impl fmt::Debug for JobEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobEvent::Connected(r) => write!(f, "Connected({r})"),
            JobEvent::Finalized(r) => write!(f, "Finalized({r})"),
            JobEvent::Lost(r) => write!(f, "Lost({r})"),
            JobEvent::Abort {
                rank, status, msg, ..
            } => write!(f, "Abort({rank}, {status}, {msg:?})"),
            JobEvent::NodeFailed { node, msg } => write!(f, "NodeFailed({node}, {msg:?})"),
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
    pub fn fd(&self) -> RawFd {
        self.wake_rx.as_raw_fd()
    }
}

/// The [`Host`] pmixrun gives its server: upcalls about the job's ranks become events.
pub struct JobHost {
    nspace: Nspace,
    events: Arc<Events>,
}

impl JobHost {
    /// A host for the job `nspace`.
    pub fn new(nspace: Nspace, events: Arc<Events>) -> JobHost {
        JobHost { nspace, events }
    }

    fn rank_of(&self, proc: &ProcId) -> Option<Rank> {
        if proc.nspace == self.nspace && proc.rank < pmix_sys::PMIX_RANK_VALID {
            Some(proc.rank)
        } else {
            log::warn!(
                "host upcall for {proc}, which is not a rank of {}",
                self.nspace
            );
            None
        }
    }
}

impl Host for JobHost {
    fn client_connected(&self, proc: &ProcId) -> Result<()> {
        if let Some(r) = self.rank_of(proc) {
            self.events.push(JobEvent::Connected(r));
        }
        Ok(())
    }

    fn client_finalized(&self, proc: &ProcId) {
        if let Some(r) = self.rank_of(proc) {
            self.events.push(JobEvent::Finalized(r));
        }
    }

    fn client_lost(&self, proc: &ProcId) {
        if let Some(r) = self.rank_of(proc) {
            self.events.push(JobEvent::Lost(r));
        }
    }

    fn abort(
        &self,
        proc: &ProcId,
        status: i32,
        msg: &str,
        _targets: &[ProcId],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        // Any abort ends the whole job (whatever the targets), as mpirun does.
        match self.rank_of(proc) {
            Some(rank) => {
                self.events.push(JobEvent::Abort {
                    rank,
                    status,
                    msg: msg.to_string(),
                    done,
                });
                Ok(HostReply::Pending)
            }
            None => Err(pmix_core::Error::bad_param("abort from an unknown process")),
        }
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
        host.client_finalized(&ProcId::new(ns(), 1));
        // Another namespace, and a special rank, are ignored.
        host.client_finalized(&ProcId::new(Nspace::new("other").expect("ns"), 0));
        host.client_finalized(&ProcId::new(ns(), pmix_sys::PMIX_RANK_WILDCARD));
        let reply = host
            .abort(&ProcId::new(ns(), 2), 7, "bye", &[], Box::new(|_| {}))
            .expect("abort");
        assert!(matches!(reply, HostReply::Pending));
        let got: Vec<String> = ev.drain().iter().map(|e| format!("{e:?}")).collect();
        assert_eq!(
            got,
            vec!["Connected(1)", "Finalized(1)", "Abort(2, 7, \"bye\")"]
        );
        assert!(ev.drain().is_empty());
    }

    #[test]
    fn push_wakes_the_fd() {
        let ev = Events::new().expect("events");
        let mut pfd = [libc::pollfd {
            fd: ev.fd(),
            events: libc::POLLIN,
            revents: 0,
        }];
        assert_eq!(crate::sys::poll(&mut pfd, 0).expect("poll"), 0);
        ev.push(JobEvent::Connected(0));
        assert_eq!(crate::sys::poll(&mut pfd, 0).expect("poll"), 1);
        assert_eq!(ev.drain().len(), 1);
        assert_eq!(crate::sys::poll(&mut pfd, 0).expect("poll"), 0);
    }
}
