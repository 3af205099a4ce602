//! `gen-header`: writes the C header fragments that come from the two tables of `pmix-sys`.
//!
//! ```text
//! gen-header <dir>     write <dir>/pmix_status_gen.h, pmix_status_deprecated_gen.h,
//!                      pmix_attrs_gen.h and pmix_attrs_deprecated_gen.h
//! gen-header --list    print "NAME VALUE" for every constant the Rust side defines
//!                      (numbers in decimal, key strings quoted), for the ABI cross-check
//! ```
//!
//! `make header` runs the first form on `include/`; `make abi-header-check` runs it on a
//! temporary directory and fails if the committed fragments differ.

use pmix_sys::attrs::{AttrDef, ATTR_TABLE, PMIX_SERVER_MODULE_V7};
use pmix_sys::consts::*;
use pmix_sys::status::{StatusDef, STATUS_TABLE};
use pmix_sys::types::{pmix_data_type_t, PMIX_MAX_KEYLEN, PMIX_MAX_NSLEN};
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Column at which the value of a `#define` starts.
const VALUE_COL: usize = 48;

fn banner(guard: &str, source: &str, what: &str) -> String {
    format!(
        "/* {what}\n * Generated from {source} by `make header` (pmix-sys/src/bin/gen-header.rs).\n \
         * Do not edit: change the table and regenerate. Included by the public headers;\n \
         * not meant to be included directly. */\n#ifndef {guard}\n#define {guard}\n\n"
    )
}

fn define(out: &mut String, name: &str, value: &str, comment: Option<&str>) {
    let head = format!("#define {name}");
    let pad = VALUE_COL.saturating_sub(head.len()).max(1);
    match comment {
        Some(c) => {
            let _ = write!(out, "{head}{:pad$}{value:<24}  // {c}", "");
        }
        None => {
            let _ = write!(out, "{head}{:pad$}{value}", "");
        }
    }
    out.push('\n');
}

fn status_fragment(rows: &[&StatusDef], guard: &str, what: &str) -> String {
    let mut s = banner(guard, "pmix-sys/src/status.rs", what);
    for r in rows {
        let v = if r.code < 0 {
            format!("({})", r.code)
        } else {
            r.code.to_string()
        };
        define(&mut s, r.name, &v, None);
    }
    let _ = write!(s, "\n#endif /* {guard} */\n");
    s
}

/// The C type a value of this data type has, for the comment after each key.
fn c_type(t: pmix_data_type_t) -> &'static str {
    match t {
        PMIX_BOOL => "bool",
        PMIX_BYTE => "uint8_t",
        PMIX_STRING => "char*",
        PMIX_SIZE => "size_t",
        PMIX_PID => "pid_t",
        PMIX_INT => "int",
        PMIX_INT8 => "int8_t",
        PMIX_INT16 => "int16_t",
        PMIX_INT32 => "int32_t",
        PMIX_INT64 => "int64_t",
        PMIX_UINT => "unsigned int",
        PMIX_UINT8 => "uint8_t",
        PMIX_UINT16 => "uint16_t",
        PMIX_UINT32 => "uint32_t",
        PMIX_UINT64 => "uint64_t",
        PMIX_FLOAT => "float",
        PMIX_DOUBLE => "double",
        PMIX_TIMEVAL => "struct timeval",
        PMIX_TIME => "time_t",
        PMIX_STATUS => "pmix_status_t",
        PMIX_PROC => "pmix_proc_t*",
        PMIX_BYTE_OBJECT => "pmix_byte_object_t",
        PMIX_POINTER => "void*",
        PMIX_SCOPE => "pmix_scope_t",
        PMIX_DATA_RANGE => "pmix_data_range_t",
        PMIX_PERSIST => "pmix_persistence_t",
        PMIX_PROC_STATE => "pmix_proc_state_t",
        PMIX_DATA_ARRAY => "pmix_data_array_t*",
        PMIX_PROC_RANK => "pmix_rank_t",
        PMIX_ENVAR => "pmix_envar_t*",
        PMIX_LINK_STATE => "pmix_link_state_t",
        PMIX_PROC_CPUSET => "pmix_cpuset_t*",
        PMIX_GEOMETRY => "pmix_geometry_t",
        PMIX_TOPO => "pmix_topology_t*",
        PMIX_DEVTYPE => "pmix_device_type_t",
        PMIX_STOR_MEDIUM => "pmix_storage_medium_t",
        PMIX_STOR_ACCESS => "pmix_storage_accessibility_t",
        PMIX_STOR_PERSIST => "pmix_storage_persistence_t",
        PMIX_STOR_ACCESS_TYPE => "pmix_storage_access_type_t",
        PMIX_ALLOC_INHERIT => "pmix_alloc_inheritance_t",
        _ => "type not fixed",
    }
}

