//! What every asynchronous upcall into a C host's module shares: the box that travels
//! through the host as `cbdata` (the engine's completion plus the C copies lent to the
//! host, freed only once the host is done), the reading of the slot's return code, and
//! the two common completion callbacks (op-style and info-style).

use crate::conv;
use core::ffi::c_void;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{Error, Info, Result};
use pmix_sys as sys;

/// The engine's view of an upcall's return code: `PMIX_SUCCESS` means the host will call
/// back, `PMIX_OPERATION_SUCCEEDED` that it finished already, anything else failed.
pub(super) fn verdict(what: &str, rc: sys::pmix_status_t) -> Result<HostReply> {
    match rc {
        sys::PMIX_SUCCESS => Ok(HostReply::Pending),
        sys::PMIX_OPERATION_SUCCEEDED => Ok(HostReply::Completed),
        e => Err(Error::new(e, format!("host {} upcall failed", what))),
    }
}

/// An upcall in flight: the engine's completion and what was lent (`L` frees it on drop).
pub(super) struct Call<T, L> {
    pub(super) done: HostDone<T>,
    pub(super) lent: L,
}

/// After the slot returned: keep the box for the host's callback, or take it back.
pub(super) fn settle<T, L>(
    what: &str,
    rc: sys::pmix_status_t,
    call: *mut Call<T, L>,
) -> Result<HostReply> {
    let v = verdict(what, rc);
    if !matches!(v, Ok(HostReply::Pending)) {
        // SAFETY: the host will not call back; the box is still ours.
        drop(unsafe { Box::from_raw(call) });
    }
    v
}

/// Op-style completion (`pmix_op_cbfunc_t`) of a `Call<(), L>`.
pub(super) unsafe extern "C" fn op_cb<L>(status: sys::pmix_status_t, cbdata: *mut c_void) {
    crate::ffi_value!(op_cb, (), {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box from an op-style upcall; the host completes once.
        let call = unsafe { Box::from_raw(cbdata as *mut Call<(), L>) };
        let r = match status {
            sys::PMIX_SUCCESS | sys::PMIX_OPERATION_SUCCEEDED => Ok(()),
            e => Err(Error::new(e, "the host reported a failure")),
        };
        let Call { done, lent } = *call;
        drop(lent);
        done(r);
    })
}

/// Info-style completion (`pmix_info_cbfunc_t`) of a `Call<Vec<Info>, L>`; a partial
/// success still delivers what the host returned.
pub(super) unsafe extern "C" fn info_cb<L>(
    status: sys::pmix_status_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
    release_fn: sys::pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    crate::ffi_value!(info_cb, (), {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box from an info-style upcall; the host completes once.
        let call = unsafe { Box::from_raw(cbdata as *mut Call<Vec<Info>, L>) };
        // SAFETY: the host's `ninfo` infos, valid until release_fn.
        let got = unsafe { conv::info_array_from_c(info, ninfo) };
        if let Some(rf) = release_fn {
            // SAFETY: the host's release callback with its data.
            unsafe { rf(release_cbdata) };
        }
        let r = match status {
            sys::PMIX_SUCCESS | sys::PMIX_OPERATION_SUCCEEDED | sys::PMIX_ERR_PARTIAL_SUCCESS => {
                got
            }
            e => Err(Error::new(e, "the host reported a failure")),
        };
        let Call { done, lent } = *call;
        drop(lent);
        done(r);
    })
}
