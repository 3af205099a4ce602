//! `PMIx_generate_regex`, `PMIx_generate_ppn`: printable maps (see
//! `pmix_core::store::regex` for the format, which the server parses back).

use crate::conv;
use core::ffi::c_char;
use pmix_core::store::regex;
use pmix_sys as sys;

unsafe fn text(input: *const c_char) -> Option<String> {
    // SAFETY: a C string (C contract).
    unsafe { conv::cstr_bytes(input) }.and_then(|b| String::from_utf8(b).ok())
}

/// `*regex` = a malloc'd node map for the comma-separated host names in `input`.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL argument, not UTF-8), `PMIX_ERR_NOMEM`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_regex(
    input: *const c_char,
    regex_out: *mut *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_generate_regex, {
        crate::check_null!(input, regex_out);
        // SAFETY: non-NULL C string.
        let Some(t) = (unsafe { text(input) }) else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        match conv::alloc::strdup(&regex::generate_nodes_from_list(&t)) {
            Ok(p) => {
                // SAFETY: writable out-parameter (C contract).
                unsafe { *regex_out = p };
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}

/// `*ppn` = a malloc'd process map for `input` (`"0,1;2,3"`: per node, `;`-separated,
/// the ranks on it, comma-separated).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL argument, a non-numeric rank),
/// `PMIX_ERR_NOMEM`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_ppn(
    input: *const c_char,
    ppn: *mut *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_generate_ppn, {
        crate::check_null!(input, ppn);
        // SAFETY: non-NULL C string.
        let Some(t) = (unsafe { text(input) }) else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        let out = match regex::generate_ppn_from_list(&t) {
            Ok(o) => o,
            Err(e) => return e.status(),
        };
        match conv::alloc::strdup(&out) {
            Ok(p) => {
                // SAFETY: writable out-parameter (C contract).
                unsafe { *ppn = p };
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}
