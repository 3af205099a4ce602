//! Event handlers: the registry of one process (client or server) and the chain an
//! event runs through.
//!
//! # Order
//! A matching event visits, in this order: the handler registered with
//! `PMIX_EVENT_HDLR_FIRST`; the single-code handlers; the multi-code handlers; the default
//! handlers (no codes; skipped when the event carries `PMIX_EVENT_NON_DEFAULT`); the
//! handler registered with `PMIX_EVENT_HDLR_LAST`. Within a category a handler goes at
//! the end (`PMIX_EVENT_HDLR_APPEND`, the default), at the start (`..._PREPEND`), first or
//! last for good (`..._FIRST_IN_CATEGORY`, `..._LAST_IN_CATEGORY`), or next to a named
//! one (`PMIX_EVENT_HDLR_BEFORE`/`_AFTER` with `PMIX_EVENT_HDLR_NAME`). Only one handler
//! may hold each of the first and last positions (`PMIX_ERR_EVENT_REGISTRATION`).
//!
//! # Chain
//! Each handler gets the event and the results of the handlers before it, and must call
//! its [`Done`] with a status and its own results; the next handler then runs (on the
//! progress thread). `PMIX_EVENT_ACTION_COMPLETE` ends the chain.
//!
//! # Filters
//! A handler registered with `PMIX_EVENT_AFFECTED_PROC(S)` runs only for events whose
//! affected processes (the same attributes in the event) include one of those (a
//! wildcard rank stands for the whole namespace). `PMIX_EVENT_ONESHOT` removes a handler
//! once it has been called. `PMIX_EVENT_RETURN_OBJECT` is handed back to the handler as
//! an info of that key.
//!
//! # Events no handler of their code saw yet
//! An event that reached no handler registered for its code (none at all, or only
//! default handlers) is kept (the last [`KEPT_MAX`], for [`KEPT_FOR`]); a handler
//! registered later for that code gets it then, once, after its registration callback
//! ([`Handlers::replay_kept`]), as OpenPMIx's server replays its cached events to a new
//! registration (its notification cache: 512 events, 120 s). So a rank that registers
//! for `PMIX_NOTIFY_ALLOC_COMPLETE` a moment after a peer raised it still hears of it.
//! Process-set definitions and deletions ([`KEPT_CODES`]) describe lasting state and do
//! not age: a program that waits for the sets its launcher defined at start-up hears
//! of them however late it registers.

use crate::error::{Error, Result};
use crate::value::{Info, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Event codes kept for later handlers however old they are (see the module notes).
pub const KEPT_CODES: [i32; 2] = [sys::PMIX_PROCESS_SET_DEFINE, sys::PMIX_PROCESS_SET_DELETE];

/// How many events are kept for later handlers (the oldest goes first; OpenPMIx's
/// `pmix_max_events`).
pub const KEPT_MAX: usize = 512;

/// How long an event is kept for later handlers, but those of [`KEPT_CODES`]
/// (OpenPMIx's `pmix_event_eviction_time`).
pub const KEPT_FOR: Duration = Duration::from_secs(120);

/// An event delivered to handlers.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Event code.
    pub status: i32,
    /// Process the event is about or comes from.
    pub source: ProcId,
    /// Event infos.
    pub info: Vec<Info>,
}

/// How a handler reports that it is finished: a status
/// (`PMIX_EVENT_ACTION_COMPLETE` stops the chain) and results for later handlers.
pub type Done = Box<dyn FnOnce(i32, Vec<Info>) + Send + 'static>;

/// A handler of the chain: its registration id, the event, the results so far, and the
/// completion it must call.
pub type ChainHandler = Arc<dyn Fn(usize, &Event, Vec<Info>, Done) + Send + Sync + 'static>;

/// Runs a closure on the progress thread (the chain's next step).
pub type Poster = Arc<dyn Fn(Box<dyn FnOnce() + Send>) + Send + Sync + 'static>;

