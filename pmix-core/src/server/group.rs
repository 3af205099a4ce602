//! `PMIx_Group_*` in the server.

use super::{reply, Action, ServerState};
use crate::error::Result;
use crate::protocol::ReplyData;
use crate::reactor::ConnId;
use crate::value::{Info, ProcId};
use pmix_sys as sys;

impl ServerState {
    /// A group operation from a client.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn group_req(
        &mut self,
        conn: ConnId,
        tag: u32,
        _me: &ProcId,
        _op: u8,
        _id: String,
        _procs: Vec<ProcId>,
        _info: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        out.push(reply(
            conn,
            tag,
            sys::PMIX_ERR_NOT_SUPPORTED,
            ReplyData::None,
        ));
    }

    /// The host finished a group operation we handed it.
    pub fn group_done(&mut self, _id: u64, _r: Result<Vec<Info>>, _out: &mut Vec<Action>) {}
}
