//! `PMIx_Compute_distances`, `PMIx_Compute_distances_nb`: computed here from hwloc (no
//! server round trip). No device of the asked types is an empty array with success.

use super::{fail, initialized, source_of, DEFAULT_DEVTYPES};
use crate::client::CbData;
use crate::conv;
use core::ffi::c_void;
use pmix_core::client::global;
use pmix_core::topology::{self as topo, Bitmap, DeviceDistance, Topology};
use pmix_core::Value;
use pmix_sys as sys;

/// What to measure: the device types and ids of the directives.
fn wanted(info: &[pmix_core::Info]) -> (u64, Vec<String>) {
    let mut types = 0;
    let mut ids = Vec::new();
    for i in info {
        match (i.key.as_str(), &i.value) {
            ("pmix.dev.type", Value::DevType(t)) => types |= t,
            ("pmix.dev.id", v) => ids.extend(v.as_str().map(str::to_owned)),
            _ => {}
        }
    }
    (if types == 0 { DEFAULT_DEVTYPES } else { types }, ids)
}

/// The distances of the caller's arguments.
///
/// # Safety
/// The pointers are NULL or what the API says.
unsafe fn compute(
    t: *mut sys::pmix_topology_t,
    c: *mut sys::pmix_cpuset_t,
    info: *const sys::pmix_info_t,
    ninfo: usize,
) -> Result<Vec<DeviceDistance>, sys::pmix_status_t> {
    // SAFETY: NULL or the caller's structs.
    let (Some(t), Some(c)) = (unsafe { t.as_ref() }, unsafe { c.as_ref() }) else {
        return Err(sys::PMIX_ERR_BAD_PARAM);
    };
    // SAFETY: the structs' sources are NULL or strings.
    let (ts, cs) = unsafe { (source_of(t.source)?, source_of(c.source)?) };
    if ts.is_none() || cs.is_none() {
        return Err(sys::PMIX_ERR_BAD_PARAM);
    }
    // SAFETY: a hwloc pmix_topology_t holds a loaded topology the caller keeps alive for
    // the call, and a hwloc cpuset a live bitmap (copied here).
    let (topo_ref, set) = unsafe { (Topology::borrow_raw(t.topology), Bitmap::dup_raw(c.bitmap)) };
    let (Some(topo_ref), Some(set)) = (topo_ref, set) else {
        return Err(sys::PMIX_ERR_BAD_PARAM);
    };
    // SAFETY: `ninfo` entries at `info` (or none), as the API says.
    let info = crate::arg!(infos info, ninfo).map_err(|e| e.status())?;
    let (types, ids) = wanted(&info);
    let host = pmix_core::sys::hostname();
    topo::distances(&topo_ref, &set, types, &ids, &host)
        .map_err(|e| fail("PMIx_Compute_distances", e))
}

/// A malloc'd `pmix_device_distance_t` array of `d` (NULL when empty).
fn to_c(d: &[DeviceDistance]) -> pmix_core::Result<*mut sys::pmix_device_distance_t> {
    if d.is_empty() {
        return Ok(core::ptr::null_mut());
    }
    let p = conv::alloc::calloc_array::<sys::pmix_device_distance_t>(d.len())?;
    for (i, x) in d.iter().enumerate() {
        // SAFETY: `p` has `d.len()` zeroed entries; a failed strdup leaves NULLs that
        // the free below handles.
        let e = unsafe { &mut *p.add(i) };
        e.type_ = x.devtype;
        e.mindist = x.mindist;
        e.maxdist = x.maxdist;
        match (conv::alloc::strdup(&x.uuid), conv::alloc::strdup(&x.osname)) {
            (Ok(u), Ok(o)) => (e.uuid, e.osname) = (u, o),
            (u, o) => {
                e.uuid = u.unwrap_or(core::ptr::null_mut());
                e.osname = o.unwrap_or(core::ptr::null_mut());
                // SAFETY: our array of `d.len()` entries, freed once.
                unsafe { conv::elem_array_free(p.cast(), d.len(), sys::PMIX_DEVICE_DIST) };
                return Err(conv::alloc::nomem());
            }
        }
    }
    Ok(p)
}

