//! The module slots behind the client calls a server only relays: `get_credential`,
//! `validate_credential`, `allocate`, `monitor`, `session_control`, `fabric`, `resource_block`. Each lends the host
//! malloc'd copies of its arguments until the host's completion callback runs. A NULL
//! slot is `PMIX_ERR_NOT_SUPPORTED` (so are `session_control` and `resource_block` unless the host declared
//! the 32-slot module with `PMIX_SERVER_MODULE_V7`).

use super::host::CHost;
use super::upcall::{self, settle};
use crate::conv;
use core::ffi::c_void;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::sys::PeerCred;
use pmix_core::{Error, Info, ProcId, Result};
use pmix_sys as sys;

fn unsupported(what: &str) -> Result<HostReply> {
    Err(Error::not_supported(format!("host has no {}", what)))
}

/// What one of these upcalls lends the host (each pointer NULL or ours).
struct Lent {
    proc_: sys::pmix_proc_t,
    /// The directives (or the allocation's description).
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    /// The monitor, as an array of one.
    monitor: *mut sys::pmix_info_t,
    nmonitor: usize,
    /// The credential to validate.
    bo: sys::pmix_byte_object_t,
    /// A resource block's name and units.
    block: *mut core::ffi::c_char,
    units: *mut sys::pmix_resource_unit_t,
    nunits: usize,
}

impl Lent {
    fn new(p: &ProcId, info: &[Info]) -> Result<Lent> {
        // SAFETY: an all-zero pmix_proc_t is a valid (empty) proc.
        let mut proc_: sys::pmix_proc_t = unsafe { core::mem::zeroed() };
        conv::proc_to_c(p, &mut proc_);
        let mut l = Lent {
            proc_,
            info: core::ptr::null_mut(),
            ninfo: 0,
            monitor: core::ptr::null_mut(),
            nmonitor: 0,
            bo: sys::pmix_byte_object_t {
                bytes: core::ptr::null_mut(),
                size: 0,
            },
            block: core::ptr::null_mut(),
            units: core::ptr::null_mut(),
            nunits: 0,
        };
        (l.info, l.ninfo) = conv::info_array_to_c(info)?;
        Ok(l)
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        // SAFETY: each pointer is NULL or a block we made; the host is done with them
        // (dropped only after the completion callback or a synchronous answer).
        unsafe {
            conv::info_array_free(self.info, self.ninfo);
            conv::info_array_free(self.monitor, self.nmonitor);
            conv::bo_destruct(&mut self.bo);
            conv::alloc::free(self.block);
            conv::alloc::free(self.units);
        }
    }
}

/// An upcall in flight (see [`upcall::Call`]).
type Call<T> = upcall::Call<T, Lent>;

unsafe extern "C" fn op_cb(status: sys::pmix_status_t, cbdata: *mut c_void) {
    crate::ffi_value!(op_cb, (), {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box from an op-style upcall; the host completes once.
        let call = unsafe { Box::from_raw(cbdata as *mut Call<()>) };
        let r = if ok_status(status) {
            Ok(())
        } else {
            Err(Error::new(status, "the host reported a failure"))
        };
        let Call { done, lent } = *call;
        drop(lent);
        done(r);
    })
}

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
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box from `get_credential`; the host completes once.
        let call = unsafe { Box::from_raw(cbdata as *mut Call<(Vec<u8>, Vec<Info>)>) };
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
        let Call { done, lent } = *call;
        drop(lent);
        done(r);
    })
}

unsafe extern "C" fn valid_cb(
    status: sys::pmix_status_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(valid_cb, (), {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box from `validate_credential`; the host completes once.
        let call = unsafe { Box::from_raw(cbdata as *mut Call<Vec<Info>>) };
        let r = if ok_status(status) {
            // SAFETY: the host's infos, valid during this call (the host keeps them).
            unsafe { conv::info_array_from_c(info, ninfo) }
        } else {
            Err(Error::new(status, "the host rejected the credential"))
        };
        let Call { done, lent } = *call;
        drop(lent);
        done(r);
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
        let lent = Lent::new(p, directives)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: the lent blocks stay valid until `cred_cb` or `settle` frees them.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                l.info,
                l.ninfo,
                Some(cred_cb),
                call as *mut c_void,
            )
        };
        settle("get_credential", rc, call)
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
        let mut lent = Lent::new(p, directives)?;
        conv::bo_to_c(cred, &mut lent.bo)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `get_credential_slot`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                &l.bo,
                l.info,
                l.ninfo,
                Some(valid_cb),
                call as *mut c_void,
            )
        };
        settle("validate_credential", rc, call)
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
        let lent = Lent::new(p, info)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `get_credential_slot`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                directive,
                l.info,
                l.ninfo,
                Some(upcall::info_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("allocate", rc, call)
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
        let mut lent = Lent::new(p, directives)?;
        (lent.monitor, lent.nmonitor) = conv::info_array_to_c(core::slice::from_ref(monitor))?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `get_credential_slot`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                l.monitor,
                error,
                l.info,
                l.ninfo,
                Some(upcall::info_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("monitor", rc, call)
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
        let lent = Lent::new(p, directives)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `get_credential_slot`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                session,
                l.info,
                l.ninfo,
                Some(upcall::info_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("session_control", rc, call)
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
        let lent = Lent::new(p, info)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `get_credential_slot`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                sys::pmix_fabric_operation_t::from(op),
                l.info,
                l.ninfo,
                Some(upcall::info_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("fabric", rc, call)
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
        let mut lent = Lent::new(p, info)?;
        if let Some(b) = block {
            lent.block = conv::alloc::strdup(b)?;
        }
        if !units.is_empty() {
            lent.units = conv::alloc::calloc_array::<sys::pmix_resource_unit_t>(units.len())?;
            lent.nunits = units.len();
            for (i, u) in units.iter().enumerate() {
                // SAFETY: `i` is within the fresh array.
                unsafe {
                    *lent.units.add(i) = sys::pmix_resource_unit_t {
                        type_: u.dtype,
                        count: u.count as usize,
                    }
                };
            }
        }
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `get_credential_slot`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                directive,
                l.block,
                l.units,
                l.nunits,
                l.info,
                l.ninfo,
                Some(op_cb),
                call as *mut c_void,
            )
        };
        settle("resource_block", rc, call)
    }
}
