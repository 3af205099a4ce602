//! `PMIx_Value_*` and `PMIx_Data_array_*`.
//!
//! Ownership: a `pmix_value_t` owns what its union points to (strings, byte objects,
//! boxed structs, data arrays), all from libc malloc; `PMIx_Value_destruct` frees it,
//! `PMIx_Value_free(v, n)` also frees the array itself. `PMIX_POINTER` targets and the
//! hwloc objects behind `PMIX_TOPO`/`PMIX_PROC_CPUSET` are never freed by the library.

use crate::conv::{self, alloc, Slot};
use crate::{check_null, ffi_status, ffi_value};
use core::ffi::{c_char, c_void};
use pmix_core::{Result, Value};
use pmix_sys::*;

/// Read the datum `PMIx_Value_load`/`PMIx_Data_copy` receive for type `t`: a `char *`
/// itself for strings and regexes, the pointer itself for `PMIX_POINTER`, otherwise a
/// pointer to one datum of the type.
///
/// # Safety
/// `data` is non-NULL and points to such a datum.
pub(crate) unsafe fn datum_from_c(data: *const c_void, t: pmix_data_type_t) -> Result<Value> {
    // SAFETY: (all arms) promised by the caller.
    unsafe {
        match t {
            PMIX_UNDEF => Ok(Value::Undef),
            PMIX_STRING => Ok(Value::String(conv::cstr_bytes(data as *const c_char))),
            PMIX_POINTER => Ok(Value::Pointer(data as usize)),
            PMIX_REGEX => {
                let mut b = conv::cstr_bytes(data as *const c_char).unwrap_or_default();
                b.push(0);
                Ok(Value::Regex(b))
            }
            _ => conv::elem_from_c(data as *const u8, t),
        }
    }
}

/// Set `*val` to `PMIX_UNDEF` with all-zero data.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `val` is NULL or points to an initialised `pmix_value_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_construct(val: *mut pmix_value_t) {
    ffi_value!(PMIx_Value_construct, (), {
        // All-zero is PMIX_UNDEF; NULL is ignored.
        let _ = crate::arg!(opt_zeroed val);
    })
}

/// Free what `*val` owns and leave it `PMIX_UNDEF`. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `val` is NULL or points to an initialised `pmix_value_t` that the library reads or
///   fills in as described above.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_destruct(val: *mut pmix_value_t) {
    ffi_value!(PMIx_Value_destruct, (), {
        // SAFETY: NULL or an initialised value owning malloc'd data (C contract).
        if let Some(v) = crate::arg!(owned val) {
            v.destruct();
        }
    })
}

/// A malloc'd array of `n` constructed values (NULL for `n == 0`); release with
/// `PMIx_Value_free(v, n)`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_create(n: usize) -> *mut pmix_value_t {
    ffi_value!(PMIx_Value_create, core::ptr::null_mut(), {
        conv::elem_array_new(n, PMIX_VALUE).unwrap_or(core::ptr::null_mut()) as *mut pmix_value_t
    })
}

/// Destruct `n` values and free the array. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `v` is NULL or points to `n` initialised `pmix_value_t`s that the caller may write
///   through.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_free(v: *mut pmix_value_t, n: usize) {
    ffi_value!(PMIx_Value_free, (), {
        // SAFETY: NULL or a malloc'd array of `n` values (C contract).
        if let Some(b) = crate::arg!(block v, n) {
            b.free_elems();
        }
    })
}

/// Load `*val` with a copy of the datum at `data` of type `type_` (see
/// `datum_from_c`); NULL `data` stores an all-zero datum (a `PMIX_BOOL` then reads
/// `true`). The previous content of `*val` is not released.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL `val`, malformed data),
/// `PMIX_ERR_UNKNOWN_DATA_TYPE`, `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `val` is NULL or points to an initialised `pmix_value_t` that the library reads or
///   fills in as described above;
/// - `data` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_load(
    val: *mut pmix_value_t,
    data: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Value_load, {
        check_null!(val);
        crate::arg!(datum_ptr data, type_).load_into(crate::try_arg!(mut val))
    })
}

