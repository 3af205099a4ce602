//! `PMIx_tool_init` and friends: a tool is a client that finds its server itself and
//! either names itself or gets its identity from the server's host.
//!
//! # Finding the server
//! Tried in OpenPMIx master's order; the first target the directives name decides (a
//! named target that cannot be reached is an error, `PMIX_ERR_UNREACH`, unless
//! `PMIX_TOOL_CONNECT_OPTIONAL` is set):
//! 1. `PMIX_SERVER_URI` / `PMIX_TCP_URI` (our `<nspace>.<rank>;unix:<path>`, or
//!    `file:<path>` naming a file that holds it),
//! 2. `PMIX_TOOL_ATTACHMENT_FILE` (a rendezvous file),
//! 3. `PMIX_CONNECT_SYSTEM_FIRST` (then falls through) / `PMIX_CONNECT_TO_SYSTEM`
//!    (`pmix.sys.<host>` in the system tmpdir),
//! 4. `PMIX_SERVER_PIDINFO` (`pmix.<host>.tool.<pid>`),
//! 5. `PMIX_SERVER_NSPACE` (`pmix.<host>.tool.<nspace>`),
//! 6. the `PMIX_SERVER_URI*` environment a server gave its child (with
//!    `PMIX_NAMESPACE`/`PMIX_RANK` the tool then connects as that registered client),
//! 7. the session file `pmix.<host>.tool`.
//!
//! Files are looked up in `PMIX_SERVER_TMPDIR` / `PMIX_SYSTEM_TMPDIR` (directive, then
//! environment, then `$TMPDIR`, then `/tmp`); the tool files also in the directories
//! below it that we own (see [`crate::rendezvous::search`]).
//!
//! # Identity
//! `PMIX_TOOL_NSPACE` with `PMIX_TOOL_RANK` (one without the other is
//! `PMIX_ERR_BAD_PARAM`), else `PMIX_NAMESPACE`/`PMIX_RANK` from the environment, else the
//! server's host assigns one. Without a server the tool names itself `<host>:<pid>`,
//! rank 0.

use super::{Client, ClientConfig};
use crate::error::{Error, Result};
use crate::params;
use crate::protocol::PeerKind;
use crate::rendezvous as rv;
use crate::value::{Info, Nspace, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as k;
use std::path::PathBuf;
use std::time::Duration;

/// Where a tool's server is, as the directives describe it.
#[derive(Debug, Clone, Default)]
pub struct Target {
    uri: Option<String>,
    attachment: Option<String>,
    to_system: bool,
    system_first: bool,
    pid: Option<i64>,
    server_nspace: Option<String>,
    tmpdir: Option<String>,
    systmpdir: Option<String>,
    hostname: Option<String>,
    retries: u32,
    retry_delay: Duration,
    /// `PMIX_TOOL_CONNECT_OPTIONAL`.
    pub optional: bool,
    /// `PMIX_PRIMARY_SERVER` (for attach).
    pub primary: bool,
}

/// A server [`Target::find`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its URI.
    pub uri: String,
    /// Taken from the `PMIX_SERVER_URI*` a server put in our environment.
    pub from_env: bool,
    /// The OpenPMIx release its rendezvous file states (`5.0.11rc1`), if it does.
    pub release: Option<String>,
}

impl Found {
    fn uri(uri: String, from_env: bool) -> Found {
        Found {
            uri,
            from_env,
            release: None,
        }
    }
}

impl From<rv::Entry> for Found {
    fn from(e: rv::Entry) -> Found {
        Found {
            uri: e.uri,
            from_env: false,
            release: e.release,
        }
    }
}

/// `PMIx_tool_init`'s directives, decoded.
#[derive(Debug, Clone, Default)]
pub struct ToolOptions {
    /// `PMIX_TOOL_NSPACE`/`PMIX_TOOL_RANK`.
    pub id: Option<ProcId>,
    /// `PMIX_TOOL_DO_NOT_CONNECT`.
    pub do_not_connect: bool,
    /// Where the server is.
    pub target: Target,
}

fn string_of(i: &Info) -> Result<String> {
    i.value
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| Error::bad_param(format!("{} must be a string", i.key.as_str())))
}

