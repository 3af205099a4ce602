//! `PMIx_IOF_pull`, `PMIx_IOF_deregister` and `PMIx_IOF_push` in a client (see
//! [`crate::iof`]). A pull is registered here under an id of ours before the request
//! leaves, so a chunk can never arrive for an id we do not know; the server marks every
//! chunk with that id and the handler runs on the progress thread.
//!
//! A registration without a handler receives nothing: as in OpenPMIx, a client does not
//! write forwarded output to its own stdout (the runtime would collect it and forward it
//! again).

use super::{lock, timeout_of, Callback, Client, Inner};
use crate::error::{Error, Result};
use crate::iof::{Channels, IofChunk, IofHandler};
use crate::protocol::{IofReq, Req};
use crate::reactor;
use crate::value::{Info, ProcId};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::collections::BTreeMap;

/// The client's registrations: id → handler (None: the caller passed no handler).
#[derive(Default)]
pub(super) struct IofRegs {
    handlers: BTreeMap<u64, Option<IofHandler>>,
}

impl IofRegs {
    /// The lowest id not in use (ids are reused, as OpenPMIx's are).
    fn insert(&mut self, h: Option<IofHandler>) -> u64 {
        let mut id = 0;
        for k in self.handlers.keys() {
            if *k != id {
                break;
            }
            id += 1;
        }
        self.handlers.insert(id, h);
        id
    }
}

impl Inner {
    /// A chunk of forwarded output from the server (progress thread).
    pub(super) fn iof_chunk(&self, id: u64, chunk: &IofChunk) {
        if reactor::stopped() {
            log::debug!(
                "client: output for registration {} dropped: progress engine stopped",
                id
            );
            return;
        }
        let h = lock(&self.iof).handlers.get(&id).cloned();
        match h {
            Some(Some(h)) => h(id, chunk),
            Some(None) => log::debug!(
                "client: {} bytes of output from {} for registration {}, which has no handler",
                chunk.data.len(),
                chunk.source,
                id
            ),
            None => log::debug!("client: output for unknown IOF registration {}", id),
        }
    }
}

fn status_result(st: i32, what: &str) -> Result<()> {
    if st == sys::PMIX_SUCCESS {
        Ok(())
    } else {
        Err(Error::new(st, format!("{} failed", what)))
    }
}

