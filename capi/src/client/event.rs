//! `PMIx_Register_event_handler`, `PMIx_Deregister_event_handler`, `PMIx_Notify_event`.
//!
//! Handlers registered in a client process go to its client; in a process that only runs
//! a server (`PMIx_server_init` without `PMIx_Init`, e.g. a launcher) they go to the
//! server. Either way they run on the progress thread, one after the other along the
//! chain `pmix_core::event` describes: each must call the completion function it was
//! given, whose status (`PMIX_EVENT_ACTION_COMPLETE` ends the chain) and results go on
//! to the next handler.

use super::ops::would_block;
use super::{status, CbData};
use crate::conv;
use core::ffi::c_void;
use pmix_core::client::global;
use pmix_core::event::{ChainHandler, Done, Event, HandlerOpts};
use pmix_core::server::global as server_global;
use pmix_core::Info;
use pmix_sys as sys;
use std::sync::Arc;

/// Runs a completion on the progress thread of the client or server that took the call.
type Poster = Box<dyn Fn(Box<dyn FnOnce() + Send>) -> pmix_core::Result<()>>;

/// Who takes an event call in this process: the client `PMIx_Init` made, else the
/// server (a launcher or daemon that called only `PMIx_server_init`: its handlers and
/// its notifications belong to the server, which delivers to its clients and its own
/// handlers), else a server's local view of itself or a singleton (`global::client`).
enum Events {
    Client(pmix_core::client::Client),
    Server(Arc<pmix_core::server::Server>),
}

fn events() -> Option<Events> {
    if let Some(c) = global::initialized_client() {
        Some(Events::Client(c))
    } else if let Ok(s) = server_global::server() {
        Some(Events::Server(s))
    } else {
        global::client().ok().map(Events::Client)
    }
}

/// What one handler invocation owns until the handler reports completion.
struct EvCall {
    source: sys::pmix_proc_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    results: *mut sys::pmix_info_t,
    nresults: usize,
    done: Done,
}

/// The completion a C event handler calls: passes its status and results on along the
/// chain, releases what we lent it, then lets the handler release its results.
unsafe extern "C" fn ev_done(
    st: sys::pmix_status_t,
    results: *mut sys::pmix_info_t,
    nresults: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    thiscbdata: *mut c_void,
    notification_cbdata: *mut c_void,
) {
    crate::ffi_value!(ev_done, (), {
        let res = crate::arg!(infos results, nresults).unwrap_or_else(|e| {
            log::warn!("event handler results unreadable: {}", e);
            Vec::new()
        });
        if let Some(f) = cbfunc {
            // SAFETY: the handler's own release callback and data.
            unsafe { f(sys::PMIX_SUCCESS, thiscbdata) };
        }
        if notification_cbdata.is_null() {
            return;
        }
        // SAFETY: we made this box in `c_handler`; the handler calls us once.
        let call = unsafe { Box::from_raw(notification_cbdata as *mut EvCall) };
        let EvCall {
            info,
            ninfo,
            results,
            nresults,
            done,
            ..
        } = *call;
        // Handlers read their arrays after calling us (OpenPMIx's fault example reads
        // PMIX_EVENT_AFFECTED_PROC then): release them on the progress thread, after
        // the handler has returned, as OpenPMIx does.
        let lent = LentArrays {
            info,
            ninfo,
            results,
            nresults,
        };
        done(st, res);
        let release = move || drop(lent);
        // A refused post drops the closure, and with it `lent`: freed at once then.
        let _ = match events() {
            Some(Events::Client(c)) => c.run_on_progress(release),
            Some(Events::Server(s)) => s.run_on_progress(release),
            None => {
                release();
                Ok(())
            }
        };
    })
}

/// The info and results arrays lent to one handler invocation; freed when dropped.
struct LentArrays {
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    results: *mut sys::pmix_info_t,
    nresults: usize,
}

// SAFETY: the arrays are our own malloc'd copies (made in `c_handler`), reachable only
// through this value once the handler has completed; freeing them on another thread is
// what malloc allows.
unsafe impl Send for LentArrays {}

impl Drop for LentArrays {
    fn drop(&mut self) {
        // SAFETY: our malloc'd arrays of these lengths, freed once (here).
        unsafe {
            conv::info_array_free(self.info, self.ninfo);
            conv::info_array_free(self.results, self.nresults);
        }
    }
}

