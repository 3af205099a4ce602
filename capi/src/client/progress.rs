//! `PMIx_Progress_thread_stop`.

use pmix_core::reactor;
use pmix_core::Value;
use pmix_sys as sys;

/// OpenPMIx's name for its shared progress thread; a caller written against OpenPMIx may
/// name it in `PMIX_PROGRESS_THREAD_NAME`.
const OPENPMIX_SHARED_THREAD: &str = "PMIX-wide async progress thread";

/// Stop the library's progress engine from servicing the API: afterwards `PMIx_Get`,
/// `PMIx_Get_nb`, `PMIx_Put`, `PMIx_Commit`, `PMIx_Fence` and `PMIx_Fence_nb` return
/// `PMIX_ERR_NOT_AVAILABLE` at once, and event handlers are no longer called.
/// `PMIx_Finalize` still works, and a later `PMIx_Init` (after the last finalize) starts
/// a serviced engine again. `PMIX_PROGRESS_THREAD_NAME` naming a thread other than ours
/// ("pmix-progress", or OpenPMIx's shared-thread name) does nothing.
/// `PMIX_PROGRESS_THREAD_FLUSH` is accepted: work already in flight always completes.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `info` is NULL or points to `ninfo` initialised `pmix_info_t`s (read during the call;
///   the caller keeps ownership).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Progress_thread_stop(info: *const sys::pmix_info_t, ninfo: usize) {
    crate::ffi_value!(PMIx_Progress_thread_stop, (), {
        let info = match crate::arg!(infos info, ninfo) {
            Ok(i) => i,
            Err(e) => {
                log::warn!(
                    "PMIx_Progress_thread_stop: bad directives, nothing stopped: {}",
                    e
                );
                return;
            }
        };
        let name = info
            .iter()
            .find(|i| i.key.as_str() == sys::attrs::keys::PMIX_PROGRESS_THREAD_NAME)
            .and_then(|i| match &i.value {
                Value::String(Some(_)) => i.value.as_str().map(str::to_string),
                _ => None,
            });
        if let Some(n) = name {
            if n != reactor::THREAD_NAME && n != OPENPMIX_SHARED_THREAD {
                log::debug!(
                    "PMIx_Progress_thread_stop: no progress thread named {:?}",
                    n
                );
                return;
            }
        }
        reactor::stop_servicing();
    })
}

/// Drive the library's progress once. OpenPMIx runs one pass of its event loop here for
/// callers that drive progress themselves; this library always has its own progress
/// thread, which keeps servicing sockets, timers and callbacks without help, so there is
/// nothing for the caller to do and this returns at once (from any thread, also from a
/// callback on the progress thread).
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Progress() {
    crate::ffi_value!(PMIx_Progress, (), {
        log::trace!("PMIx_Progress: the progress thread makes progress by itself");
    })
}
