//! `PMIx_server_setup_application`, `setup_local_support` (accepted and completed with
//! success and no data: no fabric or resource plugins exist in this library), and
//! `register_resources`/`deregister_resources` (recorded by the engine).

use super::{status, CbData};
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::server::global;
use pmix_sys as sys;

/// Run `cb(SUCCESS, cbdata)` on the progress thread, or return SUCCESS without `cb`.
fn op_success(
    name: &str,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    let s = match global::server() {
        Ok(s) => s,
        Err(e) => return e.status(),
    };
    let Some(cb) = cbfunc else {
        return sys::PMIX_SUCCESS;
    };
    let data = CbData::new(cbdata);
    // SAFETY: the caller's callback with its own cbdata (promised by the caller, see `# Safety`).
    status(
        name,
        s.run_on_progress(move || unsafe { cb(sys::PMIX_SUCCESS, data.get()) }),
    )
}

/// Launcher-side application setup: completes with success and no infos.
///
/// # Returns
/// `PMIX_SUCCESS` (then `cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL)` runs on the
/// progress thread), `PMIX_ERR_BAD_PARAM` (NULL `cbfunc`), `PMIX_ERR_INIT`.
///
/// # Safety
/// The pointer arguments other than `cbdata` are not read. `cbfunc`, if not NULL, is a
/// `pmix_setup_application_cbfunc_t`; it is called once with `cbdata`, from the progress
/// thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_application(
    _nspace: *const c_char,
    _info: *mut sys::pmix_info_t,
    _ninfo: usize,
    cbfunc: sys::pmix_setup_application_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_setup_application, {
        let Some(cb) = cbfunc else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        let s = match global::server() {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        let data = CbData::new(cbdata);
        status(
            "PMIx_server_setup_application",
            // SAFETY: the caller's callback with its own cbdata (promised by the caller, see `# Safety`).
            s.run_on_progress(move || unsafe {
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

/// Node-local setup for a namespace: nothing to do; completes with success.
///
/// # Safety
/// The pointer arguments other than `cbdata` are not read. `cbfunc`, if not NULL, is a
/// function of the C type above; it is called once with `cbdata`, from the progress
/// thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_local_support(
    _nspace: *const c_char,
    _info: *mut sys::pmix_info_t,
    _ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_setup_local_support, {
        op_success("PMIx_server_setup_local_support", cbfunc, cbdata)
    })
}

/// Shared body of `register_resources`/`deregister_resources`: read the infos, then do
/// it blocking (NULL `cbfunc`: `PMIX_OPERATION_SUCCEEDED` once done) or on the progress
/// thread (`PMIX_SUCCESS` now, `cbfunc(PMIX_SUCCESS, cbdata)` when done).
unsafe fn resources(
    name: &str,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
    deregister: bool,
) -> sys::pmix_status_t {
    let s = match global::server() {
        Ok(s) => s,
        Err(e) => return e.status(),
    };
    // SAFETY: NULL or `ninfo` infos (promised by the caller, see `# Safety`).
    let info = match unsafe { conv::info_array_from_c(info, ninfo) } {
        Ok(i) => i,
        Err(e) => {
            log::warn!("{}: bad infos: {}", name, e);
            return e.status();
        }
    };
    let done: Option<pmix_core::server::HostDone<()>> = cbfunc.map(|cb| {
        let data = CbData::new(cbdata);
        // SAFETY: the caller's callback with its own cbdata (promised by the caller, see `# Safety`).
        Box::new(move |r: pmix_core::Result<()>| unsafe {
            cb(status(name_of(deregister), r), data.get())
        }) as pmix_core::server::HostDone<()>
    });
    let blocking = done.is_none();
    let r = if deregister {
        s.deregister_resources(info, done)
    } else {
        s.register_resources(info, done)
    };
    match r {
        Ok(()) if blocking => sys::PMIX_OPERATION_SUCCEEDED,
        r => status(name, r),
    }
}

fn name_of(deregister: bool) -> &'static str {
    if deregister {
        "PMIx_server_deregister_resources"
    } else {
        "PMIx_server_register_resources"
    }
}

/// Record resource information (cluster, node, fabric...) that every job sees as
/// job-level data; a namespace's own registration overrides it key by key. Jobs
/// registered later get it with their registration; jobs already running have it at the
/// server (their clients read it with `PMIX_GET_REFRESH_CACHE`).
///
/// # Returns
/// `PMIX_OPERATION_SUCCEEDED` (NULL `cbfunc`: done on return), `PMIX_SUCCESS` (`cbfunc`
/// runs when done), `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_WOULD_BLOCK`.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid `pmix_info_t` (only read during the call).
/// `cbfunc`, if not NULL, is a function of the C type above; it is called once with
/// `cbdata`, from the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_resources(
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_register_resources, {
        // SAFETY: the same pointers and promises as this export's `# Safety`.
        unsafe { resources(name_of(false), info, ninfo, cbfunc, cbdata, false) }
    })
}

