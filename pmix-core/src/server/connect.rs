//! `PMIx_Connect` / `PMIx_Disconnect` in the server.
//!
//! * Each operation is collected in a tracker keyed by (connect or disconnect, the sorted
//!   participant list). A wildcard entry never equals an explicit list, so the two
//!   descriptions never match; the order the caller used does not matter.
//! * The tracker counts the local participants (the namespace's local count for a
//!   wildcard, one per explicit local rank). When all have arrived it completes here if
//!   every participant is local; otherwise the host gets one `connect` (or `disconnect`)
//!   upcall with this server's blob (its participants' endpoint data and the job data of
//!   their namespaces) and answers with every server's blob.
//! * On completion each participant is answered with the job data of the namespaces
//!   other than its own and the endpoint data of the other participants: exactly what
//!   each one contributed with its request (its REMOTE/GLOBAL puts minus reserved keys).
//!   Nothing the server computed is sent as endpoint data.
//! * A process may take part in one operation per identical list at a time: a second
//!   request over the same list before the first completes gets `PMIX_ERR_EXISTS`.
//! * Completed connects are remembered. A disconnect over a list that no remembered
//!   connect covers gets `PMIX_ERR_INVALID_OPERATION`. A member that finalizes or
//!   vanishes without disconnecting raises `PMIX_ERR_PROC_TERM_WO_SYNC` at the other
//!   local members, and the connection is forgotten.
//! * `PMIX_TIMEOUT` starts a timer that fails the tracker with `PMIX_ERR_TIMEOUT`; a
//!   participant that is gone fails it with `PMIX_ERR_PROC_TERM_WO_SYNC`.

use super::{includes, reply, Action, ServerState, TimerEv};
use crate::protocol::dynamic::{decode_connect_blobs, encode_connect_blob};
use crate::protocol::{self, ConnectData, PeerData, ReplyData};
use crate::reactor::ConnId;
use crate::server::state::Upcall;
use crate::store::JobData;
use crate::value::{Info, ProcId, Value};
use crate::Result;
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::time::Duration;

/// One participant that arrived.
pub(super) struct ConnArrival {
    conn: ConnId,
    tag: u32,
    proc_: ProcId,
    endpoint: Vec<Info>,
}

/// A connect or disconnect collecting its local participants.
pub(super) struct ConnTracker {
    id: u64,
    disconnect: bool,
    procs: Vec<ProcId>,
    info: Vec<Info>,
    expected: usize,
    arrived: Vec<ConnArrival>,
    host_called: bool,
}

fn what(disconnect: bool) -> &'static str {
    if disconnect {
        "disconnect"
    } else {
        "connect"
    }
}

impl ServerState {
    /// Expand group names into their members and sort the list (duplicates removed).
    pub(super) fn participants(&self, procs: Vec<ProcId>) -> Vec<ProcId> {
        let mut v = self.expand_groups(procs);
        v.sort();
        v.dedup();
        v
    }

    /// Group ids in a participant list become the group's members (a wildcard rank: all
    /// of them; rank r: member r). Names that are not groups stay.
    pub(super) fn expand_groups(&self, procs: Vec<ProcId>) -> Vec<ProcId> {
        self.expand_group_names(procs)
    }

    /// True if `set` names `p` with the same description `q` uses: `q` itself, or its
    /// namespace's wildcard; a wildcard `q` is covered by the wildcard or by every rank of
    /// the namespace listed one by one.
    fn covers(&self, set: &[ProcId], q: &ProcId) -> bool {
        if set.contains(q) {
            return true;
        }
        let wild = ProcId::new(q.nspace.clone(), sys::PMIX_RANK_WILDCARD);
        if q.rank != sys::PMIX_RANK_WILDCARD {
            return set.contains(&wild);
        }
        let size = self
            .nspaces
            .get(&q.nspace)
            .and_then(|ns| ns.job.job_size())
            .unwrap_or(0);
        size > 0 && (0..size).all(|r| set.contains(&ProcId::new(q.nspace.clone(), r)))
    }

