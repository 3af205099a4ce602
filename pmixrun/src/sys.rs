//! The operating-system calls pmixrun needs that std does not offer: fork with a
//! launch gate, signals, process groups, pidfds, `waitpid`, `poll`. This is the only
//! module of pmixrun with `unsafe`; every block says why it is sound.
//!
//! The launch gate: [`spawn_gated`] forks a child that waits, before `execve`, for its
//! environment to arrive on a pipe. pmixrun forks every rank first (so it knows their
//! pids), then registers the job with the PMIx server (pids included), asks the server
//! for each rank's environment and only then opens the gates. Between `fork` and
//! `execve` the child calls only async-signal-safe functions and allocates nothing: the
//! buffers it fills were allocated by the parent before the fork.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicI32, Ordering};

/// A process id.
pub type Pid = libc::pid_t;

/// Turn a `-1` return into the current `errno` as an `io::Error`.
fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// A pipe whose both ends are close-on-exec: `(read end, write end)`.
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [-1 as libc::c_int; 2];
    // SAFETY: `fds` is a valid, writable array of two ints, as pipe2 requires.
    cvt(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Put a descriptor in non-blocking mode.
pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on any integer is memory-safe; a bad fd yields EBADF.
    let flags = cvt(unsafe { libc::fcntl(fd, libc::F_GETFL) })?;
    // SAFETY: as above.
    cvt(unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) })?;
    Ok(())
}

/// A descriptor that becomes readable when process `pid` exits (Linux ≥ 5.3).
pub fn pidfd_open(pid: Pid) -> io::Result<OwnedFd> {
    // SAFETY: the pidfd_open system call takes a pid and flags and returns a new
    // descriptor or -1; it touches no memory of ours.
    let r = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = RawFd::try_from(r).map_err(|_| io::Error::other("pidfd out of range"))?;
    // SAFETY: the call succeeded and returned a fresh descriptor that we now own.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    // pidfds are created close-on-exec by the kernel.
    Ok(owned)
}

/// Send `sig` to `pid`. `ESRCH` (already gone) is not an error.
pub fn kill(pid: Pid, sig: libc::c_int) -> io::Result<()> {
    // SAFETY: kill only sends a signal; it touches no memory.
    match cvt(unsafe { libc::kill(pid, sig) }) {
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => Ok(()),
        r => r.map(|_| ()),
    }
}

/// Send `sig` to every process of group `pgid`. `ESRCH` is not an error.
pub fn killpg(pgid: Pid, sig: libc::c_int) -> io::Result<()> {
    // SAFETY: killpg only sends signals; it touches no memory.
    match cvt(unsafe { libc::killpg(pgid, sig) }) {
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => Ok(()),
        r => r.map(|_| ()),
    }
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// `exit(code)`.
    Code(i32),
    /// Killed by this signal.
    Signal(i32),
}

/// Reap `pid` if it has exited; `None` while it runs.
pub fn try_wait(pid: Pid) -> io::Result<Option<ExitKind>> {
    let mut status: libc::c_int = 0;
    // SAFETY: `status` is a valid place for waitpid to store the status.
    let r = cvt(unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) })?;
    if r == 0 {
        return Ok(None);
    }
    if libc::WIFEXITED(status) {
        Ok(Some(ExitKind::Code(libc::WEXITSTATUS(status))))
    } else if libc::WIFSIGNALED(status) {
        Ok(Some(ExitKind::Signal(libc::WTERMSIG(status))))
    } else {
        // Stopped/continued are not reported without WUNTRACED/WCONTINUED.
        Ok(None)
    }
}

/// Wait for `pollfds` (see `poll(2)`); EINTR counts as "nothing ready".
pub fn poll(pollfds: &mut [libc::pollfd], timeout_ms: i32) -> io::Result<usize> {
    let n = libc::nfds_t::try_from(pollfds.len()).map_err(|_| io::Error::other("too many fds"))?;
    // SAFETY: the pointer and length describe a valid, writable slice of pollfd.
    match cvt(unsafe { libc::poll(pollfds.as_mut_ptr(), n, timeout_ms) }) {
        Ok(k) => Ok(usize::try_from(k).unwrap_or(0)),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(0),
        Err(e) => Err(e),
    }
}

