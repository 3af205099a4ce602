//! I/O forwarding in the server state machine: the registrations of `PMIx_IOF_pull`
//! (from clients, and from the server process itself), the delivery of what the host
//! hands over (`PMIx_server_IOF_deliver`), the cache of output nobody asked for yet, and
//! the requests that go to the host (`iof_pull`, `push_stdin`).
//!
//! A client's registration is recorded before the host is told, so output delivered
//! while the host is deciding already reaches it (OpenPMIx does the same); a host that
//! refuses takes it back out. Cached output matching a new registration is sent right
//! after the reply to the pull, so a client never sees a chunk for an id it has not been
//! given, and is then dropped from the cache.

use super::{reply, Action, ConnState, ServerState};
use crate::error::{Error, Result};
use crate::iof::{self, Channels, IofChunk, IofHandler};
use crate::protocol::{self, IofReq, ReplyData, ServerMsg};
use crate::reactor::ConnId;
use crate::server::state::Upcall;
use crate::value::{Info, ProcId, Value};
use pmix_sys as sys;
use std::collections::VecDeque;

/// Messages the cache holds by default (OpenPMIx's `pmix_max_iof_cache`).
const DEFAULT_CACHE_MSGS: usize = 1024 * 1024;
/// Bytes the cache holds at most (ours: OpenPMIx bounds only the message count).
const CACHE_BYTES: usize = 16 << 20;

/// Who registered.
#[derive(Clone)]
enum Owner {
    /// A client, on this connection, under its own id.
    Client { conn: ConnId, id: u64 },
    /// The server process itself (`PMIx_IOF_pull` without `PMIx_Init`).
    Local { id: u64, handler: IofHandler },
}

struct Reg {
    owner: Owner,
    /// Who asked (never sent its own output).
    requester: ProcId,
    procs: Vec<ProcId>,
    channels: Channels,
}

/// Everything I/O forwarding keeps between requests.
pub(super) struct IofState {
    regs: Vec<Reg>,
    cache: VecDeque<IofChunk>,
    cache_bytes: usize,
    cache_msgs: usize,
    next_local: u64,
}

impl Default for IofState {
    fn default() -> Self {
        // The variable that sets the cache's message count, as in OpenPMIx.
        let cache_msgs = crate::params::get(crate::params::MAX_IOF_CACHE)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(DEFAULT_CACHE_MSGS);
        IofState {
            regs: Vec::new(),
            cache: VecDeque::new(),
            cache_bytes: 0,
            cache_msgs,
            next_local: 0,
        }
    }
}

fn chunk_size(c: &IofChunk) -> usize {
    c.data.len() + 64
}

impl IofState {
    fn cache_push(&mut self, c: IofChunk) {
        if self.cache_msgs == 0 {
            return;
        }
        self.cache_bytes += chunk_size(&c);
        self.cache.push_back(c);
        while self.cache.len() > self.cache_msgs || self.cache_bytes > CACHE_BYTES {
            match self.cache.pop_front() {
                Some(old) => self.cache_bytes -= chunk_size(&old),
                None => break,
            }
        }
    }
}

impl ServerState {
    /// Set how many messages the output cache keeps (0: none).
    pub fn set_iof_cache_limit(&mut self, msgs: usize) {
        self.iof.cache_msgs = msgs;
        while self.iof.cache.len() > msgs {
            if let Some(old) = self.iof.cache.pop_front() {
                self.iof.cache_bytes -= chunk_size(&old);
            }
        }
    }

    /// Number of chunks in the output cache (tests, diagnostics).
    pub fn iof_cached(&self) -> usize {
        self.iof.cache.len()
    }

