//! `PMIx_Job_control`, `PMIx_Job_control_nb` (see
//! `pmix_core::client::Client::job_control_nb`: cleanup registrations are accepted
//! locally, everything else goes to the host).

use super::ops::{blocking, info_callback, nonblocking};
use super::query::store_results;
use crate::conv;
use core::ffi::c_void;
use pmix_core::{Info, ProcId};
use pmix_sys as sys;

unsafe fn args(
    targets: *const sys::pmix_proc_t,
    ntargets: usize,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
) -> pmix_core::Result<(Vec<ProcId>, Vec<Info>)> {
    // SAFETY: NULL or `ntargets` procs / `ndirs` infos (C contract).
    unsafe {
        Ok((
            conv::proc_array_from_c(targets, ntargets)?,
            conv::info_array_from_c(directives, ndirs)?,
        ))
    }
}

/// Control processes (`PMIX_JOB_CTRL_KILL`, `..._TERMINATE`, `..._SIGNAL`, cleanup
/// registration, …) of `targets` (NULL: the caller's namespace). The host's results go to
/// `*results`/`*nresults` (may be NULL; release with `PMIX_INFO_FREE`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (the host cannot), `PMIX_ERR_BAD_PARAM`,
/// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control(
    targets: *const sys::pmix_proc_t,
    ntargets: usize,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    results: *mut *mut sys::pmix_info_t,
    nresults: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Job_control, {
        blocking("PMIx_Job_control", |c| {
            // SAFETY: forwarded C contract.
            let (t, d) = unsafe { args(targets, ntargets, directives, ndirs) }?;
            let res = c.job_control_wait(&t, &d)?;
            // SAFETY: forwarded out-parameters.
            Ok(unsafe { store_results(&res, results, nresults) })
        })
    })
}

/// Non-blocking job control: `cbfunc(status, results, n, cbdata, release_fn,
/// release_cbdata)` runs once on the progress thread.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or as `PMIx_Job_control` (no callback).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control_nb(
    targets: *const sys::pmix_proc_t,
    ntargets: usize,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    cbfunc: sys::pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Job_control_nb, {
        nonblocking("PMIx_Job_control_nb", |c| {
            // SAFETY: forwarded C contract.
            let (t, d) = unsafe { args(targets, ntargets, directives, ndirs) }?;
            c.job_control_nb(&t, &d, info_callback(cbfunc, cbdata))
        })
    })
}
