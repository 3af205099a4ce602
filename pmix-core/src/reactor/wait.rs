//! The one wait helper ([`wait`], [`prepare`]) and the one decision "this call would
//! block the progress thread" ([`would_block`]) that every blocking entry point goes
//! through, with its diagnostic.

use super::on_progress_thread;
use crate::error::{Error, Result};
use pmix_sys as sys;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The call names whose would-block diagnostic this process has printed.
static WARNED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// The one decision "this call would block the progress thread": `Ok(())` off the
/// progress thread; on it, `PMIX_ERR_WOULD_BLOCK` naming `call`. The first time a given
/// call is refused in this process, a diagnostic naming it goes to stderr whatever
/// `PMIX_DEBUG` says (as OpenPMIx's help messages do, once per message); later refusals
/// of the same call are logged at debug level only.
///
/// # Errors
/// `PMIX_ERR_WOULD_BLOCK` on the progress thread (inside a callback, an event handler or
/// a host upcall).
#[inline]
pub fn would_block(call: &str) -> Result<()> {
    if !on_progress_thread() {
        return Ok(());
    }
    refuse(call)
}

/// [`would_block`]'s refusal, out of the way of the calls that pass.
#[cold]
#[inline(never)]
fn refuse(call: &str) -> Result<()> {
    let first = {
        let mut w = WARNED.lock().unwrap_or_else(|p| p.into_inner());
        w.get_or_insert_with(HashSet::new).insert(call.to_string())
    };
    if first {
        eprintln!(
            "[pmix-rs:{}] {}: blocking call made on the PMIx progress thread (inside a \
             callback, event handler or host upcall), where it would wait forever; returning \
             PMIX_ERR_WOULD_BLOCK. Use the non-blocking form there (shown once per call).",
            std::process::id(),
            call
        );
    } else {
        log::debug!(
            "{}: blocking call on the progress thread; returning PMIX_ERR_WOULD_BLOCK",
            call
        );
    }
    Err(Error::new(
        sys::PMIX_ERR_WOULD_BLOCK,
        format!("{} would block the progress thread", call),
    ))
}

/// The completion side of a blocking wait: hand it to whatever finishes the operation
/// (usually a closure on the progress thread). Dropping it without completing makes the
/// waiter return `PMIX_ERR_NOT_AVAILABLE`.
pub struct Completion<T> {
    /// `None` once completed: the drop then has nothing to say.
    slot: Option<Arc<Slot<T>>>,
}

impl<T> Completion<T> {
    /// Deliver the result (a waiter that already timed out simply never sees it).
    pub fn complete(mut self, r: Result<T>) {
        if let Some(s) = self.slot.take() {
            s.fill(Filled::Done(r));
        }
    }
}

impl<T> Drop for Completion<T> {
    fn drop(&mut self) {
        if let Some(s) = self.slot.take() {
            s.fill(Filled::Abandoned);
        }
    }
}

/// What a [`Completion`] left for its [`Waiter`].
enum Filled<T> {
    Done(Result<T>),
    Abandoned,
}

/// The one place a blocking call's result passes from the completing thread to the
/// waiting one: a mutex-guarded cell and a condition variable (futexes on Linux). The
/// waiter sleeps without spinning; whether it yields the CPU first is the waiter's
/// choice ([`Waiter::finish`]).
struct Slot<T> {
    cell: Mutex<Option<Filled<T>>>,
    ready: Condvar,
    /// Set once the cell is filled, so that a waiter can look without the lock.
    filled: AtomicBool,
}

impl<T> Slot<T> {
    /// The one fill of a completion (its result, or its abandonment when dropped).
    fn fill(&self, f: Filled<T>) {
        let mut c = self.cell.lock().unwrap_or_else(|p| p.into_inner());
        *c = Some(f);
        self.filled.store(true, Ordering::Release);
        self.ready.notify_one();
    }

    fn take(&self, call: &str) -> Option<Result<T>> {
        if !self.filled.load(Ordering::Acquire) {
            return None;
        }
        let mut c = self.cell.lock().unwrap_or_else(|p| p.into_inner());
        c.take().map(|f| match f {
            Filled::Done(r) => r,
            Filled::Abandoned => Err(abandoned(call)),
        })
    }
}

