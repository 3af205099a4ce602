//! The attribute keys pmixrun registers: the only module of pmixrun that spells key
//! strings.
//!
//! TODO(attrs): `pmix_sys::attrs::keys` is the project's one attribute table; when it
//! holds every key below, replace each literal with a re-export
//! (`pub use pmix_sys::attrs::keys::PMIX_JOB_SIZE;` ...) and delete the literals. The
//! `table_agrees` test already checks every key the table has today against these.
//! The strings are OpenPMIx's (`pmix_common.h`); the value type each key is registered
//! with is the one the PMIx_Get page gives (see `job.rs`).

macro_rules! keys {
    ($( $(#[$m:meta])* $name:ident = $key:expr; )*) => {
        $( $(#[$m])* pub const $name: &str = $key; )*
        /// Every key above as `(name, key string)`, for checks against the table.
        #[cfg(test)]
        pub const ALL: &[(&str, &str)] = &[ $( (stringify!($name), $key), )* ];
    };
}

keys! {
    // Job level.
    PMIX_NSPACE = "pmix.nspace";
    PMIX_JOBID = "pmix.jobid";
    PMIX_JOB_SIZE = "pmix.job.size";
    PMIX_UNIV_SIZE = "pmix.univ.size";
    PMIX_MAX_PROCS = "pmix.max.size";
    PMIX_NUM_SLOTS = "pmix.num.slots";
    PMIX_JOB_NUM_APPS = "pmix.job.napps";
    PMIX_NUM_NODES = "pmix.num.nodes";
    PMIX_NUM_ALLOCATED_NODES = "pmix.num.anodes";
    PMIX_NODE_MAP = "pmix.nmap";
    PMIX_PROC_MAP = "pmix.pmap";
    PMIX_NPROC_OFFSET = "pmix.offset";
    PMIX_SESSION_ID = "pmix.session.id";
    PMIX_TMPDIR = "pmix.tmpdir";
    PMIX_NSDIR = "pmix.nsdir";
    PMIX_TDIR_RMCLEAN = "pmix.tdir.rmclean";
    PMIX_NODE_LIST = "pmix.nlist";
    PMIX_ALLOCATED_NODELIST = "pmix.alist";
    PMIX_SPAWNED = "pmix.spawned";
    PMIX_NODE_OVERSUBSCRIBED = "pmix.ndosub";

    // Node level (also registered at job level for this node, as Open MPI does).
    PMIX_HOSTNAME = "pmix.hname";
    PMIX_NODEID = "pmix.nodeid";
    PMIX_LOCAL_SIZE = "pmix.local.size";
    PMIX_NODE_SIZE = "pmix.node.size";
    PMIX_LOCAL_PEERS = "pmix.lpeers";
    PMIX_LOCAL_PROCS = "pmix.lprocs";
    PMIX_LOCALLDR = "pmix.lldr";

    // App level.
    PMIX_APPNUM = "pmix.appnum";
    PMIX_APP_SIZE = "pmix.app.size";
    PMIX_APPLDR = "pmix.aldr";
    PMIX_APP_ARGV = "pmix.app.argv";
    PMIX_WDIR = "pmix.wdir";

    // Process level.
    PMIX_RANK = "pmix.rank";
    PMIX_GLOBAL_RANK = "pmix.grank";
    PMIX_APP_RANK = "pmix.apprank";
    PMIX_LOCAL_RANK = "pmix.lrank";
    PMIX_NODE_RANK = "pmix.nrank";
    PMIX_PROCDIR = "pmix.pdir";
    PMIX_REINCARNATION = "pmix.reinc";
    PMIX_PROC_PID = "pmix.ppid";

    // The arrays a host uses to group app-, node- and process-level data in
    // `register_nspace` (`PMIX_PROC_DATA` is the deprecated name of `PMIX_PROC_INFO_ARRAY`).
    PMIX_APP_INFO_ARRAY = "pmix.app.arr";
    PMIX_NODE_INFO_ARRAY = "pmix.node.arr";
    PMIX_PROC_INFO_ARRAY = "pmix.pdata";
}

#[cfg(test)]
mod tests {
    use pmix_sys::attrs::attr_by_key;

    /// Every key here that the project's table already has must have the same name there.
    #[test]
    fn table_agrees() {
        for (name, key) in super::ALL {
            if let Some(row) = attr_by_key(key) {
                assert_eq!(row.name, *name, "{key}");
            }
        }
        let mut keys: Vec<&str> = super::ALL.iter().map(|(_, k)| *k).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), super::ALL.len(), "duplicate key string");
    }
}
