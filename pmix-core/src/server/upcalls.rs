//! Host upcalls of the dynamic operations: the state machine asks for one with
//! [`Action::Host`](super::state::Action::Host); this file calls the [`Host`](super::Host)
//! method (after the state lock is released) and feeds its answer back into the state
//! machine on the progress thread, exactly once, whether the host answers through `done`,
//! synchronously (`HostReply::Completed`) or with an error.

use super::state::{Action, ServerState};
use super::{HostDone, HostReply, Shared};
use crate::error::Result;
use crate::reactor::{ConnId, Ctx};
use crate::value::{App, Info, Pdata, ProcId, Query};
use std::sync::{Arc, Mutex};

/// One upcall the state machine wants made.
#[derive(Debug)]
pub enum HostCall {
    /// `Host::connect`; the answer goes to `ServerState::connect_done(id, …)`.
    Connect {
        /// Tracker id.
        id: u64,
        /// Participants, sorted.
        procs: Vec<ProcId>,
        /// Directives of the first participant.
        info: Vec<Info>,
        /// This server's connect blob.
        data: Vec<u8>,
    },
    /// `Host::disconnect`; the answer goes to `ServerState::disconnect_done(id, …)`.
    Disconnect {
        /// Tracker id.
        id: u64,
        /// Participants, sorted.
        procs: Vec<ProcId>,
        /// Directives of the first participant.
        info: Vec<Info>,
    },
    /// `Host::spawn` for a client's request.
    Spawn {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Job-level directives.
        job_info: Vec<Info>,
        /// Applications.
        apps: Vec<App>,
    },
    /// `Host::publish`.
    Publish {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The publisher.
        proc_: ProcId,
        /// Data and directives.
        info: Vec<Info>,
    },
    /// `Host::lookup`.
    Lookup {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Keys wanted.
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `Host::unpublish`.
    Unpublish {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Keys to remove.
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `Host::query`.
    Query {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Queries the server could not answer itself.
        queries: Vec<Query>,
        /// Results the server already has (merged with the host's).
        state: super::state::QueryState,
    },
    /// `Host::log`.
    Log {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// What to log.
        data: Vec<Info>,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `Host::job_control`.
    JobControl {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Targets.
        targets: Vec<ProcId>,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `Host::iof_pull` for a client's registration; the answer goes to
    /// `ServerState::iof_pull_done`.
    IofPull {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The client's id of the registration.
        id: u64,
        /// Sources.
        procs: Vec<ProcId>,
        /// Channels.
        channels: crate::iof::Channels,
        /// The client's directives.
        directives: Vec<Info>,
    },
    /// `Host::iof_pull` with `PMIX_IOF_STOP`: a client deregistered.
    IofStop {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The registration's sources.
        procs: Vec<ProcId>,
        /// Its channels.
        channels: crate::iof::Channels,
        /// The client's directives plus `PMIX_IOF_STOP`.
        directives: Vec<Info>,
    },
    /// `Host::push_stdin` for a client's `PMIx_IOF_push`.
    PushStdin {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// Who pushes.
        source: ProcId,
        /// Recipients.
        targets: Vec<ProcId>,
        /// Directives.
        directives: Vec<Info>,
        /// The bytes, if any.
        data: Option<Vec<u8>>,
    },
    /// A host-slot request (credentials, allocation, monitoring, session control);
    /// carried out in `server/hostops_call.rs`.
    HostOp {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// What the kernel reported for the requester's connection.
        peer: crate::sys::PeerCred,
        /// The request.
        req: crate::protocol::hostops::HostOpReq,
    },
    /// `Host::group`.
    Group {
        /// Tracker id; the answer goes to `ServerState::group_done(id, …)`.
        id: u64,
        /// True for construct, false for destruct.
        construct: bool,
        /// Group name.
        grp: String,
        /// Members, sorted.
        procs: Vec<ProcId>,
        /// Directives.
        info: Vec<Info>,
    },
}

pub(super) type Finish<T> = Box<dyn FnOnce(&mut ServerState, Result<T>, &mut Vec<Action>) + Send>;

impl Shared {
    /// Make one upcall: `call` invokes the host with a `done` callback; `finish` runs once
    /// on the progress thread with the outcome (`completed` supplies the value when the
    /// host finished synchronously).
    pub(super) fn upcall<T: Send + 'static>(
        self: &Arc<Self>,
        ctx: &mut Ctx,
        call: impl FnOnce(&dyn super::Host, HostDone<T>) -> Result<HostReply>,
        completed: impl FnOnce() -> T,
        finish: Finish<T>,
    ) {
        let slot: Arc<Mutex<Option<Finish<T>>>> = Arc::new(Mutex::new(Some(finish)));
        let take =
            |s: &Arc<Mutex<Option<Finish<T>>>>| s.lock().unwrap_or_else(|p| p.into_inner()).take();
        let me = self.clone();
        let s2 = slot.clone();
        let done: HostDone<T> = Box::new(move |r| {
            let m2 = me.clone();
            let _ = me.handle.post(move |ctx| {
                if let Some(f) = take(&s2) {
                    m2.step(ctx, |s, out| f(s, r, out));
                }
            });
        });
        let r = match call(&*self.host, done) {
            Ok(HostReply::Pending) => return,
            Ok(HostReply::Completed) => Ok(completed()),
            Err(e) => Err(e),
        };
        if let Some(f) = take(&slot) {
            self.step(ctx, |s, out| f(s, r, out));
        }
    }

    /// Carry out one [`HostCall`].
    pub(super) fn host_call(self: &Arc<Self>, ctx: &mut Ctx, c: HostCall) {
        match c {
            HostCall::Connect {
                id,
                procs,
                info,
                data,
            } => self.upcall(
                ctx,
                |h, done| h.connect(&procs, &info, data, done),
                Vec::new,
                Box::new(move |s, r, out| s.connect_done(id, r, out)),
            ),
            HostCall::Disconnect { id, procs, info } => self.upcall(
                ctx,
                |h, done| h.disconnect(&procs, &info, done),
                || (),
                Box::new(move |s, r, out| s.disconnect_done(id, r, out)),
            ),
            HostCall::Spawn {
                conn,
                tag,
                proc_,
                job_info,
                apps,
            } => {
                let p2 = proc_.clone();
                self.upcall(
                    ctx,
                    |h, done: HostDone<Option<crate::value::Nspace>>| {
                        h.spawn(
                            &proc_,
                            &job_info,
                            &apps,
                            Box::new(move |r| done(r.map(Some))),
                        )
                    },
                    || None,
                    Box::new(move |s, r, out| s.spawn_done(conn, tag, &p2, r, out)),
                )
            }
            HostCall::Publish {
                conn,
                tag,
                proc_,
                info,
            } => self.upcall(
                ctx,
                |h, done| h.publish(&proc_, &info, done),
                || (),
                Box::new(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            HostCall::Lookup {
                conn,
                tag,
                proc_,
                keys,
                info,
            } => self.upcall(
                ctx,
                |h, done| h.lookup(&proc_, &keys, &info, done),
                Vec::<Pdata>::new,
                Box::new(move |s, r, out| s.lookup_done(conn, tag, r, out)),
            ),
            HostCall::Unpublish {
                conn,
                tag,
                proc_,
                keys,
                info,
            } => self.upcall(
                ctx,
                |h, done| h.unpublish(&proc_, &keys, &info, done),
                || (),
                Box::new(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            HostCall::Query {
                conn,
                tag,
                proc_,
                queries,
                state,
            } => self.upcall(
                ctx,
                |h, done| h.query(&proc_, &queries, done),
                Vec::new,
                Box::new(move |s, r, out| s.query_done(conn, tag, state, r, out)),
            ),
            HostCall::Log {
                conn,
                tag,
                proc_,
                data,
                directives,
            } => self.upcall(
                ctx,
                |h, done| h.log(&proc_, &data, &directives, done),
                || (),
                Box::new(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            HostCall::JobControl {
                conn,
                tag,
                proc_,
                targets,
                directives,
            } => self.upcall(
                ctx,
                |h, done| h.job_control(&proc_, &targets, &directives, done),
                Vec::new,
                Box::new(move |s, r, out| s.infos_done(conn, tag, r, out)),
            ),
            HostCall::IofPull {
                conn,
                tag,
                id,
                procs,
                channels,
                directives,
            } => self.upcall(
                ctx,
                |h, done| h.iof_pull(&procs, channels, &directives, done),
                || (),
                Box::new(move |s, r, out| s.iof_pull_done(conn, tag, id, r, out)),
            ),
            HostCall::IofStop {
                conn,
                tag,
                procs,
                channels,
                directives,
            } => self.upcall(
                ctx,
                |h, done| h.iof_pull(&procs, channels, &directives, done),
                || (),
                Box::new(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            HostCall::PushStdin {
                conn,
                tag,
                source,
                targets,
                directives,
                data,
            } => self.upcall(
                ctx,
                |h, done| h.push_stdin(&source, &targets, &directives, data.as_deref(), done),
                || (),
                Box::new(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            HostCall::HostOp {
                conn,
                tag,
                proc_,
                peer,
                req,
            } => self.hostop_call(ctx, conn, tag, proc_, peer, req),
            HostCall::Group {
                id,
                construct,
                grp,
                procs,
                info,
            } => self.upcall(
                ctx,
                |h, done| h.group(construct, &grp, &procs, &info, done),
                Vec::new,
                Box::new(move |s, r, out| s.group_done(id, r, out)),
            ),
        }
    }
}
