//! Monitors the server library serves itself (`PMIx_Process_monitor`), as OpenPMIx's
//! server does with its `pstat` framework: resource usage of its local clients
//! (`PMIX_MONITOR_PROC_RESOURCE_USAGE`), of the node, its disks and its network
//! interfaces (`..._NODE_`, `..._DISK_`, `..._NET_RESOURCE_USAGE`), once or every
//! `PMIX_MONITOR_RESOURCE_RATE` seconds as events with the requested code to the
//! requester until `PMIX_MONITOR_CANCEL` names its `PMIX_MONITOR_ID`; and heartbeat
//! watches (`PMIX_MONITOR_HEARTBEAT`) when the host has no monitoring of its own; and
//! file watches (`PMIX_MONITOR_FILE`, [`file`]), always served here as OpenPMIx's
//! `psensor` serves them before the host hears of a request. A heartbeat or file alert
//! is raised as OpenPMIx's sensors raise it: with the watched process as its source, to
//! the range the request named (`PMIX_RANGE`, the source's namespace by default, other
//! nodes through the host), never to the source itself.
//! Everything else, and usage of processes that are not this server's clients, goes
//! to the host's `monitor` slot as before (`server/hostops.rs`): a request naming
//! clients of this server and processes elsewhere is served here for the former and
//! handed to the host for the latter only, the two answers joined. A host that reaches
//! the other processes' servers asks them to run the monitor for the requester
//! ([`crate::server::Server::monitor_for`], [`remote`]); their updates travel back as
//! events of range `PMIX_RANGE_CUSTOM` naming the requester, which the host carries as
//! any other event.

mod file;
mod remote;
mod sample;

use super::{Action, ConnState, ServerState, TimerEv};
use crate::error::{Error, Result};
use crate::protocol::{self, ReplyData, ServerMsg};
use crate::reactor::ConnId;
use crate::value::{Info, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use sample::Fields;
use std::collections::{HashMap, HashSet};
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
    /// What was sampled here for a request whose other targets the host has, by the
    /// request's (connection, tag): it joins the host's answer.
    partial: HashMap<(ConnId, u32), Vec<Info>>,
    /// Cancels done here that the host also hears of (their op spanned servers):
    /// they succeed whatever the host says.
    cancelled: HashSet<(ConnId, u32)>,
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
    /// The requester is a process of another server ([`remote`]): its updates go
    /// through the host.
    remote: bool,
    /// Part of the request's targets are elsewhere: a cancel goes to the host too.
    spans: bool,
}

