//! `PMIx_Fabric_register`, `PMIx_Fabric_update`, `PMIx_Fabric_deregister` (and `_nb`):
//! the server asks its host's `fabric` slot (`PMIX_FABRIC_REQUEST_INFO`, or
//! `PMIX_FABRIC_UPDATE_INFO` with `PMIX_FABRIC_INDEX`) and the host's description becomes
//! the caller's `fabric->info`. A host without the slot makes register and update fail
//! with `PMIX_ERR_NOT_SUPPORTED` (this library has no fabric plugins of its own).
//! Deregistration only releases what the fabric object holds.

use super::ops::would_block;
use super::{status, CbData};
use crate::conv;
use core::ffi::c_void;
use pmix_core::client::{global, Client};
use pmix_core::{Info, Result, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;

/// Replace what `fabric` describes with `res` (the old array is freed).
///
/// # Safety
/// `fabric` points to a live `pmix_fabric_t` whose `info` is NULL or malloc'd.
unsafe fn store(fabric: *mut sys::pmix_fabric_t, res: &[Info]) -> sys::pmix_status_t {
    let (p, n) = match conv::info_array_to_c(res) {
        Ok(x) => x,
        Err(e) => return e.status(),
    };
    // SAFETY: promised by the caller.
    unsafe {
        let f = &mut *fabric;
        conv::info_array_free(f.info, f.ninfo);
        f.info = p;
        f.ninfo = n;
    }
    sys::PMIX_SUCCESS
}

/// What to ask the host for `fabric`: (operation, directives).
///
/// # Safety
/// `fabric` is non-NULL and readable; `directives` NULL or `ndirs` infos.
unsafe fn request(
    update: bool,
    fabric: *const sys::pmix_fabric_t,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
) -> Result<(u8, Vec<Info>)> {
    if update {
        // SAFETY: non-NULL (caller).
        let index = unsafe { (*fabric).index };
        let i = Info::new(ak::PMIX_FABRIC_INDEX, Value::Size(index as u64))?;
        Ok((sys::PMIX_FABRIC_UPDATE_INFO as u8, vec![i]))
    } else {
        let d = crate::arg!(infos directives, ndirs)?;
        Ok((sys::PMIX_FABRIC_REQUEST_INFO as u8, d))
    }
}

fn client_and_check(call: &str, fabric: *mut sys::pmix_fabric_t) -> Result<Client> {
    let c = global::client()?;
    if fabric.is_null() {
        log::warn!("{}: NULL fabric", call);
        return Err(pmix_core::Error::bad_param(format!(
            "{} needs a fabric",
            call
        )));
    }
    Ok(c)
}

/// The blocking register/update.
unsafe fn blocking(
    call: &'static str,
    update: bool,
    fabric: *mut sys::pmix_fabric_t,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
) -> sys::pmix_status_t {
    let c = match client_and_check(call, fabric) {
        Ok(c) => c,
        Err(e) => return e.status(),
    };
    if let Some(st) = would_block(call) {
        return st;
    }
    // SAFETY: this function's `# Safety` contract promises of `update`, `fabric`,
    // `directives` what `request` requires; `fabric` non-NULL.
    let (op, d) = match unsafe { request(update, fabric, directives, ndirs) } {
        Ok(x) => x,
        Err(e) => return e.status(),
    };
    let r = pmix_core::reactor::wait(call, None, |done| {
        c.fabric_nb(op, &d, Box::new(move |r| done.complete(r)))
    });
    match r {
        // SAFETY: the caller's live fabric object (C contract).
        Ok(res) => unsafe { store(fabric, &res) },
        Err(e) => status(call, Err(e)),
    }
}

/// The non-blocking register/update: `cbfunc(status, cbdata)` runs once on the progress
/// thread, after `fabric->info` holds the host's description.
unsafe fn non_blocking(
    call: &'static str,
    update: bool,
    fabric: *mut sys::pmix_fabric_t,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    let c = match client_and_check(call, fabric) {
        Ok(c) => c,
        Err(e) => return e.status(),
    };
    let Some(cb) = cbfunc else {
        log::warn!("{}: no callback", call);
        return sys::PMIX_ERR_BAD_PARAM;
    };
    // SAFETY: this function's `# Safety` contract promises of `update`, `fabric`,
    // `directives` what `request` requires; `fabric` non-NULL.
    let (op, d) = match unsafe { request(update, fabric, directives, ndirs) } {
        Ok(x) => x,
        Err(e) => return e.status(),
    };
    let data = CbData::new(cbdata);
    let fab = CbData::new(fabric as *mut c_void);
    let r = c.fabric_nb(
        op,
        &d,
        Box::new(move |r| {
            let st = match r {
                // SAFETY: the caller keeps the fabric object alive until its callback
                // (C contract).
                Ok(res) => unsafe { store(fab.get() as *mut sys::pmix_fabric_t, &res) },
                Err(e) => status(call, Err(e)),
            };
            // SAFETY: the caller's callback with its cbdata.
            unsafe { cb(st, data.get()) }
        }),
    );
    status(call, r)
}

/// Ask the host for a description of the fabric; it goes to `fabric->info`/`ninfo`
/// (replacing what was there).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (the host has no fabric support),
/// `PMIX_ERR_BAD_PARAM` (NULL `fabric`), `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`,
/// `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `fabric` is NULL or points to an initialised `pmix_fabric_t` that the library reads or
///   fills in as described above;
/// - `directives` is NULL or points to `ndirs` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register(
    fabric: *mut sys::pmix_fabric_t,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Fabric_register, {
        // SAFETY: this export's `# Safety` contract promises of `fabric`, `directives` what
        // `blocking` requires.
        unsafe { blocking("PMIx_Fabric_register", false, fabric, directives, ndirs) }
    })
}

