//! Client calls the server hands to its host's module slots: `PMIx_Get_credential`,
//! `PMIx_Validate_credential`, `PMIx_Allocation_request`, `PMIx_Process_monitor`,
//! `PMIx_Heartbeat`, `PMIx_Session_control` (see `pmix_core::client::hostops`). A host
//! without the slot makes the call fail with `PMIX_ERR_NOT_SUPPORTED`.

use super::ops::{blocking, info_callback, infos, nonblocking, started, would_block};
use super::query::store_results;
use super::{status, CbData};
use crate::conv;
use core::ffi::c_void;
use pmix_core::client::global;
use pmix_core::{Error, Info, Result};
use pmix_sys as sys;

/// The bytes of a caller's credential (NULL object, or NULL bytes with a size:
/// `PMIX_ERR_BAD_PARAM`).
unsafe fn cred_bytes(call: &str, cred: *const sys::pmix_byte_object_t) -> Result<Vec<u8>> {
    if cred.is_null() {
        log::warn!("{}: NULL credential", call);
        return Err(Error::bad_param(format!("{} needs a credential", call)));
    }
    // SAFETY: non-NULL, the caller's byte object (C contract).
    let bo = unsafe { &*cred };
    if bo.bytes.is_null() && bo.size != 0 {
        log::warn!("{}: credential of {} bytes at NULL", call, bo.size);
        return Err(Error::bad_param(format!("{}: malformed credential", call)));
    }
    // SAFETY: `bytes` is NULL or readable for `size` bytes (C contract).
    Ok(unsafe { conv::bo_from_c(bo) })
}

/// The caller's monitor info (NULL: `PMIX_ERR_BAD_PARAM`).
unsafe fn monitor_info(call: &str, monitor: *const sys::pmix_info_t) -> Result<Info> {
    if monitor.is_null() {
        log::warn!("{}: NULL monitor", call);
        return Err(Error::bad_param(format!("{} needs a monitor", call)));
    }
    let mut v = crate::arg!(infos monitor, 1)?;
    v.pop()
        .ok_or_else(|| Error::bad_param(format!("{}: unreadable monitor", call)))
}

/// Call a credential callback; the credential and infos are freed when it returns (the
/// callback has no release function, so the caller copies what it keeps).
fn call_cred_cb(
    cb: unsafe extern "C" fn(
        sys::pmix_status_t,
        *mut sys::pmix_byte_object_t,
        *mut sys::pmix_info_t,
        usize,
        *mut c_void,
    ),
    data: CbData,
    r: Result<(Vec<u8>, Vec<Info>)>,
) {
    let (st, bytes, info) = match r {
        Ok((b, i)) => (sys::PMIX_SUCCESS, b, i),
        Err(e) => (e.status(), Vec::new(), Vec::new()),
    };
    let mut bo = sys::pmix_byte_object_t {
        bytes: core::ptr::null_mut(),
        size: 0,
    };
    let (st, (p, n)) = match (conv::bo_to_c(&bytes, &mut bo), conv::info_array_to_c(&info)) {
        (Ok(()), Ok(x)) => (st, x),
        (Err(e), Ok((p, n))) => {
            // SAFETY: the array just made; nothing else refers to it.
            unsafe { conv::info_array_free(p, n) };
            (e.status(), (core::ptr::null_mut(), 0))
        }
        (_, Err(e)) => (e.status(), (core::ptr::null_mut(), 0)),
    };
    let bop: *mut sys::pmix_byte_object_t = if st == sys::PMIX_SUCCESS {
        &mut bo
    } else {
        core::ptr::null_mut()
    };
    // SAFETY: the caller's callback with its cbdata; our arrays live until we free them.
    unsafe {
        cb(st, bop, p, n, data.get());
        conv::bo_destruct(&mut bo);
        conv::info_array_free(p, n);
    }
}

/// Call a validation callback; the infos are freed when it returns.
fn call_valid_cb(
    cb: unsafe extern "C" fn(sys::pmix_status_t, *mut sys::pmix_info_t, usize, *mut c_void),
    data: CbData,
    r: Result<Vec<Info>>,
) {
    let (st, info) = match r {
        Ok(i) => (sys::PMIX_SUCCESS, i),
        Err(e) => (e.status(), Vec::new()),
    };
    let (st, (p, n)) = match conv::info_array_to_c(&info) {
        Ok(x) => (st, x),
        Err(e) => (e.status(), (core::ptr::null_mut(), 0)),
    };
    // SAFETY: the caller's callback with its cbdata; the array lives until we free it.
    unsafe {
        cb(st, p, n, data.get());
        conv::info_array_free(p, n);
    }
}

