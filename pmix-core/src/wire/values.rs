//! `Wire` implementations for the data model of `value.rs`.
//!
//! Layout rules: integers little-endian and fixed width; byte strings and sequences are a
//! `u32` count followed by the items; optional items (C pointers that may be NULL) are a
//! presence byte and the item; a [`Value`] is its `u16` data type followed by the payload
//! of that type. The payload of an `Undef` value is empty.

use super::{Decoder, Wire};
use crate::error::{Error, Result};
use crate::value::*;
use pmix_sys as sys;

/// Append a sequence: `u32` count, then each item.
pub fn encode_seq<T: Wire>(items: &[T], out: &mut Vec<u8>) {
    (items.len() as u32).encode(out);
    for it in items {
        it.encode(out);
    }
}

/// Items reserved up front by [`decode_seq`]; longer sequences grow as items decode.
/// (Reserving the claimed count would cost `count * size_of::<T>()` — about 100 bytes
/// per input byte for `Info` — before a single item proved the input real.)
const PREALLOC_ITEMS: usize = 1024;

/// Read a sequence written by [`encode_seq`]. Every item takes at least one byte, so a
/// count larger than the remaining input is rejected before anything is allocated, and
/// at most `PREALLOC_ITEMS` items are reserved ahead of decoding them.
pub fn decode_seq<T: Wire>(d: &mut Decoder<'_>) -> Result<Vec<T>> {
    let n = d.count(1)?;
    let mut v = Vec::with_capacity(n.min(PREALLOC_ITEMS));
    for _ in 0..n {
        v.push(T::decode(d)?);
    }
    Ok(v)
}

/// Nesting bound for values inside data arrays inside values…, so hostile input
/// cannot exhaust the stack.
const MAX_DEPTH: u32 = 64;

/// A string as `String`'s encoding writes it, without copying it into a `String` first.
fn encode_str(s: &str, out: &mut Vec<u8>) {
    (s.len() as u32).encode(out);
    out.extend_from_slice(s.as_bytes());
}

impl Wire for Nspace {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_str(self.as_str(), out)
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Nspace::new(String::decode(d)?).map_err(|e| Error::unpack(e.context))
    }
}

impl Wire for Key {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_str(self.as_str(), out)
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Key::new_allow_empty(String::decode(d)?).map_err(|e| Error::unpack(e.context))
    }
}

impl Wire for ProcId {
    fn encode(&self, out: &mut Vec<u8>) {
        self.nspace.encode(out);
        self.rank.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(ProcId {
            nspace: Nspace::decode(d)?,
            rank: u32::decode(d)?,
        })
    }
}

impl Wire for Vec<Vec<u8>> {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_seq(self, out)
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        decode_seq(d)
    }
}

impl Wire for Info {
    fn encode(&self, out: &mut Vec<u8>) {
        self.key.encode(out);
        self.flags.encode(out);
        self.value.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Info {
            key: Key::decode(d)?,
            flags: u32::decode(d)?,
            value: Value::decode(d)?,
        })
    }
}

impl Wire for Vec<Info> {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_seq(self, out)
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        decode_seq(d)
    }
}

impl Wire for Vec<ProcId> {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_seq(self, out)
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        decode_seq(d)
    }
}

impl Wire for Vec<Value> {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_seq(self, out)
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        decode_seq(d)
    }
}

impl Wire for App {
    fn encode(&self, out: &mut Vec<u8>) {
        self.cmd.encode(out);
        self.argv.encode(out);
        self.env.encode(out);
        self.cwd.encode(out);
        self.maxprocs.encode(out);
        self.info.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(App {
            cmd: Wire::decode(d)?,
            argv: Wire::decode(d)?,
            env: Wire::decode(d)?,
            cwd: Wire::decode(d)?,
            maxprocs: Wire::decode(d)?,
            info: Wire::decode(d)?,
        })
    }
}

impl Wire for Pdata {
    fn encode(&self, out: &mut Vec<u8>) {
        self.proc_.encode(out);
        self.key.encode(out);
        self.value.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Pdata {
            proc_: Wire::decode(d)?,
            key: Wire::decode(d)?,
            value: Wire::decode(d)?,
        })
    }
}

impl Wire for Query {
    fn encode(&self, out: &mut Vec<u8>) {
        self.keys.encode(out);
        self.qualifiers.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Query {
            keys: Wire::decode(d)?,
            qualifiers: Wire::decode(d)?,
        })
    }
}

