//! Files of an OpenPMIx 4.2.x ds21 store (`docs/DS21.md`): segments written with plain
//! writes, or later through a shared mapping ([`Mapping`]), and the lock segment, whose
//! process-shared mutexes only `pthread_mutex_init` can make and the writer takes with
//! a deadline ([`LockSeg`]).
//!
//! Why `unsafe` is allowed here: [`lock_segment`] maps the file it has just sized and
//! runs `pthread_mutexattr_*` and `pthread_mutex_init` on mutexes inside that mapping;
//! [`LockSeg`] locks and unlocks them; [`Mapping::write`] copies bytes into a mapping;
//! each block says why it is sound.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Create `path` (mode 0600; an existing file is replaced) of `size` bytes: `prefix`,
/// then zeros (a sparse tail).
///
/// # Errors
/// The file cannot be created or written, or `prefix` is longer than `size`.
pub fn segment(path: &Path, size: usize, prefix: &[u8]) -> io::Result<()> {
    if prefix.len() > size {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} bytes do not fit a {size}-byte segment", prefix.len()),
        ));
    }
    let mut f = create(path)?;
    f.write_all(prefix)?;
    f.set_len(size as u64)
}

/// Overwrite the existing file `path` at byte `at` with `bytes` (one `pwrite`; a
/// reader that maps the file sees them through the page cache).
///
/// # Errors
/// The file cannot be opened or written.
pub fn overwrite_at(path: &Path, at: u64, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let f = OpenOptions::new().write(true).open(path)?;
    f.write_all_at(bytes, at)
}

fn create(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

/// `sizeof(pthread_mutex_t)` here.
pub fn mutex_size() -> usize {
    std::mem::size_of::<libc::pthread_mutex_t>()
}

/// The cache line OpenPMIx's server aligns mutexes to (`sysconf`; 64 when unknown).
pub fn cache_line() -> usize {
    // SAFETY: sysconf takes an integer and returns one; it touches no memory of ours.
    let n = unsafe { libc::sysconf(libc::_SC_LEVEL1_DCACHE_LINESIZE) };
    if n > 0 {
        n as usize
    } else {
        64
    }
}

/// The page size.
pub fn page_size() -> usize {
    // SAFETY: as in `cache_line`.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

/// Create the lock segment `path`: `size` bytes (whole pages) beginning with `header`,
/// and `count` process-shared mutexes, the first at `first`, `stride` bytes apart; the
/// segment stays mapped for the writer's locking.
///
/// # Errors
/// The file cannot be created, sized, written or mapped; a mutex does not fit in `size`
/// or is misaligned; `pthread_mutex_init` fails.
pub fn lock_segment(
    path: &Path,
    size: usize,
    header: &[u8],
    (first, stride, count): (usize, usize, usize),
) -> io::Result<LockSeg> {
    let msize = mutex_size();
    let align = std::mem::align_of::<libc::pthread_mutex_t>();
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_string());
    if count > 0 && first + (count - 1) * stride + msize > size {
        return Err(bad("ds21: lock segment too small for its mutexes"));
    }
    if first % align != 0 || stride % align != 0 || stride < msize {
        return Err(bad("ds21: misaligned or overlapping mutexes"));
    }
    segment(path, size, header)?;
    let f = OpenOptions::new().read(true).write(true).open(path)?;
    let map = Mapping::new(&f, size)?;
    let at = |j: usize| first + j * stride;
    // The writer's order (see `lock_all`): each client's first ("signal") mutex, then
    // each client's second, fixed once here rather than at every commit.
    let mutexes: Vec<usize> = (0..count)
        .step_by(2)
        .chain((1..count).step_by(2))
        .map(at)
        .collect();
    for &m in &mutexes {
        map.init_mutex(m)?;
    }
    Ok(LockSeg { map, mutexes })
}

/// A mapped lock segment: its mutexes (checked to lie inside the mapping, aligned,
/// initialised process-shared by [`lock_segment`]).
#[derive(Debug)]
pub struct LockSeg {
    map: Mapping,
    /// The mutexes' offsets, in the order the writer locks them.
    mutexes: Vec<usize>,
}

impl LockSeg {
    fn mutex(&self, at: usize) -> *mut libc::pthread_mutex_t {
        // SAFETY: `at` is one of `mutexes`, inside the mapping (checked by
        // `lock_segment`), so the pointer stays within the mapped object.
        unsafe { self.map.ptr.cast::<u8>().add(at).cast() }
    }

    /// Lock every mutex as OpenPMIx's writer does (each client's first, "signal", lock,
    /// then each client's second), waiting until `within` from now at most in all.
    /// `false` (and nothing held) when one cannot be had by then: a reader is stuck
    /// holding it, or died holding it (the mutexes are not robust).
    pub fn lock_all(&self, within: std::time::Duration) -> bool {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes the one timespec we pass.
        if unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut now) } != 0 {
            return false;
        }
        let ns = now.tv_nsec as u64 + u64::from(within.subsec_nanos());
        let deadline = libc::timespec {
            tv_sec: now.tv_sec
                + within.as_secs() as libc::time_t
                + (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as _,
        };
        let order = &self.mutexes;
        for (n, &at) in order.iter().enumerate() {
            // SAFETY: a process-shared mutex `pthread_mutex_init` made in our mapping
            // (see `mutex`); readers in other processes use it the same way.
            let rc = unsafe { libc::pthread_mutex_timedlock(self.mutex(at), &deadline) };
            if rc != 0 {
                order[..n].iter().rev().for_each(|&a| self.unlock(a));
                return false;
            }
        }
        true
    }

    /// Unlock every mutex [`LockSeg::lock_all`] locked.
    pub fn unlock_all(&self) {
        self.mutexes.iter().rev().for_each(|&a| self.unlock(a));
    }

    fn unlock(&self, at: usize) {
        // SAFETY: as in `lock_all`; called only for a mutex this thread locked.
        unsafe {
            libc::pthread_mutex_unlock(self.mutex(at));
        }
    }
}

