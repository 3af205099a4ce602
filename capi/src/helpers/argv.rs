//! `PMIx_Argv_*` and `PMIx_Setenv`: NULL-terminated `char **` vectors whose array and
//! strings all come from libc malloc, so `PMIx_Argv_free` (or plain `free()` of each
//! entry and the array) releases them.

use crate::conv::{self, alloc};
use crate::{ffi_status, ffi_value};
use core::ffi::{c_char, c_int};
use pmix_sys::*;

extern "C" {
    /// The process environment (POSIX).
    static mut environ: *mut *mut c_char;
}

/// Number of entries (NULL: 0).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `a` is NULL or a writable `char *` slot.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_count(a: *mut *mut c_char) -> c_int {
    ffi_value!(PMIx_Argv_count, 0, {
        // SAFETY: NULL or a NULL-terminated vector (C contract).
        c_int::try_from(crate::arg!(argv a).count()).unwrap_or(c_int::MAX)
    })
}

/// Shared by the three adders: `args!(argv, arg)` is `Err(status)` or the vector's slot
/// and the argument bytes (in exports whose contract makes `argv` NULL or the slot of a
/// malloc'd vector and `arg` NULL or a C string).
macro_rules! args {
    ($argv:expr, $arg:expr) => {{
        let (argv, arg) = ($argv, $arg);
        if argv.is_null() || arg.is_null() {
            log::warn!("PMIx_Argv_*: NULL argument");
            Err(PMIX_ERR_BAD_PARAM)
        } else {
            crate::arg!(argv_slot argv)
                .map(|v| (v, crate::arg!(cbytes arg).unwrap_or_default()))
                .map_err(|e| e.status())
        }
    }};
}

/// Append a copy of `arg` to `*argv` (creating the vector if `*argv` is NULL).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL `argv`/`arg`), `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `arg` is NULL or a NUL-terminated string the library only reads.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_nosize(
    argv: *mut *mut *mut c_char,
    arg: *const c_char,
) -> pmix_status_t {
    ffi_status!(PMIx_Argv_append_nosize, {
        // SAFETY: C contract.
        match args!(argv, arg) {
            Ok((mut v, a)) => crate::guard::status_of(v.append(a)),
            Err(rc) => rc,
        }
    })
}

/// Insert a copy of `arg` at the front of `*argv`.
///
/// # Returns
/// As `PMIx_Argv_append_nosize`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `arg` is NULL or a NUL-terminated string the library only reads.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_prepend_nosize(
    argv: *mut *mut *mut c_char,
    arg: *const c_char,
) -> pmix_status_t {
    ffi_status!(PMIx_Argv_prepend_nosize, {
        // SAFETY: C contract.
        match args!(argv, arg) {
            Ok((mut v, a)) => crate::guard::status_of(v.prepend(a)),
            Err(rc) => rc,
        }
    })
}

/// Append a copy of `arg` unless an equal string is already present (then
/// `PMIX_SUCCESS` with no change).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `arg` is NULL or a NUL-terminated string the library only reads.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_unique_nosize(
    argv: *mut *mut *mut c_char,
    arg: *const c_char,
) -> pmix_status_t {
    ffi_status!(PMIx_Argv_append_unique_nosize, {
        // SAFETY: C contract.
        let (mut v, a) = match args!(argv, arg) {
            Ok(x) => x,
            Err(rc) => return rc,
        };
        if v.argv()
            .to_vec()
            .is_some_and(|all| all.iter().any(|s| s == a))
        {
            return PMIX_SUCCESS;
        }
        crate::guard::status_of(v.append(a))
    })
}

/// Free every string and the vector. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `argv` is NULL or a writable slot holding NULL or a NULL-terminated `char **` array of
///   malloc'd strings (this library's or `strdup`'s).
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_free(argv: *mut *mut c_char) {
    ffi_value!(PMIx_Argv_free, (), {
        // SAFETY: NULL or a malloc'd vector of malloc'd strings (C contract).
        crate::arg!(argv_free argv)
    })
}