impl Wire for ProcInfo {
    fn encode(&self, out: &mut Vec<u8>) {
        self.proc_.encode(out);
        self.hostname.encode(out);
        self.executable_name.encode(out);
        self.pid.encode(out);
        self.exit_code.encode(out);
        self.state.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(ProcInfo {
            proc_: Wire::decode(d)?,
            hostname: Wire::decode(d)?,
            executable_name: Wire::decode(d)?,
            pid: Wire::decode(d)?,
            exit_code: Wire::decode(d)?,
            state: Wire::decode(d)?,
        })
    }
}

impl Wire for Envar {
    fn encode(&self, out: &mut Vec<u8>) {
        self.envar.encode(out);
        self.value.encode(out);
        self.separator.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Envar {
            envar: Wire::decode(d)?,
            value: Wire::decode(d)?,
            separator: Wire::decode(d)?,
        })
    }
}

impl Wire for Coord {
    fn encode(&self, out: &mut Vec<u8>) {
        self.view.encode(out);
        (self.coord.len() as u32).encode(out);
        for c in &self.coord {
            c.encode(out);
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let view = u8::decode(d)?;
        let n = d.count(4)?;
        let mut coord = Vec::with_capacity(n);
        for _ in 0..n {
            coord.push(u32::decode(d)?);
        }
        Ok(Coord { view, coord })
    }
}

impl Wire for Regattr {
    fn encode(&self, out: &mut Vec<u8>) {
        self.name.encode(out);
        self.string.encode(out);
        self.dtype.encode(out);
        self.description.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Regattr {
            name: Wire::decode(d)?,
            string: Wire::decode(d)?,
            dtype: Wire::decode(d)?,
            description: Wire::decode(d)?,
        })
    }
}

impl Wire for Geometry {
    fn encode(&self, out: &mut Vec<u8>) {
        self.fabric.encode(out);
        self.uuid.encode(out);
        self.osname.encode(out);
        encode_seq(&self.coordinates, out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Geometry {
            fabric: Wire::decode(d)?,
            uuid: Wire::decode(d)?,
            osname: Wire::decode(d)?,
            coordinates: decode_seq(d)?,
        })
    }
}

impl Wire for Device {
    fn encode(&self, out: &mut Vec<u8>) {
        self.uuid.encode(out);
        self.osname.encode(out);
        self.dtype.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Device {
            uuid: Wire::decode(d)?,
            osname: Wire::decode(d)?,
            dtype: Wire::decode(d)?,
        })
    }
}

impl Wire for DeviceDistance {
    fn encode(&self, out: &mut Vec<u8>) {
        self.uuid.encode(out);
        self.osname.encode(out);
        self.dtype.encode(out);
        self.mindist.encode(out);
        self.maxdist.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(DeviceDistance {
            uuid: Wire::decode(d)?,
            osname: Wire::decode(d)?,
            dtype: Wire::decode(d)?,
            mindist: Wire::decode(d)?,
            maxdist: Wire::decode(d)?,
        })
    }
}

impl Wire for Endpoint {
    fn encode(&self, out: &mut Vec<u8>) {
        self.uuid.encode(out);
        self.osname.encode(out);
        self.endpt.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Endpoint {
            uuid: Wire::decode(d)?,
            osname: Wire::decode(d)?,
            endpt: Wire::decode(d)?,
        })
    }
}

impl Wire for Opaque {
    fn encode(&self, out: &mut Vec<u8>) {
        self.source.encode(out);
        (self.ptr as u64).encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let source = Wire::decode(d)?;
        let ptr =
            usize::try_from(u64::decode(d)?).map_err(|_| Error::unpack("pointer out of range"))?;
        Ok(Opaque { source, ptr })
    }
}

impl Wire for NodePid {
    fn encode(&self, out: &mut Vec<u8>) {
        self.hostname.encode(out);
        self.nodeid.encode(out);
        self.pid.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(NodePid {
            hostname: Wire::decode(d)?,
            nodeid: Wire::decode(d)?,
            pid: Wire::decode(d)?,
        })
    }
}

impl Wire for Regex2 {
    fn encode(&self, out: &mut Vec<u8>) {
        self.rtype.encode(out);
        self.bytes.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Regex2 {
            rtype: Wire::decode(d)?,
            bytes: Wire::decode(d)?,
        })
    }
}