    /// An I/O-forwarding request from an accepted client.
    pub(super) fn iof_request(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        r: IofReq,
        out: &mut Vec<Action>,
    ) {
        let refuse = |st: i32, why: &str, out: &mut Vec<Action>| {
            log::warn!("server: IOF request from {}: {}", me, why);
            out.push(reply(conn, tag, st, ReplyData::None));
        };
        match r {
            IofReq::Pull {
                id,
                procs,
                channels,
                directives,
            } => {
                if channels & sys::PMIX_FWD_STDIN_CHANNEL != 0 {
                    return refuse(sys::PMIX_ERR_NOT_SUPPORTED, "stdin cannot be pulled", out);
                }
                if procs.is_empty() {
                    return refuse(sys::PMIX_ERR_BAD_PARAM, "a pull names no process", out);
                }
                let dup = self.iof.regs.iter().any(
                    |r| matches!(r.owner, Owner::Client { conn: c, id: i } if c == conn && i == id),
                );
                if dup {
                    return refuse(sys::PMIX_ERR_BAD_PARAM, "registration id in use", out);
                }
                self.iof.regs.push(Reg {
                    owner: Owner::Client { conn, id },
                    requester: me.clone(),
                    procs: procs.clone(),
                    channels,
                });
                out.push(Action::Host(Upcall::IofPull {
                    conn,
                    tag,
                    id,
                    procs,
                    channels,
                    directives,
                }));
            }
            IofReq::Deregister { id, mut directives } => {
                let pos = self.iof.regs.iter().position(
                    |r| matches!(r.owner, Owner::Client { conn: c, id: i } if c == conn && i == id),
                );
                let Some(pos) = pos else {
                    return refuse(sys::PMIX_ERR_NOT_FOUND, "no such registration", out);
                };
                let reg = self.iof.regs.remove(pos);
                #[allow(deprecated)]
                let stop = sys::attrs::keys::PMIX_IOF_STOP;
                if let Ok(i) = Info::new(stop, Value::Bool(true)) {
                    directives.push(i);
                }
                out.push(Action::Host(Upcall::IofStop {
                    conn,
                    tag,
                    procs: reg.procs,
                    channels: reg.channels,
                    directives,
                }));
            }
            IofReq::Push {
                targets,
                directives,
                data,
            } => out.push(Action::Host(Upcall::PushStdin {
                conn,
                tag,
                source: me.clone(),
                targets,
                directives,
                data,
            })),
        }
    }

    /// The host answered the `iof_pull` upcall of a client's registration: confirm it
    /// and send what the cache holds for it, or take it back out.
    pub fn iof_pull_done(
        &mut self,
        conn: ConnId,
        tag: u32,
        id: u64,
        r: Result<()>,
        out: &mut Vec<Action>,
    ) {
        let pos = self.iof.regs.iter().position(
            |r| matches!(r.owner, Owner::Client { conn: c, id: i } if c == conn && i == id),
        );
        match r {
            Err(e) => {
                log::debug!("server: the host refused an IOF pull: {}", e);
                if let Some(p) = pos {
                    self.iof.regs.remove(p);
                }
                out.push(reply(conn, tag, protocol::status_of(&e), ReplyData::None));
            }
            Ok(()) => {
                let Some(p) = pos else {
                    // The client went away (or deregistered) meanwhile.
                    return;
                };
                out.push(reply(conn, tag, sys::PMIX_SUCCESS, ReplyData::None));
                self.iof_replay(p, out);
            }
        }
    }

    /// Send the cached chunks registration `pos` wants, and drop them from the cache.
    fn iof_replay(&mut self, pos: usize, out: &mut Vec<Action>) {
        let Some(reg) = self.iof.regs.get(pos) else {
            return;
        };
        let cache = std::mem::take(&mut self.iof.cache);
        let mut keep = VecDeque::with_capacity(cache.len());
        let mut bytes = 0;
        for c in cache {
            if self.iof_send(reg, &c, out) {
                continue;
            }
            bytes += chunk_size(&c);
            keep.push_back(c);
        }
        self.iof.cache = keep;
        self.iof.cache_bytes = bytes;
    }

    /// Hand `c` to `reg` if it wants it and may have it; true if it was handed over.
    fn iof_send(&self, reg: &Reg, c: &IofChunk, out: &mut Vec<Action>) -> bool {
        if !iof::wants(&reg.procs, reg.channels, c) || reg.requester == c.source {
            return false;
        }
        match &reg.owner {
            Owner::Client { conn, id } => {
                let live = matches!(
                    self.conns.get(conn),
                    Some(ConnState::Client {
                        finalized: false,
                        ..
                    })
                );
                if !live {
                    return false;
                }
                let msg = ServerMsg::Iof {
                    id: *id,
                    chunk: Box::new(c.clone()),
                };
                out.push(Action::Send(*conn, protocol::encode(&msg)));
            }
            Owner::Local { id, handler } => {
                out.push(Action::IofLocal(handler.clone(), *id, c.clone()));
            }
        }
        true
    }

