//! Key/value storage shared by the client and the server.
//!
//! * [`JobData`] — what a host registered for one namespace (`PMIx_server_register_nspace`):
//!   job-level, per-application, per-node and per-process information, kept with the exact
//!   value and type the host gave, plus values the server derives from the node and process
//!   maps when the host did not give them.
//! * [`KvSet`] — the data one process published with `PMIx_Put`/`PMIx_Commit`, with scopes.
//! * [`keys`] — the reserved keys the engine itself interprets.
//! * [`regex`] — our printable `PMIx_generate_regex`/`PMIx_generate_ppn` format and its parser.

mod implied;
pub mod keys;
pub mod procs;
pub mod qualified;
pub mod regex;

pub use procs::{ProcBuilder, ProcTable};

use crate::value::{DataArray, Info, Key, Nspace, ProcId, Rank, Value};
use pmix_sys as sys;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Keys [`JobData::own_view`] leaves to the general path: a node's process lists (one
/// entry per process of the node, built from the map when asked).
pub const OWN_VIEW_GENERAL: [&str; 2] = [keys::LOCAL_PEERS, keys::LOCAL_PROCS];

/// Information about one node of a job.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeData {
    /// `PMIX_NODEID`, if known.
    pub id: Option<u32>,
    /// `PMIX_HOSTNAME`, if known.
    pub hostname: Option<String>,
    /// Node-level keys.
    pub info: Vec<Info>,
}

/// Everything registered for one namespace, as the host gave it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobData {
    /// The namespace.
    pub nspace: Nspace,
    /// Job-level keys (answer a Get with rank `PMIX_RANK_WILDCARD`).
    pub job: Vec<Info>,
    /// Per-application keys, by application number.
    pub apps: Vec<(u32, Vec<Info>)>,
    /// Per-node keys.
    pub nodes: Vec<NodeData>,
    /// Per-process keys (`PMIX_PROC_DATA`) and what the process map implies, by rank
    /// (compact: see [`procs`]).
    pub procs: ProcTable,
}

fn find<'a>(list: &'a [Info], key: &str) -> Option<&'a Value> {
    list.iter()
        .find(|i| same_key(i.key.as_str(), key))
        .map(|i| &i.value)
}

/// `a == b`, telling apart most keys of equal length by their last byte before comparing
/// them whole (attribute keys share their `pmix.` prefix; a Get scans lists of them).
#[inline]
fn same_key(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.last() == b.last() && a == b
}

fn set_if_absent(list: &mut Vec<Info>, key: &str, value: Value) {
    if find(list, key).is_none() {
        if let Ok(k) = Key::new(key) {
            list.push(Info {
                key: k,
                flags: 0,
                value,
            });
        }
    }
}

/// Add one registered info to a level's list. A `PMIX_QUALIFIED_VALUE` joins that level's
/// one container of qualified values (see [`qualified`]), so a Get naming qualifiers
/// selects among everything the host registered; a malformed one is logged and kept as
/// given.
fn add_info(list: &mut Vec<Info>, info: Info, nspace: &Nspace) {
    if info.key.as_str() != qualified::CONTAINER {
        list.push(info);
        return;
    }
    let pos = list
        .iter()
        .position(|i| i.key.as_str() == qualified::CONTAINER);
    match qualified::merge(pos.and_then(|p| list.get(p)).map(|i| &i.value), &info.value) {
        Ok(merged) => {
            let entry = Info {
                key: info.key,
                flags: 0,
                value: merged,
            };
            match pos.and_then(|p| list.get_mut(p)) {
                Some(slot) => *slot = entry,
                None => list.push(entry),
            }
        }
        Err(e) => {
            log::warn!(
                "register_nspace {}: malformed PMIX_QUALIFIED_VALUE kept as given: {}",
                nspace,
                e
            );
            list.push(info);
        }
    }
}

