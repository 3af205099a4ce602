//! What pmix_info reports, gathered once from the library's own constants and tables,
//! then rendered as text or JSON.

use crate::json::Json;
use pmix_core::client::query::{supported_attributes, SupportedAttr};
use pmix_core::params::{self, Param};
use pmix_core::protocol::{Dialect, DIALECTS, MAX_FRAME};
use pmix_core::server::{state, SECURITY_MODE};
use pmix_sys as sys;
use std::fmt::Write;

/// The name of the store (GDS) this library provides.
const STORE_NAME: &str = "pmix-rs";

fn store_about() -> String {
    format!(
        "job data the host registers is kept by the server and sent in each client's \
         handshake as a compact per-process table, mapped read-only from a shared segment \
         when the table has at least {} bytes ({} tunes it); PMIx_Put data travels by \
         fence (optionally as deltas, {}) and direct modex",
        state::JOB_SEGMENT_MIN,
        params::JOB_SEGMENT_MIN,
        params::DELTA_MODEX,
    )
}

const SECURITY_ABOUT: &str = "a peer's uid, gid and pid come from the kernel (SO_PEERCRED), \
     never from what it claims; a client is accepted only from the uid it was registered for, \
     a tool only from the server's own uid; the rendezvous directory and socket are private \
     (0700/0600)";

fn library_version() -> String {
    sys::PMIX_VERSION_STRING.to_string_lossy().into_owned()
}

fn api_level() -> String {
    format!(
        "{}.{}.{}",
        sys::PMIX_VERSION_MAJOR,
        sys::PMIX_VERSION_MINOR,
        sys::PMIX_VERSION_RELEASE
    )
}

/// A parameter's value in the environment pmix_info runs in.
fn current(p: &Param) -> Option<String> {
    params::get_os(p.name).map(|v| v.to_string_lossy().into_owned())
}

fn readers(p: &Param) -> Vec<&'static str> {
    p.readers.iter().map(|r| r.name()).collect()
}

/// The summary (everything but the attributes) as JSON.
pub fn summary_json() -> Json {
    let protocols = DIALECTS.iter().map(dialect_json).collect();
    let parameters = params::PARAMS
        .iter()
        .map(|p| {
            Json::obj([
                ("name", Json::str(p.name)),
                ("default", Json::str(p.default)),
                ("current", current(p).map_or(Json::Null, Json::Str)),
                (
                    "readers",
                    Json::Arr(readers(p).into_iter().map(Json::str).collect()),
                ),
                ("meaning", Json::str(p.meaning)),
            ])
        })
        .collect();
    Json::obj([
        ("pmix_info", Json::str(env!("CARGO_PKG_VERSION"))),
        (
            "library",
            Json::obj([
                ("version", Json::str(library_version())),
                ("api", Json::str(api_level())),
                (
                    "numeric_version",
                    Json::Num(i64::from(sys::PMIX_NUMERIC_VERSION)),
                ),
                ("standard", Json::str(sys::PMIX_STD_VERSION)),
                ("stable_abi", Json::str(sys::PMIX_STD_ABI_STABLE_VERSION)),
                (
                    "provisional_abi",
                    Json::str(sys::PMIX_STD_ABI_PROVISIONAL_VERSION),
                ),
            ]),
        ),
        ("protocols", Json::Arr(protocols)),
        (
            "store",
            Json::obj([
                ("name", Json::str(STORE_NAME)),
                ("about", Json::str(store_about())),
            ]),
        ),
        (
            "security",
            Json::obj([
                ("mode", Json::str(SECURITY_MODE)),
                ("about", Json::str(SECURITY_ABOUT)),
            ]),
        ),
        ("parameters", Json::Arr(parameters)),
    ])
}

fn dialect_json(d: &Dialect) -> Json {
    Json::obj([
        ("name", Json::str(d.name)),
        ("version", Json::Num(i64::from(d.version))),
        ("transport", Json::str(d.transport)),
        ("max_frame", Json::Num(MAX_FRAME as i64)),
        ("about", Json::str(d.about)),
    ])
}

