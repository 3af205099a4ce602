//! `PMIx_Connect` / `PMIx_Disconnect` in the client.
//!
//! The client checks the arguments (a non-empty list that names the caller, after group
//! ids are expanded), sends its endpoint data with the request (exactly its REMOTE and
//! GLOBAL puts, minus reserved keys) and, on completion, keeps what the server returned:
//! the job data of the other namespaces (so a Get with `PMIX_OPTIONAL` finds it) and the
//! other participants' endpoint data (in the peer cache, so a Get with `PMIX_IMMEDIATE`
//! finds it). A completed disconnect drops the job data of the other namespaces.

use super::{timeout_of, Callback, Client};
use crate::error::{Error, Result};
use crate::protocol::{ConnectData, DynReq, ReplyData, Req};
use crate::reactor;
use crate::value::includes;
use crate::value::{Info, ProcId};
use pmix_sys as sys;

fn ms(info: &[Info]) -> u32 {
    timeout_of(info)
        .map(|d| d.as_millis().min(u32::MAX as u128) as u32)
        .unwrap_or(0)
}

impl Client {
    /// Send a dynamic-operation request; `f` runs on the progress thread with the reply's
    /// status and data.
    pub(super) fn dyn_request(
        &self,
        req: DynReq,
        f: Box<dyn FnOnce(i32, ReplyData) + Send + 'static>,
    ) -> Result<()> {
        self.request(Req::Dyn(req), f)
    }

    /// The participant list of a connect or disconnect: group ids expanded, the caller
    /// among them.
    fn connect_args(&self, procs: Vec<ProcId>, call: &str) -> Result<Vec<ProcId>> {
        if procs.is_empty() {
            log::warn!("{}: no participants given", call);
            return Err(Error::bad_param(format!("{} needs participants", call)));
        }
        let procs = self.expand_groups(procs);
        if !includes(&procs, &self.inner.me) {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_A_MEMBER,
                format!("{} is not among the {} participants", self.inner.me, call),
            ));
        }
        Ok(procs)
    }

    /// What we contribute to a connect: our REMOTE/GLOBAL puts, minus reserved keys.
    pub(super) fn endpoint_data(&self) -> Vec<Info> {
        self.inner
            .read()
            .own
            .map
            .iter()
            .filter(|(k, e)| {
                !k.is_reserved() && matches!(e.scope, sys::PMIX_REMOTE | sys::PMIX_GLOBAL)
            })
            .map(|(k, e)| Info {
                key: k.clone(),
                flags: 0,
                value: e.value.clone(),
            })
            .collect()
    }

    /// A singleton can only "connect" to itself.
    fn singleton_only_self(&self, procs: &[ProcId]) -> Result<()> {
        let me = &self.inner.me;
        if procs.iter().all(|p| p.nspace == me.nspace) {
            Ok(())
        } else {
            Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                "a singleton has no server to connect through",
            ))
        }
    }

    /// `PMIx_Connect_nb`: `cb` runs once, on the progress thread.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` (no participants), `PMIX_ERR_NOT_A_MEMBER`,
    /// `PMIX_ERR_UNREACH` (then `cb` is not called).
    pub fn connect_procs_nb(
        &self,
        procs: Vec<ProcId>,
        info: &[Info],
        cb: Callback<()>,
    ) -> Result<()> {
        let procs = self.connect_args(procs, "PMIx_Connect")?;
        if self.is_singleton() {
            self.singleton_only_self(&procs)?;
            return self.inner.handle.post(move |_| cb(Ok(())));
        }
        let inner = self.inner.clone();
        let req = DynReq::Connect {
            procs,
            timeout_ms: ms(info),
            info: info.to_vec(),
            endpoint: self.endpoint_data(),
        };
        self.dyn_request(
            req,
            Box::new(move |status, data| {
                if status != sys::PMIX_SUCCESS {
                    cb(Err(Error::new(status, "connect failed")));
                    return;
                }
                if let ReplyData::Connected(c) = data {
                    let ConnectData { jobs, peers } = *c;
                    let mut d = inner.write();
                    for j in jobs {
                        if j.nspace != inner.me.nspace {
                            d.jobs.insert(j.nspace.clone(), j);
                        }
                    }
                    for p in peers {
                        let cache = d.peers.entry(p.proc_).or_default();
                        for i in p.info {
                            cache.insert(i.key, i.value);
                        }
                    }
                }
                cb(Ok(()));
            }),
        )
    }

    /// `PMIx_Connect` (blocking).
    ///
    /// # Errors
    /// As [`Client::connect_procs_nb`], plus `PMIX_ERR_WOULD_BLOCK` on the progress thread,
    /// `PMIX_ERR_TIMEOUT` after `PMIX_TIMEOUT`, and the operation's own failure
    /// (`PMIX_ERR_PROC_TERM_WO_SYNC` when a participant ended, `PMIX_ERR_EXISTS` when the
    /// caller is already in a connect over the identical list).
    pub fn connect_procs(&self, procs: Vec<ProcId>, info: &[Info]) -> Result<()> {
        reactor::wait("PMIx_Connect", super::collective_bound(info), |done| {
            self.connect_procs_nb(procs, info, Box::new(move |r| done.complete(r)))
        })
    }

    /// `PMIx_Disconnect_nb`: `cb` runs once, on the progress thread.
    ///
    /// # Errors
    /// As [`Client::connect_procs_nb`]; the server answers `PMIX_ERR_INVALID_OPERATION` for a
    /// list that was never connected.
    pub fn disconnect_procs_nb(
        &self,
        procs: Vec<ProcId>,
        info: &[Info],
        cb: Callback<()>,
    ) -> Result<()> {
        let procs = self.connect_args(procs, "PMIx_Disconnect")?;
        if self.is_singleton() {
            self.singleton_only_self(&procs)?;
            return self.inner.handle.post(move |_| cb(Ok(())));
        }
        let inner = self.inner.clone();
        let others: Vec<_> = procs
            .iter()
            .filter(|p| p.nspace != self.inner.me.nspace)
            .map(|p| p.nspace.clone())
            .collect();
        let req = DynReq::Disconnect {
            procs,
            timeout_ms: ms(info),
            info: info.to_vec(),
        };
        self.dyn_request(
            req,
            Box::new(move |status, _| {
                if status != sys::PMIX_SUCCESS {
                    cb(Err(Error::new(status, "disconnect failed")));
                    return;
                }
                let mut d = inner.write();
                for ns in &others {
                    d.jobs.remove(ns);
                }
                drop(d);
                cb(Ok(()));
            }),
        )
    }

    /// `PMIx_Disconnect` (blocking).
    ///
    /// # Errors
    /// As [`Client::disconnect_procs_nb`], plus `PMIX_ERR_WOULD_BLOCK` and `PMIX_ERR_TIMEOUT`.
    pub fn disconnect_procs(&self, procs: Vec<ProcId>, info: &[Info]) -> Result<()> {
        reactor::wait("PMIx_Disconnect", super::collective_bound(info), |done| {
            self.disconnect_procs_nb(procs, info, Box::new(move |r| done.complete(r)))
        })
    }

    /// Group ids in a participant list become the group's members (a wildcard rank: all
    /// of them; rank r: member r).
    pub(super) fn expand_groups(&self, procs: Vec<ProcId>) -> Vec<ProcId> {
        self.expand_group_procs(procs)
    }
}