/// Map the existing file `path`, `len` bytes, for [`Mapping::write`].
///
/// # Errors
/// The file cannot be opened or mapped.
pub fn map(path: &Path, len: usize) -> io::Result<Mapping> {
    let f = OpenOptions::new().read(true).write(true).open(path)?;
    Mapping::new(&f, len)
}

/// A writable shared mapping of a whole file, unmapped on drop.
#[derive(Debug)]
pub struct Mapping {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is plain shared memory owned by this value; every access goes
// through `&self` methods that copy bytes or call pthread functions meant for memory
// shared between processes (and so threads); moving it to another thread changes
// nothing.
unsafe impl Send for Mapping {}

impl Mapping {
    fn new(f: &File, len: usize) -> io::Result<Mapping> {
        use std::os::fd::AsRawFd;
        // SAFETY: a fresh mapping chosen by the kernel (NULL hint), of a file we opened
        // read-write and sized to `len`; no existing memory is affected.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapping { ptr, len })
    }

    /// Copy `bytes` to offset `at` of the mapping. Readers in other processes may see
    /// them in any order and torn; the caller holds their locks or writes only what a
    /// torn read cannot make wrong.
    ///
    /// # Errors
    /// `InvalidInput` when the bytes do not fit inside the mapping.
    pub fn write(&self, at: usize, bytes: &[u8]) -> io::Result<()> {
        if at.checked_add(bytes.len()).is_none_or(|end| end > self.len) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "ds21: write past the segment",
            ));
        }
        // SAFETY: the destination range lies inside our mapping (checked above) and
        // cannot overlap `bytes`, which Rust owns elsewhere; the file behind it is ours
        // and never truncated while mapped.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.ptr.cast::<u8>().add(at),
                bytes.len(),
            );
        }
        Ok(())
    }

    /// Initialise a process-shared mutex at byte `at` (checked by the caller to lie
    /// inside the mapping and be aligned for a `pthread_mutex_t`).
    fn init_mutex(&self, at: usize) -> io::Result<()> {
        debug_assert!(at + mutex_size() <= self.len);
        let mut attr = std::mem::MaybeUninit::<libc::pthread_mutexattr_t>::uninit();
        // SAFETY: `attr` is a local the init call fills before any other use; the mutex
        // pointer is inside our mapping (`at + sizeof <= len`, checked by
        // `lock_segment`), aligned (the mapping is page-aligned and `at` a multiple of
        // the mutex's alignment), and no other thread of ours uses that memory; the
        // attribute is destroyed after the mutex is made from it.
        let rc = unsafe {
            let a = attr.as_mut_ptr();
            let mut rc = libc::pthread_mutexattr_init(a);
            if rc == 0 {
                rc = libc::pthread_mutexattr_setpshared(a, libc::PTHREAD_PROCESS_SHARED);
                if rc == 0 {
                    let m = self
                        .ptr
                        .cast::<u8>()
                        .add(at)
                        .cast::<libc::pthread_mutex_t>();
                    rc = libc::pthread_mutex_init(m, a);
                }
                libc::pthread_mutexattr_destroy(a);
            }
            rc
        };
        match rc {
            0 => Ok(()),
            e => Err(io::Error::from_raw_os_error(e)),
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are the mapping `new` made; nothing refers into it past
        // this point (the mutexes live on in the file, not in this mapping).
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_segment_holds_process_shared_mutexes() {
        let dir = std::env::temp_dir().join(format!("ds21-sys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("lock");
        let align = (mutex_size() / 64 + 1) * 64;
        lock_segment(&p, 4096, &[7u8; 32], (64, align, 4)).unwrap();
        let b = std::fs::read(&p).unwrap();
        assert_eq!(b.len(), 4096);
        assert_eq!(&b[..32], &[7u8; 32]);
        if cfg!(all(
            target_os = "linux",
            target_env = "gnu",
            target_pointer_width = "64"
        )) {
            // glibc marks a process-shared mutex in its kind word (byte 16)
            for j in 0..4 {
                assert_eq!(b[64 + j * align + 16], 0x80, "mutex {j}");
            }
        }
        assert!(lock_segment(&p, 4096, &[], (64, align, 100)).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_held_lock_is_waited_for_only_until_the_deadline() {
        let dir = std::env::temp_dir().join(format!("ds21-sys-l-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("lock");
        let align = (mutex_size() / 64 + 1) * 64;
        let l = lock_segment(&p, 4096, &[0u8; 32], (64, align, 4)).unwrap();
        let wait = std::time::Duration::from_millis(20);
        assert!(l.lock_all(wait));
        // held (by us, as if by a reader): a second writer gives up in time
        let t = std::time::Instant::now();
        assert!(!l.lock_all(wait));
        assert!(t.elapsed() >= wait);
        l.unlock_all();
        assert!(l.lock_all(wait));
        l.unlock_all();
        let m = map(&p, 4096).unwrap();
        m.write(4090, &[1; 6]).unwrap();
        assert!(m.write(4091, &[1; 6]).is_err());
        drop(m);
        assert_eq!(std::fs::read(&p).unwrap()[4090..], [1; 6]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
