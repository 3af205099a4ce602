//! The process-wide lock taken around every `fork()` of the process (see
//! [`crate::server::forksafe`]): a plain pthread mutex, locked by a `pthread_atfork`
//! prepare handler and unlocked by the parent and child handlers, with no guard to keep
//! between them.
//!
//! Why `unsafe`: `pthread_mutex_lock`/`unlock` and `pthread_atfork` are foreign
//! functions. The mutex is a static initialised with `PTHREAD_MUTEX_INITIALIZER`, never
//! moved; the handlers are plain functions that live as long as the process (glibc drops
//! the handlers of a library that is unloaded).

use std::cell::UnsafeCell;
use std::sync::Once;

struct ForkLock(UnsafeCell<libc::pthread_mutex_t>);

// SAFETY: a pthread mutex is made to be shared between threads; it is only used through
// pthread_mutex_lock/unlock.
unsafe impl Sync for ForkLock {}

static LOCK: ForkLock = ForkLock(UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER));
static ATFORK: Once = Once::new();

/// Take the lock (blocks while another thread holds it, or while the process forks).
pub extern "C" fn lock() {
    // SAFETY: LOCK is a static, initialised pthread mutex.
    unsafe { libc::pthread_mutex_lock(LOCK.0.get()) };
}

/// Release the lock taken by [`lock`] on this thread (in a forked child: on the copy of
/// the thread that forked).
pub extern "C" fn unlock() {
    // SAFETY: as in `lock`.
    unsafe { libc::pthread_mutex_unlock(LOCK.0.get()) };
}

/// Have every later `fork()` of the process hold the lock across the fork (once per
/// process; false if `pthread_atfork` failed).
pub fn install() -> bool {
    static OK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if OK.load(std::sync::atomic::Ordering::Acquire) {
        return true;
    }
    ATFORK.call_once(|| {
        // SAFETY: see the module's documentation.
        let rc = unsafe { libc::pthread_atfork(Some(lock), Some(unlock), Some(unlock)) };
        OK.store(rc == 0, std::sync::atomic::Ordering::SeqCst);
    });
    OK.load(std::sync::atomic::Ordering::SeqCst)
}

/// `fork()`, for the tests of the module's users: the child runs `child` and `_exit`s
/// with its value; returns the child's pid.
#[cfg(test)]
pub fn fork_child(child: impl FnOnce() -> i32) -> i32 {
    // SAFETY: the child runs only `child`, then `_exit`s (no unwinding, no atexit).
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let code = child();
        // SAFETY: ends the child at once.
        unsafe { libc::_exit(code) };
    }
    pid
}

/// Wait up to `limit` for the child `pid` (from [`fork_child`]): its exit code, or None
/// (the child then SIGKILLed and reaped) if it did not exit normally within the limit.
#[cfg(test)]
pub fn wait_child(pid: i32, limit: std::time::Duration) -> Option<i32> {
    let start = std::time::Instant::now();
    let mut st = 0;
    loop {
        // SAFETY: `pid` is our own child; `st` a valid out-pointer.
        let r = unsafe { libc::waitpid(pid, &mut st, libc::WNOHANG) };
        if r == pid {
            return libc::WIFEXITED(st).then(|| libc::WEXITSTATUS(st));
        }
        if start.elapsed() > limit {
            // SAFETY: our own child, killed then reaped.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut st, 0);
            }
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
