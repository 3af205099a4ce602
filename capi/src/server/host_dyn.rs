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
use super::upcall::{self, settle};
use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{App, Error, Info, Nspace, Pdata, ProcId, Query, Result};
use pmix_sys as sys;

/// An upcall in flight (see [`upcall::Call`]).
type Call<T> = upcall::Call<T, Lent>;

fn c_proc(p: &ProcId) -> sys::pmix_proc_t {
    // SAFETY: an all-zero pmix_proc_t is a valid (empty) proc.
    let mut out: sys::pmix_proc_t = unsafe { core::mem::zeroed() };
    conv::proc_to_c(p, &mut out);
    out
}

fn unsupported(what: &str) -> Result<HostReply> {
    Err(Error::not_supported(format!("host has no {}", what)))
}

/// Everything an upcall lends the host (each pointer NULL or ours).
struct Lent {
    proc_: sys::pmix_proc_t,
    procs: *mut sys::pmix_proc_t,
    nprocs: usize,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    info2: *mut sys::pmix_info_t,
    ninfo2: usize,
    apps: *mut sys::pmix_app_t,
    napps: usize,
    queries: *mut sys::pmix_query_t,
    nqueries: usize,
    keys: *mut *mut c_char,
    grp: *mut c_char,
}

impl Lent {
    fn new(p: Option<&ProcId>) -> Lent {
        Lent {
            proc_: p.map(c_proc).unwrap_or_else(|| c_proc(&ProcId::default())),
            procs: core::ptr::null_mut(),
            nprocs: 0,
            info: core::ptr::null_mut(),
            ninfo: 0,
            info2: core::ptr::null_mut(),
            ninfo2: 0,
            apps: core::ptr::null_mut(),
            napps: 0,
            queries: core::ptr::null_mut(),
            nqueries: 0,
            keys: core::ptr::null_mut(),
            grp: core::ptr::null_mut(),
        }
    }
    fn procs(mut self, v: &[ProcId]) -> Result<Self> {
        let (p, n) = conv::proc_array_to_c(v)?;
        self.procs = p;
        self.nprocs = n;
        Ok(self)
    }
    fn info(mut self, v: &[Info]) -> Result<Self> {
        let (p, n) = conv::info_array_to_c(v)?;
        self.info = p;
        self.ninfo = n;
        Ok(self)
    }
    fn info2(mut self, v: &[Info]) -> Result<Self> {
        let (p, n) = conv::info_array_to_c(v)?;
        self.info2 = p;
        self.ninfo2 = n;
        Ok(self)
    }
    fn apps(mut self, v: &[App]) -> Result<Self> {
        if v.is_empty() {
            return Ok(self);
        }
        self.apps = conv::alloc::calloc_array::<sys::pmix_app_t>(v.len())?;
        self.napps = v.len();
        for (i, a) in v.iter().enumerate() {
            // SAFETY: `i` is within the fresh zeroed array.
            conv::app_to_c(a, unsafe { &mut *self.apps.add(i) })?;
        }
        Ok(self)
    }
    fn queries(mut self, v: &[Query]) -> Result<Self> {
        if v.is_empty() {
            return Ok(self);
        }
        self.queries = conv::alloc::calloc_array::<sys::pmix_query_t>(v.len())?;
        self.nqueries = v.len();
        for (i, q) in v.iter().enumerate() {
            // SAFETY: `i` is within the fresh zeroed array.
            conv::query_to_c(q, unsafe { &mut *self.queries.add(i) })?;
        }
        Ok(self)
    }
    fn keys(mut self, v: &[String]) -> Result<Self> {
        let argv: Vec<Vec<u8>> = v.iter().map(|k| k.as_bytes().to_vec()).collect();
        self.keys = conv::argv_to_c(&Some(argv))?;
        Ok(self)
    }
    fn grp(mut self, g: &str) -> Result<Self> {
        self.grp = conv::alloc::strdup(g)?;
        Ok(self)
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        // SAFETY: every pointer is NULL or a block we made; the host is done with them
        // (a Lent is dropped only after the completion callback or a synchronous answer).
        unsafe {
            conv::alloc::free(self.procs);
            conv::info_array_free(self.info, self.ninfo);
            conv::info_array_free(self.info2, self.ninfo2);
            if !self.apps.is_null() {
                for i in 0..self.napps {
                    conv::app_destruct(&mut *self.apps.add(i));
                }
                conv::alloc::free(self.apps);
            }
            if !self.queries.is_null() {
                for i in 0..self.nqueries {
                    conv::query_destruct(&mut *self.queries.add(i));
                }
                conv::alloc::free(self.queries);
            }
            conv::argv_free(self.keys);
            conv::alloc::free(self.grp);
        }
    }
}

