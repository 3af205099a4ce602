//! `pmix_cuda_comms_create` and the `CUhostCommunicationsVtable` methods
//! (`include/pmix_cuda.h`). Each method converts its C arguments, calls
//! `pmix_core::cuda` and turns the result into CUDA's convention: 0, a negative
//! `CUcommsStatus`, or a positive fatal code (the negated `pmix_status_t`).
//!
//! Object and request handles are the engine's ids dressed as `void *` (never
//! dereferenced), so a stale or garbage handle becomes `CU_COMMS_ERROR_INVALID_VALUE`.
//!
//! The enumerator values come from the one table in `include/pmix_cuda.h`, read at
//! compile time ([`header_value`]), so correcting that table corrects the library.

use core::ffi::{c_int, c_void};
use pmix_core::cuda::{self, Finished, ObjectId, ReduceOp, RequestId};
use pmix_core::Error;
use pmix_sys as sys;

/// `cuuint64_t`.
pub type cuuint64_t = u64;

/// `CUhostCommunicationsVtable`, member for member as CUDA documents it.
#[repr(C)]
pub struct CUhostCommunicationsVtable {
    /// Interface revision: 1.
    pub version: c_int,
    /// `int (*resize)(void *this_, int size)`
    pub resize: Option<unsafe extern "C" fn(*mut c_void, c_int) -> c_int>,
    /// `int (*get_comm_id)(void *this_, int comm_index, cuuint64_t *id_out)`
    pub get_comm_id: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut cuuint64_t) -> c_int>,
    /// `int (*barrier)(void *this_, int comm_index, void **request_out)`
    pub barrier: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut *mut c_void) -> c_int>,
    /// `int (*allreduce_uint64)(void *this_, int comm_index, const cuuint64_t *sendbuf,
    /// cuuint64_t *recvbuf, int count, CUcommsReductionOp op, void **request_out)`
    pub allreduce_uint64: Option<
        unsafe extern "C" fn(
            *mut c_void,
            c_int,
            *const cuuint64_t,
            *mut cuuint64_t,
            c_int,
            c_int,
            *mut *mut c_void,
        ) -> c_int,
    >,
    /// `int (*test)(void *this_, void **request, int *flag_out)`
    pub test: Option<unsafe extern "C" fn(*mut c_void, *mut *mut c_void, *mut c_int) -> c_int>,
    /// `int (*testany)(void *this_, int count, void **requests, int *index_out)`
    pub testany:
        Option<unsafe extern "C" fn(*mut c_void, c_int, *mut *mut c_void, *mut c_int) -> c_int>,
    /// `int (*check_async_error)(void *this_)`
    pub check_async_error: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    /// `void (*retain)(void *this_)`
    pub retain: Option<unsafe extern "C" fn(*mut c_void)>,
    /// `void (*release)(void *this_)`
    pub release: Option<unsafe extern "C" fn(*mut c_void)>,
}

// Layout facts: ten 8-byte slots on LP64 (the int is padded).
const _: () = assert!(core::mem::size_of::<CUhostCommunicationsVtable>() == 80);
const _: () = assert!(core::mem::offset_of!(CUhostCommunicationsVtable, resize) == 8);
const _: () = assert!(core::mem::offset_of!(CUhostCommunicationsVtable, release) == 72);

const HEADER: &str = include_str!("../../include/pmix_cuda.h");

const fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The value of enumerator `name` in `include/pmix_cuda.h`: the first `name = <integer>`
/// (optionally negative) in the file. Evaluated at compile time; a missing or malformed
/// entry is a build error.
pub const fn header_value(name: &str) -> c_int {
    let h = HEADER.as_bytes();
    let n = name.as_bytes();
    let mut i = 0;
    while i + n.len() <= h.len() {
        let mut j = 0;
        while j < n.len() && h[i + j] == n[j] {
            j += 1;
        }
        let before_ok = i == 0 || !is_ident(h[i - 1]);
        if j == n.len() && before_ok {
            let mut k = i + n.len();
            if k < h.len() && is_ident(h[k]) {
                i += 1;
                continue;
            }
            while k < h.len() && h[k] == b' ' {
                k += 1;
            }
            if k < h.len() && h[k] == b'=' {
                k += 1;
                while k < h.len() && h[k] == b' ' {
                    k += 1;
                }
                let neg = k < h.len() && h[k] == b'-';
                if neg {
                    k += 1;
                }
                let mut v: c_int = 0;
                let mut digits = 0;
                while k < h.len() && h[k].is_ascii_digit() {
                    v = v * 10 + (h[k] - b'0') as c_int;
                    k += 1;
                    digits += 1;
                }
                if digits == 0 {
                    panic!("include/pmix_cuda.h: enumerator without a decimal value");
                }
                return if neg { -v } else { v };
            }
        }
        i += 1;
    }
    panic!("include/pmix_cuda.h: enumerator not found")
}

