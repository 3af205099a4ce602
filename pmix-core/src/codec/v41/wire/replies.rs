//! Server replies and event deliveries in OpenPMIx's encoding, and the hash-gds job
//! info (`PMIX_REQ_CMD`'s reply) to and from the engine's [`JobData`].

use super::body::{kvals_of, BodyReader, BodyWriter};
use super::cmds::cmd;
use crate::error::{Error, Result};
use crate::iof::IofChunk;
use crate::protocol::{ConnectData, GroupReply, ReplyData, ServerMsg};
use crate::store::{JobData, NodeData, ProcBuilder};
use crate::value::{DataArray, Info, Key, Nspace, ProcId, Rank, Value};
use pmix_sys as sys;
use std::collections::BTreeMap;

/// Key of one rank's blob in a hash job-info reply.
pub const PBLOB: &str = "pmix.pblob";
/// Key of the session array.
pub const SESSION_ARRAY: &str = "pmix.ssn.arr";
/// Key of one node's array.
pub const NODE_ARRAY: &str = "pmix.node.arr";
/// Key of one application's array.
pub const APP_ARRAY: &str = "pmix.app.arr";

/// A hash-gds job-info body as sent: the namespace and the KVAL run, in order
/// (`pmix.pblob` values are byte objects holding `PROC_RANK` + `KVAL…`).
#[derive(Debug, Clone, PartialEq)]
pub struct JobInfo {
    /// The namespace.
    pub nspace: Nspace,
    /// The KVALs.
    pub kvals: Vec<(Key, Value)>,
}

/// Decode a job-info body (`STRING nspace`, `KVAL…`).
///
/// # Errors
/// `PMIX_ERR_UNPACK_*` for a malformed body.
pub fn decode_job_info(body: &[u8]) -> Result<JobInfo> {
    let mut r = BodyReader::new(body);
    let ns = r.string()?.unwrap_or_default();
    let nspace = Nspace::new(ns).map_err(|e| Error::unpack(e.context))?;
    Ok(JobInfo {
        nspace,
        kvals: r.kvals_to_end()?,
    })
}

/// The body of a job info.
pub fn encode_job_info(j: &JobInfo) -> Result<Vec<u8>> {
    let mut w = BodyWriter::new();
    w.string(Some(j.nspace.as_str()));
    for (k, v) in &j.kvals {
        w.kval(k.as_str(), v)?;
    }
    Ok(w.finish())
}

/// One `pmix.pblob`: the rank and its KVALs.
pub fn decode_pblob(b: &[u8]) -> Result<(Rank, Vec<(Key, Value)>)> {
    let mut r = BodyReader::new(b);
    let rank = r.u32()?;
    Ok((rank, r.kvals_to_end()?))
}

fn array_infos(v: &Value) -> Result<Vec<Info>> {
    match v {
        Value::DataArray(a) => Ok(a
            .items
            .iter()
            .filter_map(|i| match i {
                Value::Info(i) => Some((**i).clone()),
                _ => None,
            })
            .collect()),
        _ => Err(Error::unpack(
            "v41 job info: array key without a data array",
        )),
    }
}

fn as_info((k, v): (Key, Value)) -> Info {
    Info {
        key: k,
        flags: 0,
        value: v,
    }
}

fn u32_of(infos: &[Info], key: &str) -> Option<u32> {
    infos
        .iter()
        .find(|i| i.key.as_str() == key)
        .and_then(|i| match i.value {
            Value::Uint32(x) | Value::Rank(x) | Value::Uint(x) => Some(x),
            _ => None,
        })
}

