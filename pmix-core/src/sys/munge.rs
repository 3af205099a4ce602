//! MUNGE credentials through Debian's `libmunge.so.2`, loaded with `dlopen` at first use
//! (so our library loads, and everything but munge security works, where libmunge is
//! not installed; see docs/DESIGN.md, Dependencies).
//!
//! OpenPMIx's `munge` security module sends the string `munge_encode` makes (no payload,
//! the default context: the socket `/run/munge/munge.socket.2`), NUL included, as the
//! connect message's credential; the server hands it to `munge_decode`, which says whose
//! it is (uid, gid) or why it is no good (expired, replayed, forged, another key).
//!
//! Why `unsafe` is allowed here: `dlopen`, `dlsym` and the three libmunge functions are
//! foreign. Each call below says why its pointers are valid; the symbols are cast to the
//! signatures libmunge's `munge.h` declares (`munge_err_t` is a C enum, an `int`).

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::OnceLock;

/// The library's file name (the soname of Debian's `libmunge2`).
pub const LIBRARY: &str = "libmunge.so.2";
/// `EMUNGE_SOCKET`: munged cannot be reached.
pub const EMUNGE_SOCKET: i32 = 6;
/// `EMUNGE_CRED_EXPIRED`: the credential outlived its time to live.
pub const EMUNGE_CRED_EXPIRED: i32 = 15;
/// `EMUNGE_CRED_REPLAYED`: the credential was decoded before.
pub const EMUNGE_CRED_REPLAYED: i32 = 17;

type EncodeFn = unsafe extern "C" fn(*mut *mut c_char, *mut c_void, *const c_void, c_int) -> c_int;
type DecodeFn = unsafe extern "C" fn(
    *const c_char,
    *mut c_void,
    *mut *mut c_void,
    *mut c_int,
    *mut libc::uid_t,
    *mut libc::gid_t,
) -> c_int;
type StrerrorFn = unsafe extern "C" fn(c_int) -> *const c_char;

struct Lib {
    encode: EncodeFn,
    decode: DecodeFn,
    strerror: StrerrorFn,
}

/// Why a munge call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MungeError {
    /// libmunge's `munge_err_t` (0 never; -1 when the library itself is missing).
    pub code: i32,
    /// What libmunge says (`munge_strerror`), or why the library did not load.
    pub message: String,
}

impl std::fmt::Display for MungeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (munge error {})", self.message, self.code)
    }
}

fn load() -> Result<Lib, String> {
    let name = CString::new(LIBRARY).map_err(|e| e.to_string())?;
    // SAFETY: `name` is a NUL-terminated string that outlives the call; the handle is
    // never closed, so the symbols taken from it stay valid for the process's life.
    let h = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if h.is_null() {
        return Err(format!("{} is not installed (dlopen failed)", LIBRARY));
    }
    let sym = |s: &CStr| -> Result<*mut c_void, String> {
        // SAFETY: `h` is a live handle from dlopen and `s` a NUL-terminated name.
        let p = unsafe { libc::dlsym(h, s.as_ptr()) };
        if p.is_null() {
            Err(format!("{} has no {:?}", LIBRARY, s))
        } else {
            Ok(p)
        }
    };
    let (e, d, s) = (
        sym(c"munge_encode")?,
        sym(c"munge_decode")?,
        sym(c"munge_strerror")?,
    );
    // SAFETY: the three symbols are libmunge's functions with exactly these C
    // signatures (munge.h: munge_encode, munge_decode, munge_strerror).
    unsafe {
        Ok(Lib {
            encode: std::mem::transmute::<*mut c_void, EncodeFn>(e),
            decode: std::mem::transmute::<*mut c_void, DecodeFn>(d),
            strerror: std::mem::transmute::<*mut c_void, StrerrorFn>(s),
        })
    }
}

fn lib() -> Result<&'static Lib, MungeError> {
    static LIB: OnceLock<Result<Lib, String>> = OnceLock::new();
    LIB.get_or_init(load).as_ref().map_err(|m| MungeError {
        code: -1,
        message: m.clone(),
    })
}

fn error(l: &Lib, code: c_int) -> MungeError {
    // SAFETY: munge_strerror takes any value and returns a static NUL-terminated string
    // (or NULL, checked).
    let p = unsafe { (l.strerror)(code) };
    let message = if p.is_null() {
        "unknown munge error".to_string()
    } else {
        // SAFETY: `p` is non-NULL and points at libmunge's static NUL-terminated text.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    };
    MungeError { code, message }
}

/// Whether libmunge loads (says nothing about munged).
pub fn available() -> bool {
    lib().is_ok()
}

/// A fresh credential of this process (no payload, default context), as OpenPMIx sends
/// it: the text with its terminating NUL.
///
/// # Errors
/// The [`MungeError`]: libmunge missing (code −1), munged unreachable
/// ([`EMUNGE_SOCKET`]), …
pub fn encode() -> Result<Vec<u8>, MungeError> {
    let l = lib()?;
    let mut cred: *mut c_char = std::ptr::null_mut();
    // SAFETY: `cred` is a valid out-pointer; a NULL context means the defaults and a
    // NULL buffer of length 0 means no payload (munge.h).
    let rc = unsafe { (l.encode)(&mut cred, std::ptr::null_mut(), std::ptr::null(), 0) };
    if rc != 0 {
        if !cred.is_null() {
            // SAFETY: whatever libmunge returned was malloc'ed by it.
            unsafe { libc::free(cred.cast()) };
        }
        return Err(error(l, rc));
    }
    if cred.is_null() {
        return Err(MungeError {
            code: 1,
            message: "munge_encode returned no credential".into(),
        });
    }
    // SAFETY: on success `cred` is a malloc'ed NUL-terminated string owned by us; it is
    // copied, then freed exactly once.
    let out = unsafe { CStr::from_ptr(cred) }.to_bytes_with_nul().to_vec();
    // SAFETY: as above.
    unsafe { libc::free(cred.cast()) };
    Ok(out)
}

/// The uid and gid a credential (text and terminating NUL, as it came off the wire)
/// vouches for, after munged checked it.
///
/// # Errors
/// Code 8 (`EMUNGE_BAD_CRED`) for bytes that are no NUL-terminated text; else what
/// munged says ([`EMUNGE_CRED_EXPIRED`], [`EMUNGE_CRED_REPLAYED`], a bad MAC, …).
pub fn decode(cred: &[u8]) -> Result<(u32, u32), MungeError> {
    let text = match CStr::from_bytes_with_nul(cred) {
        Ok(t) => t,
        Err(_) => {
            return Err(MungeError {
                code: 8,
                message: format!(
                    "a credential of {} bytes that is not NUL-terminated text",
                    cred.len()
                ),
            })
        }
    };
    let l = lib()?;
    let (mut uid, mut gid): (libc::uid_t, libc::gid_t) = (0, 0);
    // SAFETY: `text` is NUL-terminated and outlives the call; NULL context, NULL
    // payload pointers (no payload wanted: libmunge then allocates nothing); `uid` and
    // `gid` are valid out-pointers.
    let rc = unsafe {
        (l.decode)(
            text.as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut uid,
            &mut gid,
        )
    };
    if rc != 0 {
        return Err(error(l, rc));
    }
    Ok((uid, gid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_no_text_are_refused_before_libmunge() {
        let e = decode(&[1, 2, 3, 4]).unwrap_err();
        assert_eq!(e.code, 8);
        let e = decode(b"MUNGE:\0trailing\0").unwrap_err();
        assert_eq!(e.code, 8);
    }
}
