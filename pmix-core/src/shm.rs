//! Same-node fences in shared memory: the fence area a server makes per namespace whose
//! ranks all run on its node, handed to each client with its Welcome (see DESIGN.md,
//! "Same-node fences in shared memory").
//!
//! The area is a writable memory file of 64-bit words ([`crate::sys::SharedWords`]):
//!
//! | word | meaning |
//! |---|---|
//! | 0 | [`MAGIC`] |
//! | 1 | the number of participants `n` (the namespace's ranks) |
//! | 2 | flags: [`DISABLED`] (for good: a rank ended), [`REDIRECT`] (a socket fence over the namespace is pending) |
//! | 3 | the barrier word: generation (upper 32 bits, also the futex word), [`LOCK`] (bit 31), [`COLLECTING`] (bit 30), arrivals (bits 0–29) |
//! | 4 | `s`, the words of one data buffer (0: no data area, collecting fences take the socket path) |
//! | 5.. | [`RING`] outcome slots: slot `g % RING` = `(g << 32) \| status` of a generation that was aborted |
//! | [`WORDS`] + r | rank `r`'s arrival mark: `g + 1` once it arrived in generation `g` (read only by the server's debug dump, to name who is missing) |
//! | [`WORDS`] + n + r | the commits rank `r` sent (counted by `r` before sending each) |
//! | [`WORDS`] + 2n + r | the commits of rank `r` its server has stored (counted by the server) |
//! | `d` + (2r + b)·`s` | rank `r`'s data buffer `b`: a header word, then `s` − 1 words of data (`d`: the first multiple of 512 words after the counters) |
//!
//! A fence without data among all `n` ranks is generation `g`: each rank adds itself to
//! the arrivals with one compare-and-swap; the last one instead moves the word to
//! `(g + 1, 0)` and wakes the futex (one wakeup per waiting rank). A fence that must end
//! early (a participant's `PMIX_TIMEOUT`, the server's notice that a rank ended, a socket
//! fence over the same namespace) is *aborted*: the aborter sets [`LOCK`], writes the
//! status into the generation's ring slot, then moves the word to `(g + 1, 0)`. A waiter
//! woken by the generation change reads its own generation's slot: its status if the slot
//! names that generation, success otherwise; so a late waker never takes fence `k + 1`'s
//! outcome for its own. Arrivals that find [`LOCK`] set wait for the next generation and
//! arrive there, as a late arrival at a timed-out socket fence starts the next one.
//!
//! A collecting fence (`PMIX_COLLECT_DATA`) is a generation whose first arrival set
//! [`COLLECTING`]; an arrival of the other kind is refused (`PMIX_ERR_BAD_PARAM`, as the
//! socket path refuses a mismatched description). Before counting itself in generation
//! `g`, each rank writes what it committed into its buffer `g % 2` ([`FenceArea::arrive_collecting`]),
//! so when `g` completes every rank reads every peer's data there, in place
//! ([`FenceArea::read_data`]); nobody keeps a private copy. The buffer is written again
//! only in generation `g + 2`, which no rank enters before all have passed `g + 1`; a
//! buffer header (`(g << 32) | VALID | length`, cleared while the buffer is written)
//! read before and after the copy tells a reader whether what it copied is whole and
//! still generation `g`'s (a seqlock). The commit travels to the server as before, but
//! nobody waits for it there; a rank about to ask the server for a peer's data first
//! waits until the server has stored every commit that peer sent
//! ([`FenceArea::commits_stored`]), so it never gets a value older than what the area
//! showed.
//!
//! The processes sharing the area are one job's ranks and their server: a rank that
//! scribbles on it can make that job's fences fail or time out, nothing more (every
//! access is atomic and bounds-checked).

use crate::sys::{futex_wait, futex_wake, SharedWords};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::Ordering::SeqCst;
use std::time::{Duration, Instant};

