//! The slots for tools and I/O forwarding: `tool_connected2` / `tool_connected` (a tool
//! asks to connect), `iof_pull`, `push_stdin`.
//!
//! A tool's slot receives a malloc'd copy of the tool's infos (`PMIX_USERID`,
//! `PMIX_GRPID`, `PMIX_PROC_PID`, `PMIX_VERSION_INFO`, and `PMIX_NSPACE`/`PMIX_RANK` when
//! the tool named itself), lent until its callback, which names the tool's identity.
//! With both tool slots NULL the engine's default applies (a named tool is accepted as
//! it is, one asking for an identity is refused with `PMIX_ERR_NOT_SUPPORTED`).

use super::lend::{complete, no_slot, op_cb, start, take, Lent, Release};
use super::Module;
use crate::conv;
use core::ffi::c_void;
use pmix_core::iof::Channels;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{Error, Info, ProcId, Result};
use pmix_sys as sys;

unsafe extern "C" fn tool_done(
    status: sys::pmix_status_t,
    proc_: *mut sys::pmix_proc_t,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(tool_done, (), {
        // SAFETY: `cbdata` is the box `tool_connected` lent; the host completes once.
        let Some(call) = (unsafe { take::<ProcId>("tool_connected", cbdata) }) else {
            return;
        };
        let r = if status == sys::PMIX_SUCCESS || status == sys::PMIX_OPERATION_SUCCEEDED {
            // SAFETY: NULL or the host's proc, valid during this callback (copied now).
            unsafe { conv::proc_from_ptr(proc_) }
        } else {
            Err(Error::new(status, "the host refused the tool"))
        };
        complete(call, r, Release::none());
    })
}

/// `tool_connected2`, else the older `tool_connected` slot (which returns nothing and
/// always calls back).
pub(super) fn tool_connected(
    m: &Module,
    info: &[Info],
    done: HostDone<ProcId>,
) -> Result<HostReply> {
    let lent = Lent::new(None).info(info)?;
    if let Some(f) = m.tool_connected2 {
        // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
        // or a block of `l`, which lives in the call box until the completion callback (or
        // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
        return start("tool_connected2", done, lent, |l, cbdata| unsafe {
            f(l.info, l.ninfo, Some(tool_done), cbdata)
        });
    }
    let Some(f) = m.tool_connected else {
        return no_slot("tool_connected");
    };
    start("tool_connected", done, lent, |l, cbdata| {
        // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
        // or a block of `l`, which lives in the call box until the completion callback (or
        // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
        unsafe { f(l.info, l.ninfo, Some(tool_done), cbdata) };
        sys::PMIX_SUCCESS
    })
}

/// `iof_pull` slot (with `PMIX_IOF_STOP` among the directives for a deregistration).
pub(super) fn iof_pull(
    m: &Module,
    procs: &[ProcId],
    channels: Channels,
    directives: &[Info],
    done: HostDone<()>,
) -> Result<HostReply> {
    let Some(f) = m.iof_pull else {
        return no_slot("iof_pull");
    };
    let lent = Lent::new(None).procs(procs)?.info(directives)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("iof_pull", done, lent, |l, cbdata| unsafe {
        f(
            l.procs,
            l.nprocs,
            l.info,
            l.ninfo,
            channels,
            Some(op_cb),
            cbdata,
        )
    })
}

/// `push_stdin` slot (`bo` NULL when the pusher sent no data).
pub(super) fn push_stdin(
    m: &Module,
    source: &ProcId,
    targets: &[ProcId],
    directives: &[Info],
    data: Option<&[u8]>,
    done: HostDone<()>,
) -> Result<HostReply> {
    let Some(f) = m.push_stdin else {
        return no_slot("push_stdin");
    };
    let lent = Lent::new(Some(source))
        .procs(targets)?
        .info(directives)?
        .bo(data)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("push_stdin", done, lent, |l, cbdata| unsafe {
        f(
            &l.proc_,
            l.procs,
            l.nprocs,
            l.info,
            l.ninfo,
            l.bo_ptr(),
            Some(op_cb),
            cbdata,
        )
    })
}
