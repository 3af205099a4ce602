//! Numeric constants other than status codes: data types, scopes, ranges, ranks, flags.
//! Values are OpenPMIx's (unchanged between 4.2.2 and master unless noted).

use crate::types::*;

// ---- pmix_data_type_t ----
pub const PMIX_UNDEF: pmix_data_type_t = 0;
pub const PMIX_BOOL: pmix_data_type_t = 1;
pub const PMIX_BYTE: pmix_data_type_t = 2;
pub const PMIX_STRING: pmix_data_type_t = 3;
pub const PMIX_SIZE: pmix_data_type_t = 4;
pub const PMIX_PID: pmix_data_type_t = 5;
pub const PMIX_INT: pmix_data_type_t = 6;
pub const PMIX_INT8: pmix_data_type_t = 7;
pub const PMIX_INT16: pmix_data_type_t = 8;
pub const PMIX_INT32: pmix_data_type_t = 9;
pub const PMIX_INT64: pmix_data_type_t = 10;
pub const PMIX_UINT: pmix_data_type_t = 11;
pub const PMIX_UINT8: pmix_data_type_t = 12;
pub const PMIX_UINT16: pmix_data_type_t = 13;
pub const PMIX_UINT32: pmix_data_type_t = 14;
pub const PMIX_UINT64: pmix_data_type_t = 15;
pub const PMIX_FLOAT: pmix_data_type_t = 16;
pub const PMIX_DOUBLE: pmix_data_type_t = 17;
pub const PMIX_TIMEVAL: pmix_data_type_t = 18;
pub const PMIX_TIME: pmix_data_type_t = 19;
pub const PMIX_STATUS: pmix_data_type_t = 20;
pub const PMIX_VALUE: pmix_data_type_t = 21;
pub const PMIX_PROC: pmix_data_type_t = 22;
pub const PMIX_APP: pmix_data_type_t = 23;
pub const PMIX_INFO: pmix_data_type_t = 24;
pub const PMIX_PDATA: pmix_data_type_t = 25;
pub const PMIX_BUFFER: pmix_data_type_t = 26;
pub const PMIX_BYTE_OBJECT: pmix_data_type_t = 27;
pub const PMIX_KVAL: pmix_data_type_t = 28;
pub const PMIX_PERSIST: pmix_data_type_t = 30;
pub const PMIX_POINTER: pmix_data_type_t = 31;
pub const PMIX_SCOPE: pmix_data_type_t = 32;
pub const PMIX_DATA_RANGE: pmix_data_type_t = 33;
pub const PMIX_COMMAND: pmix_data_type_t = 34;
pub const PMIX_INFO_DIRECTIVES: pmix_data_type_t = 35;
pub const PMIX_DATA_TYPE: pmix_data_type_t = 36;
pub const PMIX_PROC_STATE: pmix_data_type_t = 37;
pub const PMIX_PROC_INFO: pmix_data_type_t = 38;
pub const PMIX_DATA_ARRAY: pmix_data_type_t = 39;
pub const PMIX_PROC_RANK: pmix_data_type_t = 40;
pub const PMIX_QUERY: pmix_data_type_t = 41;
pub const PMIX_COMPRESSED_STRING: pmix_data_type_t = 42;
pub const PMIX_ALLOC_DIRECTIVE: pmix_data_type_t = 43;
pub const PMIX_IOF_CHANNEL: pmix_data_type_t = 45;
pub const PMIX_ENVAR: pmix_data_type_t = 46;
pub const PMIX_COORD: pmix_data_type_t = 47;
pub const PMIX_REGATTR: pmix_data_type_t = 48;
pub const PMIX_REGEX: pmix_data_type_t = 49;
pub const PMIX_JOB_STATE: pmix_data_type_t = 50;
pub const PMIX_LINK_STATE: pmix_data_type_t = 51;
pub const PMIX_PROC_CPUSET: pmix_data_type_t = 52;
pub const PMIX_GEOMETRY: pmix_data_type_t = 53;
pub const PMIX_DEVICE_DIST: pmix_data_type_t = 54;
pub const PMIX_ENDPOINT: pmix_data_type_t = 55;
pub const PMIX_TOPO: pmix_data_type_t = 56;
pub const PMIX_DEVTYPE: pmix_data_type_t = 57;
pub const PMIX_LOCTYPE: pmix_data_type_t = 58;
pub const PMIX_COMPRESSED_BYTE_OBJECT: pmix_data_type_t = 59;
pub const PMIX_PROC_NSPACE: pmix_data_type_t = 60;
pub const PMIX_DATA_BUFFER: pmix_data_type_t = 65;
pub const PMIX_STOR_MEDIUM: pmix_data_type_t = 66;
pub const PMIX_STOR_ACCESS: pmix_data_type_t = 67;
pub const PMIX_STOR_PERSIST: pmix_data_type_t = 68;
pub const PMIX_STOR_ACCESS_TYPE: pmix_data_type_t = 69;
pub const PMIX_DEVICE: pmix_data_type_t = 70;
pub const PMIX_RESBLOCK_DIRECTIVE: pmix_data_type_t = 71;
pub const PMIX_RESOURCE_UNIT: pmix_data_type_t = 72;
pub const PMIX_NODE_PID: pmix_data_type_t = 73;
pub const PMIX_REGEX2: pmix_data_type_t = 74;
pub const PMIX_ALLOC_INHERIT: pmix_data_type_t = 75;
pub const PMIX_DATA_TYPE_MAX: pmix_data_type_t = 500;

