//! The upcalls the front end serves for every node (see [`super::super::upcall`]):
//! publish, lookup, unpublish, log and job control go to pmixrun's own host (the
//! [`JobHost`](crate::host::JobHost) a one-node job gives its server), whose completion
//! travels back to the asking daemon; a group construct or destruct is collected over
//! the nodes hosting its members, like a fence (a construct with the membership every
//! node's server then forms, see [`constructs`](super::constructs)), or (a bootstrap
//! construct whose leaders and members are spread over nodes) part by part until every
//! leader came and every member a leader named arrived (`Shared::group_part`).

use super::super::link::Down;
use super::super::upcall::{Answer, Finish, Fwd};
use super::constructs::{BootPart, Outcome, Part};
use super::Shared;
use pmix_core::server::{Host, HostReply};
use pmix_core::{DataArray, Error, Info, ProcId, Value};
use pmix_sys::attrs::keys as ak;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// The parts of a construct a server sends one by one (`PMIX_GROUP_BOOTSTRAP` spanning
/// nodes; pmix-core's `server/group_remote.rs` names these keys): how many leaders a
/// part brings, and who arrived.
const GRP_PART: &str = "pmixrs.grp.part";
const GRP_ARRIVED: &str = "pmixrs.grp.arrived";

/// Context ids the front end hands out start here, above what any one node's server
/// counts for the groups that stay on its node, so the two never collide.
pub(super) const FIRST_CTX_ID: u64 = 1 << 20;

/// A completion that may be run once from either of two places: the call's own
/// completion, or the front end when the host answered at once without running it.
#[derive(Clone)]
struct Once(Arc<Mutex<Option<Finish>>>);

impl Once {
    fn run(&self, r: pmix_core::Result<Answer>) {
        let f = self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(f) = f {
            f(r);
        }
    }
}

impl Shared {
    /// Daemon `node` forwarded upcall `id`.
    pub(super) fn upcall(&self, node: usize, id: u64, call: Fwd) {
        let link = self.links.get(node).cloned();
        let finish: Finish = Box::new(move |r| {
            let (status, msg, answer) = match r {
                Ok(a) => (pmix_sys::PMIX_SUCCESS, String::new(), a),
                Err(e) => (
                    pmix_core::protocol::status_of(&e),
                    e.to_string(),
                    Answer::Unit,
                ),
            };
            if let Some(l) = link {
                l.send(&Down::UpcallDone {
                    id,
                    status,
                    msg,
                    answer,
                });
            }
        });
        if let Fwd::IofPull {
            procs,
            channels,
            directives,
        } = &call
        {
            // Which nodes get which output (the host's record says whether any does).
            if let Some(s) = self.iof.get(node) {
                s.update(procs, *channels, directives);
            }
        }
        let once = Once(Arc::new(Mutex::new(Some(finish))));
        let o2 = once.clone();
        let call = match call.into_call(Box::new(move |r| o2.run(r))) {
            Ok(c) => c,
            Err((
                Fwd::Group {
                    construct,
                    grp,
                    procs,
                    info,
                },
                finish,
            )) => return self.group(node, id, (construct, grp), &procs, &info, finish),
            Err((
                Fwd::Monitor {
                    proc_,
                    monitor,
                    error,
                    directives,
                },
                finish,
            )) => return self.monitor(node, proc_, *monitor, error, directives, finish),
            Err((_, finish)) => {
                return finish(Err(Error::not_supported("not an upcall of the front end")))
            }
        };
        let what = call.name();
        match self.head.call(call) {
            Ok(HostReply::Pending) => {}
            Ok(HostReply::Completed) => once.run(Ok(Answer::Unit)),
            Err(e) => {
                log::debug!("node {node}: {what} refused: {e}");
                once.run(Err(e));
            }
        }
    }

