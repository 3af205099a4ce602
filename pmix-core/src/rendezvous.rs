//! Rendezvous files: how a tool finds a server it was not started by.
//!
//! A server with tool support writes small files holding its URI, named as OpenPMIx
//! master names them (the contents are ours: the URI of our Unix socket, then a
//! `v<version>` line):
//!
//! | file | written when | found by a tool with |
//! |---|---|---|
//! | `<tmpdir>/pmix.<host>.tool.<pid>` | tool support | `PMIX_SERVER_PIDINFO` |
//! | `<tmpdir>/pmix.<host>.tool.<nspace>` | tool support | `PMIX_SERVER_NSPACE` |
//! | `<tmpdir>/pmix.<host>.tool` | `PMIX_SERVER_SESSION_SUPPORT` | (no target given) |
//! | `<systmpdir>/pmix.sys.<host>` | `PMIX_SERVER_SYSTEM_SUPPORT` | `PMIX_CONNECT_TO_SYSTEM` |
//!
//! `<tmpdir>` is `PMIX_SERVER_TMPDIR` (directive, else environment), else `$TMPDIR`, else
//! `/tmp`; `<systmpdir>` likewise from `PMIX_SYSTEM_TMPDIR`. The server removes its files
//! when it finalizes.
//!
//! With the OpenPMIx listener on, a file reads as OpenPMIx 4.2's tools expect
//! ([`write_v41`]): the `tcp4://` URI, the version we speak (`4.2.2`), then our own Unix
//! socket's URI, which our tools take ([`read`] prefers a `unix:` line).
//!
//! An OpenPMIx server's file holds its `tcp4://` URI, then its release (`5.0.11rc1`),
//! its pid, uid:gid and the date; [`read_entry`] returns the release with the URI, so
//! that our tool speaks that release's message forms (a tool has no `PMIX_VERSION` in
//! its environment, as a client its server started has).

use crate::error::{Error, Result};
use crate::params;
use pmix_sys as sys;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// `<dir>/pmix.<host>.tool.<pid>`.
pub fn pid_file(dir: &Path, host: &str, pid: i64) -> PathBuf {
    dir.join(format!("pmix.{}.tool.{}", host, pid))
}

/// `<dir>/pmix.<host>.tool.<nspace>`.
pub fn nspace_file(dir: &Path, host: &str, nspace: &str) -> PathBuf {
    dir.join(format!("pmix.{}.tool.{}", host, nspace))
}

/// `<dir>/pmix.<host>.tool`.
pub fn session_file(dir: &Path, host: &str) -> PathBuf {
    dir.join(format!("pmix.{}.tool", host))
}

/// `<dir>/pmix.sys.<host>`.
pub fn system_file(dir: &Path, host: &str) -> PathBuf {
    dir.join(format!("pmix.sys.{}", host))
}

/// A temporary directory: the directive's value, else the environment parameter `var`
/// (one of [`params::PARAMS`]),
/// else `$TMPDIR`, else `/tmp`.
pub fn tmpdir(given: Option<&str>, var: &str) -> PathBuf {
    given
        .map(PathBuf::from)
        .or_else(|| params::get_os(var).map(PathBuf::from))
        .or_else(|| params::get_os(params::TMPDIR).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("/tmp"))
}

/// Where a tool looks for a server's files: the tmpdir [`tmpdir`] names when a directive,
/// `var` or `$TMPDIR` gives one; otherwise `/tmp` and then `/dev/shm` (where pmixrun keeps
/// its scratch tree when `$TMPDIR` is unset).
pub fn search_bases(given: Option<&str>, var: &str) -> Vec<PathBuf> {
    let named = given.is_some() || params::is_set(var) || params::is_set(params::TMPDIR);
    if named {
        vec![tmpdir(given, var)]
    } else {
        vec![PathBuf::from("/tmp"), PathBuf::from("/dev/shm")]
    }
}

/// How deep [`search`] descends below the tmpdir (a launcher such as pmixrun keeps its
/// files in its scratch tree, as OpenPMIx's hosts keep them in their session directory).
const SEARCH_DEPTH: usize = 4;

/// Find a file called `name` in `dir` or below it (OpenPMIx master searches the tmpdir
/// tree too): `dir/name` first, then subdirectories we own, breadth first, up to
/// four levels; unreadable directories and symbolic links are skipped.
pub fn search(dir: &Path, name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let me = crate::sys::euid();
    let mut level = vec![dir.to_path_buf()];
    for _ in 0..=SEARCH_DEPTH {
        let mut next = Vec::new();
        for d in &level {
            let f = d.join(name);
            if f.is_file() {
                return Some(f);
            }
            let Ok(rd) = std::fs::read_dir(d) else {
                continue;
            };
            for e in rd.flatten() {
                let Ok(m) = std::fs::symlink_metadata(e.path()) else {
                    continue;
                };
                if m.is_dir() && m.uid() == me {
                    next.push(e.path());
                }
            }
        }
        if next.is_empty() {
            break;
        }
        next.sort();
        level = next;
    }
    None
}

