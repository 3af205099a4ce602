//! `PMIx_Query_info`, `PMIx_Resolve_peers`, `PMIx_Resolve_nodes`, `PMIx_Log` and the
//! host part of `PMIx_Job_control` in the client.
//!
//! Queries of `PMIX_QUERY_ATTRIBUTE_SUPPORT` are answered here (the attributes this
//! library honors, per client function), and so are queries of nothing but the ABI
//! levels (`PMIX_QUERY_STABLE_ABI_VERSION`, `PMIX_QUERY_PROVISIONAL_ABI_VERSION`, as
//! OpenPMIx answers them locally); every other query goes to the server, which
//! answers from its data or asks its host (see `server/query.rs` for the keys and the
//! `PMIX_QUERY_RESULTS` layout of the answer).

use super::{Callback, Client};
use crate::error::{Error, Result};
use crate::protocol::{DynReq, ReplyData};
use crate::reactor;
use crate::value::{DataArray, Info, Key, Nspace, ProcId, Query, Regattr, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;

/// The attributes each client function honors (`PMIX_QUERY_ATTRIBUTE_SUPPORT`).
const SUPPORT: &[(&str, &[&str])] = &[
    (
        "PMIx_Get",
        &[
            "PMIX_OPTIONAL",
            "PMIX_IMMEDIATE",
            "PMIX_TIMEOUT",
            "PMIX_DATA_SCOPE",
            "PMIX_GET_REFRESH_CACHE",
            "PMIX_SESSION_INFO",
            "PMIX_JOB_INFO",
            "PMIX_APP_INFO",
            "PMIX_NODE_INFO",
            "PMIX_GET_POINTER_VALUES",
            "PMIX_GET_STATIC_VALUES",
        ],
    ),
    ("PMIx_Fence", &["PMIX_COLLECT_DATA", "PMIX_TIMEOUT"]),
    ("PMIx_Connect", &["PMIX_TIMEOUT"]),
    ("PMIx_Disconnect", &["PMIX_TIMEOUT"]),
    (
        "PMIx_Publish",
        &["PMIX_RANGE", "PMIX_PERSISTENCE", "PMIX_TIMEOUT"],
    ),
    ("PMIx_Lookup", &["PMIX_RANGE", "PMIX_WAIT", "PMIX_TIMEOUT"]),
    ("PMIx_Unpublish", &["PMIX_RANGE", "PMIX_TIMEOUT"]),
    (
        "PMIx_Spawn",
        &[
            "PMIX_NOTIFY_COMPLETION",
            "PMIX_NOTIFY_PROC_TERMINATION",
            "PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION",
        ],
    ),
    (
        "PMIx_Register_event_handler",
        &[
            "PMIX_EVENT_HDLR_NAME",
            "PMIX_EVENT_HDLR_FIRST",
            "PMIX_EVENT_HDLR_LAST",
            "PMIX_EVENT_HDLR_FIRST_IN_CATEGORY",
            "PMIX_EVENT_HDLR_LAST_IN_CATEGORY",
            "PMIX_EVENT_HDLR_PREPEND",
            "PMIX_EVENT_HDLR_APPEND",
            "PMIX_EVENT_HDLR_BEFORE",
            "PMIX_EVENT_HDLR_AFTER",
            "PMIX_EVENT_AFFECTED_PROC",
            "PMIX_EVENT_AFFECTED_PROCS",
            "PMIX_EVENT_ONESHOT",
            "PMIX_EVENT_RETURN_OBJECT",
        ],
    ),
    (
        "PMIx_Notify_event",
        &[
            "PMIX_EVENT_NON_DEFAULT",
            "PMIX_EVENT_CUSTOM_RANGE",
            "PMIX_EVENT_STAYS_LOCAL",
            "PMIX_EVENT_AFFECTED_PROC",
            "PMIX_EVENT_AFFECTED_PROCS",
        ],
    ),
    (
        "PMIx_Query_info",
        &[
            "PMIX_QUERY_LOCAL_ONLY",
            "PMIX_NSPACE",
            "PMIX_RANK",
            "PMIX_PROCID",
            "PMIX_PSET_NAME",
            "PMIX_GROUP_ID",
            "PMIX_HOSTNAME",
            "PMIX_CLIENT_ATTRIBUTES",
            "PMIX_CLIENT_FUNCTIONS",
        ],
    ),
    (
        "PMIx_Group_construct",
        &[
            "PMIX_GROUP_ASSIGN_CONTEXT_ID",
            "PMIX_GROUP_NOTIFY_TERMINATION",
            "PMIX_GROUP_ADD_MEMBERS",
            "PMIX_TIMEOUT",
        ],
    ),
    (
        "PMIx_Group_invite",
        &["PMIX_GROUP_OPTIONAL", "PMIX_TIMEOUT"],
    ),
    (
        "PMIx_Job_control",
        &[
            "PMIX_JOB_CTRL_KILL",
            "PMIX_JOB_CTRL_TERMINATE",
            "PMIX_JOB_CTRL_SIGNAL",
            "PMIX_REGISTER_CLEANUP",
            "PMIX_REGISTER_CLEANUP_DIR",
        ],
    ),
    ("PMIx_Log", &["PMIX_LOG_STDERR", "PMIX_LOG_STDOUT"]),
];

fn keys_of(q: &Query) -> Vec<String> {
    q.keys
        .iter()
        .flatten()
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .filter(|k| !k.is_empty())
        .collect()
}

fn info(key: &str, value: Value) -> Option<Info> {
    Info::new(key, value).ok()
}

fn info_array(items: Vec<Info>) -> Value {
    Value::DataArray(Box::new(DataArray {
        dtype: sys::PMIX_INFO,
        items: items
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect(),
    }))
}

/// One supported attribute as a `PMIX_REGATTR` value: a name we know gets its key and
/// type; another (a host's own) is reported with its name as key and no type.
fn regattr(name: &str) -> Option<Value> {
    let (key, dtype) = match sys::attrs::attr_by_name(name) {
        Some(def) => (Key::new(def.key).ok()?, def.dtype),
        None => (Key::new(name).ok()?, sys::PMIX_UNDEF),
    };
    Some(Value::Regattr(Box::new(Regattr {
        name: Some(name.as_bytes().to_vec()),
        string: key,
        dtype,
        description: None,
    })))
}

/// `function` = the data array of `attrs` as `PMIX_REGATTR`s.
fn per_function<S: AsRef<str>>(function: &str, attrs: &[S]) -> Option<Info> {
    info(
        function,
        Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_REGATTR,
            items: attrs.iter().filter_map(|a| regattr(a.as_ref())).collect(),
        })),
    )
}

