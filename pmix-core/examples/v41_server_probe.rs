//! The server role of OpenPMIx's wire protocol with nothing but
//! `pmix_core::codec::v41::wire` and blocking std sockets: `v41_server_probe <client>`
//! listens on loopback, starts `<client>` (an OpenPMIx 4.2.x program, e.g.
//! tests-c/v41wire/client.c built against Debian's libpmix) with the rendezvous
//! variables an OpenPMIx server sets, checks its connect message and native credential,
//! serves its job info (hash gds), a fence of its one rank and its finalize, and prints
//! `PASS` when the client finalized and exited 0. Everything has a deadline.

use pmix_core::codec::v41::wire::{
    cmds::{self, cmd, Command, Sender},
    frame::{self, FrameDecoder},
    handshake::{self, ServerReply},
    replies,
};
use pmix_core::protocol::{ReplyData, Req};
use pmix_core::store::{JobData, NodeData, ProcBuilder};
use pmix_core::{Error, Info, Nspace, Result, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command as Proc};
use std::time::{Duration, Instant};

const JOB: &str = "v41job";

fn io(e: std::io::Error) -> Error {
    Error::new(pmix_sys::PMIX_ERR_UNREACH, format!("socket: {}", e))
}

fn info(k: &str, v: Value) -> Result<Info> {
    Info::new(k, v)
}

fn job_data(host: &str) -> Result<JobData> {
    let nspace = Nspace::new(JOB)?;
    let job = vec![
        info("pmix.srv.nspace", Value::string("v41srv"))?,
        info("pmix.srv.rank", Value::Uint32(0))?,
        info("pmix.jobid", Value::string(JOB))?,
        info("pmix.job.size", Value::Uint32(1))?,
        info("pmix.univ.size", Value::Uint32(1))?,
        info("pmix.max.size", Value::Uint32(1))?,
        info("pmix.num.nodes", Value::Uint32(1))?,
        info("pmix.job.napps", Value::Uint32(1))?,
        info("pmix.nlist", Value::string(host))?,
    ];
    let node = vec![
        info("pmix.hname", Value::string(host))?,
        info("pmix.nodeid", Value::Uint32(0))?,
        info("pmix.local.size", Value::Uint32(1))?,
        info("pmix.lpeers", Value::string("0"))?,
        info("pmix.lldr", Value::Rank(0))?,
    ];
    let mut procs = ProcBuilder::new(1);
    for (k, v) in [
        ("pmix.rank", Value::Rank(0)),
        ("pmix.grank", Value::Rank(0)),
        ("pmix.lrank", Value::Uint16(0)),
        ("pmix.nrank", Value::Uint16(0)),
        ("pmix.appnum", Value::Uint32(0)),
        ("pmix.nodeid", Value::Uint32(0)),
        ("pmix.hname", Value::string(host)),
    ] {
        procs.add(0, info(k, v)?, &nspace);
    }
    Ok(JobData {
        nspace,
        job,
        apps: Vec::new(),
        nodes: vec![NodeData {
            id: Some(0),
            hostname: Some(host.to_string()),
            info: node,
        }],
        procs: procs.finish(),
    })
}

fn start(client: &str, port: u16) -> Result<Child> {
    let mut c = Proc::new(client);
    for (k, _) in std::env::vars() {
        if k.starts_with("PMIX_") || k.starts_with("OMPI_") {
            c.env_remove(k);
        }
    }
    let uri = format!("v41srv.0;tcp4://127.0.0.1:{}", port);
    for var in ["PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3"] {
        c.env(var, &uri);
    }
    c.env("PMIX_NAMESPACE", JOB)
        .env("PMIX_RANK", "0")
        .env("PMIX_SECURITY_MODE", "native")
        .env("PMIX_GDS_MODULE", "hash")
        .env("PMIX_BFROP_BUFFER_TYPE", "PMIX_BFROP_BUFFER_NON_DESC")
        .env("PMIX_SERVER_TMPDIR", std::env::temp_dir())
        .env("PMIX_SYSTEM_TMPDIR", std::env::temp_dir());
    c.spawn().map_err(io)
}

