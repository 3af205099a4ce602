//! Messages of the dynamic operations (connect, disconnect, spawn, publish/lookup, queries,
//! logging, job control, groups): the client requests, the data their replies carry, and
//! the blob a server hands its host for a connect that spans several servers.
//!
//! They travel inside [`super::Req::Dyn`] (request type 8), so the base protocol stays as
//! it is; each has a one-byte sub-type here.

use crate::error::{Error, Result};
use crate::store::JobData;
use crate::value::{App, Info, ProcId, Query};
use crate::wire::{decode_seq, encode_seq, Decoder, Wire};

/// A dynamic-operation request from a client. Every one gets a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum DynReq {
    /// `PMIx_Connect`. Reply: `ReplyData::Connected`.
    Connect {
        /// Participants as the caller described them (groups already expanded).
        procs: Vec<ProcId>,
        /// `PMIX_TIMEOUT` in milliseconds (0 = none).
        timeout_ms: u32,
        /// All directives the caller passed.
        info: Vec<Info>,
        /// The caller's endpoint data: its REMOTE/GLOBAL puts minus reserved keys.
        endpoint: Vec<Info>,
    },
    /// `PMIx_Disconnect`. Reply: status.
    Disconnect {
        /// Participants as the caller described them.
        procs: Vec<ProcId>,
        /// `PMIX_TIMEOUT` in milliseconds (0 = none).
        timeout_ms: u32,
        /// All directives.
        info: Vec<Info>,
    },
    /// `PMIx_Spawn`. Reply: `ReplyData::Data` with `PMIX_NSPACE` of the new job.
    Spawn {
        /// Job-level directives.
        job_info: Vec<Info>,
        /// Applications to start.
        apps: Vec<App>,
    },
    /// `PMIx_Publish`. Reply: status.
    Publish {
        /// The data (with the directives `PMIX_RANGE`, `PMIX_PERSISTENCE`, …).
        info: Vec<Info>,
    },
    /// `PMIx_Lookup`. Reply: `ReplyData::Pdata`.
    Lookup {
        /// Keys wanted.
        keys: Vec<String>,
        /// Directives (`PMIX_RANGE`, `PMIX_WAIT`, `PMIX_TIMEOUT`, …).
        info: Vec<Info>,
    },
    /// `PMIx_Unpublish`. Reply: status.
    Unpublish {
        /// Keys to remove (empty: everything the caller published).
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `PMIx_Query_info`. Reply: `ReplyData::Data`.
    Query {
        /// The queries.
        queries: Vec<Query>,
    },
    /// `PMIx_Log`. Reply: status.
    Log {
        /// What to log.
        data: Vec<Info>,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `PMIx_Job_control`. Reply: `ReplyData::Data` (results).
    JobControl {
        /// Targets (empty: the caller's namespace).
        targets: Vec<ProcId>,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `PMIx_Group_*`. Reply: `ReplyData::Data` (results).
    Group {
        /// [`GroupOp`] as a byte.
        op: u8,
        /// Group name.
        id: String,
        /// Members (construct), invitees (invite) or empty.
        procs: Vec<ProcId>,
        /// Directives.
        info: Vec<Info>,
    },
    /// A request handed to a host module slot (credentials, allocation, monitoring,
    /// session control): see [`super::hostops`].
    HostOp(super::hostops::HostOpReq),
}

/// The group operations a client asks the server for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupOp {
    /// `PMIx_Group_construct`.
    Construct = 1,
    /// `PMIx_Group_destruct`.
    Destruct = 2,
    /// `PMIx_Group_invite` (by the leader).
    Invite = 3,
    /// `PMIx_Group_join` (accept or decline an invitation).
    Join = 4,
    /// `PMIx_Group_leave`.
    Leave = 5,
    /// `PMIx_Group_join` declining the invitation.
    Decline = 6,
}

impl GroupOp {
    /// From the byte on the wire.
    pub fn from_u8(b: u8) -> Option<GroupOp> {
        Some(match b {
            1 => GroupOp::Construct,
            2 => GroupOp::Destruct,
            3 => GroupOp::Invite,
            4 => GroupOp::Join,
            5 => GroupOp::Leave,
            6 => GroupOp::Decline,
            _ => return None,
        })
    }
}

impl Wire for DynReq {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            DynReq::Connect {
                procs,
                timeout_ms,
                info,
                endpoint,
            } => {
                1u8.encode(out);
                procs.encode(out);
                timeout_ms.encode(out);
                info.encode(out);
                endpoint.encode(out);
            }
            DynReq::Disconnect {
                procs,
                timeout_ms,
                info,
            } => {
                2u8.encode(out);
                procs.encode(out);
                timeout_ms.encode(out);
                info.encode(out);
            }
            DynReq::Spawn { job_info, apps } => {
                3u8.encode(out);
                job_info.encode(out);
                encode_seq(apps, out);
            }
            DynReq::Publish { info } => {
                4u8.encode(out);
                info.encode(out);
            }
            DynReq::Lookup { keys, info } => {
                5u8.encode(out);
                encode_seq(keys, out);
                info.encode(out);
            }
            DynReq::Unpublish { keys, info } => {
                6u8.encode(out);
                encode_seq(keys, out);
                info.encode(out);
            }
            DynReq::Query { queries } => {
                7u8.encode(out);
                encode_seq(queries, out);
            }
            DynReq::Log { data, directives } => {
                8u8.encode(out);
                data.encode(out);
                directives.encode(out);
            }
            DynReq::JobControl {
                targets,
                directives,
            } => {
                9u8.encode(out);
                targets.encode(out);
                directives.encode(out);
            }
            DynReq::Group {
                op,
                id,
                procs,
                info,
            } => {
                10u8.encode(out);
                op.encode(out);
                id.encode(out);
                procs.encode(out);
                info.encode(out);
            }
            DynReq::HostOp(r) => {
                super::hostops::wire::DYN_SUBTYPE.encode(out);
                r.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            1 => DynReq::Connect {
                procs: Vec::decode(d)?,
                timeout_ms: u32::decode(d)?,
                info: Vec::decode(d)?,
                endpoint: Vec::decode(d)?,
            },
            2 => DynReq::Disconnect {
                procs: Vec::decode(d)?,
                timeout_ms: u32::decode(d)?,
                info: Vec::decode(d)?,
            },
            3 => DynReq::Spawn {
                job_info: Vec::decode(d)?,
                apps: decode_seq(d)?,
            },
            4 => DynReq::Publish {
                info: Vec::decode(d)?,
            },
            5 => DynReq::Lookup {
                keys: decode_seq(d)?,
                info: Vec::decode(d)?,
            },
            6 => DynReq::Unpublish {
                keys: decode_seq(d)?,
                info: Vec::decode(d)?,
            },
            7 => DynReq::Query {
                queries: decode_seq(d)?,
            },
            8 => DynReq::Log {
                data: Vec::decode(d)?,
                directives: Vec::decode(d)?,
            },
            9 => DynReq::JobControl {
                targets: Vec::decode(d)?,
                directives: Vec::decode(d)?,
            },
            10 => DynReq::Group {
                op: u8::decode(d)?,
                id: String::decode(d)?,
                procs: Vec::decode(d)?,
                info: Vec::decode(d)?,
            },
            super::hostops::wire::DYN_SUBTYPE => DynReq::HostOp(Wire::decode(d)?),
            t => return Err(Error::unpack(format!("unknown dynamic request {}", t))),
        })
    }
}

