//! OpenPMIx's connection handshake, both roles, as pure functions; and the rendezvous
//! (`PMIX_SERVER_URI41` …) a client reads to find its server.
//!
//! The client's connect message is a 16-byte header in *host* byte order (pindex −1,
//! tag `0xffffffff`, the payload length) and a raw payload: psec module name, the
//! credential (`u32` big-endian length, bytes), a process-type flag, a flag-dependent
//! identity, the version string, the bfrops module name, the buffer type byte, the gds
//! module name, optionally a packed info list (tools), and — from 4.2.x clients — one
//! zero byte more (their length counts the flag byte twice).
//!
//! A simple client gets `u32` status then `u32` pindex, both big-endian; a tool gets the
//! status, an assigned identity if it asked for one, the server's identity (namespaces
//! as fixed 256-byte fields) and a `u32` security status.

use super::frame::HEADER_LEN;
use crate::codec::v41::{Packer, Unpacker};
use crate::error::{Error, Result};
use crate::value::{Info, Nspace, ProcId, Rank};
use pmix_sys as sys;
use std::net::{SocketAddr, ToSocketAddrs};

/// The only bfrops module this side speaks.
pub const BFROPS: &str = "v41";
/// The gds module our client chooses (job data travels in messages).
pub const GDS: &str = "hash";
/// The gds modules our server serves: hash, and ds21 (OpenPMIx 4.2.x's shared-memory
/// store, which the server writes per namespace: `server::v41::ds21`).
pub const SERVER_GDS: [&str; 2] = ["hash", "ds21"];
/// The version string our client announces (a 4.2 peer: the server then speaks 4.2).
pub const VERSION: &str = "4.2.2";
/// `PMIX_BFROP_BUFFER_NON_DESC`.
pub const BUFFER_NON_DESC: u8 = 1;
/// `PMIX_BFROP_BUFFER_FULLY_DESC`.
pub const BUFFER_FULLY_DESC: u8 = 2;
/// Largest connect payload accepted (OpenPMIx's `PMIX_MAX_CRED_SIZE`).
pub const MAX_HELLO: usize = 131_072;
/// Width of a namespace field in a tool's handshake reply.
pub const NSPACE_FIELD: usize = 256;
/// `PMIX_ERR_READY_FOR_HANDSHAKE`: the server wants a psec exchange (not implemented).
pub const READY_FOR_HANDSHAKE: i32 = -14;

/// The process-type flags a connect message carries.
pub mod flag {
    /// A client the host registered (identity: nspace, rank).
    pub const SIMPLE_CLIENT: u8 = 0;
    /// A pre-4.0 tool (uid, gid).
    pub const LEGACY_TOOL: u8 = 1;
    /// A pre-4.0 launcher (uid, gid).
    pub const LEGACY_LAUNCHER: u8 = 2;
    /// A tool asking for an identity (uid, gid).
    pub const TOOL_NEEDS_ID: u8 = 3;
    /// A tool that was given an identity (uid, gid, nspace, rank).
    pub const TOOL_GIVEN_ID: u8 = 4;
    /// A tool that is also a client (uid, gid, nspace, rank).
    pub const TOOL_CLIENT: u8 = 5;
    /// A launcher asking for an identity (uid, gid).
    pub const LAUNCHER_NEEDS_ID: u8 = 6;
    /// A launcher that was given an identity (uid, gid, nspace, rank).
    pub const LAUNCHER_GIVEN_ID: u8 = 7;
    /// A launcher that is also a client (uid, gid, nspace, rank).
    pub const LAUNCHER_CLIENT: u8 = 8;
    /// A singleton (uid, gid, nspace, rank).
    pub const SINGLETON_CLIENT: u8 = 9;
}

/// Where a client finds its server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendezvous {
    /// The server's identity (its namespace and rank).
    pub server: ProcId,
    /// Its listening address.
    pub addr: SocketAddr,
    /// The variable it came from (`PMIX_SERVER_URI41`, …).
    pub var: &'static str,
}

