//! A communications object for CUDA's `CUhostCommunicationsVtable` built on PMIx alone:
//! barriers and `u64` allreduces over one or more independent communicators of a set
//! of processes, non-blocking, with request handles that CUDA polls. `capi/src/cuda.rs`
//! puts the C vtable in front of this module; `docs/CUDA.md` shows a CUDA program's view.
//!
//! # Model
//! * An **object** is created collectively by every member of a process set (a namespace
//!   wildcard or an explicit list) with [`create`], and lives in a process-wide table
//!   under an [`ObjectId`] with a reference count ([`retain`]/[`release`]). C sees the id
//!   as its opaque `void *`, so a stale or garbage handle is an error, never a crash.
//! * A **communicator** is an index into the object (`0..size`, [`resize`] grows it). It
//!   holds nothing but a sequence number: no communication is needed to make one, so
//!   `resize` is trivially ordered with the operations of communicator 0.
//! * A **request** is an entry in the object's table under a [`RequestId`]; the progress
//!   thread fills it in, [`test()`]/[`test_any`] take it out when it is done.
//!
//! # Keeping communicators apart
//! PMIx fences are matched by their participant set only, and every communicator of an
//! object has the same participants. If two communicators were plain fences, a rank
//! issuing "comm 1, comm 2" and another issuing "comm 2, comm 1" would pair the wrong
//! operations. Each operation therefore carries a private tag,
//! `pmixrs.cuda.<object>.<communicator>.<sequence>`, in the [`protocol::FENCE_TAG`]
//! directive; our server matches fences on (participants, tag). The sequence number also
//! separates successive operations of one communicator, which may be outstanding at the
//! same time. `<object>` counts the objects this process created over the same set, which
//! every member counts alike because creation is collective. The alternatives were worse:
//! one distinct participant set per communicator does not exist (the members are the
//! members), and serialising all communicators through one ordered stream would make
//! them dependent, which is what CUDA asked us not to do.
//!
//! # Data path
//! * `barrier`: one tagged fence without data (`Client::fence_nb`), one round trip.
//! * `allreduce_uint64`: one tagged *allgather* (`Client::allgather_nb`): the
//!   contribution (`op`, count, values) travels with the fence request, the server
//!   answers every member with all contributions in the fence reply, and each member
//!   reduces them on the progress thread ([`reduce`]). That is one round trip, like a
//!   fence, with nothing left in the key-value store (a Put/Commit/Fence/Get scheme costs
//!   N extra Gets and keeps every contribution forever).
//!
//! # Failures
//! An operation fails when a member dies (the server fails every fence that names it
//! with `PMIX_ERR_PROC_TERM_WO_SYNC`, and later ones at once), when the server
//! connection is lost, or when the members disagree (different op or count). The first
//! failure is kept as the object's asynchronous error ([`async_error`]). An event about a
//! member's death (`PMIX_ERR_PROC_TERM_WO_SYNC`, `PMIX_PROC_TERMINATED`, aborts) or the
//! loss of the server sets it too, even when no operation is pending.
//!
//! # Threads
//! Completions run on the progress thread. They only take the request's own small lock
//! and store a flag; they never wait for anything. `test`, `test_any` and every other
//! call here never block either (short table locks only), except [`create`], which waits
//! for the other members like a fence.

pub mod reduce;

pub use reduce::ReduceOp;

use crate::client::{Client, Started};
use crate::error::{Error, Result};
use crate::protocol;
use crate::value::{Info, ProcId, Value};
use pmix_sys as sys;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, Weak};

/// The most communicators one object may have.
pub const MAX_COMMS: usize = 1 << 16;
/// The most elements one allreduce may carry (8 MiB per member).
pub const MAX_COUNT: usize = 1 << 20;

/// The handle of a communications object (never 0).
pub type ObjectId = u64;
/// The handle of an outstanding request (never 0, unique in the process).
pub type RequestId = u64;

/// A request that [`test()`] or [`test_any`] found complete (and removed).
#[derive(Debug)]
pub struct Finished {
    /// The allreduce's result (empty for a barrier), or why the operation failed.
    pub outcome: Result<Vec<u64>>,
    /// The opaque value the request was started with (the C layer's receive buffer).
    pub sink: usize,
}

