use super::*;
use crate::value::*;

fn packed(items: &[Value], t: u16) -> Vec<u8> {
    let mut p = Packer::new();
    p.pack(items, t).unwrap();
    p.into_bytes()
}

fn round(items: Vec<Value>, t: u16) {
    let b = packed(&items, t);
    let mut u = Unpacker::new(&b);
    assert_eq!(u.unpack(t).unwrap(), items, "type {}", t);
    assert!(u.is_empty(), "type {}: {} bytes left", t, u.remaining());
}

#[test]
fn bytes_match_openpmix_4_2_2() {
    // seen from Debian's libpmix 4.2.2 (PMIx_Data_pack then PMIx_Data_unload)
    assert_eq!(packed(&[Value::Int32(5)], sys::PMIX_INT32), [0x02, 0x0a]);
    assert_eq!(
        packed(&[Value::string("ab")], sys::PMIX_STRING),
        [0x02, 0x06, b'a', b'b', 0]
    );
    // a value: type tag (UINT16) then payload; SIZE has no tag in v41
    let v = Value::Value(Box::new(Value::Size(300)));
    assert_eq!(packed(&[v], sys::PMIX_VALUE), [0x02, 0x04, 0xac, 0x02]);
    // pid_t always carries its type tag (UINT32)
    assert_eq!(packed(&[Value::Pid(7)], sys::PMIX_PID), [0x02, 0x0e, 0x07]);
    // … one tag for a whole pack of them
    assert_eq!(
        packed(&[Value::Pid(1), Value::Pid(2)], sys::PMIX_PID),
        [0x04, 0x0e, 0x01, 0x02]
    );
    // UINT travels as a signed INT32
    assert_eq!(
        packed(&[Value::Uint(u32::MAX)], sys::PMIX_UINT),
        [0x02, 0x01]
    );
    assert_eq!(
        packed(&[Value::Rank(sys::PMIX_RANK_WILDCARD)], sys::PMIX_PROC_RANK),
        [0x02, 0xfe, 0xff, 0xff, 0xff, 0x0f]
    );
    assert_eq!(
        packed(&[Value::Double(1.5)], sys::PMIX_DOUBLE)[2..],
        *b"1.500000\0"
    );
}

#[test]
fn varints_fold_signs_and_use_a_raw_ninth_byte() {
    let mut p = Packer::new();
    p.int(-1);
    p.int(i64::MIN);
    p.uint(u64::MAX);
    p.uint(1 << 56);
    let b = p.into_bytes();
    assert_eq!(b[0], 0x01);
    let mut u = Unpacker::new(&b);
    assert_eq!(u.int(8).unwrap(), -1);
    assert_eq!(u.int(8).unwrap(), i64::MIN);
    let at = u.position();
    assert_eq!(u.uint(8).unwrap(), u64::MAX);
    assert_eq!(u.position() - at, 9);
    assert_eq!(u.uint(8).unwrap(), 1 << 56);
    assert!(u.is_empty());
    // a value too wide for its type is malformed
    let mut p = Packer::new();
    p.uint(70_000);
    let b = p.into_bytes();
    assert_eq!(
        Unpacker::new(&b).u16().unwrap_err().status(),
        sys::PMIX_ERR_UNPACK_FAILURE
    );
}

fn info(k: &str, v: Value) -> Info {
    Info::new(k, v).unwrap()
}

fn proc_(ns: &str, r: u32) -> ProcId {
    ProcId::new(Nspace::new(ns).unwrap(), r)
}

