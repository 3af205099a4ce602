//! The key-value data: commits, `PMIx_Get` (answered, parked or sent to the host as
//! a direct modex), and the direct-modex requests other servers make through the host.

use super::*;

impl ServerState {
    pub(super) fn commit(&mut self, who: &ProcId, puts: Vec<Put>, out: &mut Vec<Action>) {
        let Some(ns) = self.nspaces.get_mut(&who.nspace) else {
            return;
        };
        let pd = ns.data.entry(who.rank).or_default();
        let mut deleted = Vec::new();
        for p in puts {
            if matches!(
                p.scope,
                sys::PMIX_LOCAL | sys::PMIX_REMOTE | sys::PMIX_GLOBAL
            ) {
                pd.log.put(&p.key);
                pd.kv.put(p.key, p.scope, p.value);
            } else if matches!(
                p.scope,
                sys::PMIX_DEL_LOCAL | sys::PMIX_DEL_REMOTE | sys::PMIX_DEL_GLOBAL
            ) {
                // A deletion removes the key if it was visible in the scope it names;
                // deleting an absent key is not an error.
                let drop_it = match pd.kv.map.get(&p.key) {
                    Some(e) => match p.scope {
                        sys::PMIX_DEL_GLOBAL => true,
                        sys::PMIX_DEL_LOCAL => {
                            matches!(e.scope, sys::PMIX_LOCAL | sys::PMIX_GLOBAL)
                        }
                        _ => matches!(e.scope, sys::PMIX_REMOTE | sys::PMIX_GLOBAL),
                    },
                    None => false,
                };
                if drop_it {
                    pd.kv.map.remove(&p.key);
                    pd.log.delete(&p.key, p.scope);
                    deleted.push(p.key);
                }
            } else {
                log::warn!(
                    "server: {} committed key {} with scope {}; ignored",
                    who,
                    p.key,
                    p.scope
                );
            }
        }
        pd.committed = true;
        // Local clients that cached a deleted key drop it (one-way notice).
        for k in deleted {
            let msg = protocol::encode(&ServerMsg::Forget {
                proc_: who.clone(),
                key: k,
            });
            for (&c, st) in &self.conns {
                if matches!(st, ConnState::Client { proc_, .. } if proc_ != who) {
                    out.push(Action::Send(c, msg.clone()));
                }
            }
        }
        // Parked Gets for this process that can now be answered (an immediate one was
        // held only until its commits were here).
        let waiting: Vec<GetWaiter> = {
            let settled = !self.shm_commit_in_flight(who);
            let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.getters)
                .into_iter()
                .partition(|g| {
                    &g.target == who
                        && settled
                        && (g.immediate || self.has_key(&g.target, g.key.as_ref()))
                });
            self.getters = later;
            now
        };
        for g in waiting {
            if !self.has_key(&g.target, g.key.as_ref()) {
                out.push(reply(
                    g.conn,
                    g.tag,
                    sys::PMIX_ERR_NOT_FOUND,
                    ReplyData::None,
                ));
                continue;
            }
            self.answer_get(
                g.conn,
                g.tag,
                &g.requester,
                &g.target,
                g.key.as_ref(),
                g.scope,
                out,
            );
        }
        // Direct-modex requests from other nodes (those naming a key wait for that key).
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.dmodex_in)
            .into_iter()
            .partition(|(p, k, _)| p == who && self.has_key(p, k.as_ref()));
        self.dmodex_in = later;
        for (p, _, d) in now {
            let blob = self.blob_for(std::slice::from_ref(&p), true);
            out.push(Action::AnswerDmodex(d, Ok(blob)));
        }
    }

    pub(super) fn proc_data(&self, p: &ProcId) -> Option<&ProcData> {
        self.nspaces.get(&p.nspace)?.data.get(&p.rank)
    }

    pub(super) fn has_key(&self, p: &ProcId, key: Option<&Key>) -> bool {
        match self.proc_data(p) {
            Some(pd) => match key {
                Some(k) => pd.kv.map.contains_key(k),
                None => pd.committed || pd.remote,
            },
            None => false,
        }
    }

    pub(super) fn is_local(&self, p: &ProcId) -> bool {
        self.nspaces
            .get(&p.nspace)
            .map(|ns| ns.local.contains(&p.rank) || ns.clients.contains_key(&p.rank))
            .unwrap_or(false)
    }

    /// Reply to a Get from what the store holds now.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn answer_get(
        &self,
        conn: ConnId,
        tag: u32,
        requester: &ProcId,
        target: &ProcId,
        key: Option<&Key>,
        scope: Option<u8>,
        out: &mut Vec<Action>,
    ) {
        let reader = if requester == target {
            Reader::Owner
        } else if self.proc_data(target).map(|d| d.remote).unwrap_or(false) {
            Reader::Remote // data that came from another node is visible to all of us
        } else {
            Reader::Local
        };
        let Some(pd) = self.proc_data(target) else {
            out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
            return;
        };
        if let Some(k) = key {
            match pd.kv.map.get(k) {
                None => {
                    out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
                    return;
                }
                Some(e) if scope.is_some_and(|want| !scope_searched(e.scope, want)) => {
                    // PMIX_DATA_SCOPE restricts the search to values visible in that scope.
                    out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
                    return;
                }
                Some(Entry { scope, .. }) if !scope_visible(*scope, reader) => {
                    out.push(reply(
                        conn,
                        tag,
                        sys::PMIX_ERR_EXISTS_OUTSIDE_SCOPE,
                        ReplyData::None,
                    ));
                    return;
                }
                Some(_) => {}
            }
        }
        out.push(reply(
            conn,
            tag,
            sys::PMIX_SUCCESS,
            ReplyData::Data(match scope {
                None => pd.kv.visible(reader),
                Some(want) => {
                    let mut only = pd.kv.clone();
                    only.map.retain(|_, e| scope_searched(e.scope, want));
                    only.visible(reader)
                }
            }),
        ));
    }

    /// Answer a Get for a wildcard rank, or for a reserved or registered key the target
    /// did not put itself, from the registered job data; false if it is not such a Get.
    pub(super) fn answer_from_job_data(
        &self,
        conn: ConnId,
        tag: u32,
        target: &ProcId,
        key: Option<&Key>,
        out: &mut Vec<Action>,
    ) -> bool {
        // Reserved keys and job-level requests are answered from the registered job data
        // (a process may also have published a reserved key itself; that wins).
        let reserved = key
            .map(|k| k.is_reserved() && k.as_str() != crate::store::qualified::CONTAINER)
            .unwrap_or(false);
        let in_job_data = match (key, self.nspaces.get(&target.nspace)) {
            (Some(k), Some(ns)) => ns
                .job
                .proc_value(target.rank, k.as_str(), Level::Any)
                .is_some(),
            _ => false,
        };
        if target.rank == sys::PMIX_RANK_WILDCARD
            || ((reserved || in_job_data) && !self.has_key(target, key))
        {
            let v = self.nspaces.get(&target.nspace).and_then(|ns| {
                let k = key?;
                if target.rank == sys::PMIX_RANK_WILDCARD {
                    ns.job
                        .job_value(k.as_str(), Level::Any, Some(&self.hostname))
                        .map(std::borrow::Cow::into_owned)
                } else {
                    ns.job
                        .proc_value(target.rank, k.as_str(), Level::Any)
                        .map(std::borrow::Cow::into_owned)
                }
                .map(|value| Info {
                    key: k.clone(),
                    flags: 0,
                    value,
                })
            });
            match v {
                Some(i) => out.push(reply(
                    conn,
                    tag,
                    sys::PMIX_SUCCESS,
                    ReplyData::Data(vec![i]),
                )),
                None => out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None)),
            }
            return true;
        }
        false
    }

    /// Another node holds `target`'s data: ask the host for it (once per process and key
    /// at a time).
    pub(super) fn ask_dmodex(
        &mut self,
        target: &ProcId,
        key: Option<&Key>,
        info: &[Info],
        out: &mut Vec<Action>,
    ) {
        // Another node holds it: ask the host (once per process and key at a time).
        let mut dinfo = info.to_vec();
        if let Some(k) = key {
            if let Ok(i) = Info::new(keys::REQUIRED_KEY, Value::string(k.as_str())) {
                dinfo.push(i);
            }
        }
        self.dmodex_out.insert((target.clone(), key.cloned()));
        out.push(Action::Host(Upcall::Dmodex {
            proc_: target.clone(),
            key: key.cloned(),
            info: dinfo,
        }));
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn get(
        &mut self,
        conn: ConnId,
        tag: u32,
        requester: &ProcId,
        target: ProcId,
        key: Option<Key>,
        immediate: bool,
        timeout_ms: u32,
        info: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        if self.dyn_get(conn, tag, &target, key.as_ref(), out) {
            return;
        }
        // A namespace we do not know yet may still be registered (a job started later):
        // unless told not to wait, the Get waits for it (bounded by its PMIX_TIMEOUT).
        if !immediate && !self.nspaces.contains_key(&target.nspace) {
            let id = self.next();
            if timeout_ms > 0 {
                out.push(Action::Timer(
                    Duration::from_millis(timeout_ms as u64),
                    TimerEv::Get(id),
                ));
            }
            log::debug!(
                "server: Get from {} waits for namespace {} to be registered",
                requester,
                target.nspace
            );
            self.ns_waiters.push(NsWaiter {
                id,
                conn,
                tag,
                requester: requester.clone(),
                target,
                key,
                info,
            });
            return;
        }
        if self.answer_from_job_data(conn, tag, &target, key.as_ref(), out) {
            return;
        }
        let refresh = info
            .iter()
            .any(|i| i.key.as_str() == keys::GET_REFRESH_CACHE && i.value.is_true());
        let scope = data_scope(&info);
        let local = self.is_local(&target);
        let have = self.has_key(&target, key.as_ref());
        // A commit the target counted in its fence area and sent is not read yet: what
        // we hold may be older than what a fence in the area promised. Wait for it.
        let in_flight =
            local && self.shm_commit_in_flight(&target) && self.departed(&target).is_none();
        // A refresh of a remote target's data asks its node again (direct modex), unless
        // PMIX_IMMEDIATE limits the answer to what this server holds.
        if have && !in_flight && (local || !refresh || immediate) {
            self.answer_get(conn, tag, requester, &target, key.as_ref(), scope, out);
            return;
        }
        if immediate && !in_flight {
            out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
            return;
        }
        let known_ns = self.nspaces.contains_key(&target.nspace);
        if !known_ns {
            // Nothing can arrive for a namespace we were never told about.
            out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None));
            return;
        }
        if local {
            if let Some(status) = self.departed(&target) {
                out.push(reply(conn, tag, status, ReplyData::None));
                return;
            }
        } else if known_ns && !self.dmodex_out.contains(&(target.clone(), key.clone())) {
            self.ask_dmodex(&target, key.as_ref(), &info, out);
        }
        let id = self.next();
        if timeout_ms > 0 {
            out.push(Action::Timer(
                Duration::from_millis(timeout_ms as u64),
                TimerEv::Get(id),
            ));
        }
        self.getters.push(GetWaiter {
            id,
            conn,
            tag,
            requester: requester.clone(),
            target,
            key,
            scope,
            immediate,
        });
    }

    /// The host answered our direct-modex request for `proc_` (asked for `key`).
    ///
    /// Parked Gets for `proc_` whose key is now here are answered; a Get for `key` that is
    /// still missing gets `PMIX_ERR_NOT_FOUND` (the other node answered without it);
    /// Gets for other keys keep waiting for their own requests.
    pub fn dmodex_done(
        &mut self,
        proc_: &ProcId,
        key: Option<&Key>,
        r: Result<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        let asked = (proc_.clone(), key.cloned());
        self.dmodex_out.remove(&asked);
        let res = r.and_then(|b| protocol::decode_blobs(&b));
        let ok = res.is_ok();
        if let Ok(blobs) = &res {
            self.store_blobs(blobs.clone(), out);
        }
        let (mine, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.getters)
            .into_iter()
            .partition(|g| {
                &g.target == proc_
                    && ((ok && self.has_key(&g.target, g.key.as_ref())) || g.key.as_ref() == key)
            });
        self.getters = keep;
        match res {
            Ok(_) => {
                for g in mine {
                    self.answer_get(
                        g.conn,
                        g.tag,
                        &g.requester,
                        &g.target,
                        g.key.as_ref(),
                        g.scope,
                        out,
                    );
                }
            }
            Err(e) => {
                log::warn!("server: direct modex for {} failed: {}", proc_, e);
                for g in mine {
                    out.push(reply(
                        g.conn,
                        g.tag,
                        protocol::status_of(&e),
                        ReplyData::None,
                    ));
                }
            }
        }
    }

    /// Another node asks (through its host and ours) for `proc_`'s data.
    pub fn dmodex_request(
        &mut self,
        proc_: &ProcId,
        done: HostDone<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        self.dmodex_request_key(proc_, None, done, out)
    }

    /// [`ServerState::dmodex_request`] for a request naming a key (`PMIX_REQUIRED_KEY`):
    /// the answer waits until `proc_` has committed that key (or is gone).
    pub fn dmodex_request_key(
        &mut self,
        proc_: &ProcId,
        key: Option<Key>,
        done: HostDone<Vec<u8>>,
        out: &mut Vec<Action>,
    ) {
        let Some(ns) = self.nspaces.get(&proc_.nspace) else {
            if proc_.rank == sys::PMIX_RANK_WILDCARD {
                out.push(Action::AnswerDmodex(
                    done,
                    Err(Error::not_found(format!(
                        "namespace {} unknown",
                        proc_.nspace
                    ))),
                ));
            } else {
                // Another node's client may ask before our host has registered the job
                // here (hosts register a job on each node at their own pace): wait for
                // the process to commit, as for a registered one.
                log::debug!("server: direct modex for {} waits for its namespace", proc_);
                self.dmodex_in.push((proc_.clone(), key, done));
            }
            return;
        };
        if proc_.rank == sys::PMIX_RANK_WILDCARD {
            // Job-level data travels as one pseudo-process entry of GLOBAL values.
            let mut blob = Blob::new(true);
            blob.procs.push(ProcBlob::full(
                proc_.clone(),
                ns.job
                    .job
                    .iter()
                    .map(|i| {
                        (
                            i.key.clone(),
                            Entry {
                                scope: sys::PMIX_GLOBAL,
                                value: i.value.clone(),
                            },
                        )
                    })
                    .collect(),
            ));
            out.push(Action::AnswerDmodex(done, Ok(protocol::encode_blob(&blob))));
            return;
        }
        let committed = ns
            .data
            .get(&proc_.rank)
            .map(|d| d.committed)
            .unwrap_or(false);
        if committed && self.has_key(proc_, key.as_ref()) {
            let blob = self.blob_for(std::slice::from_ref(proc_), true);
            out.push(Action::AnswerDmodex(done, Ok(blob)));
        } else if let Some(status) = self.departed(proc_) {
            out.push(Action::AnswerDmodex(
                done,
                Err(Error::new(
                    status,
                    format!("{} ended without committing", proc_),
                )),
            ));
        } else {
            self.dmodex_in.push((proc_.clone(), key, done));
        }
    }

    /// A direct-modex answer: the full sections of `procs` (local processes only).
    pub(super) fn blob_for(&self, procs: &[ProcId], collect: bool) -> Vec<u8> {
        let mut blob = Blob::new(collect);
        if collect {
            for p in procs {
                if let Some(pd) = self.proc_data(p) {
                    if !pd.remote {
                        blob.procs
                            .push(modex::full_section(p, &pd.kv, Some(&pd.log)));
                    }
                }
            }
        }
        protocol::encode_blob(&blob)
    }

    /// Our contribution to a collecting fence over the participant `set`: one section per
    /// local participant (full or delta, see [`modex`]), with the change number each one
    /// covers.
    pub(super) fn fence_contribution(
        &self,
        procs: &[ProcId],
        set: &[ProcId],
    ) -> (Blob, Vec<(ProcId, u64)>) {
        let mut blob = Blob::new(true);
        blob.delta = self.delta_modex;
        let mut sent = Vec::new();
        for p in procs {
            // A participant that never committed has nothing to say.
            let Some(pd) = self.proc_data(p).filter(|pd| !pd.remote) else {
                continue;
            };
            let (sec, seq) = pd.log.section(p, &pd.kv, set, self.delta_modex);
            blob.procs.push(sec);
            sent.push((p.clone(), seq));
        }
        (blob, sent)
    }

    /// Store what other servers sent (fence or direct modex). Our own processes' sections
    /// are skipped (ours are fresher). Keys a section deletes are dropped, and every
    /// local client is told to forget them.
    pub(super) fn store_blobs(&mut self, blobs: Vec<Blob>, out: &mut Vec<Action>) {
        let mut forget = Vec::new();
        for b in blobs {
            for pb in b.procs {
                if self.is_local(&pb.proc_) {
                    continue; // our own clients' data is already here, and fresher
                }
                let Some(ns) = self.nspaces.get_mut(&pb.proc_.nspace) else {
                    continue;
                };
                if pb.proc_.rank == sys::PMIX_RANK_WILDCARD {
                    continue;
                }
                let who = pb.proc_.clone();
                let pd = ns.data.entry(pb.proc_.rank).or_default();
                pd.remote = true;
                for k in modex::apply_section(&mut pd.kv, pb) {
                    forget.push((who.clone(), k));
                }
            }
        }
        for (who, key) in forget {
            let msg = protocol::encode(&ServerMsg::Forget { proc_: who, key });
            for (&c, st) in &self.conns {
                if matches!(st, ConnState::Client { .. }) {
                    out.push(Action::Send(c, msg.clone()));
                }
            }
        }
    }
}

/// A Get's `PMIX_DATA_SCOPE` directive, if it gave one.
fn data_scope(info: &[Info]) -> Option<u8> {
    info.iter()
        .find(|i| i.key.as_str() == keys::DATA_SCOPE)
        .and_then(|i| match i.value {
            Value::Scope(s) => Some(s),
            _ => i.value.as_u64().and_then(|v| u8::try_from(v).ok()),
        })
}
