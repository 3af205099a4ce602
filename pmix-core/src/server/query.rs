//! `PMIx_Query_info` in the server, and the process sets it reports.
//!
//! The server answers what its own data holds:
//! * `PMIX_QUERY_NAMESPACES` — the registered namespaces, comma-separated;
//! * `PMIX_QUERY_PROC_TABLE` / `PMIX_QUERY_LOCAL_PROC_TABLE` — a data array of
//!   `pmix_proc_info_t` (host name, executable, pid, state) for the namespace named by
//!   `PMIX_NSPACE` (default: the requester's);
//! * `PMIX_QUERY_NUM_PSETS`, `PMIX_QUERY_PSET_NAMES` (comma-separated),
//!   `PMIX_QUERY_PSET_MEMBERSHIP` (with `PMIX_PSET_NAME`);
//! * `PMIX_QUERY_NUM_GROUPS`, `PMIX_QUERY_GROUP_NAMES`, `PMIX_QUERY_GROUP_MEMBERSHIP`
//!   (with `PMIX_GROUP_ID`);
//! * `PMIX_QUERY_RESOLVE_PEERS` / `PMIX_QUERY_RESOLVE_NODE` (with `PMIX_NSPACE`, and
//!   `PMIX_HOSTNAME` for the peers);
//! * any job-level key of the namespace named by `PMIX_NSPACE` (e.g. `PMIX_JOB_SIZE`),
//!   or a process-level key with `PMIX_PROCID` or `PMIX_NSPACE` + `PMIX_RANK`.
//!
//! The other keys go to the host in one `query` upcall; its answers are matched back to
//! the queries by key. The reply holds one `PMIX_QUERY_RESULTS` per query that found
//! something: a data array of infos, `PMIX_QUERY_QUALIFIERS` first when the query had
//! qualifiers, then one info per key found. Status: `PMIX_SUCCESS` when every key was
//! answered, `PMIX_ERR_PARTIAL_SUCCESS` when some were, `PMIX_ERR_NOT_FOUND` when none.

use super::{reply, Action, ServerState};
use crate::error::Result;
use crate::protocol::ReplyData;
use crate::reactor::ConnId;
use crate::server::state::Upcall;
use crate::store::Level;
use crate::value::{DataArray, Info, Nspace, ProcId, ProcInfo, Query, Rank, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::borrow::Cow;

/// Results gathered so far for a client's queries (carried through the host upcall).
#[derive(Debug, Default)]
pub struct QueryState {
    /// Each query with the key/values found for it.
    queries: Vec<(Query, Vec<Info>)>,
    /// How many keys were asked in all.
    asked: usize,
}

fn keys_of(q: &Query) -> Vec<String> {
    q.keys
        .iter()
        .flatten()
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .filter(|k| !k.is_empty())
        .collect()
}

fn qual<'a>(q: &'a Query, key: &str) -> Option<&'a Value> {
    q.qualifiers
        .iter()
        .find(|i| i.key.as_str() == key)
        .map(|i| &i.value)
}

fn strings(v: Vec<String>) -> Value {
    Value::string(&v.join(","))
}

impl ServerState {
    /// Process sets: defined by the host (`PMIx_server_define_process_set`).
    pub fn define_pset(&mut self, name: &str, members: Vec<ProcId>, out: &mut Vec<Action>) {
        self.dynamic.psets.insert(name.to_string(), members.clone());
        let info = vec![
            Info::new(ak::PMIX_PSET_NAME, Value::string(name)),
            Info::new(ak::PMIX_PSET_MEMBERS, Value::proc_array(&members)),
        ]
        .into_iter()
        .flatten()
        .collect();
        let id = self.id.clone();
        self.host_notify(
            sys::PMIX_PROCESS_SET_DEFINE,
            &id,
            sys::PMIX_RANGE_SESSION,
            info,
            out,
        );
    }