/// The one wait helper every blocking API goes through.
///
/// `start` receives the [`Completion`] and starts the operation (typically by posting to
/// the progress thread). The caller then sleeps (no spinning) until the operation
/// completes or `timeout` passes.
///
/// # Errors
/// * `PMIX_ERR_WOULD_BLOCK` at once on the progress thread, nothing started
///   ([`would_block`]);
/// * `PMIX_ERR_TIMEOUT` when `timeout` passes first;
/// * `PMIX_ERR_NOT_AVAILABLE` if the operation was abandoned (progress thread stopped);
/// * `start`'s error, or the operation's own.
pub fn wait<T>(
    call: &str,
    timeout: Option<Duration>,
    start: impl FnOnce(Completion<T>) -> Result<()>,
) -> Result<T> {
    let (done, waiter) = prepare(call, timeout)?;
    start(done)?;
    waiter.finish()
}

/// The first half of [`wait`], for a caller that does something of its own before it
/// sleeps (a client reading its reply itself, [`super::DirectConn`]): the [`Completion`] to
/// start the operation with and the [`Waiter`] to finish with.
///
/// # Errors
/// `PMIX_ERR_WOULD_BLOCK` on the progress thread, with a log line naming `call`.
pub fn prepare<T>(call: &str, timeout: Option<Duration>) -> Result<(Completion<T>, Waiter<T>)> {
    would_block(call)?;
    let slot = Arc::new(Slot {
        cell: Mutex::new(None),
        ready: Condvar::new(),
        filled: AtomicBool::new(false),
    });
    let waiter = Waiter {
        call: call.to_string(),
        slot: Arc::clone(&slot),
        deadline: timeout.map(|d| Instant::now() + d),
        got: None,
        yields: WAIT_YIELDS,
        _mark: crate::dump::enter(call),
    };
    Ok((Completion { slot: Some(slot) }, waiter))
}

/// How many times a waiter yields the CPU (`sched_yield`, then a look at its result)
/// before it sleeps, unless told otherwise ([`Waiter::set_yields`]). On a machine with
/// more runnable threads than CPUs a yield lets the thread that will complete the call
/// (the server, another rank) run on this CPU, and a result that comes meanwhile is
/// taken without a sleep, and without the wakeup of an idle CPU, which costs a VM exit
/// here. With nothing else to run a yield returns at once. A caller whose reply comes
/// from a peer that cannot answer on this CPU in time (an OpenPMIx server) sleeps at
/// once: its yields only hand the CPU to other work (`Link::wait_yields`).
pub const WAIT_YIELDS: u32 = 4;

/// The waiting side of a blocking call (see [`prepare`]).
pub struct Waiter<T> {
    call: String,
    slot: Arc<Slot<T>>,
    deadline: Option<Instant>,
    got: Option<Result<T>>,
    yields: u32,
    /// This call in the debug dump's table of recent calls (returned when dropped).
    _mark: crate::dump::CallMark,
}

impl<T> Waiter<T> {
    /// When the wait gives up (`None`: never).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// How many times [`Waiter::finish`] yields the CPU before it sleeps.
    pub fn set_yields(&mut self, n: u32) {
        self.yields = n;
    }

    /// True once the operation has completed (or was abandoned); does not sleep.
    pub fn done(&mut self) -> bool {
        if self.got.is_none() {
            self.got = self.slot.take(&self.call);
        }
        self.got.is_some()
    }

    /// Yield the CPU up to the set number of times, looking in between, then sleep
    /// until the operation completes or the deadline passes.
    ///
    /// # Errors
    /// As [`wait`].
    pub fn finish(mut self) -> Result<T> {
        for _ in 0..self.yields {
            if self.done() {
                break;
            }
            std::thread::yield_now();
        }
        if let Some(r) = self.got.take().or_else(|| self.slot.take(&self.call)) {
            return r;
        }
        let call = &self.call;
        let mut c = self.slot.cell.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            match c.take() {
                Some(Filled::Done(r)) => return r,
                Some(Filled::Abandoned) => return Err(abandoned(call)),
                None => {}
            }
            c = match self.deadline {
                None => self.slot.ready.wait(c).unwrap_or_else(|p| p.into_inner()),
                Some(t) => {
                    let left = t.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(Error::new(
                            sys::PMIX_ERR_TIMEOUT,
                            format!("{} timed out", call),
                        ));
                    }
                    self.slot
                        .ready
                        .wait_timeout(c, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
    }
}

pub(super) fn abandoned(call: &str) -> Error {
    Error::new(
        sys::PMIX_ERR_NOT_AVAILABLE,
        format!("{}: the progress engine stopped before completion", call),
    )
}
