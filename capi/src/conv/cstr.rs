//! C strings, keys, namespaces and `argv` vectors.
//!
//! Keys and namespaces are read with a bound: a `pmix_key_t`/`pmix_nspace_t` array
//! without a NUL inside it, or a `char *` key longer than `PMIX_MAX_KEYLEN`, is
//! `PMIX_ERR_BAD_PARAM` — never a read past the array.

use super::alloc;
use core::ffi::{c_char, CStr};
use pmix_core::{Error, Key, Nspace, Result};
use pmix_sys as sys;

/// The bytes of a NUL-terminated C string; NULL gives `None`.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string.
pub unsafe fn cstr_bytes(p: *const c_char) -> Option<Vec<u8>> {
    if p.is_null() {
        return None;
    }
    // SAFETY: promised by the caller.
    Some(unsafe { CStr::from_ptr(p) }.to_bytes().to_vec())
}

/// The bytes of a C string borrowed for the duration of the call; NULL gives `None`.
///
/// # Safety
/// As [`cstr_bytes`], and the string outlives `'a`.
pub unsafe fn cstr_ref<'a>(p: *const c_char) -> Option<&'a [u8]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: promised by the caller.
    Some(unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// Length of the string at `p`, reading at most `max` bytes: `None` when no NUL is
/// found within `max` bytes.
///
/// # Safety
/// `p` is non-NULL and readable up to its NUL or `max` bytes, whichever comes first.
unsafe fn bounded_len(p: *const c_char, max: usize) -> Option<usize> {
    // SAFETY: strnlen reads at most `max` bytes and stops at the first NUL.
    let n = unsafe { libc::strnlen(p, max) };
    if n < max {
        Some(n)
    } else {
        None
    }
}

fn utf8(b: &[u8], what: &str) -> Result<String> {
    String::from_utf8(b.to_vec()).map_err(|_| {
        log::warn!("{} is not valid UTF-8", what);
        Error::bad_param(format!("{} is not valid UTF-8", what))
    })
}

/// A key from a caller's `const char *key` (1..=511 bytes).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL, empty, over-length or non-UTF-8 keys.
///
/// # Safety
/// `p` is NULL or points to a string readable up to its NUL or 512 bytes.
pub unsafe fn key_from_ptr(p: *const c_char) -> Result<Key> {
    if p.is_null() {
        log::warn!("NULL key");
        return Err(Error::bad_param("NULL key"));
    }
    // SAFETY: promised by the caller.
    let Some(n) = (unsafe { bounded_len(p, sys::PMIX_MAX_KEYLEN + 1) }) else {
        log::warn!("key longer than PMIX_MAX_KEYLEN");
        return Err(Error::bad_param("key longer than PMIX_MAX_KEYLEN"));
    };
    // SAFETY: `n` bytes before the NUL are readable.
    let b = unsafe { core::slice::from_raw_parts(p as *const u8, n) };
    Key::new(utf8(b, "key")?)
}

/// A caller's `const char *key` borrowed as a string (checked like [`key_from_ptr`]
/// except for what [`Key::new`] checks when the key is stored; nothing is copied).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL, over-length or non-UTF-8 keys.
///
/// # Safety
/// `p` is NULL or points to a string readable up to its NUL or 512 bytes, which
/// outlives `'a`.
pub unsafe fn key_str<'a>(p: *const c_char) -> Result<&'a str> {
    if p.is_null() {
        log::warn!("NULL key");
        return Err(Error::bad_param("NULL key"));
    }
    // SAFETY: this function's `# Safety` contract promises of `p` what `key_bytes`
    // requires.
    let Some(b) = (unsafe { key_bytes(p) }) else {
        log::warn!("key longer than PMIX_MAX_KEYLEN");
        return Err(Error::bad_param("key longer than PMIX_MAX_KEYLEN"));
    };
    if b.is_ascii() {
        // SAFETY: ASCII is valid UTF-8 (the common case, checked without the general
        // validator: a Put or Get calls this every time).
        return Ok(unsafe { core::str::from_utf8_unchecked(b) });
    }
    core::str::from_utf8(b).map_err(|_| {
        log::warn!("key is not valid UTF-8");
        Error::bad_param("key is not valid UTF-8")
    })
}

/// A key from a `pmix_key_t` array; the empty key is allowed (an unset info).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if the array holds no NUL or is not UTF-8.
pub fn key_from_array(k: &sys::pmix_key_t) -> Result<Key> {
    let b = array_str(k, "key")?;
    Key::new_allow_empty(utf8(b, "key")?)
}

/// A namespace from a `pmix_nspace_t` array (possibly empty).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if the array holds no NUL or is not UTF-8.
pub fn nspace_from_array(ns: &sys::pmix_nspace_t) -> Result<Nspace> {
    let b = array_str(ns, "namespace")?;
    Nspace::new(utf8(b, "namespace")?)
}

/// A namespace from a `const char *` (at most 255 bytes).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL, over-length or non-UTF-8 input.
///
/// # Safety
/// `p` is NULL or points to a string readable up to its NUL or 256 bytes.
pub unsafe fn nspace_from_ptr(p: *const c_char) -> Result<Nspace> {
    if p.is_null() {
        log::warn!("NULL namespace");
        return Err(Error::bad_param("NULL namespace"));
    }
    // SAFETY: promised by the caller.
    let Some(n) = (unsafe { bounded_len(p, sys::PMIX_MAX_NSLEN + 1) }) else {
        log::warn!("namespace longer than PMIX_MAX_NSLEN");
        return Err(Error::bad_param("namespace longer than PMIX_MAX_NSLEN"));
    };
    // SAFETY: `n` bytes before the NUL are readable.
    let b = unsafe { core::slice::from_raw_parts(p as *const u8, n) };
    Nspace::new(utf8(b, "namespace")?)
}

/// The bytes of a caller's `const char *key` before its NUL, if it has one within
/// `PMIX_MAX_KEYLEN + 1` bytes (no validation beyond that; see [`key_from_ptr`]).
///
/// # Safety
/// `p` is non-NULL and readable up to its NUL or 512 bytes.
pub unsafe fn key_bytes<'a>(p: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: promised by the caller.
    let n = unsafe { bounded_len(p, sys::PMIX_MAX_KEYLEN + 1) }?;
    // SAFETY: `n` bytes before the NUL are readable.
    Some(unsafe { core::slice::from_raw_parts(p as *const u8, n) })
}

