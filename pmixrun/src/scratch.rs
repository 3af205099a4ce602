//! The job's scratch tree, created before launch and removed when the job ends:
//!
//! ```text
//! $TMPDIR/pmixrun.<uid>.<pid>[.<k>]/   PMIX_TMPDIR (mode 0700)
//!     node<id>/                        the node's PMIx server directory (rendezvous;
//!                                      one per simulated node under --nodes K)
//!     <nspace>/                        PMIX_NSDIR
//!         <rank>/                      PMIX_PROCDIR of each rank
//! ```

use crate::job::Dirs;
use std::fs::DirBuilder;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// The created tree; dropping it removes everything under it.
#[derive(Debug)]
pub struct Scratch {
    dirs: Dirs,
    node: PathBuf,
}

impl Scratch {
    /// Create the tree under `base` for job `nspace` with `nranks` ranks on node `node_id`.
    pub fn create(
        base: &Path,
        uid: u32,
        pid: u32,
        nspace: &str,
        node_id: u32,
        nranks: u32,
    ) -> io::Result<Scratch> {
        let mut builder = DirBuilder::new();
        builder.mode(0o700);
        // A stale directory of a dead job with the same pid: pick the next name.
        let mut root = None;
        for k in 0..100u32 {
            let name = if k == 0 {
                format!("pmixrun.{uid}.{pid}")
            } else {
                format!("pmixrun.{uid}.{pid}.{k}")
            };
            let p = base.join(name);
            match builder.create(&p) {
                Ok(()) => {
                    root = Some(p);
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("cannot create {}: {e}", p.display()),
                    ))
                }
            }
        }
        let root = root.ok_or_else(|| {
            io::Error::other(format!(
                "no free scratch directory name in {}",
                base.display()
            ))
        })?;
        // From here on a failure removes what was made.
        let mut s = Scratch {
            dirs: Dirs {
                tmpdir: root.clone(),
                nsdir: root.join(nspace),
                procdirs: Vec::new(),
            },
            node: root.join(format!("node{node_id}")),
        };
        builder.create(&s.node)?;
        builder.create(&s.dirs.nsdir)?;
        for r in 0..nranks {
            let d = s.dirs.nsdir.join(r.to_string());
            builder.create(&d)?;
            s.dirs.procdirs.push(d);
        }
        Ok(s)
    }

    /// The directories to register.
    pub fn dirs(&self) -> &Dirs {
        &self.dirs
    }

    /// The node's server directory.
    pub fn node_dir(&self) -> &Path {
        &self.node
    }

    /// The server directory of node `id` (`node<id>`), created if missing (the
    /// multi-node bench has one per simulated node).
    pub fn node_dir_for(&self, id: u32) -> io::Result<PathBuf> {
        let d = self.dirs.tmpdir.join(format!("node{id}"));
        match DirBuilder::new().mode(0o700).create(&d) {
            Ok(()) => Ok(d),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => Ok(d),
            Err(e) => Err(e),
        }
    }
}

