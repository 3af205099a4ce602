//! The multi-node test bench (`pmixrun --nodes K`): K simulated nodes on this machine,
//! each with its own PMIx server in its own process (a node daemon, [`daemon`]), joined
//! by the front end ([`fabric`]) through the same host interface a real resource
//! manager implements: fence contributions concatenated, direct modex forwarded to the
//! owning node, events, aborts and lost clients relayed; publish/lookup, log, job control and
//! group operations served by the front end for every node ([`upcall`]). The front end and each daemon
//! talk over a socket pair ([`link`]).
//!
//! The front end forks every rank itself (the launcher is the same as for one node); a
//! rank simply gets the environment of its node's server, so it connects there.
//!
//! It exists to test multi-node behaviour (scopes across nodes, direct modex, delta
//! modex, deletions) on one machine; real multi-node jobs run under a real host
//! (Open MPI, PRRTE, Slurm).

pub mod daemon;
pub mod fabric;
pub mod link;
pub mod upcall;
