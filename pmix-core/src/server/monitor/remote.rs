//! Monitors this server runs for a process of another server: the host hands them
//! over ([`Server::monitor_for`]) when a client elsewhere names processes of this
//! node (pmixrun's node daemons do, through the front end). They sample as a local
//! request does; each update goes to the host as an event of range
//! `PMIX_RANGE_CUSTOM` whose `PMIX_EVENT_CUSTOM_RANGE` names the requester, so the
//! host carries it to the requester's server like any event it relays. They end when
//! the host cancels them ([`Server::monitor_cancel_for`]: by `PMIX_MONITOR_ID`, or all
//! of a requester that went away) or deregisters the requester.

use super::{decide, Decision, Watch};
use crate::error::{Error, Result};
use crate::server::state::{Action, ServerState, TimerEv, Upcall};
use crate::server::{HostDone, Server};
use crate::value::{Info, ProcId};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::time::Duration;

/// The host-bound event of one update for `requester`, raised by this server (`me`).
pub(super) fn update(me: &ProcId, requester: &ProcId, code: i32, mut info: Vec<Info>) -> Action {
    info.extend(Info::new(
        ak::PMIX_EVENT_CUSTOM_RANGE,
        crate::value::Value::proc_array(std::slice::from_ref(requester)),
    ));
    Action::Host(Upcall::Notify {
        source: me.clone(),
        status: code,
        range: sys::PMIX_RANGE_CUSTOM,
        info,
    })
}

impl ServerState {
    /// Run `monitor` (with `directives`, raising `code`) for `requester`, a process of
    /// another server: the first sample is the answer; a periodic one keeps sampling.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a malformed request, `PMIX_ERR_NOT_SUPPORTED` for a
    /// monitor the server does not serve itself.
    pub fn monitor_for(
        &mut self,
        requester: &ProcId,
        monitor: &Info,
        code: i32,
        directives: &[Info],
        out: &mut Vec<Action>,
    ) -> Result<Vec<Info>> {
        match decide(monitor, directives)? {
            Decision::Usage(u, id, rate) => {
                let results = self.usage_sample(&u);
                if rate > 0 {
                    let every = Duration::from_secs(rate.into());
                    let timer = self.start_op(requester, id, code, every, Watch::Usage(u));
                    if let Some(op) = self.monitors.ops.last_mut() {
                        op.remote = true;
                    }
                    out.push(Action::Timer(every, TimerEv::Monitor(timer)));
                }
                Ok(results)
            }
            Decision::Cancel(id) => {
                self.monitor_cancel_for(requester, Some(&id));
                Ok(Vec::new())
            }
            Decision::Host | Decision::File(..) => Err(Error::not_supported(format!(
                "{} is not served for another server's process",
                monitor.key.as_str()
            ))),
        }
    }

    /// End the monitors run here for `requester` (those with `PMIX_MONITOR_ID` `id`, or
    /// all of them); how many ended.
    pub fn monitor_cancel_for(&mut self, requester: &ProcId, id: Option<&str>) -> usize {
        let before = self.monitors.ops.len();
        self.monitors.ops.retain(|o| {
            !(o.remote
                && &o.requester == requester
                && id.is_none_or(|i| o.id.as_deref() == Some(i)))
        });
        before - self.monitors.ops.len()
    }

    /// How many monitors run here for processes of other servers.
    pub fn remote_monitors(&self) -> usize {
        self.monitors.ops.iter().filter(|o| o.remote).count()
    }
}

impl Server {
    /// Run a `PMIx_Process_monitor` request of `requester`, a process of another server,
    /// for the processes of this one it names (a host spanning nodes calls it on the
    /// targets' server; see [`ServerState::monitor_for`]). `done` gets the first
    /// sample; periodic updates reach the host as `PMIX_RANGE_CUSTOM` events naming the
    /// requester, until [`Server::monitor_cancel_for`].
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn monitor_for(
        &self,
        requester: &ProcId,
        monitor: Info,
        code: i32,
        directives: Vec<Info>,
        done: HostDone<Vec<Info>>,
    ) -> Result<()> {
        let p = requester.clone();
        self.post(move |sh, ctx| {
            let mut r = None;
            sh.step(ctx, |s, out| {
                r = Some(s.monitor_for(&p, &monitor, code, &directives, out));
            });
            done(r.unwrap_or_else(|| Err(Error::not_supported("monitor not run"))));
        })
    }

