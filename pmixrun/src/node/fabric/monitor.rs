//! Process monitors of ranks on other nodes. A rank's server samples its own node's
//! ranks itself and hands the host only the targets it does not host
//! (`pmix-core/src/server/monitor/`); its daemon forwards that request here
//! ([`Fwd::Monitor`](super::super::upcall::Fwd::Monitor)). The front end asks each
//! target's node to run it for the requester ([`Down::MonitorAsk`]), joins their first
//! samples into the answer, and remembers a periodic one by requester and
//! `PMIX_MONITOR_ID`; the updates come back as events of range `PMIX_RANGE_CUSTOM`
//! naming the requester, relayed to the other nodes as every event is. A
//! `PMIX_MONITOR_CANCEL` of that id, or the requester finalizing or going away,
//! ends them on those nodes ([`Down::MonitorCancel`]). A node whose daemon is lost
//! ([`Shared::monitor_node_lost`]) fails its parts of the requests still waiting
//! (`PMIX_ERR_UNREACH`, the whole answer when no other node answered), and each
//! periodic monitor it ran tells its requester with a `PMIX_ERR_UNREACH` event naming
//! the monitor's id and the lost targets; a request naming only targets of lost nodes
//! fails at once. Monitors of other kinds
//! (heartbeats, files) are `PMIX_ERR_NOT_SUPPORTED`: pmixrun has no monitoring of its
//! own, so a heartbeat watch stays with the requester's server.

use super::super::link::Down;
use super::super::upcall::{Answer, Finish};
use super::Shared;
use pmix_core::{Error, Info, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One forwarded request waiting for its nodes' first samples.
struct Ask {
    waiting: usize,
    results: Vec<Info>,
    answered: bool,
    failed: Option<Error>,
    finish: Finish,
}

/// A periodic monitor running on other nodes for a requester.
struct Running {
    requester: ProcId,
    id: Option<String>,
    /// Its nodes, with the targets each samples.
    nodes: BTreeMap<usize, Vec<ProcId>>,
}

/// The front end's record of monitors spanning nodes.
#[derive(Default)]
pub(super) struct Monitors {
    /// Our id of a node's [`Down::MonitorAsk`] → the request it is part of, and the
    /// node asked.
    parts: HashMap<u64, (u64, usize)>,
    asks: HashMap<u64, Ask>,
    running: Vec<Running>,
    /// Nodes whose daemon was lost.
    lost: BTreeSet<usize>,
}

fn directive<'a>(directives: &'a [Info], key: &str) -> Option<&'a Value> {
    directives
        .iter()
        .find(|d| d.key.as_str() == key)
        .map(|d| &d.value)
}

/// `directives` with `PMIX_MONITOR_TARGET_PROCS` naming `targets` only.
fn for_targets(directives: &[Info], targets: &[ProcId]) -> Vec<Info> {
    let mut v: Vec<Info> = directives
        .iter()
        .filter(|d| d.key.as_str() != ak::PMIX_MONITOR_TARGET_PROCS)
        .cloned()
        .collect();
    v.extend(Info::new(
        ak::PMIX_MONITOR_TARGET_PROCS,
        Value::proc_array(targets),
    ));
    v
}

impl Shared {
    /// Daemon `node` forwarded `requester`'s monitor request (see the module text).
    pub(super) fn monitor(
        &self,
        node: usize,
        requester: ProcId,
        monitor: Info,
        code: i32,
        directives: Vec<Info>,
        finish: Finish,
    ) {
        match monitor.key.as_str() {
            ak::PMIX_MONITOR_CANCEL => {
                let Some(id) = monitor.value.as_str().map(str::to_string) else {
                    return finish(Err(Error::bad_param("PMIX_MONITOR_CANCEL needs an id")));
                };
                if self.monitor_stop(&requester, Some(&id)) == 0 {
                    return finish(Err(Error::not_found(format!(
                        "{requester} runs no monitor {id} on another node"
                    ))));
                }
                finish(Ok(Answer::Infos(Vec::new())))
            }
            ak::PMIX_MONITOR_PROC_RESOURCE_USAGE => {
                let mut per_node = self.targets_by_node(node, &directives);
                if per_node.is_empty() {
                    return finish(Err(Error::not_found(
                        "no target of the monitor runs on another node",
                    )));
                }
                let lost = self.lock().monitors.lost.clone();
                per_node.retain(|n, _| !lost.contains(n));
                if per_node.is_empty() {
                    return finish(Err(Error::new(
                        sys::PMIX_ERR_UNREACH,
                        "the monitor's targets are on nodes whose daemon was lost",
                    )));
                }
                self.monitor_ask(requester, monitor, code, &directives, per_node, finish)
            }
            other => finish(Err(Error::not_supported(format!(
                "pmixrun has no monitoring of its own ({other})"
            )))),
        }
    }

    /// The targets the request names, by the node hosting them (never `node`, whose
    /// server sampled its own).
    fn targets_by_node(&self, node: usize, directives: &[Info]) -> BTreeMap<usize, Vec<ProcId>> {
        let targets = directive(directives, ak::PMIX_MONITOR_TARGET_PROCS)
            .map(Value::procs)
            .unwrap_or_default();
        let mut per_node: BTreeMap<usize, Vec<ProcId>> = BTreeMap::new();
        for t in targets {
            let nodes: BTreeSet<usize> = if t.rank == pmix_sys::PMIX_RANK_WILDCARD {
                self.nodes_of(std::slice::from_ref(&t)).unwrap_or_default()
            } else {
                self.node_of_proc(&t).into_iter().collect()
            };
            for n in nodes.into_iter().filter(|&n| n != node) {
                per_node.entry(n).or_default().push(t.clone());
            }
        }
        per_node
    }

