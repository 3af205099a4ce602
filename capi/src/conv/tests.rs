//! Round trips of every data type through the C structs and back, plus the error
//! paths (unknown types, unterminated keys, over-deep nesting, NULLs).

use super::*;
use core::ffi::c_char;
use pmix_core::*;
use pmix_sys::*;

fn s(x: &str) -> CString {
    Some(x.as_bytes().to_vec())
}

fn pid(ns: &str, r: u32) -> ProcId {
    ProcId::new(Nspace::new(ns).unwrap(), r)
}

fn info(k: &str, v: Value, flags: u32) -> Info {
    Info {
        key: Key::new(k).unwrap(),
        flags,
        value: v,
    }
}

fn darr(t: DataType, items: Vec<Value>) -> Value {
    Value::DataArray(Box::new(DataArray { dtype: t, items }))
}

/// One sample of every element type (as it may appear in a data array).
pub(crate) fn element_samples() -> Vec<Value> {
    vec![
        Value::Bool(true),
        Value::Byte(0xfe),
        Value::String(s("hello")),
        Value::String(None),
        Value::Size(1 << 40),
        Value::Pid(4242),
        Value::Int(-7),
        Value::Int8(-8),
        Value::Int16(-16),
        Value::Int32(-32),
        Value::Int64(-64),
        Value::Uint(7),
        Value::Uint8(8),
        Value::Uint16(16),
        Value::Uint32(32),
        Value::Uint64(u64::MAX),
        Value::Float(1.5),
        Value::Double(-2.25),
        Value::Timeval(12, 345),
        Value::Time(1_700_000_000),
        Value::Status(PMIX_ERR_NOT_FOUND),
        Value::Rank(PMIX_RANK_WILDCARD),
        Value::ProcNspace(Some(Nspace::new("ns-a").unwrap())),
        Value::Proc(Some(pid("ns-b", 3))),
        Value::ByteObject(vec![0, 1, 2, 255]),
        Value::ByteObject(vec![]),
        Value::CompressedString(vec![9, 8, 7]),
        Value::CompressedByteObject(vec![1]),
        Value::Regex(b"node[0-3]\0".to_vec()),
        Value::Persist(2),
        Value::Scope(3),
        Value::Range(5),
        Value::ProcState(6),
        Value::JobState(3),
        Value::LinkState(1),
        Value::AllocDirective(2),
        Value::ResblockDirective(4),
        Value::AllocInherit(1),
        Value::Command(9),
        Value::InfoDirectives(PMIX_INFO_REQD | PMIX_INFO_QUALIFIER),
        Value::DataType(PMIX_STRING),
        Value::IofChannel(0x6),
        Value::Locality(0x1f),
        Value::DevType(0x40),
        Value::Pointer(0xdead_beef),
        Value::ProcInfo(Box::new(ProcInfo {
            proc_: pid("ns-c", 1),
            hostname: s("host1"),
            executable_name: None,
            pid: 99,
            exit_code: -1,
            state: 4,
        })),
        Value::Envar(Envar {
            envar: s("PATH"),
            value: s("/bin"),
            separator: b':',
        }),
        Value::Envar(Envar::default()),
        Value::Coord(Box::new(Coord {
            view: 1,
            coord: vec![1, 2, 3],
        })),
        Value::Coord(Box::default()),
        Value::Topo(Box::new(Opaque {
            source: s("hwloc"),
            ptr: 0x1000,
        })),
        Value::Cpuset(Box::new(Opaque {
            source: s("hwloc"),
            ptr: 0x2000,
        })),
        Value::Geometry(Box::new(Geometry {
            fabric: 3,
            uuid: s("uuid"),
            osname: s("ib0"),
            coordinates: vec![
                Coord {
                    view: 2,
                    coord: vec![4, 5],
                },
                Coord {
                    view: 1,
                    coord: vec![],
                },
            ],
        })),
        Value::Device(Box::new(Device {
            uuid: s("d-uuid"),
            osname: None,
            dtype: 0x8,
        })),
        Value::DeviceDist(Box::new(DeviceDistance {
            uuid: s("x"),
            osname: s("mlx5_0"),
            dtype: 0x4,
            mindist: 1,
            maxdist: u16::MAX,
        })),
        Value::Endpoint(Box::new(Endpoint {
            uuid: None,
            osname: s("eth0"),
            endpt: vec![1, 2, 3, 4],
        })),
        Value::DataBuffer(vec![5, 6, 7]),
        Value::DataBuffer(vec![]),
        Value::ResourceUnit(ResourceUnit {
            dtype: 0x80,
            count: 12,
        }),
        Value::NodePid(Box::new(NodePid {
            hostname: s("n0"),
            nodeid: 7,
            pid: 1234,
        })),
        Value::Regex2(Box::new(Regex2 {
            rtype: s("native"),
            bytes: vec![1, 0, 2],
        })),
        Value::Regattr(Box::new(Regattr {
            name: s("PMIX_TIMEOUT"),
            string: Key::new("pmix.timeout").unwrap(),
            dtype: PMIX_INT,
            description: Some(vec![b"line one".to_vec(), b"line two".to_vec()]),
        })),
    ]
}

