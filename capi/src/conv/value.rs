//! `pmix_value_t`, data-array elements and `pmix_data_array_t` ⇄ [`Value`].
//!
//! One table decides how each data type sits in C memory ([`elem_size`] and
//! [`slot`]): either *inline* in the 24-byte value union (scalars, `char *`, byte
//! objects, `pmix_envar_t`, `void *`) or *boxed* behind a pointer in the union
//! (`pmix_proc_t *`, `pmix_data_array_t *`, …). A data-array element of type `T` has
//! exactly the layout of the inline datum, or of the pointee for boxed types, so one
//! element reader ([`elem_from_c`]), one writer ([`elem_to_c`]) and one destructor
//! ([`elem_destruct`]) serve values, arrays and `PMIx_Value_load` alike.
//!
//! Unknown types give `PMIX_ERR_UNKNOWN_DATA_TYPE`; an element whose type differs from
//! its array's gives `PMIX_ERR_BAD_PARAM`. Nesting deeper than [`MAX_DEPTH`] (a
//! self-referencing C structure, for instance) is `PMIX_ERR_BAD_PARAM`, never a stack
//! overflow.

use super::alloc;
use super::cstr::{cstr_bytes, load_nspace, nspace_from_array};
use super::structs::*;
use core::ffi::{c_char, c_void};
use core::mem::size_of;
use pmix_core::{DataArray, DataType, Error, Key, Opaque, Regattr, Result, Value};
use pmix_sys::*;

/// Deepest nesting of values/arrays/infos accepted from C.
pub const MAX_DEPTH: usize = 64;

pub(crate) fn too_deep() -> Error {
    log::warn!("C data nested deeper than {} levels", MAX_DEPTH);
    Error::bad_param("data nested too deeply")
}

pub(crate) fn unknown_type(t: DataType) -> Error {
    log::warn!("unsupported PMIx data type {}", t);
    Error::new(
        PMIX_ERR_UNKNOWN_DATA_TYPE,
        format!("unsupported data type {}", t),
    )
}

/// Where a value of some type lives inside `pmix_value_t.data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The datum itself sits in the union.
    Inline,
    /// The union holds a pointer to one malloc'd datum.
    Boxed,
    /// The type exists only as a data-array element (`PMIX_INFO`, `PMIX_APP`, …).
    ArrayOnly,
}

/// Size of one C datum of type `t` (a data-array element); `None` for types this
/// library does not support.
pub fn elem_size(t: DataType) -> Option<usize> {
    Some(match t {
        PMIX_BOOL
        | PMIX_BYTE
        | PMIX_INT8
        | PMIX_UINT8
        | PMIX_PERSIST
        | PMIX_SCOPE
        | PMIX_DATA_RANGE
        | PMIX_PROC_STATE
        | PMIX_JOB_STATE
        | PMIX_LINK_STATE
        | PMIX_ALLOC_DIRECTIVE
        | PMIX_RESBLOCK_DIRECTIVE
        | PMIX_ALLOC_INHERIT
        | PMIX_COMMAND => 1,
        PMIX_INT16 | PMIX_UINT16 | PMIX_DATA_TYPE | PMIX_IOF_CHANNEL | PMIX_LOCTYPE => 2,
        PMIX_INT | PMIX_UINT | PMIX_INT32 | PMIX_UINT32 | PMIX_STATUS | PMIX_PROC_RANK
        | PMIX_INFO_DIRECTIVES | PMIX_PID | PMIX_FLOAT => 4,
        PMIX_INT64 | PMIX_UINT64 | PMIX_SIZE | PMIX_DEVTYPE | PMIX_TIME | PMIX_DOUBLE => 8,
        PMIX_TIMEVAL => size_of::<libc::timeval>(),
        PMIX_STRING | PMIX_POINTER => size_of::<*mut c_void>(),
        PMIX_PROC_NSPACE => size_of::<pmix_nspace_t>(),
        PMIX_PROC => size_of::<pmix_proc_t>(),
        PMIX_BYTE_OBJECT | PMIX_COMPRESSED_STRING | PMIX_COMPRESSED_BYTE_OBJECT | PMIX_REGEX => {
            size_of::<pmix_byte_object_t>()
        }
        PMIX_ENVAR => size_of::<pmix_envar_t>(),
        PMIX_VALUE => size_of::<pmix_value_t>(),
        PMIX_INFO => size_of::<pmix_info_t>(),
        PMIX_PDATA => size_of::<pmix_pdata_t>(),
        PMIX_APP => size_of::<pmix_app_t>(),
        PMIX_QUERY => size_of::<pmix_query_t>(),
        PMIX_PROC_INFO => size_of::<pmix_proc_info_t>(),
        PMIX_COORD => size_of::<pmix_coord_t>(),
        PMIX_REGATTR => size_of::<pmix_regattr_t>(),
        PMIX_GEOMETRY => size_of::<pmix_geometry_t>(),
        PMIX_DEVICE => size_of::<pmix_device_t>(),
        PMIX_DEVICE_DIST => size_of::<pmix_device_distance_t>(),
        PMIX_ENDPOINT => size_of::<pmix_endpoint_t>(),
        PMIX_TOPO => size_of::<pmix_topology_t>(),
        PMIX_PROC_CPUSET => size_of::<pmix_cpuset_t>(),
        PMIX_NODE_PID => size_of::<pmix_node_pid_t>(),
        PMIX_REGEX2 => size_of::<pmix_regex2_t>(),
        PMIX_RESOURCE_UNIT => size_of::<pmix_resource_unit_t>(),
        PMIX_DATA_BUFFER => size_of::<pmix_data_buffer_t>(),
        PMIX_DATA_ARRAY => size_of::<pmix_data_array_t>(),
        _ => return None,
    })
}