fn attrs_fragment(rows: &[&AttrDef], guard: &str, what: &str) -> String {
    let mut s = banner(guard, "pmix-sys/src/attrs.rs", what);
    for r in rows {
        define(
            &mut s,
            r.name,
            &format!("\"{}\"", r.key),
            Some(c_type(r.dtype)),
        );
    }
    let _ = write!(s, "\n#endif /* {guard} */\n");
    s
}

/// The four fragments, as (file name, contents).
fn fragments() -> Vec<(&'static str, String)> {
    let (dep, cur): (Vec<&StatusDef>, Vec<&StatusDef>) =
        STATUS_TABLE.iter().partition(|s| s.deprecated);
    let (adep, acur): (Vec<&AttrDef>, Vec<&AttrDef>) =
        ATTR_TABLE.iter().partition(|a| a.deprecated);
    vec![
        (
            "pmix_status_gen.h",
            status_fragment(
                &cur,
                "PMIX_STATUS_GEN_H",
                "pmix_status_t values: status and event codes (0 = success, errors are negative).",
            ),
        ),
        (
            "pmix_status_deprecated_gen.h",
            status_fragment(
                &dep,
                "PMIX_STATUS_DEPRECATED_GEN_H",
                "Deprecated pmix_status_t names, kept so that old code compiles; values never reused.",
            ),
        ),
        (
            "pmix_attrs_gen.h",
            attrs_fragment(
                &acur,
                "PMIX_ATTRS_GEN_H",
                "Attribute keys (and environment variable names) with the C type of their value.",
            ),
        ),
        (
            "pmix_attrs_deprecated_gen.h",
            attrs_fragment(
                &adep,
                "PMIX_ATTRS_DEPRECATED_GEN_H",
                "Deprecated attribute keys, kept so that old code compiles.",
            ),
        ),
    ]
}

fn list() -> String {
    let mut s = String::new();
    for (name, v) in CONST_TABLE {
        let _ = writeln!(s, "{name} {v}");
    }
    let _ = writeln!(s, "PMIX_MAX_NSLEN {PMIX_MAX_NSLEN}");
    let _ = writeln!(s, "PMIX_MAX_KEYLEN {PMIX_MAX_KEYLEN}");
    for r in STATUS_TABLE {
        let _ = writeln!(s, "{} {}", r.name, r.code);
    }
    for r in ATTR_TABLE {
        let _ = writeln!(s, "{} \"{}\"", r.name, r.key);
    }
    let _ = writeln!(s, "PMIX_SERVER_MODULE_V7 \"{PMIX_SERVER_MODULE_V7}\"");
    s
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--list" => {
            print!("{}", list());
            ExitCode::SUCCESS
        }
        [dir] if !dir.starts_with('-') => {
            for (file, text) in fragments() {
                let path = Path::new(dir).join(file);
                if let Err(e) = std::fs::write(&path, text) {
                    eprintln!("gen-header: cannot write {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: gen-header <output-dir> | gen-header --list");
            ExitCode::from(2)
        }
    }
}
