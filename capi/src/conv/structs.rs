//! The composite PMIx structs ⇄ core types: procs, infos, apps, queries, pdata and
//! the descriptive objects (envar, coord, geometry, device, endpoint, …).
//!
//! Conventions, the same for every type `X`:
//! * `x_from_c(&pmix_x_t) -> X` reads a C struct (deep copy, C keeps ownership);
//! * `x_to_c(&X, &mut pmix_x_t) -> Result<()>` overwrites the struct with malloc'd
//!   copies; on error it releases what it had stored and leaves the struct zeroed;
//! * `x_destruct(&mut pmix_x_t)` frees what the struct owns and NULLs the pointers.

use super::alloc;
use super::cstr::*;
use super::value::{elem_release, too_deep, value_from, value_release, value_to_c, MAX_DEPTH};
use core::ffi::c_char;
use pmix_core::*;
use pmix_sys::*;

/// Zero `*s`, run `f` on it, and on error release what `f` stored and zero it again.
fn fill<T>(
    s: &mut T,
    destruct: unsafe fn(&mut T),
    f: impl FnOnce(&mut T) -> Result<()>,
) -> Result<()> {
    // SAFETY: only used with the C structs of pmix-sys, for which all-zero bytes are a
    // valid (constructed, owning-nothing) value.
    unsafe { core::ptr::write_bytes(s as *mut T, 0, 1) };
    let r = f(s);
    if r.is_err() {
        // SAFETY: `*s` holds only what `f` allocated with our allocator.
        unsafe {
            destruct(s);
            core::ptr::write_bytes(s as *mut T, 0, 1);
        }
    }
    r
}

// ---- pmix_proc_t ----

/// A [`ProcId`] from a `pmix_proc_t`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if the namespace is not NUL-terminated or not UTF-8.
pub fn proc_from_c(p: &pmix_proc_t) -> Result<ProcId> {
    Ok(ProcId::new(nspace_from_array(&p.nspace)?, p.rank))
}

/// A [`ProcId`] from a caller's `const pmix_proc_t *`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL or a malformed namespace.
///
/// # Safety
/// `p` is NULL or points to a readable `pmix_proc_t`.
pub unsafe fn proc_from_ptr(p: *const pmix_proc_t) -> Result<ProcId> {
    if p.is_null() {
        log::warn!("NULL pmix_proc_t");
        return Err(Error::bad_param("NULL proc"));
    }
    // SAFETY: readable (caller's promise).
    proc_from_c(unsafe { &*p })
}

/// Store a [`ProcId`] into a `pmix_proc_t`.
pub fn proc_to_c(p: &ProcId, out: &mut pmix_proc_t) {
    load_nspace(&mut out.nspace, &p.nspace);
    out.rank = p.rank;
}

/// `n` procs from a C array (NULL with `n == 0` is the empty list).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL with `n > 0` or a malformed entry.
///
/// # Safety
/// `p` is NULL or points to `n` readable `pmix_proc_t`.
pub unsafe fn proc_array_from_c(p: *const pmix_proc_t, n: usize) -> Result<Vec<ProcId>> {
    // SAFETY: this function's `# Safety` contract promises of `p`, `proc_from_c` what
    // `array_from` requires.
    unsafe { array_from(p, n, "procs", proc_from_c) }
}

/// A malloc'd array of `pmix_proc_t` (`(NULL, 0)` when empty); free with `free()`.
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub fn proc_array_to_c(procs: &[ProcId]) -> Result<(*mut pmix_proc_t, usize)> {
    if procs.is_empty() {
        return Ok((core::ptr::null_mut(), 0));
    }
    let arr = alloc::calloc_array::<pmix_proc_t>(procs.len())?;
    for (i, p) in procs.iter().enumerate() {
        // SAFETY: `i` is within the fresh array.
        proc_to_c(p, unsafe { &mut *arr.add(i) });
    }
    Ok((arr, procs.len()))
}

/// Read `n` C structs with `f`.
unsafe fn array_from<T, U>(
    p: *const T,
    n: usize,
    what: &str,
    f: impl Fn(&T) -> Result<U>,
) -> Result<Vec<U>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        log::warn!("NULL {} array with {} entries", what, n);
        return Err(Error::bad_param(format!("NULL {} array", what)));
    }
    let mut out = Vec::with_capacity(n.min(1024));
    for i in 0..n {
        // SAFETY: `p` holds `n` readable structs (caller's promise).
        out.push(f(unsafe { &core::ptr::read_unaligned(p.add(i)) })?);
    }
    Ok(out)
}