/// The bytes of a `pmix_nspace_t` before its NUL (`None` without one).
pub fn nspace_bytes(ns: &sys::pmix_nspace_t) -> Option<&[u8]> {
    // SAFETY: the array is readable for its whole length; strnlen reads no further.
    let n = unsafe { libc::strnlen(ns.as_ptr(), ns.len()) };
    // SAFETY: c_char and u8 have the same size and alignment; the slice is borrowed.
    let b = unsafe { core::slice::from_raw_parts(ns.as_ptr() as *const u8, ns.len()) };
    b.get(..n).filter(|_| n < ns.len())
}

/// The bytes before the first NUL of a fixed C array.
fn array_str<'a>(a: &'a [c_char], what: &str) -> Result<&'a [u8]> {
    // SAFETY: c_char and u8 have the same size and alignment; the slice is borrowed.
    let b = unsafe { core::slice::from_raw_parts(a.as_ptr() as *const u8, a.len()) };
    match b.iter().position(|&c| c == 0) {
        Some(n) => Ok(&b[..n]),
        None => {
            log::warn!("{} array is not NUL-terminated", what);
            Err(Error::bad_param(format!("{} is not NUL-terminated", what)))
        }
    }
}

/// Copy `s` into a fixed C array, truncated to `len - 1` bytes and zero-filled (the
/// semantics of `PMIX_LOAD_KEY`/`PMIX_LOAD_NSPACE`).
pub fn load_array(dst: &mut [c_char], s: &[u8]) {
    dst.fill(0);
    let n = s.len().min(dst.len().saturating_sub(1));
    for (d, &c) in dst.iter_mut().zip(&s[..n]) {
        *d = c as c_char;
    }
}

/// Store a key into a `pmix_key_t`.
pub fn load_key(dst: &mut sys::pmix_key_t, k: &Key) {
    load_array(dst, k.as_str().as_bytes());
}

/// Store a namespace into a `pmix_nspace_t`.
pub fn load_nspace(dst: &mut sys::pmix_nspace_t, ns: &Nspace) {
    load_array(dst, ns.as_str().as_bytes());
}

/// Number of entries of a NULL-terminated `char **` (NULL counts as 0).
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of pointers.
pub unsafe fn argv_count(argv: *const *mut c_char) -> usize {
    if argv.is_null() {
        return 0;
    }
    let mut n = 0;
    // SAFETY: the array is NULL-terminated (caller's promise), so every index up to
    // and including the terminator is readable.
    while !unsafe { *argv.add(n) }.is_null() {
        n += 1;
    }
    n
}

/// A NULL-terminated `char **` as owned byte strings; NULL gives `None`.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of NUL-terminated strings.
pub unsafe fn argv_from_c(argv: *const *mut c_char) -> Option<Vec<Vec<u8>>> {
    if argv.is_null() {
        return None;
    }
    // SAFETY: promised by the caller.
    let n = unsafe { argv_count(argv) };
    // SAFETY: the first `n` entries are non-NULL strings.
    Some(
        (0..n)
            .filter_map(|i| unsafe { cstr_bytes(*argv.add(i)) })
            .collect(),
    )
}

/// A malloc'd NULL-terminated `char **` copy of `v` (`None` → NULL).
///
/// # Errors
/// `PMIX_ERR_NOMEM`, or `PMIX_ERR_BAD_PARAM` for an entry containing NUL; nothing
/// is leaked on error.
pub fn argv_to_c(v: &Option<Vec<Vec<u8>>>) -> Result<*mut *mut c_char> {
    let Some(v) = v else {
        return Ok(core::ptr::null_mut());
    };
    let out = alloc::calloc_array::<*mut c_char>(v.len() + 1)?;
    for (i, s) in v.iter().enumerate() {
        match alloc::strdup_bytes(s) {
            // SAFETY: `out` has `v.len() + 1` slots; `i < v.len()`.
            Ok(p) => unsafe { *out.add(i) = p },
            Err(e) => {
                // SAFETY: `out` is NULL-terminated (calloc) and owns its entries.
                unsafe { argv_free(out) };
                return Err(e);
            }
        }
    }
    Ok(out)
}

