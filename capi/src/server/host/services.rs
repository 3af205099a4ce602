//! The slots of the services a server asks its host for: `query`, `log`, `job_control`,
//! and `notify_event` (an event whose range reaches beyond this server).

use super::lend::{info_cb, no_slot, op_cb, start, Lent};
use super::Module;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{Info, ProcId, Query, Result};

/// `query` slot.
pub(super) fn query(
    m: &Module,
    p: &ProcId,
    queries: &[Query],
    done: HostDone<Vec<Info>>,
) -> Result<HostReply> {
    let Some(f) = m.query else {
        return no_slot("query");
    };
    let lent = Lent::new(Some(p)).queries(queries)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("query", done, lent, |l, cbdata| unsafe {
        f(&mut l.proc_, l.queries, l.nqueries, Some(info_cb), cbdata)
    })
}

/// `log` slot (void in C: the host always calls back).
pub(super) fn log(
    m: &Module,
    p: &ProcId,
    data: &[Info],
    directives: &[Info],
    done: HostDone<()>,
) -> Result<HostReply> {
    let Some(f) = m.log else {
        return no_slot("log");
    };
    let lent = Lent::new(Some(p)).info(data)?.info2(directives)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("log", done, lent, |l, cbdata| {
        // SAFETY: see above; the slot returns nothing and always calls back.
        unsafe {
            f(
                &l.proc_,
                l.info,
                l.ninfo,
                l.info2,
                l.ninfo2,
                Some(op_cb),
                cbdata,
            )
        };
        pmix_sys::PMIX_SUCCESS
    })
}

/// `job_control` slot.
pub(super) fn job_control(
    m: &Module,
    p: &ProcId,
    targets: &[ProcId],
    directives: &[Info],
    done: HostDone<Vec<Info>>,
) -> Result<HostReply> {
    let Some(f) = m.job_control else {
        return no_slot("job_control");
    };
    let lent = Lent::new(Some(p)).procs(targets)?.info(directives)?;
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    start("job_control", done, lent, |l, cbdata| unsafe {
        f(
            &l.proc_,
            l.procs,
            l.nprocs,
            l.info,
            l.ninfo,
            Some(info_cb),
            cbdata,
        )
    })
}

/// `notify_event` slot: an event from a client whose range reaches beyond this
/// server (fire and forget: the host's completion only releases what was lent).
pub(super) fn notify_event(m: &Module, status: i32, source: &ProcId, range: u8, info: &[Info]) {
    let Some(f) = m.notify_event else {
        return;
    };
    let lent = match Lent::new(Some(source)).info(info) {
        Ok(l) => l,
        Err(e) => {
            log::warn!("cannot hand event {} to the host: {}", status, e);
            return;
        }
    };
    let done: HostDone<()> = Box::new(|_| {});
    // SAFETY: `f` is the host's slot with this C signature; every pointer passed is NULL
    // or a block of `l`, which lives in the call box until the completion callback (or
    // `settle`, when the host will not call back) frees it, and `cbdata` is that box.
    let r = start("notify_event", done, lent, |l, cbdata| unsafe {
        f(
            status,
            &l.proc_,
            range,
            l.info,
            l.ninfo,
            Some(op_cb),
            cbdata,
        )
    });
    if let Err(e) = r {
        log::debug!("host notify_event: {}", e);
    }
}
