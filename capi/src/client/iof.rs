//! `PMIx_IOF_pull`, `PMIx_IOF_deregister`, `PMIx_IOF_push` (`pmix_tool.h`): a client's
//! requests go to its server (`pmix_core::client::Client::iof_pull`, …); in a server
//! process that did not call `PMIx_Init` they act on the process's own server
//! (`pmix_core::server::Server::iof_pull_local`, …).

use super::ops::{infos, would_block};
use super::{status, CbData};
use crate::conv;
use core::ffi::c_void;
use pmix_core::client::{global, Client};
use pmix_core::iof::{IofChunk, IofHandler};
use pmix_core::server::Server;
use pmix_core::Result;
use pmix_sys as sys;
use std::sync::Arc;

/// Where this process's IOF calls go.
enum Target {
    Client(Client),
    Server(Arc<Server>),
}

fn target() -> Result<Target> {
    if global::initialized() {
        return global::client().map(Target::Client);
    }
    match pmix_core::server::global::server() {
        Ok(s) => Ok(Target::Server(s)),
        Err(_) => global::client().map(Target::Client),
    }
}

/// Call the caller's `pmix_iof_cbfunc_t` with one chunk. Everything handed over is ours
/// and valid only during the call (as in OpenPMIx, which frees it afterwards).
fn deliver(
    cb: unsafe extern "C" fn(
        usize,
        sys::pmix_iof_channel_t,
        *mut sys::pmix_proc_t,
        *mut sys::pmix_byte_object_t,
        *mut sys::pmix_info_t,
        usize,
    ),
    id: u64,
    c: &IofChunk,
) {
    // SAFETY: an all-zero pmix_proc_t is a valid (empty) proc.
    let mut src: sys::pmix_proc_t = unsafe { core::mem::zeroed() };
    conv::proc_to_c(&c.source, &mut src);
    let mut bytes = c.data.clone();
    let mut bo = sys::pmix_byte_object_t {
        bytes: if bytes.is_empty() {
            core::ptr::null_mut()
        } else {
            bytes.as_mut_ptr() as *mut core::ffi::c_char
        },
        size: bytes.len(),
    };
    let (info, ninfo) = match conv::info_array_to_c(&c.info) {
        Ok(x) => x,
        Err(e) => {
            log::warn!("IOF: cannot hand over the chunk's infos: {}", e);
            (core::ptr::null_mut(), 0)
        }
    };
    // SAFETY: the caller's callback; every pointer stays valid until it returns.
    unsafe { cb(id as usize, c.channel, &mut src, &mut bo, info, ninfo) };
    // SAFETY: our array, not kept by the callee.
    unsafe { conv::info_array_free(info, ninfo) };
}

