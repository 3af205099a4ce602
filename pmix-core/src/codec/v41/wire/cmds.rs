//! Client requests in OpenPMIx's command encoding, to and from the engine's [`Req`].
//!
//! Every request body starts with the command (`pmix_cmd_t`, one pack call of one
//! byte). [`encode_request`] is the client's half, [`decode_request`] the server's.

use super::body::{BodyReader, BodyWriter};
use crate::error::{Error, Result};
use crate::protocol::{DynReq, GroupOp, IofReq, Put, Req};
use crate::value::{Info, Key, ProcId, Value};
use pmix_sys as sys;

/// `pmix_cmd_t` values (OpenPMIx 4.2).
pub mod cmd {
    /// Job info of the client's namespace.
    pub const REQ: u8 = 0;
    /// `PMIx_Abort`.
    pub const ABORT: u8 = 1;
    /// `PMIx_Commit`.
    pub const COMMIT: u8 = 2;
    /// `PMIx_Fence_nb`.
    pub const FENCENB: u8 = 3;
    /// `PMIx_Get_nb`.
    pub const GETNB: u8 = 4;
    /// `PMIx_Finalize`.
    pub const FINALIZE: u8 = 5;
    /// `PMIx_Publish_nb`.
    pub const PUBLISHNB: u8 = 6;
    /// `PMIx_Lookup_nb`.
    pub const LOOKUPNB: u8 = 7;
    /// `PMIx_Unpublish_nb`.
    pub const UNPUBLISHNB: u8 = 8;
    /// `PMIx_Spawn_nb`.
    pub const SPAWNNB: u8 = 9;
    /// `PMIx_Connect_nb`.
    pub const CONNECTNB: u8 = 10;
    /// `PMIx_Disconnect_nb`.
    pub const DISCONNECTNB: u8 = 11;
    /// `PMIx_Notify_event` (and the server's event delivery, tag 0).
    pub const NOTIFY: u8 = 12;
    /// `PMIx_Register_event_handler`.
    pub const REGEVENTS: u8 = 13;
    /// `PMIx_Deregister_event_handler` (no reply).
    pub const DEREGEVENTS: u8 = 14;
    /// `PMIx_Query_info_nb`.
    pub const QUERY: u8 = 15;
    /// `PMIx_Log_nb`.
    pub const LOG: u8 = 16;
    /// `PMIx_Allocation_request_nb`.
    pub const ALLOC: u8 = 17;
    /// `PMIx_Job_control_nb`.
    pub const JOB_CONTROL: u8 = 18;
    /// `PMIx_Process_monitor_nb`.
    pub const MONITOR: u8 = 19;
    /// `PMIx_IOF_pull`.
    pub const IOF_PULL: u8 = 22;
    /// `PMIx_IOF_push`.
    pub const IOF_PUSH: u8 = 23;
    /// `PMIx_Group_construct`.
    pub const GROUP_CONSTRUCT: u8 = 24;
    /// `PMIx_Group_destruct`.
    pub const GROUP_DESTRUCT: u8 = 28;
    /// `PMIx_IOF_deregister`.
    pub const IOF_DEREG: u8 = 29;
    /// Largest command a 4.2 peer knows (`PMIX_DEVICE_DIST_CMD`).
    pub const MAX_42: u8 = 32;
}

/// A request as an OpenPMIx client sends it: one of ours, or one the engine keeps
/// inside the client (event registration).
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// A request the engine's [`Req`] expresses.
    Req(Req),
    /// `REGEVENTS`: the codes (empty: all) and directives of a handler registration.
    RegEvents {
        /// Event codes.
        codes: Vec<i32>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `DEREGEVENTS` (no reply).
    DeregEvents {
        /// Event codes.
        codes: Vec<i32>,
    },
}

impl Command {
    /// The command byte this request goes out as.
    pub fn code(&self) -> Result<u8> {
        Ok(match self {
            Command::RegEvents { .. } => cmd::REGEVENTS,
            Command::DeregEvents { .. } => cmd::DEREGEVENTS,
            Command::Req(r) => req_code(r)?,
        })
    }
    /// True when the server answers this command.
    pub fn has_reply(&self) -> bool {
        !matches!(self, Command::DeregEvents { .. })
    }
}