impl Client {
    fn iof_server(&self, call: &str) -> Result<()> {
        if self.is_singleton() {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                format!("{}: a singleton has no server", call),
            ));
        }
        Ok(())
    }

    /// `PMIx_IOF_pull`: `handler` receives what `procs` write on `channels`; `cb` receives
    /// the registration's id once the server (and its host) accepted it.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` for the stdin channel, `PMIX_ERR_BAD_PARAM` for no procs,
    /// `PMIX_ERR_UNREACH` without a server.
    pub fn iof_pull(
        &self,
        procs: Vec<ProcId>,
        channels: Channels,
        directives: Vec<Info>,
        handler: Option<IofHandler>,
        cb: Callback<u64>,
    ) -> Result<()> {
        if channels & sys::PMIX_FWD_STDIN_CHANNEL != 0 {
            log::warn!("PMIx_IOF_pull: stdin cannot be pulled");
            return Err(Error::not_supported("stdin cannot be pulled"));
        }
        if procs.is_empty() {
            log::warn!("PMIx_IOF_pull: no processes given");
            return Err(Error::bad_param("PMIx_IOF_pull needs processes"));
        }
        self.iof_server("PMIx_IOF_pull")?;
        let id = lock(&self.inner.iof).insert(handler);
        let inner = self.inner.clone();
        let r = self.request(
            Req::Iof(IofReq::Pull {
                id,
                procs,
                channels,
                directives,
            }),
            Box::new(move |st, _| {
                if st == sys::PMIX_SUCCESS {
                    cb(Ok(id));
                } else {
                    lock(&inner.iof).handlers.remove(&id);
                    cb(Err(Error::new(st, "IOF pull refused")));
                }
            }),
        );
        if r.is_err() {
            lock(&self.inner.iof).handlers.remove(&id);
        }
        r
    }

    /// `PMIx_IOF_pull` without a registration callback (blocking): the id.
    ///
    /// # Errors
    /// As [`Client::iof_pull`], plus the host's refusal (`PMIX_ERR_NOT_SUPPORTED`),
    /// `PMIX_ERR_WOULD_BLOCK` on the progress thread.
    pub fn iof_pull_wait(
        &self,
        procs: Vec<ProcId>,
        channels: Channels,
        directives: Vec<Info>,
        handler: Option<IofHandler>,
    ) -> Result<u64> {
        let t = timeout_of(&directives);
        reactor::wait("PMIx_IOF_pull", t, |done| {
            self.iof_pull(
                procs,
                channels,
                directives,
                handler,
                Box::new(move |r| done.complete(r)),
            )
        })
    }

    /// `PMIx_IOF_deregister`: no chunk for `id` is handed out once this returns; `cb`
    /// receives the server's answer.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an id that is not registered, `PMIX_ERR_UNREACH`.
    pub fn iof_deregister(&self, id: u64, directives: Vec<Info>, cb: Callback<()>) -> Result<()> {
        self.iof_server("PMIx_IOF_deregister")?;
        if lock(&self.inner.iof).handlers.remove(&id).is_none() {
            log::warn!("PMIx_IOF_deregister: no registration {}", id);
            return Err(Error::bad_param(format!("no IOF registration {}", id)));
        }
        self.request(
            Req::Iof(IofReq::Deregister { id, directives }),
            Box::new(move |st, _| cb(status_result(st, "IOF deregistration"))),
        )
    }

    /// `PMIx_IOF_deregister` (blocking).
    ///
    /// # Errors
    /// As [`Client::iof_deregister`], plus `PMIX_ERR_WOULD_BLOCK`.
    pub fn iof_deregister_wait(&self, id: u64, directives: Vec<Info>) -> Result<()> {
        reactor::wait("PMIx_IOF_deregister", None, |done| {
            self.iof_deregister(id, directives, Box::new(move |r| done.complete(r)))
        })
    }

    /// `PMIx_IOF_push`: `data` for the stdin of `targets`, through the server to its
    /// host's `push_stdin`; `cb` receives the host's answer. Without data only the
    /// directives matter, and nothing is sent: `PMIX_IOF_PUSH_STDIN` (forward our own
    /// stdin) is not implemented; anything else completes at once.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` for `PMIX_IOF_PUSH_STDIN`, `PMIX_ERR_UNREACH`.
    pub fn iof_push(
        &self,
        targets: Vec<ProcId>,
        data: Option<Vec<u8>>,
        directives: Vec<Info>,
        cb: Callback<()>,
    ) -> Result<()> {
        if data.is_none() {
            if crate::iof::flag(&directives, ak::PMIX_IOF_PUSH_STDIN) == Some(true) {
                log::warn!("PMIx_IOF_push: forwarding our own stdin is not supported");
                return Err(Error::not_supported("PMIX_IOF_PUSH_STDIN"));
            }
            return self.run_on_progress(move || cb(Ok(())));
        }
        self.iof_server("PMIx_IOF_push")?;
        self.request(
            Req::Iof(IofReq::Push {
                targets,
                directives,
                data,
            }),
            Box::new(move |st, _| cb(status_result(st, "IOF push"))),
        )
    }

    /// `PMIx_IOF_push` (blocking).
    ///
    /// # Errors
    /// As [`Client::iof_push`], plus the host's (`PMIX_ERR_NOT_SUPPORTED` without
    /// `push_stdin`) and `PMIX_ERR_WOULD_BLOCK`.
    pub fn iof_push_wait(
        &self,
        targets: Vec<ProcId>,
        data: Option<Vec<u8>>,
        directives: Vec<Info>,
    ) -> Result<()> {
        let t = timeout_of(&directives);
        reactor::wait("PMIx_IOF_push", t, |done| {
            self.iof_push(
                targets,
                data,
                directives,
                Box::new(move |r| done.complete(r)),
            )
        })
    }
}
