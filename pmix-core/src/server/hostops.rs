//! The server's side of the requests it hands to a host module slot (credentials,
//! allocation, monitoring, session control, see `protocol::hostops`): check them, ask
//! the host, answer the client. A host without the slot answers
//! `PMIX_ERR_NOT_SUPPORTED`, which reaches the client unchanged (OpenPMIx's server
//! refuses those requests the same way).
//!
//! The credential upcalls carry the kernel's view of the requester (`SO_PEERCRED` of its
//! connection, recorded here when it connected), so a host can issue and check
//! credentials without trusting anything the client says about itself.

use super::{reply, Action, ServerState};
use crate::error::Result;
use crate::protocol::hostops::{HostOpReq, CRED_REPLY_KEY};
use crate::protocol::{self, ReplyData};
use crate::reactor::ConnId;
use crate::server::state::Upcall;
use crate::sys::PeerCred;
use crate::value::{Info, ProcId, Value};
use pmix_sys as sys;
use std::collections::HashMap;

/// What the host-slot requests keep between requests.
#[derive(Default)]
pub struct HostOpsState {
    /// The kernel-reported credentials of each open connection.
    pub(super) peers: HashMap<ConnId, PeerCred>,
    /// Heartbeats received, per process.
    pub(super) beats: HashMap<ProcId, u64>,
}

impl ServerState {
    /// Record what `SO_PEERCRED` reported for a new connection.
    pub fn set_peer_cred(&mut self, conn: ConnId, cred: PeerCred) {
        self.hostops.peers.insert(conn, cred);
    }

    /// Forget a closed connection's credentials.
    pub(super) fn hostops_conn_gone(&mut self, conn: ConnId) {
        self.hostops.peers.remove(&conn);
    }

    /// How many `PMIx_Heartbeat`s `p` sent.
    pub fn heartbeats(&self, p: &ProcId) -> u64 {
        self.hostops.beats.get(p).copied().unwrap_or(0)
    }

    /// A host-slot request from an accepted client.
    pub(super) fn hostop_request(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        r: HostOpReq,
        out: &mut Vec<Action>,
    ) {
        if let HostOpReq::Heartbeat = r {
            *self.hostops.beats.entry(me.clone()).or_insert(0) += 1;
            log::debug!("server: heartbeat from {}", me);
            return;
        }
        if let HostOpReq::Monitor {
            monitor,
            error,
            directives,
        } = &r
        {
            let ask = super::MonitorAsk {
                conn,
                tag,
                me,
                monitor,
                code: *error,
                directives,
            };
            match self.monitor_request(&ask, out) {
                super::monitor::Route::Served => return,
                super::monitor::Route::Host => {}
                super::monitor::Route::Far(directives) => {
                    let r = HostOpReq::Monitor {
                        monitor: monitor.clone(),
                        error: *error,
                        directives,
                    };
                    return self.hostop_upcall(conn, tag, me, r, out);
                }
            }
        }
        self.hostop_upcall(conn, tag, me, r, out);
    }

    /// Hand a host-slot request to the host, with the kernel's view of the requester.
    fn hostop_upcall(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        r: HostOpReq,
        out: &mut Vec<Action>,
    ) {
        // Unknown only if the connection was never recorded, which `on_accept` rules out;
        // an all-ones identity then matches nobody.
        let peer = self.hostops.peers.get(&conn).copied().unwrap_or(PeerCred {
            pid: -1,
            uid: u32::MAX,
            gid: u32::MAX,
        });
        out.push(Action::Host(Upcall::HostOp {
            conn,
            tag,
            proc_: me.clone(),
            peer,
            req: r,
        }));
    }

    /// The host issued a credential: it travels first in the reply's infos.
    pub fn credential_done(
        &mut self,
        conn: ConnId,
        tag: u32,
        r: Result<(Vec<u8>, Vec<Info>)>,
        out: &mut Vec<Action>,
    ) {
        match r {
            Ok((cred, mut infos)) => match Info::new(CRED_REPLY_KEY, Value::ByteObject(cred)) {
                Ok(i) => {
                    infos.insert(0, i);
                    out.push(reply(conn, tag, sys::PMIX_SUCCESS, ReplyData::Data(infos)));
                }
                Err(e) => out.push(reply(conn, tag, protocol::status_of(&e), ReplyData::None)),
            },
            Err(e) => out.push(reply(conn, tag, protocol::status_of(&e), ReplyData::None)),
        }
    }
}