// ---- pmix_scope_t ----
pub const PMIX_SCOPE_UNDEF: pmix_scope_t = 0;
pub const PMIX_LOCAL: pmix_scope_t = 1;
pub const PMIX_REMOTE: pmix_scope_t = 2;
pub const PMIX_GLOBAL: pmix_scope_t = 3;
pub const PMIX_INTERNAL: pmix_scope_t = 4;
pub const PMIX_DEL_LOCAL: pmix_scope_t = 5;
pub const PMIX_DEL_REMOTE: pmix_scope_t = 6;
pub const PMIX_DEL_GLOBAL: pmix_scope_t = 7;
pub const PMIX_DEL_INTERNAL: pmix_scope_t = 8;

// ---- pmix_data_range_t ----
pub const PMIX_RANGE_UNDEF: pmix_data_range_t = 0;
pub const PMIX_RANGE_RM: pmix_data_range_t = 1;
pub const PMIX_RANGE_LOCAL: pmix_data_range_t = 2;
pub const PMIX_RANGE_NAMESPACE: pmix_data_range_t = 3;
pub const PMIX_RANGE_SESSION: pmix_data_range_t = 4;
pub const PMIX_RANGE_GLOBAL: pmix_data_range_t = 5;
pub const PMIX_RANGE_CUSTOM: pmix_data_range_t = 6;
pub const PMIX_RANGE_PROC_LOCAL: pmix_data_range_t = 7;
pub const PMIX_RANGE_INVALID: pmix_data_range_t = 255;

// ---- pmix_persistence_t ----
pub const PMIX_PERSIST_INDEF: pmix_persistence_t = 0;
pub const PMIX_PERSIST_FIRST_READ: pmix_persistence_t = 1;
pub const PMIX_PERSIST_PROC: pmix_persistence_t = 2;
pub const PMIX_PERSIST_APP: pmix_persistence_t = 3;
pub const PMIX_PERSIST_SESSION: pmix_persistence_t = 4;
pub const PMIX_PERSIST_INVALID: pmix_persistence_t = 255;

// ---- pmix_rank_t ----
pub const PMIX_RANK_UNDEF: pmix_rank_t = u32::MAX;
pub const PMIX_RANK_WILDCARD: pmix_rank_t = u32::MAX - 1;
pub const PMIX_RANK_LOCAL_NODE: pmix_rank_t = u32::MAX - 2;
pub const PMIX_RANK_INVALID: pmix_rank_t = u32::MAX - 3;
pub const PMIX_RANK_LOCAL_PEERS: pmix_rank_t = u32::MAX - 4;
pub const PMIX_RANK_VALID: pmix_rank_t = u32::MAX - 50;
pub const PMIX_APP_WILDCARD: u32 = u32::MAX;

// ---- pmix_info_directives_t ----
pub const PMIX_INFO_REQD: pmix_info_directives_t = 0x0001;
pub const PMIX_INFO_ARRAY_END: pmix_info_directives_t = 0x0002;
pub const PMIX_INFO_REQD_PROCESSED: pmix_info_directives_t = 0x0004;
pub const PMIX_INFO_QUALIFIER: pmix_info_directives_t = 0x0008;
pub const PMIX_INFO_PERSISTENT: pmix_info_directives_t = 0x0010;
pub const PMIX_INFO_DIR_RESERVED: pmix_info_directives_t = 0xffff_0000;

// ---- pmix_value_cmp_t ----
pub const PMIX_EQUAL: pmix_value_cmp_t = 0;
pub const PMIX_VALUE1_GREATER: pmix_value_cmp_t = 1;
pub const PMIX_VALUE2_GREATER: pmix_value_cmp_t = 2;
pub const PMIX_VALUE_TYPE_DIFFERENT: pmix_value_cmp_t = 3;
pub const PMIX_VALUE_INCOMPATIBLE_OBJECTS: pmix_value_cmp_t = 4;
pub const PMIX_VALUE_COMPARISON_NOT_AVAIL: pmix_value_cmp_t = 5;

// ---- version ----
pub const PMIX_VERSION_MAJOR: u32 = 7;
pub const PMIX_VERSION_MINOR: u32 = 0;
pub const PMIX_VERSION_RELEASE: u32 = 0;
/// `PMIX_NUMERIC_VERSION`: 16-bit major, 8-bit minor, 8-bit release.
pub const PMIX_NUMERIC_VERSION: u32 = 0x0007_0000;