/// Whether an attribute-support query asks about the host (whose registrations live in
/// the server process).
fn asks_host(q: &Query) -> bool {
    q.qualifiers.iter().any(|i| {
        matches!(
            i.key.as_str(),
            ak::PMIX_HOST_ATTRIBUTES | ak::PMIX_HOST_FUNCTIONS
        )
    })
}

/// The answer to one attribute-support query (keys\[0\] is
/// `PMIX_QUERY_ATTRIBUTE_SUPPORT`, the other keys name functions; none: all). Host
/// levels come from this process's `PMIx_Register_attributes` registrations
/// (`crate::host_attrs`): a server answers them for its clients.
pub(crate) fn attribute_support(q: &Query) -> Vec<Info> {
    let keys = keys_of(q);
    let wanted: Vec<&str> = keys.iter().skip(1).map(String::as_str).collect();
    let want = |f: &str| wanted.is_empty() || wanted.contains(&f) || wanted.contains(&"all");
    let flag = |k: &str| q.qualifiers.iter().any(|i| i.key.as_str() == k);
    let mut out = Vec::new();
    if flag(ak::PMIX_CLIENT_FUNCTIONS) {
        let names: Vec<&str> = SUPPORT.iter().map(|(f, _)| *f).collect();
        out.extend(info(
            ak::PMIX_CLIENT_FUNCTIONS,
            Value::string(&names.join(",")),
        ));
    }
    let host = crate::host_attrs::registered();
    if flag(ak::PMIX_HOST_FUNCTIONS) && !host.is_empty() {
        let names: Vec<&str> = host.iter().map(|(f, _)| f.as_str()).collect();
        out.extend(info(
            ak::PMIX_HOST_FUNCTIONS,
            Value::string(&names.join(",")),
        ));
    }
    let levels = [
        ak::PMIX_CLIENT_ATTRIBUTES,
        ak::PMIX_SERVER_ATTRIBUTES,
        ak::PMIX_HOST_ATTRIBUTES,
        ak::PMIX_TOOL_ATTRIBUTES,
    ];
    let any_level = levels.iter().any(|l| flag(l));
    let mut per_fn = Vec::new();
    if flag(ak::PMIX_CLIENT_ATTRIBUTES)
        || (!any_level && !flag(ak::PMIX_CLIENT_FUNCTIONS) && !flag(ak::PMIX_HOST_FUNCTIONS))
    {
        for (f, attrs) in SUPPORT {
            if want(f) {
                per_fn.extend(per_function(f, attrs));
            }
        }
    }
    if flag(ak::PMIX_HOST_ATTRIBUTES) {
        for (f, attrs) in &host {
            if want(f) {
                per_fn.extend(per_function(f, attrs));
            }
        }
    }
    if !per_fn.is_empty() {
        out.extend(info(ak::PMIX_QUERY_ATTRIBUTE_SUPPORT, info_array(per_fn)));
    }
    out
}

