//! Matching the nodes' parts of a group construct ([`Constructs`], [`Bootstraps`]): pure
//! bookkeeping, no links, so its rules are unit-tested alone ([`serve`](super::serve)
//! drives it).
//!
//! Each server hosting a member sends one part once its own members arrived, naming the
//! members as it sees them. With `PMIX_GROUP_OPTIONAL` a server leaves out a member it
//! knows ended, and the nodes do not learn of an end at the same moment: one node's part
//! may still name a member another node's part already left out (or that ended since).
//! So a construct's members are what every part names, minus the members that ended
//! before it completed; it completes when every node hosting one of those sent its part,
//! and every part's server gets that membership (`PMIX_GROUP_MEMBERSHIP`), so that every
//! survivor sees the same group. Without `PMIX_GROUP_OPTIONAL` a member that ended aborts
//! the construct for every part. [`Bootstraps`] does the same for the
//! `PMIX_GROUP_BOOTSTRAP` constructs whose servers send their arrivals in parts.

use pmix_core::server::state::includes;
use pmix_core::ProcId;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One node's part of a construct.
pub struct Part<'a> {
    pub node: usize,
    /// The node's id of the call, answered when the construct ends.
    pub id: u64,
    /// The members, as its server sees them.
    pub procs: &'a [ProcId],
    /// `PMIX_GROUP_OPTIONAL`: a member that ended is left out.
    pub optional: bool,
    /// `PMIX_GROUP_ASSIGN_CONTEXT_ID`.
    pub ctx: bool,
    /// Its members' connect blob.
    pub data: Vec<u8>,
}

/// A construct that formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formed {
    /// The members, sorted.
    pub members: Vec<ProcId>,
    /// `(node, the node's id)` of every part, in node order (a bootstrap's: in the
    /// order they came).
    pub parts: Vec<(usize, u64)>,
    /// The parts' blobs, concatenated in that order.
    pub data: Vec<u8>,
    /// A part asked for a context id.
    pub ctx: bool,
}

/// How a construct ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Formed(Formed),
    /// Member `lost` ended and the construct is not optional: every part fails.
    Aborted {
        lost: ProcId,
        parts: Vec<(usize, u64)>,
    },
}

struct Round {
    members: Vec<ProcId>,
    optional: bool,
    ctx: bool,
    parts: BTreeMap<usize, (u64, Vec<u8>)>,
}

/// The nodes hosting some processes (the front end's `nodes_of`).
pub type NodesOf<'a> = &'a dyn Fn(&[ProcId]) -> Result<BTreeSet<usize>, String>;

/// The constructs being collected, by group name.
#[derive(Default)]
pub struct Constructs {
    rounds: HashMap<String, Round>,
}

impl Constructs {
    /// Add a node's part of the construct of group `grp`; `ended` are the processes that
    /// ended for good. `Some` when the construct is over.
    ///
    /// # Errors
    /// A message when the node hosts none of the members it names, or already sent its
    /// part of this construct.
    pub fn contribute(
        &mut self,
        grp: &str,
        part: Part,
        ended: &BTreeSet<ProcId>,
        nodes: NodesOf,
    ) -> Result<Option<Outcome>, String> {
        if !nodes(part.procs)?.contains(&part.node) {
            return Err(format!("node {} hosts no member of group {grp}", part.node));
        }
        let r = self.rounds.entry(grp.to_string()).or_insert_with(|| Round {
            members: part.procs.to_vec(),
            optional: false,
            ctx: false,
            parts: BTreeMap::new(),
        });
        if r.parts.contains_key(&part.node) {
            return Err(format!(
                "node {} already sent its part of group {grp}",
                part.node
            ));
        }
        // A member another part left out is one its server knew ended.
        r.members.retain(|m| includes(part.procs, m));
        r.optional |= part.optional;
        r.ctx |= part.ctx;
        r.parts.insert(part.node, (part.id, part.data));
        Ok(self.settle(grp, ended, nodes))
    }

    /// `p` ended (it is in `ended` now): the constructs naming it leave it out (optional)
    /// or abort. The constructs that are over.
    pub fn lost(
        &mut self,
        p: &ProcId,
        ended: &BTreeSet<ProcId>,
        nodes: NodesOf,
    ) -> Vec<(String, Outcome)> {
        let grps: Vec<String> = self
            .rounds
            .iter()
            .filter(|(_, r)| includes(&r.members, p))
            .map(|(g, _)| g.clone())
            .collect();
        grps.into_iter()
            .filter_map(|g| self.settle(&g, ended, nodes).map(|o| (g, o)))
            .collect()
    }

