//! Qualified values (`PMIX_QUALIFIED_VALUE`): one key posted several times, each with its
//! own qualifiers, and selected by those qualifiers on Get.
//!
//! A process's qualified values all live under the one key `PMIX_QUALIFIED_VALUE`, whose
//! value is a `PMIX_DATA_ARRAY` of alternatives; each alternative is the posted
//! `PMIX_DATA_ARRAY` of infos (the primary key/value first, then its qualifiers). Keeping
//! them under an ordinary key means commits, caches, fences and direct modex carry them
//! unchanged; only Put (merge) and Get (select) look inside.

use super::info_array;
use crate::error::{Error, Result};
use crate::value::{DataArray, Info, Key, Value};
use pmix_sys as sys;

/// The key qualified values are stored under.
pub const CONTAINER: &str = sys::attrs::keys::PMIX_QUALIFIED_VALUE;

fn same_quals(a: &[Info], b: &[Info]) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|x| b.iter().any(|y| y.key == x.key && y.value == x.value))
}

/// Merge a newly posted qualified value (`posted`, the Put's value) into the existing
/// container (if any): an alternative with the same primary key and the same qualifiers
/// is replaced, others are kept.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` unless `posted` is a data array of infos with at least one entry.
pub fn merge(existing: Option<&Value>, posted: &Value) -> Result<Value> {
    let new = info_array(posted)
        .filter(|l| !l.is_empty())
        .ok_or_else(|| {
            Error::bad_param("PMIX_QUALIFIED_VALUE needs a data array of infos (value first)")
        })?;
    let (primary, quals) = new.split_at(1);
    let mut items: Vec<Value> = match existing {
        Some(Value::DataArray(da)) => da.items.clone(),
        _ => Vec::new(),
    };
    items.retain(|alt| {
        let Some(l) = info_array(alt) else {
            return false;
        };
        let (p, q) = l.split_at(1.min(l.len()));
        !(p.first().map(|i| &i.key) == primary.first().map(|i| &i.key) && same_quals(q, quals))
    });
    items.push(posted.clone());
    Ok(Value::DataArray(Box::new(DataArray {
        dtype: sys::PMIX_DATA_ARRAY,
        items,
    })))
}

/// The qualifiers of a Get: its infos flagged `PMIX_INFO_QUALIFIER`.
pub fn requested(info: &[Info]) -> Vec<Info> {
    info.iter()
        .filter(|i| i.flags & sys::PMIX_INFO_QUALIFIER != 0)
        .cloned()
        .collect()
}

/// The primary value of the alternative in `container` whose primary key is `key` and
/// whose qualifiers include every one of `quals` with an equal value.
pub fn select(container: &Value, key: &Key, quals: &[Info]) -> Option<Value> {
    let Value::DataArray(da) = container else {
        return None;
    };
    da.items.iter().find_map(|alt| {
        let l = info_array(alt)?;
        let (p, q) = l.split_first()?;
        let matches = &p.key == key
            && quals.iter().all(|want| {
                q.iter()
                    .any(|have| have.key == want.key && have.value == want.value)
            });
        matches.then(|| p.value.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posted(key: &str, v: i32, quals: &[(&str, &str)]) -> Value {
        let mut items = vec![Value::Info(Box::new(
            Info::new(key, Value::Int(v)).unwrap(),
        ))];
        for (k, q) in quals {
            let mut i = Info::new(k, Value::string(q)).unwrap();
            i.flags = sys::PMIX_INFO_QUALIFIER;
            items.push(Value::Info(Box::new(i)));
        }
        Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INFO,
            items,
        }))
    }

    fn q(k: &str, v: &str) -> Info {
        let mut i = Info::new(k, Value::string(v)).unwrap();
        i.flags = sys::PMIX_INFO_QUALIFIER;
        i
    }

    #[test]
    fn merge_replaces_same_qualifiers_and_select_matches() {
        let k = Key::new("bw").unwrap();
        let c = merge(None, &posted("bw", 1, &[("dev", "a")])).unwrap();
        let c = merge(Some(&c), &posted("bw", 2, &[("dev", "b")])).unwrap();
        let c = merge(Some(&c), &posted("bw", 3, &[("dev", "a")])).unwrap();
        assert_eq!(select(&c, &k, &[q("dev", "a")]), Some(Value::Int(3)));
        assert_eq!(select(&c, &k, &[q("dev", "b")]), Some(Value::Int(2)));
        assert_eq!(select(&c, &k, &[q("dev", "c")]), None);
        assert_eq!(
            select(&c, &Key::new("other").unwrap(), &[q("dev", "a")]),
            None
        );
        assert!(merge(None, &Value::Int(1)).is_err());
    }
}
