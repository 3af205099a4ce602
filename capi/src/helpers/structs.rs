//! Lifecycles of the descriptive structs: `PMIx_<T>_construct/destruct/create/free`
//! (and `load`/`xfer` where OpenPMIx has them) for coord, geometry, device, device
//! distance, node pid, regex2, resource unit, byte object, endpoint, envar, proc info,
//! pdata, regattr, app, query, topology and cpuset; `PMIx_Fabric_construct`.
//!
//! Ownership: `create(n)` returns a malloc'd array of constructed structs (NULL for
//! `n == 0`) that `free(p, n)` releases together with everything the structs own.
//! `destruct` frees what one struct owns and leaves it constructed. hwloc objects
//! behind topologies/cpusets are never freed by this library.

use crate::conv::{self, alloc};
use crate::ffi_value;
use core::ffi::{c_char, c_void};
use pmix_sys::*;

macro_rules! lifecycle {
    ($t:ty, $dt:ident: fn $construct:ident(); fn $destruct:ident(); fn $create:ident(); fn $free:ident();) => {
        lifecycle!(@construct $t, $dt: fn $construct(););
        lifecycle!(@destruct $t, $dt: fn $destruct(););

        /// A malloc'd array of `n` constructed structs (NULL for `n == 0`).
        ///
        /// # Safety
        /// No pointer arguments: nothing the caller passes can make the call unsound.
        /// What the library hands back is malloc'd and the caller's to release, unless
        /// stated above.
        #[no_mangle]
        pub unsafe extern "C" fn $create(n: usize) -> *mut $t {
            ffi_value!($create, core::ptr::null_mut(), {
                conv::elem_array_new(n, $dt).unwrap_or(core::ptr::null_mut()) as *mut $t
            })
        }

        /// Destruct `n` structs and free the array. NULL is ignored.
        ///
        /// # Safety
        /// The C contract (what makes the call sound):
        /// - `p` is NULL or a malloc'd array (from the matching `create` or the PMIx
        ///   `CREATE` macro) of `n` initialised structs whose pointers are NULL or
        ///   malloc'd, none of it used after the call.
        #[no_mangle]
        pub unsafe extern "C" fn $free(p: *mut $t, n: usize) {
            ffi_value!($free, (), {
                if let Some(b) = crate::arg!(block p, n) {
                    b.free_elems();
                }
            })
        }
    };
    (@construct $t:ty, $dt:ident: fn $construct:ident();) => {
        /// Put the struct in its constructed state (NULL is ignored).
        ///
        /// # Safety
        /// The C contract (what makes the call sound):
        /// - `p` is NULL or points to a writable struct; its old content is overwritten
        ///   without being released.
        #[no_mangle]
        pub unsafe extern "C" fn $construct(p: *mut $t) {
            const _: () = assert!(<$t as crate::args::PmixType>::DT == $dt);
            ffi_value!($construct, (), {
                if let Some(p) = crate::arg!(opt_zeroed p) {
                    crate::args::construct(p);
                }
            })
        }
    };
    (@destruct $t:ty, $dt:ident: fn $destruct:ident();) => {
        /// Free what the struct owns and leave it constructed (NULL is ignored).
        ///
        /// # Safety
        /// The C contract (what makes the call sound):
        /// - `p` is NULL or points to an initialised struct whose pointers are NULL or
        ///   malloc'd and not used after the call.
        #[no_mangle]
        pub unsafe extern "C" fn $destruct(p: *mut $t) {
            const _: () = assert!(<$t as crate::args::PmixType>::DT == $dt);
            ffi_value!($destruct, (), {
                if let Some(mut o) = crate::arg!(owned p) {
                    o.destruct_elems();
                }
            })
        }
    };
}