/// How type `t` is stored in a `pmix_value_t` (`None`: unsupported type).
pub fn slot(t: DataType) -> Option<Slot> {
    elem_size(t)?;
    Some(match t {
        PMIX_PROC | PMIX_PROC_NSPACE | PMIX_PROC_INFO | PMIX_DATA_ARRAY | PMIX_COORD
        | PMIX_TOPO | PMIX_PROC_CPUSET | PMIX_GEOMETRY | PMIX_DEVICE | PMIX_DEVICE_DIST
        | PMIX_ENDPOINT | PMIX_DATA_BUFFER | PMIX_RESOURCE_UNIT | PMIX_NODE_PID | PMIX_REGEX2
        | PMIX_REGATTR => Slot::Boxed,
        PMIX_VALUE | PMIX_INFO | PMIX_PDATA | PMIX_APP | PMIX_QUERY => Slot::ArrayOnly,
        _ => Slot::Inline,
    })
}

/// The value a boxed type stands for when its pointer is NULL: `None` for procs and
/// namespaces, the empty object otherwise.
fn null_object(t: DataType) -> Result<Value> {
    Ok(match t {
        PMIX_PROC => Value::Proc(None),
        PMIX_PROC_NSPACE => Value::ProcNspace(None),
        PMIX_PROC_INFO => Value::ProcInfo(Box::default()),
        PMIX_DATA_ARRAY => Value::DataArray(Box::new(DataArray {
            dtype: PMIX_UNDEF,
            items: Vec::new(),
        })),
        PMIX_COORD => Value::Coord(Box::default()),
        PMIX_TOPO => Value::Topo(Box::default()),
        PMIX_PROC_CPUSET => Value::Cpuset(Box::default()),
        PMIX_GEOMETRY => Value::Geometry(Box::default()),
        PMIX_DEVICE => Value::Device(Box::default()),
        PMIX_DEVICE_DIST => Value::DeviceDist(Box::default()),
        PMIX_ENDPOINT => Value::Endpoint(Box::default()),
        PMIX_DATA_BUFFER => Value::DataBuffer(Vec::new()),
        PMIX_RESOURCE_UNIT => Value::ResourceUnit(Default::default()),
        PMIX_NODE_PID => Value::NodePid(Box::default()),
        PMIX_REGEX2 => Value::Regex2(Box::default()),
        PMIX_REGATTR => Value::Regattr(Box::new(Regattr {
            name: None,
            string: Key::new_allow_empty("")?,
            dtype: PMIX_UNDEF,
            description: None,
        })),
        _ => return Err(unknown_type(t)),
    })
}

/// Read one C datum of type `t` at `p`.
///
/// # Errors
/// `PMIX_ERR_UNKNOWN_DATA_TYPE` for unsupported types; `PMIX_ERR_BAD_PARAM` for
/// malformed content (keys without NUL, over-deep nesting, …).
///
/// # Safety
/// `p` points to a readable, initialised datum of type `t` (`elem_size(t)` bytes)
/// whose pointers are NULL or valid.
pub unsafe fn elem_from_c(p: *const u8, t: DataType) -> Result<Value> {
    // SAFETY: this function's `# Safety` contract promises of `p`, `t` what `elem_from`
    // requires.
    unsafe { elem_from(p, t, 0) }
}

pub(crate) unsafe fn elem_from(p: *const u8, t: DataType, depth: usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    macro_rules! rd {
        ($ty:ty) => {
            core::ptr::read_unaligned(p as *const $ty)
        };
    }
    // SAFETY: the caller promises `p` holds an initialised datum of type `t` whose
    // pointers are NULL or valid. Each arm reads it as the C type of `t`
    // (read_unaligned tolerates any alignment) and hands the nested pointers to
    // readers with the same contract.
    Ok(unsafe {
        match t {
            PMIX_BOOL => Value::Bool(rd!(u8) != 0),
            PMIX_BYTE => Value::Byte(rd!(u8)),
            PMIX_INT8 => Value::Int8(rd!(i8)),
            PMIX_UINT8 => Value::Uint8(rd!(u8)),
            PMIX_PERSIST => Value::Persist(rd!(u8)),
            PMIX_SCOPE => Value::Scope(rd!(u8)),
            PMIX_DATA_RANGE => Value::Range(rd!(u8)),
            PMIX_PROC_STATE => Value::ProcState(rd!(u8)),
            PMIX_JOB_STATE => Value::JobState(rd!(u8)),
            PMIX_LINK_STATE => Value::LinkState(rd!(u8)),
            PMIX_ALLOC_DIRECTIVE => Value::AllocDirective(rd!(u8)),
            PMIX_RESBLOCK_DIRECTIVE => Value::ResblockDirective(rd!(u8)),
            PMIX_ALLOC_INHERIT => Value::AllocInherit(rd!(u8)),
            PMIX_COMMAND => Value::Command(rd!(u8)),
            PMIX_INT16 => Value::Int16(rd!(i16)),
            PMIX_UINT16 => Value::Uint16(rd!(u16)),
            PMIX_DATA_TYPE => Value::DataType(rd!(u16)),
            PMIX_IOF_CHANNEL => Value::IofChannel(rd!(u16)),
            PMIX_LOCTYPE => Value::Locality(rd!(u16)),
            PMIX_INT => Value::Int(rd!(i32)),
            PMIX_INT32 => Value::Int32(rd!(i32)),
            PMIX_PID => Value::Pid(rd!(i32)),
            PMIX_STATUS => Value::Status(rd!(i32)),
            PMIX_UINT => Value::Uint(rd!(u32)),
            PMIX_UINT32 => Value::Uint32(rd!(u32)),
            PMIX_PROC_RANK => Value::Rank(rd!(u32)),
            PMIX_INFO_DIRECTIVES => Value::InfoDirectives(rd!(u32)),
            PMIX_INT64 => Value::Int64(rd!(i64)),
            PMIX_TIME => Value::Time(rd!(i64)),
            PMIX_UINT64 => Value::Uint64(rd!(u64)),
            PMIX_SIZE => Value::Size(rd!(u64)),
            PMIX_DEVTYPE => Value::DevType(rd!(u64)),
            PMIX_FLOAT => Value::Float(rd!(f32)),
            PMIX_DOUBLE => Value::Double(rd!(f64)),
            PMIX_TIMEVAL => {
                let tv = rd!(libc::timeval);
                Value::Timeval(tv.tv_sec, tv.tv_usec)
            }
            PMIX_STRING => Value::String(cstr_bytes(rd!(*const c_char))),
            PMIX_POINTER => Value::Pointer(rd!(usize)),
            PMIX_PROC_NSPACE => Value::ProcNspace(Some(nspace_from_array(&rd!(pmix_nspace_t))?)),
            PMIX_PROC => Value::Proc(Some(proc_from_c(&rd!(pmix_proc_t))?)),
            PMIX_BYTE_OBJECT
            | PMIX_COMPRESSED_STRING
            | PMIX_COMPRESSED_BYTE_OBJECT
            | PMIX_REGEX => {
                let b = bo_from_c(&rd!(pmix_byte_object_t));
                match t {
                    PMIX_BYTE_OBJECT => Value::ByteObject(b),
                    PMIX_COMPRESSED_STRING => Value::CompressedString(b),
                    PMIX_COMPRESSED_BYTE_OBJECT => Value::CompressedByteObject(b),
                    _ => Value::Regex(b),
                }
            }
            _ => return compound_from(p, t, depth),
        }
    })
}

