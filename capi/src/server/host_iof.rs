//! The I/O-forwarding slots of a C host's module, `iof_pull` and `push_stdin`: each
//! lends the host malloc'd copies of its arguments until the host's completion callback
//! runs. A NULL slot is `PMIX_ERR_NOT_SUPPORTED` (OpenPMIx refuses the client's request
//! then).

use super::host::CHost;
use super::upcall::{self, start, unsupported, Lent};
use pmix_core::iof::Channels;
use pmix_core::server::{HostDone, HostReply};
use pmix_core::{Info, ProcId, Result};

impl CHost {
    /// `iof_pull` slot (with `PMIX_IOF_STOP` among the directives for a deregistration).
    pub fn iof_pull_slot(
        &self,
        procs: &[ProcId],
        channels: Channels,
        directives: &[Info],
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.iof_pull else {
            return unsupported("iof_pull");
        };
        let lent = Lent::new(None).procs(procs)?.info(directives)?;
        // SAFETY: the lent arrays live in `call` until op_cb or settle frees them.
        start("iof_pull", done, lent, |l, cbdata| unsafe {
            f(
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                channels,
                Some(upcall::op_cb),
                cbdata,
            )
        })
    }

    /// `push_stdin` slot (`bo` NULL when the pusher sent no data).
    pub fn push_stdin_slot(
        &self,
        source: &ProcId,
        targets: &[ProcId],
        directives: &[Info],
        data: Option<&[u8]>,
        done: HostDone<()>,
    ) -> Result<HostReply> {
        let Some(f) = self.module.push_stdin else {
            return unsupported("push_stdin");
        };
        let lent = Lent::new(Some(source))
            .procs(targets)?
            .info(directives)?
            .bo(data)?;
        // SAFETY: as for `iof_pull_slot`; the source and byte object live in `call` too.
        start("push_stdin", done, lent, |l, cbdata| unsafe {
            f(
                &l.proc_,
                l.procs,
                l.nprocs,
                l.info,
                l.ninfo,
                l.bo_ptr(),
                Some(upcall::op_cb),
                cbdata,
            )
        })
    }
}
