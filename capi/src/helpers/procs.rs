//! Keys, namespaces and process identifiers: `PMIx_Load_*`, `PMIx_Check_*`,
//! `PMIx_Xfer_procid`, `PMIx_*_invalid`, `PMIx_Rank_valid`, the multicluster
//! namespace helpers and the `pmix_proc_t` lifecycle.
//!
//! These take fixed C arrays (`pmix_key_t`, `pmix_nspace_t`) or C strings; every read
//! is bounded by the array length, so an unterminated input cannot be over-read.

use crate::conv;
use crate::ffi_value;
use core::ffi::c_char;
use pmix_sys::*;

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
        if let Some(d) = crate::arg!(opt_slice_mut key, PMIX_MAX_KEYLEN + 1) {
            conv::load_array(d, crate::arg!(bounded src, PMIX_MAX_KEYLEN));
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
        crate::arg!(bounded key, PMIX_MAX_KEYLEN) == crate::arg!(bounded str_, PMIX_MAX_KEYLEN)
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
        crate::arg!(bounded key, PMIX_MAX_KEYLEN).starts_with(b"pmix")
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
        if let Some(d) = crate::arg!(opt_slice_mut nspace, PMIX_MAX_NSLEN + 1) {
            conv::load_array(d, crate::arg!(bounded str_, PMIX_MAX_NSLEN));
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
        crate::arg!(bounded nspace, PMIX_MAX_NSLEN).is_empty()
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
        nspace_match(
            crate::arg!(bounded key1, PMIX_MAX_NSLEN),
            crate::arg!(bounded key2, PMIX_MAX_NSLEN),
        )
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
        if let Ok(Some(p)) = crate::arg!(opt_mut p) {
            load_proc(p, crate::arg!(bounded ns, PMIX_MAX_NSLEN), rk);
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
        if core::ptr::eq(dst, src) {
            return;
        }
        let Ok(Some(d)) = crate::arg!(opt_mut dst) else {
            return;
        };
        *d = match crate::arg!(opt src) {
            Ok(Some(s)) => *s,
            _ => crate::args::zeroed(),
        };
    })
}

/// True when the ranks are equal or either is `PMIX_RANK_WILDCARD`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_rank(a: pmix_rank_t, b: pmix_rank_t) -> bool {
    ffi_value!(PMIx_Check_rank, false, { rank_match(a, b) })
}

fn rank_match(a: pmix_rank_t, b: pmix_rank_t) -> bool {
    a == b || a == PMIX_RANK_WILDCARD || b == PMIX_RANK_WILDCARD
}

/// `PMIx_Check_nspace` on the bytes: an empty namespace matches any.
fn nspace_match(a: &[u8], b: &[u8]) -> bool {
    a.is_empty() || b.is_empty() || a == b
}

/// The bytes of a fixed `pmix_nspace_t` up to its NUL (at most `PMIX_MAX_NSLEN`).
fn nspace_of(ns: &pmix_nspace_t) -> Vec<u8> {
    let n = ns.iter().take(PMIX_MAX_NSLEN).take_while(|&&c| c != 0);
    n.map(|&c| c as u8).collect()
}

/// Set `p` to (`ns`, `rk`), the namespace zero-padded.
fn load_proc(p: &mut pmix_proc_t, ns: &[u8], rk: pmix_rank_t) {
    conv::load_array(&mut p.nspace, ns);
    p.rank = rk;
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
        match (crate::arg!(opt a), crate::arg!(opt b)) {
            (Ok(Some(a)), Ok(Some(b))) => {
                nspace_match(&nspace_of(&a.nspace), &nspace_of(&b.nspace))
                    && rank_match(a.rank, b.rank)
            }
            _ => a.is_null() && b.is_null(),
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
        match crate::arg!(opt p) {
            Ok(Some(p)) => nspace_of(&p.nspace).is_empty() || p.rank == PMIX_RANK_INVALID,
            _ => true,
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
        let (c, n) = (
            crate::arg!(bounded cluster, PMIX_MAX_NSLEN).to_vec(),
            crate::arg!(bounded nspace, PMIX_MAX_NSLEN).to_vec(),
        );
        let Some(d) = crate::arg!(opt_slice_mut target, PMIX_MAX_NSLEN + 1) else {
            return;
        };
        if c.len() + n.len() < PMIX_MAX_NSLEN {
            conv::load_array(d, &[&c[..], b":", &n[..]].concat());
        } else {
            d.fill(0);
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
        let t = crate::arg!(bounded target, PMIX_MAX_NSLEN).to_vec();
        let (c, n) = match t.iter().position(|&b| b == b':') {
            Some(i) => (&t[..i], &t[i + 1..]),
            None => (&t[..], &[][..]),
        };
        if let Some(d) = crate::arg!(opt_slice_mut cluster, PMIX_MAX_NSLEN + 1) {
            conv::load_array(d, c);
        }
        if let Some(d) = crate::arg!(opt_slice_mut nspace, PMIX_MAX_NSLEN + 1) {
            conv::load_array(d, n);
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
        if let Some(p) = crate::arg!(opt_zeroed p) {
            crate::args::construct(p);
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
        if let Some(p) = crate::arg!(opt_zeroed p) {
            crate::args::construct(p);
        }
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
        // The count is not needed: procs own nothing.
        if let Some(b) = crate::arg!(block p, n) {
            b.free_block();
        }
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
        if let Some(p) = crate::arg!(opt_zeroed p) {
            crate::args::construct(p);
            load_proc(p, crate::arg!(bounded nspace, PMIX_MAX_NSLEN), rank);
        }
    })
}
