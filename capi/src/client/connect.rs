//! `PMIx_Connect`, `PMIx_Connect_nb`, `PMIx_Disconnect`, `PMIx_Disconnect_nb`.

use super::ops::{infos, op_callback, required_procs, started, would_block};
use super::status;
use core::ffi::c_void;
use pmix_core::client::global;
use pmix_sys as sys;

/// Connect the processes in `procs` (the caller among them; a rank of
/// `PMIX_RANK_WILDCARD` names a whole namespace; group ids are expanded). Returns once all
/// of them have called `PMIx_Connect`/`_nb`; afterwards the other namespaces' job data and
/// the other participants' endpoint data are available locally.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL `procs` or `nprocs` 0),
/// `PMIX_ERR_NOT_A_MEMBER`, `PMIX_ERR_EXISTS` (already in a connect over the identical
/// list), `PMIX_ERR_TIMEOUT` (`PMIX_TIMEOUT`), `PMIX_ERR_PROC_TERM_WO_SYNC` (a
/// participant ended), `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Connect, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        if let Some(st) = would_block("PMIx_Connect") {
            return st;
        }
        // SAFETY: forwarded C contract.
        let args = unsafe { required_procs("PMIx_Connect", procs, nprocs) }
            // SAFETY: as above.
            .and_then(|p| Ok((p, unsafe { infos(info, ninfo) }?)));
        match args {
            Ok((p, i)) => status("PMIx_Connect", c.connect_procs(p, &i)),
            Err(e) => e.status(),
        }
    })
}

/// Non-blocking connect: `cbfunc(status, cbdata)` runs once on the progress thread when
/// the connect completes (only if this call returned `PMIX_SUCCESS`). A NULL `cbfunc`
/// makes the call blocking. `procs` and `info` must stay valid until the callback.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or an error as for `PMIx_Connect` (no callback).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect_nb(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Connect_nb, {
        let Some(cb) = cbfunc else {
            // SAFETY: forwarded C contract.
            return unsafe { PMIx_Connect(procs, nprocs, info, ninfo) };
        };
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        // SAFETY: forwarded C contract.
        let args = unsafe { required_procs("PMIx_Connect_nb", procs, nprocs) }
            // SAFETY: as above.
            .and_then(|p| Ok((p, unsafe { infos(info, ninfo) }?)));
        match args {
            Ok((p, i)) => started(
                "PMIx_Connect_nb",
                c.connect_procs_nb(p, &i, op_callback("PMIx_Connect_nb", cb, cbdata)),
            ),
            Err(e) => e.status(),
        }
    })
}

/// Dissolve a connection made with `PMIx_Connect` (collective over `procs`, described
/// the same way as for the connect). The job data of the other namespaces is dropped.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INVALID_OPERATION` (the list was never connected),
/// `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_NOT_A_MEMBER`, `PMIX_ERR_EXISTS`, `PMIX_ERR_TIMEOUT`,
/// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Disconnect, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        if let Some(st) = would_block("PMIx_Disconnect") {
            return st;
        }
        // SAFETY: forwarded C contract.
        let args = unsafe { required_procs("PMIx_Disconnect", procs, nprocs) }
            // SAFETY: as above.
            .and_then(|p| Ok((p, unsafe { infos(info, ninfo) }?)));
        match args {
            Ok((p, i)) => status("PMIx_Disconnect", c.disconnect_procs(p, &i)),
            Err(e) => e.status(),
        }
    })
}

/// Non-blocking disconnect (see `PMIx_Connect_nb` for the callback rules).
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or an error as for `PMIx_Disconnect` (no callback).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect_nb(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Disconnect_nb, {
        let Some(cb) = cbfunc else {
            // SAFETY: forwarded C contract.
            return unsafe { PMIx_Disconnect(procs, nprocs, info, ninfo) };
        };
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        // SAFETY: forwarded C contract.
        let args = unsafe { required_procs("PMIx_Disconnect_nb", procs, nprocs) }
            // SAFETY: as above.
            .and_then(|p| Ok((p, unsafe { infos(info, ninfo) }?)));
        match args {
            Ok((p, i)) => started(
                "PMIx_Disconnect_nb",
                c.disconnect_procs_nb(p, &i, op_callback("PMIx_Disconnect_nb", cb, cbdata)),
            ),
            Err(e) => e.status(),
        }
    })
}