/// Words in an area before the per-rank arrival marks.
pub const WORDS: usize = 5 + RING;
/// Outcome slots (aborted generations remembered).
pub const RING: usize = 64;
/// Word 0 of an area: "pmixfnc" and layout version 2.
pub const MAGIC: u64 = 0x706d_6978_666e_6302;
/// Flag: the area is not to be used any more (a participant ended).
pub const DISABLED: u64 = 1;
/// Flag: a fence over the namespace is pending on the socket path; new fences go there.
pub const REDIRECT: u64 = 2;
/// Barrier-word bit: a generation is being aborted.
pub const LOCK: u64 = 1 << 31;
/// Barrier-word bit: the current generation is a collecting fence.
pub const COLLECTING: u64 = 1 << 30;
const COUNT: u64 = COLLECTING - 1;
/// Buffer-header bit: the buffer holds a whole generation's data.
const VALID: u64 = 1 << 31;
/// The data area starts at a multiple of this many words (a page).
const DATA_ALIGN: usize = 512;
/// The largest area a client maps (words; 1 GiB).
const MAX_WORDS: usize = 1 << 27;
/// The status an aborted generation's waiters get when they are to retry on the socket
/// path (never returned to a caller).
pub const STATUS_SOCKET: i32 = i32::MIN + 21;

const W_MAGIC: usize = 0;
const W_N: usize = 1;
const W_FLAGS: usize = 2;
const W_BAR: usize = 3;
const W_SLOT: usize = 4;
const W_RING: usize = 5;

/// How one rank's part in a fence ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every participant arrived.
    Done,
    /// The fence failed with this status (`PMIX_ERR_TIMEOUT`, `PMIX_ERR_PROC_TERM_WO_SYNC`).
    Failed(i32),
    /// Not done here: take the socket path.
    Socket,
}

/// What arriving did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrived {
    /// We were the last in generation `g`: the fence is complete.
    Complete(u32),
    /// Counted in generation `g`; wait for it to end ([`FenceArea::wait`], [`FenceArea::poll`]).
    Waiting(u32),
    /// The area is not in use (flags set): take the socket path.
    Socket,
    /// The generation under way is a fence of the other kind (collecting or not): a
    /// mismatched description, refused as the socket path refuses it.
    Mismatch,
}

/// One namespace's fence area, mapped.
#[derive(Debug)]
pub struct FenceArea {
    words: SharedWords,
    n: u64,
    /// Words of one data buffer (0: none).
    slot: usize,
    /// Our rank (clients), whose arrival mark we write.
    rank: Option<u32>,
}

/// Where the data buffers of an area for `n` participants with buffers of `slot`
/// words start, and the area's length in words (`None` on overflow).
fn layout(n: usize, slot: usize) -> Option<(usize, usize)> {
    let marks = WORDS.checked_add(n.checked_mul(3)?)?;
    if slot == 0 {
        return Some((marks, marks));
    }
    let d = marks.div_ceil(DATA_ALIGN).checked_mul(DATA_ALIGN)?;
    let total = n.checked_mul(2)?.checked_mul(slot)?.checked_add(d)?;
    Some((d, total))
}

fn gen_of(w: u64) -> u32 {
    (w >> 32) as u32
}

fn next_gen(g: u32) -> u64 {
    (g.wrapping_add(1) as u64) << 32
}

