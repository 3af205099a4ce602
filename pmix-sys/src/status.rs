//! The status-code table: every `pmix_status_t` constant of OpenPMIx master, declared once
//! with the text `PMIx_Error_string` returns. `gen-header` turns this table into
//! `include/pmix_status_gen.h` (current codes) and `include/pmix_status_deprecated_gen.h`
//! (codes master keeps only in `pmix_deprecated.h`).
//!
//! Rules for editing:
//! * a code is never renumbered and a retired code stays here (reserved), never reused;
//! * `#[deprecated]` marks a row that belongs in `pmix_deprecated.h`; it only sets the
//!   `deprecated` flag of the row (the Rust constant itself stays usable, because the
//!   library still returns some of these codes, e.g. `PMIX_ERR_INVALID_ARG`);
//! * several names may share a value (an old alias next to its replacement); the
//!   current name comes first, so lookups by value find it;
//! * the text is ours: the name without `PMIX_` / `PMIX_ERR_`, with `-` for `_`.
//!
//! After editing, run `make header` and commit the regenerated fragments.

use crate::types::pmix_status_t;

/// One row of the status table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusDef {
    /// C macro name, e.g. `PMIX_ERR_NOT_FOUND`.
    pub name: &'static str,
    /// Numeric value (0 or negative).
    pub code: pmix_status_t,
    /// Text returned by `PMIx_Error_string`.
    pub text: &'static str,
    /// Declared in `pmix_deprecated.h` rather than `pmix_common.h`.
    pub deprecated: bool,
}