/// Shared by `PMIx_Value_load`, `PMIx_Info_load` and the info-list adders.
///
/// # Safety
/// `val` writable; `data` NULL or a datum of type `t`.
pub(crate) unsafe fn load(
    val: *mut pmix_value_t,
    data: *const c_void,
    t: pmix_data_type_t,
) -> pmix_status_t {
    if data.is_null() {
        if t != PMIX_UNDEF && !matches!(conv::slot(t), Some(Slot::Inline | Slot::Boxed)) {
            return PMIX_ERR_UNKNOWN_DATA_TYPE;
        }
        // SAFETY: writable (caller's promise).
        unsafe {
            core::ptr::write_bytes(val, 0, 1);
            (*val).type_ = t;
            if t == PMIX_BOOL {
                (*val).data.flag = true;
            }
        }
        return PMIX_SUCCESS;
    }
    // SAFETY: promised by the caller.
    let r = unsafe { datum_from_c(data, t) }.and_then(|v| unsafe { conv::value_to_c(&v, val) });
    crate::guard::status_of(r)
}

/// Copy the content of `kv` out: simple types (numbers, procs, namespaces) are copied
/// into the storage `*data` points to; strings, byte objects and structs are returned
/// as a fresh malloc'd copy in `*data` (the caller frees it); `*sz` gets the size.
///
/// # Returns
/// `PMIX_SUCCESS`; `PMIX_ERR_BAD_PARAM` for NULL arguments or a NULL `*data` with a
/// simple type; `PMIX_ERR_UNKNOWN_DATA_TYPE` for `PMIX_UNDEF`; `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `kv` is NULL or points to an initialised `pmix_value_t` that the library reads or
///   fills in as described above;
/// - `data` is NULL or a writable `c_void *` slot (what the library stores there is
///   described above);
/// - `sz` is NULL or points to an initialised `usize` that the library reads or fills in as
///   described above.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_unload(
    kv: *mut pmix_value_t,
    data: *mut *mut c_void,
    sz: *mut usize,
) -> pmix_status_t {
    ffi_status!(PMIx_Value_unload, {
        check_null!(kv, data, sz);
        // SAFETY: all three are valid (C contract).
        unsafe { unload(&*kv, &mut *data, &mut *sz) }
    })
}

unsafe fn unload(kv: &pmix_value_t, data: &mut *mut c_void, sz: &mut usize) -> pmix_status_t {
    let t = kv.type_;
    let simple = match conv::slot(t) {
        _ if t == PMIX_UNDEF => return PMIX_ERR_UNKNOWN_DATA_TYPE,
        Some(Slot::Inline) => !matches!(
            t,
            PMIX_STRING
                | PMIX_POINTER
                | PMIX_BYTE_OBJECT
                | PMIX_COMPRESSED_STRING
                | PMIX_COMPRESSED_BYTE_OBJECT
                | PMIX_REGEX
                | PMIX_ENVAR
        ),
        Some(Slot::Boxed) => matches!(t, PMIX_PROC | PMIX_PROC_NSPACE),
        _ => return PMIX_ERR_UNKNOWN_DATA_TYPE,
    };
    if simple && data.is_null() {
        log::warn!("PMIx_Value_unload: no storage for a simple type");
        return PMIX_ERR_BAD_PARAM;
    }
    let v = match crate::arg!(value kv) {
        Ok(v) => v,
        Err(e) => return e.status(),
    };
    let esz = conv::elem_size(t).unwrap_or(0);
    match &v {
        Value::Proc(None) | Value::ProcNspace(None) => *sz = 0,
        Value::ProcNspace(Some(ns)) => {
            // SAFETY: `*data` points to pmix_nspace_t storage (C contract).
            conv::load_nspace(unsafe { &mut *(*data as *mut pmix_nspace_t) }, ns);
            *sz = ns.as_str().len();
        }
        _ if simple => {
            // SAFETY: `*data` has room for one datum of the type (C contract); the
            // inline/boxed source holds exactly `esz` bytes of plain data.
            unsafe {
                let src = if t == PMIX_PROC {
                    kv.data.ptr as *const u8
                } else {
                    &kv.data as *const _ as *const u8
                };
                core::ptr::copy_nonoverlapping(src, *data as *mut u8, esz);
            }
            *sz = esz;
        }
        Value::String(s) => match s {
            None => {
                *data = core::ptr::null_mut();
                *sz = 0;
            }
            Some(b) => match alloc::strdup_bytes(b) {
                Ok(p) => {
                    *data = p as *mut c_void;
                    *sz = b.len();
                }
                Err(e) => return e.status(),
            },
        },
        Value::Pointer(p) => {
            *data = *p as *mut c_void;
            *sz = core::mem::size_of::<*mut c_void>();
        }
        Value::ByteObject(b)
        | Value::CompressedString(b)
        | Value::CompressedByteObject(b)
        | Value::Regex(b)
            if b.is_empty() =>
        {
            *data = core::ptr::null_mut();
            *sz = 0;
        }
        _ => match conv::elem_array_new(1, t) {
            Ok(p) => {
                // SAFETY: `p` is a fresh block of one datum of type `t`.
                if let Err(e) = unsafe { conv::elem_to_c(&v, p) } {
                    // SAFETY: ours, owns nothing after the failed fill.
                    unsafe { alloc::free(p) };
                    return e.status();
                }
                *data = p as *mut c_void;
                *sz = esz;
            }
            Err(e) => return e.status(),
        },
    }
    PMIX_SUCCESS
}

