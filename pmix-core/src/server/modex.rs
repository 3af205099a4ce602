//! What a server contributes to a collecting fence on behalf of its local processes, and
//! what it does with the sections other servers sent (the "modex").
//!
//! # Contributions
//! For each local participant the server writes one section ([`ProcBlob`]):
//! * its REMOTE and GLOBAL values, and its LOCAL keys as scope markers (the value stays on
//!   its node; the other nodes learn only that the key exists, so a Get there answers
//!   `PMIX_ERR_EXISTS_OUTSIDE_SCOPE`);
//! * the keys it deleted with a `PMIX_DEL_*` scope. The exchange is additive — a section
//!   that stops naming a key removes nothing at the far end — so a deletion is stated
//!   explicitly. A deleted key is remembered (until it is put again) and every full
//!   section repeats it, so a node that missed the fence which first carried it (a fence
//!   over another set of processes) still drops the key with the next full section it gets.
//!
//! By default every section is full: everything the process published. With delta modex
//! (`PMIX_MCA_pmix_server_fence_delta_modex=1` in the server's environment) a section
//! holds only what the process committed or deleted since it last took part in a
//! collecting fence, and falls back to the full set when a delta could not express it:
//! * the participants of this fence are not exactly the set of the process's last
//!   collecting fence (compared as sets of processes, wildcards expanded);
//! * the process has not yet taken part in a collecting fence;
//! * data was published on its behalf by another path than a commit
//!   ([`ModexLog::published_elsewhere`]; for `PMIx_server_register_resources` or a group
//!   collective).
//!
//! A fence that does not collect data contributes nothing and moves no boundary. The
//! boundary moves only when the host reports the fence complete and its concatenation was
//! accepted: a fence that failed leaves everything owed for the next one.
//!
//! # Receiving
//! [`apply_section`] drops the section's deletions, then stores its entries, into the
//! server's copy of that process's data (full or delta alike: both are additive).

use crate::protocol::{ProcBlob, SectionKind};
use crate::store::{Entry, KvSet};
use crate::value::{Key, Nspace, ProcId};
use pmix_sys as sys;
use std::collections::BTreeMap;

/// The environment variable (an MCA parameter read by servers) that turns delta modex on.
pub const DELTA_MODEX_ENV: &str = crate::params::DELTA_MODEX;

/// Read a boolean MCA parameter value the way OpenPMIx spells them; `None` if unreadable.
pub fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" | "y" | "t" | "enabled" => Some(true),
        "0" | "false" | "no" | "off" | "n" | "f" | "disabled" | "" => Some(false),
        _ => None,
    }
}

/// Whether this server runs delta modex: [`DELTA_MODEX_ENV`] from its environment
/// (default off; an unreadable value is reported and treated as off).
pub fn delta_from_env() -> bool {
    match crate::params::get(DELTA_MODEX_ENV) {
        Some(v) => match parse_bool(&v) {
            Some(b) => b,
            None => {
                log::warn!(
                    "server: {}={:?} is not a boolean; delta modex stays off",
                    DELTA_MODEX_ENV,
                    v
                );
                false
            }
        },
        None => false,
    }
}

/// Per local process: what changed since it last took part in a collecting fence.
///
/// Changes are numbered; the boundary is the number of the last change a completed
/// collecting fence carried.
#[derive(Debug, Clone, Default)]
pub struct ModexLog {
    seq: u64,
    put_at: BTreeMap<Key, u64>,
    tombstones: BTreeMap<Key, (u8, u64)>,
    boundary: u64,
    last_set: Option<Vec<ProcId>>,
    elsewhere_at: u64,
}

impl ModexLog {
    /// The process committed `key` (a LOCAL, REMOTE or GLOBAL value).
    pub fn put(&mut self, key: &Key) {
        self.seq += 1;
        self.put_at.insert(key.clone(), self.seq);
        self.tombstones.remove(key);
    }

    /// The process deleted `key` with the `PMIX_DEL_*` scope `scope`.
    pub fn delete(&mut self, key: &Key, scope: u8) {
        self.seq += 1;
        self.put_at.remove(key);
        self.tombstones.insert(key.clone(), (scope, self.seq));
    }

