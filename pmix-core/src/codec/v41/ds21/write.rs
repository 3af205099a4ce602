//! Later writes into a namespace's store (`docs/DS21.md` §6, stage 2), sans-I/O: what
//! bytes change where when a rank's committed key is stored or withdrawn.
//!
//! [`Chains`] remembers, from the image the job data was written with and every change
//! since, where each rank's records and closing extension slot are and how full the
//! last data segment is. [`Chains::put`] stores a value the way OpenPMIx's server does
//! (a same-size value in place; otherwise the old record is invalidated and a new one
//! appended to the rank's chain) and is only to be applied while every reader is locked
//! out; [`Chains::invalidate`] withdraws a key with changes a reader may race with
//! (one flag byte, then the rank's count), so it may be applied without the lock.

use super::{
    ext_slot, record, slot_of, Geometry, NsImage, EXT_SLOT_SIZE, INVALIDATED, META_SLOT_SIZE,
    SIZE_MASK, WORD,
};
use crate::error::{Error, Result};
use crate::value::{Rank, Value};
use std::collections::{HashMap, HashSet};

/// Which segment a [`Patch`] goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    /// Meta segment `i`.
    Meta(usize),
    /// Data segment `i`.
    Data(usize),
}

/// Bytes to write at an offset of one segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The segment.
    pub seg: Seg,
    /// Offset within it.
    pub at: usize,
    /// What to write there.
    pub bytes: Vec<u8>,
}

/// One valid record: its global data offset and size.
#[derive(Debug, Clone, Copy)]
struct Rec {
    at: u64,
    size: u64,
}

/// A rank's records as a reader walks them.
#[derive(Debug, Default)]
struct Chain {
    /// Valid records by key (the first of a key, the one a reader finds).
    recs: HashMap<Vec<u8>, Rec>,
    /// Keys of the job data written first: never replaced, only withdrawn.
    job: HashSet<Vec<u8>>,
    /// The count in the rank's meta slot.
    count: u64,
    /// Global offset of the extension slot new records are linked in at: the first
    /// of the chain (after the hot records, [`NsImage::build_split`]), then the one
    /// behind the last record stored.
    tail: u64,
    /// Where that slot leads (the rest of the chain; 0: nothing).
    next: u64,
}

/// Where every rank's records are in a namespace's store, for later writes.
#[derive(Debug)]
pub struct Chains {
    g: Geometry,
    ranks: HashMap<Rank, Chain>,
    meta_segs: usize,
    data_segs: usize,
    /// First free byte within the last data segment.
    free: usize,
}

impl Chains {
    /// The chains of a namespace whose store holds `image` (as [`NsImage::build`] made
    /// it); every record in it counts as job data.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_*` for a malformed image.
    pub fn of(image: &NsImage) -> Result<Chains> {
        let mut ranks = HashMap::new();
        let per = image.geometry.slots_per_meta();
        for (i, seg) in image.meta.iter().enumerate() {
            let slots = seg.len().saturating_sub(WORD) / META_SLOT_SIZE;
            for s in (0..slots).map(|s| i * per + s) {
                let rank = if s == 0 {
                    pmix_sys::PMIX_RANK_WILDCARD
                } else {
                    (s - 1) as Rank
                };
                if let Some(c) = walk(image, rank)? {
                    ranks.insert(rank, c);
                }
            }
        }
        Ok(Chains {
            g: image.geometry,
            ranks,
            meta_segs: image.meta.len(),
            data_segs: image.data.len(),
            free: image.data.last().map_or(WORD, Vec::len),
        })
    }

    fn global_free(&self) -> u64 {
        ((self.data_segs - 1) * self.g.data + self.free) as u64
    }

    fn data(&self, at: u64, bytes: Vec<u8>) -> Patch {
        Patch {
            seg: Seg::Data(at as usize / self.g.data),
            at: at as usize % self.g.data,
            bytes,
        }
    }

    /// The meta segment and offset of `rank`'s slot, if that segment exists.
    fn meta_at(&self, rank: Rank) -> Option<(usize, usize)> {
        let s = slot_of(rank);
        let per = self.g.slots_per_meta();
        (s / per < self.meta_segs).then(|| (s / per, WORD + (s % per) * META_SLOT_SIZE))
    }

