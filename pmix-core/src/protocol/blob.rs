//! Host blobs: what a server hands its host for a fence or direct-modex answer
//! ([`encode_blob`]) and reads back from a concatenation of them ([`decode_blobs`]).

use crate::error::{Error, Result};
use crate::store::Entry;
use crate::value::{Key, Nspace, ProcId, Value};
use crate::wire::{decode_seq, Decoder, Wire};
use pmix_sys as sys;

const BLOB_MAGIC: u32 = u32::from_le_bytes(*b"PMXB");
const BLOB_VERSION: u16 = 2;

/// Blob flag: the fence collects data (`PMIX_COLLECT_DATA`); set on direct-modex answers.
pub const BLOB_COLLECT: u8 = 0x01;
/// Blob flag: the sending server runs delta modex (`pmix_server_fence_delta_modex`), so
/// its sections may be deltas.
pub const BLOB_DELTA: u8 = 0x02;
/// Every flag this version understands; any other bit makes the whole input unusable.
const BLOB_KNOWN_FLAGS: u8 = BLOB_COLLECT | BLOB_DELTA;

/// What one process's section of a blob holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    /// Everything the process has published (and every key it ever deleted).
    Full,
    /// Only what changed since the process last took part in a collecting fence.
    Delta,
}

/// One process's contribution inside a host blob.
///
/// `entries` are the process's REMOTE and GLOBAL values, plus its LOCAL keys as scope
/// markers (value [`Value::Undef`]): a LOCAL value never leaves its node, but the other
/// nodes learn that the key exists, so a Get there answers
/// `PMIX_ERR_EXISTS_OUTSIDE_SCOPE`. `deleted` names keys the process removed with a
/// `PMIX_DEL_*` scope; a receiver drops them before storing `entries`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcBlob {
    /// Whose data.
    pub proc_: ProcId,
    /// Full set or delta.
    pub kind: SectionKind,
    /// Values (LOCAL ones as markers).
    pub entries: Vec<(Key, Entry)>,
    /// Deleted keys with the `PMIX_DEL_*` scope they were deleted with.
    pub deleted: Vec<(Key, u8)>,
}

impl ProcBlob {
    /// A full section with these entries and no deletions.
    pub fn full(proc_: ProcId, entries: Vec<(Key, Entry)>) -> ProcBlob {
        ProcBlob {
            proc_,
            kind: SectionKind::Full,
            entries,
            deleted: Vec::new(),
        }
    }
}

/// One server's blob, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Blob {
    /// Whether the fence collected data (`PMIX_COLLECT_DATA`).
    pub collect: bool,
    /// Whether the sender runs delta modex.
    pub delta: bool,
    /// Per-process data.
    pub procs: Vec<ProcBlob>,
}

impl Blob {
    /// An empty blob of a fence (collecting or not), without delta modex.
    pub fn new(collect: bool) -> Blob {
        Blob {
            collect,
            delta: false,
            procs: Vec::new(),
        }
    }

    /// The flag byte this blob carries.
    pub fn flags(&self) -> u8 {
        let mut f = 0;
        if self.collect {
            f |= BLOB_COLLECT;
        }
        if self.delta {
            f |= BLOB_DELTA;
        }
        f
    }
}

/// Encode one server's contribution for a host (fence or direct modex).
///
/// ```text
/// blob    := "PMXB" u32 | version u16 (= 2) | flags u8 | body length u32 | body
/// body    := u32 n, n × Nspace (the namespaces the sections name)
///            u32 m, m × section
/// section := u32 nspace index | u32 rank | u8 kind (0 full, 1 delta)
///            | u32 k, k × (Key, scope u8, Value)   -- LOCAL entries carry Undef
///            | u32 d, d × (Key, PMIX_DEL_* scope u8)
/// ```
pub fn encode_blob(blob: &Blob) -> Vec<u8> {
    let mut nspaces: Vec<&Nspace> = Vec::new();
    for p in &blob.procs {
        if !nspaces.contains(&&p.proc_.nspace) {
            nspaces.push(&p.proc_.nspace);
        }
    }
    let mut body = Vec::new();
    (nspaces.len() as u32).encode(&mut body);
    for n in &nspaces {
        n.encode(&mut body);
    }
    (blob.procs.len() as u32).encode(&mut body);
    for p in &blob.procs {
        let idx = nspaces
            .iter()
            .position(|n| *n == &p.proc_.nspace)
            .unwrap_or(0);
        (idx as u32).encode(&mut body);
        p.proc_.rank.encode(&mut body);
        let kind: u8 = match p.kind {
            SectionKind::Full => 0,
            SectionKind::Delta => 1,
        };
        kind.encode(&mut body);
        (p.entries.len() as u32).encode(&mut body);
        for (k, e) in &p.entries {
            k.encode(&mut body);
            e.scope.encode(&mut body);
            if e.scope == sys::PMIX_LOCAL {
                Value::Undef.encode(&mut body); // the value stays on its node
            } else {
                e.value.encode(&mut body);
            }
        }
        (p.deleted.len() as u32).encode(&mut body);
        for (k, scope) in &p.deleted {
            k.encode(&mut body);
            scope.encode(&mut body);
        }
    }
    let mut out = Vec::with_capacity(body.len() + 11);
    BLOB_MAGIC.encode(&mut out);
    BLOB_VERSION.encode(&mut out);
    blob.flags().encode(&mut out);
    (body.len() as u32).encode(&mut out);
    out.extend_from_slice(&body);
    out
}