    /// Local participants the operation waits for, and whether every participant is
    /// local (a namespace this server does not know lives elsewhere).
    fn connect_shape(&self, key: &[ProcId]) -> (usize, bool) {
        let mut n = 0usize;
        let mut all_local = true;
        for p in key {
            let Some(ns) = self.nspaces.get(&p.nspace) else {
                all_local = false;
                continue;
            };
            if p.rank == sys::PMIX_RANK_WILDCARD {
                let nlocal = if ns.nlocal > 0 {
                    ns.nlocal as usize
                } else {
                    ns.local.len()
                };
                n += nlocal;
                if ns.job.job_size().is_some_and(|s| s as usize > nlocal) {
                    all_local = false;
                }
            } else if self.is_local(p) {
                n += 1;
            } else {
                all_local = false;
            }
        }
        (n, all_local)
    }

    /// True if a participant named by the list has already ended: its connection here
    /// closed, or the host said it will never take part again (`deregister_client`, also
    /// for a process of another node).
    fn participant_gone(&self, key: &[ProcId]) -> bool {
        key.iter().any(|p| {
            self.ended(p)
                || self.nspaces.get(&p.nspace).is_some_and(|ns| {
                    if p.rank == sys::PMIX_RANK_WILDCARD {
                        !ns.gone.is_empty()
                    } else {
                        ns.gone.contains(&p.rank)
                    }
                })
        })
    }

    /// Why `me` may not enter a connect (or disconnect) over `key`, as the status to
    /// answer; `None` if it may.
    fn connect_refusal(&self, me: &ProcId, key: &[ProcId], disconnect: bool) -> Option<i32> {
        if !includes(key, me) {
            return Some(sys::PMIX_ERR_NOT_A_MEMBER);
        }
        if disconnect && !self.is_connected(key, me) {
            log::warn!(
                "server: {} disconnects from {:?}, which it never connected to",
                me,
                key
            );
            return Some(sys::PMIX_ERR_INVALID_OPERATION);
        }
        let busy = [false, true].iter().any(|&d| {
            self.dynamic
                .trackers
                .get(&(d, key.to_vec()))
                .is_some_and(|t| t.arrived.iter().any(|a| &a.proc_ == me))
        });
        if busy {
            log::warn!(
                "server: {} is already in a connect or disconnect over {:?}; refusing \
                 another over the identical participant list",
                me,
                key
            );
            return Some(sys::PMIX_ERR_EXISTS);
        }
        if self.participant_gone(key) {
            return Some(sys::PMIX_ERR_PROC_TERM_WO_SYNC);
        }
        None
    }

