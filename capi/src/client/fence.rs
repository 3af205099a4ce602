//! `PMIx_Fence`, `PMIx_Fence_nb`.

use super::{status, CbData};
use crate::try_arg;
use core::ffi::c_void;
use pmix_core::client::{global, Started};
use pmix_sys as sys;

/// Read the common arguments: NULL `procs` with `nprocs > 0` is BAD_PARAM; NULL with 0
/// means our namespace.
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
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        let procs = try_arg!(procs procs, nprocs);
        let info = try_arg!(infos info, ninfo);
        status("PMIx_Fence", c.fence(procs, &info))
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
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        let procs = try_arg!(procs procs, nprocs);
        let info = try_arg!(infos info, ninfo);
        let Some(cb) = cbfunc else {
            return status("PMIx_Fence_nb", c.fence_as("PMIx_Fence_nb", procs, &info));
        };
        let data = CbData::new(cbdata);
        let r = c.fence_nb(
            procs,
            &info,
            Box::new(move |r| {
                let st = status("PMIx_Fence_nb", r);
                // SAFETY: `cb` is callable from the progress thread with its own
                // `cbdata` (this export's contract); called exactly once, here.
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
