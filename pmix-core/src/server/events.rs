//! Event routing in the server: which local clients an event reaches, by range, and
//! whether it must also go to the host.
//!
//! | range | local clients | host |
//! |---|---|---|
//! | `PROC_LOCAL` | none (the client keeps it) | no |
//! | `LOCAL` | all | no |
//! | `SESSION`, `GLOBAL`, `UNDEF` | all | yes |
//! | `NAMESPACE` | those of the source's namespace | yes |
//! | `CUSTOM` | those named by `PMIX_EVENT_CUSTOM_RANGE` | if it names others |
//! | `RM` | none | yes |
//!
//! An event from a client never comes back to that client (its library delivered it to
//! its own handlers), and goes to the host only when its range reaches beyond this
//! server and it does not carry `PMIX_EVENT_STAYS_LOCAL`. An event from the host is never
//! echoed back to it.
//!
//! **Late clients.** As OpenPMIx's server caches the events it fans out (its
//! notification cache: the last 512, for 120 s, unless the event carries
//! `PMIX_EVENT_DO_NOT_CACHE`) and hands them to a client that registers for their code
//! later, ours keeps the events it routes (from its clients and from its host) and sends
//! a client that connects later the ones whose range takes it in and that it was not
//! sent yet (not to their source). The client keeps what no handler of its code took
//! (`crate::event`) until one registers. So an event raised while a peer of the job is
//! still starting reaches that peer's handler all the same. Process-set definitions
//! are not kept here: a new client is told the sets that exist
//! ([`ServerState::psets_to_new_client`]).

