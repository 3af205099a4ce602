//! `PMIx_Publish`, `PMIx_Lookup`, `PMIx_Unpublish` and their `_nb` forms.

use super::ops::{blocking, infos, nonblocking, op_callback, started, would_block};
use super::{status, CbData};
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::client::global;
use pmix_core::Pdata;
use pmix_sys as sys;

/// Keys of a NULL-terminated C array (NULL: none).
unsafe fn keys_from_c(keys: *mut *mut c_char) -> Vec<String> {
    // SAFETY: NULL or a NULL-terminated array of C strings (C contract).
    unsafe { conv::argv_from_c(keys) }
        .unwrap_or_default()
        .into_iter()
        .map(|k| String::from_utf8_lossy(&k).into_owned())
        .filter(|k| !k.is_empty())
        .collect()
}

/// Publish the key/values of `info` (entries that are not directives) for
/// `PMIx_Lookup`. Directives: `PMIX_RANGE`, `PMIX_PERSISTENCE`, `PMIX_TIMEOUT`.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_DUPLICATE_KEY`, `PMIX_ERR_BAD_PARAM` (NULL `info`),
/// `PMIX_ERR_NOT_SUPPORTED` (the host keeps no data store), `PMIX_ERR_WOULD_BLOCK`,
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish(
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Publish, {
        crate::check_null!(info);
        blocking("PMIx_Publish", |c| {
            c.publish(&crate::arg!(infos info, ninfo)?)?;
            Ok(sys::PMIX_SUCCESS)
        })
    })
}

/// Non-blocking publish: `cbfunc(status, cbdata)` once the data store has it.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or an error as for `PMIx_Publish` (no callback).
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
pub unsafe extern "C" fn PMIx_Publish_nb(
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Publish_nb, {
        let Some(cb) = cbfunc else {
            // SAFETY: this export's `# Safety` contract promises of `info` what
            // `PMIx_Publish` requires.
            return unsafe { PMIx_Publish(info, ninfo) };
        };
        crate::check_null!(info);
        nonblocking("PMIx_Publish_nb", |c| {
            let i = crate::arg!(infos info, ninfo)?;
            c.publish_nb(&i, op_callback("PMIx_Publish_nb", cb, cbdata))
        })
    })
}

/// Look up the keys named in `data[i].key`; each element found gets its value and
/// publisher, the others are left untouched (`PMIX_UNDEF` if constructed).
/// `PMIX_WAIT` waits for later publishes (bounded by `PMIX_TIMEOUT`).
///
/// # Returns
/// `PMIX_SUCCESS` (at least one found), `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_TIMEOUT`,
/// `PMIX_ERR_BAD_PARAM` (NULL `data`), `PMIX_ERR_NOT_SUPPORTED`,
/// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `data` is NULL or points to `ndata` initialised `pmix_pdata_t`s that the caller may
///   write through;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup(
    data: *mut sys::pmix_pdata_t,
    ndata: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Lookup, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        crate::check_null!(data);
        if let Some(st) = would_block("PMIx_Lookup") {
            return st;
        }
        let mut keys = Vec::new();
        for i in 0..ndata {
            // SAFETY: `ndata` pdata (C contract).
            let k = unsafe { &(*data.add(i)).key };
            if let Ok(k) = conv::key_from_array(k) {
                if !k.as_str().is_empty() {
                    keys.push(k.as_str().to_string());
                }
            }
        }
        let i = match crate::arg!(infos info, ninfo) {
            Ok(i) => i,
            Err(e) => return e.status(),
        };
        let found = match c.lookup(keys, &i) {
            Ok(f) => f,
            Err(e) => return status("PMIx_Lookup", Err(e)),
        };
        for d in found {
            for n in 0..ndata {
                // SAFETY: `ndata` writable pdata (C contract).
                let slot = unsafe { &mut *data.add(n) };
                if conv::key_from_array(&slot.key).is_ok_and(|k| k == d.key) {
                    if let Err(e) = conv::pdata_to_c(&d, slot) {
                        return e.status();
                    }
                }
            }
        }
        sys::PMIX_SUCCESS
    })
}