/// Where a handler goes (the registration directives).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HandlerOpts {
    /// `PMIX_EVENT_HDLR_NAME`.
    pub name: Option<String>,
    /// `PMIX_EVENT_HDLR_FIRST`.
    pub first: bool,
    /// `PMIX_EVENT_HDLR_LAST`.
    pub last: bool,
    /// `PMIX_EVENT_HDLR_FIRST_IN_CATEGORY`.
    pub first_in_category: bool,
    /// `PMIX_EVENT_HDLR_LAST_IN_CATEGORY`.
    pub last_in_category: bool,
    /// `PMIX_EVENT_HDLR_PREPEND`.
    pub prepend: bool,
    /// `PMIX_EVENT_HDLR_BEFORE`.
    pub before: Option<String>,
    /// `PMIX_EVENT_HDLR_AFTER`.
    pub after: Option<String>,
    /// `PMIX_EVENT_AFFECTED_PROC(S)`.
    pub affected: Vec<ProcId>,
    /// `PMIX_EVENT_ONESHOT`.
    pub oneshot: bool,
    /// `PMIX_EVENT_RETURN_OBJECT` (an address, handed back as is).
    pub return_object: Option<usize>,
}

/// The processes an info list names under `PMIX_EVENT_AFFECTED_PROC` and `..._PROCS`.
pub fn affected_procs(info: &[Info]) -> Vec<ProcId> {
    info.iter()
        .filter(|i| {
            matches!(
                i.key.as_str(),
                ak::PMIX_EVENT_AFFECTED_PROC | ak::PMIX_EVENT_AFFECTED_PROCS
            )
        })
        .flat_map(|i| i.value.procs())
        .collect()
}

/// The processes of `PMIX_EVENT_CUSTOM_RANGE` (a proc or an array of procs).
pub fn custom_range(info: &[Info]) -> Vec<ProcId> {
    info.iter()
        .filter(|i| i.key.as_str() == ak::PMIX_EVENT_CUSTOM_RANGE)
        .flat_map(|i| i.value.procs())
        .collect()
}

/// True if `want` names `p` (itself, or its namespace's wildcard, or `p` is a wildcard
/// of `want`'s namespace).
pub fn proc_matches(want: &ProcId, p: &ProcId) -> bool {
    want.nspace == p.nspace
        && (want.rank == p.rank
            || want.rank == sys::PMIX_RANK_WILDCARD
            || p.rank == sys::PMIX_RANK_WILDCARD)
}

fn flag(info: &[Info], key: &str) -> bool {
    info.iter()
        .any(|i| i.key.as_str() == key && i.value.is_true())
}

fn text(info: &[Info], key: &str) -> Option<String> {
    info.iter()
        .find(|i| i.key.as_str() == key)
        .and_then(|i| i.value.as_str().map(str::to_string))
}

impl HandlerOpts {
    /// Read the registration directives.
    pub fn from_info(info: &[Info]) -> HandlerOpts {
        HandlerOpts {
            name: text(info, ak::PMIX_EVENT_HDLR_NAME),
            first: flag(info, ak::PMIX_EVENT_HDLR_FIRST),
            last: flag(info, ak::PMIX_EVENT_HDLR_LAST),
            first_in_category: flag(info, ak::PMIX_EVENT_HDLR_FIRST_IN_CATEGORY),
            last_in_category: flag(info, ak::PMIX_EVENT_HDLR_LAST_IN_CATEGORY),
            prepend: flag(info, ak::PMIX_EVENT_HDLR_PREPEND),
            before: text(info, ak::PMIX_EVENT_HDLR_BEFORE),
            after: text(info, ak::PMIX_EVENT_HDLR_AFTER),
            affected: affected_procs(info),
            oneshot: flag(info, ak::PMIX_EVENT_ONESHOT),
            return_object: info
                .iter()
                .find(|i| i.key.as_str() == ak::PMIX_EVENT_RETURN_OBJECT)
                .and_then(|i| match i.value {
                    Value::Pointer(p) => Some(p),
                    _ => None,
                }),
        }
    }
}

#[derive(Clone)]
struct Reg {
    id: usize,
    codes: Vec<i32>,
    opts: HandlerOpts,
    h: ChainHandler,
}