/// The compound types of [`elem_from`] (structs, nested values, arrays).
///
/// # Safety
/// As for [`elem_from`].
unsafe fn compound_from(p: *const u8, t: DataType, depth: usize) -> Result<Value> {
    macro_rules! rd {
        ($ty:ty) => {
            core::ptr::read_unaligned(p as *const $ty)
        };
    }
    // SAFETY: the caller promises `p` holds an initialised datum of type `t` whose
    // pointers are NULL or valid. Each arm reads it as the C type of `t`
    // (read_unaligned tolerates any alignment) and hands the nested pointers to
    // readers with the same contract.
    Ok(unsafe {
        match t {
            PMIX_ENVAR => Value::Envar(envar_from_c(&rd!(pmix_envar_t))),
            PMIX_VALUE => Value::Value(Box::new(value_from(p as *const pmix_value_t, depth + 1)?)),
            PMIX_INFO => Value::Info(Box::new(info_from(&rd!(pmix_info_t), depth + 1)?)),
            PMIX_PDATA => Value::Pdata(Box::new(pdata_from(&rd!(pmix_pdata_t), depth + 1)?)),
            PMIX_APP => Value::App(Box::new(app_from(&rd!(pmix_app_t), depth + 1)?)),
            PMIX_QUERY => Value::Query(Box::new(query_from(&rd!(pmix_query_t), depth + 1)?)),
            PMIX_PROC_INFO => Value::ProcInfo(Box::new(proc_info_from_c(&rd!(pmix_proc_info_t))?)),
            PMIX_COORD => Value::Coord(Box::new(coord_from_c(&rd!(pmix_coord_t)))),
            PMIX_REGATTR => Value::Regattr(Box::new(regattr_from_c(&rd!(pmix_regattr_t))?)),
            PMIX_GEOMETRY => Value::Geometry(Box::new(geometry_from_c(&rd!(pmix_geometry_t)))),
            PMIX_DEVICE => Value::Device(Box::new(device_from_c(&rd!(pmix_device_t)))),
            PMIX_DEVICE_DIST => {
                Value::DeviceDist(Box::new(devdist_from_c(&rd!(pmix_device_distance_t))))
            }
            PMIX_ENDPOINT => Value::Endpoint(Box::new(endpoint_from_c(&rd!(pmix_endpoint_t)))),
            PMIX_TOPO => {
                let s = rd!(pmix_topology_t);
                Value::Topo(Box::new(Opaque {
                    source: cstr_bytes(s.source),
                    ptr: s.topology as usize,
                }))
            }
            PMIX_PROC_CPUSET => {
                let s = rd!(pmix_cpuset_t);
                Value::Cpuset(Box::new(Opaque {
                    source: cstr_bytes(s.source),
                    ptr: s.bitmap as usize,
                }))
            }
            PMIX_NODE_PID => Value::NodePid(Box::new(nodepid_from_c(&rd!(pmix_node_pid_t)))),
            PMIX_REGEX2 => Value::Regex2(Box::new(regex2_from_c(&rd!(pmix_regex2_t)))),
            PMIX_RESOURCE_UNIT => {
                let s = rd!(pmix_resource_unit_t);
                Value::ResourceUnit(pmix_core::ResourceUnit {
                    dtype: s.type_,
                    count: s.count as u64,
                })
            }
            PMIX_DATA_BUFFER => Value::DataBuffer(dbuf_from_c(&rd!(pmix_data_buffer_t))?),
            PMIX_DATA_ARRAY => {
                Value::DataArray(Box::new(darray_from(&rd!(pmix_data_array_t), depth + 1)?))
            }
            _ => return Err(unknown_type(t)),
        }
    })
}

