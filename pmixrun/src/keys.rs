//! The attribute keys pmixrun registers, taken from the project's one attribute table
//! (`pmix_sys::attrs::keys`); pmixrun spells no key string itself. The value type each
//! key is registered with is the one the PMIx_Get page gives (checked in `job.rs`
//! against the page and against the table).

macro_rules! keys {
    ($( $name:ident, )*) => {
        pub use pmix_sys::attrs::keys::{ $( $name, )* };
        /// Every key above as `(name, key string)`, so tests can check each is registered.
        #[cfg(test)]
        pub const ALL: &[(&str, &str)] = &[ $( (stringify!($name), $name), )* ];
    };
}

keys! {
    // Job level.
    PMIX_NSPACE,
    PMIX_JOBID,
    PMIX_JOB_SIZE,
    PMIX_UNIV_SIZE,
    PMIX_MAX_PROCS,
    PMIX_NUM_SLOTS,
    PMIX_JOB_NUM_APPS,
    PMIX_NUM_NODES,
    PMIX_NUM_ALLOCATED_NODES,
    PMIX_NODE_MAP,
    PMIX_PROC_MAP,
    PMIX_NPROC_OFFSET,
    PMIX_SESSION_ID,
    PMIX_TMPDIR,
    PMIX_NSDIR,
    PMIX_TDIR_RMCLEAN,
    PMIX_NODE_LIST,
    PMIX_ALLOCATED_NODELIST,
    PMIX_SPAWNED,
    PMIX_NODE_OVERSUBSCRIBED,
    PMIX_HOSTNAME_KEEP_FQDN,

    // Node level (also registered at job level for this node, as Open MPI does).
    PMIX_HOSTNAME,
    PMIX_NODEID,
    PMIX_LOCAL_SIZE,
    PMIX_NODE_SIZE,
    PMIX_LOCAL_PEERS,
    PMIX_LOCAL_PROCS,
    PMIX_LOCALLDR,

    // App level.
    PMIX_APPNUM,
    PMIX_APP_SIZE,
    PMIX_APPLDR,
    PMIX_APP_ARGV,
    PMIX_WDIR,

    // Process level.
    PMIX_RANK,
    PMIX_GLOBAL_RANK,
    PMIX_APP_RANK,
    PMIX_PROCDIR,
    PMIX_REINCARNATION,
    PMIX_PROC_PID,

    // The arrays a host uses to group app-, node- and process-level data in
    // `register_nspace` (`PMIX_PROC_DATA` is the deprecated name of `PMIX_PROC_INFO_ARRAY`).
    PMIX_APP_INFO_ARRAY,
    PMIX_NODE_INFO_ARRAY,
    PMIX_PROC_INFO_ARRAY,
}
