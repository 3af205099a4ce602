//! The one place C structs are read and written: `pmix_*_t` ⇄ `pmix-core` types.
//!
//! Every export that takes or returns PMIx data goes through this module, so NULL
//! checks, key/namespace bounds, unknown data types and allocation all follow one set
//! of rules:
//!
//! * **Reading** (`*_from_c`) deep-copies C data into owned core types; C keeps
//!   ownership of its memory. Over-length or unterminated keys/namespaces, NULL where a
//!   struct is required, and nesting deeper than [`MAX_DEPTH`] are
//!   `PMIX_ERR_BAD_PARAM`; unsupported data types are `PMIX_ERR_UNKNOWN_DATA_TYPE`.
//! * **Writing** (`*_to_c`) produces C structs whose every buffer comes from libc
//!   `malloc` ([`alloc`]), so C callers (and our `PMIx_*_free`) can release them. On
//!   error nothing is leaked and the output is left empty.
//! * **Releasing** (`*_destruct`, [`value_destruct`], [`info_array_free`], …) frees
//!   what a C struct owns, recursively; `PMIX_INFO_PERSISTENT` infos keep their value.
//!
//! The main entry points:
//!
//! | C type | read | write | release |
//! |---|---|---|---|
//! | `pmix_value_t` | [`value_from_c`] | [`value_to_c`], [`value_new`] | [`value_destruct`] |
//! | `pmix_info_t` | [`info_from_c`], [`info_array_from_c`] | [`info_to_c`], [`info_array_to_c`] | [`info_destruct`], [`info_array_free`] |
//! | `pmix_data_array_t` | [`darray_from_c`] | [`darray_to_c`] | [`darray_destruct`] |
//! | one datum of type `t` | [`elem_from_c`] | [`elem_to_c`] | [`elem_destruct`] |
//! | `pmix_proc_t` | [`proc_from_c`], [`proc_from_ptr`], [`proc_array_from_c`] | [`proc_to_c`], [`proc_array_to_c`] | — |
//! | `pmix_app_t` | [`app_from_c`], [`app_array_from_c`] | [`app_to_c`] | [`app_destruct`] |
//! | `pmix_pdata_t` | [`pdata_from_c`], [`pdata_array_from_c`] | [`pdata_to_c`] | [`pdata_destruct`] |
//! | `pmix_query_t` | [`query_from_c`], [`query_array_from_c`] | [`query_to_c`] | [`query_destruct`] |
//! | keys, namespaces | [`key_from_ptr`], [`key_from_array`], [`nspace_from_ptr`], [`nspace_from_array`] | [`load_key`], [`load_nspace`] | — |
//! | `char **` | [`argv_from_c`] | [`argv_to_c`], [`argv_append`], [`argv_prepend`] | [`argv_free`] |
//! | data buffer | [`dbuf_from_c`] | [`dbuf_to_c`] | [`dbuf_destruct`] |

pub mod alloc;
pub mod cstr;
pub mod structs;
pub mod value;

pub use cstr::*;
pub use structs::*;
pub use value::*;

#[cfg(test)]
pub(crate) mod tests;
