//! The bodies of pmix-rs's fuzz targets, shared by the libFuzzer binaries in
//! `fuzz_targets/` and the libFuzzer-free harness `fuzz-fallback`, plus the seed-corpus
//! generator (valid encodings of one value of every data type).
//!
//! Each target asserts properties, not just "no crash":
//! * [`value_decode`] / [`info_decode`]: whatever decodes re-encodes to exactly the
//!   input bytes (the codec is canonical), and the value survives a trip through the
//!   C structs (`capi::conv`) with a stable normal form; nothing leaks.
//! * [`decompress`]: decoded output (zlib, OpenPMIx's framing) has exactly the declared
//!   length; any input compresses and decompresses back to itself.
//! * [`v41_decode`]: the OpenPMIx v4.1 decoder (`codec::v41`) with any type: whatever
//!   decodes packs again, and that packing decodes to the same items and packs to the
//!   same bytes.
//! * [`data_unpack`]: `PMIx_Data_unpack` through the C ABI with any requested type and
//!   capacity returns a status, leaves the buffer and `*max` consistent, hands out
//!   data that `PMIx_Data_pack` re-packs to a stable normal form, and leaks nothing.
//! * [`v41wire::v41_wire`]: OpenPMIx's wire protocol decoders (frames, handshake,
//!   requests, replies): what decodes re-encodes to a fixed point.
//! * [`runtime`]: the protocol's frame reassembler, message decoders and host-blob
//!   parser, and a whole server session driven by a hostile peer.

use core::ffi::c_void;
use pmix::conv;
use pmix::helpers::buffer::{PMIx_Data_buffer_destruct, PMIx_Data_pack, PMIx_Data_unpack};
use pmix_core::codec::{from_bytes, to_bytes};
use pmix_core::compress;
use pmix_core::*;
use pmix_sys as sys;

pub mod runtime;
pub mod v41wire;
pub use runtime::{blob_decode, frame_decode, message_decode, server_session};
pub use v41wire::v41_wire;

/// A target's body.
pub type Target = fn(&[u8]);

/// Every target by name (for the fallback harness and the corpus generator).
pub const TARGETS: &[(&str, Target)] = &[
    ("value_decode", value_decode),
    ("info_decode", info_decode),
    ("decompress", decompress),
    ("data_unpack", data_unpack),
    ("v41_decode", v41_decode),
    ("frame_decode", frame_decode),
    ("message_decode", message_decode),
    ("blob_decode", blob_decode),
    ("server_session", server_session),
    ("v41_wire", v41_wire),
];

/// `codec::from_bytes::<Value>`.
pub fn value_decode(data: &[u8]) {
    let Ok(v) = from_bytes::<Value>(data) else {
        return;
    };
    assert_eq!(to_bytes(&v), data, "Value encoding is not canonical");
    value_c_trip(&v);
}

/// `codec::from_bytes::<Vec<Info>>`.
pub fn info_decode(data: &[u8]) {
    let Ok(infos) = from_bytes::<Vec<Info>>(data) else {
        return;
    };
    assert_eq!(
        to_bytes(&infos),
        data,
        "Vec<Info> encoding is not canonical"
    );
    let Some(once) = infos_c_trip(&infos) else {
        return;
    };
    let twice = infos_c_trip(&once).expect("a C round trip of converted infos failed");
    assert_eq!(
        to_bytes(&once),
        to_bytes(&twice),
        "info C round trip unstable"
    );
}

/// `compress::decompress`, and `compress_raw`/`compress` round trips of the input.
pub fn decompress(data: &[u8]) {
    if let Ok(out) = compress::decompress(data) {
        assert_eq!(Some(out.len()), compress::decompressed_len(data));
    }
    let c = compress::compress_raw(data);
    assert_eq!(
        compress::decompress(&c).expect("own output rejected"),
        data,
        "compress_raw round trip"
    );
    if let Some(c) = compress::compress(data) {
        assert!(c.len() < data.len());
        assert_eq!(compress::decompress(&c).expect("own output rejected"), data);
    }
}

