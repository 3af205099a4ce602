//! The host as the server sees it: every upcall is one [`HostCall`] value carrying its
//! arguments and its typed completion, handed to [`Host::call`]; a few synchronous
//! notifications (a client connected, vanished, raised an event for other nodes) are
//! plain methods. The server's one dispatcher (`server/dispatch.rs`) builds the calls
//! and feeds their completions back into the state machine on the progress thread.
//!
//! The contract of [`Host::call`]: answer through the call's `done` (from any thread,
//! inline or later) and return [`HostReply::Pending`], or return
//! [`HostReply::Completed`] (the host finished and drops `done`) or an error (the call
//! failed; `done` is dropped). `done` only posts to the progress thread: it never calls
//! back into the host, so a host may call it while holding its own locks.

use crate::error::{Error, Result};
use crate::value::{App, Info, Nspace, Pdata, ProcId, Query, ResourceUnit};

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

/// One upcall into the host: its arguments and the completion it answers through.
/// Hosts match on the variants they serve and hand the others to
/// [`HostCall::unsupported`], which answers as OpenPMIx does for a NULL module slot.
pub enum HostCall {
    /// A client called `PMIx_Finalize` (or disconnected after finalizing); its
    /// `PMIx_Finalize` returns once `done` ran (at once on `Completed` or an error).
    /// Unserved: completed at once.
    ClientFinalized {
        /// Who finalized.
        proc_: ProcId,
        /// Completion.
        done: HostDone<()>,
    },
    /// A client called `PMIx_Abort`; `targets` empty means its whole namespace.
    Abort {
        /// Who aborts.
        proc_: ProcId,
        /// The status it gave.
        status: i32,
        /// Its message.
        msg: String,
        /// Whom to abort.
        targets: Vec<ProcId>,
        /// Completion.
        done: HostDone<()>,
    },
    /// A fence that involves other servers: `data` is this server's contribution blob;
    /// `done` receives the concatenation of every participating server's blob.
    Fence {
        /// Participants, sorted.
        procs: Vec<ProcId>,
        /// Directives of the first contributor.
        info: Vec<Info>,
        /// This server's blob.
        data: Vec<u8>,
        /// Completion: every server's blob.
        done: HostDone<Vec<u8>>,
    },
    /// Ask the node hosting `proc_` for its data (the remote host answers with
    /// [`Server::dmodex_request_info`](super::Server::dmodex_request_info), passing `info`
    /// on); `done` receives the blob that call produced. `info` names the wanted key with
    /// `PMIX_REQUIRED_KEY` when there is one. Unserved: `PMIX_ERR_NOT_FOUND`.
    DirectModex {
        /// Whose data.
        proc_: ProcId,
        /// Directives.
        info: Vec<Info>,
        /// Completion: the remote blob.
        done: HostDone<Vec<u8>>,
    },
    /// A connect that involves other servers: `data` is this server's blob (its
    /// participants' endpoint data and their namespaces' job data,
    /// `protocol::dynamic::encode_connect_blob`); `done` receives the concatenation of
    /// every participating server's blob. Connects among local clients never reach the
    /// host.
    Connect {
        /// Participants, sorted.
        procs: Vec<ProcId>,
        /// Directives of the first participant.
        info: Vec<Info>,
        /// This server's blob.
        data: Vec<u8>,
        /// Completion: every server's blob.
        done: HostDone<Vec<u8>>,
    },
    /// A disconnect that involves other servers.
    Disconnect {
        /// Participants, sorted.
        procs: Vec<ProcId>,
        /// Directives of the first participant.
        info: Vec<Info>,
        /// Completion.
        done: HostDone<()>,
    },
    /// `PMIx_Spawn` from `requester`: start the applications as a new namespace (register
    /// it and its clients first), then hand `done` the namespace.
    Spawn {
        /// Who spawns.
        requester: ProcId,
        /// Job-level directives.
        job_info: Vec<Info>,
        /// Applications.
        apps: Vec<App>,
        /// Completion: the new namespace.
        done: HostDone<Nspace>,
    },
    /// `PMIx_Publish`: `info` holds the data and the directives (`PMIX_RANGE`,
    /// `PMIX_PERSISTENCE`, …).
    Publish {
        /// The publisher.
        proc_: ProcId,
        /// Data and directives.
        info: Vec<Info>,
        /// Completion.
        done: HostDone<()>,
    },
    /// `PMIx_Lookup`: `done` receives what was found (with `PMIX_WAIT`, once every key,
    /// or the number asked for, has been published).
    Lookup {
        /// The requester.
        proc_: ProcId,
        /// Keys wanted.
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
        /// Completion: what was found.
        done: HostDone<Vec<Pdata>>,
    },
    /// `PMIx_Unpublish` (`keys` empty: everything `proc_` published in the range).
    Unpublish {
        /// The requester.
        proc_: ProcId,
        /// Keys to remove.
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
        /// Completion.
        done: HostDone<()>,
    },
    /// `PMIx_Query_info` for what the server cannot answer from its own data.
    Query {
        /// The requester.
        proc_: ProcId,
        /// The queries left for the host.
        queries: Vec<Query>,
        /// Completion: the answers.
        done: HostDone<Vec<Info>>,
    },
    /// `PMIx_Log`.
    Log {
        /// The requester.
        proc_: ProcId,
        /// What to log.
        data: Vec<Info>,
        /// Directives.
        directives: Vec<Info>,
        /// Completion.
        done: HostDone<()>,
    },
    /// `PMIx_Job_control` (`targets` empty: the requester's namespace).
    JobControl {
        /// The requester.
        proc_: ProcId,
        /// Targets.
        targets: Vec<ProcId>,
        /// Directives.
        directives: Vec<Info>,
        /// Completion: the host's results.
        done: HostDone<Vec<Info>>,
    },
    /// A group construct (`construct`) or destruct that involves other servers; `done`
    /// receives results such as `PMIX_GROUP_CONTEXT_ID`.
    Group {
        /// True for construct, false for destruct.
        construct: bool,
        /// Group name.
        grp: String,
        /// Members, sorted.
        procs: Vec<ProcId>,
        /// Directives.
        info: Vec<Info>,
        /// Completion: the host's results.
        done: HostDone<Vec<Info>>,
    },
    /// `PMIx_IOF_pull` from a client: this server wants what `procs` write on `channels`
    /// (the host then hands it over with [`Server::iof_deliver`](super::Server::iof_deliver)).
    /// With `PMIX_IOF_STOP` among the directives, a client deregistered the pull for
    /// these processes and channels. An error refuses the pull.
    IofPull {
        /// Sources.
        procs: Vec<ProcId>,
        /// Channels.
        channels: crate::iof::Channels,
        /// Directives.
        directives: Vec<Info>,
        /// Completion.
        done: HostDone<()>,
    },
    /// `PMIx_IOF_push` from `source`: deliver `data` to the stdin of `targets` (a wildcard
    /// rank: the whole namespace). `data` is `None` when the pusher sent only directives.
    PushStdin {
        /// Who pushes.
        source: ProcId,
        /// Recipients.
        targets: Vec<ProcId>,
        /// Directives.
        directives: Vec<Info>,
        /// The bytes, if any.
        data: Option<Vec<u8>>,
        /// Completion.
        done: HostDone<()>,
    },
    /// A tool asks to connect (`PMIx_tool_init`, only with tool support enabled).
    /// `requested` is the identity it chose, `None` if it asks for one; `info` carries
    /// `PMIX_USERID`, `PMIX_GRPID`, `PMIX_PROC_PID`, `PMIX_VERSION_INFO` and, for a named
    /// tool, `PMIX_NSPACE`/`PMIX_RANK`. `done` receives the tool's identity; only
    /// `Pending` keeps the handshake going (`Completed` refuses the tool). Unserved: a
    /// named tool is accepted as it is, one asking for an identity is refused with
    /// `PMIX_ERR_NOT_SUPPORTED` (OpenPMIx's answer for a NULL `tool_connected` slot).
    ToolConnected {
        /// The identity the tool chose.
        requested: Option<ProcId>,
        /// What the server knows of it.
        info: Vec<Info>,
        /// Completion: the tool's identity.
        done: HostDone<ProcId>,
    },
    /// `PMIx_Get_credential` from `proc_`. `peer` is what the kernel reported for the
    /// client's connection (`SO_PEERCRED`), never what the client claims. `done`
    /// receives the credential and any infos describing it (`Completed`: an empty one).
    GetCredential {
        /// The requester.
        proc_: ProcId,
        /// The kernel's view of its connection.
        peer: crate::sys::PeerCred,
        /// Directives.
        directives: Vec<Info>,
        /// Completion: credential and infos.
        done: HostDone<(Vec<u8>, Vec<Info>)>,
    },
    /// `PMIx_Validate_credential` from `proc_`: `done` receives what the host learned
    /// from the credential (`PMIX_USERID`, `PMIX_GRPID`, …); an error rejects it
    /// (`PMIX_ERR_INVALID_CRED`).
    ValidateCredential {
        /// The requester.
        proc_: ProcId,
        /// The kernel's view of its connection.
        peer: crate::sys::PeerCred,
        /// The credential to check.
        cred: Vec<u8>,
        /// Directives.
        directives: Vec<Info>,
        /// Completion: what the credential says.
        done: HostDone<Vec<Info>>,
    },
    /// `PMIx_Allocation_request` (`directive`: a `pmix_alloc_directive_t`).
    Allocate {
        /// The requester.
        proc_: ProcId,
        /// `pmix_alloc_directive_t`.
        directive: u8,
        /// Description of the request.
        info: Vec<Info>,
        /// Completion: the host's results.
        done: HostDone<Vec<Info>>,
    },
    /// `PMIx_Process_monitor`: watch `proc_` (or the `PMIX_MONITOR_*` target among the
    /// directives) as `monitor` says and raise `error` when the condition is met.
    Monitor {
        /// The requester.
        proc_: ProcId,
        /// What to monitor.
        monitor: Info,
        /// The status to raise.
        error: i32,
        /// Directives.
        directives: Vec<Info>,
        /// Completion: the host's results.
        done: HostDone<Vec<Info>>,
    },
    /// `PMIx_Session_control` for `session`.
    SessionControl {
        /// The requester.
        proc_: ProcId,
        /// The session.
        session: u32,
        /// Directives.
        directives: Vec<Info>,
        /// Completion: the host's results.
        done: HostDone<Vec<Info>>,
    },
    /// `PMIx_Fabric_register` (`op` = `PMIX_FABRIC_REQUEST_INFO`) or `PMIx_Fabric_update`
    /// (`PMIX_FABRIC_UPDATE_INFO`, `info` holding `PMIX_FABRIC_INDEX`): `done` receives
    /// the fabric's description.
    Fabric {
        /// The requester.
        proc_: ProcId,
        /// `pmix_fabric_operation_t`.
        op: u8,
        /// Directives.
        info: Vec<Info>,
        /// Completion: the fabric's description.
        done: HostDone<Vec<Info>>,
    },
    /// `PMIx_Resource_block` (`directive`: a `pmix_resource_block_directive_t`).
    ResourceBlock {
        /// The requester.
        proc_: ProcId,
        /// `pmix_resource_block_directive_t`.
        directive: u8,
        /// The block's name, if any.
        block: Option<String>,
        /// The resources.
        units: Vec<ResourceUnit>,
        /// Directives.
        info: Vec<Info>,
        /// Completion.
        done: HostDone<()>,
    },
}

