//! The process-wide client behind `PMIx_Init`/`PMIx_Finalize`: reference-counted like
//! OpenPMIx (every Init needs its Finalize; the last Finalize disconnects), and usable
//! again after a full finalize.
//!
//! # Implementation notes
//! With no server in the environment, Init makes a singleton: usable (its own job data,
//! Fence satisfied at once), but the first `PMIx_Init` says `PMIX_ERR_UNREACH`, as
//! OpenPMIx 4.2.2, 5.0.x and master do ([`init`] tells the caller through
//! [`Init::singleton`]). Open MPI 5 knows it is a singleton only from that status (given
//! SUCCESS it runs its modex fence and fails); Open MPI 4.1.4 forks its own orted before
//! it calls `PMIx_Init`, so it never sees the status. A nested Init returns success.

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
    /// `client` came from `PMIx_tool_init`.
    tool: bool,
}

static GLOBAL: Mutex<Global> = Mutex::new(Global {
    client: None,
    count: 0,
    embedded: None,
    tool: false,
});

fn lock() -> std::sync::MutexGuard<'static, Global> {
    GLOBAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a successful [`init`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Init {
    /// Our identity.
    pub id: ProcId,
    /// This call made a singleton (no server in the environment): `PMIx_Init` returns
    /// `PMIX_ERR_UNREACH` for it, as OpenPMIx does, and the process stays usable.
    pub singleton: bool,
}

/// `PMIx_Init`: connect on the first call, count the others.
///
/// # Errors
/// As [`Client::connect`].
pub fn init(info: Vec<Info>) -> Result<Init> {
    let mut g = lock();
    if let Some(id) = g.client.as_ref().map(|c| c.proc_id().clone()) {
        g.count += 1;
        return Ok(Init {
            id,
            singleton: false,
        });
    }
    let mut cfg = ClientConfig::from_env()?;
    cfg.info = info;
    let c = Client::connect(cfg)?;
    let id = c.proc_id().clone();
    let singleton = c.is_singleton();
    g.client = Some(c);
    g.count = 1;
    g.tool = false;
    Ok(Init { id, singleton })
}

/// `PMIx_tool_init`: on the first call, find and connect to a server (or not, as the
/// directives say; see [`super::tool`]); later calls count. Returns our identity.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for bad directives, `PMIX_ERR_UNREACH` (or the server's refusal)
/// when the server cannot be used and the connection was not optional.
pub fn tool_init(info: &[Info]) -> Result<ProcId> {
    let mut g = lock();
    if let Some(id) = g.client.as_ref().map(|c| c.proc_id().clone()) {
        g.count += 1;
        return Ok(id);
    }
    let o = super::tool::ToolOptions::from_info(info)?;
    let c = if o.do_not_connect {
        Client::tool_local(o.id.clone().map_or_else(super::tool::self_assigned, Ok)?)?
    } else {
        match super::tool::connect(o.id.as_ref(), &o.target) {
            Ok(c) => c,
            Err(e) if o.target.optional => {
                log::info!("tool: no server ({}); continuing unconnected", e);
                Client::tool_local(super::tool::self_assigned()?)?
            }
            Err(e) => return Err(e),
        }
    };
    let id = c.proc_id().clone();
    g.client = Some(c);
    g.count = 1;
    g.tool = true;
    Ok(id)
}

fn tool_client(g: &Global) -> Result<Client> {
    match &g.client {
        Some(c) if g.tool => Ok(c.clone()),
        _ => Err(Error::new(
            sys::PMIX_ERR_INIT,
            "PMIx_tool_init has not been called",
        )),
    }
}

/// `PMIx_tool_is_connected`.
pub fn tool_is_connected() -> bool {
    let g = lock();
    g.tool && g.client.as_ref().is_some_and(Client::is_connected)
}

/// `PMIx_tool_get_servers`: the server we are connected to.
///
/// # Errors
/// `PMIX_ERR_INIT` before `PMIx_tool_init`, `PMIX_ERR_UNREACH` when not connected.
pub fn tool_servers() -> Result<Vec<ProcId>> {
    let c = tool_client(&lock())?;
    match c.server_id() {
        Some(s) if c.is_connected() => Ok(vec![s.clone()]),
        _ => Err(Error::new(
            sys::PMIX_ERR_UNREACH,
            "the tool is not connected to a server",
        )),
    }
}

/// `PMIx_tool_set_server`: only the server we are connected to can be the primary.
///
/// # Errors
/// `PMIX_ERR_INIT` before `PMIx_tool_init`, `PMIX_ERR_UNREACH` for any other server.
pub fn tool_set_server(server: &ProcId) -> Result<()> {
    let c = tool_client(&lock())?;
    match c.server_id() {
        Some(s) if s == server && c.is_connected() => Ok(()),
        _ => Err(Error::new(
            sys::PMIX_ERR_UNREACH,
            format!("the tool is not connected to {}", server),
        )),
    }
}

/// `PMIx_tool_disconnect`: leave `server`, stay initialized (unconnected, same identity).
///
/// # Errors
/// `PMIX_ERR_INIT` before `PMIx_tool_init`, `PMIX_ERR_NOT_FOUND` if we are not
/// connected to `server`; `PMIX_ERR_WOULD_BLOCK` on the progress thread.
pub fn tool_disconnect(server: &ProcId) -> Result<()> {
    crate::reactor::would_block("PMIx_tool_disconnect")?;
    let mut g = lock();
    let c = tool_client(&g)?;
    if !(c.is_connected() && c.server_id() == Some(server)) {
        return Err(Error::new(
            sys::PMIX_ERR_NOT_FOUND,
            format!("the tool is not connected to {}", server),
        ));
    }
    let local = Client::tool_local(c.proc_id().clone())?;
    g.client = Some(local);
    drop(g);
    c.finalize()
}

/// `PMIx_tool_attach_to_server`: connect to the server `info` names, under our existing
/// identity. One server at a time: attaching while connected works only for the same
/// server. Returns (our id, the server's id).
///
/// # Errors
/// `PMIX_ERR_INIT` before `PMIx_tool_init`, `PMIX_ERR_BAD_PARAM` if `info` names no
/// server, `PMIX_ERR_NOT_SUPPORTED` for a second server, or the connection's error.
pub fn tool_attach(info: &[Info]) -> Result<(ProcId, ProcId)> {
    crate::reactor::would_block("PMIx_tool_attach_to_server")?;
    let t = super::tool::Target::from_info(info)?;
    if !t.names_a_server() {
        return Err(Error::bad_param(
            "PMIx_tool_attach_to_server needs a directive naming the server",
        ));
    }
    let mut g = lock();
    let c = tool_client(&g)?;
    let me = c.proc_id().clone();
    if c.is_connected() {
        let uri = t.find()?.uri;
        let here = c.server_id().cloned();
        return match here {
            Some(s) if uri.starts_with(&format!("{}.{};", s.nspace, s.rank)) => Ok((me, s)),
            _ => Err(Error::not_supported(
                "a tool is connected to one server at a time; disconnect first",
            )),
        };
    }
    let new = super::tool::connect(Some(&me), &t)?;
    let server = new
        .server_id()
        .cloned()
        .ok_or_else(|| Error::new(sys::PMIX_ERR_UNREACH, "no server"))?;
    g.client = Some(new);
    drop(g);
    let _ = c.finalize();
    Ok((me, server))
}

/// `PMIx_tool_finalize`.
///
/// # Errors
/// `PMIX_ERR_INIT` without `PMIx_tool_init`.
pub fn tool_finalize() -> Result<()> {
    crate::reactor::would_block("PMIx_tool_finalize")?;
    tool_client(&lock())?;
    finalize()
}

/// True between a successful `PMIx_Init` and its last `PMIx_Finalize`.
pub fn initialized() -> bool {
    lock().client.is_some()
}

/// The client `PMIx_Init` made, if any (not a server's view of itself).
pub fn initialized_client() -> Option<Client> {
    lock().client.clone()
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
    crate::reactor::would_block("PMIx_Finalize")?;
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