lifecycle!(pmix_geometry_t, PMIX_GEOMETRY: fn PMIx_Geometry_construct(); fn PMIx_Geometry_destruct(); fn PMIx_Geometry_create(); fn PMIx_Geometry_free(););
lifecycle!(pmix_device_t, PMIX_DEVICE: fn PMIx_Device_construct(); fn PMIx_Device_destruct(); fn PMIx_Device_create(); fn PMIx_Device_free(););
lifecycle!(pmix_device_distance_t, PMIX_DEVICE_DIST: fn PMIx_Device_distance_construct(); fn PMIx_Device_distance_destruct(); fn PMIx_Device_distance_create(); fn PMIx_Device_distance_free(););
lifecycle!(pmix_node_pid_t, PMIX_NODE_PID: fn PMIx_Node_pid_construct(); fn PMIx_Node_pid_destruct(); fn PMIx_Node_pid_create(); fn PMIx_Node_pid_free(););
lifecycle!(pmix_regex2_t, PMIX_REGEX2: fn PMIx_Regex2_construct(); fn PMIx_Regex2_destruct(); fn PMIx_Regex2_create(); fn PMIx_Regex2_free(););
lifecycle!(pmix_resource_unit_t, PMIX_RESOURCE_UNIT: fn PMIx_Resource_unit_construct(); fn PMIx_Resource_unit_destruct(); fn PMIx_Resource_unit_create(); fn PMIx_Resource_unit_free(););
lifecycle!(pmix_byte_object_t, PMIX_BYTE_OBJECT: fn PMIx_Byte_object_construct(); fn PMIx_Byte_object_destruct(); fn PMIx_Byte_object_create(); fn PMIx_Byte_object_free(););
lifecycle!(pmix_endpoint_t, PMIX_ENDPOINT: fn PMIx_Endpoint_construct(); fn PMIx_Endpoint_destruct(); fn PMIx_Endpoint_create(); fn PMIx_Endpoint_free(););
lifecycle!(pmix_envar_t, PMIX_ENVAR: fn PMIx_Envar_construct(); fn PMIx_Envar_destruct(); fn PMIx_Envar_create(); fn PMIx_Envar_free(););
lifecycle!(pmix_proc_info_t, PMIX_PROC_INFO: fn PMIx_Proc_info_construct(); fn PMIx_Proc_info_destruct(); fn PMIx_Proc_info_create(); fn PMIx_Proc_info_free(););
lifecycle!(pmix_pdata_t, PMIX_PDATA: fn PMIx_Pdata_construct(); fn PMIx_Pdata_destruct(); fn PMIx_Pdata_create(); fn PMIx_Pdata_free(););
lifecycle!(pmix_regattr_t, PMIX_REGATTR: fn PMIx_Regattr_construct(); fn PMIx_Regattr_destruct(); fn PMIx_Regattr_create(); fn PMIx_Regattr_free(););
lifecycle!(pmix_app_t, PMIX_APP: fn PMIx_App_construct(); fn PMIx_App_destruct(); fn PMIx_App_create(); fn PMIx_App_free(););
lifecycle!(pmix_query_t, PMIX_QUERY: fn PMIx_Query_construct(); fn PMIx_Query_destruct(); fn PMIx_Query_create(); fn PMIx_Query_free(););
lifecycle!(pmix_topology_t, PMIX_TOPO: fn PMIx_Topology_construct(); fn PMIx_Topology_destruct(); fn PMIx_Topology_create(); fn PMIx_Topology_free(););
lifecycle!(pmix_cpuset_t, PMIX_PROC_CPUSET: fn PMIx_Cpuset_construct(); fn PMIx_Cpuset_destruct(); fn PMIx_Cpuset_create(); fn PMIx_Cpuset_free(););

lifecycle!(@construct pmix_coord_t, PMIX_COORD: fn PMIx_Coord_construct(););
lifecycle!(@destruct pmix_coord_t, PMIX_COORD: fn PMIx_Coord_destruct(););

/// `number` coords of `dims` zeroed dimensions each (NULL for `number == 0`); release
/// with `PMIx_Coord_free(m, number)`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Coord_create(dims: usize, number: usize) -> *mut pmix_coord_t {
    ffi_value!(PMIx_Coord_create, core::ptr::null_mut(), {
        coord_array(dims, number)
    })
}

/// A malloc'd array of `number` coords of `dims` zeroed dimensions each (NULL on
/// failure or for 0).
fn coord_array(dims: usize, number: usize) -> *mut pmix_coord_t {
    let Ok(p) = conv::elem_array_new(number, PMIX_COORD) else {
        return core::ptr::null_mut();
    };
    let m = p as *mut pmix_coord_t;
    if dims > 0 {
        for i in 0..number {
            let Ok(c) = alloc::calloc_array::<u32>(dims) else {
                // SAFETY: every coord is constructed or filled; the block is ours.
                unsafe { conv::elem_array_free(p, number, PMIX_COORD) };
                return core::ptr::null_mut();
            };
            // SAFETY: `i` is within the fresh array.
            unsafe {
                (*m.add(i)).coord = c;
                (*m.add(i)).dims = dims;
            }
        }
    }
    m
}