/// Deep-copy `*src` into `*dest` (whose old content is not released).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_UNKNOWN_DATA_TYPE`, `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `dest` is NULL or points to an initialised `pmix_value_t` that the library reads or
///   fills in as described above;
/// - `src` is NULL or points to an initialised `pmix_value_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_xfer(
    dest: *mut pmix_value_t,
    src: *const pmix_value_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Value_xfer, {
        check_null!(dest, src);
        let v = crate::arg!(value src);
        xfer_checked(crate::try_arg!(mut dest), v)
    })
}

/// # Safety
/// `dest` writable, `src` an initialised value.
pub(crate) unsafe fn xfer(dest: *mut pmix_value_t, src: *const pmix_value_t) -> pmix_status_t {
    // SAFETY: promised by the caller.
    let r = crate::arg!(value src).and_then(|v| unsafe { conv::value_to_c(&v, dest) });
    crate::guard::status_of(r)
}

/// Store the copy `v` in `*dest` (old content overwritten, not released): the status of
/// the copy or of the store.
pub(crate) fn xfer_checked(dest: &mut pmix_value_t, v: Result<Value>) -> pmix_status_t {
    crate::guard::status_of(v.and_then(|v| crate::args::value_into(&v, dest)))
}

/// Compare two values (see `Value::compare`); NULL or unreadable values give
/// `PMIX_VALUE_COMPARISON_NOT_AVAIL`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `v1` is NULL or points to an initialised `pmix_value_t` that the library reads or
///   fills in as described above;
/// - `v2` is NULL or points to an initialised `pmix_value_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_compare(
    v1: *mut pmix_value_t,
    v2: *mut pmix_value_t,
) -> pmix_value_cmp_t {
    ffi_value!(PMIx_Value_compare, PMIX_VALUE_COMPARISON_NOT_AVAIL, {
        match (crate::arg!(value v1), crate::arg!(value v2)) {
            (Ok(a), Ok(b)) => a.compare(&b).raw(),
            _ => PMIX_VALUE_COMPARISON_NOT_AVAIL,
        }
    })
}

const BOOL_TRUE: pmix_boolean_t = PMIX_BOOL_TRUE;
const BOOL_FALSE: pmix_boolean_t = PMIX_BOOL_FALSE;
const NON_BOOL: pmix_boolean_t = PMIX_NON_BOOL;

/// Interpret a value as a boolean: `PMIX_UNDEF` is true (presence means set), a bool
/// is itself, a string is parsed ("", digits, yes/no/true/false/y/n/t/f/enable/disable);
/// anything else is `PMIX_NON_BOOL`. NULL is `PMIX_BOOL_FALSE`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `value` is NULL or points to an initialised `pmix_value_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_true(value: *const pmix_value_t) -> pmix_boolean_t {
    ffi_value!(PMIx_Value_true, NON_BOOL, {
        if value.is_null() {
            return BOOL_FALSE;
        }
        let v = crate::try_arg!(ref value; else BOOL_FALSE);
        truth(v.type_, || crate::arg!(value value))
    })
}

