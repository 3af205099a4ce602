//! The dynamic-operation upcalls of a C host's module (connect, disconnect, spawn,
//! publish, lookup, unpublish, query, log, job control, notify, group): each lends the
//! host malloc'd copies of its arguments that stay valid until the host's completion
//! callback runs, then converts the host's answer back for the engine. A NULL slot is
//! `PMIX_ERR_NOT_SUPPORTED`.
//!
//! The 4.x `connect` slot carries no data, so a connect that spans servers through a C
//! host completes with the local participants' data only; the remote ones' endpoint data
//! then comes through direct modex.

use super::host::CHost;
use super::upcall::{self, complete, settle, start, unsupported, Call, Lent, Release};
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{App, Error, Info, Nspace, Pdata, ProcId, Query, Result};
use pmix_sys as sys;

unsafe extern "C" fn spawn_cb(
    status: sys::pmix_status_t,
    nspace: *mut c_char,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(spawn_cb, (), {
        // SAFETY: our box from `spawn`; the host completes once.
        let Some(call) = (unsafe { upcall::take::<Nspace>("spawn", cbdata) }) else {
            return;
        };
        let r = if status != sys::PMIX_SUCCESS {
            Err(Error::new(status, "the host could not spawn"))
        } else if nspace.is_null() {
            Err(Error::bad_param(
                "the host spawned without naming the namespace",
            ))
        } else {
            // SAFETY: a C string from the host (copied now).
            unsafe { conv::nspace_from_ptr(nspace) }
        };
        complete(call, r, Release::none());
    })
}

unsafe extern "C" fn lookup_cb(
    status: sys::pmix_status_t,
    data: *mut sys::pmix_pdata_t,
    ndata: usize,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(lookup_cb, (), {
        // SAFETY: our box from `lookup`; the host completes once.
        let Some(call) = (unsafe { upcall::take::<Vec<Pdata>>("lookup", cbdata) }) else {
            return;
        };
        let r = if status != sys::PMIX_SUCCESS {
            Err(Error::new(status, "lookup failed at the host"))
        } else {
            // SAFETY: the host's array of `ndata` pdata, valid during this call (copied).
            unsafe { conv::pdata_array_from_c(data, ndata) }
        };
        complete(call, r, Release::none());
    })
}

impl CHost {
    /// `connect` slot (no data in the 4.x module: `done` gets an empty blob).
    pub fn dyn_connect(
        &self,
        procs: &[ProcId],
        info: &[Info],
        done: HostDone<Vec<u8>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.connect else {
            return unsupported("connect");
        };
        let lent = Lent::new(None).procs(procs)?.info(info)?;
        let done: HostDone<()> = Box::new(move |r| done(r.map(|_| Vec::new())));
        // SAFETY: the lent arrays live in `call` until op_cb or settle frees them.
        start("connect", done, lent, |l, cbdata| unsafe {
            f(
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                Some(upcall::op_cb),
                cbdata,
            )
        })
    }

    /// `disconnect` slot.
    pub fn dyn_disconnect(
        &self,
        procs: &[ProcId],
        info: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.disconnect else {
            return unsupported("disconnect");
        };
        let lent = Lent::new(None).procs(procs)?.info(info)?;
        // SAFETY: as for `dyn_connect`.
        start("disconnect", done, lent, |l, cbdata| unsafe {
            f(
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                Some(upcall::op_cb),
                cbdata,
            )
        })
    }