impl HostCall {
    /// The call's name, as in OpenPMIx's module slot (`fence_nb` is `fence`).
    pub fn name(&self) -> &'static str {
        match self {
            HostCall::ClientFinalized { .. } => "client_finalized",
            HostCall::Abort { .. } => "abort",
            HostCall::Fence { .. } => "fence",
            HostCall::DirectModex { .. } => "direct modex",
            HostCall::Connect { .. } => "connect",
            HostCall::Disconnect { .. } => "disconnect",
            HostCall::Spawn { .. } => "spawn",
            HostCall::Publish { .. } => "publish",
            HostCall::Lookup { .. } => "lookup",
            HostCall::Unpublish { .. } => "unpublish",
            HostCall::Query { .. } => "query",
            HostCall::Log { .. } => "log",
            HostCall::JobControl { .. } => "job control",
            HostCall::Group { .. } => "group",
            HostCall::IofPull { .. } => "iof_pull",
            HostCall::PushStdin { .. } => "push_stdin",
            HostCall::ToolConnected { .. } => "tool_connected",
            HostCall::GetCredential { .. } => "get_credential",
            HostCall::ValidateCredential { .. } => "validate_credential",
            HostCall::Allocate { .. } => "allocate",
            HostCall::Monitor { .. } => "monitor",
            HostCall::SessionControl { .. } => "session_control",
            HostCall::Fabric { .. } => "fabric",
            HostCall::ResourceBlock { .. } => "resource_block",
        }
    }

    /// The answer of a host without this call, as OpenPMIx answers for a NULL module
    /// slot: `PMIX_ERR_NOT_SUPPORTED`, except that a finalize completes at once, a direct
    /// modex finds nothing (`PMIX_ERR_NOT_FOUND`) and a named tool is accepted as it is.
    pub fn unsupported(self) -> Result<HostReply> {
        match self {
            HostCall::ClientFinalized { .. } => Ok(HostReply::Completed),
            HostCall::DirectModex { .. } => Err(Error::not_found("host has no direct modex")),
            HostCall::ToolConnected {
                requested: Some(p),
                done,
                ..
            } => {
                done(Ok(p));
                Ok(HostReply::Pending)
            }
            HostCall::ToolConnected {
                requested: None, ..
            } => Err(Error::not_supported(
                "the host cannot assign tool identities",
            )),
            other => Err(Error::not_supported(format!(
                "host has no {}",
                other.name()
            ))),
        }
    }
}

