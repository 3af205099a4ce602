use super::jobs::OwnAnswer;
use super::*;
use std::borrow::Cow;

/// What a local lookup decided.
pub(super) enum Lookup<T = Value> {
    Found(T),
    /// Found among what a collecting fence delivered: the caller moves it to the cache.
    Collected(ProcId, Key, Value),
    Fail(Error),
    Ask {
        target: ProcId,
        key: Option<Key>,
        immediate: bool,
    },
}

/// A value found locally, after the caller's conversion (which may fail).
pub(super) fn found<T>(r: Result<T>) -> Lookup<T> {
    match r {
        Ok(t) => Lookup::Found(t),
        Err(e) => Lookup::Fail(e),
    }
}

pub(super) fn info_array(infos: Vec<Info>) -> Value {
    Value::DataArray(Box::new(DataArray {
        dtype: sys::PMIX_INFO,
        items: infos
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect(),
    }))
}

/// The newest value of `key` in a process's layers of collected data: `None` if no layer
/// has it or a newer layer says it was removed.
pub(super) fn find_collected(layers: &[Collected], key: &str) -> Option<Value> {
    for c in layers.iter().rev() {
        if c.at.removed.iter().any(|k| k.as_str() == key) {
            return None;
        }
        if let Some(v) = c.find(key) {
            return Some(v);
        }
    }
    None
}

impl Collected {
    pub(super) fn find(&self, key: &str) -> Option<Value> {
        match protocol::collected_find(&self.payload, &self.at, key) {
            Ok(v) => v,
            Err(e) => {
                log::warn!(
                    "client: undecodable value in a fence's collected data: {}",
                    e
                );
                None
            }
        }
    }
}

/// A reserved key the host provides (answered at once, never waited for). The container
/// of qualified values is reserved by name but published by processes.
pub(super) fn host_key(k: &Key) -> bool {
    k.is_reserved() && k.as_str() != qualified::CONTAINER
}

impl Client {
    // ------------------------------------------------------------ get

    /// The self-referential keys (`PMIX_VERSION_NUMERIC`, `PMIX_PROCID`, `PMIX_RANK`),
    /// answered from our identity alone; None for any other key. They touch nothing that
    /// waits, so they are answered on the progress thread too.
    pub(super) fn self_referential(
        &self,
        proc: Option<&ProcId>,
        key: Option<&Key>,
    ) -> Option<Lookup> {
        let me = &self.inner.me;
        Some(match key?.as_str() {
            keys::VERSION_NUMERIC => Lookup::Found(Value::Uint32(sys::PMIX_NUMERIC_VERSION)),
            keys::PROCID => match proc {
                None => Lookup::Found(Value::Proc(Some(me.clone()))),
                Some(_) => Lookup::Fail(Error::not_found(
                    "PMIX_PROCID is only answered for a NULL proc",
                )),
            },
            keys::RANK => match proc {
                Some(p) if p.nspace == me.nspace && p.rank == sys::PMIX_RANK_INVALID => {
                    Lookup::Found(Value::Rank(me.rank))
                }
                _ => Lookup::Fail(Error::not_found(
                    "PMIX_RANK is only answered for {own namespace, PMIX_RANK_INVALID}",
                )),
            },
            _ => return None,
        })
    }

    pub(super) fn lookup_local(
        &self,
        proc: Option<&ProcId>,
        key: Option<&Key>,
        opts: &GetOpts,
    ) -> Lookup {
        match self.self_referential(proc, key) {
            Some(l) => l,
            None => self.lookup_data(proc, key, opts, |v| Ok(v.clone())),
        }
    }