    /// A `PMIx_Connect` (or, with `disconnect`, `PMIx_Disconnect`) request.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn connect_req(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        procs: Vec<ProcId>,
        timeout_ms: u32,
        info: Vec<Info>,
        endpoint: Vec<Info>,
        disconnect: bool,
        out: &mut Vec<Action>,
    ) {
        let op = what(disconnect);
        if procs.is_empty() {
            log::warn!("server: {} from {} names no participant", op, me);
            out.push(reply(conn, tag, sys::PMIX_ERR_BAD_PARAM, ReplyData::None));
            return;
        }
        let key = self.participants(procs);
        if let Some(status) = self.connect_refusal(me, &key, disconnect) {
            out.push(reply(conn, tag, status, ReplyData::None));
            return;
        }
        let tkey = (disconnect, key.clone());
        if !self.dynamic.trackers.contains_key(&tkey) {
            let id = self.next();
            if timeout_ms > 0 {
                out.push(Action::Timer(
                    Duration::from_millis(timeout_ms as u64),
                    TimerEv::Dyn(id),
                ));
            }
            let (expected, _) = self.connect_shape(&key);
            self.dynamic.trackers.insert(
                tkey.clone(),
                ConnTracker {
                    id,
                    disconnect,
                    procs: key,
                    info,
                    expected,
                    arrived: Vec::new(),
                    host_called: false,
                },
            );
        }
        let Some(t) = self.dynamic.trackers.get_mut(&tkey) else {
            return;
        };
        t.arrived.push(ConnArrival {
            conn,
            tag,
            proc_: me.clone(),
            endpoint: endpoint
                .into_iter()
                .filter(|i| !i.key.is_reserved())
                .collect(),
        });
        if t.arrived.len() >= t.expected && !t.host_called {
            self.connect_locally_complete(&tkey, out);
        }
    }

    /// Every local participant has arrived: finish here, or hand the host our part.
    fn connect_locally_complete(&mut self, tkey: &(bool, Vec<ProcId>), out: &mut Vec<Action>) {
        let (_, all_local) = self.connect_shape(&tkey.1);
        if all_local {
            if let Some(t) = self.dynamic.trackers.remove(tkey) {
                self.finish_connect(t, ConnectData::default(), out);
            }
            return;
        }
        let Some(t) = self.dynamic.trackers.get_mut(tkey) else {
            return;
        };
        t.host_called = true;
        let (id, procs, info, disconnect) = (t.id, t.procs.clone(), t.info.clone(), t.disconnect);
        if disconnect {
            out.push(Action::Host(Upcall::Disconnect { id, procs, info }));
            return;
        }
        let peers: Vec<PeerData> = t
            .arrived
            .iter()
            .map(|a| PeerData {
                proc_: a.proc_.clone(),
                info: a.endpoint.clone(),
            })
            .collect();
        let mut jobs: Vec<JobData> = Vec::new();
        for a in &t.arrived {
            if jobs.iter().any(|j| j.nspace == a.proc_.nspace) {
                continue;
            }
            if let Some(ns) = self.nspaces.get(&a.proc_.nspace) {
                jobs.push(ns.job.clone());
            }
        }
        let data = encode_connect_blob(&ConnectData { jobs, peers });
        out.push(Action::Host(Upcall::Connect {
            id,
            procs,
            info,
            data,
        }));
    }

    fn tracker_key(&self, id: u64) -> Option<(bool, Vec<ProcId>)> {
        self.dynamic
            .trackers
            .iter()
            .find(|(_, t)| t.id == id)
            .map(|(k, _)| k.clone())
    }

    /// The host finished a connect we handed it (`data`: every server's blob).
    pub fn connect_done(&mut self, id: u64, r: Result<Vec<u8>>, out: &mut Vec<Action>) {
        let Some(k) = self.tracker_key(id) else {
            return; // already failed (timeout, lost participant)
        };
        let Some(t) = self.dynamic.trackers.remove(&k) else {
            return;
        };
        match r.and_then(|b| decode_connect_blobs(&b)) {
            Ok(remote) => self.finish_connect(t, remote, out),
            Err(e) => {
                log::warn!("server: connect over {:?} failed: {}", t.procs, e);
                let st = protocol::status_of(&e);
                for a in t.arrived {
                    out.push(reply(a.conn, a.tag, st, ReplyData::None));
                }
            }
        }
    }

    /// The host finished a disconnect we handed it.
    pub fn disconnect_done(&mut self, id: u64, r: Result<()>, out: &mut Vec<Action>) {
        let Some(k) = self.tracker_key(id) else {
            return;
        };
        let Some(t) = self.dynamic.trackers.remove(&k) else {
            return;
        };
        match r {
            Ok(()) => self.finish_connect(t, ConnectData::default(), out),
            Err(e) => {
                log::warn!("server: disconnect over {:?} failed: {}", t.procs, e);
                let st = protocol::status_of(&e);
                for a in t.arrived {
                    out.push(reply(a.conn, a.tag, st, ReplyData::None));
                }
            }
        }
    }

    /// Answer every local participant of a completed operation.
    fn finish_connect(&mut self, t: ConnTracker, remote: ConnectData, out: &mut Vec<Action>) {
        if t.disconnect {
            // Forget the connect over the same list and the implicit parent/children
            // sets of spawns the list covers; failing both, whatever the list covers or
            // is covered by (a narrower or wider description of the same processes).
            let key = t.procs.clone();
            let sets = std::mem::take(&mut self.dynamic.connected);
            let before = sets.len();
            let keep: Vec<(Vec<ProcId>, bool)> = sets
                .into_iter()
                .filter(|(s, implicit)| {
                    !(s == &key || (*implicit && s.iter().all(|q| self.covers(&key, q))))
                })
                .collect();
            let keep = if keep.len() == before {
                keep.into_iter()
                    .filter(|(s, _)| {
                        !(s.iter().all(|q| self.covers(&key, q))
                            || key.iter().all(|q| self.covers(s, q)))
                    })
                    .collect()
            } else {
                keep
            };
            log::debug!(
                "server: disconnected {:?}; still connected: {:?}",
                key,
                keep.iter().map(|(s, _)| s).collect::<Vec<_>>()
            );
            self.dynamic.connected = keep;
            for a in t.arrived {
                out.push(reply(a.conn, a.tag, sys::PMIX_SUCCESS, ReplyData::None));
            }
            return;
        }
        let contributed: Vec<PeerData> = t
            .arrived
            .iter()
            .map(|a| PeerData {
                proc_: a.proc_.clone(),
                info: a.endpoint.clone(),
            })
            .collect();
        let (jobs, peers) = self.exchange(&t.procs, contributed, remote);
        if !self.dynamic.connected.iter().any(|(s, _)| s == &t.procs) {
            log::debug!("server: connected {:?}", t.procs);
            self.dynamic.connected.push((t.procs.clone(), false));
        }
        for a in t.arrived {
            let data = payload_for(&jobs, &peers, &a.proc_);
            out.push(reply(
                a.conn,
                a.tag,
                sys::PMIX_SUCCESS,
                ReplyData::Connected(Box::new(data)),
            ));
        }
    }

    /// What a completed exchange (connect, group construct) delivers: the job data of
    /// every namespace in `procs` (ours where we know it, else the other servers'), and
    /// the endpoint data of every contributor (ours, then the other servers', which is
    /// also kept here).
    pub(super) fn exchange(
        &mut self,
        procs: &[ProcId],
        contributed: Vec<PeerData>,
        remote: ConnectData,
    ) -> (Vec<JobData>, Vec<PeerData>) {
        let mut peers = contributed;
        for p in remote.peers {
            if !peers.iter().any(|q| q.proc_ == p.proc_) {
                self.store_peer(&p);
                peers.push(p);
            }
        }
        let mut jobs: Vec<JobData> = Vec::new();
        for p in procs.iter().chain(peers.iter().map(|x| &x.proc_)) {
            if jobs.iter().any(|j| j.nspace == p.nspace) {
                continue;
            }
            if let Some(ns) = self.nspaces.get(&p.nspace) {
                jobs.push(ns.job.clone());
            } else if let Some(j) = remote.jobs.iter().find(|j| j.nspace == p.nspace) {
                jobs.push(j.clone());
            }
        }
        (jobs, peers)
    }

    /// Keep another server's participant's endpoint data, so Gets here find it.
    fn store_peer(&mut self, p: &PeerData) {
        if self.is_local(&p.proc_) || p.proc_.rank >= sys::PMIX_RANK_VALID {
            return;
        }
        let Some(ns) = self.nspaces.get_mut(&p.proc_.nspace) else {
            return;
        };
        let pd = ns.data.entry(p.proc_.rank).or_default();
        pd.remote = true;
        for i in &p.info {
            pd.kv.put(i.key.clone(), sys::PMIX_GLOBAL, i.value.clone());
        }
    }

    /// True if a remembered connect covers every entry of `key` and includes `me`.
    fn is_connected(&self, key: &[ProcId], me: &ProcId) -> bool {
        self.dynamic
            .connected
            .iter()
            .any(|(s, _)| includes(s, me) && key.iter().all(|q| self.covers(s, q)))
    }

    fn fail_tracker(&mut self, tkey: &(bool, Vec<ProcId>), status: i32, out: &mut Vec<Action>) {
        if let Some(t) = self.dynamic.trackers.remove(tkey) {
            for a in t.arrived {
                out.push(reply(a.conn, a.tag, status, ReplyData::None));
            }
        }
    }

    /// A connect or disconnect timer fired.
    pub(super) fn connect_timer(&mut self, id: u64, out: &mut Vec<Action>) {
        if let Some(k) = self.tracker_key(id) {
            log::warn!("server: {} over {:?} timed out", what(k.0), k.1);
            self.fail_tracker(&k, sys::PMIX_ERR_TIMEOUT, out);
        }
    }

    /// A participant's connection closed: operations waiting for it fail, and if it
    /// had not finalized, the members it was connected to hear that it ended.
    pub(super) fn connect_participant_gone(
        &mut self,
        p: &ProcId,
        finalized: bool,
        out: &mut Vec<Action>,
    ) {
        let keys: Vec<(bool, Vec<ProcId>)> = self
            .dynamic
            .trackers
            .keys()
            .filter(|k| includes(&k.1, p))
            .cloned()
            .collect();
        for k in keys {
            self.fail_tracker(&k, sys::PMIX_ERR_PROC_TERM_WO_SYNC, out);
        }
        if !finalized {
            self.connected_member_left(p, out);
        }
    }

    /// `p` ended (finalized or vanished) while connected: tell the other local members
    /// (`PMIX_ERR_PROC_TERM_WO_SYNC`, `p` as source and affected process) and forget
    /// the connections it was part of.
    pub(super) fn connected_member_left(&mut self, p: &ProcId, out: &mut Vec<Action>) {
        let (mine, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.dynamic.connected)
            .into_iter()
            .partition(|(s, _)| includes(s, p));
        self.dynamic.connected = keep;
        let mut told: Vec<ProcId> = Vec::new();
        let mut elsewhere: Vec<ProcId> = Vec::new();
        for (s, _) in &mine {
            // Members on other servers hear of it through the host.
            for q in s {
                let remote = if q.rank == sys::PMIX_RANK_WILDCARD {
                    !self.connect_shape(std::slice::from_ref(q)).1
                } else {
                    !self.is_local(q)
                };
                if remote && !elsewhere.contains(q) {
                    elsewhere.push(q.clone());
                }
            }
        }
        if !elsewhere.is_empty() {
            let info: Vec<Info> = [
                Info::new(ak::PMIX_EVENT_AFFECTED_PROC, Value::Proc(Some(p.clone()))),
                Info::new(ak::PMIX_EVENT_CUSTOM_RANGE, Value::proc_array(&elsewhere)),
            ]
            .into_iter()
            .flatten()
            .collect();
            out.push(Action::Host(Upcall::Notify {
                source: p.clone(),
                status: sys::PMIX_ERR_PROC_TERM_WO_SYNC,
                range: sys::PMIX_RANGE_CUSTOM,
                info,
            }));
        }
        for (s, _) in mine {
            let members: Vec<ProcId> = self
                .by_proc
                .keys()
                .filter(|q| *q != p && includes(&s, q))
                .cloned()
                .collect();
            for q in members {
                if told.contains(&q) {
                    continue;
                }
                let info = Info::new(ak::PMIX_EVENT_AFFECTED_PROC, Value::Proc(Some(p.clone())))
                    .into_iter()
                    .collect();
                log::debug!(
                    "server: {} ended while connected to {}: PMIX_ERR_PROC_TERM_WO_SYNC",
                    p,
                    q
                );
                self.event_to(&q, sys::PMIX_ERR_PROC_TERM_WO_SYNC, p, info, out);
                told.push(q);
            }
        }
    }

    /// Number of connects and disconnects collecting participants (tests, diagnostics).
    pub fn pending_connects(&self) -> usize {
        self.dynamic.trackers.len()
    }

    /// Participant lists of the connects in force (tests, diagnostics).
    pub fn connected_sets(&self) -> Vec<Vec<ProcId>> {
        self.dynamic
            .connected
            .iter()
            .map(|(s, _)| s.clone())
            .collect()
    }
}

