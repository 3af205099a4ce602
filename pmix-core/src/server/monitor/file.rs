//! File watches (`PMIX_MONITOR_FILE`), served by the server library as OpenPMIx's
//! `psensor/file` serves them: the file named by the monitor's value is looked at
//! (`stat`) every `PMIX_MONITOR_FILE_CHECK_TIME` seconds on the server's progress
//! thread (a timer, [`super::super::TimerEv::Monitor`]); the first look only records
//! the file's size, access and modification times; each later look at which none of
//! those the request watches (`PMIX_MONITOR_FILE_SIZE`, `_ACCESS`, `_MODIFY`) changed
//! is a miss, any change clears the misses; once there are misses and at least
//! `PMIX_MONITOR_FILE_DROPS` of them in a row, the requester's alert is raised (the
//! requested status, else `PMIX_MONITOR_FILE_ALERT`) and the watch ends. A file that
//! cannot be looked at (not there yet, no permission) is looked at again next time.
//! The file is on the node of the requester's server: the requester names it.

use crate::error::{Error, Result};
use crate::value::Info;
use pmix_sys::attrs::keys as ak;
use std::os::unix::fs::MetadataExt;

/// What one look at the file saw: size, access time, modification time.
type Seen = (u64, i64, i64);

/// One file watch.
pub(super) struct FileWatch {
    path: String,
    size: bool,
    access: bool,
    modify: bool,
    drops: u32,
    misses: u32,
    last: Option<Seen>,
    range: u8,
}

fn count(d: &Info) -> Result<u32> {
    d.value
        .as_u64()
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| Error::bad_param(format!("{} is not a count", d.key.as_str())))
}

/// A `PMIX_MONITOR_FILE` request: the watch, its `PMIX_MONITOR_ID` and check interval.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` as OpenPMIx refuses: no file name, a malformed directive, no
/// check interval, or nothing to watch.
pub(super) fn decide(
    monitor: &Info,
    directives: &[Info],
) -> Result<(FileWatch, Option<String>, u32)> {
    let path = monitor
        .value
        .as_str()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| Error::bad_param("PMIX_MONITOR_FILE needs the file's name"))?;
    let mut w = FileWatch {
        path: path.to_string(),
        size: false,
        access: false,
        modify: false,
        drops: 0,
        misses: 0,
        last: None,
        range: pmix_sys::PMIX_RANGE_NAMESPACE,
    };
    let (mut id, mut secs) = (None, 0u32);
    for d in directives {
        match d.key.as_str() {
            ak::PMIX_MONITOR_FILE_SIZE => w.size = d.value.is_true(),
            ak::PMIX_MONITOR_FILE_ACCESS => w.access = d.value.is_true(),
            ak::PMIX_MONITOR_FILE_MODIFY => w.modify = d.value.is_true(),
            ak::PMIX_MONITOR_FILE_DROPS => w.drops = count(d)?,
            ak::PMIX_MONITOR_FILE_CHECK_TIME => secs = count(d)?,
            ak::PMIX_MONITOR_ID => match d.value.as_str() {
                Some(s) => id = id.or_else(|| Some(s.to_string())),
                None => return Err(Error::bad_param("PMIX_MONITOR_ID is not a string")),
            },
            _ => {}
        }
    }
    w.range = super::range_of(directives)?;
    if secs == 0 {
        return Err(Error::bad_param("no PMIX_MONITOR_FILE_CHECK_TIME"));
    }
    if !(w.size || w.access || w.modify) {
        return Err(Error::bad_param(
            "a file monitor watches none of PMIX_MONITOR_FILE_SIZE, _ACCESS, _MODIFY",
        ));
    }
    Ok((w, id, secs))
}

impl FileWatch {
    /// The watched file's name.
    pub(super) fn path(&self) -> &str {
        &self.path
    }

    /// The range of the alert.
    pub(super) fn range(&self) -> u8 {
        self.range
    }

