//! The client↔server protocol and the blobs servers exchange through their hosts, as a
//! sans-I/O codec: bytes in, messages out. Nothing here touches a socket, so all of it
//! can be unit-tested and fuzzed.
//!
//! # Frames
//! Every message travels as one frame: a `u32` little-endian body length, then the body.
//! A length above [`MAX_FRAME`] is rejected before anything is allocated; the reactor then
//! closes that one connection.
//!
//! # Conversation
//! 1. Client → server: [`Hello`] (magic, protocol [`VERSION`], nspace, rank, pid, uid, gid,
//!    and whether it is a client or a tool, see [`PeerKind`]).
//! 2. Server → client: [`Welcome`] — `Accepted` with the job data of the client's
//!    namespace, or `Refused` with a status and reason (then the server closes).
//! 3. Client → server: [`Request`]s, each with a tag; tag 0 asks for no reply (commit).
//! 4. Server → client: [`ServerMsg::Reply`] carrying the request's tag, or an unsolicited
//!    [`ServerMsg::Event`].
//!
//! All items inside bodies use the engine's own byte format ([`crate::wire::Wire`]).
//!
//! # Host blobs
//! A fence contribution or direct-modex answer handed to a host ([`encode_blob`]) is
//! self-delimiting (magic, version, flags, body length), so a host may concatenate the
//! blobs of several servers; [`decode_blobs`] reads such a concatenation and rejects the
//! whole of it if any part is malformed.

mod blob;
mod collect;
pub mod dynamic;
mod frame;
mod hello;
pub mod hostops;
pub mod iof;
mod request;
mod server_msg;

use crate::error::Error;
use crate::value::{Nspace, ProcId, Rank};
pub use blob::{decode_blobs, encode_blob, Blob, ProcBlob, SectionKind, BLOB_COLLECT, BLOB_DELTA};
pub use collect::{
    collected_find, collected_index, collected_section, collected_section_into,
    collected_section_proc, CollectedProc, CollectedWriter, Contribution, Put,
};
pub use dynamic::{group_context_id, ConnectData, DynReq, GroupOp, GroupReply, PeerData};
pub use frame::{
    decode, encode, encode_frame_into, reply_status, reply_tag, set_reply_tag, FrameDecoder,
};
pub use hello::{
    append_fence_area, encode_welcome_accepted, welcome_fence_area, Hello, PeerKind, Welcome,
};
pub use iof::IofReq;
use pmix_sys as sys;
pub use request::{Req, Request};
pub use server_msg::{ReplyData, ServerMsg};

/// Protocol version spoken by this library (sent in [`Hello`]). 3 added I/O forwarding
/// ([`Req::Iof`], [`ServerMsg::Iof`]); 4 added tools ([`Hello::kind`], the identity in
/// [`Welcome::Accepted`]); 5 made job data compact (the per-process table of
/// `store::procs`, which a Welcome may name by its shared segment); 6 passes that segment
/// as a sealed memory file's descriptor with the Welcome instead of naming a file.
pub const VERSION: u32 = 6;
/// A client↔server wire protocol this library speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// Its name.
    pub name: &'static str,
    /// The version spoken.
    pub version: u32,
    /// The transport it runs over.
    pub transport: &'static str,
    /// One line about it.
    pub about: &'static str,
}

/// Every wire protocol this library speaks (`pmix_info` lists them): a second dialect
/// (say, OpenPMIx's own) is added here.
pub const DIALECTS: &[Dialect] = &[Dialect {
    name: "pmix-rs",
    version: VERSION,
    transport: "unix stream socket",
    about: "length-prefixed frames of the one codec; client and server must be pmix-rs \
            of the same protocol version",
}];

/// The largest frame body accepted (64 MiB).
pub const MAX_FRAME: usize = 64 << 20;

/// Directive (an info key in our own `pmixrs.` namespace) that keeps fences over the same
/// participants apart: the server matches a fence on its sorted participant list *and*
/// this string value, so two fences with different tags never complete each other.
/// `PMIx_Fence` itself carries no such identity (OpenPMIx matches by participants only);
/// the CUDA communications object ([`crate::cuda`]) tags each operation with
/// `<object>.<communicator>.<sequence>`. A host that carries fences between servers
/// receives the tag among the fence's directives and must match on it too.
pub const FENCE_TAG: &str = "pmixrs.fence.tag";

/// Key under which an allgather contribution travels inside a host blob (one entry per
/// process, a byte object), so multi-server allgathers use the ordinary fence path of
/// any host that concatenates blobs.
pub const GATHER_KEY: &str = "pmixrs.gather";

/// Wire number of [`Req::Allgather`], far from the numbers of the core requests so that
/// requests added elsewhere do not collide with it.
const REQ_ALLGATHER: u8 = 64;
/// Wire number of [`Req::Iof`] (see [`REQ_ALLGATHER`]).
const REQ_IOF: u8 = 72;
/// Wire number of [`ServerMsg::Iof`].
const MSG_IOF: u8 = 4;
/// Wire number of [`ServerMsg::ForgetNode`].
const MSG_FORGET_NODE: u8 = 5;
/// Wire number of [`ReplyData::Gathered`] (see [`REQ_ALLGATHER`]).
const REPLY_GATHERED: u8 = 64;
/// Wire number of [`ReplyData::Collected`] (same reasoning).
const REPLY_COLLECTED: u8 = 65;

/// Largest collected data a collecting fence's reply carries (encoded). Beyond it the
/// reply carries none and clients fetch each peer's data on first access, as before: a
/// client's memory then does not grow with the job. 1 MiB carries one 64-byte value
/// per rank of a 4,096-rank job (about 130 bytes each); at 256 KiB a job of 2,048 ranks
/// fell back to one Get per peer per rank, N² requests to the server.
pub const COLLECTED_INLINE_MAX: usize = 1 << 20;

/// A process id from parts, for messages.
pub fn proc_of(nspace: &Nspace, rank: Rank) -> ProcId {
    ProcId::new(nspace.clone(), rank)
}

/// The status a server sends for an engine error.
pub fn status_of(e: &Error) -> i32 {
    if e.status == sys::PMIX_SUCCESS {
        sys::PMIX_ERROR
    } else {
        e.status
    }
}

#[cfg(test)]
mod tests;