/// Destruct `number` coords and free the array. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `m` is NULL or points to `number` initialised `pmix_coord_t`s that the caller may
///   write through.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Coord_free(m: *mut pmix_coord_t, number: usize) {
    ffi_value!(PMIx_Coord_free, (), {
        // SAFETY: NULL or a malloc'd array (C contract).
        if let Some(b) = crate::arg!(block m, number) {
            b.free_elems();
        }
    })
}

/// Point the byte object at `d`/`sz`: the object takes ownership of `d` (which must
/// come from malloc if the object is later destructed).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `b` is NULL or points to an initialised `pmix_byte_object_t` that the library reads or
///   fills in as described above;
/// - `d` is NULL or a NUL-terminated string.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Byte_object_load(
    b: *mut pmix_byte_object_t,
    d: *mut c_char,
    sz: usize,
) {
    ffi_value!(PMIx_Byte_object_load, (), {
        if let Ok(Some(b)) = crate::arg!(opt_mut b) {
            *b = pmix_byte_object_t {
                bytes: d,
                size: if d.is_null() { 0 } else { sz },
            };
        }
    })
}

/// Store copies of `var` and `value` (NULL stays NULL) and the separator; the old
/// content is not released.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `e` is NULL or points to an initialised `pmix_envar_t` that the library reads or fills
///   in as described above;
/// - `var` is NULL or a NUL-terminated string;
/// - `value` is NULL or a NUL-terminated string.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Envar_load(
    e: *mut pmix_envar_t,
    var: *mut c_char,
    value: *mut c_char,
    separator: c_char,
) {
    ffi_value!(PMIx_Envar_load, (), {
        let Ok(Some(e)) = crate::arg!(opt_mut e) else {
            return;
        };
        let var = crate::arg!(cbytes var).map(<[u8]>::to_vec);
        let value = crate::arg!(cbytes value).map(<[u8]>::to_vec);
        let env = pmix_core::Envar {
            envar: var,
            value,
            separator: separator as u8,
        };
        // SAFETY: writable (C contract).
        if conv::envar_to_c(&env, e).is_err() {
            log::warn!("PMIx_Envar_load: out of memory");
        }
    })
}

/// Construct `dest` and load it with proc `p` (NULL: empty), `key` (truncated to
/// `PMIX_MAX_KEYLEN`) and a copy of the datum at `data`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `dest` is NULL or points to an initialised `pmix_pdata_t` that the library reads or
///   fills in as described above;
/// - `p` is NULL or points to an initialised `pmix_proc_t` (only read);
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `data` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Pdata_load(
    dest: *mut pmix_pdata_t,
    p: *const pmix_proc_t,
    key: *const c_char,
    data: *const c_void,
    type_: pmix_data_type_t,
) {
    ffi_value!(PMIx_Pdata_load, (), {
        let Some(d) = crate::arg!(opt_zeroed dest) else {
            return;
        };
        if let Ok(Some(p)) = crate::arg!(opt p) {
            d.proc_ = *p;
            d.proc_.nspace[PMIX_MAX_NSLEN] = 0;
        }
        conv::load_array(&mut d.key, crate::arg!(bounded key, PMIX_MAX_KEYLEN));
        let rc = crate::arg!(datum_ptr data, type_).load_into(&mut d.value);
        if rc != PMIX_SUCCESS {
            log::warn!("PMIx_Pdata_load: value not loaded ({})", rc);
        }
    })
}

/// Deep-copy `*src` into `*dest` (old content not released).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `dest` is NULL or points to an initialised `pmix_pdata_t` that the library reads or
///   fills in as described above;
/// - `src` is NULL or points to an initialised `pmix_pdata_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Pdata_xfer(dest: *mut pmix_pdata_t, src: *mut pmix_pdata_t) {
    ffi_value!(PMIx_Pdata_xfer, (), {
        if dest.is_null() || src.is_null() || core::ptr::eq(dest, src) {
            return;
        }
        let Ok(Some(s)) = crate::arg!(opt src) else {
            return;
        };
        let value = crate::arg!(value core::ptr::addr_of!(s.value));
        let Some(d) = crate::arg!(opt_zeroed dest) else {
            return;
        };
        d.proc_ = s.proc_;
        d.proc_.nspace[PMIX_MAX_NSLEN] = 0;
        d.key = s.key;
        d.key[PMIX_MAX_KEYLEN] = 0;
        let rc = super::value::xfer_checked(&mut d.value, value);
        if rc != PMIX_SUCCESS {
            log::warn!("PMIx_Pdata_xfer: value not copied ({})", rc);
        }
    })
}

