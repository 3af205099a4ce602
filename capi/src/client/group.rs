//! `PMIx_Group_construct`, `_invite`, `_join`, `_leave`, `_destruct` and their `_nb`
//! forms.

use super::ops::{blocking, info_callback, nonblocking, op_callback, would_block};
use super::query::store_results;
use core::ffi::{c_char, c_void};
use pmix_sys as sys;

/// The group name (NULL or not UTF-8 → `PMIX_ERR_BAD_PARAM`).
fn name_of(grp: Option<&[u8]>) -> pmix_core::Result<String> {
    match grp {
        Some(b) => {
            String::from_utf8(b.to_vec()).map_err(|_| pmix_core::Error::bad_param("group name"))
        }
        None => {
            log::warn!("PMIx_Group: NULL group name");
            Err(pmix_core::Error::bad_param("NULL group name"))
        }
    }
}

/// `args!(grp, procs, nprocs, info, ninfo)`: name, members and directives, in exports
/// whose contract makes `grp` NULL or a C string and `procs`/`info` NULL or
/// `nprocs`/`ninfo` readable elements.
macro_rules! args {
    ($grp:expr, $procs:expr, $nprocs:expr, $info:expr, $ninfo:expr) => {
        name_of(crate::arg!(cbytes $grp)).and_then(|g| {
            Ok((
                g,
                crate::arg!(procs $procs, $nprocs)?,
                crate::arg!(infos $info, $ninfo)?,
            ))
        })
    };
}

/// Build group `grp` from `procs` (collective: every member calls; added members pass
/// NULL procs). Results (`PMIX_GROUP_ID`, `PMIX_GROUP_MEMBERSHIP`,
/// `PMIX_GROUP_CONTEXT_ID`) go to `*results` (may be NULL; release with `PMIX_INFO_FREE`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_NOT_A_MEMBER`, `PMIX_ERR_EXISTS`,
/// `PMIX_GROUP_CONSTRUCT_ABORT`, `PMIX_ERR_TIMEOUT`, `PMIX_ERR_WOULD_BLOCK`,
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `directives` is NULL or points to `ndirs` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership);
/// - `results` is NULL or a writable `pmix_info_t *` slot (what the library stores there is
///   described above);
/// - `nresults` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct(
    grp: *const c_char,
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    results: *mut *mut sys::pmix_info_t,
    nresults: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_construct, {
        blocking("PMIx_Group_construct", |c| {
            let (g, p, i) = args!(grp, procs, nprocs, directives, ndirs)?;
            let res = c.group_construct(&g, p, &i)?;
            Ok(store_results!(&res, results, nresults))
        })
    })
}

/// Non-blocking construct: `cbfunc(status, results, n, cbdata, release_fn,
/// release_cbdata)` once the group is built.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or as `PMIx_Group_construct` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
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
pub unsafe extern "C" fn PMIx_Group_construct_nb(
    grp: *const c_char,
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_construct_nb, {
        nonblocking("PMIx_Group_construct_nb", |c| {
            if cbfunc.is_none() {
                if let Some(st) = would_block("PMIx_Group_construct_nb") {
                    return Err(pmix_core::Error::new(st, "no callback"));
                }
            }
            let (g, p, i) = args!(grp, procs, nprocs, info, ninfo)?;
            c.group_construct_nb(&g, p, &i, info_callback(cbfunc, cbdata))
        })
    })
}

/// Invite `procs` into group `grp`, led by the caller; returns once every invitee
/// answered (results as for construct).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_GROUP_CONSTRUCT_ABORT` (someone declined and the group is not
/// `PMIX_GROUP_OPTIONAL`), `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_EXISTS`,
/// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
/// - `procs` is NULL or points to `nprocs` initialised `pmix_proc_t`s (read during the
///   call; the caller keeps ownership);
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
/// - `results` is NULL or a writable `pmix_info_t *` slot (what the library stores there is
///   described above);
/// - `nresult` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite(
    grp: *const c_char,
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    results: *mut *mut sys::pmix_info_t,
    nresult: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_invite, {
        blocking("PMIx_Group_invite", |c| {
            let (g, p, i) = args!(grp, procs, nprocs, info, ninfo)?;
            let res = c.group_invite(&g, p, &i)?;
            Ok(store_results!(&res, results, nresult))
        })
    })
}

/// Non-blocking invite (`cbfunc` is required).
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), `PMIX_ERR_BAD_PARAM` (NULL `cbfunc`), or as
/// `PMIx_Group_invite`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
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
pub unsafe extern "C" fn PMIx_Group_invite_nb(
    grp: *const c_char,
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_invite_nb, {
        nonblocking("PMIx_Group_invite_nb", |c| {
            if cbfunc.is_none() {
                log::warn!("PMIx_Group_invite_nb: NULL cbfunc");
                return Err(pmix_core::Error::bad_param("NULL cbfunc"));
            }
            let (g, p, i) = args!(grp, procs, nprocs, info, ninfo)?;
            c.group_invite_nb(&g, p, &i, info_callback(cbfunc, cbdata))
        })
    })
}