/// `CU_COMMS_ERROR_INVALID_VALUE`.
pub const CU_COMMS_ERROR_INVALID_VALUE: c_int = header_value("CU_COMMS_ERROR_INVALID_VALUE");
/// `CU_COMMS_ERROR_OUT_OF_MEMORY`.
pub const CU_COMMS_ERROR_OUT_OF_MEMORY: c_int = header_value("CU_COMMS_ERROR_OUT_OF_MEMORY");
/// `CU_COMMS_ERROR_NOT_SUPPORTED`.
pub const CU_COMMS_ERROR_NOT_SUPPORTED: c_int = header_value("CU_COMMS_ERROR_NOT_SUPPORTED");

/// `CUcommsReductionOp` values and the reductions they name.
pub const REDUCTION_OPS: [(c_int, ReduceOp); 6] = [
    (header_value("CU_COMMS_REDUCTION_OP_SUM"), ReduceOp::Sum),
    (header_value("CU_COMMS_REDUCTION_OP_MIN"), ReduceOp::Min),
    (header_value("CU_COMMS_REDUCTION_OP_MAX"), ReduceOp::Max),
    (header_value("CU_COMMS_REDUCTION_OP_BAND"), ReduceOp::BitAnd),
    (header_value("CU_COMMS_REDUCTION_OP_BOR"), ReduceOp::BitOr),
    (header_value("CU_COMMS_REDUCTION_OP_BXOR"), ReduceOp::BitXor),
];

// CUDA's convention: 0 is success, statuses are negative.
const _: () = assert!(header_value("CU_COMMS_SUCCESS") == 0);
const _: () = assert!(CU_COMMS_ERROR_INVALID_VALUE < 0);
const _: () = assert!(CU_COMMS_ERROR_OUT_OF_MEMORY < 0);
const _: () = assert!(CU_COMMS_ERROR_NOT_SUPPORTED < 0);

/// The vtable every object shares.
static VTABLE: CUhostCommunicationsVtable = CUhostCommunicationsVtable {
    version: 1,
    resize: Some(comms_resize),
    get_comm_id: Some(comms_get_comm_id),
    barrier: Some(comms_barrier),
    allreduce_uint64: Some(comms_allreduce_uint64),
    test: Some(comms_test),
    testany: Some(comms_testany),
    check_async_error: Some(comms_check_async_error),
    retain: Some(comms_retain),
    release: Some(comms_release),
};

/// A positive fatal code for a failed operation: the negated PMIx status.
fn fatal(e: &Error) -> c_int {
    if e.status < 0 {
        -e.status
    } else {
        -sys::PMIX_ERROR
    }
}

/// A method's error as CUDA sees it (bad input is logged).
fn code(method: &str, e: &Error) -> c_int {
    match e.status {
        sys::PMIX_ERR_BAD_PARAM => {
            log::warn!("CUhostCommunicationsVtable.{}: {}", method, e.context);
            CU_COMMS_ERROR_INVALID_VALUE
        }
        sys::PMIX_ERR_OUT_OF_RESOURCE => {
            log::warn!("CUhostCommunicationsVtable.{}: {}", method, e.context);
            CU_COMMS_ERROR_OUT_OF_MEMORY
        }
        _ => {
            log::debug!("CUhostCommunicationsVtable.{}: {}", method, e);
            fatal(e)
        }
    }
}

fn invalid(method: &str, what: &str) -> c_int {
    log::warn!("CUhostCommunicationsVtable.{}: {}", method, what);
    CU_COMMS_ERROR_INVALID_VALUE
}