/// The boolean reading of a value of type `t`, as `PMIx_Value_true` gives it: `copy`
/// gives the value, and is only asked for the types that have a reading.
pub(crate) fn truth(t: pmix_data_type_t, copy: impl FnOnce() -> Result<Value>) -> pmix_boolean_t {
    if !matches!(t, PMIX_UNDEF | PMIX_BOOL | PMIX_STRING) {
        return NON_BOOL;
    }
    match copy() {
        Ok(Value::Undef) => BOOL_TRUE,
        Ok(Value::Bool(true)) => BOOL_TRUE,
        Ok(Value::Bool(false)) => BOOL_FALSE,
        Ok(Value::String(s)) => string_truth(s.as_deref()),
        _ => NON_BOOL,
    }
}

/// The boolean reading of a string (see `PMIx_Value_true`).
pub(crate) fn string_truth(s: Option<&[u8]>) -> pmix_boolean_t {
    let Some(s) = s else { return BOOL_TRUE };
    let s = s.trim_ascii_start();
    let Some(&first) = s.first() else {
        return BOOL_TRUE;
    };
    if first.is_ascii_digit() {
        let digits = s.iter().take_while(|c| c.is_ascii_digit());
        return if digits.clone().all(|&c| c == b'0') {
            BOOL_FALSE
        } else {
            BOOL_TRUE
        };
    }
    let prefix = |p: &[u8]| s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p);
    let exact = |p: &[u8]| s.eq_ignore_ascii_case(p);
    if prefix(b"yes") || prefix(b"true") || exact(b"y") || exact(b"t") || prefix(b"enable") {
        BOOL_TRUE
    } else if prefix(b"no") || prefix(b"false") || exact(b"n") || exact(b"f") || prefix(b"disable")
    {
        BOOL_FALSE
    } else {
        NON_BOOL
    }
}

/// A number held by a value, widened for conversion.
enum Num {
    Int(i128),
    Float(f64),
}

fn number_of(v: &Value) -> Option<Num> {
    Some(match *v {
        Value::Size(x) | Value::Uint64(x) => Num::Int(x as i128),
        Value::Int(x) | Value::Int32(x) | Value::Pid(x) | Value::Status(x) => Num::Int(x as i128),
        Value::Int8(x) => Num::Int(x as i128),
        Value::Int16(x) => Num::Int(x as i128),
        Value::Int64(x) => Num::Int(x as i128),
        Value::Uint(x) | Value::Uint32(x) | Value::Rank(x) => Num::Int(x as i128),
        Value::Uint8(x) => Num::Int(x as i128),
        Value::Uint16(x) => Num::Int(x as i128),
        Value::Float(x) => Num::Float(x as f64),
        Value::Double(x) => Num::Float(x),
        _ => return None,
    })
}