    /// [`Client::lookup_local`] for a key already known not to be self-referential.
    pub(super) fn lookup_data<T>(
        &self,
        proc: Option<&ProcId>,
        key: Option<&Key>,
        opts: &GetOpts,
        f: impl FnOnce(&Value) -> Result<T>,
    ) -> Lookup<T> {
        let me = &self.inner.me;
        if let Some(k) = key {
            // Process sets and groups change at run time: the server answers.
            if matches!(
                k.as_str(),
                pmix_sys::attrs::keys::PMIX_PSET_NAMES | pmix_sys::attrs::keys::PMIX_GROUP_NAMES
            ) && !self.is_singleton()
            {
                return Lookup::Ask {
                    target: proc.cloned().unwrap_or_else(|| me.clone()),
                    key: Some(k.clone()),
                    immediate: true,
                };
            }
        }
        // Borrowed: a Get answered locally allocates nothing but the value it returns.
        let target: &ProcId = proc.unwrap_or(me);
        let d = self.inner.read();
        if target == me {
            return self.lookup_own(&d, key, opts, f);
        }
        if target.rank == sys::PMIX_RANK_WILDCARD {
            return self.lookup_job(&d, target, key, opts, f);
        }
        self.lookup_peer(&d, target, key, opts, f)
    }

    /// [`Client::lookup_data`] of our own data: what we put, then what the host
    /// registered for us.
    fn lookup_own<T>(
        &self,
        d: &Data,
        key: Option<&Key>,
        opts: &GetOpts,
        f: impl FnOnce(&Value) -> Result<T>,
    ) -> Lookup<T> {
        let me = &self.inner.me;
        let scope_ok = |s: u8| opts.scope.is_none_or(|want| scope_searched(s, want));
        match key {
            Some(k) => {
                if opts.level == Level::Any {
                    let put = if d.own_may_hold(k) {
                        d.own.map.get(k)
                    } else {
                        None
                    };
                    if let Some(e) = put {
                        if scope_ok(e.scope) {
                            return found(f(&e.value));
                        }
                    }
                    // Resolved in advance (`jobs.rs`): what `proc_value` would answer.
                    let v = match d.jobs.own_answer(k.as_str()) {
                        OwnAnswer::Value(v) => Some(Cow::Borrowed(v)),
                        OwnAnswer::JobLevel(j) => j.job_only(k.as_str()),
                        OwnAnswer::General => d
                            .jobs
                            .mine()
                            .and_then(|j| j.proc_value(me.rank, k.as_str(), opts.level)),
                    };
                    return match v {
                        Some(v) => found(f(&v)),
                        None => Lookup::Fail(Error::not_found(format!("{} has no key {}", me, k))),
                    };
                }
                match d
                    .jobs
                    .mine()
                    .and_then(|j| j.proc_value(me.rank, k.as_str(), opts.level))
                {
                    Some(v) => found(f(&v)),
                    None => Lookup::Fail(Error::not_found(format!("{} has no key {}", me, k))),
                }
            }
            None => {
                let mut v = d.own.visible(Reader::Owner);
                if let Some(j) = d.jobs.mine() {
                    v.extend(j.proc_infos(me.rank));
                }
                found(f(&info_array(v)))
            }
        }
    }

    /// [`Client::lookup_data`] of job-level data (`target` is a namespace's wildcard).
    fn lookup_job<T>(
        &self,
        d: &Data,
        target: &ProcId,
        key: Option<&Key>,
        opts: &GetOpts,
        f: impl FnOnce(&Value) -> Result<T>,
    ) -> Lookup<T> {
        // PMIX_GET_REFRESH_CACHE on job data: ask the server's current registration.
        if opts.refresh && key.is_some() && !self.is_singleton() {
            return Lookup::Ask {
                target: target.clone(),
                key: key.cloned(),
                immediate: true,
            };
        }
        let Some(j) = d.jobs.get(&target.nspace) else {
            if opts.optional {
                return Lookup::Fail(Error::not_found("namespace not known locally"));
            }
            // The server may know it, or will once it is registered: it waits for the
            // registration unless PMIX_IMMEDIATE says not to.
            return Lookup::Ask {
                target: target.clone(),
                key: key.cloned(),
                immediate: opts.immediate,
            };
        };
        if let Some(v) = key
            .filter(|_| opts.level == Level::Any)
            .and_then(|k| j.job_level(k.as_str()))
        {
            // Job-level keys first (the common case): the application and node selection
            // below matters only when the job level lacks the key.
            return found(f(v));
        }
        let Some(k) = key else {
            return found(f(&info_array(j.job_infos())));
        };
        let me = &self.inner.me;
        let sel = Select {
            // Default to the caller's own application when it is in this job.
            appnum: opts.appnum.or_else(|| {
                (target.nspace == me.nspace)
                    .then(|| {
                        j.proc_value(me.rank, keys::APPNUM, Level::Any)
                            .and_then(|v| v.as_u64())
                            .map(|v| v as u32)
                    })
                    .flatten()
            }),
            hostname: opts.hostname.as_deref(),
            nodeid: opts.nodeid,
            local_host: Some(self.inner.hostname.as_str()),
        };
        match j.job_value_sel(k.as_str(), opts.level, &sel) {
            Some(v) => found(f(&v)),
            None => Lookup::Fail(Error::not_found(format!(
                "no job-level key {} for {}",
                k, target.nspace
            ))),
        }
    }

