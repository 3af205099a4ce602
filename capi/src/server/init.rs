//! `PMIx_server_init`, `PMIx_server_finalize`.

use super::host::CHost;
use super::status;
use crate::conv;
use pmix_core::server::{global, ServerConfig};
use pmix_core::store::keys;
use pmix_core::{Nspace, ProcId};
use pmix_sys as sys;
use std::sync::Arc;

/// Start the server library with the host's `module` (NULL: no upcalls). Only the first
/// 28 slots (OpenPMIx 4.2.2's table) are read unless `info` carries
/// `PMIX_SERVER_MODULE_V7` = true. Recognised infos: `PMIX_SERVER_NSPACE`,
/// `PMIX_SERVER_RANK`, `PMIX_SERVER_TMPDIR`, `PMIX_HOSTNAME`/`PMIX_SERVER_HOSTNAME`.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT` (already running), `PMIX_ERR_BAD_PARAM`,
/// `PMIX_ERR_NO_PERMISSIONS`/`PMIX_ERR_COMM_FAILURE` (rendezvous directory or socket).
///
/// # Safety
/// `module` is NULL or points to a readable `pmix_server_module_t` of at least 28 slots
/// (32 when `info` carries `PMIX_SERVER_MODULE_V7` = true), whose non-NULL slots stay
/// callable until `PMIx_server_finalize` returns. `info` is NULL or points to `ninfo`
/// valid `pmix_info_t`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_init(
    module: *mut sys::pmix_server_module_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_init, {
        crate::logging::init();
        // SAFETY: NULL or `ninfo` infos (promised by the caller, see `# Safety`).
        let info = match unsafe { conv::info_array_from_c(info, ninfo) } {
            Ok(i) => i,
            Err(e) => return e.status(),
        };
        let find = |k: &str| info.iter().find(|i| i.key.as_str() == k).map(|i| &i.value);
        let slots = if find(sys::attrs::PMIX_SERVER_MODULE_V7).is_some_and(|v| v.is_true()) {
            sys::PMIX_SERVER_MODULE_SLOTS
        } else {
            sys::PMIX_SERVER_MODULE_SLOTS_V4
        };
        // SAFETY: an all-NULL module is valid (every slot None).
        let mut m: sys::pmix_server_module_t = unsafe { core::mem::zeroed() };
        if !module.is_null() {
            // SAFETY: the host's table has at least `slots` pointer-sized slots (28 for a
            // 4.2.2 host; 32 only when it said so); we copy exactly those.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    module as *const u8,
                    &mut m as *mut sys::pmix_server_module_t as *mut u8,
                    slots * core::mem::size_of::<usize>(),
                )
            };
        }
        let mut id = ProcId::default();
        if let Some(ns) = find(keys::SERVER_NSPACE).and_then(|v| v.as_str()) {
            match Nspace::new(ns) {
                Ok(n) => id.nspace = n,
                Err(e) => return e.status(),
            }
        }
        if let Some(r) = find(keys::SERVER_RANK).and_then(|v| v.as_u64()) {
            id.rank = r as u32;
        }
        let cfg = ServerConfig {
            id,
            tmpdir: find(keys::SERVER_TMPDIR)
                .and_then(|v| v.as_str())
                .map(std::path::PathBuf::from),
            info,
        };
        status(
            "PMIx_server_init",
            global::start(cfg, Arc::new(CHost { module: m })),
        )
    })
}

/// Stop the server: disconnect clients, remove the rendezvous directory.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT` (not running).
///
/// # Safety
/// Takes no pointers: nothing to uphold beyond C's calling convention.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_finalize() -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_server_finalize, {
        status("PMIx_server_finalize", global::finalize())
    })
}
