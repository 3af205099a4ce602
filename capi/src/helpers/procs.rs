//! Keys, namespaces and process identifiers: `PMIx_Load_*`, `PMIx_Check_*`,
//! `PMIx_Xfer_procid`, `PMIx_*_invalid`, `PMIx_Rank_valid`, the multicluster
//! namespace helpers and the `pmix_proc_t` lifecycle.
//!
//! These take fixed C arrays (`pmix_key_t`, `pmix_nspace_t`) or C strings; every read
//! is bounded by the array length, so an unterminated input cannot be over-read.

use crate::conv::{self, alloc};
use crate::ffi_value;
use core::ffi::c_char;
use pmix_sys::*;

/// Length of the string at `p`, reading at most `max` bytes (NULL: 0).
///
/// # Safety
/// `p` is NULL or readable up to its NUL or `max` bytes.
unsafe fn bounded(p: *const c_char, max: usize) -> usize {
    if p.is_null() {
        0
    } else {
        // SAFETY: strnlen never reads past `max` bytes (caller's promise covers them).
        unsafe { libc::strnlen(p, max) }
    }
}

/// Bytes of the string at `p`, at most `max` of them.
///
/// # Safety
/// As [`bounded`]; the bytes outlive `'a`.
unsafe fn bounded_bytes<'a>(p: *const c_char, max: usize) -> &'a [u8] {
    // SAFETY: promised by the caller.
    let n = unsafe { bounded(p, max) };
    if n == 0 {
        &[]
    } else {
        // SAFETY: `n` bytes are readable.
        unsafe { core::slice::from_raw_parts(p as *const u8, n) }
    }
}

/// Zero the `len`-byte array at `dst` and copy at most `len - 1` bytes of `src`.
///
/// # Safety
/// `dst` is writable for `len` bytes; `src` is NULL or readable as for [`bounded`].
unsafe fn load(dst: *mut c_char, len: usize, src: *const c_char) {
    // SAFETY: promised by the caller.
    unsafe {
        let s = bounded_bytes(src, len - 1);
        let d = core::slice::from_raw_parts_mut(dst, len);
        conv::load_array(d, s);
    }
}

/// Zero `key` and copy at most `PMIX_MAX_KEYLEN` bytes of `src` into it (NULL `src`
/// leaves it empty).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `key` is NULL or a NUL-terminated string;
/// - `src` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_key(key: *mut c_char, src: *const c_char) {
    ffi_value!(PMIx_Load_key, (), {
        if !key.is_null() {
            // SAFETY: `key` is a pmix_key_t (C contract).
            unsafe { load(key, PMIX_MAX_KEYLEN + 1, src) };
        }
    })
}

/// True when both keys are non-NULL and equal in their first `PMIX_MAX_KEYLEN` bytes.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `str_` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_key(key: *const c_char, str_: *const c_char) -> bool {
    ffi_value!(PMIx_Check_key, false, {
        if key.is_null() || str_.is_null() {
            return false;
        }
        // SAFETY: C strings or key arrays (C contract); reads are bounded.
        unsafe { bounded_bytes(key, PMIX_MAX_KEYLEN) == bounded_bytes(str_, PMIX_MAX_KEYLEN) }
    })
}

/// True when the key starts with the reserved prefix `"pmix"` (NULL: false).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `key` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_reserved_key(key: *const c_char) -> bool {
    ffi_value!(PMIx_Check_reserved_key, false, {
        // SAFETY: NULL or a C string; the read is bounded.
        unsafe { bounded_bytes(key, PMIX_MAX_KEYLEN) }.starts_with(b"pmix")
    })
}

/// Zero `nspace` and copy at most `PMIX_MAX_NSLEN` bytes of `str_` into it.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `nspace` is NULL or a NUL-terminated string;
/// - `str_` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_nspace(nspace: *mut c_char, str_: *const c_char) {
    ffi_value!(PMIx_Load_nspace, (), {
        if !nspace.is_null() {
            // SAFETY: `nspace` is a pmix_nspace_t (C contract).
            unsafe { load(nspace, PMIX_MAX_NSLEN + 1, str_) };
        }
    })
}