use super::{reply, Action, ConnState, ServerState, Upcall};
use crate::event::{custom_range, proc_matches};
use crate::protocol::{self, ReplyData, ServerMsg};
use crate::reactor::ConnId;
use crate::value::{Info, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::time::{Duration, Instant};

/// How many routed events are kept for clients that connect later (OpenPMIx's
/// `pmix_max_events`).
const CACHE_MAX: usize = 512;
/// How long they are kept (OpenPMIx's `pmix_event_eviction_time`).
const CACHE_FOR: Duration = Duration::from_secs(120);

/// An event routed to the clients, kept for those that connect later.
#[derive(Debug)]
pub(super) struct CachedEvent {
    at: Instant,
    status: i32,
    source: ProcId,
    range: u8,
    info: Vec<Info>,
    /// Its number (see `DynState::ev_upto`).
    seq: u64,
}

impl ServerState {
    /// Whether an event of `range` from `source` is for the process `p` of this node.
    fn in_range(source: &ProcId, range: u8, custom: &[ProcId], p: &ProcId) -> bool {
        match range {
            sys::PMIX_RANGE_PROC_LOCAL | sys::PMIX_RANGE_RM => false,
            sys::PMIX_RANGE_NAMESPACE => p.nspace == source.nspace,
            sys::PMIX_RANGE_CUSTOM => custom.iter().any(|w| proc_matches(w, p)),
            _ => true,
        }
    }

    /// Keep an event just routed to the clients connected now, for those that connect
    /// later.
    fn cache_event(&mut self, status: i32, source: &ProcId, range: u8, info: &[Info]) {
        let no_cache = info
            .iter()
            .any(|i| i.key.as_str() == ak::PMIX_EVENT_DO_NOT_CACHE && i.value.is_true());
        if no_cache
            || matches!(range, sys::PMIX_RANGE_PROC_LOCAL | sys::PMIX_RANGE_RM)
            || crate::event::KEPT_CODES.contains(&status)
        {
            return;
        }
        let now = Instant::now();
        let seq = self.dynamic.ev_seq;
        self.dynamic.ev_seq += 1;
        let cache = &mut self.dynamic.ev_cache;
        cache.retain(|e| now.saturating_duration_since(e.at) < CACHE_FOR);
        if cache.len() >= CACHE_MAX {
            cache.pop_front();
        }
        cache.push_back(CachedEvent {
            at: now,
            status,
            source: source.clone(),
            range,
            info: info.to_vec(),
            seq,
        });
    }

    /// Client `p`'s connection closed: the events kept from now on are news to it when
    /// it connects again.
    pub(super) fn cached_events_client_gone(&mut self, p: &ProcId) {
        let seq = self.dynamic.ev_seq;
        self.dynamic.ev_upto.insert(p.clone(), seq);
    }

    /// A client just connected: send it the kept events it is in range of and was not
    /// sent yet (see the module notes).
    pub(super) fn cached_events_to_new_client(
        &mut self,
        conn: ConnId,
        p: &ProcId,
        out: &mut Vec<Action>,
    ) {
        let now = Instant::now();
        let upto = self.dynamic.ev_upto.get(p).copied().unwrap_or(0);
        let mut cache = std::mem::take(&mut self.dynamic.ev_cache);
        cache.retain(|e| now.saturating_duration_since(e.at) < CACHE_FOR);
        for e in cache.iter().filter(|e| e.seq >= upto && &e.source != p) {
            if !Self::in_range(&e.source, e.range, &custom_range(&e.info), p) {
                continue;
            }
            log::debug!(
                "server: event {} from {} (kept) to {} that connected later",
                e.status,
                e.source,
                p
            );
            self.send_event(&[conn], e.status, &e.source, e.info.clone(), out);
        }
        self.dynamic.ev_cache = cache;
        // From now on it gets them live.
        let seq = self.dynamic.ev_seq;
        self.dynamic.ev_upto.insert(p.clone(), seq);
    }

    /// The local clients an event of `range` from `source` reaches, and whether it also
    /// concerns processes elsewhere.
    pub(super) fn event_targets(
        &self,
        source: &ProcId,
        range: u8,
        info: &[Info],
    ) -> (Vec<ConnId>, bool) {
        let clients = self.conns.iter().filter_map(|(&c, st)| match st {
            ConnState::Client { proc_, .. } => Some((c, proc_)),
            _ => None,
        });
        match range {
            sys::PMIX_RANGE_PROC_LOCAL => (Vec::new(), false),
            sys::PMIX_RANGE_RM => (Vec::new(), true),
            sys::PMIX_RANGE_NAMESPACE => (
                clients
                    .filter(|(_, p)| p.nspace == source.nspace)
                    .map(|(c, _)| c)
                    .collect(),
                true,
            ),
            sys::PMIX_RANGE_CUSTOM => {
                let want = custom_range(info);
                let beyond = want.iter().any(|w| !self.is_local(w));
                (
                    clients
                        .filter(|(_, p)| want.iter().any(|w| proc_matches(w, p)))
                        .map(|(c, _)| c)
                        .collect(),
                    beyond,
                )
            }
            sys::PMIX_RANGE_LOCAL => (clients.map(|(c, _)| c).collect(), false),
            // SESSION, GLOBAL and an unspecified range reach everyone, everywhere.
            _ => (clients.map(|(c, _)| c).collect(), true),
        }
    }

    pub(super) fn send_event(
        &self,
        targets: &[ConnId],
        status: i32,
        source: &ProcId,
        info: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        if targets.is_empty() {
            return;
        }
        let ev = protocol::encode(&ServerMsg::Event {
            status,
            source: source.clone(),
            info,
        });
        for &c in targets {
            out.push(Action::Send(c, ev.clone()));
        }
    }

    /// `PMIx_Notify_event` from a client.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn client_notify(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        status: i32,
        range: u8,
        info: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        let (mut targets, beyond) = self.event_targets(me, range, &info);
        targets.retain(|&c| c != conn);
        self.send_event(&targets, status, me, info.clone(), out);
        self.cache_event(status, me, range, &info);
        let stays = info
            .iter()
            .any(|i| i.key.as_str() == ak::PMIX_EVENT_STAYS_LOCAL && i.value.is_true());
        if beyond && !stays {
            out.push(Action::Host(Upcall::Notify {
                source: me.clone(),
                status,
                range,
                info,
            }));
        }
        out.push(reply(conn, tag, sys::PMIX_SUCCESS, ReplyData::None));
    }

    /// An event the host hands the server (`PMIx_Notify_event` in the server process):
    /// to the local clients in range, never back to the host.
    pub fn host_notify(
        &mut self,
        status: i32,
        source: &ProcId,
        range: u8,
        mut info: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        if status == sys::PMIX_ERR_PROC_TERM_WO_SYNC {
            // Another server's member ended unsynchronized: the connection is over here
            // too (nobody else raises it a second time).
            self.dynamic
                .connected
                .retain(|(set, _)| !super::includes(set, source));
        }
        // Invitations spanning servers travel as their events (see `group_remote.rs`).
        let mut grp = self.group_event_split(status, &mut info);
        let group_part = grp.is_some();
        if !Self::group_event_after(status) {
            if let Some(g) = grp.take() {
                self.group_event(status, source, g, out);
            }
        }
        let (targets, _) = self.event_targets(source, range, &info);
        if !group_part {
            // (The invitations spanning servers are answered by the servers, not kept.)
            self.cache_event(status, source, range, &info);
        }
        self.send_event(&targets, status, source, info, out);
        if let Some(g) = grp {
            self.group_event(status, source, g, out);
        }
    }

    /// A client just connected: tell it of every process set defined so far (as the
    /// `PMIX_PROCESS_SET_DEFINE` events it missed; its library keeps them for the
    /// handler it registers for them, see [`crate::event`]).
    pub(super) fn psets_to_new_client(&self, conn: ConnId, out: &mut Vec<Action>) {
        for (name, members) in &self.dynamic.psets {
            let info = [
                Info::new(ak::PMIX_PSET_NAME, Value::string(name)),
                Info::new(ak::PMIX_PSET_MEMBERS, Value::proc_array(members)),
            ]
            .into_iter()
            .flatten()
            .collect();
            let id = self.id.clone();
            self.send_event(&[conn], sys::PMIX_PROCESS_SET_DEFINE, &id, info, out);
        }
    }
}

