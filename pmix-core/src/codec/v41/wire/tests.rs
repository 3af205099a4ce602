use super::body::BodyReader;
use super::cmds::{cmd, decode_request, encode_request, Command, Sender, PEER_UNKNOWN};
use super::frame::{FrameDecoder, Header, TagCounter, HEADER_LEN};
use super::handshake::*;
use super::replies::*;
use crate::protocol::{DynReq, IofReq, Put, ReplyData, Req, ServerMsg};
use crate::value::*;
use pmix_sys as sys;
use std::collections::HashMap;

/// Real 4.2.2 sessions (see fixtures/README.md).
const SESSIONS: &[(&str, &str)] = &[
    (
        "mpirun-hash-rank0",
        include_str!("fixtures/mpirun-hash-rank0.hex"),
    ),
    (
        "mpirun-hash-rank1",
        include_str!("fixtures/mpirun-hash-rank1.hex"),
    ),
    (
        "mpirun-ds21-rank0",
        include_str!("fixtures/mpirun-ds21-rank0.hex"),
    ),
    (
        "minihost-hash-rank0",
        include_str!("fixtures/minihost-hash-rank0.hex"),
    ),
    (
        "minihost-ds21-rank0",
        include_str!("fixtures/minihost-ds21-rank0.hex"),
    ),
];

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The records of the session's "full connection" part: (dir, kind, bytes).
fn records(text: &str) -> Vec<(String, String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut on = false;
    for line in text.lines() {
        if line.starts_with("# full connection") {
            on = true;
            continue;
        }
        if !on || line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        out.push((f[0].to_string(), f[1].to_string(), unhex(f[2])));
    }
    out
}

fn one_frame(bytes: &[u8]) -> (Header, Vec<u8>) {
    let mut d = FrameDecoder::new();
    // byte by byte: partial reads must never yield a frame early
    for (i, b) in bytes.iter().enumerate() {
        if i + 1 < bytes.len() {
            d.push(std::slice::from_ref(b));
            assert!(d.next_frame().unwrap().is_none());
        }
    }
    d.push(&bytes[bytes.len() - 1..]);
    let f = d.next_frame().unwrap().expect("a whole frame");
    assert_eq!(d.pending(), 0, "leftover bytes after the frame");
    assert_eq!(
        super::frame::frame(f.0.pindex, f.0.tag, &f.1).unwrap(),
        bytes
    );
    f
}

fn check_hello(name: &str, bytes: &[u8]) -> ClientHello {
    let mut h = [0u8; HEADER_LEN];
    h.copy_from_slice(&bytes[..HEADER_LEN]);
    assert_eq!(hello_len(&h).unwrap(), bytes.len() - HEADER_LEN, "{}", name);
    let hello = decode_client_hello(&bytes[HEADER_LEN..]).unwrap();
    assert_eq!(hello.version, "4.2.2rc2");
    assert_eq!(hello.bfrops, "v41");
    assert!(hello.pad, "{}: 4.2's trailing byte", name);
    assert_eq!(parse_native_credential(&hello.credential).unwrap(), (0, 0));
    assert_eq!(encode_client_hello(&hello).unwrap(), bytes, "{}", name);
    // hash and ds21 clients alike are served
    check_client_hello(&hello).unwrap();
    let ds12 = ClientHello {
        gds: "ds12".into(),
        ..hello.clone()
    };
    let e = check_client_hello(&ds12).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_NOT_SUPPORTED);
    assert!(e.context.contains("ds12"), "{}", e.context);
    hello
}