    /// End the monitors this server runs for `requester` (those with `PMIX_MONITOR_ID`
    /// `id`, or all of them: the requester went away).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn monitor_cancel_for(&self, requester: &ProcId, id: Option<String>) -> Result<()> {
        let p = requester.clone();
        self.post(move |sh, ctx| {
            sh.step(ctx, |s, _| {
                s.monitor_cancel_for(&p, id.as_deref());
            })
        })
    }
}

#[cfg(test)]
mod tests {
    //! One server whose client rank 0 of job "a" (2 ranks, rank 1 elsewhere) is this
    //! test process itself (its connection's pid is ours, so it is really sampled).
    use super::super::super::connect::tests::{msgs, p, send, statuses};
    use super::super::MonitorAsk;
    use crate::error::{Error, Result};
    use crate::protocol::hostops::HostOpReq;
    use crate::protocol::{DynReq, ReplyData, ServerMsg};
    use crate::server::state::{Action, ServerState, TimerEv, Upcall};
    use crate::store::keys;
    use crate::sys::PeerCred;
    use crate::value::DataArray;
    use crate::value::{Info, ProcId, Value};
    use pmix_sys as sys;
    use pmix_sys::attrs::keys as ak;

    const CODE: i32 = sys::PMIX_MONITOR_RESUSAGE_UPDATE;

    fn server() -> ServerState {
        let mut s = ServerState::new(p("srv", 0), "h0".into());
        s.register_nspace(
            &p("a", 0).nspace,
            1,
            vec![
                Info::new(keys::JOB_SIZE, Value::Uint32(2)).unwrap(),
                Info::new(keys::LOCAL_PEERS, Value::string("0")).unwrap(),
            ],
        );
        crate::server::state::connect_test_client(&mut s, &p("a", 0), 1, 1000);
        let pid = std::process::id() as i32;
        s.set_peer_cred(
            1,
            PeerCred {
                pid,
                uid: 0,
                gid: 0,
            },
        );
        s
    }

    fn usage() -> Info {
        let none = DataArray {
            dtype: sys::PMIX_STRING,
            items: Vec::new(),
        };
        Info::new(
            ak::PMIX_MONITOR_PROC_RESOURCE_USAGE,
            Value::DataArray(Box::new(none)),
        )
        .unwrap()
    }

    fn directives(id: &str, targets: &[ProcId]) -> Vec<Info> {
        vec![
            Info::new(ak::PMIX_MONITOR_ID, Value::string(id)).unwrap(),
            Info::new(ak::PMIX_MONITOR_RESOURCE_RATE, Value::Uint32(1)).unwrap(),
            Info::new(
                ak::PMIX_MONITOR_TARGET_PROCS,
                crate::value::Value::proc_array(targets),
            )
            .unwrap(),
        ]
    }

    fn ask(s: &mut ServerState, tag: u32, monitor: Info, directives: Vec<Info>) -> Vec<Action> {
        let r = HostOpReq::Monitor {
            monitor,
            error: CODE,
            directives,
        };
        send(s, 1, tag, DynReq::HostOp(r))
    }

    /// The directives of the monitor request handed to the host, if one was.
    fn to_host(out: &[Action]) -> Option<Vec<Info>> {
        out.iter().find_map(|a| match a {
            Action::Host(Upcall::HostOp {
                req: HostOpReq::Monitor { directives, .. },
                ..
            }) => Some(directives.clone()),
            _ => None,
        })
    }

    fn results(out: &[Action]) -> Option<Vec<Info>> {
        msgs(out).into_iter().find_map(|(_, m)| match m {
            ServerMsg::Reply {
                data: ReplyData::Data(v),
                ..
            } => Some(v),
            _ => None,
        })
    }

    fn done(s: &mut ServerState, tag: u32, r: Result<Vec<Info>>) -> Vec<Action> {
        let (me, m) = (p("a", 0), usage());
        let ask = MonitorAsk {
            conn: 1,
            tag,
            me: &me,
            monitor: &m,
            code: CODE,
            directives: &[],
        };
        let mut out = Vec::new();
        s.monitor_host_done(&ask, r, &mut out);
        out
    }

