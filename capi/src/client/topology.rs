//! Topology through hwloc (`pmix_common.h`'s topology and cpuset calls):
//! `PMIx_Load_topology`, `PMIx_Get_cpuset`, `PMIx_Parse_cpuset_string`,
//! `PMIx_Get_relative_locality`, `PMIx_Compute_distances[_nb]`, and the host helpers
//! `PMIx_server_generate_locality_string`, `_cpuset_string`, `_cpuset`.
//!
//! The engine part is `pmix_core::topology`. The topology handed out is the process's
//! shared one (from the host's `PMIX_HWLOC_XML_V2` when it registered one, else this
//! machine's): it is never destroyed, so `PMIx_Topology_destruct` of it only frees its
//! `source`. Cpuset bitmaps handed out are new hwloc bitmaps the caller owns (free them with
//! `hwloc_bitmap_free`). A source other than hwloc is `PMIX_ERR_NOT_SUPPORTED` (OpenPMIx's
//! internal "take next option").

use crate::conv;
use core::ffi::c_char;
use pmix_core::client::{global, GetOpts};
use pmix_core::server::global as server_global;
use pmix_core::topology::{self as topo, Bitmap, Topology};
use pmix_core::{Key, ProcId, Value};
use pmix_sys as sys;

/// The devices `PMIx_Compute_distances` measures when the caller names no type (OpenPMIx's
/// default: what a process communicates through).
const DEFAULT_DEVTYPES: u64 = sys::PMIX_DEVTYPE_NETWORK
    | sys::PMIX_DEVTYPE_OPENFABRICS
    | sys::PMIX_DEVTYPE_GPU
    | sys::PMIX_DEVTYPE_COPROC;

fn initialized() -> bool {
    global::initialized_client().is_some() || server_global::server().is_ok()
}

/// The host's topology XML for our namespace, if it registered one (local data only).
fn host_xml() -> Option<String> {
    let c = global::initialized_client()?;
    let me = c.proc_id();
    let wild = ProcId::new(me.nspace.clone(), sys::PMIX_RANK_WILDCARD);
    let key = Key::new("pmix.hwlocxml2").ok()?;
    let opts = GetOpts {
        optional: true,
        ..GetOpts::NONE
    };
    match c.get(Some(&wild), Some(&key), &opts) {
        Ok(Value::String(Some(s))) => String::from_utf8(s).ok(),
        _ => None,
    }
}

fn shared() -> pmix_core::Result<&'static Topology> {
    topo::shared(host_xml().as_deref())
}

fn fail(call: &str, e: pmix_core::Error) -> sys::pmix_status_t {
    log::debug!("{call}: {e}");
    e.status()
}

/// The source string of a struct (None when NULL), or the status to return when it is not
/// hwloc's.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn source_of(p: *const c_char) -> Result<Option<String>, sys::pmix_status_t> {
    // SAFETY: as the caller promises.
    match unsafe { conv::cstr_ref(p) } {
        None => Ok(None),
        Some(b) => {
            let s = String::from_utf8_lossy(b).into_owned();
            if topo::is_hwloc(&s) {
                Ok(Some(s))
            } else {
                log::debug!("topology: source {s:?} is not hwloc");
                Err(sys::PMIX_ERR_NOT_SUPPORTED)
            }
        }
    }
}

/// Load the topology: the shared one, with `source` set to `hwloc:<version>` unless the
/// caller stipulated one.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL), `PMIX_ERR_NOT_SUPPORTED`
/// (another source stipulated), `PMIX_ERROR` (hwloc failed).
///
/// # Safety
/// `t` is NULL or points to a writable `pmix_topology_t` (its `source` NULL or a
/// NUL-terminated string). On success `t->topology` is the process's shared hwloc topology:
/// the caller must not destroy it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_topology(t: *mut sys::pmix_topology_t) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Load_topology, {
        if !initialized() {
            return sys::PMIX_ERR_INIT;
        }
        // SAFETY: NULL or the caller's writable pmix_topology_t.
        let Some(t) = (unsafe { t.as_mut() }) else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        // SAFETY: the struct's source is NULL or a string.
        let given = match unsafe { source_of(t.source) } {
            Ok(s) => s.is_some(),
            Err(st) => return st,
        };
        let shared = match shared() {
            Ok(s) => s,
            Err(e) => return fail("PMIx_Load_topology", e),
        };
        if !given {
            match conv::alloc::strdup(&topo::source_version()) {
                Ok(s) => t.source = s,
                Err(e) => return e.status(),
            }
        }
        t.topology = shared.ptr();
        sys::PMIX_SUCCESS
    })
}

/// Fill `cpuset` with a new bitmap and `source` "hwloc" (unless set).
///
/// # Safety
/// `c` is the caller's writable pmix_cpuset_t.
unsafe fn fill_cpuset(c: &mut sys::pmix_cpuset_t, b: Bitmap) -> sys::pmix_status_t {
    if c.source.is_null() {
        match conv::alloc::strdup(topo::SOURCE) {
            Ok(s) => c.source = s,
            Err(e) => return e.status(),
        }
    }
    c.bitmap = b.into_raw();
    sys::PMIX_SUCCESS
}

