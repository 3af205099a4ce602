//! Same-node fences in shared memory: the fence area a server makes per namespace whose
//! ranks all run on its node, handed to each client with its Welcome (see DESIGN.md,
//! "Same-node fences in shared memory").
//!
//! The area is a writable memory file of [`WORDS`] + `n` 64-bit words
//! ([`crate::sys::SharedWords`]):
//!
//! | word | meaning |
//! |---|---|
//! | 0 | [`MAGIC`] |
//! | 1 | the number of participants `n` (the namespace's ranks) |
//! | 2 | flags: [`DISABLED`] (for good: a rank ended), [`REDIRECT`] (a socket fence over the namespace is pending) |
//! | 3 | the barrier word: generation (upper 32 bits, also the futex word), [`LOCK`] (bit 31), arrivals (bits 0–30) |
//! | 4.. | [`RING`] outcome slots: slot `g % RING` = `(g << 32) \| status` of a generation that was aborted |
//! | 4 + [`RING`] + r | rank `r`'s arrival mark: `g + 1` once it arrived in generation `g` (read only by the server's debug dump, to name who is missing) |
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
//! The processes sharing the area are one job's ranks and their server: a rank that
//! scribbles on it can make that job's fences fail or time out, nothing more (every
//! access is atomic and bounds-checked).

use crate::sys::{futex_wait, futex_wake, SharedWords};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::Ordering::SeqCst;
use std::time::{Duration, Instant};

/// Words in an area before the per-rank arrival marks.
pub const WORDS: usize = 4 + RING;
/// Outcome slots (aborted generations remembered).
pub const RING: usize = 64;
/// Word 0 of an area: "pmixfnc" and layout version 1.
pub const MAGIC: u64 = 0x706d_6978_666e_6301;
/// Flag: the area is not to be used any more (a participant ended).
pub const DISABLED: u64 = 1;
/// Flag: a fence over the namespace is pending on the socket path; new fences go there.
pub const REDIRECT: u64 = 2;
/// Barrier-word bit: a generation is being aborted.
pub const LOCK: u64 = 1 << 31;
const COUNT: u64 = LOCK - 1;
/// The status an aborted generation's waiters get when they are to retry on the socket
/// path (never returned to a caller).
pub const STATUS_SOCKET: i32 = i32::MIN + 21;

const W_MAGIC: usize = 0;
const W_N: usize = 1;
const W_FLAGS: usize = 2;
const W_BAR: usize = 3;
const W_RING: usize = 4;

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
    /// We were the last: the fence is complete.
    Complete,
    /// Counted in generation `g`; wait for it to end ([`FenceArea::wait`], [`FenceArea::poll`]).
    Waiting(u32),
    /// The area is not in use (flags set): take the socket path.
    Socket,
}

/// One namespace's fence area, mapped.
#[derive(Debug)]
pub struct FenceArea {
    words: SharedWords,
    n: u64,
    /// Our rank (clients), whose arrival mark we write.
    rank: Option<u32>,
}

fn gen_of(w: u64) -> u32 {
    (w >> 32) as u32
}

fn next_gen(g: u32) -> u64 {
    (g.wrapping_add(1) as u64) << 32
}

impl FenceArea {
    /// A new area for `n` participants (server side) and the descriptor to hand out.
    ///
    /// # Errors
    /// As [`SharedWords::create`]; `InvalidInput` for `n` of 0 or beyond the count bits.
    pub fn create(n: u32) -> std::io::Result<(FenceArea, OwnedFd)> {
        if n == 0 || n as u64 > COUNT {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} fence participants", n),
            ));
        }
        let (words, fd) = SharedWords::create("pmix-fence", WORDS + n as usize)?;
        words.word(W_N).store(n as u64, SeqCst);
        words.word(W_MAGIC).store(MAGIC, SeqCst);
        let area = FenceArea {
            words,
            n: n as u64,
            rank: None,
        };
        Ok((area, fd))
    }

    /// Map an area a server handed us, for `n` participants.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_AVAILABLE` for a descriptor that is not such an area (size, seals,
    /// magic, participant count).
    pub fn attach(fd: &impl AsFd, n: u32) -> crate::Result<FenceArea> {
        let fail = |why: String| {
            crate::Error::new(
                pmix_sys::PMIX_ERR_NOT_AVAILABLE,
                format!("fence area: {}", why),
            )
        };
        let words = SharedWords::attach(fd, WORDS + n as usize).map_err(|e| fail(e.to_string()))?;
        let (magic, have) = (
            words.word(W_MAGIC).load(SeqCst),
            words.word(W_N).load(SeqCst),
        );
        if magic != MAGIC || have != n as u64 || n == 0 {
            return Err(fail(format!(
                "magic {:#x}, {} participants ({} expected)",
                magic, have, n
            )));
        }
        Ok(FenceArea {
            words,
            n: n as u64,
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

    /// Count ourselves in the current generation (see the module note).
    pub fn arrive(&self) -> Arrived {
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
            if c + 1 >= self.n {
                if self
                    .bar()
                    .compare_exchange(w, next_gen(g), SeqCst, SeqCst)
                    .is_ok()
                {
                    futex_wake(self.bar());
                    return Arrived::Complete;
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
                .compare_exchange(w, w + 1, SeqCst, SeqCst)
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
    /// (for every participant, as the socket path's timer does).
    pub fn wait(&self, g: u32, deadline: Option<Instant>) -> Outcome {
        loop {
            if let Some(o) = self.poll(g) {
                return o;
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

/// True unless `PMIX_RS_SHM_FENCE=0` turns same-node fences in shared memory off (read
/// by the server: without an area its clients take the socket path).
pub fn enabled() -> bool {
    crate::params::get(crate::params::SHM_FENCE).is_none_or(|v| v.trim() != "0")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn pair(n: u32) -> (FenceArea, FenceArea) {
        let (a, fd) = FenceArea::create(n).unwrap();
        (a, FenceArea::attach(&fd, n).unwrap())
    }

    #[test]
    fn ranks_pass_many_fences_in_step() {
        let (area, _) = pair(4);
        let area = Arc::new(area);
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let a = area.clone();
                std::thread::spawn(move || {
                    for _ in 0..2000 {
                        let o = match a.arrive() {
                            Arrived::Complete => Outcome::Done,
                            Arrived::Waiting(g) => a.wait(g, None),
                            Arrived::Socket => Outcome::Socket,
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
        assert_eq!(a.arrive(), Arrived::Complete);
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
        let (server, fd) = FenceArea::create(3).unwrap();
        let r1 = FenceArea::attach(&fd, 3).unwrap().for_rank(1);
        assert_eq!(server.pending(), None);
        let Arrived::Waiting(g) = r1.arrive() else {
            panic!("rank 1 alone completed a fence of 3")
        };
        assert_eq!(server.pending(), Some((g, 1, vec![0, 2])));
    }

    #[test]
    fn foreign_descriptors_are_refused() {
        let (_, fd) = FenceArea::create(2).unwrap();
        assert!(FenceArea::attach(&fd, 3).is_err());
        let sealed = crate::sys::sealed_memfd("x", &[0u8; WORDS * 8]).unwrap();
        assert!(FenceArea::attach(&sealed, 2).is_err());
    }
}