fn decode_blob_body(d: &mut Decoder<'_>, delta_allowed: bool) -> Result<Vec<ProcBlob>> {
    let nspaces: Vec<Nspace> = decode_seq(d)?;
    // A section is at least 17 bytes (index, rank, kind, two counts).
    let n = d.count(17)?;
    let mut procs = Vec::with_capacity(n);
    for _ in 0..n {
        let idx = u32::decode(d)? as usize;
        let nspace = nspaces
            .get(idx)
            .ok_or_else(|| Error::unpack(format!("namespace index {} out of range", idx)))?;
        let rank = u32::decode(d)?;
        let kind = match u8::decode(d)? {
            0 => SectionKind::Full,
            1 if delta_allowed => SectionKind::Delta,
            1 => return Err(Error::unpack("delta section in a blob not flagged delta")),
            k => return Err(Error::unpack(format!("unknown section kind {}", k))),
        };
        let m = d.count(7)?;
        let mut entries = Vec::with_capacity(m);
        for _ in 0..m {
            let k = Key::decode(d)?;
            let scope = u8::decode(d)?;
            if !matches!(scope, sys::PMIX_LOCAL | sys::PMIX_REMOTE | sys::PMIX_GLOBAL) {
                return Err(Error::unpack(format!("entry {} with scope {}", k, scope)));
            }
            let mut value = Value::decode(d)?;
            if scope == sys::PMIX_LOCAL {
                value = Value::Undef;
            }
            entries.push((k, Entry { scope, value }));
        }
        let m = d.count(5)?;
        let mut deleted = Vec::with_capacity(m);
        for _ in 0..m {
            let k = Key::decode(d)?;
            let scope = u8::decode(d)?;
            if !matches!(
                scope,
                sys::PMIX_DEL_LOCAL | sys::PMIX_DEL_REMOTE | sys::PMIX_DEL_GLOBAL
            ) {
                return Err(Error::unpack(format!(
                    "deletion of {} with scope {}",
                    k, scope
                )));
            }
            deleted.push((k, scope));
        }
        procs.push(ProcBlob {
            proc_: ProcId::new(nspace.clone(), rank),
            kind,
            entries,
            deleted,
        });
    }
    Ok(procs)
}

/// Decode a concatenation of server blobs (possibly empty).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if any part is malformed, of an unknown version, carries a flag
/// this version does not know, or if the parts disagree on their flags (whether the
/// fence collected data, whether delta modex is on); nothing is returned in that case,
/// so a caller never stores part of a rejected input.
pub fn decode_blobs(bytes: &[u8]) -> Result<Vec<Blob>> {
    let mut d = Decoder::new(bytes);
    let mut out = Vec::new();
    let mut first_flags: Option<u8> = None;
    let bad = |e: Error| Error::bad_param(format!("malformed fence/modex data: {}", e.context));
    while !d.is_empty() {
        let magic = u32::decode(&mut d).map_err(bad)?;
        if magic != BLOB_MAGIC {
            return Err(Error::bad_param("malformed fence/modex data: bad magic"));
        }
        let ver = u16::decode(&mut d).map_err(bad)?;
        if ver != BLOB_VERSION {
            return Err(Error::bad_param(format!(
                "fence/modex data of unknown version {} (we read {})",
                ver, BLOB_VERSION
            )));
        }
        let flags = u8::decode(&mut d).map_err(bad)?;
        if flags & !BLOB_KNOWN_FLAGS != 0 {
            return Err(Error::bad_param(format!(
                "fence/modex data with unknown flags {:#04x}",
                flags & !BLOB_KNOWN_FLAGS
            )));
        }
        match first_flags {
            None => first_flags = Some(flags),
            Some(f) if f != flags => {
                return Err(Error::bad_param(format!(
                    "servers disagree on the kind of fence contribution (flags {:#04x} and \
                     {:#04x}: collect bit {:#04x}, delta-modex bit {:#04x})",
                    f, flags, BLOB_COLLECT, BLOB_DELTA
                )))
            }
            Some(_) => {}
        }
        let len = u32::decode(&mut d).map_err(bad)? as usize;
        let body = d.take(len).map_err(bad)?;
        let mut bd = Decoder::new(body);
        let procs = decode_blob_body(&mut bd, flags & BLOB_DELTA != 0).map_err(bad)?;
        if !bd.is_empty() {
            return Err(Error::bad_param(
                "malformed fence/modex data: trailing bytes",
            ));
        }
        out.push(Blob {
            collect: flags & BLOB_COLLECT != 0,
            delta: flags & BLOB_DELTA != 0,
            procs,
        });
    }
    Ok(out)
}
