//! `hostile_peer`: a misbehaving peer of a live PMIx server (issue 10, part 2).
//!
//! It finds the server the way a client does (`PMIX_SERVER_URI41`/`4`/`3`/`21`/`2`,
//! `PMIX_NAMESPACE`, `PMIX_RANK`, as `pmixrun` and `PMIx_server_setup_fork` give them)
//! and talks to it over the real Unix socket, using the protocol types of `pmix_core`
//! only to build frames. Every check prints an `ok`/`FAIL` line; the exit status is the
//! verdict. Driven by `tests-c/hostile/run.sh`.
//!
//! ```text
//! hostile_peer attacks <server-pid>   pre-handshake attacks, each on its own connection
//!                                     (run by rank 0 of a job whose ranks 0 and 1 are
//!                                     connected); the server's memory and descriptors
//!                                     are read from /proc/<server-pid>
//! hostile_peer uid-fs                 run as another user: the socket must be unreachable
//! hostile_peer uid-cred <rank>        run as another user that can reach the socket
//!                                     (CAP_DAC_OVERRIDE): the server must refuse the uid
//! hostile_peer flood <server-pid>|parent   a rank of the job: handshake as itself, then a
//!                                     flood of requests it does not read for a while,
//!                                     then fences and finalizes like a well-behaved rank
//! hostile_peer badreq                 a rank of the job: after the handshake it sends a
//!                                     message only a server may send
//! ```

use pmix_core::protocol::{
    self, FrameDecoder, Hello, PeerKind, Put, ReplyData, Req, Request, ServerMsg, Welcome,
};
use pmix_core::{params, Key, Nspace, ProcId, Value};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the server may take to answer or close (generous: CI machines are busy).
const PATIENCE: Duration = Duration::from_secs(20);

struct Checks {
    count: u32,
    failed: u32,
}

impl Checks {
    fn new() -> Self {
        Checks {
            count: 0,
            failed: 0,
        }
    }
    fn check(&mut self, ok: bool, what: impl AsRef<str>) {
        self.count += 1;
        if ok {
            println!("ok   hostile_peer: {}", what.as_ref());
        } else {
            self.failed += 1;
            println!("FAIL hostile_peer: {}", what.as_ref());
        }
    }
    fn done(&self, mode: &str) -> i32 {
        println!(
            "hostile_peer {mode}: {} checks, {} failed",
            self.count, self.failed
        );
        i32::from(self.failed != 0)
    }
}

/// The server's socket path and identity from the environment.
struct Target {
    sock: PathBuf,
    server: String,
    me: ProcId,
}

fn target() -> Result<Target, String> {
    let uri = params::server_uri().ok_or("no PMIX_SERVER_URI* in the environment")?;
    let (server, path) = uri
        .split_once(";unix:")
        .ok_or_else(|| format!("unexpected server URI {uri}"))?;
    let ns = params::get(params::PMIX_NAMESPACE).ok_or("no PMIX_NAMESPACE")?;
    let rank: u32 = params::get(params::PMIX_RANK)
        .and_then(|r| r.parse().ok())
        .ok_or("no PMIX_RANK")?;
    let ns = Nspace::new(ns).map_err(|e| e.to_string())?;
    Ok(Target {
        sock: PathBuf::from(path),
        server: server.to_string(),
        me: ProcId::new(ns, rank),
    })
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    protocol::encode_frame_into(body, &mut out);
    out
}

fn hello_for(p: &ProcId) -> Hello {
    hello_as(p, PeerKind::Client)
}

fn hello_as(p: &ProcId, kind: PeerKind) -> Hello {
    Hello {
        version: protocol::VERSION,
        proc_: p.clone(),
        pid: std::process::id() as i32,
        uid: 0,
        gid: 0,
        kind,
    }
}

/// Deterministic pseudo-random bytes (xorshift), so a failure can be replayed.
fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// `VmRSS`/`VmHWM` (KiB) and the descriptor count of a process, from /proc.
#[derive(Debug, Clone, Copy)]
struct Usage {
    rss_kb: u64,
    hwm_kb: u64,
    fds: usize,
}

