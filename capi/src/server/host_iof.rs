//! The I/O-forwarding slots of a C host's module, `iof_pull` and `push_stdin`: each
//! lends the host malloc'd copies of its arguments until the host's completion callback
//! runs. A NULL slot is `PMIX_ERR_NOT_SUPPORTED` (OpenPMIx refuses the client's request
//! then).

use super::host::CHost;
use super::upcall::{self, settle};
use crate::conv;
use core::ffi::c_void;
use pmix_core::iof::Channels;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{Error, Info, ProcId, Result};
use pmix_sys as sys;

/// What an IOF upcall lends the host (each pointer NULL or ours).
struct Lent {
    source: sys::pmix_proc_t,
    procs: *mut sys::pmix_proc_t,
    nprocs: usize,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    bo: sys::pmix_byte_object_t,
    has_bo: bool,
}

impl Drop for Lent {
    fn drop(&mut self) {
        // SAFETY: each pointer is NULL or a block we made; the host is done with them
        // (dropped only after the completion callback or a synchronous answer).
        unsafe {
            conv::alloc::free(self.procs);
            conv::info_array_free(self.info, self.ninfo);
            conv::bo_destruct(&mut self.bo);
        }
    }
}

/// An upcall in flight (see [`upcall::Call`]).
type Call = upcall::Call<(), Lent>;

fn lend(
    source: Option<&ProcId>,
    procs: &[ProcId],
    info: &[Info],
    data: Option<&[u8]>,
) -> Result<Lent> {
    // SAFETY: an all-zero pmix_proc_t / byte object is valid (empty).
    let mut lent = Lent {
        source: unsafe { core::mem::zeroed() },
        procs: core::ptr::null_mut(),
        nprocs: 0,
        info: core::ptr::null_mut(),
        ninfo: 0,
        bo: sys::pmix_byte_object_t {
            bytes: core::ptr::null_mut(),
            size: 0,
        },
        has_bo: data.is_some(),
    };
    if let Some(s) = source {
        conv::proc_to_c(s, &mut lent.source);
    }
    (lent.procs, lent.nprocs) = conv::proc_array_to_c(procs)?;
    (lent.info, lent.ninfo) = conv::info_array_to_c(info)?;
    if let Some(d) = data {
        conv::bo_to_c(d, &mut lent.bo)?;
    }
    Ok(lent)
}

impl CHost {
    /// `iof_pull` slot (with `PMIX_IOF_STOP` among the directives for a deregistration).
    pub fn iof_pull_slot(
        &self,
        procs: &[ProcId],
        channels: Channels,
        directives: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.iof_pull else {
            return Err(Error::not_supported("host has no iof_pull"));
        };
        let lent = lend(None, procs, directives, None)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: the lent arrays live in `call` until op_cb or settle frees them.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                channels,
                Some(upcall::op_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("iof_pull", rc, call)
    }

    /// `push_stdin` slot (`bo` NULL when the pusher sent no data).
    pub fn push_stdin_slot(
        &self,
        source: &ProcId,
        targets: &[ProcId],
        directives: &[Info],
        data: Option<&[u8]>,
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.push_stdin else {
            return Err(Error::not_supported("host has no push_stdin"));
        };
        let lent = lend(Some(source), targets, directives, data)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `iof_pull_slot`; the source and byte object live in `call` too.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.source,
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                if l.has_bo { &l.bo } else { core::ptr::null() },
                Some(upcall::op_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("push_stdin", rc, call)
    }
}
