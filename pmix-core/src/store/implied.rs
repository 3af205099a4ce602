//! Job-level process lists the process map implies, kept once instead of per client.
//!
//! A host registers this node's `PMIX_LOCAL_PEERS` (a comma list) and `PMIX_LOCAL_PROCS`
//! (an array of process ids) at job level: one entry per local process, so with every
//! rank of a job on one node each of N clients held O(N) of them, O(N²) for the node.
//! When the registered value is exactly what the process map says about the server's
//! node, the server marks it in the per-process image ([`ProcTable::with_implied`]),
//! which every local client maps read-only; a Welcome leaves the value out
//! ([`JobData::encode_job_level`]) and the client builds it from the map when a Get asks
//! ([`JobData::implied_value`]), with the same type and contents.

use super::procs::IMPLIED_KEYS;
use super::{find, keys, JobData};
use crate::value::{DataArray, Info, Key, ProcId, Rank, Value};
use crate::wire::Wire;
use pmix_sys as sys;

impl JobData {
    /// The value a node-level process-list key (`PMIX_LOCAL_PEERS`, `PMIX_LOCAL_PROCS`,
    /// `PMIX_LOCALLDR`, `PMIX_LOCAL_SIZE`, `PMIX_NODE_SIZE`) has for a node whose
    /// processes are `ranks` (in rank order).
    pub(super) fn ranks_value(&self, key: &str, ranks: &[Rank]) -> Option<Value> {
        Some(match key {
            keys::LOCAL_PEERS => {
                let list: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
                Value::string(&list.join(","))
            }
            keys::LOCAL_PROCS => Value::DataArray(Box::new(DataArray {
                dtype: sys::PMIX_PROC,
                items: ranks
                    .iter()
                    .map(|&r| Value::Proc(Some(ProcId::new(self.nspace.clone(), r))))
                    .collect(),
            })),
            keys::LOCALLDR => Value::Rank(*ranks.first()?),
            keys::LOCAL_SIZE | keys::NODE_SIZE => Value::Uint32(ranks.len() as u32),
            _ => return None,
        })
    }

    /// True when `v` is exactly what [`JobData::ranks_value`] builds for `key` and
    /// `ranks` (compared without building it: the server checks every Welcome).
    fn is_ranks_value(&self, key: &str, v: &Value, ranks: &[Rank]) -> bool {
        match (key, v) {
            (keys::LOCAL_PEERS, Value::String(Some(s))) => {
                let mut parts = s.split(|&b| b == b',');
                let same = ranks.iter().all(|r| {
                    parts
                        .next()
                        .is_some_and(|p| p == r.to_string().as_bytes())
                });
                same && parts.next().is_none()
            }
            (keys::LOCAL_PROCS, Value::DataArray(a)) => {
                a.dtype == sys::PMIX_PROC
                    && a.items.len() == ranks.len()
                    && a.items.iter().zip(ranks).all(|(it, &r)| {
                        matches!(it, Value::Proc(Some(p)) if p.rank == r && p.nspace == self.nspace)
                    })
            }
            _ => false,
        }
    }

    /// Server side, after the map is known: mark in the per-process image which of
    /// [`IMPLIED_KEYS`] at job level are exactly what the map says of node `local` (an
    /// index in the node map), so Welcomes can leave them out.
    pub(super) fn mark_implied(&mut self, local: usize) {
        let Ok(node) = u32::try_from(local) else {
            return;
        };
        let Some(ranks) = self.procs.map_node_ranks(None, Some(node)) else {
            return;
        };
        let mut mask = 0u16;
        for (bit, key) in IMPLIED_KEYS.iter().enumerate() {
            if find(&self.job, key).is_some_and(|v| self.is_ranks_value(key, v, &ranks)) {
                mask |= 1 << bit;
            }
        }
        if mask != 0 {
            self.procs = self.procs.with_implied(node, mask);
        }
    }

    /// Client side: the job-level value of `key` the Welcome left out because the map
    /// implies it (None for any other key, or when the image says nothing about it).
    pub fn implied_value(&self, key: &str) -> Option<Value> {
        let node = self.procs.implied_node(key)?;
        let ranks = self.procs.map_node_ranks(None, Some(node))?;
        self.ranks_value(key, &ranks)
    }