/// One participant's endpoint data in a connect.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerData {
    /// The participant.
    pub proc_: ProcId,
    /// Exactly what it put at REMOTE or GLOBAL scope, minus reserved keys.
    pub info: Vec<Info>,
}

impl Wire for PeerData {
    fn encode(&self, out: &mut Vec<u8>) {
        self.proc_.encode(out);
        self.info.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(PeerData {
            proc_: ProcId::decode(d)?,
            info: Vec::decode(d)?,
        })
    }
}

/// What a completed connect gives each participant: the job-level data of the other
/// namespaces and the endpoint data of the other participants.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConnectData {
    /// Job data of namespaces other than the receiver's own.
    pub jobs: Vec<JobData>,
    /// Endpoint data of the other participants.
    pub peers: Vec<PeerData>,
}

impl Wire for ConnectData {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_seq(&self.jobs, out);
        encode_seq(&self.peers, out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(ConnectData {
            jobs: decode_seq(d)?,
            peers: decode_seq(d)?,
        })
    }
}

/// What a completed group construct (or accepted invitation) gives a member: the
/// operation's results (`PMIX_GROUP_ID`, `PMIX_GROUP_MEMBERSHIP`,
/// `PMIX_GROUP_CONTEXT_ID`) and the exchanged data, as for a connect.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GroupReply {
    /// Results for the caller.
    pub results: Vec<Info>,
    /// Job data of the other namespaces, endpoint data of the other members.
    pub data: ConnectData,
}

/// The context id among a group operation's results (`PMIX_GROUP_CONTEXT_ID`), if the
/// host assigned one.
pub fn group_context_id(results: &[Info]) -> Option<u64> {
    results
        .iter()
        .find(|i| i.key.as_str() == pmix_sys::attrs::keys::PMIX_GROUP_CONTEXT_ID)
        .and_then(|i| i.value.as_u64())
}

impl Wire for GroupReply {
    fn encode(&self, out: &mut Vec<u8>) {
        self.results.encode(out);
        self.data.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(GroupReply {
            results: Vec::decode(d)?,
            data: ConnectData::decode(d)?,
        })
    }
}

const CONNECT_MAGIC: u32 = u32::from_le_bytes(*b"PMXC");
const CONNECT_VERSION: u16 = 1;