/// One attribute a function supports, as `PMIx_Query_info` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupportedAttr {
    /// The attribute's name (`"PMIX_TIMEOUT"`).
    pub name: String,
    /// Its key string (`"pmix.timeout"`).
    pub key: String,
    /// Its data type (`PMIX_UNDEF` for a name we do not know).
    pub dtype: u16,
}

/// What `PMIx_Query_info` with `PMIX_QUERY_ATTRIBUTE_SUPPORT` and no qualifiers
/// answers in this process, per function (`functions` narrows it; empty: every one),
/// in the order of the answer. `pmix_info --attrs` prints this: it unpacks the very
/// answer `attribute_support` builds, so the two cannot differ.
pub fn supported_attributes(functions: &[&str]) -> Vec<(String, Vec<SupportedAttr>)> {
    let mut keys = vec![ak::PMIX_QUERY_ATTRIBUTE_SUPPORT.as_bytes().to_vec()];
    keys.extend(functions.iter().map(|f| f.as_bytes().to_vec()));
    let q = Query {
        keys: Some(keys),
        qualifiers: Vec::new(),
    };
    let mut out = Vec::new();
    for top in attribute_support(&q) {
        for per_fn in crate::store::info_array(&top.value).unwrap_or_default() {
            let Value::DataArray(a) = &per_fn.value else {
                continue;
            };
            let attrs = a
                .items
                .iter()
                .filter_map(|v| match v {
                    Value::Regattr(r) => Some(SupportedAttr {
                        name: String::from_utf8_lossy(r.name.as_deref().unwrap_or_default())
                            .into_owned(),
                        key: r.string.as_str().to_string(),
                        dtype: r.dtype,
                    }),
                    _ => None,
                })
                .collect();
            out.push((per_fn.key.as_str().to_string(), attrs));
        }
    }
    out
}

/// Wrap one query's answers as `PMIX_QUERY_RESULTS` (qualifiers first).
fn results_of(q: &Query, found: Vec<Info>) -> Option<Info> {
    let mut items = Vec::new();
    if !q.qualifiers.is_empty() {
        items.extend(info(
            ak::PMIX_QUERY_QUALIFIERS,
            info_array(q.qualifiers.clone()),
        ));
    }
    items.extend(found);
    info(ak::PMIX_QUERY_RESULTS, info_array(items))
}