fn check_reply(name: &str, c: u8, body: &[u8]) {
    let (status, data) = decode_reply(c, body).unwrap_or_else(|e| panic!("{}: {:?}", name, e));
    assert_eq!(status, 0);
    match c {
        cmd::REQ => {
            let j = decode_job_info(body).unwrap();
            assert_eq!(encode_job_info(&j).unwrap(), body, "{}: job info", name);
            let ReplyData::Job(jd) = data else {
                panic!("job data")
            };
            assert!(!jd.nodes.is_empty(), "{}: node array", name);
            if name.contains("hash") {
                let size = jd.job.iter().find(|i| i.key.as_str() == "pmix.job.size");
                assert_eq!(size.unwrap().value, Value::Uint32(2));
                for rank in 0..2 {
                    assert!(
                        jd.procs.get(rank, "pmix.lrank").is_some(),
                        "{} rank {}",
                        name,
                        rank
                    );
                }
            }
        }
        cmd::GETNB => {
            let (st, blobs) = decode_get_reply(body).unwrap();
            assert_eq!(encode_get_reply(st, &blobs).unwrap(), body);
            let ReplyData::Data(infos) = data else {
                panic!("get data")
            };
            let want = blobs[0].0.rank;
            let v = format!("value-of-{}-{}", blobs[0].0.nspace, want);
            assert_eq!(infos[0].key.as_str(), "ring.k");
            assert_eq!(infos[0].value, Value::string(&v));
        }
        _ => {
            assert_eq!(data, ReplyData::None);
            assert_eq!(encode_reply(c, 0, &ReplyData::None).unwrap(), body);
        }
    }
}

#[test]
fn every_captured_message_decodes_and_reencodes() {
    for (name, text) in SESSIONS {
        let recs = records(text);
        assert!(recs.len() >= 10, "{}", name);
        let mut sender = None;
        let mut cmds: HashMap<u32, u8> = HashMap::new();
        let mut u32s = Vec::new();
        for (dir, kind, bytes) in &recs {
            match (dir.as_str(), kind.as_str()) {
                ("C2S", "HS") => {
                    let h = check_hello(name, bytes);
                    sender = Some(Sender::new(h.proc_.unwrap(), 0, PEER_UNKNOWN));
                }
                ("S2C", "U32") => u32s.extend_from_slice(bytes),
                ("C2S", "MSG") => {
                    let (h, body) = one_frame(bytes);
                    let s = sender.as_ref().unwrap();
                    let c =
                        decode_request(&body, s).unwrap_or_else(|e| panic!("{}: {:?}", name, e));
                    assert_eq!(encode_request(&c, s).unwrap(), body, "{}: {:?}", name, c);
                    cmds.insert(h.tag, c.code().unwrap());
                }
                ("S2C", "MSG") => {
                    let (h, body) = one_frame(bytes);
                    check_reply(name, cmds[&h.tag], &body);
                }
                other => panic!("{}: record {:?}", name, other),
            }
        }
        let (r, used) = decode_server_reply(flag::SIMPLE_CLIENT, &u32s)
            .unwrap()
            .unwrap();
        assert_eq!(used, 8);
        assert!(matches!(
            r,
            ServerReply::Client {
                status: 0,
                pindex: Some(_)
            }
        ));
        assert_eq!(encode_server_reply(&r), u32s);
    }
}

#[test]
fn captured_requests_mean_what_the_capture_says() {
    let recs = records(SESSIONS[0].1);
    let s = Sender::new(
        ProcId::new(Nspace::new("1431175169").unwrap(), 0),
        0,
        PEER_UNKNOWN,
    );
    let reqs: Vec<Command> = recs
        .iter()
        .filter(|r| r.0 == "C2S" && r.1 == "MSG")
        .map(|r| decode_request(&one_frame(&r.2).1, &s).unwrap())
        .collect();
    let Command::Req(Req::Commit { puts }) = &reqs[1] else {
        panic!()
    };
    assert_eq!(puts.len(), 1);
    assert_eq!(
        puts[0].scope,
        sys::PMIX_GLOBAL,
        "LOCAL+REMOTE bucket = a GLOBAL put"
    );
    let Command::Req(Req::Fence { procs, collect, .. }) = &reqs[2] else {
        panic!()
    };
    assert!(*collect);
    assert_eq!(procs[0].rank, sys::PMIX_RANK_WILDCARD);
    let Command::Req(Req::Get { target, key, .. }) = &reqs[3] else {
        panic!()
    };
    assert_eq!((target.rank, key.as_ref().unwrap().as_str()), (1, "ring.k"));
    let Command::Req(Req::Fence { collect, .. }) = &reqs[4] else {
        panic!()
    };
    assert!(!collect);
    assert_eq!(reqs[5], Command::Req(Req::Finalize));
}

fn me() -> Sender {
    Sender::new(
        ProcId::new(Nspace::new("job").unwrap(), 3),
        1000,
        PEER_UNKNOWN,
    )
}