/// Write `v` as one C datum of its type into `p`.
///
/// `p` must hold `elem_size(v.dtype())` bytes; its previous content is overwritten
/// without being released. Allocations are made with [`alloc`] (libc malloc).
///
/// # Errors
/// `PMIX_ERR_NOMEM`, `PMIX_ERR_UNKNOWN_DATA_TYPE` (`Value::Undef` has no element
/// form), `PMIX_ERR_BAD_PARAM` (strings with NUL, array elements of the wrong type).
/// On error `p` is left zeroed with nothing allocated.
///
/// # Safety
/// `p` is writable for `elem_size(v.dtype())` bytes and suitably aligned for the C
/// type of `v`.
pub unsafe fn elem_to_c(v: &Value, p: *mut u8) -> Result<()> {
    let t = v.dtype();
    let Some(size) = elem_size(t) else {
        return Err(unknown_type(t));
    };
    // SAFETY: `p` is writable for `size` bytes (caller's promise).
    unsafe { core::ptr::write_bytes(p, 0, size) };
    // SAFETY: as above; the storage is zeroed so a partial fill is destructible.
    let r = unsafe { elem_fill(v, p) };
    if r.is_err() {
        // SAFETY: `p` holds a partially filled, destructible datum of type `t`.
        unsafe { elem_destruct(p, t) };
    }
    r
}

/// Write `$val` as a `$ty` at `$p` (for `elem_fill` and `fill_compound`).
macro_rules! wr_at {
    ($p:expr, $ty:ty, $val:expr) => {{
        // SAFETY: `$p` holds `elem_size` bytes for this type, aligned for it (the
        // caller's promise), and `$ty` is the C type of the datum.
        unsafe { core::ptr::write($p as *mut $ty, $val) };
    }};
}

/// The zeroed `$ty` at `$p` as a mutable reference (for `elem_fill` and `fill_compound`).
macro_rules! st_at {
    ($p:expr, $ty:ty) => {
        // SAFETY: as for `wr_at!`; the storage is zeroed, a valid `$ty`.
        unsafe { &mut *($p as *mut $ty) }
    };
}

unsafe fn elem_fill(v: &Value, p: *mut u8) -> Result<()> {
    use Value as V;
    match v {
        V::Bool(b) => wr_at!(p, u8, *b as u8),
        V::Byte(x)
        | V::Uint8(x)
        | V::Persist(x)
        | V::Scope(x)
        | V::Range(x)
        | V::ProcState(x)
        | V::JobState(x)
        | V::LinkState(x)
        | V::AllocDirective(x)
        | V::ResblockDirective(x)
        | V::AllocInherit(x)
        | V::Command(x) => wr_at!(p, u8, *x),
        V::Int8(x) => wr_at!(p, i8, *x),
        V::Int16(x) => wr_at!(p, i16, *x),
        V::Uint16(x) | V::DataType(x) | V::IofChannel(x) | V::Locality(x) => wr_at!(p, u16, *x),
        V::Int(x) | V::Int32(x) | V::Pid(x) | V::Status(x) => wr_at!(p, i32, *x),
        V::Uint(x) | V::Uint32(x) | V::Rank(x) | V::InfoDirectives(x) => wr_at!(p, u32, *x),
        V::Int64(x) | V::Time(x) => wr_at!(p, i64, *x),
        V::Uint64(x) | V::Size(x) | V::DevType(x) => wr_at!(p, u64, *x),
        V::Float(x) => wr_at!(p, f32, *x),
        V::Double(x) => wr_at!(p, f64, *x),
        V::Timeval(s, us) => wr_at!(
            p,
            libc::timeval,
            libc::timeval {
                tv_sec: *s,
                tv_usec: *us
            }
        ),
        V::String(s) => wr_at!(p, *mut c_char, alloc::strdup_opt(s)?),
        V::Pointer(a) => wr_at!(p, usize, *a),
        V::ProcNspace(ns) => {
            if let Some(ns) = ns {
                load_nspace(st_at!(p, pmix_nspace_t), ns);
            }
        }
        V::Proc(pr) => {
            if let Some(pr) = pr {
                proc_to_c(pr, st_at!(p, pmix_proc_t));
            }
        }
        V::ByteObject(b) | V::CompressedString(b) | V::CompressedByteObject(b) | V::Regex(b) => {
            let (bytes, size) = alloc::bytes_to_c(b)?;
            wr_at!(
                p,
                pmix_byte_object_t,
                pmix_byte_object_t {
                    bytes: bytes as *mut c_char,
                    size
                }
            );
        }
        V::Undef => return Err(unknown_type(PMIX_UNDEF)),
        // SAFETY: `p` is as this function's contract requires, which is `fill_compound`'s.
        _ => unsafe { fill_compound(v, p) }?,
    }
    Ok(())
}