impl Target {
    /// Read the server-locating directives.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a value of the wrong type, or two different
    /// `PMIX_SERVER_NSPACE`s.
    pub fn from_info(info: &[Info]) -> Result<Target> {
        let mut t = Target::default();
        for i in info {
            match i.key.as_str() {
                x if x == k::PMIX_SERVER_URI || x == k::PMIX_TCP_URI => t.uri = Some(string_of(i)?),
                x if x == k::PMIX_TOOL_ATTACHMENT_FILE => t.attachment = Some(string_of(i)?),
                x if x == k::PMIX_CONNECT_TO_SYSTEM => t.to_system = i.value.is_true(),
                x if x == k::PMIX_CONNECT_SYSTEM_FIRST => t.system_first = i.value.is_true(),
                x if x == k::PMIX_SERVER_PIDINFO => {
                    let pid = match i.value {
                        Value::Pid(p) | Value::Int(p) | Value::Int32(p) => i64::from(p),
                        ref v => v
                            .as_u64()
                            .and_then(|p| i64::try_from(p).ok())
                            .ok_or_else(|| Error::bad_param("PMIX_SERVER_PIDINFO must be a pid"))?,
                    };
                    if pid <= 0 {
                        return Err(Error::bad_param(format!(
                            "PMIX_SERVER_PIDINFO {} is not a pid",
                            pid
                        )));
                    }
                    t.pid = Some(pid);
                }
                x if x == k::PMIX_SERVER_NSPACE => {
                    let ns = string_of(i)?;
                    if t.server_nspace.as_ref().is_some_and(|o| o != &ns) {
                        return Err(Error::bad_param("two different PMIX_SERVER_NSPACE given"));
                    }
                    t.server_nspace = Some(ns);
                }
                x if x == k::PMIX_SERVER_TMPDIR => t.tmpdir = Some(string_of(i)?),
                x if x == k::PMIX_SYSTEM_TMPDIR => t.systmpdir = Some(string_of(i)?),
                x if x == k::PMIX_SERVER_HOSTNAME => t.hostname = Some(string_of(i)?),
                x if x == k::PMIX_TOOL_CONNECT_OPTIONAL => t.optional = i.value.is_true(),
                x if x == k::PMIX_PRIMARY_SERVER => t.primary = i.value.is_true(),
                x if x == k::PMIX_CONNECT_MAX_RETRIES => {
                    t.retries = i
                        .value
                        .as_u64()
                        .and_then(|v| u32::try_from(v).ok())
                        .ok_or_else(|| Error::bad_param("PMIX_CONNECT_MAX_RETRIES"))?
                }
                x if x == k::PMIX_CONNECT_RETRY_DELAY => {
                    t.retry_delay = Duration::from_secs(
                        i.value
                            .as_u64()
                            .ok_or_else(|| Error::bad_param("PMIX_CONNECT_RETRY_DELAY"))?,
                    )
                }
                _ => {}
            }
        }
        Ok(t)
    }

    /// True if the directives name a server.
    pub fn names_a_server(&self) -> bool {
        self.uri.is_some()
            || self.attachment.is_some()
            || self.to_system
            || self.system_first
            || self.pid.is_some()
            || self.server_nspace.is_some()
    }

    fn host(&self) -> String {
        self.hostname
            .clone()
            .or_else(|| params::get(params::PMIX_HOSTNAME))
            .unwrap_or_else(crate::sys::hostname)
    }

    fn tmpdir(&self) -> PathBuf {
        rv::tmpdir(self.tmpdir.as_deref(), params::PMIX_SERVER_TMPDIR)
    }

    /// The server's URI, whether we found it in a server's environment for us (then
    /// an identity from the environment makes us that registered client) and the
    /// OpenPMIx release its rendezvous file states.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH` when the named server (or, with none named, any) cannot be
    /// found; `PMIX_ERR_BAD_PARAM` for an unreadable `file:` URI.
    pub fn find(&self) -> Result<Found> {
        let unreach = |what: String| Error::new(sys::PMIX_ERR_UNREACH, what);
        let from_file = |p: PathBuf| {
            rv::read_entry(&p)
                .map(Found::from)
                .map_err(|e| unreach(format!("no server found: {}", e.context)))
        };
        let tmp = self.tmpdir();
        let bases = rv::search_bases(self.tmpdir.as_deref(), params::PMIX_SERVER_TMPDIR);
        let search = |p: PathBuf| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match bases.iter().find_map(|b| rv::search(b, &name)) {
                Some(f) => from_file(f),
                None => Err(unreach(format!(
                    "no server found: no {} in or below {}",
                    name,
                    bases
                        .iter()
                        .map(|b| b.display().to_string())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ))),
            }
        };
        if let Some(u) = &self.uri {
            return match u.strip_prefix("file:") {
                Some(f) => from_file(PathBuf::from(f)),
                None => Ok(Found::uri(u.clone(), false)),
            };
        }
        if let Some(f) = &self.attachment {
            return from_file(PathBuf::from(f));
        }
        let host = self.host();
        if self.to_system || self.system_first {
            let dir = rv::tmpdir(self.systmpdir.as_deref(), params::PMIX_SYSTEM_TMPDIR);
            match from_file(rv::system_file(&dir, &host)) {
                Ok(u) => return Ok(u),
                Err(e) if self.to_system => return Err(e),
                Err(_) => {}
            }
        }
        if let Some(pid) = self.pid {
            return search(rv::pid_file(&tmp, &host, pid));
        }
        if let Some(ns) = &self.server_nspace {
            return search(rv::nspace_file(&tmp, &host, ns));
        }
        if let Some(u) = params::server_uri() {
            return Ok(Found::uri(u, true));
        }
        search(rv::session_file(&tmp, &host))
    }
}