    /// Store `key` = `v` for `rank` (not the job level): the changes to apply, in
    /// order, **with every reader locked out**. A value of the same size as the valid
    /// one replaces it in place; otherwise the old one (if any) is invalidated and the
    /// new record appended to the rank's chain.
    ///
    /// # Errors
    /// Nothing is changed, and the caller is to [`Chains::invalidate`] the key instead,
    /// when: the key is one of the rank's job-data keys, the value cannot be packed,
    /// the last data segment has no room (no further segment is opened) or the rank's
    /// slot lies in a meta segment that does not exist.
    pub fn put(&mut self, rank: Rank, key: &str, v: &Value) -> Result<Vec<Patch>> {
        let full = |what: &str| Error::bad_param(format!("ds21: {key} of rank {rank}: {what}"));
        let rec = record(key, v)?;
        let kb = key.as_bytes();
        let (mseg, mat) = self.meta_at(rank).ok_or_else(|| full("no meta segment"))?;
        let chain = self.ranks.get(&rank);
        if chain.is_some_and(|c| c.job.contains(kb)) {
            return Err(full("a job-data key"));
        }
        let old = chain.and_then(|c| c.recs.get(kb).copied());
        if let Some(o) = old.filter(|o| o.size == rec.len() as u64) {
            return Ok(vec![self.data(o.at, rec)]);
        }
        let g_free = self.global_free();
        let tail = chain.map(|c| c.tail);
        // the chain's closing slot is the last thing written: the record replaces it
        let at = match tail {
            Some(t) if t + EXT_SLOT_SIZE as u64 == g_free => t,
            _ => g_free,
        };
        let local = at as usize % self.g.data;
        if local + rec.len() + EXT_SLOT_SIZE > self.g.data {
            return Err(full("the data segment is full"));
        }
        let mut out = Vec::new();
        if let Some(o) = old {
            out.push(self.data(o.at, (o.size | INVALIDATED).to_le_bytes().to_vec()));
        }
        let size = rec.len() as u64;
        let mut bytes = rec;
        let next = chain.map_or(0, |c| c.next);
        bytes.extend_from_slice(&ext_slot(next));
        out.push(self.data(at, bytes));
        if let Some(t) = tail.filter(|&t| t != at) {
            out.push(self.data(t, ext_slot(at).to_vec()));
        }
        self.free = local + size as usize + EXT_SLOT_SIZE;
        let last = self.data_segs - 1;
        out.push(Patch {
            seg: Seg::Data(last),
            at: 0,
            bytes: (self.free as u64).to_le_bytes().to_vec(),
        });
        let c = self.ranks.entry(rank).or_default();
        let fresh = tail.is_none();
        if old.is_some() {
            c.count -= 1;
        }
        c.count += 1;
        c.tail = at + size;
        c.recs.insert(kb.to_vec(), Rec { at, size });
        let meta = if fresh {
            [rank as u64, at, c.count]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect()
        } else {
            c.count.to_le_bytes().to_vec()
        };
        let mat = if fresh { mat } else { mat + 2 * WORD };
        out.push(Patch {
            seg: Seg::Meta(mseg),
            at: mat,
            bytes: meta,
        });
        Ok(out)
    }

    /// Withdraw `rank`'s valid record of `key`, if there is one: its invalidated flag
    /// (one byte), then the rank's count. A reader racing with these finds the old
    /// value (a read that overlapped the change), skips the record, or stops early
    /// and misses (then asks the server); so they may be applied without the lock.
    pub fn invalidate(&mut self, rank: Rank, key: &[u8]) -> Vec<Patch> {
        let Some((mseg, mat)) = self.meta_at(rank) else {
            return Vec::new();
        };
        let Some(c) = self.ranks.get_mut(&rank) else {
            return Vec::new();
        };
        let Some(o) = c.recs.remove(key) else {
            return Vec::new();
        };
        c.job.remove(key);
        c.count = c.count.saturating_sub(1);
        let count = c.count;
        let flag = ((o.size | INVALIDATED) >> 56) as u8;
        vec![
            self.data(o.at + WORD as u64 - 1, vec![flag]),
            Patch {
                seg: Seg::Meta(mseg),
                at: mat + 2 * WORD,
                bytes: count.to_le_bytes().to_vec(),
            },
        ]
    }
}

