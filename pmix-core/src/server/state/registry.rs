//! Namespaces, clients and resources as the host registers them, and whether a
//! registered process is still alive (connected and not finalized).

use super::*;

impl ServerState {
    /// Register (or re-register) a namespace.
    pub fn register_nspace(&mut self, nspace: &Nspace, nlocal: u32, mut info: Vec<Info>) {
        // Resources come after the namespace's own infos, so its own values win.
        let own: Vec<Key> = info.iter().map(|i| i.key.clone()).collect();
        info.extend(
            self.resources
                .iter()
                .filter(|r| is_node_array(r) || !own.contains(&r.key))
                .cloned(),
        );
        let mut job = JobData::from_register(nspace, info);
        job.derive(&self.hostname);
        if let Some(seg) = self.segments.as_mut() {
            if job.procs.image().len() >= seg.min.max(1) {
                let name = format!("pmix-jobdata.{}", seg.next);
                seg.next += 1;
                if let Err(e) = job.procs.publish(&name) {
                    log::warn!(
                        "server: cannot publish {}'s job data as a sealed memory file, \
                         sending it inline: {}",
                        nspace,
                        e
                    );
                }
            }
        }
        let mut local: BTreeSet<Rank> = job.local_peers().unwrap_or_default().into_iter().collect();
        let (clients, data, gone, lost, dereg) = match self.nspaces.remove(nspace) {
            Some(old) => {
                local.extend(old.clients.keys().copied());
                (old.clients, old.data, old.gone, old.lost, old.dereg)
            }
            None => Default::default(),
        };
        self.nspaces.insert(
            nspace.clone(),
            NsState {
                job,
                nlocal,
                local,
                clients,
                data,
                gone,
                lost,
                dereg,
            },
        );
    }

    /// `PMIx_server_register_resources`: record data every job sees as job-level data
    /// (node descriptions given as `PMIX_NODE_INFO_ARRAY` as node data). Namespaces
    /// registered later get it with their registration; namespaces already registered get
    /// it in the server's store, where their clients read it with
    /// `PMIX_GET_REFRESH_CACHE` (or a Get the client cannot answer itself). A namespace's
    /// own value for a key wins over a resource.
    pub fn register_resources(&mut self, info: Vec<Info>) {
        for i in info {
            let old = if is_node_array(&i) {
                None
            } else {
                let pos = self.resources.iter().position(|r| r.key == i.key);
                pos.map(|p| self.resources.remove(p).value)
            };
            for ns in self.nspaces.values_mut() {
                let add = JobData::from_register(&ns.job.nspace, vec![i.clone()]);
                for j in add.job {
                    ns.job.add_resource(j, old.as_ref());
                }
                for n in add.nodes {
                    let same = ns.job.nodes.iter_mut().find(|m| {
                        (n.id.is_some() && m.id == n.id)
                            || (n.hostname.is_some() && m.hostname == n.hostname)
                    });
                    match same {
                        Some(m) => {
                            for x in n.info {
                                if !m.info.iter().any(|y| y.key == x.key) {
                                    m.info.push(x);
                                }
                            }
                        }
                        None => ns.job.nodes.push(n),
                    }
                }
            }
            self.resources.push(i);
        }
    }

