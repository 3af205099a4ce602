//! `PMIx_Init`, `PMIx_Initialized`, `PMIx_Finalize`, `PMIx_Abort`.

use super::status;
use crate::conv;
use core::ffi::{c_char, c_int};
use pmix_core::client::global;
use pmix_sys as sys;

/// Connect to the local server named by the environment (or become a singleton) and fill
/// `proc` (may be NULL) with our identity. Reference-counted: each call needs a
/// `PMIx_Finalize`.
///
/// # Returns
/// `PMIX_SUCCESS`; `PMIX_ERR_UNREACH` when no server is in the environment (a singleton,
/// as with OpenPMIx: `proc` is filled and the library is usable, `PMIx_Finalize` is still
/// due; a nested call returns `PMIX_SUCCESS`); `PMIX_ERR_BAD_PARAM` (malformed `info` or
/// environment), or the server's refusal status.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `proc_` is NULL or points to an initialised `pmix_proc_t` that the library reads or
///   fills in as described above;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s that the caller may
///   write through.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Init(
    proc_: *mut sys::pmix_proc_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Init, {
        crate::logging::init();
        let info = match crate::arg!(infos info, ninfo) {
            Ok(i) => i,
            Err(e) => return e.status(),
        };
        match global::init(info) {
            Ok(init) => {
                if let Ok(Some(p)) = crate::arg!(opt_mut proc_) {
                    conv::proc_to_c(&init.id, p);
                }
                if init.singleton {
                    sys::PMIX_ERR_UNREACH
                } else {
                    sys::PMIX_SUCCESS
                }
            }
            Err(e) => {
                crate::logging::init_failed("PMIx_Init", &e);
                e.status()
            }
        }
    })
}

/// 1 between a successful `PMIx_Init` and its last `PMIx_Finalize`, else 0.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Initialized() -> c_int {
    crate::ffi_value!(PMIx_Initialized, 0, { global::initialized() as c_int })
}

/// Undo one `PMIx_Init`; the last one disconnects from the server.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT` (not initialized), `PMIX_ERR_WOULD_BLOCK` (called on
/// the progress thread).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `_info` is NULL or points to `_ninfo` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Finalize(
    _info: *const sys::pmix_info_t,
    _ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Finalize, {
        status("PMIx_Finalize", global::finalize())
    })
}

/// Ask the host to abort `procs` (NULL: our whole namespace) with `status` and `msg`.
///
/// # Returns
/// `PMIX_SUCCESS` (the host usually kills the caller first), `PMIX_ERR_INIT`,
/// `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_WOULD_BLOCK`, or the host's error.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `msg` is NULL or a NUL-terminated string the library only reads;
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s that the caller may
///   write through.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Abort(
    status_code: c_int,
    msg: *const c_char,
    procs: *mut sys::pmix_proc_t,
    nprocs: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Abort, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        // SAFETY: NULL or a C string (C contract).
        let msg = unsafe { conv::cstr_bytes(msg) }.unwrap_or_default();
        let targets = match crate::arg!(procs procs, nprocs) {
            Ok(p) => p,
            Err(e) => return e.status(),
        };
        status(
            "PMIx_Abort",
            c.abort(status_code, &String::from_utf8_lossy(&msg), targets),
        )
    })
}