impl Wire for ResourceUnit {
    fn encode(&self, out: &mut Vec<u8>) {
        self.dtype.encode(out);
        self.count.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(ResourceUnit {
            dtype: Wire::decode(d)?,
            count: Wire::decode(d)?,
        })
    }
}

impl Wire for DataArray {
    fn encode(&self, out: &mut Vec<u8>) {
        self.dtype.encode(out);
        encode_seq(&self.items, out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let dtype = u16::decode(d)?;
        let items: Vec<Value> = decode_seq(d)?;
        if let Some(bad) = items.iter().find(|v| v.dtype() != dtype) {
            return Err(Error::new(
                sys::PMIX_ERR_TYPE_MISMATCH,
                format!(
                    "data array of type {} holds an element of type {}",
                    dtype,
                    bad.dtype()
                ),
            ));
        }
        Ok(DataArray { dtype, items })
    }
}

fn boxed<T: Wire>(d: &mut Decoder<'_>) -> Result<Box<T>> {
    Ok(Box::new(T::decode(d)?))
}

impl Wire for Value {
    fn encode(&self, out: &mut Vec<u8>) {
        use self::Value::*;
        self.dtype().encode(out);
        match self {
            Undef => {}
            Bool(v) => v.encode(out),
            Byte(v) | Uint8(v) | Persist(v) | Scope(v) | Range(v) | ProcState(v) | JobState(v)
            | LinkState(v) | AllocDirective(v) | ResblockDirective(v) | AllocInherit(v)
            | Command(v) => v.encode(out),
            String(v) => v.encode(out),
            Size(v) | Uint64(v) | DevType(v) => v.encode(out),
            Pid(v) | Int(v) | Int32(v) | Status(v) => v.encode(out),
            Int8(v) => v.encode(out),
            Int16(v) => v.encode(out),
            Int64(v) | Time(v) => v.encode(out),
            Uint(v) | Uint32(v) | Rank(v) | InfoDirectives(v) => v.encode(out),
            Uint16(v) | DataType(v) | IofChannel(v) | Locality(v) => v.encode(out),
            Float(v) => v.encode(out),
            Double(v) => v.encode(out),
            Timeval(s, us) => {
                s.encode(out);
                us.encode(out);
            }
            ProcNspace(v) => v.encode(out),
            Proc(v) => v.encode(out),
            ByteObject(v)
            | CompressedString(v)
            | CompressedByteObject(v)
            | Regex(v)
            | DataBuffer(v) => v.encode(out),
            Pointer(p) => (*p as u64).encode(out),
            ProcInfo(v) => v.encode(out),
            DataArray(v) => v.encode(out),
            Envar(v) => v.encode(out),
            Coord(v) => v.encode(out),
            Topo(v) | Cpuset(v) => v.encode(out),
            Geometry(v) => v.encode(out),
            Device(v) => v.encode(out),
            DeviceDist(v) => v.encode(out),
            Endpoint(v) => v.encode(out),
            ResourceUnit(v) => v.encode(out),
            NodePid(v) => v.encode(out),
            Regex2(v) => v.encode(out),
            Regattr(v) => v.encode(out),
            Info(v) => v.encode(out),
            App(v) => v.encode(out),
            Pdata(v) => v.encode(out),
            Query(v) => v.encode(out),
            Value(v) => v.encode(out),
        }
    }

    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        decode_value(d)
    }
}

