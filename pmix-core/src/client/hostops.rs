//! The client side of the requests the server hands to its host's module slots:
//! credentials, allocation requests, process monitoring and heartbeats, session control,
//! fabric registration and update, resource blocks (`protocol::hostops`). Each `_nb` form runs its callback once on the progress thread;
//! the blocking forms wait with `reactor::wait` (`PMIX_ERR_WOULD_BLOCK` on the progress
//! thread).
//!
//! Without a server (a singleton, or the embedded client of a server process) these
//! calls have nobody to ask: credentials are `PMIX_ERR_NOT_SUPPORTED`, the rest
//! `PMIX_ERR_UNREACH`.

use super::{Callback, Client};
use crate::error::{Error, Result};
use crate::protocol::hostops::{HostOpReq, CRED_REPLY_KEY};
use crate::protocol::{DynReq, ReplyData};
use crate::reactor;
use crate::value::{Info, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;

/// A credential and the infos that describe it.
pub type Credential = (Vec<u8>, Vec<Info>);

impl Client {
    /// Send a host-slot request; `cb` gets the reply's infos or its failure.
    fn hostop(&self, what: &'static str, req: HostOpReq, cb: Callback<Vec<Info>>) -> Result<()> {
        self.dyn_request(
            DynReq::HostOp(req),
            Box::new(move |st, data| {
                if st != sys::PMIX_SUCCESS {
                    cb(Err(Error::new(st, format!("{} failed", what))));
                    return;
                }
                cb(Ok(match data {
                    ReplyData::Data(v) => v,
                    _ => Vec::new(),
                }))
            }),
        )
    }

    /// Refuse the credential calls without a server to ask.
    fn cred_server(&self, what: &str) -> Result<()> {
        if self
            .inner
            .connected
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return Ok(());
        }
        log::info!(
            "{}: no PMIx server to ask, and no local credential mechanism",
            what
        );
        Err(Error::not_supported(format!(
            "{}: not connected to a PMIx server",
            what
        )))
    }

    /// `PMIx_Get_credential_nb`: the host's credential for this process.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` (no server), `PMIX_ERR_UNREACH`.
    pub fn get_credential_nb(&self, directives: &[Info], cb: Callback<Credential>) -> Result<()> {
        self.cred_server("PMIx_Get_credential")?;
        self.hostop(
            "PMIx_Get_credential",
            HostOpReq::GetCredential {
                directives: directives.to_vec(),
            },
            Box::new(move |r| {
                cb(r.and_then(|mut v| {
                    let pos = v.iter().position(|i| i.key.as_str() == CRED_REPLY_KEY);
                    match pos.map(|p| v.remove(p).value) {
                        Some(Value::ByteObject(b)) => Ok((b, v)),
                        _ => Err(Error::new(
                            sys::PMIX_ERR_UNPACK_FAILURE,
                            "the server's credential reply carries no credential",
                        )),
                    }
                }))
            }),
        )
    }

    /// `PMIx_Get_credential` (blocking).
    ///
    /// # Errors
    /// As [`Client::get_credential_nb`], plus `PMIX_ERR_WOULD_BLOCK` and the host's
    /// failure (`PMIX_ERR_NOT_SUPPORTED` when it has no credential service).
    pub fn get_credential(&self, directives: &[Info]) -> Result<Credential> {
        reactor::wait("PMIx_Get_credential", None, |done| {
            self.get_credential_nb(directives, Box::new(move |r| done.complete(r)))
        })
    }

    /// `PMIx_Validate_credential_nb`: the host checks `cred`; `cb` receives what it
    /// learned from it.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` (no server), `PMIX_ERR_UNREACH`.
    pub fn validate_credential_nb(
        &self,
        cred: &[u8],
        directives: &[Info],
        cb: Callback<Vec<Info>>,
    ) -> Result<()> {
        self.cred_server("PMIx_Validate_credential")?;
        self.hostop(
            "PMIx_Validate_credential",
            HostOpReq::ValidateCredential {
                cred: cred.to_vec(),
                directives: directives.to_vec(),
            },
            cb,
        )
    }

    /// `PMIx_Validate_credential` (blocking).
    ///
    /// # Errors
    /// As [`Client::validate_credential_nb`], plus `PMIX_ERR_WOULD_BLOCK` and the host's
    /// verdict (`PMIX_ERR_INVALID_CRED`, `PMIX_ERR_NOT_SUPPORTED`).
    pub fn validate_credential(&self, cred: &[u8], directives: &[Info]) -> Result<Vec<Info>> {
        reactor::wait("PMIx_Validate_credential", None, |done| {
            self.validate_credential_nb(cred, directives, Box::new(move |r| done.complete(r)))
        })
    }

    /// `PMIx_Allocation_request_nb` (`directive`: a `pmix_alloc_directive_t`).
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH`.
    pub fn allocate_nb(&self, directive: u8, info: &[Info], cb: Callback<Vec<Info>>) -> Result<()> {
        self.hostop(
            "PMIx_Allocation_request",
            HostOpReq::Allocate {
                directive,
                info: info.to_vec(),
            },
            cb,
        )
    }

    /// `PMIx_Allocation_request` (blocking).
    ///
    /// # Errors
    /// As [`Client::allocate_nb`], plus `PMIX_ERR_WOULD_BLOCK` and the host's failure.
    pub fn allocate(&self, directive: u8, info: &[Info]) -> Result<Vec<Info>> {
        reactor::wait("PMIx_Allocation_request", None, |done| {
            self.allocate_nb(directive, info, Box::new(move |r| done.complete(r)))
        })
    }

    /// `PMIx_Process_monitor_nb`. A `PMIX_SEND_HEARTBEAT` monitor sends a heartbeat and
    /// completes at once with no results; anything else goes to the host.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH`.
    pub fn monitor_nb(
        &self,
        monitor: &Info,
        error: i32,
        directives: &[Info],
        cb: Callback<Vec<Info>>,
    ) -> Result<()> {
        if !self
            .inner
            .connected
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                "PMIx_Process_monitor: not connected to a PMIx server",
            ));
        }
        if monitor.key.as_str() == ak::PMIX_SEND_HEARTBEAT {
            self.heartbeat();
            return self.inner.handle.post(move |_| cb(Ok(Vec::new())));
        }
        self.hostop(
            "PMIx_Process_monitor",
            HostOpReq::Monitor {
                monitor: monitor.clone(),
                error,
                directives: directives.to_vec(),
            },
            cb,
        )
    }

    /// `PMIx_Process_monitor` (blocking).
    ///
    /// # Errors
    /// As [`Client::monitor_nb`], plus `PMIX_ERR_WOULD_BLOCK` and the host's failure.
    pub fn monitor(&self, monitor: &Info, error: i32, directives: &[Info]) -> Result<Vec<Info>> {
        reactor::wait("PMIx_Process_monitor", None, |done| {
            self.monitor_nb(
                monitor,
                error,
                directives,
                Box::new(move |r| done.complete(r)),
            )
        })
    }

    /// `PMIx_Heartbeat`: one message to the server, no reply; nothing without a server.
    pub fn heartbeat(&self) {
        if !self
            .inner
            .connected
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        if let Err(e) = self.send_only(crate::protocol::Req::Dyn(DynReq::HostOp(
            HostOpReq::Heartbeat,
        ))) {
            log::debug!("PMIx_Heartbeat: {}", e);
        }
    }

    /// `PMIx_Session_control` with a callback: the host's results for `session`.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH`.
    pub fn session_control_nb(
        &self,
        session: u32,
        directives: &[Info],
        cb: Callback<Vec<Info>>,
    ) -> Result<()> {
        self.hostop(
            "PMIx_Session_control",
            HostOpReq::SessionControl {
                session,
                directives: directives.to_vec(),
            },
            cb,
        )
    }

    /// `PMIx_Session_control` without a callback (blocking).
    ///
    /// # Errors
    /// As [`Client::session_control_nb`], plus `PMIX_ERR_WOULD_BLOCK` and the host's
    /// failure.
    pub fn session_control(&self, session: u32, directives: &[Info]) -> Result<Vec<Info>> {
        reactor::wait("PMIx_Session_control", None, |done| {
            self.session_control_nb(session, directives, Box::new(move |r| done.complete(r)))
        })
    }

    /// `PMIx_Fabric_register_nb` / `PMIx_Fabric_update_nb`: the host's description of
    /// the fabric (`op`: `PMIX_FABRIC_REQUEST_INFO` or `PMIX_FABRIC_UPDATE_INFO`).
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH`.
    pub fn fabric_nb(&self, op: u8, info: &[Info], cb: Callback<Vec<Info>>) -> Result<()> {
        self.hostop(
            "PMIx_Fabric",
            HostOpReq::Fabric {
                op,
                info: info.to_vec(),
            },
            cb,
        )
    }

    /// `PMIx_Resource_block_nb`: ask the host to define, extend, shrink or delete a
    /// resource block.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH`.
    pub fn resource_block_nb(
        &self,
        directive: u8,
        block: Option<String>,
        units: Vec<crate::value::ResourceUnit>,
        info: &[Info],
        cb: Callback<()>,
    ) -> Result<()> {
        self.hostop(
            "PMIx_Resource_block",
            HostOpReq::ResourceBlock {
                directive,
                block,
                units,
                info: info.to_vec(),
            },
            Box::new(move |r| cb(r.map(|_| ()))),
        )
    }
}