    #[test]
    fn targets_elsewhere_go_to_the_host_alone_and_the_answers_join() {
        let mut s = server();
        let out = ask(&mut s, 5, usage(), directives("m", &[p("a", 0), p("a", 1)]));
        assert!(statuses(&out).is_empty(), "the reply waits for the host");
        let fwd = to_host(&out).expect("the far target goes to the host");
        let far = fwd
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_MONITOR_TARGET_PROCS)
            .map(|i| i.value.procs());
        assert_eq!(far, Some(vec![p("a", 1)]), "only the target elsewhere");
        let theirs = Info::new(ak::PMIX_PROC_RESOURCE_USAGE, Value::Bool(true)).unwrap();
        let got = results(&done(&mut s, 5, Ok(vec![theirs.clone()]))).unwrap();
        assert_eq!(got.len(), 2, "our sample and the host's");
        assert_eq!(got.last(), Some(&theirs));
        // The cancel of a monitor spanning servers reaches the host too, and succeeds.
        let cancel = Info::new(ak::PMIX_MONITOR_CANCEL, Value::string("m")).unwrap();
        let out = ask(&mut s, 6, cancel, Vec::new());
        assert!(to_host(&out).is_some());
        let out = done(&mut s, 6, Err(Error::not_found("gone")));
        assert_eq!(statuses(&out), vec![(1, 6, sys::PMIX_SUCCESS)]);
        assert!(s.monitors.ops.is_empty());
        // Only targets elsewhere: the request goes to the host as it came.
        let out = ask(&mut s, 7, usage(), directives("n", &[p("a", 1)]));
        assert!(to_host(&out).is_some() && s.monitors.ops.is_empty());
    }

    #[test]
    fn a_monitor_for_another_server_s_process_updates_through_the_host() {
        let mut s = server();
        let far = p("a", 1);
        let mut out = Vec::new();
        let first = s
            .monitor_for(
                &far,
                &usage(),
                CODE,
                &directives("r", &[p("a", 0)]),
                &mut out,
            )
            .unwrap();
        assert_eq!(first.len(), 1, "rank 0 sampled: {first:?}");
        let Some(Action::Timer(_, TimerEv::Monitor(t))) = out.first() else {
            panic!("no timer for the periodic monitor")
        };
        let mut out = Vec::new();
        s.monitor_tick(*t, &mut out);
        let ev = out.iter().find_map(|a| match a {
            Action::Host(Upcall::Notify {
                status,
                range,
                info,
                ..
            }) => Some((*status, *range, info.clone())),
            _ => None,
        });
        let (status, range, info) = ev.expect("the update goes to the host");
        assert_eq!((status, range), (CODE, sys::PMIX_RANGE_CUSTOM));
        assert_eq!(crate::event::custom_range(&info), vec![far.clone()]);
        assert!(info
            .iter()
            .any(|i| i.key.as_str() == ak::PMIX_PROC_RESOURCE_USAGE));
        assert_eq!(s.monitor_cancel_for(&far, Some("other")), 0);
        assert_eq!(s.remote_monitors(), 1);
        // The host deregistering the requester ends its monitors here.
        s.deregister_client(&far, &mut Vec::new());
        assert_eq!(s.remote_monitors(), 0);
        let heartbeat = Info::new(ak::PMIX_MONITOR_HEARTBEAT, Value::Bool(true)).unwrap();
        let r = s.monitor_for(&far, &heartbeat, CODE, &[], &mut Vec::new());
        assert!(r.is_err(), "not served for another server's process");
    }

    /// Rank 1 of "a" joins as connection 2; `ask` as connection `conn`.
    fn ask_as(
        s: &mut ServerState,
        conn: u64,
        tag: u32,
        code: i32,
        monitor: Info,
        directives: Vec<Info>,
    ) -> Vec<Action> {
        let r = HostOpReq::Monitor {
            monitor,
            error: code,
            directives,
        };
        send(s, conn as _, tag, DynReq::HostOp(r))
    }

    fn events(out: &[Action]) -> Vec<(u64, i32, ProcId)> {
        msgs(out)
            .into_iter()
            .filter_map(|(c, m)| match m {
                ServerMsg::Event { status, source, .. } => Some((c as u64, status, source)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_file_alert_names_the_watcher_and_reaches_its_namespace_but_not_it() {
        let mut s = server();
        crate::server::state::connect_test_client(&mut s, &p("a", 1), 2, 1000);
        let path = std::env::temp_dir().join(format!("pmix-monitor-{}", std::process::id()));
        std::fs::write(&path, b"x").unwrap();
        let file = Info::new(ak::PMIX_MONITOR_FILE, Value::string(path.to_str().unwrap())).unwrap();
        let dirs = vec![
            Info::new(ak::PMIX_MONITOR_ID, Value::string("f")).unwrap(),
            Info::new(ak::PMIX_MONITOR_FILE_MODIFY, Value::Bool(true)).unwrap(),
            Info::new(ak::PMIX_MONITOR_FILE_CHECK_TIME, Value::Uint32(1)).unwrap(),
            Info::new(ak::PMIX_MONITOR_FILE_DROPS, Value::Uint32(1)).unwrap(),
        ];
        let out = ask_as(&mut s, 1, 3, sys::PMIX_SUCCESS, file.clone(), dirs.clone());
        assert_eq!(statuses(&out), vec![(1, 3, sys::PMIX_SUCCESS)]);
        assert!(to_host(&out).is_none(), "served here, never the host's");
        let t = match out.first() {
            Some(Action::Timer(_, TimerEv::Monitor(t))) => *t,
            _ => panic!("no timer for the file watch"),
        };
        // Rank 1 cancelling rank 0's id ends nothing of rank 0's.
        let cancel = Info::new(ak::PMIX_MONITOR_CANCEL, Value::string("f")).unwrap();
        let out = ask_as(&mut s, 2, 4, sys::PMIX_SUCCESS, cancel, Vec::new());
        assert!(to_host(&out).is_some(), "rank 1 has no monitor f here");
        assert_eq!(s.monitors.ops.len(), 1);
        let mut out = Vec::new();
        s.monitor_tick(t, &mut out);
        assert!(events(&out).is_empty(), "the first look is the baseline");
        let mut out = Vec::new();
        s.monitor_tick(t, &mut out);
        assert_eq!(
            events(&out),
            vec![(2, sys::PMIX_MONITOR_FILE_ALERT, p("a", 0))],
            "to rank 1 only, from rank 0"
        );
        let host = out.iter().find_map(|a| match a {
            Action::Host(Upcall::Notify { source, range, .. }) => Some((source.clone(), *range)),
            _ => None,
        });
        assert_eq!(
            host,
            Some((p("a", 0), sys::PMIX_RANGE_NAMESPACE)),
            "and beyond"
        );
        assert!(s.monitors.ops.is_empty(), "a file alert ends its watch");
        let _ = std::fs::remove_file(&path);
        // No check time: refused.
        let out = ask_as(&mut s, 1, 5, sys::PMIX_SUCCESS, file, dirs[..2].to_vec());
        assert_eq!(statuses(&out), vec![(1, 5, sys::PMIX_ERR_BAD_PARAM)]);
    }

    #[test]
    fn a_heartbeat_alert_comes_once_after_the_drops_and_again_after_a_beat() {
        let mut s = server();
        crate::server::state::connect_test_client(&mut s, &p("a", 1), 2, 1000);
        s.set_local_heartbeats(true);
        let (me, hb) = (
            p("a", 0),
            Info::new(ak::PMIX_MONITOR_HEARTBEAT, Value::Bool(true)).unwrap(),
        );
        let dirs = vec![
            Info::new(ak::PMIX_MONITOR_HEARTBEAT_TIME, Value::Uint32(1)).unwrap(),
            Info::new(ak::PMIX_MONITOR_HEARTBEAT_DROPS, Value::Uint32(1)).unwrap(),
        ];
        let ask = MonitorAsk {
            conn: 1,
            tag: 9,
            me: &me,
            monitor: &hb,
            code: sys::PMIX_SUCCESS,
            directives: &dirs,
        };
        let mut out = Vec::new();
        s.monitor_host_done(&ask, Err(Error::not_supported("no")), &mut out);
        assert_eq!(statuses(&out), vec![(1, 9, sys::PMIX_SUCCESS)]);
        let t = match out.first() {
            Some(Action::Timer(_, TimerEv::Monitor(t))) => *t,
            _ => panic!("no timer for the heartbeat watch"),
        };
        let tick = |s: &mut ServerState| {
            let mut out = Vec::new();
            s.monitor_tick(t, &mut out);
            events(&out)
        };
        let alert = vec![(2, sys::PMIX_MONITOR_HEARTBEAT_ALERT, me.clone())];
        assert!(tick(&mut s).is_empty(), "one empty window is tolerated");
        assert_eq!(tick(&mut s), alert, "the second is not; rank 1 hears");
        assert!(tick(&mut s).is_empty(), "once while it stays silent");
        s.hostops.beats.insert(me.clone(), 1);
        assert!(tick(&mut s).is_empty(), "it beat");
        assert!(tick(&mut s).is_empty());
        assert_eq!(tick(&mut s), alert, "silent again");
    }
}