// ---- byte objects ----

/// The bytes of a `pmix_byte_object_t` (NULL or size 0: empty).
///
/// # Safety
/// `bytes` is NULL or readable for `size` bytes.
pub unsafe fn bo_from_c(bo: &pmix_byte_object_t) -> Vec<u8> {
    // SAFETY: this function's `# Safety` contract promises of the arguments what
    // `raw_bytes` requires.
    unsafe { raw_bytes(bo.bytes as *const u8, bo.size) }
}

unsafe fn raw_bytes(p: *const u8, n: usize) -> Vec<u8> {
    if p.is_null() || n == 0 {
        return Vec::new();
    }
    // SAFETY: readable for `n` bytes (caller's promise).
    unsafe { core::slice::from_raw_parts(p, n) }.to_vec()
}

/// Store bytes into a `pmix_byte_object_t` (malloc'd copy; empty → NULL/0).
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub fn bo_to_c(b: &[u8], out: &mut pmix_byte_object_t) -> Result<()> {
    let (p, n) = alloc::bytes_to_c(b)?;
    *out = pmix_byte_object_t {
        bytes: p as *mut c_char,
        size: n,
    };
    Ok(())
}

/// Free a byte object's bytes and reset it.
///
/// # Safety
/// `bytes` is NULL or malloc'd and unused afterwards.
pub unsafe fn bo_destruct(bo: &mut pmix_byte_object_t) {
    // SAFETY: promised by the caller.
    unsafe { alloc::free(bo.bytes) };
    *bo = pmix_byte_object_t {
        bytes: core::ptr::null_mut(),
        size: 0,
    };
}

// ---- pmix_envar_t ----

/// # Safety
/// The envar's strings are NULL or valid C strings.
pub unsafe fn envar_from_c(e: &pmix_envar_t) -> Envar {
    // SAFETY: promised by the caller.
    unsafe {
        Envar {
            envar: cstr_bytes(e.envar),
            value: cstr_bytes(e.value),
            separator: e.separator as u8,
        }
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM` (NUL inside a string).
pub fn envar_to_c(e: &Envar, out: &mut pmix_envar_t) -> Result<()> {
    fill(out, envar_destruct, |s| {
        s.envar = alloc::strdup_opt(&e.envar)?;
        s.value = alloc::strdup_opt(&e.value)?;
        s.separator = e.separator as c_char;
        Ok(())
    })
}

/// # Safety
/// The strings are NULL or malloc'd and unused afterwards.
pub unsafe fn envar_destruct(e: &mut pmix_envar_t) {
    // SAFETY: promised by the caller.
    unsafe {
        alloc::free(e.envar);
        alloc::free(e.value);
    }
    e.envar = core::ptr::null_mut();
    e.value = core::ptr::null_mut();
}

// ---- pmix_info_t ----

/// An [`Info`] from a caller's `pmix_info_t` (deep copy).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL or a malformed key/value; see
/// [`value_from_c`](super::value_from_c).
///
/// # Safety
/// `i` is NULL or points to an initialised `pmix_info_t`.
pub unsafe fn info_from_c(i: *const pmix_info_t) -> Result<Info> {
    if i.is_null() {
        return Err(Error::bad_param("NULL info"));
    }
    // SAFETY: readable (caller's promise).
    unsafe { info_from(&core::ptr::read_unaligned(i), 0) }
}

pub(crate) unsafe fn info_from(i: &pmix_info_t, depth: usize) -> Result<Info> {
    // SAFETY: the value is initialised (caller's promise).
    let value = unsafe { value_from(&i.value, depth) }?;
    Ok(Info {
        key: key_from_array(&i.key)?,
        flags: i.flags,
        value,
    })
}

/// Write an [`Info`] into a `pmix_info_t`. `PMIX_INFO_PERSISTENT` is cleared: the C
/// copy owns its value.
///
/// # Errors
/// As [`value_to_c`].
pub fn info_to_c(i: &Info, out: &mut pmix_info_t) -> Result<()> {
    fill(out, info_destruct_ref, |s| {
        load_key(&mut s.key, &i.key);
        s.flags = i.flags & !PMIX_INFO_PERSISTENT;
        // SAFETY: `s.value` is a writable, zeroed value.
        unsafe { value_to_c(&i.value, &mut s.value) }
    })
}

unsafe fn info_destruct_ref(i: &mut pmix_info_t) {
    // SAFETY: this function's `# Safety` contract promises of `i` what `info_release`
    // requires.
    unsafe { info_release(i, 0) }
}

/// Release an info's value unless it is `PMIX_INFO_PERSISTENT` (`PMIx_Info_destruct`).
///
/// # Safety
/// `i` is NULL or initialised, its value owned (malloc'd) unless persistent.
pub unsafe fn info_destruct(i: *mut pmix_info_t) {
    if !i.is_null() {
        // SAFETY: promised by the caller.
        unsafe { info_release(&mut *i, 0) }
    }
}

pub(crate) unsafe fn info_release(i: &mut pmix_info_t, depth: usize) {
    if i.flags & PMIX_INFO_PERSISTENT == 0 {
        // SAFETY: the value is owned (caller's promise).
        unsafe { value_release(&mut i.value, depth) };
    }
}

/// `n` infos from a C array (NULL with `n == 0` is empty).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL with `n > 0`; see [`info_from_c`].
///
/// # Safety
/// `p` is NULL or points to `n` initialised `pmix_info_t`.
pub unsafe fn info_array_from_c(p: *const pmix_info_t, n: usize) -> Result<Vec<Info>> {
    // SAFETY: this function's `# Safety` contract promises of `p` what `info_array_from`
    // requires.
    unsafe { info_array_from(p, n, 0) }
}

pub(crate) unsafe fn info_array_from(
    p: *const pmix_info_t,
    n: usize,
    depth: usize,
) -> Result<Vec<Info>> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    // SAFETY: this function's `# Safety` contract promises of `p`, `depth` what
    // `array_from` requires.
    unsafe { array_from(p, n, "info", |i| info_from(i, depth)) }
}

