/* One rank of OUR library under tests-c/v41host/host.c (a host on Debian's OpenPMIx
 * 4.2.2): it reaches OpenPMIx's server through the rendezvous setup_fork gave it and
 * speaks v41. Checks job data, Put/Commit, a collecting fence and every peer's key,
 * Publish (rank 0) / Lookup (the others) through the host's callbacks, Unpublish, and
 * Finalize. Prints ok/FAIL lines and "client.c: N checks, M failed". */
#include "../check.h"
#include "putfence.h"
#include <pmix.h>
#include <string.h>

static pmix_proc_t me;

static long job_u32(const char *key)
{
    pmix_proc_t w;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&w, me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Get(&w, key, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && PMIX_UINT32 == v->type, "Get(%s): %s", key,
          PMIx_Error_string(rc));
    long out = PMIX_SUCCESS == rc && PMIX_UINT32 == v->type ? (long) v->data.uint32 : -1;
    if (v) PMIX_VALUE_RELEASE(v);
    return out;
}

int main(void)
{
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    CHECK(NULL != strstr(PMIx_Get_version(), "pmix-rs"), "running on %s",
          PMIx_Get_version());
    CHECK(0 == strcmp(me.nspace, "v41host"), "nspace %s", me.nspace);
    long n = job_u32(PMIX_JOB_SIZE);
    CHECK(n >= 1, "job size %ld", n);
    CHECK(job_u32(PMIX_LOCAL_SIZE) == n, "local size");

    put_and_fence("v41h.k", me.rank * 5 + 2);
    int good = 0;
    for (long r = 0; r < n; r++) {
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&p, me.nspace, (pmix_rank_t) r);
        if (PMIX_SUCCESS == PMIx_Get(&p, "v41h.k", NULL, 0, &v) && PMIX_UINT32 == v->type &&
            v->data.uint32 == (uint32_t) r * 5 + 2) {
            good++;
        }
        if (v) PMIX_VALUE_RELEASE(v);
    }
    CHECK(good == n, "every peer's key (%d of %ld)", good, n);

    if (0 == me.rank) {
        pmix_info_t pub;
        PMIX_INFO_LOAD(&pub, "v41h.svc", "port-7", PMIX_STRING);
        CHECK_RC(PMIx_Publish(&pub, 1), PMIX_SUCCESS, "Publish");
        PMIX_INFO_DESTRUCT(&pub);
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence after publish");
    if (0 != me.rank) {
        pmix_pdata_t pd;
        PMIX_PDATA_CONSTRUCT(&pd);
        PMIX_LOAD_KEY(pd.key, "v41h.svc");
        pmix_status_t rc = PMIx_Lookup(&pd, 1, NULL, 0);
        CHECK(PMIX_SUCCESS == rc && PMIX_STRING == pd.value.type &&
                  0 == strcmp(pd.value.data.string, "port-7") && 0 == pd.proc.rank,
              "Lookup: %s", PMIx_Error_string(rc));
        PMIX_PDATA_DESTRUCT(&pd);
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence after lookup");
    if (0 == me.rank) {
        char *keys[] = {"v41h.svc", NULL};
        CHECK_RC(PMIx_Unpublish(keys, NULL, 0), PMIX_SUCCESS, "Unpublish");
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
