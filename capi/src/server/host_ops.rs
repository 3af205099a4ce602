//! The module slots behind the client calls a server only relays: `get_credential`,
//! `validate_credential`, `allocate`, `monitor`, `session_control`, `fabric`, `resource_block`. Each lends the host
//! malloc'd copies of its arguments until the host's completion callback runs. A NULL
//! slot is `PMIX_ERR_NOT_SUPPORTED` (so are `session_control` and `resource_block` unless the host declared
//! the 32-slot module with `PMIX_SERVER_MODULE_V7`).

use super::host::CHost;
use super::upcall::{self, complete, start, unsupported, Lent, Release};
use crate::conv;
use core::ffi::c_void;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::sys::PeerCred;
use pmix_core::{Error, Info, ProcId, Result};
use pmix_sys as sys;

fn ok_status(st: sys::pmix_status_t) -> bool {
    matches!(
        st,
        sys::PMIX_SUCCESS | sys::PMIX_OPERATION_SUCCEEDED | sys::PMIX_ERR_PARTIAL_SUCCESS
    )
}

unsafe extern "C" fn cred_cb(
    status: sys::pmix_status_t,
    credential: *mut sys::pmix_byte_object_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(cred_cb, (), {
        // SAFETY: our box from `get_credential`; the host completes once.
        let Some(call) = (unsafe { upcall::take::<(Vec<u8>, Vec<Info>)>("credential", cbdata) })
        else {
            return;
        };
        let r = if !ok_status(status) {
            Err(Error::new(status, "the host could not issue a credential"))
        } else {
            let bytes = if credential.is_null() {
                Vec::new()
            } else {
                // SAFETY: the host's credential, valid during this call (the host keeps
                // ownership: we copy).
                unsafe { conv::bo_from_c(&*credential) }
            };
            // SAFETY: the host's `ninfo` infos, valid during this call (copied).
            unsafe { conv::info_array_from_c(info, ninfo) }.map(|i| (bytes, i))
        };
        complete(call, r, Release::none());
    })
}

unsafe extern "C" fn valid_cb(
    status: sys::pmix_status_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(valid_cb, (), {
        // SAFETY: our box from `validate_credential`; the host completes once.
        let Some(call) = (unsafe { upcall::take::<Vec<Info>>("validation", cbdata) }) else {
            return;
        };
        let r = if ok_status(status) {
            // SAFETY: the host's infos, valid during this call (the host keeps them).
            unsafe { conv::info_array_from_c(info, ninfo) }
        } else {
            Err(Error::new(status, "the host rejected the credential"))
        };
        complete(call, r, Release::none());
    })
}

impl CHost {
    /// `get_credential` slot (the kernel's view of the peer is not part of the C
    /// signature).
    pub fn get_credential_slot(
        &self,
        p: &ProcId,
        _peer: PeerCred,
        directives: &[Info],
        done: HostDone<(Vec<u8>, Vec<Info>)>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.get_credential else {
            return unsupported("get_credential");
        };
        let lent = Lent::new(Some(p)).info(directives)?;
        // SAFETY: the lent blocks stay valid until `cred_cb` or `settle` frees them.
        start("get_credential", done, lent, |l, cbdata| unsafe {
            f(&l.proc_, l.info, l.ninfo, Some(cred_cb), cbdata)
        })
    }

    /// `validate_credential` slot.
    pub fn validate_credential_slot(
        &self,
        p: &ProcId,
        cred: &[u8],
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.validate_credential else {
            return unsupported("validate_credential");
        };
        let lent = Lent::new(Some(p)).info(directives)?.bo(Some(cred))?;
        // SAFETY: as for `get_credential_slot`.
        start("validate_credential", done, lent, |l, cbdata| unsafe {
            f(&l.proc_, &l.bo, l.info, l.ninfo, Some(valid_cb), cbdata)
        })
    }

    /// `allocate` slot.
    pub fn allocate_slot(
        &self,
        p: &ProcId,
        directive: u8,
        info: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.allocate else {
            return unsupported("allocate");
        };
        let lent = Lent::new(Some(p)).info(info)?;
        // SAFETY: as for `get_credential_slot`.
        start("allocate", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                directive,
                l.info,
                l.ninfo,
                Some(upcall::info_cb),
                cbdata,
            )
        })
    }

    /// `monitor` slot.
    pub fn monitor_slot(
        &self,
        p: &ProcId,
        monitor: &Info,
        error: i32,
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.monitor else {
            return unsupported("monitor");
        };
        let lent = Lent::new(Some(p))
            .info(directives)?
            .info2(core::slice::from_ref(monitor))?;
        // SAFETY: as for `get_credential_slot`.
        start("monitor", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                l.info2,
                error,
                l.info,
                l.ninfo,
                Some(upcall::info_cb),
                cbdata,
            )
        })
    }

    /// `session_control` slot (32-slot modules only).
    pub fn session_control_slot(
        &self,
        p: &ProcId,
        session: u32,
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.session_control else {
            return unsupported("session_control");
        };
        let lent = Lent::new(Some(p)).info(directives)?;
        // SAFETY: as for `get_credential_slot`.
        start("session_control", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                session,
                l.info,
                l.ninfo,
                Some(upcall::info_cb),
                cbdata,
            )
        })
    }

    /// `fabric` slot.
    pub fn fabric_slot(
        &self,
        p: &ProcId,
        op: u8,
        info: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.fabric else {
            return unsupported("fabric");
        };
        let lent = Lent::new(Some(p)).info(info)?;
        // SAFETY: as for `get_credential_slot`.
        start("fabric", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                sys::pmix_fabric_operation_t::from(op),
                l.info,
                l.ninfo,
                Some(upcall::info_cb),
                cbdata,
            )
        })
    }

    /// `resource_block` slot (32-slot modules only).
    pub fn resource_block_slot(
        &self,
        p: &ProcId,
        directive: u8,
        block: Option<&str>,
        units: &[pmix_core::ResourceUnit],
        info: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.resource_block else {
            return unsupported("resource_block");
        };
        let lent = Lent::new(Some(p)).info(info)?.name(block)?.units(units)?;
        // SAFETY: as for `get_credential_slot`.
        start("resource_block", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                directive,
                l.name,
                l.units,
                l.nunits,
                l.info,
                l.ninfo,
                Some(upcall::op_cb),
                cbdata,
            )
        })
    }
}