/// A malloc'd `pmix_info_t` array holding `infos` (`(NULL, 0)` when empty), with
/// `PMIX_INFO_ARRAY_END` set on the last element as `PMIX_INFO_CREATE` does. Release
/// with `PMIx_Info_free(p, n)` (or [`info_array_free`]).
///
/// # Errors
/// As [`info_to_c`]; nothing is leaked on error.
pub fn info_array_to_c(infos: &[Info]) -> Result<(*mut pmix_info_t, usize)> {
    if infos.is_empty() {
        return Ok((core::ptr::null_mut(), 0));
    }
    let arr = alloc::calloc_array::<pmix_info_t>(infos.len())?;
    for (i, info) in infos.iter().enumerate() {
        // SAFETY: `i` is within the fresh, zeroed array.
        if let Err(e) = info_to_c(info, unsafe { &mut *arr.add(i) }) {
            // SAFETY: every element is filled or zeroed; the block is ours.
            unsafe { info_array_free(arr, infos.len()) };
            return Err(e);
        }
    }
    // SAFETY: the last element exists.
    unsafe { (*arr.add(infos.len() - 1)).flags |= PMIX_INFO_ARRAY_END };
    Ok((arr, infos.len()))
}

/// Destruct `n` infos and free the block (`PMIx_Info_free`); NULL is fine.
///
/// # Safety
/// `p` is NULL or a malloc'd array of `n` initialised infos, unused afterwards.
pub unsafe fn info_array_free(p: *mut pmix_info_t, n: usize) {
    if p.is_null() {
        return;
    }
    for i in 0..n {
        // SAFETY: element `i` is initialised (caller's promise).
        unsafe { info_release(&mut *p.add(i), 0) };
    }
    // SAFETY: the block came from malloc.
    unsafe { alloc::free(p) };
}

// ---- pmix_pdata_t ----

/// # Errors
/// As [`info_from_c`].
///
/// # Safety
/// `p` is NULL or an initialised `pmix_pdata_t`.
pub unsafe fn pdata_from_c(p: *const pmix_pdata_t) -> Result<Pdata> {
    if p.is_null() {
        return Err(Error::bad_param("NULL pdata"));
    }
    // SAFETY: readable (caller's promise).
    unsafe { pdata_from(&core::ptr::read_unaligned(p), 0) }
}

pub(crate) unsafe fn pdata_from(p: &pmix_pdata_t, depth: usize) -> Result<Pdata> {
    // SAFETY: initialised (caller's promise).
    let value = unsafe { value_from(&p.value, depth) }?;
    Ok(Pdata {
        proc_: proc_from_c(&p.proc_)?,
        key: key_from_array(&p.key)?,
        value,
    })
}

