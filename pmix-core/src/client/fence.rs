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
        if let Some((area, data)) = self.shm_area(&procs, info) {
            let collect = data.is_some();
            let arrived = shm_arrive(area, data.as_deref());
            self.inner.shm.recycle(data);
            match arrived {
                Arrived::Complete(g) => {
                    self.inner.shm.passed(g, collect);
                    self.inner.shm.busy.store(false, Ordering::SeqCst);
                    self.inner.handle.post(move |_| cb(Ok(())))?;
                    return Ok(Started::Pending);
                }
                Arrived::Waiting(g) => {
                    self.shm_wait_nb(g, collect, procs, info, cb)?;
                    return Ok(Started::Pending);
                }
                Arrived::Mismatch => {
                    self.inner.shm.busy.store(false, Ordering::SeqCst);
                    let e = mismatch(&self.inner.me);
                    self.inner.handle.post(move |_| cb(Err(e)))?;
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
        // This request follows our commits on the connection: the server has them, and
        // has sent the Forgets of the keys they deleted, before the fence completes.
        self.inner.shm.deleted.store(false, Ordering::SeqCst);
        let collect = flag(info, keys::COLLECT_DATA);
        let req = Req::Fence {
            procs,
            collect,
            timeout_ms: timeout_of(info)
                .map(|d| d.as_millis().min(u32::MAX as u128) as u32)
                .unwrap_or(0),
            info: info.to_vec(),
        };
        let inner = self.inner.clone();
        self.request_tagged(
            req,
            Box::new(move |status, data| {
                if collect && status == sys::PMIX_SUCCESS {
                    // What the area last collected is older than this reply.
                    inner.shm.view.store(0, Ordering::SeqCst);
                }
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
        if let Some((area, data)) = self.shm_area(&procs, info) {
            let r = self.shm_fence_blocking(area, data.as_deref(), info);
            self.inner.shm.recycle(data);
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
    /// A commit since our last fence request deleted keys (`PMIX_DEL_*`): the next
    /// fence goes to the socket, where the server's `Forget` of each deleted key reaches
    /// the peers that read it before their fence completes (the area's fence does not
    /// wait for commits to reach the server, and a peer's cached value of a deleted key
    /// would outlive it). Other commits need no such care: each is counted in the area
    /// before it is sent, and the server holds a Get of our data until it has read
    /// every commit we counted (`ServerState::shm_commit_in_flight`).
    deleted: AtomicBool,
    /// The thread that waits for `PMIx_Fence_nb`'s generations (started on first need).
    waiter: Mutex<Option<mpsc::Sender<NbWait>>>,
    /// 1 + the generation of the last collecting fence we passed in the area, whose
    /// buffers hold every rank's data as it was then (0: none, or a collecting fence on
    /// the socket path came after it). Lookups read peers' data there, in place.
    pub(super) view: AtomicU64,
    /// The buffers our data for a collecting fence in the area is encoded in (kept, so
    /// that a fence does not allocate them again).
    scratch: Mutex<(Vec<u8>, Vec<u32>)>,
    /// Keys the server said one of the area's ranks no longer has (`ServerMsg::Forget`),
    /// each with the area's generation when the notice came: a collecting fence of a
    /// later generation was entered after the deletion (the peer wrote its data
    /// without the key), one of that generation or before may still carry the key.
    /// One entry per rank and key.
    forgotten: Mutex<Vec<(ProcId, Key, u32)>>,
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

    /// `PMIx_Commit` is about to send data (`deletes`: some of it deletes keys).
    pub(super) fn committed(&self, deletes: bool) {
        if deletes {
            self.deleted.store(true, Ordering::SeqCst);
        }
        if let Some(a) = self.area.get() {
            a.commit_sent();
        }
    }

    /// Keep the buffer a collecting fence's data was encoded in for the next one.
    fn recycle(&self, data: Option<Vec<u8>>) {
        if let Some(d) = data {
            lock(&self.scratch).0 = d;
        }
    }

    /// We passed generation `g` of the area, a collecting fence if `collect`. Deletions
    /// noticed before `g` began are in its data (the keys are absent there); those
    /// noticed since may not be, and stay.
    fn passed(&self, g: u32, collect: bool) {
        if collect {
            // Generations wrap: "noticed before g" is a positive distance to g.
            lock(&self.forgotten).retain(|&(_, _, at)| (g.wrapping_sub(at) as i32) <= 0);
            self.view.store(g as u64 + 1, Ordering::SeqCst);
        }
    }

    /// `ServerMsg::Forget`: `proc_` (in `me`'s namespace, of which this client is) no
    /// longer has `key`. Kept only for the area's ranks, whose data the area may show;
    /// kept whether or not we passed a collecting fence there yet (one under way may
    /// still carry the key).
    pub(super) fn forgot(&self, me: &ProcId, proc_: &ProcId, key: &Key) {
        let Some(area) = self.area.get() else {
            return;
        };
        if proc_.nspace != me.nspace || proc_.rank >= area.participants() {
            return;
        }
        let at = area.generation();
        let mut f = lock(&self.forgotten);
        match f.iter_mut().find(|(p, k, _)| p == proc_ && k == key) {
            Some(e) => e.2 = at,
            None => f.push((proc_.clone(), key.clone(), at)),
        }
    }

    /// `target`'s value of `key` as the last collecting fence in the area collected it:
    /// `None` if that is not where to look (no such fence since the last collecting
    /// fence on the socket, or `target` is not one of the area's ranks), `Some(None)` if
    /// it had no such key then (or its buffer no longer holds that fence's data).
    pub(super) fn find(&self, me: &ProcId, target: &ProcId, key: &str) -> Option<Option<Value>> {
        let area = self.area.get()?;
        let g = self.view.load(Ordering::SeqCst).checked_sub(1)? as u32;
        if target.nspace != me.nspace || target.rank >= area.participants() {
            return None;
        }
        let gone = |f: &Vec<(ProcId, Key, u32)>| {
            f.iter().any(|(p, k, _)| p == target && k.as_str() == key)
        };
        if gone(&lock(&self.forgotten)) {
            return Some(None);
        }
        let Some(bytes) = area.read_data(target.rank, g) else {
            return Some(None);
        };
        let found = protocol::collected_section_proc(&bytes, target.clone())
            .and_then(|at| protocol::collected_find(&bytes, &at, key));
        Some(found.unwrap_or_else(|e| {
            log::warn!(
                "client: {}'s data in the fence area unreadable: {}",
                target,
                e
            );
            None
        }))
    }
}

fn mismatch(me: &ProcId) -> Error {
    log::warn!(
        "client {}: a fence with a different PMIX_COLLECT_DATA than the others' is under way",
        me
    );
    Error::new(
        sys::PMIX_ERR_BAD_PARAM,
        "fence description differs from the other participants'",
    )
}

/// Arrive in the area, with our data for a collecting fence.
fn shm_arrive(area: &FenceArea, data: Option<&[u8]>) -> Arrived {
    match data {
        Some(d) => area.arrive_collecting(d),
        None => area.arrive(),
    }
}

/// A `PMIx_Fence_nb` counted in generation `g` of the area, for the waiter thread.
struct NbWait {
    inner: Arc<Inner>,
    g: u32,
    collect: bool,
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

impl Client {
    fn shm_fence_blocking(
        &self,
        area: &FenceArea,
        data: Option<&[u8]>,
        info: &[Info],
    ) -> Option<Result<()>> {
        let shm = &self.inner.shm;
        let g = match shm_arrive(area, data) {
            Arrived::Complete(g) => {
                shm.passed(g, data.is_some());
                return Some(Ok(()));
            }
            Arrived::Waiting(g) => g,
            Arrived::Mismatch => return Some(Err(mismatch(&self.inner.me))),
            Arrived::Socket => return None,
        };
        let deadline = timeout_of(info).map(|d| std::time::Instant::now() + d);
        let o = area.wait(g, deadline);
        if o == Outcome::Done {
            shm.passed(g, data.is_some());
        }
        shm_result(o)
    }
}

fn shm_result(o: Outcome) -> Option<Result<()>> {
    match o {
        Outcome::Done => Some(Ok(())),
        Outcome::Failed(status) => Some(Err(Error::new(status, "fence failed"))),
        Outcome::Socket => None,
    }
}

impl Client {
    /// The fence area, if this fence may complete there: our whole namespace, no
    /// directive but `PMIX_TIMEOUT` and `PMIX_COLLECT_DATA`, no other fence of ours in
    /// the area, no key deleted since our last fence request; with data, nothing put
    /// since our last commit, and our data within the area's room (returned, to bring
    /// along). Marks the area busy (the caller clears it when done).
    fn shm_area(&self, procs: &[ProcId], info: &[Info]) -> Option<(&FenceArea, Option<Vec<u8>>)> {
        let shm = &self.inner.shm;
        let area = shm.area.get()?;
        let me = &self.inner.me;
        let whole =
            matches!(procs, [p] if p.rank == sys::PMIX_RANK_WILDCARD && p.nspace == me.nspace);
        let plain = info
            .iter()
            .all(|i| matches!(i.key.as_str(), keys::TIMEOUT | keys::COLLECT_DATA));
        let collect = flag(info, keys::COLLECT_DATA);
        if !whole
            || !plain
            || shm.deleted.load(Ordering::SeqCst)
            || !self.inner.connected.load(Ordering::SeqCst)
        {
            return None;
        }
        let data = match collect {
            true => Some(self.shm_snapshot(area.capacity())?),
            false => None,
        };
        if shm.busy.swap(true, Ordering::SeqCst) {
            shm.recycle(data);
            return None;
        }
        Some((area, data))
    }

    /// What we committed, as peers on this node see it (LOCAL and GLOBAL entries), for a
    /// collecting fence in the area; `None` if something put is not committed yet (the
    /// area would carry it early), or it exceeds `room` bytes.
    fn shm_snapshot(&self, room: usize) -> Option<Vec<u8>> {
        use crate::store::{scope_visible, Reader};
        let d = self.inner.read();
        if !d.staged.is_empty() || room == 0 {
            return None;
        }
        let entries = d
            .own
            .map
            .iter()
            .filter(|(_, e)| scope_visible(e.scope, Reader::Local))
            .map(|(k, e)| (k, &e.value));
        let mut scratch = lock(&self.inner.shm.scratch);
        let (bytes, offsets) = &mut *scratch;
        protocol::collected_section_into(entries, bytes, offsets);
        (bytes.len() <= room).then(|| std::mem::take(bytes))
    }

    /// Hand a `PMIx_Fence_nb` counted in generation `g` to the waiter thread, which
    /// calls `cb` on the progress thread when the generation ends (or sends the fence to
    /// the server if the area sends it there).
    fn shm_wait_nb(
        &self,
        g: u32,
        collect: bool,
        procs: Vec<ProcId>,
        info: &[Info],
        cb: Callback<()>,
    ) -> Result<()> {
        let job = NbWait {
            inner: self.inner.clone(),
            g,
            collect,
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
    let o = area.wait(j.g, j.deadline);
    if o == Outcome::Done {
        j.inner.shm.passed(j.g, j.collect);
    }
    let r = shm_result(o);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Rank 1's fence state in an area of two ranks of `ns`, and rank 0's view of the area.
    fn two_ranks() -> (ShmFence, FenceArea, ProcId, ProcId) {
        let (_server, fd) = FenceArea::create(2, 512).unwrap();
        let shm = ShmFence::default();
        let _ = shm.area.set(FenceArea::attach(&fd, 2).unwrap().for_rank(1));
        let r0 = FenceArea::attach(&fd, 2).unwrap().for_rank(0);
        let ns = Nspace::new("ns").unwrap();
        (shm, r0, ProcId::new(ns.clone(), 0), ProcId::new(ns, 1))
    }

    fn data(keys: &[&str]) -> Vec<u8> {
        let kv: Vec<(Key, Value)> = keys
            .iter()
            .map(|k| (Key::new(*k).unwrap(), Value::Uint32(7)))
            .collect();
        protocol::collected_section(kv.iter().map(|(k, v)| (k, v)))
    }

    /// Rank 1 takes part in one collecting fence, rank 0 having arrived with `r0_data`
    /// first; `between` runs while rank 0 waits (before rank 1 arrives).
    fn collect(shm: &ShmFence, r0: &FenceArea, r0_data: &[u8], between: impl FnOnce()) {
        let Arrived::Waiting(g) = r0.arrive_collecting(r0_data) else {
            panic!("rank 0 alone completed a fence of two")
        };
        between();
        let mine = data(&[]);
        assert_eq!(
            shm.area.get().unwrap().arrive_collecting(&mine),
            Arrived::Complete(g)
        );
        shm.passed(g, true);
    }

    #[test]
    fn a_key_deleted_while_a_collecting_fence_is_under_way_stays_deleted() {
        let (shm, r0, p0, p1) = two_ranks();
        let k = |s: &str| Key::new(s).unwrap();
        // First collecting fence: rank 0 brings key "a", deletes it while rank 1 has not
        // arrived yet (its data in the area still has it); the server's Forget comes
        // before rank 1 passes. Rank 1 must not read "a" from the area afterwards.
        collect(&shm, &r0, &data(&["a", "b"]), || {
            shm.forgot(&p1, &p0, &k("a"))
        });
        assert_eq!(
            shm.find(&p1, &p0, "a"),
            Some(None),
            "a deleted key read from the area"
        );
        assert_eq!(shm.find(&p1, &p0, "b"), Some(Some(Value::Uint32(7))));
        // The same again with a view in place (a collecting fence passed before).
        collect(&shm, &r0, &data(&["b"]), || shm.forgot(&p1, &p0, &k("b")));
        assert_eq!(
            shm.find(&p1, &p0, "b"),
            Some(None),
            "a deleted key read from the area"
        );
        // Rank 0 puts "a" and "b" again: the next collecting fence, entered after the
        // deletions were noticed, shows them.
        collect(&shm, &r0, &data(&["a", "b"]), || {});
        assert_eq!(shm.find(&p1, &p0, "a"), Some(Some(Value::Uint32(7))));
        assert_eq!(shm.find(&p1, &p0, "b"), Some(Some(Value::Uint32(7))));
        assert!(lock(&shm.forgotten).is_empty());
        // Notices about other namespaces' ranks, or ranks beyond the area, are not kept;
        // a key deleted twice is kept once.
        let other = ProcId::new(Nspace::new("other").unwrap(), 0);
        shm.forgot(&p1, &other, &k("a"));
        shm.forgot(&p1, &ProcId::new(p0.nspace.clone(), 2), &k("a"));
        shm.forgot(&p1, &p0, &k("a"));
        shm.forgot(&p1, &p0, &k("a"));
        assert_eq!(lock(&shm.forgotten).len(), 1);
        assert_eq!(shm.find(&p1, &p0, "a"), Some(None));
    }
}