/// Remove the scratch trees of dead jobs of user `uid` under `base` (a pmixrun that was
/// SIGKILLed leaves its tree, with its rendezvous directory and socket, behind): those
/// named `pmixrun.<uid>.<pid>[.<k>]`, owned by `uid`, whose pid no longer runs (never
/// `own_pid`'s). Returns how many were removed.
pub fn remove_stale(base: &Path, uid: u32, own_pid: u32) -> usize {
    use std::os::unix::fs::MetadataExt;
    let Ok(rd) = std::fs::read_dir(base) else {
        return 0;
    };
    let prefix = format!("pmixrun.{uid}.");
    let mut removed = 0;
    for ent in rd.flatten() {
        let name = ent.file_name().to_string_lossy().to_string();
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        let mut parts = rest.split('.');
        let pid = parts.next().and_then(|p| p.parse::<u32>().ok());
        let tail_ok = parts.all(|k| k.parse::<u32>().is_ok());
        let Some(pid) = pid.filter(|&p| p != own_pid && p > 0 && tail_ok) else {
            continue;
        };
        let ours =
            std::fs::symlink_metadata(ent.path()).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if !ours || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        match std::fs::remove_dir_all(ent.path()) {
            Ok(()) => {
                log::debug!("removed the scratch tree of dead job {name}");
                removed += 1;
            }
            Err(e) => log::debug!("cannot remove stale {name}: {e}"),
        }
    }
    removed
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.dirs.tmpdir) {
            if e.kind() != io::ErrorKind::NotFound {
                eprintln!(
                    "pmixrun: could not remove {}: {e}",
                    self.dirs.tmpdir.display()
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn base(tag: &str) -> PathBuf {
        let b = std::env::temp_dir().join(format!("pmixrun-test-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&b).expect("base");
        b
    }

    #[test]
    fn tree_is_created_private_and_removed() {
        let b = base("tree");
        let s = Scratch::create(&b, 7, 99, "ns.x", 0, 3).expect("create");
        let root = s.dirs().tmpdir.clone();
        assert_eq!(root, b.join("pmixrun.7.99"));
        let mode = std::fs::metadata(&root).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert!(s.node_dir().is_dir());
        assert_eq!(s.node_dir_for(0).expect("node0"), s.node_dir());
        let n3 = s.node_dir_for(3).expect("node3");
        assert!(n3.is_dir() && n3.starts_with(&root));
        assert_eq!(s.dirs().nsdir, root.join("ns.x"));
        assert_eq!(s.dirs().procdirs.len(), 3);
        assert!(s.dirs().procdirs[2].is_dir());
        std::fs::write(s.dirs().procdirs[0].join("f"), b"x").expect("file");
        // A second job with the same pid gets another name.
        let s2 = Scratch::create(&b, 7, 99, "ns.y", 0, 1).expect("create 2");
        assert_eq!(s2.dirs().tmpdir, b.join("pmixrun.7.99.1"));
        drop(s);
        drop(s2);
        assert!(!root.exists());
        std::fs::remove_dir(&b).expect("base is empty again");
    }

    #[test]
    fn stale_trees_of_dead_jobs_are_removed() {
        use std::os::unix::fs::MetadataExt;
        let b = base("stale");
        let uid = std::fs::metadata(&b).expect("meta").uid();
        // A pid that no longer runs: a child that has been reaped.
        let dead = std::process::Command::new("true")
            .spawn()
            .and_then(|mut c| c.wait().map(|_| c.id()))
            .expect("spawn true");
        let me = std::process::id();
        let keep = [
            format!("pmixrun.{uid}.{me}"),         // ourselves
            format!("pmixrun.{uid}.1"),            // a live pid (init)
            format!("pmixrun.{}.{dead}", uid + 1), // another user's name
            format!("pmixrun.{uid}.{dead}x"),      // not a scratch name
            format!("other.{uid}.{dead}"),
        ];
        let gone = [
            format!("pmixrun.{uid}.{dead}"),
            format!("pmixrun.{uid}.{dead}.3"),
        ];
        for n in keep.iter().chain(&gone) {
            std::fs::create_dir_all(b.join(n).join("node0/pmix-rs.0")).expect("mkdir");
        }
        assert_eq!(remove_stale(&b, uid, me), gone.len());
        for n in &keep {
            assert!(b.join(n).is_dir(), "{n} kept");
        }
        for n in &gone {
            assert!(!b.join(n).exists(), "{n} removed");
        }
        std::fs::remove_dir_all(&b).expect("cleanup");
    }

    #[test]
    fn unusable_base_is_an_error() {
        let e =
            Scratch::create(Path::new("/nonexistent/dir"), 0, 1, "n", 0, 1).expect_err("must fail");
        assert!(e.to_string().contains("/nonexistent/dir"));
    }
}