/// The part of an exchange one participant receives: the other namespaces' job data and
/// the other participants' endpoint data.
pub(super) fn payload_for(jobs: &[JobData], peers: &[PeerData], who: &ProcId) -> ConnectData {
    ConnectData {
        jobs: jobs
            .iter()
            .filter(|j| j.nspace != who.nspace)
            .cloned()
            .collect(),
        peers: peers.iter().filter(|p| &p.proc_ != who).cloned().collect(),
    }
}

#[cfg(test)]
pub(super) mod tests {
    //! Connect and disconnect driven through the state machine, in memory (the helpers
    //! serve the other dynamic operations' tests too).
    use super::super::*;
    use crate::protocol::dynamic::{decode_connect_blobs, encode_connect_blob};
    use crate::protocol::{ConnectData, DynReq, PeerData, ReplyData, Req, Request, ServerMsg};
    use crate::server::state::Upcall;

    const UID: u32 = 1000;

    pub(crate) fn ns(n: &str) -> Nspace {
        Nspace::new(n).unwrap()
    }
    pub(crate) fn p(n: &str, r: Rank) -> ProcId {
        ProcId::new(ns(n), r)
    }
    pub(crate) fn wild(n: &str) -> ProcId {
        p(n, sys::PMIX_RANK_WILDCARD)
    }

