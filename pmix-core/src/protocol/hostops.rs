//! Requests a client makes that the server hands to a host module slot nearly
//! unchanged: credentials, allocation requests, process monitoring (and heartbeats),
//! session control, fabric registration and update, resource blocks. They travel inside [`super::DynReq::HostOp`]; every one but the
//! heartbeat gets a reply.
//!
//! Wire numbers: the whole family sits under one dynamic sub-type,
//! [`wire::DYN_SUBTYPE`], and numbers its own requests from 1 (see [`wire`]), so other
//! request families can grow without meeting these.

use crate::error::{Error, Result};
use crate::value::{Info, ResourceUnit};
use crate::wire::{decode_seq, encode_seq, Decoder, Wire};

/// The wire numbers of this family, kept together.
pub mod wire {
    /// The `DynReq` sub-type byte that carries a [`super::HostOpReq`].
    pub const DYN_SUBTYPE: u8 = 64;
    /// `PMIx_Get_credential`.
    pub const GET_CREDENTIAL: u8 = 1;
    /// `PMIx_Validate_credential`.
    pub const VALIDATE_CREDENTIAL: u8 = 2;
    /// `PMIx_Allocation_request`.
    pub const ALLOCATE: u8 = 3;
    /// `PMIx_Process_monitor`.
    pub const MONITOR: u8 = 4;
    /// `PMIx_Heartbeat` (one-way, no reply).
    pub const HEARTBEAT: u8 = 5;
    /// `PMIx_Session_control`.
    pub const SESSION_CONTROL: u8 = 6;
    /// `PMIx_Fabric_register` / `PMIx_Fabric_update`.
    pub const FABRIC: u8 = 7;
    /// `PMIx_Resource_block`.
    pub const RESOURCE_BLOCK: u8 = 8;
}

/// Key under which a credential travels back to the client in a reply's info list
/// (the host's own infos follow it). Never handed to a C caller.
pub const CRED_REPLY_KEY: &str = "pmixrs.cred";

