//! The client API (`pmix.h`): one file per family, each export a thin translation onto
//! `pmix_core::client`.

pub mod connect;
pub mod event;
pub mod fabric;
pub mod fence;
pub mod get;
pub mod group;
pub mod hostops;
pub mod init;
pub mod iof;
pub mod job_control;
pub mod ops;
pub mod progress;
pub mod publish;
pub mod put;
pub mod query;
pub mod spawn;
pub mod topology;

use core::ffi::c_void;

/// A C caller's `cbdata` (or another opaque C pointer) carried to the progress thread,
/// where it is handed back, unchanged, to the C callback it came with.
#[derive(Clone, Copy)]
pub struct CbData(*mut c_void);

// SAFETY: the pointer is opaque to us: we never dereference it, only pass it back to the
// caller's own callback. The PMIx API contract makes the caller responsible for making
// what it points to usable from the progress thread (callbacks run there by definition).
unsafe impl Send for CbData {}
// SAFETY: as above; sharing the opaque value between threads reads nothing through it.
unsafe impl Sync for CbData {}

impl CbData {
    /// Wrap a C pointer.
    pub fn new(p: *mut c_void) -> Self {
        CbData(p)
    }
    /// The pointer (a method, so closures capture the whole `Send` wrapper).
    pub fn get(self) -> *mut c_void {
        self.0
    }
}

/// The status of an engine result, logging failures at debug level with the call name.
pub fn status(name: &str, r: pmix_core::Result<()>) -> pmix_sys::pmix_status_t {
    match r {
        Ok(()) => pmix_sys::PMIX_SUCCESS,
        Err(e) => {
            log::debug!("{}: {}", name, e);
            e.status()
        }
    }
}