    /// Leave out (or abort for) the members of `grp` that ended; complete it if every
    /// node hosting a member sent its part.
    fn settle(&mut self, grp: &str, ended: &BTreeSet<ProcId>, nodes: NodesOf) -> Option<Outcome> {
        let r = self.rounds.get_mut(grp)?;
        if let Some(q) = ended.iter().find(|q| includes(&r.members, q)) {
            if !r.optional {
                let lost = q.clone();
                let r = self.rounds.remove(grp)?;
                let parts = r.parts.into_iter().map(|(n, (id, _))| (n, id)).collect();
                return Some(Outcome::Aborted { lost, parts });
            }
            r.members.retain(|m| !ended.contains(m));
        }
        let need = nodes(&r.members).ok()?;
        if !need.iter().all(|n| r.parts.contains_key(n)) {
            return None;
        }
        let r = self.rounds.remove(grp)?;
        let mut members = r.members;
        members.sort();
        members.dedup();
        let mut formed = Formed {
            members,
            parts: Vec::new(),
            data: Vec::new(),
            ctx: r.ctx,
        };
        for (n, (id, d)) in r.parts {
            formed.parts.push((n, id));
            formed.data.extend_from_slice(&d);
        }
        Some(Outcome::Formed(formed))
    }

    /// Constructs still being collected.
    #[cfg(test)]
    pub fn pending(&self) -> usize {
        self.rounds.len()
    }
}

/// One server's part of a `PMIX_GROUP_BOOTSTRAP` construct collected in parts (see
/// pmix-core's `server/group_remote.rs`): who arrived there since its last part.
pub struct BootPart<'a> {
    pub node: usize,
    pub id: u64,
    /// The members its leaders named so far.
    pub procs: &'a [ProcId],
    /// The leaders this part brings, and how many must come (`PMIX_GROUP_BOOTSTRAP`).
    pub leaders: u64,
    pub need: Option<u64>,
    /// Who arrived.
    pub arrived: Vec<ProcId>,
    pub optional: bool,
    pub ctx: bool,
    pub data: Vec<u8>,
}

#[derive(Default)]
struct Boot {
    leaders: u64,
    need: Option<u64>,
    /// Members some leader named, and members that arrived.
    named: BTreeSet<ProcId>,
    arrived: BTreeSet<ProcId>,
    optional: bool,
    ctx: bool,
    /// The parts' blobs, concatenated in the order they came.
    blob: Vec<u8>,
    parts: Vec<(usize, u64)>,
}

/// The bootstrap constructs being collected in parts, by group name: complete once every
/// leader came and every member a leader named arrived. A named member that ended before
/// it arrived aborts the construct, or (`PMIX_GROUP_OPTIONAL`) is left out.
#[derive(Default)]
pub struct Bootstraps {
    rounds: HashMap<String, Boot>,
}

impl Bootstraps {
    /// Add a part of group `grp`'s construct (`ended`: the processes that ended for
    /// good). `Some` when the construct is over.
    pub fn contribute(
        &mut self,
        grp: &str,
        part: BootPart,
        ended: &BTreeSet<ProcId>,
    ) -> Option<Outcome> {
        let b = self.rounds.entry(grp.to_string()).or_default();
        b.leaders += part.leaders;
        if part.need.is_some() {
            b.need = part.need;
        }
        b.named.extend(
            part.procs
                .iter()
                .filter(|q| q.rank < pmix_sys::PMIX_RANK_VALID)
                .cloned(),
        );
        b.arrived.extend(part.arrived);
        b.optional |= part.optional;
        b.ctx |= part.ctx;
        b.blob.extend_from_slice(&part.data);
        b.parts.push((part.node, part.id));
        self.settle(grp, ended)
    }

    /// `p` ended (it is in `ended` now): the constructs waiting for it abort, or
    /// (optional) go on without it. The constructs that are over.
    pub fn lost(&mut self, p: &ProcId, ended: &BTreeSet<ProcId>) -> Vec<(String, Outcome)> {
        let grps: Vec<String> = self
            .rounds
            .iter()
            .filter(|(_, b)| b.named.contains(p) || (b.optional && b.arrived.contains(p)))
            .map(|(g, _)| g.clone())
            .collect();
        grps.into_iter()
            .filter_map(|g| self.settle(&g, ended).map(|o| (g, o)))
            .collect()
    }