/// Retract job-level information from every registered job and its clients (a later
/// Get returns `PMIX_ERR_NOT_FOUND`; the clients are told one-way, so a racing Get may
/// see the old value once). Only the keys are used; a `PMIX_DATA_ARRAY` of infos naming
/// `PMIX_NODEID`/`PMIX_HOSTNAME` narrows the removal to those nodes.
///
/// # Returns
/// As `PMIx_server_register_resources`.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid `pmix_info_t` (only read during the call).
/// `cbfunc`, if not NULL, is a function of the C type above; it is called once with
/// `cbdata`, from the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_resources(
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_deregister_resources, {
        // SAFETY: the same pointers and promises as this export's `# Safety`.
        unsafe { resources(name_of(true), info, ninfo, cbfunc, cbdata, true) }
    })
}

/// Register the attributes the host supports for `function` (`attrs`: a NULL-terminated
/// array of attribute names such as `"PMIX_TIMEOUT"`, or NULL for none). They are
/// reported to `PMIx_Query_info` with `PMIX_QUERY_ATTRIBUTE_SUPPORT` and
/// `PMIX_HOST_ATTRIBUTES` (the function names with `PMIX_HOST_FUNCTIONS`), in this
/// process and to this server's clients.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_REPEAT_ATTR_REGISTRATION` (the function was registered
/// before), `PMIX_ERR_BAD_PARAM` (NULL `function`, or a name that is not UTF-8),
/// `PMIX_ERR_WOULD_BLOCK` (on the progress thread, as OpenPMIx), `PMIX_ERR_INIT`.
///
/// # Safety
/// `function` is NULL or a NUL-terminated string; `attrs` is NULL or a NULL-terminated
/// array of NUL-terminated strings (only read during the call).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_attributes(
    function: *mut core::ffi::c_char,
    attrs: *mut *mut core::ffi::c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Register_attributes, {
        if let Err(e) = pmix_core::client::global::client() {
            return e.status();
        }
        crate::check_null!(function);
        if let Some(st) = crate::client::ops::would_block("PMIx_Register_attributes") {
            return st;
        }
        let utf8 = |b: Vec<u8>| String::from_utf8(b).ok();
        // SAFETY: non-NULL C string (promised by the caller, see `# Safety`).
        let Some(f) = (unsafe { crate::conv::cstr_bytes(function) }).and_then(utf8) else {
            log::warn!("PMIx_Register_attributes: function name is not UTF-8");
            return sys::PMIX_ERR_BAD_PARAM;
        };
        // SAFETY: NULL or a NULL-terminated array of C strings (promised by the caller, see `# Safety`).
        let names = unsafe { crate::conv::argv_from_c(attrs) }.unwrap_or_default();
        let Some(names) = names.into_iter().map(utf8).collect::<Option<Vec<String>>>() else {
            log::warn!("PMIx_Register_attributes: an attribute name is not UTF-8");
            return sys::PMIX_ERR_BAD_PARAM;
        };
        match pmix_core::server::host_attrs::register(&f, names) {
            Ok(()) => sys::PMIX_SUCCESS,
            Err(e) => {
                log::debug!("PMIx_Register_attributes: {}", e);
                e.status()
            }
        }
    })
}