    /// Data was published on the process's behalf by another path than a commit; its next
    /// contribution is the full set.
    pub fn published_elsewhere(&mut self) {
        self.seq += 1;
        self.elsewhere_at = self.seq;
    }

    /// Whether the next section for a fence over `set` can be a delta.
    fn delta_ok(&self, set: &[ProcId]) -> bool {
        self.last_set.as_deref() == Some(set) && self.elsewhere_at <= self.boundary
    }

    /// The section for a collecting fence over the (expanded, sorted) participant `set`,
    /// and the change number it covers (hand it to [`ModexLog::delivered`] once the
    /// fence completed).
    pub fn section(
        &self,
        proc_: &ProcId,
        kv: &KvSet,
        set: &[ProcId],
        delta: bool,
    ) -> (ProcBlob, u64) {
        if !(delta && self.delta_ok(set)) {
            return (full_section(proc_, kv, Some(self)), self.seq);
        }
        let entries = self
            .put_at
            .iter()
            .filter(|(_, &at)| at > self.boundary)
            .filter_map(|(k, _)| {
                let e = kv.map.get(k)?;
                travels(e.scope).then(|| (k.clone(), e.clone()))
            })
            .collect();
        let deleted = self
            .tombstones
            .iter()
            .filter(|(_, &(_, at))| at > self.boundary)
            .map(|(k, &(scope, _))| (k.clone(), scope))
            .collect();
        (
            ProcBlob {
                proc_: proc_.clone(),
                kind: SectionKind::Delta,
                entries,
                deleted,
            },
            self.seq,
        )
    }

    /// A collecting fence over `set` that carried the changes up to `seq` completed.
    pub fn delivered(&mut self, seq: u64, set: Vec<ProcId>) {
        if seq >= self.boundary {
            self.boundary = seq;
            self.last_set = Some(set);
        } else {
            // An older fence completed after a newer one (non-blocking fences over two
            // sets): no single boundary describes both, so the next section is full.
            self.last_set = None;
        }
    }
}

/// Whether an entry of this scope goes into a section (LOCAL ones as markers).
fn travels(scope: u8) -> bool {
    matches!(scope, sys::PMIX_LOCAL | sys::PMIX_REMOTE | sys::PMIX_GLOBAL)
}

