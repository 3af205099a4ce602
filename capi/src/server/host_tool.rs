//! A C host's `tool_connected2` / `tool_connected` slot as [`Host::tool_connected`].
//!
//! The host receives a malloc'd copy of the tool's infos (`PMIX_USERID`, `PMIX_GRPID`,
//! `PMIX_PROC_PID`, `PMIX_VERSION_INFO`, and `PMIX_NSPACE`/`PMIX_RANK` when the tool
//! named itself), lent until its callback, which names the tool's identity. With both
//! slots NULL, the engine's default applies (OpenPMIx's: a named tool is accepted as
//! it is, one asking for an identity is refused with `PMIX_ERR_NOT_SUPPORTED`).

use super::host::CHost;
use super::upcall::{complete, start, take, Call, Lent, Release};
use crate::conv;
use core::ffi::c_void;
use pmix_core::server::{Host, HostDone, HostReply};
use pmix_core::{Error, Info, ProcId, Result};
use pmix_sys as sys;

unsafe extern "C" fn tool_done(
    status: sys::pmix_status_t,
    proc_: *mut sys::pmix_proc_t,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(tool_done, (), {
        // SAFETY: our box from `tool_connected_slot`; the host completes once.
        let Some(call) = (unsafe { take::<ProcId>("tool_connected", cbdata) }) else {
            return;
        };
        let r = if status == sys::PMIX_SUCCESS || status == sys::PMIX_OPERATION_SUCCEEDED {
            // SAFETY: NULL or a valid proc from the host (C contract; copied now).
            unsafe { conv::proc_from_ptr(proc_) }
        } else {
            Err(Error::new(status, "the host refused the tool"))
        };
        complete(call, r, Release::none());
    })
}

/// The engine's answer for a NULL slot.
struct NoSlot;
impl Host for NoSlot {}

impl CHost {
    /// See the module documentation.
    pub(super) fn tool_connected_slot(
        &self,
        requested: Option<&ProcId>,
        info: &[Info],
        done: HostDone<ProcId>,
    ) -> Result<()> {
        let (v2, v1) = (self.module.tool_connected2, self.module.tool_connected);
        if v2.is_none() && v1.is_none() {
            return NoSlot.tool_connected(requested, info, done);
        }
        let lent = Lent::new(None).info(info)?;
        if let Some(f) = v2 {
            // SAFETY: the host's upcall; the infos and the box stay ours until tool_done.
            let rc = start("tool_connected2", done, lent, |l, cbdata| unsafe {
                f(l.info, l.ninfo, Some(tool_done), cbdata)
            });
            // Anything but "the host will call back" ends the handshake with a refusal.
            return match rc {
                Ok(HostReply::Pending) => Ok(()),
                Ok(HostReply::Completed) => Err(Error::new(
                    sys::PMIX_OPERATION_SUCCEEDED,
                    "host tool_connected2 upcall failed",
                )),
                Err(e) => Err(e),
            };
        }
        if let Some(f) = v1 {
            let call = Box::into_raw(Box::new(Call { done, lent }));
            // SAFETY: as above (this older slot returns nothing and always calls back).
            unsafe {
                let l = &(*call).lent;
                f(l.info, l.ninfo, Some(tool_done), call as *mut c_void)
            };
        }
        Ok(())
    }
}
