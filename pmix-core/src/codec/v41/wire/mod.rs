//! OpenPMIx's client/server protocol (4.2.x, bfrops v41), sans-I/O: the second dialect
//! beside the engine's own, written against the engine's typed messages
//! ([`crate::protocol`]) so a connection can pick it per peer.
//!
//! * [`frame`]: the 16-byte message header, a frame decoder with our size limit.
//! * [`handshake`]: the rendezvous URI, the connect message and the server's answer,
//!   both roles, with the refusal of versions, bfrops, gds and security modes we do
//!   not implement.
//! * [`cmds`]: client requests to and from [`crate::protocol::Req`].
//! * [`replies`]: replies, event deliveries and the hash-gds job info to and from
//!   [`crate::protocol::ReplyData`], [`crate::protocol::ServerMsg`] and
//!   [`crate::store::JobData`].
//! * [`body`]: the pack-call level shared by both.
//!
//! Byte layouts are OpenPMIx's (facts from its source and from captures of Debian's
//! 4.2.2); the code is ours.

pub mod body;
pub mod cmds;
pub mod frame;
pub mod handshake;
pub mod replies;

#[cfg(test)]
mod tests;