/// The compound values of [`elem_fill`] (structs, nested values, arrays); the scalars
/// are `elem_fill`'s own (given one, this answers `PMIX_ERR_UNKNOWN_DATA_TYPE`).
///
/// # Safety
/// As for [`elem_fill`]: `p` is writable for `elem_size(v.dtype())` zeroed bytes,
/// aligned for the C type of `v`.
unsafe fn fill_compound(v: &Value, p: *mut u8) -> Result<()> {
    use Value as V;
    match v {
        V::Envar(e) => envar_to_c(e, st_at!(p, pmix_envar_t))?,
        // SAFETY: the storage is a zeroed pmix_value_t.
        V::Value(inner) => unsafe { value_to_c(inner, p as *mut pmix_value_t) }?,
        V::Info(i) => info_to_c(i, st_at!(p, pmix_info_t))?,
        V::Pdata(d) => pdata_to_c(d, st_at!(p, pmix_pdata_t))?,
        V::App(a) => app_to_c(a, st_at!(p, pmix_app_t))?,
        V::Query(q) => query_to_c(q, st_at!(p, pmix_query_t))?,
        V::ProcInfo(pi) => proc_info_to_c(pi, st_at!(p, pmix_proc_info_t))?,
        V::Coord(c) => coord_to_c(c, st_at!(p, pmix_coord_t))?,
        V::Regattr(r) => regattr_to_c(r, st_at!(p, pmix_regattr_t))?,
        V::Geometry(g) => geometry_to_c(g, st_at!(p, pmix_geometry_t))?,
        V::Device(d) => device_to_c(d, st_at!(p, pmix_device_t))?,
        V::DeviceDist(d) => devdist_to_c(d, st_at!(p, pmix_device_distance_t))?,
        V::Endpoint(e) => endpoint_to_c(e, st_at!(p, pmix_endpoint_t))?,
        V::Topo(o) => {
            let s = st_at!(p, pmix_topology_t);
            s.source = alloc::strdup_opt(&o.source)?;
            s.topology = o.ptr as *mut c_void;
        }
        V::Cpuset(o) => {
            let s = st_at!(p, pmix_cpuset_t);
            s.source = alloc::strdup_opt(&o.source)?;
            s.bitmap = o.ptr as *mut c_void;
        }
        V::NodePid(n) => nodepid_to_c(n, st_at!(p, pmix_node_pid_t))?,
        V::Regex2(r) => regex2_to_c(r, st_at!(p, pmix_regex2_t))?,
        V::ResourceUnit(r) => {
            wr_at!(
                p,
                pmix_resource_unit_t,
                pmix_resource_unit_t {
                    type_: r.dtype,
                    count: r.count as usize
                }
            )
        }
        V::DataBuffer(b) => dbuf_to_c(b, st_at!(p, pmix_data_buffer_t))?,
        // SAFETY: the storage is a zeroed pmix_data_array_t.
        V::DataArray(d) => unsafe { darray_to_c(d, p as *mut pmix_data_array_t) }?,
        _ => return Err(unknown_type(v.dtype())),
    }
    Ok(())
}

/// Release everything one C datum of type `t` owns and zero it. Unknown types and
/// plain scalars only get zeroed. hwloc objects behind `pmix_topology_t` and
/// `pmix_cpuset_t` are not ours to destroy and are left alone (their `source` string
/// is freed).
///
/// # Safety
/// `p` holds an initialised datum of type `t` whose pointers are NULL or were
/// allocated with libc malloc and are not used afterwards.
pub unsafe fn elem_destruct(p: *mut u8, t: DataType) {
    // SAFETY: this function's `# Safety` contract promises of `p`, `t` what `elem_release`
    // requires.
    unsafe { elem_release(p, t, 0) }
}

pub(crate) unsafe fn elem_release(p: *mut u8, t: DataType, depth: usize) {
    let Some(size) = elem_size(t) else { return };
    if depth > MAX_DEPTH {
        // Refuse to chase a cycle; leaking beats crashing.
        log::warn!(
            "not releasing C data nested deeper than {} levels",
            MAX_DEPTH
        );
        return;
    }
    macro_rules! st {
        ($ty:ty) => {
            &mut *(p as *mut $ty)
        };
    }
    // SAFETY: `p` holds an initialised datum of type `t` (so `st!` yields a valid
    // reference to its C type) and every pointer freed below is owned by it, as the
    // caller promises.
    unsafe {
        match t {
            PMIX_STRING => alloc::free(*st!(*mut c_char)),
            PMIX_BYTE_OBJECT
            | PMIX_COMPRESSED_STRING
            | PMIX_COMPRESSED_BYTE_OBJECT
            | PMIX_REGEX => alloc::free(st!(pmix_byte_object_t).bytes),
            PMIX_ENVAR => envar_destruct(st!(pmix_envar_t)),
            PMIX_VALUE => value_release(p as *mut pmix_value_t, depth + 1),
            PMIX_INFO => info_release(st!(pmix_info_t), depth + 1),
            PMIX_PDATA => value_release(&mut st!(pmix_pdata_t).value, depth + 1),
            PMIX_APP => app_release(st!(pmix_app_t), depth + 1),
            PMIX_QUERY => query_release(st!(pmix_query_t), depth + 1),
            PMIX_PROC_INFO => proc_info_destruct(st!(pmix_proc_info_t)),
            PMIX_COORD => coord_destruct(st!(pmix_coord_t)),
            PMIX_REGATTR => regattr_destruct(st!(pmix_regattr_t)),
            PMIX_GEOMETRY => geometry_destruct(st!(pmix_geometry_t)),
            PMIX_DEVICE => device_destruct(st!(pmix_device_t)),
            PMIX_DEVICE_DIST => devdist_destruct(st!(pmix_device_distance_t)),
            PMIX_ENDPOINT => endpoint_destruct(st!(pmix_endpoint_t)),
            PMIX_TOPO => alloc::free(st!(pmix_topology_t).source),
            PMIX_PROC_CPUSET => alloc::free(st!(pmix_cpuset_t).source),
            PMIX_NODE_PID => alloc::free(st!(pmix_node_pid_t).hostname),
            PMIX_REGEX2 => regex2_destruct(st!(pmix_regex2_t)),
            PMIX_DATA_BUFFER => alloc::free(st!(pmix_data_buffer_t).base_ptr),
            PMIX_DATA_ARRAY => darray_release(p as *mut pmix_data_array_t, depth + 1),
            _ => {}
        }
        core::ptr::write_bytes(p, 0, size);
    }
}

/// Read a `pmix_value_t` into a [`Value`] (deep copy; C keeps ownership of `v`).
///
/// A boxed type whose pointer is NULL reads as `Proc(None)`/`ProcNspace(None)` or the
/// empty object of its type.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL `v` or malformed content, `PMIX_ERR_UNKNOWN_DATA_TYPE`
/// for unsupported types (and for `PMIX_INFO`/`PMIX_APP`/… which a value cannot hold).
///
/// # Safety
/// `v` is NULL or points to an initialised `pmix_value_t` whose pointers are NULL or
/// valid for their type.
pub unsafe fn value_from_c(v: *const pmix_value_t) -> Result<Value> {
    // SAFETY: this function's `# Safety` contract promises of `v` what `value_from`
    // requires.
    unsafe { value_from(v, 0) }
}

