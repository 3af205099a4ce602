use super::*;
use crate::store::{Entry, JobData, NodeData};
use crate::value::{Info, Key, Value};
use crate::wire::Wire;

fn p(ns: &str, r: u32) -> ProcId {
    ProcId::new(Nspace::new(ns).unwrap(), r)
}

fn roundtrip<T: Wire + PartialEq + std::fmt::Debug>(v: T) {
    let b = encode(&v);
    assert_eq!(decode::<T>(&b).unwrap(), v);
    // Every strict prefix must fail cleanly (truncation), never panic.
    for cut in 0..b.len() {
        assert!(decode::<T>(&b[..cut]).is_err(), "prefix {} decoded", cut);
    }
}

#[test]
fn welcome_from_borrowed_job_data_is_the_welcome_encoding() {
    let mut job = JobData {
        nspace: Nspace::new("job").unwrap(),
        ..Default::default()
    };
    job.job
        .push(Info::new("pmix.job.size", Value::Uint32(4)).unwrap());
    let mut b = crate::store::ProcBuilder::new(4);
    b.add(
        2,
        Info::new("pmix.lrank", Value::Uint16(2)).unwrap(),
        &job.nspace,
    );
    b.add(2, Info::new("x", Value::Double(0.5)).unwrap(), &job.nspace);
    job.procs = b.finish();
    let server = p("srv", 0);
    let you = p("job", 2);
    for jobs in [vec![], vec![job.clone()]] {
        let refs: Vec<&JobData> = jobs.iter().collect();
        let owned = encode(&Welcome::Accepted {
            server: server.clone(),
            you: you.clone(),
            jobs: jobs.clone(),
        });
        assert_eq!(
            encode_welcome_accepted(&server, &you, &refs, &mut Vec::new()),
            owned
        );
        assert_eq!(
            decode::<Welcome>(&owned).unwrap(),
            Welcome::Accepted {
                server: server.clone(),
                you: you.clone(),
                jobs
            }
        );
    }
}

#[test]
fn frames_reassemble_across_arbitrary_splits() {
    let mut wire = Vec::new();
    encode_frame_into(b"abc", &mut wire);
    encode_frame_into(b"", &mut wire);
    encode_frame_into(&[7u8; 1000], &mut wire);
    for split in 1..wire.len() {
        let mut dec = FrameDecoder::new();
        let mut got = Vec::new();
        for chunk in wire.chunks(split) {
            dec.push(chunk);
            while let Some(f) = dec.next_frame().unwrap() {
                got.push(f);
            }
        }
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], b"abc");
        assert!(got[1].is_empty());
        assert_eq!(got[2].len(), 1000);
        assert!(!dec.has_partial());
    }
}

#[test]
fn oversized_frame_is_rejected_before_allocation() {
    let mut dec = FrameDecoder::new();
    dec.push(&u32::MAX.to_le_bytes());
    assert_eq!(
        dec.next_frame().unwrap_err().status,
        sys::PMIX_ERR_BAD_PARAM
    );
}

#[test]
fn decoder_limit_refuses_longer_frames_before_buffering_them() {
    let mut dec = FrameDecoder::with_limit(16);
    let mut bytes = Vec::new();
    encode_frame_into(&[1u8; 16], &mut bytes);
    dec.push(&bytes);
    assert_eq!(dec.next_frame().unwrap().map(|f| f.len()), Some(16));
    dec.push(&17u32.to_le_bytes());
    assert_eq!(
        dec.next_frame().unwrap_err().status,
        sys::PMIX_ERR_BAD_PARAM
    );
    // Raised later (a peer that identified itself), and never above MAX_FRAME.
    let mut dec = FrameDecoder::with_limit(16);
    dec.set_limit(usize::MAX);
    dec.push(&17u32.to_le_bytes());
    dec.push(&[0u8; 17]);
    assert_eq!(dec.next_frame().unwrap().map(|f| f.len()), Some(17));
    dec.push(&((MAX_FRAME + 1) as u32).to_le_bytes());
    assert!(dec.next_frame().is_err());
}