impl Reg {
    fn matches(&self, ev: &Event, affected: &[ProcId]) -> bool {
        if !self.codes.is_empty() && !self.codes.contains(&ev.status) {
            return false;
        }
        if self.opts.affected.is_empty() {
            return true;
        }
        self.opts
            .affected
            .iter()
            .any(|w| affected.iter().any(|p| proc_matches(w, p)))
    }
}

/// One category's handlers, with its pinned first and last.
#[derive(Default)]
struct Category {
    first: Option<Reg>,
    list: Vec<Reg>,
    last: Option<Reg>,
}

impl Category {
    fn all(&self) -> impl Iterator<Item = &Reg> {
        self.first
            .iter()
            .chain(self.list.iter())
            .chain(self.last.iter())
    }
    fn remove(&mut self, id: usize) -> bool {
        if self.first.as_ref().is_some_and(|r| r.id == id) {
            self.first = None;
            return true;
        }
        if self.last.as_ref().is_some_and(|r| r.id == id) {
            self.last = None;
            return true;
        }
        let n = self.list.len();
        self.list.retain(|r| r.id != id);
        self.list.len() != n
    }
}

/// The handlers of one process.
#[derive(Default)]
pub struct Registry {
    first: Option<Reg>,
    last: Option<Reg>,
    single: Category,
    multi: Category,
    default: Category,
    next: usize,
    /// Events no handler of their code has seen yet, with when they came.
    kept: VecDeque<(Instant, Event)>,
    /// How the last delivery scheduled its steps (replays use the same).
    post: Option<Poster>,
}

fn reg_error(msg: String) -> Error {
    log::warn!("event handler registration: {}", msg);
    Error::new(sys::PMIX_ERR_EVENT_REGISTRATION, msg)
}

impl Registry {
    fn all(&self) -> impl Iterator<Item = &Reg> {
        self.first
            .iter()
            .chain(self.single.all())
            .chain(self.multi.all())
            .chain(self.default.all())
            .chain(self.last.iter())
    }

    /// Add a handler for `codes` (empty: a default handler); returns its id (from 0).
    ///
    /// # Errors
    /// `PMIX_ERR_EVENT_REGISTRATION` when the first or last position is taken, or the
    /// handler named by `before`/`after` does not exist in the category.
    pub fn register(
        &mut self,
        codes: Vec<i32>,
        opts: HandlerOpts,
        h: ChainHandler,
    ) -> Result<usize> {
        let id = self.next;
        let reg = Reg { id, codes, opts, h };
        let o = reg.opts.clone();
        if o.first {
            if self.first.is_some() {
                return Err(reg_error("another handler is already first".into()));
            }
            self.first = Some(reg);
        } else if o.last {
            if self.last.is_some() {
                return Err(reg_error("another handler is already last".into()));
            }
            self.last = Some(reg);
        } else {
            let cat = match reg.codes.len() {
                0 => &mut self.default,
                1 => &mut self.single,
                _ => &mut self.multi,
            };
            if o.first_in_category {
                if cat.first.is_some() {
                    return Err(reg_error(
                        "another handler is already first in its category".into(),
                    ));
                }
                cat.first = Some(reg);
            } else if o.last_in_category {
                if cat.last.is_some() {
                    return Err(reg_error(
                        "another handler is already last in its category".into(),
                    ));
                }
                cat.last = Some(reg);
            } else if let Some(name) = o.before.as_ref().or(o.after.as_ref()) {
                let at = Self::next_to(cat, self.first.as_ref(), self.last.as_ref(), name, &o)?;
                cat.list.insert(at, reg);
            } else if o.prepend {
                cat.list.insert(0, reg);
            } else {
                cat.list.push(reg);
            }
        }
        self.next += 1;
        Ok(id)
    }

