//! The slots that build structures across servers: `group` (construct/destruct) and
//! `fabric` (register/update).

use super::lend::{info_cb, no_slot, start, Lent};
use super::Module;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{Info, ProcId, Result};
use pmix_sys as sys;

/// `group` slot.
pub(super) fn group(
    m: &Module,
    construct: bool,
    grp: &str,
    procs: &[ProcId],
    info: &[Info],
    done: HostDone<Vec<Info>>,
) -> Result<HostReply> {
    let Some(f) = m.group else {
        return no_slot("group");
    };
    let op = if construct {
        sys::PMIX_GROUP_CONSTRUCT
    } else {
        sys::PMIX_GROUP_DESTRUCT
    };
    let lent = Lent::new(None).name(Some(grp))?.procs(procs)?.info(info)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("group", done, lent, |l, cbdata| unsafe {
        f(
            op,
            l.name,
            l.procs,
            l.nprocs,
            l.info,
            l.ninfo,
            Some(info_cb),
            cbdata,
        )
    })
}

/// `fabric` slot.
pub(super) fn fabric(
    m: &Module,
    p: &ProcId,
    op: u8,
    info: &[Info],
    done: HostDone<Vec<Info>>,
) -> Result<HostReply> {
    let Some(f) = m.fabric else {
        return no_slot("fabric");
    };
    let lent = Lent::new(Some(p)).info(info)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("fabric", done, lent, |l, cbdata| unsafe {
        f(
            &l.proc_,
            sys::pmix_fabric_operation_t::from(op),
            l.info,
            l.ninfo,
            Some(info_cb),
            cbdata,
        )
    })
}
