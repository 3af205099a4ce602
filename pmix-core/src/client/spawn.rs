//! `PMIx_Spawn` in the client: the server hands the request to its host, which starts
//! the new namespace; the reply names it and, when the server holds it, carries its job
//! data (kept, so Gets about the children need no round trip).

use super::{Callback, Client};
use crate::error::{Error, Result};
use crate::protocol::{DynReq, ReplyData};
use crate::reactor;
use crate::value::{App, Info, Nspace, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;

impl Client {
    /// `PMIx_Spawn_nb`: `cb` receives the new namespace, once, on the progress thread.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` (no apps, or an app with a negative process count),
    /// `PMIX_ERR_UNREACH` (no server; then `cb` is not called).
    pub fn spawn_nb(&self, job_info: &[Info], apps: Vec<App>, cb: Callback<Nspace>) -> Result<()> {
        if apps.is_empty() || apps.iter().any(|a| a.maxprocs < 0) {
            log::warn!("PMIx_Spawn: no apps, or a negative maxprocs");
            return Err(Error::bad_param("PMIx_Spawn needs apps"));
        }
        if job_info.iter().any(|i| {
            i.key.as_str() == ak::PMIX_PARENT_ID && !matches!(i.value, Value::Proc(Some(_)))
        }) {
            log::warn!("PMIx_Spawn: PMIX_PARENT_ID must hold a PMIX_PROC");
            return Err(Error::bad_param("PMIX_PARENT_ID is not a PMIX_PROC"));
        }
        if self.is_singleton() {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                "a singleton has no server to spawn through",
            ));
        }
        let inner = self.inner.clone();
        self.dyn_request(
            DynReq::Spawn {
                job_info: job_info.to_vec(),
                apps,
            },
            Box::new(move |status, data| {
                if status != sys::PMIX_SUCCESS {
                    cb(Err(Error::new(status, "spawn failed")));
                    return;
                }
                let ns = match data {
                    ReplyData::Job(j) => {
                        let ns = j.nspace.clone();
                        inner.write().jobs.insert(ns.clone(), *j);
                        Some(ns)
                    }
                    ReplyData::Data(v) => v
                        .iter()
                        .find(|i| i.key.as_str() == ak::PMIX_NSPACE)
                        .and_then(|i| i.value.as_str().and_then(|s| Nspace::new(s).ok())),
                    _ => None,
                };
                cb(ns.ok_or_else(|| Error::new(sys::PMIX_ERROR, "spawn reply names no namespace")));
            }),
        )
    }

    /// `PMIx_Spawn` (blocking): the new namespace.
    ///
    /// # Errors
    /// As [`Client::spawn_nb`], plus `PMIX_ERR_WOULD_BLOCK` on the progress thread and
    /// the host's failure (`PMIX_ERR_NOT_SUPPORTED`, `PMIX_ERR_JOB_FAILED_TO_LAUNCH`, …).
    pub fn spawn(&self, job_info: &[Info], apps: Vec<App>) -> Result<Nspace> {
        reactor::wait("PMIx_Spawn", None, |done| {
            self.spawn_nb(job_info, apps, Box::new(move |r| done.complete(r)))
        })
    }
}
