//! The server's part in same-node fences in shared memory ([`crate::shm`]): it makes a
//! namespace's fence area when the first client of a namespace whose ranks all run here
//! is welcomed, hands it to each client with its Welcome, sends the area's waiters to
//! the socket path while a fence over the whole namespace is pending there, and turns
//! the area off (failing its waiters) when a participant ends.

use super::*;
use crate::shm::FenceArea;
use std::os::fd::OwnedFd;
use std::sync::Arc;

/// A namespace's fence area and the descriptor handed to its clients.
pub(super) struct ShmArea {
    area: FenceArea,
    fd: Arc<OwnedFd>,
}

impl ServerState {
    /// Offer same-node fences in shared memory to the clients of namespaces whose ranks
    /// all run on this node (`PMIX_RS_SHM_FENCE`; off in a new state).
    pub fn set_shm_fences(&mut self, on: bool) {
        self.shm = on.then(HashMap::default);
    }

    /// The fence area to hand a client of `ns` being welcomed, made on first need; `None`
    /// when fences of `ns` cannot complete here alone (ranks elsewhere, a job of one, a
    /// participant ended) or memory files are not available.
    pub(super) fn shm_area_fd(&mut self, ns: &Nspace) -> Option<Arc<OwnedFd>> {
        let areas = self.shm.as_ref()?;
        if let Some(a) = areas.get(ns) {
            return (!a.area.disabled()).then(|| a.fd.clone());
        }
        let st = self.nspaces.get(ns)?;
        let nlocal = if st.nlocal > 0 {
            st.nlocal as usize
        } else {
            st.local.len()
        };
        let size = st.job.job_size()? as usize;
        if size != nlocal || size < 2 || !st.lost.is_empty() || !st.dereg.is_empty() {
            return None;
        }
        match FenceArea::create(size as u32) {
            Ok((area, fd)) => {
                let fd = Arc::new(fd);
                let a = ShmArea {
                    area,
                    fd: fd.clone(),
                };
                self.shm.as_mut()?.insert(ns.clone(), a);
                Some(fd)
            }
            Err(e) => {
                log::warn!(
                    "server: no shared-memory fence area ({}); fences take the socket path",
                    e
                );
                self.shm = None;
                None
            }
        }
    }

    /// Keep the area of a fence over a whole namespace (`procs`) in step with the socket
    /// path: while such a fence is pending there, the area's waiters and new arrivals
    /// go there too (so participants never wait on two paths for one fence). Called
    /// whenever a tracker is added or removed.
    pub(super) fn shm_sync(&self, procs: &[ProcId]) {
        let Some(areas) = self.shm.as_ref() else {
            return;
        };
        let [p] = procs else {
            return;
        };
        if p.rank != sys::PMIX_RANK_WILDCARD {
            return;
        }
        if let Some(a) = areas.get(&p.nspace) {
            let pending = self.fences.keys().any(|k| k.procs == procs);
            a.area.redirect(pending);
        }
    }

    /// `p` will never arrive: its namespace's area is not used again, and whoever waits
    /// in it gets `PMIX_ERR_PROC_TERM_WO_SYNC` (later fences go to the socket path,
    /// which answers as it does for any fence including an ended process).
    pub(super) fn shm_participant_ended(&self, p: &ProcId) {
        if let Some(a) = self.shm.as_ref().and_then(|m| m.get(&p.nspace)) {
            a.area.disable(sys::PMIX_ERR_PROC_TERM_WO_SYNC);
        }
    }
}
