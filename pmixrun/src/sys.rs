//! The operating-system calls pmixrun makes beyond std: fork with a launch gate,
//! signals, process groups, pidfds, `waitpid`, `poll`. Most go through rustix (safe
//! wrappers of the system calls) and signal-hook (the signal handlers); this is the only
//! module of pmixrun with `unsafe` (`main.rs` denies it elsewhere), and every block says
//! why it is sound.
//!
//! The launch gate: [`spawn_gated`] forks a child that waits, before `execve`, for its
//! environment to arrive on its gate (a socket pair, [`gate_pair`]). pmixrun forks
//! every rank first (so it knows their pids), then registers the job with the PMIx
//! server (pids included), asks the server for each rank's environment and only then
//! opens the gates. Between `fork` and
//! `execve` the child calls only async-signal-safe functions and allocates nothing: the
//! buffers it fills were allocated by the parent before the fork. That is why the fork
//! stays here on libc rather than `std::process::Command`: `Command` fixes the
//! environment before it forks, and its `pre_exec` hook cannot hand `execve` an
//! environment read afterwards.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::path::Path;

use rustix::fs::{Access, OFlags};
use rustix::io::Errno;
use rustix::process::{Resource, Signal, WaitOptions};

/// A process id.
pub type Pid = libc::pid_t;

/// A pipe whose both ends are close-on-exec: `(read end, write end)`.
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?)
}

/// A launch gate: a connected socket pair, both ends close-on-exec, `(parent's end,
/// child's end)`. One descriptor per rank serves both directions of the gate: the
/// parent writes the environment on its end and then reads the child's launch error
/// from it (end of stream: `execve` succeeded). A pair of pipes cost pmixrun two.
pub fn gate_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (a, b) = std::os::unix::net::UnixStream::pair()?;
    Ok((a.into(), b.into()))
}

/// Put a descriptor in non-blocking mode.
pub fn set_nonblocking(fd: impl AsFd) -> io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(&fd)?;
    rustix::fs::fcntl_setfl(&fd, flags | OFlags::NONBLOCK)?;
    Ok(())
}

/// `pid` as rustix's process id of one process: `EINVAL` for 0 and negative numbers
/// (which `kill` and `waitpid` take for a process group, or every process: never one of
/// our ranks).
fn one_pid(pid: Pid) -> io::Result<rustix::process::Pid> {
    if pid <= 0 {
        return Err(Errno::INVAL.into());
    }
    rustix::process::Pid::from_raw(pid).ok_or_else(|| Errno::INVAL.into())
}

/// A descriptor that becomes readable when process `pid` exits (Linux ≥ 5.3).
/// pidfds are created close-on-exec by the kernel.
pub fn pidfd_open(pid: Pid) -> io::Result<OwnedFd> {
    Ok(rustix::process::pidfd_open(
        one_pid(pid)?,
        rustix::process::PidfdFlags::empty(),
    )?)
}

/// Send signal `sig` (0: none, only check) to process `pid` (`group`: to every process
/// of group `pid`). `ESRCH` (already gone) is not an error.
fn send_signal(pid: Pid, sig: libc::c_int, group: bool) -> io::Result<()> {
    use rustix::process as rp;
    let target = one_pid(pid)?;
    let r = match (sig, Signal::from_named_raw(sig), group) {
        (0, _, false) => rp::test_kill_process(target),
        (0, _, true) => rp::test_kill_process_group(target),
        (_, Some(s), false) => rp::kill_process(target, s),
        (_, Some(s), true) => rp::kill_process_group(target, s),
        // A real-time or unknown number: rustix makes a `Signal` of those only through
        // an `unsafe` constructor whose contract forbids sending the real-time ones, so
        // they go to the kernel as they are (it refuses what it does not know, EINVAL).
        (_, None, false) => {
            // SAFETY: kill only sends a signal; it touches no memory.
            cvt(unsafe { libc::kill(pid, sig) })
        }
        (_, None, true) => {
            // SAFETY: killpg only sends signals; it touches no memory.
            cvt(unsafe { libc::killpg(pid, sig) })
        }
    };
    match r {
        Err(Errno::SRCH) => Ok(()),
        r => Ok(r?),
    }
}

/// `-1` from libc as the current `errno`.
fn cvt(r: libc::c_int) -> Result<(), Errno> {
    if r == -1 {
        Err(Errno::from_io_error(&io::Error::last_os_error()).unwrap_or(Errno::INVAL))
    } else {
        Ok(())
    }
}

