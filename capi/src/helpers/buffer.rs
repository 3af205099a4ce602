//! `pmix_data_buffer_t` and the data-buffer codec: `PMIx_Data_buffer_*`,
//! `PMIx_Data_pack/unpack/copy/copy_payload/load/unload/embed` and
//! `PMIx_Data_compress/decompress`.
//!
//! A buffer's payload (`base_ptr`, `bytes_allocated`) comes from libc malloc and is
//! owned by the buffer; `PMIx_Data_buffer_destruct`/`release` free it. The payload is
//! in OpenPMIx's bfrops v4.1 byte format ([`pmix_core::codec::v41`]), non-described
//! like 4.2.2's default, so bytes unloaded here load and unpack in OpenPMIx and back:
//! each `PMIx_Data_pack` call appends an `INT32` count and the items.
//! `PMIx_Data_unpack` decodes the whole call before touching `dest` or the unpack
//! pointer, so a truncated or corrupt buffer yields an error and leaves everything
//! unchanged. As in OpenPMIx, the bytes carry no type: unpacking with another type
//! than was packed reads them as that type (usually an error, never a crash).

use super::value::datum_from_c;
use crate::args::Owned;
use crate::conv::{self, alloc};
use crate::{check_null, ffi_status, ffi_value};
use core::ffi::{c_char, c_void};
use pmix_core::codec::v41::{Packer, Unpacker};
use pmix_core::{Result, Value};
use pmix_sys::*;

/// Size of one `dest`/`src` slot of `PMIx_Data_pack`/`unpack` for type `t` (regexes
/// travel as `char *`).
fn slot_size(t: pmix_data_type_t) -> Option<usize> {
    if t == PMIX_REGEX {
        Some(core::mem::size_of::<*mut c_char>())
    } else {
        conv::elem_size(t)
    }
}

/// Append `bytes` to the buffer, growing its malloc'd payload as needed.
fn append(o: &mut Owned<pmix_data_buffer_t>, bytes: &[u8]) -> Result<()> {
    let b = o.get();
    let (off, used) = conv::dbuf_unread_range(b)?;
    let allocated = if b.base_ptr.is_null() {
        0
    } else {
        b.bytes_allocated
    };
    let need = used.checked_add(bytes.len()).ok_or_else(alloc::nomem)?;
    let mut base = b.base_ptr;
    let mut cap = allocated;
    if need > allocated || base.is_null() {
        cap = need.max(allocated.saturating_mul(2)).max(64);
        // SAFETY: `base` is NULL or the buffer's malloc'd payload (the invariant of
        // `Owned`: an initialised buffer owning its payload).
        base = unsafe { alloc::realloc_bytes(base as *mut c_void, cap) }? as *mut c_char;
    }
    // SAFETY: `base` holds `cap >= need` bytes; the first `used` are the old payload.
    unsafe {
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), (base as *mut u8).add(used), bytes.len());
        b.base_ptr = base;
        b.bytes_allocated = cap;
        b.bytes_used = need;
        b.pack_ptr = base.add(need);
        b.unpack_ptr = base.add(off);
    }
    Ok(())
}

/// Read `n` pack items of type `t` from `src`.
///
/// # Safety
/// `src` holds `n` slots of type `t` (see [`slot_size`]).
unsafe fn pack_items(src: *const c_void, n: usize, t: pmix_data_type_t) -> Result<Vec<Value>> {
    let esz = slot_size(t).ok_or_else(|| conv::value::unknown_type(t))?;
    let mut out = Vec::with_capacity(n.min(1024));
    for i in 0..n {
        // SAFETY: slot `i` lies in the caller's array.
        let p = unsafe { (src as *const u8).add(i * esz) };
        out.push(if t == PMIX_REGEX {
            // SAFETY: a regex slot is a `char *`.
            unsafe {
                datum_from_c(
                    core::ptr::read_unaligned(p as *const *const c_void),
                    PMIX_REGEX,
                )
            }?
        } else {
            // SAFETY: slot of type `t`.
            unsafe { conv::elem_from_c(p, t) }?
        });
    }
    Ok(out)
}