/// The ABI-level keys the client answers itself, with their answers.
const ABI_LEVELS: [(&str, &str); 2] = [
    (
        ak::PMIX_QUERY_STABLE_ABI_VERSION,
        sys::PMIX_STD_ABI_STABLE_VERSION,
    ),
    (
        ak::PMIX_QUERY_PROVISIONAL_ABI_VERSION,
        sys::PMIX_STD_ABI_PROVISIONAL_VERSION,
    ),
];

/// Whether a query is answered by the client itself: attribute support, or only ABI
/// levels (`PMIX_QUERY_STABLE_ABI_VERSION`, `PMIX_QUERY_PROVISIONAL_ABI_VERSION`).
fn local(q: &Query) -> bool {
    let keys = keys_of(q);
    match keys.first().map(String::as_str) {
        Some(ak::PMIX_QUERY_ATTRIBUTE_SUPPORT) => true,
        Some(_) => keys
            .iter()
            .all(|k| ABI_LEVELS.iter().any(|(abi, _)| abi == k)),
        None => false,
    }
}

/// The answer to a query the client answers itself (see [`local`]).
fn local_answer(q: &Query) -> Vec<Info> {
    let keys = keys_of(q);
    if keys.first().map(String::as_str) == Some(ak::PMIX_QUERY_ATTRIBUTE_SUPPORT) {
        return attribute_support(q);
    }
    ABI_LEVELS
        .iter()
        .filter(|(abi, _)| keys.iter().any(|k| k == abi))
        .filter_map(|(abi, level)| info(abi, Value::string(level)))
        .collect()
}

impl Client {
    /// `PMIx_Query_info_nb`: `cb` receives the status (`PMIX_SUCCESS`,
    /// `PMIX_ERR_PARTIAL_SUCCESS`) and one `PMIX_QUERY_RESULTS` per query that found
    /// something.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` (no queries, or a process named both by `PMIX_PROCID` and by
    /// `PMIX_NSPACE`/`PMIX_RANK`), `PMIX_ERR_UNREACH`.
    pub fn query_nb(&self, queries: Vec<Query>, cb: Callback<(i32, Vec<Info>)>) -> Result<()> {
        if queries.is_empty() {
            log::warn!("PMIx_Query_info: no queries");
            return Err(Error::bad_param("no queries"));
        }
        for q in &queries {
            let has = |k: &str| q.qualifiers.iter().any(|i| i.key.as_str() == k);
            if has(ak::PMIX_PROCID) && (has(ak::PMIX_NSPACE) || has(ak::PMIX_RANK)) {
                log::warn!("PMIx_Query_info: PMIX_PROCID together with PMIX_NSPACE/PMIX_RANK");
                return Err(Error::bad_param(
                    "a query names its process both by PMIX_PROCID and PMIX_NSPACE/PMIX_RANK",
                ));
            }
        }
        // A client asks its server about the host; a server process (or a singleton)
        // answers from its own registrations.
        let connected = self
            .inner
            .connected
            .load(std::sync::atomic::Ordering::SeqCst);
        let (mine, remote): (Vec<Query>, Vec<Query>) = queries
            .into_iter()
            .partition(|q| local(q) && !(connected && asks_host(q)));
        let mut answered: Vec<Info> = Vec::new();
        let mut all_found = true;
        for q in &mine {
            let found = local_answer(q);
            if found.is_empty() {
                all_found = false;
            } else {
                answered.extend(results_of(q, found));
            }
        }
        let finish = move |status: i32, more: Vec<Info>, answered: Vec<Info>| {
            let mut all = answered;
            all.extend(more);
            if all.is_empty() {
                let st = match status {
                    sys::PMIX_SUCCESS | sys::PMIX_ERR_PARTIAL_SUCCESS => sys::PMIX_ERR_NOT_FOUND,
                    e => e,
                };
                return Err(Error::new(st, "the query found nothing"));
            }
            if all_found && status == sys::PMIX_SUCCESS {
                Ok((sys::PMIX_SUCCESS, all))
            } else {
                Ok((sys::PMIX_ERR_PARTIAL_SUCCESS, all))
            }
        };
        if remote.is_empty() {
            let r = finish(sys::PMIX_SUCCESS, Vec::new(), answered);
            return self.inner.handle.post(move |_| cb(r));
        }
        if self.is_singleton() {
            if answered.is_empty() {
                return Err(Error::new(
                    sys::PMIX_ERR_UNREACH,
                    "a singleton has no server to query",
                ));
            }
            let r = finish(sys::PMIX_ERR_PARTIAL_SUCCESS, Vec::new(), answered);
            return self.inner.handle.post(move |_| cb(r));
        }
        self.dyn_request(
            DynReq::Query { queries: remote },
            Box::new(move |st, data| {
                let more = match data {
                    ReplyData::Data(v) => v,
                    _ => Vec::new(),
                };
                cb(finish(st, more, answered));
            }),
        )
    }

