//! Invitations across servers: `PMIx_Group_invite` naming processes another server hosts.
//!
//! The invitation lives in the leader's server ([`super::group`]). The invitees' servers
//! learn of it from the `PMIX_GROUP_INVITED` event the host carries to them, and keep a
//! [`RemoteInvite`]. A join there goes back to the leader's server as the
//! `PMIX_GROUP_INVITE_ACCEPTED` / `_DECLINED` event the leader hears anyway (range: the
//! leader), an accept carrying the joiner's connect blob (its endpoint data and job data)
//! under [`GRP_BLOB`]. When the invitation completes, the leader's server raises the
//! `PMIX_GROUP_CONSTRUCT_COMPLETE` (or `_ABORT`) event the other servers' invitees receive
//! anyway, marked [`GRP_DONE`] and (complete) carrying every member's blob: each of their
//! servers then records the group and answers its joiners' calls, as the leader's server
//! answers its own. The private keys are removed before an event reaches a client.
//! An invitation whose leader ends before it completes (the host deregisters the
//! leader, or its namespace) is forgotten, its joiners here answered
//! `PMIX_ERR_PROC_TERM_WO_SYNC` ([`ServerState::forget_invites_of`]).
//!
//! **What a host spanning servers sees.** Only pmixrun's front end knows the private
//! keys; a C host's module gets them as ordinary `pmix_info_t`s:
//! * in its `notify_event` slot, the invitation events above (`PMIX_GROUP_INVITED`,
//!   `_INVITE_ACCEPTED`, `_INVITE_DECLINED`, `_CONSTRUCT_COMPLETE`, `_CONSTRUCT_ABORT`,
//!   range `PMIX_RANGE_CUSTOM` or the members) with `pmixrs.grp.blob` (`PMIX_BYTE_OBJECT`)
//!   and `pmixrs.grp.done` (`PMIX_BOOL`) among their infos: a host that relays events
//!   to the other servers unchanged, as it must for any event, makes invitations work
//!   without knowing them;
//! * in its `group` slot (`PMIX_GROUP_CONSTRUCT`), a `PMIX_GROUP_BOOTSTRAP` construct
//!   whose leaders or added members are on several servers as several calls from one
//!   server for the same group, one per batch of arrivals, each with
//!   `PMIX_GROUP_BOOTSTRAP` (`PMIX_SIZE`, the leaders expected), `pmixrs.grp.part`
//!   (`PMIX_SIZE`, the leaders in this part), `pmixrs.grp.arrived` (`PMIX_DATA_ARRAY` of
//!   `PMIX_PROC`, who arrived), `PMIX_GROUP_ENDPT_DATA` (their connect blob),
//!   `PMIX_GROUP_ASSIGN_CONTEXT_ID` when one of them asked and `PMIX_GROUP_OPTIONAL`
//!   when one of the server's callers so far said it (a named member that ends before
//!   it arrives is then left out). The host must hold every
//!   part's callback until every leader came and every named member arrived at some
//!   server, then complete them all with `PMIX_GROUP_MEMBERSHIP` and the context id;
//!   a host that treats each call as a whole construct completes the group early with
//!   the members that part names. A construct on one server, or one whose members are
//!   all named up front (no bootstrap), is one ordinary call.

