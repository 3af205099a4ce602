//! The per-type v41 encodings (OpenPMIx `bfrops/base` pack/unpack functions as the
//! v41 component registers them). Types 4.2.2 does not know (`PMIX_DEVICE`,
//! `PMIX_RESOURCE_UNIT`, `PMIX_NODE_PID`, `PMIX_REGEX2` and the master-only 8-bit
//! enums) use the encoding OpenPMIx master's base functions give them.

use super::{unknown_type, Packer, Unpacker, PID_TAG};
use crate::error::{Error, Result};
use crate::value::*;
use pmix_sys as sys;

/// The payload of a value/info/pdata: nothing for `PMIX_UNDEF`, else the element.
pub(super) fn pack_payload(p: &mut Packer, v: &Value) -> Result<()> {
    match v {
        Value::Undef => Ok(()),
        _ => pack_elem(p, v),
    }
}

fn pid(p: &mut Packer, pid: i32) {
    p.dtype(PID_TAG);
    p.uint(pid as u32 as u64);
}

pub(super) fn proc_(p: &mut Packer, id: &ProcId) {
    p.string(Some(id.nspace.as_str().as_bytes()));
    p.uint(id.rank as u64);
}

/// A count (`INT` or `INT32`: the same encoding) and that many strings.
fn argv(p: &mut Packer, a: &Option<Vec<Vec<u8>>>) {
    let a = a.as_deref().unwrap_or(&[]);
    p.int(a.len() as i64);
    for s in a {
        p.string(Some(s));
    }
}

pub(super) fn info(p: &mut Packer, i: &Info) -> Result<()> {
    p.string(Some(i.key.as_str().as_bytes()));
    p.uint(i.flags as u64);
    p.dtype(i.value.dtype());
    pack_payload(p, &i.value)
}

fn infos(p: &mut Packer, v: &[Info]) -> Result<()> {
    p.size(v.len());
    v.iter().try_for_each(|i| info(p, i))
}

fn coord(p: &mut Packer, c: &Coord) {
    p.byte(c.view);
    p.size(c.coord.len());
    for &x in &c.coord {
        p.uint(x as u64);
    }
}

