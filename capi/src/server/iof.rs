//! `PMIx_server_IOF_deliver` (see `pmix_core::server::Server::iof_deliver`).

use super::status;
use crate::conv;
use core::ffi::c_void;
use pmix_core::server::global;
use pmix_sys as sys;

/// The host hands over output `bo` that `source` wrote on `channel`: every client
/// registration that wants it receives it (or it is cached for a later one), and unless
/// `PMIX_IOF_LOCAL_OUTPUT` is false (here or at `PMIx_server_init`) it is written to this
/// process's stdout/stderr. A zero-size `bo` ends the stream (`info` may say
/// `PMIX_IOF_COMPLETE`). `bo` and `info` are copied before the call returns. With
/// `cbfunc`, `cbfunc(status, cbdata)` runs on the progress thread once the chunk is
/// handed out; without it the call blocks until then.
///
/// # Returns
/// `PMIX_SUCCESS` (with `cbfunc`), `PMIX_OPERATION_SUCCEEDED` (without), `PMIX_ERR_INIT`,
/// `PMIX_ERR_BAD_PARAM` (NULL `source` or `bo`, a byte object with NULL bytes, the stdin
/// channel), `PMIX_ERR_NOT_AVAILABLE`, `PMIX_ERR_WOULD_BLOCK`.
///
/// # Safety
/// `source` points to a valid `pmix_proc_t`; `bo` points to a valid `pmix_byte_object_t`
/// whose `bytes` are readable for its `size`; `info` is NULL or points to `ninfo` valid
/// `pmix_info_t`. All are only read during the call. `cbfunc`, if not NULL, is a function
/// of the C type above; it is called once with `cbdata`, from the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_IOF_deliver(
    source: *const sys::pmix_proc_t,
    channel: sys::pmix_iof_channel_t,
    bo: *const sys::pmix_byte_object_t,
    info: *const sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_IOF_deliver, {
        let s = match global::server() {
            Ok(s) => s,
            Err(e) => return e.status(),
        };
        crate::check_null!(source, bo);
        let src = match crate::arg!(proc source) {
            Ok(p) => p,
            Err(e) => return e.status(),
        };
        // SAFETY: non-NULL byte object (promised by the caller, see `# Safety`).
        let b = unsafe { &*bo };
        if b.bytes.is_null() && b.size > 0 {
            log::warn!(
                "PMIx_server_IOF_deliver: byte object with NULL bytes and size {}",
                b.size
            );
            return sys::PMIX_ERR_BAD_PARAM;
        }
        // SAFETY: `size` readable bytes; NULL or `ninfo` infos (promised by the caller, see `# Safety`).
        let (data, infos) = unsafe { (conv::bo_from_c(b), conv::info_array_from_c(info, ninfo)) };
        let infos = match infos {
            Ok(i) => i,
            Err(e) => return e.status(),
        };
        match cbfunc {
            Some(cb) => {
                let done = crate::client::ops::op_callback("PMIx_server_IOF_deliver", cb, cbdata);
                let r = s.iof_deliver(&src, channel, data, infos, Some(done));
                status("PMIx_server_IOF_deliver", r)
            }
            None => match s.iof_deliver(&src, channel, data, infos, None) {
                Ok(()) => sys::PMIX_OPERATION_SUCCEEDED,
                Err(e) => status("PMIx_server_IOF_deliver", Err(e)),
            },
        }
    })
}