/// Input: type selector, then v4.1 bytes. A successful decode packs again (unless the
/// items hold something that cannot travel, which the packer refuses cleanly), and
/// that packing is a fixed point.
pub fn v41_decode(data: &[u8]) {
    use pmix_core::codec::v41::{Packer, Unpacker};
    let [sel, payload @ ..] = data else {
        return;
    };
    let t = requested_type(*sel);
    let mut u = Unpacker::new(payload);
    let Ok(items) = u.unpack(t) else {
        return;
    };
    assert!(u.position() <= payload.len());
    let mut p = Packer::new();
    if p.pack(&items, t).is_err() {
        return;
    }
    let once = p.into_bytes();
    let again = Unpacker::new(&once)
        .unpack(t)
        .expect("own v41 packing rejected");
    let mut p = Packer::new();
    p.pack(&again, t).expect("re-pack of own packing failed");
    assert_eq!(
        p.into_bytes(),
        once,
        "v41 pack(unpack(x)) not a fixed point"
    );
}

/// A `Value` through `pmix_value_t` and back, twice: the second trip must not change
/// the normal form the first produced. Errors (values C cannot hold) are fine.
fn value_c_trip(v: &Value) {
    let Some(once) = value_c_once(v) else {
        return;
    };
    let twice = value_c_once(&once).expect("a C round trip of a converted value failed");
    assert_eq!(
        to_bytes(&once),
        to_bytes(&twice),
        "value C round trip unstable"
    );
}

fn value_c_once(v: &Value) -> Option<Value> {
    let p = conv::value_new(v).ok()?;
    // SAFETY: `p` is a fresh malloc'd value from `value_new`; freed once below.
    unsafe {
        let back = conv::value_from_c(p);
        conv::value_destruct(p);
        libc::free(p as *mut c_void);
        back.ok()
    }
}

fn infos_c_trip(infos: &[Info]) -> Option<Vec<Info>> {
    let (p, n) = conv::info_array_to_c(infos).ok()?;
    // SAFETY: `p` holds `n` infos from `info_array_to_c`; freed once below.
    unsafe {
        let back = conv::info_array_from_c(p, n);
        conv::info_array_free(p, n);
        back.ok()
    }
}

// ---- PMIx_Data_unpack through the C ABI ----

/// The requested type for a selector byte: every code 0..=80 (all PMIx data types and
/// some unassigned ones), then a few far-off codes.
pub fn requested_type(sel: u8) -> sys::pmix_data_type_t {
    const FAR: [u16; 4] = [0xffff, 9999, 255, 256];
    if sel <= 80 {
        sel as u16
    } else {
        FAR[(sel as usize) % FAR.len()]
    }
}

/// Bytes of one `dest` slot of `PMIx_Data_unpack` for type `t` (0: unsupported).
fn slot_size(t: sys::pmix_data_type_t) -> usize {
    if t == sys::PMIX_REGEX {
        core::mem::size_of::<*mut u8>()
    } else {
        conv::elem_size(t).unwrap_or(0)
    }
}

/// Storage for `n` slots of `esz` bytes, 16-byte aligned and zeroed.
fn slots(n: usize, esz: usize) -> Vec<u128> {
    vec![0u128; (n * esz.max(8)).div_ceil(16)]
}

/// Release `k` slots written by `PMIx_Data_unpack`.
///
/// # Safety
/// The first `k` slots of `base` were filled by a successful unpack of type `t`.
unsafe fn release(base: *mut u8, k: usize, t: sys::pmix_data_type_t) {
    let esz = slot_size(t);
    for i in 0..k {
        // SAFETY: slot `i` lies in the storage and was filled by unpack.
        unsafe {
            let p = base.add(i * esz);
            if t == sys::PMIX_REGEX {
                libc::free(core::ptr::read_unaligned(p as *mut *mut c_void));
            } else {
                conv::elem_destruct(p, t);
            }
        }
    }
}

fn empty_buffer() -> sys::pmix_data_buffer_t {
    // SAFETY: all-zero is an empty pmix_data_buffer_t.
    unsafe { core::mem::zeroed() }
}

