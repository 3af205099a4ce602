//! The translation of [`super::Xlate`] without a server: requests out, replies and
//! events in, the commit's reply swallowed, long strings compressed and expanded.

use super::*;
use crate::codec::v41::wire::frame::FrameDecoder;
use crate::codec::v41::wire::replies::{encode_event, encode_get_reply, encode_reply};
use crate::protocol::ReplyData;
use crate::value::{Info, Key, Nspace};

fn me() -> ProcId {
    ProcId::new(Nspace::new("job").unwrap(), 1)
}

fn xlate() -> Xlate {
    Xlate::new(3, Sender::new(me(), 1000, cmds::PEER_UNKNOWN))
}

fn ours(tag: u32, req: Req) -> Vec<u8> {
    protocol::encode(&Request { tag, req })
}

/// The one v41 message in `bytes`: its header and body.
fn one(bytes: &[u8]) -> (Header, Vec<u8>) {
    let mut d = FrameDecoder::new();
    d.push(bytes);
    let m = d.next_frame().unwrap().expect("a whole message");
    assert_eq!(d.pending(), 0);
    m
}

fn from_server(tag: u32, body: &[u8]) -> Header {
    Header {
        pindex: 0,
        tag,
        nbytes: body.len() as u32,
    }
}

fn get(key: &str, info: Vec<Info>) -> Req {
    Req::Get {
        target: ProcId::new(Nspace::new("job").unwrap(), 0),
        key: Some(Key::new(key).unwrap()),
        immediate: false,
        timeout_ms: 0,
        info,
    }
}

#[test]
fn a_get_goes_out_with_the_pindex_and_its_reply_comes_back_under_our_tag() {
    let mut x = xlate();
    let (h, body) = one(&x.request(&ours(7, get("k", Vec::new()))).unwrap());
    assert_eq!(h.pindex, 3);
    assert!(h.tag > frame::TAG_DYNAMIC);
    let s = Sender::new(me(), 1000, cmds::PEER_UNKNOWN);
    assert_eq!(
        cmds::decode_request(&body, &s).unwrap(),
        Command::Req(get("k", Vec::new()))
    );
    let peer = ProcId::new(Nspace::new("job").unwrap(), 0);
    let vals = vec![Info::new("k", Value::string("v")).unwrap()];
    let reply = encode_get_reply(0, &[(peer, vals.clone())]).unwrap();
    let msg = x.server_msg(&from_server(h.tag, &reply), &reply).unwrap();
    let msg = protocol::decode::<ServerMsg>(&msg.expect("a reply")).unwrap();
    assert_eq!(
        msg,
        ServerMsg::Reply {
            tag: 7,
            status: 0,
            data: ReplyData::Data(vals)
        }
    );
    // the tag is used up: a second reply with it is dropped
    assert_eq!(
        x.server_msg(&from_server(h.tag, &reply), &reply).unwrap(),
        None
    );
}

#[test]
fn the_refresh_directive_is_not_sent_the_get_itself_is() {
    let mut x = xlate();
    let refresh =
        vec![Info::new(sys::attrs::keys::PMIX_GET_REFRESH_CACHE, Value::Bool(true)).unwrap()];
    let (_, body) = one(&x.request(&ours(2, get("k", refresh))).unwrap());
    let s = Sender::new(me(), 1000, cmds::PEER_UNKNOWN);
    assert_eq!(
        cmds::decode_request(&body, &s).unwrap(),
        Command::Req(get("k", Vec::new()))
    );
}