/// Which application and node a job-level lookup is about (`PMIX_APPNUM`,
/// `PMIX_HOSTNAME`, `PMIX_NODEID` qualifiers of a Get), and where the reader runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Select<'a> {
    /// The application (None: the first registered).
    pub appnum: Option<u32>,
    /// The node, by host name.
    pub hostname: Option<&'a str>,
    /// The node, by id.
    pub nodeid: Option<u32>,
    /// The reader's host (the default node).
    pub local_host: Option<&'a str>,
}

/// Where a Get looks first when the caller narrows it with `PMIX_*_INFO` directives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Level {
    /// No directive: the process, then its node, app and job.
    #[default]
    Any,
    /// `PMIX_SESSION_INFO` or `PMIX_JOB_INFO`.
    Job,
    /// `PMIX_APP_INFO`.
    App,
    /// `PMIX_NODE_INFO`.
    Node,
}

impl JobData {
    /// Apply a node-narrowed retraction (`ServerMsg::ForgetNode`): the entries for the
    /// node `gone` names (by id or hostname) lose the keys `gone.info` lists, or all of
    /// their data when it lists none; an entry left with only its identifiers goes.
    pub fn forget_node(&mut self, gone: &NodeData) {
        let is_id = |k: &Key| k.as_str() == keys::NODEID || k.as_str() == keys::HOSTNAME;
        let same = |n: &NodeData| {
            (n.id.is_some() && n.id == gone.id)
                || (n.hostname.is_some() && n.hostname == gone.hostname)
        };
        for n in self.nodes.iter_mut().filter(|n| same(n)) {
            if gone.info.is_empty() {
                n.info.retain(|x| is_id(&x.key));
            } else {
                n.info.retain(|x| !gone.info.iter().any(|g| g.key == x.key));
            }
        }
        self.nodes
            .retain(|n| !same(n) || n.info.iter().any(|x| !is_id(&x.key)));
    }

    /// Sort a host's `register_nspace` infos into levels. Array-valued infos
    /// (`PMIX_PROC_DATA`, `PMIX_APP_INFO_ARRAY`, `PMIX_NODE_INFO_ARRAY`,
    /// `PMIX_JOB_INFO_ARRAY`, `PMIX_SESSION_INFO_ARRAY`) are opened; everything else is
    /// job-level and kept verbatim. Malformed arrays are logged and kept as job-level
    /// values, so nothing the host gave is lost.
    pub fn from_register(nspace: &Nspace, infos: Vec<Info>) -> JobData {
        let mut jd = JobData {
            nspace: nspace.clone(),
            ..Default::default()
        };
        let nprocs = infos
            .iter()
            .filter(|i| i.key.as_str() == keys::PROC_DATA)
            .count();
        let mut procs = ProcBuilder::new(nprocs);
        for info in infos {
            match info.key.as_str() {
                keys::PROC_DATA => match info_array(&info.value) {
                    Some(list) => {
                        let rank = find(&list, keys::RANK).and_then(|v| v.as_u64());
                        match rank {
                            Some(r) if r <= u32::MAX as u64 => {
                                for i in list.into_iter().filter(|i| i.key.as_str() != keys::RANK) {
                                    procs.add(r as u32, i, nspace);
                                }
                            }
                            _ => {
                                log::warn!("register_nspace {}: PMIX_PROC_DATA without a valid PMIX_RANK; kept as job data", nspace);
                                jd.job.push(Info {
                                    key: info.key,
                                    flags: info.flags,
                                    value: Value::DataArray(Box::new(DataArray {
                                        dtype: sys::PMIX_INFO,
                                        items: list
                                            .into_iter()
                                            .map(|i| Value::Info(Box::new(i)))
                                            .collect(),
                                    })),
                                });
                            }
                        }
                    }
                    None => jd.job.push(info),
                },
                keys::APP_INFO_ARRAY => match info_array(&info.value) {
                    Some(list) => {
                        let n = find(&list, keys::APPNUM)
                            .and_then(|v| v.as_u64())
                            .unwrap_or(0) as u32;
                        match jd.apps.iter_mut().find(|(a, _)| *a == n) {
                            Some((_, l)) => l.extend(list),
                            None => jd.apps.push((n, list)),
                        }
                    }
                    None => jd.job.push(info),
                },
                keys::NODE_INFO_ARRAY => match info_array(&info.value) {
                    Some(list) => {
                        let id = find(&list, keys::NODEID)
                            .and_then(|v| v.as_u64())
                            .map(|v| v as u32);
                        let hostname = find(&list, keys::HOSTNAME)
                            .and_then(|v| v.as_str())
                            .map(str::to_string);
                        jd.nodes.push(NodeData {
                            id,
                            hostname,
                            info: list,
                        });
                    }
                    None => jd.job.push(info),
                },
                keys::JOB_INFO_ARRAY | keys::SESSION_INFO_ARRAY => match info_array(&info.value) {
                    Some(list) => jd.job.extend(list),
                    None => jd.job.push(info),
                },
                _ => add_info(&mut jd.job, info, nspace),
            }
        }
        jd.procs = procs.finish();
        jd
    }