    /// Namespaces "a" (2 ranks) and "b" (1 rank) all here, connected as conns 1, 2, 3;
    /// namespace "r" (2 ranks) lives elsewhere (unknown here).
    pub(crate) fn setup() -> ServerState {
        let mut s = ServerState::new(p("srv", 0), "h".into());
        let mut conn = 0;
        for (n, size) in [("a", 2u32), ("b", 1)] {
            let peers: Vec<String> = (0..size).map(|r| r.to_string()).collect();
            s.register_nspace(
                &ns(n),
                size,
                vec![
                    Info::new(keys::JOB_SIZE, Value::Uint32(size)).unwrap(),
                    Info::new(keys::LOCAL_PEERS, Value::string(&peers.join(","))).unwrap(),
                    Info::new("job.tag", Value::string(n)).unwrap(),
                ],
            );
            for r in 0..size {
                conn += 1;
                crate::server::state::connect_test_client(&mut s, &p(n, r), conn, UID);
            }
        }
        s
    }

    pub(crate) fn send(s: &mut ServerState, conn: ConnId, tag: u32, r: DynReq) -> Vec<Action> {
        let mut out = Vec::new();
        let body = protocol::encode(&Request {
            tag,
            req: Req::Dyn(r),
        });
        s.request(conn, &body, &mut out).unwrap();
        out
    }

