//! Data a child forked from the host reads before its exec: `PMIx_server_setup_fork`
//! runs there under Slurm (slurmstepd forks each task; the child, before exec, runs the
//! mpi plugin's task hook, which calls it). The host is multithreaded (our progress
//! thread, its own threads), and a lock another thread held at the fork stays held in
//! the child for ever: the task never reaches its exec (under Slurm, one rank missing and
//! the others waiting in their first fence). So that path takes no lock of ours but the
//! ones of [`ForkCell`]s.
//!
//! A [`ForkCell`] is a mutex that is only ever taken under one process-wide lock, and
//! that lock is taken around every `fork()` of the process (`pthread_atfork`: before
//! the fork, released after it in the parent and in the child). A fork thus never
//! happens while a [`ForkCell`] is held, and the child finds them all free. Hold one only
//! for copies and map updates: no I/O, no other lock, no fork.

use crate::sys::forklock;
use std::sync::{Mutex, MutexGuard};

/// Unlocks the process-wide lock when dropped (also when the closure panics).
struct Held;

impl Drop for Held {
    fn drop(&mut self) {
        forklock::unlock();
    }
}

/// A value readable and writable in a child forked from a multithreaded process (see
/// the module's documentation).
pub struct ForkCell<T>(Mutex<T>);

impl<T> ForkCell<T> {
    /// A cell holding `v` (installs the atfork handlers, once per process, when first
    /// used).
    pub const fn new(v: T) -> Self {
        ForkCell(Mutex::new(v))
    }

    /// Run `f` on the value, under the process-wide lock.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        if !forklock::install() {
            warn_once();
        }
        forklock::lock();
        let _held = Held;
        let mut g: MutexGuard<'_, T> = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut g)
    }
}

#[cold]
fn warn_once() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        log::warn!("server: pthread_atfork failed: setup_fork in a forked child may block")
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forked_child_finds_the_cell_free_while_a_thread_hammers_it() {
        static CELL: ForkCell<u64> = ForkCell::new(0);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s = stop.clone();
        let t = std::thread::spawn(move || {
            while !s.load(std::sync::atomic::Ordering::Relaxed) {
                CELL.with(|v| *v += 1);
            }
        });
        for _ in 0..200 {
            let pid = forklock::fork_child(|| CELL.with(|v| i32::from(*v == u64::MAX)));
            assert!(pid > 0);
            let code = forklock::wait_child(pid, std::time::Duration::from_secs(5));
            assert_eq!(code, Some(0), "a forked child blocked on the cell");
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        t.join().unwrap();
    }
}
