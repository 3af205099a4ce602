//! The attribute table: every `PMIX_*` string macro of OpenPMIx master (attribute keys and
//! the few environment-variable names), declared once with its key string and the value
//! type the documentation gives it. `gen-header` turns it into `include/pmix_attrs_gen.h`
//! (current keys) and `include/pmix_attrs_deprecated_gen.h` (keys master keeps only in
//! `pmix_deprecated.h`).
//!
//! Key strings are wire-visible facts. Three of them changed value in master and carry
//! master's value here: `PMIX_QUERY_SUPPORTED_QUALIFIERS` ("pmix.qry.supqual"),
//! `PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT` ("pmix.jctrl.ckpttime") and
//! `PMIX_FABRIC_DEVICE_COORDINATES` ("pmix.fabdev.coord"). Several names may share a key
//! string; lookups by key return the first row.
//!
//! After editing, run `make header` and commit the regenerated fragments.

use crate::consts::*;
use crate::types::pmix_data_type_t;

/// One row of the attribute table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrDef {
    /// C macro name, e.g. `PMIX_JOB_SIZE`.
    pub name: &'static str,
    /// Key string, e.g. `"pmix.job.size"`.
    pub key: &'static str,
    /// Documented value type (`PMIX_UNDEF` where the documentation gives none or it varies).
    pub dtype: pmix_data_type_t,
    /// Declared in `pmix_deprecated.h` rather than `pmix_common.h`.
    pub deprecated: bool,
}