/// Read into `buf` from a raw descriptor we do not own (a pipe end kept in an
/// `OwnedFd` elsewhere). `Ok(0)` is end of file.
pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: the pointer and length describe a valid, writable buffer.
    let r = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(usize::try_from(r).unwrap_or(0))
}

/// Write all of `buf` to `fd` (blocking).
pub fn write_all(fd: RawFd, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        // SAFETY: the pointer and length describe a valid, readable buffer.
        let r = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        let n = usize::try_from(r).unwrap_or(0);
        buf = buf.get(n..).unwrap_or(&[]);
    }
    Ok(())
}

/// The real user and group ids of this process.
pub fn uid_gid() -> (u32, u32) {
    // SAFETY: getuid/getgid cannot fail and touch no memory.
    unsafe { (libc::getuid(), libc::getgid()) }
}

/// Whether `fd` refers to a terminal.
pub fn isatty(fd: RawFd) -> bool {
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(fd) == 1 }
}

/// This machine's host name.
pub fn hostname() -> io::Result<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for `len - 1` bytes; the last byte stays NUL.
    cvt(unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) })?;
    let s = CStr::from_bytes_until_nul(&buf).map_err(io::Error::other)?;
    Ok(s.to_string_lossy().into_owned())
}

/// Number of CPUs this process may run on (its affinity mask), at least 1.
pub fn cpu_count() -> u32 {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most
    // size_of::<cpu_set_t>() bytes into it; CPU_COUNT only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return 1;
        }
        u32::try_from(libc::CPU_COUNT(&set)).unwrap_or(1).max(1)
    }
}

/// Whether `path` is a directory on a tmpfs (memory-backed) file system that this
/// process may create entries in.
pub fn writable_tmpfs(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statfs is plain data; statfs writes at most size_of::<statfs>() bytes
    // into it and reads the NUL-terminated path `c`.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return false;
    }
    // SAFETY: access only reads the NUL-terminated path.
    st.f_type == libc::TMPFS_MAGIC
        && unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } == 0
}

/// Raise the soft limit on open descriptors to the hard limit (each rank costs a few).
pub fn raise_fd_limit() -> io::Result<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid place for getrlimit to write.
    cvt(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) })?;
    if lim.rlim_cur < lim.rlim_max {
        lim.rlim_cur = lim.rlim_max;
        // SAFETY: `lim` is a valid, initialized rlimit.
        cvt(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) })?;
    }
    Ok(lim.rlim_cur)
}

// ---------------------------------------------------------------------------------
// Signals: a self-pipe. The handler writes the signal number as one byte.

static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(sig: libc::c_int) {
    let fd = SIGNAL_PIPE.load(Ordering::Relaxed);
    if fd >= 0 {
        let b = u8::try_from(sig).unwrap_or(0);
        // SAFETY: write(2) is async-signal-safe; `b` lives for the call. errno is
        // saved and restored so the interrupted code does not see it change.
        unsafe {
            let saved = *libc::__errno_location();
            let _ = libc::write(fd, (&b as *const u8).cast(), 1);
            *libc::__errno_location() = saved;
        }
    }
}

/// Route `signals` to a pipe and return its (non-blocking) read end; each byte read
/// is one signal number. Call once per process; later calls reuse the first pipe's
/// write end for the new signals and return a fresh read end of nothing (tests).
pub fn signal_pipe(signals: &[libc::c_int]) -> io::Result<OwnedFd> {
    let (r, w) = pipe()?;
    set_nonblocking(r.as_raw_fd())?;
    set_nonblocking(w.as_raw_fd())?;
    // The write end lives for the rest of the process (the handler may run any time).
    let wfd = std::mem::ManuallyDrop::new(w).as_raw_fd();
    if SIGNAL_PIPE
        .compare_exchange(-1, wfd, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        return Err(io::Error::other("signal pipe already installed"));
    }
    for &sig in signals {
        // SAFETY: a zeroed sigaction is a valid starting point; we set the handler and
        // an empty mask. The handler only does async-signal-safe work.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            cvt(libc::sigaction(sig, &sa, std::ptr::null_mut()))?;
        }
    }
    Ok(r)
}