/// Values only a data array can hold, nested several levels.
pub(crate) fn array_only_samples() -> Vec<Value> {
    let inner = darr(
        PMIX_INFO,
        vec![Value::Info(Box::new(info("k.inner", Value::Uint32(1), 0)))],
    );
    vec![
        Value::Info(Box::new(info(
            "pmix.qual.val",
            inner.clone(),
            PMIX_INFO_REQD,
        ))),
        Value::Value(Box::new(Value::string("v"))),
        Value::Value(Box::new(Value::Undef)),
        Value::Pdata(Box::new(Pdata {
            proc_: pid("pub", 0),
            key: Key::new("k").unwrap(),
            value: inner.clone(),
        })),
        Value::App(Box::new(App {
            cmd: s("/bin/true"),
            argv: Some(vec![b"true".to_vec(), b"-x".to_vec()]),
            env: None,
            cwd: s("/tmp"),
            maxprocs: 4,
            info: vec![info("pmix.app.a", Value::Bool(true), PMIX_INFO_ARRAY_END)],
        })),
        Value::App(Box::default()),
        Value::Query(Box::new(Query {
            keys: Some(vec![b"pmix.qry.ns".to_vec()]),
            qualifiers: vec![
                info("q1", Value::Int(1), PMIX_INFO_QUALIFIER),
                info("q2", inner, PMIX_INFO_ARRAY_END),
            ],
        })),
    ]
}

/// Every value that can sit in a `pmix_value_t`, including data arrays of every
/// element type and nested arrays of infos of arrays.
pub(crate) fn value_samples() -> Vec<Value> {
    let mut out = element_samples();
    out.push(Value::Undef);
    out.push(Value::Proc(None));
    out.push(Value::ProcNspace(None));
    let mut all = element_samples();
    all.extend(array_only_samples());
    for v in &all {
        out.push(darr(v.dtype(), vec![v.clone(), v.clone()]));
    }
    out.push(darr(PMIX_UNDEF, vec![]));
    out.push(darr(PMIX_INFO, vec![]));
    // arrays of arrays of infos of arrays
    let deep = darr(
        PMIX_DATA_ARRAY,
        vec![darr(
            PMIX_INFO,
            vec![Value::Info(Box::new(info(
                "a",
                darr(PMIX_STRING, vec![Value::string("x")]),
                0,
            )))],
        )],
    );
    out.push(deep);
    out
}