/// `n` pdata from a C array.
///
/// # Errors
/// As [`pdata_from_c`].
///
/// # Safety
/// `p` is NULL or points to `n` initialised `pmix_pdata_t`.
pub unsafe fn pdata_array_from_c(p: *const pmix_pdata_t, n: usize) -> Result<Vec<Pdata>> {
    // SAFETY: this function's `# Safety` contract promises of `p` what `array_from`
    // requires.
    unsafe { array_from(p, n, "pdata", |d| pdata_from(d, 0)) }
}

/// # Errors
/// As [`value_to_c`].
pub fn pdata_to_c(d: &Pdata, out: &mut pmix_pdata_t) -> Result<()> {
    fill(out, pdata_destruct, |s| {
        proc_to_c(&d.proc_, &mut s.proc_);
        load_key(&mut s.key, &d.key);
        // SAFETY: `s.value` is writable and zeroed.
        unsafe { value_to_c(&d.value, &mut s.value) }
    })
}

/// # Safety
/// The value is owned (malloc'd) and unused afterwards.
pub unsafe fn pdata_destruct(p: &mut pmix_pdata_t) {
    // SAFETY: promised by the caller.
    unsafe { value_release(&mut p.value, 0) }
}

// ---- pmix_app_t ----

/// # Errors
/// As [`info_array_from_c`].
///
/// # Safety
/// `a` is NULL or an initialised `pmix_app_t` (strings, argv/env and `info` valid).
pub unsafe fn app_from_c(a: *const pmix_app_t) -> Result<App> {
    if a.is_null() {
        return Err(Error::bad_param("NULL app"));
    }
    // SAFETY: readable (caller's promise).
    unsafe { app_from(&core::ptr::read_unaligned(a), 0) }
}

pub(crate) unsafe fn app_from(a: &pmix_app_t, depth: usize) -> Result<App> {
    // SAFETY: all pointers are NULL or valid (caller's promise).
    unsafe {
        Ok(App {
            cmd: cstr_bytes(a.cmd),
            argv: argv_from_c(a.argv),
            env: argv_from_c(a.env),
            cwd: cstr_bytes(a.cwd),
            maxprocs: a.maxprocs,
            info: info_array_from(a.info, a.ninfo, depth)?,
        })
    }
}