fn usage(pid: u32) -> Usage {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0);
    Usage {
        rss_kb: field("VmRSS:"),
        hwm_kb: field("VmHWM:"),
        fds,
    }
}

/// What the server did with a hostile connection.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// It answered `Welcome::Refused` with this status, then closed.
    Refused(i32),
    /// It closed the connection without a word.
    Closed,
    /// It accepted (never right for these attacks).
    Accepted,
    /// Something else: a timeout, an undecodable answer, an error.
    Other(String),
}

/// Read until the server closes: a `Welcome` (if any) decides the outcome.
fn outcome(s: &mut UnixStream) -> Outcome {
    let _ = s.set_read_timeout(Some(PATIENCE));
    let mut dec = FrameDecoder::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut seen: Option<Outcome> = None;
    loop {
        match s.read(&mut buf) {
            Ok(0) => return seen.unwrap_or(Outcome::Closed),
            Ok(n) => {
                dec.push(buf.get(..n).unwrap_or_default());
                while let Ok(Some(f)) = dec.next_frame() {
                    let o = match protocol::decode::<Welcome>(&f) {
                        Ok(Welcome::Refused { status, .. }) => Outcome::Refused(status),
                        Ok(Welcome::Accepted { .. }) => return Outcome::Accepted,
                        Err(e) => Outcome::Other(format!("undecodable answer: {e}")),
                    };
                    seen.get_or_insert(o);
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            // A reset after the server closed on unread input is a close too.
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {
                return seen.unwrap_or(Outcome::Closed)
            }
            Err(e) => return Outcome::Other(format!("read: {e}")),
        }
    }
}

fn connect(t: &Target) -> std::io::Result<UnixStream> {
    let s = UnixStream::connect(&t.sock)?;
    s.set_write_timeout(Some(PATIENCE))?;
    Ok(s)
}

/// Send `bytes` (errors after the server closed are expected and ignored), optionally
/// close our writing side, and report what the server did.
fn attack(t: &Target, bytes: &[u8], shut: bool) -> Outcome {
    let mut s = match connect(t) {
        Ok(s) => s,
        Err(e) => return Outcome::Other(format!("connect: {e}")),
    };
    let _ = s.write_all(bytes);
    if shut {
        let _ = s.shutdown(std::net::Shutdown::Write);
    }
    outcome(&mut s)
}

fn refused_or_closed(o: &Outcome) -> bool {
    matches!(o, Outcome::Refused(st) if *st < 0) || *o == Outcome::Closed
}

// ------------------------------------------------------------------------ attacks

fn attacks(server_pid: u32) -> i32 {
    let mut c = Checks::new();
    let t = match target() {
        Ok(t) => t,
        Err(e) => {
            c.check(false, e);
            return c.done("attacks");
        }
    };
    let ns = t.me.nspace.clone();
    let before = usage(server_pid);
    println!("# server pid {server_pid} before: {before:?}");
    let mut refusals = 0u32;
    // Two connections that never complete a handshake, checked at the end: one says
    // nothing, one stops in the middle of a frame. The server must close both.
    let started = Instant::now();
    let mut lingering: Vec<(&str, Option<UnixStream>)> = Vec::new();
    for (what, bytes) in [
        ("silent", Vec::new()),
        ("half a frame", 1000u32.to_le_bytes().to_vec()),
    ] {
        let s = connect(&t).ok().map(|mut s| {
            let _ = s.write_all(&bytes);
            s
        });
        lingering.push((what, s));
    }

    // Malformed first frames: each must be refused (Welcome::Refused, then close) or
    // closed, and only that connection.
    let valid = protocol::encode(&hello_for(&ProcId::new(ns.clone(), 4242)));
    let mut trailing = valid.clone();
    trailing.extend_from_slice(b"trailing");
    let server_msg = protocol::encode(&ServerMsg::Reply {
        tag: 1,
        status: 0,
        data: ReplyData::None,
    });
    let welcome = protocol::encode(&Welcome::Accepted {
        server: t.me.clone(),
        you: t.me.clone(),
        jobs: Vec::new(),
    });
    let request = protocol::encode(&Request {
        tag: 7,
        req: Req::JobData { nspace: ns.clone() },
    });
    let mut bad_version = hello_for(&t.me);
    bad_version.version = 999;
    let cases: Vec<(&str, Vec<u8>, Option<i32>)> = vec![
        ("random body", frame(&noise(1, 64)), None),
        ("empty frame", frame(&[]), None),
        ("magic only", frame(b"PMXR"), None),
        ("handshake with trailing bytes", frame(&trailing), None),
        (
            "server-only message (Reply) first",
            frame(&server_msg),
            None,
        ),
        ("server-only message (Welcome) first", frame(&welcome), None),
        ("request before the handshake", frame(&request), None),
        (
            "protocol version 999",
            frame(&protocol::encode(&bad_version)),
            Some(pmix_sys::PMIX_ERR_NOT_SUPPORTED),
        ),
    ];
    for (what, bytes, want) in &cases {
        let o = attack(&t, bytes, false);
        let ok = match want {
            Some(w) => o == Outcome::Refused(*w),
            None => refused_or_closed(&o),
        };
        if matches!(o, Outcome::Refused(_)) {
            refusals += 1;
        }
        c.check(ok, format!("{what}: {o:?}"));
    }

    // Identity theft: ranks that are connected (0 is our parent, 1 its peer), another
    // namespace, ranks that do not exist, the server's own name.
    let server_id = t
        .server
        .rsplit_once('.')
        .and_then(|(n, r)| Some(ProcId::new(Nspace::new(n).ok()?, r.parse().ok()?)));
    let mut claims: Vec<(String, ProcId, i32)> = vec![
        (
            "connected rank 0".into(),
            ProcId::new(ns.clone(), 0),
            pmix_sys::PMIX_ERR_EXISTS,
        ),
        (
            "connected rank 1".into(),
            ProcId::new(ns.clone(), 1),
            pmix_sys::PMIX_ERR_EXISTS,
        ),
        (
            "rank 0 of another namespace".into(),
            ProcId::new(Nspace::new("hostile.other.ns").unwrap_or_default(), 0),
            pmix_sys::PMIX_ERR_NOT_FOUND,
        ),
        (
            "nonexistent rank 4242".into(),
            ProcId::new(ns.clone(), 4242),
            pmix_sys::PMIX_ERR_NOT_FOUND,
        ),
        (
            "rank WILDCARD".into(),
            ProcId::new(ns.clone(), pmix_sys::PMIX_RANK_WILDCARD),
            pmix_sys::PMIX_ERR_NOT_FOUND,
        ),
        (
            "rank INVALID".into(),
            ProcId::new(ns.clone(), pmix_sys::PMIX_RANK_INVALID),
            pmix_sys::PMIX_ERR_NOT_FOUND,
        ),
        (
            "the empty namespace".into(),
            ProcId::new(Nspace::default(), 0),
            pmix_sys::PMIX_ERR_NOT_FOUND,
        ),
    ];
    if let Some(s) = server_id {
        claims.push((
            format!("the server's own name {s}"),
            s,
            pmix_sys::PMIX_ERR_NOT_FOUND,
        ));
    }
    // A tool may connect (same uid) but not as a process of the job, nor without a rank.
    let tool_claims = [
        (
            "a tool naming itself rank 1",
            hello_as(&ProcId::new(ns.clone(), 1), PeerKind::ToolNamed),
            pmix_sys::PMIX_ERR_EXISTS,
        ),
        (
            "a tool naming itself rank WILDCARD of a new namespace",
            hello_as(
                &ProcId::new(
                    Nspace::new("hostile.tool.ns").unwrap_or_default(),
                    pmix_sys::PMIX_RANK_WILDCARD,
                ),
                PeerKind::ToolNamed,
            ),
            pmix_sys::PMIX_ERR_BAD_PARAM,
        ),
    ];
    for (what, h, want) in &tool_claims {
        let o = attack(&t, &frame(&protocol::encode(h)), false);
        refusals += u32::from(matches!(o, Outcome::Refused(_)));
        c.check(
            o == Outcome::Refused(*want),
            format!("{what}: {o:?} (want Refused({want}))"),
        );
    }
    for (what, p, want) in &claims {
        let o = attack(&t, &frame(&protocol::encode(&hello_for(p))), false);
        refusals += u32::from(matches!(o, Outcome::Refused(_)));
        c.check(
            o == Outcome::Refused(*want),
            format!("claims {what}: {o:?} (want Refused({want}))"),
        );
    }

    // A handshake that arrives one byte at a time is reassembled (then refused: the
    // identity does not exist).
    {
        let bytes = frame(&valid);
        let o = match connect(&t) {
            Ok(mut s) => {
                for b in &bytes {
                    let _ = s.write_all(std::slice::from_ref(b));
                    std::thread::sleep(Duration::from_millis(1));
                }
                outcome(&mut s)
            }
            Err(e) => Outcome::Other(e.to_string()),
        };
        refusals += u32::from(matches!(o, Outcome::Refused(_)));
        c.check(
            o == Outcome::Refused(pmix_sys::PMIX_ERR_NOT_FOUND),
            format!("handshake sent byte by byte is reassembled and refused: {o:?}"),
        );
    }

    // Length prefixes beyond the limit: closed after the 4 bytes, nothing allocated.
    for len in [u32::MAX, 1u32 << 31, (protocol::MAX_FRAME as u32) + 1] {
        let o = attack(&t, &len.to_le_bytes(), false);
        c.check(o == Outcome::Closed, format!("length prefix {len}: {o:?}"));
    }
    // Pure noise (its first four bytes make a huge length).
    let o = attack(&t, &noise(7, 4096), false);
    c.check(refused_or_closed(&o), format!("4 KiB of noise: {o:?}"));

    // Truncated frames: the peer gives up in the middle of a frame.
    let mut partial = 1000u32.to_le_bytes().to_vec();
    partial.extend_from_slice(b"0123456789");
    let o = attack(&t, &partial, true);
    c.check(
        o == Outcome::Closed,
        format!("frame cut after 10 of 1000 bytes, then EOF: {o:?}"),
    );
    let whole = frame(&protocol::encode(&hello_for(&t.me)));
    let o = attack(&t, whole.get(..whole.len() / 2).unwrap_or_default(), true);
    c.check(
        o == Outcome::Closed,
        format!("handshake cut in half, then EOF: {o:?}"),
    );
    let o = attack(&t, &[0x10, 0], true);
    c.check(
        o == Outcome::Closed,
        format!("half a length prefix, then EOF: {o:?}"),
    );
    let o = attack(&t, &[], true);
    c.check(o == Outcome::Closed, format!("EOF before anything: {o:?}"));

    // A large frame before the handshake: an unauthenticated peer must not make the
    // server buffer it (a handshake is a few hundred bytes).
    {
        let len: u32 = 48 << 20;
        let o = match connect(&t) {
            Ok(mut s) => {
                let _ = s.write_all(&len.to_le_bytes());
                let chunk = vec![0u8; 1 << 20];
                for _ in 0..48 {
                    if s.write_all(&chunk).is_err() {
                        break;
                    }
                }
                outcome(&mut s)
            }
            Err(e) => Outcome::Other(e.to_string()),
        };
        c.check(
            refused_or_closed(&o),
            format!("a 48 MiB frame before the handshake: {o:?}"),
        );
    }
    let after_big = usage(server_pid);
    println!("# after the large frames: {after_big:?}");

    // Many connections at once that never finish a handshake, then many refused
    // handshakes in a row: the server keeps answering and gives back every descriptor.
    {
        let base = usage(server_pid).fds;
        let mut idle = Vec::new();
        for i in 0..200 {
            if let Ok(mut s) = connect(&t) {
                if i % 2 == 1 {
                    let _ = s.write_all(&partial);
                }
                idle.push(s);
            }
        }
        c.check(
            idle.len() == 200,
            format!("{} of 200 idle connections opened", idle.len()),
        );
        // The server is still responsive while they hang around.
        let o = attack(&t, &frame(&valid), false);
        refusals += u32::from(matches!(o, Outcome::Refused(_)));
        c.check(
            o == Outcome::Refused(pmix_sys::PMIX_ERR_NOT_FOUND),
            format!("a handshake is answered while 200 connections idle: {o:?}"),
        );
        let during = usage(server_pid).fds;
        drop(idle);
        let t0 = Instant::now();
        let mut now = usage(server_pid).fds;
        while now > base + 2 && t0.elapsed() < PATIENCE {
            std::thread::sleep(Duration::from_millis(20));
            now = usage(server_pid).fds;
        }
        c.check(
            now <= base + 2,
            format!("server descriptors {base} -> {during} with 200 idle connections -> {now} after they closed"),
        );

        let n = 1000;
        let t0 = Instant::now();
        let mut refused = 0;
        for _ in 0..n {
            if attack(&t, &frame(&valid), false) == Outcome::Refused(pmix_sys::PMIX_ERR_NOT_FOUND) {
                refused += 1;
            }
        }
        refusals += refused;
        c.check(
            refused == n,
            format!(
                "{refused} of {n} handshakes in a row refused ({:.2} s)",
                t0.elapsed().as_secs_f64()
            ),
        );

        // Eight threads at once, garbage and false claims mixed.
        let bad = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8u64)
            .map(|k| {
                let (sock, bad) = (t.sock.clone(), bad.clone());
                let hello = frame(&valid);
                std::thread::spawn(move || {
                    let t = Target {
                        sock,
                        server: String::new(),
                        me: ProcId::default(),
                    };
                    for i in 0..100u64 {
                        let bytes = if i % 2 == 0 {
                            hello.clone()
                        } else {
                            frame(&noise(k * 1000 + i, 200))
                        };
                        if !refused_or_closed(&attack(&t, &bytes, false)) {
                            bad.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        for th in threads {
            let _ = th.join();
        }
        refusals += 8 * 50;
        c.check(
            bad.load(Ordering::Relaxed) == 0,
            format!(
                "800 concurrent hostile connections: {} not refused or closed",
                bad.load(Ordering::Relaxed)
            ),
        );
        let t0 = Instant::now();
        let mut now = usage(server_pid).fds;
        while now > base + 2 && t0.elapsed() < PATIENCE {
            std::thread::sleep(Duration::from_millis(20));
            now = usage(server_pid).fds;
        }
        c.check(
            now <= base + 2,
            format!("server descriptors back to {now} (base {base})"),
        );
    }

    for (what, s) in lingering {
        let o = s.map_or(Outcome::Other("connect failed".into()), |mut s| {
            outcome(&mut s)
        });
        c.check(
            o == Outcome::Closed,
            format!(
                "a connection that stays {what} without a handshake is closed by the server: \
                 {o:?} after {:.1} s",
                started.elapsed().as_secs_f64()
            ),
        );
    }
    let after = usage(server_pid);
    println!("# server after: {after:?}");
    // The server must not have buffered the 48 MiB frame nor anything like it.
    let grew = after.hwm_kb.saturating_sub(before.rss_kb);
    c.check(
        grew < 24 * 1024,
        format!(
            "server peak memory grew by {} KiB (VmHWM {} KiB, VmRSS before {} KiB; limit 24 MiB)",
            grew, after.hwm_kb, before.rss_kb
        ),
    );
    println!("# refusals expected in the server's log: at least {refusals}");
    c.done("attacks")
}

// ---------------------------------------------------------------------------- uid

fn uid_fs() -> i32 {
    let mut c = Checks::new();
    match target() {
        Err(e) => c.check(false, e),
        Ok(t) => match UnixStream::connect(&t.sock) {
            Err(e) => c.check(
                e.kind() == ErrorKind::PermissionDenied,
                format!("uid {} cannot reach the socket: {e}", uid_of_self()),
            ),
            Ok(mut s) => {
                let o = outcome(&mut s);
                c.check(
                    false,
                    format!("uid {} reached the socket: {o:?}", uid_of_self()),
                );
            }
        },
    }
    c.done("uid-fs")
}

fn uid_cred(rank: u32) -> i32 {
    let mut c = Checks::new();
    match target() {
        Err(e) => c.check(false, e),
        Ok(t) => {
            let p = ProcId::new(t.me.nspace.clone(), rank);
            let o = attack(&t, &frame(&protocol::encode(&hello_for(&p))), false);
            c.check(
                o == Outcome::Refused(pmix_sys::PMIX_ERR_INVALID_CRED),
                format!("uid {} claiming {p}: {o:?}", uid_of_self()),
            );
            // Nor as a tool.
            let o = attack(
                &t,
                &frame(&protocol::encode(&hello_as(&p, PeerKind::ToolAssign))),
                false,
            );
            c.check(
                o == Outcome::Refused(pmix_sys::PMIX_ERR_INVALID_CRED),
                format!("uid {} as a tool: {o:?}", uid_of_self()),
            );
        }
    }
    c.done("uid-cred")
}

fn uid_of_self() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(str::to_string)
        })
        .unwrap_or_default()
}

// ------------------------------------------------------------------- legit session

/// A connection that passed the handshake as the process's own identity.
struct Session {
    s: UnixStream,
    dec: FrameDecoder,
    me: ProcId,
}

impl Session {
    fn open(t: &Target) -> Result<Session, String> {
        let mut s = connect(t).map_err(|e| format!("connect: {e}"))?;
        s.write_all(&frame(&protocol::encode(&hello_for(&t.me))))
            .map_err(|e| format!("send handshake: {e}"))?;
        s.set_read_timeout(Some(PATIENCE))
            .map_err(|e| e.to_string())?;
        let mut me = Session {
            s,
            dec: FrameDecoder::new(),
            me: t.me.clone(),
        };
        let f = me.next()?;
        match protocol::decode::<Welcome>(&f) {
            Ok(Welcome::Accepted { .. }) => Ok(me),
            other => Err(format!("handshake as {}: {other:?}", t.me)),
        }
    }
    fn send(&mut self, tag: u32, req: Req) -> Result<(), String> {
        self.s
            .write_all(&frame(&protocol::encode(&Request { tag, req })))
            .map_err(|e| format!("send: {e}"))
    }
    fn next(&mut self) -> Result<Vec<u8>, String> {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            if let Some(f) = self.dec.next_frame().map_err(|e| e.to_string())? {
                return Ok(f);
            }
            match self.s.read(&mut buf) {
                Ok(0) => return Err("the server closed the connection".into()),
                Ok(n) => self.dec.push(buf.get(..n).unwrap_or_default()),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("read: {e}")),
            }
        }
    }
    /// The reply with `tag` (events and other replies before it are skipped).
    fn reply(&mut self, tag: u32) -> Result<(i32, ReplyData), String> {
        loop {
            let f = self.next()?;
            if let Ok(ServerMsg::Reply {
                tag: t,
                status,
                data,
            }) = protocol::decode::<ServerMsg>(&f)
            {
                if t == tag {
                    return Ok((status, data));
                }
            }
        }
    }
    fn fence(&mut self, tag: u32) -> Result<i32, String> {
        let all = ProcId::new(self.me.nspace.clone(), pmix_sys::PMIX_RANK_WILDCARD);
        self.send(
            tag,
            Req::Fence {
                procs: vec![all],
                collect: true,
                timeout_ms: 0,
                info: Vec::new(),
            },
        )?;
        Ok(self.reply(tag)?.0)
    }
    fn finalize(&mut self, tag: u32) -> Result<i32, String> {
        self.send(tag, Req::Finalize)?;
        Ok(self.reply(tag)?.0)
    }
}

/// The flooding rank. The well-behaved ranks fence twice over the whole job (so this
/// rank takes part in both) and run fences among themselves in between, while this one
/// floods.
fn flood(server_pid: u32) -> i32 {
    let mut c = Checks::new();
    let r = (|| -> Result<(), String> {
        let t = target()?;
        let mut ses = Session::open(&t)?;
        c.check(true, format!("handshake as {}", t.me));
        // A large value of our own: every Get of it costs the server 1 MiB of reply.
        let big = Key::new("hostile.big").map_err(|e| e.to_string())?;
        ses.send(
            0,
            Req::Commit {
                puts: vec![Put {
                    key: big.clone(),
                    scope: pmix_sys::PMIX_GLOBAL,
                    value: Value::ByteObject(vec![0x5a; 1 << 20]),
                }],
            },
        )?;
        c.check(
            ses.fence(1)? == pmix_sys::PMIX_SUCCESS,
            "first fence with the good ranks",
        );
        let before = usage(server_pid);
        println!("# server before the flood: {before:?}");

        // 1) Requests that each make the server reply with 1 MiB, sent by another thread
        //    while nobody reads the replies for a while.
        let n_big: u32 = 300;
        let writer = ses.s.try_clone().map_err(|e| e.to_string())?;
        let me = t.me.clone();
        let sent = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (sent2, stop2) = (sent.clone(), stop.clone());
        let key2 = big.clone();
        let th = std::thread::spawn(move || {
            let mut w = writer;
            let _ = w.set_write_timeout(Some(Duration::from_secs(120)));
            for i in 0..n_big {
                if stop2.load(Ordering::Relaxed) {
                    break;
                }
                let req = Request {
                    tag: 1000 + i,
                    req: Req::Get {
                        target: me.clone(),
                        key: Some(key2.clone()),
                        immediate: true,
                        timeout_ms: 0,
                        info: Vec::new(),
                    },
                };
                if w.write_all(&frame(&protocol::encode(&req))).is_err() {
                    break;
                }
                sent2.fetch_add(1, Ordering::Relaxed);
            }
        });
        std::thread::sleep(Duration::from_secs(2));
        let mid = usage(server_pid);
        println!(
            "# {} of {n_big} 1-MiB Gets sent, none read: server {mid:?}",
            sent.load(Ordering::Relaxed)
        );
        let grew = mid.hwm_kb.saturating_sub(before.rss_kb);
        c.check(
            grew < 64 * 1024,
            format!(
                "server memory while replies are not read grew by {grew} KiB (limit 64 MiB; \
                 {n_big} MiB of replies were asked for)"
            ),
        );
        let mut got = 0u32;
        let mut good = 0u32;
        while got < n_big {
            match ses.reply(1000 + got) {
                Ok((st, ReplyData::Data(v))) => {
                    got += 1;
                    let size = v
                        .first()
                        .map(|i| match &i.value {
                            Value::ByteObject(b) => b.len(),
                            _ => 0,
                        })
                        .unwrap_or(0);
                    good += u32::from(st == pmix_sys::PMIX_SUCCESS && size == 1 << 20);
                }
                Ok((st, _)) => {
                    got += 1;
                    println!("# Get {got}: status {st} without data");
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    let _ = th.join();
                    return Err(format!("after {got} replies: {e}"));
                }
            }
        }
        let _ = th.join();
        c.check(
            good == n_big,
            format!("{good} of {n_big} 1-MiB replies arrived whole once read"),
        );

        // 2) A stream of small requests read as fast as they come (the good ranks run
        //    their fences meanwhile).
        let n_small: u32 = 20_000;
        let writer = ses.s.try_clone().map_err(|e| e.to_string())?;
        let ns = t.me.nspace.clone();
        let me = t.me.clone();
        let small = Key::new("hostile.small").map_err(|e| e.to_string())?;
        let th = std::thread::spawn(move || {
            let mut w = writer;
            let mut batch = Vec::new();
            for i in 0..n_small {
                let req = match i % 3 {
                    0 => Req::JobData { nspace: ns.clone() },
                    1 => Req::Get {
                        target: me.clone(),
                        key: Key::new(format!("missing.{i}")).ok(),
                        immediate: true,
                        timeout_ms: 0,
                        info: Vec::new(),
                    },
                    _ => Req::Commit {
                        puts: vec![Put {
                            key: small.clone(),
                            scope: pmix_sys::PMIX_LOCAL,
                            value: Value::Uint(i),
                        }],
                    },
                };
                // Commits have no reply: give them tag 0 as a client does.
                let tag = if i % 3 == 2 { 0 } else { 100_000 + i };
                protocol::encode_frame_into(&protocol::encode(&Request { tag, req }), &mut batch);
                if batch.len() > 64 * 1024 {
                    if w.write_all(&batch).is_err() {
                        return;
                    }
                    batch.clear();
                }
            }
            let _ = w.write_all(&batch);
        });
        let t0 = Instant::now();
        let mut replies = 0u32;
        let want = (0..n_small).filter(|i| i % 3 != 2).count() as u32;
        while replies < want {
            let f = ses.next()?;
            if let Ok(ServerMsg::Reply { .. }) = protocol::decode::<ServerMsg>(&f) {
                replies += 1;
            }
        }
        let _ = th.join();
        c.check(
            true,
            format!(
                "{n_small} small requests ({want} replies) in {:.2} s",
                t0.elapsed().as_secs_f64()
            ),
        );
        let after = usage(server_pid);
        println!("# server after the flood: {after:?}");

        // 3) Requests the server parks: Gets of namespaces nobody registers and fences
        //    (each with a tag of its own) that rank 0 never enters. Measured, not judged
        //    (docs/ROBUSTNESS.md: parked requests are not limited per client).
        let n_parked: u32 = 10_000;
        let mut batch = Vec::new();
        let zero = ProcId::new(t.me.nspace.clone(), 0);
        for i in 0..n_parked {
            let req = if i % 2 == 0 {
                Req::Get {
                    target: ProcId::new(
                        Nspace::new(format!("hostile.ghost.{i}")).map_err(|e| e.to_string())?,
                        0,
                    ),
                    key: Some(big.clone()),
                    immediate: false,
                    timeout_ms: 0,
                    info: Vec::new(),
                }
            } else {
                Req::Fence {
                    procs: vec![zero.clone(), t.me.clone()],
                    collect: false,
                    timeout_ms: 0,
                    info: vec![pmix_core::Info::new(
                        protocol::FENCE_TAG,
                        Value::String(Some(format!("hostile.{i}").into_bytes())),
                    )
                    .map_err(|e| e.to_string())?],
                }
            };
            protocol::encode_frame_into(
                &protocol::encode(&Request {
                    tag: 500_000 + i,
                    req,
                }),
                &mut batch,
            );
        }
        ses.s.write_all(&batch).map_err(|e| e.to_string())?;
        // A JobData request behind them tells when the server has read them all.
        ses.send(
            4,
            Req::JobData {
                nspace: t.me.nspace.clone(),
            },
        )?;
        let _ = ses.reply(4)?;
        let parked = usage(server_pid);
        println!(
            "# {n_parked} parked requests ({} KiB sent): server VmRSS {} -> {} KiB",
            batch.len() / 1024,
            after.rss_kb,
            parked.rss_kb
        );
        c.check(
            ses.fence(2)? == pmix_sys::PMIX_SUCCESS,
            "second fence with the good ranks",
        );
        c.check(ses.finalize(3)? == pmix_sys::PMIX_SUCCESS, "finalize");
        Ok(())
    })();
    if let Err(e) = r {
        c.check(false, e);
    }
    c.done("flood")
}

/// A rank that, once accepted, sends a message only the server may send.
fn badreq() -> i32 {
    let mut c = Checks::new();
    let r = (|| -> Result<(), String> {
        let t = target()?;
        let mut ses = Session::open(&t)?;
        let msg = protocol::encode(&ServerMsg::Reply {
            tag: 1,
            status: 0,
            data: ReplyData::None,
        });
        ses.s.write_all(&frame(&msg)).map_err(|e| e.to_string())?;
        let closed = matches!(ses.next(), Err(e) if e.contains("closed") || e.contains("reset"));
        c.check(
            closed,
            "the server closes a client that sends a server-only message",
        );
        Ok(())
    })();
    if let Err(e) = r {
        c.check(false, e);
    }
    c.done("badreq")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // A number, or "parent" for our parent (pmixrun, when we are a rank of its job).
    let pid = |i: usize| match args.get(i).map(String::as_str) {
        Some("parent") => Some(std::os::unix::process::parent_id()),
        other => other.and_then(|p| p.parse::<u32>().ok()),
    };
    let code = match (args.first().map(String::as_str), pid(1)) {
        (Some("attacks"), Some(p)) => attacks(p),
        (Some("flood"), Some(p)) => flood(p),
        (Some("uid-fs"), _) => uid_fs(),
        (Some("uid-cred"), Some(r)) => uid_cred(r),
        (Some("badreq"), _) => badreq(),
        _ => {
            eprintln!("usage: hostile_peer attacks|flood <server-pid> | uid-fs | uid-cred <rank> | badreq");
            2
        }
    };
    std::process::exit(code);
}