    fn connect(procs: Vec<ProcId>, ep: i32) -> DynReq {
        DynReq::Connect {
            procs,
            timeout_ms: 0,
            info: vec![],
            endpoint: vec![
                Info::new("ep", Value::Int(ep)).unwrap(),
                Info::new("pmix.reserved", Value::Int(0)).unwrap(),
            ],
        }
    }

    fn disconnect(procs: Vec<ProcId>) -> DynReq {
        DynReq::Disconnect {
            procs,
            timeout_ms: 0,
            info: vec![],
        }
    }

    pub(crate) fn msgs(out: &[Action]) -> Vec<(ConnId, ServerMsg)> {
        out.iter()
            .filter_map(|a| match a {
                Action::Send(c, b) => Some((*c, protocol::decode::<ServerMsg>(b).unwrap())),
                _ => None,
            })
            .collect()
    }

    pub(crate) fn statuses(out: &[Action]) -> Vec<(ConnId, u32, i32)> {
        let mut v: Vec<_> = msgs(out)
            .into_iter()
            .filter_map(|(c, m)| match m {
                ServerMsg::Reply { tag, status, .. } => Some((c, tag, status)),
                _ => None,
            })
            .collect();
        v.sort();
        v
    }

    fn connected_data(out: &[Action], conn: ConnId) -> ConnectData {
        msgs(out)
            .into_iter()
            .find_map(|(c, m)| match m {
                ServerMsg::Reply {
                    data: ReplyData::Connected(d),
                    ..
                } if c == conn => Some(*d),
                _ => None,
            })
            .expect("a Connected reply")
    }

    #[test]
    fn argument_rules() {
        let mut s = setup();
        assert_eq!(
            statuses(&send(&mut s, 1, 1, connect(vec![], 0))),
            vec![(1, 1, sys::PMIX_ERR_BAD_PARAM)]
        );
        assert_eq!(
            statuses(&send(&mut s, 1, 2, connect(vec![p("a", 1), p("b", 0)], 0))),
            vec![(1, 2, sys::PMIX_ERR_NOT_A_MEMBER)]
        );
        assert_eq!(
            statuses(&send(&mut s, 1, 3, disconnect(vec![p("a", 0), p("b", 0)]))),
            vec![(1, 3, sys::PMIX_ERR_INVALID_OPERATION)]
        );
        assert_eq!(s.pending_connects(), 0);
    }

    #[test]
    fn all_local_connect_completes_here_with_job_and_endpoint_data() {
        let mut s = setup();
        // Order is irrelevant: a:1 lists the set the other way round.
        assert!(send(&mut s, 1, 1, connect(vec![p("a", 0), wild("b")], 10)).is_empty());
        assert!(!send(&mut s, 3, 2, connect(vec![wild("b"), p("a", 0)], 30)).is_empty());
        assert_eq!(s.pending_connects(), 0);
        assert_eq!(s.connected_sets(), vec![vec![p("a", 0), wild("b")]]);
    }

