//! Messages of I/O forwarding (protocol version 3): a client's pull, deregistration and
//! stdin push travel inside [`super::Req::Iof`]; forwarded output reaches the client as
//! [`super::ServerMsg::Iof`].

use crate::error::{Error, Result};
use crate::iof::Channels;
use crate::value::{Info, ProcId};
use crate::wire::{Decoder, Wire};

/// An I/O-forwarding request from a client. Every one gets a reply (status only).
#[derive(Debug, Clone, PartialEq)]
pub enum IofReq {
    /// `PMIx_IOF_pull`: send me what `procs` write on `channels`, marked with `id`.
    Pull {
        /// The client's id for this registration (carried by every chunk sent for it).
        id: u64,
        /// Sources (a `PMIX_RANK_WILDCARD` rank covers the namespace).
        procs: Vec<ProcId>,
        /// `PMIX_FWD_*_CHANNEL` bits (never stdin).
        channels: Channels,
        /// The caller's directives (passed to the host).
        directives: Vec<Info>,
    },
    /// `PMIx_IOF_deregister` of the registration the client calls `id`.
    Deregister {
        /// The client's id for it.
        id: u64,
        /// The caller's directives.
        directives: Vec<Info>,
    },
    /// `PMIx_IOF_push`: data for the stdin of `targets` (the host delivers it).
    Push {
        /// Recipients (a `PMIX_RANK_WILDCARD` rank covers the namespace).
        targets: Vec<ProcId>,
        /// The caller's directives (e.g. `PMIX_IOF_COMPLETE`).
        directives: Vec<Info>,
        /// The bytes, if any.
        data: Option<Vec<u8>>,
    },
}

impl Wire for IofReq {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            IofReq::Pull {
                id,
                procs,
                channels,
                directives,
            } => {
                1u8.encode(out);
                id.encode(out);
                procs.encode(out);
                channels.encode(out);
                directives.encode(out);
            }
            IofReq::Deregister { id, directives } => {
                2u8.encode(out);
                id.encode(out);
                directives.encode(out);
            }
            IofReq::Push {
                targets,
                directives,
                data,
            } => {
                3u8.encode(out);
                targets.encode(out);
                directives.encode(out);
                data.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            1 => IofReq::Pull {
                id: u64::decode(d)?,
                procs: Vec::decode(d)?,
                channels: Channels::decode(d)?,
                directives: Vec::decode(d)?,
            },
            2 => IofReq::Deregister {
                id: u64::decode(d)?,
                directives: Vec::decode(d)?,
            },
            3 => IofReq::Push {
                targets: Vec::decode(d)?,
                directives: Vec::decode(d)?,
                data: Option::decode(d)?,
            },
            t => return Err(Error::unpack(format!("unknown IOF request {}", t))),
        })
    }
}
