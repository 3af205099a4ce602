/* hang.c: a job that hangs on purpose, for the test harness's hang report
 * (tests-c/hangdump/run.sh). Run under pmixrun with at least 2 ranks.
 *
 *   hang fence   every rank but the last enters PMIx_Fence (no timeout); the last never does
 *   hang get     rank 0 Gets a key of rank 1 that nobody ever puts (no timeout); the
 *                others wait in a fence rank 0 never reaches
 *
 * It never ends by itself: whoever runs it must kill it. */
#include <pmix.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    pmix_proc_t me, peer;
    pmix_value_t *val = NULL;
    const char *mode = argc > 1 ? argv[1] : "fence";
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_value_t *sz = NULL;
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t size = 0;
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &sz) == PMIX_SUCCESS && sz) {
        size = sz->data.uint32;
    }
    printf("rank %u of %u: %s\n", me.rank, size, mode);
    fflush(stdout);
    if (strcmp(mode, "get") == 0 && me.rank == 0) {
        PMIX_LOAD_PROCID(&peer, me.nspace, 1);
        rc = PMIx_Get(&peer, "hangdump-never-put", NULL, 0, &val);
        printf("rank 0: PMIx_Get returned %s\n", PMIx_Error_string(rc));
    } else if (strcmp(mode, "fence") == 0 && me.rank + 1 == size) {
        for (;;) {
            pause(); /* the rank that never enters the fence */
        }
    } else {
        rc = PMIx_Fence(NULL, 0, NULL, 0);
        printf("rank %u: PMIx_Fence returned %s\n", me.rank, PMIx_Error_string(rc));
    }
    fflush(stdout);
    for (;;) {
        pause();
    }
}