    /// Remove a process set (`PMIx_server_delete_process_set`).
    pub fn delete_pset(&mut self, name: &str, out: &mut Vec<Action>) {
        if self.dynamic.psets.remove(name).is_some() {
            let info = Info::new(ak::PMIX_PSET_NAME, Value::string(name))
                .into_iter()
                .collect();
            let id = self.id.clone();
            self.host_notify(
                sys::PMIX_PROCESS_SET_DELETE,
                &id,
                sys::PMIX_RANGE_SESSION,
                info,
                out,
            );
        }
    }

    /// Names of the process sets `p` belongs to.
    pub(super) fn psets_of(&self, p: &ProcId) -> Vec<String> {
        self.dynamic
            .psets
            .iter()
            .filter(|(_, m)| m.iter().any(|q| crate::event::proc_matches(q, p)))
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Keys the dynamic operations answer in a Get (`PMIX_PSET_NAMES`,
    /// `PMIX_GROUP_NAMES` of a process): true if it answered.
    pub(super) fn dyn_get(
        &self,
        conn: ConnId,
        tag: u32,
        target: &ProcId,
        key: Option<&crate::value::Key>,
        out: &mut Vec<Action>,
    ) -> bool {
        let Some(k) = key else { return false };
        let names = match k.as_str() {
            ak::PMIX_PSET_NAMES => self.psets_of(target),
            ak::PMIX_GROUP_NAMES => self.groups_of(target),
            _ => return false,
        };
        let v = Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_STRING,
            items: names.iter().map(|n| Value::string(n)).collect(),
        }));
        match Info::new(k.as_str(), v) {
            Ok(i) => out.push(reply(
                conn,
                tag,
                sys::PMIX_SUCCESS,
                ReplyData::Data(vec![i]),
            )),
            Err(_) => out.push(reply(conn, tag, sys::PMIX_ERR_NOT_FOUND, ReplyData::None)),
        }
        true
    }

    /// The namespace a query is about: `PMIX_NSPACE`, `PMIX_PROCID`, else the requester's.
    fn query_nspace(q: &Query, me: &ProcId) -> Nspace {
        match qual(q, ak::PMIX_NSPACE).or_else(|| qual(q, ak::PMIX_PROCID)) {
            Some(Value::String(Some(b))) => {
                Nspace::new(String::from_utf8_lossy(b)).unwrap_or_else(|_| me.nspace.clone())
            }
            Some(Value::ProcNspace(Some(ns))) => ns.clone(),
            Some(Value::Proc(Some(p))) => p.nspace.clone(),
            _ => me.nspace.clone(),
        }
    }

    /// The process a query names (`PMIX_PROCID`, or `PMIX_NSPACE` + `PMIX_RANK`).
    fn query_proc(q: &Query) -> Option<ProcId> {
        if let Some(Value::Proc(Some(p))) = qual(q, ak::PMIX_PROCID) {
            return Some(p.clone());
        }
        let rank = qual(q, ak::PMIX_RANK).and_then(|v| match v {
            Value::Rank(r) => Some(*r),
            _ => v.as_u64().and_then(|r| Rank::try_from(r).ok()),
        })?;
        let ns = match qual(q, ak::PMIX_NSPACE)? {
            Value::String(Some(b)) => Nspace::new(String::from_utf8_lossy(b)).ok()?,
            Value::ProcNspace(Some(ns)) => ns.clone(),
            _ => return None,
        };
        Some(ProcId::new(ns, rank))
    }

    fn proc_table(&self, ns: &Nspace, local_only: bool) -> Option<Value> {
        let n = self.nspaces.get(ns)?;
        let size = n.job.job_size().unwrap_or(n.nlocal);
        let mut items = Vec::new();
        for r in 0..size {
            let p = ProcId::new(ns.clone(), r);
            let local = self.is_local(&p);
            if local_only && !local {
                continue;
            }
            let hostname = n
                .job
                .proc_value(r, ak::PMIX_HOSTNAME, Level::Any)
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_else(|| self.hostname.clone());
            let pid = n
                .job
                .proc_value(r, ak::PMIX_PROC_PID, Level::Any)
                .and_then(|v| match &*v {
                    Value::Pid(p) | Value::Int(p) | Value::Int32(p) => Some(*p),
                    _ => None,
                })
                .unwrap_or(0);
            let exe = n
                .job
                .proc_value(r, ak::PMIX_APP_ARGV, Level::Any)
                .and_then(|v| {
                    v.as_str()
                        .and_then(|s| s.split_whitespace().next().map(str::to_string))
                });
            let state = if n.lost.contains(&r) {
                sys::PMIX_PROC_STATE_TERM_WO_SYNC
            } else if n.gone.contains(&r) {
                sys::PMIX_PROC_STATE_TERMINATED
            } else if self.by_proc.contains_key(&p) {
                sys::PMIX_PROC_STATE_CONNECTED
            } else {
                sys::PMIX_PROC_STATE_RUNNING
            };
            items.push(Value::ProcInfo(Box::new(ProcInfo {
                proc_: p,
                hostname: Some(hostname.into_bytes()),
                executable_name: exe.map(String::into_bytes),
                pid,
                exit_code: 0,
                state,
            })));
        }
        Some(Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_PROC_INFO,
            items,
        })))
    }

    /// `PMIX_QUERY_RESOLVE_NODE`: the hosts namespace `ns`'s ranks run on.
    fn resolve_node(&self, ns: &Nspace) -> Option<Value> {
        let n = self.nspaces.get(ns)?;
        let size = n.job.job_size().unwrap_or(n.nlocal);
        let mut hosts: Vec<String> = Vec::new();
        for r in 0..size {
            let v = n.job.proc_value(r, ak::PMIX_HOSTNAME, Level::Any);
            if let Some(h) = v.as_deref().and_then(|v| v.as_str()) {
                if !hosts.iter().any(|x| x == h) {
                    hosts.push(h.to_string());
                }
            }
        }
        Some(strings(hosts))
    }

    /// `PMIX_QUERY_RESOLVE_PEERS`: namespace `ns`'s ranks on the host the query names
    /// (this server's host by default).
    fn resolve_peers(&self, ns: &Nspace, q: &Query) -> Option<Value> {
        let n = self.nspaces.get(ns)?;
        let host = qual(q, ak::PMIX_HOSTNAME)
            .and_then(|v| v.as_str())
            .unwrap_or(&self.hostname);
        let size = n.job.job_size().unwrap_or(n.nlocal);
        let items = (0..size)
            .filter(|&r| {
                n.job
                    .proc_value(r, ak::PMIX_HOSTNAME, Level::Any)
                    .as_deref()
                    .and_then(|v| v.as_str())
                    == Some(host)
            })
            .map(|r| Value::Proc(Some(ProcId::new(ns.clone(), r))))
            .collect();
        Some(Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_PROC,
            items,
        })))
    }

    /// Answer one key of query `q` from the server's data, if it can.
    fn answer_key(&self, key: &str, q: &Query, me: &ProcId) -> Option<Value> {
        let ns = Self::query_nspace(q, me);
        match key {
            ak::PMIX_QUERY_NAMESPACES => {
                let mut v: Vec<String> = self.nspaces.keys().map(|n| n.to_string()).collect();
                v.sort();
                Some(strings(v))
            }
            ak::PMIX_QUERY_PROC_TABLE => self.proc_table(&ns, false),
            ak::PMIX_QUERY_LOCAL_PROC_TABLE => self.proc_table(&ns, true),
            ak::PMIX_QUERY_NUM_PSETS => Some(Value::Size(self.dynamic.psets.len() as u64)),
            ak::PMIX_QUERY_PSET_NAMES => {
                Some(strings(self.dynamic.psets.keys().cloned().collect()))
            }
            ak::PMIX_QUERY_PSET_MEMBERSHIP => {
                let name = qual(q, ak::PMIX_PSET_NAME)?.as_str()?;
                let m = self.dynamic.psets.get(name)?;
                Some(Value::proc_array(m))
            }
            ak::PMIX_QUERY_NUM_GROUPS => Some(Value::Size(self.group_names().len() as u64)),
            ak::PMIX_QUERY_GROUP_NAMES => Some(Value::DataArray(Box::new(DataArray {
                dtype: sys::PMIX_STRING,
                items: self
                    .group_names()
                    .into_iter()
                    .map(|n| Value::string(&n))
                    .collect(),
            }))),
            ak::PMIX_GROUP_CONTEXT_ID => {
                let id = qual(q, ak::PMIX_GROUP_ID)?.as_str()?;
                self.dynamic.groups.get(id)?.ctx_id.map(Value::Size)
            }
            ak::PMIX_QUERY_GROUP_MEMBERSHIP => {
                let id = qual(q, ak::PMIX_GROUP_ID)?.as_str()?;
                let m = self.group_members(id)?;
                Some(Value::proc_array(&m))
            }
            ak::PMIX_QUERY_RESOLVE_NODE => self.resolve_node(&ns),
            ak::PMIX_QUERY_RESOLVE_PEERS => self.resolve_peers(&ns, q),
            ak::PMIX_QUERY_SUPPORTED_KEYS => Some(Value::string(
                &[
                    ak::PMIX_QUERY_NAMESPACES,
                    ak::PMIX_QUERY_PROC_TABLE,
                    ak::PMIX_QUERY_LOCAL_PROC_TABLE,
                    ak::PMIX_QUERY_NUM_PSETS,
                    ak::PMIX_QUERY_PSET_NAMES,
                    ak::PMIX_QUERY_PSET_MEMBERSHIP,
                    ak::PMIX_QUERY_NUM_GROUPS,
                    ak::PMIX_QUERY_GROUP_NAMES,
                    ak::PMIX_QUERY_GROUP_MEMBERSHIP,
                    ak::PMIX_QUERY_RESOLVE_NODE,
                    ak::PMIX_QUERY_RESOLVE_PEERS,
                    ak::PMIX_QUERY_ATTRIBUTE_SUPPORT,
                ]
                .join(","),
            )),
            k => {
                if k == ak::PMIX_PSET_NAMES {
                    let p = Self::query_proc(q).unwrap_or_else(|| me.clone());
                    return Some(Value::DataArray(Box::new(DataArray {
                        dtype: sys::PMIX_STRING,
                        items: self
                            .psets_of(&p)
                            .into_iter()
                            .map(|n| Value::string(&n))
                            .collect(),
                    })));
                }
                let n = self.nspaces.get(&ns)?;
                match Self::query_proc(q) {
                    Some(p) if p.rank < sys::PMIX_RANK_VALID => {
                        n.job.proc_value(p.rank, k, Level::Any).map(Cow::into_owned)
                    }
                    _ => n
                        .job
                        .job_value(k, Level::Any, Some(&self.hostname))
                        .map(Cow::into_owned),
                }
            }
        }
    }

    /// A client's queries: what the server cannot answer goes to the host.
    pub(super) fn query_req(
        &mut self,
        conn: ConnId,
        tag: u32,
        me: &ProcId,
        queries: Vec<Query>,
        out: &mut Vec<Action>,
    ) {
        if queries.is_empty() {
            out.push(reply(conn, tag, sys::PMIX_ERR_BAD_PARAM, ReplyData::None));
            return;
        }
        let mut st = QueryState::default();
        let mut for_host: Vec<Query> = Vec::new();
        for q in queries {
            let keys = keys_of(&q);
            if keys.first().map(String::as_str) == Some(ak::PMIX_QUERY_ATTRIBUTE_SUPPORT) {
                // Attribute support (the host's registrations live here): answered whole.
                let found = crate::client::query::attribute_support(&q);
                st.asked += found.len().max(1);
                st.queries.push((q, found));
                continue;
            }
            st.asked += keys.len();
            let local_only = q
                .qualifiers
                .iter()
                .any(|i| i.key.as_str() == ak::PMIX_QUERY_LOCAL_ONLY && i.value.is_true());
            let mut found = Vec::new();
            let mut missing: Vec<Vec<u8>> = Vec::new();
            for k in keys {
                match self
                    .answer_key(&k, &q, me)
                    .and_then(|v| Info::new(&k, v).ok())
                {
                    Some(i) => found.push(i),
                    None => missing.push(k.into_bytes()),
                }
            }
            if !missing.is_empty() && !local_only {
                for_host.push(Query {
                    keys: Some(missing),
                    qualifiers: q.qualifiers.clone(),
                });
            }
            st.queries.push((q, found));
        }
        if for_host.is_empty() {
            self.query_done(conn, tag, st, Ok(Vec::new()), out);
        } else {
            out.push(Action::Host(Upcall::Query {
                conn,
                tag,
                proc_: me.clone(),
                queries: for_host,
                state: st,
            }));
        }
    }

    /// The host answered the queries the server passed on (or the server answered all).
    pub fn query_done(
        &mut self,
        conn: ConnId,
        tag: u32,
        mut st: QueryState,
        r: Result<Vec<Info>>,
        out: &mut Vec<Action>,
    ) {
        let from_host = match r {
            Ok(v) => v,
            Err(e) => {
                log::debug!("server: the host did not answer queries: {}", e);
                Vec::new()
            }
        };
        // Host answers: flat key/values, or PMIX_QUERY_RESULTS arrays of them.
        let mut flat = Vec::new();
        for i in from_host {
            if i.key.as_str() == ak::PMIX_QUERY_RESULTS {
                if let Some(list) = crate::store::info_array(&i.value) {
                    flat.extend(
                        list.into_iter()
                            .filter(|x| x.key.as_str() != ak::PMIX_QUERY_QUALIFIERS),
                    );
                }
            } else {
                flat.push(i);
            }
        }
        for i in flat {
            if let Some((_, found)) = st.queries.iter_mut().find(|(q, found)| {
                keys_of(q).iter().any(|k| k == i.key.as_str())
                    && !found.iter().any(|f| f.key == i.key)
            }) {
                found.push(i);
            }
        }
        let answered: usize = st.queries.iter().map(|(_, f)| f.len()).sum();
        let mut results = Vec::new();
        for (q, found) in st.queries {
            if found.is_empty() {
                continue;
            }
            let mut items = Vec::new();
            if !q.qualifiers.is_empty() {
                if let Ok(i) = Info::new(
                    ak::PMIX_QUERY_QUALIFIERS,
                    Value::DataArray(Box::new(DataArray {
                        dtype: sys::PMIX_INFO,
                        items: q
                            .qualifiers
                            .into_iter()
                            .map(|i| Value::Info(Box::new(i)))
                            .collect(),
                    })),
                ) {
                    items.push(Value::Info(Box::new(i)));
                }
            }
            items.extend(found.into_iter().map(|i| Value::Info(Box::new(i))));
            if let Ok(i) = Info::new(
                ak::PMIX_QUERY_RESULTS,
                Value::DataArray(Box::new(DataArray {
                    dtype: sys::PMIX_INFO,
                    items,
                })),
            ) {
                results.push(i);
            }
        }
        let status = if answered == 0 {
            sys::PMIX_ERR_NOT_FOUND
        } else if answered < st.asked {
            sys::PMIX_ERR_PARTIAL_SUCCESS
        } else {
            sys::PMIX_SUCCESS
        };
        let data = if results.is_empty() {
            ReplyData::None
        } else {
            ReplyData::Data(results)
        };
        out.push(reply(conn, tag, status, data));
    }
}

