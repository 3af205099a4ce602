//! Layout facts of ds21 checked against an image Debian's OpenPMIx 4.2.2 server wrote
//! (`fixtures/README.md`), and the builder against the reader.

use super::*;
use crate::codec::v41::wire::body::BodyWriter;
use crate::codec::v41::wire::replies::{JobInfo, NODE_ARRAY, PBLOB};
use crate::value::{DataArray, Info, Nspace};

const JOB: &str = include_str!("fixtures/mpirun-np2-job.hex");
const COMMIT: &str = include_str!("fixtures/mpirun-np2-commit.hex");
const W: Rank = sys::PMIX_RANK_WILDCARD;

/// One captured store: its namespace and each file's used prefix.
struct Capture {
    nspace: String,
    initial: Vec<u8>,
    meta: Vec<u8>,
    data: Vec<u8>,
    lock: Vec<u8>,
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn capture(text: &str) -> Capture {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no {name} line"))
            .trim()
            .to_string()
    };
    Capture {
        nspace: field("nspace"),
        initial: unhex(&field("initial")),
        meta: unhex(&field("meta")),
        data: unhex(&field("data")),
        lock: unhex(&field("lock")),
    }
}

fn image(c: &Capture) -> NsImage {
    NsImage {
        geometry: Geometry::default(),
        meta: vec![c.meta.clone()],
        data: vec![c.data.clone()],
    }
}

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

/// A rank's records from an image, as (key, value).
fn recs(img: &NsImage, rank: Rank) -> Vec<(Key, Value)> {
    img.records(rank)
        .unwrap()
        .unwrap()
        .into_iter()
        .map(|(k, v)| (key(std::str::from_utf8(&k).unwrap()), v))
        .collect()
}

#[test]
fn reads_debians_image() {
    let img = image(&capture(JOB));
    assert_eq!(
        img.lookup(W, "pmix.job.size").unwrap(),
        Some(Value::Uint32(2))
    );
    assert_eq!(
        img.lookup(W, "pmix.local.size").unwrap(),
        Some(Value::Uint32(2))
    );
    assert_eq!(
        img.lookup(W, "pmix.lpeers").unwrap(),
        Some(Value::string("0,1"))
    );
    assert_eq!(img.lookup(1, "pmix.lrank").unwrap(), Some(Value::Uint16(1)));
    assert_eq!(
        img.lookup(1, "pmix.hname").unwrap(),
        Some(Value::string("vm"))
    );
    assert_eq!(img.lookup(0, "pmix.grank").unwrap(), Some(Value::Rank(0)));
    assert_eq!(img.lookup(0, "no.such.key").unwrap(), None);
    assert_eq!(img.records(2).unwrap(), None);
    let slot = |r| img.slot(r).unwrap();
    assert_eq!(
        (slot(W).rank, slot(W).offset, slot(W).count),
        (W as u64, 8, 21)
    );
    assert_eq!((slot(0).rank, slot(0).count), (0, 8));
    assert_eq!((slot(1).rank, slot(1).count), (1, 8));
    assert_eq!(recs(&img, W).len(), 21);
}

#[test]
fn follows_chains_of_committed_keys() {
    let img = image(&capture(COMMIT));
    for r in [0, 1] {
        assert_eq!(img.slot(r).unwrap().count, 9);
        assert_eq!(
            img.lookup(r, "my.key").unwrap(),
            Some(Value::string("hello"))
        );
        assert_eq!(recs(&img, r).last().unwrap().0.as_str(), "my.key");
    }
}

#[test]
fn records_and_slots_match_debians_bytes() {
    let c = capture(JOB);
    let rec = record("pmix.job.size", &Value::Uint32(2)).unwrap();
    assert_eq!(rec.len(), 33);
    let at = c.data.windows(rec.len()).position(|w| w == rec.as_slice());
    assert!(at.is_some(), "pmix.job.size record not found");
    let end = &c.data[c.data.len() - EXT_SLOT_SIZE..];
    assert_eq!(end, &ext_slot(0)[..]);
    assert_eq!(
        value_bytes(&Value::Uint32(2)).unwrap(),
        vec![0x02, 0x0e, 0x02]
    );
}