/// The chain of `rank` in `image`, as a reader walks it; `None` without a slot.
fn walk(image: &NsImage, rank: Rank) -> Result<Option<Chain>> {
    let Some(slot) = image.slot(rank) else {
        return Ok(None);
    };
    let mut c = Chain {
        count: slot.count,
        ..Chain::default()
    };
    let mut off = slot.offset;
    let mut steps = image.data.iter().map(Vec::len).sum::<usize>() / (2 * WORD);
    let mut first_ext = true;
    loop {
        steps = steps
            .checked_sub(1)
            .ok_or_else(|| Error::unpack("ds21: record chain does not end"))?;
        let (sw, key, data) = image.record_at(off)?;
        let size = sw & SIZE_MASK;
        if sw & super::EXTENSION != 0 {
            let next = super::read_word(data, 0)?;
            if first_ext {
                // any slot of the chain would do; the first comes after the hot records
                (c.tail, c.next, first_ext) = (off, next, false);
            }
            match next {
                0 => return Ok(Some(c)),
                next => off = next,
            }
        } else {
            if sw & INVALIDATED == 0 && !c.recs.contains_key(key) {
                c.recs.insert(key.to_vec(), Rec { at: off, size });
                c.job.insert(key.to_vec());
            }
            off += size;
        }
    }
}

