//! `pmix-sys`: the C ABI of OpenPMIx as Rust types.
//!
//! * [`types`] — `#[repr(C)]` structs with their layouts pinned by const assertions;
//! * [`callbacks`] — callback typedefs and the host's `pmix_server_module_t`;
//! * [`status`] and [`attrs`] — the two tables (status codes, attribute keys), each declared
//!   once and turned into Rust constants, lookup slices and the generated C header fragments;
//! * [`consts`] — the other numeric constants.
//!
//! Names are OpenPMIx's, exactly.
#![allow(non_camel_case_types, non_upper_case_globals)]

pub mod attrs;
pub mod callbacks;
pub mod consts;
pub mod status;
pub mod types;

pub use callbacks::*;
pub use consts::*;
pub use status::*;
pub use types::*;
