//! The PMIx server: the contract between the engine and whoever hosts it (`capi`'s
//! `PMIx_server_*` on behalf of a C host such as Open MPI's mpirun/orted, or `pmixrun`
//! directly in Rust).
//!
//! A host creates one [`Server`], registers namespaces and clients, asks for the
//! environment of each child ([`Server::setup_fork`]) and implements [`Host`] to carry
//! what crosses nodes (fence blobs, direct modex) and to learn about client events.
//!
//! Threading: every `Host` method is called on the progress thread. A host answers an
//! asynchronous upcall by calling the `done` callback it was handed, from any thread,
//! at most once; the engine then continues on the progress thread.

use crate::error::{Error, Result};
use crate::value::{Info, Nspace, ProcId};
use std::path::PathBuf;

/// How an asynchronous host upcall reports its result (called at most once, any thread).
pub type HostDone<T> = Box<dyn FnOnce(Result<T>) + Send + 'static>;

/// What a host upcall returned synchronously.
#[derive(Debug)]
pub enum HostReply {
    /// The host will call the `done` callback later (`PMIX_SUCCESS` in C).
    Pending,
    /// The host finished synchronously and will not call `done` (`PMIX_OPERATION_SUCCEEDED`).
    Completed,
}

/// The host environment, as the server sees it. Every method has a default that answers
/// the way OpenPMIx answers for a NULL module slot.
pub trait Host: Send + Sync + 'static {
    /// A registered client connected (handshake passed). An `Err` refuses it.
    fn client_connected(&self, _proc: &ProcId) -> Result<()> {
        Ok(())
    }
    /// A client called `PMIx_Finalize` (or disconnected after finalizing).
    fn client_finalized(&self, _proc: &ProcId) {}
    /// A client called `PMIx_Abort`; `targets` empty means its whole namespace.
    fn abort(
        &self,
        _proc: &ProcId,
        _status: i32,
        _msg: &str,
        _targets: &[ProcId],
        _done: HostDone<()>,
    ) -> Result<HostReply> {
        Err(Error::not_supported("host has no abort"))
    }
    /// A fence that involves other servers: `data` is this server's contribution blob;
    /// `done` receives the concatenation of every participating server's blob.
    fn fence(
        &self,
        _procs: &[ProcId],
        _info: &[Info],
        _data: Vec<u8>,
        _done: HostDone<Vec<u8>>,
    ) -> Result<HostReply> {
        Err(Error::not_supported("host has no fence"))
    }
    /// Ask the node hosting `proc` for its data (the remote host answers with
    /// [`Server::dmodex_request`]); `done` receives the blob that call produced.
    fn direct_modex(
        &self,
        _proc: &ProcId,
        _info: &[Info],
        _done: HostDone<Vec<u8>>,
    ) -> Result<HostReply> {
        Err(Error::not_found("host has no direct modex"))
    }
}

/// Server configuration.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// The server's own identity (`PMIX_SERVER_NSPACE`/`PMIX_SERVER_RANK`).
    pub id: ProcId,
    /// Directory under which the rendezvous directory is created (`PMIX_SERVER_TMPDIR`);
    /// defaults to `$TMPDIR` or `/tmp`.
    pub tmpdir: Option<PathBuf>,
    /// All other infos the host passed to `PMIx_server_init`.
    pub info: Vec<Info>,
}

/// A running server (one per process).
pub struct Server {
    _private: (),
}

impl Server {
    /// Start the server: create the rendezvous socket and start serving on the progress thread.
    pub fn start(_cfg: ServerConfig, _host: std::sync::Arc<dyn Host>) -> Result<Server> {
        Err(Error::not_supported("server not implemented yet"))
    }
    /// Register a namespace with its job, app, node and per-process info (blocking).
    pub fn register_nspace(
        &self,
        _nspace: &Nspace,
        _nlocalprocs: u32,
        _info: Vec<Info>,
    ) -> Result<()> {
        Err(Error::not_supported("server not implemented yet"))
    }
    /// Forget a namespace and everything stored for it.
    pub fn deregister_nspace(&self, _nspace: &Nspace) {}
    /// Allow `proc` to connect, from a peer with this uid/gid.
    pub fn register_client(&self, _proc: &ProcId, _uid: u32, _gid: u32) -> Result<()> {
        Err(Error::not_supported("server not implemented yet"))
    }
    /// Forget a client.
    pub fn deregister_client(&self, _proc: &ProcId) {}
    /// The environment variables a child process needs to find this server as `proc`.
    pub fn setup_fork(&self, _proc: &ProcId) -> Result<Vec<(String, String)>> {
        Err(Error::not_supported("server not implemented yet"))
    }
    /// Answer a direct-modex request from another node for `proc`'s data (the remote
    /// host's `direct_modex` upcall reached us). `done` receives the blob.
    pub fn dmodex_request(&self, _proc: &ProcId, _done: HostDone<Vec<u8>>) -> Result<()> {
        Err(Error::not_supported("server not implemented yet"))
    }
    /// Stop serving, close every client connection and remove the rendezvous directory.
    pub fn finalize(self) {}
}
