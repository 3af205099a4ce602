//! `PMIx_Query_info` in the server.

use super::{reply, Action, ServerState};
use crate::error::Result;
use crate::protocol::{self, ReplyData};
use crate::reactor::ConnId;
use crate::server::upcalls::HostCall;
use crate::value::{Info, ProcId, Query};
use pmix_sys as sys;

impl ServerState {
    /// A client's queries: what the server cannot answer goes to the host.
    pub(super) fn query_req(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        queries: Vec<Query>,
        out: &mut Vec<Action>,
    ) {
        out.push(Action::Host(HostCall::Query {
            conn,
            tag,
            proc_: me.clone(),
            queries,
            have: Vec::new(),
        }));
    }

    /// The host answered the queries the server passed on; `have` is what the server
    /// answered itself.
    pub fn query_done(
        &mut self,
        conn: ConnId,
        tag: u32,
        mut have: Vec<Info>,
        r: Result<Vec<Info>>,
        out: &mut Vec<Action>,
    ) {
        match r {
            Ok(v) => {
                have.extend(v);
                out.push(reply(conn, tag, sys::PMIX_SUCCESS, ReplyData::Data(have)));
            }
            Err(e) if !have.is_empty() => {
                log::debug!("server: host query failed: {}", e);
                out.push(reply(
                    conn,
                    tag,
                    sys::PMIX_ERR_PARTIAL_SUCCESS,
                    ReplyData::Data(have),
                ));
            }
            Err(e) => out.push(reply(conn, tag, protocol::status_of(&e), ReplyData::None)),
        }
    }
}
