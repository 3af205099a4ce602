//! `libpmix.so.2`: the OpenPMIx-compatible C API. This crate only translates: it checks
//! arguments, converts C structs to `pmix-core` types (`conv`), calls the engine and
//! converts results back into statuses, out-parameters and `malloc`'d buffers.
//!
//! Every export runs inside the guard of [`guard`]: a panic becomes `PMIX_ERROR` and a
//! log line, never an abort of the host process. Its pointer arguments are read through
//! the checked helpers of [`args`] (`arg!` / `try_arg!`: NULL or malformed input is
//! `PMIX_ERR_BAD_PARAM` with a log line), and every export's `# Safety` section states
//! the C contract that makes those reads sound: what each pointer must be, what the
//! library keeps past the call, and who frees what.
#![allow(non_camel_case_types, non_snake_case, clippy::missing_safety_doc)]

pub mod args;
pub mod client;
pub mod conv;
pub mod cuda;
pub mod frameworks;
pub mod guard;
pub mod helpers;
pub mod logging;
pub mod server;
pub mod stubs;
pub mod tool;