/// The URI variables a 4.2 client reads, newest first, with the bfrops module each one
/// implies.
pub const URI_VARS: &[(&str, &str)] = &[
    ("PMIX_SERVER_URI41", "v41"),
    ("PMIX_SERVER_URI4", "v4"),
    ("PMIX_SERVER_URI3", "v3"),
    ("PMIX_SERVER_URI21", "v21"),
    ("PMIX_SERVER_URI2", "v20"),
];

/// Parse `"<nspace>.<rank>;tcp4://<ip>:<port>"` (or `tcp6://[ip]:port`): the rank is
/// after the last `.` of the part before `;`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` naming what is malformed (no `;`, no rank, another transport,
/// an address that does not parse).
pub fn parse_uri(uri: &str) -> Result<(ProcId, SocketAddr)> {
    let bad = |what: &str| Error::bad_param(format!("server URI {:?}: {}", uri, what));
    let (id, addr) = uri.split_once(';').ok_or_else(|| bad("no ';'"))?;
    let (ns, rank) = id.rsplit_once('.').ok_or_else(|| bad("no '.rank'"))?;
    let rank: Rank = rank.parse().map_err(|_| bad("rank is not a number"))?;
    let nspace = Nspace::new(ns).map_err(|_| bad("invalid namespace"))?;
    let hostport = addr
        .strip_prefix("tcp4://")
        .or_else(|| addr.strip_prefix("tcp6://"))
        .ok_or_else(|| bad("not a tcp4:// or tcp6:// address"))?;
    let sa = hostport
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| bad("address does not parse"))?;
    Ok((ProcId::new(nspace, rank), sa))
}

/// Find the server from the environment as a 4.2 client does (`URI41` first). Only
/// `URI41` names the v41 module; a server offering only older ones is refused.
///
/// # Errors
/// `PMIX_ERR_UNREACH` when no URI variable is set; `PMIX_ERR_NOT_SUPPORTED` when the
/// newest one implies a bfrops module other than v41; the [`parse_uri`] error.
pub fn rendezvous_from_env(getenv: impl Fn(&str) -> Option<String>) -> Result<Rendezvous> {
    for (var, module) in URI_VARS {
        if let Some(uri) = getenv(var) {
            if *module != BFROPS {
                return Err(Error::not_supported(format!(
                    "the OpenPMIx server offers bfrops {} ({}); only v41 is implemented",
                    module, var
                )));
            }
            let (server, addr) = parse_uri(&uri)?;
            return Ok(Rendezvous { server, addr, var });
        }
    }
    Err(Error::new(
        sys::PMIX_ERR_UNREACH,
        "no PMIX_SERVER_URI41 (or older) in the environment",
    ))
}

/// Pick the gds module from the server's `PMIX_GDS_MODULE` list (comma separated).
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` when the server does not offer `hash`.
pub fn choose_gds(offered: Option<&str>) -> Result<&'static str> {
    match offered {
        None => Ok(GDS),
        Some(list) if list.split(',').any(|m| m.trim() == GDS) => Ok(GDS),
        Some(list) => Err(Error::not_supported(format!(
            "the server offers gds {:?}; only hash is implemented",
            list
        ))),
    }
}

/// The security modules this side speaks, in the order a client prefers them: native
/// (the uid and gid it claims; our server checks them against the kernel), none, and
/// munge (a credential from the site's munged, [`crate::sys::munge`]) where a server
/// offers nothing else (Slurm sites).
pub const PSEC: &[&str] = &["native", "none", "munge"];

/// Pick the security module from the server's `PMIX_SECURITY_MODE` list.
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` when the server offers none of [`PSEC`].
pub fn choose_psec(offered: Option<&str>) -> Result<&'static str> {
    let list = offered.unwrap_or("native");
    for m in PSEC {
        if list.split(',').any(|x| x.trim() == *m) {
            return Ok(m);
        }
    }
    Err(Error::not_supported(format!(
        "the server offers security {:?}; only native, none and munge are implemented",
        list
    )))
}

