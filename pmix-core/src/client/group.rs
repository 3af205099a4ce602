//! `PMIx_Group_*` in the client (the server does the work, see `server/group.rs`).
//!
//! The client keeps the groups it belongs to (name → members), so a group name in a
//! participant list (connect, fence, group construct) can be expanded, and updates it on
//! completion of a construct, invitation or join, on destruct and leave, and on
//! `PMIX_GROUP_LEFT` events. A construct or invitation carries the caller's endpoint data
//! (`PMIX_GROUP_ENDPT_DATA`: its REMOTE/GLOBAL puts minus reserved keys); on completion
//! the other members' endpoint data and the other namespaces' job data are kept as for
//! a connect.

use super::{Callback, Client, Inner};
use crate::error::{Error, Result};
use crate::event::Event;
use crate::protocol::{DynReq, GroupOp, GroupReply, ReplyData};
use crate::reactor;
use crate::store::{info_array, qualified};
use crate::value::includes;
use crate::value::{DataArray, Info, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::sync::Arc;

fn check_name(grp: &str) -> Result<()> {
    if grp.is_empty() || grp.len() > sys::PMIX_MAX_NSLEN {
        log::warn!("PMIx_Group: bad group name {:?}", grp);
        return Err(Error::bad_param(
            "group names are 1 to PMIX_MAX_NSLEN characters",
        ));
    }
    Ok(())
}

fn members_of(results: &[Info]) -> Vec<ProcId> {
    results
        .iter()
        .filter(|i| i.key.as_str() == ak::PMIX_GROUP_MEMBERSHIP)
        .flat_map(|i| match &i.value {
            Value::DataArray(a) => a
                .items
                .iter()
                .filter_map(|v| match v {
                    Value::Proc(Some(p)) => Some(p.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The container of qualified values (see [`crate::store::qualified`]) holding each of
/// `infos` qualified by `PMIX_GROUP_CONTEXT_ID` = `ctx`: how data a member contributed to
/// a group with a context id is kept, so a Get naming that qualifier selects it.
pub(crate) fn ctx_qualified(infos: &[Info], ctx: u64) -> Option<Info> {
    let mut qual = Info::new(ak::PMIX_GROUP_CONTEXT_ID, Value::Size(ctx)).ok()?;
    qual.flags |= sys::PMIX_INFO_QUALIFIER;
    let items: Vec<Value> = infos
        .iter()
        .filter(|i| i.key.as_str() != qualified::CONTAINER)
        .map(|i| {
            Value::DataArray(Box::new(DataArray {
                dtype: sys::PMIX_INFO,
                items: vec![
                    Value::Info(Box::new(i.clone())),
                    Value::Info(Box::new(qual.clone())),
                ],
            }))
        })
        .collect();
    if items.is_empty() {
        return None;
    }
    Info::new(
        qualified::CONTAINER,
        Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_DATA_ARRAY,
            items,
        })),
    )
    .ok()
}

/// Merge every alternative of the container `incoming` into `existing` (a value kept
/// before under the same qualifiers is replaced).
fn merge_container(existing: Option<&Value>, incoming: &Value) -> Value {
    let Value::DataArray(da) = incoming else {
        return incoming.clone();
    };
    let mut acc = existing.cloned();
    for alt in &da.items {
        match qualified::merge(acc.as_ref(), alt) {
            Ok(v) => acc = Some(v),
            Err(e) => log::warn!("PMIx_Group: a malformed qualified value was dropped: {}", e),
        }
    }
    acc.unwrap_or_else(|| incoming.clone())
}

/// The infos a caller gave inside `PMIX_GROUP_INFO` (data it shares with the members).
fn group_info_of(info: &[Info]) -> Vec<Info> {
    info.iter()
        .filter(|i| i.key.as_str() == ak::PMIX_GROUP_INFO)
        .filter_map(|i| info_array(&i.value))
        .flatten()
        .collect()
}

impl Inner {
    /// Keep what a completed construct or join delivered; returns its results. `own` is
    /// what we gave in `PMIX_GROUP_INFO`: readable by us as the others read it (qualified
    /// by the group's context id when it has one). `asked`: the members the request
    /// named, kept as the membership when the reply names none (an OpenPMIx 4.2
    /// server's never does, PRRTE 3.0's names none).
    fn absorb_group(
        &self,
        grp: &str,
        reply: GroupReply,
        own: &[Info],
        asked: Vec<ProcId>,
    ) -> Vec<Info> {
        let GroupReply { results, data } = reply;
        let ctx = crate::protocol::group_context_id(&results);
        let mut d = self.write();
        for j in data.jobs {
            if j.nspace != self.me.nspace {
                d.jobs.insert(j.nspace.clone(), j);
            }
        }
        for p in data.peers {
            let cache = d.peers.entry(p.proc_).or_default();
            for i in p.info {
                let v = if i.key.as_str() == qualified::CONTAINER {
                    merge_container(cache.get(&i.key), &i.value)
                } else {
                    i.value
                };
                cache.insert(i.key, v);
            }
        }
        let mine: Vec<Info> = match ctx {
            Some(c) => ctx_qualified(own, c).into_iter().collect(),
            None => own.to_vec(),
        };
        for i in mine {
            match d.own.map.get_mut(&i.key) {
                Some(e) if i.key.as_str() == qualified::CONTAINER => {
                    e.value = merge_container(Some(&e.value), &i.value);
                }
                Some(e) => e.value = i.value,
                // Internal: ours to read, not sent again at the next commit.
                None => {
                    d.own_reserved |= i.key.is_reserved();
                    d.own.put(i.key, sys::PMIX_INTERNAL, i.value)
                }
            }
        }
        let members = match members_of(&results) {
            m if m.is_empty() => asked,
            m => m,
        };
        d.groups.insert(grp.to_string(), members);
        results
    }

    /// Group events that change what we know: a member left.
    pub(super) fn note_event(&self, ev: &Event) {
        if ev.status != sys::PMIX_GROUP_LEFT {
            return;
        }
        let Some(grp) = ev
            .info
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_GROUP_ID)
            .and_then(|i| i.value.as_str())
        else {
            return;
        };
        if let Some(m) = self.write().groups.get_mut(grp) {
            m.retain(|p| p != &ev.source);
        }
    }
}

impl Client {
    /// Group names in a participant list become their members (a wildcard rank: all of
    /// them; rank r: member r). Names that are not groups we know stay.
    pub(super) fn expand_group_procs(&self, procs: Vec<ProcId>) -> Vec<ProcId> {
        let d = self.inner.read();
        let mut out = Vec::new();
        for p in procs {
            match d.groups.get(p.nspace.as_str()) {
                Some(m) if p.rank == sys::PMIX_RANK_WILDCARD => out.extend(m.iter().cloned()),
                Some(m) => match usize::try_from(p.rank).ok().and_then(|r| m.get(r)) {
                    Some(q) => out.push(q.clone()),
                    None => out.push(p),
                },
                None => out.push(p),
            }
        }
        out
    }

    /// The groups we are a member of, with their members.
    pub fn groups(&self) -> Vec<(String, Vec<ProcId>)> {
        self.inner
            .read()
            .groups
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// `info` plus our endpoint data as `PMIX_GROUP_ENDPT_DATA`.
    fn with_endpoint(&self, info: &[Info]) -> Vec<Info> {
        let mut v = info.to_vec();
        let ep: Vec<Value> = self
            .endpoint_data()
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect();
        if let Ok(i) = Info::new(
            ak::PMIX_GROUP_ENDPT_DATA,
            Value::DataArray(Box::new(DataArray {
                dtype: sys::PMIX_INFO,
                items: ep,
            })),
        ) {
            v.push(i);
        }
        v
    }

    fn group_request(
        &self,
        op: GroupOp,
        grp: &str,
        procs: Vec<ProcId>,
        info: Vec<Info>,
        cb: Callback<Vec<Info>>,
    ) -> Result<()> {
        if self.is_singleton() {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                "a singleton has no server for groups",
            ));
        }
        let inner: Arc<Inner> = self.inner.clone();
        let g = grp.to_string();
        let own = group_info_of(&info);
        let asked = if op == GroupOp::Construct {
            procs.clone()
        } else {
            Vec::new()
        };
        self.dyn_request(
            DynReq::Group {
                op: op as u8,
                id: grp.to_string(),
                procs,
                info,
            },
            Box::new(move |st, data| {
                if st != sys::PMIX_SUCCESS {
                    cb(Err(Error::new(st, format!("group {} operation failed", g))));
                    return;
                }
                let res = match data {
                    ReplyData::Group(r) => inner.absorb_group(&g, *r, &own, asked),
                    _ => Vec::new(),
                };
                if matches!(op, GroupOp::Destruct | GroupOp::Leave) {
                    inner.write().groups.remove(&g);
                }
                cb(Ok(res));
            }),
        )
    }

    /// `PMIx_Group_construct_nb`: `cb` receives the results (`PMIX_GROUP_ID`,
    /// `PMIX_GROUP_MEMBERSHIP`, `PMIX_GROUP_CONTEXT_ID` if asked for).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` (bad name), `PMIX_ERR_NOT_A_MEMBER` (an explicit list
    /// without us, unless `PMIX_GROUP_ADD_MEMBERS` or `PMIX_GROUP_BOOTSTRAP` is used),
    /// `PMIX_ERR_UNREACH`.
    pub fn group_construct_nb(
        &self,
        grp: &str,
        procs: Vec<ProcId>,
        info: &[Info],
        cb: Callback<Vec<Info>>,
    ) -> Result<()> {
        check_name(grp)?;
        let special = info.iter().any(|i| {
            matches!(
                i.key.as_str(),
                ak::PMIX_GROUP_ADD_MEMBERS | ak::PMIX_GROUP_BOOTSTRAP
            )
        });
        let procs = self.expand_group_procs(procs);
        if !procs.is_empty() && !special && !includes(&procs, &self.inner.me) {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_A_MEMBER,
                format!("{} is not among the group's members", self.inner.me),
            ));
        }
        let info = self.with_endpoint(info);
        self.group_request(GroupOp::Construct, grp, procs, info, cb)
    }

    /// `PMIx_Group_construct` (blocking): the results.
    ///
    /// # Errors
    /// As [`Client::group_construct_nb`], plus `PMIX_ERR_WOULD_BLOCK`,
    /// `PMIX_ERR_TIMEOUT`, `PMIX_GROUP_CONSTRUCT_ABORT`, `PMIX_ERR_EXISTS`.
    pub fn group_construct(
        &self,
        grp: &str,
        procs: Vec<ProcId>,
        info: &[Info],
    ) -> Result<Vec<Info>> {
        reactor::wait(
            "PMIx_Group_construct",
            super::collective_bound(info),
            |done| self.group_construct_nb(grp, procs, info, Box::new(move |r| done.complete(r))),
        )
    }

    /// `PMIx_Group_destruct_nb`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_UNREACH`.
    pub fn group_destruct_nb(&self, grp: &str, info: &[Info], cb: Callback<()>) -> Result<()> {
        check_name(grp)?;
        // The members go along: an OpenPMIx 5.x server keeps no membership and counts
        // the destruct's participants from them (our servers and 4.2's ignore them).
        let members = self
            .inner
            .read()
            .groups
            .get(grp)
            .cloned()
            .unwrap_or_default();
        self.group_request(
            GroupOp::Destruct,
            grp,
            members,
            info.to_vec(),
            Box::new(move |r| cb(r.map(|_| ()))),
        )
    }

    /// `PMIx_Group_destruct` (blocking).
    ///
    /// # Errors
    /// As [`Client::group_destruct_nb`], plus `PMIX_ERR_NOT_FOUND` (no such group),
    /// `PMIX_ERR_NOT_A_MEMBER`, `PMIX_ERR_LOST_CONNECTION` (a member was lost),
    /// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_TIMEOUT`.
    pub fn group_destruct(&self, grp: &str, info: &[Info]) -> Result<()> {
        reactor::wait(
            "PMIx_Group_destruct",
            super::collective_bound(info),
            |done| self.group_destruct_nb(grp, info, Box::new(move |r| done.complete(r))),
        )
    }

    /// `PMIx_Group_invite_nb`: we lead; `cb` receives the results once every invitee
    /// answered (or `PMIX_GROUP_CONSTRUCT_ABORT`).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` (bad name, nobody invited), `PMIX_ERR_UNREACH`.
    pub fn group_invite_nb(
        &self,
        grp: &str,
        procs: Vec<ProcId>,
        info: &[Info],
        cb: Callback<Vec<Info>>,
    ) -> Result<()> {
        check_name(grp)?;
        if procs.is_empty() {
            return Err(Error::bad_param("nobody to invite"));
        }
        let procs = self.expand_group_procs(procs);
        let info = self.with_endpoint(info);
        self.group_request(GroupOp::Invite, grp, procs, info, cb)
    }

    /// `PMIx_Group_invite` (blocking).
    ///
    /// # Errors
    /// As [`Client::group_invite_nb`], plus `PMIX_ERR_WOULD_BLOCK`.
    pub fn group_invite(&self, grp: &str, procs: Vec<ProcId>, info: &[Info]) -> Result<Vec<Info>> {
        reactor::wait("PMIx_Group_invite", None, |done| {
            self.group_invite_nb(grp, procs, info, Box::new(move |r| done.complete(r)))
        })
    }

    /// `PMIx_Group_join_nb`: accept (results once the group formed) or decline (at once,
    /// no results).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_UNREACH`.
    pub fn group_join_nb(
        &self,
        grp: &str,
        leader: Option<&ProcId>,
        accept: bool,
        info: &[Info],
        cb: Callback<Vec<Info>>,
    ) -> Result<()> {
        check_name(grp)?;
        let procs = leader.into_iter().cloned().collect();
        let (op, info) = if accept {
            (GroupOp::Join, self.with_endpoint(info))
        } else {
            (GroupOp::Decline, info.to_vec())
        };
        self.group_request(op, grp, procs, info, cb)
    }

    /// `PMIx_Group_join` (blocking).
    ///
    /// # Errors
    /// As [`Client::group_join_nb`], plus `PMIX_ERR_NOT_FOUND` (no such invitation),
    /// `PMIX_GROUP_CONSTRUCT_ABORT`, `PMIX_ERR_WOULD_BLOCK`.
    pub fn group_join(
        &self,
        grp: &str,
        leader: Option<&ProcId>,
        accept: bool,
        info: &[Info],
    ) -> Result<Vec<Info>> {
        reactor::wait("PMIx_Group_join", None, |done| {
            self.group_join_nb(
                grp,
                leader,
                accept,
                info,
                Box::new(move |r| done.complete(r)),
            )
        })
    }

    /// `PMIx_Group_leave_nb`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_UNREACH`.
    pub fn group_leave_nb(&self, grp: &str, info: &[Info], cb: Callback<()>) -> Result<()> {
        check_name(grp)?;
        self.group_request(
            GroupOp::Leave,
            grp,
            Vec::new(),
            info.to_vec(),
            Box::new(move |r| cb(r.map(|_| ()))),
        )
    }

    /// `PMIx_Group_leave` (blocking).
    ///
    /// # Errors
    /// As [`Client::group_leave_nb`], plus `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_NOT_A_MEMBER`,
    /// `PMIX_ERR_WOULD_BLOCK`.
    pub fn group_leave(&self, grp: &str, info: &[Info]) -> Result<()> {
        reactor::wait("PMIx_Group_leave", None, |done| {
            self.group_leave_nb(grp, info, Box::new(move |r| done.complete(r)))
        })
    }
}
