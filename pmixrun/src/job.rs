//! The job's layout (apps, ranks, nodes) and the `register_nspace` infos built from it,
//! the way an OpenPMIx host registers a job: job-level keys at the top level, one
//! `PMIX_APP_INFO_ARRAY` per app, one `PMIX_NODE_INFO_ARRAY` per node and one
//! `PMIX_PROC_INFO_ARRAY` (`PMIX_PROC_DATA`) per rank, `PMIX_RANK` first. Every value
//! has the type the PMIx_Get page gives its key. A process's `PMIX_HOSTNAME`,
//! `PMIX_NODEID`, `PMIX_LOCAL_RANK` and `PMIX_NODE_RANK` are not in its array: the
//! server answers them from `PMIX_NODE_MAP`/`PMIX_PROC_MAP` (same values, same types),
//! without a per-process copy.
//!
//! Nodes: normally one (this machine). With `--nodes K` (the multi-node test bench) the
//! ranks are placed on K simulated nodes in blocks ([`block_distribution`]), and each
//! node's server gets its own registration ([`registration_for`]): the node-level keys
//! at job level (`PMIX_HOSTNAME`, `PMIX_NODEID`, `PMIX_LOCAL_PEERS`, `PMIX_LOCAL_SIZE`,
//! ...) describe that node, while the node arrays, the maps and the per-process data
//! cover every node, so a process on any node can ask about any other.
//!
//! Slots: the CPUs pmixrun may run on (its affinity mask) are each node's slots, so
//! `PMIX_NUM_SLOTS` is that count times the number of nodes, `PMIX_UNIV_SIZE` the larger
//! of it and the job size, `PMIX_MAX_PROCS` the job size (pmixrun starts exactly what it
//! is asked to) and `PMIX_NODE_OVERSUBSCRIBED` says whether a node has more ranks than
//! slots.
//!
//! `PMIX_PROC_PID` is registered with the other per-process data: pmixrun forks every
//! rank before registering the job (see `sys::spawn_gated`), so the pids are known.
//! `PMIX_PACKAGE_RANK` is not registered: pmixrun does not bind processes, so it knows
//! no package. `PMIX_PSET_NAMES` is not registered: process sets (`--pset`) change at
//! run time, so the server answers it.
//! `PMIX_HOSTNAME_KEEP_FQDN` is true: host names are used as the system reports them,
//! never shortened.

use crate::keys::*;
use pmix_core::{DataArray, Info, Nspace, ProcId, Rank, Result, Value};
use pmix_sys::attrs::keys::{PMIX_CPUSET, PMIX_LOCALITY_STRING};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// `PMIX_HWLOC_XML_V2` (deprecated in the standard; OpenPMIx still reads it at setup).
const HWLOC_XML_V2: &str = "pmix.hwlocxml2";

/// One application of the job, placed.
#[derive(Debug, Clone)]
pub struct AppLayout {
    /// `PMIX_APPNUM`.
    pub appnum: u32,
    /// First rank of the app (`PMIX_APPLDR`).
    pub first: Rank,
    /// `PMIX_APP_SIZE`.
    pub size: u32,
    /// argv as given (program first), for `PMIX_APP_ARGV`.
    pub argv: Vec<String>,
    /// Working directory (`PMIX_WDIR`).
    pub wdir: PathBuf,
}

/// The scratch directories (see `scratch.rs`).
#[derive(Debug, Clone)]
pub struct Dirs {
    /// `PMIX_TMPDIR`.
    pub tmpdir: PathBuf,
    /// `PMIX_NSDIR`.
    pub nsdir: PathBuf,
    /// `PMIX_PROCDIR` of rank `i` at index `i`.
    pub procdirs: Vec<PathBuf>,
}

/// One node of the job and the ranks placed on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLayout {
    /// `PMIX_NODEID`.
    pub id: u32,
    /// `PMIX_HOSTNAME` (a simulated node's alias, `node<id>`, under `--nodes K`).
    pub hostname: String,
    /// The ranks on this node, ascending.
    pub ranks: Vec<Rank>,
}

/// Place `nranks` ranks on `nnodes` nodes in blocks: consecutive ranks share a node, and
/// the first `nranks % nnodes` nodes get one rank more than the others.
pub fn block_distribution(nranks: u32, nnodes: u32) -> Vec<Vec<Rank>> {
    let nnodes = nnodes.max(1);
    let (base, extra) = (nranks / nnodes, nranks % nnodes);
    let mut next = 0;
    (0..nnodes)
        .map(|i| {
            let n = base + u32::from(i < extra);
            let v: Vec<Rank> = (next..next + n).collect();
            next += n;
            v
        })
        .collect()
}