#[test]
fn a_commits_reply_is_swallowed_and_an_event_is_delivered() {
    let mut x = xlate();
    let puts = vec![Put {
        key: Key::new("k").unwrap(),
        scope: sys::PMIX_GLOBAL,
        value: Value::Uint32(5),
    }];
    let (h, _) = one(&x.request(&ours(0, Req::Commit { puts })).unwrap());
    let reply = encode_reply(cmds::cmd::COMMIT, 0, &ReplyData::None).unwrap();
    assert_eq!(
        x.server_msg(&from_server(h.tag, &reply), &reply).unwrap(),
        None
    );
    let ev = ServerMsg::Event {
        status: -3077,
        source: me(),
        info: Vec::new(),
    };
    let body = encode_event(&ev, sys::PMIX_RANGE_LOCAL).unwrap();
    let got = x
        .server_msg(&from_server(0, &body), &body)
        .unwrap()
        .unwrap();
    assert_eq!(protocol::decode::<ServerMsg>(&got).unwrap(), ev);
}

#[test]
fn a_request_with_no_v41_counterpart_fails_at_once() {
    let mut x = xlate();
    let r = x.request(&ours(
        4,
        Req::Allgather {
            procs: Vec::new(),
            timeout_ms: 0,
            info: Vec::new(),
            data: Vec::new(),
        },
    ));
    assert_eq!(r.unwrap_err().status(), sys::PMIX_ERR_NOT_SUPPORTED);
}

#[test]
fn a_malformed_reply_is_an_error_and_an_unknown_tag_is_dropped() {
    let mut x = xlate();
    let (h, _) = one(&x.request(&ours(9, get("k", Vec::new()))).unwrap());
    let junk = [0xffu8; 3];
    assert!(x.server_msg(&from_server(h.tag, &junk), &junk).is_err());
    assert_eq!(
        x.server_msg(&from_server(4242, &junk), &junk).unwrap(),
        None
    );
}

#[test]
fn a_long_string_is_put_compressed_and_read_back_as_a_string() {
    let long = "x".repeat(crate::compress::MIN_INPUT * 3);
    let p = compress_put(Put {
        key: Key::new("k").unwrap(),
        scope: sys::PMIX_GLOBAL,
        value: Value::string(&long),
    });
    let Value::CompressedString(z) = &p.value else {
        panic!("not compressed: {:?}", p.value.dtype());
    };
    assert!(z.len() < long.len());
    assert_eq!(
        crate::client::get::expanded(p.value.clone()),
        Value::string(&long)
    );
    // short strings and other values stay as they are
    let short = compress_put(Put {
        key: Key::new("k").unwrap(),
        scope: sys::PMIX_GLOBAL,
        value: Value::string("short"),
    });
    assert_eq!(short.value, Value::string("short"));
    // a block that does not decompress stays as it came
    let bad = Value::CompressedString(vec![1, 2, 3]);
    assert_eq!(crate::client::get::expanded(bad.clone()), bad);
}

#[test]
fn a_tool_connect_message_names_the_tool_kind_and_carries_its_command_line() {
    let needs = tool_hello(&me(), PeerKind::ToolAssign, "native").unwrap();
    let given = tool_hello(&me(), PeerKind::ToolNamed, "native").unwrap();
    for (h, flag, proc_) in [
        (&needs, handshake::flag::TOOL_NEEDS_ID, None),
        (&given, handshake::flag::TOOL_GIVEN_ID, Some(me())),
    ] {
        let bytes = handshake::encode_client_hello(h).unwrap();
        let back = handshake::decode_client_hello(bytes.get(frame::HEADER_LEN..).unwrap()).unwrap();
        assert_eq!(back.flag, flag);
        assert_eq!(back.proc_, proc_);
        assert_eq!(back.ids, Some((crate::sys::euid(), crate::sys::egid())));
        // prterun (PRRTE 3.0.14) crashes on a tool connect message without it.
        let cmd = back
            .info
            .iter()
            .find(|i| i.key.as_str() == sys::attrs::keys::PMIX_CMD_LINE);
        assert!(cmd
            .and_then(|i| i.value.as_str())
            .is_some_and(|c| !c.is_empty()));
        assert!(back
            .info
            .iter()
            .any(|i| i.key.as_str() == sys::attrs::keys::PMIX_PROC_PID));
    }
}

