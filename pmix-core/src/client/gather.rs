//! Allgather: a fence that also hands every participant the contribution of every other
//! participant, in one round trip through the server (our own extension of the protocol,
//! [`Req::Allgather`]). The CUDA communications object builds its allreduce on it.
//!
//! # Implementation notes
//! The contributions travel with the fence request and come back in the fence reply,
//! so no key is put, nothing stays in the server's store afterwards and no Get follows.
//! Between servers the contributions ride in the ordinary fence blob, so any host that
//! concatenates blobs carries them; the tag in [`crate::protocol::FENCE_TAG`] travels among the
//! fence's directives.

use super::{timeout_of, Callback, Client, Started};
use crate::error::{Error, Result};
use crate::protocol::{Contribution, ReplyData, Req};
use crate::value::{Info, ProcId};
use pmix_sys as sys;

impl Client {
    /// Gather one opaque contribution from every participant of `procs` (empty: our
    /// namespace), matched like a fence: on the participants and on the
    /// [`crate::protocol::FENCE_TAG`] among `info`. `cb` runs once on the progress thread with
    /// every contribution, sorted by process.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_A_MEMBER` if we are not a participant; `PMIX_ERR_UNREACH` if the
    /// server is gone (then `cb` is not called). The callback receives the fence's failure
    /// (`PMIX_ERR_PROC_TERM_WO_SYNC` when a participant died, `PMIX_ERR_TIMEOUT`,
    /// `PMIX_ERR_LOST_CONNECTION`, `PMIX_ERR_OUT_OF_RESOURCE` for a result too large for
    /// one frame).
    pub fn allgather_nb(
        &self,
        procs: Vec<ProcId>,
        info: &[Info],
        data: Vec<u8>,
        cb: Callback<Vec<Contribution>>,
    ) -> Result<Started> {
        let procs = self.fence_args(procs)?;
        if self.is_singleton() {
            let me = self.proc_id().clone();
            self.run_on_progress(move || cb(Ok(vec![Contribution { proc_: me, data }])))?;
            return Ok(Started::Pending);
        }
        let req = Req::Allgather {
            procs,
            timeout_ms: timeout_of(info)
                .map(|d| d.as_millis().min(u32::MAX as u128) as u32)
                .unwrap_or(0),
            info: info.to_vec(),
            data,
        };
        self.request(
            req,
            Box::new(move |status, reply| {
                cb(match (status, reply) {
                    (sys::PMIX_SUCCESS, ReplyData::Gathered(all)) => Ok(all),
                    (sys::PMIX_SUCCESS, _) => Err(Error::unpack(
                        "the server answered an allgather without contributions",
                    )),
                    (st, _) => Err(Error::new(st, "allgather failed")),
                })
            }),
        )?;
        Ok(Started::Pending)
    }
}