    /// `spawn` slot.
    pub fn dyn_spawn(
        &self,
        requester: &ProcId,
        job_info: &[Info],
        apps: &[App],
        done: HostDone<Nspace>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.spawn else {
            return unsupported("spawn");
        };
        let lent = Lent::new(Some(requester)).info(job_info)?.apps(apps)?;
        // SAFETY: as for `dyn_connect`.
        start("spawn", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                l.info,
                l.ninfo,
                l.apps,
                l.napps,
                Some(spawn_cb),
                cbdata,
            )
        })
    }

    /// `publish` slot.
    pub fn dyn_publish(&self, p: &ProcId, info: &[Info], done: HostDone<()>) -> Result<HostReply> {
        let Some(f) = self.module.publish else {
            return unsupported("publish");
        };
        let lent = Lent::new(Some(p)).info(info)?;
        // SAFETY: as for `dyn_connect`.
        start("publish", done, lent, |l, cbdata| unsafe {
            f(&l.proc_, l.info, l.ninfo, Some(upcall::op_cb), cbdata)
        })
    }

    /// `lookup` slot.
    pub fn dyn_lookup(
        &self,
        p: &ProcId,
        keys: &[String],
        info: &[Info],
        done: HostDone<Vec<Pdata>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.lookup else {
            return unsupported("lookup");
        };
        let lent = Lent::new(Some(p)).keys(keys)?.info(info)?;
        // SAFETY: as for `dyn_connect`.
        start("lookup", done, lent, |l, cbdata| unsafe {
            f(&l.proc_, l.keys, l.info, l.ninfo, Some(lookup_cb), cbdata)
        })
    }

    /// `unpublish` slot.
    pub fn dyn_unpublish(
        &self,
        p: &ProcId,
        keys: &[String],
        info: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.unpublish else {
            return unsupported("unpublish");
        };
        let lent = Lent::new(Some(p)).keys(keys)?.info(info)?;
        // SAFETY: as for `dyn_connect`.
        start("unpublish", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                l.keys,
                l.info,
                l.ninfo,
                Some(upcall::op_cb),
                cbdata,
            )
        })
    }

    /// `query` slot.
    pub fn dyn_query(
        &self,
        p: &ProcId,
        queries: &[Query],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.query else {
            return unsupported("query");
        };
        let lent = Lent::new(Some(p)).queries(queries)?;
        // SAFETY: as for `dyn_connect`.
        start("query", done, lent, |l, cbdata| unsafe {
            f(
                &mut l.proc_,
                l.queries,
                l.nqueries,
                Some(upcall::info_cb),
                cbdata,
            )
        })
    }

    /// `log` slot (void in C: the host always calls back).
    pub fn dyn_log(
        &self,
        p: &ProcId,
        data: &[Info],
        directives: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.log else {
            return unsupported("log");
        };
        let lent = Lent::new(Some(p)).info(data)?.info2(directives)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                l.info,
                l.ninfo,
                l.info2,
                l.ninfo2,
                Some(upcall::op_cb),
                call as *mut c_void,
            )
        };
        Ok(HostReply::Pending)
    }

    /// `job_control` slot.
    pub fn dyn_job_control(
        &self,
        p: &ProcId,
        targets: &[ProcId],
        directives: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.job_control else {
            return unsupported("job_control");
        };
        let lent = Lent::new(Some(p)).procs(targets)?.info(directives)?;
        // SAFETY: as for `dyn_connect`.
        start("job_control", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                Some(upcall::info_cb),
                cbdata,
            )
        })
    }

    /// `notify_event` slot: an event from a client whose range reaches beyond this
    /// server (fire and forget: the host's completion only releases what was lent).
    pub fn dyn_notify(&self, status: i32, source: &ProcId, range: u8, info: &[Info]) {
        let Some(f) = self.module.notify_event else {
            return;
        };
        let lent = match Lent::new(Some(source)).info(info) {
            Ok(l) => l,
            Err(e) => {
                log::warn!("cannot hand event {} to the host: {}", status, e);
                return;
            }
        };
        let done: HostDone<()> = Box::new(|_| {});
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                status,
                &l.proc_,
                range,
                l.info,
                l.ninfo,
                Some(upcall::op_cb),
                call as *mut c_void,
            )
        };
        if let Err(e) = settle("notify_event", rc, call) {
            log::debug!("host notify_event: {}", e);
        }
    }

    /// `group` slot.
    pub fn dyn_group(
        &self,
        construct: bool,
        grp: &str,
        procs: &[ProcId],
        info: &[Info],
        done: HostDone<Vec<Info>>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.group else {
            return unsupported("group");
        };
        let op = if construct {
            sys::PMIX_GROUP_CONSTRUCT
        } else {
            sys::PMIX_GROUP_DESTRUCT
        };
        let lent = Lent::new(None).name(Some(grp))?.procs(procs)?.info(info)?;
        // SAFETY: as for `dyn_connect`.
        start("group", done, lent, |l, cbdata| unsafe {
            f(
                op,
                l.name,
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                Some(upcall::info_cb),
                cbdata,
            )
        })
    }
}
