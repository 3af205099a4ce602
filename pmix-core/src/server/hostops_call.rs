//! Making the host upcall of a host-slot request (`server/hostops.rs` decides, this file
//! calls the [`Host`](super::Host) method on the progress thread and feeds the answer
//! back to the state machine).

use super::{HostDone, Shared};
use crate::protocol::hostops::HostOpReq;
use crate::reactor::{ConnId, Ctx};
use crate::sys::PeerCred;
use crate::value::ProcId;
use std::sync::Arc;

impl Shared {
    /// Carry out one host-slot request for the client on `conn`.
    pub(super) fn hostop_call(
        self: &Arc<Self>,
        ctx: &mut Ctx,
        conn: ConnId,
        tag: u32,
        proc_: ProcId,
        peer: PeerCred,
        req: HostOpReq,
    ) {
        match req {
            HostOpReq::GetCredential { directives } => self.upcall(
                ctx,
                |h, done: HostDone<(Vec<u8>, Vec<_>)>| {
                    h.get_credential(&proc_, peer, &directives, done)
                },
                // A host that finishes at once without a credential issued an empty one.
                || (Vec::new(), Vec::new()),
                Box::new(move |s, r, out| s.credential_done(conn, tag, r, out)),
            ),
            HostOpReq::ValidateCredential { cred, directives } => self.upcall(
                ctx,
                |h, done| h.validate_credential(&proc_, peer, &cred, &directives, done),
                Vec::new,
                Box::new(move |s, r, out| s.infos_done(conn, tag, r, out)),
            ),
            HostOpReq::Allocate { directive, info } => self.upcall(
                ctx,
                |h, done| h.allocate(&proc_, directive, &info, done),
                Vec::new,
                Box::new(move |s, r, out| s.infos_done(conn, tag, r, out)),
            ),
            HostOpReq::Monitor {
                monitor,
                error,
                directives,
            } => self.upcall(
                ctx,
                |h, done| h.monitor(&proc_, &monitor, error, &directives, done),
                Vec::new,
                Box::new(move |s, r, out| s.infos_done(conn, tag, r, out)),
            ),
            HostOpReq::SessionControl {
                session,
                directives,
            } => self.upcall(
                ctx,
                |h, done| h.session_control(&proc_, session, &directives, done),
                Vec::new,
                Box::new(move |s, r, out| s.infos_done(conn, tag, r, out)),
            ),
            HostOpReq::Fabric { op, info } => self.upcall(
                ctx,
                |h, done| h.fabric(&proc_, op, &info, done),
                Vec::new,
                Box::new(move |s, r, out| s.infos_done(conn, tag, r, out)),
            ),
            HostOpReq::ResourceBlock {
                directive,
                block,
                units,
                info,
            } => self.upcall(
                ctx,
                |h, done| {
                    h.resource_block(&proc_, directive, block.as_deref(), &units, &info, done)
                },
                || (),
                Box::new(move |s, r, out| s.op_done(conn, tag, r, out)),
            ),
            // Counted by the state machine, never an upcall.
            HostOpReq::Heartbeat => {}
        }
    }
}