use super::group::{any_flag, flag, group_info, procs_in, Arrival, GroupOp};
use super::{reply, Action, ServerState};
use crate::protocol::dynamic::decode_connect_blobs;
use crate::protocol::{ConnectData, GroupReply, ReplyData};
use crate::server::state::Upcall;
use crate::value::{Info, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;

/// A connect blob (`protocol::dynamic::encode_connect_blob`, several concatenated).
const GRP_BLOB: &str = "pmixrs.grp.blob";
/// Marks the end of an invitation the members' servers act on.
const GRP_DONE: &str = "pmixrs.grp.done";
/// A part of a construct the host collects in parts: how many leaders it brings
/// (`PMIX_SIZE`); `pmixrun`'s front end reads it (`node/fabric/serve.rs`).
const GRP_PART: &str = "pmixrs.grp.part";
/// The members that arrived in a part (a `PMIX_PROC` array).
const GRP_ARRIVED: &str = "pmixrs.grp.arrived";

/// An invitation from a process of another server to some of ours.
#[derive(Debug)]
pub struct RemoteInvite {
    grp: String,
    leader: ProcId,
    /// Ours that accepted, waiting for the group to form.
    joined: Vec<Arrival>,
}

/// What a group event from the host says beyond what its clients see.
pub(super) struct GroupEv {
    grp: String,
    blob: Option<Vec<u8>>,
    done: bool,
    info: Vec<Info>,
}

fn decode_all(blobs: &[u8], grp: &str, remote: &mut ConnectData) {
    match decode_connect_blobs(blobs) {
        Ok(d) => {
            remote.jobs.extend(d.jobs);
            remote.peers.extend(d.peers);
        }
        Err(e) => log::warn!("server: group {grp}: bad data from another server: {e}"),
    }
}

impl ServerState {
    /// Take the private parts out of an event the host hands us; `Some` for a group
    /// event this module acts on (see [`Self::group_event`]).
    pub(super) fn group_event_split(&self, status: i32, info: &mut Vec<Info>) -> Option<GroupEv> {
        let ours = matches!(
            status,
            sys::PMIX_GROUP_INVITED
                | sys::PMIX_GROUP_INVITE_ACCEPTED
                | sys::PMIX_GROUP_INVITE_DECLINED
                | sys::PMIX_GROUP_CONSTRUCT_COMPLETE
                | sys::PMIX_GROUP_CONSTRUCT_ABORT
        );
        if !ours {
            return None;
        }
        let grp = info
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_GROUP_ID)
            .and_then(|i| i.value.as_str().map(str::to_string))?;
        let blob = info
            .iter()
            .find(|i| i.key.as_str() == GRP_BLOB)
            .and_then(|i| match &i.value {
                Value::ByteObject(b) => Some(b.clone()),
                _ => None,
            });
        let done = flag(info, GRP_DONE);
        info.retain(|i| !matches!(i.key.as_str(), GRP_BLOB | GRP_DONE));
        Some(GroupEv {
            grp,
            blob,
            done,
            info: info.clone(),
        })
    }

    /// Whether [`Self::group_event`] runs after the event reached the clients (an
    /// answer: the leader hears it before the completion it may cause).
    pub(super) fn group_event_after(status: i32) -> bool {
        matches!(
            status,
            sys::PMIX_GROUP_INVITE_ACCEPTED | sys::PMIX_GROUP_INVITE_DECLINED
        )
    }

    /// Act on a group event another server raised.
    pub(super) fn group_event(
        &mut self,
        status: i32,
        source: &ProcId,
        ev: GroupEv,
        out: &mut Vec<Action>,
    ) {
        match status {
            sys::PMIX_GROUP_INVITED => self.invited_from_afar(ev, source),
            sys::PMIX_GROUP_INVITE_ACCEPTED | sys::PMIX_GROUP_INVITE_DECLINED => {
                let yes = status == sys::PMIX_GROUP_INVITE_ACCEPTED;
                self.answer_from_afar(&ev.grp, source, yes, ev.blob, out)
            }
            sys::PMIX_GROUP_CONSTRUCT_COMPLETE if ev.done => self.formed_afar(ev, out),
            sys::PMIX_GROUP_CONSTRUCT_ABORT if ev.done => {
                let pos = self
                    .dynamic
                    .remote_invites
                    .iter()
                    .position(|r| r.grp == ev.grp);
                if let Some(ri) = pos.map(|p| self.dynamic.remote_invites.remove(p)) {
                    for a in ri.joined {
                        let st = sys::PMIX_GROUP_CONSTRUCT_ABORT;
                        out.push(reply(a.conn, a.tag, st, ReplyData::None));
                    }
                }
            }
            _ => {}
        }
    }

    fn invited_from_afar(&mut self, ev: GroupEv, leader: &ProcId) {
        let targets = crate::event::custom_range(&ev.info);
        let ours = targets.iter().any(|p| self.is_local(p));
        let known = self.dynamic.remote_invites.iter().any(|r| r.grp == ev.grp);
        if self.is_local(leader) || !ours || known {
            return;
        }
        self.dynamic.remote_invites.push(RemoteInvite {
            grp: ev.grp,
            leader: leader.clone(),
            joined: Vec::new(),
        });
    }

    /// A join (`a`) for `grp`, which has no invitation here: if a process of another
    /// server invited ours, the answer goes to its server (`None`); otherwise `a` comes
    /// back.
    pub(super) fn remote_join(
        &mut self,
        grp: &str,
        a: Arrival,
        out: &mut Vec<Action>,
    ) -> Option<Arrival> {
        let Some(pos) = self
            .dynamic
            .remote_invites
            .iter()
            .position(|r| r.grp == grp)
        else {
            return Some(a);
        };
        let blob = a.accepted.then(|| self.group_blob(std::iter::once(&a)));
        let Some(ri) = self.dynamic.remote_invites.get_mut(pos) else {
            return Some(a);
        };
        if ri.joined.iter().any(|x| x.proc_ == a.proc_) {
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_ERR_NOT_A_MEMBER,
                ReplyData::None,
            ));
            return None;
        }
        let mut info = group_info(grp);
        info.extend(Info::new(
            ak::PMIX_EVENT_CUSTOM_RANGE,
            Value::proc_array(std::slice::from_ref(&ri.leader)),
        ));
        let status = match blob {
            Some(b) => {
                info.extend(Info::new(GRP_BLOB, Value::ByteObject(b)));
                sys::PMIX_GROUP_INVITE_ACCEPTED
            }
            None => sys::PMIX_GROUP_INVITE_DECLINED,
        };
        out.push(Action::Host(Upcall::Notify {
            source: a.proc_.clone(),
            status,
            range: sys::PMIX_RANGE_CUSTOM,
            info,
        }));
        if a.accepted {
            ri.joined.push(a);
        } else {
            // A decline completes at once.
            out.push(reply(a.conn, a.tag, sys::PMIX_SUCCESS, ReplyData::None));
        }
        None
    }

    /// Forget the invitations from afar whose leader `gone` says ended (its process
    /// terminated, or its namespace was deregistered): they can never complete, so
    /// they are not kept, and our processes that already joined are answered
    /// `PMIX_ERR_PROC_TERM_WO_SYNC` instead of waiting for a group that never forms.
    pub(crate) fn forget_invites_of(
        &mut self,
        gone: impl Fn(&ProcId) -> bool,
        out: &mut Vec<Action>,
    ) {
        let (dead, keep): (Vec<RemoteInvite>, Vec<RemoteInvite>) =
            std::mem::take(&mut self.dynamic.remote_invites)
                .into_iter()
                .partition(|r| gone(&r.leader));
        self.dynamic.remote_invites = keep;
        for ri in dead {
            log::debug!(
                "server: invitation to {} dropped: its leader {} ended",
                ri.grp,
                ri.leader
            );
            for a in ri.joined {
                let status = sys::PMIX_ERR_PROC_TERM_WO_SYNC;
                out.push(reply(a.conn, a.tag, status, ReplyData::None));
            }
        }
    }

    /// How many invitations from afar this server keeps.
    #[cfg(test)]
    pub(crate) fn remote_invites_kept(&self) -> usize {
        self.dynamic.remote_invites.len()
    }

    /// An invitee of another server answered our leader's invitation.
    fn answer_from_afar(
        &mut self,
        grp: &str,
        who: &ProcId,
        accepted: bool,
        blob: Option<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        let Some(idx) = self.op_index(grp, super::group::Kind::Invite) else {
            return;
        };
        let Some(op) = self.dynamic.group_ops.get_mut(idx) else {
            return;
        };
        if !op.expected.contains(who) || op.arrived.iter().any(|a| &a.proc_ == who) {
            return;
        }
        op.arrived.push(Arrival {
            conn: 0,
            tag: 0,
            proc_: who.clone(),
            endpoint: Vec::new(),
            info: Vec::new(),
            accepted,
            remote: Some(blob.unwrap_or_default()),
        });
        self.group_progress(idx, out);
    }

    /// The group our invitees joined formed at the leader's server.
    fn formed_afar(&mut self, ev: GroupEv, out: &mut Vec<Action>) {
        let pos = self
            .dynamic
            .remote_invites
            .iter()
            .position(|r| r.grp == ev.grp);
        let Some(ri) = pos.map(|p| self.dynamic.remote_invites.remove(p)) else {
            return;
        };
        let members = procs_in(&ev.info, ak::PMIX_GROUP_MEMBERSHIP);
        let ctx: Vec<Info> = ev
            .info
            .iter()
            .filter(|i| i.key.as_str() == ak::PMIX_GROUP_CONTEXT_ID)
            .cloned()
            .collect();
        let results = self.form_group(&ev.grp, &members, &[], ctx);
        let mut remote = ConnectData::default();
        if let Some(b) = &ev.blob {
            decode_all(b, &ev.grp, &mut remote);
        }
        let arrived: Vec<&Arrival> = ri.joined.iter().collect();
        self.answer_formed(&members, &arrived, &results, remote, out);
    }

    /// A construct this server cannot see complete (`PMIX_GROUP_BOOTSTRAP` with leaders or
    /// members elsewhere, or only added members here while the job spans servers) goes
    /// to the host in parts: each new arrival's part names what its leaders named, how
    /// many leaders came, who arrived and their blob; the host answers every part once
    /// every leader came and every named member arrived, with the membership. True when
    /// operation `idx` is (now) collected that way.
    pub(super) fn construct_parts(&mut self, idx: usize, out: &mut Vec<Action>) -> bool {
        let Some(op) = self.dynamic.group_ops.get(idx) else {
            return false;
        };
        let (sent, leaders_sent) = op.parts_sent;
        if op.kind != super::group::Kind::Construct || (op.host_called && sent == 0) {
            return false;
        }
        if sent == 0 {
            let spans = op.arrived.iter().any(|a| {
                self.nspaces
                    .get(&a.proc_.nspace)
                    .and_then(|n| n.job.job_size().map(|s| s > n.nlocal))
                    .unwrap_or(false)
            });
            let local = op.expected.iter().all(|p| self.is_local(p));
            let parts = match op.leaders {
                Some(n) => !(local && op.nleaders >= n),
                // Added members elsewhere: their servers send parts too.
                None => {
                    op.nleaders == 0
                        || (!local
                            && op
                                .arrived
                                .iter()
                                .any(|a| !procs_in(&a.info, ak::PMIX_GROUP_ADD_MEMBERS).is_empty()))
                }
            };
            if !(spans && parts) {
                return false;
            }
        }
        let Some(new) = op.arrived.get(sent..) else {
            return true;
        };
        if new.is_empty() {
            return true;
        }
        let mut info: Vec<Info> = Vec::new();
        info.extend(any_flag(new, ak::PMIX_GROUP_ASSIGN_CONTEXT_ID));
        // The host leaves out a named member that ends before it arrives.
        info.extend(any_flag(&op.arrived, ak::PMIX_GROUP_OPTIONAL));
        if let Some(n) = op.leaders {
            info.extend(Info::new(ak::PMIX_GROUP_BOOTSTRAP, Value::Size(n as u64)));
        }
        let nlead = op.nleaders.saturating_sub(leaders_sent);
        info.extend(Info::new(GRP_PART, Value::Size(nlead as u64)));
        let who: Vec<ProcId> = new.iter().map(|a| a.proc_.clone()).collect();
        info.extend(Info::new(GRP_ARRIVED, Value::proc_array(&who)));
        info.extend(Info::new(
            ak::PMIX_GROUP_ENDPT_DATA,
            Value::ByteObject(self.group_blob(new.iter())),
        ));
        let (id, grp, procs) = (op.id, op.grp.clone(), op.expected.clone());
        let (narrived, nleaders) = (op.arrived.len(), op.nleaders);
        if let Some(op) = self.dynamic.group_ops.get_mut(idx) {
            op.parts_sent = (narrived, nleaders);
            op.host_called = true;
        }
        out.push(Action::Host(Upcall::Group {
            id,
            construct: true,
            grp,
            procs,
            info,
        }));
        true
    }

    /// Tell the other servers' invitees `far` how an invitation ended.
    #[allow(clippy::too_many_arguments)]
    fn tell_afar(
        &self,
        source: &ProcId,
        status: i32,
        mut info: Vec<Info>,
        far: &[ProcId],
        blob: Option<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        if far.is_empty() {
            return;
        }
        info.extend(Info::new(
            ak::PMIX_EVENT_CUSTOM_RANGE,
            Value::proc_array(far),
        ));
        info.extend(Info::new(GRP_DONE, Value::Bool(true)));
        if let Some(b) = blob {
            info.extend(Info::new(GRP_BLOB, Value::ByteObject(b)));
        }
        out.push(Action::Host(Upcall::Notify {
            source: source.clone(),
            status,
            range: sys::PMIX_RANGE_CUSTOM,
            info,
        }));
    }

    /// Answer the leader and the invited of a completed invite: the group forms, or (when
    /// a required member failed) everyone hears that it was aborted. Invitees of other
    /// servers hear it through the host.
    pub(super) fn finish_invite(
        &mut self,
        op: GroupOp,
        host_results: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        let Some(leader) = op.leader else {
            return;
        };
        let optional = flag(&leader.info, ak::PMIX_GROUP_OPTIONAL);
        let (accepted, refused): (Vec<Arrival>, Vec<Arrival>) =
            op.arrived.into_iter().partition(|a| a.accepted);
        let answered = |p: &ProcId| accepted.iter().chain(&refused).any(|a| &a.proc_ == p);
        let failed: Vec<ProcId> = refused
            .iter()
            .map(|a| a.proc_.clone())
            .chain(op.gone.iter().cloned())
            .chain(
                op.expected
                    .iter()
                    .filter(|p| !answered(p) && !op.gone.contains(p))
                    .cloned(),
            )
            .collect();
        for f in &failed {
            let mut info = group_info(&op.grp);
            info.extend(Info::new(
                ak::PMIX_EVENT_AFFECTED_PROC,
                Value::Proc(Some(f.clone())),
            ));
            self.event_to(&leader.proc_, sys::PMIX_GROUP_INVITE_FAILED, f, info, out);
        }
        if !failed.is_empty() && !optional {
            // Every invited participant still here (those that accepted, declined
            // or never answered) and the leader hear that no group formed.
            let told: Vec<ProcId> = std::iter::once(&leader.proc_)
                .chain(op.expected.iter().filter(|p| !op.gone.contains(p)))
                .cloned()
                .collect();
            let abort = sys::PMIX_GROUP_CONSTRUCT_ABORT;
            for p in &told {
                self.event_to(p, abort, &leader.proc_, group_info(&op.grp), out);
            }
            let far: Vec<ProcId> = told.into_iter().filter(|p| !self.is_local(p)).collect();
            self.tell_afar(&leader.proc_, abort, group_info(&op.grp), &far, None, out);
            for a in accepted.iter().filter(|a| a.remote.is_none()) {
                out.push(reply(a.conn, a.tag, abort, ReplyData::None));
            }
            out.push(reply(leader.conn, leader.tag, abort, ReplyData::None));
            return;
        }
        let mut members: Vec<ProcId> = accepted.iter().map(|a| a.proc_.clone()).collect();
        if op.leader_member {
            members.push(leader.proc_.clone());
        }
        members.sort();
        let results = self.form_group(&op.grp, &members, &[&leader.info], host_results);
        let (mut arrived, far): (Vec<&Arrival>, Vec<&Arrival>) =
            accepted.iter().partition(|a| a.remote.is_none());
        if op.leader_member {
            arrived.push(&leader);
        } else {
            // Not a member: its invite completes with the results, and it neither
            // contributes nor receives endpoint data.
            out.push(reply(
                leader.conn,
                leader.tag,
                sys::PMIX_SUCCESS,
                ReplyData::Group(Box::new(GroupReply {
                    results: results.clone(),
                    data: Default::default(),
                })),
            ));
        }
        // The other servers' members get ours and each other's data.
        let mut blobs = self.group_blob(arrived.iter().copied());
        let mut remote = ConnectData::default();
        for b in far.iter().filter_map(|a| a.remote.as_ref()) {
            decode_all(b, &op.grp, &mut remote);
            blobs.extend_from_slice(b);
        }
        self.answer_formed(&members, &arrived, &results, remote, out);
        let complete = sys::PMIX_GROUP_CONSTRUCT_COMPLETE;
        self.membership_event(&op.grp, &members, complete, out);
        let far: Vec<ProcId> = far.iter().map(|a| a.proc_.clone()).collect();
        let info = self.membership_info(&op.grp, &members);
        let id = self.id.clone();
        self.tell_afar(&id, complete, info, &far, Some(blobs), out);
    }
}

