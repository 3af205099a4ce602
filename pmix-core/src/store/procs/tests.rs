//! Tests of the compact per-process table.

use super::*;

const PID: &str = "pmix.ppid";

fn ns() -> Nspace {
    Nspace::new("job").unwrap()
}

fn info(k: &str, v: Value) -> Info {
    Info::new(k, v).unwrap()
}

fn table() -> ProcTable {
    let mut b = ProcBuilder::new(4);
    for r in 0..4u32 {
        b.add(r, info(PID, Value::Pid(100 + r as i32)), &ns());
        b.add(r, info("dir", Value::string(&format!("/t/{r}"))), &ns());
    }
    // Another type for a key that has a column: kept in the list, exactly.
    b.add(2, info("mixed", Value::Uint32(7)), &ns());
    b.add(3, info("mixed", Value::Uint64(8)), &ns());
    // A second value for a key: the first wins, both are listed.
    b.add(1, info(PID, Value::Pid(5)), &ns());
    b.add(0, info(keys::LOCAL_RANK, Value::Uint16(9)), &ns());
    b.add(1, info("f", Value::Double(1.5)), &ns());
    b.finish().with_map(
        &["a".to_string(), "b".to_string()],
        &[vec![0, 2], vec![1, 3]],
    )
}

#[test]
fn columns_lists_and_map_answer_with_the_given_types() {
    let t = table();
    let get = |r, k| t.get(r, k).map(Cow::into_owned);
    assert_eq!(get(2, PID), Some(Value::Pid(102)));
    assert_eq!(get(1, PID), Some(Value::Pid(101)));
    assert_eq!(get(3, "dir"), Some(Value::string("/t/3")));
    assert_eq!(get(2, "mixed"), Some(Value::Uint32(7)));
    assert_eq!(get(3, "mixed"), Some(Value::Uint64(8)));
    assert_eq!(get(1, "f"), Some(Value::Double(1.5)));
    assert_eq!(get(3, keys::HOSTNAME), Some(Value::string("b")));
    assert_eq!(get(2, keys::NODEID), Some(Value::Uint32(0)));
    assert_eq!(get(3, keys::NODE_RANK), Some(Value::Uint16(1)));
    // The host's value wins over the map's.
    assert_eq!(get(0, keys::LOCAL_RANK), Some(Value::Uint16(9)));
    assert_eq!(get(2, keys::LOCAL_RANK), Some(Value::Uint16(1)));
    assert_eq!(get(4, keys::HOSTNAME), None);
    assert_eq!(get(0, "f"), None);
    let all = t.infos(1);
    let keys_of: Vec<&str> = all.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(
        keys_of,
        [
            PID,
            "f",
            PID,
            "dir",
            keys::HOSTNAME,
            keys::NODEID,
            keys::LOCAL_RANK,
            keys::NODE_RANK
        ]
    );
    assert_eq!(find(&all, PID), Some(&Value::Pid(5)));
}

#[test]
fn wire_round_trip_and_malformed_images() {
    let t = table();
    let bytes = crate::wire::to_bytes(&t);
    let back: ProcTable = crate::wire::from_bytes(&bytes).unwrap();
    assert_eq!(back, t);
    assert_eq!(
        back.get(3, "dir").map(Cow::into_owned),
        Some(Value::string("/t/3"))
    );
    // Every truncation and every single-byte change is refused or read safely.
    let img = t.image().to_vec();
    for n in 0..img.len() {
        assert!(ProcTable::from_parts(img[..n].to_vec(), BTreeMap::new()).is_err() || n == 0);
    }
    for i in 0..img.len() {
        for x in [0u8, 0x7f, 0xff] {
            let mut m = img.clone();
            m[i] = x;
            if let Ok(t) = ProcTable::from_parts(m, BTreeMap::new()) {
                for r in 0..6 {
                    let _ = t.infos(r);
                }
            }
        }
    }
}