    /// Encode the job-level infos (as `Vec<Info>`'s wire form); `local`: for a client on
    /// this node, without the values the map implies ([`JobData::implied_value`]).
    ///
    /// The mark is trusted: it was set when the value was checked against the map
    /// (`JobData::mark_implied`), and every change of the key since cleared it
    /// ([`JobData::add_resource`], [`JobData::retract_job_key`]; a re-registration builds
    /// a new table). Checking each value against the map again scanned the whole job per
    /// Welcome, O(N²) for a node of N clients. Only the first entry of a key is left out
    /// (the one the mark was checked on, and the one a Get finds).
    pub fn encode_job_level(&self, out: &mut Vec<u8>, local: bool) {
        let any = IMPLIED_KEYS
            .iter()
            .any(|k| self.procs.implied_node(k).is_some());
        if !local || !any {
            self.job.encode(out);
            return;
        }
        let mut left_out: Vec<&str> = Vec::new();
        let keep: Vec<&Info> = self
            .job
            .iter()
            .filter(|i| {
                let k = i.key.as_str();
                let omit = self.procs.implied_node(k).is_some() && !left_out.contains(&k);
                if omit {
                    left_out.push(k);
                }
                !omit
            })
            .collect();
        (keep.len() as u32).encode(out);
        for i in keep {
            i.encode(out);
        }
    }

    /// Every job-level info, the implied ones included (a Get with a NULL key).
    pub fn job_infos(&self) -> Vec<Info> {
        let mut out = self.job.clone();
        for key in IMPLIED_KEYS {
            if find(&out, key).is_some() {
                continue;
            }
            if let (Some(value), Ok(key)) = (self.implied_value(key), Key::new(key)) {
                out.push(Info {
                    key,
                    flags: 0,
                    value,
                });
            }
        }
        out
    }

    /// A job-level resource the host registered after this namespace
    /// (`PMIx_server_register_resources`): added when the job level lacks the key, put in
    /// place of the value when that came from the previous registration of the resource
    /// (`old`), else ignored (the namespace's own value wins). A key it changes is no
    /// longer taken as implied by the map: Welcomes then carry its value as it is.
    pub fn add_resource(&mut self, info: Info, old: Option<&Value>) {
        match self.job.iter_mut().find(|x| x.key == info.key) {
            Some(x) if old == Some(&x.value) => {
                self.procs.clear_implied(info.key.as_str());
                x.value = info.value;
            }
            Some(_) => {}
            None => {
                self.procs.clear_implied(info.key.as_str());
                self.job.push(info);
            }
        }
    }

    /// The host retracted the job-level `key`: drop it, implied or not.
    pub fn retract_job_key(&mut self, key: &Key) {
        self.job.retain(|i| &i.key != key);
        self.procs.clear_implied(key.as_str());
    }
}

#[cfg(test)]
mod tests {
    use super::super::{regex, Level, NodeData, Select};
    use super::*;
    use crate::protocol::{encode_welcome_accepted, Welcome};
    use crate::value::Nspace;
    use crate::wire::Decoder;
    use std::borrow::Cow;

    fn info(k: &str, v: Value) -> Info {
        Info::new(k, v).unwrap()
    }

    /// A job registered the way pmixrun does it: `n` ranks, `per` of them on each node
    /// in blocks, this node (`host`) listed at job level.
    fn registered(n: u32, per: u32, host: &str) -> JobData {
        let ns = Nspace::new("implied.job").unwrap();
        let nodes: Vec<String> = (0..n.div_ceil(per)).map(|i| format!("n{i}")).collect();
        let ranks: Vec<Vec<Rank>> = (0..nodes.len() as u32)
            .map(|i| (i * per..((i + 1) * per).min(n)).collect())
            .collect();
        let me = nodes.iter().position(|h| h == host).unwrap();
        let mine = &ranks[me];
        let names: Vec<&str> = nodes.iter().map(String::as_str).collect();
        let mut infos = vec![
            info(
                keys::NODE_MAP,
                Value::string(&regex::generate_nodes(&names)),
            ),
            info(keys::PROC_MAP, Value::string(&regex::generate_ppn(&ranks))),
            info(keys::JOB_SIZE, Value::Uint32(n)),
            info(keys::HOSTNAME, Value::string(host)),
        ];
        let list: Vec<String> = mine.iter().map(|r| r.to_string()).collect();
        infos.push(info(keys::LOCAL_PEERS, Value::string(&list.join(","))));
        infos.push(info(
            keys::LOCAL_PROCS,
            Value::DataArray(Box::new(DataArray {
                dtype: sys::PMIX_PROC,
                items: mine
                    .iter()
                    .map(|&r| Value::Proc(Some(ProcId::new(ns.clone(), r))))
                    .collect(),
            })),
        ));
        let mut jd = JobData::from_register(&ns, infos);
        jd.derive(host);
        jd
    }

