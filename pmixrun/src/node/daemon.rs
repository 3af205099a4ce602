//! A node daemon (`pmixrun --node-daemon`, started by the front end, never by hand): one
//! simulated node's PMIx server. Its standard input is its link to the front end. It
//! starts the server described by the first message ([`Down::Setup`]), then serves the
//! front end's requests; its [`Host`] turns every upcall of the server into a message to
//! the front end, which plays the part of the host's network between nodes.
//!
//! The daemon ends when the front end says so ([`Down::Shutdown`]) or goes away (end of
//! file), finalizing the server either way.

use super::link::{self, Call, Down, Up};
use super::upcall::{self, Finish};
use pmix_core::server::{Host, HostCall, HostDone, HostReply, Server, ServerConfig};
use pmix_core::{Error, Info, ProcId, Result, Value};
use std::collections::HashMap;
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Completions the front end will deliver later, by id.
#[derive(Default)]
struct Pending {
    fences: HashMap<u64, HostDone<Vec<u8>>>,
    dmodex: HashMap<u64, HostDone<Vec<u8>>>,
    aborts: HashMap<u64, HostDone<()>>,
    finalized: HashMap<u64, HostDone<()>>,
    upcalls: HashMap<u64, Finish>,
}

/// The daemon's [`Host`]: every upcall becomes an [`Up`] message.
struct NodeHost {
    tx: link::Sender,
    next: AtomicU64,
    /// Where this node's server counts its context ids from (set before it starts).
    ctx_base: AtomicU64,
    pending: Mutex<Pending>,
}