fn round_trip(v: &Value) -> Value {
    let mut c: pmix_value_t = unsafe { core::mem::zeroed() };
    // SAFETY: `c` is a local value; it is destructed before returning.
    unsafe {
        value_to_c(v, &mut c).unwrap_or_else(|e| panic!("to_c {:?}: {}", v, e));
        assert_eq!(c.type_, v.dtype());
        let back = value_from_c(&c).unwrap_or_else(|e| panic!("from_c {:?}: {}", v, e));
        value_destruct(&mut c);
        assert_eq!(c.type_, PMIX_UNDEF);
        back
    }
}

#[test]
fn every_value_round_trips() {
    for v in value_samples() {
        assert_eq!(round_trip(&v), v);
    }
}

#[test]
fn every_element_round_trips_through_elem_storage() {
    let mut all = element_samples();
    all.extend(array_only_samples());
    for v in all {
        let size = elem_size(v.dtype()).unwrap();
        let p = alloc::calloc_array::<u8>(size).unwrap();
        // SAFETY: `p` is a fresh zeroed block of the element's size.
        unsafe {
            elem_to_c(&v, p).unwrap();
            assert_eq!(elem_from_c(p, v.dtype()).unwrap(), v);
            elem_destruct(p, v.dtype());
            alloc::free(p);
        }
    }
}

#[test]
fn info_arrays_mark_the_end_and_drop_persistent() {
    let infos = vec![
        info("a", Value::Int(1), PMIX_INFO_PERSISTENT),
        info("b", Value::string("x"), 0),
    ];
    let (p, n) = info_array_to_c(&infos).unwrap();
    assert_eq!(n, 2);
    // SAFETY: `p` holds `n` infos we own.
    unsafe {
        let back = info_array_from_c(p, n).unwrap();
        assert_eq!(back[0].flags, 0);
        assert_eq!(back[1].flags, PMIX_INFO_ARRAY_END);
        assert_eq!(back[1].value, Value::string("x"));
        info_array_free(p, n);
    }
    assert_eq!(info_array_to_c(&[]).unwrap(), (core::ptr::null_mut(), 0));
    // SAFETY: NULL with n == 0 is the empty list; NULL with n > 0 is an error.
    unsafe {
        assert!(info_array_from_c(core::ptr::null(), 0).unwrap().is_empty());
        assert_eq!(
            info_array_from_c(core::ptr::null(), 3).unwrap_err().status,
            PMIX_ERR_BAD_PARAM
        );
    }
}

#[test]
fn procs_round_trip() {
    let procs = vec![pid("a", 0), pid("b", PMIX_RANK_WILDCARD)];
    let (p, n) = proc_array_to_c(&procs).unwrap();
    // SAFETY: `p` holds `n` procs from malloc.
    unsafe {
        assert_eq!(proc_array_from_c(p, n).unwrap(), procs);
        alloc::free(p);
        assert_eq!(
            proc_from_ptr(core::ptr::null()).unwrap_err().status,
            PMIX_ERR_BAD_PARAM
        );
    }
}

#[test]
fn unknown_types_are_rejected_not_misread() {
    let mut c: pmix_value_t = unsafe { core::mem::zeroed() };
    for t in [
        PMIX_KVAL,
        PMIX_BUFFER,
        PMIX_STOR_MEDIUM,
        61,
        499,
        PMIX_INFO,
        PMIX_APP,
    ] {
        c.type_ = t;
        // SAFETY: `c` is zeroed; unsupported types are never dereferenced.
        let e = unsafe { value_from_c(&c) }.unwrap_err();
        assert_eq!(e.status, PMIX_ERR_UNKNOWN_DATA_TYPE, "type {}", t);
    }
    let mut d = pmix_data_array_t {
        type_: 499,
        size: 2,
        array: &mut c as *mut _ as *mut _,
    };
    // SAFETY: `d` describes an array of an unsupported type, which is not read.
    unsafe {
        assert_eq!(
            darray_from_c(&d).unwrap_err().status,
            PMIX_ERR_UNKNOWN_DATA_TYPE
        );
        d.size = 0;
        assert!(darray_from_c(&d).unwrap().items.is_empty());
    }
    // A value cannot hold an info.
    let v = Value::Info(Box::new(info("k", Value::Undef, 0)));
    // SAFETY: `c` is a local value.
    let e = unsafe { value_to_c(&v, &mut c) }.unwrap_err();
    assert_eq!(e.status, PMIX_ERR_BAD_PARAM);
    assert_eq!(c.type_, PMIX_UNDEF);
}

