//! Opt-in logging: the library installs a logger only when `PMIX_DEBUG` is set in the
//! environment (`1`/`yes` = debug, or a level name: error, warn, info, debug, trace).
//! Lines go to stderr prefixed with the pid. Silent by default.

use log::{LevelFilter, Log, Metadata, Record};
use std::io::Write;
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
