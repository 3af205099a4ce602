//! The environment parameters the library honours: one table, one accessor.
//!
//! Every read of a `PMIX_*`, `PMIX_MCA_*` or `TMPDIR` variable in pmix-core, the C API
//! and pmixrun goes through [`get`] (or [`get_os`], [`is_set`]), which accepts only the
//! names listed in [`PARAMS`]: a parameter cannot be honoured without being listed, and
//! `pmix_info` prints the whole table with the values it finds. An unlisted name is a
//! programming error: debug builds panic, release builds log it and read nothing.
//!
//! These are read when a process initialises (or starts a server or a job), never per
//! `PMIx_Get`/`PMIx_Put`; the lookup is a scan of a short table.

use std::ffi::OsString;

/// The version string this library reports: exported to children in `PMIX_VERSION`,
/// given to tools as `PMIX_VERSION_INFO`, written into rendezvous files.
pub const VERSION_STRING: &str = "7.0.0";

/// Who reads a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// A PMIx client (`PMIx_Init`).
    Client,
    /// A PMIx server (`PMIx_server_init`, including pmixrun's).
    Server,
    /// A PMIx tool (`PMIx_tool_init`).
    Tool,
    /// The pmixrun launcher itself.
    Pmixrun,
}

impl Reader {
    /// Its name in `pmix_info`'s output.
    pub fn name(self) -> &'static str {
        match self {
            Reader::Client => "client",
            Reader::Server => "server",
            Reader::Tool => "tool",
            Reader::Pmixrun => "pmixrun",
        }
    }
}

/// One environment parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The variable's name.
    pub name: &'static str,
    /// What applies when it is unset, as text (`"unset"` when nothing is assumed).
    pub default: &'static str,
    /// Who reads it.
    pub readers: &'static [Reader],
    /// One line on what it does.
    pub meaning: &'static str,
}

/// `PMIX_DEBUG`.
pub const PMIX_DEBUG: &str = "PMIX_DEBUG";
/// `PMIX_NAMESPACE`.
pub const PMIX_NAMESPACE: &str = "PMIX_NAMESPACE";
/// `PMIX_RANK`.
pub const PMIX_RANK: &str = "PMIX_RANK";
/// `PMIX_HOSTNAME`.
pub const PMIX_HOSTNAME: &str = "PMIX_HOSTNAME";
/// The `PMIX_SERVER_URI<v>` variables, in the order a client tries them (newest first).
pub const SERVER_URIS: [&str; 5] = [
    "PMIX_SERVER_URI41",
    "PMIX_SERVER_URI4",
    "PMIX_SERVER_URI3",
    "PMIX_SERVER_URI21",
    "PMIX_SERVER_URI2",
];
/// `PMIX_RS_SERVER_URI`: our own server's native socket (`<nspace>.<rank>;unix:<path>`),
/// read before the `PMIX_SERVER_URI<v>` variables.
pub const PMIX_RS_SERVER_URI: &str = "PMIX_RS_SERVER_URI";
/// `PMIX_RS_V41` (ours): `0` turns the server's OpenPMIx (v41) listener off.
pub const PMIX_RS_V41: &str = "PMIX_RS_V41";
/// `PMIX_RS_DS21` (ours): `0` keeps the server's OpenPMIx 4.2.x clients on the hash gds.
pub const PMIX_RS_DS21: &str = "PMIX_RS_DS21";
/// `PMIX_RS_MUNGE_TIMEOUT` (ours): seconds an OpenPMIx connect waits for munged's verdict.
pub const PMIX_RS_MUNGE_TIMEOUT: &str = "PMIX_RS_MUNGE_TIMEOUT";
/// `PMIX_GDS_MODULE`: the gds modules an OpenPMIx server offers its clients.
pub const PMIX_GDS_MODULE: &str = "PMIX_GDS_MODULE";
/// `PMIX_SECURITY_MODE`: the security modules an OpenPMIx server offers its clients.
pub const PMIX_SECURITY_MODE: &str = "PMIX_SECURITY_MODE";
/// `PMIX_VERSION`: the release of the server that started the process.
pub const PMIX_VERSION: &str = "PMIX_VERSION";
/// `PMIX_SERVER_TMPDIR`.
pub const PMIX_SERVER_TMPDIR: &str = "PMIX_SERVER_TMPDIR";
/// `PMIX_SYSTEM_TMPDIR`.
pub const PMIX_SYSTEM_TMPDIR: &str = "PMIX_SYSTEM_TMPDIR";
/// `TMPDIR`.
pub const TMPDIR: &str = "TMPDIR";
/// `PMIX_LAUNCHER_RNDZ_URI`.
pub const PMIX_LAUNCHER_RNDZ_URI: &str = "PMIX_LAUNCHER_RNDZ_URI";
/// `PMIX_KEEPALIVE_PIPE`.
pub const PMIX_KEEPALIVE_PIPE: &str = "PMIX_KEEPALIVE_PIPE";
/// `PMIX_MCA_pmix_max_iof_cache` (OpenPMIx's MCA parameter of that name).
pub const MAX_IOF_CACHE: &str = "PMIX_MCA_pmix_max_iof_cache";
/// `PMIX_MCA_pmix_server_fence_delta_modex`.
pub const DELTA_MODEX: &str = "PMIX_MCA_pmix_server_fence_delta_modex";
/// `PMIX_RS_JOB_SEGMENT_MIN` (ours).
pub const JOB_SEGMENT_MIN: &str = "PMIX_RS_JOB_SEGMENT_MIN";
/// `PMIX_RS_DUMP_SIGNAL` (ours): the signal that asks for a debug dump.
pub const DUMP_SIGNAL: &str = "PMIX_RS_DUMP_SIGNAL";
/// `PMIX_RS_DUMP_DIR` (ours): where debug dumps are written.
pub const DUMP_DIR: &str = "PMIX_RS_DUMP_DIR";

