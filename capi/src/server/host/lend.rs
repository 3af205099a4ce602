//! What every asynchronous upcall into a C host's module shares: the C copies of its
//! arguments lent to the host ([`Lent`], freed only once the host is done), the box that
//! travels through the host as `cbdata` (the engine's completion plus what was lent), the
//! reading of the slot's return code, the two common completion callbacks (op-style
//! and info-style), and [`complete`], the one way every completion ends.
//!
//! Every slot lends through [`start`], and every completion callback ends through
//! [`take`] then [`complete`].
//!
//! The rule (docs/DESIGN.md, "C hosts"): nothing is called back in the host from inside
//! the host's own callback. A completion copies what it needs out of the host's buffers
//! and returns; the host's release function, the freeing of what was lent and the
//! engine's continuation (which may make the next upcall) run afterwards on the progress
//! thread. A host may thus complete while holding a lock that its release function takes.

use crate::conv;
use core::ffi::{c_char, c_void};
use pmix_core::reactor;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{App, Error, Info, ProcId, Query, ResourceUnit, Result};
use pmix_sys as sys;
use std::sync::{Arc, Mutex};

/// Everything an upcall lends the host, built with the methods below (each pointer NULL
/// or a block we made; all freed on drop).
pub(super) struct Lent {
    /// The requester or source (an empty proc unless given).
    pub(super) proc_: sys::pmix_proc_t,
    pub(super) procs: *mut sys::pmix_proc_t,
    pub(super) nprocs: usize,
    /// The directives.
    pub(super) info: *mut sys::pmix_info_t,
    pub(super) ninfo: usize,
    /// A second info array (job info of a spawn, a monitor, ...).
    pub(super) info2: *mut sys::pmix_info_t,
    pub(super) ninfo2: usize,
    pub(super) apps: *mut sys::pmix_app_t,
    pub(super) napps: usize,
    pub(super) queries: *mut sys::pmix_query_t,
    pub(super) nqueries: usize,
    pub(super) keys: *mut *mut c_char,
    /// A name (group, resource block).
    pub(super) name: *mut c_char,
    /// A byte object (payload, credential); `has_bo` tells an empty one from none.
    pub(super) bo: sys::pmix_byte_object_t,
    pub(super) has_bo: bool,
    pub(super) units: *mut sys::pmix_resource_unit_t,
    pub(super) nunits: usize,
}

impl Lent {
    pub(super) fn new(p: Option<&ProcId>) -> Lent {
        // SAFETY: an all-zero pmix_proc_t is a valid (empty) proc.
        let mut proc_: sys::pmix_proc_t = unsafe { core::mem::zeroed() };
        if let Some(p) = p {
            conv::proc_to_c(p, &mut proc_);
        }
        Lent {
            proc_,
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
            name: core::ptr::null_mut(),
            bo: sys::pmix_byte_object_t {
                bytes: core::ptr::null_mut(),
                size: 0,
            },
            has_bo: false,
            units: core::ptr::null_mut(),
            nunits: 0,
        }
    }
    pub(super) fn procs(mut self, v: &[ProcId]) -> Result<Self> {
        (self.procs, self.nprocs) = conv::proc_array_to_c(v)?;
        Ok(self)
    }
    pub(super) fn info(mut self, v: &[Info]) -> Result<Self> {
        (self.info, self.ninfo) = conv::info_array_to_c(v)?;
        Ok(self)
    }
    pub(super) fn info2(mut self, v: &[Info]) -> Result<Self> {
        (self.info2, self.ninfo2) = conv::info_array_to_c(v)?;
        Ok(self)
    }
    pub(super) fn apps(mut self, v: &[App]) -> Result<Self> {
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
    pub(super) fn queries(mut self, v: &[Query]) -> Result<Self> {
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
    pub(super) fn keys(mut self, v: &[String]) -> Result<Self> {
        let argv: Vec<Vec<u8>> = v.iter().map(|k| k.as_bytes().to_vec()).collect();
        self.keys = conv::argv_to_c(&Some(argv))?;
        Ok(self)
    }
    pub(super) fn name(mut self, n: Option<&str>) -> Result<Self> {
        if let Some(n) = n {
            self.name = conv::alloc::strdup(n)?;
        }
        Ok(self)
    }
    pub(super) fn bo(mut self, data: Option<&[u8]>) -> Result<Self> {
        if let Some(d) = data {
            conv::bo_to_c(d, &mut self.bo)?;
            self.has_bo = true;
        }
        Ok(self)
    }
    pub(super) fn units(mut self, v: &[ResourceUnit]) -> Result<Self> {
        if v.is_empty() {
            return Ok(self);
        }
        self.units = conv::alloc::calloc_array::<sys::pmix_resource_unit_t>(v.len())?;
        self.nunits = v.len();
        for (i, u) in v.iter().enumerate() {
            // SAFETY: `i` is within the fresh array.
            unsafe {
                *self.units.add(i) = sys::pmix_resource_unit_t {
                    type_: u.dtype,
                    count: u.count as usize,
                }
            };
        }
        Ok(self)
    }
    /// The byte object for the host: NULL when none was lent.
    pub(super) fn bo_ptr(&self) -> *const sys::pmix_byte_object_t {
        if self.has_bo {
            &self.bo
        } else {
            core::ptr::null()
        }
    }
}

// SAFETY: a Lent holds only blocks we malloc'd and own (no host data): it moves to the
// progress thread once, with its completion, and is never shared.
unsafe impl Send for Lent {}

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
            conv::alloc::free(self.name);
            conv::bo_destruct(&mut self.bo);
            conv::alloc::free(self.units);
        }
    }
}

