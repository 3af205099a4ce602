//! `PMIx_Query_info`, `PMIx_Query_info_nb`, `PMIx_Resolve_peers`, `PMIx_Resolve_nodes`,
//! `PMIx_Log`, `PMIx_Log_nb`.

use super::ops::{op_callback, started, would_block};
use super::{status, CbData};
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::client::global;
use pmix_core::{Info, Nspace, Query};
use pmix_sys as sys;

/// Read the queries (NULL or 0 → `PMIX_ERR_BAD_PARAM`).
unsafe fn queries(q: *mut sys::pmix_query_t, n: usize) -> pmix_core::Result<Vec<Query>> {
    if q.is_null() || n == 0 {
        log::warn!("PMIx_Query_info: NULL queries or nqueries = 0");
        return Err(pmix_core::Error::bad_param("no queries"));
    }
    // SAFETY: `n` initialised queries (C contract).
    unsafe { conv::query_array_from_c(q, n) }
}

/// The answer to queries that ask only for the ABI levels (`PMIX_QUERY_STABLE_ABI_VERSION`,
/// `PMIX_QUERY_PROVISIONAL_ABI_VERSION`), which need no server: one info per key, named by
/// the key, as OpenPMIx answers them before `PMIx_Init`. None if any other key is asked.
fn abi_only(qs: &[Query]) -> Option<Vec<Info>> {
    let mut out = Vec::new();
    for q in qs {
        for k in q.keys.as_deref().filter(|k| !k.is_empty())? {
            use sys::attrs::keys::{
                PMIX_QUERY_PROVISIONAL_ABI_VERSION as PROV, PMIX_QUERY_STABLE_ABI_VERSION as STAB,
            };
            let key = std::str::from_utf8(k).ok()?;
            let v = match key {
                STAB => sys::PMIX_STD_ABI_STABLE_VERSION,
                PROV => sys::PMIX_STD_ABI_PROVISIONAL_VERSION,
                _ => return None,
            };
            out.push(Info::new(key, pmix_core::Value::string(v)).ok()?);
        }
    }
    Some(out)
}

/// A malloc'd info array lent to an info callback, freed by its release function.
struct Lent {
    info: *mut sys::pmix_info_t,
    n: usize,
}

unsafe extern "C" fn release_lent(cbdata: *mut c_void) {
    crate::ffi_value!(release_lent, (), {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box, released once by the caller.
        let l = unsafe { Box::from_raw(cbdata as *mut Lent) };
        // SAFETY: our malloc'd array.
        unsafe { conv::info_array_free(l.info, l.n) };
    })
}

/// Call an info callback with `res` (the caller releases the array through
/// `release_fn`, or it is freed when the callback returns without one).
pub(crate) fn call_info_cb(
    cb: unsafe extern "C" fn(
        sys::pmix_status_t,
        *mut sys::pmix_info_t,
        usize,
        *mut c_void,
        sys::pmix_release_cbfunc_t,
        *mut c_void,
    ),
    data: CbData,
    st: sys::pmix_status_t,
    res: &[Info],
) {
    match conv::info_array_to_c(res) {
        Ok((p, n)) => {
            let lent = Box::into_raw(Box::new(Lent { info: p, n }));
            // SAFETY: the caller's callback; the array stays valid until release_lent.
            unsafe {
                cb(
                    st,
                    p,
                    n,
                    data.get(),
                    Some(release_lent),
                    lent as *mut c_void,
                )
            }
        }
        Err(e) => {
            // SAFETY: as above, with no data.
            unsafe {
                cb(
                    e.status(),
                    core::ptr::null_mut(),
                    0,
                    data.get(),
                    None,
                    core::ptr::null_mut(),
                )
            }
        }
    }
}

