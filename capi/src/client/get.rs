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
    /// None: the Get has no directives (see [`Args::opts`]).
    opts: Option<GetOpts>,
    static_values: bool,
    pointer_values: bool,
}

/// The directives of every Get that passes none (most of them): nothing to decode or drop.
static NO_DIRECTIVES: GetOpts = GetOpts::NONE;

impl Args {
    fn opts(&self) -> &GetOpts {
        self.opts.as_ref().unwrap_or(&NO_DIRECTIVES)
    }
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

/// The target and key of a thread's previous Get, reused when the next Get names the same
/// bytes. Most Gets repeat a namespace, and many a key, so this spares them two
/// allocations and two UTF-8 checks per call (`docs/PERF.md`). Equal bytes are as valid
/// as the ones checked when the entry was made.
#[derive(Default)]
struct Recent {
    proc_: Option<ProcId>,
    key: Option<Key>,
}

thread_local! {
    static RECENT: core::cell::RefCell<Recent> = core::cell::RefCell::default();
}

impl Recent {
    /// Point the entry at `proc_`'s namespace and rank (converting only when the
    /// namespace differs from the cached one).
    fn load_proc(&mut self, p: &sys::pmix_proc_t) -> pmix_core::Result<()> {
        let same = match (&mut self.proc_, conv::nspace_bytes(&p.nspace)) {
            (Some(q), Some(b)) if q.nspace.as_str().as_bytes() == b => {
                q.rank = p.rank;
                true
            }
            _ => false,
        };
        if !same {
            self.proc_ = Some(conv::proc_from_c(p)?);
        }
        Ok(())
    }

