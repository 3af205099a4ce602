//! The engine's operating-system calls beyond std. The effective uid/gid, the host name
//! and waiting for a descriptor to become readable go through rustix's safe wrappers;
//! what is left here is the reviewed `unsafe`: peer credentials of a Unix socket
//! ([`peer_cred`]), parking a descriptor's epoll registration ([`epoll_park`]) and a
//! read-only file mapping ([`Mapping`]). Sealed memory files ([`sealed_memfd`]) and
//! descriptor passing ([`send_with_fds`], [`recv_with_fds`]) use rustix's safe calls.
//!
//! Why these stay on libc: rustix reads `SO_PEERCRED` into a credential whose pid may
//! not be 0, but the kernel reports pid 0 for a peer outside our pid namespace (and
//! for a socket not connected), so a hostile or containerised peer would make that
//! read unsound; `epoll_park` is given the raw descriptor the reactor knows a connection
//! by (the socket is owned elsewhere, and only `unsafe` makes a borrowed descriptor of
//! a raw one); rustix's `mmap` and `munmap` are `unsafe` as well.
//!
//! Why `unsafe` is allowed here: `libc::getsockopt`, `epoll_ctl`, `mmap` and `munmap` are
//! foreign functions. The first two pass either a plain integer or a pointer to a
//! properly sized local together with its size, so the kernel never writes outside
//! memory we own; a `-1` result becomes an [`std::io::Error`] through `cvt`.
//! [`Mapping`]'s `mmap` and `munmap` carry their own reasoning.
#![allow(unsafe_code)]

pub mod ds21;
pub mod forklock;
pub mod munge;
mod shared;
mod tcp;
pub use shared::{futex_wait, futex_wake, SharedWords};
pub use tcp::{owner_in_table, tcp_peer_uid};

use std::io;
use std::os::fd::AsFd;
use std::os::unix::io::AsRawFd;

/// Credentials of the process at the other end of a Unix-domain socket, as the kernel
/// recorded them when the connection was made (`SO_PEERCRED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerCred {
    /// Process id of the peer.
    pub pid: i32,
    /// Effective user id of the peer.
    pub uid: u32,
    /// Effective group id of the peer.
    pub gid: u32,
}

