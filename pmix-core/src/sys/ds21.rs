//! Files of an OpenPMIx 4.2.x ds21 store (`docs/DS21.md`): segments written once with
//! plain writes, and the lock segment, whose process-shared mutexes only
//! `pthread_mutex_init` can make.
//!
//! Why `unsafe` is allowed here: [`lock_segment`] maps the file it has just sized and
//! runs `pthread_mutexattr_*` and `pthread_mutex_init` on mutexes inside that mapping;
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
/// and `count` process-shared mutexes, the first at `first`, `stride` bytes apart.
///
/// # Errors
/// The file cannot be created, sized, written or mapped; a mutex does not fit in `size`
/// or is misaligned; `pthread_mutex_init` fails.
pub fn lock_segment(
    path: &Path,
    size: usize,
    header: &[u8],
    (first, stride, count): (usize, usize, usize),
) -> io::Result<()> {
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
    let map = SharedMap::new(&f, size)?;
    for j in 0..count {
        map.init_mutex(first + j * stride)?;
    }
    Ok(())
}

/// A writable shared mapping of a whole file, unmapped on drop.
struct SharedMap {
    ptr: *mut libc::c_void,
    len: usize,
}

impl SharedMap {
    fn new(f: &File, len: usize) -> io::Result<SharedMap> {
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
        Ok(SharedMap { ptr, len })
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

impl Drop for SharedMap {
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
}