    /// Ask every node of `per_node` to run the monitor for its targets.
    fn monitor_ask(
        &self,
        requester: ProcId,
        monitor: Info,
        code: i32,
        directives: &[Info],
        per_node: BTreeMap<usize, Vec<ProcId>>,
        finish: Finish,
    ) {
        let periodic = directive(directives, ak::PMIX_MONITOR_RESOURCE_RATE)
            .and_then(Value::as_u64)
            .is_some_and(|r| r > 0);
        let id = directive(directives, ak::PMIX_MONITOR_ID)
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut sends = Vec::new();
        {
            let mut st = self.lock();
            st.next += 1;
            let ask = st.next;
            for (&n, targets) in &per_node {
                st.next += 1;
                let part = st.next;
                st.monitors.parts.insert(part, (ask, n));
                let msg = Down::MonitorAsk {
                    id: part,
                    requester: requester.clone(),
                    monitor: monitor.clone(),
                    code,
                    directives: for_targets(directives, targets),
                };
                sends.push((n, msg));
            }
            st.monitors.asks.insert(
                ask,
                Ask {
                    waiting: per_node.len(),
                    results: Vec::new(),
                    answered: false,
                    failed: None,
                    finish,
                },
            );
            if periodic {
                st.monitors.running.push(Running {
                    requester,
                    id,
                    nodes: per_node.clone(),
                });
            }
        }
        for (n, msg) in sends {
            self.send(n, &msg);
        }
    }

    /// A node answered part `id` of a forwarded monitor with its first sample.
    pub(super) fn monitor_answer(&self, id: u64, status: i32, results: Vec<Info>) {
        let done = {
            let mut st = self.lock();
            let Some((ask_id, _)) = st.monitors.parts.remove(&id) else {
                return log::warn!("answer to unknown monitor request {id}");
            };
            let Some(ask) = st.monitors.asks.get_mut(&ask_id) else {
                return;
            };
            ask.waiting = ask.waiting.saturating_sub(1);
            if status == pmix_sys::PMIX_SUCCESS {
                ask.answered = true;
                ask.results.extend(results);
            } else if ask.failed.is_none() {
                ask.failed = Some(Error::new(status, "the targets' node refused the monitor"));
            }
            if ask.waiting > 0 {
                return;
            }
            st.monitors.asks.remove(&ask_id)
        };
        if let Some(a) = done {
            let r = match (a.answered, a.failed) {
                (false, Some(e)) => Err(e),
                _ => Ok(Answer::Infos(a.results)),
            };
            (a.finish)(r);
        }
    }

    /// End `requester`'s monitors on other nodes (those with `id`, or all of them);
    /// how many there were.
    pub(super) fn monitor_stop(&self, requester: &ProcId, id: Option<&str>) -> usize {
        let gone: Vec<Running> = {
            let mut st = self.lock();
            let (gone, keep) = std::mem::take(&mut st.monitors.running)
                .into_iter()
                .partition(|r| {
                    &r.requester == requester && id.is_none_or(|i| r.id.as_deref() == Some(i))
                });
            st.monitors.running = keep;
            gone
        };
        let nodes: BTreeSet<usize> = gone.iter().flat_map(|r| r.nodes.keys().copied()).collect();
        for n in nodes {
            self.send(
                n,
                &Down::MonitorCancel {
                    requester: requester.clone(),
                    id: id.map(str::to_string),
                },
            );
        }
        gone.len()
    }

    /// `node`'s daemon is lost: its parts of waiting requests fail, and the requesters
    /// of the periodic monitors it ran hear of it (see the module text).
    pub(super) fn monitor_node_lost(&self, node: usize) {
        let (parts, told) = {
            let mut st = self.lock();
            st.monitors.lost.insert(node);
            let parts: Vec<u64> = st
                .monitors
                .parts
                .iter()
                .filter(|(_, &(_, n))| n == node)
                .map(|(&p, _)| p)
                .collect();
            let mut told = Vec::new();
            for r in &mut st.monitors.running {
                if let Some(targets) = r.nodes.remove(&node) {
                    told.push((r.requester.clone(), r.id.clone(), targets));
                }
            }
            st.monitors.running.retain(|r| !r.nodes.is_empty());
            (parts, told)
        };
        for p in parts {
            self.monitor_answer(p, sys::PMIX_ERR_UNREACH, Vec::new());
        }
        for (requester, id, targets) in told {
            log::warn!("monitor of {requester}: node {node} was lost with its targets");
            let Some(at) = self.node_of_proc(&requester) else {
                continue;
            };
            let mut info: Vec<Info> = Vec::new();
            info.extend(Info::new(
                pmix_sys::attrs::keys::PMIX_EVENT_CUSTOM_RANGE,
                Value::proc_array(std::slice::from_ref(&requester)),
            ));
            info.extend(Info::new(
                pmix_sys::attrs::keys::PMIX_EVENT_AFFECTED_PROCS,
                Value::proc_array(&targets),
            ));
            info.extend(id.and_then(|i| Info::new(ak::PMIX_MONITOR_ID, Value::string(&i)).ok()));
            let source = ProcId {
                nspace: self.nspace.clone(),
                rank: sys::PMIX_RANK_WILDCARD,
            };
            self.send(
                at,
                &Down::Notify {
                    status: sys::PMIX_ERR_UNREACH,
                    source,
                    range: sys::PMIX_RANGE_CUSTOM,
                    info,
                },
            );
        }
    }
}
