//! How much a client may make the server hold on its behalf (docs/ROBUSTNESS.md O2).
//!
//! Every tagged request a client sends is answered by exactly one `Reply` with its tag.
//! A request answered within the step that handled it costs nothing here; one that is
//! not (a Get of a key nobody committed yet, a Get of a namespace not registered yet, a
//! fence waiting for its participants, a lookup, a connect, a host operation, …) is
//! *parked*: the server holds it until it answers. Per connection, the parked requests
//! are counted, with their frame sizes plus [`OVERHEAD`] each, and a request that would
//! take either total over its [`Limits`] is answered at once with
//! `PMIX_ERR_OUT_OF_RESOURCE` (logged once per connection) instead of being served. The
//! accounting follows the replies themselves ([`Budget::settle`] reads the tag of every
//! `Reply` the server sends), so it covers every kind of parked request without each of
//! them having to give its budget back.
//!
//! A client's `PMIx_Finalize` and `PMIx_Abort` are never refused.

use super::Action;
use crate::fasthash::FastMap;
use crate::protocol;
use crate::reactor::ConnId;
use crate::value::ProcId;

/// What the server's tables, timers and reply bookkeeping cost per parked request beyond
/// its frame (a parked Get measured ~460 bytes with a ~100-byte frame).
pub const OVERHEAD: usize = 384;

/// Default [`Limits::count`]: an async-modex rank waits for at most one Get per peer at a
/// time, so this serves jobs of 64 Ki ranks per node pair.
pub const DEFAULT_COUNT: usize = 64 * 1024;
/// Default [`Limits::bytes`].
pub const DEFAULT_BYTES: usize = 64 << 20;

/// Per-connection caps on parked requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How many requests may be parked at once.
    pub count: usize,
    /// How many bytes they may account for (frame sizes plus [`OVERHEAD`] each).
    pub bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            count: DEFAULT_COUNT,
            bytes: DEFAULT_BYTES,
        }
    }
}

impl Limits {
    /// The limits the server's environment asks for ([`crate::params::MAX_PARKED`] and
    /// [`crate::params::MAX_PARKED_BYTES`]); a value that is not a positive number is
    /// logged and the default kept.
    pub fn from_env() -> Self {
        let d = Limits::default();
        Limits {
            count: read(crate::params::MAX_PARKED, d.count),
            bytes: read(crate::params::MAX_PARKED_BYTES, d.bytes),
        }
    }
}

fn read(name: &str, default: usize) -> usize {
    let Some(v) = crate::params::get(name) else {
        return default;
    };
    match parse_size(v.trim()) {
        Some(n) if n > 0 => n,
        _ => {
            log::warn!(
                "{}={:?} is not a positive number; using {}",
                name,
                v,
                default
            );
            default
        }
    }
}

/// A number with an optional binary suffix (`K`, `M`, `G`, optionally followed by `i`
/// and/or `B`): `65536`, `64Ki`, `64M`, `1GiB`.
pub fn parse_size(s: &str) -> Option<usize> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n: usize = s[..end].parse().ok()?;
    let shift = match s[end..].trim_end_matches('B').trim_end_matches('i') {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        _ => return None,
    };
    n.checked_mul(1usize << shift)
}

/// The connection and tag of a `Reply` among the actions.
fn reply_of(a: &Action) -> Option<(ConnId, u32)> {
    match a {
        Action::Send(c, body) => protocol::reply_tag(body).map(|t| (*c, t)),
        Action::SendShared(c, head, _) => protocol::reply_tag(head).map(|t| (*c, t)),
        _ => None,
    }
}

#[derive(Default)]
struct ConnBudget {
    count: usize,
    bytes: usize,
    /// Parked requests by tag: how many (a peer may reuse a tag) and their bytes.
    open: FastMap<u32, (usize, usize)>,
    /// The refusal was logged.
    warned: bool,
}

/// The parked requests of every connection.
#[derive(Default)]
pub struct Budget {
    limits: Limits,
    conns: FastMap<ConnId, ConnBudget>,
}

impl Budget {
    /// Use these limits from now on.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Whether a request of `len` bytes from `conn` may be served; if not, the refusal
    /// is logged (once per connection) naming `who`.
    pub fn admit(&mut self, conn: ConnId, len: usize, who: &ProcId) -> bool {
        let Some(b) = self.conns.get_mut(&conn) else {
            return true;
        };
        let cost = len + OVERHEAD;
        if b.count < self.limits.count && b.bytes + cost <= self.limits.bytes {
            return true;
        }
        if !b.warned {
            b.warned = true;
            log::warn!(
                "server: {} has {} requests ({} bytes) waiting for answers, the most a \
                 client may (PMIX_RS_MAX_PARKED={}, PMIX_RS_MAX_PARKED_BYTES={}); its \
                 further requests get PMIX_ERR_OUT_OF_RESOURCE until some are answered",
                who,
                b.count,
                b.bytes,
                self.limits.count,
                self.limits.bytes
            );
        }
        false
    }

    /// Account for the replies among `actions`, which a step produced. `request` is the
    /// request that step served (connection, tag, frame length), if any: when its reply
    /// is not among `actions`, it is parked.
    pub fn settle(&mut self, request: Option<(ConnId, u32, usize)>, actions: &[Action]) {
        let mut answered = false;
        for (c, tag) in actions.iter().filter_map(reply_of) {
            if !answered && request.is_some_and(|(rc, rt, _)| rc == c && rt == tag) {
                answered = true;
            } else {
                self.release(c, tag);
            }
        }
        if let Some((conn, tag, len)) = request.filter(|&(_, t, _)| !answered && t != 0) {
            self.park(conn, tag, len);
        }
    }

