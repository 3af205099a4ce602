//! Client requests: [`Req`] and its tagged envelope [`Request`].

use super::{DynReq, IofReq, Put, REQ_ALLGATHER, REQ_IOF};
use crate::error::{Error, Result};
use crate::value::{Info, Key, Nspace, ProcId};
use crate::wire::{decode_seq, encode_seq, Decoder, Wire};

/// A client request.
#[derive(Debug, Clone, PartialEq)]
pub enum Req {
    /// Publish what was put since the last commit (no reply).
    Commit {
        /// The values.
        puts: Vec<Put>,
    },
    /// Enter a fence. Reply: status.
    Fence {
        /// Participants as the caller described them (the server sorts them).
        procs: Vec<ProcId>,
        /// `PMIX_COLLECT_DATA`.
        collect: bool,
        /// `PMIX_TIMEOUT` in milliseconds (0 = none).
        timeout_ms: u32,
        /// All directives the caller passed.
        info: Vec<Info>,
    },
    /// Fetch a process's published data. Reply: status and the data the caller may see.
    Get {
        /// Whose data.
        target: ProcId,
        /// The key wanted (None: anything the target committed).
        key: Option<Key>,
        /// `PMIX_IMMEDIATE`: answer from the server's store only, never wait.
        immediate: bool,
        /// `PMIX_TIMEOUT` in milliseconds (0 = none).
        timeout_ms: u32,
        /// All directives the caller passed.
        info: Vec<Info>,
    },
    /// Fetch the job data of a namespace. Reply: `ReplyData::Job`.
    JobData {
        /// Which namespace.
        nspace: Nspace,
    },
    /// `PMIx_Abort`. Reply: status.
    Abort {
        /// Status to report.
        status: i32,
        /// Message.
        msg: String,
        /// Processes to abort (empty: the caller's namespace).
        targets: Vec<ProcId>,
    },
    /// `PMIx_Finalize`. Reply: status.
    Finalize,
    /// `PMIx_Notify_event` from a client. Reply: status.
    Notify {
        /// Event code.
        status: i32,
        /// `pmix_data_range_t`.
        range: u8,
        /// Event infos.
        info: Vec<Info>,
    },
    /// A dynamic operation (connect, spawn, publish, query, …; see [`dynamic`]).
    ///
    /// [`dynamic`]: super::dynamic
    Dyn(DynReq),
    /// A fence that also gathers one opaque contribution per participant (our own
    /// extension, used by [`crate::cuda`]). Matched like a fence (participants and
    /// [`FENCE_TAG`]); reply: status and [`ReplyData::Gathered`], every participant's
    /// contribution sorted by process.
    ///
    /// [`FENCE_TAG`]: super::FENCE_TAG
    /// [`ReplyData::Gathered`]: super::ReplyData::Gathered
    Allgather {
        /// Participants as the caller described them (the server sorts them).
        procs: Vec<ProcId>,
        /// `PMIX_TIMEOUT` in milliseconds (0 = none).
        timeout_ms: u32,
        /// All directives the caller passed (with [`FENCE_TAG`]).
        ///
        /// [`FENCE_TAG`]: super::FENCE_TAG
        info: Vec<Info>,
        /// The caller's contribution.
        data: Vec<u8>,
    },
    /// An I/O-forwarding request (pull, deregister, push; see [`iof`]).
    ///
    /// [`iof`]: super::iof
    Iof(IofReq),
}

impl Req {
    /// The request's kind, as the debug dump names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Req::Commit { .. } => "commit",
            Req::Fence { .. } => "fence",
            Req::Get { .. } => "get",
            Req::JobData { .. } => "job data",
            Req::Abort { .. } => "abort",
            Req::Finalize => "finalize",
            Req::Notify { .. } => "notify",
            Req::Dyn(_) => "dynamic (connect, publish, spawn, group, query, ...)",
            Req::Allgather { .. } => "allgather",
            Req::Iof(_) => "iof",
        }
    }
}

/// A request with the tag its reply will carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Matches the reply (0: no reply wanted).
    pub tag: u32,
    /// The request.
    pub req: Req,
}

impl Wire for Request {
    fn encode(&self, out: &mut Vec<u8>) {
        self.tag.encode(out);
        match &self.req {
            Req::Commit { puts } => {
                1u8.encode(out);
                encode_seq(puts, out);
            }
            Req::Fence {
                procs,
                collect,
                timeout_ms,
                info,
            } => {
                2u8.encode(out);
                procs.encode(out);
                collect.encode(out);
                timeout_ms.encode(out);
                info.encode(out);
            }
            Req::Get {
                target,
                key,
                immediate,
                timeout_ms,
                info,
            } => {
                3u8.encode(out);
                target.encode(out);
                key.encode(out);
                immediate.encode(out);
                timeout_ms.encode(out);
                info.encode(out);
            }
            Req::JobData { nspace } => {
                4u8.encode(out);
                nspace.encode(out);
            }
            Req::Abort {
                status,
                msg,
                targets,
            } => {
                5u8.encode(out);
                status.encode(out);
                msg.encode(out);
                targets.encode(out);
            }
            Req::Finalize => 6u8.encode(out),
            Req::Notify {
                status,
                range,
                info,
            } => {
                7u8.encode(out);
                status.encode(out);
                range.encode(out);
                info.encode(out);
            }
            Req::Dyn(r) => {
                8u8.encode(out);
                r.encode(out);
            }
            Req::Allgather {
                procs,
                timeout_ms,
                info,
                data,
            } => {
                REQ_ALLGATHER.encode(out);
                procs.encode(out);
                timeout_ms.encode(out);
                info.encode(out);
                data.encode(out);
            }
            Req::Iof(r) => {
                REQ_IOF.encode(out);
                r.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let tag = u32::decode(d)?;
        let req = match u8::decode(d)? {
            1 => Req::Commit {
                puts: decode_seq(d)?,
            },
            2 => Req::Fence {
                procs: Vec::decode(d)?,
                collect: bool::decode(d)?,
                timeout_ms: u32::decode(d)?,
                info: Vec::decode(d)?,
            },
            3 => Req::Get {
                target: ProcId::decode(d)?,
                key: Option::decode(d)?,
                immediate: bool::decode(d)?,
                timeout_ms: u32::decode(d)?,
                info: Vec::decode(d)?,
            },
            4 => Req::JobData {
                nspace: Nspace::decode(d)?,
            },
            5 => Req::Abort {
                status: i32::decode(d)?,
                msg: String::decode(d)?,
                targets: Vec::decode(d)?,
            },
            6 => Req::Finalize,
            7 => Req::Notify {
                status: i32::decode(d)?,
                range: u8::decode(d)?,
                info: Vec::decode(d)?,
            },
            8 => Req::Dyn(DynReq::decode(d)?),
            REQ_ALLGATHER => Req::Allgather {
                procs: Vec::decode(d)?,
                timeout_ms: u32::decode(d)?,
                info: Vec::decode(d)?,
                data: Vec::decode(d)?,
            },
            REQ_IOF => Req::Iof(IofReq::decode(d)?),
            t => return Err(Error::unpack(format!("unknown request type {}", t))),
        };
        Ok(Request { tag, req })
    }
}