    fn settle(&mut self, grp: &str, ended: &BTreeSet<ProcId>) -> Option<Outcome> {
        let b = self.rounds.get_mut(grp)?;
        let missing = |b: &Boot, q: &ProcId| b.named.contains(q) && !b.arrived.contains(q);
        if !b.optional {
            if let Some(q) = ended.iter().find(|q| missing(b, q)) {
                let lost = q.clone();
                let b = self.rounds.remove(grp)?;
                return Some(Outcome::Aborted {
                    lost,
                    parts: b.parts,
                });
            }
        } else {
            b.named.retain(|q| !ended.contains(q));
            b.arrived.retain(|q| !ended.contains(q));
        }
        let leaders_in = b.leaders >= b.need.unwrap_or(1);
        if !leaders_in || !b.named.iter().all(|q| b.arrived.contains(q)) {
            return None;
        }
        let b = self.rounds.remove(grp)?;
        Some(Outcome::Formed(Formed {
            members: b.named.union(&b.arrived).cloned().collect(),
            parts: b.parts,
            data: b.blob,
            ctx: b.ctx,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Nspace;

    fn p(r: u32) -> ProcId {
        ProcId::new(Nspace::new("job").expect("ns"), r)
    }

    fn ps(v: &[u32]) -> Vec<ProcId> {
        v.iter().map(|&r| p(r)).collect()
    }

    /// Two ranks a node: ranks 0, 1 on node 0, 2, 3 on node 1, 4, 5 on node 2.
    fn nodes(procs: &[ProcId]) -> Result<BTreeSet<usize>, String> {
        procs
            .iter()
            .map(|q| match q.rank {
                r @ 0..=5 => Ok(r as usize / 2),
                _ => Err(format!("{q} is not in the job")),
            })
            .collect()
    }

    fn part(node: usize, id: u64, procs: &[ProcId], optional: bool) -> Part<'_> {
        Part {
            node,
            id,
            procs,
            optional,
            ctx: false,
            data: vec![node as u8],
        }
    }

    fn formed(members: &[u32], parts: &[(usize, u64)], data: &[u8]) -> Option<Outcome> {
        Some(Outcome::Formed(Formed {
            members: ps(members),
            parts: parts.to_vec(),
            data: data.to_vec(),
            ctx: false,
        }))
    }

    fn ended(v: &[u32]) -> BTreeSet<ProcId> {
        ps(v).into_iter().collect()
    }

    #[test]
    fn a_construct_forms_when_every_member_s_node_sent_its_part() {
        let mut c = Constructs::default();
        let all = ps(&[0, 1, 2, 3]);
        let none = ended(&[]);
        assert_eq!(
            c.contribute("g", part(1, 7, &all, false), &none, &nodes),
            Ok(None)
        );
        assert_eq!(
            c.contribute("g", part(0, 4, &all, false), &none, &nodes),
            Ok(formed(&[0, 1, 2, 3], &[(0, 4), (1, 7)], &[0, 1]))
        );
        assert_eq!(c.pending(), 0);
        // A node hosting no member, or sending twice, is refused.
        assert!(c
            .contribute("h", part(2, 1, &all, false), &none, &nodes)
            .is_err());
        c.contribute("h", part(0, 1, &all, false), &none, &nodes)
            .expect("first part");
        assert!(c
            .contribute("h", part(0, 2, &all, false), &none, &nodes)
            .is_err());
    }

    /// The losing order: node 0's part still names rank 3, which node 1 (its node) knew
    /// had ended and left out; the front end hears of the end only afterwards, or before.
    #[test]
    fn an_optional_construct_forms_from_the_survivors_whatever_the_order() {
        let all = ps(&[0, 1, 2, 3]);
        let rest = ps(&[0, 1, 2]);
        let want = formed(&[0, 1, 2], &[(0, 4), (1, 7)], &[0, 1]);
        // Node 0's part first, the end not yet known anywhere but at node 1.
        let mut c = Constructs::default();
        let none = ended(&[]);
        assert_eq!(
            c.contribute("g", part(0, 4, &all, true), &none, &nodes),
            Ok(None)
        );
        assert_eq!(
            c.contribute("g", part(1, 7, &rest, true), &none, &nodes),
            Ok(want.clone())
        );
        // The front end heard of the end before node 0's part (still naming it) came.
        let mut c = Constructs::default();
        let gone = ended(&[3]);
        assert_eq!(
            c.contribute("g", part(1, 7, &rest, true), &gone, &nodes),
            Ok(None)
        );
        assert_eq!(
            c.contribute("g", part(0, 4, &all, true), &gone, &nodes),
            Ok(want.clone())
        );
        // Node 0's part first, then the end (while node 1 still waits for rank 2).
        let mut c = Constructs::default();
        assert_eq!(
            c.contribute("g", part(0, 4, &all, true), &none, &nodes),
            Ok(None)
        );
        assert!(c.lost(&p(3), &gone, &nodes).is_empty());
        assert_eq!(
            c.contribute("g", part(1, 7, &rest, true), &gone, &nodes),
            Ok(want)
        );
    }

    #[test]
    fn a_node_whose_only_member_ended_is_not_waited_for_when_optional() {
        let all = ps(&[0, 2, 4]);
        let mut c = Constructs::default();
        let none = ended(&[]);
        assert_eq!(
            c.contribute("g", part(0, 1, &all, true), &none, &nodes),
            Ok(None)
        );
        assert_eq!(
            c.contribute("g", part(1, 2, &all, true), &none, &nodes),
            Ok(None)
        );
        // Rank 4 (node 2's only member) ends before it arrives.
        let done = c.lost(&p(4), &ended(&[4]), &nodes);
        assert_eq!(
            done,
            vec![(
                "g".to_string(),
                formed(&[0, 2], &[(0, 1), (1, 2)], &[0, 1]).expect("formed")
            )]
        );
        // Not optional: the same end aborts it for every part.
        let mut c = Constructs::default();
        c.contribute("g", part(0, 1, &all, false), &none, &nodes)
            .expect("part");
        c.contribute("g", part(1, 2, &all, false), &none, &nodes)
            .expect("part");
        assert_eq!(
            c.lost(&p(4), &ended(&[4]), &nodes),
            vec![(
                "g".to_string(),
                Outcome::Aborted {
                    lost: p(4),
                    parts: vec![(0, 1), (1, 2)]
                }
            )]
        );
        // ... and a part naming a member that already ended aborts at once.
        assert_eq!(
            c.contribute("h", part(0, 3, &all, false), &ended(&[4]), &nodes),
            Ok(Some(Outcome::Aborted {
                lost: p(4),
                parts: vec![(0, 3)]
            }))
        );
        assert_eq!(c.pending(), 0);
    }

    fn boot<'a>(node: usize, named: &'a [ProcId], leaders: u64, came: &[u32]) -> BootPart<'a> {
        BootPart {
            node,
            id: node as u64 + 10,
            procs: named,
            leaders,
            need: Some(2),
            arrived: ps(came),
            optional: false,
            ctx: false,
            data: vec![node as u8],
        }
    }

    /// Two leaders (ranks 0 and 2, one a node) name ranks 0, 2 and 4; rank 4 (node 2)
    /// ends before it arrives.
    #[test]
    fn a_bootstrap_construct_goes_on_without_an_ended_member_only_when_optional() {
        let named = ps(&[0, 2, 4]);
        for optional in [false, true] {
            let mut b = Bootstraps::default();
            let none = ended(&[]);
            let mut first = boot(0, &named, 1, &[0]);
            first.optional = optional;
            assert_eq!(b.contribute("g", first, &none), None);
            assert_eq!(b.contribute("g", boot(1, &named, 1, &[2]), &none), None);
            let over = b.lost(&p(4), &ended(&[4]));
            let want = if optional {
                Outcome::Formed(Formed {
                    members: ps(&[0, 2]),
                    parts: vec![(0, 10), (1, 11)],
                    data: vec![0, 1],
                    ctx: false,
                })
            } else {
                Outcome::Aborted {
                    lost: p(4),
                    parts: vec![(0, 10), (1, 11)],
                }
            };
            assert_eq!(over, vec![("g".to_string(), want)]);
        }
        // The end already known when the last part comes: the same.
        let mut b = Bootstraps::default();
        let gone = ended(&[4]);
        let mut first = boot(0, &named, 1, &[0]);
        first.optional = true;
        assert_eq!(b.contribute("g", first, &gone), None);
        assert!(matches!(
            b.contribute("g", boot(1, &named, 1, &[2]), &gone),
            Some(Outcome::Formed(f)) if f.members == ps(&[0, 2])
        ));
        // Everyone in: formed, with or without optional.
        let mut b = Bootstraps::default();
        assert_eq!(
            b.contribute("h", boot(0, &named, 1, &[0]), &ended(&[])),
            None
        );
        assert_eq!(
            b.contribute("h", boot(1, &named, 1, &[2, 4]), &ended(&[])),
            Some(Outcome::Formed(Formed {
                members: named.clone(),
                parts: vec![(0, 10), (1, 11)],
                data: vec![0, 1],
                ctx: false,
            }))
        );
    }
}
