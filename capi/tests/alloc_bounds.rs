//! Regression (found reviewing the decoders during the robustness work): a sequence count
//! was checked only against "one byte per item", then `Vec::with_capacity(count)`
//! reserved `count * size_of::<T>()` bytes — for `Vec<Info>` about 100 times the input.
//! A 64 MiB protocol frame could so make a server reserve gigabytes before failing, and
//! under an address-space limit (`ulimit -v`, common on HPC nodes) the failed allocation
//! aborts the process. This binary counts the largest single allocation per thread and
//! checks that hostile counts cost at most a small multiple of the input.

use pmix_core::codec::{from_bytes, Wire};
use pmix_core::{Info, Value};
use pmix_sys as sys;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Peak;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: never touch a thread-local that is being torn down
    let _ = LARGEST.try_with(|m| {
        if size > m.get() {
            m.set(size)
        }
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator; the bookkeeping
// only touches a const-initialised thread-local `Cell`, which never allocates.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note(l.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` came from `System` with layout `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        note(l.size());
        // SAFETY: forwarded.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        note(new);
        // SAFETY: forwarded; `p` came from `System` with layout `l`.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// The largest single allocation `f` makes on this thread.
fn largest_allocation(f: impl FnOnce()) -> usize {
    LARGEST.with(|m| m.set(0));
    f();
    LARGEST.with(|m| m.get())
}

/// A sequence count claiming one item per remaining byte, followed by bytes that make
/// the first item fail (a key length of 4 GiB).
fn hostile_seq(n: u32) -> Vec<u8> {
    let mut b = Vec::new();
    n.encode(&mut b);
    b.resize(4 + n as usize, 0xff);
    b
}

#[test]
fn hostile_sequence_count_does_not_reserve_per_claimed_item() {
    let input = hostile_seq(1 << 20);
    let peak = largest_allocation(|| {
        assert!(from_bytes::<Vec<Info>>(&input).is_err());
        assert!(from_bytes::<Vec<Value>>(&input).is_err());
    });
    assert!(
        peak <= 4 * input.len(),
        "decoding {} hostile bytes reserved {} bytes at once",
        input.len(),
        peak
    );
}

#[test]
fn hostile_unpack_record_count_does_not_reserve_per_claimed_item() {
    // a PMIx_Data_pack record: type, count, then garbage items
    let n: u32 = 1 << 20;
    let mut rec = Vec::new();
    sys::PMIX_INFO.encode(&mut rec);
    n.encode(&mut rec);
    rec.resize(rec.len() + 2 * n as usize, 0xff);
    // SAFETY: all-zero is an empty pmix_data_buffer_t.
    let mut buf: sys::pmix_data_buffer_t = unsafe { core::mem::zeroed() };
    pmix::conv::dbuf_to_c(&rec, &mut buf).unwrap();
    // SAFETY: all-zero is a constructed pmix_info_t.
    let mut dest: [sys::pmix_info_t; 1] = unsafe { core::mem::zeroed() };
    let mut max = 1i32;
    let peak = largest_allocation(|| {
        // SAFETY: a valid buffer and room for one info.
        let rc = unsafe {
            pmix::helpers::buffer::PMIx_Data_unpack(
                core::ptr::null(),
                &mut buf,
                dest.as_mut_ptr() as *mut core::ffi::c_void,
                &mut max,
                sys::PMIX_INFO,
            )
        };
        assert!(rc < 0);
    });
    // SAFETY: our buffer.
    unsafe { pmix::helpers::buffer::PMIx_Data_buffer_destruct(&mut buf) };
    assert!(
        peak <= 4 * rec.len(),
        "unpacking {} hostile bytes reserved {} bytes at once",
        rec.len(),
        peak
    );
}
