//! The client-lifecycle slots: `client_connected2` / `client_connected` (synchronous:
//! the engine asks before accepting the client), `client_finalized`, `abort`. Each hands
//! the host the client's `server_object` from `PMIx_server_register_client`.

use super::lend::{no_slot, op_cb, start, Lent};
use super::Module;
use crate::conv;
use core::ffi::c_void;
use pmix_core::server::{global, HostDone, HostReply};
use pmix_core::{Error, ProcId, Result};
use pmix_sys as sys;

/// The `server_object` the host registered for `p` (NULL if none).
fn object(p: &ProcId) -> *mut c_void {
    global::server().map(|s| s.client_object(p)).unwrap_or(0) as *mut c_void
}

/// `client_connected2`, else `client_connected`, asked for a synchronous verdict (NULL
/// callback). Only the older slot can refuse the client; `client_connected2`'s errors are
/// logged (OpenPMIx's contract).
pub(super) fn client_connected(m: &Module, p: &ProcId) -> Result<()> {
    // SAFETY: an all-zero pmix_proc_t is a valid (empty) proc.
    let mut cp: sys::pmix_proc_t = unsafe { core::mem::zeroed() };
    conv::proc_to_c(p, &mut cp);
    if let Some(f) = m.client_connected2 {
        // SAFETY: `f` is the host's slot with this C signature; `cp` outlives the call,
        // the info array is NULL/0 and a NULL callback asks for a synchronous answer.
        let rc = unsafe {
            f(
                &cp,
                object(p),
                core::ptr::null_mut(),
                0,
                None,
                core::ptr::null_mut(),
            )
        };
        if rc != sys::PMIX_SUCCESS && rc != sys::PMIX_OPERATION_SUCCEEDED {
            log::warn!("host client_connected2 for {} returned {}", p, rc);
        }
        return Ok(());
    }
    if let Some(f) = m.client_connected {
        // SAFETY: `f` is the host's slot with this C signature; `cp` outlives the call
        // and a NULL callback asks for a synchronous answer.
        let rc = unsafe { f(&cp, object(p), None, core::ptr::null_mut()) };
        if rc != sys::PMIX_SUCCESS && rc != sys::PMIX_OPERATION_SUCCEEDED {
            return Err(Error::new(rc, "the host refused the client"));
        }
    }
    Ok(())
}

/// `client_finalized` slot.
pub(super) fn client_finalized(m: &Module, p: &ProcId, done: HostDone<()>) -> Result<HostReply> {
    let Some(f) = m.client_finalized else {
        return no_slot("client_finalized");
    };
    let obj = object(p);
    // SAFETY: `f` is the host's slot with this C signature; the proc is a block of `l`,
    // which lives in the call box until the completion callback (or `settle`, when the
    // host will not call back) frees it, and `cbdata` is that box.
    start(
        "client_finalized",
        done,
        Lent::new(Some(p)),
        |l, cbdata| unsafe { f(&l.proc_, obj, Some(op_cb), cbdata) },
    )
}

/// `abort` slot (NULs in the message become spaces).
pub(super) fn abort(
    m: &Module,
    p: &ProcId,
    status: i32,
    msg: &str,
    targets: &[ProcId],
    done: HostDone<()>,
) -> Result<HostReply> {
    let Some(f) = m.abort else {
        return no_slot("abort");
    };
    let obj = object(p);
    let lent = Lent::new(Some(p))
        .procs(targets)?
        .name(Some(msg.replace('\0', " ").as_str()))?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("abort", done, lent, |l, cbdata| unsafe {
        f(
            &l.proc_,
            obj,
            status,
            l.name,
            l.procs,
            l.nprocs,
            Some(op_cb),
            cbdata,
        )
    })
}
