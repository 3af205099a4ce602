//! Tool connections (processes that called `PMIx_tool_init`), server side.
//!
//! A tool is not a client the host registered: it says in its handshake
//! ([`protocol::PeerKind`]) whether it chose its own identity or wants one. The server
//! accepts tools only when its host enabled `PMIX_SERVER_TOOL_SUPPORT`, and only from a
//! peer whose `SO_PEERCRED` uid is the server's own. The host's `tool_connected` then
//! accepts the identity or assigns one. Once accepted, a tool's requests run like a
//! client's; its finalize goes to no host upcall, and its loss never counts as a lost
//! client of a job.

use super::{reply, Action, ConnState, ServerState};
use crate::error::{Error, Result};
use crate::protocol::{self, Hello, PeerKind, ReplyData};
use crate::reactor::ConnId;
use crate::value::ProcId;
use pmix_sys as sys;
use std::collections::BTreeSet;

/// What the server knows about tools.
#[derive(Debug, Default)]
pub struct ToolState {
    /// The host enabled tool support.
    pub(crate) enabled: bool,
    /// The uid a tool must run as (the server's effective uid).
    pub(crate) uid: u32,
    /// Connections that belong to tools.
    pub(crate) conns: BTreeSet<ConnId>,
}

/// A tool's handshake that passed the server's own checks; the host decides next.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolHello {
    /// The identity the tool chose (None: it asks for one).
    pub requested: Option<ProcId>,
    /// Its uid (from `SO_PEERCRED`).
    pub uid: u32,
    /// Its gid as it reported it.
    pub gid: u32,
    /// Its pid as it reported it.
    pub pid: i32,
}

impl ServerState {
    /// Accept tool connections from processes running as `uid` (`PMIX_SERVER_TOOL_SUPPORT`).
    pub fn enable_tools(&mut self, uid: u32) {
        self.tools.enabled = true;
        self.tools.uid = uid;
    }

    /// True if the host enabled tool support.
    pub fn tools_enabled(&self) -> bool {
        self.tools.enabled
    }