impl FenceArea {
    /// A new area for `n` participants (server side), each with room for `data_bytes`
    /// of collected data per fence (0: collecting fences take the socket path; an area
    /// that would exceed 1 GiB gets no data buffers), and the descriptor to hand out.
    ///
    /// # Errors
    /// As [`SharedWords::create`]; `InvalidInput` for `n` of 0 or beyond the count bits.
    pub fn create(n: u32, data_bytes: usize) -> std::io::Result<(FenceArea, OwnedFd)> {
        if n == 0 || n as u64 > COUNT {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} fence participants", n),
            ));
        }
        let mut slot = match data_bytes {
            0 => 0,
            b => b.div_ceil(8).saturating_add(1),
        };
        let total = match layout(n as usize, slot) {
            Some((_, t)) if t <= MAX_WORDS => t,
            _ => {
                log::warn!(
                    "server: {} ranks of {} bytes of fence data exceed the shared area's limit; \
                     collecting fences take the socket path",
                    n,
                    data_bytes
                );
                slot = 0;
                WORDS + 3 * n as usize
            }
        };
        let (words, fd) = SharedWords::create("pmix-fence", total)?;
        words.word(W_N).store(n as u64, SeqCst);
        words.word(W_SLOT).store(slot as u64, SeqCst);
        words.word(W_MAGIC).store(MAGIC, SeqCst);
        let area = FenceArea {
            words,
            n: n as u64,
            slot,
            rank: None,
        };
        Ok((area, fd))
    }

    /// Map an area a server handed us, for `n` participants.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` for a descriptor that is not such an area (size, seals,
    /// magic, participant count, data buffer size).
    pub fn attach(fd: &impl AsFd, n: u32) -> crate::Result<FenceArea> {
        let fail = |why: String| {
            crate::Error::new(
                pmix_sys::PMIX_ERR_NOT_AVAILABLE,
                format!("fence area: {}", why),
            )
        };
        let words = SharedWords::attach_whole(fd, MAX_WORDS).map_err(|e| fail(e.to_string()))?;
        if words.len() < WORDS {
            return Err(fail(format!("{} words", words.len())));
        }
        let (magic, have, slot) = (
            words.word(W_MAGIC).load(SeqCst),
            words.word(W_N).load(SeqCst),
            words.word(W_SLOT).load(SeqCst),
        );
        let slot = usize::try_from(slot).unwrap_or(usize::MAX);
        let fits = layout(n as usize, slot).is_some_and(|(_, t)| t == words.len());
        if magic != MAGIC || have != n as u64 || n == 0 || !fits {
            return Err(fail(format!(
                "magic {:#x}, {} participants ({} expected), {} words, buffers of {} words",
                magic,
                have,
                n,
                words.len(),
                slot
            )));
        }
        Ok(FenceArea {
            words,
            n: n as u64,
            slot,
            rank: None,
        })
    }

    /// This area as rank `rank` uses it: its arrivals are marked (see the module note).
    pub fn for_rank(mut self, rank: u32) -> FenceArea {
        self.rank = (rank < self.participants()).then_some(rank);
        self
    }

    /// The current generation's arrivals, if any: its number, how many arrived and the
    /// ranks that have not (from their marks; a diagnostic, read without a lock).
    pub fn pending(&self) -> Option<(u32, u32, Vec<u32>)> {
        let w = self.bar().load(SeqCst);
        let (g, c) = (gen_of(w), (w & COUNT) as u32);
        if c == 0 || self.flags() & DISABLED != 0 {
            return None;
        }
        let mark = g as u64 + 1;
        let missing = (0..self.participants())
            .filter(|&r| self.words.word(WORDS + r as usize).load(SeqCst) != mark)
            .collect();
        Some((g, c, missing))
    }

    /// The generation under way (the next fence's, if none is).
    pub fn generation(&self) -> u32 {
        gen_of(self.bar().load(SeqCst))
    }

    /// The number of participants.
    pub fn participants(&self) -> u32 {
        self.n as u32
    }

    fn bar(&self) -> &std::sync::atomic::AtomicU64 {
        self.words.word(W_BAR)
    }

    fn flags(&self) -> u64 {
        self.words.word(W_FLAGS).load(SeqCst)
    }

    /// Count ourselves in the current generation of a fence without data (see the
    /// module note).
    pub fn arrive(&self) -> Arrived {
        self.arrive_as(None)
    }

    /// Count ourselves in the current generation of a collecting fence, having written
    /// `data` (what we committed, as [`FenceArea::read_data`] hands it to the others)
    /// into our buffer for it. [`Arrived::Socket`] when the area has no buffers, we are
    /// no rank of it, or `data` does not fit ([`FenceArea::capacity`]).
    pub fn arrive_collecting(&self, data: &[u8]) -> Arrived {
        if self.rank.is_none() || self.slot == 0 || data.len() > self.capacity() {
            return Arrived::Socket;
        }
        self.arrive_as(Some(data))
    }

    /// Bytes of data one rank can bring to a collecting fence here (0: none).
    pub fn capacity(&self) -> usize {
        self.slot.saturating_sub(1) * 8
    }

    fn arrive_as(&self, data: Option<&[u8]>) -> Arrived {
        let kind = if data.is_some() { COLLECTING } else { 0 };
        let mut written = None;
        loop {
            if self.flags() != 0 {
                return Arrived::Socket;
            }
            let w = self.bar().load(SeqCst);
            let g = gen_of(w);
            if w & LOCK != 0 {
                // Being aborted: wait for the next generation (the aborter moves it on).
                futex_wait(self.bar(), g, Some(Duration::from_millis(1)));
                continue;
            }
            let c = w & COUNT;
            if c > 0 && w & COLLECTING != kind {
                return Arrived::Mismatch;
            }
            if let (Some(d), Some(r)) = (data, self.rank) {
                if written != Some(g) {
                    self.write_data(r, g, d);
                    written = Some(g);
                }
            }
            if c + 1 >= self.n {
                if self
                    .bar()
                    .compare_exchange(w, next_gen(g), SeqCst, SeqCst)
                    .is_ok()
                {
                    futex_wake(self.bar());
                    return Arrived::Complete(g);
                }
                continue;
            }
            if let Some(r) = self.rank {
                self.words
                    .word(WORDS + r as usize)
                    .store(g as u64 + 1, SeqCst);
            }
            if self
                .bar()
                .compare_exchange(w, (w + 1) | kind, SeqCst, SeqCst)
                .is_ok()
            {
                if self.flags() != 0 {
                    // The server turned the area off while we arrived: everybody of this
                    // generation goes to the socket.
                    self.abort(g, STATUS_SOCKET);
                }
                return Arrived::Waiting(g);
            }
        }
    }

    /// Rank `r`'s count of commits sent (`stored`: its server's count of them stored).
    fn commits(&self, r: u32, stored: bool) -> Option<&std::sync::atomic::AtomicU64> {
        if r as u64 >= self.n {
            return None;
        }
        let at = WORDS + self.n as usize * if stored { 2 } else { 1 } + r as usize;
        Some(self.words.word(at))
    }

    /// Client side: we are about to send a commit to the server.
    pub fn commit_sent(&self) {
        if let Some(w) = self.rank.and_then(|r| self.commits(r, false)) {
            w.fetch_add(1, SeqCst);
        }
    }

    /// Server side: it stored a commit of rank `r`.
    pub fn commit_stored(&self, r: u32) {
        if let Some(w) = self.commits(r, true) {
            w.fetch_add(1, SeqCst);
        }
    }

    /// True once the server has stored every commit rank `r` sent (or `r` is none of
    /// the area's ranks).
    pub fn commits_stored(&self, r: u32) -> bool {
        match (self.commits(r, false), self.commits(r, true)) {
            (Some(sent), Some(stored)) => stored.load(SeqCst) >= sent.load(SeqCst),
            _ => true,
        }
    }

    /// The first word of rank `r`'s buffer for generation `g`.
    fn buffer(&self, r: u32, g: u32) -> usize {
        let (d, _) = layout(self.n as usize, self.slot).unwrap_or_default();
        d + (2 * r as usize + (g % 2) as usize) * self.slot
    }

    fn write_data(&self, r: u32, g: u32, data: &[u8]) {
        use std::sync::atomic::{fence, Ordering::Relaxed, Ordering::Release};
        let base = self.buffer(r, g);
        let hdr = self.words.word(base);
        hdr.store(0, Relaxed);
        fence(Release);
        let body = self.words.words(base + 1, data.len().div_ceil(8));
        let mut chunks = data.chunks_exact(8);
        for (w, chunk) in body.iter().zip(&mut chunks) {
            let b: [u8; 8] = chunk.try_into().unwrap_or_default();
            w.store(u64::from_le_bytes(b), Relaxed);
        }
        let tail = chunks.remainder();
        if let Some(w) = body.get(data.len() / 8).filter(|_| !tail.is_empty()) {
            let mut b = [0u8; 8];
            b[..tail.len()].copy_from_slice(tail);
            w.store(u64::from_le_bytes(b), Relaxed);
        }
        hdr.store(((g as u64) << 32) | VALID | data.len() as u64, Release);
    }

    /// What rank `r` brought to the collecting fence of generation `g` (copied out),
    /// or `None` if its buffer does not hold that generation's data, whole (never
    /// written, written again since, or being written).
    pub fn read_data(&self, r: u32, g: u32) -> Option<Vec<u8>> {
        use std::sync::atomic::{fence, Ordering::Acquire, Ordering::Relaxed};
        if r as u64 >= self.n || self.slot == 0 {
            return None;
        }
        let base = self.buffer(r, g);
        let hdr = self.words.word(base);
        let h = hdr.load(Acquire);
        let len = (h & (VALID - 1)) as usize;
        if gen_of(h) != g || h & VALID == 0 || len > self.capacity() {
            return None;
        }
        let mut out = Vec::with_capacity(len.div_ceil(8) * 8);
        for w in self.words.words(base + 1, len.div_ceil(8)) {
            out.extend_from_slice(&w.load(Relaxed).to_le_bytes());
        }
        fence(Acquire);
        if hdr.load(Relaxed) != h {
            return None;
        }
        out.truncate(len);
        Some(out)
    }

    /// End generation `g` early with `status` for all who arrived in it. False if it had
    /// ended already (completed or aborted by someone else first).
    pub fn abort(&self, g: u32, status: i32) -> bool {
        loop {
            let w = self.bar().load(SeqCst);
            if gen_of(w) != g {
                return false;
            }
            if w & LOCK == 0
                && self
                    .bar()
                    .compare_exchange(w, w | LOCK, SeqCst, SeqCst)
                    .is_err()
            {
                continue;
            }
            // We hold the lock, or help whoever does (it may have died holding it).
            self.slot(g)
                .store(((g as u64) << 32) | status as u32 as u64, SeqCst);
            loop {
                let w = self.bar().load(SeqCst);
                if gen_of(w) != g
                    || self
                        .bar()
                        .compare_exchange(w, next_gen(g), SeqCst, SeqCst)
                        .is_ok()
                {
                    break;
                }
            }
            futex_wake(self.bar());
            return true;
        }
    }

    fn slot(&self, g: u32) -> &std::sync::atomic::AtomicU64 {
        self.words.word(W_RING + g as usize % RING)
    }

    /// How generation `g` ended, once it has; `None` while it is current.
    pub fn poll(&self, g: u32) -> Option<Outcome> {
        if gen_of(self.bar().load(SeqCst)) == g {
            return None;
        }
        let s = self.slot(g).load(SeqCst);
        Some(if gen_of(s) != g {
            Outcome::Done
        } else {
            match s as u32 as i32 {
                pmix_sys::PMIX_SUCCESS => Outcome::Done,
                STATUS_SOCKET => Outcome::Socket,
                st => Outcome::Failed(st),
            }
        })
    }

    /// Sleep until generation `g` ends; at `deadline` abort it with `PMIX_ERR_TIMEOUT`
    /// (for every participant, as the socket path's timer does). Before the first sleep
    /// the caller yields the CPU [`wait_yields`] times (default none), looking in between.
    pub fn wait(&self, g: u32, deadline: Option<Instant>) -> Outcome {
        self.wait_yielding(g, deadline, wait_yields())
    }

    /// [`FenceArea::wait`], yielding the CPU up to `yields` times before the first sleep:
    /// a rank that arrives meanwhile (on the other core, or on this one, which the yield
    /// hands it) spares us a sleep and a wakeup.
    fn wait_yielding(&self, g: u32, deadline: Option<Instant>, mut yields: u32) -> Outcome {
        loop {
            if let Some(o) = self.poll(g) {
                return o;
            }
            if yields > 0 && deadline.is_none_or(|t| Instant::now() < t) {
                yields -= 1;
                std::thread::yield_now();
                continue;
            }
            let left = match deadline {
                Some(t) => match t.checked_duration_since(Instant::now()) {
                    Some(d) if !d.is_zero() => Some(d),
                    _ => {
                        self.abort(g, pmix_sys::PMIX_ERR_TIMEOUT);
                        continue;
                    }
                },
                None => None,
            };
            futex_wait(self.bar(), g, left);
        }
    }

    /// Server side: set or clear [`REDIRECT`]; setting it sends the current generation's
    /// waiters (if any) to the socket path.
    pub fn redirect(&self, on: bool) {
        let f = self.words.word(W_FLAGS);
        if on {
            f.fetch_or(REDIRECT, SeqCst);
            self.abort_current(STATUS_SOCKET);
        } else {
            f.fetch_and(!REDIRECT, SeqCst);
        }
    }

    /// Server side: a participant ended. The area is not used again, and whoever waits
    /// in it now gets `status`.
    pub fn disable(&self, status: i32) {
        self.words.word(W_FLAGS).fetch_or(DISABLED, SeqCst);
        self.abort_current(status);
    }

    /// True once [`FenceArea::disable`]d.
    pub fn disabled(&self) -> bool {
        self.flags() & DISABLED != 0
    }

    fn abort_current(&self, status: i32) {
        let w = self.bar().load(SeqCst);
        if w & (COUNT | LOCK) != 0 {
            self.abort(gen_of(w), status);
        }
    }
}

