//! The tool API (`pmix_tool.h`): `PMIx_tool_init`, `PMIx_tool_finalize`,
//! `PMIx_tool_disconnect`, `PMIx_tool_is_connected`, `PMIx_tool_get_servers`,
//! `PMIx_tool_set_server`, `PMIx_tool_attach_to_server` and the deprecated
//! `PMIx_tool_connect_to_server`. The engine side is `pmix_core::client::tool` and
//! `client::global`; once initialized, a tool uses the client API (`PMIx_Query_info`,
//! `PMIx_Get`, `PMIx_IOF_pull`, ...) like any client.

use crate::client::status;
use crate::conv;
use pmix_core::client::global;
use pmix_sys as sys;

/// Initialize as a tool: find a server as the directives say (see
/// `pmix_core::client::tool`) and connect, unless `PMIX_TOOL_DO_NOT_CONNECT`; fill
/// `proc` with our identity (chosen, or assigned by the server's host).
/// Reference-counted like `PMIx_Init`.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL `proc`, bad directives),
/// `PMIX_ERR_UNREACH` (no server and the connection was not optional), or the server's
/// refusal (`PMIX_ERR_NOT_SUPPORTED` without tool support, `PMIX_ERR_INVALID_CRED`).
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
pub unsafe extern "C" fn PMIx_tool_init(
    proc_: *mut sys::pmix_proc_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_tool_init, {
        crate::logging::init();
        crate::check_null!(proc_);
        let info = match crate::arg!(infos info, ninfo) {
            Ok(i) => i,
            Err(e) => {
                log::warn!("PMIx_tool_init: {}", e);
                return e.status();
            }
        };
        match global::tool_init(&info) {
            Ok(id) => {
                if let Ok(Some(p)) = crate::arg!(opt_mut proc_) {
                    conv::proc_to_c(&id, p);
                }
                sys::PMIX_SUCCESS
            }
            Err(e) => {
                crate::logging::init_failed("PMIx_tool_init", &e);
                e.status()
            }
        }
    })
}

/// Undo one `PMIx_tool_init`; the last one leaves the server.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT` (not initialized as a tool), `PMIX_ERR_WOULD_BLOCK`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_finalize() -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_tool_finalize, {
        status("PMIx_tool_finalize", global::tool_finalize())
    })
}

/// True while the tool is connected to a server.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_is_connected() -> bool {
    crate::ffi_value!(PMIx_tool_is_connected, false, {
        global::tool_is_connected()
    })
}

/// Leave `server` and stay initialized, unconnected, with the same identity.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL), `PMIX_ERR_INIT`, `PMIX_ERR_NOT_FOUND`
/// (not connected to that server).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `server` is NULL or points to an initialised `pmix_proc_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_disconnect(
    server: *const sys::pmix_proc_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_tool_disconnect, {
        let s = match crate::arg!(proc server) {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        status("PMIx_tool_disconnect", global::tool_disconnect(&s))
    })
}

/// The servers we are connected to (at most one): a malloc'd array the caller frees.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL), `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`
/// (not connected; `*nservers` is 0).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `servers` is NULL or a writable `pmix_proc_t *` slot (what the library stores there is
///   described above);
/// - `nservers` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_get_servers(
    servers: *mut *mut sys::pmix_proc_t,
    nservers: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_tool_get_servers, {
        crate::check_null!(servers, nservers);
        // SAFETY: both checked non-NULL; writable (C contract).
        unsafe {
            *servers = core::ptr::null_mut();
            *nservers = 0;
        }
        let list = match global::tool_servers() {
            Ok(l) => l,
            Err(e) => return e.status(),
        };
        match conv::proc_array_to_c(&list) {
            Ok((p, n)) => {
                // SAFETY: as above.
                unsafe {
                    *servers = p;
                    *nservers = n;
                }
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}

/// Make `server` the primary server: only the one we are connected to qualifies.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `server` is NULL or points to an initialised `pmix_proc_t` (only read);
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s that the caller may
///   write through.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_set_server(
    server: *const sys::pmix_proc_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_tool_set_server, {
        let s = match crate::arg!(proc server) {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        if let Err(e) = crate::arg!(infos info, ninfo) {
            return e.status();
        }
        status("PMIx_tool_set_server", global::tool_set_server(&s))
    })
}

/// Attach to the server the directives name, keeping our identity; fills `myproc` and
/// `server` (either may be NULL).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (no directives, or none naming a server),
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`, `PMIX_ERR_NOT_SUPPORTED` (a second server).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `myproc` is NULL or points to an initialised `pmix_proc_t` that the library reads or
///   fills in as described above;
/// - `server` is NULL or points to an initialised `pmix_proc_t` that the library reads or
///   fills in as described above;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s that the caller may
///   write through.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_attach_to_server(
    myproc: *mut sys::pmix_proc_t,
    server: *mut sys::pmix_proc_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_tool_attach_to_server, {
        // SAFETY: this export's `# Safety` contract promises of `myproc`, `server`, `info`
        // what `attach` requires.
        unsafe { attach("PMIx_tool_attach_to_server", myproc, server, info, ninfo) }
    })
}

/// Deprecated form of [`PMIx_tool_attach_to_server`] without the server's identity.
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
pub unsafe extern "C" fn PMIx_tool_connect_to_server(
    proc_: *mut sys::pmix_proc_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_tool_connect_to_server, {
        // SAFETY: this export's `# Safety` contract promises of `proc_` and `info` what
        // `attach` requires (`server` is NULL, which it accepts).
        unsafe {
            attach(
                "PMIx_tool_connect_to_server",
                proc_,
                core::ptr::null_mut(),
                info,
                ninfo,
            )
        }
    })
}

/// # Safety
/// `myproc`/`server` NULL or writable; `info` NULL or `ninfo` initialised infos.
unsafe fn attach(
    name: &str,
    myproc: *mut sys::pmix_proc_t,
    server: *mut sys::pmix_proc_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    if info.is_null() || ninfo == 0 {
        log::warn!("{}: no directives naming a server", name);
        return sys::PMIX_ERR_BAD_PARAM;
    }
    let info = match crate::arg!(infos info, ninfo) {
        Ok(i) => i,
        Err(e) => return e.status(),
    };
    match global::tool_attach(&info) {
        Ok((me, srv)) => {
            if let Ok(Some(p)) = crate::arg!(opt_mut myproc) {
                conv::proc_to_c(&me, p);
            }
            if let Ok(Some(p)) = crate::arg!(opt_mut server) {
                conv::proc_to_c(&srv, p);
            }
            sys::PMIX_SUCCESS
        }
        Err(e) => {
            log::warn!("{}: {}", name, e);
            e.status()
        }
    }
}
