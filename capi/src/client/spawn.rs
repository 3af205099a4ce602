//! `PMIx_Spawn`, `PMIx_Spawn_nb`.

use super::ops::blocking;
use super::{status, CbData};
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::client::global;
use pmix_core::{App, Info};
use pmix_sys as sys;

/// Read the job info and the apps (NULL apps or `napps` 0 → `PMIX_ERR_BAD_PARAM`).
unsafe fn args(
    call: &str,
    job_info: *const sys::pmix_info_t,
    ninfo: usize,
    apps: *const sys::pmix_app_t,
    napps: usize,
) -> pmix_core::Result<(Vec<Info>, Vec<App>)> {
    if apps.is_null() || napps == 0 {
        log::warn!("{}: NULL apps or napps = 0", call);
        return Err(pmix_core::Error::bad_param("no apps to spawn"));
    }
    let i = crate::arg!(infos job_info, ninfo)?;
    // SAFETY: `napps` initialised apps (C contract).
    let a = unsafe { conv::app_array_from_c(apps, napps) }?;
    Ok((i, a))
}

/// Start `apps` as a new namespace (through the server's host) and copy its name into
/// `nspace` (a `pmix_nspace_t`, may be NULL). The new processes are connected to the
/// caller.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_NOT_SUPPORTED` (the host cannot
/// spawn), `PMIX_ERR_JOB_FAILED_TO_LAUNCH`, `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`,
/// `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `job_info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership);
/// - `apps` is NULL or points to `napps` initialised `pmix_app_t`s (read during the call;
///   the caller keeps ownership);
/// - `nspace` is NULL or a NUL-terminated string.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn(
    job_info: *const sys::pmix_info_t,
    ninfo: usize,
    apps: *const sys::pmix_app_t,
    napps: usize,
    nspace: *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Spawn, {
        blocking("PMIx_Spawn", |c| {
            // SAFETY: this export's `# Safety` contract promises of `job_info`, `apps` what
            // `args` requires.
            let (i, a) = unsafe { args("PMIx_Spawn", job_info, ninfo, apps, napps) }?;
            let ns = c.spawn(&i, a)?;
            if !nspace.is_null() {
                // SAFETY: a pmix_nspace_t buffer (C contract).
                let dst = unsafe { &mut *(nspace as *mut sys::pmix_nspace_t) };
                conv::load_nspace(dst, &ns);
            }
            Ok(sys::PMIX_SUCCESS)
        })
    })
}

/// Non-blocking spawn: `cbfunc(status, nspace, cbdata)` runs once on the progress thread
/// (only if this call returned `PMIX_SUCCESS`); `nspace` is valid during the callback.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or an error as for `PMIx_Spawn` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `job_info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership);
/// - `apps` is NULL or points to `napps` initialised `pmix_app_t`s (read during the call;
///   the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn_nb(
    job_info: *const sys::pmix_info_t,
    ninfo: usize,
    apps: *const sys::pmix_app_t,
    napps: usize,
    cbfunc: sys::pmix_spawn_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Spawn_nb, {
        let Some(cb) = cbfunc else {
            // SAFETY: this export's `# Safety` contract promises of `job_info`, `apps` what
            // `PMIx_Spawn` requires.
            return unsafe { PMIx_Spawn(job_info, ninfo, apps, napps, core::ptr::null_mut()) };
        };
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        // SAFETY: this export's `# Safety` contract promises of `job_info`, `apps` what
        // `args` requires.
        let (i, a) = match unsafe { args("PMIx_Spawn_nb", job_info, ninfo, apps, napps) } {
            Ok(x) => x,
            Err(e) => return e.status(),
        };
        let data = CbData::new(cbdata);
        let r = c.spawn_nb(
            &i,
            a,
            Box::new(move |r| {
                // SAFETY: an all-zero nspace is a valid empty string.
                let mut ns: sys::pmix_nspace_t = unsafe { core::mem::zeroed() };
                let st = match r {
                    Ok(n) => {
                        conv::load_nspace(&mut ns, &n);
                        sys::PMIX_SUCCESS
                    }
                    Err(e) => status("PMIx_Spawn_nb", Err(e)),
                };
                // SAFETY: the caller's callback with its own cbdata (C contract).
                unsafe { cb(st, ns.as_mut_ptr(), data.get()) }
            }),
        );
        status("PMIx_Spawn_nb", r)
    })
}
