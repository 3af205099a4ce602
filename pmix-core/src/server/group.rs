//! `PMIx_Group_*` in the server.
//!
//! * **Construct** (collective method, with `PMIX_GROUP_ADD_MEMBERS` and
//!   `PMIX_GROUP_BOOTSTRAP`): one operation per group name collects its members. Leaders
//!   name the members (or, bootstrapping, only themselves plus the count of leaders);
//!   added members call with no processes. When every member has called it completes
//!   here if all are local (otherwise the host's `group` upcall finishes it). Each member
//!   then receives the results (`PMIX_GROUP_ID`, `PMIX_GROUP_MEMBERSHIP`, and
//!   `PMIX_GROUP_CONTEXT_ID` when any member asked for `PMIX_GROUP_ASSIGN_CONTEXT_ID`),
//!   the job data of the other namespaces and the other members' endpoint data (what
//!   each put in `PMIX_GROUP_ENDPT_DATA`: its REMOTE/GLOBAL puts minus reserved keys),
//!   and the non-default event `PMIX_GROUP_MEMBERSHIP_UPDATE`.
//! * **Destruct**: collective over the current members. A member that is gone does not
//!   block it: with `PMIX_GROUP_NOTIFY_TERMINATION` (at construct or here) the survivors
//!   get `PMIX_GROUP_MEMBER_FAILED` and success, otherwise `PMIX_ERR_LOST_CONNECTION`.
//! * **Invite / join**: the leader's invite sends `PMIX_GROUP_INVITED` to each invitee;
//!   each answers with join (accept or decline), which the leader hears as
//!   `PMIX_GROUP_INVITE_ACCEPTED` / `_DECLINED`. Once everyone answered (or ended, or the
//!   `PMIX_TIMEOUT` passed) the group forms from the leader and those who accepted, and
//!   they get `PMIX_GROUP_CONSTRUCT_COMPLETE` — unless someone did not accept and the
//!   leader did not say `PMIX_GROUP_OPTIONAL`: then the leader gets
//!   `PMIX_GROUP_INVITE_FAILED` for each, everyone who accepted gets
//!   `PMIX_GROUP_CONSTRUCT_ABORT`, and both calls fail with that status.
//! * **Leave**: the member is removed and the others get `PMIX_GROUP_LEFT` (those of
//!   other servers through the host, as an event for their custom range).
//!
//! A group name in a participant list (connect, fence) stands for its members: a
//! wildcard rank for all, rank r for member r.

