//! Human-readable text for values, infos, procs and apps (the printers behind
//! `PMIx_Value_string`, `PMIx_Info_string`, `PMIx_App_string`, `PMIx_Data_print`).
//! The shape follows OpenPMIx's output ("Data type: PMIX_INT\tValue: 3"); the exact
//! spacing is not an interface.

use super::strings::{data_type_name, device_type_name, rank_text};
use pmix_core::*;
use pmix_sys::*;
use std::fmt::Write;

fn lossy(b: &Option<Vec<u8>>) -> String {
    match b {
        None => "NULL".into(),
        Some(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// `"[nspace,rank]"`.
pub(crate) fn proc_text(p: &ProcId) -> String {
    format!("[{},{}]", p.nspace, rank_text(p.rank))
}

/// The directive flags, e.g. `"REQUIRED:PROCESSED:END"` or `"QUALIFIER"`.
pub(crate) fn directives_text(d: pmix_info_directives_t) -> String {
    let mut parts = Vec::new();
    if d & PMIX_INFO_QUALIFIER != 0 {
        parts.push("QUALIFIER");
    } else {
        parts.push(if d & PMIX_INFO_REQD != 0 {
            "REQUIRED"
        } else {
            "OPTIONAL"
        });
        if d & PMIX_INFO_REQD_PROCESSED != 0 {
            parts.push("PROCESSED");
        }
        if d & PMIX_INFO_ARRAY_END != 0 {
            parts.push("END");
        }
        if d & PMIX_INFO_PERSISTENT != 0 {
            parts.push("PERSISTENT");
        }
    }
    parts.join(":")
}

fn key_name(k: &Key) -> String {
    pmix_sys::attrs::attr_by_key(k.as_str()).map_or_else(|| k.to_string(), |a| a.name.to_string())
}

/// `"KEY: name\n\tdirectives\n\tPMIX_VALUE: ..."`.
pub(crate) fn info_text(i: &Info) -> String {
    format!(
        "KEY: {}\n\t{}\n\tPMIX_VALUE: {}",
        key_name(&i.key),
        directives_text(i.flags),
        value_text(&i.value)
    )
}

/// A multi-line description of an app.
pub(crate) fn app_text(a: &App) -> String {
    let mut s = format!("CMD: {}\n    ARGV:", lossy(&a.cmd));
    let list = |s: &mut String, name: &str, v: &Option<Vec<Vec<u8>>>| match v {
        None => s.push_str("\n        NONE"),
        Some(v) => {
            for (i, x) in v.iter().enumerate() {
                let _ = write!(
                    s,
                    "\n        {}[{}]: {}",
                    name,
                    i,
                    String::from_utf8_lossy(x)
                );
            }
        }
    };
    list(&mut s, "ARGV", &a.argv);
    s.push_str("\n    ENV:");
    list(&mut s, "ENV", &a.env);
    let _ = write!(
        s,
        "\n    CWD: {}\n    MAXPROCS: {}",
        lossy(&a.cwd),
        a.maxprocs
    );
    if a.info.is_empty() {
        s.push_str("\n    INFO: NONE");
    } else {
        s.push_str("\n    INFO:");
        for (i, info) in a.info.iter().enumerate() {
            let _ = write!(s, "\n        INFO[{}]: {}", i, info_text(info));
        }
    }
    s
}

/// `"Data type: PMIX_X\tValue: ..."` for any value (data arrays list their elements).
pub(crate) fn value_text(v: &Value) -> String {
    let t = data_type_name(v.dtype()).to_string_lossy();
    let body = scalar_text(v).unwrap_or_else(|| compound_text(v));
    format!("Data type: {}\tValue: {}", t, body)
}

/// The value part of [`value_text`] for the scalar types (and strings, byte objects,
/// procs); `None` for the compound ones.
fn scalar_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::Undef => "UNDEF".to_string(),
        Value::Bool(b) => (if *b { "TRUE" } else { "FALSE" }).to_string(),
        Value::Byte(x) | Value::Uint8(x) => format!("{:#x}", x),
        Value::String(s) => lossy(s),
        Value::Size(x) | Value::Uint64(x) => x.to_string(),
        Value::Pid(x) | Value::Int(x) | Value::Int32(x) => x.to_string(),
        Value::Int8(x) => x.to_string(),
        Value::Int16(x) => x.to_string(),
        Value::Int64(x) | Value::Time(x) => x.to_string(),
        Value::Uint(x) | Value::Uint32(x) => x.to_string(),
        Value::Uint16(x) => x.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Double(x) => x.to_string(),
        Value::Timeval(s, us) => format!("{}.{:06}", s, us),
        Value::Status(s) => {
            let name = pmix_sys::status_text(*s).unwrap_or("UNKNOWN");
            format!("{} ({})", name, s)
        }
        Value::Rank(r) => rank_text(*r),
        Value::ProcNspace(ns) => ns.as_ref().map_or("NULL".into(), |n| n.to_string()),
        Value::Proc(p) => p.as_ref().map_or("NULL".into(), proc_text),
        Value::ByteObject(b)
        | Value::CompressedString(b)
        | Value::CompressedByteObject(b)
        | Value::Regex(b)
        | Value::DataBuffer(b) => format!("Size: {}", b.len()),
        Value::Persist(x)
        | Value::Scope(x)
        | Value::Range(x)
        | Value::ProcState(x)
        | Value::JobState(x)
        | Value::LinkState(x)
        | Value::AllocDirective(x)
        | Value::ResblockDirective(x)
        | Value::AllocInherit(x)
        | Value::Command(x) => x.to_string(),
        Value::InfoDirectives(d) => directives_text(*d),
        Value::DataType(d) => data_type_name(*d).to_string_lossy().into_owned(),
        Value::IofChannel(c) => format!("{:#x}", c),
        Value::Locality(l) => format!("{:#x}", l),
        Value::DevType(d) => device_type_name(*d).to_string_lossy().into_owned(),
        Value::Pointer(p) => format!("{:#x}", p),
        _ => return None,
    })
}