/// `pack_items(src, n, t)` in an export whose `# Safety` contract makes `src` hold `n`
/// data of type `t`.
macro_rules! pack_items {
    ($src:expr, $n:expr, $t:expr) => {{
        let (src, n, t) = ($src, $n, $t);
        // SAFETY: the enclosing export's contract: `src` holds `n` data of type `t`,
        // which is what `pack_items` requires.
        unsafe { pack_items(src, n, t) }
    }};
}

/// Append `num_vals` items of `type_` read from `src` to the buffer in the v4.1 byte
/// format. `target` is ignored: every peer gets the same format.
///
/// # Returns
/// `PMIX_SUCCESS`; `PMIX_ERR_BAD_PARAM` (NULL buffer, NULL `src` with items, negative
/// count, malformed items, inconsistent buffer); `PMIX_ERR_UNKNOWN_DATA_TYPE`;
/// `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `target` is NULL or points to an initialised `pmix_proc_t` (only read);
/// - `buffer` is NULL or points to an initialised `pmix_data_buffer_t` that the library
///   reads or fills in as described above;
/// - `src` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_pack(
    target: *const pmix_proc_t,
    buffer: *mut pmix_data_buffer_t,
    src: *mut c_void,
    num_vals: i32,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Data_pack, {
        let _ = target;
        check_null!(buffer);
        let Ok(n) = usize::try_from(num_vals) else {
            return PMIX_ERR_BAD_PARAM;
        };
        if n > 0 {
            check_null!(src);
        }
        let items = match pack_items!(src, n, type_) {
            Ok(v) => v,
            Err(e) => return e.status(),
        };
        let mut p = Packer::new();
        if let Err(e) = p.pack(&items, type_) {
            log::warn!("PMIx_Data_pack: {}", e);
            return e.status();
        }
        // SAFETY: an initialised buffer (C contract).
        let Some(mut b) = crate::arg!(owned buffer) else {
            return PMIX_ERR_BAD_PARAM;
        };
        crate::guard::status_of(append(&mut b, p.as_bytes()))
    })
}

/// Decode the next pack call's items of type `t` and the number of bytes they span.
fn decode_record(bytes: &[u8], t: pmix_data_type_t) -> Result<(Vec<Value>, usize)> {
    let mut u = Unpacker::new(bytes);
    let items = u
        .unpack(t)
        .inspect_err(|e| log::warn!("PMIx_Data_unpack: {}", e))?;
    Ok((items, u.position()))
}

/// Write `v` into unpack slot `p` of type `t`.
///
/// # Safety
/// `p` is a writable slot of type `t`.
unsafe fn unpack_item(v: &Value, p: *mut u8, t: pmix_data_type_t) -> Result<()> {
    if let (PMIX_REGEX, Value::Regex(b)) = (t, v) {
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        let s = alloc::strdup_bytes(&b[..end])?;
        // SAFETY: the slot is a `char *`.
        unsafe { core::ptr::write_unaligned(p as *mut *mut c_char, s) };
        return Ok(());
    }
    // SAFETY: slot of type `t`, which equals `v.dtype()`.
    unsafe { conv::elem_to_c(v, p) }
}

