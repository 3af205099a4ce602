//! A C host's module table as the engine's [`Host`]: `CHost::call` matches
//! each [`HostCall`] onto its `pmix_server_module_t` slot, one file per family of slots.
//! Each slot lends the host malloc'd C copies of its arguments (`lend::Lent`) that stay
//! alive until the host's completion callback ran; each completion callback copies the
//! host's answer and re-enters the engine on the progress thread (`lend::complete`).
//!
//! Families: `lifecycle` (client connected/finalized, abort), `modex` (fence, direct
//! modex), `connect` (connect, disconnect, spawn), `pubsub` (publish, lookup,
//! unpublish), `services` (query, log, job control, events), `tools` (tool
//! connection, IO forwarding), `groups` (groups, fabrics), `resources`
//! (credentials, allocation, monitoring, sessions, resource blocks).

mod connect;
mod groups;
mod lend;
mod lifecycle;
mod modex;
mod pubsub;
mod resources;
mod services;
mod tools;

use pmix_core::server::{Host, HostCall, HostReply};
use pmix_core::{Info, ProcId, Result};
use pmix_sys as sys;

/// The module table every slot function reads its function pointer from.
type Module = sys::pmix_server_module_t;

/// The host's upcall table (28 or 32 slots copied at `PMIx_server_init`; the rest NULL).
pub struct CHost {
    /// The copied table.
    pub module: sys::pmix_server_module_t,
}

/// Whether the host has a slot for `c`; without one, the engine's default answers (as
/// OpenPMIx answers for a NULL slot).
fn serves(m: &Module, c: &HostCall) -> bool {
    match c {
        HostCall::ClientFinalized { .. } => m.client_finalized.is_some(),
        HostCall::Abort { .. } => m.abort.is_some(),
        HostCall::Fence { .. } => m.fence_nb.is_some(),
        HostCall::DirectModex { .. } => m.direct_modex.is_some(),
        HostCall::Connect { .. } => m.connect.is_some(),
        HostCall::Disconnect { .. } => m.disconnect.is_some(),
        HostCall::Spawn { .. } => m.spawn.is_some(),
        HostCall::Publish { .. } => m.publish.is_some(),
        HostCall::Lookup { .. } => m.lookup.is_some(),
        HostCall::Unpublish { .. } => m.unpublish.is_some(),
        HostCall::Query { .. } => m.query.is_some(),
        HostCall::Log { .. } => m.log.is_some(),
        HostCall::JobControl { .. } => m.job_control.is_some(),
        HostCall::Group { .. } => m.group.is_some(),
        HostCall::IofPull { .. } => m.iof_pull.is_some(),
        HostCall::PushStdin { .. } => m.push_stdin.is_some(),
        HostCall::ToolConnected { .. } => m.tool_connected2.is_some() || m.tool_connected.is_some(),
        HostCall::GetCredential { .. } => m.get_credential.is_some(),
        HostCall::ValidateCredential { .. } => m.validate_credential.is_some(),
        HostCall::Allocate { .. } => m.allocate.is_some(),
        HostCall::Monitor { .. } => m.monitor.is_some(),
        HostCall::SessionControl { .. } => m.session_control.is_some(),
        HostCall::Fabric { .. } => m.fabric.is_some(),
        HostCall::ResourceBlock { .. } => m.resource_block.is_some(),
    }
}