#[test]
fn every_type_round_trips() {
    use Value as V;
    let s = |x: &str| Some(x.as_bytes().to_vec());
    let scalars = vec![
        V::Bool(true),
        V::Byte(7),
        V::string("hello"),
        V::String(None),
        V::Size(1 << 40),
        V::Pid(4242),
        V::Int(-3),
        V::Int8(-8),
        V::Int16(-300),
        V::Int32(i32::MIN),
        V::Int64(i64::MIN),
        V::Uint(u32::MAX),
        V::Uint8(200),
        V::Uint16(u16::MAX),
        V::Uint32(u32::MAX),
        V::Uint64(u64::MAX),
        V::Float(2.5),
        V::Double(-0.125),
        V::Timeval(1_700_000_000, 999_999),
        V::Time(1_700_000_000),
        V::Status(-46),
        V::Rank(3),
        V::ProcNspace(Some(Nspace::new("ns").unwrap())),
        V::Proc(Some(proc_("job", 1))),
        V::ByteObject(vec![0, 1, 2, 255]),
        V::CompressedString(vec![9, 8]),
        V::CompressedByteObject(vec![]),
        V::Regex(b"pmix[node[1:0-3]]\0".to_vec()),
        V::Regex(b"raw:a,b\0".to_vec()),
        V::Regex(b"n0,n1\0".to_vec()),
        V::Persist(2),
        V::Scope(3),
        V::Range(4),
        V::ProcState(5),
        V::JobState(6),
        V::LinkState(1),
        V::AllocDirective(2),
        V::Command(9),
        V::InfoDirectives(0x2),
        V::DataType(sys::PMIX_INFO),
        V::IofChannel(3),
        V::Locality(0x10),
        V::DevType(0x40),
        V::Pointer(0),
        V::DataBuffer(vec![1, 2, 3]),
        V::Envar(Envar {
            envar: s("PATH"),
            value: s("/bin"),
            separator: b':',
        }),
        V::Cpuset(Box::new(Opaque {
            source: s("hwloc"),
            ptr: 0,
        })),
    ];
    for v in scalars {
        let t = v.dtype();
        round(vec![v.clone(), v], t);
    }
    let structs = vec![
        V::Info(Box::new(info("pmix.k", V::Uint32(5)))),
        V::Info(Box::new(info("pmix.u", V::Undef))),
        V::Pdata(Box::new(Pdata {
            proc_: proc_("p", 0),
            key: Key::new("key").unwrap(),
            value: V::string("v"),
        })),
        V::Value(Box::new(V::Int16(-2))),
        V::App(Box::new(App {
            cmd: s("a.out"),
            argv: Some(vec![b"a.out".to_vec(), b"-x".to_vec()]),
            env: Some(vec![b"A=1".to_vec()]),
            cwd: s("/tmp"),
            maxprocs: 4,
            info: vec![info("pmix.x", V::Bool(false))],
        })),
        V::Query(Box::new(Query {
            keys: Some(vec![b"pmix.qry".to_vec()]),
            qualifiers: vec![info("pmix.nspace", V::string("n"))],
        })),
        V::ProcInfo(Box::new(ProcInfo {
            proc_: proc_("p", 2),
            hostname: s("h"),
            executable_name: s("e"),
            pid: 77,
            exit_code: 0,
            state: 3,
        })),
        V::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INFO,
            items: vec![
                V::Info(Box::new(info("pmix.a", V::Size(1)))),
                V::Info(Box::new(info(
                    "pmix.b",
                    V::DataArray(Box::new(DataArray {
                        dtype: sys::PMIX_UINT16,
                        items: vec![V::Uint16(1), V::Uint16(2)],
                    })),
                ))),
            ],
        })),
        V::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_UNDEF,
            items: vec![],
        })),
        V::Coord(Box::new(Coord {
            view: 1,
            coord: vec![1, 2, 3],
        })),
        V::Regattr(Box::new(Regattr {
            name: s("PMIX_TIMEOUT"),
            string: Key::new("pmix.timeout").unwrap(),
            dtype: sys::PMIX_INT,
            description: Some(vec![b"seconds".to_vec()]),
        })),
        V::Geometry(Box::new(Geometry {
            fabric: 1,
            uuid: s("u"),
            osname: s("o"),
            coordinates: vec![Coord {
                view: 2,
                coord: vec![7],
            }],
        })),
        V::DeviceDist(Box::new(DeviceDistance {
            uuid: s("u"),
            osname: s("mlx5_0"),
            dtype: 0x20,
            mindist: 1,
            maxdist: 9,
        })),
        V::Endpoint(Box::new(Endpoint {
            uuid: s("u"),
            osname: None,
            endpt: vec![5; 3],
        })),
        V::Device(Box::new(Device {
            uuid: s("d"),
            osname: s("o"),
            dtype: 2,
        })),
        V::ResourceUnit(ResourceUnit { dtype: 2, count: 3 }),
        V::NodePid(Box::new(NodePid {
            hostname: s("h"),
            nodeid: 1,
            pid: 2,
        })),
        V::Regex2(Box::new(Regex2 {
            rtype: s("native"),
            bytes: vec![1, 0, 2],
        })),
    ];
    for v in structs {
        let t = v.dtype();
        round(vec![v], t);
    }
}