/// How often a waiter yields before it sleeps (`PMIX_RS_SHM_FENCE_YIELDS`, default
/// [`DEFAULT_WAIT_YIELDS`]; read once).
pub fn wait_yields() -> u32 {
    static YIELDS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *YIELDS.get_or_init(|| {
        crate::params::get(crate::params::SHM_FENCE_YIELDS)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(DEFAULT_WAIT_YIELDS)
    })
}

/// The default of [`wait_yields`]: none. Yielding pays at real-time priority (8 ranks
/// on 2 cores: 26 → 6 µs per fence without data) but costs under the normal scheduler
/// on a machine busy with other work, where a yield hands the core to that work (29 →
/// 94 µs); docs/PERF.md, "Fences and mpi_hello profiled".
pub const DEFAULT_WAIT_YIELDS: u32 = 0;

/// True unless `PMIX_RS_SHM_FENCE=0` turns same-node fences in shared memory off (read
/// by the server: without an area its clients take the socket path).
pub fn enabled() -> bool {
    crate::params::get(crate::params::SHM_FENCE).is_none_or(|v| v.trim() != "0")
}

/// Bytes of committed data each rank can bring to a collecting fence in the area
/// (`PMIX_RS_SHM_COLLECT_BYTES`; 0: collecting fences take the socket path).
pub fn collect_bytes() -> usize {
    crate::params::get(crate::params::SHM_COLLECT_BYTES)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_COLLECT_BYTES)
}

