//! `PMIx_Get`, `PMIx_Get_nb`.

use super::{status, CbData};
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::client::{global, Client, GetOpts};
use pmix_core::store::keys;
use pmix_core::{Key, ProcId};
use pmix_sys as sys;

struct Args {
    client: Client,
    proc_: Option<ProcId>,
    key: Option<Key>,
    opts: GetOpts,
    static_values: bool,
    pointer_values: bool,
}

/// A library-owned `pmix_value_t` handed out by `PMIX_GET_POINTER_VALUES`; freed when the
/// engine drops it (the key's value changed, or finalize).
struct Pinned(*mut sys::pmix_value_t);

// SAFETY: the value is a malloc'd block owned only by this wrapper; the caller only reads
// it, and it is freed (once) from whichever thread drops the wrapper.
unsafe impl Send for Pinned {}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: our value_new block, released exactly once here.
        unsafe {
            conv::value_destruct(self.0);
            conv::alloc::free(self.0);
        }
    }
}

unsafe fn args(
    proc_: *const sys::pmix_proc_t,
    key: *const c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> pmix_core::Result<Args> {
    let client = global::client()?;
    let proc_ = if proc_.is_null() {
        None
    } else {
        // SAFETY: non-NULL proc (C contract).
        Some(unsafe { conv::proc_from_ptr(proc_) }?)
    };
    let key = if key.is_null() {
        None
    } else {
        // SAFETY: a C string (C contract); over-length is BAD_PARAM.
        Some(unsafe { conv::key_from_ptr(key) }?)
    };
    // SAFETY: NULL or `ninfo` infos (C contract).
    let info = unsafe { conv::info_array_from_c(info, ninfo) }?;
    let flag = |k: &str| {
        info.iter()
            .any(|i| i.key.as_str() == k && i.value.is_true())
    };
    let static_values = flag(keys::GET_STATIC_VALUES);
    let pointer_values = flag(keys::GET_POINTER_VALUES);
    Ok(Args {
        client,
        proc_,
        key,
        opts: GetOpts::from_info(&info),
        static_values,
        pointer_values,
    })
}

/// Retrieve `key` (NULL: all data, as a data array of infos) posted by `proc` (NULL:
/// ourselves; rank `PMIX_RANK_WILDCARD`: job data). `*val` receives a malloc'd value
/// (release with `PMIX_VALUE_RELEASE`), or, with `PMIX_GET_STATIC_VALUES`, `val` must
/// point to caller storage (a `pmix_value_t`) that is filled in. With
/// `PMIX_GET_POINTER_VALUES`, `*val` points to a library-owned copy the caller must not
/// free; it stays valid until that key's value changes (and is read again) or until
/// `PMIx_Finalize`.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_EXISTS_OUTSIDE_SCOPE`,
/// `PMIX_ERR_BAD_PARAM` (NULL `val`, over-length key), `PMIX_ERR_INIT`,
/// `PMIX_ERR_TIMEOUT`, `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_NOT_AVAILABLE`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get(
    proc_: *const sys::pmix_proc_t,
    key: *const c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    val: *mut *mut sys::pmix_value_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Get, {
        // SAFETY: forwarded C contract.
        let a = match unsafe { args(proc_, key, info, ninfo) } {
            Ok(a) => a,
            Err(e) => return e.status(),
        };
        if val.is_null() {
            log::warn!("PMIx_Get: NULL val");
            return sys::PMIX_ERR_BAD_PARAM;
        }
        let v = match a.client.get(a.proc_.as_ref(), a.key.as_ref(), &a.opts) {
            Ok(v) => v,
            Err(e) => return status("PMIx_Get", Err(e)),
        };
        if a.static_values {
            // SAFETY: with PMIX_GET_STATIC_VALUES, `val` points to caller storage.
            return status("PMIx_Get", unsafe {
                conv::value_to_c(&v, val as *mut sys::pmix_value_t)
            });
        }
        let made = if a.pointer_values {
            let target = a.proc_.unwrap_or_else(|| a.client.proc_id().clone());
            a.client
                .pin(&target, a.key.as_ref(), &v, |v| {
                    let p = conv::value_new(v)?;
                    Ok((Pinned(p), p as usize))
                })
                .map(|addr| addr as *mut sys::pmix_value_t)
        } else {
            conv::value_new(&v)
        };
        match made {
            Ok(p) => {
                // SAFETY: `val` is non-NULL and writable (C contract).
                unsafe { *val = p };
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}

/// Non-blocking Get: `cbfunc(status, value, cbdata)` runs exactly once on the progress
/// thread; the value belongs to the library and is released when the callback returns.
///
/// # Returns
/// `PMIX_SUCCESS` (callback will run), `PMIX_ERR_BAD_PARAM` (NULL `cbfunc`, bad key),
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH` (no callback then).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_nb(
    proc_: *const sys::pmix_proc_t,
    key: *const c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_value_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Get_nb, {
        let Some(cb) = cbfunc else {
            log::warn!("PMIx_Get_nb: NULL cbfunc");
            return sys::PMIX_ERR_BAD_PARAM;
        };
        // SAFETY: forwarded C contract.
        let a = match unsafe { args(proc_, key, info, ninfo) } {
            Ok(a) => a,
            Err(e) => return e.status(),
        };
        let data = CbData::new(cbdata);
        let r = a.client.get_nb(
            a.proc_.as_ref(),
            a.key.as_ref(),
            &a.opts,
            Box::new(move |r| {
                let (st, p) = match r.and_then(|v| conv::value_new(&v)) {
                    Ok(p) => (sys::PMIX_SUCCESS, p),
                    Err(e) => (e.status(), core::ptr::null_mut()),
                };
                // SAFETY: the caller's callback with its own cbdata (C contract).
                unsafe { cb(st, p, data.get()) };
                if !p.is_null() {
                    // SAFETY: `p` is ours (value_new) and the callback has returned.
                    unsafe {
                        conv::value_destruct(p);
                        conv::alloc::free(p);
                    }
                }
            }),
        );
        status("PMIx_Get_nb", r)
    })
}