    /// Point the entry at `key` (converting only when it differs from the cached one).
    ///
    /// # Safety
    /// `key` is non-NULL and readable up to its NUL or `PMIX_MAX_KEYLEN + 1` bytes.
    unsafe fn load_key(&mut self, key: *const c_char) -> pmix_core::Result<()> {
        // SAFETY: `key` is non-NULL and bounded-readable (this function's contract).
        let b = unsafe { conv::key_bytes(key) };
        let same = matches!((&self.key, b), (Some(k), Some(b)) if k.as_str().as_bytes() == b);
        if !same {
            self.key = Some(crate::arg!(key key)?);
        }
        Ok(())
    }
}

/// Run `f` with the converted target and key (through the thread's [`Recent`] entry).
///
/// # Safety
/// `proc_` is NULL or a readable `pmix_proc_t`; `key` NULL or a C string readable up to
/// its NUL or `PMIX_MAX_KEYLEN + 1` bytes.
unsafe fn with_target<R>(
    proc_: *const sys::pmix_proc_t,
    key: *const c_char,
    f: impl FnOnce(Option<&ProcId>, Option<&Key>) -> R,
) -> pmix_core::Result<R> {
    let run = |rec: &mut Recent| -> pmix_core::Result<R> {
        if !proc_.is_null() {
            // SAFETY: non-NULL, so a readable pmix_proc_t (this function's contract).
            rec.load_proc(unsafe { &*proc_ })?;
        }
        if !key.is_null() {
            // SAFETY: non-NULL, so bounded-readable (this function's contract), which is
            // load_key's contract; over-length is BAD_PARAM.
            unsafe { rec.load_key(key) }?;
        }
        Ok(f(
            rec.proc_.as_ref().filter(|_| !proc_.is_null()),
            rec.key.as_ref().filter(|_| !key.is_null()),
        ))
    };
    RECENT.with(|r| match r.try_borrow_mut() {
        Ok(mut rec) => run(&mut rec),
        // Re-entered on this thread (e.g. from a signal handler): a private entry.
        Err(_) => run(&mut Recent::default()),
    })
}

/// The engine handle and the decoded directives of a Get.
///
/// # Safety
/// `info` is NULL or points to `ninfo` initialised infos.
unsafe fn args(info: *const sys::pmix_info_t, ninfo: usize) -> pmix_core::Result<Args> {
    let client = global::client()?;
    if ninfo == 0 {
        return Ok(Args {
            client,
            opts: None,
            static_values: false,
            pointer_values: false,
        });
    }
    let info = crate::arg!(infos info, ninfo)?;
    let flag = |k: &str| {
        info.iter()
            .any(|i| i.key.as_str() == k && i.value.is_true())
    };
    let static_values = flag(keys::GET_STATIC_VALUES);
    let pointer_values = flag(keys::GET_POINTER_VALUES);
    Ok(Args {
        client,
        opts: Some(GetOpts::from_info(&info)),
        static_values,
        pointer_values,
    })
}

/// Retrieve `key` (NULL: all data, as a data array of infos) posted by `proc` (NULL:
/// ourselves; rank `PMIX_RANK_WILDCARD`: job data). `*val` receives a malloc'd value
/// (release with `PMIX_VALUE_RELEASE`). With `PMIX_GET_POINTER_VALUES`, `*val` points to a
/// library-owned copy the caller must not free; it stays valid until that key's value
/// changes (and is read again) or until `PMIx_Finalize`. With `PMIX_GET_STATIC_VALUES`,
/// `*val` is an input: it points to the caller's `pmix_value_t`, which receives a deep copy
/// (its buffers malloc'd, owned by the caller: release with `PMIX_VALUE_DESTRUCT`), and
/// `*val` keeps pointing there. On failure `*val` is set to NULL (as OpenPMIx does, static
/// storage or not).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_EXISTS_OUTSIDE_SCOPE`,
/// `PMIX_ERR_BAD_PARAM` (NULL `val`, NULL `*val` with `PMIX_GET_STATIC_VALUES`,
/// over-length key), `PMIX_ERR_INIT`, `PMIX_ERR_TIMEOUT`, `PMIX_ERR_WOULD_BLOCK`,
/// `PMIX_ERR_NOT_AVAILABLE`.
///
/// # Safety
/// `proc_` is NULL or a readable `pmix_proc_t`; `key` NULL or a C string readable up to
/// its NUL or `PMIX_MAX_KEYLEN + 1` bytes; `info` NULL or `ninfo` initialised infos (read
/// during the call only); `val` NULL or a writable `pmix_value_t *` slot, and with
/// `PMIX_GET_STATIC_VALUES` `*val` NULL or writable storage for one `pmix_value_t` (its old
/// contents are overwritten, not released). Nothing the caller passes is kept.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get(
    proc_: *const sys::pmix_proc_t,
    key: *const c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    val: *mut *mut sys::pmix_value_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Get, {
        if ninfo == 0 {
            // SAFETY: the arguments are as this export's contract says, which is
            // get_plain's contract.
            return unsafe { get_plain(proc_, key, val) };
        }
        // SAFETY: `info` is NULL or `ninfo` infos (this export's contract).
        let a = match unsafe { args(info, ninfo) } {
            Ok(a) => a,
            Err(e) => return e.status(),
        };
        let slot = crate::try_arg!(mut val);
        let rc = if a.static_values {
            // SAFETY: as above for `proc_` and `key`; `*slot` is NULL or writable
            // storage for one value (the PMIX_GET_STATIC_VALUES contract).
            unsafe { get_static(&a, proc_, key, *slot) }
        } else {
            // SAFETY: `proc_` NULL or readable, `key` NULL or a bounded C string (this
            // export's contract), which is with_target's contract.
            let made = unsafe { with_target(proc_, key, |p, k| get_copy(&a, p, k)) };
            match made.and_then(|r| r) {
                Ok(p) => {
                    *slot = p;
                    return sys::PMIX_SUCCESS;
                }
                Err(e) => status("PMIx_Get", Err(e)),
            }
        };
        if rc != sys::PMIX_SUCCESS {
            *slot = core::ptr::null_mut();
        }
        rc
    })
}

/// A Get that hands back a malloc'd value, or (`PMIX_GET_POINTER_VALUES`) the pinned
/// library-owned copy.
fn get_copy(
    a: &Args,
    p: Option<&ProcId>,
    k: Option<&Key>,
) -> pmix_core::Result<*mut sys::pmix_value_t> {
    let v = a.client.get(p, k, a.opts())?;
    if a.pointer_values {
        let me = a.client.proc_id();
        return a
            .client
            .pin(p.unwrap_or(me), k, &v, |v| {
                let p = conv::value_new(v)?;
                Ok((Pinned(p), p as usize))
            })
            .map(|addr| addr as *mut sys::pmix_value_t);
    }
    conv::value_new(&v)
}