/// The engine's job data for a hash job info: plain KVALs and the session array are
/// job-level, each node/app array becomes a node/app entry, each `pmix.pblob` a rank.
///
/// # Errors
/// `PMIX_ERR_UNPACK_*` for a malformed blob or array.
pub fn job_data(j: &JobInfo) -> Result<JobData> {
    let mut job = Vec::new();
    let mut nodes = Vec::new();
    let mut apps = Vec::new();
    let mut ranks: BTreeMap<Rank, Vec<Info>> = BTreeMap::new();
    for (k, v) in &j.kvals {
        match k.as_str() {
            PBLOB => {
                let Value::ByteObject(b) = v else {
                    return Err(Error::unpack("v41 job info: pmix.pblob not a byte object"));
                };
                let (rank, kvs) = decode_pblob(b)?;
                ranks
                    .entry(rank)
                    .or_default()
                    .extend(kvs.into_iter().map(as_info));
            }
            SESSION_ARRAY => job.extend(array_infos(v)?),
            NODE_ARRAY => {
                let info = array_infos(v)?;
                let hostname = info.iter().find_map(|i| match (&i.value, i.key.as_str()) {
                    (Value::String(Some(s)), sys::attrs::keys::PMIX_HOSTNAME) => {
                        Some(String::from_utf8_lossy(s).into_owned())
                    }
                    _ => None,
                });
                let id = u32_of(&info, sys::attrs::keys::PMIX_NODEID);
                nodes.push(NodeData { id, hostname, info });
            }
            APP_ARRAY => {
                let info = array_infos(v)?;
                apps.push((
                    u32_of(&info, sys::attrs::keys::PMIX_APPNUM).unwrap_or(apps.len() as u32),
                    info,
                ));
            }
            _ => job.push(as_info((k.clone(), v.clone()))),
        }
    }
    let mut b = ProcBuilder::new(ranks.len());
    for (rank, infos) in ranks {
        for i in infos {
            b.add(rank, i, &j.nspace);
        }
    }
    Ok(JobData {
        nspace: j.nspace.clone(),
        job,
        apps,
        nodes,
        procs: b.finish(),
    })
}

fn info_array(infos: &[Info]) -> Value {
    let n = infos.len();
    Value::DataArray(Box::new(DataArray {
        dtype: sys::PMIX_INFO,
        items: infos
            .iter()
            .enumerate()
            .map(|(x, i)| {
                let mut i = i.clone();
                if x + 1 == n {
                    i.flags |= sys::PMIX_INFO_ARRAY_END;
                }
                Value::Info(Box::new(i))
            })
            .collect(),
    }))
}

/// The hash job info an OpenPMIx client expects for `j`: job keys, one node array per
/// node, one app array per app, one `pmix.pblob` per rank of `0..nprocs`.
///
/// What an OpenPMIx client's hash GDS reads only from places a host need not fill is
/// added when the host left it out (as Open MPI 4.1's ORTE does): each rank's
/// `PMIX_APPNUM` (from the application ranges, see `appnum_of`) and the job-level
/// `PMIX_HOSTNAME` (the node of the job's local peers: a Get of it with
/// `PMIX_RANK_WILDCARD` falls back to the job level there). The job-level `PMIX_APPNUM`
/// of a one-application job is already in `j` (`JobData::derive`).
///
/// # Errors
/// A packing error of a per-rank value.
pub fn job_info_of(j: &JobData, nprocs: Rank) -> Result<JobInfo> {
    let mut kvals: Vec<(Key, Value)> = j
        .job
        .iter()
        .map(|i| (i.key.clone(), i.value.clone()))
        .collect();
    let key = |s: &str| Key::new(s).map_err(|e| Error::bad_param(e.context));
    let has = |infos: &[Info], k: &str| infos.iter().any(|i| i.key.as_str() == k);
    let (appnum, hostname) = (
        sys::attrs::keys::PMIX_APPNUM,
        sys::attrs::keys::PMIX_HOSTNAME,
    );
    if !has(&j.job, hostname) {
        if let Some(h) = local_host(j) {
            kvals.push((key(hostname)?, h));
        }
    }
    for n in &j.nodes {
        kvals.push((key(NODE_ARRAY)?, info_array(&n.info)));
    }
    for (_, a) in &j.apps {
        kvals.push((key(APP_ARRAY)?, info_array(a)));
    }
    for rank in 0..nprocs {
        let mut infos = j.procs.infos(rank);
        if infos.is_empty() {
            continue;
        }
        if !has(&infos, appnum) {
            infos.push(Info::new(appnum, Value::Uint32(appnum_of(j, rank)))?);
        }
        let mut w = BodyWriter::new();
        w.u32(rank);
        for i in &infos {
            w.kval(i.key.as_str(), &i.value)?;
        }
        kvals.push((key(PBLOB)?, Value::ByteObject(w.finish())));
    }
    Ok(JobInfo {
        nspace: j.nspace.clone(),
        kvals,
    })
}