/// Blocks every signal while alive and restores the previous mask on drop (around
/// `fork`, so a signal cannot run pmixrun's handler in a child).
struct SignalBlock {
    old: libc::sigset_t,
}

impl SignalBlock {
    fn new() -> io::Result<SignalBlock> {
        // SAFETY: sigset_t is plain data; sigfillset/pthread_sigmask write only to the
        // sets we pass.
        unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            let r = libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            if r != 0 {
                return Err(io::Error::from_raw_os_error(r));
            }
            Ok(SignalBlock { old })
        }
    }
}

impl Drop for SignalBlock {
    fn drop(&mut self) {
        // SAFETY: restores the mask saved in `new`.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
        }
    }
}

// ---------------------------------------------------------------------------------
// The gated child.

/// What went wrong in a child before `execve` succeeded, as it reports it on its error
/// pipe: `(step, errno)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildStep {
    /// Reading the environment from the gate (parent gone, or it did not fit).
    Gate,
    /// `chdir` to the working directory.
    Chdir,
    /// `execve`.
    Exec,
}

impl ChildStep {
    fn code(self) -> i32 {
        match self {
            ChildStep::Gate => 1,
            ChildStep::Chdir => 2,
            ChildStep::Exec => 3,
        }
    }
    fn from_code(c: i32) -> Option<ChildStep> {
        match c {
            1 => Some(ChildStep::Gate),
            2 => Some(ChildStep::Chdir),
            3 => Some(ChildStep::Exec),
            _ => None,
        }
    }
}

/// Everything a gated child needs, prepared before the fork.
pub struct ChildSpec {
    path: CString,
    _argv: Vec<CString>,
    argv_ptrs: Vec<*const libc::c_char>,
    wdir: Option<CString>,
    /// Receives the environment block; allocated here so the child allocates nothing.
    env_buf: Vec<u8>,
    /// Receives the `envp` pointers (one extra slot for the terminating NULL).
    env_ptrs: Vec<*const libc::c_char>,
}

impl ChildSpec {
    /// `path` is executed with `argv` (argv\[0\] included); the environment, at most
    /// `env_bytes` bytes in at most `env_vars` variables, arrives through the gate.
    pub fn new(
        path: &[u8],
        argv: &[Vec<u8>],
        wdir: Option<&[u8]>,
        env_bytes: usize,
        env_vars: usize,
    ) -> io::Result<ChildSpec> {
        let nul = |b: &[u8]| CString::new(b).map_err(|_| io::Error::other("NUL in argument"));
        let path = nul(path)?;
        let argv: Vec<CString> = argv.iter().map(|a| nul(a)).collect::<io::Result<_>>()?;
        let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        argv_ptrs.push(std::ptr::null());
        let wdir = wdir.map(nul).transpose()?;
        Ok(ChildSpec {
            path,
            _argv: argv,
            argv_ptrs,
            wdir,
            env_buf: vec![0u8; env_bytes.max(1)],
            env_ptrs: vec![std::ptr::null(); env_vars.saturating_add(1)],
        })
    }

    /// The room the child has for its environment.
    pub fn fits(&self) -> EnvFits {
        EnvFits {
            bytes: self.env_buf.len(),
            slots: self.env_ptrs.len(),
        }
    }
}

/// The room a gated child has for its environment block.
#[derive(Debug, Clone, Copy)]
pub struct EnvFits {
    bytes: usize,
    slots: usize,
}

impl EnvFits {
    /// Whether a block of `bytes` bytes holding `vars` variables fits (one pointer slot
    /// stays free for the terminating NULL).
    pub fn fits(&self, bytes: usize, vars: usize) -> bool {
        bytes <= self.bytes && vars < self.slots
    }
}

/// The descriptors a gated child is wired to.
pub struct ChildFds {
    /// Becomes the child's stdin.
    pub stdin: RawFd,
    /// Becomes the child's stdout.
    pub stdout: RawFd,
    /// Becomes the child's stderr.
    pub stderr: RawFd,
    /// Read end of the gate (environment block arrives here).
    pub gate: RawFd,
    /// Write end of the error pipe (close-on-exec: EOF there means exec succeeded).
    pub err: RawFd,
}