    /// Where in `cat`'s list a handler placed `PMIX_EVENT_HDLR_BEFORE`/`_AFTER` the
    /// handler `name` goes. The named handler is looked for in the category's list; one
    /// that runs before the whole list (first overall, first in the category) can be
    /// followed, and then the new handler starts the list; one that runs after it (last
    /// overall, last in the category) can be preceded, and the new handler ends the list.
    fn next_to(
        cat: &Category,
        first: Option<&Reg>,
        last: Option<&Reg>,
        name: &str,
        o: &HandlerOpts,
    ) -> Result<usize> {
        let named = |r: Option<&Reg>| r.is_some_and(|r| r.opts.name.as_deref() == Some(name));
        if let Some(pos) = cat
            .list
            .iter()
            .position(|r| r.opts.name.as_deref() == Some(name))
        {
            return Ok(if o.before.is_some() { pos } else { pos + 1 });
        }
        let ahead = named(first) || named(cat.first.as_ref());
        let behind = named(last) || named(cat.last.as_ref());
        match (o.before.is_some(), ahead, behind) {
            (false, true, _) => Ok(0),
            (true, _, true) => Ok(cat.list.len()),
            (_, true, _) | (_, _, true) => Err(reg_error(format!(
                "handler {:?} is pinned {}: nothing can go {} it",
                name,
                if ahead { "first" } else { "last" },
                if o.before.is_some() {
                    "before"
                } else {
                    "after"
                }
            ))),
            _ => Err(reg_error(format!("no handler named {:?}", name))),
        }
    }

    /// Remove handler `id`.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for an unknown id.
    pub fn deregister(&mut self, id: usize) -> Result<()> {
        if self.first.as_ref().is_some_and(|r| r.id == id) {
            self.first = None;
            return Ok(());
        }
        if self.last.as_ref().is_some_and(|r| r.id == id) {
            self.last = None;
            return Ok(());
        }
        if self.single.remove(id) || self.multi.remove(id) || self.default.remove(id) {
            return Ok(());
        }
        Err(Error::not_found(format!("no event handler {}", id)))
    }

    /// The handlers `ev` visits, in order.
    fn chain(&self, ev: &Event) -> Vec<Reg> {
        let affected = affected_procs(&ev.info);
        let non_default = flag(&ev.info, ak::PMIX_EVENT_NON_DEFAULT);
        self.all()
            .filter(|r| !(non_default && r.codes.is_empty()))
            .filter(|r| r.matches(ev, &affected))
            .cloned()
            .collect()
    }

    /// Drop the kept events older than [`KEPT_FOR`] (but those of [`KEPT_CODES`]).
    fn evict_old(&mut self, now: Instant) {
        self.kept.retain(|(at, ev)| {
            KEPT_CODES.contains(&ev.status) || now.saturating_duration_since(*at) < KEPT_FOR
        });
    }

    /// Number of registered handlers.
    pub fn len(&self) -> usize {
        self.all().count()
    }

    /// True when no handler is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A process's registry, shared with the chains it runs.
#[derive(Clone, Default)]
pub struct Handlers {
    reg: Arc<Mutex<Registry>>,
}

impl Handlers {
    fn lock(&self) -> MutexGuard<'_, Registry> {
        self.reg.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// See [`Registry::register`].
    ///
    /// # Errors
    /// As [`Registry::register`].
    pub fn register(&self, codes: Vec<i32>, opts: HandlerOpts, h: ChainHandler) -> Result<usize> {
        self.lock().register(codes, opts, h)
    }

    /// A handler that only observes (it completes at once with no action taken).
    pub fn register_simple(&self, codes: Vec<i32>, h: Arc<dyn Fn(&Event) + Send + Sync>) -> usize {
        let ch: ChainHandler = Arc::new(move |_, ev, _, done| {
            h(ev);
            done(sys::PMIX_EVENT_NO_ACTION_TAKEN, Vec::new());
        });
        // A plain append never fails.
        self.register(codes, HandlerOpts::default(), ch)
            .unwrap_or(usize::MAX)
    }

    /// See [`Registry::deregister`].
    ///
    /// # Errors
    /// As [`Registry::deregister`].
    pub fn deregister(&self, id: usize) -> Result<()> {
        self.lock().deregister(id)
    }

