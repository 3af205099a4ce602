//! `PMIx_Put`, `PMIx_Commit`, `PMIx_Store_internal`.

use super::status;
use crate::conv;
use core::ffi::c_char;
use pmix_core::client::global;
use pmix_core::Value;
use pmix_sys as sys;

/// Post `key` = `*val` in `scope` (visible to our own Gets at once, to others after
/// `PMIx_Commit`). A `PMIX_DEL_*` scope deletes `key` instead (`val` may be NULL).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL/over-length key, NULL
/// value, unknown scope).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `val` is NULL or points to an initialised `pmix_value_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Put(
    scope: sys::pmix_scope_t,
    key: *const c_char,
    val: *mut sys::pmix_value_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Put, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        // SAFETY: NULL or a C string (C contract).
        let key = match unsafe { conv::key_str(key) } {
            Ok(k) => k,
            Err(e) => return e.status(),
        };
        if scope < sys::PMIX_DEL_LOCAL && !val.is_null() {
            // SAFETY: non-NULL and initialised (C contract).
            let v = unsafe { &*val };
            if v.type_ == sys::PMIX_STRING {
                // The common Put: the string is read in place (copied once, into the
                // store, or into the string the key already holds).
                // SAFETY: a PMIX_STRING value holds NULL or a C string (C contract).
                let s = unsafe { conv::cstr_ref(v.data.string) };
                return status("PMIx_Put", c.put_string(scope, key, s));
            }
        }
        let value = if scope >= sys::PMIX_DEL_LOCAL && val.is_null() {
            Value::Undef
        } else {
            // SAFETY: NULL or an initialised value (C contract).
            match unsafe { conv::value_from_c(val) } {
                Ok(v) => v,
                Err(e) => return e.status(),
            }
        };
        status("PMIx_Put", c.put_str(scope, key, value))
    })
}

/// Send everything put since the last commit to the server.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Commit() -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Commit, {
        match global::client() {
            Ok(c) => status("PMIx_Commit", c.commit()),
            Err(e) => e.status(),
        }
    })
}

/// Store `key` = `*val` in our local store as if `proc` had posted it.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL argument, bad key).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `proc_` is NULL or points to an initialised `pmix_proc_t` (only read);
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `val` is NULL or points to an initialised `pmix_value_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Store_internal(
    proc_: *const sys::pmix_proc_t,
    key: *const c_char,
    val: *mut sys::pmix_value_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Store_internal, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        // SAFETY: each is NULL or valid (C contract); NULL becomes BAD_PARAM.
        let parsed = unsafe {
            (
                conv::proc_from_ptr(proc_),
                conv::key_from_ptr(key),
                conv::value_from_c(val),
            )
        };
        match parsed {
            (Ok(p), Ok(k), Ok(v)) => status("PMIx_Store_internal", c.store_internal(&p, k, v)),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => e.status(),
        }
    })
}