enum Watch {
    Usage(Usage),
    /// `target`'s heartbeats: `seen` at the last check, `missed` checks in a row
    /// without a new one; the alert comes when more than `drops` were missed, once
    /// (`alerted`) until the target beats again.
    Heartbeat {
        target: ProcId,
        seen: u64,
        missed: u32,
        drops: u32,
        range: u8,
        alerted: bool,
    },
    /// A file the requester asked to be watched ([`file`]).
    File(file::FileWatch),
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

/// Where a client's monitor request goes.
pub(super) enum Route {
    /// Answered here (the reply is in the actions).
    Served,
    /// To the host as it came.
    Host,
    /// To the host with these directives (its `PMIX_MONITOR_TARGET_PROCS` naming only
    /// the targets this server does not host); what was sampled here waits for the
    /// host's answer.
    Far(Vec<Info>),
}

/// The targets of `u` this server does not host (a wildcard rank always counts: its
/// namespace may have ranks elsewhere).
fn far_targets(s: &ServerState, u: &Usage) -> Vec<ProcId> {
    u.procs
        .iter()
        .flatten()
        .filter(|p| p.rank == sys::PMIX_RANK_WILDCARD || !s.is_local(p))
        .cloned()
        .collect()
}

/// `directives` with the targets replaced by `far`.
fn with_targets(directives: &[Info], far: &[ProcId]) -> Vec<Info> {
    let mut v: Vec<Info> = directives
        .iter()
        .filter(|d| d.key.as_str() != ak::PMIX_MONITOR_TARGET_PROCS)
        .cloned()
        .collect();
    v.extend(Info::new(
        ak::PMIX_MONITOR_TARGET_PROCS,
        Value::proc_array(far),
    ));
    v
}

/// What a monitor request is, for this server.
enum Decision {
    Usage(Usage, Option<String>, u32),
    Cancel(String),
    /// A file watch: its id and check interval.
    File(file::FileWatch, Option<String>, u32),
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
        ak::PMIX_MONITOR_FILE => {
            let (w, id, secs) = file::decide(monitor, directives)?;
            return Ok(Decision::File(w, id, secs));
        }
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
    /// A monitor request from a client: served here (the reply, and the timer of a
    /// periodic monitor, are in `out`), or to be handed to the host.
    pub(super) fn monitor_request(&mut self, ask: &MonitorAsk, out: &mut Vec<Action>) -> Route {
        let MonitorAsk {
            conn,
            tag,
            me,
            monitor,
            code,
            directives,
        } = *ask;
        let (u, id, rate) = match decide(monitor, directives) {
            Ok(Decision::Host) => return Route::Host,
            Ok(Decision::Cancel(id)) => return self.monitor_cancel(conn, tag, me, &id, out),
            Ok(Decision::Usage(u, id, rate)) => (u, id, rate),
            Ok(Decision::File(w, id, secs)) => {
                let every = Duration::from_secs(secs.into());
                let timer = self.start_op(me, id, code, every, Watch::File(w));
                out.push(Action::Timer(every, TimerEv::Monitor(timer)));
                out.push(reply(conn, tag, Ok(Vec::new())));
                return Route::Served;
            }
            Err(e) => {
                log::warn!("server: monitor request from {me} refused: {e}");
                out.push(reply(conn, tag, Err(e)));
                return Route::Served;
            }
        };
        let results = self.usage_sample(&u);
        let far = if u.kind == Kind::Proc {
            far_targets(self, &u)
        } else {
            Vec::new()
        };
        if u.kind == Kind::Proc && results.is_empty() && (u.procs.is_some() || u.pids.is_some()) {
            // None of the targets is a client of this server: the host may know them.
            return Route::Host;
        }
        let route = if far.is_empty() {
            out.push(reply(conn, tag, Ok(results)));
            Route::Served
        } else {
            self.monitors.partial.insert((conn, tag), results);
            Route::Far(with_targets(directives, &far))
        };
        if rate > 0 {
            let every = Duration::from_secs(rate.into());
            let timer = self.start_op(me, id, code, every, Watch::Usage(u));
            if let Some(op) = self.monitors.ops.last_mut() {
                op.spans = !far.is_empty();
            }
            out.push(Action::Timer(every, TimerEv::Monitor(timer)));
        }
        route
    }

    /// `PMIX_MONITOR_CANCEL` of `id` by `me`: its ops here end (another process's ops
    /// of the same id stay, as OpenPMIx stops only the requester's); the host hears of
    /// it when none was here or one of them had targets elsewhere.
    fn monitor_cancel(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        id: &str,
        out: &mut Vec<Action>,
    ) -> Route {
        let (gone, keep): (Vec<Op>, Vec<Op>) = std::mem::take(&mut self.monitors.ops)
            .into_iter()
            .partition(|o| !o.remote && &o.requester == me && o.id.as_deref() == Some(id));
        self.monitors.ops = keep;
        if gone.is_empty() {
            return Route::Host;
        }
        if gone.iter().any(|o| o.spans) {
            self.monitors.cancelled.insert((conn, tag));
            return Route::Host;
        }
        out.push(reply(conn, tag, Ok(Vec::new())));
        Route::Served
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
        if let Some(mut here) = self.monitors.partial.remove(&(conn, tag)) {
            match r {
                Ok(v) => here.extend(v),
                Err(e) => {
                    log::debug!("server: monitor of {me}: the host has no other targets: {e}")
                }
            }
            out.push(reply(conn, tag, Ok(here)));
            return;
        }
        if self.monitors.cancelled.remove(&(conn, tag)) {
            out.push(reply(conn, tag, Ok(Vec::new())));
            return;
        }
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
        let drops = num(ak::PMIX_MONITOR_HEARTBEAT_DROPS)
            .map_or(0, |d| u32::try_from(d).unwrap_or(u32::MAX));
        let range = match range_of(directives) {
            Ok(r) => r,
            Err(e) => return out.push(reply(conn, tag, Err(e))),
        };
        let watch = Watch::Heartbeat {
            target: me.clone(),
            seen: self.heartbeats(me),
            missed: 0,
            drops,
            range,
            alerted: false,
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
            remote: false,
            spans: false,
        });
        timer
    }

