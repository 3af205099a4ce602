//! Event routing in the server: which local clients an event reaches, by range, and
//! whether it must also go to the host.
//!
//! | range | local clients | host |
//! |---|---|---|
//! | `PROC_LOCAL` | none (the client keeps it) | no |
//! | `LOCAL`, `UNDEF` | all | no |
//! | `SESSION`, `GLOBAL` | all | yes |
//! | `NAMESPACE` | those of the source's namespace | yes |
//! | `CUSTOM` | those named by `PMIX_EVENT_CUSTOM_RANGE` | if it names others |
//! | `RM` | none | yes |
//!
//! An event from a client never comes back to that client (its library delivered it to
//! its own handlers), and goes to the host only when its range reaches beyond this
//! server and it does not carry `PMIX_EVENT_STAYS_LOCAL`. An event from the host is never
//! echoed back to it.

use super::{reply, Action, ConnState, ServerState};
use crate::event::{custom_range, proc_matches};
use crate::protocol::{self, ReplyData, ServerMsg};
use crate::reactor::ConnId;
use crate::server::upcalls::HostCall;
use crate::value::{Info, ProcId};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;

impl ServerState {
    /// The local clients an event of `range` from `source` reaches, and whether it also
    /// concerns processes elsewhere.
    fn event_targets(&self, source: &ProcId, range: u8, info: &[Info]) -> (Vec<ConnId>, bool) {
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
            sys::PMIX_RANGE_SESSION | sys::PMIX_RANGE_GLOBAL => {
                (clients.map(|(c, _)| c).collect(), true)
            }
            _ => (clients.map(|(c, _)| c).collect(), false),
        }
    }

    fn send_event(
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
        let stays = info
            .iter()
            .any(|i| i.key.as_str() == ak::PMIX_EVENT_STAYS_LOCAL && i.value.is_true());
        if beyond && !stays {
            out.push(Action::Host(HostCall::Notify {
                status,
                source: me.clone(),
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
        info: Vec<Info>,
        out: &mut Vec<Action>,
    ) {
        let (targets, _) = self.event_targets(source, range, &info);
        self.send_event(&targets, status, source, info, out);
    }
}