/// Who sends: the connection's identity (a fence over "my namespace" names it, a
/// publish carries the uid), and the OpenPMIx release at the other end, where the
/// dialect's messages differ between releases (a 5.x group destruct names the members).
#[derive(Debug, Clone, PartialEq)]
pub struct Sender {
    /// The client.
    pub me: ProcId,
    /// Its effective uid.
    pub uid: u32,
    /// (major, minor) of the peer's OpenPMIx: the server's for a client, the client's
    /// for a server. [`PEER_UNKNOWN`] when it did not say.
    pub peer: (u32, u32),
}

/// The peer release assumed when the peer did not say: 4.2's messages.
pub const PEER_UNKNOWN: (u32, u32) = (4, 2);

impl Sender {
    /// `me` with `uid`, talking to an OpenPMIx `peer` release.
    pub fn new(me: ProcId, uid: u32, peer: (u32, u32)) -> Sender {
        Sender { me, uid, peer }
    }

    /// The peer speaks OpenPMIx 5.0 or later.
    pub fn peer_is_v5(&self) -> bool {
        self.peer.0 >= 5
    }
}

/// The command byte request `r` goes out as ([`Command::code`] without a `Command`).
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` for a request OpenPMIx's dialect has no command for.
pub fn req_code(r: &Req) -> Result<u8> {
    Ok(match r {
        Req::Commit { .. } => cmd::COMMIT,
        Req::Fence { .. } => cmd::FENCENB,
        Req::Get { .. } => cmd::GETNB,
        Req::JobData { .. } => cmd::REQ,
        Req::Abort { .. } => cmd::ABORT,
        Req::Finalize => cmd::FINALIZE,
        Req::Notify { .. } => cmd::NOTIFY,
        Req::Dyn(d) => match d {
            DynReq::Connect { .. } => cmd::CONNECTNB,
            DynReq::Disconnect { .. } => cmd::DISCONNECTNB,
            DynReq::Spawn { .. } => cmd::SPAWNNB,
            DynReq::Publish { .. } => cmd::PUBLISHNB,
            DynReq::Lookup { .. } => cmd::LOOKUPNB,
            DynReq::Unpublish { .. } => cmd::UNPUBLISHNB,
            DynReq::Query { .. } => cmd::QUERY,
            DynReq::Log { .. } => cmd::LOG,
            DynReq::JobControl { .. } => cmd::JOB_CONTROL,
            DynReq::Group { op, .. } if *op == GroupOp::Construct as u8 => cmd::GROUP_CONSTRUCT,
            DynReq::Group { op, .. } if *op == GroupOp::Destruct as u8 => cmd::GROUP_DESTRUCT,
            other => return Err(unsupported(other_kind(other))),
        },
        Req::Iof(IofReq::Pull { .. }) => cmd::IOF_PULL,
        Req::Iof(IofReq::Push { .. }) => cmd::IOF_PUSH,
        Req::Iof(IofReq::Deregister { .. }) => cmd::IOF_DEREG,
        other => return Err(unsupported(other.kind())),
    })
}

fn other_kind(d: &DynReq) -> &'static str {
    match d {
        // 4.2's server serves construct and destruct only (its client builds invite,
        // join and leave from events and those two)
        DynReq::Group { .. } => "group invite, join and leave",
        _ => "host operations",
    }
}

fn unsupported(what: &str) -> Error {
    Error::not_supported(format!(
        "v41 wire: {} not implemented in this dialect",
        what
    ))
}

/// The commit body: one `{SCOPE, BUFFER(KVAL…)}` pair per non-empty bucket, LOCAL then
/// REMOTE; a GLOBAL put is in both (as OpenPMIx's client splits it).
fn encode_commit(w: &mut BodyWriter, puts: &[Put]) -> Result<()> {
    for (scope, also) in [
        (sys::PMIX_LOCAL, sys::PMIX_GLOBAL),
        (sys::PMIX_REMOTE, sys::PMIX_GLOBAL),
    ] {
        let mut b = BodyWriter::new();
        let mut any = false;
        for p in puts.iter().filter(|p| p.scope == scope || p.scope == also) {
            b.kval(p.key.as_str(), &p.value)?;
            any = true;
        }
        if any {
            w.byte(scope);
            w.buffer(&b.finish());
        }
    }
    Ok(())
}

/// A commit's puts, one per key (OpenPMIx sends every key the process ever put, once per
/// scope bucket: a key in both the LOCAL and the REMOTE bucket with the same value is one
/// GLOBAL put). Linear in the number of keys: each key is found by hash, not by a scan.
fn decode_commit(r: &mut BodyReader<'_>) -> Result<Vec<Put>> {
    let mut puts: Vec<Put> = Vec::new();
    let mut at: crate::fasthash::FastMap<Key, usize> = Default::default();
    while !r.is_empty() {
        let scope = r.byte()?;
        if !(sys::PMIX_LOCAL..=sys::PMIX_GLOBAL).contains(&scope) {
            return Err(Error::unpack(format!("v41 commit: scope {}", scope)));
        }
        let buf = r.buffer()?;
        for (key, value) in super::body::kvals_of(&buf)? {
            match at.get(&key).and_then(|&i| puts.get_mut(i)) {
                Some(p) if p.scope != scope && p.value == value => p.scope = sys::PMIX_GLOBAL,
                Some(p) => {
                    p.scope = scope;
                    p.value = value;
                }
                None => {
                    at.insert(key.clone(), puts.len());
                    puts.push(Put { key, scope, value });
                }
            }
        }
    }
    Ok(puts)
}

/// The `PMIX_TIMEOUT` (seconds) among `info`, in milliseconds.
pub fn timeout_ms(info: &[Info]) -> u32 {
    info.iter()
        .find(|i| i.key.as_str() == sys::attrs::keys::PMIX_TIMEOUT)
        .and_then(|i| match i.value {
            Value::Int(s) | Value::Int32(s) if s > 0 => Some((s as u32).saturating_mul(1000)),
            Value::Uint(s) | Value::Uint32(s) => Some(s.saturating_mul(1000)),
            _ => None,
        })
        .unwrap_or(0)
}

/// Whether boolean attribute `key` is set (present and not false).
pub fn flag_set(info: &[Info], key: &str) -> bool {
    info.iter()
        .any(|i| i.key.as_str() == key && !matches!(i.value, Value::Bool(false)))
}

fn fence_infos(collect: bool, info: &[Info]) -> Result<Vec<Info>> {
    let mut v = info.to_vec();
    if collect && !flag_set(info, sys::attrs::keys::PMIX_COLLECT_DATA) {
        v.push(Info::new(
            sys::attrs::keys::PMIX_COLLECT_DATA,
            Value::Bool(true),
        )?);
    }
    Ok(v)
}

fn keys(w: &mut BodyWriter, uid: u32, keys: &[String], info: &[Info]) -> Result<()> {
    w.u32(uid);
    w.size(keys.len());
    keys.iter().for_each(|k| w.string(Some(k)));
    w.infos(info)
}

/// The body of a request (the caller frames it with a fresh tag).
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` for a request with no OpenPMIx 4.2 counterpart here
/// (allgather, group invite/join/leave, host operations); a packing error.
pub fn encode_request(c: &Command, s: &Sender) -> Result<Vec<u8>> {
    let mut w = BodyWriter::new();
    w.cmd(c.code()?);
    match c {
        Command::RegEvents { codes, info } => {
            status_list(&mut w, codes)?;
            w.infos(info)?;
        }
        Command::DeregEvents { codes } => {
            // One STATUS pack per code, no count (OpenPMIx's deregistration; its server
            // unpacks codes until the end of the body).
            for &c in codes {
                w.values(&[Value::Status(c)], sys::PMIX_STATUS)?;
            }
        }
        Command::Req(r) => encode_req(&mut w, r, s)?,
    }
    Ok(w.finish())
}