    /// A periodic monitor's timer fired: sample and tell the requester, and re-arm;
    /// an op whose requester left, or that was cancelled, ends here.
    pub(super) fn monitor_tick(&mut self, timer: u64, out: &mut Vec<Action>) {
        let Some(pos) = self.monitors.ops.iter().position(|o| o.timer == timer) else {
            return;
        };
        let conn = self.by_proc.get(&self.monitors.ops[pos].requester).copied();
        if conn.is_none() && !self.monitors.ops[pos].remote {
            self.monitors.ops.remove(pos);
            return;
        }
        let mut op = self.monitors.ops.remove(pos);
        let info = match &mut op.what {
            Watch::Usage(u) => Some(self.usage_sample(u)),
            Watch::Heartbeat {
                target,
                seen,
                missed,
                drops,
                range,
                alerted,
            } => {
                let now = self.heartbeats(target);
                if now == *seen {
                    *missed = missed.saturating_add(1);
                } else {
                    (*missed, *alerted) = (0, false);
                }
                *seen = now;
                if *missed > *drops && !*alerted {
                    log::warn!("server: {target} missed {missed} heartbeats");
                    *alerted = true;
                    let (target, range) = (target.clone(), *range);
                    let code = alert_code(op.code, sys::PMIX_MONITOR_HEARTBEAT_ALERT);
                    self.monitor_alert(&target, code, range, op.id.as_deref(), out);
                }
                None
            }
            Watch::File(w) => {
                if w.check() {
                    log::warn!("server: {} stalled ({})", w.path(), op.requester);
                    let (source, range) = (op.requester.clone(), w.range());
                    let code = alert_code(op.code, sys::PMIX_MONITOR_FILE_ALERT);
                    self.monitor_alert(&source, code, range, op.id.as_deref(), out);
                    // A file alert ends its watch, as OpenPMIx's does.
                    return;
                }
                None
            }
        };
        if let Some(mut info) = info {
            info.extend(
                op.id
                    .clone()
                    .and_then(|id| Info::new(ak::PMIX_MONITOR_ID, Value::string(&id)).ok()),
            );
            info.extend(Info::new(ak::PMIX_EVENT_NON_DEFAULT, Value::Bool(true)));
            match conn {
                Some(conn) if !op.remote => {
                    let ev = ServerMsg::Event {
                        status: op.code,
                        source: self.id.clone(),
                        info,
                    };
                    out.push(Action::Send(conn, protocol::encode(&ev)));
                }
                _ => out.push(remote::update(&self.id, &op.requester, op.code, info)),
            }
        }
        out.push(Action::Timer(op.every, TimerEv::Monitor(op.timer)));
        self.monitors.ops.push(op);
    }

    /// A heartbeat or file alert about `source`: to the clients of this server in
    /// `range` but `source` itself (presumed dead, as OpenPMIx's sensors presume), and
    /// to the host when the range reaches beyond this server.
    fn monitor_alert(
        &self,
        source: &ProcId,
        code: i32,
        range: u8,
        id: Option<&str>,
        out: &mut Vec<Action>,
    ) {
        let mut info: Vec<Info> = Info::new(
            ak::PMIX_EVENT_AFFECTED_PROC,
            Value::Proc(Some(source.clone())),
        )
        .into_iter()
        .collect();
        info.extend(id.and_then(|id| Info::new(ak::PMIX_MONITOR_ID, Value::string(id)).ok()));
        let (mut targets, beyond) = self.event_targets(source, range, &info);
        if let Some(c) = self.by_proc.get(source) {
            targets.retain(|t| t != c);
        }
        self.send_event(&targets, code, source, info.clone(), out);
        if beyond {
            out.push(Action::Host(super::Upcall::Notify {
                source: source.clone(),
                status: code,
                range,
                info,
            }));
        }
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

/// The status an alert raises: the one the request named, or the sensor's own when it
/// named none (`PMIX_SUCCESS`), as `PMIx_Process_monitor(3)` says.
fn alert_code(asked: i32, own: i32) -> i32 {
    if asked == sys::PMIX_SUCCESS {
        own
    } else {
        asked
    }
}

/// `PMIX_RANGE` of a liveness monitor's directives (the namespace by default).
fn range_of(directives: &[Info]) -> Result<u8> {
    match directives.iter().find(|d| d.key.as_str() == ak::PMIX_RANGE) {
        None => Ok(sys::PMIX_RANGE_NAMESPACE),
        Some(d) => match d.value {
            Value::Range(r) => Ok(r),
            _ => Err(Error::bad_param("PMIX_RANGE is not a data range")),
        },
    }
}

fn matches(want: &ProcId, p: &ProcId) -> bool {
    want.nspace == p.nspace && (want.rank == sys::PMIX_RANK_WILDCARD || want.rank == p.rank)
}
