//! `PMIx_Group_*` in the server.

use super::{reply, Action, ServerState};
use crate::error::Result;
use crate::protocol::ReplyData;
use crate::reactor::ConnId;
use crate::value::{Info, ProcId};
use pmix_sys as sys;

/// A group that exists.
#[derive(Debug, Clone, Default)]
pub struct Group {
    /// Members, in order (wildcards expanded where the job size is known).
    pub(super) members: Vec<ProcId>,
    /// `PMIX_GROUP_CONTEXT_ID`, when one was assigned.
    pub(super) ctx_id: Option<u64>,
    /// `PMIX_GROUP_NOTIFY_TERMINATION` was given at construct time.
    pub(super) notify_term: bool,
}

/// A group operation collecting its members.
#[derive(Debug)]
pub struct GroupOp {
    pub(super) id: u64,
}

impl ServerState {
    /// Names of the existing groups.
    pub(super) fn group_names(&self) -> Vec<String> {
        self.dynamic.groups.keys().cloned().collect()
    }

    /// Names of the groups `p` belongs to.
    pub(super) fn groups_of(&self, p: &ProcId) -> Vec<String> {
        self.dynamic
            .groups
            .iter()
            .filter(|(_, g)| g.members.iter().any(|q| crate::event::proc_matches(q, p)))
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Members of group `name`.
    pub(super) fn group_members(&self, name: &str) -> Option<Vec<ProcId>> {
        self.dynamic.groups.get(name).map(|g| g.members.clone())
    }

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
    pub fn group_done(&mut self, id: u64, _r: Result<Vec<Info>>, _out: &mut Vec<Action>) {
        self.dynamic.group_ops.retain(|o| o.id != id);
    }
}
