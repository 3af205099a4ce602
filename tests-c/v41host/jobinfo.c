/* One rank launched by Debian's Open MPI 4.1.4 mpirun whose mpirun/orted runs our
 * server library (tests-c/v41host/run.sh); the rank itself is built against Debian's
 * OpenPMIx 4.2.2 and speaks v41 to our server. It checks the job data an ORTE host
 * registers as an OpenPMIx client's hash GDS reads it:
 *   PMIX_JOB_SIZE, PMIX_LOCAL_SIZE, PMIX_UNIV_SIZE, PMIX_LOCAL_PEERS (job level),
 *   PMIX_APPNUM of the job and of its own rank, PMIX_HOSTNAME of the job (the local
 *   node) and of its own rank, PMIX_NODEID and PMIX_LOCAL_RANK of its own rank;
 * then a Put, a collecting fence and a Get of every peer's key.
 * Prints ok/FAIL lines and "jobinfo.c: N checks, M failed". */
#include "../check.h"
#include "putfence.h"
#include <pmix.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;

/* Get `key` of `rank` (of our namespace) as a value; NULL (and a FAIL) when absent. */
static pmix_value_t *get(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && NULL != v, "Get(%s rank %u): %s", key, rank,
          PMIx_Error_string(rc));
    return PMIX_SUCCESS == rc ? v : NULL;
}

static long number(pmix_value_t *v)
{
    if (NULL == v) return -1;
    switch (v->type) {
    case PMIX_UINT32: return (long) v->data.uint32;
    case PMIX_UINT16: return (long) v->data.uint16;
    case PMIX_PROC_RANK: return (long) v->data.rank;
    case PMIX_INT: return (long) v->data.integer;
    default: return -2;
    }
}

static long get_num(pmix_rank_t rank, const char *key)
{
    pmix_value_t *v = get(rank, key);
    long n = number(v);
    if (NULL != v) PMIX_VALUE_RELEASE(v);
    return n;
}

int main(void)
{
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    long size = get_num(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    const char *want = getenv("JOBINFO_NP");
    CHECK(NULL == want || size == atol(want), "job size %ld (want %s)", size, want);
    CHECK(get_num(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE) == size, "local size");
    CHECK(get_num(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE) >= 1, "universe size (the slots)");
    pmix_value_t *v = get(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
    CHECK(NULL != v && PMIX_STRING == v->type, "local peers %s",
          NULL != v && PMIX_STRING == v->type ? v->data.string : "?");
    if (NULL != v) PMIX_VALUE_RELEASE(v);
    CHECK(get_num(PMIX_RANK_WILDCARD, PMIX_APPNUM) == 0, "job appnum 0");
    CHECK(get_num(me.rank, PMIX_APPNUM) == 0, "own appnum 0");
    CHECK(get_num(me.rank, PMIX_LOCAL_RANK) == (long) me.rank, "own local rank");
    CHECK(get_num(me.rank, PMIX_NODEID) == 0, "own node id 0");
    v = get(PMIX_RANK_WILDCARD, PMIX_HOSTNAME);
    CHECK(NULL != v && PMIX_STRING == v->type && 0 == strcmp(v->data.string, host),
          "job hostname %s (this host %s)",
          NULL != v && PMIX_STRING == v->type ? v->data.string : "?", host);
    if (NULL != v) PMIX_VALUE_RELEASE(v);
    v = get(me.rank, PMIX_HOSTNAME);
    CHECK(NULL != v && PMIX_STRING == v->type && 0 == strcmp(v->data.string, host),
          "own hostname");
    if (NULL != v) PMIX_VALUE_RELEASE(v);

    put_and_fence("jobinfo.k", me.rank * 3 + 11);
    int good = 0;
    for (long r = 0; r < size; r++) {
        if (get_num((pmix_rank_t) r, "jobinfo.k") == r * 3 + 11) good++;
    }
    CHECK(good == size, "every peer's key (%d of %ld)", good, size);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "final fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
