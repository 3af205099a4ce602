use super::*;
use crate::shm::{Arrived, FenceArea, Outcome};
use std::sync::mpsc;

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
        if let Some(area) = self.shm_area(&procs, info) {
            match area.arrive() {
                Arrived::Complete => {
                    self.inner.shm.busy.store(false, Ordering::SeqCst);
                    self.inner.handle.post(move |_| cb(Ok(())))?;
                    return Ok(Started::Pending);
                }
                Arrived::Waiting(g) => {
                    self.shm_wait_nb(g, procs, info, cb)?;
                    return Ok(Started::Pending);
                }
                Arrived::Socket => self.inner.shm.busy.store(false, Ordering::SeqCst),
            }
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
        // This request follows our commits on the connection: the server has them
        // before the fence completes, so the next fence may be in shared memory.
        self.inner.shm.dirty.store(false, Ordering::SeqCst);
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
        if let Some(area) = self.shm_area(&procs, info) {
            let r = shm_fence_blocking(area, info);
            self.inner.shm.busy.store(false, Ordering::SeqCst);
            if let Some(r) = r {
                return r;
            }
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

/// A client's same-node fence state: the area its server handed it, if any (see
/// `crate::shm` and DESIGN.md, "Same-node fences in shared memory").
#[derive(Default)]
pub(super) struct ShmFence {
    area: OnceLock<FenceArea>,
    /// A fence of ours is in the area now: another one at the same time (from another
    /// thread, or a second `PMIx_Fence_nb`) goes to the socket, as it would arrive twice.
    pub(super) busy: AtomicBool,
    /// We committed data since our last fence request: the next fence goes to the socket
    /// (after the commit on the connection), so that the server has the data before any
    /// participant passes the fence; the socket fence sends the others there too.
    pub(super) dirty: AtomicBool,
    /// The thread that waits for `PMIx_Fence_nb`'s generations (started on first need).
    waiter: Mutex<Option<mpsc::Sender<NbWait>>>,
}

impl ShmFence {
    /// Our connection to the server closed: unless we finalized, our peers lost the
    /// same server, which can no longer tell the area of a participant that ends, so the
    /// area is turned off and whoever waits in it gets `PMIX_ERR_LOST_CONNECTION`.
    pub(super) fn server_lost(&self, finalized: bool) {
        if let (Some(a), false) = (self.area.get(), finalized) {
            a.disable(sys::PMIX_ERR_LOST_CONNECTION);
        }
    }

    /// `PMIx_Commit` sent data.
    pub(super) fn committed(&self) {
        self.dirty.store(true, Ordering::SeqCst);
    }
}

/// A `PMIx_Fence_nb` counted in generation `g` of the area, for the waiter thread.
struct NbWait {
    inner: Arc<Inner>,
    g: u32,
    deadline: Option<std::time::Instant>,
    procs: Vec<ProcId>,
    info: Vec<Info>,
    cb: Callback<()>,
}

impl Inner {
    /// Map the fence area our server handed us with the Welcome. A descriptor we cannot
    /// use only means our fences take the socket path.
    pub(super) fn attach_fence_area(&self, fd: &std::os::fd::OwnedFd) {
        let n = self
            .read()
            .jobs
            .get(&self.me.nspace)
            .and_then(|j| j.job_size())
            .unwrap_or(0);
        match FenceArea::attach(fd, n) {
            Ok(a) => {
                let _ = self.shm.area.set(a.for_rank(self.me.rank));
            }
            Err(e) => log::warn!("client {}: {}; fences take the socket path", self.me, e),
        }
    }
}

fn shm_fence_blocking(area: &FenceArea, info: &[Info]) -> Option<Result<()>> {
    let g = match area.arrive() {
        Arrived::Complete => return Some(Ok(())),
        Arrived::Waiting(g) => g,
        Arrived::Socket => return None,
    };
    let deadline = timeout_of(info).map(|d| std::time::Instant::now() + d);
    shm_result(area.wait(g, deadline))
}

fn shm_result(o: Outcome) -> Option<Result<()>> {
    match o {
        Outcome::Done => Some(Ok(())),
        Outcome::Failed(status) => Some(Err(Error::new(status, "fence failed"))),
        Outcome::Socket => None,
    }
}

impl Client {
    /// The fence area, if this fence may complete there: our whole namespace, no data
    /// to collect, no directive but `PMIX_TIMEOUT`, nothing committed since our last
    /// fence request, no other fence of ours in the area. Marks the area busy (the
    /// caller clears it when done).
    fn shm_area(&self, procs: &[ProcId], info: &[Info]) -> Option<&FenceArea> {
        let shm = &self.inner.shm;
        let area = shm.area.get()?;
        let me = &self.inner.me;
        let whole =
            matches!(procs, [p] if p.rank == sys::PMIX_RANK_WILDCARD && p.nspace == me.nspace);
        let plain = info.iter().all(|i| match i.key.as_str() {
            keys::TIMEOUT => true,
            keys::COLLECT_DATA => !i.value.is_true(),
            _ => false,
        });
        if !whole
            || !plain
            || shm.dirty.load(Ordering::SeqCst)
            || !self.inner.connected.load(Ordering::SeqCst)
            || shm.busy.swap(true, Ordering::SeqCst)
        {
            return None;
        }
        Some(area)
    }

    /// Hand a `PMIx_Fence_nb` counted in generation `g` to the waiter thread, which
    /// calls `cb` on the progress thread when the generation ends (or sends the fence to
    /// the server if the area sends it there).
    fn shm_wait_nb(
        &self,
        g: u32,
        procs: Vec<ProcId>,
        info: &[Info],
        cb: Callback<()>,
    ) -> Result<()> {
        let job = NbWait {
            inner: self.inner.clone(),
            g,
            deadline: timeout_of(info).map(|d| std::time::Instant::now() + d),
            procs,
            info: info.to_vec(),
            cb,
        };
        let mut w = lock(&self.inner.shm.waiter);
        let job = match w.as_ref() {
            Some(tx) => match tx.send(job) {
                Ok(()) => return Ok(()),
                Err(mpsc::SendError(job)) => job,
            },
            None => job,
        };
        let (tx, rx) = mpsc::channel::<NbWait>();
        std::thread::Builder::new()
            .name("pmix-shm-fence".into())
            .spawn(move || {
                // Ends when the client is dropped (its sender with it).
                while let Ok(j) = rx.recv() {
                    nb_wait(j);
                }
            })
            .map_err(|e| Error::new(sys::PMIX_ERR_OUT_OF_RESOURCE, e.to_string()))?;
        let _ = tx.send(job);
        *w = Some(tx);
        Ok(())
    }
}

/// Wait out one `PMIx_Fence_nb`'s generation (on the waiter thread).
fn nb_wait(j: NbWait) {
    let Some(area) = j.inner.shm.area.get() else {
        return;
    };
    let r = shm_result(area.wait(j.g, j.deadline));
    j.inner.shm.busy.store(false, Ordering::SeqCst);
    let cb = j.cb;
    match r {
        Some(r) => {
            let _ = j.inner.handle.post(move |_| cb(r));
        }
        None => {
            let c = Client {
                inner: j.inner.clone(),
            };
            // The callback is consumed by the request, or failed here if it cannot go.
            let slot = Arc::new(Mutex::new(Some(cb)));
            let s2 = slot.clone();
            let sent = c.fence_request(
                j.procs,
                &j.info,
                Box::new(move |r| {
                    if let Some(cb) = lock(&s2).take() {
                        cb(r)
                    }
                }),
            );
            if let Err(e) = sent {
                if let Some(cb) = lock(&slot).take() {
                    let _ = j.inner.handle.post(move |_| cb(Err(e)));
                }
            }
        }
    }
}