/// One request: filled in once by the progress thread.
struct Slot {
    done: AtomicBool,
    outcome: Mutex<Option<Result<Vec<u64>>>>,
    sink: usize,
}

struct Object {
    id: ObjectId,
    client: Client,
    procs: Vec<ProcId>,
    serial: u64,
    /// Next sequence number of each communicator.
    comms: Mutex<Vec<u64>>,
    requests: Mutex<HashMap<RequestId, Arc<Slot>>>,
    /// First failure (a PMIx status), 0 while there is none.
    error: AtomicI32,
    handler: Mutex<Option<usize>>,
}

struct Entry {
    refs: usize,
    obj: Arc<Object>,
}

static OBJECTS: LazyLock<Mutex<HashMap<ObjectId, Entry>>> = LazyLock::new(Default::default);
/// Objects created so far per (server, creating process, process set): equal on every
/// member. (The server is part of the key only so that tests may run clients with the
/// same identity against several servers in one process.)
type SerialKey = (Option<ProcId>, ProcId, Vec<ProcId>);
static SERIALS: LazyLock<Mutex<HashMap<SerialKey, u64>>> = LazyLock::new(Default::default);
static NEXT_OBJECT: AtomicU64 = AtomicU64::new(1);
static NEXT_REQUEST: AtomicU64 = AtomicU64::new(1);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Events that mean a member (or the server) is gone.
#[allow(deprecated)]
const DEATH_EVENTS: [i32; 6] = [
    sys::PMIX_ERR_PROC_TERM_WO_SYNC,
    sys::PMIX_PROC_TERMINATED,
    sys::PMIX_EVENT_PROC_TERMINATED,
    sys::PMIX_ERR_PROC_ABORTED_BY_SIG,
    sys::PMIX_ERR_PROC_ABORTED,
    sys::PMIX_ERR_LOST_CONNECTION,
];

/// True if the two process descriptions can name the same process.
fn overlaps(procs: &[ProcId], p: &ProcId) -> bool {
    procs.iter().any(|q| {
        q.nspace == p.nspace
            && (q.rank == p.rank
                || q.rank == sys::PMIX_RANK_WILDCARD
                || p.rank == sys::PMIX_RANK_WILDCARD)
    })
}

fn tag_info(tag: String) -> Result<Vec<Info>> {
    Ok(vec![Info::new(protocol::FENCE_TAG, Value::string(&tag))?])
}

impl Object {
    fn fail(&self, status: i32) {
        let st = if status == sys::PMIX_SUCCESS {
            sys::PMIX_ERROR
        } else {
            status
        };
        let _ = self
            .error
            .compare_exchange(0, st, Ordering::AcqRel, Ordering::Acquire);
    }