/// Store the numeric value of `value` into `*dest` as type `type_`.
///
/// # Returns
/// `PMIX_SUCCESS`; `PMIX_ERR_BAD_PARAM` when either type is not numeric or an
/// argument is NULL; `PMIX_ERR_CHANGE_SIGN` for a negative number into an unsigned
/// type; `PMIX_ERR_LOST_PRECISION` when the number does not fit (or is fractional for
/// an integer type). `*dest` is written only on success.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `value` is NULL or points to an initialised `pmix_value_t` (only read);
/// - `dest` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_get_number(
    value: *const pmix_value_t,
    dest: *mut c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Value_get_number, {
        check_null!(value, dest);
        let v = match crate::arg!(value value) {
            Ok(v) => v,
            Err(e) => return e.status(),
        };
        let Some(n) = number_of(&v) else {
            return PMIX_ERR_BAD_PARAM;
        };
        macro_rules! int {
            ($ty:ty) => {{
                let x: i128 = match n {
                    Num::Int(x) => x,
                    Num::Float(f) => {
                        if f.fract() != 0.0 || !f.is_finite() || f.abs() > 1e38 {
                            return if f < 0.0 && <$ty>::MIN == 0 {
                                PMIX_ERR_CHANGE_SIGN
                            } else {
                                PMIX_ERR_LOST_PRECISION
                            };
                        }
                        f as i128
                    }
                };
                if x < 0 && <$ty>::MIN == 0 {
                    return PMIX_ERR_CHANGE_SIGN;
                }
                let Ok(y) = <$ty>::try_from(x) else {
                    return PMIX_ERR_LOST_PRECISION;
                };
                // SAFETY: `dest` has room for the requested type (C contract).
                crate::arg!(set_unaligned dest as *mut $ty, y);
            }};
        }
        match type_ {
            PMIX_SIZE | PMIX_UINT64 => int!(u64),
            PMIX_INT | PMIX_INT32 | PMIX_PID | PMIX_STATUS => int!(i32),
            PMIX_INT8 => int!(i8),
            PMIX_INT16 => int!(i16),
            PMIX_INT64 => int!(i64),
            PMIX_UINT | PMIX_UINT32 | PMIX_PROC_RANK => int!(u32),
            PMIX_UINT8 => int!(u8),
            PMIX_UINT16 => int!(u16),
            PMIX_FLOAT => {
                let f = match n {
                    Num::Int(x) => x as f64,
                    Num::Float(f) => f,
                };
                if f.is_finite() && f.abs() > f32::MAX as f64 {
                    return PMIX_ERR_LOST_PRECISION;
                }
                // SAFETY: room for a float (C contract).
                crate::arg!(set_unaligned dest as *mut f32, f as f32);
            }
            PMIX_DOUBLE => {
                let f = match n {
                    Num::Int(x) => x as f64,
                    Num::Float(f) => f,
                };
                // SAFETY: room for a double (C contract).
                crate::arg!(set_unaligned dest as *mut f64, f);
            }
            _ => return PMIX_ERR_BAD_PARAM,
        }
        PMIX_SUCCESS
    })
}

/// Heap footprint of one datum beyond its own `elem_size`.
fn heap_size(v: &Value) -> usize {
    let s = |b: &Option<Vec<u8>>| b.as_ref().map_or(0, |b| b.len() + 1);
    let argv = |a: &Option<Vec<Vec<u8>>>| {
        a.as_ref().map_or(0, |a| {
            (a.len() + 1) * core::mem::size_of::<*mut c_char>()
                + a.iter().map(|x| x.len() + 1).sum::<usize>()
        })
    };
    let infos = |i: &[pmix_core::Info]| {
        i.iter()
            .map(|i| core::mem::size_of::<pmix_info_t>() + heap_size(&i.value))
            .sum::<usize>()
    };
    match v {
        Value::String(x) => s(x),
        Value::ByteObject(b)
        | Value::CompressedString(b)
        | Value::CompressedByteObject(b)
        | Value::Regex(b) => b.len(),
        Value::DataBuffer(b) => b.len(),
        Value::Envar(e) => s(&e.envar) + s(&e.value),
        Value::ProcInfo(p) => s(&p.hostname) + s(&p.executable_name),
        Value::Coord(c) => c.coord.len() * 4,
        Value::Geometry(g) => {
            s(&g.uuid)
                + s(&g.osname)
                + g.coordinates
                    .iter()
                    .map(|c| core::mem::size_of::<pmix_coord_t>() + c.coord.len() * 4)
                    .sum::<usize>()
        }
        Value::Device(d) => s(&d.uuid) + s(&d.osname),
        Value::DeviceDist(d) => s(&d.uuid) + s(&d.osname),
        Value::Endpoint(e) => s(&e.uuid) + s(&e.osname) + e.endpt.len(),
        Value::Topo(o) | Value::Cpuset(o) => s(&o.source),
        Value::NodePid(n) => s(&n.hostname),
        Value::Regex2(r) => s(&r.rtype) + r.bytes.len(),
        Value::Regattr(r) => s(&r.name) + argv(&r.description),
        Value::Info(i) => heap_size(&i.value),
        Value::Pdata(p) => heap_size(&p.value),
        Value::Value(v) => heap_size(v),
        Value::App(a) => s(&a.cmd) + argv(&a.argv) + argv(&a.env) + s(&a.cwd) + infos(&a.info),
        Value::Query(q) => argv(&q.keys) + infos(&q.qualifiers),
        Value::DataArray(d) => {
            let esz = conv::elem_size(d.dtype).unwrap_or(0);
            d.items.iter().map(|i| esz + heap_size(i)).sum()
        }
        _ => 0,
    }
}