/// The credential a client sends in the security mode `psec` other than native: none
/// for `none`, a fresh munge credential for `munge` (a round trip to munged).
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` naming why no munge credential could be made (libmunge not
/// installed, munged not running) or that `psec` is none of [`PSEC`].
pub fn credential(psec: &str) -> Result<Vec<u8>> {
    match psec {
        "none" => Ok(Vec::new()),
        "munge" => crate::sys::munge::encode().map_err(|e| {
            let hint = match e.code {
                crate::sys::munge::EMUNGE_SOCKET => " (is munged running?)",
                _ => "",
            };
            Error::not_supported(format!(
                "the OpenPMIx server offers only munge security, but no munge credential \
                 could be made: {}{}",
                e, hint
            ))
        }),
        "native" => Ok(native_credential(crate::sys::euid(), crate::sys::egid())),
        other => Err(Error::not_supported(format!("security {:?}", other))),
    }
}

/// The native credential: effective uid then gid, host byte order.
pub fn native_credential(uid: u32, gid: u32) -> Vec<u8> {
    let mut c = uid.to_ne_bytes().to_vec();
    c.extend_from_slice(&gid.to_ne_bytes());
    c
}

/// The uid and gid a native credential claims.
///
/// # Errors
/// `PMIX_ERR_INVALID_CRED` unless it is 8 bytes.
pub fn parse_native_credential(c: &[u8]) -> Result<(u32, u32)> {
    if c.len() != 8 {
        return Err(Error::new(
            sys::PMIX_ERR_INVALID_CRED,
            format!("native credential of {} bytes (want 8)", c.len()),
        ));
    }
    let uid = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
    let gid = u32::from_ne_bytes([c[4], c[5], c[6], c[7]]);
    Ok((uid, gid))
}

/// A client's connect message.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientHello {
    /// psec module (`native`, `none`, `munge`).
    pub psec: String,
    /// The credential's bytes.
    pub credential: Vec<u8>,
    /// Process-type flag ([`flag`]).
    pub flag: u8,
    /// uid and gid (tools, launchers, singletons).
    pub ids: Option<(u32, u32)>,
    /// Identity (simple clients, tools given one, singletons).
    pub proc_: Option<ProcId>,
    /// The peer's version string (`4.2.2rc2`).
    pub version: String,
    /// bfrops module name.
    pub bfrops: String,
    /// Buffer type ([`BUFFER_NON_DESC`] or [`BUFFER_FULLY_DESC`]).
    pub buffer_type: u8,
    /// gds module name.
    pub gds: String,
    /// A tool's infos (`PMIX_PROC_PID`, `PMIX_CMD_LINE`, …).
    pub info: Vec<Info>,
    /// The 4.2.x trailing zero byte.
    pub pad: bool,
}

impl ClientHello {
    /// A simple client's connect message as Debian's 4.2.2 sends it: native security,
    /// v41, NON_DESC, hash, with the trailing pad byte.
    pub fn simple(me: ProcId, uid: u32, gid: u32) -> ClientHello {
        ClientHello {
            psec: "native".into(),
            credential: native_credential(uid, gid),
            flag: flag::SIMPLE_CLIENT,
            ids: None,
            proc_: Some(me),
            version: VERSION.into(),
            bfrops: BFROPS.into(),
            buffer_type: BUFFER_NON_DESC,
            gds: GDS.into(),
            info: Vec::new(),
            pad: true,
        }
    }
}

/// What identity fields a flag implies: (uid+gid, nspace+rank).
fn id_fields(flag: u8) -> Result<(bool, bool)> {
    Ok(match flag {
        flag::SIMPLE_CLIENT => (false, true),
        flag::LEGACY_TOOL | flag::LEGACY_LAUNCHER => (true, false),
        flag::TOOL_NEEDS_ID | flag::LAUNCHER_NEEDS_ID => (true, false),
        4..=9 => (true, true),
        f => {
            return Err(Error::new(
                sys::PMIX_ERR_NOT_SUPPORTED,
                format!("v41 handshake: unknown process type flag {}", f),
            ))
        }
    })
}

fn cstr(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

/// The whole connect message (header and payload), ready to write.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` when the identity fields do not match the flag, or a string
/// holds a NUL; a packing error of the tool infos.
pub fn encode_client_hello(h: &ClientHello) -> Result<Vec<u8>> {
    let (want_ids, want_proc) = id_fields(h.flag)?;
    if want_ids != h.ids.is_some() || want_proc != h.proc_.is_some() {
        return Err(Error::bad_param(
            "v41 handshake: identity does not match flag",
        ));
    }
    let strs = [&h.psec, &h.version, &h.bfrops, &h.gds];
    if strs.iter().any(|s| s.as_bytes().contains(&0)) {
        return Err(Error::bad_param("v41 handshake: NUL inside a name"));
    }
    let mut p = Vec::new();
    cstr(&mut p, &h.psec);
    p.extend_from_slice(&(h.credential.len() as u32).to_be_bytes());
    p.extend_from_slice(&h.credential);
    p.push(h.flag);
    if let Some((uid, gid)) = h.ids {
        p.extend_from_slice(&uid.to_be_bytes());
        p.extend_from_slice(&gid.to_be_bytes());
    }
    if let Some(me) = &h.proc_ {
        cstr(&mut p, me.nspace.as_str());
        p.extend_from_slice(&me.rank.to_be_bytes());
    }
    cstr(&mut p, &h.version);
    cstr(&mut p, &h.bfrops);
    p.push(h.buffer_type);
    cstr(&mut p, &h.gds);
    if !h.info.is_empty() {
        let mut k = Packer::new();
        k.int(1);
        k.size(h.info.len());
        k.int(h.info.len() as i64);
        h.info.iter().try_for_each(|i| k.info(i))?;
        p.extend_from_slice(k.as_bytes());
    }
    if h.pad {
        p.push(0);
    }
    let mut out = Vec::with_capacity(HEADER_LEN + p.len());
    out.extend_from_slice(&(-1i32).to_ne_bytes());
    out.extend_from_slice(&u32::MAX.to_ne_bytes());
    out.extend_from_slice(&(p.len() as u32).to_ne_bytes());
    out.extend_from_slice(&[0u8; 4]);
    out.extend_from_slice(&p);
    Ok(out)
}

