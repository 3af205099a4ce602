//! `PMIx_generate_regex`, `PMIx_generate_ppn`: printable maps (see
//! `pmix_core::store::regex` for the format, which the server parses back).

use crate::conv;
use core::ffi::c_char;
use pmix_core::store::regex;
use pmix_sys as sys;

unsafe fn text(input: *const c_char) -> Option<String> {
    crate::arg!(cbytes input)
        .map(<[u8]>::to_vec)
        .and_then(|b| String::from_utf8(b).ok())
}

/// `*regex` = a malloc'd node map for the comma-separated host names in `input`.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL argument, not UTF-8), `PMIX_ERR_NOMEM`.
///
/// # Safety
/// `input` is NULL or a NUL-terminated string; `regex_out` is NULL or a writable `char *`
/// slot (the result is malloc'd, the caller frees it).
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_regex(
    input: *const c_char,
    regex_out: *mut *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_generate_regex, {
        crate::check_null!(input, regex_out);
        // SAFETY: non-NULL C string.
        let Some(t) = (unsafe { text(input) }) else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        match conv::alloc::strdup(&regex::generate_nodes_from_list(&t)) {
            Ok(p) => {
                // SAFETY: writable out-parameter (promised by the caller, see `# Safety`).
                unsafe { *regex_out = p };
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}

/// `*ppn` = a malloc'd process map for `input` (`"0,1;2,3"`: per node, `;`-separated,
/// the ranks on it, comma-separated).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL argument, a non-numeric rank),
/// `PMIX_ERR_NOMEM`.
///
/// # Safety
/// `input` is NULL or a NUL-terminated string; `ppn` is NULL or a writable `char *` slot
/// (the result is malloc'd, the caller frees it).
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_ppn(
    input: *const c_char,
    ppn: *mut *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_generate_ppn, {
        crate::check_null!(input, ppn);
        // SAFETY: non-NULL C string.
        let Some(t) = (unsafe { text(input) }) else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        let out = match regex::generate_ppn_from_list(&t) {
            Ok(o) => o,
            Err(e) => return e.status(),
        };
        match conv::alloc::strdup(&out) {
            Ok(p) => {
                // SAFETY: writable out-parameter (promised by the caller, see `# Safety`).
                unsafe { *ppn = p };
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}

/// The one regex2 scheme this library writes and reads: OpenPMIx's `"raw"`, whose bytes
/// are the input string itself, NUL included.
const REGEX2_RAW: &[u8] = b"raw";

/// `*regex` = `input` encoded as a `pmix_regex2_t` of type `"raw"` (malloc'd `type` and
/// `bytes`; `len` counts the terminating NUL). No attributes are defined for `info`.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL `input` or `regex`), `PMIX_ERR_NOMEM`.
///
/// # Safety
/// `input` is NULL or a NUL-terminated string; `regex` is NULL or points to a writable
/// `pmix_regex2_t` (its bytes are malloc'd, the caller frees them). `info` is not read.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_regex2(
    input: *const c_char,
    _info: *mut sys::pmix_info_t,
    _ninfo: usize,
    regex: *mut sys::pmix_regex2_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_generate_regex2, {
        crate::check_null!(input, regex);
        let Some(mut bytes) = crate::arg!(cbytes input).map(<[u8]>::to_vec) else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        bytes.push(0);
        let ty = match conv::alloc::strdup_bytes(REGEX2_RAW) {
            Ok(p) => p,
            Err(e) => return e.status(),
        };
        let (p, n) = match conv::alloc::bytes_to_c(&bytes) {
            Ok(x) => x,
            Err(e) => {
                // SAFETY: ours, just made.
                unsafe { conv::alloc::free(ty) };
                return e.status();
            }
        };
        // SAFETY: non-NULL, writable (promised by the caller, see `# Safety`).
        unsafe {
            *regex = sys::pmix_regex2_t {
                type_: ty,
                bytes: p,
                len: n,
            }
        };
        sys::PMIX_SUCCESS
    })
}

/// `*output` = the malloc'd string a `pmix_regex2_t` encodes. Only the `"raw"` scheme is
/// known here; its bytes must end with their NUL.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED` (another scheme, e.g. OpenPMIx's
/// `"compress"`), `PMIX_ERR_BAD_PARAM` (NULL argument, NULL type, bytes not
/// NUL-terminated), `PMIX_ERR_NOMEM`.
///
/// # Safety
/// `regex` is NULL or points to a valid `pmix_regex2_t` whose bytes are readable for its
/// size; `output` is NULL or a writable `char *` slot (the result is malloc'd). `info` is
/// not read.
#[no_mangle]
pub unsafe extern "C" fn PMIx_parse_regex2(
    regex: *const sys::pmix_regex2_t,
    _info: *mut sys::pmix_info_t,
    _ninfo: usize,
    output: *mut *mut c_char,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_parse_regex2, {
        crate::check_null!(regex, output);
        // SAFETY: non-NULL, the caller's regex (promised by the caller, see `# Safety`).
        let r = unsafe { &*regex };
        let Some(ty) = crate::arg!(cbytes r.type_).map(<[u8]>::to_vec) else {
            log::warn!("PMIx_parse_regex2: NULL type");
            return sys::PMIX_ERR_BAD_PARAM;
        };
        if ty != REGEX2_RAW {
            log::info!(
                "PMIx_parse_regex2: no decoder for scheme {:?}",
                String::from_utf8_lossy(&ty)
            );
            return sys::PMIX_ERR_NOT_SUPPORTED;
        }
        if r.bytes.is_null() || r.len == 0 {
            log::warn!("PMIx_parse_regex2: empty raw regex");
            return sys::PMIX_ERR_BAD_PARAM;
        }
        // SAFETY: `bytes` is readable for `len` bytes (promised by the caller, see `# Safety`), checked non-NULL.
        let b = unsafe { core::slice::from_raw_parts(r.bytes, r.len) };
        let Some((&0, body)) = b.split_last() else {
            log::warn!("PMIx_parse_regex2: raw regex without its terminating NUL");
            return sys::PMIX_ERR_BAD_PARAM;
        };
        // Bytes after an inner NUL are not part of the string.
        let end = body.iter().position(|&c| c == 0).unwrap_or(body.len());
        match conv::alloc::strdup_bytes(body.get(..end).unwrap_or(body)) {
            Ok(p) => {
                // SAFETY: non-NULL, writable out-parameter.
                unsafe { *output = p };
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}
