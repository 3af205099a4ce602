//! The one wait helper ([`wait`], [`prepare`]) and the one decision "this call would
//! block the progress thread" ([`would_block`]) that every blocking entry point goes
//! through, with its diagnostic.

use super::on_progress_thread;
use crate::error::{Error, Result};
use crossbeam::channel::{self, Receiver, RecvTimeoutError, Sender};
use pmix_sys as sys;
use std::collections::HashSet;
use std::sync::Mutex;
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
    tx: Sender<Result<T>>,
}

impl<T> Completion<T> {
    /// Deliver the result (a waiter that already timed out simply never sees it).
    pub fn complete(self, r: Result<T>) {
        let _ = self.tx.send(r);
    }
}

/// The one wait helper every blocking API goes through.
///
/// `start` receives the [`Completion`] and starts the operation (typically by posting to
/// the progress thread). The caller then sleeps on a channel (no spinning) until the
/// operation completes or `timeout` passes.
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
    let (tx, rx) = channel::bounded(1);
    let waiter = Waiter {
        call: call.to_string(),
        rx,
        deadline: timeout.map(|d| Instant::now() + d),
        got: None,
        _mark: crate::dump::enter(call),
    };
    Ok((Completion { tx }, waiter))
}

/// The waiting side of a blocking call (see [`prepare`]).
pub struct Waiter<T> {
    call: String,
    rx: Receiver<Result<T>>,
    deadline: Option<Instant>,
    got: Option<Result<T>>,
    /// This call in the debug dump's table of recent calls (returned when dropped).
    _mark: crate::dump::CallMark,
}

impl<T> Waiter<T> {
    /// When the wait gives up (`None`: never).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// True once the operation has completed (or was abandoned); does not sleep.
    pub fn done(&mut self) -> bool {
        if self.got.is_none() {
            self.got = match self.rx.try_recv() {
                Ok(r) => Some(r),
                Err(channel::TryRecvError::Empty) => None,
                Err(channel::TryRecvError::Disconnected) => Some(Err(abandoned(&self.call))),
            };
        }
        self.got.is_some()
    }

    /// Sleep on the channel (no spinning) until the operation completes or the deadline
    /// passes.
    ///
    /// # Errors
    /// As [`wait`].
    pub fn finish(mut self) -> Result<T> {
        if let Some(r) = self.got.take() {
            return r;
        }
        let call = &self.call;
        let r = match self.deadline {
            Some(t) => self
                .rx
                .recv_timeout(t.saturating_duration_since(Instant::now()))
                .map_err(|e| match e {
                    RecvTimeoutError::Timeout => {
                        Error::new(sys::PMIX_ERR_TIMEOUT, format!("{} timed out", call))
                    }
                    RecvTimeoutError::Disconnected => abandoned(call),
                }),
            None => self.rx.recv().map_err(|_| abandoned(call)),
        };
        r?
    }
}

pub(super) fn abandoned(call: &str) -> Error {
    Error::new(
        sys::PMIX_ERR_NOT_AVAILABLE,
        format!("{}: the progress engine stopped before completion", call),
    )
}