pub(crate) unsafe fn value_from(v: *const pmix_value_t, depth: usize) -> Result<Value> {
    if v.is_null() {
        log::warn!("NULL pmix_value_t");
        return Err(Error::bad_param("NULL value"));
    }
    // SAFETY: `v` is readable (caller's promise); read_unaligned copies it out.
    let v = unsafe { core::ptr::read_unaligned(v) };
    let t = v.type_;
    if t == PMIX_UNDEF {
        return Ok(Value::Undef);
    }
    match slot(t) {
        Some(Slot::Inline) => {
            // SAFETY: the union holds an initialised datum of type `t` (caller's promise).
            unsafe { elem_from(&v.data as *const pmix_value_data as *const u8, t, depth) }
        }
        Some(Slot::Boxed) => {
            // SAFETY: reading a pointer member of the union; every bit pattern is valid.
            let p = unsafe { v.data.ptr } as *const u8;
            if p.is_null() {
                null_object(t)
            } else {
                // SAFETY: a non-NULL boxed pointer points to one datum of type `t`.
                unsafe { elem_from(p, t, depth) }
            }
        }
        Some(Slot::ArrayOnly) | None => Err(unknown_type(t)),
    }
}

/// Write `v` into `*out` (deep copy, every buffer from libc malloc).
///
/// `*out` is overwritten without being released first.
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_BAD_PARAM` for values a `pmix_value_t` cannot hold
/// (`Value::Info`, `Value::App`, …, strings containing NUL, mistyped array elements).
/// On error `*out` is a `PMIX_UNDEF` value owning nothing.
///
/// # Safety
/// `out` is valid for writing a `pmix_value_t`.
pub unsafe fn value_to_c(v: &Value, out: *mut pmix_value_t) -> Result<()> {
    // SAFETY: `out` is writable (caller's promise); all-zero is PMIX_UNDEF.
    let out = unsafe {
        core::ptr::write_bytes(out, 0, 1);
        &mut *out
    };
    if let Some(r) = common_to_c(v, out) {
        return r;
    }
    let t = v.dtype();
    let r = match slot(t) {
        _ if t == PMIX_UNDEF => Ok(()),
        Some(Slot::Inline) => {
            // SAFETY: the union is 24 zeroed bytes, large and aligned enough for every
            // inline type.
            unsafe { elem_to_c(v, &mut out.data as *mut pmix_value_data as *mut u8) }
        }
        Some(Slot::Boxed) => match v {
            Value::Proc(None) | Value::ProcNspace(None) => Ok(()),
            _ => boxed_to_c(v, t).map(|p| out.data.ptr = p as *mut c_void),
        },
        Some(Slot::ArrayOnly) | None => {
            log::warn!("data type {} cannot be stored in a pmix_value_t", t);
            Err(Error::bad_param(format!(
                "type {} cannot be a pmix_value_t",
                t
            )))
        }
    };
    match r {
        Ok(()) => {
            out.type_ = t;
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// The types most Gets return (the integers, strings, booleans, ranks), written straight
/// into a zeroed `out` without the general per-type dispatch of [`elem_to_c`] (a local
/// Get is a few hundred instructions; that dispatch was a tenth of it). `None`: not one
/// of these, use the general path.
fn common_to_c(v: &Value, out: &mut pmix_value_t) -> Option<Result<()>> {
    use Value as V;
    let d = &mut out.data;
    let t = match v {
        V::Bool(b) => {
            d.flag = *b;
            PMIX_BOOL
        }
        V::Uint8(x) => {
            d.uint8 = *x;
            PMIX_UINT8
        }
        V::Uint16(x) => {
            d.uint16 = *x;
            PMIX_UINT16
        }
        V::Uint32(x) => {
            d.uint32 = *x;
            PMIX_UINT32
        }
        V::Uint64(x) => {
            d.uint64 = *x;
            PMIX_UINT64
        }
        V::Int(x) => {
            d.integer = *x;
            PMIX_INT
        }
        V::Int32(x) => {
            d.int32 = *x;
            PMIX_INT32
        }
        V::Int64(x) => {
            d.int64 = *x;
            PMIX_INT64
        }
        V::Uint(x) => {
            d.uint = *x;
            PMIX_UINT
        }
        V::Size(x) => {
            d.size = *x as usize;
            PMIX_SIZE
        }
        V::Rank(x) => {
            d.rank = *x;
            PMIX_PROC_RANK
        }
        V::Pid(x) => {
            d.pid = *x;
            PMIX_PID
        }
        V::Status(x) => {
            d.status = *x;
            PMIX_STATUS
        }
        V::String(s) => match alloc::strdup_opt(s) {
            Ok(p) => {
                d.string = p;
                PMIX_STRING
            }
            Err(e) => return Some(Err(e)),
        },
        _ => return None,
    };
    out.type_ = t;
    Some(Ok(()))
}

/// One malloc'd datum holding `v`.
fn boxed_to_c(v: &Value, t: DataType) -> Result<*mut u8> {
    let size = elem_size(t).ok_or_else(|| unknown_type(t))?;
    let p = alloc::calloc_array::<u8>(size)?;
    // SAFETY: `p` is a fresh, zeroed, malloc-aligned block of `size` bytes.
    match unsafe { elem_to_c(v, p) } {
        Ok(()) => Ok(p),
        Err(e) => {
            // SAFETY: `p` is ours and owns nothing after the failed fill.
            unsafe { alloc::free(p) };
            Err(e)
        }
    }
}

/// A malloc'd `pmix_value_t` holding `v` (free it with `PMIx_Value_free(p, 1)`).
///
/// # Errors
/// As [`value_to_c`].
pub fn value_new(v: &Value) -> Result<*mut pmix_value_t> {
    // malloc, not calloc: `value_to_c` zeroes the block itself.
    let p = alloc::malloc_bytes(size_of::<pmix_value_t>())? as *mut pmix_value_t;
    // SAFETY: `p` is a fresh malloc'd block the size of a pmix_value_t (malloc's
    // alignment suits it); value_to_c writes it whole before reading anything.
    match unsafe { value_to_c(v, p) } {
        Ok(()) => Ok(p),
        Err(e) => {
            // SAFETY: `p` is ours and owns nothing.
            unsafe { alloc::free(p) };
            Err(e)
        }
    }
}

/// Release what a `pmix_value_t` owns and leave it `PMIX_UNDEF` (`PMIx_Value_destruct`).
///
/// # Safety
/// `v` is NULL or an initialised `pmix_value_t` whose pointers were allocated with
/// libc malloc and are not used afterwards.
pub unsafe fn value_destruct(v: *mut pmix_value_t) {
    // SAFETY: this function's `# Safety` contract promises of `v` what `value_release`
    // requires.
    unsafe { value_release(v, 0) }
}