#[cfg(test)]
mod tests {
    //! An invitation between two servers driven in memory: the host's part (carrying
    //! each server's `Upcall::Notify` to the other's `host_notify`) done by hand.
    use super::super::connect::tests::{msgs, p, send, statuses};
    use super::super::*;
    use crate::protocol::{DynReq, GroupOp as Op, ReplyData, ServerMsg};
    use crate::store::keys;
    use pmix_sys::attrs::keys as ak;

    /// Job "a" of 2 ranks; this server hosts rank `r` (connection 1).
    fn server(r: u32) -> ServerState {
        let mut s = ServerState::new(p("srv", r), format!("h{r}"));
        s.register_nspace(
            &p("a", 0).nspace,
            1,
            vec![
                Info::new(keys::JOB_SIZE, Value::Uint32(2)).unwrap(),
                Info::new(keys::LOCAL_PEERS, Value::string(&r.to_string())).unwrap(),
            ],
        );
        crate::server::state::connect_test_client(&mut s, &p("a", r), 1, 1000);
        s
    }

    fn g(op: Op, procs: Vec<ProcId>, info: Vec<Info>) -> DynReq {
        DynReq::Group {
            op: op as u8,
            id: "far".into(),
            procs,
            info,
        }
    }

    /// Hand every event `out` sends to the host to `to`; what `to` does.
    fn carry(out: &[Action], to: &mut ServerState) -> Vec<Action> {
        let mut next = Vec::new();
        for a in out {
            if let Action::Host(Upcall::Notify {
                source,
                status,
                range,
                info,
            }) = a
            {
                to.host_notify(*status, source, *range, info.clone(), &mut next);
            }
        }
        next
    }