    /// Does this event say that a member, or our server, is gone?
    fn concerns(&self, status: i32, source: &ProcId, info: &[Info]) -> bool {
        if status == sys::PMIX_ERR_LOST_CONNECTION {
            return true;
        }
        let me = self.client.proc_id();
        let mut affected = vec![source.clone()];
        for i in info {
            match (i.key.as_str(), &i.value) {
                (crate::store::keys::EVENT_AFFECTED_PROC, Value::Proc(Some(p))) => {
                    affected.push(p.clone())
                }
                (sys::attrs::keys::PMIX_EVENT_AFFECTED_PROCS, Value::DataArray(a)) => {
                    for v in &a.items {
                        if let Value::Proc(Some(p)) = v {
                            affected.push(p.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        affected.iter().any(|p| p != me && overlaps(&self.procs, p))
    }

    /// The tag of the next operation on `comm`.
    fn next_tag(&self, comm: usize) -> Result<String> {
        let mut comms = lock(&self.comms);
        let size = comms.len();
        let seq = comms.get_mut(comm).ok_or_else(|| {
            Error::bad_param(format!(
                "communicator {} does not exist (the object has {})",
                comm, size
            ))
        })?;
        let s = *seq;
        *seq += 1;
        Ok(format!("pmixrs.cuda.{}.{}.{}", self.serial, comm, s))
    }

    fn start(&self, sink: usize) -> (RequestId, Arc<Slot>) {
        let id = NEXT_REQUEST.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot {
            done: AtomicBool::new(false),
            outcome: Mutex::new(None),
            sink,
        });
        lock(&self.requests).insert(id, slot.clone());
        (id, slot)
    }

    /// Record an operation's outcome (progress thread; never blocks beyond the slot's
    /// own lock, which `test` holds only to take the outcome).
    fn finish(&self, slot: &Slot, outcome: Result<Vec<u64>>) {
        if let Err(e) = &outcome {
            log::debug!("CUDA comms object {}: operation failed: {}", self.id, e);
            self.fail(e.status);
        }
        *lock(&slot.outcome) = Some(outcome);
        slot.done.store(true, Ordering::Release);
    }

    /// An operation could not even be started.
    fn abandon(&self, id: RequestId, e: &Error) {
        lock(&self.requests).remove(&id);
        self.fail(e.status);
    }
}

impl Drop for Object {
    fn drop(&mut self) {
        if let Some(h) = lock(&self.handler).take() {
            let _ = self.client.deregister_event_handler(h);
        }
        log::debug!("CUDA comms object {} freed", self.id);
    }
}

fn object(id: ObjectId) -> Result<Arc<Object>> {
    lock(&OBJECTS)
        .get(&id)
        .map(|e| e.obj.clone())
        .ok_or_else(|| Error::bad_param(format!("no CUDA communications object {:#x}", id)))
}

/// Create an object over `procs` (empty: our namespace) with one communicator and one
/// reference. Collective: every member calls it with the same description of the set,
/// in the same order relative to its other creations over that set; it returns when all
/// have (a tagged fence).
///
/// # Errors
/// `PMIX_ERR_NOT_A_MEMBER` if we are not in `procs`; the fence's error
/// (`PMIX_ERR_PROC_TERM_WO_SYNC`, `PMIX_ERR_UNREACH`, `PMIX_ERR_WOULD_BLOCK` on the
/// progress thread, ...).
pub fn create(client: &Client, procs: Vec<ProcId>) -> Result<ObjectId> {
    let me = client.proc_id().clone();
    let mut procs = if procs.is_empty() {
        vec![ProcId::new(me.nspace.clone(), sys::PMIX_RANK_WILDCARD)]
    } else {
        procs
    };
    procs.sort();
    procs.dedup();
    if !crate::value::includes(&procs, &me) {
        return Err(Error::new(
            sys::PMIX_ERR_NOT_A_MEMBER,
            format!("{} is not a member of the CUDA communications object", me),
        ));
    }
    let serial = {
        let mut m = lock(&SERIALS);
        let key = (client.server_id().cloned(), me.clone(), procs.clone());
        let n = m.entry(key).or_insert(0);
        *n += 1;
        *n
    };
    client.fence(
        procs.clone(),
        &tag_info(format!("pmixrs.cuda.{}.create", serial))?,
    )?;
    let id = NEXT_OBJECT.fetch_add(1, Ordering::Relaxed);
    let obj = Arc::new(Object {
        id,
        client: client.clone(),
        procs,
        serial,
        comms: Mutex::new(vec![0]),
        requests: Mutex::new(HashMap::new()),
        error: AtomicI32::new(0),
        handler: Mutex::new(None),
    });
    let weak: Weak<Object> = Arc::downgrade(&obj);
    let h = client.register_event_handler(
        DEATH_EVENTS.to_vec(),
        Arc::new(move |ev| {
            if let Some(o) = weak.upgrade() {
                if o.concerns(ev.status, &ev.source, &ev.info) {
                    log::debug!(
                        "CUDA comms object {}: event {} from {}",
                        o.id,
                        ev.status,
                        ev.source
                    );
                    o.fail(ev.status);
                }
            }
        }),
    );
    *lock(&obj.handler) = Some(h);
    lock(&OBJECTS).insert(id, Entry { refs: 1, obj });
    Ok(id)
}

/// Add a reference.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object.
pub fn retain(id: ObjectId) -> Result<()> {
    match lock(&OBJECTS).get_mut(&id) {
        Some(e) => {
            e.refs += 1;
            Ok(())
        }
        None => Err(Error::bad_param(format!(
            "retain of unknown CUDA communications object {:#x}",
            id
        ))),
    }
}

/// Drop a reference. At zero the handle is gone; the object itself is freed once its
/// outstanding operations have completed (their results are discarded).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object.
pub fn release(id: ObjectId) -> Result<()> {
    let last = {
        let mut t = lock(&OBJECTS);
        let Some(e) = t.get_mut(&id) else {
            return Err(Error::bad_param(format!(
                "release of unknown CUDA communications object {:#x}",
                id
            )));
        };
        e.refs -= 1;
        if e.refs > 0 {
            return Ok(());
        }
        t.remove(&id)
    };
    drop(last); // outside the table lock
    Ok(())
}

/// Grow the object to at least `size` communicators (never shrinks; idempotent). Needs
/// no communication, so it is ordered with communicator 0's operations by construction.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object; `PMIX_ERR_OUT_OF_RESOURCE` above
/// [`MAX_COMMS`].
pub fn resize(id: ObjectId, size: usize) -> Result<()> {
    let obj = object(id)?;
    if size > MAX_COMMS {
        return Err(Error::new(
            sys::PMIX_ERR_OUT_OF_RESOURCE,
            format!("{} communicators requested, at most {}", size, MAX_COMMS),
        ));
    }
    let mut comms = lock(&obj.comms);
    if comms.len() < size {
        comms.resize(size, 0);
    }
    Ok(())
}

/// The number of communicators.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object.
pub fn size(id: ObjectId) -> Result<usize> {
    Ok(lock(&object(id)?.comms).len())
}

/// An identifier of communicator `comm`: distinct for every communicator of every
/// object of this process, stable for the object's life.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object or communicator.
pub fn comm_id(id: ObjectId, comm: usize) -> Result<u64> {
    let obj = object(id)?;
    if comm >= lock(&obj.comms).len() {
        return Err(Error::bad_param(format!(
            "communicator {} does not exist",
            comm
        )));
    }
    Ok((id << 32) | comm as u64)
}

/// Start a barrier on `comm`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object or communicator; the server connection's
/// error if the request cannot be sent (the object's asynchronous error is set then).
pub fn barrier(id: ObjectId, comm: usize) -> Result<RequestId> {
    let obj = object(id)?;
    let info = tag_info(obj.next_tag(comm)?)?;
    let (rid, slot) = obj.start(0);
    let (o2, s2) = (obj.clone(), slot.clone());
    let r = obj.client.fence_nb(
        obj.procs.clone(),
        &info,
        Box::new(move |r| o2.finish(&s2, r.map(|()| Vec::new()))),
    );
    match r {
        Ok(Started::Pending) => Ok(rid),
        Ok(Started::Done) => {
            obj.finish(&slot, Ok(Vec::new()));
            Ok(rid)
        }
        Err(e) => {
            obj.abandon(rid, &e);
            Err(e)
        }
    }
}

/// Start an allreduce of `values` with `op` on `comm`. `sink` is handed back in
/// [`Finished`] (the C layer keeps its receive buffer there).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object or communicator;
/// `PMIX_ERR_OUT_OF_RESOURCE` for more than [`MAX_COUNT`] values; the server
/// connection's error as for [`barrier`].
pub fn allreduce(
    id: ObjectId,
    comm: usize,
    values: &[u64],
    op: ReduceOp,
    sink: usize,
) -> Result<RequestId> {
    let obj = object(id)?;
    if values.len() > MAX_COUNT {
        return Err(Error::new(
            sys::PMIX_ERR_OUT_OF_RESOURCE,
            format!(
                "allreduce of {} values, at most {}",
                values.len(),
                MAX_COUNT
            ),
        ));
    }
    let info = tag_info(obj.next_tag(comm)?)?;
    let count = values.len();
    let (rid, slot) = obj.start(sink);
    let o2 = obj.clone();
    let r = obj.client.allgather_nb(
        obj.procs.clone(),
        &info,
        reduce::encode(op, values),
        Box::new(move |r| {
            o2.finish(&slot, r.and_then(|all| reduce::combine(op, count, &all)));
        }),
    );
    match r {
        Ok(_) => Ok(rid),
        Err(e) => {
            obj.abandon(rid, &e);
            Err(e)
        }
    }
}

/// If request `req` is complete, remove it and return its outcome.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object or a request that is not outstanding on it.
pub fn test(id: ObjectId, req: RequestId) -> Result<Option<Finished>> {
    let obj = object(id)?;
    let mut reqs = lock(&obj.requests);
    let slot = reqs.get(&req).ok_or_else(|| {
        Error::bad_param(format!(
            "request {:#x} is not outstanding on object {:#x}",
            req, id
        ))
    })?;
    if !slot.done.load(Ordering::Acquire) {
        return Ok(None);
    }
    let Some(slot) = reqs.remove(&req) else {
        return Ok(None);
    };
    drop(reqs);
    Ok(Some(take(&slot)))
}

fn take(slot: &Slot) -> Finished {
    let outcome = lock(&slot.outcome)
        .take()
        .unwrap_or_else(|| Err(Error::new(sys::PMIX_ERROR, "request completed twice")));
    Finished {
        outcome,
        sink: slot.sink,
    }
}

/// The first complete request among `reqs` (`None` entries are skipped): its index and
/// outcome, after removing it; `None` if none is complete.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object or a request that is not outstanding on it
/// (nothing is removed then).
pub fn test_any(id: ObjectId, reqs: &[Option<RequestId>]) -> Result<Option<(usize, Finished)>> {
    let obj = object(id)?;
    let mut table = lock(&obj.requests);
    let mut first = None;
    for (i, r) in reqs.iter().enumerate() {
        let Some(r) = r else { continue };
        let slot = table.get(r).ok_or_else(|| {
            Error::bad_param(format!(
                "request {:#x} (index {}) is not outstanding on object {:#x}",
                r, i, id
            ))
        })?;
        if first.is_none() && slot.done.load(Ordering::Acquire) {
            first = Some((i, *r));
        }
    }
    let Some((i, r)) = first else {
        return Ok(None);
    };
    let Some(slot) = table.remove(&r) else {
        return Ok(None);
    };
    drop(table);
    Ok(Some((i, take(&slot))))
}

/// The object's asynchronous error: 0, or the PMIx status of the first failure (an
/// operation failed, a member died, or the server connection was lost).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an unknown object.
pub fn async_error(id: ObjectId) -> Result<i32> {
    Ok(object(id)?.error.load(Ordering::Acquire))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Nspace;

    fn p(r: u32) -> ProcId {
        ProcId::new(Nspace::new("ns").unwrap(), r)
    }

    #[test]
    fn overlap_handles_wildcards_both_ways() {
        let wild = p(sys::PMIX_RANK_WILDCARD);
        assert!(overlaps(&[p(0), p(1)], &p(1)));
        assert!(!overlaps(&[p(0), p(1)], &p(2)));
        assert!(overlaps(std::slice::from_ref(&wild), &p(7)));
        assert!(overlaps(&[p(0)], &wild));
        let other = ProcId::new(Nspace::new("other").unwrap(), 0);
        assert!(!overlaps(&[wild], &other));
    }

    #[test]
    fn release_to_zero_frees_after_the_outstanding_completion() {
        let c = Client::connect(crate::client::ClientConfig::default()).unwrap();
        let id = create(&c, vec![]).unwrap();
        let obj = object(id).unwrap();
        let weak = Arc::downgrade(&obj);
        // What a pending operation's completion holds.
        let (rid, slot) = obj.start(0);
        let pending: Box<dyn FnOnce()> = {
            let o = obj.clone();
            Box::new(move || o.finish(&slot, Ok(vec![])))
        };
        drop(obj);
        retain(id).unwrap();
        release(id).unwrap();
        assert!(
            test(id, rid).unwrap().is_none(),
            "still usable with a reference"
        );
        release(id).unwrap();
        assert!(object(id).is_err(), "the handle is gone at zero");
        assert!(
            weak.upgrade().is_some(),
            "alive while an operation is outstanding"
        );
        pending();
        assert!(weak.upgrade().is_none(), "freed after its last operation");
        c.finalize().unwrap();
    }

    #[test]
    fn unknown_handles_are_errors_not_crashes() {
        let bogus = u64::MAX - 3;
        for r in [
            retain(bogus),
            release(bogus),
            resize(bogus, 2),
            barrier(bogus, 0).map(|_| ()),
            allreduce(bogus, 0, &[1], ReduceOp::Sum, 0).map(|_| ()),
            test(bogus, 1).map(|_| ()),
            test_any(bogus, &[Some(1)]).map(|_| ()),
            async_error(bogus).map(|_| ()),
            comm_id(bogus, 0).map(|_| ()),
        ] {
            assert_eq!(r.unwrap_err().status, sys::PMIX_ERR_BAD_PARAM);
        }
    }
}