/// Everything `proc_` published, as a full section, with every key it ever deleted (and
/// did not put again) when its log is known. Also the answer to a direct-modex request.
pub fn full_section(proc_: &ProcId, kv: &KvSet, log: Option<&ModexLog>) -> ProcBlob {
    ProcBlob {
        proc_: proc_.clone(),
        kind: SectionKind::Full,
        entries: kv
            .map
            .iter()
            .filter(|(_, e)| travels(e.scope))
            .map(|(k, e)| (k.clone(), e.clone()))
            .collect(),
        deleted: log
            .map(|l| {
                l.tombstones
                    .iter()
                    .map(|(k, &(scope, _))| (k.clone(), scope))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Store a section another server sent into our copy `kv` of that process's data:
/// deletions first, then entries. Returns the keys that were removed (the local clients
/// that cached them must drop them).
pub fn apply_section(kv: &mut KvSet, pb: ProcBlob) -> Vec<Key> {
    let mut removed = Vec::new();
    for (k, _) in pb.deleted {
        if kv.map.remove(&k).is_some() {
            removed.push(k);
        }
    }
    for (k, e) in pb.entries {
        kv.map.insert(k, e);
    }
    removed
}

/// The participants of a fence as a sorted set of processes: a wildcard entry becomes
/// every rank of its namespace when `job_size` knows the namespace's size (otherwise the
/// wildcard stays, which only ever makes two sets compare unequal).
pub fn participant_set(procs: &[ProcId], job_size: impl Fn(&Nspace) -> Option<u32>) -> Vec<ProcId> {
    let mut v = Vec::new();
    for p in procs {
        match (p.rank == sys::PMIX_RANK_WILDCARD, job_size(&p.nspace)) {
            (true, Some(n)) => v.extend((0..n).map(|r| ProcId::new(p.nspace.clone(), r))),
            _ => v.push(p.clone()),
        }
    }
    v.sort();
    v.dedup();
    v
}

/// What this server contributed to collecting fences: the counter behind the
/// `fence contribution` log line and [`crate::server::Server::fence_stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FenceStats {
    /// Collecting fences this server handed to its host.
    pub fences: u64,
    /// Bytes of the last contribution.
    pub last_bytes: u64,
    /// Bytes of all contributions.
    pub total_bytes: u64,
    /// Full sections in the last contribution.
    pub last_full: u32,
    /// Delta sections in the last contribution.
    pub last_delta: u32,
}

impl FenceStats {
    /// Count one contribution and log it (info level).
    pub fn record(&mut self, server: &ProcId, bytes: usize, sections: &[ProcBlob], delta_on: bool) {
        self.fences += 1;
        self.last_bytes = bytes as u64;
        self.total_bytes += bytes as u64;
        self.last_full = sections
            .iter()
            .filter(|s| s.kind == SectionKind::Full)
            .count() as u32;
        self.last_delta = sections.len() as u32 - self.last_full;
        log::info!(
            "server {}: fence contribution #{}: {} bytes ({} full, {} delta sections; delta modex {})",
            server,
            self.fences,
            bytes,
            self.last_full,
            self.last_delta,
            if delta_on { "on" } else { "off" }
        );
    }
}

/// An entry as stored from a section: LOCAL values never arrive, only their markers.
pub fn marker(scope: u8) -> Entry {
    Entry {
        scope,
        value: crate::value::Value::Undef,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn ns() -> Nspace {
        Nspace::new("job").unwrap()
    }
    fn p(r: u32) -> ProcId {
        ProcId::new(ns(), r)
    }
    fn k(s: &str) -> Key {
        Key::new(s).unwrap()
    }

    fn put(kv: &mut KvSet, log: &mut ModexLog, key: &str, scope: u8, v: i32) {
        kv.put(k(key), scope, Value::Int(v));
        log.put(&k(key));
    }

    fn keys(pb: &ProcBlob) -> Vec<String> {
        pb.entries.iter().map(|(k, _)| k.to_string()).collect()
    }

    #[test]
    fn delta_carries_only_changes_after_the_first_fence_over_the_same_set() {
        let (mut kv, mut log) = (KvSet::default(), ModexLog::default());
        let set = vec![p(0), p(1)];
        for i in 0..5 {
            put(&mut kv, &mut log, &format!("k{i}"), sys::PMIX_GLOBAL, i);
        }
        put(&mut kv, &mut log, "loc", sys::PMIX_LOCAL, 9);
        kv.put(k("int"), sys::PMIX_INTERNAL, Value::Int(1));
        // Never contributed: full, LOCAL as a marker key, INTERNAL never.
        let (s, seq) = log.section(&p(0), &kv, &set, true);
        assert_eq!(s.kind, SectionKind::Full);
        assert_eq!(keys(&s), vec!["k0", "k1", "k2", "k3", "k4", "loc"]);
        log.delivered(seq, set.clone());
        put(&mut kv, &mut log, "k3", sys::PMIX_GLOBAL, 33);
        let (s, _) = log.section(&p(0), &kv, &set, true);
        assert_eq!(
            (s.kind, keys(&s)),
            (SectionKind::Delta, vec!["k3".to_string()])
        );
        // Delta off: the full set, every time.
        let (s, _) = log.section(&p(0), &kv, &set, false);
        assert_eq!(s.kind, SectionKind::Full);
        assert_eq!(s.entries.len(), 6);
        // Another participant set: full.
        let (s, _) = log.section(&p(0), &kv, &[p(0)], true);
        assert_eq!(s.kind, SectionKind::Full);
        // A fence that failed moved nothing: the delta still holds k3.
        let (s, _) = log.section(&p(0), &kv, &set, true);
        assert_eq!(keys(&s), vec!["k3"]);
        // Data published by another path: full again, once.
        log.published_elsewhere();
        let (s, seq) = log.section(&p(0), &kv, &set, true);
        assert_eq!(s.kind, SectionKind::Full);
        log.delivered(seq, set.clone());
        let (s, _) = log.section(&p(0), &kv, &set, true);
        assert_eq!((s.kind, s.entries.len()), (SectionKind::Delta, 0));
    }

    #[test]
    fn deletions_are_explicit_and_full_sections_repeat_them() {
        let (mut kv, mut log) = (KvSet::default(), ModexLog::default());
        let set = vec![p(0), p(1)];
        put(&mut kv, &mut log, "a", sys::PMIX_GLOBAL, 1);
        put(&mut kv, &mut log, "b", sys::PMIX_GLOBAL, 2);
        let (_, seq) = log.section(&p(0), &kv, &set, true);
        log.delivered(seq, set.clone());
        kv.map.remove(&k("a"));
        log.delete(&k("a"), sys::PMIX_DEL_GLOBAL);
        let (s, seq) = log.section(&p(0), &kv, &set, true);
        assert_eq!(s.deleted, vec![(k("a"), sys::PMIX_DEL_GLOBAL)]);
        assert!(s.entries.is_empty());
        log.delivered(seq, set.clone());
        let (s, _) = log.section(&p(0), &kv, &set, true);
        assert!(
            s.deleted.is_empty(),
            "a delivered deletion is not repeated in a delta"
        );
        let (s, _) = log.section(&p(0), &kv, &[p(0)], true);
        assert_eq!(s.deleted.len(), 1, "full sections repeat deletions");
        // Put again: no longer deleted.
        put(&mut kv, &mut log, "a", sys::PMIX_GLOBAL, 3);
        let (s, _) = log.section(&p(0), &kv, &[p(0)], true);
        assert!(s.deleted.is_empty());
        // Receiving: deletions first, then entries.
        let mut theirs = KvSet::default();
        theirs.put(k("x"), sys::PMIX_GLOBAL, Value::Int(0));
        let removed = apply_section(
            &mut theirs,
            ProcBlob {
                proc_: p(0),
                kind: SectionKind::Delta,
                entries: vec![(k("x"), marker(sys::PMIX_LOCAL))],
                deleted: vec![
                    (k("x"), sys::PMIX_DEL_GLOBAL),
                    (k("y"), sys::PMIX_DEL_LOCAL),
                ],
            },
        );
        assert_eq!(removed, vec![k("x")]);
        assert_eq!(theirs.map.get(&k("x")), Some(&marker(sys::PMIX_LOCAL)));
    }

    #[test]
    fn late_completion_of_an_older_fence_forces_a_full_section() {
        let (mut kv, mut log) = (KvSet::default(), ModexLog::default());
        put(&mut kv, &mut log, "a", sys::PMIX_GLOBAL, 1);
        let (_, old) = log.section(&p(0), &kv, &[p(0), p(1)], true);
        put(&mut kv, &mut log, "b", sys::PMIX_GLOBAL, 1);
        let (_, new) = log.section(&p(0), &kv, &[p(0), p(2)], true);
        log.delivered(new, vec![p(0), p(2)]);
        log.delivered(old, vec![p(0), p(1)]);
        let (s, _) = log.section(&p(0), &kv, &[p(0), p(1)], true);
        assert_eq!(s.kind, SectionKind::Full);
    }

    #[test]
    fn wildcards_expand_so_equal_sets_compare_equal() {
        let size = |_: &Nspace| Some(3);
        let w = participant_set(&[ProcId::new(ns(), sys::PMIX_RANK_WILDCARD)], size);
        let l = participant_set(&[p(2), p(0), p(1), p(0)], size);
        assert_eq!(w, l);
        let unknown = participant_set(&[ProcId::new(ns(), sys::PMIX_RANK_WILDCARD)], |_| None);
        assert_ne!(unknown, l);
    }

    #[test]
    fn mca_booleans() {
        assert_eq!(parse_bool("1"), Some(true));
        assert_eq!(parse_bool(" TRUE "), Some(true));
        assert_eq!(parse_bool("0"), Some(false));
        assert_eq!(parse_bool("off"), Some(false));
        assert_eq!(parse_bool("maybe"), None);
    }
}
