//! The supervision loop: events, exits, timers, and the ranks' output, until every job
//! has ended.

use super::{JobServer, Launcher, DRAIN, TICK};
use crate::output::Stream;
use crate::sys;
use pmix_core::ProcId;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::time::Instant;

impl Launcher {
    /// Read what is ready on one output pipe; returns false at end of file.
    pub(super) fn pump(
        fd: BorrowedFd<'_>,
        stream: &mut Stream,
        sink: &mut dyn Write,
        mut raw: Option<&mut Vec<u8>>,
    ) -> bool {
        let mut buf = [0u8; 65536];
        let mut out = Vec::new();
        let now = Instant::now();
        let open = loop {
            match sys::read(fd, &mut buf) {
                Ok(0) => break false,
                Ok(n) => {
                    let got = buf.get(..n).unwrap_or(&[]);
                    if let Some(r) = raw.as_deref_mut() {
                        r.extend_from_slice(got);
                    }
                    stream.feed(got, now, &mut out);
                    if n < buf.len() {
                        break true;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break true,
                Err(_) => break false,
            }
        };
        if !open {
            stream.finish(&mut out);
        }
        if !out.is_empty() {
            // A reader that went away must not stop the job; keep draining the ranks.
            let _ = sink.write_all(&out);
            let _ = sink.flush();
        }
        open
    }

    /// Supervise every job to its end; returns pmixrun's exit status. `server` is told
    /// of every rank reaped (it can never take part in anything again).
    pub fn run(&mut self, server: &dyn JobServer) -> i32 {
        let started = Instant::now();
        let deadline = self.cfg.timeout.map(|t| started + t);
        let mut drain_until: Option<Instant> = None;
        loop {
            self.handle_events();
            self.reap();
            for p in std::mem::take(&mut self.reaped) {
                server.deregister_client(&p);
            }
            self.handle_signals();
            let now = Instant::now();
            self.on_timers(now, deadline);
            let outputs_open = self
                .children
                .iter()
                .any(|c| c.stdout.is_some() || c.stderr.is_some());
            if self.nrunning() == 0 && self.exits_pending.is_empty() {
                let until = *drain_until.get_or_insert(now + DRAIN);
                if !outputs_open || now >= until {
                    break;
                }
            }
            let ready = self.wait_ready(now, [deadline, drain_until]);
            self.pump_outputs(&ready);
            self.flush_held(Some(Instant::now()));
        }
        // Output still held open by descendants is dropped with the pipes; a partial
        // line already read goes out.
        self.flush_held(None);
        self.exit_status()
    }

    /// Act on what is due at `now`: lost connections past their grace, clean exits the
    /// server did not settle in time, the job's `--timeout` (`deadline`) and the
    /// SIGKILL after the grace period.
    fn on_timers(&mut self, now: Instant, deadline: Option<Instant>) {
        let (due, pending): (Vec<_>, Vec<_>) =
            self.lost.drain(..).partition(|(_, _, at)| now >= *at);
        self.lost = pending;
        for (job, rank, _) in due {
            if self.jobs.get_mut(job).is_some_and(|j| j.sup.lost(rank)) {
                self.begin_kill(job);
            }
        }
        let (due, pending): (Vec<_>, Vec<_>) = self
            .exits_pending
            .drain(..)
            .partition(|(_, _, _, at)| now >= *at);
        self.exits_pending = pending;
        for (job, rank, exit, _) in due {
            log::warn!(
                "rank {rank} exited; the server did not report its finalize or its \
                 connection's end in time"
            );
            self.judge_exit(job, rank, exit);
        }
        if let (Some(d), Some(t)) = (deadline, self.cfg.timeout) {
            if now >= d
                && self.nrunning() > 0
                && self.jobs.get_mut(0).is_some_and(|j| j.sup.timed_out(t))
            {
                self.begin_kill(0);
            }
        }
        if self.kill_at.is_some_and(|k| now >= k) && self.nrunning() > 0 {
            self.say(&format!(
                "ranks still running {:.1} s after SIGTERM; sending SIGKILL",
                self.cfg.grace.as_secs_f64()
            ));
            self.kill_hard();
        }
    }

    /// Wait (poll) until a pipe, pidfd, the event or signal pipes are readable, or the
    /// next timer (the launcher's, and `timers`) is due; returns the readable fds.
    fn wait_ready(&self, now: Instant, timers: [Option<Instant>; 2]) -> Vec<RawFd> {
        let [deadline, drain_until] = timers;
        let mut pfds: Vec<BorrowedFd<'_>> = vec![self.events.fd()];
        pfds.extend(self.signals.iter().flat_map(|s| s.fds()));
        // A finalize the server reports for a pending exit does not wake the loop
        // (`Events::push_quiet`): look again every tick while one is pending.
        let mut need_tick = !self.exits_pending.is_empty();
        for c in &self.children {
            if let Some(o) = &c.stdout {
                pfds.push(o.fd.as_fd());
            }
            if let Some(o) = &c.stderr {
                pfds.push(o.fd.as_fd());
            }
            match &c.pidfd {
                Some(p) => pfds.push(p.as_fd()),
                None if !c.reaped => need_tick = true,
                None => {}
            }
        }
        let next_lost = self
            .lost
            .iter()
            .map(|(_, _, at)| *at)
            .chain(self.exits_pending.iter().map(|(_, _, _, at)| *at))
            .min();
        let held_due = self
            .children
            .iter()
            .flat_map(|c| [&c.stdout, &c.stderr])
            .filter_map(|o| o.as_ref()?.stream.due())
            .min();
        let mut wake = [deadline, self.kill_at, drain_until, next_lost, held_due]
            .into_iter()
            .flatten()
            .map(|t| t.saturating_duration_since(now))
            .min();
        if need_tick {
            wake = Some(wake.map_or(TICK, |w| w.min(TICK)));
        }
        let timeout_ms = wake.map_or(-1, |w| {
            i32::try_from(w.as_millis().saturating_add(1)).unwrap_or(i32::MAX)
        });
        match sys::poll_readable(&pfds, timeout_ms) {
            Ok(r) => r,
            Err(e) => {
                log::warn!("poll: {e}");
                std::thread::sleep(TICK);
                Vec::new()
            }
        }
    }

    /// Forward the partial lines that have waited long enough (`now`), or all of them
    /// (`None`), to the sinks.
    fn flush_held(&mut self, now: Option<Instant>) {
        for c in &mut self.children {
            for (slot, sink) in [
                (&mut c.stdout, &mut self.sinks.stdout),
                (&mut c.stderr, &mut self.sinks.stderr),
            ] {
                let Some(o) = slot else { continue };
                let mut out = Vec::new();
                match now {
                    Some(now) => o.stream.flush_due(now, &mut out),
                    None => o.stream.finish(&mut out),
                }
                if !out.is_empty() {
                    // A reader that went away must not stop the job.
                    let _ = sink.write_all(&out);
                    let _ = sink.flush();
                }
            }
        }
    }

    /// Forward what the ready pipes hold: to the sinks, and to the server for the
    /// channels its output subscribers want (see [`crate::iof::IofSubs`]).
    fn pump_outputs(&mut self, ready: &[RawFd]) {
        for c in &mut self.children {
            let source = self
                .jobs
                .get(c.job)
                .map(|j| ProcId::new(j.layout.nspace.clone(), c.rank));
            for (slot, sink, channel) in [
                (
                    &mut c.stdout,
                    &mut self.sinks.stdout,
                    pmix_sys::PMIX_FWD_STDOUT_CHANNEL,
                ),
                (
                    &mut c.stderr,
                    &mut self.sinks.stderr,
                    pmix_sys::PMIX_FWD_STDERR_CHANNEL,
                ),
            ] {
                let Some(o) = slot else { continue };
                if !ready.contains(&o.fd.as_raw_fd()) {
                    continue;
                }
                let fwd = match (&self.iof, &self.server, &source) {
                    (Some(subs), Some(srv), Some(src)) if subs.wants(src, channel) => {
                        Some((srv, src))
                    }
                    _ => None,
                };
                let mut raw = Vec::new();
                let open = Self::pump(
                    o.fd.as_fd(),
                    &mut o.stream,
                    sink.as_mut(),
                    fwd.is_some().then_some(&mut raw),
                );
                if let Some((srv, src)) = fwd {
                    if !raw.is_empty() {
                        srv.iof_deliver(src, channel, raw, Vec::new());
                    }
                    if !open {
                        srv.iof_deliver(src, channel, Vec::new(), crate::iof::complete());
                    }
                }
                if !open {
                    *slot = None;
                }
            }
        }
    }
}