    #[test]
    fn completion_carries_the_other_namespaces_and_exactly_the_contributions() {
        let mut s = setup();
        send(&mut s, 1, 1, connect(vec![wild("b"), p("a", 0)], 10));
        let out = send(&mut s, 3, 2, connect(vec![p("a", 0), wild("b")], 30));
        assert!(!out.iter().any(|a| matches!(a, Action::Host(_))));
        assert_eq!(statuses(&out), vec![(1, 1, 0), (3, 2, 0)]);
        let a0 = connected_data(&out, 1);
        assert_eq!(a0.jobs.len(), 1);
        assert_eq!(a0.jobs[0].nspace, ns("b"));
        assert_eq!(
            a0.peers,
            vec![PeerData {
                proc_: p("b", 0),
                info: vec![Info::new("ep", Value::Int(30)).unwrap()],
            }],
            "exactly what b:0 contributed, reserved keys dropped"
        );
        let b0 = connected_data(&out, 3);
        assert_eq!(b0.jobs[0].nspace, ns("a"));
        assert_eq!(b0.peers[0].proc_, p("a", 0));
    }

    #[test]
    fn wildcard_and_explicit_never_match_and_sets_are_independent() {
        let mut s = setup();
        assert!(statuses(&send(&mut s, 1, 1, connect(vec![wild("a")], 0))).is_empty());
        assert!(statuses(&send(&mut s, 2, 1, connect(vec![p("a", 0), p("a", 1)], 0))).is_empty());
        // A second, different set involving a:0 proceeds independently.
        let out = send(&mut s, 1, 2, connect(vec![p("a", 0), p("b", 0)], 0));
        assert!(statuses(&out).is_empty());
        let out = send(&mut s, 3, 2, connect(vec![p("b", 0), p("a", 0)], 0));
        assert_eq!(statuses(&out), vec![(1, 2, 0), (3, 2, 0)]);
        assert_eq!(s.pending_connects(), 2);
        // The identical set again from the same process, while in progress: refused.
        assert_eq!(
            statuses(&send(&mut s, 1, 3, connect(vec![wild("a")], 0))),
            vec![(1, 3, sys::PMIX_ERR_EXISTS)]
        );
        let out = send(&mut s, 2, 4, connect(vec![wild("a")], 0));
        assert_eq!(statuses(&out), vec![(1, 1, 0), (2, 4, 0)]);
    }

