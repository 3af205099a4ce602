//! Forwarding the ranks' output to ranks that ask for it (`PMIx_IOF_pull`): the host's
//! `iof_pull` upcall records what the server wants ([`IofSubs`]), and the launcher hands
//! the server every chunk of a rank's stdout/stderr that a subscription covers (the end
//! of a stream as a zero-byte chunk with `PMIX_IOF_COMPLETE`). Without a subscription a
//! chunk costs one atomic load; pmixrun's own output is unchanged either way.
//!
//! Single node only: with `--nodes K` the node daemons' hosts refuse pulls.

use pmix_core::iof::{self, Channels};
use pmix_core::{Info, ProcId};
use pmix_sys::attrs::keys as ak;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// What the server asked to receive: (sources, channels) per live pull.
#[derive(Default)]
pub struct IofSubs {
    subs: Mutex<Vec<(Vec<ProcId>, Channels)>>,
    any: AtomicBool,
}

impl IofSubs {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Vec<ProcId>, Channels)>> {
        self.subs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The host's `iof_pull` upcall: a pull starts, or (with `PMIX_IOF_STOP`) ends.
    pub fn update(&self, procs: &[ProcId], channels: Channels, directives: &[Info]) {
        #[allow(deprecated)]
        let stop = iof::flag(directives, ak::PMIX_IOF_STOP).unwrap_or(false);
        let mut s = self.lock();
        if stop {
            if let Some(pos) = s.iter().position(|(p, c)| p == procs && *c == channels) {
                s.remove(pos);
            }
        } else {
            s.push((procs.to_vec(), channels));
        }
        self.any.store(!s.is_empty(), Ordering::SeqCst);
    }

    /// Whether what `source` writes on `channel` is wanted.
    pub fn wants(&self, source: &ProcId, channel: Channels) -> bool {
        if !self.any.load(Ordering::SeqCst) {
            return false;
        }
        self.lock()
            .iter()
            .any(|(p, c)| c & channel != 0 && iof::source_matches(p, source))
    }
}

/// The infos of an end-of-stream chunk.
pub fn complete() -> Vec<Info> {
    Info::new(ak::PMIX_IOF_COMPLETE, pmix_core::Value::Bool(true))
        .map(|i| vec![i])
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Nspace;
    use pmix_sys as sys;

    #[test]
    fn pulls_start_and_stop() {
        let ns = Nspace::new("j").unwrap();
        let p = |r| ProcId::new(ns.clone(), r);
        let s = IofSubs::default();
        assert!(!s.wants(&p(1), sys::PMIX_FWD_STDOUT_CHANNEL));
        let all = vec![p(sys::PMIX_RANK_WILDCARD)];
        s.update(&all, sys::PMIX_FWD_STDOUT_CHANNEL, &[]);
        s.update(&[p(2)], sys::PMIX_FWD_STDERR_CHANNEL, &[]);
        assert!(s.wants(&p(1), sys::PMIX_FWD_STDOUT_CHANNEL));
        assert!(!s.wants(&p(1), sys::PMIX_FWD_STDERR_CHANNEL));
        assert!(s.wants(&p(2), sys::PMIX_FWD_STDERR_CHANNEL));
        #[allow(deprecated)]
        let stop = vec![Info::new(ak::PMIX_IOF_STOP, pmix_core::Value::Bool(true)).unwrap()];
        s.update(&all, sys::PMIX_FWD_STDOUT_CHANNEL, &stop);
        assert!(!s.wants(&p(1), sys::PMIX_FWD_STDOUT_CHANNEL));
        s.update(&[p(2)], sys::PMIX_FWD_STDERR_CHANNEL, &stop);
        assert!(!s.any.load(Ordering::SeqCst));
    }
}
