//! A C host's `tool_connected2` / `tool_connected` slot as [`Host::tool_connected`].
//!
//! The host receives a malloc'd copy of the tool's infos (`PMIX_USERID`, `PMIX_GRPID`,
//! `PMIX_PROC_PID`, `PMIX_VERSION_INFO`, and `PMIX_NSPACE`/`PMIX_RANK` when the tool
//! named itself), lent until its callback, which names the tool's identity. With both
//! slots NULL, the engine's default applies (OpenPMIx's: a named tool is accepted as
//! it is, one asking for an identity is refused with `PMIX_ERR_NOT_SUPPORTED`).

use super::host::CHost;
use crate::conv;
use core::ffi::c_void;
use pmix_core::server::{Host, HostDone};
use pmix_core::{Error, Info, ProcId, Result};
use pmix_sys as sys;

struct ToolCall {
    done: HostDone<ProcId>,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
}

unsafe extern "C" fn tool_done(
    status: sys::pmix_status_t,
    proc_: *mut sys::pmix_proc_t,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(tool_done, (), {
        if cbdata.is_null() {
            log::warn!("tool_connected callback with a NULL cbdata; ignored");
            return;
        }
        // SAFETY: our box from `tool_connected_slot`; the host completes once.
        let call = unsafe { Box::from_raw(cbdata as *mut ToolCall) };
        // SAFETY: our malloc'd infos, which the host no longer uses.
        unsafe { conv::info_array_free(call.info, call.ninfo) };
        let r = if status == sys::PMIX_SUCCESS || status == sys::PMIX_OPERATION_SUCCEEDED {
            // SAFETY: NULL or a valid proc from the host (C contract).
            unsafe { conv::proc_from_ptr(proc_) }
        } else {
            Err(Error::new(status, "the host refused the tool"))
        };
        (call.done)(r);
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
        let (i, ni) = conv::info_array_to_c(info)?;
        let call = Box::into_raw(Box::new(ToolCall {
            done,
            info: i,
            ninfo: ni,
        }));
        if let Some(f) = v2 {
            // SAFETY: the host's upcall; the infos and `call` stay ours until tool_done.
            let rc = unsafe { f(i, ni, Some(tool_done), call as *mut c_void) };
            if rc != sys::PMIX_SUCCESS {
                // SAFETY: the host will not call back; the box and infos are still ours.
                let c = unsafe { Box::from_raw(call) };
                // SAFETY: as above.
                unsafe { conv::info_array_free(c.info, c.ninfo) };
                return Err(Error::new(rc, "host tool_connected2 upcall failed"));
            }
        } else if let Some(f) = v1 {
            // SAFETY: as above (this older slot returns nothing and always calls back).
            unsafe { f(i, ni, Some(tool_done), call as *mut c_void) };
        }
        Ok(())
    }
}