    /// Output from the host (`PMIx_server_IOF_deliver`): to every registration that wants
    /// it, or into the cache if none does.
    pub fn iof_deliver(&mut self, c: IofChunk, out: &mut Vec<Action>) {
        let mut taken = false;
        for reg in &self.iof.regs {
            taken |= self.iof_send(reg, &c, out);
        }
        if !taken {
            self.iof.cache_push(c);
        }
    }

    /// `PMIx_IOF_pull` in the server process: register `handler` and hand it what the
    /// cache holds for it. Returns the registration's id.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` for the stdin channel, `PMIX_ERR_BAD_PARAM` for no procs.
    pub fn iof_pull_local(
        &mut self,
        procs: Vec<ProcId>,
        channels: Channels,
        handler: IofHandler,
        out: &mut Vec<Action>,
    ) -> Result<u64> {
        if channels & sys::PMIX_FWD_STDIN_CHANNEL != 0 {
            return Err(Error::not_supported("stdin cannot be pulled"));
        }
        if procs.is_empty() {
            return Err(Error::bad_param("a pull names no process"));
        }
        let id = self.iof.next_local;
        self.iof.next_local += 1;
        self.iof.regs.push(Reg {
            owner: Owner::Local { id, handler },
            requester: self.id.clone(),
            procs,
            channels,
        });
        self.iof_replay(self.iof.regs.len() - 1, out);
        Ok(id)
    }

    /// `PMIx_IOF_deregister` in the server process.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an id that is not registered.
    pub fn iof_deregister_local(&mut self, id: u64) -> Result<()> {
        let before = self.iof.regs.len();
        self.iof
            .regs
            .retain(|r| !matches!(r.owner, Owner::Local { id: i, .. } if i == id));
        if self.iof.regs.len() == before {
            return Err(Error::bad_param(format!("no IOF registration {}", id)));
        }
        Ok(())
    }

    /// A client finalized or its connection closed: its registrations end.
    pub(super) fn iof_conn_gone(&mut self, conn: ConnId) {
        self.iof
            .regs
            .retain(|r| !matches!(r.owner, Owner::Client { conn: c, .. } if c == conn));
    }
}

#[cfg(test)]
mod tests {
    //! The I/O-forwarding part of the state machine, driven in memory.
    use super::*;
    use crate::protocol::{Req, Request};
    use crate::value::Nspace;
    use std::sync::{Arc, Mutex};

    const UID: u32 = 1000;
    const OUT: Channels = sys::PMIX_FWD_STDOUT_CHANNEL;
    const ERR: Channels = sys::PMIX_FWD_STDERR_CHANNEL;

    fn p(r: u32) -> ProcId {
        ProcId::new(Nspace::new("job").unwrap(), r)
    }
    fn wild() -> ProcId {
        p(sys::PMIX_RANK_WILDCARD)
    }

    /// Ranks 0..n connected as connections 1..=n.
    fn setup(n: u32) -> ServerState {
        let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
        s.register_nspace(&p(0).nspace, n, vec![]);
        for r in 0..n {
            crate::server::state::connect_test_client(&mut s, &p(r), r as ConnId + 1, UID);
        }
        s
    }

    fn req(s: &mut ServerState, conn: ConnId, tag: u32, r: IofReq) -> Vec<Action> {
        let mut out = Vec::new();
        let body = protocol::encode(&Request {
            tag,
            req: Req::Iof(r),
        });
        s.request(conn, &body, &mut out).unwrap();
        out
    }

    fn pull(id: u64, procs: Vec<ProcId>, channels: Channels) -> IofReq {
        IofReq::Pull {
            id,
            procs,
            channels,
            directives: vec![],
        }
    }

    fn chunk(r: u32, channel: Channels, data: &str) -> IofChunk {
        IofChunk {
            source: p(r),
            channel,
            info: vec![],
            data: data.as_bytes().to_vec(),
        }
    }

    fn deliver(s: &mut ServerState, c: IofChunk) -> Vec<Action> {
        let mut out = Vec::new();
        s.iof_deliver(c, &mut out);
        out
    }

