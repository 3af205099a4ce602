/* no_finalize: rank 0 initializes and exits 0 without PMIx_Finalize while the others
 * wait for it in a fence. pmixrun must fail the job promptly, naming rank 0.
 * Run: pmixrun -n N no_finalize   (N >= 2) */
#include <pmix.h>
#include <stdio.h>
#include <unistd.h>

#include "rt.h"

int main(void)
{
    pmix_proc_t me;
    RT_INIT(&me);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "Fence");
    if (0 == me.rank) {
        printf("rank 0 leaving without PMIx_Finalize\n");
        fflush(stdout);
        return 0;
    }
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    printf("rank %u: fence with a departed rank returned %s\n", me.rank, PMIx_Error_string(rc));
    fflush(stdout);
    sleep(60);
    return 0;
}