    /// `PMIx_Query_info` (blocking).
    ///
    /// # Errors
    /// As [`Client::query_nb`], plus `PMIX_ERR_NOT_FOUND` (nothing answered) and
    /// `PMIX_ERR_WOULD_BLOCK` on the progress thread.
    pub fn query(&self, queries: Vec<Query>) -> Result<(i32, Vec<Info>)> {
        reactor::wait("PMIx_Query_info", None, |done| {
            self.query_nb(queries, Box::new(move |r| done.complete(r)))
        })
    }

    /// One key of one query, unwrapped from the results.
    fn query_one(&self, key: &str, qualifiers: Vec<Info>, call: &str) -> Result<Value> {
        let q = Query {
            keys: Some(vec![key.as_bytes().to_vec()]),
            qualifiers,
        };
        let (_, res) = reactor::wait(call, None, |done| {
            self.query_nb(vec![q], Box::new(move |r| done.complete(r)))
        })?;
        res.into_iter()
            .filter_map(|i| crate::store::info_array(&i.value))
            .flatten()
            .find(|i| i.key.as_str() == key)
            .map(|i| i.value)
            .ok_or_else(|| Error::not_found(format!("{} found nothing", call)))
    }

    /// `PMIx_Resolve_peers`: the processes of `nspace` (None: of every namespace) on
    /// `node` (None: this node).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_UNREACH`, `PMIX_ERR_WOULD_BLOCK`.
    pub fn resolve_peers(
        &self,
        node: Option<&str>,
        nspace: Option<&Nspace>,
    ) -> Result<Vec<ProcId>> {
        let node = node.map_or_else(|| self.inner.hostname.clone(), str::to_string);
        let spaces: Vec<Nspace> = match nspace {
            Some(ns) => vec![ns.clone()],
            None => {
                let v =
                    self.query_one(ak::PMIX_QUERY_NAMESPACES, Vec::new(), "PMIx_Resolve_peers")?;
                v.as_str()
                    .unwrap_or_default()
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .filter_map(|s| Nspace::new(s).ok())
                    .collect()
            }
        };
        let mut out = Vec::new();
        for ns in spaces {
            let quals: Vec<Info> = [
                info(ak::PMIX_NSPACE, Value::string(ns.as_str())),
                info(ak::PMIX_HOSTNAME, Value::string(&node)),
            ]
            .into_iter()
            .flatten()
            .collect();
            if let Ok(Value::DataArray(a)) =
                self.query_one(ak::PMIX_QUERY_RESOLVE_PEERS, quals, "PMIx_Resolve_peers")
            {
                out.extend(a.items.into_iter().filter_map(|v| match v {
                    Value::Proc(Some(p)) => Some(p),
                    _ => None,
                }));
            }
        }
        if out.is_empty() {
            return Err(Error::not_found(format!("no processes on {}", node)));
        }
        Ok(out)
    }

