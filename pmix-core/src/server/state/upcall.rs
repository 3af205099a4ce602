//! What the state machine asks of its host, as data: [`Upcall`]s travel out of a step
//! inside [`Action::Host`](super::Action::Host), with what the state machine needs to
//! route the answer (connection, tag, tracker id); the dispatcher (`server/dispatch.rs`)
//! turns each into a [`HostCall`](crate::server::HostCall) and its completion back into
//! a call of the `ServerState` method named on the variant.

use crate::reactor::ConnId;
use crate::value::{App, Info, Key, ProcId, Query};

/// One upcall the state machine wants made.
#[derive(Debug)]
pub enum Upcall {
    /// `HostCall::Fence`; the answer goes to `ServerState::fence_done(id, …)`.
    Fence {
        /// Tracker id.
        id: u64,
        /// Participants, sorted.
        procs: Vec<ProcId>,
        /// Directives of the first contributor.
        info: Vec<Info>,
        /// Our blob.
        data: Vec<u8>,
    },
    /// `HostCall::DirectModex` for this process; the answer goes to
    /// `ServerState::dmodex_done` with this key.
    Dmodex {
        /// Whose data.
        proc_: ProcId,
        /// The key wanted (also in `info` as `PMIX_REQUIRED_KEY`).
        key: Option<Key>,
        /// Directives (with `PMIX_REQUIRED_KEY` when a key is wanted).
        info: Vec<Info>,
    },
    /// `HostCall::ClientFinalized`; the client is answered with
    /// `ServerState::finalize_done` once the host has taken note.
    Finalized {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// Who finalized.
        proc_: ProcId,
    },
    /// `HostCall::Abort`; the client is answered with `ServerState::abort_done`.
    Abort {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// Who aborts.
        proc_: ProcId,
        /// Status.
        status: i32,
        /// Message.
        msg: String,
        /// Targets (empty = the caller's namespace).
        targets: Vec<ProcId>,
    },
    /// `Host::client_lost`: a client vanished without finalizing.
    Lost(ProcId),
    /// `Host::notify_event`: a client's event for processes beyond this node.
    Notify {
        /// Who raised it.
        source: ProcId,
        /// Event code.
        status: i32,
        /// `pmix_data_range_t`.
        range: u8,
        /// Event infos.
        info: Vec<Info>,
    },
    /// `HostCall::Connect`; the answer goes to `ServerState::connect_done`.
    Connect {
        /// Tracker id.
        id: u64,
        /// Participants, sorted.
        procs: Vec<ProcId>,
        /// Directives of the first participant.
        info: Vec<Info>,
        /// This server's connect blob.
        data: Vec<u8>,
    },
    /// `HostCall::Disconnect`; the answer goes to `ServerState::disconnect_done`.
    Disconnect {
        /// Tracker id.
        id: u64,
        /// Participants, sorted.
        procs: Vec<ProcId>,
        /// Directives of the first participant.
        info: Vec<Info>,
    },
    /// `HostCall::Spawn` for a client's request.
    Spawn {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Job-level directives.
        job_info: Vec<Info>,
        /// Applications.
        apps: Vec<App>,
    },
    /// `HostCall::Publish`.
    Publish {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The publisher.
        proc_: ProcId,
        /// Data and directives.
        info: Vec<Info>,
    },
    /// `HostCall::Lookup`.
    Lookup {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Keys wanted.
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `HostCall::Unpublish`.
    Unpublish {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Keys to remove.
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `HostCall::Query`.
    Query {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Queries the server could not answer itself.
        queries: Vec<Query>,
        /// Results the server already has (merged with the host's).
        state: super::QueryState,
    },
    /// `HostCall::Log`.
    Log {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// What to log.
        data: Vec<Info>,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `HostCall::JobControl`.
    JobControl {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// Targets.
        targets: Vec<ProcId>,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `HostCall::IofPull` for a client's registration; the answer goes to
    /// `ServerState::iof_pull_done`.
    IofPull {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The client's id of the registration.
        id: u64,
        /// Sources.
        procs: Vec<ProcId>,
        /// Channels.
        channels: crate::iof::Channels,
        /// The client's directives.
        directives: Vec<Info>,
    },
    /// `HostCall::IofPull` with `PMIX_IOF_STOP`: a client deregistered.
    IofStop {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The registration's sources.
        procs: Vec<ProcId>,
        /// Its channels.
        channels: crate::iof::Channels,
        /// The client's directives plus `PMIX_IOF_STOP`.
        directives: Vec<Info>,
    },
    /// `HostCall::PushStdin` for a client's `PMIx_IOF_push`.
    PushStdin {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// Who pushes.
        source: ProcId,
        /// Recipients.
        targets: Vec<ProcId>,
        /// Directives.
        directives: Vec<Info>,
        /// The bytes, if any.
        data: Option<Vec<u8>>,
    },
    /// A host-slot request (credentials, allocation, monitoring, session control,
    /// fabric, resource blocks): one `HostCall` per request kind; the answer goes to
    /// `ServerState::credential_done`, `infos_done` or `op_done`.
    HostOp {
        /// Connection to answer.
        conn: ConnId,
        /// Tag to answer.
        tag: u32,
        /// The requester.
        proc_: ProcId,
        /// What the kernel reported for the requester's connection.
        peer: crate::sys::PeerCred,
        /// The request.
        req: crate::protocol::hostops::HostOpReq,
    },
    /// `HostCall::Group`.
    Group {
        /// Tracker id; the answer goes to `ServerState::group_done`.
        id: u64,
        /// True for construct, false for destruct.
        construct: bool,
        /// Group name.
        grp: String,
        /// Members, sorted.
        procs: Vec<ProcId>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `HostCall::ToolConnected` for a tool that passed the server's checks; the answer
    /// completes (or refuses) its handshake.
    Tool {
        /// The tool's connection.
        conn: ConnId,
        /// The identity it chose.
        requested: Option<ProcId>,
        /// What the server knows of it.
        info: Vec<Info>,
    },
}
