//! The collective slots: `fence_nb` (a fence that spans servers) and `direct_modex`
//! (ask the server hosting a process for its data). Both complete through
//! [`modex_done`], which copies the host's blob before anything else runs.

use super::lend::{complete, no_slot, start, take, Lent, Release};
use super::Module;
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{Error, Info, ProcId, Result};
use pmix_sys as sys;

unsafe extern "C" fn modex_done(
    status: sys::pmix_status_t,
    data: *const c_char,
    ndata: usize,
    cbdata: *mut c_void,
    release_fn: sys::pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    crate::ffi_value!(modex_done, (), {
        // SAFETY: `cbdata` is the box `fence_nb`/`direct_modex` lent; the host completes
        // once.
        let Some(call) = (unsafe { take::<Vec<u8>>("modex", cbdata) }) else {
            return;
        };
        let r = if status == sys::PMIX_SUCCESS {
            if data.is_null() || ndata == 0 {
                Ok(Vec::new())
            } else {
                // SAFETY: the host hands `ndata` readable bytes until release_fn (copied
                // now; release_fn runs later, on the progress thread).
                Ok(unsafe { core::slice::from_raw_parts(data as *const u8, ndata) }.to_vec())
            }
        } else {
            Err(Error::new(status, "the host reported a failed collective"))
        };
        complete(call, r, Release::new(release_fn, release_cbdata));
    })
}

/// `fence_nb` slot: the blob becomes the host's (it frees it), whatever the slot returns.
pub(super) fn fence_nb(
    m: &Module,
    procs: &[ProcId],
    info: &[Info],
    data: &[u8],
    done: HostDone<Vec<u8>>,
) -> Result<HostReply> {
    let Some(f) = m.fence_nb else {
        return no_slot("fence_nb");
    };
    let lent = Lent::new(None).procs(procs)?.info(info)?;
    let (blob, nblob) = if data.is_empty() {
        (core::ptr::null_mut(), 0)
    } else {
        conv::alloc::bytes_to_c(data)?
    };
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box;
    // `blob` is a fresh malloc'd block of `nblob` bytes handed over to the host.
    start("fence_nb", done, lent, |l, cbdata| unsafe {
        f(
            l.procs,
            l.nprocs,
            l.info,
            l.ninfo,
            blob as *mut c_char,
            nblob,
            Some(modex_done),
            cbdata,
        )
    })
}

/// `direct_modex` slot.
pub(super) fn direct_modex(
    m: &Module,
    p: &ProcId,
    info: &[Info],
    done: HostDone<Vec<u8>>,
) -> Result<HostReply> {
    let Some(f) = m.direct_modex else {
        return no_slot("direct_modex");
    };
    let lent = Lent::new(None).procs(std::slice::from_ref(p))?.info(info)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("direct_modex", done, lent, |l, cbdata| unsafe {
        f(l.procs, l.info, l.ninfo, Some(modex_done), cbdata)
    })
}