/// `store_results!(res, results, nresults)`: store `res` in the caller's
/// `*results`/`*nresults` (either may be NULL) and give the status. For exports whose
/// `# Safety` contract makes `results` and `nresults` NULL or writable slots.
macro_rules! store_results {
    ($res:expr, $results:expr, $nresults:expr) => {{
        let (res, results, nresults) = ($res, $results, $nresults);
        match $crate::client::query::results_array(res, results.is_null()) {
            Ok((p, n)) => {
                $crate::arg!(set results, p);
                $crate::arg!(set nresults, n);
                pmix_sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    }};
}
pub(crate) use store_results;

/// `res` as a malloc'd info array for `store_results!` (`(NULL, 0)` when `skip`: the
/// caller passed no `results` slot).
pub(crate) fn results_array(
    res: &[Info],
    skip: bool,
) -> pmix_core::Result<(*mut sys::pmix_info_t, usize)> {
    if skip {
        return Ok((core::ptr::null_mut(), 0));
    }
    conv::info_array_to_c(res)
}

/// Query the system: one `PMIX_QUERY_RESULTS` per query that found something goes to
/// `*results` (release with `PMIX_INFO_FREE`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_PARTIAL_SUCCESS`, `PMIX_ERR_NOT_FOUND`,
/// `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `queries_` is NULL or points to `nqueries` initialised `pmix_query_t`s that the caller
///   may write through;
/// - `results` is NULL or a writable `pmix_info_t *` slot (what the library stores there is
///   described above);
/// - `nresults` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info(
    queries_: *mut sys::pmix_query_t,
    nqueries: usize,
    results: *mut *mut sys::pmix_info_t,
    nresults: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Query_info, {
        crate::arg!(set results, core::ptr::null_mut());
        crate::arg!(set nresults, 0);
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => {
                // Before PMIx_Init only the ABI levels can be asked (as in OpenPMIx).
                // SAFETY: this export's `# Safety` contract promises of `queries_` what
                // `queries` requires.
                let abi = unsafe { queries(queries_, nqueries) }
                    .ok()
                    .and_then(|q| abi_only(&q));
                return match abi {
                    Some(res) => store_results!(&res, results, nresults),
                    None => e.status(),
                };
            }
        };
        if let Some(st) = would_block("PMIx_Query_info") {
            return st;
        }
        // SAFETY: this export's `# Safety` contract promises of `queries_` what `queries`
        // requires.
        let q = match unsafe { queries(queries_, nqueries) } {
            Ok(q) => q,
            Err(e) => return e.status(),
        };
        match c.query(q) {
            Ok((st, res)) => {
                let s2 = store_results!(&res, results, nresults);
                if s2 != sys::PMIX_SUCCESS {
                    s2
                } else {
                    st
                }
            }
            Err(e) => status("PMIx_Query_info", Err(e)),
        }
    })
}

/// Non-blocking query: `cbfunc(status, results, n, cbdata, release_fn, release_cbdata)`
/// runs once on the progress thread; call `release_fn(release_cbdata)` when done with
/// the results.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), `PMIX_ERR_BAD_PARAM` (no queries or NULL `cbfunc`),
/// `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `queries_` is NULL or points to `nqueries` initialised `pmix_query_t`s that the caller
///   may write through;
/// - `cbfunc` is NULL or a function that may be called (from the progress thread) with the
///   arguments its type names;
/// - `cbdata` is opaque: the library never reads it and hands it back unchanged.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
/// The callbacks and their data (`cbfunc`, `cbdata`) are kept until the callback has run.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info_nb(
    queries_: *mut sys::pmix_query_t,
    nqueries: usize,
    cbfunc: sys::pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Query_info_nb, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        let Some(cb) = cbfunc else {
            log::warn!("PMIx_Query_info_nb: NULL cbfunc");
            return sys::PMIX_ERR_BAD_PARAM;
        };
        // SAFETY: this export's `# Safety` contract promises of `queries_` what `queries`
        // requires.
        let q = match unsafe { queries(queries_, nqueries) } {
            Ok(q) => q,
            Err(e) => return e.status(),
        };
        let data = CbData::new(cbdata);
        let r = c.query_nb(
            q,
            Box::new(move |r| match r {
                Ok((st, res)) => call_info_cb(cb, data, st, &res),
                Err(e) => call_info_cb(cb, data, e.status(), &[]),
            }),
        );
        started("PMIx_Query_info_nb", r)
    })
}