use super::connect::payload_for;
use super::{reply, Action, ServerState, TimerEv};
use crate::error::Result;
use crate::protocol::dynamic::{decode_connect_blobs, encode_connect_blob};
use crate::protocol::{ConnectData, GroupOp as Op, GroupReply, PeerData, ReplyData};
use crate::reactor::ConnId;
use crate::server::state::Upcall;
use crate::store::info_array;
use crate::value::{Info, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::time::Duration;

/// A group that exists.
#[derive(Debug, Clone, Default)]
pub struct Group {
    /// Members, sorted (wildcards expanded where the job size is known).
    pub(super) members: Vec<ProcId>,
    /// `PMIX_GROUP_CONTEXT_ID`, when one was assigned.
    pub(super) ctx_id: Option<u64>,
    /// `PMIX_GROUP_NOTIFY_TERMINATION` was given at construct time.
    pub(super) notify_term: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Construct,
    Destruct,
    Invite,
}

/// One caller of a group operation.
#[derive(Debug)]
pub(super) struct Arrival {
    pub(super) conn: ConnId,
    pub(super) tag: u32,
    pub(super) proc_: ProcId,
    pub(super) endpoint: Vec<Info>,
    pub(super) info: Vec<Info>,
    /// For an invitation: accepted (true) or declined.
    pub(super) accepted: bool,
    /// An invitee of another server answered (its server's connect blob of its data,
    /// see `group_remote.rs`): nobody here to reply to.
    pub(super) remote: Option<Vec<u8>>,
}

/// A group operation collecting its members.
#[derive(Debug)]
pub struct GroupOp {
    pub(super) id: u64,
    pub(super) grp: String,
    pub(super) kind: Kind,
    /// Who must call (construct, destruct) or answer (invite).
    pub(super) expected: Vec<ProcId>,
    /// Bootstrap: the number of leaders.
    pub(super) leaders: Option<usize>,
    pub(super) nleaders: usize,
    pub(super) arrived: Vec<Arrival>,
    /// Invite: the inviting process.
    pub(super) leader: Option<Arrival>,
    /// Invite: the inviter named itself among the invited, so it is a member of the
    /// group that forms (a coordinator may form a group of others without joining it).
    pub(super) leader_member: bool,
    /// Invitees that ended before answering, or members lost during a destruct.
    pub(super) gone: Vec<ProcId>,
    pub(super) host_called: bool,
    /// A construct collected by the host in parts (see `group_remote.rs`): the arrivals
    /// and the leaders sent so far.
    pub(super) parts_sent: (usize, usize),
}

pub(super) fn flag(info: &[Info], key: &str) -> bool {
    info.iter()
        .any(|i| i.key.as_str() == key && i.value.is_true())
}

pub(super) fn procs_in(info: &[Info], key: &str) -> Vec<ProcId> {
    info.iter()
        .filter(|i| i.key.as_str() == key)
        .flat_map(|i| i.value.procs())
        .collect()
}

/// What the host is told of an operation its members called with: the first caller's
/// directives, plus the flags any of them gave. This server honours
/// `PMIX_GROUP_OPTIONAL` (a member that ends is left out) and
/// `PMIX_GROUP_ASSIGN_CONTEXT_ID` when any member asked, so the host, which completes
/// the operation for every server, must know it too: otherwise it aborts what this
/// server forms, or this server picks a context id of its own.
fn host_directives(arrived: &[Arrival]) -> Vec<Info> {
    let mut info = arrived.first().map(|a| a.info.clone()).unwrap_or_default();
    for key in [ak::PMIX_GROUP_OPTIONAL, ak::PMIX_GROUP_ASSIGN_CONTEXT_ID] {
        if let Some(set) = any_flag(arrived, key).filter(|_| !flag(&info, key)) {
            info.retain(|i| i.key.as_str() != key);
            info.push(set);
        }
    }
    info
}

/// `key` set to true, when any of `arrived` gave that flag.
pub(super) fn any_flag(arrived: &[Arrival], key: &str) -> Option<Info> {
    if arrived.iter().any(|a| flag(&a.info, key)) {
        Info::new(key, Value::Bool(true)).ok()
    } else {
        None
    }
}

pub(super) fn group_info(grp: &str) -> Vec<Info> {
    Info::new(ak::PMIX_GROUP_ID, Value::string(grp))
        .into_iter()
        .collect()
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

    /// Group names in a participant list become their members.
    pub(super) fn expand_group_names(&self, procs: Vec<ProcId>) -> Vec<ProcId> {
        let mut out = Vec::new();
        for p in procs {
            match self.dynamic.groups.get(p.nspace.as_str()) {
                Some(g) if p.rank == sys::PMIX_RANK_WILDCARD => out.extend(g.members.clone()),
                Some(g) => match usize::try_from(p.rank).ok().and_then(|r| g.members.get(r)) {
                    Some(m) => out.push(m.clone()),
                    None => out.push(p),
                },
                None => out.push(p),
            }
        }
        out
    }

    /// Wildcards of namespaces whose size we know become their ranks; sorted, unique.
    fn flatten(&self, procs: &[ProcId]) -> Vec<ProcId> {
        let mut out = Vec::new();
        for p in procs {
            let size = (p.rank == sys::PMIX_RANK_WILDCARD)
                .then(|| self.nspaces.get(&p.nspace).and_then(|n| n.job.job_size()))
                .flatten();
            match size {
                Some(n) => out.extend((0..n).map(|r| ProcId::new(p.nspace.clone(), r))),
                None => out.push(p.clone()),
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn proc_gone(&self, p: &ProcId) -> bool {
        self.nspaces
            .get(&p.nspace)
            .is_some_and(|n| n.gone.contains(&p.rank))
    }

    pub(super) fn op_index(&self, grp: &str, kind: Kind) -> Option<usize> {
        self.dynamic
            .group_ops
            .iter()
            .position(|o| o.grp == grp && o.kind == kind)
    }

    /// A group operation from a client.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn group_req(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        op: u8,
        grp: String,
        procs: Vec<ProcId>,
        mut info: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        if grp.is_empty() || grp.len() > sys::PMIX_MAX_NSLEN {
            out.push(reply(conn, tag, sys::PMIX_ERR_BAD_PARAM, ReplyData::None));
            return;
        }
        let endpoint: Vec<Info> = info
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_GROUP_ENDPT_DATA)
            .and_then(|i| info_array(&i.value))
            .unwrap_or_default()
            .into_iter()
            .filter(|i| !i.key.is_reserved())
            .collect();
        info.retain(|i| i.key.as_str() != ak::PMIX_GROUP_ENDPT_DATA);
        // What the caller shares in PMIX_GROUP_INFO (PMIX_GROUP_LOCAL_CID, say) reaches
        // the other members with its endpoint data.
        let mut endpoint = endpoint;
        endpoint.extend(
            info.iter()
                .filter(|i| i.key.as_str() == ak::PMIX_GROUP_INFO)
                .filter_map(|i| info_array(&i.value))
                .flatten(),
        );
        let arrival = Arrival {
            conn,
            tag,
            proc_: me.clone(),
            endpoint,
            info,
            accepted: true,
            remote: None,
        };
        match Op::from_u8(op) {
            Some(Op::Construct) => self.construct(grp, procs, arrival, out),
            Some(Op::Destruct) => self.destruct(grp, arrival, out),
            Some(Op::Invite) => self.invite(grp, procs, arrival, out),
            Some(Op::Join) => self.join(grp, arrival, out),
            Some(Op::Decline) => {
                let mut a = arrival;
                a.accepted = false;
                self.join(grp, a, out)
            }
            Some(Op::Leave) => self.leave(&grp, arrival, out),
            None => out.push(reply(conn, tag, sys::PMIX_ERR_BAD_PARAM, ReplyData::None)),
        }
    }

    fn start_timer(&mut self, id: u64, info: &[Info], out: &mut Vec<Action>) {
        if let Some(t) = crate::client::timeout_of(info) {
            out.push(Action::Timer(
                t.max(Duration::from_millis(1)),
                TimerEv::Dyn(id),
            ));
        }
    }

    fn construct(&mut self, grp: String, procs: Vec<ProcId>, a: Arrival, out: &mut Vec<Action>) {
        if self.dynamic.groups.contains_key(&grp) {
            log::warn!("server: group {} already exists", grp);
            out.push(reply(a.conn, a.tag, sys::PMIX_ERR_EXISTS, ReplyData::None));
            return;
        }
        let leader = !procs.is_empty();
        let add = procs_in(&a.info, ak::PMIX_GROUP_ADD_MEMBERS);
        let boot = a
            .info
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_GROUP_BOOTSTRAP)
            .and_then(|i| i.value.as_u64())
            .and_then(|n| usize::try_from(n).ok());
        let named = self.flatten(&self.expand_group_names(procs));
        let add = self.flatten(&add);
        let idx = match self.op_index(&grp, Kind::Construct) {
            Some(i) => i,
            None => {
                let id = self.next();
                self.start_timer(id, &a.info, out);
                self.dynamic.group_ops.push(GroupOp {
                    id,
                    grp: grp.clone(),
                    kind: Kind::Construct,
                    expected: Vec::new(),
                    leaders: None,
                    nleaders: 0,
                    arrived: Vec::new(),
                    leader: None,
                    leader_member: false,
                    gone: Vec::new(),
                    host_called: false,
                    parts_sent: (0, 0),
                });
                self.dynamic.group_ops.len() - 1
            }
        };
        let Some(op) = self.dynamic.group_ops.get_mut(idx) else {
            return;
        };
        if op.arrived.iter().any(|x| x.proc_ == a.proc_) {
            out.push(reply(a.conn, a.tag, sys::PMIX_ERR_EXISTS, ReplyData::None));
            return;
        }
        for p in named.into_iter().chain(add) {
            if !op.expected.contains(&p) {
                op.expected.push(p);
            }
        }
        if leader {
            op.nleaders += 1;
            if boot.is_some() {
                op.leaders = boot;
                if !op.expected.contains(&a.proc_) {
                    op.expected.push(a.proc_.clone());
                }
            }
        } else if !op.expected.contains(&a.proc_) {
            // An added member may arrive before the leader that names it.
            op.expected.push(a.proc_.clone());
        }
        op.arrived.push(a);
        // A member that already ended (it vanished, or the host deregistered it: for
        // a process of another node, the host's word that it died there) will never
        // arrive: the construct aborts now (or goes on without it, when optional), as
        // it would have had it ended while we waited.
        let (id, pending): (u64, Vec<ProcId>) = (
            op.id,
            op.expected
                .iter()
                .filter(|p| !op.arrived.iter().any(|x| &x.proc_ == *p))
                .cloned()
                .collect(),
        );
        let ended: Vec<ProcId> = pending.into_iter().filter(|p| self.ended(p)).collect();
        for p in &ended {
            self.group_member_gone(p, out);
        }
        if let Some(idx) = self.dynamic.group_ops.iter().position(|o| o.id == id) {
            self.group_progress(idx, out);
        }
    }

    fn destruct(&mut self, grp: String, a: Arrival, out: &mut Vec<Action>) {
        let Some(g) = self.dynamic.groups.get(&grp) else {
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_ERR_NOT_FOUND,
                ReplyData::None,
            ));
            return;
        };
        if !g
            .members
            .iter()
            .any(|m| crate::event::proc_matches(m, &a.proc_))
        {
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_ERR_NOT_A_MEMBER,
                ReplyData::None,
            ));
            return;
        }
        let members = g.members.clone();
        let idx = match self.op_index(&grp, Kind::Destruct) {
            Some(i) => i,
            None => {
                let id = self.next();
                self.start_timer(id, &a.info, out);
                self.dynamic.group_ops.push(GroupOp {
                    id,
                    grp: grp.clone(),
                    kind: Kind::Destruct,
                    expected: members,
                    leaders: None,
                    nleaders: 0,
                    arrived: Vec::new(),
                    leader: None,
                    leader_member: false,
                    gone: Vec::new(),
                    host_called: false,
                    parts_sent: (0, 0),
                });
                self.dynamic.group_ops.len() - 1
            }
        };
        if let Some(op) = self.dynamic.group_ops.get_mut(idx) {
            if op.arrived.iter().any(|x| x.proc_ == a.proc_) {
                out.push(reply(a.conn, a.tag, sys::PMIX_ERR_EXISTS, ReplyData::None));
                return;
            }
            op.arrived.push(a);
        }
        self.group_progress(idx, out);
    }

    fn invite(&mut self, grp: String, procs: Vec<ProcId>, a: Arrival, out: &mut Vec<Action>) {
        if self.dynamic.groups.contains_key(&grp) || self.op_index(&grp, Kind::Invite).is_some() {
            out.push(reply(a.conn, a.tag, sys::PMIX_ERR_EXISTS, ReplyData::None));
            return;
        }
        let named = self.flatten(&self.expand_group_names(procs));
        let leader_member = named.contains(&a.proc_);
        let invitees: Vec<ProcId> = named.into_iter().filter(|p| p != &a.proc_).collect();
        if invitees.is_empty() {
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_ERR_BAD_PARAM,
                ReplyData::None,
            ));
            return;
        }
        let id = self.next();
        self.start_timer(id, &a.info, out);
        let leader = a.proc_.clone();
        let mut remote = Vec::new();
        for p in &invitees {
            if self.by_proc.contains_key(p) {
                self.event_to(p, sys::PMIX_GROUP_INVITED, &leader, group_info(&grp), out);
            } else {
                remote.push(p.clone());
            }
        }
        if !remote.is_empty() {
            let mut info = group_info(&grp);
            info.extend(Info::new(
                ak::PMIX_EVENT_CUSTOM_RANGE,
                Value::proc_array(&remote),
            ));
            out.push(Action::Host(Upcall::Notify {
                source: leader,
                status: sys::PMIX_GROUP_INVITED,
                range: sys::PMIX_RANGE_CUSTOM,
                info,
            }));
        }
        self.dynamic.group_ops.push(GroupOp {
            id,
            grp,
            kind: Kind::Invite,
            expected: invitees,
            leaders: None,
            nleaders: 0,
            arrived: Vec::new(),
            leader: Some(a),
            leader_member,
            gone: Vec::new(),
            host_called: false,
            parts_sent: (0, 0),
        });
        let idx = self.dynamic.group_ops.len() - 1;
        self.group_progress(idx, out);
    }

    fn join(&mut self, grp: String, a: Arrival, out: &mut Vec<Action>) {
        let Some(idx) = self.op_index(&grp, Kind::Invite) else {
            // Invited by a process of another server?
            let Some(a) = self.remote_join(&grp, a, out) else {
                return;
            };
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_ERR_NOT_FOUND,
                ReplyData::None,
            ));
            return;
        };
        let Some(op) = self.dynamic.group_ops.get_mut(idx) else {
            return;
        };
        if !op.expected.contains(&a.proc_) || op.arrived.iter().any(|x| x.proc_ == a.proc_) {
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_ERR_NOT_A_MEMBER,
                ReplyData::None,
            ));
            return;
        }
        let leader = op.leader.as_ref().map(|l| l.proc_.clone());
        let code = if a.accepted {
            sys::PMIX_GROUP_INVITE_ACCEPTED
        } else {
            sys::PMIX_GROUP_INVITE_DECLINED
        };
        if !a.accepted {
            // A decline completes at once.
            out.push(reply(a.conn, a.tag, sys::PMIX_SUCCESS, ReplyData::None));
        }
        let who = a.proc_.clone();
        op.arrived.push(a);
        if let Some(l) = leader {
            self.event_to(&l, code, &who, group_info(&grp), out);
        }
        self.group_progress(idx, out);
    }

    fn leave(&mut self, grp: &str, a: Arrival, out: &mut Vec<Action>) {
        let Some(g) = self.dynamic.groups.get_mut(grp) else {
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_ERR_NOT_FOUND,
                ReplyData::None,
            ));
            return;
        };
        let before = g.members.len();
        g.members.retain(|m| m != &a.proc_);
        if g.members.len() == before {
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_ERR_NOT_A_MEMBER,
                ReplyData::None,
            ));
            return;
        }
        let rest = g.members.clone();
        let mut info = group_info(grp);
        info.extend(Info::new(
            ak::PMIX_EVENT_AFFECTED_PROC,
            Value::Proc(Some(a.proc_.clone())),
        ));
        for m in &rest {
            self.event_to(m, sys::PMIX_GROUP_LEFT, &a.proc_, info.clone(), out);
        }
        // The members other servers host hear of it through the host.
        let remote: Vec<ProcId> = rest.iter().filter(|m| !self.is_local(m)).cloned().collect();
        if !remote.is_empty() {
            let mut info = info;
            info.extend(Info::new(
                ak::PMIX_EVENT_CUSTOM_RANGE,
                Value::proc_array(&remote),
            ));
            out.push(Action::Host(Upcall::Notify {
                source: a.proc_.clone(),
                status: sys::PMIX_GROUP_LEFT,
                range: sys::PMIX_RANGE_CUSTOM,
                info,
            }));
        }
        out.push(reply(a.conn, a.tag, sys::PMIX_SUCCESS, ReplyData::None));
        // A destruct in flight no longer waits for the leaver.
        if let Some(idx) = self.op_index(grp, Kind::Destruct) {
            if let Some(op) = self.dynamic.group_ops.get_mut(idx) {
                op.expected.retain(|m| m != &a.proc_);
            }
            self.group_progress(idx, out);
        }
    }

    /// Complete operation `idx` if everyone it waits for is in.
    pub(super) fn group_progress(&mut self, idx: usize, out: &mut Vec<Action>) {
        if self.construct_parts(idx, out) {
            return;
        }
        let Some(op) = self.dynamic.group_ops.get(idx) else {
            return;
        };
        if op.host_called {
            return;
        }
        let answered = |p: &ProcId| op.arrived.iter().any(|a| &a.proc_ == p) || op.gone.contains(p);
        let ready = match op.kind {
            Kind::Invite => op.expected.iter().all(answered),
            Kind::Construct | Kind::Destruct => {
                let local_done = op
                    .expected
                    .iter()
                    .filter(|p| self.is_local(p))
                    .all(|p| answered(p) || (op.kind == Kind::Destruct && self.proc_gone(p)));
                let leaders_done = op
                    .leaders
                    .map_or(op.nleaders > 0 || op.kind == Kind::Destruct, |n| {
                        op.nleaders >= n
                    });
                local_done && leaders_done && !op.expected.is_empty()
            }
        };
        if !ready {
            return;
        }
        let all_local = op.expected.iter().all(|p| self.is_local(p));
        if !all_local && op.kind != Kind::Invite {
            let (id, construct, grp, procs, mut info) = (
                op.id,
                op.kind == Kind::Construct,
                op.grp.clone(),
                op.expected.clone(),
                host_directives(&op.arrived),
            );
            if construct {
                // The other servers' members get what ours contributed: the host
                // hands every server the concatenation of the servers' blobs.
                let blob = self.group_blob(&op.arrived);
                info.extend(Info::new(
                    ak::PMIX_GROUP_ENDPT_DATA,
                    Value::ByteObject(blob),
                ));
            }
            if let Some(op) = self.dynamic.group_ops.get_mut(idx) {
                op.host_called = true;
            }
            out.push(Action::Host(Upcall::Group {
                id,
                construct,
                grp,
                procs,
                info,
            }));
            return;
        }
        let op = self.dynamic.group_ops.remove(idx);
        self.finish_group(op, Vec::new(), out);
    }

    /// This server's part of a construct spanning servers: its members' endpoint data
    /// and the job data of their namespaces, as a connect blob
    /// (`protocol::dynamic::encode_connect_blob`).
    pub(super) fn group_blob<'a>(
        &self,
        arrived: impl IntoIterator<Item = &'a Arrival> + Clone,
    ) -> Vec<u8> {
        let peers: Vec<PeerData> = arrived
            .clone()
            .into_iter()
            .map(|a| PeerData {
                proc_: a.proc_.clone(),
                info: a.endpoint.clone(),
            })
            .collect();
        let mut jobs: Vec<crate::store::JobData> = Vec::new();
        for a in arrived {
            if jobs.iter().any(|j| j.nspace == a.proc_.nspace) {
                continue;
            }
            if let Some(ns) = self.nspaces.get(&a.proc_.nspace) {
                jobs.push(ns.job.clone());
            }
        }
        encode_connect_blob(&ConnectData { jobs, peers })
    }

    /// Answer everyone of a completed operation (`host_results` from the host, if any:
    /// its `PMIX_GROUP_ENDPT_DATA` holds every server's blob, see [`Self::group_blob`]).
    fn finish_group(&mut self, op: GroupOp, host_results: Vec<Info>, out: &mut Vec<Action>) {
        let (blobs, host_results): (Vec<Info>, Vec<Info>) = host_results
            .into_iter()
            .partition(|i| i.key.as_str() == ak::PMIX_GROUP_ENDPT_DATA);
        let mut remote = ConnectData::default();
        for b in blobs {
            let Value::ByteObject(b) = b.value else {
                continue;
            };
            match decode_connect_blobs(&b) {
                Ok(d) => {
                    remote.jobs.extend(d.jobs);
                    remote.peers.extend(d.peers);
                }
                Err(e) => log::warn!("server: group {}: bad data from the host: {e}", op.grp),
            }
        }
        match op.kind {
            Kind::Destruct => self.finish_destruct(op, out),
            Kind::Construct => {
                // Collected in parts, the host knows the membership.
                let mut members = procs_in(&host_results, ak::PMIX_GROUP_MEMBERSHIP);
                if members.is_empty() {
                    members = self.flatten(&op.expected);
                }
                let infos: Vec<&Vec<Info>> = op.arrived.iter().map(|a| &a.info).collect();
                let results = self.form_group(&op.grp, &members, &infos, host_results);
                let arrived: Vec<&Arrival> = op.arrived.iter().collect();
                self.answer_formed(&members, &arrived, &results, remote, out);
                self.membership_event(&op.grp, &members, sys::PMIX_GROUP_MEMBERSHIP_UPDATE, out);
            }
            Kind::Invite => self.finish_invite(op, host_results, out),
        }
    }

    /// Answer the participants of a completed destruct; with `PMIX_GROUP_NOTIFY_TERMINATION`
    /// they hear of the members that never arrived.
    fn finish_destruct(&mut self, op: GroupOp, out: &mut Vec<Action>) {
        let g = self.dynamic.groups.remove(&op.grp);
        let notify = g.as_ref().is_some_and(|g| g.notify_term)
            || op
                .arrived
                .iter()
                .any(|a| flag(&a.info, ak::PMIX_GROUP_NOTIFY_TERMINATION));
        // Members of other servers arrived there (the host completed the destruct).
        let lost: Vec<ProcId> = op
            .expected
            .iter()
            .filter(|p| !op.arrived.iter().any(|a| &a.proc_ == *p))
            .filter(|p| !op.host_called || self.is_local(p) || op.gone.contains(p))
            .cloned()
            .collect();
        let status = if lost.is_empty() || notify {
            sys::PMIX_SUCCESS
        } else {
            sys::PMIX_ERR_LOST_CONNECTION
        };
        for a in &op.arrived {
            if notify {
                for l in &lost {
                    let mut info = group_info(&op.grp);
                    info.extend(Info::new(
                        ak::PMIX_EVENT_AFFECTED_PROC,
                        Value::Proc(Some(l.clone())),
                    ));
                    self.event_to(&a.proc_, sys::PMIX_GROUP_MEMBER_FAILED, l, info, out);
                }
            }
            out.push(reply(a.conn, a.tag, status, ReplyData::None));
        }
    }

    /// A group formed: exchange the endpoint data `arrived` contributed (and what the
    /// other servers' members did, `remote`) among `members` and answer each of them
    /// with the group's `results` and the others' data.
    pub(super) fn answer_formed(
        &mut self,
        members: &[ProcId],
        arrived: &[&Arrival],
        results: &[Info],
        mut remote: ConnectData,
        out: &mut Vec<Action>,
    ) {
        let ctx = results
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_GROUP_CONTEXT_ID)
            .and_then(|i| i.value.as_u64());
        // With a context id, each contribution is also kept qualified by it.
        let contributed: Vec<PeerData> = arrived
            .iter()
            .map(|a| {
                let mut info = a.endpoint.clone();
                if let Some(c) = ctx {
                    info.extend(crate::client::group::ctx_qualified(&a.endpoint, c));
                }
                PeerData {
                    proc_: a.proc_.clone(),
                    info,
                }
            })
            .collect();
        if let Some(c) = ctx {
            for p in &mut remote.peers {
                let q = crate::client::group::ctx_qualified(&p.info, c);
                p.info.extend(q);
            }
        }
        let (jobs, peers) = self.exchange(members, contributed, remote);
        for a in arrived {
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_SUCCESS,
                ReplyData::Group(Box::new(GroupReply {
                    results: results.to_vec(),
                    data: payload_for(&jobs, &peers, &a.proc_),
                })),
            ));
        }
    }

    /// Record a new group and the results its members receive.
    pub(super) fn form_group(
        &mut self,
        grp: &str,
        members: &[ProcId],
        infos: &[&Vec<Info>],
        host_results: Vec<Info>,
    ) -> Vec<Info> {
        let want_ctx = infos
            .iter()
            .any(|i| flag(i, ak::PMIX_GROUP_ASSIGN_CONTEXT_ID));
        let host_ctx = host_results
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_GROUP_CONTEXT_ID)
            .and_then(|i| i.value.as_u64());
        let ctx_id = match host_ctx {
            Some(c) => Some(c),
            None if want_ctx => {
                self.dynamic.last_ctx_id += 1;
                Some(self.dynamic.ctx_base + self.dynamic.last_ctx_id)
            }
            None => None,
        };
        self.dynamic.groups.insert(
            grp.to_string(),
            Group {
                members: members.to_vec(),
                ctx_id,
                notify_term: infos
                    .iter()
                    .any(|i| flag(i, ak::PMIX_GROUP_NOTIFY_TERMINATION)),
            },
        );
        let mut results = group_info(grp);
        results.extend(Info::new(
            ak::PMIX_GROUP_MEMBERSHIP,
            Value::proc_array(members),
        ));
        if let Some(c) = ctx_id {
            results.extend(Info::new(ak::PMIX_GROUP_CONTEXT_ID, Value::Size(c)));
        }
        results.extend(host_results.into_iter().filter(|i| {
            !matches!(
                i.key.as_str(),
                ak::PMIX_GROUP_CONTEXT_ID | ak::PMIX_GROUP_ID | ak::PMIX_GROUP_MEMBERSHIP
            )
        }));
        results
    }

    /// Tell the members the membership (a non-default event: only handlers registered
    /// for `code` see it), with the group's `PMIX_GROUP_CONTEXT_ID` when it has one.
    pub(super) fn membership_event(
        &self,
        grp: &str,
        members: &[ProcId],
        code: i32,
        out: &mut Vec<Action>,
    ) {
        let info = self.membership_info(grp, members);
        for m in members {
            self.event_to(m, code, &self.id, info.clone(), out);
        }
    }

    /// What a membership event carries.
    pub(super) fn membership_info(&self, grp: &str, members: &[ProcId]) -> Vec<Info> {
        let mut info = group_info(grp);
        info.extend(Info::new(
            ak::PMIX_GROUP_MEMBERSHIP,
            Value::proc_array(members),
        ));
        if let Some(c) = self.dynamic.groups.get(grp).and_then(|g| g.ctx_id) {
            info.extend(Info::new(ak::PMIX_GROUP_CONTEXT_ID, Value::Size(c)));
        }
        info.extend(Info::new(ak::PMIX_EVENT_NON_DEFAULT, Value::Bool(true)));
        info
    }

    /// The host finished a group operation we handed it.
    pub fn group_done(&mut self, id: u64, r: Result<Vec<Info>>, out: &mut Vec<Action>) {
        let Some(idx) = self.dynamic.group_ops.iter().position(|o| o.id == id) else {
            return;
        };
        let op = self.dynamic.group_ops.remove(idx);
        match r {
            Ok(res) => self.finish_group(op, res, out),
            Err(e) => {
                log::warn!("server: group {} failed at the host: {}", op.grp, e);
                let st = crate::protocol::status_of(&e);
                for a in op.arrived {
                    out.push(reply(a.conn, a.tag, st, ReplyData::None));
                }
            }
        }
    }

    /// A group operation timed out: an invitation completes with whoever answered; the
    /// others fail with `PMIX_ERR_TIMEOUT`.
    pub(super) fn group_timer(&mut self, id: u64, out: &mut Vec<Action>) {
        let Some(idx) = self.dynamic.group_ops.iter().position(|o| o.id == id) else {
            return;
        };
        let op = self.dynamic.group_ops.remove(idx);
        log::warn!("server: group operation on {} timed out", op.grp);
        if op.kind == Kind::Invite {
            self.finish_group(op, Vec::new(), out);
            return;
        }
        for a in op.arrived {
            out.push(reply(a.conn, a.tag, sys::PMIX_ERR_TIMEOUT, ReplyData::None));
        }
    }

    /// A client ended: invitations count it as having declined, destructs stop waiting
    /// for it, and constructs it had to join fail (unless `PMIX_GROUP_OPTIONAL`).
    pub(super) fn group_member_gone(&mut self, p: &ProcId, out: &mut Vec<Action>) {
        let mut i = 0;
        while i < self.dynamic.group_ops.len() {
            let Some(op) = self.dynamic.group_ops.get_mut(i) else {
                break;
            };
            // (Told twice, by its connection's close and by the host's deregistration,
            // it counts once.)
            let involved = op.expected.contains(p)
                && !op.arrived.iter().any(|a| &a.proc_ == p)
                && !op.gone.contains(p);
            if !involved {
                i += 1;
                continue;
            }
            match op.kind {
                Kind::Invite | Kind::Destruct => {
                    op.gone.push(p.clone());
                    let before = self.dynamic.group_ops.len();
                    self.group_progress(i, out);
                    if self.dynamic.group_ops.len() == before {
                        i += 1;
                    }
                }
                Kind::Construct => {
                    let optional = op
                        .arrived
                        .iter()
                        .any(|a| flag(&a.info, ak::PMIX_GROUP_OPTIONAL));
                    if optional {
                        op.expected.retain(|m| m != p);
                        let before = self.dynamic.group_ops.len();
                        self.group_progress(i, out);
                        if self.dynamic.group_ops.len() == before {
                            i += 1;
                        }
                    } else {
                        let op = self.dynamic.group_ops.remove(i);
                        for a in op.arrived {
                            self.event_to(
                                &a.proc_,
                                sys::PMIX_GROUP_MEMBER_FAILED,
                                p,
                                group_info(&op.grp),
                                out,
                            );
                            out.push(reply(
                                a.conn,
                                a.tag,
                                sys::PMIX_GROUP_CONSTRUCT_ABORT,
                                ReplyData::None,
                            ));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "group_tests.rs"]
mod tests;
