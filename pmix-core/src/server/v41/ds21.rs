//! The ds21 stores this server keeps for its OpenPMIx 4.2.x clients (`docs/DS21.md` §6,
//! stage 1): one directory per namespace under the server's private rendezvous
//! directory, its path the namespace's clients' `PMIX_DSTORE_21_BASE_PATH`.
//!
//! At the first `setup_fork` of a namespace in the server's own process (not in a child
//! the host forked: see `server/forksafe.rs`; such a child gets the hash gds) the lock
//! segment (two process-shared mutexes per client slot) and an empty initial segment are
//! made, so that a client's ds21 init finds both. At the first job-info reply to a ds21
//! client of the namespace (before any client of it can read: a client reads only after
//! its own job-info reply) its meta and data segments are written from the same job info
//! a hash client is sent, then the namespace's entry is put into the initial segment (its
//! count last). Nothing is written afterwards, so the server never takes a client's
//! lock. The directory goes with the namespace's deregistration, and with the rendezvous
//! directory at finalize.
//!
//! Off with `PMIX_RS_DS21=0`; any failure to make the files is logged and leaves the
//! namespace's clients on hash.

use crate::codec::v41::ds21::{self as img, Chains, Geometry, LockLayout, NsImage, Patch, Seg};
use crate::codec::v41::wire::replies::JobInfo;
use crate::error::{Error, Result};
use crate::protocol::Put;
use crate::sys::ds21::{LockSeg, Mapping};
use crate::value::{Nspace, ProcId};
use pmix_sys as sys;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// `PMIX_RS_DS21`: `0` keeps OpenPMIx 4.2.x clients on the hash gds.
pub const ENV: &str = crate::params::PMIX_RS_DS21;

/// Whether ds21 stores are wanted (`PMIX_RS_DS21` is not `0`/`no`/`off`/`false`).
pub fn enabled() -> bool {
    match crate::params::get(ENV) {
        Some(v) => !matches!(v.trim(), "0" | "no" | "off" | "false"),
        None => true,
    }
}

/// The initial segment's file name (the first and only one of a directory).
pub const INITIAL: &str = "initial-pmix_shared-segment-0";

/// How long a commit waits for the clients' locks before the namespace's committed data
/// is withdrawn from the store for good (`docs/DS21.md` §7): a reader holds its lock
/// for microseconds, unless it died holding it.
pub const LOCK_WAIT: Duration = Duration::from_millis(100);

/// One namespace's store.
#[derive(Debug)]
struct NsStore {
    dir: PathBuf,
    /// Its meta and data segments are written (once).
    written: bool,
    /// The lock segment, until the job data is written.
    locks: Option<LockSeg>,
    /// The written store, for later writes (none: the job data was not written).
    live: Option<Live>,
}

/// A written store, mapped for the commits of its namespace's clients.
#[derive(Debug)]
struct Live {
    chains: Chains,
    locks: LockSeg,
    meta: Vec<Mapping>,
    data: Vec<Mapping>,
    /// A commit could not have the clients' locks: from then on committed keys are only
    /// withdrawn, never written.
    off: bool,
}

/// The server's ds21 stores, by namespace.
#[derive(Debug)]
pub struct Stores {
    base: PathBuf,
    host: String,
    ns: Mutex<HashMap<Nspace, NsStore>>,
}

fn io_err(what: &str, p: &Path, e: std::io::Error) -> Error {
    Error::new(
        pmix_sys::PMIX_ERROR,
        format!("ds21: {what} {}: {e}", p.display()),
    )
}