fn accept(l: &TcpListener, child: &mut Child, deadline: Instant) -> Result<TcpStream> {
    l.set_nonblocking(true).map_err(io)?;
    loop {
        match l.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false).map_err(io)?;
                s.set_read_timeout(Some(Duration::from_secs(20)))
                    .map_err(io)?;
                return Ok(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(io(e)),
        }
        if let Ok(Some(st)) = child.try_wait() {
            return Err(Error::bad_param(format!(
                "client exited before connecting: {}",
                st
            )));
        }
        if Instant::now() > deadline {
            return Err(Error::new(pmix_sys::PMIX_ERR_TIMEOUT, "no connection"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Read and check the connect message; answer it.
fn handshake(s: &mut TcpStream) -> Result<Sender> {
    let mut h = [0u8; frame::HEADER_LEN];
    s.read_exact(&mut h).map_err(io)?;
    let mut payload = vec![0u8; handshake::hello_len(&h)?];
    s.read_exact(&mut payload).map_err(io)?;
    let hello = handshake::decode_client_hello(&payload)?;
    println!(
        "server: {} (version {}, {}, gds {}, psec {})",
        hello.proc_.as_ref().map_or("?".into(), |p| p.to_string()),
        hello.version,
        hello.bfrops,
        hello.gds,
        hello.psec
    );
    let refuse = |s: &mut TcpStream, e: Error| -> Result<Sender> {
        println!("server: refusing: {}", e.context);
        let r = ServerReply::Client {
            status: e.status(),
            pindex: None,
        };
        let _ = s.write_all(&handshake::encode_server_reply(&r));
        Err(e)
    };
    if let Err(e) = handshake::check_client_hello(&hello) {
        return refuse(s, e);
    }
    let uid = pmix_core::sys::euid();
    let (cuid, cgid) = handshake::parse_native_credential(&hello.credential)?;
    if (cuid, cgid) != (uid, pmix_core::sys::egid()) {
        let e = Error::new(pmix_sys::PMIX_ERR_INVALID_CRED, "credential mismatch");
        return refuse(s, e);
    }
    let Some(me) = hello
        .proc_
        .filter(|p| p.nspace.as_str() == JOB && p.rank == 0)
    else {
        return refuse(s, Error::bad_param("not the registered client"));
    };
    let r = ServerReply::Client {
        status: 0,
        pindex: Some(0),
    };
    s.write_all(&handshake::encode_server_reply(&r))
        .map_err(io)?;
    Ok(Sender::new(me, uid, cmds::PEER_UNKNOWN))
}

/// Serve requests until Finalize; true when it came.
fn serve(s: &mut TcpStream, who: &Sender) -> Result<bool> {
    let host = pmix_core::sys::hostname();
    let mut dec = FrameDecoder::new();
    let mut buf = vec![0u8; 65536];
    loop {
        while let Some((h, body)) = dec.next_frame()? {
            let c = cmds::decode_request(&body, who);
            let (code, reply) = match &c {
                Ok(Command::Req(Req::JobData { .. })) => {
                    let j = ReplyData::Job(Box::new(job_data(&host)?));
                    (cmd::REQ, replies::encode_reply(cmd::REQ, 0, &j)?)
                }
                Ok(Command::Req(Req::Fence { procs, .. })) => {
                    println!("server: fence over {:?}", procs);
                    (
                        cmd::FENCENB,
                        replies::encode_reply(cmd::FENCENB, 0, &ReplyData::None)?,
                    )
                }
                Ok(Command::Req(Req::Finalize)) => (
                    cmd::FINALIZE,
                    replies::encode_reply(cmd::FINALIZE, 0, &ReplyData::None)?,
                ),
                Ok(Command::DeregEvents { .. }) => continue,
                Ok(other) => {
                    println!("server: not served here: {:?}", other);
                    let st = pmix_sys::PMIX_ERR_NOT_SUPPORTED;
                    (
                        cmd::NOTIFY,
                        replies::encode_reply(cmd::NOTIFY, st, &ReplyData::None)?,
                    )
                }
                Err(e) => {
                    println!("server: bad request (tag {}): {}", h.tag, e.context);
                    let st = e.status();
                    (
                        cmd::NOTIFY,
                        replies::encode_reply(cmd::NOTIFY, st, &ReplyData::None)?,
                    )
                }
            };
            s.write_all(&frame::frame(0, h.tag, &reply)?).map_err(io)?;
            if code == cmd::FINALIZE {
                return Ok(true);
            }
        }
        let n = s.read(&mut buf).map_err(io)?;
        if n == 0 {
            return Ok(false);
        }
        dec.push(&buf[..n]);
    }
}

fn run(client: &str) -> Result<()> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(io)?;
    let port = l.local_addr().map_err(io)?.port();
    let mut child = start(client, port)?;
    let deadline = Instant::now() + Duration::from_secs(30);
    let r = accept(&l, &mut child, deadline).and_then(|mut s| {
        let who = handshake(&mut s)?;
        serve(&mut s, &who)
    });
    let finalized = match r {
        Ok(f) => f,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    let st = loop {
        if let Some(st) = child.try_wait().map_err(io)? {
            break st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(Error::new(
                pmix_sys::PMIX_ERR_TIMEOUT,
                "client did not exit",
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if !finalized || !st.success() {
        return Err(Error::bad_param(format!(
            "client finalized: {}, exit: {}",
            finalized, st
        )));
    }
    Ok(())
}

fn main() {
    let Some(client) = std::env::args().nth(1) else {
        println!("usage: v41_server_probe <openpmix-client>");
        std::process::exit(2);
    };
    match run(&client) {
        Ok(()) => {
            println!("PASS v41 server probe: an OpenPMIx client initialized, fenced and finalized")
        }
        Err(e) => {
            println!(
                "FAIL v41 server probe: {} (status {})",
                e.context,
                e.status()
            );
            std::process::exit(1);
        }
    }
}