    fn events(out: &[Action]) -> Vec<(i32, Vec<Info>)> {
        msgs(out)
            .into_iter()
            .filter_map(|(_, m)| match m {
                ServerMsg::Event { status, info, .. } => Some((status, info)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_join_on_another_server_forms_the_group_at_both() {
        let (mut a, mut b) = (server(0), server(1));
        let ctx = vec![Info::new(ak::PMIX_GROUP_ASSIGN_CONTEXT_ID, Value::Bool(true)).unwrap()];
        let out = send(&mut a, 1, 5, g(Op::Invite, vec![p("a", 0), p("a", 1)], ctx));
        let got = carry(&out, &mut b);
        assert_eq!(
            events(&got).first().map(|e| e.0),
            Some(sys::PMIX_GROUP_INVITED)
        );
        let ep = Info::new(ak::PMIX_GROUP_ENDPT_DATA, Value::string("x")).ok();
        let out = send(&mut b, 1, 6, g(Op::Join, vec![], ep.into_iter().collect()));
        assert!(statuses(&out).is_empty(), "the joiner waits for the group");
        let got = carry(&out, &mut a);
        let evs = events(&got);
        assert_eq!(
            evs.first().map(|e| e.0),
            Some(sys::PMIX_GROUP_INVITE_ACCEPTED)
        );
        for (_, info) in &evs {
            assert!(
                info.iter()
                    .all(|i| !i.key.as_str().starts_with("pmixrs.grp")),
                "no private key reaches a client"
            );
        }
        assert_eq!(statuses(&got), vec![(1, 5, sys::PMIX_SUCCESS)]);
        // The completion goes to b's server, which answers its joiner.
        let done = carry(&got, &mut b);
        assert_eq!(statuses(&done), vec![(1, 6, sys::PMIX_SUCCESS)]);
        let ctx_of = |out: &[Action]| {
            msgs(out).into_iter().find_map(|(_, m)| match m {
                ServerMsg::Reply {
                    data: ReplyData::Group(r),
                    ..
                } => r
                    .results
                    .iter()
                    .find(|i| i.key.as_str() == ak::PMIX_GROUP_CONTEXT_ID)
                    .and_then(|i| i.value.as_u64()),
                _ => None,
            })
        };
        assert!(ctx_of(&got).is_some());
        assert_eq!(
            ctx_of(&got),
            ctx_of(&done),
            "one context id at both servers"
        );
        let complete = events(&done);
        assert_eq!(
            complete.last().map(|e| e.0),
            Some(sys::PMIX_GROUP_CONSTRUCT_COMPLETE)
        );
        // Both servers know the group: a destruct there is not NOT_FOUND.
        assert_eq!(b.group_members("far").map(|m| m.len()), Some(2));
    }

    #[test]
    fn a_vanished_leader_s_invitation_is_freed_and_its_joiners_answered() {
        let (mut a, mut b) = (server(0), server(1));
        let invite = g(Op::Invite, vec![p("a", 0), p("a", 1)], vec![]);
        carry(&send(&mut a, 1, 5, invite), &mut b);
        assert_eq!(b.remote_invites_kept(), 1);
        let out = send(&mut b, 1, 6, g(Op::Join, vec![], vec![]));
        assert!(statuses(&out).is_empty(), "the joiner waits for the group");
        // Another process's end changes nothing.
        let mut out = Vec::new();
        b.deregister_client(&p("a", 7), &mut out);
        assert_eq!(b.remote_invites_kept(), 1);
        // The host says the leader ended for good (pmixrun does, on every node).
        let mut out = Vec::new();
        b.deregister_client(&p("a", 0), &mut out);
        assert_eq!(b.remote_invites_kept(), 0);
        assert!(statuses(&out).contains(&(1, 6, sys::PMIX_ERR_PROC_TERM_WO_SYNC)));

        // A namespace deregistered takes its leaders' invitations with it.
        let (mut a, mut b) = (server(0), server(1));
        let invite = g(Op::Invite, vec![p("a", 0), p("a", 1)], vec![]);
        carry(&send(&mut a, 1, 5, invite), &mut b);
        assert_eq!(b.remote_invites_kept(), 1);
        let mut out = Vec::new();
        b.deregister_nspace(&p("a", 0).nspace, &mut out);
        assert_eq!(b.remote_invites_kept(), 0);
    }

    /// A bootstrap construct spanning servers goes to the host in parts; an optional one
    /// says so, so that the host leaves out a named member that ends before arriving.
    #[test]
    fn a_bootstrap_part_tells_the_host_it_is_optional() {
        for optional in [false, true] {
            let mut a = server(0);
            let mut info = vec![Info::new(ak::PMIX_GROUP_BOOTSTRAP, Value::Size(2)).expect("info")];
            if optional {
                info.extend(Info::new(ak::PMIX_GROUP_OPTIONAL, Value::Bool(true)));
            }
            let out = send(&mut a, 1, 5, g(Op::Construct, vec![p("a", 0)], info));
            let part = out
                .iter()
                .find_map(|x| match x {
                    Action::Host(Upcall::Group { info, .. }) => Some(info.clone()),
                    _ => None,
                })
                .expect("a part for the host");
            assert!(part.iter().any(|i| i.key.as_str() == super::GRP_PART));
            assert_eq!(super::flag(&part, ak::PMIX_GROUP_OPTIONAL), optional);
        }
    }

    #[test]
    fn a_decline_on_another_server_aborts_for_everyone() {
        let (mut a, mut b) = (server(0), server(1));
        let out = send(
            &mut a,
            1,
            5,
            g(Op::Invite, vec![p("a", 0), p("a", 1)], vec![]),
        );
        carry(&out, &mut b);
        let out = send(&mut b, 1, 6, g(Op::Decline, vec![], vec![]));
        assert_eq!(statuses(&out), vec![(1, 6, sys::PMIX_SUCCESS)]);
        let got = carry(&out, &mut a);
        assert_eq!(
            statuses(&got),
            vec![(1, 5, sys::PMIX_GROUP_CONSTRUCT_ABORT)]
        );
        let told = carry(&got, &mut b);
        let evs: Vec<i32> = events(&told).into_iter().map(|e| e.0).collect();
        assert_eq!(evs, vec![sys::PMIX_GROUP_CONSTRUCT_ABORT]);
    }
}