/// `n` apps from a C array.
///
/// # Errors
/// As [`app_from_c`].
///
/// # Safety
/// `p` is NULL or points to `n` initialised `pmix_app_t`.
pub unsafe fn app_array_from_c(p: *const pmix_app_t, n: usize) -> Result<Vec<App>> {
    // SAFETY: this function's `# Safety` contract promises of `p` what `array_from`
    // requires.
    unsafe { array_from(p, n, "app", |a| app_from(a, 0)) }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn app_to_c(a: &App, out: &mut pmix_app_t) -> Result<()> {
    fill(out, app_destruct, |s| {
        s.cmd = alloc::strdup_opt(&a.cmd)?;
        s.argv = argv_to_c(&a.argv)?;
        s.env = argv_to_c(&a.env)?;
        s.cwd = alloc::strdup_opt(&a.cwd)?;
        s.maxprocs = a.maxprocs;
        let (info, n) = info_array_to_c(&a.info)?;
        s.info = info;
        s.ninfo = n;
        Ok(())
    })
}

/// Free what a `pmix_app_t` owns (`PMIx_App_destruct`).
///
/// # Safety
/// All pointers are NULL or malloc'd and unused afterwards.
pub unsafe fn app_destruct(a: &mut pmix_app_t) {
    // SAFETY: this function's `# Safety` contract promises of `a` what `app_release`
    // requires.
    unsafe { app_release(a, 0) }
}

pub(crate) unsafe fn app_release(a: &mut pmix_app_t, depth: usize) {
    // SAFETY: all pointers are owned (caller's promise).
    unsafe {
        alloc::free(a.cmd);
        argv_free(a.argv);
        argv_free(a.env);
        alloc::free(a.cwd);
        info_block_release(a.info, a.ninfo, depth);
    }
    a.cmd = core::ptr::null_mut();
    a.argv = core::ptr::null_mut();
    a.env = core::ptr::null_mut();
    a.cwd = core::ptr::null_mut();
    a.info = core::ptr::null_mut();
    a.ninfo = 0;
}

unsafe fn info_block_release(p: *mut pmix_info_t, n: usize, depth: usize) {
    if p.is_null() {
        return;
    }
    for i in 0..n {
        // SAFETY: element `i` is initialised and owned (caller's promise).
        unsafe { elem_release(p.add(i) as *mut u8, PMIX_INFO, depth) };
    }
    // SAFETY: the block came from malloc.
    unsafe { alloc::free(p) };
}

// ---- pmix_query_t ----

/// # Errors
/// As [`info_array_from_c`].
///
/// # Safety
/// `q` is NULL or an initialised `pmix_query_t`.
pub unsafe fn query_from_c(q: *const pmix_query_t) -> Result<Query> {
    if q.is_null() {
        return Err(Error::bad_param("NULL query"));
    }
    // SAFETY: readable (caller's promise).
    unsafe { query_from(&core::ptr::read_unaligned(q), 0) }
}

pub(crate) unsafe fn query_from(q: &pmix_query_t, depth: usize) -> Result<Query> {
    // SAFETY: pointers NULL or valid (caller's promise).
    unsafe {
        Ok(Query {
            keys: argv_from_c(q.keys),
            qualifiers: info_array_from(q.qualifiers, q.nqual, depth)?,
        })
    }
}

/// `n` queries from a C array.
///
/// # Errors
/// As [`query_from_c`].
///
/// # Safety
/// `p` is NULL or points to `n` initialised `pmix_query_t`.
pub unsafe fn query_array_from_c(p: *const pmix_query_t, n: usize) -> Result<Vec<Query>> {
    // SAFETY: this function's `# Safety` contract promises of `p` what `array_from`
    // requires.
    unsafe { array_from(p, n, "query", |q| query_from(q, 0)) }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn query_to_c(q: &Query, out: &mut pmix_query_t) -> Result<()> {
    fill(out, query_destruct, |s| {
        s.keys = argv_to_c(&q.keys)?;
        let (p, n) = info_array_to_c(&q.qualifiers)?;
        s.qualifiers = p;
        s.nqual = n;
        Ok(())
    })
}

/// Free what a `pmix_query_t` owns (`PMIx_Query_destruct`).
///
/// # Safety
/// All pointers are NULL or malloc'd and unused afterwards.
pub unsafe fn query_destruct(q: &mut pmix_query_t) {
    // SAFETY: this function's `# Safety` contract promises of `q` what `query_release`
    // requires.
    unsafe { query_release(q, 0) }
}

pub(crate) unsafe fn query_release(q: &mut pmix_query_t, depth: usize) {
    // SAFETY: owned (caller's promise).
    unsafe {
        argv_free(q.keys);
        info_block_release(q.qualifiers, q.nqual, depth);
    }
    q.keys = core::ptr::null_mut();
    q.qualifiers = core::ptr::null_mut();
    q.nqual = 0;
}

// ---- pmix_proc_info_t ----

/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a malformed namespace.
///
/// # Safety
/// Strings NULL or valid.
pub unsafe fn proc_info_from_c(p: &pmix_proc_info_t) -> Result<ProcInfo> {
    // SAFETY: promised by the caller.
    unsafe {
        Ok(ProcInfo {
            proc_: proc_from_c(&p.proc_)?,
            hostname: cstr_bytes(p.hostname),
            executable_name: cstr_bytes(p.executable_name),
            pid: p.pid,
            exit_code: p.exit_code,
            state: p.state,
        })
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn proc_info_to_c(p: &ProcInfo, out: &mut pmix_proc_info_t) -> Result<()> {
    fill(out, proc_info_destruct, |s| {
        proc_to_c(&p.proc_, &mut s.proc_);
        s.hostname = alloc::strdup_opt(&p.hostname)?;
        s.executable_name = alloc::strdup_opt(&p.executable_name)?;
        s.pid = p.pid;
        s.exit_code = p.exit_code;
        s.state = p.state;
        Ok(())
    })
}

/// # Safety
/// Strings NULL or malloc'd and unused afterwards.
pub unsafe fn proc_info_destruct(p: &mut pmix_proc_info_t) {
    // SAFETY: promised by the caller.
    unsafe {
        alloc::free(p.hostname);
        alloc::free(p.executable_name);
    }
    p.hostname = core::ptr::null_mut();
    p.executable_name = core::ptr::null_mut();
}

// ---- pmix_coord_t ----

/// # Safety
/// `coord` is NULL or readable for `dims` values.
pub unsafe fn coord_from_c(c: &pmix_coord_t) -> Coord {
    let coord = if c.coord.is_null() || c.dims == 0 {
        Vec::new()
    } else {
        // SAFETY: promised by the caller.
        unsafe { core::slice::from_raw_parts(c.coord, c.dims) }.to_vec()
    };
    Coord {
        view: c.view,
        coord,
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`.
pub fn coord_to_c(c: &Coord, out: &mut pmix_coord_t) -> Result<()> {
    fill(out, coord_destruct, |s| {
        s.view = c.view;
        if !c.coord.is_empty() {
            let p = alloc::calloc_array::<u32>(c.coord.len())?;
            // SAFETY: `p` has room for `len` values.
            unsafe { core::ptr::copy_nonoverlapping(c.coord.as_ptr(), p, c.coord.len()) };
            s.coord = p;
            s.dims = c.coord.len();
        }
        Ok(())
    })
}

/// # Safety
/// `coord` is NULL or malloc'd and unused afterwards.
pub unsafe fn coord_destruct(c: &mut pmix_coord_t) {
    // SAFETY: promised by the caller.
    unsafe { alloc::free(c.coord) };
    *c = pmix_coord_t {
        view: 0,
        coord: core::ptr::null_mut(),
        dims: 0,
    };
}

// ---- pmix_regattr_t ----

/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a malformed key.
///
/// # Safety
/// Pointers NULL or valid.
pub unsafe fn regattr_from_c(r: &pmix_regattr_t) -> Result<Regattr> {
    // SAFETY: promised by the caller.
    unsafe {
        Ok(Regattr {
            name: cstr_bytes(r.name),
            string: key_from_array(&r.string)?,
            dtype: r.type_,
            description: argv_from_c(r.description),
        })
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn regattr_to_c(r: &Regattr, out: &mut pmix_regattr_t) -> Result<()> {
    fill(out, regattr_destruct, |s| {
        s.name = alloc::strdup_opt(&r.name)?;
        load_key(&mut s.string, &r.string);
        s.type_ = r.dtype;
        s.description = argv_to_c(&r.description)?;
        Ok(())
    })
}

/// # Safety
/// Pointers NULL or malloc'd and unused afterwards.
pub unsafe fn regattr_destruct(r: &mut pmix_regattr_t) {
    // SAFETY: promised by the caller.
    unsafe {
        alloc::free(r.name);
        argv_free(r.description);
    }
    r.name = core::ptr::null_mut();
    r.description = core::ptr::null_mut();
}

// ---- pmix_geometry_t ----

/// # Safety
/// Pointers NULL or valid; `coordinates` holds `ncoords` coords.
pub unsafe fn geometry_from_c(g: &pmix_geometry_t) -> Geometry {
    let mut coordinates = Vec::new();
    if !g.coordinates.is_null() {
        for i in 0..g.ncoords {
            // SAFETY: promised by the caller.
            coordinates.push(unsafe { coord_from_c(&*g.coordinates.add(i)) });
        }
    }
    // SAFETY: promised by the caller.
    unsafe {
        Geometry {
            fabric: g.fabric as u64,
            uuid: cstr_bytes(g.uuid),
            osname: cstr_bytes(g.osname),
            coordinates,
        }
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn geometry_to_c(g: &Geometry, out: &mut pmix_geometry_t) -> Result<()> {
    fill(out, geometry_destruct, |s| {
        s.fabric = g.fabric as usize;
        s.uuid = alloc::strdup_opt(&g.uuid)?;
        s.osname = alloc::strdup_opt(&g.osname)?;
        if !g.coordinates.is_empty() {
            s.coordinates = alloc::calloc_array::<pmix_coord_t>(g.coordinates.len())?;
            s.ncoords = g.coordinates.len();
            for (i, c) in g.coordinates.iter().enumerate() {
                // SAFETY: `i` is within the zeroed array just allocated.
                coord_to_c(c, unsafe { &mut *s.coordinates.add(i) })?;
            }
        }
        Ok(())
    })
}

/// # Safety
/// Pointers NULL or malloc'd and unused afterwards.
pub unsafe fn geometry_destruct(g: &mut pmix_geometry_t) {
    // SAFETY: promised by the caller.
    unsafe {
        alloc::free(g.uuid);
        alloc::free(g.osname);
        if !g.coordinates.is_null() {
            for i in 0..g.ncoords {
                coord_destruct(&mut *g.coordinates.add(i));
            }
            alloc::free(g.coordinates);
        }
    }
    g.uuid = core::ptr::null_mut();
    g.osname = core::ptr::null_mut();
    g.coordinates = core::ptr::null_mut();
    g.ncoords = 0;
}

// ---- pmix_device_t / pmix_device_distance_t / pmix_endpoint_t ----

/// # Safety
/// Strings NULL or valid.
pub unsafe fn device_from_c(d: &pmix_device_t) -> Device {
    // SAFETY: promised by the caller.
    unsafe {
        Device {
            uuid: cstr_bytes(d.uuid),
            osname: cstr_bytes(d.osname),
            dtype: d.type_,
        }
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn device_to_c(d: &Device, out: &mut pmix_device_t) -> Result<()> {
    fill(out, device_destruct, |s| {
        s.uuid = alloc::strdup_opt(&d.uuid)?;
        s.osname = alloc::strdup_opt(&d.osname)?;
        s.type_ = d.dtype;
        Ok(())
    })
}

/// # Safety
/// Strings NULL or malloc'd and unused afterwards.
pub unsafe fn device_destruct(d: &mut pmix_device_t) {
    // SAFETY: promised by the caller.
    unsafe {
        alloc::free(d.uuid);
        alloc::free(d.osname);
    }
    d.uuid = core::ptr::null_mut();
    d.osname = core::ptr::null_mut();
}

/// # Safety
/// Strings NULL or valid.
pub unsafe fn devdist_from_c(d: &pmix_device_distance_t) -> DeviceDistance {
    // SAFETY: promised by the caller.
    unsafe {
        DeviceDistance {
            uuid: cstr_bytes(d.uuid),
            osname: cstr_bytes(d.osname),
            dtype: d.type_,
            mindist: d.mindist,
            maxdist: d.maxdist,
        }
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn devdist_to_c(d: &DeviceDistance, out: &mut pmix_device_distance_t) -> Result<()> {
    fill(out, devdist_destruct, |s| {
        s.uuid = alloc::strdup_opt(&d.uuid)?;
        s.osname = alloc::strdup_opt(&d.osname)?;
        s.type_ = d.dtype;
        s.mindist = d.mindist;
        s.maxdist = d.maxdist;
        Ok(())
    })
}

/// # Safety
/// Strings NULL or malloc'd and unused afterwards.
pub unsafe fn devdist_destruct(d: &mut pmix_device_distance_t) {
    // SAFETY: promised by the caller.
    unsafe {
        alloc::free(d.uuid);
        alloc::free(d.osname);
    }
    d.uuid = core::ptr::null_mut();
    d.osname = core::ptr::null_mut();
}

/// # Safety
/// Pointers NULL or valid.
pub unsafe fn endpoint_from_c(e: &pmix_endpoint_t) -> Endpoint {
    // SAFETY: promised by the caller.
    unsafe {
        Endpoint {
            uuid: cstr_bytes(e.uuid),
            osname: cstr_bytes(e.osname),
            endpt: bo_from_c(&e.endpt),
        }
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn endpoint_to_c(e: &Endpoint, out: &mut pmix_endpoint_t) -> Result<()> {
    fill(out, endpoint_destruct, |s| {
        s.uuid = alloc::strdup_opt(&e.uuid)?;
        s.osname = alloc::strdup_opt(&e.osname)?;
        bo_to_c(&e.endpt, &mut s.endpt)
    })
}

/// # Safety
/// Pointers NULL or malloc'd and unused afterwards.
pub unsafe fn endpoint_destruct(e: &mut pmix_endpoint_t) {
    // SAFETY: promised by the caller.
    unsafe {
        alloc::free(e.uuid);
        alloc::free(e.osname);
        bo_destruct(&mut e.endpt);
    }
    e.uuid = core::ptr::null_mut();
    e.osname = core::ptr::null_mut();
}

// ---- pmix_node_pid_t / pmix_regex2_t ----

/// # Safety
/// `hostname` NULL or valid.
pub unsafe fn nodepid_from_c(n: &pmix_node_pid_t) -> NodePid {
    NodePid {
        // SAFETY: NULL or a C string (promised by the caller).
        hostname: unsafe { cstr_bytes(n.hostname) },
        nodeid: n.nodeid,
        pid: n.pid,
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn nodepid_to_c(n: &NodePid, out: &mut pmix_node_pid_t) -> Result<()> {
    fill(out, nodepid_destruct, |s| {
        s.hostname = alloc::strdup_opt(&n.hostname)?;
        s.nodeid = n.nodeid;
        s.pid = n.pid;
        Ok(())
    })
}

/// # Safety
/// `hostname` NULL or malloc'd and unused afterwards.
pub unsafe fn nodepid_destruct(n: &mut pmix_node_pid_t) {
    // SAFETY: promised by the caller.
    unsafe { alloc::free(n.hostname) };
    n.hostname = core::ptr::null_mut();
}

/// # Safety
/// Pointers NULL or valid; `bytes` readable for `len`.
pub unsafe fn regex2_from_c(r: &pmix_regex2_t) -> Regex2 {
    // SAFETY: promised by the caller.
    unsafe {
        Regex2 {
            rtype: cstr_bytes(r.type_),
            bytes: raw_bytes(r.bytes, r.len),
        }
    }
}

/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM`.
pub fn regex2_to_c(r: &Regex2, out: &mut pmix_regex2_t) -> Result<()> {
    fill(out, regex2_destruct, |s| {
        s.type_ = alloc::strdup_opt(&r.rtype)?;
        let (p, n) = alloc::bytes_to_c(&r.bytes)?;
        s.bytes = p;
        s.len = n;
        Ok(())
    })
}

/// # Safety
/// Pointers NULL or malloc'd and unused afterwards.
pub unsafe fn regex2_destruct(r: &mut pmix_regex2_t) {
    // SAFETY: promised by the caller.
    unsafe {
        alloc::free(r.type_);
        alloc::free(r.bytes);
    }
    *r = pmix_regex2_t {
        type_: core::ptr::null_mut(),
        bytes: core::ptr::null_mut(),
        len: 0,
    };
}

// ---- pmix_data_buffer_t ----

/// The unread bytes of a data buffer: `[unpack_ptr, base_ptr + bytes_used)`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` when the buffer's pointers are inconsistent.
///
/// # Safety
/// `base_ptr` is NULL or readable for `bytes_used` bytes.
pub unsafe fn dbuf_from_c(b: &pmix_data_buffer_t) -> Result<Vec<u8>> {
    let (start, end) = dbuf_unread_range(b)?;
    // SAFETY: the range lies inside the `bytes_used` readable bytes.
    Ok(unsafe { raw_bytes((b.base_ptr as *const u8).add(start), end - start) })
}

/// Offsets `[unpack, used)` of a buffer's unread region, validated.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` when `unpack_ptr` lies outside `[base_ptr, base_ptr + bytes_used]`.
pub fn dbuf_unread_range(b: &pmix_data_buffer_t) -> Result<(usize, usize)> {
    if b.base_ptr.is_null() {
        return Ok((0, 0));
    }
    let base = b.base_ptr as usize;
    let unpack = if b.unpack_ptr.is_null() {
        base
    } else {
        b.unpack_ptr as usize
    };
    if unpack < base || unpack - base > b.bytes_used || b.bytes_used > b.bytes_allocated {
        log::warn!("pmix_data_buffer_t pointers are inconsistent");
        return Err(Error::bad_param("inconsistent data buffer"));
    }
    Ok((unpack - base, b.bytes_used))
}

/// Make `out` a buffer holding a malloc'd copy of `bytes`, nothing unpacked yet.
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub fn dbuf_to_c(bytes: &[u8], out: &mut pmix_data_buffer_t) -> Result<()> {
    let (p, n) = alloc::bytes_to_c(bytes)?;
    let p = p as *mut c_char;
    *out = pmix_data_buffer_t {
        base_ptr: p,
        // SAFETY: one past the end of the `n`-byte block (or NULL + 0).
        pack_ptr: if p.is_null() { p } else { unsafe { p.add(n) } },
        unpack_ptr: p,
        bytes_allocated: n,
        bytes_used: n,
    };
    Ok(())
}

/// Free a buffer's payload and reset it (`PMIx_Data_buffer_destruct`).
///
/// # Safety
/// `base_ptr` NULL or malloc'd and unused afterwards.
pub unsafe fn dbuf_destruct(b: &mut pmix_data_buffer_t) {
    // SAFETY: promised by the caller.
    unsafe { alloc::free(b.base_ptr) };
    *b = pmix_data_buffer_t {
        base_ptr: core::ptr::null_mut(),
        pack_ptr: core::ptr::null_mut(),
        unpack_ptr: core::ptr::null_mut(),
        bytes_allocated: 0,
        bytes_used: 0,
    };
}