/// Non-blocking lookup of the NULL-terminated `keys`: `cbfunc(status, pdata, n, cbdata)`
/// runs once with what was found (`PMIX_ERR_PARTIAL_SUCCESS` if only part, the array
/// valid during the callback).
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), `PMIX_ERR_BAD_PARAM` (NULL `keys`), or as `PMIx_Lookup`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `keys` is NULL or a writable `char *` slot;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup_nb(
    keys: *mut *mut c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_lookup_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Lookup_nb, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        crate::check_null!(keys);
        let Some(cb) = cbfunc else {
            log::warn!("PMIx_Lookup_nb: NULL cbfunc");
            return sys::PMIX_ERR_BAD_PARAM;
        };
        // SAFETY: this export's `# Safety` contract promises of `keys` what `keys_from_c`
        // requires.
        let k = unsafe { keys_from_c(keys) };
        let nkeys = k.len();
        let i = match crate::arg!(infos info, ninfo) {
            Ok(i) => i,
            Err(e) => return e.status(),
        };
        let data = CbData::new(cbdata);
        let r = c.lookup_nb(
            k,
            &i,
            Box::new(move |r: pmix_core::Result<Vec<Pdata>>| {
                let (st, found) = match r {
                    Ok(v) if v.len() < nkeys => (sys::PMIX_ERR_PARTIAL_SUCCESS, v),
                    Ok(v) => (sys::PMIX_SUCCESS, v),
                    Err(e) => (e.status(), Vec::new()),
                };
                let arr = if found.is_empty() {
                    Ok(core::ptr::null_mut())
                } else {
                    conv::alloc::calloc_array::<sys::pmix_pdata_t>(found.len())
                };
                let arr = match arr {
                    Ok(a) => a,
                    Err(e) => {
                        // SAFETY: the caller's callback (C contract).
                        unsafe { cb(e.status(), core::ptr::null_mut(), 0, data.get()) };
                        return;
                    }
                };
                let mut n = 0;
                for d in &found {
                    // SAFETY: `n` is within the fresh zeroed array.
                    if conv::pdata_to_c(d, unsafe { &mut *arr.add(n) }).is_ok() {
                        n += 1;
                    }
                }
                // SAFETY: the caller's callback; the array is valid during the call.
                unsafe { cb(st, arr, n, data.get()) };
                for j in 0..n {
                    // SAFETY: our initialised elements.
                    unsafe { conv::pdata_destruct(&mut *arr.add(j)) };
                }
                // SAFETY: our block.
                unsafe { conv::alloc::free(arr) };
            }),
        );
        started("PMIx_Lookup_nb", r)
    })
}

/// Remove data this process published (`keys` NULL: all of it in the range).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED`, `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`,
/// `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `keys` is NULL or a writable `char *` slot;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish(
    keys: *mut *mut c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Unpublish, {
        blocking("PMIx_Unpublish", |c| {
            // SAFETY: this export's `# Safety` contract promises of `keys` what
            // `keys_from_c` requires.
            let (k, i) = unsafe { (keys_from_c(keys), infos(info, ninfo)?) };
            c.unpublish(k, &i)?;
            Ok(sys::PMIX_SUCCESS)
        })
    })
}

/// Non-blocking unpublish: `cbfunc(status, cbdata)` once removed.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or as `PMIx_Unpublish` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `keys` is NULL or a writable `char *` slot;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish_nb(
    keys: *mut *mut c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Unpublish_nb, {
        let Some(cb) = cbfunc else {
            // SAFETY: this export's `# Safety` contract promises of `keys`, `info` what
            // `PMIx_Unpublish` requires.
            return unsafe { PMIx_Unpublish(keys, info, ninfo) };
        };
        nonblocking("PMIx_Unpublish_nb", |c| {
            // SAFETY: this export's `# Safety` contract promises of `keys` what
            // `keys_from_c` requires.
            let (k, i) = unsafe { (keys_from_c(keys), infos(info, ninfo)?) };
            c.unpublish_nb(k, &i, op_callback("PMIx_Unpublish_nb", cb, cbdata))
        })
    })
}