    #[test]
    fn disconnect_forgets_and_a_member_leaving_raises_term_wo_sync() {
        let mut s = setup();
        send(&mut s, 1, 1, connect(vec![p("a", 0), p("b", 0)], 0));
        send(&mut s, 3, 1, connect(vec![p("a", 0), p("b", 0)], 0));
        send(&mut s, 1, 2, disconnect(vec![p("b", 0), p("a", 0)]));
        let out = send(&mut s, 3, 2, disconnect(vec![p("a", 0), p("b", 0)]));
        assert_eq!(statuses(&out), vec![(1, 2, 0), (3, 2, 0)]);
        assert!(s.connected_sets().is_empty());
        assert_eq!(
            statuses(&send(&mut s, 1, 3, disconnect(vec![p("a", 0), p("b", 0)]))),
            vec![(1, 3, sys::PMIX_ERR_INVALID_OPERATION)]
        );
        // Connect again; b:0 then vanishes without disconnecting.
        send(&mut s, 1, 4, connect(vec![p("a", 0), p("b", 0)], 0));
        send(&mut s, 3, 4, connect(vec![p("a", 0), p("b", 0)], 0));
        let mut out = Vec::new();
        s.closed(3, &mut out);
        let evs: Vec<(ConnId, i32, ProcId)> = msgs(&out)
            .into_iter()
            .filter_map(|(c, m)| match m {
                ServerMsg::Event { status, source, .. } => Some((c, status, source)),
                _ => None,
            })
            .collect();
        assert_eq!(evs, vec![(1, sys::PMIX_ERR_PROC_TERM_WO_SYNC, p("b", 0))]);
        assert!(s.connected_sets().is_empty());
        // Later operations naming it fail at once.
        assert_eq!(
            statuses(&send(&mut s, 1, 5, connect(vec![p("a", 0), p("b", 0)], 0))),
            vec![(1, 5, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]
        );
    }

    #[test]
    fn finalize_without_disconnect_tells_the_others() {
        let mut s = setup();
        send(&mut s, 1, 1, connect(vec![wild("a"), wild("b")], 0));
        send(&mut s, 2, 1, connect(vec![wild("b"), wild("a")], 0));
        send(&mut s, 3, 1, connect(vec![wild("a"), wild("b")], 0));
        let mut out = Vec::new();
        let body = protocol::encode(&Request {
            tag: 9,
            req: Req::Finalize,
        });
        s.request(1, &body, &mut out).unwrap();
        let mut told: Vec<ConnId> = msgs(&out)
            .into_iter()
            .filter_map(|(c, m)| match m {
                ServerMsg::Event { status, .. } if status == sys::PMIX_ERR_PROC_TERM_WO_SYNC => {
                    Some(c)
                }
                _ => None,
            })
            .collect();
        told.sort();
        assert_eq!(told, vec![2, 3]);
    }

    #[test]
    fn lost_participant_and_timeout_fail_the_tracker() {
        let mut s = setup();
        send(&mut s, 1, 1, connect(vec![p("a", 0), p("a", 1)], 0));
        let mut out = Vec::new();
        s.closed(2, &mut out);
        assert_eq!(
            statuses(&out),
            vec![(1, 1, sys::PMIX_ERR_PROC_TERM_WO_SYNC)]
        );
        let out = send(
            &mut s,
            1,
            2,
            DynReq::Connect {
                procs: vec![p("a", 0), p("b", 0)],
                timeout_ms: 100,
                info: vec![],
                endpoint: vec![],
            },
        );
        let ev = out
            .iter()
            .find_map(|a| match a {
                Action::Timer(_, ev) => Some(*ev),
                _ => None,
            })
            .unwrap();
        let mut out = Vec::new();
        s.timer(ev, &mut out);
        assert_eq!(statuses(&out), vec![(1, 2, sys::PMIX_ERR_TIMEOUT)]);
        assert_eq!(s.pending_connects(), 0);
    }

    #[test]
    fn spanning_connect_makes_one_host_call_and_delivers_remote_data() {
        let mut s = setup();
        let set = vec![p("a", 0), p("a", 1), wild("r")];
        assert!(send(&mut s, 1, 1, connect(set.clone(), 1)).is_empty());
        let out = send(&mut s, 2, 1, connect(set.clone(), 2));
        let (id, data) = match out.as_slice() {
            [Action::Host(Upcall::Connect {
                id, procs, data, ..
            })] => {
                assert_eq!(procs, &{
                    let mut v = set.clone();
                    v.sort();
                    v
                });
                (*id, data.clone())
            }
            _ => panic!("expected exactly one host connect"),
        };
        let ours = decode_connect_blobs(&data).unwrap();
        assert_eq!(ours.peers.len(), 2);
        assert_eq!(ours.jobs.len(), 1);
        // The other server's blob: r:0 and r:1's endpoints, and r's job data.
        let theirs = encode_connect_blob(&ConnectData {
            jobs: vec![JobData {
                nspace: ns("r"),
                job: vec![Info::new("job.tag", Value::string("r")).unwrap()],
                ..Default::default()
            }],
            peers: (0..2)
                .map(|r| PeerData {
                    proc_: p("r", r),
                    info: vec![Info::new("ep", Value::Int(100 + r as i32)).unwrap()],
                })
                .collect(),
        });
        let mut all = data;
        all.extend(theirs);
        let mut out = Vec::new();
        s.connect_done(id, Ok(all), &mut out);
        assert_eq!(statuses(&out), vec![(1, 1, 0), (2, 1, 0)]);
        let a0 = connected_data(&out, 1);
        assert_eq!(a0.jobs.len(), 1, "only the other namespace's job data");
        assert_eq!(a0.jobs[0].nspace, ns("r"));
        assert_eq!(a0.peers.len(), 3, "a:1, r:0 and r:1");
        // A failed host connect fails every local participant with its status.
        let set2 = vec![p("a", 0), wild("r")];
        let out = send(&mut s, 1, 2, connect(set2, 0));
        let Some(Action::Host(Upcall::Connect { id, .. })) = out.first() else {
            panic!("expected a host connect");
        };
        let mut out = Vec::new();
        s.connect_done(
            *id,
            Err(crate::Error::not_supported("no connect")),
            &mut out,
        );
        assert_eq!(statuses(&out), vec![(1, 2, sys::PMIX_ERR_NOT_SUPPORTED)]);
    }
}
