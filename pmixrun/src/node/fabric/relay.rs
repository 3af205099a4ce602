//! What the front end does with each message a daemon sends ([`Shared::handle`]): it
//! relays connections, finalizations, losses and aborts to the launcher, events to the
//! other nodes, fences to the [`FenceMatcher`](super::FenceMatcher) and direct-modex
//! requests to the owning node, and answers the calls it made.

use super::super::link::{Call, Down, Up};
use super::{ready_id, Shared};
use crate::host::JobEvent;
use pmix_core::{Info, ProcId, Result};

impl Shared {
    pub(super) fn handle(&self, node: usize, msg: Up) {
        match msg {
            Up::Ready { .. } | Up::Reply { .. } => self.reply(node, msg),
            Up::Connected(p) => {
                if self.rank_of(&p).is_some() {
                    self.events.push(JobEvent::Connected(p));
                }
            }
            Up::Finalized { id, proc_ } => {
                self.store.proc_ended(&proc_);
                self.monitor_stop(&proc_, None);
                if self.rank_of(&proc_).is_some() {
                    self.events.push(JobEvent::Finalized(proc_.clone()));
                }
                if id != 0 {
                    self.send(node, &Down::FinalizedSeen { id });
                }
            }
            Up::Lost(p) => {
                self.store.proc_ended(&p);
                self.monitor_stop(&p, None);
                if self.rank_of(&p).is_some() {
                    // The other servers learn that it will never arrive (their
                    // collectives waiting for it fail) and tell their clients; then
                    // the front end's rounds that include it fail (after: a server
                    // that aborts a group construct itself raises the member's
                    // failure to its clients, which the round's failure does not).
                    for n in (0..self.links.len()).filter(|&n| n != node) {
                        self.deregister_at(n, &p);
                    }
                    self.proc_ended(&p);
                    self.announce_lost(node, &p);
                    self.events.push(JobEvent::Lost(p));
                }
            }
            Up::Abort {
                id,
                proc_,
                status,
                msg,
                ..
            } => self.abort(node, id, proc_, status, msg),
            Up::Fence {
                id,
                procs,
                info,
                data,
            } => {
                let tag = info
                    .iter()
                    .find(|i| i.key.as_str() == pmix_core::protocol::FENCE_TAG)
                    .and_then(|i| i.value.as_str().map(str::to_string));
                self.fence(node, id, procs, tag, data)
            }
            Up::Dmodex { id, proc_, info } => self.dmodex(node, id, proc_, info),
            Up::Upcall { id, call } => self.upcall(node, id, call),
            Up::MonitorAnswer {
                id,
                status,
                results,
            } => self.monitor_answer(id, status, results),
            Up::DmodexAnswer { id, status, data } => {
                let asker = self.lock().dmodex.remove(&id);
                match asker {
                    Some((n, their)) => self.send(
                        n,
                        &Down::DmodexDone {
                            id: their,
                            status,
                            data,
                        },
                    ),
                    None => log::warn!("node {node} answered unknown direct modex {id}"),
                }
            }
            Up::Notify {
                source,
                status,
                range,
                info,
            } => {
                if status == pmix_sys::PMIX_GROUP_LEFT {
                    self.group_left(&source, &info);
                }
                for n in (0..self.links.len()).filter(|&n| n != node) {
                    self.send(
                        n,
                        &Down::Notify {
                            status,
                            source: source.clone(),
                            range,
                            info: info.clone(),
                        },
                    );
                }
            }
        }
    }

    /// A rank on `node` called `PMIx_Abort` (daemon request `id`): the launcher kills
    /// the job, then the daemon's caller is released.
    pub(super) fn abort(&self, node: usize, id: u64, proc_: ProcId, status: i32, msg: String) {
        if self.rank_of(&proc_).is_none() {
            self.send(
                node,
                &Down::AbortDone {
                    id,
                    status: pmix_sys::PMIX_ERR_BAD_PARAM,
                },
            );
            return;
        };
        let l = self.links.get(node).cloned();
        self.events.push(JobEvent::Abort {
            proc_,
            status,
            msg,
            targets: Vec::new(),
            done: Box::new(move |r| {
                let status = match r {
                    Ok(()) => pmix_sys::PMIX_SUCCESS,
                    Err(e) => pmix_core::protocol::status_of(&e),
                };
                if let Some(l) = l {
                    l.send(&Down::AbortDone { id, status });
                }
            }),
        });
    }