/// The nodes of a job of `nranks` ranks: one node called `hostname` when `nnodes` is 1,
/// otherwise `nnodes` simulated nodes `node0`, `node1`, ... with the ranks in blocks.
pub fn nodes(hostname: &str, nranks: u32, nnodes: u32) -> Vec<NodeLayout> {
    if nnodes <= 1 {
        return vec![NodeLayout {
            id: NODE_ID,
            hostname: hostname.to_string(),
            ranks: (0..nranks).collect(),
        }];
    }
    block_distribution(nranks, nnodes)
        .into_iter()
        .zip(0u32..)
        .map(|(ranks, id)| NodeLayout {
            id,
            hostname: format!("node{id}"),
            ranks,
        })
        .collect()
}

/// Everything pmixrun knows about the job, before the ranks have pids.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The namespace (also `PMIX_JOBID`).
    pub nspace: Nspace,
    /// This machine's name (the one node's name without `--nodes`).
    pub hostname: String,
    /// The nodes, by id (at least one).
    pub nodes: Vec<NodeLayout>,
    /// `PMIX_SESSION_ID`.
    pub session_id: u32,
    /// Applications in order.
    pub apps: Vec<AppLayout>,
    /// CPUs pmixrun may run on: the node's slots (`PMIX_NUM_SLOTS`; more ranks than
    /// that is `PMIX_NODE_OVERSUBSCRIBED`).
    pub ncpus: u32,
    /// Scratch directories.
    pub dirs: Dirs,
}

/// Where one rank sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// Rank in the job (= global rank: the job's offset is 0).
    pub rank: Rank,
    /// Application number.
    pub appnum: u32,
    /// Rank within the application.
    pub app_rank: Rank,
    /// Rank among this job's ranks on its node.
    pub local_rank: u16,
    /// Rank among all ranks on its node (one job: the local rank).
    pub node_rank: u16,
    /// Its node's index in [`Layout::nodes`].
    pub node: usize,
}

/// The node id of pmixrun's one node.
pub const NODE_ID: u32 = 0;

impl Layout {
    /// Number of ranks.
    pub fn size(&self) -> u32 {
        self.apps.iter().map(|a| a.size).sum()
    }

    /// Every rank's place, in rank order.
    pub fn places(&self) -> Vec<Place> {
        let mut out = Vec::new();
        for app in &self.apps {
            for i in 0..app.size {
                let rank = app.first + i;
                let (node, idx) = self
                    .nodes
                    .iter()
                    .enumerate()
                    .find_map(|(n, nl)| nl.ranks.iter().position(|&r| r == rank).map(|i| (n, i)))
                    .unwrap_or((0, usize::try_from(rank).unwrap_or(usize::MAX)));
                let local = u16::try_from(idx).unwrap_or(u16::MAX);
                out.push(Place {
                    rank,
                    appnum: app.appnum,
                    app_rank: i,
                    local_rank: local,
                    node_rank: local,
                    node,
                });
            }
        }
        out
    }
}