/// Pack `k` filled slots of type `t` into a fresh buffer; its payload.
///
/// # Safety
/// `base` holds `k` initialised slots of type `t`.
unsafe fn repack(base: *mut u8, k: usize, t: sys::pmix_data_type_t) -> Vec<u8> {
    let mut b = empty_buffer();
    // SAFETY: forwarded; `b` is ours.
    unsafe {
        let rc = PMIx_Data_pack(core::ptr::null(), &mut b, base as *mut c_void, k as i32, t);
        assert_eq!(rc, sys::PMIX_SUCCESS, "re-packing unpacked data failed");
        let bytes = conv::dbuf_from_c(&b).expect("own buffer inconsistent");
        PMIx_Data_buffer_destruct(&mut b);
        bytes
    }
}

/// Input: requested-type selector, capacity byte, then the buffer payload. Unpacks
/// repeatedly (at most 16 records) until an error or the end.
pub fn data_unpack(data: &[u8]) {
    let [sel, capb, payload @ ..] = data else {
        return;
    };
    let t = requested_type(*sel);
    let cap = (*capb % 8) as usize; // 0 is a legal (rejected) capacity
    let esz = slot_size(t);
    let mut buf = empty_buffer();
    conv::dbuf_to_c(payload, &mut buf).expect("allocation");
    for _ in 0..16 {
        let mut store = slots(cap.max(1), esz);
        let base = store.as_mut_ptr() as *mut u8;
        let mut n = cap as i32;
        let before = buf.unpack_ptr;
        // SAFETY: `buf` is a consistent buffer; `store` has room for `cap` slots.
        let rc = unsafe {
            PMIx_Data_unpack(core::ptr::null(), &mut buf, base as *mut c_void, &mut n, t)
        };
        let delivered =
            rc == sys::PMIX_SUCCESS || (rc == sys::PMIX_ERR_UNPACK_INADEQUATE_SPACE && n > 0);
        if !delivered {
            assert_eq!(n, 0, "error {} but *max = {}", rc, n);
            assert_eq!(buf.unpack_ptr, before, "error {} moved the buffer", rc);
            break;
        }
        // A record may legally hold zero items (a pack of none).
        let k = n as usize;
        assert!(k <= cap, "unpack wrote {} items into {} slots", k, cap);
        assert!(buf.unpack_ptr > before, "unpack did not advance");
        if rc == sys::PMIX_SUCCESS && k > 0 {
            // SAFETY: `k` slots were filled.
            unsafe { check_stable(base, k, t) };
        }
        // SAFETY: `k` slots were filled by the unpack.
        unsafe { release(base, k, t) };
    }
    // SAFETY: our buffer.
    unsafe { PMIx_Data_buffer_destruct(&mut buf) };
}

/// Re-pack `k` unpacked slots, unpack that again and re-pack: the two packings match.
///
/// # Safety
/// `base` holds `k` slots of type `t` filled by a successful unpack.
unsafe fn check_stable(base: *mut u8, k: usize, t: sys::pmix_data_type_t) {
    // SAFETY: forwarded.
    let y1 = unsafe { repack(base, k, t) };
    let mut b = empty_buffer();
    conv::dbuf_to_c(&y1, &mut b).expect("allocation");
    let esz = slot_size(t);
    let mut store = slots(k, esz);
    let base2 = store.as_mut_ptr() as *mut u8;
    let mut n = k as i32;
    // SAFETY: `b` is ours, `store` has `k` slots.
    unsafe {
        let rc = PMIx_Data_unpack(core::ptr::null(), &mut b, base2 as *mut c_void, &mut n, t);
        assert_eq!(rc, sys::PMIX_SUCCESS, "own packing not unpackable");
        assert_eq!(n as usize, k);
        let y2 = repack(base2, k, t);
        assert_eq!(y1, y2, "pack(unpack(x)) is not stable for type {}", t);
        release(base2, k, t);
        PMIx_Data_buffer_destruct(&mut b);
    }
}

// ---- seed corpus ----

fn cs(s: &str) -> CString {
    Some(s.as_bytes().to_vec())
}

fn pid(ns: &str, r: u32) -> ProcId {
    ProcId::new(Nspace::new(ns).expect("short"), r)
}

