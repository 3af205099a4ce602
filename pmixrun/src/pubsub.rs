//! pmixrun's data store for `PMIx_Publish` / `PMIx_Lookup` / `PMIx_Unpublish` (the host
//! implements it, as OpenPMIx expects; the server only forwards).
//!
//! * Every entry that is not a directive of the publish is one key/value, kept with its
//!   publisher, range (`PMIX_RANGE`, default `PMIX_RANGE_SESSION`), persistence
//!   (`PMIX_PERSISTENCE`, default `PMIX_PERSIST_APP`) and the publisher's user id.
//! * Ranges, from narrow to wide: `PROC_LOCAL` (the publisher itself), `NAMESPACE` (its
//!   job), `LOCAL` (this node), `SESSION` (everything pmixrun runs; also `UNDEF`, `RM`
//!   and `CUSTOM`), `GLOBAL`. A lookup with range R sees the entries of ranges up to R
//!   that admit the requester; of several with the same key it takes the widest. A key
//!   may be published once per range (`PMIX_ERR_DUPLICATE_KEY` after that).
//! * Only the publisher's user may read or remove an entry.
//! * Persistence: `FIRST_READ` entries go after their first lookup, `PROC` ones when the
//!   publisher finalizes or vanishes, `APP` ones when its job ends; `SESSION` and
//!   `INDEF` ones stay until pmixrun exits.
//! * A lookup with `PMIX_WAIT` (n > 0: until n keys are found; otherwise all) is held
//!   until later publishes satisfy it, or until its `PMIX_TIMEOUT` (then
//!   `PMIX_ERR_TIMEOUT`).

use pmix_core::server::HostDone;
use pmix_core::{Error, Info, Nspace, Pdata, ProcId, Result, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

struct Entry {
    key: String,
    value: Value,
    publisher: ProcId,
    range: u8,
    persistence: u8,
    uid: Option<u32>,
}

struct Waiter {
    id: u64,
    requester: ProcId,
    keys: Vec<String>,
    want: usize,
    range: u8,
    uid: Option<u32>,
    done: HostDone<Vec<Pdata>>,
}

#[derive(Default)]
struct Inner {
    entries: Vec<Entry>,
    waiters: Vec<Waiter>,
    next: u64,
}

/// The store (shared by the host's upcalls and the launcher).
#[derive(Default, Clone)]
pub struct PubStore {
    inner: Arc<Mutex<Inner>>,
}

/// Width of a range (wider sees more).
fn width(range: u8) -> u8 {
    match range {
        sys::PMIX_RANGE_PROC_LOCAL => 0,
        sys::PMIX_RANGE_NAMESPACE => 1,
        sys::PMIX_RANGE_LOCAL => 2,
        sys::PMIX_RANGE_GLOBAL => 4,
        _ => 3,
    }
}

fn range_of(info: &[Info]) -> u8 {
    info.iter()
        .find(|i| i.key.as_str() == ak::PMIX_RANGE)
        .and_then(|i| match i.value {
            Value::Range(r) => Some(r),
            _ => i.value.as_u64().and_then(|v| u8::try_from(v).ok()),
        })
        .unwrap_or(sys::PMIX_RANGE_SESSION)
}

fn uid_of(info: &[Info]) -> Option<u32> {
    info.iter()
        .find(|i| i.key.as_str() == ak::PMIX_USERID)
        .and_then(|i| i.value.as_u64())
        .and_then(|v| u32::try_from(v).ok())
}

/// The keys a publish treats as directives, not data.
const DIRECTIVES: [&str; 8] = [
    ak::PMIX_RANGE,
    ak::PMIX_PERSISTENCE,
    ak::PMIX_TIMEOUT,
    ak::PMIX_USERID,
    ak::PMIX_GRPID,
    ak::PMIX_ACCESS_PERMISSIONS,
    ak::PMIX_ACCESS_USERIDS,
    ak::PMIX_ACCESS_GRPIDS,
];

impl Entry {
    /// Whether `who` (with user id `uid`) may see this entry through a lookup of range
    /// `range`.
    fn visible(&self, who: &ProcId, uid: Option<u32>, range: u8) -> bool {
        if self.uid.is_some() && uid.is_some() && self.uid != uid {
            return false;
        }
        if width(self.range) > width(range) {
            return false;
        }
        match self.range {
            sys::PMIX_RANGE_PROC_LOCAL => &self.publisher == who,
            sys::PMIX_RANGE_NAMESPACE => self.publisher.nspace == who.nspace,
            _ => true,
        }
    }
}

impl Inner {
    /// What `who` finds for `keys` now (first-read entries are consumed).
    fn find(&mut self, who: &ProcId, uid: Option<u32>, range: u8, keys: &[String]) -> Vec<Pdata> {
        let mut out = Vec::new();
        for k in keys {
            let best = self
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| &e.key == k && e.visible(who, uid, range))
                .max_by_key(|(_, e)| width(e.range))
                .map(|(i, _)| i);
            let Some(i) = best else { continue };
            let Some(e) = self.entries.get(i) else {
                continue;
            };
            if let Ok(key) = pmix_core::Key::new(&e.key) {
                out.push(Pdata {
                    proc_: e.publisher.clone(),
                    key,
                    value: e.value.clone(),
                });
            }
            if e.persistence == sys::PMIX_PERSIST_FIRST_READ {
                self.entries.remove(i);
            }
        }
        out
    }
}

