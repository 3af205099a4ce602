//! Writable shared memory for atomics between the processes of one node (the same-node
//! fence area, `crate::shm`): a memory file of 64-bit words mapped `MAP_SHARED`
//! read-write, and the process-shared futex calls that sleep on and wake one of its
//! words.
//!
//! Why `unsafe` is allowed here: `mmap`, `munmap` and the `futex` system call are foreign
//! functions, and the words are handed out as `&AtomicU64` made from the mapping's
//! pointer; each block says why that is sound.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// A read-write `MAP_SHARED` mapping of a memory file, seen as `len` 64-bit atomic words.
/// The file is sealed against shrinking and growing (not against writes), so no process
/// holding it can make the mapping fault; every access goes through atomics, so what
/// another process writes is never undefined behaviour here, only possibly a wrong value.
#[derive(Debug)]
pub struct SharedWords {
    ptr: std::ptr::NonNull<AtomicU64>,
    len: usize,
}

// SAFETY: the mapping is owned by this value alone and only ever accessed through
// `&AtomicU64`, which is `Sync`; moving the owner between threads moves no memory.
unsafe impl Send for SharedWords {}
// SAFETY: as above: shared access is atomic access.
unsafe impl Sync for SharedWords {}

impl SharedWords {
    /// A new zeroed memory file of `len` words (`memfd_create`, sized with `ftruncate`,
    /// sealed against shrinking, growing and further sealing) and its mapping.
    ///
    /// # Errors
    /// The `memfd_create` (`ENOSYS` without it), `ftruncate`, seal or `mmap` error;
    /// `InvalidInput` for `len` 0.
    pub fn create(name: &str, len: usize) -> io::Result<(SharedWords, OwnedFd)> {
        use rustix::fs::{MemfdFlags, SealFlags};
        if len == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "0 words"));
        }
        let fd = rustix::fs::memfd_create(name, MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)?;
        rustix::fs::ftruncate(&fd, (len * 8) as u64)?;
        rustix::fs::fcntl_add_seals(&fd, SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL)?;
        let w = SharedWords::map(&fd, len)?;
        Ok((w, fd))
    }

    /// Map a memory file [`SharedWords::create`] made, which must be sealed against size
    /// changes and hold exactly `len` words.
    ///
    /// # Errors
    /// `InvalidData` for a file that is not so sealed or of another size; the `mmap` error.
    pub fn attach(fd: &impl AsFd, len: usize) -> io::Result<SharedWords> {
        use rustix::fs::SealFlags;
        let sealed = rustix::fs::fcntl_get_seals(fd)
            .is_ok_and(|s| s.contains(SealFlags::SHRINK | SealFlags::GROW));
        let size = rustix::fs::fstat(fd)?.st_size;
        if !sealed || len == 0 || size != (len * 8) as i64 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "shared area of {} bytes (sealed: {}), {} expected",
                    size,
                    sealed,
                    len * 8
                ),
            ));
        }
        SharedWords::map(fd, len)
    }

    /// Map a whole sealed memory file made by [`SharedWords::create`], its length taken
    /// from the file (between 1 and `max` words; a size that is not a whole number of
    /// words is refused).
    ///
    /// # Errors
    /// `InvalidData` for an unsealed file or a size out of bounds; as `mmap`.
    pub fn attach_whole(fd: &impl AsFd, max: usize) -> io::Result<SharedWords> {
        let size = rustix::fs::fstat(fd)?.st_size;
        let len = usize::try_from(size).unwrap_or(0) / 8;
        if size % 8 != 0 || len == 0 || len > max {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("shared area of {} bytes (at most {} words)", size, max),
            ));
        }
        SharedWords::attach(fd, len)
    }

    fn map(fd: &impl AsFd, len: usize) -> io::Result<SharedWords> {
        // SAFETY: a fresh mapping chosen by the kernel (NULL hint) of `len * 8` > 0 bytes
        // of a file at least that long whose size is sealed; no existing memory is
        // touched, and the result is checked for MAP_FAILED before use.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len * 8,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_fd().as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        match std::ptr::NonNull::new(p.cast::<AtomicU64>()) {
            Some(ptr) => Ok(SharedWords { ptr, len }),
            None => Err(io::Error::other("mmap returned NULL")),
        }
    }

    /// How many words.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for no words (never, for a mapped area).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Word `i` (panics beyond [`SharedWords::len`], a programming error).
    pub fn word(&self, i: usize) -> &AtomicU64 {
        assert!(i < self.len, "shared word {} of {}", i, self.len);
        // SAFETY: `i < len`, so the address is inside the live, page-aligned (hence
        // 8-aligned) read-write mapping, which stays mapped as long as `self` (unmapped
        // only in `drop`). Other processes write it only through atomics of the same size.
        unsafe { &*self.ptr.as_ptr().add(i) }
    }
}

impl SharedWords {
    /// Words `at .. at + n` (panics beyond [`SharedWords::len`], a programming error).
    pub fn words(&self, at: usize, n: usize) -> &[AtomicU64] {
        assert!(
            at.checked_add(n).is_some_and(|e| e <= self.len),
            "shared words {}+{} of {}",
            at,
            n,
            self.len
        );
        // SAFETY: `at + n <= len`, so the words are inside the live, page-aligned (hence
        // 8-aligned) read-write mapping, which stays mapped as long as `self` (unmapped
        // only in `drop`). Other processes write it only through atomics of the same size.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(at), n) }
    }
}

impl Drop for SharedWords {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are what mmap returned; no `&AtomicU64` from `word` can
        // outlive `self`, so nothing refers to the pages any more.
        let rc = unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len * 8) };
        if rc != 0 {
            log::warn!("munmap failed: {}", io::Error::last_os_error());
        }
    }
}

/// The address of the upper 32 bits of `word` (a little-endian machine's second half),
/// the futex word of the fence area.
fn upper_half(word: &AtomicU64) -> *const u32 {
    // Only the kernel reads through it (the futex call compares it atomically).
    (word.as_ptr() as *const u32).wrapping_add(if cfg!(target_endian = "little") { 1 } else { 0 })
}

/// Sleep while the upper 32 bits of `word` equal `expected`, for at most `timeout`
/// (`None`: no limit). Returns when woken ([`futex_wake`]), when the value differs
/// already, on a signal, or at the timeout; the caller re-checks the word in any case.
/// Process-shared: the word may live in a `MAP_SHARED` mapping.
pub fn futex_wait(word: &AtomicU64, expected: u32, timeout: Option<Duration>) {
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: d.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    });
    let tsp = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: the futex word is 4-aligned memory inside the live `AtomicU64` borrowed for
    // the whole call; the kernel only reads it (and compares it with `expected`), and
    // `tsp` is NULL or points at the local `ts`, alive for the call. Errors (EAGAIN when
    // the value differs, EINTR, ETIMEDOUT) are all "re-check", so the result is ignored.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            upper_half(word),
            libc::FUTEX_WAIT,
            expected,
            tsp,
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}

/// Wake every thread (of any process) sleeping in [`futex_wait`] on `word`.
pub fn futex_wake(word: &AtomicU64) {
    // SAFETY: as in `futex_wait`; FUTEX_WAKE does not even read the word, it only names
    // the wait queue by its address.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            upper_half(word),
            libc::FUTEX_WAKE,
            i32::MAX,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}
