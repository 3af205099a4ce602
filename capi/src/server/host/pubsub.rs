//! The publish/lookup slots: `publish`, `lookup`, `unpublish`.

use super::lend::{complete, no_slot, op_cb, start, take, Lent, Release};
use super::Module;
use crate::conv;
use core::ffi::c_void;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{Error, Info, Pdata, ProcId, Result};
use pmix_sys as sys;

unsafe extern "C" fn lookup_cb(
    status: sys::pmix_status_t,
    data: *mut sys::pmix_pdata_t,
    ndata: usize,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(lookup_cb, (), {
        // SAFETY: our box from `lookup`; the host completes once.
        let Some(call) = (unsafe { take::<Vec<Pdata>>("lookup", cbdata) }) else {
            return;
        };
        let r = if status != sys::PMIX_SUCCESS {
            Err(Error::new(status, "lookup failed at the host"))
        } else {
            // SAFETY: the host's array of `ndata` pdata, valid during this call (copied).
            unsafe { conv::pdata_array_from_c(data, ndata) }
        };
        complete(call, r, Release::none());
    })
}

/// `publish` slot.
pub(super) fn publish(
    m: &Module,
    p: &ProcId,
    info: &[Info],
    done: HostDone<()>,
) -> Result<HostReply> {
    let Some(f) = m.publish else {
        return no_slot("publish");
    };
    let lent = Lent::new(Some(p)).info(info)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("publish", done, lent, |l, cbdata| unsafe {
        f(&l.proc_, l.info, l.ninfo, Some(op_cb), cbdata)
    })
}

/// `lookup` slot.
pub(super) fn lookup(
    m: &Module,
    p: &ProcId,
    keys: &[String],
    info: &[Info],
    done: HostDone<Vec<Pdata>>,
) -> Result<HostReply> {
    let Some(f) = m.lookup else {
        return no_slot("lookup");
    };
    let lent = Lent::new(Some(p)).keys(keys)?.info(info)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("lookup", done, lent, |l, cbdata| unsafe {
        f(&l.proc_, l.keys, l.info, l.ninfo, Some(lookup_cb), cbdata)
    })
}

/// `unpublish` slot.
pub(super) fn unpublish(
    m: &Module,
    p: &ProcId,
    keys: &[String],
    info: &[Info],
    done: HostDone<()>,
) -> Result<HostReply> {
    let Some(f) = m.unpublish else {
        return no_slot("unpublish");
    };
    let lent = Lent::new(Some(p)).keys(keys)?.info(info)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("unpublish", done, lent, |l, cbdata| unsafe {
        f(&l.proc_, l.keys, l.info, l.ninfo, Some(op_cb), cbdata)
    })
}