#[test]
fn far_ranks_go_to_lists() {
    let mut b = ProcBuilder::new(2);
    b.add(4_000_000_000, info(PID, Value::Pid(1)), &ns());
    let t = b
        .finish()
        .with_map(&["a".to_string()], &[vec![0, 3_000_000_000]]);
    assert!(t.image().len() < 4096);
    assert_eq!(
        t.get(4_000_000_000, PID).map(Cow::into_owned),
        Some(Value::Pid(1))
    );
    assert_eq!(
        t.get(3_000_000_000, keys::LOCAL_RANK).map(Cow::into_owned),
        Some(Value::Uint16(1))
    );
}

#[test]
fn published_segment_is_mapped_and_bad_descriptors_are_refused() {
    use std::os::fd::OwnedFd;
    let mut t = table();
    t.publish("pmix-test-jobdata").unwrap();
    let mut local = Vec::new();
    let mut fds = Vec::new();
    t.encode_local(&mut local, &mut fds);
    assert_eq!(fds.len(), 1);
    let inline = crate::wire::to_bytes(&t);
    assert!(local.len() + t.image().len() / 2 < inline.len());
    let mut got: ProcTable = crate::wire::from_bytes(&local).unwrap();
    assert!(got.needs_attach());
    // Not mapped yet: list values answer, image values do not.
    assert_eq!(
        got.get(1, "f").map(Cow::into_owned),
        Some(Value::Double(1.5))
    );
    assert_eq!(got.get(3, "dir"), None);
    assert!(got.attach(&[]).is_err(), "no descriptor came");
    assert!(got.needs_attach());
    let passed: Vec<OwnedFd> = fds.iter().map(|f| f.try_clone().unwrap()).collect();
    got.attach(&passed).unwrap();
    drop(passed);
    assert!(!got.needs_attach());
    for r in 0..5 {
        assert_eq!(got.infos(r), t.infos(r));
    }
    // The plain encoding of a mapped table carries the image inline.
    let again: ProcTable = crate::wire::from_bytes(&crate::wire::to_bytes(&got)).unwrap();
    assert_eq!(
        again.get(3, "dir").map(Cow::into_owned),
        Some(Value::string("/t/3"))
    );

    let bytes = t.image().to_vec();
    let attach_from = |fd: OwnedFd, len: u32| {
        let mut out = Vec::new();
        FORM_SEGMENT.encode(&mut out);
        0u32.encode(&mut out);
        len.encode(&mut out);
        0u32.encode(&mut out); // no per-rank lists
        0u16.encode(&mut out); // no implied flag cleared
        let mut t: ProcTable = crate::wire::from_bytes(&out).unwrap();
        let r = t.attach(&[fd]);
        assert_eq!(
            t.needs_attach(),
            r.is_err(),
            "unchanged after a failed attach"
        );
        r
    };
    let sealed = |b: &[u8]| crate::sys::sealed_memfd("t", b).unwrap();
    let n = bytes.len() as u32;
    assert!(attach_from(sealed(&bytes), n).is_ok());
    let short = attach_from(sealed(&bytes[..bytes.len() - 8]), n).unwrap_err();
    assert_eq!(short.status, sys::PMIX_ERR_NOT_AVAILABLE);
    assert!(
        attach_from(sealed(&bytes[..bytes.len() - 8]), n - 8).is_err(),
        "header length"
    );
    let mut garbage = bytes.clone();
    garbage[0] = b'X';
    assert!(attach_from(sealed(&garbage), n).is_err());
    // A file that is not sealed (it could be truncated under the mapping) is refused.
    let path = std::env::temp_dir().join(format!("pmix-rs-seg-test.{}", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let plain = std::fs::File::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(attach_from(plain.into(), n).is_err());
    // Neither is a pipe.
    let (r, _w) = std::io::pipe().unwrap();
    assert!(attach_from(r.into(), n).is_err());
}