#[test]
fn messages_round_trip_and_truncations_fail() {
    roundtrip(Hello {
        version: VERSION,
        proc_: p("ns", 3),
        pid: 42,
        uid: 1000,
        gid: 100,
        kind: PeerKind::Client,
    });
    for kind in [PeerKind::ToolNamed, PeerKind::ToolAssign] {
        roundtrip(Hello {
            version: VERSION,
            proc_: p("tool", 0),
            pid: 7,
            uid: 1000,
            gid: 100,
            kind,
        });
    }
    let mut jd = JobData {
        nspace: Nspace::new("ns").unwrap(),
        job: vec![Info::new("pmix.job.size", Value::Uint32(4)).unwrap()],
        apps: vec![(0, vec![Info::new("a", Value::Int8(-1)).unwrap()])],
        nodes: vec![NodeData {
            id: Some(0),
            hostname: Some("h".into()),
            info: vec![],
        }],
        procs: Default::default(),
    };
    jd.procs
        .extend_list(1, vec![Info::new("pmix.lrank", Value::Uint16(1)).unwrap()]);
    roundtrip(Welcome::Accepted {
        server: p("srv", 0),
        you: p("ns", 1),
        jobs: vec![jd.clone()],
    });
    roundtrip(Welcome::Refused {
        status: sys::PMIX_ERR_NO_PERMISSIONS,
        reason: "no".into(),
    });
    let reqs = vec![
        Req::Commit {
            puts: vec![Put {
                key: Key::new("k").unwrap(),
                scope: sys::PMIX_GLOBAL,
                value: Value::ByteObject(vec![1, 2, 3]),
            }],
        },
        Req::Fence {
            procs: vec![p("ns", sys::PMIX_RANK_WILDCARD)],
            collect: true,
            timeout_ms: 5000,
            info: vec![],
        },
        Req::Get {
            target: p("ns", 1),
            key: Some(Key::new("k").unwrap()),
            immediate: false,
            timeout_ms: 0,
            info: vec![],
        },
        Req::JobData {
            nspace: Nspace::new("other").unwrap(),
        },
        Req::Abort {
            status: -1,
            msg: "bye".into(),
            targets: vec![],
        },
        Req::Finalize,
        Req::Notify {
            status: -200,
            range: 3,
            info: vec![],
        },
        Req::Allgather {
            procs: vec![p("ns", 0), p("ns", 1)],
            timeout_ms: 0,
            info: vec![Info::new(FENCE_TAG, Value::string("t.1.2")).unwrap()],
            data: vec![9, 8, 7],
        },
        Req::Iof(IofReq::Pull {
            id: 7,
            procs: vec![p("ns", sys::PMIX_RANK_WILDCARD)],
            channels: sys::PMIX_FWD_STDOUT_CHANNEL | sys::PMIX_FWD_STDERR_CHANNEL,
            directives: vec![Info::new("pmix.iof.tag", Value::Bool(true)).unwrap()],
        }),
        Req::Iof(IofReq::Deregister {
            id: u64::MAX,
            directives: vec![],
        }),
        Req::Iof(IofReq::Push {
            targets: vec![p("ns", 0)],
            directives: vec![],
            data: Some(b"stdin".to_vec()),
        }),
        Req::Iof(IofReq::Push {
            targets: vec![],
            directives: vec![],
            data: None,
        }),
    ];
    for (i, req) in reqs.into_iter().enumerate() {
        roundtrip(Request { tag: i as u32, req });
    }
    roundtrip(ServerMsg::Reply {
        tag: 9,
        status: 0,
        data: ReplyData::Data(vec![Info::new("k", Value::Double(1.5)).unwrap()]),
    });
    roundtrip(ServerMsg::Reply {
        tag: 9,
        status: 0,
        data: ReplyData::Job(Box::new(jd)),
    });
    roundtrip(ServerMsg::ForgetNode {
        nspace: Nspace::new("ns").unwrap(),
        node: NodeData {
            id: Some(3),
            hostname: Some("n3".into()),
            info: vec![Info::new("k", Value::Undef).unwrap()],
        },
    });
    roundtrip(ServerMsg::Reply {
        tag: 10,
        status: 0,
        data: ReplyData::Gathered(vec![
            Contribution {
                proc_: p("ns", 0),
                data: vec![],
            },
            Contribution {
                proc_: p("ns", 1),
                data: vec![1; 17],
            },
        ]),
    });
    roundtrip(ServerMsg::Forget {
        proc_: p("ns", 2),
        key: Key::new("gone").unwrap(),
    });
    roundtrip(ServerMsg::Event {
        status: sys::PMIX_ERR_LOST_CONNECTION,
        source: p("srv", 0),
        info: vec![],
    });
    for data in [b"line\n".to_vec(), Vec::new()] {
        roundtrip(ServerMsg::Iof {
            id: 3,
            chunk: Box::new(crate::iof::IofChunk {
                source: p("ns", 1),
                channel: sys::PMIX_FWD_STDERR_CHANNEL,
                info: vec![Info::new("pmix.iof.cmp", Value::Bool(true)).unwrap()],
                data,
            }),
        });
    }
}