impl ToolOptions {
    /// Decode `PMIx_tool_init`'s directives (and the identity in the environment).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a namespace without a rank (or the reverse), a directive
    /// given twice or of the wrong type.
    pub fn from_info(info: &[Info]) -> Result<ToolOptions> {
        let mut ns: Option<String> = None;
        let mut rank: Option<u32> = None;
        let mut o = ToolOptions::default();
        for i in info {
            match i.key.as_str() {
                x if x == k::PMIX_TOOL_NSPACE => {
                    if ns.is_some() {
                        return Err(Error::bad_param("PMIX_TOOL_NSPACE given twice"));
                    }
                    ns = Some(string_of(i)?);
                }
                x if x == k::PMIX_TOOL_RANK => {
                    let r = i
                        .value
                        .as_u64()
                        .and_then(|r| u32::try_from(r).ok())
                        .ok_or_else(|| Error::bad_param("PMIX_TOOL_RANK must be a rank"))?;
                    rank = Some(r);
                }
                x if x == k::PMIX_TOOL_DO_NOT_CONNECT => o.do_not_connect = i.value.is_true(),
                _ => {}
            }
        }
        o.target = Target::from_info(info)?;
        o.id = match (ns, rank) {
            (Some(n), Some(r)) => Some(ProcId::new(Nspace::new(n)?, r)),
            (None, None) => {
                let (en, er) = (
                    params::get(params::PMIX_NAMESPACE),
                    params::get(params::PMIX_RANK),
                );
                match (en, er) {
                    (Some(n), Some(r)) => {
                        let r: u32 = r.trim().parse().map_err(|_| {
                            Error::bad_param(format!("PMIX_RANK={:?} is not a rank", r))
                        })?;
                        Some(ProcId::new(Nspace::new(n)?, r))
                    }
                    (None, None) => None,
                    _ => {
                        return Err(Error::bad_param(
                            "PMIX_NAMESPACE and PMIX_RANK must be set together",
                        ))
                    }
                }
            }
            _ => {
                return Err(Error::bad_param(
                    "PMIX_TOOL_NSPACE and PMIX_TOOL_RANK must be given together",
                ))
            }
        };
        Ok(o)
    }
}

/// The identity a tool without a server gives itself: `<host>:<pid>`, rank 0.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if the host name makes it too long.
pub fn self_assigned() -> Result<ProcId> {
    let host = params::get(params::PMIX_HOSTNAME).unwrap_or_else(crate::sys::hostname);
    Ok(ProcId::new(
        Nspace::new(format!("{}:{}", host, std::process::id()))?,
        0,
    ))
}

/// Connect a tool to the server `target` describes, as `id` (None: the host assigns one).
///
/// # Errors
/// As [`Target::find`] and [`Client::connect`].
pub fn connect(id: Option<&ProcId>, target: &Target) -> Result<Client> {
    let mut attempt = 0;
    loop {
        let r = target.find().and_then(|found| {
            let path = super::server_addr(&found.uri)?.with_release(found.release.as_deref());
            let (me, kind) = match id {
                Some(p) if found.from_env && !target.names_a_server() => {
                    (p.clone(), PeerKind::Client)
                }
                Some(p) => (p.clone(), PeerKind::ToolNamed),
                None => (self_assigned()?, PeerKind::ToolAssign),
            };
            Client::connect(ClientConfig {
                server: Some((me, path)),
                info: Vec::new(),
                kind,
            })
        });
        match r {
            Err(e) if attempt < target.retries => {
                attempt += 1;
                log::debug!("tool: connect attempt {} failed: {}", attempt, e);
                std::thread::sleep(target.retry_delay);
            }
            r => return r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool finds an OpenPMIx server by its pid file, and the release the file states.
    #[test]
    fn a_pid_file_gives_the_uri_and_an_openpmix_servers_release() {
        let dir = std::env::temp_dir().join(format!("pmix-rs-tool-test.{}", std::process::id()));
        let sub = dir.join("prtrn.42");
        std::fs::create_dir_all(&sub).unwrap();
        let uri = "srv@0.0;tcp4://127.0.0.1:4242";
        std::fs::write(
            rv::pid_file(&sub, "h", 42),
            format!("{}\n5.0.11rc1\n42\n", uri),
        )
        .unwrap();
        let info = [
            Info::new(k::PMIX_SERVER_PIDINFO, Value::Pid(42)).unwrap(),
            Info::new(k::PMIX_SERVER_TMPDIR, Value::string(dir.to_str().unwrap())).unwrap(),
            Info::new(k::PMIX_SERVER_HOSTNAME, Value::string("h")).unwrap(),
        ];
        let f = Target::from_info(&info).unwrap().find().unwrap();
        assert_eq!((f.uri.as_str(), f.from_env), (uri, false));
        assert_eq!(f.release.as_deref(), Some("5.0.11rc1"));
        let addr = crate::client::server_addr(&f.uri)
            .unwrap()
            .with_release(f.release.as_deref());
        assert!(matches!(
            addr,
            crate::client::ServerAddr::V41 {
                release: Some((5, 0)),
                ..
            }
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