/// The payload length a connect header announces (host byte order).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` when it is not a connect header (pindex −1, tag `0xffffffff`)
/// or the length is 0 or over [`MAX_HELLO`].
pub fn hello_len(header: &[u8; HEADER_LEN]) -> Result<usize> {
    let word = |i: usize| [header[i], header[i + 1], header[i + 2], header[i + 3]];
    if i32::from_ne_bytes(word(0)) != -1 || u32::from_ne_bytes(word(4)) != u32::MAX {
        return Err(Error::bad_param("not an OpenPMIx connect header"));
    }
    let n = u32::from_ne_bytes(word(8)) as usize;
    if n == 0 || n > MAX_HELLO {
        return Err(Error::bad_param(format!(
            "OpenPMIx connect message of {} bytes (limit {})",
            n, MAX_HELLO
        )));
    }
    Ok(n)
}

/// Reads the raw fields of a connect payload.
struct Raw<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Raw<'a> {
    fn short(&self, what: &str) -> Error {
        Error::bad_param(format!("v41 handshake truncated in the {}", what))
    }
    fn cstr(&mut self, what: &str) -> Result<String> {
        let rest = &self.b[self.pos..];
        let end = rest
            .iter()
            .position(|&c| c == 0)
            .ok_or_else(|| self.short(what))?;
        let s = String::from_utf8(rest[..end].to_vec())
            .map_err(|_| Error::bad_param(format!("v41 handshake: {} not UTF-8", what)))?;
        self.pos += end + 1;
        Ok(s)
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if self.b.len() - self.pos < n {
            return Err(self.short(what));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u32(&mut self, what: &str) -> Result<u32> {
        let s = self.take(4, what)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
}

/// (major, minor) of a version string such as `4.2.2rc2`.
pub fn version_of(v: &str) -> Option<(u32, u32)> {
    let mut it = v.split('.');
    let num = |s: Option<&str>| -> Option<u32> {
        let s = s?;
        let d: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        d.parse().ok()
    };
    Some((num(it.next())?, num(it.next())?))
}

/// Parse a connect payload (the bytes after the header). Only the syntax is checked;
/// [`check_client_hello`] says whether this side can serve the peer.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a truncated or malformed payload.
pub fn decode_client_hello(payload: &[u8]) -> Result<ClientHello> {
    let mut r = Raw { b: payload, pos: 0 };
    let psec = r.cstr("psec name")?;
    let clen = r.u32("credential length")? as usize;
    let credential = r.take(clen, "credential")?.to_vec();
    let flag = r.take(1, "flag")?[0];
    let (want_ids, want_proc) = id_fields(flag)?;
    let ids = if want_ids {
        Some((r.u32("uid")?, r.u32("gid")?))
    } else {
        None
    };
    let proc_ = if want_proc {
        let ns = r.cstr("namespace")?;
        let nspace = Nspace::new(ns).map_err(|e| Error::bad_param(e.context))?;
        Some(ProcId::new(nspace, r.u32("rank")?))
    } else {
        None
    };
    let version = r.cstr("version")?;
    let (bfrops, buffer_type, gds) = if version_of(&version) == Some((2, 0)) {
        ("v20".to_string(), BUFFER_NON_DESC, "ds12,hash".to_string())
    } else {
        let b = r.cstr("bfrops name")?;
        let t = r.take(1, "buffer type")?[0];
        (b, t, r.cstr("gds name")?)
    };
    let (info, pad) = hello_tail(&payload[r.pos..])?;
    Ok(ClientHello {
        psec,
        credential,
        flag,
        ids,
        proc_,
        version,
        bfrops,
        buffer_type,
        gds,
        info,
        pad,
    })
}

/// The optional packed infos and the optional pad byte after the gds name.
fn hello_tail(rest: &[u8]) -> Result<(Vec<Info>, bool)> {
    match rest {
        [] => return Ok((Vec::new(), false)),
        [0] => return Ok((Vec::new(), true)),
        _ => {}
    }
    let mut u = Unpacker::new(rest);
    let bad = |e: Error| Error::bad_param(format!("v41 handshake infos: {}", e.context));
    let one = u.i32().map_err(bad)?;
    let n = u.size().map_err(bad)?;
    let mut info = Vec::new();
    if one != 1 {
        return Err(Error::bad_param("v41 handshake infos: bad count"));
    }
    if n > 0 {
        let m = u.count_int(3).map_err(bad)?;
        if m != n {
            return Err(Error::bad_param("v41 handshake infos: counts differ"));
        }
        for _ in 0..n {
            info.push(u.info().map_err(bad)?);
        }
    }
    match u.rest() {
        [] => Ok((info, false)),
        [0] => Ok((info, true)),
        r => Err(Error::bad_param(format!(
            "v41 handshake: {} bytes after the infos",
            r.len()
        ))),
    }
}

/// Whether this side can serve a peer that sent `h`: v41, NON_DESC, hash or ds21, native,
/// none or munge security, version 4 or later.
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` naming what we do not implement (the caller logs it,
/// answers with this status and closes the connection).
pub fn check_client_hello(h: &ClientHello) -> Result<()> {
    let refuse = |what: String| Err(Error::not_supported(format!("v41 handshake: {}", what)));
    match version_of(&h.version) {
        Some((major, _)) if major >= 4 => {}
        _ => return refuse(format!("peer version {:?} (need 4.x or later)", h.version)),
    }
    if h.bfrops != BFROPS {
        return refuse(format!("bfrops {:?} (only v41)", h.bfrops));
    }
    if h.buffer_type != BUFFER_NON_DESC {
        return refuse(format!("buffer type {} (only NON_DESC)", h.buffer_type));
    }
    if !SERVER_GDS.contains(&h.gds.as_str()) {
        return refuse(format!("gds {:?} (only hash, ds21)", h.gds));
    }
    if !PSEC.contains(&h.psec.as_str()) {
        return refuse(format!("security {:?} (only native, none, munge)", h.psec));
    }
    Ok(())
}

/// The server's answer to a connect message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerReply {
    /// To a simple client: status and, on success, its pindex.
    Client {
        /// 0 or why the connection is refused.
        status: i32,
        /// The client's slot (only with status 0).
        pindex: Option<u32>,
    },
    /// To a tool, launcher or singleton.
    Tool {
        /// 0 or why the connection is refused.
        status: i32,
        /// The identity assigned to a tool that asked for one.
        assigned: Option<ProcId>,
        /// The server's identity (only with status 0).
        server: Option<ProcId>,
        /// The psec handshake status.
        sec_status: u32,
    },
}

fn nspace_field(out: &mut Vec<u8>, p: &ProcId) {
    let mut f = [0u8; NSPACE_FIELD];
    let b = p.nspace.as_str().as_bytes();
    let n = b.len().min(NSPACE_FIELD - 1);
    f[..n].copy_from_slice(&b[..n]);
    out.extend_from_slice(&f);
    out.extend_from_slice(&p.rank.to_be_bytes());
}

/// The bytes of a server reply.
pub fn encode_server_reply(r: &ServerReply) -> Vec<u8> {
    let mut out = Vec::new();
    match r {
        ServerReply::Client { status, pindex } => {
            out.extend_from_slice(&status.to_be_bytes());
            if let (0, Some(p)) = (status, pindex) {
                out.extend_from_slice(&p.to_be_bytes());
            }
        }
        ServerReply::Tool {
            status,
            assigned,
            server,
            sec_status,
        } => {
            out.extend_from_slice(&status.to_be_bytes());
            if *status == 0 {
                if let Some(a) = assigned {
                    nspace_field(&mut out, a);
                }
                if let Some(s) = server {
                    nspace_field(&mut out, s);
                }
                out.extend_from_slice(&sec_status.to_be_bytes());
            }
        }
    }
    out
}

fn read_field(r: &mut Raw<'_>, what: &str) -> Result<ProcId> {
    let f = r.take(NSPACE_FIELD, what)?;
    let end = f.iter().position(|&c| c == 0).unwrap_or(NSPACE_FIELD);
    let ns = String::from_utf8(f[..end].to_vec())
        .map_err(|_| Error::bad_param("v41 handshake: namespace not UTF-8"))?;
    let nspace = Nspace::new(ns).map_err(|e| Error::bad_param(e.context))?;
    Ok(ProcId::new(nspace, r.u32(what)?))
}

/// Decode the server's reply to a connect message sent with `flag`. `Ok(None)` while
/// `bytes` is too short; else the reply and the bytes it took (what follows is the
/// first framed message).
///
/// # Errors
/// The refusal status itself when the server refused (with its code);
/// `PMIX_ERR_NOT_SUPPORTED` when it asks for a psec exchange.
pub fn decode_server_reply(flag: u8, bytes: &[u8]) -> Result<Option<(ServerReply, usize)>> {
    let mut r = Raw { b: bytes, pos: 0 };
    let Ok(status) = r.u32("status") else {
        return Ok(None);
    };
    let status = status as i32;
    if status == READY_FOR_HANDSHAKE {
        return Err(Error::not_supported(
            "the OpenPMIx server asks for a security handshake (not implemented)",
        ));
    }
    if status != 0 {
        return Err(Error::new(
            status,
            format!(
                "the OpenPMIx server refused the connection (status {})",
                status
            ),
        ));
    }
    let reply = if flag == flag::SIMPLE_CLIENT {
        let Ok(p) = r.u32("pindex") else {
            return Ok(None);
        };
        ServerReply::Client {
            status,
            pindex: Some(p),
        }
    } else {
        let needs = matches!(flag, flag::TOOL_NEEDS_ID | flag::LAUNCHER_NEEDS_ID);
        let need = 4 + if needs { 2 } else { 1 } * (NSPACE_FIELD + 4) + 4;
        if bytes.len() < need {
            return Ok(None);
        }
        let assigned = if needs {
            Some(read_field(&mut r, "assigned id")?)
        } else {
            None
        };
        let server = Some(read_field(&mut r, "server id")?);
        ServerReply::Tool {
            status,
            assigned,
            server,
            sec_status: r.u32("security status")?,
        }
    };
    Ok(Some((reply, r.pos)))
}