/// How many ranks `j` describes: its `PMIX_JOB_SIZE`, or past its highest rank with data.
fn job_size(j: &JobData) -> Rank {
    let n = j.procs.lists().keys().next_back().map_or(0, |r| r + 1);
    u32_of(&j.job, sys::attrs::keys::PMIX_JOB_SIZE)
        .unwrap_or(n)
        .max(n)
}

/// The application `rank` belongs to when the host gave no per-rank `PMIX_APPNUM`: the
/// app whose `PMIX_APPLDR` .. `PMIX_APPLDR + PMIX_APP_SIZE` holds it, else the first
/// app (0 when none is registered).
fn appnum_of(j: &JobData, rank: Rank) -> u32 {
    use sys::attrs::keys::{PMIX_APPLDR, PMIX_APP_SIZE};
    j.apps
        .iter()
        .find(
            |(_, a)| match (u32_of(a, PMIX_APPLDR), u32_of(a, PMIX_APP_SIZE)) {
                (Some(ldr), Some(n)) => rank >= ldr && rank - ldr < n,
                _ => false,
            },
        )
        .or(j.apps.first())
        .map_or(0, |a| a.0)
}

/// The host name of the node the job's local peers run on (the server's node, where
/// every client this job info goes to runs): the first of `PMIX_LOCAL_PEERS`'s host in
/// the process map, else the only node's name.
fn local_host(j: &JobData) -> Option<Value> {
    let peers = j
        .job
        .iter()
        .find(|i| i.key.as_str() == sys::attrs::keys::PMIX_LOCAL_PEERS)
        .and_then(|i| i.value.as_str());
    let first = peers.and_then(|p| p.split(',').next()?.trim().parse::<Rank>().ok());
    let by_map = first.and_then(|r| {
        j.procs
            .get(r, sys::attrs::keys::PMIX_HOSTNAME)
            .map(|v| v.into_owned())
    });
    let only = || match j.nodes.as_slice() {
        [n] => n.hostname.as_deref().map(Value::string),
        _ => None,
    };
    by_map.filter(|v| v.as_str().is_some()).or_else(only)
}

/// One process's data in a Get reply.
pub type ProcData = (ProcId, Vec<Info>);

/// One byte object of a Get reply: whose data, and its KVALs as infos.
fn get_blob(b: &[u8]) -> Result<ProcData> {
    let mut r = BodyReader::new(b);
    let p = r.proc_id()?;
    Ok((p, r.kvals_to_end()?.into_iter().map(as_info).collect()))
}

/// A Get reply with each process's data apart (what [`decode_reply`] flattens).
///
/// # Errors
/// `PMIX_ERR_UNPACK_*` for a malformed body.
pub fn decode_get_reply(body: &[u8]) -> Result<(i32, Vec<ProcData>)> {
    let mut r = BodyReader::new(body);
    let status = r.status()?;
    let mut out = Vec::new();
    while !r.is_empty() {
        out.push(get_blob(&r.byte_object()?)?);
    }
    Ok((status, out))
}