fn status_list(w: &mut BodyWriter, codes: &[i32]) -> Result<()> {
    w.size(codes.len());
    if !codes.is_empty() {
        let v: Vec<Value> = codes.iter().map(|&c| Value::Status(c)).collect();
        w.values(&v, sys::PMIX_STATUS)?;
    }
    Ok(())
}

fn encode_req(w: &mut BodyWriter, r: &Req, s: &Sender) -> Result<()> {
    match r {
        Req::Commit { puts } => encode_commit(w, puts)?,
        Req::Fence {
            procs,
            collect,
            info,
            ..
        } => {
            let mine = [ProcId::new(s.me.nspace.clone(), sys::PMIX_RANK_WILDCARD)];
            w.procs(if procs.is_empty() { &mine } else { procs });
            w.infos(&fence_infos(*collect, info)?)?;
        }
        Req::Get {
            target, key, info, ..
        } => {
            w.string(Some(target.nspace.as_str()));
            w.u32(target.rank);
            w.infos(info)?;
            if let Some(k) = key {
                w.string(Some(k.as_str()));
            }
        }
        Req::JobData { .. } | Req::Finalize => {}
        Req::Abort {
            status,
            msg,
            targets,
        } => {
            w.status(*status);
            w.string(Some(msg));
            w.procs(targets);
        }
        Req::Notify {
            status,
            range,
            info,
        } => {
            w.status(*status);
            w.byte(*range);
            w.infos(info)?;
        }
        Req::Dyn(d) => encode_dyn(w, d, s)?,
        Req::Iof(r) => encode_iof(w, r)?,
        other => return Err(unsupported(other.kind())),
    }
    Ok(())
}