/// Give the app `n` constructed infos (`p->info`, `p->ninfo`).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to `n` initialised `pmix_app_t`s that the caller may write
///   through.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_info_create(p: *mut pmix_app_t, n: usize) {
    ffi_value!(PMIx_App_info_create, (), {
        let Ok(Some(p)) = crate::arg!(opt_mut p) else {
            return;
        };
        let info =
            conv::elem_array_new(n, PMIX_INFO).unwrap_or(core::ptr::null_mut()) as *mut pmix_info_t;
        p.info = info;
        p.ninfo = if info.is_null() { 0 } else { n };
    })
}

/// `PMIx_App_free(p, 1)`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_app_t` that the library reads or fills
///   in as described above.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_release(p: *mut pmix_app_t) {
    ffi_value!(PMIx_App_release, (), {
        // SAFETY: this export's `# Safety` contract promises of `p` what `PMIx_App_free`
        // requires.
        if let Some(b) = crate::arg!(block p, 1) {
            b.free_elems();
        }
    })
}

/// Give the query `n` constructed qualifiers (`p->qualifiers`, `p->nqual`).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to `n` initialised `pmix_query_t`s that the caller may write
///   through.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_qualifiers_create(p: *mut pmix_query_t, n: usize) {
    ffi_value!(PMIx_Query_qualifiers_create, (), {
        let Ok(Some(p)) = crate::arg!(opt_mut p) else {
            return;
        };
        let q =
            conv::elem_array_new(n, PMIX_INFO).unwrap_or(core::ptr::null_mut()) as *mut pmix_info_t;
        p.qualifiers = q;
        p.nqual = if q.is_null() { 0 } else { n };
    })
}

/// `PMIx_Query_free(p, 1)`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_query_t` that the library reads or fills
///   in as described above.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_release(p: *mut pmix_query_t) {
    ffi_value!(PMIx_Query_release, (), {
        // SAFETY: this export's `# Safety` contract promises of `p` what `PMIx_Query_free`
        // requires.
        if let Some(b) = crate::arg!(block p, 1) {
            b.free_elems();
        }
    })
}

/// Fill a regattr: a copy of `name`, the `key` (truncated), the type, and
/// `description` appended to its description lines. NULL inputs leave fields alone.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `info` is NULL or points to an initialised `pmix_regattr_t` that the library reads or
///   fills in as described above;
/// - `name` is NULL or a NUL-terminated string the library only reads;
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `description` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Regattr_load(
    info: *mut pmix_regattr_t,
    name: *const c_char,
    key: *const c_char,
    type_: pmix_data_type_t,
    description: *const c_char,
) {
    ffi_value!(PMIx_Regattr_load, (), {
        let Some(mut o) = crate::arg!(owned info) else {
            return;
        };
        let r = o.get();
        if let Some(n) = crate::arg!(cbytes name) {
            if let Ok(p) = alloc::strdup_bytes(n) {
                r.name = p;
            }
        }
        if !key.is_null() {
            conv::load_array(&mut r.string, crate::arg!(bounded key, PMIX_MAX_KEYLEN));
        }
        r.type_ = type_;
        if let Some(d) = crate::arg!(cbytes description) {
            if o.append_description(d).is_err() {
                log::warn!("PMIx_Regattr_load: out of memory");
            }
        }
    })
}

/// Construct `*dest` as a deep copy of `*src`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `dest` is NULL or points to an initialised `pmix_regattr_t` that the library reads or
///   fills in as described above;
/// - `src` is NULL or points to an initialised `pmix_regattr_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Regattr_xfer(dest: *mut pmix_regattr_t, src: *const pmix_regattr_t) {
    ffi_value!(PMIx_Regattr_xfer, (), {
        if dest.is_null() || src.is_null() {
            return;
        }
        let r = match crate::arg!(regattr src) {
            Ok(r) => r,
            Err(_) => return,
        };
        let Ok(Some(d)) = crate::arg!(opt_mut dest) else {
            return;
        };
        if conv::regattr_to_c(&r, d).is_err() {
            log::warn!("PMIx_Regattr_xfer: copy failed");
        }
    })
}

/// Name NULL, index `SIZE_MAX`, no info, no module.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_fabric_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_construct(p: *mut pmix_fabric_t) {
    ffi_value!(PMIx_Fabric_construct, (), {
        if let Some(p) = crate::arg!(opt_zeroed p) {
            p.index = usize::MAX;
        }
    })
}