fn round(c: Command) {
    let s = me();
    let b = encode_request(&c, &s).unwrap();
    assert_eq!(decode_request(&b, &s).unwrap(), c);
    // a cut body fails, or (cut between the pairs of a commit, before a Get's optional
    // key) reads as a different request: never as this one, never a panic
    for n in 0..b.len() {
        let r = decode_request(&b[..n], &s);
        assert_ne!(r.ok().as_ref(), Some(&c), "cut at {}", n);
    }
}

fn info(k: &str, v: Value) -> Info {
    Info::new(k, v).unwrap()
}

#[test]
fn requests_round_trip_and_truncations_fail() {
    let p = |r| ProcId::new(Nspace::new("job").unwrap(), r);
    let i = vec![info("pmix.range", Value::Range(3))];
    round(Command::Req(Req::Abort {
        status: -1,
        msg: "bye".into(),
        targets: vec![p(1), p(2)],
    }));
    round(Command::Req(Req::Notify {
        status: -150,
        range: 2,
        info: i.clone(),
    }));
    round(Command::Req(Req::Commit {
        puts: vec![
            Put {
                key: Key::new("a").unwrap(),
                scope: sys::PMIX_LOCAL,
                value: Value::Int(1),
            },
            Put {
                key: Key::new("b").unwrap(),
                scope: sys::PMIX_REMOTE,
                value: Value::string("x"),
            },
        ],
    }));
    let dyns = vec![
        DynReq::Connect {
            procs: vec![p(0)],
            timeout_ms: 0,
            info: vec![],
            endpoint: vec![],
        },
        DynReq::Disconnect {
            procs: vec![p(0), p(1)],
            timeout_ms: 2000,
            info: vec![info("pmix.timeout", Value::Int(2))],
        },
        DynReq::Spawn {
            job_info: i.clone(),
            apps: vec![App {
                cmd: Some(b"/bin/true".to_vec()),
                argv: Some(vec![b"true".to_vec()]),
                maxprocs: 2,
                ..Default::default()
            }],
        },
        DynReq::Publish { info: i.clone() },
        DynReq::Lookup {
            keys: vec!["k1".into(), "k2".into()],
            info: vec![],
        },
        DynReq::Unpublish {
            keys: vec![],
            info: i.clone(),
        },
        DynReq::Query {
            queries: vec![Query {
                keys: Some(vec![b"pmix.qry.ns".to_vec()]),
                qualifiers: vec![],
            }],
        },
        DynReq::Log {
            data: vec![info("pmix.log.msg", Value::string("hi"))],
            directives: vec![],
        },
        DynReq::JobControl {
            targets: vec![],
            directives: vec![info("pmix.jctrl.kill", Value::Bool(true))],
        },
    ];
    for d in dyns {
        round(Command::Req(Req::Dyn(d)));
    }
    round(Command::RegEvents {
        codes: vec![-150, -151],
        info: vec![],
    });
    round(Command::DeregEvents { codes: vec![] });
    round(Command::DeregEvents {
        codes: vec![-200, -402, -7],
    });
}

#[test]
fn a_deregistration_is_one_status_pack_per_code() {
    // OpenPMIx 5.0.11's PMIx_Deregister_event_handler as sent under pmixrun (its
    // codes -200, -402, -7 each packed alone, no count), seen with strace.
    let body = [0x02, 0x0e, 0x02, 0x8f, 0x03, 0x02, 0xa3, 0x06, 0x02, 0x0d];
    assert_eq!(
        decode_request(&body, &me()).unwrap(),
        Command::DeregEvents {
            codes: vec![-200, -402, -7]
        }
    );
}

#[test]
fn a_commit_with_an_unknown_scope_is_malformed() {
    // found by the v41_wire fuzz target: scope 0xbe used to be taken as is
    let mut w = super::body::BodyWriter::new();
    w.cmd(cmd::COMMIT);
    w.byte(0xbe);
    w.buffer(&[]);
    let e = decode_request(&w.finish(), &me()).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_UNPACK_FAILURE);
}

#[test]
fn requests_without_a_v41_form_are_refused_not_garbled() {
    // an invitation: 4.2's server serves group construct and destruct only
    let c = Command::Req(Req::Dyn(DynReq::Group {
        op: 3,
        id: "g".into(),
        procs: vec![],
        info: vec![],
    }));
    let e = encode_request(&c, &me()).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_NOT_SUPPORTED);
    // an unknown command (a master-only one) is a clear status for the server to answer
    let e = decode_request(&[0x02, 39], &me()).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_NOT_SUPPORTED);
}

