//! Monitors the server library serves itself (`PMIx_Process_monitor`), as OpenPMIx's
//! server does with its `pstat` framework: resource usage of its local clients
//! (`PMIX_MONITOR_PROC_RESOURCE_USAGE`), of the node, its disks and its network
//! interfaces (`..._NODE_`, `..._DISK_`, `..._NET_RESOURCE_USAGE`), once or every
//! `PMIX_MONITOR_RESOURCE_RATE` seconds as events with the requested code to the
//! requester until `PMIX_MONITOR_CANCEL` names its `PMIX_MONITOR_ID`; and heartbeat
//! watches (`PMIX_MONITOR_HEARTBEAT`) when the host has no monitoring of its own.
//! Everything else, and usage of processes that are not this server's clients, goes
//! to the host's `monitor` slot as before (`server/hostops.rs`).

mod sample;

use super::{Action, ConnState, ServerState, TimerEv};
use crate::error::{Error, Result};
use crate::protocol::{self, ReplyData, ServerMsg};
use crate::reactor::ConnId;
use crate::value::{Info, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use sample::Fields;
use std::time::Duration;

/// One `PMIx_Process_monitor` request, as the client made it.
#[derive(Clone, Copy)]
pub struct MonitorAsk<'a> {
    /// The requester's connection.
    pub conn: ConnId,
    /// The request's tag.
    pub tag: u32,
    /// The requester.
    pub me: &'a ProcId,
    /// What to monitor.
    pub monitor: &'a Info,
    /// The status code of the events the monitor raises.
    pub code: i32,
    /// The request's directives.
    pub directives: &'a [Info],
}

/// The periodic monitors running in this server.
#[derive(Default)]
pub struct Monitors {
    ops: Vec<Op>,
    next: u64,
    /// Heartbeat watches the host leaves undone are kept here.
    local_beats: bool,
}

/// One periodic monitor.
struct Op {
    /// Names the op's timer ([`TimerEv::Monitor`]).
    timer: u64,
    /// `PMIX_MONITOR_ID`, the handle `PMIX_MONITOR_CANCEL` names.
    id: Option<String>,
    requester: ProcId,
    /// The status code of the events it raises.
    code: i32,
    every: Duration,
    what: Watch,
}

enum Watch {
    Usage(Usage),
    /// `target`'s heartbeats: `seen` at the last check, `missed` checks in a row
    /// without a new one, alert after `drops`.
    Heartbeat {
        target: ProcId,
        seen: u64,
        missed: u32,
        drops: u32,
    },
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Proc,
    Node,
    Disk,
    Net,
}

/// What one usage request samples.
struct Usage {
    kind: Kind,
    fields: Fields,
    /// `PMIX_MONITOR_TARGET_PROCS` (None: every local client).
    procs: Option<Vec<ProcId>>,
    /// `PMIX_MONITOR_TARGET_PIDS` on this node.
    pids: Option<Vec<i32>>,
    /// `PMIX_MONITOR_TARGET_DISKS` / `_NETS`.
    only: Option<Vec<String>>,
}

/// What a monitor request is, for this server.
enum Decision {
    Usage(Usage, Option<String>, u32),
    Cancel(String),
    Host,
}

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::DataArray(a) => a
            .items
            .iter()
            .filter_map(|i| match i {
                Value::Info(i) => Some(i.key.as_str().to_string()),
                Value::String(_) => i.as_str().map(str::to_string),
                _ => None,
            })
            .collect(),
        Value::String(_) => v.as_str().map(|s| vec![s.to_string()]).unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn array(v: &Value) -> Result<&[Value]> {
    match v {
        Value::DataArray(a) => Ok(&a.items),
        _ => Err(Error::bad_param("monitor target is not a data array")),
    }
}