type CHandler = unsafe extern "C" fn(
    usize,
    sys::pmix_status_t,
    *const sys::pmix_proc_t,
    *mut sys::pmix_info_t,
    usize,
    *mut sys::pmix_info_t,
    usize,
    sys::pmix_event_notification_cbfunc_fn_t,
    *mut c_void,
);

fn c_handler(f: CHandler) -> ChainHandler {
    Arc::new(move |id: usize, ev: &Event, prior: Vec<Info>, done: Done| {
        let (info, ninfo) = conv::info_array_to_c(&ev.info).unwrap_or((core::ptr::null_mut(), 0));
        let (results, nresults) =
            conv::info_array_to_c(&prior).unwrap_or((core::ptr::null_mut(), 0));
        // SAFETY: an all-zero pmix_proc_t is a valid (empty) proc.
        let mut source: sys::pmix_proc_t = unsafe { core::mem::zeroed() };
        conv::proc_to_c(&ev.source, &mut source);
        let call = Box::into_raw(Box::new(EvCall {
            source,
            info,
            ninfo,
            results,
            nresults,
            done,
        }));
        // SAFETY: the caller's handler with arguments that stay valid until it calls
        // `ev_done` (they live in `call`).
        unsafe {
            f(
                id,
                ev.status,
                &(*call).source,
                info,
                ninfo,
                results,
                nresults,
                Some(ev_done),
                call as *mut c_void,
            )
        }
    })
}

/// Register `evhdlr` for `codes` (NULL/0: a default handler), placed and filtered by the
/// directives in `info` (`PMIX_EVENT_HDLR_NAME`, `..._FIRST`, `..._LAST`,
/// `..._FIRST_IN_CATEGORY`, `..._LAST_IN_CATEGORY`, `..._PREPEND`, `..._APPEND`,
/// `..._BEFORE`, `..._AFTER`, `PMIX_EVENT_AFFECTED_PROC(S)`, `PMIX_EVENT_ONESHOT`,
/// `PMIX_EVENT_RETURN_OBJECT`). With `cbfunc`, the id arrives as
/// `cbfunc(PMIX_SUCCESS, id, cbdata)` on the progress thread and the call returns
/// `PMIX_SUCCESS`; without, the id is the (non-negative) return value.
///
/// # Returns
/// The id or `PMIX_SUCCESS`, `PMIX_ERR_EVENT_REGISTRATION` (position taken, no handler
/// of the given name), `PMIX_ERR_BAD_PARAM` (NULL `evhdlr`, NULL `codes` with
/// `ncodes > 0`), `PMIX_ERR_WOULD_BLOCK` (blocking form on the progress thread),
/// `PMIX_ERR_INIT` (neither client nor server initialized).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `codes` is NULL or points to `ncodes` initialised `pmix_status_t`s that the caller may
///   write through;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s that the caller may
///   write through;
/// - `evhdlr` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`evhdlr`, `cbfunc`, `cbdata`) are kept: a handler until it
/// is deregistered, a completion callback until it has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_event_handler(
    codes: *mut sys::pmix_status_t,
    ncodes: usize,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    evhdlr: sys::pmix_notification_fn_t,
    cbfunc: sys::pmix_hdlr_reg_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Register_event_handler, {
        let Some(f) = evhdlr else {
            log::warn!("PMIx_Register_event_handler: NULL handler");
            return sys::PMIX_ERR_BAD_PARAM;
        };
        if codes.is_null() && ncodes > 0 {
            return sys::PMIX_ERR_BAD_PARAM;
        }
        if cbfunc.is_none() {
            if let Some(st) = would_block("PMIx_Register_event_handler") {
                return st;
            }
        }
        let codes = if codes.is_null() {
            Vec::new()
        } else {
            // SAFETY: `ncodes` readable statuses (C contract).
            unsafe { core::slice::from_raw_parts(codes, ncodes) }.to_vec()
        };
        let opts = match crate::arg!(infos info, ninfo) {
            Ok(i) => HandlerOpts::from_info(&i),
            Err(e) => return e.status(),
        };
        let h = c_handler(f);
        let mut replay = None;
        let (r, post): (_, Poster) = match events() {
            Some(Events::Client(c)) => {
                replay = Some(c.clone());
                (
                    c.register_chain_handler(codes, opts, h),
                    Box::new(move |g| c.run_on_progress(g)),
                )
            }
            Some(Events::Server(s)) => (
                s.register_chain_handler(codes, opts, h),
                Box::new(move |g| s.run_on_progress(g)),
            ),
            None => return sys::PMIX_ERR_INIT,
        };
        // Events kept for a late handler reach it after its registration callback.
        let replay = |id: usize| {
            if let Some(c) = &replay {
                c.replay_kept_events(id);
            }
        };
        let Some(cb) = cbfunc else {
            return match r {
                Ok(id) => {
                    replay(id);
                    sys::pmix_status_t::try_from(id).unwrap_or(sys::PMIX_ERROR)
                }
                Err(e) => e.status(),
            };
        };
        let (st, id) = match r {
            Ok(id) => (sys::PMIX_SUCCESS, id),
            Err(e) => (e.status(), 0),
        };
        let data = CbData::new(cbdata);
        // SAFETY: the caller's callback with its own cbdata (C contract).
        let r = post(Box::new(move || unsafe { cb(st, id, data.get()) }));
        if st == sys::PMIX_SUCCESS {
            replay(id);
        }
        status("PMIx_Register_event_handler", r)
    })
}