/// The engine's view of an upcall's return code: `PMIX_SUCCESS` means the host will call
/// back, `PMIX_OPERATION_SUCCEEDED` that it finished already, anything else failed.
fn verdict(what: &str, rc: sys::pmix_status_t) -> Result<HostReply> {
    match rc {
        sys::PMIX_SUCCESS => Ok(HostReply::Pending),
        sys::PMIX_OPERATION_SUCCEEDED => Ok(HostReply::Completed),
        e => Err(Error::new(e, format!("host {} upcall failed", what))),
    }
}

/// An upcall in flight: the engine's completion and what was lent.
pub(super) struct Call<T> {
    done: HostDone<T>,
    lent: Lent,
}

/// After the slot returned: keep the box for the host's callback, or take it back.
fn settle<T>(what: &str, rc: sys::pmix_status_t, call: *mut Call<T>) -> Result<HostReply> {
    let v = verdict(what, rc);
    if !matches!(v, Ok(HostReply::Pending)) {
        // SAFETY: the host will not call back; the box is still ours.
        drop(unsafe { Box::from_raw(call) });
    }
    v
}

/// Lend `lent` to the host for one upcall: `slot(lent, cbdata)` calls the module's
/// function with the lent blocks and `cbdata` (the box the completion callback takes
/// back) and returns its return code (a `void` slot returns `PMIX_SUCCESS`: it always
/// calls back); then the box is kept for that callback or taken back, as the return
/// code says ([`settle`]).
pub(super) fn start<T>(
    what: &str,
    done: HostDone<T>,
    lent: Lent,
    slot: impl FnOnce(&mut Lent, *mut c_void) -> sys::pmix_status_t,
) -> Result<HostReply> {
    let call = Box::into_raw(Box::new(Call { done, lent }));
    // SAFETY: `call` is our live box; nothing else touches it until `slot` hands its
    // address to the host (whose callback owns it from then on, see `settle`).
    let rc = slot(unsafe { &mut (*call).lent }, call as *mut c_void);
    settle(what, rc, call)
}

/// A host's release callback and its data, to run once the host's completion returned.
pub(super) struct Release {
    f: sys::pmix_release_cbfunc_t,
    data: *mut c_void,
}

// SAFETY: only the host's function and its opaque argument, called once; OpenPMIx runs
// release functions on its own progress thread, so hosts expect them on any thread.
unsafe impl Send for Release {}

impl Release {
    /// No release function.
    pub(super) fn none() -> Release {
        Release {
            f: None,
            data: core::ptr::null_mut(),
        }
    }

    /// The host's `release_fn(release_cbdata)`.
    pub(super) fn new(f: sys::pmix_release_cbfunc_t, data: *mut c_void) -> Release {
        Release { f, data }
    }

