//! The engine's byte formats. Its own format lives one layer down, in [`crate::wire`]
//! (re-exported here, so `codec::Wire`, `codec::to_bytes`, ... keep working); the native
//! protocol and the store use it directly. [`v41`] holds OpenPMIx's formats:
//! `PMIx_Data_pack`/`unpack` (bfrops v4.1) and, in [`v41::wire`], OpenPMIx's
//! client/server dialect written against the engine's typed messages — so this module
//! sits above [`crate::protocol`] and [`crate::store`].

pub mod v41;
pub use crate::wire::*;
