//! The client's section of the debug dump ([`crate::dump`]): who it is, whether it is
//! connected, and the requests waiting for the server's reply (kind, tag, age).

use super::{Inner, Waiting};
use crate::dump::{secs, try_lock_for_dump};
use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::Instant;

impl Inner {
    /// Append this client's section to `out`.
    pub(super) fn dump(&self, out: &mut String) {
        let server = match &self.server {
            Some(s) => format!("server {}", s),
            None => "no server (singleton or embedded)".to_string(),
        };
        let _ = writeln!(
            out,
            "client {} on {}: {}, {}{}",
            self.me,
            self.hostname,
            server,
            if self.connected.load(Ordering::SeqCst) {
                "connected"
            } else {
                "not connected"
            },
            if self.finalized.load(Ordering::SeqCst) {
                ", finalized"
            } else {
                ""
            }
        );
        match try_lock_for_dump(&self.pending) {
            Some(p) => {
                let mut v: Vec<(u32, &Waiting)> = p.iter().map(|(t, w)| (*t, w)).collect();
                v.sort_by_key(|(t, _)| *t);
                render_pending(&v, Instant::now(), out);
            }
            None => out.push_str("  pending requests: (table locked by another thread)\n"),
        }
    }
}

/// The pending requests, oldest tag first.
fn render_pending(v: &[(u32, &Waiting)], now: Instant, out: &mut String) {
    let _ = writeln!(out, "  pending requests: {}", v.len());
    for (tag, w) in v {
        let _ = writeln!(
            out,
            "    tag {}: {}, waiting {} s",
            tag,
            w.kind,
            secs(now.saturating_duration_since(w.since))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn pending_requests_name_kind_tag_and_age() {
        let now = Instant::now();
        let w = Waiting {
            f: Box::new(|_, _| {}),
            kind: "fence",
            since: now - Duration::from_millis(2500),
        };
        let mut out = String::new();
        render_pending(&[(7, &w)], now, &mut out);
        assert_eq!(
            out,
            "  pending requests: 1\n    tag 7: fence, waiting 2.500 s\n"
        );
        let mut out = String::new();
        render_pending(&[], now, &mut out);
        assert_eq!(out, "  pending requests: 0\n");
    }
}
