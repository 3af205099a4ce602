//! The host's helpers: `PMIx_server_generate_locality_string`,
//! `PMIx_server_generate_cpuset_string`, `PMIx_server_generate_cpuset` (what a host
//! registers as a proc's `PMIX_LOCALITY_STRING` and `PMIX_CPUSET`).

use super::{fail, parse_into, shared, source_of};
use crate::conv;
use core::ffi::c_char;
use pmix_core::topology::{self as topo, Bitmap};
use pmix_sys as sys;

/// A copy of a hwloc cpuset's bitmap, or the status to return.
///
/// # Safety
/// `c` is NULL or a pmix_cpuset_t whose bitmap is NULL or a live hwloc bitmap.
unsafe fn bitmap_of(c: *const sys::pmix_cpuset_t) -> Result<Option<Bitmap>, sys::pmix_status_t> {
    // SAFETY: as the caller promises.
    let Some(c) = (unsafe { c.as_ref() }) else {
        return Err(sys::PMIX_ERR_BAD_PARAM);
    };
    // SAFETY: as the caller promises.
    if unsafe { source_of(c.source)? }.is_none() {
        return Err(sys::PMIX_ERR_BAD_PARAM);
    }
    // SAFETY: as the caller promises.
    Ok(unsafe { Bitmap::dup_raw(c.bitmap) })
}

/// Store `s` (or NULL) through `out`.
///
/// # Safety
/// `out` is non-NULL and writable.
unsafe fn hand(out: *mut *mut c_char, s: Option<String>) -> sys::pmix_status_t {
    let p = match s.map(|s| conv::alloc::strdup(&s)).transpose() {
        Ok(p) => p.unwrap_or(core::ptr::null_mut()),
        Err(e) => return e.status(),
    };
    // SAFETY: as the caller promises.
    unsafe { *out = p };
    sys::PMIX_SUCCESS
}

/// The locality string of a cpuset on this node's topology (`SK0:L30:...:HT0-1`); NULL
/// (with success) for a full or absent bitmap: an unbound process has no locality.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL, no source), `PMIX_ERR_NOT_SUPPORTED`.
///
/// # Safety
/// `cpuset` is NULL or points to a valid `pmix_cpuset_t` (a source string and an hwloc
/// bitmap); `locality` is NULL or points to a writable `char *`, set to a malloc'd string
/// the caller frees (or NULL).
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_locality_string(
    cpuset: *const sys::pmix_cpuset_t,
    locality: *mut *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_generate_locality_string, {
        if locality.is_null() {
            return sys::PMIX_ERR_BAD_PARAM;
        }
        // SAFETY: checked non-NULL.
        unsafe { *locality = core::ptr::null_mut() };
        // SAFETY: the caller's cpuset, as the API says.
        let b = match unsafe { bitmap_of(cpuset) } {
            Ok(Some(b)) => b,
            Ok(None) => return sys::PMIX_SUCCESS,
            Err(st) => return st,
        };
        match shared() {
            // SAFETY: checked non-NULL.
            Ok(t) => unsafe { hand(locality, topo::locality_string(t, &b)) },
            Err(e) => fail("PMIx_server_generate_locality_string", e),
        }
    })
}

/// The cpuset string of a cpuset (`hwloc:0-3`), malloc'd.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL, no source or bitmap),
/// `PMIX_ERR_NOT_SUPPORTED`.
///
/// # Safety
/// `cpuset` is NULL or points to a valid `pmix_cpuset_t`; `cpuset_string` is NULL or
/// points to a writable `char *`, set to a malloc'd string the caller frees.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_cpuset_string(
    cpuset: *const sys::pmix_cpuset_t,
    cpuset_string: *mut *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_generate_cpuset_string, {
        if cpuset_string.is_null() {
            return sys::PMIX_ERR_BAD_PARAM;
        }
        // SAFETY: checked non-NULL.
        unsafe { *cpuset_string = core::ptr::null_mut() };
        // SAFETY: the caller's cpuset, as the API says.
        match unsafe { bitmap_of(cpuset) } {
            // SAFETY: checked non-NULL.
            Ok(Some(b)) => unsafe { hand(cpuset_string, Some(topo::cpuset_string(&b))) },
            Ok(None) => sys::PMIX_ERR_BAD_PARAM,
            Err(st) => st,
        }
    })
}

/// Parse a cpuset string into `cpuset` (as `PMIx_Parse_cpuset_string`, for hosts).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_NOT_SUPPORTED`.
///
/// # Safety
/// `cpuset_string` is NULL or a NUL-terminated string; `cpuset` is NULL or points to a
/// writable `pmix_cpuset_t`, filled as by [`PMIx_Parse_cpuset_string`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_cpuset(
    cpuset_string: *const c_char,
    cpuset: *mut sys::pmix_cpuset_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_generate_cpuset, {
        // SAFETY: the caller's arguments, checked for NULL inside.
        unsafe { parse_into(cpuset_string, cpuset) }
    })
}
