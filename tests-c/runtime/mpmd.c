/* mpmd: one rank of a two-application job checks its application's keys.
 * Run: pmixrun -n 2 mpmd 0 2 0 : -n 3 mpmd 1 3 2
 * (arguments: my app number, my app's size, my app's first rank) */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static uint32_t get_u32(const pmix_proc_t *p, const char *key, const pmix_info_t *info,
                        size_t ninfo, pmix_data_type_t type)
{
    pmix_value_t *v = NULL;
    uint32_t out = UINT32_MAX;
    pmix_status_t rc = PMIx_Get(p, key, info, ninfo, &v);
    CHECK(PMIX_SUCCESS == rc && v && v->type == type, "Get %s of rank %u: %s, type %s", key,
          p->rank, PMIx_Error_string(rc), v ? PMIx_Data_type_string(v->type) : "-");
    if (PMIX_SUCCESS == rc && v && v->type == type) {
        out = PMIX_PROC_RANK == type ? v->data.rank : v->data.uint32;
    }
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: mpmd APPNUM APPSIZE APPLDR\n");
        return 2;
    }
    uint32_t appnum = (uint32_t)atoi(argv[1]), appsize = (uint32_t)atoi(argv[2]);
    uint32_t appldr = (uint32_t)atoi(argv[3]);
    pmix_proc_t me, job;
    RT_INIT(&me);
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t n = get_u32(&job, PMIX_JOB_SIZE, NULL, 0, PMIX_UINT32);

    CHECK(get_u32(&job, PMIX_JOB_NUM_APPS, NULL, 0, PMIX_UINT32) == 2, "two apps");
    CHECK(get_u32(&me, PMIX_APPNUM, NULL, 0, PMIX_UINT32) == appnum, "my appnum is %u", appnum);
    CHECK(get_u32(&me, PMIX_APP_RANK, NULL, 0, PMIX_PROC_RANK) == me.rank - appldr,
          "my app rank is %u", me.rank - appldr);
    CHECK(get_u32(&me, PMIX_APP_SIZE, NULL, 0, PMIX_UINT32) == appsize, "my app has %u ranks",
          appsize);
    CHECK(get_u32(&me, PMIX_APPLDR, NULL, 0, PMIX_PROC_RANK) == appldr, "my app starts at %u",
          appldr);
    CHECK(get_u32(&me, PMIX_GLOBAL_RANK, NULL, 0, PMIX_PROC_RANK) == me.rank,
          "global rank = rank");

    /* The first and the last rank are in different apps. */
    pmix_proc_t first, last;
    PMIX_LOAD_PROCID(&first, me.nspace, 0);
    PMIX_LOAD_PROCID(&last, me.nspace, n - 1);
    CHECK(get_u32(&first, PMIX_APPNUM, NULL, 0, PMIX_UINT32) == 0, "rank 0 is in app 0");
    CHECK(get_u32(&last, PMIX_APPNUM, NULL, 0, PMIX_UINT32) == 1, "rank %u is in app 1", n - 1);

    /* The other app, through the app directive. */
    pmix_info_t info[2];
    bool yes = true;
    uint32_t other = 1 - appnum;
    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIX_INFO_CONSTRUCT(&info[1]);
    PMIX_INFO_LOAD(&info[0], PMIX_APP_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_APPNUM, &other, PMIX_UINT32);
    uint32_t osize = get_u32(&job, PMIX_APP_SIZE, info, 2, PMIX_UINT32);
    CHECK(osize == n - appsize, "app %u has %u ranks", other, n - appsize);
    uint32_t oldr = get_u32(&job, PMIX_APPLDR, info, 2, PMIX_PROC_RANK);
    CHECK(oldr == (appnum == 0 ? appsize : 0), "app %u starts at rank %u", other, oldr);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);

    /* Everyone in one fence: one namespace. */
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "Fence across both apps");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