/// Decode a reply to command `c` (the client's half): status and data.
///
/// # Errors
/// `PMIX_ERR_UNREACH` for an empty body (OpenPMIx's "connection lost"),
/// `PMIX_ERR_UNPACK_*` for a malformed one.
pub fn decode_reply(c: u8, body: &[u8]) -> Result<(i32, ReplyData)> {
    if body.is_empty() {
        return Err(Error::new(
            sys::PMIX_ERR_UNREACH,
            "v41: empty reply (connection lost)",
        ));
    }
    if c == cmd::REQ {
        let j = job_data(&decode_job_info(body)?)?;
        return Ok((0, ReplyData::Job(Box::new(j))));
    }
    let mut r = BodyReader::new(body);
    let status = r.status()?;
    let data = match c {
        cmd::GETNB => {
            let mut infos = Vec::new();
            while !r.is_empty() {
                let (_, kvs) = get_blob(&r.byte_object()?)?;
                infos.extend(kvs);
            }
            ReplyData::Data(infos)
        }
        cmd::LOOKUPNB if !r.is_empty() => ReplyData::Pdata(
            r.sized_values(sys::PMIX_PDATA)?
                .into_iter()
                .filter_map(|v| match v {
                    Value::Pdata(p) => Some(*p),
                    _ => None,
                })
                .collect(),
        ),
        // An OpenPMIx client reads a query's results only when it succeeded (4.2.2's
        // `query_cbfunc`): a failed query's data (ORTE answers PMIX_QUERY_NAMESPACES
        // with PMIX_ERROR and the list) is read past and dropped, so the caller sees
        // the status alone, as on OpenPMIx's own client.
        cmd::QUERY if !r.is_empty() => {
            let infos = r.infos()?;
            if status == sys::PMIX_SUCCESS {
                ReplyData::Data(infos)
            } else {
                ReplyData::None
            }
        }
        cmd::JOB_CONTROL | cmd::ALLOC | cmd::MONITOR if !r.is_empty() => {
            ReplyData::Data(r.infos()?)
        }
        cmd::SPAWNNB if !r.is_empty() => spawned(&mut r)?,
        cmd::GROUP_CONSTRUCT if !r.is_empty() => group_constructed(&mut r)?,
        // the server's id for the registration (see [`iof_pull_refid`])
        cmd::IOF_PULL if !r.is_empty() => {
            r.size()?;
            ReplyData::None
        }
        cmd::CONNECTNB => {
            let mut jobs = Vec::new();
            while !r.is_empty() {
                jobs.push(job_data(&decode_job_info(&r.byte_object()?)?)?);
            }
            ReplyData::Connected(Box::new(ConnectData {
                jobs,
                peers: Vec::new(),
            }))
        }
        _ => ReplyData::None,
    };
    r.end("reply")?;
    Ok((status, data))
}

/// The rest of a group construct's reply after its status. OpenPMIx 4.2 servers send
/// `SIZE ctxid` alone; 5.x servers, on success, `SIZE nmembers, PROC×n, SIZE ctxid`,
/// then one `BYTE_OBJECT` (`STRING nspace, KVAL…`) of job info per other participating
/// namespace. The body is not self-describing (NON_DESC buffers), so the shape tells
/// them apart: a 4.2 reply ends after its one size. A context id of `SIZE_MAX` is
/// "none assigned" in both.
fn group_constructed(r: &mut BodyReader<'_>) -> Result<ReplyData> {
    let first = r.size()?;
    let (members, ctxid, jobs) = if r.is_empty() {
        (Vec::new(), first, Vec::new())
    } else {
        let members = if first == 0 {
            Vec::new()
        } else {
            (0..first)
                .map(|_| r.proc_id())
                .collect::<Result<Vec<_>>>()?
        };
        let ctxid = r.size()?;
        let mut jobs = Vec::new();
        while !r.is_empty() {
            jobs.push(job_data(&decode_job_info(&r.byte_object()?)?)?);
        }
        (members, ctxid, jobs)
    };
    let mut results = Vec::new();
    if !members.is_empty() {
        results.push(Info::new(
            sys::attrs::keys::PMIX_GROUP_MEMBERSHIP,
            Value::proc_array(&members),
        )?);
    }
    if ctxid != usize::MAX {
        results.push(Info::new(
            sys::attrs::keys::PMIX_GROUP_CONTEXT_ID,
            Value::Size(ctxid as u64),
        )?);
    }
    Ok(ReplyData::Group(Box::new(GroupReply {
        results,
        data: ConnectData {
            jobs,
            peers: Vec::new(),
        },
    })))
}

/// The body of a group construct's reply to a client of OpenPMIx `v5` (5.0 or later)
/// or not (4.2): what [`decode_reply`] reads for `GROUP_CONSTRUCT`. `own`: the client's namespace,
/// whose job info it has (the others' go along in a 5.x reply).
///
/// # Errors
/// As [`encode_job_info`].
pub fn encode_group_reply(
    status: i32,
    reply: Option<&GroupReply>,
    v5: bool,
    own: &Nspace,
) -> Result<Vec<u8>> {
    let mut w = BodyWriter::new();
    w.status(status);
    let results = reply.map_or(&[][..], |g| &g.results[..]);
    let ctxid = crate::protocol::group_context_id(results)
        .map_or(usize::MAX, |c| usize::try_from(c).unwrap_or(usize::MAX));
    if !v5 {
        w.size(ctxid);
        return Ok(w.finish());
    }
    if status != sys::PMIX_SUCCESS {
        return Ok(w.finish());
    }
    let members: Vec<ProcId> = results
        .iter()
        .filter(|i| i.key.as_str() == sys::attrs::keys::PMIX_GROUP_MEMBERSHIP)
        .flat_map(|i| i.value.procs())
        .collect();
    w.size(members.len());
    for m in &members {
        w.proc_id(m);
    }
    w.size(ctxid);
    for j in reply.map_or(&[][..], |g| &g.data.jobs[..]) {
        if &j.nspace != own {
            w.byte_object(&encode_job_info(&job_info_of(j, job_size(j))?)?);
        }
    }
    Ok(w.finish())
}