/// C's `printf("%f")` of a double: six decimals, `inf`/`nan` spelled as glibc does.
fn float_text(x: f64) -> String {
    if x.is_nan() {
        if x.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if x.is_infinite() {
        if x < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        format!("{:.6}", x)
    }
}

/// A regex: `pmix…`/`raw:…` strings go raw with their NUL (OpenPMIx's `preg/native`
/// and `preg/raw`); anything else as a one-item top-level string pack (the
/// `preg/base` fallback).
fn regex(p: &mut Packer, b: &[u8]) -> Result<()> {
    let s = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
    if s.starts_with(b"blob") {
        return Err(Error::not_supported("v41 codec: compressed (blob) regex"));
    }
    if s.starts_with(b"pmix") || s.starts_with(b"raw:") {
        p.raw(s);
        p.byte(0);
    } else {
        p.int(1);
        p.string(Some(s));
    }
    Ok(())
}

/// `pmix_cpuset_t`/`pmix_topology_t`: only an empty object can travel (a NULL
/// string), since this library does not carry hwloc.
fn hwloc(p: &mut Packer, o: &Opaque, what: &str) -> Result<()> {
    if let Some(src) = &o.source {
        if !src.to_ascii_lowercase().starts_with(b"hwloc") {
            return Err(Error::not_supported(format!(
                "{} source is not hwloc",
                what
            )));
        }
    }
    if o.ptr != 0 {
        return Err(Error::not_supported(format!(
            "v41 codec: packing an hwloc {} needs hwloc",
            what
        )));
    }
    p.string(None);
    Ok(())
}

fn pack_struct(p: &mut Packer, v: &Value) -> Result<()> {
    use Value as V;
    match v {
        V::Proc(id) => proc_(
            p,
            id.as_ref()
                .unwrap_or(&ProcId::new(Nspace::default(), sys::PMIX_RANK_UNDEF)),
        ),
        V::App(a) => {
            p.cstring(&a.cmd);
            argv(p, &a.argv);
            argv(p, &a.env);
            p.cstring(&a.cwd);
            p.int(a.maxprocs as i64);
            infos(p, &a.info)?;
        }
        V::Info(i) => info(p, i)?,
        V::Pdata(d) => {
            proc_(p, &d.proc_);
            p.string(Some(d.key.as_str().as_bytes()));
            p.dtype(d.value.dtype());
            pack_payload(p, &d.value)?;
        }
        V::Value(inner) => p.value(inner)?,
        V::ProcInfo(i) => {
            proc_(p, &i.proc_);
            p.cstring(&i.hostname);
            p.cstring(&i.executable_name);
            pid(p, i.pid);
            p.byte(i.state);
        }
        V::DataArray(a) => {
            p.dtype(a.dtype);
            p.size(a.items.len());
            if a.dtype != sys::PMIX_UNDEF {
                p.seq(&a.items, a.dtype, false)?;
            }
        }
        V::Query(q) => {
            argv(p, &q.keys);
            infos(p, &q.qualifiers)?;
        }
        _ => pack_fabric(p, v)?,
    }
    Ok(())
}

/// The smaller structs: environment, fabric and device descriptions, hwloc objects.
fn pack_fabric(p: &mut Packer, v: &Value) -> Result<()> {
    use Value as V;
    match v {
        V::Envar(e) => {
            p.cstring(&e.envar);
            p.cstring(&e.value);
            p.byte(e.separator);
        }
        V::Coord(c) => coord(p, c),
        V::Regattr(r) => {
            p.cstring(&r.name);
            p.string(Some(r.string.as_str().as_bytes()));
            p.dtype(r.dtype);
            argv(p, &r.description);
        }
        V::Geometry(g) => {
            p.uint(g.fabric);
            p.cstring(&g.uuid);
            p.cstring(&g.osname);
            p.size(g.coordinates.len());
            g.coordinates.iter().for_each(|c| coord(p, c));
        }
        V::DeviceDist(d) => {
            p.cstring(&d.uuid);
            p.cstring(&d.osname);
            p.uint(d.dtype);
            p.uint(d.mindist as u64);
            p.uint(d.maxdist as u64);
        }
        V::Endpoint(e) => {
            p.cstring(&e.uuid);
            p.cstring(&e.osname);
            p.bytes(&e.endpt);
        }
        V::Device(d) => {
            p.cstring(&d.uuid);
            p.cstring(&d.osname);
            p.uint(d.dtype);
        }
        V::ResourceUnit(r) => {
            p.uint(r.dtype);
            p.uint(r.count);
        }
        V::NodePid(n) => {
            p.cstring(&n.hostname);
            p.uint(n.nodeid as u64);
            pid(p, n.pid);
        }
        V::Regex2(r) => {
            p.cstring(&r.rtype);
            p.bytes(&r.bytes);
        }
        V::Topo(o) => hwloc(p, o, "topology")?,
        V::Cpuset(o) => hwloc(p, o, "cpuset")?,
        _ => return Err(unknown_type(v.dtype())),
    }
    Ok(())
}

/// One element of its own type, no tag.
pub(super) fn pack_elem(p: &mut Packer, v: &Value) -> Result<()> {
    use Value as V;
    match v {
        V::Undef => return Err(unknown_type(sys::PMIX_UNDEF)),
        V::Bool(b) => p.byte(*b as u8),
        V::Byte(b) | V::Uint8(b) => p.byte(*b),
        V::Int8(b) => p.byte(*b as u8),
        V::Persist(b) | V::Scope(b) | V::Range(b) | V::ProcState(b) | V::JobState(b) => p.byte(*b),
        V::LinkState(b) | V::AllocDirective(b) | V::ResblockDirective(b) => p.byte(*b),
        V::AllocInherit(b) | V::Command(b) => p.byte(*b),
        V::String(s) => p.cstring(s),
        V::Size(n) | V::Uint64(n) | V::DevType(n) => p.uint(*n),
        V::Pid(x) => pid(p, *x),
        V::Int(x) | V::Int32(x) | V::Status(x) => p.int(*x as i64),
        // v41 packs PMIX_UINT through the generic-int path, as a signed INT32
        V::Uint(x) => p.int(*x as i32 as i64),
        V::Int16(x) => p.int(*x as i64),
        V::Int64(x) => p.int(*x),
        V::Uint16(x) | V::IofChannel(x) | V::Locality(x) | V::DataType(x) => p.uint(*x as u64),
        V::Uint32(x) | V::Rank(x) | V::InfoDirectives(x) => p.uint(*x as u64),
        V::Float(x) => p.string(Some(float_text(*x as f64).as_bytes())),
        V::Double(x) => p.string(Some(float_text(*x).as_bytes())),
        V::Timeval(s, u) => {
            p.int(*s);
            p.int(*u);
        }
        V::Time(t) => p.uint(*t as u64),
        V::ProcNspace(n) => p.string(Some(n.as_ref().map_or("", |n| n.as_str()).as_bytes())),
        V::ByteObject(b) | V::CompressedString(b) | V::CompressedByteObject(b) => p.bytes(b),
        V::DataBuffer(b) => p.bytes(b),
        V::Regex(b) => regex(p, b)?,
        // a pointer means nothing elsewhere: OpenPMIx sends a sentinel byte
        V::Pointer(_) => p.byte(1),
        _ => pack_struct(p, v)?,
    }
    Ok(())
}

// ---- decoding ----

pub(super) fn key(s: CString) -> Result<Key> {
    let s = String::from_utf8(s.unwrap_or_default()).map_err(|_| Error::unpack("key not UTF-8"))?;
    Key::new_allow_empty(s).map_err(|e| Error::unpack(e.context))
}

fn u_pid(u: &mut Unpacker<'_>) -> Result<i32> {
    let tag = u.u16()?;
    pid_as(u, tag)
}

/// A `pid_t` value packed as type `tag`.
pub(super) fn pid_as(u: &mut Unpacker<'_>, tag: u16) -> Result<i32> {
    Ok(match tag {
        sys::PMIX_UINT32 => u.u32()? as i32,
        sys::PMIX_INT32 => u.i32()?,
        sys::PMIX_UINT64 => u.uint(8)? as i32,
        sys::PMIX_INT64 => u.int(8)? as i32,
        t => return Err(Error::unpack(format!("pid tagged with type {}", t))),
    })
}

pub(super) fn u_proc(u: &mut Unpacker<'_>) -> Result<ProcId> {
    let ns = u.string()?.unwrap_or_default();
    let ns = String::from_utf8(ns).map_err(|_| Error::unpack("namespace not UTF-8"))?;
    let nspace = Nspace::new(ns).map_err(|e| Error::unpack(e.context))?;
    Ok(ProcId::new(nspace, u.u32()?))
}

fn u_argv(u: &mut Unpacker<'_>) -> Result<Option<Vec<Vec<u8>>>> {
    let n = u.count_int(1)?;
    if n == 0 {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(u.string()?.unwrap_or_default());
    }
    Ok(Some(out))
}

pub(super) fn u_info(u: &mut Unpacker<'_>) -> Result<Info> {
    let key = key(u.string()?)?;
    let flags = u.u32()?;
    let t = u.u16()?;
    let value = u.payload(t)?;
    Ok(Info { key, flags, value })
}

fn u_infos(u: &mut Unpacker<'_>) -> Result<Vec<Info>> {
    let n = u.count_size(3)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(u_info(u)?);
    }
    Ok(out)
}

