//! `PMIx_Connect`, `PMIx_Connect_nb`, `PMIx_Disconnect`, `PMIx_Disconnect_nb`.

use super::ops::{blocking, check_procs, nonblocking, op_callback};
use core::ffi::c_void;
use pmix_sys as sys;

/// `args!(call, procs, nprocs, info, ninfo)`: the participants (required) and directives
/// of a connect or disconnect, in exports whose contract makes `procs`/`info` NULL or
/// `nprocs`/`ninfo` readable elements.
macro_rules! args {
    ($call:expr, $procs:expr, $nprocs:expr, $info:expr, $ninfo:expr) => {
        check_procs($call, $procs.is_null(), $nprocs)
            .and_then(|()| crate::arg!(procs $procs, $nprocs))
            .and_then(|p| Ok((p, crate::arg!(infos $info, $ninfo)?)))
    };
}

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
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Connect, {
        blocking("PMIx_Connect", |c| {
            let (p, i) = args!("PMIx_Connect", procs, nprocs, info, ninfo)?;
            c.connect_procs(p, &i).map(|()| sys::PMIX_SUCCESS)
        })
    })
}

/// Non-blocking connect: `cbfunc(status, cbdata)` runs once on the progress thread when
/// the connect completes (only if this call returned `PMIX_SUCCESS`). A NULL `cbfunc`
/// makes the call blocking. `procs` and `info` must stay valid until the callback.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or an error as for `PMIx_Connect` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
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
            return blocking("PMIx_Connect", |c| {
                let (p, i) = args!("PMIx_Connect", procs, nprocs, info, ninfo)?;
                c.connect_procs(p, &i).map(|()| sys::PMIX_SUCCESS)
            });
        };
        nonblocking("PMIx_Connect_nb", |c| {
            let (p, i) = args!("PMIx_Connect_nb", procs, nprocs, info, ninfo)?;
            c.connect_procs_nb(p, &i, op_callback("PMIx_Connect_nb", cb, cbdata))
        })
    })
}

/// Dissolve a connection made with `PMIx_Connect` (collective over `procs`, described
/// the same way as for the connect). The job data of the other namespaces is dropped.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INVALID_OPERATION` (the list was never connected),
/// `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_NOT_A_MEMBER`, `PMIX_ERR_EXISTS`, `PMIX_ERR_TIMEOUT`,
/// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Disconnect, {
        blocking("PMIx_Disconnect", |c| {
            let (p, i) = args!("PMIx_Disconnect", procs, nprocs, info, ninfo)?;
            c.disconnect_procs(p, &i).map(|()| sys::PMIX_SUCCESS)
        })
    })
}

/// Non-blocking disconnect (see `PMIx_Connect_nb` for the callback rules).
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or an error as for `PMIx_Disconnect` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
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
            return blocking("PMIx_Disconnect", |c| {
                let (p, i) = args!("PMIx_Disconnect", procs, nprocs, info, ninfo)?;
                c.disconnect_procs(p, &i).map(|()| sys::PMIX_SUCCESS)
            });
        };
        nonblocking("PMIx_Disconnect_nb", |c| {
            let (p, i) = args!("PMIx_Disconnect_nb", procs, nprocs, info, ninfo)?;
            c.disconnect_procs_nb(p, &i, op_callback("PMIx_Disconnect_nb", cb, cbdata))
        })
    })
}
