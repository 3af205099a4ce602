//! Munge security for OpenPMIx peers: the check of a munge credential in a connect
//! message, off the progress thread ([`check_later`]), and whether the security modes our
//! server offers its OpenPMIx children (`PMIX_SECURITY_MODE`) include munge.
//!
//! `munge_decode` is a round trip to munged (a third of a millisecond when it answers; up
//! to libmunge's own timeout of many seconds when it hangs). The progress thread serves
//! every connection of the process, so it never calls it: a connect message with a munge
//! credential is handed to a small pool of worker threads (`pmix-munge`, started as
//! needed, at most [`WORKERS`]), whose verdict the caller posts back to the progress
//! thread. The caller also arms a deadline ([`deadline`]): a munged that does not answer
//! in time fails that one connect, the others go on.

use crate::error::{Error, Result};
use crate::sys::munge;
use pmix_sys as sys;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// The most worker threads that ask munged at once (each blocked one holds one).
pub const WORKERS: usize = 4;

/// How long a connect waits for munged's verdict by default (`PMIX_RS_MUNGE_TIMEOUT`).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(5);

/// The uid and gid a munge credential vouches for, after munged checked it (its MAC,
/// its time to live, that it was never decoded before). Blocks on munged: call it from
/// a worker ([`check_later`]), never from the progress thread.
///
/// # Errors
/// `PMIX_ERR_INVALID_CRED` saying what munged refused (expired, replayed, forged,
/// malformed) or that it could not be asked (libmunge missing, munged down).
pub fn munge_ids(credential: &[u8]) -> Result<(u32, u32)> {
    munge::decode(credential).map_err(|e| {
        let why = match e.code {
            munge::EMUNGE_CRED_EXPIRED => "expired",
            munge::EMUNGE_CRED_REPLAYED => "replayed",
            munge::EMUNGE_SOCKET | -1 => "not checkable",
            _ => "invalid",
        };
        Error::new(
            sys::PMIX_ERR_INVALID_CRED,
            format!("v41 handshake: munge credential {}: {}", why, e),
        )
    })
}

/// How long a connect waits for munged: `PMIX_RS_MUNGE_TIMEOUT` (seconds, fractions
/// allowed, above 0), else [`DEFAULT_DEADLINE`].
pub fn deadline() -> Duration {
    crate::params::get(crate::params::PMIX_RS_MUNGE_TIMEOUT)
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 3600.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(DEFAULT_DEADLINE)
}

/// What a worker hands back: munged's verdict on one credential.
pub type Verdict = Box<dyn FnOnce(Result<(u32, u32)>) + Send>;

struct Job {
    credential: Vec<u8>,
    done: Verdict,
    /// Set when the connect gave up waiting (its deadline passed): a worker that has not
    /// started the job skips munged. (A peer that leaves while munged checks is not
    /// flagged: its verdict arrives for a closed connection and is dropped.)
    abandoned: Arc<AtomicBool>,
}

#[derive(Default)]
struct Pool {
    queue: Mutex<(VecDeque<Job>, PoolCount)>,
    ready: Condvar,
}

#[derive(Default)]
struct PoolCount {
    threads: usize,
    idle: usize,
}

fn pool() -> &'static Arc<Pool> {
    static POOL: OnceLock<Arc<Pool>> = OnceLock::new();
    POOL.get_or_init(|| Arc::new(Pool::default()))
}

/// Have a worker ask munged about `credential`, then call `done` with the verdict (on
/// the worker's thread: `done` posts it where it is wanted). Returns at once. The flag
/// returned is for the caller to set when it stops waiting; a job not started by then
/// is answered with `PMIX_ERR_TIMEOUT` without asking munged.
pub fn check_later(credential: Vec<u8>, done: Verdict) -> Arc<AtomicBool> {
    let abandoned = Arc::new(AtomicBool::new(false));
    let p = pool();
    let mut q = p.queue.lock().unwrap_or_else(|e| e.into_inner());
    q.0.push_back(Job {
        credential,
        done,
        abandoned: abandoned.clone(),
    });
    if q.1.idle < q.0.len() && q.1.threads < WORKERS {
        let worker = p.clone();
        let spawned = std::thread::Builder::new()
            .name("pmix-munge".into())
            .spawn(move || work(&worker));
        match spawned {
            Ok(_) => q.1.threads += 1,
            Err(e) if q.1.threads == 0 => {
                drop(q);
                log::warn!("server: no thread to ask munged ({}); refusing", e);
                fail_queued(p, &format!("no munge worker thread: {}", e));
                return abandoned;
            }
            Err(e) => log::debug!("server: no further munge worker: {}", e),
        }
    }
    drop(q);
    p.ready.notify_one();
    abandoned
}