    /// `who` left a group (the event its server raised for the other servers' members,
    /// whose servers still count it): a destruct of the group does not wait for it.
    pub(super) fn group_left(&self, who: &ProcId, info: &[Info]) {
        let grp = info
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_GROUP_ID)
            .and_then(|i| i.value.as_str().map(str::to_string));
        if let Some(g) = grp {
            self.lock()
                .group_left
                .entry(g)
                .or_default()
                .push(who.clone());
        }
    }

    /// One server's part of a group construct or destruct (`op`: construct?, name) over
    /// `procs`; when every node hosting a member has sent its part, each gets the
    /// concatenation of the parts' `PMIX_GROUP_ENDPT_DATA` blobs and, for a construct,
    /// the membership and (if one asked) the group's context id.
    fn group(
        &self,
        node: usize,
        id: u64,
        op: (bool, String),
        procs: &[ProcId],
        info: &[Info],
        finish: Finish,
    ) {
        let (construct, grp) = op;
        if construct && info.iter().any(|i| i.key.as_str() == GRP_PART) {
            return self.group_part((node, id), grp, procs, info, finish);
        }
        if construct {
            return self.construct(node, id, grp, procs, info, finish);
        }
        let left = self
            .lock()
            .group_left
            .get(&grp)
            .cloned()
            .unwrap_or_default();
        let members: Vec<ProcId> = procs
            .iter()
            .filter(|p| p.nspace == self.nspace && !left.contains(p))
            .cloned()
            .collect();
        let expect = match self.nodes_of(&members) {
            Ok(e) if !e.is_empty() => e,
            Ok(_) => return finish(Err(Error::bad_param("the group has no member here"))),
            Err(why) => return finish(Err(Error::bad_param(why))),
        };
        let blob = endpoint_blob(info);
        let tag = format!("destruct:{grp}");
        let (done, results) = {
            let mut st = self.lock();
            st.group_waits.insert((node, id), finish);
            let r = st
                .groups
                .contribute(Vec::new(), Some(tag.clone()), expect, node, id, blob);
            let d = match r {
                Ok(Some(d)) => d,
                Ok(None) => return,
                Err(why) => {
                    let f = st.group_waits.remove(&(node, id));
                    drop(st);
                    if let Some(f) = f {
                        f(Err(Error::bad_param(why)));
                    }
                    return;
                }
            };
            st.group_left.remove(&grp);
            let results: Vec<Info> =
                Info::new(ak::PMIX_GROUP_ENDPT_DATA, Value::ByteObject(d.data.clone()))
                    .into_iter()
                    .collect();
            let done: Vec<Finish> = d
                .parts
                .iter()
                .filter_map(|k| st.group_waits.remove(k))
                .collect();
            (done, results)
        };
        self.report(&format!("group {tag} over {} nodes complete", done.len()));
        for f in done {
            f(Ok(Answer::Infos(results.clone())));
        }
    }

    /// The nodes hosting the members of the job among `procs` (a construct waits for
    /// the parts of these nodes' servers).
    fn member_nodes(&self, procs: &[ProcId]) -> std::result::Result<BTreeSet<usize>, String> {
        let ours: Vec<ProcId> = procs
            .iter()
            .filter(|p| p.nspace == self.nspace)
            .cloned()
            .collect();
        self.nodes_of(&ours)
    }

    /// One server's part of a construct over `procs` (see [`constructs`](super::constructs)).
    fn construct(
        &self,
        node: usize,
        id: u64,
        grp: String,
        procs: &[ProcId],
        info: &[Info],
        finish: Finish,
    ) {
        let part = Part {
            node,
            id,
            procs,
            optional: crate::spawn::flag(info, ak::PMIX_GROUP_OPTIONAL),
            ctx: crate::spawn::flag(info, ak::PMIX_GROUP_ASSIGN_CONTEXT_ID),
            data: endpoint_blob(info),
        };
        let nodes = |ps: &[ProcId]| self.member_nodes(ps);
        let r = {
            let mut guard = self.lock();
            let st = &mut *guard;
            st.group_waits.insert((node, id), finish);
            st.constructs.contribute(&grp, part, &st.ended, &nodes)
        };
        match r {
            Ok(Some(o)) => self.construct_over(&grp, o),
            Ok(None) => {}
            Err(why) => {
                let f = self.lock().group_waits.remove(&(node, id));
                if let Some(f) = f {
                    f(Err(Error::bad_param(why)));
                }
            }
        }
    }

    /// A construct is over: answer every part's server.
    fn construct_over(&self, grp: &str, o: Outcome) {
        let (done, result) = {
            let mut st = self.lock();
            let (parts, result) = match o {
                Outcome::Aborted { lost, parts } => {
                    log::warn!("group {grp} names {lost}, which ended: aborted");
                    (parts, Err(lost))
                }
                Outcome::Formed(f) => {
                    let mut results = Vec::new();
                    if f.ctx {
                        let c = FIRST_CTX_ID + st.last_ctx;
                        st.last_ctx += 1;
                        results.extend(Info::new(ak::PMIX_GROUP_CONTEXT_ID, Value::Size(c)));
                    }
                    // Every part's server forms the same group, whatever ended it knew of.
                    results.extend(Info::new(
                        ak::PMIX_GROUP_MEMBERSHIP,
                        Value::DataArray(Box::new(DataArray {
                            dtype: pmix_sys::PMIX_PROC,
                            items: f
                                .members
                                .into_iter()
                                .map(|q| Value::Proc(Some(q)))
                                .collect(),
                        })),
                    ));
                    results.extend(Info::new(
                        ak::PMIX_GROUP_ENDPT_DATA,
                        Value::ByteObject(f.data),
                    ));
                    (f.parts, Ok(results))
                }
            };
            let done: Vec<Finish> = parts
                .iter()
                .filter_map(|k| st.group_waits.remove(k))
                .collect();
            (done, result)
        };
        if result.is_ok() {
            self.report(&format!(
                "group construct:{grp} complete, {} parts",
                done.len()
            ));
        }
        for f in done {
            f(match &result {
                Ok(results) => Ok(Answer::Infos(results.clone())),
                Err(lost) => Err(construct_abort(grp, lost)),
            });
        }
    }
}

