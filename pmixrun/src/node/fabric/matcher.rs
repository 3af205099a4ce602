//! Matching the nodes' fence contributions ([`FenceMatcher`]): pure bookkeeping, no
//! links, so its rules are unit-tested alone.

use pmix_core::ProcId;
use std::collections::{BTreeMap, BTreeSet};

/// A fence that completed on every node hosting a participant.
#[derive(Debug, PartialEq, Eq)]
pub struct FenceDone {
    /// The participants, as the servers sorted them.
    pub procs: Vec<ProcId>,
    /// `(node, the node's fence id)` of every contribution, in node order.
    pub parts: Vec<(usize, u64)>,
    /// Every contribution's size, in node order.
    pub sizes: Vec<(usize, usize)>,
    /// The concatenation of the contributions, in node order.
    pub data: Vec<u8>,
}

struct Round {
    procs: Vec<ProcId>,
    tag: Option<String>,
    expect: BTreeSet<usize>,
    parts: BTreeMap<usize, (u64, Vec<u8>)>,
}

/// Matches the fence contributions of the nodes: one round per participant set and fence
/// tag (`pmix_core::protocol::FENCE_TAG`, which tells apart concurrent collectives over
/// the same processes), complete when every expected node has contributed. A node that
/// contributes again to a set whose round it is already in opens the next round.
#[derive(Default)]
pub struct FenceMatcher {
    rounds: Vec<Round>,
}

impl FenceMatcher {
    /// Add `node`'s contribution (its fence `id`, its blob) to a fence over `procs`
    /// (with fence tag `tag`) whose participants live on the nodes `expect`.
    ///
    /// # Errors
    /// A message when `node` is not among `expect`.
    pub fn contribute(
        &mut self,
        procs: Vec<ProcId>,
        tag: Option<String>,
        expect: BTreeSet<usize>,
        node: usize,
        id: u64,
        data: Vec<u8>,
    ) -> std::result::Result<Option<FenceDone>, String> {
        if !expect.contains(&node) {
            return Err(format!("node {node} hosts no participant of this fence"));
        }
        let pos = self
            .rounds
            .iter()
            .position(|r| r.procs == procs && r.tag == tag && !r.parts.contains_key(&node));
        let pos = match pos {
            Some(p) => p,
            None => {
                self.rounds.push(Round {
                    procs,
                    tag,
                    expect,
                    parts: BTreeMap::new(),
                });
                self.rounds.len() - 1
            }
        };
        let Some(round) = self.rounds.get_mut(pos) else {
            return Ok(None);
        };
        round.parts.insert(node, (id, data));
        if round.parts.len() < round.expect.len() {
            return Ok(None);
        }
        let round = self.rounds.remove(pos);
        let mut done = FenceDone {
            procs: round.procs,
            parts: Vec::new(),
            sizes: Vec::new(),
            data: Vec::new(),
        };
        for (n, (id, d)) in round.parts {
            done.parts.push((n, id));
            done.sizes.push((n, d.len()));
            done.data.extend_from_slice(&d);
        }
        Ok(Some(done))
    }

    /// Remove the rounds whose participants include `p`; returns `(node, fence id)` of
    /// every contribution they had, which the caller fails.
    pub fn fail_including(&mut self, p: &ProcId) -> Vec<(usize, u64)> {
        let (gone, keep): (Vec<Round>, Vec<Round>) = std::mem::take(&mut self.rounds)
            .into_iter()
            .partition(|r| pmix_core::server::state::includes(&r.procs, p));
        self.rounds = keep;
        gone.into_iter()
            .flat_map(|r| r.parts.into_iter().map(|(n, (id, _))| (n, id)))
            .collect()
    }

