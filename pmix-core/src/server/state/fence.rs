//! Fences and allgathers: tracking the arrivals, handing the host one blob when other
//! servers take part, storing what comes back, releasing or failing the participants.

use super::*;

impl ServerState {
    /// Local participants a fence over `procs` waits for, and whether all participants
    /// are local. `Err` for an unknown namespace.
    pub(super) fn fence_shape(&self, procs: &[ProcId]) -> Result<(usize, bool)> {
        let mut n = 0usize;
        let mut all_local = true;
        for p in procs {
            let ns = self.nspaces.get(&p.nspace).ok_or_else(|| {
                Error::bad_param(format!("fence names unknown namespace {}", p.nspace))
            })?;
            if p.rank == sys::PMIX_RANK_WILDCARD {
                let nlocal = if ns.nlocal > 0 {
                    ns.nlocal as usize
                } else {
                    ns.local.len()
                };
                n += nlocal;
                if let Some(size) = ns.job.job_size() {
                    if size as usize > nlocal {
                        all_local = false;
                    }
                }
            } else if ns.local.contains(&p.rank) || ns.clients.contains_key(&p.rank) {
                n += 1;
            } else {
                all_local = false;
            }
        }
        Ok((n, all_local))
    }

    /// A fence's participants, sorted and checked (the caller among them, none ended),
    /// and how many arrivals complete it here; `None` once the caller was answered.
    pub(super) fn fence_participants(
        &self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        mut procs: Vec<ProcId>,
        out: &mut Vec<Action>,
    ) -> Option<(Vec<ProcId>, usize)> {
        if procs.is_empty() {
            procs.push(ProcId::new(me.nspace.clone(), sys::PMIX_RANK_WILDCARD));
        }
        procs.sort();
        procs.dedup();
        if !includes(&procs, me) {
            out.push(reply(
                conn,
                tag,
                sys::PMIX_ERR_NOT_A_MEMBER,
                ReplyData::None,
            ));
            return None;
        }
        // A participant that already vanished (or finalized and was deregistered) can
        // never arrive.
        if procs.iter().any(|p| self.ended(p)) {
            out.push(reply(
                conn,
                tag,
                sys::PMIX_ERR_PROC_TERM_WO_SYNC,
                ReplyData::None,
            ));
            return None;
        }
        let (expected, _) = match self.fence_shape(&procs) {
            Ok(s) => s,
            Err(e) => {
                out.push(reply(conn, tag, protocol::status_of(&e), ReplyData::None));
                return None;
            }
        };
        Some((procs, expected))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn fence(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        procs: Vec<ProcId>,
        collect: bool,
        timeout_ms: u32,
        info: Vec<Info>,
        data: Option<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        let Some((procs, expected)) = self.fence_participants(conn, tag, me, procs, out) else {
            return;
        };
        let key = FenceKey {
            procs,
            tag: fence_tag(&info),
        };
        let gather = data.is_some();
        if !self.fences.contains_key(&key) {
            let id = self.next();
            self.fences.insert(
                key.clone(),
                Tracker {
                    id,
                    procs: key.procs.clone(),
                    collect,
                    info,
                    expected,
                    arrived: Vec::new(),
                    host_called: false,
                    set: Vec::new(),
                    sent: Vec::new(),
                    gather,
                },
            );
        }
        let Some(t) = self.fences.get_mut(&key) else {
            return;
        };
        if t.gather != gather {
            log::warn!(
                "server: {} entered an allgather where the others entered a fence (or the reverse)",
                me
            );
            out.push(reply(conn, tag, sys::PMIX_ERR_BAD_PARAM, ReplyData::None));
            return;
        }
        if t.collect != collect {
            log::warn!(
                "server: {} entered a fence with a different PMIX_COLLECT_DATA than the others",
                me
            );
            out.push(reply(conn, tag, sys::PMIX_ERR_BAD_PARAM, ReplyData::None));
            return;
        }
        // A participant arriving again has given up on its earlier request (its own wait
        // timed out): that request ends now, and it counts once.
        if let Some(pos) = t.arrived.iter().position(|a| a.conn == conn) {
            let old = t.arrived.remove(pos);
            out.push(reply(
                old.conn,
                old.tag,
                sys::PMIX_ERR_TIMEOUT,
                ReplyData::None,
            ));
        }
        t.arrived.push(Arrival {
            conn,
            tag,
            contrib: data.map(|data| Contribution {
                proc_: me.clone(),
                data,
            }),
        });
        // Each participant's PMIX_TIMEOUT bounds the fence for every participant: the
        // first timer to fire fails it for all of them (later ones find no tracker).
        if timeout_ms > 0 {
            out.push(Action::Timer(
                Duration::from_millis(timeout_ms as u64),
                TimerEv::Fence(t.id),
            ));
        }
        if t.arrived.len() >= t.expected && !t.host_called {
            self.fence_locally_complete(&key, out);
        }
        self.shm_sync(&key.procs);
    }

    pub(super) fn fence_locally_complete(&mut self, key: &FenceKey, out: &mut Vec<Action>) {
        let all_local = match self.fence_shape(&key.procs) {
            Ok((_, a)) => a,
            Err(_) => true,
        };
        if all_local {
            if let Some(mut t) = self.fences.remove(key) {
                // The latest arrival is answered first: its process sent its request
                // moments ago and is often still awake to read the reply, where the
                // earlier ones sleep and are woken either way. OpenPMIx's server answers
                // in this order too; answering in arrival order made OpenPMIx clients'
                // 2-rank fences under our server 15-20 % slower than under theirs
                // (docs/PERF.md "Answering the latest arrival first").
                t.arrived.reverse();
                if t.gather {
                    let all = t.arrived.iter().filter_map(|a| a.contrib.clone()).collect();
                    release_gather(t.arrived, all, out);
                } else {
                    self.release_fence(&t.procs, t.collect, t.arrived, sys::PMIX_SUCCESS, out);
                }
            }
            self.shm_sync(&key.procs);
            return;
        }
        let Some(t) = self.fences.get(key) else {
            return;
        };
        let (id, collect, info) = (t.id, t.collect, t.info.clone());
        let (data, sent, set) = if t.gather {
            (gather_blob(&t.arrived), Vec::new(), Vec::new())
        } else if collect {
            let participants = self.local_participants(&key.procs);
            let set = modex::participant_set(&key.procs, |n| {
                self.nspaces.get(n).and_then(|ns| ns.job.job_size())
            });
            let (blob, sent) = self.fence_contribution(&participants, &set);
            let bytes = protocol::encode_blob(&blob);
            let me = self.id.clone();
            let delta = self.delta_modex;
            self.stats.record(&me, bytes.len(), &blob.procs, delta);
            (bytes, sent, set)
        } else {
            // A fence that does not collect data exchanges nothing.
            (
                protocol::encode_blob(&Blob::new(false)),
                Vec::new(),
                Vec::new(),
            )
        };
        if let Some(t) = self.fences.get_mut(key) {
            t.host_called = true;
            t.set = set;
            t.sent = sent;
        }
        out.push(Action::Host(Upcall::Fence {
            id,
            procs: key.procs.clone(),
            info,
            data,
        }));
    }

    /// A client vanished without finalizing: tell the other clients of its namespace
    /// (`PMIX_ERR_PROC_TERM_WO_SYNC`, source and `PMIX_EVENT_AFFECTED_PROC` = the lost
    /// process), so that a process with no operation pending learns it too; the CUDA
    /// communications object turns this into `check_async_error`. OpenPMIx leaves this
    /// to the host; ours does it because our launcher only kills the job.
    pub(super) fn tell_peers_lost(&self, lost: &ProcId, out: &mut Vec<Action>) {
        let info = Info::new(keys::EVENT_AFFECTED_PROC, Value::Proc(Some(lost.clone())))
            .map(|i| vec![i])
            .unwrap_or_default();
        let ev = protocol::encode(&ServerMsg::Event {
            status: sys::PMIX_ERR_PROC_TERM_WO_SYNC,
            source: lost.clone(),
            info,
        });
        for (&c, st) in &self.conns {
            if matches!(st, ConnState::Client { proc_, finalized: false } if proc_.nspace == lost.nspace)
            {
                out.push(Action::Send(c, ev.clone()));
            }
        }
    }

    pub(super) fn local_participants(&self, key: &[ProcId]) -> Vec<ProcId> {
        let mut v = Vec::new();
        for p in key {
            let Some(ns) = self.nspaces.get(&p.nspace) else {
                continue;
            };
            if p.rank == sys::PMIX_RANK_WILDCARD {
                for r in ns.local.iter().chain(ns.clients.keys()) {
                    let q = ProcId::new(p.nspace.clone(), *r);
                    if !v.contains(&q) {
                        v.push(q);
                    }
                }
            } else if self.is_local(p) {
                v.push(p.clone());
            }
        }
        v
    }

    pub(super) fn fail_fence(&mut self, key: &FenceKey, status: i32, out: &mut Vec<Action>) {
        if let Some(t) = self.fences.remove(key) {
            for a in t.arrived {
                out.push(reply(a.conn, a.tag, status, ReplyData::None));
            }
        }
        self.shm_sync(&key.procs);
    }

    /// The host finished a fence we handed it.
    pub fn fence_done(&mut self, id: u64, r: Result<Vec<u8>>, out: &mut Vec<Action>) {
        let Some(key) = self
            .fences
            .iter()
            .find(|(_, t)| t.id == id)
            .map(|(k, _)| k.clone())
        else {
            return; // already failed (timeout, lost participant)
        };
        let Some(t) = self.fences.remove(&key) else {
            return;
        };
        self.shm_sync(&key.procs);
        if t.gather {
            match r.and_then(|b| protocol::decode_blobs(&b)) {
                Ok(blobs) => {
                    let all = gathered(blobs);
                    release_gather(t.arrived, all, out);
                }
                Err(e) => {
                    log::warn!("server: allgather over {:?} failed: {}", t.procs, e);
                    for a in t.arrived {
                        out.push(reply(
                            a.conn,
                            a.tag,
                            protocol::status_of(&e),
                            ReplyData::None,
                        ));
                    }
                }
            }
            return;
        }
        let status = match r.and_then(|b| protocol::decode_blobs(&b)) {
            Ok(blobs) => {
                self.store_blobs(blobs, out);
                // What our sections carried has arrived: move each boundary.
                for (p, seq) in t.sent {
                    if let Some(ns) = self.nspaces.get_mut(&p.nspace) {
                        ns.data
                            .entry(p.rank)
                            .or_default()
                            .log
                            .delivered(seq, t.set.clone());
                    }
                }
                sys::PMIX_SUCCESS
            }
            Err(e) => {
                log::warn!("server: fence over {:?} failed: {}", t.procs, e);
                protocol::status_of(&e)
            }
        };
        self.release_fence(&t.procs, t.collect, t.arrived, status, out);
    }

    /// The replies that release a completed fence's local participants. A successful
    /// collecting fence carries what its participants published, as local readers may
    /// see it (encoded once, held once and shared by every waiter's reply, which only
    /// has its own tag: the server's memory stays linear in the job; nothing when larger than
    /// [`protocol::COLLECTED_INLINE_MAX`]), so that a client answers its first Get of a
    /// peer's key after the fence from its own store instead of asking us.
    pub(super) fn release_fence(
        &mut self,
        procs: &[ProcId],
        collect: bool,
        arrived: Vec<Arrival>,
        status: i32,
        out: &mut Vec<Action>,
    ) {
        let body = if collect && status == sys::PMIX_SUCCESS {
            if arrived
                .iter()
                .all(|a| self.status_only_fence.contains(&a.conn))
            {
                // No waiter reads collected data (OpenPMIx clients fetch it with Gets):
                // none is built, and the next reply to this set is complete again.
                self.sent_collected.remove(procs);
                None
            } else {
                self.collected(procs)
            }
        } else {
            None
        };
        match body {
            Some(b) => send_shared(&arrived, b, out),
            None => {
                for a in arrived {
                    out.push(reply(a.conn, a.tag, status, ReplyData::None));
                }
            }
        }
    }

    /// The reply body (tag 0) carrying the published data of the processes in `procs`
    /// that this server holds (a wildcard stands for every process of its namespace), as
    /// a local reader sees it: LOCAL and GLOBAL entries of local processes, REMOTE and
    /// GLOBAL ones that came from other nodes.
    ///
    /// Only what changed since the last reply to a fence over the same participants is
    /// carried (every local participant received that one: a fence completes only when
    /// all have arrived), plus the keys that disappeared; a fingerprint of each entry
    /// sent is kept per participant set for that. Beyond the inline limit the reply
    /// carries nothing but a reset, clients then drop what they collected and fetch on
    /// first access, and the next reply to that set is complete again.
    pub(super) fn collected(&mut self, procs: &[ProcId]) -> Option<Vec<u8>> {
        use crate::codec::Wire;
        use std::hash::BuildHasher;
        let mut prev = self.sent_collected.remove(procs).unwrap_or_default();
        let mut next = FastMap::default();
        let mut w = protocol::CollectedWriter::new(protocol::COLLECTED_INLINE_MAX, false);
        let fp = crate::fasthash::FastState::default();
        let mut values = Vec::new();
        let mut changed = Vec::new();
        for p in procs {
            let Some(ns) = self.nspaces.get(&p.nspace) else {
                continue;
            };
            let mut ranks: Vec<Rank> = if p.rank == sys::PMIX_RANK_WILDCARD {
                ns.data.keys().copied().collect()
            } else {
                vec![p.rank]
            };
            ranks.sort_unstable();
            for r in ranks {
                let Some(pd) = ns.data.get(&r) else {
                    continue;
                };
                let reader = if pd.remote {
                    Reader::Remote
                } else {
                    Reader::Local
                };
                let who = ProcId::new(p.nspace.clone(), r);
                // What was sent for `who` and what it holds now are both sorted by key:
                // one merge walk finds the changed, new and removed keys, and moves the
                // unchanged keys' fingerprints over without copying a key.
                let mut old = prev.remove(&who).unwrap_or_default().into_iter().peekable();
                let mut now: Vec<(Key, u64)> = Vec::new();
                let mut removed: Vec<Key> = Vec::new();
                values.clear();
                changed.clear();
                for (k, e) in pd.kv.map.iter() {
                    if !scope_visible(e.scope, reader) {
                        continue;
                    }
                    while let Some(ok) = old.next_if(|(ok, _)| ok < k) {
                        removed.push(ok.0);
                    }
                    let at = values.len();
                    e.value.encode(&mut values);
                    let h = fp.hash_one(values.get(at..).unwrap_or_default());
                    match old.next_if(|(ok, _)| ok == k) {
                        Some((ok, oh)) => {
                            if oh != h {
                                changed.push((k, at, values.len()));
                            }
                            now.push((ok, h));
                        }
                        None => {
                            changed.push((k, at, values.len()));
                            now.push((k.clone(), h));
                        }
                    }
                }
                removed.extend(old.map(|(k, _)| k));
                let removed: Vec<&Key> = removed.iter().collect();
                let entries = changed
                    .iter()
                    .map(|&(k, a, b)| (k, values.get(a..b).unwrap_or_default()));
                if !w.add(&who, entries, &removed) {
                    // Too much to carry: clients start over; so does this set.
                    return protocol::CollectedWriter::new(protocol::COLLECTED_INLINE_MAX, true)
                        .finish();
                }
                next.insert(who, now);
            }
        }
        self.sent_collected.insert(procs.to_vec(), next);
        w.finish()
    }
}

/// Reply to every arrival with `body` (a `Reply` encoded with tag 0): one shared tail,
/// and a head of the message byte and each arrival's tag
/// ([`Action::SendShared`]). Holding `body` once is what keeps a collective's replies
/// linear in the number of participants rather than quadratic.
pub(super) fn send_shared(arrived: &[Arrival], mut body: Vec<u8>, out: &mut Vec<Action>) {
    const HEAD: usize = 5; // the message byte and the tag (`protocol::set_reply_tag`)
    if body.len() < HEAD {
        return;
    }
    let tail: std::sync::Arc<[u8]> = std::sync::Arc::from(body.split_off(HEAD));
    for a in arrived {
        let mut head = body.clone();
        protocol::set_reply_tag(&mut head, a.tag);
        out.push(Action::SendShared(a.conn, head, tail.clone()));
    }
}

/// The blob a server hands its host for an allgather: every local contribution as one
/// [`protocol::GATHER_KEY`] byte object (collecting, so any concatenating host carries it).
pub(super) fn gather_blob(arrived: &[Arrival]) -> Vec<u8> {
    let procs = arrived
        .iter()
        .filter_map(|a| a.contrib.as_ref())
        .filter_map(|c| {
            let key = Key::new(protocol::GATHER_KEY).ok()?;
            Some(ProcBlob::full(
                c.proc_.clone(),
                vec![(
                    key,
                    Entry {
                        scope: sys::PMIX_GLOBAL,
                        value: Value::ByteObject(c.data.clone()),
                    },
                )],
            ))
        })
        .collect();
    let mut blob = Blob::new(true);
    blob.procs = procs;
    protocol::encode_blob(&blob)
}

/// The contributions inside the blobs of every server of an allgather.
pub(super) fn gathered(blobs: Vec<Blob>) -> Vec<Contribution> {
    let mut all = Vec::new();
    for b in blobs {
        for pb in b.procs {
            for (k, e) in pb.entries {
                if let (protocol::GATHER_KEY, Value::ByteObject(data)) = (k.as_str(), e.value) {
                    all.push(Contribution {
                        proc_: pb.proc_.clone(),
                        data,
                    });
                }
            }
        }
    }
    all
}

/// Release the local participants of a completed allgather with every contribution
/// (sorted by process, one per process). A reply too large for one frame fails the
/// allgather with `PMIX_ERR_OUT_OF_RESOURCE` instead of breaking the connections.
pub(super) fn release_gather(
    arrived: Vec<Arrival>,
    mut all: Vec<Contribution>,
    out: &mut Vec<Action>,
) {
    all.sort_by(|a, b| a.proc_.cmp(&b.proc_));
    all.dedup_by(|a, b| a.proc_ == b.proc_);
    let size: usize = all
        .iter()
        .map(|c| c.data.len() + c.proc_.nspace.as_str().len() + 16)
        .sum();
    let (status, data) = if size + 64 > protocol::MAX_FRAME {
        log::warn!(
            "server: allgather result of about {} bytes exceeds the frame limit of {}",
            size,
            protocol::MAX_FRAME
        );
        (sys::PMIX_ERR_OUT_OF_RESOURCE, None)
    } else {
        (sys::PMIX_SUCCESS, Some(all))
    };
    match data {
        Some(all) => {
            let body = protocol::encode(&ServerMsg::Reply {
                tag: 0,
                status,
                data: ReplyData::Gathered(all),
            });
            send_shared(&arrived, body, out);
        }
        None => {
            for a in arrived {
                out.push(reply(a.conn, a.tag, status, ReplyData::None));
            }
        }
    }
}
