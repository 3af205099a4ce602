use super::*;

/// Mark `key` to be sent at the next commit in `scope`, with the value `own` holds for it.
pub(super) fn stage(
    staged: &mut FastMap<Key, (u8, Option<Value>)>,
    key: &str,
    scope: u8,
) -> Result<()> {
    // Replace in place when the key is staged already (no new key copy).
    match staged.get_mut(key) {
        Some(s) => *s = (scope, None),
        None => {
            staged.insert(Key::new(key)?, (scope, None));
        }
    }
    Ok(())
}

/// `own`'s value of `key` was just replaced by one that is not sent (`old` is what it
/// held): a commit pending for the key must still send `old`.
pub(super) fn keep_staged_value(
    staged: &mut FastMap<Key, (u8, Option<Value>)>,
    key: &str,
    old: Option<Value>,
) {
    if let (Some(old), Some(s)) = (old, staged.get_mut(key)) {
        if s.1.is_none() {
            s.1 = Some(old);
        }
    }
}

impl Client {
    // ------------------------------------------------------------ put / commit

    /// `PMIx_Put`: store locally (visible to our own Gets at once) and stage for the next
    /// commit unless the scope is `PMIX_INTERNAL`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a scope other than LOCAL, REMOTE, GLOBAL, INTERNAL, UNDEF
    /// or one of the `PMIX_DEL_*` deletion scopes (which remove `key`; `value` is ignored,
    /// and deleting an absent key is not an error).
    pub fn put(&self, scope: u8, key: Key, value: Value) -> Result<()> {
        self.put_str(scope, key.as_str(), value)
    }

    /// [`Client::put`] with the key as a string: a key already put before is found
    /// without allocating; a new one is checked as [`Key::new`] does.
    ///
    /// # Errors
    /// As [`Client::put`], and `PMIX_ERR_BAD_PARAM` for an invalid key.
    pub fn put_str(&self, scope: u8, key: &str, value: Value) -> Result<()> {
        reactor::check_serviceable("PMIx_Put")?;
        reactor::would_block("PMIx_Put")?;
        if key.is_empty() {
            return Err(Error::bad_param("empty key"));
        }
        if scope > sys::PMIX_DEL_INTERNAL {
            return Err(Error::bad_param(format!(
                "scope {} not supported by Put",
                scope
            )));
        }
        let mut d = self.inner.write();
        let value = if key == qualified::CONTAINER && scope < sys::PMIX_DEL_LOCAL {
            qualified::merge(d.own.map.get(key).map(|e| &e.value), &value)?
        } else {
            value
        };
        if scope >= sys::PMIX_DEL_LOCAL {
            // Deletion: gone from our own view at once; the others learn at commit.
            d.own.map.remove(key);
            if scope == sys::PMIX_DEL_INTERNAL {
                d.staged.remove(key);
            } else {
                let k = Key::new(key)?;
                d.staged.insert(k, (scope, Some(Value::Undef)));
            }
            return Ok(());
        }
        let d = &mut *d;
        let sent = matches!(scope, sys::PMIX_LOCAL | sys::PMIX_REMOTE | sys::PMIX_GLOBAL);
        if sent {
            stage(&mut d.staged, key, scope)?;
        }
        let old = match d.own.map.get_mut(key) {
            Some(e) => {
                e.scope = scope;
                Some(std::mem::replace(&mut e.value, value))
            }
            None => {
                let key = Key::new(key)?;
                d.own_reserved |= key.is_reserved();
                d.own.put(key, scope, value);
                None
            }
        };
        if !sent {
            keep_staged_value(&mut d.staged, key, old);
        }
        Ok(())
    }

    /// [`Client::put_str`] of a string value given by reference (`None`: a NULL string).
    /// Putting a string again under a key whose value is a string rewrites that string in
    /// place: no allocation, no copy for the commit (`Data::staged`), so a repeated Put
    /// of a key costs no allocator call at all.
    ///
    /// # Errors
    /// As [`Client::put_str`].
    pub fn put_string(&self, scope: u8, key: &str, s: Option<&[u8]>) -> Result<()> {
        let sent = matches!(scope, sys::PMIX_LOCAL | sys::PMIX_REMOTE | sys::PMIX_GLOBAL);
        if let (true, Some(bytes)) = (sent && key != qualified::CONTAINER, s) {
            reactor::check_serviceable("PMIx_Put")?;
            reactor::would_block("PMIx_Put")?;
            let mut d = self.inner.write();
            let d = &mut *d;
            if let Some(e) = d.own.map.get_mut(key) {
                if let Value::String(Some(buf)) = &mut e.value {
                    buf.clear();
                    buf.extend_from_slice(bytes);
                    e.scope = scope;
                    return stage(&mut d.staged, key, scope);
                }
            }
        }
        self.put_str(scope, key, Value::String(s.map(<[u8]>::to_vec)))
    }

    /// `PMIx_Commit`: send what was put since the last commit.
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH` if the server connection is gone.
    pub fn commit(&self) -> Result<()> {
        reactor::check_serviceable("PMIx_Commit")?;
        reactor::would_block("PMIx_Commit")?;
        let puts: Vec<Put> = {
            let mut d = self.inner.write();
            let staged = std::mem::take(&mut d.staged);
            // The one place the delta is visible: with PMIX_DEBUG=debug each commit
            // reports how many changes (puts and deletions since the previous commit) it
            // sends.
            if staged.is_empty() {
                log::debug!("PMIx_Commit: nothing to send (no change since the previous commit)");
                return Ok(());
            }
            log::debug!(
                "PMIx_Commit: sending {} change(s) made since the previous commit",
                staged.len()
            );
            if self.is_singleton() {
                return Ok(());
            }
            staged
                .into_iter()
                .filter_map(|(key, (scope, value))| {
                    let value = match value {
                        Some(v) => v,
                        // Staged by reference: the value Put last, still in `own`.
                        None => d.own.map.get(&key)?.value.clone(),
                    };
                    Some(Put { key, scope, value })
                })
                .collect()
        };
        let deletes = puts.iter().any(|p| p.scope >= sys::PMIX_DEL_LOCAL);
        self.inner.shm.committed(deletes);
        self.send_only(Req::Commit { puts })
    }

    /// `PMIx_Store_internal`: store a value as if it came from `proc` (our cache only).
    pub fn store_internal(&self, proc: &ProcId, key: Key, value: Value) -> Result<()> {
        let mut d = self.inner.write();
        if proc == &self.inner.me {
            let d = &mut *d;
            d.own_reserved |= key.is_reserved();
            let old = d.own.map.insert(
                key.clone(),
                crate::store::Entry {
                    scope: sys::PMIX_INTERNAL,
                    value,
                },
            );
            keep_staged_value(&mut d.staged, key.as_str(), old.map(|e| e.value));
        } else if proc.rank == sys::PMIX_RANK_WILDCARD {
            d.jobs.update_or_new(&proc.nspace, |jd| {
                jd.job.retain(|i| i.key != key);
                jd.job.push(Info {
                    key,
                    flags: 0,
                    value,
                });
            });
        } else {
            d.peers.entry(proc.clone()).or_default().insert(key, value);
        }
        Ok(())
    }
}