#[test]
fn key_hashes_match_debians() {
    let c = capture(JOB);
    let mut at = 8;
    while at < c.data.len() {
        let size = u64::from_le_bytes(c.data[at..at + 8].try_into().unwrap()) & SIZE_MASK;
        let hash = u64::from_le_bytes(c.data[at + 8..at + 16].try_into().unwrap());
        let k = &c.data[at + 16..];
        let k = &k[..k.iter().position(|&b| b == 0).unwrap()];
        assert_eq!(key_hash(k), hash, "{}", String::from_utf8_lossy(k));
        at += size as usize;
    }
    assert_eq!(at, c.data.len());
}

#[test]
fn rebuilding_debians_records_gives_debians_bytes() {
    let c = capture(JOB);
    let img = image(&c);
    let ranks: Vec<_> = [W, 0, 1].into_iter().map(|r| (r, recs(&img, r))).collect();
    let ours = NsImage::build(Geometry::default(), &ranks).unwrap();
    assert_eq!(ours.data, vec![c.data.clone()]);
    assert_eq!(ours.meta, vec![c.meta.clone()]);
    assert_eq!(ours.entry(&c.nspace).unwrap().len(), NS_ENTRY_SIZE);
    let init = initial_segment(&[ours.entry(&c.nspace).unwrap()]).unwrap();
    assert_eq!(init, c.initial);
}

#[test]
fn lock_header_matches_debians() {
    let c = capture(JOB);
    let l = LockLayout::new(2, 40, 64, 4096);
    assert_eq!((l.align, l.mutex_offs, l.seg_size), (64, 64, 4096));
    assert_eq!((l.mutex_at(0), l.mutex_at(3)), (64, 256));
    let h = l.header();
    assert_eq!(h[..32], c.lock[..32]);
    // the captured clients had claimed both slots
    assert_eq!(c.lock[32..40], [1, 0, 0, 0, 1, 0, 0, 0]);
    assert!(h[32..].iter().all(|&b| b == 0));
    assert_eq!(h.len(), c.lock.len());
    // more clients: the flags push the mutexes a line further, the mutexes a page
    let big = LockLayout::new(16, 40, 64, 4096);
    assert_eq!((big.mutex_offs, big.seg_size), (128, 4096));
    let bigger = LockLayout::new(40, 40, 64, 4096);
    assert_eq!((bigger.mutex_offs, bigger.seg_size), (256, 8192));
}

#[test]
fn initial_segment_limits() {
    assert_eq!(ENTRIES_PER_INITIAL, 14);
    let e = ns_entry("ns", 1, 2).unwrap();
    assert_eq!(&e[..3], b"ns\0");
    assert_eq!(e[272], 1);
    assert_eq!(e[280], 2);
    assert!(initial_segment(&vec![e; 15]).is_err());
    assert!(ns_entry(&"n".repeat(256), 1, 1).is_err());
    assert!(ns_entry(&"n".repeat(255), 1, 1).is_ok());
}

fn kvs(n: usize, prefix: &str) -> Vec<(Key, Value)> {
    (0..n)
        .map(|i| (key(&format!("{prefix}.{i}")), Value::Uint32(i as u32)))
        .collect()
}

#[test]
fn records_spill_into_chained_data_segments() {
    // 29-32 byte records; 200 bytes hold 8 + a few records + one extension slot
    let g = Geometry {
        meta: META_SEG_SIZE,
        data: 200,
    };
    let ranks = vec![
        (W, kvs(12, "job")),
        (0, kvs(5, "r0")),
        (1, vec![]),
        (2, kvs(3, "r2")),
    ];
    let img = NsImage::build(g, &ranks).unwrap();
    assert!(img.data.len() > 2, "{} segments", img.data.len());
    for (rank, list) in &ranks {
        if list.is_empty() {
            assert_eq!(img.slot(*rank), None);
            continue;
        }
        assert_eq!(&recs(&img, *rank), list, "rank {rank}");
    }
    for s in &img.data {
        assert!(s.len() <= g.data);
        let free = u64::from_le_bytes(s[..8].try_into().unwrap());
        assert_eq!(free as usize, s.len());
    }
    // the job level's records continue in a later segment through an extension slot
    let chained = img.data.iter().any(|s| {
        let tail = &s[s.len() - EXT_SLOT_SIZE..];
        tail[..8] == ext_slot(0)[..8] && tail[17..] != [0; 8]
    });
    assert!(chained);
    let huge = vec![(W, vec![(key("k"), Value::string(&"x".repeat(300)))])];
    assert!(NsImage::build(g, &huge).is_err());
}