/// `PMIX_RS_SHM_FENCE` (ours): `0` keeps same-node fences on the socket path.
pub const SHM_FENCE: &str = "PMIX_RS_SHM_FENCE";
/// `PMIX_RS_SHM_COLLECT_BYTES` (ours): room per rank for a collecting fence's data in
/// the shared-memory fence area.
pub const SHM_COLLECT_BYTES: &str = "PMIX_RS_SHM_COLLECT_BYTES";
/// `PMIX_RS_SHM_FENCE_YIELDS` (ours): how often a rank waiting in the fence area yields
/// the CPU before it sleeps.
pub const SHM_FENCE_YIELDS: &str = "PMIX_RS_SHM_FENCE_YIELDS";
/// `PMIX_RS_PROGRESS_YIELDS` (ours): how often a progress thread yields before it sleeps.
pub const PROGRESS_YIELDS: &str = "PMIX_RS_PROGRESS_YIELDS";
/// `PMIX_RS_MAX_PARKED` (ours).
pub const MAX_PARKED: &str = "PMIX_RS_MAX_PARKED";
/// `PMIX_RS_MAX_PARKED_BYTES` (ours).
pub const MAX_PARKED_BYTES: &str = "PMIX_RS_MAX_PARKED_BYTES";

use Reader::{Client, Pmixrun, Server, Tool};

const URI_MEANING: &str =
    "the server's URI a client or tool connects to (set by its server's setup_fork; \
     the first of PMIX_SERVER_URI41, 4, 3, 21, 2 that is set is used)";