fn u_coord(u: &mut Unpacker<'_>) -> Result<Coord> {
    let view = u.byte()?;
    let n = u.count_size(1)?;
    let mut coord = Vec::with_capacity(n);
    for _ in 0..n {
        coord.push(u.u32()?);
    }
    Ok(Coord { view, coord })
}

/// `strtod` of the text OpenPMIx sends for floats and doubles (0 when unparsable, as
/// `strtod` gives for text with no number).
fn parse_float(s: CString) -> f64 {
    let s = String::from_utf8_lossy(s.as_deref().unwrap_or_default()).to_ascii_lowercase();
    let t = s.trim();
    match t {
        "nan" | "+nan" => f64::NAN,
        "-nan" => -f64::NAN,
        "inf" | "+inf" | "infinity" => f64::INFINITY,
        "-inf" | "-infinity" => f64::NEG_INFINITY,
        _ => t.parse().unwrap_or(0.0),
    }
}

fn u_regex(u: &mut Unpacker<'_>) -> Result<Vec<u8>> {
    let rest = u.rest();
    if rest.starts_with(b"pmix") || rest.starts_with(b"raw:") {
        let n = rest
            .iter()
            .position(|&c| c == 0)
            .ok_or_else(|| super::past_end("unterminated regex"))?;
        let b = u.take(n + 1)?;
        return Ok(b.to_vec());
    }
    if rest.starts_with(b"blob") {
        return Err(Error::not_supported("v41 codec: compressed (blob) regex"));
    }
    let n = u.count_int(1)?;
    if n != 1 {
        return Err(Error::unpack(format!("regex packed as {} strings", n)));
    }
    let mut s = u.string()?.unwrap_or_default();
    s.push(0);
    Ok(s)
}

