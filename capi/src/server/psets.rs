//! `PMIx_server_define_process_set`, `PMIx_server_delete_process_set`.

use core::ffi::c_char;
use pmix_core::server::global;
use pmix_sys as sys;

/// Define process set `pset_name` with `members` (local clients hear
/// `PMIX_PROCESS_SET_DEFINE`; queries and `PMIX_PSET_NAMES` report it).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL or empty name, NULL members with a
/// count), `PMIX_ERR_INIT`.
///
/// # Safety
/// `members` is NULL or points to `nmembers` valid `pmix_proc_t`; `pset_name` is NULL or
/// a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_define_process_set(
    members: *const sys::pmix_proc_t,
    nmembers: usize,
    pset_name: *const c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_define_process_set, {
        crate::check_null!(pset_name);
        let s = match global::server() {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        let name = match crate::arg!(cbytes pset_name).map(<[u8]>::to_vec) {
            Some(b) if !b.is_empty() => String::from_utf8_lossy(&b).into_owned(),
            _ => return sys::PMIX_ERR_BAD_PARAM,
        };
        let m = match crate::arg!(procs members, nmembers) {
            Ok(m) => m,
            Err(e) => return e.status(),
        };
        crate::guard::status_of(s.define_process_set(&name, m))
    })
}

/// Remove process set `pset_name` (local clients hear `PMIX_PROCESS_SET_DELETE`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_INIT`.
///
/// # Safety
/// `pset_name` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_delete_process_set(
    pset_name: *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_delete_process_set, {
        crate::check_null!(pset_name);
        let s = match global::server() {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        let name = match crate::arg!(cbytes pset_name).map(<[u8]>::to_vec) {
            Some(b) => String::from_utf8_lossy(&b).into_owned(),
            None => return sys::PMIX_ERR_BAD_PARAM,
        };
        crate::guard::status_of(s.delete_process_set(&name))
    })
}