macro_rules! attr_table {
    ($( $(#[$dep:ident])? $name:ident = $key:expr, $ty:ident; )*) => {
        /// Key strings as Rust constants (`&str`, no NUL).
        pub mod keys {
            $( pub const $name: &str = $key; )*
        }
        /// All rows, in declaration order (current keys first, then deprecated ones).
        pub static ATTR_TABLE: &[AttrDef] = &[
            $( AttrDef { name: stringify!($name), key: $key, dtype: $ty,
                         deprecated: attr_table!(@dep $($dep)?) }, )*
        ];
    };
    (@dep deprecated) => { true };
    (@dep) => { false };
}

attr_table! {
    PMIX_LAUNCHER_RNDZ_URI = "PMIX_LAUNCHER_RNDZ_URI", PMIX_UNDEF;
    PMIX_LAUNCHER_RNDZ_FILE = "PMIX_LAUNCHER_RNDZ_FILE", PMIX_UNDEF;
    PMIX_KEEPALIVE_PIPE = "PMIX_KEEPALIVE_PIPE", PMIX_UNDEF;
    PMIX_ATTR_UNDEF = "pmix.undef", PMIX_UNDEF;
    PMIX_EXTERNAL_PROGRESS = "pmix.evext", PMIX_BOOL;
    PMIX_PROGRESS_THREAD_FLUSH = "pmix.evflush", PMIX_BOOL;
    PMIX_PROGRESS_THREAD_NAME = "pmix.pthrdnm", PMIX_STRING;
    PMIX_EXTERNAL_AUX_EVENT_BASE = "pmix.evaux", PMIX_POINTER;
    PMIX_SERVER_TOOL_SUPPORT = "pmix.srvr.tool", PMIX_BOOL;
    PMIX_SERVER_ALLOW_FOREIGN_TOOLS = "pmix.srvr.ftools", PMIX_BOOL;
    PMIX_ALLOW_CLIENT_CLONES = "pmix.allow.clones", PMIX_BOOL;
    PMIX_SERVER_REMOTE_CONNECTIONS = "pmix.srvr.remote", PMIX_BOOL;
    PMIX_SERVER_SYSTEM_SUPPORT = "pmix.srvr.sys", PMIX_BOOL;
    PMIX_SERVER_SESSION_SUPPORT = "pmix.srvr.sess", PMIX_BOOL;
    PMIX_SERVER_TMPDIR = "pmix.srvr.tmpdir", PMIX_STRING;
    PMIX_SYSTEM_TMPDIR = "pmix.sys.tmpdir", PMIX_STRING;
    PMIX_SERVER_SHARE_TOPOLOGY = "pmix.srvr.share", PMIX_BOOL;
    PMIX_SERVER_ENABLE_MONITORING = "pmix.srv.monitor", PMIX_BOOL;
    PMIX_SERVER_NSPACE = "pmix.srv.nspace", PMIX_STRING;
    PMIX_SERVER_RANK = "pmix.srv.rank", PMIX_PROC_RANK;
    PMIX_SERVER_GATEWAY = "pmix.srv.gway", PMIX_BOOL;
    PMIX_SERVER_SYS_CONTROLLER = "pmix.srv.ctrlr", PMIX_BOOL;
    PMIX_SERVER_SCHEDULER = "pmix.srv.sched", PMIX_BOOL;
    PMIX_SERVER_START_TIME = "pmix.srv.strtime", PMIX_STRING;
    PMIX_HOMOGENEOUS_SYSTEM = "pmix.homo", PMIX_BOOL;
    PMIX_SINGLETON = "pmix.singleton", PMIX_STRING;
    PMIX_BIND_PROGRESS_THREAD = "pmix.bind.pt", PMIX_STRING;
    PMIX_BIND_REQUIRED = "pmix.bind.reqd", PMIX_BOOL;
    PMIX_TOOL_NSPACE = "pmix.tool.nspace", PMIX_STRING;
    PMIX_TOOL_RANK = "pmix.tool.rank", PMIX_UINT32;
    PMIX_SERVER_PIDINFO = "pmix.srvr.pidinfo", PMIX_PID;
    PMIX_CONNECT_TO_SYSTEM = "pmix.cnct.sys", PMIX_BOOL;
    PMIX_CONNECT_SYSTEM_FIRST = "pmix.cnct.sys.first", PMIX_BOOL;
    PMIX_CONNECT_TO_SCHEDULER = "pmix.cnct.sched", PMIX_BOOL;
    PMIX_CONNECT_TO_SYS_CONTROLLER = "pmix.cnct.ctrlr", PMIX_BOOL;
    PMIX_CONNECTION_ORDER = "pmix.cnct.ord", PMIX_STRING;
    PMIX_SERVER_URI = "pmix.srvr.uri", PMIX_STRING;
    PMIX_MYSERVER_URI = "pmix.mysrvr.uri", PMIX_STRING;
    PMIX_SERVER_HOSTNAME = "pmix.srvr.host", PMIX_STRING;
    PMIX_CONNECT_MAX_RETRIES = "pmix.tool.mretries", PMIX_UINT32;
    PMIX_CONNECT_RETRY_DELAY = "pmix.tool.retry", PMIX_UINT32;
    PMIX_TOOL_DO_NOT_CONNECT = "pmix.tool.nocon", PMIX_BOOL;
    PMIX_TOOL_CONNECT_OPTIONAL = "pmix.tool.conopt", PMIX_BOOL;
    PMIX_LAUNCHER = "pmix.tool.launcher", PMIX_BOOL;
    PMIX_LAUNCHER_RENDEZVOUS_FILE = "pmix.tool.lncrnd", PMIX_STRING;
    PMIX_TOOL_ATTACHMENT_FILE = "pmix.tool.attach", PMIX_STRING;
    PMIX_PRIMARY_SERVER = "pmix.pri.srvr", PMIX_BOOL;
    PMIX_NOHUP = "pmix.nohup", PMIX_BOOL;
    PMIX_LAUNCHER_DAEMON = "pmix.lnch.dmn", PMIX_STRING;
    PMIX_EXEC_AGENT = "pmix.exec.agnt", PMIX_STRING;
    PMIX_LAUNCH_DIRECTIVES = "pmix.lnch.dirs", PMIX_DATA_ARRAY;
    PMIX_REALUID = "pmix.ruid", PMIX_UINT32;
    PMIX_USERID = "pmix.euid", PMIX_UINT32;
    PMIX_REALGID = "pmix.rgid", PMIX_UINT32;
    PMIX_GRPID = "pmix.egid", PMIX_UINT32;
    PMIX_REQUESTOR = "pmix.requestor", PMIX_PROC;
    PMIX_VERSION_INFO = "pmix.version", PMIX_STRING;
    PMIX_REQUESTOR_IS_TOOL = "pmix.req.tool", PMIX_BOOL;
    PMIX_REQUESTOR_IS_CLIENT = "pmix.req.client", PMIX_BOOL;
    PMIX_PSET_NAME = "pmix.pset.nm", PMIX_STRING;
    PMIX_PSET_NAMES = "pmix.pset.nms", PMIX_DATA_ARRAY;
    PMIX_PSET_MEMBERS = "pmix.pset.mems", PMIX_DATA_ARRAY;
    PMIX_REINCARNATION = "pmix.reinc", PMIX_UINT32;
    PMIX_PROGRAMMING_MODEL = "pmix.pgm.model", PMIX_STRING;
    PMIX_MODEL_LIBRARY_NAME = "pmix.mdl.name", PMIX_STRING;
    PMIX_MODEL_LIBRARY_VERSION = "pmix.mld.vrs", PMIX_STRING;
    PMIX_THREADING_MODEL = "pmix.threads", PMIX_STRING;
    PMIX_MODEL_NUM_THREADS = "pmix.mdl.nthrds", PMIX_UINT64;
    PMIX_MODEL_NUM_CPUS = "pmix.mdl.ncpu", PMIX_UINT64;
    PMIX_MODEL_CPU_TYPE = "pmix.mdl.cputype", PMIX_STRING;
    PMIX_MODEL_PHASE_NAME = "pmix.mdl.phase", PMIX_STRING;
    PMIX_MODEL_PHASE_TYPE = "pmix.mdl.ptype", PMIX_STRING;
    PMIX_MODEL_AFFINITY_POLICY = "pmix.mdl.tap", PMIX_STRING;
    PMIX_TCP_REPORT_URI = "pmix.tcp.repuri", PMIX_STRING;
    PMIX_TCP_URI = "pmix.tcp.uri", PMIX_STRING;
    PMIX_TCP_IF_INCLUDE = "pmix.tcp.ifinclude", PMIX_STRING;
    PMIX_TCP_IF_EXCLUDE = "pmix.tcp.ifexclude", PMIX_STRING;
    PMIX_TCP_IPV4_PORT = "pmix.tcp.ipv4", PMIX_INT;
    PMIX_TCP_IPV6_PORT = "pmix.tcp.ipv6", PMIX_INT;
    PMIX_TCP_DISABLE_IPV4 = "pmix.tcp.disipv4", PMIX_BOOL;
    PMIX_TCP_DISABLE_IPV6 = "pmix.tcp.disipv6", PMIX_BOOL;
    PMIX_CPUSET = "pmix.cpuset", PMIX_STRING;
    PMIX_CPUSET_BITMAP = "pmix.bitmap", PMIX_PROC_CPUSET;
    PMIX_CREDENTIAL = "pmix.cred", PMIX_STRING;
    PMIX_SPAWNED = "pmix.spawned", PMIX_BOOL;
    PMIX_NODE_OVERSUBSCRIBED = "pmix.ndosub", PMIX_BOOL;
    PMIX_TMPDIR = "pmix.tmpdir", PMIX_STRING;
    PMIX_NSDIR = "pmix.nsdir", PMIX_STRING;
    PMIX_PROCDIR = "pmix.pdir", PMIX_STRING;
    PMIX_TDIR_RMCLEAN = "pmix.tdir.rmclean", PMIX_BOOL;
    PMIX_CLUSTER_ID = "pmix.clid", PMIX_STRING;
    PMIX_PROCID = "pmix.procid", PMIX_PROC;
    PMIX_NSPACE = "pmix.nspace", PMIX_STRING;
    PMIX_JOBID = "pmix.jobid", PMIX_STRING;
    PMIX_APPNUM = "pmix.appnum", PMIX_UINT32;
    PMIX_RANK = "pmix.rank", PMIX_PROC_RANK;
    PMIX_GLOBAL_RANK = "pmix.grank", PMIX_PROC_RANK;
    PMIX_APP_RANK = "pmix.apprank", PMIX_PROC_RANK;
    PMIX_NPROC_OFFSET = "pmix.offset", PMIX_PROC_RANK;
    PMIX_LOCAL_RANK = "pmix.lrank", PMIX_UINT16;
    PMIX_NODE_RANK = "pmix.nrank", PMIX_UINT16;
    PMIX_PACKAGE_RANK = "pmix.pkgrank", PMIX_UINT16;
    PMIX_LOCALLDR = "pmix.lldr", PMIX_PROC_RANK;
    PMIX_APPLDR = "pmix.aldr", PMIX_PROC_RANK;
    PMIX_PROC_PID = "pmix.ppid", PMIX_PID;
    PMIX_SESSION_ID = "pmix.session.id", PMIX_UINT32;
    PMIX_NODE_LIST = "pmix.nlist", PMIX_STRING;
    PMIX_ALLOCATED_NODELIST = "pmix.alist", PMIX_STRING;
    PMIX_HOSTNAME = "pmix.hname", PMIX_STRING;
    PMIX_HOSTNAME_ALIASES = "pmix.alias", PMIX_STRING;
    PMIX_HOSTNAME_KEEP_FQDN = "pmix.fqdn", PMIX_BOOL;
    PMIX_NODEID = "pmix.nodeid", PMIX_UINT32;
    PMIX_LOCAL_PEERS = "pmix.lpeers", PMIX_STRING;
    PMIX_LOCAL_PROCS = "pmix.lprocs", PMIX_DATA_ARRAY;
    PMIX_LOCAL_CPUSETS = "pmix.lcpus", PMIX_STRING;
    PMIX_PARENT_ID = "pmix.parent", PMIX_PROC;
    PMIX_EXIT_CODE = "pmix.exit.code", PMIX_INT;
    PMIX_SPAWN_TREE_ROOT = "pmix.spwn.root", PMIX_STRING;
    PMIX_SPAWN_TREE_ACTIVE = "pmix.spwn.actv", PMIX_UINT32;
    PMIX_UNIV_SIZE = "pmix.univ.size", PMIX_UINT32;
    PMIX_JOB_SIZE = "pmix.job.size", PMIX_UINT32;
    PMIX_JOB_NUM_APPS = "pmix.job.napps", PMIX_UINT32;
    PMIX_APP_SIZE = "pmix.app.size", PMIX_UINT32;
    PMIX_LOCAL_SIZE = "pmix.local.size", PMIX_UINT32;
    PMIX_NODE_SIZE = "pmix.node.size", PMIX_UINT32;
    PMIX_MAX_PROCS = "pmix.max.size", PMIX_UINT32;
    PMIX_NUM_SLOTS = "pmix.num.slots", PMIX_UINT32;
    PMIX_NUM_NODES = "pmix.num.nodes", PMIX_UINT32;
    PMIX_NUM_ALLOCATED_NODES = "pmix.num.anodes", PMIX_UINT32;
    PMIX_AVAIL_PHYS_MEMORY = "pmix.pmem", PMIX_UINT64;
    PMIX_DAEMON_MEMORY = "pmix.dmn.mem", PMIX_FLOAT;
    PMIX_CLIENT_AVG_MEMORY = "pmix.cl.mem.avg", PMIX_FLOAT;
    PMIX_TOPOLOGY2 = "pmix.topo2", PMIX_TOPO;
    PMIX_LOCALITY_STRING = "pmix.locstr", PMIX_STRING;
    PMIX_TOPOLOGY_INDEX = "pmix.topo.index", PMIX_INT;
    PMIX_COLLECT_DATA = "pmix.collect", PMIX_BOOL;
    PMIX_ALL_CLONES_PARTICIPATE = "pmix.clone.part", PMIX_BOOL;
    PMIX_COLLECT_GENERATED_JOB_INFO = "pmix.collect.gen", PMIX_BOOL;
    PMIX_TIMEOUT = "pmix.timeout", PMIX_INT;
    PMIX_IMMEDIATE = "pmix.immediate", PMIX_BOOL;
    PMIX_WAIT = "pmix.wait", PMIX_INT;
    PMIX_NOTIFY_COMPLETION = "pmix.notecomp", PMIX_BOOL;
    PMIX_RANGE = "pmix.range", PMIX_DATA_RANGE;
    PMIX_PERSISTENCE = "pmix.persist", PMIX_PERSIST;
    PMIX_DATA_SCOPE = "pmix.scope", PMIX_SCOPE;
    PMIX_OPTIONAL = "pmix.optional", PMIX_BOOL;
    PMIX_GET_STATIC_VALUES = "pmix.get.static", PMIX_BOOL;
    PMIX_GET_POINTER_VALUES = "pmix.get.pntrs", PMIX_BOOL;
    PMIX_EMBED_BARRIER = "pmix.embed.barrier", PMIX_BOOL;
    PMIX_JOB_TERM_STATUS = "pmix.job.term.status", PMIX_STATUS;
    PMIX_PROC_TERM_STATUS = "pmix.proc.term.status", PMIX_STATUS;
    PMIX_PROC_STATE_STATUS = "pmix.proc.state", PMIX_PROC_STATE;
    PMIX_GET_REFRESH_CACHE = "pmix.get.refresh", PMIX_BOOL;
    PMIX_ACCESS_PERMISSIONS = "pmix.aperms", PMIX_DATA_ARRAY;
    PMIX_ACCESS_USERIDS = "pmix.auids", PMIX_DATA_ARRAY;
    PMIX_ACCESS_GRPIDS = "pmix.agids", PMIX_DATA_ARRAY;
    PMIX_WAIT_FOR_CONNECTION = "pmix.wait.conn", PMIX_BOOL;
    PMIX_QUALIFIED_VALUE = "pmix.qual.val", PMIX_DATA_ARRAY;
    PMIX_REGISTER_NODATA = "pmix.reg.nodata", PMIX_BOOL;
    PMIX_NODE_MAP = "pmix.nmap", PMIX_STRING;
    PMIX_NODE_MAP_RAW = "pmix.nmap.raw", PMIX_STRING;
    PMIX_PROC_MAP = "pmix.pmap", PMIX_STRING;
    PMIX_PROC_MAP_RAW = "pmix.pmap.raw", PMIX_STRING;
    PMIX_ANL_MAP = "pmix.anlmap", PMIX_STRING;
    PMIX_APP_MAP_TYPE = "pmix.apmap.type", PMIX_STRING;
    PMIX_APP_MAP_REGEX = "pmix.apmap.regex", PMIX_STRING;
    PMIX_REQUIRED_KEY = "pmix.req.key", PMIX_STRING;
    PMIX_LOCAL_COLLECTIVE_STATUS = "pmix.loc.col.st", PMIX_STATUS;
    PMIX_SORTED_PROC_ARRAY = "pmix.sorted.parr", PMIX_BOOL;
    PMIX_LOCAL_PARTICIPANTS = "pmix.lcl.part", PMIX_DATA_ARRAY;
    PMIX_EVENT_HDLR_NAME = "pmix.evname", PMIX_STRING;
    PMIX_EVENT_HDLR_FIRST = "pmix.evfirst", PMIX_BOOL;
    PMIX_EVENT_HDLR_LAST = "pmix.evlast", PMIX_BOOL;
    PMIX_EVENT_HDLR_FIRST_IN_CATEGORY = "pmix.evfirstcat", PMIX_BOOL;
    PMIX_EVENT_HDLR_LAST_IN_CATEGORY = "pmix.evlastcat", PMIX_BOOL;
    PMIX_EVENT_HDLR_BEFORE = "pmix.evbefore", PMIX_STRING;
    PMIX_EVENT_HDLR_AFTER = "pmix.evafter", PMIX_STRING;
    PMIX_EVENT_HDLR_PREPEND = "pmix.evprepend", PMIX_BOOL;
    PMIX_EVENT_HDLR_APPEND = "pmix.evappend", PMIX_BOOL;
    PMIX_EVENT_CUSTOM_RANGE = "pmix.evrange", PMIX_DATA_ARRAY;
    PMIX_EVENT_AFFECTED_PROC = "pmix.evproc", PMIX_PROC;
    PMIX_EVENT_AFFECTED_PROCS = "pmix.evaffected", PMIX_DATA_ARRAY;
    PMIX_EVENT_NON_DEFAULT = "pmix.evnondef", PMIX_BOOL;
    PMIX_EVENT_RETURN_OBJECT = "pmix.evobject", PMIX_POINTER;
    PMIX_EVENT_DO_NOT_CACHE = "pmix.evnocache", PMIX_BOOL;
    PMIX_EVENT_SILENT_TERMINATION = "pmix.evsilentterm", PMIX_BOOL;
    PMIX_EVENT_PROXY = "pmix.evproxy", PMIX_PROC;
    PMIX_EVENT_TEXT_MESSAGE = "pmix.evtext", PMIX_STRING;
    PMIX_EVENT_TIMESTAMP = "pmix.evtstamp", PMIX_TIME;
    PMIX_EVENT_ONESHOT = "pmix.evone", PMIX_BOOL;
    PMIX_EVENT_STAYS_LOCAL = "pmix.evlocal", PMIX_BOOL;
    PMIX_EVENT_TERMINATE_SESSION = "pmix.evterm.sess", PMIX_BOOL;
    PMIX_EVENT_TERMINATE_JOB = "pmix.evterm.job", PMIX_BOOL;
    PMIX_EVENT_TERMINATE_NODE = "pmix.evterm.node", PMIX_BOOL;
    PMIX_EVENT_TERMINATE_PROC = "pmix.evterm.proc", PMIX_BOOL;
    PMIX_EVENT_ACTION_TIMEOUT = "pmix.evtimeout", PMIX_INT;
    PMIX_PERSONALITY = "pmix.pers", PMIX_STRING;
    PMIX_HOST = "pmix.host", PMIX_STRING;
    PMIX_HOSTFILE = "pmix.hostfile", PMIX_STRING;
    PMIX_ADD_HOST = "pmix.addhost", PMIX_STRING;
    PMIX_ADD_HOSTFILE = "pmix.addhostfile", PMIX_STRING;
    PMIX_PREFIX = "pmix.prefix", PMIX_STRING;
    PMIX_WDIR = "pmix.wdir", PMIX_STRING;
    PMIX_WDIR_USER_SPECIFIED = "pmix.wdir.user", PMIX_BOOL;
    PMIX_DISPLAY_MAP = "pmix.dispmap", PMIX_BOOL;
    PMIX_DISPLAY_MAP_DETAILED = "pmix.dispmapdet", PMIX_BOOL;
    PMIX_DISPLAY_ALLOCATION = "pmix.dispalloc", PMIX_BOOL;
    PMIX_DISPLAY_TOPOLOGY = "pmix.disptopo", PMIX_STRING;
    PMIX_DISPLAY_PROCESSORS = "pmix.dispcpus", PMIX_STRING;
    PMIX_DISPLAY_PARSEABLE_OUTPUT = "pmix.dispparse", PMIX_BOOL;
    PMIX_PPR = "pmix.ppr", PMIX_STRING;
    PMIX_MAPBY = "pmix.mapby", PMIX_STRING;
    PMIX_RANKBY = "pmix.rankby", PMIX_STRING;
    PMIX_BINDTO = "pmix.bindto", PMIX_STRING;
    PMIX_PRELOAD_BIN = "pmix.preloadbin", PMIX_BOOL;
    PMIX_PRELOAD_FILES = "pmix.preloadfiles", PMIX_STRING;
    PMIX_STDIN_TGT = "pmix.stdin", PMIX_PROC;
    PMIX_DEBUGGER_DAEMONS = "pmix.debugger", PMIX_BOOL;
    PMIX_COSPAWN_APP = "pmix.cospawn", PMIX_BOOL;
    PMIX_COLOCATE_PROCS = "pmix.colproc", PMIX_DATA_ARRAY;
    PMIX_COLOCATE_NPERPROC = "pmix.colnum.proc", PMIX_UINT16;
    PMIX_COLOCATE_NPERNODE = "pmix.colnum.node", PMIX_UINT16;
    PMIX_SET_SESSION_CWD = "pmix.ssncwd", PMIX_BOOL;
    PMIX_INDEX_ARGV = "pmix.indxargv", PMIX_BOOL;
    PMIX_CPUS_PER_PROC = "pmix.cpuperproc", PMIX_UINT32;
    PMIX_NO_PROCS_ON_HEAD = "pmix.nolocal", PMIX_BOOL;
    PMIX_NO_OVERSUBSCRIBE = "pmix.noover", PMIX_BOOL;
    PMIX_REPORT_BINDINGS = "pmix.repbind", PMIX_BOOL;
    PMIX_REPORT_PHYSICAL_CPUS = "pmix.repphys.cpus", PMIX_BOOL;
    PMIX_CPU_LIST = "pmix.cpulist", PMIX_STRING;
    PMIX_JOB_RECOVERABLE = "pmix.recover", PMIX_BOOL;
    PMIX_JOB_CONTINUOUS = "pmix.continuous", PMIX_BOOL;
    PMIX_MAX_RESTARTS = "pmix.maxrestarts", PMIX_UINT32;
    PMIX_FWD_STDIN = "pmix.fwd.stdin", PMIX_BOOL;
    PMIX_FWD_STDOUT = "pmix.fwd.stdout", PMIX_BOOL;
    PMIX_FWD_STDERR = "pmix.fwd.stderr", PMIX_BOOL;
    PMIX_FWD_STDDIAG = "pmix.fwd.stddiag", PMIX_BOOL;
    PMIX_SPAWN_TOOL = "pmix.spwn.tool", PMIX_BOOL;
    PMIX_CMD_LINE = "pmix.cmd.line", PMIX_STRING;
    PMIX_FORKEXEC_AGENT = "pmix.fe.agnt", PMIX_STRING;
    PMIX_JOB_TIMEOUT = "pmix.job.time", PMIX_INT;
    PMIX_SPAWN_TIMEOUT = "pmix.sp.time", PMIX_INT;
    PMIX_TIMEOUT_STACKTRACES = "pmix.tim.stack", PMIX_BOOL;
    PMIX_TIMEOUT_REPORT_STATE = "pmix.tim.state", PMIX_BOOL;
    PMIX_APP_ARGV = "pmix.app.argv", PMIX_STRING;
    PMIX_NOTIFY_JOB_EVENTS = "pmix.note.jev", PMIX_BOOL;
    PMIX_NOTIFY_PROC_TERMINATION = "pmix.noteproc", PMIX_BOOL;
    PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION = "pmix.noteabproc", PMIX_BOOL;
    PMIX_ENVARS_HARVESTED = "pmix.evar.hvstd", PMIX_BOOL;
    PMIX_RUNTIME_OPTIONS = "pmix.runopt", PMIX_STRING;
    PMIX_ABORT_NON_ZERO_TERM = "pmix.abnz", PMIX_BOOL;
    PMIX_DO_NOT_LAUNCH = "pmix.dnl", PMIX_BOOL;
    PMIX_SHOW_LAUNCH_PROGRESS = "pmix.showprog", PMIX_BOOL;
    PMIX_AGGREGATE_HELP = "pmix.agg.help", PMIX_BOOL;
    PMIX_REPORT_CHILD_SEP = "pmix.rptchildsep", PMIX_BOOL;
    PMIX_SPAWN_CHILD_SEP = "pmix.spchildsep", PMIX_BOOL;
    PMIX_FWD_ENVIRONMENT = "pmix.fwdenv", PMIX_BOOL;
    PMIX_SPAWN_PTY = "pmix.spawn.pty", PMIX_BOOL;
    PMIX_PTY_TERMIO = "pmix.pty.termio", PMIX_BYTE_OBJECT;
    PMIX_PTY_WSIZE = "pmix.pty.wsize", PMIX_BYTE_OBJECT;
    PMIX_SPAWN_TARGET = "pmix.spwn.tgt", PMIX_UNDEF;
    PMIX_QUERY_SUPPORTED_KEYS = "pmix.qry.keys", PMIX_STRING;
    PMIX_QUERY_NAMESPACES = "pmix.qry.ns", PMIX_STRING;
    PMIX_QUERY_NAMESPACE_INFO = "pmix.qry.nsinfo", PMIX_DATA_ARRAY;
    PMIX_QUERY_JOB_STATUS = "pmix.qry.jst", PMIX_STATUS;
    PMIX_QUERY_QUEUE_LIST = "pmix.qry.qlst", PMIX_STRING;
    PMIX_QUERY_QUEUE_STATUS = "pmix.qry.qst", PMIX_DATA_ARRAY;
    PMIX_QUERY_PROC_TABLE = "pmix.qry.ptable", PMIX_DATA_ARRAY;
    PMIX_QUERY_LOCAL_PROC_TABLE = "pmix.qry.lptable", PMIX_DATA_ARRAY;
    PMIX_QUERY_AUTHORIZATIONS = "pmix.qry.auths", PMIX_DATA_ARRAY;
    PMIX_QUERY_SPAWN_SUPPORT = "pmix.qry.spawn", PMIX_STRING;
    PMIX_QUERY_DEBUG_SUPPORT = "pmix.qry.debug", PMIX_STRING;
    PMIX_QUERY_MEMORY_USAGE = "pmix.qry.mem", PMIX_DATA_ARRAY;
    PMIX_QUERY_ALLOC_STATUS = "pmix.query.alloc", PMIX_STRING;
    PMIX_QUERY_ALLOCATION = "pmix.query.allc", PMIX_DATA_ARRAY;
    PMIX_QUERY_ALLOC_IDS = "pmix.query.alloc.ids", PMIX_DATA_ARRAY;
    PMIX_QUERY_ALLOC_PROPERTIES = "pmix.query.alloc.prop", PMIX_DATA_ARRAY;
    PMIX_TIME_REMAINING = "pmix.time.remaining", PMIX_UINT32;
    PMIX_QUERY_NUM_PSETS = "pmix.qry.psetnum", PMIX_SIZE;
    PMIX_QUERY_PSET_NAMES = "pmix.qry.psets", PMIX_STRING;
    PMIX_QUERY_PSET_MEMBERSHIP = "pmix.qry.pmems", PMIX_DATA_ARRAY;
    PMIX_QUERY_NUM_GROUPS = "pmix.qry.pgrpnum", PMIX_SIZE;
    PMIX_QUERY_GROUP_NAMES = "pmix.qry.pgrp", PMIX_DATA_ARRAY;
    PMIX_QUERY_GROUP_MEMBERSHIP = "pmix.qry.pgrpmems", PMIX_DATA_ARRAY;
    PMIX_QUERY_ATTRIBUTE_SUPPORT = "pmix.qry.attrs", PMIX_DATA_ARRAY;
    PMIX_CLIENT_FUNCTIONS = "pmix.client.fns", PMIX_STRING;
    PMIX_SERVER_FUNCTIONS = "pmix.srvr.fns", PMIX_STRING;
    PMIX_TOOL_FUNCTIONS = "pmix.tool.fns", PMIX_STRING;
    PMIX_HOST_FUNCTIONS = "pmix.host.fns", PMIX_STRING;
    PMIX_QUERY_AVAIL_SERVERS = "pmix.qry.asrvrs", PMIX_DATA_ARRAY;
    PMIX_QUERY_QUALIFIERS = "pmix.qry.quals", PMIX_DATA_ARRAY;
    PMIX_QUERY_RESULTS = "pmix.qry.res", PMIX_DATA_ARRAY;
    PMIX_QUERY_MIN_ALLOC_UNIT = "pmix.qry.minau", PMIX_DATA_ARRAY;
    PMIX_QUERY_RES_BLOCKS = "pmix.qry.resblks", PMIX_DATA_ARRAY;
    PMIX_QUERY_RES_BLOCK_DEF = "pmix.qry.resdef", PMIX_DATA_ARRAY;
    PMIX_QUERY_DEVICES = "pmix.qry.dev", PMIX_DATA_ARRAY;
    PMIX_QUERY_AVAILABLE_SLOTS = "pmix.qry.aslots", PMIX_UINT32;
    PMIX_QUERY_RESOLVE_PEERS = "pmix.qry.peers", PMIX_DATA_ARRAY;
    PMIX_QUERY_RESOLVE_NODE = "pmix.qry.node", PMIX_STRING;
    PMIX_QUERY_PROC_RESOURCE_USAGE = "pmix.qry.pres", PMIX_PROC;
    PMIX_QUERY_NODE_RESOURCE_USAGE = "pmix.qry.nres", PMIX_STRING;
    PMIX_QUERY_REFRESH_CACHE = "pmix.qry.rfsh", PMIX_BOOL;
    PMIX_QUERY_LOCAL_ONLY = "pmix.qry.local", PMIX_BOOL;
    PMIX_QUERY_REPORT_AVG = "pmix.qry.avg", PMIX_BOOL;
    PMIX_QUERY_REPORT_MINMAX = "pmix.qry.minmax", PMIX_BOOL;
    PMIX_CLIENT_ATTRIBUTES = "pmix.client.attrs", PMIX_STRING;
    PMIX_SERVER_ATTRIBUTES = "pmix.srvr.attrs", PMIX_STRING;
    PMIX_HOST_ATTRIBUTES = "pmix.host.attrs", PMIX_STRING;
    PMIX_TOOL_ATTRIBUTES = "pmix.tool.attrs", PMIX_STRING;
    PMIX_QUERY_SUPPORTED_QUALIFIERS = "pmix.qry.supqual", PMIX_BOOL;
    PMIX_RESOURCE_BLOCK_NAME = "pmix.resblkname", PMIX_STRING;
    PMIX_SESSION_INFO = "pmix.ssn.info", PMIX_BOOL;
    PMIX_JOB_INFO = "pmix.job.info", PMIX_BOOL;
    PMIX_APP_INFO = "pmix.app.info", PMIX_BOOL;
    PMIX_NODE_INFO = "pmix.node.info", PMIX_BOOL;
    PMIX_SESSION_INFO_ARRAY = "pmix.ssn.arr", PMIX_DATA_ARRAY;
    PMIX_JOB_INFO_ARRAY = "pmix.job.arr", PMIX_DATA_ARRAY;
    PMIX_APP_INFO_ARRAY = "pmix.app.arr", PMIX_DATA_ARRAY;
    PMIX_PROC_INFO_ARRAY = "pmix.pdata", PMIX_DATA_ARRAY;
    PMIX_NODE_INFO_ARRAY = "pmix.node.arr", PMIX_DATA_ARRAY;
    PMIX_SERVER_INFO_ARRAY = "pmix.srv.arr", PMIX_DATA_ARRAY;
    PMIX_LOG_SOURCE = "pmix.log.source", PMIX_PROC;
    PMIX_LOG_STDERR = "pmix.log.stderr", PMIX_STRING;
    PMIX_LOG_STDOUT = "pmix.log.stdout", PMIX_STRING;
    PMIX_LOG_SYSLOG = "pmix.log.syslog", PMIX_STRING;
    PMIX_LOG_LOCAL_SYSLOG = "pmix.log.lsys", PMIX_STRING;
    PMIX_LOG_GLOBAL_SYSLOG = "pmix.log.gsys", PMIX_STRING;
    PMIX_LOG_SYSLOG_PRI = "pmix.log.syspri", PMIX_INT;
    PMIX_LOG_TIMESTAMP = "pmix.log.tstmp", PMIX_TIME;
    PMIX_LOG_GENERATE_TIMESTAMP = "pmix.log.gtstmp", PMIX_BOOL;
    PMIX_LOG_TAG_OUTPUT = "pmix.log.tag", PMIX_BOOL;
    PMIX_LOG_TIMESTAMP_OUTPUT = "pmix.log.tsout", PMIX_BOOL;
    PMIX_LOG_XML_OUTPUT = "pmix.log.xml", PMIX_BOOL;
    PMIX_LOG_ONCE = "pmix.log.once", PMIX_BOOL;
    PMIX_LOG_MSG = "pmix.log.msg", PMIX_BYTE_OBJECT;
    PMIX_LOG_KEY = "pmix.log.key", PMIX_STRING;
    PMIX_LOG_VAL = "pmix.log.val", PMIX_STRING;
    PMIX_LOG_AGG = "pmix.log.agg", PMIX_BOOL;
    PMIX_LOG_EMAIL = "pmix.log.email", PMIX_DATA_ARRAY;
    PMIX_LOG_EMAIL_ADDR = "pmix.log.emaddr", PMIX_STRING;
    PMIX_LOG_EMAIL_SENDER_ADDR = "pmix.log.emfaddr", PMIX_STRING;
    PMIX_LOG_EMAIL_SUBJECT = "pmix.log.emsub", PMIX_STRING;
    PMIX_LOG_EMAIL_MSG = "pmix.log.emmsg", PMIX_STRING;
    PMIX_LOG_EMAIL_SERVER = "pmix.log.esrvr", PMIX_STRING;
    PMIX_LOG_EMAIL_SRVR_PORT = "pmix.log.esrvrprt", PMIX_INT32;
    PMIX_LOG_GLOBAL_DATASTORE = "pmix.log.gstore", PMIX_BOOL;
    PMIX_LOG_JOB_RECORD = "pmix.log.jrec", PMIX_BOOL;
    PMIX_LOG_PROC_TERMINATION = "pmix.logproc", PMIX_BOOL;
    PMIX_LOG_PROC_ABNORMAL_TERMINATION = "pmix.logabproc", PMIX_BOOL;
    PMIX_LOG_JOB_EVENTS = "pmix.log.jev", PMIX_BOOL;
    PMIX_LOG_COMPLETION = "pmix.logcomp", PMIX_BOOL;
    PMIX_DEBUG_STOP_ON_EXEC = "pmix.dbg.exec", PMIX_UNDEF;
    PMIX_DEBUG_STOP_IN_INIT = "pmix.dbg.init", PMIX_UNDEF;
    PMIX_DEBUG_STOP_IN_APP = "pmix.dbg.notify", PMIX_UNDEF;
    PMIX_BREAKPOINT = "pmix.brkpnt", PMIX_STRING;
    PMIX_DEBUG_TARGET = "pmix.dbg.tgt", PMIX_PROC;
    PMIX_DEBUG_DAEMONS_PER_PROC = "pmix.dbg.dpproc", PMIX_UINT16;
    PMIX_DEBUG_DAEMONS_PER_NODE = "pmix.dbg.dpnd", PMIX_UINT16;
    PMIX_RM_NAME = "pmix.rm.name", PMIX_STRING;
    PMIX_RM_VERSION = "pmix.rm.version", PMIX_STRING;
    PMIX_SET_ENVAR = "pmix.envar.set", PMIX_ENVAR;
    PMIX_ADD_ENVAR = "pmix.envar.add", PMIX_ENVAR;
    PMIX_UNSET_ENVAR = "pmix.envar.unset", PMIX_STRING;
    PMIX_PREPEND_ENVAR = "pmix.envar.prepnd", PMIX_ENVAR;
    PMIX_APPEND_ENVAR = "pmix.envar.appnd", PMIX_ENVAR;
    PMIX_FIRST_ENVAR = "pmix.envar.first", PMIX_ENVAR;
    PMIX_ALLOC_REQ_ID = "pmix.alloc.reqid", PMIX_STRING;
    PMIX_ALLOC_ID = "pmix.alloc.id", PMIX_STRING;
    PMIX_ALLOC_PROPERTY = "pmix.alloc.property", PMIX_STRING;
    PMIX_ALLOC_RELEASABLE = "pmix.alloc.releasable", PMIX_BOOL;
    PMIX_ALLOC_NUM_NODES = "pmix.alloc.nnodes", PMIX_UINT64;
    PMIX_ALLOC_NODE_LIST = "pmix.alloc.nlist", PMIX_STRING;
    PMIX_ALLOC_EXCLUDE = "pmix.alloc.exclude", PMIX_STRING;
    PMIX_ALLOC_NUM_CPUS = "pmix.alloc.ncpus", PMIX_UINT64;
    PMIX_ALLOC_NUM_CPU_LIST = "pmix.alloc.ncpulist", PMIX_STRING;
    PMIX_ALLOC_CPU_LIST = "pmix.alloc.cpulist", PMIX_STRING;
    PMIX_ALLOC_MEM_SIZE = "pmix.alloc.msize", PMIX_FLOAT;
    PMIX_ALLOC_FABRIC = "pmix.alloc.net", PMIX_DATA_ARRAY;
    PMIX_ALLOC_FABRIC_ID = "pmix.alloc.netid", PMIX_STRING;
    PMIX_ALLOC_BANDWIDTH = "pmix.alloc.bw", PMIX_FLOAT;
    PMIX_ALLOC_FABRIC_QOS = "pmix.alloc.netqos", PMIX_STRING;
    PMIX_ALLOC_TIME = "pmix.alloc.time", PMIX_STRING;
    PMIX_ALLOC_WARN_TIMEOUT = "pmix.alloc.wtmo", PMIX_UINT32;
    PMIX_ALLOC_FABRIC_TYPE = "pmix.alloc.nettype", PMIX_STRING;
    PMIX_ALLOC_FABRIC_PLANE = "pmix.alloc.netplane", PMIX_STRING;
    PMIX_ALLOC_FABRIC_ENDPTS = "pmix.alloc.endpts", PMIX_SIZE;
    PMIX_ALLOC_FABRIC_ENDPTS_NODE = "pmix.alloc.endpts.nd", PMIX_SIZE;
    PMIX_ALLOC_FABRIC_SEC_KEY = "pmix.alloc.nsec", PMIX_BYTE_OBJECT;
    PMIX_ALLOC_QUEUE = "pmix.alloc.queue", PMIX_STRING;
    PMIX_ALLOC_PREEMPTIBLE = "pmix.alloc.preempt", PMIX_BOOL;
    PMIX_ALLOC_LEND = "pmix.alloc.lend", PMIX_STRING;
    PMIX_ALLOC_IMAGE = "pmix.alloc.image", PMIX_STRING;
    PMIX_ALLOC_WAIT_ALL_NODES = "pmix.alloc.waitall", PMIX_BOOL;
    PMIX_ALLOC_SHARE = "pmix.alloc.share", PMIX_BOOL;
    PMIX_ALLOC_NOSHELL = "pmix.alloc.noshell", PMIX_BOOL;
    PMIX_ALLOC_DEPENDENCY = "pmix.alloc.depend", PMIX_STRING;
    PMIX_ALLOC_BEGIN = "pmix.alloc.begin", PMIX_STRING;
    PMIX_ALLOC_NOT_WAITING = "pmix.alloc.notwait", PMIX_BOOL;
    PMIX_ALLOC_RES_BLOCK = "pmix.alloc.blk", PMIX_STRING;
    PMIX_ALLOC_NUM_BLOCKS = "pmix.alloc.nblks", PMIX_UINT64;
    PMIX_ALLOC_MAU = "pmix.alloc.mau", PMIX_DATA_ARRAY;
    PMIX_ALLOC_CHILD_SEP = "pmix.alloc.sep", PMIX_BOOL;
    PMIX_MEM_ALLOC_KIND = "pmix.alloc.mkind", PMIX_STRING;
    PMIX_GPU_SUPPORT = "pmix.gpu.support", PMIX_BOOL;
    PMIX_ALLOC_STATUS = "pmix.alloc.status", PMIX_STATUS;
    PMIX_ALLOC_TARGET = "pmix.alloc.tgt", PMIX_STRING;
    PMIX_ALLOC_INHERITANCE = "pmix.alloc.inhrt", PMIX_ALLOC_INHERIT;
    PMIX_JOB_CTRL_ID = "pmix.jctrl.id", PMIX_STRING;
    PMIX_JOB_CTRL_PAUSE = "pmix.jctrl.pause", PMIX_BOOL;
    PMIX_JOB_CTRL_RESUME = "pmix.jctrl.resume", PMIX_BOOL;
    PMIX_JOB_CTRL_CANCEL = "pmix.jctrl.cancel", PMIX_STRING;
    PMIX_JOB_CTRL_KILL = "pmix.jctrl.kill", PMIX_BOOL;
    PMIX_JOB_CTRL_RESTART = "pmix.jctrl.restart", PMIX_STRING;
    PMIX_JOB_CTRL_CHECKPOINT = "pmix.jctrl.ckpt", PMIX_STRING;
    PMIX_JOB_CTRL_CHECKPOINT_EVENT = "pmix.jctrl.ckptev", PMIX_BOOL;
    PMIX_JOB_CTRL_CHECKPOINT_SIGNAL = "pmix.jctrl.ckptsig", PMIX_INT;
    PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT = "pmix.jctrl.ckpttime", PMIX_INT;
    PMIX_JOB_CTRL_CHECKPOINT_METHOD = "pmix.jctrl.ckmethod", PMIX_DATA_ARRAY;
    PMIX_JOB_CTRL_SIGNAL = "pmix.jctrl.sig", PMIX_INT;
    PMIX_JOB_CTRL_PROVISION = "pmix.jctrl.pvn", PMIX_STRING;
    PMIX_JOB_CTRL_PROVISION_IMAGE = "pmix.jctrl.pvnimg", PMIX_STRING;
    PMIX_JOB_CTRL_PREEMPTIBLE = "pmix.jctrl.preempt", PMIX_BOOL;
    PMIX_JOB_CTRL_TERMINATE = "pmix.jctrl.term", PMIX_BOOL;
    PMIX_JOB_CTRL_DEFINE_PSET = "pmix.jctrl.defpset", PMIX_STRING;
    PMIX_REGISTER_CLEANUP = "pmix.reg.cleanup", PMIX_STRING;
    PMIX_REGISTER_CLEANUP_DIR = "pmix.reg.cleanupdir", PMIX_STRING;
    PMIX_CLEANUP_RECURSIVE = "pmix.clnup.recurse", PMIX_BOOL;
    PMIX_CLEANUP_EMPTY = "pmix.clnup.empty", PMIX_BOOL;
    PMIX_CLEANUP_IGNORE = "pmix.clnup.ignore", PMIX_STRING;
    PMIX_CLEANUP_LEAVE_TOPDIR = "pmix.clnup.lvtop", PMIX_BOOL;
    PMIX_JOB_CTRL_SEP = "pmix.jctrl.sep", PMIX_BOOL;
    PMIX_SESSION_CTRL_ID = "pmix.ssnctrl.id", PMIX_STRING;
    PMIX_SESSION_INSTANTIATE = "pmix.ssn.inst", PMIX_BOOL;
    PMIX_SESSION_RESOURCES = "pmix.ssn.res", PMIX_DATA_ARRAY;
    PMIX_SESSION_JOB = "pmix.ssn.job", PMIX_DATA_ARRAY;
    PMIX_SESSION_APP = "pmix.ssn.app", PMIX_DATA_ARRAY;
    PMIX_SESSION_PROVISION_NODES = "pmix.ssn.pvnnds", PMIX_STRING;
    PMIX_SESSION_PROVISION_IMAGE = "pmix.ssn.pvnimg", PMIX_STRING;
    PMIX_SESSION_PAUSE = "pmix.ssn.pause", PMIX_BOOL;
    PMIX_SESSION_RESUME = "pmix.ssn.resume", PMIX_BOOL;
    PMIX_SESSION_TERMINATE = "pmix.ssn.terminate", PMIX_BOOL;
    PMIX_SESSION_PREEMPT = "pmix.ssn.preempt", PMIX_BOOL;
    PMIX_SESSION_RESTORE = "pmix.ssn.restore", PMIX_BOOL;
    PMIX_SESSION_SIGNAL = "pmix.ssn.sig", PMIX_INT;
    PMIX_SESSION_SEP = "pmix.ssn.sep", PMIX_BOOL;
    PMIX_SESSION_EXTEND = "pmix.ssn.xtend", PMIX_BOOL;
    PMIX_SESSION_COMPLETE = "pmix.ssn.complete", PMIX_BOOL;
    PMIX_MONITOR_ID = "pmix.monitor.id", PMIX_STRING;
    PMIX_MONITOR_PROXY = "pmix.monitor.proxy", PMIX_PROC;
    PMIX_MONITOR_CANCEL = "pmix.monitor.cancel", PMIX_STRING;
    PMIX_MONITOR_APP_CONTROL = "pmix.monitor.appctrl", PMIX_BOOL;
    PMIX_MONITOR_HEARTBEAT = "pmix.monitor.mbeat", PMIX_BOOL;
    PMIX_SEND_HEARTBEAT = "pmix.monitor.beat", PMIX_BOOL;
    PMIX_MONITOR_HEARTBEAT_TIME = "pmix.monitor.btime", PMIX_UINT32;
    PMIX_MONITOR_HEARTBEAT_DROPS = "pmix.monitor.bdrop", PMIX_UINT32;
    PMIX_MONITOR_FILE = "pmix.monitor.fmon", PMIX_STRING;
    PMIX_MONITOR_FILE_SIZE = "pmix.monitor.fsize", PMIX_BOOL;
    PMIX_MONITOR_FILE_ACCESS = "pmix.monitor.faccess", PMIX_STRING;
    PMIX_MONITOR_FILE_MODIFY = "pmix.monitor.fmod", PMIX_STRING;
    PMIX_MONITOR_FILE_CHECK_TIME = "pmix.monitor.ftime", PMIX_UINT32;
    PMIX_MONITOR_FILE_DROPS = "pmix.monitor.fdrop", PMIX_UINT32;
    PMIX_MONITOR_RESOURCE_RATE = "pmix.monitor.resrate", PMIX_UINT32;
    PMIX_MONITOR_TARGET_PROCS = "pmix.monitor.tgtproc", PMIX_DATA_ARRAY;
    PMIX_MONITOR_TARGET_PIDS = "pmix.monitor.tgtpid", PMIX_DATA_ARRAY;
    PMIX_MONITOR_TARGET_NODES = "pmix.monitor.tgtnode", PMIX_DATA_ARRAY;
    PMIX_MONITOR_TARGET_NODEIDS = "pmix.monitor.tgtndids", PMIX_DATA_ARRAY;
    PMIX_MONITOR_TARGET_DISKS = "pmix.monitor.tgtdks", PMIX_DATA_ARRAY;
    PMIX_MONITOR_TARGET_NETS = "pmix.monitor.tgtnets", PMIX_DATA_ARRAY;
    PMIX_MONITOR_PROC_RESOURCE_USAGE = "pmix.monitor.presuse", PMIX_DATA_ARRAY;
    PMIX_MONITOR_NODE_RESOURCE_USAGE = "pmix.monitor.ndresuse", PMIX_DATA_ARRAY;
    PMIX_MONITOR_DISK_RESOURCE_USAGE = "pmix.monitor.dkresuse", PMIX_DATA_ARRAY;
    PMIX_MONITOR_NET_RESOURCE_USAGE = "pmix.monitor.netresuse", PMIX_DATA_ARRAY;
    PMIX_MONITOR_LOCAL_ONLY = "pmix.monitor.local", PMIX_BOOL;
    PMIX_PROC_RESOURCE_USAGE = "pmix.proc.res", PMIX_DATA_ARRAY;
    PMIX_PROC_OS_STATE = "pmix.proc.osstate", PMIX_STRING;
    PMIX_PROC_TIME = "pmix.proc.time", PMIX_TIMEVAL;
    PMIX_PROC_PERCENT_CPU = "pmix.proc.pcpu", PMIX_FLOAT;
    PMIX_PROC_PRIORITY = "pmix.proc.pri", PMIX_INT32;
    PMIX_PROC_NUM_THREADS = "pmix.proc.nthr", PMIX_UINT16;
    PMIX_PROC_PSS = "pmix.proc.pss", PMIX_FLOAT;
    PMIX_PROC_VSIZE = "pmix.proc.vsize", PMIX_FLOAT;
    PMIX_PROC_RSS = "pmix.proc.rss", PMIX_FLOAT;
    PMIX_PROC_PEAK_VSIZE = "pmix.proc.pkvsize", PMIX_FLOAT;
    PMIX_PROC_CPU = "pmix.proc.cpu", PMIX_UINT16;
    PMIX_PROC_SAMPLE_TIME = "pmix.proc.samptime", PMIX_TIME;
    PMIX_DISK_RESOURCE_USAGE = "pmix.disk.res", PMIX_DATA_ARRAY;
    PMIX_DISK_ID = "pmix.disk.id", PMIX_STRING;
    PMIX_DISK_READ_COMPLETED = "pmix.disk.rdscomp", PMIX_UINT64;
    PMIX_DISK_READ_MERGED = "pmix.disk.rdsmrgd", PMIX_UINT64;
    PMIX_DISK_READ_SECTORS = "pmix.disk.rdsct", PMIX_UINT64;
    PMIX_DISK_READ_MILLISEC = "pmix.disk.rdms", PMIX_UINT64;
    PMIX_DISK_WRITE_COMPLETED = "pmix.disk.wtscomp", PMIX_UINT64;
    PMIX_DISK_WRITE_MERGED = "pmix.disk.wtsmrgd", PMIX_UINT64;
    PMIX_DISK_WRITE_SECTORS = "pmix.disk.wtsct", PMIX_UINT64;
    PMIX_DISK_WRITE_MILLISEC = "pmix.disk.wtms", PMIX_UINT64;
    PMIX_DISK_IO_IN_PROGRESS = "pmix.disk.ios", PMIX_UINT64;
    PMIX_DISK_IO_MILLISEC = "pmix.disk.ioms", PMIX_UINT64;
    PMIX_DISK_IO_WEIGHTED = "pmix.disk.iowght", PMIX_UINT64;
    PMIX_DISK_SAMPLE_TIME = "pmix.disk.samptime", PMIX_TIME;
    PMIX_NETWORK_RESOURCE_USAGE = "pmix.net.res", PMIX_DATA_ARRAY;
    PMIX_NETWORK_ID = "pmix.net.id", PMIX_STRING;
    PMIX_NET_RECVD_BYTES = "pmix.net.rcb", PMIX_UINT64;
    PMIX_NET_RECVD_PCKTS = "pmix.net.rcp", PMIX_UINT64;
    PMIX_NET_RECVD_ERRS = "pmix.net.rcerr", PMIX_UINT64;
    PMIX_NET_SENT_BYTES = "pmix.net.sntb", PMIX_UINT64;
    PMIX_NET_SENT_PCKTS = "pmix.net.sntp", PMIX_UINT64;
    PMIX_NET_SENT_ERRS = "pmix.net.snterr", PMIX_UINT64;
    PMIX_NET_SAMPLE_TIME = "pmix.net.samptime", PMIX_TIME;
    PMIX_NODE_RESOURCE_USAGE = "pmix.node.res", PMIX_DATA_ARRAY;
    PMIX_NODE_LOAD_AVG = "pmix.node.la", PMIX_FLOAT;
    PMIX_NODE_LOAD_AVG5 = "pmix.node.la5", PMIX_FLOAT;
    PMIX_NODE_LOAD_AVG15 = "pmix.node.la15", PMIX_FLOAT;
    PMIX_NODE_MEM_TOTAL = "pmix.node.mtot", PMIX_FLOAT;
    PMIX_NODE_MEM_FREE = "pmix.node.mfree", PMIX_FLOAT;
    PMIX_NODE_MEM_BUFFERS = "pmix.node.mbuf", PMIX_FLOAT;
    PMIX_NODE_MEM_CACHED = "pmix.node.mcache", PMIX_FLOAT;
    PMIX_NODE_MEM_SWAP_CACHED = "pmix.node.mswpc", PMIX_FLOAT;
    PMIX_NODE_SWAP_TOTAL = "pmix.node.mswpt", PMIX_FLOAT;
    PMIX_NODE_MEM_SWAP_FREE = "pmix.node.mswpfree", PMIX_FLOAT;
    PMIX_NODE_MEM_MAPPED = "pmix.node.mmap", PMIX_FLOAT;
    PMIX_NODE_SAMPLE_TIME = "pmix.node.samptime", PMIX_TIME;
    PMIX_CRED_TYPE = "pmix.sec.ctype", PMIX_STRING;
    PMIX_IOF_CACHE_SIZE = "pmix.iof.csize", PMIX_UINT32;
    PMIX_IOF_DROP_OLDEST = "pmix.iof.old", PMIX_BOOL;
    PMIX_IOF_DROP_NEWEST = "pmix.iof.new", PMIX_BOOL;
    PMIX_IOF_BUFFERING_SIZE = "pmix.iof.bsize", PMIX_UINT32;
    PMIX_IOF_BUFFERING_TIME = "pmix.iof.btime", PMIX_UINT32;
    PMIX_IOF_COMPLETE = "pmix.iof.cmp", PMIX_BOOL;
    PMIX_IOF_PUSH_STDIN = "pmix.iof.stdin", PMIX_BOOL;
    PMIX_IOF_TAG_OUTPUT = "pmix.iof.tag", PMIX_BOOL;
    PMIX_IOF_TAG_DETAILED_OUTPUT = "pmix.iof.tagdet", PMIX_BOOL;
    PMIX_IOF_TAG_FULLNAME_OUTPUT = "pmix.iof.tagfull", PMIX_BOOL;
    PMIX_IOF_RANK_OUTPUT = "pmix.iof.rank", PMIX_BOOL;
    PMIX_IOF_TIMESTAMP_OUTPUT = "pmix.iof.ts", PMIX_BOOL;
    PMIX_IOF_MERGE_STDERR_STDOUT = "pmix.iof.mrg", PMIX_BOOL;
    PMIX_IOF_XML_OUTPUT = "pmix.iof.xml", PMIX_BOOL;
    PMIX_IOF_OUTPUT_TO_FILE = "pmix.iof.file", PMIX_STRING;
    PMIX_IOF_FILE_PATTERN = "pmix.iof.fpt", PMIX_BOOL;
    PMIX_IOF_OUTPUT_TO_DIRECTORY = "pmix.iof.dir", PMIX_STRING;
    PMIX_IOF_FILE_ONLY = "pmix.iof.fonly", PMIX_BOOL;
    PMIX_IOF_COPY = "pmix.iof.cpy", PMIX_BOOL;
    PMIX_IOF_REDIRECT = "pmix.iof.redir", PMIX_BOOL;
    PMIX_IOF_LOCAL_OUTPUT = "pmix.iof.local", PMIX_BOOL;
    PMIX_IOF_OUTPUT_RAW = "pmix.iof.raw", PMIX_BOOL;
    PMIX_IOF_INHERIT = "pmix.iof.inhrt", PMIX_BOOL;
    PMIX_SETUP_APP_ENVARS = "pmix.setup.env", PMIX_BOOL;
    PMIX_SETUP_APP_NONENVARS = "pmix.setup.nenv", PMIX_BOOL;
    PMIX_SETUP_APP_ALL = "pmix.setup.all", PMIX_BOOL;
    PMIX_GROUP_ID = "pmix.grp.id", PMIX_STRING;
    PMIX_GROUP_LEADER = "pmix.grp.ldr", PMIX_BOOL;
    PMIX_GROUP_OPTIONAL = "pmix.grp.opt", PMIX_BOOL;
    PMIX_GROUP_NOTIFY_TERMINATION = "pmix.grp.notterm", PMIX_BOOL;
    PMIX_GROUP_FT_COLLECTIVE = "pmix.grp.ftcoll", PMIX_BOOL;
    PMIX_GROUP_MEMBERSHIP = "pmix.grp.mbrs", PMIX_DATA_ARRAY;
    PMIX_GROUP_ASSIGN_CONTEXT_ID = "pmix.grp.actxid", PMIX_BOOL;
    PMIX_GROUP_CONTEXT_ID = "pmix.grp.ctxid", PMIX_SIZE;
    PMIX_GROUP_LOCAL_ONLY = "pmix.grp.lcl", PMIX_BOOL;
    PMIX_GROUP_ENDPT_DATA = "pmix.grp.endpt", PMIX_DATA_ARRAY;
    PMIX_GROUP_NAMES = "pmix.pgrp.nm", PMIX_DATA_ARRAY;
    PMIX_GROUP_INFO = "pmix.grp.info", PMIX_DATA_ARRAY;
    PMIX_GROUP_INFO_ARRAY = "pmix.grp.infoarray", PMIX_DATA_ARRAY;
    PMIX_GROUP_LOCAL_CID = "pmix.grp.lclid", PMIX_SIZE;
    PMIX_GROUP_ADD_MEMBERS = "pmix.grp.add", PMIX_DATA_ARRAY;
    PMIX_GROUP_BOOTSTRAP = "pmix.grp.btstrp", PMIX_SIZE;
    PMIX_GROUP_JOB_INFO = "pmix.grp.jinfo", PMIX_BYTE_OBJECT;
    PMIX_GROUP_FINAL_MEMBERSHIP_ORDER = "pmix.grp.finord", PMIX_DATA_ARRAY;
    PMIX_QUERY_STORAGE_LIST = "pmix.strg.list", PMIX_STRING;
    PMIX_STORAGE_CAPACITY_LIMIT = "pmix.strg.cap", PMIX_UINT64;
    PMIX_STORAGE_OBJECT_LIMIT = "pmix.strg.obj", PMIX_UINT64;
    PMIX_STORAGE_ID = "pmix.strg.id", PMIX_STRING;
    PMIX_STORAGE_PATH = "pmix.strg.path", PMIX_STRING;
    PMIX_STORAGE_TYPE = "pmix.strg.type", PMIX_STRING;
    PMIX_STORAGE_ACCESSIBILITY = "pmix.strg.access", PMIX_STOR_ACCESS;
    PMIX_STORAGE_ACCESS_TYPE = "pmix.strg.atype", PMIX_STOR_ACCESS_TYPE;
    PMIX_STORAGE_BW_CUR = "pmix.strg.bwcur", PMIX_DOUBLE;
    PMIX_STORAGE_BW_MAX = "pmix.strg.bwmax", PMIX_DOUBLE;
    PMIX_STORAGE_CAPACITY_USED = "pmix.strg.capuse", PMIX_DOUBLE;
    PMIX_STORAGE_IOPS_CUR = "pmix.strg.iopscur", PMIX_DOUBLE;
    PMIX_STORAGE_IOPS_MAX = "pmix.strg.iopsmax", PMIX_DOUBLE;
    PMIX_STORAGE_MEDIUM = "pmix.strg.medium", PMIX_STOR_MEDIUM;
    PMIX_STORAGE_MINIMAL_XFER_SIZE = "pmix.strg.minxfer", PMIX_DOUBLE;
    PMIX_STORAGE_OBJECTS_USED = "pmix.strg.objuse", PMIX_UINT64;
    PMIX_STORAGE_PERSISTENCE = "pmix.strg.persist", PMIX_STOR_PERSIST;
    PMIX_STORAGE_SUGGESTED_XFER_SIZE = "pmix.strg.sxfer", PMIX_DOUBLE;
    PMIX_STORAGE_VERSION = "pmix.strg.ver", PMIX_STRING;
    PMIX_FABRIC_COST_MATRIX = "pmix.fab.cm", PMIX_POINTER;
    PMIX_FABRIC_GROUPS = "pmix.fab.grps", PMIX_STRING;
    PMIX_FABRIC_VENDOR = "pmix.fab.vndr", PMIX_STRING;
    PMIX_FABRIC_IDENTIFIER = "pmix.fab.id", PMIX_STRING;
    PMIX_FABRIC_INDEX = "pmix.fab.idx", PMIX_SIZE;
    PMIX_FABRIC_COORDINATES = "pmix.fab.coord", PMIX_DATA_ARRAY;
    PMIX_FABRIC_DEVICE_VENDORID = "pmix.fabdev.vendid", PMIX_STRING;
    PMIX_FABRIC_NUM_DEVICES = "pmix.fab.nverts", PMIX_SIZE;
    PMIX_FABRIC_DIMS = "pmix.fab.dims", PMIX_UINT32;
    PMIX_FABRIC_PLANE = "pmix.fab.plane", PMIX_STRING;
    PMIX_FABRIC_SWITCH = "pmix.fab.switch", PMIX_STRING;
    PMIX_FABRIC_ENDPT = "pmix.fab.endpt", PMIX_DATA_ARRAY;
    PMIX_FABRIC_SHAPE = "pmix.fab.shape", PMIX_DATA_ARRAY;
    PMIX_FABRIC_SHAPE_STRING = "pmix.fab.shapestr", PMIX_STRING;
    PMIX_SWITCH_PEERS = "pmix.speers", PMIX_DATA_ARRAY;
    PMIX_FABRIC_DEVICE = "pmix.fabdev", PMIX_DATA_ARRAY;
    PMIX_FABRIC_DEVICES = "pmix.fab.devs", PMIX_DATA_ARRAY;
    PMIX_FABRIC_DEVICE_NAME = "pmix.fabdev.nm", PMIX_STRING;
    PMIX_FABRIC_DEVICE_INDEX = "pmix.fabdev.idx", PMIX_UINT32;
    PMIX_FABRIC_DEVICE_VENDOR = "pmix.fabdev.vndr", PMIX_STRING;
    PMIX_FABRIC_DEVICE_BUS_TYPE = "pmix.fabdev.btyp", PMIX_STRING;
    PMIX_FABRIC_DEVICE_DRIVER = "pmix.fabdev.driver", PMIX_STRING;
    PMIX_FABRIC_DEVICE_FIRMWARE = "pmix.fabdev.fmwr", PMIX_STRING;
    PMIX_FABRIC_DEVICE_ADDRESS = "pmix.fabdev.addr", PMIX_STRING;
    PMIX_FABRIC_DEVICE_COORDINATES = "pmix.fabdev.coord", PMIX_GEOMETRY;
    PMIX_FABRIC_DEVICE_MTU = "pmix.fabdev.mtu", PMIX_SIZE;
    PMIX_FABRIC_DEVICE_SPEED = "pmix.fabdev.speed", PMIX_SIZE;
    PMIX_FABRIC_DEVICE_STATE = "pmix.fabdev.state", PMIX_LINK_STATE;
    PMIX_FABRIC_DEVICE_TYPE = "pmix.fabdev.type", PMIX_STRING;
    PMIX_FABRIC_DEVICE_PCI_DEVID = "pmix.fabdev.pcidevid", PMIX_STRING;
    PMIX_DEVICE_DISTANCES = "pmix.dev.dist", PMIX_DATA_ARRAY;
    PMIX_DEVICE_TYPE = "pmix.dev.type", PMIX_DEVTYPE;
    PMIX_DEVICE_ID = "pmix.dev.id", PMIX_STRING;
    PMIX_MAX_VALUE = "pmix.descr.maxval", PMIX_UNDEF;
    PMIX_MIN_VALUE = "pmix.descr.minval", PMIX_UNDEF;
    PMIX_ENUM_VALUE = "pmix.descr.enum", PMIX_STRING;
    PMIX_QUERY_STABLE_ABI_VERSION = "pmix.qry.stabiver", PMIX_STRING;
    PMIX_QUERY_PROVISIONAL_ABI_VERSION = "pmix.qry.prabiver", PMIX_STRING;
    PMIX_VERSION_NUMERIC = "pmix.vers.num", PMIX_UINT32;
    #[deprecated] PMIX_EVENT_BASE = "pmix.evbase", PMIX_POINTER;
    #[deprecated] PMIX_CRYPTO_KEY = "pmix.sec.key", PMIX_BYTE_OBJECT;
    #[deprecated] PMIX_TOPOLOGY = "pmix.topo", PMIX_POINTER;
    #[deprecated] PMIX_DEBUG_JOB = "pmix.dbg.job", PMIX_STRING;
    #[deprecated] PMIX_RECONNECT_SERVER = "pmix.cnct.recon", PMIX_BOOL;
    #[deprecated] PMIX_USOCK_DISABLE = "pmix.usock.disable", PMIX_BOOL;
    #[deprecated] PMIX_SOCKET_MODE = "pmix.sockmode", PMIX_UINT32;
    #[deprecated] PMIX_SINGLE_LISTENER = "pmix.sing.listnr", PMIX_BOOL;
    #[deprecated] PMIX_ALLOC_NETWORK = "pmix.alloc.net", PMIX_DATA_ARRAY;
    #[deprecated] PMIX_ALLOC_NETWORK_ID = "pmix.alloc.netid", PMIX_STRING;
    #[deprecated] PMIX_ALLOC_NETWORK_QOS = "pmix.alloc.netqos", PMIX_STRING;
    #[deprecated] PMIX_ALLOC_NETWORK_TYPE = "pmix.alloc.nettype", PMIX_STRING;
    #[deprecated] PMIX_ALLOC_NETWORK_PLANE = "pmix.alloc.netplane", PMIX_STRING;
    #[deprecated] PMIX_ALLOC_NETWORK_ENDPTS = "pmix.alloc.endpts", PMIX_SIZE;
    #[deprecated] PMIX_ALLOC_NETWORK_ENDPTS_NODE = "pmix.alloc.endpts.nd", PMIX_SIZE;
    #[deprecated] PMIX_ALLOC_NETWORK_SEC_KEY = "pmix.alloc.nsec", PMIX_BYTE_OBJECT;
    #[deprecated] PMIX_PROC_DATA = "pmix.pdata", PMIX_DATA_ARRAY;
    #[deprecated] PMIX_LOCALITY = "pmix.loc", PMIX_UINT16;
    #[deprecated] PMIX_LOCAL_TOPO = "pmix.ltopo", PMIX_STRING;
    #[deprecated] PMIX_TOPOLOGY_XML = "pmix.topo.xml", PMIX_STRING;
    #[deprecated] PMIX_TOPOLOGY_FILE = "pmix.topo.file", PMIX_STRING;
    #[deprecated] PMIX_TOPOLOGY_SIGNATURE = "pmix.toposig", PMIX_STRING;
    #[deprecated] PMIX_HWLOC_SHMEM_ADDR = "pmix.hwlocaddr", PMIX_SIZE;
    #[deprecated] PMIX_HWLOC_SHMEM_SIZE = "pmix.hwlocsize", PMIX_SIZE;
    #[deprecated] PMIX_HWLOC_SHMEM_FILE = "pmix.hwlocfile", PMIX_STRING;
    #[deprecated] PMIX_HWLOC_XML_V1 = "pmix.hwlocxml1", PMIX_STRING;
    #[deprecated] PMIX_HWLOC_XML_V2 = "pmix.hwlocxml2", PMIX_STRING;
    #[deprecated] PMIX_HWLOC_SHARE_TOPO = "pmix.hwlocsh", PMIX_BOOL;
    #[deprecated] PMIX_HWLOC_HOLE_KIND = "pmix.hwlocholek", PMIX_STRING;
    #[deprecated] PMIX_DSTPATH = "pmix.dstpath", PMIX_STRING;
    #[deprecated] PMIX_COLLECTIVE_ALGO = "pmix.calgo", PMIX_STRING;
    #[deprecated] PMIX_COLLECTIVE_ALGO_REQD = "pmix.calreqd", PMIX_BOOL;
    #[deprecated] PMIX_PROC_BLOB = "pmix.pblob", PMIX_BYTE_OBJECT;
    #[deprecated] PMIX_MAP_BLOB = "pmix.mblob", PMIX_BYTE_OBJECT;
    #[deprecated] PMIX_MAPPER = "pmix.mapper", PMIX_STRING;
    #[deprecated] PMIX_NON_PMI = "pmix.nonpmi", PMIX_BOOL;
    #[deprecated] PMIX_PROC_URI = "pmix.puri", PMIX_STRING;
    #[deprecated] PMIX_ARCH = "pmix.arch", PMIX_UINT32;
    #[deprecated] PMIX_DEBUG_JOB_DIRECTIVES = "pmix.dbg.jdirs", PMIX_DATA_ARRAY;
    #[deprecated] PMIX_DEBUG_APP_DIRECTIVES = "pmix.dbg.adirs", PMIX_DATA_ARRAY;
    #[deprecated] PMIX_EVENT_NO_TERMINATION = "pmix.evnoterm", PMIX_BOOL;
    #[deprecated] PMIX_EVENT_WANT_TERMINATION = "pmix.evterm", PMIX_BOOL;
    #[deprecated] PMIX_TAG_OUTPUT = "pmix.tagout", PMIX_BOOL;
    #[deprecated] PMIX_TIMESTAMP_OUTPUT = "pmix.tsout", PMIX_BOOL;
    #[deprecated] PMIX_MERGE_STDERR_STDOUT = "pmix.mergeerrout", PMIX_BOOL;
    #[deprecated] PMIX_OUTPUT_TO_FILE = "pmix.outfile", PMIX_STRING;
    #[deprecated] PMIX_OUTPUT_TO_DIRECTORY = "pmix.outdir", PMIX_STRING;
    #[deprecated] PMIX_OUTPUT_NOCOPY = "pmix.nocopy", PMIX_BOOL;
    #[deprecated] PMIX_GDS_MODULE = "pmix.gds.mod", PMIX_STRING;
    #[deprecated] PMIX_BFROPS_MODULE = "pmix.bfrops.mod", PMIX_STRING;
    #[deprecated] PMIX_PNET_SETUP_APP = "pmix.pnet.setapp", PMIX_BYTE_OBJECT;
    #[deprecated] PMIX_IOF_STOP = "pmix.iof.stop", PMIX_BOOL;
    #[deprecated] PMIX_NOTIFY_LAUNCH = "pmix.note.lnch", PMIX_BOOL;
}

/// pmix-rs extension (not an OpenPMIx key; own `pmixrs.` namespace): a host passes this
/// key (a `bool`, true) in the `info` array of `PMIx_server_init` to say that its
/// `pmix_server_module_t` has all 32 slots of OpenPMIx master. Without it only the first
/// 28 slots (OpenPMIx 4.2.2's 224-byte table) are read. Declared in `pmix_server.h`.
pub const PMIX_SERVER_MODULE_V7: &str = "pmixrs.srvr.mod32";

/// Look an attribute up by its key string.
pub fn attr_by_key(key: &str) -> Option<&'static AttrDef> {
    ATTR_TABLE.iter().find(|a| a.key == key)
}

/// Look an attribute up by its C name (`"PMIX_JOB_SIZE"`).
pub fn attr_by_name(name: &str) -> Option<&'static AttrDef> {
    ATTR_TABLE.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_unique_keys_fit() {
        let mut names: Vec<_> = ATTR_TABLE.iter().map(|a| a.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len(), "duplicate attribute name");
        assert_eq!(n, 677);
        for a in ATTR_TABLE {
            assert!(!a.key.is_empty() && a.key.len() <= crate::types::PMIX_MAX_KEYLEN);
            assert!(!a.key.contains('"') && !a.key.contains('\\'));
        }
    }

    #[test]
    fn master_values_of_the_three_changed_keys() {
        assert_eq!(keys::PMIX_QUERY_SUPPORTED_QUALIFIERS, "pmix.qry.supqual");
        assert_eq!(
            keys::PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT,
            "pmix.jctrl.ckpttime"
        );
        assert_eq!(keys::PMIX_FABRIC_DEVICE_COORDINATES, "pmix.fabdev.coord");
        assert_eq!(
            attr_by_key("pmix.job.size").map(|a| a.dtype),
            Some(PMIX_UINT32)
        );
        assert_eq!(
            attr_by_name("PMIX_VERSION_NUMERIC").map(|a| a.key),
            Some("pmix.vers.num")
        );
    }
}