/// Every environment parameter the library and pmixrun honour.
pub const PARAMS: &[Param] = &[
    Param {
        name: PMIX_DEBUG,
        default: "unset",
        readers: &[Client, Server, Tool, Pmixrun],
        meaning: "log to stderr: 1/yes = debug, or a level (error, warn, info, debug, trace); \
                  0/no/off = quiet",
    },
    Param {
        name: PMIX_NAMESPACE,
        default: "unset",
        readers: &[Client, Tool],
        meaning: "the namespace of this process, set by its server's setup_fork \
                  (unset with no server: a singleton)",
    },
    Param {
        name: PMIX_RANK,
        default: "unset",
        readers: &[Client, Tool],
        meaning: "the rank of this process, set by its server's setup_fork",
    },
    Param {
        name: PMIX_RS_SERVER_URI,
        default: "unset",
        readers: &[Client, Tool],
        meaning: "our own server's native socket, <nspace>.<rank>;unix:<path> (set by our \
                  servers' setup_fork; read before PMIX_SERVER_URI41...; without it a \
                  tcp4:// PMIX_SERVER_URI41 makes the client speak OpenPMIx's protocol)",
    },
    Param {
        name: PMIX_GDS_MODULE,
        default: "unset (hash)",
        readers: &[Client],
        meaning: "the gds modules an OpenPMIx server offers (comma separated); our client \
                  under it needs hash and is refused at connect otherwise",
    },
    Param {
        name: PMIX_VERSION,
        default: "unset (4.2)",
        readers: &[Client],
        meaning: "the release of the server that started the process (set by setup_fork); \
                  under an OpenPMIx server it picks that release's form of the messages \
                  that differ (5.x: a group destruct names its members)",
    },
    Param {
        name: PMIX_SECURITY_MODE,
        default: "unset (native)",
        readers: &[Client],
        meaning: "the security modules an OpenPMIx server offers; our client under it \
                  needs native or none and is refused at connect otherwise",
    },
    Param {
        name: SERVER_URIS[0],
        default: "unset",
        readers: &[Client, Tool],
        meaning: URI_MEANING,
    },
    Param {
        name: SERVER_URIS[1],
        default: "unset",
        readers: &[Client, Tool],
        meaning: URI_MEANING,
    },
    Param {
        name: SERVER_URIS[2],
        default: "unset",
        readers: &[Client, Tool],
        meaning: URI_MEANING,
    },
    Param {
        name: SERVER_URIS[3],
        default: "unset",
        readers: &[Client, Tool],
        meaning: URI_MEANING,
    },
    Param {
        name: SERVER_URIS[4],
        default: "unset",
        readers: &[Client, Tool],
        meaning: URI_MEANING,
    },
    Param {
        name: PMIX_RS_V41,
        default: "1",
        readers: &[Server],
        meaning: "0 turns off the server's OpenPMIx (v41, loopback TCP) listener; then \
                  children get only PMIX_RS_SERVER_URI",
    },
    Param {
        name: PMIX_RS_DS21,
        default: "1",
        readers: &[Server],
        meaning: "0 keeps the server's OpenPMIx 4.2.x clients on the hash gds; otherwise \
                  they read job-level data from a ds21 shared-memory store the server \
                  writes per namespace (docs/DS21.md)",
    },
    Param {
        name: PMIX_RS_MUNGE_TIMEOUT,
        default: "5",
        readers: &[Server],
        meaning: "seconds the server waits for munged to check an OpenPMIx client's munge \
                  credential (fractions allowed); past it that one connect is refused with \
                  PMIX_ERR_TIMEOUT",
    },
    Param {
        name: SHM_FENCE,
        default: "1",
        readers: &[Server],
        meaning: "0 keeps fences without data among a namespace's ranks, all on one node, \
                  on the socket path instead of the shared-memory fence area",
    },
    Param {
        name: SHM_COLLECT_BYTES,
        default: "4088",
        readers: &[Server],
        meaning: "bytes of committed data each rank may bring to a collecting fence in the \
                  shared-memory fence area (a rank with more, or 0, takes the socket path, \
                  and the others follow it there)",
    },
    Param {
        name: SHM_FENCE_YIELDS,
        default: "0",
        readers: &[Client],
        meaning: "times a rank waiting in the shared-memory fence area yields the CPU, \
                  looking at the fence in between, before it sleeps until the last rank \
                  arrives",
    },
    Param {
        name: PROGRESS_YIELDS,
        default: "4",
        readers: &[Client, Server, Tool],
        meaning: "how many times a progress thread, after a round of work, yields the CPU \
                  and looks at its sockets again before it sleeps (0: sleeps at once; at \
                  most 64)",
    },
    Param {
        name: PMIX_HOSTNAME,
        default: "the host name (gethostname)",
        readers: &[Client, Tool],
        meaning: "the node name a process reports and looks rendezvous files up under",
    },
    Param {
        name: PMIX_SERVER_TMPDIR,
        default: "$TMPDIR",
        readers: &[Tool],
        meaning: "where a tool looks for a server's rendezvous files (the \
                  PMIX_SERVER_TMPDIR directive wins)",
    },
    Param {
        name: PMIX_SYSTEM_TMPDIR,
        default: "$TMPDIR",
        readers: &[Server, Tool],
        meaning: "where the system server's rendezvous file pmix.sys.<host> is written \
                  and looked up (the PMIX_SYSTEM_TMPDIR directive wins)",
    },
    Param {
        name: TMPDIR,
        default: "/tmp",
        readers: &[Server, Tool, Pmixrun],
        meaning: "base of the server's rendezvous directory and of the tmpdirs above; \
                  pmixrun's scratch tree (unset: /dev/shm if a writable tmpfs, else /tmp)",
    },
    Param {
        name: PMIX_LAUNCHER_RNDZ_URI,
        default: "unset",
        readers: &[Server],
        meaning: "set: this server was started by a tool, so it does not copy forwarded \
                  output to its own stdout/stderr by default",
    },
    Param {
        name: PMIX_KEEPALIVE_PIPE,
        default: "unset",
        readers: &[Server],
        meaning: "as PMIX_LAUNCHER_RNDZ_URI: set by a launching tool, forwarded output \
                  is not copied locally by default",
    },
    Param {
        name: MAX_IOF_CACHE,
        default: "1048576",
        readers: &[Server],
        meaning: "how many output messages a server keeps for late PMIx_IOF_pull \
                  registrations (also bounded at 16 MiB)",
    },
    Param {
        name: DELTA_MODEX,
        default: "0",
        readers: &[Server],
        meaning: "1/true: a server's fence contribution holds only what changed since its \
                  last fence (delta modex)",
    },
    Param {
        name: JOB_SEGMENT_MIN,
        default: "8192",
        readers: &[Server],
        meaning: "smallest per-process job table (bytes) a server publishes as a shared \
                  segment for its clients to map; 0 = every one, off = none",
    },
    Param {
        name: DUMP_SIGNAL,
        default: "unset",
        readers: &[Client, Server, Tool, Pmixrun],
        meaning: "a signal (USR1, USR2, URG, WINCH, RTMIN+N or a number) on which the \
                  progress thread writes a debug dump: recent blocking calls per thread, \
                  pending requests, a server's pending fences and parked requests",
    },
    Param {
        name: DUMP_DIR,
        default: "unset (stderr)",
        readers: &[Client, Server, Tool, Pmixrun],
        meaning: "directory the debug dump is written to, as pmix-dump.<pid> \
                  (see PMIX_RS_DUMP_SIGNAL); unset: stderr",
    },
    Param {
        name: MAX_PARKED,
        default: "65536",
        readers: &[Server],
        meaning: "how many requests a server holds unanswered for one client (Gets of \
                  data not there yet, fences, lookups, ...); beyond it the client's \
                  requests get PMIX_ERR_OUT_OF_RESOURCE (suffixes K, M, G)",
    },
    Param {
        name: MAX_PARKED_BYTES,
        default: "64Mi",
        readers: &[Server],
        meaning: "how many bytes those requests may account for (their frames plus 384 \
                  bytes each); beyond it, as for PMIX_RS_MAX_PARKED",
    },
];

