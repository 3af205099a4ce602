//! `PMIx_Fence`, `PMIx_Fence_nb`.

use super::{status, CbData};
use crate::conv;
use core::ffi::c_void;
use pmix_core::client::{global, Client, Started};
use pmix_core::{Info, ProcId};
use pmix_sys as sys;

/// Read the common arguments: NULL `procs` with `nprocs > 0` is BAD_PARAM; NULL with 0
/// means our namespace.
unsafe fn args(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> pmix_core::Result<(Client, Vec<ProcId>, Vec<Info>)> {
    let c = global::client()?;
    if procs.is_null() && nprocs > 0 {
        log::warn!("PMIx_Fence: NULL procs with nprocs = {}", nprocs);
        return Err(pmix_core::Error::bad_param("NULL procs with nprocs > 0"));
    }
    // SAFETY: NULL or `nprocs` procs / `ninfo` infos (C contract).
    let procs = unsafe { conv::proc_array_from_c(procs, nprocs) }?;
    // SAFETY: as above.
    let info = unsafe { conv::info_array_from_c(info, ninfo) }?;
    Ok((c, procs, info))
}

/// Barrier (optionally collecting data, `PMIX_COLLECT_DATA`) across `procs` (NULL: our
/// namespace).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_NOT_A_MEMBER`,
/// `PMIX_ERR_TIMEOUT`, `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_PROC_TERM_WO_SYNC` (a
/// participant died), `PMIX_ERR_UNREACH`/`PMIX_ERR_LOST_CONNECTION`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Fence, {
        // SAFETY: forwarded C contract.
        match unsafe { args(procs, nprocs, info, ninfo) } {
            Ok((c, procs, info)) => status("PMIx_Fence", c.fence(procs, &info)),
            Err(e) => e.status(),
        }
    })
}

/// Non-blocking fence: `cbfunc(status, cbdata)` runs once on the progress thread. A NULL
/// `cbfunc` makes the call blocking (it returns the fence's result).
///
/// # Returns
/// `PMIX_SUCCESS` (callback will run), `PMIX_OPERATION_SUCCEEDED` (done at once, e.g. a
/// singleton; no callback), or an error as for `PMIx_Fence` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence_nb(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Fence_nb, {
        // SAFETY: forwarded C contract.
        let (c, procs, info) = match unsafe { args(procs, nprocs, info, ninfo) } {
            Ok(a) => a,
            Err(e) => return e.status(),
        };
        let Some(cb) = cbfunc else {
            return status("PMIx_Fence_nb", c.fence_as("PMIx_Fence_nb", procs, &info));
        };
        let data = CbData::new(cbdata);
        let r = c.fence_nb(
            procs,
            &info,
            Box::new(move |r| {
                let st = status("PMIx_Fence_nb", r);
                // SAFETY: the caller's callback with its own cbdata (C contract).
                unsafe { cb(st, data.get()) }
            }),
        );
        match r {
            Ok(Started::Pending) => sys::PMIX_SUCCESS,
            Ok(Started::Done) => sys::PMIX_OPERATION_SUCCEEDED,
            Err(e) => e.status(),
        }
    })
}
