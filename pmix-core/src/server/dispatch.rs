//! The one dispatcher between the state machine and its host: an [`Upcall`] out of a
//! state-machine step becomes a [`HostCall`] handed to [`Host::call`](super::Host::call)
//! (after the state lock is released), and its completion becomes the state-machine input
//! the upcall names, run on the progress thread exactly once, whether the host answers
//! through `done`, synchronously ([`HostReply::Completed`]) or with an error.

use super::state::{Action, MonitorAsk, ServerState, Upcall};
use super::{HostCall, HostDone, HostReply, Shared};
use crate::error::{Error, Result};
use crate::protocol::hostops::HostOpReq;
use crate::reactor::{ConnId, Ctx};
use crate::sys::PeerCred;
use crate::value::{Nspace, ProcId};
use pmix_sys as sys;
use std::sync::{Arc, Mutex};

/// What runs once on the progress thread with an upcall's outcome.
pub(super) type Finish<T> = Box<dyn FnOnce(&Arc<Shared>, &mut Ctx, Result<T>) + Send>;

/// A [`Finish`] that is one state-machine step.
fn step<T: 'static>(
    f: impl FnOnce(&mut ServerState, Result<T>, &mut Vec<Action>) + Send + 'static,
) -> Finish<T> {
    Box::new(move |me, ctx, r| me.step(ctx, |s, out| f(s, r, out)))
}