/// An IOF pull's reply: the status and, on success, the server's id for the registration
/// (the inverse of [`iof_pull_refid`]).
pub fn encode_pull_reply(status: i32, refid: Option<u64>) -> Vec<u8> {
    let mut w = BodyWriter::new();
    w.status(status);
    if let (sys::PMIX_SUCCESS, Some(id)) = (status, refid) {
        w.size(id as usize);
    }
    w.finish()
}

/// The server's id for an accepted IOF pull (what a deregistration names), from the
/// pull's reply; `None` for a refusal or a reply without one.
///
/// # Errors
/// `PMIX_ERR_UNPACK_*` for a malformed body.
pub fn iof_pull_refid(body: &[u8]) -> Result<Option<u64>> {
    let mut r = BodyReader::new(body);
    if r.status()? != sys::PMIX_SUCCESS || r.is_empty() {
        return Ok(None);
    }
    Ok(Some(r.size()? as u64))
}

/// Forwarded output (tag [`super::frame::TAG_IOF`]): source, channel, the client's id
/// for the registration, infos, the bytes.
///
/// # Errors
/// `PMIX_ERR_UNPACK_*` for a malformed body.
pub fn decode_iof(body: &[u8]) -> Result<(u64, IofChunk)> {
    let mut r = BodyReader::new(body);
    let source = r.proc_id()?;
    let channel = match r.values(sys::PMIX_IOF_CHANNEL)?.first() {
        Some(Value::IofChannel(c)) => *c,
        _ => return Err(Error::unpack("v41 IOF: no channel")),
    };
    let id = r.size()? as u64;
    let info = r.infos()?;
    let data = if r.is_empty() {
        Vec::new()
    } else {
        r.byte_object()?
    };
    r.end("IOF")?;
    Ok((
        id,
        IofChunk {
            source,
            channel,
            info,
            data,
        },
    ))
}

/// Forwarded output as a server sends it (the encoding [`decode_iof`] reads).
///
/// # Errors
/// A packing error of an info.
pub fn encode_iof(id: u64, c: &IofChunk) -> Result<Vec<u8>> {
    let mut w = BodyWriter::new();
    w.proc_id(&c.source);
    w.values(&[Value::IofChannel(c.channel)], sys::PMIX_IOF_CHANNEL)?;
    w.size(id as usize);
    w.infos(&c.info)?;
    w.byte_object(&c.data);
    Ok(w.finish())
}

fn spawned(r: &mut BodyReader<'_>) -> Result<ReplyData> {
    let ns = r.string()?.unwrap_or_default();
    let _job = r.kvals_to_end()?;
    Ok(ReplyData::Data(vec![Info::new(
        sys::attrs::keys::PMIX_NSPACE,
        Value::string(&ns),
    )?]))
}

/// The job info of a job-info reply for `j`: [`job_info_of`] for every rank up to the
/// job size (or the highest rank with data).
///
/// # Errors
/// As [`job_info_of`].
pub fn job_info_reply(j: &JobData) -> Result<JobInfo> {
    let n = j.procs.lists().keys().next_back().map_or(0, |r| r + 1);
    let size = u32_of(&j.job, sys::attrs::keys::PMIX_JOB_SIZE)
        .unwrap_or(n)
        .max(n);
    job_info_of(j, size)
}