#[test]
fn ranks_spill_into_further_meta_segments() {
    // 4 slots per meta segment: wildcard and ranks 0-2 in the first, 3-6 in the second
    let g = Geometry {
        meta: 8 + 4 * META_SLOT_SIZE,
        data: DATA_SEG_SIZE,
    };
    assert_eq!(g.slots_per_meta(), 4);
    let ranks = vec![(W, kvs(1, "j")), (5, kvs(2, "r5")), (9, kvs(1, "r9"))];
    let img = NsImage::build(g, &ranks).unwrap();
    assert_eq!(img.meta.len(), 3);
    assert_eq!(img.meta[0].len(), 8 + META_SLOT_SIZE);
    assert_eq!(img.meta[1].len(), 8 + 3 * META_SLOT_SIZE);
    assert_eq!(img.lookup(5, "r5.1").unwrap(), Some(Value::Uint32(1)));
    assert_eq!(img.lookup(9, "r9.0").unwrap(), Some(Value::Uint32(0)));
    assert_eq!(img.slot(4), None);
    assert_eq!(img.entry("x").unwrap()[272], 3);
}

#[test]
fn invalidated_records_are_skipped() {
    let ranks = vec![(0, kvs(3, "k"))];
    let mut img = NsImage::build(Geometry::default(), &ranks).unwrap();
    // invalidate the first record as a writer replacing it with another size would
    let d = &mut img.data[0];
    d[15] |= 0x40;
    assert_eq!(img.lookup(0, "k.0").unwrap(), None);
    // the count still says 3 valid records: the walk stops at the extension slot
    assert_eq!(img.records(0).unwrap().unwrap().len(), 2);
}

fn node_array(infos: &[(&str, Value)]) -> Value {
    Value::DataArray(Box::new(DataArray {
        dtype: sys::PMIX_INFO,
        items: infos
            .iter()
            .map(|(k, v)| Value::Info(Box::new(Info::new(k, v.clone()).unwrap())))
            .collect(),
    }))
}

#[test]
fn job_records_take_the_local_node_and_the_ranks() {
    use sys::attrs::keys as k;
    let mut blob = BodyWriter::new();
    blob.u32(1);
    blob.kval(k::PMIX_CPUSET, &Value::string("0-3")).unwrap();
    blob.kval(k::PMIX_LOCAL_RANK, &Value::Uint16(0)).unwrap();
    let j = JobInfo {
        nspace: Nspace::new("ns").unwrap(),
        kvals: vec![
            (key(k::PMIX_JOB_SIZE), Value::Uint32(2)),
            (
                key(NODE_ARRAY),
                node_array(&[
                    (k::PMIX_HOSTNAME, Value::string("other")),
                    (k::PMIX_LOCAL_SIZE, Value::Uint32(9)),
                ]),
            ),
            (
                key(NODE_ARRAY),
                node_array(&[
                    (k::PMIX_HOSTNAME, Value::string("here")),
                    (k::PMIX_NODEID, Value::Uint32(0)),
                    (k::PMIX_LOCAL_SIZE, Value::Uint32(1)),
                ]),
            ),
            (
                key(k::PMIX_APP_INFO_ARRAY),
                node_array(&[(k::PMIX_APPNUM, Value::Uint32(0))]),
            ),
            (key(PBLOB), Value::ByteObject(blob.finish())),
        ],
    };
    let r = job_records(&j, "here").unwrap();
    assert_eq!(
        r,
        vec![
            (
                W,
                vec![
                    (key(k::PMIX_JOB_SIZE), Value::Uint32(2)),
                    (key(k::PMIX_LOCAL_SIZE), Value::Uint32(1)),
                ]
            ),
            // the most read key first
            (
                1,
                vec![
                    (key(k::PMIX_LOCAL_RANK), Value::Uint16(0)),
                    (key(k::PMIX_CPUSET), Value::string("0-3")),
                ]
            ),
        ]
    );
    let img = NsImage::build(Geometry::default(), &r).unwrap();
    assert_eq!(
        img.lookup(1, k::PMIX_LOCAL_RANK).unwrap(),
        Some(Value::Uint16(0))
    );
    assert_eq!(img.slot(0), None);
}