#[cfg(test)]
mod tests {
    //! Event routing driven through the state machine, in memory.
    use super::super::connect::tests::{msgs, p, setup};
    use super::super::*;
    use crate::protocol::{Req, Request, ServerMsg};
    use crate::value::Value;
    use pmix_sys::attrs::keys as ak;

    /// Connections 1, 2 (namespace a) and 3 (namespace b); a:0 raises the event.
    fn notify(s: &mut ServerState, range: u8, info: Vec<Info>) -> Vec<Action> {
        let mut out = Vec::new();
        let body = protocol::encode(&Request {
            tag: 7,
            req: Req::Notify {
                status: -4242,
                range,
                info,
            },
        });
        s.request(1, &body, &mut out).unwrap();
        out
    }

    fn reached(out: &[Action]) -> Vec<ConnId> {
        let mut v: Vec<ConnId> = msgs(out)
            .into_iter()
            .filter_map(|(c, m)| matches!(m, ServerMsg::Event { .. }).then_some(c))
            .collect();
        v.sort();
        v
    }

    fn to_host(out: &[Action]) -> bool {
        out.iter()
            .any(|a| matches!(a, Action::Host(Upcall::Notify { .. })))
    }

    #[test]
    fn a_client_that_connects_later_gets_the_events_in_its_range() {
        use super::super::connect::tests::ns;
        let mut s = setup();
        for n in ["a2", "c"] {
            s.register_nspace(
                &ns(n),
                2,
                vec![Info::new(ak::PMIX_JOB_SIZE, Value::Uint32(2)).unwrap()],
            );
        }
        // a:0 raises three events; a client of namespace c and one of a2 connect later.
        notify(&mut s, sys::PMIX_RANGE_GLOBAL, vec![]);
        notify(&mut s, sys::PMIX_RANGE_NAMESPACE, vec![]);
        let no_cache = vec![Info::new(ak::PMIX_EVENT_DO_NOT_CACHE, Value::Bool(true)).unwrap()];
        notify(&mut s, sys::PMIX_RANGE_GLOBAL, no_cache);
        let custom =
            vec![Info::new(ak::PMIX_EVENT_CUSTOM_RANGE, Value::proc_array(&[p("c", 1)])).unwrap()];
        notify(&mut s, sys::PMIX_RANGE_CUSTOM, custom);
        // (The welcome comes first; the events follow it.)
        let events = |out: &[Action]| {
            msgs(out.get(1..).unwrap_or_default())
                .into_iter()
                .filter_map(|(c, m)| match m {
                    ServerMsg::Event { source, .. } => Some((c, source)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        // c:0: the GLOBAL one only (not its namespace, not named by the custom range).
        let out = crate::server::state::connect_test_client(&mut s, &p("c", 0), 4, 1000);
        assert_eq!(events(&out), vec![(4, p("a", 0))]);
        // c:1: the GLOBAL one and the custom one; after a reconnect only what was
        // raised while it was away.
        let out = crate::server::state::connect_test_client(&mut s, &p("c", 1), 5, 1000);
        assert_eq!(events(&out).len(), 2);
        s.closed(5, &mut Vec::new());
        let out = crate::server::state::connect_test_client(&mut s, &p("c", 1), 6, 1000);
        assert!(events(&out).is_empty());
        // (c:0 is connected: it gets this one live, not again when it reconnects.)
        assert_eq!(
            reached(&notify(&mut s, sys::PMIX_RANGE_GLOBAL, vec![])),
            vec![2, 3, 4, 6]
        );
        s.closed(6, &mut Vec::new());
        notify(&mut s, sys::PMIX_RANGE_GLOBAL, vec![]);
        let out = crate::server::state::connect_test_client(&mut s, &p("c", 1), 7, 1000);
        assert_eq!(events(&out), vec![(7, p("a", 0))]);
        s.closed(4, &mut Vec::new());
        let out = crate::server::state::connect_test_client(&mut s, &p("c", 0), 8, 1000);
        assert!(events(&out).is_empty());
    }

    #[test]
    fn ranges_pick_the_clients_and_the_host() {
        let mut s = setup();
        let out = notify(&mut s, sys::PMIX_RANGE_NAMESPACE, vec![]);
        assert_eq!(reached(&out), vec![2], "namespace a, not the source");
        assert!(to_host(&out));
        let out = notify(&mut s, sys::PMIX_RANGE_LOCAL, vec![]);
        assert_eq!(reached(&out), vec![2, 3]);
        assert!(!to_host(&out));
        let out = notify(&mut s, sys::PMIX_RANGE_SESSION, vec![]);
        assert_eq!(reached(&out), vec![2, 3]);
        assert!(to_host(&out));
        let stays = vec![Info::new(ak::PMIX_EVENT_STAYS_LOCAL, Value::Bool(true)).unwrap()];
        assert!(!to_host(&notify(&mut s, sys::PMIX_RANGE_SESSION, stays)));
        let custom =
            vec![Info::new(ak::PMIX_EVENT_CUSTOM_RANGE, Value::proc_array(&[p("b", 0)])).unwrap()];
        let out = notify(&mut s, sys::PMIX_RANGE_CUSTOM, custom);
        assert_eq!(reached(&out), vec![3]);
        assert!(!to_host(&out), "every named process is local");
        let out = notify(&mut s, sys::PMIX_RANGE_RM, vec![]);
        assert!(reached(&out).is_empty());
        assert!(to_host(&out));
        // From the host: never back to it.
        let mut out = Vec::new();
        s.host_notify(-1, &p("srv", 0), sys::PMIX_RANGE_GLOBAL, vec![], &mut out);
        assert_eq!(reached(&out), vec![1, 2, 3]);
        assert!(!to_host(&out));
    }
}