/// Register for the output of `procs` on the channels in `channel`: `cbfunc(iofhdlr,
/// channel, source, payload, info, ninfo)` runs on the progress thread for each chunk (a
/// zero-size payload with `PMIX_IOF_COMPLETE` ends a stream); what it receives is valid
/// only during the call. A NULL `cbfunc` receives nothing (a client does not write
/// forwarded output itself). With `regcbfunc`, `regcbfunc(status, iofhdlr, regcbdata)`
/// reports the registration later; without it the call blocks.
///
/// # Returns
/// `PMIX_SUCCESS` (registration under way), `PMIX_OPERATION_SUCCEEDED` (blocking form,
/// registered), `PMIX_ERR_NOT_SUPPORTED` (stdin channel, or a host without `iof_pull`),
/// `PMIX_ERR_BAD_PARAM` (no procs), `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`,
/// `PMIX_ERR_NOT_AVAILABLE` (progress stopped), `PMIX_ERR_WOULD_BLOCK`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `directives` is NULL or points to `ndirs` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `regcbfunc` is NULL or a function that may be called (from the progress thread) with
///   the arguments its type names;
/// - `regcbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `regcbfunc`, `regcbdata`) are kept: a handler
/// until it is deregistered, a completion callback until it has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_pull(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    channel: sys::pmix_iof_channel_t,
    cbfunc: sys::pmix_iof_cbfunc_t,
    regcbfunc: sys::pmix_hdlr_reg_cbfunc_t,
    regcbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_IOF_pull, {
        let t = match target() {
            Ok(t) => t,
            Err(e) => return e.status(),
        };
        if let Err(e) = pmix_core::reactor::check_serviceable("PMIx_IOF_pull") {
            return e.status();
        }
        if channel & sys::PMIX_FWD_STDIN_CHANNEL != 0 {
            log::warn!("PMIx_IOF_pull: stdin cannot be pulled");
            return sys::PMIX_ERR_NOT_SUPPORTED;
        }
        if procs.is_null() || nprocs == 0 {
            log::warn!("PMIx_IOF_pull: NULL procs or nprocs = 0");
            return sys::PMIX_ERR_BAD_PARAM;
        }
        if regcbfunc.is_none() {
            if let Some(st) = would_block("PMIx_IOF_pull") {
                return st;
            }
        }
        // SAFETY: `nprocs` procs and NULL or `ndirs` infos (C contract).
        let (p, d) = match unsafe {
            (
                conv::proc_array_from_c(procs, nprocs),
                infos(directives, ndirs),
            )
        } {
            (Ok(p), Ok(d)) => (p, d),
            (Err(e), _) | (_, Err(e)) => return e.status(),
        };
        let handler: Option<IofHandler> = cbfunc
            .map(|cb| Arc::new(move |id: u64, c: &IofChunk| deliver(cb, id, c)) as IofHandler);
        let Some(reg) = regcbfunc else {
            let r = match t {
                Target::Client(c) => c.iof_pull_wait(p, channel, d, handler),
                Target::Server(s) => {
                    let h = handler.unwrap_or_else(|| Arc::new(|_, _| {}));
                    pmix_core::reactor::wait("PMIx_IOF_pull", None, |done| {
                        s.iof_pull_local(p, channel, h, Box::new(move |r| done.complete(r)))
                    })
                }
            };
            return match r {
                Ok(_) => sys::PMIX_OPERATION_SUCCEEDED,
                Err(e) => status("PMIx_IOF_pull", Err(e)),
            };
        };
        let data = CbData::new(regcbdata);
        let cb: pmix_core::client::Callback<u64> = Box::new(move |r| {
            let (st, id) = match r {
                Ok(id) => (sys::PMIX_SUCCESS, id as usize),
                Err(e) => (e.status(), 0),
            };
            // SAFETY: the caller's callback with its own data.
            unsafe { reg(st, id, data.get()) };
        });
        let r = match t {
            Target::Client(c) => c.iof_pull(p, channel, d, handler, cb),
            Target::Server(s) => {
                let h = handler.unwrap_or_else(|| Arc::new(|_, _| {}));
                s.iof_pull_local(p, channel, h, cb)
            }
        };
        status("PMIx_IOF_pull", r)
    })
}