/// Non-blocking `PMIx_Fabric_register`.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), `PMIX_ERR_BAD_PARAM` (NULL `fabric` or `cbfunc`),
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `fabric` is NULL or points to an initialised `pmix_fabric_t` that the library reads or
///   fills in as described above;
/// - `directives` is NULL or points to `ndirs` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run,
/// and so is the address of `fabric`, which the callback fills in: it must stay valid
/// (not freed, not moved) until then.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register_nb(
    fabric: *mut sys::pmix_fabric_t,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Fabric_register_nb, {
        // SAFETY: this export's `# Safety` contract promises of `fabric` and its other
        // pointers what `non_blocking` requires.
        unsafe {
            non_blocking(
                "PMIx_Fabric_register_nb",
                false,
                fabric,
                directives,
                ndirs,
                cbfunc,
                cbdata,
            )
        }
    })
}

/// Ask the host for a fresh description of the fabric `fabric->index`.
///
/// # Returns
/// As `PMIx_Fabric_register`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `fabric` is NULL or points to an initialised `pmix_fabric_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update(fabric: *mut sys::pmix_fabric_t) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Fabric_update, {
        // SAFETY: this export's `# Safety` contract promises of `fabric` what `blocking`
        // requires.
        unsafe { blocking("PMIx_Fabric_update", true, fabric, core::ptr::null(), 0) }
    })
}

/// Non-blocking `PMIx_Fabric_update`.
///
/// # Returns
/// As `PMIx_Fabric_register_nb`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `fabric` is NULL or points to an initialised `pmix_fabric_t` that the library reads or
///   fills in as described above;
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run,
/// and so is the address of `fabric`, which the callback fills in: it must stay valid
/// (not freed, not moved) until then.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update_nb(
    fabric: *mut sys::pmix_fabric_t,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Fabric_update_nb, {
        // SAFETY: this export's `# Safety` contract promises of `fabric` and its other
        // pointers what `non_blocking` requires.
        unsafe {
            non_blocking(
                "PMIx_Fabric_update_nb",
                true,
                fabric,
                core::ptr::null(),
                0,
                cbfunc,
                cbdata,
            )
        }
    })
}

/// Release what `fabric` holds (its `info` array); nothing is sent.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL `fabric`), `PMIX_ERR_INIT`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `fabric` is NULL or points to an initialised `pmix_fabric_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister(
    fabric: *mut sys::pmix_fabric_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Fabric_deregister, {
        // SAFETY: this export's `# Safety` contract promises of `fabric` what
        // `PMIx_Fabric_deregister_nb` requires.
        match unsafe { PMIx_Fabric_deregister_nb(fabric, None, core::ptr::null_mut()) } {
            sys::PMIX_OPERATION_SUCCEEDED => sys::PMIX_SUCCESS,
            st => st,
        }
    })
}

/// As `PMIx_Fabric_deregister`; completes at once (`PMIX_OPERATION_SUCCEEDED`) and never
/// calls `cbfunc`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `fabric` is NULL or points to an initialised `pmix_fabric_t` that the library reads or
///   fills in as described above;
/// - `_cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `_cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`_cbfunc`, `_cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister_nb(
    fabric: *mut sys::pmix_fabric_t,
    _cbfunc: sys::pmix_op_cbfunc_t,
    _cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Fabric_deregister_nb, {
        if let Err(e) = client_and_check("PMIx_Fabric_deregister", fabric) {
            return e.status();
        }
        // SAFETY: non-NULL, the caller's fabric object (C contract).
        unsafe { store(fabric, &[]) };
        sys::PMIX_OPERATION_SUCCEEDED
    })
}