/// Ask the host for a credential for this process; it goes to `*credential`
/// (malloc'd bytes; the caller frees them, e.g. with `PMIX_BYTE_OBJECT_DESTRUCT`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (the host has no credential service, or no
/// server), `PMIX_ERR_BAD_PARAM` (NULL `credential`), `PMIX_ERR_WOULD_BLOCK`,
/// `PMIX_ERR_INIT`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
/// - `credential` is NULL or points to an initialised `pmix_byte_object_t` that the library
///   reads or fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_credential(
    info: *const sys::pmix_info_t,
    ninfo: usize,
    credential: *mut sys::pmix_byte_object_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Get_credential, {
        crate::check_null!(credential);
        // SAFETY: non-NULL, writable (C contract).
        unsafe {
            *credential = sys::pmix_byte_object_t {
                bytes: core::ptr::null_mut(),
                size: 0,
            }
        };
        blocking("PMIx_Get_credential", |c| {
            let (bytes, _) = c.get_credential(&crate::arg!(infos info, ninfo)?)?;
            // SAFETY: non-NULL, writable (checked above).
            conv::bo_to_c(&bytes, unsafe { &mut *credential })?;
            Ok(sys::PMIX_SUCCESS)
        })
    })
}

/// Non-blocking `PMIx_Get_credential`: `cbfunc(status, credential, info, ninfo,
/// cbdata)` runs once on the progress thread; what it receives is freed when it returns.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), `PMIX_ERR_NOT_SUPPORTED` (no server), `PMIX_ERR_BAD_PARAM`,
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH` (no callback then).
///
/// # Safety
/// The C contract (what makes the call sound):
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
pub unsafe extern "C" fn PMIx_Get_credential_nb(
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_credential_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Get_credential_nb, {
        nonblocking("PMIx_Get_credential_nb", |c| {
            let data = CbData::new(cbdata);
            let d = crate::arg!(infos info, ninfo)?;
            c.get_credential_nb(
                &d,
                Box::new(move |r| {
                    if let Some(cb) = cbfunc {
                        call_cred_cb(cb, data, r);
                    }
                }),
            )
        })
    })
}

/// Ask the host to check a credential; what it learned from it (`PMIX_USERID`,
/// `PMIX_GRPID`, …) goes to `*results`/`*nresults` (may be NULL; release with
/// `PMIX_INFO_FREE`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INVALID_CRED`, `PMIX_ERR_NOT_SUPPORTED`,
/// `PMIX_ERR_BAD_PARAM` (NULL `cred`), `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `cred` is NULL or points to an initialised `pmix_byte_object_t` (only read);
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
/// - `results` is NULL or a writable `pmix_info_t *` slot (what the library stores there is
///   described above);
/// - `nresults` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Validate_credential(
    cred: *const sys::pmix_byte_object_t,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    results: *mut *mut sys::pmix_info_t,
    nresults: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Validate_credential, {
        store_results!(&[], results, nresults);
        blocking("PMIx_Validate_credential", |c| {
            // SAFETY: this export's `# Safety` contract promises of `cred` what
            // `cred_bytes` requires.
            let b = unsafe { cred_bytes("PMIx_Validate_credential", cred) }?;
            let res = c.validate_credential(&b, &crate::arg!(infos info, ninfo)?)?;
            Ok(store_results!(&res, results, nresults))
        })
    })
}

/// Non-blocking `PMIx_Validate_credential`: `cbfunc(status, info, ninfo, cbdata)` runs
/// once on the progress thread; the infos are freed when it returns.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or as `PMIx_Validate_credential` (no callback then).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `cred` is NULL or points to an initialised `pmix_byte_object_t` (only read);
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
pub unsafe extern "C" fn PMIx_Validate_credential_nb(
    cred: *const sys::pmix_byte_object_t,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_validation_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Validate_credential_nb, {
        nonblocking("PMIx_Validate_credential_nb", |c| {
            // SAFETY: this export's `# Safety` contract promises of `cred` what
            // `cred_bytes` requires.
            let b = unsafe { cred_bytes("PMIx_Validate_credential_nb", cred) }?;
            let d = crate::arg!(infos info, ninfo)?;
            let data = CbData::new(cbdata);
            c.validate_credential_nb(
                &b,
                &d,
                Box::new(move |r| {
                    if let Some(cb) = cbfunc {
                        call_valid_cb(cb, data, r);
                    }
                }),
            )
        })
    })
}