/// The summary as text.
pub fn summary_text() -> String {
    let mut o = String::new();
    let _ = writeln!(o, "pmix_info (pmix-rs) {}\n", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(o, "Library");
    let _ = writeln!(o, "  version:          {}", library_version());
    let _ = writeln!(
        o,
        "  OpenPMIx API:     {} (PMIX_NUMERIC_VERSION 0x{:08x})",
        api_level(),
        sys::PMIX_NUMERIC_VERSION
    );
    let _ = writeln!(o, "  PMIx Standard:    {}", sys::PMIX_STD_VERSION);
    let _ = writeln!(
        o,
        "  stable ABI:       {}",
        sys::PMIX_STD_ABI_STABLE_VERSION
    );
    let _ = writeln!(
        o,
        "  provisional ABI:  {}",
        sys::PMIX_STD_ABI_PROVISIONAL_VERSION
    );
    let _ = writeln!(o, "\nWire protocols");
    for d in DIALECTS {
        let _ = writeln!(
            o,
            "  {} version {} over {} (frames up to {} MiB)\n      {}",
            d.name,
            d.version,
            d.transport,
            MAX_FRAME >> 20,
            d.about
        );
    }
    let _ = writeln!(
        o,
        "\nStore (GDS)\n  {}\n      {}",
        STORE_NAME,
        store_about()
    );
    let _ = writeln!(
        o,
        "\nSecurity\n  {}\n      {}",
        SECURITY_MODE, SECURITY_ABOUT
    );
    let _ = writeln!(o, "\nEnvironment parameters");
    for p in params::PARAMS {
        let now = current(p).unwrap_or_else(|| "(unset)".into());
        let _ = writeln!(o, "  {}", p.name);
        let _ = writeln!(o, "      default: {}", p.default);
        let _ = writeln!(o, "      current: {}", now);
        let _ = writeln!(o, "      read by: {}", readers(p).join(", "));
        let _ = writeln!(o, "      {}", p.meaning);
    }
    o
}

/// The attributes each function supports (`functions` narrows; empty: all).
///
/// # Errors
/// The name of a requested function the library does not report.
pub fn attributes(functions: &[&str]) -> Result<Vec<(String, Vec<SupportedAttr>)>, String> {
    let found = supported_attributes(functions);
    if let Some(f) = functions
        .iter()
        .find(|f| **f != "all" && !found.iter().any(|(g, _)| g == *f))
    {
        let known: Vec<String> = supported_attributes(&[])
            .into_iter()
            .map(|(g, _)| g)
            .collect();
        return Err(format!(
            "no attributes are reported for '{f}' (functions: {})",
            known.join(", ")
        ));
    }
    Ok(found)
}

/// The attributes as JSON: `{"attributes": {function: [{name, key, type}, ...]}}`.
pub fn attributes_json(per_fn: &[(String, Vec<SupportedAttr>)]) -> Json {
    let fns = per_fn
        .iter()
        .map(|(f, attrs)| {
            let list = attrs
                .iter()
                .map(|a| {
                    Json::obj([
                        ("name", Json::str(&a.name)),
                        ("key", Json::str(&a.key)),
                        ("type", Json::Num(i64::from(a.dtype))),
                    ])
                })
                .collect();
            (f.clone(), Json::Arr(list))
        })
        .collect();
    Json::obj([("attributes", Json::Obj(fns))])
}

/// The attributes as text: per function, one line per attribute.
pub fn attributes_text(per_fn: &[(String, Vec<SupportedAttr>)]) -> String {
    let mut o = String::new();
    for (f, attrs) in per_fn {
        let _ = writeln!(o, "{f}");
        for a in attrs {
            let _ = writeln!(o, "  {:<40} {:<32} type {}", a.name, a.key, a.dtype);
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_is_in_the_summary() {
        let text = summary_text();
        let json = summary_json().render();
        for p in params::PARAMS {
            assert!(text.contains(p.name), "{}", p.name);
            assert!(json.contains(&format!("\"{}\"", p.name)), "{}", p.name);
        }
        for d in DIALECTS {
            assert!(text.contains(&format!("{} version {}", d.name, d.version)));
        }
    }

    #[test]
    fn narrowing_keeps_only_the_named_functions() {
        let all = attributes(&[]).unwrap();
        assert!(all.len() > 1);
        let one = attributes(&["PMIx_Fence"]).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].0, "PMIx_Fence");
        assert!(one[0]
            .1
            .iter()
            .any(|a| a.name == "PMIX_TIMEOUT" && a.key == "pmix.timeout"));
        let err = attributes(&["PMIx_Fence", "PMIx_Nothing"]).unwrap_err();
        assert!(err.contains("'PMIx_Nothing'"), "{err}");
    }
}
