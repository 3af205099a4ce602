//! `PMIx_server_setup_application`, `setup_local_support`, `register_resources`,
//! `deregister_resources`: accepted and completed with success and no data (no fabric or
//! resource plugins exist in this library).

use super::{status, CbData};
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
    // SAFETY: the caller's callback with its own cbdata (C contract).
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
            // SAFETY: the caller's callback with its own cbdata (C contract).
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

/// Accepted and completed with success; the resources are not yet recorded.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_resources(
    _info: *mut sys::pmix_info_t,
    _ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_register_resources, {
        op_success("PMIx_server_register_resources", cbfunc, cbdata)
    })
}

/// Accepted and completed with success; nothing is retracted yet.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_resources(
    _info: *mut sys::pmix_info_t,
    _ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_deregister_resources, {
        op_success("PMIx_server_deregister_resources", cbfunc, cbdata)
    })
}