    /// Fill in what the node and process maps imply and the host did not say, for a
    /// server running on `local_host`: `PMIX_NODE_LIST`, `PMIX_NUM_NODES`,
    /// `PMIX_LOCAL_PEERS`, `PMIX_LOCAL_SIZE`, `PMIX_LOCALLDR`, per-process
    /// `PMIX_HOSTNAME`, `PMIX_NODEID`, `PMIX_LOCAL_RANK`, `PMIX_NODE_RANK`, and
    /// `PMIX_JOB_SIZE` from the map; and the job-level `PMIX_APPNUM` of a job of one
    /// application (Slurm and ORTE register none: a client's Get of it with
    /// `PMIX_RANK_WILDCARD` then answers the one app's number, as OpenPMIx clients read it
    /// there). Host-given values are never replaced.
    pub fn derive(&mut self, local_host: &str) {
        if self.apps.len() <= 1 {
            let appnum = self.apps.first().map_or(0, |a| a.0);
            set_if_absent(&mut self.job, keys::APPNUM, Value::Uint32(appnum));
        }
        let nmap = find(&self.job, keys::NODE_MAP).and_then(regex::value_text);
        let pmap = find(&self.job, keys::PROC_MAP).and_then(regex::value_text);
        let (Some(nmap), Some(pmap)) = (nmap, pmap) else {
            return;
        };
        let (Ok(hosts), Ok(ranks)) = (regex::parse_nodes(&nmap), regex::parse_ppn(&pmap)) else {
            log::warn!(
                "register_nspace {}: node/proc map not in a format we can read; nothing derived",
                self.nspace
            );
            return;
        };
        let total: usize = ranks.iter().map(|r| r.len()).sum();
        set_if_absent(&mut self.job, keys::JOB_SIZE, Value::Uint32(total as u32));
        set_if_absent(
            &mut self.job,
            keys::NUM_NODES,
            Value::Uint32(hosts.len() as u32),
        );
        set_if_absent(
            &mut self.job,
            keys::NODE_LIST,
            Value::string(&hosts.join(",")),
        );
        let local = hosts.iter().position(|h| h == local_host);
        if let Some(node_ranks) = local.and_then(|i| ranks.get(i)) {
            let peers: Vec<String> = node_ranks.iter().map(|r| r.to_string()).collect();
            set_if_absent(
                &mut self.job,
                keys::LOCAL_PEERS,
                Value::string(&peers.join(",")),
            );
            set_if_absent(
                &mut self.job,
                keys::LOCAL_SIZE,
                Value::Uint32(node_ranks.len() as u32),
            );
            if let Some(first) = node_ranks.iter().min() {
                set_if_absent(&mut self.job, keys::LOCALLDR, Value::Rank(*first));
            }
        }
        // Per process: answered from the map itself (see `procs`), not stored per rank.
        self.procs = self.procs.with_map(&hosts, &ranks);
        // This node's process lists: kept once, in the image, when the map implies them.
        if let Some(i) = local {
            self.mark_implied(i);
        }
    }