impl PubStore {
    /// An empty store.
    pub fn new() -> PubStore {
        PubStore::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `PMIx_Publish` from `who`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` when nothing is published, `PMIX_ERR_DUPLICATE_KEY` when a
    /// key is already published on the same range (then nothing is stored).
    pub fn publish(&self, who: &ProcId, info: &[Info]) -> Result<()> {
        let range = range_of(info);
        let persistence = info
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_PERSISTENCE)
            .and_then(|i| match i.value {
                Value::Persist(p) => Some(p),
                _ => i.value.as_u64().and_then(|v| u8::try_from(v).ok()),
            })
            .unwrap_or(sys::PMIX_PERSIST_APP);
        let uid = uid_of(info);
        let data: Vec<&Info> = info
            .iter()
            .filter(|i| !DIRECTIVES.contains(&i.key.as_str()))
            .collect();
        if data.is_empty() {
            return Err(Error::bad_param("nothing to publish"));
        }
        let mut g = self.lock();
        for d in &data {
            let dup = g.entries.iter().any(|e| {
                e.key == d.key.as_str()
                    && e.range == range
                    && (range != sys::PMIX_RANGE_NAMESPACE || e.publisher.nspace == who.nspace)
                    && (range != sys::PMIX_RANGE_PROC_LOCAL || &e.publisher == who)
            });
            if dup {
                return Err(Error::new(
                    sys::PMIX_ERR_DUPLICATE_KEY,
                    format!("{} is already published on that range", d.key),
                ));
            }
        }
        for d in data {
            g.entries.push(Entry {
                key: d.key.as_str().to_string(),
                value: d.value.clone(),
                publisher: who.clone(),
                range,
                persistence,
                uid,
            });
        }
        // Waiting lookups that can now be answered.
        let mut ready = Vec::new();
        let waiters = std::mem::take(&mut g.waiters);
        for w in waiters {
            let found = g
                .entries
                .iter()
                .filter(|e| w.keys.contains(&e.key) && e.visible(&w.requester, w.uid, w.range))
                .map(|e| e.key.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            if found >= w.want {
                ready.push(w);
            } else {
                g.waiters.push(w);
            }
        }
        let answers: Vec<(HostDone<Vec<Pdata>>, Vec<Pdata>)> = ready
            .into_iter()
            .map(|w| {
                let v = g.find(&w.requester, w.uid, w.range, &w.keys);
                (w.done, v)
            })
            .collect();
        drop(g);
        for (done, v) in answers {
            done(Ok(v));
        }
        Ok(())
    }

    /// `PMIx_Lookup` from `who`: `done` gets what was found (with `PMIX_WAIT`, once
    /// enough is).
    pub fn lookup(&self, who: &ProcId, keys: &[String], info: &[Info], done: HostDone<Vec<Pdata>>) {
        let range = range_of(info);
        let uid = uid_of(info);
        let wait = info
            .iter()
            .find(|i| i.key.as_str() == ak::PMIX_WAIT)
            .map(|i| match i.value {
                Value::Bool(false) => None,
                _ => Some(i.value.as_u64().unwrap_or(0) as usize),
            });
        let timeout = pmix_core::client::timeout_of(info);
        let mut g = self.lock();
        let Some(Some(n)) = wait else {
            let v = g.find(who, uid, range, keys);
            drop(g);
            done(Ok(v));
            return;
        };
        let want = if n == 0 || n > keys.len() {
            keys.len()
        } else {
            n
        };
        let have = keys
            .iter()
            .filter(|k| {
                g.entries
                    .iter()
                    .any(|e| &&e.key == k && e.visible(who, uid, range))
            })
            .count();
        if have >= want {
            let v = g.find(who, uid, range, keys);
            drop(g);
            done(Ok(v));
            return;
        }
        g.next += 1;
        let id = g.next;
        g.waiters.push(Waiter {
            id,
            requester: who.clone(),
            keys: keys.to_vec(),
            want,
            range,
            uid,
            done,
        });
        drop(g);
        if let Some(t) = timeout {
            self.expire_after(id, t);
        }
    }

    /// Fail the waiting lookup `id` with `PMIX_ERR_TIMEOUT` after `t` (if still waiting).
    fn expire_after(&self, id: u64, t: Duration) {
        let me = self.clone();
        let spawned = std::thread::Builder::new()
            .name("pmixrun-lookup-timeout".into())
            .spawn(move || {
                std::thread::sleep(t);
                let w = {
                    let mut g = me.lock();
                    let pos = g.waiters.iter().position(|w| w.id == id);
                    pos.map(|p| g.waiters.remove(p))
                };
                if let Some(w) = w {
                    (w.done)(Err(Error::new(
                        sys::PMIX_ERR_TIMEOUT,
                        "nothing was published in time",
                    )));
                }
            });
        if let Err(e) = spawned {
            log::warn!("cannot start the lookup timer: {e}");
        }
    }

    /// `PMIx_Unpublish` from `who` (`keys` empty: everything it published in the range).
    pub fn unpublish(&self, who: &ProcId, keys: &[String], info: &[Info]) {
        let range = range_of(info);
        let uid = uid_of(info);
        self.lock().entries.retain(|e| {
            !(&e.publisher == who
                && e.range == range
                && (e.uid.is_none() || uid.is_none() || e.uid == uid)
                && (keys.is_empty() || keys.contains(&e.key)))
        });
    }

    /// `who` finalized or vanished: its `PROC`-persistent entries go, and its waiting
    /// lookups end (nobody is left to answer).
    pub fn proc_ended(&self, who: &ProcId) {
        let mut g = self.lock();
        g.entries
            .retain(|e| !(&e.publisher == who && e.persistence == sys::PMIX_PERSIST_PROC));
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut g.waiters)
            .into_iter()
            .partition(|w| &w.requester == who);
        g.waiters = rest;
        drop(g);
        for w in mine {
            (w.done)(Err(Error::not_found("the requester ended")));
        }
    }

    /// Job `nspace` ended: its `APP`- and `PROC`-persistent entries go.
    pub fn job_ended(&self, nspace: &Nspace) {
        self.lock().entries.retain(|e| {
            !(&e.publisher.nspace == nspace
                && matches!(
                    e.persistence,
                    sys::PMIX_PERSIST_APP | sys::PMIX_PERSIST_PROC
                ))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn p(ns: &str, r: u32) -> ProcId {
        ProcId::new(Nspace::new(ns).expect("ns"), r)
    }
    fn i(k: &str, v: Value) -> Info {
        Info::new(k, v).expect("info")
    }
    fn look(
        s: &PubStore,
        who: &ProcId,
        keys: &[&str],
        info: &[Info],
    ) -> mpsc::Receiver<Result<Vec<Pdata>>> {
        let (tx, rx) = mpsc::channel();
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        s.lookup(
            who,
            &keys,
            info,
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        );
        rx
    }
    fn vals(r: Result<Vec<Pdata>>) -> Vec<(String, Value)> {
        r.expect("lookup")
            .into_iter()
            .map(|d| (d.key.as_str().to_string(), d.value))
            .collect()
    }

    #[test]
    fn ranges_duplicates_and_first_read() {
        let s = PubStore::new();
        s.publish(&p("a", 0), &[i("k", Value::Int(1))])
            .expect("publish");
        assert_eq!(
            s.publish(&p("b", 0), &[i("k", Value::Int(2))])
                .map_err(|e| e.status),
            Err(sys::PMIX_ERR_DUPLICATE_KEY)
        );
        // Same key on another range is allowed; a namespace-range lookup sees only it.
        s.publish(
            &p("b", 0),
            &[
                i("k", Value::Int(3)),
                i(ak::PMIX_RANGE, Value::Range(sys::PMIX_RANGE_NAMESPACE)),
            ],
        )
        .expect("publish ns");
        let ns = [i(ak::PMIX_RANGE, Value::Range(sys::PMIX_RANGE_NAMESPACE))];
        assert_eq!(
            vals(look(&s, &p("b", 1), &["k"], &ns).recv().expect("r")),
            vec![("k".into(), Value::Int(3))]
        );
        assert!(vals(look(&s, &p("a", 1), &["k"], &ns).recv().expect("r")).is_empty());
        assert_eq!(
            vals(look(&s, &p("b", 1), &["k"], &[]).recv().expect("r")),
            vec![("k".into(), Value::Int(1))]
        );
        // First read: gone after one lookup.
        s.publish(
            &p("a", 0),
            &[
                i("once", Value::Int(9)),
                i(
                    ak::PMIX_PERSISTENCE,
                    Value::Persist(sys::PMIX_PERSIST_FIRST_READ),
                ),
            ],
        )
        .expect("publish once");
        assert_eq!(
            vals(look(&s, &p("a", 1), &["once"], &[]).recv().expect("r")).len(),
            1
        );
        assert!(vals(look(&s, &p("a", 1), &["once"], &[]).recv().expect("r")).is_empty());
        // Unpublish only removes the publisher's own entries.
        s.unpublish(&p("b", 0), &["k".into()], &[]);
        assert_eq!(
            vals(look(&s, &p("b", 1), &["k"], &[]).recv().expect("r")).len(),
            1
        );
        s.unpublish(&p("a", 0), &[], &[]);
        // The session entry is gone; b's namespace-range one is what b's peers see now.
        assert_eq!(
            vals(look(&s, &p("b", 1), &["k"], &[]).recv().expect("r")),
            vec![("k".into(), Value::Int(3))]
        );
        assert!(vals(look(&s, &p("a", 1), &["k"], &[]).recv().expect("r")).is_empty());
    }

    #[test]
    fn wait_is_answered_by_a_later_publish_or_times_out() {
        let s = PubStore::new();
        let wait = [i(ak::PMIX_WAIT, Value::Int(0))];
        let rx = look(&s, &p("a", 0), &["x", "y"], &wait);
        assert!(rx.try_recv().is_err());
        s.publish(&p("b", 0), &[i("x", Value::Int(1))]).expect("x");
        assert!(rx.try_recv().is_err(), "still waiting for y");
        s.publish(&p("b", 0), &[i("y", Value::Int(2))]).expect("y");
        assert_eq!(vals(rx.recv().expect("r")).len(), 2);
        let tmo = [
            i(ak::PMIX_WAIT, Value::Int(0)),
            i(ak::PMIX_TIMEOUT, Value::Int(1)),
        ];
        let rx = look(&s, &p("a", 0), &["never"], &tmo);
        let r = rx.recv_timeout(Duration::from_secs(5)).expect("timed out");
        assert_eq!(r.err().map(|e| e.status), Some(sys::PMIX_ERR_TIMEOUT));
    }

    #[test]
    fn persistence_follows_the_publisher() {
        let s = PubStore::new();
        let proc = [i(
            ak::PMIX_PERSISTENCE,
            Value::Persist(sys::PMIX_PERSIST_PROC),
        )];
        let mut d = vec![i("p", Value::Int(1))];
        d.extend(proc);
        s.publish(&p("a", 0), &d).expect("p");
        s.publish(&p("a", 1), &[i("app", Value::Int(2))])
            .expect("app");
        s.publish(
            &p("a", 1),
            &[
                i("sess", Value::Int(3)),
                i(
                    ak::PMIX_PERSISTENCE,
                    Value::Persist(sys::PMIX_PERSIST_SESSION),
                ),
            ],
        )
        .expect("sess");
        s.proc_ended(&p("a", 0));
        assert!(vals(look(&s, &p("b", 0), &["p"], &[]).recv().expect("r")).is_empty());
        assert_eq!(
            vals(look(&s, &p("b", 0), &["app"], &[]).recv().expect("r")).len(),
            1
        );
        s.job_ended(&Nspace::new("a").expect("ns"));
        assert!(vals(look(&s, &p("b", 0), &["app"], &[]).recv().expect("r")).is_empty());
        assert_eq!(
            vals(look(&s, &p("b", 0), &["sess"], &[]).recv().expect("r")).len(),
            1
        );
    }
}
