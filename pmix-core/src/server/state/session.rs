//! Connections: handshakes, their acceptance or refusal, closes, and the dispatch of
//! each client request to the concept that serves it.

use super::*;

impl ServerState {
    /// A peer connected; `uid` is what `SO_PEERCRED` reported.
    pub fn connected(&mut self, conn: ConnId, uid: u32) {
        self.conns.insert(conn, ConnState::New { uid });
    }

    /// Connection `conn` reads nothing of a fence reply but its status (an OpenPMIx
    /// client over the v41 listener): fences whose waiters are all such build no
    /// collected data for them.
    pub fn status_only_fence(&mut self, conn: ConnId) {
        self.status_only_fence.insert(conn);
    }

    /// Check a handshake. `Ok(proc)` means the glue should ask the host
    /// (`client_connected`) and then call [`ServerState::accept`] or
    /// [`ServerState::refuse`].
    pub fn check_hello(&mut self, conn: ConnId, body: &[u8]) -> Result<ProcId> {
        let Some(ConnState::New { uid }) = self.conns.get(&conn) else {
            return Err(Error::bad_param(
                "handshake on a connection that already had one",
            ));
        };
        let uid = *uid;
        let hello: Hello = protocol::decode(body)
            .map_err(|e| Error::unpack(format!("bad handshake: {}", e.context)))?;
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
        if hello.kind != protocol::PeerKind::Client {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_SUPPORTED,
                "a tool handshake on the client path",
            ));
        }
        let p = hello.proc_;
        let reg = self
            .nspaces
            .get(&p.nspace)
            .and_then(|ns| ns.clients.get(&p.rank))
            .copied()
            .ok_or_else(|| {
                Error::new(
                    sys::PMIX_ERR_NOT_FOUND,
                    format!("{} is not a registered client", p),
                )
            })?;
        if reg.uid != uid {
            return Err(Error::new(
                sys::PMIX_ERR_INVALID_CRED,
                format!(
                    "{}: peer uid {} but the client was registered for uid {}",
                    p, uid, reg.uid
                ),
            ));
        }
        // A client that finalized and reconnects (repeated PMIx_Init) may race its own
        // old connection's close: a finalized connection does not block a new one.
        let old_live = self.by_proc.get(&p).is_some_and(|c| {
            !matches!(
                self.conns.get(c),
                Some(ConnState::Client {
                    finalized: true,
                    ..
                })
            )
        });
        if old_live {
            return Err(Error::new(
                sys::PMIX_ERR_EXISTS,
                format!("{} is already connected", p),
            ));
        }
        Ok(p)
    }

    /// Accept a checked client: send the welcome with its namespace's job data.
    pub fn accept(&mut self, conn: ConnId, proc_: ProcId, out: &mut Vec<Action>) {
        let area = self.shm_area_fd(&proc_.nspace);
        let jobs: Vec<&JobData> = self
            .nspaces
            .get(&proc_.nspace)
            .map(|ns| &ns.job)
            .into_iter()
            .collect();
        let mut fds = Vec::new();
        let mut body = protocol::encode_welcome_accepted(&self.id, &proc_, &jobs, &mut fds);
        if let Some(fd) = area {
            fds.push(fd);
            protocol::append_fence_area(&mut body, (fds.len() - 1) as u32);
        }
        out.push(if fds.is_empty() {
            Action::Send(conn, body)
        } else {
            Action::SendFds(conn, body, fds)
        });
        if let Some(ns) = self.nspaces.get_mut(&proc_.nspace) {
            // A process that finalized and called PMIx_Init again is back.
            ns.gone.remove(&proc_.rank);
        }
        self.by_proc.insert(proc_.clone(), conn);
        self.conns.insert(
            conn,
            ConnState::Client {
                proc_: proc_.clone(),
                finalized: false,
            },
        );
        self.psets_to_new_client(conn, out);
        if !self.tools.conns.contains(&conn) {
            self.cached_events_to_new_client(conn, &proc_, out);
        }
    }

    /// Refuse a handshake: send the reason and close.
    pub fn refuse(&mut self, conn: ConnId, e: &Error, out: &mut Vec<Action>) {
        log::warn!("server: refusing connection {}: {}", conn, e);
        let w = Welcome::Refused {
            status: protocol::status_of(e),
            reason: e.context.clone(),
        };
        out.push(Action::Send(conn, protocol::encode(&w)));
        out.push(Action::Close(conn));
        self.conns.remove(&conn);
    }

    /// True if the connection has passed the handshake.
    pub fn is_client(&self, conn: ConnId) -> bool {
        matches!(self.conns.get(&conn), Some(ConnState::Client { .. }))
    }

    /// True while a connection has not sent its handshake yet (a tool whose handshake
    /// waits for the host's verdict has sent it).
    pub fn awaiting_hello(&self, conn: ConnId) -> bool {
        matches!(self.conns.get(&conn), Some(ConnState::New { .. }))
    }

    /// A connection closed (peer went away, or we closed it on a malformed frame).
    pub fn closed(&mut self, conn: ConnId, out: &mut Vec<Action>) {
        self.hostops_conn_gone(conn);
        self.budget.closed(conn);
        self.status_only_fence.remove(&conn);
        let Some(st) = self.conns.remove(&conn) else {
            return;
        };
        let ConnState::Client { proc_, finalized } = st else {
            return;
        };
        if self.tools.conns.remove(&conn) {
            self.tool_closed(conn, &proc_, finalized, out);
            return;
        }
        self.getters.retain(|g| g.conn != conn);
        self.ns_waiters.retain(|g| g.conn != conn);
        self.iof_conn_gone(conn);
        if self.by_proc.get(&proc_).is_some_and(|&c| c != conn) {
            // The process already reconnected (finalize, then Init again): this was its
            // old, finalized connection, and the process is not gone.
            return;
        }
        self.by_proc.remove(&proc_);
        self.cached_events_client_gone(&proc_);
        for t in self.fences.values_mut() {
            t.arrived.retain(|a| a.conn != conn);
        }
        let mut deregistered = false;
        if let Some(ns) = self.nspaces.get_mut(&proc_.nspace) {
            ns.gone.insert(proc_.rank);
            if !finalized {
                ns.lost.insert(proc_.rank);
            }
            deregistered = ns.dereg.contains(&proc_.rank);
        }
        self.dyn_gone(&proc_, finalized, out);
        if finalized {
            // Still expected in fences unless it can never come back (see `ended`).
            if deregistered {
                self.participant_ended(&proc_, out);
            }
            self.target_gone(&proc_, sys::PMIX_ERR_NOT_FOUND, out);
            return;
        }
        log::warn!("server: client {} disconnected without finalizing", proc_);
        out.push(Action::Host(Upcall::Lost(proc_.clone())));
        // Every fence it takes part in can never complete now.
        self.participant_ended(&proc_, out);
        self.tell_peers_lost(&proc_, out);
        // As in OpenPMIx, whoever waits for a vanished process's data is told that the
        // connection dropped (a finalized process's missing data is just not found).
        self.target_gone(&proc_, sys::PMIX_ERR_LOST_CONNECTION, out);
    }

    /// Pending Gets and direct-modex requests for a process that is gone end now, with
    /// `status`.
    pub(super) fn target_gone(&mut self, proc_: &ProcId, status: i32, out: &mut Vec<Action>) {
        let (done, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.getters)
            .into_iter()
            .partition(|g| &g.target == proc_);
        self.getters = keep;
        for g in done {
            out.push(reply(g.conn, g.tag, status, ReplyData::None));
        }
        let (done, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.dmodex_in)
            .into_iter()
            .partition(|(p, _, _)| p == proc_);
        self.dmodex_in = keep;
        for (_, _, d) in done {
            out.push(Action::AnswerDmodex(
                d,
                Err(Error::new(
                    status,
                    format!("{} ended without committing", proc_),
                )),
            ));
        }
    }

    /// A frame from an accepted client.
    pub fn request(&mut self, conn: ConnId, body: &[u8], out: &mut Vec<Action>) -> Result<()> {
        if !matches!(self.conns.get(&conn), Some(ConnState::Client { .. })) {
            return Err(Error::bad_param("request before handshake"));
        }
        let r: Request = protocol::decode(body)?;
        self.request_decoded(conn, r, body.len(), out)
    }

    /// [`ServerState::request`] of a request already decoded (from another wire dialect,
    /// `server/v41`), whose frame body was `len` bytes.
    pub fn request_decoded(
        &mut self,
        conn: ConnId,
        r: Request,
        len: usize,
        out: &mut Vec<Action>,
    ) -> Result<()> {
        let Some(ConnState::Client { proc_, finalized }) = self.conns.get(&conn) else {
            return Err(Error::bad_param("request before handshake"));
        };
        let (me, finalized) = (proc_.clone(), *finalized);
        let Request { tag, req } = r;
        if finalized {
            // PMIx_Finalize was the client's last word on this connection: whatever it
            // sends later is refused (a one-way request, tag 0, is dropped), as the
            // client library itself refuses calls after finalize. Serving it could start
            // collectives the client will never see through.
            log::warn!(
                "server: {} sent a request after PMIx_Finalize; refused with PMIX_ERR_INIT",
                me
            );
            if tag != 0 {
                out.push(reply(conn, tag, sys::PMIX_ERR_INIT, ReplyData::None));
            }
            return Ok(());
        }
        let exempt = matches!(req, Req::Finalize | Req::Abort { .. });
        if tag != 0 && !exempt && !self.budget.admit(conn, len, &me) {
            out.push(reply(
                conn,
                tag,
                sys::PMIX_ERR_OUT_OF_RESOURCE,
                ReplyData::None,
            ));
            return Ok(());
        }
        let start = out.len();
        self.serve(conn, tag, me, req, out);
        let served = (tag != 0).then_some((conn, tag, len));
        self.budget.settle(served, &out[start..]);
        Ok(())
    }

    /// Serve one decoded request of an accepted client.
    pub(super) fn serve(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: ProcId,
        req: Req,
        out: &mut Vec<Action>,
    ) {
        match req {
            Req::Commit { puts } => {
                // Counted first: the Gets held for this commit are answered by `commit`.
                self.shm_commit_stored(&me);
                self.commit(&me, puts, out);
            }
            Req::Fence {
                procs,
                collect,
                timeout_ms,
                info,
            } => self.fence(conn, tag, &me, procs, collect, timeout_ms, info, None, out),
            Req::Allgather {
                procs,
                timeout_ms,
                info,
                data,
            } => self.fence(
                conn,
                tag,
                &me,
                procs,
                false,
                timeout_ms,
                info,
                Some(data),
                out,
            ),
            Req::Get {
                target,
                key,
                immediate,
                timeout_ms,
                info,
            } => self.get(
                conn, tag, &me, target, key, immediate, timeout_ms, info, out,
            ),
            Req::JobData { nspace } => match self.nspaces.get(&nspace) {
                Some(ns) => out.push(reply(
                    conn,
                    tag,
                    sys::PMIX_SUCCESS,
                    ReplyData::Job(Box::new(ns.job.clone())),
                )),
                None => out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None)),
            },
            Req::Abort {
                status,
                msg,
                targets,
            } => out.push(Action::Host(Upcall::Abort {
                conn,
                tag,
                proc_: me,
                status,
                msg,
                targets,
            })),
            Req::Finalize => {
                if let Some(ConnState::Client { finalized, .. }) = self.conns.get_mut(&conn) {
                    *finalized = true;
                }
                if self.is_tool(conn) {
                    // A tool is not the host's client: no host upcall, no job effects.
                    self.tool_finalize(conn, tag, out);
                    return;
                }
                self.iof_conn_gone(conn);
                self.dyn_finalized(&me, out);
                // The client is released only after the host has recorded the finalize
                // (a host may otherwise see the process exit first and call it abnormal).
                out.push(Action::Host(Upcall::Finalized {
                    conn,
                    tag,
                    proc_: me,
                }));
            }
            Req::Dyn(r) => self.dyn_request(conn, tag, &me, r, out),
            Req::Iof(r) => self.iof_request(conn, tag, &me, r, out),
            Req::Notify {
                status,
                range,
                info,
            } => self.client_notify(conn, tag, &me, status, range, info, out),
        }
    }

    /// Send an event to every connected client (a host's `PMIx_Notify_event`).
    pub fn notify(&mut self, status: i32, source: &ProcId, info: Vec<Info>, out: &mut Vec<Action>) {
        self.host_notify(status, source, sys::PMIX_RANGE_SESSION, info, out);
    }

    /// The host has recorded a client's finalize: release the client (whatever the host
    /// said, the client is finalizing).
    pub fn finalize_done(&mut self, conn: ConnId, tag: u32, out: &mut Vec<Action>) {
        out.push(reply(conn, tag, sys::PMIX_SUCCESS, ReplyData::None));
    }

    /// The host answered an abort upcall.
    pub fn abort_done(&mut self, conn: ConnId, tag: u32, r: Result<()>, out: &mut Vec<Action>) {
        let status = match r {
            Ok(()) => sys::PMIX_SUCCESS,
            Err(e) => protocol::status_of(&e),
        };
        out.push(reply(conn, tag, status, ReplyData::None));
    }
}
