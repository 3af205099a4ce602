//! Numeric constants other than status codes: data types, scopes, ranges, ranks, flags,
//! states, directives, channels, localities, device types and the C enums' values.
//! Values are OpenPMIx master's (unchanged from 4.2.2 unless a comment says otherwise).
//!
//! Every constant is declared through the `consts!` macro, which also records it in
//! [`CONST_TABLE`]; `gen-header --list` prints that table and `make abi-check` compares
//! each entry with the value the C headers in `include/` give the same name.

use crate::types::*;
use core::ffi::c_int;

macro_rules! consts {
    ($( $ty:ty { $( $name:ident = $val:expr; )* } )*) => {
        $( $( pub const $name: $ty = $val; )* )*
        /// Every constant of this module with its value, for the header cross-check.
        pub static CONST_TABLE: &[(&str, i64)] = &[
            $( $( (stringify!($name), $name as i64), )* )*
        ];
    };
}

consts! {
    // `pmix_data_type_t`. 26 (`PMIX_BUFFER`), 42 (`PMIX_COMPRESSED_STRING`) and 49
    // (`PMIX_REGEX`) are deprecated but still decoded; 61-64 (the 4.2.2 statistics
    // structs) were removed in master and are not defined.
    pmix_data_type_t {
        PMIX_UNDEF = 0;
        PMIX_BOOL = 1;
        PMIX_BYTE = 2;
        PMIX_STRING = 3;
        PMIX_SIZE = 4;
        PMIX_PID = 5;
        PMIX_INT = 6;
        PMIX_INT8 = 7;
        PMIX_INT16 = 8;
        PMIX_INT32 = 9;
        PMIX_INT64 = 10;
        PMIX_UINT = 11;
        PMIX_UINT8 = 12;
        PMIX_UINT16 = 13;
        PMIX_UINT32 = 14;
        PMIX_UINT64 = 15;
        PMIX_FLOAT = 16;
        PMIX_DOUBLE = 17;
        PMIX_TIMEVAL = 18;
        PMIX_TIME = 19;
        PMIX_STATUS = 20;
        PMIX_VALUE = 21;
        PMIX_PROC = 22;
        PMIX_APP = 23;
        PMIX_INFO = 24;
        PMIX_PDATA = 25;
        PMIX_BUFFER = 26;
        PMIX_BYTE_OBJECT = 27;
        PMIX_KVAL = 28;
        PMIX_PERSIST = 30;
        PMIX_POINTER = 31;
        PMIX_SCOPE = 32;
        PMIX_DATA_RANGE = 33;
        PMIX_COMMAND = 34;
        PMIX_INFO_DIRECTIVES = 35;
        PMIX_DATA_TYPE = 36;
        PMIX_PROC_STATE = 37;
        PMIX_PROC_INFO = 38;
        PMIX_DATA_ARRAY = 39;
        PMIX_PROC_RANK = 40;
        PMIX_QUERY = 41;
        PMIX_COMPRESSED_STRING = 42;
        PMIX_ALLOC_DIRECTIVE = 43;
        PMIX_IOF_CHANNEL = 45;
        PMIX_ENVAR = 46;
        PMIX_COORD = 47;
        PMIX_REGATTR = 48;
        PMIX_REGEX = 49;
        PMIX_JOB_STATE = 50;
        PMIX_LINK_STATE = 51;
        PMIX_PROC_CPUSET = 52;
        PMIX_GEOMETRY = 53;
        PMIX_DEVICE_DIST = 54;
        PMIX_ENDPOINT = 55;
        PMIX_TOPO = 56;
        PMIX_DEVTYPE = 57;
        PMIX_LOCTYPE = 58;
        PMIX_COMPRESSED_BYTE_OBJECT = 59;
        PMIX_PROC_NSPACE = 60;
        PMIX_DATA_BUFFER = 65;
        PMIX_STOR_MEDIUM = 66;
        PMIX_STOR_ACCESS = 67;
        PMIX_STOR_PERSIST = 68;
        PMIX_STOR_ACCESS_TYPE = 69;
        PMIX_DEVICE = 70;
        PMIX_RESBLOCK_DIRECTIVE = 71;
        PMIX_RESOURCE_UNIT = 72;
        PMIX_NODE_PID = 73;
        PMIX_REGEX2 = 74;
        PMIX_ALLOC_INHERIT = 75;
        PMIX_DATA_TYPE_MAX = 500;
    }

    // `pmix_scope_t`. The `PMIX_DEL_*` scopes are master-only: they remove the key.
    pmix_scope_t {
        PMIX_SCOPE_UNDEF = 0;
        PMIX_LOCAL = 1;
        PMIX_REMOTE = 2;
        PMIX_GLOBAL = 3;
        PMIX_INTERNAL = 4;
        PMIX_DEL_LOCAL = 5;
        PMIX_DEL_REMOTE = 6;
        PMIX_DEL_GLOBAL = 7;
        PMIX_DEL_INTERNAL = 8;
    }

    // `pmix_data_range_t`.
    pmix_data_range_t {
        PMIX_RANGE_UNDEF = 0;
        PMIX_RANGE_RM = 1;
        PMIX_RANGE_LOCAL = 2;
        PMIX_RANGE_NAMESPACE = 3;
        PMIX_RANGE_SESSION = 4;
        PMIX_RANGE_GLOBAL = 5;
        PMIX_RANGE_CUSTOM = 6;
        PMIX_RANGE_PROC_LOCAL = 7;
        PMIX_RANGE_INVALID = 255;
    }

    // `pmix_persistence_t`.
    pmix_persistence_t {
        PMIX_PERSIST_INDEF = 0;
        PMIX_PERSIST_FIRST_READ = 1;
        PMIX_PERSIST_PROC = 2;
        PMIX_PERSIST_APP = 3;
        PMIX_PERSIST_SESSION = 4;
        PMIX_PERSIST_INVALID = 255;
    }

    // `pmix_rank_t` special values (a rank below `PMIX_RANK_VALID` is an ordinary rank).
    pmix_rank_t {
        PMIX_RANK_UNDEF = u32::MAX;
        PMIX_RANK_WILDCARD = u32::MAX - 1;
        PMIX_RANK_LOCAL_NODE = u32::MAX - 2;
        PMIX_RANK_INVALID = u32::MAX - 3;
        PMIX_RANK_LOCAL_PEERS = u32::MAX - 4;
        PMIX_RANK_VALID = u32::MAX - 50;
    }

    // Application number meaning "every app of the job".
    u32 {
        PMIX_APP_WILDCARD = u32::MAX;
    }

    // `pmix_info_directives_t` bit flags (the top 16 bits are the implementation's).
    pmix_info_directives_t {
        PMIX_INFO_REQD = 0x0001;
        PMIX_INFO_ARRAY_END = 0x0002;
        PMIX_INFO_REQD_PROCESSED = 0x0004;
        PMIX_INFO_QUALIFIER = 0x0008;
        PMIX_INFO_PERSISTENT = 0x0010;
        PMIX_INFO_DIR_RESERVED = 0xffff_0000;
    }

    // `pmix_proc_state_t`. Below `UNTERMINATED`: still running; from `ERROR` on: abnormal end.
    pmix_proc_state_t {
        PMIX_PROC_STATE_UNDEF = 0;
        PMIX_PROC_STATE_PREPPED = 1;
        PMIX_PROC_STATE_LAUNCH_UNDERWAY = 2;
        PMIX_PROC_STATE_RESTART = 3;
        PMIX_PROC_STATE_TERMINATE = 4;
        PMIX_PROC_STATE_RUNNING = 5;
        PMIX_PROC_STATE_CONNECTED = 6;
        PMIX_PROC_STATE_UNTERMINATED = 15;
        PMIX_PROC_STATE_TERMINATED = 20;
        PMIX_PROC_STATE_ERROR = 50;
        PMIX_PROC_STATE_KILLED_BY_CMD = 51;
        PMIX_PROC_STATE_ABORTED = 52;
        PMIX_PROC_STATE_FAILED_TO_START = 53;
        PMIX_PROC_STATE_ABORTED_BY_SIG = 54;
        PMIX_PROC_STATE_TERM_WO_SYNC = 55;
        PMIX_PROC_STATE_COMM_FAILED = 56;
        PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED = 57;
        PMIX_PROC_STATE_CALLED_ABORT = 58;
        PMIX_PROC_STATE_HEARTBEAT_FAILED = 59;
        PMIX_PROC_STATE_MIGRATING = 60;
        PMIX_PROC_STATE_CANNOT_RESTART = 61;
        PMIX_PROC_STATE_TERM_NON_ZERO = 62;
        PMIX_PROC_STATE_FAILED_TO_LAUNCH = 63;
    }

    // `pmix_job_state_t`. `PMIX_JOB_STATE_PREPPED` is the deprecated name of 1.
    pmix_job_state_t {
        PMIX_JOB_STATE_UNDEF = 0;
        PMIX_JOB_STATE_AWAITING_ALLOC = 1;
        PMIX_JOB_STATE_PREPPED = 1;
        PMIX_JOB_STATE_LAUNCH_UNDERWAY = 2;
        PMIX_JOB_STATE_RUNNING = 3;
        PMIX_JOB_STATE_SUSPENDED = 4;
        PMIX_JOB_STATE_CONNECTED = 5;
        PMIX_JOB_STATE_UNTERMINATED = 15;
        PMIX_JOB_STATE_TERMINATED = 20;
        PMIX_JOB_STATE_TERMINATED_WITH_ERROR = 50;
    }

    // `pmix_alloc_directive_t` (values from `PMIX_ALLOC_EXTERNAL` on are the host's).
    pmix_alloc_directive_t {
        PMIX_ALLOC_NEW = 1;
        PMIX_ALLOC_EXTEND = 2;
        PMIX_ALLOC_RELEASE = 3;
        PMIX_ALLOC_REAQUIRE = 4;
        PMIX_ALLOC_REQ_CANCEL = 5;
        PMIX_ALLOC_EXTERNAL = 128;
    }

    // `pmix_alloc_inheritance_t` (master only).
    pmix_alloc_inheritance_t {
        PMIX_ALLOC_INHERIT_NONE = 1;
        PMIX_ALLOC_INHERIT_CHILD = 2;
        PMIX_ALLOC_INHERIT_DEFAULT = 3;
        PMIX_ALLOC_INHERIT_CHILD_DEFAULT = 4;
    }

    // `pmix_resource_block_directive_t` (master only).
    pmix_resource_block_directive_t {
        PMIX_RESOURCE_BLOCK_DEFINE = 1;
        PMIX_RESOURCE_BLOCK_EXTEND = 2;
        PMIX_RESOURCE_BLOCK_REMOVE = 3;
        PMIX_RESOURCE_BLOCK_DELETE = 4;
        PMIX_RESOURCE_BLOCK_EXTERNAL = 128;
    }

    // `pmix_iof_channel_t` bit flags.
    pmix_iof_channel_t {
        PMIX_FWD_NO_CHANNELS = 0x0000;
        PMIX_FWD_STDIN_CHANNEL = 0x0001;
        PMIX_FWD_STDOUT_CHANNEL = 0x0002;
        PMIX_FWD_STDERR_CHANNEL = 0x0004;
        PMIX_FWD_STDDIAG_CHANNEL = 0x0008;
        PMIX_FWD_ALL_CHANNELS = 0x00ff;
    }

    // `pmix_storage_medium_t` (a `uint64_t` bit mask).
    u64 {
        PMIX_STORAGE_MEDIUM_UNKNOWN = 0x01;
        PMIX_STORAGE_MEDIUM_TAPE = 0x02;
        PMIX_STORAGE_MEDIUM_HDD = 0x04;
        PMIX_STORAGE_MEDIUM_SSD = 0x08;
        PMIX_STORAGE_MEDIUM_NVME = 0x10;
        PMIX_STORAGE_MEDIUM_PMEM = 0x20;
        PMIX_STORAGE_MEDIUM_RAM = 0x40;
    }

    // `pmix_storage_accessibility_t` (a `uint64_t` bit mask).
    u64 {
        PMIX_STORAGE_ACCESSIBILITY_NODE = 0x01;
        PMIX_STORAGE_ACCESSIBILITY_SESSION = 0x02;
        PMIX_STORAGE_ACCESSIBILITY_JOB = 0x04;
        PMIX_STORAGE_ACCESSIBILITY_RACK = 0x08;
        PMIX_STORAGE_ACCESSIBILITY_CLUSTER = 0x10;
        PMIX_STORAGE_ACCESSIBILITY_REMOTE = 0x20;
    }

    // `pmix_storage_persistence_t` (a `uint64_t` bit mask).
    u64 {
        PMIX_STORAGE_PERSISTENCE_TEMPORARY = 0x01;
        PMIX_STORAGE_PERSISTENCE_NODE = 0x02;
        PMIX_STORAGE_PERSISTENCE_SESSION = 0x04;
        PMIX_STORAGE_PERSISTENCE_JOB = 0x08;
        PMIX_STORAGE_PERSISTENCE_SCRATCH = 0x10;
        PMIX_STORAGE_PERSISTENCE_PROJECT = 0x20;
        PMIX_STORAGE_PERSISTENCE_ARCHIVE = 0x40;
    }

    // `pmix_storage_access_type_t` (a `uint16_t` bit mask).
    u16 {
        PMIX_STORAGE_ACCESS_RD = 0x01;
        PMIX_STORAGE_ACCESS_WR = 0x02;
        PMIX_STORAGE_ACCESS_RDWR = 0x03;
    }

    // `pmix_coord_view_t`.
    pmix_coord_view_t {
        PMIX_COORD_VIEW_UNDEF = 0;
        PMIX_COORD_LOGICAL_VIEW = 1;
        PMIX_COORD_PHYSICAL_VIEW = 2;
    }

    // `pmix_link_state_t`.
    pmix_link_state_t {
        PMIX_LINK_STATE_UNKNOWN = 0;
        PMIX_LINK_DOWN = 1;
        PMIX_LINK_UP = 2;
    }

    // `pmix_bind_envelope_t`.
    pmix_bind_envelope_t {
        PMIX_CPUBIND_PROCESS = 0;
        PMIX_CPUBIND_THREAD = 1;
    }

    // `pmix_locality_t` bit flags.
    pmix_locality_t {
        PMIX_LOCALITY_UNKNOWN = 0x0000;
        PMIX_LOCALITY_SHARE_HWTHREAD = 0x0001;
        PMIX_LOCALITY_SHARE_CORE = 0x0002;
        PMIX_LOCALITY_SHARE_L1CACHE = 0x0004;
        PMIX_LOCALITY_SHARE_L2CACHE = 0x0008;
        PMIX_LOCALITY_SHARE_L3CACHE = 0x0010;
        PMIX_LOCALITY_SHARE_PACKAGE = 0x0020;
        PMIX_LOCALITY_SHARE_NUMA = 0x0040;
        PMIX_LOCALITY_SHARE_NODE = 0x4000;
        PMIX_LOCALITY_NONLOCAL = 0x8000;
    }

    // `pmix_device_type_t` bit flags (MEMORY..NODE are master-only, for resource units).
    pmix_device_type_t {
        PMIX_DEVTYPE_UNKNOWN = 0x0000;
        PMIX_DEVTYPE_BLOCK = 0x0001;
        PMIX_DEVTYPE_GPU = 0x0002;
        PMIX_DEVTYPE_NETWORK = 0x0004;
        PMIX_DEVTYPE_OPENFABRICS = 0x0008;
        PMIX_DEVTYPE_DMA = 0x0010;
        PMIX_DEVTYPE_COPROC = 0x0020;
        PMIX_DEVTYPE_MEMORY = 0x0040;
        PMIX_DEVTYPE_CORE = 0x0080;
        PMIX_DEVTYPE_HWT = 0x0100;
        PMIX_DEVTYPE_CPU = 0x0200;
        PMIX_DEVTYPE_NODE = 0x0400;
    }

    // `pmix_value_cmp_t` (a C enum).
    pmix_value_cmp_t {
        PMIX_EQUAL = 0;
        PMIX_VALUE1_GREATER = 1;
        PMIX_VALUE2_GREATER = 2;
        PMIX_VALUE_TYPE_DIFFERENT = 3;
        PMIX_VALUE_INCOMPATIBLE_OBJECTS = 4;
        PMIX_VALUE_COMPARISON_NOT_AVAIL = 5;
    }

    // `pmix_boolean_t` (a C enum; note TRUE is 0).
    pmix_boolean_t {
        PMIX_BOOL_TRUE = 0;
        PMIX_BOOL_FALSE = 1;
        PMIX_NON_BOOL = 2;
    }

    // `pmix_group_opt_t` (a C enum).
    pmix_group_opt_t {
        PMIX_GROUP_DECLINE = 0;
        PMIX_GROUP_ACCEPT = 1;
    }

    // `pmix_group_operation_t` (a C enum; NONE and CANCEL are master-only).
    pmix_group_operation_t {
        PMIX_GROUP_CONSTRUCT = 0;
        PMIX_GROUP_DESTRUCT = 1;
        PMIX_GROUP_NONE = 2;
        PMIX_GROUP_CANCEL = 3;
    }

    // `pmix_fabric_operation_t` (a C enum).
    pmix_fabric_operation_t {
        PMIX_FABRIC_REQUEST_INFO = 0;
        PMIX_FABRIC_UPDATE_INFO = 1;
    }

    // Version of OpenPMIx whose behaviour this library follows (`pmix_version.h`).
    u32 {
        PMIX_VERSION_MAJOR = 7;
        PMIX_VERSION_MINOR = 0;
        PMIX_VERSION_RELEASE = 0;
        PMIX_NUMERIC_VERSION = 0x0007_0000;
    }

    // `PMIX_CAP_*` capability flags of `pmix_version.h`: only whether a name is defined
    // matters, the values are arbitrary. `PMIX_CAPABILITIES` is the legacy mask.
    c_int {
        PMIX_CAP_BASE = 0;
        PMIX_CAP_LTO = 1;
        PMIX_CAP_INMEMHELP = 2;
        PMIX_CAP_UPCALLS2 = 3;
        PMIX_CAP_STOP_PRGTHRD = 4;
        PMIX_CAP_GET_NUMBER_FN = 5;
        PMIX_CAP_REGEX2 = 6;
        PMIX_CAP_GROUP_FT = 7;
        PMIX_CAP_CLI_QUAL_VALUE = 8;
        PMIX_CAP_IOF_FILE_PATTERN = 9;
        PMIX_CAP_CLI_ORDER = 10;
        PMIX_CAP_TOOL_FINALIZED = 11;
        PMIX_CAP_IOF_DELIVER_LOCAL = 12;
        PMIX_CAP_GROUP_JOIN_COMPLETES = 13;
        PMIX_CAP_IOF_FLOW_CONTROL = 14;
        PMIX_CAP_DEVICE_ENUM = 15;
        PMIX_CAP_MCA_FW_VERSION = 16;
        PMIX_CAP_DATA_DELETE = 17;
        PMIX_CAPABILITIES = 3;
    }
}