/// IOF commands as 4.2's client packs them. A pull carries the client's id for the
/// registration (the server marks each chunk with it); a deregistration names the
/// server's id for it, which the caller puts in `id` (the pull's reply gave it).
fn encode_iof(w: &mut BodyWriter, r: &IofReq) -> Result<()> {
    match r {
        IofReq::Pull {
            id,
            procs,
            channels,
            directives,
        } => {
            w.procs_always(procs);
            w.infos(directives)?;
            w.values(&[Value::IofChannel(*channels)], sys::PMIX_IOF_CHANNEL)?;
            w.size(*id as usize);
        }
        IofReq::Deregister { id, directives } => {
            w.infos(directives)?;
            w.size(*id as usize);
        }
        IofReq::Push {
            targets,
            directives,
            data,
        } => {
            w.procs(targets);
            w.infos(directives)?;
            if let Some(d) = data {
                w.byte_object(d);
            }
        }
    }
    Ok(())
}

fn encode_dyn(w: &mut BodyWriter, d: &DynReq, s: &Sender) -> Result<()> {
    match d {
        DynReq::Connect { procs, info, .. } | DynReq::Disconnect { procs, info, .. } => {
            w.procs_always(procs);
            w.infos(info)?;
        }
        DynReq::Spawn { job_info, apps } => {
            w.infos(job_info)?;
            w.size(apps.len());
            if !apps.is_empty() {
                let v: Vec<Value> = apps
                    .iter()
                    .map(|a| Value::App(Box::new(a.clone())))
                    .collect();
                w.values(&v, sys::PMIX_APP)?;
            }
        }
        DynReq::Publish { info } => {
            w.u32(s.uid);
            w.infos(info)?;
        }
        DynReq::Lookup { keys: k, info } | DynReq::Unpublish { keys: k, info } => {
            keys(w, s.uid, k, info)?
        }
        DynReq::Query { queries } => {
            w.size(queries.len());
            if !queries.is_empty() {
                let v: Vec<Value> = queries
                    .iter()
                    .map(|q| Value::Query(Box::new(q.clone())))
                    .collect();
                w.values(&v, sys::PMIX_QUERY)?;
            }
        }
        DynReq::Log { data, directives } => {
            w.time(0);
            w.infos(data)?;
            w.infos(directives)?;
        }
        DynReq::JobControl {
            targets,
            directives,
        } => {
            w.procs(targets);
            w.infos(directives)?;
        }
        DynReq::Group {
            op,
            id,
            procs,
            info,
        } => {
            w.string(Some(id));
            // A 4.2 server reads the members of a construct only; a 5.x server also
            // those of a destruct (it keeps no membership: the client sends it).
            if *op == GroupOp::Construct as u8 || s.peer_is_v5() {
                w.procs_always(procs);
            }
            w.infos(info)?;
        }
        other => return Err(unsupported(other_kind(other))),
    }
    Ok(())
}

