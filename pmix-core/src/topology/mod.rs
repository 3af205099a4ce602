//! Topology through hwloc: the machine's topology, cpusets, locality strings and device
//! distances, as OpenPMIx's hwloc support gives them (`PMIx_Load_topology`,
//! `PMIx_Get_cpuset`, `PMIx_Get_relative_locality`, `PMIx_Compute_distances`, and the
//! host's `PMIX_LOCALITY_STRING` / `PMIX_CPUSET`).
//!
//! The FFI is in [`sys`] (the system's libhwloc 2.x; docs/DESIGN.md, "Dependencies",
//! says why not a binding crate). A process has one shared topology ([`shared`]): loaded
//! once, from the host's XML when it gave one (`PMIX_HWLOC_XML_V2`), else from this
//! machine; it lives until the process exits (the pointer is handed to C callers, who
//! may keep it).
//!
//! Formats (OpenPMIx's): a cpuset string is `hwloc:` and hwloc's list format
//! (`hwloc:0-3,8`); a locality string lists, for each level of interest, the logical
//! indices of the objects the cpuset touches: `SK0:L30:L20-1:L10-1:CR0-1:HT0-1`
//! (`NM` NUMA, `SK` package, `L3`/`L2`/`L1` caches, `CR` core, `HT` hardware thread).

mod device;
pub mod sys;
pub use device::list_string;

pub use sys::{Bitmap, Obj, Topology};

use crate::{Error, Result};
use pmix_sys as psys;
use std::sync::Mutex;

/// One device's distance from a cpuset (`pmix_device_distance_t`'s fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceDistance {
    /// `uuid`: `ipv4://<MAC>`, `fab://<node guid>::<sysimage guid>`, `gpu://<host>::<name>`, ...
    pub uuid: String,
    /// `osname`: the OS's name of the device (`eth0`, `mlx5_0`, `cuda0`).
    pub osname: String,
    /// `type`: one `PMIX_DEVTYPE_*` bit.
    pub devtype: u64,
    /// `mindist`: smallest distance over the cpuset's PUs (`u16::MAX`: unknown).
    pub mindist: u16,
    /// `maxdist`: largest distance over the cpuset's PUs (`u16::MAX`: unknown).
    pub maxdist: u16,
}

/// The cpuset-string and topology source this module claims: `hwloc`.
pub const SOURCE: &str = "hwloc";