#[test]
fn garbage_never_panics() {
    // A cheap deterministic fuzz: pseudo-random bodies through every decoder.
    let mut x: u64 = 0x9e3779b97f4a7c15;
    for len in 0..400usize {
        let mut b = Vec::with_capacity(len);
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b.push(x as u8);
        }
        let _ = decode::<Hello>(&b);
        let _ = decode::<Welcome>(&b);
        let _ = decode::<Request>(&b);
        let _ = decode::<ServerMsg>(&b);
        let _ = decode_blobs(&b);
    }
}

fn entry(scope: u8, v: i32) -> Entry {
    Entry {
        scope,
        value: Value::Int(v),
    }
}

fn blob(collect: bool, delta: bool, procs: Vec<ProcBlob>) -> Blob {
    Blob {
        collect,
        delta,
        procs,
    }
}

#[test]
fn blobs_concatenate_and_reject_corruption() {
    let k = || Key::new("k").unwrap();
    let a = blob(
        true,
        false,
        vec![ProcBlob::full(
            p("ns", 0),
            vec![(k(), entry(sys::PMIX_GLOBAL, 1))],
        )],
    );
    let b = blob(
        true,
        false,
        vec![
            ProcBlob::full(p("ns", 1), vec![(k(), entry(sys::PMIX_GLOBAL, 2))]),
            ProcBlob {
                proc_: p("other", 7),
                kind: SectionKind::Full,
                entries: vec![],
                deleted: vec![(k(), sys::PMIX_DEL_GLOBAL)],
            },
        ],
    );
    let mut cat = encode_blob(&a);
    cat.extend(encode_blob(&b));
    assert_eq!(decode_blobs(&cat).unwrap(), vec![a.clone(), b]);
    assert!(decode_blobs(&[]).unwrap().is_empty());
    for cut in 1..cat.len() {
        if cut == encode_blob(&a).len() {
            continue; // a whole first blob alone is valid
        }
        assert_eq!(
            decode_blobs(&cat[..cut]).unwrap_err().status,
            sys::PMIX_ERR_BAD_PARAM,
            "cut {}",
            cut
        );
    }
}

#[test]
fn local_values_travel_as_markers_only() {
    let b = blob(
        true,
        false,
        vec![ProcBlob::full(
            p("ns", 0),
            vec![
                (Key::new("secret").unwrap(), entry(sys::PMIX_LOCAL, 42)),
                (Key::new("pub").unwrap(), entry(sys::PMIX_REMOTE, 43)),
            ],
        )],
    );
    let bytes = encode_blob(&b);
    let got = decode_blobs(&bytes).unwrap();
    let e = &got[0].procs[0].entries;
    assert_eq!(
        e[0].1,
        Entry {
            scope: sys::PMIX_LOCAL,
            value: Value::Undef
        }
    );
    assert_eq!(e[1].1, entry(sys::PMIX_REMOTE, 43));
}

