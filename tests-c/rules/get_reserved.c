/* get_reserved: rule "every reserved key the PMIx_Get page lists is provided where the
 * host gave or implies it, with the page's type, for self, peers and the job".
 *
 * One row per key of the page's RESERVED KEYS section (the self-referential PMIX_RANK and
 * PMIX_PROCID are get_selfref's). For each, where pmixrun provides it (S = the caller,
 * P = a peer, J = the job through rank WILDCARD): the Get succeeds with the page's type.
 * Everywhere else it is PMIX_ERR_NOT_FOUND at once (reserved keys are never waited for).
 * Values are job_info's business (tests-c/runtime/job_info.c); a few are checked here too.
 *
 * Keys pmixrun does not provide, and why: PMIX_PACKAGE_RANK and PMIX_CPUSET_BITMAP (it
 * binds no process, so none resides on a package or has a launch binding),
 * PMIX_HOSTNAME_ALIASES, PMIX_CLUSTER_ID and PMIX_CREDENTIAL (it knows none),
 * PMIX_LOCAL_CPUSETS (no binding), PMIX_PARENT_ID (nothing is spawned), PMIX_EXIT_CODE
 * (no process has terminated while its peers read), PMIX_SWITCH_PEERS (no fabric; the
 * nested form is rules_host's "fabric" case).
 * Run: pmixrun -n 3 get_reserved */
#include "rules.h"

#define S 1
#define P 2
#define J 4

struct row {
    const char *key;
    pmix_data_type_t type;
    int where;
};

static const struct row rows[] = {
    /* Process identity and rank */
    {PMIX_NSPACE, PMIX_STRING, S | P | J},
    {PMIX_JOBID, PMIX_STRING, S | P | J},
    {PMIX_GLOBAL_RANK, PMIX_PROC_RANK, S | P},
    {PMIX_APP_RANK, PMIX_PROC_RANK, S | P},
    {PMIX_LOCAL_RANK, PMIX_UINT16, S | P},
    {PMIX_NODE_RANK, PMIX_UINT16, S | P},
    {PMIX_PACKAGE_RANK, PMIX_UINT16, 0},
    {PMIX_NPROC_OFFSET, PMIX_PROC_RANK, S | P | J},
    {PMIX_LOCALLDR, PMIX_PROC_RANK, S | P | J},
    {PMIX_APPLDR, PMIX_PROC_RANK, S | P | J},
    {PMIX_APPNUM, PMIX_UINT32, S | P | J},
    {PMIX_SESSION_ID, PMIX_UINT32, S | P | J},
    {PMIX_PROC_PID, PMIX_PID, S | P},
    /* Node and host information */
    {PMIX_HOSTNAME, PMIX_STRING, S | P | J},
    {PMIX_HOSTNAME_ALIASES, PMIX_STRING, 0},
    {PMIX_HOSTNAME_KEEP_FQDN, PMIX_BOOL, S | P | J},
    {PMIX_NODEID, PMIX_UINT32, S | P | J},
    {PMIX_CLUSTER_ID, PMIX_STRING, 0},
    {PMIX_NODE_LIST, PMIX_STRING, S | P | J},
    {PMIX_ALLOCATED_NODELIST, PMIX_STRING, S | P | J},
    {PMIX_LOCAL_PEERS, PMIX_STRING, S | P | J},
    {PMIX_LOCAL_PROCS, PMIX_DATA_ARRAY, S | P | J},
    {PMIX_LOCAL_CPUSETS, PMIX_STRING, 0},
    /* Sizes and counts */
    {PMIX_UNIV_SIZE, PMIX_UINT32, S | P | J},
    {PMIX_JOB_SIZE, PMIX_UINT32, S | P | J},
    {PMIX_JOB_NUM_APPS, PMIX_UINT32, S | P | J},
    {PMIX_APP_SIZE, PMIX_UINT32, S | P | J},
    {PMIX_LOCAL_SIZE, PMIX_UINT32, S | P | J},
    {PMIX_NODE_SIZE, PMIX_UINT32, S | P | J},
    {PMIX_MAX_PROCS, PMIX_UINT32, S | P | J},
    {PMIX_NUM_SLOTS, PMIX_UINT32, S | P | J},
    {PMIX_NUM_NODES, PMIX_UINT32, S | P | J},
    {PMIX_NUM_ALLOCATED_NODES, PMIX_UINT32, S | P | J},
    /* Scratch directories */
    {PMIX_TMPDIR, PMIX_STRING, S | P | J},
    {PMIX_NSDIR, PMIX_STRING, S | P | J},
    {PMIX_PROCDIR, PMIX_STRING, S | P},
    {PMIX_TDIR_RMCLEAN, PMIX_BOOL, S | P | J},
    /* Process state and launch */
    {PMIX_SPAWNED, PMIX_BOOL, S | P | J},
    {PMIX_PARENT_ID, PMIX_PROC, 0},
    {PMIX_EXIT_CODE, PMIX_INT, 0},
    {PMIX_REINCARNATION, PMIX_UINT32, S | P},
    {PMIX_NODE_OVERSUBSCRIBED, PMIX_BOOL, S | P | J},
    {PMIX_CPUSET_BITMAP, PMIX_PROC_CPUSET, 0},
    {PMIX_CREDENTIAL, PMIX_STRING, 0},
    /* Process set membership */
    {PMIX_PSET_NAMES, PMIX_DATA_ARRAY, S | P | J}, /* the server answers for the job too */
    /* Fabric locality */
    {PMIX_SWITCH_PEERS, PMIX_DATA_ARRAY, 0},
};
#define NROWS (sizeof rows / sizeof rows[0])