/// True when the namespace is NULL or empty.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `nspace` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Nspace_invalid(nspace: *const c_char) -> bool {
    ffi_value!(PMIx_Nspace_invalid, true, {
        // SAFETY: NULL or a C string; bounded read.
        unsafe { bounded(nspace, PMIX_MAX_NSLEN) == 0 }
    })
}

/// True when the namespaces match; an invalid (NULL/empty) namespace matches anything.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `key1` is NULL or a NUL-terminated string the library only reads;
/// - `key2` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_nspace(key1: *const c_char, key2: *const c_char) -> bool {
    ffi_value!(PMIx_Check_nspace, false, {
        // SAFETY: NULL or C strings; bounded reads.
        unsafe {
            let (a, b) = (
                bounded_bytes(key1, PMIX_MAX_NSLEN),
                bounded_bytes(key2, PMIX_MAX_NSLEN),
            );
            a.is_empty() || b.is_empty() || a == b
        }
    })
}

/// Set `p` to (`ns`, `rk`). NULL `p` is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_proc_t` that the library reads or fills
///   in as described above;
/// - `ns` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_procid(p: *mut pmix_proc_t, ns: *const c_char, rk: pmix_rank_t) {
    ffi_value!(PMIx_Load_procid, (), {
        if !p.is_null() {
            // SAFETY: writable proc (C contract).
            unsafe {
                load((*p).nspace.as_mut_ptr(), PMIX_MAX_NSLEN + 1, ns);
                (*p).rank = rk;
            }
        }
    })
}

/// Copy `*src` into `*dst` (NULL `src` zeroes `dst`; NULL `dst` is ignored).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `dst` is NULL or points to an initialised `pmix_proc_t` that the library reads or
///   fills in as described above;
/// - `src` is NULL or points to an initialised `pmix_proc_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Xfer_procid(dst: *mut pmix_proc_t, src: *const pmix_proc_t) {
    ffi_value!(PMIx_Xfer_procid, (), {
        if dst.is_null() {
            return;
        }
        // SAFETY: valid proc pointers (C contract); copy tolerates dst == src.
        unsafe {
            if src.is_null() {
                core::ptr::write_bytes(dst, 0, 1);
            } else {
                core::ptr::copy(src, dst, 1);
            }
        }
    })
}

/// True when the ranks are equal or either is `PMIX_RANK_WILDCARD`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_rank(a: pmix_rank_t, b: pmix_rank_t) -> bool {
    ffi_value!(PMIx_Check_rank, false, {
        a == b || a == PMIX_RANK_WILDCARD || b == PMIX_RANK_WILDCARD
    })
}

/// True for ranks below `PMIX_RANK_VALID` (not one of the special ranks).
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Rank_valid(a: pmix_rank_t) -> bool {
    ffi_value!(PMIx_Rank_valid, false, { a < PMIX_RANK_VALID })
}

/// True when both procs match by `PMIx_Check_nspace` and `PMIx_Check_rank`; two NULLs
/// match each other, one NULL matches nothing.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `a` is NULL or points to an initialised `pmix_proc_t` (only read);
/// - `b` is NULL or points to an initialised `pmix_proc_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_procid(a: *const pmix_proc_t, b: *const pmix_proc_t) -> bool {
    ffi_value!(PMIx_Check_procid, false, {
        if a.is_null() || b.is_null() {
            return a.is_null() && b.is_null();
        }
        // SAFETY: valid procs (C contract).
        unsafe {
            PMIx_Check_nspace((*a).nspace.as_ptr(), (*b).nspace.as_ptr())
                && PMIx_Check_rank((*a).rank, (*b).rank)
        }
    })
}

/// True for NULL, an empty namespace or `PMIX_RANK_INVALID`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_proc_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Procid_invalid(p: *const pmix_proc_t) -> bool {
    ffi_value!(PMIx_Procid_invalid, true, {
        // SAFETY: valid proc (C contract).
        p.is_null()
            || unsafe {
                PMIx_Nspace_invalid((*p).nspace.as_ptr()) || (*p).rank == PMIX_RANK_INVALID
            }
    })
}