#[test]
fn replies_and_events_round_trip() {
    let ev = ServerMsg::Event {
        status: -150,
        source: ProcId::new(Nspace::new("job").unwrap(), 0),
        info: vec![info("pmix.evname", Value::string("x"))],
    };
    let b = encode_event(&ev, 2).unwrap();
    assert_eq!(decode_event(&b).unwrap(), ev);
    let q = ReplyData::Data(vec![info("pmix.qry.ns", Value::string("job"))]);
    let b = encode_reply(cmd::QUERY, 0, &q).unwrap();
    assert_eq!(decode_reply(cmd::QUERY, &b).unwrap(), (0, q.clone()));
    // a failed query's data is dropped (as OpenPMIx's client does): only the status
    let b = encode_reply(cmd::QUERY, sys::PMIX_ERROR, &q).unwrap();
    assert_eq!(
        decode_reply(cmd::QUERY, &b).unwrap(),
        (sys::PMIX_ERROR, ReplyData::None)
    );
    let l = ReplyData::Pdata(vec![Pdata {
        proc_: ProcId::new(Nspace::new("job").unwrap(), 1),
        key: Key::new("k").unwrap(),
        value: Value::Int(4),
    }]);
    let b = encode_reply(cmd::LOOKUPNB, 0, &l).unwrap();
    assert_eq!(decode_reply(cmd::LOOKUPNB, &b).unwrap(), (0, l));
    let e = decode_reply(cmd::FENCENB, &[]).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_UNREACH);
    // a refusing status reaches the caller as data, not as a decode error
    let b = encode_reply(cmd::FENCENB, sys::PMIX_ERR_TIMEOUT, &ReplyData::None).unwrap();
    assert_eq!(
        decode_reply(cmd::FENCENB, &b).unwrap().0,
        sys::PMIX_ERR_TIMEOUT
    );
}

#[test]
fn job_info_from_our_job_data_reads_back() {
    let recs = records(SESSIONS[0].1);
    let body = one_frame(
        &recs
            .iter()
            .find(|r| r.0 == "S2C" && r.1 == "MSG")
            .unwrap()
            .2,
    )
    .1;
    let jd = job_data(&decode_job_info(&body).unwrap()).unwrap();
    let back = encode_reply(cmd::REQ, 0, &ReplyData::Job(Box::new(jd.clone()))).unwrap();
    let ReplyData::Job(again) = decode_reply(cmd::REQ, &back).unwrap().1 else {
        panic!()
    };
    // Re-encoded, it keeps every job key and adds only the job-level PMIX_HOSTNAME that
    // OpenPMIx's server (like ORTE) leaves out (`job_info_of`; the job-level PMIX_APPNUM
    // comes from the server's registration, `JobData::derive`, not from the codec).
    let mut added: Vec<&str> = again
        .job
        .iter()
        .filter(|i| !jd.job.iter().any(|j| j.key == i.key))
        .map(|i| i.key.as_str())
        .collect();
    added.sort_unstable();
    assert_eq!(added, [sys::attrs::keys::PMIX_HOSTNAME]);
    assert_eq!(again.job.len(), jd.job.len() + 1);
    assert_eq!(again.nodes, jd.nodes);
    for rank in 0..2 {
        assert_eq!(again.procs.infos(rank), jd.procs.infos(rank));
    }
    let mut r = BodyReader::new(&back);
    assert_eq!(r.string().unwrap().as_deref(), Some("1431175169"));
}