/// Ask the host for an allocation change (`PMIX_ALLOC_NEW`, `_EXTEND`, `_RELEASE`, …);
/// its results go to `*results`/`*nresults` (release with `PMIX_INFO_FREE`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (the host has no allocation service),
/// `PMIX_ERR_BAD_PARAM` (NULL `results` or `nresults`), `PMIX_ERR_WOULD_BLOCK`,
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s that the caller may
///   write through;
/// - `results` is NULL or a writable `pmix_info_t *` slot (what the library stores there is
///   described above);
/// - `nresults` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request(
    directive: sys::pmix_alloc_directive_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    results: *mut *mut sys::pmix_info_t,
    nresults: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Allocation_request, {
        crate::check_null!(results, nresults);
        store_results!(&[], results, nresults);
        blocking("PMIx_Allocation_request", |c| {
            let res = c.allocate(directive, &crate::arg!(infos info, ninfo)?)?;
            Ok(store_results!(&res, results, nresults))
        })
    })
}

/// Non-blocking `PMIx_Allocation_request`: `cbfunc` (status, results, …, release_fn,
/// release_cbdata) runs once on the progress thread.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s that the caller may
///   write through;
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request_nb(
    directive: sys::pmix_alloc_directive_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Allocation_request_nb, {
        nonblocking("PMIx_Allocation_request_nb", |c| {
            let d = crate::arg!(infos info, ninfo)?;
            c.allocate_nb(directive, &d, info_callback(cbfunc, cbdata))
        })
    })
}

/// Ask the host to monitor this process (`monitor`: what, e.g.
/// `PMIX_MONITOR_HEARTBEAT`, `PMIX_MONITOR_FILE`; `error`: the event to raise). A
/// `PMIX_SEND_HEARTBEAT` monitor sends a heartbeat instead. The host's results go to
/// `*results`/`*nresults` (either may be NULL).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (the host has no monitoring),
/// `PMIX_ERR_BAD_PARAM` (NULL `monitor`), `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`,
/// `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `monitor` is NULL or points to an initialised `pmix_info_t` (only read);
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
pub unsafe extern "C" fn PMIx_Process_monitor(
    monitor: *const sys::pmix_info_t,
    error: sys::pmix_status_t,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    results: *mut *mut sys::pmix_info_t,
    nresults: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Process_monitor, {
        store_results!(&[], results, nresults);
        blocking("PMIx_Process_monitor", |c| {
            // SAFETY: this export's `# Safety` contract promises of `monitor` what
            // `monitor_info` requires.
            let m = unsafe { monitor_info("PMIx_Process_monitor", monitor) }?;
            let res = c.monitor(&m, error, &crate::arg!(infos directives, ndirs)?)?;
            Ok(store_results!(&res, results, nresults))
        })
    })
}

/// Non-blocking `PMIx_Process_monitor`: `cbfunc` runs once on the progress thread.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `monitor` is NULL or points to an initialised `pmix_info_t` (only read);
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
pub unsafe extern "C" fn PMIx_Process_monitor_nb(
    monitor: *const sys::pmix_info_t,
    error: sys::pmix_status_t,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    cbfunc: sys::pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Process_monitor_nb, {
        nonblocking("PMIx_Process_monitor_nb", |c| {
            // SAFETY: this export's `# Safety` contract promises of `monitor` what
            // `monitor_info` requires.
            let m = unsafe { monitor_info("PMIx_Process_monitor_nb", monitor) }?;
            let d = crate::arg!(infos directives, ndirs)?;
            c.monitor_nb(&m, error, &d, info_callback(cbfunc, cbdata))
        })
    })
}

/// Tell the server this process is alive (one message, no answer; nothing without a
/// server or before `PMIx_Init`).
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Heartbeat() {
    crate::ffi_value!(PMIx_Heartbeat, (), {
        if let Ok(c) = global::client() {
            c.heartbeat();
        }
    })
}

/// Ask the host to control session `sessionID` (`PMIX_SESSION_*` directives). With a
/// callback, `cbfunc` runs once on the progress thread with the host's results and the
/// call returns `PMIX_SUCCESS`; without one the call waits and returns
/// `PMIX_OPERATION_SUCCEEDED` on success.
///
/// # Returns
/// As above, or `PMIX_ERR_NOT_SUPPORTED` (the host has no session control),
/// `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_WOULD_BLOCK` (no callback, on the progress thread),
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
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
pub unsafe extern "C" fn PMIx_Session_control(
    sessionID: u32,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    cbfunc: sys::pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Session_control, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        let d = match crate::arg!(infos directives, ndirs) {
            Ok(d) => d,
            Err(e) => return e.status(),
        };
        if cbfunc.is_none() {
            if let Some(st) = would_block("PMIx_Session_control") {
                return st;
            }
            return match c.session_control(sessionID, &d) {
                Ok(_) => sys::PMIX_OPERATION_SUCCEEDED,
                Err(e) => status("PMIx_Session_control", Err(e)),
            };
        }
        let r = c.session_control_nb(sessionID, &d, info_callback(cbfunc, cbdata));
        started("PMIx_Session_control", r)
    })
}