    /// Look at a first frame: `Ok(None)` for a client's handshake (check it with
    /// [`ServerState::check_hello`]), `Ok(Some(..))` for a tool's that passed the checks
    /// (the glue asks the host, then calls [`ServerState::accept_tool`]).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` without tool support or for another protocol version,
    /// `PMIX_ERR_INVALID_CRED` for a peer of another uid, `PMIX_ERR_EXISTS` for an
    /// identity already connected, or the decoding error of a malformed frame.
    pub fn check_tool_hello(&mut self, conn: ConnId, body: &[u8]) -> Result<Option<ToolHello>> {
        let Some(ConnState::New { uid }) = self.conns.get(&conn) else {
            return Err(Error::bad_param(
                "handshake on a connection that already had one",
            ));
        };
        let uid = *uid;
        let hello: Hello = protocol::decode(body)
            .map_err(|e| Error::unpack(format!("bad handshake: {}", e.context)))?;
        if hello.kind == PeerKind::Client {
            return Ok(None);
        }
        if hello.version != protocol::VERSION {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_SUPPORTED,
                format!(
                    "protocol version {} (we speak {})",
                    hello.version,
                    protocol::VERSION
                ),
            ));
        }
        if !self.tools.enabled {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_SUPPORTED,
                "this server does not accept tools (no PMIX_SERVER_TOOL_SUPPORT)",
            ));
        }
        if uid != self.tools.uid {
            return Err(Error::new(
                sys::PMIX_ERR_INVALID_CRED,
                format!(
                    "tool peer uid {} but this server runs as uid {}",
                    uid, self.tools.uid
                ),
            ));
        }
        let requested = match hello.kind {
            PeerKind::ToolNamed => {
                self.identity_free(&hello.proc_)?;
                Some(hello.proc_)
            }
            _ => None,
        };
        self.conns.insert(conn, ConnState::ToolWaiting);
        Ok(Some(ToolHello {
            requested,
            uid,
            gid: hello.gid,
            pid: hello.pid,
        }))
    }

    fn identity_free(&self, p: &ProcId) -> Result<()> {
        let registered = self
            .nspaces
            .get(&p.nspace)
            .is_some_and(|ns| ns.clients.contains_key(&p.rank));
        if registered || self.by_proc.contains_key(p) {
            return Err(Error::new(
                sys::PMIX_ERR_EXISTS,
                format!("{} is a registered client or already connected", p),
            ));
        }
        if p.rank >= sys::PMIX_RANK_VALID {
            return Err(Error::bad_param(format!("{} has no valid rank", p)));
        }
        Ok(())
    }

    /// The host's verdict on a tool (from `tool_connected`): welcome it under `id`, or
    /// refuse it. Nothing happens if the tool went away meanwhile.
    pub fn accept_tool(&mut self, conn: ConnId, id: Result<ProcId>, out: &mut Vec<Action>) {
        if !matches!(self.conns.get(&conn), Some(ConnState::ToolWaiting)) {
            return;
        }
        match id.and_then(|p| self.identity_free(&p).map(|_| p)) {
            Ok(p) => {
                log::debug!("server: tool {} connected on {}", p, conn);
                self.tools.conns.insert(conn);
                self.accept(conn, p, out);
            }
            Err(e) => self.refuse(conn, &e, out),
        }
    }

    /// True if `conn` is an accepted tool.
    pub fn is_tool(&self, conn: ConnId) -> bool {
        self.tools.conns.contains(&conn)
    }

    /// A tool's connection closed: drop what it was waiting for. No host upcall and no
    /// event: a tool leaving does not affect any job.
    pub(super) fn tool_closed(
        &mut self,
        conn: ConnId,
        proc_: &ProcId,
        finalized: bool,
        out: &mut Vec<Action>,
    ) {
        self.getters.retain(|g| g.conn != conn);
        self.ns_waiters.retain(|g| g.conn != conn);
        self.iof_conn_gone(conn);
        if self.by_proc.get(proc_) == Some(&conn) {
            self.by_proc.remove(proc_);
        }
        self.dyn_gone(proc_, true, out);
        if finalized {
            log::debug!("server: tool {} finalized and left", proc_);
        } else {
            log::info!("server: tool {} disconnected without finalizing", proc_);
        }
    }

    /// A tool's finalize: acknowledged at once (no host upcall; master's hosts learn
    /// about tools through `tool_connected` only).
    pub(super) fn tool_finalize(&mut self, conn: ConnId, tag: u32, out: &mut Vec<Action>) {
        self.iof_conn_gone(conn);
        out.push(reply(conn, tag, sys::PMIX_SUCCESS, ReplyData::None));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Req, Request, ServerMsg, Welcome};
    use crate::server::state::Upcall;
    use crate::value::Nspace;

    const UID: u32 = 1000;

    fn pid(ns: &str, r: u32) -> ProcId {
        ProcId::new(Nspace::new(ns).unwrap(), r)
    }

    fn hello(kind: PeerKind, p: ProcId) -> Vec<u8> {
        protocol::encode(&Hello {
            version: protocol::VERSION,
            proc_: p,
            pid: 9,
            uid: UID,
            gid: 0,
            kind,
        })
    }

    fn server() -> ServerState {
        let mut s = ServerState::new(pid("srv", 0), "h".into());
        s.register_nspace(&Nspace::new("job").unwrap(), 1, vec![]);
        super::super::connect_test_client(&mut s, &pid("job", 0), 1, UID);
        s
    }

    fn welcomed(out: &[Action]) -> Option<ProcId> {
        out.iter().find_map(|a| match a {
            Action::Send(_, b) => match protocol::decode::<Welcome>(b) {
                Ok(Welcome::Accepted { you, .. }) => Some(you),
                _ => None,
            },
            _ => None,
        })
    }

    #[test]
    fn tools_need_support_and_our_uid() {
        let mut s = server();
        s.connected(5, UID);
        let e = s
            .check_tool_hello(5, &hello(PeerKind::ToolAssign, pid("x", 0)))
            .unwrap_err();
        assert_eq!(e.status, sys::PMIX_ERR_NOT_SUPPORTED);
        s.enable_tools(UID + 1);
        s.connected(6, UID);
        let e = s
            .check_tool_hello(6, &hello(PeerKind::ToolAssign, pid("x", 0)))
            .unwrap_err();
        assert_eq!(e.status, sys::PMIX_ERR_INVALID_CRED);
        // A client's handshake is left to check_hello.
        let mut s = server();
        s.enable_tools(UID);
        s.connected(7, UID);
        assert_eq!(
            s.check_tool_hello(7, &hello(PeerKind::Client, pid("job", 0)))
                .unwrap(),
            None
        );
        // A tool may not take a registered client's name.
        s.connected(8, UID);
        let e = s
            .check_tool_hello(8, &hello(PeerKind::ToolNamed, pid("job", 0)))
            .unwrap_err();
        assert_eq!(e.status, sys::PMIX_ERR_EXISTS);
    }

    #[test]
    fn accepted_tool_finalizes_and_leaves_without_host_upcalls() {
        let mut s = server();
        s.enable_tools(UID);
        s.connected(5, UID);
        let t = s
            .check_tool_hello(5, &hello(PeerKind::ToolAssign, pid("x", 0)))
            .unwrap()
            .unwrap();
        assert_eq!(t.requested, None);
        let mut out = Vec::new();
        s.accept_tool(5, Ok(pid("tool", 0)), &mut out);
        assert_eq!(welcomed(&out), Some(pid("tool", 0)));
        assert!(s.is_tool(5) && s.is_client(5));
        // Finalize is answered at once, with no host upcall.
        let mut out = Vec::new();
        s.request(
            5,
            &protocol::encode(&Request {
                tag: 4,
                req: Req::Finalize,
            }),
            &mut out,
        )
        .unwrap();
        assert!(matches!(
            out.first().map(|a| match a {
                Action::Send(_, b) => protocol::decode::<ServerMsg>(b).ok(),
                _ => None,
            }),
            Some(Some(ServerMsg::Reply {
                tag: 4,
                status: 0,
                ..
            }))
        ));
        assert!(!out
            .iter()
            .any(|a| matches!(a, Action::Host(Upcall::Finalized { .. }))));
        // A second tool connects and vanishes: no HostLost, no event to the job's client.
        s.connected(6, UID);
        s.check_tool_hello(6, &hello(PeerKind::ToolNamed, pid("t2", 1)))
            .unwrap();
        let mut out = Vec::new();
        s.accept_tool(6, Ok(pid("t2", 1)), &mut out);
        let mut out = Vec::new();
        s.closed(6, &mut out);
        assert!(
            out.is_empty(),
            "a lost tool has no effects: {:?}",
            out.len()
        );
        assert!(!s.is_tool(6));
    }

    #[test]
    fn host_refusal_and_gone_tools() {
        let mut s = server();
        s.enable_tools(UID);
        s.connected(5, UID);
        s.check_tool_hello(5, &hello(PeerKind::ToolAssign, pid("x", 0)))
            .unwrap();
        let mut out = Vec::new();
        s.accept_tool(5, Err(Error::not_supported("no")), &mut out);
        assert!(out.iter().any(|a| matches!(a, Action::Close(5))));
        assert!(!s.is_client(5));
        // The tool went away before the host answered: nothing happens.
        s.connected(6, UID);
        s.check_tool_hello(6, &hello(PeerKind::ToolAssign, pid("x", 0)))
            .unwrap();
        let mut out = Vec::new();
        s.closed(6, &mut out);
        s.accept_tool(6, Ok(pid("late", 0)), &mut out);
        assert!(out.is_empty());
        // A second handshake on a waiting connection is refused.
        s.connected(7, UID);
        s.check_tool_hello(7, &hello(PeerKind::ToolAssign, pid("x", 0)))
            .unwrap();
        assert!(s
            .check_tool_hello(7, &hello(PeerKind::ToolAssign, pid("x", 0)))
            .is_err());
    }
}
