//! Process sets defined by the host (`PMIx_server_define_process_set`,
//! `PMIx_server_delete_process_set`). Clients hear of each change through the
//! `PMIX_PROCESS_SET_DEFINE` / `PMIX_PROCESS_SET_DELETE` events and see the sets in
//! `PMIx_Query_info` (`PMIX_QUERY_PSET_NAMES`, …) and in a Get of `PMIX_PSET_NAMES`.

use super::Server;
use crate::error::Result;
use crate::value::ProcId;

impl Server {
    /// Define (or redefine) process set `name` with `members`.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn define_process_set(&self, name: &str, members: Vec<ProcId>) -> Result<()> {
        let n = name.to_string();
        self.post(move |sh, ctx| sh.step(ctx, |s, out| s.define_pset(&n, members, out)))
    }

    /// Remove process set `name` (nothing happens if it does not exist).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn delete_process_set(&self, name: &str) -> Result<()> {
        let n = name.to_string();
        self.post(move |sh, ctx| sh.step(ctx, |s, out| s.delete_pset(&n, out)))
    }
}
