//! `gen-header`: writes the C header fragments that come from the two tables of `pmix-sys`.
//!
//! ```text
//! gen-header <dir>     write <dir>/pmix_status_gen.h, pmix_status_deprecated_gen.h,
//!                      pmix_attrs_gen.h and pmix_attrs_deprecated_gen.h
//! gen-header --list    print "NAME VALUE" for every constant the Rust side defines
//!                      (numbers in decimal, key strings quoted), for the ABI cross-check
//! gen-header --layout  print the size/alignment/offsets of the `#[repr(C)]` types of
//!                      pmix-sys in the format of the C layout dump, for the same check
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

/// Size of the field a (never called) accessor closure points at.
fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    std::mem::size_of::<F>()
}

macro_rules! layout {
    ($out:ident; $( $t:ident { $( $f:ident ),* } )*) => {
        $(
            let _ = writeln!($out, "struct {} size={} align={}", stringify!($t),
                             std::mem::size_of::<$t>(), std::mem::align_of::<$t>());
            $(
                let _ = writeln!($out, "field {}.{} offset={} size={}", stringify!($t),
                                 stringify!($f).trim_end_matches('_'),
                                 std::mem::offset_of!($t, $f), field_size(|s: &$t| &s.$f));
            )*
        )*
    };
}

macro_rules! scalars {
    ($out:ident; $( $t:ident ),* ; arrays $( $a:ident ),*) => {
        $( let _ = writeln!($out, "type {} size={} signed={}", stringify!($t),
                            std::mem::size_of::<$t>(), i32::from(<$t>::MIN != 0)); )*
        $( let _ = writeln!($out, "type {} size={}", stringify!($a), std::mem::size_of::<$a>()); )*
    };
}

fn layout() -> String {
    let mut s = String::new();
    struct_layouts(&mut s);
    union_layout(&mut s);
    scalar_layouts(&mut s);
    s
}

/// The `field` lines of every struct whose layout is checked.
fn struct_layouts(s: &mut String) {
    use pmix_sys::*;
    layout! { s;
        pmix_proc_t { nspace, rank }
        pmix_byte_object_t { bytes, size }
        pmix_data_array_t { type_, size, array }
        pmix_envar_t { envar, value, separator }
        pmix_coord_t { view, coord, dims }
        pmix_proc_info_t { proc_, hostname, executable_name, pid, exit_code, state }
        pmix_topology_t { source, topology }
        pmix_cpuset_t { source, bitmap }
        pmix_geometry_t { fabric, uuid, osname, coordinates, ncoords }
        pmix_device_t { uuid, osname, type_ }
        pmix_device_distance_t { uuid, osname, type_, mindist, maxdist }
        pmix_endpoint_t { uuid, osname, endpt }
        pmix_data_buffer_t { base_ptr, pack_ptr, unpack_ptr, bytes_allocated, bytes_used }
        pmix_resource_unit_t { type_, count }
        pmix_node_pid_t { hostname, nodeid, pid }
        pmix_regex2_t { type_, bytes, len }
        pmix_value_t { type_, data }
        pmix_info_t { key, flags, value }
        pmix_pdata_t { proc_, key, value }
        pmix_app_t { cmd, argv, env, cwd, maxprocs, info, ninfo }
        pmix_query_t { keys, qualifiers, nqual }
        pmix_regattr_t { name, string, type_, description }
        pmix_fabric_t { name, index, info, ninfo, module }
        pmix_server_module_t { client_connected, client_finalized, abort, fence_nb,
            direct_modex, publish, lookup, unpublish, spawn, connect, disconnect,
            register_events, deregister_events, listener, notify_event, query,
            tool_connected, log, allocate, job_control, monitor, get_credential,
            validate_credential, iof_pull, push_stdin, group, fabric, client_connected2,
            tool_connected2, log2, session_control, resource_block }
    }
}

/// The `field` lines of the members of `pmix_value_t`'s data union.
fn union_layout(s: &mut String) {
    use pmix_sys::*;
    // The members of pmix_value_t's union all start at the union's offset.
    let base = std::mem::offset_of!(pmix_value_t, data);
    macro_rules! union_members {
        ($( $f:ident ),*) => {
            $(
                // SAFETY: the closure only names the field's type; it is never called.
                let size = field_size(|u: &pmix_value_data| unsafe { &u.$f });
                let _ = writeln!(s, "field pmix_value_t.data.{} offset={} size={}",
                                 stringify!($f).trim_end_matches('_'), base, size);
            )*
        };
    }
    union_members!(
        flag,
        byte,
        string,
        size,
        pid,
        integer,
        int8,
        int16,
        int32,
        int64,
        uint,
        uint8,
        uint16,
        uint32,
        uint64,
        fval,
        dval,
        tv,
        time,
        status,
        rank,
        nspace,
        proc_,
        bo,
        persist,
        scope,
        range,
        state,
        pinfo,
        darray,
        ptr,
        adir,
        rbdir,
        inheritance,
        envar,
        coord,
        linkstate,
        jstate,
        topo,
        cpuset,
        locality,
        geometry,
        devtype,
        device,
        devdist,
        endpoint,
        dbuf,
        resunit,
        nodepid,
        regex2
    );
}

/// The `type` lines of the scalar typedefs and fixed-size arrays.
fn scalar_layouts(s: &mut String) {
    use pmix_sys::*;
    scalars! { s;
        pmix_status_t, pmix_rank_t, pmix_data_type_t, pmix_scope_t, pmix_data_range_t,
        pmix_persistence_t, pmix_info_directives_t, pmix_proc_state_t, pmix_job_state_t,
        pmix_alloc_directive_t, pmix_resource_block_directive_t, pmix_alloc_inheritance_t,
        pmix_iof_channel_t, pmix_link_state_t, pmix_coord_view_t, pmix_locality_t,
        pmix_device_type_t, pmix_bind_envelope_t, pmix_value_cmp_t, pmix_boolean_t,
        pmix_group_opt_t, pmix_group_operation_t, pmix_fabric_operation_t;
        arrays pmix_nspace_t, pmix_key_t
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--list" => {
            print!("{}", list());
            ExitCode::SUCCESS
        }
        [flag] if flag == "--layout" => {
            print!("{}", layout());
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
            eprintln!("usage: gen-header <output-dir> | gen-header --list | gen-header --layout");
            ExitCode::from(2)
        }
    }
}