    /// `PMIx_Resolve_nodes`: the comma-separated nodes `nspace`'s processes run on.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_UNREACH`, `PMIX_ERR_WOULD_BLOCK`.
    pub fn resolve_nodes(&self, nspace: &Nspace) -> Result<String> {
        let quals = info(ak::PMIX_NSPACE, Value::string(nspace.as_str()))
            .into_iter()
            .collect();
        let v = self.query_one(ak::PMIX_QUERY_RESOLVE_NODE, quals, "PMIx_Resolve_nodes")?;
        v.as_str()
            .map(str::to_string)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| Error::not_found(format!("no nodes for {}", nspace)))
    }

    /// `PMIx_Log_nb`: hand `data` to the host's logging channels (`PMIX_LOG_STDERR`,
    /// `PMIX_LOG_STDOUT`, …). A singleton writes those two itself.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` (no data), `PMIX_ERR_UNREACH`.
    pub fn log_nb(&self, data: &[Info], directives: &[Info], cb: Callback<()>) -> Result<()> {
        if data.is_empty() {
            log::warn!("PMIx_Log: nothing to log");
            return Err(Error::bad_param("PMIx_Log needs data"));
        }
        if self.is_singleton() {
            let mut done = false;
            for i in data {
                match (i.key.as_str(), i.value.as_str()) {
                    (ak::PMIX_LOG_STDERR, Some(s)) => {
                        eprint!("{}", s);
                        done = true;
                    }
                    (ak::PMIX_LOG_STDOUT, Some(s)) => {
                        print!("{}", s);
                        done = true;
                    }
                    _ => {}
                }
            }
            let r = if done {
                Ok(())
            } else {
                Err(Error::not_supported("no logging channel for a singleton"))
            };
            return self.inner.handle.post(move |_| cb(r));
        }
        self.dyn_request(
            DynReq::Log {
                data: data.to_vec(),
                directives: directives.to_vec(),
            },
            Box::new(move |st, _| {
                cb(if st == sys::PMIX_SUCCESS {
                    Ok(())
                } else {
                    Err(Error::new(st, "log failed"))
                })
            }),
        )
    }

    /// `PMIx_Log` (blocking).
    ///
    /// # Errors
    /// As [`Client::log_nb`], plus `PMIX_ERR_WOULD_BLOCK` and the host's failure
    /// (`PMIX_ERR_NOT_SUPPORTED` when it handles none of the channels).
    pub fn log(&self, data: &[Info], directives: &[Info]) -> Result<()> {
        reactor::wait("PMIx_Log", None, |done| {
            self.log_nb(data, directives, Box::new(move |r| done.complete(r)))
        })
    }

    /// `PMIx_Job_control_nb`: requests that only register files or directories for
    /// cleanup (`PMIX_REGISTER_CLEANUP`, `..._DIR` and their `PMIX_CLEANUP_*` modifiers)
    /// are accepted here (the launcher removes its session directories itself); anything
    /// else (`PMIX_JOB_CTRL_KILL`, `..._TERMINATE`, `..._SIGNAL`, …) goes to the host.
    /// `cb` receives the host's results. Empty `targets`: our namespace.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` (no directives), `PMIX_ERR_UNREACH`.
    pub fn job_control_nb(
        &self,
        targets: &[ProcId],
        directives: &[Info],
        cb: Callback<Vec<Info>>,
    ) -> Result<()> {
        const CLEANUP: [&str; 6] = [
            ak::PMIX_REGISTER_CLEANUP,
            ak::PMIX_REGISTER_CLEANUP_DIR,
            ak::PMIX_CLEANUP_RECURSIVE,
            ak::PMIX_CLEANUP_EMPTY,
            ak::PMIX_CLEANUP_IGNORE,
            ak::PMIX_CLEANUP_LEAVE_TOPDIR,
        ];
        if directives.is_empty() {
            log::warn!("PMIx_Job_control: no directives");
            return Err(Error::bad_param("PMIx_Job_control needs directives"));
        }
        if directives.iter().all(|i| CLEANUP.contains(&i.key.as_str())) {
            log::debug!("PMIx_Job_control: cleanup registration accepted (left to the launcher)");
            return self.inner.handle.post(move |_| cb(Ok(Vec::new())));
        }
        self.job_control_host(targets, directives, cb)
    }

    /// `PMIx_Job_control` (blocking): the host's results.
    ///
    /// # Errors
    /// As [`Client::job_control_nb`], plus `PMIX_ERR_WOULD_BLOCK` and the host's failure
    /// (`PMIX_ERR_NOT_SUPPORTED`).
    pub fn job_control_wait(&self, targets: &[ProcId], directives: &[Info]) -> Result<Vec<Info>> {
        reactor::wait("PMIx_Job_control", None, |done| {
            self.job_control_nb(targets, directives, Box::new(move |r| done.complete(r)))
        })
    }

    /// The host part of `PMIx_Job_control_nb`: `cb` receives the host's results.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH`.
    fn job_control_host(
        &self,
        targets: &[ProcId],
        directives: &[Info],
        cb: Callback<Vec<Info>>,
    ) -> Result<()> {
        if self.is_singleton() {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                "a singleton has no server for job control",
            ));
        }
        self.dyn_request(
            DynReq::JobControl {
                targets: targets.to_vec(),
                directives: directives.to_vec(),
            },
            Box::new(move |st, data| {
                if st != sys::PMIX_SUCCESS {
                    cb(Err(Error::new(st, "job control failed")));
                    return;
                }
                cb(Ok(match data {
                    ReplyData::Data(v) => v,
                    _ => Vec::new(),
                }))
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(keys: &[&str]) -> Query {
        Query {
            keys: Some(keys.iter().map(|k| k.as_bytes().to_vec()).collect()),
            qualifiers: Vec::new(),
        }
    }

    #[test]
    fn abi_levels_are_answered_locally() {
        let q = query(&[
            ak::PMIX_QUERY_PROVISIONAL_ABI_VERSION,
            ak::PMIX_QUERY_STABLE_ABI_VERSION,
        ]);
        assert!(local(&q));
        let got: Vec<(String, Option<String>)> = local_answer(&q)
            .into_iter()
            .map(|i| {
                (
                    i.key.as_str().to_string(),
                    i.value.as_str().map(str::to_string),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    ak::PMIX_QUERY_STABLE_ABI_VERSION.to_string(),
                    Some(sys::PMIX_STD_ABI_STABLE_VERSION.to_string())
                ),
                (
                    ak::PMIX_QUERY_PROVISIONAL_ABI_VERSION.to_string(),
                    Some(sys::PMIX_STD_ABI_PROVISIONAL_VERSION.to_string())
                ),
            ]
        );
        // Mixed with a key only the server knows: the server answers the query.
        assert!(!local(&query(&[
            ak::PMIX_QUERY_STABLE_ABI_VERSION,
            ak::PMIX_QUERY_NAMESPACES
        ])));
    }

    #[test]
    fn supported_attributes_are_the_support_table() {
        let all = supported_attributes(&[]);
        assert_eq!(all.len(), SUPPORT.len());
        for ((f, attrs), (g, names)) in all.iter().zip(SUPPORT) {
            assert_eq!(f, g);
            let got: Vec<&str> = attrs.iter().map(|a| a.name.as_str()).collect();
            assert_eq!(&got, names);
        }
        let get = &supported_attributes(&["PMIx_Get"])[0].1;
        let timeout = get.iter().find(|a| a.name == "PMIX_TIMEOUT").unwrap();
        assert_eq!(
            (timeout.key.as_str(), timeout.dtype),
            (ak::PMIX_TIMEOUT, sys::PMIX_INT)
        );
    }
}