    fn run(self) {
        if let Some(f) = self.f {
            // SAFETY: the host's release callback with its own data, called once.
            unsafe { f(self.data) };
        }
    }
}

/// Take back the box a completion callback receives as `cbdata` (`None`, logged, for a
/// NULL one).
///
/// # Safety
/// `cbdata` is NULL or a `Call<T>` box from [`start`] (or another upcall of this
/// module) that the host completes once.
pub(super) unsafe fn take<T>(what: &str, cbdata: *mut c_void) -> Option<Box<Call<T>>> {
    if cbdata.is_null() {
        log::warn!("host {} completion with a NULL cbdata; ignored", what);
        return None;
    }
    // SAFETY: per the contract above.
    Some(unsafe { Box::from_raw(cbdata as *mut Call<T>) })
}

/// End a host's completion: `r` was copied out of the host's buffers already; the
/// host's `release`, the freeing of what was lent and the engine's `done(r)` run on the
/// progress thread after the host's callback returned (never inside it, on any thread).
pub(super) fn complete<T: Send + 'static>(call: Box<Call<T>>, r: Result<T>, release: Release) {
    let Call { done, lent } = *call;
    threadshift(Box::new(move || {
        release.run();
        drop(lent);
        done(r);
    }));
}

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Run `job` on the progress thread, never on the calling one. Once the progress thread
/// has stopped (a completion arriving after `PMIx_server_finalize`), a short-lived thread
/// of its own runs it instead, so the host still gets its release function called.
pub(crate) fn threadshift(job: Job) {
    let slot = Arc::new(Mutex::new(Some(job)));
    let grab = |s: &Mutex<Option<Job>>| s.lock().unwrap_or_else(|p| p.into_inner()).take();
    let s2 = slot.clone();
    let posted = reactor::current().is_some_and(|h| {
        h.post(move |_| {
            if let Some(j) = grab(&s2) {
                j();
            }
        })
        .is_ok()
    });
    if posted {
        return;
    }
    let Some(j) = grab(&slot) else {
        return;
    };
    if let Err(e) = std::thread::Builder::new()
        .name("pmix-complete".into())
        .spawn(j)
    {
        log::warn!(
            "a host completion after the progress thread stopped could not run: {}",
            e
        );
    }
}

fn op_status(status: sys::pmix_status_t) -> Result<()> {
    match status {
        sys::PMIX_SUCCESS | sys::PMIX_OPERATION_SUCCEEDED => Ok(()),
        e => Err(Error::new(e, "the host reported a failure")),
    }
}

/// Op-style completion (`pmix_op_cbfunc_t`) of a `Call<()>`.
pub(super) unsafe extern "C" fn op_cb(status: sys::pmix_status_t, cbdata: *mut c_void) {
    crate::ffi_value!(op_cb, (), {
        // SAFETY: our box from an op-style upcall; the host completes once.
        let Some(call) = (unsafe { take::<()>("op", cbdata) }) else {
            return;
        };
        complete(call, op_status(status), Release::none());
    })
}

/// Info-style completion (`pmix_info_cbfunc_t`) of a `Call<Vec<Info>>`; a partial
/// success still delivers what the host returned.
pub(super) unsafe extern "C" fn info_cb(
    status: sys::pmix_status_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
    release_fn: sys::pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    crate::ffi_value!(info_cb, (), {
        // SAFETY: our box from an info-style upcall; the host completes once.
        let Some(call) = (unsafe { take::<Vec<Info>>("info", cbdata) }) else {
            return;
        };
        let r = match status {
            sys::PMIX_SUCCESS | sys::PMIX_OPERATION_SUCCEEDED | sys::PMIX_ERR_PARTIAL_SUCCESS => {
                // SAFETY: the host's `ninfo` infos, valid until release_fn (copied now).
                unsafe { conv::info_array_from_c(info, ninfo) }
            }
            e => Err(Error::new(e, "the host reported a failure")),
        };
        complete(call, r, Release::new(release_fn, release_cbdata));
    })
}

/// The answer for a slot found NULL (the dispatcher in `host/mod.rs` gives a host
/// without the slot the engine's default before getting here).
pub(super) fn no_slot(what: &str) -> Result<HostReply> {
    Err(Error::not_supported(format!("host has no {}", what)))
}
