//! Starting the daemons, the calls the front end makes of one node's server, and
//! shutting them down.

use super::super::link::{self, Call, Down, Up};
use super::{
    ready_id, status_err, CallReply, Fabric, FabricConfig, Shared, CALL_TIMEOUT, EXIT_GRACE,
};
use crate::host::Events;
use crate::job::Layout;
use pmix_core::{Error, Nspace, ProcId, Result};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

impl Fabric {
    /// Start one daemon per node of `layout` and their servers; `events` receives what
    /// the servers report about the ranks.
    ///
    /// # Errors
    /// A message when a daemon cannot be started or its server does not come up.
    pub fn start(
        layout: &Layout,
        cfg: FabricConfig,
        events: Arc<Events>,
    ) -> std::result::Result<Fabric, String> {
        let exe = std::env::current_exe()
            .map_err(|e| format!("cannot find pmixrun's own executable: {e}"))?;
        let mut children = Vec::new();
        let mut links = Vec::new();
        let mut streams = Vec::new();
        let kill_all = |children: &mut Vec<Child>| {
            for c in children.iter_mut() {
                let _ = c.kill();
                let _ = c.wait();
            }
        };
        for node in &layout.nodes {
            let (ours, theirs) =
                UnixStream::pair().map_err(|e| format!("cannot make a link: {e}"))?;
            let mut cmd = Command::new(&exe);
            cmd.arg("--node-daemon")
                .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                // Its own process group: a terminal's ^C reaches the front end, which
                // ends the job and then its daemons, in that order.
                .process_group(0);
            for (n, k, v) in &cfg.node_env {
                if *n == node.id {
                    cmd.env(k, v);
                }
            }
            let child = match cmd.spawn() {
                Ok(c) => c,
                Err(e) => {
                    kill_all(&mut children);
                    return Err(format!("cannot start the daemon of node {}: {e}", node.id));
                }
            };
            children.push(child);
            let w = ours
                .try_clone()
                .and_then(|w| link::writer(w, &format!("link-node{}", node.id)));
            match w {
                Ok(tx) => links.push(tx),
                Err(e) => {
                    kill_all(&mut children);
                    return Err(format!("cannot write to node {}: {e}", node.id));
                }
            }
            streams.push(ours);
        }
        let shared = Shared::new(layout, links, events, cfg.report_modex);
        let mut readers = Vec::new();
        let mut ready = Vec::new();
        for (i, stream) in streams.into_iter().enumerate() {
            let (tx, rx) = mpsc::channel();
            shared.lock().calls.insert(ready_id(i), (i, tx));
            ready.push(rx);
            let sh = shared.clone();
            let t = std::thread::Builder::new()
                .name(format!("node{i}-reader"))
                .spawn(move || {
                    let r = link::read_loop::<Up>(stream, |m| {
                        sh.handle(i, m);
                        true
                    });
                    sh.closed(i, r);
                });
            match t {
                Ok(t) => readers.push(t),
                Err(e) => {
                    let f = Fabric {
                        shared,
                        children: Mutex::new(children),
                        readers: Mutex::new(readers),
                    };
                    f.shutdown();
                    return Err(format!("cannot start a reader thread: {e}"));
                }
            }
        }
        let mut fabric = Fabric {
            shared,
            children: Mutex::new(children),
            readers: Mutex::new(readers),
        };
        if let Err(e) = fabric.set_up_nodes(layout, &cfg, ready) {
            fabric.shutdown();
            return Err(e);
        }
        Ok(fabric)
    }

    /// Give every node's daemon its setup (node id, host name, server name, scratch
    /// directory) and wait for each server's word that it runs (on `ready`).
    pub(super) fn set_up_nodes(
        &mut self,
        layout: &Layout,
        cfg: &FabricConfig,
        ready: Vec<mpsc::Receiver<CallReply>>,
    ) -> std::result::Result<(), String> {
        for (i, node) in layout.nodes.iter().enumerate() {
            let server = Nspace::new(format!("{}.server", layout.nspace))
                .map(|n| ProcId::new(n, node.id))
                .map_err(|e| format!("cannot name node {}'s server: {e}", node.id))?;
            let tmpdir = cfg
                .node_dirs
                .get(i)
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            self.shared.send(
                i,
                &Down::Setup {
                    node: node.id,
                    hostname: node.hostname.clone(),
                    server,
                    tmpdir,
                },
            );
        }
        for (i, rx) in ready.into_iter().enumerate() {
            let r = match rx.recv_timeout(CALL_TIMEOUT) {
                Ok((0, _, _)) => Ok(()),
                Ok((_, msg, _)) => Err(msg),
                Err(_) => Err("no answer".to_string()),
            };
            if let Err(why) = r {
                return Err(format!("the PMIx server of node {i} did not start: {why}"));
            }
        }
        Ok(())
    }

    /// Send a request to a node's server and wait for the answer.
    pub(super) fn call(&self, node: usize, c: Call) -> Result<Vec<(String, String)>> {
        let (tx, rx) = mpsc::channel();
        let id = {
            let mut st = self.shared.lock();
            if st.lost_nodes.contains(&node) {
                // (A spawn placed on a node lost meanwhile, say: not 30 s of waiting.)
                return Err(Error::new(
                    pmix_sys::PMIX_ERR_UNREACH,
                    format!("node {node}'s server did not answer: the node is lost"),
                ));
            }
            st.next += 1;
            let id = st.next;
            st.calls.insert(id, (node, tx));
            id
        };
        self.shared.send(node, &Down::Call { id, call: c });
        match rx.recv_timeout(CALL_TIMEOUT) {
            Ok((0, _, env)) => Ok(env),
            Ok((status, msg, _)) => Err(status_err(status, msg)),
            Err(_) => {
                self.shared.lock().calls.remove(&id);
                Err(Error::new(
                    pmix_sys::PMIX_ERR_UNREACH,
                    format!("node {node}'s server did not answer"),
                ))
            }
        }
    }

    /// Tell every daemon to finalize its server and exit; wait for them (killing any
    /// that do not exit in time).
    pub fn shutdown(&self) {
        self.shared.lock().closing = true;
        for n in 0..self.shared.links.len() {
            self.shared.send(n, &Down::Shutdown);
        }
        let until = Instant::now() + EXIT_GRACE;
        let mut children = self.children.lock().unwrap_or_else(|p| p.into_inner());
        for (i, c) in children.iter_mut().enumerate() {
            loop {
                match c.try_wait() {
                    Ok(Some(st)) => {
                        if !st.success() {
                            log::warn!("node {i}'s daemon ended with {st}");
                        }
                        break;
                    }
                    Ok(None) if Instant::now() < until => {
                        std::thread::sleep(Duration::from_millis(10))
                    }
                    _ => {
                        log::warn!("node {i}'s daemon did not exit; killing it");
                        let _ = c.kill();
                        let _ = c.wait();
                        break;
                    }
                }
            }
        }
        children.clear();
        drop(children);
        let readers: Vec<JoinHandle<()>> = self
            .readers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        for t in readers {
            let _ = t.join();
        }
    }
}

impl Drop for Fabric {
    fn drop(&mut self) {
        let running = !self
            .children
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty();
        if running && !self.shared.lock().closing {
            self.shutdown();
        }
    }
}