/// Unpack the next record of `type_` into `dest` (up to `*max_num_values` items; the
/// number written is stored back). Strings and structs written into `dest` are
/// malloc'd and belong to the caller. `source` is ignored.
///
/// # Returns
/// `PMIX_SUCCESS`; `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER` when nothing is left (or
/// the next pack call is cut short);
/// `PMIX_ERR_UNPACK_INADEQUATE_SPACE` when `*max_num_values` is 0, or smaller than
/// the record (the first `*max_num_values` items are delivered and the rest of the
/// record is skipped); `PMIX_ERR_UNPACK_FAILURE` for truncated/corrupt data;
/// `PMIX_ERR_BAD_PARAM`; `PMIX_ERR_UNKNOWN_DATA_TYPE`; `PMIX_ERR_NOMEM`. On any error
/// other than inadequate space nothing is written and the buffer does not advance.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `source` is NULL or points to an initialised `pmix_proc_t` (only read);
/// - `buffer` is NULL or points to an initialised `pmix_data_buffer_t` that the library
///   reads or fills in as described above;
/// - `dest` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`);
/// - `max_num_values` is NULL or points to an initialised `i32` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unpack(
    source: *const pmix_proc_t,
    buffer: *mut pmix_data_buffer_t,
    dest: *mut c_void,
    max_num_values: *mut i32,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Data_unpack, {
        let _ = source;
        check_null!(buffer, dest, max_num_values);
        // SAFETY: valid pointers (C contract).
        let (b, max) = unsafe { (&mut *buffer, &mut *max_num_values) };
        let Ok(cap) = usize::try_from(*max) else {
            return PMIX_ERR_BAD_PARAM;
        };
        if cap == 0 {
            return PMIX_ERR_UNPACK_INADEQUATE_SPACE;
        }
        let Some(esz) = slot_size(type_) else {
            *max = 0;
            return PMIX_ERR_UNKNOWN_DATA_TYPE;
        };
        let (off, used) = match conv::dbuf_unread_range(b) {
            Ok(r) => r,
            Err(e) => return e.status(),
        };
        if off == used {
            *max = 0;
            return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
        }
        // SAFETY: the unread region lies inside the payload (checked above).
        let bytes =
            unsafe { core::slice::from_raw_parts((b.base_ptr as *const u8).add(off), used - off) };
        let (items, consumed) = match decode_record(bytes, type_) {
            Ok(r) => r,
            Err(e) => {
                *max = 0;
                return e.status();
            }
        };
        let k = items.len().min(cap);
        for (i, v) in items[..k].iter().enumerate() {
            // SAFETY: `dest` has `cap >= k` slots of `esz` bytes (C contract).
            if let Err(e) = unsafe { unpack_item(v, (dest as *mut u8).add(i * esz), type_) } {
                for j in 0..i {
                    // SAFETY: slots before `i` were filled by us.
                    unsafe { release_slot((dest as *mut u8).add(j * esz), type_) };
                }
                *max = 0;
                return e.status();
            }
        }
        // SAFETY: `off + consumed <= used`, inside the payload.
        b.unpack_ptr = unsafe { b.base_ptr.add(off + consumed) };
        *max = k as i32;
        if items.len() > cap {
            PMIX_ERR_UNPACK_INADEQUATE_SPACE
        } else {
            PMIX_SUCCESS
        }
    })
}

/// Undo [`unpack_item`].
///
/// # Safety
/// `p` is a slot filled by `unpack_item`.
unsafe fn release_slot(p: *mut u8, t: pmix_data_type_t) {
    // SAFETY: promised by the caller.
    unsafe {
        if t == PMIX_REGEX {
            alloc::free(core::ptr::read_unaligned(p as *mut *mut c_char));
        } else {
            conv::elem_destruct(p, t);
        }
    }
}

/// `*dest` = a malloc'd deep copy of the datum at `src` (read as `PMIx_Value_load`
/// reads it; a string gives a `char *`, `PMIX_POINTER` gives `src` itself).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_UNKNOWN_DATA_TYPE`, `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `dest` is NULL or a writable `c_void *` slot (what the library stores there is
///   described above);
/// - `src` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`).
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy(
    dest: *mut *mut c_void,
    src: *mut c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Data_copy, {
        check_null!(dest, src);
        // SAFETY: `src` is a datum of `type_` (C contract).
        let v = match unsafe { datum_from_c(src, type_) } {
            Ok(v) => v,
            Err(e) => return e.status(),
        };
        let out: Result<*mut c_void> = match &v {
            Value::String(s) => alloc::strdup_opt(s).map(|p| p as *mut c_void),
            Value::Pointer(p) => Ok(*p as *mut c_void),
            Value::Regex(b) => {
                let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                alloc::strdup_bytes(&b[..end]).map(|p| p as *mut c_void)
            }
            Value::Undef => Err(conv::value::unknown_type(PMIX_UNDEF)),
            _ => conv::elem_array_new(1, type_).and_then(|p| {
                // SAFETY: one fresh datum of the type.
                match unsafe { conv::elem_to_c(&v, p) } {
                    Ok(()) => Ok(p as *mut c_void),
                    Err(e) => {
                        // SAFETY: ours, owns nothing.
                        unsafe { alloc::free(p) };
                        Err(e)
                    }
                }
            }),
        };
        match out {
            Ok(p) => {
                // SAFETY: writable (C contract).
                unsafe { *dest = p };
                PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}

/// Append the unread part of `src`'s payload to `dest` (NULL `src`: no-op).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `dest` is NULL or points to an initialised `pmix_data_buffer_t` that the library reads
///   or fills in as described above;
/// - `src` is NULL or points to an initialised `pmix_data_buffer_t` that the library reads
///   or fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy_payload(
    dest: *mut pmix_data_buffer_t,
    src: *mut pmix_data_buffer_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Data_copy_payload, {
        check_null!(dest);
        let Some(s) = crate::arg!(owned src) else {
            return PMIX_SUCCESS;
        };
        let bytes = match s.unread() {
            Ok(b) => b.to_vec(),
            Err(e) => return e.status(),
        };
        let Some(mut d) = crate::arg!(owned dest) else {
            return PMIX_ERR_BAD_PARAM;
        };
        crate::guard::status_of(append(&mut d, &bytes))
    })
}

/// Replace the buffer's payload with `payload`'s bytes, taking ownership of them (the
/// byte object is emptied). NULL `payload` just empties the buffer.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `buffer` is NULL or points to an initialised `pmix_data_buffer_t` that the library
///   reads or fills in as described above;
/// - `payload` is NULL or points to an initialised `pmix_byte_object_t` that the library
///   reads or fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_load(
    buffer: *mut pmix_data_buffer_t,
    payload: *mut pmix_byte_object_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Data_load, {
        let Some(b) = crate::arg!(owned buffer) else {
            return PMIX_ERR_BAD_PARAM;
        };
        data_load(b, crate::try_arg!(opt_mut payload))
    })
}

