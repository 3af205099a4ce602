//! The one allocator for memory that crosses into C.
//!
//! Everything a C caller may `free()` — strings, arrays of structs, byte objects,
//! `argv` vectors — is allocated here with libc `malloc`/`calloc`/`realloc`, so the
//! caller's `free()` (or our own `PMIx_*_free`) always matches. No Rust `Box` or `Vec`
//! buffer is ever handed to C to free.
//!
//! Every function reports an allocation failure as `PMIX_ERR_NOMEM`; none returns a
//! NULL pointer on success (zero-sized requests allocate one byte), so a NULL result
//! from C's point of view always means "nothing there", never "allocation failed".

use core::ffi::{c_char, c_void};
use pmix_core::{Error, Result};
use pmix_sys as sys;

/// The error for a failed allocation.
pub fn nomem() -> Error {
    Error::new(sys::PMIX_ERR_NOMEM, "out of memory")
}

/// `malloc(n)` (at least one byte).
///
/// # Errors
/// `PMIX_ERR_NOMEM` when libc cannot allocate.
pub fn malloc_bytes(n: usize) -> Result<*mut u8> {
    // SAFETY: malloc has no preconditions; the result is checked for NULL.
    let p = unsafe { libc::malloc(n.max(1)) } as *mut u8;
    if p.is_null() {
        Err(nomem())
    } else {
        Ok(p)
    }
}

/// `calloc(n, size_of::<T>())`: `n` zeroed elements (at least one byte).
///
/// All-zero bytes are the "constructed" state of every PMIx struct we allocate this
/// way except where the caller fixes fields up afterwards.
///
/// # Errors
/// `PMIX_ERR_NOMEM` on overflow or allocation failure.
pub fn calloc_array<T>(n: usize) -> Result<*mut T> {
    let size = core::mem::size_of::<T>().max(1);
    if n.checked_mul(size).is_none() {
        return Err(nomem());
    }
    // SAFETY: calloc has no preconditions and checks the product itself; the result is
    // checked for NULL.
    let p = unsafe { libc::calloc(n.max(1), size) } as *mut T;
    if p.is_null() {
        Err(nomem())
    } else {
        Ok(p)
    }
}

/// `realloc(p, n)`.
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `p` is then still valid and unchanged.
///
/// # Safety
/// `p` is NULL or a live pointer from this module (libc malloc).
pub unsafe fn realloc_bytes(p: *mut c_void, n: usize) -> Result<*mut c_void> {
    // SAFETY: the caller promises `p` came from libc malloc (or is NULL).
    let q = unsafe { libc::realloc(p, n.max(1)) };
    if q.is_null() {
        Err(nomem())
    } else {
        Ok(q)
    }
}

/// A malloc'd copy of `b` for a `(bytes, size)` pair: empty input gives `(NULL, 0)`.
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub fn bytes_to_c(b: &[u8]) -> Result<(*mut u8, usize)> {
    if b.is_empty() {
        return Ok((core::ptr::null_mut(), 0));
    }
    let p = malloc_bytes(b.len())?;
    // SAFETY: `p` has room for `b.len()` bytes and does not overlap `b`.
    unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len()) };
    Ok((p, b.len()))
}

/// A malloc'd copy of `b`, never NULL (an empty `b` gives a one-byte block).
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub fn malloc_copy(b: &[u8]) -> Result<*mut u8> {
    let p = malloc_bytes(b.len())?;
    // SAFETY: `p` has room for `b.len()` bytes and does not overlap `b`.
    unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len()) };
    Ok(p)
}

/// A malloc'd, NUL-terminated copy of `b`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if `b` contains a NUL byte (C would see a truncated string);
/// `PMIX_ERR_NOMEM`.
pub fn strdup_bytes(b: &[u8]) -> Result<*mut c_char> {
    // libc's memchr (vectorised) rather than a byte loop: every string a Get returns
    // passes through here.
    // SAFETY: `b` is readable for `b.len()` bytes; memchr reads no further.
    let nul = unsafe { libc::memchr(b.as_ptr() as *const c_void, 0, b.len()) };
    if !nul.is_null() {
        log::warn!("string with an embedded NUL cannot be handed to C");
        return Err(Error::bad_param("string contains a NUL byte"));
    }
    let p = malloc_bytes(b.len() + 1)?;
    // SAFETY: `p` has room for `b.len() + 1` bytes and does not overlap `b`.
    unsafe {
        core::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len());
        *p.add(b.len()) = 0;
    }
    Ok(p as *mut c_char)
}

/// [`strdup_bytes`] of a Rust string.
///
/// # Errors
/// As [`strdup_bytes`].
pub fn strdup(s: &str) -> Result<*mut c_char> {
    strdup_bytes(s.as_bytes())
}

/// `None` → NULL, `Some(b)` → [`strdup_bytes`].
///
/// # Errors
/// As [`strdup_bytes`].
pub fn strdup_opt(b: &Option<Vec<u8>>) -> Result<*mut c_char> {
    match b {
        None => Ok(core::ptr::null_mut()),
        Some(b) => strdup_bytes(b),
    }
}

/// `free(p)`; NULL is fine.
///
/// # Safety
/// `p` is NULL or a live pointer from libc malloc that nothing uses afterwards.
pub unsafe fn free<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: promised by the caller.
        unsafe { libc::free(p as *mut c_void) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strdup_rejects_embedded_nul_and_terminates() {
        assert_eq!(
            strdup_bytes(b"a\0b").unwrap_err().status,
            sys::PMIX_ERR_BAD_PARAM
        );
        let p = strdup("abc").unwrap();
        // SAFETY: `p` is a fresh NUL-terminated malloc'd string.
        unsafe {
            assert_eq!(core::ffi::CStr::from_ptr(p).to_bytes(), b"abc");
            free(p);
        }
    }

    #[test]
    fn empty_bytes_are_null() {
        let (p, n) = bytes_to_c(&[]).unwrap();
        assert!(p.is_null());
        assert_eq!(n, 0);
    }

    #[test]
    fn calloc_overflow_is_nomem() {
        assert_eq!(
            calloc_array::<u64>(usize::MAX / 4).unwrap_err().status,
            sys::PMIX_ERR_NOMEM
        );
    }
}
