//! The job data a client holds ([`Jobs`]): every namespace's [`JobData`], with the
//! client's own namespace kept apart and its own process's answers resolved in advance.
//!
//! A Get of one of the process's own keys (`PMIX_LOCAL_RANK`, `PMIX_NODE_RANK`,
//! `PMIX_HOSTNAME`, `PMIX_APPNUM`, its node's and application's keys, ...) used to hash
//! the namespace, then walk the per-process table, the node, the application and the job
//! level ([`JobData::proc_value`]): about 235 instructions more than a job-level key. Here
//! those answers are resolved once ([`JobData::own_view`]) whenever our namespace's data
//! is installed or changed, and a Get scans that short list; every other key goes
//! straight to the job level ([`JobData::job_only`]), or, for the node's process lists,
//! the general path. Our namespace's data is found without hashing.
//!
//! Every change of job data goes through the methods here (there is no `&mut` access to
//! the map from outside), so the resolved answers are rebuilt under the same write lock
//! as the change: a value the host changes later reads fresh.

use crate::fasthash::FastMap;
use crate::store::{JobData, OWN_VIEW_GENERAL};
use crate::value::{Key, Nspace, ProcId, Value};

/// What [`Jobs::own_answer`] says about one of our own keys.
pub(super) enum OwnAnswer<'a> {
    /// Resolved below the job level.
    Value(&'a Value),
    /// Not below the job level: the job level answers ([`JobData::job_only`]).
    JobLevel(&'a JobData),
    /// Ask [`JobData::proc_value`] (a node's process list, or nothing resolved).
    General,
}

/// `a == b`, without a call to `memcmp` for the usual length of a key (8 to 16 bytes:
/// two overlapping 8-byte words cover it).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if (8..=16).contains(&n) {
        let word = |s: &[u8], at: usize| {
            s.get(at..at + 8)
                .and_then(|w| <[u8; 8]>::try_from(w).ok())
                .map(u64::from_ne_bytes)
        };
        return word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8);
    }
    a == b
}

#[derive(Default)]
pub(super) struct Jobs {
    /// Every namespace but ours (once [`Jobs::set_me`] named it).
    map: FastMap<Nspace, JobData>,
    /// Who we are (None until [`Jobs::set_me`]).
    me: Option<ProcId>,
    /// Our namespace's data.
    mine: Option<JobData>,
    /// `mine.own_view(me.rank)`.
    own: Vec<(Key, Value)>,
}

impl Jobs {
    /// Name our own process: its namespace's data moves out of the map and its answers
    /// are resolved.
    pub(super) fn set_me(&mut self, me: &ProcId) {
        self.me = Some(me.clone());
        if let Some(j) = self.map.remove(&me.nspace) {
            self.mine = Some(j);
        }
        self.rebuild();
    }

    fn rebuild(&mut self) {
        self.own = match (&self.mine, &self.me) {
            (Some(j), Some(me)) => j.own_view(me.rank),
            _ => Vec::new(),
        };
    }

    #[inline]
    fn is_mine(&self, ns: &Nspace) -> bool {
        self.me.as_ref().is_some_and(|m| &m.nspace == ns)
    }

    /// The data of namespace `ns`.
    #[inline]
    pub(super) fn get(&self, ns: &Nspace) -> Option<&JobData> {
        if self.is_mine(ns) {
            return self.mine.as_ref();
        }
        self.map.get(ns)
    }

    /// Our own namespace's data.
    #[inline]
    pub(super) fn mine(&self) -> Option<&JobData> {
        self.mine.as_ref()
    }

