//! I/O forwarding: what travels, who wants it, and the server's own copy of it.
//!
//! A host hands its server the output of the processes it runs (`PMIx_server_IOF_deliver`,
//! [`crate::server::Server::iof_deliver`]). The server passes each chunk to every
//! registration (`PMIx_IOF_pull`) whose processes and channels match, and keeps chunks
//! nobody registered for in a bounded cache, replayed to the first later registration that
//! matches them. Clients receive chunks as [`IofChunk`]s on their progress thread.
//!
//! # Implementation notes
//! Facts taken from OpenPMIx master: a chunk matches a registration when the channel bits
//! intersect and the source matches one of its processes (an empty namespace or a
//! `PMIX_RANK_WILDCARD` on either side matches anything); a chunk is never forwarded to
//! the process it came from; a zero-byte chunk is an end-of-stream marker, usually with
//! `PMIX_IOF_COMPLETE` among its infos; the cache holds messages (not bytes) and drops
//! the oldest when full. The cache-size and buffering directives of a pull
//! (`PMIX_IOF_CACHE_SIZE`, `PMIX_IOF_DROP_*`, `PMIX_IOF_BUFFERING_*`) are accepted and
//! not acted on, as in OpenPMIx master.

use crate::value::{Info, ProcId};
use pmix_sys as sys;
use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

/// `pmix_iof_channel_t`: a bit mask of `PMIX_FWD_*_CHANNEL`.
pub type Channels = sys::pmix_iof_channel_t;

/// The channel bits a process may ask to receive (everything but stdin).
pub const OUTPUT_CHANNELS: Channels = sys::PMIX_FWD_ALL_CHANNELS & !sys::PMIX_FWD_STDIN_CHANNEL;

/// One chunk of forwarded output.
#[derive(Debug, Clone, PartialEq)]
pub struct IofChunk {
    /// The process that wrote it.
    pub source: ProcId,
    /// The channel(s) it was written on.
    pub channel: Channels,
    /// Metadata from the host (e.g. `PMIX_IOF_COMPLETE`).
    pub info: Vec<Info>,
    /// The bytes (empty: end of stream).
    pub data: Vec<u8>,
}

/// What receives the chunks of one registration: its id and the chunk, on the progress
/// thread.
pub type IofHandler = Arc<dyn Fn(u64, &IofChunk) + Send + Sync + 'static>;

/// True when `source` is one of `procs` in OpenPMIx's sense (namespaces equal or either
/// empty; ranks equal or either `PMIX_RANK_WILDCARD`).
pub fn source_matches(procs: &[ProcId], source: &ProcId) -> bool {
    procs.iter().any(|p| {
        (p.nspace.is_empty() || source.nspace.is_empty() || p.nspace == source.nspace)
            && (p.rank == source.rank
                || p.rank == sys::PMIX_RANK_WILDCARD
                || source.rank == sys::PMIX_RANK_WILDCARD)
    })
}

/// True when a registration for `procs` on `channels` wants `chunk`.
pub fn wants(procs: &[ProcId], channels: Channels, chunk: &IofChunk) -> bool {
    chunk.channel & channels != 0 && source_matches(procs, &chunk.source)
}

/// The value of a boolean directive (`None` when absent).
pub fn flag(info: &[Info], key: &str) -> Option<bool> {
    info.iter()
        .find(|i| i.key.as_str() == key)
        .map(|i| i.value.is_true())
}

/// True when `info` marks the end of a stream (`PMIX_IOF_COMPLETE`).
pub fn is_complete(info: &[Info]) -> bool {
    flag(info, sys::attrs::keys::PMIX_IOF_COMPLETE).unwrap_or(false)
}

/// The server's own copy of delivered output (OpenPMIx writes what a host delivers to
/// the server process's stdout/stderr unless `PMIX_IOF_LOCAL_OUTPUT` is false).
///
/// Output is written a whole line at a time, so lines of different sources never mix;
/// the unterminated end of a chunk waits for the rest of its line, or for the source's
/// end of stream (a zero-byte chunk), or for [`LocalOutput::flush`].
#[derive(Debug, Default)]
pub struct LocalOutput {
    /// Partial lines per (source, channel).
    partial: HashMap<(ProcId, Channels), Vec<u8>>,
}