/// `PMIx_Data_load` on checked arguments.
fn data_load(
    mut o: Owned<pmix_data_buffer_t>,
    payload: Option<&mut pmix_byte_object_t>,
) -> pmix_status_t {
    o.destruct();
    let b = o.get();
    if let Some(bo) = payload {
        if !bo.bytes.is_null() {
            b.base_ptr = bo.bytes;
            b.unpack_ptr = bo.bytes;
            b.pack_ptr = bo.bytes.wrapping_add(bo.size);
            b.bytes_allocated = bo.size;
            b.bytes_used = bo.size;
        }
        *bo = pmix_byte_object_t {
            bytes: core::ptr::null_mut(),
            size: 0,
        };
    }
    PMIX_SUCCESS
}

/// Move the unread part of the buffer's payload into `payload` (without a copy when
/// nothing was unpacked yet) and leave the buffer empty. The caller frees
/// `payload->bytes`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `buffer` is NULL or points to an initialised `pmix_data_buffer_t` that the library
///   reads or fills in as described above;
/// - `payload` is NULL or points to an initialised `pmix_byte_object_t` that the library
///   reads or fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unload(
    buffer: *mut pmix_data_buffer_t,
    payload: *mut pmix_byte_object_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Data_unload, {
        check_null!(buffer, payload);
        let Some(b) = crate::arg!(owned buffer) else {
            return PMIX_ERR_BAD_PARAM;
        };
        data_unload(b, crate::try_arg!(mut payload))
    })
}

/// `PMIx_Data_unload` on checked arguments.
fn data_unload(mut o: Owned<pmix_data_buffer_t>, bo: &mut pmix_byte_object_t) -> pmix_status_t {
    let (off, used) = match conv::dbuf_unread_range(o.get()) {
        Ok(r) => r,
        Err(e) => return e.status(),
    };
    *bo = pmix_byte_object_t {
        bytes: core::ptr::null_mut(),
        size: 0,
    };
    if off == 0 && used > 0 {
        let b = o.get();
        bo.bytes = b.base_ptr;
        bo.size = used;
        b.base_ptr = core::ptr::null_mut();
    } else if off < used {
        let copy = o.unread().and_then(alloc::bytes_to_c);
        match copy {
            Ok((p, n)) => {
                *bo = pmix_byte_object_t {
                    bytes: p as *mut c_char,
                    size: n,
                }
            }
            Err(e) => return e.status(),
        }
    }
    o.destruct();
    PMIX_SUCCESS
}

/// Replace the buffer's payload with a copy of `payload`'s bytes (the caller keeps
/// `payload`). NULL `payload` just empties the buffer.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `buffer` is NULL or points to an initialised `pmix_data_buffer_t` that the library
///   reads or fills in as described above;
/// - `payload` is NULL or points to an initialised `pmix_byte_object_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_embed(
    buffer: *mut pmix_data_buffer_t,
    payload: *const pmix_byte_object_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Data_embed, {
        let Some(mut b) = crate::arg!(owned buffer) else {
            return PMIX_ERR_BAD_PARAM;
        };
        b.destruct();
        match crate::arg!(bo payload) {
            None => PMIX_SUCCESS,
            Some(bytes) => crate::guard::status_of(conv::dbuf_to_c(&bytes, b.get())),
        }
    })
}