/// The caller's binding: of the process (`PMIX_CPUBIND_PROCESS`) or of the calling thread
/// (`PMIX_CPUBIND_THREAD`).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL, unknown envelope),
/// `PMIX_ERR_NOT_SUPPORTED` (another source), `PMIX_ERR_NOT_FOUND` (hwloc cannot read it).
///
/// # Safety
/// `cpuset` is NULL or points to a writable `pmix_cpuset_t`. On success it holds a
/// new hwloc bitmap and a malloc'd `source` owned by the caller (`PMIx_Cpuset_destruct`
/// frees the source; the bitmap is freed with `hwloc_bitmap_free`).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_cpuset(
    cpuset: *mut sys::pmix_cpuset_t,
    r#ref: sys::pmix_bind_envelope_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Get_cpuset, {
        if !initialized() {
            return sys::PMIX_ERR_INIT;
        }
        // SAFETY: NULL or the caller's writable pmix_cpuset_t.
        let Some(c) = (unsafe { cpuset.as_mut() }) else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        // SAFETY: the struct's source is NULL or a string.
        if let Err(st) = unsafe { source_of(c.source) } {
            return st;
        }
        let thread = match r#ref {
            sys::PMIX_CPUBIND_PROCESS => false,
            sys::PMIX_CPUBIND_THREAD => true,
            other => {
                log::debug!("PMIx_Get_cpuset: unknown bind envelope {other}");
                return sys::PMIX_ERR_BAD_PARAM;
            }
        };
        match shared().and_then(|t| t.cpubind(thread)) {
            // SAFETY: `c` is the caller's struct.
            Ok(b) => unsafe { fill_cpuset(c, b) },
            Err(e) => fail("PMIx_Get_cpuset", e),
        }
    })
}

/// Parse `<source>:<list>` into a new cpuset.
///
/// # Safety
/// `s` is NULL or a string; `cpuset` NULL or writable.
unsafe fn parse_into(s: *const c_char, cpuset: *mut sys::pmix_cpuset_t) -> sys::pmix_status_t {
    // SAFETY: as the caller promises.
    let (Some(s), Some(c)) = (unsafe { conv::cstr_ref(s) }, unsafe { cpuset.as_mut() }) else {
        return sys::PMIX_ERR_BAD_PARAM;
    };
    match topo::parse_cpuset_string(&String::from_utf8_lossy(s)) {
        Ok(b) => {
            c.source = core::ptr::null_mut();
            // SAFETY: the caller's struct.
            unsafe { fill_cpuset(c, b) }
        }
        Err(e) => fail("PMIx_Parse_cpuset_string", e),
    }
}

/// Parse a cpuset string (`hwloc:0-3`) into `cpuset` (a new bitmap, source "hwloc").
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL, no source, bad list),
/// `PMIX_ERR_NOT_SUPPORTED` (another source).
///
/// # Safety
/// `cpuset_string` is NULL or a NUL-terminated string; `cpuset` is NULL or points to a
/// writable `pmix_cpuset_t`, filled as by [`PMIx_Get_cpuset`] (the caller owns the result).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Parse_cpuset_string(
    cpuset_string: *const c_char,
    cpuset: *mut sys::pmix_cpuset_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Parse_cpuset_string, {
        if !initialized() {
            return sys::PMIX_ERR_INIT;
        }
        // SAFETY: the caller's arguments, checked for NULL inside.
        unsafe { parse_into(cpuset_string, cpuset) }
    })
}

/// The locality two procs share, from their `PMIX_LOCALITY_STRING`s.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_INIT`, `PMIX_ERR_BAD_PARAM` (NULL, bad token),
/// `PMIX_ERR_NOT_SUPPORTED` (not hwloc locality strings).
///
/// # Safety
/// `locality1` and `locality2` are NULL or NUL-terminated strings; `locality` is NULL
/// or points to a writable `pmix_locality_t`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_relative_locality(
    locality1: *const c_char,
    locality2: *const c_char,
    locality: *mut sys::pmix_locality_t,
) -> sys::pmix_status_t {
    crate::ffi_status!(PMIx_Get_relative_locality, {
        if !initialized() {
            return sys::PMIX_ERR_INIT;
        }
        // SAFETY: NULL or strings / a writable pmix_locality_t, as the API says.
        let (a, b, out) = unsafe {
            (
                conv::cstr_ref(locality1),
                conv::cstr_ref(locality2),
                locality.as_mut(),
            )
        };
        let (Some(a), Some(b), Some(out)) = (a, b, out) else {
            return sys::PMIX_ERR_BAD_PARAM;
        };
        let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
        match topo::relative_locality(&a, &b) {
            Ok(l) => {
                *out = l;
                sys::PMIX_SUCCESS
            }
            Err(e) => fail("PMIx_Get_relative_locality", e),
        }
    })
}

mod distances;
mod server;

/// `PMIx_Data_print`'s text of a hwloc topology (every object, from the machine down) or
/// cpuset (hwloc's list format); None for another source or a NULL object.
pub(crate) fn render_opaque(v: &Value, o: &pmix_core::value::Opaque) -> Option<String> {
    let src = o.source.as_deref().map(String::from_utf8_lossy);
    if o.ptr == 0 || !src.is_some_and(|s| topo::is_hwloc(&s)) {
        return None;
    }
    let p = o.ptr as *mut core::ffi::c_void;
    match v {
        // SAFETY: a hwloc pmix_topology_t the caller hands to print holds a loaded
        // topology it keeps alive for the call.
        Value::Topo(_) => unsafe { Topology::borrow_raw(p) }.map(|t| topo::render(&t)),
        // SAFETY: a hwloc pmix_cpuset_t holds a live bitmap (copied here).
        Value::Cpuset(_) => unsafe { Bitmap::dup_raw(p) }.map(|b| b.to_list()),
        _ => None,
    }
}