/// `target` = `"cluster:nspace"` when that fits in `PMIX_MAX_NSLEN`, else empty.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `target` is NULL or a NUL-terminated string;
/// - `cluster` is NULL or a NUL-terminated string;
/// - `nspace` is NULL or a NUL-terminated string.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Multicluster_nspace_construct(
    target: *mut c_char,
    cluster: *mut c_char,
    nspace: *mut c_char,
) {
    ffi_value!(PMIx_Multicluster_nspace_construct, (), {
        if target.is_null() {
            return;
        }
        // SAFETY: namespace arrays (C contract); bounded reads, then one bounded write.
        unsafe {
            let (c, n) = (
                bounded_bytes(cluster, PMIX_MAX_NSLEN).to_vec(),
                bounded_bytes(nspace, PMIX_MAX_NSLEN).to_vec(),
            );
            let d = core::slice::from_raw_parts_mut(target, PMIX_MAX_NSLEN + 1);
            if c.len() + n.len() < PMIX_MAX_NSLEN {
                conv::load_array(d, &[&c[..], b":", &n[..]].concat());
            } else {
                d.fill(0);
            }
        }
    })
}

/// Split `target` at its first `':'` into `cluster` and `nspace` (no `':'`: all of it
/// is the cluster and `nspace` is empty).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `target` is NULL or a NUL-terminated string;
/// - `cluster` is NULL or a NUL-terminated string;
/// - `nspace` is NULL or a NUL-terminated string.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Multicluster_nspace_parse(
    target: *mut c_char,
    cluster: *mut c_char,
    nspace: *mut c_char,
) {
    ffi_value!(PMIx_Multicluster_nspace_parse, (), {
        if cluster.is_null() || nspace.is_null() {
            return;
        }
        // SAFETY: namespace arrays (C contract); bounded reads and writes.
        unsafe {
            let t = bounded_bytes(target, PMIX_MAX_NSLEN).to_vec();
            let (c, n) = match t.iter().position(|&b| b == b':') {
                Some(i) => (&t[..i], &t[i + 1..]),
                None => (&t[..], &[][..]),
            };
            conv::load_array(
                core::slice::from_raw_parts_mut(cluster, PMIX_MAX_NSLEN + 1),
                c,
            );
            conv::load_array(
                core::slice::from_raw_parts_mut(nspace, PMIX_MAX_NSLEN + 1),
                n,
            );
        }
    })
}

// ---- pmix_proc_t lifecycle ----

/// Empty namespace, rank `PMIX_RANK_UNDEF`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_proc_t` that the library reads or fills
///   in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_construct(p: *mut pmix_proc_t) {
    ffi_value!(PMIx_Proc_construct, (), {
        if !p.is_null() {
            // SAFETY: writable proc (C contract).
            unsafe { conv::elem_construct(p as *mut u8, PMIX_PROC) };
        }
    })
}

/// Same as `PMIx_Proc_construct` (a proc owns nothing).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_proc_t` that the library reads or fills
///   in as described above.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_destruct(p: *mut pmix_proc_t) {
    ffi_value!(PMIx_Proc_destruct, (), {
        // SAFETY: this export's `# Safety` contract promises of `p` what
        // `PMIx_Proc_construct` requires.
        unsafe { PMIx_Proc_construct(p) }
    })
}

/// A malloc'd array of `n` constructed procs (NULL for 0); free with `PMIx_Proc_free`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_create(n: usize) -> *mut pmix_proc_t {
    ffi_value!(PMIx_Proc_create, core::ptr::null_mut(), {
        conv::elem_array_new(n, PMIX_PROC).unwrap_or(core::ptr::null_mut()) as *mut pmix_proc_t
    })
}

/// Free an array of procs. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to `n` initialised `pmix_proc_t`s that the caller may write
///   through.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_free(p: *mut pmix_proc_t, n: usize) {
    ffi_value!(PMIx_Proc_free, (), {
        let _ = n;
        // SAFETY: NULL or a malloc'd array (C contract).
        unsafe { alloc::free(p) };
    })
}

/// Construct `p` and set it to (`nspace`, `rank`).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_proc_t` that the library reads or fills
///   in as described above;
/// - `nspace` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_load(
    p: *mut pmix_proc_t,
    nspace: *const c_char,
    rank: pmix_rank_t,
) {
    ffi_value!(PMIx_Proc_load, (), {
        // SAFETY: this export's `# Safety` contract promises of `p` what
        // `PMIx_Proc_construct` requires.
        unsafe {
            PMIx_Proc_construct(p);
            PMIx_Load_procid(p, nspace, rank);
        }
    })
}