impl std::fmt::Debug for HostCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostCall::{}", self.name())
    }
}

/// The host environment, as the server sees it: one method for the upcalls and a few
/// synchronous notifications. Every method has a default that answers the way OpenPMIx
/// answers for a NULL module slot.
pub trait Host: Send + Sync + 'static {
    /// Make one upcall (see the module documentation for the contract).
    fn call(&self, call: HostCall) -> Result<HostReply> {
        call.unsupported()
    }
    /// A registered client connected (handshake passed). An `Err` refuses it.
    fn client_connected(&self, _proc: &ProcId) -> Result<()> {
        Ok(())
    }
    /// A client's connection closed before it called `PMIx_Finalize` (it crashed, exited
    /// without finalizing, or sent malformed data). Fences it took part in have already
    /// been failed with `PMIX_ERR_PROC_TERM_WO_SYNC` for the other participants.
    fn client_lost(&self, _proc: &ProcId) {}
    /// A client raised an event for a range beyond this node (`PMIx_Notify_event` with a
    /// range other than `PMIX_RANGE_LOCAL`/`PMIX_RANGE_PROC_LOCAL`); the host carries it
    /// to the other servers, which deliver it with
    /// [`Server::notify_event`](super::Server::notify_event). The local clients have
    /// already been given it.
    fn notify_event(&self, _source: &ProcId, _status: i32, _range: u8, _info: &[Info]) {}
    /// Whether a connected process that calls `PMIx_Finalize` without disconnecting
    /// raises `PMIX_ERR_PROC_TERM_WO_SYNC` at the members it was connected to (the
    /// server does it). A process that vanishes always does. A C host says no: OpenPMIx
    /// leaves this to the host, and Open MPI 4.1.4 never disconnects before finalizing.
    fn finalize_raises_term_wo_sync(&self) -> bool {
        true
    }
    /// Where the context ids (`PMIX_GROUP_CONTEXT_ID`) of the groups this server forms
    /// on its own start: it hands out `base + 1`, `base + 2`, … A host running several
    /// servers gives each its own range, so no two groups share an id (a group
    /// spanning servers gets its id from the host's `group` upcall instead).
    fn context_id_base(&self) -> u64 {
        0
    }
}
