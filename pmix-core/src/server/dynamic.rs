//! The server's state for the dynamic operations, and the dispatch of their requests.
//! Each family has its own file beside this one (`connect.rs`, …); all are children of
//! the state module, so they work on [`ServerState`] directly.

use super::connect::ConnTracker;
use super::{reply, Action, ServerState};
use crate::error::Result;
use crate::protocol::{self, DynReq, ReplyData, ServerMsg};
use crate::reactor::ConnId;
use crate::server::state::Upcall;
use crate::value::{Info, Nspace, Pdata, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::collections::{BTreeMap, HashMap};

/// Everything the dynamic operations keep between requests.
#[derive(Default)]
pub struct DynState {
    /// Connect and disconnect operations collecting their local participants, by
    /// (is a disconnect, sorted participant list).
    pub(super) trackers: HashMap<(bool, Vec<ProcId>), ConnTracker>,
    /// Participant lists of completed connects not disconnected since; `true` marks the
    /// implicit connection of a spawn's parent and children.
    pub(super) connected: Vec<(Vec<ProcId>, bool)>,
    /// Process sets the host defined, by name.
    pub(super) psets: BTreeMap<String, Vec<ProcId>>,
    /// Groups, by name.
    pub(super) groups: BTreeMap<String, super::group::Group>,
    /// Group operations collecting their members.
    pub(super) group_ops: Vec<super::group::GroupOp>,
    /// The last context id handed out (counted from 1 above `ctx_base`).
    pub(super) last_ctx_id: u64,
    /// Where this server's context ids start (see `Host::context_id_base`).
    pub(super) ctx_base: u64,
    /// Invitations of processes of other servers to ours (see `group_remote.rs`).
    pub(super) remote_invites: Vec<super::group_remote::RemoteInvite>,
    /// A finalize without disconnect does not raise `PMIX_ERR_PROC_TERM_WO_SYNC`.
    pub(super) quiet_finalize: bool,
    /// Events fanned out to the clients, kept for those that connect later (see
    /// `events.rs`).
    pub(super) ev_cache: std::collections::VecDeque<super::events::CachedEvent>,
    /// The number the next kept event gets.
    pub(super) ev_seq: u64,
    /// Per process that connected: the kept events numbered below this were sent to it
    /// (live while it was connected, or when it connected).
    pub(super) ev_upto: HashMap<ProcId, u64>,
}

impl ServerState {
    /// A dynamic-operation request from an accepted client.
    pub(super) fn dyn_request(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        r: DynReq,
        out: &mut Vec<Action>,
    ) {
        match r {
            DynReq::Connect {
                procs,
                timeout_ms,
                info,
                endpoint,
            } => self.connect_req(conn, tag, me, procs, timeout_ms, info, endpoint, false, out),
            DynReq::Disconnect {
                procs,
                timeout_ms,
                info,
            } => self.connect_req(
                conn,
                tag,
                me,
                procs,
                timeout_ms,
                info,
                Vec::new(),
                true,
                out,
            ),
            DynReq::Spawn { job_info, apps } => {
                if apps.is_empty() || apps.iter().any(|a| a.maxprocs < 0) {
                    log::warn!(
                        "server: {} asked to spawn no (or a negative number of) processes",
                        me
                    );
                    out.push(reply(conn, tag, sys::PMIX_ERR_BAD_PARAM, ReplyData::None));
                    return;
                }
                out.push(Action::Host(Upcall::Spawn {
                    conn,
                    tag,
                    proc_: me.clone(),
                    job_info,
                    apps,
                }));
            }
            DynReq::Publish { info } => out.push(Action::Host(Upcall::Publish {
                conn,
                tag,
                proc_: me.clone(),
                info: self.with_uid(me, info),
            })),
            DynReq::Lookup { keys, info } => out.push(Action::Host(Upcall::Lookup {
                conn,
                tag,
                proc_: me.clone(),
                keys,
                info: self.with_uid(me, info),
            })),
            DynReq::Unpublish { keys, info } => out.push(Action::Host(Upcall::Unpublish {
                conn,
                tag,
                proc_: me.clone(),
                keys,
                info: self.with_uid(me, info),
            })),
            DynReq::Log { data, directives } => out.push(Action::Host(Upcall::Log {
                conn,
                tag,
                proc_: me.clone(),
                data,
                directives,
            })),
            DynReq::JobControl {
                targets,
                directives,
            } => out.push(Action::Host(Upcall::JobControl {
                conn,
                tag,
                proc_: me.clone(),
                targets,
                directives,
            })),
            DynReq::Query { queries } => self.query_req(conn, tag, me, queries, out),
            DynReq::Group {
                op,
                id,
                procs,
                info,
            } => self.group_req(conn, tag, me, op, id, procs, info, out),
            DynReq::HostOp(r) => self.hostop_request(conn, tag, me, r, out),
        }
    }

    /// `info` with the client's registered user id as `PMIX_USERID` (the host limits
    /// published data to its publisher's user).
    fn with_uid(&self, me: &ProcId, mut info: Vec<Info>) -> Vec<Info> {
        let uid = self
            .nspaces
            .get(&me.nspace)
            .and_then(|ns| ns.clients.get(&me.rank))
            .map(|c| c.uid);
        if let Some(uid) = uid {
            info.retain(|i| i.key.as_str() != ak::PMIX_USERID);
            if let Ok(i) = Info::new(ak::PMIX_USERID, Value::Uint32(uid)) {
                info.push(i);
            }
        }
        info
    }

    /// The host answered an upcall that only reports a status.
    pub fn op_done(&mut self, conn: ConnId, tag: u32, r: Result<()>, out: &mut Vec<Action>) {
        let st = match r {
            Ok(()) => sys::PMIX_SUCCESS,
            Err(e) => {
                log::debug!("server: host upcall failed: {}", e);
                protocol::status_of(&e)
            }
        };
        out.push(reply(conn, tag, st, ReplyData::None));
    }

    /// The host answered an upcall with a list of infos (job control).
    pub fn infos_done(
        &mut self,
        conn: ConnId,
        tag: u32,
        r: Result<Vec<Info>>,
        out: &mut Vec<Action>,
    ) {
        match r {
            Ok(v) => out.push(reply(conn, tag, sys::PMIX_SUCCESS, ReplyData::Data(v))),
            Err(e) => out.push(reply(conn, tag, protocol::status_of(&e), ReplyData::None)),
        }
    }

    /// The host answered a lookup.
    pub fn lookup_done(
        &mut self,
        conn: ConnId,
        tag: u32,
        r: Result<Vec<Pdata>>,
        out: &mut Vec<Action>,
    ) {
        match r {
            Ok(v) if v.is_empty() => {
                out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None))
            }
            Ok(v) => out.push(reply(conn, tag, sys::PMIX_SUCCESS, ReplyData::Pdata(v))),
            Err(e) => out.push(reply(conn, tag, protocol::status_of(&e), ReplyData::None)),
        }
    }

    /// The host answered a spawn: the parent is connected to the new namespace, and it
    /// receives the namespace's job data when this server holds it.
    pub fn spawn_done(
        &mut self,
        conn: ConnId,
        tag: u32,
        parent: &ProcId,
        r: Result<Option<Nspace>>,
        out: &mut Vec<Action>,
    ) {
        let ns = match r {
            Ok(Some(ns)) => ns,
            Ok(None) => {
                log::warn!("server: the host finished a spawn without naming the new namespace");
                out.push(reply(conn, tag, sys::PMIX_ERROR, ReplyData::None));
                return;
            }
            Err(e) => {
                log::warn!("server: spawn for {} failed: {}", parent, e);
                out.push(reply(conn, tag, protocol::status_of(&e), ReplyData::None));
                return;
            }
        };
        let mut set = vec![
            parent.clone(),
            ProcId::new(ns.clone(), sys::PMIX_RANK_WILDCARD),
        ];
        set.sort();
        if !self.dynamic.connected.iter().any(|(s, _)| s == &set) {
            self.dynamic.connected.push((set, true));
        }
        let data = match self.nspaces.get(&ns) {
            Some(n) => ReplyData::Job(Box::new(n.job.clone())),
            None => ReplyData::Data(
                Info::new(ak::PMIX_NSPACE, Value::string(ns.as_str()))
                    .into_iter()
                    .collect(),
            ),
        };
        out.push(reply(conn, tag, sys::PMIX_SUCCESS, data));
    }

    /// A timer of a dynamic operation fired.
    pub(super) fn dyn_timer(&mut self, id: u64, out: &mut Vec<Action>) {
        self.connect_timer(id, out);
        self.group_timer(id, out);
    }

    /// A client called `PMIx_Finalize`.
    pub(super) fn dyn_finalized(&mut self, me: &ProcId, out: &mut Vec<Action>) {
        if self.dynamic.quiet_finalize {
            // Forget its connections without telling anyone.
            self.dynamic
                .connected
                .retain(|(s, _)| !super::includes(s, me));
        } else {
            self.connected_member_left(me, out);
        }
    }

    /// Whether a finalize without disconnect raises `PMIX_ERR_PROC_TERM_WO_SYNC` (see
    /// `Host::finalize_raises_term_wo_sync`).
    pub fn set_finalize_term_events(&mut self, on: bool) {
        self.dynamic.quiet_finalize = !on;
    }

    /// Where the context ids of the groups this server forms on its own start (see
    /// `Host::context_id_base`).
    pub fn set_context_id_base(&mut self, base: u64) {
        self.dynamic.ctx_base = base;
    }

    /// A client's connection closed (`finalized`: after `PMIx_Finalize`).
    pub(super) fn dyn_gone(&mut self, p: &ProcId, finalized: bool, out: &mut Vec<Action>) {
        self.connect_participant_gone(p, finalized, out);
        self.group_member_gone(p, out);
    }

    /// Send an event to one connected client (nothing if it is not connected).
    pub(super) fn event_to(
        &self,
        target: &ProcId,
        status: i32,
        source: &ProcId,
        info: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        if let Some(&c) = self.by_proc.get(target) {
            let ev = crate::protocol::encode(&ServerMsg::Event {
                status,
                source: source.clone(),
                info,
            });
            out.push(Action::Send(c, ev));
        }
    }
}