/// A group part's `PMIX_GROUP_ENDPT_DATA` blob (empty without one).
fn endpoint_blob(info: &[Info]) -> Vec<u8> {
    info.iter()
        .find(|i| i.key.as_str() == ak::PMIX_GROUP_ENDPT_DATA)
        .and_then(|i| match &i.value {
            Value::ByteObject(b) => Some(b.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The processes a part of a construct says arrived.
fn arrived_in(info: &[Info]) -> Vec<ProcId> {
    info.iter()
        .filter(|i| i.key.as_str() == GRP_ARRIVED)
        .flat_map(|i| i.value.procs())
        .collect()
}

/// How a construct that lost member `q` ends for the members still waiting.
fn construct_abort(grp: &str, q: &ProcId) -> Error {
    Error::new(
        pmix_sys::PMIX_GROUP_CONSTRUCT_ABORT,
        format!("group {grp}: member {q} ended before the construct completed"),
    )
}

impl Shared {
    /// `p` ended for good: the constructs being collected that wait for it abort, or
    /// (`PMIX_GROUP_OPTIONAL`) go on without it and may now be complete. An abort's
    /// contributors' servers normally abort it first (the front end tells them of the
    /// end before it calls this), so these answers find nothing left to do there; they
    /// free the front end's records either way.
    pub(super) fn groups_lost(&self, p: &ProcId) {
        let nodes = |ps: &[ProcId]| self.member_nodes(ps);
        let over = {
            let mut guard = self.lock();
            let st = &mut *guard;
            let mut over = st.constructs.lost(p, &st.ended, &nodes);
            over.extend(st.group_parts.lost(p, &st.ended));
            over
        };
        for (grp, o) in over {
            self.construct_over(&grp, o);
        }
    }
}

impl Shared {
    /// One part (`key`: node, its id) of a construct collected in parts (see
    /// [`Bootstraps`](super::constructs::Bootstraps)).
    fn group_part(
        &self,
        key: (usize, u64),
        grp: String,
        procs: &[ProcId],
        info: &[Info],
        finish: Finish,
    ) {
        let num = |key: &str| {
            info.iter()
                .find(|i| i.key.as_str() == key)
                .and_then(|i| i.value.as_u64())
        };
        let part = BootPart {
            node: key.0,
            id: key.1,
            procs,
            leaders: num(GRP_PART).unwrap_or(0),
            need: num(ak::PMIX_GROUP_BOOTSTRAP),
            arrived: arrived_in(info),
            optional: crate::spawn::flag(info, ak::PMIX_GROUP_OPTIONAL),
            ctx: crate::spawn::flag(info, ak::PMIX_GROUP_ASSIGN_CONTEXT_ID),
            data: endpoint_blob(info),
        };
        let over = {
            let mut guard = self.lock();
            let st = &mut *guard;
            st.group_waits.insert(key, finish);
            st.group_parts.contribute(&grp, part, &st.ended)
        };
        if let Some(o) = over {
            self.construct_over(&grp, o);
        }
    }
}