    /// `PMIx_server_deregister_resources`: retract job-level data from the record and from
    /// every registered namespace, and tell their connected clients to drop it (one-way,
    /// like a committed deletion). A plain info removes every job-level and node entry with
    /// that key. A `PMIX_DATA_ARRAY` of infos narrows the removal to the node entries its
    /// `PMIX_NODEID`/`PMIX_HOSTNAME` name: its other members are the keys removed there,
    /// and with none the whole node entry goes; a node entry left holding only its
    /// identifiers is removed. Clients are told about a key once no entry of their
    /// namespace holds it any more.
    pub fn deregister_resources(&mut self, info: Vec<Info>, out: &mut Vec<Action>) {
        let mut gone: Vec<Key> = Vec::new();
        // Node entries narrowed by an id: (namespace, node id, hostname, keys; none = all).
        let mut node_gone: Vec<(Nspace, crate::store::NodeData)> = Vec::new();
        for i in info {
            match crate::store::info_array(&i.value) {
                Some(list) => {
                    let is_id =
                        |k: &Key| k.as_str() == keys::NODEID || k.as_str() == keys::HOSTNAME;
                    let ids: Vec<Info> = list.iter().filter(|x| is_id(&x.key)).cloned().collect();
                    let targets: Vec<Key> = list
                        .iter()
                        .filter(|x| !is_id(&x.key))
                        .map(|x| x.key.clone())
                        .collect();
                    if ids.is_empty() {
                        // No node named: the members are simply keys to remove.
                        gone.extend(targets.iter().cloned());
                        self.retract_everywhere(&targets);
                        continue;
                    }
                    let hit = |n: &crate::store::NodeData| {
                        ids.iter().any(|id| match id.key.as_str() {
                            keys::NODEID => {
                                n.id.is_some() && n.id.map(u64::from) == id.value.as_u64()
                            }
                            _ => n.hostname.is_some() && n.hostname.as_deref() == id.value.as_str(),
                        })
                    };
                    for (name, ns) in self.nspaces.iter_mut() {
                        for n in ns.job.nodes.iter_mut().filter(|n| hit(n)) {
                            if targets.is_empty() {
                                n.info.clear();
                            } else {
                                n.info.retain(|x| !targets.contains(&x.key));
                            }
                            node_gone.push((
                                name.clone(),
                                crate::store::NodeData {
                                    id: n.id,
                                    hostname: n.hostname.clone(),
                                    info: targets
                                        .iter()
                                        .filter_map(|k| Info::new(k.as_str(), Value::Undef).ok())
                                        .collect(),
                                },
                            ));
                        }
                        ns.job
                            .nodes
                            .retain(|n| n.info.iter().any(|x| !is_id(&x.key)));
                    }
                    self.resources.retain(|r| {
                        !(is_node_array(r)
                            && crate::store::info_array(&r.value).is_some_and(|l| {
                                let n = crate::store::NodeData {
                                    id: l
                                        .iter()
                                        .find(|x| x.key.as_str() == keys::NODEID)
                                        .and_then(|x| x.value.as_u64())
                                        .map(|v| v as u32),
                                    hostname: l
                                        .iter()
                                        .find(|x| x.key.as_str() == keys::HOSTNAME)
                                        .and_then(|x| x.value.as_str().map(str::to_string)),
                                    info: Vec::new(),
                                };
                                hit(&n)
                            }))
                    });
                }
                None => {
                    gone.push(i.key.clone());
                    self.retract_everywhere(std::slice::from_ref(&i.key));
                }
            }
        }
        gone.sort();
        gone.dedup();
        self.tell_forgotten(&gone, &node_gone, out);
    }

    /// Tell the clients what a deregistration of resources removed: `gone` keys their
    /// namespace no longer holds anywhere, and `node_gone` node entries (to every client:
    /// one that holds another namespace's job data after a connect drops it there too).
    pub(super) fn tell_forgotten(
        &self,
        gone: &[Key],
        node_gone: &[(Nspace, crate::store::NodeData)],
        out: &mut Vec<Action>,
    ) {
        // One-way notices to the clients whose namespace no longer holds the key anywhere,
        // and, for removals narrowed to a node, to every client (one that holds another
        // namespace's job data after a connect drops it there too).
        for (&c, st) in &self.conns {
            let ConnState::Client { proc_, .. } = st else {
                continue;
            };
            let Some(ns) = self.nspaces.get(&proc_.nspace) else {
                continue;
            };
            for (name, node) in node_gone {
                out.push(Action::Send(
                    c,
                    protocol::encode(&ServerMsg::ForgetNode {
                        nspace: name.clone(),
                        node: node.clone(),
                    }),
                ));
            }
            for k in gone {
                let still = ns.job.job.iter().any(|x| &x.key == k)
                    || ns
                        .job
                        .nodes
                        .iter()
                        .any(|n| n.info.iter().any(|x| &x.key == k));
                if !still {
                    out.push(Action::Send(
                        c,
                        protocol::encode(&ServerMsg::Forget {
                            proc_: ProcId::new(proc_.nspace.clone(), sys::PMIX_RANK_WILDCARD),
                            key: k.clone(),
                        }),
                    ));
                }
            }
        }
    }

    pub(super) fn retract_everywhere(&mut self, gone: &[Key]) {
        self.resources
            .retain(|r| is_node_array(r) || !gone.contains(&r.key));
        for ns in self.nspaces.values_mut() {
            // (A retracted key the map implied stops being implied as well.)
            for k in gone {
                ns.job.retract_job_key(k);
            }
            for n in ns.job.nodes.iter_mut() {
                n.info.retain(|x| !gone.contains(&x.key));
            }
        }
    }

