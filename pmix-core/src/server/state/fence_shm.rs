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

    /// The debug dump's lines for the fences pending in shared memory.
    pub(super) fn dump_shm(&self, out: &mut String) {
        use std::fmt::Write as _;
        let Some(areas) = self.shm.as_ref() else {
            return;
        };
        let mut pending: Vec<_> = areas
            .iter()
            .filter_map(|(ns, a)| Some((ns, a.area.participants(), a.area.pending()?)))
            .collect();
        pending.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        for (ns, n, (g, arrived, missing)) in pending {
            let missing: Vec<String> = missing.iter().map(|r| format!("{}:{}", ns, r)).collect();
            let _ = writeln!(
                out,
                "    fence over [{}:*] in shared memory (generation {}): {} of {} arrived",
                ns, g, arrived, n
            );
            let _ = writeln!(out, "      missing: {}", missing.join(", "));
        }
    }

    /// `ns` was deregistered: its area (mapping and descriptor) goes; clients keep their
    /// own mappings until they unmap them.
    pub(super) fn shm_forget(&mut self, ns: &Nspace) {
        if let Some(m) = self.shm.as_mut() {
            m.remove(ns);
        }
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
        match FenceArea::create(size as u32, crate::shm::collect_bytes()) {
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

    /// True while `p` has counted a commit in its fence area that has not reached us
    /// yet: a Get of `p`'s data waits for it (a fence in the area does not wait for
    /// commits, so a peer past it may ask before `p`'s commit is read here).
    pub(super) fn shm_commit_in_flight(&self, p: &ProcId) -> bool {
        self.shm
            .as_ref()
            .and_then(|m| m.get(&p.nspace))
            .is_some_and(|a| !a.area.commits_stored(p.rank))
    }

    /// A commit of `p` is being stored (see [`crate::shm`]).
    pub(super) fn shm_commit_stored(&self, p: &ProcId) {
        if let Some(a) = self.shm.as_ref().and_then(|m| m.get(&p.nspace)) {
            a.area.commit_stored(p.rank);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shm::{Arrived, Outcome};

    fn p(r: Rank) -> ProcId {
        ProcId::new(Nspace::new("shmjob").unwrap(), r)
    }

    /// A server with `size` ranks, `local` of them here, fence areas on; the Welcomes'
    /// fence-area descriptors (one per client that got one).
    fn setup(size: u32, local: u32) -> (ServerState, Vec<Arc<OwnedFd>>) {
        let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
        s.set_shm_fences(true);
        let peers: Vec<String> = (0..local).map(|r| r.to_string()).collect();
        s.register_nspace(
            &p(0).nspace,
            local,
            vec![
                Info::new(keys::JOB_SIZE, Value::Uint32(size)).unwrap(),
                Info::new(keys::LOCAL_PEERS, Value::string(&peers.join(","))).unwrap(),
            ],
        );
        let mut fds = Vec::new();
        for r in 0..local {
            for a in super::super::connect_test_client(&mut s, &p(r), r as ConnId + 1, 0) {
                if let Action::SendFds(_, body, f) = a {
                    let i = protocol::welcome_fence_area(&body).expect("fence-area index");
                    fds.push(f[i as usize].clone());
                }
            }
        }
        (s, fds)
    }

    fn fence_req(s: &mut ServerState, conn: ConnId, timeout_ms: u32) -> Vec<Action> {
        let body = protocol::encode(&protocol::Request {
            tag: 7,
            req: Req::Fence {
                procs: vec![ProcId::new(p(0).nspace, sys::PMIX_RANK_WILDCARD)],
                collect: false,
                timeout_ms,
                info: Vec::new(),
            },
        });
        let mut out = Vec::new();
        s.request(conn, &body, &mut out).unwrap();
        out
    }

    #[test]
    fn local_jobs_get_an_area_and_a_socket_fence_redirects_its_waiters() {
        let (mut s, fds) = setup(3, 3);
        assert_eq!(
            fds.len(),
            3,
            "every client of an all-local job gets the area"
        );
        let a = FenceArea::attach(&*fds[0], 3).unwrap();
        let b = FenceArea::attach(&*fds[1], 3).unwrap();
        let Arrived::Waiting(g) = a.arrive() else {
            panic!("first of three completed")
        };
        // Rank 2 fences on the socket: rank 0 is sent there, rank 1 goes there at once.
        fence_req(&mut s, 3, 0);
        assert_eq!(a.poll(g), Some(Outcome::Socket));
        assert_eq!(b.arrive(), Arrived::Socket);
        fence_req(&mut s, 1, 0);
        let out = fence_req(&mut s, 2, 0);
        assert_eq!(out.len(), 3, "the socket fence completes for all three");
        // The tracker is gone: the area is usable again.
        assert!(matches!(a.arrive(), Arrived::Waiting(_)));
    }

    fn request(s: &mut ServerState, conn: ConnId, tag: u32, req: Req) -> Vec<Action> {
        let mut out = Vec::new();
        s.request(
            conn,
            &protocol::encode(&protocol::Request { tag, req }),
            &mut out,
        )
        .unwrap();
        out
    }

    /// The replies among `out`: (connection, tag, status, data).
    fn replies(out: &[Action]) -> Vec<(ConnId, u32, i32, ReplyData)> {
        out.iter()
            .filter_map(|a| {
                let (c, body) = match a {
                    Action::Send(c, b) => (*c, b.to_vec()),
                    Action::SendShared(c, h, t) => (*c, [&h[..], &t[..]].concat()),
                    _ => return None,
                };
                match protocol::decode::<ServerMsg>(&body) {
                    Ok(ServerMsg::Reply { tag, status, data }) => Some((c, tag, status, data)),
                    _ => None,
                }
            })
            .collect()
    }

    fn commit(k: &str, v: i32) -> Req {
        Req::Commit {
            puts: vec![protocol::Put {
                key: Key::new(k).unwrap(),
                scope: sys::PMIX_GLOBAL,
                value: Value::Int(v),
            }],
        }
    }

    fn get(k: &str, immediate: bool) -> Req {
        Req::Get {
            target: p(0),
            key: Some(Key::new(k).unwrap()),
            immediate,
            timeout_ms: 0,
            info: Vec::new(),
        }
    }

    #[test]
    fn a_get_waits_for_the_commits_its_target_counted_in_the_area() {
        let (mut s, fds) = setup(2, 2);
        let r0 = FenceArea::attach(&*fds[0], 2).unwrap().for_rank(0);
        r0.commit_sent();
        request(&mut s, 1, 1, commit("k", 1));
        // Rank 0 counts its next commit and passes a fence in the area before the server
        // has read it: rank 1's Get of the key must not see the older value.
        r0.commit_sent();
        assert!(replies(&request(&mut s, 2, 5, get("k", false))).is_empty());
        // Nor may an immediate Get of a key that commit brings say it is not there.
        assert!(replies(&request(&mut s, 2, 6, get("z", true))).is_empty());
        let out = request(&mut s, 1, 2, commit("k", 2));
        let mut got = replies(&out);
        got.sort_by_key(|r| r.1);
        assert_eq!(
            got.len(),
            2,
            "both held Gets answered once the commit is read"
        );
        let (_, tag, status, ReplyData::Data(d)) = &got[0] else {
            panic!("no data in the reply to the Get: {:?}", got[0])
        };
        assert_eq!((*tag, *status), (5, 0));
        assert_eq!(d.first().map(|i| &i.value), Some(&Value::Int(2)));
        assert_eq!((got[1].1, got[1].2), (6, sys::PMIX_ERR_NOT_FOUND));
        // Nothing in flight: answered at once.
        let got = replies(&request(&mut s, 2, 7, get("k", false)));
        assert_eq!((got[0].1, got[0].2), (7, 0));
    }

    #[test]
    fn an_ended_participant_fails_the_waiters_and_turns_the_area_off() {
        let (mut s, fds) = setup(2, 2);
        let a = FenceArea::attach(&*fds[0], 2).unwrap();
        let Arrived::Waiting(g) = a.arrive() else {
            panic!()
        };
        let mut out = Vec::new();
        s.closed(2, &mut out); // rank 1 vanishes
        assert_eq!(
            a.poll(g),
            Some(Outcome::Failed(sys::PMIX_ERR_PROC_TERM_WO_SYNC))
        );
        assert_eq!(a.arrive(), Arrived::Socket);
    }

    #[test]
    fn no_area_for_jobs_spanning_nodes_or_when_turned_off() {
        let (_, fds) = setup(4, 2);
        assert!(fds.is_empty(), "ranks on other nodes: socket fences");
        let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
        s.register_nspace(
            &p(0).nspace,
            2,
            vec![Info::new(keys::JOB_SIZE, Value::Uint32(2)).unwrap()],
        );
        let out = super::super::connect_test_client(&mut s, &p(0), 1, 0);
        assert!(out.iter().all(|a| !matches!(a, Action::SendFds(..))));
    }
}