/// Memory a value occupies: the `pmix_value_t` plus everything it points to.
///
/// # Errors
/// `PMIX_ERR_UNKNOWN_DATA_TYPE` for `PMIX_UNDEF` and unsupported types.
pub(crate) fn value_size(v: &Value) -> usize {
    let boxed = conv::slot(v.dtype()) == Some(Slot::Boxed)
        && !matches!(v, Value::Proc(None) | Value::ProcNspace(None));
    let own = if boxed {
        conv::elem_size(v.dtype()).unwrap_or(0)
    } else {
        0
    };
    core::mem::size_of::<pmix_value_t>() + own + heap_size(v)
}

/// `*size` = the memory `*val` occupies, including what it points to.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM` (NULL), `PMIX_ERR_UNKNOWN_DATA_TYPE`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `val` is NULL or points to an initialised `pmix_value_t` (only read);
/// - `size` is NULL or points to an initialised `usize` that the library reads or fills in
///   as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_get_size(
    val: *const pmix_value_t,
    size: *mut usize,
) -> pmix_status_t {
    ffi_status!(PMIx_Value_get_size, {
        check_null!(val, size);
        match crate::arg!(value val) {
            Ok(Value::Undef) => PMIX_ERR_UNKNOWN_DATA_TYPE,
            Ok(v) => {
                // SAFETY: writable (C contract).
                crate::arg!(set size, value_size(&v));
                PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}

// ---- pmix_data_array_t ----

/// An empty array of element type `type_`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_data_array_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_init(p: *mut pmix_data_array_t, type_: pmix_data_type_t) {
    ffi_value!(PMIx_Data_array_init, (), {
        if let Ok(Some(p)) = crate::arg!(opt_mut p) {
            *p = pmix_data_array_t {
                type_,
                size: 0,
                array: core::ptr::null_mut(),
            };
        }
    })
}

/// Allocate `num` constructed elements of `type_`; an unsupported type (or failed
/// allocation) leaves an empty array (`size` 0, `array` NULL).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to `num` initialised `pmix_data_array_t`s that the caller may
///   write through.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_construct(
    p: *mut pmix_data_array_t,
    num: usize,
    type_: pmix_data_type_t,
) {
    ffi_value!(PMIx_Data_array_construct, (), {
        if let Ok(Some(p)) = crate::arg!(opt_mut p) {
            *p = new_darray(num, type_);
        }
    })
}

/// Free the elements and block of an array (the descriptor itself stays). NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `d` is NULL or points to an initialised `pmix_data_array_t` that the library reads or
///   fills in as described above.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_destruct(d: *mut pmix_data_array_t) {
    ffi_value!(PMIx_Data_array_destruct, (), {
        // SAFETY: NULL or an initialised array of malloc'd elements (C contract).
        if let Some(mut d) = crate::arg!(owned d) {
            d.destruct();
        }
    })
}

/// A malloc'd descriptor with `n` constructed elements (NULL for `n == 0`); release
/// with `PMIx_Data_array_free`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_create(
    n: usize,
    type_: pmix_data_type_t,
) -> *mut pmix_data_array_t {
    ffi_value!(PMIx_Data_array_create, core::ptr::null_mut(), {
        if n == 0 {
            return core::ptr::null_mut();
        }
        crate::args::malloc_one(new_darray(n, type_)).unwrap_or(core::ptr::null_mut())
    })
}

/// A descriptor with `num` constructed elements of `t` (empty when the type is unknown,
/// `num` is 0 or memory runs out).
fn new_darray(num: usize, type_: pmix_data_type_t) -> pmix_data_array_t {
    let (array, size) = match conv::elem_array_new(num, type_) {
        Ok(a) if !a.is_null() => (a as *mut c_void, num),
        _ => (core::ptr::null_mut(), 0),
    };
    pmix_data_array_t { type_, size, array }
}

