//! Opt-in logging: the library installs a logger only when `PMIX_DEBUG` is set in the
//! environment (`1`/`yes` = debug, or a level name: error, warn, info, debug, trace).
//! Lines go to stderr prefixed with the pid. Silent by default, but for one line: why an
//! init could not reach or talk to its server ([`init_failed`]).

use log::{LevelFilter, Log, Metadata, Record};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

struct StderrLogger;

impl Log for StderrLogger {
    fn enabled(&self, m: &Metadata<'_>) -> bool {
        m.level() <= log::max_level()
    }
    fn log(&self, r: &Record<'_>) {
        if self.enabled(r.metadata()) {
            // One write per line, so lines of several writers to one pipe do not mix.
            let line = format!(
                "[pmix {} {}] {}: {}\n",
                std::process::id(),
                r.level(),
                r.target(),
                r.args()
            );
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
    }
    fn flush(&self) {}
}

static LOGGER: StderrLogger = StderrLogger;
static INIT: Once = Once::new();

/// Install the stderr logger if `PMIX_DEBUG` asks for it. Cheap after the first call;
/// every entry point that can start work (init functions, first helper use) calls it.
pub fn init() {
    INIT.call_once(|| {
        let Some(v) = pmix_core::params::get(pmix_core::params::PMIX_DEBUG) else {
            return;
        };
        let level = match v.to_ascii_lowercase().as_str() {
            "" | "0" | "no" | "off" => return,
            "error" => LevelFilter::Error,
            "warn" => LevelFilter::Warn,
            "info" => LevelFilter::Info,
            "trace" => LevelFilter::Trace,
            _ => LevelFilter::Debug,
        };
        if log::set_logger(&LOGGER).is_ok() {
            log::set_max_level(level);
        }
    });
}

static INIT_FAILURE_TOLD: AtomicBool = AtomicBool::new(false);

/// Say on stderr, once per process and whatever `PMIX_DEBUG` says, why `api` (`PMIx_Init`,
/// `PMIx_tool_init`) failed: the error names what was tried (the `PMIX_SERVER_URI*`
/// variable, the rendezvous file, the socket path) and what went wrong (no such file,
/// connection refused, the server's refusal with its status, a protocol version
/// mismatch). A caller that retries after failing is told only the first time.
pub fn init_failed(api: &str, e: &pmix_core::Error) {
    if INIT_FAILURE_TOLD.swap(true, Ordering::Relaxed) {
        log::warn!("{}: {}", api, e);
        return;
    }
    let line = format!("[pmix {}] {} failed: {}\n", std::process::id(), api, e);
    let _ = std::io::stderr().write_all(line.as_bytes());
}
