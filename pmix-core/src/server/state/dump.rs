//! The server's section of the debug dump ([`crate::dump`]): pending fences (who arrived,
//! which local ranks are missing, whether the host was asked for the other nodes), parked
//! Gets, Gets waiting for a namespace, and direct-modex requests waiting on the host.

use super::{ConnState, ServerState, Tracker};
use crate::value::ProcId;
use std::fmt::Write as _;

/// Ranks as a short list: `0,1,5` (at most 32 shown, then the count of the rest).
fn ranks(v: &[ProcId]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    let mut s: Vec<String> = v.iter().take(32).map(|p| p.to_string()).collect();
    if v.len() > 32 {
        s.push(format!("... ({} more)", v.len() - 32));
    }
    s.join(", ")
}

impl ServerState {
    fn dump_fence(&self, t: &Tracker, tag: Option<&str>, out: &mut String) {
        // In rank order, not arrival order: the reader looks for a rank.
        let mut arrived: Vec<ProcId> = t
            .arrived
            .iter()
            .filter_map(|a| match self.conns.get(&a.conn) {
                Some(ConnState::Client { proc_, .. }) => Some(proc_.clone()),
                _ => None,
            })
            .collect();
        arrived.sort_by(|a, b| (a.nspace.as_str(), a.rank).cmp(&(b.nspace.as_str(), b.rank)));
        let missing: Vec<ProcId> = self
            .local_participants(&t.procs)
            .into_iter()
            .filter(|p| !arrived.contains(p))
            .collect();
        let procs: Vec<String> = t.procs.iter().map(|p| p.to_string()).collect();
        let _ = writeln!(
            out,
            "    fence #{} over [{}]{}{}{}: {} of {} local participants arrived",
            t.id,
            procs.join(", "),
            tag.map(|t| format!(" tag {}", t)).unwrap_or_default(),
            if t.collect { ", collecting" } else { "" },
            if t.gather { ", allgather" } else { "" },
            t.arrived.len(),
            t.expected
        );
        let _ = writeln!(out, "      arrived: {}", ranks(&arrived));
        let _ = writeln!(out, "      missing: {}", ranks(&missing));
        if t.host_called {
            let _ = writeln!(
                out,
                "      handed to the host (fence_nb upcall): waiting for the other nodes"
            );
        }
    }

    /// Append this server's section to `out`.
    pub fn dump(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "server {} on {}: {} namespaces, {} connections",
            self.id,
            self.hostname,
            self.nspaces.len(),
            self.conns.len()
        );
        let _ = writeln!(out, "  pending fences: {}", self.fences.len());
        let mut fences: Vec<_> = self.fences.iter().collect();
        fences.sort_by_key(|(_, t)| t.id);
        for (k, t) in fences {
            self.dump_fence(t, k.tag.as_deref(), out);
        }
        self.dump_shm(out);
        let _ = writeln!(
            out,
            "  parked Gets (data not there yet): {}",
            self.getters.len()
        );
        for g in &self.getters {
            let key = g.key.as_ref().map(|k| k.as_str()).unwrap_or("(all keys)");
            let _ = writeln!(
                out,
                "    {} waits for {} of {} (tag {})",
                g.requester, key, g.target, g.tag
            );
        }
        let _ = writeln!(
            out,
            "  Gets waiting for a namespace: {}",
            self.ns_waiters.len()
        );
        for g in &self.ns_waiters {
            let key = g.key.as_ref().map(|k| k.as_str()).unwrap_or("(all keys)");
            let _ = writeln!(out, "    {} waits for {} of {}", g.requester, key, g.target);
        }
        let host_fences = self.fences.values().filter(|t| t.host_called).count();
        let _ = writeln!(
            out,
            "  pending host upcalls: {} fence_nb, {} direct_modex",
            host_fences,
            self.dmodex_out.len()
        );
        for (p, k) in &self.dmodex_out {
            let key = k.as_ref().map(|k| k.as_str()).unwrap_or("(all keys)");
            let _ = writeln!(out, "    direct_modex for {} of {}", key, p);
        }
        let _ = writeln!(
            out,
            "  direct-modex requests from other servers parked here: {}",
            self.dmodex_in.len()
        );
        for (p, k, _) in &self.dmodex_in {
            let key = k.as_ref().map(|k| k.as_str()).unwrap_or("(all keys)");
            let _ = writeln!(out, "    {} of {}", key, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::connect_test_client;
    use super::*;
    use crate::protocol::{self, Req, Request};
    use crate::store::keys;
    use crate::value::{Info, Nspace, Value};

    fn p(r: u32) -> ProcId {
        ProcId::new(Nspace::new("job").unwrap(), r)
    }

    #[test]
    fn a_pending_fence_names_who_arrived_and_who_is_missing() {
        let mut s = ServerState::new(ProcId::new(Nspace::new("srv").unwrap(), 0), "h".into());
        s.register_nspace(
            &Nspace::new("job").unwrap(),
            3,
            vec![
                Info::new(keys::JOB_SIZE, Value::Uint32(3)).unwrap(),
                Info::new(keys::LOCAL_PEERS, Value::string("0,1,2")).unwrap(),
            ],
        );
        for r in 0..3 {
            connect_test_client(&mut s, &p(r), r as usize + 1, 0);
        }
        let mut out = String::new();
        s.dump(&mut out);
        assert!(out.contains("  pending fences: 0\n"), "{}", out);
        for (conn, tag) in [(1, 10), (3, 11)] {
            let r = Req::Fence {
                procs: vec![],
                collect: false,
                timeout_ms: 0,
                info: vec![],
            };
            let mut acts = Vec::new();
            s.request(conn, &protocol::encode(&Request { tag, req: r }), &mut acts)
                .unwrap();
        }
        let mut out = String::new();
        s.dump(&mut out);
        assert!(out.contains("  pending fences: 1\n"), "{}", out);
        assert!(
            out.contains("over [job:*]: 2 of 3 local participants arrived\n"),
            "{}",
            out
        );
        assert!(out.contains("      arrived: job:0, job:2\n"), "{}", out);
        assert!(out.contains("      missing: job:1\n"), "{}", out);
        assert!(
            out.contains("pending host upcalls: 0 fence_nb, 0 direct_modex"),
            "{}",
            out
        );
    }

    #[test]
    fn long_rank_lists_are_cut() {
        let v: Vec<ProcId> = (0..40).map(p).collect();
        let s = ranks(&v);
        assert!(s.starts_with("job:0, job:1, "), "{}", s);
        assert!(s.ends_with("job:31, ... (8 more)"), "{}", s);
        assert_eq!(ranks(&[]), "none");
    }
}