    /// A server on `node` asks for `proc_`'s data (daemon request `id`): the question
    /// goes to the node that hosts the rank, under an id of the front end's.
    pub(super) fn dmodex(&self, node: usize, id: u64, proc_: ProcId, info: Vec<Info>) {
        let owner = self.node_of_proc(&proc_);
        let owner = match (owner, proc_.nspace == self.nspace) {
            (Some(o), _) => o,
            // Job-level data: any node has it (a spawned job's node has its).
            (None, true) if proc_.rank == pmix_sys::PMIX_RANK_WILDCARD => node,
            (None, false) if proc_.rank == pmix_sys::PMIX_RANK_WILDCARD => {
                self.spawned_node(&proc_.nspace).unwrap_or(node)
            }
            _ => {
                self.send(
                    node,
                    &Down::DmodexDone {
                        id,
                        status: pmix_sys::PMIX_ERR_NOT_FOUND,
                        data: Vec::new(),
                    },
                );
                return;
            }
        };
        let gid = {
            let mut st = self.lock();
            st.next += 1;
            let gid = st.next;
            st.dmodex.insert(gid, (node, id));
            gid
        };
        self.report(&format!(
            "direct modex {gid}: node{node} asks node{owner} for {proc_}"
        ));
        self.send(
            owner,
            &Down::DmodexAsk {
                id: gid,
                proc_,
                info,
            },
        );
    }

    /// `p` will never take part in anything again: fail the rounds that include it.
    pub(super) fn proc_ended(&self, p: &ProcId) {
        if self.rank_of(p).is_none() {
            return;
        }
        let mut st = self.lock();
        st.ended.insert(p.clone());
        for (n, id) in st.fences.fail_including(p) {
            log::warn!("fence or connect {id} of node {n} fails: {p} ended");
            self.send(
                n,
                &Down::FenceDone {
                    id,
                    status: pmix_sys::PMIX_ERR_PROC_TERM_WO_SYNC,
                    data: Vec::new(),
                },
            );
        }
        drop(st);
        self.groups_lost(p);
    }

    /// Tell `node`'s server that `p` will never take part again (for a process of
    /// another node, its collectives waiting for `p` fail; see
    /// `ServerState::deregister_client`).
    pub(super) fn deregister_at(&self, node: usize, p: &ProcId) {
        self.send(
            node,
            &Down::Call {
                id: 0,
                call: Call::DeregisterClient { proc_: p.clone() },
            },
        );
    }

    /// `p`'s server (on `node`) lost it: the clients of its namespace on the other nodes
    /// hear of it as that server's own clients did.
    pub(super) fn announce_lost(&self, node: usize, p: &ProcId) {
        let info: Vec<Info> = Info::new(
            pmix_sys::attrs::keys::PMIX_EVENT_AFFECTED_PROC,
            pmix_core::Value::Proc(Some(p.clone())),
        )
        .into_iter()
        .collect();
        for n in (0..self.links.len()).filter(|&n| n != node) {
            self.send(
                n,
                &Down::Notify {
                    status: pmix_sys::PMIX_ERR_PROC_TERM_WO_SYNC,
                    source: p.clone(),
                    range: pmix_sys::PMIX_RANGE_NAMESPACE,
                    info: info.clone(),
                },
            );
        }
    }

    pub(super) fn reply(&self, node: usize, msg: Up) {
        let (id, r) = match msg {
            Up::Ready { status, msg } => (0, (status, msg, Vec::new())),
            Up::Reply {
                id,
                status,
                msg,
                env,
            } => (id, (status, msg, env)),
            _ => return,
        };
        // Ready answers the node's pseudo-call 0, registered per node.
        let key = if id == 0 { ready_id(node) } else { id };
        let waiter = self.lock().calls.remove(&key);
        match waiter {
            Some((_, tx)) => {
                let _ = tx.send(r);
            }
            None => log::debug!("node {node}: reply to unknown request {id}"),
        }
    }

