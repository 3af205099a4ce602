//! The reserved keys the engine itself interprets (values are OpenPMIx's key strings).
//!
//! The attribute table in `pmix_sys::attrs` is the one place where attributes are
//! declared; these constants exist only because the engine needs these keys before that
//! table lists them all. A unit test checks every constant here against the table
//! wherever the table has the attribute, so the two cannot drift apart.

macro_rules! engine_keys {
    ($( $name:ident = $attr:ident = $key:expr; )*) => {
        $( #[doc = concat!("`", stringify!($attr), "`")] pub const $name: &str = $key; )*
        #[cfg(test)]
        pub(crate) static ALL: &[(&str, &str)] = &[ $( (stringify!($attr), $key), )* ];
    };
}

engine_keys! {
    PROC_DATA = PMIX_PROC_DATA = "pmix.pdata";
    APP_INFO_ARRAY = PMIX_APP_INFO_ARRAY = "pmix.app.arr";
    NODE_INFO_ARRAY = PMIX_NODE_INFO_ARRAY = "pmix.node.arr";
    JOB_INFO_ARRAY = PMIX_JOB_INFO_ARRAY = "pmix.job.arr";
    SESSION_INFO_ARRAY = PMIX_SESSION_INFO_ARRAY = "pmix.ssn.arr";
    NODE_MAP = PMIX_NODE_MAP = "pmix.nmap";
    PROC_MAP = PMIX_PROC_MAP = "pmix.pmap";
    LOCAL_PEERS = PMIX_LOCAL_PEERS = "pmix.lpeers";
    NODE_LIST = PMIX_NODE_LIST = "pmix.nlist";
    HOSTNAME = PMIX_HOSTNAME = "pmix.hname";
    NODEID = PMIX_NODEID = "pmix.nodeid";
    LOCAL_SIZE = PMIX_LOCAL_SIZE = "pmix.local.size";
    JOB_SIZE = PMIX_JOB_SIZE = "pmix.job.size";
    APPNUM = PMIX_APPNUM = "pmix.appnum";
    APP_SIZE = PMIX_APP_SIZE = "pmix.app.size";
    NODE_SIZE = PMIX_NODE_SIZE = "pmix.node.size";
    NUM_NODES = PMIX_NUM_NODES = "pmix.num.nodes";
    RANK = PMIX_RANK = "pmix.rank";
    PROCID = PMIX_PROCID = "pmix.procid";
    LOCAL_RANK = PMIX_LOCAL_RANK = "pmix.lrank";
    NODE_RANK = PMIX_NODE_RANK = "pmix.nrank";
    LOCALLDR = PMIX_LOCALLDR = "pmix.lldr";
    TIMEOUT = PMIX_TIMEOUT = "pmix.timeout";
    COLLECT_DATA = PMIX_COLLECT_DATA = "pmix.collect";
    OPTIONAL = PMIX_OPTIONAL = "pmix.optional";
    IMMEDIATE = PMIX_IMMEDIATE = "pmix.immediate";
    GET_REFRESH_CACHE = PMIX_GET_REFRESH_CACHE = "pmix.get.refresh";
    DATA_SCOPE = PMIX_DATA_SCOPE = "pmix.scope";
    GET_POINTER_VALUES = PMIX_GET_POINTER_VALUES = "pmix.get.pntrs";
    GET_STATIC_VALUES = PMIX_GET_STATIC_VALUES = "pmix.get.static";
    SESSION_INFO = PMIX_SESSION_INFO = "pmix.ssn.info";
    JOB_INFO = PMIX_JOB_INFO = "pmix.job.info";
    APP_INFO = PMIX_APP_INFO = "pmix.app.info";
    NODE_INFO = PMIX_NODE_INFO = "pmix.node.info";
    VERSION_NUMERIC = PMIX_VERSION_NUMERIC = "pmix.vers.num";
    SERVER_NSPACE = PMIX_SERVER_NSPACE = "pmix.srv.nspace";
    SERVER_RANK = PMIX_SERVER_RANK = "pmix.srv.rank";
    SERVER_TMPDIR = PMIX_SERVER_TMPDIR = "pmix.srvr.tmpdir";
    SYSTEM_TMPDIR = PMIX_SYSTEM_TMPDIR = "pmix.sys.tmpdir";
    SERVER_HOSTNAME = PMIX_SERVER_HOSTNAME = "pmix.srvr.host";
    REQUIRED_KEY = PMIX_REQUIRED_KEY = "pmix.req.key";
    EVENT_HDLR_NAME = PMIX_EVENT_HDLR_NAME = "pmix.evname";
    EVENT_AFFECTED_PROC = PMIX_EVENT_AFFECTED_PROC = "pmix.evproc";
    EVENT_TEXT_MESSAGE = PMIX_EVENT_TEXT_MESSAGE = "pmix.evtext";
    EXIT_CODE = PMIX_EXIT_CODE = "pmix.exit.code";
    JOB_TERM_STATUS = PMIX_JOB_TERM_STATUS = "pmix.job.term.status";
    REGISTER_NODATA = PMIX_REGISTER_NODATA = "pmix.reg.nodata";
    NSPACE = PMIX_NSPACE = "pmix.nspace";
    SINGLETON = PMIX_SINGLETON = "pmix.singleton";
    SERVER_URI = PMIX_SERVER_URI = "pmix.srvr.uri";
}

#[cfg(test)]
mod tests {
    #[test]
    fn agree_with_the_attribute_table() {
        for (name, key) in super::ALL {
            if let Some(a) = pmix_sys::attrs::ATTR_TABLE.iter().find(|a| a.name == *name) {
                assert_eq!(a.key, *key, "{} differs from the attribute table", name);
            }
        }
    }
}
