//! Which records a namespace's job data gives, per rank (`docs/DS21.md` §4, "What the
//! server stores"): from the same hash job info ([`JobInfo`]) an OpenPMIx hash client
//! is sent, so both stores hold the same values.

use super::Records;
use crate::codec::v41::wire::replies::{decode_pblob, JobInfo, PBLOB};
use crate::error::{Error, Result};
use crate::store::info_array;
use crate::value::{Info, Key, Rank, Value};
use pmix_sys as sys;
use std::collections::BTreeMap;
use sys::attrs::keys::{
    PMIX_APPNUM, PMIX_APP_INFO_ARRAY, PMIX_GLOBAL_RANK, PMIX_HOSTNAME, PMIX_HOSTNAME_ALIASES,
    PMIX_JOB_INFO_ARRAY, PMIX_JOB_SIZE, PMIX_LOCAL_PEERS, PMIX_LOCAL_RANK, PMIX_LOCAL_SIZE,
    PMIX_NODEID, PMIX_NODE_INFO_ARRAY, PMIX_NODE_RANK, PMIX_SESSION_INFO_ARRAY, PMIX_UNIV_SIZE,
};

/// Job-level keys put first, most read first: a client's fetch walks a rank's records
/// in order, each record before the match costing a key-hash compare.
const JOB_FIRST: [&str; 5] = [
    PMIX_JOB_SIZE,
    PMIX_LOCAL_SIZE,
    PMIX_UNIV_SIZE,
    PMIX_APPNUM,
    PMIX_LOCAL_PEERS,
];
/// Per-rank keys put first (as [`JOB_FIRST`]).
const RANK_FIRST: [&str; 6] = [
    PMIX_LOCAL_RANK,
    PMIX_NODE_RANK,
    PMIX_HOSTNAME,
    PMIX_APPNUM,
    PMIX_NODEID,
    PMIX_GLOBAL_RANK,
];

/// How many of a rank's [`job_records`] lie where its chain begins
/// ([`super::NsImage::build_split`]): for a process, its most read keys (`RANK_FIRST`; the
/// others come after the keys it commits, so that a reader of a committed key steps
/// over 6 records, not 12); the job level's all.
pub fn hot_len(rank: Rank, recs: &Records) -> usize {
    if rank == sys::PMIX_RANK_WILDCARD {
        return recs.len();
    }
    recs.iter()
        .take_while(|(k, _)| RANK_FIRST.contains(&k.as_str()))
        .count()
}

/// `recs` with the keys of `first` ahead, in its order; the rest (and a key's repeats)
/// keep their order, so the first of two records of one key stays the one found.
fn most_read_first(mut recs: Records, first: &[&str]) -> Records {
    recs.sort_by_key(|(k, _)| {
        first
            .iter()
            .position(|f| *f == k.as_str())
            .unwrap_or(first.len())
    });
    recs
}

/// Whether a node array describes the node named `host` (its `PMIX_HOSTNAME` or one of
/// its `PMIX_HOSTNAME_ALIASES`).
fn is_host(infos: &[Info], host: &str) -> bool {
    infos
        .iter()
        .any(|i| match (i.key.as_str(), i.value.as_str()) {
            (PMIX_HOSTNAME, Some(h)) => h == host,
            (PMIX_HOSTNAME_ALIASES, Some(a)) => a.split(',').any(|x| x == host),
            _ => false,
        })
}

fn array(k: &Key, v: &Value) -> Result<Vec<Info>> {
    info_array(v)
        .ok_or_else(|| Error::bad_param(format!("ds21: {} is not an array of infos", k.as_str())))
}

/// The records of a namespace: first the job level (`PMIX_RANK_WILDCARD`), then each
/// rank with data, ascending.
///
/// The job level holds `j`'s plain KVALs in order, then the entries of the session
/// array (as OpenPMIx 4.2.9 stores them; 4.2.2 leaves them to the arrays of the
/// job-info reply) and of the node array of `local_host` (the server's node) without
/// its `PMIX_HOSTNAME`, `PMIX_NODEID` and `PMIX_HOSTNAME_ALIASES`; other nodes' arrays,
/// app arrays and job arrays are left to that reply. Each `pmix.pblob` gives its rank's
/// records. The most read keys come first (`JOB_FIRST`, `RANK_FIRST`), the others in
/// their order.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an array key without an array of infos,
/// `PMIX_ERR_UNPACK_*` for a malformed `pmix.pblob`.
pub fn job_records(j: &JobInfo, local_host: &str) -> Result<Vec<(Rank, Records)>> {
    let mut job = Vec::new();
    let mut ranks: BTreeMap<Rank, Records> = BTreeMap::new();
    let flat = |infos: Vec<Info>| infos.into_iter().map(|i| (i.key, i.value));
    for (k, v) in &j.kvals {
        match k.as_str() {
            PBLOB => {
                let Value::ByteObject(b) = v else {
                    return Err(Error::bad_param("ds21: pmix.pblob not a byte object"));
                };
                let (rank, kvs) = decode_pblob(b)?;
                ranks.entry(rank).or_default().extend(kvs);
            }
            PMIX_SESSION_INFO_ARRAY => job.extend(flat(array(k, v)?)),
            PMIX_NODE_INFO_ARRAY => {
                let infos = array(k, v)?;
                if is_host(&infos, local_host) {
                    job.extend(flat(infos).filter(|(k, _)| {
                        ![PMIX_HOSTNAME, PMIX_NODEID, PMIX_HOSTNAME_ALIASES].contains(&k.as_str())
                    }));
                }
            }
            PMIX_APP_INFO_ARRAY | PMIX_JOB_INFO_ARRAY => {}
            _ => job.push((k.clone(), v.clone())),
        }
    }
    let mut out = vec![(sys::PMIX_RANK_WILDCARD, most_read_first(job, &JOB_FIRST))];
    out.extend(
        ranks
            .into_iter()
            .map(|(r, recs)| (r, most_read_first(recs, &RANK_FIRST))),
    );
    Ok(out)
}
