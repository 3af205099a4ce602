//! `PMIx_Job_control`, `PMIx_Job_control_nb` (minimal: cleanup registration only, see
//! `pmix_core::client::Client::job_control`).

use super::{status, CbData};
use crate::conv;
use core::ffi::c_void;
use pmix_core::client::global;
use pmix_sys as sys;

unsafe fn run(
    targets: *const sys::pmix_proc_t,
    ntargets: usize,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
) -> pmix_core::Result<pmix_core::client::Client> {
    let c = global::client()?;
    // SAFETY: NULL or `ntargets` procs / `ndirs` infos (C contract).
    let (t, d) = unsafe {
        (
            conv::proc_array_from_c(targets, ntargets)?,
            conv::info_array_from_c(directives, ndirs)?,
        )
    };
    c.job_control(&t, &d)?;
    Ok(c)
}

/// Blocking job control; `*results`/`*nresults` (may be NULL) are set to NULL/0.
///
/// # Returns
/// `PMIX_SUCCESS` for cleanup registrations, `PMIX_ERR_NOT_SUPPORTED` otherwise,
/// `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM`.
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
        // SAFETY: forwarded C contract.
        let r = unsafe { run(targets, ntargets, directives, ndirs) };
        if r.is_ok() {
            if !results.is_null() {
                // SAFETY: writable out-parameter (C contract).
                unsafe { *results = core::ptr::null_mut() };
            }
            if !nresults.is_null() {
                // SAFETY: as above.
                unsafe { *nresults = 0 };
            }
        }
        status("PMIx_Job_control", r.map(|_| ()))
    })
}

/// Non-blocking job control: on success `cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL,
/// NULL)` runs on the progress thread.
///
/// # Returns
/// As `PMIx_Job_control` (no callback on error).
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
        // SAFETY: forwarded C contract.
        let c = match unsafe { run(targets, ntargets, directives, ndirs) } {
            Ok(c) => c,
            Err(e) => return status("PMIx_Job_control_nb", Err(e)),
        };
        let Some(cb) = cbfunc else {
            return sys::PMIX_SUCCESS;
        };
        let data = CbData::new(cbdata);
        status(
            "PMIx_Job_control_nb",
            // SAFETY: the caller's callback with its own cbdata (C contract).
            c.run_on_progress(move || unsafe {
                cb(
                    sys::PMIX_SUCCESS,
                    core::ptr::null_mut(),
                    0,
                    data.get(),
                    None,
                    core::ptr::null_mut(),
                )
            }),
        )
    })
}