/// Encode one server's contribution to a connect that spans several servers: its local
/// participants' endpoint data and the job data of their namespaces. Self-delimiting, so
/// a host may concatenate the blobs of every server.
pub fn encode_connect_blob(data: &ConnectData) -> Vec<u8> {
    let body = crate::wire::to_bytes(data);
    let mut out = Vec::with_capacity(body.len() + 10);
    CONNECT_MAGIC.encode(&mut out);
    CONNECT_VERSION.encode(&mut out);
    (body.len() as u32).encode(&mut out);
    out.extend_from_slice(&body);
    out
}

/// Decode a concatenation of connect blobs into one [`ConnectData`] (empty input: empty).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if any part is malformed or of an unknown version; nothing is
/// returned then.
pub fn decode_connect_blobs(bytes: &[u8]) -> Result<ConnectData> {
    let bad = |e: Error| Error::bad_param(format!("malformed connect data: {}", e.context));
    let mut d = Decoder::new(bytes);
    let mut all = ConnectData::default();
    while !d.is_empty() {
        if u32::decode(&mut d).map_err(bad)? != CONNECT_MAGIC {
            return Err(Error::bad_param("malformed connect data: bad magic"));
        }
        let ver = u16::decode(&mut d).map_err(bad)?;
        if ver != CONNECT_VERSION {
            return Err(Error::bad_param(format!(
                "connect data of unknown version {}",
                ver
            )));
        }
        let len = u32::decode(&mut d).map_err(bad)? as usize;
        let body = d.take(len).map_err(bad)?;
        let part: ConnectData = crate::wire::from_bytes(body).map_err(bad)?;
        all.jobs.extend(part.jobs);
        all.peers.extend(part.peers);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Nspace, Value};

    fn p(ns: &str, r: u32) -> ProcId {
        ProcId::new(Nspace::new(ns).unwrap(), r)
    }

    #[test]
    fn requests_round_trip_and_truncations_fail() {
        let i = || vec![Info::new("k", Value::Int(3)).unwrap()];
        let reqs = vec![
            DynReq::Connect {
                procs: vec![p("a", 0), p("b", pmix_sys::PMIX_RANK_WILDCARD)],
                timeout_ms: 10,
                info: i(),
                endpoint: i(),
            },
            DynReq::Disconnect {
                procs: vec![p("a", 1)],
                timeout_ms: 0,
                info: vec![],
            },
            DynReq::Spawn {
                job_info: i(),
                apps: vec![App {
                    cmd: Some(b"prog".to_vec()),
                    argv: Some(vec![b"prog".to_vec(), b"x".to_vec()]),
                    maxprocs: 2,
                    ..Default::default()
                }],
            },
            DynReq::Publish { info: i() },
            DynReq::Lookup {
                keys: vec!["a".into(), "b".into()],
                info: vec![],
            },
            DynReq::Unpublish {
                keys: vec![],
                info: i(),
            },
            DynReq::Query {
                queries: vec![Query {
                    keys: Some(vec![b"pmix.qry.ns".to_vec()]),
                    qualifiers: i(),
                }],
            },
            DynReq::Log {
                data: i(),
                directives: vec![],
            },
            DynReq::JobControl {
                targets: vec![p("a", 0)],
                directives: i(),
            },
            DynReq::Group {
                op: GroupOp::Construct as u8,
                id: "g".into(),
                procs: vec![p("a", 0)],
                info: i(),
            },
        ];
        for r in reqs {
            let b = crate::wire::to_bytes(&r);
            assert_eq!(crate::wire::from_bytes::<DynReq>(&b).unwrap(), r);
            for cut in 0..b.len() {
                assert!(crate::wire::from_bytes::<DynReq>(&b[..cut]).is_err());
            }
        }
    }

    #[test]
    fn connect_blobs_concatenate_and_reject_corruption() {
        let a = ConnectData {
            jobs: vec![JobData {
                nspace: Nspace::new("a").unwrap(),
                ..Default::default()
            }],
            peers: vec![PeerData {
                proc_: p("a", 0),
                info: vec![Info::new("ep", Value::Uint64(7)).unwrap()],
            }],
        };
        let b = ConnectData {
            jobs: vec![],
            peers: vec![PeerData {
                proc_: p("b", 3),
                info: vec![],
            }],
        };
        let mut cat = encode_connect_blob(&a);
        let first = cat.len();
        cat.extend(encode_connect_blob(&b));
        let all = decode_connect_blobs(&cat).unwrap();
        assert_eq!(all.jobs.len(), 1);
        assert_eq!(all.peers.len(), 2);
        assert_eq!(decode_connect_blobs(&[]).unwrap(), ConnectData::default());
        for cut in 1..cat.len() {
            if cut == first {
                continue;
            }
            assert_eq!(
                decode_connect_blobs(&cat[..cut]).unwrap_err().status,
                pmix_sys::PMIX_ERR_BAD_PARAM
            );
        }
    }
}