/// Remove a handler registered with `PMIx_Register_event_handler`.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_FOUND` (unknown id), `PMIX_ERR_INIT`. With `cbfunc`, the
/// result goes to `cbfunc(status, cbdata)` on the progress thread and the call returns
/// `PMIX_SUCCESS`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Deregister_event_handler(
    evhdlr_ref: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Deregister_event_handler, {
        let data = CbData::new(cbdata);
        let (r, post): (_, Poster) = match events() {
            Some(Events::Client(c)) => (
                c.deregister_event_handler(evhdlr_ref),
                Box::new(move |g| c.run_on_progress(g)),
            ),
            Some(Events::Server(s)) => (
                s.deregister_event_handler(evhdlr_ref),
                Box::new(move |g| s.run_on_progress(g)),
            ),
            None => return sys::PMIX_ERR_INIT,
        };
        let st = status("PMIx_Deregister_event_handler", r);
        match cbfunc {
            // SAFETY: the caller's callback with its own cbdata (C contract).
            Some(cb) => status(
                "PMIx_Deregister_event_handler",
                post(Box::new(move || unsafe { cb(st, data.get()) })),
            ),
            None => st,
        }
    })
}

/// Raise event `status_code` over `range`: a client delivers it to its own handlers
/// (unless the range is `PMIX_RANGE_RM` or a custom range leaving it out) and, unless
/// the range is `PMIX_RANGE_PROC_LOCAL`, to its server, which passes it to the local
/// clients in range and, for wider ranges, to its host. A server process delivers it to
/// its clients in range and its own handlers. `cbfunc(status, cbdata)` runs once the
/// local part is done; NULL `cbfunc` makes the call blocking.
///
/// # Returns
/// `PMIX_SUCCESS` (with `cbfunc`: called with the result on the progress thread),
/// `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_UNREACH`, `PMIX_ERR_WOULD_BLOCK`
/// (blocking form on the progress thread).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `source` is NULL or points to an initialised `pmix_proc_t` (only read);
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
pub unsafe extern "C" fn PMIx_Notify_event(
    status_code: sys::pmix_status_t,
    source: *const sys::pmix_proc_t,
    range: sys::pmix_data_range_t,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Notify_event, {
        let Some(target) = events() else {
            return sys::PMIX_ERR_INIT;
        };
        if cbfunc.is_none() {
            if let Some(st) = would_block("PMIx_Notify_event") {
                return st;
            }
        }
        let info = match crate::arg!(infos info, ninfo) {
            Ok(i) => i,
            Err(e) => return e.status(),
        };
        let data = CbData::new(cbdata);
        let (r, post): (_, Poster) = match target {
            Events::Client(c) => (
                c.notify_event(status_code, range, info),
                Box::new(move |g| c.run_on_progress(g)),
            ),
            Events::Server(s) => {
                let src = if source.is_null() {
                    s.id().clone()
                } else {
                    match crate::arg!(proc source) {
                        Ok(p) => p,
                        Err(e) => return e.status(),
                    }
                };
                (
                    s.notify_event_range(status_code, &src, range, info),
                    Box::new(move |g| s.run_on_progress(g)),
                )
            }
        };
        let st = status("PMIx_Notify_event", r);
        match cbfunc {
            // SAFETY: the caller's callback with its own cbdata (C contract).
            Some(cb) if st == sys::PMIX_SUCCESS => status(
                "PMIx_Notify_event",
                post(Box::new(move || unsafe { cb(st, data.get()) })),
            ),
            _ => st,
        }
    })
}