#[cfg(test)]
mod tests {
    //! Queries driven through the state machine, in memory.
    use super::super::connect::tests::{msgs, p, send, setup};
    use super::super::*;
    use crate::protocol::{DynReq, ServerMsg};
    use crate::server::state::Upcall;
    use crate::value::Query;
    use pmix_sys::attrs::keys as ak;

    fn q(keys: &[&str], quals: Vec<Info>) -> Query {
        Query {
            keys: Some(keys.iter().map(|k| k.as_bytes().to_vec()).collect()),
            qualifiers: quals,
        }
    }

    fn answer(out: &[Action]) -> (i32, Vec<Info>) {
        msgs(out)
            .into_iter()
            .find_map(|(_, m)| match m {
                ServerMsg::Reply { status, data, .. } => Some((
                    status,
                    match data {
                        ReplyData::Data(v) => v,
                        _ => Vec::new(),
                    },
                )),
                _ => None,
            })
            .expect("a reply")
    }

    fn results_of(r: &Info) -> Vec<Info> {
        crate::store::info_array(&r.value).unwrap()
    }

    #[test]
    fn the_server_answers_what_it_knows_and_asks_the_host_for_the_rest() {
        let mut s = setup();
        let ns_b = Info::new(ak::PMIX_NSPACE, Value::string("b")).unwrap();
        let out = send(
            &mut s,
            1,
            1,
            DynReq::Query {
                queries: vec![
                    q(&[ak::PMIX_QUERY_NAMESPACES], vec![]),
                    q(
                        &[ak::PMIX_JOB_SIZE, ak::PMIX_QUERY_PROC_TABLE],
                        vec![ns_b.clone()],
                    ),
                ],
            },
        );
        let (st, res) = answer(&out);
        assert_eq!(st, sys::PMIX_SUCCESS);
        assert_eq!(res.len(), 2);
        let first = results_of(&res[0]);
        assert_eq!(first[0].value.as_str(), Some("a,b"));
        let second = results_of(&res[1]);
        assert_eq!(second[0].key.as_str(), ak::PMIX_QUERY_QUALIFIERS);
        assert_eq!(second[1].value, Value::Uint32(1));
        match &second[2].value {
            Value::DataArray(a) => assert_eq!(a.items.len(), 1),
            v => panic!("not a table: {:?}", v),
        }
        // An unknown key goes to the host; its answer is merged by key.
        let out = send(
            &mut s,
            1,
            2,
            DynReq::Query {
                queries: vec![q(&[ak::PMIX_QUERY_NAMESPACES, "host.key"], vec![])],
            },
        );
        let Some(Action::Host(Upcall::Query { state, queries, .. })) =
            out.into_iter().find(|a| matches!(a, Action::Host(_)))
        else {
            panic!("expected a host query");
        };
        assert_eq!(queries.len(), 1);
        let mut out = Vec::new();
        s.query_done(
            1,
            2,
            state,
            Ok(vec![Info::new("host.key", Value::Int(5)).unwrap()]),
            &mut out,
        );
        let (st, res) = answer(&out);
        assert_eq!(st, sys::PMIX_SUCCESS);
        assert_eq!(results_of(&res[0]).len(), 2);
        // The host knows nothing: partial.
        let out = send(
            &mut s,
            1,
            3,
            DynReq::Query {
                queries: vec![q(&[ak::PMIX_QUERY_NAMESPACES, "host.key"], vec![])],
            },
        );
        let Some(Action::Host(Upcall::Query { state, .. })) =
            out.into_iter().find(|a| matches!(a, Action::Host(_)))
        else {
            panic!("expected a host query");
        };
        let mut out = Vec::new();
        s.query_done(
            1,
            3,
            state,
            Err(crate::Error::not_supported("no")),
            &mut out,
        );
        assert_eq!(answer(&out).0, sys::PMIX_ERR_PARTIAL_SUCCESS);
        let _ = p("a", 0);
    }

    #[test]
    fn psets_are_reported_and_announced() {
        let mut s = setup();
        let mut out = Vec::new();
        s.define_pset("ps", vec![p("a", 1), p("b", 0)], &mut out);
        assert_eq!(
            msgs(&out)
                .iter()
                .filter(|(_, m)| matches!(m, ServerMsg::Event { status, .. } if *status == sys::PMIX_PROCESS_SET_DEFINE))
                .count(),
            3
        );
        assert_eq!(s.psets_of(&p("b", 0)), vec!["ps".to_string()]);
        assert!(s.psets_of(&p("a", 0)).is_empty());
        s.delete_pset("ps", &mut out);
        assert!(s.psets_of(&p("b", 0)).is_empty());
    }
}