/// Fork a child that joins process group `pgid` (0 = lead a new group), wires its
/// stdio, waits at the gate for its environment (a native-endian `u32` length, then
/// that many bytes of `NAME=value\0` entries), changes directory and executes the
/// program. Any failure before `execve` succeeds is written to `fds.err` as
/// `(step, errno)` and the child exits with status 127.
///
/// Every descriptor pmixrun holds must be close-on-exec (they all come from [`pipe`],
/// std or pidfds), so the program inherits only its stdio.
pub fn spawn_gated(spec: &mut ChildSpec, fds: &ChildFds, pgid: Pid) -> io::Result<Pid> {
    let _block = SignalBlock::new()?;
    // SAFETY: getpid cannot fail.
    let parent = unsafe { libc::getpid() };
    let env_buf = spec.env_buf.as_mut_ptr();
    let env_cap = spec.env_buf.len();
    let env_ptrs = spec.env_ptrs.as_mut_ptr();
    let env_slots = spec.env_ptrs.len();
    let path = spec.path.as_ptr();
    let argv = spec.argv_ptrs.as_ptr();
    let wdir = spec.wdir.as_ref().map_or(std::ptr::null(), |w| w.as_ptr());
    // SAFETY: fork duplicates the process. In the child (r == 0) we only call
    // async-signal-safe functions (sigaction, sigprocmask, prctl, getppid, setpgid,
    // dup2, read, write, chdir, execve, _exit) and write only into buffers the parent
    // allocated before the fork (`env_buf`, `env_ptrs`), which the child owns as its
    // private copy. Every pointer used is valid in the child because its memory is a
    // copy of ours taken while `spec` was borrowed mutably.
    let r = unsafe { libc::fork() };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    if r == 0 {
        // SAFETY: see above; this function never returns.
        unsafe {
            child_after_fork(
                parent, fds, pgid, env_buf, env_cap, env_ptrs, env_slots, path, argv, wdir,
            )
        }
    }
    // Parent: join the group here too, so there is no window where a signal sent to
    // the group misses the child. Errors are harmless (the child does the same).
    let group = if pgid == 0 { r } else { pgid };
    // SAFETY: setpgid touches no memory.
    unsafe {
        libc::setpgid(r, group);
    }
    Ok(r)
}

/// The child's side of [`spawn_gated`].
///
/// # Safety
/// Must be called only in a freshly forked child, with pointers into buffers the
/// parent prepared (`env_buf` valid for `env_cap` bytes, `env_ptrs` for `env_slots`
/// pointers, `path`/`argv`/`wdir` NUL-terminated or NULL as documented).
#[allow(clippy::too_many_arguments)]
unsafe fn child_after_fork(
    parent: Pid,
    fds: &ChildFds,
    pgid: Pid,
    env_buf: *mut u8,
    env_cap: usize,
    env_ptrs: *mut *const libc::c_char,
    env_slots: usize,
    path: *const libc::c_char,
    argv: *const *const libc::c_char,
    wdir: *const libc::c_char,
) -> ! {
    // SAFETY (whole body): async-signal-safe calls only, on memory described by the
    // caller's promises; see `spawn_gated`.
    unsafe {
        let fail = |step: ChildStep| child_fail(fds.err, step);
        // Default dispositions for the signals pmixrun handles or ignores, then
        // unblock everything (the parent blocked all signals around fork).
        for sig in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGPIPE,
            libc::SIGCHLD,
        ] {
            libc::signal(sig, libc::SIG_DFL);
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        // Die with pmixrun: a launcher that is gone cannot supervise the job.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != parent {
            libc::_exit(127);
        }
        libc::setpgid(0, pgid);
        for (from, to) in [(fds.stdin, 0), (fds.stdout, 1), (fds.stderr, 2)] {
            if from != to && libc::dup2(from, to) < 0 {
                fail(ChildStep::Gate);
            }
        }
        // The gate: length, then the block.
        let read_exact = |dst: *mut u8, len: usize| -> bool {
            let mut got = 0usize;
            while got < len {
                let r = libc::read(fds.gate, dst.add(got).cast(), len - got);
                if r > 0 {
                    got += r as usize;
                } else if r < 0 && *libc::__errno_location() == libc::EINTR {
                    continue;
                } else {
                    return false;
                }
            }
            true
        };
        let mut lenb = [0u8; 4];
        if !read_exact(lenb.as_mut_ptr(), 4) {
            fail(ChildStep::Gate);
        }
        let len = u32::from_ne_bytes(lenb) as usize;
        if len > env_cap || !read_exact(env_buf, len) {
            *libc::__errno_location() = libc::E2BIG;
            fail(ChildStep::Gate);
        }
        // Split at the NULs into envp.
        let mut n = 0usize;
        let mut start = 0usize;
        let mut i = 0usize;
        while i < len {
            if *env_buf.add(i) == 0 {
                if i > start {
                    if n + 1 >= env_slots {
                        *libc::__errno_location() = libc::E2BIG;
                        fail(ChildStep::Gate);
                    }
                    *env_ptrs.add(n) = env_buf.add(start).cast();
                    n += 1;
                }
                start = i + 1;
            }
            i += 1;
        }
        *env_ptrs.add(n) = std::ptr::null();
        if !wdir.is_null() && libc::chdir(wdir) != 0 {
            fail(ChildStep::Chdir);
        }
        libc::execve(path, argv, env_ptrs.cast_const());
        fail(ChildStep::Exec)
    }
}