    /// What a client on this node decodes from its Welcome.
    fn welcomed(jd: &JobData) -> JobData {
        let me = ProcId::new(jd.nspace.clone(), 0);
        let body = encode_welcome_accepted(&me, &me, &[jd], &mut Vec::new());
        match Welcome::decode(&mut Decoder::new(&body)).unwrap() {
            Welcome::Accepted { mut jobs, .. } => jobs.remove(0),
            w => panic!("{w:?}"),
        }
    }

    /// Every way a user reads the lists, on the server's data and on the client's.
    fn reads(jd: &JobData) -> Vec<Option<Value>> {
        fn own(v: Option<Cow<'_, Value>>) -> Option<Value> {
            v.map(Cow::into_owned)
        }
        let sel = Select::default();
        let mut out = Vec::new();
        for key in IMPLIED_KEYS {
            out.push(own(jd.job_value_sel(key, Level::Any, &sel)));
            out.push(own(jd.job_value_sel(key, Level::Job, &sel)));
            out.push(own(jd.proc_value(0, key, Level::Any)));
            out.push(own(jd.proc_value(0, key, Level::Job)));
            let all = jd.job_infos();
            out.push(
                all.iter()
                    .find(|i| i.key.as_str() == key)
                    .map(|i| i.value.clone()),
            );
        }
        out
    }

    #[test]
    fn local_lists_are_left_out_of_the_welcome_and_read_the_same() {
        for (n, per) in [(1, 1), (4, 4), (16, 16), (16, 4)] {
            let jd = registered(n, per, "n0");
            let client = welcomed(&jd);
            for key in IMPLIED_KEYS {
                assert!(find(&client.job, key).is_none(), "{key} sent at {n} ranks");
            }
            let want = reads(&jd);
            assert_eq!(reads(&client), want, "{n} ranks, {per} per node");
            let peers: Vec<String> = (0..per.min(n)).map(|r| r.to_string()).collect();
            assert_eq!(want[0], Some(Value::string(&peers.join(","))));
            match &want[5] {
                Some(Value::DataArray(a)) => assert_eq!(a.items.len(), per.min(n) as usize),
                v => panic!("LOCAL_PROCS {v:?}"),
            }
            assert_eq!(client.local_peers(), jd.local_peers());
        }
    }

    #[test]
    fn a_list_the_map_does_not_imply_is_sent() {
        let mut jd = registered(8, 4, "n1");
        // The host changed its mind after registering (a resource registered again, in
        // place of the value an earlier registration of it gave): the Welcome carries
        // its value.
        let v = Value::string("4,5");
        let old = find(&jd.job, keys::LOCAL_PEERS).cloned();
        jd.add_resource(info(keys::LOCAL_PEERS, v.clone()), old.as_ref());
        let client = welcomed(&jd);
        assert_eq!(find(&client.job, keys::LOCAL_PEERS), Some(&v));
        assert!(find(&client.job, keys::LOCAL_PROCS).is_none());
        assert_eq!(
            client
                .job_value(keys::LOCAL_PEERS, Level::Any, None)
                .as_deref(),
            Some(&v)
        );
        // A retracted key is gone on the client, implied or not.
        let mut client = client;
        client.retract_job_key(&Key::new(keys::LOCAL_PROCS).unwrap());
        assert!(client
            .job_value(keys::LOCAL_PROCS, Level::Job, None)
            .is_none());
        // The plain encoding (other nodes, Req::JobData) still carries both.
        let mut out = Vec::new();
        jd.encode(&mut out);
        let plain = JobData::decode(&mut Decoder::new(&out)).unwrap();
        assert!(find(&plain.job, keys::LOCAL_PROCS).is_some());
    }