    /// Whether any reply among `actions` may concern a parked request (when not, a
    /// batch needs no [`Budget::settle`]).
    pub fn concerns(&self, actions: &[Action]) -> bool {
        !self.conns.is_empty()
            && actions
                .iter()
                .filter_map(reply_of)
                .any(|(c, _)| self.conns.contains_key(&c))
    }

    fn park(&mut self, conn: ConnId, tag: u32, len: usize) {
        let b = self.conns.entry(conn).or_default();
        let cost = len + OVERHEAD;
        b.count += 1;
        b.bytes += cost;
        let e = b.open.entry(tag).or_insert((0, 0));
        e.0 += 1;
        e.1 += cost;
    }

    fn release(&mut self, conn: ConnId, tag: u32) {
        let Some(b) = self.conns.get_mut(&conn) else {
            return;
        };
        let Some(e) = b.open.get_mut(&tag) else {
            return;
        };
        // Requests sharing a tag share its bytes evenly (only a misbehaving peer reuses
        // a tag while its first request waits).
        let cost = e.1 / e.0;
        e.0 -= 1;
        e.1 -= cost;
        b.count -= 1;
        b.bytes -= cost;
        if e.0 == 0 {
            b.bytes -= e.1;
            b.open.remove(&tag);
        }
        if b.count == 0 {
            b.open = FastMap::default();
            if !b.warned {
                self.conns.remove(&conn);
            }
        }
    }

    /// A connection closed: what it had parked is gone with it.
    pub fn closed(&mut self, conn: ConnId) {
        self.conns.remove(&conn);
    }

    /// The requests parked for `conn` (count, bytes).
    pub fn parked(&self, conn: ConnId) -> (usize, usize) {
        self.conns
            .get(&conn)
            .map(|b| (b.count, b.bytes))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ReplyData, ServerMsg};

    fn reply(conn: ConnId, tag: u32) -> Action {
        let msg = ServerMsg::Reply {
            tag,
            status: 0,
            data: ReplyData::None,
        };
        Action::Send(conn, protocol::encode(&msg))
    }

    fn me() -> ProcId {
        ProcId::new(crate::value::Nspace::new("ns").unwrap(), 0)
    }

    #[test]
    fn a_request_answered_at_once_costs_nothing() {
        let mut b = Budget::default();
        b.settle(Some((1, 5, 100)), &[reply(1, 5)]);
        assert_eq!(b.parked(1), (0, 0));
    }

    #[test]
    fn parked_requests_count_until_answered() {
        let mut b = Budget::default();
        b.settle(Some((1, 5, 100)), &[]);
        b.settle(Some((1, 6, 50)), &[reply(2, 9)]);
        assert_eq!(b.parked(1), (2, 150 + 2 * OVERHEAD));
        b.settle(None, &[reply(1, 5)]);
        assert_eq!(b.parked(1), (1, 50 + OVERHEAD));
        b.settle(None, &[reply(1, 6), reply(1, 6)]);
        assert_eq!(b.parked(1), (0, 0));
    }

    #[test]
    fn the_count_cap_refuses_until_one_is_answered() {
        let mut b = Budget::default();
        b.set_limits(Limits {
            count: 2,
            bytes: 1 << 20,
        });
        for tag in 1..=2 {
            assert!(b.admit(1, 10, &me()));
            b.settle(Some((1, tag, 10)), &[]);
        }
        assert!(!b.admit(1, 10, &me()));
        assert!(b.admit(2, 10, &me()), "another connection is not affected");
        b.settle(None, &[reply(1, 1)]);
        assert!(b.admit(1, 10, &me()));
    }

    #[test]
    fn the_byte_cap_counts_frames() {
        let mut b = Budget::default();
        b.set_limits(Limits {
            count: 100,
            bytes: 3 * (1000 + OVERHEAD),
        });
        for tag in 1..=3 {
            assert!(b.admit(1, 1000, &me()));
            b.settle(Some((1, tag, 1000)), &[]);
        }
        assert!(!b.admit(1, 1000, &me()));
        assert!(b.admit(3, 100_000, &me()), "first request of a connection");
    }

    #[test]
    fn a_reused_tag_cannot_hide_parked_requests() {
        // Tag 7 parks, then tag 7 is answered at once: the parked one still counts.
        let mut b = Budget::default();
        b.settle(Some((1, 7, 10)), &[]);
        b.settle(Some((1, 7, 10)), &[reply(1, 7)]);
        assert_eq!(b.parked(1).0, 1);
        b.settle(Some((1, 7, 10)), &[]);
        b.settle(Some((1, 7, 30)), &[]);
        assert_eq!(b.parked(1), (3, 50 + 3 * OVERHEAD));
        b.settle(None, &[reply(1, 7), reply(1, 7), reply(1, 7)]);
        assert_eq!(b.parked(1), (0, 0));
    }

    #[test]
    fn closing_forgets_a_connection() {
        let mut b = Budget::default();
        b.settle(Some((1, 1, 10)), &[]);
        b.closed(1);
        assert_eq!(b.parked(1), (0, 0));
        assert!(!b.concerns(&[reply(1, 1)]));
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("65536"), Some(65536));
        assert_eq!(parse_size("64Ki"), Some(65536));
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("12Q"), None);
    }
}