    /// Run the kept events (see the module notes) that handler `id` is for through it
    /// alone, each once, on the progress thread. Call after the handler's registration
    /// callback was scheduled, so that it runs first. Nothing happens for a default
    /// handler or an unknown id.
    pub fn replay_kept(&self, id: usize) {
        let mut r = self.lock();
        let Some(post) = r.post.clone() else {
            return;
        };
        let Some(reg) = r.all().find(|g| g.id == id && !g.codes.is_empty()).cloned() else {
            return;
        };
        r.evict_old(Instant::now());
        let (due, keep): (VecDeque<_>, VecDeque<_>) = std::mem::take(&mut r.kept)
            .into_iter()
            .partition(|(_, ev)| reg.matches(ev, &affected_procs(&ev.info)));
        r.kept = keep;
        drop(r);
        for (_, ev) in due {
            log::debug!(
                "event {} from {}: replayed to handler {}",
                ev.status,
                ev.source,
                id
            );
            let (hs, chain, p2) = (self.clone(), vec![reg.clone()], post.clone());
            post(Box::new(move || {
                step(hs, chain, 0, Arc::new(ev), Vec::new(), p2)
            }));
        }
    }

    /// Run `ev` through the chain. Call on the progress thread; `post` schedules each
    /// next step there.
    pub fn deliver(&self, ev: Event, post: Poster) {
        let chain = {
            let mut r = self.lock();
            r.post = Some(post.clone());
            let chain = r.chain(&ev);
            if chain.iter().all(|g| g.codes.is_empty()) {
                let now = Instant::now();
                r.evict_old(now);
                if r.kept.len() >= KEPT_MAX {
                    r.kept.pop_front();
                }
                r.kept.push_back((now, ev.clone()));
            }
            chain
        };
        if chain.is_empty() {
            log::debug!("event {} from {}: no handler", ev.status, ev.source);
            return;
        }
        step(self.clone(), chain, 0, Arc::new(ev), Vec::new(), post);
    }
}

fn step(
    hs: Handlers,
    chain: Vec<Reg>,
    idx: usize,
    ev: Arc<Event>,
    results: Vec<Info>,
    post: Poster,
) {
    let Some(r) = chain.get(idx).cloned() else {
        return;
    };
    if r.opts.oneshot {
        let _ = hs.deregister(r.id);
    }
    let mut shown = (*ev).clone();
    if let Some(obj) = r.opts.return_object {
        if let Ok(i) = Info::new(ak::PMIX_EVENT_RETURN_OBJECT, Value::Pointer(obj)) {
            shown.info.push(i);
        }
    }
    let p2 = post.clone();
    let prior = results.clone();
    let done: Done = Box::new(move |status, res| {
        if status == sys::PMIX_EVENT_ACTION_COMPLETE {
            return;
        }
        let p3 = p2.clone();
        p2(Box::new(move || {
            let mut results = results;
            results.extend(res);
            step(hs, chain, idx + 1, ev, results, p3);
        }));
    });
    (r.h)(r.id, &shown, prior, done);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Nspace;

    fn p(r: u32) -> ProcId {
        ProcId::new(Nspace::new("ns").unwrap(), r)
    }

    /// Handlers that record their name and complete with `status`.
    fn rec(log: &Arc<Mutex<Vec<String>>>, name: &str, status: i32) -> ChainHandler {
        let log = log.clone();
        let name = name.to_string();
        Arc::new(move |_, _, results, done| {
            log.lock()
                .unwrap()
                .push(format!("{}({})", name, results.len()));
            let r = Info::new("r", Value::string(&name)).into_iter().collect();
            done(status, r);
        })
    }

    fn run(hs: &Handlers, ev: Event) {
        // Synchronous poster: steps run inline.
        let post: Poster = Arc::new(|f| f());
        hs.deliver(ev, post);
    }

    fn ev(status: i32) -> Event {
        Event {
            status,
            source: p(0),
            info: vec![],
        }
    }

    fn named(name: &str) -> HandlerOpts {
        HandlerOpts {
            name: Some(name.into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_pset_definition_waits_for_a_handler_of_its_code() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let hs = Handlers::default();
        let ok = sys::PMIX_SUCCESS;
        let define = sys::PMIX_PROCESS_SET_DEFINE;
        hs.register(vec![], named("d"), rec(&log, "d", ok)).unwrap();
        run(&hs, ev(define));
        run(&hs, ev(-1)); // only a default handler saw it: kept too
        assert_eq!(*log.lock().unwrap(), ["d(0)", "d(0)"]);
        // A handler for other codes does not take the definition (the -1 event is
        // its own).
        let id = hs
            .register(vec![-1], named("x"), rec(&log, "x", ok))
            .unwrap();
        hs.replay_kept(id);
        assert_eq!(*log.lock().unwrap(), ["d(0)", "d(0)", "x(0)"]);
        // The first handler of its code gets it, alone, once.
        let id = hs
            .register(vec![define], named("s"), rec(&log, "s", ok))
            .unwrap();
        hs.replay_kept(id);
        let id = hs
            .register(vec![define], named("t"), rec(&log, "t", ok))
            .unwrap();
        hs.replay_kept(id);
        assert_eq!(*log.lock().unwrap(), ["d(0)", "d(0)", "x(0)", "s(0)"]);
        // One that a handler of its code saw is not kept.
        run(&hs, ev(define));
        let id = hs
            .register(vec![define], named("u"), rec(&log, "u", ok))
            .unwrap();
        hs.replay_kept(id);
        assert_eq!(log.lock().unwrap().len(), 7, "{:?}", log.lock().unwrap());
    }

    #[test]
    fn an_event_no_handler_of_its_code_saw_waits_for_one_a_while() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let hs = Handlers::default();
        let ok = sys::PMIX_SUCCESS;
        // Nobody is registered: -5 is kept; a handler for -5 gets it once.
        run(&hs, ev(-5));
        run(&hs, ev(-6));
        let id = hs
            .register(vec![-5], named("a"), rec(&log, "a", ok))
            .unwrap();
        hs.replay_kept(id);
        let id = hs
            .register(vec![-5], named("b"), rec(&log, "b", ok))
            .unwrap();
        hs.replay_kept(id);
        assert_eq!(*log.lock().unwrap(), ["a(0)"]);
        // An old one is gone (a process-set definition stays however old).
        {
            let mut r = hs.lock();
            let long_ago = Instant::now()
                .checked_sub(KEPT_FOR + Duration::from_secs(1))
                .expect("a clock that far back");
            for k in r.kept.iter_mut() {
                k.0 = long_ago;
            }
            r.kept
                .push_back((long_ago, ev(sys::PMIX_PROCESS_SET_DEFINE)));
        }
        let id = hs
            .register(vec![-6], named("c"), rec(&log, "c", ok))
            .unwrap();
        hs.replay_kept(id);
        let id = hs
            .register(
                vec![sys::PMIX_PROCESS_SET_DEFINE],
                named("d"),
                rec(&log, "d", ok),
            )
            .unwrap();
        hs.replay_kept(id);
        assert_eq!(*log.lock().unwrap(), ["a(0)", "d(0)"]);
    }

    #[test]
    fn order_categories_and_positions() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let hs = Handlers::default();
        let ok = sys::PMIX_SUCCESS;
        hs.register(vec![], named("d1"), rec(&log, "d1", ok))
            .unwrap();
        hs.register(vec![-1, -2], named("m1"), rec(&log, "m1", ok))
            .unwrap();
        hs.register(vec![-1], named("s1"), rec(&log, "s1", ok))
            .unwrap();
        hs.register(vec![-1], named("s2"), rec(&log, "s2", ok))
            .unwrap();
        let mut o = named("s0");
        o.prepend = true;
        hs.register(vec![-1], o, rec(&log, "s0", ok)).unwrap();
        let mut o = named("s15");
        o.before = Some("s2".into());
        hs.register(vec![-1], o, rec(&log, "s15", ok)).unwrap();
        let mut o = named("last");
        o.last = true;
        hs.register(vec![], o.clone(), rec(&log, "last", ok))
            .unwrap();
        assert_eq!(
            hs.register(vec![], o, rec(&log, "x", ok))
                .unwrap_err()
                .status,
            sys::PMIX_ERR_EVENT_REGISTRATION
        );
        let mut o = named("first");
        o.first = true;
        hs.register(vec![-7], o, rec(&log, "first", ok)).unwrap();
        let mut o = named("bad");
        o.after = Some("nobody".into());
        assert!(hs.register(vec![-1], o, rec(&log, "bad", ok)).is_err());
        run(&hs, ev(-1));
        assert_eq!(
            *log.lock().unwrap(),
            vec!["s0(0)", "s1(1)", "s15(2)", "s2(3)", "m1(4)", "d1(5)", "last(6)"]
        );
    }

    #[test]
    fn action_complete_stops_and_non_default_skips_defaults() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let hs = Handlers::default();
        hs.register(
            vec![-1],
            named("a"),
            rec(&log, "a", sys::PMIX_EVENT_ACTION_COMPLETE),
        )
        .unwrap();
        hs.register(vec![], named("d"), rec(&log, "d", sys::PMIX_SUCCESS))
            .unwrap();
        run(&hs, ev(-1));
        assert_eq!(*log.lock().unwrap(), vec!["a(0)"]);
        log.lock().unwrap().clear();
        let mut e = ev(-5);
        e.info
            .push(Info::new(ak::PMIX_EVENT_NON_DEFAULT, Value::Bool(true)).unwrap());
        run(&hs, e);
        assert!(log.lock().unwrap().is_empty());
        run(&hs, ev(-5));
        assert_eq!(*log.lock().unwrap(), vec!["d(0)"]);
    }