/// Report `(step, errno)` on the error pipe and exit 127 (child side, after fork).
fn child_fail(err: RawFd, step: ChildStep) -> ! {
    // SAFETY: errno access, write(2) and _exit(2) are async-signal-safe; `msg` is a
    // local buffer valid for the write.
    unsafe {
        let e = *libc::__errno_location();
        let mut msg = [0u8; 8];
        msg[..4].copy_from_slice(&step.code().to_ne_bytes());
        msg[4..].copy_from_slice(&e.to_ne_bytes());
        let _ = libc::write(err, msg.as_ptr().cast(), msg.len());
        libc::_exit(127)
    }
}

/// Read a gated child's error pipe to its end: `None` when `execve` succeeded,
/// otherwise the step that failed and its OS error.
pub fn child_launch_error(err_read: &OwnedFd) -> Option<(ChildStep, io::Error)> {
    let mut msg = [0u8; 8];
    let mut got = 0usize;
    while got < msg.len() {
        match read(err_read.as_raw_fd(), msg.get_mut(got..).unwrap_or(&mut [])) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    if got < msg.len() {
        return None;
    }
    let step = i32::from_ne_bytes([msg[0], msg[1], msg[2], msg[3]]);
    let errno = i32::from_ne_bytes([msg[4], msg[5], msg[6], msg[7]]);
    let step = ChildStep::from_code(step)?;
    Some((step, io::Error::from_raw_os_error(errno)))
}

/// Open the gate of a child: send its environment block (`NAME=value\0`...).
pub fn open_gate(gate_write: &OwnedFd, block: &[u8]) -> io::Result<()> {
    let len = u32::try_from(block.len()).map_err(|_| io::Error::other("environment too large"))?;
    write_all(gate_write.as_raw_fd(), &len.to_ne_bytes())?;
    write_all(gate_write.as_raw_fd(), block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_is_cloexec_and_carries_bytes() {
        let (r, w) = pipe().expect("pipe");
        // SAFETY: fcntl F_GETFD on an open descriptor.
        let flags = unsafe { libc::fcntl(r.as_raw_fd(), libc::F_GETFD) };
        assert_eq!(flags & libc::FD_CLOEXEC, libc::FD_CLOEXEC);
        write_all(w.as_raw_fd(), b"abc").expect("write");
        let mut buf = [0u8; 8];
        assert_eq!(read(r.as_raw_fd(), &mut buf).expect("read"), 3);
        assert_eq!(&buf[..3], b"abc");
    }

    #[test]
    fn cpu_count_is_positive() {
        assert!(cpu_count() >= 1);
    }

    #[test]
    fn hostname_is_not_empty() {
        assert!(!hostname().expect("hostname").is_empty());
    }
}