impl CHost {
    /// The slots of the collectives, the client lifecycle and the dynamic operations.
    fn call_job(&self, c: HostCall) -> Result<HostReply> {
        let m = &self.module;
        match c {
            HostCall::ClientFinalized { proc_, done } => {
                lifecycle::client_finalized(m, &proc_, done)
            }
            HostCall::Abort {
                proc_,
                status,
                msg,
                targets,
                done,
            } => lifecycle::abort(m, &proc_, status, &msg, &targets, done),
            HostCall::Fence {
                procs,
                info,
                data,
                done,
            } => modex::fence_nb(m, &procs, &info, &data, done),
            HostCall::DirectModex { proc_, info, done } => {
                modex::direct_modex(m, &proc_, &info, done)
            }
            HostCall::Connect {
                procs, info, done, ..
            } => connect::connect(m, &procs, &info, done),
            HostCall::Disconnect { procs, info, done } => {
                connect::disconnect(m, &procs, &info, done)
            }
            HostCall::Spawn {
                requester,
                job_info,
                apps,
                done,
            } => connect::spawn(m, &requester, &job_info, &apps, done),
            HostCall::Publish { proc_, info, done } => pubsub::publish(m, &proc_, &info, done),
            HostCall::Lookup {
                proc_,
                keys,
                info,
                done,
            } => pubsub::lookup(m, &proc_, &keys, &info, done),
            HostCall::Unpublish {
                proc_,
                keys,
                info,
                done,
            } => pubsub::unpublish(m, &proc_, &keys, &info, done),
            other => self.call_services(other),
        }
    }

    /// The slots of the services, tools, IO forwarding, groups and resources.
    fn call_services(&self, c: HostCall) -> Result<HostReply> {
        let m = &self.module;
        match c {
            HostCall::Query {
                proc_,
                queries,
                done,
            } => services::query(m, &proc_, &queries, done),
            HostCall::Log {
                proc_,
                data,
                directives,
                done,
            } => services::log(m, &proc_, &data, &directives, done),
            HostCall::JobControl {
                proc_,
                targets,
                directives,
                done,
            } => services::job_control(m, &proc_, &targets, &directives, done),
            HostCall::Group {
                construct,
                grp,
                procs,
                info,
                done,
            } => groups::group(m, construct, &grp, &procs, &info, done),
            HostCall::Fabric {
                proc_,
                op,
                info,
                done,
            } => groups::fabric(m, &proc_, op, &info, done),
            HostCall::IofPull {
                procs,
                channels,
                directives,
                done,
            } => tools::iof_pull(m, &procs, channels, &directives, done),
            HostCall::PushStdin {
                source,
                targets,
                directives,
                data,
                done,
            } => tools::push_stdin(m, &source, &targets, &directives, data.as_deref(), done),
            HostCall::ToolConnected { info, done, .. } => tools::tool_connected(m, &info, done),
            other => self.call_resources(other),
        }
    }

    /// The slots behind the requests a server only relays.
    fn call_resources(&self, c: HostCall) -> Result<HostReply> {
        let m = &self.module;
        match c {
            HostCall::GetCredential {
                proc_,
                peer,
                directives,
                done,
            } => resources::get_credential(m, &proc_, peer, &directives, done),
            HostCall::ValidateCredential {
                proc_,
                cred,
                directives,
                done,
                ..
            } => resources::validate_credential(m, &proc_, &cred, &directives, done),
            HostCall::Allocate {
                proc_,
                directive,
                info,
                done,
            } => resources::allocate(m, &proc_, directive, &info, done),
            HostCall::Monitor {
                proc_,
                monitor,
                error,
                directives,
                done,
            } => resources::monitor(m, &proc_, &monitor, error, &directives, done),
            HostCall::SessionControl {
                proc_,
                session,
                directives,
                done,
            } => resources::session_control(m, &proc_, session, &directives, done),
            HostCall::ResourceBlock {
                proc_,
                directive,
                block,
                units,
                info,
                done,
            } => resources::resource_block(
                m,
                &proc_,
                directive,
                block.as_deref(),
                &units,
                &info,
                done,
            ),
            other => {
                log::error!("C host: {} reached no slot", other.name());
                other.unsupported()
            }
        }
    }
}

impl Host for CHost {
    fn call(&self, c: HostCall) -> Result<HostReply> {
        if !serves(&self.module, &c) {
            return c.unsupported();
        }
        self.call_job(c)
    }

    fn client_connected(&self, p: &ProcId) -> Result<()> {
        lifecycle::client_connected(&self.module, p)
    }

    fn notify_event(&self, source: &ProcId, status: i32, range: u8, info: &[Info]) {
        services::notify_event(&self.module, status, source, range, info);
    }

    fn finalize_raises_term_wo_sync(&self) -> bool {
        false
    }
}
