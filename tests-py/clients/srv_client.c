/* srv_client: a C client of tests-py/hosts/pyhost.py (a PMIx host written in Python),
 * started by that host with the environment its setup_fork made.
 *
 * Reads the job info and resources the host registered, exchanges a key with a
 * collecting fence (the host's fencenb hands the data back), publishes (rank 0) and
 * looks up through the host's callables. Prints one "ok - ..." / "FAIL - ..." line per
 * check; the exit status is the verdict. */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t me;
static int failures;

static void check(bool cond, const char *what, pmix_status_t rc)
{
    if (!cond) {
        failures++;
    }
    printf("[c%u] %s - %s (%s)\n", me.rank, cond ? "ok" : "FAIL", what, PMIx_Error_string(rc));
    fflush(stdout);
}

/* Get a string `key` of `proc` and compare it with `want`. */
static void check_string(const pmix_proc_t *proc, const char *key, const char *want,
                         const char *what)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, &v);
    check(PMIX_SUCCESS == rc && v && PMIX_STRING == v->type && 0 == strcmp(v->data.string, want),
          what, rc);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
}

static void exchange(const pmix_proc_t *job, uint32_t size)
{
    char mine[64], theirs[64];
    snprintf(mine, sizeof mine, "c value of rank %u", me.rank);
    pmix_value_t val;
    val.type = PMIX_STRING;
    val.data.string = mine;
    check(PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, "c.rank", &val), "put", PMIX_SUCCESS);
    check(PMIX_SUCCESS == PMIx_Commit(), "commit", PMIX_SUCCESS);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(job, 1, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    check(PMIX_SUCCESS == rc, "fence with PMIX_COLLECT_DATA through the host's fencenb", rc);
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % (size - 1)); /* the last is remote */
    snprintf(theirs, sizeof theirs, "c value of rank %u", peer.rank);
    check_string(&peer, "c.rank", theirs, "the peer's key after the fence");
}

static void name_service(const pmix_proc_t *job)
{
    pmix_status_t rc;
    if (0 == me.rank) {
        pmix_info_t pub;
        PMIX_INFO_LOAD(&pub, "c.pub", "published by C rank 0", PMIX_STRING);
        rc = PMIx_Publish(&pub, 1);
        PMIX_INFO_DESTRUCT(&pub);
        check(PMIX_SUCCESS == rc, "publish through the host", rc);
    }
    rc = PMIx_Fence(job, 1, NULL, 0);
    check(PMIX_SUCCESS == rc, "second fence", rc);
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, "c.pub");
    rc = PMIx_Lookup(&pd, 1, NULL, 0);
    check(PMIX_SUCCESS == rc && PMIX_STRING == pd.value.type &&
              0 == strcmp(pd.value.data.string, "published by C rank 0") && 0 == pd.proc.rank,
          "lookup answered by the host", rc);
    PMIX_PDATA_DESTRUCT(&pd);
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        printf("[c?] FAIL - PMIx_Init (%s)\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    uint32_t size = (PMIX_SUCCESS == rc && v && PMIX_UINT32 == v->type) ? v->data.uint32 : 0;
    check(3 == size, "job size from the host's register_nspace (2 here, 1 elsewhere)", rc);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    if (size < 2) {
        size = 2;
    }
    check_string(&job, "pyhost.jobkey", "from the python host", "a job key of the host");
    check_string(&job, PMIX_CLUSTER_ID, "pyhost-cluster", "a resource the host registered");
    exchange(&job, size);
    name_service(&job);
    rc = PMIx_Finalize(NULL, 0);
    check(PMIX_SUCCESS == rc, "finalize", rc);
    return failures ? 1 : 0;
}
