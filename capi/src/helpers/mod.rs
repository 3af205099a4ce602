//! The helper API: everything in OpenPMIx's headers that works without a server —
//! value/info/array management, the info list, argv and environment helpers, key and
//! proc utilities, struct lifecycles, string converters, and the data-buffer codec.
//! One file per family; all C structs are read and written through [`crate::conv`].

pub mod argv;
pub mod buffer;
pub mod info;
pub mod print;
pub mod procs;
pub mod strings;
pub mod structs;
pub mod value;