    /// Ranks on `host` according to the process data (`PMIX_HOSTNAME`) and, failing that,
    /// `PMIX_LOCAL_PEERS`.
    pub fn local_peers(&self) -> Option<Vec<Rank>> {
        let text = match find(&self.job, keys::LOCAL_PEERS) {
            Some(v) => v.as_str()?.to_string(),
            None => self.implied_value(keys::LOCAL_PEERS)?.as_str()?.to_string(),
        };
        let mut v = Vec::new();
        for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            v.push(part.parse().ok()?);
        }
        Some(v)
    }

    /// Number of processes in the job (`PMIX_JOB_SIZE`), if known.
    pub fn job_size(&self) -> Option<u32> {
        find(&self.job, keys::JOB_SIZE)
            .and_then(|v| v.as_u64())
            .map(|v| v as u32)
    }

    /// The job-level value of `key`, looking at job info, then the info of the node whose
    /// host name is `local_host` (node data describes where the reader runs).
    pub fn job_value(
        &self,
        key: &str,
        level: Level,
        local_host: Option<&str>,
    ) -> Option<Cow<'_, Value>> {
        self.job_value_sel(
            key,
            level,
            &Select {
                local_host,
                ..Default::default()
            },
        )
    }

    /// The value of `key` among the job-level keys only (the common Get).
    #[inline]
    pub fn job_level(&self, key: &str) -> Option<&Value> {
        find(&self.job, key)
    }

    /// The job-level value of `key` at `level`, for the application and node `sel` names:
    /// job info, then the application's, then the node's (a node value may be built from
    /// the process map, hence the `Cow`; see `JobData::node_value`).
    pub fn job_value_sel(
        &self,
        key: &str,
        level: Level,
        sel: &Select<'_>,
    ) -> Option<Cow<'_, Value>> {
        let app = || {
            self.app(sel.appnum)
                .and_then(|l| find(l, key))
                .map(Cow::Borrowed)
        };
        let node = || self.node(sel).and_then(|n| self.node_value(n, key));
        let job = || {
            find(&self.job, key)
                .map(Cow::Borrowed)
                .or_else(|| self.implied_value(key).map(Cow::Owned))
        };
        match level {
            Level::Any => job().or_else(app).or_else(node),
            Level::Job => job(),
            Level::App => app(),
            Level::Node => node(),
        }
    }

    /// Node `n`'s value of `key`: what the host gave for the node or, for the keys that
    /// list or count a node's processes (`PMIX_LOCAL_PEERS`, `PMIX_LOCAL_PROCS`,
    /// `PMIX_LOCAL_SIZE`, `PMIX_NODE_SIZE`, `PMIX_LOCALLDR`), what the process map says.
    /// The map is consulted only when asked, so a job's per-node process lists are not
    /// held by every client (they add up to one entry per process of the job).
    fn node_value<'a>(&'a self, n: &'a NodeData, key: &str) -> Option<Cow<'a, Value>> {
        if let Some(v) = find(&n.info, key) {
            return Some(Cow::Borrowed(v));
        }
        if !matches!(
            key,
            keys::LOCAL_PEERS
                | keys::LOCAL_PROCS
                | keys::LOCAL_SIZE
                | keys::NODE_SIZE
                | keys::LOCALLDR
        ) {
            return None;
        }
        let ranks = self.procs.map_node_ranks(n.hostname.as_deref(), n.id)?;
        self.ranks_value(key, &ranks).map(Cow::Owned)
    }

    fn app(&self, appnum: Option<u32>) -> Option<&Vec<Info>> {
        match appnum {
            Some(n) => self.apps.iter().find(|(a, _)| *a == n).map(|(_, l)| l),
            None => self.apps.first().map(|(_, l)| l),
        }
    }

    fn node(&self, sel: &Select<'_>) -> Option<&NodeData> {
        if let Some(id) = sel.nodeid {
            return self.nodes.iter().find(|n| n.id == Some(id));
        }
        if let Some(h) = sel.hostname {
            return self.nodes.iter().find(|n| n.hostname.as_deref() == Some(h));
        }
        self.local_node(sel.local_host)
    }

    fn local_node(&self, local_host: Option<&str>) -> Option<&NodeData> {
        let by_name =
            local_host.and_then(|h| self.nodes.iter().find(|n| n.hostname.as_deref() == Some(h)));
        by_name.or_else(|| {
            (self.nodes.len() == 1)
                .then(|| self.nodes.first())
                .flatten()
        })
    }

    /// The value of `key` for process `rank`: its own data, then its node's, its app's and
    /// the job's (reserved keys are often given only at a wider level). A per-process
    /// value may be built from the compact table, hence the `Cow`.
    pub fn proc_value(&self, rank: Rank, key: &str, level: Level) -> Option<Cow<'_, Value>> {
        if level == Level::Any {
            if let Some(v) = self.procs.get(rank, key) {
                return Some(v);
            }
        }
        if matches!(level, Level::Any | Level::Node) {
            if let Some(v) = self.proc_node(rank).and_then(|n| self.node_value(n, key)) {
                return Some(v);
            }
        }
        if matches!(level, Level::Any | Level::App) {
            if let Some(v) = self.proc_app(rank).and_then(|l| find(l, key)) {
                return Some(Cow::Borrowed(v));
            }
        }
        if matches!(level, Level::Any | Level::Job) {
            return self.job_only(key);
        }
        None
    }

    /// The node data of process `rank`'s node (by its `PMIX_NODEID` or `PMIX_HOSTNAME`).
    fn proc_node(&self, rank: Rank) -> Option<&NodeData> {
        let id = self.procs.get(rank, keys::NODEID);
        let id = id.as_deref().and_then(|v| v.as_u64());
        let host = self.procs.get(rank, keys::HOSTNAME);
        let host = host.as_deref().and_then(|v| v.as_str());
        if id.is_none() && host.is_none() {
            return None;
        }
        self.nodes.iter().find(|n| {
            (id.is_some() && n.id.map(u64::from) == id)
                || (host.is_some() && n.hostname.as_deref() == host)
        })
    }

    /// The application infos of process `rank`'s application (`PMIX_APPNUM`, else 0).
    fn proc_app(&self, rank: Rank) -> Option<&Vec<Info>> {
        let appnum = self
            .procs
            .get(rank, keys::APPNUM)
            .and_then(|v| v.as_u64())
            .unwrap_or(0) as u32;
        self.apps.iter().find(|(a, _)| *a == appnum).map(|(_, l)| l)
    }

    /// The job-level value of `key` only (what the host registered, or a process list
    /// the map implies): the last step of [`JobData::proc_value`].
    #[inline]
    pub fn job_only(&self, key: &str) -> Option<Cow<'_, Value>> {
        match find(&self.job, key) {
            Some(v) => Some(Cow::Borrowed(v)),
            None => self.implied_value(key).map(Cow::Owned),
        }
    }

    /// Every answer [`JobData::proc_value`] (at [`Level::Any`]) gives for process `rank`
    /// below the job level: its own keys, its node's (the host's, and the counts the map
    /// implies) and its application's, each resolved once, in no particular order.
    /// For any other key `proc_value` answers what [`JobData::job_only`] does, except
    /// for [`OWN_VIEW_GENERAL`] (lists with one entry per process of a node, not copied
    /// here). A client keeps this for itself so that a Get of its own keys is one short
    /// scan (`client::Jobs`).
    pub fn own_view(&self, rank: Rank) -> Vec<(Key, Value)> {
        let mut keys: Vec<Key> = self.procs.infos(rank).into_iter().map(|i| i.key).collect();
        if let Some(n) = self.proc_node(rank) {
            keys.extend(n.info.iter().map(|i| i.key.clone()));
            for k in [keys::LOCAL_SIZE, keys::NODE_SIZE, keys::LOCALLDR] {
                keys.extend(Key::new(k).ok());
            }
        }
        if let Some(l) = self.proc_app(rank) {
            keys.extend(l.iter().map(|i| i.key.clone()));
        }
        let mut out: Vec<(Key, Value)> = Vec::with_capacity(keys.len());
        for k in keys {
            if OWN_VIEW_GENERAL.contains(&k.as_str()) || out.iter().any(|(o, _)| *o == k) {
                continue;
            }
            if let Some(v) = self.proc_value(rank, k.as_str(), Level::Any) {
                let v = v.into_owned();
                out.push((k, v));
            }
        }
        out
    }

    /// All process-level keys of `rank` (for a Get with a NULL key).
    pub fn proc_infos(&self, rank: Rank) -> Vec<Info> {
        self.procs.infos(rank)
    }
}

