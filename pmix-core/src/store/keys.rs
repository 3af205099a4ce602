//! The reserved keys the engine itself interprets, as short aliases of the attribute
//! table's constants (`pmix_sys::attrs::keys`), which stays the one place where a key
//! string is declared.

use pmix_sys::attrs::keys as k;

/// `PMIX_PROC_DATA`
pub const PROC_DATA: &str = k::PMIX_PROC_DATA;
/// `PMIX_APP_INFO_ARRAY`
pub const APP_INFO_ARRAY: &str = k::PMIX_APP_INFO_ARRAY;
/// `PMIX_NODE_INFO_ARRAY`
pub const NODE_INFO_ARRAY: &str = k::PMIX_NODE_INFO_ARRAY;
/// `PMIX_JOB_INFO_ARRAY`
pub const JOB_INFO_ARRAY: &str = k::PMIX_JOB_INFO_ARRAY;
/// `PMIX_SESSION_INFO_ARRAY`
pub const SESSION_INFO_ARRAY: &str = k::PMIX_SESSION_INFO_ARRAY;
/// `PMIX_NODE_MAP`
pub const NODE_MAP: &str = k::PMIX_NODE_MAP;
/// `PMIX_PROC_MAP`
pub const PROC_MAP: &str = k::PMIX_PROC_MAP;
/// `PMIX_LOCAL_PEERS`
pub const LOCAL_PEERS: &str = k::PMIX_LOCAL_PEERS;
/// `PMIX_NODE_LIST`
pub const NODE_LIST: &str = k::PMIX_NODE_LIST;
/// `PMIX_HOSTNAME`
pub const HOSTNAME: &str = k::PMIX_HOSTNAME;
/// `PMIX_NODEID`
pub const NODEID: &str = k::PMIX_NODEID;
/// `PMIX_LOCAL_SIZE`
pub const LOCAL_SIZE: &str = k::PMIX_LOCAL_SIZE;
/// `PMIX_JOB_SIZE`
pub const JOB_SIZE: &str = k::PMIX_JOB_SIZE;
/// `PMIX_APPNUM`
pub const APPNUM: &str = k::PMIX_APPNUM;
/// `PMIX_APP_SIZE`
pub const APP_SIZE: &str = k::PMIX_APP_SIZE;
/// `PMIX_NODE_SIZE`
pub const NODE_SIZE: &str = k::PMIX_NODE_SIZE;
/// `PMIX_NUM_NODES`
pub const NUM_NODES: &str = k::PMIX_NUM_NODES;
/// `PMIX_RANK`
pub const RANK: &str = k::PMIX_RANK;
/// `PMIX_PROCID`
pub const PROCID: &str = k::PMIX_PROCID;
/// `PMIX_LOCAL_RANK`
pub const LOCAL_RANK: &str = k::PMIX_LOCAL_RANK;
/// `PMIX_NODE_RANK`
pub const NODE_RANK: &str = k::PMIX_NODE_RANK;
/// `PMIX_LOCALLDR`
pub const LOCALLDR: &str = k::PMIX_LOCALLDR;
/// `PMIX_LOCAL_PROCS`
pub const LOCAL_PROCS: &str = k::PMIX_LOCAL_PROCS;
/// `PMIX_TIMEOUT`
pub const TIMEOUT: &str = k::PMIX_TIMEOUT;
/// `PMIX_COLLECT_DATA`
pub const COLLECT_DATA: &str = k::PMIX_COLLECT_DATA;
/// `PMIX_OPTIONAL`
pub const OPTIONAL: &str = k::PMIX_OPTIONAL;
/// `PMIX_IMMEDIATE`
pub const IMMEDIATE: &str = k::PMIX_IMMEDIATE;
/// `PMIX_GET_REFRESH_CACHE`
pub const GET_REFRESH_CACHE: &str = k::PMIX_GET_REFRESH_CACHE;
/// `PMIX_DATA_SCOPE`
pub const DATA_SCOPE: &str = k::PMIX_DATA_SCOPE;
/// `PMIX_GET_POINTER_VALUES`
pub const GET_POINTER_VALUES: &str = k::PMIX_GET_POINTER_VALUES;
/// `PMIX_GET_STATIC_VALUES`
pub const GET_STATIC_VALUES: &str = k::PMIX_GET_STATIC_VALUES;
/// `PMIX_SESSION_INFO`
pub const SESSION_INFO: &str = k::PMIX_SESSION_INFO;
/// `PMIX_JOB_INFO`
pub const JOB_INFO: &str = k::PMIX_JOB_INFO;
/// `PMIX_APP_INFO`
pub const APP_INFO: &str = k::PMIX_APP_INFO;
/// `PMIX_NODE_INFO`
pub const NODE_INFO: &str = k::PMIX_NODE_INFO;
/// `PMIX_VERSION_NUMERIC`
pub const VERSION_NUMERIC: &str = k::PMIX_VERSION_NUMERIC;
/// `PMIX_SERVER_NSPACE`
pub const SERVER_NSPACE: &str = k::PMIX_SERVER_NSPACE;
/// `PMIX_SERVER_RANK`
pub const SERVER_RANK: &str = k::PMIX_SERVER_RANK;
/// `PMIX_SERVER_TMPDIR`
pub const SERVER_TMPDIR: &str = k::PMIX_SERVER_TMPDIR;
/// `PMIX_SYSTEM_TMPDIR`
pub const SYSTEM_TMPDIR: &str = k::PMIX_SYSTEM_TMPDIR;
/// `PMIX_SERVER_HOSTNAME`
pub const SERVER_HOSTNAME: &str = k::PMIX_SERVER_HOSTNAME;
/// `PMIX_REQUIRED_KEY`
pub const REQUIRED_KEY: &str = k::PMIX_REQUIRED_KEY;
/// `PMIX_EVENT_HDLR_NAME`
pub const EVENT_HDLR_NAME: &str = k::PMIX_EVENT_HDLR_NAME;
/// `PMIX_EVENT_AFFECTED_PROC`
pub const EVENT_AFFECTED_PROC: &str = k::PMIX_EVENT_AFFECTED_PROC;
/// `PMIX_EVENT_TEXT_MESSAGE`
pub const EVENT_TEXT_MESSAGE: &str = k::PMIX_EVENT_TEXT_MESSAGE;
/// `PMIX_EXIT_CODE`
pub const EXIT_CODE: &str = k::PMIX_EXIT_CODE;
/// `PMIX_JOB_TERM_STATUS`
pub const JOB_TERM_STATUS: &str = k::PMIX_JOB_TERM_STATUS;
/// `PMIX_REGISTER_NODATA`
pub const REGISTER_NODATA: &str = k::PMIX_REGISTER_NODATA;
/// `PMIX_NSPACE`
pub const NSPACE: &str = k::PMIX_NSPACE;
/// `PMIX_SINGLETON`
pub const SINGLETON: &str = k::PMIX_SINGLETON;
/// `PMIX_SERVER_URI`
pub const SERVER_URI: &str = k::PMIX_SERVER_URI;