/// The source reported with a loaded topology: `hwloc:<major>.<minor>.<revision>` of the
/// hwloc API the library was built against.
pub fn source_version() -> String {
    let v = sys::api_version();
    format!("hwloc:{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff)
}

/// True when `source` names hwloc (OpenPMIx compares the first five letters, any case).
pub fn is_hwloc(source: &str) -> bool {
    source.len() >= 5 && source.as_bytes()[..5].eq_ignore_ascii_case(SOURCE.as_bytes())
}

/// The cpuset string of a bitmap (`hwloc:<list>`, `PMIX_CPUSET`'s format).
pub fn cpuset_string(b: &Bitmap) -> String {
    format!("{SOURCE}:{}", b.to_list())
}

/// How many processing units (hardware threads) `t` has.
pub fn pu_count(t: &Topology) -> u32 {
    let d = t.type_depth(sys::OBJ_PU);
    if d < 0 {
        0
    } else {
        t.width(d)
    }
}

/// The logical indices of the objects at `depth` whose cpusets meet `set`.
fn touched(t: &Topology, depth: i32, set: &Bitmap) -> Vec<u32> {
    (0..t.width(depth))
        .filter(|&w| t.obj(depth, w).is_some_and(|o| o.intersects(set)))
        .collect()
}

/// The locality string of `set` on `t` (`PMIx_server_generate_locality_string`); None
/// when the set is full (an unbound process has no locality, as in OpenPMIx).
pub fn locality_string(t: &Topology, set: &Bitmap) -> Option<String> {
    if set.is_full() {
        return None;
    }
    let mut parts = Vec::new();
    for d in 1..t.depth() {
        let prefix = match t.depth_type(d) {
            sys::OBJ_NUMANODE => "NM",
            sys::OBJ_PACKAGE => "SK",
            sys::OBJ_L3CACHE => "L3",
            sys::OBJ_L2CACHE => "L2",
            sys::OBJ_L1CACHE => "L1",
            sys::OBJ_CORE => "CR",
            sys::OBJ_PU => "HT",
            _ => continue,
        };
        let idx = touched(t, d, set);
        if !idx.is_empty() {
            parts.push(format!("{prefix}{}", list_string(&idx)));
        }
    }
    let numa = touched(t, sys::DEPTH_NUMANODE, set);
    if !numa.is_empty() {
        parts.push(format!("NM{}", list_string(&numa)));
    }
    (!parts.is_empty()).then(|| parts.join(":"))
}

/// Parse a cpuset string (`PMIx_Parse_cpuset_string`): `<source>:<list>`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (no `:`, or a bad list), `PMIX_ERR_NOT_SUPPORTED` (another
/// source than hwloc).
pub fn parse_cpuset_string(s: &str) -> Result<Bitmap> {
    let (src, list) = s
        .split_once(':')
        .ok_or_else(|| Error::bad_param(format!("cpuset string {s:?} has no source")))?;
    if !is_hwloc(src) {
        return Err(Error::new(
            psys::PMIX_ERR_NOT_SUPPORTED,
            format!("cpuset source {src:?} is not hwloc"),
        ));
    }
    Bitmap::parse_list(list)
}

static SHARED: Mutex<Option<&'static Topology>> = Mutex::new(None);

/// The process's topology: loaded on first use from `xml` (the host's
/// `PMIX_HWLOC_XML_V2`) when given and valid, else discovered; kept for the process.
///
/// # Errors
/// `PMIX_ERROR` when hwloc can neither load the XML nor discover this machine.
pub fn shared(xml: Option<&str>) -> Result<&'static Topology> {
    let mut g = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(t) = *g {
        return Ok(t);
    }
    let t = match xml.map(Topology::from_xml) {
        Some(Ok(t)) => t,
        Some(Err(e)) => {
            log::warn!("topology: the host's XML is unusable ({e}); discovering this machine");
            Topology::discover()?
        }
        None => Topology::discover()?,
    };
    let t: &'static Topology = Box::leak(Box::new(t));
    *g = Some(t);
    Ok(t)
}

/// True when `t` is the process's shared topology (which is never destroyed).
pub fn is_shared(t: sys::RawTopo) -> bool {
    let g = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    g.is_some_and(|s| s.ptr() == t)
}

/// The `PMIX_LOCALITY_SHARE_*` bits two locality strings share
/// (`PMIx_Get_relative_locality`); `PMIX_LOCALITY_SHARE_NODE` at least. Either string may
/// carry an `hwloc:` prefix.
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` when a string is not one of ours; `PMIX_ERR_BAD_PARAM` for
/// a token with a bad list.
pub fn relative_locality(a: &str, b: &str) -> Result<u16> {
    let (a, b) = (device::payload(a)?, device::payload(b)?);
    let mut loc = psys::PMIX_LOCALITY_SHARE_NODE;
    for ta in a
        .split(':')
        .filter(|t| t.len() >= 2 && t.is_char_boundary(2))
    {
        let (kind, la) = ta.split_at(2);
        let Some(tb) = b.split(':').find(|t| t.len() >= 2 && t.starts_with(kind)) else {
            continue;
        };
        let (sa, sb) = (device::parse_list(la)?, device::parse_list(&tb[2..])?);
        if sa.iter().any(|x| sb.contains(x)) {
            loc |= device::share_bit(kind)?;
        }
    }
    Ok(loc)
}

pub use device::distances;

/// A text rendering of a topology (`PMIx_Data_print` of a `PMIX_TOPO`): every object
/// level by level, from the machine down: its type, child count, name and cpuset.
pub fn render(t: &Topology) -> String {
    let mut out = String::new();
    for d in 0..t.depth() {
        let pad = "\t".repeat(usize::try_from(d).unwrap_or(0));
        for o in (0..t.width(d)).filter_map(|w| t.obj(d, w)) {
            out.push_str(&format!(
                "{pad}Type: {} Number of child objects: {}\n{pad}\tName={}\n",
                o.type_name(),
                o.arity(),
                o.name().as_deref().unwrap_or("NULL")
            ));
            if let Some(c) = o.cpuset_hex() {
                out.push_str(&format!("{pad}\tCpuset:  {c}\n"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