impl Stores {
    /// Stores under `base` (a private directory of the server's) for a server on node
    /// `host` (whose node array is flattened into the job level).
    pub fn new(base: PathBuf, host: String) -> Stores {
        Stores {
            base,
            host,
            ns: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Nspace, NsStore>> {
        self.ns.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The store directory of `nspace`, made with its lock segment (`nlocal` clients,
    /// with spare slots: a client that initialises twice takes a second one) and an
    /// empty initial segment the first time; `None` (logged once) when they cannot be
    /// made or the name cannot be a file name.
    pub fn prepare(&self, nspace: &Nspace, nlocal: u32) -> Option<PathBuf> {
        let mut m = self.lock();
        if let Some(s) = m.get(nspace) {
            return Some(s.dir.clone());
        }
        let name = nspace.as_str();
        if name.contains('/') || name.len() > img::MAX_NSLEN {
            return None;
        }
        let dir = self.base.join(format!("ds21-{name}"));
        match make_store(&dir, name, nlocal.saturating_mul(2).saturating_add(4)) {
            Ok(locks) => {
                log::debug!("server: ds21 store of {} in {}", name, dir.display());
                m.insert(
                    nspace.clone(),
                    NsStore {
                        dir: dir.clone(),
                        written: false,
                        locks: Some(locks),
                        live: None,
                    },
                );
                Some(dir)
            }
            Err(e) => {
                log::warn!("server: no ds21 store for {}: {}", name, e.context);
                let _ = std::fs::remove_dir_all(&dir);
                None
            }
        }
    }

    /// Write `j`'s namespace's job data into its store unless done already (or it has
    /// no store). A failure is logged: the clients then miss in ds21 and ask us.
    pub fn write_job(&self, j: &JobInfo) {
        let mut m = self.lock();
        let Some(s) = m.get_mut(&j.nspace) else {
            return;
        };
        if s.written {
            return;
        }
        s.written = true;
        let locks = s.locks.take();
        match write_image(&s.dir, j, &self.host) {
            Ok(image) => match (locks, live(&s.dir, j.nspace.as_str(), &image)) {
                (Some(locks), Ok((chains, meta, data))) => {
                    s.live = Some(Live {
                        chains,
                        locks,
                        meta,
                        data,
                        off: false,
                    })
                }
                (_, Err(e)) => log::warn!(
                    "server: ds21 store of {} not kept for commits: {}",
                    j.nspace,
                    e.context
                ),
                (None, _) => {}
            },
            Err(e) => log::warn!(
                "server: ds21 job data of {} not written: {}",
                j.nspace,
                e.context
            ),
        }
    }

    /// Put the values `who` committed into its namespace's store, if it has a written
    /// one (`docs/DS21.md` §7): `PMIX_LOCAL`/`PMIX_GLOBAL` values are written under all
    /// the clients' locks; a value that cannot be written, a key of another scope (or a
    /// deletion) withdraws the key's record, so no record is older than what the
    /// server holds. When the locks cannot be had within [`LOCK_WAIT`], the namespace's
    /// committed keys are only ever withdrawn from then on, without the locks.
    pub fn commit(&self, who: &ProcId, puts: &[Put]) {
        let mut m = self.lock();
        if let Some(l) = m.get_mut(&who.nspace).and_then(|s| s.live.as_mut()) {
            l.commit(who, puts);
        }
    }

    /// Remove `nspace`'s store.
    pub fn remove(&self, nspace: &Nspace) {
        if let Some(s) = self.lock().remove(nspace) {
            let _ = std::fs::remove_dir_all(&s.dir);
        }
    }

    /// Remove every store.
    pub fn remove_all(&self) {
        for (_, s) in self.lock().drain() {
            let _ = std::fs::remove_dir_all(&s.dir);
        }
    }
}

impl Live {
    fn commit(&mut self, who: &ProcId, puts: &[Put]) {
        if !self.off && !self.locks.lock_all(LOCK_WAIT) {
            self.off = true;
            log::warn!(
                "server: ds21 store of {}: a client's lock was not released within {:?} \
                 (a client died in a Get?); committed data is no longer written there, \
                 only withdrawn",
                who.nspace,
                LOCK_WAIT
            );
        }
        let locked = !self.off;
        let mut patches = Vec::new();
        for p in puts {
            let shared = matches!(p.scope, sys::PMIX_LOCAL | sys::PMIX_GLOBAL);
            let put = match (locked, shared) {
                (true, true) => self.chains.put(who.rank, p.key.as_str(), &p.value),
                _ => Err(Error::bad_param("not written")),
            };
            match put {
                Ok(ps) => patches.extend(ps),
                Err(e) => {
                    if locked && shared {
                        log::debug!("server: ds21: {}", e.context);
                    }
                    patches.extend(self.chains.invalidate(who.rank, p.key.as_str().as_bytes()))
                }
            }
        }
        if let Err(e) = self.apply(&patches) {
            log::warn!("server: ds21 store of {}: {e}", who.nspace);
        }
        if locked {
            self.locks.unlock_all();
        }
    }

    fn apply(&self, patches: &[Patch]) -> std::io::Result<()> {
        for p in patches {
            let seg = match p.seg {
                Seg::Meta(i) => self.meta.get(i),
                Seg::Data(i) => self.data.get(i),
            };
            let Some(seg) = seg else {
                return Err(std::io::Error::other(format!("no segment {:?}", p.seg)));
            };
            seg.write(p.at, &p.bytes)?;
        }
        Ok(())
    }
}

/// The chains of a written image and its meta and data segments, mapped.
fn live(dir: &Path, name: &str, image: &NsImage) -> Result<(Chains, Vec<Mapping>, Vec<Mapping>)> {
    let g = image.geometry;
    let map = |kind: &str, i: usize, len: usize| {
        let p = dir.join(format!("{kind}-{name}-{i}"));
        crate::sys::ds21::map(&p, len).map_err(|e| io_err("map", &p, e))
    };
    let meta = (0..image.meta.len())
        .map(|i| map("smseg", i, g.meta))
        .collect::<Result<_>>()?;
    let data = (0..image.data.len())
        .map(|i| map("smdataseg", i, g.data))
        .collect::<Result<_>>()?;
    Ok((Chains::of(image)?, meta, data))
}

/// The directory with the lock segment of `nspace` and an empty initial segment.
fn make_store(dir: &Path, nspace: &str, num_locks: u32) -> Result<LockSeg> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(dir)
        .map_err(|e| io_err("mkdir", dir, e))?;
    let sys = crate::sys::ds21::mutex_size();
    let l = LockLayout::new(
        num_locks,
        sys,
        crate::sys::ds21::cache_line(),
        crate::sys::ds21::page_size(),
    );
    let lock = dir.join(format!("smlockseg-{nspace}"));
    let mutexes = (l.mutex_offs, l.align, 2 * num_locks as usize);
    let locks = crate::sys::ds21::lock_segment(&lock, l.seg_size, &l.header(), mutexes)
        .map_err(|e| io_err("lock segment", &lock, e))?;
    let init = dir.join(INITIAL);
    crate::sys::ds21::segment(&init, img::INITIAL_SEG_SIZE, &img::initial_segment(&[])?)
        .map_err(|e| io_err("initial segment", &init, e))?;
    Ok(locks)
}

/// The namespace's meta and data segments, then its initial-segment entry (the count,
/// which makes it visible, written last).
fn write_image(dir: &Path, j: &JobInfo, host: &str) -> Result<NsImage> {
    let name = j.nspace.as_str();
    let g = Geometry::default();
    let image = NsImage::build_split(g, &img::job_records(j, host)?, &img::hot_len)?;
    for (i, b) in image.meta.iter().enumerate() {
        let p = dir.join(format!("smseg-{name}-{i}"));
        crate::sys::ds21::segment(&p, g.meta, b).map_err(|e| io_err("meta segment", &p, e))?;
    }
    for (i, b) in image.data.iter().enumerate() {
        let p = dir.join(format!("smdataseg-{name}-{i}"));
        crate::sys::ds21::segment(&p, g.data, b).map_err(|e| io_err("data segment", &p, e))?;
    }
    let init = img::initial_segment(&[image.entry(name)?])?;
    let p = dir.join(INITIAL);
    // entry first, then count and "full" flag
    crate::sys::ds21::overwrite_at(&p, 16, &init[16..])
        .and_then(|()| crate::sys::ds21::overwrite_at(&p, 0, &init[..16]))
        .map_err(|e| io_err("initial segment", &p, e))?;
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Key, Value};

    #[test]
    fn a_store_is_made_written_once_and_removed() {
        let base = std::env::temp_dir().join(format!("ds21-srv-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let st = Stores::new(base.clone(), "h".into());
        let ns = Nspace::new("job.1").unwrap();
        let dir = st.prepare(&ns, 2).unwrap();
        assert_eq!(st.prepare(&ns, 2), Some(dir.clone()));
        let init = std::fs::read(dir.join(INITIAL)).unwrap();
        assert_eq!(init.len(), img::INITIAL_SEG_SIZE);
        assert!(init.iter().all(|&b| b == 0));
        let lock = std::fs::read(dir.join("smlockseg-job.1")).unwrap();
        assert_eq!(u32::from_le_bytes(lock[8..12].try_into().unwrap()), 8);
        let j = JobInfo {
            nspace: ns.clone(),
            kvals: vec![(Key::new("pmix.job.size").unwrap(), Value::Uint32(3))],
        };
        st.write_job(&j);
        let init = std::fs::read(dir.join(INITIAL)).unwrap();
        assert_eq!(init[0], 1);
        assert_eq!(&init[16..22], b"job.1\0");
        let img = NsImage {
            geometry: Geometry::default(),
            meta: vec![std::fs::read(dir.join("smseg-job.1-0")).unwrap()],
            data: vec![std::fs::read(dir.join("smdataseg-job.1-0")).unwrap()],
        };
        let w = pmix_sys::PMIX_RANK_WILDCARD;
        assert_eq!(
            img.lookup(w, "pmix.job.size").unwrap(),
            Some(Value::Uint32(3))
        );
        st.remove(&ns);
        assert!(!dir.exists());
        std::fs::remove_dir_all(&base).unwrap();
    }

    fn put(k: &str, scope: u8, v: Value) -> Put {
        Put {
            key: Key::new(k).unwrap(),
            scope,
            value: v,
        }
    }

    #[test]
    fn commits_are_written_then_only_withdrawn_once_a_lock_is_stuck() {
        let base = std::env::temp_dir().join(format!("ds21-srv-c-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let st = Stores::new(base.clone(), "h".into());
        let ns = Nspace::new("job.2").unwrap();
        let dir = st.prepare(&ns, 2).unwrap();
        let p1 = ProcId::new(ns.clone(), 1);
        // before the job data is written: nothing to write into
        st.commit(&p1, &[put("early", sys::PMIX_GLOBAL, Value::Int(1))]);
        st.write_job(&JobInfo {
            nspace: ns.clone(),
            kvals: vec![(Key::new("pmix.job.size").unwrap(), Value::Uint32(2))],
        });
        let read = || NsImage {
            geometry: Geometry::default(),
            meta: vec![std::fs::read(dir.join("smseg-job.2-0")).unwrap()],
            data: vec![std::fs::read(dir.join("smdataseg-job.2-0")).unwrap()],
        };
        st.commit(
            &p1,
            &[
                put("a", sys::PMIX_GLOBAL, Value::Int(1)),
                put("l", sys::PMIX_LOCAL, Value::string("x")),
                put("r", sys::PMIX_REMOTE, Value::Int(3)),
            ],
        );
        let img = read();
        assert_eq!(img.lookup(1, "a").unwrap(), Some(Value::Int(1)));
        assert_eq!(img.lookup(1, "l").unwrap(), Some(Value::string("x")));
        assert_eq!(img.lookup(1, "r").unwrap(), None);
        assert_eq!(img.lookup(1, "early").unwrap(), None);
        // a key re-committed remote-only is withdrawn
        st.commit(&p1, &[put("l", sys::PMIX_REMOTE, Value::Int(4))]);
        assert_eq!(read().lookup(1, "l").unwrap(), None);
        // a reader holds its lock: the commit gives up after LOCK_WAIT, withdraws
        let held = |f: &dyn Fn(&Live)| f(st.lock()[&ns].live.as_ref().unwrap());
        held(&|l| assert!(l.locks.lock_all(LOCK_WAIT)));
        let t = std::time::Instant::now();
        st.commit(&p1, &[put("a", sys::PMIX_GLOBAL, Value::Int(2))]);
        assert!(t.elapsed() >= LOCK_WAIT);
        let img = read();
        assert_eq!(img.lookup(1, "a").unwrap(), None);
        assert_eq!(
            img.lookup(sys::PMIX_RANK_WILDCARD, "pmix.job.size")
                .unwrap(),
            Some(Value::Uint32(2))
        );
        // and never tries the locks again
        let t = std::time::Instant::now();
        st.commit(&p1, &[put("b", sys::PMIX_GLOBAL, Value::Int(2))]);
        assert!(t.elapsed() < LOCK_WAIT);
        assert_eq!(read().lookup(1, "b").unwrap(), None);
        held(&|l| l.locks.unlock_all());
        st.remove_all();
        std::fs::remove_dir_all(&base).unwrap();
    }
}