/// One value of every data type (nested where the type nests).
pub fn samples() -> Vec<Value> {
    use Value as V;
    let info = |k: &str, v: Value| Info::new(k, v).expect("short key");
    vec![
        V::Undef,
        V::Bool(true),
        V::Byte(7),
        V::string("hello"),
        V::String(None),
        V::Size(1 << 40),
        V::Pid(1234),
        V::Int(-5),
        V::Int8(-8),
        V::Int16(-16),
        V::Int32(-32),
        V::Int64(-64),
        V::Uint(5),
        V::Uint8(8),
        V::Uint16(16),
        V::Uint32(32),
        V::Uint64(64),
        V::Float(1.5),
        V::Double(-2.25),
        V::Timeval(10, 20),
        V::Time(1234),
        V::Status(-46),
        V::Rank(sys::PMIX_RANK_WILDCARD),
        V::ProcNspace(Some(Nspace::new("ns").expect("short"))),
        V::Proc(Some(pid("job", 3))),
        V::ByteObject(vec![0, 1, 2, 255]),
        V::CompressedString(compress::compress_raw(b"compressed string")),
        V::CompressedByteObject(vec![9; 5]),
        V::Regex(b"node[0-3]\0".to_vec()),
        V::DataBuffer(vec![1, 2, 3]),
        V::Persist(1),
        V::Scope(3),
        V::Range(5),
        V::ProcState(2),
        V::JobState(3),
        V::LinkState(1),
        V::AllocDirective(2),
        V::ResblockDirective(1),
        V::AllocInherit(1),
        V::Command(3),
        V::InfoDirectives(sys::PMIX_INFO_REQD),
        V::DataType(sys::PMIX_STRING),
        V::IofChannel(2),
        V::Locality(0x10),
        V::DevType(0x80),
        V::Pointer(0x1000),
        V::ProcInfo(Box::new(ProcInfo {
            proc_: pid("a", 1),
            hostname: cs("host"),
            executable_name: cs("a.out"),
            pid: 42,
            exit_code: 0,
            state: 2,
        })),
        V::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INFO,
            items: vec![
                V::Info(Box::new(info("k1", V::Uint32(1)))),
                V::Info(Box::new(info(
                    "nested",
                    V::DataArray(Box::new(DataArray {
                        dtype: sys::PMIX_UINT16,
                        items: vec![V::Uint16(1), V::Uint16(2)],
                    })),
                ))),
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
            ptr: 0,
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
            osname: cs("mlx5_0"),
            dtype: 4,
        })),
        V::DeviceDist(Box::new(DeviceDistance {
            uuid: cs("u"),
            osname: cs("o"),
            dtype: 2,
            mindist: 1,
            maxdist: 9,
        })),
        V::Endpoint(Box::new(Endpoint {
            uuid: cs("u"),
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
            string: Key::new("pmix.timeout").expect("short"),
            dtype: sys::PMIX_INT,
            description: Some(vec![b"seconds".to_vec()]),
        })),
        V::Info(Box::new(info("pmix.job.size", V::Uint32(4)))),
        V::App(Box::new(App {
            cmd: cs("a.out"),
            argv: Some(vec![b"a.out".to_vec(), b"-x".to_vec()]),
            env: Some(vec![b"A=1".to_vec()]),
            cwd: cs("/tmp"),
            maxprocs: 4,
            info: vec![info("pmix.wdir", V::string("/tmp"))],
        })),
        V::Pdata(Box::new(Pdata {
            proc_: pid("p", 0),
            key: Key::new("k").expect("short"),
            value: V::Bool(false),
        })),
        V::Query(Box::new(Query {
            keys: Some(vec![b"pmix.qry.ns".to_vec()]),
            qualifiers: vec![info("pmix.nspace", V::string("ns"))],
        })),
        V::Value(Box::new(V::Int(1))),
    ]
}

/// Called once by each libFuzzer target before it reads its corpus: when
/// `PMIX_FUZZ_SEEDS` names a directory, write the target's seeds into it (so
/// `make robust-fuzz-smoke` needs no separate generator build).
pub fn write_seeds_from_env(name: &str) {
    let Some(dir) = std::env::var_os("PMIX_FUZZ_SEEDS") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    for (i, s) in seeds(name).iter().enumerate() {
        let _ = std::fs::write(dir.join(format!("seed-{:04}", i)), s);
    }
}

