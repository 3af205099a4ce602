//! `PMIx_Publish`, `PMIx_Lookup`, `PMIx_Unpublish` in the client: requests the server
//! passes to its host, which keeps the data store.

use super::{timeout_of, Callback, Client};
use crate::error::{Error, Result};
use crate::protocol::{DynReq, ReplyData};
use crate::reactor;
use crate::value::{Info, Pdata};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;

fn status_result(status: i32, what: &str) -> Result<()> {
    if status == sys::PMIX_SUCCESS {
        Ok(())
    } else {
        Err(Error::new(status, format!("{} failed", what)))
    }
}

impl Client {
    fn no_server(&self, call: &str) -> Result<()> {
        if self.is_singleton() {
            return Err(Error::new(
                sys::PMIX_ERR_UNREACH,
                format!("{}: a singleton has no server", call),
            ));
        }
        Ok(())
    }

    /// `PMIx_Publish_nb`: `info` holds the data and the directives.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` (nothing given), `PMIX_ERR_UNREACH`.
    pub fn publish_nb(&self, info: &[Info], cb: Callback<()>) -> Result<()> {
        if info.is_empty() {
            log::warn!("PMIx_Publish: nothing to publish");
            return Err(Error::bad_param("PMIx_Publish needs data"));
        }
        self.no_server("PMIx_Publish")?;
        self.dyn_request(
            DynReq::Publish {
                info: info.to_vec(),
            },
            Box::new(move |st, _| cb(status_result(st, "publish"))),
        )
    }

    /// `PMIx_Publish` (blocking).
    ///
    /// # Errors
    /// As [`Client::publish_nb`], plus the host's (`PMIX_ERR_DUPLICATE_KEY`,
    /// `PMIX_ERR_NOT_SUPPORTED`), `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_TIMEOUT`.
    pub fn publish(&self, info: &[Info]) -> Result<()> {
        reactor::wait("PMIx_Publish", timeout_of(info), |done| {
            self.publish_nb(info, Box::new(move |r| done.complete(r)))
        })
    }

    /// `PMIx_Lookup_nb`: `cb` receives what was found (`PMIX_ERR_NOT_FOUND` when
    /// nothing was). The caller compares the result with `keys` to tell a partial
    /// answer (the C form reports `PMIX_ERR_PARTIAL_SUCCESS` then).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` (no keys), `PMIX_ERR_UNREACH`.
    pub fn lookup_nb(
        &self,
        keys: Vec<String>,
        info: &[Info],
        cb: Callback<Vec<Pdata>>,
    ) -> Result<()> {
        if keys.is_empty() {
            log::warn!("PMIx_Lookup: no keys");
            return Err(Error::bad_param("PMIx_Lookup needs keys"));
        }
        self.no_server("PMIx_Lookup")?;
        self.dyn_request(
            DynReq::Lookup {
                keys,
                info: info.to_vec(),
            },
            Box::new(move |st, data| {
                if st != sys::PMIX_SUCCESS {
                    cb(Err(Error::new(st, "lookup failed")));
                    return;
                }
                match data {
                    ReplyData::Pdata(v) => cb(Ok(v)),
                    _ => cb(Ok(Vec::new())),
                }
            }),
        )
    }

    /// `PMIx_Lookup` (blocking): the data found for `keys` (at least one, else
    /// `PMIX_ERR_NOT_FOUND`). `PMIX_WAIT` waits for later publishes, bounded by
    /// `PMIX_TIMEOUT`.
    ///
    /// # Errors
    /// As [`Client::lookup_nb`], plus `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_TIMEOUT`,
    /// `PMIX_ERR_WOULD_BLOCK`, `PMIX_ERR_NOT_SUPPORTED`.
    pub fn lookup(&self, keys: Vec<String>, info: &[Info]) -> Result<Vec<Pdata>> {
        let timeout = timeout_of(info);
        let waits = info.iter().any(|i| i.key.as_str() == ak::PMIX_WAIT);
        // With PMIX_WAIT the host enforces the timeout; give it a moment to answer.
        let bound = timeout.map(|t| {
            if waits {
                t + std::time::Duration::from_secs(1)
            } else {
                t
            }
        });
        let found = reactor::wait("PMIx_Lookup", bound, |done| {
            self.lookup_nb(keys, info, Box::new(move |r| done.complete(r)))
        })?;
        if found.is_empty() {
            return Err(Error::not_found("none of the keys is published"));
        }
        Ok(found)
    }

    /// `PMIx_Unpublish_nb` (`keys` empty: everything we published in the range).
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH`.
    pub fn unpublish_nb(&self, keys: Vec<String>, info: &[Info], cb: Callback<()>) -> Result<()> {
        self.no_server("PMIx_Unpublish")?;
        self.dyn_request(
            DynReq::Unpublish {
                keys,
                info: info.to_vec(),
            },
            Box::new(move |st, _| cb(status_result(st, "unpublish"))),
        )
    }

    /// `PMIx_Unpublish` (blocking).
    ///
    /// # Errors
    /// As [`Client::unpublish_nb`], plus `PMIX_ERR_WOULD_BLOCK` and the host's.
    pub fn unpublish(&self, keys: Vec<String>, info: &[Info]) -> Result<()> {
        reactor::wait("PMIx_Unpublish", timeout_of(info), |done| {
            self.unpublish_nb(keys, info, Box::new(move |r| done.complete(r)))
        })
    }
}
