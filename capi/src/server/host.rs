//! A C host's module table as the engine's [`Host`]: each upcall converts its arguments to
//! malloc'd C data that stays alive until the host's completion callback runs, and each
//! completion callback converts back and re-enters the engine (from whatever thread the
//! host calls it on).

use super::upcall::{complete, start, take, Lent, Release};
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

unsafe extern "C" fn modex_done(
    status: sys::pmix_status_t,
    data: *const c_char,
    ndata: usize,
    cbdata: *mut c_void,
    release_fn: sys::pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    crate::ffi_value!(modex_done, (), {
        // SAFETY: our box from `fence`/`direct_modex`; the host completes once.
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

unsafe extern "C" fn op_done(status: sys::pmix_status_t, cbdata: *mut c_void) {
    crate::ffi_value!(op_done, (), {
        // SAFETY: our box from `abort`/`client_finalized`; the host completes once.
        let Some(call) = (unsafe { take::<()>("abort/finalized", cbdata) }) else {
            return;
        };
        let r = if status == sys::PMIX_SUCCESS || status == sys::PMIX_OPERATION_SUCCEEDED {
            Ok(())
        } else {
            Err(Error::new(status, "the host refused"))
        };
        complete(call, r, Release::none());
    })
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
        let obj = object(p);
        // SAFETY: the host's upcall; the lent proc and `cbdata` stay ours until op_done.
        start(
            "client_finalized",
            done,
            Lent::new(Some(p)),
            |l, cbdata| unsafe { f(&l.proc_, obj, Some(op_done), cbdata) },
        )
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
        let obj = object(p);
        let lent = Lent::new(Some(p))
            .procs(targets)?
            .name(Some(msg.replace('\0', " ").as_str()))?;
        // SAFETY: the host's upcall; the lent blocks stay valid until op_done or settle.
        start("abort", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                obj,
                status,
                l.name,
                l.procs,
                l.nprocs,
                Some(op_done),
                cbdata,
            )
        })
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
        let lent = Lent::new(None).procs(procs)?.info(info)?;
        // The blob becomes the host's (it frees it), whatever the upcall returns.
        let (blob, nblob) = if data.is_empty() {
            (core::ptr::null_mut(), 0)
        } else {
            conv::alloc::bytes_to_c(&data)?
        };
        // SAFETY: the lent arrays live in the call box until modex_done or settle.
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

    fn direct_modex(
        &self,
        p: &ProcId,
        info: &[Info],
        done: HostDone<Vec<u8>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.direct_modex else {
            return Err(Error::not_found("host has no direct_modex"));
        };
        let lent = Lent::new(None).procs(std::slice::from_ref(p))?.info(info)?;
        // SAFETY: as for `fence`.
        start("direct_modex", done, lent, |l, cbdata| unsafe {
            f(l.procs, l.info, l.ninfo, Some(modex_done), cbdata)
        })
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