/// Flags are compared across every part; one disagreeing or unknown flag rejects all.
#[test]
fn flag_disagreement_and_unknown_flags_reject_the_whole_input() {
    let one = |collect, delta| {
        encode_blob(&blob(
            collect,
            delta,
            vec![ProcBlob::full(
                p("ns", 0),
                vec![(Key::new("k").unwrap(), entry(sys::PMIX_GLOBAL, 1))],
            )],
        ))
    };
    for (x, y) in [
        ((true, false), (false, false)),
        ((true, true), (true, false)),
    ] {
        let mut cat = one(x.0, x.1);
        cat.extend(one(y.0, y.1));
        cat.extend(one(x.0, x.1));
        let e = decode_blobs(&cat).unwrap_err();
        assert_eq!(e.status, sys::PMIX_ERR_BAD_PARAM);
        assert!(e.context.contains("disagree"), "{}", e.context);
    }
    let mut same = one(true, true);
    same.extend(one(true, true));
    assert_eq!(decode_blobs(&same).unwrap().len(), 2);
    // An unknown flag bit (offset 6 is the flag byte).
    let mut unknown = one(true, false);
    unknown[6] |= 0x80;
    let e = decode_blobs(&unknown).unwrap_err();
    assert_eq!(e.status, sys::PMIX_ERR_BAD_PARAM);
    assert!(e.context.contains("unknown flags"), "{}", e.context);
    // Another version.
    let mut old = one(true, false);
    old[4] = 1;
    assert!(decode_blobs(&old).unwrap_err().context.contains("version"));
    // A delta section in a blob that does not say delta.
    let mut d = blob(true, true, vec![ProcBlob::full(p("ns", 0), vec![])]);
    d.procs[0].kind = SectionKind::Delta;
    let mut bytes = encode_blob(&d);
    assert!(decode_blobs(&bytes).is_ok());
    bytes[6] &= !BLOB_DELTA;
    assert_eq!(
        decode_blobs(&bytes).unwrap_err().status,
        sys::PMIX_ERR_BAD_PARAM
    );
}

