//! The slots behind the client calls a server only relays: `get_credential`,
//! `validate_credential`, `allocate`, `monitor`, `session_control`, `resource_block`
//! (`session_control` and `resource_block` exist only in a host's 32-slot module,
//! declared with `PMIX_SERVER_MODULE_V7`).

use super::lend::{complete, info_cb, no_slot, op_cb, start, take, Lent, Release};
use super::Module;
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
        let Some(call) = (unsafe { take::<(Vec<u8>, Vec<Info>)>("credential", cbdata) }) else {
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
        let Some(call) = (unsafe { take::<Vec<Info>>("validation", cbdata) }) else {
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

/// `get_credential` slot (the kernel's view of the peer is not part of the C
/// signature).
pub(super) fn get_credential(
    m: &Module,
    p: &ProcId,
    _peer: PeerCred,
    directives: &[Info],
    done: HostDone<(Vec<u8>, Vec<Info>)>,
) -> Result<HostReply> {
    let Some(f) = m.get_credential else {
        return no_slot("get_credential");
    };
    let lent = Lent::new(Some(p)).info(directives)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("get_credential", done, lent, |l, cbdata| unsafe {
        f(&l.proc_, l.info, l.ninfo, Some(cred_cb), cbdata)
    })
}

/// `validate_credential` slot.
pub(super) fn validate_credential(
    m: &Module,
    p: &ProcId,
    cred: &[u8],
    directives: &[Info],
    done: HostDone<Vec<Info>>,
) -> Result<HostReply> {
    let Some(f) = m.validate_credential else {
        return no_slot("validate_credential");
    };
    let lent = Lent::new(Some(p)).info(directives)?.bo(Some(cred))?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("validate_credential", done, lent, |l, cbdata| unsafe {
        f(&l.proc_, &l.bo, l.info, l.ninfo, Some(valid_cb), cbdata)
    })
}

/// `allocate` slot.
pub(super) fn allocate(
    m: &Module,
    p: &ProcId,
    directive: u8,
    info: &[Info],
    done: HostDone<Vec<Info>>,
) -> Result<HostReply> {
    let Some(f) = m.allocate else {
        return no_slot("allocate");
    };
    let lent = Lent::new(Some(p)).info(info)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("allocate", done, lent, |l, cbdata| unsafe {
        f(&l.proc_, directive, l.info, l.ninfo, Some(info_cb), cbdata)
    })
}

/// `monitor` slot.
pub(super) fn monitor(
    m: &Module,
    p: &ProcId,
    monitor: &Info,
    error: i32,
    directives: &[Info],
    done: HostDone<Vec<Info>>,
) -> Result<HostReply> {
    let Some(f) = m.monitor else {
        return no_slot("monitor");
    };
    let lent = Lent::new(Some(p))
        .info(directives)?
        .info2(core::slice::from_ref(monitor))?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("monitor", done, lent, |l, cbdata| unsafe {
        f(
            &l.proc_,
            l.info2,
            error,
            l.info,
            l.ninfo,
            Some(info_cb),
            cbdata,
        )
    })
}

/// `session_control` slot (32-slot modules only).
pub(super) fn session_control(
    m: &Module,
    p: &ProcId,
    session: u32,
    directives: &[Info],
    done: HostDone<Vec<Info>>,
) -> Result<HostReply> {
    let Some(f) = m.session_control else {
        return no_slot("session_control");
    };
    let lent = Lent::new(Some(p)).info(directives)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("session_control", done, lent, |l, cbdata| unsafe {
        f(&l.proc_, session, l.info, l.ninfo, Some(info_cb), cbdata)
    })
}

/// `resource_block` slot (32-slot modules only).
pub(super) fn resource_block(
    m: &Module,
    p: &ProcId,
    directive: u8,
    block: Option<&str>,
    units: &[pmix_core::ResourceUnit],
    info: &[Info],
    done: HostDone<()>,
) -> Result<HostReply> {
    let Some(f) = m.resource_block else {
        return no_slot("resource_block");
    };
    let lent = Lent::new(Some(p)).info(info)?.name(block)?.units(units)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("resource_block", done, lent, |l, cbdata| unsafe {
        f(
            &l.proc_,
            directive,
            l.name,
            l.units,
            l.nunits,
            l.info,
            l.ninfo,
            Some(op_cb),
            cbdata,
        )
    })
}