/// Answer every queued job with an error (no worker can take them).
fn fail_queued(p: &Pool, why: &str) {
    let jobs: Vec<Job> = {
        let mut q = p.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.0.drain(..).collect()
    };
    for j in jobs {
        (j.done)(Err(Error::new(
            sys::PMIX_ERR_OUT_OF_RESOURCE,
            why.to_string(),
        )));
    }
}

fn work(p: &Pool) {
    loop {
        let job = {
            let mut q = p.queue.lock().unwrap_or_else(|e| e.into_inner());
            q.1.idle += 1;
            let job = loop {
                if let Some(j) = q.0.pop_front() {
                    break j;
                }
                q = p.ready.wait(q).unwrap_or_else(|e| e.into_inner());
            };
            q.1.idle -= 1;
            job
        };
        let verdict = if job.abandoned.load(Ordering::Acquire) {
            Err(Error::new(
                sys::PMIX_ERR_TIMEOUT,
                "munge check given up before munged was asked",
            ))
        } else {
            munge_ids(&job.credential)
        };
        (job.done)(verdict);
    }
}

/// `PMIX_SECURITY_MODE` for our OpenPMIx children: `native`, and `munge` too when
/// libmunge loads and munged answers (probed once, with one credential). OpenPMIx
/// clients then pick by their own priorities (munge before native) or by their
/// `PMIX_MCA_psec`.
pub fn security_mode() -> &'static str {
    static MODE: OnceLock<&'static str> = OnceLock::new();
    MODE.get_or_init(|| match munge::encode() {
        Ok(_) => "native,munge",
        Err(e) => {
            log::debug!("server: OpenPMIx children get native security only: {}", e);
            "native"
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_worker_answers_off_the_calling_thread() {
        let (tx, rx) = mpsc::channel();
        let me = std::thread::current().id();
        check_later(
            b"MUNGE:no-nul".to_vec(),
            Box::new(move |v| {
                let _ = tx.send((std::thread::current().id(), v.map_err(|e| e.status)));
            }),
        );
        let (on, v) = rx.recv_timeout(Duration::from_secs(20)).unwrap();
        assert_ne!(on, me);
        // Not NUL-terminated: refused before libmunge is even loaded.
        assert_eq!(v, Err(sys::PMIX_ERR_INVALID_CRED));
    }

    #[test]
    fn an_abandoned_job_is_not_taken_to_munged() {
        // Fill every worker with a job that waits, so the next one is still queued when
        // it is abandoned.
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let (tx, rx) = mpsc::channel();
        for _ in 0..WORKERS {
            let (g, tx) = (gate.clone(), tx.clone());
            check_later(
                Vec::new(),
                Box::new(move |_| {
                    let mut open = g.0.lock().unwrap();
                    while !*open {
                        open = g.1.wait(open).unwrap();
                    }
                    let _ = tx.send(None);
                }),
            );
        }
        std::thread::sleep(Duration::from_millis(200));
        let tx2 = tx.clone();
        let flag = check_later(
            b"never asked\0".to_vec(),
            Box::new(move |v| {
                let _ = tx2.send(Some(v.map_err(|e| e.status)));
            }),
        );
        flag.store(true, Ordering::Release);
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        let got: Vec<_> = (0..=WORKERS)
            .map(|_| rx.recv_timeout(Duration::from_secs(20)).unwrap())
            .collect();
        assert!(got.contains(&Some(Err(sys::PMIX_ERR_TIMEOUT))), "{got:?}");
    }
}
