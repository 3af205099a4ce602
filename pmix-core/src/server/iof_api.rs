//! The server's I/O-forwarding API for its host and for the server process itself:
//! [`Server::iof_deliver`] (`PMIx_server_IOF_deliver`), and `PMIx_IOF_pull`,
//! `PMIx_IOF_deregister` and `PMIx_IOF_push` called in a server process that is not a
//! client of another server. The state machine side is `server/iof.rs`.

use super::{HostCall, HostDone, Server};
use crate::client::Callback;
use crate::error::{Error, Result};
use crate::iof::{self, Channels, IofChunk, IofHandler, LocalOutput};
use crate::value::{Info, ProcId};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;

/// The largest chunk handed out whole: larger deliveries are split (in order, the infos
/// with the last piece), so no message comes near the protocol's frame limit or the
/// cache's byte bound.
const PIECE: usize = 4 << 20;

/// Whether a server writes delivered output to its own stdout/stderr by default: yes,
/// unless the host says `PMIX_IOF_LOCAL_OUTPUT` = false at init, or the process was
/// started by a tool that collects its output (OpenPMIx's rule).
pub(super) fn local_output_default(info: &[Info]) -> Option<LocalOutput> {
    use crate::params;
    let by_tool = params::is_set(params::PMIX_LAUNCHER_RNDZ_URI)
        || params::is_set(params::PMIX_KEEPALIVE_PIPE);
    iof::flag(info, ak::PMIX_IOF_LOCAL_OUTPUT)
        .unwrap_or(!by_tool)
        .then(LocalOutput::default)
}

impl Server {
    /// `PMIx_server_IOF_deliver`: output `data` that `source` wrote on `channel`. It goes
    /// to every registration that wants it (or, if none does, into the cache for a later
    /// one), and, unless turned off, to this process's own stdout/stderr. A zero-byte
    /// chunk marks the end of the stream (the host adds `PMIX_IOF_COMPLETE` to `info`).
    /// Without `done` the call returns once the chunk is handed out; with it, `done`
    /// runs on the progress thread afterwards.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for the stdin channel (stdin goes the other way),
    /// `PMIX_ERR_WOULD_BLOCK` (blocking form on the progress thread),
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped.
    pub fn iof_deliver(
        &self,
        source: &ProcId,
        channel: Channels,
        data: Vec<u8>,
        info: Vec<Info>,
        done: Option<HostDone<()>>,
    ) -> Result<()> {
        if channel & sys::PMIX_FWD_STDIN_CHANNEL != 0 {
            log::warn!("PMIx_server_IOF_deliver: stdin is not delivered this way");
            return Err(Error::bad_param("stdin cannot be delivered as output"));
        }
        crate::reactor::check_serviceable("PMIx_server_IOF_deliver")?;
        if done.is_none() {
            crate::reactor::would_block("PMIx_server_IOF_deliver")?;
        }
        if iof::flag(&info, ak::PMIX_IOF_LOCAL_OUTPUT) != Some(false) {
            let mut lo = self.local_output.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(lo) = lo.as_mut() {
                lo.write(source, channel, &data);
            }
        }
        let mut chunks = Vec::new();
        let mut rest = data;
        while rest.len() > PIECE {
            let tail = rest.split_off(PIECE);
            chunks.push(IofChunk {
                source: source.clone(),
                channel,
                info: Vec::new(),
                data: rest,
            });
            rest = tail;
        }
        chunks.push(IofChunk {
            source: source.clone(),
            channel,
            info,
            data: rest,
        });
        let hand_out = move |sh: &std::sync::Arc<super::Shared>, ctx: &mut crate::reactor::Ctx| {
            sh.step(ctx, |s, out| {
                for c in chunks {
                    s.iof_deliver(c, out);
                }
            })
        };
        match done {
            Some(d) => self.post(move |sh, ctx| {
                hand_out(sh, ctx);
                d(Ok(()));
            }),
            None => self.run("PMIx_server_IOF_deliver", move |sh, ctx| {
                hand_out(sh, ctx);
                Ok(())
            }),
        }
    }

    /// Set how many messages the cache of undelivered output keeps (0: none; default
    /// `PMIX_MCA_pmix_max_iof_cache`, else 1048576, and never more than 16 MiB).
    pub fn set_iof_cache_limit(&self, msgs: usize) {
        self.shared.lock().set_iof_cache_limit(msgs);
    }

    /// Chunks waiting in the cache of undelivered output.
    pub fn iof_cached(&self) -> usize {
        self.shared.lock().iof_cached()
    }

    /// `PMIx_IOF_pull` in the server process: `handler` receives, on the progress thread,
    /// what `procs` write on `channels` (starting with what the cache holds for it). `cb`
    /// receives the registration's id, on the progress thread, before any chunk.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped; the registration's own
    /// errors (`PMIX_ERR_NOT_SUPPORTED` for stdin, `PMIX_ERR_BAD_PARAM` for no procs) go
    /// to `cb`.
    pub fn iof_pull_local(
        &self,
        procs: Vec<ProcId>,
        channels: Channels,
        handler: IofHandler,
        cb: Callback<u64>,
    ) -> Result<()> {
        self.post(move |sh, ctx| {
            let mut out = Vec::new();
            let r = sh.lock().iof_pull_local(procs, channels, handler, &mut out);
            cb(r);
            sh.exec(ctx, out);
        })
    }

    /// `PMIx_IOF_deregister` in the server process; `cb` runs on the progress thread.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped; an unknown id
    /// (`PMIX_ERR_BAD_PARAM`) goes to `cb`.
    pub fn iof_deregister_local(&self, id: u64, cb: Callback<()>) -> Result<()> {
        self.post(move |sh, _| {
            let r = sh.lock().iof_deregister_local(id);
            cb(r);
        })
    }

    /// `PMIx_IOF_push` in the server process: the host's `push_stdin` with this server as
    /// the source; `cb` receives the host's answer.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` for `PMIX_IOF_PUSH_STDIN` without data,
    /// `PMIX_ERR_NOT_AVAILABLE` if the progress thread has stopped; the host's refusal
    /// (`PMIX_ERR_NOT_SUPPORTED` without `push_stdin`) goes to `cb`.
    pub fn iof_push_local(
        &self,
        targets: Vec<ProcId>,
        directives: Vec<Info>,
        data: Option<Vec<u8>>,
        cb: Callback<()>,
    ) -> Result<()> {
        if data.is_none() {
            // Directives only, as in a client (see `Client::iof_push`).
            if iof::flag(&directives, ak::PMIX_IOF_PUSH_STDIN) == Some(true) {
                log::warn!("PMIx_IOF_push: forwarding our own stdin is not supported");
                return Err(Error::not_supported("PMIX_IOF_PUSH_STDIN"));
            }
            return self.post(move |_, _| cb(Ok(())));
        }
        let me = self.id.clone();
        self.post(move |sh, ctx| {
            sh.upcall(
                ctx,
                |done| HostCall::PushStdin {
                    source: me,
                    targets,
                    directives,
                    data,
                    done,
                },
                || Ok(()),
                Box::new(move |_, _, r| cb(r)),
            )
        })
    }

    /// Write out what the server's own copy of delivered output still holds back (the
    /// unterminated ends of lines).
    pub(super) fn flush_local_output(&self) {
        let mut lo = self.local_output.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(lo) = lo.as_mut() {
            lo.flush();
        }
    }
}