/// `join_args!(grp, leader, info, ninfo)`: name, optional leader and directives (the
/// contract as for `args!`, `leader` NULL or a readable proc).
macro_rules! join_args {
    ($grp:expr, $leader:expr, $info:expr, $ninfo:expr) => {
        name_of(crate::arg!(cbytes $grp)).and_then(|g| {
            let l = if $leader.is_null() {
                None
            } else {
                Some(crate::arg!(proc $leader)?)
            };
            Ok((g, l, crate::arg!(infos $info, $ninfo)?))
        })
    };
}

/// Answer an invitation to `grp` (`opt`: `PMIX_GROUP_ACCEPT` or `PMIX_GROUP_DECLINE`).
/// Accepting returns once the group formed (results as for construct); declining at once.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_FOUND` (no such invitation), `PMIX_GROUP_CONSTRUCT_ABORT`,
/// `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
/// - `leader` is NULL or points to an initialised `pmix_proc_t` (only read);
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
/// - `results` is NULL or a writable `pmix_info_t *` slot (what the library stores there is
///   described above);
/// - `nresult` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join(
    grp: *const c_char,
    leader: *const sys::pmix_proc_t,
    opt: sys::pmix_group_opt_t,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    results: *mut *mut sys::pmix_info_t,
    nresult: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_join, {
        blocking("PMIx_Group_join", |c| {
            let (g, l, i) = join_args!(grp, leader, info, ninfo)?;
            let res = c.group_join(&g, l.as_ref(), opt == sys::PMIX_GROUP_ACCEPT, &i)?;
            Ok(store_results!(&res, results, nresult))
        })
    })
}

/// Non-blocking join (the form to use inside the `PMIX_GROUP_INVITED` handler).
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or as `PMIx_Group_join` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
/// - `leader` is NULL or points to an initialised `pmix_proc_t` (only read);
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
pub unsafe extern "C" fn PMIx_Group_join_nb(
    grp: *const c_char,
    leader: *const sys::pmix_proc_t,
    opt: sys::pmix_group_opt_t,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_join_nb, {
        nonblocking("PMIx_Group_join_nb", |c| {
            let (g, l, i) = join_args!(grp, leader, info, ninfo)?;
            let accept = opt == sys::PMIX_GROUP_ACCEPT;
            c.group_join_nb(&g, l.as_ref(), accept, &i, info_callback(cbfunc, cbdata))
        })
    })
}

/// Leave group `grp` (the other members hear `PMIX_GROUP_LEFT`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_NOT_A_MEMBER`, `PMIX_ERR_BAD_PARAM`,
/// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave(
    grp: *const c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_leave, {
        blocking("PMIx_Group_leave", |c| {
            let (g, _, i) = args!(grp, core::ptr::null(), 0, info, ninfo)?;
            c.group_leave(&g, &i).map(|()| sys::PMIX_SUCCESS)
        })
    })
}

/// Non-blocking leave.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or as `PMIx_Group_leave` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
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
pub unsafe extern "C" fn PMIx_Group_leave_nb(
    grp: *const c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_leave_nb, {
        let Some(cb) = cbfunc else {
            return blocking("PMIx_Group_leave", |c| {
                let (g, _, i) = args!(grp, core::ptr::null(), 0, info, ninfo)?;
                c.group_leave(&g, &i).map(|()| sys::PMIX_SUCCESS)
            });
        };
        nonblocking("PMIx_Group_leave_nb", |c| {
            let (g, _, i) = args!(grp, core::ptr::null(), 0, info, ninfo)?;
            c.group_leave_nb(&g, &i, op_callback("PMIx_Group_leave_nb", cb, cbdata))
        })
    })
}

/// Destruct group `grp` (collective over its members).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_NOT_A_MEMBER`,
/// `PMIX_ERR_LOST_CONNECTION` (a member was lost and `PMIX_GROUP_NOTIFY_TERMINATION`
/// was not given), `PMIX_ERR_TIMEOUT`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_WOULD_BLOCK`,
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct(
    grp: *const c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_destruct, {
        blocking("PMIx_Group_destruct", |c| {
            let (g, _, i) = args!(grp, core::ptr::null(), 0, info, ninfo)?;
            c.group_destruct(&g, &i).map(|()| sys::PMIX_SUCCESS)
        })
    })
}

/// Non-blocking destruct.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or as `PMIx_Group_destruct` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `grp` is NULL or a NUL-terminated string the library only reads;
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct_nb(
    grp: *const c_char,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Group_destruct_nb, {
        let Some(cb) = cbfunc else {
            return blocking("PMIx_Group_destruct", |c| {
                let (g, _, i) = args!(grp, core::ptr::null(), 0, info, ninfo)?;
                c.group_destruct(&g, &i).map(|()| sys::PMIX_SUCCESS)
            });
        };
        nonblocking("PMIx_Group_destruct_nb", |c| {
            let (g, _, i) = args!(grp, core::ptr::null(), 0, info, ninfo)?;
            c.group_destruct_nb(&g, &i, op_callback("PMIx_Group_destruct_nb", cb, cbdata))
        })
    })
}
