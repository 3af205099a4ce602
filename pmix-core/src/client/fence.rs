use super::*;

impl Client {
    // ------------------------------------------------------------ fence

    pub(super) fn fence_args(&self, procs: Vec<ProcId>) -> Result<Vec<ProcId>> {
        // A group name stands for its members.
        let procs = self.expand_group_procs(procs);
        let procs = if procs.is_empty() {
            vec![ProcId::new(
                self.inner.me.nspace.clone(),
                sys::PMIX_RANK_WILDCARD,
            )]
        } else {
            procs
        };
        if !state_includes(&procs, &self.inner.me) {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_A_MEMBER,
                format!("{} is not among the fence participants", self.inner.me),
            ));
        }
        Ok(procs)
    }

    /// True if the fence names only us, explicitly (`{self}`): nobody else can arrive and
    /// our committed data is already at our server, so it is satisfied at once.
    ///
    /// # Implementation notes
    /// Our namespace's wildcard in a job of one is not treated so, although it could be:
    /// Open MPI 4.1.4 calls `PMIx_Fence_nb(NULL procs, ...)` in `MPI_Init` and takes any
    /// return other than `PMIX_SUCCESS` as a failure, so a job of one (and an MPI
    /// singleton, which runs under its own orted) would not start. That fence goes to the
    /// server and completes through the callback, as with OpenPMIx.
    pub(super) fn sole_participant(&self, procs: &[ProcId]) -> bool {
        if !self.inner.connected.load(Ordering::SeqCst) {
            return false; // the request fails with PMIX_ERR_UNREACH, as any other
        }
        let me = &self.inner.me;
        !procs.is_empty() && procs.iter().all(|p| p == me)
    }

    /// `PMIx_Fence_nb`. An empty `procs` means our whole namespace.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_A_MEMBER` if we are not a participant; `PMIX_ERR_UNREACH` if the
    /// server is gone. A fence satisfied at once (a singleton, or `procs` names only us)
    /// returns `Ok(Started::Done)` and `cb` is not called.
    pub fn fence_nb(&self, procs: Vec<ProcId>, info: &[Info], cb: Callback<()>) -> Result<Started> {
        reactor::check_serviceable("PMIx_Fence_nb")?;
        let procs = self.fence_args(procs)?;
        if self.is_singleton() || self.sole_participant(&procs) {
            return Ok(Started::Done);
        }
        self.fence_request(procs, info, cb)?;
        Ok(Started::Pending)
    }

    /// Send a fence request for `procs` (checked); `cb` runs with the reply. Returns the
    /// request's tag.
    pub(super) fn fence_request(
        &self,
        procs: Vec<ProcId>,
        info: &[Info],
        cb: Callback<()>,
    ) -> Result<u32> {
        let req = Req::Fence {
            procs,
            collect: flag(info, keys::COLLECT_DATA),
            timeout_ms: timeout_of(info)
                .map(|d| d.as_millis().min(u32::MAX as u128) as u32)
                .unwrap_or(0),
            info: info.to_vec(),
        };
        let inner = self.inner.clone();
        self.request_tagged(
            req,
            Box::new(move |status, data| {
                if let ReplyData::Collected(payload) = data {
                    match protocol::collected_index(&payload) {
                        Ok((reset, index)) => {
                            let payload = Arc::new(payload);
                            let mut d = inner.write();
                            if reset {
                                d.collected.clear();
                            }
                            for cp in index {
                                if cp.proc_ == inner.me {
                                    continue;
                                }
                                // One layer is the rule: room for one, not the four a
                                // first push reserves (a 4,096-rank job has 4,095 peers).
                                let layers = d
                                    .collected
                                    .entry(cp.proc_.clone())
                                    .or_insert_with(|| Vec::with_capacity(1));
                                if layers.len() >= COLLECTED_LAYERS {
                                    layers.remove(0);
                                }
                                layers.push(Collected {
                                    payload: payload.clone(),
                                    at: cp,
                                });
                            }
                        }
                        Err(e) => {
                            // Whatever we held may be outdated now: fetch on first access.
                            log::warn!("client: malformed collected data ignored: {}", e);
                            inner.write().collected.clear();
                        }
                    }
                }
                cb(if status == sys::PMIX_SUCCESS {
                    Ok(())
                } else {
                    Err(Error::new(status, "fence failed"))
                })
            }),
        )
    }

    /// `PMIx_Fence` (blocking).
    ///
    /// # Errors
    /// As [`Client::fence_nb`], plus `PMIX_ERR_WOULD_BLOCK` on the progress thread and
    /// `PMIX_ERR_TIMEOUT` after `PMIX_TIMEOUT`.
    pub fn fence(&self, procs: Vec<ProcId>, info: &[Info]) -> Result<()> {
        self.fence_as("PMIx_Fence", procs, info)
    }

    /// [`Client::fence`] on behalf of the C call `call` (`PMIx_Fence`, or `PMIx_Fence_nb`
    /// given no callback), which the diagnostics name.
    ///
    /// # Errors
    /// As [`Client::fence`].
    pub fn fence_as(&self, call: &'static str, procs: Vec<ProcId>, info: &[Info]) -> Result<()> {
        reactor::check_serviceable(call)?;
        reactor::would_block(call)?;
        let procs = self.fence_args(procs)?;
        if self.is_singleton() || self.sole_participant(&procs) {
            return Ok(());
        }
        // The server's timer ends a fence with PMIX_TIMEOUT for every participant; our own
        // bound, a little later, only guards against a server that never answers.
        let bound = collective_bound(info);
        self.wait_reply(call, bound, |done| {
            self.fence_request(procs, info, Box::new(move |r| done.complete(r)))
                .map(Some)
        })
    }
}
