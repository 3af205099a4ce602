//! A C host's module table as the engine's [`Host`]: each upcall converts its arguments to
//! malloc'd C data that stays alive until the host's completion callback runs, and each
//! completion callback converts back and re-enters the engine (from whatever thread the
//! host calls it on).

use super::upcall::verdict;
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::server::{global, Host, HostDone, HostReply};
use pmix_core::{App, Error, Info, Nspace, Pdata, ProcId, Query, Result};
use pmix_sys as sys;

/// The host's upcall table (28 or 32 slots copied at `PMIx_server_init`; the rest NULL).
pub struct CHost {
    /// The copied table.
    pub module: sys::pmix_server_module_t,
}

fn c_proc(p: &ProcId) -> sys::pmix_proc_t {
    // SAFETY: an all-zero pmix_proc_t is a valid (empty) proc.
    let mut out: sys::pmix_proc_t = unsafe { core::mem::zeroed() };
    conv::proc_to_c(p, &mut out);
    out
}

fn object(p: &ProcId) -> *mut c_void {
    global::server().map(|s| s.client_object(p)).unwrap_or(0) as *mut c_void
}

/// Everything an in-flight modex-style upcall lent the host. (The fence blob is not
/// among it: OpenPMIx's contract hands that one over; the host frees it.)
struct ModexCall {
    done: HostDone<Vec<u8>>,
    procs: *mut sys::pmix_proc_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
}

impl ModexCall {
    /// Free what was lent (the host is done with it).
    unsafe fn release(&mut self) {
        // SAFETY: each is NULL or our malloc'd block, unused by the host from now on.
        unsafe {
            conv::alloc::free(self.procs);
            conv::info_array_free(self.info, self.ninfo);
        }
        self.procs = core::ptr::null_mut();
        self.info = core::ptr::null_mut();
        self.ninfo = 0;
    }
}

unsafe extern "C" fn modex_done(
    status: sys::pmix_status_t,
    data: *const c_char,
    ndata: usize,
    cbdata: *mut c_void,
    release_fn: sys::pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    crate::ffi_value!(modex_done, (), {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box from `fence`/`direct_modex`; the host completes once.
        let mut call = unsafe { Box::from_raw(cbdata as *mut ModexCall) };
        let r = if status == sys::PMIX_SUCCESS {
            if data.is_null() || ndata == 0 {
                Ok(Vec::new())
            } else {
                // SAFETY: the host hands `ndata` readable bytes until release_fn.
                Ok(unsafe { core::slice::from_raw_parts(data as *const u8, ndata) }.to_vec())
            }
        } else {
            Err(Error::new(status, "the host reported a failed collective"))
        };
        if let Some(rf) = release_fn {
            // SAFETY: the host's release callback with its data.
            unsafe { rf(release_cbdata) };
        }
        // SAFETY: the host is done with what we lent.
        unsafe { call.release() };
        (call.done)(r);
    })
}

struct OpCall {
    done: HostDone<()>,
    procs: *mut sys::pmix_proc_t,
}

unsafe extern "C" fn op_done(status: sys::pmix_status_t, cbdata: *mut c_void) {
    crate::ffi_value!(op_done, (), {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box from `abort`; the host completes once.
        let call = unsafe { Box::from_raw(cbdata as *mut OpCall) };
        // SAFETY: our malloc'd array (or NULL).
        unsafe { conv::alloc::free(call.procs) };
        let r = if status == sys::PMIX_SUCCESS || status == sys::PMIX_OPERATION_SUCCEEDED {
            Ok(())
        } else {
            Err(Error::new(status, "the host refused"))
        };
        (call.done)(r);
    })
}

/// Lend `procs` and `info` to the host for a modex-style upcall.
fn lend(procs: &[ProcId], info: &[Info], done: HostDone<Vec<u8>>) -> Result<*mut ModexCall> {
    let (p, _) = conv::proc_array_to_c(procs)?;
    let (i, ni) = match conv::info_array_to_c(info) {
        Ok(x) => x,
        Err(e) => {
            // SAFETY: our fresh block.
            unsafe { conv::alloc::free(p) };
            return Err(e);
        }
    };
    Ok(Box::into_raw(Box::new(ModexCall {
        done,
        procs: p,
        info: i,
        ninfo: ni,
    })))
}