    /// Look at the file once: whether the watch trips now.
    pub(super) fn check(&mut self) -> bool {
        match std::fs::metadata(&self.path) {
            Ok(m) => self.saw((m.size(), m.atime(), m.mtime())),
            Err(e) => {
                log::debug!("server: file monitor cannot stat {}: {e}", self.path);
                false
            }
        }
    }

    /// One look that saw `now`: whether the watch trips.
    fn saw(&mut self, now: Seen) -> bool {
        let Some(last) = self.last.replace(now) else {
            return false;
        };
        let changed = (self.size && now.0 != last.0)
            || (self.access && now.1 != last.1)
            || (self.modify && now.2 != last.2);
        self.misses = if changed {
            0
        } else {
            self.misses.saturating_add(1)
        };
        self.misses > 0 && self.misses >= self.drops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn info(k: &str, v: Value) -> Info {
        Info::new(k, v).unwrap()
    }

    fn watch(dirs: &[Info]) -> Result<(FileWatch, Option<String>, u32)> {
        decide(
            &info(ak::PMIX_MONITOR_FILE, Value::string("/nonexistent")),
            dirs,
        )
    }

    #[test]
    fn monitor_file_requests_are_checked_as_openpmix_checks_them() {
        let t = info(ak::PMIX_MONITOR_FILE_CHECK_TIME, Value::Uint32(2));
        let m = info(ak::PMIX_MONITOR_FILE_MODIFY, Value::Bool(true));
        let id = info(ak::PMIX_MONITOR_ID, Value::string("f"));
        let (w, i, secs) = watch(&[t.clone(), m.clone(), id]).unwrap();
        assert_eq!((i.as_deref(), secs, w.drops), (Some("f"), 2, 0));
        assert_eq!(w.range, pmix_sys::PMIX_RANGE_NAMESPACE);
        let code = |r: Result<(FileWatch, Option<String>, u32)>| {
            r.err().map(|e| crate::protocol::status_of(&e))
        };
        let bad = Some(pmix_sys::PMIX_ERR_BAD_PARAM);
        assert_eq!(code(watch(std::slice::from_ref(&m))), bad, "no check time");
        assert_eq!(
            code(watch(std::slice::from_ref(&t))),
            bad,
            "nothing watched"
        );
        let words = info(ak::PMIX_MONITOR_FILE_DROPS, Value::string("two"));
        assert_eq!(code(watch(&[t.clone(), m.clone(), words])), bad);
        let no_name = info(ak::PMIX_MONITOR_FILE, Value::Bool(true));
        assert_eq!(code(decide(&no_name, &[t, m])), bad);
    }

    #[test]
    fn a_file_watch_trips_after_its_drops_and_a_change_resets_it() {
        let t = info(ak::PMIX_MONITOR_FILE_CHECK_TIME, Value::Uint32(1));
        let s = info(ak::PMIX_MONITOR_FILE_SIZE, Value::Bool(true));
        let d = info(ak::PMIX_MONITOR_FILE_DROPS, Value::Uint32(2));
        let (mut w, ..) = watch(&[t.clone(), s.clone(), d]).unwrap();
        assert!(!w.saw((10, 1, 1)), "the first look is the baseline");
        assert!(
            !w.saw((10, 2, 2)),
            "one miss of two (times are not watched)"
        );
        assert!(!w.saw((11, 2, 2)), "it grew");
        assert!(!w.saw((11, 2, 2)));
        assert!(w.saw((11, 2, 2)), "two misses in a row");
        // No PMIX_MONITOR_FILE_DROPS: the first unchanged look trips, never the baseline.
        let (mut w, ..) = watch(&[t, s]).unwrap();
        assert!(!w.saw((0, 0, 0)));
        assert!(w.saw((0, 0, 0)));
    }

    #[test]
    fn a_missing_file_is_looked_at_again() {
        let t = info(ak::PMIX_MONITOR_FILE_CHECK_TIME, Value::Uint32(1));
        let m = info(ak::PMIX_MONITOR_FILE_MODIFY, Value::Bool(true));
        let (mut w, ..) = watch(&[t, m]).unwrap();
        assert!(!w.check() && !w.check() && !w.check());
        assert!(w.last.is_none());
    }
}