    pub(super) fn fence(
        &self,
        node: usize,
        id: u64,
        procs: Vec<ProcId>,
        tag: Option<String>,
        data: Vec<u8>,
    ) {
        let expect = match self.nodes_of(&procs) {
            Ok(e) => e,
            Err(why) => {
                log::warn!("node {node}: {why}");
                self.fence_failed(node, id, pmix_sys::PMIX_ERR_BAD_PARAM);
                return;
            }
        };
        let (done, n) = {
            let mut st = self.lock();
            let gone = st
                .ended
                .iter()
                .find(|q| pmix_core::server::state::includes(&procs, q))
                .cloned();
            if let Some(r) = gone {
                drop(st);
                log::warn!("node {node}: fence or connect {id} names rank {r}, which ended");
                self.fence_failed(node, id, pmix_sys::PMIX_ERR_PROC_TERM_WO_SYNC);
                return;
            }
            let r = st.fences.contribute(procs, tag, expect, node, id, data);
            if let Ok(Some(d)) = &r {
                st.nfences += 1;
                // Released while the state is locked: whatever a released process
                // makes us send any node later (its death, say) queues behind this.
                for &(n, their) in &d.parts {
                    self.send(
                        n,
                        &Down::FenceDone {
                            id: their,
                            status: pmix_sys::PMIX_SUCCESS,
                            data: d.data.clone(),
                        },
                    );
                }
            }
            (r, st.nfences)
        };
        let done = match done {
            Ok(Some(d)) => d,
            Ok(None) => return,
            Err(why) => {
                log::warn!("{why}");
                self.fence_failed(node, id, pmix_sys::PMIX_ERR_BAD_PARAM);
                return;
            }
        };
        let sizes: Vec<String> = done
            .sizes
            .iter()
            .map(|(n, s)| format!("node{n}={s}"))
            .collect();
        let over = match done.procs.as_slice() {
            [p] if p.rank == pmix_sys::PMIX_RANK_WILDCARD => "all ranks".to_string(),
            ps => format!("{} ranks", ps.len()),
        };
        self.report(&format!(
            "fence {n} over {over}: {} bytes, total {} bytes",
            sizes.join(" "),
            done.data.len()
        ));
    }

    /// Log a line of the modex report (and print it with `--report-modex`).
    pub(super) fn report(&self, line: &str) {
        log::info!("{line}");
        if self.report {
            crate::output::write_line(&mut std::io::stderr().lock(), &format!("pmixrun: {line}"));
        }
    }

    /// A daemon's link ended.
    pub(super) fn closed(&self, node: usize, r: Result<()>) {
        let closing = {
            let mut st = self.lock();
            // Requests to that node will never be answered, nor will later ones.
            st.calls.retain(|_, (n, _)| *n != node);
            st.lost_nodes.insert(node);
            st.closing
        };
        // Nor will its parts of monitors spanning nodes.
        self.monitor_node_lost(node);
        if closing {
            return;
        }
        let why = match r {
            Ok(()) => "its daemon exited".to_string(),
            Err(e) => format!("its link broke ({e})"),
        };
        // Every process of the node is lost with it, of the job and of the jobs spawned
        // there: the other servers hear of each as of a process their peer server lost
        // (their collectives waiting for it fail, its namespace gets
        // PMIX_ERR_PROC_TERM_WO_SYNC), as PRRTE reports the processes of any job on a
        // node whose daemon died.
        let procs = self.node_procs(node);
        let lost: Vec<ProcId> = {
            let st = self.lock();
            procs
                .iter()
                .filter(|p| !st.ended.contains(p))
                .cloned()
                .collect()
        };
        // The launcher hears of the node's loss before anything it causes: the ranks of
        // other nodes told below fail their collectives and may exit at once, and a rank
        // exit judged first would hide the node's loss (chaos-check, session 10).
        self.events.push(JobEvent::NodeFailed {
            node: u32::try_from(node).unwrap_or(u32::MAX),
            msg: why,
            procs,
        });
        for p in lost {
            log::warn!("node {node} failed: {p} is lost with it");
            self.store.proc_ended(&p);
            self.monitor_stop(&p, None);
            for n in (0..self.links.len()).filter(|&n| n != node) {
                self.deregister_at(n, &p);
            }
            self.proc_ended(&p);
            self.announce_lost(node, &p);
        }
    }
}