/// The infos of a `PMIX_DATA_ARRAY` of `PMIX_INFO`, if that is what `v` is.
pub fn info_array(v: &Value) -> Option<Vec<Info>> {
    match v {
        Value::DataArray(da) if da.dtype == sys::PMIX_INFO => {
            let mut out = Vec::with_capacity(da.items.len());
            for it in &da.items {
                match it {
                    Value::Info(i) => out.push((**i).clone()),
                    _ => return None,
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// One published value: its scope (`pmix_scope_t`) and the value.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// `PMIX_LOCAL`, `PMIX_REMOTE`, `PMIX_GLOBAL`, `PMIX_INTERNAL` or `PMIX_SCOPE_UNDEF`.
    pub scope: u8,
    /// The value.
    pub value: Value,
}

/// What one process published, by key (later puts of a key replace earlier ones).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KvSet {
    /// The entries.
    pub map: BTreeMap<Key, Entry>,
}

/// Whether a reader sits on the same node as the process that published the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The publishing process itself (sees every scope).
    Owner,
    /// Another process on the same node (sees LOCAL and GLOBAL).
    Local,
    /// A process on another node (sees REMOTE and GLOBAL).
    Remote,
}

/// True if `reader` may see data posted with `scope`.
pub fn scope_visible(scope: u8, reader: Reader) -> bool {
    match reader {
        Reader::Owner => true,
        Reader::Local => matches!(scope, sys::PMIX_LOCAL | sys::PMIX_GLOBAL),
        Reader::Remote => matches!(scope, sys::PMIX_REMOTE | sys::PMIX_GLOBAL),
    }
}

/// True if a value posted in scope `posted` is among those a Get restricted to scope
/// `wanted` (`PMIX_DATA_SCOPE`) searches: a GLOBAL value lives in the LOCAL and the REMOTE
/// scope too, GLOBAL (or `PMIX_SCOPE_UNDEF`) searches every scope, and INTERNAL only the
/// values kept inside the process.
pub fn scope_searched(posted: u8, wanted: u8) -> bool {
    match wanted {
        sys::PMIX_LOCAL => matches!(posted, sys::PMIX_LOCAL | sys::PMIX_GLOBAL),
        sys::PMIX_REMOTE => matches!(posted, sys::PMIX_REMOTE | sys::PMIX_GLOBAL),
        sys::PMIX_INTERNAL => posted == sys::PMIX_INTERNAL,
        _ => true,
    }
}

impl KvSet {
    /// Store (or replace) one value.
    pub fn put(&mut self, key: Key, scope: u8, value: Value) {
        self.map.insert(key, Entry { scope, value });
    }
    /// Entries `reader` may see, as infos.
    pub fn visible(&self, reader: Reader) -> Vec<Info> {
        self.map
            .iter()
            .filter(|(_, e)| scope_visible(e.scope, reader))
            .map(|(k, e)| Info {
                key: k.clone(),
                flags: 0,
                value: e.value.clone(),
            })
            .collect()
    }
    /// Entries in the scopes a collecting fence or direct modex ships to other nodes.
    pub fn for_remote(&self) -> Vec<(Key, Entry)> {
        self.map
            .iter()
            .filter(|(_, e)| scope_visible(e.scope, Reader::Remote))
            .map(|(k, e)| (k.clone(), e.clone()))
            .collect()
    }
}

/// A proc id from parts (`nspace` cloned).
pub fn proc_id(nspace: &Nspace, rank: Rank) -> ProcId {
    ProcId::new(nspace.clone(), rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(k: &str, v: Value) -> Info {
        Info::new(k, v).unwrap()
    }

    fn arr(items: Vec<Info>) -> Value {
        Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INFO,
            items: items
                .into_iter()
                .map(|i| Value::Info(Box::new(i)))
                .collect(),
        }))
    }

    #[test]
    fn register_infos_are_sorted_into_levels_verbatim() {
        let ns = Nspace::new("job").unwrap();
        let jd = JobData::from_register(
            &ns,
            vec![
                info(keys::JOB_SIZE, Value::Uint32(2)),
                info("my.custom", Value::Int16(-3)),
                info(
                    keys::PROC_DATA,
                    arr(vec![
                        info(keys::RANK, Value::Rank(1)),
                        info(keys::LOCAL_RANK, Value::Uint16(1)),
                        info("x", Value::Double(2.5)),
                    ]),
                ),
                info(
                    keys::APP_INFO_ARRAY,
                    arr(vec![
                        info(keys::APPNUM, Value::Uint32(0)),
                        info(keys::APP_SIZE, Value::Uint32(2)),
                    ]),
                ),
                info(
                    keys::NODE_INFO_ARRAY,
                    arr(vec![
                        info(keys::HOSTNAME, Value::string("h1")),
                        info(keys::NODE_SIZE, Value::Uint32(7)),
                    ]),
                ),
            ],
        );
        assert_eq!(
            jd.job_value(keys::JOB_SIZE, Level::Any, None).as_deref(),
            Some(&Value::Uint32(2))
        );
        assert_eq!(
            jd.job_value("my.custom", Level::Any, None).as_deref(),
            Some(&Value::Int16(-3))
        );
        assert_eq!(
            jd.proc_value(1, "x", Level::Any).as_deref(),
            Some(&Value::Double(2.5))
        );
        assert_eq!(jd.proc_value(1, keys::RANK, Level::Any).as_deref(), None);
        assert_eq!(
            jd.proc_value(1, keys::APP_SIZE, Level::Any).as_deref(),
            Some(&Value::Uint32(2))
        );
        assert_eq!(
            jd.proc_value(0, keys::JOB_SIZE, Level::Any).as_deref(),
            Some(&Value::Uint32(2))
        );
        assert_eq!(
            jd.job_value(keys::NODE_SIZE, Level::Node, Some("h1"))
                .as_deref(),
            Some(&Value::Uint32(7))
        );
        assert_eq!(
            jd.job_value(keys::JOB_SIZE, Level::Node, Some("h1"))
                .as_deref(),
            None
        );
    }

    #[test]
    fn registered_qualified_values_are_selectable() {
        let ns = Nspace::new("job").unwrap();
        let qv = |k: &str, v: i32, dev: &str| {
            let mut q = info("dev", Value::string(dev));
            q.flags = sys::PMIX_INFO_QUALIFIER;
            info(qualified::CONTAINER, arr(vec![info(k, Value::Int(v)), q]))
        };
        let jd = JobData::from_register(
            &ns,
            vec![
                qv("bw", 10, "a"),
                qv("bw", 20, "b"),
                info(
                    keys::PROC_DATA,
                    arr(vec![info(keys::RANK, Value::Rank(1)), qv("lat", 7, "a")]),
                ),
            ],
        );
        let mut want = info("dev", Value::string("b"));
        want.flags = sys::PMIX_INFO_QUALIFIER;
        let bw = Key::new("bw").unwrap();
        let job = jd
            .job_value(qualified::CONTAINER, Level::Any, None)
            .unwrap();
        let job = &*job;
        assert_eq!(
            qualified::select(job, &bw, &[want.clone()]),
            Some(Value::Int(20))
        );
        want.value = Value::string("a");
        assert_eq!(
            qualified::select(job, &bw, &[want.clone()]),
            Some(Value::Int(10))
        );
        let own = jd.proc_value(1, qualified::CONTAINER, Level::Any).unwrap();
        assert_eq!(
            qualified::select(&own, &Key::new("lat").unwrap(), &[want]),
            Some(Value::Int(7))
        );
    }

    #[test]
    fn maps_derive_local_peers_and_proc_hosts() {
        let ns = Nspace::new("job").unwrap();
        let mut jd = JobData::from_register(
            &ns,
            vec![
                info(
                    keys::NODE_MAP,
                    Value::string(&regex::generate_nodes(&["a", "b"])),
                ),
                info(
                    keys::PROC_MAP,
                    Value::string(&regex::generate_ppn(&[vec![0, 2], vec![1, 3]])),
                ),
            ],
        );
        jd.derive("b");
        assert_eq!(jd.local_peers(), Some(vec![1, 3]));
        assert_eq!(jd.job_size(), Some(4));
        assert_eq!(
            jd.proc_value(2, keys::HOSTNAME, Level::Any).as_deref(),
            Some(&Value::string("a"))
        );
        assert_eq!(
            jd.proc_value(3, keys::LOCAL_RANK, Level::Any).as_deref(),
            Some(&Value::Uint16(1))
        );
        assert_eq!(
            jd.job_value(keys::LOCALLDR, Level::Any, None).as_deref(),
            Some(&Value::Rank(1))
        );
        assert_eq!(
            jd.job_value(keys::NODE_LIST, Level::Any, None).as_deref(),
            Some(&Value::string("a,b"))
        );
        // One application and no job-level PMIX_APPNUM from the host (Slurm, ORTE): 0.
        assert_eq!(
            jd.job_value(keys::APPNUM, Level::Any, None).as_deref(),
            Some(&Value::Uint32(0))
        );
    }

    #[test]
    fn derive_keeps_a_host_appnum_and_adds_none_for_several_apps() {
        let ns = Nspace::new("job").unwrap();
        let app = |n: u32| {
            info(
                keys::APP_INFO_ARRAY,
                arr(vec![info(keys::APPNUM, Value::Uint32(n))]),
            )
        };
        let mut two = JobData::from_register(&ns, vec![app(0), app(1)]);
        two.derive("a");
        assert!(find(&two.job, keys::APPNUM).is_none());
        let mut own = JobData::from_register(&ns, vec![info(keys::APPNUM, Value::Uint32(7))]);
        own.derive("a");
        assert_eq!(find(&own.job, keys::APPNUM), Some(&Value::Uint32(7)));
    }

    #[test]
    fn scopes() {
        let mut kv = KvSet::default();
        kv.put(Key::new("l").unwrap(), sys::PMIX_LOCAL, Value::Int(1));
        kv.put(Key::new("r").unwrap(), sys::PMIX_REMOTE, Value::Int(2));
        kv.put(Key::new("g").unwrap(), sys::PMIX_GLOBAL, Value::Int(3));
        kv.put(Key::new("i").unwrap(), sys::PMIX_INTERNAL, Value::Int(4));
        let names = |v: Vec<Info>| v.into_iter().map(|i| i.key.to_string()).collect::<Vec<_>>();
        assert_eq!(names(kv.visible(Reader::Local)), vec!["g", "l"]);
        assert_eq!(names(kv.visible(Reader::Remote)), vec!["g", "r"]);
        assert_eq!(kv.visible(Reader::Owner).len(), 4);
        assert_eq!(kv.for_remote().len(), 2);
    }

    #[test]
    fn data_scope_search() {
        use sys::{PMIX_GLOBAL as G, PMIX_INTERNAL as I, PMIX_LOCAL as L, PMIX_REMOTE as R};
        assert!(scope_searched(G, L) && scope_searched(L, L) && !scope_searched(R, L));
        assert!(scope_searched(G, R) && scope_searched(R, R) && !scope_searched(L, R));
        assert!(scope_searched(L, G) && scope_searched(R, G) && scope_searched(I, G));
        assert!(scope_searched(I, I) && !scope_searched(G, I));
    }
}