/// After a modex-style upcall returned: unless the host will complete it, take the box
/// back and free it.
fn settle(what: &str, rc: sys::pmix_status_t, call: *mut ModexCall) -> Result<HostReply> {
    let v = verdict(what, rc);
    if !matches!(v, Ok(HostReply::Pending)) {
        // SAFETY: the host will not call back; the box is still ours.
        let mut c = unsafe { Box::from_raw(call) };
        // SAFETY: the host is done with what we lent.
        unsafe { c.release() };
    }
    v
}

impl Host for CHost {
    fn client_connected(&self, p: &ProcId) -> Result<()> {
        let cp = c_proc(p);
        if let Some(f) = self.module.client_connected2 {
            // SAFETY: the host's upcall with valid arguments; NULL cbfunc asks for a
            // synchronous verdict. Its errors are only logged (OpenPMIx's contract).
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
        if let Some(f) = self.module.client_connected {
            // SAFETY: as above.
            let rc = unsafe { f(&cp, object(p), None, core::ptr::null_mut()) };
            if rc != sys::PMIX_SUCCESS && rc != sys::PMIX_OPERATION_SUCCEEDED {
                return Err(Error::new(rc, "the host refused the client"));
            }
        }
        Ok(())
    }

    fn client_finalized_nb(&self, p: &ProcId, done: HostDone<()>) -> Result<HostReply> {
        let Some(f) = self.module.client_finalized else {
            return Ok(HostReply::Completed);
        };
        let cp = c_proc(p);
        let call = Box::into_raw(Box::new(OpCall {
            done,
            procs: core::ptr::null_mut(),
        }));
        // SAFETY: the host's upcall; `cp` outlives it and `call` stays ours until op_done.
        let rc = unsafe { f(&cp, object(p), Some(op_done), call as *mut c_void) };
        let v = verdict("client_finalized", rc);
        if !matches!(v, Ok(HostReply::Pending)) {
            // SAFETY: the host will not call back; the box is still ours.
            drop(unsafe { Box::from_raw(call) });
        }
        v
    }

    fn abort(
        &self,
        p: &ProcId,
        status: i32,
        msg: &str,
        targets: &[ProcId],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.abort else {
            return Err(Error::not_supported("host has no abort"));
        };
        let cp = c_proc(p);
        let (procs, n) = conv::proc_array_to_c(targets)?;
        let msg = std::ffi::CString::new(msg.replace('\0', " ")).unwrap_or_default();
        let call = Box::into_raw(Box::new(OpCall { done, procs }));
        // SAFETY: the host's upcall; `procs` stays valid until op_done frees it.
        let rc = unsafe {
            f(
                &cp,
                object(p),
                status,
                msg.as_ptr(),
                procs,
                n,
                Some(op_done),
                call as *mut c_void,
            )
        };
        let v = verdict("abort", rc);
        if !matches!(v, Ok(HostReply::Pending)) {
            // SAFETY: the host will not call back; the box is still ours.
            let c = unsafe { Box::from_raw(call) };
            // SAFETY: our array.
            unsafe { conv::alloc::free(c.procs) };
        }
        v
    }

    fn fence(
        &self,
        procs: &[ProcId],
        info: &[Info],
        data: Vec<u8>,
        done: HostDone<Vec<u8>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.fence_nb else {
            return Err(Error::not_supported("host has no fence_nb"));
        };
        // The blob becomes the host's (it frees it), whatever the upcall returns.
        let (blob, nblob) = if data.is_empty() {
            (core::ptr::null_mut(), 0)
        } else {
            conv::alloc::bytes_to_c(&data)?
        };
        let call = match lend(procs, info, done) {
            Ok(c) => c,
            Err(e) => {
                // SAFETY: our fresh block, never handed over.
                unsafe { conv::alloc::free(blob) };
                return Err(e);
            }
        };
        // SAFETY: the lent arrays live in `call` until modex_done or settle frees them.
        let rc = unsafe {
            let c = &*call;
            f(
                c.procs,
                procs.len(),
                c.info,
                c.ninfo,
                blob as *mut c_char,
                nblob,
                Some(modex_done),
                call as *mut c_void,
            )
        };
        settle("fence_nb", rc, call)
    }

    fn direct_modex(
        &self,
        p: &ProcId,
        info: &[Info],
        done: HostDone<Vec<u8>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.direct_modex else {
            return Err(Error::not_found("host has no direct_modex"));
        };
        let call = lend(std::slice::from_ref(p), info, done)?;
        // SAFETY: as for `fence`.
        let rc = unsafe {
            let c = &*call;
            f(
                c.procs,
                c.info,
                c.ninfo,
                Some(modex_done),
                call as *mut c_void,
            )
        };
        settle("direct_modex", rc, call)
    }

    fn connect(
        &self,
        procs: &[ProcId],
        info: &[Info],
        _data: Vec<u8>,
        done: HostDone<Vec<u8>>,
    ) -> Result<HostReply> {
        self.dyn_connect(procs, info, done)
    }

    fn disconnect(&self, procs: &[ProcId], info: &[Info], done: HostDone<()>) -> Result<HostReply> {
        self.dyn_disconnect(procs, info, done)
    }

    fn spawn(
        &self,
        requester: &ProcId,
        job_info: &[Info],
        apps: &[App],
        done: HostDone<Nspace>,
    ) -> Result<HostReply> {
        self.dyn_spawn(requester, job_info, apps, done)
    }

    fn publish(&self, p: &ProcId, info: &[Info], done: HostDone<()>) -> Result<HostReply> {
        self.dyn_publish(p, info, done)
    }

    fn lookup(
        &self,
        p: &ProcId,
        keys: &[String],
        info: &[Info],
        done: HostDone<Vec<Pdata>>,
    ) -> Result<HostReply> {
        self.dyn_lookup(p, keys, info, done)
    }

    fn unpublish(
        &self,
        p: &ProcId,
        keys: &[String],
        info: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        self.dyn_unpublish(p, keys, info, done)
    }

    fn query(&self, p: &ProcId, queries: &[Query], done: HostDone<Vec<Info>>) -> Result<HostReply> {
        self.dyn_query(p, queries, done)
    }

    fn log(
        &self,
        p: &ProcId,
        data: &[Info],
        directives: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        self.dyn_log(p, data, directives, done)
    }

    fn job_control(
        &self,
        p: &ProcId,
        targets: &[ProcId],
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        self.dyn_job_control(p, targets, directives, done)
    }

    fn finalize_raises_term_wo_sync(&self) -> bool {
        false
    }

    fn notify_event(&self, source: &ProcId, status: i32, range: u8, info: &[Info]) {
        self.dyn_notify(status, source, range, info);
    }

    fn iof_pull(
        &self,
        procs: &[ProcId],
        channels: pmix_core::iof::Channels,
        directives: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        self.iof_pull_slot(procs, channels, directives, done)
    }

    fn push_stdin(
        &self,
        source: &ProcId,
        targets: &[ProcId],
        directives: &[Info],
        data: Option<&[u8]>,
        done: HostDone<()>,
    ) -> Result<HostReply> {
        self.push_stdin_slot(source, targets, directives, data, done)
    }

    fn group(
        &self,
        construct: bool,
        grp: &str,
        procs: &[ProcId],
        info: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        self.dyn_group(construct, grp, procs, info, done)
    }

    fn tool_connected(
        &self,
        requested: Option<&ProcId>,
        info: &[Info],
        done: HostDone<ProcId>,
    ) -> Result<()> {
        self.tool_connected_slot(requested, info, done)
    }

    fn get_credential(
        &self,
        p: &ProcId,
        peer: pmix_core::sys::PeerCred,
        directives: &[Info],
        done: HostDone<(Vec<u8>, Vec<Info>)>,
    ) -> Result<HostReply> {
        self.get_credential_slot(p, peer, directives, done)
    }

    fn validate_credential(
        &self,
        p: &ProcId,
        _peer: pmix_core::sys::PeerCred,
        cred: &[u8],
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        self.validate_credential_slot(p, cred, directives, done)
    }

    fn allocate(
        &self,
        p: &ProcId,
        directive: u8,
        info: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        self.allocate_slot(p, directive, info, done)
    }

    fn monitor(
        &self,
        p: &ProcId,
        monitor: &Info,
        error: i32,
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        self.monitor_slot(p, monitor, error, directives, done)
    }

    fn session_control(
        &self,
        p: &ProcId,
        session: u32,
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        self.session_control_slot(p, session, directives, done)
    }

    fn fabric(
        &self,
        p: &ProcId,
        op: u8,
        info: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        self.fabric_slot(p, op, info, done)
    }

    fn resource_block(
        &self,
        p: &ProcId,
        directive: u8,
        block: Option<&str>,
        units: &[pmix_core::ResourceUnit],
        info: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        self.resource_block_slot(p, directive, block, units, info, done)
    }
}
