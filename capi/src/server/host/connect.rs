//! The slots of the dynamic operations that join or start jobs: `connect`, `disconnect`,
//! `spawn`. The 4.x `connect` slot carries no data, so a connect that spans servers
//! through a C host completes with the local participants' data only; the remote ones'
//! endpoint data then comes through direct modex.

use super::lend::{complete, no_slot, op_cb, start, take, Lent, Release};
use super::Module;
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{App, Error, Info, Nspace, ProcId, Result};
use pmix_sys as sys;

unsafe extern "C" fn spawn_cb(
    status: sys::pmix_status_t,
    nspace: *mut c_char,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(spawn_cb, (), {
        // SAFETY: our box from `spawn`; the host completes once.
        let Some(call) = (unsafe { take::<Nspace>("spawn", cbdata) }) else {
            return;
        };
        let r = if status != sys::PMIX_SUCCESS {
            Err(Error::new(status, "the host could not spawn"))
        } else if nspace.is_null() {
            Err(Error::bad_param(
                "the host spawned without naming the namespace",
            ))
        } else {
            // SAFETY: a C string from the host (copied now).
            unsafe { conv::nspace_from_ptr(nspace) }
        };
        complete(call, r, Release::none());
    })
}

/// `connect` slot (no data in the 4.x module: `done` gets an empty blob).
pub(super) fn connect(
    m: &Module,
    procs: &[ProcId],
    info: &[Info],
    done: HostDone<Vec<u8>>,
) -> Result<HostReply> {
    let Some(f) = m.connect else {
        return no_slot("connect");
    };
    let lent = Lent::new(None).procs(procs)?.info(info)?;
    let done: HostDone<()> = Box::new(move |r| done(r.map(|_| Vec::new())));
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("connect", done, lent, |l, cbdata| unsafe {
        f(l.procs, l.nprocs, l.info, l.ninfo, Some(op_cb), cbdata)
    })
}

/// `disconnect` slot.
pub(super) fn disconnect(
    m: &Module,
    procs: &[ProcId],
    info: &[Info],
    done: HostDone<()>,
) -> Result<HostReply> {
    let Some(f) = m.disconnect else {
        return no_slot("disconnect");
    };
    let lent = Lent::new(None).procs(procs)?.info(info)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("disconnect", done, lent, |l, cbdata| unsafe {
        f(l.procs, l.nprocs, l.info, l.ninfo, Some(op_cb), cbdata)
    })
}

/// `spawn` slot.
pub(super) fn spawn(
    m: &Module,
    requester: &ProcId,
    job_info: &[Info],
    apps: &[App],
    done: HostDone<Nspace>,
) -> Result<HostReply> {
    let Some(f) = m.spawn else {
        return no_slot("spawn");
    };
    let lent = Lent::new(Some(requester)).info(job_info)?.apps(apps)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("spawn", done, lent, |l, cbdata| unsafe {
        f(
            &l.proc_,
            l.info,
            l.ninfo,
            l.apps,
            l.napps,
            Some(spawn_cb),
            cbdata,
        )
    })
}