/// The value part of [`value_text`] for the compound types (structs, nested values,
/// arrays); the scalars are [`scalar_text`]'s (given one, this answers "").
fn compound_text(v: &Value) -> String {
    match v {
        Value::ProcInfo(p) => format!(
            "Proc: {} Host: {} Exe: {} Pid: {} State: {}",
            proc_text(&p.proc_),
            lossy(&p.hostname),
            lossy(&p.executable_name),
            p.pid,
            p.state
        ),
        Value::Envar(e) => format!(
            "{}={} (sep '{}')",
            lossy(&e.envar),
            lossy(&e.value),
            e.separator as char
        ),
        Value::Coord(c) => format!("view {} {:?}", c.view, c.coord),
        Value::Topo(o) | Value::Cpuset(o) => crate::client::topology::render_opaque(v, o)
            .unwrap_or_else(|| format!("Source: {} Object: {:#x}", lossy(&o.source), o.ptr)),
        Value::Geometry(g) => {
            format!(
                "Fabric: {} UUID: {} OSname: {} Ncoords: {}",
                g.fabric,
                lossy(&g.uuid),
                lossy(&g.osname),
                g.coordinates.len()
            )
        }
        Value::Device(d) => format!(
            "UUID: {} OSname: {} Type: {}",
            lossy(&d.uuid),
            lossy(&d.osname),
            device_type_name(d.dtype).to_string_lossy()
        ),
        Value::DeviceDist(d) => format!(
            "UUID: {} OSname: {} Type: {} Mindist: {} Maxdist: {}",
            lossy(&d.uuid),
            lossy(&d.osname),
            device_type_name(d.dtype).to_string_lossy(),
            d.mindist,
            d.maxdist
        ),
        Value::Endpoint(e) => format!(
            "UUID: {} OSname: {} Size: {}",
            lossy(&e.uuid),
            lossy(&e.osname),
            e.endpt.len()
        ),
        Value::ResourceUnit(r) => {
            format!(
                "TYPE: {}  COUNT: {}",
                device_type_name(r.dtype).to_string_lossy(),
                r.count
            )
        }
        Value::NodePid(n) => format!(
            "Host: {} Nodeid: {} Pid: {}",
            lossy(&n.hostname),
            n.nodeid,
            n.pid
        ),
        Value::Regex2(r) => format!("Type: {} Size: {}", lossy(&r.rtype), r.bytes.len()),
        Value::Regattr(r) => format!(
            "Name: {} Key: {} Type: {}",
            lossy(&r.name),
            r.string,
            data_type_name(r.dtype).to_string_lossy()
        ),
        Value::Info(i) => info_text(i),
        Value::App(a) => app_text(a),
        Value::Pdata(p) => format!(
            "{}  KEY: {} {}",
            proc_text(&p.proc_),
            key_name(&p.key),
            value_text(&p.value)
        ),
        Value::Query(q) => format!(
            "Keys: {} Nqual: {}",
            q.keys.as_ref().map_or("NULL".into(), |k| k
                .iter()
                .map(|x| String::from_utf8_lossy(x).into_owned())
                .collect::<Vec<_>>()
                .join(",")),
            q.qualifiers.len()
        ),
        Value::Value(inner) => value_text(inner),
        Value::DataArray(d) => {
            let mut s = format!(
                "Size: {} Element type: {}",
                d.items.len(),
                data_type_name(d.dtype).to_string_lossy()
            );
            for (i, item) in d.items.iter().enumerate() {
                let _ = write!(s, "\n\t[{}] {}", i, value_text(item).replace('\n', "\n\t"));
            }
            s
        }
        _ => String::new(),
    }
}