/// A partial line longer than this is written anyway (a source that never writes a
/// newline must not make the server grow without bound).
const MAX_PARTIAL: usize = 64 * 1024;

impl LocalOutput {
    /// Write what is complete of `data` from `source` on `channel` (stdout for the stdout
    /// channel, stderr otherwise). A zero-byte chunk writes what was held back.
    pub fn write(&mut self, source: &ProcId, channel: Channels, data: &[u8]) {
        let out = self.ready(source, channel, data);
        Self::emit(channel, &out);
    }

    /// What to write now of `data` (whole lines; everything held at end of stream).
    fn ready(&mut self, source: &ProcId, channel: Channels, data: &[u8]) -> Vec<u8> {
        let key = (source.clone(), channel);
        let mut out = Vec::new();
        if data.is_empty() {
            if let Some(p) = self.partial.remove(&key) {
                out = p;
            }
        } else {
            let held = self.partial.entry(key.clone()).or_default();
            match data.iter().rposition(|&b| b == b'\n') {
                Some(nl) => {
                    let (lines, tail) = data.split_at(nl + 1);
                    out = std::mem::take(held);
                    out.extend_from_slice(lines);
                    held.extend_from_slice(tail);
                }
                None => held.extend_from_slice(data),
            }
            if held.len() >= MAX_PARTIAL {
                out.append(held);
            }
            if held.is_empty() {
                self.partial.remove(&key);
            }
        }
        out
    }

    /// Write every partial line still held (at finalize).
    pub fn flush(&mut self) {
        for ((_, ch), p) in self.partial.drain() {
            Self::emit(ch, &p);
        }
    }

    fn emit(channel: Channels, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        // A reader that went away must not stop the server.
        if channel & sys::PMIX_FWD_STDOUT_CHANNEL != 0 {
            let mut o = std::io::stdout().lock();
            let _ = o.write_all(bytes);
            let _ = o.flush();
        } else {
            let mut e = std::io::stderr().lock();
            let _ = e.write_all(bytes);
            let _ = e.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Nspace;

    fn p(ns: &str, r: u32) -> ProcId {
        ProcId::new(Nspace::new(ns).unwrap(), r)
    }

    #[test]
    fn matching_follows_wildcards_both_ways() {
        let w = sys::PMIX_RANK_WILDCARD;
        assert!(source_matches(&[p("a", w)], &p("a", 3)));
        assert!(source_matches(&[p("a", 3)], &p("a", w)));
        assert!(source_matches(&[p("", 3)], &p("a", 3)));
        assert!(!source_matches(&[p("a", 2)], &p("a", 3)));
        assert!(!source_matches(&[p("b", w)], &p("a", 3)));
        assert!(!source_matches(&[], &p("a", 3)));
        let c = IofChunk {
            source: p("a", 1),
            channel: sys::PMIX_FWD_STDERR_CHANNEL,
            info: Vec::new(),
            data: b"x".to_vec(),
        };
        assert!(wants(&[p("a", w)], OUTPUT_CHANNELS, &c));
        assert!(!wants(&[p("a", w)], sys::PMIX_FWD_STDOUT_CHANNEL, &c));
    }

    #[test]
    fn local_output_holds_partial_lines_per_source() {
        let mut lo = LocalOutput::default();
        let ch = sys::PMIX_FWD_STDERR_CHANNEL;
        assert_eq!(lo.ready(&p("a", 1), ch, b"abc"), b"");
        assert_eq!(lo.ready(&p("a", 2), ch, b"x\ny"), b"x\n");
        assert_eq!(lo.ready(&p("a", 1), ch, b"d\ne\n"), b"abcd\ne\n");
        assert_eq!(lo.ready(&p("a", 2), ch, b""), b"y");
        assert!(lo.partial.is_empty());
        assert_eq!(
            lo.ready(&p("a", 3), ch, &[b'z'; MAX_PARTIAL]).len(),
            MAX_PARTIAL
        );
        assert!(lo.partial.is_empty());
    }
}
