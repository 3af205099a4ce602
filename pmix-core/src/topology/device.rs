//! OS devices and their distances, and the string helpers of locality strings.

use super::{sys, Bitmap, DeviceDistance, Obj, Topology};
use crate::{Error, Result};
use pmix_sys as psys;

/// The locality codes of a locality string, in the order they are emitted.
const KINDS: [&str; 7] = ["NM", "SK", "L3", "L2", "L1", "CR", "HT"];

/// The list format of sorted, distinct indices: `0-2,5`.
pub fn list_string(idx: &[u32]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && idx[j + 1] == idx[j] + 1 {
            j += 1;
        }
        out.push(if j > i {
            format!("{}-{}", idx[i], idx[j])
        } else {
            idx[i].to_string()
        });
        i = j + 1;
    }
    out.join(",")
}

/// The indices of a list (`0-2,5`); at most 1<<20 of them.
pub(super) fn parse_list(s: &str) -> Result<Vec<u32>> {
    let bad = || Error::bad_param(format!("{s:?} is not an index list"));
    let mut out = Vec::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.parse::<u32>(), b.parse::<u32>()),
            None => (part.parse::<u32>(), part.parse::<u32>()),
        };
        let (lo, hi) = (lo.map_err(|_| bad())?, hi.map_err(|_| bad())?);
        if hi < lo || out.len() + (hi - lo) as usize > 1 << 20 {
            return Err(bad());
        }
        out.extend(lo..=hi);
    }
    Ok(out)
}

/// The tokens of a locality string of ours (the `hwloc:` prefix removed if present).
pub(super) fn payload(s: &str) -> Result<&str> {
    let b = s.as_bytes();
    if b.len() >= 6 && b[..6].eq_ignore_ascii_case(b"hwloc:") {
        return Ok(&s[6..]);
    }
    if b.len() >= 2
        && KINDS
            .iter()
            .any(|k| b[..2].eq_ignore_ascii_case(k.as_bytes()))
    {
        return Ok(s);
    }
    Err(Error::new(
        psys::PMIX_ERR_NOT_SUPPORTED,
        format!("{s:?} is not an hwloc locality string"),
    ))
}

/// The `PMIX_LOCALITY_SHARE_*` bit of a locality code.
pub(super) fn share_bit(kind: &str) -> Result<u16> {
    let bit = match kind {
        "NM" => psys::PMIX_LOCALITY_SHARE_NUMA,
        "SK" => psys::PMIX_LOCALITY_SHARE_PACKAGE,
        "L3" => psys::PMIX_LOCALITY_SHARE_L3CACHE,
        "L2" => psys::PMIX_LOCALITY_SHARE_L2CACHE,
        "L1" => psys::PMIX_LOCALITY_SHARE_L1CACHE,
        "CR" => psys::PMIX_LOCALITY_SHARE_CORE,
        "HT" => psys::PMIX_LOCALITY_SHARE_HWTHREAD,
        _ => return Err(Error::bad_param(format!("unknown locality code {kind:?}"))),
    };
    Ok(bit)
}

/// The PMIx device type and uuid of an OS device (OpenPMIx's forms); None for a kind
/// PMIx has no type for, or a network device without a usable address.
fn identify(o: &Obj<'_>, name: &str, host: &str) -> Option<(u64, String)> {
    let t = o.osdev_type();
    let ty = match t {
        sys::OSDEV_BLOCK => psys::PMIX_DEVTYPE_BLOCK,
        sys::OSDEV_GPU => psys::PMIX_DEVTYPE_GPU,
        sys::OSDEV_NETWORK => psys::PMIX_DEVTYPE_NETWORK,
        sys::OSDEV_OPENFABRICS => psys::PMIX_DEVTYPE_OPENFABRICS,
        sys::OSDEV_DMA => psys::PMIX_DEVTYPE_DMA,
        sys::OSDEV_COPROC => psys::PMIX_DEVTYPE_COPROC,
        _ => return None,
    };
    let uuid = match t {
        sys::OSDEV_NETWORK => {
            let addr = o.info("Address")?;
            match addr.matches(':').count() {
                5 => format!("ipv4://{addr}"),
                19 => format!("ipv6://{addr}"),
                _ => return None,
            }
        }
        sys::OSDEV_OPENFABRICS => {
            format!("fab://{}::{}", o.info("NodeGUID")?, o.info("SysImageGUID")?)
        }
        sys::OSDEV_GPU | sys::OSDEV_COPROC => format!("gpu://{host}::{name}"),
        sys::OSDEV_BLOCK => format!("blk://{host}::{name}"),
        _ => format!("dma://{host}::{name}"),
    };
    Some((ty, uuid))
}

