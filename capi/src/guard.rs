//! The one guard around every export: catches panics (logging them and returning an
//! error status instead of aborting the host process) and offers early-return checks.

use pmix_sys as sys;

/// Run `f`, turning a panic into `PMIX_ERROR` (or the given fallback) with a log line.
pub fn guard<R>(name: &str, fallback: R, f: impl FnOnce() -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => {
            let msg = e
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            log::error!("{}: internal error (panic): {}", name, msg);
            fallback
        }
    }
}

/// Wrap an export body returning `pmix_status_t`.
///
/// ```ignore
/// ffi!(PMIx_Foo, { check_null!(ptr); ...; sys::PMIX_SUCCESS })
/// ```
#[macro_export]
macro_rules! ffi_status {
    ($name:ident, $body:block) => {
        $crate::guard::guard(
            stringify!($name),
            pmix_sys::PMIX_ERROR,
            || -> pmix_sys::pmix_status_t { $body },
        )
    };
}

/// Wrap an export body returning something other than a status (`fallback` on panic).
#[macro_export]
macro_rules! ffi_value {
    ($name:ident, $fallback:expr, $body:block) => {
        $crate::guard::guard(stringify!($name), $fallback, || $body)
    };
}

/// Return `PMIX_ERR_BAD_PARAM` (with a log line) from the enclosing export if any pointer is NULL.
#[macro_export]
macro_rules! check_null {
    ($($p:expr),+) => {
        $( if $p.is_null() {
            log::warn!("{}: NULL argument `{}`", module_path!(), stringify!($p));
            return pmix_sys::PMIX_ERR_BAD_PARAM;
        } )+
    };
}

/// Convert an engine result into a status: `Ok` is `PMIX_SUCCESS`.
pub fn status_of<T>(r: pmix_core::Result<T>) -> sys::pmix_status_t {
    match r {
        Ok(_) => sys::PMIX_SUCCESS,
        Err(e) => e.status(),
    }
}