pub(crate) unsafe fn value_release(v: *mut pmix_value_t, depth: usize) {
    if v.is_null() {
        return;
    }
    // SAFETY: `v` is an initialised value (caller's promise).
    let val = unsafe { &mut *v };
    let t = val.type_;
    // The common types first (see `common_to_c`): a string is the only one owning memory.
    match t {
        PMIX_STRING => {
            // SAFETY: the union holds a malloc'd string or NULL.
            unsafe { alloc::free(val.data.string) };
            // SAFETY: `v` is writable; all-zero is PMIX_UNDEF.
            unsafe { core::ptr::write_bytes(v, 0, 1) };
            return;
        }
        PMIX_UNDEF | PMIX_BOOL | PMIX_UINT8 | PMIX_UINT16 | PMIX_UINT32 | PMIX_UINT64
        | PMIX_INT | PMIX_INT32 | PMIX_INT64 | PMIX_UINT | PMIX_SIZE | PMIX_PROC_RANK
        | PMIX_PID | PMIX_STATUS => {
            // SAFETY: `v` is writable; all-zero is PMIX_UNDEF.
            unsafe { core::ptr::write_bytes(v, 0, 1) };
            return;
        }
        _ => {}
    }
    match slot(t) {
        // SAFETY: the union holds a datum of type `t`.
        Some(Slot::Inline) => unsafe {
            elem_release(&mut val.data as *mut pmix_value_data as *mut u8, t, depth)
        },
        Some(Slot::Boxed) => {
            // SAFETY: pointer member of the union; the pointee is one malloc'd datum.
            unsafe {
                let p = val.data.ptr as *mut u8;
                if !p.is_null() {
                    elem_release(p, t, depth);
                    alloc::free(p);
                }
            }
        }
        _ => {}
    }
    // SAFETY: `v` is writable; all-zero is PMIX_UNDEF.
    unsafe { core::ptr::write_bytes(v, 0, 1) };
}

/// Read a `pmix_data_array_t` (deep copy). A NULL `array` or zero `size` is empty.
///
/// # Errors
/// `PMIX_ERR_UNKNOWN_DATA_TYPE` for unsupported element types, otherwise as
/// [`elem_from_c`].
///
/// # Safety
/// `d` points to an initialised `pmix_data_array_t` whose `array` holds `size`
/// elements of type `type` (or is NULL).
pub unsafe fn darray_from_c(d: *const pmix_data_array_t) -> Result<DataArray> {
    if d.is_null() {
        return Err(Error::bad_param("NULL data array"));
    }
    // SAFETY: readable (caller's promise).
    unsafe { darray_from(&core::ptr::read_unaligned(d), 0) }
}

pub(crate) unsafe fn darray_from(d: &pmix_data_array_t, depth: usize) -> Result<DataArray> {
    let t = d.type_;
    if d.size == 0 || d.array.is_null() {
        return Ok(DataArray {
            dtype: t,
            items: Vec::new(),
        });
    }
    let esz = elem_size(t).ok_or_else(|| unknown_type(t))?;
    if d.size.checked_mul(esz).is_none() {
        return Err(Error::bad_param("data array size overflows"));
    }
    let mut items = Vec::with_capacity(d.size.min(1024));
    for i in 0..d.size {
        // SAFETY: element `i` lies within the `size * esz` bytes of `array`.
        items.push(unsafe { elem_from((d.array as *const u8).add(i * esz), t, depth) }?);
    }
    Ok(DataArray { dtype: t, items })
}