/// End the registration `iofhdlr` (from `PMIx_IOF_pull`); no chunk for it is handed out
/// once this completes. With `cbfunc`, `cbfunc(status, cbdata)` reports later; without
/// it the call blocks.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (unknown `iofhdlr`), `PMIX_ERR_INIT`,
/// `PMIX_ERR_UNREACH`, `PMIX_ERR_NOT_AVAILABLE`, `PMIX_ERR_WOULD_BLOCK`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `directives` is NULL or points to `ndirs` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_deregister(
    iofhdlr: usize,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_IOF_deregister, {
        let t = match target() {
            Ok(t) => t,
            Err(e) => return e.status(),
        };
        if let Err(e) = pmix_core::reactor::check_serviceable("PMIx_IOF_deregister") {
            return e.status();
        }
        if cbfunc.is_none() {
            if let Some(st) = would_block("PMIx_IOF_deregister") {
                return st;
            }
        }
        let d = match crate::arg!(infos directives, ndirs) {
            Ok(d) => d,
            Err(e) => return e.status(),
        };
        let id = iofhdlr as u64;
        let Some(cb) = cbfunc else {
            let r = match t {
                Target::Client(c) => c.iof_deregister_wait(id, d),
                Target::Server(s) => {
                    pmix_core::reactor::wait("PMIx_IOF_deregister", None, |done| {
                        s.iof_deregister_local(id, Box::new(move |r| done.complete(r)))
                    })
                }
            };
            return status("PMIx_IOF_deregister", r);
        };
        let done = super::ops::op_callback("PMIx_IOF_deregister", cb, cbdata);
        let r = match t {
            Target::Client(c) => c.iof_deregister(id, d, done),
            Target::Server(s) => s.iof_deregister_local(id, done),
        };
        status("PMIx_IOF_deregister", r)
    })
}

/// Send `bo` to the stdin of `targets` (a `PMIX_RANK_WILDCARD` rank: the whole
/// namespace) through the host's `push_stdin`. A NULL `bo` only applies the directives
/// (`PMIX_IOF_PUSH_STDIN`, forwarding our own stdin, is not supported). With `cbfunc`,
/// `cbfunc(status, cbdata)` reports later; without it the call blocks.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (a host without `push_stdin`, or
/// `PMIX_IOF_PUSH_STDIN`), `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`,
/// `PMIX_ERR_NOT_AVAILABLE`, `PMIX_ERR_WOULD_BLOCK`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `targets` is NULL or points to `ntargets` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `bo` is NULL or points to an initialised `pmix_byte_object_t` that the library reads
///   or fills in as described above;
/// - `directives` is NULL or points to `ndirs` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_push(
    targets: *const sys::pmix_proc_t,
    ntargets: usize,
    bo: *mut sys::pmix_byte_object_t,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_IOF_push, {
        let t = match target() {
            Ok(t) => t,
            Err(e) => return e.status(),
        };
        if let Err(e) = pmix_core::reactor::check_serviceable("PMIx_IOF_push") {
            return e.status();
        }
        if cbfunc.is_none() {
            if let Some(st) = would_block("PMIx_IOF_push") {
                return st;
            }
        }
        // SAFETY: NULL or `ntargets` procs / `ndirs` infos (C contract).
        let (p, d) = match unsafe {
            (
                conv::proc_array_from_c(targets, ntargets),
                infos(directives, ndirs),
            )
        } {
            (Ok(p), Ok(d)) => (p, d),
            (Err(e), _) | (_, Err(e)) => return e.status(),
        };
        let data = if bo.is_null() {
            None
        } else {
            // SAFETY: a byte object (C contract).
            let b = unsafe { &*bo };
            if b.bytes.is_null() && b.size > 0 {
                log::warn!(
                    "PMIx_IOF_push: byte object with NULL bytes and size {}",
                    b.size
                );
                return sys::PMIX_ERR_BAD_PARAM;
            }
            // SAFETY: `size` readable bytes (C contract).
            Some(unsafe { conv::bo_from_c(b) })
        };
        let Some(cb) = cbfunc else {
            let r = match t {
                Target::Client(c) => c.iof_push_wait(p, data, d),
                Target::Server(s) => pmix_core::reactor::wait("PMIx_IOF_push", None, |done| {
                    s.iof_push_local(p, d, data, Box::new(move |r| done.complete(r)))
                }),
            };
            return status("PMIx_IOF_push", r);
        };
        let done = super::ops::op_callback("PMIx_IOF_push", cb, cbdata);
        let r = match t {
            Target::Client(c) => c.iof_push(p, data, d, done),
            Target::Server(s) => s.iof_push_local(p, d, data, done),
        };
        status("PMIx_IOF_push", r)
    })
}