#[test]
fn an_iof_deregistration_names_the_servers_id_for_the_pull() {
    use crate::codec::v41::wire::body::{BodyReader, BodyWriter};
    let mut x = xlate();
    let pull = Req::Iof(IofReq::Pull {
        id: 2,
        procs: vec![ProcId::new(Nspace::new("job").unwrap(), 0)],
        channels: sys::PMIX_FWD_STDOUT_CHANNEL,
        directives: Vec::new(),
    });
    let (h, _) = one(&x.request(&ours(11, pull)).unwrap());
    // the server accepts it as its registration 8
    let mut w = BodyWriter::new();
    w.status(0);
    w.size(8);
    let reply = w.finish();
    let m = x.server_msg(&from_server(h.tag, &reply), &reply).unwrap();
    assert!(matches!(
        protocol::decode::<ServerMsg>(&m.unwrap()).unwrap(),
        ServerMsg::Reply {
            tag: 11,
            status: 0,
            ..
        }
    ));
    let dereg = Req::Iof(IofReq::Deregister {
        id: 2,
        directives: Vec::new(),
    });
    let (_, body) = one(&x.request(&ours(12, dereg.clone())).unwrap());
    let mut r = BodyReader::new(&body);
    r.cmd().unwrap();
    r.infos().unwrap();
    assert_eq!(r.size().unwrap(), 8);
    // deregistered once: a second one is refused here
    let e = x.request(&ours(13, dereg)).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_NOT_FOUND);
    // forwarded output (tag 2) comes in as our IOF message under our id
    let chunk = crate::iof::IofChunk {
        source: ProcId::new(Nspace::new("job").unwrap(), 0),
        channel: sys::PMIX_FWD_STDOUT_CHANNEL,
        info: Vec::new(),
        data: b"hi".to_vec(),
    };
    let b = crate::codec::v41::wire::replies::encode_iof(2, &chunk).unwrap();
    let m = x.server_msg(&from_server(frame::TAG_IOF, &b), &b).unwrap();
    assert_eq!(
        protocol::decode::<ServerMsg>(&m.unwrap()).unwrap(),
        ServerMsg::Iof {
            id: 2,
            chunk: Box::new(chunk)
        }
    );
}

#[test]
fn a_destruct_names_its_members_to_a_5x_server_and_an_unknown_group_is_not_found() {
    let destruct = |procs: Vec<ProcId>| {
        Req::Dyn(DynReq::Group {
            op: GroupOp::Destruct as u8,
            id: "g".into(),
            procs,
            info: Vec::new(),
        })
    };
    let v5 = Sender::new(me(), 1000, (5, 0));
    let mut x = Xlate::new(3, v5.clone());
    let (_, body) = one(&x.request(&ours(5, destruct(vec![me()]))).unwrap());
    // (a server reads the members to count the participants and keeps none)
    assert_eq!(
        cmds::decode_request(&body, &v5).unwrap(),
        Command::Req(destruct(Vec::new()))
    );
    let (_, body42) = one(&xlate().request(&ours(5, destruct(vec![me()]))).unwrap());
    assert!(
        body.len() > body42.len(),
        "the 5.x form carries the members"
    );
    let e = x.request(&ours(6, destruct(Vec::new()))).unwrap_err();
    assert_eq!(e.status(), sys::PMIX_ERR_NOT_FOUND);
    // 4.2's form names no members: a 4.2 server is asked, whatever we know
    let mut x = xlate();
    let (_, body) = one(&x.request(&ours(7, destruct(Vec::new()))).unwrap());
    let s = Sender::new(me(), 1000, cmds::PEER_UNKNOWN);
    assert_eq!(
        cmds::decode_request(&body, &s).unwrap(),
        Command::Req(destruct(Vec::new()))
    );
}

#[test]
fn a_rendezvous_files_release_comes_before_the_environments() {
    assert_eq!(peer_release(Some((5, 0))), ((5, 0), "its rendezvous file"));
    let (r, from) = peer_release(None);
    assert_ne!(from, "its rendezvous file");
    if from == "assumed" {
        assert_eq!(r, cmds::PEER_UNKNOWN);
    }
}
