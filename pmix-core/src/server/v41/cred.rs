//! Munge security for OpenPMIx peers: the check of a munge credential in a connect
//! message, and whether the security modes our server offers its OpenPMIx children
//! (`PMIX_SECURITY_MODE`) include munge.

use crate::error::{Error, Result};
use crate::sys::munge;
use pmix_sys as sys;
use std::sync::OnceLock;

/// The uid and gid a munge credential vouches for, after munged checked it (its MAC,
/// its time to live, that it was never decoded before).
///
/// # Errors
/// `PMIX_ERR_INVALID_CRED` saying what munged refused (expired, replayed, forged,
/// malformed) or that it could not be asked (libmunge missing, munged down).
pub fn munge_ids(credential: &[u8]) -> Result<(u32, u32)> {
    munge::decode(credential).map_err(|e| {
        let why = match e.code {
            munge::EMUNGE_CRED_EXPIRED => "expired",
            munge::EMUNGE_CRED_REPLAYED => "replayed",
            munge::EMUNGE_SOCKET | -1 => "not checkable",
            _ => "invalid",
        };
        Error::new(
            sys::PMIX_ERR_INVALID_CRED,
            format!("v41 handshake: munge credential {}: {}", why, e),
        )
    })
}

/// `PMIX_SECURITY_MODE` for our OpenPMIx children: `native`, and `munge` too when
/// libmunge loads and munged answers (probed once, with one credential). OpenPMIx
/// clients then pick by their own priorities (munge before native) or by their
/// `PMIX_MCA_psec`.
pub fn security_mode() -> &'static str {
    static MODE: OnceLock<&'static str> = OnceLock::new();
    MODE.get_or_init(|| match munge::encode() {
        Ok(_) => "native,munge",
        Err(e) => {
            log::debug!("server: OpenPMIx children get native security only: {}", e);
            "native"
        }
    })
}