    /// Rounds still waiting for contributions.
    #[cfg(test)]
    pub fn pending(&self) -> usize {
        self.rounds.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Nspace;

    fn p(r: u32) -> ProcId {
        ProcId::new(Nspace::new("job").expect("ns"), r)
    }

    fn set(v: &[usize]) -> BTreeSet<usize> {
        v.iter().copied().collect()
    }

    #[test]
    fn fence_completes_when_every_node_contributed_in_node_order() {
        let mut m = FenceMatcher::default();
        let all = vec![p(pmix_sys::PMIX_RANK_WILDCARD)];
        assert_eq!(
            m.contribute(all.clone(), None, set(&[0, 1, 2]), 2, 7, b"cc".to_vec()),
            Ok(None)
        );
        assert_eq!(
            m.contribute(all.clone(), None, set(&[0, 1, 2]), 0, 5, b"a".to_vec()),
            Ok(None)
        );
        // Another set is another fence.
        assert_eq!(
            m.contribute(vec![p(0), p(3)], None, set(&[0, 1]), 0, 6, b"x".to_vec()),
            Ok(None)
        );
        let done = m
            .contribute(all.clone(), None, set(&[0, 1, 2]), 1, 9, b"bbb".to_vec())
            .expect("ok")
            .expect("complete");
        assert_eq!(done.data, b"abbbcc");
        assert_eq!(done.parts, vec![(0, 5), (1, 9), (2, 7)]);
        assert_eq!(done.sizes, vec![(0, 1), (1, 3), (2, 2)]);
        assert_eq!(m.pending(), 1);
        assert!(m
            .contribute(vec![p(0), p(3)], None, set(&[0, 1]), 2, 1, vec![])
            .is_err());
    }

    #[test]
    fn a_node_that_fences_again_opens_the_next_round() {
        let mut m = FenceMatcher::default();
        let all = vec![p(pmix_sys::PMIX_RANK_WILDCARD)];
        assert_eq!(
            m.contribute(all.clone(), None, set(&[0, 1]), 0, 1, b"1".to_vec()),
            Ok(None)
        );
        assert_eq!(
            m.contribute(all.clone(), None, set(&[0, 1]), 0, 2, b"2".to_vec()),
            Ok(None)
        );
        let first = m
            .contribute(all.clone(), None, set(&[0, 1]), 1, 3, b"3".to_vec())
            .expect("ok")
            .expect("complete");
        assert_eq!(first.parts, vec![(0, 1), (1, 3)]);
        let second = m
            .contribute(all.clone(), None, set(&[0, 1]), 1, 4, b"4".to_vec())
            .expect("ok")
            .expect("complete");
        assert_eq!(second.data, b"24");
        // Tagged collectives over the same processes are told apart.
        let tag = |t: &str| Some(t.to_string());
        assert_eq!(
            m.contribute(all.clone(), tag("a"), set(&[0, 1]), 0, 5, b"a0".to_vec()),
            Ok(None)
        );
        assert_eq!(
            m.contribute(all.clone(), tag("b"), set(&[0, 1]), 1, 6, b"b1".to_vec()),
            Ok(None)
        );
        let a = m
            .contribute(all, tag("a"), set(&[0, 1]), 1, 7, b"a1".to_vec())
            .expect("ok")
            .expect("complete");
        assert_eq!(a.data, b"a0a1");
        assert_eq!(m.pending(), 1);
    }

    #[test]
    fn an_ended_rank_fails_the_rounds_that_include_it() {
        let mut m = FenceMatcher::default();
        let all = vec![p(pmix_sys::PMIX_RANK_WILDCARD)];
        m.contribute(all.clone(), None, set(&[0, 1]), 0, 1, vec![])
            .expect("ok");
        m.contribute(vec![p(0), p(2)], None, set(&[0, 1]), 0, 2, vec![])
            .expect("ok");
        m.contribute(vec![p(0), p(2)], None, set(&[0, 1]), 1, 3, vec![])
            .ok();
        m.contribute(vec![p(0), p(1)], None, set(&[0, 1]), 0, 4, vec![])
            .expect("ok");
        let mut failed = m.fail_including(&p(2));
        failed.sort();
        // The wildcard round and the {0,2} round (one contribution was its completion,
        // so that round is already gone); {0,1} stays.
        assert_eq!(failed, vec![(0, 1)]);
        assert_eq!(m.pending(), 1);
        assert_eq!(m.fail_including(&p(1)), vec![(0, 4)]);
        assert_eq!(m.pending(), 0);
    }
}