/// A host-slot request from a client.
#[derive(Debug, Clone, PartialEq)]
pub enum HostOpReq {
    /// `PMIx_Get_credential`. Reply: `ReplyData::Data`, the credential first (as
    /// [`CRED_REPLY_KEY`], bytes), then the host's infos.
    GetCredential {
        /// Directives.
        directives: Vec<Info>,
    },
    /// `PMIx_Validate_credential`. Reply: `ReplyData::Data` (the host's results).
    ValidateCredential {
        /// The credential to check.
        cred: Vec<u8>,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `PMIx_Allocation_request`. Reply: `ReplyData::Data`.
    Allocate {
        /// `pmix_alloc_directive_t`.
        directive: u8,
        /// Description of the request.
        info: Vec<Info>,
    },
    /// `PMIx_Process_monitor`. Reply: `ReplyData::Data`.
    Monitor {
        /// What to monitor.
        monitor: Info,
        /// The status to raise when the condition is met.
        error: i32,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `PMIx_Heartbeat`: sent with tag 0, never answered.
    Heartbeat,
    /// `PMIx_Session_control`. Reply: `ReplyData::Data`.
    SessionControl {
        /// The session.
        session: u32,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `PMIx_Fabric_register` (`PMIX_FABRIC_REQUEST_INFO`, with the caller's directives)
    /// or `PMIx_Fabric_update` (`PMIX_FABRIC_UPDATE_INFO`, with `PMIX_FABRIC_INDEX`).
    /// Reply: `ReplyData::Data` (the fabric's description).
    Fabric {
        /// `pmix_fabric_operation_t`.
        op: u8,
        /// Directives.
        info: Vec<Info>,
    },
    /// `PMIx_Resource_block`. Reply: status.
    ResourceBlock {
        /// `pmix_resource_block_directive_t`.
        directive: u8,
        /// The block's name, if any.
        block: Option<String>,
        /// The resources.
        units: Vec<ResourceUnit>,
        /// Directives.
        info: Vec<Info>,
    },
}

impl Wire for HostOpReq {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            HostOpReq::GetCredential { directives } => {
                wire::GET_CREDENTIAL.encode(out);
                directives.encode(out);
            }
            HostOpReq::ValidateCredential { cred, directives } => {
                wire::VALIDATE_CREDENTIAL.encode(out);
                cred.encode(out);
                directives.encode(out);
            }
            HostOpReq::Allocate { directive, info } => {
                wire::ALLOCATE.encode(out);
                directive.encode(out);
                info.encode(out);
            }
            HostOpReq::Monitor {
                monitor,
                error,
                directives,
            } => {
                wire::MONITOR.encode(out);
                monitor.encode(out);
                error.encode(out);
                directives.encode(out);
            }
            HostOpReq::Heartbeat => wire::HEARTBEAT.encode(out),
            HostOpReq::SessionControl {
                session,
                directives,
            } => {
                wire::SESSION_CONTROL.encode(out);
                session.encode(out);
                directives.encode(out);
            }
            HostOpReq::Fabric { op, info } => {
                wire::FABRIC.encode(out);
                op.encode(out);
                info.encode(out);
            }
            HostOpReq::ResourceBlock {
                directive,
                block,
                units,
                info,
            } => {
                wire::RESOURCE_BLOCK.encode(out);
                directive.encode(out);
                block.encode(out);
                encode_seq(units, out);
                info.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            wire::GET_CREDENTIAL => HostOpReq::GetCredential {
                directives: Vec::decode(d)?,
            },
            wire::VALIDATE_CREDENTIAL => HostOpReq::ValidateCredential {
                cred: Vec::decode(d)?,
                directives: Vec::decode(d)?,
            },
            wire::ALLOCATE => HostOpReq::Allocate {
                directive: u8::decode(d)?,
                info: Vec::decode(d)?,
            },
            wire::MONITOR => HostOpReq::Monitor {
                monitor: Info::decode(d)?,
                error: i32::decode(d)?,
                directives: Vec::decode(d)?,
            },
            wire::HEARTBEAT => HostOpReq::Heartbeat,
            wire::SESSION_CONTROL => HostOpReq::SessionControl {
                session: u32::decode(d)?,
                directives: Vec::decode(d)?,
            },
            wire::FABRIC => HostOpReq::Fabric {
                op: u8::decode(d)?,
                info: Vec::decode(d)?,
            },
            wire::RESOURCE_BLOCK => HostOpReq::ResourceBlock {
                directive: u8::decode(d)?,
                block: Option::decode(d)?,
                units: decode_seq(d)?,
                info: Vec::decode(d)?,
            },
            t => return Err(Error::unpack(format!("unknown host-slot request {}", t))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    #[test]
    fn requests_round_trip_and_truncations_fail() {
        let i = || vec![Info::new("k", Value::Int(3)).unwrap()];
        let reqs = vec![
            HostOpReq::GetCredential { directives: i() },
            HostOpReq::ValidateCredential {
                cred: vec![1, 2, 3],
                directives: vec![],
            },
            HostOpReq::Allocate {
                directive: 1,
                info: i(),
            },
            HostOpReq::Monitor {
                monitor: Info::new("pmix.monitor.fmod", Value::Uint32(5)).unwrap(),
                error: -1,
                directives: i(),
            },
            HostOpReq::SessionControl {
                session: 7,
                directives: i(),
            },
            HostOpReq::Fabric { op: 1, info: i() },
            HostOpReq::ResourceBlock {
                directive: 2,
                block: Some("blk".into()),
                units: vec![ResourceUnit { dtype: 4, count: 2 }],
                info: i(),
            },
        ];
        for r in reqs {
            let b = crate::wire::to_bytes(&r);
            assert_eq!(crate::wire::from_bytes::<HostOpReq>(&b).unwrap(), r);
            for cut in 0..b.len() {
                assert!(crate::wire::from_bytes::<HostOpReq>(&b[..cut]).is_err());
            }
        }
        let hb = crate::wire::to_bytes(&HostOpReq::Heartbeat);
        assert_eq!(hb, vec![wire::HEARTBEAT]);
        assert!(crate::wire::from_bytes::<HostOpReq>(&[99]).is_err());
    }
}