/// Encode the reply to command `c` (the server's half).
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` for data this command cannot carry; a packing error.
pub fn encode_reply(c: u8, status: i32, data: &ReplyData) -> Result<Vec<u8>> {
    if c == cmd::REQ {
        let ReplyData::Job(j) = data else {
            return Err(Error::bad_param("v41: job info reply without job data"));
        };
        return encode_job_info(&job_info_reply(j)?);
    }
    let mut w = BodyWriter::new();
    w.status(status);
    match (c, data) {
        (_, ReplyData::None) => {}
        (cmd::GETNB, ReplyData::Data(infos)) => {
            return Err(Error::bad_param(format!(
                "v41: a Get reply needs the owner of its {} values (use encode_get_reply)",
                infos.len()
            )))
        }
        (cmd::LOOKUPNB, ReplyData::Pdata(p)) => {
            w.size(p.len());
            if !p.is_empty() {
                let v: Vec<Value> = p
                    .iter()
                    .map(|d| Value::Pdata(Box::new(d.clone())))
                    .collect();
                w.values(&v, sys::PMIX_PDATA)?;
            }
        }
        (cmd::QUERY | cmd::JOB_CONTROL | cmd::ALLOC | cmd::MONITOR, ReplyData::Data(i)) => {
            w.infos(i)?
        }
        (cmd::SPAWNNB, ReplyData::Job(j)) => {
            // STATUS, then the new namespace's job info (STRING nspace, KVAL…), which
            // the client stores as it stores its own.
            w.raw(&encode_job_info(&job_info_of(j, job_size(j))?)?);
        }
        (cmd::SPAWNNB, ReplyData::Data(i)) => {
            let ns = i
                .iter()
                .find(|i| i.key.as_str() == sys::attrs::keys::PMIX_NSPACE);
            let ns = match ns.map(|i| &i.value) {
                Some(Value::String(Some(s))) => String::from_utf8_lossy(s).into_owned(),
                _ => return Err(Error::bad_param("v41: spawn reply without PMIX_NSPACE")),
            };
            w.string(Some(&ns));
        }
        (cmd::CONNECTNB, ReplyData::Connected(cd)) => {
            for j in &cd.jobs {
                let n = j.procs.lists().keys().next_back().map_or(0, |r| r + 1);
                w.byte_object(&encode_job_info(&job_info_of(j, n)?)?);
            }
        }
        (c, d) => {
            return Err(Error::not_supported(format!(
                "v41: command {} reply cannot carry {:?}",
                c,
                std::mem::discriminant(d)
            )))
        }
    }
    Ok(w.finish())
}

/// A Get reply: status, then one byte object (`PROC` + `KVAL…`) per process.
pub fn encode_get_reply(status: i32, blobs: &[ProcData]) -> Result<Vec<u8>> {
    let mut w = BodyWriter::new();
    w.status(status);
    for (p, infos) in blobs {
        let mut b = BodyWriter::new();
        b.proc_id(p);
        for i in infos {
            b.kval(i.key.as_str(), &i.value)?;
        }
        w.byte_object(&b.finish());
    }
    Ok(w.finish())
}

/// An event delivery (sent with tag 0): `NOTIFY`, code, source, infos, range.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a message that is not an event; a packing error.
pub fn encode_event(m: &ServerMsg, range: u8) -> Result<Vec<u8>> {
    let ServerMsg::Event {
        status,
        source,
        info,
    } = m
    else {
        return Err(Error::bad_param("v41: only events travel with tag 0"));
    };
    let mut w = BodyWriter::new();
    w.cmd(cmd::NOTIFY);
    w.status(*status);
    w.proc_id(source);
    w.infos(info)?;
    w.byte(range);
    Ok(w.finish())
}

/// Decode an event delivery (the range, only a relay's concern, is dropped).
///
/// # Errors
/// `PMIX_ERR_UNPACK_*` for a malformed body or another command.
pub fn decode_event(body: &[u8]) -> Result<ServerMsg> {
    let mut r = BodyReader::new(body);
    let c = r.cmd()?;
    if c != cmd::NOTIFY {
        return Err(Error::unpack(format!(
            "v41: tag-0 message with command {}",
            c
        )));
    }
    let status = r.status()?;
    let source = r.proc_id()?;
    let info = r.infos()?;
    if !r.is_empty() {
        let _range = r.byte()?;
    }
    r.end("event")?;
    Ok(ServerMsg::Event {
        status,
        source,
        info,
    })
}

/// The KVALs of a committed bucket, as the server stores them.
pub fn bucket_kvals(b: &[u8]) -> Result<Vec<(Key, Value)>> {
    kvals_of(b)
}