/// Send `sig` to `pid`. `ESRCH` (already gone) is not an error.
pub fn kill(pid: Pid, sig: libc::c_int) -> io::Result<()> {
    send_signal(pid, sig, false)
}

/// Send `sig` to every process of group `pgid`. `ESRCH` is not an error.
pub fn killpg(pgid: Pid, sig: libc::c_int) -> io::Result<()> {
    send_signal(pgid, sig, true)
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
    let Some((_, status)) = rustix::process::waitpid(Some(one_pid(pid)?), WaitOptions::NOHANG)?
    else {
        return Ok(None);
    };
    if let Some(code) = status.exit_status() {
        Ok(Some(ExitKind::Code(code)))
    } else if let Some(sig) = status.terminating_signal() {
        Ok(Some(ExitKind::Signal(sig)))
    } else {
        // Stopped/continued are not reported without WUNTRACED/WCONTINUED.
        Ok(None)
    }
}

/// Wait up to `timeout_ms` milliseconds (-1: no limit) for any of `fds` to become
/// readable (or to report an error or hang-up), and return those that did, in the order
/// given. EINTR counts as "nothing ready".
pub fn poll_readable(fds: &[BorrowedFd<'_>], timeout_ms: i32) -> io::Result<Vec<RawFd>> {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let mut pfds: Vec<PollFd<'_>> = fds
        .iter()
        .map(|&fd| PollFd::from_borrowed_fd(fd, PollFlags::IN))
        .collect();
    let timeout = u64::try_from(timeout_ms)
        .ok()
        .map(|ms| Timespec::try_from(std::time::Duration::from_millis(ms)))
        .transpose()
        .map_err(io::Error::other)?;
    match rustix::event::poll(&mut pfds, timeout.as_ref()) {
        Ok(_) => {}
        Err(Errno::INTR) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    }
    Ok(pfds
        .iter()
        .filter(|p| !p.revents().is_empty())
        .map(|p| p.as_fd().as_raw_fd())
        .collect())
}

/// Read into `buf` from a descriptor. `Ok(0)` is end of file.
pub fn read(fd: impl AsFd, buf: &mut [u8]) -> io::Result<usize> {
    Ok(rustix::io::read(fd, buf)?)
}

/// Write all of `buf` to `fd` (blocking).
pub fn write_all(fd: impl AsFd, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        match rustix::io::write(&fd, buf) {
            Ok(n) => buf = buf.get(n..).unwrap_or(&[]),
            Err(Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// The real user and group ids of this process.
pub fn uid_gid() -> (u32, u32) {
    (
        rustix::process::getuid().as_raw(),
        rustix::process::getgid().as_raw(),
    )
}

/// This machine's host name (the node name `uname` reports, as `gethostname` does).
pub fn hostname() -> io::Result<String> {
    Ok(rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned())
}

/// Number of CPUs this process may run on (its affinity mask), at least 1.
pub fn cpu_count() -> u32 {
    rustix::thread::sched_getaffinity(None).map_or(1, |set| set.count().max(1))
}

/// Whether `path` is a directory on a tmpfs (memory-backed) file system that this
/// process may create entries in.
pub fn writable_tmpfs(path: &Path) -> bool {
    let Ok(st) = rustix::fs::statfs(path) else {
        return false;
    };
    st.f_type == libc::TMPFS_MAGIC
        && rustix::fs::access(path, Access::WRITE_OK | Access::EXEC_OK).is_ok()
}

/// Raise the soft limit on open descriptors to the hard limit (each rank costs a few).
/// Returns the soft limit now in force (`u64::MAX`: unlimited).
pub fn raise_fd_limit() -> io::Result<u64> {
    let mut lim = rustix::process::getrlimit(Resource::Nofile);
    let finite = |v: Option<u64>| v.unwrap_or(u64::MAX);
    if finite(lim.current) < finite(lim.maximum) {
        lim.current = lim.maximum;
        rustix::process::setrlimit(Resource::Nofile, lim)?;
    }
    Ok(finite(lim.current))
}

// ---------------------------------------------------------------------------------
// Signals: one self-pipe per signal (signal-hook's handler writes one byte per delivery).

/// The read ends of the pipes the handled signals are written to.
pub struct SignalPipes {
    pipes: Vec<(libc::c_int, OwnedFd)>,
}

impl SignalPipes {
    /// The descriptors to poll: each becomes readable when its signal arrives.
    pub fn fds(&self) -> impl Iterator<Item = BorrowedFd<'_>> {
        self.pipes.iter().map(|(_, fd)| fd.as_fd())
    }

    /// Every delivery since the last call, one entry per delivery (the signals in the
    /// order they were given to [`signal_pipes`]). Never blocks.
    pub fn drain(&self) -> Vec<libc::c_int> {
        let mut got = Vec::new();
        let mut buf = [0u8; 64];
        for (sig, fd) in &self.pipes {
            loop {
                match read(fd, &mut buf) {
                    Ok(0) => break,
                    Ok(n) => got.resize(got.len() + n, *sig),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
        }
        got
    }
}

/// Route each of `signals` to a pipe of its own; the read ends are non-blocking. The
/// handlers (signal-hook's, which keep `errno` and do only async-signal-safe work) stay
/// installed for the rest of the process.
pub fn signal_pipes(signals: &[libc::c_int]) -> io::Result<SignalPipes> {
    let mut pipes = Vec::with_capacity(signals.len());
    for &sig in signals {
        let (r, w) = pipe()?;
        set_nonblocking(&r)?;
        // signal-hook makes the write end non-blocking and owns it from now on.
        signal_hook::low_level::pipe::register(sig, w)?;
        pipes.push((sig, r));
    }
    Ok(SignalPipes { pipes })
}

/// Blocks every signal while alive and restores the previous mask on drop (around
/// `fork`, so a signal cannot run pmixrun's handler in a child). On libc: rustix sets
/// the signal mask only in its `unsafe` `runtime` API (for code that replaces libc),
/// and nix would be a second wrapper crate for this one call.
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
    /// Where the environment block arrives (the child's end of [`gate_pair`]).
    pub gate: RawFd,
    /// Where a launch error is reported (close-on-exec: EOF there means exec
    /// succeeded); the same socket as `gate` for a [`gate_pair`].
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
    let parent = rustix::process::getpid().as_raw_nonzero().get();
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
    let _ = rustix::process::setpgid(
        rustix::process::Pid::from_raw(r),
        rustix::process::Pid::from_raw(group),
    );
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
        match read(err_read, msg.get_mut(got..).unwrap_or(&mut [])) {
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
    write_all(gate_write, &len.to_ne_bytes())?;
    write_all(gate_write, block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_is_cloexec_and_carries_bytes() {
        let (r, w) = pipe().expect("pipe");
        let flags = rustix::io::fcntl_getfd(&r).expect("fcntl");
        assert!(flags.contains(rustix::io::FdFlags::CLOEXEC));
        write_all(&w, b"abc").expect("write");
        let mut buf = [0u8; 8];
        assert_eq!(read(&r, &mut buf).expect("read"), 3);
        assert_eq!(&buf[..3], b"abc");
    }

    /// Reap `pid` (a child of this test), waiting at most 10 s.
    fn reap(pid: Pid) -> ExitKind {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            if let Some(k) = try_wait(pid).expect("waitpid") {
                return k;
            }
            assert!(std::time::Instant::now() < until, "child {pid} did not end");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// A child the test reaps itself, through [`try_wait`] (what is tested), so std's
    /// handle is dropped without `wait`.
    #[allow(clippy::zombie_processes)]
    fn sleeper() -> Pid {
        let child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        Pid::try_from(child.id()).expect("pid")
    }

    #[test]
    fn kill_sends_named_real_time_and_null_signals() {
        let pid = sleeper();
        assert!(try_wait(pid).expect("waitpid").is_none());
        kill(pid, 0).expect("the null signal reaches a live child");
        assert!(
            kill(pid, 200).is_err(),
            "an unknown signal number is refused"
        );
        assert!(
            kill(-pid, libc::SIGTERM).is_err(),
            "a group id is not a pid"
        );
        kill(pid, libc::SIGTERM).expect("SIGTERM");
        assert_eq!(reap(pid), ExitKind::Signal(libc::SIGTERM));
        // Reaped: gone, which is not an error; waiting for it again is.
        kill(pid, libc::SIGTERM).expect("ESRCH is not an error");
        assert!(try_wait(pid).is_err());
        let pid = sleeper();
        kill(pid, libc::SIGRTMIN()).expect("a real-time signal");
        assert_eq!(reap(pid), ExitKind::Signal(libc::SIGRTMIN()));
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