/// Free a NULL-terminated `char **` and its strings (NULL is fine).
///
/// # Safety
/// `argv` is NULL or a NULL-terminated malloc'd array of malloc'd strings.
pub unsafe fn argv_free(argv: *mut *mut c_char) {
    if argv.is_null() {
        return;
    }
    // SAFETY: promised by the caller.
    unsafe {
        let n = argv_count(argv);
        for i in 0..n {
            alloc::free(*argv.add(i));
        }
        alloc::free(argv);
    }
}

/// Append a copy of `arg` to `*argv`, creating the array when `*argv` is NULL
/// (`PMIx_Argv_append_nosize`).
///
/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_BAD_PARAM` (NUL in `arg`); `*argv` is unchanged then.
///
/// # Safety
/// `*argv` is NULL or a NULL-terminated malloc'd array of malloc'd strings.
pub unsafe fn argv_append(argv: &mut *mut *mut c_char, arg: &[u8]) -> Result<()> {
    // SAFETY: promised by the caller.
    unsafe { argv_insert(argv, arg, false) }
}

/// Insert a copy of `arg` at the front of `*argv` (`PMIx_Argv_prepend_nosize`).
///
/// # Errors
/// As [`argv_append`].
///
/// # Safety
/// As [`argv_append`].
pub unsafe fn argv_prepend(argv: &mut *mut *mut c_char, arg: &[u8]) -> Result<()> {
    // SAFETY: promised by the caller.
    unsafe { argv_insert(argv, arg, true) }
}

unsafe fn argv_insert(argv: &mut *mut *mut c_char, arg: &[u8], front: bool) -> Result<()> {
    let s = alloc::strdup_bytes(arg)?;
    // SAFETY: `*argv` is NULL or a NULL-terminated malloc'd array (caller's promise).
    let n = unsafe { argv_count(*argv) };
    let bytes = (n + 2) * core::mem::size_of::<*mut c_char>();
    // SAFETY: as above; on failure the old array is untouched and `s` is freed.
    let grown = match unsafe { alloc::realloc_bytes(*argv as *mut _, bytes) } {
        Ok(p) => p as *mut *mut c_char,
        Err(e) => {
            // SAFETY: `s` is ours and unused.
            unsafe { alloc::free(s) };
            return Err(e);
        }
    };
    // SAFETY: `grown` has `n + 2` slots; the first `n` hold the old entries.
    unsafe {
        if front {
            core::ptr::copy(grown, grown.add(1), n);
            *grown = s;
        } else {
            *grown.add(n) = s;
        }
        *grown.add(n + 1) = core::ptr::null_mut();
    }
    *argv = grown;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_array_without_nul_is_bad_param() {
        let k: sys::pmix_key_t = [b'a' as c_char; sys::PMIX_MAX_KEYLEN + 1];
        assert_eq!(
            key_from_array(&k).unwrap_err().status,
            sys::PMIX_ERR_BAD_PARAM
        );
        let mut k2: sys::pmix_key_t = [0; sys::PMIX_MAX_KEYLEN + 1];
        load_array(&mut k2, &[b'x'; 600]);
        assert_eq!(
            key_from_array(&k2).unwrap().as_str().len(),
            sys::PMIX_MAX_KEYLEN
        );
    }

    #[test]
    fn key_pointer_length_checked() {
        let long = std::ffi::CString::new(vec![b'k'; 512]).unwrap();
        // SAFETY: NUL-terminated.
        let e = unsafe { key_from_ptr(long.as_ptr()) }.unwrap_err();
        assert_eq!(e.status, sys::PMIX_ERR_BAD_PARAM);
        let ok = std::ffi::CString::new(vec![b'k'; 511]).unwrap();
        // SAFETY: NUL-terminated.
        assert!(unsafe { key_from_ptr(ok.as_ptr()) }.is_ok());
        // SAFETY: NULL is allowed.
        assert!(unsafe { key_from_ptr(core::ptr::null()) }.is_err());
    }

    #[test]
    fn argv_round_trip_and_edit() {
        let v = Some(vec![b"a".to_vec(), b"bb".to_vec()]);
        let mut p = argv_to_c(&v).unwrap();
        // SAFETY: `p` is ours and NULL-terminated throughout.
        unsafe {
            argv_append(&mut p, b"c").unwrap();
            argv_prepend(&mut p, b"z").unwrap();
            assert_eq!(
                argv_from_c(p).unwrap(),
                vec![b"z".to_vec(), b"a".to_vec(), b"bb".to_vec(), b"c".to_vec()]
            );
            argv_free(p);
        }
        assert!(argv_to_c(&None).unwrap().is_null());
    }
}