/// A node's ranks as the comma list `PMIX_LOCAL_PEERS` uses.
fn peers_list(node: &NodeLayout) -> String {
    node.ranks
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// `PMIX_NODE_MAP` for these node names.
///
/// TODO(regex): the engine owns the map format (`PMIx_generate_regex`); until its
/// Rust API exists this is OpenPMIx's plain form: the names, comma-separated.
pub fn node_map(hosts: &[&str]) -> String {
    hosts.join(",")
}

/// `PMIX_PROC_MAP`: the ranks of each node comma-separated, nodes separated by `;`.
///
/// TODO(regex): as for [`node_map`] (`PMIx_generate_ppn`).
pub fn proc_map(per_node: &[Vec<Rank>]) -> String {
    per_node
        .iter()
        .map(|ranks| {
            ranks
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn path_value(p: &Path) -> Value {
    Value::String(Some(p.as_os_str().as_bytes().to_vec()))
}

fn info_array(items: Vec<Info>) -> Value {
    Value::DataArray(Box::new(DataArray {
        dtype: pmix_sys::PMIX_INFO,
        items: items
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect(),
    }))
}

/// The infos for `register_nspace` on the first (usually only) node. `pids[i]` is rank
/// `i`'s process id.
pub fn registration(layout: &Layout, pids: &[i32]) -> Result<Vec<Info>> {
    registration_for(layout, pids, 0)
}

fn local_procs(layout: &Layout, node: &NodeLayout) -> Value {
    Value::DataArray(Box::new(DataArray {
        dtype: pmix_sys::PMIX_PROC,
        items: node
            .ranks
            .iter()
            .map(|&r| Value::Proc(Some(ProcId::new(layout.nspace.clone(), r))))
            .collect(),
    }))
}

/// The infos for `register_nspace` on the server of node `node` (an index in
/// [`Layout::nodes`]). `pids[i]` is rank `i`'s process id.
pub fn registration_for(layout: &Layout, pids: &[i32], node: usize) -> Result<Vec<Info>> {
    let me = layout
        .nodes
        .get(node)
        .ok_or_else(|| pmix_core::Error::bad_param(format!("no node {node} in the layout")))?;
    let size = layout.size();
    let napps = u32::try_from(layout.apps.len()).unwrap_or(u32::MAX);
    let nnodes = u32::try_from(layout.nodes.len()).unwrap_or(u32::MAX);
    let host = me.hostname.as_str();
    let hosts: Vec<&str> = layout.nodes.iter().map(|n| n.hostname.as_str()).collect();
    let per_node: Vec<Vec<Rank>> = layout.nodes.iter().map(|n| n.ranks.clone()).collect();
    let nlocal = u32::try_from(me.ranks.len()).unwrap_or(u32::MAX);
    let slots = layout.ncpus.saturating_mul(nnodes);
    let oversubscribed = |n: &NodeLayout| n.ranks.len() > layout.ncpus as usize;
    let leader = me.ranks.first().copied().unwrap_or(0);
    let ns = layout.nspace.as_str();

    // Job level.
    let mut out = vec![
        Info::new(PMIX_NSPACE, Value::string(ns))?,
        Info::new(PMIX_JOBID, Value::string(ns))?,
        Info::new(PMIX_SESSION_ID, Value::Uint32(layout.session_id))?,
        Info::new(PMIX_JOB_SIZE, Value::Uint32(size))?,
        Info::new(PMIX_UNIV_SIZE, Value::Uint32(size.max(slots)))?,
        Info::new(PMIX_MAX_PROCS, Value::Uint32(size))?,
        Info::new(PMIX_NUM_SLOTS, Value::Uint32(slots))?,
        Info::new(PMIX_JOB_NUM_APPS, Value::Uint32(napps))?,
        Info::new(PMIX_NPROC_OFFSET, Value::Rank(0))?,
        Info::new(PMIX_NUM_NODES, Value::Uint32(nnodes))?,
        Info::new(PMIX_NUM_ALLOCATED_NODES, Value::Uint32(nnodes))?,
        Info::new(PMIX_NODE_LIST, Value::string(&hosts.join(",")))?,
        Info::new(PMIX_ALLOCATED_NODELIST, Value::string(&hosts.join(",")))?,
        Info::new(PMIX_NODE_MAP, Value::string(&node_map(&hosts)))?,
        Info::new(PMIX_PROC_MAP, Value::string(&proc_map(&per_node)))?,
        Info::new(PMIX_TMPDIR, path_value(&layout.dirs.tmpdir))?,
        Info::new(PMIX_NSDIR, path_value(&layout.dirs.nsdir))?,
        Info::new(PMIX_TDIR_RMCLEAN, Value::Bool(true))?,
        Info::new(PMIX_SPAWNED, Value::Bool(false))?,
        Info::new(PMIX_NODE_OVERSUBSCRIBED, Value::Bool(oversubscribed(me)))?,
        Info::new(PMIX_HOSTNAME_KEEP_FQDN, Value::Bool(true))?,
        // This node, at job level too (as Open MPI's mpirun registers them).
        Info::new(PMIX_HOSTNAME, Value::string(host))?,
        Info::new(PMIX_NODEID, Value::Uint32(me.id))?,
        Info::new(PMIX_LOCAL_SIZE, Value::Uint32(nlocal))?,
        Info::new(PMIX_NODE_SIZE, Value::Uint32(nlocal))?,
        Info::new(PMIX_LOCAL_PEERS, Value::string(&peers_list(me)))?,
        Info::new(PMIX_LOCAL_PROCS, local_procs(layout, me))?,
        Info::new(PMIX_LOCALLDR, Value::Rank(leader))?,
    ];

    out.extend(app_and_node_infos(layout)?);
    out.extend(node_topology());
    out.extend(proc_infos(layout, pids, me)?);
    Ok(out)
}

/// The app-level (`PMIX_APP_INFO_ARRAY`) and node-level (`PMIX_NODE_INFO_ARRAY`) infos
/// of [`registration_for`].
fn app_and_node_infos(layout: &Layout) -> Result<Vec<Info>> {
    let oversubscribed = |n: &NodeLayout| n.ranks.len() > layout.ncpus as usize;
    let mut out = Vec::new();
    // App level.
    for app in &layout.apps {
        out.push(Info::new(
            PMIX_APP_INFO_ARRAY,
            info_array(vec![
                Info::new(PMIX_APPNUM, Value::Uint32(app.appnum))?,
                Info::new(PMIX_APP_SIZE, Value::Uint32(app.size))?,
                Info::new(PMIX_APPLDR, Value::Rank(app.first))?,
                Info::new(PMIX_APP_ARGV, Value::string(&app.argv.join(" ")))?,
                Info::new(PMIX_WDIR, path_value(&app.wdir))?,
            ]),
        )?);
    }

    // Node level: every node. Its process list (PMIX_LOCAL_PEERS, PMIX_LOCAL_PROCS) is
    // left to the process map (the engine answers those keys from it when asked), so a
    // client does not hold one entry per process of the job; this node's lists are at
    // job level (registration_for).
    for n in &layout.nodes {
        let count = u32::try_from(n.ranks.len()).unwrap_or(u32::MAX);
        out.push(Info::new(
            PMIX_NODE_INFO_ARRAY,
            info_array(vec![
                Info::new(PMIX_NODEID, Value::Uint32(n.id))?,
                Info::new(PMIX_HOSTNAME, Value::string(&n.hostname))?,
                Info::new(PMIX_LOCAL_SIZE, Value::Uint32(count))?,
                Info::new(PMIX_NODE_SIZE, Value::Uint32(count))?,
                Info::new(
                    PMIX_LOCALLDR,
                    Value::Rank(n.ranks.first().copied().unwrap_or(0)),
                )?,
                Info::new(PMIX_NODE_OVERSUBSCRIBED, Value::Bool(oversubscribed(n)))?,
            ]),
        )?);
    }
    Ok(out)
}

/// The process-level infos (`PMIX_PROC_INFO_ARRAY`) of [`registration_for`]: every rank
/// of the job; those on node `me` also get this node's locality keys.
fn proc_infos(layout: &Layout, pids: &[i32], me: &NodeLayout) -> Result<Vec<Info>> {
    let mut out = Vec::new();
    // Process level: every rank of the job, wherever it runs.
    let local = proc_locality();
    for p in layout.places() {
        let i = usize::try_from(p.rank).unwrap_or(usize::MAX);
        let procdir = layout.dirs.procdirs.get(i).ok_or_else(|| {
            pmix_core::Error::bad_param(format!("no procdir for rank {}", p.rank))
        })?;
        let pid = *pids
            .get(i)
            .ok_or_else(|| pmix_core::Error::bad_param(format!("no pid for rank {}", p.rank)))?;
        out.push(Info::new(
            PMIX_PROC_INFO_ARRAY,
            info_array(
                vec![
                    Info::new(PMIX_RANK, Value::Rank(p.rank))?,
                    Info::new(PMIX_GLOBAL_RANK, Value::Rank(p.rank))?,
                    Info::new(PMIX_APP_RANK, Value::Rank(p.app_rank))?,
                    Info::new(PMIX_APPNUM, Value::Uint32(p.appnum))?,
                    Info::new(PMIX_PROCDIR, path_value(procdir))?,
                    Info::new(PMIX_REINCARNATION, Value::Uint32(0))?,
                    Info::new(PMIX_PROC_PID, Value::Pid(pid))?,
                ]
                .into_iter()
                .chain(local.iter().filter(|_| me.ranks.contains(&p.rank)).cloned())
                .collect(),
            ),
        )?);
    }
    Ok(out)
}

/// The topology keys of this node, at job level: `PMIX_HWLOC_XML_V2` (hwloc's XML of the
/// node, so that clients load the host's view instead of discovering their own). Nothing
/// when hwloc cannot load the topology (logged).
fn node_topology() -> Vec<Info> {
    let xml = pmix_core::topology::shared(None).and_then(|t| t.export_xml());
    match xml {
        Ok(x) => Info::new(HWLOC_XML_V2, Value::string(&x))
            .into_iter()
            .collect(),
        Err(e) => {
            log::warn!("topology: no PMIX_HWLOC_XML_V2 ({e})");
            Vec::new()
        }
    }
}

/// `PMIX_LOCALITY_STRING` and `PMIX_CPUSET` of a proc on this node, as OpenPMIx hosts
/// register them. pmixrun binds no rank, so a rank's cpuset is pmixrun's own binding (the
/// set every rank inherits: the whole allowed set unless pmixrun itself was bound), and
/// every local rank has the same locality. Nothing when hwloc fails (logged).
fn proc_locality() -> Vec<Info> {
    use pmix_core::topology as topo;
    let r = topo::shared(None).and_then(|t| Ok((t, t.cpubind(false)?)));
    let (t, set) = match r {
        Ok(x) => x,
        Err(e) => {
            log::warn!("topology: no PMIX_LOCALITY_STRING/PMIX_CPUSET ({e})");
            return Vec::new();
        }
    };
    let mut v: Vec<Info> = Info::new(PMIX_CPUSET, Value::string(&topo::cpuset_string(&set)))
        .into_iter()
        .collect();
    if let Some(l) = topo::locality_string(t, &set) {
        v.extend(Info::new(PMIX_LOCALITY_STRING, Value::string(&l)));
    }
    v
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use pmix_sys as sys;
    use pmix_sys::attrs::keys::{PMIX_LOCAL_RANK, PMIX_NODE_RANK};

    pub(crate) fn layout() -> Layout {
        let ns = Nspace::new("pmixrun.host.42").expect("nspace");
        Layout {
            nspace: ns,
            hostname: "host".into(),
            nodes: nodes("host", 5, 1),
            session_id: 42,
            apps: vec![
                AppLayout {
                    appnum: 0,
                    first: 0,
                    size: 2,
                    argv: vec!["./a".into(), "x".into()],
                    wdir: "/w".into(),
                },
                AppLayout {
                    appnum: 1,
                    first: 2,
                    size: 3,
                    argv: vec!["./b".into()],
                    wdir: "/v".into(),
                },
            ],
            ncpus: 4,
            dirs: Dirs {
                tmpdir: "/t".into(),
                nsdir: "/t/ns".into(),
                procdirs: (0..5)
                    .map(|r| PathBuf::from(format!("/t/ns/{r}")))
                    .collect(),
            },
        }
    }

    /// What the engine answers for node-level `key` of the node `host`.
    fn served_node(l: &Layout, infos: &[Info], host: &str, key: &str) -> Value {
        let mut jd = pmix_core::store::JobData::from_register(&l.nspace, infos.to_vec());
        jd.derive("elsewhere");
        let sel = pmix_core::store::Select {
            hostname: Some(host),
            ..Default::default()
        };
        jd.job_value_sel(key, pmix_core::store::Level::Node, &sel)
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_else(|| panic!("no {key} for node {host}"))
    }

    fn get<'a>(infos: &'a [Info], key: &str) -> Vec<&'a Value> {
        infos
            .iter()
            .filter(|i| i.key.as_str() == key)
            .map(|i| &i.value)
            .collect()
    }

    /// What the engine answers for `key` of `rank` once `infos` are registered (the
    /// per-process keys the maps imply are not in the registration itself).
    fn served(l: &Layout, infos: &[Info], rank: Rank, key: &str) -> Value {
        let mut jd = pmix_core::store::JobData::from_register(&l.nspace, infos.to_vec());
        jd.derive("elsewhere");
        jd.proc_value(rank, key, pmix_core::store::Level::Any)
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_else(|| panic!("no {key} for rank {rank}"))
    }

    fn array(v: &Value) -> Vec<Info> {
        match v {
            Value::DataArray(a) => {
                assert_eq!(a.dtype, sys::PMIX_INFO);
                a.items
                    .iter()
                    .map(|i| match i {
                        Value::Info(i) => (**i).clone(),
                        other => panic!("not an info: {other:?}"),
                    })
                    .collect()
            }
            other => panic!("not an array: {other:?}"),
        }
    }

    fn one<'a>(infos: &'a [Info], key: &str) -> &'a Value {
        let v = get(infos, key);
        assert_eq!(v.len(), 1, "{key}");
        v[0]
    }

    #[test]
    fn places_number_ranks_across_apps() {
        let l = layout();
        let p = l.places();
        assert_eq!(l.size(), 5);
        assert_eq!(p[1].appnum, 0);
        assert_eq!(
            p[2],
            Place {
                rank: 2,
                appnum: 1,
                app_rank: 0,
                local_rank: 2,
                node_rank: 2,
                node: 0,
            }
        );
        assert_eq!(p[4].app_rank, 2);
    }

    #[test]
    fn job_level_values_and_types() {
        let l = layout();
        let r = registration(&l, &[10, 11, 12, 13, 14]).expect("registration");
        assert_eq!(one(&r, PMIX_JOB_SIZE), &Value::Uint32(5));
        assert_eq!(one(&r, PMIX_JOB_NUM_APPS), &Value::Uint32(2));
        assert_eq!(one(&r, PMIX_NPROC_OFFSET), &Value::Rank(0));
        assert_eq!(one(&r, PMIX_LOCAL_PEERS), &Value::string("0,1,2,3,4"));
        assert_eq!(one(&r, PMIX_NODE_MAP), &Value::string("host"));
        assert_eq!(one(&r, PMIX_PROC_MAP), &Value::string("0,1,2,3,4"));
        assert_eq!(one(&r, PMIX_NODE_OVERSUBSCRIBED), &Value::Bool(true));
        assert_eq!(one(&r, PMIX_NUM_SLOTS), &Value::Uint32(4));
        assert_eq!(one(&r, PMIX_UNIV_SIZE), &Value::Uint32(5));
        assert_eq!(one(&r, PMIX_MAX_PROCS), &Value::Uint32(5));
        assert_eq!(one(&r, PMIX_JOBID), &Value::string("pmixrun.host.42"));
        assert_eq!(one(&r, PMIX_TMPDIR), &Value::string("/t"));
        match one(&r, PMIX_LOCAL_PROCS) {
            Value::DataArray(a) => {
                assert_eq!(a.dtype, sys::PMIX_PROC);
                assert_eq!(a.items.len(), 5);
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn app_node_and_proc_arrays() {
        let l = layout();
        let r = registration(&l, &[10, 11, 12, 13, 14]).expect("registration");
        let apps = get(&r, PMIX_APP_INFO_ARRAY);
        assert_eq!(apps.len(), 2);
        let a1 = array(apps[1]);
        assert_eq!(a1[0].key.as_str(), PMIX_APPNUM);
        assert_eq!(one(&a1, PMIX_APPNUM), &Value::Uint32(1));
        assert_eq!(one(&a1, PMIX_APPLDR), &Value::Rank(2));
        assert_eq!(one(&a1, PMIX_APP_SIZE), &Value::Uint32(3));
        assert_eq!(one(&array(apps[0]), PMIX_APP_ARGV), &Value::string("./a x"));
        assert_eq!(one(&a1, PMIX_WDIR), &Value::string("/v"));

        let nodes = get(&r, PMIX_NODE_INFO_ARRAY);
        assert_eq!(nodes.len(), 1);
        let n = array(nodes[0]);
        assert_eq!(one(&n, PMIX_HOSTNAME), &Value::string("host"));
        assert_eq!(one(&n, PMIX_NODEID), &Value::Uint32(0));

        let procs = get(&r, PMIX_PROC_INFO_ARRAY);
        assert_eq!(procs.len(), 5);
        for (i, p) in procs.iter().enumerate() {
            let p = array(p);
            let rank = Rank::try_from(i).expect("rank");
            assert_eq!(p[0].key.as_str(), PMIX_RANK, "PMIX_RANK comes first");
            assert_eq!(p[0].value, Value::Rank(rank));
            assert_eq!(
                one(&p, PMIX_PROC_PID),
                &Value::Pid(10 + i32::try_from(i).expect("i"))
            );
            assert!(get(&p, PMIX_LOCAL_RANK).is_empty(), "the map implies it");
            assert_eq!(
                served(&l, &r, rank, PMIX_LOCAL_RANK),
                Value::Uint16(u16::try_from(i).expect("i"))
            );
            assert_eq!(one(&p, PMIX_PROCDIR), &Value::string(&format!("/t/ns/{i}")));
        }
        let p3 = array(procs[3]);
        assert_eq!(one(&p3, PMIX_APPNUM), &Value::Uint32(1));
        assert_eq!(one(&p3, PMIX_APP_RANK), &Value::Rank(1));
        assert_eq!(one(&p3, PMIX_GLOBAL_RANK), &Value::Rank(3));
    }

    /// The type of every registered key, nested arrays included, is the one the PMIx_Get
    /// page gives (and the attribute table, for the keys it already has).
    #[test]
    fn every_key_has_its_documented_type() {
        use sys::*;
        let page: &[(&str, u16)] = &[
            (PMIX_NSPACE, PMIX_STRING),
            (PMIX_JOBID, PMIX_STRING),
            (PMIX_RANK, PMIX_PROC_RANK),
            (PMIX_GLOBAL_RANK, PMIX_PROC_RANK),
            (PMIX_APP_RANK, PMIX_PROC_RANK),
            (PMIX_LOCAL_RANK, PMIX_UINT16),
            (PMIX_NODE_RANK, PMIX_UINT16),
            (PMIX_NPROC_OFFSET, PMIX_PROC_RANK),
            (PMIX_LOCALLDR, PMIX_PROC_RANK),
            (PMIX_APPLDR, PMIX_PROC_RANK),
            (PMIX_APPNUM, PMIX_UINT32),
            (PMIX_SESSION_ID, PMIX_UINT32),
            (PMIX_PROC_PID, PMIX_PID),
            (PMIX_HOSTNAME, PMIX_STRING),
            (PMIX_NODEID, PMIX_UINT32),
            (PMIX_NODE_LIST, PMIX_STRING),
            (PMIX_ALLOCATED_NODELIST, PMIX_STRING),
            (PMIX_LOCAL_PEERS, PMIX_STRING),
            (PMIX_LOCAL_PROCS, PMIX_DATA_ARRAY),
            (PMIX_UNIV_SIZE, PMIX_UINT32),
            (PMIX_JOB_SIZE, PMIX_UINT32),
            (PMIX_JOB_NUM_APPS, PMIX_UINT32),
            (PMIX_APP_SIZE, PMIX_UINT32),
            (PMIX_LOCAL_SIZE, PMIX_UINT32),
            (PMIX_NODE_SIZE, PMIX_UINT32),
            (PMIX_MAX_PROCS, PMIX_UINT32),
            (PMIX_NUM_SLOTS, PMIX_UINT32),
            (PMIX_NUM_NODES, PMIX_UINT32),
            (PMIX_NUM_ALLOCATED_NODES, PMIX_UINT32),
            (PMIX_TMPDIR, PMIX_STRING),
            (PMIX_NSDIR, PMIX_STRING),
            (PMIX_PROCDIR, PMIX_STRING),
            (PMIX_TDIR_RMCLEAN, PMIX_BOOL),
            (PMIX_SPAWNED, PMIX_BOOL),
            (PMIX_REINCARNATION, PMIX_UINT32),
            (PMIX_NODE_OVERSUBSCRIBED, PMIX_BOOL),
            (PMIX_HOSTNAME_KEEP_FQDN, PMIX_BOOL),
            (PMIX_LOCALITY_STRING, PMIX_STRING),
            (PMIX_CPUSET, PMIX_STRING),
            (super::HWLOC_XML_V2, PMIX_STRING),
            // Not on the page; types from OpenPMIx's header.
            (PMIX_NODE_MAP, PMIX_STRING),
            (PMIX_PROC_MAP, PMIX_STRING),
            (PMIX_APP_ARGV, PMIX_STRING),
            (PMIX_WDIR, PMIX_STRING),
            (PMIX_APP_INFO_ARRAY, PMIX_DATA_ARRAY),
            (PMIX_NODE_INFO_ARRAY, PMIX_DATA_ARRAY),
            (PMIX_PROC_INFO_ARRAY, PMIX_DATA_ARRAY),
        ];
        fn walk(infos: &[Info], page: &[(&str, u16)], seen: &mut Vec<String>) {
            for i in infos {
                let k = i.key.as_str();
                let want = page
                    .iter()
                    .find(|(key, _)| *key == k)
                    .unwrap_or_else(|| panic!("{k} has no documented type here"));
                assert_eq!(i.value.dtype(), want.1, "{k}");
                if let Some(row) = pmix_sys::attrs::attr_by_key(k) {
                    if row.dtype != PMIX_UNDEF {
                        assert_eq!(i.value.dtype(), row.dtype, "{k} vs the attribute table");
                    }
                }
                seen.push(k.to_string());
                if let Value::DataArray(a) = &i.value {
                    if a.dtype == PMIX_INFO {
                        walk(&array(&i.value), page, seen);
                    }
                }
            }
        }
        let mut seen = Vec::new();
        walk(
            &registration(&layout(), &[1, 2, 3, 4, 5]).expect("reg"),
            page,
            &mut seen,
        );
        // Every key pmixrun defines is registered somewhere.
        for (name, key) in crate::keys::ALL {
            assert!(seen.iter().any(|s| s == key), "{name} is never registered");
        }
    }

    #[test]
    fn local_ranks_get_locality_and_cpuset() {
        let l = layout();
        let r = registration(&l, &[1, 2, 3, 4, 5]).expect("reg");
        let xml = one(&r, super::HWLOC_XML_V2);
        assert!(matches!(xml, Value::String(Some(x)) if x.starts_with(b"<?xml")));
        for rank in 0..l.size() {
            let cpuset = served(&l, &r, rank, PMIX_CPUSET);
            let Value::String(Some(c)) = &cpuset else {
                panic!("{cpuset:?}")
            };
            assert!(c.starts_with(b"hwloc:"), "{cpuset:?}");
            let loc = served(&l, &r, rank, PMIX_LOCALITY_STRING);
            let Value::String(Some(s)) = &loc else {
                panic!("{loc:?}")
            };
            let s = String::from_utf8_lossy(s);
            assert!(s.contains("HT"), "{s}");
            assert!(pmix_core::topology::relative_locality(&s, &s).unwrap() > 0x4000);
        }
    }

    #[test]
    fn block_placement() {
        assert_eq!(
            block_distribution(7, 3),
            vec![vec![0, 1, 2], vec![3, 4], vec![5, 6]]
        );
        assert_eq!(
            block_distribution(4, 4),
            vec![vec![0], vec![1], vec![2], vec![3]]
        );
        let n = nodes("h", 5, 1);
        assert_eq!((n.len(), n[0].hostname.as_str()), (1, "h"));
        let n = nodes("h", 5, 2);
        assert_eq!(n[1].hostname, "node1");
        assert_eq!(n[1].ranks, vec![3, 4]);
    }

    /// Each node's server is registered with its own node's view and every node's data.
    #[test]
    fn each_node_gets_its_own_view_of_the_whole_job() {
        let mut l = layout();
        l.nodes = nodes("host", 5, 2);
        let pids = [10, 11, 12, 13, 14];
        let r = registration_for(&l, &pids, 1).expect("node 1");
        assert_eq!(one(&r, PMIX_HOSTNAME), &Value::string("node1"));
        assert_eq!(one(&r, PMIX_NODEID), &Value::Uint32(1));
        assert_eq!(one(&r, PMIX_LOCAL_SIZE), &Value::Uint32(2));
        assert_eq!(one(&r, PMIX_LOCAL_PEERS), &Value::string("3,4"));
        assert_eq!(one(&r, PMIX_LOCALLDR), &Value::Rank(3));
        assert_eq!(one(&r, PMIX_NUM_NODES), &Value::Uint32(2));
        assert_eq!(one(&r, PMIX_NODE_LIST), &Value::string("node0,node1"));
        assert_eq!(one(&r, PMIX_PROC_MAP), &Value::string("0,1,2;3,4"));
        assert_eq!(one(&r, PMIX_NUM_SLOTS), &Value::Uint32(8));
        let nodes = get(&r, PMIX_NODE_INFO_ARRAY);
        assert_eq!(nodes.len(), 2, "every node");
        assert!(
            get(&array(nodes[0]), PMIX_LOCAL_PEERS).is_empty(),
            "the map implies it"
        );
        assert_eq!(
            served_node(&l, &r, "node0", PMIX_LOCAL_PEERS),
            Value::string("0,1,2")
        );
        assert_eq!(
            served_node(&l, &r, "node1", PMIX_LOCAL_SIZE),
            Value::Uint32(2)
        );
        match served_node(&l, &r, "node0", PMIX_LOCAL_PROCS) {
            Value::DataArray(a) => {
                assert_eq!(a.dtype, sys::PMIX_PROC);
                assert_eq!(a.items.len(), 3);
            }
            v => panic!("{v:?}"),
        }
        // A peer's node-level key is its own node's, not the reader's.
        assert_eq!(served(&l, &r, 1, PMIX_LOCAL_PEERS), Value::string("0,1,2"));
        let procs = get(&r, PMIX_PROC_INFO_ARRAY);
        assert_eq!(procs.len(), 5, "every process, local or not");
        assert_eq!(served(&l, &r, 1, PMIX_HOSTNAME), Value::string("node0"));
        assert_eq!(served(&l, &r, 1, PMIX_NODEID), Value::Uint32(0));
        assert_eq!(served(&l, &r, 1, PMIX_LOCAL_RANK), Value::Uint16(1));
        assert_eq!(served(&l, &r, 4, PMIX_HOSTNAME), Value::string("node1"));
        assert_eq!(served(&l, &r, 4, PMIX_NODEID), Value::Uint32(1));
        assert_eq!(served(&l, &r, 4, PMIX_NODE_RANK), Value::Uint16(1));
        let p4 = array(procs[4]);
        assert_eq!(one(&p4, PMIX_PROC_PID), &Value::Pid(14));
        assert!(registration_for(&l, &pids, 2).is_err());
    }

    #[test]
    fn maps() {
        assert_eq!(node_map(&["a", "b"]), "a,b");
        assert_eq!(proc_map(&[vec![0, 1], vec![2]]), "0,1;2");
    }
}