fn u_hwloc(u: &mut Unpacker<'_>, what: &str) -> Result<Box<Opaque>> {
    if u.string()?.is_some() {
        return Err(Error::not_supported(format!(
            "v41 codec: unpacking an hwloc {} needs hwloc",
            what
        )));
    }
    Ok(Box::new(Opaque {
        source: Some(b"hwloc".to_vec()),
        ptr: 0,
    }))
}

fn unpack_struct(u: &mut Unpacker<'_>, t: u16) -> Result<Value> {
    use Value as V;
    Ok(match t {
        sys::PMIX_PROC => V::Proc(Some(u_proc(u)?)),
        sys::PMIX_APP => {
            let cmd = u.string()?;
            let argv = u_argv(u)?;
            let env = u_argv(u)?;
            let cwd = u.string()?;
            let maxprocs = u.i32()?;
            let info = u_infos(u)?;
            V::App(Box::new(App {
                cmd,
                argv,
                env,
                cwd,
                maxprocs,
                info,
            }))
        }
        sys::PMIX_INFO => V::Info(Box::new(u_info(u)?)),
        sys::PMIX_PDATA => {
            let proc_ = u_proc(u)?;
            let key = key(u.string()?)?;
            let t = u.u16()?;
            let value = u.payload(t)?;
            V::Pdata(Box::new(Pdata { proc_, key, value }))
        }
        sys::PMIX_VALUE => V::Value(Box::new(u.value()?)),
        sys::PMIX_PROC_INFO => V::ProcInfo(Box::new(ProcInfo {
            proc_: u_proc(u)?,
            hostname: u.string()?,
            executable_name: u.string()?,
            pid: u_pid(u)?,
            exit_code: 0,
            state: u.byte()?,
        })),
        sys::PMIX_DATA_ARRAY => {
            let dtype = u.u16()?;
            let n = u.count_size(0)?;
            let mut items = Vec::new();
            if dtype != sys::PMIX_UNDEF && n > 0 {
                let n = u.checked(n as u64, 1)?;
                items = u.seq(dtype, n, false)?;
            }
            V::DataArray(Box::new(DataArray { dtype, items }))
        }
        sys::PMIX_QUERY => V::Query(Box::new(Query {
            keys: u_argv(u)?,
            qualifiers: u_infos(u)?,
        })),
        _ => unpack_fabric(u, t)?,
    })
}

/// The smaller structs (see [`pack_fabric`]).
fn unpack_fabric(u: &mut Unpacker<'_>, t: u16) -> Result<Value> {
    use Value as V;
    Ok(match t {
        sys::PMIX_ENVAR => V::Envar(Envar {
            envar: u.string()?,
            value: u.string()?,
            separator: u.byte()?,
        }),
        sys::PMIX_COORD => V::Coord(Box::new(u_coord(u)?)),
        sys::PMIX_REGATTR => V::Regattr(Box::new(Regattr {
            name: u.string()?,
            string: key(u.string()?)?,
            dtype: u.u16()?,
            description: u_argv(u)?,
        })),
        sys::PMIX_GEOMETRY => {
            let fabric = u.uint(8)?;
            let uuid = u.string()?;
            let osname = u.string()?;
            let n = u.count_size(2)?;
            let mut coordinates = Vec::with_capacity(n);
            for _ in 0..n {
                coordinates.push(u_coord(u)?);
            }
            V::Geometry(Box::new(Geometry {
                fabric,
                uuid,
                osname,
                coordinates,
            }))
        }
        sys::PMIX_DEVICE_DIST => V::DeviceDist(Box::new(DeviceDistance {
            uuid: u.string()?,
            osname: u.string()?,
            dtype: u.uint(8)?,
            mindist: u.u16()?,
            maxdist: u.u16()?,
        })),
        sys::PMIX_ENDPOINT => V::Endpoint(Box::new(Endpoint {
            uuid: u.string()?,
            osname: u.string()?,
            endpt: u.bytes()?,
        })),
        sys::PMIX_DEVICE => V::Device(Box::new(Device {
            uuid: u.string()?,
            osname: u.string()?,
            dtype: u.uint(8)?,
        })),
        sys::PMIX_RESOURCE_UNIT => V::ResourceUnit(ResourceUnit {
            dtype: u.uint(8)?,
            count: u.uint(8)?,
        }),
        sys::PMIX_NODE_PID => V::NodePid(Box::new(NodePid {
            hostname: u.string()?,
            nodeid: u.u32()?,
            pid: u_pid(u)?,
        })),
        sys::PMIX_REGEX2 => V::Regex2(Box::new(Regex2 {
            rtype: u.string()?,
            bytes: u.bytes()?,
        })),
        sys::PMIX_TOPO => V::Topo(u_hwloc(u, "topology")?),
        sys::PMIX_PROC_CPUSET => V::Cpuset(u_hwloc(u, "cpuset")?),
        _ => return Err(unknown_type(t)),
    })
}