#[test]
fn handshake_refuses_what_we_do_not_speak() {
    let me = ProcId::new(Nspace::new("job").unwrap(), 0);
    let mut h = ClientHello::simple(me, 1000, 1000);
    h.pad = false; // a 5.x client
    let b = encode_client_hello(&h).unwrap();
    let back = decode_client_hello(&b[HEADER_LEN..]).unwrap();
    assert_eq!(back, h);
    check_client_hello(&back).unwrap();
    for (field, val) in [
        ("bfrops", "v20"),
        ("gds", "shmem2"),
        ("psec", "dummy_handshake"),
        ("version", "3.2.3"),
    ] {
        let mut x = h.clone();
        match field {
            "bfrops" => x.bfrops = val.into(),
            "gds" => x.gds = val.into(),
            "psec" => x.psec = val.into(),
            _ => x.version = val.into(),
        }
        let e = check_client_hello(&x).unwrap_err();
        assert_eq!(e.status(), sys::PMIX_ERR_NOT_SUPPORTED, "{}", field);
        assert!(e.context.contains(val), "{}: {}", field, e.context);
    }
    for n in 0..b.len() - HEADER_LEN - 1 {
        assert!(
            decode_client_hello(&b[HEADER_LEN..HEADER_LEN + n]).is_err(),
            "cut at {}",
            n
        );
    }
    let mut big = [0u8; HEADER_LEN];
    big[..8].copy_from_slice(&[0xff; 8]);
    big[8..12].copy_from_slice(&(MAX_HELLO as u32 + 1).to_ne_bytes());
    assert!(hello_len(&big).is_err());
    // the server refuses: the client gets that status
    let r = encode_server_reply(&ServerReply::Client {
        status: sys::PMIX_ERR_NOT_SUPPORTED,
        pindex: None,
    });
    let e = decode_server_reply(flag::SIMPLE_CLIENT, &r).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_NOT_SUPPORTED);
    assert!(decode_server_reply(flag::SIMPLE_CLIENT, &[0, 0, 0, 0])
        .unwrap()
        .is_none());
}

#[test]
fn tool_handshake_round_trips() {
    let srv = ProcId::new(Nspace::new("srv").unwrap(), 0);
    let tool = ProcId::new(Nspace::new("tool.1").unwrap(), 0);
    let mut h = ClientHello::simple(tool.clone(), 5, 6);
    h.flag = flag::TOOL_NEEDS_ID;
    h.ids = Some((5, 6));
    h.proc_ = None;
    h.info = vec![info("pmix.ppid", Value::Pid(42))];
    let b = encode_client_hello(&h).unwrap();
    assert_eq!(decode_client_hello(&b[HEADER_LEN..]).unwrap(), h);
    let r = ServerReply::Tool {
        status: 0,
        assigned: Some(tool),
        server: Some(srv),
        sec_status: 0,
    };
    let bytes = encode_server_reply(&r);
    assert_eq!(bytes.len(), 4 + 2 * (NSPACE_FIELD + 4) + 4);
    assert!(decode_server_reply(h.flag, &bytes[..bytes.len() - 1])
        .unwrap()
        .is_none());
    assert_eq!(
        decode_server_reply(h.flag, &bytes).unwrap().unwrap(),
        (r, bytes.len())
    );
}

#[test]
fn rendezvous_and_module_choice() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
    };
    let r = rendezvous_from_env(env(&[
        ("PMIX_SERVER_URI2", "x.0;tcp4://127.0.0.1:1"),
        ("PMIX_SERVER_URI41", "1431175168.0;tcp4://127.0.0.1:52659"),
    ]))
    .unwrap();
    assert_eq!(r.server.nspace.as_str(), "1431175168");
    assert_eq!(r.addr.port(), 52659);
    assert_eq!(r.var, "PMIX_SERVER_URI41");
    let e =
        rendezvous_from_env(env(&[("PMIX_SERVER_URI21", "x.0;tcp4://127.0.0.1:1")])).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_NOT_SUPPORTED);
    let e = rendezvous_from_env(env(&[])).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_UNREACH);
    let (p, a) = parse_uri("a.b.7;tcp6://[::1]:9").unwrap();
    assert_eq!((p.nspace.as_str(), p.rank, a.port()), ("a.b", 7, 9));
    for bad in [
        "x;tcp4://1.2.3.4:5",
        "x.0",
        "x.y;tcp4://1.2.3.4:5",
        "x.0;usock://p",
        "x.0;tcp4://nope",
    ] {
        assert_eq!(
            parse_uri(bad).unwrap_err().status(),
            sys::PMIX_ERR_BAD_PARAM,
            "{}",
            bad
        );
    }
    assert_eq!(choose_gds(Some("ds21,ds12,hash")).unwrap(), "hash");
    assert!(choose_gds(Some("ds21,ds12")).is_err());
    assert_eq!(choose_psec(Some("munge,native")).unwrap(), "native");
    assert_eq!(choose_psec(Some("munge")).unwrap(), "munge");
    assert_eq!(choose_psec(Some(" munge ,none")).unwrap(), "none");
    let e = choose_psec(Some("dummy_handshake")).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_NOT_SUPPORTED);
    assert!(e.context.contains("dummy_handshake"), "{}", e.context);
}