/// Write `d` into `*out`: `type`, `size` and a calloc'd `array` of C elements
/// (NULL when empty). `*out` is overwritten without being released.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if an item's type differs from `d.dtype`;
/// `PMIX_ERR_UNKNOWN_DATA_TYPE`; `PMIX_ERR_NOMEM`. On error `*out` is an empty array.
///
/// # Safety
/// `out` is valid for writing a `pmix_data_array_t`.
pub unsafe fn darray_to_c(d: &DataArray, out: *mut pmix_data_array_t) -> Result<()> {
    // SAFETY: writable (caller's promise).
    let out = unsafe { &mut *out };
    *out = pmix_data_array_t {
        type_: d.dtype,
        size: 0,
        array: core::ptr::null_mut(),
    };
    if d.items.is_empty() {
        return Ok(());
    }
    let esz = elem_size(d.dtype).ok_or_else(|| unknown_type(d.dtype))?;
    if let Some(bad) = d.items.iter().find(|v| v.dtype() != d.dtype) {
        log::warn!(
            "data array of type {} holds an element of type {}",
            d.dtype,
            bad.dtype()
        );
        return Err(Error::bad_param("data array element type mismatch"));
    }
    let bytes = d.items.len().checked_mul(esz).ok_or_else(alloc::nomem)?;
    let arr = alloc::calloc_array::<u8>(bytes)?;
    for (i, item) in d.items.iter().enumerate() {
        // SAFETY: element `i` lies within the zeroed `bytes`-sized block; calloc
        // alignment and a stride of a whole C struct keep it aligned.
        if let Err(e) = unsafe { elem_to_c(item, arr.add(i * esz)) } {
            // SAFETY: elements before `i` are filled, the rest zeroed: all destructible.
            unsafe {
                for j in 0..i {
                    elem_destruct(arr.add(j * esz), d.dtype);
                }
                alloc::free(arr);
            }
            return Err(e);
        }
    }
    out.size = d.items.len();
    out.array = arr as *mut c_void;
    Ok(())
}

/// Release a data array's elements and block, leaving it empty (`type` kept)
/// (`PMIx_Data_array_destruct`).
///
/// # Safety
/// `d` is NULL or an initialised array whose block and element contents came from
/// libc malloc and are not used afterwards.
pub unsafe fn darray_destruct(d: *mut pmix_data_array_t) {
    // SAFETY: this function's `# Safety` contract promises of `d` what `darray_release`
    // requires.
    unsafe { darray_release(d, 0) }
}

pub(crate) unsafe fn darray_release(d: *mut pmix_data_array_t, depth: usize) {
    if d.is_null() {
        return;
    }
    // SAFETY: initialised (caller's promise).
    let d = unsafe { &mut *d };
    if !d.array.is_null() {
        if let Some(esz) = elem_size(d.type_) {
            for i in 0..d.size {
                // SAFETY: element `i` is within the block.
                unsafe { elem_release((d.array as *mut u8).add(i * esz), d.type_, depth) };
            }
        }
        // SAFETY: the block came from malloc.
        unsafe { alloc::free(d.array) };
    }
    d.array = core::ptr::null_mut();
    d.size = 0;
}

/// Put one C datum of type `t` into its constructed state: zeroed, plus OpenPMIx's
/// non-zero defaults (`pmix_proc_t.rank` = `PMIX_RANK_UNDEF`, device distances =
/// `UINT16_MAX`, `pmix_node_pid_t` nodeid `UINT32_MAX` / pid -1). Unknown types are
/// left untouched.
///
/// # Safety
/// `p` is writable for `elem_size(t)` bytes, aligned for the C type of `t`; its old
/// content is overwritten without being released.
pub unsafe fn elem_construct(p: *mut u8, t: DataType) {
    let Some(size) = elem_size(t) else { return };
    // SAFETY: writable for `size` bytes and aligned for the type (caller's promise).
    unsafe {
        core::ptr::write_bytes(p, 0, size);
        match t {
            PMIX_PROC => (*(p as *mut pmix_proc_t)).rank = PMIX_RANK_UNDEF,
            PMIX_DEVICE_DIST => {
                let d = &mut *(p as *mut pmix_device_distance_t);
                d.mindist = u16::MAX;
                d.maxdist = u16::MAX;
            }
            PMIX_NODE_PID => {
                let n = &mut *(p as *mut pmix_node_pid_t);
                n.nodeid = u32::MAX;
                n.pid = -1;
            }
            _ => {}
        }
    }
}

/// A malloc'd array of `n` constructed elements of type `t` (`PMIX_INFO` arrays get
/// `PMIX_INFO_ARRAY_END` on the last element). `Ok(NULL)` for `n == 0`.
///
/// # Errors
/// `PMIX_ERR_UNKNOWN_DATA_TYPE`, `PMIX_ERR_NOMEM`.
pub fn elem_array_new(n: usize, t: DataType) -> Result<*mut u8> {
    if n == 0 {
        return Ok(core::ptr::null_mut());
    }
    let esz = elem_size(t).ok_or_else(|| unknown_type(t))?;
    let bytes = n.checked_mul(esz).ok_or_else(alloc::nomem)?;
    let p = alloc::calloc_array::<u8>(bytes)?;
    for i in 0..n {
        // SAFETY: element `i` lies inside the fresh block; a whole-struct stride keeps
        // it aligned.
        unsafe { elem_construct(p.add(i * esz), t) };
    }
    if t == PMIX_INFO {
        // SAFETY: the last element is an info inside the block.
        unsafe { (*(p as *mut pmix_info_t).add(n - 1)).flags |= PMIX_INFO_ARRAY_END };
    }
    Ok(p)
}

/// Release `n` elements of type `t` and free the block (NULL is fine).
///
/// # Safety
/// `p` is NULL or a malloc'd block of `n` initialised elements of type `t`.
pub unsafe fn elem_array_free(p: *mut u8, n: usize, t: DataType) {
    if p.is_null() {
        return;
    }
    if t == PMIX_VALUE {
        // `PMIX_VALUE_RELEASE` after every Get: straight to the value's own release.
        let v = p as *mut pmix_value_t;
        for i in 0..n {
            // SAFETY: element `i` is an initialised value (caller's promise).
            unsafe { value_release(v.add(i), 1) };
        }
    } else if let Some(esz) = elem_size(t) {
        for i in 0..n {
            // SAFETY: element `i` is initialised (caller's promise).
            unsafe { elem_destruct(p.add(i * esz), t) };
        }
    }
    // SAFETY: the block came from malloc.
    unsafe { alloc::free(p) };
}