#[test]
fn what_cannot_travel_is_refused_cleanly() {
    let mut p = Packer::new();
    let topo = Value::Topo(Box::new(Opaque {
        source: Some(b"hwloc".to_vec()),
        ptr: 0x1000,
    }));
    assert_eq!(
        p.pack(&[topo], sys::PMIX_TOPO).unwrap_err().status(),
        sys::PMIX_ERR_NOT_SUPPORTED
    );
    assert_eq!(
        p.pack(&[Value::Undef], sys::PMIX_UNDEF)
            .unwrap_err()
            .status(),
        sys::PMIX_ERR_UNKNOWN_DATA_TYPE
    );
    assert_eq!(
        p.pack(&[Value::Bool(true)], sys::PMIX_INT)
            .unwrap_err()
            .status(),
        sys::PMIX_ERR_BAD_PARAM
    );
    assert!(p.as_bytes().is_empty(), "nothing appended on error");
    let b = [0x02, 0x00];
    assert_eq!(
        Unpacker::new(&b).unpack(999).unwrap_err().status(),
        sys::PMIX_ERR_UNKNOWN_DATA_TYPE
    );
}

#[test]
fn truncations_and_hostile_input_fail_without_panic() {
    let v = Value::DataArray(Box::new(DataArray {
        dtype: sys::PMIX_VALUE,
        items: vec![
            Value::Value(Box::new(Value::string("abc"))),
            Value::Value(Box::new(Value::Proc(Some(proc_("n", 1))))),
        ],
    }));
    let b = packed(&[v], sys::PMIX_DATA_ARRAY);
    for cut in 0..b.len() {
        assert!(
            Unpacker::new(&b[..cut])
                .unpack(sys::PMIX_DATA_ARRAY)
                .is_err(),
            "cut {}",
            cut
        );
    }
    // a count far beyond the input is refused before any allocation
    let mut p = Packer::new();
    p.int(i32::MAX as i64);
    let b = p.into_bytes();
    let e = Unpacker::new(&b).unpack(sys::PMIX_INFO).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    let mut p = Packer::new();
    p.int(-1);
    let b = p.into_bytes();
    assert!(Unpacker::new(&b).unpack(sys::PMIX_INT).is_err());
    // nesting: a chain of data arrays of values deeper than MAX_DEPTH
    let mut p = Packer::new();
    p.int(1);
    for _ in 0..100 {
        p.dtype(sys::PMIX_VALUE);
        p.size(1);
        p.dtype(sys::PMIX_DATA_ARRAY);
    }
    let b = p.into_bytes();
    let e = Unpacker::new(&b).unpack(sys::PMIX_DATA_ARRAY).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_UNPACK_FAILURE);
    // random bytes never panic
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = (seed % 24) as usize;
        let bytes: Vec<u8> = (0..len).map(|i| (seed >> (i % 8 * 8)) as u8).collect();
        let t = (seed >> 40) as u16 % 70;
        let _ = Unpacker::new(&bytes).unpack(t);
    }
}