/// The default of [`collect_bytes`]: one page per buffer with its header word.
pub const DEFAULT_COLLECT_BYTES: usize = 4088;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn pair(n: u32) -> (FenceArea, FenceArea) {
        let (a, fd) = FenceArea::create(n, 256).unwrap();
        (a, FenceArea::attach(&fd, n).unwrap())
    }

    /// Four ranks pass 2000 fences in step, each waiting by sleeping at once (`yields`
    /// None) or after yielding that many times; the area they met in.
    fn four_ranks_pass_2000_fences(yields: Option<u32>) -> Arc<FenceArea> {
        let (area, _) = pair(4);
        let area = Arc::new(area);
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let a = area.clone();
                std::thread::spawn(move || {
                    for _ in 0..2000 {
                        let o = match a.arrive() {
                            Arrived::Complete(_) => Outcome::Done,
                            Arrived::Waiting(g) => match yields {
                                None => a.wait(g, None),
                                Some(n) => a.wait_yielding(g, None, n),
                            },
                            Arrived::Socket | Arrived::Mismatch => Outcome::Socket,
                        };
                        assert_eq!(o, Outcome::Done);
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(gen_of(area.bar().load(SeqCst)), 2000);
        area
    }

    #[test]
    fn ranks_pass_many_fences_in_step() {
        four_ranks_pass_2000_fences(None);
    }

    #[test]
    fn ranks_that_yield_before_sleeping_pass_many_fences_in_step() {
        let area = four_ranks_pass_2000_fences(Some(4));
        // A deadline still ends a fence nobody else comes to, yields or not.
        let Arrived::Waiting(g) = area.arrive() else {
            panic!("first of four completed")
        };
        let t0 = Instant::now();
        let o = area.wait_yielding(g, Some(t0 + Duration::from_millis(20)), 4);
        assert_eq!(o, Outcome::Failed(pmix_sys::PMIX_ERR_TIMEOUT));
    }

    #[test]
    fn a_timeout_fails_the_generation_and_the_next_fence_still_works() {
        let (a, b) = pair(2);
        let Arrived::Waiting(g) = a.arrive() else {
            panic!("first of two completed")
        };
        let t0 = Instant::now();
        let o = a.wait(g, Some(t0 + Duration::from_millis(50)));
        assert_eq!(o, Outcome::Failed(pmix_sys::PMIX_ERR_TIMEOUT));
        assert!(t0.elapsed() < Duration::from_secs(2));
        // The late rank arrives in the next generation, not the failed one.
        let Arrived::Waiting(g2) = b.arrive() else {
            panic!("a late arrival completed a fence alone")
        };
        assert_eq!(g2, g + 1);
        assert_eq!(a.arrive(), Arrived::Complete(g2));
        assert_eq!(b.wait(g2, None), Outcome::Done);
        // A waker far behind still reads its own generation's outcome.
        assert_eq!(a.poll(g), Some(Outcome::Failed(pmix_sys::PMIX_ERR_TIMEOUT)));
    }

    #[test]
    fn server_notices_wake_waiters_and_turn_the_area_off() {
        let (srv, a) = pair(3);
        let Arrived::Waiting(g) = a.arrive() else {
            panic!()
        };
        srv.redirect(true);
        assert_eq!(a.wait(g, None), Outcome::Socket);
        assert_eq!(a.arrive(), Arrived::Socket);
        srv.redirect(false);
        let Arrived::Waiting(g) = a.arrive() else {
            panic!()
        };
        let a = Arc::new(a);
        let a2 = a.clone();
        let h = std::thread::spawn(move || a2.wait(g, None));
        std::thread::sleep(Duration::from_millis(20));
        srv.disable(pmix_sys::PMIX_ERR_PROC_TERM_WO_SYNC);
        assert_eq!(
            h.join().unwrap(),
            Outcome::Failed(pmix_sys::PMIX_ERR_PROC_TERM_WO_SYNC)
        );
        assert!(a.disabled());
        assert_eq!(a.arrive(), Arrived::Socket);
    }

    #[test]
    fn the_ranks_not_yet_arrived_are_named() {
        let (server, fd) = FenceArea::create(3, 0).unwrap();
        let r1 = FenceArea::attach(&fd, 3).unwrap().for_rank(1);
        assert_eq!(server.pending(), None);
        let Arrived::Waiting(g) = r1.arrive() else {
            panic!("rank 1 alone completed a fence of 3")
        };
        assert_eq!(server.pending(), Some((g, 1, vec![0, 2])));
    }

    #[test]
    fn collecting_fences_leave_every_ranks_data_readable_in_place() {
        let (server, fd) = FenceArea::create(3, 100).unwrap();
        let ranks: Vec<_> = (0..3)
            .map(|r| FenceArea::attach(&fd, 3).unwrap().for_rank(r))
            .collect();
        assert_eq!(ranks[0].capacity(), 104);
        let data = |r: u32, round: u32| format!("rank {} round {}", r, round).into_bytes();
        let mut gens = Vec::new();
        for round in 0..3 {
            let Arrived::Waiting(g) = ranks[0].arrive_collecting(&data(0, round)) else {
                panic!("first of three completed")
            };
            // A fence without data cannot join a collecting one (nor the reverse).
            assert_eq!(ranks[2].arrive(), Arrived::Mismatch);
            assert!(
                matches!(ranks[1].arrive_collecting(&data(1, round)), Arrived::Waiting(h) if h == g)
            );
            assert_eq!(
                ranks[2].arrive_collecting(&data(2, round)),
                Arrived::Complete(g)
            );
            assert_eq!(ranks[0].wait(g, None), Outcome::Done);
            for r in 0..3 {
                assert_eq!(server.read_data(r, g), Some(data(r, round)));
            }
            gens.push(g);
        }
        // Two buffers per rank: round 0's data was overwritten by round 2's.
        assert_eq!(ranks[1].read_data(1, gens[0]), None);
        assert_eq!(ranks[1].read_data(1, gens[1]), Some(data(1, 1)));
        // A generation without data after it leaves the collected data readable.
        assert!(matches!(ranks[0].arrive(), Arrived::Waiting(_)));
        assert!(matches!(ranks[1].arrive(), Arrived::Waiting(_)));
        assert!(matches!(ranks[2].arrive(), Arrived::Complete(_)));
        assert_eq!(ranks[0].read_data(2, gens[2]), Some(data(2, 2)));
        // Too much data, no rank of ours, beyond the ranks: the socket path / nothing.
        assert_eq!(ranks[0].arrive_collecting(&[0u8; 105]), Arrived::Socket);
        assert_eq!(server.arrive_collecting(b"x"), Arrived::Socket);
        assert_eq!(server.read_data(3, gens[2]), None);
    }

    #[test]
    fn a_buffer_being_written_or_scribbled_on_reads_as_nothing() {
        let (server, fd) = FenceArea::create(2, 64).unwrap();
        let a = FenceArea::attach(&fd, 2).unwrap().for_rank(0);
        let Arrived::Waiting(g) = a.arrive_collecting(b"hello") else {
            panic!()
        };
        let hdr = server.buffer(0, g);
        let h = server.words.word(hdr).load(SeqCst);
        server.words.word(hdr).store(0, SeqCst); // a writer at work
        assert_eq!(server.read_data(0, g), None);
        server.words.word(hdr).store(h | 0xffff, SeqCst); // a length beyond the buffer
        assert_eq!(server.read_data(0, g), None);
        server.words.word(hdr).store(h, SeqCst);
        assert_eq!(server.read_data(0, g), Some(b"hello".to_vec()));
        assert_eq!(server.read_data(0, g + 1), None, "another generation's");
    }

    #[test]
    fn the_data_area_starts_on_a_page_and_is_sized_by_the_ranks() {
        assert_eq!(layout(3, 0), Some((WORDS + 9, WORDS + 9)));
        assert_eq!(layout(3, 512), Some((512, 512 + 6 * 512)));
        assert_eq!(layout(1000, 512), Some((3072, 3072 + 2000 * 512)));
        assert_eq!(layout(usize::MAX, 1), None);
        // An area too big for the limit gets no buffers; its fences without data work.
        let (a, fd) = FenceArea::create(4096, 1 << 20).unwrap();
        assert_eq!(a.capacity(), 0);
        assert_eq!(FenceArea::attach(&fd, 4096).unwrap().capacity(), 0);
        // A client expecting another size of buffers is refused.
        let (_, fd) = FenceArea::create(2, 64).unwrap();
        let words = SharedWords::attach_whole(&fd, MAX_WORDS).unwrap();
        words.word(W_SLOT).store(7, SeqCst);
        assert!(FenceArea::attach(&fd, 2).is_err());
    }

    #[test]
    fn a_reader_sees_when_the_server_has_stored_a_ranks_commits() {
        let (server, fd) = FenceArea::create(2, 64).unwrap();
        let r1 = FenceArea::attach(&fd, 2).unwrap().for_rank(1);
        let r0 = FenceArea::attach(&fd, 2).unwrap().for_rank(0);
        assert!(r0.commits_stored(1));
        r1.commit_sent();
        r1.commit_sent();
        assert!(!r0.commits_stored(1));
        server.commit_stored(1);
        assert!(!r0.commits_stored(1));
        server.commit_stored(1);
        assert!(r0.commits_stored(1));
        assert!(r0.commits_stored(0) && r0.commits_stored(7));
    }

    #[test]
    fn foreign_descriptors_are_refused() {
        let (_, fd) = FenceArea::create(2, 64).unwrap();
        assert!(FenceArea::attach(&fd, 3).is_err());
        let sealed = crate::sys::sealed_memfd("x", &[0u8; WORDS * 8]).unwrap();
        assert!(FenceArea::attach(&sealed, 2).is_err());
    }
}