/// The processes of `nspace` (NULL or empty: every namespace) on `nodename` (NULL: this
/// node), as a malloc'd array in `*procs` (release with `PMIX_PROC_FREE`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_BAD_PARAM` (NULL out-parameters),
/// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `nodename` is NULL or a NUL-terminated string the library only reads;
/// - `nspace` is NULL or a NUL-terminated string the library only reads;
/// - `procs` is NULL or a writable `pmix_proc_t *` slot (what the library stores there is
///   described above);
/// - `nprocs` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_peers(
    nodename: *const c_char,
    nspace: *const c_char,
    procs: *mut *mut sys::pmix_proc_t,
    nprocs: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Resolve_peers, {
        crate::check_null!(procs, nprocs);
        // SAFETY: writable out-parameters (C contract).
        unsafe {
            *procs = core::ptr::null_mut();
            *nprocs = 0;
        }
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        if let Some(st) = would_block("PMIx_Resolve_peers") {
            return st;
        }
        let node = crate::arg!(cbytes nodename)
            .map(<[u8]>::to_vec)
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        let ns = match crate::arg!(cbytes nspace).map(<[u8]>::to_vec) {
            Some(b) if !b.is_empty() => match Nspace::new(String::from_utf8_lossy(&b)) {
                Ok(n) => Some(n),
                Err(e) => return e.status(),
            },
            _ => None,
        };
        match c.resolve_peers(node.as_deref(), ns.as_ref()) {
            Ok(v) => match conv::proc_array_to_c(&v) {
                Ok((p, n)) => {
                    // SAFETY: as above.
                    unsafe {
                        *procs = p;
                        *nprocs = n;
                    }
                    sys::PMIX_SUCCESS
                }
                Err(e) => e.status(),
            },
            Err(e) => status("PMIx_Resolve_peers", Err(e)),
        }
    })
}

/// The comma-separated nodes `nspace`'s processes run on, malloc'd in `*nodelist`.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_WOULD_BLOCK`,
/// `PMIX_ERR_INIT`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `nspace` is NULL or a NUL-terminated string the library only reads;
/// - `nodelist` is NULL or a writable `char *` slot.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_nodes(
    nspace: *const c_char,
    nodelist: *mut *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Resolve_nodes, {
        crate::check_null!(nodelist);
        // SAFETY: writable out-parameter (C contract).
        unsafe { *nodelist = core::ptr::null_mut() };
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        if let Some(st) = would_block("PMIx_Resolve_nodes") {
            return st;
        }
        let ns = match crate::arg!(cbytes nspace).map(<[u8]>::to_vec) {
            Some(b) if !b.is_empty() => match Nspace::new(String::from_utf8_lossy(&b)) {
                Ok(n) => n,
                Err(e) => return e.status(),
            },
            _ => c.proc_id().nspace.clone(),
        };
        match c.resolve_nodes(&ns).and_then(|s| conv::alloc::strdup(&s)) {
            Ok(p) => {
                // SAFETY: as above.
                unsafe { *nodelist = p };
                sys::PMIX_SUCCESS
            }
            Err(e) => status("PMIx_Resolve_nodes", Err(e)),
        }
    })
}

/// Log `data` through the host's channels (`PMIX_LOG_STDERR`, `PMIX_LOG_STDOUT`, …).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (no channel handled it), `PMIX_ERR_BAD_PARAM`,
/// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_INIT`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `data` is NULL or points to `ndata` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
/// - `directives` is NULL or points to `ndirs` initialised `pmix_info_t`s (read during the
///   call; the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log(
    data: *const sys::pmix_info_t,
    ndata: usize,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Log, {
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        if let Some(st) = would_block("PMIx_Log") {
            return st;
        }
        let args = crate::arg!(infos data, ndata)
            .and_then(|d| Ok((d, crate::arg!(infos directives, ndirs)?)));
        match args {
            Ok((d, i)) => status("PMIx_Log", c.log(&d, &i)),
            Err(e) => e.status(),
        }
    })
}

/// Non-blocking log: `cbfunc(status, cbdata)` once handled. NULL `cbfunc`: blocking.
///
/// # Returns
/// `PMIX_SUCCESS` (accepted), or as `PMIx_Log` (no callback).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `data` is NULL or points to `ndata` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership);
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
pub unsafe extern "C" fn PMIx_Log_nb(
    data: *const sys::pmix_info_t,
    ndata: usize,
    directives: *const sys::pmix_info_t,
    ndirs: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Log_nb, {
        let Some(cb) = cbfunc else {
            // SAFETY: this export's `# Safety` contract promises of `data`, `directives`
            // what `PMIx_Log` requires.
            return unsafe { PMIx_Log(data, ndata, directives, ndirs) };
        };
        let c = match global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        let args = crate::arg!(infos data, ndata)
            .and_then(|d| Ok((d, crate::arg!(infos directives, ndirs)?)));
        match args {
            Ok((d, i)) => started(
                "PMIx_Log_nb",
                c.log_nb(&d, &i, op_callback("PMIx_Log_nb", cb, cbdata)),
            ),
            Err(e) => e.status(),
        }
    })
}