/// Decode a request body from the client `s` (the server's half). The body must be
/// read to its end.
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` for a command this side does not serve (logged by the
/// caller; OpenPMIx's own server answers nothing then, we answer this status);
/// `PMIX_ERR_UNPACK_*` for a malformed body.
pub fn decode_request(body: &[u8], s: &Sender) -> Result<Command> {
    let mut r = BodyReader::new(body);
    let c = r.cmd()?;
    let out = match c {
        cmd::REGEVENTS => {
            let codes = statuses(&mut r)?;
            let info = r.infos()?;
            Command::RegEvents { codes, info }
        }
        cmd::DEREGEVENTS => {
            // Codes one STATUS pack each, to the end of the body (no count).
            let mut codes = Vec::new();
            while !r.is_empty() {
                for v in r.values(sys::PMIX_STATUS)? {
                    if let Value::Status(c) = v {
                        codes.push(c);
                    }
                }
            }
            Command::DeregEvents { codes }
        }
        _ => Command::Req(decode_req(c, &mut r, s)?),
    };
    r.end("request")?;
    Ok(out)
}

fn statuses(r: &mut BodyReader<'_>) -> Result<Vec<i32>> {
    Ok(r.sized_values(sys::PMIX_STATUS)?
        .into_iter()
        .filter_map(|v| match v {
            Value::Status(c) => Some(c),
            _ => None,
        })
        .collect())
}

fn decode_req(c: u8, r: &mut BodyReader<'_>, s: &Sender) -> Result<Req> {
    Ok(match c {
        cmd::REQ => Req::JobData {
            nspace: s.me.nspace.clone(),
        },
        cmd::COMMIT => Req::Commit {
            puts: decode_commit(r)?,
        },
        cmd::FENCENB => {
            let mut procs = r.procs()?;
            if procs.is_empty() {
                // none named: the sender's whole namespace (what a NULL array means)
                procs.push(ProcId::new(s.me.nspace.clone(), sys::PMIX_RANK_WILDCARD));
            }
            let info = r.infos()?;
            Req::Fence {
                procs,
                collect: flag_set(&info, sys::attrs::keys::PMIX_COLLECT_DATA),
                timeout_ms: timeout_ms(&info),
                info,
            }
        }
        cmd::GETNB => decode_get(r)?,
        cmd::FINALIZE => Req::Finalize,
        cmd::ABORT => Req::Abort {
            status: r.status()?,
            msg: r.string()?.unwrap_or_default(),
            targets: r.procs()?,
        },
        cmd::NOTIFY => Req::Notify {
            status: r.status()?,
            range: r.byte()?,
            info: r.infos()?,
        },
        cmd::IOF_PULL | cmd::IOF_DEREG | cmd::IOF_PUSH => Req::Iof(decode_iof_req(c, r)?),
        _ => Req::Dyn(decode_dyn(c, r, s)?),
    })
}

fn decode_get(r: &mut BodyReader<'_>) -> Result<Req> {
    let ns = r.string()?.unwrap_or_default();
    let nspace = crate::value::Nspace::new(ns).map_err(|e| Error::unpack(e.context))?;
    let rank = r.u32()?;
    let info = r.infos()?;
    let key = if r.is_empty() {
        None
    } else {
        match r.string()? {
            Some(k) => Some(Key::new(k).map_err(|e| Error::unpack(e.context))?),
            None => None,
        }
    };
    Ok(Req::Get {
        target: ProcId::new(nspace, rank),
        key,
        immediate: flag_set(&info, sys::attrs::keys::PMIX_IMMEDIATE),
        timeout_ms: timeout_ms(&info),
        info,
    })
}

fn key_list(r: &mut BodyReader<'_>) -> Result<(Vec<String>, Vec<Info>)> {
    // 4.2.2 packs the uid as UINT32 (its own server misreads it as a signed PMIX_UINT);
    // the credential, not this field, says who the peer is.
    let _uid = r.u32()?;
    let n = r.size()?;
    let mut keys = Vec::new();
    for _ in 0..n {
        keys.push(r.string()?.unwrap_or_default());
    }
    Ok((keys, r.infos()?))
}

/// The IOF commands, as [`encode_iof`] writes them (4.2's and 5.x's clients alike). A
/// pull carries the client's id for the registration; the server answers with its own
/// id, which a deregistration names: ours is the client's (`reply_body` in
/// `server/v41/translate.rs`), so the engine sees the client's id both times.
fn decode_iof_req(c: u8, r: &mut BodyReader<'_>) -> Result<IofReq> {
    Ok(match c {
        cmd::IOF_PULL => {
            let procs = r.procs_always()?;
            let directives = r.infos()?;
            let channels = match r.values(sys::PMIX_IOF_CHANNEL)?.first() {
                Some(Value::IofChannel(c)) => *c,
                _ => return Err(Error::unpack("v41 IOF pull: no channel")),
            };
            let id = r.size()? as u64;
            IofReq::Pull {
                id,
                procs,
                channels,
                directives,
            }
        }
        cmd::IOF_DEREG => {
            let directives = r.infos()?;
            IofReq::Deregister {
                id: r.size()? as u64,
                directives,
            }
        }
        _ => {
            let targets = r.procs()?;
            let directives = r.infos()?;
            let data = if r.is_empty() {
                None
            } else {
                Some(r.byte_object()?)
            };
            IofReq::Push {
                targets,
                directives,
                data,
            }
        }
    })
}

/// A group's name: 1 to `PMIX_MAX_NSLEN` characters.
fn group_id(r: &mut BodyReader<'_>) -> Result<String> {
    match r.string()? {
        Some(g) if !g.is_empty() && g.len() <= sys::PMIX_MAX_NSLEN => Ok(g),
        g => Err(Error::bad_param(format!("v41: bad group name {:?}", g))),
    }
}

fn decode_dyn(c: u8, r: &mut BodyReader<'_>, s: &Sender) -> Result<DynReq> {
    Ok(match c {
        // STRING grpid, SIZE nprocs, PROC×n, SIZE ninfo, [INFO]
        cmd::GROUP_CONSTRUCT => DynReq::Group {
            op: GroupOp::Construct as u8,
            id: group_id(r)?,
            procs: r.procs_always()?,
            info: r.infos()?,
        },
        // STRING grpid, (5.x: SIZE nmembers, PROC×n,) SIZE ninfo, [INFO]; the members a
        // 5.x client names are not needed: our server keeps the membership.
        cmd::GROUP_DESTRUCT => DynReq::Group {
            op: GroupOp::Destruct as u8,
            id: group_id(r)?,
            procs: {
                if s.peer_is_v5() {
                    r.procs_always()?;
                }
                Vec::new()
            },
            info: r.infos()?,
        },
        cmd::CONNECTNB | cmd::DISCONNECTNB => {
            let procs = r.procs_always()?;
            let info = r.infos()?;
            let timeout_ms = timeout_ms(&info);
            if c == cmd::CONNECTNB {
                DynReq::Connect {
                    procs,
                    timeout_ms,
                    info,
                    endpoint: Vec::new(),
                }
            } else {
                DynReq::Disconnect {
                    procs,
                    timeout_ms,
                    info,
                }
            }
        }
        cmd::SPAWNNB => {
            let job_info = r.infos()?;
            let apps = r.sized_values(sys::PMIX_APP)?;
            DynReq::Spawn {
                job_info,
                apps: apps
                    .into_iter()
                    .filter_map(|v| match v {
                        Value::App(a) => Some(*a),
                        _ => None,
                    })
                    .collect(),
            }
        }
        cmd::PUBLISHNB => {
            let _uid = r.u32()?;
            DynReq::Publish { info: r.infos()? }
        }
        cmd::LOOKUPNB => {
            let (keys, info) = key_list(r)?;
            DynReq::Lookup { keys, info }
        }
        cmd::UNPUBLISHNB => {
            let (keys, info) = key_list(r)?;
            DynReq::Unpublish { keys, info }
        }
        cmd::QUERY => DynReq::Query {
            queries: r
                .sized_values(sys::PMIX_QUERY)?
                .into_iter()
                .filter_map(|v| match v {
                    Value::Query(q) => Some(*q),
                    _ => None,
                })
                .collect(),
        },
        cmd::LOG => {
            let _time = r.time()?;
            DynReq::Log {
                data: r.infos()?,
                directives: r.infos()?,
            }
        }
        cmd::JOB_CONTROL => DynReq::JobControl {
            targets: r.procs()?,
            directives: r.infos()?,
        },
        c => {
            return Err(Error::not_supported(format!(
                "v41 wire: command {} not served",
                c
            )))
        }
    })
}