impl Shared {
    /// Make one upcall: `make` builds the call around its `done`; `finish` runs once on
    /// the progress thread with the outcome (`completed` supplies it when the host
    /// finished synchronously).
    pub(super) fn upcall<T: Send + 'static>(
        self: &Arc<Self>,
        ctx: &mut Ctx,
        make: impl FnOnce(HostDone<T>) -> HostCall,
        completed: impl FnOnce() -> Result<T>,
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
                    f(&m2, ctx, r);
                }
            });
        });
        let call = make(done);
        let name = call.name();
        let r = match self.host.call(call) {
            Ok(HostReply::Pending) => return,
            Ok(HostReply::Completed) => completed(),
            Err(e) => {
                log::debug!("server: host {} upcall failed: {}", name, e);
                Err(e)
            }
        };
        if let Some(f) = take(&slot) {
            f(self, ctx, r);
        }
    }

    /// Carry out one [`Upcall`] of the state machine.
    pub(super) fn dispatch(self: &Arc<Self>, ctx: &mut Ctx, up: Upcall) {
        match up {
            Upcall::Lost(p) => self.host.client_lost(&p),
            Upcall::Notify {
                source,
                status,
                range,
                info,
            } => self.host.notify_event(&source, status, range, &info),
            Upcall::Fence {
                id,
                procs,
                info,
                data,
            } => self.upcall(
                ctx,
                |done| HostCall::Fence {
                    procs,
                    info,
                    data,
                    done,
                },
                || Ok(Vec::new()),
                step(move |s, r, out| s.fence_done(id, r, out)),
            ),
            Upcall::Dmodex { proc_, key, info } => {
                let p2 = proc_.clone();
                self.upcall(
                    ctx,
                    |done| HostCall::DirectModex { proc_, info, done },
                    || Ok(Vec::new()),
                    step(move |s, r, out| s.dmodex_done(&p2, key.as_ref(), r, out)),
                )
            }
            Upcall::Finalized { conn, tag, proc_ } => self.upcall(
                ctx,
                |done| HostCall::ClientFinalized { proc_, done },
                || Ok(()),
                // The host's verdict does not matter: the client is answered either way.
                step(move |s, _r: Result<()>, out| s.finalize_done(conn, tag, out)),
            ),
            Upcall::Abort {
                conn,
                tag,
                proc_,
                status,
                msg,
                targets,
            } => self.upcall(
                ctx,
                |done| HostCall::Abort {
                    proc_,
                    status,
                    msg,
                    targets,
                    done,
                },
                || Ok(()),
                step(move |s, r, out| s.abort_done(conn, tag, r, out)),
            ),
            Upcall::Tool {
                conn,
                requested,
                info,
            } => self.upcall(
                ctx,
                |done| HostCall::ToolConnected {
                    requested,
                    info,
                    done,
                },
                // Only a host that calls back names the tool.
                || {
                    Err(Error::new(
                        sys::PMIX_OPERATION_SUCCEEDED,
                        "the host finished the tool's connection without naming it",
                    ))
                },
                Box::new(move |me, ctx, r| me.tool_verdict(ctx, conn, r)),
            ),
            Upcall::HostOp {
                conn,
                tag,
                proc_,
                peer,
                req,
            } => self.host_op(ctx, conn, tag, proc_, peer, req),
            other => self.dispatch_dynamic(ctx, other),
        }
    }

    /// The upcalls of the dynamic operations (connect, spawn, publish, queries, groups,
    /// IO forwarding).
    fn dispatch_dynamic(self: &Arc<Self>, ctx: &mut Ctx, up: Upcall) {
        match up {
            Upcall::Connect {
                id,
                procs,
                info,
                data,
            } => self.upcall(
                ctx,
                |done| HostCall::Connect {
                    procs,
                    info,
                    data,
                    done,
                },
                || Ok(Vec::new()),
                step(move |s, r, out| s.connect_done(id, r, out)),
            ),
            Upcall::Disconnect { id, procs, info } => self.upcall(
                ctx,
                |done| HostCall::Disconnect { procs, info, done },
                || Ok(()),
                step(move |s, r, out| s.disconnect_done(id, r, out)),
            ),
            Upcall::Spawn {
                conn,
                tag,
                proc_,
                job_info,
                apps,
            } => {
                let p2 = proc_.clone();
                self.upcall(
                    ctx,
                    |done: HostDone<Option<Nspace>>| HostCall::Spawn {
                        requester: proc_,
                        job_info,
                        apps,
                        done: Box::new(move |r| done(r.map(Some))),
                    },
                    || Ok(None),
                    step(move |s, r, out| s.spawn_done(conn, tag, &p2, r, out)),
                )
            }
            Upcall::Publish {
                conn,
                tag,
                proc_,
                info,
            } => self.upcall(
                ctx,
                |done| HostCall::Publish { proc_, info, done },
                || Ok(()),
                step(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            Upcall::Lookup {
                conn,
                tag,
                proc_,
                keys,
                info,
            } => self.upcall(
                ctx,
                |done| HostCall::Lookup {
                    proc_,
                    keys,
                    info,
                    done,
                },
                || Ok(Vec::new()),
                step(move |s, r, out| s.lookup_done(conn, tag, r, out)),
            ),
            Upcall::Unpublish {
                conn,
                tag,
                proc_,
                keys,
                info,
            } => self.upcall(
                ctx,
                |done| HostCall::Unpublish {
                    proc_,
                    keys,
                    info,
                    done,
                },
                || Ok(()),
                step(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            other => self.dispatch_services(ctx, other),
        }
    }

    /// The upcalls of queries, logging, job control, groups and IO forwarding.
    fn dispatch_services(self: &Arc<Self>, ctx: &mut Ctx, up: Upcall) {
        match up {
            Upcall::Query {
                conn,
                tag,
                proc_,
                queries,
                state,
            } => self.upcall(
                ctx,
                |done| HostCall::Query {
                    proc_,
                    queries,
                    done,
                },
                || Ok(Vec::new()),
                step(move |s, r, out| s.query_done(conn, tag, state, r, out)),
            ),
            Upcall::Log {
                conn,
                tag,
                proc_,
                data,
                directives,
            } => self.upcall(
                ctx,
                |done| HostCall::Log {
                    proc_,
                    data,
                    directives,
                    done,
                },
                || Ok(()),
                step(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            Upcall::JobControl {
                conn,
                tag,
                proc_,
                targets,
                directives,
            } => self.upcall(
                ctx,
                |done| HostCall::JobControl {
                    proc_,
                    targets,
                    directives,
                    done,
                },
                || Ok(Vec::new()),
                step(move |s, r, out| s.infos_done(conn, tag, r, out)),
            ),
            Upcall::Group {
                id,
                construct,
                grp,
                procs,
                info,
            } => self.upcall(
                ctx,
                |done| HostCall::Group {
                    construct,
                    grp,
                    procs,
                    info,
                    done,
                },
                || Ok(Vec::new()),
                step(move |s, r, out| s.group_done(id, r, out)),
            ),
            other => self.dispatch_iof(ctx, other),
        }
    }

    /// The upcalls of IO forwarding.
    fn dispatch_iof(self: &Arc<Self>, ctx: &mut Ctx, up: Upcall) {
        match up {
            Upcall::IofPull {
                conn,
                tag,
                id,
                procs,
                channels,
                directives,
            } => self.upcall(
                ctx,
                |done| HostCall::IofPull {
                    procs,
                    channels,
                    directives,
                    done,
                },
                || Ok(()),
                step(move |s, r, out| s.iof_pull_done(conn, tag, id, r, out)),
            ),
            Upcall::IofStop {
                conn,
                tag,
                procs,
                channels,
                directives,
            } => self.upcall(
                ctx,
                |done| HostCall::IofPull {
                    procs,
                    channels,
                    directives,
                    done,
                },
                || Ok(()),
                step(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            Upcall::PushStdin {
                conn,
                tag,
                source,
                targets,
                directives,
                data,
            } => self.upcall(
                ctx,
                |done| HostCall::PushStdin {
                    source,
                    targets,
                    directives,
                    data,
                    done,
                },
                || Ok(()),
                step(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            other => log::error!("server: upcall {:?} reached no dispatcher", other),
        }
    }

    /// Carry out one host-slot request for the client on `conn`.
    fn host_op(
        self: &Arc<Self>,
        ctx: &mut Ctx,
        conn: ConnId,
        tag: u32,
        proc_: ProcId,
        peer: PeerCred,
        req: HostOpReq,
    ) {
        let infos =
            move |s: &mut ServerState, r, out: &mut Vec<Action>| s.infos_done(conn, tag, r, out);
        match req {
            HostOpReq::GetCredential { directives } => self.upcall(
                ctx,
                |done| HostCall::GetCredential {
                    proc_,
                    peer,
                    directives,
                    done,
                },
                // A host that finishes at once without a credential issued an empty one.
                || Ok((Vec::new(), Vec::new())),
                step(move |s, r, out| s.credential_done(conn, tag, r, out)),
            ),
            HostOpReq::ValidateCredential { cred, directives } => self.upcall(
                ctx,
                |done| HostCall::ValidateCredential {
                    proc_,
                    peer,
                    cred,
                    directives,
                    done,
                },
                || Ok(Vec::new()),
                step(infos),
            ),
            HostOpReq::Allocate { directive, info } => self.upcall(
                ctx,
                |done| HostCall::Allocate {
                    proc_,
                    directive,
                    info,
                    done,
                },
                || Ok(Vec::new()),
                step(infos),
            ),
            HostOpReq::Monitor {
                monitor,
                error,
                directives,
            } => {
                // Kept for a heartbeat watch the host leaves to the server (`monitor`).
                let asked = (proc_.clone(), monitor.clone(), directives.clone());
                self.upcall(
                    ctx,
                    |done| HostCall::Monitor {
                        proc_,
                        monitor,
                        error,
                        directives,
                        done,
                    },
                    || Ok(Vec::new()),
                    step(move |s, r, out| {
                        let (me, monitor, directives) = asked;
                        let ask = MonitorAsk {
                            conn,
                            tag,
                            me: &me,
                            monitor: &monitor,
                            code: error,
                            directives: &directives,
                        };
                        s.monitor_host_done(&ask, r, out)
                    }),
                )
            }
            HostOpReq::SessionControl {
                session,
                directives,
            } => self.upcall(
                ctx,
                |done| HostCall::SessionControl {
                    proc_,
                    session,
                    directives,
                    done,
                },
                || Ok(Vec::new()),
                step(infos),
            ),
            other => self.host_op_resources(ctx, conn, tag, proc_, other),
        }
    }

    /// The host-slot requests about fabrics and resource blocks.
    fn host_op_resources(
        self: &Arc<Self>,
        ctx: &mut Ctx,
        conn: ConnId,
        tag: u32,
        proc_: ProcId,
        req: HostOpReq,
    ) {
        match req {
            HostOpReq::Fabric { op, info } => self.upcall(
                ctx,
                |done| HostCall::Fabric {
                    proc_,
                    op,
                    info,
                    done,
                },
                || Ok(Vec::new()),
                step(move |s, r, out| s.infos_done(conn, tag, r, out)),
            ),
            HostOpReq::ResourceBlock {
                directive,
                block,
                units,
                info,
            } => self.upcall(
                ctx,
                |done| HostCall::ResourceBlock {
                    proc_,
                    directive,
                    block,
                    units,
                    info,
                    done,
                },
                || Ok(()),
                step(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            // Counted by the state machine, never an upcall.
            HostOpReq::Heartbeat => {}
            other => log::error!(
                "server: host-slot request {:?} reached no dispatcher",
                other
            ),
        }
    }
}