#[test]
fn frames_over_the_limit_fail_and_tags_count_like_openpmix() {
    let mut d = FrameDecoder::with_limit(8);
    d.push(&super::frame::frame(0, 101, &[0u8; 9]).unwrap());
    assert_eq!(
        d.next_frame().unwrap_err().status(),
        sys::PMIX_ERR_UNPACK_FAILURE
    );
    let mut d = FrameDecoder::new();
    let mut two = super::frame::frame(0, 101, &[2, 0]).unwrap();
    two.extend(super::frame::frame(0, 0, &[]).unwrap());
    d.push(&two);
    assert_eq!(d.next_frame().unwrap().unwrap().0.tag, 101);
    assert_eq!(d.next_frame().unwrap().unwrap().1, Vec::<u8>::new());
    assert!(d.next_frame().unwrap().is_none());
    let mut t = TagCounter::default();
    assert_eq!((t.next_tag(), t.next_tag()), (101, 102));
}

fn job(rank: u32) -> ProcId {
    ProcId::new(Nspace::new("job").unwrap(), rank)
}

#[test]
fn iof_and_group_requests_are_packed_as_a_4_2_client_packs_them() {
    let s = me();
    // pull: SIZE n, PROC x n, SIZE ndirs, CHANNEL, SIZE our id
    let pull = Command::Req(Req::Iof(IofReq::Pull {
        id: 5,
        procs: vec![job(sys::PMIX_RANK_WILDCARD)],
        channels: sys::PMIX_FWD_STDOUT_CHANNEL,
        directives: vec![],
    }));
    let b = encode_request(&pull, &s).unwrap();
    let mut r = BodyReader::new(&b);
    assert_eq!(r.cmd().unwrap(), cmd::IOF_PULL);
    assert_eq!(
        r.procs_always().unwrap(),
        vec![job(sys::PMIX_RANK_WILDCARD)]
    );
    assert_eq!(r.infos().unwrap(), vec![]);
    assert_eq!(
        r.values(sys::PMIX_IOF_CHANNEL).unwrap(),
        vec![Value::IofChannel(sys::PMIX_FWD_STDOUT_CHANNEL)]
    );
    assert_eq!(r.size().unwrap(), 5);
    r.end("pull").unwrap();
    // deregistration: SIZE ndirs, SIZE the server's id
    let dereg = Command::Req(Req::Iof(IofReq::Deregister {
        id: 9,
        directives: vec![],
    }));
    let b = encode_request(&dereg, &s).unwrap();
    let mut r = BodyReader::new(&b);
    assert_eq!(r.cmd().unwrap(), cmd::IOF_DEREG);
    assert_eq!(r.infos().unwrap(), vec![]);
    assert_eq!(r.size().unwrap(), 9);
    r.end("dereg").unwrap();
    // push: SIZE n, PROC x n, SIZE ndirs, BYTE_OBJECT
    let push = Command::Req(Req::Iof(IofReq::Push {
        targets: vec![job(0)],
        directives: vec![],
        data: Some(b"in\n".to_vec()),
    }));
    let b = encode_request(&push, &s).unwrap();
    let mut r = BodyReader::new(&b);
    assert_eq!(r.cmd().unwrap(), cmd::IOF_PUSH);
    assert_eq!(r.procs().unwrap(), vec![job(0)]);
    assert_eq!(r.infos().unwrap(), vec![]);
    assert_eq!(r.byte_object().unwrap(), b"in\n".to_vec());
    r.end("push").unwrap();
    // group construct: STRING id, SIZE n, PROC x n, SIZE ninfo; destruct: no procs
    for (op, code) in [(1u8, cmd::GROUP_CONSTRUCT), (2, cmd::GROUP_DESTRUCT)] {
        let g = Command::Req(Req::Dyn(DynReq::Group {
            op,
            id: "grp".into(),
            procs: vec![job(0), job(1)],
            info: vec![],
        }));
        let b = encode_request(&g, &s).unwrap();
        let mut r = BodyReader::new(&b);
        assert_eq!(r.cmd().unwrap(), code);
        assert_eq!(r.string().unwrap().as_deref(), Some("grp"));
        if code == cmd::GROUP_CONSTRUCT {
            assert_eq!(r.procs_always().unwrap(), vec![job(0), job(1)]);
        }
        assert_eq!(r.infos().unwrap(), vec![]);
        r.end("group").unwrap();
    }
}