/// Destruct the array and free the descriptor. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_data_array_t` that the library reads or
///   fills in as described above.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_free(p: *mut pmix_data_array_t) {
    ffi_value!(PMIx_Data_array_free, (), {
        // SAFETY: NULL or a malloc'd descriptor (C contract).
        if let Some(b) = crate::arg!(block p) {
            b.free();
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_truth_follows_the_documented_words() {
        assert_eq!(string_truth(None), BOOL_TRUE);
        assert_eq!(string_truth(Some(b"  ")), BOOL_TRUE);
        assert_eq!(string_truth(Some(b"0")), BOOL_FALSE);
        assert_eq!(string_truth(Some(b"12")), BOOL_TRUE);
        assert_eq!(string_truth(Some(b"Yes")), BOOL_TRUE);
        assert_eq!(string_truth(Some(b"enabled")), BOOL_TRUE);
        assert_eq!(string_truth(Some(b"F")), BOOL_FALSE);
        assert_eq!(string_truth(Some(b"disable")), BOOL_FALSE);
        assert_eq!(string_truth(Some(b"maybe")), NON_BOOL);
    }

    #[test]
    fn get_number_checks_sign_and_range() {
        let mut v: pmix_value_t = unsafe { core::mem::zeroed() };
        let mut out32 = 0u32;
        let mut out8 = 0i8;
        // SAFETY: local values and outputs.
        unsafe {
            conv::value_to_c(&Value::Int(-1), &mut v).unwrap();
            assert_eq!(
                PMIx_Value_get_number(&v, &mut out32 as *mut u32 as *mut c_void, PMIX_UINT32),
                PMIX_ERR_CHANGE_SIGN
            );
            conv::value_to_c(&Value::Size(300), &mut v).unwrap();
            assert_eq!(
                PMIx_Value_get_number(&v, &mut out8 as *mut i8 as *mut c_void, PMIX_INT8),
                PMIX_ERR_LOST_PRECISION
            );
            assert_eq!(
                PMIx_Value_get_number(&v, &mut out32 as *mut u32 as *mut c_void, PMIX_UINT32),
                PMIX_SUCCESS
            );
            assert_eq!(out32, 300);
            conv::value_to_c(&Value::string("x"), &mut v).unwrap();
            assert_eq!(
                PMIx_Value_get_number(&v, &mut out32 as *mut u32 as *mut c_void, PMIX_UINT32),
                PMIX_ERR_BAD_PARAM
            );
            conv::value_destruct(&mut v);
        }
    }

    #[test]
    fn load_unload_xfer_every_element_type() {
        let mut all = conv::tests::element_samples();
        all.retain(|v| !matches!(v, Value::String(_) | Value::Pointer(_) | Value::Regex(_)));
        for v in all {
            let t = v.dtype();
            let datum = conv::elem_array_new(1, t).unwrap();
            let mut a: pmix_value_t = unsafe { core::mem::zeroed() };
            let mut b: pmix_value_t = unsafe { core::mem::zeroed() };
            // SAFETY: local storage throughout; everything is released below.
            unsafe {
                conv::elem_to_c(&v, datum).unwrap();
                assert_eq!(
                    PMIx_Value_load(&mut a, datum as *const c_void, t),
                    PMIX_SUCCESS,
                    "{:?}",
                    v
                );
                assert_eq!(PMIx_Value_xfer(&mut b, &a), PMIX_SUCCESS);
                assert_eq!(PMIx_Value_compare(&mut a, &mut b), PMIX_EQUAL, "{:?}", v);
                assert_eq!(conv::value_from_c(&b).unwrap(), v);
                let mut size = 0;
                assert_eq!(PMIx_Value_get_size(&a, &mut size), PMIX_SUCCESS);
                assert!(size >= core::mem::size_of::<pmix_value_t>());
                conv::elem_array_free(datum, 1, t);
                PMIx_Value_destruct(&mut a);
                PMIx_Value_destruct(&mut b);
            }
        }
    }
}
