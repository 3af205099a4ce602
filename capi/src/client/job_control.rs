//! `PMIx_Job_control`, `PMIx_Job_control_nb` (see
//! `pmix_core::client::Client::job_control_nb`: cleanup registrations are accepted
//! locally, everything else goes to the host).

use super::ops::{blocking, info_callback, nonblocking};
use super::query::store_results;
use core::ffi::c_void;
use pmix_sys as sys;

/// `args!(targets, ntargets, directives, ndirs)`: the targets and directives, in exports
/// whose contract makes them NULL or `ntargets`/`ndirs` readable elements.
macro_rules! args {
    ($targets:expr, $ntargets:expr, $dirs:expr, $ndirs:expr) => {
        crate::arg!(procs $targets, $ntargets)
            .and_then(|t| Ok((t, crate::arg!(infos $dirs, $ndirs)?)))
    };
}

/// Control processes (`PMIX_JOB_CTRL_KILL`, `..._TERMINATE`, `..._SIGNAL`, cleanup
/// registration, …) of `targets` (NULL: the caller's namespace). The host's results go to
/// `*results`/`*nresults` (may be NULL; release with `PMIX_INFO_FREE`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (the host cannot), `PMIX_ERR_BAD_PARAM`,
/// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `targets` is NULL or points to `ntargets` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `directives` is NULL or points to `ndirs` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership);
/// - `results` is NULL or a writable `pmix_info_t *` slot (what the library stores there is
///   described above);
/// - `nresults` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
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
            let (t, d) = args!(targets, ntargets, directives, ndirs)?;
            let res = c.job_control_wait(&t, &d)?;
            Ok(store_results!(&res, results, nresults))
        })
    })
}

/// Non-blocking job control: `cbfunc(status, results, n, cbdata, release_fn,
/// release_cbdata)` runs once on the progress thread.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or as `PMIx_Job_control` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `targets` is NULL or points to `ntargets` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `directives` is NULL or points to `ndirs` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
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
            let (t, d) = args!(targets, ntargets, directives, ndirs)?;
            c.job_control_nb(&t, &d, info_callback(cbfunc, cbdata))
        })
    })
}