static void check_row(const struct row *r, const pmix_proc_t *p, int level, const char *who)
{
    pmix_value_t *v = NULL;
    double t0 = now();
    pmix_status_t rc = PMIx_Get(p, r->key, NULL, 0, &v);
    double dt = now() - t0;
    if (r->where & level) {
        CHECK(PMIX_SUCCESS == rc && v && v->type == r->type, "%s %s: %s, type %s (page: %s)", who,
              r->key, PMIx_Error_string(rc), v ? PMIx_Data_type_string(v->type) : "-",
              PMIx_Data_type_string(r->type));
    } else {
        CHECK(PMIX_ERR_NOT_FOUND == rc && dt < 2.0, "%s %s: not provided, %s at once (%.2f s)",
              who, r->key, PMIx_Error_string(rc), dt);
    }
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
}

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    for (size_t i = 0; i < NROWS; i++) {
        check_row(&rows[i], &me, S, "self");
        if (nprocs > 1) {
            check_row(&rows[i], &peer, P, "peer");
        }
        check_row(&rows[i], &job, J, "job");
    }

    /* PMIX_PSET_NAMES is an array of strings (pmixrun defines no process set, so it is
     * empty); PMIX_LOCAL_PROCS an array of procs. */
    pmix_value_t *v = NULL;
    if (PMIX_SUCCESS == PMIx_Get(&peer, PMIX_PSET_NAMES, NULL, 0, &v) && v) {
        CHECK(v->data.darray && v->data.darray->type == PMIX_STRING && 0 == v->data.darray->size,
              "PMIX_PSET_NAMES: an empty array of strings");
        PMIX_VALUE_RELEASE(v);
    }
    v = NULL;
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_LOCAL_PROCS, NULL, 0, &v) && v) {
        CHECK(v->data.darray && v->data.darray->type == PMIX_PROC && v->data.darray->size == nprocs,
              "PMIX_LOCAL_PROCS: an array of %u procs", nprocs);
        PMIX_VALUE_RELEASE(v);
    }
    v = NULL;
    if (PMIX_SUCCESS == PMIx_Get(&peer, PMIX_GLOBAL_RANK, NULL, 0, &v) && v) {
        CHECK(v->data.rank == peer.rank, "peer PMIX_GLOBAL_RANK is the peer's (%u)", v->data.rank);
        PMIX_VALUE_RELEASE(v);
    }

    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