#[test]
fn iof_requests_round_trip_and_a_pull_reply_names_the_registration() {
    let s = me();
    for r in [
        IofReq::Pull {
            id: 7,
            procs: vec![job(sys::PMIX_RANK_WILDCARD)],
            channels: sys::PMIX_FWD_STDOUT_CHANNEL | sys::PMIX_FWD_STDERR_CHANNEL,
            directives: vec![],
        },
        IofReq::Deregister {
            id: 7,
            directives: vec![],
        },
        IofReq::Push {
            targets: vec![job(0)],
            directives: vec![],
            data: Some(b"input\n".to_vec()),
        },
        IofReq::Push {
            targets: vec![job(0)],
            directives: vec![],
            data: None,
        },
    ] {
        let c = Command::Req(Req::Iof(r.clone()));
        let b = encode_request(&c, &s).unwrap();
        assert_eq!(decode_request(&b, &s).unwrap(), c);
    }
    let b = encode_pull_reply(0, Some(7));
    assert_eq!(iof_pull_refid(&b).unwrap(), Some(7));
    assert_eq!(decode_reply(cmd::IOF_PULL, &b).unwrap().0, 0);
    let b = encode_pull_reply(sys::PMIX_ERR_NOT_SUPPORTED, Some(7));
    assert_eq!(iof_pull_refid(&b).unwrap(), None);
}

#[test]
fn group_requests_and_replies_of_4_2_and_5_x_round_trip() {
    use crate::protocol::{ConnectData, GroupOp, GroupReply};
    let members = vec![job(0), job(1)];
    for peer in [PEER_UNKNOWN, (5, 0)] {
        let s = Sender::new(job(1), 1000, peer);
        for op in [GroupOp::Construct, GroupOp::Destruct] {
            let req = Command::Req(Req::Dyn(DynReq::Group {
                op: op as u8,
                id: "grp".into(),
                procs: members.clone(),
                info: vec![],
            }));
            let b = encode_request(&req, &s).unwrap();
            // The server reads back what the client of that release sends (a destruct's
            // members are a 5.x client's only, and our server does not need them).
            let Command::Req(Req::Dyn(DynReq::Group {
                op: o, id, procs, ..
            })) = decode_request(&b, &s).unwrap()
            else {
                panic!("not a group request")
            };
            assert_eq!((o, id.as_str()), (op as u8, "grp"));
            let want = if op == GroupOp::Construct {
                members.clone()
            } else {
                vec![]
            };
            assert_eq!(procs, want, "{:?} {:?}", peer, op);
        }
        // A construct's reply as that client reads it: the context id, and (5.x) the
        // membership.
        let ctx = Info::new(sys::attrs::keys::PMIX_GROUP_CONTEXT_ID, Value::Size(9)).unwrap();
        let m = Info::new(
            sys::attrs::keys::PMIX_GROUP_MEMBERSHIP,
            Value::proc_array(&members),
        )
        .unwrap();
        let g = GroupReply {
            results: vec![m, ctx],
            data: ConnectData {
                jobs: vec![],
                peers: vec![],
            },
        };
        let b = encode_group_reply(0, Some(&g), s.peer_is_v5(), &job(0).nspace).unwrap();
        let (st, d) = decode_reply(cmd::GROUP_CONSTRUCT, &b).unwrap();
        let ReplyData::Group(back) = d else {
            panic!("not a group reply")
        };
        assert_eq!(st, 0);
        let keys: Vec<&str> = back.results.iter().map(|i| i.key.as_str()).collect();
        if s.peer_is_v5() {
            assert_eq!(back.results, g.results);
        } else {
            assert_eq!(keys, [sys::attrs::keys::PMIX_GROUP_CONTEXT_ID]);
        }
        // a failed construct: the status (and 4.2's "no context id")
        let b = encode_group_reply(sys::PMIX_ERR_TIMEOUT, None, s.peer_is_v5(), &job(0).nspace)
            .unwrap();
        let (st, _) = decode_reply(cmd::GROUP_CONSTRUCT, &b).unwrap();
        assert_eq!(st, sys::PMIX_ERR_TIMEOUT);
    }
}