/// A `PMIX_GET_STATIC_VALUES` Get: the value is deep-copied into `storage` (the caller's
/// `*val`); a NULL `storage` is `PMIX_ERR_BAD_PARAM` (OpenPMIx master's rule).
///
/// # Safety
/// `proc_` and `key` as for [`with_target`]; `storage` NULL or writable for one
/// `pmix_value_t`.
unsafe fn get_static(
    a: &Args,
    proc_: *const sys::pmix_proc_t,
    key: *const c_char,
    storage: *mut sys::pmix_value_t,
) -> sys::pmix_status_t {
    if storage.is_null() {
        log::warn!("PMIx_Get: PMIX_GET_STATIC_VALUES with a NULL *val (no storage)");
        return sys::PMIX_ERR_BAD_PARAM;
    }
    let fill = |p: Option<&ProcId>, k: Option<&Key>| -> pmix_core::Result<()> {
        let v = a.client.get(p, k, a.opts())?;
        // SAFETY: `storage` is non-NULL and writable for one value (this function's
        // contract); value_to_c overwrites it whole.
        unsafe { conv::value_to_c(&v, storage) }
    };
    // SAFETY: `proc_` and `key` as with_target requires (this function's contract).
    let r = unsafe { with_target(proc_, key, fill) };
    status("PMIx_Get", r.and_then(|r| r))
}

/// `PMIx_Get` without directives (most calls): no directive decoding, no options to
/// build or drop, a malloc'd value.
///
/// # Safety
/// As `PMIx_Get` (no infos).
unsafe fn get_plain(
    proc_: *const sys::pmix_proc_t,
    key: *const c_char,
    val: *mut *mut sys::pmix_value_t,
) -> sys::pmix_status_t {
    let client = match global::client() {
        Ok(c) => c,
        Err(e) => return e.status(),
    };
    let slot = crate::try_arg!(mut val);
    // SAFETY: `proc_` and `key` are as with_target requires (this function's contract).
    let made = unsafe {
        with_target(proc_, key, |p, k| {
            client.get_with(p, k, &NO_DIRECTIVES, conv::value_new)
        })
    };
    match made.and_then(|r| r) {
        Ok(p) => {
            *slot = p;
            sys::PMIX_SUCCESS
        }
        Err(e) => {
            *slot = core::ptr::null_mut();
            status("PMIx_Get", Err(e))
        }
    }
}

/// Non-blocking Get: `cbfunc(status, value, cbdata)` runs exactly once on the progress
/// thread; the value belongs to the library and is released when the callback returns.
///
/// `PMIX_GET_STATIC_VALUES` has no storage to fill here: it is `PMIX_ERR_BAD_PARAM`, as
/// in OpenPMIx master (whose Get_nb passes no storage to the check).
///
/// # Returns
/// `PMIX_SUCCESS` (callback will run), `PMIX_ERR_BAD_PARAM` (NULL `cbfunc`, bad key,
/// `PMIX_GET_STATIC_VALUES`), `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH` (no callback then).
///
/// # Safety
/// `proc_`, `key` and `info` as for `PMIx_Get`, read during the call only (the library
/// copies them); `cbfunc` NULL or a function callable from the progress thread with
/// `cbdata`, which the library hands back untouched. The value given to `cbfunc` belongs
/// to the library and must not be kept past the callback's return.
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
        // SAFETY: `info` is NULL or `ninfo` infos (this export's contract).
        let a = match unsafe { args(info, ninfo) } {
            Ok(a) => a,
            Err(e) => return e.status(),
        };
        if a.static_values {
            log::warn!("PMIx_Get_nb: PMIX_GET_STATIC_VALUES has no storage to fill");
            return sys::PMIX_ERR_BAD_PARAM;
        }
        let data = CbData::new(cbdata);
        let cb: pmix_core::client::Callback<pmix_core::Value> = Box::new(move |r| {
            let (st, p) = match r.and_then(|v| conv::value_new(&v)) {
                Ok(p) => (sys::PMIX_SUCCESS, p),
                Err(e) => (e.status(), core::ptr::null_mut()),
            };
            // SAFETY: the caller's callback with its own cbdata, called once on the
            // progress thread (this export's contract); `p` is NULL or our value.
            unsafe { cb(st, p, data.get()) };
            if !p.is_null() {
                // SAFETY: `p` is ours (value_new) and the callback has returned.
                unsafe {
                    conv::value_destruct(p);
                    conv::alloc::free(p);
                }
            }
        });
        // SAFETY: `proc_` and `key` as with_target requires (this export's contract).
        let r = unsafe { with_target(proc_, key, |p, k| a.client.get_nb(p, k, a.opts(), cb)) };
        status("PMIx_Get_nb", r.and_then(|r| r))
    })
}