    /// A namespace was just registered: Gets that were waiting for it run now (they are
    /// answered, or wait further for their key as any other Get).
    pub fn nspace_registered(&mut self, nspace: &Nspace, out: &mut Vec<Action>) {
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.ns_waiters)
            .into_iter()
            .partition(|w| &w.target.nspace == nspace);
        self.ns_waiters = later;
        for w in now {
            let (conn, tag) = (w.conn, w.tag);
            self.get(
                conn,
                tag,
                &w.requester,
                w.target,
                w.key,
                false,
                0,
                w.info,
                out,
            );
            // If it parks again, it keeps its id, so its PMIX_TIMEOUT timer still applies.
            if let Some(g) = self
                .getters
                .last_mut()
                .filter(|g| g.conn == conn && g.tag == tag)
            {
                g.id = w.id;
            }
        }
    }

    /// Forget a namespace (its clients' connections stay until they close).
    pub fn deregister_nspace(&mut self, nspace: &Nspace, out: &mut Vec<Action>) {
        // Its segment, if any, is freed once the last client that mapped it unmaps it.
        self.nspaces.remove(nspace);
        self.shm_forget(nspace);
        self.forget_invites_of(|leader| &leader.nspace == nspace, out);
        let (done, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.dmodex_in)
            .into_iter()
            .partition(|(p, _, _)| &p.nspace == nspace);
        self.dmodex_in = keep;
        for (p, _, d) in done {
            out.push(Action::AnswerDmodex(
                d,
                Err(Error::not_found(format!(
                    "{} deregistered before {} committed",
                    nspace, p
                ))),
            ));
        }
        let keys: Vec<FenceKey> = self
            .fences
            .keys()
            .filter(|k| k.procs.iter().any(|p| &p.nspace == nspace))
            .cloned()
            .collect();
        for k in keys {
            self.fail_fence(&k, sys::PMIX_ERR_NOT_FOUND, out);
        }
    }

    /// Allow `proc_` to connect from a peer with this uid.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a wildcard or otherwise invalid rank.
    pub fn register_client(&mut self, proc_: &ProcId, uid: u32) -> Result<()> {
        self.register_client_object(proc_, uid, 0)
    }

    /// [`ServerState::register_client`] with the host's opaque object for this client
    /// (a C host's `server_object`, handed back in its upcalls).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a wildcard or otherwise invalid rank.
    pub fn register_client_object(
        &mut self,
        proc_: &ProcId,
        uid: u32,
        object: usize,
    ) -> Result<()> {
        if proc_.rank >= sys::PMIX_RANK_VALID {
            return Err(Error::bad_param("register_client needs a real rank"));
        }
        let ns = self
            .nspaces
            .entry(proc_.nspace.clone())
            .or_insert_with(|| NsState {
                job: JobData {
                    nspace: proc_.nspace.clone(),
                    ..Default::default()
                },
                nlocal: 0,
                local: BTreeSet::new(),
                clients: HashMap::default(),
                data: HashMap::default(),
                gone: BTreeSet::new(),
                lost: BTreeSet::new(),
                dereg: BTreeSet::new(),
            });
        ns.clients.insert(proc_.rank, ClientReg { uid, object });
        ns.local.insert(proc_.rank);
        ns.gone.remove(&proc_.rank);
        ns.lost.remove(&proc_.rank);
        ns.dereg.remove(&proc_.rank);
        Ok(())
    }

    /// The local process count the host registered `nspace` with (`None`: not
    /// registered).
    pub fn nlocal(&self, nspace: &Nspace) -> Option<u32> {
        self.nspaces
            .get(nspace)
            .map(|ns| ns.nlocal.max(ns.local.len() as u32))
    }

    /// The host's object registered for a client (0 if none).
    pub fn client_object(&self, proc_: &ProcId) -> usize {
        self.nspaces
            .get(&proc_.nspace)
            .and_then(|ns| ns.clients.get(&proc_.rank))
            .map(|c| c.object)
            .unwrap_or(0)
    }

    /// Forget a client: the host says the process will not connect again (pmixrun says
    /// so when it has reaped the process). A process that finalized stays an expected
    /// participant of collectives while it may still `PMIx_Init` again (see
    /// `ServerState::ended`); from now on it is not, so every fence, connect or
    /// disconnect waiting for it fails with `PMIX_ERR_PROC_TERM_WO_SYNC`, and Gets
    /// waiting for its data get `PMIX_ERR_NOT_FOUND`. A client still connected keeps
    /// its connection; its close then counts as its end.
    ///
    /// A host may say the same of a process of another node (pmixrun's multi-node bench
    /// does when a process dies there): collectives here that include it fail as well,
    /// and Gets of its data keep waiting for the answer of its own node.
    pub fn deregister_client(&mut self, proc_: &ProcId, out: &mut Vec<Action>) {
        if proc_.rank >= sys::PMIX_RANK_VALID {
            return;
        }
        let local = self.is_local(proc_);
        let Some(ns) = self.nspaces.get_mut(&proc_.nspace) else {
            return;
        };
        ns.clients.remove(&proc_.rank);
        ns.dereg.insert(proc_.rank);
        if self.live(proc_) {
            return;
        }
        self.participant_ended(proc_, out);
        // A group construct waiting for it cannot complete either (for a process of
        // another node, this is how this server hears of it).
        self.group_member_gone(proc_, out);
        if local {
            self.target_gone(proc_, sys::PMIX_ERR_NOT_FOUND, out);
        }
    }

    /// True if `p` has a connection that has not sent `PMIx_Finalize`.
    pub(super) fn live(&self, p: &ProcId) -> bool {
        self.by_proc.get(p).is_some_and(|c| {
            matches!(
                self.conns.get(c),
                Some(ConnState::Client {
                    finalized: false,
                    ..
                })
            )
        })
    }

    /// True if a participant named by `p` (a rank, or with `PMIX_RANK_WILDCARD` any local
    /// rank of its namespace) will never arrive at a collective: it vanished without
    /// `PMIx_Finalize`, or it is not connected and the host deregistered it.
    ///
    /// A process that merely finalized is still expected, as in OpenPMIx: it may call
    /// `PMIx_Init` again and take part (a program cycling init/finalize, as MPI
    /// sessions do, would otherwise see its collectives fail whenever a peer is between
    /// its finalize and its next init).
    pub(super) fn ended(&self, p: &ProcId) -> bool {
        let Some(ns) = self.nspaces.get(&p.nspace) else {
            return false;
        };
        let dead = |r: Rank| {
            ns.lost.contains(&r)
                || (ns.dereg.contains(&r) && !self.live(&ProcId::new(p.nspace.clone(), r)))
        };
        if p.rank == sys::PMIX_RANK_WILDCARD {
            ns.lost.iter().chain(ns.dereg.iter()).any(|&r| dead(r))
        } else {
            dead(p.rank)
        }
    }

    /// If the local process `p` will publish nothing more, what a request for data it
    /// does not have is told: `PMIX_ERR_LOST_CONNECTION` if it vanished,
    /// `PMIX_ERR_NOT_FOUND` if it finalized and left (or was deregistered unconnected).
    pub(super) fn departed(&self, p: &ProcId) -> Option<i32> {
        let Some(ns) = self.nspaces.get(&p.nspace) else {
            return Some(sys::PMIX_ERR_NOT_FOUND);
        };
        if ns.lost.contains(&p.rank) {
            Some(sys::PMIX_ERR_LOST_CONNECTION)
        } else if ns.gone.contains(&p.rank) || (ns.dereg.contains(&p.rank) && !self.live(p)) {
            Some(sys::PMIX_ERR_NOT_FOUND)
        } else {
            None
        }
    }

    /// `p` will never arrive: the fences and connects that include it fail.
    pub(super) fn participant_ended(&mut self, p: &ProcId, out: &mut Vec<Action>) {
        self.shm_participant_ended(p);
        let keys: Vec<FenceKey> = self
            .fences
            .keys()
            .filter(|k| includes(&k.procs, p))
            .cloned()
            .collect();
        for k in keys {
            log::warn!(
                "server: fence over {:?} fails: participant {} ended",
                k.procs,
                p
            );
            self.fail_fence(&k, sys::PMIX_ERR_PROC_TERM_WO_SYNC, out);
        }
        self.connect_participant_gone(p, true, out);
        self.forget_invites_of(|leader| leader == p, out);
        self.monitor_cancel_for(p, None);
    }
}

/// True for a `PMIX_NODE_INFO_ARRAY` info (node data among the resources).
pub(super) fn is_node_array(i: &Info) -> bool {
    i.key.as_str() == keys::NODE_INFO_ARRAY
}