    /// [`Client::lookup_data`] of a peer's data: reserved keys from the job data, then
    /// the cache of values read, what fences collected, what the host registered; else
    /// the server is asked.
    fn lookup_peer<T>(
        &self,
        d: &Data,
        target: &ProcId,
        key: Option<&Key>,
        opts: &GetOpts,
        f: impl FnOnce(&Value) -> Result<T>,
    ) -> Lookup<T> {
        let Some(k) = key else {
            return self.lookup_peer_all(d, target, opts, f);
        };
        let registered = || {
            d.jobs
                .get(&target.nspace)
                .and_then(|j| j.proc_value(target.rank, k.as_str(), opts.level))
        };
        if host_key(k) {
            if let Some(v) = registered() {
                return found(f(&v));
            }
        }
        // The cache does not keep scopes: a PMIX_DATA_SCOPE search goes to the server.
        if !opts.refresh && opts.scope.is_none() {
            if let Some(v) = d.peers.get(target).and_then(|m| m.get(k)) {
                return found(f(v));
            }
            // The last collecting fence in shared memory, if newer than what collecting
            // fences on the socket delivered; else those.
            let v = match self.inner.shm.find(&self.inner.me, target, k.as_str()) {
                Some(v) => v,
                None => d
                    .collected
                    .get(target)
                    .and_then(|l| find_collected(l, k.as_str())),
            };
            if let Some(v) = v {
                return Lookup::Collected(target.clone(), k.clone(), v);
            }
        }
        // A non-reserved key the host registered for this process (or its job).
        if let Some(v) = registered() {
            return found(f(&v));
        }
        if opts.optional || self.is_singleton() {
            return Lookup::Fail(Error::not_found(format!(
                "{} not found locally for {}",
                k, target
            )));
        }
        // A reserved key is not waited for once its namespace is known; for a namespace
        // not known here yet, the server waits for the registration (unless IMMEDIATE).
        let known_ns = d.jobs.contains_key(&target.nspace);
        Lookup::Ask {
            immediate: opts.immediate || (host_key(k) && known_ns),
            target: target.clone(),
            key: Some(k.clone()),
        }
    }