#[test]
fn collected_reply_is_encoded_once_tagged_per_waiter_and_read_in_place() {
    let (a, b, c) = (
        Key::new("a").unwrap(),
        Key::new("b").unwrap(),
        Key::new("c").unwrap(),
    );
    let (one, x) = (Value::Uint32(1), Value::string("x"));
    let (one_b, x_b) = (crate::wire::to_bytes(&one), crate::wire::to_bytes(&x));
    let mut w = CollectedWriter::new(COLLECTED_INLINE_MAX, false);
    assert!(w.add(&p("ns", 0), [(&a, &one_b[..])], &[]));
    assert!(w.add(&p("ns", 1), [], &[]), "nothing to say: left out");
    assert!(w.add(&p("ns", 2), [(&b, &x_b[..]), (&c, &one_b[..])], &[&a]));
    let mut body = w.finish().unwrap();
    assert!(set_reply_tag(&mut body, 77));
    assert_eq!(
        reply_tag(&body),
        Some(77),
        "the tag is read back without decoding"
    );
    let ServerMsg::Reply { tag, status, data } = decode::<ServerMsg>(&body).unwrap() else {
        panic!("not a reply");
    };
    assert_eq!((tag, status), (77, sys::PMIX_SUCCESS));
    assert_eq!(reply_status(&body), Some(sys::PMIX_SUCCESS));
    let failed = encode(&ServerMsg::Reply {
        tag: 3,
        status: sys::PMIX_ERR_TIMEOUT,
        data: ReplyData::None,
    });
    assert_eq!(reply_status(&failed), Some(sys::PMIX_ERR_TIMEOUT));
    let ReplyData::Collected(payload) = data else {
        panic!("no collected data");
    };
    let (reset, idx) = collected_index(&payload).unwrap();
    assert!(!reset);
    assert_eq!(idx.len(), 2);
    assert_eq!((idx[0].proc_.clone(), idx[0].count), (p("ns", 0), 1));
    assert_eq!((idx[1].proc_.clone(), idx[1].count), (p("ns", 2), 2));
    assert_eq!(idx[1].removed, vec![a.clone()]);
    let find = |i: usize, k: &str| collected_find(&payload, &idx[i], k).unwrap();
    assert_eq!(find(0, "a"), Some(one.clone()));
    assert_eq!(find(1, "b"), Some(x));
    assert_eq!(find(1, "c"), Some(one.clone()));
    assert_eq!(find(1, "a"), None);
    // Re-encoding the decoded reply gives the same bytes.
    assert_eq!(
        body,
        encode(&ServerMsg::Reply {
            tag: 77,
            status: sys::PMIX_SUCCESS,
            data: ReplyData::Collected(payload.clone()),
        })
    );
    // Every truncation of the payload is an error, never a panic.
    for n in 0..payload.len() {
        assert!(collected_index(&payload[..n]).is_err(), "{}", n);
    }
    // A reset with nothing else.
    let body = CollectedWriter::new(100, true).finish().unwrap();
    let Ok(ServerMsg::Reply {
        data: ReplyData::Collected(payload),
        ..
    }) = decode::<ServerMsg>(&body)
    else {
        panic!("not a collected reply");
    };
    assert_eq!(collected_index(&payload).unwrap(), (true, vec![]));
    // Over the cap: nothing.
    let mut w = CollectedWriter::new(40, false);
    assert!(!w.add(
        &p("ns", 0),
        [(&a, &one_b[..]), (&b, &one_b[..]), (&c, &one_b[..])],
        &[]
    ));
    assert!(w.finish().is_none());
    // Only replies take a tag.
    let mut ev = encode(&ServerMsg::Forget {
        proc_: p("ns", 0),
        key: a,
    });
    assert!(!set_reply_tag(&mut ev, 1));
    assert_eq!(reply_tag(&ev), None);
    assert_eq!(reply_tag(&[1, 2]), None, "too short to hold a tag");
    assert_eq!(reply_status(&ev), None);
    assert_eq!(
        reply_status(&[1, 2, 0, 0, 0, 0]),
        None,
        "too short to hold a status"
    );
}

#[test]
fn a_collected_section_finds_each_key_and_refuses_a_bad_header() {
    let keys: Vec<Key> = ["a", "b.long", "c"]
        .iter()
        .map(|k| Key::new(*k).unwrap())
        .collect();
    let vals = [Value::Int(7), Value::string("x"), Value::Uint32(9)];
    let bytes = collected_section(keys.iter().zip(vals.iter()));
    let p = ProcId::new(Nspace::new("ns").unwrap(), 1);
    let at = collected_section_proc(&bytes, p.clone()).unwrap();
    for (k, v) in keys.iter().zip(vals.iter()) {
        assert_eq!(
            collected_find(&bytes, &at, k.as_str()).unwrap().as_ref(),
            Some(v)
        );
    }
    assert_eq!(collected_find(&bytes, &at, "b").unwrap(), None);
    let empty = collected_section(std::iter::empty());
    let at0 = collected_section_proc(&empty, p.clone()).unwrap();
    assert_eq!(collected_find(&empty, &at0, "a").unwrap(), None);
    assert!(collected_section_proc(&bytes[..6], p.clone()).is_err());
    let mut bad = bytes.clone();
    bad[0] = 200; // more entries than the table holds
    assert!(collected_section_proc(&bad, p).is_err());
}
