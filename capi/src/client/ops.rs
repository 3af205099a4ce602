//! Pieces shared by the exports of the dynamic operations (connect, spawn, publish,
//! queries, groups, …): argument reading, the blocking-call check and the wrapping of a
//! C `pmix_op_cbfunc_t` as an engine callback.

use super::{status, CbData};
use core::ffi::c_void;
use pmix_core::client::{global, Callback, Client};
use pmix_core::{Info, ProcId};
use pmix_sys as sys;

/// `Some(PMIX_ERR_WOULD_BLOCK)` (with the diagnostic naming `call`) when a blocking form
/// is called on the progress thread.
pub fn would_block(call: &str) -> Option<sys::pmix_status_t> {
    pmix_core::reactor::would_block(call)
        .err()
        .map(|e| status(call, Err::<(), _>(e)))
}

/// Read a participant list that must not be empty (NULL or 0 → `PMIX_ERR_BAD_PARAM`).
///
/// # Safety
/// `procs` is NULL or points to `nprocs` readable procs.
pub unsafe fn required_procs(
    call: &str,
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
) -> pmix_core::Result<Vec<ProcId>> {
    check_procs(call, procs.is_null(), nprocs)?;
    crate::arg!(procs procs, nprocs)
}

/// The check of [`required_procs`] before the conversion: a NULL or empty procs array is
/// `PMIX_ERR_BAD_PARAM` (logged).
pub fn check_procs(call: &str, is_null: bool, nprocs: usize) -> pmix_core::Result<()> {
    if is_null || nprocs == 0 {
        log::warn!("{}: NULL procs or nprocs = 0", call);
        return Err(pmix_core::Error::bad_param(format!(
            "{} needs a non-empty procs array",
            call
        )));
    }
    Ok(())
}

/// Read an info array (NULL with 0 is empty).
///
/// # Safety
/// `info` is NULL or points to `ninfo` readable infos.
pub unsafe fn infos(info: *const sys::pmix_info_t, ninfo: usize) -> pmix_core::Result<Vec<Info>> {
    crate::arg!(infos info, ninfo)
}

/// An engine callback that calls the C `cbfunc(status, cbdata)` once.
pub fn op_callback(
    call: &'static str,
    cb: unsafe extern "C" fn(sys::pmix_status_t, *mut c_void),
    cbdata: *mut c_void,
) -> Callback<()> {
    let data = CbData::new(cbdata);
    Box::new(move |r| {
        let st = status(call, r);
        // SAFETY: the caller's callback with its own cbdata (C contract).
        unsafe { cb(st, data.get()) }
    })
}

/// An engine callback that hands the results to a C info callback (none: nothing runs);
/// what it receives is freed when it returns.
pub fn info_callback(cb: sys::pmix_info_cbfunc_t, cbdata: *mut c_void) -> Callback<Vec<Info>> {
    let data = CbData::new(cbdata);
    Box::new(move |r| {
        let Some(cb) = cb else { return };
        match r {
            Ok(res) => super::query::call_info_cb(cb, data, sys::PMIX_SUCCESS, &res),
            Err(e) => super::query::call_info_cb(cb, data, e.status(), &[]),
        }
    })
}

/// The status of starting a non-blocking call (its callback runs only on success).
pub fn started(call: &str, r: pmix_core::Result<()>) -> sys::pmix_status_t {
    status(call, r)
}

/// The frame of a blocking export: the initialised client (`PMIX_ERR_INIT` without
/// one), `PMIX_ERR_WOULD_BLOCK` on the progress thread, then `body`, whose error becomes
/// the export's status.
pub fn blocking(
    call: &str,
    body: impl FnOnce(&Client) -> pmix_core::Result<sys::pmix_status_t>,
) -> sys::pmix_status_t {
    let c = match global::client() {
        Ok(c) => c,
        Err(e) => return e.status(),
    };
    if let Some(st) = would_block(call) {
        return st;
    }
    body(&c).unwrap_or_else(|e| status(call, Err(e)))
}

/// The frame of a non-blocking export: the initialised client (`PMIX_ERR_INIT` without
/// one), then `body`, which starts the call (its callback runs only when this returns
/// `PMIX_SUCCESS`).
pub fn nonblocking(
    call: &str,
    body: impl FnOnce(&Client) -> pmix_core::Result<()>,
) -> sys::pmix_status_t {
    match global::client() {
        Ok(c) => started(call, body(&c)),
        Err(e) => e.status(),
    }
}
