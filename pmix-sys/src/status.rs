//! The status-code table: every `pmix_status_t` constant, declared once with the text
//! `PMIx_Error_string` returns. `gen-header` turns this table into `include/pmix_status_gen.h`.
//!
//! A retired code stays here (reserved), never reused.

use crate::types::pmix_status_t;

/// One row of the status table.
#[derive(Debug, Clone, Copy)]
pub struct StatusDef {
    pub name: &'static str,
    pub code: pmix_status_t,
    /// Text returned by `PMIx_Error_string`.
    pub text: &'static str,
    /// Declared in `pmix_deprecated.h` rather than `pmix_common.h`.
    pub deprecated: bool,
}

macro_rules! status_table {
    ($( $(#[$dep:ident])? $name:ident = $code:expr, $text:expr; )*) => {
        $( pub const $name: pmix_status_t = $code; )*
        /// All rows, in declaration order.
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
    PMIX_ERR_EXISTS = -11, "EXISTS";
    PMIX_ERR_INVALID_CRED = -12, "INVALID CREDENTIAL";
    PMIX_ERR_WOULD_BLOCK = -15, "WOULD BLOCK";
    PMIX_ERR_UNKNOWN_DATA_TYPE = -16, "UNKNOWN DATA TYPE";
    PMIX_ERR_TYPE_MISMATCH = -18, "TYPE MISMATCH";
    PMIX_ERR_UNPACK_INADEQUATE_SPACE = -19, "UNPACK-INADEQUATE SPACE";
    PMIX_ERR_UNPACK_FAILURE = -20, "UNPACK-FAILURE";
    PMIX_ERR_PACK_FAILURE = -21, "PACK-FAILURE";
    PMIX_ERR_NO_PERMISSIONS = -23, "NO-PERMISSIONS";
    PMIX_ERR_TIMEOUT = -24, "TIMEOUT";
    PMIX_ERR_UNREACH = -25, "UNREACHABLE";
    PMIX_ERR_BAD_PARAM = -27, "BAD PARAM";
    PMIX_ERR_RESOURCE_BUSY = -28, "RESOURCE BUSY";
    PMIX_ERR_OUT_OF_RESOURCE = -29, "OUT-OF-RESOURCE";
    PMIX_ERR_INIT = -31, "INIT";
    PMIX_ERR_NOMEM = -32, "NO MEMORY";
    PMIX_ERR_NOT_FOUND = -46, "NOT-FOUND";
    PMIX_ERR_NOT_SUPPORTED = -47, "NOT-SUPPORTED";
    PMIX_ERR_COMM_FAILURE = -49, "COMMUNICATION-FAILURE";
    PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER = -50, "UNPACK-PAST-END";
    PMIX_ERR_PARTIAL_SUCCESS = -52, "PARTIAL-SUCCESS";
    PMIX_ERR_DUPLICATE_KEY = -53, "DUPLICATE-KEY";
    PMIX_ERR_EMPTY = -60, "EMPTY";
    PMIX_ERR_LOST_CONNECTION = -61, "LOST-CONNECTION";
    PMIX_ERR_EXISTS_OUTSIDE_SCOPE = -62, "EXISTS-OUTSIDE-SCOPE";
    PMIX_ERR_NOT_A_MEMBER = -66, "NOT-A-MEMBER";
    #[deprecated] PMIX_ERR_INVALID_ARG = -33, "INVALID-ARG";
    #[deprecated] PMIX_ERR_NOT_AVAILABLE = -64, "NOT-AVAILABLE";
    PMIX_ERR_INVALID_OPERATION = -158, "INVALID-OPERATION";
    PMIX_OPERATION_IN_PROGRESS = -156, "OPERATION-IN-PROGRESS";
    PMIX_OPERATION_SUCCEEDED = -157, "OPERATION-SUCCEEDED";
    PMIX_ERR_PROC_TERM_WO_SYNC = -200, "PROC-TERMINATED-WITHOUT-SYNC";
    PMIX_ERR_JOB_TERM_WO_SYNC = -185, "JOB-TERMINATED-WITHOUT-SYNC";
    PMIX_EVENT_JOB_END = -145, "EVENT-JOB-END";
    PMIX_EVENT_PROC_TERMINATED = -201, "EVENT-PROC-TERMINATED";
    PMIX_EXTERNAL_ERR_BASE = -3000, "EXTERNAL-ERROR-BASE";
}

/// Text for a status code, as `PMIx_Error_string` returns it.
pub fn status_text(code: pmix_status_t) -> Option<&'static str> {
    STATUS_TABLE.iter().find(|s| s.code == code).map(|s| s.text)
}