/// Device distances from `cpuset` on `topo`: one entry per device of the
/// `PMIX_DEVICE_TYPE`s asked (default: network, OpenFabrics, GPU, coprocessor), or of the
/// `PMIX_DEVICE_ID`s named. The array is malloc'd (`PMIx_Device_distance_free`).
///
/// # Returns
/// `PMIX_SUCCESS` (possibly with no entry), `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL,
/// no source, no topology or bitmap), `PMIX_ERR_NOT_SUPPORTED` (another source),
/// `PMIX_ERR_NOT_AVAILABLE` (only the whole machine covers the cpuset).
///
/// # Safety
/// `topo` and `cpuset` are NULL or point to valid structs (as [`PMIx_Load_topology`] and
/// [`PMIx_Get_cpuset`] fill them); `info` is NULL or an array of `ninfo` valid
/// `pmix_info_t`; `distances` and `ndist` are NULL or writable. The array written to
/// `*distances` is malloc'd and owned by the caller.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances(
    topo: *mut sys::pmix_topology_t,
    cpuset: *mut sys::pmix_cpuset_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    distances: *mut *mut sys::pmix_device_distance_t,
    ndist: *mut usize,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Compute_distances, {
        if !initialized() {
            return sys::PMIX_ERR_INIT;
        }
        if distances.is_null() || ndist.is_null() {
            return sys::PMIX_ERR_BAD_PARAM;
        }
        // SAFETY: both checked non-NULL; the caller's out-parameters.
        unsafe { (*distances, *ndist) = (core::ptr::null_mut(), 0) };
        // SAFETY: the caller's arguments, checked inside.
        let d = match unsafe { compute(topo, cpuset, info, ninfo) } {
            Ok(d) => d,
            Err(st) => return st,
        };
        match to_c(&d) {
            Ok(p) => {
                // SAFETY: as above.
                unsafe { (*distances, *ndist) = (p, d.len()) };
                sys::PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}

/// The array handed to a `_nb` callback, freed by its release function.
struct Handed(*mut sys::pmix_device_distance_t, usize);

unsafe extern "C" fn release_handed(cbdata: *mut c_void) {
    // SAFETY: `cbdata` is the Box<Handed> made in PMIx_Compute_distances_nb, released once
    // by the callback's owner.
    let h = unsafe { Box::from_raw(cbdata as *mut Handed) };
    if !h.0.is_null() {
        // SAFETY: our malloc'd array of `h.1` entries, freed once.
        unsafe { conv::elem_array_free(h.0.cast(), h.1, sys::PMIX_DEVICE_DIST) };
    }
}

/// [`PMIx_Compute_distances`] with the answer handed to `cbfunc` on the progress thread
/// (inline when there is none); the array stays valid until the callback calls the release
/// function it was given.
///
/// # Returns
/// `PMIX_SUCCESS` (`cbfunc` will be called), or an error of [`PMIx_Compute_distances`]
/// (`cbfunc` will not be called); `PMIX_ERR_BAD_PARAM` for a NULL `cbfunc`.
///
/// # Safety
/// As [`PMIx_Compute_distances`] for `topo`, `cpuset` and `info`, which are read before
/// this returns; `cbfunc` is NULL or a function that may be called on the progress thread
/// with `cbdata`, which must stay valid until then.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances_nb(
    topo: *mut sys::pmix_topology_t,
    cpuset: *mut sys::pmix_cpuset_t,
    info: *mut sys::pmix_info_t,
    ninfo: usize,
    cbfunc: sys::pmix_device_dist_cbfunc_t,
    cbdata: *mut c_void,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Compute_distances_nb, {
        if !initialized() {
            return sys::PMIX_ERR_INIT;
        }
        let Some(f) = cbfunc else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        // SAFETY: the caller's arguments, checked inside.
        let d = match unsafe { compute(topo, cpuset, info, ninfo) } {
            Ok(d) => d,
            Err(st) => return st,
        };
        let p = match to_c(&d) {
            Ok(p) => p,
            Err(e) => return e.status(),
        };
        let h = CbData::new(Box::into_raw(Box::new(Handed(p, d.len()))).cast());
        let (arr, n, cb) = (CbData::new(p.cast()), d.len(), CbData::new(cbdata));
        let call = move || {
            // SAFETY: the caller's callback with its cbdata, our array and its release
            // function (which frees it once).
            unsafe {
                f(
                    sys::PMIX_SUCCESS,
                    arr.get().cast(),
                    n,
                    cb.get(),
                    Some(release_handed),
                    h.get(),
                )
            }
        };
        match global::initialized_client() {
            Some(c) => match c.run_on_progress(call) {
                Ok(()) => {}
                Err(e) => return e.status(),
            },
            None => call(),
        }
        sys::PMIX_SUCCESS
    })
}