/// One element of type `t`.
pub(super) fn unpack_elem(u: &mut Unpacker<'_>, t: u16) -> Result<Value> {
    use Value as V;
    Ok(match t {
        sys::PMIX_BOOL => V::Bool(u.byte()? != 0),
        sys::PMIX_BYTE => V::Byte(u.byte()?),
        sys::PMIX_UINT8 => V::Uint8(u.byte()?),
        sys::PMIX_INT8 => V::Int8(u.byte()? as i8),
        sys::PMIX_PERSIST => V::Persist(u.byte()?),
        sys::PMIX_SCOPE => V::Scope(u.byte()?),
        sys::PMIX_DATA_RANGE => V::Range(u.byte()?),
        sys::PMIX_PROC_STATE => V::ProcState(u.byte()?),
        sys::PMIX_JOB_STATE => V::JobState(u.byte()?),
        sys::PMIX_LINK_STATE => V::LinkState(u.byte()?),
        sys::PMIX_ALLOC_DIRECTIVE => V::AllocDirective(u.byte()?),
        sys::PMIX_RESBLOCK_DIRECTIVE => V::ResblockDirective(u.byte()?),
        sys::PMIX_ALLOC_INHERIT => V::AllocInherit(u.byte()?),
        sys::PMIX_COMMAND => V::Command(u.byte()?),
        sys::PMIX_STRING => V::String(u.string()?),
        sys::PMIX_SIZE => V::Size(u.uint(8)?),
        sys::PMIX_UINT64 => V::Uint64(u.uint(8)?),
        sys::PMIX_DEVTYPE => V::DevType(u.uint(8)?),
        sys::PMIX_PID => V::Pid(u_pid(u)?),
        sys::PMIX_INT => V::Int(u.i32()?),
        sys::PMIX_INT32 => V::Int32(u.i32()?),
        sys::PMIX_STATUS => V::Status(u.i32()?),
        sys::PMIX_UINT => V::Uint(u.i32()? as u32),
        sys::PMIX_INT16 => V::Int16(u.int(2)? as i16),
        sys::PMIX_INT64 => V::Int64(u.int(8)?),
        sys::PMIX_UINT16 => V::Uint16(u.u16()?),
        sys::PMIX_IOF_CHANNEL => V::IofChannel(u.u16()?),
        sys::PMIX_LOCTYPE => V::Locality(u.u16()?),
        sys::PMIX_DATA_TYPE => V::DataType(u.u16()?),
        sys::PMIX_UINT32 => V::Uint32(u.u32()?),
        sys::PMIX_PROC_RANK => V::Rank(u.u32()?),
        sys::PMIX_INFO_DIRECTIVES => V::InfoDirectives(u.u32()?),
        sys::PMIX_FLOAT => V::Float(parse_float(u.string()?) as f32),
        sys::PMIX_DOUBLE => V::Double(parse_float(u.string()?)),
        sys::PMIX_TIMEVAL => V::Timeval(u.int(8)?, u.int(8)?),
        sys::PMIX_TIME => V::Time(u.uint(8)? as i64),
        sys::PMIX_PROC_NSPACE => {
            let ns = u.string()?.unwrap_or_default();
            let ns = String::from_utf8(ns).map_err(|_| Error::unpack("namespace not UTF-8"))?;
            V::ProcNspace(Some(Nspace::new(ns).map_err(|e| Error::unpack(e.context))?))
        }
        sys::PMIX_BYTE_OBJECT => V::ByteObject(u.bytes()?),
        sys::PMIX_COMPRESSED_STRING => V::CompressedString(u.bytes()?),
        sys::PMIX_COMPRESSED_BYTE_OBJECT => V::CompressedByteObject(u.bytes()?),
        sys::PMIX_DATA_BUFFER => V::DataBuffer(u.bytes()?),
        sys::PMIX_REGEX => V::Regex(u_regex(u)?),
        sys::PMIX_POINTER => {
            u.byte()?;
            V::Pointer(0)
        }
        _ => unpack_struct(u, t)?,
    })
}