/// Seed inputs for target `name`, built from valid encodings.
pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    let values = samples();
    match name {
        "value_decode" => values.iter().map(to_bytes).collect(),
        "info_decode" => {
            let mut out = vec![to_bytes(&Vec::<Info>::new())];
            let infos: Vec<Info> = values
                .iter()
                .enumerate()
                .filter(|(_, v)| {
                    // values a pmix_info_t can hold
                    conv::slot(v.dtype()) != Some(conv::Slot::ArrayOnly)
                })
                .map(|(i, v)| Info {
                    key: Key::new(format!("key{}", i)).expect("short"),
                    flags: (i as u32) % 3,
                    value: v.clone(),
                })
                .collect();
            for chunk in infos.chunks(4) {
                out.push(to_bytes(&chunk.to_vec()));
            }
            out
        }
        "decompress" => {
            let text = b"pmix.hostname=node0;pmix.rank=0;".repeat(200);
            vec![
                compress::compress_raw(b""),
                compress::compress_raw(b"abcabcabcabcabc"),
                compress::compress(&text).expect("compressible"),
                vec![0x10, 0, 0, 0, 0x78, 0xda],
            ]
        }
        "data_unpack" => {
            let mut out = Vec::new();
            for v in values.iter().filter(|v| **v != Value::Undef) {
                let t = v.dtype();
                if let Some(payload) = pack_payload(t, &[v.clone(), v.clone()]) {
                    out.push([&[t as u8, 2][..], &payload].concat());
                    // the same record asked for with too little room
                    out.push([&[t as u8, 1][..], &payload].concat());
                }
            }
            // several records of different types in one buffer
            let mut multi = Vec::new();
            for v in values.iter().filter(|v| **v != Value::Undef).take(8) {
                if let Some(p) = pack_payload(v.dtype(), std::slice::from_ref(v)) {
                    multi.extend(p);
                }
            }
            out.push([&[sys::PMIX_BOOL as u8, 1][..], &multi].concat());
            out
        }
        "v41_decode" => {
            let mut out = Vec::new();
            for v in values.iter().filter(|v| **v != Value::Undef) {
                let mut p = pmix_core::codec::v41::Packer::new();
                if p.pack(&[v.clone(), v.clone()], v.dtype()).is_ok() {
                    out.push([&[v.dtype() as u8][..], p.as_bytes()].concat());
                }
            }
            out
        }
        "v41_wire" => v41wire::seeds(),
        other => runtime::seeds(other),
    }
}

/// `PMIx_Data_pack` of `items` (all of type `t`) into a fresh buffer: its payload.
fn pack_payload(t: sys::pmix_data_type_t, items: &[Value]) -> Option<Vec<u8>> {
    let esz = slot_size(t);
    if esz == 0 {
        return None;
    }
    let mut store = slots(items.len(), esz);
    let base = store.as_mut_ptr() as *mut u8;
    let mut filled = 0;
    let mut ok = true;
    for (i, v) in items.iter().enumerate() {
        // SAFETY: slot `i` is zeroed storage of `esz` bytes, 16-byte aligned base and
        // whole-struct stride.
        let r = unsafe {
            let p = base.add(i * esz);
            if let Value::Regex(b) = v {
                let s = std::ffi::CString::new(b.split(|&c| c == 0).next().unwrap_or(&[]))
                    .expect("no NUL");
                let dup = libc::strdup(s.as_ptr());
                core::ptr::write_unaligned(p as *mut *mut libc::c_char, dup);
                Ok(())
            } else {
                conv::elem_to_c(v, p)
            }
        };
        if r.is_err() {
            ok = false;
            break;
        }
        filled += 1;
    }
    let out = if ok {
        // SAFETY: `filled` slots of type `t`.
        Some(unsafe { repack(base, filled, t) })
    } else {
        None
    };
    // SAFETY: the first `filled` slots are ours.
    unsafe { release(base, filled, t) };
    out
}
