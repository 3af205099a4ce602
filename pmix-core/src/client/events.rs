//! Event handlers with the full registration directives (chains, positions, filters),
//! and which of our own events reach our own handlers.

use super::Client;
use crate::error::Result;
use crate::event::{custom_range, proc_matches, ChainHandler, HandlerOpts};
use crate::value::Info;
use pmix_sys as sys;

impl Client {
    /// Register a chain handler (see [`crate::event`]) for `codes` (empty: default).
    ///
    /// # Errors
    /// `PMIX_ERR_EVENT_REGISTRATION` for a position that is taken or a missing named
    /// handler.
    pub fn register_chain_handler(
        &self,
        codes: Vec<i32>,
        opts: HandlerOpts,
        h: ChainHandler,
    ) -> Result<usize> {
        if let Some(l) = self.inner.link.get() {
            l.events_wanted(&codes);
        }
        self.inner.handlers.register(codes, opts, h)
    }

    /// Hand handler `id` the kept events it is for (see [`crate::event`]); call once its
    /// registration callback is scheduled.
    pub fn replay_kept_events(&self, id: usize) {
        self.inner.handlers.replay_kept(id)
    }

    /// Whether an event we raise with `range` is also for our own handlers: not when it
    /// is meant for the resource manager only, nor when a custom range leaves us out.
    pub(super) fn event_reaches_self(&self, range: u8, info: &[Info]) -> bool {
        match range {
            sys::PMIX_RANGE_RM => false,
            sys::PMIX_RANGE_CUSTOM => custom_range(info)
                .iter()
                .any(|p| proc_matches(p, &self.inner.me)),
            _ => true,
        }
    }
}