unsafe extern "C" fn spawn_cb(
    status: sys::pmix_status_t,
    nspace: *mut c_char,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(spawn_cb, (), {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box from `spawn`; the host completes once.
        let call = unsafe { Box::from_raw(cbdata as *mut Call<Nspace>) };
        let r = if status != sys::PMIX_SUCCESS {
            Err(Error::new(status, "the host could not spawn"))
        } else if nspace.is_null() {
            Err(Error::bad_param(
                "the host spawned without naming the namespace",
            ))
        } else {
            // SAFETY: a C string from the host.
            unsafe { conv::nspace_from_ptr(nspace) }
        };
        let Call { done, lent } = *call;
        drop(lent);
        done(r);
    })
}

unsafe extern "C" fn lookup_cb(
    status: sys::pmix_status_t,
    data: *mut sys::pmix_pdata_t,
    ndata: usize,
    cbdata: *mut c_void,
) {
    crate::ffi_value!(lookup_cb, (), {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: our box from `lookup`; the host completes once.
        let call = unsafe { Box::from_raw(cbdata as *mut Call<Vec<Pdata>>) };
        let r = if status != sys::PMIX_SUCCESS {
            Err(Error::new(status, "lookup failed at the host"))
        } else {
            // SAFETY: the host's array of `ndata` pdata, valid during this call.
            unsafe { conv::pdata_array_from_c(data, ndata) }
        };
        let Call { done, lent } = *call;
        drop(lent);
        done(r);
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
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: the lent arrays live in `call` until op_cb or settle frees them.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                Some(upcall::op_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("connect", rc, call)
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
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                Some(upcall::op_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("disconnect", rc, call)
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
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                l.info,
                l.ninfo,
                l.apps,
                l.napps,
                Some(spawn_cb),
                call as *mut c_void,
            )
        };
        settle("spawn", rc, call)
    }

    /// `publish` slot.
    pub fn dyn_publish(&self, p: &ProcId, info: &[Info], done: HostDone<()>) -> Result<HostReply> {
        let Some(f) = self.module.publish else {
            return unsupported("publish");
        };
        let lent = Lent::new(Some(p)).info(info)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                l.info,
                l.ninfo,
                Some(upcall::op_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("publish", rc, call)
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
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                l.keys,
                l.info,
                l.ninfo,
                Some(lookup_cb),
                call as *mut c_void,
            )
        };
        settle("lookup", rc, call)
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
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                l.keys,
                l.info,
                l.ninfo,
                Some(upcall::op_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("unpublish", rc, call)
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
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        let rc = unsafe {
            let l = &mut (*call).lent;
            f(
                &mut l.proc_,
                l.queries,
                l.nqueries,
                Some(upcall::info_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("query", rc, call)
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
                Some(upcall::op_cb::<Lent>),
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
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                &l.proc_,
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                Some(upcall::info_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("job_control", rc, call)
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
                Some(upcall::op_cb::<Lent>),
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
        let lent = Lent::new(None).grp(grp)?.procs(procs)?.info(info)?;
        let call = Box::into_raw(Box::new(Call { done, lent }));
        // SAFETY: as for `dyn_connect`.
        let rc = unsafe {
            let l = &(*call).lent;
            f(
                op,
                l.grp,
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                Some(upcall::info_cb::<Lent>),
                call as *mut c_void,
            )
        };
        settle("group", rc, call)
    }
}