    /// [`Client::lookup_peer`] without a key: all of a peer's data. Without a server
    /// (a singleton, or a server process's own view) that is all we hold for it, as
    /// stored with `PMIx_Store_internal` or registered; otherwise the server answers.
    fn lookup_peer_all<T>(
        &self,
        d: &Data,
        target: &ProcId,
        opts: &GetOpts,
        f: impl FnOnce(&Value) -> Result<T>,
    ) -> Lookup<T> {
        if !self.is_singleton() {
            return Lookup::Ask {
                target: target.clone(),
                key: None,
                immediate: opts.immediate,
            };
        }
        let mut all: Vec<Info> = d
            .peers
            .get(target)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| Info {
                        key: k.clone(),
                        flags: 0,
                        value: v.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        if let Some(j) = d.jobs.get(&target.nspace) {
            all.extend(j.proc_infos(target.rank));
        }
        found(f(&info_array(all)))
    }

    pub(super) fn ask(
        &self,
        target: ProcId,
        key: Option<Key>,
        immediate: bool,
        opts: &GetOpts,
        cb: Callback<Value>,
    ) -> Result<u32> {
        if opts.refresh && target.rank == sys::PMIX_RANK_WILDCARD {
            return self.refresh_job(target, key, opts, cb);
        }
        let inner = self.inner.clone();
        let refresh = opts.refresh;
        let t2 = target.clone();
        let k2 = key.clone();
        let req = Req::Get {
            target,
            key,
            immediate,
            timeout_ms: opts
                .timeout
                .map(|d| d.as_millis().min(u32::MAX as u128) as u32)
                .unwrap_or(0),
            info: opts.info.clone(),
        };
        self.request_tagged(
            req,
            Box::new(move |status, data| {
                if status != sys::PMIX_SUCCESS {
                    cb(Err(Error::new(
                        status,
                        format!("get of {:?} from {} failed", k2, t2),
                    )));
                    return;
                }
                let infos = match data {
                    ReplyData::Data(v) => v.into_iter().map(expanded_info).collect(),
                    _ => Vec::<Info>::new(),
                };
                let wildcard = t2.rank == sys::PMIX_RANK_WILDCARD;
                if !wildcard {
                    let mut d = inner.write();
                    if refresh {
                        d.collected.remove(&t2);
                    }
                    let cache = d.peers.entry(t2.clone()).or_default();
                    if refresh {
                        cache.clear();
                    }
                    for i in &infos {
                        cache.insert(i.key.clone(), i.value.clone());
                    }
                }
                let r = match &k2 {
                    Some(k) => infos
                        .iter()
                        .find(|i| &i.key == k)
                        .map(|i| i.value.clone())
                        .ok_or_else(|| Error::not_found(format!("{} has no key {}", t2, k))),
                    None => {
                        let mut all = infos;
                        if let Some(j) = inner.read().jobs.get(&t2.nspace) {
                            all.extend(j.proc_infos(t2.rank));
                        }
                        Ok(info_array(all))
                    }
                };
                cb(r);
            }),
        )
    }

    /// A peer's value read from what a fence delivered joins the cache of values read, so
    /// that later fences do not change what this process sees (unless a value was cached
    /// meanwhile by another thread; that one wins).
    pub(super) fn keep_read(&self, proc: ProcId, key: Key, v: Value) -> Value {
        self.inner
            .write()
            .peers
            .entry(proc)
            .or_default()
            .entry(key)
            .or_insert_with(|| expanded(v))
            .clone()
    }

    /// `PMIX_GET_REFRESH_CACHE` with rank WILDCARD: replace our copy of the namespace's
    /// job-level data with the server's current registration, then answer from it.
    pub(super) fn refresh_job(
        &self,
        target: ProcId,
        key: Option<Key>,
        opts: &GetOpts,
        cb: Callback<Value>,
    ) -> Result<u32> {
        let me = self.clone();
        let mut plain = opts.clone();
        plain.refresh = false;
        let req = Req::JobData {
            nspace: target.nspace.clone(),
        };
        self.request_tagged(
            req,
            Box::new(move |status, data| {
                match (status, data) {
                    (sys::PMIX_SUCCESS, ReplyData::Job(jd)) => {
                        me.inner.write().jobs.insert(jd.nspace.clone(), *jd);
                    }
                    (sys::PMIX_SUCCESS, _) => {}
                    (st, _) => {
                        cb(Err(Error::new(
                            st,
                            format!("refresh of {}'s job data failed", target.nspace),
                        )));
                        return;
                    }
                }
                cb(match me.lookup_local(Some(&target), key.as_ref(), &plain) {
                    Lookup::Found(v) => Ok(v),
                    Lookup::Collected(p, k, v) => Ok(me.keep_read(p, k, v)),
                    Lookup::Fail(e) => Err(e),
                    Lookup::Ask { .. } => Err(Error::not_found(format!(
                        "{:?} is not in {}'s job data",
                        key, target.nspace
                    ))),
                });
            }),
        )
    }

    /// `PMIx_Get` (blocking). `proc` None means ourselves; `key` None returns all of the
    /// process's data as a `PMIX_DATA_ARRAY` of `PMIX_INFO`.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_EXISTS_OUTSIDE_SCOPE`, `PMIX_ERR_TIMEOUT`,
    /// `PMIX_ERR_WOULD_BLOCK` (progress thread), `PMIX_ERR_UNREACH`/`LOST_CONNECTION`.
    pub fn get(&self, proc: Option<&ProcId>, key: Option<&Key>, opts: &GetOpts) -> Result<Value> {
        self.get_with(proc, key, opts, |v| Ok(v.clone()))
    }

    /// [`Client::get`] handing the value to `f` by reference: a value found locally is
    /// converted by `f` while the store is read, instead of being copied out first (the C
    /// API converts it straight into the caller's `pmix_value_t`).
    ///
    /// # Errors
    /// As [`Client::get`], and `f`'s own.
    pub fn get_with<T>(
        &self,
        proc: Option<&ProcId>,
        key: Option<&Key>,
        opts: &GetOpts,
        f: impl FnOnce(&Value) -> Result<T>,
    ) -> Result<T> {
        reactor::check_serviceable("PMIx_Get")?;
        match self.self_referential(proc, key) {
            Some(Lookup::Found(v)) => return f(&v),
            Some(Lookup::Fail(e)) => return Err(e),
            _ => {}
        }
        reactor::would_block("PMIx_Get")?;
        if let Some((container, sel)) = qualified_get(key, opts) {
            let v = self
                .get(proc, Some(&container), &without_qualifiers(opts))
                .and_then(sel)?;
            return f(&v);
        }
        // `f` runs once: on a value found here, or on the one read from elsewhere below.
        let mut f = Some(f);
        let mut apply = |v: &Value| match f.take() {
            Some(f) => f(v),
            None => Err(Error::new(sys::PMIX_ERROR, "value converted twice")),
        };
        match self.lookup_data(proc, key, opts, &mut apply) {
            Lookup::Found(t) => Ok(t),
            Lookup::Collected(p, k, v) => apply(&self.keep_read(p, k, v)),
            Lookup::Fail(e) => Err(e),
            Lookup::Ask {
                target,
                key,
                immediate,
            } => apply(&self.wait_reply("PMIx_Get", opts.timeout, |done| {
                self.ask(
                    target,
                    key,
                    immediate,
                    opts,
                    Box::new(move |r| done.complete(r)),
                )
                .map(Some)
            })?),
        }
    }

    /// `PMIx_Get_nb`: `cb` runs exactly once, on the progress thread.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH` or `PMIX_ERR_NOT_AVAILABLE` if the request cannot be started
    /// (then `cb` is not called).
    pub fn get_nb(
        &self,
        proc: Option<&ProcId>,
        key: Option<&Key>,
        opts: &GetOpts,
        cb: Callback<Value>,
    ) -> Result<()> {
        reactor::check_serviceable("PMIx_Get_nb")?;
        if let Some((container, sel)) = qualified_get(key, opts) {
            return self.get_nb(
                proc,
                Some(&container),
                &without_qualifiers(opts),
                Box::new(move |r| cb(r.and_then(sel))),
            );
        }
        match self.lookup_local(proc, key, opts) {
            Lookup::Found(v) => self.inner.handle.post(move |_| cb(Ok(v))),
            Lookup::Collected(p, k, v) => {
                let v = self.keep_read(p, k, v);
                self.inner.handle.post(move |_| cb(Ok(v)))
            }
            Lookup::Fail(e) => self.inner.handle.post(move |_| cb(Err(e))),
            Lookup::Ask {
                target,
                key,
                immediate,
            } => self.ask(target, key, immediate, opts, cb).map(|_| ()),
        }
    }
}

/// A peer's value as `PMIx_Get` hands it back: a `PMIX_COMPRESSED_STRING` (what
/// OpenPMIx's `PMIx_Put` makes of a long string) decompressed to the `PMIX_STRING` it
/// was; a block that does not decompress stays as it came, with a log line.
pub(super) fn expanded(v: Value) -> Value {
    let Value::CompressedString(z) = &v else {
        return v;
    };
    match crate::compress::decompress(z) {
        Ok(mut s) => {
            if s.last() == Some(&0) {
                s.pop();
            }
            Value::String(Some(s))
        }
        Err(e) => {
            log::warn!("client: a compressed string value stays compressed: {}", e);
            v
        }
    }
}

fn expanded_info(mut i: Info) -> Info {
    i.value = expanded(i.value);
    i
}