fn decide(monitor: &Info, directives: &[Info]) -> Result<Decision> {
    let kind = match monitor.key.as_str() {
        ak::PMIX_MONITOR_PROC_RESOURCE_USAGE => Kind::Proc,
        ak::PMIX_MONITOR_NODE_RESOURCE_USAGE => Kind::Node,
        ak::PMIX_MONITOR_DISK_RESOURCE_USAGE => Kind::Disk,
        ak::PMIX_MONITOR_NET_RESOURCE_USAGE => Kind::Net,
        ak::PMIX_MONITOR_CANCEL => {
            return match monitor.value.as_str() {
                Some(id) => Ok(Decision::Cancel(id.to_string())),
                None => Err(Error::bad_param(
                    "PMIX_MONITOR_CANCEL needs the monitor's id",
                )),
            }
        }
        _ => return Ok(Decision::Host),
    };
    let fields = Some(strings(&monitor.value)).filter(|f| !f.is_empty());
    let mut u = Usage {
        kind,
        fields,
        procs: None,
        pids: None,
        only: None,
    };
    let (mut id, mut rate) = (None, 0u32);
    for d in directives {
        match d.key.as_str() {
            ak::PMIX_MONITOR_ID => match d.value.as_str() {
                Some(s) => id = id.or(Some(s.to_string())),
                None => return Err(Error::bad_param("PMIX_MONITOR_ID is not a string")),
            },
            ak::PMIX_MONITOR_RESOURCE_RATE => {
                rate = d
                    .value
                    .as_u64()
                    .and_then(|r| u32::try_from(r).ok())
                    .ok_or_else(|| Error::bad_param("PMIX_MONITOR_RESOURCE_RATE is not a count"))?
            }
            ak::PMIX_MONITOR_TARGET_PROCS => {
                array(&d.value)?;
                u.procs.get_or_insert_with(Vec::new).extend(d.value.procs());
            }
            ak::PMIX_MONITOR_TARGET_PIDS => {
                let pids = array(&d.value)?.iter().filter_map(|p| match p {
                    Value::NodePid(n) => Some(n.pid),
                    _ => None,
                });
                u.pids.get_or_insert_with(Vec::new).extend(pids);
            }
            ak::PMIX_MONITOR_TARGET_DISKS | ak::PMIX_MONITOR_TARGET_NETS => u
                .only
                .get_or_insert_with(Vec::new)
                .extend(strings(&d.value)),
            _ => {}
        }
    }
    Ok(Decision::Usage(u, id, rate))
}

fn reply(conn: ConnId, tag: u32, r: Result<Vec<Info>>) -> Action {
    let (status, data) = match r {
        Ok(v) => (sys::PMIX_SUCCESS, ReplyData::Data(v)),
        Err(e) => (protocol::status_of(&e), ReplyData::None),
    };
    Action::Send(
        conn,
        protocol::encode(&ServerMsg::Reply { tag, status, data }),
    )
}

impl ServerState {
    /// A monitor request from a client: served here (true: the reply, and the timer of
    /// a periodic monitor, are in `out`), or to be handed to the host (false).
    pub(super) fn monitor_request(&mut self, ask: &MonitorAsk, out: &mut Vec<Action>) -> bool {
        let MonitorAsk {
            conn,
            tag,
            me,
            monitor,
            code,
            directives,
        } = *ask;
        let (u, id, rate) = match decide(monitor, directives) {
            Ok(Decision::Host) => return false,
            Ok(Decision::Cancel(id)) => {
                let before = self.monitors.ops.len();
                self.monitors
                    .ops
                    .retain(|o| o.id.as_deref() != Some(id.as_str()));
                if self.monitors.ops.len() == before {
                    return false;
                }
                out.push(reply(conn, tag, Ok(Vec::new())));
                return true;
            }
            Ok(Decision::Usage(u, id, rate)) => (u, id, rate),
            Err(e) => {
                log::warn!("server: monitor request from {me} refused: {e}");
                out.push(reply(conn, tag, Err(e)));
                return true;
            }
        };
        let results = self.usage_sample(&u);
        if u.kind == Kind::Proc && results.is_empty() && (u.procs.is_some() || u.pids.is_some()) {
            // None of the targets is a client of this server: the host may know them.
            return false;
        }
        out.push(reply(conn, tag, Ok(results)));
        if rate > 0 {
            let every = Duration::from_secs(rate.into());
            let timer = self.start_op(me, id, code, every, Watch::Usage(u));
            out.push(Action::Timer(every, TimerEv::Monitor(timer)));
        }
        true
    }

    /// The host answered a monitor request: a heartbeat watch it does not do itself is
    /// kept here; every other answer goes to the client.
    pub fn monitor_host_done(
        &mut self,
        ask: &MonitorAsk,
        r: Result<Vec<Info>>,
        out: &mut Vec<Action>,
    ) {
        let MonitorAsk {
            conn,
            tag,
            me,
            monitor,
            code,
            directives,
        } = *ask;
        let refused = matches!(&r, Err(e) if protocol::status_of(e) == sys::PMIX_ERR_NOT_SUPPORTED);
        if !(refused
            && self.monitors.local_beats
            && monitor.key.as_str() == ak::PMIX_MONITOR_HEARTBEAT)
        {
            out.push(reply(conn, tag, r));
            return;
        }
        let num = |k: &str| {
            directives
                .iter()
                .find(|d| d.key.as_str() == k)
                .and_then(|d| d.value.as_u64())
        };
        let id = directives
            .iter()
            .find(|d| d.key.as_str() == ak::PMIX_MONITOR_ID)
            .and_then(|d| d.value.as_str().map(str::to_string));
        let Some(secs) = num(ak::PMIX_MONITOR_HEARTBEAT_TIME).filter(|&s| s > 0) else {
            out.push(reply(
                conn,
                tag,
                Err(Error::bad_param("no PMIX_MONITOR_HEARTBEAT_TIME")),
            ));
            return;
        };
        let drops = num(ak::PMIX_MONITOR_HEARTBEAT_DROPS).unwrap_or(1).max(1) as u32;
        let watch = Watch::Heartbeat {
            target: me.clone(),
            seen: self.heartbeats(me),
            missed: 0,
            drops,
        };
        let timer = self.start_op(me, id, code, Duration::from_secs(secs), watch);
        out.push(Action::Timer(
            Duration::from_secs(secs),
            TimerEv::Monitor(timer),
        ));
        out.push(reply(conn, tag, Ok(Vec::new())));
    }