    /// What the actions send, in order: ("reply", conn, tag/id, status) or
    /// ("iof", conn, id, data as text).
    fn sent(out: &[Action]) -> Vec<String> {
        out.iter()
            .filter_map(|a| match a {
                Action::Send(c, b) => match protocol::decode::<ServerMsg>(b) {
                    Ok(ServerMsg::Reply { tag, status, .. }) => {
                        Some(format!("reply {} {} {}", c, tag, status))
                    }
                    Ok(ServerMsg::Iof { id, chunk }) => Some(format!(
                        "iof {} {} {} {}",
                        c,
                        id,
                        chunk.source.rank,
                        String::from_utf8_lossy(&chunk.data)
                    )),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    fn host_pull(out: &[Action]) -> Option<(Vec<ProcId>, Channels, Vec<Info>)> {
        out.iter().find_map(|a| match a {
            Action::Host(Upcall::IofPull {
                procs,
                channels,
                directives,
                ..
            })
            | Action::Host(Upcall::IofStop {
                procs,
                channels,
                directives,
                ..
            }) => Some((procs.clone(), *channels, directives.clone())),
            _ => None,
        })
    }

    #[test]
    fn cached_output_is_replayed_after_the_pull_reply_and_live_output_follows() {
        let mut s = setup(3);
        assert!(sent(&deliver(&mut s, chunk(1, OUT, "early\n"))).is_empty());
        assert!(sent(&deliver(&mut s, chunk(2, ERR, "err\n"))).is_empty());
        assert_eq!(s.iof_cached(), 2);
        let out = req(&mut s, 1, 5, pull(0, vec![wild()], OUT));
        assert_eq!(host_pull(&out).unwrap(), (vec![wild()], OUT, vec![]));
        assert!(sent(&out).is_empty(), "nothing before the host answered");
        // Recorded already: live output reaches it while the host decides.
        assert_eq!(
            sent(&deliver(&mut s, chunk(2, OUT, "live\n"))),
            vec!["iof 1 0 2 live\n"]
        );
        let mut out = Vec::new();
        s.iof_pull_done(1, 5, 0, Ok(()), &mut out);
        assert_eq!(sent(&out), vec!["reply 1 5 0", "iof 1 0 1 early\n"]);
        // The stderr chunk is not wanted and stays cached.
        assert_eq!(s.iof_cached(), 1);
    }

    #[test]
    fn output_never_returns_to_its_source_and_channels_must_match() {
        let mut s = setup(3);
        let out = req(&mut s, 1, 1, pull(4, vec![wild()], OUT | ERR));
        assert!(host_pull(&out).is_some());
        s.iof_pull_done(1, 1, 4, Ok(()), &mut Vec::new());
        assert!(sent(&deliver(&mut s, chunk(0, OUT, "mine\n"))).is_empty());
        assert!(sent(&deliver(
            &mut s,
            chunk(1, sys::PMIX_FWD_STDDIAG_CHANNEL, "d")
        ))
        .is_empty());
        assert_eq!(s.iof_cached(), 2);
        // Rank 1 asks for rank 2 only.
        req(&mut s, 2, 1, pull(0, vec![p(2)], ERR));
        s.iof_pull_done(2, 1, 0, Ok(()), &mut Vec::new());
        assert_eq!(
            sent(&deliver(&mut s, chunk(2, ERR, "e"))),
            vec!["iof 1 4 2 e", "iof 2 0 2 e"]
        );
        assert_eq!(
            sent(&deliver(&mut s, chunk(1, ERR, "x"))),
            vec!["iof 1 4 1 x"]
        );
    }

    #[test]
    fn refused_pulls_and_deregistrations_end_delivery() {
        let mut s = setup(2);
        req(&mut s, 1, 1, pull(0, vec![wild()], OUT));
        let mut out = Vec::new();
        s.iof_pull_done(1, 1, 0, Err(Error::not_supported("no")), &mut out);
        assert_eq!(
            sent(&out),
            vec![format!("reply 1 1 {}", sys::PMIX_ERR_NOT_SUPPORTED)]
        );
        assert!(sent(&deliver(&mut s, chunk(1, OUT, "a"))).is_empty());

        req(&mut s, 1, 2, pull(0, vec![p(1)], OUT));
        s.iof_pull_done(1, 2, 0, Ok(()), &mut Vec::new());
        let out = req(
            &mut s,
            1,
            3,
            IofReq::Deregister {
                id: 0,
                directives: vec![],
            },
        );
        let (procs, ch, dirs) = host_pull(&out).unwrap();
        assert_eq!((procs, ch), (vec![p(1)], OUT));
        #[allow(deprecated)]
        let stop = sys::attrs::keys::PMIX_IOF_STOP;
        assert!(dirs.iter().any(|i| i.key.as_str() == stop));
        assert!(sent(&deliver(&mut s, chunk(1, OUT, "b"))).is_empty());
        let out = req(
            &mut s,
            1,
            4,
            IofReq::Deregister {
                id: 0,
                directives: vec![],
            },
        );
        assert_eq!(
            sent(&out),
            vec![format!("reply 1 4 {}", sys::PMIX_ERR_NOT_FOUND)]
        );
    }

    #[test]
    fn bad_pulls_are_refused_and_departed_clients_receive_nothing() {
        let mut s = setup(3);
        let out = req(
            &mut s,
            1,
            1,
            pull(0, vec![wild()], OUT | sys::PMIX_FWD_STDIN_CHANNEL),
        );
        assert_eq!(
            sent(&out),
            vec![format!("reply 1 1 {}", sys::PMIX_ERR_NOT_SUPPORTED)]
        );
        let out = req(&mut s, 1, 2, pull(0, vec![], OUT));
        assert_eq!(
            sent(&out),
            vec![format!("reply 1 2 {}", sys::PMIX_ERR_BAD_PARAM)]
        );
        req(&mut s, 1, 3, pull(0, vec![wild()], OUT));
        let out = req(&mut s, 1, 4, pull(0, vec![wild()], OUT));
        assert_eq!(
            sent(&out),
            vec![format!("reply 1 4 {}", sys::PMIX_ERR_BAD_PARAM)]
        );
        req(&mut s, 2, 1, pull(0, vec![wild()], OUT));
        s.closed(1, &mut Vec::new());
        let mut out = Vec::new();
        s.request(
            3,
            &protocol::encode(&Request {
                tag: 9,
                req: Req::Finalize,
            }),
            &mut out,
        )
        .unwrap();
        // Rank 0 is gone, rank 2 finalized: only rank 1 hears rank 2's output.
        assert_eq!(
            sent(&deliver(&mut s, chunk(2, OUT, "z"))),
            vec!["iof 2 0 2 z"]
        );
    }

    #[test]
    fn the_cache_drops_the_oldest() {
        let mut s = setup(2);
        s.set_iof_cache_limit(2);
        for t in ["1", "2", "3"] {
            deliver(&mut s, chunk(1, OUT, t));
        }
        assert_eq!(s.iof_cached(), 2);
        req(&mut s, 1, 1, pull(0, vec![wild()], OUT));
        let mut out = Vec::new();
        s.iof_pull_done(1, 1, 0, Ok(()), &mut out);
        assert_eq!(
            sent(&out),
            vec!["reply 1 1 0", "iof 1 0 1 2", "iof 1 0 1 3"]
        );
        assert_eq!(s.iof_cached(), 0);
        s.set_iof_cache_limit(0);
        deliver(&mut s, chunk(0, ERR, "x"));
        assert_eq!(s.iof_cached(), 0);
    }

    #[test]
    fn the_server_process_pulls_through_a_handler() {
        let mut s = setup(2);
        deliver(&mut s, chunk(1, OUT, "early"));
        let got = Arc::new(Mutex::new(Vec::new()));
        let g2 = got.clone();
        let h: IofHandler = Arc::new(move |id, c| {
            g2.lock().unwrap().push(format!(
                "{} {} {}",
                id,
                c.source.rank,
                String::from_utf8_lossy(&c.data)
            ));
        });
        let mut out = Vec::new();
        let id = s
            .iof_pull_local(vec![wild()], OUT, h.clone(), &mut out)
            .unwrap();
        out.extend(deliver(&mut s, chunk(0, OUT, "live")));
        for a in out {
            if let Action::IofLocal(h, id, c) = a {
                h(id, &c);
            }
        }
        assert_eq!(*got.lock().unwrap(), vec!["0 1 early", "0 0 live"]);
        s.iof_deregister_local(id).unwrap();
        assert_eq!(
            s.iof_deregister_local(id).unwrap_err().status,
            sys::PMIX_ERR_BAD_PARAM
        );
        assert!(s
            .iof_pull_local(
                vec![wild()],
                sys::PMIX_FWD_STDIN_CHANNEL,
                h,
                &mut Vec::new()
            )
            .is_err());
    }
}