#[test]
fn iof_and_group_replies_and_forwarded_output_decode() {
    // a pull's reply carries the server's id; a refusal none
    let mut w = super::body::BodyWriter::new();
    w.status(0);
    w.size(3);
    let b = w.finish();
    assert_eq!(iof_pull_refid(&b).unwrap(), Some(3));
    assert_eq!(
        decode_reply(cmd::IOF_PULL, &b).unwrap(),
        (0, ReplyData::None)
    );
    let no = encode_reply(cmd::IOF_PULL, sys::PMIX_ERR_NOT_SUPPORTED, &ReplyData::None).unwrap();
    assert_eq!(iof_pull_refid(&no).unwrap(), None);
    // a construct's reply may carry a context id
    let mut w = super::body::BodyWriter::new();
    w.status(0);
    w.size(42);
    let (st, d) = decode_reply(cmd::GROUP_CONSTRUCT, &w.finish()).unwrap();
    assert_eq!(st, 0);
    let ReplyData::Group(g) = d else {
        panic!("not a group reply: {:?}", d)
    };
    assert_eq!(
        g.results[0].key.as_str(),
        sys::attrs::keys::PMIX_GROUP_CONTEXT_ID
    );
    assert_eq!(g.results[0].value, Value::Size(42));
    // 4.2's "none assigned" (SIZE_MAX) is no context id
    let mut w = super::body::BodyWriter::new();
    w.status(0);
    w.size(usize::MAX);
    let (_, d) = decode_reply(cmd::GROUP_CONSTRUCT, &w.finish()).unwrap();
    let ReplyData::Group(g) = d else {
        panic!("not a group reply: {:?}", d)
    };
    assert!(g.results.is_empty(), "{:?}", g.results);
    // a 5.x server's reply: members, context id, job info of the other namespace
    let mut w = super::body::BodyWriter::new();
    w.status(0);
    w.size(2);
    w.proc_id(&job(0));
    w.proc_id(&ProcId::new(Nspace::new("other").unwrap(), 3));
    w.size(7);
    w.byte_object(
        &encode_job_info(&JobInfo {
            nspace: Nspace::new("other").unwrap(),
            kvals: vec![(
                Key::new(sys::attrs::keys::PMIX_JOB_SIZE).unwrap(),
                Value::Uint32(4),
            )],
        })
        .unwrap(),
    );
    let (st, d) = decode_reply(cmd::GROUP_CONSTRUCT, &w.finish()).unwrap();
    assert_eq!(st, 0);
    let ReplyData::Group(g) = d else {
        panic!("not a group reply: {:?}", d)
    };
    let keys: Vec<&str> = g.results.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            sys::attrs::keys::PMIX_GROUP_MEMBERSHIP,
            sys::attrs::keys::PMIX_GROUP_CONTEXT_ID
        ]
    );
    assert_eq!(g.results[1].value, Value::Size(7));
    assert_eq!(g.data.jobs.len(), 1);
    assert_eq!(g.data.jobs[0].nspace.as_str(), "other");
    // a 5.x reply of a server that returns no membership (PRRTE 3.0)
    let mut w = super::body::BodyWriter::new();
    w.status(0);
    w.size(0);
    w.size(usize::MAX);
    let (_, d) = decode_reply(cmd::GROUP_CONSTRUCT, &w.finish()).unwrap();
    let ReplyData::Group(g) = d else {
        panic!("not a group reply: {:?}", d)
    };
    assert!(g.results.is_empty(), "{:?}", g.results);
    // forwarded output round-trips, and a truncated one is malformed
    let c = crate::iof::IofChunk {
        source: job(1),
        channel: sys::PMIX_FWD_STDERR_CHANNEL,
        info: vec![],
        data: b"oops\n".to_vec(),
    };
    let b = encode_iof(7, &c).unwrap();
    assert_eq!(decode_iof(&b).unwrap(), (7, c));
    assert!(decode_iof(b.get(..b.len() - 2).unwrap()).is_err());
}