/// The table entry of `name`.
pub fn lookup(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name == name)
}

/// Whether `name` is listed; an unlisted one is refused (panic in debug builds, a log
/// line in release builds).
fn listed(name: &str) -> bool {
    let ok = lookup(name).is_some();
    debug_assert!(
        ok,
        "environment parameter {name} is not listed in params::PARAMS"
    );
    if !ok {
        log::error!("environment parameter {name} is not listed in params::PARAMS; ignored");
    }
    ok
}

/// The value of the listed parameter `name`, if it is set to valid UTF-8.
pub fn get(name: &str) -> Option<String> {
    listed(name).then(|| std::env::var(name).ok()).flatten()
}

/// The raw value of the listed parameter `name`, if it is set.
pub fn get_os(name: &str) -> Option<OsString> {
    listed(name).then(|| std::env::var_os(name)).flatten()
}

/// Whether the listed parameter `name` is set (to anything).
pub fn is_set(name: &str) -> bool {
    get_os(name).is_some()
}

/// [`PMIX_RS_SERVER_URI`], else the first of the `PMIX_SERVER_URI<v>` variables that is set.
pub fn server_uri() -> Option<String> {
    server_uri_var().map(|(_, uri)| uri)
}

/// [`PMIX_RS_SERVER_URI`] if set, else the first of the `PMIX_SERVER_URI<v>` variables
/// that is set: its name and value.
pub fn server_uri_var() -> Option<(&'static str, String)> {
    std::iter::once(&PMIX_RS_SERVER_URI)
        .chain(SERVER_URIS.iter())
        .find_map(|v| get(v).map(|u| (*v, u)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_once() {
        for (i, p) in PARAMS.iter().enumerate() {
            assert!(
                PARAMS[i + 1..].iter().all(|q| q.name != p.name),
                "{} is listed twice",
                p.name
            );
        }
    }

    #[test]
    fn every_entry_says_who_reads_it_and_what_it_means() {
        for p in PARAMS {
            assert!(!p.readers.is_empty(), "{} has no reader", p.name);
            assert!(!p.meaning.is_empty(), "{} has no meaning", p.name);
            assert!(!p.default.is_empty(), "{} has no default text", p.name);
            let ours = p.name.starts_with("PMIX_") || p.name == TMPDIR;
            assert!(ours, "{} is not a PMIx parameter", p.name);
        }
    }

    #[test]
    fn the_server_uris_are_listed() {
        for u in SERVER_URIS {
            assert!(lookup(u).is_some(), "{u}");
        }
    }

    #[test]
    fn a_listed_parameter_reads_the_environment() {
        // PMIX_DEBUG is never set by `cargo test`; TMPDIR may be, so compare with std.
        assert_eq!(get_os(TMPDIR), std::env::var_os("TMPDIR"));
        assert_eq!(is_set(TMPDIR), std::env::var_os("TMPDIR").is_some());
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "not listed")]
    fn an_unlisted_name_is_refused() {
        let _ = get("PMIX_NOT_A_PARAMETER");
    }

    #[cfg(not(debug_assertions))]
    #[test]
    fn an_unlisted_name_reads_nothing() {
        assert_eq!(get("PATH"), None);
    }
}