// ---- pmix_data_buffer_t lifecycle ----

/// An empty buffer.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `b` is NULL or points to an initialised `pmix_data_buffer_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_construct(b: *mut pmix_data_buffer_t) {
    ffi_value!(PMIx_Data_buffer_construct, (), {
        let _ = crate::arg!(opt_zeroed b);
    })
}

/// Free the payload and leave the buffer empty. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `b` is NULL or points to an initialised `pmix_data_buffer_t` that the library reads or
///   fills in as described above.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_destruct(b: *mut pmix_data_buffer_t) {
    ffi_value!(PMIx_Data_buffer_destruct, (), {
        // SAFETY: NULL or an initialised buffer with a malloc'd payload (C contract).
        if let Some(mut b) = crate::arg!(owned b) {
            b.destruct();
        }
    })
}

/// A malloc'd empty buffer; release with `PMIx_Data_buffer_release`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_create() -> *mut pmix_data_buffer_t {
    ffi_value!(PMIx_Data_buffer_create, core::ptr::null_mut(), {
        alloc::calloc_array::<pmix_data_buffer_t>(1).unwrap_or(core::ptr::null_mut())
    })
}

/// Destruct and free a buffer from `PMIx_Data_buffer_create`. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `b` is NULL or points to an initialised `pmix_data_buffer_t` that the library reads or
///   fills in as described above.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_release(b: *mut pmix_data_buffer_t) {
    ffi_value!(PMIx_Data_buffer_release, (), {
        // SAFETY: NULL or a malloc'd buffer (C contract).
        if let Some(b) = crate::arg!(block b) {
            b.free();
        }
    })
}

/// `PMIx_Data_load` of `bytes`/`sz`: the buffer takes ownership of `bytes`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `b` is NULL or points to an initialised `pmix_data_buffer_t` that the library reads or
///   fills in as described above;
/// - `bytes` is NULL or a NUL-terminated string.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_load(
    b: *mut pmix_data_buffer_t,
    bytes: *mut c_char,
    sz: usize,
) {
    ffi_value!(PMIx_Data_buffer_load, (), {
        let mut bo = pmix_byte_object_t { bytes, size: sz };
        let rc = match crate::arg!(owned b) {
            Some(b) => data_load(b, Some(&mut bo)),
            None => PMIX_ERR_BAD_PARAM,
        };
        if rc != PMIX_SUCCESS {
            log::warn!("PMIx_Data_buffer_load: {}", rc);
        }
    })
}

/// `PMIx_Data_unload` into `*bytes`/`*sz` (NULL/0 on failure); the caller frees `*bytes`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `b` is NULL or points to an initialised `pmix_data_buffer_t` that the library reads or
///   fills in as described above;
/// - `bytes` is NULL or a writable `char *` slot;
/// - `sz` is NULL or points to an initialised `usize` that the library reads or fills in as
///   described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_unload(
    b: *mut pmix_data_buffer_t,
    bytes: *mut *mut c_char,
    sz: *mut usize,
) {
    ffi_value!(PMIx_Data_buffer_unload, (), {
        if bytes.is_null() || sz.is_null() {
            return;
        }
        let mut bo = pmix_byte_object_t {
            bytes: core::ptr::null_mut(),
            size: 0,
        };
        // SAFETY: this export's `# Safety` contract promises of `b` what `PMIx_Data_unload`
        // requires; `bytes`/`sz` are writable (C contract).
        let rc = match crate::arg!(owned b) {
            Some(b) => data_unload(b, &mut bo),
            None => PMIX_ERR_BAD_PARAM,
        };
        if rc == PMIX_SUCCESS {
            crate::arg!(set bytes, bo.bytes);
            crate::arg!(set sz, bo.size);
        } else {
            crate::arg!(set bytes, core::ptr::null_mut());
            crate::arg!(set sz, 0);
        }
    })
}

// ---- compression ----