/// The caller's resource units (NULL with a count: `PMIX_ERR_BAD_PARAM`).
unsafe fn units(
    call: &str,
    res: *const sys::pmix_resource_unit_t,
    nres: usize,
) -> Result<Vec<pmix_core::ResourceUnit>> {
    if nres == 0 {
        return Ok(Vec::new());
    }
    if res.is_null() {
        log::warn!("{}: NULL resource units with a count of {}", call, nres);
        return Err(Error::bad_param(format!("{}: NULL resource units", call)));
    }
    // SAFETY: `nres` readable units (C contract), checked non-NULL.
    let s = unsafe { core::slice::from_raw_parts(res, nres) };
    Ok(s.iter()
        .map(|u| pmix_core::ResourceUnit {
            dtype: u.type_,
            count: u.count as u64,
        })
        .collect())
}

/// The arguments of a resource-block call.
unsafe fn block_args(
    call: &str,
    block: *const core::ffi::c_char,
    res: *const sys::pmix_resource_unit_t,
    nres: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> Result<(Option<String>, Vec<pmix_core::ResourceUnit>, Vec<Info>)> {
    let b = match crate::arg!(cbytes block).map(<[u8]>::to_vec) {
        None => None,
        Some(b) => Some(String::from_utf8(b).map_err(|_| {
            log::warn!("{}: block name is not UTF-8", call);
            Error::bad_param(format!("{}: block name is not UTF-8", call))
        })?),
    };
    // SAFETY: this function's `# Safety` contract promises of `call`, `res` what `units`
    // requires.
    Ok((b, unsafe { units(call, res, nres) }?, unsafe {
        infos(info, ninfo)
    }?))
}

/// Ask the host to act on a resource block (`PMIX_RESBLOCK_DEFINE`, `_EXTEND`, …).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (the host has no resource blocks, or a
/// 28-slot module), `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`,
/// `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `res` is NULL or points to `nres` initialised `pmix_resource_unit_t`s (read during the
///   call; the caller keeps ownership);
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resource_block(
    directive: sys::pmix_resource_block_directive_t,
    block: *mut core::ffi::c_char,
    res: *const sys::pmix_resource_unit_t,
    nres: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Resource_block, {
        blocking("PMIx_Resource_block", |c| {
            // SAFETY: this export's `# Safety` contract promises of `block`, `res`, `info`
            // what `block_args` requires.
            let (b, u, d) =
                unsafe { block_args("PMIx_Resource_block", block, res, nres, info, ninfo) }?;
            pmix_core::reactor::wait("PMIx_Resource_block", None, |done| {
                c.resource_block_nb(directive, b, u, &d, Box::new(move |r| done.complete(r)))
            })?;
            Ok(sys::PMIX_SUCCESS)
        })
    })
}

/// Non-blocking `PMIx_Resource_block`: `cbfunc(status, cbdata)` runs once on the
/// progress thread.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `res` is NULL or points to `nres` initialised `pmix_resource_unit_t`s (read during the
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
pub unsafe extern "C" fn PMIx_Resource_block_nb(
    directive: sys::pmix_resource_block_directive_t,
    block: *mut core::ffi::c_char,
    res: *const sys::pmix_resource_unit_t,
    nres: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Resource_block_nb, {
        nonblocking("PMIx_Resource_block_nb", |c| {
            // SAFETY: this export's `# Safety` contract promises of `block`, `res`, `info`
            // what `block_args` requires.
            let (b, u, d) =
                unsafe { block_args("PMIx_Resource_block_nb", block, res, nres, info, ninfo) }?;
            let data = CbData::new(cbdata);
            c.resource_block_nb(
                directive,
                b,
                u,
                &d,
                Box::new(move |r| {
                    let st = status("PMIx_Resource_block_nb", r);
                    if let Some(cb) = cbfunc {
                        // SAFETY: the caller's callback with its cbdata.
                        unsafe { cb(st, data.get()) }
                    }
                }),
            )
        })
    })
}