thread_local! {
    static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Decode one value, tracking nesting depth (values nest through data arrays, infos, …).
fn decode_value(d: &mut Decoder<'_>) -> Result<Value> {
    let depth = DEPTH.with(|c| c.get());
    if depth >= MAX_DEPTH {
        return Err(Error::unpack("values nested too deeply"));
    }
    DEPTH.with(|c| c.set(depth + 1));
    let r = decode_value_payload(d);
    DEPTH.with(|c| c.set(depth));
    r
}

fn decode_value_payload(d: &mut Decoder<'_>) -> Result<Value> {
    use self::Value as V;
    let t = u16::decode(d)?;
    Ok(match t {
        sys::PMIX_UNDEF => V::Undef,
        sys::PMIX_BOOL => V::Bool(Wire::decode(d)?),
        sys::PMIX_BYTE => V::Byte(Wire::decode(d)?),
        sys::PMIX_STRING => V::String(Wire::decode(d)?),
        sys::PMIX_SIZE => V::Size(Wire::decode(d)?),
        sys::PMIX_PID => V::Pid(Wire::decode(d)?),
        sys::PMIX_INT => V::Int(Wire::decode(d)?),
        sys::PMIX_INT8 => V::Int8(Wire::decode(d)?),
        sys::PMIX_INT16 => V::Int16(Wire::decode(d)?),
        sys::PMIX_INT32 => V::Int32(Wire::decode(d)?),
        sys::PMIX_INT64 => V::Int64(Wire::decode(d)?),
        sys::PMIX_UINT => V::Uint(Wire::decode(d)?),
        sys::PMIX_UINT8 => V::Uint8(Wire::decode(d)?),
        sys::PMIX_UINT16 => V::Uint16(Wire::decode(d)?),
        sys::PMIX_UINT32 => V::Uint32(Wire::decode(d)?),
        sys::PMIX_UINT64 => V::Uint64(Wire::decode(d)?),
        sys::PMIX_FLOAT => V::Float(Wire::decode(d)?),
        sys::PMIX_DOUBLE => V::Double(Wire::decode(d)?),
        sys::PMIX_TIMEVAL => V::Timeval(Wire::decode(d)?, Wire::decode(d)?),
        sys::PMIX_TIME => V::Time(Wire::decode(d)?),
        sys::PMIX_STATUS => V::Status(Wire::decode(d)?),
        sys::PMIX_PROC_RANK => V::Rank(Wire::decode(d)?),
        sys::PMIX_PROC_NSPACE => V::ProcNspace(Wire::decode(d)?),
        sys::PMIX_PROC => V::Proc(Wire::decode(d)?),
        sys::PMIX_BYTE_OBJECT => V::ByteObject(Wire::decode(d)?),
        sys::PMIX_COMPRESSED_STRING => V::CompressedString(Wire::decode(d)?),
        sys::PMIX_COMPRESSED_BYTE_OBJECT => V::CompressedByteObject(Wire::decode(d)?),
        sys::PMIX_REGEX => V::Regex(Wire::decode(d)?),
        sys::PMIX_DATA_BUFFER => V::DataBuffer(Wire::decode(d)?),
        sys::PMIX_PERSIST => V::Persist(Wire::decode(d)?),
        sys::PMIX_SCOPE => V::Scope(Wire::decode(d)?),
        sys::PMIX_DATA_RANGE => V::Range(Wire::decode(d)?),
        sys::PMIX_PROC_STATE => V::ProcState(Wire::decode(d)?),
        sys::PMIX_JOB_STATE => V::JobState(Wire::decode(d)?),
        sys::PMIX_LINK_STATE => V::LinkState(Wire::decode(d)?),
        sys::PMIX_ALLOC_DIRECTIVE => V::AllocDirective(Wire::decode(d)?),
        sys::PMIX_RESBLOCK_DIRECTIVE => V::ResblockDirective(Wire::decode(d)?),
        sys::PMIX_ALLOC_INHERIT => V::AllocInherit(Wire::decode(d)?),
        sys::PMIX_COMMAND => V::Command(Wire::decode(d)?),
        sys::PMIX_INFO_DIRECTIVES => V::InfoDirectives(Wire::decode(d)?),
        sys::PMIX_DATA_TYPE => V::DataType(Wire::decode(d)?),
        sys::PMIX_IOF_CHANNEL => V::IofChannel(Wire::decode(d)?),
        sys::PMIX_LOCTYPE => V::Locality(Wire::decode(d)?),
        sys::PMIX_DEVTYPE => V::DevType(Wire::decode(d)?),
        sys::PMIX_POINTER => V::Pointer(
            usize::try_from(u64::decode(d)?).map_err(|_| Error::unpack("pointer out of range"))?,
        ),
        sys::PMIX_PROC_INFO => V::ProcInfo(boxed(d)?),
        sys::PMIX_DATA_ARRAY => V::DataArray(boxed(d)?),
        sys::PMIX_ENVAR => V::Envar(Wire::decode(d)?),
        sys::PMIX_COORD => V::Coord(boxed(d)?),
        sys::PMIX_TOPO => V::Topo(boxed(d)?),
        sys::PMIX_PROC_CPUSET => V::Cpuset(boxed(d)?),
        sys::PMIX_GEOMETRY => V::Geometry(boxed(d)?),
        sys::PMIX_DEVICE => V::Device(boxed(d)?),
        sys::PMIX_DEVICE_DIST => V::DeviceDist(boxed(d)?),
        sys::PMIX_ENDPOINT => V::Endpoint(boxed(d)?),
        sys::PMIX_RESOURCE_UNIT => V::ResourceUnit(Wire::decode(d)?),
        sys::PMIX_NODE_PID => V::NodePid(boxed(d)?),
        sys::PMIX_REGEX2 => V::Regex2(boxed(d)?),
        sys::PMIX_REGATTR => V::Regattr(boxed(d)?),
        sys::PMIX_INFO => V::Info(boxed(d)?),
        sys::PMIX_APP => V::App(boxed(d)?),
        sys::PMIX_PDATA => V::Pdata(boxed(d)?),
        sys::PMIX_QUERY => V::Query(boxed(d)?),
        sys::PMIX_VALUE => V::Value(boxed(d)?),
        other => {
            return Err(Error::new(
                sys::PMIX_ERR_UNKNOWN_DATA_TYPE,
                format!("unknown data type {}", other),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::{from_bytes, to_bytes};
    use super::*;

    fn cs(s: &str) -> CString {
        Some(s.as_bytes().to_vec())
    }

    fn proc_id(ns: &str, r: u32) -> ProcId {
        ProcId::new(Nspace::new(ns).unwrap(), r)
    }

    /// One value of every data type, nested where the type nests.
    pub(crate) fn every_value() -> Vec<Value> {
        use self::Value as V;
        let info = Info::new("k", V::Uint32(7)).unwrap();
        vec![
            V::Undef,
            V::Bool(true),
            V::Byte(0xab),
            V::String(cs("hello")),
            V::String(None),
            V::Size(u64::MAX),
            V::Pid(-1),
            V::Int(-5),
            V::Int8(-8),
            V::Int16(-16),
            V::Int32(i32::MIN),
            V::Int64(i64::MIN),
            V::Uint(5),
            V::Uint8(8),
            V::Uint16(16),
            V::Uint32(u32::MAX),
            V::Uint64(u64::MAX),
            V::Float(1.5),
            V::Double(-2.25),
            V::Timeval(10, 20),
            V::Time(1234),
            V::Status(-27),
            V::Rank(sys::PMIX_RANK_WILDCARD),
            V::ProcNspace(Some(Nspace::new("ns").unwrap())),
            V::Proc(Some(proc_id("ns", 3))),
            V::Proc(None),
            V::ByteObject(vec![0, 1, 2, 255]),
            V::CompressedString(vec![9; 10]),
            V::CompressedByteObject(vec![]),
            V::Regex(b"pmix[x]".to_vec()),
            V::DataBuffer(vec![1, 2, 3]),
            V::Persist(1),
            V::Scope(3),
            V::Range(5),
            V::ProcState(2),
            V::JobState(3),
            V::LinkState(1),
            V::AllocDirective(2),
            V::ResblockDirective(1),
            V::AllocInherit(4),
            V::Command(3),
            V::InfoDirectives(0x11),
            V::DataType(27),
            V::IofChannel(4),
            V::Locality(0x10),
            V::DevType(0x80),
            V::Pointer(0xdead_beef),
            V::ProcInfo(Box::new(ProcInfo {
                proc_: proc_id("a", 1),
                hostname: cs("h"),
                executable_name: None,
                pid: 42,
                exit_code: 3,
                state: 7,
            })),
            V::DataArray(Box::new(DataArray {
                dtype: sys::PMIX_INFO,
                items: vec![
                    V::Info(Box::new(info.clone())),
                    V::Info(Box::new(Info {
                        key: Key::new("nested").unwrap(),
                        flags: sys::PMIX_INFO_QUALIFIER,
                        value: V::DataArray(Box::new(DataArray {
                            dtype: sys::PMIX_UINT16,
                            items: vec![V::Uint16(1), V::Uint16(2)],
                        })),
                    })),
                ],
            })),
            V::Envar(Envar {
                envar: cs("PATH"),
                value: cs("/bin"),
                separator: b':',
            }),
            V::Coord(Box::new(Coord {
                view: 1,
                coord: vec![1, 2, 3],
            })),
            V::Topo(Box::new(Opaque {
                source: cs("hwloc"),
                ptr: 16,
            })),
            V::Cpuset(Box::new(Opaque {
                source: cs("hwloc"),
                ptr: 0,
            })),
            V::Geometry(Box::new(Geometry {
                fabric: 1,
                uuid: cs("u"),
                osname: cs("o"),
                coordinates: vec![Coord {
                    view: 2,
                    coord: vec![4],
                }],
            })),
            V::Device(Box::new(Device {
                uuid: cs("u"),
                osname: None,
                dtype: 4,
            })),
            V::DeviceDist(Box::new(DeviceDistance {
                uuid: cs("u"),
                osname: cs("o"),
                dtype: 2,
                mindist: 1,
                maxdist: u16::MAX,
            })),
            V::Endpoint(Box::new(Endpoint {
                uuid: None,
                osname: cs("eth0"),
                endpt: vec![1, 2],
            })),
            V::ResourceUnit(ResourceUnit {
                dtype: 0x200,
                count: 4,
            }),
            V::NodePid(Box::new(NodePid {
                hostname: cs("n0"),
                nodeid: 2,
                pid: 99,
            })),
            V::Regex2(Box::new(Regex2 {
                rtype: cs("native"),
                bytes: vec![0, 1],
            })),
            V::Regattr(Box::new(Regattr {
                name: cs("PMIX_TIMEOUT"),
                string: Key::new("pmix.timeout").unwrap(),
                dtype: sys::PMIX_INT,
                description: Some(vec![b"line".to_vec()]),
            })),
            V::Info(Box::new(info)),
            V::App(Box::new(App {
                cmd: cs("a.out"),
                argv: Some(vec![b"a.out".to_vec(), b"-x".to_vec()]),
                env: None,
                cwd: cs("/tmp"),
                maxprocs: 4,
                info: vec![],
            })),
            V::Pdata(Box::new(Pdata {
                proc_: proc_id("p", 0),
                key: Key::new("k").unwrap(),
                value: V::Bool(false),
            })),
            V::Query(Box::new(Query {
                keys: Some(vec![b"q".to_vec()]),
                qualifiers: vec![],
            })),
            V::Value(Box::new(V::Int(1))),
        ]
    }

    #[test]
    fn every_value_round_trips() {
        for v in every_value() {
            let bytes = to_bytes(&v);
            let back: Value = from_bytes(&bytes).unwrap_or_else(|e| panic!("{:?}: {}", v, e));
            assert_eq!(back, v);
        }
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        for v in every_value() {
            let bytes = to_bytes(&v);
            for cut in 0..bytes.len() {
                assert!(
                    from_bytes::<Value>(&bytes[..cut]).is_err(),
                    "{:?} cut at {}",
                    v,
                    cut
                );
            }
        }
    }

    #[test]
    fn corrupted_bytes_never_panic() {
        // Deterministic xorshift so the test is repeatable.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for v in every_value() {
            let bytes = to_bytes(&v);
            for _ in 0..200 {
                let mut b = bytes.clone();
                if b.is_empty() {
                    continue;
                }
                let i = (next() as usize) % b.len();
                b[i] = next() as u8;
                let _ = from_bytes::<Value>(&b);
            }
        }
    }

    #[test]
    fn hostile_count_does_not_allocate() {
        // A byte object claiming 4 GiB with 3 bytes behind it.
        let mut b = Vec::new();
        sys::PMIX_BYTE_OBJECT.encode(&mut b);
        u32::MAX.encode(&mut b);
        b.extend_from_slice(&[1, 2, 3]);
        assert!(from_bytes::<Value>(&b).is_err());
    }

    #[test]
    fn deep_nesting_is_rejected() {
        let mut v = Value::Int(0);
        for _ in 0..200 {
            v = Value::Value(Box::new(v));
        }
        let bytes = to_bytes(&v);
        assert!(from_bytes::<Value>(&bytes).is_err());
    }

    #[test]
    fn data_array_type_mismatch_is_rejected() {
        let v = Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INT,
            items: vec![Value::Bool(true)],
        }));
        let bytes = to_bytes(&v);
        assert_eq!(
            from_bytes::<Value>(&bytes).unwrap_err().status,
            sys::PMIX_ERR_TYPE_MISMATCH
        );
    }
}
