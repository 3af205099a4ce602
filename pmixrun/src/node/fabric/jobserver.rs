//! The front end as the launcher's [`JobServer`]: each request goes to the node
//! servers it concerns.

use super::super::link::{Call, Down};
use super::{Fabric, HOSTING_NODE_KEYS};
use crate::job::{self, Layout};
use crate::launch::JobServer;
use crate::sys::Pid;
use pmix_core::{Info, Nspace, ProcId, Result};

impl JobServer for Fabric {
    /// A job a rank spawned is placed, whole, on the node of that rank (its
    /// `PMIX_PARENT_ID`); the job on the command line is registered everywhere.
    fn register_nspace(&self, nspace: &Nspace, nlocal: u32, info: Vec<Info>) -> Result<()> {
        if nspace != &self.shared.nspace {
            let parent = info
                .iter()
                .find(|i| i.key.as_str() == pmix_sys::attrs::keys::PMIX_PARENT_ID)
                .and_then(|i| match &i.value {
                    pmix_core::Value::Proc(Some(p)) => self.shared.node_of_proc(p),
                    _ => None,
                })
                .unwrap_or(0);
            self.shared
                .spawned
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(nspace.clone(), (parent, nlocal));
            // The other nodes know the job too (their ranks resolve it and read its job
            // data), as one with no rank of theirs: without the hosting node's own keys.
            let elsewhere: Vec<Info> = info
                .iter()
                .filter(|i| !HOSTING_NODE_KEYS.contains(&i.key.as_str()))
                .cloned()
                .collect();
            self.call(
                parent,
                Call::RegisterNspace {
                    nspace: nspace.clone(),
                    nlocal,
                    info,
                },
            )?;
            for n in (0..self.shared.nodes.len()).filter(|&n| n != parent) {
                let call = Call::RegisterNspace {
                    nspace: nspace.clone(),
                    nlocal: 0,
                    info: elsewhere.clone(),
                };
                if let Err(e) = self.call(n, call) {
                    log::warn!("node {n} cannot know spawned job {nspace}: {e}");
                }
            }
            return Ok(());
        }
        for n in 0..self.shared.nodes.len() {
            self.call(
                n,
                Call::RegisterNspace {
                    nspace: nspace.clone(),
                    nlocal,
                    info: info.clone(),
                },
            )?;
        }
        Ok(())
    }
    fn register_client(&self, proc: &ProcId, uid: u32, gid: u32) -> Result<()> {
        self.call(
            self.node_for(proc)?,
            Call::RegisterClient {
                proc_: proc.clone(),
                uid,
                gid,
            },
        )
        .map(|_| ())
    }
    fn setup_fork(&self, proc: &ProcId) -> Result<Vec<(String, String)>> {
        self.call(
            self.node_for(proc)?,
            Call::SetupFork {
                proc_: proc.clone(),
            },
        )
    }
    /// The process ended for good (the launcher reaped it): every server forgets it
    /// (its own as a client; the others stop waiting for it in collectives) and the
    /// rounds that include it fail.
    fn deregister_client(&self, proc: &ProcId) {
        for n in 0..self.shared.links.len() {
            self.shared.deregister_at(n, proc);
        }
        self.shared.proc_ended(proc);
        self.shared.monitor_stop(proc, None);
    }
    fn deregister_nspace(&self, nspace: &Nspace) {
        for n in 0..self.shared.links.len() {
            self.shared.send(
                n,
                &Down::Call {
                    id: 0,
                    call: Call::DeregisterNspace {
                        nspace: nspace.clone(),
                    },
                },
            );
        }
    }
    /// An event the launcher raises (a job's end, a rank's termination) goes to every
    /// node's server, which delivers it to its clients in range.
    fn notify(&self, status: i32, source: &ProcId, range: u8, info: Vec<Info>) {
        for n in 0..self.shared.links.len() {
            self.shared.send(
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
    /// Output a node's server pulled goes to that node.
    fn iof_deliver(&self, source: &ProcId, channel: u16, data: Vec<u8>, info: Vec<Info>) {
        for (n, subs) in self.shared.iof.iter().enumerate() {
            if subs.wants(source, channel) {
                self.shared.send(
                    n,
                    &Down::IofDeliver {
                        source: source.clone(),
                        channel,
                        data: data.clone(),
                        info: info.clone(),
                    },
                );
            }
        }
    }
    /// Each node's server gets its own registration (its node's keys at job level).
    fn register_job(&self, layout: &Layout, pids: &[Pid]) -> std::result::Result<(), String> {
        for (i, node) in layout.nodes.iter().enumerate() {
            let infos = job::registration_for(layout, pids, i)
                .map_err(|e| format!("cannot describe the job for node {}: {e}", node.id))?;
            let nlocal = u32::try_from(node.ranks.len()).unwrap_or(u32::MAX);
            self.call(
                i,
                Call::RegisterNspace {
                    nspace: layout.nspace.clone(),
                    nlocal,
                    info: infos,
                },
            )
            .map_err(|e| format!("the PMIx server of node {} refused the job: {e}", node.id))?;
        }
        Ok(())
    }
}