macro_rules! status_table {
    ($( $(#[$dep:ident])? $name:ident = $code:expr, $text:expr; )*) => {
        $( pub const $name: pmix_status_t = $code; )*
        /// All rows, in declaration order (current codes first, then deprecated ones).
        pub static STATUS_TABLE: &[StatusDef] = &[
            $( StatusDef { name: stringify!($name), code: $code, text: $text,
                           deprecated: status_table!(@dep $($dep)?) }, )*
        ];
    };
    (@dep deprecated) => { true };
    (@dep) => { false };
}

status_table! {
    PMIX_SUCCESS = 0, "SUCCESS";
    PMIX_ERROR = -1, "ERROR";
    PMIX_ERR_PROC_RESTART = -4, "PROC-RESTART";
    PMIX_ERR_PROC_CHECKPOINT = -5, "PROC-CHECKPOINT";
    PMIX_ERR_PROC_MIGRATE = -6, "PROC-MIGRATE";
    PMIX_ERR_EXISTS = -11, "EXISTS";
    PMIX_ERR_INVALID_CRED = -12, "INVALID-CRED";
    PMIX_ERR_WOULD_BLOCK = -15, "WOULD-BLOCK";
    PMIX_ERR_UNKNOWN_DATA_TYPE = -16, "UNKNOWN-DATA-TYPE";
    PMIX_ERR_TYPE_MISMATCH = -18, "TYPE-MISMATCH";
    PMIX_ERR_UNPACK_INADEQUATE_SPACE = -19, "UNPACK-INADEQUATE-SPACE";
    PMIX_ERR_UNPACK_FAILURE = -20, "UNPACK-FAILURE";
    PMIX_ERR_PACK_FAILURE = -21, "PACK-FAILURE";
    PMIX_ERR_NO_PERMISSIONS = -23, "NO-PERMISSIONS";
    PMIX_ERR_TIMEOUT = -24, "TIMEOUT";
    PMIX_ERR_UNREACH = -25, "UNREACH";
    PMIX_ERR_BAD_PARAM = -27, "BAD-PARAM";
    PMIX_ERR_RESOURCE_BUSY = -28, "RESOURCE-BUSY";
    PMIX_ERR_OUT_OF_RESOURCE = -29, "OUT-OF-RESOURCE";
    PMIX_ERR_INIT = -31, "INIT";
    PMIX_ERR_NOMEM = -32, "NOMEM";
    PMIX_ERR_NOT_FOUND = -46, "NOT-FOUND";
    PMIX_ERR_NOT_SUPPORTED = -47, "NOT-SUPPORTED";
    PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED = -59, "PARAM-VALUE-NOT-SUPPORTED";
    PMIX_ERR_COMM_FAILURE = -49, "COMM-FAILURE";
    PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER = -50, "UNPACK-READ-PAST-END-OF-BUFFER";
    PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES = -51, "CONFLICTING-CLEANUP-DIRECTIVES";
    PMIX_ERR_PARTIAL_SUCCESS = -52, "PARTIAL-SUCCESS";
    PMIX_ERR_DUPLICATE_KEY = -53, "DUPLICATE-KEY";
    PMIX_ERR_EMPTY = -60, "EMPTY";
    PMIX_ERR_LOST_CONNECTION = -61, "LOST-CONNECTION";
    PMIX_ERR_EXISTS_OUTSIDE_SCOPE = -62, "EXISTS-OUTSIDE-SCOPE";
    PMIX_ERR_NOT_A_MEMBER = -66, "NOT-A-MEMBER";
    PMIX_ERR_NOT_AVAILABLE = -64, "NOT-AVAILABLE";
    PMIX_PROCESS_SET_DEFINE = -55, "PROCESS-SET-DEFINE";
    PMIX_PROCESS_SET_DELETE = -56, "PROCESS-SET-DELETE";
    PMIX_DEBUGGER_RELEASE = -3, "DEBUGGER-RELEASE";
    PMIX_READY_FOR_DEBUG = -58, "READY-FOR-DEBUG";
    PMIX_JCTRL_CHECKPOINT = -106, "JCTRL-CHECKPOINT";
    PMIX_JCTRL_CHECKPOINT_COMPLETE = -107, "JCTRL-CHECKPOINT-COMPLETE";
    PMIX_JCTRL_PREEMPT_ALERT = -108, "JCTRL-PREEMPT-ALERT";
    PMIX_MONITOR_HEARTBEAT_ALERT = -109, "MONITOR-HEARTBEAT-ALERT";
    PMIX_MONITOR_FILE_ALERT = -110, "MONITOR-FILE-ALERT";
    PMIX_PROC_TERMINATED = -111, "PROC-TERMINATED";
    PMIX_MONITOR_RESUSAGE_UPDATE = -114, "MONITOR-RESUSAGE-UPDATE";
    PMIX_ERR_EVENT_REGISTRATION = -144, "EVENT-REGISTRATION";
    PMIX_MODEL_DECLARED = -147, "MODEL-DECLARED";
    PMIX_MODEL_RESOURCES = -151, "MODEL-RESOURCES";
    PMIX_OPENMP_PARALLEL_ENTERED = -152, "OPENMP-PARALLEL-ENTERED";
    PMIX_OPENMP_PARALLEL_EXITED = -153, "OPENMP-PARALLEL-EXITED";
    PMIX_LAUNCHER_READY = -155, "LAUNCHER-READY";
    PMIX_OPERATION_IN_PROGRESS = -156, "OPERATION-IN-PROGRESS";
    PMIX_OPERATION_SUCCEEDED = -157, "OPERATION-SUCCEEDED";
    PMIX_ERR_INVALID_OPERATION = -158, "INVALID-OPERATION";
    PMIX_GROUP_INVITED = -159, "GROUP-INVITED";
    PMIX_GROUP_LEFT = -160, "GROUP-LEFT";
    PMIX_GROUP_INVITE_ACCEPTED = -161, "GROUP-INVITE-ACCEPTED";
    PMIX_GROUP_INVITE_DECLINED = -162, "GROUP-INVITE-DECLINED";
    PMIX_GROUP_INVITE_FAILED = -163, "GROUP-INVITE-FAILED";
    PMIX_GROUP_MEMBERSHIP_UPDATE = -164, "GROUP-MEMBERSHIP-UPDATE";
    PMIX_GROUP_CONSTRUCT_ABORT = -165, "GROUP-CONSTRUCT-ABORT";
    PMIX_GROUP_CONSTRUCT_COMPLETE = -166, "GROUP-CONSTRUCT-COMPLETE";
    PMIX_GROUP_LEADER_SELECTED = -167, "GROUP-LEADER-SELECTED";
    PMIX_GROUP_LEADER_FAILED = -168, "GROUP-LEADER-FAILED";
    PMIX_GROUP_MEMBER_FAILED = -170, "GROUP-MEMBER-FAILED";
    PMIX_ERR_REPEAT_ATTR_REGISTRATION = -171, "REPEAT-ATTR-REGISTRATION";
    PMIX_ERR_IOF_FAILURE = -172, "IOF-FAILURE";
    PMIX_ERR_IOF_COMPLETE = -173, "IOF-COMPLETE";
    PMIX_ERR_IOF_XOFF = -405, "IOF-XOFF";
    PMIX_LAUNCH_COMPLETE = -174, "LAUNCH-COMPLETE";
    PMIX_FABRIC_UPDATED = -175, "FABRIC-UPDATED";
    PMIX_FABRIC_UPDATE_PENDING = -176, "FABRIC-UPDATE-PENDING";
    PMIX_FABRIC_UPDATE_ENDPOINTS = -113, "FABRIC-UPDATE-ENDPOINTS";
    PMIX_ERR_JOB_APP_NOT_EXECUTABLE = -177, "JOB-APP-NOT-EXECUTABLE";
    PMIX_ERR_JOB_NO_EXE_SPECIFIED = -178, "JOB-NO-EXE-SPECIFIED";
    PMIX_ERR_JOB_FAILED_TO_MAP = -179, "JOB-FAILED-TO-MAP";
    PMIX_ERR_JOB_CANCELED = -180, "JOB-CANCELED";
    PMIX_ERR_JOB_FAILED_TO_LAUNCH = -181, "JOB-FAILED-TO-LAUNCH";
    PMIX_ERR_JOB_ABORTED = -182, "JOB-ABORTED";
    PMIX_ERR_JOB_KILLED_BY_CMD = -183, "JOB-KILLED-BY-CMD";
    PMIX_ERR_JOB_ABORTED_BY_SIG = -184, "JOB-ABORTED-BY-SIG";
    PMIX_ERR_JOB_TERM_WO_SYNC = -185, "JOB-TERM-WO-SYNC";
    PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED = -186, "JOB-SENSOR-BOUND-EXCEEDED";
    PMIX_ERR_JOB_NON_ZERO_TERM = -187, "JOB-NON-ZERO-TERM";
    PMIX_ERR_JOB_ALLOC_FAILED = -188, "JOB-ALLOC-FAILED";
    PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT = -189, "JOB-ABORTED-BY-SYS-EVENT";
    PMIX_ERR_JOB_EXE_NOT_FOUND = -190, "JOB-EXE-NOT-FOUND";
    PMIX_ERR_JOB_WDIR_NOT_FOUND = -233, "JOB-WDIR-NOT-FOUND";
    PMIX_ERR_JOB_INSUFFICIENT_RESOURCES = -234, "JOB-INSUFFICIENT-RESOURCES";
    PMIX_ERR_JOB_SYS_OP_FAILED = -235, "JOB-SYS-OP-FAILED";
    PMIX_ERR_DVM_MOD = -196, "DVM-MOD";
    PMIX_EVENT_JOB_START = -191, "EVENT-JOB-START";
    PMIX_EVENT_JOB_END = -145, "EVENT-JOB-END";
    PMIX_EVENT_SESSION_START = -192, "EVENT-SESSION-START";
    PMIX_EVENT_SESSION_END = -193, "EVENT-SESSION-END";
    PMIX_ALLOC_TIMEOUT_WARNING = -194, "ALLOC-TIMEOUT-WARNING";
    PMIX_DVM_IS_READY = -195, "DVM-IS-READY";
    PMIX_ERR_PROC_REQUESTED_ABORT = -8, "PROC-REQUESTED-ABORT";
    PMIX_ERR_PROC_TERM_WO_SYNC = -200, "PROC-TERM-WO-SYNC";
    PMIX_EVENT_PROC_TERMINATED = -201, "EVENT-PROC-TERMINATED";
    PMIX_ERR_PROC_KILLED_BY_CMD = -400, "PROC-KILLED-BY-CMD";
    PMIX_ERR_PROC_FAILED_TO_START = -401, "PROC-FAILED-TO-START";
    PMIX_ERR_PROC_ABORTED_BY_SIG = -402, "PROC-ABORTED-BY-SIG";
    PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED = -403, "PROC-SENSOR-BOUND-EXCEEDED";
    PMIX_ERR_EXIT_NONZERO_TERM = -404, "EXIT-NONZERO-TERM";
    PMIX_EVENT_SYS_BASE = -230, "EVENT-SYS-BASE";
    PMIX_EVENT_NODE_DOWN = -231, "EVENT-NODE-DOWN";
    PMIX_EVENT_NODE_OFFLINE = -232, "EVENT-NODE-OFFLINE";
    PMIX_EVENT_SYS_OTHER = -330, "EVENT-SYS-OTHER";
    PMIX_EVENT_NO_ACTION_TAKEN = -331, "EVENT-NO-ACTION-TAKEN";
    PMIX_EVENT_PARTIAL_ACTION_TAKEN = -332, "EVENT-PARTIAL-ACTION-TAKEN";
    PMIX_EVENT_ACTION_DEFERRED = -333, "EVENT-ACTION-DEFERRED";
    PMIX_EVENT_ACTION_COMPLETE = -334, "EVENT-ACTION-COMPLETE";
    PMIX_ERR_LOST_PRECISION = -202, "LOST-PRECISION";
    PMIX_ERR_CHANGE_SIGN = -203, "CHANGE-SIGN";
    PMIX_EXTERNAL_ERR_BASE = -3000, "EXTERNAL-ERR-BASE";
    #[deprecated] PMIX_ERR_SILENT = -2, "SILENT";
    #[deprecated] PMIX_ERR_DEBUGGER_RELEASE = -3, "DEBUGGER-RELEASE";
    #[deprecated] PMIX_ERR_PROC_ABORTED = -7, "PROC-ABORTED";
    #[deprecated] PMIX_ERR_PROC_ABORTING = -9, "PROC-ABORTING";
    #[deprecated] PMIX_ERR_SERVER_FAILED_REQUEST = -10, "SERVER-FAILED-REQUEST";
    #[deprecated] PMIX_EXISTS = -11, "EXISTS";
    #[deprecated] PMIX_ERR_HANDSHAKE_FAILED = -13, "HANDSHAKE-FAILED";
    #[deprecated] PMIX_ERR_READY_FOR_HANDSHAKE = -14, "READY-FOR-HANDSHAKE";
    #[deprecated] PMIX_ERR_PROC_ENTRY_NOT_FOUND = -17, "PROC-ENTRY-NOT-FOUND";
    #[deprecated] PMIX_ERR_PACK_MISMATCH = -22, "PACK-MISMATCH";
    #[deprecated] PMIX_ERR_IN_ERRNO = -26, "IN-ERRNO";
    #[deprecated] PMIX_ERR_DATA_VALUE_NOT_FOUND = -30, "DATA-VALUE-NOT-FOUND";
    #[deprecated] PMIX_ERR_INVALID_ARG = -33, "INVALID-ARG";
    #[deprecated] PMIX_ERR_INVALID_KEY = -34, "INVALID-KEY";
    #[deprecated] PMIX_ERR_INVALID_KEY_LENGTH = -35, "INVALID-KEY-LENGTH";
    #[deprecated] PMIX_ERR_INVALID_VAL = -36, "INVALID-VAL";
    #[deprecated] PMIX_ERR_INVALID_VAL_LENGTH = -37, "INVALID-VAL-LENGTH";
    #[deprecated] PMIX_ERR_INVALID_LENGTH = -38, "INVALID-LENGTH";
    #[deprecated] PMIX_ERR_INVALID_NUM_ARGS = -39, "INVALID-NUM-ARGS";
    #[deprecated] PMIX_ERR_INVALID_ARGS = -40, "INVALID-ARGS";
    #[deprecated] PMIX_ERR_INVALID_NUM_PARSED = -41, "INVALID-NUM-PARSED";
    #[deprecated] PMIX_ERR_INVALID_KEYVALP = -42, "INVALID-KEYVALP";
    #[deprecated] PMIX_ERR_INVALID_SIZE = -43, "INVALID-SIZE";
    #[deprecated] PMIX_ERR_INVALID_NAMESPACE = -44, "INVALID-NAMESPACE";
    #[deprecated] PMIX_ERR_SERVER_NOT_AVAIL = -45, "SERVER-NOT-AVAIL";
    #[deprecated] PMIX_ERR_NOT_IMPLEMENTED = -48, "NOT-IMPLEMENTED";
    #[deprecated] PMIX_DEBUG_WAITING_FOR_NOTIFY = -58, "DEBUG-WAITING-FOR-NOTIFY";
    #[deprecated] PMIX_ERR_FATAL = -63, "FATAL";
    #[deprecated] PMIX_ERR_VALUE_OUT_OF_BOUNDS = -65, "VALUE-OUT-OF-BOUNDS";
    #[deprecated] PMIX_ERR_FILE_OPEN_FAILURE = -67, "FILE-OPEN-FAILURE";
    #[deprecated] PMIX_ERR_FILE_READ_FAILURE = -68, "FILE-READ-FAILURE";
    #[deprecated] PMIX_ERR_FILE_WRITE_FAILURE = -69, "FILE-WRITE-FAILURE";
    #[deprecated] PMIX_ERR_SYS_LIMITS_PIPES = -70, "SYS-LIMITS-PIPES";
    #[deprecated] PMIX_ERR_SYS_LIMITS_CHILDREN = -71, "SYS-LIMITS-CHILDREN";
    #[deprecated] PMIX_ERR_PIPE_SETUP_FAILURE = -72, "PIPE-SETUP-FAILURE";
    #[deprecated] PMIX_ERR_EXE_NOT_ACCESSIBLE = -73, "EXE-NOT-ACCESSIBLE";
    #[deprecated] PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE = -74, "JOB-WDIR-NOT-ACCESSIBLE";
    #[deprecated] PMIX_ERR_SYS_LIMITS_FILES = -75, "SYS-LIMITS-FILES";
    #[deprecated] PMIX_ERR_LOST_CONNECTION_TO_SERVER = -101, "LOST-CONNECTION-TO-SERVER";
    #[deprecated] PMIX_ERR_LOST_PEER_CONNECTION = -102, "LOST-PEER-CONNECTION";
    #[deprecated] PMIX_ERR_LOST_CONNECTION_TO_CLIENT = -103, "LOST-CONNECTION-TO-CLIENT";
    #[deprecated] PMIX_QUERY_PARTIAL_SUCCESS = -104, "QUERY-PARTIAL-SUCCESS";
    #[deprecated] PMIX_NOTIFY_ALLOC_COMPLETE = -105, "NOTIFY-ALLOC-COMPLETE";
    #[deprecated] PMIX_ERR_INVALID_TERMINATION = -112, "INVALID-TERMINATION";
    #[deprecated] PMIX_ERR_JOB_TERMINATED = -145, "JOB-TERMINATED";
    #[deprecated] PMIX_ERR_UPDATE_ENDPOINTS = -146, "UPDATE-ENDPOINTS";
    #[deprecated] PMIX_GDS_ACTION_COMPLETE = -148, "GDS-ACTION-COMPLETE";
    #[deprecated] PMIX_PROC_HAS_CONNECTED = -149, "PROC-HAS-CONNECTED";
    #[deprecated] PMIX_CONNECT_REQUESTED = -150, "CONNECT-REQUESTED";
    #[deprecated] PMIX_GROUP_CONTEXT_ID_ASSIGNED = -169, "GROUP-CONTEXT-ID-ASSIGNED";
    #[deprecated] PMIX_ERR_NODE_DOWN = -231, "NODE-DOWN";
    #[deprecated] PMIX_ERR_NODE_OFFLINE = -232, "NODE-OFFLINE";
    #[deprecated] PMIX_ERR_SYS_BASE = -230, "SYS-BASE";
    #[deprecated] PMIX_ERR_SYS_OTHER = -330, "SYS-OTHER";
}

/// Text for a status code, as `PMIx_Error_string` returns it (`None` for an unknown code).
pub fn status_text(code: pmix_status_t) -> Option<&'static str> {
    STATUS_TABLE.iter().find(|s| s.code == code).map(|s| s.text)
}

/// Look a status up by its C name (`"PMIX_ERR_NOT_FOUND"`) or by its text (`"NOT-FOUND"`),
/// ignoring ASCII case, as `PMIx_Error_code` needs.
pub fn status_by_name(name: &str) -> Option<&'static StatusDef> {
    STATUS_TABLE
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name) || s.text.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_codes_not_positive() {
        let mut names: Vec<_> = STATUS_TABLE.iter().map(|s| s.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len(), "duplicate status name");
        assert!(STATUS_TABLE.iter().all(|s| s.code <= 0));
        assert_eq!(STATUS_TABLE.len(), 170);
    }

    #[test]
    fn current_name_wins_over_deprecated_alias() {
        // -145 is both PMIX_EVENT_JOB_END and the deprecated PMIX_ERR_JOB_TERMINATED.
        assert_eq!(status_text(PMIX_EVENT_JOB_END), Some("EVENT-JOB-END"));
        assert_eq!(status_text(PMIX_ERR_NOT_FOUND), Some("NOT-FOUND"));
        assert_eq!(status_text(1), None);
    }

    #[test]
    fn lookup_by_name_or_text() {
        assert_eq!(
            status_by_name("pmix_err_not_found").map(|s| s.code),
            Some(-46)
        );
        assert_eq!(status_by_name("NOT-SUPPORTED").map(|s| s.code), Some(-47));
        assert!(status_by_name("NO-SUCH-THING").is_none());
    }
}