    #[test]
    fn affected_filter_and_oneshot() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let hs = Handlers::default();
        let mut o = named("aff");
        o.affected = vec![p(3)];
        hs.register(vec![-1], o, rec(&log, "aff", sys::PMIX_SUCCESS))
            .unwrap();
        let mut o = named("once");
        o.oneshot = true;
        let id = hs
            .register(vec![-1], o, rec(&log, "once", sys::PMIX_SUCCESS))
            .unwrap();
        run(&hs, ev(-1));
        let mut e = ev(-1);
        e.info.push(
            Info::new(
                ak::PMIX_EVENT_AFFECTED_PROC,
                Value::Proc(Some(ProcId::new(
                    Nspace::new("ns").unwrap(),
                    sys::PMIX_RANK_WILDCARD,
                ))),
            )
            .unwrap(),
        );
        run(&hs, e);
        assert_eq!(*log.lock().unwrap(), vec!["once(0)", "aff(0)"]);
        assert!(hs.deregister(id).is_err(), "the one-shot handler is gone");
    }

    #[test]
    fn before_and_after_a_pinned_handler() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let hs = Handlers::default();
        let ok = sys::PMIX_SUCCESS;
        hs.register(vec![-1], named("s1"), rec(&log, "s1", ok))
            .unwrap();
        let mut o = named("omp");
        o.first = true;
        hs.register(vec![-1], o, rec(&log, "omp", ok)).unwrap();
        let mut o = named("end");
        o.last = true;
        hs.register(vec![-1], o, rec(&log, "end", ok)).unwrap();
        // After the first-overall handler: starts its category's list.
        let mut o = named("mpi");
        o.after = Some("omp".into());
        hs.register(vec![-1], o, rec(&log, "mpi", ok)).unwrap();
        // Before the last-overall handler: ends its category's list.
        let mut o = named("tail");
        o.before = Some("end".into());
        hs.register(vec![-1], o, rec(&log, "tail", ok)).unwrap();
        // Nothing runs before the first or after the last.
        for (before, name) in [(true, "omp"), (false, "end")] {
            let mut o = named("x");
            if before {
                o.before = Some(name.into());
            } else {
                o.after = Some(name.into());
            }
            let e = hs.register(vec![-1], o, rec(&log, "x", ok)).unwrap_err();
            assert_eq!(e.status, sys::PMIX_ERR_EVENT_REGISTRATION);
        }
        run(&hs, ev(-1));
        assert_eq!(
            *log.lock().unwrap(),
            vec!["omp(0)", "mpi(1)", "s1(2)", "tail(3)", "end(4)"]
        );
    }
}