/// Write `uri` to `path` (mode 0600, replacing an older file of ours).
///
/// # Errors
/// `PMIX_ERROR` if the file cannot be written.
pub fn write(path: &Path, uri: &str) -> Result<()> {
    write_lines(path, &[uri, &format!("v{}", crate::params::VERSION_STRING)])
}

/// Write a file for OpenPMIx tools and ours: `v41_uri` first (what OpenPMIx reads),
/// the OpenPMIx version whose protocol we speak, then `native_uri` (mode 0600).
///
/// # Errors
/// `PMIX_ERROR` if the file cannot be written.
pub fn write_v41(path: &Path, v41_uri: &str, native_uri: &str) -> Result<()> {
    let version = crate::codec::v41::wire::handshake::VERSION;
    write_lines(path, &[v41_uri, version, native_uri])
}

/// Write `lines` to `path`, one per line, mode 0600, replacing an older file of ours.
fn write_lines(path: &Path, lines: &[&str]) -> Result<()> {
    let fail = |e: std::io::Error| {
        Error::new(
            sys::PMIX_ERROR,
            format!("rendezvous file {}: {}", path.display(), e),
        )
    };
    let _ = std::fs::remove_file(path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(fail)?;
    for l in lines {
        writeln!(f, "{}", l).map_err(fail)?;
    }
    Ok(())
}

/// The URI in a rendezvous file: its first line naming a `unix:` socket (ours), else
/// its first line.
///
/// # Errors
/// `PMIX_ERR_NOT_FOUND` if the file does not exist or cannot be read,
/// `PMIX_ERR_BAD_PARAM` if its first line is empty.
pub fn read(path: &Path) -> Result<String> {
    read_entry(path).map(|e| e.uri)
}

/// What a rendezvous file tells a tool: the URI to connect to and, for an OpenPMIx
/// server's file, the server's release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// As [`read`] chooses it.
    pub uri: String,
    /// The line after the URI when the URI is the file's first line and that line is an
    /// OpenPMIx release (`4.2.2rc2`, `5.0.11rc1`: OpenPMIx's servers write their
    /// version there, and OpenPMIx's tools take the server's release from it). `None`
    /// for our own files (their `unix:` URI is taken; the version line is ours).
    pub release: Option<String>,
}

/// The URI of a rendezvous file and the server release it states (see [`Entry`]).
///
/// # Errors
/// As [`read`].
pub fn read_entry(path: &Path) -> Result<Entry> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::new(
            sys::PMIX_ERR_NOT_FOUND,
            format!("rendezvous file {}: {}", path.display(), e),
        )
    })?;
    let mut lines = text.lines().map(str::trim);
    let (uri, release) = match text.lines().find(|l| l.contains(";unix:")) {
        Some(ours) => (ours.trim(), None),
        None => {
            let first = lines.next().unwrap_or("");
            let release = lines
                .next()
                .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
                .filter(|v| crate::codec::v41::wire::handshake::version_of(v).is_some());
            (first, release.map(str::to_string))
        }
    };
    if uri.is_empty() {
        return Err(Error::bad_param(format!(
            "rendezvous file {} holds no URI",
            path.display()
        )));
    }
    Ok(Entry {
        uri: uri.to_string(),
        release,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_read() {
        let dir = std::env::temp_dir().join(format!("pmix-rs-rndz-test.{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = pid_file(&dir, "h", 12);
        assert!(f.ends_with("pmix.h.tool.12"));
        write(&f, "ns.0;unix:/x/sock").unwrap();
        assert_eq!(read(&f).unwrap(), "ns.0;unix:/x/sock");
        write(&f, "ns.1;unix:/y").unwrap();
        assert_eq!(read(&f).unwrap(), "ns.1;unix:/y");
        assert_eq!(
            read(&dir.join("absent")).unwrap_err().status,
            sys::PMIX_ERR_NOT_FOUND
        );
        write_v41(&f, "ns.1;tcp4://127.0.0.1:5", "ns.1;unix:/z").unwrap();
        assert_eq!(read(&f).unwrap(), "ns.1;unix:/z");
        let text = std::fs::read_to_string(&f).unwrap();
        assert_eq!(text.lines().next(), Some("ns.1;tcp4://127.0.0.1:5"));
        assert_eq!(read_entry(&f).unwrap().release, None);
        // An OpenPMIx server's file: URI, release, pid, uid:gid, date.
        std::fs::write(
            &f,
            "srv-1@0.0;tcp4://127.0.0.1:32801\n5.0.11rc1\n4676\n0:0\nSat Dec  5 01:10:46 2026\n",
        )
        .unwrap();
        let e = read_entry(&f).unwrap();
        assert_eq!(e.uri, "srv-1@0.0;tcp4://127.0.0.1:32801");
        assert_eq!(e.release.as_deref(), Some("5.0.11rc1"));
        std::fs::write(&f, "srv.0;tcp4://127.0.0.1:5\n").unwrap();
        assert_eq!(read_entry(&f).unwrap().release, None);
        std::fs::write(&f, "srv.0;tcp4://127.0.0.1:5\nv0.3\n").unwrap();
        assert_eq!(read_entry(&f).unwrap().release, None);
        std::fs::write(&f, "\n").unwrap();
        assert_eq!(read(&f).unwrap_err().status, sys::PMIX_ERR_BAD_PARAM);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
