//! The server API (`pmix_server.h`): one file per family, each export a thin translation
//! onto `pmix_core::server`, plus [`host::CHost`], which presents a C host's
//! `pmix_server_module_t` to the engine as a [`pmix_core::server::Host`].

pub mod dmodex;
pub mod host;
pub mod init;
pub mod iof;
pub mod nspace;
pub mod psets;
pub mod regex;
pub mod support;

pub use crate::client::{status, CbData};
