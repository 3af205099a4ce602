//! A job for `PMIx_Spawn`: its layout on this node (same host, session and slots as the
//! job on the command line), its scratch directories, and one plan per rank built from
//! the `pmix_app_t`s (command resolved against `PATH`, argv, working directory, and the
//! app's `env` entries added to each rank's environment).

use crate::job::{AppLayout, Layout, NODE_ID};
use crate::launch::{resolve_program, RankPlan};
use crate::scratch::Scratch;
use pmix_core::{App, Error, Info, Nspace, Result};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// What [`plan`] produced.
pub struct SpawnPlan {
    /// The new job's layout.
    pub layout: Layout,
    /// One plan per rank, with the variables its app adds.
    pub ranks: Vec<(RankPlan, Vec<(String, String)>)>,
    /// The job's scratch directories (None when the first job has no scratch root).
    pub scratch: Option<Scratch>,
}

/// True if `key` is set to true in `info`.
pub fn flag(info: &[Info], key: &str) -> bool {
    info.iter()
        .any(|i| i.key.as_str() == key && i.value.is_true())
}

fn text(b: &Option<Vec<u8>>) -> Option<String> {
    b.as_ref()
        .and_then(|v| String::from_utf8(v.clone()).ok())
        .filter(|s| !s.is_empty())
}

/// An app's argv as text (empty when it gives none).
fn argv_of(app: &App) -> Vec<String> {
    app.argv
        .as_ref()
        .map(|v| {
            v.iter()
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The `NAME=VALUE` entries of an app's environment (others are left out).
fn env_of(app: &App) -> Vec<(String, String)> {
    app.env
        .iter()
        .flatten()
        .filter_map(|e| {
            let s = String::from_utf8_lossy(e).into_owned();
            s.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect()
}

/// Lay out `apps` as namespace `nspace`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an app without a command or with fewer than one process;
/// `PMIX_ERR_JOB_FAILED_TO_LAUNCH` for a command that is not found or scratch
/// directories that cannot be made.
pub fn plan(
    nspace: &Nspace,
    first: &Layout,
    parent_wdir: Option<&Path>,
    path: Option<&OsStr>,
    apps: &[App],
) -> Result<SpawnPlan> {
    let failed = |m: String| Error::new(pmix_sys::PMIX_ERR_JOB_FAILED_TO_LAUNCH, m);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let mut layouts = Vec::new();
    let mut ranks = Vec::new();
    let mut next = 0u32;
    for (appnum, app) in (0u32..).zip(apps) {
        let argv = argv_of(app);
        let Some(cmd) = text(&app.cmd).or_else(|| argv.first().cloned()) else {
            return Err(Error::bad_param(format!("app {appnum} names no command")));
        };
        let nprocs = u32::try_from(app.maxprocs)
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                Error::bad_param(format!("app {appnum} asks for {} processes", app.maxprocs))
            })?;
        let env = env_of(app);
        let app_path: Option<OsString> = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| OsString::from(v));
        let prog = resolve_program(&cmd, app_path.as_deref().or(path))
            .ok_or_else(|| failed(format!("{cmd}: command not found")))?;
        let wdir = match text(&app.cwd) {
            Some(w) if Path::new(&w).is_absolute() => PathBuf::from(w),
            Some(w) => parent_wdir.unwrap_or(&cwd).join(w),
            None => parent_wdir.map_or_else(|| cwd.clone(), Path::to_path_buf),
        };
        let prog = if prog.is_absolute() {
            prog
        } else {
            cwd.join(prog)
        };
        let argv = if argv.is_empty() { vec![cmd] } else { argv };
        for _ in 0..nprocs {
            ranks.push((
                RankPlan {
                    path: prog.clone(),
                    argv: argv.iter().map(OsString::from).collect(),
                    wdir: Some(wdir.clone()),
                },
                env.clone(),
            ));
        }
        layouts.push(AppLayout {
            appnum,
            first: next,
            size: nprocs,
            argv,
            wdir,
        });
        next += nprocs;
    }
    if layouts.is_empty() {
        return Err(Error::bad_param("nothing to spawn"));
    }
    let base = first
        .dirs
        .tmpdir
        .parent()
        .map_or_else(|| PathBuf::from("/tmp"), Path::to_path_buf);
    let (uid, _) = crate::sys::uid_gid();
    let scratch = Scratch::create(
        &base,
        uid,
        std::process::id(),
        nspace.as_str(),
        NODE_ID,
        next,
    )
    .map_err(|e| failed(format!("cannot create the job's scratch directory: {e}")))?;
    let layout = Layout {
        nspace: nspace.clone(),
        nodes: crate::job::nodes(&first.hostname, next, 1),
        hostname: first.hostname.clone(),
        session_id: first.session_id,
        apps: layouts,
        ncpus: first.ncpus,
        dirs: scratch.dirs().clone(),
    };
    Ok(SpawnPlan {
        layout,
        ranks,
        scratch: Some(scratch),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(cmd: &str, argv: &[&str], n: i32) -> App {
        App {
            cmd: Some(cmd.as_bytes().to_vec()),
            argv: Some(argv.iter().map(|a| a.as_bytes().to_vec()).collect()),
            env: Some(vec![b"SPAWNED_VAR=yes".to_vec()]),
            cwd: Some(b"/usr".to_vec()),
            maxprocs: n,
            info: vec![],
        }
    }

    #[test]
    fn apps_become_ranks_with_their_env_and_scratch() {
        let first = crate::job::tests::layout();
        let mut first = first;
        let base = std::env::temp_dir().join(format!("pmixrun-spawn-{}", std::process::id()));
        std::fs::create_dir_all(&base).expect("base");
        first.dirs.tmpdir = base.join("pmixrun.x");
        let ns = Nspace::new("pmixrun.host.42.1").expect("ns");
        let p = plan(
            &ns,
            &first,
            None,
            Some(OsStr::new("/bin:/usr/bin")),
            &[app("sh", &["sh", "-c", "true"], 2), app("true", &[], 1)],
        )
        .expect("plan");
        assert_eq!(p.layout.size(), 3);
        assert_eq!(p.ranks.len(), 3);
        assert_eq!(p.layout.apps[1].first, 2);
        assert_eq!(p.ranks[0].0.argv.len(), 3);
        assert_eq!(p.ranks[2].0.argv, vec![OsString::from("true")]);
        assert_eq!(p.ranks[0].0.wdir.as_deref(), Some(Path::new("/usr")));
        assert_eq!(p.ranks[0].1, vec![("SPAWNED_VAR".into(), "yes".into())]);
        let dirs = p.layout.dirs.clone();
        assert!(dirs.procdirs.iter().all(|d| d.is_dir()));
        drop(p);
        assert!(!dirs.tmpdir.exists(), "scratch removed with the plan");
        let _ = std::fs::remove_dir_all(&base);
        assert!(plan(&ns, &first, None, None, &[app("no-such-cmd-xyz", &[], 1)]).is_err());
        assert_eq!(
            plan(&ns, &first, None, None, &[app("sh", &[], 0)])
                .err()
                .map(|e| e.status),
            Some(pmix_sys::PMIX_ERR_BAD_PARAM)
        );
    }
}
