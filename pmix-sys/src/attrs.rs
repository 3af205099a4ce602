//! The attribute table: every `PMIX_*` attribute key, declared once with its key string
//! and the value type the documentation gives it. `gen-header` turns it into
//! `include/pmix_attrs_gen.h`; the Python bindings read the same table.

use crate::consts::*;
use crate::types::pmix_data_type_t;

/// One row of the attribute table.
#[derive(Debug, Clone, Copy)]
pub struct AttrDef {
    /// C macro name, e.g. `PMIX_JOB_SIZE`.
    pub name: &'static str,
    /// Key string, e.g. `"pmix.job.size"`.
    pub key: &'static str,
    /// Documented value type (`PMIX_UNDEF` where the documentation gives none).
    pub dtype: pmix_data_type_t,
}

macro_rules! attr_table {
    ($( $name:ident = $key:expr, $ty:ident; )*) => {
        /// Key strings as Rust constants (`&str`, no NUL).
        pub mod keys {
            $( pub const $name: &str = $key; )*
        }
        /// All rows, in declaration order.
        pub static ATTR_TABLE: &[AttrDef] = &[
            $( AttrDef { name: stringify!($name), key: $key, dtype: $ty }, )*
        ];
    };
}

attr_table! {
    PMIX_TIMEOUT = "pmix.timeout", PMIX_INT;
    PMIX_COLLECT_DATA = "pmix.collect", PMIX_BOOL;
    PMIX_IMMEDIATE = "pmix.immediate", PMIX_BOOL;
    PMIX_OPTIONAL = "pmix.optional", PMIX_BOOL;
    PMIX_DATA_SCOPE = "pmix.scope", PMIX_SCOPE;
    PMIX_RANK = "pmix.rank", PMIX_PROC_RANK;
    PMIX_PROCID = "pmix.procid", PMIX_PROC;
    PMIX_JOB_SIZE = "pmix.job.size", PMIX_UINT32;
    PMIX_LOCAL_RANK = "pmix.lrank", PMIX_UINT16;
    PMIX_NODE_RANK = "pmix.nrank", PMIX_UINT16;
    PMIX_VERSION_NUMERIC = "pmix.vers.num", PMIX_UINT32;
}

/// Look an attribute up by its key string.
pub fn attr_by_key(key: &str) -> Option<&'static AttrDef> {
    ATTR_TABLE.iter().find(|a| a.key == key)
}
