//! Server → client messages: [`ServerMsg`] and the [`ReplyData`] of a reply.

use super::{
    ConnectData, Contribution, GroupReply, MSG_FORGET_NODE, MSG_IOF, REPLY_COLLECTED,
    REPLY_GATHERED,
};
use crate::error::{Error, Result};
use crate::store::{JobData, NodeData};
use crate::value::{Info, Key, Nspace, Pdata, ProcId};
use crate::wire::{decode_seq, encode_seq, Decoder, Wire};

/// Data carried by a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplyData {
    /// Nothing (status only).
    None,
    /// A process's published data visible to the requester.
    Data(Vec<Info>),
    /// A namespace's job data.
    Job(Box<JobData>),
    /// What a completed connect delivers (see [`ConnectData`]).
    Connected(Box<ConnectData>),
    /// Published data found by a lookup.
    Pdata(Vec<Pdata>),
    /// What a completed group construct or join delivers (see [`GroupReply`]).
    Group(Box<GroupReply>),
    /// Every participant's contribution to an allgather, sorted by process.
    Gathered(Vec<Contribution>),
    /// What the participants of a collecting fence published, for the requester's
    /// local store, kept encoded (see [`CollectedWriter`]).
    ///
    /// [`CollectedWriter`]: super::CollectedWriter
    Collected(Vec<u8>),
}

/// A message from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerMsg {
    /// The answer to the request with this tag.
    Reply {
        /// The request's tag.
        tag: u32,
        /// Outcome.
        status: i32,
        /// Data, if any.
        data: ReplyData,
    },
    /// A process deleted one of its keys: drop it from the cache.
    Forget {
        /// Whose key.
        proc_: ProcId,
        /// Which key.
        key: Key,
    },
    /// The host retracted data of one node (`deregister_resources` narrowed by
    /// `PMIX_NODEID`/`PMIX_HOSTNAME`): drop these keys from that node's entry of the
    /// namespace's job data (`node.info` names them; empty means the whole entry).
    ForgetNode {
        /// Whose job data.
        nspace: Nspace,
        /// Which node, and the keys removed there (their values are ignored).
        node: NodeData,
    },
    /// An event for the client's handlers.
    Event {
        /// Event code.
        status: i32,
        /// Where it comes from.
        source: ProcId,
        /// Event infos.
        info: Vec<Info>,
    },
    /// Forwarded output for the client's registration `id` (see [`iof`]).
    ///
    /// [`iof`]: super::iof
    Iof {
        /// The client's id of the registration.
        id: u64,
        /// The chunk.
        chunk: Box<crate::iof::IofChunk>,
    },
}

impl Wire for ServerMsg {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            ServerMsg::Reply { tag, status, data } => {
                1u8.encode(out);
                tag.encode(out);
                status.encode(out);
                match data {
                    ReplyData::None => 0u8.encode(out),
                    ReplyData::Data(v) => {
                        1u8.encode(out);
                        v.encode(out);
                    }
                    ReplyData::Job(j) => {
                        2u8.encode(out);
                        j.encode(out);
                    }
                    ReplyData::Connected(c) => {
                        3u8.encode(out);
                        c.encode(out);
                    }
                    ReplyData::Pdata(v) => {
                        4u8.encode(out);
                        encode_seq(v, out);
                    }
                    ReplyData::Group(g) => {
                        5u8.encode(out);
                        g.encode(out);
                    }
                    ReplyData::Gathered(v) => {
                        REPLY_GATHERED.encode(out);
                        encode_seq(v, out);
                    }
                    ReplyData::Collected(v) => {
                        REPLY_COLLECTED.encode(out);
                        v.encode(out);
                    }
                }
            }
            ServerMsg::Forget { proc_, key } => {
                3u8.encode(out);
                proc_.encode(out);
                key.encode(out);
            }
            ServerMsg::ForgetNode { nspace, node } => {
                MSG_FORGET_NODE.encode(out);
                nspace.encode(out);
                node.encode(out);
            }
            ServerMsg::Event {
                status,
                source,
                info,
            } => {
                2u8.encode(out);
                status.encode(out);
                source.encode(out);
                info.encode(out);
            }
            ServerMsg::Iof { id, chunk } => {
                MSG_IOF.encode(out);
                id.encode(out);
                chunk.source.encode(out);
                chunk.channel.encode(out);
                chunk.info.encode(out);
                chunk.data.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            1 => ServerMsg::Reply {
                tag: u32::decode(d)?,
                status: i32::decode(d)?,
                data: match u8::decode(d)? {
                    0 => ReplyData::None,
                    1 => ReplyData::Data(Vec::decode(d)?),
                    2 => ReplyData::Job(Box::new(JobData::decode(d)?)),
                    3 => ReplyData::Connected(Box::new(ConnectData::decode(d)?)),
                    4 => ReplyData::Pdata(decode_seq(d)?),
                    5 => ReplyData::Group(Box::new(GroupReply::decode(d)?)),
                    REPLY_GATHERED => ReplyData::Gathered(decode_seq(d)?),
                    REPLY_COLLECTED => ReplyData::Collected(Vec::decode(d)?),
                    t => return Err(Error::unpack(format!("unknown reply data {}", t))),
                },
            },
            2 => ServerMsg::Event {
                status: i32::decode(d)?,
                source: ProcId::decode(d)?,
                info: Vec::decode(d)?,
            },
            3 => ServerMsg::Forget {
                proc_: ProcId::decode(d)?,
                key: Key::decode(d)?,
            },
            MSG_FORGET_NODE => ServerMsg::ForgetNode {
                nspace: Nspace::decode(d)?,
                node: NodeData::decode(d)?,
            },
            MSG_IOF => ServerMsg::Iof {
                id: u64::decode(d)?,
                chunk: Box::new(crate::iof::IofChunk {
                    source: ProcId::decode(d)?,
                    channel: u16::decode(d)?,
                    info: Vec::decode(d)?,
                    data: Vec::decode(d)?,
                }),
            },
            t => return Err(Error::unpack(format!("unknown server message {}", t))),
        })
    }
}
