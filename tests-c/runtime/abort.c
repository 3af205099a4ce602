/* abort: rank 1 calls PMIx_Abort(7) after a fence; the other ranks wait in a fence
 * that can never complete. pmixrun must exit with status 7, kill the others and
 * name rank 1. Run: pmixrun -n N abort   (N >= 2) */
#include <pmix.h>
#include <stdio.h>
#include <unistd.h>

#include "rt.h"

int main(void)
{
    pmix_proc_t me;
    RT_INIT(&me);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "Fence");
    if (1 == me.rank) {
        printf("rank 1 aborting\n");
        fflush(stdout);
        pmix_status_t rc = PMIx_Abort(7, "abort test: rank 1 gives up", NULL, 0);
        /* Abort may return once the host has acted; we must not outlive it long. */
        printf("PMIx_Abort returned %s\n", PMIx_Error_string(rc));
        fflush(stdout);
        sleep(60);
        return 3;
    }
    /* Never completes: rank 1 does not join. */
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    printf("rank %u: second fence returned %s\n", me.rank, PMIx_Error_string(rc));
    sleep(60);
    return 4;
}