    /// See [`crate::server::Server::set_local_heartbeats`].
    pub fn set_local_heartbeats(&mut self, on: bool) {
        self.monitors.local_beats = on;
    }

    fn start_op(
        &mut self,
        me: &ProcId,
        id: Option<String>,
        code: i32,
        every: Duration,
        what: Watch,
    ) -> u64 {
        self.monitors.next += 1;
        let timer = self.monitors.next;
        self.monitors.ops.push(Op {
            timer,
            id,
            requester: me.clone(),
            code,
            every,
            what,
        });
        timer
    }

    /// A periodic monitor's timer fired: sample and tell the requester, and re-arm;
    /// an op whose requester left, or that was cancelled, ends here.
    pub(super) fn monitor_tick(&mut self, timer: u64, out: &mut Vec<Action>) {
        let Some(pos) = self.monitors.ops.iter().position(|o| o.timer == timer) else {
            return;
        };
        let Some(&conn) = self.by_proc.get(&self.monitors.ops[pos].requester) else {
            self.monitors.ops.remove(pos);
            return;
        };
        let mut op = self.monitors.ops.remove(pos);
        let info = match &mut op.what {
            Watch::Usage(u) => Some(self.usage_sample(u)),
            Watch::Heartbeat {
                target,
                seen,
                missed,
                drops,
            } => {
                let now = self.heartbeats(target);
                *missed = if now == *seen { *missed + 1 } else { 0 };
                *seen = now;
                (*missed >= *drops).then(|| {
                    log::warn!("server: {target} missed {missed} heartbeats");
                    *missed = 0;
                    Info::new(
                        ak::PMIX_EVENT_AFFECTED_PROC,
                        Value::Proc(Some(target.clone())),
                    )
                    .into_iter()
                    .collect()
                })
            }
        };
        if let Some(mut info) = info {
            info.extend(
                op.id
                    .clone()
                    .and_then(|id| Info::new(ak::PMIX_MONITOR_ID, Value::string(&id)).ok()),
            );
            info.extend(Info::new(ak::PMIX_EVENT_NON_DEFAULT, Value::Bool(true)));
            let ev = ServerMsg::Event {
                status: op.code,
                source: self.id.clone(),
                info,
            };
            out.push(Action::Send(conn, protocol::encode(&ev)));
        }
        out.push(Action::Timer(op.every, TimerEv::Monitor(op.timer)));
        self.monitors.ops.push(op);
    }

    /// One sample of what `u` asks for.
    fn usage_sample(&self, u: &Usage) -> Vec<Info> {
        let host = self.hostname.clone();
        match u.kind {
            Kind::Proc => self
                .local_pids()
                .into_iter()
                .filter(|(p, pid)| {
                    let by_proc = u.procs.as_ref().map(|t| t.iter().any(|w| matches(w, p)));
                    let by_pid = u.pids.as_ref().map(|t| t.contains(pid));
                    match (by_proc, by_pid) {
                        (None, None) => true,
                        (a, b) => a.unwrap_or(false) || b.unwrap_or(false),
                    }
                })
                .filter_map(|(p, pid)| sample::proc_usage(&p, pid, &host, &u.fields))
                .filter_map(|v| sample::array_of(ak::PMIX_PROC_RESOURCE_USAGE, v))
                .collect(),
            Kind::Node => {
                let mut v: Vec<Info> = Info::new(ak::PMIX_HOSTNAME, Value::string(&host))
                    .into_iter()
                    .collect();
                v.extend(sample::node_usage(&u.fields));
                sample::array_of(ak::PMIX_NODE_RESOURCE_USAGE, v)
                    .into_iter()
                    .collect()
            }
            Kind::Disk => sample::disk_usage(&u.only, &u.fields),
            Kind::Net => sample::net_usage(&u.only, &u.fields),
        }
    }

    /// Every connected client of this server, with the pid the kernel reported for its
    /// connection.
    fn local_pids(&self) -> Vec<(ProcId, i32)> {
        let mut v: Vec<(ProcId, i32)> = self
            .conns
            .iter()
            .filter_map(|(c, st)| match st {
                ConnState::Client { proc_, .. } => {
                    let pid = self.hostops.peers.get(c)?.pid;
                    (pid > 0).then(|| (proc_.clone(), pid))
                }
                _ => None,
            })
            .collect();
        v.sort_by(|a, b| (&a.0.nspace, a.0.rank).cmp(&(&b.0.nspace, b.0.rank)));
        v
    }
}

fn matches(want: &ProcId, p: &ProcId) -> bool {
    want.nspace == p.nspace && (want.rank == sys::PMIX_RANK_WILDCARD || want.rank == p.rank)
}
