//! The process-wide server behind `PMIx_server_init`/`PMIx_server_finalize` (the C API has
//! no server handle, so the one [`Server`] of the process lives here).

use super::forksafe::ForkCell;
use super::{Host, Server, ServerConfig};
use crate::error::{Error, Result};
use pmix_sys as sys;
use std::sync::{Arc, Mutex};

/// The server, for every export: a [`ForkCell`], as `PMIx_server_setup_fork` looks it up
/// in children the host forked (a plain lock that another thread held at the fork would
/// stay held in the child).
static SERVER: ForkCell<Option<Arc<Server>>> = ForkCell::new(None);

/// Held by `start` while it makes the server, and by `finalize` while it takes it: one
/// at a time.
static INIT: Mutex<()> = Mutex::new(());

fn init_lock() -> std::sync::MutexGuard<'static, ()> {
    INIT.lock().unwrap_or_else(|p| p.into_inner())
}

/// Start the process's server.
///
/// # Errors
/// `PMIX_ERR_INIT` if one is already running; otherwise as [`Server::start`].
pub fn start(cfg: ServerConfig, host: Arc<dyn Host>) -> Result<()> {
    let g = init_lock();
    if SERVER.with(|s| s.is_some()) {
        return Err(Error::new(
            sys::PMIX_ERR_INIT,
            "PMIx_server_init called twice",
        ));
    }
    let s = Arc::new(Server::start(cfg, host)?);
    let id = s.id().clone();
    SERVER.with(|slot| *slot = Some(s));
    drop(g);
    crate::client::global::attach_server(id)
}

/// The running server.
///
/// # Errors
/// `PMIX_ERR_INIT` before `PMIx_server_init` or after `PMIx_server_finalize`.
pub fn server() -> Result<Arc<Server>> {
    SERVER
        .with(|s| s.clone())
        .ok_or_else(|| Error::new(sys::PMIX_ERR_INIT, "PMIx_server_init has not been called"))
}

/// Stop the process's server (it is finalized once the last user of the handle drops it).
///
/// # Errors
/// `PMIX_ERR_INIT` if none is running.
pub fn finalize() -> Result<()> {
    let g = init_lock();
    let s = SERVER
        .with(|s| s.take())
        .ok_or_else(|| Error::new(sys::PMIX_ERR_INIT, "PMIx_server_finalize without init"))?;
    drop(g);
    crate::client::global::detach_server();
    match Arc::try_unwrap(s) {
        Ok(s) => s.finalize(),
        Err(s) => s.close_now(),
    }
    Ok(())
}