/// `PMIx_Get_version()`'s answer. It starts with "OpenPMIx 7" so that callers parsing
/// the major version (as Open MPI does) see a release at least as new as 4.x.
pub const PMIX_VERSION_STRING: &core::ffi::CStr =
    c"OpenPMIx 7.0.0 (pmix-rs, PMIx Standard: 5.0, Stable ABI: 0.0, Provisional ABI: 0.0)";

/// The PMIx Standard version this library implements (as in [`PMIX_VERSION_STRING`]).
pub const PMIX_STD_VERSION: &str = "5.0";
/// The Standard's stable ABI version(s) this library provides (the client's answer to
/// `PMIX_QUERY_STABLE_ABI_VERSION`, as in OpenPMIx; also in [`PMIX_VERSION_STRING`]).
pub const PMIX_STD_ABI_STABLE_VERSION: &str = "0.0";
/// The Standard's provisional ABI version(s) this library provides (the answer to
/// `PMIX_QUERY_PROVISIONAL_ABI_VERSION`).
pub const PMIX_STD_ABI_PROVISIONAL_VERSION: &str = "0.0";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_string_names_the_same_levels() {
        let s = PMIX_VERSION_STRING.to_str().unwrap();
        let release =
            format!("OpenPMIx {PMIX_VERSION_MAJOR}.{PMIX_VERSION_MINOR}.{PMIX_VERSION_RELEASE} ");
        assert!(s.starts_with(&release), "{s}");
        assert!(
            s.contains(&format!("PMIx Standard: {PMIX_STD_VERSION},")),
            "{s}"
        );
        assert!(
            s.contains(&format!("Stable ABI: {PMIX_STD_ABI_STABLE_VERSION},")),
            "{s}"
        );
        assert!(
            s.contains(&format!(
                "Provisional ABI: {PMIX_STD_ABI_PROVISIONAL_VERSION})"
            )),
            "{s}"
        );
    }
}
