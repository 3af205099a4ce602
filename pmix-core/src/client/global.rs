//! The process-wide client behind `PMIx_Init`/`PMIx_Finalize`: reference-counted like
//! OpenPMIx (every Init needs its Finalize; the last Finalize disconnects), and usable
//! again after a full finalize.
//!
//! # Implementation notes
//! With no server in the environment, Init makes a singleton and returns success (OpenPMIx
//! 4.2.2 returns `PMIX_ERR_UNREACH` there while remaining usable). Success is what the
//! specification pages describe for a singleton (Fence returns SUCCESS) and what a program
//! that checks Init's status expects; Open MPI 4.1.4 does not start a daemon because of it.

use super::{Client, ClientConfig};
use crate::error::{Error, Result};
use crate::value::{Info, ProcId};
use pmix_sys as sys;
use std::sync::Mutex;

struct Global {
    client: Option<Client>,
    count: usize,
    /// A server process's view of itself, used when `PMIx_Init` was not called.
    embedded: Option<Client>,
}

static GLOBAL: Mutex<Global> = Mutex::new(Global {
    client: None,
    count: 0,
    embedded: None,
});

fn lock() -> std::sync::MutexGuard<'static, Global> {
    GLOBAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// `PMIx_Init`: connect on the first call, count the others. Returns our identity.
///
/// # Errors
/// As [`Client::connect`].
pub fn init(info: Vec<Info>) -> Result<ProcId> {
    let mut g = lock();
    if let Some(id) = g.client.as_ref().map(|c| c.proc_id().clone()) {
        g.count += 1;
        return Ok(id);
    }
    let mut cfg = ClientConfig::from_env()?;
    cfg.info = info;
    let c = Client::connect(cfg)?;
    let id = c.proc_id().clone();
    g.client = Some(c);
    g.count = 1;
    Ok(id)
}

/// True between a successful `PMIx_Init` and its last `PMIx_Finalize`.
pub fn initialized() -> bool {
    lock().client.is_some()
}

/// The current client: the one `PMIx_Init` made or, in a server process that did not
/// call it, the server's view of itself ([`attach_server`]).
///
/// # Errors
/// `PMIX_ERR_INIT` if neither exists.
pub fn client() -> Result<Client> {
    let g = lock();
    g.client
        .clone()
        .or_else(|| g.embedded.clone())
        .ok_or_else(|| Error::new(sys::PMIX_ERR_INIT, "PMIx_Init has not been called"))
}

/// Called by `PMIx_server_init`: give the process a local client view under the server's
/// identity, so a host's `PMIx_Get`/`PMIx_Store_internal` work without `PMIx_Init`
/// (Open MPI's mpirun stores and reads its own data this way).
///
/// # Errors
/// As [`Client::embedded`].
pub fn attach_server(id: ProcId) -> Result<()> {
    let c = Client::embedded(id)?;
    let old = lock().embedded.replace(c);
    if let Some(o) = old {
        let _ = o.finalize();
    }
    Ok(())
}

/// Called by `PMIx_server_finalize`: drop the server's self view.
pub fn detach_server() {
    let old = lock().embedded.take();
    if let Some(o) = old {
        let _ = o.finalize();
    }
}

/// `PMIx_Finalize`: the last one disconnects.
///
/// # Errors
/// `PMIX_ERR_INIT` without a matching Init; `PMIX_ERR_WOULD_BLOCK` on the progress thread.
pub fn finalize() -> Result<()> {
    if crate::reactor::on_progress_thread() {
        return crate::reactor::wait("PMIx_Finalize", None, |_| Ok(()));
    }
    let c = {
        let mut g = lock();
        if g.client.is_none() {
            return Err(Error::new(
                sys::PMIX_ERR_INIT,
                "PMIx_Finalize without PMIx_Init",
            ));
        }
        g.count -= 1;
        if g.count > 0 {
            return Ok(());
        }
        g.client.take()
    };
    match c {
        Some(c) => c.finalize(),
        None => Ok(()),
    }
}
