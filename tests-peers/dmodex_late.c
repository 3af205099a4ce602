/* dmodex_late: a PMIx_Get with PMIX_TIMEOUT of a peer's key waits for a peer that has
 * not even connected yet (as OpenPMIx master's examples/dmodex.c relies on), also for
 * keys named after the namespace as that example names them ("<nspace>-1-local"; pmixrun's
 * namespaces do not begin with "pmix", so these are not reserved keys).
 * Run: pmixrun -n 2 dmodex_late
 * Rank 1 sleeps 1.5 s before PMIx_Init, then puts "late" (global) and "<nspace>-1-local"
 * (local) and commits. Rank 0 asks for both with a 10 s timeout: both arrive, after the
 * sleep.
 * A key rank 1 never puts ("never") is PMIX_ERR_TIMEOUT after its 1 s timeout (not an
 * immediate NOT_FOUND), and with PMIX_IMMEDIATE it is NOT_FOUND at once. */
#include <pmix.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../tests-c/check.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static pmix_status_t get_from(const pmix_proc_t *me, pmix_rank_t r, const char *key,
                              int secs, bool immediate, pmix_value_t **val)
{
    pmix_proc_t peer;
    pmix_info_t info[2];
    size_t n = 0;
    PMIX_PROC_LOAD(&peer, me->nspace, r);
    PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &secs, PMIX_INT);
    if (immediate) {
        PMIX_INFO_LOAD(&info[n++], PMIX_IMMEDIATE, NULL, PMIX_BOOL);
    }
    pmix_status_t rc = PMIx_Get(&peer, key, info, n, val);
    for (size_t i = 0; i < n; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    return rc;
}

int main(void)
{
    pmix_proc_t me;
    pmix_value_t v, *val = NULL;
    const char *rank = getenv("PMIX_RANK");
    if (rank != NULL && strcmp(rank, "1") == 0) {
        usleep(1500 * 1000); /* not connected while rank 0 asks */
    }
    double t0 = now();
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init");
    char local_key[PMIX_MAX_NSLEN + 32];
    snprintf(local_key, sizeof local_key, "%s-1-local", me.nspace);
    if (me.rank == 1) {
        PMIX_VALUE_LOAD(&v, "here", PMIX_STRING);
        CHECK_RC(PMIx_Put(PMIX_GLOBAL, "late", &v), PMIX_SUCCESS, "put late");
        PMIX_VALUE_DESTRUCT(&v);
        uint64_t u = 1234;
        PMIX_VALUE_LOAD(&v, &u, PMIX_UINT64);
        CHECK_RC(PMIx_Put(PMIX_LOCAL, local_key, &v), PMIX_SUCCESS, local_key);
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "commit");
    } else if (me.rank == 0) {
        CHECK_RC(get_from(&me, 1, "late", 10, false, &val), PMIX_SUCCESS,
                 "Get of a key of a peer that has not connected yet waits for it");
        CHECK(val != NULL && val->type == PMIX_STRING && strcmp(val->data.string, "here") == 0,
              "its value is the one put");
        CHECK(now() - t0 > 1.0, "it arrived after the peer's sleep (%.2f s)", now() - t0);
        if (val != NULL) {
            PMIX_VALUE_RELEASE(val);
            val = NULL;
        }
        CHECK_RC(get_from(&me, 1, local_key, 10, false, &val), PMIX_SUCCESS,
                 "its PMIX_LOCAL key named after the namespace too");
        CHECK(val != NULL && val->type == PMIX_UINT64 && val->data.uint64 == 1234,
              "the local value is the one put");
        if (val != NULL) {
            PMIX_VALUE_RELEASE(val);
            val = NULL;
        }
        double t1 = now();
        CHECK_RC(get_from(&me, 1, "never", 1, false, &val), PMIX_ERR_TIMEOUT,
                 "a key the peer never puts times out");
        CHECK(now() - t1 > 0.8, "after the timeout (%.2f s)", now() - t1);
        CHECK_RC(get_from(&me, 1, "never", 1, true, &val), PMIX_ERR_NOT_FOUND,
                 "with PMIX_IMMEDIATE it is NOT_FOUND");
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