/// Turn a libc `-1` result into the current `errno` as an [`io::Error`].
fn cvt(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// The peer credentials of a connected Unix-domain stream socket.
///
/// # Errors
/// The `getsockopt` error (e.g. `ENOTCONN`, or `ENOTSOCK` for a non-socket descriptor).
pub fn peer_cred(sock: &impl AsRawFd) -> io::Result<PeerCred> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` is a live, writable `ucred` and `len` holds its exact size, so the
    // kernel writes at most `size_of::<ucred>()` bytes into it; the descriptor is only read.
    cvt(unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    })?;
    Ok(PeerCred {
        pid: cred.pid,
        uid: cred.uid,
        gid: cred.gid,
    })
}

/// The effective user id of this process.
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Whether the calling thread runs under a real-time scheduling policy (`SCHED_FIFO` or
/// `SCHED_RR`, e.g. under `chrt`): its `sched_yield` then hands the CPU only to threads
/// of the same priority, not to whatever else the machine runs.
pub fn realtime_policy() -> bool {
    // SAFETY: `sched_getscheduler` takes a pid by value (0: the calling thread) and
    // touches no memory of ours.
    let p = unsafe { libc::sched_getscheduler(0) };
    p == libc::SCHED_FIFO || p == libc::SCHED_RR
}

/// The effective group id of this process.
pub fn egid() -> u32 {
    rustix::process::getegid().as_raw()
}

/// This machine's host name (the node name `uname` reports, as `gethostname` does), or
/// `"localhost"` if it is empty or not UTF-8.
pub fn hostname() -> String {
    match rustix::system::uname().nodename().to_str() {
        Ok(s) if !s.is_empty() => s.to_string(),
        _ => "localhost".to_string(),
    }
}

/// Sleep until `fd` is readable (data, the peer's end of the stream or an error are
/// waiting) or `timeout` has passed (`None`: no limit). True when readable. A signal
/// that interrupts the wait ends it early with `Ok(false)` only when the time is up;
/// otherwise the wait goes on for what is left.
///
/// # Errors
/// The `poll` error (e.g. `EBADF`).
pub fn wait_readable(fd: &impl AsFd, timeout: Option<std::time::Duration>) -> io::Result<bool> {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let deadline = timeout.map(|d| std::time::Instant::now() + d);
    loop {
        // The kernel sleeps at least this long, so a wait never ends before its time.
        let left = match deadline {
            None => None,
            Some(t) => {
                let left = t.saturating_duration_since(std::time::Instant::now());
                Some(Timespec::try_from(left).unwrap_or(Timespec {
                    tv_sec: i64::MAX,
                    tv_nsec: 0,
                }))
            }
        };
        let mut p = [PollFd::new(fd, PollFlags::IN)];
        match rustix::event::poll(&mut p, left.as_ref()) {
            Ok(0) => {
                if deadline.is_some_and(|t| std::time::Instant::now() < t) {
                    continue;
                }
                return Ok(false);
            }
            Ok(_) => return Ok(true),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// The most descriptors one message carries ([`send_with_fds`], [`recv_with_fds`]).
pub const MAX_FDS: usize = 64;

/// A sealed memory file holding `bytes`: `memfd_create(MFD_ALLOW_SEALING|MFD_CLOEXEC)`,
/// written whole, then sealed against shrinking, growing, writing and further sealing,
/// so that no process holding it (not even through `/proc/<pid>/fd`) can change it or
/// make mappings of it fault.
///
/// # Errors
/// The `memfd_create` error (`ENOSYS` on kernels without it), or the write or seal
/// error.
pub fn sealed_memfd(name: &str, bytes: &[u8]) -> io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{MemfdFlags, SealFlags};
    use std::io::Write;
    let fd = rustix::fs::memfd_create(name, MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)?;
    let mut f = std::fs::File::from(fd);
    f.write_all(bytes)?;
    let all = SealFlags::SHRINK | SealFlags::GROW | SealFlags::WRITE | SealFlags::SEAL;
    rustix::fs::fcntl_add_seals(&f, all)?;
    Ok(f.into())
}

/// True when `fd` is sealed as [`sealed_memfd`] seals: it can neither shrink, grow nor
/// be written.
pub fn is_sealed(fd: &impl AsFd) -> bool {
    use rustix::fs::SealFlags;
    let need = SealFlags::SHRINK | SealFlags::GROW | SealFlags::WRITE;
    rustix::fs::fcntl_get_seals(fd).is_ok_and(|s| s.contains(need))
}

/// Send `bytes` on a Unix stream socket with `fds` attached (`SCM_RIGHTS`, at most
/// [`MAX_FDS`]); returns how many bytes went (the descriptors go with the first of them).
///
/// # Errors
/// The `sendmsg` error (`WouldBlock` when nothing went); `InvalidInput` for more than
/// [`MAX_FDS`] descriptors or no bytes.
pub fn send_with_fds(
    sock: &impl AsFd,
    bytes: &[u8],
    fds: &[std::os::fd::BorrowedFd<'_>],
) -> io::Result<usize> {
    use rustix::net::{SendAncillaryBuffer, SendAncillaryMessage, SendFlags};
    if fds.len() > MAX_FDS || bytes.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "0 bytes or too many descriptors",
        ));
    }
    let mut space =
        vec![std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(fds.len()))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err(io::Error::other("control buffer too small"));
    }
    let iov = [io::IoSlice::new(bytes)];
    loop {
        match rustix::net::sendmsg(sock, &iov, &mut control, SendFlags::NOSIGNAL) {
            Err(rustix::io::Errno::INTR) => continue,
            r => return r.map_err(io::Error::from),
        }
    }
}

/// Read from a Unix stream socket into `buf`, appending the descriptors that came with
/// the bytes (`SCM_RIGHTS`, close-on-exec) to `fds`; returns the byte count (0: end of
/// stream). Descriptors beyond [`MAX_FDS`] per read are lost (closed by the kernel).
///
/// # Errors
/// The `recvmsg` error.
pub fn recv_with_fds(
    sock: &impl AsFd,
    buf: &mut [u8],
    fds: &mut Vec<std::os::fd::OwnedFd>,
) -> io::Result<usize> {
    use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags};
    let mut space = vec![std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let mut iov = [io::IoSliceMut::new(buf)];
    let r = loop {
        match rustix::net::recvmsg(sock, &mut iov, &mut control, RecvFlags::CMSG_CLOEXEC) {
            Err(rustix::io::Errno::INTR) => continue,
            r => break r?,
        }
    };
    for msg in control.drain() {
        if let RecvAncillaryMessage::ScmRights(got) = msg {
            fds.extend(got);
        }
    }
    Ok(r.bytes)
}

/// A whole file mapped read-only and shared (`mmap(PROT_READ, MAP_SHARED)`), seen as a
/// byte slice; unmapped when dropped.
///
/// Used for the per-node job-data segments a server writes once and its clients read in
/// place (`store::procs`). Those are sealed memory files ([`sealed_memfd`]): written
/// completely before any client receives them, then sealed, so no process can write,
/// shrink or grow them afterwards; a client maps one only after checking its seals
/// ([`is_sealed`]) and its size.
#[derive(Debug)]
pub struct Mapping {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone (no interior mutability,
// no thread affinity); sharing `&[u8]` views of it across threads is like sharing a `Box<[u8]>`.
unsafe impl Send for Mapping {}
// SAFETY: as above: only shared reads of immutable bytes are possible.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Map the first `len` bytes of `file` read-only. The file must be at least `len`
    /// bytes long now (checked with `fstat` first, so a short file is an error here, not
    /// a fault later), and `len` must not be 0.
    ///
    /// # Errors
    /// `InvalidData` for a short file or `len` 0; the `fstat`/`mmap` error otherwise.
    pub fn map_file(file: &std::fs::File, len: usize) -> io::Result<Mapping> {
        let size = file.metadata()?.len();
        if len == 0 || (size as u128) < (len as u128) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("file is {} bytes, {} expected", size, len),
            ));
        }
        // SAFETY: a fresh mapping chosen by the kernel (NULL hint), of `len` > 0 bytes of an
        // open descriptor we only read; no existing memory is touched. The result is
        // checked for MAP_FAILED before use.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        match std::ptr::NonNull::new(p.cast::<u8>()) {
            Some(ptr) => Ok(Mapping { ptr, len }),
            None => Err(io::Error::other("mmap returned NULL")),
        }
    }

    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is the start of a live PROT_READ mapping of exactly `len` bytes
        // (unmapped only in `drop`, which needs `&mut self`), page-aligned and non-null;
        // the file behind it is not written after it was published (see the type's note).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned and mapped; no slice borrowed
        // from `bytes()` can outlive `self`, so nothing refers to the pages any more.
        let rc = unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
        if rc != 0 {
            log::warn!("munmap failed: {}", io::Error::last_os_error());
        }
    }
}

/// Keep `fd` registered with the epoll instance `epoll` under `token`, but watching
/// nothing (only the error and hang-up conditions the kernel always reports), with a
/// single `EPOLL_CTL_MOD`: cheaper than removing and adding it back, and, unlike a
/// registration for priority data, not woken by ordinary data (a socket's "data arrived"
/// wakeup names priority data too). A later `EPOLL_CTL_MOD` to the real interest reports
/// whatever is ready by then.
///
/// # Errors
/// The `epoll_ctl` error (e.g. `ENOENT` if `fd` is not registered).
pub fn epoll_park(
    epoll: &impl AsRawFd,
    fd: std::os::unix::io::RawFd,
    token: u64,
) -> io::Result<()> {
    let mut ev = libc::epoll_event {
        events: libc::EPOLLET as u32,
        u64: token,
    };
    // SAFETY: `ev` is a live, initialised `epoll_event` the kernel only reads; the two
    // descriptors are plain integers (a stale one makes the call fail, nothing more).
    cvt(unsafe { libc::epoll_ctl(epoll.as_raw_fd(), libc::EPOLL_CTL_MOD, fd, &mut ev) })?;
    Ok(())
}

/// The descriptor the debug-dump signal handler writes its wake-up byte to (-1: none).
static DUMP_WAKE_FD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The debug-dump signal handler: writes one byte to [`DUMP_WAKE_FD`] and nothing else.
/// `write(2)` is async-signal-safe; `errno` is saved and restored so that the interrupted
/// code never sees it change.
extern "C" fn on_dump_signal(_sig: libc::c_int) {
    let fd = DUMP_WAKE_FD.load(std::sync::atomic::Ordering::Relaxed);
    if fd < 0 {
        return;
    }
    // SAFETY: `__errno_location` returns the calling thread's errno slot, valid for the
    // thread's life; `write` reads one byte from a live local; both are async-signal-safe.
    unsafe {
        let e = *libc::__errno_location();
        let b = 1u8;
        let _ = libc::write(fd, (&b as *const u8).cast(), 1);
        *libc::__errno_location() = e;
    }
}

/// Make signal `signo` write one byte to `wake_fd` (a non-blocking socket the progress
/// thread polls) instead of its default action. `SA_RESTART`: system calls the signal
/// interrupts are restarted, so installing it changes nothing else in the process.
///
/// # Errors
/// The `sigaction` error (e.g. `EINVAL` for a signal that cannot be caught).
pub fn install_dump_signal(signo: i32, wake_fd: &impl AsRawFd) -> io::Result<()> {
    DUMP_WAKE_FD.store(wake_fd.as_raw_fd(), std::sync::atomic::Ordering::Relaxed);
    // SAFETY: `sa` is a zeroed, then filled, local `sigaction`; `sigemptyset` writes only
    // into its `sa_mask`; the handler is an `extern "C" fn(c_int)` as `sa_handler` wants
    // without SA_SIGINFO; the old action is not asked for (null).
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_dump_signal as extern "C" fn(libc::c_int) as usize;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        cvt(libc::sigaction(signo, &sa, std::ptr::null_mut()))?;
    }
    Ok(())
}

/// The number of `SIGRTMIN` on this system (glibc reserves the first few).
pub fn sigrtmin() -> i32 {
    libc::SIGRTMIN()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;

    #[test]
    fn mapping_reads_the_file_and_refuses_short_files() {
        use std::io::Write;
        let path = std::env::temp_dir().join(format!("pmix-rs-map-test.{}", std::process::id()));
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(b"hello, segment").unwrap();
        drop(f);
        let f = std::fs::File::open(&path).unwrap();
        let m = Mapping::map_file(&f, 14).unwrap();
        assert_eq!(m.bytes(), b"hello, segment");
        let m5 = Mapping::map_file(&f, 5).unwrap();
        assert_eq!(m5.bytes(), b"hello");
        assert!(Mapping::map_file(&f, 15).is_err());
        assert!(Mapping::map_file(&f, 0).is_err());
        // Removing the file leaves the mapping readable.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(m.bytes().len(), 14);
    }

    #[test]
    fn a_sealed_memfd_cannot_change_and_travels_over_a_socket() {
        use std::os::fd::AsFd;
        let fd = sealed_memfd("pmix-test", b"sealed bytes").unwrap();
        assert!(is_sealed(&fd));
        // Not even a writable descriptor of it, from /proc as another process would
        // open it, can truncate, grow or write it.
        let path = format!("/proc/self/fd/{}", fd.as_raw_fd());
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let eperm = |r: io::Result<()>| r.unwrap_err().raw_os_error() == Some(libc::EPERM);
        assert!(eperm(f.set_len(0)), "shrink refused");
        assert!(eperm(f.set_len(1 << 20)), "grow refused");
        assert!(
            eperm(std::io::Write::write_all(&mut &f, b"x")),
            "write refused"
        );
        let (a, b) = UnixStream::pair().unwrap();
        assert_eq!(send_with_fds(&a, b"hi", &[fd.as_fd()]).unwrap(), 2);
        let mut buf = [0u8; 8];
        let mut fds = Vec::new();
        assert_eq!(recv_with_fds(&b, &mut buf, &mut fds).unwrap(), 2);
        assert_eq!(fds.len(), 1);
        assert!(is_sealed(&fds[0]));
        let file = std::fs::File::from(fds.pop().unwrap());
        let m = Mapping::map_file(&file, 12).unwrap();
        assert_eq!(m.bytes(), b"sealed bytes");
        // A plain file is not sealed.
        assert!(!is_sealed(&std::fs::File::open("/dev/null").unwrap()));
    }

    #[test]
    fn peer_cred_of_socketpair_is_ourselves() {
        let (a, _b) = UnixStream::pair().unwrap();
        let c = peer_cred(&a).unwrap();
        assert_eq!(c.pid as u32, std::process::id());
        assert_eq!(c.uid, euid());
        assert_eq!(c.gid, egid());
    }

    #[test]
    fn peer_cred_of_non_socket_fails() {
        let f = std::fs::File::open("/dev/null").unwrap();
        assert!(peer_cred(&f).is_err());
    }

    #[test]
    fn wait_readable_sees_data_and_times_out() {
        use std::io::Write;
        let (mut a, b) = UnixStream::pair().unwrap();
        let t0 = std::time::Instant::now();
        let r = wait_readable(&b, Some(std::time::Duration::from_millis(30))).unwrap();
        assert!(!r);
        assert!(t0.elapsed() >= std::time::Duration::from_millis(30));
        a.write_all(b"x").unwrap();
        assert!(wait_readable(&b, None).unwrap());
        drop(a);
        // The peer's end of the stream is readable too.
        let (a, b) = UnixStream::pair().unwrap();
        drop(a);
        assert!(wait_readable(&b, Some(std::time::Duration::from_secs(5))).unwrap());
    }

    #[test]
    fn a_parked_registration_reports_nothing_until_watched_again() {
        use std::io::Write;
        use std::os::unix::io::AsRawFd;
        let mut poll = mio::Poll::new().unwrap();
        let mut events = mio::Events::with_capacity(4);
        let (mut a, b) = UnixStream::pair().unwrap();
        b.set_nonblocking(true).unwrap();
        let fd = b.as_raw_fd();
        let mut src = mio::unix::SourceFd(&fd);
        let tok = mio::Token(7);
        poll.registry()
            .register(&mut src, tok, mio::Interest::READABLE)
            .unwrap();
        epoll_park(poll.registry(), fd, 7).unwrap();
        a.write_all(b"x").unwrap();
        poll.poll(&mut events, Some(std::time::Duration::from_millis(50)))
            .unwrap();
        assert!(events.is_empty(), "a parked registration reported data");
        // Watching again reports what arrived meanwhile.
        poll.registry()
            .reregister(&mut src, tok, mio::Interest::READABLE)
            .unwrap();
        poll.poll(&mut events, Some(std::time::Duration::from_secs(5)))
            .unwrap();
        assert!(events.iter().any(|e| e.token() == tok && e.is_readable()));
        // Not registered at all: an error, not a crash.
        let (c, _d) = UnixStream::pair().unwrap();
        assert!(epoll_park(poll.registry(), c.as_raw_fd(), 8).is_err());
    }

    #[test]
    fn hostname_is_not_empty() {
        assert!(!hostname().is_empty());
    }
}