/// Compress `size` bytes into a malloc'd `*outbytes` (`*nbytes` long). Returns false
/// (and allocates nothing) for NULL arguments, inputs under 4096 bytes, or data that
/// would not shrink.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `inbytes` is NULL or points to `size` initialised `u8`s (read during the call; the
///   caller keeps ownership);
/// - `outbytes` is NULL or a writable `u8 *` slot (what the library stores there is
///   described above);
/// - `nbytes` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_compress(
    inbytes: *const u8,
    size: usize,
    outbytes: *mut *mut u8,
    nbytes: *mut usize,
) -> bool {
    ffi_value!(PMIx_Data_compress, false, {
        if inbytes.is_null() || outbytes.is_null() || nbytes.is_null() {
            return false;
        }
        // SAFETY: `inbytes` is readable for `size` bytes (C contract).
        let input = crate::try_arg!(slice inbytes, size; else false);
        let Some(out) = pmix_core::compress::compress(input) else {
            return false;
        };
        let Ok((p, n)) = alloc::bytes_to_c(&out) else {
            return false;
        };
        // SAFETY: writable (C contract).
        crate::arg!(set outbytes, p);
        crate::arg!(set nbytes, n);
        true
    })
}

/// Decompress data made by `PMIx_Data_compress` into a malloc'd `*outbytes`. Returns
/// false (allocating nothing) for NULL arguments or malformed input.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `inbytes` is NULL or points to `size` initialised `u8`s (read during the call; the
///   caller keeps ownership);
/// - `outbytes` is NULL or a writable `u8 *` slot (what the library stores there is
///   described above);
/// - `nbytes` is NULL or points to an initialised `usize` that the library reads or fills
///   in as described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_decompress(
    inbytes: *const u8,
    size: usize,
    outbytes: *mut *mut u8,
    nbytes: *mut usize,
) -> bool {
    ffi_value!(PMIx_Data_decompress, false, {
        if inbytes.is_null() || outbytes.is_null() || nbytes.is_null() {
            return false;
        }
        // SAFETY: `inbytes` is readable for `size` bytes (C contract).
        let input = crate::try_arg!(slice inbytes, size; else false);
        let Ok(out) = pmix_core::compress::decompress(input) else {
            return false;
        };
        let Ok(p) = alloc::malloc_copy(&out) else {
            return false;
        };
        crate::arg!(set outbytes, p);
        crate::arg!(set nbytes, out.len());
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Samples grouped by type (regexes excluded: their pack slot is a `char *`).
    fn pool() -> Vec<Value> {
        let mut all = conv::tests::element_samples();
        all.extend(conv::tests::array_only_samples());
        all.extend(
            conv::tests::value_samples()
                .into_iter()
                .filter(|v| matches!(v, Value::DataArray(_))),
        );
        all.retain(|v| !matches!(v, Value::Regex(_) | Value::Undef) && carried(v));
        all
    }

    /// True when the v4.1 format carries `v` whole: not pointers (a sentinel travels),
    /// hwloc objects, a process's exit code, or floats beyond six decimals.
    fn carried(v: &Value) -> bool {
        match v {
            Value::Pointer(p) => *p == 0,
            Value::Topo(o) | Value::Cpuset(o) => o.ptr == 0,
            Value::ProcInfo(i) => i.exit_code == 0,
            Value::Float(x) => (*x as f64 * 1e6).fract() == 0.0,
            Value::Double(x) => (x * 1e6).fract() == 0.0,
            Value::DataArray(a) => a.items.iter().all(carried),
            Value::Value(x) => carried(x),
            Value::Info(i) => carried(&i.value),
            Value::Pdata(d) => carried(&d.value),
            Value::App(a) => a.info.iter().all(|i| carried(&i.value)),
            Value::Query(q) => q.qualifiers.iter().all(|i| carried(&i.value)),
            _ => true,
        }
    }

    fn empty_buffer() -> pmix_data_buffer_t {
        // SAFETY: all-zero is an empty buffer.
        unsafe { core::mem::zeroed() }
    }

    /// Pack `items` (all of type `t`) through the C API.
    fn pack(buf: &mut pmix_data_buffer_t, t: pmix_data_type_t, items: &[Value]) {
        let arr = conv::elem_array_new(items.len(), t).unwrap();
        let esz = conv::elem_size(t).unwrap();
        // SAFETY: `arr` holds `items.len()` slots of type `t`.
        unsafe {
            for (i, v) in items.iter().enumerate() {
                conv::elem_to_c(v, arr.add(i * esz)).unwrap();
            }
            let src = if arr.is_null() {
                esz as *mut c_void
            } else {
                arr as *mut c_void
            };
            assert_eq!(
                PMIx_Data_pack(core::ptr::null(), buf, src, items.len() as i32, t),
                PMIX_SUCCESS
            );
            conv::elem_array_free(arr, items.len(), t);
        }
    }

    /// Unpack one record of type `t` with room for `cap` items.
    fn unpack(
        buf: &mut pmix_data_buffer_t,
        t: pmix_data_type_t,
        cap: usize,
    ) -> (pmix_status_t, Vec<Value>) {
        let arr = conv::elem_array_new(cap.max(1), t).unwrap();
        let esz = conv::elem_size(t).unwrap();
        let mut n = cap.max(1) as i32;
        // SAFETY: `arr` has `n` constructed slots of type `t`.
        unsafe {
            let rc = PMIx_Data_unpack(core::ptr::null(), buf, arr as *mut c_void, &mut n, t);
            let got = (0..n as usize)
                .map(|i| conv::elem_from_c(arr.add(i * esz), t).unwrap())
                .collect();
            conv::elem_array_free(arr, cap.max(1), t);
            (rc, got)
        }
    }

    #[test]
    fn random_pack_unpack_sequences_round_trip() {
        let pool = pool();
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for _round in 0..40 {
            let mut buf = empty_buffer();
            let mut records = Vec::new();
            for _ in 0..(rng(&mut seed) % 6 + 1) {
                let pick = &pool[(rng(&mut seed) as usize) % pool.len()];
                let t = pick.dtype();
                let same: Vec<&Value> = pool.iter().filter(|v| v.dtype() == t).collect();
                let n = (rng(&mut seed) % 4) as usize;
                let items: Vec<Value> = (0..n)
                    .map(|_| same[(rng(&mut seed) as usize) % same.len()].clone())
                    .collect();
                pack(&mut buf, t, &items);
                records.push((t, items));
            }
            for (t, items) in &records {
                let (rc, got) = unpack(&mut buf, *t, items.len());
                assert_eq!(rc, PMIX_SUCCESS);
                assert_eq!(&got, items);
            }
            let (rc, _) = unpack(&mut buf, PMIX_INT, 1);
            assert_eq!(rc, PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
            // SAFETY: our buffer.
            unsafe { PMIx_Data_buffer_destruct(&mut buf) };
        }
    }

    #[test]
    fn wrong_type_and_short_storage() {
        let mut buf = empty_buffer();
        pack(
            &mut buf,
            PMIX_UINT32,
            &[Value::Uint32(1), Value::Uint32(2), Value::Uint32(3)],
        );
        pack(&mut buf, PMIX_STRING, &[Value::string("after")]);
        // the bytes carry no type: three UINT32 read as strings fail (a negative
        // length) and leave the buffer where it was
        let (rc, got) = unpack(&mut buf, PMIX_STRING, 1);
        assert_eq!(rc, PMIX_ERR_UNPACK_FAILURE);
        assert!(got.is_empty());
        let (rc, got) = unpack(&mut buf, PMIX_UINT32, 2);
        assert_eq!(rc, PMIX_ERR_UNPACK_INADEQUATE_SPACE);
        assert_eq!(got, vec![Value::Uint32(1), Value::Uint32(2)]);
        let (rc, got) = unpack(&mut buf, PMIX_STRING, 1);
        assert_eq!(rc, PMIX_SUCCESS);
        assert_eq!(got, vec![Value::string("after")]);
        // SAFETY: our buffer.
        unsafe { PMIx_Data_buffer_destruct(&mut buf) };
    }

    /// Feed every truncation and many random corruptions of a packed buffer to unpack:
    /// each call returns a status (no panic, no crash), and whatever it hands out is
    /// released (valgrind checks the leaks).
    #[test]
    fn truncated_and_corrupted_buffers_are_rejected() {
        let pool = pool();
        let mut buf = empty_buffer();
        let mut types = Vec::new();
        for v in pool.iter().step_by(3) {
            pack(&mut buf, v.dtype(), &[v.clone(), v.clone()]);
            types.push(v.dtype());
        }
        let mut whole = pmix_byte_object_t {
            bytes: core::ptr::null_mut(),
            size: 0,
        };
        // SAFETY: our buffer; `whole` receives its payload.
        unsafe { assert_eq!(PMIx_Data_unload(&mut buf, &mut whole), PMIX_SUCCESS) };
        // SAFETY: `whole` holds `size` bytes.
        let bytes = unsafe { conv::bo_from_c(&whole) };
        let drain = |data: &[u8]| -> usize {
            let mut b = empty_buffer();
            conv::dbuf_to_c(data, &mut b).unwrap();
            let mut ok = 0;
            for t in &types {
                let (rc, _) = unpack(&mut b, *t, 2);
                if rc != PMIX_SUCCESS {
                    break;
                }
                ok += 1;
            }
            // SAFETY: our buffer.
            unsafe { PMIx_Data_buffer_destruct(&mut b) };
            ok
        };
        assert_eq!(drain(&bytes), types.len());
        let step = (bytes.len() / 400).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            assert!(drain(&bytes[..cut]) < types.len(), "cut {}", cut);
        }
        let mut seed = 77;
        for _ in 0..300 {
            let mut bad = bytes.clone();
            for _ in 0..(rng(&mut seed) % 3 + 1) {
                let i = (rng(&mut seed) as usize) % bad.len();
                bad[i] = rng(&mut seed) as u8;
            }
            drain(&bad);
        }
        // SAFETY: the payload came from malloc.
        unsafe { alloc::free(whole.bytes) };
    }

    #[test]
    fn load_unload_embed_copy_payload() {
        let mut a = empty_buffer();
        pack(&mut a, PMIX_INT, &[Value::Int(7), Value::Int(8)]);
        pack(&mut a, PMIX_STRING, &[Value::string("x")]);
        let (rc, _) = unpack(&mut a, PMIX_INT, 2);
        assert_eq!(rc, PMIX_SUCCESS);
        let mut b = empty_buffer();
        // SAFETY: our buffers.
        unsafe { assert_eq!(PMIx_Data_copy_payload(&mut b, &mut a), PMIX_SUCCESS) };
        assert_eq!(unpack(&mut b, PMIX_STRING, 1).1, vec![Value::string("x")]);
        let mut bo = pmix_byte_object_t {
            bytes: core::ptr::null_mut(),
            size: 0,
        };
        // SAFETY: our buffers and byte object.
        unsafe {
            assert_eq!(PMIx_Data_unload(&mut a, &mut bo), PMIX_SUCCESS);
            assert!(a.base_ptr.is_null());
            let mut c = empty_buffer();
            assert_eq!(PMIx_Data_embed(&mut c, &bo), PMIX_SUCCESS);
            assert_eq!(unpack(&mut c, PMIX_STRING, 1).1, vec![Value::string("x")]);
            assert_eq!(PMIx_Data_load(&mut c, &mut bo), PMIX_SUCCESS);
            assert!(bo.bytes.is_null());
            assert_eq!(unpack(&mut c, PMIX_STRING, 1).1, vec![Value::string("x")]);
            PMIx_Data_buffer_destruct(&mut c);
            PMIx_Data_buffer_destruct(&mut b);
        }
    }

    #[test]
    fn compress_round_trip_through_the_exports() {
        let input = b"abcabcabcabc-".repeat(500);
        let (mut out, mut n) = (core::ptr::null_mut(), 0usize);
        let (mut back, mut m) = (core::ptr::null_mut(), 0usize);
        // SAFETY: valid buffers and out-pointers.
        unsafe {
            assert!(!PMIx_Data_compress(input.as_ptr(), 100, &mut out, &mut n));
            assert!(PMIx_Data_compress(
                input.as_ptr(),
                input.len(),
                &mut out,
                &mut n
            ));
            assert!(n < input.len());
            assert!(PMIx_Data_decompress(out, n, &mut back, &mut m));
            assert_eq!(core::slice::from_raw_parts(back, m), &input[..]);
            let (mut x, mut xn) = (core::ptr::null_mut(), 0usize);
            assert!(!PMIx_Data_decompress(out, n - 1, &mut x, &mut xn));
            assert!(x.is_null());
            alloc::free(out);
            alloc::free(back);
        }
    }
}
