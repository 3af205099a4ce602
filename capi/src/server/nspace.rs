//! `PMIx_server_register_nspace`/`deregister_nspace`, `register_client`/`deregister_client`,
//! `PMIx_server_setup_fork`.

use super::{status, CbData};
use crate::conv;
use core::ffi::{c_char, c_int, c_void};
use pmix_core::server::{global, Server};
use pmix_sys as sys;
use std::sync::Arc;

/// Call `cb(st, cbdata)` on the progress thread (the PMIx convention for completions).
fn complete(
    s: &Arc<Server>,
    cb: unsafe extern "C" fn(sys::pmix_status_t, *mut c_void),
    st: sys::pmix_status_t,
    data: CbData,
) -> sys::pmix_status_t {
    // SAFETY: the caller's callback with its own cbdata (promised by the caller, see `# Safety`).
    status(
        "completion",
        s.run_on_progress(move || unsafe { cb(st, data.get()) }),
    )
}

/// Register namespace `nspace` with `nlocalprocs` local processes and the job, app, node
/// and per-process `info` (kept exactly as given). With `cbfunc` the call returns at once
/// and `cbfunc(status, cbdata)` runs on the progress thread; without, it blocks.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_WOULD_BLOCK`.
///
/// # Safety
/// `nspace` is NULL or a NUL-terminated string; `info` is NULL or points to `ninfo` valid
/// `pmix_info_t` (only read during the call). `cbfunc`, if not NULL, is a function of the
/// C type above; it is called once with `cbdata`, from the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_nspace(
    nspace: *const c_char,
    nlocalprocs: c_int,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_register_nspace, {
        let s = match global::server() {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        // SAFETY: C string / `ninfo` infos (promised by the caller, see `# Safety`); NULL nspace is BAD_PARAM.
        let (ns, info) = match unsafe {
            (
                conv::nspace_from_ptr(nspace),
                conv::info_array_from_c(info, ninfo),
            )
        } {
            (Ok(n), Ok(i)) => (n, i),
            (Err(e), _) | (_, Err(e)) => return e.status(),
        };
        let Ok(nlocal) = u32::try_from(nlocalprocs) else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        let Some(cb) = cbfunc else {
            return status(
                "PMIx_server_register_nspace",
                s.register_nspace(&ns, nlocal, info),
            );
        };
        let data = CbData::new(cbdata);
        status(
            "PMIx_server_register_nspace",
            s.register_nspace_nb(
                &ns,
                nlocal,
                info,
                // SAFETY: the caller's callback with its own cbdata (promised by the caller, see `# Safety`).
                Box::new(move |r| unsafe {
                    cb(status("PMIx_server_register_nspace", r), data.get())
                }),
            ),
        )
    })
}

/// Forget namespace `nspace`; `cbfunc` (may be NULL) runs on the progress thread.
///
/// # Safety
/// `nspace` is NULL or a NUL-terminated string. `cbfunc`, if not NULL, is a function of
/// the C type above; it is called once with `cbdata`, from the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_nspace(
    nspace: *const c_char,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(PMIx_server_deregister_nspace, (), {
        let Ok(s) = global::server() else {
            return;
        };
        let st = match crate::arg!(nspace nspace) {
            Ok(ns) => {
                s.deregister_nspace(&ns);
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        };
        if let Some(cb) = cbfunc {
            complete(&s, cb, st, CbData::new(cbdata));
        }
    })
}

/// Allow `proc` to connect from a process with effective uid `uid`; `server_object` is
/// handed back in the host's upcalls for this client. With `cbfunc` the result goes to
/// `cbfunc(status, cbdata)` on the progress thread.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL or wildcard proc).
///
/// # Safety
/// `proc_` is NULL or points to a valid `pmix_proc_t`; `server_object` is opaque (handed
/// back to the host's upcalls, never dereferenced). `cbfunc`, if not NULL, is a function
/// of the C type above; it is called once with `cbdata`, from the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_client(
    proc_: *const sys::pmix_proc_t,
    uid: libc::uid_t,
    _gid: libc::gid_t,
    server_object: *mut c_void,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_register_client, {
        let s = match global::server() {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        let p = match crate::arg!(proc proc_) {
            Ok(p) => p,
            Err(e) => return e.status(),
        };
        let obj = server_object as usize;
        let Some(cb) = cbfunc else {
            return status(
                "PMIx_server_register_client",
                s.register_client_with_object(&p, uid, obj),
            );
        };
        let data = CbData::new(cbdata);
        status(
            "PMIx_server_register_client",
            s.register_client_object(
                &p,
                uid,
                obj,
                // SAFETY: the caller's callback with its own cbdata (promised by the caller, see `# Safety`).
                Box::new(move |r| unsafe {
                    cb(status("PMIx_server_register_client", r), data.get())
                }),
            ),
        )
    })
}

/// Forget client `proc`; `cbfunc` (may be NULL) runs on the progress thread.
///
/// # Safety
/// `proc_` is NULL or points to a valid `pmix_proc_t`. `cbfunc`, if not NULL, is a
/// function of the C type above; it is called once with `cbdata`, from the progress
/// thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_client(
    proc_: *const sys::pmix_proc_t,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(PMIx_server_deregister_client, (), {
        let Ok(s) = global::server() else {
            return;
        };
        let st = match crate::arg!(proc proc_) {
            Ok(p) => {
                s.deregister_client(&p);
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        };
        if let Some(cb) = cbfunc {
            complete(&s, cb, st, CbData::new(cbdata));
        }
    })
}

/// Add to `*env` (a NULL-terminated, malloc'd `char **`, possibly NULL) the variables a
/// child needs to connect as `proc`: `PMIX_NAMESPACE`, `PMIX_RANK`, `PMIX_SERVER_URI*`,
/// `PMIX_SECURITY_MODE`, `PMIX_VERSION`, `PMIX_SERVER_TMPDIR`, `PMIX_SYSTEM_TMPDIR`,
/// `PMIX_HOSTNAME`. Existing entries of the same name are replaced (`PMIx_Setenv`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL argument, wildcard rank),
/// `PMIX_ERR_NOMEM`.
///
/// # Safety
/// `proc_` is NULL or points to a valid `pmix_proc_t`; `env` is NULL or points to a NULL-
/// terminated, malloc'd argv the library may grow with `realloc`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_fork(
    proc_: *const sys::pmix_proc_t,
    env: *mut *mut *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_setup_fork, {
        crate::check_null!(proc_, env);
        let s = match global::server() {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        let vars = match crate::arg!(proc proc_).and_then(|p| s.setup_fork(&p)) {
            Ok(v) => v,
            Err(e) => return e.status(),
        };
        for (k, v) in vars {
            let (Ok(k), Ok(v)) = (std::ffi::CString::new(k), std::ffi::CString::new(v)) else {
                return sys::PMIX_ERR_BAD_PARAM;
            };
            // SAFETY: C strings we own; `env` is the caller's writable argv (promised by the caller, see `# Safety`).
            let rc =
                unsafe { crate::helpers::argv::PMIx_Setenv(k.as_ptr(), v.as_ptr(), true, env) };
            if rc != sys::PMIX_SUCCESS {
                return rc;
            }
        }
        sys::PMIX_SUCCESS
    })
}
