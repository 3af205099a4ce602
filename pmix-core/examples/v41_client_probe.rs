//! A rank speaking OpenPMIx's wire protocol with nothing but `pmix_core::codec::v41::wire`
//! and a blocking `TcpStream`: run it under an OpenPMIx server (Debian's `mpirun`, Open
//! MPI 4.1.4 with OpenPMIx 4.2.2) with `-np 2` or more.
//!
//! It reads `PMIX_SERVER_URI41` …, does the handshake, fetches its job info (hash
//! gds), puts and commits a key, enters a collecting fence over its namespace, gets the
//! next rank's key, finalizes and prints `PASS`. Any failure prints `FAIL <why>` and
//! exits 1; every read has a deadline, so it never hangs.

use pmix_core::codec::v41::wire::{
    cmds::{self, Command, Sender},
    frame::{self, FrameDecoder, TagCounter, TAG_NOTIFY},
    handshake::{self, ClientHello},
    replies,
};
use pmix_core::protocol::{Put, ReplyData, Req};
use pmix_core::{Error, Info, Key, Nspace, ProcId, Result, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

const KEY: &str = "v41.probe.key";

struct Conn {
    s: TcpStream,
    dec: FrameDecoder,
    tags: TagCounter,
    pindex: i32,
    me: Sender,
}

fn io(e: std::io::Error) -> Error {
    Error::new(pmix_sys::PMIX_ERR_UNREACH, format!("socket: {}", e))
}

impl Conn {
    fn read_some(&mut self) -> Result<()> {
        let mut buf = [0u8; 65536];
        let n = self.s.read(&mut buf).map_err(io)?;
        if n == 0 {
            return Err(Error::new(pmix_sys::PMIX_ERR_UNREACH, "server closed"));
        }
        self.dec.push(&buf[..n]);
        Ok(())
    }
    /// Send a request and wait for its reply (events arriving meanwhile are printed).
    fn call(&mut self, c: Command) -> Result<(i32, ReplyData)> {
        let code = c.code()?;
        let body = cmds::encode_request(&c, &self.me)?;
        let tag = self.tags.next_tag();
        let out = frame::frame(self.pindex, tag, &body)?;
        self.s.write_all(&out).map_err(io)?;
        loop {
            while let Some((h, body)) = self.dec.next_frame()? {
                if h.tag == TAG_NOTIFY {
                    println!("event: {:?}", replies::decode_event(&body)?);
                } else if h.tag == tag {
                    return replies::decode_reply(code, &body);
                }
            }
            self.read_some()?;
        }
    }
}

fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

fn connect() -> Result<Conn> {
    let rv = handshake::rendezvous_from_env(env)?;
    handshake::choose_gds(env("PMIX_GDS_MODULE").as_deref())?;
    handshake::choose_psec(env("PMIX_SECURITY_MODE").as_deref())?;
    let ns = env("PMIX_NAMESPACE").ok_or_else(|| Error::bad_param("no PMIX_NAMESPACE"))?;
    let rank: u32 = env("PMIX_RANK")
        .and_then(|r| r.parse().ok())
        .ok_or_else(|| Error::bad_param("no PMIX_RANK"))?;
    let me = ProcId::new(Nspace::new(ns)?, rank);
    let mut s = TcpStream::connect(rv.addr).map_err(io)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(io)?;
    let uid = pmix_core::sys::euid();
    let hello = ClientHello::simple(me.clone(), uid, pmix_core::sys::egid());
    s.write_all(&handshake::encode_client_hello(&hello)?)
        .map_err(io)?;
    let mut got = Vec::new();
    let (reply, used) = loop {
        if let Some(r) = handshake::decode_server_reply(hello.flag, &got)? {
            break r;
        }
        let mut b = [0u8; 64];
        let n = s.read(&mut b).map_err(io)?;
        if n == 0 {
            return Err(Error::new(
                pmix_sys::PMIX_ERR_UNREACH,
                "closed in handshake",
            ));
        }
        got.extend_from_slice(&b[..n]);
    };
    let handshake::ServerReply::Client {
        pindex: Some(p), ..
    } = reply
    else {
        return Err(Error::unpack("unexpected handshake reply"));
    };
    let mut dec = FrameDecoder::new();
    dec.push(&got[used..]);
    println!(
        "rank {}: connected to {} at {} (pindex {})",
        rank, rv.server, rv.addr, p
    );
    Ok(Conn {
        s,
        dec,
        tags: TagCounter::default(),
        pindex: p as i32,
        me: Sender::new(me, uid, cmds::PEER_UNKNOWN),
    })
}

fn check(what: &str, status: i32) -> Result<()> {
    if status == 0 {
        Ok(())
    } else {
        Err(Error::new(status, format!("{} returned {}", what, status)))
    }
}

fn job_size(data: &ReplyData) -> Result<u32> {
    let ReplyData::Job(j) = data else {
        return Err(Error::unpack("job info reply without job data"));
    };
    j.job
        .iter()
        .find(|i| i.key.as_str() == "pmix.job.size")
        .and_then(|i| match i.value {
            Value::Uint32(n) => Some(n),
            _ => None,
        })
        .ok_or_else(|| Error::not_found("pmix.job.size"))
}

fn run() -> Result<()> {
    let mut c = connect()?;
    let me = c.me.me.clone();
    let (_, job) = c.call(Command::Req(Req::JobData {
        nspace: me.nspace.clone(),
    }))?;
    let size = job_size(&job)?;
    if size < 2 {
        return Err(Error::bad_param("run me with -np 2 or more"));
    }
    let mine = format!("value-of-{}", me.rank);
    let put = Put {
        key: Key::new(KEY)?,
        scope: pmix_sys::PMIX_GLOBAL,
        value: Value::string(&mine),
    };
    let (st, _) = c.call(Command::Req(Req::Commit { puts: vec![put] }))?;
    check("commit", st)?;
    let collect = vec![Info::new("pmix.collect", Value::Bool(true))?];
    let (st, _) = c.call(Command::Req(Req::Fence {
        procs: Vec::new(),
        collect: true,
        timeout_ms: 0,
        info: collect,
    }))?;
    check("fence", st)?;
    let peer = (me.rank + 1) % size;
    let (st, data) = c.call(Command::Req(Req::Get {
        target: ProcId::new(me.nspace.clone(), peer),
        key: Some(Key::new(KEY)?),
        immediate: false,
        timeout_ms: 0,
        info: Vec::new(),
    }))?;
    check("get", st)?;
    let want = Value::string(&format!("value-of-{}", peer));
    let ReplyData::Data(infos) = data else {
        return Err(Error::unpack("get reply without data"));
    };
    match infos.iter().find(|i| i.key.as_str() == KEY) {
        Some(i) if i.value == want => {}
        other => {
            return Err(Error::not_found(format!(
                "rank {}'s key: got {:?}",
                peer,
                other.map(|i| &i.value)
            )))
        }
    }
    let (st, _) = c.call(Command::Req(Req::Finalize))?;
    check("finalize", st)?;
    println!(
        "PASS v41 wire: rank {} of {} (job {}) got rank {}'s key after a collecting fence",
        me.rank, size, me.nspace, peer
    );
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        println!("FAIL v41 wire probe: {} (status {})", e.context, e.status());
        std::process::exit(1);
    }
}