#[test]
fn mistyped_array_elements_are_rejected_without_leaks() {
    let v = darr(PMIX_STRING, vec![Value::string("a"), Value::Int(1)]);
    let mut c: pmix_value_t = unsafe { core::mem::zeroed() };
    // SAFETY: `c` is a local value.
    let e = unsafe { value_to_c(&v, &mut c) }.unwrap_err();
    assert_eq!(e.status, PMIX_ERR_BAD_PARAM);
    assert_eq!(c.type_, PMIX_UNDEF);
    // A NUL inside a string cannot become a C string.
    let v = darr(
        PMIX_STRING,
        vec![Value::string("ok"), Value::String(Some(b"a\0b".to_vec()))],
    );
    // SAFETY: as above.
    assert!(unsafe { value_to_c(&v, &mut c) }.is_err());
}

#[test]
fn unterminated_nspace_in_proc_value_is_bad_param() {
    let mut pr = pmix_proc_t {
        nspace: [b'x' as c_char; PMIX_MAX_NSLEN + 1],
        rank: 0,
    };
    let mut c: pmix_value_t = unsafe { core::mem::zeroed() };
    c.type_ = PMIX_PROC;
    c.data.proc_ = &mut pr;
    // SAFETY: `c` points at a live proc.
    assert_eq!(
        unsafe { value_from_c(&c) }.unwrap_err().status,
        PMIX_ERR_BAD_PARAM
    );
}

#[test]
fn null_boxed_pointers_read_as_empty_objects() {
    let mut c: pmix_value_t = unsafe { core::mem::zeroed() };
    for t in [
        PMIX_PROC,
        PMIX_PROC_NSPACE,
        PMIX_DATA_ARRAY,
        PMIX_GEOMETRY,
        PMIX_REGATTR,
        PMIX_DATA_BUFFER,
    ] {
        c.type_ = t;
        // SAFETY: the boxed pointer is NULL and is not dereferenced.
        let v = unsafe { value_from_c(&c) }.unwrap();
        assert_eq!(v.dtype(), t);
    }
}

#[test]
fn self_referencing_array_is_rejected() {
    // An array of data arrays whose only element points back at the array itself.
    let mut d: pmix_data_array_t = pmix_data_array_t {
        type_: PMIX_DATA_ARRAY,
        size: 1,
        array: core::ptr::null_mut(),
    };
    let dp: *mut pmix_data_array_t = &mut d;
    // SAFETY: the structure is valid memory, merely cyclic.
    let e = unsafe {
        (*dp).array = dp as *mut _;
        darray_from_c(dp)
    }
    .unwrap_err();
    assert_eq!(e.status, PMIX_ERR_BAD_PARAM);
}

#[test]
fn data_buffer_with_bad_pointers_is_bad_param() {
    let mut bytes = [1u8, 2, 3, 4];
    let base = bytes.as_mut_ptr() as *mut c_char;
    let mut b = pmix_data_buffer_t {
        base_ptr: base,
        pack_ptr: base,
        // SAFETY: in bounds.
        unpack_ptr: unsafe { base.add(1) },
        bytes_allocated: 4,
        bytes_used: 4,
    };
    // SAFETY: `b` describes live memory.
    assert_eq!(unsafe { dbuf_from_c(&b) }.unwrap(), vec![2, 3, 4]);
    b.unpack_ptr = base.wrapping_add(9);
    // SAFETY: the out-of-range pointer is detected before any read.
    assert_eq!(
        unsafe { dbuf_from_c(&b) }.unwrap_err().status,
        PMIX_ERR_BAD_PARAM
    );
}