    /// Where our own process's `key` (a Get at no particular level) is answered.
    #[inline]
    pub(super) fn own_answer(&self, key: &str) -> OwnAnswer<'_> {
        let Some(j) = &self.mine else {
            return OwnAnswer::General;
        };
        let kb = key.as_bytes();
        for (k, v) in &self.own {
            if same_bytes(k.as_str().as_bytes(), kb) {
                return OwnAnswer::Value(v);
            }
        }
        if OWN_VIEW_GENERAL.contains(&key) {
            return OwnAnswer::General;
        }
        OwnAnswer::JobLevel(j)
    }

    pub(super) fn contains_key(&self, ns: &Nspace) -> bool {
        self.get(ns).is_some()
    }

    /// Install (or replace) a namespace's data.
    pub(super) fn insert(&mut self, ns: Nspace, j: JobData) {
        if self.is_mine(&ns) {
            self.mine = Some(j);
            self.rebuild();
        } else {
            self.map.insert(ns, j);
        }
    }

    /// Drop a namespace's data.
    pub(super) fn remove(&mut self, ns: &Nspace) {
        if self.is_mine(ns) {
            self.mine = None;
            self.rebuild();
        } else {
            self.map.remove(ns);
        }
    }

    /// Change a namespace's data in place (nothing when it is not known); our own
    /// answers are resolved again after `f`.
    pub(super) fn update(&mut self, ns: &Nspace, f: impl FnOnce(&mut JobData)) {
        if self.is_mine(ns) {
            if let Some(j) = self.mine.as_mut() {
                f(j);
                self.rebuild();
            }
        } else if let Some(j) = self.map.get_mut(ns) {
            f(j);
        }
    }

    /// Change a namespace's data, creating it empty first when it is not known.
    pub(super) fn update_or_new(&mut self, ns: &Nspace, f: impl FnOnce(&mut JobData)) {
        let empty = || JobData {
            nspace: ns.clone(),
            ..Default::default()
        };
        if self.is_mine(ns) {
            f(self.mine.get_or_insert_with(empty));
            self.rebuild();
        } else {
            f(self.map.entry(ns.clone()).or_insert_with(empty));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::same_bytes;

    /// Equal to `==` at every length, whichever byte differs.
    #[test]
    fn same_bytes_is_equality() {
        for n in 0..24usize {
            let a: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            assert!(same_bytes(&a, &a.clone()), "length {n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same_bytes(&a, &b), "length {n}, byte {at}");
            }
            assert!(!same_bytes(&a, &a[..n.saturating_sub(1)]) || n == 0);
        }
    }
}

#[cfg(test)]
mod view_tests {
    use super::{Jobs, OwnAnswer};
    use crate::store::{keys, JobData};
    use crate::value::{Info, Nspace, ProcId, Value};

    fn answer(j: &Jobs, key: &str) -> Option<Value> {
        match j.own_answer(key) {
            OwnAnswer::Value(v) => Some(v.clone()),
            OwnAnswer::JobLevel(jd) => jd.job_only(key).map(|v| v.into_owned()),
            OwnAnswer::General => panic!("{key}: general path"),
        }
    }

    /// Every way our namespace's data changes resolves our answers again: a value the
    /// host changes later reads fresh.
    #[test]
    fn own_answers_follow_every_change() {
        let ns = Nspace::new("view.job").unwrap();
        let me = ProcId::new(ns.clone(), 1);
        let with = |v: u32| {
            let mut jd = JobData {
                nspace: ns.clone(),
                ..Default::default()
            };
            jd.procs
                .extend_list(1, [Info::new("view.key", Value::Uint32(v)).unwrap()]);
            jd.job
                .push(Info::new(keys::JOB_SIZE, Value::Uint32(4)).unwrap());
            jd
        };
        let mut j = Jobs::default();
        j.insert(ns.clone(), with(1));
        j.set_me(&me);
        assert_eq!(answer(&j, "view.key"), Some(Value::Uint32(1)));
        assert_eq!(answer(&j, keys::JOB_SIZE), Some(Value::Uint32(4)));
        j.insert(ns.clone(), with(2));
        assert_eq!(answer(&j, "view.key"), Some(Value::Uint32(2)));
        j.update(&ns, |jd| {
            jd.procs
                .extend_list(1, [Info::new("view.new", Value::Uint32(3)).unwrap()])
        });
        assert_eq!(answer(&j, "view.new"), Some(Value::Uint32(3)));
        j.update_or_new(&ns, |jd| jd.job.clear());
        assert_eq!(answer(&j, keys::JOB_SIZE), None);
        j.remove(&ns);
        assert!(matches!(j.own_answer("view.key"), OwnAnswer::General));
        assert!(j.get(&ns).is_none());
    }
}