fn object_id(this_: *mut c_void) -> ObjectId {
    this_.addr() as ObjectId
}

fn handle(id: u64) -> *mut c_void {
    core::ptr::without_provenance_mut(id as usize)
}

/// Deliver a finished request: write an allreduce's result into its receive buffer.
///
/// # Safety
/// `f.sink` is 0 or the receive buffer the request was started with, still valid for
/// as many `cuuint64_t` as the result holds (the caller's contract with CUDA).
unsafe fn deliver(f: Finished) -> c_int {
    match f.outcome {
        Ok(values) => {
            if f.sink != 0 && !values.is_empty() {
                let dst: *mut u8 = core::ptr::with_exposed_provenance_mut(f.sink);
                // SAFETY: the receive buffer holds `count` (= values.len()) elements
                // (contract above); a byte copy needs no alignment.
                unsafe {
                    core::ptr::copy_nonoverlapping(
                        values.as_ptr().cast::<u8>(),
                        dst,
                        values.len() * 8,
                    )
                };
            }
            0
        }
        Err(e) => fatal(&e),
    }
}

/// Create a communications object over `procs` (see `include/pmix_cuda.h`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_INIT`, `PMIX_ERR_NOT_A_MEMBER`,
/// `PMIX_ERR_PROC_TERM_WO_SYNC`, `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_UNREACH`.
///
/// # Safety
/// `procs` is NULL or points to `nprocs` processes; `object` and `vtable` are NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn pmix_cuda_comms_create(
    procs: *const sys::pmix_proc_t,
    nprocs: usize,
    object: *mut *mut c_void,
    vtable: *mut *const CUhostCommunicationsVtable,
) -> sys::pmix_status_t {
    crate::ffi_status!(pmix_cuda_comms_create, {
        crate::check_null!(object, vtable);
        // SAFETY: NULL or `nprocs` processes (C contract).
        let procs = match unsafe { crate::conv::proc_array_from_c(procs, nprocs) } {
            Ok(p) => p,
            Err(e) => return e.status(),
        };
        let client = match pmix_core::client::global::client() {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        match cuda::create(&client, procs) {
            Ok(id) => {
                // SAFETY: both checked non-NULL and writable (C contract).
                unsafe {
                    *object = handle(id);
                    *vtable = &VTABLE;
                }
                sys::PMIX_SUCCESS
            }
            Err(e) => {
                log::debug!("pmix_cuda_comms_create: {}", e);
                e.status()
            }
        }
    })
}

unsafe extern "C" fn comms_resize(this_: *mut c_void, size: c_int) -> c_int {
    crate::ffi_value!(resize, 1, {
        let Ok(size) = usize::try_from(size) else {
            return invalid("resize", "negative size");
        };
        match cuda::resize(object_id(this_), size) {
            Ok(()) => 0,
            Err(e) => code("resize", &e),
        }
    })
}

unsafe extern "C" fn comms_get_comm_id(
    this_: *mut c_void,
    comm_index: c_int,
    id_out: *mut cuuint64_t,
) -> c_int {
    crate::ffi_value!(get_comm_id, 1, {
        if id_out.is_null() {
            return invalid("get_comm_id", "NULL id_out");
        }
        let Ok(comm) = usize::try_from(comm_index) else {
            return invalid("get_comm_id", "negative communicator index");
        };
        match cuda::comm_id(object_id(this_), comm) {
            Ok(id) => {
                // SAFETY: non-NULL, writable (C contract).
                unsafe { id_out.write_unaligned(id) };
                0
            }
            Err(e) => code("get_comm_id", &e),
        }
    })
}

unsafe extern "C" fn comms_barrier(
    this_: *mut c_void,
    comm_index: c_int,
    request_out: *mut *mut c_void,
) -> c_int {
    crate::ffi_value!(barrier, 1, {
        if request_out.is_null() {
            return invalid("barrier", "NULL request_out");
        }
        let Ok(comm) = usize::try_from(comm_index) else {
            return invalid("barrier", "negative communicator index");
        };
        match cuda::barrier(object_id(this_), comm) {
            Ok(r) => {
                // SAFETY: non-NULL, writable (C contract).
                unsafe { *request_out = handle(r) };
                0
            }
            Err(e) => code("barrier", &e),
        }
    })
}

unsafe extern "C" fn comms_allreduce_uint64(
    this_: *mut c_void,
    comm_index: c_int,
    sendbuf: *const cuuint64_t,
    recvbuf: *mut cuuint64_t,
    count: c_int,
    op: c_int,
    request_out: *mut *mut c_void,
) -> c_int {
    crate::ffi_value!(allreduce_uint64, 1, {
        if request_out.is_null() {
            return invalid("allreduce_uint64", "NULL request_out");
        }
        let Ok(comm) = usize::try_from(comm_index) else {
            return invalid("allreduce_uint64", "negative communicator index");
        };
        let Ok(count) = usize::try_from(count) else {
            return invalid("allreduce_uint64", "negative count");
        };
        if count > 0 && (sendbuf.is_null() || recvbuf.is_null()) {
            return invalid("allreduce_uint64", "NULL sendbuf or recvbuf");
        }
        let Some(&(_, op)) = REDUCTION_OPS.iter().find(|(v, _)| *v == op) else {
            log::warn!(
                "CUhostCommunicationsVtable.allreduce_uint64: unknown op {}",
                op
            );
            return CU_COMMS_ERROR_NOT_SUPPORTED;
        };
        if count > cuda::MAX_COUNT {
            log::warn!(
                "CUhostCommunicationsVtable.allreduce_uint64: {} elements, at most {}",
                count,
                cuda::MAX_COUNT
            );
            return CU_COMMS_ERROR_OUT_OF_MEMORY;
        }
        // SAFETY: `sendbuf` holds `count` elements (C contract); read unaligned.
        let values: Vec<u64> = (0..count)
            .map(|i| unsafe { sendbuf.add(i).read_unaligned() })
            .collect();
        let sink = if count > 0 {
            recvbuf.expose_provenance()
        } else {
            0
        };
        match cuda::allreduce(object_id(this_), comm, &values, op, sink) {
            Ok(r) => {
                // SAFETY: non-NULL, writable (C contract).
                unsafe { *request_out = handle(r) };
                0
            }
            Err(e) => code("allreduce_uint64", &e),
        }
    })
}

unsafe extern "C" fn comms_test(
    this_: *mut c_void,
    request: *mut *mut c_void,
    flag_out: *mut c_int,
) -> c_int {
    crate::ffi_value!(test, 1, {
        if request.is_null() || flag_out.is_null() {
            return invalid("test", "NULL request or flag_out");
        }
        // SAFETY: non-NULL, readable (C contract).
        let req = unsafe { *request }.addr() as RequestId;
        if req == 0 {
            // SAFETY: non-NULL, writable.
            unsafe { *flag_out = 1 };
            return 0;
        }
        match cuda::test(object_id(this_), req) {
            Ok(None) => {
                // SAFETY: as above.
                unsafe { *flag_out = 0 };
                0
            }
            Ok(Some(f)) => {
                // SAFETY: as above; the receive buffer is the caller's (see `deliver`).
                unsafe {
                    *flag_out = 1;
                    *request = core::ptr::null_mut();
                    deliver(f)
                }
            }
            Err(e) => code("test", &e),
        }
    })
}

unsafe extern "C" fn comms_testany(
    this_: *mut c_void,
    count: c_int,
    requests: *mut *mut c_void,
    index_out: *mut c_int,
) -> c_int {
    crate::ffi_value!(testany, 1, {
        if index_out.is_null() {
            return invalid("testany", "NULL index_out");
        }
        let Ok(n) = usize::try_from(count) else {
            return invalid("testany", "negative count");
        };
        if requests.is_null() && n > 0 {
            return invalid("testany", "NULL requests with count > 0");
        }
        let reqs: Vec<Option<RequestId>> = (0..n)
            .map(|i| {
                // SAFETY: `requests` holds `count` handles (C contract).
                let h = unsafe { *requests.add(i) }.addr() as RequestId;
                (h != 0).then_some(h)
            })
            .collect();
        match cuda::test_any(object_id(this_), &reqs) {
            Ok(None) => {
                // SAFETY: non-NULL, writable.
                unsafe { *index_out = -1 };
                0
            }
            Ok(Some((i, f))) => {
                // SAFETY: `i < count`; the receive buffer is the caller's (see `deliver`).
                unsafe {
                    *index_out = i as c_int;
                    *requests.add(i) = core::ptr::null_mut();
                    deliver(f)
                }
            }
            Err(e) => code("testany", &e),
        }
    })
}

unsafe extern "C" fn comms_check_async_error(this_: *mut c_void) -> c_int {
    crate::ffi_value!(check_async_error, 1, {
        match cuda::async_error(object_id(this_)) {
            Ok(0) => 0,
            Ok(st) => fatal(&Error::new(st, "")),
            Err(e) => code("check_async_error", &e),
        }
    })
}

unsafe extern "C" fn comms_retain(this_: *mut c_void) {
    crate::ffi_value!(retain, (), {
        if let Err(e) = cuda::retain(object_id(this_)) {
            code("retain", &e);
        }
    })
}

unsafe extern "C" fn comms_release(this_: *mut c_void) {
    crate::ffi_value!(release, (), {
        if let Err(e) = cuda::release(object_id(this_)) {
            code("release", &e);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_read_from_the_header() {
        assert_eq!(header_value("CU_COMMS_SUCCESS"), 0);
        let mut v: Vec<c_int> = REDUCTION_OPS.iter().map(|(v, _)| *v).collect();
        v.sort();
        v.dedup();
        assert_eq!(v.len(), REDUCTION_OPS.len(), "distinct operation values");
    }

    #[test]
    fn bad_handles_and_nulls_are_statuses() {
        let bogus = handle(0xdead_beef);
        let mut req: *mut c_void = core::ptr::null_mut();
        let mut flag = 7;
        let mut idx = 7;
        let mut id = 0u64;
        // SAFETY: every pointer is valid or NULL on purpose.
        unsafe {
            assert_eq!(comms_resize(bogus, 2), CU_COMMS_ERROR_INVALID_VALUE);
            assert_eq!(comms_resize(bogus, -1), CU_COMMS_ERROR_INVALID_VALUE);
            assert_eq!(
                comms_get_comm_id(bogus, 0, &mut id),
                CU_COMMS_ERROR_INVALID_VALUE
            );
            assert_eq!(
                comms_barrier(bogus, 0, core::ptr::null_mut()),
                CU_COMMS_ERROR_INVALID_VALUE
            );
            assert_eq!(
                comms_barrier(bogus, 0, &mut req),
                CU_COMMS_ERROR_INVALID_VALUE
            );
            assert_eq!(
                comms_allreduce_uint64(bogus, 0, &1, &mut id, 1, 12345, &mut req),
                CU_COMMS_ERROR_NOT_SUPPORTED
            );
            assert_eq!(
                comms_allreduce_uint64(
                    bogus,
                    0,
                    core::ptr::null(),
                    &mut id,
                    1,
                    REDUCTION_OPS[0].0,
                    &mut req
                ),
                CU_COMMS_ERROR_INVALID_VALUE
            );
            // A NULL request counts as complete.
            assert_eq!(comms_test(bogus, &mut req, &mut flag), 0);
            assert_eq!(flag, 1);
            let mut stale = handle(99);
            assert_eq!(
                comms_test(bogus, &mut stale, &mut flag),
                CU_COMMS_ERROR_INVALID_VALUE
            );
            assert_eq!(
                comms_testany(bogus, 1, core::ptr::null_mut(), &mut idx),
                CU_COMMS_ERROR_INVALID_VALUE
            );
            assert_ne!(comms_check_async_error(bogus), 0);
            comms_retain(bogus);
            comms_release(bogus);
            let mut obj: *mut c_void = core::ptr::null_mut();
            let mut vt: *const CUhostCommunicationsVtable = core::ptr::null();
            assert_eq!(
                pmix_cuda_comms_create(core::ptr::null(), 0, core::ptr::null_mut(), &mut vt),
                sys::PMIX_ERR_BAD_PARAM
            );
            assert_eq!(
                pmix_cuda_comms_create(core::ptr::null(), 1, &mut obj, &mut vt),
                sys::PMIX_ERR_BAD_PARAM
            );
        }
    }
}
