//! `PMIx_Put`, `PMIx_Commit`, `PMIx_Store_internal`.

use super::status;
use crate::{arg, conv, try_arg};
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
        let key = try_arg!(key_str key);
        if scope < sys::PMIX_DEL_LOCAL {
            if let Ok(Some(v)) = arg!(opt val) {
                if v.type_ == sys::PMIX_STRING {
                    // The common Put: the string is read in place (copied once, into the
                    // store, or into the string the key already holds).
                    // SAFETY: the type says the union holds `string`, NULL or a C
                    // string (this export's contract: the value is what its type says).
                    let s = unsafe { conv::cstr_ref(v.data.string) };
                    return status("PMIx_Put", c.put_string(scope, key, s));
                }
            }
        }
        let value = if scope >= sys::PMIX_DEL_LOCAL && val.is_null() {
            Value::Undef
        } else {
            try_arg!(value val)
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
        let p = try_arg!(proc proc_);
        let k = try_arg!(key key);
        let v = try_arg!(value val);
        status("PMIx_Store_internal", c.store_internal(&p, k, v))
    })
}