impl NsImage {
    /// Apply `patches` to the image (growing a segment's used prefix as needed), as the
    /// server applies them to the files.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a segment the image does not have.
    pub fn apply(&mut self, patches: &[Patch]) -> Result<()> {
        for p in patches {
            let seg = match p.seg {
                Seg::Meta(i) => self.meta.get_mut(i),
                Seg::Data(i) => self.data.get_mut(i),
            }
            .ok_or_else(|| Error::bad_param(format!("ds21: no segment {:?}", p.seg)))?;
            let end = p.at + p.bytes.len();
            if seg.len() < end {
                seg.resize(end, 0);
            }
            seg[p.at..end].copy_from_slice(&p.bytes);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Key;

    fn image() -> NsImage {
        let w = pmix_sys::PMIX_RANK_WILDCARD;
        let k = |s: &str| Key::new(s).unwrap();
        NsImage::build(
            Geometry::default(),
            &[
                (w, vec![(k("pmix.job.size"), Value::Uint32(3))]),
                (0, vec![(k("pmix.lrank"), Value::Uint16(0))]),
                (1, vec![(k("pmix.lrank"), Value::Uint16(1))]),
            ],
        )
        .unwrap()
    }

    fn put(img: &mut NsImage, ch: &mut Chains, rank: Rank, key: &str, v: Value) {
        let p = ch.put(rank, key, &v).unwrap();
        img.apply(&p).unwrap();
        assert_eq!(img.lookup(rank, key).unwrap(), Some(v), "{key} of {rank}");
    }

    #[test]
    fn puts_append_replace_and_chain_as_a_reader_walks_them() {
        let mut img = image();
        let mut ch = Chains::of(&img).unwrap();
        put(&mut img, &mut ch, 1, "a", Value::Uint32(7));
        // rank 1's chain was last: its closing slot was overwritten
        put(&mut img, &mut ch, 1, "b", Value::string("x"));
        // rank 0's chain is not last: its closing slot now points past rank 1's
        put(&mut img, &mut ch, 0, "a", Value::Uint32(8));
        put(&mut img, &mut ch, 1, "a", Value::Uint32(9)); // same size: in place
        put(&mut img, &mut ch, 1, "b", Value::string("longer"));
        put(&mut img, &mut ch, 3, "c", Value::Int(-1)); // a rank without job data
        let keys = |r| {
            img.records(r)
                .unwrap()
                .unwrap()
                .into_iter()
                .map(|(k, v)| (String::from_utf8(k).unwrap(), v))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            keys(1),
            vec![
                ("pmix.lrank".into(), Value::Uint16(1)),
                ("a".into(), Value::Uint32(9)),
                ("b".into(), Value::string("longer")),
            ]
        );
        assert_eq!(keys(0).len(), 2);
        assert_eq!(img.slot(1).unwrap().count, 3);
        assert_eq!(
            img.lookup(pmix_sys::PMIX_RANK_WILDCARD, "pmix.job.size")
                .unwrap(),
            Some(Value::Uint32(3))
        );
        // the rebuilt chains agree with the ones kept
        let again = Chains::of(&img).unwrap();
        assert_eq!(again.ranks[&1].count, ch.ranks[&1].count);
        assert_eq!(again.ranks[&1].recs.len(), ch.ranks[&1].recs.len());
        assert_eq!(again.free, ch.free);
    }

    #[test]
    fn stored_keys_are_linked_in_after_the_hot_records() {
        let k = |s: &str| Key::new(s).unwrap();
        let recs = vec![
            (k("hot1"), Value::Uint16(1)),
            (k("hot2"), Value::Uint16(2)),
            (k("cold"), Value::Uint16(3)),
        ];
        let two = vec![(0, recs.clone()), (1, recs)];
        let mut img = NsImage::build_split(Geometry::default(), &two, &|_, _| 2).unwrap();
        let mut ch = Chains::of(&img).unwrap();
        put(&mut img, &mut ch, 0, "a", Value::Uint32(7));
        put(&mut img, &mut ch, 1, "a", Value::Uint32(8));
        put(&mut img, &mut ch, 0, "b", Value::Uint32(9));
        put(&mut img, &mut ch, 0, "b", Value::Int64(9)); // another size: moved
        let order = |r| {
            img.records(r)
                .unwrap()
                .unwrap()
                .into_iter()
                .map(|(k, _)| String::from_utf8(k).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(order(0), ["hot1", "hot2", "a", "b", "cold"]);
        assert_eq!(order(1), ["hot1", "hot2", "a", "cold"]);
        assert_eq!(img.lookup(0, "cold").unwrap(), Some(Value::Uint16(3)));
        assert_eq!(img.lookup(0, "b").unwrap(), Some(Value::Int64(9)));
    }

    #[test]
    fn invalidated_keys_miss_and_job_keys_are_never_replaced() {
        let mut img = image();
        let mut ch = Chains::of(&img).unwrap();
        put(&mut img, &mut ch, 0, "a", Value::Uint32(7));
        put(&mut img, &mut ch, 0, "b", Value::Uint32(8));
        let p = ch.invalidate(0, b"a");
        assert_eq!(p[0].bytes, vec![0x40]);
        img.apply(&p).unwrap();
        assert_eq!(img.lookup(0, "a").unwrap(), None);
        assert_eq!(img.lookup(0, "b").unwrap(), Some(Value::Uint32(8)));
        assert!(ch.invalidate(0, b"a").is_empty());
        put(&mut img, &mut ch, 0, "a", Value::Uint32(5));
        assert!(ch.put(0, "pmix.lrank", &Value::Uint16(4)).is_err());
        img.apply(&ch.invalidate(0, b"pmix.lrank")).unwrap();
        assert_eq!(img.lookup(0, "pmix.lrank").unwrap(), None);
        assert_eq!(img.lookup(0, "a").unwrap(), Some(Value::Uint32(5)));
        assert_eq!(img.slot(0).unwrap().count, 2);
    }

    #[test]
    fn a_full_data_segment_refuses_a_put() {
        let g = Geometry {
            meta: 4096,
            data: 200,
        };
        let mut img = NsImage::build(g, &[(0, vec![])]).unwrap();
        let mut ch = Chains::of(&img).unwrap();
        put(&mut img, &mut ch, 0, "a", Value::string(&"x".repeat(100)));
        assert!(ch.put(0, "b", &Value::string(&"y".repeat(100))).is_err());
        assert!(img.lookup(0, "a").unwrap().is_some());
    }
}