/// The fields of `s` split at `delimiter` as a malloc'd vector (NULL for NULL `s` or
/// no field).
fn split_argv(s: Option<&[u8]>, delimiter: c_int, include_empty: bool) -> *mut *mut c_char {
    let Some(s) = s else {
        return core::ptr::null_mut();
    };
    let fields = split(s, delimiter as u8, include_empty);
    if fields.is_empty() {
        return core::ptr::null_mut();
    }
    conv::argv_to_c(&Some(fields)).unwrap_or(core::ptr::null_mut())
}

/// Split `src` at `delimiter`; empty fields are kept only with `include_empty` (a
/// trailing delimiter never yields a field). NULL or `""` gives NULL.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `src_string` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_inter(
    src_string: *const c_char,
    delimiter: c_int,
    include_empty: bool,
) -> *mut *mut c_char {
    ffi_value!(PMIx_Argv_split_inter, core::ptr::null_mut(), {
        // SAFETY: NULL or a C string (C contract).
        split_argv(crate::arg!(cbytes src_string), delimiter, include_empty)
    })
}

/// The fields of `s` as `PMIx_Argv_split_inter` defines them.
pub(crate) fn split(s: &[u8], delim: u8, include_empty: bool) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let j = s[i..]
            .iter()
            .position(|&c| c == delim)
            .map_or(s.len(), |k| i + k);
        if j > i || include_empty {
            out.push(s[i..j].to_vec());
        }
        i = j + 1;
    }
    out
}

/// `PMIx_Argv_split_inter(src, delimiter, true)`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `src_string` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_with_empty(
    src_string: *const c_char,
    delimiter: c_int,
) -> *mut *mut c_char {
    // SAFETY: this export's `# Safety` contract promises of `src_string`, `delimiter` what
    // `PMIx_Argv_split_inter` requires.
    ffi_value!(PMIx_Argv_split_with_empty, core::ptr::null_mut(), {
        split_argv(crate::arg!(cbytes src_string), delimiter, true)
    })
}

/// `PMIx_Argv_split_inter(src, delimiter, false)`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `src_string` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split(
    src_string: *const c_char,
    delimiter: c_int,
) -> *mut *mut c_char {
    // SAFETY: this export's `# Safety` contract promises of `src_string`, `delimiter` what
    // `PMIx_Argv_split_inter` requires.
    ffi_value!(PMIx_Argv_split, core::ptr::null_mut(), {
        split_argv(crate::arg!(cbytes src_string), delimiter, false)
    })
}

/// The entries joined with `delimiter`, malloc'd (NULL or empty vector: `""`). A NUL
/// delimiter ends the C string after the first entry, as a C implementation's would.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `argv` is NULL or a writable slot holding NULL or a NULL-terminated `char **` array of
///   malloc'd strings (this library's or `strdup`'s).
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_join(argv: *mut *mut c_char, delimiter: c_int) -> *mut c_char {
    ffi_value!(PMIx_Argv_join, core::ptr::null_mut(), {
        // SAFETY: NULL or a NULL-terminated vector (C contract).
        let all = crate::arg!(argv argv).to_vec().unwrap_or_default();
        let mut joined = all.join(&(delimiter as u8));
        if let Some(end) = joined.iter().position(|&c| c == 0) {
            joined.truncate(end);
        }
        alloc::strdup_bytes(&joined).unwrap_or(core::ptr::null_mut())
    })
}

/// A deep copy (NULL stays NULL; an empty vector gives an empty vector).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `argv` is NULL or a writable slot holding NULL or a NULL-terminated `char **` array of
///   malloc'd strings (this library's or `strdup`'s).
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_copy(argv: *mut *mut c_char) -> *mut *mut c_char {
    ffi_value!(PMIx_Argv_copy, core::ptr::null_mut(), {
        // SAFETY: NULL or a NULL-terminated vector (C contract).
        conv::argv_to_c(&crate::arg!(argv argv).to_vec()).unwrap_or(core::ptr::null_mut())
    })
}

