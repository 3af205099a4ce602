//! pmixrun's credential service (the host's `get_credential` / `validate_credential`):
//! a credential states who the kernel says asked for it (the uid, gid and pid of the
//! client's connection, `SO_PEERCRED`) and which process that was, sealed with a tag
//! only this pmixrun can compute. Nothing in it comes from what a client says about
//! itself, and a client cannot forge or alter one without the key.
//!
//! Layout (little-endian): `"PXRC"`, version `1` (u8), uid u32, gid u32, pid i32, serial
//! u64, nspace length u16 + bytes, rank u32, then a 16-byte tag: two SipHash values of
//! everything before it under two random keys drawn when pmixrun starts (std's
//! `RandomState`). A credential is only valid for the pmixrun that issued it; node
//! daemons (`--nodes K`) have no credential service.

use pmix_core::sys::PeerCred;
use pmix_core::{Error, Info, Nspace, ProcId, Result, Value};
use pmix_sys::attrs::keys as ak;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 4] = b"PXRC";
const VERSION: u8 = 1;
const TAG_LEN: usize = 16;
/// The mechanism name reported as `PMIX_CRED_TYPE` and accepted among its directives.
pub const CRED_TYPE: &str = "pmixrun";

/// What a valid credential states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claims {
    /// The peer's uid, gid and pid as the kernel reported them.
    pub peer: PeerCred,
    /// The process the credential was issued to.
    pub proc_: ProcId,
}

/// Issues and checks credentials under one random key pair.
pub struct CredService {
    k1: RandomState,
    k2: RandomState,
    serial: AtomicU64,
}

impl Default for CredService {
    fn default() -> Self {
        CredService {
            k1: RandomState::new(),
            k2: RandomState::new(),
            serial: AtomicU64::new(0),
        }
    }
}

impl CredService {
    fn tag(&self, body: &[u8]) -> [u8; TAG_LEN] {
        let mut t = [0u8; TAG_LEN];
        t[..8].copy_from_slice(&self.k1.hash_one(body).to_le_bytes());
        t[8..].copy_from_slice(&self.k2.hash_one(body).to_le_bytes());
        t
    }

    /// A credential for `proc_`, whose connection the kernel reported as `peer`.
    pub fn issue(&self, proc_: &ProcId, peer: PeerCred) -> Vec<u8> {
        let ns = proc_.nspace.as_str().as_bytes();
        let mut b = Vec::with_capacity(40 + ns.len() + TAG_LEN);
        b.extend_from_slice(MAGIC);
        b.push(VERSION);
        b.extend_from_slice(&peer.uid.to_le_bytes());
        b.extend_from_slice(&peer.gid.to_le_bytes());
        b.extend_from_slice(&peer.pid.to_le_bytes());
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        b.extend_from_slice(&serial.to_le_bytes());
        // A namespace is at most PMIX_MAX_NSLEN bytes, far below u16::MAX.
        b.extend_from_slice(&(ns.len() as u16).to_le_bytes());
        b.extend_from_slice(ns);
        b.extend_from_slice(&proc_.rank.to_le_bytes());
        let t = self.tag(&b);
        b.extend_from_slice(&t);
        b
    }