/// The first ancestor of `o` that has a cpuset (a normal object), if any.
fn locality_of<'t>(o: &Obj<'t>) -> Option<Obj<'t>> {
    let mut p = o.parent();
    while let Some(q) = p {
        if q.has_cpuset() {
            return Some(q);
        }
        p = q.parent();
    }
    None
}

/// The deepest common ancestor of two normal objects.
fn common_ancestor<'t>(a: Obj<'t>, b: Obj<'t>) -> Option<Obj<'t>> {
    let (mut a, mut b) = (Some(a), Some(b));
    while let (Some(x), Some(y)) = (a, b) {
        if x == y {
            return Some(x);
        }
        let (dx, dy) = (x.depth(), y.depth());
        if dx >= dy {
            a = x.parent();
        }
        if dy >= dx {
            b = y.parent();
        }
    }
    None
}

/// The distance entry of OS device `o` from `set`.
fn device(t: &Topology, o: &Obj<'_>, set: &Bitmap, host: &str) -> Option<DeviceDistance> {
    let osname = o.name()?;
    let (devtype, uuid) = identify(o, &osname, host)?;
    let mut d = DeviceDistance {
        uuid,
        osname,
        devtype,
        mindist: u16::MAX,
        maxdist: u16::MAX,
    };
    let Some(tgt) = locality_of(o) else {
        return Some(d);
    };
    let depth = t.depth();
    let pudepth = t.type_depth(sys::OBJ_PU);
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    for w in 0..t.width(pudepth) {
        let Some(pu) = t.obj(pudepth, w).filter(|pu| pu.intersects(set)) else {
            continue;
        };
        let Some(anc) = common_ancestor(pu, tgt) else {
            continue;
        };
        // Sharing only the machine sorts after any nearer ancestor (OpenPMIx's measure).
        let dp = if anc.depth() == 0 {
            pu.depth() + depth
        } else {
            depth - anc.depth()
        };
        let dp = u32::try_from(dp).unwrap_or(0);
        lo = lo.min(dp);
        hi = hi.max(dp);
    }
    if lo != u32::MAX {
        d.mindist = u16::try_from(lo).unwrap_or(u16::MAX);
        d.maxdist = u16::try_from(hi).unwrap_or(u16::MAX);
    }
    Some(d)
}

/// Device distances from `set` on `t` (`PMIx_Compute_distances`): the OS devices of the
/// `PMIX_DEVTYPE_*` bits in `types`, filtered to `ids` (os names or uuids) when given.
/// An empty list is a success (no such device known to hwloc).
///
/// # Errors
/// `PMIX_ERR_NOT_AVAILABLE` when only the whole machine covers `set`.
pub fn distances(
    t: &Topology,
    set: &Bitmap,
    types: u64,
    ids: &[String],
    host: &str,
) -> Result<Vec<DeviceDistance>> {
    let covered =
        (1..t.depth()).any(|d| (0..t.width(d)).any(|w| t.obj(d, w).is_some_and(|o| o.covers(set))));
    if !covered {
        return Err(Error::new(
            psys::PMIX_ERR_NOT_AVAILABLE,
            "only the whole machine covers the cpuset",
        ));
    }
    let named = |d: &DeviceDistance| {
        ids.is_empty()
            || ids
                .iter()
                .any(|i| i.eq_ignore_ascii_case(&d.osname) || i.eq_ignore_ascii_case(&d.uuid))
    };
    Ok((0..t.width(sys::DEPTH_OS_DEVICE))
        .filter_map(|w| t.obj(sys::DEPTH_OS_DEVICE, w))
        .filter_map(|o| device(t, &o, set, host))
        .filter(|d| d.devtype & types != 0 && named(d))
        .collect())
}
