//! `PMIx_server_dmodex_request`.

use super::CbData;
use core::ffi::{c_char, c_void};
use pmix_core::server::global;
use pmix_sys as sys;

/// Another node asks for `proc`'s data: `cbfunc(status, data, size, cbdata)` runs on the
/// progress thread once `proc` has committed (at once if it already has). `data` is valid
/// only during the callback.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL `proc` or `cbfunc`).
///
/// # Safety
/// `proc_` is NULL or points to a valid `pmix_proc_t`. `cbfunc` is NULL or a
/// `pmix_dmodex_response_fn_t`; it is called once with `cbdata`, from the progress
/// thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_dmodex_request(
    proc_: *const sys::pmix_proc_t,
    cbfunc: sys::pmix_dmodex_response_fn_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_dmodex_request, {
        let Some(cb) = cbfunc else {
            log::warn!("PMIx_server_dmodex_request: NULL cbfunc");
            return sys::PMIX_ERR_BAD_PARAM;
        };
        let s = match global::server() {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        let p = match crate::arg!(proc proc_) {
            Ok(p) => p,
            Err(e) => return e.status(),
        };
        let data = CbData::new(cbdata);
        let r = s.dmodex_request(
            &p,
            Box::new(move |r| {
                let (st, mut bytes) = match r {
                    Ok(b) => (sys::PMIX_SUCCESS, b),
                    Err(e) => (e.status(), Vec::new()),
                };
                let ptr = if bytes.is_empty() {
                    core::ptr::null_mut()
                } else {
                    bytes.as_mut_ptr() as *mut c_char
                };
                // SAFETY: the caller's callback; `bytes` outlives the call.
                unsafe { cb(st, ptr, bytes.len(), data.get()) };
            }),
        );
        super::status("PMIx_server_dmodex_request", r)
    })
}