    /// Check a credential.
    ///
    /// # Errors
    /// `PMIX_ERR_INVALID_CRED` for anything this service did not issue unchanged.
    pub fn validate(&self, cred: &[u8]) -> Result<Claims> {
        let bad = |why: &str| Error::new(pmix_sys::PMIX_ERR_INVALID_CRED, why.to_string());
        let Some(split) = cred.len().checked_sub(TAG_LEN) else {
            return Err(bad("credential too short"));
        };
        let (body, tag) = cred.split_at(split);
        let want = self.tag(body);
        // Compare every byte, whatever the first difference.
        let diff = want.iter().zip(tag).fold(0u8, |acc, (a, b)| acc | (a ^ b));
        if diff != 0 {
            return Err(bad("credential not issued by this pmixrun, or altered"));
        }
        let mut r = Reader(body);
        if r.take(4)? != MAGIC || r.take(1)? != [VERSION] {
            return Err(bad("not a pmixrun credential"));
        }
        let uid = u32::from_le_bytes(r.array()?);
        let gid = u32::from_le_bytes(r.array()?);
        let pid = i32::from_le_bytes(r.array()?);
        let _serial = u64::from_le_bytes(r.array()?);
        let nslen = u16::from_le_bytes(r.array()?) as usize;
        let ns = std::str::from_utf8(r.take(nslen)?)
            .ok()
            .and_then(|s| Nspace::new(s).ok())
            .ok_or_else(|| bad("credential names an invalid namespace"))?;
        let rank = u32::from_le_bytes(r.array()?);
        if !r.0.is_empty() {
            return Err(bad("trailing bytes in credential"));
        }
        Ok(Claims {
            peer: PeerCred { pid, uid, gid },
            proc_: ProcId::new(ns, rank),
        })
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.0.len() < n {
            return Err(Error::new(
                pmix_sys::PMIX_ERR_INVALID_CRED,
                "truncated credential",
            ));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
}

/// Whether the caller's directives allow our mechanism (`PMIX_CRED_TYPE`: a
/// comma-separated list of acceptable ones; absent: any).
pub fn type_allowed(directives: &[Info]) -> bool {
    directives
        .iter()
        .filter(|i| i.key.as_str() == ak::PMIX_CRED_TYPE)
        .all(|i| {
            i.value
                .as_str()
                .is_some_and(|s| s.split(',').any(|t| t.trim() == CRED_TYPE))
        })
}

/// The infos describing an issued credential.
pub fn issued_info() -> Vec<Info> {
    Info::new(ak::PMIX_CRED_TYPE, Value::string(CRED_TYPE))
        .into_iter()
        .collect()
}

/// What a validation reports: the mechanism, the uid and gid, the pid and the process.
pub fn claims_info(c: &Claims) -> Vec<Info> {
    [
        Info::new(ak::PMIX_CRED_TYPE, Value::string(CRED_TYPE)),
        Info::new(ak::PMIX_USERID, Value::Uint32(c.peer.uid)),
        Info::new(ak::PMIX_GRPID, Value::Uint32(c.peer.gid)),
        Info::new(ak::PMIX_PROC_PID, Value::Pid(c.peer.pid)),
        Info::new(ak::PMIX_PROCID, Value::Proc(Some(c.proc_.clone()))),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(ns: &str, r: u32) -> ProcId {
        ProcId::new(Nspace::new(ns).unwrap(), r)
    }

    #[test]
    fn issued_credentials_validate_and_tampering_fails() {
        let s = CredService::default();
        let peer = PeerCred {
            pid: 42,
            uid: 1000,
            gid: 100,
        };
        let c = s.issue(&p("job", 3), peer);
        let claims = s.validate(&c).unwrap();
        assert_eq!(claims.peer, peer);
        assert_eq!(claims.proc_, p("job", 3));
        // Two credentials for the same process differ (serial).
        assert_ne!(s.issue(&p("job", 3), peer), c);
        for i in 0..c.len() {
            let mut t = c.clone();
            t[i] ^= 1;
            assert_eq!(
                s.validate(&t).unwrap_err().status,
                pmix_sys::PMIX_ERR_INVALID_CRED
            );
        }
        for cut in 0..c.len() {
            assert!(s.validate(&c[..cut]).is_err());
        }
        // Another service (another pmixrun) does not accept it.
        assert!(CredService::default().validate(&c).is_err());
    }

    #[test]
    fn cred_type_directive() {
        let d = |s: &str| vec![Info::new(ak::PMIX_CRED_TYPE, Value::string(s)).unwrap()];
        assert!(type_allowed(&[]));
        assert!(type_allowed(&d("munge, pmixrun")));
        assert!(!type_allowed(&d("munge")));
    }
}
