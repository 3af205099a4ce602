//! `pmix-core`: the PMIx engine in safe Rust.
//!
//! A path through the crate:
//! * [`value`] — the data model (`Value`, `Info`, `ProcId`, …), no C types;
//! * [`wire`] — the engine's own byte format (native wire protocol, stored job data, host
//!   blobs);
//! * [`codec`] — every byte format: [`wire`]'s re-exported, OpenPMIx's (`PMIx_Data_pack`,
//!   the v4.1 client/server dialect);
//! * [`compress`] — zlib (flate2 with the zlib-rs backend) behind `PMIx_Data_compress`;
//! * [`store`] — key/value storage with scopes, qualifiers, deletion and caching;
//! * [`client`] and [`server`] — the client and server state machines;
//! * [`iof`] — I/O forwarding: chunks, matching, the server's own copy of output;
//! * [`reactor`] — the one progress thread per process (mio), the only I/O and the only
//!   thread that runs callbacks;
//! * [`dump`] — the debug dump written on a signal (recent calls, pending operations);
//! * [`params`] — the one table of environment parameters and the accessor every read uses;
//! * [`topology`] — the node topology through the system libhwloc (locality, cpusets,
//!   distances);
//! * [`sys`] — the reviewed `unsafe` (credentials, socket options, shared memory).
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod client;
pub mod codec;
pub mod compress;
pub mod cuda;
pub mod dump;
pub mod error;
pub mod event;
pub mod fasthash;
pub mod host_attrs;
pub mod iof;
pub mod params;
pub mod protocol;
pub mod reactor;
pub mod rendezvous;
pub mod server;
pub mod shm;
pub mod store;
pub mod sys;
pub mod topology;
pub mod value;
pub mod wire;

pub use error::{Error, Result};
pub use value::*;