impl NodeHost {
    fn id(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed) + 1
    }
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `info` with the fence tag set to `tag` (a connect or disconnect must not match a
/// fence over the same processes).
fn tagged(info: &[Info], tag: &str) -> Vec<Info> {
    let key = pmix_core::protocol::FENCE_TAG;
    let mut v: Vec<Info> = info
        .iter()
        .filter(|i| i.key.as_str() != key)
        .cloned()
        .collect();
    if let Ok(i) = Info::new(key, Value::string(tag)) {
        v.push(i);
    }
    v
}

fn outcome(status: i32, what: &str) -> Result<()> {
    if status == pmix_sys::PMIX_SUCCESS {
        Ok(())
    } else {
        Err(Error::new(
            status,
            format!("{what} failed on the front end"),
        ))
    }
}

impl NodeHost {
    /// A fence (or a connect or disconnect spanning nodes, which travels like one: the
    /// front end matches the nodes' blobs by participants and tag, and hands each the
    /// concatenation).
    fn fence(
        &self,
        procs: Vec<ProcId>,
        info: Vec<Info>,
        data: Vec<u8>,
        done: HostDone<Vec<u8>>,
    ) -> Result<HostReply> {
        let id = self.id();
        self.lock().fences.insert(id, done);
        self.tx.send(&Up::Fence {
            id,
            procs,
            info,
            data,
        });
        Ok(HostReply::Pending)
    }
}

impl Host for NodeHost {
    fn call(&self, c: HostCall) -> Result<HostReply> {
        match c {
            // The client is released once the front end has recorded the finalization,
            // so the launcher can never see the process exit before it knows it
            // finalized.
            HostCall::ClientFinalized { proc_, done } => {
                let id = self.id();
                self.lock().finalized.insert(id, done);
                self.tx.send(&Up::Finalized { id, proc_ });
            }
            HostCall::Abort {
                proc_,
                status,
                msg,
                targets,
                done,
            } => {
                let id = self.id();
                self.lock().aborts.insert(id, done);
                self.tx.send(&Up::Abort {
                    id,
                    proc_,
                    status,
                    msg,
                    targets,
                });
            }
            HostCall::Fence {
                procs,
                info,
                data,
                done,
            } => return self.fence(procs, info, data, done),
            HostCall::Connect {
                procs,
                info,
                data,
                done,
            } => return self.fence(procs, tagged(&info, "pmixrs.connect"), data, done),
            HostCall::Disconnect { procs, info, done } => {
                let info = tagged(&info, "pmixrs.disconnect");
                let done: HostDone<Vec<u8>> = Box::new(move |r| done(r.map(|_| ())));
                return self.fence(procs, info, Vec::new(), done);
            }
            HostCall::DirectModex { proc_, info, done } => {
                let id = self.id();
                self.lock().dmodex.insert(id, done);
                self.tx.send(&Up::Dmodex { id, proc_, info });
            }
            // Publish, lookup, log, job control, groups and monitors of ranks elsewhere
            // are the front end's: it serves them for every node, as pmixrun's host
            // does for one.
            other => match upcall::split(other) {
                Ok((call, finish)) => {
                    let id = self.id();
                    self.lock().upcalls.insert(id, finish);
                    self.tx.send(&Up::Upcall { id, call });
                }
                Err(other) => return (*other).unsupported(),
            },
        }
        Ok(HostReply::Pending)
    }
    fn client_connected(&self, proc: &ProcId) -> Result<()> {
        self.tx.send(&Up::Connected(proc.clone()));
        Ok(())
    }
    fn client_lost(&self, proc: &ProcId) {
        self.tx.send(&Up::Lost(proc.clone()));
    }
    fn context_id_base(&self) -> u64 {
        self.ctx_base.load(Ordering::Relaxed)
    }
    fn notify_event(&self, source: &ProcId, status: i32, range: u8, info: &[Info]) {
        self.tx.send(&Up::Notify {
            source: source.clone(),
            status,
            range,
            info: info.to_vec(),
        });
    }
}

fn status_of(r: &Result<()>) -> (i32, String) {
    match r {
        Ok(()) => (pmix_sys::PMIX_SUCCESS, String::new()),
        Err(e) => (pmix_core::protocol::status_of(e), e.to_string()),
    }
}

/// Carry out one request of the front end.
fn call(server: &Server, c: Call) -> (Result<()>, Vec<(String, String)>) {
    match c {
        Call::RegisterNspace {
            nspace,
            nlocal,
            info,
        } => (server.register_nspace(&nspace, nlocal, info), Vec::new()),
        Call::RegisterClient { proc_, uid, gid } => {
            (server.register_client(&proc_, uid, gid), Vec::new())
        }
        Call::SetupFork { proc_ } => match server.setup_fork(&proc_) {
            Ok(env) => (Ok(()), env),
            Err(e) => (Err(e), Vec::new()),
        },
        Call::DeregisterClient { proc_ } => {
            server.deregister_client(&proc_);
            (Ok(()), Vec::new())
        }
        Call::DeregisterNspace { nspace } => {
            server.deregister_nspace(&nspace);
            (Ok(()), Vec::new())
        }
    }
}

fn blob_result(status: i32, data: Vec<u8>, what: &str) -> Result<Vec<u8>> {
    outcome(status, what).map(|()| data)
}

/// The daemon's state between messages of the front end.
struct Daemon {
    host: Arc<NodeHost>,
    tx: link::Sender,
    server: Option<Server>,
    node: u32,
}

impl Daemon {
    /// Handle one message of the front end; false to stop reading.
    fn handle(&mut self, msg: Down) -> bool {
        match msg {
            Down::Setup {
                node,
                hostname,
                server,
                tmpdir,
            } => self.setup(node, hostname, server, tmpdir),
            Down::Call { id, call: c } => {
                let (r, env) = match &self.server {
                    Some(s) => call(s, c),
                    None => (
                        Err(Error::new(pmix_sys::PMIX_ERR_INIT, "no server")),
                        Vec::new(),
                    ),
                };
                if id != 0 {
                    let (status, msg) = status_of(&r);
                    self.tx.send(&Up::Reply {
                        id,
                        status,
                        msg,
                        env,
                    });
                }
            }
            Down::DmodexAsk { id, proc_, info } => self.dmodex_ask(id, proc_, info),
            Down::Notify {
                status,
                source,
                range,
                info,
            } => {
                if let Some(s) = &self.server {
                    if let Err(e) = s.notify_event_range(status, &source, range, info) {
                        log::warn!("node {}: cannot deliver event {status}: {e}", self.node);
                    }
                }
            }
            Down::IofDeliver {
                source,
                channel,
                data,
                info,
            } => {
                if let Some(s) = &self.server {
                    if let Err(e) =
                        s.iof_deliver(&source, channel, data, info, Some(Box::new(|_| {})))
                    {
                        log::debug!("node {}: cannot forward output of {source}: {e}", self.node);
                    }
                }
            }
            Down::Pset { name, members } => {
                if let Some(s) = &self.server {
                    if let Err(e) = s.define_process_set(&name, members) {
                        log::warn!("node {}: cannot define process set {name}: {e}", self.node);
                    }
                }
            }
            Down::MonitorAsk {
                id,
                requester,
                monitor,
                code,
                directives,
            } => self.monitor_ask(id, requester, monitor, code, directives),
            Down::MonitorCancel { requester, id } => {
                if let Some(s) = &self.server {
                    if let Err(e) = s.monitor_cancel_for(&requester, id) {
                        log::debug!(
                            "node {}: cannot cancel monitors of {requester}: {e}",
                            self.node
                        );
                    }
                }
            }
            // Stop reading; the server is finalized by `run`.
            Down::Shutdown => return false,
            other => self.complete(other),
        }
        true
    }

    /// Start this node's server as the front end describes it, and say whether it is up.
    fn setup(&mut self, node: u32, hostname: String, id: ProcId, tmpdir: String) {
        self.node = node;
        // Each node's own groups get ids of their own range: node n counts from
        // (n + 1) << 32, above the front end's (`fabric::serve::FIRST_CTX_ID`, from 1 << 20).
        let base = (u64::from(node) + 1) << 32;
        self.host.ctx_base.store(base, Ordering::Relaxed);
        let cfg = ServerConfig {
            id,
            tmpdir: Some(PathBuf::from(tmpdir)),
            // pmixrun writes the ranks' output itself; the server only forwards it to
            // the clients that pull it.
            info: Info::new(
                pmix_sys::attrs::keys::PMIX_HOSTNAME,
                Value::string(&hostname),
            )
            .into_iter()
            .chain(Info::new(
                pmix_sys::attrs::keys::PMIX_IOF_LOCAL_OUTPUT,
                Value::Bool(false),
            ))
            .collect(),
        };
        match Server::start(cfg, self.host.clone()) {
            Ok(s) => {
                log::debug!("node {node} ({hostname}): server {} up", s.uri());
                s.set_local_heartbeats(true);
                self.server = Some(s);
                self.tx.send(&Up::Ready {
                    status: pmix_sys::PMIX_SUCCESS,
                    msg: String::new(),
                });
            }
            Err(e) => self.tx.send(&Up::Ready {
                status: pmix_core::protocol::status_of(&e),
                msg: e.to_string(),
            }),
        }
    }

    /// Another node asks for one of our processes' data.
    fn dmodex_ask(&self, id: u64, proc_: ProcId, info: Vec<Info>) {
        let tx2 = self.tx.clone();
        let answer: HostDone<Vec<u8>> = Box::new(move |r| {
            let (status, data) = match r {
                Ok(d) => (pmix_sys::PMIX_SUCCESS, d),
                Err(e) => (pmix_core::protocol::status_of(&e), Vec::new()),
            };
            tx2.send(&Up::DmodexAnswer { id, status, data });
        });
        match &self.server {
            Some(s) => {
                if let Err(e) = s.dmodex_request_info(&proc_, &info, answer) {
                    self.tx.send(&Up::DmodexAnswer {
                        id,
                        status: pmix_core::protocol::status_of(&e),
                        data: Vec::new(),
                    });
                }
            }
            None => answer(Err(Error::new(pmix_sys::PMIX_ERR_INIT, "no server"))),
        }
    }

    /// A rank of another node monitors ranks of ours: our server runs the monitor; its
    /// first sample goes back now, its updates as events through the front end.
    fn monitor_ask(
        &self,
        id: u64,
        requester: ProcId,
        monitor: Info,
        code: i32,
        directives: Vec<Info>,
    ) {
        let tx2 = self.tx.clone();
        let answer: HostDone<Vec<Info>> = Box::new(move |r| {
            let (status, results) = match r {
                Ok(v) => (pmix_sys::PMIX_SUCCESS, v),
                Err(e) => (pmix_core::protocol::status_of(&e), Vec::new()),
            };
            tx2.send(&Up::MonitorAnswer {
                id,
                status,
                results,
            });
        });
        let r = match &self.server {
            Some(s) => s.monitor_for(&requester, monitor, code, directives, answer),
            None => {
                answer(Err(Error::new(pmix_sys::PMIX_ERR_INIT, "no server")));
                Ok(())
            }
        };
        if let Err(e) = r {
            self.tx.send(&Up::MonitorAnswer {
                id,
                status: pmix_core::protocol::status_of(&e),
                results: Vec::new(),
            });
        }
    }

    /// The front end completes one of our upcalls.
    fn complete(&self, msg: Down) {
        let node = self.node;
        match msg {
            Down::FenceDone { id, status, data } => {
                let done = self.host.lock().fences.remove(&id);
                match done {
                    Some(d) => d(blob_result(status, data, "fence")),
                    None => log::warn!("node {node}: completion of unknown fence {id}"),
                }
            }
            Down::DmodexDone { id, status, data } => {
                let done = self.host.lock().dmodex.remove(&id);
                match done {
                    Some(d) => d(blob_result(status, data, "direct modex")),
                    None => log::warn!("node {node}: answer to unknown direct modex {id}"),
                }
            }
            Down::AbortDone { id, status } => {
                let done = self.host.lock().aborts.remove(&id);
                if let Some(d) = done {
                    d(outcome(status, "abort"));
                }
            }
            Down::FinalizedSeen { id } => {
                let done = self.host.lock().finalized.remove(&id);
                if let Some(d) = done {
                    d(Ok(()));
                }
            }
            Down::UpcallDone {
                id,
                status,
                msg,
                answer,
            } => {
                let done = self.host.lock().upcalls.remove(&id);
                let r = if status == pmix_sys::PMIX_SUCCESS {
                    Ok(answer)
                } else {
                    Err(Error::new(status, msg))
                };
                match done {
                    Some(d) => d(r),
                    None => log::warn!("node {node}: completion of unknown upcall {id}"),
                }
            }
            _ => log::warn!("node {node}: unexpected message from the front end"),
        }
    }
}

/// Run a node daemon; returns its exit status.
pub fn run() -> i32 {
    let stream = match std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .map(UnixStream::from)
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pmixrun node daemon: no link to the front end on stdin: {e}");
            return 1;
        }
    };
    let tx = match stream
        .try_clone()
        .and_then(|w| link::writer(w, "node-link"))
    {
        Ok(tx) => tx,
        Err(e) => {
            eprintln!("pmixrun node daemon: cannot write to the front end: {e}");
            return 1;
        }
    };
    let host = Arc::new(NodeHost {
        tx: tx.clone(),
        next: AtomicU64::new(0),
        ctx_base: AtomicU64::new(0),
        pending: Mutex::new(Pending::default()),
    });
    let mut d = Daemon {
        host,
        tx,
        server: None,
        node: 0,
    };
    let r = link::read_loop::<Down>(stream, |msg| d.handle(msg));
    if let Err(e) = r {
        log::warn!("node {}: link to the front end failed: {e}", d.node);
    }
    if let Some(s) = d.server.take() {
        s.finalize();
    }
    drop(d);
    0
}