/// Set `name=value` in `*env`. When `*env` is the process `environ`, `setenv(3)` (or
/// `unsetenv(3)` for a NULL `value`) is used. Otherwise an existing `name=` entry is
/// replaced if `overwrite`, or left alone with `PMIX_ERR_EXISTS`; a new entry is
/// appended (a NULL `value` stores `name=`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_EXISTS`, `PMIX_ERR_BAD_PARAM` (NULL `env`/`name`),
/// `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `name` is NULL or a NUL-terminated string the library only reads;
/// - `value` is NULL or a NUL-terminated string the library only reads.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Setenv(
    name: *const c_char,
    value: *const c_char,
    overwrite: bool,
    env: *mut *mut *mut c_char,
) -> pmix_status_t {
    ffi_status!(PMIx_Setenv, {
        crate::check_null!(env, name);
        // SAFETY: `env` is writable (C contract); reading the `environ` pointer value.
        let (v, is_environ) = unsafe { (&mut *env, *env == core::ptr::addr_of!(environ).read()) };
        if is_environ {
            // SAFETY: C strings (C contract).
            let rc = unsafe {
                if value.is_null() {
                    libc::unsetenv(name)
                } else {
                    libc::setenv(name, value, overwrite as c_int)
                }
            };
            return if rc == 0 {
                PMIX_SUCCESS
            } else {
                PMIX_ERR_BAD_PARAM
            };
        }
        // SAFETY: C strings (C contract).
        let (n, val) = unsafe {
            (
                conv::cstr_ref(name).unwrap_or_default(),
                conv::cstr_ref(value).unwrap_or_default(),
            )
        };
        let entry = [n, b"=", val].concat();
        let prefix = [n, b"="].concat();
        // SAFETY: `*v` is NULL or a malloc'd NULL-terminated vector (C contract).
        let count = unsafe { conv::argv_count(*v) };
        for i in 0..count {
            // SAFETY: entry `i` is a C string of the vector.
            let cur = unsafe { *(*v).add(i) };
            // SAFETY: as above.
            if unsafe { conv::cstr_ref(cur) }.is_some_and(|s| s.starts_with(&prefix)) {
                if !overwrite {
                    return PMIX_ERR_EXISTS;
                }
                return match alloc::strdup_bytes(&entry) {
                    // SAFETY: replace entry `i`, freeing the old malloc'd string.
                    Ok(p) => unsafe {
                        alloc::free(cur);
                        *(*v).add(i) = p;
                        PMIX_SUCCESS
                    },
                    Err(e) => e.status(),
                };
            }
        }
        // SAFETY: as above.
        crate::guard::status_of(unsafe { conv::argv_append(v, &entry) })
    })
}

#[cfg(test)]
mod tests {
    use super::split;

    /// Regression (found by tests-c/misuse/procs_argv.c): a NUL delimiter made the
    /// joined bytes contain NUL, so the export returned NULL instead of a string.
    #[test]
    fn argv_join_with_nul_delimiter_returns_first_entry() {
        // SAFETY: a malloc'd vector built and freed here.
        unsafe {
            let v = crate::conv::argv_to_c(&Some(vec![b"a".to_vec(), b"b".to_vec()])).unwrap();
            let s = super::PMIx_Argv_join(v, 0);
            assert!(!s.is_null());
            assert_eq!(core::ffi::CStr::from_ptr(s).to_bytes(), b"a");
            crate::conv::alloc::free(s);
            crate::conv::argv_free(v);
        }
    }

    #[test]
    fn split_matches_the_documented_rules() {
        let f = |s: &str, e| {
            split(s.as_bytes(), b':', e)
                .into_iter()
                .map(|x| String::from_utf8(x).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(f("a::b", false), ["a", "b"]);
        assert_eq!(f("a::b", true), ["a", "", "b"]);
        assert_eq!(f(":a:", true), ["", "a"]);
        assert!(f("", true).is_empty());
        assert_eq!(f("abc", false), ["abc"]);
    }
}