    /// What a client resolves in advance for its own process ([`JobData::own_view`]) is
    /// what [`JobData::proc_value`] answers, and every other key reads at the job level
    /// (but for the node's process lists, which stay on the general path).
    #[test]
    fn own_view_answers_what_proc_value_does() {
        let mut jd = registered(16, 4, "n1");
        jd.nodes.push(NodeData {
            id: Some(1),
            hostname: Some("n1".into()),
            info: vec![
                info(keys::HOSTNAME, Value::string("n1")),
                info(keys::NODEID, Value::Uint32(1)),
                info("node.only", Value::Uint32(11)),
                info(keys::JOB_SIZE, Value::Uint32(99)),
            ],
        });
        jd.apps.push((0, vec![info("app.only", Value::Uint32(5))]));
        jd.procs
            .extend_list(5, [info("proc.only", Value::string("x"))]);
        let probe = [
            keys::LOCAL_RANK,
            keys::NODE_RANK,
            keys::HOSTNAME,
            keys::NODEID,
            keys::APPNUM,
            keys::LOCAL_SIZE,
            keys::NODE_SIZE,
            keys::LOCALLDR,
            keys::JOB_SIZE,
            keys::NUM_NODES,
            keys::LOCAL_PEERS,
            keys::LOCAL_PROCS,
            "node.only",
            "app.only",
            "proc.only",
            "nowhere",
        ];
        for rank in [4, 5, 7] {
            let view = jd.own_view(rank);
            for key in probe {
                let want = jd.proc_value(rank, key, Level::Any).map(Cow::into_owned);
                let got = match view.iter().find(|(k, _)| k.as_str() == key) {
                    Some((_, v)) => Some(v.clone()),
                    None if crate::store::OWN_VIEW_GENERAL.contains(&key) => {
                        jd.proc_value(rank, key, Level::Any).map(Cow::into_owned)
                    }
                    None => jd.job_only(key).map(Cow::into_owned),
                };
                assert_eq!(got, want, "rank {rank}, {key}");
            }
            // The node's value wins over the job's; the lists are not copied.
            let js = view.iter().find(|(k, _)| k.as_str() == keys::JOB_SIZE);
            assert_eq!(js.map(|(_, v)| v), Some(&Value::Uint32(99)));
            assert!(!view.iter().any(|(k, _)| k.as_str() == keys::LOCAL_PEERS));
        }
        assert_eq!(
            jd.own_view(5)
                .iter()
                .find(|(k, _)| k.as_str() == keys::LOCAL_RANK)
                .map(|(_, v)| v),
            Some(&Value::Uint16(1))
        );
    }

    /// The host retracts an implied list after the image was marked (and, the second
    /// time, sealed and published): a client welcomed afterwards must not rebuild it
    /// from the map, whether the image travels inline or as the sealed segment.
    #[test]
    fn a_list_retracted_before_a_welcome_stays_gone() {
        for publish in [false, true] {
            let mut jd = registered(8, 4, "n0");
            if publish {
                jd.procs.publish("implied-retract-test").unwrap();
            }
            jd.retract_job_key(&Key::new(keys::LOCAL_PEERS).unwrap());
            let me = ProcId::new(jd.nspace.clone(), 0);
            let mut fds = Vec::new();
            let body = encode_welcome_accepted(&me, &me, &[&jd], &mut fds);
            assert_eq!(fds.len(), usize::from(publish));
            let mut client = match Welcome::decode(&mut Decoder::new(&body)).unwrap() {
                Welcome::Accepted { mut jobs, .. } => jobs.remove(0),
                w => panic!("{w:?}"),
            };
            let owned: Vec<std::os::fd::OwnedFd> =
                fds.iter().map(|f| f.try_clone().unwrap()).collect();
            client.procs.attach(&owned).unwrap();
            for (who, j) in [("server", &jd), ("client", &client)] {
                let ctx = format!("{who}, published: {publish}");
                assert!(
                    j.job_value(keys::LOCAL_PEERS, Level::Any, None).is_none(),
                    "{ctx}"
                );
                assert!(
                    j.proc_value(0, keys::LOCAL_PEERS, Level::Job).is_none(),
                    "{ctx}"
                );
                assert!(
                    !j.job_infos()
                        .iter()
                        .any(|i| i.key.as_str() == keys::LOCAL_PEERS),
                    "{ctx}"
                );
                // The list that was not retracted still reads from the map.
                match j.job_value(keys::LOCAL_PROCS, Level::Job, None).as_deref() {
                    Some(Value::DataArray(a)) => assert_eq!(a.items.len(), 4, "{ctx}"),
                    v => panic!("{ctx}: LOCAL_PROCS {v:?}"),
                }
            }
        }
    }
}
